"""A table with its own column names, made a runs table: :func:`runs`, and runs numbered in order.

:func:`runs` (``pk.runs``) renames a user's columns to a runs table's
(:func:`~passk_lab._data.names.rename_columns`), refuses one that still lacks
some (:func:`~passk_lab._data.names.missing_columns`), decides ``passed``
from a reward (:func:`~passk_lab._data.verdicts.decide`) and numbers the runs
when there are no run numbers (:func:`number_runs`): what
:func:`passk_lab.io.read_runs` does to a file, for a DataFrame. The tally
numbers the runs of a table without ``run`` by the same :func:`run_order`,
so every statistic takes such a table as it is.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from passk_lab._data.names import missing_columns, rename_columns, runs_lacks
from passk_lab._data.rules import By, as_frame, by_columns, refuse_nested
from passk_lab._data.units import Units, find_units
from passk_lab._data.verdicts import decide, run_index, verdicts
from passk_lab._errors import with_keywords
from passk_lab._typing import Ints

__all__ = ["map_columns", "number_runs", "run_order", "runs"]


def run_order(units: Units, n_rows: int) -> Ints:
    """Return each row's place among the rows of its unit, 0, 1, 2, ... in the order of the rows.

    Parameters
    ----------
    units : Units
        The table's units, from :func:`~passk_lab._data.units.find_units`.
    n_rows : int
        The rows of the table.

    Returns
    -------
    numpy.ndarray of int64

    Examples
    --------
    >>> frame = pd.DataFrame({"task": ["a", "b", "a", "a", "b"]})
    >>> run_order(find_units(frame, ["task"]), 5).tolist()
    [0, 0, 1, 2, 1]
    """
    sizes = units.sizes.astype(np.int64)
    if units.codes is None:  # each unit's rows are together, from its first row on
        places: Ints = np.arange(n_rows, dtype=np.int64) - np.repeat(units.starts, sizes)
        return places
    order = np.argsort(units.codes, kind="stable")  # unit by unit, each in the order of its rows
    first = np.cumsum(sizes) - sizes  # where each unit's rows start in that order
    places = np.empty(n_rows, dtype=np.int64)
    places[order] = np.arange(n_rows, dtype=np.int64) - np.repeat(first, sizes)
    return places


def number_runs(frame: pd.DataFrame, keys: Sequence[str]) -> Ints:
    """Return the runs of each (group..., task) numbered 0, 1, 2, ... in the order of the rows.

    Parameters
    ----------
    frame : DataFrame
        A runs table without run numbers.
    keys : sequence of str
        Its unit columns, ``[*by, "task"]``.

    Returns
    -------
    numpy.ndarray of int64
        The run number of every row.

    Raises
    ------
    ValueError
        If a key is missing in some row, or holds a list or dict.

    Examples
    --------
    >>> frame = pd.DataFrame({"model": ["x", "y", "x"], "task": [0, 0, 0]})
    >>> number_runs(frame, ["model", "task"]).tolist()
    [0, 0, 1]
    """
    try:
        units = find_units(frame, keys)
    except TypeError:  # an id that cannot be hashed, such as a list
        refuse_nested(frame, keys)
        raise
    return run_order(units, len(frame))


def map_columns(
    frame: pd.DataFrame,
    what: str,
    *,
    task: str | None,
    run: str | None,
    passed: str | None,
    reward: str | None,
) -> pd.DataFrame:
    """Rename the columns named otherwise to a runs table's; a reward named drops ``passed``.

    The one mapping of :func:`runs` and :func:`passk_lab.io.read_runs`.

    Parameters
    ----------
    frame : DataFrame
        The table.
    what : str
        What the messages call it (``table``, a file's path).
    task, run, passed, reward : str or None
        The table's name for each column; None where it has the name itself.

    Returns
    -------
    DataFrame
        A new frame.

    Raises
    ------
    TypeError
        If a name is not text.
    ValueError
        If `passed` and `reward` are both given, or as
        :func:`~passk_lab._data.names.rename_columns` refuses a name.

    Examples
    --------
    >>> frame = pd.DataFrame({"id": [0], "passed": [True], "score": [0.5]})
    >>> mapped = map_columns(frame, "table", task="id", run=None, passed=None, reward="score")
    >>> mapped.columns.tolist()
    ['task', 'reward']
    """
    names = {"task": task, "run": run, "passed": passed, "reward": reward}
    for own, given in names.items():
        if given is not None and not isinstance(given, str):
            raise TypeError(f"{own}= names a column with text, got {given!r}")
    if passed is not None and reward is not None:
        raise with_keywords(
            ValueError(
                "give passed= (a column of verdicts) or reward= (a column of scores), not both"
            ),
            "passed",
            "reward",
        )
    named = {own: given for own, given in names.items() if given is not None}
    renamed = rename_columns(frame, named, what)
    if reward is not None:  # the reward decides, whatever else the table holds
        renamed = renamed.drop(columns="passed", errors="ignore")
    return renamed


def runs(
    table: pd.DataFrame,
    *,
    by: By = None,
    task: str | None = None,
    run: str | None = None,
    passed: str | None = None,
    reward: str | None = None,
    threshold: float | None = None,
) -> pd.DataFrame:
    """Return a table of runs with its own column names as a runs table every function takes.

    The columns named by `task`, `run`, `passed` and `reward` are renamed to
    those names; a column that already has its name needs no keyword.
    ``passed`` is decided from the reward when the table has no verdicts (or
    when `reward` names the column to use), and the runs of each task (within
    each group of `by`) are numbered 0, 1, 2, ... in the order of the rows
    when there is no run column -- as :func:`~passk_lab.io.read_runs` reads a
    file. Every statistic, plot and the report take the result.

    Parameters
    ----------
    table : DataFrame
        One row per run.
    by : str or list of str, optional
        Grouping columns (such as ``model``): runs are numbered within each
        group, so two models' runs of a task are numbered apart.
    task, run, passed, reward : str, optional
        The table's name for each column, when it is not the name itself
        (``task="problem_id"``, ``run="attempt"``, ``reward="score"``).
        `passed` names a column of verdicts (booleans, or 1 and 0), `reward`
        one of scores; give one of them, not both.
    threshold : float, optional
        The reward a run needs to pass (``reward >= threshold - 1e-6``). By
        default a run passes when its reward is 1, which needs every reward
        in [0, 1]. Only for a reward.

    Returns
    -------
    DataFrame
        The table's rows in its order, with ``task``, ``run`` (whole numbers,
        int64) and ``passed`` (bool), the reward kept, and every other column
        as it was. `table` itself is left as it is.

    Raises
    ------
    ValueError
        If a named column is absent (a close spelling is told), the table has
        a column of the name as well, a needed column is missing (all of them
        are named at once, with the columns that look like them), a verdict
        is not a boolean, a reward is missing, not a number, or outside
        [0, 1] without a `threshold`, or a run number is not a whole number
        ``>= 0``.
    TypeError
        If a column is named by something other than text.

    See Also
    --------
    passk_lab.io.read_runs : the same, for a CSV, JSON Lines or Parquet file.

    Examples
    --------
    >>> import pandas as pd
    >>> import passk_lab as pk
    >>> own = pd.DataFrame({"problem_id": ["a", "a", "b", "b"], "attempt": [1, 2, 1, 2],
    ...                     "score": [1.0, 0.0, 1.0, 1.0]})
    >>> table = pk.runs(own, task="problem_id", run="attempt", reward="score")
    >>> table
      task  run  reward  passed
    0    a    1     1.0    True
    1    a    2     0.0   False
    2    b    1     1.0    True
    3    b    2     1.0    True
    >>> pk.pass_pow_k(table, 2)
    0.5

    Without the mapping, every statistic says what it lacks and how to map it:

    >>> pk.pass_pow_k(own, 2)
    Traceback (most recent call last):
    ...
    ValueError: runs has no task column, no passed or reward column and no run column ...
    """
    frame = as_frame(table, "table")
    groups = by_columns(by)
    renamed = map_columns(frame, "table", task=task, run=run, passed=passed, reward=reward)
    lacks = runs_lacks(renamed.columns, groups)
    if lacks:
        raise missing_columns(list(renamed.columns), lacks, what="table", call=None, by=groups)
    renamed["passed"] = _verdicts(renamed, reward or "reward", threshold)
    if "run" in renamed.columns:
        renamed["run"] = run_index(renamed)
    else:
        renamed["run"] = number_runs(renamed, [*groups, "task"])
    return renamed


def _verdicts(frame: pd.DataFrame, field: str, threshold: float | None) -> np.ndarray:
    """Return the runs' verdicts: the passed column as booleans, or decided from the reward.

    `field` is the reward's name in the table, for the messages.
    """
    if "passed" in frame.columns:
        if threshold is not None:
            raise with_keywords(
                ValueError(
                    "threshold applies to a reward, and this table's verdicts are its passed "
                    "column; to decide from the reward instead, give reward='<column>'"
                ),
                "reward",
            )
        return verdicts(frame, 1.0)
    column = frame["reward"]
    numbers = pd.to_numeric(column, errors="coerce")
    unreadable = (numbers.isna() & column.notna()).to_numpy()
    if unreadable.any():
        row = int(np.flatnonzero(unreadable)[0])
        raise with_keywords(
            ValueError(
                f"row {row}: {field} is {column.iloc[row]!r}, not a number; a reward must be a "
                "number (give passed= for a column of verdicts)"
            ),
            "passed",
        )
    return decide(numbers.to_numpy(dtype=np.float64), threshold, "row {}".format, field=field)
