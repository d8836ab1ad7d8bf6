"""What a report was given: the input checked once, its runs, the columns that describe it.

:func:`checked` is the report's one check of its input: the tally under the
error policy and, for a pandas runs table, every run's state for the outcome
heatmap. The rest say what the page says about the input: what it was
(:func:`given`), its runs and what each group covers (:func:`coverage`), and
the columns that describe the runs (:func:`describing`).
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

import numpy as np
import numpy.typing as npt
import pandas as pd

from passk_lab._choices import ErrorPolicy
from passk_lab._data.costs import COST_PREFIX
from passk_lab._data.grid import grid_frame, run_grid
from passk_lab._data.rules import By, by_columns, display, is_dask_frame, table_kind
from passk_lab._data.tally import Tally, as_tally
from passk_lab.report._prose import groups_named, listed, per_task, plural

__all__ = [
    "Input",
    "agent_errors",
    "checked",
    "coverage",
    "describing",
    "extent",
    "group_states",
]

_RUN_COLUMNS = (
    *("task", "run", "passed", "reward", "error", "error_kind", "timed_out"),
    *("attempts", "started_at", "duration_s"),  # the harness's record of each run
)
"""The runs table's own columns: they hold the runs, not what the runs were of."""
_OUTCOME_WORDS = frozenset({"reason", "status", "outcome", "result", "termination", "exit"})
"""Words that make a column a run's outcome (termination_reason, exit_status): the runs' own."""
_KNOWN_COLUMNS = (
    *("model", "agent", "domain", "benchmark", "dataset", "split"),
    *("user_model", "provider", "environment"),
)
"""Columns that describe an evaluation by their name: listed when they hold a few values."""
_FEW_VALUES = 5
"""The most values a known column may hold to be listed with the runs of each."""
_VALUE_LIMIT = 60
"""The most characters of a value the page shows."""


@dataclass(frozen=True)
class Input:
    """The report's input, checked once: its tally, every run's state, what it was.

    Attributes
    ----------
    runs : object
        The input as given.
    summary : Tally
        Its tally under the report's error policy.
    recorded : Tally
        Its tally with errored runs counted (``errors="fail"``), for the
        runs the page says were made.
    states : DataFrame or None
        Every run's state (tasks x runs), for a pandas runs table only.
    named : str or None
        The input's name on the page (`source`), or None.
    """

    runs: object
    summary: Tally
    recorded: Tally
    states: pd.DataFrame | None
    named: str | None

    @property
    def kind(self) -> str:
        """Return what the page says it was given: the source, or the kind of input."""
        if self.named is not None:
            return self.named
        if is_dask_frame(self.runs):
            return "a Dask DataFrame"
        return "a DataFrame" if isinstance(self.runs, pd.DataFrame) else "an outcome matrix"

    @property
    def without_runs(self) -> str:
        """Return what a report without the runs (no heatmap) was given, for its sentence."""
        runs = self.runs
        if is_dask_frame(runs):
            return "a Dask DataFrame"
        if isinstance(runs, pd.DataFrame) and table_kind(runs.columns, runs.index.names) == "tally":
            return "a tally"
        return "an outcome matrix"


def _is_runs(runs: object) -> TypeGuard[pd.DataFrame]:
    """Tell whether `runs` is a pandas runs table (one with run numbers or without)."""
    return isinstance(runs, pd.DataFrame) and table_kind(runs.columns, runs.index.names) == "runs"


def checked(runs: object, by: By, errors: ErrorPolicy, named: str | None) -> Input:
    """Check the input once: its tally under `errors`, and for a runs table every run's state.

    A pandas runs table gives both from one check (:func:`run_grid`); any
    other input gives its tally, and no states.
    """
    if _is_runs(runs):
        grid = run_grid(runs, by_columns(by), 1.0, states=True)
        summary, states = grid.tally.under(errors), grid_frame(grid)
    else:
        summary, states = as_tally(runs, by, errors=errors), None
    return Input(runs, summary, summary.with_errors(), states, named)


def group_states(states: pd.DataFrame, rows: npt.NDArray[np.bool_], by: list[str]) -> pd.DataFrame:
    """One group's states, indexed by task, with the run indices that group has."""
    part = states[rows]
    if by:
        part = part.droplevel(tuple(by))
    return part.loc[:, part.notna().any().to_numpy()]


def extent(counted: pd.DataFrame, by: list[str]) -> dict[Hashable | None, Any]:
    """Return the tasks and the runs per task (fewest, most) of a tally table, as ``attrs``.

    With groups, a task two groups ran is one task: the count of ids, with the groups and the
    fewest and most tasks of one, as :func:`~passk_lab.reliability_curve` records them.
    """
    runs: dict[Hashable | None, Any] = {
        "runs_per_task": [int(counted["n"].min()), int(counted["n"].max())]
    }
    if not by:
        return {"n_tasks": len(counted), **runs}
    per = counted.groupby(by, sort=False, dropna=False)["task"].nunique()
    return {
        "n_tasks": int(counted["task"].nunique()),
        "n_groups": len(per),
        "tasks_per_group": [int(per.min()), int(per.max())],
        **runs,
    }


def _value_text(value: object) -> str:
    text = str(display(value))
    return (
        text if len(text) <= _VALUE_LIMIT else f"{text[: _VALUE_LIMIT - 1]}\N{HORIZONTAL ELLIPSIS}"
    )


def _describes(runs: pd.DataFrame, name: str, by: list[str], given: str) -> str | None:
    """Return how a column describes the runs, in words, or None if it does not (describing)."""
    column = runs[name]
    if name in _RUN_COLUMNS or name.startswith(COST_PREFIX):
        return None
    if _OUTCOME_WORDS & set(re.split(r"[^a-z]+", name.lower())):
        return None
    if pd.api.types.is_float_dtype(column.dtype) or column.isna().all():
        return None
    if not pd.api.types.is_scalar(column.dropna().iloc[0]):  # a logged conversation, say
        return None
    try:
        values = column.value_counts(sort=False, dropna=True)
    except TypeError:  # lists or mappings further down: no value names the runs
        return None
    single = len(values) == 1
    if by and not single:
        pairs = runs[[*by, name]].dropna(subset=[name]).drop_duplicates()
        single = not pairs.duplicated(subset=by).any()
    known = name in _KNOWN_COLUMNS and len(values) <= _FEW_VALUES
    if not (name in by or single or known):
        return None
    if len(values) == 1 and name not in by and str(display(values.index[0])) == given:
        return None
    if len(values) == 1:
        return _value_text(values.index[0])
    return listed([f"{_value_text(value)} ({count} runs)" for value, count in values.items()])


def describing(runs: object, by: list[str], given: str) -> list[tuple[str, str]]:
    """Return the columns that describe a pandas runs table, each with its values in words.

    A column describes the runs when it is a grouping column, when it holds
    one value in each group (one in all, without groups) -- model, domain,
    the file, a seed -- or when it is one of :data:`_KNOWN_COLUMNS` with at
    most :data:`_FEW_VALUES` values. The runs' own columns (task, run, the
    outcome, errors) and cost columns are not, nor a column that says how a
    run ended -- a name with a word of :data:`_OUTCOME_WORDS`, such as
    ``termination_reason`` -- nor a column of floating-point numbers, which
    measures rather than names, nor one of lists or mappings, nor one whose
    one value is `given`, the input's name, which the page says already. A
    value with others beside it is given with its number of runs.
    """
    if not _is_runs(runs):
        return []
    said = ((name, _describes(runs, name, by, given)) for name in map(str, runs.columns))
    return [(name, text) for name, text in said if text is not None]


def agent_errors(runs: object) -> int:
    """Return how many runs of a pandas runs table ended on the agent's own error."""
    if not isinstance(runs, pd.DataFrame) or not {"error", "error_kind"} <= set(runs.columns):
        return 0
    return int((runs["error"].notna() & (runs["error_kind"] == "agent")).sum())


def coverage(
    recorded: pd.DataFrame, counted: pd.DataFrame, by: list[str], errors: ErrorPolicy
) -> tuple[str, pd.DataFrame]:
    """Return the runs in a sentence, and per group the tasks and runs that its figures count.

    Tasks are told by their ids across groups: 40 tasks that each of two
    models ran are 40 tasks, each run by every group, not 80.
    """
    ran = recorded[recorded["n"] > 0]
    runs = int(ran["n"].sum())
    tasks = ran["task"].nunique()
    errored = int(ran["n_errors"].sum()) if "n_errors" in ran else 0
    told = "counted as failures" if errors == "fail" else "left out"
    tail = f"; {plural(errored, 'run')} errored or timed out, {told}" if errored else ""
    rows = []
    groups = ran.groupby(by, sort=False) if by else [((), ran)]
    for key, part in groups:
        values = key if isinstance(key, tuple) else (key,)
        kept = counted.loc[part.index]
        kept = kept[kept["n"] > 0]
        row: dict[str, object] = dict(zip(by, values, strict=True))
        row |= {
            "tasks": len(kept),
            "runs": int(kept["n"].sum()),
            "runs per task": per_task(kept["n"]) if len(kept) else "",
        }
        if errored:  # left out, they are beside the runs counted, not among them
            told = "runs left out" if errors == "exclude" else "errored or timed out"
            row[told] = int(part["n_errors"].sum())
        if errored and errors == "exclude":
            row["tasks left out"] = len(part) - len(kept)
        rows.append(row)
    table = pd.DataFrame(rows)
    if not by:
        every = per_task(ran["n"])
        return (
            f"{plural(runs, 'run')} of {plural(tasks, 'task')}, {every} per task{tail}",
            table,
        )
    shared = int((ran.groupby("task", sort=False).size() == len(rows)).sum())
    named = groups_named(by, len(rows))
    if shared == tasks:
        said = f"{plural(tasks, 'task')}, each run by {named}"
    elif shared == 0:
        said = f"{plural(tasks, 'task')}; no task is run by {named}"
    else:
        said = f"{plural(tasks, 'task')}, {shared:,} of them run by {named}"
    return f"{said}; {plural(runs, 'run')} in all{tail}", table


def source_name(source: object, title: object) -> tuple[str | None, str | None, str | None]:
    """Return `source` as the page names it, as the manifest records it, and `title`; or refuse.

    A path is named by its file name; the manifest records the whole path.
    """
    if source is not None and not isinstance(source, (str, Path)):
        raise TypeError(
            f"source names the input, as text or a path (for example the file read), got "
            f"{type(source).__name__}"
        )
    if title is not None and not isinstance(title, str):
        raise TypeError(f"title must be text, got {type(title).__name__}")
    if isinstance(source, Path):
        named: str | None = source.name or str(source)
    else:
        named = source
    if named is not None and not named.strip():
        raise ValueError("source is empty: name the input (for example its file), or leave it out")
    origin = str(source.resolve()) if isinstance(source, Path) else named
    return named, origin, title
