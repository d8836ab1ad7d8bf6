"""Values of pass^k, pass@k and pass@1 from (n, c) cells, and the curve table built from them.

The public functions of :mod:`passk_lab.estimators` are thin: each reduces its
input to :class:`~passk_lab._data.cells.Cells` and asks this module for the
means per group (:func:`curve_values`) or the whole curve (:func:`curve_table`),
whose intervals come from :mod:`passk_lab._interval_policy`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sized

import numpy as np
import pandas as pd

from passk_lab._betabinom import fit_cells
from passk_lab._checks import check_size, k_values
from passk_lab._data.cells import Cells, pass_pow_k_values, products
from passk_lab._data.costs import COST_PREFIX
from passk_lab._data.rules import By, ErrorPolicy
from passk_lab._data.tally import Tally, as_tally
from passk_lab._interval_policy import IntervalSpec, curve_intervals
from passk_lab._typing import Bools, Floats, Ints
from passk_lab._warnings import (
    FewTasksWarning,
    FitRejectedWarning,
    NoEstimateWarning,
    TasksLeftOutWarning,
    warn,
)

__all__ = [
    "by_group",
    "cells_of",
    "curve_table",
    "curve_values",
    "group_ks",
    "means",
    "warn_empty",
    "with_costs",
]

_DROPPED_SHARE = 0.1
"""A curve warns when a k counts fewer than this share less of the tasks than its first k."""
_CELL_BYTES = 32
"""Bytes a curve holds per (cell, k): four float64 arrays of cells x ks at once (the products
of pass^k and of pass@k, and their copies with the uncounted cells masked)."""
_ROW_BYTES = 256
"""Bytes a curve holds per (group, k): the table's row (16 columns) and the Python integer
that lists the k."""
_PREDICTED_BYTES = 48
"""Bytes the beta-binomial prediction holds per k up to the largest: its running product of
ratios (the ks, the ratios' terms, the ratios and their product)."""


def means(cells: Cells, values: Floats) -> tuple[Floats, Floats]:
    """Task-weighted mean of cell values within each group (NaN if none), and the tasks."""
    counted = cells.group_sum(np.isfinite(values).astype(np.float64))
    totals = cells.group_sum(values)
    means: Floats = np.divide(totals, counted, out=np.full(totals.shape, np.nan), where=counted > 0)
    return means, counted


def warn_empty(cells: Cells, counted: Floats, ks: Ints, asked: Bools | None = None) -> None:
    """Warn that the estimates are NaN where no task of a group has k runs (and k was asked)."""
    empty = np.argwhere((counted == 0) & (True if asked is None else asked))
    if len(empty) == 0:
        return
    group = int(empty[0, 0])
    missing = ks[empty[empty[:, 0] == group, 1]]
    where = cells.where(group)
    groups = len(np.unique(empty[:, 0]))
    others = f" (and in {groups - 1} other group(s))" if groups > 1 else ""
    most = int(cells.max_n()[group])
    excluded = int(cells.n_runs_excluded[group])
    why = (
        f"every run was left out ({excluded} errored or timed-out run(s) under errors='exclude')"
        if most == 0 and excluded
        else f"no task has that many runs (the most is {most})"
    )
    warn(
        NoEstimateWarning(
            f"no estimate for k = {_listed(missing)}{where}{others}: {why}, so pass^k and "
            f"pass@k are NaN",
            ks=missing.tolist(),
            most_runs=most,
        )
    )


_LISTED = 10
"""The most ks a warning spells out; a longer list shows its first ones and its last."""


def _listed(ks: Ints) -> str:
    """Return ks as ``1, 2, 3``; past _LISTED of them, the first ones, ``...`` and the last."""
    if len(ks) <= _LISTED:
        return ", ".join(map(str, ks))
    first = ", ".join(map(str, ks[: _LISTED - 1]))
    return f"{first}, ..., {ks[-1]} ({len(ks):,} ks)"


def curve_values(
    cells: Cells, ks: Ints, asked: Bools | None = None, common: Ints | None = None
) -> tuple[Floats, Floats, Floats, Floats]:
    """Return pass^k, pass@k, pass@1 and the tasks counted, per group (rows) and k (columns).

    pass@1 and pass^1 are the same number, computed once (``1 - mean(1 - c/n)``
    could differ from ``mean(c/n)`` in the last bit). With `common` (one k per
    group), a group counts only its tasks with at least that many runs, and
    measures no k above it.
    """
    n, c = cells.n, cells.c

    def counted_only(values: Floats, ks: Ints) -> Floats:
        if common is None:
            return values
        limit = common[cells.group]
        kept = (n >= limit)[:, None] & (ks[None, :] <= limit[:, None])
        return np.where(kept, values, np.nan)

    pow_k, counted = means(cells, counted_only(pass_pow_k_values(n, c, ks), ks))
    # pass@k is one minus the mean of C(n - c, k) / C(n, k), not the mean of
    # pass_at_k_values: the two differ in the last bit, and the curve's pass@k is pinned
    at_k = 1.0 - means(cells, counted_only(products(n, n - c, ks), ks))[0]
    at_k[:, ks == 1] = pow_k[:, ks == 1]
    one = np.ones(1, dtype=np.int64)
    at_1 = means(cells, counted_only(pass_pow_k_values(n, c, one), one))[0][:, 0]
    warn_empty(cells, counted, ks, asked)
    return pow_k, at_k, at_1, counted


def by_group(cells: Cells, values: Floats, name: str) -> float | pd.Series:
    """Return one value per group: a float without groups, else a Series indexed by group."""
    if not cells.by:
        return float(values[0])
    index = (
        pd.Index(cells.groups.iloc[:, 0], name=cells.by[0])
        if len(cells.by) == 1
        else pd.MultiIndex.from_frame(cells.groups)
    )
    return pd.Series(values, index=index, name=name)


def cells_of(runs: object, by: By, errors: ErrorPolicy) -> Cells:
    """Reduce any input the estimators take to its (n, c) cells, the rules applied once."""
    return Cells.from_tally(as_tally(runs, by, errors=errors))


def group_ks(cells: Cells, ks: Iterable[object] | None) -> list[Ints]:
    """Return the k values of every group: `ks`, or 1 to the group's largest n.

    A `ks` whose length says the curve would not fit :data:`MEMORY_BUDGET` is
    refused before it is read.
    """
    most = int(cells.max_n().max()) if len(cells.n) else 0
    if isinstance(ks, Sized):
        count = -(-(ks.stop - ks.start) // ks.step) if isinstance(ks, range) else len(ks)
        check_size(
            "the curve",
            (max(count, 0),),
            _CELL_BYTES * len(cells.n) + _ROW_BYTES * len(cells.starts),
            f"ask for fewer ks: no task has more than {most:,} runs, so a k above that has no "
            f"estimate",
            names=("ks",),
            keywords=("ks",),
        )
    return [k_values(ks, int(largest)) for largest in cells.max_n()]


def _warn_dropped(cells: Cells, counted: Floats, all_ks: Ints, asked_ks: list[Ints]) -> None:
    """Warn where a k counts a much smaller set of tasks than the group's first k."""
    for group, ks in enumerate(asked_ks):
        tasks = counted[group, np.searchsorted(all_ks, ks)]
        dropped = np.flatnonzero((tasks > 0) & (tasks < (1.0 - _DROPPED_SHARE) * tasks[0]))
        if len(dropped):
            first = int(dropped[0])
            warn(
                TasksLeftOutWarning(
                    f"k = {int(ks[first])}{cells.where(group)} counts {int(tasks[first])} of "
                    f"the {int(tasks[0])} tasks counted at k = {int(ks[0])}: only tasks with at "
                    f"least k runs count, so the rows from k = {int(ks[first])} on describe "
                    f"another set of tasks; reliability_curve(..., common_tasks=True) counts "
                    f"every k on the tasks that have the runs of all of them",
                    k=int(ks[first]),
                    counted=int(tasks[first]),
                    first=int(tasks[0]),
                )
            )
            return


def _warn_few(cells: Cells, counted: Floats, all_ks: Ints, asked_ks: list[Ints]) -> None:
    """Warn where a k is counted on one task: its value stands, its interval is NaN."""
    for group, ks in enumerate(asked_ks):
        tasks = counted[group, np.searchsorted(all_ks, ks)]
        single = ks[tasks == 1]
        if len(single):
            warn(
                FewTasksWarning(
                    f"the intervals at k = {', '.join(map(str, single))}{cells.where(group)} "
                    f"are NaN: one task has that many runs, and one task says nothing about "
                    f"the next one; give more tasks k runs, or choose smaller ks",
                    ks=single.tolist(),
                    tasks=1,
                )
            )
            return


def _warn_rejected(cells: Cells, group: int, p_value: float, most: int) -> None:
    """Warn that predictions past the observed runs rest on a model the data reject."""
    warn(
        FitRejectedWarning(
            f"the beta-binomial model fits the runs{cells.where(group)} badly (goodness of fit "
            f"p = {p_value:.2g}): betabinom_pow_k past k = {most}, the most runs observed, "
            f"rests on its shape and is not to be trusted; see success_counts(runs) for where "
            f"it misses",
            p_value=p_value,
            most_runs=most,
        )
    )


def _check_ks(cells: Cells, asked_ks: list[Ints], predict_to: int, fitted: bool) -> None:
    """Refuse, before they are listed, ks the curve would not fit in the memory budget.

    The curve holds the asked ks and every k above a group's largest up to
    `predict_to` (the count checked is at least as many as it holds); with
    `fitted`, the beta-binomial prediction also holds a value for every k up
    to the largest.
    """
    asked = len(np.unique(np.concatenate(asked_ks)))
    smallest = min(int(ks.max()) for ks in asked_ks)
    check_size(
        "the curve",
        (asked + max(0, predict_to - smallest),),
        _CELL_BYTES * len(cells.n) + _ROW_BYTES * len(cells.starts),
        f"give a smaller predict_to: the curve predicts every k from the largest asked "
        f"({smallest:,}) up to it",
        names=("ks",),
        keywords=("predict_to",),
    )
    if fitted:
        largest = max(predict_to, *(int(ks.max()) for ks in asked_ks))
        check_size(
            "the beta-binomial prediction",
            (largest,),
            _PREDICTED_BYTES,
            f"ask for a smaller largest k (predict_to, or ks): the prediction at k = "
            f"{largest:,} takes every k below it",
            names=("ks",),
            keywords=("predict_to", "ks"),
        )


def curve_table(
    cells: Cells,
    group_ks: list[Ints],
    spec: IntervalSpec | None = None,
    predict_to: int = 0,
    *,
    common_tasks: bool = False,
) -> pd.DataFrame:
    """One row per (group, k); intervals and the beta-binomial prediction only with `spec`.

    Each group also gets rows for the k above its own up to `predict_to`, which
    warn of no missing estimate. With `common_tasks`, a group counts only its
    tasks with at least the largest asked k runs that some task has, at every
    k, and measures no k above that; otherwise each k counts the tasks with at
    least k runs, and with `spec` a warning says when that leaves out many more
    tasks than the first k does.
    """
    asked_ks = group_ks
    _check_ks(cells, asked_ks, predict_to, spec is not None)
    group_ks = [np.union1d(ks, np.arange(ks.max() + 1, predict_to + 1)) for ks in group_ks]
    all_ks = np.unique(np.concatenate(group_ks))
    asked = np.stack([np.isin(all_ks, ks) for ks in asked_ks])
    common = None
    if common_tasks:  # per group: the largest asked k its tasks reach
        common = np.array(
            [
                ks[ks <= most].max() if np.any(ks <= most) else most
                for ks, most in zip(asked_ks, cells.max_n(), strict=True)
            ]
        )
    pow_k, at_k, at_1, counted = curve_values(cells, all_ks, asked, common)
    if spec is not None:  # a curve of its own, not error_sensitivity's columns
        if common is None:
            _warn_dropped(cells, counted, all_ks, asked_ks)
        _warn_few(cells, counted, all_ks, asked_ks)
    n_tasks = np.add.reduceat(cells.tasks, cells.starts)
    ends = [*cells.starts[1:], len(cells.n)]
    parts: list[pd.DataFrame] = []
    for group, ks in enumerate(group_ks):
        columns = np.searchsorted(all_ks, ks)
        missing = np.full(len(ks), np.nan)
        pow_low, pow_high, at_low, at_high = missing, missing, missing, missing
        band_low, band_high, betabinom, fitted = missing, missing, missing, missing
        methods: list[str] = [""] * len(ks)
        if spec is not None:
            rows = np.arange(cells.starts[group], ends[group])
            if common is not None:
                rows = rows[cells.n[rows] >= common[group]]
            n, c, tasks = cells.n[rows], cells.c[rows], cells.tasks[rows]
            intervals = curve_intervals(n, c, tasks, ks, spec)
            measured = np.isfinite(pow_k[group, columns])
            pow_low, pow_high, at_low, at_high = (
                np.where(measured, limit, np.nan)
                for limit in (*intervals.pass_pow_k, *intervals.pass_at_k)
            )
            band_low, band_high = (limit[0] ** ks for limit in intervals.pass_at_1)
            methods = intervals.methods
            if np.any(n > 0):
                runs = n > 0
                fit = fit_cells(n[runs], c[runs], tasks[runs])
                betabinom = np.asarray(fit.pow_k(ks))
                fitted = np.full(len(ks), fit.goodness_of_fit.p_value)
                if fit.rejected and ks.max() > n.max():
                    _warn_rejected(cells, group, fit.goodness_of_fit.p_value, int(n.max()))
        part = pd.DataFrame(
            {
                "k": ks,
                "pass_pow_k": pow_k[group, columns],
                "pass_pow_k_low": pow_low,
                "pass_pow_k_high": pow_high,
                "pass_at_k": at_k[group, columns],
                "pass_at_k_low": at_low,
                "pass_at_k_high": at_high,
                "p_pow_k": at_1[group] ** ks,
                "p_pow_k_low": band_low,
                "p_pow_k_high": band_high,
                "betabinom_pow_k": betabinom,
                "betabinom_fit_pvalue": fitted,
                "n_tasks": counted[group, columns].astype(np.int64),
                "n_tasks_excluded": n_tasks[group] - counted[group, columns].astype(np.int64),
                "n_runs_excluded": cells.n_runs_excluded[group],
                "interval_method": pd.array(
                    [
                        None if np.isnan(value) else name
                        for value, name in zip(pow_k[group, columns], methods, strict=True)
                    ],
                    dtype="str",
                ),
            }
        )
        for name in reversed(cells.by):
            part.insert(0, name, cells.groups[name].iloc[group])
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def with_costs(curve: pd.DataFrame, summary: Tally, costs: pd.DataFrame) -> pd.DataFrame:
    """Add to a curve, for each cost, what k runs of a task cost and what pass^k costs.

    `costs` holds every task's mean cost per run (``[*by, task, cost_<name>...]``,
    :func:`~passk_lab._data.costs.task_costs`). A row of the curve counts the
    ``n_tasks`` tasks of its group with the most runs under `summary`'s error
    policy -- the tasks with at least k runs, or with ``common_tasks`` at least
    the common k, which are the same tasks since those sets are nested -- and
    gets, per cost name, ``cost_<name>``: k times the mean over those of them
    that recorded a cost; ``cost_<name>_per_pass_pow_k``: that over
    ``pass_pow_k``; ``pass_pow_k_per_<name>``: ``pass_pow_k`` over it. The
    columns are added to `curve` in place, after its own, and `curve` returned.
    """
    by = list(summary.by)
    keys = [*by, "task"]
    names = [name for name in costs.columns if name not in keys]
    per_task = summary.labels[keys].merge(costs, on=keys, how="left", validate="one_to_one")
    codes, labels = summary.groups()
    order = np.lexsort((-summary.n, codes))  # each group's tasks, most runs first
    starts = np.searchsorted(codes[order], np.arange(len(labels)))
    if by:
        place = "__group__" + "_".join(by)
        rows = curve[by].merge(labels.assign(**{place: np.arange(len(labels))}), on=by, how="left")
        group = rows[place].to_numpy(dtype=np.intp)
    else:
        group = np.zeros(len(curve), dtype=np.intp)
    first = starts[group]
    last = first + curve["n_tasks"].to_numpy(dtype=np.intp)
    ks = curve["k"].to_numpy(dtype=np.float64)
    for name in names:
        values = per_task[name].to_numpy(dtype=np.float64)[order]
        recorded = ~np.isnan(values)
        total = np.concatenate([[0.0], np.cumsum(np.where(recorded, values, 0.0))])
        count = np.concatenate([[0], np.cumsum(recorded)])
        tasks = count[last] - count[first]
        mean = np.divide(
            total[last] - total[first], tasks, out=np.full(len(curve), np.nan), where=tasks > 0
        )
        curve[name] = ks * mean
        curve[f"{name}_per_pass_pow_k"] = np.nan
        curve[f"pass_pow_k_per_{name.removeprefix(COST_PREFIX)}"] = np.nan
    return price_pass_pow_k(curve)


def price_pass_pow_k(curve: pd.DataFrame) -> pd.DataFrame:
    """Set each cost's ``cost_<name>_per_pass_pow_k`` and ``pass_pow_k_per_<name>`` from its row.

    For a curve whose ``pass_pow_k`` was replaced (the adaptive evaluation's
    estimates): the two columns are ``cost_<name> / pass_pow_k`` and its
    inverse, in place; `curve` is returned.
    """
    pow_k = curve["pass_pow_k"].to_numpy(dtype=np.float64)
    for name in [str(column) for column in curve if f"{column}_per_pass_pow_k" in curve]:
        cost = curve[name].to_numpy(dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            curve[f"{name}_per_pass_pow_k"] = cost / pow_k
            curve[f"pass_pow_k_per_{name.removeprefix(COST_PREFIX)}"] = pow_k / cost
    return curve
