"""The counts of a Dask DataFrame of runs: per-task counts from a distributed group-by.

A runs log larger than one machine's memory can stay a
:class:`dask.dataframe.DataFrame`: :func:`passk_lab.tally`, and so every
estimator, takes one. Each partition is checked by the rules a pandas table
is checked by (:mod:`passk_lab._data.rules`, :mod:`passk_lab._data.verdicts`
and the messages of :mod:`passk_lab._data.units`, the only modules this one
imports), a group-by counts runs and passes per (group..., task) where the
data lives, and only those counts -- one row per task -- come back, for
:mod:`passk_lab._data.tally` to make a tally of. From there the estimators
work on the (n, c) cells as they always do, so the figures equal those of the
same runs in pandas exactly.

Dask is an optional dependency (``pip install 'passk-lab[dask]'``); this module
is imported only when a Dask DataFrame is given.
"""

from __future__ import annotations

from typing import Any, NamedTuple, NoReturn

import numpy as np
import pandas as pd

from passk_lab._data.rules import require_runs_columns
from passk_lab._data.units import missing_key, repeated_run
from passk_lab._data.verdicts import errored_runs, run_index, verdicts, warn_passed_and_errored
from passk_lab._typing import Ints

__all__ = ["Counts", "count_runs"]

ROW_BITS = 40
"""A row's position is its partition number shifted by this, plus its place in the partition."""

WORD_BITS = 32
"""Runs are marked as bits of words this wide: run r is bit ``r % 32`` of word ``r // 32``."""

_COUNTED = {
    "word": "int64",
    "bit": "int64",
    "passed": "bool",
    "errored": "bool",
    "lucky": "bool",
    "row": "int64",
}


def _verdicts(
    part: pd.DataFrame,
    keys: list[str],
    threshold: float,
    partition_info: dict[str, Any] | None = None,
) -> pd.DataFrame:
    """Check one partition: its keys, each run as a bit of a word, the verdicts, the position."""
    frame = part[keys].reset_index(drop=True)
    if part.empty:
        return frame.assign(**{name: np.zeros(0, dtype) for name, dtype in _COUNTED.items()})
    for name in keys:
        missing = int(frame[name].isna().sum())
        if missing:
            raise missing_key(name, missing)
    passed = verdicts(part, threshold)
    errored = errored_runs(part)
    if errored is None:
        errored = np.zeros(len(part), dtype=np.bool_)
    # without run numbers every run is run 0 here: the runs are numbered in order, none repeats
    run = run_index(part) if "run" in part.columns else np.zeros(len(part), dtype=np.int64)
    number = 0 if partition_info is None else int(partition_info["number"])
    return frame.assign(
        word=run // WORD_BITS,
        bit=np.left_shift(1, run % WORD_BITS),
        passed=passed & ~errored,
        errored=errored,
        lucky=passed & errored,
        row=(number << ROW_BITS) + np.arange(len(part), dtype=np.int64),
    )


def _bits_set(words: Ints) -> Ints:
    """How many bits of each (non-negative) int64 are set."""
    bits = np.unpackbits(words.astype("<i8").view(np.uint8)).reshape(len(words), 64)
    counts: Ints = bits.sum(axis=1, dtype=np.int64)
    return counts


class Counts(NamedTuple):
    """Runs, passes and errored runs per (group..., task), errored runs counted as failures."""

    labels: pd.DataFrame  # one row per task: the group columns, then task
    n: Ints
    c: Ints
    n_errors: Ints | None  # None when the runs record no errors


def count_runs(runs: Any, by: tuple[str, ...], threshold: float) -> Counts:
    """Count a Dask runs table's runs with the rules of a pandas one.

    Tasks come in order of first appearance, as from a pandas table; the runs
    stay where they are and one row per task (and word of 32 runs) comes back.

    Parameters
    ----------
    runs : dask.dataframe.DataFrame
        A runs table.
    by : tuple of str
        Its grouping columns.
    threshold : float
        The reward a run needs to pass, when there is no ``passed``.

    Returns
    -------
    Counts

    Raises
    ------
    ValueError
        If a partition breaks a rule of a runs table, or a run repeats.

    Examples
    --------
    >>> import dask.dataframe as dd
    >>> runs = pd.DataFrame({"task": [0, 0, 1], "run": [0, 1, 0], "passed": [True, False, True]})
    >>> counts = count_runs(dd.from_pandas(runs, npartitions=2), (), 1.0)
    >>> counts.n.tolist(), counts.c.tolist(), counts.n_errors
    ([2, 1], [1, 1], None)

    Notes
    -----
    A repeated run is found without moving runs between workers: within a
    task, the runs of one word are distinct powers of two exactly when their
    sum has as many bits set as there are runs (adding two equal bits carries,
    and a carry never adds a bit), so one group-by sum settles it.
    """
    require_runs_columns(runs, by)
    keys = [*by, "task"]
    meta = {name: runs.dtypes[name] for name in keys} | _COUNTED
    rows = runs.map_partitions(_verdicts, keys, threshold, meta=meta)
    words = (
        rows.groupby([*keys, "word"], sort=False, observed=True, dropna=False)
        .agg(
            n=("bit", "count"),
            bits=("bit", "sum"),
            c=("passed", "sum"),
            n_errors=("errored", "sum"),
            lucky=("lucky", "sum"),
            first=("row", "min"),
        )
        .compute()
    )
    if "run" in runs.columns:  # without it the runs are numbered in order: none repeats
        bits = _bits_set(words["bits"].to_numpy())
        repeated = np.flatnonzero(bits != words["n"].to_numpy())
        if len(repeated):
            where = words.index[int(repeated[0])]
            _raise_repeated(runs, keys, list(where)[: len(keys)])
    counts = (
        words.drop(columns="bits")
        .groupby(level=keys, sort=False, observed=True)
        .agg({"n": "sum", "c": "sum", "n_errors": "sum", "lucky": "sum", "first": "min"})
        .sort_values("first", kind="stable")
    )
    lucky = int(counts["lucky"].sum())
    if lucky:
        warn_passed_and_errored(lucky)
    recorded = "error" in runs.columns or "timed_out" in runs.columns
    return Counts(
        labels=counts.index.to_frame(index=False),
        n=counts["n"].to_numpy(dtype=np.int64),
        c=counts["c"].to_numpy(dtype=np.int64),
        n_errors=counts["n_errors"].to_numpy(dtype=np.int64) if recorded else None,
    )


def _raise_repeated(runs: Any, keys: list[str], values: list[object]) -> NoReturn:
    """Fetch the runs of the one task with a repeated run, and name the run in the error."""
    mask = None
    for name, value in zip(keys, values, strict=True):
        equal = runs[name] == value
        mask = equal if mask is None else mask & equal
    counts = runs[mask]["run"].compute().value_counts()
    times = counts[counts > 1].sort_index()
    raise repeated_run(keys, values, int(times.index[0]), int(times.iloc[0]))
