"""Variance components, the noise floor and consistency, each against a computation of its own.

The references here are written from the definitions alone: the analysis of
variance from the 0/1 outcomes with numpy and by statsmodels' least squares and
mixed model, the variances of the per-task estimates by exact enumeration of the
binomial distribution, and the tau-bench figures from the file's JSON records.
"""

from __future__ import annotations

import itertools
import json
import math
from collections import Counter
from typing import Any

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from conftest import TAU_BENCH
from scipy import stats

import passk_lab as pk

TAU_FILE = TAU_BENCH / "gpt-4o-airline.json"

# outcomes of each task's runs, two models, tasks with 1 to 6 runs
OUTCOMES = {
    "a": {
        "t1": [1, 1, 0, 1, 0],
        "t2": [0, 0, 0],
        "t3": [1],
        "t4": [1, 1, 1, 1, 1, 1],
        "t5": [0, 1],
        "t6": [1, 0, 0, 0],
    },
    "b": {
        "t1": [0, 1, 1],
        "t2": [1, 1, 1, 1],
        "t3": [0, 0],
        "t4": [1, 0, 1, 0, 1],
    },
}


def runs_of(outcomes: dict[str, dict[str, list[int]]]) -> pd.DataFrame:
    rows = [
        (model, task, run, bool(y))
        for model, tasks in outcomes.items()
        for task, ys in tasks.items()
        for run, y in enumerate(ys)
    ]
    return pd.DataFrame(rows, columns=["model", "task", "run", "passed"])


def anova(tasks: list[list[int]]) -> dict[str, float]:
    """The one-way ANOVA of 0/1 outcomes, run by run, with numpy."""
    y = [np.asarray(ys, dtype=float) for ys in tasks]
    sizes = np.array([len(ys) for ys in y], dtype=float)
    every = np.concatenate(y)
    big_t, big_n = len(y), len(every)
    grand = every.mean()
    msb = sum(len(ys) * (ys.mean() - grand) ** 2 for ys in y) / (big_t - 1)
    msw = sum(((ys - ys.mean()) ** 2).sum() for ys in y) / (big_n - big_t)
    n0 = (big_n - (sizes**2).sum() / big_n) / (big_t - 1)
    return {
        "between": (msb - msw) / n0,
        "within": msw,
        "icc": (msb - msw) / (msb + (n0 - 1) * msw),
        "msb": msb,
    }


def test_variance_components_equal_the_anova_of_the_outcomes_run_by_run() -> None:
    table = pk.variance_components(runs_of(OUTCOMES), by="model")
    assert list(table.columns) == [
        "model",
        "n_tasks",
        "n_runs",
        "pass_at_1",
        "between_task_variance",
        "within_task_variance",
        "icc",
        "flip_share",
        "run_pass_at_1_min",
        "run_pass_at_1_max",
        "run_pass_at_1_sd",
    ]
    assert table["model"].tolist() == ["a", "b"]
    for row, tasks in zip(table.itertuples(), OUTCOMES.values(), strict=True):
        ys = list(tasks.values())
        expected = anova(ys)
        assert row.n_tasks == len(ys)
        assert row.n_runs == sum(map(len, ys))
        assert row.pass_at_1 == pytest.approx(np.mean([np.mean(y) for y in ys]), abs=1e-15)
        assert row.between_task_variance == pytest.approx(expected["between"], abs=1e-14)
        assert row.within_task_variance == pytest.approx(expected["within"], abs=1e-14)
        assert row.icc == pytest.approx(expected["icc"], abs=1e-14)
        several = [y for y in ys if len(y) >= 2]
        assert row.flip_share == sum(0 < sum(y) < len(y) for y in several) / len(several)
        depth = max(map(len, ys))
        per_run = [np.mean([y[j] for y in ys if len(y) > j]) for j in range(depth)]
        assert row.run_pass_at_1_min == min(per_run)
        assert row.run_pass_at_1_max == max(per_run)
        assert row.run_pass_at_1_sd == pytest.approx(np.std(per_run, ddof=1), abs=1e-15)


def test_between_task_variance_is_reported_negative_as_computed() -> None:
    # two tasks with the same pass rate: the tasks' rates spread less than their runs' noise
    counts = pd.DataFrame({"task": [0, 1], "n": 4, "c": 2})
    row = pk.variance_components(counts).iloc[0]
    # MSB = 0, MSW = (2 - 1) * 2 / 6 = 1/3, n0 = 4: between = -1/12, icc = -1/3
    assert row["between_task_variance"] == pytest.approx(-1 / 12, abs=1e-15)
    assert row["within_task_variance"] == pytest.approx(1 / 3, abs=1e-15)
    assert row["icc"] == pytest.approx(-1 / 3, abs=1e-15)


def test_msb_and_msw_equal_the_least_squares_anova_of_statsmodels() -> None:
    ys = list(OUTCOMES["a"].values())
    y = np.concatenate([np.asarray(v, dtype=float) for v in ys])
    task = np.repeat(np.arange(len(ys)), [len(v) for v in ys])
    dummies = (task[:, None] == np.arange(len(ys))[None, :]).astype(float)
    full = sm.OLS(y, dummies).fit()  # one mean per task: its residuals are within tasks
    empty = sm.OLS(y, np.ones((len(y), 1))).fit()
    msb = (empty.ssr - full.ssr) / (len(ys) - 1)
    msw = full.ssr / full.df_resid
    row = pk.variance_components(runs_of(OUTCOMES), by="model").iloc[0]
    assert row["within_task_variance"] == pytest.approx(msw, abs=1e-12)
    assert anova(ys)["msb"] == pytest.approx(msb, abs=1e-12)
    sizes = np.array([len(v) for v in ys], dtype=float)
    n0 = (sizes.sum() - (sizes**2).sum() / sizes.sum()) / (len(ys) - 1)
    assert row["between_task_variance"] == pytest.approx((msb - msw) / n0, abs=1e-12)


def test_balanced_components_are_the_reml_estimates_of_the_mixed_model() -> None:
    rng = np.random.default_rng(11)
    p = rng.beta(0.6, 0.6, size=30)
    y = (rng.random((30, 6)) < p[:, None]).astype(float)
    runs = pd.DataFrame(
        {
            "task": np.repeat(np.arange(30), 6),
            "run": np.tile(np.arange(6), 30),
            "passed": y.ravel() > 0,
        }
    )
    row = pk.variance_components(runs).iloc[0]
    assert row["between_task_variance"] > 0
    fit = sm.MixedLM(y.ravel(), np.ones((y.size, 1)), groups=runs["task"]).fit(reml=True)
    between = float(np.asarray(fit.cov_re)[0, 0])
    assert row["between_task_variance"] == pytest.approx(between, rel=1e-5)
    assert row["within_task_variance"] == pytest.approx(float(fit.scale), rel=1e-5)


def tau_outcomes() -> np.ndarray:
    """tasks x trials of the tau-bench file, a pass being a reward within 1e-6 of 1."""
    records: list[dict[str, Any]] = json.loads(TAU_FILE.read_text())
    tasks = sorted({record["task_id"] for record in records})
    trials = sorted({record["trial"] for record in records})
    y = np.full((len(tasks), len(trials)), -1)
    for record in records:
        passed = abs(float(record["reward"]) - 1) <= 1e-6
        y[tasks.index(record["task_id"]), trials.index(record["trial"])] = passed
    assert (y >= 0).all()
    return y


def test_tau_bench_trials_icc_and_flip_share(tau_bench_published: dict[int, float]) -> None:
    y = tau_outcomes()
    trial_rates = y.mean(axis=0)
    assert trial_rates.tolist() == pytest.approx([0.42, 0.44, 0.40, 0.42], abs=1e-12)
    assert trial_rates.mean() == pytest.approx(tau_bench_published[1], abs=5e-4)
    row = pk.variance_components(pk.io.read_tau_bench(TAU_FILE)).iloc[0]
    assert round(row["run_pass_at_1_min"], 2) == 0.40
    assert round(row["run_pass_at_1_max"], 2) == 0.44
    assert row["run_pass_at_1_sd"] == pytest.approx(np.std(trial_rates, ddof=1), abs=1e-15)
    passes = y.sum(axis=1)
    assert row["flip_share"] == np.mean((passes > 0) & (passes < y.shape[1]))
    # the histogram of successes per task, counted from the file's records: the tasks
    # that flip are those neither at 0 successes nor at one per trial
    records: list[dict[str, Any]] = json.loads(TAU_FILE.read_text())
    wins = Counter(r["task_id"] for r in records if abs(float(r["reward"]) - 1) <= 1e-6)
    trials = len({record["trial"] for record in records})
    tasks_of = Counter(wins.get(task, 0) for task in {record["task_id"] for record in records})
    histogram = [tasks_of[c] for c in range(trials + 1)]
    settled = histogram[0] + histogram[trials]
    assert row["flip_share"] == pytest.approx(1 - settled / sum(histogram), abs=1e-15)
    # ICC(1) of a balanced table by hand: MSB and MSW from the task means
    tasks, runs = y.shape
    means = y.mean(axis=1)
    msb = runs * ((means - y.mean()) ** 2).sum() / (tasks - 1)
    msw = ((y - means[:, None]) ** 2).sum() / (tasks * (runs - 1))
    assert row["icc"] == pytest.approx((msb - msw) / (msb + (runs - 1) * msw), abs=1e-14)


def test_run_spread_of_an_outcome_matrix_is_that_of_its_runs_and_a_tally_has_none() -> None:
    runs = runs_of(OUTCOMES)
    from_runs = pk.variance_components(runs, by="model")
    from_matrix = pk.variance_components(pk.outcome_matrix(runs, by="model"), by="model")
    pd.testing.assert_frame_equal(from_matrix, from_runs)
    grid = np.array([[True, False, True], [False, False, True], [True, True, True]])
    from_array = pk.variance_components(grid).iloc[0]
    assert from_array["run_pass_at_1_min"] == pytest.approx(1 / 3)
    assert from_array["run_pass_at_1_max"] == 1.0
    from_tally = pk.variance_components(pk.tally(runs, by="model"), by="model")
    assert (
        from_tally[["run_pass_at_1_min", "run_pass_at_1_max", "run_pass_at_1_sd"]]
        .isna()
        .all()
        .all()
    )
    columns = ["n_tasks", "n_runs", "pass_at_1", "between_task_variance", "icc", "flip_share"]
    pd.testing.assert_frame_equal(from_tally[columns], from_runs[columns])


def test_excluded_errors_leave_the_anova_and_the_run_spread() -> None:
    runs = pd.DataFrame(
        {
            "task": [0, 0, 0, 1, 1, 1, 2, 2, 2],
            "run": [0, 1, 2] * 3,
            "passed": [True, False, False, True, True, False, False, False, True],
            "error": [None, "RateLimitError", None, None, None, None, None, "Timeout", None],
        }
    )
    row = pk.variance_components(runs, errors="exclude").iloc[0]
    kept = [[1, 0], [1, 1, 0], [0, 1]]
    assert row["n_runs"] == 7
    assert row["icc"] == pytest.approx(anova(kept)["icc"], abs=1e-14)
    # run 1 keeps task 1 only (passed); run 0: 1, 1, 0; run 2: 0, 0, 1
    assert row["run_pass_at_1_max"] == 1.0
    assert row["run_pass_at_1_min"] == pytest.approx(1 / 3)


def test_variance_components_warn_where_a_group_has_one_task_or_no_two_runs() -> None:
    runs = pd.DataFrame(
        {
            "model": ["x", "x", "y", "y"],
            "task": [0, 0, 0, 1],
            "run": [0, 1, 0, 0],
            "passed": [True, False, True, False],
        }
    )
    with pytest.warns(RuntimeWarning) as caught:
        table = pk.variance_components(runs, by="model")
    messages = [str(warning.message) for warning in caught]
    assert any("in group model='x'" in m and "one task" in m for m in messages)
    assert any("in group model='y'" in m and "no task has two runs" in m for m in messages)
    x, y = table.iloc[0], table.iloc[1]
    assert np.isnan(x["between_task_variance"])
    assert np.isnan(x["icc"])
    assert x["within_task_variance"] == pytest.approx(0.5)  # (1 - 1/2) / (2 - 1)
    assert y[["between_task_variance", "within_task_variance", "icc"]].isna().all()
    assert np.isnan(y["flip_share"])  # no task of y has two runs


def test_variance_components_warn_that_the_icc_of_identical_runs_is_undefined() -> None:
    counts = pd.DataFrame({"task": [0, 1, 2], "n": 3, "c": 3})
    with pytest.warns(RuntimeWarning, match="every run has the same outcome"):
        row = pk.variance_components(counts).iloc[0]
    assert row["between_task_variance"] == 0.0
    assert row["within_task_variance"] == 0.0
    assert np.isnan(row["icc"])


# --- the noise floor ------------------------------------------------------------------


def shape(j: int, r: int, k: int, metric: str) -> float:
    """A task's estimate from r runs of which j passed."""
    if metric == "pass_at_1":
        return j / r
    if metric == "pass_pow_k":
        return math.comb(j, k) / math.comb(r, k)
    return 1 - math.comb(r - j, k) / math.comb(r, k)


def true_variance(p: float, r: int, k: int, metric: str) -> float:
    """Var f(C), C ~ Binomial(r, p), summed over C's values."""
    pmf = [math.comb(r, j) * p**j * (1 - p) ** (r - j) for j in range(r + 1)]
    mean = sum(w * shape(j, r, k, metric) for j, w in enumerate(pmf))
    return sum(w * (shape(j, r, k, metric) - mean) ** 2 for j, w in enumerate(pmf))


def per_task_variances(n: int, r: int) -> pd.DataFrame:
    """The estimated Var_i of a task with n runs and each c, from noise_floor's standard error.

    Each group holds two tasks of the same (n, c), so that ``SE^2 = 2 Var_i / 2``.
    """
    counts = pd.DataFrame(
        {"cell": np.repeat(np.arange(n + 1), 2), "task": np.tile([0, 1], n + 1), "n": n}
    )
    counts["c"] = counts["cell"]
    if n >= 2 * r:
        table = pk.noise_floor(counts, by="cell", runs_per_comparison=r)
    else:  # pass^r and pass@r need 2r runs a task
        with pytest.warns(RuntimeWarning, match=rf"in group cell=.* at k = {r} \({2 * r} runs\)"):
            table = pk.noise_floor(counts, by="cell", runs_per_comparison=r)
    return table.assign(variance=table["standard_error"] ** 2)


@pytest.mark.parametrize(
    ("n", "r"), [(2, 1), (5, 1), (3, 2), (4, 2), (6, 2), (5, 3), (6, 3), (7, 3), (8, 4)]
)
def test_the_per_task_variance_estimate_is_unbiased_by_exact_enumeration(n: int, r: int) -> None:
    table = per_task_variances(n, r)
    for (metric, k), rows in table.groupby(["metric", "k"], sort=False):
        k = int(k)
        if n < max(r, 2 * k):
            assert rows["n_tasks"].eq(0).all()
            assert rows["variance"].isna().all()
            continue
        values = rows.sort_values("cell")["variance"].to_numpy()
        for p in (0.07, 0.3, 0.5, 0.81, 1.0):
            pmf = np.array([math.comb(n, c) * p**c * (1 - p) ** (n - c) for c in range(n + 1)])
            assert float(pmf @ values) == pytest.approx(
                true_variance(p, r, k, str(metric)), abs=1e-12
            )


def test_noise_floor_rows_count_the_tasks_with_the_runs_each_needs() -> None:
    counts = pd.DataFrame({"task": range(6), "n": [2, 3, 4, 4, 6, 6], "c": [1, 2, 2, 3, 1, 5]})
    table = pk.noise_floor(counts, runs_per_comparison=3, confidence_level=0.9)
    assert list(table.columns) == [
        "metric",
        "k",
        "runs_per_comparison",
        "noise_floor",
        "standard_error",
        "n_tasks",
    ]
    assert list(zip(table["metric"], table["k"], strict=True)) == [
        ("pass_at_1", 1),
        ("pass_pow_k", 2),
        ("pass_pow_k", 3),
        ("pass_at_k", 2),
        ("pass_at_k", 3),
    ]
    assert table["runs_per_comparison"].eq(3).all()
    # n >= max(3, 2k): 3 for pass@1 (5 tasks), 4 for k = 2 (4 tasks), 6 for k = 3 (2 tasks)
    assert table["n_tasks"].tolist() == [5, 4, 2, 4, 2]
    z = stats.norm.ppf(0.95)
    assert np.allclose(table["noise_floor"], z * table["standard_error"], rtol=1e-15, atol=0)
    # pass@1 from 3 runs: Var_i = p(1 - p) / 3, estimated by c (n - c) / (n (n - 1)) / 3
    kept = counts[counts["n"] >= 3]
    var = (kept["c"] * (kept["n"] - kept["c"]) / (kept["n"] * (kept["n"] - 1)) / 3).mean()
    assert table["standard_error"].iloc[0] == pytest.approx(math.sqrt(2 * var / 5), abs=1e-15)


def test_the_tau_bench_noise_floor_is_the_mean_squared_difference_of_its_trials() -> None:
    # For r = 1, 2 Var_i is estimated by the share of pairs of the task's runs that disagree,
    # 2 c (n - c) / (n (n - 1)); with four trials a task, the mean over the 6 pairs of trials
    # (a, b) of the mean over tasks of (y_ia - y_ib)^2 is then SE^2 * T exactly.
    y = tau_outcomes()
    tasks, trials = y.shape
    pairs = list(itertools.combinations(range(trials), 2))
    squared = np.mean([np.mean((y[:, a] - y[:, b]) ** 2) for a, b in pairs])
    row = pk.noise_floor(pk.io.read_tau_bench(TAU_FILE)).iloc[0]
    assert row["n_tasks"] == tasks
    assert row["standard_error"] ** 2 * tasks == pytest.approx(squared, abs=1e-14)
    assert row["noise_floor"] == pytest.approx(1.959963984540054 * row["standard_error"], abs=1e-12)


def test_noise_floor_warns_where_fewer_than_two_tasks_have_the_runs() -> None:
    counts = pd.DataFrame({"model": ["m"] * 3, "task": [0, 1, 2], "n": [2, 2, 4], "c": [1, 2, 3]})
    with pytest.warns(
        RuntimeWarning,
        match=r"in group model='m' .* pass_pow_k at k = 2 \(4 runs\), pass_at_k at k = 2 \(4",
    ):
        table = pk.noise_floor(counts, by="model", runs_per_comparison=2)
    assert table["n_tasks"].tolist() == [3, 1, 1]
    assert np.isfinite(table["noise_floor"].iloc[0])
    assert table["noise_floor"].iloc[1:].isna().all()


def test_the_noise_floor_of_an_agent_that_never_varies_is_zero() -> None:
    table = pk.noise_floor(
        pd.DataFrame({"task": [0, 1, 2], "n": 5, "c": [0, 5, 5]}), runs_per_comparison=2
    )
    assert table["noise_floor"].eq(0.0).all()


# --- consistency ----------------------------------------------------------------------


def test_consistency_of_a_small_table_by_hand() -> None:
    runs = pd.DataFrame(
        {
            "task": ["a", "a", "b", "b", "c", "c", "c", "d", "d", "d", "d", "e"],
            "run": [0, 1, 0, 1, 0, 1, 2, 0, 1, 2, 3, 0],
            "passed": [
                False,
                False,
                True,
                False,
                False,
                True,
                False,
                True,
                True,
                False,
                True,
                True,
            ],
        }
    )
    table = pk.consistency(runs)
    assert list(table.columns) == [
        "consistency",
        "consistency_low",
        "consistency_high",
        "consistency_unbiased",
        "n_tasks",
    ]
    row = table.iloc[0]
    # (n, c): a (2, 0), b (2, 1), c (3, 1), d (4, 3); e has one run and does not count
    assert row["n_tasks"] == 4
    assert row["consistency"] == pytest.approx((1 + 0 + 1 / 9 + 1 / 4) / 4, abs=1e-15)
    assert row["consistency_unbiased"] == pytest.approx((1 - 1 - 1 / 3 + 0) / 4, abs=1e-15)
    assert 0 <= row["consistency_low"] <= row["consistency"] <= row["consistency_high"] <= 1


def test_consistency_of_two_runs_a_task_is_a_proportion_with_clopper_pearson_limits() -> None:
    counts = pd.DataFrame({"task": range(10), "n": 2, "c": [0, 2, 2, 1, 0, 1, 2, 2, 1, 0]})
    row = pk.consistency(counts, confidence_level=0.9).iloc[0]
    assert row["consistency"] == 0.7  # 7 of 10 tasks agree with themselves
    interval = stats.binomtest(7, 10).proportion_ci(confidence_level=0.9, method="exact")
    assert row["consistency_low"] == pytest.approx(interval.low, abs=1e-12)
    assert row["consistency_high"] == pytest.approx(interval.high, abs=1e-12)


@pytest.mark.parametrize("n", [2, 3, 5, 8])
def test_the_unbiased_consistency_is_unbiased_and_the_plug_in_biased_as_stated(n: int) -> None:
    counts = pd.DataFrame(
        {"cell": np.repeat(np.arange(n + 1), 2), "task": np.tile([0, 1], n + 1), "n": n}
    )
    counts["c"] = counts["cell"]
    table = pk.consistency(counts, by="cell")
    for p in (0.0, 0.13, 0.5, 0.77):
        pmf = np.array([math.comb(n, c) * p**c * (1 - p) ** (n - c) for c in range(n + 1)])
        truth = (2 * p - 1) ** 2
        assert float(pmf @ table["consistency_unbiased"]) == pytest.approx(truth, abs=1e-12)
        bias = 4 * p * (1 - p) / n
        assert float(pmf @ table["consistency"]) == pytest.approx(truth + bias, abs=1e-12)


def test_consistency_warns_where_a_group_has_too_few_tasks_of_two_runs() -> None:
    counts = pd.DataFrame(
        {"model": ["x", "y", "y"], "task": [0, 0, 1], "n": [3, 1, 1], "c": [1, 1, 0]}
    )
    with pytest.warns(RuntimeWarning) as caught:
        table = pk.consistency(counts, by="model")
    messages = [str(warning.message) for warning in caught]
    assert any("interval in group model='x' is NaN: one task" in m for m in messages)
    assert any("no consistency in group model='y'" in m for m in messages)
    assert table["consistency"].iloc[0] == pytest.approx(1 / 9)
    assert np.isnan(table["consistency_low"].iloc[0])
    assert table[["consistency", "consistency_unbiased"]].iloc[1].isna().all()


# --- bad input ------------------------------------------------------------------------


def test_bad_arguments_are_refused_naming_the_fix() -> None:
    runs = runs_of(OUTCOMES)
    with pytest.raises(ValueError, match=r"runs_per_comparison must be a positive integer, got 0"):
        pk.noise_floor(runs, runs_per_comparison=0)
    with pytest.raises(TypeError, match=r"runs_per_comparison must be an integer, got 2\.0"):
        pk.noise_floor(runs, runs_per_comparison=2.0)  # type: ignore[arg-type]
    with pytest.raises(
        ValueError, match=r"confidence_level must be strictly between 0 and 1 .* got 1\.5"
    ):
        pk.noise_floor(runs, confidence_level=1.5)
    with pytest.raises(
        ValueError, match=r"confidence_level must be strictly between 0 and 1 .* got 1\.5"
    ):
        pk.consistency(runs, confidence_level=1.5)
    for function in (pk.variance_components, pk.noise_floor, pk.consistency):
        with pytest.raises(ValueError, match=r"runs has no column 'domain'"):
            function(runs, by="domain")
        with pytest.raises(ValueError, match=r"errors must be 'fail' .* or 'exclude'"):
            function(runs, errors="skip")  # type: ignore[arg-type]


def test_one_task_gives_nan_with_a_warning_from_each_function() -> None:
    runs = pd.DataFrame({"task": [0, 0, 0], "run": [0, 1, 2], "passed": [True, False, True]})
    with pytest.warns(RuntimeWarning, match="one task says nothing about how tasks differ"):
        assert np.isnan(pk.variance_components(runs)["icc"].iloc[0])
    with pytest.warns(RuntimeWarning, match="fewer than two tasks have them"):
        assert np.isnan(pk.noise_floor(runs)["noise_floor"].iloc[0])
    with pytest.warns(RuntimeWarning, match="one task says nothing about the next one"):
        assert np.isnan(pk.consistency(runs)["consistency_low"].iloc[0])


def test_a_runs_per_comparison_no_memory_holds_is_refused_before_it_is_allocated() -> None:
    counts = pd.DataFrame({"task": [0, 1], "n": 4, "c": [1, 2]})
    with pytest.raises(ValueError, match=r"the noise floor would hold .* compare fewer runs"):
        pk.noise_floor(counts, runs_per_comparison=10**12)


def test_each_group_gets_the_figures_of_its_runs_alone() -> None:
    runs = runs_of(OUTCOMES)
    for function in (pk.noise_floor, pk.consistency):
        grouped = function(runs, by="model")
        for model in ("a", "b"):
            alone = function(runs[runs["model"] == model].drop(columns="model"))
            mine = grouped[grouped["model"] == model].drop(columns="model")
            pd.testing.assert_frame_equal(mine.reset_index(drop=True), alone)


# --- consistency's interval method, and the spellings of the last release -------------------


def test_consistency_with_two_runs_a_task_and_a_binomial_method_is_statsmodels() -> None:
    from statsmodels.stats.proportion import proportion_confint

    counts = pd.DataFrame({"task": range(30), "n": 2, "c": [0] * 9 + [1] * 12 + [2] * 9})
    table = pk.consistency(counts, method="wilson")  # two runs: a task agrees (1) or not (0)
    low, high = proportion_confint(18, 30, method="wilson")
    row = table.iloc[0]
    assert row["consistency"] == pytest.approx(18 / 30)
    assert (row["consistency_low"], row["consistency_high"]) == pytest.approx((low, high))
    assert table.attrs == {"errors": "fail", "confidence_level": 0.95, "method": "wilson"}
    default = pk.consistency(counts)
    pd.testing.assert_frame_equal(pk.consistency(counts, method="auto"), default)
    assert default.attrs["method"] == "auto"


def test_consistency_with_a_bootstrap_resamples_the_tasks() -> None:
    runs = runs_of(OUTCOMES)
    table = pk.consistency(runs, by="model", method="bca", n_resamples=500, rng=1)
    assert (table["consistency_low"] <= table["consistency"]).all()
    assert (table["consistency"] <= table["consistency_high"]).all()
    redrawn = pk.consistency(runs, by="model", method="two-level", n_resamples=200, rng=1)
    assert redrawn["consistency"].tolist() == table["consistency"].tolist()


def test_a_positional_by_still_works_for_one_release_with_a_warning() -> None:
    runs = runs_of(OUTCOMES)
    for function in (pk.variance_components, pk.noise_floor, pk.consistency):
        expected = function(runs, by="model")
        with pytest.warns(DeprecationWarning, match=rf"write {function.__name__}\(\.\.\., by="):
            positional = function(runs, "model")
        pd.testing.assert_frame_equal(positional, expected)
