"""What a runs table must hold and what each of its rows means: the rules, stated once.

* a ``reward`` becomes ``passed`` when ``reward >= threshold - 1e-6`` (the
  default threshold is 1.0, as tau-bench decides a pass);
* a run that errored (``error`` not missing) or timed out (``timed_out``) is a
  **failed** run (``errors="fail"``, the source harness's rule), or is left out
  of ``n`` altogether (``errors="exclude"``). An error whose ``error_kind`` is
  ``"agent"`` (the agent's own exception) is a failed run under both policies:
  only runs that did not measure the agent -- infrastructure errors,
  time-outs, errors of unknown kind -- are left out;
* ``run`` holds whole numbers ``>= 0`` and ``passed`` booleans;
* ``(group..., task, run)`` is unique: a repeated run is refused, never counted
  twice;
* ids (``task``, the groups) are plain values: a list or dict is refused;
* which table a DataFrame is follows one rule (:func:`table_kind`): one with
  any of ``run``, ``passed`` or ``reward`` is a runs table, one with ``n`` and
  ``c`` and none of those a tally, one indexed by task an outcome matrix,
  whose task and run labels are unique.

Every reader of runs -- the pandas tally, the Dask tally, the outcome matrix
and the heatmap's states -- applies these functions, and no other code
re-states them.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any, Literal, NamedTuple, TypeAlias

import numpy as np
import numpy.typing as npt
import pandas as pd

from passk_lab._choices import ErrorPolicy
from passk_lab._errors import with_keywords
from passk_lab._typing import Bools, Ints
from passk_lab._warnings import ConflictingVerdictWarning, warn

__all__ = [
    "REWARD_TOLERANCE",
    "By",
    "ErrorPolicy",
    "Flags",
    "TableKind",
    "as_frame",
    "bool_bytes",
    "by_columns",
    "check_matrix_labels",
    "display",
    "errored_runs",
    "is_dask_frame",
    "missing_key",
    "passed_from_reward",
    "policy",
    "refuse_mixed_ids",
    "refuse_nested",
    "repeated_run",
    "require_columns",
    "require_runs_columns",
    "run_flags",
    "run_index",
    "run_numbers",
    "table_kind",
    "verdicts",
    "warn_passed_and_errored",
]

By: TypeAlias = str | Sequence[str] | None

TableKind: TypeAlias = Literal["runs", "tally", "matrix"]
"""What a DataFrame holds: one row per run, one per task with its counts, or tasks x runs."""

REWARD_TOLERANCE = 1e-6
_RESERVED = ("task", "run", "passed", "reward", "error", "error_kind", "timed_out")
_RUNS_MARKS = ("run", "passed", "reward")  # a table with any of these is a runs table
_NUMBER_RUNS = (
    "number the runs of each task 0, 1, 2, ... (for example runs.groupby(['task']).cumcount(), "
    "grouping by every column that tells evaluations apart too, such as model: runs of two "
    "evaluations numbered as one are pooled)"
)


# --- arguments ------------------------------------------------------------------------


def policy(errors: object) -> ErrorPolicy:
    """Return `errors` as an error policy, or refuse it naming both policies."""
    if errors == "fail":
        return "fail"
    if errors == "exclude":
        return "exclude"
    raise ValueError(
        f"errors must be 'fail' (an errored or timed-out run is a failed run) or 'exclude' "
        f"(it is left out of n), got {errors!r}"
    )


def by_columns(by: By) -> tuple[str, ...]:
    """Return the grouping columns `by` names, refusing the runs table's own columns."""
    if by is None:
        return ()
    names = (by,) if isinstance(by, str) else tuple(by)
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"by must name columns with strings, got {name!r}")
        if name in _RESERVED:
            raise with_keywords(
                ValueError(
                    f"by={name!r} is a column of every runs table, not a grouping column; "
                    f"group by columns such as 'model' or 'domain'"
                ),
                "by",
            )
    if len(set(names)) != len(names):
        raise ValueError(f"by names a column twice: {list(names)}")
    return names


def is_dask_frame(data: object) -> bool:
    """Whether `data` is a Dask DataFrame (told without importing Dask)."""
    kind = type(data)
    return kind.__module__.startswith("dask.") and kind.__name__ == "DataFrame"


def as_frame(runs: object, what: str = "runs") -> pd.DataFrame:
    """Return `runs` if it is a non-empty pandas DataFrame; a clear error otherwise."""
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


def table_kind(columns: Iterable[Hashable], index_names: Sequence[Hashable]) -> TableKind:
    """Return which table a DataFrame with these columns and index levels is, or refuse it.

    One rule, for pandas and Dask alike: a table with any of the columns
    ``run``, ``passed`` or ``reward`` is a **runs** table (whatever else it
    has: token counts named ``n`` and ``c`` do not make it a tally); one with
    ``n`` and ``c`` and none of those is a **tally**; one with no ``task``
    column whose last index level is named ``task`` is an **outcome matrix**.
    Anything else is refused, naming what it has and what each kind needs, as
    is a runs table whose task is an index level.

    Examples
    --------
    >>> table_kind(["task", "run", "reward", "n", "c"], [None])
    'runs'
    >>> table_kind(["task", "n", "c"], [None])
    'tally'
    >>> table_kind([0, 1, 2], ["task"])
    'matrix'
    """
    names = list(columns)
    has = set(names)
    if any(name in has for name in _RUNS_MARKS):
        if "task" not in has and "task" in index_names:
            raise ValueError(
                "runs has its task as an index level, not a column; give runs.reset_index()"
            )
        if "n" in has and "c" in has and "run" not in has:
            marks = [name for name in _RUNS_MARKS if name in has]
            raise ValueError(
                f"this table has n and c, as a tally has, and also {', '.join(marks)}, which "
                f"makes it a runs table, but it has no run column: for a tally, drop or rename "
                f"{', '.join(marks)}; for a runs table, add run (runs['run'] = "
                f"runs.groupby('task').cumcount() numbers each task's runs in order)"
            )
        return "runs"
    if "n" in has and "c" in has:
        return "tally"
    if "task" not in has and index_names and index_names[-1] == "task":
        return "matrix"
    raise ValueError(
        f"this table is neither a runs table nor a tally nor an outcome matrix (columns "
        f"{list(map(str, names))}, index {list(index_names)}): a runs table has the columns "
        f"task, run and passed (or reward), one row per run; a tally has task, n and c, one row "
        f"per task, and none of run, passed, reward; an outcome matrix has an index whose last "
        f"level is named task and one boolean column per run"
    )


def check_matrix_labels(matrix: pd.DataFrame) -> None:
    """Refuse an outcome matrix with a task (row) or run (column) label twice.

    A task twice -- two matrices put together with ``pd.concat`` -- would count
    as two tasks, and a run twice would count its cells twice.

    Examples
    --------
    >>> matrix = pd.DataFrame({0: [True], 1: [False]}, index=pd.Index(["a"], name="task"))
    >>> check_matrix_labels(matrix)
    >>> check_matrix_labels(pd.concat([matrix, matrix]))
    Traceback (most recent call last):
    ...
    ValueError: outcome matrix has task='a' more than once (row 1); one row per task. ...
    """
    if not matrix.index.is_unique:
        row = int(np.argmax(matrix.index.duplicated()))
        label = matrix.index[row]
        values = label if isinstance(matrix.index, pd.MultiIndex) else (label,)
        where = ", ".join(
            f"{name}={display(value)!r}"
            for name, value in zip(matrix.index.names, values, strict=True)
        )
        raise with_keywords(
            ValueError(
                f"outcome matrix has {where} more than once (row {row}); one row per task. If the "
                f"rows are two evaluations put together, add an index level telling them apart "
                f"(pd.concat({{'first': m1, 'second': m2}}, names=['evaluation'])) and pass it in "
                f"by=; if they are copies, drop them: matrix[~matrix.index.duplicated()]"
            ),
            "by",
        )
    if not matrix.columns.is_unique:
        column = int(np.argmax(matrix.columns.duplicated()))
        raise with_keywords(
            ValueError(
                f"outcome matrix has run {display(matrix.columns[column])!r} in more than one "
                f"column (column {column}); one column per run. If the columns are runs of two "
                "evaluations, stack the matrices instead, with an index level telling them apart "
                "(pd.concat({'first': m1, 'second': m2}, names=['evaluation'])), and pass it in "
                "by=; renumber the columns only if they are more runs of one evaluation; drop "
                "copies: matrix.loc[:, ~matrix.columns.duplicated()]"
            ),
            "by",
        )


def refuse_nested(
    frame: pd.DataFrame,
    names: Sequence[str],
    what: str = "runs",
    where: Callable[[int], str] | None = None,
) -> None:
    """Refuse the first of the `names` columns that holds a list, dict or other unhashable value.

    A runs table calls this only once hashing its ids has failed, so that a
    table of plain ids pays nothing for it; only columns of Python objects
    are looked at. `where(row)` names the place of a row in the message (a
    reader's file and line); by default ``at row N``, N counted from 0.

    Examples
    --------
    >>> refuse_nested(pd.DataFrame({"task": ["a", "b"]}), ["task"])
    >>> refuse_nested(pd.DataFrame({"task": ["a", ["b", "c"]]}), ["task"])
    Traceback (most recent call last):
    ...
    ValueError: task holds a list at row 1 (['b', 'c']); an id must be a plain value ...
    """
    for name in names:
        column = frame[name]
        if column.dtype != object:
            continue
        plain = column.map(lambda value: isinstance(value, Hashable)).to_numpy(dtype=np.bool_)
        if plain.all():
            continue
        row = int(np.argmin(plain))
        value = column.iloc[row]
        shown = repr(value)
        start = f"{name} holds a {type(value).__name__}"
        start = f"{start} at row {row}" if where is None else f"{where(row)}: {start}"
        raise ValueError(
            f"{start} ({shown if len(shown) <= 60 else shown[:57] + '...'}); an id must be a plain "
            "value (text or a number), not a list or dict: convert the column to text, e.g. "
            f"{what}[{name!r}] = {what}[{name!r}].map(json.dumps)"
        )


def refuse_mixed_ids(labels: pd.DataFrame) -> None:
    """Refuse id columns that hold text and other values (numbers, booleans) together.

    ``"1"`` and ``1`` are two tasks to pandas, so a table joined from a CSV
    file (whose ids are text) and a JSON one (whose integer ids stay
    integers) would split every task in two. `labels` holds each task once,
    so the check costs one pass over the tasks, not the runs; only columns of
    Python objects can mix kinds.

    Examples
    --------
    >>> refuse_mixed_ids(pd.DataFrame({"task": ["1", "2"]}))
    >>> refuse_mixed_ids(pd.DataFrame({"task": ["1", 2]}))
    Traceback (most recent call last):
    ...
    ValueError: task holds text and other values: '1' (str) and 2 (int) would be two tasks ...
    """
    for name in labels.columns:
        column = labels[name]
        if column.dtype != object:
            continue
        if pd.api.types.infer_dtype(column, skipna=True) not in ("mixed", "mixed-integer"):
            continue  # all text, all numbers, or all of one other kind
        text = column.map(lambda value: isinstance(value, str)).to_numpy(dtype=np.bool_)
        other = ~text & column.notna().to_numpy()
        if not (text.any() and other.any()):
            continue
        word, number = column[text].iloc[0], column[other].iloc[0]
        raise ValueError(
            f"{name} holds text and other values: {word!r} (str) and {number!r} "
            f"({type(number).__name__}) would be two {'tasks' if name == 'task' else 'groups'} "
            f"even where they are meant as one "
            f"(a CSV file's ids are read as text, a JSON file's integers stay integers); "
            f"write them one way, e.g. runs[{name!r}] = runs[{name!r}].astype(str)"
        )


def require_columns(frame: pd.DataFrame, columns: Sequence[str], what: str, fix: str) -> None:
    """Refuse `frame` if it lacks any of `columns`, naming them, what it has, and `fix`."""
    missing = [name for name in columns if name not in frame.columns]
    if missing:
        raise ValueError(
            f"{what} has no column {', '.join(map(repr, missing))} "
            f"(it has {list(map(str, frame.columns))}); {fix}"
        )


def display(value: object) -> object:
    """Return a numpy scalar as the Python value it holds, for messages (``0``, not ``int64``)."""
    return value.item() if isinstance(value, np.generic) else value


# --- rows -----------------------------------------------------------------------------


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


def verdicts(runs: pd.DataFrame, threshold: float) -> Bools:
    """Return each run's verdict: ``passed`` as booleans, or the pass rule applied to ``reward``."""
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
        own = isinstance(dtype, np.dtype) and dtype.kind in "iuf"  # compared with no copy
        values = column.to_numpy() if own else column.to_numpy(dtype=np.float64)
        judged: Bools = values == 1
        if np.all(judged | (values == 0)):
            return judged
    elif dtype.kind == "O" and all(isinstance(value, bool | np.bool_) for value in column):
        return column.to_numpy(dtype=np.bool_)
    examples = pd.unique(column.to_numpy(dtype=object))[:3].tolist()
    raise ValueError(
        f"passed must be boolean (True/False, or 1/0), got dtype {dtype} with values such as "
        f"{examples}; for scores, give a reward column and a threshold instead"
    )


def bool_bytes(mask: Bools) -> npt.NDArray[np.uint8]:
    """Return the bytes of a bool array, each 0 or 1, for summing.

    numpy writes True as 1, but a bool array viewed from other bytes
    (``np.frombuffer(..., bool)``, ``.view(bool)``) may hold any non-zero
    byte; such an array is made canonical first, so that sums count cells.
    """
    cells: npt.NDArray[np.uint8] = mask.view(np.uint8)
    if cells.size and int(cells.max()) > 1:
        cells = (cells != 0).view(np.uint8)
    return cells


def run_numbers(runs: pd.DataFrame) -> npt.NDArray[np.integer[Any]]:
    """Return ``run`` as whole numbers ``>= 0``, an integer column as it is (no copy).

    Whole floats and unsigned 64-bit integers become int64; a run number too large for
    int64 is refused, as is anything else, saying how to number runs.
    """
    column = runs["run"]
    dtype = column.dtype
    integers = isinstance(dtype, np.dtype) and dtype.kind in "iu"  # cannot be missing
    if not integers and column.isna().any():
        raise ValueError(f"run is missing in {int(column.isna().sum())} row(s); {_NUMBER_RUNS}")
    if pd.api.types.is_bool_dtype(dtype) or not pd.api.types.is_numeric_dtype(dtype):
        raise ValueError(f"run must hold integers, got dtype {dtype}; {_NUMBER_RUNS}")
    values = column.to_numpy()
    with np.errstate(invalid="ignore"):
        huge = np.isfinite(values) & (values >= 2**63) if values.dtype.kind in "uf" else None
    if huge is not None and huge.any():
        row = int(np.argmax(huge))
        raise ValueError(
            f"run {values[row]} at row {row} is too large for a run number; {_NUMBER_RUNS}"
        )
    if pd.api.types.is_integer_dtype(dtype):
        index = values if values.dtype.kind in "iu" else values.astype(np.int64)
        if index.dtype == np.uint64:
            index = index.view(np.int64)
    else:
        with np.errstate(invalid="ignore"):  # infinities cast to nonsense
            index = values.astype(np.int64)
            # a value the cast changed is a fraction or infinite
            changed = index != values
            fractions = changed.any() and not np.all(np.mod(values[changed], 1) == 0)
        if fractions:
            raise ValueError("run must hold whole numbers, got fractions; number the runs 0, 1, 2")
    if index.dtype.kind == "i" and index.min() < 0:
        row = int(np.argmin(index))
        raise ValueError(
            f"run must be >= 0, got {index[row]} at row {row}; runs are numbered from 0"
        )
    return index


def run_index(runs: pd.DataFrame) -> Ints:
    """Return ``run`` as whole numbers ``>= 0`` (int64), or refuse it saying how to number runs."""
    return run_numbers(runs).astype(np.int64, copy=False)


class Flags(NamedTuple):
    """Per run: an error that did not measure the agent, and a time-out (None: not recorded)."""

    error: Bools | None
    timed_out: Bools | None


def run_flags(runs: pd.DataFrame) -> Flags:
    """Flag the runs that did not measure the agent, by cause.

    ``error`` is set where a run has an ``error`` whose ``error_kind`` is not
    ``"agent"`` (an agent's own exception is an ordinary failure), and
    ``timed_out`` where the run ran out of time.
    """
    error: Bools | None = None
    if "error" in runs.columns:
        error = runs["error"].notna().to_numpy()
        if "error_kind" in runs.columns:
            error = error & (runs["error_kind"] != "agent").to_numpy()
    timed_out: Bools | None = None
    if "timed_out" in runs.columns:
        column = runs["timed_out"]
        if not pd.api.types.is_bool_dtype(column.dtype) or column.isna().any():
            raise ValueError(
                f"timed_out must be boolean with no missing values, got dtype {column.dtype}"
            )
        timed_out = column.to_numpy(dtype=np.bool_)
    return Flags(error, timed_out)


def errored_runs(runs: pd.DataFrame) -> Bools | None:
    """Flag the runs that did not measure the agent: an error not of kind "agent", a time-out."""
    error, timed_out = run_flags(runs)
    if error is None:
        return timed_out
    return error if timed_out is None else error | timed_out


# --- messages -------------------------------------------------------------------------


def missing_key(name: str, rows: int) -> ValueError:
    """Return the error for a task (or group) column missing in `rows` rows."""
    return ValueError(
        f"{name} is missing in {rows} row(s); every run needs a {name}: fill or drop those rows "
        f"deliberately"
    )


def repeated_run(keys: Sequence[str], values: Sequence[object], run: int, times: int) -> ValueError:
    """Return the error for a run that appears `times` times in one task (and group)."""
    where = ", ".join(
        f"{name}={display(value)!r}" for name, value in zip(keys, values, strict=True)
    )
    groups = list(keys[:-1])
    apart = [*groups, "evaluation"]
    return ValueError(
        f"run {run} of {where} appears {times} times; each ({', '.join(keys)}, run) must be "
        f"unique. If two evaluations were put together (pd.concat of two logs that share run "
        f"numbers), add a column telling them apart, runs['evaluation'] = ..., and pass it in "
        f"by={apart!r}; if the rows are copies, drop them: runs.drop_duplicates(). Renumber "
        f"only rows that are truly distinct runs of one evaluation: runs['run'] = "
        f"runs.groupby({list(keys)!r}).cumcount()"
    )


def require_runs_columns(runs: pd.DataFrame, by: tuple[str, ...]) -> None:
    """Refuse a runs table without task, run, the `by` columns, and passed or reward."""
    require_columns(
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


def warn_passed_and_errored(count: int) -> None:
    """Warn that `count` runs marked passed errored too, and so count as failed (or left out)."""
    warn(
        ConflictingVerdictWarning(
            f"{count} run(s) are marked passed but also errored or timed out; "
            f"they count as failed runs (errors='fail') or are left out (errors='exclude')",
            runs=count,
        )
    )
