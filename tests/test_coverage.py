import numpy as np
import pandas as pd
import pytest
from scipy import special, stats

import passk_lab as pk

HETEROGENEOUS = {"p": 0.6, "icc": 0.4}  # Beta(0.9, 0.6) task rates, like tau-bench's spread


@pytest.fixture(scope="module")
def default_coverage():
    return pk.interval_coverage(
        200,
        5,
        **HETEROGENEOUS,
        methods=["auto", "clustered", "naive", "analytic"],
        n_replicates=1000,
        n_resamples=1000,
        rng=2024,
    )


def test_default_intervals_cover_within_2_5_points_at_200_tasks(default_coverage):
    # 1,000 replicates: the coverage's standard error is about 0.7 points
    defaults = default_coverage[default_coverage["method"].isin(["auto", "clustered"])]
    assert len(defaults) == 2 * 5 + 1
    assert np.all(np.abs(defaults["coverage"] - 0.95) <= 0.025), defaults


def test_coverage_detects_intervals_that_ignore_heterogeneity(default_coverage):
    table = default_coverage.set_index(["method", "k"])
    assert table.loc[("naive", 1), "coverage"] < 0.85  # runs treated as independent
    assert table.loc[("analytic", 5), "coverage"] < 0.05  # p^k is not pass^k here


def test_truth_is_the_beta_moment():
    table = pk.interval_coverage(50, 4, **HETEROGENEOUS, methods=["auto"], n_replicates=5, rng=0)
    alpha, beta = 0.6 * 0.6 / 0.4, 0.4 * 0.6 / 0.4
    for row in table.itertuples():
        if row.statistic == "pass_pow_k":
            expected = np.exp(special.betaln(alpha + row.k, beta) - special.betaln(alpha, beta))
        else:
            expected = 1 - np.exp(special.betaln(alpha, beta + row.k) - special.betaln(alpha, beta))
        assert row.truth == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("method", ["wilson", "wald", "clopper_pearson"])
def test_simulated_binomial_coverage_matches_exact_enumeration(method):
    # at k = n runs the tasks passing all runs are Binomial(tasks, truth): exact coverage
    tasks, runs = 40, 5
    table = pk.interval_coverage(
        tasks, runs, p=0.85, methods=[method], n_replicates=4000, rng=1
    ).set_index("statistic")
    truth = 0.85**runs
    outcomes = np.arange(tasks + 1)
    low, high = pk.binomial_ci(outcomes, tasks, method=method)
    covered = (low <= truth) & (truth <= high)
    exact = stats.binom.pmf(outcomes, tasks, truth)[covered].sum()
    row = table.loc["pass_pow_k"]
    assert row["k"] == runs
    assert row["coverage"] == pytest.approx(exact, abs=4 * row["coverage_se"])


def test_identical_tasks_make_the_analytic_band_right():
    table = pk.interval_coverage(
        100, 5, p=0.85, methods=["analytic"], n_replicates=600, n_resamples=600, rng=3
    )
    assert np.all(np.abs(table["coverage"] - 0.95) <= 0.04)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"methods": ["bootstrap"]}, "methods must be a non-empty list of auto"),
        ({"methods": []}, "methods must be a non-empty list"),
        ({"ks": [6]}, "ks must be at most runs_per_task = 5"),
        ({"p": 1.0}, "p must be strictly between 0 and 1"),
        ({"icc": 1.0}, "icc must be below 1"),
        ({"n_replicates": 0}, "n_replicates must be a positive integer"),
    ],
)
def test_bad_settings_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        pk.interval_coverage(10, 5, **kwargs)


def test_the_old_n_runs_keyword_still_works_with_a_warning() -> None:
    options = {"methods": ["wilson"], "n_replicates": 20, "rng": 3}
    with pytest.warns(DeprecationWarning, match="runs_per_task"):
        old = pk.interval_coverage(30, n_runs=4, **options)
    pd.testing.assert_frame_equal(old, pk.interval_coverage(30, runs_per_task=4, **options))
    with pytest.raises(TypeError, match="needs runs_per_task"):
        pk.interval_coverage(30, methods=["wilson"])
