"""Runs tables stored as CSV, JSON Lines or Parquet, with a mapping for other column names."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from passk_lab.io._rewards import decide

__all__ = ["TABLE_SUFFIXES", "read_runs"]

TABLE_SUFFIXES = {
    ".csv": "csv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
    ".pq": "parquet",
}
"""File suffixes :func:`read_runs` reads, and the format each one means."""


def read_runs(
    path: str | Path,
    *,
    task: str | None = None,
    run: str | None = None,
    passed: str | None = None,
    reward: str | None = None,
    threshold: float | None = None,
    by: str | Sequence[str] | None = None,
) -> pd.DataFrame:
    r"""Read a runs table from a CSV, JSON Lines or Parquet file, chosen by the file's suffix.

    The result is a runs table as :func:`passk_lab.tally` takes it: ``task``,
    ``run`` and a boolean ``passed``, with every other column of the file kept.

    Parameters
    ----------
    path : str or pathlib.Path
        A ``.csv``, ``.jsonl`` (or ``.ndjson``, one JSON object per line) or
        ``.parquet`` (or ``.pq``) file with one row per run.
    task, run, passed, reward : str, optional
        The file's name for each of these columns, when it is not the name
        itself (``task="problem_id"``, ``reward="score"``); the column is
        renamed. Give `passed` or `reward`, not both.
    threshold : float, optional
        The reward a run needs to pass (``reward >= threshold - 1e-6``). By
        default a run passes when its reward is 1, which needs every reward in
        [0, 1]. Only for a reward; a file with a ``passed`` column is read as
        it is.
    by : str or sequence of str, optional
        Grouping columns (such as ``model``); only used to number runs when
        the file has no ``run`` column.

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
        If the suffix is none of the above, the file cannot be parsed, a named
        column is absent, a required column is missing (or has a missing
        value), or a reward is refused; the message names the file, the row
        and the column.
    FileNotFoundError
        If there is no such file.
    ImportError
        If a Parquet file is read without pyarrow installed.

    Examples
    --------
    >>> import tempfile, pathlib, passk_lab as pk
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> pk.simulate_coin(tasks=3, k=2).to_csv(folder / "runs.csv", index=False)
    >>> read_runs(folder / "runs.csv").shape
    (6, 3)

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
    kind = TABLE_SUFFIXES.get(file.suffix.lower())
    if kind is None:
        raise ValueError(
            f"cannot tell the format of {file.name}: use a .csv, .jsonl (or .ndjson) or "
            f".parquet (or .pq) file"
        )
    if not file.is_file():
        raise FileNotFoundError(f"no such runs file: {file}")
    frame = _renamed(_load(file, kind), file, task=task, run=run, passed=passed, reward=reward)
    groups = [by] if isinstance(by, str) else list(by or ())
    _require_complete(frame, file, ["task", *groups, *(["run"] if "run" in frame else [])])
    from_reward = reward is not None or "passed" not in frame.columns
    if from_reward:
        if "reward" not in frame.columns:
            raise ValueError(
                f"{file}: no passed or reward column (its columns are "
                f"{list(map(str, frame.columns))}); name the verdict with passed='...' or the "
                f"score with reward='...'"
            )
        frame["passed"] = decide(
            _numbers(frame["reward"], file, reward or "reward"),
            threshold,
            lambda row: _where(file, row),
            field=reward or "reward",
        )
    else:
        if threshold is not None:
            raise ValueError(
                f"{file}: threshold applies to a reward, and this file's verdicts are its passed "
                f"column; to decide from the reward instead, give reward='<column>'"
            )
        _require_complete(frame, file, ["passed"])
    if "run" not in frame.columns:
        frame["run"] = frame.groupby([*groups, "task"], sort=False).cumcount().astype(np.int64)
    return frame


def _load(file: Path, kind: str) -> pd.DataFrame:
    try:
        if kind == "csv":
            return pd.read_csv(file)
        if kind == "jsonl":
            return pd.read_json(file, lines=True, precise_float=True)
        return pd.read_parquet(file)
    except ImportError as exc:
        raise ImportError(
            f"reading {file.name} needs pyarrow: pip install 'passk-lab[parquet]'"
        ) from exc
    except (ValueError, TypeError, OSError, pd.errors.ParserError) as exc:
        where = _first_bad_line(file) if kind == "jsonl" else None
        raise ValueError(
            f"{where or file}: not a readable {kind.upper()} runs table ({exc})"
        ) from exc


def _first_bad_line(file: Path) -> str | None:
    """Locate the first line of a JSON Lines file that is not a JSON object."""
    with file.open(encoding="utf-8", errors="replace") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                return f"{file}, line {number}, column {exc.colno}"
            if not isinstance(record, dict):
                return f"{file}, line {number}"
    return None


def _renamed(frame: pd.DataFrame, file: Path, **columns: str | None) -> pd.DataFrame:
    if columns["passed"] is not None and columns["reward"] is not None:
        raise ValueError(
            "give passed= (the file's verdict column) or reward= (its score column), not both"
        )
    names = {given: own for own, given in columns.items() if given is not None and given != own}
    for given, own in names.items():
        if given not in frame.columns:
            raise ValueError(
                f"{file}: no column {given!r} (given as {own}=); its columns are "
                f"{list(map(str, frame.columns))}"
            )
        if own in frame.columns:
            raise ValueError(
                f"{file}: has both a {own!r} column and {given!r} (given as {own}=); "
                f"rename one of them in the file, or name {own!r} itself"
            )
    renamed = frame.rename(columns=names)
    if columns["reward"] is not None:
        renamed = renamed.drop(columns="passed", errors="ignore")
    return renamed


def _require_complete(frame: pd.DataFrame, file: Path, columns: list[str]) -> None:
    for column in columns:
        if column not in frame.columns:
            raise ValueError(
                f"{file}: no {column} column (its columns are {list(map(str, frame.columns))}); "
                f"name it with {column}='...'"
                if column in ("task", "run")
                else f"{file}: no {column!r} column, named in by"
            )
        missing = frame[column].isna().to_numpy()
        if missing.any():
            row = int(np.flatnonzero(missing)[0])
            raise ValueError(
                f"{_where(file, row)}: {column} is missing ({int(missing.sum())} row(s) have "
                f"none); every run needs one"
            )


def _numbers(column: pd.Series, file: Path, field: str) -> pd.Series:
    numbers = pd.to_numeric(column, errors="coerce")
    unreadable = (numbers.isna() & column.notna()).to_numpy()
    if unreadable.any():
        row = int(np.flatnonzero(unreadable)[0])
        raise ValueError(
            f"{_where(file, row)}: {field} is {column.iloc[row]!r}, not a number; "
            f"a reward must be a number (give passed= for a column of verdicts)"
        )
    return numbers


def _where(file: Path, row: int) -> str:
    return f"{file}, row {row}"
