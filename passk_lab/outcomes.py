"""Runs tables: validation, the per-task tally, the outcome matrix and the per-run view.

A **runs** table is a tidy :class:`pandas.DataFrame` with one row per run and
the columns ``task`` (any hashable id), ``run`` (an integer ``>= 0``) and
``passed`` (bool), or ``reward`` (a number) instead of ``passed``. Optional
columns: ``error`` (text, missing when the run raised nothing), ``error_kind``
(whose failure an error was, as :func:`passk_lab.evaluate` records it),
``timed_out`` (bool), and grouping columns such as ``model`` or ``domain``
named with `by`.

For exchangeable runs the pair ``(n, c)`` -- runs and passes of a task -- is
all every estimator needs, so :func:`tally` is the one pass over the raw runs:
everything in :mod:`passk_lab.estimators` works on its output.

The rules, applied the same way everywhere:

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
  twice.
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, replace
from typing import Literal, TypeAlias

import numpy as np
import numpy.typing as npt
import pandas as pd

__all__ = [
    "ErrorPolicy",
    "compact_runs",
    "outcome_matrix",
    "passed_from_reward",
    "per_run",
    "runs_from_matrix",
    "tally",
    "task_consistency",
]

ErrorPolicy: TypeAlias = Literal["fail", "exclude"]
"""What an errored or timed-out run means: a failure, or no run at all."""

By: TypeAlias = str | Sequence[str] | None
Ints: TypeAlias = npt.NDArray[np.int64]
Bools: TypeAlias = npt.NDArray[np.bool_]

REWARD_TOLERANCE = 1e-6
_RESERVED = ("task", "run", "passed", "reward", "error", "error_kind", "timed_out")


# --- argument checks ------------------------------------------------------------------


def _policy(errors: object) -> ErrorPolicy:
    if errors == "fail":
        return "fail"
    if errors == "exclude":
        return "exclude"
    raise ValueError(
        f"errors must be 'fail' (an errored or timed-out run is a failed run) or 'exclude' "
        f"(it is left out of n), got {errors!r}"
    )


def _by_columns(by: By) -> tuple[str, ...]:
    if by is None:
        return ()
    names = (by,) if isinstance(by, str) else tuple(by)
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"by must name columns with strings, got {name!r}")
        if name in _RESERVED:
            raise ValueError(
                f"by={name!r} is a column of every runs table, not a grouping column; "
                f"group by columns such as 'model' or 'domain'"
            )
    if len(set(names)) != len(names):
        raise ValueError(f"by names a column twice: {list(names)}")
    return names


def is_dask_frame(data: object) -> bool:
    """Whether `data` is a Dask DataFrame (told without importing Dask)."""
    kind = type(data)
    return kind.__module__.startswith("dask.") and kind.__name__ == "DataFrame"


def _frame(runs: object, what: str = "runs") -> pd.DataFrame:
    if is_dask_frame(runs):
        raise TypeError(
            f"{what} is a Dask DataFrame, and this needs every run in memory: pass "
            f"{what}.compute(), or use tally and the estimators, which take a Dask DataFrame"
        )
    if not isinstance(runs, pd.DataFrame):
        raise TypeError(
            f"{what} must be a pandas DataFrame with columns task, run and passed (or reward), "
            f"got {type(runs).__name__}"
        )
    if runs.empty:
        raise ValueError(f"{what} is empty: there are no runs to count")
    return runs


def _require(frame: pd.DataFrame, columns: Sequence[str], what: str, fix: str) -> None:
    missing = [name for name in columns if name not in frame.columns]
    if missing:
        raise ValueError(
            f"{what} has no column {', '.join(map(repr, missing))} "
            f"(it has {list(map(str, frame.columns))}); {fix}"
        )


def label(value: object) -> object:
    """Return a numpy scalar as the Python value it holds, for messages (``0``, not ``int64``)."""
    return value.item() if isinstance(value, np.generic) else value


# --- columns --------------------------------------------------------------------------


def passed_from_reward(
    reward: npt.ArrayLike, threshold: float = 1.0, *, tolerance: float = REWARD_TOLERANCE
) -> Bools:
    """Return whether each reward counts as a pass: ``reward >= threshold - tolerance``.

    With the default threshold of 1.0 a run passes when its reward is 1 up to
    floating-point noise, as tau-bench decides.

    Parameters
    ----------
    reward : array_like of float
        Rewards, one per run. Missing values are refused.
    threshold : float
        The reward a run needs to pass.
    tolerance : float
        Slack below the threshold, for rewards computed in floating point.

    Returns
    -------
    numpy.ndarray of bool

    Raises
    ------
    ValueError
        If a reward is missing (NaN) or not a number.

    Examples
    --------
    >>> passed_from_reward([1.0, 0.9999999, 0.5, 0.0]).tolist()
    [True, True, False, False]
    >>> passed_from_reward([0.7, 0.8], threshold=0.8).tolist()
    [False, True]
    """
    try:
        values = np.asarray(reward, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            "reward must hold numbers; convert the column with pd.to_numeric first"
        ) from None
    if not np.isfinite(threshold) or not np.isfinite(tolerance) or tolerance < 0:
        raise ValueError(
            f"threshold must be finite and tolerance finite and >= 0, got {threshold}, {tolerance}"
        )
    missing = np.isnan(values)
    if missing.any():
        first = int(np.flatnonzero(missing)[0])
        raise ValueError(
            f"reward is missing (NaN) in {int(missing.sum())} run(s), the first at row {first}; "
            f"a missing reward is neither a pass nor a fail: fill or drop those runs deliberately"
        )
    passed: Bools = values >= threshold - tolerance
    return passed


def _passed(runs: pd.DataFrame, threshold: float) -> Bools:
    if "passed" not in runs.columns:
        return passed_from_reward(runs["reward"], threshold)
    column = runs["passed"]
    dtype = column.dtype
    if dtype == np.bool_:
        return column.to_numpy()
    if column.isna().any():
        raise ValueError(
            f"passed is missing in {int(column.isna().sum())} run(s); every run needs a verdict: "
            f"fill or drop those runs deliberately"
        )
    if pd.api.types.is_bool_dtype(dtype):
        return column.to_numpy(dtype=np.bool_)
    if pd.api.types.is_numeric_dtype(dtype):
        values = column.to_numpy(dtype=np.float64)
        if np.all((values == 0) | (values == 1)):
            verdicts: Bools = values == 1
            return verdicts
    elif dtype.kind == "O" and all(isinstance(value, bool | np.bool_) for value in column):
        return column.to_numpy(dtype=np.bool_)
    examples = pd.unique(column.to_numpy(dtype=object))[:3].tolist()
    raise ValueError(
        f"passed must be boolean (True/False, or 1/0), got dtype {dtype} with values such as "
        f"{examples}; for scores, give a reward column and a threshold instead"
    )


def _run_index(runs: pd.DataFrame) -> Ints:
    column = runs["run"]
    if column.isna().any():
        raise ValueError(
            f"run is missing in {int(column.isna().sum())} row(s); number the runs of each task "
            f"0, 1, 2, ... (for example runs.groupby('task').cumcount())"
        )
    if pd.api.types.is_bool_dtype(column.dtype) or not pd.api.types.is_numeric_dtype(column.dtype):
        raise ValueError(
            f"run must hold integers, got dtype {column.dtype}; number the runs of each task "
            f"0, 1, 2, ... (for example runs.groupby('task').cumcount())"
        )
    values = column.to_numpy()
    if not pd.api.types.is_integer_dtype(column.dtype) and not np.all(np.mod(values, 1) == 0):
        raise ValueError("run must hold whole numbers, got fractions; number the runs 0, 1, 2")
    index = values.astype(np.int64, copy=False)
    if index.min() < 0:
        row = int(np.argmin(index))
        raise ValueError(
            f"run must be >= 0, got {index[row]} at row {row}; runs are numbered from 0"
        )
    return index


def _errored(runs: pd.DataFrame) -> Bools | None:
    """Flag the runs that did not measure the agent: an error not of kind "agent", a time-out."""
    errored: Bools | None = None
    if "error" in runs.columns:
        errored = runs["error"].notna().to_numpy()
        if "error_kind" in runs.columns:
            errored = errored & (runs["error_kind"] != "agent").to_numpy()
    if "timed_out" in runs.columns:
        column = runs["timed_out"]
        if not pd.api.types.is_bool_dtype(column.dtype) or column.isna().any():
            raise ValueError(
                f"timed_out must be boolean with no missing values, got dtype {column.dtype}"
            )
        timed_out = column.to_numpy(dtype=np.bool_)
        errored = timed_out if errored is None else errored | timed_out
    return errored


# --- units: one per (group..., task) ---------------------------------------------------


def _key_codes(column: pd.Series) -> Ints:
    """Integers equal exactly where the column's values are equal; -1 for a missing value."""
    dtype = column.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return np.asarray(column.cat.codes, dtype=np.int64)
    if dtype.kind in "iub":
        return column.to_numpy(dtype=np.int64)
    codes, _ = pd.factorize(column)
    return codes.astype(np.int64, copy=False)


@dataclass(frozen=True)
class _Units:
    """The rows of a runs table, split by (group..., task) in order of first appearance."""

    codes: npt.NDArray[np.intp] | None  # unit of every row; None when units are contiguous
    starts: npt.NDArray[np.intp]  # first row of every unit
    boundary: Bools | None  # for contiguous units: row i+1 starts a new unit

    @property
    def size(self) -> int:
        return len(self.starts)

    def row_codes(self, n_rows: int) -> npt.NDArray[np.intp]:
        if self.codes is not None:
            return self.codes
        lengths = np.diff(np.append(self.starts, n_rows))
        return np.repeat(np.arange(self.size, dtype=np.intp), lengths)

    def count(self, mask: Bools | None, n_rows: int) -> Ints:
        """Rows (or rows where `mask` holds) per unit."""
        if self.codes is None:
            ends = np.append(self.starts[1:], n_rows)
            if mask is None:
                return (ends - self.starts).astype(np.int64)
            cumulative: Ints = np.concatenate(([0], np.cumsum(mask, dtype=np.int64)))
            within: Ints = cumulative[ends] - cumulative[self.starts]
            return within
        if mask is None:
            return np.bincount(self.codes, minlength=self.size).astype(np.int64)
        counts = np.bincount(self.codes, weights=mask, minlength=self.size)
        return counts.astype(np.int64)


def missing_key(name: str, rows: int) -> ValueError:
    """Return the error for a task (or group) column missing in `rows` rows."""
    return ValueError(
        f"{name} is missing in {rows} row(s); every run needs a {name}: fill or drop those rows "
        f"deliberately"
    )


def _units(runs: pd.DataFrame, keys: Sequence[str]) -> _Units:
    codes = [_key_codes(runs[name]) for name in keys]
    n_rows = len(runs)
    boundary = np.zeros(n_rows - 1, dtype=np.bool_)
    for values in codes:
        boundary |= values[1:] != values[:-1]
    starts = np.concatenate(([0], np.flatnonzero(boundary) + 1)).astype(np.intp)
    heads = [values[starts] for values in codes]
    for name, values in zip(keys, heads, strict=True):
        if (values < 0).any() and runs[name].isna().any():
            raise missing_key(name, int(runs[name].isna().sum()))
    # Factorize only the first row of every run of equal keys: a table in task order has
    # one such row per task, so this hashes tasks, not runs.
    segment, _ = pd.factorize(heads[0])
    for values in heads[1:]:
        dense, _ = pd.factorize(values)
        segment, _ = pd.factorize(segment.astype(np.int64) * (int(dense.max()) + 1) + dense)
    if int(segment.max()) + 1 == len(starts):
        return _Units(codes=None, starts=starts, boundary=boundary)
    unit = np.repeat(segment, np.diff(np.append(starts, n_rows))).astype(np.intp)
    seen = np.maximum.accumulate(np.concatenate(([-1], segment[:-1])))
    first = starts[segment > seen]
    return _Units(codes=unit, starts=first, boundary=None)


def _check_unique_runs(runs: pd.DataFrame, keys: Sequence[str], units: _Units, run: Ints) -> None:
    if units.boundary is not None:
        increasing = (run[1:] > run[:-1]) | units.boundary
        if increasing.all():
            return
    unit = units.row_codes(len(runs)).astype(np.int64)
    width = int(run.max()) + 1
    if units.size * width <= 4 * len(runs) + (1 << 20):
        cells = np.bincount(unit * width + run, minlength=units.size * width)
        repeated = np.flatnonzero(cells > 1)
        if len(repeated) == 0:
            return
        cell = int(repeated[0])
        duplicate_unit, duplicate_run = divmod(cell, width)
        times = int(cells[cell])
    else:
        order = np.lexsort((run, unit))
        same = (unit[order][1:] == unit[order][:-1]) & (run[order][1:] == run[order][:-1])
        if not same.any():
            return
        row = int(order[int(np.flatnonzero(same)[0])])
        duplicate_unit, duplicate_run = int(unit[row]), int(run[row])
        times = int(np.sum((unit == duplicate_unit) & (run == duplicate_run)))
    head = int(units.starts[duplicate_unit])
    raise repeated_run(keys, [runs[name].iloc[head] for name in keys], duplicate_run, times)


def repeated_run(keys: Sequence[str], values: Sequence[object], run: int, times: int) -> ValueError:
    """Return the error for a run that appears `times` times in one task (and group)."""
    where = ", ".join(f"{name}={label(value)!r}" for name, value in zip(keys, values, strict=True))
    return ValueError(
        f"run {run} of {where} appears {times} times; each ({', '.join(keys)}, run) "
        f"must be unique. Drop the rows if they are copies, or renumber the runs if they are "
        f"distinct: runs['run'] = runs.groupby({list(keys)!r}).cumcount()"
    )


# --- the tally ------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Tally:
    """Per (group..., task): runs `n`, passes `c`, and errored runs, as arrays.

    The sufficient statistic every estimator uses; build it with :func:`tally`.
    """

    labels: pd.DataFrame  # one row per task: the group columns, then task
    n: Ints
    c: Ints
    n_errors: Ints | None  # errored or timed-out runs; None when the runs record no errors
    by: tuple[str, ...]
    errors: ErrorPolicy

    def groups(self) -> tuple[npt.NDArray[np.intp], pd.DataFrame]:
        """Return the group of every task and the groups' labels, in order of first appearance."""
        if not self.by:
            return np.zeros(len(self.n), dtype=np.intp), pd.DataFrame(index=range(1))
        labels = self.labels[list(self.by)]
        codes = labels.groupby(list(self.by), sort=False).ngroup().to_numpy().astype(np.intp)
        first = np.sort(np.unique(codes, return_index=True)[1])
        return codes, labels.iloc[first].reset_index(drop=True)

    def without_errors(self) -> Tally:
        """Return the tally under ``errors="exclude"``: errored runs left out of `n`."""
        if self.errors == "exclude" or self.n_errors is None:
            return replace(self, errors="exclude")
        return replace(self, n=self.n - self.n_errors, errors="exclude")

    def to_frame(self) -> pd.DataFrame:
        """Return the tally as a DataFrame: ``[*by, task, n, c]`` (``n_errors`` if recorded)."""
        frame = self.labels.reset_index(drop=True).assign(n=self.n, c=self.c)
        if self.n_errors is not None:
            frame["n_errors"] = self.n_errors
        return frame


@dataclass(frozen=True, eq=False)
class _Checked:
    """A runs table's columns, validated: one verdict and one run index per row."""

    passed: Bools  # errored and timed-out runs already count as failed
    run: Ints
    errored: Bools | None
    units: _Units
    keys: list[str]


def require_runs_columns(runs: pd.DataFrame, by: tuple[str, ...]) -> None:
    """Refuse a runs table without task, run, the `by` columns, and passed or reward."""
    _require(
        runs,
        ["task", "run", *by],
        "runs",
        "a runs table needs task and run columns (and any column named in by)",
    )
    if "passed" not in runs.columns and "reward" not in runs.columns:
        raise ValueError(
            f"runs has neither a passed nor a reward column "
            f"(it has {list(map(str, runs.columns))}); "
            f"give passed (bool) or reward (a number, with a threshold)"
        )


def warn_passed_and_errored(count: int, stacklevel: int) -> None:
    """Warn that `count` runs marked passed errored too, and so count as failed (or left out)."""
    warnings.warn(
        f"{count} run(s) are marked passed but also errored or timed out; "
        f"they count as failed runs (errors='fail') or are left out (errors='exclude')",
        UserWarning,
        stacklevel=stacklevel + 1,
    )


def _check_runs(runs: pd.DataFrame, by: tuple[str, ...], threshold: float) -> _Checked:
    require_runs_columns(runs, by)
    passed = _passed(runs, threshold)
    run = _run_index(runs)
    errored = _errored(runs)
    keys = [*by, "task"]
    units = _units(runs, keys)
    _check_unique_runs(runs, keys, units, run)
    if errored is not None:
        lucky = passed & errored
        if lucky.any():
            warn_passed_and_errored(int(lucky.sum()), stacklevel=5)
            passed = passed & ~errored
    return _Checked(passed=passed, run=run, errored=errored, units=units, keys=keys)


def _tally_runs(
    runs: pd.DataFrame, by: tuple[str, ...], errors: ErrorPolicy, threshold: float
) -> Tally:
    checked = _check_runs(runs, by, threshold)
    return _tally_checked(runs, by, errors, checked)


def _tally_checked(
    runs: pd.DataFrame, by: tuple[str, ...], errors: ErrorPolicy, checked: _Checked
) -> Tally:
    units, n_rows = checked.units, len(runs)
    n_errors = None if checked.errored is None else units.count(checked.errored, n_rows)
    summary = Tally(
        labels=runs[checked.keys].iloc[units.starts].reset_index(drop=True),
        n=units.count(None, n_rows),
        c=units.count(checked.passed, n_rows),
        n_errors=n_errors,
        by=by,
        errors="fail",
    )
    return summary.without_errors() if errors == "exclude" else summary


def _tally_frame(frame: pd.DataFrame, by: tuple[str, ...], errors: ErrorPolicy) -> Tally:
    _require(frame, ["task", "n", "c", *by], "tally", "a tally has columns [*by, task, n, c]")
    arrays = {}
    for name in ("n", "c"):
        column = frame[name]
        if not pd.api.types.is_integer_dtype(column.dtype) or column.isna().any():
            raise ValueError(f"tally column {name} must hold integers, got dtype {column.dtype}")
        arrays[name] = column.to_numpy(dtype=np.int64)
    n, c = arrays["n"], arrays["c"]
    bad = (c < 0) | (c > n)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"tally row {row} has c={c[row]} passes of n={n[row]} runs; need 0 <= c <= n"
        )
    keys = [*by, "task"]
    repeated = frame.duplicated(keys)
    if repeated.any():
        row = int(np.flatnonzero(repeated.to_numpy())[0])
        raise ValueError(
            f"tally has task {label(frame['task'].iloc[row])!r} more than once (row {row}); "
            f"one row per ({', '.join(keys)})"
        )
    n_errors = frame["n_errors"].to_numpy(dtype=np.int64) if "n_errors" in frame else None
    labels = frame[keys].reset_index(drop=True)
    return Tally(labels=labels, n=n, c=c, n_errors=n_errors, by=by, errors=errors)


def _tally_matrix(
    matrix: pd.DataFrame | np.ndarray, by: tuple[str, ...], errors: ErrorPolicy
) -> Tally:
    if isinstance(matrix, np.ndarray):
        if by:
            raise ValueError("by needs labelled groups: give the outcome matrix as a DataFrame")
        if matrix.ndim != 2 or matrix.dtype != np.bool_:
            raise ValueError(
                f"an outcome matrix array must be 2-D bool (tasks x runs), got "
                f"{matrix.ndim}-D {matrix.dtype}"
            )
        c = np.count_nonzero(matrix, axis=1).astype(np.int64, copy=False)
        n = np.full(len(matrix), matrix.shape[1], dtype=np.int64)
        labels = pd.DataFrame({"task": np.arange(len(matrix), dtype=np.int64)})
        return Tally(labels=labels, n=n, c=c, n_errors=None, by=(), errors=errors)
    names = list(matrix.index.names)
    if not names or names[-1] != "task":
        raise ValueError("an outcome matrix's index must end with a level named task")
    missing = [name for name in by if name not in names]
    if missing:
        raise ValueError(f"by names {missing}, which are not index levels of the outcome matrix")
    n = np.zeros(len(matrix), dtype=np.int64)
    c = np.zeros(len(matrix), dtype=np.int64)
    for name, column in matrix.items():
        if not pd.api.types.is_bool_dtype(column.dtype):
            raise ValueError(
                f"outcome matrix column {name!r} has dtype {column.dtype}; the cells must be "
                f"boolean (nullable boolean for missing runs)"
            )
        values = column.array
        if isinstance(values, pd.arrays.BooleanArray):
            present = ~values.isna()
            n += present
            c += values.to_numpy(dtype=np.bool_, na_value=False)
        else:
            n += 1
            c += column.to_numpy(dtype=np.bool_)
    labels = matrix.index.to_frame(index=False)[[*by, "task"]]
    return Tally(labels=labels, n=n, c=c, n_errors=None, by=by, errors=errors)


def as_tally(
    data: object, by: By = None, *, errors: ErrorPolicy = "fail", threshold: float = 1.0
) -> Tally:
    """Reduce runs, an outcome matrix or a tally to a :class:`Tally` (internal entry point)."""
    policy = _policy(errors)
    groups = _by_columns(by)
    if is_dask_frame(data):
        from passk_lab.dask_tally import tally_dask

        return tally_dask(data, groups, policy, threshold)
    if isinstance(data, np.ndarray):
        return _tally_matrix(data, groups, policy)
    frame = _frame(data)
    if "task" in frame.columns:
        if "n" in frame.columns and "c" in frame.columns and "passed" not in frame.columns:
            return _tally_frame(frame, groups, policy)
        return _tally_runs(frame, groups, policy, threshold)
    if "task" in frame.index.names:
        return _tally_matrix(frame, groups, policy)
    raise ValueError(
        f"runs has no task column (columns {list(map(str, frame.columns))}); give a runs table "
        f"[task, run, passed], a tally [task, n, c] or an outcome matrix indexed by task"
    )


def tally(
    runs: pd.DataFrame | np.ndarray,
    by: By = None,
    *,
    errors: ErrorPolicy = "fail",
    threshold: float = 1.0,
) -> pd.DataFrame:
    """Count runs `n` and passes `c` per task (and group): the one pass over the raw runs.

    Parameters
    ----------
    runs : DataFrame, numpy.ndarray or dask.dataframe.DataFrame
        A runs table (``task``, ``run``, ``passed`` or ``reward``; optional
        ``error``, ``timed_out`` and grouping columns), or an outcome matrix
        from :func:`outcome_matrix` (or a 2-D bool array, tasks x runs). A
        runs table may be a Dask DataFrame: it is checked by the same rules
        and counted where its partitions are, and only the tally comes back
        (the estimators, which all start from this tally, take one too).
    by : str or list of str, optional
        Grouping columns (``"model"``, ``["model", "domain"]``): tasks are
        counted within each group.
    errors : {"fail", "exclude"}
        An errored or timed-out run counts as a failed run (``"fail"``, the
        default) or is left out of ``n`` (``"exclude"``). An error of
        ``error_kind`` ``"agent"`` (the agent's own exception) is a failed run
        under both.
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
        If a required column is missing, a run appears twice, ``passed`` is not
        boolean, a value is missing, a run index is negative or the table is
        empty. The message names the column and the fix.

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


def _cells(
    runs: pd.DataFrame, by: tuple[str, ...], threshold: float
) -> tuple[Tally, npt.NDArray[np.int8], Ints]:
    """Return the tally and a dense tasks x runs grid: 1 pass, 0 fail, -1 no such run."""
    checked = _check_runs(runs, by, threshold)
    summary = _tally_checked(runs, by, "fail", checked)
    columns = np.unique(checked.run)
    position = np.searchsorted(columns, checked.run)
    grid = np.full((checked.units.size, len(columns)), -1, dtype=np.int8)
    grid[checked.units.row_codes(len(runs)), position] = checked.passed
    return summary, grid, columns.astype(np.int64)


def outcome_matrix(runs: pd.DataFrame, by: By = None, *, threshold: float = 1.0) -> pd.DataFrame:
    """Spread a runs table into a tasks x runs table of outcomes.

    Parameters
    ----------
    runs : DataFrame
        A runs table (see :func:`tally`).
    by : str or list of str, optional
        Grouping columns, which become the leading index levels.
    threshold : float
        The reward a run needs to pass, when the table has ``reward``.

    Returns
    -------
    DataFrame
        Index ``[*by, task]`` (tasks in order of first appearance), one column
        per run index (sorted), nullable boolean cells: ``<NA>`` where a task
        has no such run. An errored or timed-out run is ``False``. The inverse
        is :func:`runs_from_matrix`.

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
    """
    summary, grid, columns = _cells(_frame(runs), _by_columns(by), threshold)
    index = (
        pd.MultiIndex.from_frame(summary.labels)
        if summary.by
        else pd.Index(summary.labels["task"], name="task")
    )
    data = {
        int(run): pd.arrays.BooleanArray(grid[:, j] == 1, grid[:, j] < 0)
        for j, run in enumerate(columns)
    }
    matrix = pd.DataFrame(data, index=index)
    matrix.columns.name = "run"
    return matrix


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
    frame = _frame(runs)
    require_runs_columns(frame, ())
    columns: dict[Hashable, object] = {}
    for name, column in frame.items():
        dtype = column.dtype
        if name == "passed":
            columns[name] = _passed(frame, 1.0)
        elif name == "run":
            columns[name] = pd.to_numeric(_run_index(frame), downcast="integer")
        elif name == "task" or pd.api.types.is_string_dtype(dtype) or dtype.kind == "O":
            columns[name] = column.astype("category")
        elif pd.api.types.is_integer_dtype(dtype):
            columns[name] = pd.to_numeric(column, downcast="integer")
        else:
            columns[name] = column
    return pd.DataFrame(columns, index=frame.index)


def per_run(runs: pd.DataFrame, by: By = None, *, threshold: float = 1.0) -> pd.DataFrame:
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
    groups = _by_columns(by)
    summary, grid, columns = _cells(_frame(runs), groups, threshold)
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


def task_consistency(
    runs: pd.DataFrame | np.ndarray, by: By = None, *, errors: ErrorPolicy = "fail"
) -> pd.DataFrame:
    """How many tasks always pass, always fail, or flip between pass and fail across runs.

    Parameters
    ----------
    runs : DataFrame or numpy.ndarray
        A runs table, an outcome matrix or a tally (see :func:`tally`).
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
