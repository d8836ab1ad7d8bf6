"""Timing helpers for the benchmarks: best times, alone or in turns, and the table they print."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass


def best_of(fn: Callable[[], object], repeat: int = 5) -> float:
    """Return the fastest of `repeat` wall-clock timings of ``fn()``, in seconds."""
    (best,) = alternating_minima(fn, rounds=1, repeat=repeat)
    return best


def alternating_minima(
    *fns: Callable[[], object],
    rounds: int,
    repeat: int = 1,
    clock: Callable[[], float] = time.perf_counter,
) -> list[float]:
    """Return the fastest time of each function, timed in turns so that a burst of load hits all.

    Each of `rounds` rounds times every function `repeat` times in a row, one function after
    another; `clock` is read before and after each call (``time.process_time`` for CPU time).
    """
    best = [math.inf] * len(fns)
    for _ in range(rounds):
        for index, fn in enumerate(fns):
            for _ in range(repeat):
                started = clock()
                fn()
                best[index] = min(best[index], clock() - started)
    return best


@dataclass(frozen=True)
class Row:
    """One comparison: an operation against a baseline measured in the same run."""

    operation: str
    size: str
    value: float  # seconds, or bytes a run for memory
    baseline: str
    baseline_value: float
    target: float | None = None  # the ratio this operation should stay at or under
    note: str = ""
    unit: str = "s"  # of value and baseline_value: "s", or "B/run"
    budget: float | None = None  # the value (in `unit`) this operation should stay at or under

    @property
    def ratio(self) -> float:
        return self.value / self.baseline_value

    @property
    def verdict(self) -> str:
        verdicts = [self.note] if self.note else []
        if self.target is not None:
            met = "met" if self.ratio <= self.target else "NOT MET"
            verdicts.append(f"target <= {self.target:g}x: {met}")
        if self.budget is not None:
            met = "met" if self.value <= self.budget else "NOT MET"
            verdicts.append(f"target <= {_amount(self.budget, self.unit).strip()}: {met}")
        return "; ".join(verdicts)


def print_table(rows: list[Row]) -> None:
    header = f"{'operation':<34}{'size':>10}{'time':>11}  {'baseline':<34}{'time':>11}{'ratio':>10}"
    print(header)
    print("-" * len(header))
    for row in rows:
        print(
            f"{row.operation:<34}{row.size:>10}{_amount(row.value, row.unit)}  "
            f"{row.baseline:<34}{_amount(row.baseline_value, row.unit)}{row.ratio:>9.3g}x  "
            f"{row.verdict}".rstrip()
        )
    print("* a Python loop timed on a sample of the tasks and scaled to the full size")


def _amount(value: float, unit: str) -> str:
    if unit != "s":
        return f"{value:>7.1f}{unit:<4}"
    return f"{value:>9.3f}s " if value >= 10 else f"{value * 1e3:>9.2f}ms"
