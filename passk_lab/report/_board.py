"""The report's leaderboard: its groups ranked as agents, and what the ranking says.

With two or more groups, :func:`board_section` ranks them with
:func:`passk_lab.ranking.ranks_and_tests` on the tasks they share, at the
report's ks that they reach, and returns what the page shows: a reading of the
board at its largest k, notes (the tasks dropped, unequal runs), the board,
every pair's test, and for three or more agents a forest and a map of the
pairs to draw. The warnings the ranking gives are read by their class: those
the section says in words are not passed on.
"""

from __future__ import annotations

import html
import warnings
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from passk_lab._data.rules import display
from passk_lab._data.tally import Tally
from passk_lab._labels import LABELS
from passk_lab._numbers import level_text, p_value_text
from passk_lab._warnings import (
    NoSeparationWarning,
    TasksLeftOutWarning,
    UnequalRunsWarning,
    UnmatchedTasksWarning,
    warn,
)
from passk_lab.ranking import ranks_and_tests
from passk_lab.report._figures import Figure
from passk_lab.report._prose import listed, num
from passk_lab.report._render import html_text
from passk_lab.report._tables import labelled

__all__ = ["Board", "board_section", "cannot_separate"]


@dataclass(frozen=True)
class Board:
    """The page's leaderboard section: what it says, its tables and its figures.

    Attributes
    ----------
    reading : str or None
        What the board says at its largest k, as HTML; None without a board.
    notes : tuple of str
        Sentences (plain text): why there is no board, the tasks dropped,
        unequal runs.
    tables : dict of str to DataFrame
        ``leaderboard`` and ``pairwise``, as the statistics returned them (the
        report's files); empty without a board.
    shown : DataFrame or None
        The board as the page shows it.
    pairs : DataFrame or None
        Every pair's test as the page shows it, and `pairs_said` above it.
    figures : tuple of Figure
        The forest and the map of the pairs, for three or more agents.
    """

    reading: str | None = None
    notes: tuple[str, ...] = ()
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    shown: pd.DataFrame | None = None
    pairs: pd.DataFrame | None = None
    pairs_said: str = ""
    figures: tuple[Figure, ...] = ()


def _agent_name(row: pd.Series, by: list[str]) -> str:
    """Return an agent's name for a sentence: its value, or its values joined by `` / ``."""
    return " / ".join(str(display(row[name])) for name in by)


def _how(test: str) -> str:
    """Return how a pair's test was computed, from pairwise's ``test``, for a sentence."""
    if test == "mcnemar_exact":
        return "McNemar's exact test"
    if test == "sign_flip_exact":
        return "computed exactly"
    if test == "sign_flip_approximate":
        return "computed exactly on its lattice, approximate as the agents' runs differ"
    return f"Monte Carlo, {test.removeprefix('sign_flip_monte_carlo (').rstrip(')')} draws"


def _at(metric: str, k: int) -> str:
    """Return a metric at one k in HTML: ``pass<sup>5</sup>``, ``pass@5``."""
    return (
        html_text(LABELS[metric]).replace("<sup>k</sup>", f"<sup>{k}</sup>").replace("@k", f"@{k}")
    )


def _pair_reading(
    k: int, metric: str, level: float, names: list[str], pair: pd.Series, best: Any, apart: bool
) -> str:
    """Return what the one pair of a two-agent board says: the difference and its test.

    `names` are the best agent's and the other's, as HTML.
    """
    sign = 1 if pair["a"] == best else -1
    ends = sorted(sign * pair[["difference_low", "difference_high"]].to_numpy(dtype=float))
    verdict = "tells them apart" if apart else "does not tell them apart: both are in tie group 1"
    return (
        f"At k = {k}, {names[0]}'s {_at(metric, k)} "
        f"exceeds {names[1]}'s by {num(sign * pair['difference'], '.3f')} "
        f"({level_text(level)} CI [{num(ends[0], '.3f')}, {num(ends[1], '.3f')}]); the paired "
        "sign-flip "
        f"test (p = {p_value_text(pair['p_value'])}, {_how(pair['test'])}) {verdict}."
    )


def reading(board: pd.DataFrame, pairs: pd.DataFrame, by: list[str]) -> str:
    """Return what the board says at its largest k, as HTML: who is in tie group 1, and why.

    Tie group 1 holds the agents no agent is shown to beat; the sentences name
    them, the agents shown worse than the best, and those shown worse only
    than some other agent. With two agents, the sentence gives their
    difference and its test instead. `pairs` holds the board's tests
    (``pairwise(..., metrics=[metric], common_tasks=True)``).
    """
    k = int(board["k"].max())
    rows = board[board["k"] == k].sort_values("rank", kind="stable")
    keys = [row[by[0]] if len(by) == 1 else tuple(row[by]) for _, row in rows.iterrows()]
    names = {
        key: html.escape(_agent_name(row, by))
        for key, (_, row) in zip(keys, rows.iterrows(), strict=True)
    }
    first = dict(zip(keys, rows["tie_group"].to_numpy() == 1, strict=True))
    level = board.attrs["confidence_level"]
    metric = board.attrs["metric"]
    tests = pairs[(pairs["metric"] == metric) & (pairs["k"] == k)]
    best = keys[0]
    if len(keys) == 2:
        pair, apart = tests.iloc[0], not all(first.values())
        return _pair_reading(k, metric, level, [names[key] for key in keys], pair, best, apart)
    by_tests = (
        f"the paired sign-flip tests, Holm-adjusted over the pairs at the {level_text(level)} level"
    )
    if all(first.values()):
        return (
            f"At k = {k}, {by_tests}, tell none of the {len(keys)} agents apart: all share tie "
            "group 1."
        )
    group = [names[key] for key in keys if first[key]]
    told = tests[(tests["p_adjusted"] <= 1 - level) & ((tests["a"] == best) | (tests["b"] == best))]
    beaten = {b if a == best else a for a, b in told[["a", "b"]].itertuples(index=False)}
    worse = [names[key] for key in keys if key in beaten and not first[key]]
    others = [names[key] for key in keys if key not in beaten and not first[key]]
    head = (
        f"{names[best]} is alone in tie group 1 (the agents no agent is shown to beat)"
        if len(group) == 1
        else f"tie group 1 (the agents no agent is shown to beat) holds {listed(group)}"
    )
    told_apart = []
    if worse:
        told_apart.append(
            f"{listed(worse)} {'is' if len(worse) == 1 else 'are'} shown worse than the best, "
            f"{names[best]}"
        )
    if others:
        told_apart.append(
            f"{listed(others)} {'is' if len(others) == 1 else 'are'} shown worse than another "
            f"agent, not than {names[best]}"
        )
    return f"At k = {k}, {head}. By {by_tests}, {'; '.join(told_apart)}."


def cannot_separate(warning: NoSeparationWarning, ks: list[int]) -> str:
    """Return the sentence that says the board has too few tasks to tell any two agents apart.

    From the warning's figures: the tasks, the smallest adjusted p-value a
    pair can reach, the level, the tasks it takes; the ks when not all of the
    board's.

    Examples
    --------
    >>> found = NoSeparationWarning(
    ...     "", smallest_p=0.625, level=0.05, tasks=5, needed=9, pairs=10, ks=[1, 2]
    ... )
    >>> print(cannot_separate(found, [1, 2]))
    With 5 tasks, no two agents can be told apart at the 95% level, whatever their runs: \
the smallest p-value a pair's paired sign-flip test can reach, Holm-adjusted over the 10 pairs, \
is 0.62 (every task favouring one agent), above 0.05. It takes at least 9 tasks before any \
pair can be told apart.
    """
    at = ""
    if list(warning.ks) != list(ks):
        shown = [str(k) for k in warning.ks]
        at = f"At k = {listed(shown)}, w" if len(shown) > 1 else f"At k = {shown[0]}, w"
    adjusted = f", Holm-adjusted over the {warning.pairs} pairs," if warning.pairs > 1 else ""
    return (
        f"{at or 'W'}ith {warning.tasks} tasks, no two agents can be told apart at the "
        f"{level_text(1 - warning.level)} level, whatever their runs: the smallest p-value a "
        f"pair's paired sign-flip test can reach{adjusted} is "
        f"{p_value_text(warning.smallest_p)} (every task favouring one agent), above "
        f"{warning.level:.2g}. It takes at least {warning.needed} tasks before any pair can be "
        "told apart."
    )


def _shown_pairs(pairs: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """Return the board's tests as the page shows them, and the sentence above them.

    The metric (the ranked one) and the test are said once, in the sentence;
    the correlation of the pair's task values is in pairwise.csv.
    """
    shown = labelled(pairs.drop(columns=["metric", "test", "correlation"], errors="ignore"))
    for column in ("agent A", "agent B"):  # an agent of two or more columns: a / b
        shown[column] = [
            " / ".join(map(str, map(display, agent))) if isinstance(agent, tuple) else agent
            for agent in shown[column]
        ]
    tests = listed(sorted({_how(str(test)) for test in pairs["test"]}))
    metric = listed(sorted({LABELS.get(str(name), str(name)) for name in pairs["metric"]}))
    said = (
        f"Each pair's difference in {html_text(metric)}, on the tasks every agent ran k "
        f"times, and its paired sign-flip test: {html.escape(tests)}."
    )
    return shown, said


def _shown_board(board: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Return the board as the page shows it: the ranked metric's estimate, interval and rank."""
    metric = str(board.attrs["metric"])
    columns = [*by, "k", metric, f"{metric}_low", f"{metric}_high", "n_tasks"]
    return labelled(board[[*columns, "rank", "rank_low", "rank_high", "tie_group"]])


def _figures(board: pd.DataFrame, pairs: pd.DataFrame) -> tuple[Figure, ...]:
    """Return the forest and the map of every pair, for three or more agents; else none.

    Two agents are one pair: the section's sentence gives its difference, interval and
    test, which the two plots would only draw again.
    """
    from passk_lab import plots

    k = int(board["k"].max())
    agents = int((board["k"] == k).sum())
    if agents < 3:
        return ()
    metric = LABELS[board.attrs["metric"]]
    return (
        Figure(
            "leaderboard_forest",
            f"{metric} at k = {k}: every agent's estimate, interval, rank and tie group",
            partial(plots.leaderboard_forest, board),
            (6.4, 1.6 + 0.3 * agents),
        ),
        Figure(
            "pairwise_heatmap",
            f"Every pair's difference in {metric} at k = {k}",
            partial(plots.pairwise_heatmap, pairs, board.attrs["metric"]),
            (min(6.4, 2.6 + 0.5 * agents), 1.3 + 0.4 * agents),  # a cell per pair, not a wall
        ),
    )


def board_section(
    summary: Tally,
    codes: npt.NDArray[np.intp],
    by: list[str],
    ks: list[int],
    **options: Any,
) -> Board | None:
    """Rank the groups of `summary` as agents on the tasks they share, at the report's `ks`.

    `codes` are the group of each of its tasks, as :meth:`Tally.groups` gives them.

    None when there are fewer than two groups; a section with no tables, and a
    note that says why, when the groups share no task. Tasks only some groups
    ran are dropped (the board lists them), and a note names them. The pairs
    are the board's own tests: its metric, on the tasks every agent has k runs
    of (``common_tasks=True``), with the same `options`.
    """
    agents = int(codes.max()) + 1 if len(codes) else 0
    if agents < 2:
        return None
    counted = summary.to_frame()
    per_task = counted.groupby("task", sort=False)["n"].agg(["size", "min"])
    shared = per_task[per_task["size"] == agents]  # a tally has a row per agent and task
    who = f"the {agents} groups of {', '.join(by)}"
    if shared.empty:
        return Board(
            notes=(
                f"No leaderboard: {who} share no task, and a leaderboard ranks agents on the "
                "same tasks.",
            )
        )
    reached = [k for k in ks if k <= int(shared["min"].max())]
    if not reached:
        return Board(notes=(f"No leaderboard: no task has a run of every one of {who}.",))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # the dropped tasks and the counts per k: the section says them
        warnings.simplefilter("ignore", UnmatchedTasksWarning)
        warnings.simplefilter("ignore", TasksLeftOutWarning)
        board, pairs = ranks_and_tests(
            summary, reached, by=by, metric="pass_pow_k", unmatched="drop", **options
        )
    dropped = [str(task) for task in board.attrs["dropped_tasks"]]
    notes = []
    if dropped:
        notes.append(
            f"Ranked on the {len(shared)} tasks every agent ran; the {len(dropped)} that "
            f"some agent lacks are left out: {listed(dropped)}."
        )
    for record in caught:
        if isinstance(record.message, UnequalRunsWarning):  # said under the reading
            message = str(record.message)
            notes.append(f"{message[0].upper()}{message[1:]}.")
        elif isinstance(record.message, NoSeparationWarning):  # said first, under the reading
            notes.insert(0, cannot_separate(record.message, reached))
        elif isinstance(record.message, Warning):
            warn(record.message)
    shown_pairs, said = _shown_pairs(pairs)
    return Board(
        reading=reading(board, pairs, by),
        notes=tuple(notes),
        tables={"leaderboard": board, "pairwise": pairs},
        shown=_shown_board(board, by),
        pairs=shown_pairs,
        pairs_said=said,
        figures=_figures(board, pairs),
    )
