"""What reliability costs: each agent's pass^k against what its runs cost, and the frontier."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from passk_lab._data.costs import COST_PREFIX, cost_names
from passk_lab._labels import interval_label
from passk_lab._typing import Bools, Floats
from passk_lab.plots._room import legend_columns, points, text_width, wrapped
from passk_lab.plots._style import PALETTE, axes_of, literal, require_table

__all__ = ["cost_frontier", "cost_reliability"]

_NO_COST = (
    "the table has no cost column; reliability_curve adds cost_<name> (what k runs of a task "
    "cost) when the runs table has a column cost_<name> with each run's cost, such as "
    "cost_usd: pass reliability_curve(runs, by='model') of such runs"
)

_PER = ("task", "run")

_DOMINATED = "0.55"
"""The grey of the agents off the frontier."""


def cost_frontier(cost: Floats, value: Floats) -> Bools:
    """Return which points are on the cost-efficient frontier: none is as cheap and as good.

    A point is off it when another costs no more and is worth at least as
    much, and is better in one of the two; two points alike are both on it.
    Points with a NaN are on no frontier and count for none.

    Parameters
    ----------
    cost, value : numpy.ndarray
        Per point: what it costs, and what it is worth (more is better).

    Returns
    -------
    numpy.ndarray of bool

    Examples
    --------
    >>> cost_frontier(np.array([1.0, 2.0, 3.0, 2.5]), np.array([0.5, 0.7, 0.9, 0.6]))
    array([ True,  True,  True, False])
    """
    cost, value = np.asarray(cost, dtype=np.float64), np.asarray(value, dtype=np.float64)
    known = np.isfinite(cost) & np.isfinite(value)
    cheaper = cost[None, :] <= cost[:, None]  # [i, j]: j costs no more than i
    better = value[None, :] >= value[:, None]
    strictly = (cost[None, :] < cost[:, None]) | (value[None, :] > value[:, None])
    beaten = np.any(cheaper & better & strictly & known[None, :], axis=1)
    return np.asarray(known & ~beaten, dtype=np.bool_)


def _cost_column(frame: pd.DataFrame, cost: str | None) -> str:
    """Return the cost column to draw: the one named, or the table's only one."""
    names = [
        name
        for name in cost_names(frame.columns)
        if not name.endswith("_per_pass_pow_k") and f"{name}_per_pass_pow_k" in frame.columns
    ]
    if not names:
        raise ValueError(_NO_COST)
    if cost is None:
        if len(names) > 1:
            raise ValueError(
                f"the table has {len(names)} costs, {', '.join(map(repr, names))}; choose one "
                f"with cost=, such as cost={names[0].removeprefix(COST_PREFIX)!r}"
            )
        return names[0]
    name = cost if cost.startswith(COST_PREFIX) else f"{COST_PREFIX}{cost}"
    if name not in names:
        raise ValueError(
            f"cost={cost!r} is not a cost of the table; choose one of "
            f"{[each.removeprefix(COST_PREFIX) for each in names]}"
        )
    return name


def _at_k(frame: pd.DataFrame, k: int | None) -> tuple[int, pd.DataFrame]:
    """Return `k` (by default the largest measured) and the rows at it; refuse another."""
    measured = frame[np.isfinite(frame["pass_pow_k"].to_numpy(dtype=np.float64))]
    present = sorted(measured["k"].unique().tolist())
    if not present:
        raise ValueError("the curve has no measured pass^k to draw; pass a curve of runs")
    if k is None:
        k = int(present[-1])
    elif k not in present:
        raise ValueError(f"k = {k} has no measured pass^k in the curve; choose one of {present}")
    return k, measured[measured["k"] == k]


def _names(rows: pd.DataFrame, by: list[str]) -> list[str]:
    """Return each row's group as a plot writes it: its values joined by `` / ``."""
    if not by:
        return [""] * len(rows)
    return [literal(" / ".join(map(str, key))) for key in rows[by].itertuples(index=False)]


def cost_reliability(
    curve: pd.DataFrame,
    k: int | None = None,
    *,
    cost: str | None = None,
    per: str = "task",
    log: bool = False,
    ax: Axes | None = None,
) -> Axes:
    """Draw each agent's pass^k against what it costs, and the cost-efficient frontier.

    docs/report.md ("The plots in detail") says how it draws each case.

    Parameters
    ----------
    curve : DataFrame
        What :func:`~passk_lab.reliability_curve` returns, with ``by=`` for
        several agents, from runs with a ``cost_<name>`` column (each run's
        cost): its ``cost_<name>`` columns are what k runs of a task cost.
    k : int, optional
        The k to draw; by default the largest with a measured pass^k.
    cost : str, optional
        The cost to draw, by name (``"usd"``) or column (``"cost_usd"``); by
        default the table's only one.
    per : {"task", "run"}
        Draw the mean cost of a task's k runs, or of one run.
    log : bool, default False
        A logarithmic cost axis, for agents whose costs differ tenfold or more.
    ax : matplotlib Axes, optional
        Where to draw; the current Axes by default.

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    ValueError
        If the table has no cost column (saying how to get one), several and
        no `cost`, no measured pass^k at `k`, or `per` is not a choice.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import pandas as pd
    >>> import passk_lab as pk
    >>> runs = pd.concat(
    ...     [
    ...         pk.simulate_coin(p=p, tasks=40, k=3, seed=seed).assign(model=name, cost_usd=usd)
    ...         for name, p, seed, usd in [("a", 0.9, 1, 0.5), ("b", 0.8, 2, 0.1), ("c", 0.7, 3, 1)]
    ...     ]
    ... )
    >>> fig, ax = plt.subplots()
    >>> ax = cost_reliability(pk.reliability_curve(runs, by="model", rng=0), ax=ax)
    >>> sorted(text.get_text() for text in ax.texts)  # each agent named beside its point
    ['a', 'b', 'c']
    >>> ax.get_xlabel()
    'usd per task (3 runs)'
    >>> [text.get_text().split(":")[0] for text in ax.get_legend().get_texts()]
    ['cost-efficient frontier', 'dominated']
    >>> plt.close(fig)
    """
    frame = require_table(
        curve, ["k", "pass_pow_k", "pass_pow_k_low", "pass_pow_k_high"], "reliability_curve"
    )
    name = _cost_column(frame, cost)
    if per not in _PER:
        raise ValueError(f"per must be 'task' or 'run', got {per!r}")
    by = [str(column) for column in frame.columns[: list(frame.columns).index("k")]]
    k, rows = _at_k(frame, k)
    spent = rows[name].to_numpy(dtype=np.float64) / (k if per == "run" else 1)
    value, low, high = (
        rows[column].to_numpy(dtype=np.float64)
        for column in ("pass_pow_k", "pass_pow_k_low", "pass_pow_k_high")
    )
    names = _names(rows, by)
    priced = np.isfinite(spent)
    ax = axes_of(ax)
    handles = _draw_points(ax, spent, value, low, high)
    unit = name.removeprefix(COST_PREFIX)
    unpriced = [text for text, known in zip(names, priced, strict=True) if not known]
    if unpriced:
        handles.append(
            Line2D([], [], ls="none", label=f"no {unit} recorded: {', '.join(unpriced)}")
        )
    runs = f"{k} run{'s' if k != 1 else ''}"
    ax.set_xlabel(f"{unit} per task ({runs})" if per == "task" else f"{unit} per run")
    ax.set_ylabel(f"{f'pass$^{{{k}}}$' if k > 1 else 'pass@1'}, {interval_label(frame)}")
    if log:  # ticks at 1, 2 and 5 of each power of ten, written as the amounts they are
        ax.set_xscale("log")
        ax.xaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda amount, _: f"{amount:g}"))
        ax.xaxis.set_minor_formatter(NullFormatter())
    else:
        ax.set_xlim(0, 1.08 * float(np.nanmax(spent)) if priced.any() else 1.0)
    top = float(np.nanmax(high[priced])) if priced.any() else 1.0
    ax.set_ylim(0, min(1.02, math.ceil(round((top + 0.02) * 10, 6)) / 10))
    key = _key_above(ax, handles)
    _name_points(ax, spent[priced], value[priced], list(np.array(names)[priced]), key)
    return ax


def _draw_points(ax: Axes, spent: Floats, value: Floats, low: Floats, high: Floats) -> list[Artist]:
    """Draw the agents with their intervals, the frontier filled and joined; return its key."""
    on, priced = cost_frontier(spent, value), np.isfinite(spent)
    handles: list[Artist] = []
    for members, color, fill, label in (
        (on, PALETTE[0], PALETTE[0], "cost-efficient frontier"),
        (priced & ~on, _DOMINATED, "white", "dominated: another is as cheap and as reliable"),
    ):
        if members.any():
            ax.errorbar(
                spent[members],
                value[members],
                yerr=[value[members] - low[members], high[members] - value[members]],
                fmt="o",
                color=color,
                mfc=fill,
                ms=6,
                capsize=2,
                zorder=3,
            )
            handles.append(
                Line2D([], [], color=color, mfc=fill, marker="o", ls="none", label=label)
            )
    order = np.argsort(spent[on], kind="stable")
    ax.plot(spent[on][order], value[on][order], color=PALETTE[0], lw=1.2, drawstyle="steps-post")
    return handles


def _key_above(ax: Axes, handles: list[Artist]) -> float:
    """Put the key of `handles` above `ax`, in as many columns as fit; return its height in points.

    Its labels are wrapped to the figure's width, from the Axes' left edge.
    """
    figure = ax.get_figure(root=True)
    room = 72 * (figure.get_figwidth() if figure is not None else 6.4) - _LEFT  # to the right edge
    labels = wrapped([str(handle.get_label()) for handle in handles], room, 60)
    for handle, label in zip(handles, labels, strict=True):
        handle.set_label(label)
    columns = legend_columns(labels, room)
    ax.legend(
        handles=handles, loc="lower left", bbox_to_anchor=(0, 1.01), ncols=columns, borderaxespad=0
    )
    lines = max(label.count("\n") + 1 for label in labels) * -(-len(labels) // columns)
    return 1.3 * points("legend.fontsize") * lines + 8


_PLACES = (
    (5, 3, "left", "bottom"),
    (5, -3, "left", "top"),
    (-5, 3, "right", "bottom"),
    (-5, -3, "right", "top"),
)
"""Where a point's name may go, in points from it: right above, right below, left above, below."""

_LEFT = 48.0
"""About how far, in points, the Axes' left edge (where the key starts) is from the figure's,
and a margin at the right."""

_NAME_SIZE = 8.0
"""The size of the agents' names beside their points."""

Box = tuple[float, float, float, float]


def _name_points(ax: Axes, x: np.ndarray, y: np.ndarray, names: list[str], key: float) -> None:
    """Write each point's name beside it, at the first place that overlaps no name written.

    The first such place inside the Axes, if there is one: right above the
    point, right below, left above, left below.

    The places are judged at the size the Axes will be drawn at: its own in a
    figure with no layout engine, else its figure's less the `key`'s height (in
    points, above it) and the labels'. The names are written from the most reliable
    down, so that a crowd of cheap, unreliable agents gives way to the agents
    a reader looks for first.
    """
    width, height = _drawn_size(ax, key)
    to_axes = ax.transLimits  # data to the Axes' own 0-1 square, as the limits now are
    taken: list[Box] = []
    for index in np.argsort(-y, kind="stable"):
        fx, fy = to_axes.transform(ax.transScale.transform((x[index], y[index])))
        px, py = fx * width, fy * height
        wide, high = text_width(names[index], _NAME_SIZE), _NAME_SIZE * 1.2
        boxes = []
        for dx, dy, ha, va in _PLACES:
            left = px + dx - (wide if ha == "right" else 0)
            bottom = py + dy - (high if va == "top" else 0)
            boxes.append((left, bottom, left + wide, bottom + high))
        free = [i for i, box in enumerate(boxes) if not any(_overlap(box, b) for b in taken)]
        inside = [i for i in free if boxes[i][0] >= 0 and boxes[i][2] <= width]
        place = (inside or free or [0])[0]
        taken.append(boxes[place])
        dx, dy, ha, va = _PLACES[place]
        ax.annotate(
            names[index],
            (x[index], y[index]),
            xytext=(dx, dy),
            textcoords="offset points",
            ha=ha,
            va=va,
            fontsize=_NAME_SIZE,
        )


def _drawn_size(ax: Axes, key: float) -> tuple[float, float]:
    """Return about how wide and tall, in points, `ax` is drawn, a key `key` points tall above."""
    figure = ax.get_figure(root=True)
    if figure is None or figure.get_layout_engine() is None:
        return ax.bbox.width * 72 / ax.figure.dpi, ax.bbox.height * 72 / ax.figure.dpi
    ticks, label = points("ytick.labelsize"), points("axes.labelsize")
    left = 3 * ticks + 2.5 * label + 12  # tick labels such as 0.5, the label, the pads
    bottom = 1.3 * ticks + 1.3 * label + 12
    width = figure.get_figwidth() * 72 * ax.get_position().width / 0.775 - left
    height = figure.get_figheight() * 72 * ax.get_position().height / 0.77 - bottom - key
    return max(width, 1.0), max(height, 1.0)


def _overlap(one: Box, other: Box) -> bool:
    """Whether two boxes, (left, bottom, right, top), overlap."""
    return one[0] < other[2] and other[0] < one[2] and one[1] < other[3] and other[1] < one[3]
