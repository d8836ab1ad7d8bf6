"""Runs tables stored as CSV, JSON Lines or Parquet."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

__all__ = ["read_runs"]

_SUFFIXES = {
    ".csv": "csv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
    ".pq": "parquet",
}


def read_runs(path: str | Path) -> pd.DataFrame:
    """Read a runs table from a CSV, JSON Lines or Parquet file, chosen by the file's suffix.

    Parameters
    ----------
    path : str or pathlib.Path
        A ``.csv``, ``.jsonl`` (or ``.ndjson``, one JSON object per line) or
        ``.parquet`` (or ``.pq``) file with one row per run and columns as in
        :func:`passk_lab.tally`.

    Returns
    -------
    DataFrame
        The table as stored; validation happens where it is used.

    Raises
    ------
    ValueError
        If the suffix is none of the above.
    FileNotFoundError
        If there is no such file.

    Examples
    --------
    >>> import tempfile, pathlib, passk_lab as pk
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> pk.simulate_coin(tasks=3, k=2).to_csv(folder / "runs.csv", index=False)
    >>> read_runs(folder / "runs.csv").shape
    (6, 3)
    """
    file = Path(path)
    kind = _SUFFIXES.get(file.suffix.lower())
    if kind is None:
        raise ValueError(
            f"cannot tell the format of {file.name}: use a .csv, .jsonl (or .ndjson) or "
            f".parquet (or .pq) file"
        )
    if not file.is_file():
        raise FileNotFoundError(f"no such runs file: {file}")
    if kind == "csv":
        return pd.read_csv(file)
    if kind == "jsonl":
        return pd.read_json(file, lines=True)
    try:
        return pd.read_parquet(file)
    except ImportError as exc:
        raise ImportError(
            f"reading {file.name} needs pyarrow: pip install 'passk-lab[parquet]'"
        ) from exc
