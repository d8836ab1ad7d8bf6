"""Rows split into units -- one per (group..., task) -- and the check that no run repeats.

A runs table is usually in task order, so the units are runs of equal keys
and are found by comparing neighbouring rows on each key column's own values
(integers, category codes, or text through pyarrow), with no hashing. Only
the first row of every such run is looked at again: when those rows' keys
strictly increase, or are integers whose few possible values each appear
once, the runs are the units; otherwise the first rows are hashed, which
counts each task once, not each of its runs. A table whose task comes back
in a later block, or a shuffled table, gets a unit code per row.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

import numpy as np
import numpy.typing as npt
import pandas as pd

from passk_lab._data.rules import display
from passk_lab._data.verdicts import bool_bytes
from passk_lab._typing import Bools, Ints

__all__ = ["BLOCK", "Units", "check_unique_runs", "find_units", "missing_key", "repeated_run"]

_SMALL = 1 << 20  # a bincount over this many values costs less than hashing them
BLOCK = 1 << 18
"""Rows a pass over whole columns takes at a time, so that its temporaries stay small."""


class _Key(NamedTuple):
    """A key column as values whose neighbouring rows compare without hashing.

    ``numbers`` are integers (never missing); ``codes`` are integers with -1
    for a missing value (category codes, or codes from hashing every row);
    ``hashed`` are floats or objects, whose first rows of units are hashed;
    ``arrow`` is text as a pyarrow array, missing values as nulls.
    """

    data: Any  # a numpy array, or a pyarrow (chunked) array for arrow
    kind: Literal["numbers", "codes", "hashed", "arrow"]
    column: pd.Series


def _pyarrow() -> tuple[Any, Any]:
    """Return pyarrow and pyarrow.compute, imported on first use: only text keys need them."""
    import pyarrow as pa  # type: ignore[import-untyped]
    import pyarrow.compute as pc  # type: ignore[import-untyped]

    return pa, pc


def _is_arrow_text(dtype: object) -> bool:
    """Return whether a column of this dtype holds its text in a pyarrow array."""
    if isinstance(dtype, pd.StringDtype):
        return dtype.storage == "pyarrow"
    if isinstance(dtype, pd.ArrowDtype):
        pa, _ = _pyarrow()
        kind = dtype.pyarrow_dtype
        return bool(pa.types.is_string(kind) or pa.types.is_large_string(kind))
    return False


def _key(column: pd.Series) -> _Key:
    """Return the column as a key whose neighbouring rows compare without hashing."""
    dtype = column.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return _Key(column.array.codes, "codes", column)
    if isinstance(dtype, np.dtype) and dtype.kind in "iub":
        return _Key(column.to_numpy(), "numbers", column)
    if isinstance(dtype, np.dtype) and dtype.kind in "fO":
        return _Key(column.to_numpy(), "hashed", column)
    if _is_arrow_text(dtype):
        pa, _ = _pyarrow()
        return _Key(pa.array(column.array), "arrow", column)
    if isinstance(dtype, pd.StringDtype):  # text kept as Python objects
        return _Key(column.to_numpy(dtype=object), "hashed", column)
    return _Key(pd.factorize(column)[0], "codes", column)


def _differ(key: _Key, low: int, high: int) -> Bools:
    """Return whether each of rows ``low + 1 .. high`` differs from the row before it."""
    if key.kind != "arrow":
        changed: Bools = np.not_equal(key.data[low + 1 : high + 1], key.data[low:high])
        return changed
    _, pc = _pyarrow()
    text = key.data
    differ = pc.not_equal(text.slice(low + 1, high - low), text.slice(low, high - low))
    if text.null_count:  # a missing key is refused later; any boundary will do
        differ = pc.fill_null(differ, True)
    return np.asarray(differ, dtype=np.bool_)


def _run_starts(keys: list[_Key], n_rows: int) -> npt.NDArray[np.intp]:
    """Return the first row of every run of rows with equal keys.

    The rows are compared a block at a time, so that the comparisons never take
    more than a block's worth of memory.
    """
    parts = [np.zeros(1, dtype=np.intp)]
    for low in range(0, n_rows - 1, BLOCK):
        high = min(low + BLOCK, n_rows - 1)
        boundary = _differ(keys[0], low, high)  # row i + 1 starts a new run
        for key in keys[1:]:
            boundary |= _differ(key, low, high)
        parts.append(np.flatnonzero(boundary) + (low + 1))
    return np.concatenate(parts).astype(np.intp, copy=False)


def _hashed(key: _Key) -> _Key:
    """Return the key as a code per row, from hashing every row (as a shuffled table needs)."""
    if key.kind in ("numbers", "codes"):
        return key
    return _Key(pd.factorize(key.column)[0], "codes", key.column)


class _Head(NamedTuple):
    """A key at the first row of every run of equal keys."""

    compared: Any  # integers, or a pandas array of text for an arrow key
    labels: Any  # the column's values there, in its own type; None when not taken
    missing: bool


def _head(key: _Key, starts: npt.NDArray[np.intp], labelled: bool) -> _Head:
    """Return the key at rows `starts`, its values there if `labelled`, and if one is missing."""
    taken: Any = key.column.array.take(starts) if labelled else None
    if key.kind == "arrow":
        return _Head(taken, taken, key.data.null_count > 0)
    if key.kind == "numbers":
        values = key.data[starts] if taken is None else np.asarray(taken)
        return _Head(values.astype(np.int64, copy=False), taken, False)
    codes = pd.factorize(taken)[0] if key.kind == "hashed" else key.data[starts]
    codes = codes.astype(np.int64, copy=False)
    return _Head(codes, taken, bool(codes.min() < 0))


def _neighbours(head: Any) -> tuple[Bools, Bools]:
    """Return whether each value is greater than the one before it, and whether it is equal."""
    if isinstance(head, np.ndarray):
        return head[1:] > head[:-1], head[1:] == head[:-1]
    pa, pc = _pyarrow()
    text = pa.array(head)
    later, earlier = text.slice(1), text.slice(0, len(text) - 1)
    greater = np.asarray(pc.greater(later, earlier), dtype=np.bool_)
    return greater, np.asarray(pc.equal(later, earlier), dtype=np.bool_)


def _rising(heads: list[Any]) -> bool:
    """Return whether the (key, ...) tuples strictly increase, so that no two are equal."""
    rising: Bools | None = None
    tied: Bools | None = None
    for head in heads:
        greater, equal = _neighbours(head)
        step = greater if tied is None else tied & greater
        rising = step if rising is None else rising | step
        tied = equal if tied is None else tied & equal
    return rising is None or bool(rising.all())


def _codes(head: Any) -> Ints:
    """Return integers equal exactly where the key is equal."""
    if isinstance(head, np.ndarray):
        return head
    codes: Ints = pd.factorize(head)[0].astype(np.int64, copy=False)
    return codes


def _small_key(codes: list[Ints]) -> Ints | None:
    """Return one integer per (key, ...) tuple, from 0, if there are few possible tuples."""
    lowest = [int(values.min()) for values in codes]
    spans = [int(values.max()) - low + 1 for values, low in zip(codes, lowest, strict=True)]
    if int(np.prod(spans, dtype=object)) > 4 * len(codes[0]) + _SMALL:
        return None
    key = codes[0] - lowest[0]
    for values, low, span in zip(codes[1:], lowest[1:], spans[1:], strict=True):
        key = key * span + (values - low)
    return key


def _first_appearance(codes: list[Ints], small: Ints | None) -> Ints:
    """Return the tuples' dense codes in order of first appearance."""
    if small is not None:  # no hashing: rank each value by where it first appears
        first = np.full(int(small.max()) + 1, len(small), dtype=np.int64)
        np.minimum.at(first, small, np.arange(len(small)))
        present = np.flatnonzero(first < len(small))
        rank = np.empty(len(first), dtype=np.int64)
        rank[present[np.argsort(first[present])]] = np.arange(len(present))
        ranked: Ints = rank[small]
        return ranked
    segment, _ = pd.factorize(codes[0])
    for values in codes[1:]:
        dense, _ = pd.factorize(values)
        segment, _ = pd.factorize(segment.astype(np.int64) * (int(dense.max()) + 1) + dense)
    return segment


@dataclass(frozen=True, eq=False)
class Units:
    """The rows of a runs table, split by (group..., task) in order of first appearance.

    Examples
    --------
    >>> units = find_units(pd.DataFrame({"task": ["a", "a", "b"]}), ["task"])
    >>> units.size, units.sizes.tolist(), units.count(np.array([True, False, True])).tolist()
    (2, [2, 1], [1, 1])
    """

    codes: npt.NDArray[np.intp] | None  # unit of every row; None when units are contiguous
    starts: npt.NDArray[np.intp]  # first row of every unit
    sizes: Ints  # rows of every unit
    labels: pd.DataFrame  # the keys of every unit, in the columns' own types

    @property
    def size(self) -> int:
        """The number of units."""
        return len(self.starts)

    def row_codes(self, n_rows: int) -> npt.NDArray[np.intp]:
        """Return the unit of every row.

        Parameters
        ----------
        n_rows : int
            The rows of the table (the last unit runs to it when units are contiguous).

        Returns
        -------
        numpy.ndarray of intp

        Examples
        --------
        >>> find_units(pd.DataFrame({"task": ["a", "a", "b"]}), ["task"]).row_codes(3).tolist()
        [0, 0, 1]
        """
        if self.codes is not None:
            return self.codes
        return np.repeat(np.arange(self.size, dtype=np.intp), np.diff(self.starts, append=n_rows))

    def count(self, mask: Bools | None) -> Ints:
        """Return the rows (or the rows where `mask` holds) of every unit.

        Parameters
        ----------
        mask : numpy.ndarray of bool, or None
            One flag per row; None counts every row.

        Returns
        -------
        numpy.ndarray of int64
        """
        if mask is None:
            return self.sizes
        if self.codes is None:
            # Sum the mask's bytes in the smallest type that holds a unit's rows: for up to
            # 255 runs a task that is the mask itself, with no copy.
            within = np.min_scalar_type(int(self.sizes.max()))
            sums = np.add.reduceat(bool_bytes(mask), self.starts, dtype=within)
            return sums.astype(np.int64)
        counts = np.bincount(self.codes, weights=mask, minlength=self.size)
        return counts.astype(np.int64)


def _segments(compared: list[Any]) -> Ints | None:
    """Return the unit of each run of equal keys, or None when each such run is its own unit."""
    if _rising(compared):
        return None
    codes = [_codes(head) for head in compared]
    small = _small_key(codes)
    if small is not None and int(np.bincount(small).max()) == 1:
        return None
    segment = _first_appearance(codes, small)
    return None if int(segment.max()) + 1 == len(segment) else segment


def _frame(columns: dict[str, Any], rows: npt.NDArray[np.intp] | None = None) -> pd.DataFrame:
    """Return the columns (pandas arrays), or their given rows, as a frame numbered from 0.

    Each keeps its exact dtype: object text is not inferred to be ``str``.
    """
    return pd.DataFrame(
        {
            name: pd.Series(
                values if rows is None else values.take(rows), dtype=values.dtype, copy=False
            )
            for name, values in columns.items()
        },
        copy=False,
    )


def find_units(runs: pd.DataFrame, keys: Sequence[str]) -> Units:
    """Split the rows of `runs` by the values of `keys`, in order of first appearance.

    Parameters
    ----------
    runs : DataFrame
        The runs table.
    keys : sequence of str
        Its unit columns, ``[*by, "task"]``.

    Returns
    -------
    Units

    Raises
    ------
    ValueError
        If a key is missing in some row.
    TypeError
        If an id cannot be hashed (a list, say).

    Examples
    --------
    >>> units = find_units(pd.DataFrame({"task": [2, 1, 2]}), ["task"])
    >>> units.labels["task"].tolist(), units.codes.tolist()
    ([2, 1], [0, 1, 0])
    """
    n_rows = len(runs)
    columns = [_key(runs[name]) for name in keys]
    try:
        starts = _run_starts(columns, n_rows)
    except (TypeError, ValueError):  # objects that do not compare as booleans, such as pd.NA
        columns = [_hashed(key) if key.kind == "hashed" else key for key in columns]
        starts = _run_starts(columns, n_rows)
    # In a shuffled table nearly every row starts a run: hash every row, as taking the text of
    # those rows would copy the whole column, and take the keys of the units' first rows only.
    labelled = 2 * len(starts) <= n_rows
    if not labelled:
        columns = [_hashed(key) for key in columns]
    heads = []
    for name, key in zip(keys, columns, strict=True):
        head = _head(key, starts, labelled)
        if head.missing:
            raise missing_key(name, int(runs[name].isna().sum()))
        heads.append(head)
    sizes = np.diff(starts, append=n_rows)
    if labelled:
        taken = {name: head.labels for name, head in zip(keys, heads, strict=True)}
    else:
        taken = {name: runs[name].array for name in keys}
    segment = _segments([head.compared for head in heads])
    if segment is None:
        labels = _frame(taken) if labelled else _frame(taken, starts)
        return Units(codes=None, starts=starts, sizes=sizes, labels=labels)
    unit = np.repeat(segment, sizes).astype(np.intp)
    seen = np.maximum.accumulate(np.concatenate(([-1], segment[:-1])))
    firsts = np.flatnonzero(segment > seen)
    first = starts[firsts]
    labels = _frame(taken, firsts if labelled else first)
    sizes = np.bincount(unit, minlength=len(first))
    return Units(codes=unit, starts=first, sizes=sizes, labels=labels)


def _runs_increase(run: npt.NDArray[np.integer[Any]], starts: npt.NDArray[np.intp]) -> bool:
    """Return whether the runs increase within every unit of contiguous rows.

    The rows are compared a block at a time, as the unit boundaries are found.
    """
    for low in range(0, len(run) - 1, BLOCK):
        high = min(low + BLOCK, len(run) - 1)
        increasing = run[low + 1 : high + 1] > run[low:high]
        first, last = np.searchsorted(starts, [low + 1, high + 1])
        increasing[starts[first:last] - (low + 1)] = True  # a unit's first run follows another's
        if not increasing.all():
            return False
    return True


def check_unique_runs(
    runs: pd.DataFrame, keys: Sequence[str], units: Units, run: npt.NDArray[np.integer[Any]]
) -> None:
    """Refuse a run index that appears twice in one unit, naming the unit and the run.

    Parameters
    ----------
    runs : DataFrame
        The runs table.
    keys : sequence of str
        Its unit columns, ``[*by, "task"]``.
    units : Units
        Its units, from :func:`find_units`.
    run : numpy.ndarray of int
        The run index of every row.

    Raises
    ------
    ValueError
        :func:`repeated_run`'s, for the first repeated run.

    Examples
    --------
    >>> runs = pd.DataFrame({"task": ["a", "a"], "run": [0, 0]})
    >>> check_unique_runs(runs, ["task"], find_units(runs, ["task"]), np.array([0, 0]))
    Traceback (most recent call last):
    ...
    ValueError: run 0 of task='a' appears 2 times; ...
    """
    if units.codes is None and _runs_increase(run, units.starts):
        return
    run = run.astype(np.int64, copy=False)
    unit = units.row_codes(len(runs)).astype(np.int64)
    width = int(run.max()) + 1
    if units.size * width <= 4 * len(runs) + _SMALL:
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


def missing_key(name: str, rows: int) -> ValueError:
    """Return the error for a task (or group) column missing in `rows` rows.

    Parameters
    ----------
    name : str
        The column.
    rows : int
        The rows where it is missing.

    Returns
    -------
    ValueError
        To raise.

    Examples
    --------
    >>> str(missing_key("task", 2))
    'task is missing in 2 row(s); every run needs a task: fill or drop those rows deliberately'
    """
    return ValueError(
        f"{name} is missing in {rows} row(s); every run needs a {name}: fill or drop those rows "
        f"deliberately"
    )


def repeated_run(keys: Sequence[str], values: Sequence[object], run: int, times: int) -> ValueError:
    """Return the error for a run that appears `times` times in one task (and group).

    Parameters
    ----------
    keys : sequence of str
        The unit's columns, ``[*by, "task"]``.
    values : sequence of object
        Their values in the unit.
    run : int
        The run repeated.
    times : int
        How often it appears.

    Returns
    -------
    ValueError
        To raise, saying how to keep two evaluations apart or drop copies.

    Examples
    --------
    >>> str(repeated_run(["task"], ["a"], 0, 2))[:60]
    "run 0 of task='a' appears 2 times; each (task, run) must be "
    """
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
