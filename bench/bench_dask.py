"""tally on a Dask LocalCluster against pandas, both reading the same Parquet dataset."""

from __future__ import annotations

import tempfile
import warnings
from pathlib import Path

import dask.dataframe as dd
import distributed
import numpy as np
import pandas as pd
from bench_estimators import outcome_matrix, runs_table
from timing import Row, best_of

from passk_lab import reliability_curve

TASKS, RUNS, FILES = 625_000, 16, 16  # 1e7 runs


def rows() -> list[Row]:
    runs = runs_table(outcome_matrix(TASKS, RUNS, np.random.default_rng(0)))
    names = np.array([f"task-{i:06d}" for i in range(TASKS)], dtype=object)
    runs["task"] = pd.array(names[runs["task"].to_numpy()], dtype="str")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "runs"
        path.mkdir()
        for number, part in enumerate(np.array_split(np.arange(len(runs)), FILES)):
            runs.iloc[part].to_parquet(path / f"part-{number:02d}.parquet")
        in_pandas = best_of(lambda: reliability_curve(pd.read_parquet(path), rng=0), repeat=3)
        with (
            warnings.catch_warnings(),
            distributed.LocalCluster(
                n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
            ) as cluster,
            distributed.Client(cluster),
        ):
            # Dask's Parquet reader passes inplace= to pandas, which pandas 3.1 deprecates
            warnings.filterwarnings("ignore", "The inplace keyword", pd.errors.Pandas4Warning)
            on_cluster = best_of(lambda: reliability_curve(dd.read_parquet(path), rng=0), repeat=3)
    return [
        Row(
            "curve, Dask LocalCluster (2 procs)",
            "1e7 runs",
            on_cluster,
            "pandas read_parquet, then curve",
            in_pandas,
        )
    ]
