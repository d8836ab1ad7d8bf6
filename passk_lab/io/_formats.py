"""The formats :func:`read` knows, in one table: each one's name, reader, options and sniff.

Each format is a :class:`Format` row of :data:`REGISTRY`. :func:`detect_format`
asks the rows in order whether a file is theirs, :func:`read` calls the
chosen row's reader, and :data:`FORMATS` (from :mod:`passk_lab._choices`, which
the command line reads without importing a reader) names the rows; a new
reader is its own module, one row here and its name there.
"""

from __future__ import annotations

import inspect
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from passk_lab._choices import FORMATS
from passk_lab._errors import with_keywords
from passk_lab._files import check_regular
from passk_lab.harness import read_ledger
from passk_lab.harness._ledger_format import FORMAT as LEDGER_FORMAT
from passk_lab.io._counts import is_counts, read_counts
from passk_lab.io._hal import is_hal, read_hal
from passk_lab.io._harbor import read_harbor
from passk_lab.io._harbor_jobs import is_harbor
from passk_lab.io._inspect_logs import read_inspect_log
from passk_lab.io._lm_eval import is_lm_eval, read_lm_eval
from passk_lab.io._samples import is_samples, read_samples
from passk_lab.io._table_files import TABLE_SUFFIXES
from passk_lab.io._tables import read_runs
from passk_lab.io._tau2 import is_tau2, read_tau2
from passk_lab.io._tau_bench import read_tau_bench

__all__ = ["FORMATS", "REGISTRY", "Format", "detect_format", "read"]


@dataclass(frozen=True)
class Format:
    """One format :func:`read` knows: its name, its reader and how to tell its files.

    Parameters
    ----------
    name : str
        The name ``format=`` (``--format`` on the command line) gives it.
    reader : callable
        ``reader(path, **options)``, returning a runs table.
    sniff : callable
        ``sniff(path)``, for a path that exists (a file or a directory):
        whether it is in this format, told from its shape -- its suffix, its
        first character, its first line, what a directory holds -- without
        reading all of it.

    Attributes
    ----------
    options : tuple of str
        The options :func:`read` passes on: the reader's keyword-only
        parameters, in the order of its signature.

    Examples
    --------
    >>> import pathlib
    >>> row = Format("table", read_runs, lambda path: path.suffix == ".csv")
    >>> row.options
    ('by', 'task', 'run', 'passed', 'reward', 'threshold')
    >>> row.sniff(pathlib.Path("runs.csv"))
    True
    """

    name: str
    reader: Callable[..., pd.DataFrame]
    sniff: Callable[[Path], bool]

    @property
    def options(self) -> tuple[str, ...]:
        """The reader's keyword-only parameters."""
        parameters = inspect.signature(self.reader).parameters.values()
        return tuple(
            parameter.name
            for parameter in parameters
            if parameter.kind is inspect.Parameter.KEYWORD_ONLY
        )


def _suffix(path: Path) -> str:
    """Return the suffix of a file's name in lower case; a directory has none."""
    return "" if os.path.isdir(path) else path.suffix.lower()


def _first_character(path: Path) -> str:
    """Return a file's first character after any whitespace ("" for a blank start)."""
    with path.open(encoding="utf-8", errors="replace") as text:
        return text.read(4096).lstrip()[:1]


def _is_tau_bench(path: Path) -> bool:
    """Tell a tau-bench results file: a ``.json`` file holding a list."""
    return _suffix(path) == ".json" and _first_character(path) == "["


_INSPECT_JSON = re.compile(r'\A\s*\{\s*"version"\s*:|"eval"\s*:\s*\{')


def _is_inspect(path: Path) -> bool:
    """Tell Inspect logs: a ``.eval`` file, a directory of them, or an Inspect ``.json`` log.

    A ``.json`` log is an object that opens with Inspect's ``"version"`` (or holds an
    ``"eval"`` object) in its first 4 KB.
    """
    if os.path.isdir(path):
        return next(path.rglob("*.eval"), None) is not None
    suffix = _suffix(path)
    if suffix != ".json":
        return suffix == ".eval"
    with path.open(encoding="utf-8", errors="replace") as text:
        return _INSPECT_JSON.search(text.read(4096)) is not None


def _is_ledger(path: Path) -> bool:
    """Tell a ledger: a JSON Lines file whose first line is a ledger's header."""
    if _suffix(path) not in (".jsonl", ".ndjson"):
        return False
    with path.open(encoding="utf-8", errors="replace") as text:
        first = text.readline()
    try:
        header = json.loads(first)
    except (json.JSONDecodeError, RecursionError):
        return False
    return isinstance(header, dict) and header.get("format") == LEDGER_FORMAT


def _is_table(path: Path) -> bool:
    """Tell a runs table: a CSV, JSON Lines or Parquet file of no other format's shape."""
    return _suffix(path) in TABLE_SUFFIXES and not any(
        sniff(path) for sniff in (is_lm_eval, is_counts, _is_ledger)
    )


def _read_ledger_runs(path: str | Path) -> pd.DataFrame:
    """Return the runs of a ledger, as :func:`passk_lab.read_ledger` reads them."""
    return read_ledger(path).runs


_READERS: dict[str, tuple[Callable[..., pd.DataFrame], Callable[[Path], bool]]] = {
    "tau-bench": (read_tau_bench, _is_tau_bench),
    "tau2": (read_tau2, is_tau2),
    "harbor": (read_harbor, is_harbor),
    "hal": (read_hal, is_hal),
    "samples": (read_samples, is_samples),
    "lm-eval": (read_lm_eval, is_lm_eval),
    "inspect": (read_inspect_log, _is_inspect),
    "counts": (read_counts, is_counts),
    "table": (read_runs, _is_table),
    "ledger": (_read_ledger_runs, _is_ledger),
}

REGISTRY: tuple[Format, ...] = tuple(Format(name, *_READERS[name]) for name in FORMATS)
"""Every format :func:`read` knows, in the order :func:`detect_format` asks them: the order of
:data:`FORMATS`, the names the command line offers without importing a reader."""


def detect_format(path: str | Path) -> str:
    """Tell which format a results file (or directory) is in.

    Each format of :data:`~passk_lab.io.FORMATS` is asked in turn, and the first whose sniff
    recognises the path's shape names it: its suffix, its first bytes or line
    (a tau-bench list, a tau2-bench ``Results``, a Harbor or HAL result, a
    verdict list, an lm-evaluation-harness line, an Inspect log, a ledger's
    header), a table's columns (counts have ``n`` and ``c``), what a folder
    holds. A folder none of them claims takes the format of its first
    ``.json`` file. docs/reading.md tabulates each format's sniff.

    Parameters
    ----------
    path : str or pathlib.Path
        The file or directory.

    Returns
    -------
    str
        The first of :data:`FORMATS` whose sniff recognises the path.

    Raises
    ------
    FileNotFoundError
        If there is no such file or directory.
    ValueError
        If the format cannot be told (the message says how to name it), or
        the path is not a regular file (a FIFO, a device) nor a directory.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "gpt-4o-airline.json").write_text('[{"task_id": 0}]')
    >>> detect_format(folder / "gpt-4o-airline.json")
    'tau-bench'
    >>> detect_format(folder)
    'tau-bench'
    >>> detect_format(folder / "runs.csv")
    Traceback (most recent call last):
    ...
    FileNotFoundError: no such results file or directory: ...runs.csv
    """
    source = Path(path)
    if not os.path.lexists(source):
        raise FileNotFoundError(f"no such results file or directory: {source}")
    if not os.path.isdir(source):
        check_regular(source)  # before a sniff opens it: a FIFO would block it
    for row in REGISTRY:
        if row.sniff(source):
            return row.name
    if os.path.isdir(source):
        first = min(source.glob("*.json"), default=None)
        if first is None:
            raise ValueError(
                f"{source}: a directory with no .eval or .json file; give a results file"
            )
        return detect_format(first)
    raise with_keywords(
        ValueError(
            f"cannot tell the format of {source.name}: name it with format=, one of "
            f"{', '.join(row.name for row in REGISTRY)}"
        ),
        "format",
    )


def read(path: str | Path, *, format: str = "auto", **options: Any) -> pd.DataFrame:
    """Read runs from any format passk_lab knows, detected unless named.

    Parameters
    ----------
    path : str or pathlib.Path
        A results file or directory.
    format : str
        One of :data:`FORMATS`, or ``"auto"`` (the default) to use
        :func:`detect_format`.
    **options
        Passed to the format's reader, which takes its keyword-only
        parameters: one of the readers of :mod:`passk_lab.io`, such as
        :func:`~passk_lab.io.read_tau2` or :func:`~passk_lab.io.read_runs`
        (a ledger, read by :func:`passk_lab.read_ledger`, takes none).

    Returns
    -------
    DataFrame
        The runs, as that reader returns them.

    Raises
    ------
    ValueError
        If the format is unknown or cannot be detected, or the reader refuses
        the file.
    TypeError
        If an option does not apply to the format.

    Examples
    --------
    >>> import json, tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> record = {"task_id": 7, "trial": 0, "reward": 1.0, "info": {"reward_info": {}}}
    >>> _ = (folder / "results.json").write_text(json.dumps([record]))
    >>> read(folder / "results.json")[["task", "run", "passed", "file"]]
       task  run  passed          file
    0     7    0    True  results.json
    >>> read(folder / "results.json", scorer="match")
    Traceback (most recent call last):
    ...
    TypeError: not an option for tau-bench files: scorer (tau-bench files take model, domain)
    """
    rows = {row.name: row for row in REGISTRY}
    if format != "auto" and format not in rows:
        raise ValueError(f"unknown format {format!r}: use auto, {', '.join(rows)}")
    row = rows[detect_format(path) if format == "auto" else format]
    unexpected = sorted(set(options) - set(row.options))
    if unexpected:
        raise TypeError(
            f"not an option for {row.name} files: {', '.join(unexpected)} "
            f"({row.name} files take {', '.join(row.options) or 'no options'})"
        )
    return row.reader(path, **options)
