"""What a leaderboard's design cannot show: too few tasks for any pair to be told apart."""

from __future__ import annotations

import itertools
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from test_report import Page

import passk_lab as pk
from passk_lab._data.tally import as_tally
from passk_lab._permutation import permutation_test, smallest_p_value, tasks_to_separate
from passk_lab.cli import main
from passk_lab.report._board import board_section, cannot_separate


def sign_flip_p(differences: np.ndarray, observed: float) -> float:
    """The two-sided p-value by listing every sign pattern of the differences."""
    signs = np.array(list(itertools.product([1.0, -1.0], repeat=len(differences))))
    sums = np.abs(signs @ differences)
    return float(np.mean(sums >= abs(observed) - 1e-12))


@pytest.mark.parametrize("tasks", range(1, 11))
def test_the_smallest_p_value_is_that_of_brute_force_enumeration(tasks):
    rng = np.random.default_rng(tasks)
    # sizes of difference a pass^k estimate takes (multiples of 1/6), some repeated, some ties
    sizes = rng.integers(1, 7, size=tasks) / 6.0
    zeros = np.zeros(int(rng.integers(0, 3)))  # tasks where the agents agree add nothing
    differences = np.concatenate([sizes, zeros])
    attainable = {
        sign_flip_p(differences, float(np.dot(signs, differences)))
        for signs in itertools.product([1.0, -1.0], repeat=len(differences))
    }
    assert min(attainable) == pytest.approx(smallest_p_value(tasks), rel=1e-12)
    assert min(attainable) == pytest.approx(2.0 / 2**tasks, rel=1e-12)
    assert smallest_p_value(0) == 1.0


@pytest.mark.parametrize(
    ("runs", "k", "metric"),
    [(1, 1, "pass_pow_k"), (3, 2, "pass_pow_k"), (4, 3, "pass_at_k"), (5, 5, "pass_pow_k")],
)
def test_the_test_used_reaches_the_floor_when_every_task_favours_one_agent(runs, k, metric):
    for tasks in (3, 6, 9):
        n = np.full(tasks, runs)
        rng = np.random.default_rng(tasks)
        # A passes every run; B fails at least one run of each task (fails all, for pass@k)
        c_b = np.zeros(tasks, dtype=np.int64)
        if metric == "pass_pow_k":
            c_b = rng.integers(0, runs, size=tasks)
        test = permutation_test(n, n, n, c_b, k, metric, n_resamples=0, rng=None)
        assert test.test in ("mcnemar_exact", "sign_flip_exact")
        assert test.p_value == pytest.approx(smallest_p_value(tasks), rel=1e-9)


@pytest.mark.parametrize("level", [0.2, 0.1, 0.0625, 0.05, 0.01, 0.001])
@pytest.mark.parametrize("factor", [1, 3, 10, 45])
def test_the_tasks_needed_are_the_boundary_of_the_floor(level, factor):
    needed = tasks_to_separate(level, factor)
    exact = Fraction(level)
    assert factor * Fraction(2, 2**needed) <= exact  # these tasks can reach the level
    assert needed == 1 or factor * Fraction(2, 2 ** (needed - 1)) > exact  # one fewer cannot


# --- the leaderboard ----------------------------------------------------------------------


def unanimous(tasks: int, agents: int = 3, runs: int = 1) -> pd.DataFrame:
    """Agent a passes every run of every task; the others fail every run: the best case."""
    rows = [
        (name, task, run, name == "a")
        for name in "abcdefgh"[:agents]
        for task in range(tasks)
        for run in range(runs)
    ]
    return pd.DataFrame(rows, columns=["model", "task", "run", "passed"])


@pytest.mark.parametrize("metric", ["pass_pow_k", "pass_at_k"])
@pytest.mark.parametrize(("agents", "runs", "k"), [(3, 1, 1), (4, 2, 2), (2, 3, 1)])
def test_one_task_fewer_than_needed_separates_no_pair_and_warns(metric, agents, runs, k):
    pairs = agents * (agents - 1) // 2
    needed = tasks_to_separate(0.05, pairs)
    # at the tasks needed, unanimous tasks tell a apart from every other agent, and no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        board = pk.leaderboard(unanimous(needed, agents, runs), [k], metric=metric)
    first = board[board["model"] == "a"].iloc[0]
    assert (first["rank_low"], first["rank_high"], first["tie_group"]) == (1, 1, 1)
    assert (board.loc[board["model"] != "a", "tie_group"] == 2).all()
    # one task fewer: the same unanimous runs tell no pair apart, and the warning says why
    with pytest.warns(pk.NoSeparationWarning) as caught:
        board = pk.leaderboard(unanimous(needed - 1, agents, runs), [k], metric=metric)
    assert (board["tie_group"] == 1).all()
    assert (board["rank_low"] == 1).all()
    (found,) = [record.message for record in caught]
    smallest = min(1.0, pairs * 2.0 ** (1 - (needed - 1)))
    assert (found.smallest_p, found.level, found.tasks, found.needed) == pytest.approx(
        (smallest, 0.05, needed - 1, needed), rel=1e-12
    )
    assert (found.pairs, found.ks, found.keywords) == (pairs, (k,), ("confidence_level",))


def test_the_five_task_board_of_the_report_says_it_cannot_rank():
    rates = [0.95, 0.8, 0.6, 0.4, 0.2]
    runs = pd.concat(
        [
            pk.simulate_coin(p=p, tasks=5, k=3, seed=seed).assign(model=name)
            for seed, (name, p) in enumerate(zip("abcde", rates, strict=True))
        ]
    )
    with pytest.warns(pk.NoSeparationWarning) as caught:
        board = pk.leaderboard(runs, [1, 3], rng=0)
    (found,) = [record.message for record in caught]
    assert (found.tasks, found.pairs, found.needed, found.ks) == (5, 10, 9, (1, 3))
    assert found.smallest_p == 10 * 2.0**-4
    assert str(found).startswith(
        "at k = 1 and 3, on 5 tasks, no two agents can be told apart at the level 0.05, "
        "whatever their runs: the paired sign-flip test gives no p-value below 2/2^5 = 0.0625"
    )
    assert (board["rank_low"] == 1).all()
    assert (board["rank_high"] == 5).all()
    with pytest.warns(pk.NoSeparationWarning):
        pairs = pk.pairwise(runs, [1, 3], common_tasks=True, metrics=["pass_pow_k"], rng=0)
    assert (pairs["p_adjusted"] >= found.smallest_p).all()  # the floor holds for every pair


@pytest.mark.parametrize(("adjust", "factor"), [("holm", 3), ("bh", 1), (None, 1)])
def test_pairwise_warns_by_its_adjustment(adjust, factor):
    needed = tasks_to_separate(0.05, factor)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pairs = pk.pairwise(unanimous(needed), [1], adjust=adjust)
    assert (pairs.loc[pairs["a"] == "a", "p_adjusted"] <= 0.05).all()
    with pytest.warns(pk.NoSeparationWarning) as caught:
        pk.pairwise(unanimous(needed - 1), [1], adjust=adjust)
    (found,) = [record.message for record in caught]
    assert found.smallest_p == min(1.0, factor * 2.0 ** (1 - (needed - 1)))
    assert found.needed == needed


def test_a_lower_confidence_level_needs_fewer_tasks():
    with pytest.warns(pk.NoSeparationWarning) as caught:
        pk.leaderboard(unanimous(4), [1], confidence_level=0.9)
    (found,) = [record.message for record in caught]
    # 3 pairs at 0.1: 3 * 2 / 2**6 = 0.094 reaches it, 3 * 2 / 2**5 = 0.19 does not
    assert (found.level, found.needed) == (pytest.approx(0.1), 6)


# --- where it is said ---------------------------------------------------------------------


def test_the_command_line_prints_the_warning_with_its_option(tmp_path, capsys):
    path = tmp_path / "runs.csv"
    unanimous(6).to_csv(path, index=False)
    with pytest.warns(pk.NoSeparationWarning) as caught:
        pk.leaderboard(pk.io.read_runs(path), [1], by="model")
    assert main(["leaderboard", str(path), "--by", "model", "--k", "1"]) == 0
    err = capsys.readouterr().err.splitlines()
    told = " (on the command line: confidence_level= is --confidence-level)"
    assert err == [f"passk-lab leaderboard: warning: {caught[0].message}{told}"]


def test_the_report_says_it_in_a_sentence_under_the_reading(tmp_path):
    runs = unanimous(6, agents=3, runs=2)
    summary = as_tally(runs, "model")
    codes, _ = summary.groups()
    with pytest.warns(pk.NoSeparationWarning) as caught:
        pk.leaderboard(runs, [1, 2], rng=0)
    section = board_section(summary, codes, ["model"], [1, 2], rng=0)  # warns nothing
    assert section is not None
    sentence = cannot_separate(caught[0].message, [1, 2])
    assert section.notes[0] == sentence
    assert sentence == (
        "With 6 tasks, no two agents can be told apart at the 95% level, whatever their runs: "
        "the smallest p-value a pair's paired sign-flip test can reach, Holm-adjusted over the "
        "3 pairs, is 0.094 (every task favouring one agent), above 0.05. It takes at least 7 "
        "tasks before any pair can be told apart."
    )
    pk.report.write_report(pk.tally(runs, by="model"), tmp_path, by="model", rng=0)
    page = Page((tmp_path / "report.html").read_text())
    assert sentence in page.paragraphs


def test_the_sentence_names_the_ks_when_not_all_of_the_boards():
    found = pk.NoSeparationWarning(
        "", smallest_p=0.1875, level=0.05, tasks=5, needed=7, pairs=3, ks=[3, 4]
    )
    assert cannot_separate(found, [1, 3, 4]).startswith("At k = 3 and 4, with 5 tasks, no two")
    single = pk.NoSeparationWarning(
        "", smallest_p=0.125, level=0.05, tasks=4, needed=6, pairs=1, ks=[2]
    )
    assert cannot_separate(single, [1, 2]) == (
        "At k = 2, with 4 tasks, no two agents can be told apart at the 95% level, whatever "
        "their runs: the smallest p-value a pair's paired sign-flip test can reach is 0.12 "
        "(every task favouring one agent), above 0.05. It takes at least 6 tasks before any "
        "pair can be told apart."
    )
