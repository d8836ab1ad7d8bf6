"""Simulated sweeps over p and k: one line per p, and measured against true.

The map of a value over the grid is :mod:`passk_lab.plots._sweep_heatmap`'s;
what the sweep plots share (the columns' labels, the colour of each p) is
:mod:`passk_lab.plots._sweep_parts`'.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from matplotlib.transforms import ScaledTranslation

from passk_lab.plots._curve_axes import k_axis
from passk_lab.plots._style import axes_of, default_title, require_table
from passk_lab.plots._sweep_parts import (
    MOST_LINES,
    P_LABEL,
    TITLES,
    current,
    grid_of,
    label_of,
    p_colours,
)

__all__ = ["measured_vs_analytic", "sweep_lines"]

_FEW_K = 5
"""The most k at which a sweep's lines mark each point: with one k a line alone is not seen."""
_BAR_SHARE = 0.6
"""The height of measured_vs_analytic's colour bar, as a share of the axes': its marks' key
stands under it, clear of the title."""
_KEY_GAP = 0.15
"""The space between that colour bar and the key above it, in inches."""


def _evenly(values: pd.Index, most: int) -> pd.Index:
    """Return at most `most` of `values`, evenly spread in their order, the first and last kept."""
    if len(values) <= most:
        return values
    return values[np.unique(np.round(np.linspace(0, len(values) - 1, most)).astype(np.int64))]


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
    The colour of a line goes with its p. Up to seven lines take the
    palette's hues in order of p, named by a legend beside the Axes; past
    seven, a map of p colours them and a colour bar gives p, with a tick at
    each line's p when there are at most ten and they are a tick label
    apart. Up to five k, each point is marked as well (a single k is a
    point per p). Every k gets a labelled tick, k = 1 included, as far as
    their labels fit. The title says what the lines are, as
    :func:`~passk_lab.plots.sweep_heatmap`'s does.

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
    value = current(value)
    grid = grid_of(sweep, value)
    label = P_LABEL
    if ps is not None:
        grid = grid.iloc[_positions_of(ps, grid.index)]
    elif len(grid) > MOST_LINES:
        label += f", {MOST_LINES} of the sweep's {len(grid)}"
        grid = grid.loc[_evenly(grid.index, MOST_LINES)]
    ax = axes_of(ax)
    colours = p_colours(grid.index.to_numpy(dtype=float))
    ks = grid.columns.to_numpy(dtype=float)
    few = len(ks) <= _FEW_K
    lines = [
        ax.plot(ks, values, "o-" if few else "-", color=colours.of(p), label=f"p = {p:g}")[0]
        for p, values in zip(grid.index.to_numpy(dtype=float), grid.to_numpy(), strict=True)
    ]
    colours.key(ax, lines, label)
    k_axis(ax, ks)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("k (runs per task)")
    ax.set_ylabel(label_of(value))
    if value in TITLES:
        default_title(ax, TITLES[value])
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
    Each p has its colour, points and bars alike, as in
    :func:`~passk_lab.plots.sweep_lines`: a legend beside the Axes names up
    to seven p, followed by what the marks are; past seven a colour bar gives
    p, and the key of the marks stands under it. No key lies on the data; a
    layout engine (:func:`~passk_lab.plots.style` turns on matplotlib's
    constrained layout) makes room for the keys, and a figure with no layout
    engine keeps them when saved with ``bbox_inches="tight"``. The title says
    what is drawn, unless `ax` has a title already.

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
    colours = p_colours(drawn["p"].unique())
    ax = axes_of(ax)
    (diagonal,) = ax.plot([0, 1], [0, 1], color="0.5", lw=1, label="measured = true")
    # a range, not error bars around the mean: with rare passes the mean can lie above it
    ax.vlines(
        drawn["truth"],
        drawn["low"],
        drawn["high"],
        colors=[colours.of(p) for p in drawn["p"].to_numpy(dtype=float)],
        lw=0.8,
        alpha=0.8,
    )
    points = []
    for p in colours.ps:
        rows = drawn[np.isclose(drawn["p"], p)]
        (point,) = ax.plot(
            rows["truth"], rows["mean"], "o", ms=3, color=colours.of(p), label=f"p = {p:g}"
        )
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
    handles = [*points, *marks] if colours.named else points
    bar = colours.key(ax, handles, markerscale=2, shrink=_BAR_SHARE)
    if bar is not None:  # the marks' key right of the axes too, under the shortened colour bar
        bar.ax.legend(
            handles=marks,
            loc="upper left",
            bbox_to_anchor=(0.0, 0.0),
            bbox_transform=bar.ax.transAxes
            + ScaledTranslation(0.0, -_KEY_GAP, ax.figure.dpi_scale_trans),
            borderaxespad=0.0,
        )
    default_title(ax, "measured pass$^k$ vs true $p^k$")
    return ax
