from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import passk_lab as pk
from passk_lab import coin_tasks, evaluate, simulate_coin, simulate_sweep


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


# --- simulate_sweep: many evaluations over a grid of p and k ----------------------------


def test_sweep_has_one_row_per_cell_and_evaluation_and_the_true_pow_k():
    sweep = simulate_sweep([0.5, 0.9], [1, 3, 20], tasks=7, evaluations=4, rng=0)
    assert sweep.columns.tolist() == [
        "p",
        "k",
        "evaluation",
        "pass_at_1",
        "pass_pow_k",
        "true_pow_k",
    ]
    assert len(sweep) == 2 * 3 * 4
    cells = sweep.groupby(["p", "k"])["evaluation"].apply(list)
    assert cells.tolist() == [[0, 1, 2, 3]] * 6
    np.testing.assert_allclose(sweep["true_pow_k"], sweep["p"] ** sweep["k"], rtol=0)
    # pass@1 is a count of passes over tasks x k runs, pass^k a count of tasks over tasks
    assert np.allclose((sweep["pass_at_1"] * 7 * sweep["k"]) % 1, 0, atol=1e-9)
    assert np.allclose((sweep["pass_pow_k"] * 7) % 1, 0, atol=1e-9)
    one_run = sweep[sweep["k"] == 1]
    assert one_run["pass_at_1"].equals(one_run["pass_pow_k"])


def test_sweep_repeats_with_a_seed_and_certain_chances_are_certain():
    first = simulate_sweep([0.3, 0.8], [2, 5], evaluations=50, rng=3)
    pd.testing.assert_frame_equal(first, simulate_sweep([0.3, 0.8], [2, 5], evaluations=50, rng=3))
    certain = simulate_sweep([0.0, 1.0], 4, evaluations=3, rng=0)
    assert certain["pass_pow_k"].tolist() == [0.0] * 3 + [1.0] * 3
    assert certain["pass_at_1"].tolist() == [0.0] * 3 + [1.0] * 3


def test_sweep_measures_what_the_binomial_law_says():
    # tasks that pass all k runs ~ Binomial(tasks, p^k): mean p^k and variance p^k (1 - p^k) / tasks
    evaluations, tasks = 20_000, 40
    sweep = simulate_sweep(
        [0.6, 0.85, 0.97], [1, 5, 12], tasks=tasks, evaluations=evaluations, rng=1
    )
    for (p, k), cell in sweep.groupby(["p", "k"]):
        truth = p**k
        sd = np.sqrt(truth * (1 - truth) / tasks)
        assert abs(cell["pass_pow_k"].mean() - truth) < 5 * sd / np.sqrt(evaluations)
        # the sample sd of 20,000 draws is within 5 % of the true one with room to spare
        assert cell["pass_pow_k"].std() == pytest.approx(sd, rel=0.05)
        assert abs(cell["pass_at_1"].mean() - p) < 5 * np.sqrt(
            p * (1 - p) / (tasks * k * evaluations)
        )


@pytest.mark.parametrize(
    ("arguments", "error", "match"),
    [
        ({"p": [], "ks": 3}, ValueError, "p is empty"),
        ({"p": 1.5, "ks": 3}, ValueError, r"p must be a probability"),
        ({"p": 0.5, "ks": []}, ValueError, "ks is empty"),
        ({"p": 0.5, "ks": [2, 0]}, ValueError, "k must be a positive integer"),
        ({"p": 0.5, "ks": 2.0}, TypeError, "k must be an integer"),
        ({"p": 0.5, "ks": 2, "tasks": 0}, ValueError, "tasks must be a positive integer"),
        ({"p": 0.5, "ks": 2, "evaluations": 0}, ValueError, "evaluations must be a positive"),
        ({"p": 0.5}, TypeError, r"simulate_sweep\(\) needs ks"),
    ],
)
def test_sweep_refuses_bad_grids(arguments, error, match):
    with pytest.raises(error, match=match):
        simulate_sweep(**arguments)


def test_the_sweeps_ks_were_k_and_the_old_name_works_for_one_release():
    with pytest.warns(pk.PasskDeprecationWarning, match=r"k= is now ks="):
        old = simulate_sweep([0.5, 0.9], k=[1, 3], evaluations=3, rng=0)
    pd.testing.assert_frame_equal(old, simulate_sweep([0.5, 0.9], ks=[1, 3], evaluations=3, rng=0))
    with pytest.raises(TypeError, match="give ks= only"):
        simulate_sweep(0.5, ks=[1], k=[1])
