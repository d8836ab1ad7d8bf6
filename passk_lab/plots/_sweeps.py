"""Simulated sweeps over p and k: a value over the grid, one line per p, measured against true."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib import patheffects
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.cm import ScalarMappable
from matplotlib.colors import ListedColormap, Normalize
from matplotlib.font_manager import FontProperties
from matplotlib.lines import Line2D
from matplotlib.path import Path
from matplotlib.textpath import TextPath
from matplotlib.transforms import ScaledTranslation

from passk_lab._warnings import PasskDeprecationWarning, warn
from passk_lab.plots._style import (
    POW_K,
    axes_of,
    default_title,
    integer_ticks,
    literal,
    require_table,
)

__all__ = ["measured_vs_analytic", "sweep_heatmap", "sweep_lines"]

_SWEEP_LABELS = {  # axis labels of the sweep columns
    "true_pow_k": "$p^k$",
    "pass_pow_k": f"mean measured {POW_K}",
    "pass_at_1": "mean measured pass@1",
}


_TITLES = {  # a sweep plot's title by the column it draws; a column not named here has none
    "true_pow_k": "$p^k$: the chance that all k runs of a task pass",
    "pass_pow_k": "mean measured pass$^k$ of the simulated evaluations",
    "pass_at_1": "mean measured pass@1 of the simulated evaluations",
}

_CONTOUR_SIZE = 11.0
"""The size in points of a contour's label."""

_LABEL_STEP = 2.0
"""How far apart, in pixels, the places a contour's label may sit are tried along it."""

_OUTLINE = "0.15"
"""The dark grey around white lines and writing, so that they read on pale colours too."""

_MOST_LINES = 10
"""The most p a sweep's lines draw unless told which: more merge into one another."""

_MOST_NAMED = 8
"""The most p a legend names; past them, a colour bar gives each line's p."""

_FEW_K = 5
"""The most k at which a sweep's lines mark each point: with one k a line alone is not seen."""

_LINE_SPACING = 1.3
"""The height a label takes, as a multiple of its size: the size and the gap to the next."""


def _current(value: str) -> str:
    """Return the sweep column `value` names: the truth's old name ``p_pow_k`` is ``true_pow_k``."""
    if value != "p_pow_k":
        return value
    warn(
        PasskDeprecationWarning(
            "the sweep's true p ** k is the column true_pow_k (p_pow_k is the curve's estimate); "
            "value='p_pow_k' goes in the next release",
            keywords=("value",),
        )
    )
    return "true_pow_k"


def _grid(sweep: pd.DataFrame, value: str) -> pd.DataFrame:
    frame = require_table(sweep, ["p", "k", value], "simulate_sweep")
    return frame.pivot_table(index="p", columns="k", values=value, aggfunc="mean")


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
        Contour lines, labelled with their value (``0.9``; the colour bar
        names the quantity): the p a target pass^k demands at each k. White
        with a dark outline, they read on every colour of the map.
    ax : matplotlib Axes, optional
        Where to draw; the current Axes by default.

    Returns
    -------
    matplotlib Axes

    Notes
    -----
    The title says what the colours are (for ``true_pow_k``,
    ``pass_pow_k`` and ``pass_at_1``), unless `ax` has a title already; a
    title set afterwards replaces it. A contour's label sits inside the
    Axes where the other contours are at least a label's height away;
    a contour with no such place (near p = 1 contours crowd together) is
    drawn without one. Places are judged from the size of `ax` when this
    is called.

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
    value = _current(value)
    grid = _grid(sweep, value)
    ax = axes_of(ax)
    ks, ps = grid.columns.to_numpy(), grid.index.to_numpy()
    mesh = ax.pcolormesh(ks, ps, grid.to_numpy(), vmin=0, vmax=1, shading="nearest")
    ax.figure.colorbar(mesh, ax=ax, label=_SWEEP_LABELS.get(value, literal(value)))
    if len(ks) > 1 and len(ps) > 1 and levels:
        outline: list[patheffects.AbstractPathEffect] = [
            patheffects.withStroke(linewidth=3, foreground=_OUTLINE)
        ]
        lines = ax.contour(ks, ps, grid.to_numpy(), levels=sorted(levels), colors="white")
        lines.set_path_effects(outline)
        drawn = np.asarray(lines.levels, dtype=float)
        placed = _label_places(ax, lines.get_paths(), [f"{level:g}" for level in drawn])
        if placed:
            for label in ax.clabel(
                lines,
                [float(drawn[index]) for index in placed],
                fmt=lambda level: f"{level:g}",
                fontsize=_CONTOUR_SIZE,
                manual=[ax.transData.inverted().transform(place) for place in placed.values()],
            ):
                label.set_path_effects(outline)
    ax.grid(False)
    integer_ticks(ax)
    ax.set_xlabel("k (runs per task)")
    ax.set_ylabel("p (chance a run passes)")
    if value in _TITLES:
        default_title(ax, _TITLES[value])
    return ax


def _label_places(ax: Axes, paths: Sequence[Path], texts: Sequence[str]) -> dict[int, np.ndarray]:
    """Return where to write each contour's label, in pixels, by the contour's index.

    A place lies on its contour, far enough inside `ax` for the label and at least a
    label's height from every other contour and a label's width from every other label;
    of those, the middle one of those twice a label's height clear (or as clear as any).
    A contour with no such place is left out.
    """
    pixels = ax.figure.dpi / 72
    height = _CONTOUR_SIZE * _LINE_SPACING * pixels
    box = ax.bbox
    points = [
        np.concatenate(
            [_along(ax.transData.transform(piece)) for piece in path.to_polygons(closed_only=False)]
            or [np.empty((0, 2))]
        )
        for path in paths
    ]
    chosen: dict[int, np.ndarray] = {}
    for index, (text, here) in enumerate(zip(texts, points, strict=True)):
        width = _text_width(text, _CONTOUR_SIZE) * pixels
        reach = max(width, height) / 2 + pixels * 2
        inside = (
            (here[:, 0] >= box.x0 + reach)
            & (here[:, 0] <= box.x1 - reach)
            & (here[:, 1] >= box.y0 + reach)
            & (here[:, 1] <= box.y1 - reach)
        )
        clearance = np.full(len(here), np.inf)
        for other, there in enumerate(points):
            if other != index and len(there):
                clearance = np.minimum(clearance, _nearest(here, there))
        for place in chosen.values():
            inside &= np.hypot(*(here - place).T) >= width + height
        fits = inside & (clearance >= height)
        if fits.any():
            # clear enough is enough: of the places twice a label's height clear, the middle one
            roomy = np.flatnonzero(fits & (clearance >= min(2 * height, clearance[fits].max())))
            chosen[index] = here[roomy[len(roomy) // 2]]
    return chosen


def _along(vertices: np.ndarray) -> np.ndarray:
    """Return points every `_LABEL_STEP` pixels along the polyline through `vertices`."""
    if len(vertices) < 2:
        return np.asarray(vertices, dtype=float).reshape(-1, 2)
    steps = np.hypot(*np.diff(vertices, axis=0).T)
    travelled = np.r_[0.0, np.cumsum(steps)]
    at = np.arange(0.0, travelled[-1] + _LABEL_STEP / 2, _LABEL_STEP)
    return np.column_stack(
        [np.interp(at, travelled, vertices[:, 0]), np.interp(at, travelled, vertices[:, 1])]
    )


def _nearest(here: np.ndarray, there: np.ndarray) -> np.ndarray:
    """Return how far each point of `here` is from the nearest point of `there`."""
    nearest = np.full(len(here), np.inf)
    for start in range(0, len(there), 512):  # bounded memory: points x 512 at a time
        block = there[start : start + 512]
        distances = np.hypot(
            here[:, None, 0] - block[None, :, 0], here[:, None, 1] - block[None, :, 1]
        )
        nearest = np.minimum(nearest, distances.min(axis=1))
    return nearest


def _text_width(text: str, size: float) -> float:
    """Return how wide `text` is drawn at `size` points, in points."""
    return float(TextPath((0, 0), text, prop=FontProperties(size=size)).get_extents().width)


def _shades() -> ListedColormap:
    """Return the colours of p: viridis without its pale yellow end, which fades into white."""
    return ListedColormap(plt.get_cmap("viridis")(np.linspace(0, 0.85, 256)))


def _evenly(values: pd.Index, most: int) -> pd.Index:
    """Return at most `most` of `values`, evenly spread in their order, the first and last kept."""
    if len(values) <= most:
        return values
    return values[np.unique(np.round(np.linspace(0, len(values) - 1, most)).astype(np.int64))]


def _key_of_p(
    ax: Axes,
    lines: Sequence[Artist],
    ps: pd.Index,
    norm: Normalize,
    label: str,
    shades: ListedColormap,
) -> None:
    """Say which colour is which p: a legend of `lines` beside `ax` for a few, else a colour bar.

    The colour bar marks each p when there are few enough for its ticks and the nearest two
    are a tick label's height apart on it (judged from its size now); else it keeps its own
    ticks.
    """
    if len(ps) <= _MOST_NAMED:
        ax.legend(handles=lines, loc="upper left", bbox_to_anchor=(1.02, 1.0), markerscale=2)
        return
    bar = ax.figure.colorbar(ScalarMappable(norm=norm, cmap=shades), ax=ax, label=label)
    values = np.sort(ps.to_numpy(dtype=float))
    if len(values) > _MOST_LINES or values[-1] == values[0]:
        return
    size = float(FontProperties(size=plt.rcParams["ytick.labelsize"]).get_size_in_points())
    points_per_p = bar.ax.bbox.height * 72 / ax.figure.dpi / (values[-1] - values[0])
    if np.diff(values).min() * points_per_p >= size * _LINE_SPACING:
        bar.set_ticks(values.tolist(), labels=[f"{p:g}" for p in values])


def sweep_lines(
    sweep: pd.DataFrame,
    *,
    value: str = "true_pow_k",
    ps: Sequence[float] | None = None,
    ax: Axes | None = None,
) -> Axes:
    """Draw a value against k, one line per p.

    Parameters
    ----------
    sweep : DataFrame
        What :func:`~passk_lab.simulate_sweep` returns, or any table with
        ``p``, ``k`` and `value` columns; repeated cells are averaged.
    value : str
        The column to draw.
    ps : sequence of float, optional
        The p values to draw, every one of them, each matched to the
        sweep's own p with ``numpy.isclose`` (so ``0.1 + 0.2`` finds
        ``0.3``); at least one, none twice. By default every p of the
        sweep up to 10 of them; past 10, ten spread evenly over the sweep's
        p in order, the least and the greatest among them (more lines merge
        into one another), and the colour bar's label says how many.
    ax : matplotlib Axes, optional
        Where to draw; the current Axes by default.

    Returns
    -------
    matplotlib Axes

    Notes
    -----
    The colour of a line goes with its p. Up to eight lines, a legend beside
    the Axes names them; past eight, a colour bar gives p, with a tick at
    each line's p when there are at most ten and they are a tick label
    apart. Up to five k, each point is marked as well (a single k is a
    point per p) and each k gets a tick. The title says what the lines
    are, as :func:`sweep_heatmap`'s does.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> import passk_lab as pk
    >>> sweep = pk.simulate_sweep([0.8, 0.9, 0.99], range(1, 11), evaluations=10, rng=0)
    >>> fig, ax = plt.subplots()
    >>> ax = sweep_lines(sweep, ax=ax)
    >>> [line.get_label() for line in ax.get_lines()]
    ['p = 0.8', 'p = 0.9', 'p = 0.99']
    >>> plt.close(fig)

    Of a sweep over 50 p, ten lines are drawn:

    >>> many = pk.simulate_sweep(np.round(np.linspace(0.5, 0.99, 50), 3), [1, 5], evaluations=2)
    >>> fig, ax = plt.subplots()
    >>> ax = sweep_lines(many, ax=ax)
    >>> [line.get_label() for line in ax.get_lines()][:3]
    ['p = 0.5', 'p = 0.55', 'p = 0.61']
    >>> len(ax.get_lines())
    10
    >>> plt.close(fig)
    """
    value = _current(value)
    grid = _grid(sweep, value)
    label = "p (chance a run passes)"
    if ps is not None:
        grid = grid.iloc[_positions_of(ps, grid.index)]
    elif len(grid) > _MOST_LINES:
        label += f", {_MOST_LINES} of the sweep's {len(grid)}"
        grid = grid.loc[_evenly(grid.index, _MOST_LINES)]
    ax = axes_of(ax)
    shades = _shades()
    norm = Normalize(float(grid.index.min()), float(grid.index.max()))
    ks = grid.columns.to_numpy()
    few = len(ks) <= _FEW_K
    lines = [
        ax.plot(ks, values, "o-" if few else "-", color=shades(norm(p)), label=f"p = {p:g}")[0]
        for p, values in zip(grid.index.to_numpy(dtype=float), grid.to_numpy(), strict=True)
    ]
    _key_of_p(ax, lines, grid.index, norm, label, shades)
    if few:
        ax.set_xticks(ks)
    else:
        integer_ticks(ax)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("k (runs per task)")
    ax.set_ylabel(_SWEEP_LABELS.get(value, literal(value)))
    if value in _TITLES:
        default_title(ax, _TITLES[value])
    return ax


def _positions_of(ps: Sequence[float], sweep_ps: pd.Index) -> list[int]:
    """Return where each of `ps` is among `sweep_ps` (matched with ``numpy.isclose``).

    Raises ValueError for none, a p not in the sweep, or one given twice.
    """
    wanted = np.asarray(list(ps), dtype=float).ravel()
    if not len(wanted):
        raise ValueError(
            f"ps is empty; pass at least one of the sweep's p {list(sweep_ps)}, or ps=None for "
            f"the default"
        )
    there = sweep_ps.to_numpy(dtype=float)
    matches = [np.flatnonzero(np.isclose(there, p)) for p in wanted]
    unknown = [float(p) for p, found in zip(wanted, matches, strict=True) if not len(found)]
    if unknown:
        raise ValueError(f"p = {unknown} is not in the sweep; choose from {list(sweep_ps)}")
    positions = [int(found[0]) for found in matches]
    twice = sorted({float(there[at]) for at in positions if positions.count(at) > 1})
    if twice:
        raise ValueError(f"ps names p = {twice} more than once; name each p once")
    return positions


def measured_vs_analytic(
    sweep: pd.DataFrame, *, coverage: float = 0.95, ax: Axes | None = None
) -> Axes:
    """Draw the measured pass^k of simulated evaluations against the true ``p^k``.

    Parameters
    ----------
    sweep : DataFrame
        What :func:`~passk_lab.simulate_sweep` returns.
    coverage : float
        The share of evaluations each vertical bar spans (central quantiles).
    ax : matplotlib Axes, optional
        Where to draw; the current Axes by default.

    Returns
    -------
    matplotlib Axes

    Notes
    -----
    One point per (p, k): the mean measured pass^k, and a bar over the
    middle `coverage` of the evaluations (which need not contain the mean
    when passing all k runs is rare). Points on the diagonal mean the
    measure is unbiased; the bars show how far one evaluation can land.
    Each p has its colour, points and bars alike: a legend beside the Axes
    names up to eight, followed by what the marks are; past eight a colour
    bar gives p, and the key of the marks sits below the Axes. No key lies
    on the data; a layout engine (:func:`~passk_lab.plots.style` turns on matplotlib's
    constrained layout) makes room for the keys, and a figure with no
    layout engine keeps them when saved with ``bbox_inches="tight"``. The
    title says what is drawn, unless `ax` has a title already.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import passk_lab as pk
    >>> sweep = pk.simulate_sweep([0.7, 0.9], [1, 5, 10], evaluations=200, rng=0)
    >>> fig, ax = plt.subplots()
    >>> ax = measured_vs_analytic(sweep, ax=ax)
    >>> [(line.get_label(), len(line.get_xdata())) for line in ax.get_lines()[1:]]
    [('p = 0.7', 3), ('p = 0.9', 3)]
    >>> plt.close(fig)
    """
    frame = require_table(sweep, ["p", "k", "true_pow_k", "pass_pow_k"], "simulate_sweep")
    if not 0 < coverage < 1:
        raise ValueError(f"coverage must lie in (0, 1), got {coverage}")
    tail = (1 - coverage) / 2
    cells = frame.groupby(["p", "k"])
    measured = cells["pass_pow_k"]
    drawn = pd.DataFrame(
        {
            "truth": cells["true_pow_k"].first(),
            "mean": measured.mean(),
            "low": measured.quantile(tail),
            "high": measured.quantile(1 - tail),
        }
    ).reset_index()
    evaluations = int(measured.size().min())
    ps = pd.Index(drawn["p"].unique())
    shades = _shades()
    norm = Normalize(float(ps.min()), float(ps.max()))
    ax = axes_of(ax)
    (diagonal,) = ax.plot([0, 1], [0, 1], color="0.5", lw=1, label="measured = true")
    # a range, not error bars around the mean: with rare passes the mean can lie above it
    ax.vlines(
        drawn["truth"],
        drawn["low"],
        drawn["high"],
        colors=shades(norm(drawn["p"].to_numpy())),
        lw=0.8,
        alpha=0.8,
    )
    points = []
    for p in ps.to_numpy(dtype=float):
        rows = drawn[drawn["p"] == p]
        color = shades(norm(p))
        (point,) = ax.plot(rows["truth"], rows["mean"], "o", ms=3, color=color, label=f"p = {p:g}")
        points.append(point)
    ax.set_xlim(0, 1.02)
    ax.set_ylim(0, 1.02)
    ax.set_aspect("equal")
    ax.set_xlabel("true $p^k$")
    ax.set_ylabel("measured pass$^k$")
    marks: list[Artist] = [
        diagonal,
        Line2D(
            [], [], color="0.3", ls="", marker="o", ms=3, label=f"mean of {evaluations} evaluations"
        ),
        Line2D(
            [], [], color="0.3", ls="", marker="|", ms=5, label=f"middle {coverage:.0%} of them"
        ),
    ]
    if len(ps) <= _MOST_NAMED:
        _key_of_p(ax, [*points, *marks], ps, norm, "", shades)
    else:
        _key_of_p(ax, points, ps, norm, "p (chance a run passes)", shades)
        ax.legend(
            handles=marks,
            loc="upper center",
            bbox_to_anchor=(0.5, 0.0),
            bbox_transform=ax.transAxes
            + ScaledTranslation(0, -_below_axis(ax) / 72, ax.figure.dpi_scale_trans),
        )
    default_title(ax, "measured pass$^k$ vs true $p^k$")
    return ax


def _below_axis(ax: Axes) -> float:
    """Return how far below `ax`, in points, its x tick labels and x label reach (about)."""
    size = FontProperties(size=plt.rcParams["xtick.labelsize"]).get_size_in_points()
    label = FontProperties(size=plt.rcParams["axes.labelsize"]).get_size_in_points()
    ticks = float(plt.rcParams["xtick.major.size"]) + float(plt.rcParams["xtick.major.pad"])
    # the x label of a power (p^k) stands taller than a line of plain text
    return ticks + size * _LINE_SPACING + float(plt.rcParams["axes.labelpad"]) + 1.6 * label
