"""pk.styled: result tables as a Styler with labels, rounded numbers and no index."""

from __future__ import annotations

import importlib.util
import re

import numpy as np
import pandas as pd
import pytest

import passk_lab as pk
from passk_lab._labels import interval_label, label
from passk_lab._numbers import fixed
from passk_lab.report import labelled
from passk_lab.report._render import html_text

EXPONENT = re.compile(r"\d[eE][+-]?\d")


@pytest.fixture(scope="module")
def curve() -> pd.DataFrame:
    return pk.reliability_curve(pk.simulate_coin(seed=42))


@pytest.fixture(scope="module")
def agents() -> pd.DataFrame:
    return pd.concat(
        [
            pk.simulate_coin(p=0.8, seed=1).assign(model="a"),
            pk.simulate_coin(p=0.7, seed=2).assign(model="<b>x</b>&"),
        ],
        ignore_index=True,
    )


def _grid(html: str) -> tuple[list[str], list[list[str]]]:
    """The header cells and the body rows of a Styler's HTML, as the reader sees them."""
    headers = re.findall(r'<th [^>]*class="col_heading[^"]*" >(.*?)</th>', html)
    rows = [
        re.findall(r'<td [^>]*class="data[^"]*" >(.*?)</td>', row)
        for row in re.findall(r"<tr>(.*?)</tr>", html, flags=re.DOTALL)
        if "<td" in row
    ]
    return headers, rows


def _column(html: str, header: str) -> list[str]:
    headers, rows = _grid(html)
    at = headers.index(header)
    return [row[at] for row in rows]


def _shown(name: str, frame: pd.DataFrame | None = None) -> str:
    """The header a column gets in HTML: its label, or its interval's with `frame`'s level."""
    return html_text(label(name) if frame is None else f"{label(name)} {interval_label(frame)}")


def test_a_curve_reads_with_labels_rounded_numbers_and_no_exponent(curve: pd.DataFrame) -> None:
    html = pk.styled(curve).to_html()
    headers, rows = _grid(html)
    assert "pass<sup>k</sup>" in headers
    assert "pass<sup>k</sup> 95% CI" in headers
    for name in ["k", "pass_pow_k", "pass_at_k", "n_tasks", "interval_method"]:
        assert _shown(name) in headers
    assert len(rows) == len(curve)
    assert not [cell for row in rows for cell in row if EXPONENT.search(cell)]
    assert _column(html, _shown("pass_pow_k")) == [f"{value:.3f}" for value in curve["pass_pow_k"]]
    assert _column(html, _shown("pass_pow_k", curve)) == [
        f"[{low:.3f}, {high:.3f}]"
        for low, high in zip(curve["pass_pow_k_low"], curve["pass_pow_k_high"], strict=True)
    ]
    assert _column(html, "k") == [str(k) for k in curve["k"]]
    assert _column(html, _shown("n_tasks")) == [str(n) for n in curve["n_tasks"]]
    assert 'class="row_heading' not in html  # the index is hidden


def test_a_comparison_reads_with_labels_and_no_exponent(agents: pd.DataFrame) -> None:
    a, b = (part for _, part in agents.groupby("model", sort=False))
    table = pk.compare(a.drop(columns="model"), b.drop(columns="model"))
    html = pk.styled(table).to_html()
    headers, rows = _grid(html)
    for name in ["value_a", "value_b", "difference", "n_tasks"]:
        assert _shown(name) in headers
    assert _shown("difference", table) in headers
    assert not [cell for row in rows for cell in row if EXPONENT.search(cell)]
    # as every table writes a number: settled to 12 digits, then rounded (0.0525 as 0.052)
    assert _column(html, _shown("difference")) == [fixed(value, 3) for value in table["difference"]]


def test_digits_sets_the_decimals(curve: pd.DataFrame) -> None:
    for digits in (0, 2, 5):
        html = pk.styled(curve, digits=digits).to_html()
        assert _column(html, _shown("pass_pow_k")) == [
            fixed(value, digits) for value in curve["pass_pow_k"]
        ]
        for cell in _column(html, _shown("pass_at_k", curve)):
            decimals = [
                len(end.split(".")[1]) if "." in end else 0 for end in cell[1:-1].split(", ")
            ]
            assert decimals == [digits, digits]


def test_counts_read_as_integers_and_p_values_with_two_significant_digits() -> None:
    table = pd.DataFrame(
        {
            "n_tasks": [5.000000e01, 1.2e3],  # whole floats of a count
            "runs": [3, 12],  # an integer column
            "share": [4.280636e-01, 1.0],
            "ones": [1.0, 0.0],  # whole but shares: keep their decimals
            "cost_usd": [2.0, 4.0],  # whole but not counts
            "p_value": [2.8e-09, 0.04251],
            "gap": [-0.0001, float("nan")],
        }
    )
    html = pk.styled(table).to_html()
    assert _column(html, _shown("n_tasks")) == ["50", "1200"]
    assert _column(html, _shown("runs")) == ["3", "12"]
    assert _column(html, "share") == ["0.428", "1.000"]
    assert _column(html, "ones") == ["1.000", "0.000"]
    assert _column(html, _shown("cost_usd")) == ["2.000", "4.000"]
    assert _column(html, _shown("p_value")) == ["2.8e-09", "0.043"]  # two significant digits
    assert _column(html, "gap") == ["0.000", ""]  # no negative zero; a missing value is empty
    assert _column(pk.styled(table, digits=4).to_html(), _shown("p_value")) == [
        "2.8e-09",
        "0.043",
    ]
    cells = re.findall(r">([^<]*)</td>", html.split("<tbody>")[1])  # not the Styler's random ids
    assert not [cell for cell in cells if EXPONENT.search(cell) and cell != "2.8e-09"]


def test_p_values_keep_two_significant_digits_at_any_digits() -> None:
    p_values = [2.8e-09, 0.04251, 0.1, 0.098, 1.0]
    table = pd.DataFrame({"share": [0.4286, 0.6, 0.2, 0.3, 0.4], "p_value": p_values})
    html = pk.styled(table, digits=0).to_html()
    assert _column(html, "share") == ["0", "1", "0", "0", "0"]
    # two significant digits, trailing zeros kept, no cut-off: as the report's tables show them
    assert _column(html, _shown("p_value")) == ["2.8e-09", "0.043", "0.10", "0.098", "1.0"]
    assert _column(html, _shown("p_value")) == labelled(table)["p"].tolist()


def test_a_share_column_with_a_missing_value_keeps_its_decimals() -> None:
    table = pd.DataFrame({"passed": [1.0, 0.0, float("nan")], "n_runs": [4.0, float("nan"), 2.0]})
    html = pk.styled(table).to_html()
    assert _column(html, "passed") == ["1.000", "0.000", ""]
    assert _column(html, _shown("n_runs")) == ["4", "", "2"]


def test_an_informative_index_is_shown_and_row_numbers_are_not(curve: pd.DataFrame) -> None:
    by_model = pd.DataFrame({"pass_pow_k": [0.5, 0.25]}, index=pd.Index(["a", "b"], name="model"))
    html = pk.styled(by_model).to_html()
    assert _column(html, "model") == ["a", "b"]
    assert _column(html, _shown("pass_pow_k")) == ["0.500", "0.250"]
    filtered = curve[curve["k"] > 2]  # row numbers from 2 on
    headers, _ = _grid(pk.styled(filtered).to_html())
    assert "index" not in headers
    assert headers[0] == "k"


def test_columns_it_cannot_show_are_refused_with_the_fix() -> None:
    twice = pd.DataFrame([[0.5, 0.25]], columns=["share", "share"])
    with pytest.raises(ValueError, match=r"\['share'\] appear more than once; rename"):
        pk.styled(twice)
    levels = pd.DataFrame([[0.5]], columns=pd.MultiIndex.from_tuples([("a", "share")]))
    with pytest.raises(ValueError, match="one level of column names, got 2; join them"):
        pk.styled(levels)


def test_a_grouped_table_shows_its_groups_as_they_are(agents: pd.DataFrame) -> None:
    board = pk.leaderboard(agents)
    html = pk.styled(board).to_html()
    assert _column(html, "model") == [
        value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        for value in board["model"]
    ]
    assert "<b>x</b>" not in html
    warm = agents.assign(temperature=agents["model"].map({"a": 0.7, "<b>x</b>&": 1.25}))
    by_temperature = pk.leaderboard(warm.drop(columns="model"), by="temperature")
    assert by_temperature.attrs["by"] == ["temperature"]
    shown = _column(pk.styled(by_temperature).to_html(), "temperature")
    assert shown == [str(value) for value in by_temperature["temperature"]]
    assert "0.7" in shown  # not 0.700


def test_the_columns_before_k_are_groups_shown_as_they_are() -> None:
    runs = pd.concat(
        [
            pk.simulate_coin(p=p, tasks=10, k=3, seed=seed).assign(temperature=t)
            for p, seed, t in [(0.8, 1, 0.5), (0.6, 2, 1.0)]
        ],
        ignore_index=True,
    )
    curve = pk.reliability_curve(runs, by="temperature")
    assert "by" not in curve.attrs  # only the column order says it is a group
    shown = _column(pk.styled(curve).to_html(), "temperature")
    assert shown == [str(value) for value in curve["temperature"]]
    assert {"0.5", "1.0"} == set(shown)  # as they are, not 0.500 or 1


def test_one_group_name_in_attrs_is_one_column() -> None:
    table = pd.DataFrame({"ab": [0.5], "b": [0.25]})
    table.attrs["by"] = "ab"
    html = pk.styled(table).to_html()
    assert _column(html, "ab") == ["0.5"]
    assert _column(html, "b") == ["0.250"]


def _caption(table: pd.DataFrame) -> list[str]:
    return re.findall(r"<caption>(.*?)</caption>", pk.styled(table).to_html())


def test_the_caption_gives_the_confidence_level(curve: pd.DataFrame) -> None:
    assert _caption(curve) == ["95% confidence intervals"]
    narrow = pk.reliability_curve(pk.simulate_coin(seed=42), confidence_level=0.9)
    assert _caption(narrow) == ["90% confidence intervals"]
    assert _caption(pd.DataFrame({"x": [1.5]})) == []


def test_latex_is_escaped_for_latex(agents: pd.DataFrame) -> None:
    board = pk.leaderboard(agents.assign(model=agents["model"].map({"a": "a_1"}).fillna("b&c")))
    latex = pk.styled(board, escape="latex").to_latex()
    assert r"pass$^k$ 95\% CI" in latex
    assert r"a\_1" in latex
    assert r"b\&c" in latex
    assert r"\caption{95\% confidence intervals}" in latex
    assert "nowrap" not in latex  # the HTML's styles stay out of the LaTeX
    assert "<sup>" not in latex
    assert not re.search(r"(?<!\\)[%_]", latex)  # every % and _ escaped
    assert [line for line in latex.splitlines() if line.endswith("rule")] == [
        r"\toprule",
        r"\midrule",
        r"\bottomrule",
    ]
    html_variant = pk.styled(board).to_latex()  # cells escaped for HTML: not LaTeX
    assert "<sup>" in html_variant
    assert pk.styled.__doc__ is not None
    assert 'style it with ``escape="latex"``' in " ".join(pk.styled.__doc__.split())


def test_latex_sets_what_pdflatex_has_no_glyph_for_in_math() -> None:
    runs = pk.simulate_coin(seed=42)
    rng = np.random.default_rng(5)
    mixed = rng.random((80, 6)) < rng.beta(2.0, 1.0, size=80)[:, None]
    fits = pd.concat([pk.fit_betabinom(runs).to_frame(), pk.fit_betabinom(mixed).to_frame()])
    latex = pk.styled(fits, escape="latex").to_latex()
    assert r"$\alpha$ & $\beta$" in latex
    assert r"fit $\chi^2$" in latex
    assert r"$\infty$ & $\infty$" in latex  # the alike tasks' shapes
    mixed_p = pk.fit_betabinom(mixed).lr_pvalue
    assert mixed_p < 1e-3
    assert f" {mixed_p:.1e} " in latex  # the mixed tasks' test of tasks alike, to 2 digits
    body = latex.split(r"\midrule")[1]
    assert not [char for char in body if ord(char) > 127 and char not in "\N{EN DASH}"]
    curve = pk.reliability_curve(runs, [5])
    first = curve[["pass_pow_k_low", "pass_pow_k_high", "k"]]
    rows = pk.styled(first, escape="latex").to_latex().split(r"\midrule")[1].splitlines()
    assert rows[1].startswith("{[}0.293, 0.615] & 5")  # not read as the \\ before it's argument


def test_the_input_is_left_as_it_was(curve: pd.DataFrame) -> None:
    before = curve.copy()
    pk.styled(curve).to_html()
    pd.testing.assert_frame_equal(curve, before)
    assert curve.attrs == before.attrs


def test_refusals() -> None:
    with pytest.raises(TypeError, match=r"DataFrame\), got list"):
        pk.styled([1, 2])  # type: ignore[arg-type]
    table = pd.DataFrame({"x": [1.5]})
    with pytest.raises(TypeError, match="digits must be an integer"):
        pk.styled(table, digits=1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="digits must be 0 or more"):
        pk.styled(table, digits=-1)
    with pytest.raises(ValueError, match="escape must be 'html' or 'latex'"):
        pk.styled(table, escape="markdown")  # type: ignore[arg-type]


def test_without_jinja2_the_error_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *args: None if name == "jinja2" else find_spec(name, *args),
    )
    with pytest.raises(ImportError, match="pip install jinja2"):
        pk.styled(pd.DataFrame({"x": [1.5]}))


def test_columns_named_by_numbers_are_shown_by_their_text():
    table = pd.DataFrame({0.9: [22, 45], 0.99: [0.5, 0.25]})  # say, runs needed at two levels
    html = pk.styled(table).to_html()
    assert ">0.9<" in html
    assert ">0.99<" in html
    assert ">0.500<" in html
    with pytest.raises(ValueError, match="appear more than once"):
        pk.styled(pd.DataFrame([[1, 2]], columns=[1, "1"]))


@pytest.mark.parametrize(
    "table",
    [
        lambda runs: pk.plan_evaluation(0.05, 0.85, 5),
        lambda runs: pk.variance_components(runs),
        lambda runs: pk.noise_floor(runs),
        lambda runs: pk.consistency(runs),
        lambda runs: pk.g_pass_at_k(runs, [1, 3], [0.5, "mean"]),
    ],
    ids=["plan_evaluation", "variance_components", "noise_floor", "consistency", "g_pass_at_k"],
)
def test_planning_and_variability_tables_read_with_labels(table) -> None:
    frame = table(pk.simulate_coin(tasks=10, k=3, seed=42))
    headers, _ = _grid(pk.styled(frame).to_html())
    assert len(headers) >= len(frame.columns) - 2  # every low and high pair is one column
    assert [header for header in headers if "_" in header] == []
