"""Rows split into units -- one per (group..., task) -- and the check that no run repeats.

A runs table is usually in task order, so the units are runs of equal keys
and can be found by comparing neighbouring rows; only the first row of every
such run is hashed. A shuffled table falls back to a code per row.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from passk_lab._data.rules import missing_key, repeated_run
from passk_lab._typing import Bools, Ints

__all__ = ["Units", "check_unique_runs", "find_units"]


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
class Units:
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


def find_units(runs: pd.DataFrame, keys: Sequence[str]) -> Units:
    """Split the rows of `runs` by the values of `keys`, in order of first appearance."""
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
        return Units(codes=None, starts=starts, boundary=boundary)
    unit = np.repeat(segment, np.diff(np.append(starts, n_rows))).astype(np.intp)
    seen = np.maximum.accumulate(np.concatenate(([-1], segment[:-1])))
    first = starts[segment > seen]
    return Units(codes=unit, starts=first, boundary=None)


def check_unique_runs(runs: pd.DataFrame, keys: Sequence[str], units: Units, run: Ints) -> None:
    """Refuse a run index that appears twice in one unit, naming the unit and the run."""
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
