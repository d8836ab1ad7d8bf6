"""Many agents on the same tasks: the leaderboard as a forest, every pair's difference as a map."""

from __future__ import annotations

import math
from collections.abc import Hashable

import numpy as np
import pandas as pd
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.colors import LinearSegmentedColormap, Normalize
from matplotlib.image import AxesImage
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from passk_lab._labels import interval_label
from passk_lab._numbers import level_text
from passk_lab.plots._room import legend_columns, points, text_width
from passk_lab.plots._style import PALETTE, axes_of, literal, require_table

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
    color = PALETTE[0]
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
    _forest_key(ax, label, interval_label(frame), size)
    return ax


def _forest_key(ax: Axes, label: str, level: str, size: float) -> None:
    """Key the forest above its Axes: its marks on the left, a header over the ranks' column.

    The key takes one line, or two where the figure is too narrow for one; the
    header says what the ranks' column holds, at the key's size. `size` is the
    ranks' own, by which their column's width is judged.
    """
    handles: list[Artist] = [
        Line2D([], [], color=PALETTE[0], marker="o", label=f"{label}, {level}"),
        Patch(color=_BAND, label="odd tie groups"),
    ]
    figure = ax.get_figure(root=True)
    room = 0.9 * 72 * (figure.get_figwidth() if figure is not None else 6.4) - _RANKS * size
    key = min(8.0, points("legend.fontsize"))
    columns = legend_columns([str(handle.get_label()) for handle in handles], room, key)
    ax.legend(
        handles=handles,
        loc="lower left",
        bbox_to_anchor=(0, 1.01),
        ncols=columns,
        fontsize=key,
        borderaxespad=0,
    )
    ax.text(
        1.02,
        1.01,
        f"rank ({level.replace('CI', 'simultaneous CI')}),\ntie group (not told apart)",
        transform=ax.transAxes,
        va="bottom",
        fontsize=key,
    )


_RANKS = 11
"""About how wide the ranks' column is, in sizes of its text: ``rank 8 (4-8), group 3``."""


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
    """Draw every pair's difference at one metric and k, each pair once, as a triangle.

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
    >>> [label.get_text() for label in ax.get_yticklabels()]  # the rows: all but the last
    ['a', 'b']
    >>> [label.get_text() for label in ax.get_xticklabels()]  # the columns: all but the first
    ['b', 'c']
    >>> [text.get_text() for text in ax.texts]  # a - b, a - c; b - c
    ['0.37*', '0.52*', '0.15']
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
    matrix, marked = _triangle(rows, order, 1 - level, f"{metric} k = {k}")
    ax = axes_of(ax)
    largest = float(np.nanmax(np.abs(matrix))) if np.isfinite(matrix).any() else 0.0
    norm = Normalize(-(largest or 1.0), largest or 1.0)
    image = ax.imshow(matrix, cmap=_DIVERGING, norm=norm, aspect="auto", interpolation="nearest")
    agents = len(order)
    numbers = agents <= _MOST_NUMBERS
    if not numbers:  # the cells say nothing in figures: the colours need their key
        ax.figure.colorbar(image, ax=ax, label="difference (row \N{MINUS SIGN} column)")
    _write_cells(ax, image, matrix, marked, numbers)
    labels = [_agent(agent) for agent in order]
    ticks = _font_size(agents, most=9, fewest=5, from_agents=8)
    ax.set_yticks(range(agents - 1), labels[:-1], fontsize=ticks)
    column = ax.bbox.width * 72 / ax.figure.dpi / (agents - 1)  # in points, as laid out now
    level_labels = max(text_width(label, ticks) for label in labels[1:]) <= 0.9 * column
    ax.set_xticks(
        range(agents - 1),
        labels[1:],
        rotation=0 if level_labels else 45,
        ha="center" if level_labels else "left",
        rotation_mode="anchor",
        fontsize=ticks,
    )
    ax.xaxis.tick_top()  # over the first row, which every column has a cell in
    ax.tick_params(length=0)
    ax.spines[:].set_visible(False)
    ax.grid(False)
    ax.set_title(
        f"{_metric_at(metric, k)}: row \N{MINUS SIGN} column, each pair once\n"
        f"* {_MARKED[adjust].format(alpha=1 - level)} ({level_text(level)} level)"
    )
    return ax


_DIVERGING = LinearSegmentedColormap.from_list(
    "passk_difference", [PALETTE[1], "white", PALETTE[0]]
)
"""The heatmap's colours: vermilion where the row's agent is behind, white at 0, blue ahead."""

_DARK = 0.45
"""The luminance of a cell below which its writing is white, not black."""


def _triangle(
    rows: pd.DataFrame, order: list[Hashable], alpha: float, where: str
) -> tuple[np.ndarray, np.ndarray]:
    """Return the differences row - column and their marks, agents `order[:-1]` x `order[1:]`.

    The pair of agents i < j in `order` is the cell (i, j - 1): the agent ahead
    in the order is the row, so each pair is drawn once; the cells under the
    diagonal are NaN. A pair is marked when its adjusted p is at most `alpha`,
    as the leaderboard's ranks count it.
    """
    place = {agent: index for index, agent in enumerate(order)}
    size = len(order) - 1
    matrix = np.full((size, size), np.nan)
    marked = np.zeros((size, size), dtype=bool)
    seen: set[frozenset[Hashable]] = set()
    for a, b, difference, p in rows[["a", "b", "difference", "p_adjusted"]].itertuples(index=False):
        pair = frozenset((a, b))
        if pair in seen:
            raise ValueError(
                f"the pair ({a!r}, {b!r}) is in the table twice at {where}; pass the "
                f"DataFrame that pairwise returns (each pair once)"
            )
        seen.add(pair)
        i, j = place[a], place[b]
        row, column = min(i, j), max(i, j) - 1
        matrix[row, column] = difference if i < j else 0.0 - difference  # never -0.00
        marked[row, column] = p <= alpha
    return matrix, marked


def _write_cells(
    ax: Axes, image: AxesImage, matrix: np.ndarray, marked: np.ndarray, numbers: bool
) -> None:
    """Write each cell's difference and mark (the mark alone without `numbers`), row by row."""
    agents = len(matrix) + 1
    size = _font_size(agents, most=9, fewest=5, from_agents=5)
    for i, j in zip(*np.nonzero(np.isfinite(matrix)), strict=True):
        value = matrix[i, j]
        mark = "*" if marked[i, j] else ""
        if not (numbers or mark):
            continue
        red, green, blue, _ = image.to_rgba(value)
        dark = 0.2126 * red + 0.7152 * green + 0.0722 * blue < _DARK
        ax.text(
            j,
            i,
            f"{value:.2f}{mark}" if numbers else mark,
            ha="center",
            va="center",
            fontsize=size if numbers else min(9.0, 1.6 * size),  # a mark alone can be larger
            color="white" if dark else "black",
        )
