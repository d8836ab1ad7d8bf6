"""Result tables as a reader sees them in a notebook: a pandas Styler with labels and rounding."""

from __future__ import annotations

import importlib.util
import math
import numbers
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from passk_lab._checks import as_int
from passk_lab._choices import Escape
from passk_lab._labels import label
from passk_lab._numbers import fixed, level_text, p_value_text
from passk_lab.report._render import html_text, latex_text
from passk_lab.report._tables import P_VALUES, labelled

if TYPE_CHECKING:
    from pandas.io.formats.style import Styler
    from pandas.io.formats.style_render import CSSDict

__all__ = ["styled"]

_COUNTS = frozenset(
    {"k", "tasks", "runs", "successes", "passes", "failures", "errored", "timed_out", "count"}
    | {"gof_df", "tie_group", "rank", "rank_low", "rank_high"}
)
"""Names of count columns besides the prefixed and suffixed ones: whole numbers show as integers."""

_COUNT_PREFIXES = ("n_", "runs_", "tasks_", "min_runs", "max_runs")
_COUNT_SUFFIXES = ("_runs", "_tasks", "_count", "_counts")

_ESCAPES: dict[str, Callable[[str], str]] = {"html": html_text, "latex": latex_text}

_BOOKTABS: list[CSSDict] = [
    {"selector": rule, "props": f":{rule}"} for rule in ("toprule", "midrule", "bottomrule")
]
"""The Styler's table styles that draw booktabs rules in its LaTeX."""


def styled(table: pd.DataFrame, *, digits: int = 3, escape: Escape = "html") -> Styler:
    r"""Return a result table styled for reading: labels, rounded numbers, no index.

    Any table the library returns works, grouped ones too; docs/notebooks.md
    says how each kind of column reads. Shown in Jupyter it renders as HTML,
    and ``to_html()`` gives it as text; style it with ``escape="latex"`` for
    ``to_latex()`` (the default Styler escapes for HTML, which LaTeX cannot read).

    Parameters
    ----------
    table : pandas.DataFrame
        A result table. Columns get the report's labels (``pass^k``,
        ``pass@k``, ``tasks``, ...), each ``X_low``, ``X_high`` pair one
        ``"X 95% CI"`` column of ``[low, high]``; group columns and an
        informative index are shown as they are.
    digits : int
        Decimals of the numbers; counts show as integers and p-values with
        two significant digits whatever `digits` is.
    escape : {"html", "latex"}
        What the cells, labels and caption are escaped for. The LaTeX
        compiles under pdflatex with booktabs (``\usepackage{booktabs}``).

    Returns
    -------
    pandas.io.formats.style.Styler
        The labelled table with its display formats, its index hidden, and
        the confidence level as its caption when the table records one.

    Raises
    ------
    TypeError
        If `table` is not a DataFrame, or `digits` is not an integer.
    ValueError
        If `digits` is negative, `escape` is neither choice, or the columns
        have two levels or a name twice.
    ImportError
        If jinja2, which pandas' Styler renders with, is not installed.

    See Also
    --------
    passk_lab.report.export : Write a table to a file, with its metadata.

    Examples
    --------
    >>> import passk_lab as pk
    >>> curve = pk.reliability_curve(pk.simulate_coin(seed=42), [5])
    >>> shown = pk.styled(curve)
    >>> print(shown.caption)
    95% confidence intervals
    >>> html = shown.to_html()
    >>> "pass<sup>k</sup> 95% CI" in html, "[0.293, 0.615]" in html, "e-01" in html
    (True, True, False)
    >>> latex = pk.styled(curve, digits=2, escape="latex").to_latex()
    >>> print("\n".join(latex.splitlines()[:4]))
    \begin{table}
    \caption{95\% confidence intervals}
    \begin{tabular}{rrlrlrlrllrrrll}
    \toprule
    >>> r"pass$^k$ 95\% CI" in latex, " 0.45 " in latex, " {[}0.29, 0.62] " in latex
    (True, True, True)
    """
    if not isinstance(table, pd.DataFrame):
        raise TypeError(
            f"styled shows a result table (a pandas DataFrame), got {type(table).__name__}; "
            "a result object shows itself, or call its to_frame()"
        )
    places = as_int("digits", digits)
    if places < 0:
        raise ValueError(f"digits must be 0 or more (decimals to show), got {places}")
    if escape not in _ESCAPES:
        raise ValueError(f"escape must be 'html' or 'latex', got {escape!r}")
    if importlib.util.find_spec("jinja2") is None:
        raise ImportError(
            "styled needs jinja2, which pandas' Styler renders with: pip install jinja2"
        )
    frame = _flat(table)
    escaped = _ESCAPES[escape]
    shown = labelled(frame, digits=places).reset_index(drop=True)
    originals = {label(name): name for name in map(str, frame.columns)}
    for name in map(str, frame.columns):
        if name.endswith(P_VALUES) and label(name) in shown.columns:
            shown[label(name)] = pd.Series(
                [p_value_text(float(value)) for value in frame[name]],
                dtype="str",
            )
    groups = {label(name) for name in _group_names(frame)}
    formats: dict[object, Callable[[object], str] | str | None] = {
        name: _formatter(
            shown[name],
            places,
            escaped,
            as_text=name in groups,
            count=_is_count(originals.get(str(name), str(name))),
        )
        for name in shown.columns
    }
    style = (
        shown.style.format(formats)
        .format_index(lambda name: escaped(str(name)), axis=1)
        .hide(axis="index")
    )
    if escape == "latex":
        style = style.set_table_styles(_BOOKTABS)
    else:
        style = style.set_table_attributes('style="white-space: nowrap"')  # one-line intervals
    level = frame.attrs.get("confidence_level")
    if isinstance(level, float):
        style = style.set_caption(escaped(f"{level_text(level)} confidence intervals"))
    return style


def _flat(table: pd.DataFrame) -> pd.DataFrame:
    """Return `table` with one level of distinct column names, an informative index as columns."""
    if table.columns.nlevels > 1:
        raise ValueError(
            f"styled shows one level of column names, got {table.columns.nlevels}; join them "
            "first, e.g. table.columns = [' '.join(map(str, name)) for name in table.columns]"
        )
    index = table.index
    numbered = index.nlevels == 1 and index.name is None and pd.api.types.is_integer_dtype(index)
    flat = table if numbered else table.reset_index()
    names = pd.Index([str(name) for name in flat.columns])  # 0.9 is shown, and read, as "0.9"
    twice = sorted(set(names[names.duplicated()]))
    if twice:
        raise ValueError(
            f"styled needs distinct column names, but {twice} appear more than once; "
            "rename or drop the copies"
        )
    return flat.set_axis(names, axis=1)


def _group_names(table: pd.DataFrame) -> list[str]:
    """Return the group columns: ``attrs["by"]`` (one name or several) and those before ``k``."""
    by = table.attrs.get("by") or []
    names = [by] if isinstance(by, str) else [str(name) for name in by]
    columns = [str(name) for name in table.columns]
    if "k" in columns:
        names += columns[: columns.index("k")]
    return names


def _is_count(name: str) -> bool:
    """Return whether a column of this name counts something (tasks, runs, passes, ...)."""
    return name in _COUNTS or name.startswith(_COUNT_PREFIXES) or name.endswith(_COUNT_SUFFIXES)


def _formatter(
    column: pd.Series,
    digits: int,
    escaped: Callable[[str], str],
    *,
    as_text: bool,
    count: bool,
) -> Callable[[object], str]:
    """Return how a column's cells read: whole counts as integers, other numbers to `digits`."""
    numeric = pd.api.types.is_float_dtype(column.dtype) and not as_text
    finite = column[np.isfinite(column.to_numpy())] if numeric else column
    whole = numeric and count and bool((finite == finite.round()).all())

    def text(value: object) -> str:
        if value is None or value is pd.NA:
            return ""
        if isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral):
            number = float(value)
            if not as_text or not math.isfinite(number):
                return escaped(fixed(number, 0 if whole else digits))
        return escaped(str(value))

    return text
