"""Per-task counts (runs ``n``, passes ``c``) stored as CSV, JSON Lines or Parquet tables."""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from passk_lab._data.names import rename_columns
from passk_lab._data.rules import refuse_nested
from passk_lab._errors import with_keywords
from passk_lab.io._json_lines import check_json_ids
from passk_lab.io._records import json_kind, refusal
from passk_lab.io._table_files import load_table, require_columns, require_complete, table_kind

__all__ = ["is_counts", "read_counts"]

_RUNS_MARKS = ("run", "passed", "reward")
_WHOLE = 'a count is a whole number written as an integer (37, not 37.0, "37" or true)'
_SNIFFED = 1 << 16
"""How much of a CSV or JSON Lines file the sniff reads, at most, to find its first line."""


def read_counts(
    path: str | Path,
    *,
    by: str | Sequence[str] | None = None,
    task: str | None = None,
    n: str | None = None,
    c: str | None = None,
) -> pd.DataFrame:
    r"""Read a table of per-task counts, one row per task: its runs ``n`` and passes ``c``.

    Such tables are what pass@k studies publish per problem (``{"task_id": ..., "n": 200,
    "c": 37}``); the result is a tally ``[*by, task, n, c]`` that :func:`passk_lab.tally`,
    :func:`passk_lab.pass_pow_k` and :func:`passk_lab.reliability_curve` take. Ids are read
    as :func:`~passk_lab.io.read_runs` reads them (docs/reading.md, "Per-task counts").

    Parameters
    ----------
    path : str or pathlib.Path
        A ``.csv``, ``.jsonl`` (or ``.ndjson``) or ``.parquet`` (or ``.pq``) file.
    by : str or sequence of str, optional
        Grouping columns (such as ``model``); a task may appear once per group.
    task, n, c : str, optional
        The file's name for each column when it is not the name itself
        (``task="task_id"``, ``n="num_samples"``, ``c="num_correct"``).

    Returns
    -------
    DataFrame
        ``[*by, task, n, c]`` (``n`` and ``c`` int64), then the file's other columns in its
        order, then ``file`` (the file's name); ``attrs["files"]`` lists the file.

    Raises
    ------
    ValueError
        If the file is none of those tables, empty, unreadable, lacks a named column, has
        a missing value, an id that is a list or an object, JSON Lines ids of two kinds, a
        count that is not a whole number (``2.5``, ``2.0``, JSON's ``"3"`` and ``true``, a
        CSV cell that is no integer within int64), ``n < 1``, ``c < 0`` or ``c > n``, a task
        twice within its group, a column ``file`` (the result's own), `by` naming the task
        or a count, or a column ``run``, ``passed`` or ``reward`` (a runs table: read it with
        :func:`~passk_lab.io.read_runs`). The message names the file, the row (a JSON
        Lines file's line, a CSV file's row and line) and the column.

    Examples
    --------
    >>> import tempfile, pathlib, passk_lab as pk
    >>> file = pathlib.Path(tempfile.mkdtemp()) / "counts.jsonl"
    >>> _ = file.write_text('{"task_id": "HumanEval/0", "n": 4, "c": 3}\n'
    ...                     '{"task_id": "HumanEval/1", "n": 4, "c": 0}\n')
    >>> counts = read_counts(file, task="task_id")
    >>> counts
               task  n  c           file
    0  HumanEval/0  4  3  counts.jsonl
    1  HumanEval/1  4  0  counts.jsonl
    >>> float(pk.pass_at_k(counts, 1))
    0.375
    """
    file = Path(path)
    groups = [by] if isinstance(by, str) else list(by or ())
    names = {"task": task or "task", "n": n or "n", "c": c or "c"}
    _check_groups(groups, names)
    # in JSON Lines, counts are read as ids are (no text read as a number) to refuse "3"
    counted = [names["n"], names["c"]] if table_kind(file) == "jsonl" else []
    loaded, kind, where = load_table(
        file, "counts", "one row per task", [names["task"], *groups, *counted]
    )
    frame = rename_columns(loaded, names, str(file))
    unnamed = [own for own, given in names.items() if given == own]
    require_columns(loaded, file, [*unnamed, *groups], own=unnamed)
    _refuse_other_tables(frame, file)
    keys = [*groups, "task"]
    needs = "every task needs its id, its runs n and its passes c"
    require_complete(frame, file, [*keys, "n", "c"], where, needs)
    refuse_nested(frame, keys, "counts", where=where)
    if kind == "jsonl":
        for name in keys:
            check_json_ids(frame[name], name, where)
    columns = list(map(str, loaded.columns))
    runs, passes = (
        _whole(frame[name], name, where, _csv_text(file, columns.index(names[name])))
        if kind == "csv"
        else _whole(frame[name], name, where)
        for name in ("n", "c")
    )
    _check_counts(runs, passes, where)
    _check_once(frame, keys, where)
    others = [name for name in frame.columns if name not in (*keys, "n", "c")]
    result = frame[[*keys, *others]]
    result.insert(len(keys), "n", runs)
    result.insert(len(keys) + 1, "c", passes)
    result["file"] = file.name
    result.attrs["files"] = [str(file)]
    return result


def _check_groups(groups: list[str], names: dict[str, str]) -> None:
    """Refuse a group that is the task or a count, the columns the result keeps as its own."""
    for group in groups:
        if group in (*names, *names.values()):
            raise with_keywords(
                ValueError(
                    f"by names {group!r}, a column the result keeps as task, n or c; by= names "
                    f"the columns that group the tasks (such as model): leave {group!r} out of it"
                ),
                "by",
            )


def _refuse_other_tables(frame: pd.DataFrame, file: Path) -> None:
    """Refuse a column ``file`` (the result's own) and the columns of a runs table."""
    if "file" in frame.columns:
        raise ValueError(
            f"{file}: has a column 'file', the name the result gives the file's name; rename "
            f"that column in the file (to source_file, say)"
        )
    marks = [mark for mark in _RUNS_MARKS if mark in frame.columns]
    if marks:
        raise ValueError(
            f"{file}: has {', '.join(marks)}, the columns of a runs table (one row per run); "
            f"read it with read_runs, or drop or rename {', '.join(marks)} for a table of counts"
        )


def _check_counts(runs: np.ndarray, passes: np.ndarray, where: Callable[[int], str]) -> None:
    """Refuse ``n < 1``, ``c < 0`` and ``c > n``, naming the first row that has one."""
    for bad, rule in (
        (runs < 1, "n must be at least 1: a task with no runs carries nothing; drop its row"),
        (passes < 0, "c must be at least 0"),
        (passes > runs, "c counts passes among the n runs, so c <= n"),
    ):
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise ValueError(f"{where(row)}: n is {runs[row]} and c is {passes[row]}; {rule}")


def _check_once(frame: pd.DataFrame, keys: list[str], where: Callable[[int], str]) -> None:
    """Refuse a task listed twice (within its group)."""
    groups = keys[:-1]
    # hashing the ids once to tell they are unique costs half of marking each repeat
    unique = not groups and frame["task"].is_unique
    repeated = np.zeros(0, bool) if unique else frame.duplicated(keys).to_numpy()
    if repeated.any():
        row = int(np.flatnonzero(repeated)[0])
        shown = frame["task"].iloc[row : row + 1].tolist()[0]
        within = f" within its group ({', '.join(groups)})" if groups else ""
        raise with_keywords(
            ValueError(
                f"{where(row)}: task {shown!r} is listed twice{within}; a table of counts has one "
                f"row per task: add its runs into one row, or name the column that tells the two "
                f"apart with by="
            ),
            "by",
        )


def _whole(
    column: pd.Series,
    name: str,
    where: Callable[[int], str],
    text: Callable[[], list[str]] | None = None,
) -> np.ndarray:
    """Return a column of counts as int64, refusing any value that is not a whole number.

    pandas reads a CSV column of integers within int64 as int64; any other holds a cell that
    is not such an integer, found in the cells' text (`text`, a CSV file's alone: there ``3``
    and ``"3"`` are one cell, and ``2.0`` is read as a float whose text is lost).
    """
    if pd.api.types.is_integer_dtype(column.dtype) and not pd.api.types.is_bool_dtype(column.dtype):
        values = column.to_numpy()
        if values.dtype == np.uint64 and (values > np.iinfo(np.int64).max).any():
            row = int(np.argmax(values > np.iinfo(np.int64).max))
            rule, large = "a count is a whole number within int64", "an integer too large for int64"
            raise refusal(where(row), name, int(values[row]), rule, large)
        return values.astype(np.int64)
    if text is not None:
        cells = text()
        bad = next((row for row, cell in enumerate(cells) if not _integer(cell)), None)
        if bad is None:  # pandas reads such a column as int64; should it not, their integers
            return np.array([int(cell) for cell in cells], dtype=np.int64)
        rule = "a count is a whole number written as an integer (37, not 37.0 or 3.7e1)"
        raise refusal(where(bad), name, cells[bad], rule, "not an integer within int64")
    if pd.api.types.is_float_dtype(column.dtype):
        values = column.to_numpy(dtype=np.float64)
        fraction = values != np.trunc(values)
        row = int(np.argmax(fraction)) if fraction.any() else 0
    else:
        whole = column.map(lambda value: json_kind(value) == "an integer").to_numpy(bool)
        row = int(np.argmin(whole))
    value = column.iloc[row : row + 1].tolist()[0]
    raise refusal(where(row), name, value, _WHOLE)


def _csv_text(file: Path, position: int) -> Callable[[], list[str]]:
    """Return a reader of the cells of a CSV file's column `position`, as written."""
    return lambda: (
        pd.read_csv(file, usecols=[position], dtype=str, keep_default_na=False).iloc[:, 0].tolist()
    )


def _integer(cell: str) -> bool:
    """Tell a CSV cell that is an integer within int64 (ASCII digits: ``'³'.isdigit()``)."""
    digits = cell.strip(" \t")  # as pandas' reader strips them ("5\u00a0" is text to it)
    digits = digits[1:] if digits[:1] in ("+", "-") else digits
    return digits.isascii() and digits.isdigit() and -(2**63) <= int(cell) < 2**63


def is_counts(path: Path) -> bool:
    r"""Tell a table of counts: a table file with columns n and c and none of run, passed, reward.

    Only its header, its first line (past blank lines, within 64 KB) or its Parquet schema
    is read.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "counts.csv").write_text("task,n,c\na,5,2\n")
    >>> _ = (folder / "runs.csv").write_text("task,run,passed\na,0,true\n")
    >>> is_counts(folder / "counts.csv"), is_counts(folder / "runs.csv")
    (True, False)
    """
    kind = table_kind(Path(path))
    if kind is None or not Path(path).is_file():
        return False
    names: list[str]
    try:
        if kind == "parquet":
            import pyarrow.parquet as pq  # type: ignore[import-untyped]

            names = list(pq.read_schema(path).names)
        else:
            with open(path, encoding="utf-8", errors="replace", newline="") as text:
                first = text.readline(_SNIFFED)
                while first and not first.strip() and text.tell() < _SNIFFED:
                    first = text.readline(_SNIFFED)  # blank lines before the header or record
            if kind == "csv":
                names = pd.read_csv(io.StringIO(first), nrows=0).columns.tolist()
            else:
                record = json.loads(first)
                if not isinstance(record, dict):
                    return False
                names = list(record)
    except Exception:  # a file the sniff cannot parse is not a table of counts
        return False
    has = set(names)
    return {"n", "c"} <= has and not has & set(_RUNS_MARKS)
