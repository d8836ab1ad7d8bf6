import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

import passk_lab as pk
from passk_lab._bootstrap import (
    acceleration,
    quantile_limits,
    resample_cells,
    task_bootstrap,
    two_level_bootstrap,
    weighted_means,
)
from passk_lab.intervals import BINOMIAL_METHODS

STATSMODELS_NAME = {
    "wilson": "wilson",
    "clopper_pearson": "beta",
    "jeffreys": "jeffreys",
    "agresti_coull": "agresti_coull",
    "wald": "normal",
}


def grid() -> tuple[np.ndarray, np.ndarray]:
    pairs = [(s, t) for t in [*range(1, 31), 50, 100, 1000] for s in range(t + 1)]
    successes, trials = np.array(pairs).T
    return successes, trials


@pytest.mark.parametrize("method", BINOMIAL_METHODS)
@pytest.mark.parametrize("level", [0.8, 0.95, 0.99])
def test_binomial_ci_agrees_with_statsmodels(method, level):
    successes, trials = grid()
    low, high = pk.binomial_ci(successes, trials, confidence_level=level, method=method)
    expected_low, expected_high = proportion_confint(
        successes, trials, alpha=1 - level, method=STATSMODELS_NAME[method]
    )
    if method == "jeffreys":
        # statsmodels keeps the posterior quantile at the edges; Brown, Cai and
        # DasGupta (2001) set the limit to 0 at no successes and 1 at all successes
        expected_low = np.where(successes == 0, 0.0, expected_low)
        expected_high = np.where(successes == trials, 1.0, expected_high)
    np.testing.assert_allclose(low, expected_low, rtol=0, atol=1e-10)
    np.testing.assert_allclose(high, expected_high, rtol=0, atol=1e-10)
    assert np.all((low <= successes / trials + 1e-15) & (successes / trials <= high + 1e-15))


def test_binomial_ci_scalars_and_broadcasting():
    low, high = pk.binomial_ci(3, 10)
    assert isinstance(low, float)
    assert isinstance(high, float)
    interval = pk.binomial_ci(np.array([[0], [5]]), np.array([10, 20]))
    assert interval.low.shape == (2, 2)
    assert interval.low[1, 1] == pk.binomial_ci(5, 20).low


def test_clopper_pearson_covers_at_least_the_level_exactly():
    # exact coverage by enumeration over every outcome of Binomial(20, p)
    trials, level = 20, 0.95
    outcomes = np.arange(trials + 1)
    low, high = pk.binomial_ci(outcomes, trials, method="clopper_pearson")
    for p in np.linspace(0.01, 0.99, 99):
        covered = (low <= p) & (p <= high)
        assert stats.binom.pmf(outcomes, trials, p)[covered].sum() >= level - 1e-12


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"successes": 0, "trials": 0}, ValueError, "trials must be at least 1"),
        ({"successes": 5, "trials": 4}, ValueError, "between 0 and trials"),
        ({"successes": -1, "trials": 4}, ValueError, "between 0 and trials"),
        ({"successes": 1.5, "trials": 4}, ValueError, "whole numbers"),
        ({"successes": np.nan, "trials": 4}, ValueError, "whole numbers"),
        ({"successes": "1", "trials": 4}, TypeError, "integer counts"),
        ({"successes": True, "trials": 4}, TypeError, "integer counts"),
        ({"successes": 1, "trials": 4, "confidence_level": 1.0}, ValueError, "strictly between"),
        ({"successes": 1, "trials": 4, "confidence_level": 0}, ValueError, "strictly between"),
        ({"successes": 1, "trials": 4, "confidence_level": 95}, ValueError, "0.95 for a 95%"),
        ({"successes": 1, "trials": 4, "confidence_level": 10**400}, ValueError, "got inf"),
        ({"successes": 1, "trials": 4, "confidence_level": "95%"}, TypeError, "confidence_level"),
        ({"successes": 1, "trials": 4, "method": "exact"}, ValueError, "clopper_pearson"),
    ],
)
def test_binomial_ci_refuses_bad_input(kwargs, error, message):
    with pytest.raises(error, match=message):
        pk.binomial_ci(**kwargs)


# --- the task bootstrap over cells -------------------------------------------------------


def cells_example():
    tasks = np.array([7, 3, 12, 9, 4, 25])
    values = np.array(
        [
            [0.0, 0.0],
            [0.25, np.nan],
            [0.5, 0.1],
            [0.75, 0.4],
            [0.9, np.nan],
            [1.0, 1.0],
        ]
    )
    return tasks, values


def expand(tasks, values):
    return np.repeat(values, tasks, axis=0)


def test_multinomial_resampling_has_the_task_bootstrap_variance():
    tasks, values = cells_example()
    per_task = expand(tasks, values)[:, 0]
    replicates = weighted_means(resample_cells(tasks, 40_000, np.random.default_rng(1)), values)
    # resampling T tasks with replacement: Var(mean) = population variance / T
    expected = per_task.var() / len(per_task)
    assert replicates[:, 0].mean() == pytest.approx(
        per_task.mean(), abs=4 * np.sqrt(expected / 4e4)
    )
    assert replicates[:, 0].var() == pytest.approx(expected, rel=0.03)


def test_acceleration_equals_the_brute_force_jackknife():
    tasks, values = cells_example()
    expected = []
    for column in range(values.shape[1]):
        per_task = expand(tasks, values)[:, column]
        left_out = np.array(
            [np.nanmean(np.delete(per_task, i)) for i in range(len(per_task))]
        )  # a task that is not counted leaves the mean unchanged
        gap = left_out.mean() - left_out
        expected.append((gap**3).sum() / (6 * ((gap**2).sum()) ** 1.5))
    np.testing.assert_allclose(acceleration(tasks, values), expected, rtol=1e-10, atol=1e-15)


@pytest.mark.parametrize(("method", "scipy_method"), [("percentile", "percentile"), ("bca", "BCa")])
def test_task_bootstrap_agrees_with_scipy_on_per_task_values(method, scipy_method):
    tasks, values = cells_example()
    per_task = expand(tasks, values)[:, 0]
    low, high = task_bootstrap(
        tasks, values[:, :1], method=method, n_resamples=50_000, rng=np.random.default_rng(2)
    )
    reference = stats.bootstrap(
        (per_task,),
        np.mean,
        method=scipy_method,
        n_resamples=50_000,
        rng=np.random.default_rng(3),
    ).confidence_interval
    # both are Monte Carlo estimates of the same quantiles: the sd of a 2.5%
    # quantile of 50,000 resamples is about 0.001 here
    assert low[0] == pytest.approx(reference.low, abs=0.006)
    assert high[0] == pytest.approx(reference.high, abs=0.006)


def test_task_bootstrap_is_reproducible_and_nan_where_nothing_is_counted():
    tasks, values = cells_example()
    values = np.column_stack([values, np.full(len(tasks), np.nan)])
    first = task_bootstrap(tasks, values, n_resamples=500, rng=np.random.default_rng(5))
    second = task_bootstrap(tasks, values, n_resamples=500, rng=np.random.default_rng(5))
    np.testing.assert_array_equal(first.low, second.low)
    assert np.isnan(first.low[2])
    assert np.isnan(first.high[2])
    assert np.all(first.low[:2] < first.high[:2])


def test_task_bootstrap_refuses_unknown_method():
    tasks, values = cells_example()
    with pytest.raises(ValueError, match="percentile, bca"):
        task_bootstrap(tasks, values, method="basic", rng=np.random.default_rng(0))


def share_passed(n, c):
    return (c / n)[:, None]


def two_and_one_level(n, c, tasks, seed):
    """The two-level and the one-level percentile intervals of pass@1, from one seed."""
    two_level = two_level_bootstrap(
        n, c, tasks, share_passed, n_resamples=4000, rng=np.random.default_rng(seed)
    )
    one_level = task_bootstrap(
        tasks,
        share_passed(n, c),
        method="percentile",
        n_resamples=4000,
        rng=np.random.default_rng(seed),
    )
    return two_level, one_level


def test_two_level_equals_the_task_bootstrap_when_runs_never_vary():
    # every task passed all its runs or none: redrawing runs changes nothing
    two_level, one_level = two_and_one_level(
        np.array([4, 4, 6]), np.array([0, 4, 6]), np.array([10, 15, 5]), seed=7
    )
    np.testing.assert_allclose(two_level.low, one_level.low)
    np.testing.assert_allclose(two_level.high, one_level.high)


def test_two_level_is_wider_when_runs_vary():
    two_level, one_level = two_and_one_level(
        np.array([4, 4, 4]), np.array([1, 2, 3]), np.array([20, 20, 20]), seed=8
    )
    assert two_level.high[0] - two_level.low[0] > 1.2 * (one_level.high[0] - one_level.low[0])


# --- the clustered standard error of pass@1 -----------------------------------------------


def beta_binomial_runs(tasks, runs, rng):
    chances = rng.beta(1.5, 0.8, size=tasks)
    passed = rng.random((tasks, runs)) < chances[:, None]
    return pk.runs_from_matrix(pd.DataFrame(passed, index=pd.Index(range(tasks), name="task")))


def test_pass_at_1_se_equals_statsmodels_cluster_robust_and_hc0():
    runs = beta_binomial_runs(60, 5, np.random.default_rng(11))
    error = pk.pass_at_1_se(runs)
    y = runs["passed"].to_numpy(dtype=float)
    x = np.ones((len(y), 1))
    clustered = sm.OLS(y, x).fit(cov_type="cluster", cov_kwds={"groups": runs["task"].to_numpy()})
    naive = sm.OLS(y, x).fit(cov_type="HC0")
    assert error.estimate == pytest.approx(y.mean(), rel=1e-12)
    assert error.se_clustered == pytest.approx(clustered.bse[0], rel=1e-10)
    assert error.se_naive == pytest.approx(naive.bse[0], rel=1e-10)
    assert error.design_effect == pytest.approx(error.se_clustered**2 / error.se_naive**2)
    assert (error.n_tasks, error.n_runs) == (60, 300)


def test_pass_at_1_se_with_unequal_runs_is_the_sd_of_task_means():
    counts = pd.DataFrame({"task": range(5), "n": [2, 3, 5, 8, 4], "c": [0, 3, 1, 8, 2]})
    share = counts["c"] / counts["n"]
    error = pk.pass_at_1_se(counts)
    assert error.estimate == pytest.approx(share.mean())
    assert error.se_clustered == pytest.approx(share.std(ddof=1) / np.sqrt(5))
    p = share.mean()
    assert error.se_naive == pytest.approx(np.sqrt((p * (1 - p) / counts["n"]).sum()) / 5)


def test_design_effect_is_about_one_plus_n_minus_one_rho():
    rng = np.random.default_rng(12)
    runs = beta_binomial_runs(20_000, 5, rng)
    rho = 1 / (1.5 + 0.8 + 1)  # Beta(1.5, 0.8): intra-task correlation 1 / (alpha + beta + 1)
    assert pk.pass_at_1_se(runs).design_effect == pytest.approx(1 + 4 * rho, rel=0.05)


def test_pass_at_1_se_interval_and_frame():
    counts = pd.DataFrame({"task": range(4), "n": 10, "c": [0, 2, 9, 10]})
    error = pk.pass_at_1_se(counts)
    low, high = error.confidence_interval(0.9, method="clustered")
    z = stats.norm.ppf(0.95)
    assert low == pytest.approx(error.estimate - z * error.se_clustered)
    assert high == pytest.approx(min(1.0, error.estimate + z * error.se_clustered))
    naive = error.confidence_interval(method="naive")
    assert naive.high - naive.low < high - low
    assert list(error.to_frame().columns) == [
        "estimate",
        "se_clustered",
        "se_naive",
        "design_effect",
        "n_tasks",
        "n_runs",
    ]
    with pytest.raises(ValueError, match="'auto', 'clustered' or 'naive'"):
        error.confidence_interval(method="robust")


@pytest.mark.parametrize("seed", range(6))
def test_bootstrap_limits_are_numpys_quantiles_bit_for_bit(seed):
    # one sort of every column in place of numpy.quantile column by column: ties, NaN
    # replicates (resamples that counted no task), one finite replicate, q at 0 and 1
    rng = np.random.default_rng(seed)
    rows, columns = [1, 2, 7, 1000, 10_000, 333][seed], 9
    replicates = (
        rng.integers(0, 6, (rows, columns)) / 5.0 if seed % 2 else rng.random((rows, columns))
    )
    replicates[rng.random((rows, columns)) < 0.1 * (seed % 3)] = np.nan
    replicates[1:, 0] = np.nan
    estimate = np.append(rng.random(columns - 1), np.nan)
    low_q = np.concatenate([[0.0, 1.0], rng.uniform(0, 0.5, columns - 2)])
    high_q = np.concatenate([[1.0, 0.0], rng.uniform(0.5, 1, columns - 2)])
    low, high = quantile_limits(replicates, estimate, low_q, high_q)
    for column in range(columns):
        values = replicates[:, column]
        values = values[np.isfinite(values)]
        if np.isnan(estimate[column]) or len(values) == 0:
            assert np.isnan([low[column], high[column]]).all()
            continue
        expected = np.quantile(values, [low_q[column], high_q[column]])
        assert (low[column], high[column]) == (expected[0], expected[1])
