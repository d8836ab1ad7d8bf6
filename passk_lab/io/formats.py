"""Which reader a file needs, told from its name and first character, and one call to read it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal, TypeAlias, get_args

import pandas as pd

from passk_lab.harness import read_ledger
from passk_lab.harness._ledger import FORMAT as LEDGER_FORMAT
from passk_lab.io.inspect_logs import read_inspect_log
from passk_lab.io.tables import TABLE_SUFFIXES, read_runs
from passk_lab.io.tau_bench import read_tau_bench

__all__ = ["FORMATS", "Format", "detect_format", "read"]

Format: TypeAlias = Literal["tau-bench", "inspect", "table", "ledger"]
FORMATS: tuple[str, ...] = get_args(Format)
"""The formats :func:`read` knows: tau-bench results, Inspect AI logs, a runs table, and the
ledger :func:`passk_lab.evaluate` writes."""

_OPTIONS: dict[str, tuple[str, ...]] = {
    "tau-bench": ("model", "domain"),
    "inspect": ("scorer", "threshold"),
    "table": ("task", "run", "passed", "reward", "threshold", "by"),
    "ledger": (),
}


def detect_format(path: str | Path) -> Format:
    """Tell which format a results file (or directory) is in.

    ``.csv``, ``.jsonl``, ``.ndjson``, ``.parquet`` and ``.pq`` are runs
    tables (or a ledger, for JSON Lines whose first line is a ledger's
    header) and ``.eval`` is an Inspect log. A ``.json`` file is told by its
    first character: tau-bench writes a list (``[``), Inspect an object
    (``{``). A directory is an Inspect log directory when it holds ``.eval``
    logs, and otherwise takes the format of its first ``.json`` file.

    Parameters
    ----------
    path : str or pathlib.Path
        The file or directory.

    Returns
    -------
    {"tau-bench", "inspect", "table"}

    Raises
    ------
    FileNotFoundError
        If there is no such file or directory.
    ValueError
        If the format cannot be told; the message says how to name it.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "gpt-4o-airline.json").write_text('[{"task_id": 0}]')
    >>> detect_format(folder / "gpt-4o-airline.json")
    'tau-bench'
    >>> detect_format(folder / "runs.csv")
    Traceback (most recent call last):
    ...
    FileNotFoundError: no such results file or directory: ...runs.csv
    """
    source = Path(path)
    if not source.exists():
        raise FileNotFoundError(f"no such results file or directory: {source}")
    if source.is_dir():
        if next(source.rglob("*.eval"), None) is not None:
            return "inspect"
        first = min(source.glob("*.json"), default=None)
        if first is None:
            raise ValueError(
                f"{source}: a directory with no .eval or .json file; give a results file"
            )
        return detect_format(first)
    suffix = source.suffix.lower()
    if suffix in (".jsonl", ".ndjson") and _is_ledger(source):
        return "ledger"
    if suffix in TABLE_SUFFIXES:
        return "table"
    if suffix == ".eval":
        return "inspect"
    if suffix == ".json":
        with source.open(encoding="utf-8", errors="replace") as text:
            start = text.read(4096).lstrip()[:1]
        if start == "[":
            return "tau-bench"
        if start == "{":
            return "inspect"
    raise ValueError(
        f"cannot tell the format of {source.name}: name it with format= (--format on the "
        f"command line), one of {', '.join(FORMATS)}"
    )


def _is_ledger(path: Path) -> bool:
    with path.open(encoding="utf-8", errors="replace") as text:
        first = text.readline()
    try:
        header = json.loads(first)
    except json.JSONDecodeError:
        return False
    return isinstance(header, dict) and header.get("format") == LEDGER_FORMAT


def read(
    path: str | Path, *, format: Format | Literal["auto"] = "auto", **options: Any
) -> pd.DataFrame:
    """Read runs from any format passk_lab knows, detected unless named.

    Parameters
    ----------
    path : str or pathlib.Path
        A results file or directory.
    format : {"auto", "tau-bench", "inspect", "table", "ledger"}
        ``"auto"`` (the default) uses :func:`detect_format`.
    **options
        Passed to the reader: :func:`~passk_lab.io.read_tau_bench`,
        :func:`~passk_lab.io.read_inspect_log` or :func:`~passk_lab.io.read_runs`
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
    """
    if format != "auto" and format not in FORMATS:
        raise ValueError(f"unknown format {format!r}: use auto, {', '.join(FORMATS)}")
    kind = detect_format(path) if format == "auto" else format
    unexpected = sorted(set(options) - set(_OPTIONS[kind]))
    if unexpected:
        raise TypeError(
            f"not an option for {kind} files: {', '.join(unexpected)} "
            f"({kind} files take {', '.join(_OPTIONS[kind])})"
        )
    if kind == "tau-bench":
        return read_tau_bench(path, **options)
    if kind == "inspect":
        return read_inspect_log(path, **options)
    if kind == "ledger":
        return read_ledger(path).runs
    return read_runs(path, **options)
