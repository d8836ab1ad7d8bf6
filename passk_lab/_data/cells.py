"""The (n, c) cells: how many tasks share each pair, and the products of ratios evaluated on them.

For exchangeable runs the pair ``(n, c)`` of a task -- its runs and passes -- is
all any estimator needs, and how many tasks share each pair is all a dataset
holds. Every statistic in the package (estimates, bootstrap, model fits) works
on these cells, so its cost grows with the number of distinct pairs, not with
the number of tasks or runs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from passk_lab._data.rules import display
from passk_lab._data.tally import Tally
from passk_lab._typing import Floats, Ints

__all__ = ["Cells", "pass_at_k_values", "pass_pow_k_values", "products"]


@dataclass(frozen=True, eq=False)
class Cells:
    """How many tasks of each group have each (n, c) pair: all the estimators need.

    Cells are sorted by group; every group has at least one cell.

    Examples
    --------
    >>> from passk_lab._data.tally import as_tally
    >>> counts = pd.DataFrame({"task": [0, 1, 2], "n": [3, 3, 2], "c": [1, 1, 2]})
    >>> cells = Cells.from_tally(as_tally(counts))
    >>> cells.n.tolist(), cells.c.tolist(), cells.tasks.tolist()
    ([2, 3], [2, 1], [1, 2])
    """

    groups: pd.DataFrame  # one row per group: the by columns (no columns without by)
    group: npt.NDArray[np.intp]  # group of each cell
    n: Ints
    c: Ints
    tasks: Ints  # number of tasks with this (group, n, c)
    n_runs_excluded: Ints  # per group: errored runs left out under errors="exclude"
    by: tuple[str, ...]

    @classmethod
    def from_tally(cls, summary: Tally) -> Cells:
        """Collapse a tally's tasks into (group, n, c) cells.

        Parameters
        ----------
        summary : Tally
            The tally, under the error policy the cells count under.

        Returns
        -------
        Cells
            Sorted by group, then by n and c; ``n_runs_excluded`` sums the
            group's errored runs under ``errors="exclude"``.
        """
        codes, labels = summary.groups()
        n, c = summary.n, summary.c
        width = int(n.max()) + 1
        key = np.multiply(n, width, dtype=np.int64)
        key += c
        if len(labels) > 1:  # one group needs no group codes in the key
            key += codes.astype(np.int64) * (width * width)
        size = len(labels) * width * width
        if size <= 4 * len(key) + (1 << 16):
            counts = np.bincount(key, minlength=size)
            cells = np.flatnonzero(counts)
            tasks = counts[cells]
        else:
            cells, tasks = np.unique(key, return_counts=True)
        group, rest = np.divmod(cells, width * width)
        excluded = np.zeros(len(labels), dtype=np.int64)
        if summary.errors == "exclude" and summary.n_errors is not None:
            excluded = np.bincount(codes, weights=summary.n_errors, minlength=len(labels))
        return cls(
            groups=labels,
            group=group.astype(np.intp),
            n=(rest // width).astype(np.int64),
            c=(rest % width).astype(np.int64),
            tasks=tasks.astype(np.int64),
            n_runs_excluded=excluded.astype(np.int64),
            by=summary.by,
        )

    @property
    def starts(self) -> npt.NDArray[np.intp]:
        """Index of the first cell of every group."""
        return np.flatnonzero(np.diff(self.group, prepend=-1)).astype(np.intp)

    def group_sum(self, values: Floats) -> Floats:
        """Sum cell rows (cells x columns) within each group, weighted by tasks.

        Parameters
        ----------
        values : numpy.ndarray
            Cells x columns; NaN (a cell not counted) adds nothing.

        Returns
        -------
        numpy.ndarray
            Groups x columns.

        Examples
        --------
        >>> from passk_lab._data.tally import as_tally
        >>> counts = pd.DataFrame({"task": [0, 1, 2], "n": [3, 3, 2], "c": [1, 1, 2]})
        >>> cells = Cells.from_tally(as_tally(counts))
        >>> cells.group_sum(np.array([[1.0], [np.nan]])).tolist()
        [[1.0]]
        """
        weighted = np.nan_to_num(values * self.tasks[:, None], nan=0.0)
        total: Floats = np.add.reduceat(weighted, self.starts, axis=0)
        return total

    def max_n(self) -> Ints:
        """Return the most runs any task of each group has, one per group.

        Examples
        --------
        >>> from passk_lab._data.tally import as_tally
        >>> counts = pd.DataFrame({"task": [0, 1], "n": [3, 5], "c": [1, 1]})
        >>> Cells.from_tally(as_tally(counts)).max_n().tolist()
        [5]
        """
        largest: Ints = np.maximum.reduceat(self.n, self.starts)
        return largest

    def where(self, group: int) -> str:
        """Name a group for a message: `` in group by=value``, or nothing without groups.

        Parameters
        ----------
        group : int
            Position of the group in :attr:`groups`.

        Returns
        -------
        str
            `` in group name=value, ...`` over the by columns, each value as its
            Python repr; the empty string when the cells have no groups.

        Examples
        --------
        >>> import pandas as pd
        >>> from passk_lab._data.tally import as_tally
        >>> runs = pd.DataFrame(
        ...     {"agent": ["a", "a", "b"], "seed": [7, 7, 7], "task": [1, 1, 1],
        ...      "run": [0, 1, 0], "passed": [True, False, True]}
        ... )
        >>> cells = Cells.from_tally(as_tally(runs, by=["agent", "seed"]))
        >>> cells.where(1)
        " in group agent='b', seed=7"
        >>> one_agent = runs[runs["agent"] == "a"].drop(columns=["agent", "seed"])
        >>> Cells.from_tally(as_tally(one_agent)).where(0)
        ''
        """
        if not self.by:
            return ""
        return " in group " + ", ".join(
            f"{name}={display(self.groups[name].iloc[group])!r}" for name in self.by
        )


def products(n: Ints, good: Ints, ks: Ints) -> Floats:
    """Return ``C(good, k) / C(n, k)`` for every cell and k: NaN where ``k > n``.

    The running product of ``(good - i) / (n - i)``, never factorials.

    Parameters
    ----------
    n, good : numpy.ndarray of int
        Per cell: its runs, and the runs counted good (passes for pass^k,
        failures for pass@k).
    ks : numpy.ndarray of int
        The ks, each ``>= 1``.

    Returns
    -------
    numpy.ndarray of float
        Cells x ks.

    Examples
    --------
    >>> products(np.array([4]), np.array([2]), np.array([1, 2, 3, 5]))
    array([[0.5       , 0.16666667, 0.        ,        nan]])
    """
    depth = int(min(ks.max(), n.max()))
    i = np.arange(depth)
    above = n[:, None] - i
    ratio = np.divide(
        np.clip(good[:, None] - i, 0, None),
        above,
        out=np.full(above.shape, np.nan),
        where=above > 0,
    )
    running = np.cumprod(ratio, axis=1)
    values = np.full((len(n), len(ks)), np.nan)
    inside = ks <= depth
    values[:, inside] = running[:, ks[inside] - 1]
    return values


def pass_pow_k_values(n: Ints, c: Ints, ks: Ints) -> Floats:
    """Return each cell's pass^k, ``C(c, k) / C(n, k)``, for every k: NaN where ``k > n``.

    Parameters
    ----------
    n, c : numpy.ndarray of int
        Per cell: its runs and its passes.
    ks : numpy.ndarray of int
        The ks, each ``>= 1``.

    Returns
    -------
    numpy.ndarray of float
        Cells x ks.

    Examples
    --------
    >>> pass_pow_k_values(np.array([4]), np.array([3]), np.array([1, 2, 5]))
    array([[0.75, 0.5 ,  nan]])
    """
    return products(n, c, ks)


def pass_at_k_values(n: Ints, c: Ints, ks: Ints) -> Floats:
    """Return each cell's pass@k, ``1 - C(n - c, k) / C(n, k)``, for every k: NaN where ``k > n``.

    Parameters
    ----------
    n, c : numpy.ndarray of int
        Per cell: its runs and its passes.
    ks : numpy.ndarray of int
        The ks, each ``>= 1``.

    Returns
    -------
    numpy.ndarray of float
        Cells x ks.

    Examples
    --------
    >>> pass_at_k_values(np.array([4]), np.array([1]), np.array([1, 2, 5]))
    array([[0.25, 0.5 ,  nan]])
    """
    return 1.0 - products(n, n - c, ks)
