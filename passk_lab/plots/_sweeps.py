"""Simulated sweeps over p and k: a value over the grid, one line per p, measured against true."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.cm import ScalarMappable
from matplotlib.colors import ListedColormap, Normalize

from passk_lab._warnings import warn
from passk_lab.plots._style import POW_K, axes_of, integer_ticks, literal, require_table

__all__ = ["measured_vs_analytic", "sweep_heatmap", "sweep_lines"]

_SWEEP_LABELS = {  # axis labels of the sweep columns
    "true_pow_k": "$p^k$",
    "pass_pow_k": f"mean measured {POW_K}",
    "pass_at_1": "mean measured pass@1",
}


def _current(value: str) -> str:
    """Return the sweep column `value` names: the truth's old name ``p_pow_k`` is ``true_pow_k``."""
    if value != "p_pow_k":
        return value
    warn(
        "the sweep's true p ** k is the column true_pow_k (p_pow_k is the curve's estimate); "
        "value='p_pow_k' goes in the next release",
        DeprecationWarning,
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
        Contour lines, labelled: the p a target pass^k demands at each k.
    ax : matplotlib Axes, optional
        Where to draw; the current Axes by default.

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import passk_lab as pk
    >>> sweep = pk.simulate_sweep([0.8, 0.9, 0.99], range(1, 11), evaluations=10, rng=0)
    >>> fig, ax = plt.subplots()
    >>> ax = sweep_heatmap(sweep, ax=ax)
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('k (runs per task)', 'p (chance a run passes)')
    >>> plt.close(fig)
    """
    value = _current(value)
    grid = _grid(sweep, value)
    ax = axes_of(ax)
    ks, ps = grid.columns.to_numpy(), grid.index.to_numpy()
    mesh = ax.pcolormesh(ks, ps, grid.to_numpy(), vmin=0, vmax=1, shading="nearest")
    ax.figure.colorbar(mesh, ax=ax, label=_SWEEP_LABELS.get(value, literal(value)))
    if len(ks) > 1 and len(ps) > 1 and levels:
        lines = ax.contour(ks, ps, grid.to_numpy(), levels=sorted(levels), colors="white")
        ax.clabel(lines, fmt="%.2g", fontsize=8)
    ax.grid(False)
    integer_ticks(ax)
    ax.set_xlabel("k (runs per task)")
    ax.set_ylabel("p (chance a run passes)")
    return ax


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
        The p values to draw; by default every one (a colour bar replaces the
        legend past eight).
    ax : matplotlib Axes, optional
        Where to draw; the current Axes by default.

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import passk_lab as pk
    >>> sweep = pk.simulate_sweep([0.8, 0.9, 0.99], range(1, 11), evaluations=10, rng=0)
    >>> fig, ax = plt.subplots()
    >>> ax = sweep_lines(sweep, ax=ax)
    >>> [line.get_label() for line in ax.get_lines()]
    ['p = 0.8', 'p = 0.9', 'p = 0.99']
    >>> plt.close(fig)
    """
    value = _current(value)
    grid = _grid(sweep, value)
    if ps is not None:
        unknown = [p for p in ps if p not in grid.index]
        if unknown:
            raise ValueError(f"p = {unknown} is not in the sweep; choose from {list(grid.index)}")
        grid = grid.loc[list(ps)]
    ax = axes_of(ax)
    shades = ListedColormap(plt.get_cmap("viridis")(np.linspace(0, 0.85, 256)))  # no pale yellow
    norm = Normalize(float(grid.index.min()), float(grid.index.max()))
    for p in grid.index:
        row = grid.loc[p]
        ax.plot(row.index, row.to_numpy(), "-", color=shades(norm(float(p))), label=f"p = {p:g}")
    if len(grid) <= 8:
        ax.legend(loc="upper right")
    else:
        ax.figure.colorbar(
            ScalarMappable(norm=norm, cmap=shades), ax=ax, label="p (chance a run passes)"
        )
    integer_ticks(ax)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("k (runs per task)")
    ax.set_ylabel(_SWEEP_LABELS.get(value, literal(value)))
    return ax


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

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import passk_lab as pk
    >>> sweep = pk.simulate_sweep([0.7, 0.9], [1, 5, 10], evaluations=200, rng=0)
    >>> fig, ax = plt.subplots()
    >>> ax = measured_vs_analytic(sweep, ax=ax)
    >>> len(ax.get_lines()[1].get_xdata())  # one point per (p, k)
    6
    >>> plt.close(fig)
    """
    frame = require_table(sweep, ["p", "k", "true_pow_k", "pass_pow_k"], "simulate_sweep")
    if not 0 < coverage < 1:
        raise ValueError(f"coverage must lie in (0, 1), got {coverage}")
    tail = (1 - coverage) / 2
    cells = frame.groupby(["p", "k"])
    truth = cells["true_pow_k"].first().to_numpy()
    mean = cells["pass_pow_k"].mean().to_numpy()
    low = cells["pass_pow_k"].quantile(tail).to_numpy()
    high = cells["pass_pow_k"].quantile(1 - tail).to_numpy()
    evaluations = int(cells.size().min())
    ax = axes_of(ax)
    ax.plot([0, 1], [0, 1], color="0.5", lw=1, label="measured = true")
    # a range, not error bars around the mean: with rare passes the mean can lie above it
    (points,) = ax.plot(truth, mean, "o", ms=3, label=f"mean of {evaluations} evaluations")
    ax.vlines(
        truth,
        low,
        high,
        color=points.get_color(),
        lw=0.8,
        alpha=0.8,
        label=f"middle {coverage:.0%} of them",
    )
    ax.set_xlim(0, 1.02)
    ax.set_ylim(0, 1.02)
    ax.set_aspect("equal")
    ax.set_xlabel("true $p^k$")
    ax.set_ylabel("measured pass$^k$")
    ax.legend(loc="lower right")
    return ax
