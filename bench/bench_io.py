"""The readers on a 1,000,000-row runs file against pandas' own reader of the same file."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from timing import Row, best_of

from passk_lab.io import read_runs

ROWS = 1_000_000
RUNS = 16


def runs_table(rng: np.random.Generator) -> pd.DataFrame:
    """62,500 tasks x 16 runs with string task ids, a reward, an error and a duration."""
    tasks = ROWS // RUNS
    reward = rng.random(ROWS).round(3)
    return pd.DataFrame(
        {
            "task": np.repeat([f"task-{i:05d}" for i in range(tasks)], RUNS),
            "run": np.tile(np.arange(RUNS), tasks),
            "reward": reward,
            "error": np.where(rng.random(ROWS) < 0.01, "TimeoutError: 30 s", None),
            "duration_s": rng.exponential(20.0, ROWS).round(2),
        }
    )


def rows() -> list[Row]:
    table = runs_table(np.random.default_rng(0))
    result = []
    with tempfile.TemporaryDirectory() as folder:
        for suffix, pandas_read, label in [
            (".jsonl", lambda path: pd.read_json(path, lines=True), "pandas.read_json(lines=True)"),
            (".csv", pd.read_csv, "pandas.read_csv"),
            (".parquet", pd.read_parquet, "pandas.read_parquet"),
        ]:
            path = Path(folder) / f"runs{suffix}"
            if suffix == ".jsonl":
                table.to_json(path, orient="records", lines=True)
            elif suffix == ".csv":
                table.to_csv(path, index=False)
            else:
                table.to_parquet(path)
            repeat = 3 if suffix == ".jsonl" else 7
            theirs = best_of(lambda path=path, read=pandas_read: read(path), repeat=repeat)
            ours = best_of(lambda path=path: read_runs(path, threshold=0.5), repeat=repeat)
            result.append(Row(f"read_runs {suffix}", "1e+06", ours, label, theirs))
    return result
