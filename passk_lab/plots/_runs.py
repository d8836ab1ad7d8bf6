"""Every run of every task as a cell: one agent's runs, tasks down and runs across."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.colors import BoundaryNorm, ListedColormap
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator
from matplotlib.transforms import ScaledTranslation

from passk_lab._checks import check_size
from passk_lab._data.costs import COST_PREFIX
from passk_lab._data.rules import display
from passk_lab.outcomes import RUN_STATES, outcome_matrix
from passk_lab.plots._room import legend_width, make_room, points, text_width
from passk_lab.plots._style import MOST_TICKS, PALETTE, axes_of, literal

__all__ = ["outcome_heatmap"]

_STATES = {  # code: (label, colour); the heatmap's categories in legend order
    4: ("passed", PALETTE[0]),  # blue
    1: ("failed", "#F5C6A5"),  # pale: most cells, and none to stand out
    2: ("errored", PALETTE[1]),  # vermilion
    3: ("timed out", PALETTE[3]),  # reddish purple
    0: ("no run", "#FFFFFF"),
}
_CODES = {name: code for code, (name, _) in _STATES.items()}
_CELL_BYTES = 16
"""Bytes a heatmap holds per (task, run) cell: its int64 code and matplotlib's float64 copy."""

_READABLE = 8.0
"""The smallest size, in points, at which the heatmap writes task ids unless told to write all."""

_LINE_SPACING = 1.3
"""The height a label takes, as a multiple of its size: the size and the gap to the next."""

_MOST_SKIPPED = 5
"""The most rows the heatmap passes over from one labelled row to the next; past it, none."""


def _state_codes(states: pd.DataFrame) -> np.ndarray:
    """Codes of every (task, run) cell of ``outcome_matrix(..., states=True)``; see ``_STATES``."""
    codes = np.empty(states.shape, dtype=np.int64)
    for column, (_, values) in enumerate(states.items()):
        # each category's code, and last "no run" (0) for a missing cell, whose position is -1
        lookup = np.array([*(_CODES[state] for state in values.cat.categories), 0])
        codes[:, column] = lookup[values.cat.codes.to_numpy()]
    return codes


def _is_states(frame: pd.DataFrame) -> bool:
    """Whether `frame` is an outcome matrix of states, one task per row."""
    return list(frame.index.names) == ["task"] and all(
        isinstance(dtype, pd.CategoricalDtype) and tuple(dtype.categories) == RUN_STATES
        for dtype in frame.dtypes
    )


def _row_labels(row_height: float) -> tuple[int, float]:
    """Return every how many rows a task id fits at a readable size, and that size in points.

    `row_height` is in points; 0 rows when labelling every few rows would still not fit.
    The size is the y tick labels' size of matplotlib's settings, and no less than 8 pt
    when rows are passed over.
    """
    wanted = _tick_size()
    if min(wanted, row_height / _LINE_SPACING) >= _READABLE:
        return 1, wanted
    size = max(wanted, _READABLE)
    every = math.ceil(size * _LINE_SPACING / row_height)
    return (every if every <= _MOST_SKIPPED else 0), size


def _tick_size() -> float:
    """Return the size in points of the y tick labels that matplotlib's settings now give."""
    return points("ytick.labelsize")


def _mark_passes(ax: Axes, passes: np.ndarray, runs: np.ndarray | None, every_row: float) -> float:
    """Mark the tasks' passes on the right of `ax`, a count per group that fits; return its width.

    `passes` runs down the rows, and `runs` (None when every task has as many) with them; a
    group (tasks alike in both) is written at its middle, ``"2"`` or ``"2 of 3"``, one label
    every `every_row` rows at least, and when every group has its label a tick inside the
    Axes parts each from the next. The width is in points, from the Axes' edge to the far
    side of the axis label.
    """
    changes = passes[1:] != passes[:-1]
    if runs is not None:
        changes |= runs[1:] != runs[:-1]
    starts = np.flatnonzero(np.r_[True, changes])
    ends = np.r_[starts[1:], len(passes)]
    middles, labels, last = [], [], -np.inf
    for start, end in zip(starts, ends, strict=True):
        middle = (start + end - 1) / 2
        if middle - last >= every_row:
            middles.append(middle)
            labels.append(
                f"{int(passes[start])}" + ("" if runs is None else f" of {int(runs[start])}")
            )
            last = middle
    right = ax.secondary_yaxis("right")
    right.set_yticks(middles, labels)
    if len(middles) == len(starts):
        right.set_yticks(ends[:-1] - 0.5, minor=True)
    right.tick_params(axis="y", which="major", length=0)
    right.tick_params(
        axis="y", which="minor", direction="in", length=plt.rcParams["ytick.major.size"] * 2
    )
    right.set_ylabel("runs passed")
    label_size = points("axes.labelsize")
    widest = max((text_width(label, _tick_size()) for label in labels), default=0.0)
    pads = float(plt.rcParams["ytick.major.pad"]) + float(plt.rcParams["axes.labelpad"])
    return pads + widest + label_size * _LINE_SPACING


def _ordinal(number: int) -> str:
    """Return `number` as an ordinal: ``2`` as ``"2nd"``, ``11`` as ``"11th"``."""
    suffix = (
        "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    )
    return f"{number}{suffix}"


_RUN_COLUMNS = ("task", "run", "passed", "reward", "error", "error_kind", "timed_out")
"""The columns of a runs table that say what a run was, not whose or which evaluation's."""


def _repeated_run(runs: pd.DataFrame) -> ValueError | None:
    """Return the heatmap's refusal of a table with a run in several rows, or None if none is.

    One agent's runs have each (task, run) once; several rows of one are
    several agents or evaluations, which the columns that differ among them
    tell apart, or copies. The refusal says how to draw one at a time.
    """
    if not {"task", "run"} <= set(runs.columns):
        return None
    repeated = runs.duplicated(["task", "run"], keep=False).to_numpy()
    if not repeated.any():
        return None
    first = runs.iloc[int(np.argmax(repeated))]
    task, run = first["task"], first["run"]
    rows = runs[repeated & (runs["task"] == task).to_numpy() & (runs["run"] == run).to_numpy()]
    apart = [
        name
        for name in runs.columns
        if name not in _RUN_COLUMNS
        and not str(name).startswith(COST_PREFIX)
        and _varies(rows[name])
    ]
    where = f"run {display(run)!r} of task {display(task)!r} is in {len(rows)} rows"
    if apart:
        name, value = apart[0], display(rows[apart[0]].iloc[0])
        return ValueError(
            f"outcome_heatmap draws one agent's runs, each run in one row, and {where}, told "
            f"apart by {', '.join(map(repr, apart))}; draw one {name} at a time, such as "
            f"outcome_heatmap(runs[runs[{name!r}] == {value!r}]), one heatmap each"
        )
    return ValueError(
        f"outcome_heatmap draws one agent's runs, each run in one row, and {where} that no "
        "column tells apart; if they are copies, drop them (runs.drop_duplicates()), and if "
        "they are runs of two evaluations, draw each evaluation's table on its own"
    )


def _states(runs: pd.DataFrame, threshold: float) -> pd.DataFrame:
    """Return the states matrix to draw: `runs` itself if it is one, else theirs.

    A runs table that holds a run in several rows is refused by
    :func:`_repeated_run`'s message, which names what the heatmap takes.
    """
    if _is_states(runs):
        return runs
    try:
        return outcome_matrix(runs, threshold=threshold, states=True)
    except ValueError as error:
        repeated = _repeated_run(runs)
        if repeated is None:
            raise
        raise repeated from error


def _varies(column: pd.Series) -> bool:
    """Whether `column` holds more than one value (missing ones alike); False if unhashable."""
    try:
        return len(column.drop_duplicates()) > 1
    except TypeError:  # lists, dicts: no column to filter by
        return False


def outcome_heatmap(
    runs: pd.DataFrame,
    *,
    ax: Axes | None = None,
    threshold: float = 1.0,
    task_labels: bool | None = None,
) -> Axes:
    """Draw every run as a cell, tasks down (most passes at the top) and runs across.

    docs/report.md ("The plots in detail") says how it draws each case.

    Parameters
    ----------
    runs : DataFrame
        One agent's runs table (filter a grouped table to one group first);
        ``error`` and ``timed_out`` columns, when present, mark those runs.
        Or its ``outcome_matrix(runs, states=True)``, indexed by task alone,
        drawn as it is.
    ax : matplotlib Axes, optional
        Where to draw; the current Axes by default.
    threshold : float
        The reward a run needs to pass, when the table has ``reward``.
    task_labels : bool, optional
        Label the rows with task ids. By default (None) as many as can be
        read: every row when each has room for a label of 8 pt or more,
        else every 2nd, 3rd, 4th or 5th row (counted from the top, as
        drawn) at 8 pt, and none when even every 5th has no room. True
        labels every row, smaller if need be; False labels none.

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import passk_lab as pk
    >>> fig, ax = plt.subplots(figsize=(6, 4))
    >>> ax = outcome_heatmap(pk.simulate_coin(seed=42), ax=ax)
    >>> ax.images[0].get_array().shape  # 40 tasks x 5 runs
    (40, 5)
    >>> ax.get_ylabel().splitlines()[0]
    '40 tasks, most passes first'
    >>> plt.close(fig)
    """
    if not isinstance(runs, pd.DataFrame):
        raise TypeError(f"runs must be a DataFrame, got {type(runs).__name__}")
    matrix = _states(runs, threshold)
    if matrix.empty:
        raise ValueError(
            f"the outcome matrix has {matrix.shape[0]} tasks and {matrix.shape[1]} runs; pass "
            f"one with at least one run of one task"
        )
    check_size(
        "the outcome heatmap",
        matrix.shape,
        _CELL_BYTES,
        "draw a sample of the tasks or of the runs (a runs table filtered first)",
        names=("tasks", "runs"),
    )
    codes = _state_codes(matrix)
    passes = (codes == 4).sum(axis=1)
    runs_done = (codes != 0).sum(axis=1)
    unequal = len(np.unique(runs_done)) > 1
    order = np.lexsort((runs_done if unequal else np.zeros_like(passes), -passes))
    codes = codes[order]
    ax = axes_of(ax)
    colors = ListedColormap([_STATES[code][1] for code in range(5)])
    ax.imshow(
        codes,
        cmap=colors,
        norm=BoundaryNorm(np.arange(-0.5, 5.5), 5),
        aspect="auto",
        interpolation="nearest",
    )
    ax.grid(False)
    runs_drawn = len(matrix.columns)
    ticks = np.asarray(MaxNLocator(nbins=MOST_TICKS, integer=True).tick_values(0, runs_drawn - 1))
    shown = ticks[(ticks >= 0) & (ticks <= runs_drawn - 1)].astype(np.int64)
    ax.set_xticks(shown, [literal(run) for run in matrix.columns[shown]])
    tasks = len(matrix)
    row_height = ax.bbox.height * 72 / ax.figure.dpi / tasks  # in points
    every, size = _row_labels(row_height)
    if task_labels:
        every, size = 1, min(size, row_height / _LINE_SPACING)
    elif task_labels is not None:
        every = 0
    if every:
        labelled = np.arange(0, tasks, every)
        ax.set_yticks(labelled, [literal(task) for task in matrix.index[order[labelled]]])
        ax.tick_params(axis="y", labelsize=size)
    else:
        ax.set_yticks([])
    which = {0: "\nids not labelled", 1: ""}.get(every, f"\nevery {_ordinal(every)} labelled")
    ax.set_ylabel(f"{tasks} task{'s' if tasks != 1 else ''}, most passes first{which}")
    ax.set_xlabel("run")
    width = _mark_passes(
        ax,
        passes[order],
        runs_done[order] if unequal else None,
        _tick_size() * _LINE_SPACING / row_height,
    )
    present = set(np.unique(codes).tolist()) | {1, 4}
    names = [name for code, (name, _) in _STATES.items() if code in present]
    make_room(ax, width + legend_width(names))
    ax.legend(
        handles=[
            Patch(facecolor=color, edgecolor="0.6", label=name)
            for code, (name, color) in _STATES.items()
            if code in present
        ],
        loc="upper left",
        bbox_to_anchor=(1.0, 1.0),
        bbox_transform=ax.transAxes + ScaledTranslation(width / 72, 0, ax.figure.dpi_scale_trans),
    )
    return ax
