"""Memory per run of a runs table: compact dtypes and pandas' defaults against object text.

Each table is built and taken through the whole curve in a fresh process, so
the peak is its own: ``python bench/bench_memory.py compact 62500`` prints one.
The working memory is what the curve (and its first step, the tally) holds at
once above the resident table; the curve runs once on a small table of the same
layout first, so that the modules it imports on first use are not counted as
memory per run. The intervals hold some 10 MB whatever the table's size, which
is 10 B/run of a table of 10^6 runs, so the working memory is also measured on
1.6e7 runs (10^6 tasks), where it is the memory that grows with the runs.
"""

from __future__ import annotations

import ctypes
import gc
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
from timing import Row

from passk_lab import reliability_curve
from passk_lab._data.tally import as_tally

TASKS, RUNS = 62_500, 16  # 1e6 runs
LARGE_TASKS = 1_000_000  # 1.6e7 runs, for the working memory per run
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
    width = max(5, len(str(int(codes.max()))))  # task numbers zero-padded to one width
    if kind == "compact":
        names = pd.Index([f"task-{i:0{width}d}" for i in range(int(codes.max()) + 1)], dtype="str")
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
            "task": [f"task-{i:0{width}d}" for i in codes.tolist()],
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


def _release_free_memory() -> None:
    """Hand the memory freed so far (building the table, say) back to the system.

    Otherwise a computation reuses those pages without raising the resident
    size, and its working memory looks smaller than it is.
    """
    gc.collect()
    if "pyarrow" in sys.modules:
        sys.modules["pyarrow"].default_memory_pool().release_unused()
    ctypes.CDLL(None).malloc_trim(0)  # glibc: return the free heap to the system


def _working(compute: Callable[[], object]) -> int:
    """The most memory ``compute()`` held at once above what the process held before it."""
    _release_free_memory()
    Path("/proc/self/clear_refs").write_text("5")  # reset the high-water mark (VmHWM)
    before = _status("VmRSS")
    compute()
    return _status("VmHWM") - before


def measure(kind: str, tasks: int = TASKS) -> dict[str, float]:
    """Bytes per run: the table, the working memory and the peak of its curve, and its tally's.

    The curve's working memory is the most the whole curve (validation, tally,
    intervals) held at once above what the process held before it; the peak is
    the table plus that. The tally's is that of its first step alone.
    """
    reliability_curve(build(kind, inputs(tasks=50)), rng=0)  # imports on first use
    table = build(kind, inputs(tasks))
    runs = len(table)
    resident = int(table.memory_usage(deep=True).sum()) / runs
    working = _working(lambda: reliability_curve(table, rng=0)) / runs
    return {
        "resident": resident,
        "working": working,
        "peak": resident + working,
        "tally": _working(lambda: as_tally(table)) / runs,
    }


def _in_fresh_process(kind: str, tasks: int) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, __file__, kind, str(tasks)], capture_output=True, text=True, check=True
    )
    measured: dict[str, float] = json.loads(done.stdout)
    return measured


def rows() -> list[Row]:
    measured = {kind: _in_fresh_process(kind, TASKS) for kind in ("naive", "default", "compact")}
    naive = measured["naive"]
    label = {"default": "runs table, pandas defaults", "compact": "runs table, compact_runs"}
    compared = [
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
    # The working memory against a flat budget of 8 bytes a run (a baseline of one byte a
    # run): on 1e6 runs, where the intervals' fixed 10 MB weighs 10 B/run, and on 1.6e7.
    large = {kind: _in_fresh_process(kind, LARGE_TASKS) for kind in ("default", "compact")}
    short = {"default": "defaults", "compact": "compact_runs"}
    working = [
        Row(
            f"{short[kind]}: {name}",
            size,
            figures[kind][what],
            "one byte a run",
            1.0,
            target=None if size == "1e6 runs" else 8.0,
            unit="B/run",
        )
        for size, figures in (("1e6 runs", measured), ("1.6e7 runs", large))
        for kind in ("default", "compact")
        for what, name in (("working", "curve working"), ("tally", "as_tally working"))
    ]
    return compared + working


if __name__ == "__main__":
    print(json.dumps(measure(sys.argv[1], int(sys.argv[2]))))
