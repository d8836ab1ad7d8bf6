"""Views of a runs table: the per-task tally, the outcome matrix, the per-run view, compaction.

A **runs** table is a tidy :class:`pandas.DataFrame` with one row per run and
the columns ``task`` (any hashable id), ``run`` (an integer ``>= 0``; without
it, each task's runs are numbered in the order of the rows) and ``passed``
(bool), or ``reward`` (a number) instead of ``passed``; a table whose columns
have other names is mapped by :func:`passk_lab.runs`. Optional
columns: ``error`` (text, missing when the run raised nothing), ``error_kind``
(whose failure an error was, as :func:`passk_lab.evaluate` records it),
``timed_out`` (bool), and grouping columns such as ``model`` or ``domain``
named with `by`.

For exchangeable runs the pair ``(n, c)`` -- runs and passes of a task -- is
all every estimator needs, so :func:`tally` is the one pass over the raw runs:
everything in :mod:`passk_lab.estimators` works on its output.

The rules, defined once in the data core and applied the same way by every
view, estimator, plot and report:

* a ``reward`` becomes ``passed`` when ``reward >= threshold - 1e-6`` (the
  default threshold is 1.0, as tau-bench decides a pass);
* a run that errored (``error`` not missing) or timed out (``timed_out``) is a
  **failed** run (``errors="fail"``, the source harness's rule), or is left out
  of ``n`` altogether (``errors="exclude"``), and the tally says how many. An
  error whose ``error_kind`` is ``"agent"`` (the agent's own exception, as the
  harness records it) is a failed run under both policies: only runs that
  did not measure the agent -- infrastructure errors, time-outs, errors of
  unknown kind -- are left out;
* ``(group..., task, run)`` is unique: a repeated run is refused, never counted
  twice;
* ids (``task`` and the grouping columns) are plain values, text or numbers:
  a list or dict is refused.

Which table a DataFrame is follows one rule, for pandas and Dask alike: one
with any of the columns ``run``, ``passed`` or ``reward`` is a runs table
(columns ``n`` and ``c`` beside them -- token counts, say -- are just other
columns); one with ``n`` and ``c`` and none of those is a tally
``[*by, task, n, c]``; one with no ``task`` column whose last index level is
named ``task`` is an outcome matrix, whose task and run labels must be unique.
Anything else is refused, naming what it has and what each kind needs.
"""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np
import pandas as pd

from passk_lab._data.grid import RUN_STATES, grid_frame, run_grid
from passk_lab._data.matrix import check_matrix_labels
from passk_lab._data.rules import (
    By,
    ErrorPolicy,
    as_frame,
    by_columns,
    refuse_nested,
    require_runs_columns,
)
from passk_lab._data.tally import TallyInput, as_tally
from passk_lab._data.verdicts import passed_from_reward, run_index, verdicts
from passk_lab._typing import Bools, Ints
from passk_lab._warnings import by_keyword

__all__ = [
    "RUN_STATES",
    "ErrorPolicy",
    "compact_runs",
    "outcome_matrix",
    "passed_from_reward",
    "per_run",
    "runs_from_matrix",
    "tally",
    "task_consistency",
]


@by_keyword(1)
def tally(
    runs: TallyInput,
    *,
    by: By = None,
    errors: ErrorPolicy = "fail",
    threshold: float = 1.0,
) -> pd.DataFrame:
    """Count runs `n` and passes `c` per task (and group): the one pass over the raw runs.

    Parameters
    ----------
    runs : DataFrame, numpy.ndarray, Tally or dask.dataframe.DataFrame
        A runs table (``task``, ``run``, ``passed`` or ``reward``; optional
        ``error``, ``timed_out`` and grouping columns; without ``run``, each
        task's runs are numbered in the order of the rows), a tally
        (``[*by, task, n, c]``), or an outcome matrix from
        :func:`outcome_matrix` (or a 2-D bool array, tasks x runs). A table
        with any of ``run``, ``passed`` or ``reward`` is a runs table, one
        with ``n`` and ``c`` and none of those a tally, one indexed by task
        an outcome matrix. A runs table may be a Dask DataFrame: it is
        checked by the same rules and counted where its partitions are, and
        only the tally comes back (the estimators, which all start from this
        tally, take one too). A ``Tally``, what every statistic counts
        its input into, is taken as counted: with its own groups, and under
        `errors` as the runs it stands for would be (docs/curve.md).
    by : str or list of str, optional
        Grouping columns (``"model"``, ``["model", "domain"]``): tasks are
        counted within each group.
    errors : {"fail", "exclude"}
        An errored or timed-out run counts as a failed run (``"fail"``, the
        default) or is left out of ``n`` (``"exclude"``). An error of
        ``error_kind`` ``"agent"`` (the agent's own exception) is a failed run
        under both. For a tally table, which cannot say so itself, `errors`
        says which policy its ``n`` was counted under.
    threshold : float
        The reward a run needs to pass, when the table has ``reward`` and no
        ``passed`` (with a tolerance of 1e-6).

    Returns
    -------
    DataFrame
        ``[*by, task, n, c]``, one row per task in order of first appearance,
        plus ``n_errors`` (errored or timed-out runs, counted as failures or
        left out according to `errors`) when the runs have an ``error`` or
        ``timed_out`` column.

    Raises
    ------
    ValueError
        If the table is none of the three kinds, a required column is
        missing, a run appears twice, an outcome matrix has a task or run
        label twice, an id is a list or dict, ``passed`` is not boolean, a
        value is missing, a run index is negative or the table is empty. The
        message names the column and the fix.

    Notes
    -----
    Under ``errors="exclude"`` a task whose every run errored keeps its row,
    with ``n = 0``: no estimate counts it (a task counts at k only with at
    least k runs), and the estimators report it among ``n_tasks_excluded``.
    A group with no run left has no estimate: NaN, with a ``RuntimeWarning``
    naming the group, as for any k no task of a group reaches.

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({
    ...     "task": ["a", "a", "a", "b", "b", "b"],
    ...     "run": [0, 1, 2, 0, 1, 2],
    ...     "passed": [True, True, False, True, True, True],
    ... })
    >>> tally(runs)
      task  n  c
    0    a  3  2
    1    b  3  3
    """
    return as_tally(runs, by, errors=errors, threshold=threshold).to_frame()


# --- wide and per-run views -----------------------------------------------------------


@by_keyword(1)
def outcome_matrix(
    runs: pd.DataFrame, *, by: By = None, threshold: float = 1.0, states: bool = False
) -> pd.DataFrame:
    """Spread a runs table into a tasks x runs table of outcomes.

    Parameters
    ----------
    runs : DataFrame
        A runs table (see :func:`tally`).
    by : str or list of str, optional
        Grouping columns, which become the leading index levels.
    threshold : float
        The reward a run needs to pass, when the table has ``reward``.
    states : bool
        Tell each run's state (passed, failed, errored, timed out) instead of
        its verdict alone.

    Returns
    -------
    DataFrame
        Index ``[*by, task]`` (tasks in order of first appearance), one column
        per run index (sorted). Cells are nullable booleans, ``<NA>`` where a
        task has no such run; an errored or timed-out run is ``False``. The
        inverse is :func:`runs_from_matrix`. With `states`, cells are
        categorical with the categories of ``passk_lab._data.grid.RUN_STATES``, missing where
        a task has no such run.

    Notes
    -----
    The states follow the error rule of :func:`tally`: ``"errored"`` is a
    run with an ``error`` whose ``error_kind`` is not ``"agent"`` (a run that
    did not measure the agent), ``"timed out"`` one with ``timed_out`` set
    (it wins over the error message a time-out leaves). An agent's own
    exception is ``"failed"``, as the tally counts it. Errored and timed-out
    runs are failures under ``errors="fail"`` and left out under
    ``errors="exclude"``.

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({
    ...     "task": ["a", "a", "b"], "run": [0, 1, 0], "passed": [True, False, True]
    ... })
    >>> outcome_matrix(runs)
    run      0      1
    task
    a     True  False
    b     True   <NA>
    >>> runs["error"] = [None, "RateLimitError", None]
    >>> outcome_matrix(runs, states=True)
    run        0        1
    task
    a     passed  errored
    b     passed      NaN
    """
    return grid_frame(run_grid(as_frame(runs), by_columns(by), threshold, states=states))


def runs_from_matrix(matrix: pd.DataFrame) -> pd.DataFrame:
    """Gather an outcome matrix back into a tidy runs table.

    Parameters
    ----------
    matrix : DataFrame
        Index ``[*groups, task]``, one boolean column per run index, missing
        cells for runs that do not exist (as from :func:`outcome_matrix`).

    Returns
    -------
    DataFrame
        ``[*groups, task, run, passed]``, one row per present cell, in task
        then run order.

    Raises
    ------
    ValueError
        If `matrix` is not a DataFrame whose index ends with ``task``, or has
        a task or run label twice.

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({
    ...     "task": ["a", "a", "b"], "run": [0, 1, 0], "passed": [True, False, True]
    ... })
    >>> runs_from_matrix(outcome_matrix(runs)).equals(runs)
    True
    """
    if not isinstance(matrix, pd.DataFrame) or matrix.index.names[-1] != "task":
        raise ValueError(
            "an outcome matrix is a DataFrame whose index ends with a level named task"
        )
    check_matrix_labels(matrix)
    names = [str(name) for name in matrix.index.names]
    long = matrix.reset_index().melt(id_vars=names, var_name="run", value_name="passed")
    long["_position"] = np.tile(np.arange(len(matrix)), matrix.shape[1])
    long = long[long["passed"].notna()].sort_values(["_position", "run"], kind="stable")
    frame = long.drop(columns="_position").reset_index(drop=True)
    frame["run"] = frame["run"].astype(np.int64)
    frame["passed"] = frame["passed"].astype(np.bool_)
    return frame


def compact_runs(runs: pd.DataFrame) -> pd.DataFrame:
    """Return a runs table stored compactly: categorical ids and text, the smallest integers.

    Every value stays what it was, so every tally and estimate of the result
    equals that of `runs`; only the storage shrinks. A log of string task ids
    with a few distinct errors takes about 8 bytes a run, against 36 in pandas'
    default dtypes and 100 as Python objects (see ``bench/README.md``).

    Parameters
    ----------
    runs : DataFrame
        A runs table (``task``, ``run``, ``passed`` or ``reward``, any other
        columns).

    Returns
    -------
    DataFrame
        A copy where ``task`` and every text or object column (``error``,
        ``model``, ...) is categorical, every integer column (``run``,
        ``attempts``) has the smallest integer dtype that holds its values,
        and a ``passed`` of 0/1 or objects is bool. Floats are kept: a reward
        rounded to float32 could cross its pass threshold.

    Raises
    ------
    ValueError
        If a required column is missing, or ``run`` or ``passed`` holds values
        a runs table cannot (as :func:`tally` refuses them).

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({
    ...     "task": ["t-01", "t-01", "t-02", "t-02"], "run": [0, 1, 0, 1],
    ...     "passed": [True, False, True, True], "error": [None, "Timeout", None, None],
    ... })
    >>> compact_runs(runs).dtypes
    task      category
    run           int8
    passed        bool
    error     category
    dtype: object
    >>> tally(compact_runs(runs))["c"].tolist() == tally(runs)["c"].tolist()
    True
    """
    frame = as_frame(runs)
    require_runs_columns(frame, ())
    columns: dict[Hashable, object] = {}
    for name, column in frame.items():
        dtype = column.dtype
        if name == "passed":
            columns[name] = verdicts(frame, 1.0)
        elif name == "run":
            columns[name] = pd.to_numeric(run_index(frame), downcast="integer")
        elif name == "task" or pd.api.types.is_string_dtype(dtype) or dtype.kind == "O":
            try:
                columns[name] = column.astype("category")
            except TypeError:  # a value that cannot be hashed, such as a list
                refuse_nested(frame, [str(name)])
                raise
        elif pd.api.types.is_integer_dtype(dtype):
            columns[name] = pd.to_numeric(column, downcast="integer")
        else:
            columns[name] = column
    return pd.DataFrame(columns, index=frame.index)


@by_keyword(1)
def per_run(runs: pd.DataFrame, *, by: By = None, threshold: float = 1.0) -> pd.DataFrame:
    """pass@1 of each run index separately, and how many tasks flipped since the run before.

    If the runs are exchangeable, every run index has the same pass rate up to
    noise, and a task flips between pass and fail only as often as its own
    success rate allows. A drifting pass rate across run indices (a cache
    warming, a rate limit biting, a model endpoint changing mid-evaluation)
    breaks the exchangeability every estimator assumes.

    Parameters
    ----------
    runs : DataFrame
        A runs table (see :func:`tally`).
    by : str or list of str, optional
        Grouping columns.
    threshold : float
        The reward a run needs to pass, when the table has ``reward``.

    Returns
    -------
    DataFrame
        ``[*by, run, n_tasks, n_passed, pass_at_1, n_flipped]``: for each
        run index, the tasks that have it, how many passed, their share, and
        how many tasks changed outcome since their own previous run (missing
        where no task has an earlier run). Errored and timed-out runs are
        failures.

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({
    ...     "task": [0, 0, 0, 1, 1, 1], "run": [0, 1, 2, 0, 1, 2],
    ...     "passed": [True, False, False, True, True, True],
    ... })
    >>> per_run(runs)
       run  n_tasks  n_passed  pass_at_1  n_flipped
    0    0        2         2        1.0       <NA>
    1    1        2         1        0.5          1
    2    2        2         1        0.5          0
    """
    groups = by_columns(by)
    summary, grid, columns, _ = run_grid(as_frame(runs), groups, threshold)
    group_codes, group_labels = summary.groups()
    n_groups = len(group_labels)
    present = grid >= 0
    passed = grid == 1
    columns_at = np.where(present, np.arange(len(columns)), -1)
    latest = np.maximum.accumulate(columns_at, axis=1)
    earlier = np.full_like(latest, -1)
    earlier[:, 1:] = latest[:, :-1]  # each task's previous run, -1 if none
    compared = present & (earlier >= 0)
    before = np.take_along_axis(grid, np.maximum(earlier, 0), axis=1)
    flipped = compared & (grid != before)
    parts = []
    for array in (present, passed, flipped, compared):
        sums = np.zeros((n_groups, len(columns)), dtype=np.int64)
        np.add.at(sums, group_codes, array.astype(np.int64))
        parts.append(sums.ravel())
    n_tasks, n_passed, n_flipped, n_compared = parts
    frame = group_labels.loc[np.repeat(np.arange(n_groups), len(columns))].reset_index(drop=True)
    frame["run"] = np.tile(columns, n_groups)
    frame["n_tasks"] = n_tasks
    frame["n_passed"] = n_passed
    frame["pass_at_1"] = n_passed / np.where(n_tasks > 0, n_tasks, 1)
    frame.loc[n_tasks == 0, "pass_at_1"] = np.nan
    flips = pd.array(n_flipped, dtype="Int64")
    flips[n_compared == 0] = pd.NA
    frame["n_flipped"] = flips
    return frame[frame["n_tasks"] > 0].reset_index(drop=True)


@by_keyword(1)
def task_consistency(
    runs: TallyInput, *, by: By = None, errors: ErrorPolicy = "fail"
) -> pd.DataFrame:
    """How many tasks always pass, always fail, or flip between pass and fail across runs.

    Parameters
    ----------
    runs : DataFrame, numpy.ndarray, Tally or dask.dataframe.DataFrame
        Runs, an outcome matrix or a tally: whatever :func:`tally` takes.
    by : str or list of str, optional
        Grouping columns.
    errors : {"fail", "exclude"}
        The error policy of :func:`tally`.

    Returns
    -------
    DataFrame
        ``[*by, n_tasks, always_pass, always_fail, mixed, share_mixed]`` over
        the tasks with at least two runs (a single run cannot disagree with
        itself).

    Examples
    --------
    >>> import pandas as pd
    >>> counts = pd.DataFrame({"task": [0, 1, 2, 3], "n": [4, 4, 4, 1], "c": [4, 2, 0, 1]})
    >>> task_consistency(counts)
       n_tasks  always_pass  always_fail  mixed  share_mixed
    0        3            1            1      1     0.333333
    """
    summary = as_tally(runs, by, errors=errors)
    group_codes, group_labels = summary.groups()
    n, c = summary.n, summary.c
    eligible = n >= 2
    size = len(group_labels)

    def count(mask: Bools) -> Ints:
        return np.bincount(group_codes[eligible & mask], minlength=size).astype(np.int64)

    frame = group_labels.copy()
    frame["n_tasks"] = count(np.ones_like(eligible))
    frame["always_pass"] = count(c == n)
    frame["always_fail"] = count(c == 0)
    frame["mixed"] = count((c > 0) & (c < n))
    frame["share_mixed"] = frame["mixed"] / frame["n_tasks"].where(frame["n_tasks"] > 0)
    return frame.reset_index(drop=True)
