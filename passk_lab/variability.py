"""Run-to-run variability: variance components, the noise floor, and outcome consistency.

An agent run several times on each task varies in two ways: tasks differ in
difficulty (some always pass, some never), and one task's runs differ from
each other (the same task passes on one run and fails on the next).
:func:`variance_components` splits the variance of run outcomes between the
two (the one-way random-effects analysis of variance, tasks as the groups);
:func:`noise_floor` is the smallest difference between two evaluations of the
same agent that run-to-run noise alone rarely makes (the unbiased variances
are in ``_run_noise``); :func:`consistency` is the outcome consistency of
Rabanser et al. (2026), ``(2 c / n - 1)^2`` per task. docs/leaderboards.md
("Run-to-run variability") defines each. Everything is computed on the
distinct ``(n, c)`` cells of the tally, not per task, so the cost after the
tally does not grow with the number of tasks.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from passk_lab._checks import check_size, confidence, positive_int
from passk_lab._choices import IntervalMethod
from passk_lab._curve import means
from passk_lab._data.cells import Cells
from passk_lab._data.rules import By, ErrorPolicy, as_frame, is_dask_frame, table_kind
from passk_lab._data.tally import Tally, TallyInput, as_tally
from passk_lab._data.verdicts import errored_runs
from passk_lab._interval import z_value
from passk_lab._interval_policy import IntervalSpec, Redraw, mean_intervals
from passk_lab._run_noise import CELL_BYTES, task_variances, warn_floor
from passk_lab._typing import Bools, Floats, Ints
from passk_lab._warnings import (
    FewRunsWarning,
    FewTasksWarning,
    NoVariationWarning,
    by_keyword,
    warn,
)
from passk_lab.outcomes import per_run, runs_from_matrix, task_consistency

__all__ = ["consistency", "noise_floor", "variance_components"]


@by_keyword(1)
def variance_components(
    runs: TallyInput, *, by: By = None, errors: ErrorPolicy = "fail"
) -> pd.DataFrame:
    """Split the variance of run outcomes into tasks' difficulty and runs' noise.

    The one-way random-effects analysis of variance of the 0/1 run outcomes,
    tasks as the groups: how much of the spread is that tasks differ (some
    always pass, some never) and how much that one task's runs differ. It
    has no interval, so no ``confidence_level`` or ``method``.
    docs/leaderboards.md ("Run-to-run variability") gives the definitions
    and when they are the REML estimates of the mixed model.

    Parameters
    ----------
    runs : DataFrame, numpy.ndarray, Tally or Dask DataFrame
        Whatever :func:`~passk_lab.tally` takes.
    by : str or list of str, optional
        Grouping columns: one row per group.
    errors : {"fail", "exclude"}
        An errored or timed-out run is a failed run, or is left out of `n`.

    Returns
    -------
    DataFrame
        One row per group: ``[*by, n_tasks, n_runs, pass_at_1,
        between_task_variance, within_task_variance, icc, flip_share,
        run_pass_at_1_min, run_pass_at_1_max, run_pass_at_1_sd]``;
        ``attrs`` holds ``errors``.

        * ``n_tasks``, ``n_runs``: the tasks with at least one run, and their runs.
        * ``pass_at_1``: the mean over tasks of ``c / n``.
        * ``between_task_variance``: ``(MSB - MSW) / n0``, the variance of the
          tasks' pass rates, reported as computed: **negative** when the
          tasks' rates spread less than their runs' noise alone would make
          them; read it as 0.
        * ``within_task_variance``: ``MSW``, the tasks' mean ``p_i (1 - p_i)``.
        * ``icc``: ``ICC(1) = (MSB - MSW) / (MSB + (n0 - 1) MSW)``: 1 when
          every task always passes or always fails, 0 when the tasks differ
          no more than their runs' noise.
        * ``flip_share``: the share of tasks with at least two runs whose
          runs do not all agree (:func:`~passk_lab.task_consistency`).
        * ``run_pass_at_1_min``, ``_max``, ``_sd``: the pass@1 of each run
          index on its own (:func:`~passk_lab.per_run`), their smallest,
          largest and sample standard deviation; NaN for an input without
          run indices (a tally, a Dask DataFrame).

    Raises
    ------
    ValueError
        If `runs` is none of the kinds a tally takes, lacks a column (`by`
        included) or breaks a rule of :func:`~passk_lab.tally`.

    Warns
    -----
    FewTasksWarning, FewRunsWarning, NoVariationWarning
        Naming the group, where a value is NaN: with fewer than two tasks,
        with no task of two runs, or where every run has the same outcome.

    Examples
    --------
    >>> import passk_lab as pk
    >>> runs = pk.simulate_coin(p=0.85, tasks=40, k=5, seed=42)
    >>> table = pk.variance_components(runs)
    >>> table[["n_tasks", "n_runs", "pass_at_1", "icc", "flip_share"]].round(4)
       n_tasks  n_runs  pass_at_1     icc  flip_share
    0       40     200       0.86 -0.0337        0.55
    >>> table[["run_pass_at_1_min", "run_pass_at_1_max"]]
       run_pass_at_1_min  run_pass_at_1_max
    0              0.775               0.95

    The simulated tasks differ by no more than noise (the ICC is about 0);
    real agents' tasks differ a lot:

    >>> import pandas as pd
    >>> counts = pd.DataFrame({"task": [0, 1, 2, 3], "n": 4, "c": [4, 4, 0, 1]})
    >>> pk.variance_components(counts)[["between_task_variance", "icc"]].round(4)
       between_task_variance  icc
    0                   0.25  0.8
    """
    summary = as_tally(runs, by, errors=errors)
    cells = Cells.from_tally(summary)
    n, c = cells.n.astype(np.float64), cells.c.astype(np.float64)
    ran = n > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(ran, c / n, np.nan)
        sums = cells.group_sum(
            np.column_stack([ran, n, c, rate, np.where(ran, c - c * rate, np.nan)])
        )
        tasks, total, passes, rates, within = sums.T
        mean = passes / total
        between = cells.group_sum((n * (rate - mean[cells.group]) ** 2)[:, None])[:, 0]
        msb = between / (tasks - 1.0)
        msw = within / (total - tasks)
        n0 = (total - cells.group_sum((n * n * ran)[:, None])[:, 0] / total) / (tasks - 1.0)
        icc = (msb - msw) / (msb + (n0 - 1.0) * msw)
    few, single = tasks < 2, total <= tasks
    msw = np.where(single, np.nan, msw)
    components = np.where(few | single, np.nan, (msb - msw) / np.where(few, 1.0, n0))
    _warn_components(cells, few, single, icc)
    icc = np.where(few | single, np.nan, icc)
    table = cells.groups.copy()
    table["n_tasks"] = tasks.astype(np.int64)
    table["n_runs"] = total.astype(np.int64)
    table["pass_at_1"] = rates / np.where(tasks > 0, tasks, np.nan)
    table["between_task_variance"] = components
    table["within_task_variance"] = msw
    table["icc"] = icc
    flips = task_consistency(summary.to_frame()[[*cells.by, "task", "n", "c"]], by=cells.by)
    table["flip_share"] = flips["share_mixed"].to_numpy(dtype=np.float64)
    spread = _run_spread(runs, cells, errors)
    for name in ("min", "max", "sd"):
        table[f"run_pass_at_1_{name}"] = spread[name].to_numpy(dtype=np.float64)
    table = table.reset_index(drop=True)
    table.attrs.update(errors=errors)
    return table


def _run_spread(runs: object, cells: Cells, errors: ErrorPolicy) -> pd.DataFrame:
    """Per group: the smallest, largest and sample sd of the pass@1 of each run index.

    NaN for an input without run indices (a tally) or not in memory (Dask).
    """
    empty = pd.DataFrame(np.nan, index=range(len(cells.groups)), columns=["min", "max", "sd"])
    if is_dask_frame(runs) or isinstance(runs, Tally):
        return empty
    if isinstance(runs, np.ndarray):  # as_tally numbers its tasks 0, 1, ...
        frame = runs_from_matrix(pd.DataFrame(runs, index=pd.RangeIndex(len(runs), name="task")))
    else:
        frame = as_frame(runs)
        kind = table_kind(frame.columns, frame.index.names)
        if kind == "tally":
            return empty
        if kind == "matrix":
            frame = runs_from_matrix(frame)
        elif errors == "exclude":
            flagged = errored_runs(frame)
            if flagged is not None:
                frame = frame[~flagged]
    if frame.empty:  # every run was left out
        return empty
    rates = per_run(frame, by=cells.by)
    if cells.by:
        grouped = rates.groupby(list(cells.by), sort=False)["pass_at_1"]
        spread = grouped.agg(["min", "max", "std"]).rename(columns={"std": "sd"}).reset_index()
        return cells.groups.merge(spread, on=list(cells.by), how="left")
    values = rates["pass_at_1"]
    return pd.DataFrame({"min": [values.min()], "max": [values.max()], "sd": [values.std()]})


def _warn_components(cells: Cells, few: Bools, single: Bools, icc: Floats) -> None:
    """Warn, naming the group, where a variance component or the ICC is NaN."""
    for group in range(len(cells.groups)):
        where = cells.where(group)
        if single[group]:
            warn(
                FewRunsWarning(
                    f"no variance components{where}: no task has two runs, so nothing tells a "
                    f"task's runs apart; between_task_variance, within_task_variance and icc "
                    f"are NaN. Run each task at least twice",
                    needed=2,
                )
            )
        elif few[group]:
            warn(
                FewTasksWarning(
                    f"no between-task variance{where}: it has one task, and one task says "
                    f"nothing about how tasks differ; between_task_variance and icc are NaN. "
                    f"Give it more tasks",
                    tasks=1,
                )
            )
        elif not np.isfinite(icc[group]):
            warn(
                NoVariationWarning(
                    f"icc is NaN{where}: every run has the same outcome, so there is no "
                    f"variance to share between tasks and runs (both components are 0)"
                )
            )


@by_keyword(1)
def noise_floor(
    runs: TallyInput,
    *,
    by: By = None,
    errors: ErrorPolicy = "fail",
    confidence_level: float = 0.95,
    runs_per_comparison: int = 1,
) -> pd.DataFrame:
    """Return the smallest difference between two evaluations of one agent that noise rarely makes.

    Run the same agent twice on the same tasks, `runs_per_comparison` runs a
    task each time, and the two pass@1 (or pass^k, pass@k) differ by run-to-run
    noise alone. The noise floor is the half-width of the range that
    difference falls in with chance `confidence_level`,
    ``z_{1 - alpha / 2} sqrt(2 mean_i Var_i / T)``: a difference between two
    agents smaller than it is one the same agent makes against itself more
    often than ``1 - confidence_level`` of the time. It is a normal quantile
    of a difference not yet measured, not an interval of a mean over the
    tasks, so it takes no ``method``; docs/leaderboards.md ("The noise
    floor, derived") gives ``Var_i``'s unbiased estimator.

    Parameters
    ----------
    runs : DataFrame, numpy.ndarray, Tally or Dask DataFrame
        Whatever :func:`~passk_lab.tally` takes, from which each task's
        run-to-run variance is estimated.
    by : str or list of str, optional
        Grouping columns: rows per group.
    errors : {"fail", "exclude"}
        An errored or timed-out run is a failed run, or is left out of `n`.
    confidence_level : float
        In (0, 1): the noise alone exceeds the floor with chance ``1 - confidence_level``.
    runs_per_comparison : int
        The runs a task each evaluation compared has, ``r >= 1``.

    Returns
    -------
    DataFrame
        Per group, one row for ``pass_at_1`` (k = 1), then one for
        ``pass_pow_k`` at every k from 2 to r, then ``pass_at_k`` at the
        same ks: ``[*by, metric, k, runs_per_comparison, noise_floor,
        standard_error, n_tasks]``. ``standard_error`` is
        ``sqrt(2 mean_i Var_i / T)``, the standard deviation of the
        difference of two such evaluations; ``noise_floor`` is
        ``z_{1 - alpha / 2}`` times it; ``n_tasks`` counts the ``T`` tasks
        with the ``max(r, 2k)`` runs to estimate ``Var_i``. ``attrs`` holds
        ``errors`` and ``confidence_level``.

    Raises
    ------
    ValueError
        If `runs_per_comparison` is below 1, `confidence_level` is not in
        (0, 1), or `runs` breaks a rule of :func:`~passk_lab.tally`.
    TypeError
        If `runs_per_comparison` is not an integer or `confidence_level` not a number.

    Warns
    -----
    FewRunsWarning
        Naming the group and the rows, where fewer than two tasks have the
        runs a row needs: its noise floor is NaN.

    Examples
    --------
    >>> import passk_lab as pk
    >>> runs = pk.simulate_coin(p=0.85, tasks=40, k=5, seed=42)
    >>> pk.noise_floor(runs, runs_per_comparison=2).round(4)
           metric  k  runs_per_comparison  noise_floor  standard_error  n_tasks
    0   pass_at_1  1                    2       0.1096          0.0559       40
    1  pass_pow_k  2                    2       0.1984          0.1012       40
    2   pass_at_k  2                    2       0.0537          0.0274       40

    Two evaluations of this agent with two runs a task differ in pass@1 by
    more than 0.11 one time in twenty.
    """
    r = positive_int("runs_per_comparison", runs_per_comparison)
    level = confidence(confidence_level)
    cells = Cells.from_tally(as_tally(runs, by, errors=errors))
    check_size(
        "the noise floor",
        [len(cells.n) + r + 1, 2 * r],
        CELL_BYTES,
        f"compare fewer runs: no task has more than {int(cells.n.max()):,} runs, and a task "
        f"counts only with at least runs_per_comparison of them",
        keywords=("runs_per_comparison",),
    )
    ks = np.concatenate([[1], np.arange(2, r + 1), np.arange(2, r + 1)]).astype(np.int64)
    metrics = ["pass_at_1", *["pass_pow_k"] * (r - 1), *["pass_at_k"] * (r - 1)]
    variance, counted = means(cells, task_variances(cells.n, cells.c, r, ks, metrics))
    variance = np.maximum(variance, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        error = np.where(counted >= 2, np.sqrt(2.0 * variance / counted), np.nan)
    warn_floor(cells, counted, r, ks, metrics)
    z = z_value(level)
    parts = []
    for group in range(len(cells.groups)):
        part = pd.DataFrame(
            {
                "metric": metrics,
                "k": ks,
                "runs_per_comparison": r,
                "noise_floor": z * error[group],
                "standard_error": error[group],
                "n_tasks": counted[group].astype(np.int64),
            }
        )
        for name in reversed(cells.by):
            part.insert(0, name, cells.groups[name].iloc[group])
        parts.append(part)
    table = pd.concat(parts, ignore_index=True)
    table.attrs.update(errors=errors, confidence_level=level)
    return table


@by_keyword(1)
def consistency(
    runs: TallyInput,
    *,
    by: By = None,
    errors: ErrorPolicy = "fail",
    confidence_level: float = 0.95,
    method: IntervalMethod = "auto",
    n_resamples: int = 10_000,
    rng: int | np.random.Generator | None = None,
) -> pd.DataFrame:
    """Estimate outcome consistency: how far each task's runs agree with each other.

    Outcome consistency (Rabanser et al. 2026) of a task with `n` runs and
    `c` passes is ``(2 p - 1)^2`` with ``p = c / n``: 1 when every run
    agrees (all pass or all fail), 0 when half pass. The dataset's value is
    the mean over the tasks with at least two runs. The plug-in value is
    biased upward by ``4 p (1 - p) / n``; ``consistency_unbiased`` is not
    (docs/leaderboards.md, "Run-to-run variability").

    Parameters
    ----------
    runs : DataFrame, numpy.ndarray, Tally or Dask DataFrame
        Whatever :func:`~passk_lab.tally` takes.
    by : str or list of str, optional
        Grouping columns: one row per group.
    errors : {"fail", "exclude"}
        An errored or timed-out run is a failed run, or is left out of `n`.
    confidence_level : float
        Of the interval, in (0, 1).
    method : str
        The interval of the mean plug-in value, any of
        :func:`~passk_lab.reliability_curve`'s: it is a mean over tasks of
        per-task values in [0, 1], as pass^k is. ``"auto"``: Clopper-Pearson
        on the tasks when every task has exactly two runs (each value is then
        0 or 1), on an effective number of tasks (blocks of two runs) otherwise.
    n_resamples : int
        Resamples of a bootstrap `method`.
    rng : int, numpy.random.Generator or None
        Seed or generator of a bootstrap `method`.

    Returns
    -------
    DataFrame
        One row per group: ``[*by, consistency, consistency_low,
        consistency_high, consistency_unbiased, n_tasks]``. ``consistency``
        is the mean of the plug-in ``(2 c / n - 1)^2``, with its interval (of
        the plug-in value at these runs a task, bias included);
        ``consistency_unbiased`` the mean of ``1 - 4 c (n - c) / (n (n - 1))``;
        ``n_tasks`` the tasks with at least two runs. ``attrs`` holds
        ``errors``, ``confidence_level`` and ``method``.

    Raises
    ------
    ValueError
        If `confidence_level` is not in (0, 1), `method` is not one of the
        curve's, or `runs` breaks a rule of :func:`~passk_lab.tally`.

    Warns
    -----
    FewTasksWarning, FewRunsWarning
        Naming the group, where fewer than two tasks have two runs: the
        interval is NaN, and with none the values too.

    References
    ----------
    S. Rabanser et al., "Towards a Science of AI Agent Reliability", 2026, arXiv:2602.16666.

    Examples
    --------
    >>> import pandas as pd
    >>> import passk_lab as pk
    >>> counts = pd.DataFrame({"task": [0, 1, 2, 3], "n": [4, 4, 4, 1], "c": [4, 2, 1, 1]})
    >>> table = pk.consistency(counts)
    >>> table[["consistency", "consistency_unbiased", "n_tasks"]].round(4)
       consistency  consistency_unbiased  n_tasks
    0       0.4167                0.2222        3
    >>> table[["consistency_low", "consistency_high"]].round(3)
       consistency_low  consistency_high
    0            0.020             0.937

    Task 3 has one run and does not count; the others score 1, 0 and 0.25
    (unbiased: 1, -1/3 and 0).
    """
    spec = IntervalSpec.of(method, confidence_level, n_resamples, rng)
    cells = Cells.from_tally(as_tally(runs, by, errors=errors))
    plug_in = _plug_in(cells.n, cells.c)
    n, c = cells.n.astype(np.float64), cells.c.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        unbiased = np.where(cells.n >= 2, 1.0 - 4.0 * c * (n - c) / (n * (n - 1.0)), np.nan)
    two = np.array([2], dtype=np.int64)
    size = len(cells.groups)
    mean, low, high, tasks = (np.full(size, np.nan) for _ in range(4))
    ends = [*cells.starts[1:], len(cells.n)]
    for group, (start, end) in enumerate(zip(cells.starts, ends, strict=True)):
        rows = slice(int(start), int(end))
        redraw = Redraw(cells.c[rows], _plug_in)
        found = mean_intervals(
            plug_in[rows], cells.n[rows], cells.tasks[rows], two, spec, redraw=redraw
        )
        mean[group], low[group], high[group] = found.mean[0], found.low[0], found.high[0]
        tasks[group] = found.tasks[0]
        if tasks[group] < 2:
            _warn_consistency(cells, group, int(tasks[group]))
    table = cells.groups.copy()
    table["consistency"] = mean
    table["consistency_low"] = low
    table["consistency_high"] = high
    table["consistency_unbiased"] = means(cells, unbiased[:, None])[0][:, 0]
    table["n_tasks"] = tasks.astype(np.int64)
    table = table.reset_index(drop=True)
    table.attrs.update(errors=errors, confidence_level=spec.confidence_level, method=spec.method)
    return table


def _plug_in(n: Ints, c: Ints) -> Floats:
    """Return each cell's plug-in consistency ``(2 c / n - 1)^2`` (one column), NaN below 2 runs."""
    with np.errstate(invalid="ignore", divide="ignore"):
        values: Floats = np.where(n >= 2, (2.0 * c / n - 1.0) ** 2, np.nan)
    return values[:, None]


def _warn_consistency(cells: Cells, group: int, tasks: int) -> None:
    """Warn that a group's consistency (with no task) or its interval (with one) is NaN."""
    where = cells.where(group)
    if tasks == 0:
        warn(
            FewRunsWarning(
                f"no consistency{where}: no task has two runs, and one run cannot disagree with "
                f"itself; consistency, its interval and consistency_unbiased are NaN. Run each "
                f"task at least twice",
                needed=2,
            )
        )
    else:
        warn(
            FewTasksWarning(
                f"the consistency interval{where} is NaN: one task has two runs, and one task "
                f"says nothing about the next one; give more tasks two runs",
                tasks=1,
            )
        )
