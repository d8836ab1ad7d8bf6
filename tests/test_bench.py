"""The benchmarks' baselines compute what the fast paths compute, so every ratio compares like
with like; and the fast paths give the same numbers as the slow ones."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import passk_lab as pk

sys.path.insert(0, str(Path(__file__).parents[1] / "bench"))

import bench_estimators
import bench_intervals
import bench_memory
import bench_simulate


@pytest.mark.parametrize("runs", [1, 5, 16])
def test_source_loop_gives_the_curve_of_the_fast_path(runs):
    matrix = bench_estimators.outcome_matrix(300, runs, np.random.default_rng(runs))
    pow_k, at_k = bench_estimators.source_loop(matrix.tolist())
    for source in (matrix, bench_estimators.runs_table(matrix)):
        curve = pk.reliability_curve(source, rng=0)
        np.testing.assert_allclose(curve["pass_pow_k"], pow_k, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(curve["pass_at_k"], at_k, rtol=1e-12, atol=1e-15)


def test_source_loop_counts_pass_k_as_the_source_does():
    # the source's pinned run: 40 tasks, p = 0.85, k = 5, seed 42 -> pass@1 0.86, pass^5 0.45
    runs = pk.simulate_coin(p=0.85, tasks=40, k=5, seed=42)
    matrix = runs["passed"].to_numpy().reshape(40, 5)
    pow_k, _ = bench_estimators.source_loop(matrix.tolist())
    assert (round(pow_k[0], 10), round(pow_k[4], 10)) == (0.86, 0.45)


def test_human_eval_estimator_agrees_with_pass_at_k():
    rng = np.random.default_rng(3)
    n = rng.integers(8, 20, size=400)
    c = rng.binomial(n, rng.random(400))
    counts = pd.DataFrame({"task": np.arange(400), "n": n, "c": c})
    for k in [1, 2, 5, 8]:
        theirs = bench_estimators.human_eval_pass_at_k(n, c, k)
        assert pk.pass_at_k(counts, k) == pytest.approx(theirs, rel=1e-12)


def test_sweep_baseline_is_the_source_evaluation():
    assert bench_simulate.source_evaluation(0.85, 40, 5, pk.seeded(42)) == (0.86, 0.45)
    # and the sweep's grid is the bench's: p 0.50..0.99 by 0.01, k 1..20
    assert bench_simulate.PS[0] == 0.5
    assert bench_simulate.PS[-1] == 0.99
    assert len(bench_simulate.PS) == 50
    assert bench_simulate.KS.tolist() == list(range(1, 21))


def test_bootstrap_baseline_values_are_the_per_task_pass_k():
    table = bench_intervals.counts(500, np.random.default_rng(4))
    values = bench_intervals.per_task_values(table)
    assert values.mean() == pytest.approx(pk.pass_pow_k(table, bench_intervals.K), rel=1e-12)


def test_the_three_memory_layouts_hold_the_same_runs():
    raw = bench_memory.inputs(tasks=50)
    tables = {kind: bench_memory.build(kind, raw) for kind in ("naive", "default", "compact")}
    assert tables["naive"]["task"].dtype == object
    compact = tables["compact"]
    assert compact.dtypes.astype(str).tolist() == ["category", "int8", "bool", "category"]
    assert pk.compact_runs(tables["naive"]).dtypes.equals(compact.dtypes)
    curves = [pk.reliability_curve(table, rng=0) for table in tables.values()]
    for curve in curves[1:]:
        pd.testing.assert_frame_equal(curve, curves[0])
    assert (pk.tally(compact)["n_errors"] > 0).any()
