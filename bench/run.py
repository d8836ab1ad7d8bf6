"""Run every benchmark and print one table; ratios compare timings taken in the same run."""

from __future__ import annotations

import platform

import bench_estimators
import bench_harness
import bench_intervals
import bench_io
import bench_seeded
from timing import print_table

import passk_lab

MODULES = [bench_estimators, bench_harness, bench_intervals, bench_io, bench_seeded]


def main() -> None:
    print(
        f"passk_lab {passk_lab.__version__}, Python {platform.python_version()}, "
        f"{platform.machine()}, {platform.processor() or 'unknown processor'}"
    )
    print_table([row for module in MODULES for row in module.rows()])


if __name__ == "__main__":
    main()
