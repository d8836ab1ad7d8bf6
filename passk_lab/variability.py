"""Run-to-run variability: variance components, the noise floor, and outcome consistency.

An agent run several times on each task varies in two ways: tasks differ in
difficulty (some always pass, some never), and one task's runs differ from
each other (the same task passes on one run and fails on the next). For task
``i`` with ``n_i`` runs, of which ``c_i`` passed (outcomes ``y_ij`` in {0, 1}),
``T`` tasks and ``N = sum_i n_i`` runs in all, the definitions here are:

* **variance components** (:func:`variance_components`): the one-way
  random-effects analysis of variance of the run outcomes,
  ``MSB = sum_i n_i (ybar_i - ybar)^2 / (T - 1)`` (``ybar_i = c_i / n_i``,
  ``ybar = sum_i c_i / N``), ``MSW = sum_ij (y_ij - ybar_i)^2 / (N - T)``
  (a task's sum of squares is ``c_i - c_i^2 / n_i``) and
  ``n0 = (N - sum_i n_i^2 / N) / (T - 1)``. The between-task variance is
  ``(MSB - MSW) / n0``, the within-task variance ``MSW``, and the intraclass
  correlation ``ICC(1) = (MSB - MSW) / (MSB + (n0 - 1) MSW)``: the share of the
  variance of one run's outcome that is the task's, not the run's. The flip
  share is the share of tasks with at least two runs whose runs disagree
  (``0 < c_i < n_i``, :func:`~passk_lab.task_consistency`'s ``share_mixed``).
* **noise floor** (:func:`noise_floor`): the smallest difference between two
  evaluations of the *same* agent on the same tasks, with ``r`` runs a task
  each, that run-to-run noise alone exceeds with chance ``1 - confidence``:
  ``z_{1 - alpha / 2} sqrt(2 mean_i Var_i / T)``, with ``Var_i`` the variance
  of task ``i``'s estimate from ``r`` runs, estimated without bias from its
  observed runs (a normal approximation, paired by task: task difficulty
  cancels).
* **outcome consistency** (:func:`consistency`, Rabanser et al. 2026): per
  task ``(2 c_i / n_i - 1)^2``, 1 when every run agrees and 0 at an even split,
  averaged over the tasks with at least two runs; and its unbiased version
  ``1 - 4 c_i (n_i - c_i) / (n_i (n_i - 1))``.

Everything is computed on the distinct ``(n, c)`` cells of the tally, not per
task, so the cost after the tally does not grow with the number of tasks.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from passk_lab._checks import check_size, confidence, positive_int
from passk_lab._curve import means
from passk_lab._data.cells import Cells, products
from passk_lab._data.rules import By, ErrorPolicy, as_frame, is_dask_frame, table_kind
from passk_lab._data.tally import as_tally
from passk_lab._data.verdicts import errored_runs
from passk_lab._interval import z_value
from passk_lab._mean_intervals import TaskMoments, effective_n_interval
from passk_lab._typing import Bools, Floats, Ints
from passk_lab._warnings import (
    FewRunsWarning,
    FewTasksWarning,
    NoVariationWarning,
    warn,
)
from passk_lab.outcomes import per_run, runs_from_matrix, task_consistency

__all__ = ["consistency", "noise_floor", "variance_components"]


def variance_components(
    runs: pd.DataFrame | np.ndarray, by: By = None, *, errors: ErrorPolicy = "fail"
) -> pd.DataFrame:
    """Split the variance of run outcomes into tasks' difficulty and runs' noise.

    The one-way random-effects analysis of variance of the 0/1 run outcomes,
    tasks as the groups (see the module's account of the definitions): how
    much of the spread is that tasks differ (some always pass, some never)
    and how much that one task's runs differ.

    Parameters
    ----------
    runs : DataFrame or numpy.ndarray
        A runs table, an outcome matrix or a tally (see :func:`~passk_lab.tally`).
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
        * ``pass_at_1``: the mean over tasks of ``c / n``, as
          :func:`~passk_lab.pass_at_1`.
        * ``between_task_variance``: ``(MSB - MSW) / n0``, the variance of the
          tasks' pass rates. It is reported as computed, and is **negative**
          when the tasks' rates spread less than their runs' noise alone
          would make them (tasks that hardly differ, few runs); read it as 0.
        * ``within_task_variance``: ``MSW``, the tasks' mean ``p_i (1 - p_i)``
          (the variance of one run's outcome about its task's rate),
          estimated without bias.
        * ``icc``: ``ICC(1) = (MSB - MSW) / (MSB + (n0 - 1) MSW)``, in
          ``[-1 / (n0 - 1), 1]``: 1 when every task always passes or always
          fails (some of each), 0 when the tasks differ no more than their
          runs' noise.
        * ``flip_share``: the share of tasks with at least two runs whose
          runs do not all agree (:func:`~passk_lab.task_consistency`'s
          ``share_mixed``).
        * ``run_pass_at_1_min``, ``_max``, ``_sd``: the pass@1 of each run
          index on its own (:func:`~passk_lab.per_run`; run 0 of every task,
          run 1 of every task, ...), their smallest, largest and sample
          standard deviation: how far one evaluation of a run per task could
          have landed. A runs table (in memory) and an outcome matrix have
          run indices; for a tally or a Dask DataFrame they are NaN. Under
          ``errors="exclude"`` the errored runs are left out of them too.

    Raises
    ------
    ValueError
        If `runs` is none of the three kinds, lacks a column (`by` included)
        or breaks a rule of :func:`~passk_lab.tally`; the message names it.

    Warns
    -----
    RuntimeWarning
        Naming the group, where a value is NaN: with fewer than two tasks
        (no between-task variance, no ICC), with no task of two runs (no
        within-task variance either), or where every run has the same
        outcome (the ICC is 0 / 0).

    Notes
    -----
    All of it follows from the ``(n, c)`` tally: for outcomes in {0, 1} a
    task's sum of squares about its mean is ``c - c^2 / n``. With equal
    runs a task, ``MSW`` is unbiased for the tasks' mean ``p_i (1 - p_i)``
    and ``(MSB - MSW) / n0`` for the variance of the ``p_i``; with unequal
    runs, ``MSW`` weighs task ``i`` by ``n_i - 1`` and ``n0`` is the
    analysis of variance's usual correction. For equal runs and a positive
    between-task variance the two are the REML estimates of the linear
    mixed model ``y_ij = mu + a_i + e_ij``.

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

    Every task of the simulation passes each run with the same chance, so the
    tasks differ by no more than noise: the ICC is about 0 (here a little
    below), and the five runs' pass@1 range from 0.775 to 0.95 by noise
    alone. Real agents' tasks differ a lot:

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
    if is_dask_frame(runs):
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


_CELL_BYTES = 64
"""Bytes the noise floor holds per (row, column) of its (cells + r + 1) x 2r arrays: about
eight float64 arrays at once (the hypergeometric weights of the cells, the estimates of every
run count j at every k, the products of ratios up to 2k, the variances)."""


def noise_floor(
    runs: pd.DataFrame | np.ndarray,
    by: By = None,
    *,
    runs_per_comparison: int = 1,
    confidence_level: float = 0.95,
    errors: ErrorPolicy = "fail",
) -> pd.DataFrame:
    """Return the smallest difference between two evaluations of one agent that noise rarely makes.

    Run the same agent twice on the same tasks, `runs_per_comparison` runs a
    task each time, and the two pass@1 (or pass^k, pass@k) differ by run-to-run
    noise alone. The noise floor is the half-width of the range that
    difference falls in with chance `confidence_level`: a difference
    between two agents smaller than it is one the same agent makes against
    itself more often than ``1 - confidence_level`` of the time.

    Parameters
    ----------
    runs : DataFrame or numpy.ndarray
        A runs table, an outcome matrix or a tally (see :func:`~passk_lab.tally`),
        from which each task's run-to-run variance is estimated.
    by : str or list of str, optional
        Grouping columns: rows per group.
    runs_per_comparison : int
        The runs a task each evaluation compared has, ``r >= 1``.
    confidence_level : float
        In (0, 1): the noise alone exceeds the floor with chance ``1 - confidence_level``.
    errors : {"fail", "exclude"}
        An errored or timed-out run is a failed run, or is left out of `n`.

    Returns
    -------
    DataFrame
        Per group, one row for ``pass_at_1`` (k = 1), then one for
        ``pass_pow_k`` at every k from 2 to r, then ``pass_at_k`` at the
        same ks: ``[*by, metric, k, runs_per_comparison, noise_floor,
        standard_error, n_tasks]``. ``standard_error`` is
        ``sqrt(2 mean_i Var_i / T)``, the standard deviation of the
        difference of two such evaluations; ``noise_floor`` is
        ``z_{1 - alpha / 2}`` times it (1.96 at 0.95); ``n_tasks`` counts the
        ``T`` tasks with the runs to estimate ``Var_i`` (Notes). ``attrs``
        holds ``errors`` and ``confidence_level``.

    Raises
    ------
    ValueError
        If `runs_per_comparison` is below 1, `confidence_level` is not in
        (0, 1), or `runs` breaks a rule of :func:`~passk_lab.tally`.
    TypeError
        If `runs_per_comparison` is not an integer or `confidence_level` not a number.

    Warns
    -----
    RuntimeWarning
        Naming the group and the rows, where fewer than two tasks have the
        runs a row needs: its noise floor is NaN.

    Notes
    -----
    With ``C ~ Binomial(r, p_i)`` the passes of task ``i`` in one evaluation,
    its estimate is ``f(C)``: ``C / r`` (pass@1), ``C(C, k) / C(r, k)``
    (pass^k) or ``1 - C(r - C, k) / C(r, k)`` (pass@k), and
    ``Var_i = E[f(C)^2] - theta_i^2`` with ``theta_i`` its mean (``p^k``,
    ``1 - (1 - p)^k``). Both terms are estimated without bias from the task's
    `n` observed runs and `c` passes (U-statistics): ``E[f(C)^2]`` by
    ``sum_j H(j; n, c, r) f(j)^2``, ``H`` the hypergeometric chance of `j`
    passes among `r` runs drawn without replacement from the `n`, and
    ``p^{2k}`` by ``C(c, 2k) / C(n, 2k)`` (for pass@k, each term of
    ``1 - 2 (1 - p)^k + (1 - p)^{2k}`` the same way). So a task counts in a
    row only with ``n >= max(r, 2k)`` runs; pass@1 needs ``n >= max(r, 2)``.

    Two evaluations on the same tasks differ by ``mean_i (f(C_i) - f(C_i'))``,
    whose variance is ``2 mean_i Var_i / T``: the tasks' difficulties cancel,
    and the floor is the normal approximation to its two-sided quantile. A
    mean of the estimates that rounding leaves a hair below 0 is taken as
    0. For ``r = 1`` and pass@1, ``2 Var_i`` is estimated by the
    share of ordered pairs of the task's distinct runs that disagree,
    ``2 c (n - c) / (n (n - 1))``.

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
    more than 0.11 one time in twenty: two agents measured so that differ by
    0.05 differ by no more than one agent does from itself.
    """
    r = positive_int("runs_per_comparison", runs_per_comparison)
    level = confidence(confidence_level)
    cells = Cells.from_tally(as_tally(runs, by, errors=errors))
    check_size(
        "the noise floor",
        [len(cells.n) + r + 1, 2 * r],
        _CELL_BYTES,
        f"compare fewer runs: no task has more than {int(cells.n.max()):,} runs, and a task "
        f"counts only with at least runs_per_comparison of them",
        keywords=("runs_per_comparison",),
    )
    ks = np.concatenate([[1], np.arange(2, r + 1), np.arange(2, r + 1)]).astype(np.int64)
    metrics = ["pass_at_1", *["pass_pow_k"] * (r - 1), *["pass_at_k"] * (r - 1)]
    variance, counted = means(cells, _task_variances(cells.n, cells.c, r, ks, metrics))
    variance = np.maximum(variance, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        error = np.where(counted >= 2, np.sqrt(2.0 * variance / counted), np.nan)
    _warn_floor(cells, counted, r, ks, metrics)
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


def _task_variances(n: Ints, c: Ints, r: int, ks: Ints, metrics: list[str]) -> Floats:
    """Unbiased estimates of each cell's ``Var f(C)``, ``C ~ Binomial(r, p)``, per column.

    NaN where the cell has fewer than ``max(r, 2k)`` runs.
    """
    from scipy.special import gammaln  # the log binomial coefficients of the weights

    draws = np.arange(r + 1)
    everyone = np.full(r + 1, r, dtype=np.int64)
    pow_k = products(everyone, draws, ks)  # f(j) for pass^k (pass@1 at k = 1)
    at_k = 1.0 - products(everyone, r - draws, ks)
    shapes = np.where(np.array(metrics) == "pass_at_k", at_k, pow_k)  # (r + 1) x columns

    def log_choose(m: Ints, j: Ints) -> Floats:
        inside = (j >= 0) & (j <= m)
        safe_j = np.clip(j, 0, None)
        safe_m = np.maximum(m, safe_j)
        value = gammaln(safe_m + 1.0) - gammaln(safe_j + 1.0) - gammaln(safe_m - safe_j + 1.0)
        result: Floats = np.where(inside, value, -np.inf)
        return result

    enough = n >= r
    weights = np.full((len(n), r + 1), np.nan)
    nn, cc = n[enough, None], c[enough, None]
    weights[enough] = np.exp(
        log_choose(cc, draws[None, :])
        + log_choose(nn - cc, r - draws[None, :])
        - log_choose(nn, np.full_like(nn, r))
    )
    second = weights @ shapes**2  # the unbiased E[f(C)^2]
    fail = n - c
    squared = np.where(
        np.array(metrics) == "pass_at_k",
        1.0 - 2.0 * products(n, fail, ks) + products(n, fail, 2 * ks),
        products(n, c, 2 * ks),
    )
    values: Floats = second - squared  # NaN where n < 2k, from the products
    return values


def _warn_floor(cells: Cells, counted: Floats, r: int, ks: Ints, metrics: list[str]) -> None:
    """Warn, naming the group and rows, where fewer than two tasks have the runs a row needs."""
    for group in range(len(cells.groups)):
        short = np.flatnonzero(counted[group] < 2)
        if not len(short):
            continue
        rows = ", ".join(
            f"{metrics[j]} at k = {ks[j]} ({max(r, 2 * int(ks[j]))} runs)" for j in short
        )
        warn(
            FewRunsWarning(
                f"no noise floor{cells.where(group)} with {r} run(s) per comparison for "
                f"{rows}: a task needs max(r, 2k) runs to estimate its run-to-run variance "
                f"without bias, and fewer than two tasks have them, so noise_floor and "
                f"standard_error are NaN; run more tasks that many times, or compare fewer runs",
                needed=max(r, 2 * int(ks[short[0]])),
            )
        )


def consistency(
    runs: pd.DataFrame | np.ndarray,
    by: By = None,
    *,
    errors: ErrorPolicy = "fail",
    confidence_level: float = 0.95,
) -> pd.DataFrame:
    """Estimate outcome consistency: how far each task's runs agree with each other.

    Outcome consistency (Rabanser et al. 2026) of a task with `n` runs and
    `c` passes is ``(2 p - 1)^2`` with ``p = c / n``: 1 when every run
    agrees (all pass or all fail), 0 when half pass. The dataset's value is
    the mean over the tasks with at least two runs.

    Parameters
    ----------
    runs : DataFrame or numpy.ndarray
        A runs table, an outcome matrix or a tally (see :func:`~passk_lab.tally`).
    by : str or list of str, optional
        Grouping columns: one row per group.
    errors : {"fail", "exclude"}
        An errored or timed-out run is a failed run, or is left out of `n`.
    confidence_level : float
        Of the interval, in (0, 1).

    Returns
    -------
    DataFrame
        One row per group: ``[*by, consistency, consistency_low,
        consistency_high, consistency_unbiased, n_tasks]``. ``consistency``
        is the mean of the plug-in ``(2 c / n - 1)^2``, with the interval of
        a mean of per-task values in [0, 1] (Notes); ``consistency_unbiased``
        the mean of ``1 - 4 c (n - c) / (n (n - 1))``; ``n_tasks`` the tasks
        with at least two runs. ``attrs`` holds ``errors`` and
        ``confidence_level``.

    Raises
    ------
    ValueError
        If `confidence_level` is not in (0, 1) or `runs` breaks a rule of
        :func:`~passk_lab.tally`.

    Warns
    -----
    RuntimeWarning
        Naming the group, where fewer than two tasks have two runs: the
        interval is NaN, and with none the values too.

    Notes
    -----
    * **Bias.** For a task that passes each run with chance ``p``,
      ``E[(2 c / n - 1)^2] = (2 p - 1)^2 + 4 p (1 - p) / n``: the plug-in
      value is biased upward by ``4 p (1 - p) / n``, so it rises with the
      runs a task has even when the agent does not change, and is not
      comparable across evaluations with different runs a task.
      ``1 - 4 c (n - c) / (n (n - 1))`` is unbiased for ``(2 p - 1)^2``
      (``c (n - c) / (n (n - 1))`` is unbiased for ``p (1 - p)``); it can be
      negative for a task (-1 for one pass of two runs), and its mean for a
      handful of tasks too.
    * **Interval.** Each task's plug-in value is in [0, 1]; the interval is
      the effective-n interval of pass^k's (:func:`~passk_lab.reliability_curve`)
      with blocks of two runs: Clopper-Pearson on the tasks when every task
      has exactly two runs (each value is then 0 or 1), on an effective
      number of tasks otherwise. It is the interval of the mean plug-in
      value at these runs a task, bias included.

    References
    ----------
    S. Rabanser, S. Kapoor, P. Kirgis, K. Liu, S. Utpala and A. Narayanan,
    "Towards a Science of AI Agent Reliability", 2026, arXiv:2602.16666.

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
    level = confidence(confidence_level)
    cells = Cells.from_tally(as_tally(runs, by, errors=errors))
    n, c = cells.n.astype(np.float64), cells.c.astype(np.float64)
    counted = cells.n >= 2
    with np.errstate(invalid="ignore", divide="ignore"):
        plug_in = np.where(counted, (2.0 * c / n - 1.0) ** 2, np.nan)
        unbiased = np.where(counted, 1.0 - 4.0 * c * (n - c) / (n * (n - 1.0)), np.nan)
    two = np.array([2], dtype=np.int64)
    size = len(cells.groups)
    mean, low, high, tasks = (np.full(size, np.nan) for _ in range(4))
    ends = [*cells.starts[1:], len(cells.n)]
    for group, (start, end) in enumerate(zip(cells.starts, ends, strict=True)):
        rows = slice(int(start), int(end))
        moments = TaskMoments.of(plug_in[rows, None], cells.tasks[rows], cells.n[rows], two)
        lows, highs = effective_n_interval(moments, level)
        mean[group], low[group], high[group] = moments.mean[0], lows[0], highs[0]
        tasks[group] = moments.tasks[0]
        if tasks[group] < 2:
            _warn_consistency(cells, group, int(tasks[group]))
    table = cells.groups.copy()
    table["consistency"] = mean
    table["consistency_low"] = low
    table["consistency_high"] = high
    table["consistency_unbiased"] = means(cells, unbiased[:, None])[0][:, 0]
    table["n_tasks"] = tasks.astype(np.int64)
    table = table.reset_index(drop=True)
    table.attrs.update(errors=errors, confidence_level=level)
    return table


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
