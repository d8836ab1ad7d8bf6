"""The paired sign-flip test of two agents, against McNemar's test and brute force."""

import itertools
import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from statsmodels.stats.contingency_tables import mcnemar

from passk_lab import _permutation
from passk_lab._permutation import permutation_test

METRICS = ["pass_pow_k", "pass_at_k"]


def estimate(passed, k, metric):
    """The unbiased per-task estimate of one side's runs (a sequence of 0/1)."""
    n, c = len(passed), int(sum(passed))
    if metric == "pass_pow_k":
        return math.comb(c, k) / math.comb(n, k)
    return 1 - math.comb(n - c, k) / math.comb(n, k)


def brute_force(tasks, k, metric):
    """The exact p-value by listing every way of flipping the signs of the tasks' differences.

    `tasks` holds (runs of a, runs of b) per task. Under the null each task's difference of the
    per-task estimates is as likely to be +|d| as -|d|, independently across tasks.
    """
    differences = [estimate(a, k, metric) - estimate(b, k, metric) for a, b in tasks]
    observed = abs(sum(differences))
    signs = np.array(list(itertools.product([1, -1], repeat=len(differences))))
    return float(np.mean(np.abs(signs @ np.array(differences)) >= observed - 1e-9))


def arrays(tasks):
    """The runs and passes of each side, as permutation_test takes them."""
    return (
        np.array([len(a) for a, _ in tasks]),
        np.array([sum(a) for a, _ in tasks]),
        np.array([len(b) for _, b in tasks]),
        np.array([sum(b) for _, b in tasks]),
    )


def p_test(tasks, k, metric, resamples=1000, seed=0):
    return permutation_test(
        *arrays(tasks), k, metric, n_resamples=resamples, rng=np.random.default_rng(seed)
    )


def small_cases():
    """2 to 10 tasks of 1 to 5 runs per side (unequal allowed), every k all tasks reach."""
    rng = np.random.default_rng(20261201)
    cases = []
    for _ in range(40):
        count, fewest = int(rng.integers(2, 11)), int(rng.integers(1, 6))
        tasks = [
            tuple(
                rng.integers(0, 2, size=int(rng.integers(fewest, 6))).tolist() for _side in range(2)
            )
            for _task in range(count)
        ]
        cases.extend((tasks, k) for k in range(1, fewest + 1))
    return cases


CASES = small_cases()


def test_the_cases_cover_several_k_unequal_runs_and_small_p_values():
    assert {k for _, k in CASES} == {1, 2, 3, 4, 5}
    assert any(len(a) != len(b) for tasks, _ in CASES for a, b in tasks)
    assert min(brute_force(tasks, k, "pass_pow_k") for tasks, k in CASES) < 0.2


def mcnemar_tables():
    """Tables [[both pass, only A], [only B, both fail]] of up to 19 tasks."""
    for both, only_a, only_b, neither in itertools.product([0, 3], range(8), range(8), [0, 2]):
        if both + only_a + only_b + neither > 0:
            yield np.array([[both, only_a], [only_b, neither]])


@pytest.mark.parametrize("metric", METRICS)
def test_one_run_at_k_1_is_mcnemars_exact_test(metric):
    rng = np.random.default_rng(7)
    for table in mcnemar_tables():
        (both, only_a), (only_b, neither) = table.tolist()
        a = np.array([1] * both + [1] * only_a + [0] * only_b + [0] * neither)
        b = np.array([1] * both + [0] * only_a + [1] * only_b + [0] * neither)
        order = rng.permutation(len(a))
        one = np.ones(len(a), dtype=np.int64)
        result = permutation_test(
            one, a[order], one, b[order], 1, metric, n_resamples=10, rng=np.random.default_rng(0)
        )
        assert result.test == "mcnemar_exact"
        assert result.p_value == pytest.approx(mcnemar(table, exact=True).pvalue, abs=1e-12)


@pytest.mark.parametrize("metric", METRICS)
def test_the_exact_p_value_is_the_share_of_all_sign_flips_of_the_differences(metric):
    for tasks, k in CASES:
        result = p_test(tasks, k, metric)
        assert result.p_value == pytest.approx(brute_force(tasks, k, metric), abs=1e-12), (
            tasks,
            k,
        )
        single = k == 1 and all(len(a) == len(b) == 1 for a, b in tasks)
        unequal = any(len(a) != len(b) for a, b in tasks)
        name = "sign_flip_approximate" if unequal else "sign_flip_exact"
        assert result.test == ("mcnemar_exact" if single else name)


def exact_fraction(tasks, k, metric):
    """The p-value as a fraction: sign patterns counted on the lattice, in whole numbers."""

    def value(passed):
        n, c = len(passed), sum(passed)
        if metric == "pass_pow_k":
            return Fraction(math.comb(c, k), math.comb(n, k))
        return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))

    differences = [value(a) - value(b) for a, b in tasks]
    scale = math.lcm(*(difference.denominator for difference in differences))
    steps = [int(difference * scale) for difference in differences]
    patterns = Counter({0: 1})  # sum -> number of sign patterns giving it
    for step in steps:
        grown = Counter()
        for total, count in patterns.items():
            grown[total + step] += count
            grown[total - step] += count
        patterns = grown
    observed = abs(sum(steps))
    hits = sum(count for total, count in patterns.items() if abs(total) >= observed)
    return Fraction(hits, 2 ** len(steps))


@pytest.mark.parametrize("metric", METRICS)
def test_the_exact_p_value_keeps_its_relative_accuracy_in_the_far_tail(metric):
    rng = np.random.default_rng(11)
    # 40 tasks of 4 and 6 runs: wide lattices, and many tasks of each size of difference
    tasks = [
        (rng.integers(0, 2, size=4).tolist(), (rng.random(6) < 0.35).astype(int).tolist())
        for _ in range(40)
    ]
    # 60 tasks A mostly wins: a p-value far below any Monte Carlo reach
    lopsided = [
        ((rng.random(3) < 0.8).astype(int).tolist(), (rng.random(3) < 0.3).astype(int).tolist())
        for _ in range(60)
    ]
    cases = [(tasks, k) for k in (1, 2, 3, 4)] + [(lopsided, k) for k in (1, 2, 3)]
    p_values = [p_test(case, k, metric) for case, k in cases]
    # 4 runs against 6 make the first four approximate; the lopsided tasks have 3 and 3
    assert [result.test for result in p_values] == ["sign_flip_approximate"] * 4 + [
        "sign_flip_exact"
    ] * 3
    expected = [float(exact_fraction(case, k, metric)) for case, k in cases]
    assert [result.p_value for result in p_values] == pytest.approx(expected, rel=1e-9, abs=0)
    assert min(expected) < 1e-10  # the comparison reaches the far tail


def monte_carlo_tasks():
    rng = np.random.default_rng(3)
    return [
        (rng.integers(0, 2, size=3).tolist(), (rng.random(2) < 0.3).astype(int).tolist())
        for _ in range(12)
    ]


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("k", [1, 2])
def test_the_monte_carlo_p_value_is_near_the_exact_one(metric, k, monkeypatch):
    tasks = monte_carlo_tasks()
    exact = p_test(tasks, k, metric)
    assert exact.test == "sign_flip_approximate"  # 3 runs against 2
    monkeypatch.setattr(_permutation, "_LATTICE", 0)
    resamples = 20_000
    result = p_test(tasks, k, metric, resamples=resamples, seed=5)
    assert result.test == f"sign_flip_monte_carlo ({resamples})"
    # (1 + hits) / (1 + resamples) with a whole number of hits
    hits = result.p_value * (1 + resamples) - 1
    assert hits == pytest.approx(round(hits), abs=1e-6)
    assert 1 / (1 + resamples) <= result.p_value <= 1
    # hits ~ Binomial(resamples, p): five standard errors, plus the shift of the added 1
    p = exact.p_value
    bound = 5 * math.sqrt(p * (1 - p) / resamples) + 1 / (1 + resamples)
    assert abs(result.p_value - p) <= bound
    assert p_test(tasks, k, metric, resamples=resamples, seed=5) == result


def test_the_monte_carlo_p_value_is_never_below_one_over_resamples_plus_one(monkeypatch):
    # A wins all 30 tasks 3-0 against 0-3: the exact p-value is 2 / 2**30, far below 1 / 101
    tasks = [([1, 1, 1], [0, 0, 0])] * 30
    assert p_test(tasks, 1, "pass_pow_k").p_value == pytest.approx(2 / 2**30, rel=1e-12)
    monkeypatch.setattr(_permutation, "_LATTICE", 0)
    assert p_test(tasks, 1, "pass_pow_k", resamples=100).p_value == 1 / 101


@pytest.mark.parametrize("metric", METRICS)
def test_tasks_both_agents_always_pass_or_always_fail_change_nothing(metric):
    settled = [([1, 1], [1, 1, 1]), ([0], [0]), ([0, 0, 0], [0, 0]), ([1], [1]), ([1, 1, 1], [1])]
    for tasks, k in CASES:
        reached = [case for case in settled if min(map(len, case)) >= k]
        before = p_test(tasks, k, metric).p_value
        after = p_test([*tasks, *reached, *reached], k, metric).p_value
        assert after == pytest.approx(before, abs=1e-12)


def equal_estimates(metric):
    """Pairs of (runs, passes) cells of different runs whose estimates at k are equal fractions."""
    for k in range(1, 5):
        cells = [(n, c) for n in range(k, 13) for c in range(n + 1)]
        value = {
            cell: Fraction(math.comb(cell[1], k), math.comb(cell[0], k))
            if metric == "pass_pow_k"
            else 1 - Fraction(math.comb(cell[0] - cell[1], k), math.comb(cell[0], k))
            for cell in cells
        }
        for first, second in itertools.combinations(cells, 2):
            if first[0] != second[0] and value[first] == value[second]:
                yield k, first, second


@pytest.mark.parametrize("metric", METRICS)
def test_a_task_whose_estimates_are_equal_fractions_contributes_nothing(metric):
    # e.g. pass^4 of 5 passes in 6 runs and of 8 in 10 are both 1/3, as fractions if not as
    # floats: the task's difference is 0 and flipping its sign changes nothing
    pairs = list(equal_estimates(metric))
    assert len(pairs) > 100
    others = ([1, 1, 1, 1, 0, 1], [0, 1, 0, 0, 1, 0, 0, 1, 0, 0]), ([1] * 6, [0] * 10)
    for k in range(1, 5):
        tasks = [
            ([1] * c_a + [0] * (n_a - c_a), [1] * c_b + [0] * (n_b - c_b))
            for at, (n_a, c_a), (n_b, c_b) in pairs  # (4, (6, 5), (10, 8)) among them
            if at == k
        ]
        assert p_test(tasks, k, metric).p_value == 1
        before = p_test(list(others), k, metric).p_value
        assert p_test([*others, *tasks], k, metric).p_value == pytest.approx(before, abs=1e-12)


@pytest.mark.parametrize("per_binomial", [0, 10**9])  # one binomial per size; a sign per task
def test_both_ways_of_drawing_monte_carlo_signs_give_the_exact_p_value_within_its_error(
    monkeypatch, per_binomial
):
    rng = np.random.default_rng(21)
    n = np.full(40, 6)
    c_a, c_b = rng.integers(0, 7, 40), rng.integers(0, 7, 40)
    exact = _permutation.permutation_test(
        n, c_a, n, c_b, 2, "pass_pow_k", n_resamples=1, rng=np.random.default_rng(0)
    )
    assert exact.test == "sign_flip_exact"
    monkeypatch.setattr(_permutation, "_LATTICE", 0)
    monkeypatch.setattr(_permutation, "_SIGNS_PER_BINOMIAL", per_binomial)
    monkeypatch.setattr(_permutation, "_SIGN_BLOCK", 1000)  # several blocks of draws
    draws = 20_000
    drawn = [
        _permutation.permutation_test(
            n, c_a, n, c_b, 2, "pass_pow_k", n_resamples=draws, rng=np.random.default_rng(3)
        )
        for _ in range(2)
    ]
    assert drawn[0] == drawn[1]  # the same seed, the same p-value
    error = np.sqrt(exact.p_value * (1 - exact.p_value) / draws)
    assert abs(drawn[0].p_value - exact.p_value) <= 5 * error + 1 / (1 + draws)


def test_a_monte_carlo_p_value_of_differences_past_any_float_is_not_lost_to_underflow():
    # pass^1000 of 1250 and of 1200 passes in 2000 runs: both far below the smallest float
    n = np.full(30, 2000)
    result = permutation_test(
        n,
        np.full(30, 1250),
        n,
        np.full(30, 1200),
        1000,
        "pass_pow_k",
        n_resamples=999,
        rng=np.random.default_rng(0),
    )
    assert result.test == "sign_flip_monte_carlo (999)"
    assert result.p_value == 1 / 1000  # every task the same way: no draw reaches it
