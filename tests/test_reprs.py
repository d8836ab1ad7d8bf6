"""The result objects' one-line text reprs and their HTML summaries for Jupyter.

Every interval a summary shows is cross-checked against the public function that computes it
(``pk.reliability_curve``, ``PassAt1SE.confidence_interval``, an adaptive result's ``curve``),
and an exact one against SciPy's beta quantiles; every HTML summary is parsed as XML, so it is
well-formed, and read back cell by cell.
"""

from __future__ import annotations

import itertools
import math
import warnings
import xml.etree.ElementTree as ET
from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import passk_lab as pk
from passk_lab._numbers import fixed, number
from passk_lab._summary import Estimate, estimate_text, summary_html, summary_repr

NASTY = "<b>x</b>&"
ALPHA, BETA, RHO = (
    "\N{GREEK SMALL LETTER ALPHA}",
    "\N{GREEK SMALL LETTER BETA}",
    "\N{GREEK SMALL LETTER RHO}",
)
MEAN = f"{ALPHA}/({ALPHA}+{BETA})"


def _boom() -> bool:
    raise ValueError("no")


def _late() -> bool:
    raise TimeoutError("late")


@pytest.fixture(scope="module")
def result() -> pk.EvalResult:
    flips = itertools.count()
    tasks = [
        pk.Task(run=lambda: True, id="ok"),
        pk.Task(run=_boom, id="boom"),
        pk.Task(run=lambda: next(flips) % 2 == 0, id="alternate"),
        pk.Task(run=_late, id="late"),
        pk.Task(run=lambda: True, id="paid", cost=lambda _: {"usd": 0.25}),
    ]
    return pk.evaluate(tasks, k=4, model=NASTY)


@dataclass
class Table:
    """A summary table read back: its title, the interval column's heading, rows and notes."""

    title: str
    heading: str | None  # the interval column's, None without one
    cells: dict[str, str]
    intervals: dict[str, str]
    notes: list[str]


def _text(element: ET.Element) -> str:
    return "".join(element.itertext())


def _table(page: str) -> Table:
    """Parse a summary as XML (so it must be well-formed) and read back every cell."""
    root = ET.fromstring(page)
    assert root.tag == "table"
    caption = root.find("caption")
    assert caption is not None
    rows = root.findall("tr")
    assert [child.tag for child in root] == ["caption"] + ["tr"] * len(rows)
    widths = {sum(int(cell.get("colspan", "1")) for cell in row) for row in rows}
    assert len(widths) == 1, "every row spans the same columns"
    (width,) = widths
    heading = None
    if rows and rows[0].find("th[@scope='col']") is not None:
        heading = _text(rows[0].findall("th")[-1])
        rows = rows[1:]
    values, intervals, notes = {}, {}, []
    for row in rows:
        label = row.find("th[@scope='row']")
        cells = row.findall("td")
        if label is None:  # a note, across the table
            assert len(cells) == 1
            assert cells[0].get("colspan") == str(width)
            notes.append(_text(cells[0]))
            continue
        values[_text(label)] = _text(cells[0])
        if len(cells) > 1:
            intervals[_text(label)] = _text(cells[1])
    return Table(_text(caption), heading, values, intervals, notes)


def _curve_at(runs: object, k: int, **options: object) -> tuple[pd.Series, pd.Series]:
    """The reliability curve's default rows at k = 1 and at k, from the public function."""
    curve = pk.reliability_curve(runs, ks=sorted({1, k}), **options).set_index("k")
    return curve.loc[1], curve.loc[k]


def _ci(row: pd.Series, statistic: str = "pass_pow_k") -> str:
    return f"[{row[f'{statistic}_low']:.3f}, {row[f'{statistic}_high']:.3f}]"


# --- EvalResult ---------------------------------------------------------------------------


def test_the_evaluation_repr_gives_both_estimates_with_the_curves_intervals(
    result: pk.EvalResult,
) -> None:
    runs = result.runs
    per_task = runs.groupby("task", sort=False)["passed"]
    pass_at_1 = per_task.mean().mean()  # (1 + 0 + 0.5 + 0 + 1) / 5
    pass_pow_k = per_task.all().mean()  # ok and paid of 5
    assert (pass_at_1, pass_pow_k) == (0.5, 0.4)
    at_1, at_k = _curve_at(runs, 4)
    assert at_k["interval_method"] == "clopper_pearson"  # every task has its 4 runs
    # pass^4 is 2 of 5 tasks: the exact interval from SciPy's beta quantiles
    low, high = stats.beta.ppf(0.025, 2, 4), stats.beta.ppf(0.975, 3, 3)
    assert (at_k["pass_pow_k_low"], at_k["pass_pow_k_high"]) == pytest.approx((low, high))
    text = repr(result)
    assert text == (
        f"EvalResult(tasks=5, k=4, pass_at_1={pass_at_1:g} (95% CI {_ci(at_1)}), "
        f"pass_pow_k={pass_pow_k:g} (95% CI [{low:.3f}, {high:.3f}]), "
        f"runs=<{len(runs)} rows>, errored={runs['error'].notna().sum()}, "
        f"timed_out={runs['timed_out'].sum()}, model={NASTY!r}, cost={{'usd': 1}})"
    )
    assert "errored=8, timed_out=4" in text  # boom's and late's 4 runs each; late's timed out
    assert "\n" not in text


def test_the_evaluation_summary_escapes_the_model_and_lists_the_counts(
    result: pk.EvalResult,
) -> None:
    page = result._repr_html_()
    assert "&lt;b&gt;x&lt;/b&gt;&amp;" in page
    assert NASTY not in page
    assert "<b>" not in page
    assert "<script" not in page
    assert "http" not in page  # nothing to fetch
    table = _table(page)
    assert table.title == "EvalResult"
    cells = table.cells
    assert cells["tasks"] == "5"
    assert cells["runs per task (k)"] == "4"
    assert cells["runs"] == "20"
    assert cells["errored runs"] == "8"
    assert cells["of them, timed out"] == "4"
    assert cells["model"] == NASTY
    assert cells["cost (usd)"] == "1"  # 4 runs of 0.25
    assert cells["date"] == pd.Timestamp(result.header["date"]).strftime("%Y-%m-%d %H:%M UTC")


def test_the_evaluation_summary_has_a_column_of_intervals(result: pk.EvalResult) -> None:
    table = _table(result._repr_html_())
    at_1, at_k = _curve_at(result.runs, 4)
    assert table.heading == "95% CI"
    assert (table.cells["pass@1"], table.intervals["pass@1"]) == ("0.5", _ci(at_1))
    assert (table.cells["pass^4"], table.intervals["pass^4"]) == ("0.4", _ci(at_k))
    assert table.intervals["tasks"] == ""  # a count has no interval
    assert table.notes == [
        "The intervals are those pk.reliability_curve(result.runs) gives (tasks as the units; "
        "closed form)."
    ]


def test_a_repr_of_ten_thousand_runs_is_one_short_line() -> None:
    runs = pk.simulate_coin(p=0.7, tasks=1000, k=10, seed=3)
    assert len(runs) == 10_000
    result = pk.EvalResult(
        tasks=1000,
        k=10,
        pass_at_1=float(runs["passed"].mean()),
        pass_pow_k=float(runs.groupby("task")["passed"].all().mean()),
        runs=runs,
        header={"model": "m" * 300},
        cost={"usd": 1234.5678, "tokens": 2.5e7},
    )
    text = repr(result)
    assert "\n" not in text
    assert len(text) < 250
    assert "runs=<10000 rows>" in text
    assert "m" * 40 not in text  # the long model name is cut
    assert "cost={'usd': 1235, 'tokens': 25000000}" in text
    _, at_k = _curve_at(runs, 10)
    assert f"pass_pow_k={number(result.pass_pow_k)} (95% CI {_ci(at_k)})" in text
    assert str(result) == text


def test_tasks_with_fewer_runs_count_as_the_curve_counts_them_and_nothing_warns() -> None:
    runs = pk.simulate_coin(p=0.8, tasks=30, k=5, seed=6)
    runs = runs[~((runs["task"] % 3 == 0) & (runs["run"] >= 3))]  # a third of tasks: 3 runs
    per_task = runs.groupby("task")["passed"]
    result = pk.EvalResult(
        30, 5, per_task.mean().mean(), per_task.all()[per_task.size() == 5].mean(), runs=runs
    )
    with pytest.warns(pk.TasksLeftOutWarning):  # the curve says pass^5 leaves tasks out
        at_1, at_k = _curve_at(runs, 5)
    assert at_k["n_tasks"] == 20
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a display does not repeat the curve's warnings
        text, page = repr(result), result._repr_html_()
    assert f"(95% CI {_ci(at_1)})" in text
    assert f"(95% CI {_ci(at_k)})" in text
    assert _table(page).intervals["pass^5"] == _ci(at_k)


def test_showing_a_result_resamples_nothing(
    result: pk.EvalResult, airline: pd.DataFrame, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a display drew random numbers")

    shown = [result, pk.fit_betabinom(airline), pk.pass_at_1_se(airline)]
    before = [repr(thing) + thing._repr_html_() for thing in shown]
    for name in ("task_bootstrap", "two_level_bootstrap"):  # every draw of the interval policy
        monkeypatch.setattr(f"passk_lab._interval_policy.{name}", refuse)
    monkeypatch.setattr(pk.BetaBinomialFit, "confidence_interval", refuse)  # the fit's bootstrap
    after = [repr(thing) + thing._repr_html_() for thing in shown]
    assert after == before  # and every display of one result is the same


def test_a_result_whose_runs_cannot_be_counted_shows_its_values_alone() -> None:
    bare = pk.EvalResult(5, 4, 0.5, 0.4, runs=pd.DataFrame())
    assert repr(bare) == (
        "EvalResult(tasks=5, k=4, pass_at_1=0.5, pass_pow_k=0.4, runs=<0 rows>, errored=0, "
        "timed_out=0)"
    )
    table = _table(bare._repr_html_())
    assert table.heading is None
    assert table.intervals == {}
    assert table.notes == []
    assert table.cells["pass^4"] == "0.4"


def test_one_task_has_no_interval_and_says_so_with_a_dash() -> None:
    result = pk.evaluate([pk.Task(run=lambda: True, id="only")], k=3)
    with pytest.warns(pk.FewTasksWarning):
        _, at_k = _curve_at(result.runs, 3)
    assert math.isnan(at_k["pass_pow_k_low"])  # the curve has none either
    assert "pass_at_1=1, pass_pow_k=1, runs=<3 rows>" in repr(result)
    table = _table(result._repr_html_())
    assert table.intervals["pass^3"] == "\N{EM DASH}"


def test_the_dataclass_fields_and_equality_are_kept(result: pk.EvalResult) -> None:
    assert [field.name for field in fields(pk.EvalResult)] == [
        "tasks",
        "k",
        "pass_at_1",
        "pass_pow_k",
        "runs",
        "header",
        "cost",
    ]
    twin = pk.EvalResult(5, 4, result.pass_at_1, result.pass_pow_k, runs=pd.DataFrame())
    assert twin == result  # runs, header and cost take no part in equality
    assert twin != pk.EvalResult(5, 4, result.pass_at_1, 0.0, runs=pd.DataFrame())


def test_errors_are_counted_from_the_error_text_when_no_kind_is_recorded() -> None:
    runs = pk.simulate_coin(p=0.7, tasks=6, k=3, seed=4)
    runs["error"] = [None, "ValueError: no", None] * 6  # DESIGN's error column alone
    assert "error_kind" not in runs
    result = pk.EvalResult(6, 3, 0.7, 0.3, runs=runs)
    assert "errored=6," in repr(result)
    assert _table(result._repr_html_()).cells["errored runs"] == "6"


# --- AdaptiveResult -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def adaptive() -> pk.AdaptiveResult:
    return pk.evaluate_until(pk.coin_tasks(p=0.85, tasks=200, seed=1), k=3, half_width=0.1, rng=0)


def test_the_adaptive_repr_shows_the_designs_intervals_and_why_it_stopped(
    adaptive: pk.AdaptiveResult,
) -> None:
    curve = adaptive.curve.set_index("k")
    at_1, at_k = curve.loc[1], curve.loc[adaptive.k]
    assert set(curve["interval_method"]) == {"sequential"}  # the design's, not the default's
    assert (at_k["pass_pow_k_high"] - at_k["pass_pow_k_low"]) / 2 <= 0.1  # the stopping rule
    text = repr(adaptive)
    assert text == (
        f"AdaptiveResult(tasks={adaptive.tasks}, k=3, "
        f"pass_at_1={number(at_1['pass_pow_k'])} (95% CI {_ci(at_1)}), "
        f"pass_pow_k={number(at_k['pass_pow_k'])} (95% CI {_ci(at_k)}), "
        f"runs=<{len(adaptive.runs)} rows>, errored=0, timed_out=0, stopped_because='half_width')"
    )
    table = _table(adaptive._repr_html_())
    assert table.heading == "95% CI"
    assert table.intervals["pass@1"] == _ci(at_1)
    assert table.intervals["pass^3"] == _ci(at_k)
    assert table.cells["stopped because"] == "the interval is narrow enough"
    half = (at_k["pass_pow_k_high"] - at_k["pass_pow_k_low"]) / 2
    assert table.cells["half-width reached"] == number(half)
    assert table.cells["half-width wanted"] == "0.1"
    extended = adaptive.design["runs"] > adaptive.design["first"]
    assert table.cells["tasks given more runs"] == str(int(extended.sum()))
    (note,) = table.notes
    assert "sequential" in note


def test_the_adaptive_repr_of_two_agents_gives_the_difference() -> None:
    both = pk.evaluate_until(
        pk.coin_tasks(p=0.85, tasks=200, seed=1),
        against=pk.coin_tasks(p=0.6, tasks=200, seed=2),
        k=3,
        half_width=0.1,
        rng=0,
    )
    assert both.comparison is not None
    row = both.comparison.iloc[0]
    interval = f"[{row['difference_low']:.3f}, {row['difference_high']:.3f}]"
    text = repr(both)
    assert text.endswith(
        f"stopped_because={both.stopped_because!r}, "
        f"difference={number(row['value_a'] - row['value_b'])} (95% CI {interval}))"
    )
    curve = both.curve.set_index(["agent", "k"])
    assert f"pass_pow_k={number(row['value_a'])} (95% CI {_ci(curve.loc[('a', 3)])})" in text
    table = _table(both._repr_html_())
    assert table.intervals["pass^3 of A"] == _ci(curve.loc[("a", 3)])  # the EvalResult rows: A's
    assert table.intervals["pass@1 of A"] == _ci(curve.loc[("a", 1)])
    assert "pass^3" not in table.cells  # each row once, named by its agent
    assert table.cells["pass^3 of B"] == number(row["value_b"])
    assert table.intervals["pass^3 of B"] == _ci(curve.loc[("b", 3)])
    assert table.intervals["difference A - B in pass^3"] == interval
    (note,) = table.notes
    assert "betting confidence sequences" in note


def test_a_pass_at_k_target_shows_its_own_estimate_beside_its_interval() -> None:
    result = pk.evaluate_until(
        pk.coin_tasks(p=0.85, tasks=200, seed=1),
        k=3,
        half_width=0.1,
        rng=0,
        statistic="pass_at_k",
    )
    at_k = result.curve[result.curve["k"] == 3].iloc[0]
    value, low, high = (
        float(at_k[name]) for name in ["pass_at_k", "pass_at_k_low", "pass_at_k_high"]
    )
    assert low <= value <= high  # the interval bounds this value, not the pass^k shown
    assert not low <= result.pass_pow_k <= high
    text = repr(result)
    assert text.endswith(f"pass_at_k={number(value)} (95% CI {_ci(at_k, 'pass_at_k')}))")
    table = _table(result._repr_html_())
    assert (table.cells["pass@3"], table.intervals["pass@3"]) == (
        number(value),
        _ci(at_k, "pass_at_k"),
    )
    assert (table.cells["pass^3"], table.intervals["pass^3"]) == (
        number(result.pass_pow_k),
        _ci(at_k),
    )
    assert table.cells["half-width reached"] == number((high - low) / 2)


def test_the_adaptive_summary_keeps_every_digit_of_the_level() -> None:
    result = pk.evaluate_until(
        pk.coin_tasks(p=0.85, tasks=60, seed=1), k=2, half_width=0.2, rng=0, confidence_level=0.975
    )
    assert _table(result._repr_html_()).heading == "97.5% CI"
    assert repr(result).count("(97.5% CI [") == 2
    assert "98%" not in repr(result) + result._repr_html_()


# --- BetaBinomialFit ----------------------------------------------------------------------

AIRLINE = {0: 14, 1: 12, 2: 10, 3: 4, 4: 10}
"""gpt-4o on tau-bench's airline tasks: tasks per number of runs passed of 4 (its README)."""


@pytest.fixture(scope="module")
def airline() -> pd.DataFrame:
    passes = [c for c, count in AIRLINE.items() for _ in range(count)]
    return pd.DataFrame({"task": range(len(passes)), "n": 4, "c": passes})


def test_the_fit_repr_names_its_symbols_and_sets_pass_at_1_beside_its_mean(
    airline: pd.DataFrame,
) -> None:
    fit = pk.fit_betabinom(airline)
    pass_at_1 = sum(c * count for c, count in AIRLINE.items()) / (4 * 50)
    assert pass_at_1 == 0.42
    assert fit.mean == pytest.approx(fit.alpha / (fit.alpha + fit.beta))
    assert (number(fit.mean), number(fit.icc)) == ("0.428", "0.4")  # the 0.4 beside 0.428: rho
    at_1, _ = _curve_at(airline, 1)
    assert at_1["pass_pow_k"] == pytest.approx(pass_at_1)
    assert (at_1["pass_pow_k_low"], at_1["pass_pow_k_high"]) == pytest.approx(
        tuple(pk.pass_at_1_se(airline).confidence_interval())
    )
    assert repr(fit) == (
        f"BetaBinomialFit(model='betabinom', mean_pass_rate={number(fit.mean)}, "
        f"measured_pass_at_1=0.42 (95% CI {_ci(at_1)}), "
        f"run_to_run_correlation={number(fit.icc)}, lr_pvalue={fit.lr_pvalue:.1e}, "
        "n_tasks=50, n_runs=200)"
    )
    assert "icc" not in repr(fit)


def test_the_fit_summary_says_why_its_mean_pass_rate_is_not_pass_at_1(
    airline: pd.DataFrame,
) -> None:
    fit = pk.fit_betabinom(airline)
    at_1, _ = _curve_at(airline, 1)
    table = _table(fit._repr_html_())
    assert table.cells[f"mean pass rate, {MEAN}"] == number(fit.alpha / (fit.alpha + fit.beta))
    assert table.cells[f"run-to-run correlation ({RHO})"] == number(fit.icc)
    labels = list(table.cells)
    assert labels.index("pass@1, measured") == labels.index(f"mean pass rate, {MEAN}") + 1
    assert (table.cells["pass@1, measured"], table.intervals["pass@1, measured"]) == (
        "0.42",
        _ci(at_1),
    )
    gap = fit.mean - 0.42
    assert at_1["pass_pow_k_low"] < fit.mean < at_1["pass_pow_k_high"]
    why, bootstrap = table.notes
    assert why.startswith(
        f"The mean pass rate ({number(fit.mean)}) is the fitted Beta's mean {MEAN}; "
        "pass@1 (0.42) is measured"
    )
    assert why.endswith(f"so they can differ: here by {fixed(gap, 3)}, inside pass@1's 95% CI.")
    assert "fit.confidence_interval(k, rng=0)" in bootstrap


def test_a_fit_of_tasks_alike_agrees_with_pass_at_1_and_reads_tasks_alike() -> None:
    runs = pk.simulate_coin(seed=42)
    fit = pk.fit_betabinom(runs)
    assert fit.icc == 0  # every task has one chance: the shapes are infinite
    passed = runs["passed"]
    at_1, _ = _curve_at(runs, 1)
    assert repr(fit) == (
        f"BetaBinomialFit(model='betabinom', mean_pass_rate={passed.mean():g}, "
        f"measured_pass_at_1={passed.mean():g} (95% CI {_ci(at_1)}), run_to_run_correlation=0, "
        f"lr_pvalue=1.0, n_tasks=40, n_runs={len(passed)})"
    )
    table = _table(fit._repr_html_())
    assert (
        table.cells[f"Beta shape {ALPHA}"] == table.cells[f"Beta shape {BETA}"] == "∞ (tasks alike)"
    )
    assert "inf" not in "".join(table.cells.values())
    assert "here they agree to 3 decimals" in table.notes[0]


def test_an_inflated_fit_gives_the_models_mean_pass_rate_and_labels_the_beta_part() -> None:
    rng = np.random.default_rng(11)
    chances = np.concatenate([np.zeros(20), np.ones(20), rng.beta(2.0, 2.0, size=40)])
    runs = rng.random((80, 6)) < chances[:, None]
    fit = pk.fit_betabinom(runs, model="inflated")
    assert fit.model == "inflated"
    assert fit.one_share > 0
    rate = fit.one_share + (1 - fit.zero_share - fit.one_share) * fit.mean
    assert abs(rate - fit.mean) > 0.01  # the Beta part's mean is not the chance of a pass
    at_1, _ = _curve_at(runs, 1)
    shares = f"zero_share={number(fit.zero_share)}, one_share={number(fit.one_share)}"
    assert repr(fit) == (
        f"BetaBinomialFit(model='inflated', mean_pass_rate={number(rate)}, "
        f"measured_pass_at_1={number(at_1['pass_pow_k'])} (95% CI {_ci(at_1)}), {shares}, "
        f"beta_part_mean={number(fit.mean)}, beta_part_correlation={number(fit.icc)}, "
        f"lr_pvalue={fit.lr_pvalue:.1e}, n_tasks=80, n_runs=480)"
    )
    table = _table(fit._repr_html_())
    assert table.cells["mean pass rate of the model"] == number(rate)
    assert table.cells[f"mean pass rate of the Beta part, {MEAN}"] == number(fit.mean)
    assert table.cells[f"run-to-run correlation of the Beta part ({RHO})"] == number(fit.icc)
    assert table.cells["share of tasks that always pass"] == number(fit.one_share)
    assert table.intervals["pass@1, measured"] == _ci(at_1)
    assert f"mean pass rate, {MEAN}" not in table.cells
    assert f"The mean pass rate ({number(rate)}) is the model's chance of a pass" in table.notes[0]


def test_the_fit_summary_gives_its_shapes_likelihoods_and_tests() -> None:
    rng = np.random.default_rng(5)
    chances = rng.beta(2.0, 1.0, size=80)
    runs = rng.random((80, 6)) < chances[:, None]
    fit = pk.fit_betabinom(runs)
    assert 0 < fit.icc < 1
    alpha = fit.mean * (1 - fit.icc) / fit.icc
    beta = (1 - fit.mean) * (1 - fit.icc) / fit.icc
    cells = _table(fit._repr_html_()).cells
    assert cells[f"Beta shape {ALPHA}"] == number(alpha)
    assert cells[f"Beta shape {BETA}"] == number(beta)
    assert cells[f"run-to-run correlation ({RHO})"] == f"{fit.icc:.3g}"
    assert cells["log-likelihood"] == f"{fit.log_likelihood:.2f}"
    assert cells["binomial log-likelihood"] == f"{fit.binomial_log_likelihood:.2f}"
    statistic = 2 * (fit.betabinom_log_likelihood - fit.binomial_log_likelihood)
    assert statistic > 30  # tasks differ: the binomial is rejected past any 3-decimal p
    assert fit.lr_pvalue < 1e-4  # two significant digits keep its size: 1.5e-10, not <0.001
    assert cells[f"LR test p (binomial, {RHO} = 0)"] == f"{fit.lr_pvalue:.1e}"
    assert cells["tasks"] == "80"
    assert cells["runs"] == "480"
    assert f"lr_pvalue={fit.lr_pvalue:.1e}" in repr(fit)


def test_a_fit_that_is_not_identified_says_so() -> None:
    fit = pk.fit_betabinom(np.ones((10, 3), dtype=bool))
    assert math.isnan(fit.icc)
    table = _table(fit._repr_html_())
    assert table.cells[f"run-to-run correlation ({RHO})"] == "not identified"
    assert table.cells[f"Beta shape {ALPHA}"] == "not identified"
    assert "run_to_run_correlation=nan" in repr(fit)
    # every run passed: the exact interval of 10 of 10 tasks, from SciPy's beta quantile
    low = stats.beta.ppf(0.025, 10, 1)
    assert f"measured_pass_at_1=1 (95% CI [{low:.3f}, 1.000])" in repr(fit)


# --- PassAt1SE ----------------------------------------------------------------------------


def test_the_standard_error_repr_names_its_values_and_the_interval_of_pass_at_1() -> None:
    runs = pk.simulate_coin(p=0.6, tasks=30, k=4, seed=9)
    rates = runs.groupby("task")["passed"].mean().to_numpy()
    estimate = rates.mean()
    clustered = rates.std(ddof=1) / math.sqrt(len(rates))
    naive = math.sqrt(estimate * (1 - estimate) / len(runs))
    error = pk.pass_at_1_se(runs)
    assert error.estimate == pytest.approx(estimate)
    assert error.se_clustered == pytest.approx(clustered)
    assert error.se_naive == pytest.approx(naive)
    at_1, _ = _curve_at(runs, 1)
    assert tuple(error.confidence_interval()) == pytest.approx(
        (at_1["pass_pow_k_low"], at_1["pass_pow_k_high"])
    )
    assert repr(error) == (
        f"PassAt1SE(estimate={estimate:.3g} (95% CI {_ci(at_1)}), se_clustered={clustered:.3g}, "
        f"se_naive={naive:.3g}, design_effect={(clustered / naive) ** 2:.3g}, "
        f"n_tasks=30, n_runs=120)"
    )
    table = _table(error._repr_html_())
    assert (table.cells["pass@1"], table.intervals["pass@1"]) == (f"{estimate:.3g}", _ci(at_1))
    assert table.cells["standard error, runs clustered by task"] == f"{clustered:.3g}"
    assert table.cells["standard error, runs as independent"] == f"{naive:.3g}"
    assert table.cells["design effect (variance ratio)"] == f"{(clustered / naive) ** 2:.3g}"
    assert table.cells["tasks"] == "30"
    assert table.cells["runs"] == "120"
    assert "confidence_interval()" in table.notes[0]


def test_a_standard_error_without_cells_or_of_one_task_shows_no_interval() -> None:
    by_hand = pk.PassAt1SE(0.5, 0.1, 0.05, 4.0, 10, 40)
    assert repr(by_hand).startswith("PassAt1SE(estimate=0.5, se_clustered=0.1,")
    assert _table(by_hand._repr_html_()).heading is None
    one = pk.pass_at_1_se(pd.DataFrame({"task": [0], "n": [4], "c": [3]}))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # confidence_interval() warns; a display does not
        text = repr(one)
    assert text.startswith("PassAt1SE(estimate=0.75, se_clustered=nan,")


# --- Ledger -------------------------------------------------------------------------------


def test_a_ledger_read_back_is_one_line_never_its_runs_table(tmp_path: Path) -> None:
    path = tmp_path / "coin.jsonl"
    result = pk.evaluate(pk.coin_tasks(p=0.85, tasks=12, seed=42), k=3, model=NASTY, ledger=path)
    ledger = pk.read_ledger(path)
    runs, header = ledger  # still the pair it was
    assert runs.equals(result.runs)
    assert repr(ledger) == (
        f"Ledger(runs=<{len(runs)} rows>, tasks={runs['task'].nunique()}, k={header['k']}, "
        f"model={NASTY!r}, resumptions=0)"
    )
    table = _table(ledger._repr_html_())
    assert table.cells["runs recorded"] == "36"
    assert table.cells["runs planned (tasks x k)"] == str(len(header["tasks"]) * header["k"])
    assert table.cells["model"] == NASTY
    assert table.notes == [
        "pk.reliability_curve(ledger.runs) gives pass@1 and pass^k with their intervals."
    ]


def test_an_adaptive_ledger_counts_the_tasks_it_ran_not_the_pool(tmp_path: Path) -> None:
    path = tmp_path / "adaptive.jsonl"
    coins = pk.coin_tasks(p=0.85, tasks=200, seed=1)
    result = pk.evaluate_until(coins, k=3, half_width=0.1, rng=0, ledger=path)
    ledger = pk.read_ledger(path)
    assert result.tasks < len(coins)
    assert repr(ledger) == (
        f"Ledger(runs=<{len(result.runs)} rows>, tasks={result.tasks}, k=3, resumptions=0, "
        "adaptive=True)"
    )
    table = _table(ledger._repr_html_())
    assert table.cells["tasks in the pool"] == str(len(coins))
    assert "runs planned (tasks x k)" not in table.cells
    assert table.notes == []  # the default curve's intervals are not this design's


# --- every summary --------------------------------------------------------------------------


def test_every_summary_is_one_line_and_well_formed_html(
    result: pk.EvalResult, adaptive: pk.AdaptiveResult, airline: pd.DataFrame
) -> None:
    shown = [
        result,
        adaptive,
        pk.fit_betabinom(airline),
        pk.pass_at_1_se(airline),
        pk.evaluate([pk.Task(run=lambda: True)], k=2),
    ]
    for thing in shown:
        text = repr(thing)
        assert "\n" not in text
        assert len(text) < 250, text
        table = _table(thing._repr_html_())  # parses as XML: well-formed
        assert table.title == type(thing).__name__


def test_the_summary_helper_rounds_and_escapes() -> None:
    assert summary_repr("T", [("a", 0.4280636), ("b", 50.0), ("c", 12), ("d", "s")]) == (
        "T(a=0.428, b=50, c=12, d='s')"
    )
    assert number(5.000000e01) == "50"
    assert number(-0.000123456) == "-0.000123"
    page = summary_html(NASTY, [(NASTY, NASTY)], notes=[NASTY])
    assert page.count("&lt;b&gt;x&lt;/b&gt;&amp;") == 4  # the title, label, value and note
    assert "<b>" not in page
    assert page.startswith("<table")
    assert page.endswith("</table>")
    assert _table(page).notes == [NASTY]


def test_an_estimate_reads_as_a_value_and_its_interval() -> None:
    assert estimate_text(Estimate(0.45, 0.29254, 0.61486, 0.95)) == "0.45 (95% CI [0.293, 0.615])"
    assert estimate_text(Estimate(0.2, -0.0001, 0.4, 0.9)) == "0.2 (90% CI [0.000, 0.400])"
    assert estimate_text(Estimate(0.2, 0.1, 0.3, None)) == "0.2 (CI [0.100, 0.300])"
    assert estimate_text(Estimate(0.2, math.nan, math.nan, 0.95)) == "0.2"
    with pytest.raises(ValueError, match="one confidence level"):
        summary_html("T", [("a", Estimate(0.5, 0.4, 0.6, 0.95)), ("b", Estimate(0.5, 0, 1, 0.9))])


def test_no_share_strictly_between_0_and_1_reads_as_0_or_1() -> None:
    for value in [0.9996, 0.99999, 1 - 1e-12, 1 - 2**-53, 0.0004, 1e-12, -0.9996]:
        text = number(value)
        assert text.lstrip("-") not in ("0", "1"), (value, text)
        assert 0 < abs(float(text)) < 1
        assert float(text) == pytest.approx(value, rel=1e-3)
    assert number(0.4286) == "0.429"  # three significant digits where they tell it apart
