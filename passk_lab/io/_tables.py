"""Runs tables stored as CSV, JSON Lines or Parquet, with a mapping for other column names."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from passk_lab._data.mapping import map_columns, number_runs
from passk_lab._data.names import missing_columns, runs_lacks
from passk_lab._data.rules import refuse_nested
from passk_lab._data.verdicts import decide
from passk_lab._errors import with_keywords
from passk_lab.io._json_lines import check_json_ids
from passk_lab.io._records import refusal
from passk_lab.io._table_files import load_table, require_complete

__all__ = ["read_runs"]


def read_runs(
    path: str | Path,
    *,
    by: str | Sequence[str] | None = None,
    task: str | None = None,
    run: str | None = None,
    passed: str | None = None,
    reward: str | None = None,
    threshold: float | None = None,
) -> pd.DataFrame:
    r"""Read a runs table from a CSV, JSON Lines or Parquet file, chosen by the file's suffix.

    The result is a runs table as :func:`passk_lab.tally` takes it: ``task``,
    ``run`` and a boolean ``passed``, with every other column of the file kept.
    Task ids and groups are read as the file writes them, and messages name
    the place in the file (docs/reading.md, "Task ids are read as written" and
    "Where a message points").

    Parameters
    ----------
    path : str or pathlib.Path
        A ``.csv``, ``.jsonl`` (or ``.ndjson``, one JSON object per line) or
        ``.parquet`` (or ``.pq``) file with one row per run.
    by : str or sequence of str, optional
        Grouping columns (such as ``model``), read as task ids are; used to
        number runs when the file has no ``run`` column.
    task, run, passed, reward : str, optional
        The file's name for each of these columns, when it is not the name
        itself (``task="problem_id"``, ``reward="score"``); the column is
        renamed. Give `passed` or `reward`, not both.
    threshold : float, optional
        The reward a run needs to pass (``reward >= threshold - 1e-6``). By
        default a run passes when its reward is 1, which needs every reward in
        [0, 1]. Only for a reward; a file with a ``passed`` column is read as
        it is.

    Returns
    -------
    DataFrame
        The file's rows in the file's order. ``passed`` is decided from the
        reward when the file has a reward and no ``passed`` column, or when
        `reward` names one (replacing any ``passed`` column); the reward is
        kept. Without a ``run`` column the runs of each task (within each
        group of `by`) are numbered 0, 1, 2, ... in the order of the file.

    Raises
    ------
    ValueError
        If the suffix is none of the above, the path is not a regular file or
        cannot be read, the file is empty or has no rows, is not UTF-8 or
        cannot be parsed, a named column is absent, a required column is
        missing (or has a missing value), a task, group or run holds a list or
        an object, JSON Lines ids are not ids (of two kinds, a number written
        with a fraction or an exponent, a boolean, an integer past int64), or
        a reward is refused; the message names the file, the place and the
        column.
    FileNotFoundError
        If there is no such file.

    Warns
    -----
    ReadWarning
        For a CSV or JSON Lines file that does not end with a line break: its
        last row may have been cut short while the file was written.

    Examples
    --------
    >>> import tempfile, pathlib, passk_lab as pk
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "ids.csv").write_text("task,passed\n1.1,true\n1.10,false\n007,true\n")
    >>> read_runs(folder / "ids.csv")["task"].tolist()
    ['1.1', '1.10', '007']

    A table of scores, with its own column names and no run numbers:

    >>> _ = (folder / "scores.csv").write_text(
    ...     "problem,score\nA,0.9\nA,0.4\nB,0.8\nB,0.85\n"
    ... )
    >>> read_runs(folder / "scores.csv", task="problem", reward="score", threshold=0.8)
      task  reward  passed  run
    0    A    0.90    True    0
    1    A    0.40   False    1
    2    B    0.80    True    0
    3    B    0.85    True    1
    """
    file = Path(path)
    groups = [by] if isinstance(by, str) else list(by or ())
    loaded, kind, where = load_table(file, "runs", "one row per run", (task or "task", *groups))
    frame = map_columns(loaded, str(file), task=task, run=run, passed=passed, reward=reward)
    lacks = runs_lacks(frame.columns, groups)
    if lacks:
        raise missing_columns(list(frame.columns), lacks, what=str(file), call=None, by=groups)
    keys = ["task", *groups, *(["run"] if "run" in frame else [])]
    require_complete(frame, file, keys, where)
    refuse_nested(frame, keys, where=where)
    if kind == "jsonl":
        for name in ["task", *groups]:
            check_json_ids(frame[name], name, where)
    frame["passed"] = _verdicts(frame, file, reward, threshold, where)
    if "run" not in frame.columns:
        frame["run"] = number_runs(frame, [*groups, "task"])
    return frame


def _verdicts(
    frame: pd.DataFrame,
    file: Path,
    reward: str | None,
    threshold: float | None,
    where: Callable[[int], str],
) -> pd.Series | np.ndarray:
    """Return the runs' verdicts: the passed column, or decided from the reward.

    The reward decides when `reward` names it or the file has no passed column.
    """
    if reward is not None or "passed" not in frame.columns:
        field = reward or "reward"
        return decide(_numbers(frame["reward"], field, where), threshold, where, field=field)
    if threshold is not None:
        raise with_keywords(
            ValueError(
                f"{file}: threshold applies to a reward, and this file's verdicts are its "
                "passed column; to decide from the reward instead, give reward='<column>'"
            ),
            "reward",
        )
    require_complete(frame, file, ["passed"], where)
    return frame["passed"]


def _numbers(column: pd.Series, field: str, where: Callable[[int], str]) -> pd.Series:
    """Return a column of rewards as numbers, refusing a value that is none."""
    numbers = pd.to_numeric(column, errors="coerce")
    unreadable = (numbers.isna() & column.notna()).to_numpy()
    if unreadable.any():
        row = int(np.flatnonzero(unreadable)[0])
        rule = "a reward must be a number (give passed= for a column of verdicts)"
        raise with_keywords(
            refusal(where(row), field, column.iloc[row], rule, "not a number"), "passed"
        )
    return numbers
