"""How a result object shows itself: a one-line text repr and an HTML summary for Jupyter.

Every result class builds both from one list of fields, so that they round
alike and read alike: :func:`summary_repr` gives ``Name(field=value, ...)``,
:func:`summary_html` a titled table (label, value, and the interval of each
:class:`Estimate`) whose text is all escaped, styled inline so that it reads
in light and dark themes alike and needs no stylesheet, script or download.
"""

from __future__ import annotations

import html
import math
import numbers
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from passk_lab._numbers import fixed, level_text, number

__all__ = [
    "SUMMARY_LEVEL",
    "Estimate",
    "Shown",
    "estimate_text",
    "interval_text",
    "summary_html",
    "summary_repr",
    "value_text",
]

SUMMARY_LEVEL = 0.95
"""The level of the intervals a summary computes: every statistic's default ``confidence_level``."""

_LONGEST = 40
"""Characters of a text value a one-line repr keeps; a longer one ends in an ellipsis."""


class Shown(str):
    """Text that a repr shows as it is, without the quotes of a string's repr.

    Examples
    --------
    >>> summary_repr("Table", [("runs", Shown("<200 rows>")), ("model", "m")])
    "Table(runs=<200 rows>, model='m')"
    """

    __slots__ = ()


class Estimate(NamedTuple):
    """A value with its confidence interval, as a summary shows it.

    NaN limits (an interval that could not be computed, as of fewer than two
    tasks) show no interval; a level of None names none ("CI").

    Examples
    --------
    >>> summary_repr("Result", [("pass_pow_k", Estimate(0.45, 0.29254, 0.61486, 0.95))])
    'Result(pass_pow_k=0.45 (95% CI [0.293, 0.615]))'
    """

    value: float
    low: float
    high: float
    level: float | None

    @property
    def has_interval(self) -> bool:
        """Whether both limits are numbers (not NaN)."""
        return not (math.isnan(self.low) or math.isnan(self.high))

    @property
    def ci(self) -> str:
        """The name of the interval: ``95% CI``, or ``CI`` when the level is not known."""
        return "CI" if self.level is None else f"{level_text(self.level)} CI"


def interval_text(low: float, high: float) -> str:
    """Return an interval as every table of the project writes it: ``[low, high]``, 3 decimals.

    Examples
    --------
    >>> interval_text(0.29254, 0.61486), interval_text(-0.0001, 1.0)
    ('[0.293, 0.615]', '[0.000, 1.000]')
    """
    return f"[{fixed(low, 3)}, {fixed(high, 3)}]"


def estimate_text(estimate: Estimate) -> str:
    """Return a value and its interval on one line: ``0.45 (95% CI [0.293, 0.615])``.

    The value is written by :func:`number`, the limits by :func:`interval_text`;
    without an interval the value stands alone.

    Examples
    --------
    >>> estimate_text(Estimate(0.45, 0.29254, 0.61486, 0.95))
    '0.45 (95% CI [0.293, 0.615])'
    >>> estimate_text(Estimate(1.0, float("nan"), float("nan"), 0.95))
    '1'
    """
    value = number(float(estimate.value))
    if not estimate.has_interval:
        return value
    return f"{value} ({estimate.ci} {interval_text(estimate.low, estimate.high)})"


def value_text(value: object) -> str:
    """Return a value as a summary's cell shows it (before escaping).

    Integers get thousands separators, floats :func:`number`, ``None`` a dash,
    booleans yes or no, an :class:`Estimate` its value (its interval has a
    cell of its own); anything else its ``str``.

    Examples
    --------
    >>> [value_text(v) for v in [10000, 0.86, None, True, "gpt-x"]]
    ['10,000', '0.86', '—', 'yes', 'gpt-x']
    """
    if value is None:
        return "\N{EM DASH}"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, numbers.Integral):
        return f"{int(value):,}"
    if isinstance(value, numbers.Real):
        return number(float(value))
    if isinstance(value, Estimate):
        return number(float(value.value))
    return str(value)


def _repr_value(value: object) -> str:
    if isinstance(value, Shown):
        return str(value)
    if isinstance(value, Estimate):
        return estimate_text(value)
    if isinstance(value, str):
        return repr(
            value if len(value) <= _LONGEST else value[: _LONGEST - 1] + "\N{HORIZONTAL ELLIPSIS}"
        )
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return number(float(value))
    if isinstance(value, Mapping):
        return (
            "{" + ", ".join(f"{_repr_value(k)}: {_repr_value(v)}" for k, v in value.items()) + "}"
        )
    return _repr_value(str(value))


def summary_repr(name: str, fields: Sequence[tuple[str, object]]) -> str:
    """Return ``name(field=value, ...)`` on one line, numbers rounded by :func:`number`.

    Strings show as their repr (cut at 40 characters), :class:`Shown` text as
    it is, an :class:`Estimate` as :func:`estimate_text` writes it, mappings
    with their values rounded.

    Examples
    --------
    >>> summary_repr("Fit", [("n_tasks", 40), ("mean", 0.8571428), ("cost", {"usd": 1.25})])
    "Fit(n_tasks=40, mean=0.857, cost={'usd': 1.25})"
    """
    return f"{name}(" + ", ".join(f"{key}={_repr_value(value)}" for key, value in fields) + ")"


_TABLE = (
    "border-collapse:collapse;margin:0.25em 0;font-size:0.95em;color:inherit;"
    "background:transparent;font-variant-numeric:tabular-nums"
)
_TITLE = "text-align:left;font-weight:bold;padding:0.2em 0.6em 0.3em 0;caption-side:top"
_CELL = "padding:0.15em 0.6em;border-top:1px solid rgba(127,127,127,0.3);background:transparent"
_LABEL = f"{_CELL};text-align:left;font-weight:normal;opacity:0.8"
_VALUE = f"{_CELL};text-align:right"
_INTERVAL = f"{_VALUE};white-space:nowrap"  # an interval never breaks between its limits
_HEAD = "padding:0.15em 0.6em;text-align:right;font-weight:normal;opacity:0.8;font-size:0.9em"
_NOTE = f"{_CELL};text-align:left;font-size:0.85em;opacity:0.8;white-space:normal;max-width:36em"


def _interval_cell(value: object) -> str:
    if not isinstance(value, Estimate):
        return f'<td style="{_VALUE}"></td>'
    text = interval_text(value.low, value.high) if value.has_interval else "\N{EM DASH}"
    return f'<td style="{_INTERVAL}">{html.escape(text)}</td>'


def summary_html(title: str, rows: Sequence[tuple[str, object]], notes: Sequence[str] = ()) -> str:
    """Return a titled HTML table of labels and values, every text escaped.

    Values are shown by :func:`value_text`. When a row holds an
    :class:`Estimate`, the table has a third column, headed by the interval's
    name (``95% CI``), holding its limits; every estimate of one table has
    one level. `notes` follow the rows, one a row across the table. The
    colours are the page's own (``inherit``, a grey rule half transparent),
    so the table reads in JupyterLab's light and dark themes; no stylesheet,
    script or remote resource is used.

    Raises
    ------
    ValueError
        If the estimates of the rows have different levels.

    Examples
    --------
    >>> page = summary_html("Fit <1>", [("tasks", 40), ("model", "<b>x</b>&")])
    >>> "Fit &lt;1&gt;" in page, "&lt;b&gt;x&lt;/b&gt;&amp;" in page, "<b>" in page
    (True, True, False)
    >>> page = summary_html("Result", [("pass@1", Estimate(0.86, 0.8123, 0.8994, 0.95))])
    >>> "<th" in page and "95% CI" in page, "<td" in page and "[0.812, 0.899]" in page
    (True, True)
    """
    estimates = [value for _, value in rows if isinstance(value, Estimate)]
    if len({estimate.ci for estimate in estimates}) > 1:
        raise ValueError("the estimates of one summary table must have one confidence level")
    lines = [
        f'<table style="{_TABLE}">',
        f'<caption style="{_TITLE}">{html.escape(title)}</caption>',
    ]
    if estimates:
        lines.append(
            f'<tr><td></td><td></td><th scope="col" style="{_HEAD}">'
            f"{html.escape(estimates[0].ci)}</th></tr>"
        )
    lines += [
        f'<tr><th scope="row" style="{_LABEL}">{html.escape(label)}</th>'
        f'<td style="{_VALUE}">{html.escape(value_text(value))}</td>'
        + (_interval_cell(value) if estimates else "")
        + "</tr>"
        for label, value in rows
    ]
    width = 3 if estimates else 2
    lines += [
        f'<tr><td colspan="{width}" style="{_NOTE}">{html.escape(note)}</td></tr>' for note in notes
    ]
    lines.append("</table>")
    return "\n".join(lines)
