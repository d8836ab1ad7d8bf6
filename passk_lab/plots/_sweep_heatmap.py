"""A value over the grid of p and k, with contour lines across the whole map, labelled at its edges.

The map draws each cell of the sweep. Its contours are drawn on a finer grid
(bilinear between the cells' centres, extended half a cell to the map's
edges), so that each runs from edge to edge instead of stopping at the outer
cells' centres; each is labelled with its level where it leaves the map at
the top or the right, outside the map, as a tick of the top or right edge.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

import numpy as np
import pandas as pd
from matplotlib import patheffects
from matplotlib.axes import Axes
from matplotlib.contour import QuadContourSet
from matplotlib.font_manager import FontProperties
from matplotlib.textpath import TextPath

from passk_lab._typing import Floats
from passk_lab.plots._curve_axes import KTicks
from passk_lab.plots._style import axes_of, default_title
from passk_lab.plots._sweep_parts import P_LABEL, TITLES, current, grid_of, label_of

__all__ = ["finer", "sweep_heatmap"]

_OUTLINE = "0.15"
"""The dark grey around the white contour lines, so that they read on pale colours too."""
_FINE = 200
"""The points of the finer grid the contours are drawn on, along each axis."""
_LABEL_SIZE = 9.0
"""The size in points of a contour's label."""
_LABEL_GAP = 3.0
"""The least room between two contours' labels on one edge, in points."""
_LEADER = 8.0
"""How far a contour's label stands off the map's edge, in points: its leader's reach."""


def _edges(centres: Floats) -> tuple[float, float]:
    """Return where the map's outer cells end: half a step past the first and last centres."""
    if len(centres) == 1:
        return float(centres[0]) - 0.5, float(centres[0]) + 0.5
    return (
        float(centres[0] - (centres[1] - centres[0]) / 2),
        float(centres[-1] + (centres[-1] - centres[-2]) / 2),
    )


def _linear(centres: Floats, values: np.ndarray, at: Floats, axis: int) -> np.ndarray:
    """Interpolate `values` along `axis` from `centres` to `at`, linearly past the ends too."""
    place = np.clip(np.searchsorted(centres, at) - 1, 0, len(centres) - 2)
    share = (at - centres[place]) / (centres[place + 1] - centres[place])
    shape = [1, 1]
    shape[axis] = len(at)
    share = share.reshape(shape)
    low, high = np.take(values, place, axis=axis), np.take(values, place + 1, axis=axis)
    result: np.ndarray = low + share * (high - low)
    return result


def _subdivided(centres: Floats, points: int) -> Floats:
    """Return points from the map's first edge to its last, the cells' centres among them.

    Each step between two centres is cut into as many pieces as make about
    `points` in all, and each outer half cell into half as many.
    """
    if len(centres) == 1:
        return np.linspace(*_edges(centres), points)
    pieces = max(2, -(-points // len(centres)))
    low, high = _edges(centres)
    inner = [np.linspace(a, b, pieces, endpoint=False) for a, b in pairwise(centres)]
    halves = max(1, pieces // 2)
    return np.concatenate(
        [
            np.linspace(low, centres[0], halves, endpoint=False),
            *inner,
            np.linspace(centres[-1], high, halves + 1),
        ]
    )


def finer(grid: pd.DataFrame, points: int = _FINE) -> tuple[Floats, Floats, np.ndarray]:
    """Return the grid's values on a finer grid that reaches the map's edges: ks, ps, values.

    Bilinear between the cells' centres (which are points of the finer grid),
    linear past the outer ones to the edges of the outer cells, and kept
    within the values' own range.

    Examples
    --------
    >>> grid = pd.DataFrame([[0.25, 0.5], [0.5, 1.0]], index=[0.5, 1.0], columns=[1, 2])
    >>> ks, ps, values = finer(grid, 4)
    >>> ks.tolist(), ps.tolist()
    ([0.5, 1.0, 1.5, 2.0, 2.5], [0.25, 0.5, 0.75, 1.0, 1.25])
    >>> values[1, 1], values[2, 2], values[-1, -1]
    (np.float64(0.25), np.float64(0.5625), np.float64(1.0))
    """
    ks, ps = grid.columns.to_numpy(dtype=float), grid.index.to_numpy(dtype=float)
    along_k, along_p = _subdivided(ks, points), _subdivided(ps, points)
    values = grid.to_numpy(dtype=float)
    values = _linear(ks, values, along_k, axis=1)
    values = _linear(ps, values, along_p, axis=0)
    low, high = np.nanmin(grid.to_numpy(dtype=float)), np.nanmax(grid.to_numpy(dtype=float))
    return along_k, along_p, np.clip(values, low, high)


def sweep_heatmap(
    sweep: pd.DataFrame,
    *,
    value: str = "true_pow_k",
    levels: Sequence[float] = (0.5, 0.9, 0.99),
    ax: Axes | None = None,
) -> Axes:
    """Draw a value over the grid of p (up) and k (across), with contours at `levels`.

    Parameters
    ----------
    sweep : DataFrame
        What :func:`~passk_lab.simulate_sweep` returns, or any table with
        ``p``, ``k`` and `value` columns; repeated cells are averaged.
    value : str
        The column to draw: ``"true_pow_k"`` (the truth) or ``"pass_pow_k"``
        (the mean measured). The truth's old name ``"p_pow_k"`` works, with
        a ``DeprecationWarning``, for one release.
    levels : sequence of float
        Contour lines, across the whole map: the p a target pass^k demands at
        each k. White with a dark outline, they read on every colour of the
        map; each is labelled with its level (``0.9``; the colour bar names
        the quantity) where it leaves the map at the top or the right.
    ax : matplotlib Axes, optional
        Where to draw; the current Axes by default.

    Returns
    -------
    matplotlib Axes

    Notes
    -----
    The contours are drawn on a finer grid than the sweep's (bilinear
    between the cells' centres, linear past them to the map's edges), so
    that they run to the edges of the map. A contour's label is a tick of
    the top or the right edge, outside the map, where the contour leaves it;
    of two labels closer than their width on one edge, the first level's is
    kept. The title says what the colours are (for ``true_pow_k``,
    ``pass_pow_k`` and ``pass_at_1``), unless `ax` has a title already; a
    title set afterwards replaces it.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import passk_lab as pk
    >>> sweep = pk.simulate_sweep([0.8, 0.9, 0.99], range(1, 11), evaluations=10, rng=0)
    >>> fig, ax = plt.subplots()
    >>> ax = sweep_heatmap(sweep, ax=ax)
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('k (runs per task)', 'p (chance a run passes)')
    >>> ax.get_title()
    '$p^k$: the chance that all k runs of a task pass'
    >>> plt.close(fig)
    """
    value = current(value)
    grid = grid_of(sweep, value)
    ax = axes_of(ax)
    ks, ps = grid.columns.to_numpy(dtype=float), grid.index.to_numpy(dtype=float)
    mesh = ax.pcolormesh(ks, ps, grid.to_numpy(), vmin=0, vmax=1, shading="nearest")
    ax.figure.colorbar(mesh, ax=ax, label=label_of(value), pad=0.08)
    if len(ks) > 1 and len(ps) > 1 and levels:
        outline: list[patheffects.AbstractPathEffect] = [
            patheffects.withStroke(linewidth=3, foreground=_OUTLINE)
        ]
        along_k, along_p, values = finer(grid)
        lines = ax.contour(along_k, along_p, values, levels=sorted(levels), colors="white")
        lines.set_path_effects(outline)
        _edge_labels(ax, lines, (float(along_k[-1]), float(along_p[-1])))
    ax.grid(False)
    ax.xaxis.set_major_locator(KTicks(ks))
    ax.set_xlabel("k (runs per task)")
    ax.set_ylabel(P_LABEL)
    if value in TITLES:
        default_title(ax, TITLES[value])
    return ax


def _exit(vertices: np.ndarray, right: float, top: float) -> tuple[str, float] | None:
    """Return where a contour leaves the map, ("right", y) or ("top", x), if it reaches either."""
    x, y = vertices[:, 0], vertices[:, 1]
    on_right, on_top = np.isclose(x, right), np.isclose(y, top)
    if on_right.any():
        return "right", float(y[on_right].max())
    if on_top.any():
        return "top", float(x[on_top].max())
    return None


def _edge_labels(ax: Axes, lines: QuadContourSet, corner: tuple[float, float]) -> None:
    """Label each contour with its level where it leaves the map, as a tick label of that edge.

    `corner` is the map's top right corner. A short leader runs from where the
    line leaves to its label; labels nearer on one edge than their size
    (judged from the size of `ax` now) are set apart, as little as keeps them
    clear of each other and within the edge, their leaders slanting to them.
    """
    right, top = corner
    places: dict[str, list[tuple[float, str]]] = {"right": [], "top": []}
    for level, path in zip(lines.levels, lines.get_paths(), strict=True):
        vertices = np.asarray(path.vertices, dtype=np.float64).reshape(-1, 2)
        where = _exit(vertices, right, top) if len(vertices) else None
        if where is not None:
            places[where[0]].append((where[1], f"{float(level):g}"))
    points = 72 / ax.figure.dpi  # points per pixel
    for edge, found in places.items():
        if not found:
            continue
        found.sort()
        across = edge == "top"
        low, high = ax.get_xlim() if across else ax.get_ylim()
        per_unit = (ax.bbox.width if across else ax.bbox.height) * points / (high - low)
        sizes = [_width(text) if across else _LABEL_SIZE * 1.2 for _, text in found]
        spots = [(place - low) * per_unit for place, _ in found]
        at = _apart(spots, sizes, (high - low) * per_unit)
        for (place, _), spot, was in zip(found, at, spots, strict=True):
            ax.annotate(
                "",
                xy=(place, 1.0) if across else (1.0, place),
                xycoords=("data", "axes fraction") if across else ("axes fraction", "data"),
                xytext=(spot - was, _LEADER) if across else (_LEADER, spot - was),
                textcoords="offset points",
                arrowprops={"arrowstyle": "-", "color": _OUTLINE, "lw": 0.8, "shrinkA": 0},
                annotation_clip=False,
            )
        secondary = ax.secondary_xaxis("top") if across else ax.secondary_yaxis("right")
        axis = secondary.xaxis if across else secondary.yaxis
        axis.set_ticks([low + spot / per_unit for spot in at], labels=[text for _, text in found])
        secondary.tick_params(labelsize=_LABEL_SIZE, length=0, pad=_LEADER + 2)
        for spine in secondary.spines.values():
            spine.set_visible(False)


def _apart(spots: list[float], sizes: list[float], length: float) -> list[float]:
    """Return the sorted `spots` on an edge `length` long, moved apart as little as clears them.

    Labels of `sizes` (all in points) end up a gap apart, and wholly within
    the edge where there is room.

    Examples
    --------
    >>> _apart([10.0, 12.0, 50.0], [8.0, 8.0, 8.0], 100.0)
    [5.5, 16.5, 50.0]
    >>> _apart([95.0, 99.0], [8.0, 8.0], 100.0)
    [85.0, 96.0]
    """
    gaps = [(first + second) / 2 + _LABEL_GAP for first, second in pairwise(sizes)]
    moved = list(spots)
    for _ in range(100 * len(moved)):  # pull each pair apart about its middle until all clear
        clear = True
        for index, gap in enumerate(gaps):
            short = gap - (moved[index + 1] - moved[index])
            if short > 1e-9:
                moved[index] -= short / 2
                moved[index + 1] += short / 2
                clear = False
        over = moved[-1] + sizes[-1] / 2 - length
        under = sizes[0] / 2 - moved[0]
        shift = -over if over > 0 else max(under, 0.0)
        moved = [spot + shift for spot in moved]
        if clear and abs(shift) < 1e-9:
            break
    return [round(spot, 9) for spot in moved]


def _width(text: str) -> float:
    """Return how wide `text` is drawn as a contour's label, in points."""
    return float(TextPath((0, 0), text, prop=FontProperties(size=_LABEL_SIZE)).get_extents().width)
