"""JSON Lines tables, read into the frame pandas' reader gives: by pyarrow's reader where it can.

:func:`read_json_lines` is the one reader of a JSON Lines table (:func:`~passk_lab.io.read_runs`
and :func:`~passk_lab.io.read_counts` load theirs with it). pyarrow's parser reads a file of one
object a line and plain values; pandas' reader reads, or refuses, the files whose frame pyarrow's
would not match (docs/reading.md, "How a JSON Lines table is read", lists them and says why).
:func:`check_json_ids` then refuses ids that two spellings would split or merge.
"""

from __future__ import annotations

import io
import json
import re
import sys
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from passk_lab._files import encodable, read_text
from passk_lab.io._records import json_kind

__all__ = ["check_json_ids", "first_bad_line", "json_line_numbers", "read_json_lines"]


def read_json_lines(file: Path, ids: Sequence[str]) -> pd.DataFrame:
    r"""Read a JSON Lines table into the frame pandas' reader gives, the columns `ids` as ids.

    Parameters
    ----------
    file : pathlib.Path
        A file of one JSON object a line.
    ids : sequence of str
        The columns read as ids: their JSON values as written, text as text
        (``"007"`` stays ``"007"``) and integers as int64; a column of any
        other kind keeps its values for :func:`check_json_ids` to refuse.

    Returns
    -------
    DataFrame
        One row per line (blank lines skipped), the other columns as
        ``pandas.read_json(file, lines=True)`` reads them.

    Raises
    ------
    ValueError
        If pandas' reader refuses the file (a line that is not an object,
        text that is not UTF-8, a number that underflows).
    ImportError
        If pyarrow, a dependency of passk_lab, is not installed.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> file = pathlib.Path(tempfile.mkdtemp()) / "runs.jsonl"
    >>> _ = file.write_text('{"task": "007", "reward": 1.0}\n{"task": "7", "reward": 0.5}\n')
    >>> read_json_lines(file, ["task"])
      task  reward
    0  007     1.0
    1    7     0.5
    """
    fast = _read_by_pyarrow(file, ids)
    return _read_by_pandas(file, ids) if fast is None else fast


# --- pandas' reader ----------------------------------------------------------------------------

_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")
"""A JSON escape of a surrogate, which pandas' reader drops when it stands alone."""


def _read_by_pandas(file: Path, ids: Sequence[str]) -> pd.DataFrame:
    r"""Read a JSON Lines file with pandas' own reader, which every refusal comes from.

    The columns named in `ids` keep the JSON values (no text is read as a
    number), in the dtype :func:`_read_by_pyarrow` gives them. Where pandas'
    reader loses what was written -- it reads ``1`` as ``1.0`` in a column
    that holds ``1.5``, and drops a lone surrogate (``"a\ud800"`` reads as
    ``"a"``) -- those columns are read again by Python's reader, which keeps
    both: ``1`` stays an integer, and ``"a\ud800"`` the text ``a\ud800``, as
    written (made encodable, the surrogate as its escape). Only a file whose
    ids are neither all text nor all integers, or that holds such an escape,
    pays for this.
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
    are float64 (NaN for the gap: a missing id, which the readers refuse).
    Any other column (of several kinds, of numbers written with a fraction or
    an exponent, of booleans, of integers past int64) stays as it is, for
    :func:`check_json_ids` to refuse.
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


# --- pyarrow's reader --------------------------------------------------------------------------

_INT64_END = 2.0**63
"""From this size on pandas reads an integer as uint64 or refuses it; pyarrow reads a float."""

_INT64_MIN = -(2**63)
"""The smallest int64; with :data:`_INT64_END`, the integers an id column of int64 holds."""

_TINY = 1e-300
"""Below this size pandas refuses a number that underflows; pyarrow reads it (as 0 or as is)."""

_UNDERFLOW = (re.compile(rb"e-[0-9]{3}"), re.compile(rb"E-[0-9]{3}"), re.compile(b"0" * 200))
"""A number literal that can underflow to 0 has an exponent of -100 or less, or 200 zeros
(each pattern starts with a literal, which the regular expression engine looks for quickly)."""


def _read_by_pyarrow(file: Path, ids: Sequence[str]) -> pd.DataFrame | None:
    """Read a JSON Lines file with pyarrow's reader into the frame pandas' reader gives, or None.

    pyarrow parses the file and pandas' conversions follow: a column of whole
    floats becomes int64, a column of numeric text becomes numbers (but for
    the columns named in `ids`, which stay text), a boolean column with gaps
    becomes 1.0, 0.0 and NaN. None -- :func:`_read_by_pandas` reads the file
    -- when pyarrow refuses the file, when the file is anything but one
    object a line, and wherever the two readers part (docs/reading.md, "How a
    JSON Lines table is read").
    """
    import pyarrow as pa  # type: ignore[import-untyped]

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
        table = _arrow_table(buffer, len(bounds) - 1, ids)
        if table is None:
            return None
        frame: pd.DataFrame = table.to_pandas()
        small = _as_pandas_reads(frame, table, ids)
        if small is None or _underflows(memoryview(buffer), bounds, small):
            return None
    return frame


def _arrow_table(buffer: Any, rows: int, ids: Sequence[str]) -> Any:
    """Return pyarrow's table of a file of `rows` lines, or None where pandas' would differ.

    None when pyarrow refuses the file, reads another number of rows, names
    no column or columns pandas' reader would rename or read as dates, or a
    column holds anything but plain values (a column of `ids` anything but
    text or integers).
    """
    import pyarrow as pa
    import pyarrow.json as pa_json  # type: ignore[import-untyped]

    try:
        table = pa_json.read_json(pa.BufferReader(buffer))
        names: list[str] = table.column_names  # decodes them: a name may not be UTF-8
    except (pa.ArrowException, UnicodeDecodeError):
        return None
    if table.num_rows != rows or not names or not _plain_names(names):
        return None
    stamps = [field.name for field in table.schema if pa.types.is_timestamp(field.type)]
    if stamps:  # pyarrow reads ISO dates as timestamps, pandas keeps the text
        schema = pa.schema([(name, pa.string()) for name in stamps])
        options = pa_json.ParseOptions(explicit_schema=schema, unexpected_field_behavior="infer")
        try:
            table = pa_json.read_json(pa.BufferReader(buffer), parse_options=options)
        except pa.ArrowException:
            return None
        table = table.select(names)
    plain = all(
        _is_plain(column, name in ids) for name, column in zip(names, table.columns, strict=True)
    )
    return table if plain else None


def _is_plain(column: Any, is_id: bool) -> bool:
    """Tell a column pandas' reader reads as pyarrow's does: plain values, UTF-8 text."""
    import pyarrow as pa

    kind = column.type
    ids = (pa.types.is_null, pa.types.is_int64, pa.types.is_string)
    if is_id and not any(is_kind(kind) for is_kind in ids):
        return False  # booleans, or numbers written as floats: pandas' reader tells which
    if pa.types.is_string(kind):
        try:
            column.validate(full=True)  # pyarrow lets bytes that are not UTF-8 through
        except pa.ArrowException:
            return False
        return True
    scalars = (pa.types.is_null, pa.types.is_boolean, pa.types.is_int64, pa.types.is_float64)
    return any(is_kind(kind) for is_kind in scalars)


def _as_pandas_reads(frame: pd.DataFrame, table: Any, ids: Sequence[str]) -> np.ndarray | None:
    """Convert pyarrow's frame as pandas' reader converts its columns; return the tiny numbers.

    Returns the rows holding a number below 1e-300 in size (0 included),
    whose line :func:`_underflows` looks at; None for a number pandas' reader
    reads otherwise (past int64, or tiny but not 0).
    """
    import pyarrow as pa

    tiny = [np.array([], dtype=np.int64)]
    for name, column in zip(table.column_names, table.columns, strict=True):
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
            tiny.append(small)
        elif pa.types.is_null(column.type) or column.null_count:
            values = values.astype(np.float64)  # pandas' reader: NaN, and 1.0 for true
        if values.dtype == np.float64:
            frame[name] = _whole_as_int(values, values)
    return np.unique(np.concatenate(tiny))


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
    if not rows.size:
        return False
    marks = [match.start() for pattern in _UNDERFLOW for match in pattern.finditer(text)]
    lines = np.searchsorted(bounds, np.asarray(marks, dtype=np.int64), side="right") - 1
    return bool(np.isin(lines, rows).any())


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


# --- the lines of the file ----------------------------------------------------------------------


def first_bad_line(file: Path) -> str | None:
    r"""Locate the first line of a JSON Lines file that is not a JSON object.

    Returns
    -------
    str or None
        ``"<file>, line <n>, column <c>"`` for a line that is not JSON,
        ``"<file>, line <n>"`` for a JSON value that is no object; None when
        every line is an object.

    Raises
    ------
    ValueError
        If the file is not UTF-8 text, or a line nests deeper than Python's
        JSON reader goes.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> file = pathlib.Path(tempfile.mkdtemp()) / "runs.jsonl"
    >>> _ = file.write_text('{"task": 1}\n\n[1, 2]\n')
    >>> first_bad_line(file).endswith("runs.jsonl, line 3")
    True
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


def json_line_numbers(file: Path) -> list[int]:
    r"""Return the line (1 the first) of each row of a JSON Lines file: blank lines are skipped.

    Examples
    --------
    >>> import tempfile
    >>> file = Path(tempfile.mkdtemp()) / "runs.jsonl"
    >>> _ = file.write_text('{"task": 1}\n\n  \n{"task": 2}\n')
    >>> json_line_numbers(file)
    [1, 4]
    """
    return [number for number, _ in _json_rows(file)]


def _json_rows(file: Path) -> list[tuple[int, str]]:
    """Return the lines of a JSON Lines file that pandas' reader reads, with their numbers.

    pandas' reader skips a blank line, or one of spaces.
    """
    lines = read_text(file).split("\n")
    return [(number, line) for number, line in enumerate(lines, start=1) if line.strip()]


# --- the ids -----------------------------------------------------------------------------------


def check_json_ids(ids: pd.Series, name: str, where: Callable[[int], str]) -> None:
    """Refuse ids of a JSON Lines file that two spellings of one id would split or merge.

    A JSON id is text (as written) or an integer: not a number written with a
    fraction or an exponent (``1.1`` and ``1.10`` are one number, ``1.0`` and
    ``1`` too), not a boolean, and not a mix of kinds in one file (``1`` and
    ``"1"`` would be two tasks).

    Parameters
    ----------
    ids : Series
        A column as :func:`read_json_lines` gives it.
    name : str
        The column's name, for the messages.
    where : callable
        Maps a row to the words that locate it (``"runs.jsonl, line 3"``).

    Raises
    ------
    ValueError
        Naming the line, the id and its kind.

    Examples
    --------
    >>> check_json_ids(pd.Series(["a", "b"]).astype("str"), "task", "line {}".format)
    >>> def where(row):
    ...     return f"runs.jsonl, line {row + 1}"
    >>> check_json_ids(pd.Series([1, 1.5], dtype=object), "task", where)
    Traceback (most recent call last):
    ...
    ValueError: runs.jsonl, line 2: task is 1.5, a number with a fraction or an exponent; ...
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
