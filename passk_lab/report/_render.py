"""Tables rendered for people: Markdown, LaTeX and HTML, their text escaped, numbers rounded.

Each renderer takes any DataFrame and writes every cell as :mod:`passk_lab._numbers`
writes numbers, so that a table reads the same in every format: fixed decimals, an
empty cell for NaN, ``∞`` for infinity; and escapes text so that a cell is shown as
it is, never run as markup.
"""

from __future__ import annotations

import html
import itertools
import re

import numpy as np
import pandas as pd

from passk_lab._numbers import fixed

__all__ = [
    "html_text",
    "latex_text",
    "numeric_columns",
    "rows",
    "to_html",
    "to_latex",
    "to_markdown",
]


def _cell(value: object, digits: int) -> str:
    if isinstance(value, (float, np.floating)):
        return fixed(float(value), digits)
    if value is None or value is pd.NA:
        return ""
    return str(value)


def numeric_columns(frame: pd.DataFrame) -> list[bool]:
    """Tell, per column, whether it holds numbers (set right-aligned)."""
    return [pd.api.types.is_numeric_dtype(dtype) for dtype in frame.dtypes]


def rows(frame: pd.DataFrame, digits: int) -> list[list[str]]:
    """Return every cell of `frame` as its text, row by row, numbers to `digits` decimals."""
    return [[_cell(value, digits) for value in row] for row in frame.itertuples(index=False)]


_MARKDOWN_ESCAPES = {"\\": "\\\\", "|": "\\|", "<": "&lt;", ">": "&gt;", "&": "&amp;"}
_MARKDOWN_SPECIAL = re.compile(r"[\\|<>&]|\r\n|[\r\n]")


def _markdown_text(text: str) -> str:
    r"""Escape `text` for a Markdown table cell: shown literally, and the table kept whole.

    A ``|`` would end the cell and a line break the row, so ``|`` becomes
    ``\|`` and a line break a space; ``<``, ``>`` and ``&`` become entities, so
    that no renderer runs them as HTML; a backslash is doubled, so it escapes
    nothing.
    """
    return _MARKDOWN_SPECIAL.sub(lambda match: _MARKDOWN_ESCAPES.get(match.group(), " "), text)


def to_markdown(frame: pd.DataFrame, *, digits: int = 4) -> str:
    r"""Render a DataFrame as a GitHub-flavoured Markdown table, without the index.

    Parameters
    ----------
    frame : DataFrame
        The table; its columns become the header.
    digits : int
        Decimals for floating-point cells; missing values print as empty cells.

    Returns
    -------
    str
        The table, one line per row, numbers right-aligned. Text is shown as
        it is: in a cell or a header ``|`` becomes ``\|``, a line break a
        space, ``<``, ``>`` and ``&`` HTML entities, and ``\`` is doubled, so
        that neither a renderer's HTML nor a stray ``|`` changes the table.

    Examples
    --------
    >>> import pandas as pd
    >>> print(to_markdown(pd.DataFrame({"k": [1, 2], "pass_pow_k": [0.86, 0.735]}), digits=3))
    | k | pass_pow_k |
    |--:|-----------:|
    | 1 |      0.860 |
    | 2 |      0.735 |
    >>> print(to_markdown(pd.DataFrame({"model": ["<b>a|b</b>"]})))
    | model                   |
    |-------------------------|
    | &lt;b&gt;a\|b&lt;/b&gt; |
    """
    header = [_markdown_text(str(name)) for name in frame.columns]
    cells = [[_markdown_text(cell) for cell in row] for row in rows(frame, digits)]
    numeric = numeric_columns(frame)
    widths = [max([len(name)] + [len(row[j]) for row in cells]) for j, name in enumerate(header)]

    def line(cells: list[str]) -> str:
        padded = [
            cell.rjust(width) if right else cell.ljust(width)
            for cell, width, right in zip(cells, widths, numeric, strict=True)
        ]
        return "| " + " | ".join(padded) + " |"

    rule = [
        "-" * (width + 1) + ":" if right else "-" * (width + 2)
        for width, right in zip(widths, numeric, strict=True)
    ]
    return "\n".join([line(header), "|" + "|".join(rule) + "|", *map(line, cells)])


_LATEX_ESCAPES = {char: "\\" + char for char in "&%$#_{}"} | {
    "^k": "$^k$",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "\\": r"\textbackslash{}",
    "<": "$<$",
    ">": "$>$",
    "\N{INFINITY}": r"$\infty$",
    "\N{GREEK SMALL LETTER ALPHA}": r"$\alpha$",
    "\N{GREEK SMALL LETTER BETA}": r"$\beta$",
    "\N{GREEK SMALL LETTER CHI}\N{SUPERSCRIPT TWO}": r"$\chi^2$",
    "\N{GREEK SMALL LETTER CHI}": r"$\chi$",
    "\N{SUPERSCRIPT TWO}": "$^2$",
    "\N{MULTIPLICATION SIGN}": r"$\times$",
    "\N{MINUS SIGN}": "$-$",
    "\N{LESS-THAN OR EQUAL TO}": r"$\le$",
    "\N{GREATER-THAN OR EQUAL TO}": r"$\ge$",
}
"""What each character LaTeX treats specially, or pdflatex's text fonts lack, is written as."""

_LATEX_SPECIAL = re.compile("|".join(map(re.escape, sorted(_LATEX_ESCAPES, key=len, reverse=True))))


def latex_text(text: str) -> str:
    r"""Escape `text` for pdflatex: special characters, ``^k`` and symbols set in math mode.

    A leading ``[`` is braced, so that after a row's ``\\`` it is not read as
    the optional argument of the line break.

    Parameters
    ----------
    text : str
        A cell, a label or a caption.

    Returns
    -------
    str
        `text` as LaTeX writes it, for a ``tabular`` compiled by pdflatex.

    Examples
    --------
    >>> print(latex_text("[0.1, 0.2] of 95% of pass^k, <0.001"))
    {[}0.1, 0.2] of 95\% of pass$^k$, $<$0.001
    """
    escaped = _LATEX_SPECIAL.sub(lambda match: _LATEX_ESCAPES[match.group()], text)
    return "{[}" + escaped[1:] if escaped.startswith("[") else escaped


def to_latex(frame: pd.DataFrame, *, digits: int = 3, caption: str | None = None) -> str:
    r"""Render a DataFrame as a LaTeX ``table`` with a booktabs ``tabular``, without the index.

    Parameters
    ----------
    frame : DataFrame
        The table; its columns become the header.
    digits : int
        Decimals for floating-point cells; missing values print as empty cells.
    caption : str, optional
        The table's caption.

    Returns
    -------
    str
        LaTeX source; it needs ``\usepackage{booktabs}``. Special characters
        are escaped and ``^k`` in a cell or header is set as a superscript.

    Examples
    --------
    >>> import pandas as pd
    >>> print(to_latex(pd.DataFrame({"k": [5], "pass^k": [0.45]}), caption="40 tasks"))
    \begin{table}
    \centering
    \caption{40 tasks}
    \begin{tabular}{rr}
    \toprule
    k & pass$^k$ \\
    \midrule
    5 & 0.450 \\
    \bottomrule
    \end{tabular}
    \end{table}
    """
    align = "".join("r" if right else "l" for right in numeric_columns(frame))
    lines = [r"\begin{table}", r"\centering"]
    if caption:
        lines.append(rf"\caption{{{latex_text(caption)}}}")
    lines += [rf"\begin{{tabular}}{{{align}}}", r"\toprule"]
    lines.append(" & ".join(latex_text(str(name)) for name in frame.columns) + r" \\")
    lines.append(r"\midrule")
    lines += [" & ".join(map(latex_text, row)) + r" \\" for row in rows(frame, digits)]
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines)


def html_text(text: str) -> str:
    """Escape `text` for HTML and set ``^k`` as a superscript.

    Examples
    --------
    >>> html_text("pass^k <= pass@1")
    'pass<sup>k</sup> &lt;= pass@1'
    """
    return "<sup>k</sup>".join(html.escape(part) for part in text.split("^k"))


_NUMBER_TEXT = re.compile(r"[-+\N{MINUS SIGN}]?(\d[\d,]*(\.\d*)?([eE][-+]?\d+)?|\N{INFINITY})")


def _numbers_as_text(column: pd.Series) -> bool:
    """Whether a text column holds only numbers written out (``0.19``, ``2.8e-09``, ``∞``)."""
    if pd.api.types.is_numeric_dtype(column.dtype):
        return False
    cells = [str(value) for value in column if isinstance(value, str) and value]
    return bool(cells) and all(_NUMBER_TEXT.fullmatch(cell) for cell in cells)


def _html_header(columns: pd.Index) -> str:
    """Return a table's header rows: one, or two for two levels of column names.

    Under two levels a run of columns sharing a top name has it once, spanning
    them, over their own names; a column whose second name is empty has its
    top name alone, over both rows.
    """
    if columns.nlevels == 1:
        return "<tr>" + "".join(f"<th>{html_text(str(name))}</th>" for name in columns) + "</tr>"
    if columns.nlevels != 2:
        raise ValueError(
            f"to_html renders one or two levels of column names, got {columns.nlevels}; "
            "join the names of the others into these"
        )
    top, below = [], []
    for name, run in itertools.groupby(columns, key=lambda pair: pair[0]):
        subs = [str(sub) for _, sub in run]
        if subs == [""]:
            top.append(f'<th rowspan="2">{html_text(str(name))}</th>')
            continue
        top.append(f'<th colspan="{len(subs)}">{html_text(str(name))}</th>')
        below += [f"<th>{html_text(sub)}</th>" for sub in subs]
    return f"<tr>{''.join(top)}</tr><tr>{''.join(below)}</tr>"


def to_html(frame: pd.DataFrame, *, digits: int = 3, caption: str | None = None) -> str:
    """Render a DataFrame as an HTML ``<table>`` fragment, without the index.

    Parameters
    ----------
    frame : DataFrame
        The table; its columns become the header. Columns of two levels
        (a ``MultiIndex``) get two header rows: a top name spans the run of
        columns that share it, over their own names, and a column whose
        second name is ``""`` has its top name over both rows.
    digits : int
        Decimals for floating-point cells; missing values print as empty cells.
    caption : str, optional
        The table's caption.

    Returns
    -------
    str
        The table, text escaped, numbers right-aligned (and text columns
        that hold only numbers written out, such as p-values to two digits)
        and ``^k`` set as a superscript; it needs no stylesheet.

    Examples
    --------
    >>> import pandas as pd
    >>> print(to_html(pd.DataFrame({"k": [5], "pass^k": [0.45]})))
    <table>
    <thead><tr><th>k</th><th>pass<sup>k</sup></th></tr></thead>
    <tbody>
    <tr><td style="text-align:right">5</td><td style="text-align:right">0.450</td></tr>
    </tbody>
    </table>

    An interval under the name of its estimate:

    >>> pairs = [("k", ""), ("pass^k", "estimate"), ("pass^k", "95% CI")]
    >>> columns = pd.MultiIndex.from_tuples(pairs)
    >>> table = pd.DataFrame([[5, 0.45, "[0.293, 0.615]"]], columns=columns)
    >>> to_html(table).splitlines()[1].split("</tr>")  # doctest: +NORMALIZE_WHITESPACE
    ['<thead><tr><th rowspan="2">k</th><th colspan="2">pass<sup>k</sup></th>',
     '<tr><th>estimate</th><th>95% CI</th>', '</thead>']
    """
    numeric = [
        right or _numbers_as_text(frame.iloc[:, j])
        for j, right in enumerate(numeric_columns(frame))
    ]
    lines = ["<table>"]
    if caption:
        lines.append(f"<caption>{html_text(caption)}</caption>")
    lines += [f"<thead>{_html_header(frame.columns)}</thead>", "<tbody>"]
    for row in rows(frame, digits):
        cells = "".join(
            f'<td style="text-align:{"right" if right else "left"}">{html_text(cell)}</td>'
            for cell, right in zip(row, numeric, strict=True)
        )
        lines.append(f"<tr>{cells}</tr>")
    lines += ["</tbody>", "</table>"]
    return "\n".join(lines)
