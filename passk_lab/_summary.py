"""How a result object shows itself: a one-line text repr and an HTML summary for Jupyter.

Every result class builds both from one list of fields, so that they round
alike and read alike: :func:`summary_repr` gives ``Name(field=value, ...)``,
:func:`summary_html` a titled two-column table (label, value) whose values are
all escaped, styled inline so that it reads in light and dark themes alike and
needs no stylesheet, script or download.
"""

from __future__ import annotations

import html
import numbers
from collections.abc import Mapping, Sequence

from passk_lab._numbers import number

__all__ = ["Shown", "summary_html", "summary_repr", "value_text"]

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


def value_text(value: object) -> str:
    """Return a value as a summary's cell shows it (before escaping).

    Integers get thousands separators, floats :func:`number`, ``None`` a dash,
    booleans yes or no; anything else its ``str``.

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
    return str(value)


def _repr_value(value: object) -> str:
    if isinstance(value, Shown):
        return str(value)
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
    it is, mappings with their values rounded.

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


def summary_html(title: str, rows: Sequence[tuple[str, object]]) -> str:
    """Return a titled two-column HTML table of labels and values, every text escaped.

    Values are shown by :func:`value_text`. The colours are the page's own
    (``inherit``, a grey rule half transparent), so the table reads in
    JupyterLab's light and dark themes; no stylesheet, script or remote
    resource is used.

    Examples
    --------
    >>> page = summary_html("Fit <1>", [("tasks", 40), ("model", "<b>x</b>&")])
    >>> "Fit &lt;1&gt;" in page, "&lt;b&gt;x&lt;/b&gt;&amp;" in page, "<b>" in page
    (True, True, False)
    """
    lines = [
        f'<table style="{_TABLE}">',
        f'<caption style="{_TITLE}">{html.escape(title)}</caption>',
    ]
    lines += [
        f'<tr><th scope="row" style="{_LABEL}">{html.escape(label)}</th>'
        f'<td style="{_VALUE}">{html.escape(value_text(value))}</td></tr>'
        for label, value in rows
    ]
    lines.append("</table>")
    return "\n".join(lines)
