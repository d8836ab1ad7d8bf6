"""Small multiples: the place of one Axes split into a grid of panels sharing both axes.

A curve of many groups reads better as a panel per group than as one tangle
of lines. :func:`panel_grid` splits the given Axes' place into a grid shaped
to it (the Axes keeps the first cell), :func:`label_panels` puts each axis'
labels on the outer panels only, and :func:`draw_others` draws the other
groups faintly behind a panel's own.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from matplotlib.axes import Axes

from passk_lab.plots._decay_parts import OTHERS, GroupCurve
from passk_lab.plots._keys import figure_of

__all__ = [
    "FACET_ABOVE",
    "Grid",
    "Panels",
    "draw_others",
    "label_panels",
    "panel_grid",
]

FACET_ABOVE = 4
"""The most groups one Axes draws by default; more get a panel each."""
KEY_WIDTH = 2.3
"""About how wide the styles' key is, in inches: the room it takes right of the panels."""
NARROW = 4.5
"""A place narrower than this, in inches, has its panels' key below them, not beside (a
figure of 6 inches or more has room for it beside)."""
_GAP = 0.08
"""The space between panels placed by a rectangle, as a share of the rectangle."""


@dataclass(frozen=True)
class Grid:
    """The shape of a grid of panels, and whether its key goes right of it or below."""

    count: int
    rows: int
    columns: int
    key_below: bool
    key_columns: int  # the key's columns: one beside the panels, as many as fit below them

    @classmethod
    def of(cls, count: int, width: float, height: float) -> Grid:
        """Return the grid of `count` panels for a place `width` x `height` inches.

        Its panels are about as wide as they are high, after the key's room
        (right of them, or below a narrow place), and no column is left
        empty that fewer columns would fill as well.

        Examples
        --------
        >>> [(grid.rows, grid.columns) for grid in (Grid.of(6, 6, 3.5), Grid.of(6, 3, 4))]
        [(2, 3), (3, 2)]
        >>> Grid.of(6, 6, 3.5).key_below, Grid.of(6, 3, 4).key_below
        (False, True)
        """
        key_below = width < NARROW
        room = width if key_below else width - KEY_WIDTH
        aspect = max(room, 1.0) / max(height, 1.0)
        columns = max(1, min(count, round(math.sqrt(count * aspect))))
        rows = math.ceil(count / columns)
        while columns > 1 and math.ceil(count / (columns - 1)) == rows:
            columns -= 1
        return cls(count, rows, columns, key_below, max(1, int(width / 2.1)) if key_below else 1)

    def below(self, index: int) -> bool:
        """Return whether another panel stands under the `index`-th one."""
        return index + self.columns < self.count

    @property
    def corner(self) -> int:
        """Return the index of the top right panel."""
        return min(self.count, self.columns) - 1


@dataclass(frozen=True)
class Panels:
    """A grid of panels: the Axes in the groups' order, the grid's shape, and the key's place."""

    axes: list[Axes]
    grid: Grid
    key: Axes | None  # beside or below the panels, an Axes that holds the key and nothing else
    fit: Callable[[float, float], None]  # makes the key's column or row as wide or high as it


def panel_grid(ax: Axes, count: int) -> Panels:
    """Split the place of `ax` into a grid of `count` panels sharing x and y; `ax` is the first.

    The other panels are new Axes of the same figure, added in order and
    last, so that they are the figure's last Axes. An Axes of a grid has its
    cell split (which constrained layout lays out as any other), with a
    column right of the panels, or a row under them, for the key: an empty
    Axes, added before the other panels. One placed by a rectangle has the
    rectangle split, and no room set aside (:attr:`Panels.key` is None).
    """
    figure = figure_of(ax)
    left, bottom, width, height = ax.get_position().bounds
    inches = figure.get_size_inches() * (width, height)
    grid = Grid.of(count, *inches)
    rows, columns = grid.rows, grid.columns
    spec = ax.get_subplotspec()
    if spec is not None:
        below = grid.key_below
        cells = spec.subgridspec(rows + below, columns + (not below))
        ax.set_subplotspec(cells[0, 0])
        key = figure.add_subplot(cells[rows, :] if below else cells[:, columns])
        key.set_axis_off()

        def fit(wide: float, tall: float) -> None:  # the panels share what the key leaves
            if below:
                share = tall / max(inches[1] - tall, 0.1) * rows
                cells.set_height_ratios([1.0] * rows + [share])
            else:
                share = wide / max(inches[0] - wide, 0.1) * columns
                cells.set_width_ratios([1.0] * columns + [share])

        panels = [ax] + [
            figure.add_subplot(cells[index // columns, index % columns], sharex=ax, sharey=ax)
            for index in range(1, count)
        ]
        return Panels(panels, grid, key, fit)
    gap_x, gap_y = _GAP * width / columns, _GAP * height / rows
    step_x, step_y = (width + gap_x) / columns, (height + gap_y) / rows

    def place(index: int) -> tuple[float, float, float, float]:
        row, column = divmod(index, columns)
        top = bottom + height - row * step_y
        return (left + column * step_x, top - step_y + gap_y, step_x - gap_x, step_y - gap_y)

    ax.set_position(place(0))
    panels = [ax] + [
        figure.add_axes(place(index), sharex=ax, sharey=ax) for index in range(1, count)
    ]
    return Panels(panels, grid, None, lambda wide, tall: None)


def label_panels(panels: list[Axes], grid: Grid, xlabel: str, ylabel: str) -> None:
    """Label the panels' axes once: k under the bottom left panel, the share left of the middle row.

    Inner panels keep their ticks but not their tick labels, which their
    neighbours' say.
    """
    for index, panel in enumerate(panels):
        panel.tick_params(labelbottom=not grid.below(index), labelleft=index % grid.columns == 0)
    panels[(grid.rows - 1) * grid.columns].set_xlabel(xlabel)
    panels[(grid.rows // 2) * grid.columns].set_ylabel(ylabel)


def draw_others(ax: Axes, curves: list[GroupCurve], own: int) -> bool:
    """Draw every group's measured pass^k but the `own`-th on `ax`, faintly, behind all else.

    Return whether any was drawn.
    """
    drawn = False
    for index, curve in enumerate(curves):
        rows = curve.measured
        if index != own and rows.any():
            ax.plot(curve.k[rows], curve.value[rows], "-", zorder=0.5, **OTHERS)  # type: ignore[arg-type]
            drawn = True
    return drawn
