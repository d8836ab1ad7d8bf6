"""Runs tables stored as CSV, JSON Lines or Parquet, with a mapping for other column names."""

from __future__ import annotations

import csv
import functools
import io
import json
import re
import sys
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from passk_lab._data.rules import refuse_nested
from passk_lab._errors import with_keywords
from passk_lab._files import check_regular, encodable, ends_with_line_break, read_text
from passk_lab._warnings import ReadWarning, warn
from passk_lab.io._json import json_kind
from passk_lab.io._rewards import decide

__all__ = ["TABLE_SUFFIXES", "check_json_ids", "load_table", "read_runs"]

TABLE_SUFFIXES = {
    ".csv": "csv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
    ".pq": "parquet",
}
"""File suffixes :func:`read_runs` reads, and the format each one means."""

_NA_TEXTS = frozenset(
    {"", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN"}
    | {"<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"}
)
"""The texts pandas' CSV reader reads as missing by default: the list under ``na_values`` in
the documentation of :func:`pandas.read_csv` (pandas 3.1), copied since pandas keeps its own
copy private."""


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
        Grouping columns (such as ``model``), read as task ids are (see
        Notes); used to number runs when the file has no ``run`` column.

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
        If the suffix is none of the above, the path is not a regular file (a
        directory, a FIFO, a device) or cannot be read, the file is empty or
        has no rows, is not UTF-8 or cannot be parsed, a named column is
        absent, a required column is missing (or has a missing value), a task,
        group or run holds a list or an object, JSON Lines task or group ids
        are of two kinds, are numbers written with a fraction or an exponent
        (``1.5``, ``1.0``, ``1e20``), booleans or integers past int64, or a
        reward is refused; the message names the file, the place (a JSON
        Lines file's line, a CSV file's row and line, a Parquet file's row)
        and the column.
    FileNotFoundError
        If there is no such file.

    Warns
    -----
    UserWarning
        For a CSV or JSON Lines file that does not end with a line break: its
        last row may have been cut short while the file was written.

    Notes
    -----
    Task ids, and the groups named in `by`, are read as the file writes them.
    In a CSV file each id is the cell's text, exactly (``007``, ``1.10``,
    ``NA`` and ``null`` are ids of their own), and only an empty cell is
    missing. In a JSON Lines file an id is a JSON string (its text, as
    written; a lone surrogate such as ``"\ud800"`` is kept as that escape)
    or an integer: a number written with a fraction or an exponent is
    refused (``1.1`` and ``1.10`` are one JSON number, ``1.0`` and ``1``
    too), and so are booleans, integers past int64 and a file with ids of
    two kinds (``1`` and ``"1"`` would be two tasks). A Parquet file's ids
    keep the file's type. For numbers, convert after reading:
    ``runs["task"] = runs["task"].astype(int)``. The other columns are read
    as pandas reads them.

    Messages name the place in the file: a JSON Lines file's line (1 the
    first, blank lines counted), a CSV file's row (0 the first below the
    header) and the line it starts on, a Parquet file's row.

    A JSON Lines file of one object a line and plain values (numbers, text,
    true, false, null) is parsed by pyarrow's reader (pyarrow is a dependency,
    always installed), several times faster, into the frame pandas' reader
    gives. pandas' reader is the fallback: it reads, or refuses, every file
    the fast path does not take.

    Examples
    --------
    >>> import tempfile, pathlib, passk_lab as pk
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> pk.simulate_coin(tasks=3, k=2).to_csv(folder / "runs.csv", index=False)
    >>> read_runs(folder / "runs.csv").shape
    (6, 3)

    Task ids keep their text:

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
    frame = _renamed(loaded, file, task=task, run=run, passed=passed, reward=reward)
    keys = ["task", *groups, *(["run"] if "run" in frame else [])]
    require_complete(frame, file, keys, where)
    refuse_nested(frame, keys, where=where)
    if kind == "jsonl":
        for name in ["task", *groups]:
            check_json_ids(frame[name], name, where)
    from_reward = reward is not None or "passed" not in frame.columns
    if from_reward:
        if "reward" not in frame.columns:
            raise with_keywords(
                ValueError(
                    f"{file}: no passed or reward column (its columns are "
                    f"{list(map(str, frame.columns))}); name the verdict with passed='...' or the "
                    f"score with reward='...'"
                ),
                "passed",
                "reward",
            )
        frame["passed"] = decide(
            _numbers(frame["reward"], reward or "reward", where),
            threshold,
            where,
            field=reward or "reward",
        )
    else:
        if threshold is not None:
            raise with_keywords(
                ValueError(
                    f"{file}: threshold applies to a reward, and this file's verdicts are its "
                    "passed column; to decide from the reward instead, give reward='<column>'"
                ),
                "reward",
            )
        require_complete(frame, file, ["passed"], where)
    if "run" not in frame.columns:
        frame["run"] = frame.groupby([*groups, "task"], sort=False).cumcount().astype(np.int64)
    return frame


def load_table(
    file: Path, what: str, holds: str, ids: Sequence[str]
) -> tuple[pd.DataFrame, str, Callable[[int], str]]:
    """Read a CSV, JSON Lines or Parquet table, chosen by its suffix, refusing an empty one.

    Parameters
    ----------
    file : pathlib.Path
        The table.
    what : str
        What the file holds, for the messages (``"runs"``, ``"counts"``).
    holds : str
        What one row is, for the messages (``"one row per run"``).
    ids : sequence of str
        The file's columns read as ids (see :func:`read_runs`).

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
    UserWarning
        For a CSV or JSON Lines file that does not end with a line break.
    """
    kind = TABLE_SUFFIXES.get(file.suffix.lower())
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
            fast = _json_lines_by_pyarrow(file, ids)
            return _json_lines_by_pandas(file, ids) if fast is None else fast
        return pd.read_parquet(file)
    except ImportError as exc:
        raise ImportError(
            f"reading {file.name} needs pyarrow ({exc}): pip install 'passk-lab[parquet]'"
        ) from exc
    except (ValueError, TypeError, OSError, pd.errors.ParserError) as exc:
        if isinstance(exc, UnicodeDecodeError):
            read_text(file)  # refuses the file at its first byte that is not UTF-8
        where = _first_bad_line(file) if kind == "jsonl" else None
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


_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")
"""A JSON escape of a surrogate, which pandas' reader drops when it stands alone."""


def _json_lines_by_pandas(file: Path, ids: Sequence[str]) -> pd.DataFrame:
    r"""Read a JSON Lines file with pandas' own reader, which every refusal comes from.

    The columns named in `ids` keep the JSON values (no text is read as a
    number), in the dtype :func:`_json_lines_by_pyarrow` gives them. Where
    pandas' reader loses what was written -- it reads ``1`` as ``1.0`` in a
    column that holds ``1.5``, and drops a lone surrogate (``"a\ud800"``
    reads as ``"a"``) -- those columns are read again by Python's reader,
    which keeps both: ``1`` stays an integer, and ``"a\ud800"`` the text
    ``a\ud800``, as written (made encodable, the surrogate as its escape).
    Only a file whose ids are neither all text nor all integers, or that
    holds such an escape, pays for this.
    """
    frame = pd.read_json(
        file, lines=True, precise_float=True, dtype=dict.fromkeys(ids, object) or True
    )
    named = [name for name in ids if name in frame.columns]
    for name in named:
        frame[name] = _json_ids(frame[name])
    lost = [
        name
        for name in named
        if not (frame[name].dtype == np.int64 or isinstance(frame[name].dtype, pd.StringDtype))
    ]
    if named and not lost and _SURROGATE.search(file.read_bytes()):
        lost = named
    if lost:
        records = [json.loads(line) for _, line in _json_rows(file)]
        for name in lost:
            values = [_encodable_value(record.get(name)) for record in records]
            frame[name] = _json_ids(pd.Series(values, index=frame.index, dtype=object))
    return frame


def _encodable_value(value: object) -> object:
    """Return a JSON value with lone surrogates in its text as backslash escapes."""
    return encodable(value) if isinstance(value, str) else value


def _json_ids(values: pd.Series) -> pd.Series:
    """Give a column of JSON ids (dtype object) the dtype pyarrow's path gives it.

    Text is text and integers are int64; numbers with a gap, or nulls alone,
    are float64 (NaN for the gap: a missing id, which :func:`read_runs`
    refuses). Any other column (of several kinds, of
    numbers written with a fraction or an exponent, of booleans, of integers
    past int64) stays as it is, for :func:`check_json_ids` to refuse.
    """
    kind = pd.api.types.infer_dtype(values, skipna=True)
    if kind == "string":
        return values.astype("str")
    if kind in ("empty", "integer", "floating", "mixed-integer-float") and values.isna().any():
        return values.astype(np.float64)  # pandas' reader: a gap makes integers floats
    if kind == "integer":
        try:
            return values.astype(np.int64)
        except OverflowError:
            return values
    return values


_INT64_END = 2.0**63
"""From this size on pandas reads an integer as uint64 or refuses it; pyarrow reads a float."""

_INT64_MIN = -(2**63)
"""The smallest int64; with :data:`_INT64_END`, the integers an id column of int64 holds."""

_TINY = 1e-300
"""Below this size pandas refuses a number that underflows; pyarrow reads it (as 0 or as is)."""

_UNDERFLOW = re.compile(rb"[eE]-[0-9]{3}|0{200}")
"""A number literal that can underflow to 0 has an exponent of -100 or less, or 200 zeros."""


def _json_lines_by_pyarrow(file: Path, ids: Sequence[str]) -> pd.DataFrame | None:
    """Read a JSON Lines file with pyarrow's reader into the frame pandas' reader gives, or None.

    pyarrow parses the file and pandas' conversions follow: a column of whole
    floats becomes int64, a column of numeric text becomes numbers (but for
    the columns named in `ids`, which stay text), a boolean column with gaps
    becomes 1.0, 0.0 and NaN. None -- read the file with
    :func:`_json_lines_by_pandas`, the fallback -- when pyarrow (a dependency)
    cannot be imported or refuses the file, when the file is anything but one
    object a line (a BOM, a blank line, spaces around an object, two objects
    on a line, an object over two lines: pyarrow takes some that pandas
    refuses), and wherever the two readers part:
    text that is not UTF-8, a nested value, an integer past int64, a number that
    underflows, a column pandas reads as dates (named ``*_at``, ``*_time``,
    ``timestamp*``, ``date``, ...), column names it reads as numbers or dates,
    no column at all; and a column of `ids` that is neither text nor integers
    (a number written with a fraction or an exponent, a boolean), whose JSON
    values pandas' reader keeps for the refusal to name.
    """
    try:
        import pyarrow as pa  # type: ignore[import-untyped]
        import pyarrow.json as pa_json  # type: ignore[import-untyped]
    except ImportError:
        return None
    try:
        source = pa.memory_map(str(file))
    except OSError:
        return None
    with source:
        buffer = source.read_buffer()
        # checked before pyarrow reads it: pyarrow 26 crashes when a block of its own (the
        # first line, or a line further on) starts with `null`, and here every line starts "{"
        bounds = _line_bounds(np.frombuffer(buffer, np.uint8))
        if bounds is None:
            return None
        try:
            table = pa_json.read_json(pa.BufferReader(buffer))
            names: list[str] = table.column_names
        except (pa.ArrowException, UnicodeDecodeError):
            return None
        if table.num_rows != len(bounds) - 1 or not names or not _plain_names(names):
            return None
        stamps = [field.name for field in table.schema if pa.types.is_timestamp(field.type)]
        if stamps:  # pyarrow reads ISO dates as timestamps, pandas keeps the text
            schema = pa.schema([(name, pa.string()) for name in stamps])
            options = pa_json.ParseOptions(
                explicit_schema=schema, unexpected_field_behavior="infer"
            )
            try:
                table = pa_json.read_json(pa.BufferReader(buffer), parse_options=options)
            except pa.ArrowException:
                return None
            table = table.select(names)
        scalars = (pa.types.is_null, pa.types.is_boolean, pa.types.is_int64, pa.types.is_float64)
        id_kinds = (pa.types.is_null, pa.types.is_int64, pa.types.is_string)
        for name, column in zip(names, table.columns, strict=True):
            if name in ids and not any(is_kind(column.type) for is_kind in id_kinds):
                return None  # booleans, or numbers written as floats: pandas' reader tells which
            if pa.types.is_string(column.type):
                try:
                    column.validate(full=True)  # pyarrow lets bytes that are not UTF-8 through
                except pa.ArrowException:
                    return None
            elif not any(is_kind(column.type) for is_kind in scalars):
                return None
        frame: pd.DataFrame = table.to_pandas()
        zeros = [np.array([], dtype=np.int64)]
        for name, column in zip(names, table.columns, strict=True):
            values = frame[name]
            if pa.types.is_string(column.type):
                if name not in ids:
                    frame[name] = _numbers_as_pandas_reads_them(values)
                continue
            if pa.types.is_float64(column.type):
                size = np.abs(values.to_numpy())
                small = np.flatnonzero(size < _TINY)
                if (size >= _INT64_END).any() or size[small].any():
                    return None
                zeros.append(small)
            elif pa.types.is_null(column.type) or column.null_count:
                values = values.astype(np.float64)  # pandas' reader: NaN, and 1.0 for true
            if values.dtype == np.float64:
                frame[name] = _whole_as_int(values, values)
        if _underflows(memoryview(buffer), bounds, np.unique(np.concatenate(zeros))):
            return None
    return frame


_CHUNK = 1 << 18
"""Bytes of the file looked through for line breaks at a time."""

_NEWLINE, _RETURN, _OPEN, _CLOSE = (ord(mark) for mark in "\n\r{}")


def _line_bounds(text: np.ndarray) -> np.ndarray | None:
    r"""Return where each line of a JSON Lines file starts (and the last ends), one object a line.

    The file must start with ``{`` and end with ``}`` (and a line break at
    most), and each line break (``\n`` or ``\r\n``) stand between a ``}`` and
    a ``{``. In JSON those stand apart only between two top-level values, so
    every line holds one at least; that each holds one and no more, the count
    of rows tells. None otherwise.
    """
    end = len(text)
    for mark in (_NEWLINE, _RETURN):  # the last line's break
        if end and text[end - 1] == mark:
            end -= 1
    if not end or text[0] != _OPEN or text[end - 1] != _CLOSE:
        return None
    breaks = []
    found = np.empty(_CHUNK, dtype=bool)
    for start in range(0, end, _CHUNK):
        chunk = text[start : min(start + _CHUNK, end)]
        lines_end = np.flatnonzero(np.equal(chunk, _NEWLINE, out=found[: len(chunk)])) + start
        before = text[lines_end - 1]
        returns = before == _RETURN
        if returns.any():
            before = np.where(returns, text[lines_end - 2], before)
        if not ((before == _CLOSE) & (text[lines_end + 1] == _OPEN)).all():
            return None
        breaks.append(lines_end)
    return np.concatenate([[0], *(lines_end + 1 for lines_end in breaks), [end]])


def _underflows(text: memoryview, bounds: np.ndarray, rows: np.ndarray) -> bool:
    """Tell whether a number on one of these lines can be one that pandas refuses as too small."""
    lines = map(slice, bounds[rows].tolist(), bounds[rows + 1].tolist())
    return _UNDERFLOW.search(b"\n".join(map(text.__getitem__, lines))) is not None


def _plain_names(names: list[str]) -> bool:
    """Tell whether pandas' reader keeps these column names as text and reads no dates in them.

    Asks pandas' reader itself, of one record with these names and a date for
    every value: a column it reads as dates comes back as datetimes, names it
    converts come back changed.
    """
    record = json.dumps(dict.fromkeys(names, "2000-01-01T00:00:00"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        probe = pd.read_json(io.StringIO(record), lines=True)
    return probe.columns.tolist() == names and all(
        pd.api.types.is_string_dtype(dtype) for dtype in probe.dtypes
    )


def _numbers_as_pandas_reads_them(text: pd.Series) -> pd.Series:
    """Convert a text column as pandas' JSON reader does: to numbers when every value is one."""
    first = 0 if pd.notna(text.iloc[0]) else text.first_valid_index()
    try:
        # the conversion goes value by value, so a first value that fails fails the column
        text.loc[first:first].astype(np.float64)
        numbers = text.astype(np.float64)
    except (TypeError, ValueError):
        return text
    return _whole_as_int(text, numbers)


def _whole_as_int(original: pd.Series, numbers: pd.Series) -> pd.Series:
    """Return int64 where pandas' JSON reader makes a column int64: the cast changes nothing."""
    first = numbers.iloc[0] if len(numbers) else 0.0
    if np.isfinite(first) and first != np.trunc(first):
        return numbers  # the cast changes the first number, as it would in the whole column
    try:
        whole = original.astype(np.int64)
    except (TypeError, ValueError, OverflowError):
        return numbers
    return whole if (whole == numbers).all() else numbers


def _first_bad_line(file: Path) -> str | None:
    """Locate the first line of a JSON Lines file that is not a JSON object.

    Raises
    ------
    ValueError
        If the file is not UTF-8 text, or a line nests deeper than Python's
        JSON reader goes.
    """
    for number, line in enumerate(io.StringIO(read_text(file), newline=None), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            return f"{file}, line {number}, column {exc.colno}"
        except RecursionError:
            raise ValueError(
                f"{file}, line {number}: nested too deeply to read (lists or objects inside one "
                f"another past Python's recursion limit, {sys.getrecursionlimit()}); a run's "
                f"record is one flat object"
            ) from None
        if not isinstance(record, dict):
            return f"{file}, line {number}"
    return None


def _renamed(frame: pd.DataFrame, file: Path, **columns: str | None) -> pd.DataFrame:
    if columns["passed"] is not None and columns["reward"] is not None:
        raise with_keywords(
            ValueError(
                "give passed= (the file's verdict column) or reward= (its score column), not both"
            ),
            "passed",
            "reward",
        )
    names = {given: own for own, given in columns.items() if given is not None and given != own}
    for given, own in names.items():
        if given not in frame.columns:
            raise with_keywords(
                ValueError(
                    f"{file}: no column {given!r} (given as {own}=); its columns are "
                    f"{list(map(str, frame.columns))}"
                ),
                own,
            )
        if own in frame.columns:
            raise with_keywords(
                ValueError(
                    f"{file}: has both a {own!r} column and {given!r} (given as {own}=); "
                    f"rename one of them in the file, or name {own!r} itself"
                ),
                own,
            )
    renamed = frame.rename(columns=names)
    if columns["reward"] is not None:
        renamed = renamed.drop(columns="passed", errors="ignore")
    return renamed


def require_complete(
    frame: pd.DataFrame,
    file: Path,
    columns: list[str],
    where: Callable[[int], str],
    needs: str = "every run needs one",
) -> None:
    """Refuse a table lacking one of `columns` or a value in one; `needs` ends the message."""
    for column in columns:
        if column not in frame.columns:
            own = column in ("task", "run")
            raise with_keywords(
                ValueError(
                    f"{file}: no {column} column (its columns are "
                    f"{list(map(str, frame.columns))}); "
                    f"name it with {column}='...'"
                    if own
                    else f"{file}: no {column!r} column, named in by"
                ),
                column if own else "by",
            )
        if frame[column].hasnans:  # cheap, and false for an integer column
            missing = frame[column].isna().to_numpy()
            row = int(np.flatnonzero(missing)[0])
            raise ValueError(
                f"{where(row)}: {column} is missing ({int(missing.sum())} row(s) have "
                f"none); {needs}"
            )


def check_json_ids(ids: pd.Series, name: str, where: Callable[[int], str]) -> None:
    """Refuse ids of a JSON Lines file that two spellings of one id would split or merge.

    A JSON id is text (as written) or an integer: not a number written with a
    fraction or an exponent (``1.1`` and ``1.10`` are one number, ``1.0`` and
    ``1`` too), not a boolean, and not a mix of kinds in one file (``1`` and
    ``"1"`` would be two tasks).
    """
    if ids.dtype != object:  # text or int64, as :func:`_json_ids` gives them
        return
    kinds = ids.map(json_kind)
    plain = kinds.isin(("text", "an integer")).to_numpy()
    if not plain.all():
        row = int(np.argmin(plain))
        raise ValueError(
            f"{where(row)}: {name} is {_value(ids, row)!r}, {kinds.iloc[row]}; as JSON numbers "
            f"1.1 and 1.10 are one id, 1.0 and 1 too, and a boolean is no id: write ids as "
            f'strings ("1.1") or as integers'
        )
    other = np.flatnonzero((kinds != kinds.iloc[0]).to_numpy())
    if not other.size:  # integers alone, some past int64
        row = int(np.argmax(ids.map(lambda value: not _INT64_MIN <= value < _INT64_END)))
        raise ValueError(
            f"{where(row)}: {name} is {_value(ids, row)!r}, an integer too large for int64; "
            f"write such ids as JSON strings"
        )
    row = int(other[0])
    first = where(0).rsplit(", ", 1)[1]  # "line 1"
    raise ValueError(
        f"{where(row)}: {name} is {_value(ids, row)!r}, {kinds.iloc[row]}, but on "
        f"{first} it is {_value(ids, 0)!r}, {kinds.iloc[0]}; ids of two "
        f'kinds would split one id in two (1 and "1"): write ids as strings or as integers, '
        f"one kind in the file"
    )


def _value(column: pd.Series, row: int) -> object:
    """Return a column's value in `row` as Python holds it (``1.5``, not ``np.float64(1.5)``)."""
    return column.iloc[row : row + 1].tolist()[0]


def _numbers(column: pd.Series, field: str, where: Callable[[int], str]) -> pd.Series:
    numbers = pd.to_numeric(column, errors="coerce")
    unreadable = (numbers.isna() & column.notna()).to_numpy()
    if unreadable.any():
        row = int(np.flatnonzero(unreadable)[0])
        raise with_keywords(
            ValueError(
                f"{where(row)}: {field} is {column.iloc[row]!r}, not a number; "
                f"a reward must be a number (give passed= for a column of verdicts)"
            ),
            "passed",
        )
    return numbers


def _locator(file: Path, kind: str) -> Callable[[int], str]:
    """Return how messages name a row of the table read from `file` (0 the first).

    A JSON Lines message names the line of the file (1 the first); a CSV
    message the row of the table (0 the first, below the header) and its
    line; a Parquet message the row.
    """
    if kind == "parquet":
        return lambda row: f"{file}, row {row}"
    lines = functools.cache(lambda: (_csv_lines if kind == "csv" else _json_lines)(file))
    if kind == "csv":
        return lambda row: f"{file}, row {row} (line {lines()[row]})"
    return lambda row: f"{file}, line {lines()[row]}"


def _json_lines(file: Path) -> list[int]:
    """Return the line (1 the first) of each row of a JSON Lines file."""
    return [number for number, _ in _json_rows(file)]


def _json_rows(file: Path) -> list[tuple[int, str]]:
    """Return the lines of a JSON Lines file that pandas' reader reads, with their numbers.

    pandas' reader skips a blank line, or one of spaces.
    """
    lines = read_text(file).split("\n")
    return [(number, line) for number, line in enumerate(lines, start=1) if line.strip()]


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
