"""Memory per run of a runs table: compact dtypes and pandas' defaults against object text.

Each table is built and taken through the whole curve in a fresh process, so
the peak is its own: ``python bench/bench_memory.py compact`` prints one.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from timing import Row

from passk_lab import reliability_curve

TASKS, RUNS = 62_500, 16  # 1e6 runs
ERROR = "TimeoutError: no answer in 30 s"


def inputs(tasks: int = TASKS) -> dict[str, np.ndarray]:
    """The raw outcomes as small arrays: task number, run, verdict, and whether it errored."""
    rng = np.random.default_rng(0)
    size = tasks * RUNS
    errored = rng.random(size) < 0.02
    return {
        "task": np.repeat(np.arange(tasks, dtype=np.int32), RUNS),
        "run": np.tile(np.arange(RUNS, dtype=np.int8), tasks),
        "passed": (rng.random(size) < 0.7) & ~errored,
        "errored": errored,
    }


def build(kind: str, raw: dict[str, np.ndarray]) -> pd.DataFrame:
    """The same runs stored three ways.

    naive: text as one Python object per cell (object dtype, pandas' default before 3.0);
    default: pandas 3's defaults (str, int64, bool);
    compact: categorical text and the smallest integers (what compact_runs gives).
    """
    codes, errored = raw["task"], raw["errored"]
    if kind == "compact":
        names = pd.Index([f"task-{i:05d}" for i in range(int(codes.max()) + 1)], dtype="str")
        return pd.DataFrame(
            {
                "task": pd.Categorical.from_codes(codes, categories=names),
                "run": raw["run"],
                "passed": raw["passed"],
                "error": pd.Categorical.from_codes(
                    np.where(errored, 0, -1).astype(np.int8), categories=pd.Index([ERROR])
                ),
            }
        )
    text = pd.DataFrame(
        {
            "task": [f"task-{i:05d}" for i in codes.tolist()],
            # formatted row by row, so each message is its own object, as parsed JSON gives
            "error": [
                f"TimeoutError: no answer in {30} s" if e else None for e in errored.tolist()
            ],
        },
        dtype=object if kind == "naive" else "str",
    )
    return pd.DataFrame(
        {
            "task": text["task"],
            "run": raw["run"].astype(np.int64),
            "passed": raw["passed"],
            "error": text["error"],
        }
    )


def _status(field: str) -> int:
    """A memory figure of this process from /proc/self/status, in bytes (Linux)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"/proc/self/status has no {field}; the memory benchmark needs Linux")


def measure(kind: str) -> dict[str, float]:
    """Resident bytes per run of the table, and the peak while computing its curve.

    The peak is the table plus the most memory the whole curve (validation,
    tally, intervals) held at once above what the process held before it.
    """
    table = build(kind, inputs())
    resident = int(table.memory_usage(deep=True).sum())
    Path("/proc/self/clear_refs").write_text("5")  # reset the high-water mark (VmHWM)
    before = _status("VmRSS")
    reliability_curve(table, rng=0)
    working = _status("VmHWM") - before
    runs = len(table)
    return {"resident": resident / runs, "peak": (resident + working) / runs}


def _in_fresh_process(kind: str) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, __file__, kind], capture_output=True, text=True, check=True
    )
    measured: dict[str, float] = json.loads(done.stdout)
    return measured


def rows() -> list[Row]:
    measured = {kind: _in_fresh_process(kind) for kind in ("naive", "default", "compact")}
    naive = measured["naive"]
    label = {"default": "runs table, pandas defaults", "compact": "runs table, compact_runs"}
    return [
        Row(
            f"{label[kind]}: {what}",
            "1e6 runs",
            measured[kind][what],
            f"object-dtype table: {what}",
            naive[what],
            unit="B/run",
        )
        for kind in ("default", "compact")
        for what in ("resident", "peak")
    ]


if __name__ == "__main__":
    print(json.dumps(measure(sys.argv[1])))
