"""The checks every reader makes of a file before and while reading it: ValueErrors naming it.

The readers of :mod:`passk_lab.io` use them, and so does the ledger
(:mod:`passk_lab.harness._ledger`): :func:`check_regular` before
:func:`passk_lab.read_ledger` reads a ledger and before an evaluation opens
one to append to (a FIFO would block either for ever, a device never end a
read), and :func:`not_utf8` for a ledger whose bytes are not UTF-8.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

__all__ = ["check_regular", "encodable", "ends_with_line_break", "not_utf8", "read_text"]

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def check_regular(file: Path, what: str = "results file") -> int:
    """Refuse a path that is not a regular file, before anything opens it; return its size.

    Opening a FIFO (or a terminal, a socket) for reading waits for a writer,
    so a reader would hang on one; a directory, a symbolic link that loops or
    a file the user may not read fails when it is opened.

    Raises
    ------
    FileNotFoundError
        If there is no such file (or a symbolic link points at none).
    ValueError
        If the path is not a regular file, or cannot be looked at (a loop of
        symbolic links, a folder on the way the user may not enter).

    Examples
    --------
    >>> check_regular(Path("/dev/null"))
    Traceback (most recent call last):
    ...
    ValueError: /dev/null: not a regular file (a character device); give a results file
    """
    try:
        status = os.stat(file)
    except FileNotFoundError:
        raise FileNotFoundError(f"no such {what}: {file}") from None
    except OSError as exc:  # ELOOP, EACCES on a folder on the way, ENAMETOOLONG, ...
        raise ValueError(f"{file}: cannot be read ({exc.strerror}); give a {what}") from None
    if not stat.S_ISREG(status.st_mode):
        kind = next((name for is_kind, name in _KINDS if is_kind(status.st_mode)), "not a file")
        raise ValueError(f"{file}: not a regular file ({kind}); give a {what}")
    if not os.access(file, os.R_OK, effective_ids=os.access in os.supports_effective_ids):
        raise ValueError(f"{file}: cannot be read (Permission denied); make it readable")
    return status.st_size


def not_utf8(file: Path, data: bytes, error: UnicodeDecodeError) -> ValueError:
    r"""Return the refusal of a file whose bytes are not UTF-8 text, at the first bad byte.

    Examples
    --------
    >>> data = b"task\ncaf\xe9\n"
    >>> try:
    ...     data.decode("utf-8")
    ... except UnicodeDecodeError as error:
    ...     print(not_utf8(Path("runs.csv"), data, error))
    runs.csv: not UTF-8 text at byte 8 (line 2); save the file as UTF-8
    """
    line = data.count(b"\n", 0, error.start) + 1
    return ValueError(
        f"{file}: not UTF-8 text at byte {error.start} (line {line}); save the file as UTF-8"
    )


def read_text(file: Path) -> str:
    r"""Return a file's text, decoded as UTF-8, refusing bytes that are not as a ValueError.

    Raises
    ------
    ValueError
        If the file cannot be read, or is not UTF-8 (naming the first bad byte and its line).

    Examples
    --------
    >>> import tempfile
    >>> file = Path(tempfile.mkdtemp()) / "runs.csv"
    >>> _ = file.write_bytes(b"task\ncaf\xe9\n")
    >>> read_text(file)
    Traceback (most recent call last):
    ...
    ValueError: ...runs.csv: not UTF-8 text at byte 8 (line 2); save the file as UTF-8
    """
    try:
        data = file.read_bytes()
    except OSError as exc:
        raise ValueError(f"{file}: cannot be read ({exc.strerror})") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise not_utf8(file, data, error) from None


def ends_with_line_break(file: Path, size: int) -> bool:
    r"""Tell whether a file of `size` bytes ends with a line break (an empty one does not).

    Examples
    --------
    >>> import tempfile
    >>> file = Path(tempfile.mkdtemp()) / "runs.csv"
    >>> _ = file.write_bytes(b"task\na")
    >>> ends_with_line_break(file, 6), ends_with_line_break(file, 5)
    (False, True)
    """
    if not size:
        return False
    with file.open("rb") as data:
        data.seek(size - 1)
        return data.read(1) in (b"\n", b"\r")


def encodable(text: str) -> str:
    r"""Return `text` as it can be encoded in UTF-8: lone surrogates as backslash escapes.

    Examples
    --------
    >>> encodable("caf\u00e9"), encodable("report-\udcff.txt")
    ('café', 'report-\\udcff.txt')
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text
