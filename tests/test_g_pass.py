from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

import passk_lab as pk
from passk_lab._mean_intervals import TaskMoments, effective_n_interval

# Per task, its runs' outcomes: unequal numbers of runs, every pass count from none to all.
TASKS = {
    "a": [1, 0, 1, 1, 0, 1],
    "b": [0, 0, 0, 1, 0],
    "c": [1, 1, 1, 1, 1, 1, 1],
    "d": [0, 0, 0, 0],
    "e": [1, 0, 1, 0, 1, 1, 0],
    "f": [1, 1, 0, 1],
}


def as_runs(tasks: dict[str, list[int]], **columns: object) -> pd.DataFrame:
    rows = [
        {**columns, "task": task, "run": run, "passed": bool(outcome)}
        for task, outcomes in tasks.items()
        for run, outcome in enumerate(outcomes)
    ]
    return pd.DataFrame(rows)


def share_at_least(outcomes: list[int], k: int, m: int) -> Fraction:
    """The share of the k-subsets of a task's runs with at least m passes, by enumeration."""
    subsets = list(itertools.combinations(outcomes, k))
    return Fraction(sum(sum(subset) >= m for subset in subsets), len(subsets))


def brute_values(tasks: dict[str, list[int]], k: int, tau: str) -> list[Fraction]:
    """Per task with k runs: G-Pass@k_tau (`tau` a decimal string) or mG-Pass@k ("mean")."""
    values = []
    for outcomes in tasks.values():
        if len(outcomes) < k:
            continue
        if tau == "mean":
            first = math.ceil(Fraction(k, 2)) + 1
            total = sum(share_at_least(outcomes, k, i) for i in range(first, k + 1))
            values.append(Fraction(2, k) * total)
        else:
            values.append(share_at_least(outcomes, k, math.ceil(Fraction(tau) * k)))
    return values


def brute_force(tasks: dict[str, list[int]], k: int, tau: str) -> float:
    values = brute_values(tasks, k, tau)
    return float(sum(values) / len(values))


# --- the definition ---------------------------------------------------------------------


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5])
def test_every_tau_agrees_with_enumerating_the_subsets_of_runs(k):
    taus = ["0.1", "0.25", "0.5", "0.6", "0.75", "1"]
    table = pk.g_pass_at_k(as_runs(TASKS), k, [float(tau) for tau in taus])
    assert table["k"].tolist() == [k] * len(taus)
    assert table["tau"].tolist() == [float(tau) for tau in taus]
    expected = [brute_force(TASKS, k, tau) for tau in taus]
    assert table["g_pass_at_k"].to_numpy() == pytest.approx(expected, rel=1e-12, abs=1e-15)
    counted = sum(len(outcomes) >= k for outcomes in TASKS.values())
    assert table["n_tasks"].tolist() == [counted] * len(taus)


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 6])
def test_mean_is_mg_pass_at_k_of_enumerating_the_subsets(k):
    table = pk.g_pass_at_k(as_runs(TASKS), k, ["mean", 1.0])
    assert table["tau"].tolist() == [1.0, "mean"]
    mean = table[table["tau"] == "mean"]
    assert mean["g_pass_at_k"].item() == pytest.approx(brute_force(TASKS, k, "mean"), abs=1e-14)


def test_mg_pass_at_k_sums_the_thresholds_above_one_half():
    # For k = 4 the thresholds above 1/2 are 3/4 and 1: mG-Pass@4 = (2/4)(G_0.75 + G_1).
    table = pk.g_pass_at_k(as_runs(TASKS), 4, [0.75, 1.0, "mean"])
    g_075, g_1, mean = table["g_pass_at_k"]
    assert mean == pytest.approx((g_075 + g_1) / 2, rel=1e-12)


def test_tau_is_read_as_the_decimal_it_prints_as():
    # 0.28 * 25 is 7.000000000000001 in binary floating point: its ceiling would be 8.
    assert 0.28 * 25 > 7
    tasks = {"seven": [1] * 7 + [0] * 18, "eight": [1] * 8 + [0] * 17}
    table = pk.g_pass_at_k(as_runs(tasks), 25, 0.28)
    assert table["g_pass_at_k"].item() == 1.0  # both tasks passed at least 7 of their 25


def test_tau_one_is_the_curves_pass_pow_k_and_a_small_tau_its_pass_at_k():
    runs = pd.concat(
        [
            as_runs(TASKS, model="x"),
            as_runs({"a": [1, 1, 0, 1, 1], "b": [0, 1, 0, 0, 1], "c": [1, 1, 1, 1, 1]}, model="y"),
        ],
        ignore_index=True,
    )
    ks = [2, 4]
    curve = pk.reliability_curve(runs, ks, by="model").set_index(["model", "k"])
    table = pk.g_pass_at_k(runs, ks, [0.01, 1.0], by="model").set_index(["model", "k", "tau"])
    for model, k in itertools.product(["x", "y"], ks):
        row = curve.loc[(model, k)]
        strict, loose = table.loc[(model, k, 1.0)], table.loc[(model, k, 0.01)]
        assert strict["g_pass_at_k"] == pytest.approx(row["pass_pow_k"], rel=1e-12)
        assert strict["g_pass_at_k_low"] == pytest.approx(row["pass_pow_k_low"], rel=1e-9)
        assert strict["g_pass_at_k_high"] == pytest.approx(row["pass_pow_k_high"], rel=1e-9)
        assert loose["g_pass_at_k"] == pytest.approx(row["pass_at_k"], rel=1e-12)
        assert loose["g_pass_at_k_low"] == pytest.approx(row["pass_at_k_low"], rel=1e-9)
        assert loose["g_pass_at_k_high"] == pytest.approx(row["pass_at_k_high"], rel=1e-9)
        assert strict["n_tasks"] == row["n_tasks"]


def test_any_tau_up_to_one_over_k_is_pass_at_k():
    runs = as_runs(TASKS)
    table = pk.g_pass_at_k(runs, 4, [0.05, 0.2, 0.25])
    assert table["g_pass_at_k"].to_numpy() == pytest.approx([pk.pass_at_k(runs, 4)] * 3, rel=1e-12)


# --- intervals --------------------------------------------------------------------------


def test_with_k_runs_a_task_the_interval_is_clopper_pearson_on_the_tasks():
    tasks = {f"t{i}": outcomes for i, outcomes in enumerate(itertools.product([0, 1], repeat=4))}
    table = pk.g_pass_at_k(as_runs(tasks), 4, 0.5)
    # 11 of the 16 patterns of 4 runs hold at least 2 passes
    assert table["g_pass_at_k"].item() == pytest.approx(11 / 16)
    interval = pk.binomial_ci(11, 16, method="clopper_pearson")
    assert table["g_pass_at_k_low"].item() == pytest.approx(interval.low, rel=1e-9)
    assert table["g_pass_at_k_high"].item() == pytest.approx(interval.high, rel=1e-9)


def test_unequal_runs_get_the_effective_n_interval_of_the_task_values():
    table = pk.g_pass_at_k(as_runs(TASKS), 3, [0.5, "mean"])
    counted = [outcomes for outcomes in TASKS.values() if len(outcomes) >= 3]
    n = np.array([len(outcomes) for outcomes in counted])
    values = np.array(
        [[float(value) for value in brute_values(TASKS, 3, tau)] for tau in ("0.5", "mean")]
    ).T
    moments = TaskMoments.of(values, np.ones(len(n), dtype=np.int64), n, np.array([3, 3]))
    assert not moments.exact.any()
    low, high = effective_n_interval(moments, 0.95)
    assert table["g_pass_at_k_low"].to_numpy() == pytest.approx(low, rel=1e-9)
    assert table["g_pass_at_k_high"].to_numpy() == pytest.approx(high, rel=1e-9)


def test_the_effective_tasks_are_at_most_the_disjoint_blocks_of_k_runs():
    # Every task passed 2 of 4 runs: P(at least 2 of 3 drawn pass) = C(2,2) C(2,1) / C(4,3) = 1/2
    # on every task, a spread that claims more trials than the 20 blocks of 3 runs the tasks hold.
    tasks = {f"t{i}": [1, 1, 0, 0] for i in range(20)}
    table = pk.g_pass_at_k(as_runs(tasks), 3, 0.5)
    assert table["g_pass_at_k"].item() == pytest.approx(0.5)
    interval = pk.binomial_ci(10, 20, method="clopper_pearson")
    assert table["g_pass_at_k_low"].item() == pytest.approx(interval.low, rel=1e-9)
    assert table["g_pass_at_k_high"].item() == pytest.approx(interval.high, rel=1e-9)


def test_one_counted_task_has_no_interval_and_none_no_estimate():
    runs = pd.concat(
        [
            as_runs({"a": [1, 0, 1], "b": [1, 1, 1]}, model="x"),
            as_runs({"a": [1, 0, 1, 1, 1, 0], "b": [1, 1]}, model="y"),
        ],
        ignore_index=True,
    )
    with pytest.warns(RuntimeWarning) as caught:
        table = pk.g_pass_at_k(runs, [3, 6], 0.5, by="model").set_index(["model", "k"])
    messages = [str(warning.message) for warning in caught]
    assert any(
        "no estimate of G-Pass@k at k = 6 in group model='x'" in message
        and "the most is 3" in message
        for message in messages
    )
    assert any(
        "intervals of G-Pass@k at k = 3, 6 in group model='y' are NaN" in message
        for message in messages
    )
    assert np.isnan(table.loc[("x", 6), ["g_pass_at_k", "g_pass_at_k_low"]]).all()
    assert table.loc[("x", 6), "n_tasks"] == 0
    assert table.loc[("y", 6), "g_pass_at_k"] == pytest.approx(
        float(share_at_least([1, 0, 1, 1, 1, 0], 6, 3))
    )
    assert np.isnan(table.loc[("y", 6), "g_pass_at_k_high"])
    assert table.loc[("x", 3), "g_pass_at_k"] == 1.0
    assert np.isfinite(table.loc[("x", 3), "g_pass_at_k_low"])


# --- inputs -----------------------------------------------------------------------------


def test_grouped_rows_are_per_group_k_and_tau_in_order():
    runs = pd.concat(
        [as_runs(TASKS, model="x", domain="d"), as_runs(TASKS, model="y", domain="d")],
        ignore_index=True,
    )
    table = pk.g_pass_at_k(runs, [3, 2, 3], [1.0, 0.5], by=["model", "domain"])
    assert list(table.columns) == [
        "model",
        "domain",
        "k",
        "tau",
        "g_pass_at_k",
        "g_pass_at_k_low",
        "g_pass_at_k_high",
        "n_tasks",
    ]
    assert list(zip(table["model"], table["k"], table["tau"], strict=True)) == [
        (model, k, tau) for model in "xy" for k in (2, 3) for tau in (0.5, 1.0)
    ]
    assert table["tau"].dtype == np.float64
    expected = [brute_force(TASKS, k, tau) for k in (2, 3) for tau in ("0.5", "1")]
    assert table["g_pass_at_k"].to_numpy() == pytest.approx(expected * 2, rel=1e-12)


def test_a_tally_gives_the_same_table_as_its_runs():
    runs = as_runs(TASKS)
    counts = pk.tally(runs)
    assert set(counts.columns) >= {"task", "n", "c"}
    from_runs = pk.g_pass_at_k(runs, [1, 4], [0.3, 0.75, "mean"])
    from_counts = pk.g_pass_at_k(counts, [1, 4], [0.3, 0.75, "mean"])
    pd.testing.assert_frame_equal(from_runs, from_counts)
    counts = pd.DataFrame({"task": ["p", "q", "r"], "n": [10, 10, 8], "c": [7, 2, 8]})
    table = pk.g_pass_at_k(counts, 8, 0.75)
    tasks = {"p": [1] * 7 + [0] * 3, "q": [1] * 2 + [0] * 8, "r": [1] * 8}
    assert table["g_pass_at_k"].item() == pytest.approx(brute_force(tasks, 8, "0.75"), rel=1e-12)


@pytest.mark.parametrize(
    ("tau", "error", "message"),
    [
        (0, ValueError, r"tau must be in \(0, 1\].*got 0.0"),
        (1.5, ValueError, r"tau must be in \(0, 1\].*got 1.5"),
        (float("nan"), ValueError, r"tau must be in \(0, 1\].*got nan"),
        ([0.5, -0.1], ValueError, r"tau must be in \(0, 1\].*got -0.1"),
        ("x", TypeError, r"tau must be a number in \(0, 1\].*or 'mean'.*got 'x'"),
        (True, TypeError, r"tau must be a number.*got True"),
        ([], ValueError, "tau is empty"),
    ],
)
def test_a_bad_tau_is_refused(tau, error, message):
    with pytest.raises(error, match=message):
        pk.g_pass_at_k(as_runs(TASKS), 2, tau)


@pytest.mark.parametrize(
    ("k", "error", "message"),
    [
        (0, ValueError, "k must be a positive integer, got 0"),
        ([2, -1], ValueError, "k must be a positive integer, got -1"),
        (8, ValueError, "k = 8 is more runs than any task has: the largest k available is 7"),
        ([2, 9], ValueError, "k = 9 is more runs than any task has: the largest k available is 7"),
        (2.0, TypeError, "k must be an integer, got 2.0"),
        ("3", TypeError, "k must be an integer, got '3'"),
        ([], ValueError, "ks is empty"),
    ],
)
def test_a_bad_k_is_refused(k, error, message):
    with pytest.raises(error, match=message):
        pk.g_pass_at_k(as_runs(TASKS), k, 0.5)


def test_an_unknown_grouping_column_is_refused():
    with pytest.raises(ValueError, match="runs has no column 'model'"):
        pk.g_pass_at_k(as_runs(TASKS), 2, 0.5, by="model")


def test_a_bad_confidence_level_is_refused():
    with pytest.raises(ValueError, match="confidence_level must be strictly between 0 and 1"):
        pk.g_pass_at_k(as_runs(TASKS), 2, 0.5, confidence_level=95)


# --- the intervals' method, and the spellings of the last release ----------------------------


def test_the_default_intervals_are_the_auto_method():
    runs = as_runs(TASKS)
    default = pk.g_pass_at_k(runs, [2, 4], [0.5, "mean"])
    pd.testing.assert_frame_equal(
        pk.g_pass_at_k(runs, [2, 4], [0.5, "mean"], method="auto"), default
    )
    assert default.attrs == {"errors": "fail", "confidence_level": 0.95, "method": "auto"}


def test_a_binomial_method_with_k_runs_a_task_is_statsmodels_on_the_tasks():
    from statsmodels.stats.proportion import proportion_confint

    tasks = {f"t{i}": outcomes for i, outcomes in enumerate(itertools.product([0, 1], repeat=4))}
    table = pk.g_pass_at_k(as_runs(tasks), 4, 0.5, method="wilson")
    # 11 of the 16 patterns of 4 runs hold at least 2 passes
    expected = proportion_confint(11, 16, method="wilson")
    assert (table["g_pass_at_k_low"].item(), table["g_pass_at_k_high"].item()) == pytest.approx(
        expected
    )
    unequal = pk.g_pass_at_k(as_runs(TASKS), 4, 0.5, method="wilson")  # 4 to 7 runs: effective n
    auto = pk.g_pass_at_k(as_runs(TASKS), 4, 0.5)
    assert unequal["g_pass_at_k_low"].item() == auto["g_pass_at_k_low"].item()


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_a_bootstrap_at_tau_one_is_the_curves_pass_pow_k_from_the_same_seed(method):
    rng = np.random.default_rng(3)
    runs = as_runs(
        {f"t{i}": rng.integers(0, 2, size=int(rng.integers(3, 7))).tolist() for i in range(30)}
    )
    table = pk.g_pass_at_k(runs, [2, 3], 1.0, method=method, n_resamples=400, rng=11)
    curve = pk.reliability_curve(runs, [2, 3], method=method, n_resamples=400, rng=11)
    assert curve["interval_method"].tolist() == [method, method]
    for ours, theirs in [
        ("g_pass_at_k_low", "pass_pow_k_low"),
        ("g_pass_at_k_high", "pass_pow_k_high"),
    ]:
        assert table[ours].to_numpy() == pytest.approx(curve[theirs].to_numpy(), rel=1e-9)
    assert table.attrs["method"] == method


def test_the_two_level_bootstrap_redraws_the_runs_of_each_task():
    runs = as_runs(TASKS)
    table = pk.g_pass_at_k(runs, [2, 4], [0.5, 1.0], method="two-level", n_resamples=300, rng=0)
    assert (table["g_pass_at_k_low"] <= table["g_pass_at_k"]).all()
    assert (table["g_pass_at_k"] <= table["g_pass_at_k_high"]).all()
    again = pk.g_pass_at_k(runs, [2, 4], [0.5, 1.0], method="two-level", n_resamples=300, rng=0)
    pd.testing.assert_frame_equal(table, again)


def test_k_and_a_positional_by_still_work_for_one_release_with_a_warning():
    runs = pd.concat([as_runs(TASKS, model="x"), as_runs(TASKS, model="y")], ignore_index=True)
    expected = pk.g_pass_at_k(runs, [2, 3], 0.5, by="model")
    with pytest.warns(DeprecationWarning, match="k= is now ks="):
        renamed = pk.g_pass_at_k(runs, k=[2, 3], tau=0.5, by="model")
    pd.testing.assert_frame_equal(renamed, expected)
    with pytest.warns(DeprecationWarning, match=r"write g_pass_at_k\(\.\.\., by='model'\)"):
        positional = pk.g_pass_at_k(runs, [2, 3], 0.5, "model")
    pd.testing.assert_frame_equal(positional, expected)
    with pytest.raises(TypeError, match="needs tau"):
        pk.g_pass_at_k(runs, 2)


def test_without_ks_every_k_up_to_the_most_runs_is_measured():
    table = pk.g_pass_at_k(as_runs(TASKS), tau=1.0)
    assert table["k"].tolist() == list(range(1, 8))
