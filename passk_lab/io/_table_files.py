"""Table files (CSV, JSON Lines, Parquet): their kind, their reading, and where a row is in them.

:func:`load_table` is what :func:`~passk_lab.io.read_runs` and :func:`~passk_lab.io.read_counts`
share: the kind told by the suffix, the file checked and read (ids as written), a warning for
a last line that may have been cut short, and how messages name a row; :func:`require_complete`
refuses a missing column or value.
"""

from __future__ import annotations

import csv
import functools
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from passk_lab._errors import with_keywords
from passk_lab._files import check_regular, ends_with_line_break, read_text
from passk_lab._warnings import ReadWarning, warn
from passk_lab.io._json_lines import first_bad_line, json_line_numbers, read_json_lines

__all__ = [
    "TABLE_SUFFIXES",
    "load_table",
    "require_columns",
    "require_complete",
    "table_kind",
]

TABLE_SUFFIXES = {
    ".csv": "csv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
    ".pq": "parquet",
}
"""File suffixes of the tables :func:`load_table` reads, and the format each one means."""

_NA_TEXTS = frozenset(
    {"", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN"}
    | {"<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"}
)
"""The texts pandas' CSV reader reads as missing by default: the list under ``na_values`` in
the documentation of :func:`pandas.read_csv` (pandas 3.1), copied since pandas keeps its own
copy private."""


def table_kind(file: Path) -> str | None:
    """Return a table file's format from its suffix (``"csv"``, ``"jsonl"``, ``"parquet"``).

    Examples
    --------
    >>> table_kind(Path("runs.NDJSON")), table_kind(Path("runs.json"))
    ('jsonl', None)
    """
    return TABLE_SUFFIXES.get(file.suffix.lower())


def load_table(
    file: Path, what: str, holds: str, ids: Sequence[str]
) -> tuple[pd.DataFrame, str, Callable[[int], str]]:
    r"""Read a CSV, JSON Lines or Parquet table, chosen by its suffix, refusing an empty one.

    Parameters
    ----------
    file : pathlib.Path
        The table.
    what : str
        What the file holds, for the messages (``"runs"``, ``"counts"``).
    holds : str
        What one row is, for the messages (``"one row per run"``).
    ids : sequence of str
        The file's columns read as ids: in CSV each cell's text, in JSON
        Lines the JSON value (docs/reading.md, "Task ids are read as written").

    Returns
    -------
    tuple
        The frame as read, the format (``"csv"``, ``"jsonl"`` or ``"parquet"``), and how
        messages name a row (0 the first).

    Raises
    ------
    ValueError
        If the suffix is unknown, the file is not a regular file, is empty, has no rows or
        cannot be parsed.

    Warns
    -----
    ReadWarning
        For a CSV or JSON Lines file that does not end with a line break.

    Examples
    --------
    >>> import tempfile
    >>> file = Path(tempfile.mkdtemp()) / "runs.csv"
    >>> _ = file.write_text("task,passed\n007,true\n")
    >>> frame, kind, where = load_table(file, "runs", "one row per run", ["task"])
    >>> frame["task"].tolist(), kind, where(0).endswith("runs.csv, row 0 (line 2)")
    (['007'], 'csv', True)
    """
    kind = table_kind(file)
    if kind is None:
        raise ValueError(
            f"cannot tell the format of {file.name}: use a .csv, .jsonl (or .ndjson) or "
            f".parquet (or .pq) file"
        )
    size = check_regular(file, f"{what} file")
    if not size:
        raise ValueError(f"{file}: the file is empty; a {what} table has {holds}")
    loaded = _load(file, kind, ids, what)
    if not len(loaded):
        header = ", only a header" if kind == "csv" else ""
        raise ValueError(f"{file}: no {what}{header}; a {what} table has {holds}")
    where = _locator(file, kind)
    if kind != "parquet" and not ends_with_line_break(file, size):
        warn(
            ReadWarning(
                f"{where(len(loaded) - 1)}: the file does not end with a line break, so this "
                f"last row may have been cut short while the file was written; check it (a file "
                f"that ends with a line break reads without this warning)",
                path=file,
            )
        )
    return loaded, kind, where


def _load(file: Path, kind: str, ids: Sequence[str], what: str) -> pd.DataFrame:
    """Read a table; `ids` names the file's columns of task ids and groups, read as ids."""
    try:
        if kind == "csv":
            return _csv(file, ids)
        if kind == "jsonl":
            return read_json_lines(file, ids)
        return pd.read_parquet(file)
    except ImportError as exc:
        raise ImportError(
            f"reading {file.name} needs pyarrow ({exc}): pip install 'passk-lab[parquet]'"
        ) from exc
    except (ValueError, TypeError, OSError, pd.errors.ParserError) as exc:
        if isinstance(exc, UnicodeDecodeError):
            read_text(file)  # refuses the file at its first byte that is not UTF-8
        where = first_bad_line(file) if kind == "jsonl" else None
        raise ValueError(
            f"{where or file}: not a readable {kind.upper()} {what} table ({exc})"
        ) from exc


def _csv(file: Path, ids: Sequence[str]) -> pd.DataFrame:
    """Read a CSV file as pandas does, but for its id columns: text as written, missing if empty.

    pandas' reader would read ``007`` as 7, ``1.10`` as 1.1 and ``NA`` or
    ``null`` as missing; the columns named in `ids` (the task ids and the
    groups) keep each cell's text, and only an empty cell is missing. The
    other columns keep every text pandas reads as missing.
    """
    header = _csv_header(file)
    named = [name for name in header if name in ids]
    if not named:
        return pd.read_csv(file)
    missing = {name: [""] if name in named else sorted(_NA_TEXTS) for name in header}
    frame = pd.read_csv(file, keep_default_na=False, na_values=missing)
    numeric = [name for name in named if not pd.api.types.is_string_dtype(frame[name])]
    if numeric:
        # ids that all look like numbers or booleans: read their text again, those columns alone
        # (asking for text up front makes pandas' reader twice as slow on every file)
        texts = pd.read_csv(
            file,
            usecols=numeric,
            dtype=dict.fromkeys(numeric, "str"),
            keep_default_na=False,
            na_values=[""],
        )
        for name in numeric:
            frame[name] = texts[name]
    return frame


def _csv_header(file: Path) -> list[str]:
    """Return a CSV file's column names as pandas' reader names them.

    A first line of plain names (no quote, no byte-order mark, no lone carriage return, no
    name empty or twice) is split at its commas; any other is left to pandas' reader, whose
    renaming (``Unnamed: 0``, ``a.1``) and skipping of blank lines stay its own.
    """
    with file.open("rb") as raw:
        first = raw.readline(1 << 16)
    line = first.removesuffix(b"\n").removesuffix(b"\r")
    try:
        names = line.decode("utf-8").split(",")
    except UnicodeDecodeError:
        names = []
    plain = first.endswith(b"\n") and not any(mark in line for mark in (b'"', b"\r"))
    plain = plain and not line.startswith(b"\xef\xbb\xbf") and len(set(names)) == len(names)
    if plain and all(name.strip() for name in names):
        return names
    return pd.read_csv(file, nrows=0).columns.tolist()


def _locator(file: Path, kind: str) -> Callable[[int], str]:
    """Return how messages name a row of the table read from `file` (0 the first).

    A JSON Lines message names the line of the file (1 the first); a CSV
    message the row of the table (0 the first, below the header) and its
    line; a Parquet message the row.
    """
    if kind == "parquet":
        return lambda row: f"{file}, row {row}"
    lines = functools.cache(lambda: (_csv_lines if kind == "csv" else json_line_numbers)(file))
    if kind == "csv":
        return lambda row: f"{file}, row {row} (line {lines()[row]})"
    return lambda row: f"{file}, line {lines()[row]}"


def _csv_lines(file: Path) -> list[int]:
    """Return the line (1 the first) each row of a CSV file starts on, below its header.

    pandas' reader skips blank lines (and lines of spaces); a quoted cell may
    hold line breaks, so a row may take several lines.
    """
    starts = []
    with file.open(encoding="utf-8", newline="") as text:
        reader = csv.reader(text)
        end = 0
        for record in reader:
            if record and (len(record) > 1 or record[0].strip()):
                starts.append(end + 1)
            end = reader.line_num
    return starts[1:]


def require_columns(
    frame: pd.DataFrame, file: Path, columns: Sequence[str], own: Sequence[str] = ("task", "run")
) -> None:
    """Refuse a table lacking one of `columns`, naming the keyword that names it.

    A column of `own` is named with its own keyword (``task=``), any other is a group of
    ``by=``.

    Examples
    --------
    >>> require_columns(pd.DataFrame({"id": [1]}), Path("runs.csv"), ["task"])
    Traceback (most recent call last):
    ...
    ValueError: runs.csv: no task column (its columns are ['id']); name it with task='...'
    """
    for column in columns:
        if column not in frame.columns:
            names = list(map(str, frame.columns))
            raise with_keywords(
                ValueError(
                    f"{file}: no {column} column (its columns are {names}); "
                    f"name it with {column}='...'"
                    if column in own
                    else f"{file}: no {column!r} column, named in by; its columns are {names}"
                ),
                column if column in own else "by",
            )


def require_complete(
    frame: pd.DataFrame,
    file: Path,
    columns: list[str],
    where: Callable[[int], str],
    needs: str = "every run needs one",
) -> None:
    """Refuse a table lacking one of `columns` or a value in one; `needs` ends the message.

    Raises
    ------
    ValueError
        Naming the file and the columns it has (a column absent, as
        :func:`require_columns` does), or the row and the column (a value
        missing).

    Examples
    --------
    >>> frame = pd.DataFrame({"task": ["a", None]})
    >>> require_complete(frame, Path("runs.csv"), ["task"], "runs.csv, row {}".format)
    Traceback (most recent call last):
    ...
    ValueError: runs.csv, row 1: task is missing (1 row(s) have none); every run needs one
    """
    require_columns(frame, file, columns)
    for column in columns:
        if frame[column].hasnans:  # cheap, and false for an integer column
            missing = frame[column].isna().to_numpy()
            row = int(np.flatnonzero(missing)[0])
            raise ValueError(
                f"{where(row)}: {column} is missing ({int(missing.sum())} row(s) have "
                f"none); {needs}"
            )
