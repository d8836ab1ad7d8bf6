"""The dense tasks x runs grid of a runs table: every run's verdict or state, from one check.

:func:`run_grid` checks a runs table once and returns its tally beside the
grid; :func:`grid_frame` makes the outcome matrix of it. A view that needs
both the counts and the runs themselves (the report, with its heatmaps)
takes them from one check this way.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt
import pandas as pd

from passk_lab._data.tally import Tally, check_runs, tally_checked
from passk_lab._data.verdicts import run_flags
from passk_lab._typing import Ints

__all__ = ["RUN_STATES", "Grid", "grid_frame", "run_grid"]

RUN_STATES = ("passed", "failed", "errored", "timed out")
"""What became of a run, as ``outcome_matrix(..., states=True)`` tells it (see its Notes)."""


class Grid(NamedTuple):
    """A runs table's tally (errored runs as failures) and its tasks x runs grid of codes."""

    tally: Tally
    codes: npt.NDArray[np.int8]  # 1 pass, 0 fail, or the state's position; -1 for no such run
    columns: Ints  # the run index of every column
    states: bool  # whether the codes are states (positions in RUN_STATES) or verdicts


def run_grid(
    runs: pd.DataFrame, by: tuple[str, ...], threshold: float, *, states: bool = False
) -> Grid:
    """Check `runs` once and return its tally and the grid of its runs' codes.

    The codes are 1 for a pass and 0 for a failure, or with `states` the
    position of the run's state in :data:`RUN_STATES`; -1 where a task has
    no such run.

    Parameters
    ----------
    runs : DataFrame
        A runs table.
    by : tuple of str
        Its grouping columns.
    threshold : float
        The reward a run needs to pass, when there is no ``passed``.
    states : bool
        Code each run's state instead of its verdict.

    Returns
    -------
    Grid
        The tally under ``errors="fail"`` and the tasks x runs codes.

    Raises
    ------
    ValueError
        If the table breaks a rule of a runs table.

    Examples
    --------
    >>> runs = pd.DataFrame({"task": ["a", "a", "b"], "run": [0, 1, 1],
    ...                      "passed": [True, False, True]})
    >>> grid = run_grid(runs, (), 1.0)
    >>> grid.codes.tolist(), grid.columns.tolist(), grid.tally.n.tolist()
    ([[1, 0], [-1, 1]], [0, 1], [2, 1])
    """
    checked = check_runs(runs, by, threshold)
    summary = tally_checked(runs, by, "fail", checked)
    codes = checked.passed.astype(np.int8)
    if states:
        codes = np.where(checked.passed, 0, 1).astype(np.int8)
        for flagged, state in zip(run_flags(runs), ("errored", "timed out"), strict=True):
            if flagged is not None:  # a time-out wins over the error message it left
                codes[flagged] = RUN_STATES.index(state)
    columns = np.unique(checked.run)
    position = np.searchsorted(columns, checked.run)
    grid = np.full((checked.units.size, len(columns)), -1, dtype=np.int8)
    grid[checked.units.row_codes(len(runs)), position] = codes
    return Grid(summary, grid, columns.astype(np.int64), states)


def grid_frame(grid: Grid) -> pd.DataFrame:
    """Return the outcome matrix of a grid: index ``[*by, task]``, one column per run index.

    Parameters
    ----------
    grid : Grid
        From :func:`run_grid`.

    Returns
    -------
    DataFrame
        Nullable booleans, or with the grid's states categorical ones of
        :data:`RUN_STATES`; missing where a task has no such run.

    Examples
    --------
    >>> runs = pd.DataFrame({"task": ["a", "a", "b"], "run": [0, 1, 1],
    ...                      "passed": [True, False, True]})
    >>> grid_frame(run_grid(runs, (), 1.0))
    run      0      1
    task
    a     True  False
    b     <NA>   True
    """
    summary = grid.tally
    index = (
        pd.MultiIndex.from_frame(summary.labels)
        if summary.by
        else pd.Index(summary.labels["task"], name="task")
    )
    kind = pd.CategoricalDtype(list(RUN_STATES))
    data = {
        int(run): pd.Categorical.from_codes(grid.codes[:, j], dtype=kind)
        if grid.states
        else pd.arrays.BooleanArray(grid.codes[:, j] == 1, grid.codes[:, j] < 0)
        for j, run in enumerate(grid.columns)
    }
    matrix = pd.DataFrame(data, index=index)
    matrix.columns.name = "run"
    return matrix
