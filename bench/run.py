"""Run the benchmarks and print one table; ratios compare timings taken in the same run.

``python bench/run.py`` runs them all; ``python bench/run.py harness io`` runs only
``bench_harness`` and ``bench_io``.
"""

from __future__ import annotations

import platform
import sys

import bench_estimators
import bench_harness
import bench_intervals
import bench_io
import bench_seeded
from timing import print_table

import passk_lab

MODULES = {
    module.__name__.removeprefix("bench_"): module
    for module in (bench_estimators, bench_harness, bench_intervals, bench_io, bench_seeded)
}


def main(names: list[str]) -> None:
    unknown = sorted(set(names) - set(MODULES))
    if unknown:
        sys.exit(f"no benchmark named {', '.join(unknown)}; choose from {', '.join(MODULES)}")
    print(
        f"passk_lab {passk_lab.__version__}, Python {platform.python_version()}, "
        f"{platform.machine()}, {platform.processor() or 'unknown processor'}"
    )
    print_table([row for name in names or MODULES for row in MODULES[name].rows()])


if __name__ == "__main__":
    main(sys.argv[1:])
