from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from collections import Counter
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from conftest import TAU_BENCH

import passk_lab as pk
from passk_lab._numbers import p_value_text
from passk_lab.cli import main
from passk_lab.report import export, labelled, metadata, to_html, to_latex, to_markdown
from passk_lab.report._folder import slugs
from passk_lab.report._html import _table
from passk_lab.report._inputs import checked, coverage
from passk_lab.report._prose import groups_named, num
from passk_lab.report._render import rows
from passk_lab.report._shown import fit_tables
from passk_lab.report._tables import guard_formulas

TODAY = datetime.now(UTC).date().isoformat()


class Page(HTMLParser):
    """Every start tag with its attributes, the text of each table cell, and the headings.

    Per table also its header cells (``th``), its body rows (rows of ``td``) and the id of
    the last ``h2`` before it: the section it is in.
    """

    def __init__(self, text):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.tables: list[list[list[str]]] = []
        self.headers: list[list[str]] = []
        self.bodies: list[list[list[str]]] = []
        self.sections: list[str | None] = []
        self.headings: list[str] = []
        self.paragraphs: list[str] = []
        self._section: str | None = None
        self._cell: list[str] | None = None
        self._heading: list[str] | None = None
        self._paragraph: list[str] | None = None
        self._body_row = False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "table":
            self.tables.append([])
            self.headers.append([])
            self.bodies.append([])
            self.sections.append(self._section)
        elif tag == "tr":
            self.tables[-1].append([])
            self._body_row = False
        elif tag in ("td", "th"):
            self._cell = []
            self._body_row = self._body_row or tag == "td"
        elif tag == "h2":
            self._heading = []
            self._section = dict(attrs).get("id", self._section)
        elif tag == "p":
            self._paragraph = []

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            text = "".join(self._cell)
            self.tables[-1][-1].append(text)
            if tag == "th":
                self.headers[-1].append(text)
            self._cell = None
        elif tag == "tr" and self._body_row:
            self.bodies[-1].append(self.tables[-1][-1])
        elif tag == "h2":
            self.headings.append("".join(self._heading))
            self._heading = None
        elif tag == "p":
            self.paragraphs.append("".join(self._paragraph).replace("\N{WORD JOINER}", ""))
            self._paragraph = None

    def handle_data(self, data):
        for part in (self._cell, self._heading, self._paragraph):
            if part is not None:
                part.append(data)

    def table(self, section):
        """Return the header cells and the body rows of the first table in `section`."""
        index = self.sections.index(section)
        return self.headers[index], self.bodies[index]


@pytest.fixture(scope="module")
def curve():
    runs = pk.simulate_coin(seed=42)
    with pytest.warns(pk.TasksLeftOutWarning):  # the last task has 3 runs, others 5
        return pk.reliability_curve(runs.iloc[:-2], rng=0)


# --- renderers ---------------------------------------------------------------------------


def test_markdown_aligns_numbers_right_text_left_and_leaves_missing_cells_empty():
    table = pd.DataFrame({"model": ["gpt|4o", "b"], "k": [1, 10], "pass_pow_k": [0.5, np.nan]})
    lines = to_markdown(table, digits=2).splitlines()
    assert lines == [
        "| model   |  k | pass_pow_k |",
        "|---------|---:|-----------:|",
        "| gpt\\|4o |  1 |       0.50 |",
        "| b       | 10 |            |",
    ]


def test_latex_escapes_special_characters_and_sets_k_as_a_superscript():
    table = pd.DataFrame({"model": ["a_b & 50% {#1} ~x^2 \\"], "pass^k": [0.25], "n": [pd.NA]})
    text = to_latex(table, digits=2, caption="tasks: 40; p_hat")
    assert r"\caption{tasks: 40; p\_hat}" in text
    assert r"\begin{tabular}{lrl}" in text
    assert r"model & pass$^k$ & n \\" in text
    body = (
        r"a\_b \& 50\% \{\#1\} \textasciitilde{}x\textasciicircum{}2 \textbackslash{} & 0.25 &  \\"
    )
    assert body in text


def test_html_escapes_text_and_aligns_numbers():
    table = pd.DataFrame({"agent": ["<script>&"], "pass^k": [1 / 3]})
    page = Page(to_html(table, digits=4, caption="a <caption>"))
    assert page.tables == [[["agent", "passk"], ["<script>&", "0.3333"]]]
    cells = [attrs for tag, attrs in page.tags if tag == "td"]
    assert [cell["style"] for cell in cells] == ["text-align:left", "text-align:right"]
    assert ("sup", {}) in page.tags
    assert "a &lt;caption&gt;" in to_html(table, caption="a <caption>")
    written = pd.DataFrame({"p": ["0.19", "2.8e-09", ""], "CI": ["[0.1, 0.2]", "", "x"]})
    cells = [attrs["style"] for tag, attrs in Page(to_html(written)).tags if tag == "td"]
    assert cells[::2] == ["text-align:right"] * 3  # numbers written out, as p-values are
    assert cells[1::2] == ["text-align:left"] * 3


# --- labels and metadata -----------------------------------------------------------------


def test_labelled_names_the_columns_and_puts_each_interval_in_one_cell(curve):
    table = labelled(curve, digits=2)
    assert table.columns.tolist() == [
        "k",
        "pass^k",
        "pass^k 95% CI",
        "pass@k",
        "pass@k 95% CI",
        "(pass@1)^k",
        "(pass@1)^k 95% CI",
        "beta-binomial pass^k",
        "beta-binomial pass^k 95% CI",
        "beta-binomial fit p",
        "tasks",
        "tasks excluded",
        "runs excluded",
        "interval",
        "model-based",
    ]
    for k in range(5):
        low, high = curve.loc[k, ["pass_pow_k_low", "pass_pow_k_high"]]
        assert table.loc[k, "pass^k 95% CI"] == f"[{low:.2f}, {high:.2f}]"
    assert table["pass^k"].equals(curve["pass_pow_k"])  # values keep every digit
    assert table.attrs == curve.attrs
    ninety = labelled(pk.reliability_curve(pk.simulate_coin(), [1], confidence_level=0.9))
    assert "pass^k 90% CI" in ninety.columns


def test_labelled_names_comparison_metrics_and_keeps_small_p_values_readable():
    strong = pk.simulate_coin(p=0.9, tasks=60, k=3, seed=1)
    weak = pk.simulate_coin(p=0.6, tasks=60, k=3, seed=2)
    table = labelled(pk.compare(strong, weak, [1, 3], rng=0, n_resamples=200))
    assert table["metric"].tolist() == ["pass^k", "pass^k", "pass@k", "pass@k"]
    assert {"A", "B", "A - B", "A - B 95% CI", "correlation"} <= set(table.columns)
    fit = pk.fit_betabinom(pd.DataFrame({"task": range(6), "n": 8, "c": [0, 0, 0, 8, 8, 8]}))
    shown = labelled(fit.to_frame())
    assert shown.loc[0, "tasks alike p"] == f"{fit.lr_pvalue:.2g}"
    assert "e-" in shown.loc[0, "tasks alike p"]
    raw = [name for name in shown.columns if "_" in name]
    assert raw == [], "a fit's column keeps its raw name"
    errored = pd.DataFrame({"task": range(4), "n": 3, "c": [2, 2, 1, 0], "n_errors": [1, 0, 0, 0]})
    sensitivity = labelled(pk.error_sensitivity(errored))
    assert [name for name in sensitivity.columns if "_" in name] == []
    assert "pass^k, errors left out" in sensitivity.columns


def test_labelled_says_the_level_with_its_digits_and_no_end_rounds_to_minus_zero():
    same = pk.simulate_coin(p=0.7, tasks=60, k=3, seed=1)
    table = pk.compare(same, same, [1], rng=0, n_resamples=200, confidence_level=0.975)
    table.loc[:, "difference_low"] = -0.0002  # an end that rounds to zero from below
    table.loc[:, "difference"] = -0.0001
    shown = labelled(table)
    assert "A - B 97.5% CI" in shown.columns  # not "98% CI"
    high = table.loc[0, "difference_high"]
    assert shown.loc[0, "A - B 97.5% CI"] == f"[0.000, {high:.3f}]"
    assert "-0.000" not in to_markdown(shown, digits=3)


def test_latex_is_escaped_for_pdflatex_by_one_rule_for_reports_and_styled_tables():
    fit = pk.fit_betabinom(pd.DataFrame({"task": range(4), "n": 6, "c": 3}))  # tasks alike
    latex = pk.report.to_latex(labelled(fit.to_frame()).assign(shape="\N{INFINITY}"))
    assert r"$\alpha$" in latex
    assert "\N{GREEK SMALL LETTER ALPHA}" not in latex
    assert r"$\infty$" in latex
    assert "\N{INFINITY}" not in latex
    styled = pk.styled(fit.to_frame(), escape="latex").to_latex()
    assert r"$\infty$" in styled
    assert r"$\alpha$" in styled


def test_metadata_says_what_a_reader_needs(curve):
    assert metadata(curve) == {
        "tasks": "40",
        "runs per task": "3 to 5",
        "confidence level": "0.95",
        "interval method": "auto",  # closed form: no resamples to report
        "errored runs": "failures",
        "passk_lab": pk.__version__,
        "date": TODAY,
    }
    plan = pk.plan_evaluation(0.1, 0.85, 5)
    assert list(metadata(plan)) == ["passk_lab", "date"]


# --- export ------------------------------------------------------------------------------


def test_csv_keeps_every_digit_and_the_metadata_as_comment_lines(tmp_path, curve):
    path = export(curve, tmp_path / "curve.csv")
    lines = path.read_text().splitlines()
    header = [f"# {key}: {value}" for key, value in metadata(curve).items()]
    assert lines[: len(header)] == header
    back = pd.read_csv(path, comment="#")
    pd.testing.assert_frame_equal(back, curve, check_dtype=False)
    labels = pd.read_csv(export(curve, tmp_path / "labels.csv", labels=True), comment="#")
    assert labels.columns[:3].tolist() == ["k", "pass^k", "pass^k 95% CI"]


def test_parquet_keeps_every_digit_and_the_metadata_in_attrs(tmp_path, curve):
    back = pd.read_parquet(export(curve, tmp_path / "curve.parquet"))
    pd.testing.assert_frame_equal(back, curve, check_dtype=False)
    assert back.attrs == metadata(curve)


def test_markdown_latex_and_html_files_hold_the_labelled_table_and_a_caption(tmp_path, curve):
    caption = "; ".join(f"{key}: {value}" for key, value in metadata(curve).items())
    markdown = export(curve, tmp_path / "curve.md").read_text()
    assert markdown == f"{to_markdown(labelled(curve), digits=3)}\n\n*{caption}*\n"
    latex = export(curve, tmp_path / "curve.tex", digits=2).read_text()
    assert latex == to_latex(labelled(curve, digits=2), digits=2, caption=caption) + "\n"
    page = Page(export(curve, tmp_path / "curve.html").read_text())
    (table,) = page.tables
    assert table[0][:3] == ["k", "passk", "passk 95% CI"]  # the k is a superscript
    assert [row[1] for row in table[1:]] == [f"{value:.3f}" for value in curve["pass_pow_k"]]


def test_export_refuses_an_unknown_suffix_and_a_non_table(tmp_path, curve):
    with pytest.raises(ValueError, match=r"cannot tell the format of 'curve.xlsx'.*\.csv"):
        export(curve, tmp_path / "curve.xlsx")
    with pytest.raises(TypeError, match="export writes a DataFrame, got list"):
        export([1, 2], tmp_path / "curve.csv")


# --- the whole report --------------------------------------------------------------------


@pytest.fixture(scope="module")
def tau_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    status = main(["report", str(TAU_BENCH / "gpt-4o-airline.json"), "--out", str(out)])
    assert status == 0
    return out


def test_report_writes_the_tables_and_the_plots(tau_report, tau_bench_runs, tau_bench_published):
    names = {path.name for path in tau_report.iterdir()}
    tables = ["curve", "betabinom", "success_counts", "errors"]
    plots = ["decay_curve", "outcome_heatmap", "success_histogram"]
    assert names == {
        *(f"{name}.{suffix}" for name in tables for suffix in ("csv", "md")),
        *(f"{name}.{suffix}" for name in plots for suffix in ("png", "svg")),
        "report.html",
        ".passk-report.json",
    }
    curve = pd.read_csv(tau_report / "curve.csv", comment="#")
    assert curve["k"].tolist() == [1, 2, 3, 4]
    for k, published in tau_bench_published.items():
        assert curve.loc[k - 1, "pass_pow_k"] == pytest.approx(published, abs=5e-4)
    expected = pk.reliability_curve(tau_bench_runs, rng=0)
    np.testing.assert_allclose(curve["pass_pow_k_low"], expected["pass_pow_k_low"], rtol=1e-12)
    counts = pd.read_csv(tau_report / "success_counts.csv", comment="#")
    assert counts["n_tasks"].tolist() == [14, 12, 10, 4, 10]
    errors = pd.read_csv(tau_report / "errors.csv", comment="#")
    assert errors["n_runs_excluded"].tolist() == [5] * 4
    for name in plots:
        assert (tau_report / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert "<svg" in (tau_report / f"{name}.svg").read_text()[:1000]


def texts(svg):
    """Every text an SVG drawing writes: plain ones as text, formulas in a comment each."""
    return re.findall(r"<!-- (.*?) -->|<text\b[^>]*>([^<]+)</text>", svg)


def drawings(text):
    """Each figure of a page: its drawings' SVG, by the class of the box each is in."""
    return [
        dict(
            re.findall(r'<div class="(wide|narrow|any)">(<svg\b.*?</svg>)</div>', figure, re.DOTALL)
        )
        for figure in re.findall(r'<figure class="plot">(.*?)</figure>', text, flags=re.DOTALL)
    ]


def test_report_html_inlines_every_figure_and_table_and_needs_no_network(tau_report):
    text = (tau_report / "report.html").read_text()
    page = Page(text)
    assert not [tag for tag, _ in page.tags if tag == "img"]
    figures = drawings(text)
    titles = {  # a file is read alone: it says what it shows, and where the models take over
        "decay_curve": ("pass$^k$ against k; past k = 4, model predictions", ""),
        "outcome_heatmap": ("", "Every run"),
        "success_histogram": ("", "Tasks by runs passed"),
    }
    assert len(figures) == len(titles)
    for drawn, (name, title) in zip(figures, titles.items(), strict=True):
        assert set(drawn) == {"wide", "narrow"}
        # the page's drawing is the file's without its title: the heading above says it
        filed = Counter(texts((tau_report / f"{name}.svg").read_text()))
        assert filed - Counter(texts(drawn["wide"])) == Counter([title])
        assert not Counter(texts(drawn["wide"])) - filed
        assert (tau_report / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # every table, with the same rows as its CSV
    ids = [attrs.get("id") for tag, attrs in page.tags if tag == "h2" and "id" in attrs]
    assert ids == [
        "decay_curve",
        "outcome_heatmap",
        "success_counts",
        "curve",
        "predictions",
        "betabinom",
        "errors",
        "methods",
    ]
    for name in ("curve", "betabinom", "success_counts", "errors"):
        _, rows = page.table(name)
        assert len(rows) == len(pd.read_csv(tau_report / f"{name}.csv", comment="#"))
    # nothing to fetch or run: no links, scripts, stylesheets or remote images
    assert not [tag for tag, _ in page.tags if tag in ("link", "script", "iframe", "img")]
    assert not re.search(r"""(src|href)=["']?(https?:|//)""", text)
    assert f"<dd>{TODAY}</dd>" in text
    # one page of many drawings: every id on it its own
    ids = [attrs["id"] for _, attrs in page.tags if "id" in attrs]
    assert len(ids) == len(set(ids))
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in text


def test_report_with_groups_draws_each_groups_runs(tmp_path, capsys):
    runs = pd.concat(
        [
            pk.io.read_tau_bench(TAU_BENCH / "gpt-4o-airline.json")[
                ["task", "run", "passed"]
            ].assign(model="gpt-4o"),
            pk.simulate_coin(p=0.85, tasks=40, k=5, seed=42).assign(model="coin/0.85"),
        ]
    )
    runs.to_csv(tmp_path / "runs.csv", index=False)
    out = tmp_path / "out"
    assert main(["report", str(tmp_path / "runs.csv"), "--out", str(out), "--by", "model"]) == 0
    printed = capsys.readouterr().out
    # the leaderboard's 4 tables among them, and the folder as it was given
    assert printed.splitlines() == [
        f"Wrote 21 files to {out}{os.sep}",
        f"The report: {out / 'report.html'}",
    ]
    names = {path.name for path in out.iterdir()}
    assert "outcome_heatmap-model-gpt-4o.png" in names  # kept as it is: a file name can hold it
    # "/" cannot be in a file name: the name changed, so a hash of the group follows
    coin = sorted(name for name in names if name.startswith("outcome_heatmap-model-coin"))
    stem = coin[0].removesuffix(".png")
    assert coin == [f"{stem}.png", f"{stem}.svg"]
    assert re.fullmatch(r"outcome_heatmap-model-coin_0\.85-[0-9a-f]{10}", stem)
    assert "errors.csv" not in names  # these runs record no errors
    curve = pd.read_csv(out / "curve.csv", comment="#")
    assert curve.groupby("model", sort=False)["k"].max().to_dict() == {"gpt-4o": 4, "coin/0.85": 5}
    coin = curve[curve["model"] == "coin/0.85"]
    assert coin["pass_pow_k"].tolist()[::4] == [0.86, 0.45]
    text = (out / "report.html").read_text()
    assert len(drawings(text)) == 5  # the curve, and each agent's runs and counts
    # each agent's part folded under its name, listed in the contents
    parts = re.findall(
        r'<details class="part"><summary>([^<]*)</summary><div class="part" id="([^"]+)">', text
    )
    assert parts == [
        ("model gpt-4o", "runs-model-gpt-4o"),
        ("model coin/0.85", f"runs-{stem.removeprefix('outcome_heatmap-')}"),
    ]
    for name, anchor in parts:
        assert f'<a href="#{anchor}">{name}</a>' in text
    # two agents ranked on the 40 tasks both ran, and the dropped tasks said; one pair, no plots
    assert {"leaderboard.csv", "leaderboard.md", "pairwise.csv", "pairwise.md"} <= names
    assert not any(name.startswith(("leaderboard_forest", "pairwise_heatmap")) for name in names)
    assert pd.read_csv(out / "leaderboard.csv", comment="#")["n_tasks"].max() == 40
    assert (
        "the 10 that some agent lacks are left out: 40, 41, 42" in (out / "report.html").read_text()
    )


def test_report_refuses_bad_input_with_a_message(tmp_path, capsys):
    with pytest.raises(SystemExit) as exited:
        main(["report", str(tmp_path / "missing.csv"), "--out", str(tmp_path)])
    assert exited.value.code == 2
    assert "passk-lab report: error:" in capsys.readouterr().err


def mixed_runs():
    """Three agents: tau-bench's gpt-4o, whose runs record errors, and two simulated coins."""
    tau = pk.io.read_tau_bench(TAU_BENCH / "gpt-4o-airline.json")
    return pd.concat(
        [
            tau[["task", "run", "passed", "error"]].assign(model="gpt-4o"),
            pk.simulate_coin(p=0.85, tasks=40, k=5, seed=42).assign(model="coin-a", error=None),
            pk.simulate_coin(p=0.6, tasks=30, k=3, seed=7).assign(model="coin-b", error=None),
        ],
        ignore_index=True,
    )


def tables_of(folder):
    return {path.stem: pd.read_csv(path, comment="#") for path in sorted(folder.glob("*.csv"))}


OPTIONS = {"by": "model", "n_resamples": 200}


EMPTY_SVG = '<svg width="10pt" height="10pt" viewBox="0 0 10 10"></svg>'
"""What a figure's drawing for the page is, where figures are not drawn."""


def _no_figure(figure, path, *args, **kwargs):
    """Write an empty file where a figure would be saved, an empty drawing where the page's is.

    For tests of tables, names and pages: drawing PNG and SVG takes seconds.
    """
    if hasattr(path, "write"):  # the page's drawing, inline
        path.write(EMPTY_SVG)
    else:
        Path(path).write_bytes(b"")


@pytest.fixture
def no_figures(monkeypatch):
    """Every figure a report saves is an empty file: drawing PNG and SVG takes seconds."""
    from matplotlib.figure import Figure

    monkeypatch.setattr(Figure, "savefig", _no_figure)


@pytest.fixture(scope="module")
def grouped(tmp_path_factory):
    """gpt-4o, whose runs record 5 errors, and coin-a by model: the report, its checks and titles.

    Every check of a runs table splits it into tasks in find_units: ``checks`` counts
    them. ``titles`` holds the axes titles of every figure file, as it was saved; the
    files themselves are empty.
    """
    from matplotlib.figure import Figure

    import passk_lab._data.tally as tally_module

    runs = mixed_runs()
    runs = runs[runs["model"] != "coin-b"].reset_index(drop=True)
    out = tmp_path_factory.mktemp("grouped")
    checks, titles = [], {}
    find_units = tally_module.find_units

    def counted(*args, **kwargs):
        checks.append(1)
        return find_units(*args, **kwargs)

    def saved(figure, path, *args, **kwargs):
        if not hasattr(path, "write"):  # a file, not the page's drawing
            shown = [figure.get_suptitle(), *(ax.get_title() for ax in figure.axes)]
            titles[Path(path).name] = [title for title in shown if title]
        _no_figure(figure, path)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tally_module, "find_units", counted)
        patch.setattr(Figure, "savefig", saved)
        written = pk.report.write_report(runs, out, source="mixed.csv", **OPTIONS)
    text = (out / "report.html").read_text()
    return SimpleNamespace(
        runs=runs, out=out, written=written, checks=checks, titles=titles, text=text
    )


@pytest.mark.parametrize(
    ("errors", "given"), [("fail", ("tally", "dask")), ("exclude", ("tally",))]
)
def test_report_from_a_tally_or_a_dask_frame_has_the_tables_of_the_runs(
    tmp_path, grouped, errors, given, no_figures
):
    dd = pytest.importorskip("dask.dataframe")
    runs = grouped.runs
    if errors == "fail":
        expected = tables_of(grouped.out)
    else:
        # a task of gpt-4o has fewer runs left: the page says so, and nothing warns
        written = pk.report.write_report(runs, tmp_path / "runs", errors=errors, **OPTIONS)
        expected = tables_of(tmp_path / "runs")
        heatmaps = [path.name for path in written if path.stem.startswith("outcome_heatmap")]
        assert len(heatmaps) == 4  # two groups, PNG and SVG
    assert list(expected) == [
        "betabinom",
        "curve",
        "errors",
        "leaderboard",
        "pairwise",
        "success_counts",
    ]
    assert expected["errors"]["n_runs_excluded"].max() == 5  # gpt-4o's errored runs
    assert "outcome heatmap is left out" not in grouped.text
    inputs = {
        "tally": pk.tally(runs, by="model", errors=errors),
        "dask": dd.from_pandas(runs, npartitions=3),
    }
    for name in given:
        written = pk.report.write_report(inputs[name], tmp_path / name, errors=errors, **OPTIONS)
        for table, frame in tables_of(tmp_path / name).items():
            pd.testing.assert_frame_equal(frame, expected[table], check_exact=True)
        assert not any(path.stem.startswith("outcome_heatmap") for path in written)
        page = (tmp_path / name / "report.html").read_text()
        assert (
            "<p>The outcome heatmap is left out: it draws every run of a pandas runs table" in page
        )
        assert len(drawings(page)) == 1 + 2  # the curve and each agent's counts


def test_report_checks_the_runs_once_for_every_table_and_heatmap(grouped):
    assert len(grouped.checks) == 1
    names = {path.name for path in grouped.written}
    assert "errors.csv" in names
    assert len([name for name in names if name.startswith("outcome_heatmap")]) == 2 * 2


def plain(text):
    """A page's text without its word joiners (they keep an interval's ends on one line)."""
    return text.replace("\N{WORD JOINER}", "")


def headline(runs, name=""):
    """The sentence the page leads with, from the runs' own reliability curve at their top k."""
    curve = pk.reliability_curve(runs)
    k = int(curve["k"].max())
    top = curve[curve["k"] == k].iloc[0]
    first = curve.loc[curve["k"] == 1, "pass_at_k"].item()
    low, high = top["pass_pow_k_low"], top["pass_pow_k_high"]
    start = f"For {name}, pass@1" if name else "pass@1"
    return (
        f"{start} is {first:.2f}, yet only {top['pass_pow_k']:.0%} of tasks pass all {k} runs "
        f"(pass<sup>{k}</sup> 95% CI {low:.2f}\N{EN DASH}{high:.2f}, "
        f"Clopper\N{EN DASH}Pearson on {int(top['n_tasks'])} tasks)."
    )


@pytest.fixture(scope="module")
def coin_report(tmp_path_factory):
    """One agent's report of 40 tasks x 5 runs whose runs record errors, none of them errored."""
    runs = pk.simulate_coin(seed=42).assign(
        error=None, domain="airline", user_cost=0.5, file="coin.csv", attempts=1
    )
    runs["trace"] = [["user: hi", "agent: done"]] * len(runs)  # one list per run, as logs hold
    out = tmp_path_factory.mktemp("coin")
    pk.report.write_report(runs, out, source="coin.csv", n_resamples=200)
    return runs, out, plain((out / "report.html").read_text())


def test_the_page_leads_with_a_sentence_of_its_numbers_then_names_its_input(coin_report):
    runs, _, text = coin_report
    page = Page(text)
    assert "<title>Reliability report: coin.csv</title>" in text
    assert "<h1>Reliability report: coin.csv</h1>" in text
    first = text.index('<p class="headline">')
    assert text[first:].startswith(f'<p class="headline">{headline(runs)}</p>')
    assert text.index("<dt>input</dt><dd>coin.csv</dd>") > first
    assert text.index("<dt>input</dt>") < text.index("<figure")  # the figures come after
    assert f"<dt>runs</dt><dd>{len(runs)} runs of 40 tasks, 5 per task</dd>" in text
    assert "<dt>domain</dt><dd>airline</dd>" in text  # one value: it describes the runs
    assert "<dt>attempts</dt>" not in text  # the harness's record of a run is the run's own
    assert "<dt>file</dt>" not in text  # the file a reader names is the input, said once
    assert "user_cost" not in text  # numbers measured per run do not
    assert "trace" not in text
    assert "No run errored or timed out." in page.paragraphs


def test_a_title_is_kept_and_without_a_source_the_page_says_what_it_was_given(tmp_path):
    tally = pk.tally(pk.simulate_coin(tasks=6, k=2, seed=1))
    pk.report.write_report(tally, tmp_path, title="Week 3", n_resamples=200)
    text = (tmp_path / "report.html").read_text()
    assert "<title>Week 3</title>" in text
    assert "<h1>Week 3</h1>" in text
    assert "<dt>input</dt><dd>a DataFrame</dd>" in text


def test_nothing_errored_no_errors_table_and_something_errored_its_counts(coin_report, grouped):
    _, out, text = coin_report
    assert not list(out.glob("errors.*"))
    assert 'id="errors"' not in text
    errored = int(grouped.runs["error"].notna().sum())
    assert errored == 5
    page = Page(grouped.text)
    assert f"{errored} runs errored or timed out." in plain(" ".join(page.paragraphs))
    header, rows = page.table("errors")
    table = pd.read_csv(grouped.out / "errors.csv", comment="#")
    assert [int(row[-1]) for row in rows] == table["n_runs_excluded"].tolist()
    assert header[:5] == [
        "model",
        "k",
        "errors as failures",
        "errors left out",
        "runs left out",
    ]


def test_a_grouped_page_leads_with_each_groups_sentence_and_counts_shared_tasks_once(grouped):
    runs, text = grouped.runs, plain(grouped.text)
    agents = dict(list(runs.groupby("model", sort=False)))
    for name, agent in agents.items():
        assert f'<p class="headline">{headline(agent, f"model {name}")}</p>' in text
    tasks = {name: set(agent["task"]) for name, agent in agents.items()}
    shared = set.intersection(*tasks.values())
    said = (
        f"{len(set.union(*tasks.values()))} tasks, {len(shared)} of them run by both models; "
        f"{len(runs)} runs in all; 5 runs errored or timed out, counted as failures"
    )
    assert f"<dt>runs</dt><dd>{said}</dd>" in text
    counts = [f"{name} ({len(agent)} runs)" for name, agent in agents.items()]
    assert f"<dt>model</dt><dd>{' and '.join(counts)}</dd>" in text
    header, rows = Page(text).table("coverage")
    assert header == ["model", "tasks", "runs", "runs per task", "errored or timed out"]
    expected = [
        [
            name,
            str(agent["task"].nunique()),
            str(len(agent)),
            str(agent.groupby("task").size().max()),
            str(agent["error"].notna().sum()),
        ]
        for name, agent in agents.items()
    ]
    assert rows == expected


def test_two_models_of_the_same_tasks_are_those_tasks_run_by_both(tmp_path):
    runs = pd.concat(
        [
            pk.simulate_coin(p=p, tasks=8, k=3, seed=seed).assign(model=name)
            for name, p, seed in [("a", 0.9, 1), ("b", 0.6, 2)]
        ]
    )
    pk.report.write_report(pk.tally(runs, by="model"), tmp_path, **OPTIONS)
    text = (tmp_path / "report.html").read_text()
    assert "<dt>runs</dt><dd>8 tasks, each run by both models; 48 runs in all</dd>" in text
    assert "tasks: 16" not in text


def test_a_fit_of_alike_tasks_reads_as_the_binomial_not_inf(grouped):
    coin = grouped.runs[grouped.runs["model"] == "coin-a"]
    fit = pk.fit_betabinom(coin)
    assert math.isinf(fit.alpha)  # these tasks are alike: the fit is the binomial
    page = Page(grouped.text)
    header, rows = page.table("betabinom")
    (row,) = [row for row in rows if row[0] == "coin-a"]
    assert row[header.index("\N{GREEK SMALL LETTER ALPHA}")] == "\N{INFINITY}"
    assert "Model coin-a: the tasks look alike: the best fit is the binomial" in " ".join(
        page.paragraphs
    )
    cells = [cell for body in page.bodies for row in body for cell in row]
    assert not [cell for cell in cells if cell.strip().lower() in ("inf", "-inf", "nan")]


def test_no_table_header_on_the_page_is_a_raw_column_name(grouped, tau_report, coin_report):
    raw = {
        str(name)
        for folder in (grouped.out, tau_report, coin_report[1])
        for path in folder.glob("*.csv")
        for name in pd.read_csv(path, comment="#").columns
        if "_" in str(name)
    }
    assert {"binomial_log_likelihood", "lr_pvalue", "pass_at_k_fail"} <= raw
    for text in (grouped.text, (tau_report / "report.html").read_text(), coin_report[2]):
        page = Page(text)
        headers = {cell for header in page.headers for cell in header}
        assert headers
        assert not [cell for cell in headers if "_" in cell or cell in raw]
        cells = {cell for body in page.bodies for row in body for cell in row}
        assert not [cell for cell in cells if re.search(r"[a-z]_[a-z]", cell)]  # effective_n


def test_the_curve_table_marks_a_bootstrap_that_gave_way_and_counts_tasks_of_the_group(tmp_path):
    runs = mixed_runs()
    tally = pk.tally(runs[runs["model"] != "coin-b"], by="model", errors="exclude")
    pk.report.write_report(  # a task left out at a k is said on the page, not warned
        tally, tmp_path, by="model", errors="exclude", method="percentile", n_resamples=200
    )
    curve = pd.read_csv(tmp_path / "curve.csv", comment="#")
    page = Page((tmp_path / "report.html").read_text())
    header, rows = page.table("curve")
    assert header[:5] == ["model", "k", "passk", "pass@k", "tasks"]
    gave_way = curve["interval_method"].str.contains("no width")
    assert gave_way.any()
    assert not gave_way.all()
    # one method, marked once per row, named once below the table
    assert [row[-1] for row in rows] == ["a*" if way else "a" for way in gave_way]
    assert "Intervals: a: percentile bootstrap." in page.paragraphs
    assert any(text.startswith("* The bootstrap interval") for text in page.paragraphs)
    left_out = curve["n_tasks_excluded"]
    assert left_out.any()  # a task of gpt-4o has fewer counted runs than k
    first = int(curve.loc[left_out > 0, "k"].min())
    assert any(
        text.startswith(f"From k = {first} on, a task with fewer than k runs is left out")
        for text in page.paragraphs
    )
    tasks = [f"{n} of {n + out}" for n, out in zip(curve["n_tasks"], left_out, strict=True)]
    assert [row[-2] for row in rows] == tasks


def test_the_how_block_is_said_once_not_under_every_table(grouped):
    assert "<caption>" not in grouped.text
    assert grouped.text.count('<h2 id="methods">How these figures were computed</h2>') == 1
    assert f"<dt>date</dt><dd>{TODAY}</dd>" in grouped.text
    assert "<dt>confidence level</dt><dd>95%</dd>" in grouped.text


def test_every_saved_figure_is_titled_with_what_it_shows_and_its_group(grouped):
    titles = grouped.titles
    assert set(titles) == {path.name for path in grouped.written if path.suffix in (".png", ".svg")}
    # gpt-4o ran each task 4 times, coin-a 5: past those the lines are the models' alone
    assert titles["decay_curve.png"] == [
        "pass$^k$ against k by model; past each group's most runs, model predictions"
    ]
    for stem, shows in (
        ("outcome_heatmap", "Every run"),
        ("success_histogram", "Tasks by runs passed"),
    ):
        assert titles[f"{stem}-model-gpt-4o.png"] == [f"{shows}: model gpt-4o"]
        assert titles[f"{stem}-model-coin-a.svg"] == [f"{shows}: model coin-a"]


def test_k_and_predict_to_reach_the_tables_and_the_decay_curve(tmp_path, monkeypatch):
    from passk_lab import plots

    drawn = []
    decay_curve = plots.decay_curve

    def drawing(curve, **kwargs):
        drawn.append(curve)
        return decay_curve(curve, **kwargs)

    monkeypatch.setattr(plots, "decay_curve", drawing)
    tally = pk.tally(pk.simulate_coin(tasks=10, k=5, seed=3))
    pk.report.write_report(tally, tmp_path, ks=[3, 1], predict_to=12, n_resamples=200)
    curve = pd.read_csv(tmp_path / "curve.csv", comment="#")
    assert curve["k"].tolist() == [1, 3]
    expected = pk.reliability_curve(tally, [1, 3])
    np.testing.assert_allclose(curve["pass_pow_k"], expected["pass_pow_k"], rtol=1e-12)
    predicted = list(range(4, 13))
    assert drawn  # for the files, and the page's two widths
    assert {tuple(figure["k"]) for figure in drawn} == {(1, 3, *predicted)}
    # the ks measured, then those past the runs: the models' alone
    page = Page((tmp_path / "report.html").read_text())
    within, beyond = [
        body
        for body, section in zip(page.bodies, page.sections, strict=True)
        if section == "predictions"
    ]
    assert [int(row[0]) for row in within] == [1, 3]
    assert [int(row[0]) for row in beyond] == predicted
    assert "measured at k = 1 and 3; predicted to k = 12" in (tmp_path / "report.html").read_text()


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"ks": [0, 2]}, ValueError, "k must be a positive integer, got 0"),
        ({"ks": "5"}, TypeError, "ks must be a sequence of whole numbers such as"),
        ({"ks": []}, ValueError, "ks is empty: give at least one k"),
        (
            {"ks": [1, 3], "predict_to": 2},
            ValueError,
            "predict_to=2 is below the report's largest k, 3",
        ),
        ({"predict_to": 0}, ValueError, "predict_to must be a positive integer"),
        ({"source": 3}, TypeError, "source names the input, as text or a path"),
        ({"source": " "}, ValueError, "source is empty"),
        ({"title": 3}, TypeError, "title must be text"),
    ],
)
def test_report_refuses_bad_options_before_reading_the_runs(tmp_path, options, error, message):
    with pytest.raises(error, match=re.escape(message)):
        pk.report.write_report(pk.simulate_coin(tasks=2, k=2, seed=1), tmp_path / "out", **options)
    assert not (tmp_path / "out").exists()


def test_the_old_k_keyword_still_works_for_one_release(tmp_path, no_figures):
    runs = pk.simulate_coin(tasks=4, k=3, seed=1)
    with pytest.warns(pk.PasskDeprecationWarning, match=r"k= is now ks="):
        pk.report.write_report(runs, tmp_path, k=[1, 3])
    assert pd.read_csv(tmp_path / "curve.csv", comment="#")["k"].tolist() == [1, 3]
    with pytest.raises(TypeError, match=r"give ks= only"):
        pk.report.write_report(runs, tmp_path, k=[1], ks=[1])


def test_each_report_table_carries_its_own_metadata(tmp_path):
    runs = pk.io.read_tau_bench(TAU_BENCH / "gpt-4o-airline.json")
    pk.report.write_report(runs, tmp_path, errors="exclude", n_resamples=200, method="percentile")

    def header(name):
        lines = (tmp_path / f"{name}.csv").read_text().splitlines()
        return dict(line[2:].split(": ", 1) for line in lines if line.startswith("# "))

    curve = header("curve")
    assert curve["interval method"] == "percentile"
    assert curve["bootstrap resamples"] == "200"
    assert curve["errored runs"] == "left out"
    for name in ("betabinom", "success_counts"):
        info = header(name)
        assert list(info) == ["tasks", "runs per task", "errored runs", "passk_lab", "date"]
        assert (info["tasks"], info["runs per task"]) == ("50", curve["runs per task"])
    errors = header("errors")  # both policies side by side: the runs recorded, no policy
    assert list(errors) == ["tasks", "runs per task", "passk_lab", "date"]
    assert errors["runs per task"] == "4"
    header, _ = Page((tmp_path / "report.html").read_text()).table("betabinom")
    assert header[:4] == ["tasks", "runs", "mean pass rate", "ICC"]


def test_a_grouped_reports_metadata_counts_each_task_once(grouped):
    runs = grouped.runs
    per_model = runs.groupby("model")["task"].nunique()
    fewest, most = int(per_model.min()), int(per_model.max())
    assert fewest < most  # gpt-4o's 50 tasks hold coin-a's 40 task ids
    said = f"tasks: {runs['task'].nunique()} ({fewest} to {most} per group, 2 groups)"
    lines = (grouped.out / "curve.csv").read_text().splitlines()
    assert lines[0] == f"# {said}"
    caption = (grouped.out / "curve.md").read_text().splitlines()[-1]
    assert caption.startswith(f"*{said}; ")
    for table in ("betabinom", "success_counts"):  # every table the report writes says so
        assert (grouped.out / f"{table}.csv").read_text().splitlines()[0] == f"# {said}"


def test_the_metadata_says_how_many_groups_ran_each_task():
    coin = pk.simulate_coin(p=0.85, tasks=30, k=5, seed=42)
    both = pd.concat([coin.assign(model="a"), coin.assign(model="b")], ignore_index=True)
    assert metadata(pk.reliability_curve(both, by="model"))["tasks"] == "30 (each run by 2 groups)"
    assert metadata(pk.reliability_curve(coin))["tasks"] == "30"


def test_the_report_module_loads_lazily_and_without_matplotlib():
    assert pk.report.export is export
    assert pk.report.__all__ == [
        "export",
        "labelled",
        "metadata",
        "to_html",
        "to_latex",
        "to_markdown",
        "write_report",
    ]
    code = (
        "import sys, passk_lab as pk; pk.report.export; "
        "assert 'matplotlib' not in sys.modules, 'matplotlib imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# --- what the user's data can hold --------------------------------------------------------


def test_markdown_shows_html_and_breaks_literally_and_keeps_the_table_whole():
    table = pd.DataFrame({"a|b": ["<b>x</b> & y", "two\nlines\r\nand\rmore", "back\\|slash"]})
    lines = to_markdown(table).splitlines()
    assert len(lines) == 2 + 3  # no cell broke a row
    cells = [line.strip("| ").rstrip() for line in lines]
    assert cells[0] == "a\\|b"
    assert cells[2:] == [
        "&lt;b&gt;x&lt;/b&gt; &amp; y",
        "two lines and more",
        "back\\\\\\|slash",  # the backslash doubled: it escapes nothing, and \| stays one pipe
    ]
    assert [line.count("|") - line.count("\\|") for line in lines] == [2] * 5


FORMULAS = ['=HYPERLINK("http://x")', "+1+1", "-2+3", "@SUM(A1)", "\tx"]


def test_csv_quotes_text_a_spreadsheet_would_run_and_leaves_numbers_alone(tmp_path):
    table = pd.DataFrame(
        {"model": [*FORMULAS, "gpt-4o"], "difference": [-0.5, -1.0, 0.0, 0.5, 1.0, -3.0]}
    )
    table["=sum"] = -1  # a header is text too
    back = pd.read_csv(export(table, tmp_path / "table.csv"), comment="#")
    assert back["model"].tolist() == [*(f"'{text}" for text in FORMULAS), "gpt-4o"]
    assert back["difference"].tolist() == table["difference"].tolist()  # -0.5 stays a number
    assert back.columns.tolist() == ["model", "difference", "'=sum"]
    assert back["'=sum"].tolist() == [-1] * 6
    # a carriage return too (not read back here: pandas writes a bare one unquoted)
    assert guard_formulas(pd.DataFrame({"x": ["\rx"]}))["x"].tolist() == ["'\rx"]
    raw = pd.read_csv(export(table, tmp_path / "raw.csv", formula_guard=False), comment="#")
    assert back.columns.tolist()[:2] == raw.columns.tolist()[:2]
    assert raw["model"].tolist() == table["model"].tolist()


def test_the_report_and_analyze_guard_their_csv_unless_told_not_to(tmp_path, capsys):
    path = tmp_path / "runs.csv"
    runs = pk.simulate_coin(tasks=2, k=2, seed=1)[["task", "run", "passed"]]
    runs.assign(model="=1+1").to_csv(path, index=False)
    args = ["analyze", str(path), "--by", "model", "--to", "csv"]
    assert main(args) == 0
    assert capsys.readouterr().out.splitlines()[1].startswith("'=1+1,1,")
    assert main([*args, "--no-formula-guard"]) == 0
    assert capsys.readouterr().out.splitlines()[1].startswith("=1+1,1,")
    written = pk.report.write_report(runs.assign(model="=1+1"), tmp_path / "out", by="model")
    assert pd.read_csv(written[0], comment="#")["model"].unique().tolist() == ["'=1+1"]


def test_report_refuses_a_folder_it_did_not_write_unless_forced(tmp_path, capsys):
    runs = pk.simulate_coin(tasks=2, k=2, seed=1)
    path = tmp_path / "runs.csv"
    runs.to_csv(path, index=False)
    out = tmp_path / "mine"
    out.mkdir()
    (out / "curve.csv").write_text("my own numbers\n")
    with pytest.raises(SystemExit) as exited:
        main(["report", str(path), "--out", str(out)])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert f"out={str(out)!r} holds files no passk_lab report wrote (curve.csv)" in err
    assert "--force" in err
    assert (out / "curve.csv").read_text() == "my own numbers\n"
    with pytest.raises(ValueError, match="holds files no passk_lab report wrote"):
        pk.report.write_report(runs, out)
    assert main(["report", str(path), "--out", str(out), "--force"]) == 0
    assert (out / "curve.csv").read_text().startswith("# tasks: 2")


def test_report_replaces_its_own_files_and_removes_its_stale_ones(tmp_path, no_figures):
    out = tmp_path / "out"
    runs = pk.simulate_coin(tasks=2, k=2, seed=1)[["task", "run", "passed"]]  # records no errors
    errored = runs.assign(passed=[False, True, True, True], error=["RateLimitError", *[None] * 3])
    first = pk.report.write_report(errored, out)
    assert "errors.csv" in {path.name for path in first}
    (out / "notes.txt").write_text("mine\n")  # a file of the user's, beside the report
    second = pk.report.write_report(runs, out)  # the folder is the first report's: no force
    names = {path.name for path in second}
    assert "errors.csv" not in names
    assert {path.name for path in out.iterdir()} == names | {".passk-report.json", "notes.txt"}
    manifest = json.loads((out / ".passk-report.json").read_text())
    assert manifest["files"] == sorted(names)


def test_a_folder_holding_another_inputs_report_is_refused_unless_forced(
    tmp_path, capsys, no_figures
):
    runs = pk.simulate_coin(tasks=2, k=2, seed=1)[["task", "run", "passed"]]
    first, second = tmp_path / "a" / "runs.csv", tmp_path / "b" / "runs.csv"
    for path in (first, second):
        path.parent.mkdir()
        runs.to_csv(path, index=False)
    out = tmp_path / "report"
    pk.report.write_report(runs, out, source=first, n_resamples=200)
    manifest = json.loads((out / ".passk-report.json").read_text())
    assert manifest["source"] == str(first.resolve())  # the whole path; the page names the file
    assert "<h1>Reliability report: runs.csv</h1>" in (out / "report.html").read_text()
    pk.report.write_report(runs, out, source=first, n_resamples=200)  # its own: replaced
    refused = r"holds the report of .*a/runs\.csv, not of .*b/runs\.csv"
    with pytest.raises(ValueError, match=refused):
        pk.report.write_report(runs, out, source=second, n_resamples=200)
    pk.report.write_report(runs, out, source=second, n_resamples=200, force=True)
    assert json.loads((out / ".passk-report.json").read_text())["source"] == str(second.resolve())
    # the command line names each input by its path: the same default folder refuses the second
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        assert main(["report", str(first), "--resamples", "200"]) == 0
        with pytest.raises(SystemExit) as exited:
            main(["report", str(second), "--resamples", "200"])
    assert exited.value.code == 2
    assert "holds the report of" in capsys.readouterr().err


def test_every_group_gets_its_own_short_file_name_in_any_case():
    groups = ["gpt 4", "gpt/4", "g" * 300, "g" * 299 + "h", "plain-name", "GPT_4", "gpt_4"]
    named = slugs([(name,) for name in groups], ["model"])
    assert len({slug.lower() for slug in named}) == len(groups)  # macOS and Windows too
    assert named[4] == "model-plain-name"  # a name a file can hold is kept as it is
    for slug in [*named[:4], *named[5:]]:
        assert re.fullmatch(r"model-[\w.=-]+-[0-9a-f]{10}", slug)
    assert max(map(len, named)) <= 56


def test_report_gives_every_group_its_own_short_file_names(tmp_path, no_figures):
    groups = ["GPT_4", "gpt_4"]  # one file on a file system that ignores case, unless hashed
    runs = pd.concat(
        [
            pk.simulate_coin(tasks=2, k=2, seed=seed).assign(model=name)
            for seed, name in enumerate(groups)
        ]
    )
    written = pk.report.write_report(runs, tmp_path, by="model")
    assert len({path.name.lower() for path in written}) == len(written)
    heatmaps = [path.name for path in written if path.name.startswith("outcome_heatmap")]
    assert len(heatmaps) == 2 * len(groups)  # a PNG and an SVG for every group
    assert {path.name for path in tmp_path.iterdir()} == {
        *(path.name for path in written),
        ".passk-report.json",
    }


def test_a_report_of_many_runs_shows_every_k_to_20_then_a_1_2_5_series(tmp_path):
    runs = pk.simulate_coin(p=0.9, tasks=3, k=60, seed=1)
    pk.report.write_report(runs, tmp_path)
    shown = [*range(1, 21), 50, 60]  # and the largest n; past it only predictions, not tabled
    curve = pd.read_csv(tmp_path / "curve.csv", comment="#")
    assert curve["k"].tolist() == shown
    expected = pk.reliability_curve(runs, shown)
    np.testing.assert_allclose(curve["pass_pow_k"], expected["pass_pow_k"], rtol=1e-12)
    _, rows = Page((tmp_path / "report.html").read_text()).table("curve")
    assert [int(row[0]) for row in rows] == shown


# --- costs -------------------------------------------------------------------------------


def priced_runs():
    """One agent of 12 tasks x 4 runs; what each run cost, one run with no cost recorded."""
    runs = pk.simulate_coin(p=0.7, tasks=12, k=4, seed=42).assign(model="a")
    runs["cost_usd"] = 0.01 * (runs["run"] + 1) + 0.001 * runs["task"]
    runs.loc[3, "cost_usd"] = np.nan
    runs["cost_tokens"] = 1000.0 + 10 * runs["task"]
    return runs


def test_report_of_runs_with_costs_has_a_cost_section_per_agent_and_cost(tmp_path):
    runs = priced_runs()  # one group: two would draw two more plots, slowly
    written = pk.report.write_report(runs, tmp_path, by="model", n_resamples=200)
    names = {path.name for path in written}
    assert {"costs.csv", "costs.md"} <= names
    listed = json.loads((tmp_path / ".passk-report.json").read_text())["files"]
    assert {"costs.csv", "costs.md"} <= set(listed)
    curve = pd.read_csv(tmp_path / "curve.csv", comment="#")
    assert not [name for name in curve.columns if "cost" in name or "per" in name]
    # every figure, from a plain loop over the agents, their tasks and k
    table = pd.read_csv(tmp_path / "costs.csv", comment="#")
    readings = []
    for model, agent in runs.groupby("model", sort=False):
        tasks = agent.groupby("task")
        passes = tasks["passed"].sum().tolist()
        for k in range(1, 5):
            row = table[(table["model"] == model) & (table["k"] == k)].iloc[0]
            pow_k = np.mean([math.comb(c, k) / math.comb(4, k) for c in passes])
            assert row["pass_pow_k"] == pytest.approx(pow_k, rel=1e-12)
            for unit in ("usd", "tokens"):
                cost = k * tasks[f"cost_{unit}"].mean().mean()  # the task means' mean
                assert row[f"cost_{unit}"] == pytest.approx(cost, rel=1e-12)
                assert row[f"cost_{unit}_per_pass_pow_k"] == pytest.approx(cost / pow_k, rel=1e-12)
                assert row[f"pass_pow_k_per_{unit}"] == pytest.approx(pow_k / cost, rel=1e-12)
                if k == 4 and unit == "usd":
                    readings.append(
                        f"For model {model}, at k = 4, each task that passes all 4 runs costs "
                        f"{cost / pow_k:.3g} in usd: 4 runs of a task cost {cost:.3g} usd, and "
                        f"pass<sup>4</sup> is {pow_k:.3g}. {len(agent) - 1} of {len(agent)} runs "
                        "recorded a cost; a task's cost is the mean of its runs that did."
                    )
    assert table.columns.tolist() == [
        "model", "k", "pass_pow_k",
        "cost_usd", "cost_usd_per_pass_pow_k", "pass_pow_k_per_usd",
        "cost_tokens", "cost_tokens_per_pass_pow_k", "pass_pow_k_per_tokens",
    ]  # fmt: skip
    markdown = (tmp_path / "costs.md").read_text()
    assert "| cost of k runs (usd) | cost per pass^k task (usd) | pass^k per usd |" in markdown
    text = (tmp_path / "report.html").read_text()
    assert "Cost" in Page(text).headings
    for reading in readings:
        assert reading in text
    _, rows = Page(text).table("costs")  # usd's: three significant digits, as read
    usd = table["cost_usd"].tolist()
    # three significant digits of the value to 12 digits, so float noise rounds no way
    assert [row[2] for row in rows] == [f"{float(f'{value:.12g}'):.3g}" for value in usd]
    shown = re.findall(r"<h3>(Cost in [^<]*)</h3>", text)
    assert shown == [
        "Cost in usd (model a)",
        "Cost in tokens (model a)",
    ]


def test_report_of_runs_without_costs_has_no_cost_section(tau_report):
    assert not list(tau_report.glob("costs.*"))
    assert "Cost" not in Page((tau_report / "report.html").read_text()).headings


def fit_of(counts, n):
    """A fit's one-row frame, of tasks that passed `counts` of `n` runs each."""
    tasks = pd.DataFrame({"task": range(len(counts)), "n": n, "c": counts})
    return pk.fit_betabinom(tasks).to_frame()


def test_an_inflated_fit_of_alike_tasks_reads_its_point_masses_first():
    fit = fit_of([0] * 12 + [2] * 3 + [3] * 6 + [4] * 4 + [5] * 3 + [6] * 12, 6)
    row = fit.iloc[0]
    assert row["fitted_model"] == "inflated"
    assert math.isinf(row["alpha"])
    never, always = f"{row['zero_share']:.0%}", f"{row['one_share']:.0%}"
    section = fit_section(fit)
    assert (
        f"<p>{never} of tasks never pass, {always} always pass; the rest pass alike, each run "
        f"with chance {row['mean']:.3f}.</p>"
    ) in section
    assert "look alike" not in section
    header, rows = Page(section).table("betabinom")
    assert rows[0][header.index("model fitted")] == "zero/one-inflated binomial"
    counts = [0] * 12 + [2] * 3 + [3] * 6 + [4] * 4 + [5] * 3 + [6] * 12
    pass_rate = sum(counts) / (6 * len(counts))  # the data's, which this fit reproduces
    assert float(rows[0][header.index("mean pass rate")]) == pytest.approx(pass_rate, abs=5e-4)
    assert "ICC of the rest" in header
    assert {"never pass", "always pass"} <= set(Page(section).tables[1][0])


def test_a_fit_of_one_run_per_task_says_it_cannot_tell_and_shows_no_nan():
    runs = pk.simulate_coin(p=0.6, tasks=30, k=1, seed=3)
    fit = pk.fit_betabinom(runs).to_frame()
    assert math.isnan(fit.loc[0, "alpha"])
    section = fit_section(fit)
    assert (
        "<p>With 1 run per task the fit cannot tell whether tasks differ in difficulty: pass@1 "
        f"is {runs['passed'].mean():.3f}.</p>"
    ) in section
    assert "look alike" not in section
    header, rows = Page(section).table("betabinom")
    assert not [cell for cell in rows[0] if "nan" in cell.lower()]
    assert rows[0][header.index("\N{GREEK SMALL LETTER ALPHA}")] == "\N{EM DASH}"


def test_a_fit_with_infinite_shapes_is_named_the_binomial_beside_its_sentence():
    fit = pk.fit_betabinom(pk.simulate_coin(seed=42)).to_frame()
    assert math.isinf(fit.loc[0, "alpha"])
    section = fit_section(fit)
    header, rows = Page(section).table("betabinom")
    assert rows[0][header.index("model fitted")] == "binomial"
    assert "the best fit is the binomial" in section


def fit_section(fit):
    """The fit's section of a page without groups: its table, its sentence, its details."""
    shown = fit_tables(fit, [], [""])
    readings = [f"<p>{reading}</p>" for reading in shown.readings]
    return "\n".join(
        ['<h2 id="betabinom">fit</h2>', _table(shown.shown), *readings, _table(shown.details)]
    )


def test_under_exclude_the_coverage_table_counts_the_runs_the_tables_count():
    runs = mixed_runs()
    given = checked(runs, "model", "exclude", None)
    recorded = given.recorded.to_frame()
    _, table = coverage(recorded, given.summary.to_frame(), ["model"], "exclude")
    for _, row in table.iterrows():
        agent = runs[runs["model"] == row["model"]]
        kept = agent[agent["error"].isna()]  # the runs the tables count
        per_task = kept.groupby("task").size()
        assert row["runs"] == len(kept)
        assert row["tasks"] == kept["task"].nunique()
        assert row["runs left out"] == agent["error"].notna().sum()
        assert row["tasks left out"] == agent["task"].nunique() - kept["task"].nunique()
        fewest, most = per_task.min(), per_task.max()
        assert row["runs per task"] == (str(most) if fewest == most else f"{fewest} to {most}")
    assert table["runs left out"].any()


@pytest.mark.parametrize(
    ("by", "count", "said"),
    [
        (["model"], 2, "both models"),
        (["model"], 3, "all 3 models"),
        (["user_model"], 2, "both groups (user_model)"),
        (["model", "domain"], 6, "all 6 groups (model, domain)"),
    ],
)
def test_the_groups_are_named_as_a_reader_counts_them(by, count, said):
    assert groups_named(by, count) == said


def test_groups_that_share_no_task_are_said_so_not_counted_as_zero():
    runs = pd.concat(
        [
            pk.simulate_coin(p=0.8, tasks=4, k=2, seed=1).assign(model="a"),
            pk.simulate_coin(p=0.6, tasks=4, k=2, seed=2).assign(
                model="b", task=lambda t: t.task + 4
            ),
        ]
    )
    given = checked(runs, "model", "fail", None)
    said, _ = coverage(given.recorded.to_frame(), given.summary.to_frame(), ["model"], "fail")
    assert said == "8 tasks; no task is run by both models; 16 runs in all"


def test_the_note_without_a_heatmap_says_what_the_report_was_given():
    runs = pk.simulate_coin(tasks=4, k=2, seed=1)

    def given(data):
        return checked(data, None, "fail", None).without_runs

    assert given(pk.tally(runs)) == "a tally"
    matrix = pd.DataFrame(np.ones((3, 2), dtype=bool), index=pd.Index(range(3), name="task"))
    assert given(matrix) == "an outcome matrix"
    assert given(np.ones((3, 2), dtype=bool)) == "an outcome matrix"


def test_one_number_rounds_one_way_whatever_its_float_noise():
    noisy = [0.5425, np.nextafter(0.5425, 1.0), np.nextafter(0.5425, 0.0)]
    cells = [row[0] for row in rows(pd.DataFrame({"x": noisy}), 3)]
    assert len(set(cells)) == 1
    ends = pd.DataFrame({"x": noisy, "x_low": noisy, "x_high": noisy})
    shown = labelled(ends)
    assert len(set(shown["x CI"])) == 1
    assert shown["x CI"].iloc[0] == f"[{cells[0]}, {cells[0]}]"
    assert len({num(value, ".3g") for value in noisy}) == 1


def test_p_values_read_alike_in_tables_sentences_and_summaries():
    fit = fit_of([0] * 3 + [1] * 4 + [2] * 5 + [3] * 4 + [4] * 4, 4)
    shown = labelled(fit)
    value = fit.loc[0, "lr_pvalue"]
    assert shown.loc[0, "tasks alike p"] == f"{value:#.2g}"  # two digits, trailing zeros kept
    assert p_value_text(0.1) == "0.10"
    assert p_value_text(1.0) == "1.0"
    assert p_value_text(2.8e-09) == "2.8e-09"


def test_a_table_with_no_interval_keeps_one_row_of_names():
    page = _table(pd.DataFrame({"model": ["a"], "tasks": [3]}))
    assert "<tr></tr>" not in page
    assert page.count("<tr>") == 2  # the names, and the one row
    assert 'rowspan="2"' not in page


@pytest.fixture(scope="module")
def tau2_like(tmp_path_factory):
    """A tau2-like report: agent errors, a termination reason, a long file name, a rare cost."""
    runs = pk.simulate_coin(p=0.7, tasks=8, k=3, seed=7)
    runs["error"] = None
    runs["error_kind"] = None
    ended = [1, 5, 9]
    runs.loc[ended, ["error", "error_kind", "passed"]] = ["max_steps", "agent", False]
    runs["termination_reason"] = "user_stop"
    runs.loc[ended, "termination_reason"] = "max_steps"
    name = "gpt-4.1-2025-04-14_telecom_no-user_gpt-4.1-2025-04-14_4trials_5tasks_long.json"
    runs["file"] = name
    runs["cost_usd"] = np.nan
    runs.loc[0, "cost_usd"] = 0.0
    folder = tmp_path_factory.mktemp("tau2_like")
    pk.report.write_report(runs, folder, source=name, ks=[1, 3], n_resamples=200)
    return SimpleNamespace(runs=runs, text=(folder / "report.html").read_text(), name=name)


def test_runs_that_ended_on_the_agents_error_are_counted_and_not_called_no_error(tau2_like):
    page = Page(tau2_like.text)
    assert (
        "3 runs ended on the agent's own error (error_kind 'agent'): such a run measured the "
        "agent, and counts as a failed run under either error policy."
    ) in page.paragraphs
    assert "No run errored or timed out." not in page.paragraphs
    assert "No other run errored or timed out." in page.paragraphs


def test_a_long_file_name_is_listed_once_and_a_runs_outcome_is_not_described(tau2_like):
    text = tau2_like.text
    assert text.count("<dt>file</dt>") == 0  # the input line names it already
    assert "<dt>termination_reason</dt>" not in text
    assert f"<dt>input</dt><dd>{tau2_like.name}</dd>" in text


def test_a_cost_few_runs_recorded_is_said_and_prices_nothing(tau2_like):
    page = Page(tau2_like.text)
    runs = len(tau2_like.runs)
    assert (
        f"Only 1 of {runs} runs recorded a cost in usd: too few to price passk, so no table is "
        "shown (costs.csv holds the figures)."
    ) in page.paragraphs
    assert "all 1 run" not in tau2_like.text
    assert "\N{INFINITY}" not in tau2_like.text.split('id="costs"')[1]


def test_predictions_that_stop_at_the_ks_asked_are_not_said_to_go_past_them(tau2_like, coin_report):
    assert "Both go past" not in tau2_like.text  # k = 1, 3 of 3 runs: predicted to 3 alone
    assert "Both go past the ks measured, to k = 10." in coin_report[2]


def test_no_table_on_the_page_has_an_empty_header_row(tau2_like, grouped):
    for text in (tau2_like.text, grouped.text):
        assert "<tr></tr>" not in text


def test_an_inflated_fits_expected_counts_are_not_headed_beta_binomial():
    counts = pk.success_counts(pd.DataFrame({"task": range(4), "n": 3, "c": [0, 3, 1, 2]}))
    assert "fit expected" in labelled(counts).columns
    assert not [name for name in labelled(counts).columns if "beta-binomial" in name]
