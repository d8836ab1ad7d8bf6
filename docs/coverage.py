"""Print the measured coverage tables of docs/uncertainty.md.

Run with ``python docs/coverage.py`` (about two minutes on two cores); the
seed is fixed, so the tables repeat exactly on the same numpy.
"""

from __future__ import annotations

import time

import pandas as pd

import passk_lab as pk
from passk_lab.report import to_markdown

SETTINGS = [
    ("identical tasks, p = 0.85", {"p": 0.85, "icc": 0.0}),
    ("heterogeneous tasks, mean p = 0.6, icc = 0.4", {"p": 0.6, "icc": 0.4}),
]
SIZES = [40, 200]
RUNS = 5
METHODS = [
    "auto",
    "percentile",
    "bca",
    "two-level",
    "wilson",
    "clopper_pearson",
    "jeffreys",
    "agresti_coull",
    "wald",
    "analytic",
    "clustered",
    "naive",
]
REPLICATES = 2000
RESAMPLES = 2000


def table(coverage: pd.DataFrame) -> pd.DataFrame:
    """Coverage (and the mean width at the largest k) per method, one column per k."""
    pow_k = coverage[coverage["statistic"] != "pass_at_k"]
    wide = pow_k.pivot_table(index="method", columns="k", values="coverage", aggfunc="first")
    wide.columns = [f"pass^{k}" for k in wide.columns]
    wide = wide.reindex([method for method in METHODS if method in wide.index])
    at_k = coverage[coverage["statistic"] == "pass_at_k"].groupby("method")["coverage"].min()
    wide["pass@k (lowest)"] = at_k.reindex(wide.index)
    width = pow_k.groupby("method")["mean_width"].last()
    wide[f"width at k = {RUNS}"] = width.reindex(wide.index).where(
        pow_k.groupby("method")["k"].max().reindex(wide.index) == RUNS
    )
    return (wide * 100).round(1).reset_index()


def main() -> None:
    """Simulate every setting and print one Markdown table each."""
    for title, model in SETTINGS:
        for tasks in SIZES:
            started = time.perf_counter()
            coverage = pk.interval_coverage(
                tasks,
                RUNS,
                **model,
                methods=METHODS,
                n_replicates=REPLICATES,
                n_resamples=RESAMPLES,
                rng=20261130,
            )
            seconds = time.perf_counter() - started
            print(f"#### {tasks} tasks x {RUNS} runs, {title} ({seconds:.0f} s)\n")
            print(to_markdown(table(coverage), digits=1))
            print()


if __name__ == "__main__":
    main()
