"""What a call and a table must hold: the arguments, the kinds of table, columns and ids.

* ``by`` names grouping columns, never a runs table's own (``task``,
  ``run``, ...); ``errors`` is ``"fail"`` or ``"exclude"``;
* which table a DataFrame is follows one rule (:func:`table_kind`): one with
  any of ``run``, ``passed`` or ``reward`` is a runs table, one with ``n`` and
  ``c`` and none of those a tally, one indexed by task an outcome matrix
  (:mod:`passk_lab._data.matrix` says what it must hold);
* a runs table has ``task`` and ``passed`` or ``reward`` (``run`` too, or
  its runs are numbered in the order of the rows); one that lacks some is
  refused naming them all, and the columns that look like them
  (:mod:`passk_lab._data.names`);
* ids (``task``, the groups) are plain values, of one kind: a list or dict is
  refused, as are text and numbers together.

What each row means is :mod:`passk_lab._data.verdicts`; that ``(group...,
task, run)`` is unique, :mod:`passk_lab._data.units`. Every reader of runs
applies these functions, and no other code re-states them.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Literal, TypeAlias

import numpy as np
import pandas as pd

from passk_lab._choices import ErrorPolicy
from passk_lab._data.names import likely_columns, missing_columns, runs_lacks
from passk_lab._errors import with_keywords

__all__ = [
    "By",
    "ErrorPolicy",
    "TableKind",
    "as_frame",
    "by_columns",
    "display",
    "is_dask_frame",
    "policy",
    "refuse_mixed_ids",
    "refuse_nested",
    "require_columns",
    "require_runs_columns",
    "table_kind",
]

By: TypeAlias = str | Sequence[str] | None

TableKind: TypeAlias = Literal["runs", "tally", "matrix"]
"""What a DataFrame holds: one row per run, one per task with its counts, or tasks x runs."""

_RESERVED = ("task", "run", "passed", "reward", "error", "error_kind", "timed_out")
_RUNS_MARKS = ("run", "passed", "reward")  # a table with any of these is a runs table
_MAP = "pk.runs(runs, {})"  # how a refusal of a runs table's columns says to map them


# --- arguments ------------------------------------------------------------------------


def policy(errors: object) -> ErrorPolicy:
    """Return `errors` as an error policy, or refuse it naming both policies.

    Parameters
    ----------
    errors : object
        What the caller gave.

    Returns
    -------
    {"fail", "exclude"}

    Raises
    ------
    ValueError
        If `errors` is neither.

    Examples
    --------
    >>> policy("exclude")
    'exclude'
    """
    if errors == "fail":
        return "fail"
    if errors == "exclude":
        return "exclude"
    raise ValueError(
        f"errors must be 'fail' (an errored or timed-out run is a failed run) or 'exclude' "
        f"(it is left out of n), got {errors!r}"
    )


def by_columns(by: By) -> tuple[str, ...]:
    """Return the grouping columns `by` names, refusing the runs table's own columns.

    Parameters
    ----------
    by : str, sequence of str or None
        One column, several, or None for no groups.

    Returns
    -------
    tuple of str

    Raises
    ------
    TypeError
        If a name is not a string.
    ValueError
        If `by` names a column of every runs table (``task``, ``run``, ...) or
        a column twice.

    Examples
    --------
    >>> by_columns("model"), by_columns(["model", "domain"]), by_columns(None)
    (('model',), ('model', 'domain'), ())
    """
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


# --- tables ---------------------------------------------------------------------------


def is_dask_frame(data: object) -> bool:
    """Return whether `data` is a Dask DataFrame, told without importing Dask.

    Examples
    --------
    >>> is_dask_frame(pd.DataFrame())
    False
    """
    kind = type(data)
    return kind.__module__.startswith("dask.") and kind.__name__ == "DataFrame"


def as_frame(runs: object, what: str = "runs") -> pd.DataFrame:
    """Return `runs` if it is a non-empty pandas DataFrame; a clear error otherwise.

    Parameters
    ----------
    runs : object
        What the caller gave.
    what : str
        What the messages call it.

    Returns
    -------
    DataFrame
        `runs` itself.

    Raises
    ------
    TypeError
        If `runs` is a Dask DataFrame (saying what takes one) or no DataFrame.
    ValueError
        If it is empty.

    Examples
    --------
    >>> as_frame(pd.DataFrame())
    Traceback (most recent call last):
    ...
    ValueError: runs is empty: there are no runs to count
    """
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
    is a runs table whose task is an index level; a table with a column that
    looks like a verdict (``success``, ``score``: see
    :func:`~passk_lab._data.names.likely_columns`) is refused as a runs table
    that names its columns otherwise, saying which look like which.

    Parameters
    ----------
    columns : iterable of hashable
        The table's columns.
    index_names : sequence of hashable
        The names of its index levels.

    Returns
    -------
    {"runs", "tally", "matrix"}

    Raises
    ------
    ValueError
        If the table is none of them, or a runs table with its task in the
        index, or has a tally's n and c beside a runs table's column but no run.

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
    if likely_columns(names, ["passed", "reward"]):  # a runs table under names of its own
        raise missing_columns(names, runs_lacks(names), what="runs", call=_MAP)
    raise ValueError(
        f"this table is neither a runs table nor a tally nor an outcome matrix (columns "
        f"{list(map(str, names))}, index {list(index_names)}): a runs table has the columns "
        f"task, run and passed (or reward), one row per run; a tally has task, n and c, one row "
        f"per task, and none of run, passed, reward; an outcome matrix has an index whose last "
        f"level is named task and one boolean column per run"
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
    are looked at.

    Parameters
    ----------
    frame : DataFrame
        The table.
    names : sequence of str
        Its id columns.
    what : str
        What the message calls the table, in its fix.
    where : callable, optional
        ``where(row)`` names the place of a row in the message (a reader's
        file and line); by default ``at row N``, N counted from 0.

    Raises
    ------
    ValueError
        Naming the column, the row, the value and how to convert the column.

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

    Parameters
    ----------
    labels : DataFrame
        The id columns, one row per task.

    Raises
    ------
    ValueError
        Naming the column, a value of each kind and how to write them one way.

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
    """Refuse `frame` if it lacks any of `columns`, naming them, what it has, and `fix`.

    Parameters
    ----------
    frame : DataFrame
        The table.
    columns : sequence of str
        The columns it needs.
    what : str
        What the message calls the table.
    fix : str
        How to give the columns, to end the message.

    Raises
    ------
    ValueError
        If a column is missing.

    Examples
    --------
    >>> require_columns(pd.DataFrame({"task": [0]}), ["task", "n"], "tally", "add n")
    Traceback (most recent call last):
    ...
    ValueError: tally has no column 'n' (it has ['task']); add n
    """
    missing = [name for name in columns if name not in frame.columns]
    if missing:
        raise ValueError(
            f"{what} has no column {', '.join(map(repr, missing))} "
            f"(it has {list(map(str, frame.columns))}); {fix}"
        )


def display(value: object) -> object:
    """Return a numpy scalar as the Python value it holds, for messages (``0``, not ``int64``).

    Examples
    --------
    >>> display(np.int64(3)), display("a")
    (3, 'a')
    """
    return value.item() if isinstance(value, np.generic) else value


def require_runs_columns(runs: pd.DataFrame, by: tuple[str, ...]) -> None:
    """Refuse a runs table without task, passed or reward, or the `by` columns, naming them all.

    ``run`` is not needed: a table without it has its runs numbered in the
    order of the rows (:func:`passk_lab._data.mapping.run_order`).

    Parameters
    ----------
    runs : DataFrame
        The runs table.
    by : tuple of str
        Its grouping columns.

    Raises
    ------
    ValueError
        Naming every missing column, the columns the table has, the ones that
        look like the missing ones and the call that maps them
        (:func:`passk_lab._data.names.missing_columns`).

    Examples
    --------
    >>> require_runs_columns(pd.DataFrame({"task": [0], "passed": [True]}), ())
    >>> require_runs_columns(pd.DataFrame({"id": [0], "success": [True]}), ())
    Traceback (most recent call last):
    ...
    ValueError: runs has no task column and no passed or reward column (its columns are \
['id', 'success']); by their names, map yours: pk.runs(runs, task='id', passed='success')
    """
    lacks = runs_lacks(runs.columns, by)
    if lacks:
        raise missing_columns(list(runs.columns), lacks, what="runs", call=_MAP, by=by)
