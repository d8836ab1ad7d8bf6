"""The report page as a reader uses it: its contents, folded parts, captions and explanations.

Every number a test looks for on the page is computed here from the runs, by a plain
loop or by the public statistics, and never copied from a page.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import TAU_BENCH
from test_report import EMPTY_SVG

import passk_lab as pk

OPTIONS = {"n_resamples": 200}


def page_of(runs, out, **options):
    """Write the report of `runs` into `out`, its figures not drawn; return its page."""
    from matplotlib.figure import Figure

    def stub(figure, path, *args, **kwargs):
        if hasattr(path, "write"):
            path.write(EMPTY_SVG)
        else:
            Path(path).write_bytes(b"")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Figure, "savefig", stub)
        pk.report.write_report(runs, out, **{**OPTIONS, **options})
    return (out / "report.html").read_text(encoding="utf-8").replace("\N{WORD JOINER}", "")


def tau_runs():
    return pk.io.read_tau_bench(TAU_BENCH / "gpt-4o-airline.json")


@pytest.fixture(scope="module")
def mixed():
    """tau-bench's gpt-4o (50 tasks x 4 runs, 5 errored) and a coin of 40 tasks x 5 runs."""
    return pd.concat(
        [
            tau_runs()[["task", "run", "passed", "error"]].assign(model="gpt-4o"),
            pk.simulate_coin(p=0.85, tasks=40, k=5, seed=42).assign(model="coin-a", error=None),
        ],
        ignore_index=True,
    )


@pytest.fixture(scope="module")
def grouped(mixed, tmp_path_factory):
    return page_of(mixed, tmp_path_factory.mktemp("grouped"), by="model")


def most_runs(runs):
    """Each model's most runs of a task, by a plain count."""
    return {
        model: int(agent.groupby("task").size().max())
        for model, agent in runs.groupby("model", sort=False)
    }


def body_rows(table):
    """The cells of each body row of an HTML table, as text."""
    body = table[table.index("<tbody>") : table.index("</tbody>")]
    return [
        re.findall(r"<td[^>]*>([^<]*)</td>", row) for row in re.findall(r"<tr>(.*?)</tr>", body)
    ]


def section(text, name):
    """The HTML of the section whose h2 has the id `name`, up to the next h2 with an id."""
    start = text.index(f'<h2 id="{name}">')
    end = text.find('<h2 id="', start + 1)
    return text[start : end if end > 0 else len(text)]


def said(html):
    """The text of some HTML, its tags gone and its spaces joined."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html))


def test_the_contents_link_each_section_and_each_agents_folded_part(grouped):
    nav = grouped[grouped.index('<nav id="contents"') : grouped.index("</nav>")]
    links = re.findall(r'href="#([^"]+)"', nav)
    assert links == [
        *("coverage", "leaderboard", "decay_curve"),
        *("runs", "runs-model-gpt-4o", "runs-model-coin-a"),
        *("curve", "predictions", "betabinom", "errors", "methods"),
    ]
    for anchor in links:  # each leads to one place
        assert grouped.count(f'id="{anchor}"') == 1
    # each agent's runs and counts folded under its name, every part closed
    parts = re.findall(r'<details class="part"( open)?><summary>([^<]*)</summary>', grouped)
    assert parts == [("", "model gpt-4o"), ("", "model coin-a")]
    assert '<h2 id="runs">Each model\'s runs</h2>' in grouped


def test_one_agents_page_shows_its_runs_and_counts_unfolded(tmp_path):
    text = page_of(pk.simulate_coin(p=0.85, tasks=40, k=5, seed=42), tmp_path)
    assert '<details class="part"' not in text
    nav = text[text.index('<nav id="contents"') : text.index("</nav>")]
    assert re.findall(r'href="#([^"]+)"', nav) == [
        *("decay_curve", "outcome_heatmap", "success_counts"),
        *("curve", "predictions", "betabinom", "methods"),
    ]
    # the counts' table under the histogram it is drawn in
    counts = section(text, "success_counts")
    assert counts.index('<figure class="plot">') < counts.index("<table>")


def test_the_decay_curve_says_where_its_lines_stop_being_measured(mixed, grouped, tmp_path):
    most = most_runs(mixed)
    assert most == {"gpt-4o": 4, "coin-a": 5}
    each = "; ".join(f"model {model}: k = {runs}" for model, runs in most.items())
    caption = said(section(grouped, "decay_curve"))
    assert (
        f"Past the most runs of a group's task ({each}), no run of that group measured "
        "anything: there the beta-binomial, which lets tasks differ in difficulty, predicts "
        "passk with its band"
    ) in caption
    coin = pk.simulate_coin(p=0.85, tasks=40, k=5, seed=42)
    text = said(section(page_of(coin, tmp_path / "one"), "decay_curve"))
    assert "Past k = 5, the most runs a task has, no run measured anything" in text
    # predictions that stop at the runs go past nothing
    text = said(section(page_of(coin, tmp_path / "two", ks=[1, 5]), "decay_curve"))
    assert "Past k" not in text
    assert "Points: passk measured at k = 1 and 5" in text


def test_the_histogram_names_its_symbols_in_words_with_their_numbers(tmp_path):
    runs = tau_runs()
    text = page_of(runs, tmp_path, errors="exclude")
    kept = runs[runs["error"].isna()]  # the runs counted when errored ones are left out
    pooled = kept["passed"].sum() / len(kept)
    rate = kept.groupby("task")["passed"].mean().mean()
    assert f"{pooled:.3f}" != f"{rate:.3f}"  # tasks of 3 runs beside tasks of 4
    caption = said(section(text, "success_counts"))
    assert (
        f"every run passing at one rate, the share of all runs that passed ({pooled:.3f}); "
        f"pass@1, {rate:.3f}, averages each task's share instead, and the two differ because "
        "tasks have different numbers of runs."
    ) in caption
    icc = pk.fit_betabinom(runs, errors="exclude").icc
    assert (
        f"its run-to-run correlation \N{GREEK SMALL LETTER RHO} ({icc:.2f} here) is not a pass rate"
    ) in caption


def test_the_fits_columns_are_said_in_words_and_its_mean_set_beside_pass_at_1(tmp_path):
    runs = tau_runs()
    text = page_of(runs, tmp_path)
    fit = pk.fit_betabinom(runs)
    assert fit.model == "betabinom"
    rate = runs.groupby("task")["passed"].mean().mean()  # every run counted, as pass@1 does
    assert f"{fit.mean:.3f}" != f"{rate:.3f}"
    terms = section(text, "betabinom")
    terms = terms[terms.index('<dl class="terms">') : terms.index("</dl>")]
    assert re.findall(r"<dt>([^<]*)</dt>", terms) == [
        *("mean pass rate", "ICC", "\N{GREEK SMALL LETTER ALPHA}, \N{GREEK SMALL LETTER BETA}"),
        *("tasks alike p", "fit p"),
    ]
    assert f"Here {fit.mean:.3f} against pass@1 {rate:.3f}." in said(terms)
    assert "The run-to-run correlation \N{GREEK SMALL LETTER RHO} of the histograms' keys" in said(
        terms
    )


def errored_to_nothing():
    """Two tasks of two runs, each with one errored: left out, no task has two runs."""
    return pd.DataFrame(
        {
            "task": [0, 0, 1, 1],
            "run": [0, 1, 0, 1],
            "passed": [True, False, False, False],
            "error": [None, "TimeoutError", None, "TimeoutError"],
        }
    )


BLANKS = {  # the runs, the report's options, what the page says, the warning it gives
    "one run a task": (
        pk.simulate_coin(p=0.6, tasks=30, k=1, seed=3),
        {},
        ["blank where the beta-binomial is not fitted (each task has one run)"],
        None,
    ),
    "three tasks": (
        pk.simulate_coin(p=0.7, tasks=3, k=3, seed=4),
        {},
        ["Blank where there are too few tasks, or tasks too alike, to check the fit (3 tasks)"],
        None,
    ),
    "one task": (
        pk.simulate_coin(p=0.7, tasks=1, k=3, seed=4),
        {},
        ["An interval is blank where none can be computed (fewer than 2 tasks)."],
        pk.FewTasksWarning,
    ),
    "every run passed": (
        pk.simulate_coin(p=1.0, tasks=10, k=3, seed=5),
        {},
        ["blank where the beta-binomial is not fitted (every run passed)"],
        None,
    ),
    "errored runs left out": (
        errored_to_nothing(),
        {"errors": "exclude"},
        ["A blank: no task has k runs once its errored runs are left out"],
        pk.NoEstimateWarning,
    ),
}


@pytest.mark.parametrize("case", list(BLANKS))
def test_every_blank_cell_is_explained_in_the_section_it_is_in(case, tmp_path):
    runs, options, reasons, warning = BLANKS[case]
    if warning is None:
        text = page_of(runs, tmp_path, **options)
    else:
        with pytest.warns(warning):
            text = page_of(runs, tmp_path, **options)
    explained = 0
    for name in re.findall(r'<h2 id="([^"]+)">', text):
        part = section(text, name)
        cells = re.findall(r"<td[^>]*>([^<]*)</td>", part)
        assert not [cell for cell in cells if cell.lower() in ("nan", "inf", "-inf")]
        if "" in cells:  # the words outside the tables say why
            assert "blank" in said(re.sub(r"<table>.*?</table>", "", part, flags=re.DOTALL)).lower()
            explained += 1
    assert explained
    for reason in reasons:
        assert reason in said(text)


def test_predictions_past_a_groups_runs_stand_apart_as_model_based(mixed, grouped):
    most = most_runs(mixed)
    part = section(grouped, "predictions")
    within, beyond = (
        [tuple(row[:2]) for row in body_rows(table)]
        for table in re.findall(r"<table>.*?</table>", part, flags=re.DOTALL)
    )
    shown = range(1, 11)  # every k to twice the most runs
    assert within == [(model, str(k)) for model in most for k in shown if k <= most[model]]
    assert beyond == [(model, str(k)) for model in most for k in shown if k > most[model]]
    assert "<h3>Where nothing is measured: model-based predictions alone</h3>" in part
    assert "No measured passk stands beside these rows: no task of the group has k runs." in (
        said(part)
    )


def test_a_k_not_asked_is_said_to_be_unmeasured_not_past_the_runs(tmp_path):
    runs = pk.simulate_coin(p=0.85, tasks=10, k=5, seed=3)
    text = page_of(runs, tmp_path, ks=[1, 3], predict_to=8)  # 4 and 5 unasked, 6 to 8 past
    assert (
        "No measured passk stands beside these rows: no task has k runs; the report measures "
        "k = 1 and 3 alone."
    ) in said(section(text, "predictions"))


def test_a_cost_where_no_task_passed_or_nothing_was_paid_is_said_in_words(tmp_path):
    runs = pd.DataFrame(
        {
            "task": np.repeat(range(4), 3),
            "run": np.tile(range(3), 4),
            "passed": np.tile([True, True, False], 4),  # 2 of 3 runs: pass^3 is 0
            "cost_usd": 0.01,
            "cost_free": 0.0,
        }
    )
    text = page_of(runs, tmp_path)
    costs = section(text, "costs")
    assert "\N{INFINITY}" not in costs
    usd, free = re.findall(r"<table>.*?</table>", costs, flags=re.DOTALL)
    pow_k = [math.comb(2, k) / math.comb(3, k) for k in (1, 2)]  # every task alike; 0 at 3
    per_pass = [f"{0.01 * k / share:.3g}" for k, share in zip((1, 2), pow_k, strict=True)]
    assert [row[3] for row in body_rows(usd)] == [*per_pass, "no task passed"]
    assert (
        "\N{LEFT DOUBLE QUOTATION MARK}no task passed\N{RIGHT DOUBLE QUOTATION MARK}: at that k"
        in said(costs)
    )
    assert [row[4] for row in body_rows(free)] == ["no cost"] * 3
    assert "k runs of a task cost nothing in free, so passk per free has no bound" in said(costs)
    # the file keeps the number: a program reads the division by zero as it is
    table = pd.read_csv(tmp_path / "costs.csv", comment="#")
    assert math.isinf(table.loc[table["k"] == 3, "cost_usd_per_pass_pow_k"].item())


def test_the_predictions_tables_hold_no_column_their_headings_leave_empty(tmp_path):
    coin = pk.simulate_coin(p=0.85, tasks=40, k=5, seed=42)
    text = section(page_of(coin, tmp_path / "coin", predict_to=8), "predictions")
    within, beyond = re.findall(r"<table>.*?</table>", text, flags=re.S)
    headers = [
        said(" ".join(re.findall(r"<th[^>]*>(.*?)</th>", table))) for table in (within, beyond)
    ]
    # at the ks measured the model has no band and nothing is model-based: neither column
    assert "model-based" not in headers[0]
    assert headers[0].count("95% CI") == 1  # (pass@1)^k's alone
    # past the runs every row is the model's, as the heading says: its band, no flag column
    assert "model-based" not in headers[1]
    assert headers[1].count("95% CI") == 2
    curve = pk.reliability_curve(coin, predict_to=8, n_resamples=200, rng=0)
    rows = body_rows(beyond)
    assert [int(row[0]) for row in rows] == curve.loc[curve["predicted"], "k"].tolist()
    assert all(row[-1].startswith("[") for row in rows)  # every band given
    # and no note blames a blank (pass@1)^k interval that is not there
    assert "is blank where fewer than 2 tasks count" not in said(text)


def test_the_cost_section_draws_each_agents_pass_k_against_its_cost(tmp_path, monkeypatch):
    from passk_lab import plots

    drawn = []

    def cost_reliability(curve, k, *, ax, **options):
        drawn.append((curve, k, options))
        return draw(curve, k, ax=ax, **options)  # and the plot takes the table

    draw = plots.cost_reliability
    monkeypatch.setattr(plots, "cost_reliability", cost_reliability)
    runs = pd.concat(
        [
            pk.simulate_coin(p=p, tasks=20, k=3, seed=seed).assign(model=name, cost_usd=price)
            for name, p, seed, price in [("a", 0.9, 1, 0.5), ("b", 0.7, 2, 0.1)]
        ],
        ignore_index=True,
    )
    text = page_of(runs, tmp_path / "two", by="model")
    costs = section(text, "costs")
    assert "pass<sup>k</sup> at k = 3 against what a task&#x27;s 3 runs cost (usd)" in costs
    assert costs.count('<figure class="plot">') == 1
    assert drawn  # the page's and the files' drawings, all of the same table
    curve, k, options = drawn[0]
    assert (k, options) == (3, {"cost": "cost_usd"})
    measured = pk.reliability_curve(runs, [1, 2, 3], by="model", n_resamples=200, rng=0)
    at_3 = curve[curve["k"] == 3].set_index("model")
    expected = measured[measured["k"] == 3].set_index("model")
    pd.testing.assert_series_equal(at_3["pass_pow_k_low"], expected["pass_pow_k_low"])
    np.testing.assert_allclose(at_3.loc[["a", "b"], "cost_usd"], [3 * 0.5, 3 * 0.1], rtol=1e-12)
    # one agent is one point, which its table says: no figure
    alone = section(page_of(runs[runs["model"] == "a"], tmp_path / "one", by="model"), "costs")
    assert '<figure class="plot">' not in alone
