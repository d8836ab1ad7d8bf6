"""What every plot shares: the style, the Axes to draw on, the table check and the labels."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from importlib import resources

import matplotlib
import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.ticker import MaxNLocator

__all__ = [
    "LABEL_LIMIT",
    "MOST_TICKS",
    "PALETTE",
    "POW_K",
    "axes_of",
    "default_title",
    "integer_ticks",
    "literal",
    "require_table",
    "style",
]

POW_K = "pass$^k$"

PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
"""The hues one plot gives its groups, in order: Okabe and Ito's qualitative palette, told
apart under red-green colour blindness (blue, vermilion, green, purple, orange, sky blue,
black), the same cycle as the shipped style's. Every plot takes its colours from here, so
a group has the same colour inside ``with style():`` and outside it."""

MOST_TICKS = 12
"""The most labelled ticks an axis of runs or counts gets; more would not fit a plot's width.

One tick label per run is a text artist per run: a heatmap of 20,000 runs drew
20,000 of them, and laying them out took minutes and gigabytes.
"""


@contextlib.contextmanager
def style() -> Iterator[None]:
    """Apply passk_lab's matplotlib style inside a ``with`` block.

    A colour-blind-safe palette (Okabe-Ito), light grid, no top or right
    spine, and sizes that read well in a notebook and in print (SVG keeps
    text as text). Figures made inside the block keep the style when drawn
    later.

    Yields
    ------
    None

    Examples
    --------
    >>> import matplotlib
    >>> with style():
    ...     matplotlib.rcParams["axes.spines.top"]
    False
    >>> matplotlib.rcParams["axes.spines.top"]
    True
    """
    with resources.as_file(resources.files("passk_lab") / "styles" / "passk.mplstyle") as path:
        with plt.style.context(str(path)):
            try:
                yield
            finally:
                # a backend first loaded inside the block (Jupyter's inline one) turns on
                # interactive mode; keep it, or later figures stop showing
                interactive = matplotlib.is_interactive()
        matplotlib.interactive(interactive)


def axes_of(ax: Axes | None) -> Axes:
    """Return `ax`, or the current Axes when it is None."""
    return plt.gca() if ax is None else ax


def default_title(ax: Axes, title: str) -> None:
    """Give `ax` the title `title` unless it has one: a caller's title, set before or after, wins.

    A title at the left or the right (``ax.set_title(..., loc="left")``)
    counts as one: `ax` keeps it and gets none of its own.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> default_title(ax, "the chance that all k runs pass")
    >>> ax.get_title()
    'the chance that all k runs pass'
    >>> _ = ax.set_title("mine")
    >>> default_title(ax, "the chance that all k runs pass")
    >>> ax.get_title()
    'mine'
    >>> fig, ax = plt.subplots()
    >>> _ = ax.set_title("mine", loc="left")
    >>> default_title(ax, "the chance that all k runs pass")
    >>> ax.get_title()
    ''
    >>> plt.close("all")
    """
    if not any(ax.get_title(loc) for loc in ("left", "center", "right")):
        ax.set_title(title)


def require_table(frame: object, columns: Sequence[str], made_by: str) -> pd.DataFrame:
    """Return `frame` if it is a non-empty DataFrame with `columns`, else say what to pass.

    Parameters
    ----------
    frame : object
        The table a plot was given.
    columns : sequence of str
        The columns the plot reads.
    made_by : str
        The function whose result the plot draws, named in the messages.

    Returns
    -------
    DataFrame
        `frame` itself.

    Raises
    ------
    TypeError
        If `frame` is not a DataFrame.
    ValueError
        If a column is missing or the table is empty.

    Examples
    --------
    >>> import pandas as pd
    >>> require_table(pd.DataFrame({"k": [1]}), ["k", "p"], "simulate_sweep")
    Traceback (most recent call last):
    ...
    ValueError: the table has no column 'p'; pass the DataFrame that simulate_sweep returns
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"expected a DataFrame from {made_by}, got {type(frame).__name__}")
    missing = [name for name in columns if name not in frame.columns]
    if missing:
        raise ValueError(
            f"the table has no column {', '.join(map(repr, missing))}; pass the DataFrame that "
            f"{made_by} returns"
        )
    if frame.empty:
        raise ValueError(f"the table is empty; pass the DataFrame that {made_by} returns")
    return frame


def integer_ticks(ax: Axes) -> None:
    """Put the x ticks of `ax` on whole numbers only (k is a count of runs), at most MOST_TICKS."""
    ax.xaxis.set_major_locator(MaxNLocator(nbins=MOST_TICKS, integer=True))


LABEL_LIMIT = 60
"""The most characters of a task id or a group's name in a plot; a longer one is cut short
(with an ellipsis), or it would squeeze the axes to nothing."""


def literal(text: object) -> str:
    r"""Return `text` as matplotlib draws it literally: a ``$`` escaped, so no mathtext.

    Task ids, group and agent names are data: ``"cost $5 or $6"`` must not
    start a formula (a pair of ``$`` sets the text between them as one, and
    one that does not parse is an error). Past :data:`LABEL_LIMIT` characters
    the text is cut short.

    Examples
    --------
    >>> literal("cost $5 or $6")
    'cost \\$5 or \\$6'
    >>> len(literal("x" * 300))
    60
    """
    text = str(text)
    if len(text) > LABEL_LIMIT:
        text = text[: LABEL_LIMIT - 1] + "\N{HORIZONTAL ELLIPSIS}"
    return text.replace("$", r"\$")
