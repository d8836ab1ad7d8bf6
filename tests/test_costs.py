"""What runs cost: the per-task mean cost and the reliability curve's cost columns."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import passk_lab as pk
from passk_lab._data.costs import task_costs

NAN = float("nan")

# Two agents; tasks with unequal runs; runs with no cost; errored runs; a task with no cost.
RUNS = pd.DataFrame(
    {
        "model": ["x"] * 9 + ["y"] * 6,
        "task": ["a", "a", "a", "b", "b", "c", "c", "c", "c", "a", "a", "b", "b", "b", "d"],
        "run": [0, 1, 2, 0, 1, 0, 1, 2, 3, 0, 1, 0, 1, 2, 0],
        "passed": [mark == "1" for mark in "110111001011110"],
        "error": [{2: "RateLimitError", 7: "Timeout"}.get(row) for row in range(15)],
        "cost_usd": [0.1, 0.2, 0.3, 0.5, NAN, 1.0, 1.0, 2.0, 0.0, 3.0, 1.0, 0.2, 0.2, 0.5, NAN],
        "cost_tokens": [10.0, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150],
    }
)
NAMES = ["usd", "tokens"]
CURVE_COLUMNS = [
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


def expected(runs, errors, common=False):
    """The cost columns, by a plain loop over groups, tasks and k."""
    rows = []
    for model, group in runs.groupby("model", sort=False):
        tasks = []
        for _, part in group.groupby("task", sort=False):
            errored = part["error"].notna().to_numpy()
            n = len(part) - (int(errored.sum()) if errors == "exclude" else 0)
            c = int((part["passed"].to_numpy() & ~errored).sum())
            means = {name: part[f"cost_{name}"].dropna().mean() for name in NAMES}
            tasks.append((n, c, means))
        most = max(n for n, _, _ in tasks)
        for k in range(1, most + 1):
            least = most if common else k
            counted = [task for task in tasks if task[0] >= least]
            pow_k = np.mean([math.comb(c, k) / math.comb(n, k) for n, c, _ in counted])
            row = {"model": model, "k": k, "pass_pow_k": pow_k}
            for name in NAMES:
                recorded = [m[name] for _, _, m in counted if not math.isnan(m[name])]
                cost = k * sum(recorded) / len(recorded)
                row[f"cost_{name}"] = cost
                row[f"cost_{name}_per_pass_pow_k"] = cost / pow_k if pow_k else math.inf
                row[f"pass_pow_k_per_{name}"] = pow_k / cost
            rows.append(row)
    return pd.DataFrame(rows)


def cost_columns(names=NAMES):
    return [
        column
        for name in names
        for column in (f"cost_{name}", f"cost_{name}_per_pass_pow_k", f"pass_pow_k_per_{name}")
    ]


@pytest.mark.filterwarnings("ignore:k = .* counts:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:the intervals at k = .* are NaN:RuntimeWarning")
@pytest.mark.parametrize("errors", ["fail", "exclude"])
def test_the_curve_prices_k_runs_and_pass_pow_k_on_the_tasks_it_counts(errors):
    curve = pk.reliability_curve(RUNS, by="model", errors=errors)
    want = expected(RUNS, errors)
    assert curve.columns.tolist() == ["model", *CURVE_COLUMNS, *cost_columns()]
    pd.testing.assert_frame_equal(
        curve[["model", "k", "pass_pow_k", *cost_columns()]], want, check_dtype=False, rtol=1e-12
    )


@pytest.mark.filterwarnings("ignore:the intervals at k = .* are NaN:RuntimeWarning")
def test_common_tasks_price_every_k_on_the_same_tasks():
    curve = pk.reliability_curve(RUNS, by="model", common_tasks=True)
    want = expected(RUNS, "fail", common=True)
    pd.testing.assert_frame_equal(
        curve[["model", "k", "pass_pow_k", *cost_columns()]], want, check_dtype=False, rtol=1e-12
    )


def test_a_task_mean_counts_every_run_that_recorded_a_cost_errored_ones_too():
    costs = task_costs(RUNS, ("model",))
    want = RUNS.groupby(["model", "task"], sort=False)[["cost_usd", "cost_tokens"]].mean()
    pd.testing.assert_frame_equal(costs, want.reset_index())
    assert task_costs(RUNS.drop(columns=["cost_usd", "cost_tokens"]), ("model",)) is None
    assert task_costs(pk.tally(RUNS, by="model"), ("model",)) is None


@pytest.mark.filterwarnings("ignore:k = .* counts:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:the intervals at k = .* are NaN:RuntimeWarning")
def test_no_cost_columns_leave_the_curve_as_it_was():
    plain = RUNS.drop(columns=["cost_usd", "cost_tokens"])
    costed = pk.reliability_curve(RUNS, by="model")
    curve = pk.reliability_curve(plain, by="model")
    assert curve.columns.tolist() == ["model", *CURVE_COLUMNS]
    pd.testing.assert_frame_equal(costed[curve.columns], curve)
    tally = pk.tally(RUNS, by="model").assign(cost_usd=1.0)  # a tally records no cost
    assert pk.reliability_curve(tally, by="model").columns.tolist() == ["model", *CURVE_COLUMNS]


@pytest.mark.filterwarnings("ignore:the intervals at k = .* are NaN:RuntimeWarning")
def test_a_pass_pow_k_of_zero_costs_infinitely_much_per_passing_task():
    runs = pd.DataFrame(
        {
            "task": [0, 0, 1, 1],
            "run": [0, 1, 0, 1],
            "passed": [True, False, False, True],
            "cost_usd": [0.25, 0.75, 1.0, 1.0],
        }
    )
    curve = pk.reliability_curve(runs)
    assert curve["pass_pow_k"].tolist() == [0.5, 0.0]
    assert curve["cost_usd"].tolist() == [0.75, 1.5]  # (0.5 + 1.0) / 2, twice at k = 2
    assert curve["cost_usd_per_pass_pow_k"].tolist() == [1.5, math.inf]
    assert curve["pass_pow_k_per_usd"].tolist() == [0.5 / 0.75, 0.0]


@pytest.mark.filterwarnings("ignore:k = .* counts:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:the intervals at k = .* are NaN:RuntimeWarning")
def test_a_dask_runs_table_gives_the_same_cost_columns():
    dd = pytest.importorskip("dask.dataframe")
    curve = pk.reliability_curve(dd.from_pandas(RUNS, npartitions=3), by="model")
    pd.testing.assert_frame_equal(curve, pk.reliability_curve(RUNS, by="model"))


@pytest.mark.parametrize("dtype", [object, "str"])
def test_a_cost_column_of_text_is_refused_naming_it_and_the_fix(dtype):
    runs = RUNS.assign(cost_usd=RUNS["cost_usd"].astype(str).astype(dtype))
    with pytest.raises(
        ValueError, match=r"cost column cost_usd holds '0.1' at row 0.*pd.to_numeric"
    ):
        pk.reliability_curve(runs, by="model")


def test_a_dask_cost_column_of_text_is_refused_too():
    dd = pytest.importorskip("dask.dataframe")
    runs = dd.from_pandas(RUNS.assign(cost_usd=RUNS["cost_usd"].astype(str)), npartitions=2)
    with pytest.raises(ValueError, match=r"cost column cost_usd must hold numbers.*pd.to_numeric"):
        pk.reliability_curve(runs, by="model")


@pytest.mark.parametrize("value", [-1.0, math.inf])
def test_a_negative_or_infinite_cost_is_refused_naming_its_row(value):
    runs = RUNS.copy()
    runs.loc[4, "cost_usd"] = value
    with pytest.raises(ValueError, match=rf"cost column cost_usd is {value} at row 4; .* >= 0"):
        pk.reliability_curve(runs, by="model")


def test_a_boolean_cost_column_is_refused():
    with pytest.raises(ValueError, match="cost column cost_usd must hold numbers, got dtype bool"):
        pk.reliability_curve(RUNS.assign(cost_usd=True), by="model")


def test_a_grouping_column_named_like_a_cost_is_no_cost():
    runs = RUNS.rename(columns={"model": "cost_center"})
    costs = task_costs(runs, ("cost_center",))
    assert costs.columns.tolist() == ["cost_center", "task", "cost_usd", "cost_tokens"]
