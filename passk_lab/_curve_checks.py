"""What a reliability curve refuses and warns of: its ks, its size, and what it cannot estimate.

The ks a curve has are checked, and refused before anything is allocated when
the curve would not fit the memory budget. Each warning is typed
(:mod:`passk_lab._warnings`) and says, in its fields, where it happened: ks
without an estimate, tasks left out, a k counted on one task, a rejected fit;
each is given once per curve, for the first group it concerns, so that a curve
of many groups does not repeat itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Sized

import numpy as np

from passk_lab._checks import check_size, k_values
from passk_lab._data.cells import Cells
from passk_lab._typing import Bools, Floats, Ints
from passk_lab._warnings import (
    FewTasksWarning,
    FitRejectedWarning,
    NoEstimateWarning,
    TasksLeftOutWarning,
    warn,
)

__all__ = [
    "check_curve_size",
    "group_ks",
    "warn_dropped",
    "warn_empty",
    "warn_few",
    "warn_rejected",
]

_CELL_BYTES = 32
"""Bytes a curve holds per (cell, k): four float64 arrays of cells x ks at once (the products
of pass^k and of pass@k, and their copies with the uncounted cells masked)."""
_ROW_BYTES = 256
"""Bytes a curve holds per (group, k): the table's row (16 columns) and the Python integer
that lists the k."""
_PREDICTED_BYTES = 48
"""Bytes the beta-binomial prediction holds per k up to the largest: its running product of
ratios (the ks, the ratios' terms, the ratios and their product)."""


def group_ks(cells: Cells, ks: Iterable[object] | None) -> list[Ints]:
    """Return the k values of every group: `ks`, or 1 to the group's largest n.

    A `ks` whose length says the curve would not fit
    :data:`~passk_lab._checks.MEMORY_BUDGET` is refused before it is read.

    Parameters
    ----------
    cells : Cells
        The cells.
    ks : iterable of int, or None
        The ks asked for.

    Returns
    -------
    list of numpy.ndarray of int
        One per group, sorted and without repeats.

    Raises
    ------
    TypeError, ValueError
        As :func:`~passk_lab._checks.k_values`, or if `ks` is too long.

    Examples
    --------
    >>> import pandas as pd
    >>> from passk_lab._data.tally import as_tally
    >>> cells = Cells.from_tally(as_tally(pd.DataFrame({"task": [0, 1], "n": [4, 2], "c": [3, 1]})))
    >>> [ks.tolist() for ks in group_ks(cells, None)], group_ks(cells, [3, 1])[0].tolist()
    ([[1, 2, 3, 4]], [1, 3])
    """
    most = int(cells.max_n().max()) if len(cells.n) else 0
    if isinstance(ks, Sized):
        count = -(-(ks.stop - ks.start) // ks.step) if isinstance(ks, range) else len(ks)
        check_size(
            "the curve",
            (max(count, 0),),
            _CELL_BYTES * len(cells.n) + _ROW_BYTES * len(cells.starts),
            f"ask for fewer ks: no task has more than {most:,} runs, so a k above that has no "
            f"estimate",
            names=("ks",),
            keywords=("ks",),
        )
    return [k_values(ks, int(largest)) for largest in cells.max_n()]


def check_curve_size(cells: Cells, asked_ks: list[Ints], predict_to: int, fitted: bool) -> None:
    """Refuse, before they are listed, ks the curve would not fit in the memory budget.

    The curve holds the asked ks and every k above a group's largest up to
    `predict_to` (the count checked is at least as many as it holds); with
    `fitted`, the beta-binomial prediction also holds a value for every k up
    to the largest.

    Parameters
    ----------
    cells : Cells
        The curve's cells.
    asked_ks : list of numpy.ndarray of int
        Per group, the ks asked for.
    predict_to : int
        The largest k predicted (0: none past the asked ks).
    fitted : bool
        Whether the curve holds the beta-binomial prediction.

    Raises
    ------
    ValueError
        If the curve or its prediction would not fit, naming the keyword to change.

    Examples
    --------
    >>> import pandas as pd
    >>> from passk_lab._data.tally import as_tally
    >>> cells = Cells.from_tally(as_tally(pd.DataFrame({"task": [0], "n": [4], "c": [3]})))
    >>> check_curve_size(cells, [np.array([1, 4])], 10**12, True)
    Traceback (most recent call last):
    ...
    ValueError: the curve would hold 999,999,999,998 ks at 288 bytes each ...
    """
    asked = len(np.unique(np.concatenate(asked_ks)))
    smallest = min(int(ks.max()) for ks in asked_ks)
    check_size(
        "the curve",
        (asked + max(0, predict_to - smallest),),
        _CELL_BYTES * len(cells.n) + _ROW_BYTES * len(cells.starts),
        f"give a smaller predict_to: the curve predicts every k from the largest asked "
        f"({smallest:,}) up to it",
        names=("ks",),
        keywords=("predict_to",),
    )
    if fitted:
        largest = max(predict_to, *(int(ks.max()) for ks in asked_ks))
        check_size(
            "the beta-binomial prediction",
            (largest,),
            _PREDICTED_BYTES,
            f"ask for a smaller largest k (predict_to, or ks): the prediction at k = "
            f"{largest:,} takes every k below it",
            names=("ks",),
            keywords=("predict_to", "ks"),
        )


def warn_empty(cells: Cells, counted: Floats, ks: Ints, asked: Bools | None = None) -> None:
    """Warn that the estimates are NaN where no task of a group has k runs (and k was asked).

    One ``NoEstimateWarning``, for the first such group (naming how many others
    there are): its ks, and why -- no task has that many runs, or every run was
    left out under ``errors="exclude"``.

    Parameters
    ----------
    cells : Cells
        The curve's cells.
    counted : numpy.ndarray
        Groups x ks: the tasks counted at each k.
    ks : numpy.ndarray of int
        The ks of `counted`'s columns.
    asked : numpy.ndarray of bool, optional
        Groups x ks: the ks asked for; the others (predictions past the runs)
        warn of nothing.

    Examples
    --------
    >>> import warnings
    >>> import pandas as pd
    >>> from passk_lab._data.tally import as_tally
    >>> cells = Cells.from_tally(as_tally(pd.DataFrame({"task": [0], "n": [2], "c": [1]})))
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_empty(cells, np.array([[1.0, 0.0]]), np.array([2, 3]))
    >>> caught[0].message.ks, caught[0].message.most_runs
    ((3,), 2)
    """
    empty = np.argwhere((counted == 0) & (True if asked is None else asked))
    if len(empty) == 0:
        return
    group = int(empty[0, 0])
    missing = ks[empty[empty[:, 0] == group, 1]]
    where = cells.where(group)
    groups = len(np.unique(empty[:, 0]))
    others = f" (and in {groups - 1} other group(s))" if groups > 1 else ""
    most = int(cells.max_n()[group])
    excluded = int(cells.n_runs_excluded[group])
    why = (
        f"every run was left out ({excluded} errored or timed-out run(s) under errors='exclude')"
        if most == 0 and excluded
        else f"no task has that many runs (the most is {most})"
    )
    warn(
        NoEstimateWarning(
            f"no estimate for k = {_listed(missing)}{where}{others}: {why}, so pass^k and "
            f"pass@k are NaN",
            ks=missing.tolist(),
            most_runs=most,
        )
    )


_LISTED = 10
"""The most ks a warning spells out; a longer list shows its first ones and its last."""


def _listed(ks: Ints) -> str:
    """Return ks as ``1, 2, 3``; past _LISTED of them, the first ones, ``...`` and the last."""
    if len(ks) <= _LISTED:
        return ", ".join(map(str, ks))
    first = ", ".join(map(str, ks[: _LISTED - 1]))
    return f"{first}, ..., {ks[-1]} ({len(ks):,} ks)"


def warn_dropped(cells: Cells, counted: Floats, all_ks: Ints, asked_ks: list[Ints]) -> None:
    """Warn where a k counts fewer tasks than the group's first k, with the count left out.

    One ``TasksLeftOutWarning``, for the first such group and k, pointing to
    ``common_tasks=True``.

    Parameters
    ----------
    cells : Cells
        The curve's cells.
    counted : numpy.ndarray
        Groups x `all_ks`: the tasks counted at each k.
    all_ks : numpy.ndarray of int
        The ks of `counted`'s columns, sorted.
    asked_ks : list of numpy.ndarray of int
        Per group, the ks asked for.

    Examples
    --------
    >>> import warnings
    >>> import pandas as pd
    >>> from passk_lab._data.tally import as_tally
    >>> counts = pd.DataFrame({"task": range(10), "n": [4] + [2] * 9, "c": 1})
    >>> cells = Cells.from_tally(as_tally(counts))
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_dropped(cells, np.array([[10.0, 1.0]]), np.array([1, 4]), [np.array([1, 4])])
    >>> caught[0].message.k, caught[0].message.counted, caught[0].message.first
    (4, 1, 10)
    """
    for group, ks in enumerate(asked_ks):
        tasks = counted[group, np.searchsorted(all_ks, ks)]
        dropped = np.flatnonzero((tasks > 0) & (tasks < tasks[0]))
        if len(dropped):
            first = int(dropped[0])
            warn(
                TasksLeftOutWarning(
                    f"k = {int(ks[first])}{cells.where(group)} counts {int(tasks[first])} of "
                    f"the {int(tasks[0])} tasks counted at k = {int(ks[0])} "
                    f"({int(tasks[0] - tasks[first])} left out): only tasks with at "
                    f"least k runs count, so the rows from k = {int(ks[first])} on describe "
                    f"another set of tasks; reliability_curve(..., common_tasks=True) counts "
                    f"every k on the tasks that have the runs of all of them",
                    k=int(ks[first]),
                    counted=int(tasks[first]),
                    first=int(tasks[0]),
                )
            )
            return


def warn_few(cells: Cells, counted: Floats, all_ks: Ints, asked_ks: list[Ints]) -> None:
    """Warn where a k is counted on one task: its value stands, its interval is NaN.

    One ``FewTasksWarning``, for the first such group, with its ks.

    Parameters
    ----------
    cells : Cells
        The curve's cells.
    counted : numpy.ndarray
        Groups x `all_ks`: the tasks counted at each k.
    all_ks : numpy.ndarray of int
        The ks of `counted`'s columns, sorted.
    asked_ks : list of numpy.ndarray of int
        Per group, the ks asked for.

    Examples
    --------
    >>> import warnings
    >>> import pandas as pd
    >>> from passk_lab._data.tally import as_tally
    >>> counts = pd.DataFrame({"task": range(10), "n": [4] + [2] * 9, "c": 1})
    >>> cells = Cells.from_tally(as_tally(counts))
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_few(cells, np.array([[10.0, 1.0]]), np.array([1, 4]), [np.array([1, 4])])
    >>> caught[0].message.ks
    (4,)
    """
    for group, ks in enumerate(asked_ks):
        tasks = counted[group, np.searchsorted(all_ks, ks)]
        single = ks[tasks == 1]
        if len(single):
            warn(
                FewTasksWarning(
                    f"the intervals at k = {', '.join(map(str, single))}{cells.where(group)} "
                    f"are NaN: one task has that many runs, and one task says nothing about "
                    f"the next one; give more tasks k runs, or choose smaller ks",
                    ks=single.tolist(),
                    tasks=1,
                )
            )
            return


def warn_rejected(cells: Cells, group: int, p_value: float, most: int) -> None:
    """Warn that predictions past the observed runs rest on a model the data reject.

    Parameters
    ----------
    cells : Cells
        The curve's cells.
    group : int
        The group whose fit is rejected.
    p_value : float
        Its goodness-of-fit p-value.
    most : int
        The most runs observed in the group: predictions past it are not trusted.

    Examples
    --------
    >>> import warnings
    >>> import pandas as pd
    >>> from passk_lab._data.tally import as_tally
    >>> counts = pd.DataFrame({"task": range(10), "n": [4] + [2] * 9, "c": 1})
    >>> cells = Cells.from_tally(as_tally(counts))
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_rejected(cells, 0, 0.001, 4)
    >>> type(caught[0].message).__name__, caught[0].message.most_runs
    ('FitRejectedWarning', 4)
    """
    warn(
        FitRejectedWarning(
            f"the beta-binomial model fits the runs{cells.where(group)} badly (goodness of fit "
            f"p = {p_value:.2g}): betabinom_pow_k past k = {most}, the most runs observed, "
            f"rests on its shape and is not to be trusted; see success_counts(runs) for where "
            f"it misses",
            p_value=p_value,
            most_runs=most,
        )
    )
