"""Result tables as a reader sees them in a notebook: a pandas Styler with labels and rounding."""

from __future__ import annotations

import importlib.util
import math
import numbers
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

import numpy as np
import pandas as pd

from passk_lab._checks import as_int
from passk_lab._labels import label
from passk_lab._summary import p_value_text
from passk_lab.report._tables import html_text, labelled

if TYPE_CHECKING:
    from pandas.io.formats.style import Styler

__all__ = ["styled"]

_P_VALUES = ("pvalue", "p_value", "p_adjusted")
"""How the names of p-value columns end."""

_LATEX_ESCAPES = {char: "\\" + char for char in "&%$#_{}"} | {
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "\\": r"\textbackslash{}",
}


def _latex_text(text: str) -> str:
    """Escape LaTeX's special characters, and set ``^k`` as a superscript."""
    return "$^k$".join(
        "".join(_LATEX_ESCAPES.get(char, char) for char in part) for part in text.split("^k")
    )


_ESCAPES: dict[str, Callable[[str], str]] = {"html": html_text, "latex": _latex_text}


def styled(
    table: pd.DataFrame, *, digits: int = 3, escape: Literal["html", "latex"] = "html"
) -> Styler:
    r"""Return a result table styled for reading: labels, rounded numbers, no index.

    Any table the library returns works (:func:`~passk_lab.reliability_curve`,
    :func:`~passk_lab.compare`, :func:`~passk_lab.leaderboard`,
    :func:`~passk_lab.pairwise`, :func:`~passk_lab.success_counts`, a fit's
    ``to_frame()``, :func:`~passk_lab.g_pass_at_k`, the variability tables
    ...), grouped ones too. Shown in Jupyter it renders as HTML; ``to_html()``
    and ``to_latex()`` give the same table as text.

    Parameters
    ----------
    table : pandas.DataFrame
        A result table. Columns get the labels of
        :func:`passk_lab.report.export`'s presentation formats (``pass^k``,
        ``pass@k``, ``tasks``, ...), and each ``X_low``, ``X_high`` pair
        becomes one ``"X 95% CI"`` column of ``[low, high]`` (at the table's
        confidence level). Group columns (``by=``) and other text are shown as
        they are.
    digits : int
        Decimals of the numbers that are not whole. Columns of whole numbers
        (counts) show as integers; a p-value shows to `digits` decimals, one
        below ``10**-digits`` as ``<0.001``. Missing values are empty cells.
    escape : {"html", "latex"}
        What the cells, labels and caption are escaped for: ``"html"`` (the
        default) for a notebook and ``to_html()``, ``"latex"`` for
        ``to_latex()``. ``^k`` is set as a superscript in both.

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
        If `digits` is negative or `escape` is neither choice.
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
    >>> print(latex.splitlines()[0])
    \begin{table}
    >>> r"pass$^k$ 95\% CI" in latex, " 0.45 " in latex
    (True, True)
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
    escaped = _ESCAPES[escape]
    shown = labelled(table, digits=places).reset_index(drop=True)
    for name in map(str, table.columns):
        if name.endswith(_P_VALUES) and label(name) in shown.columns:
            shown[label(name)] = pd.Series(
                [p_value_text(float(value), places) for value in table[name]], dtype="str"
            )
    groups = {label(str(name)) for name in table.attrs.get("by") or []}
    formats: dict[object, Callable[[object], str] | str | None] = {
        name: _formatter(shown[name], places, escaped, as_text=name in groups)
        for name in shown.columns
    }
    style = (
        shown.style.format(formats)
        .format_index(lambda name: escaped(str(name)), axis=1)
        .hide(axis="index")
        .set_table_attributes('style="white-space: nowrap"')  # HTML only: an interval on one line
    )
    level = table.attrs.get("confidence_level")
    if isinstance(level, float):
        style = style.set_caption(escaped(f"{level * 100:g}% confidence intervals"))
    return style


def _formatter(
    column: pd.Series, digits: int, escaped: Callable[[str], str], *, as_text: bool
) -> Callable[[object], str]:
    """Return how a column's cells read: whole numbers as integers, others to `digits` decimals."""
    numeric = pd.api.types.is_float_dtype(column.dtype) and not as_text
    finite = column[np.isfinite(column.to_numpy())] if numeric else column
    whole = numeric and bool(
        len(finite) and (finite == finite.round()).all() and finite.abs().max() > 1
    )

    def text(value: object) -> str:
        if value is None or value is pd.NA:
            return ""
        if isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral):
            number = float(value)
            if math.isnan(number):
                return ""
            if math.isinf(number):
                return "\N{INFINITY}" if number > 0 else "-\N{INFINITY}"
            if not as_text:
                shown = f"{number:.{0 if whole else digits}f}"
                return escaped(shown.lstrip("-") if float(shown) == 0 else shown)
        return escaped(str(value))

    return text
