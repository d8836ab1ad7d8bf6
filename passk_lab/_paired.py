"""The one computation of a paired comparison of two agents, for compare and for leaderboards.

:func:`paired_table` takes two checked tallies and returns
:func:`~passk_lab.compare`'s table: the tasks both sides share, their per-task
pass^k and pass@k, the mean difference with its paired interval
(:func:`~passk_lab._mean_intervals.paired_interval`), and the correlation of the
two sides' per-task estimates.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from passk_lab._bootstrap import task_bootstrap
from passk_lab._checks import k_values
from passk_lab._choices import UNMATCHED, PairedMethod, Unmatched
from passk_lab._data.rules import display
from passk_lab._data.tally import Tally
from passk_lab._errors import with_keywords
from passk_lab._interval_policy import Statistics
from passk_lab._mean_intervals import paired_interval
from passk_lab._typing import Floats, Ints
from passk_lab._warnings import FewTasksWarning, UnmatchedTasksWarning, warn

__all__ = ["SIDES", "Pairing", "examples", "pair", "paired_table", "pairing_table"]


def examples(tasks: pd.Index) -> str:
    """Return the first five of `tasks` for a message, and ``...`` if there are more.

    Parameters
    ----------
    tasks : pandas.Index
        Task ids.

    Returns
    -------
    str

    Examples
    --------
    >>> import pandas as pd
    >>> examples(pd.Index(range(7)))
    '0, 1, 2, 3, 4, ...'
    """
    shown = ", ".join(repr(display(task)) for task in tasks[:5])
    return shown + (", ..." if len(tasks) > 5 else "")


def _listing(tasks: pd.Index) -> str:
    """Return `tasks` in parentheses after a count of them, or nothing when there are none."""
    return f" ({examples(tasks)})" if len(tasks) else ""


SIDES = ("runs_a", "runs_b")
"""The two sides of a comparison as messages name them by default: compare's parameters."""


def _as_text_hint(only_a: pd.Index, only_b: pd.Index, names: tuple[str, str]) -> str:
    """Say so when tasks only one side has match the other side's as text ("0" and 0).

    With the default `names` (the parameters' names) the fix is a line of pandas; with
    names of the caller's, it is said in words.
    """
    position = pd.Index(only_b.map(str)).get_indexer(only_a.map(str))
    matched = np.flatnonzero(position >= 0)
    if len(matched) == 0:
        return ""
    a, b = only_a[matched[0]], only_b[position[matched[0]]]
    other = names[0] if isinstance(b, str) else names[1]
    fix = (
        f", e.g. {other}['task'] = {other}['task'].astype(str)"
        if names == SIDES
        else ": ids all numbers or all text"
    )
    return (
        f"; {names[0]}'s {display(a)!r} and {names[1]}'s {display(b)!r} are one id written two "
        f"ways ({len(matched)} such task(s); a CSV file's ids are read as text): give both "
        f"sides one kind{fix}"
    )


def _match(
    first: Tally, second: Tally, unmatched: str, names: tuple[str, str]
) -> tuple[Ints, Ints, pd.Index, pd.Index]:
    """Positions of the shared tasks in each tally, and the tasks only one side has."""
    if unmatched not in UNMATCHED:
        raise with_keywords(
            ValueError(f"unmatched must be 'raise' or 'drop', got {unmatched!r}"), "unmatched"
        )
    tasks_a = pd.Index(first.labels["task"])
    tasks_b = pd.Index(second.labels["task"])
    in_b = tasks_b.get_indexer(tasks_a)
    only_a = tasks_a[in_b < 0]
    only_b = tasks_b[~tasks_b.isin(tasks_a)]
    shared = int((in_b >= 0).sum())
    if len(only_a) or len(only_b):
        what = (
            f"{len(only_a)} task(s) appear only in {names[0]}{_listing(only_a)} and "
            f"{len(only_b)} only in {names[1]}{_listing(only_b)}"
        ) + _as_text_hint(only_a, only_b, names)
        if shared == 0:
            raise ValueError(f"the two sides share no task: {what}; compare needs the same tasks")
        if unmatched == "raise":
            raise with_keywords(
                ValueError(
                    f"{what}; a paired comparison needs the same tasks on both sides: run the "
                    f"missing ones, or pass unmatched='drop' to compare the {shared} shared tasks "
                    "(the dropped ones are listed in the result's attrs)"
                ),
                "unmatched",
            )
        warn(
            UnmatchedTasksWarning(
                f"compared the {shared} shared tasks and dropped {what}",
                kept=shared,
                dropped=[*map(display, only_a), *map(display, only_b)],
            )
        )
    keep = np.flatnonzero(in_b >= 0)
    return keep, in_b[keep], only_a, only_b


def _weighted_correlation(tasks: Ints, a: Floats, b: Floats) -> Floats:
    """Pearson correlation of the columns of `a` and `b` over the cells counted in both."""
    counted = np.isfinite(a) & np.isfinite(b)
    weight = tasks[:, None] * counted
    total = weight.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_a = (weight * np.where(counted, a, 0.0)).sum(axis=0) / total
        mean_b = (weight * np.where(counted, b, 0.0)).sum(axis=0) / total
        gap_a = np.where(counted, a - mean_a, 0.0)
        gap_b = np.where(counted, b - mean_b, 0.0)
        covariance = (weight * gap_a * gap_b).sum(axis=0)
        spread = np.sqrt((weight * gap_a**2).sum(axis=0) * (weight * gap_b**2).sum(axis=0))
        correlation: Floats = np.where(spread > 0, covariance / spread, np.nan)
    return correlation


@dataclass(frozen=True)
class Pairing:
    """The tasks two tallies share, as cells: each distinct ``(n_a, c_a, n_b, c_b)`` of a task.

    ``tasks`` counts the tasks of each cell; ``only_a`` and ``only_b`` are
    the tasks one side has and the other does not (dropped).

    Examples
    --------
    >>> import pandas as pd
    >>> from passk_lab._data.tally import as_tally
    >>> a = as_tally(pd.DataFrame({"task": [0, 1, 2], "n": 2, "c": [2, 1, 2]}))
    >>> b = as_tally(pd.DataFrame({"task": [2, 1, 0], "n": 2, "c": [0, 1, 1]}))
    >>> pairing = pair(a, b)
    >>> pairing.cells.tolist(), pairing.tasks.tolist()
    ([[2, 1, 2, 1], [2, 2, 2, 0], [2, 2, 2, 1]], [1, 1, 1])
    """

    cells: Ints
    tasks: Ints
    only_a: pd.Index
    only_b: pd.Index
    errors: str


def pair(
    first: Tally, second: Tally, unmatched: Unmatched = "raise", names: tuple[str, str] = SIDES
) -> Pairing:
    """Match the tasks of two checked tallies (no groups): the one matching of a comparison.

    Parameters
    ----------
    first, second : Tally
        The two sides, without groups, under one error policy.
    unmatched : {"raise", "drop"}
        A task on one side only is refused, or dropped with a warning.
    names : pair of str
        What the messages call the two sides.

    Returns
    -------
    Pairing

    Raises
    ------
    ValueError
        If the sides share no task, or a task is on one side only with
        ``unmatched="raise"`` (saying when ids match as text only).
    """
    rows_a, rows_b, only_a, only_b = _match(first, second, unmatched, names)
    joint = np.column_stack([first.n[rows_a], first.c[rows_a], second.n[rows_b], second.c[rows_b]])
    cells, tasks = np.unique(joint, axis=0, return_counts=True)
    return Pairing(cells, tasks.astype(np.int64), only_a, only_b, first.errors)


def paired_table(
    first: Tally,
    second: Tally,
    ks: Iterable[int] | None,
    *,
    confidence_level: float,
    method: PairedMethod = "auto",
    n_resamples: int = 10_000,
    rng: int | np.random.Generator | None = None,
    unmatched: Unmatched = "raise",
) -> pd.DataFrame:
    """Return :func:`compare`'s table of two checked tallies (no groups), at a checked level.

    The one computation of a paired comparison, for :func:`compare` and for
    the pairs of a leaderboard (:func:`~passk_lab.pairwise`):
    :func:`pairing_table` of their :func:`pair`.

    Parameters
    ----------
    first, second : Tally
        The two sides, without groups.
    ks : iterable of int, or None
        The ks; by default 1 to the largest both sides reach.
    confidence_level : float
        Checked already, in (0, 1).
    method : {"auto", "bca", "percentile"}
        The interval of the difference.
    n_resamples : int
        Bootstrap resamples.
    rng : int, numpy.random.Generator or None
        Seed or generator of the bootstrap.
    unmatched : {"raise", "drop"}
        What a task on one side only does.

    Returns
    -------
    DataFrame
        ``[metric, k, value_a, value_b, difference, difference_low,
        difference_high, correlation, n_tasks]``.

    Raises
    ------
    ValueError
        As :func:`pair` and :func:`pairing_table`.

    Examples
    --------
    >>> import pandas as pd
    >>> from passk_lab._data.tally import as_tally
    >>> a = as_tally(pd.DataFrame({"task": [0, 1, 2], "n": 2, "c": [2, 1, 2]}))
    >>> b = as_tally(pd.DataFrame({"task": [2, 1, 0], "n": 2, "c": [0, 1, 1]}))
    >>> table = paired_table(a, b, [1], confidence_level=0.95)
    >>> table[["metric", "k", "value_a", "value_b", "difference"]].round(3)
           metric  k  value_a  value_b  difference
    0  pass_pow_k  1    0.833    0.333         0.5
    1   pass_at_k  1    0.833    0.333         0.5
    """
    return pairing_table(
        pair(first, second, unmatched),
        ks,
        confidence_level=confidence_level,
        method=method,
        n_resamples=n_resamples,
        rng=rng,
    )


def pairing_table(
    pairing: Pairing,
    ks: Iterable[int] | None,
    *,
    confidence_level: float,
    method: PairedMethod = "auto",
    n_resamples: int = 10_000,
    rng: int | np.random.Generator | None = None,
) -> pd.DataFrame:
    """Return :func:`compare`'s table of the tasks two tallies share, at a checked level.

    Parameters
    ----------
    pairing : Pairing
        The tasks both sides share (:func:`pair`).
    ks : iterable of int, or None
        The ks; by default 1 to the largest both sides reach.
    confidence_level : float
        Checked already, in (0, 1).
    method : {"auto", "bca", "percentile"}
        The interval of the difference: closed form, or a paired task bootstrap.
    n_resamples : int
        Bootstrap resamples.
    rng : int, numpy.random.Generator or None
        Seed or generator of the bootstrap.

    Returns
    -------
    DataFrame
        As :func:`paired_table`; ``attrs`` holds the settings and the tasks dropped.

    Raises
    ------
    ValueError
        If some k is reached by no task on both sides.

    Examples
    --------
    >>> import pandas as pd
    >>> from passk_lab._data.tally import as_tally
    >>> a = as_tally(pd.DataFrame({"task": [0, 1, 2], "n": 2, "c": [2, 1, 2]}))
    >>> b = as_tally(pd.DataFrame({"task": [2, 1, 0], "n": 2, "c": [0, 1, 1]}))
    >>> pairing_table(pair(a, b), None, confidence_level=0.95)["k"].tolist()
    [1, 2, 1, 2]
    """
    level = confidence_level
    cells, tasks = pairing.cells, pairing.tasks
    n_a, c_a, n_b, c_b = cells.T
    largest = int(min(n_a.max(), n_b.max()))
    values_ks = k_values(ks, largest)
    statistics_a = Statistics.of(n_a, c_a, values_ks)
    statistics_b = Statistics.of(n_b, c_b, values_ks)
    # pass^k for every k, then pass@k for every k: the rows of the table
    value_a = np.hstack([statistics_a.pass_pow_k, statistics_a.pass_at_k])
    value_b = np.hstack([statistics_b.pass_pow_k, statistics_b.pass_at_k])
    both = np.isfinite(value_a) & np.isfinite(value_b)
    value_a = np.where(both, value_a, np.nan)
    value_b = np.where(both, value_b, np.nan)
    difference = value_a - value_b
    counted = (tasks[:, None] * both).sum(axis=0)
    if np.any(counted == 0):
        missing = np.unique(np.tile(values_ks, 2)[counted == 0])
        raise ValueError(
            f"no task has k = {', '.join(map(str, missing))} runs on both sides (the most both "
            f"reach is {largest}); choose ks up to {largest}"
        )

    def mean(values: Floats) -> Floats:
        means: Floats = (tasks[:, None] * np.where(both, values, 0.0)).sum(axis=0) / counted
        return means

    fewer = np.minimum(n_a, n_b)  # the blocks of k runs both sides hold
    low, high = paired_interval(difference, tasks, fewer, np.tile(values_ks, 2), level)
    if method != "auto":
        boot_low, boot_high = task_bootstrap(
            tasks,
            difference,
            method=method,
            n_resamples=n_resamples,
            confidence_level=level,
            rng=np.random.default_rng(rng),
        )
        kept = boot_high > boot_low
        low, high = np.where(kept, boot_low, low), np.where(kept, boot_high, high)
    if np.any(counted == 1):
        single = np.unique(np.tile(values_ks, 2)[counted == 1])
        warn(
            FewTasksWarning(
                f"the intervals at k = {', '.join(map(str, single))} are NaN: one task has that "
                f"many runs on both sides, and one task says nothing about the next one",
                ks=single.tolist(),
                tasks=1,
            )
        )
    width = len(values_ks)
    table = pd.DataFrame(
        {
            "metric": ["pass_pow_k"] * width + ["pass_at_k"] * width,
            "k": np.tile(values_ks, 2),
            "value_a": mean(value_a),
            "value_b": mean(value_b),
            "difference": mean(difference),
            "difference_low": low,
            "difference_high": high,
            "correlation": _weighted_correlation(tasks, value_a, value_b),
            "n_tasks": counted.astype(np.int64),
        }
    )
    table.attrs.update(
        confidence_level=level,
        method=method,
        n_resamples=n_resamples,
        errors=pairing.errors,
        only_in_a=list(pairing.only_a),
        only_in_b=list(pairing.only_b),
    )
    return table
