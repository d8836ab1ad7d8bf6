"""An outcome matrix, tasks x runs: what it must hold, and its runs and passes per task.

An outcome matrix is a DataFrame indexed by ``[*groups, task]`` with one
boolean column per run (nullable booleans, missing where a task has no such
run), as :func:`passk_lab.outcome_matrix` makes, or a 2-D bool array, tasks x
runs. Its task and run labels are unique: a task twice would count as two
tasks, a run twice would count its cells twice.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from passk_lab._data.rules import display
from passk_lab._data.verdicts import bool_bytes
from passk_lab._errors import with_keywords
from passk_lab._typing import Bools, Ints

__all__ = ["MatrixCounts", "check_matrix_labels", "count_matrix"]


class MatrixCounts(NamedTuple):
    """Per task (row) of an outcome matrix: its labels, runs and passes."""

    labels: pd.DataFrame  # one row per task: the by levels, then task
    n: Ints
    c: Ints


def check_matrix_labels(matrix: pd.DataFrame) -> None:
    """Refuse an outcome matrix with a task (row) or run (column) label twice.

    A task twice -- two matrices put together with ``pd.concat`` -- would count
    as two tasks, and a run twice would count its cells twice.

    Parameters
    ----------
    matrix : DataFrame
        Indexed by ``[*groups, task]``, one column per run.

    Raises
    ------
    ValueError
        Naming the label, its place, and how to keep two evaluations apart.

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


def count_matrix(matrix: pd.DataFrame | np.ndarray, by: tuple[str, ...]) -> MatrixCounts:
    """Check an outcome matrix and count each task's runs (present cells) and passes.

    Parameters
    ----------
    matrix : DataFrame or numpy.ndarray
        Indexed by ``[*groups, task]``, one boolean column per run; or a 2-D
        bool array, tasks x runs, whose tasks are numbered from 0.
    by : tuple of str
        The index levels that are groups (none for an array).

    Returns
    -------
    MatrixCounts

    Raises
    ------
    ValueError
        If the index does not end with ``task``, `by` names no level of it, a
        label repeats, a column is not boolean, or an array is not 2-D bool or
        is given groups.

    Examples
    --------
    >>> counts = count_matrix(np.array([[True, False], [True, True]]), ())
    >>> counts.labels["task"].tolist(), counts.n.tolist(), counts.c.tolist()
    ([0, 1], [2, 2], [1, 2])
    """
    if isinstance(matrix, np.ndarray):
        if by:
            raise ValueError("by needs labelled groups: give the outcome matrix as a DataFrame")
        if matrix.ndim != 2 or matrix.dtype != np.bool_:
            raise ValueError(
                f"an outcome matrix array must be 2-D bool (tasks x runs), got "
                f"{matrix.ndim}-D {matrix.dtype}"
            )
        c = _row_passes(matrix)
        n = np.full(len(matrix), matrix.shape[1], dtype=np.int64)
        labels = pd.DataFrame({"task": np.arange(len(matrix), dtype=np.int64)}, copy=False)
        return MatrixCounts(labels, n, c)
    names = list(matrix.index.names)
    if not names or names[-1] != "task":
        raise ValueError("an outcome matrix's index must end with a level named task")
    missing = [name for name in by if name not in names]
    if missing:
        raise ValueError(f"by names {missing}, which are not index levels of the outcome matrix")
    check_matrix_labels(matrix)
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
    return MatrixCounts(labels, n, c)


_BLOCK_BYTES = 1 << 18  # rows of the matrix summed at once: they stay in the cache
_BYTE_ONES = np.uint64(0x0101010101010101)
_WORDS = 31  # words of a row summed before their bytes are gathered: 8 * 31 < 256


def _row_passes(matrix: Bools) -> Ints:
    """Count each row's True cells of a 2-D bool array, eight cells to a machine word.

    A bool is one byte, 0 or 1 (:func:`bool_bytes`). Up to 31 of a row's 8-byte words hold at most
    248 passes, so their sum has no carry between bytes and neither has the
    sum of its eight bytes, which multiplying by ``0x0101010101010101``
    gathers into the top byte: the count, at about three operations a word, a
    few times faster than ``matrix.sum(axis=1)``. Rows are
    taken a cache-sized block at a time; a matrix whose rows are not
    contiguous is summed by numpy.
    """
    rows, width = matrix.shape
    cells = bool_bytes(matrix)
    if not cells.flags.c_contiguous:
        summed: Ints = cells.sum(axis=1, dtype=np.int64)
        return summed
    whole = width // 8
    counts = np.empty(rows, dtype=np.int64)
    step = max(1, _BLOCK_BYTES // max(width, 1))
    spare = np.empty(min(step, rows), dtype=np.uint64)
    for low in range(0, rows, step):
        block = cells[low : low + step]
        total = counts[low : low + len(block)]
        total[:] = 0
        if whole:
            words = np.ascontiguousarray(block[:, : whole * 8]).view(np.uint64)
            word_sum = spare[: len(block)]
            for first in range(0, whole, _WORDS):
                np.copyto(word_sum, words[:, first])
                for column in range(first + 1, min(first + _WORDS, whole)):
                    word_sum += words[:, column]
                word_sum *= _BYTE_ONES
                word_sum >>= np.uint64(56)
                total += word_sum.view(np.int64)
        for column in range(whole * 8, width):
            total += block[:, column]
    return counts
