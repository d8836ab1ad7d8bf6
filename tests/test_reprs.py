"""The result objects' one-line text reprs and their HTML summaries for Jupyter."""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import fields

import numpy as np
import pandas as pd
import pytest

import passk_lab as pk
from passk_lab._numbers import number
from passk_lab._summary import summary_html, summary_repr

NASTY = "<b>x</b>&"


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


def _cells(page: str) -> dict[str, str]:
    """The label -> value cells of a summary table, unescaped only as far as the test needs."""
    return dict(re.findall(r"<th [^>]*>(.*?)</th><td [^>]*>(.*?)</td>", page))


def test_the_evaluation_repr_names_its_values(result: pk.EvalResult) -> None:
    runs = result.runs
    per_task = runs.groupby("task", sort=False)["passed"]
    pass_at_1 = per_task.mean().mean()  # (1 + 0 + 0.5 + 0 + 1) / 5
    pass_pow_k = per_task.all().mean()  # ok and paid of 5
    assert (pass_at_1, pass_pow_k) == (0.5, 0.4)
    text = repr(result)
    assert text == (
        f"EvalResult(tasks=5, k=4, pass_at_1={pass_at_1:g}, pass_pow_k={pass_pow_k:g}, "
        f"runs=<{len(runs)} rows>, errored={runs['error'].notna().sum()}, "
        f"timed_out={runs['timed_out'].sum()}, model={NASTY!r}, cost={{'usd': 1}})"
    )
    assert "errored=8, timed_out=4" in text  # boom's and late's 4 runs each; late's timed out


def test_the_evaluation_summary_escapes_the_model_and_lists_the_counts(
    result: pk.EvalResult,
) -> None:
    page = result._repr_html_()
    assert "&lt;b&gt;x&lt;/b&gt;&amp;" in page
    assert NASTY not in page
    assert "<b>" not in page
    assert "<script" not in page
    assert "http" not in page  # nothing to fetch
    cells = _cells(page)
    assert cells["tasks"] == "5"
    assert cells["runs per task (k)"] == "4"
    assert cells["pass@1"] == "0.5"
    assert cells["pass^4"] == "0.4"
    assert cells["runs"] == "20"
    assert cells["errored runs"] == "8"
    assert cells["of them, timed out"] == "4"
    assert cells["cost (usd)"] == "1"  # 4 runs of 0.25
    assert cells["date"] == pd.Timestamp(result.header["date"]).strftime("%Y-%m-%d %H:%M UTC")


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
    assert len(text) < 200
    assert "runs=<10000 rows>" in text
    assert "m" * 40 not in text  # the long model name is cut
    assert "cost={'usd': 1235, 'tokens': 25000000}" in text
    assert str(result) == text


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


@pytest.fixture(scope="module")
def adaptive() -> pk.AdaptiveResult:
    return pk.evaluate_until(pk.coin_tasks(p=0.85, tasks=200, seed=1), k=3, half_width=0.1, rng=0)


def test_the_adaptive_repr_says_why_it_stopped_and_on_what_interval(
    adaptive: pk.AdaptiveResult,
) -> None:
    at_k = adaptive.curve.set_index("k").loc[adaptive.k]
    low, high = at_k["pass_pow_k_low"], at_k["pass_pow_k_high"]
    assert (high - low) / 2 <= 0.1  # the stopping rule: the half-width reached
    text = repr(adaptive)
    assert text.startswith(f"AdaptiveResult(tasks={adaptive.tasks}, k=3, ")
    assert f"runs=<{len(adaptive.runs)} rows>" in text
    assert text.endswith(
        f"stopped_because='half_width', pass_pow_k_interval=[{low:.3f}, {high:.3f}])"
    )
    cells = _cells(adaptive._repr_html_())
    assert cells["stopped because"] == "the interval is narrow enough"
    assert cells["pass^3 95% CI"] == f"[{low:.3f}, {high:.3f}]"
    assert cells["half-width reached"] == f"{(high - low) / 2:.3g}"
    assert cells["half-width wanted"] == "0.1"
    extended = adaptive.design["runs"] > adaptive.design["first"]
    assert cells["tasks given more runs"] == str(int(extended.sum()))


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
    text = repr(both)
    assert f"stopped_because={both.stopped_because!r}" in text
    interval = f"[{row['difference_low']:.3f}, {row['difference_high']:.3f}]"
    assert (
        f"difference={row['value_a'] - row['value_b']:.3g}, difference_interval={interval}" in text
    )
    cells = _cells(both._repr_html_())
    assert cells["pass^3 of B"] == f"{row['value_b']:.3g}"
    assert (
        cells["difference 95% CI"] == f"[{row['difference_low']:.3f}, {row['difference_high']:.3f}]"
    )


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
    assert text.endswith(f"pass_at_k={number(value)}, pass_at_k_interval=[{low:.3f}, {high:.3f}])")
    assert " interval=" not in text
    cells = _cells(result._repr_html_())
    assert cells["pass@3"] == number(value)
    assert cells["pass@3 95% CI"] == f"[{low:.3f}, {high:.3f}]"
    assert cells["pass^3"] == number(result.pass_pow_k)


def test_the_adaptive_summary_keeps_every_digit_of_the_level() -> None:
    result = pk.evaluate_until(
        pk.coin_tasks(p=0.85, tasks=60, seed=1), k=2, half_width=0.2, rng=0, confidence_level=0.975
    )
    cells = _cells(result._repr_html_())
    assert "pass^2 97.5% CI" in cells
    assert not [name for name in cells if "98%" in name]


def test_errors_are_counted_from_the_error_text_when_no_kind_is_recorded() -> None:
    runs = pk.simulate_coin(p=0.7, tasks=6, k=3, seed=4)
    runs["error"] = [None, "ValueError: no", None] * 6  # DESIGN's error column alone
    assert "error_kind" not in runs
    result = pk.EvalResult(6, 3, 0.7, 0.3, runs=runs)
    assert "errored=6," in repr(result)
    assert _cells(result._repr_html_())["errored runs"] == "6"


@pytest.fixture(scope="module")
def inflated() -> pk.BetaBinomialFit:
    rng = np.random.default_rng(11)
    chances = np.concatenate([np.zeros(20), np.ones(20), rng.beta(2.0, 2.0, size=40)])
    fit = pk.fit_betabinom(rng.random((80, 6)) < chances[:, None], model="inflated")
    assert fit.model == "inflated"
    return fit


def test_an_inflated_fit_labels_the_beta_part_and_gives_the_models_pass_at_1(
    inflated: pk.BetaBinomialFit,
) -> None:
    fit = inflated
    pass_at_1 = fit.one_share + (1 - fit.zero_share - fit.one_share) * fit.mean
    assert abs(pass_at_1 - fit.mean) > 0.01  # the Beta part's mean is not the chance of a pass
    cells = _cells(fit._repr_html_())
    assert cells["mean of the Beta part (mu)"] == number(fit.mean)
    assert cells["icc of the Beta part"] == number(fit.icc)
    assert cells["chance of a pass (pass@1 of the model)"] == number(pass_at_1)
    assert "mean chance of a pass (mu)" not in cells
    shares = f"zero_share={number(fit.zero_share)}, one_share={number(fit.one_share)}"
    assert f"{shares}, pass_at_1={number(pass_at_1)}," in repr(fit)


def test_no_share_strictly_between_0_and_1_reads_as_0_or_1() -> None:
    for value in [0.9996, 0.99999, 1 - 1e-12, 1 - 2**-53, 0.0004, 1e-12, -0.9996]:
        text = number(value)
        assert text.lstrip("-") not in ("0", "1"), (value, text)
        assert 0 < abs(float(text)) < 1
        assert float(text) == pytest.approx(value, rel=1e-3)
    assert number(0.4286) == "0.429"  # three significant digits where they tell it apart


def test_the_fit_repr_says_an_infinite_shape_means_tasks_alike() -> None:
    fit = pk.fit_betabinom(pk.simulate_coin(seed=42))
    assert fit.icc == 0  # every task has one chance: the shapes are infinite
    text = repr(fit)
    passed = pk.simulate_coin(seed=42)["passed"]
    assert text == (
        f"BetaBinomialFit(model='betabinom', mean={passed.mean():g}, icc=0, alpha=inf, "
        f"beta=inf, lr_pvalue=1.0, n_tasks=40, n_runs={len(passed)})"
    )
    cells = _cells(fit._repr_html_())
    assert cells["alpha"] == cells["beta"] == "\N{INFINITY} (tasks alike)"
    assert "inf" not in "".join(cells.values())


def test_the_fit_summary_gives_its_shapes_likelihoods_and_tests() -> None:
    rng = np.random.default_rng(5)
    chances = rng.beta(2.0, 1.0, size=80)
    runs = rng.random((80, 6)) < chances[:, None]
    fit = pk.fit_betabinom(runs)
    assert 0 < fit.icc < 1
    alpha = fit.mean * (1 - fit.icc) / fit.icc
    beta = (1 - fit.mean) * (1 - fit.icc) / fit.icc
    cells = _cells(fit._repr_html_())
    assert cells["alpha"] == number(alpha)
    assert cells["beta"] == number(beta)
    assert cells["intra-task correlation (icc)"] == f"{fit.icc:.3g}"
    assert cells["log-likelihood"] == f"{fit.log_likelihood:.2f}"
    assert cells["binomial log-likelihood"] == f"{fit.binomial_log_likelihood:.2f}"
    statistic = 2 * (fit.betabinom_log_likelihood - fit.binomial_log_likelihood)
    assert statistic > 30  # tasks differ: the binomial is rejected past any 3-decimal p
    assert fit.lr_pvalue < 1e-4  # two significant digits keep its size: 1.5e-10, not <0.001
    assert cells["LR test p (binomial, icc 0)"] == f"{fit.lr_pvalue:.1e}"
    assert cells["tasks"] == "80"
    assert cells["runs"] == "480"
    text = repr(fit)
    assert f"alpha={number(alpha)}, beta={number(beta)}" in text
    assert f"lr_pvalue={fit.lr_pvalue:.1e}" in text


def test_a_fit_that_is_not_identified_says_so() -> None:
    fit = pk.fit_betabinom(np.ones((10, 3), dtype=bool))
    assert math.isnan(fit.icc)
    cells = _cells(fit._repr_html_())
    assert cells["intra-task correlation (icc)"] == "not identified"
    assert cells["alpha"] == "not identified"
    assert "icc=nan" in repr(fit)


def test_the_standard_error_repr_names_its_values() -> None:
    runs = pk.simulate_coin(p=0.6, tasks=30, k=4, seed=9)
    rates = runs.groupby("task")["passed"].mean().to_numpy()
    estimate = rates.mean()
    clustered = rates.std(ddof=1) / math.sqrt(len(rates))
    naive = math.sqrt(estimate * (1 - estimate) / len(runs))
    error = pk.pass_at_1_se(runs)
    assert error.estimate == pytest.approx(estimate)
    assert error.se_clustered == pytest.approx(clustered)
    assert error.se_naive == pytest.approx(naive)
    assert repr(error) == (
        f"PassAt1SE(estimate={estimate:.3g}, se_clustered={clustered:.3g}, "
        f"se_naive={naive:.3g}, design_effect={(clustered / naive) ** 2:.3g}, "
        f"n_tasks=30, n_runs=120)"
    )
    cells = _cells(error._repr_html_())
    assert cells["standard error, runs clustered by task"] == f"{clustered:.3g}"
    assert cells["standard error, runs as independent"] == f"{naive:.3g}"
    assert cells["design effect (variance ratio)"] == f"{(clustered / naive) ** 2:.3g}"
    assert cells["tasks"] == "30"
    assert cells["runs"] == "120"


def test_the_summary_helper_rounds_and_escapes() -> None:
    assert summary_repr("T", [("a", 0.4280636), ("b", 50.0), ("c", 12), ("d", "s")]) == (
        "T(a=0.428, b=50, c=12, d='s')"
    )
    assert number(5.000000e01) == "50"
    assert number(-0.000123456) == "-0.000123"
    page = summary_html(NASTY, [(NASTY, NASTY)])
    assert page.count("&lt;b&gt;x&lt;/b&gt;&amp;") == 3  # the title, the label and the value
    assert "<b>" not in page
    assert page.startswith("<table")
    assert page.endswith("</table>")
