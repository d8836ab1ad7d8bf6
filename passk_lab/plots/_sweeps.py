"""Simulated sweeps over p and k: a value over the grid, one line per p, measured against true."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib import patheffects
from matplotlib.axes import Axes
from matplotlib.cm import ScalarMappable
from matplotlib.colors import ListedColormap, Normalize
from matplotlib.lines import Line2D

from passk_lab._warnings import warn
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

_CONTOUR_NAMES = {  # the names of the sweep columns in a contour's label, "<name> = 0.9"
    "true_pow_k": "$p^k$",
    "pass_pow_k": POW_K,
    "pass_at_1": "pass@1",
}

_OUTLINE = "0.15"
"""The dark grey around white lines and writing, so that they read on pale colours too."""

_MOST_LINES = 10
"""The most p a sweep's lines draw unless told which: more merge into one another."""

_MOST_NAMED = 8
"""The most p a legend names; past them, a colour bar gives each line's p."""


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
        Contour lines, labelled with their value (``p^k = 0.9``): the p a
        target pass^k demands at each k. White with a dark outline, they
        read on every colour of the map.
    ax : matplotlib Axes, optional
        Where to draw; the current Axes by default.

    Returns
    -------
    matplotlib Axes

    Notes
    -----
    The title says what the colours are (for ``true_pow_k``,
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
        name = _CONTOUR_NAMES.get(value, literal(value))
        for label in ax.clabel(lines, fmt=lambda level: f"{name} = {level:g}", fontsize=11):
            label.set_path_effects(outline)
    ax.grid(False)
    integer_ticks(ax)
    ax.set_xlabel("k (runs per task)")
    ax.set_ylabel("p (chance a run passes)")
    if value in _TITLES:
        default_title(ax, _TITLES[value])
    return ax


def _shades() -> ListedColormap:
    """Return the colours of p: viridis without its pale yellow end, which fades into white."""
    return ListedColormap(plt.get_cmap("viridis")(np.linspace(0, 0.85, 256)))


def _evenly(values: pd.Index, most: int) -> pd.Index:
    """Return at most `most` of `values`, evenly spread in their order, the first and last kept."""
    if len(values) <= most:
        return values
    return values[np.unique(np.round(np.linspace(0, len(values) - 1, most)).astype(np.int64))]


def _key_of_p(ax: Axes, lines: list[Line2D], ps: pd.Index, norm: Normalize, label: str) -> None:
    """Say which colour is which p: a legend of `lines` beside `ax` for a few, else a colour bar.

    The colour bar marks each p when there are few enough for its ticks.
    """
    if len(ps) <= _MOST_NAMED:
        ax.legend(handles=lines, loc="upper left", bbox_to_anchor=(1.02, 1.0), markerscale=2)
        return
    bar = ax.figure.colorbar(ScalarMappable(norm=norm, cmap=_shades()), ax=ax, label=label)
    if len(ps) <= _MOST_LINES:
        bar.set_ticks(ps.to_numpy(dtype=float).tolist(), labels=[f"{p:g}" for p in ps])


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
        The p values to draw, every one of them. By default every p of the
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
    each line's p when there are at most ten. The title says what the lines
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
        unknown = [p for p in ps if p not in grid.index]
        if unknown:
            raise ValueError(f"p = {unknown} is not in the sweep; choose from {list(grid.index)}")
        grid = grid.loc[list(ps)]
    elif len(grid) > _MOST_LINES:
        label += f", {_MOST_LINES} of the sweep's {len(grid)}"
        grid = grid.loc[_evenly(grid.index, _MOST_LINES)]
    ax = axes_of(ax)
    shades = _shades()
    norm = Normalize(float(grid.index.min()), float(grid.index.max()))
    ks = grid.columns.to_numpy()
    lines = [
        ax.plot(ks, values, "-", color=shades(norm(p)), label=f"p = {p:g}")[0]
        for p, values in zip(grid.index.to_numpy(dtype=float), grid.to_numpy(), strict=True)
    ]
    _key_of_p(ax, lines, grid.index, norm, label)
    integer_ticks(ax)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("k (runs per task)")
    ax.set_ylabel(_SWEEP_LABELS.get(value, literal(value)))
    if value in _TITLES:
        default_title(ax, _TITLES[value])
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
    Each p has its colour, points and bars alike: a legend beside the Axes
    names up to eight, a colour bar gives more; a key at the lower right,
    below the diagonal where no point lies, says what the marks are. The
    title says the points are simulated, unless `ax` has a title already.

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
    cells = frame.groupby(["p", "k"])["pass_pow_k"]
    drawn = pd.DataFrame(
        {
            "truth": frame.groupby(["p", "k"])["true_pow_k"].first(),
            "mean": cells.mean(),
            "low": cells.quantile(tail),
            "high": cells.quantile(1 - tail),
        }
    ).reset_index()
    evaluations = int(cells.size().min())
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
    marks = ax.legend(
        handles=[
            diagonal,
            Line2D(
                [],
                [],
                color="0.3",
                ls="",
                marker="o",
                ms=3,
                label=f"mean of {evaluations} evaluations",
            ),
            Line2D(
                [],
                [],
                color="0.3",
                ls="",
                marker="|",
                ms=10,
                label=f"middle {coverage:.0%} of them",
            ),
        ],
        loc="lower right",
    )
    if len(ps) <= _MOST_NAMED:
        ax.add_artist(marks)  # kept when the legend of p takes its place as the Axes' legend
    _key_of_p(ax, points, ps, norm, "p (chance a run passes)")
    default_title(ax, "simulated evaluations: measured pass$^k$ against the true $p^k$")
    return ax
