from __future__ import annotations

import pandas as pd
import pytest

from passk_lab import coin_tasks, evaluate, simulate_coin


def test_source_figures():
    runs = simulate_coin(p=0.85, tasks=40, k=5, seed=42)
    wins = runs.groupby("task")["passed"].sum()
    assert wins.sum() == 172  # 172 / 200 = 0.86
    assert (wins == 5).sum() == 18  # 18 / 40 = 0.45


@pytest.mark.parametrize(
    ("p", "tasks", "k", "seed"),
    [(0.85, 40, 5, 42), (0.5, 7, 3, 0), (0.99, 13, 8, -1), (0.3, 1, 1, 2**32 - 1)],
)
def test_vectorised_simulation_equals_the_harness(p, tasks, k, seed):
    harness = evaluate(coin_tasks(p, tasks, seed), k).runs
    pd.testing.assert_frame_equal(
        simulate_coin(p, tasks, k, seed), harness[["task", "run", "passed"]]
    )


def test_certain_outcomes():
    assert simulate_coin(p=1.0, tasks=5, k=3)["passed"].all()
    assert not simulate_coin(p=0.0, tasks=5, k=3)["passed"].any()


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"p": 1.5}, ValueError, r"p must be a probability in \[0, 1\], got 1.5"),
        ({"p": float("nan")}, ValueError, "p must be a probability"),
        ({"p": "0.5"}, TypeError, "p must be a number"),
        ({"tasks": 0}, ValueError, "tasks must be a positive integer, got 0"),
        ({"k": 2.5}, TypeError, "k must be an integer, got 2.5"),
        ({"seed": 0.5}, TypeError, "seed must be an integer"),
    ],
)
def test_bad_arguments_are_refused(kwargs, error, message):
    with pytest.raises(error, match=message):
        simulate_coin(**kwargs)
