"""The keys of the curves against k: beside the axes or under them, where they hide no data.

A curve of groups on one Axes has two keys, one above the other: the groups'
(each named by its values) and the styles' (what each kind of line or band
is). A plot without groups, or whose groups are panels of their own, has the
styles' key alone. An entry of the styles' key may draw several artists one
over the other (a line over its band) as one handle.
"""

from __future__ import annotations

import math

from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.legend_handler import HandlerBase, HandlerTuple
from matplotlib.lines import Line2D
from matplotlib.transforms import ScaledTranslation, Transform

__all__ = [
    "STYLE_GREY",
    "Entry",
    "bar_key",
    "figure_of",
    "place_keys",
    "styles_key",
    "styles_key_at",
    "styles_key_below",
]

Entry = tuple["Artist | tuple[Artist, ...]", str]
"""A key's entry: its handle (a tuple of artists is drawn one over the other) and its text."""
_OVERLAID: dict[Artist | type, HandlerBase] = {tuple: HandlerTuple(ndivide=1)}
"""A tuple of artists is one handle, drawn one over the other: a line over its band."""

STYLE_GREY = "0.3"
"""The colour of a style's key where several groups draw it, each in its own colour."""
_GROUPS_PER_COLUMN = 10
"""The most groups one column of the groups' key lists (fewer where the axes are short)."""
_KEY_GAP = 0.12
"""The space between the groups' key and the styles' key, in inches."""


def figure_of(ax: Axes) -> Figure:
    """Return the figure `ax` draws in."""
    figure = ax.get_figure(root=True)
    assert figure is not None  # an Axes one draws on is in a figure
    return figure


def bar_key(color: str, label: str) -> Line2D:
    """Return the key's entry of an interval drawn as error bars: a short upright bar."""
    return Line2D([], [], color=color, ls="none", marker="|", markersize=11, mew=1.4, label=label)


def _styles(
    ax: Axes,
    styles: list[Entry],
    anchor: tuple[float, float],
    shift: float = 0.0,
    columns: int = 1,
) -> Legend:
    """Draw the styles' key as `ax`'s legend, its top left corner at `anchor` (axes units).

    `shift` moves it down by that many inches.
    """
    figure = figure_of(ax)
    place: Transform = ax.transAxes + ScaledTranslation(0.0, -shift, figure.dpi_scale_trans)
    return ax.legend(
        [handle for handle, _ in styles],
        [text for _, text in styles],
        handler_map=_OVERLAID,
        frameon=False,
        ncols=columns,
        loc="upper left",
        bbox_to_anchor=anchor,
        bbox_transform=place,
        borderaxespad=0.0,
    )


def styles_key(ax: Axes, styles: list[Entry]) -> Legend:
    """Draw the styles' key right of `ax`, as its legend, and return it."""
    return _styles(ax, styles, (1.02, 1.0))


def styles_key_at(ax: Axes, styles: list[Entry], columns: int = 1) -> Legend:
    """Draw the styles' key in the top left corner of `ax`, an empty Axes set aside for it."""
    return _styles(ax, styles, (0.0, 1.0), columns=columns)


def styles_key_below(ax: Axes, styles: list[Entry], columns: int = 2) -> Legend:
    """Draw the styles' key under `ax`'s k axis (its tick labels and label), in `columns`.

    For panels placed by a rectangle, too narrow to keep a key beside them:
    `ax` is the bottom left panel, and the key may reach under the others.
    """
    under = ax.xaxis.get_tightbbox()
    drop = 0.5 if under is None else (ax.bbox.y0 - under.y0) / figure_of(ax).dpi + _KEY_GAP
    return _styles(ax, styles, (0.0, 0.0), drop, columns)


def _groups_key(ax: Axes, groups: list[Artist], title: str, room: float) -> float:
    """Draw the groups' key right of `ax`, in the fewest columns that keep it `room` inches high.

    Returns its height in inches.
    """
    columns = math.ceil(len(groups) / _GROUPS_PER_COLUMN)
    while True:
        key = ax.legend(
            handles=groups,
            title=title,
            frameon=False,
            ncols=columns,
            alignment="left",
            loc="upper left",
            bbox_to_anchor=(1.02, 1.0),
            borderaxespad=0.0,
        )
        height = float(key.get_window_extent().height) / figure_of(ax).dpi
        if height <= room or columns >= len(groups):
            return height
        columns += 1


def place_keys(ax: Axes, groups: list[Artist], title: str, styles: list[Entry]) -> None:
    """Put the groups' key right of `ax` and the styles' key right below it.

    The groups' key takes as many columns as it needs to fit the height of
    the axes. The styles' key is placed at the groups' key's height in
    inches below the top of the axes (a legend's size in inches is fixed by
    its fonts), so that no layout of the figure makes the two overlap; where
    both are taller than the axes, the styles' key reaches below them.
    """
    figure = figure_of(ax)
    height = _groups_key(ax, groups, title, ax.get_window_extent().height / figure.dpi)
    below = Legend(
        ax,
        [handle for handle, _ in styles],
        [text for _, text in styles],
        handler_map=_OVERLAID,
        loc="upper left",
        bbox_to_anchor=(1.02, 1.0),
        bbox_transform=ax.transAxes
        + ScaledTranslation(0.0, -(height + _KEY_GAP), figure.dpi_scale_trans),
        borderaxespad=0.0,
        frameon=False,
    )
    ax.add_artist(below).set_clip_on(False)  # an added artist is clipped to the axes
