"""The JSON files of the readers of per-run records: finding them, and loading one.

:func:`result_files` turns a path, a folder, a glob or a list into the files a reader reads,
each checked to be a regular file; :func:`load_json` reads one, refusing a file that is not
JSON (or is cut short) and, when asked, a value of the wrong kind, with the file named.
"""

from __future__ import annotations

import glob
import json
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from passk_lab._files import check_regular, read_text
from passk_lab.io._records import array, mapping

__all__ = ["load_json", "result_files"]

_GLOB = re.compile(r"[*?\[]")


def result_files(
    path: str | Path | Sequence[str | Path], what: str, *, within: str | None = None
) -> list[Path]:
    """Return the files `path` names, each checked to be a regular file one may read.

    Parameters
    ----------
    path : str, pathlib.Path or sequence of them
        One file, a directory (its ``.json`` files, sorted by name), a glob pattern
        (``"results/*-airline.json"``, sorted) or a list of files (in its order).
    what : str
        What a file is, for the messages (``"tau-bench results file"``).
    within : str, optional
        For a directory, the pattern of the files read in it and every folder
        below it (``"*_UPLOAD.json"``, sorted by path), in place of its own
        ``.json`` files.

    Raises
    ------
    FileNotFoundError
        If no file matches, or a directory holds no such file.
    ValueError
        If the list is empty, or a file is not a regular file one may read.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> for name in ("b.json", "a.json"):
    ...     _ = (folder / name).write_text("[]")
    >>> [file.name for file in result_files(folder, "results file")]
    ['a.json', 'b.json']
    >>> result_files(folder / "*-retail.json", "tau-bench results file")
    Traceback (most recent call last):
    ...
    FileNotFoundError: no tau-bench results file matches '...*-retail.json'
    """
    # os.path.isdir and os.path.exists answer False for a path they may not look at (where
    # Path.is_dir raises), so that check_regular names the file and why it cannot be read
    if isinstance(path, str | Path):
        text = str(path)
        single = Path(path)
        if _GLOB.search(text) and not os.path.exists(text):
            candidates = [Path(match) for match in sorted(glob.glob(text))]
            if not candidates:
                raise FileNotFoundError(f"no {what} matches {text!r}")
        elif os.path.isdir(single) and within is not None:
            candidates = sorted(single.rglob(within))
            if not candidates:
                raise FileNotFoundError(f"no {what} ({within}) under the directory {single}")
        elif os.path.isdir(single):
            candidates = sorted(single.glob("*.json"))
            if not candidates:
                raise FileNotFoundError(f"no .json {what} in the directory {single}")
        else:
            candidates = [single]
    else:
        candidates = [Path(item) for item in path]
        if not candidates:
            raise ValueError(f"no {what} given: pass a path, a glob or a list")
    for file in candidates:
        check_regular(file, what)
    return candidates


def load_json(
    file: Path,
    what: str,
    *,
    kind: type[dict[str, Any]] | type[list[Any]] | None = None,
    unique_keys: bool = False,
) -> Any:
    """Return the JSON value a file holds, refusing a file that is not one as a ValueError.

    Parameters
    ----------
    file : pathlib.Path
        The file, checked to be a regular file one may read.
    what : str
        What the file should be, for the messages (``"a tau2-bench results file is a JSON
        object"``).
    kind : dict or list, optional
        The kind of value the file must hold: a JSON object (``dict``) or a list; another is
        refused as a field is (:func:`passk_lab.io._records.mapping`), the field being
        ``the file``.
    unique_keys : bool
        Refuse an object that writes a key twice, which plain JSON reading settles by keeping
        the last value (a task's runs written twice would lose the first copy). Parsing then
        costs more, so it is for files whose objects are keyed by task.

    Raises
    ------
    ValueError
        If the file is not a regular file, cannot be read, is not UTF-8, is not JSON (a file
        cut short while it was written is said to be so), nests past the recursion limit or
        holds a value of another kind than `kind`.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> file = pathlib.Path(tempfile.mkdtemp()) / "results.json"
    >>> _ = file.write_text('{"simulations": [1, 2')
    >>> load_json(file, "a results file is a JSON object")
    Traceback (most recent call last):
    ...
    ValueError: ...results.json: not valid JSON at line 1, column 22: the file ends early (cut ...
    """
    check_regular(file)
    text = read_text(file)
    try:
        value = json.loads(text, object_pairs_hook=_unique if unique_keys else None)
    except _RepeatedKey as repeated:
        raise ValueError(
            f"{file}: the key {repeated.key!r} appears twice in one object, and JSON readers keep "
            f"only its last value; {what}: merge the two entries or rename one"
        ) from None
    except RecursionError:
        raise ValueError(
            f"{file}: nested too deeply to read (lists or objects inside one another past "
            f"Python's recursion limit, {sys.getrecursionlimit()}); {what}"
        ) from None
    except json.JSONDecodeError as exc:
        body = text.strip()
        closing = {"[": "]", "{": "}"}.get(body[:1])
        cut = closing is not None and body[-1:] != closing
        reason = "the file ends early (cut short while it was written?)" if cut else exc.msg
        raise ValueError(
            f"{file}: not valid JSON at line {exc.lineno}, column {exc.colno}: {reason}; {what}"
        ) from None
    if kind is dict:
        return mapping(value, str(file), "the file", what)
    if kind is list:
        return array(value, str(file), "the file", what)
    return value


class _RepeatedKey(Exception):
    """Raised by :func:`_unique` for a key an object writes twice."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """Return an object's pairs as a dict, raising :class:`_RepeatedKey` for a repeated key."""
    result = dict(pairs)
    if len(result) < len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _RepeatedKey(key)
            seen.add(key)
    return result
