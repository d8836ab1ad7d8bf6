"""Ranks from the paired tests: each agent's rank, its simultaneous rank interval and tie group.

At each k, agent i is shown to be better than agent j when i's estimate is
higher and the Holm-adjusted paired test of the pair rejects no difference at
level ``1 - confidence_level``. Agent j's rank is then at least one more than
the number of agents shown to be better than it, and at most the number of
agents less those shown to be worse (:func:`rank_intervals`);
:func:`ranked_board` lays the ranks of every k out as a leaderboard.
docs/leaderboards.md says what the intervals' coverage rests on, and measures it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from passk_lab._typing import Bools, Floats, Ints

__all__ = ["rank_intervals", "ranked_board", "shown_better"]


def rank_intervals(values: Floats, better: Bools) -> tuple[Ints, Ints, Ints, Ints]:
    """Return each agent's rank, rank interval and tie group at one k.

    `better[i, j]` says agent i is shown to be better than agent j (its
    estimate is higher). An agent's tie group is 1 when no agent is shown
    better than it, and otherwise one more than the largest group of those
    that are: no two agents of a group are told apart.

    Examples
    --------
    Only the first agent is shown better than the second; the third, a little
    below the second, is told apart from neither, and shares group 1 with the
    first:

    >>> import numpy as np
    >>> better = np.zeros((3, 3), dtype=bool)
    >>> better[0, 1] = True
    >>> [part.tolist() for part in rank_intervals(np.array([0.9, 0.8, 0.79]), better)]
    [[1, 2, 3], [1, 2, 1], [2, 3, 3], [1, 2, 1]]
    """
    count = len(values)
    # ties: equal to rounding, relative to the values' size (pass^k can be 1e-300 and differ)
    gap = values[None, :] - values[:, None]  # [j, l]: l's value less j's
    scale = np.maximum(np.abs(values[None, :]), np.abs(values[:, None]))
    rank: Ints = 1 + (gap > 1e-12 * scale).sum(axis=1)
    low = 1 + better.sum(axis=0)
    high = count - better.sum(axis=1)
    group = np.ones(count, dtype=np.int64)
    for agent in np.argsort(-values, kind="stable").tolist():  # those shown better come first
        above = np.flatnonzero(better[:, agent])
        if len(above):
            group[agent] = 1 + int(group[above].max())
    return rank.astype(np.int64), low.astype(np.int64), high.astype(np.int64), group


def shown_better(
    estimates: Floats, p_adjusted: Floats, pairs: list[tuple[int, int]], alpha: float
) -> Bools:
    """Return ``better[i, j]``: agent i's estimate is higher than j's and their test rejects.

    `p_adjusted` holds the adjusted p-value of each of `pairs`, in order.

    Examples
    --------
    >>> shown_better(np.array([0.9, 0.5]), np.array([0.01]), [(0, 1)], 0.05).tolist()
    [[False, True], [False, False]]
    """
    better = np.zeros((len(estimates),) * 2, dtype=bool)
    for (first, second), p in zip(pairs, p_adjusted.tolist(), strict=True):
        if p <= alpha:
            gap = estimates[first] - estimates[second]
            better[(first, second) if gap > 0 else (second, first)] = True
    return better


def ranked_board(
    labels: pd.DataFrame,
    pairs: list[tuple[int, int]],
    ks: Ints,
    columns: dict[str, list[Floats]],
    metric: str,
    tests: pd.DataFrame,
    counted: Bools,
    alpha: float,
) -> pd.DataFrame:
    """Return the board: per k, every agent's `columns`, tasks counted and ranks, by rank.

    `labels` names the agents (one row each); `columns` holds, by name, one
    array over the ks per agent; the ranks are by `metric`, from the adjusted
    p-values in `tests` of the `pairs` (in their order at each k); `counted`
    is tasks x ks, the tasks every agent has k runs of.
    """
    estimates = np.array(columns[metric])  # agents x ks
    frames = []
    for column, k in enumerate(ks.tolist()):
        adjusted = tests.loc[tests["k"] == k, "p_adjusted"].to_numpy()
        better = shown_better(estimates[:, column], adjusted, pairs, alpha)
        rank, rank_low, rank_high, group = rank_intervals(estimates[:, column], better)
        frame = labels.copy()
        frame["k"] = k
        for name, per_agent in columns.items():
            frame[name] = [values[column] for values in per_agent]
        frame["n_tasks"] = int(counted[:, column].sum())
        frame["rank"], frame["rank_low"], frame["rank_high"], frame["tie_group"] = (
            rank,
            rank_low,
            rank_high,
            group,
        )
        frames.append(frame.sort_values("rank", kind="stable"))
    return pd.concat(frames, ignore_index=True)
