"""Paired comparison of two agents run on the same tasks.

Two agents evaluated on the same tasks share the tasks' difficulty: a hard
task pulls both scores down. The difference in pass^k is best measured task by
task, and its uncertainty from the spread of the per-task differences (both
agents' runs of a task go together), which removes the shared difficulty from
the noise. The correlation between the agents' per-task scores says how much
that gains.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

import numpy as np
import pandas as pd

from passk_lab._bootstrap import BOOTSTRAP_METHODS, task_bootstrap
from passk_lab._checks import confidence, k_values
from passk_lab._data.rules import ErrorPolicy, display
from passk_lab._data.tally import Tally, as_tally
from passk_lab._interval_policy import Statistics
from passk_lab._mean_intervals import paired_interval
from passk_lab._typing import Floats, Ints
from passk_lab._warnings import warn

__all__ = ["compare", "paired_table"]


def _examples(tasks: pd.Index) -> str:
    shown = ", ".join(repr(display(task)) for task in tasks[:5])
    return shown + (", ..." if len(tasks) > 5 else "")


def _as_text_hint(only_a: pd.Index, only_b: pd.Index) -> str:
    """Say so when tasks only one side has match the other side's as text ("0" and 0)."""
    position = pd.Index(only_b.map(str)).get_indexer(only_a.map(str))
    matched = np.flatnonzero(position >= 0)
    if len(matched) == 0:
        return ""
    a, b = only_a[matched[0]], only_b[position[matched[0]]]
    text_side = "runs_b" if isinstance(b, str) else "runs_a"
    other = "runs_a" if text_side == "runs_b" else "runs_b"
    return (
        f"; runs_a's {display(a)!r} and runs_b's {display(b)!r} are one id written two ways "
        f"({len(matched)} such task(s); a CSV file's ids are read as text): give both sides one "
        f"kind, e.g. {other}['task'] = {other}['task'].astype(str)"
    )


def _match(first: Tally, second: Tally, unmatched: str) -> tuple[Ints, Ints, pd.Index, pd.Index]:
    """Positions of the shared tasks in each tally, and the tasks only one side has."""
    if unmatched not in ("raise", "drop"):
        raise ValueError(f"unmatched must be 'raise' or 'drop', got {unmatched!r}")
    tasks_a = pd.Index(first.labels["task"])
    tasks_b = pd.Index(second.labels["task"])
    in_b = tasks_b.get_indexer(tasks_a)
    only_a = tasks_a[in_b < 0]
    only_b = tasks_b[~tasks_b.isin(tasks_a)]
    shared = int((in_b >= 0).sum())
    if len(only_a) or len(only_b):
        what = (
            f"{len(only_a)} task(s) appear only in runs_a ({_examples(only_a)}) and "
            f"{len(only_b)} only in runs_b ({_examples(only_b)})"
        ) + _as_text_hint(only_a, only_b)
        if shared == 0:
            raise ValueError(f"the two sides share no task: {what}; compare needs the same tasks")
        if unmatched == "raise":
            raise ValueError(
                f"{what}; a paired comparison needs the same tasks on both sides: run the missing "
                f"ones, or pass unmatched='drop' to compare the {shared} shared tasks (the "
                f"dropped ones are listed in the result's attrs)"
            )
        warn(f"compared the {shared} shared tasks and dropped {what}")
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


def compare(
    runs_a: pd.DataFrame | np.ndarray,
    runs_b: pd.DataFrame | np.ndarray,
    ks: Iterable[int] | None = None,
    *,
    errors: ErrorPolicy = "fail",
    confidence_level: float = 0.95,
    method: Literal["auto", "bca", "percentile"] = "auto",
    n_resamples: int = 10_000,
    rng: int | np.random.Generator | None = None,
    unmatched: Literal["raise", "drop"] = "raise",
) -> pd.DataFrame:
    """Compare two agents' pass^k and pass@k on the same tasks, with paired intervals.

    Parameters
    ----------
    runs_a, runs_b : DataFrame or numpy.ndarray
        Each agent's runs table, outcome matrix or tally (no groups), with
        the same task ids. The agents may have different numbers of runs.
    ks : sequence of int, optional
        The k values; by default 1 to the largest k both agents reach.
    errors : {"fail", "exclude"}
        An errored or timed-out run is a failed run, or is left out of `n`.
    confidence_level : float
        In (0, 1).
    method : {"auto", "bca", "percentile"}
        The interval of the difference. ``"auto"`` (the default): the
        intervals of the positive and of the negative part of the per-task
        differences (each Clopper-Pearson on an effective number of tasks,
        as the curve's), combined by the method of variance estimates
        recovery; it holds its level at 20 tasks, near the floor and the
        ceiling and where the agents rarely disagree, and is never a point
        (see docs/uncertainty.md for the measured coverage). ``"bca"``,
        ``"percentile"``: a paired task bootstrap, which undercovers there and
        gives way to the ``"auto"`` interval where it has no width.
    n_resamples : int
        Bootstrap resamples of tasks (each task keeps both agents' runs).
    rng : int, numpy.random.Generator or None
        Seed or generator of the bootstrap; the ``"auto"`` interval draws
        nothing.
    unmatched : {"raise", "drop"}
        A task that only one side has is refused (the default), or dropped
        with a warning and listed in ``attrs["only_in_a"]`` and
        ``attrs["only_in_b"]``.

    Returns
    -------
    DataFrame
        One row per metric (``pass_pow_k``, ``pass_at_k``) and k:
        ``[metric, k, value_a, value_b, difference, difference_low,
        difference_high, correlation, n_tasks]``. ``difference`` is
        ``value_a - value_b`` over the ``n_tasks`` tasks where both agents have
        at least k runs (pass@1 is the k = 1 row); ``correlation`` is the
        Pearson correlation of the two agents' per-task estimates. The
        interval is NaN, with a warning, where fewer than two tasks count.

    Raises
    ------
    ValueError
        If a task is on one side only (with ``unmatched="raise"``), or the
        sides share no task.

    Examples
    --------
    >>> import passk_lab as pk
    >>> strong = pk.simulate_coin(p=0.9, tasks=200, k=4, seed=1)
    >>> weak = pk.simulate_coin(p=0.7, tasks=200, k=4, seed=2)
    >>> table = compare(strong, weak, [1, 4])
    >>> table[["metric", "k", "value_a", "value_b", "difference"]].round(3)
           metric  k  value_a  value_b  difference
    0  pass_pow_k  1     0.90    0.684       0.216
    1  pass_pow_k  4     0.67    0.195       0.475
    2   pass_at_k  1     0.90    0.684       0.216
    3   pass_at_k  4     1.00    1.000       0.000
    >>> table.loc[:1, ["k", "difference_low", "difference_high"]].round(3)
       k  difference_low  difference_high
    0  1           0.174            0.256
    1  4           0.382            0.558
    """
    level = confidence(confidence_level)
    if method != "auto" and method not in BOOTSTRAP_METHODS:
        raise ValueError(
            f"method must be one of auto, {', '.join(BOOTSTRAP_METHODS)}; got {method!r}"
        )
    first = as_tally(runs_a, None, errors=errors)
    second = as_tally(runs_b, None, errors=errors)
    return paired_table(
        first,
        second,
        ks,
        confidence_level=level,
        method=method,
        n_resamples=n_resamples,
        rng=rng,
        unmatched=unmatched,
    )


def paired_table(
    first: Tally,
    second: Tally,
    ks: Iterable[int] | None,
    *,
    confidence_level: float,
    method: Literal["auto", "bca", "percentile"] = "auto",
    n_resamples: int = 10_000,
    rng: int | np.random.Generator | None = None,
    unmatched: Literal["raise", "drop"] = "raise",
) -> pd.DataFrame:
    """Return :func:`compare`'s table of two checked tallies (no groups), at a checked level.

    The one computation of a paired comparison, for :func:`compare` and for
    the pairs of a leaderboard (:func:`~passk_lab.pairwise`).
    """
    level = confidence_level
    rows_a, rows_b, only_a, only_b = _match(first, second, unmatched)
    joint = np.column_stack([first.n[rows_a], first.c[rows_a], second.n[rows_b], second.c[rows_b]])
    cells, tasks = np.unique(joint, axis=0, return_counts=True)
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

    tasks = tasks.astype(np.int64)
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
            f"the intervals at k = {', '.join(map(str, single))} are NaN: one task has that many "
            f"runs on both sides, and one task says nothing about the next one",
            RuntimeWarning,
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
        errors=first.errors,
        only_in_a=list(only_a),
        only_in_b=list(only_b),
    )
    return table
