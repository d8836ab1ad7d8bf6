"""The success histogram names its numbers in words, and the outcome heatmap refuses in its own.

Each number a key writes is computed again here another way: the pass rates with plain
pandas, the beta-binomial fit by scipy's own likelihood and optimiser.
"""

from __future__ import annotations

import textwrap

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_rgb
from scipy import optimize, stats

import passk_lab as pk
from passk_lab import plots
from passk_lab.plots._style import PALETTE

IS = "\N{NO-BREAK SPACE}=\N{NO-BREAK SPACE}"
RHO = "\N{GREEK SMALL LETTER RHO}"


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def key(ax):
    """The key's entries, each with its lines joined by spaces: the words, however wrapped."""
    return [" ".join(text.get_text().split("\n")) for text in ax.get_legend().get_texts()]


def scipy_fit(counts):
    """The beta-binomial's mean and icc by maximum likelihood, with scipy's pmf and optimiser."""
    n = int(counts["successes"].max())
    successes, tasks = counts["successes"].to_numpy(), counts["n_tasks"].to_numpy()

    def minus_log_likelihood(logs):
        a, b = np.exp(logs)
        return -(tasks * stats.betabinom.logpmf(successes, n, a, b)).sum()

    found = optimize.minimize(minus_log_likelihood, [0.0, 0.0], method="Nelder-Mead", tol=1e-12)
    a, b = np.exp(found.x)
    return a / (a + b), 1 / (a + b + 1)


def test_the_key_names_each_rate_in_words_and_says_why_the_fits_mean_is_not_pass_at_1(
    tau_bench_runs,
):
    counts = pk.success_counts(tau_bench_runs)
    ax = plots.success_histogram(counts)
    pass_at_1 = tau_bench_runs["reward"].eq(1).groupby(tau_bench_runs["task"]).mean().mean()
    assert f"{pass_at_1:.3f}" == "0.420"  # the published pass^1 (../shared/data/README.md)
    mean, icc = scipy_fit(counts)
    assert (f"{mean:.3f}", f"{icc:.2f}") == ("0.428", "0.40")
    assert key(ax) == [
        "tasks observed",
        f"binomial: one pass rate, pass@1{IS}{pass_at_1:.3f}",
        f"beta-binomial fit: a pass rate per task; mean pass rate {mean:.3f}; run-to-run "
        f"correlation {RHO}{IS}{icc:.2f}",
        f"{mean:.3f} is not pass@1 ({pass_at_1:.3f}): the fit matches the whole histogram",
    ]
    texts = [text.get_text() for text in ax.get_legend().get_texts()]
    assert not any("$" in text or "hat" in text for text in texts)  # words, not symbols
    assert all(len(line) <= 32 for text in texts for line in text.split("\n"))


def test_the_key_says_why_the_pooled_rate_is_not_pass_at_1_when_tasks_have_unequal_runs():
    runs = pk.simulate_coin(p=0.7, tasks=60, k=6, seed=3)
    runs = runs[~((runs["task"] % 3 == 0) & (runs["run"] >= 3))]  # a third of the tasks: 3 runs
    pooled = runs["passed"].mean()
    pass_at_1 = runs.groupby("task")["passed"].mean().mean()
    assert f"{pooled:.3f}" != f"{pass_at_1:.3f}"  # the case the key explains
    counts = pk.success_counts(runs)
    assert counts.attrs["binomial_mean"] == pytest.approx(pooled, abs=1e-12)
    assert counts.attrs["pass_at_1"] == pytest.approx(pass_at_1, abs=1e-12)
    _, binomial, *_ = key(plots.success_histogram(counts))
    assert binomial == (
        f"binomial: one pass rate, {pooled:.3f}{IS}all passes \N{DIVISION SIGN} all runs "
        f"(pass@1 {pass_at_1:.3f} weighs tasks equally)"
    )


def test_tasks_alike_get_one_line_said_once_and_no_note():
    counts = pk.success_counts(pk.simulate_coin(p=0.85, seed=42))  # coins: every task alike
    assert counts.attrs["icc"] == pytest.approx(0, abs=1e-9)
    ax = plots.success_histogram(counts)
    binomial, fitted = ax.get_lines()
    np.testing.assert_allclose(fitted.get_ydata(), binomial.get_ydata(), rtol=1e-6)
    pass_at_1 = pk.simulate_coin(p=0.85, seed=42)["passed"].mean()
    assert key(ax) == [
        "tasks observed",
        f"binomial: one pass rate, pass@1{IS}{pass_at_1:.3f}",
        f"beta-binomial fit: run-to-run correlation {RHO}{IS}0.00, tasks alike: the binomial's "
        "line",
    ]


def test_an_inflated_fit_names_the_tasks_that_always_pass_and_no_empty_share():
    runs = pd.DataFrame(
        {"task": range(80), "n": 8, "c": [8] * 30 + [2, 3, 4, 4, 5, 6] * 8 + [4, 4]}
    )
    counts = pk.success_counts(runs)
    assert counts.attrs["model"] == "inflated"
    assert counts.attrs["zero_share"] == 0
    always = counts.attrs["one_share"]
    assert 0.3 < always < 30 / 80  # about the thirty tasks that passed all 8
    fitted = key(plots.success_histogram(counts))[2]
    assert fitted.startswith(f"beta-binomial fit: a pass rate per task, {always:.0%} always pass;")
    assert "never" not in fitted
    assert fitted.endswith(" in the rest")
    # the model's pass@1 is the data's, 440 / 640, but for its optimiser's last digits: the
    # key writes it once, as the data's, and has no note
    pass_at_1 = runs["c"].sum() / runs["n"].sum()
    assert counts.attrs["fit_pass_at_1"] == pytest.approx(pass_at_1, abs=1e-9)
    assert counts.attrs["fit_pass_at_1"] != pass_at_1
    assert f"mean pass rate {pass_at_1:.3f};" in fitted
    assert len(key(plots.success_histogram(counts, ax=plt.figure().gca()))) == 3


def test_the_fit_and_the_binomial_are_drawn_in_the_palettes_blue_and_vermilion():
    counts = pk.success_counts(pk.simulate_coin(p=0.6, tasks=40, k=4, seed=1))
    binomial, fitted = plots.success_histogram(counts).get_lines()
    assert to_rgb(binomial.get_color()) == to_rgb(PALETTE[0])
    assert to_rgb(fitted.get_color()) == to_rgb(PALETTE[1])


def test_a_fit_not_identified_draws_no_line_and_has_no_entry():
    counts = pk.success_counts(pk.simulate_coin(p=0.6, tasks=40, k=4, seed=1))
    counts["betabinom"] = np.nan
    counts.attrs.update(mean=np.nan, icc=np.nan, fit_pass_at_1=np.nan)
    ax = plots.success_histogram(counts)
    assert len(ax.get_lines()) == 1
    assert [entry.split(":")[0] for entry in key(ax)] == ["tasks observed", "binomial"]


@pytest.mark.parametrize(("width", "longest"), [(6.4, 32), (4.0, 20)])
def test_the_keys_lines_shorten_on_a_narrow_figure_and_leave_the_axes_half_of_it(width, longest):
    counts = pk.success_counts(pk.simulate_coin(p=0.6, tasks=40, k=4, seed=1))
    with plots.style():
        fig = plt.figure(figsize=(width, 4))
        ax = plots.success_histogram(counts, ax=fig.add_subplot())
        fig.canvas.draw()
    lines = [line for text in ax.get_legend().get_texts() for line in text.get_text().split("\n")]
    assert max(map(len, lines)) <= longest
    assert ax.get_window_extent().width >= 0.4 * fig.bbox.width
    assert ax.get_legend().get_window_extent().x1 <= fig.bbox.width
    words = textwrap.fill(" ".join(key(ax)[1:]), 1000)
    assert "binomial" in words
    assert "run-to-run correlation" in words


# --- the outcome heatmap's refusal ------------------------------------------------------------


def test_a_heatmap_of_several_agents_says_which_column_to_draw_one_at_a_time():
    runs = pd.concat(
        [
            pk.simulate_coin(p=p, seed=seed).assign(model=name)
            for name, p, seed in [("a", 0.8, 1), ("b", 0.6, 2)]
        ]
    )
    with pytest.raises(ValueError, match="draws one agent's runs") as refused:
        plots.outcome_heatmap(runs)
    message = str(refused.value)
    assert "run 0 of task 0 is in 2 rows, told apart by 'model'" in message
    assert "outcome_heatmap(runs[runs['model'] == 'a'])" in message
    assert "by=" not in message  # outcome_heatmap has no by
    plots.outcome_heatmap(runs[runs["model"] == "a"])  # the fix it names draws


def test_a_heatmap_of_copied_rows_says_to_drop_them():
    runs = pk.simulate_coin(p=0.8, seed=1)
    with pytest.raises(
        ValueError, match=r"no column tells apart.*runs\.drop_duplicates\(\)"
    ) as refused:
        plots.outcome_heatmap(pd.concat([runs, runs.head(3)]))
    assert "by=" not in str(refused.value)
    plots.outcome_heatmap(pd.concat([runs, runs.head(3)]).drop_duplicates())
