"""Many agents on the same tasks: the leaderboard as a forest, every pair's difference as a map."""

from __future__ import annotations

import math
from collections.abc import Hashable

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.colors import Normalize
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from passk_lab._labels import interval_label
from passk_lab._numbers import level_text
from passk_lab.plots._style import axes_of, literal, require_table

__all__ = ["leaderboard_forest", "pairwise_heatmap"]

_METRICS = ("pass_pow_k", "pass_at_k")

_MARKED = {  # attrs["adjust"]: the heatmap's caption of the cells it marks, below `alpha`
    "holm": "Holm-adjusted p \N{LESS-THAN OR EQUAL TO} {alpha:g}",
    "bh": "Benjamini-Hochberg-adjusted p \N{LESS-THAN OR EQUAL TO} {alpha:g}",
    None: "p \N{LESS-THAN OR EQUAL TO} {alpha:g}, not adjusted for the number of pairs",
}

_BAND = "0.9"
"""The grey of the bands of the odd-numbered tie groups in the forest."""

_SEAM = 0.04
"""The white left between two bands of the forest, in rows: two shaded groups that meet."""

_MOST_NUMBERS = 20
"""The most agents whose heatmap cells have their difference written in; past it, marks only."""


def _attr(frame: pd.DataFrame, name: str, made_by: str) -> object:
    """Return ``frame.attrs[name]``, or say that the table lost what `made_by` recorded."""
    if name not in frame.attrs:
        raise ValueError(
            f"the table has no {name!r} in its attrs (a table rebuilt from its rows loses "
            f"them); pass the DataFrame that {made_by} returns"
        )
    return frame.attrs[name]


def _at_k(rows: pd.DataFrame, k: int | None, where: str) -> tuple[int, pd.DataFrame]:
    """Return `k` (by default the largest) and the rows at it; refuse a k the table lacks."""
    present = sorted(rows["k"].unique().tolist())
    if k is None:
        k = present[-1]
    elif k not in present:
        raise ValueError(f"k = {k} is not in the {where}; choose one of {present}")
    return k, rows[rows["k"] == k]


def _metric_at(metric: str, k: int) -> str:
    """Return `metric` at one k as a plot writes it: ``pass$^{5}$``, ``pass@5``, ``pass@1``."""
    if metric == "pass_pow_k" and k > 1:  # pass^1 is pass@1, and is written so
        return f"pass$^{{{k}}}$"
    return f"pass@{k}"


def _agent(value: Hashable) -> str:
    """Return an agent's label: its value, or its values joined by `` / `` (several columns)."""
    return literal(" / ".join(map(str, value)) if isinstance(value, tuple) else value)


def _font_size(agents: int, *, most: float, fewest: float, from_agents: int) -> float:
    """Return a text size for `agents` rows: `most` to `from_agents`, then less, to `fewest`."""
    return max(fewest, most - 0.4 * max(0, agents - from_agents))


def leaderboard_forest(
    board: pd.DataFrame, k: int | None = None, *, ax: Axes | None = None
) -> Axes:
    """Draw a leaderboard at one k: each agent's estimate and interval, best at the top.

    docs/report.md ("The plots in detail") says how it draws each case.

    Parameters
    ----------
    board : DataFrame
        What :func:`~passk_lab.leaderboard` returns.
    k : int, optional
        The k to draw; by default the largest in the table.
    ax : matplotlib Axes, optional
        Where to draw; the current Axes by default.

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    ValueError
        If `board` is not a leaderboard, or has no rows at `k`.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import pandas as pd
    >>> import passk_lab as pk
    >>> runs = pd.concat(
    ...     [
    ...         pk.simulate_coin(p=p, tasks=60, k=3, seed=seed).assign(model=name)
    ...         for name, p, seed in [("a", 0.9, 1), ("b", 0.8, 2), ("c", 0.6, 3)]
    ...     ]
    ... )
    >>> fig, ax = plt.subplots()
    >>> ax = leaderboard_forest(pk.leaderboard(runs, rng=0), ax=ax)
    >>> [label.get_text() for label in ax.get_yticklabels()], ax.get_xlabel()
    (['a', 'b', 'c'], 'pass$^{3}$')
    >>> plt.close(fig)
    """
    frame = require_table(board, ["k", "rank", "rank_low", "rank_high", "tie_group"], "leaderboard")
    metric = _attr(frame, "metric", "leaderboard")
    if metric not in _METRICS:
        raise ValueError(
            f"the leaderboard's attrs['metric'] is {metric!r}, not one of {list(_METRICS)}; "
            f"pass the DataFrame that leaderboard returns"
        )
    by = _attr(frame, "by", "leaderboard")
    if not isinstance(by, list) or not by:
        raise ValueError(
            f"the leaderboard's attrs['by'] is {by!r}, not a list of the columns that name the "
            f"agents; pass the DataFrame that leaderboard returns"
        )
    low, high = f"{metric}_low", f"{metric}_high"
    require_table(frame, [*by, metric, low, high], "leaderboard")
    k, rows = _at_k(frame, k, "leaderboard")
    rows = rows.sort_values("rank", kind="stable")
    agents = len(rows)
    y = np.arange(agents)
    ax = axes_of(ax)
    color = plt.rcParams["axes.prop_cycle"].by_key()["color"][0]
    groups = rows["tie_group"].to_numpy()
    starts = [0, *(np.flatnonzero(groups[1:] != groups[:-1]) + 1).tolist()]
    for start, end in zip(starts, [*starts[1:], agents], strict=True):
        if groups[start] % 2 == 1:  # a run of one odd group's rows
            lowest = start - 0.5 + (_SEAM if start > 0 else 0)
            highest = end - 0.5 - (_SEAM if end < agents else 0)
            ax.axhspan(lowest, highest, color=_BAND, lw=0, zorder=0)
    ax.hlines(y, rows[low].to_numpy(), rows[high].to_numpy(), color=color, lw=1.8, zorder=2)
    ax.plot(rows[metric].to_numpy(), y, "o", color=color, zorder=3)
    size = _font_size(agents, most=9, fewest=5, from_agents=20)
    labels = rows[by[0]] if len(by) == 1 else rows[by].itertuples(index=False, name=None)
    ax.set_yticks(y, [_agent(label) for label in labels], fontsize=size)
    for row, (rank, rank_low, rank_high, group) in enumerate(
        rows[["rank", "rank_low", "rank_high", "tie_group"]].itertuples(index=False)
    ):
        ax.text(
            1.02,
            row,
            f"rank {rank:g} ({rank_low:g}\N{EN DASH}{rank_high:g}), group {group:g}",
            transform=ax.get_yaxis_transform(),
            va="center",
            fontsize=size,
        )
    ax.set_ylim(agents - 0.5, -0.5)  # the best at the top
    ends = rows[[metric, high]].to_numpy(dtype=float)
    top = float(np.nanmax(ends)) if np.isfinite(ends).any() else 1.0
    ax.set_xlim(0, min(1.0, math.ceil(round((top + 0.02) * 10, 6)) / 10))
    ax.grid(False, axis="y")
    label = _metric_at(str(metric), k)
    ax.set_xlabel(label)
    level = interval_label(frame)
    handles: list[Artist] = [
        Line2D([], [], color=color, marker="o", label=f"{label} and its {level}"),
        Patch(
            color=_BAND,
            label="tie group (odd ones shaded): agents not told apart;\n"
            "group 1: no agent is shown to beat them",
        ),
        Line2D(
            [],
            [],
            ls="none",
            label=f"at right: rank (its {level.replace('CI', 'simultaneous interval')}) "
            "and tie group",
        ),
    ]
    ax.legend(handles=handles, loc="lower left", bbox_to_anchor=(0, 1.01), fontsize=8)
    return ax


def _agents_in_order(rows: pd.DataFrame) -> list[Hashable]:
    """Return the agents of a pairwise table, the highest mean value first (ties as seen)."""
    values: dict[Hashable, list[float]] = {}
    for side in ("a", "b"):
        for agent, value in zip(rows[side], rows[f"value_{side}"], strict=True):
            values.setdefault(agent, []).append(float(value))
    means = {
        agent: float(np.nanmean(seen)) if np.isfinite(seen).any() else -math.inf
        for agent, seen in values.items()
    }
    return sorted(means, key=lambda agent: -means[agent])


def pairwise_heatmap(
    pairs: pd.DataFrame,
    metric: str = "pass_pow_k",
    k: int | None = None,
    *,
    ax: Axes | None = None,
) -> Axes:
    """Draw every pair's difference at one metric and k as an agents x agents map.

    docs/report.md ("The plots in detail") says how it draws each case.

    Parameters
    ----------
    pairs : DataFrame
        What :func:`~passk_lab.pairwise` returns.
    metric : {"pass_pow_k", "pass_at_k"}
        The metric whose differences to draw.
    k : int, optional
        The k to draw; by default the largest in the table at `metric`.
    ax : matplotlib Axes, optional
        Where to draw; the current Axes by default.

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    ValueError
        If `pairs` is not a pairwise table, has no rows at `metric` and `k`,
        or holds a pair twice.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import pandas as pd
    >>> import passk_lab as pk
    >>> runs = pd.concat(
    ...     [
    ...         pk.simulate_coin(p=p, tasks=60, k=3, seed=seed).assign(model=name)
    ...         for name, p, seed in [("a", 0.9, 1), ("b", 0.8, 2), ("c", 0.6, 3)]
    ...     ]
    ... )
    >>> fig, ax = plt.subplots()
    >>> ax = pairwise_heatmap(pk.pairwise(runs, ks=[3]), ax=ax)
    >>> [text.get_text() for text in ax.texts[:3]]  # row a: a - b, a - c; row b: b - a
    ['0.37*', '0.52*', '-0.37*']
    >>> plt.close(fig)
    """
    frame = require_table(
        pairs,
        ["a", "b", "metric", "k", "value_a", "value_b", "difference", "p_adjusted"],
        "pairwise",
    )
    level = _attr(frame, "confidence_level", "pairwise")
    adjust = _attr(frame, "adjust", "pairwise")
    if not isinstance(level, float) or adjust not in _MARKED:
        raise ValueError(
            f"the table's attrs give confidence_level {level!r} and adjust {adjust!r}, not a "
            f"level in (0, 1) and one of 'holm', 'bh' or None; pass the DataFrame that pairwise "
            f"returns"
        )
    rows = frame[frame["metric"] == metric]
    if rows.empty:
        raise ValueError(
            f"the table has no rows for metric {metric!r}; choose one of "
            f"{sorted(frame['metric'].unique())}"
        )
    k, rows = _at_k(rows, k, "table")
    order = _agents_in_order(rows)
    place = {agent: index for index, agent in enumerate(order)}
    agents = len(order)
    matrix = np.full((agents, agents), np.nan)
    marked = np.zeros((agents, agents), dtype=bool)
    alpha = 1 - level
    seen: set[frozenset[Hashable]] = set()
    for a, b, difference, p in rows[["a", "b", "difference", "p_adjusted"]].itertuples(index=False):
        pair = frozenset((a, b))
        if pair in seen:
            raise ValueError(
                f"the pair ({a!r}, {b!r}) is in the table twice at {metric} k = {k}; pass the "
                f"DataFrame that pairwise returns (each pair once)"
            )
        seen.add(pair)
        i, j = place[a], place[b]
        matrix[i, j], matrix[j, i] = difference, 0.0 - difference  # never -0.00
        marked[i, j] = marked[j, i] = p <= alpha  # as the leaderboard's ranks count
    largest = float(np.nanmax(np.abs(matrix))) if np.isfinite(matrix).any() else 0.0
    norm = Normalize(-(largest or 1.0), largest or 1.0)
    ax = axes_of(ax)
    cmap = plt.get_cmap("RdBu")
    image = ax.imshow(matrix, cmap=cmap, norm=norm, aspect="auto", interpolation="nearest")
    ax.figure.colorbar(image, ax=ax, label="difference (row \N{MINUS SIGN} column)")
    size = _font_size(agents, most=9, fewest=5, from_agents=5)
    numbers = agents <= _MOST_NUMBERS
    for i, j in zip(*np.nonzero(np.isfinite(matrix)), strict=True):
        value = matrix[i, j]
        mark = "*" if marked[i, j] else ""
        if numbers or mark:
            ax.text(
                j,
                i,
                f"{value:.2f}{mark}" if numbers else mark,
                ha="center",
                va="center",
                fontsize=size if numbers else min(9.0, 1.6 * size),  # a mark alone can be larger
                color="white" if abs(norm(value) - 0.5) > 0.3 else "black",
            )
    labels = [_agent(agent) for agent in order]
    ticks = _font_size(agents, most=9, fewest=5, from_agents=8)
    ax.set_xticks(
        range(agents), labels, rotation=45, ha="right", rotation_mode="anchor", fontsize=ticks
    )
    ax.set_yticks(range(agents), labels, fontsize=ticks)
    ax.grid(False)
    ax.set_title(
        f"{_metric_at(metric, k)}, row \N{MINUS SIGN} column\n"
        f"* {_MARKED[adjust].format(alpha=alpha)} ({level_text(level)} level)"
    )
    return ax
