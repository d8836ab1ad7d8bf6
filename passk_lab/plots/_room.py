"""How much room a plot's parts take: text and legends, the margin that fits one, two Axes.

The plots size their keys and labels before the figure is drawn, from the
glyphs' outlines at matplotlib's current settings, so that a key can take
as many columns as fit, or widen a figure's margin, with no renderer; and a
plot of two panels splits the place of the Axes it was given.
"""

from __future__ import annotations

import textwrap
from typing import Literal, TypeAlias

import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.font_manager import FontProperties
from matplotlib.textpath import TextToPath

__all__ = [
    "legend_columns",
    "legend_width",
    "make_room",
    "points",
    "split_below",
    "text_width",
    "wrapped",
]

Setting: TypeAlias = Literal[
    "legend.fontsize", "axes.labelsize", "axes.titlesize", "xtick.labelsize", "ytick.labelsize"
]
"""The settings of matplotlib that size a plot's text."""


_TEXT = TextToPath()
"""Measures text from the font's advances, with no path drawn (a path takes 50 times longer)."""


def points(setting: Setting) -> float:
    """Return the size in points that matplotlib's setting `setting` now gives a text.

    Examples
    --------
    >>> import matplotlib
    >>> with matplotlib.rc_context({"legend.fontsize": "small", "font.size": 10}):
    ...     points("legend.fontsize")
    8.33
    """
    return round(float(FontProperties(size=plt.rcParams[setting]).get_size_in_points()), 2)


def text_width(text: str, size: float) -> float:
    """Return how wide `text` is drawn at `size` points, in points.

    Examples
    --------
    >>> text_width("rank", 10) < text_width("rank 1", 10) < text_width("rank 1", 12)
    True
    >>> text_width("", 10)
    0.0
    """
    if not text:
        return 0.0
    width, _, _ = _TEXT.get_text_width_height_descent(text, FontProperties(size=size), ismath=False)
    return float(width)


def _plain_lines(label: str) -> list[str]:
    """Return a legend label's lines as drawn: no dollars or backslashes of mathtext."""
    return [line.replace("$", "").replace("\\", "") for line in label.splitlines()] or [""]


def _label_width(label: str, size: float) -> float:
    # the text's outline runs a little narrower than the text as drawn
    return 1.1 * max(text_width(line, size) for line in _plain_lines(label))


def legend_width(labels: list[str]) -> float:
    """Return about how wide, in points, a one-column legend of `labels` is, its gap included.

    At matplotlib's current legend settings; a label of several lines is as
    wide as its widest.

    Examples
    --------
    >>> legend_width(["a much longer label"]) > legend_width(["short", "labels"])
    True
    """
    size = points("legend.fontsize")
    params = plt.rcParams
    spaces = (
        float(params["legend.handlelength"])
        + float(params["legend.handletextpad"])
        + 2 * float(params["legend.borderpad"])
        + float(params["legend.borderaxespad"])
    )
    return max(_label_width(label, size) for label in labels) + spaces * size


def wrapped(labels: list[str], room: float, longest: int, shortest: int = 16) -> list[str]:
    r"""Return `labels` in lines short enough for a legend of them to fit `room` points.

    The lines are as long as let a one-column legend of the labels be at most
    `room` points wide (:func:`legend_width`): `longest` characters at most,
    and `shortest` at least, fit or not.

    Examples
    --------
    >>> wrapped(["dominated: another is as cheap and as reliable"], 1000, 60)
    ['dominated: another is as cheap and as reliable']
    >>> wrapped(["dominated: another is as cheap and as reliable"], 180, 60)
    ['dominated: another is as\ncheap and as reliable']
    """
    for width in range(longest, shortest - 1, -1):
        lines = [textwrap.fill(label, width) for label in labels]
        if legend_width(lines) <= room:
            return lines
    return lines


def legend_columns(labels: list[str], room: float, size: float | None = None) -> int:
    """Return the most columns, up to one per label, whose legend is at most `room` points wide.

    The columns are filled as matplotlib fills them, top to bottom and then
    left to right; one column when even that is wider than `room`.

    Parameters
    ----------
    labels : list of str
        The legend's entries.
    room : float
        The width it may take, in points.
    size : float, optional
        Its text size in points; matplotlib's legend size by default.

    Returns
    -------
    int

    Examples
    --------
    >>> labels = ["pass^5, 95% CI", "tie group", "rank"]
    >>> legend_columns(labels, 1000), legend_columns(labels, 10)
    (3, 1)
    """
    size = points("legend.fontsize") if size is None else size
    params = plt.rcParams
    entry = (float(params["legend.handlelength"]) + float(params["legend.handletextpad"])) * size
    gap = float(params["legend.columnspacing"]) * size
    pads = 2 * float(params["legend.borderpad"]) * size
    widths = [_label_width(label, size) + entry for label in labels]
    for columns in range(len(labels), 1, -1):
        rows = -(-len(labels) // columns)
        parts = [widths[start : start + rows] for start in range(0, len(widths), rows)]
        if sum(map(max, parts)) + gap * (len(parts) - 1) + pads <= room:
            return columns
    return 1


def make_room(ax: Axes, width: float) -> None:
    """Widen the right margin of `ax`'s figure so that `width` points beside `ax` fit in it.

    Only a figure with no layout engine, `ax` one of its subplots, and only when they would
    not fit: a layout engine makes room itself, and a caller's own margins stand otherwise.
    """
    figure = ax.get_figure(root=True)
    if figure is None or figure.get_layout_engine() is not None or ax.get_subplotspec() is None:
        return
    figure_width = figure.get_figwidth() * 72
    past = ax.get_position().x1 + width / figure_width - 1
    if past > 0:
        params = figure.subplotpars
        right = params.right - past
        if right > params.left + 0.2:
            figure.subplots_adjust(right=right)


def split_below(ax: Axes, heights: tuple[float, float] = (3.0, 2.0)) -> Axes:
    """Give the lower part of `ax`'s place to a new Axes sharing its x axis, and return it.

    An Axes of a grid keeps the upper cell of a split of its cell (which
    constrained layout lays out as any other); one placed by a rectangle keeps
    the upper part of it. `heights` are the two parts' shares, upper first.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> below = split_below(ax)
    >>> below is fig.axes[-1], below.get_shared_x_axes().joined(ax, below)
    (True, True)
    >>> plt.close(fig)
    """
    figure = ax.get_figure()
    assert figure is not None  # an Axes one draws on is in a figure
    spec = ax.get_subplotspec()
    if spec is not None:
        grid = spec.subgridspec(2, 1, height_ratios=heights, hspace=0.1)
        ax.set_subplotspec(grid[0])
        return figure.add_subplot(grid[1], sharex=ax)
    left, bottom, width, height = ax.get_position().bounds
    share = heights[1] / sum(heights)
    gap = 0.06 * height
    ax.set_position((left, bottom + share * height + gap, width, (1 - share) * height - gap))
    return figure.add_axes((left, bottom, width, share * height), sharex=ax)
