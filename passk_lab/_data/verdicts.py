"""What each run of a runs table means: its verdict, its run number, whether it errored.

* a ``reward`` becomes ``passed`` when ``reward >= threshold - 1e-6`` (the
  default threshold is 1.0, as tau-bench decides a pass); a reader, and
  :func:`passk_lab.runs`, given no threshold takes that default only for
  rewards in [0, 1] (:func:`decide`);
* a run that errored (``error`` not missing) or timed out (``timed_out``) is a
  **failed** run (``errors="fail"``, the source harness's rule), or is left out
  of ``n`` altogether (``errors="exclude"``). An error whose ``error_kind`` is
  ``"agent"`` (the agent's own exception) is a failed run under both policies:
  only runs that did not measure the agent -- infrastructure errors,
  time-outs, errors of unknown kind -- are left out; a run marked passed that
  errored is a failed run, with a warning;
* ``run`` holds whole numbers ``>= 0`` and ``passed`` booleans (or 1 and 0).

What a table must hold besides is :mod:`passk_lab._data.rules`. Every reader
of runs applies these functions, and no other code re-states them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
import pandas as pd

from passk_lab._errors import with_keywords
from passk_lab._typing import Bools, Ints
from passk_lab._warnings import ConflictingVerdictWarning, warn

__all__ = [
    "REWARD_TOLERANCE",
    "Flags",
    "bool_bytes",
    "decide",
    "errored_runs",
    "passed_from_reward",
    "run_flags",
    "run_index",
    "run_numbers",
    "verdicts",
    "warn_passed_and_errored",
]

REWARD_TOLERANCE = 1e-6
"""Slack below a reward threshold, for rewards computed in floating point (as tau-bench's)."""
_NUMBER_RUNS = (
    "number the runs of each task 0, 1, 2, ... (for example runs.groupby(['task']).cumcount(), "
    "grouping by every column that tells evaluations apart too, such as model: runs of two "
    "evaluations numbered as one are pooled)"
)


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


def decide(
    reward: npt.ArrayLike,
    threshold: float | None,
    where: Callable[[int], str],
    field: str = "reward",
) -> Bools:
    """Return ``reward >= threshold - 1e-6`` for each run, after checking every reward.

    Parameters
    ----------
    reward : array_like of float
        One reward per run, as read from a file; NaN where the file has none.
    threshold : float or None
        The reward a run needs to pass. None applies the default rule, a pass
        when the reward is 1 (up to 1e-6, as tau-bench decides), which only
        makes sense for rewards in [0, 1]: any other reward is refused.
    where : callable
        Maps a row position to the words that locate it in the file, such as
        ``"runs.csv, row 3"``; used in the messages.
    field : str
        The name of the reward in the file, for the messages.

    Returns
    -------
    numpy.ndarray of bool

    Raises
    ------
    ValueError
        If a reward is missing, or lies outside [0, 1] under the default rule;
        the message names the file, the row and the field.

    Examples
    --------
    >>> decide([1.0, 0.4, 0.9999999], None, "row {}".format).tolist()
    [True, False, True]
    >>> decide([7.0, 9.5], 8.0, "row {}".format).tolist()
    [False, True]
    >>> decide([0.0, 2.0], None, "runs.csv, row {}".format)
    Traceback (most recent call last):
    ...
    ValueError: runs.csv, row 1: reward is 2.0, outside [0, 1] ...
    """
    values = np.asarray(reward, dtype=np.float64)
    missing = np.isnan(values)
    if missing.any():
        row = int(np.flatnonzero(missing)[0])
        raise ValueError(
            f"{where(row)}: {field} is missing ({int(missing.sum())} run(s) have none); "
            f"a missing reward is neither a pass nor a fail: fill or drop those runs deliberately"
        )
    if threshold is None:
        outside = (values < -REWARD_TOLERANCE) | (values > 1.0 + REWARD_TOLERANCE)
        if outside.any():
            row = int(np.flatnonzero(outside)[0])
            raise with_keywords(
                ValueError(
                    f"{where(row)}: {field} is {float(values[row])!r}, outside [0, 1] "
                    f"({int(outside.sum())} run(s) are); the default rule (a pass when the reward "
                    f"is 1) needs rewards in [0, 1]: give threshold= for rewards on another scale"
                ),
                "threshold",
            )
        threshold = 1.0
    return passed_from_reward(values, threshold)


def verdicts(runs: pd.DataFrame, threshold: float) -> Bools:
    """Return each run's verdict: ``passed`` as booleans, or the pass rule applied to ``reward``.

    Parameters
    ----------
    runs : DataFrame
        A runs table with ``passed`` (bool, nullable bool, or 1/0) or ``reward``.
    threshold : float
        The reward a run needs to pass, when there is no ``passed``.

    Returns
    -------
    numpy.ndarray of bool

    Raises
    ------
    ValueError
        If a verdict is missing, or ``passed`` holds anything but booleans or 1/0.

    Examples
    --------
    >>> verdicts(pd.DataFrame({"passed": [1, 0]}), 1.0).tolist()
    [True, False]
    >>> verdicts(pd.DataFrame({"reward": [0.5, 1.0]}), 0.5).tolist()
    [True, True]
    """
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

    Parameters
    ----------
    mask : numpy.ndarray of bool

    Returns
    -------
    numpy.ndarray of uint8
        A view of `mask` when its bytes are 0 and 1 already, else a copy.

    Examples
    --------
    >>> bool_bytes(np.frombuffer(bytes([0, 2, 1]), dtype=bool)).tolist()
    [0, 1, 1]
    """
    cells: npt.NDArray[np.uint8] = mask.view(np.uint8)
    if cells.size and int(cells.max()) > 1:
        cells = (cells != 0).view(np.uint8)
    return cells


def run_numbers(runs: pd.DataFrame) -> npt.NDArray[np.integer[Any]]:
    """Return ``run`` as whole numbers ``>= 0``, an integer column as it is (no copy).

    Whole floats and unsigned 64-bit integers become int64; a run number too large for
    int64 is refused, as is anything else, saying how to number runs.

    Parameters
    ----------
    runs : DataFrame
        A runs table with a ``run`` column.

    Returns
    -------
    numpy.ndarray of int

    Raises
    ------
    ValueError
        If a run is missing, negative, a fraction, too large, or not a number.

    Examples
    --------
    >>> run_numbers(pd.DataFrame({"run": [0.0, 1.0]})).tolist()
    [0, 1]
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
    """Return ``run`` as whole numbers ``>= 0`` (int64), or refuse it saying how to number runs.

    Parameters
    ----------
    runs : DataFrame
        A runs table with a ``run`` column.

    Returns
    -------
    numpy.ndarray of int64

    Raises
    ------
    ValueError
        As :func:`run_numbers`.

    Examples
    --------
    >>> run_index(pd.DataFrame({"run": np.array([0, 1], dtype=np.int8)})).dtype
    dtype('int64')
    """
    return run_numbers(runs).astype(np.int64, copy=False)


class Flags(NamedTuple):
    """Per run: an error that did not measure the agent, and a time-out (None: not recorded).

    Examples
    --------
    >>> Flags(error=None, timed_out=np.array([False, True])).timed_out.tolist()
    [False, True]
    """

    error: Bools | None
    timed_out: Bools | None


def run_flags(runs: pd.DataFrame) -> Flags:
    """Flag the runs that did not measure the agent, by cause.

    ``error`` is set where a run has an ``error`` whose ``error_kind`` is not
    ``"agent"`` (an agent's own exception is an ordinary failure), and
    ``timed_out`` where the run ran out of time.

    Parameters
    ----------
    runs : DataFrame
        A runs table, with or without ``error``, ``error_kind`` and ``timed_out``.

    Returns
    -------
    Flags
        Each None when its column is absent.

    Raises
    ------
    ValueError
        If ``timed_out`` is not boolean or has missing values.

    Examples
    --------
    >>> runs = pd.DataFrame({"error": [None, "boom", "boom"],
    ...                      "error_kind": [None, "agent", "infrastructure"]})
    >>> run_flags(runs).error.tolist(), run_flags(runs).timed_out
    ([False, False, True], None)
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
    """Flag the runs that did not measure the agent: an error not of kind "agent", a time-out.

    Parameters
    ----------
    runs : DataFrame
        A runs table.

    Returns
    -------
    numpy.ndarray of bool, or None
        None when the runs record neither errors nor time-outs.

    Raises
    ------
    ValueError
        As :func:`run_flags`.

    Examples
    --------
    >>> errored_runs(pd.DataFrame({"error": [None, "429"], "timed_out": [True, False]})).tolist()
    [True, True]
    """
    error, timed_out = run_flags(runs)
    if error is None:
        return timed_out
    return error if timed_out is None else error | timed_out


def warn_passed_and_errored(count: int) -> None:
    """Warn that `count` runs marked passed errored too, and so count as failed (or left out).

    Parameters
    ----------
    count : int
        How many such runs.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_passed_and_errored(2)
    >>> caught[0].message.runs
    2
    """
    warn(
        ConflictingVerdictWarning(
            f"{count} run(s) are marked passed but also errored or timed out; "
            f"they count as failed runs (errors='fail') or are left out (errors='exclude')",
            runs=count,
        )
    )
