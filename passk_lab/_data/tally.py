"""The tally: runs ``n`` and passes ``c`` per (group..., task), from any input a user has.

:func:`as_tally` is the one entry point. It takes a runs table, an outcome
matrix (a DataFrame indexed by task, or a 2-D bool array), a tally table
``[*by, task, n, c]``, a Dask DataFrame of runs, or a :class:`Tally` already
made; tells which it is by one rule (:func:`~passk_lab._data.rules.table_kind`),
checks it by the rules of :mod:`passk_lab._data.rules` and
:mod:`passk_lab._data.verdicts`, and returns a
:class:`Tally`. A :class:`Tally` given is checked already: it comes back as it
is, or under another error policy (see :func:`as_tally`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt
import pandas as pd

from passk_lab._data.mapping import run_order
from passk_lab._data.matrix import count_matrix
from passk_lab._data.rules import (
    By,
    ErrorPolicy,
    as_frame,
    by_columns,
    display,
    is_dask_frame,
    policy,
    refuse_mixed_ids,
    refuse_nested,
    require_columns,
    require_runs_columns,
    table_kind,
)
from passk_lab._data.units import BLOCK, Units, check_unique_runs, find_units
from passk_lab._data.verdicts import (
    errored_runs,
    run_numbers,
    verdicts,
    warn_passed_and_errored,
)
from passk_lab._errors import with_keywords
from passk_lab._typing import Bools, Ints

__all__ = ["Checked", "Tally", "TallyInput", "as_tally", "check_runs", "tally_checked"]


@dataclass(frozen=True, eq=False)
class Tally:
    """Per (group..., task): runs `n`, passes `c`, and errored runs, as arrays.

    The sufficient statistic every estimator uses; build it with
    :func:`as_tally`, and give it to any statistic in place of the runs it
    was counted from (with the same `by`): it is not checked again.
    `n` counts the runs under the error policy `errors`; `n_errors` counts
    the errored or timed-out runs whichever the policy, so that
    :meth:`under` gives the tally under the other policy exactly, or is None
    when no run recorded an error (both policies then count alike).

    Examples
    --------
    >>> runs = pd.DataFrame({"task": ["a", "a", "b"], "run": [0, 1, 0],
    ...                      "passed": [True, False, True], "error": [None, "429", None]})
    >>> summary = as_tally(runs)
    >>> summary.n.tolist(), summary.c.tolist(), summary.n_errors.tolist(), summary.errors
    ([2, 1], [1, 1], [1, 0], 'fail')
    >>> summary.under("exclude").n.tolist()
    [1, 1]
    """

    labels: pd.DataFrame  # one row per task: the group columns, then task
    n: Ints
    c: Ints
    n_errors: Ints | None  # errored or timed-out runs; None when the runs record no errors
    by: tuple[str, ...]
    errors: ErrorPolicy

    def groups(self) -> tuple[npt.NDArray[np.intp], pd.DataFrame]:
        """Return the group of every task and the groups' labels, in order of first appearance.

        Returns
        -------
        codes : numpy.ndarray of intp
            The group of every task (all 0 without groups).
        labels : DataFrame
            One row per group, the `by` columns (one row, no columns, without groups).

        Examples
        --------
        >>> counts = pd.DataFrame({"model": ["y", "x", "y"], "task": [0, 0, 1], "n": 2, "c": 1})
        >>> codes, labels = as_tally(counts, "model").groups()
        >>> codes.tolist(), labels["model"].tolist()
        ([0, 1, 0], ['y', 'x'])
        """
        if not self.by:
            return np.zeros(len(self.n), dtype=np.intp), pd.DataFrame(index=range(1))
        labels = self.labels[list(self.by)]
        codes = labels.groupby(list(self.by), sort=False).ngroup().to_numpy().astype(np.intp)
        first = np.sort(np.unique(codes, return_index=True)[1])
        return codes, labels.iloc[first].reset_index(drop=True)

    def without_errors(self) -> Tally:
        """Return the tally under ``errors="exclude"``: errored runs left out of `n`.

        Returns
        -------
        Tally
            `n` less `n_errors` if the tally was under ``"fail"``; the same counts otherwise.
        """
        if self.errors == "exclude" or self.n_errors is None:
            return replace(self, errors="exclude")
        return replace(self, n=self.n - self.n_errors, errors="exclude")

    def with_errors(self) -> Tally:
        """Return the tally under ``errors="fail"``: errored runs counted as failed runs.

        Returns
        -------
        Tally
            `n` plus `n_errors` if the tally was under ``"exclude"``; the same counts otherwise.
        """
        if self.errors == "fail" or self.n_errors is None:
            return replace(self, errors="fail")
        return replace(self, n=self.n + self.n_errors, errors="fail")

    def under(self, errors: ErrorPolicy) -> Tally:
        """Return the tally under the error policy `errors`.

        Parameters
        ----------
        errors : {"fail", "exclude"}

        Returns
        -------
        Tally
            :meth:`without_errors` or :meth:`with_errors`.
        """
        return self.without_errors() if errors == "exclude" else self.with_errors()

    def group(self, rows: Bools) -> Tally:
        """Return the tally of the tasks `rows` marks, as one group: no grouping columns.

        Parameters
        ----------
        rows : numpy.ndarray of bool
            One per task, true for the tasks to keep (one group's, from :meth:`groups`).

        Returns
        -------
        Tally
            Those tasks' counts, under the same error policy.

        Examples
        --------
        >>> runs = pd.DataFrame(
        ...     {"model": list("aab"), "task": [0, 1, 0], "run": 0, "passed": [True, False, True]}
        ... )
        >>> summary = as_tally(runs, "model")
        >>> codes, _ = summary.groups()
        >>> part = summary.group(codes == 0)
        >>> part.by, part.n.tolist(), part.labels["task"].tolist()
        ((), [1, 1], [0, 1])
        """
        return replace(
            self,
            labels=self.labels.loc[rows, ["task"]].reset_index(drop=True),
            n=self.n[rows],
            c=self.c[rows],
            n_errors=None if self.n_errors is None else self.n_errors[rows],
            by=(),
        )

    def to_frame(self) -> pd.DataFrame:
        """Return the tally as a DataFrame: ``[*by, task, n, c]`` (``n_errors`` if recorded).

        Returns
        -------
        DataFrame
            One row per task, as :func:`passk_lab.tally` returns it.

        Examples
        --------
        >>> runs = pd.DataFrame({"task": [0, 0], "run": [0, 1], "passed": [True, False]})
        >>> as_tally(runs).to_frame()
           task  n  c
        0     0  2  1
        """
        frame = self.labels.reset_index(drop=True).assign(n=self.n, c=self.c)
        if self.n_errors is not None:
            frame["n_errors"] = self.n_errors
        return frame


@dataclass(frozen=True, eq=False)
class Checked:
    """A runs table's columns, validated: one verdict and one run index per row.

    Examples
    --------
    >>> runs = pd.DataFrame({"task": [0, 0], "run": [0, 1], "passed": [True, False]})
    >>> checked = check_runs(runs, (), 1.0)
    >>> checked.passed.tolist(), checked.errored, checked.units.size
    ([True, False], None, 1)
    """

    passed: Bools  # errored and timed-out runs already count as failed
    run: npt.NDArray[np.integer[Any]]  # in the run column's own integer type
    errored: Bools | None
    units: Units
    keys: list[str]


def check_runs(runs: pd.DataFrame, by: tuple[str, ...], threshold: float) -> Checked:
    """Check a runs table by every rule and return its verdicts, run indices and units.

    A run marked passed that errored becomes a failed run, with a warning. A
    table without ``run`` has the runs of each unit numbered 0, 1, 2, ... in
    the order of the rows (:func:`~passk_lab._data.mapping.run_order`).

    Parameters
    ----------
    runs : DataFrame
        The runs table.
    by : tuple of str
        Its grouping columns.
    threshold : float
        The reward a run needs to pass, when there is no ``passed``.

    Returns
    -------
    Checked

    Raises
    ------
    ValueError
        If the table breaks a rule (the message names the column and the fix).
    """
    require_runs_columns(runs, by)
    passed = verdicts(runs, threshold)
    run = run_numbers(runs) if "run" in runs.columns else None
    errored = errored_runs(runs)
    keys = [*by, "task"]
    try:
        units = find_units(runs, keys)
    except TypeError:  # an id that cannot be hashed, such as a list
        refuse_nested(runs, keys)
        raise
    if run is None:  # numbered in the order of the rows: no run can repeat
        run = run_order(units, len(runs))
    else:
        check_unique_runs(runs, keys, units, run)
    if errored is not None:
        lucky = sum(
            np.count_nonzero(passed[low : low + BLOCK] & errored[low : low + BLOCK])
            for low in range(0, len(passed), BLOCK)
        )
        if lucky:
            warn_passed_and_errored(int(lucky))
            passed = passed & ~errored
    return Checked(passed=passed, run=run, errored=errored, units=units, keys=keys)


def _tally_runs(
    runs: pd.DataFrame, by: tuple[str, ...], errors: ErrorPolicy, threshold: float
) -> Tally:
    checked = check_runs(runs, by, threshold)
    return tally_checked(runs, by, errors, checked)


def tally_checked(
    runs: pd.DataFrame, by: tuple[str, ...], errors: ErrorPolicy, checked: Checked
) -> Tally:
    """Count the checked runs of each unit into a tally under the error policy `errors`.

    Parameters
    ----------
    runs : DataFrame
        The runs table `checked` was made of.
    by : tuple of str
        Its grouping columns.
    errors : {"fail", "exclude"}
        The policy of the tally.
    checked : Checked
        From :func:`check_runs`.

    Returns
    -------
    Tally

    Examples
    --------
    >>> runs = pd.DataFrame({"task": [0, 0], "run": [0, 1], "passed": [True, False],
    ...                      "timed_out": [False, True]})
    >>> summary = tally_checked(runs, (), "exclude", check_runs(runs, (), 1.0))
    >>> summary.n.tolist(), summary.c.tolist(), summary.n_errors.tolist()
    ([1], [1], [1])
    """
    units = checked.units
    n_errors = None if checked.errored is None else units.count(checked.errored)
    summary = Tally(
        labels=units.labels,
        n=units.count(None),
        c=units.count(checked.passed),
        n_errors=n_errors,
        by=by,
        errors="fail",
    )
    return summary.under(errors)


def _tally_frame(frame: pd.DataFrame, by: tuple[str, ...], errors: ErrorPolicy) -> Tally:
    require_columns(
        frame, ["task", "n", "c", *by], "tally", "a tally has columns [*by, task, n, c]"
    )
    arrays = {}
    for name in ("n", "c"):
        column = frame[name]
        if not pd.api.types.is_integer_dtype(column.dtype) or column.isna().any():
            raise ValueError(f"tally column {name} must hold integers, got dtype {column.dtype}")
        arrays[name] = column.to_numpy(dtype=np.int64)
    n, c = arrays["n"], arrays["c"]
    bad = (c < 0) | (c > n)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise with_keywords(
            ValueError(
                f"tally row {row} has c={c[row]} passes of n={n[row]} runs; need 0 <= c <= n"
            ),
            "c",
            "n",
        )
    keys = [*by, "task"]
    refuse_nested(frame, keys, "counts")  # one row per task: cheap to look at every id
    repeated = frame.duplicated(keys)
    if repeated.any():
        row = int(np.flatnonzero(repeated.to_numpy())[0])
        raise ValueError(
            f"tally has task {display(frame['task'].iloc[row])!r} more than once (row {row}); "
            f"one row per ({', '.join(keys)})"
        )
    n_errors = frame["n_errors"].to_numpy(dtype=np.int64) if "n_errors" in frame else None
    labels = frame[keys].reset_index(drop=True)
    return Tally(labels=labels, n=n, c=c, n_errors=n_errors, by=by, errors=errors)


def _tally_matrix(
    matrix: pd.DataFrame | np.ndarray, by: tuple[str, ...], errors: ErrorPolicy
) -> Tally:
    counts = count_matrix(matrix, by)  # an array takes no groups
    return Tally(labels=counts.labels, n=counts.n, c=counts.c, n_errors=None, by=by, errors=errors)


DaskFrame: TypeAlias = Any
"""A ``dask.dataframe.DataFrame`` (Dask is an optional dependency, so it is not named here)."""

TallyInput: TypeAlias = pd.DataFrame | np.ndarray | Tally | DaskFrame
"""Whatever :func:`as_tally` takes, and so every statistic: runs, a matrix, a tally, Dask."""


def as_tally(
    data: TallyInput, by: By = None, *, errors: ErrorPolicy = "fail", threshold: float = 1.0
) -> Tally:
    """Reduce runs, an outcome matrix or a tally (pandas, Dask or a :class:`Tally`) to a Tally.

    Which of them a DataFrame is follows :func:`~passk_lab._data.rules.table_kind`.

    Parameters
    ----------
    data : DataFrame, numpy.ndarray, Tally or dask.dataframe.DataFrame
        A runs table, an outcome matrix (a DataFrame indexed by task, or a 2-D
        bool array), a tally table ``[*by, task, n, c]`` (``n_errors``
        optional), a Dask DataFrame of any of them, or a :class:`Tally`.
    by : str or list of str, optional
        Grouping columns. A :class:`Tally` keeps the groups it was counted
        with: `by` must name them (None for a tally without groups).
    errors : {"fail", "exclude"}
        The error policy the result counts under: an errored or timed-out run
        is a failed run, or is left out of `n`. A runs table is counted under
        it. A tally table cannot say how its `n` was counted, so `errors` says
        it (its ``n_errors``, if any, then says how many runs errored). A
        :class:`Tally` stands for the runs it was counted from: under its own
        policy it comes back as it is (the same object, not checked again),
        under the other one as :meth:`Tally.under` gives it, exactly, from the
        errored runs it counts -- so a statistic of ``as_tally(runs, by=b)``
        equals that of `runs` under every `errors`.
    threshold : float
        The reward a run needs to pass, for a runs table with ``reward`` and
        no ``passed``; any other input is judged already.

    Returns
    -------
    Tally

    Raises
    ------
    ValueError
        If the table is none of the kinds, breaks a rule of
        :mod:`passk_lab._data.rules` or :mod:`passk_lab._data.verdicts` (the
        message names the column and the fix), or is a :class:`Tally` whose
        groups are not `by`.
    TypeError
        If `data` is none of the kinds above.

    Examples
    --------
    >>> runs = pd.DataFrame({"task": [0, 0, 1, 1], "run": [0, 1, 0, 1],
    ...                      "passed": [True, False, True, True]})
    >>> summary = as_tally(runs)
    >>> summary.n.tolist(), summary.c.tolist()
    ([2, 2], [1, 2])
    >>> as_tally(summary) is summary
    True
    """
    rule = policy(errors)
    groups = by_columns(by)
    if isinstance(data, Tally):
        return _given(data, groups, rule)
    if is_dask_frame(data):
        summary = _tally_dask(data, groups, rule, threshold)
    elif isinstance(data, np.ndarray):
        summary = _tally_matrix(data, groups, rule)
    else:
        frame = as_frame(data)
        kind = table_kind(frame.columns, frame.index.names)
        if kind == "tally":
            summary = _tally_frame(frame, groups, rule)
        elif kind == "matrix":
            summary = _tally_matrix(frame, groups, rule)
        else:
            summary = _tally_runs(frame, groups, rule, threshold)
    refuse_mixed_ids(summary.labels)  # over the distinct ids only: one row per task
    return summary


def _given(summary: Tally, by: tuple[str, ...], errors: ErrorPolicy) -> Tally:
    """Return a Tally given to a statistic under `errors`, refusing groups other than its own."""
    if by != summary.by:
        has = f"is grouped by {list(summary.by)}" if summary.by else "has no groups"
        asked = f"by={list(by)}" if by else "no groups"
        fix = f"by={list(summary.by)!r}" if summary.by else "no by"
        raise with_keywords(
            ValueError(
                f"this tally {has}, and the call asks for {asked}: a tally keeps the groups it "
                f"was counted with; give {fix}, or tally the runs again with the groups wanted"
            ),
            "by",
        )
    return summary if errors == summary.errors else summary.under(errors)


def _tally_dask(data: Any, by: tuple[str, ...], errors: ErrorPolicy, threshold: float) -> Tally:
    """Tally a Dask DataFrame: a tally table is collected, runs are counted where they are."""
    from passk_lab._data.dask import count_runs  # imports dask, only for a Dask input

    kind = table_kind(data.columns, [data.index.name])
    if kind != "runs":  # a tally, or a matrix, is one row per task: it fits in memory
        return as_tally(data.compute(), by, errors=errors)
    counts = count_runs(data, by, threshold)
    summary = Tally(
        labels=counts.labels,
        n=counts.n,
        c=counts.c,
        n_errors=counts.n_errors,
        by=by,
        errors="fail",
    )
    return summary.under(errors)
