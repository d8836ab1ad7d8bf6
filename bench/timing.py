"""Timing helpers for the benchmarks: best-of-n wall time, and the table they print."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass


def best_of(fn: Callable[[], object], repeat: int = 5) -> float:
    """Return the fastest of `repeat` wall-clock timings of ``fn()``, in seconds."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return min(times)


@dataclass(frozen=True)
class Row:
    """One comparison: an operation against a baseline measured in the same run."""

    operation: str
    size: str
    seconds: float
    baseline: str
    baseline_seconds: float
    note: str = ""

    @property
    def ratio(self) -> float:
        return self.seconds / self.baseline_seconds


def print_table(rows: list[Row]) -> None:
    header = f"{'operation':<34}{'size':>10}{'time':>11}  {'baseline':<32}{'time':>11}{'ratio':>9}"
    print(header)
    print("-" * len(header))
    for row in rows:
        print(
            f"{row.operation:<34}{row.size:>10}{row.seconds * 1e3:>9.2f}ms  "
            f"{row.baseline:<32}{row.baseline_seconds * 1e3:>9.2f}ms{row.ratio:>8.2f}x"
            + (f"  {row.note}" if row.note else "")
        )
