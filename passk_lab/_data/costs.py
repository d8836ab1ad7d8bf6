"""What runs cost: the mean recorded cost per run of every (group..., task).

A runs table may carry float columns named ``cost_<name>`` (``cost_usd``,
``cost_tokens``): what each run cost, NaN where a run recorded none. Each is
checked once here -- a number per run, finite and ``>= 0`` -- and averaged
over the runs of each task that recorded it, grouped as the tally is (the
`by` columns, then task). Every run that recorded a cost counts, errored and
excluded runs too: they were paid for, whatever the error policy makes of
their verdict. A task none of whose runs recorded a cost has a NaN mean.

A pandas table is split into tasks as the tally splits it
(:func:`~passk_lab._data.units.find_units`), a Dask one by a group-by whose
sums and counts per task come back; tallies and outcome matrices record no
cost.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any

import numpy as np
import pandas as pd

from passk_lab._data.rules import (
    display,
    is_dask_frame,
    refuse_nested,
    require_columns,
    table_kind,
)
from passk_lab._data.units import find_units
from passk_lab._typing import Floats

__all__ = ["COST_PREFIX", "cost_names", "task_costs"]

COST_PREFIX = "cost_"
"""A runs table's column named ``cost_<name>`` holds what each run cost, in units of name."""


def cost_names(columns: Iterable[Hashable]) -> list[str]:
    """Return the names of a table's cost columns, ``cost_<name>``, in the table's order.

    Parameters
    ----------
    columns : iterable of hashable
        A table's columns.

    Returns
    -------
    list of str
        Those named ``cost_`` and something more.

    Examples
    --------
    >>> cost_names(["task", "run", "passed", "cost_usd", "cost_tokens", "cost_"])
    ['cost_usd', 'cost_tokens']
    """
    return [
        name
        for name in columns
        if isinstance(name, str) and name.startswith(COST_PREFIX) and len(name) > len(COST_PREFIX)
    ]


def _fix(name: str) -> str:
    """How to make a cost column hold numbers, or keep a column that is no cost out of it."""
    return (
        f"give each run's cost as a number, NaN where a run recorded none (for example "
        f"runs[{name!r}] = pd.to_numeric(runs[{name!r}], errors='coerce')), or rename the "
        f"column if it is not a cost: every column named cost_<name> is read as one"
    )


def _numeric(name: str, dtype: Any) -> None:
    """Refuse a cost column whose dtype holds no numbers (text, booleans, dates)."""
    if pd.api.types.is_bool_dtype(dtype) or not pd.api.types.is_numeric_dtype(dtype):
        raise ValueError(f"cost column {name} must hold numbers, got dtype {dtype}; {_fix(name)}")


def _values(runs: pd.DataFrame, name: str) -> Floats:
    """Return one cost column as floats (NaN where missing); refuse text, negatives, infinities."""
    column = runs[name]
    dtype = column.dtype
    if pd.api.types.is_bool_dtype(dtype) or not pd.api.types.is_numeric_dtype(dtype):
        held = pd.api.types.is_object_dtype(dtype)  # Python objects: numbers, maybe
        if held or pd.api.types.is_string_dtype(dtype):  # name the first bad row
            numbers = pd.to_numeric(column.where(~column.map(_is_text_or_bool)), errors="coerce")
            bad = (numbers.isna() & column.notna()).to_numpy()
            if bad.any():
                row = int(np.argmax(bad))
                raise ValueError(
                    f"cost column {name} holds {display(column.iloc[row])!r} at row {row}, "
                    f"which is not a number; {_fix(name)}"
                )
            column = numbers if held else column
        _numeric(name, column.dtype)
    values = column.to_numpy(dtype=np.float64, na_value=np.nan)
    with np.errstate(invalid="ignore"):
        wrong = np.isinf(values) | (values < 0)
    if wrong.any():
        row = int(np.argmax(wrong))
        raise ValueError(
            f"cost column {name} is {values[row]} at row {row}; a run's cost must be finite and "
            f">= 0 (NaN where the run recorded none)"
        )
    return values


def _is_text_or_bool(value: object) -> bool:
    """Whether a cell is text or a boolean: no cost, even where it reads as a number."""
    return isinstance(value, str | bool | np.bool_)


def _pandas_costs(runs: pd.DataFrame, keys: list[str], names: list[str]) -> pd.DataFrame:
    """Mean cost per run of every task of a pandas runs table, in order of first appearance."""
    columns = {name: _values(runs, name) for name in names}
    try:
        units = find_units(runs, keys)
    except TypeError:  # an id that cannot be hashed, such as a list
        refuse_nested(runs, keys)
        raise
    codes = units.row_codes(len(runs))
    frame = units.labels.reset_index(drop=True)
    for name, values in columns.items():
        recorded = ~np.isnan(values)
        total = np.bincount(codes, weights=np.where(recorded, values, 0.0), minlength=units.size)
        count = np.bincount(codes, weights=recorded, minlength=units.size)
        frame[name] = np.divide(total, count, out=np.full(units.size, np.nan), where=count > 0)
    return frame


def _dask_costs(runs: Any, keys: list[str], names: list[str]) -> pd.DataFrame:
    """Mean cost per run of every task of a Dask runs table, from one group-by where it lives."""
    for name in names:
        _numeric(name, runs.dtypes[name])
    summed = (
        runs[[*keys, *names]]
        .groupby(keys, sort=False, observed=True, dropna=False)
        .agg({name: ["sum", "count", "min", "max"] for name in names})
        .compute()
    )
    frame: pd.DataFrame = summed.index.to_frame(index=False)
    for name in names:
        part = summed[name]
        wrong = (part["min"] < 0) | np.isinf(part["max"])
        if wrong.any():
            task = display(part.index[int(np.argmax(wrong.to_numpy()))])
            raise ValueError(
                f"cost column {name} holds a negative or infinite cost in the runs of "
                f"{dict(zip(keys, task if isinstance(task, tuple) else (task,), strict=True))}; "
                f"a run's cost must be finite and >= 0 (NaN where the run recorded none)"
            )
        count = part["count"].to_numpy(dtype=np.float64)
        total = part["sum"].to_numpy(dtype=np.float64)
        frame[name] = np.divide(total, count, out=np.full(len(frame), np.nan), where=count > 0)
    return frame


def task_costs(runs: object, by: tuple[str, ...]) -> pd.DataFrame | None:
    """Return every task's mean cost per run, for each cost column of a runs table.

    Parameters
    ----------
    runs : DataFrame or dask.dataframe.DataFrame
        A runs table whose ``cost_<name>`` columns hold each run's cost
        (NaN where a run recorded none). Any other input -- a tally, an
        outcome matrix -- records no cost.
    by : tuple of str
        Grouping columns, as the tally's; a grouping column is no cost, whatever its name.

    Returns
    -------
    DataFrame or None
        ``[*by, task, cost_<name>...]``, one row per (group..., task): the
        mean over the task's runs that recorded the cost -- errored and
        timed-out runs included, under either error policy, since they were
        paid for -- and NaN for a task with none. A pandas table's tasks come
        in order of first appearance, as in its tally. None when `runs` has
        no cost column or is not a runs table.

    Raises
    ------
    ValueError
        If a cost column holds something other than numbers (naming the
        column, the first such row and how to convert it), or a negative or
        infinite cost.

    Examples
    --------
    >>> runs = pd.DataFrame({
    ...     "task": ["a", "a", "a", "b", "b"], "run": [0, 1, 2, 0, 1],
    ...     "passed": [True, False, True, True, True],
    ...     "cost_usd": [0.1, 0.2, float("nan"), 0.4, 0.6],
    ... })
    >>> task_costs(runs, ())
      task  cost_usd
    0    a      0.15
    1    b      0.50
    >>> task_costs(runs.drop(columns="cost_usd"), ()) is None
    True
    """
    dask = is_dask_frame(runs)
    if not dask and not isinstance(runs, pd.DataFrame):
        return None
    frame: Any = runs
    index_names = [frame.index.name] if dask else list(frame.index.names)
    names = [name for name in cost_names(frame.columns) if name not in by]  # a group is no cost
    if not names or table_kind(frame.columns, index_names) != "runs":
        return None
    keys = [*by, "task"]
    if dask:
        return _dask_costs(frame, keys, names)
    require_columns(frame, keys, "runs", "a runs table needs a task column (and the by columns)")
    return _pandas_costs(frame, keys, names)
