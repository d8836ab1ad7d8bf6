"""Two-stage plans: their estimates are unbiased, and the plan chosen is the best of its kind.

Every figure is checked against an enumeration of all the run sequences a plan
allows, weighted by their chance.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from passk_lab._data.cells import products
from passk_lab._two_stage import TwoStagePlan, choose_plan

PLANS = [
    TwoStagePlan(first=3, total=6, low=1, high=2),  # the mixed tasks go on
    TwoStagePlan(first=3, total=7, low=1, high=3),  # every task but one that failed all
    TwoStagePlan(first=4, total=6, low=0, high=4),  # every task goes on
    TwoStagePlan(first=4, total=8, low=4, high=4),  # only a task that passed all
    TwoStagePlan.fixed(4),
]


def _paths(plan: TwoStagePlan) -> list[tuple[int, ...]]:
    """Every run sequence the plan allows, as 0/1 tuples to the task's end."""
    paths = []
    for start in itertools.product((0, 1), repeat=plan.first):
        if plan.extends and plan.low <= sum(start) <= plan.high:
            paths.extend(
                start + rest for rest in itertools.product((0, 1), repeat=plan.total - plan.first)
            )
        else:
            paths.append(start)
    return paths


def _expected(plan: TwoStagePlan, k: int, statistic: str, p: float) -> tuple[float, float]:
    """Return the estimate's mean and mean square over every path, by enumeration."""
    mean = square = 0.0
    for path in _paths(plan):
        n, c = np.array([len(path)]), np.array([sum(path)])
        value = float(plan.estimates(n, c, np.array([k]), statistic)[0, 0])  # type: ignore[arg-type]
        chance = p ** sum(path) * (1 - p) ** (len(path) - sum(path))
        mean += chance * value
        square += chance * value**2
    return mean, square


@pytest.mark.parametrize("plan", PLANS, ids=str)
@pytest.mark.parametrize("statistic", ["pass_pow_k", "pass_at_k"])
def test_every_estimate_is_unbiased_and_in_zero_one(plan: TwoStagePlan, statistic: str) -> None:
    for k in range(1, plan.first + 1):
        for p in (0.1, 0.5, 0.83):
            truth = p**k if statistic == "pass_pow_k" else 1 - (1 - p) ** k
            assert _expected(plan, k, statistic, p)[0] == pytest.approx(truth, abs=1e-12)
    ends = [(len(path), sum(path)) for path in _paths(plan)]
    n, c = (np.array(part) for part in zip(*ends, strict=True))
    values = plan.estimates(n, c, np.arange(1, plan.first + 1), statistic)  # type: ignore[arg-type]
    assert np.all((values >= 0) & (values <= 1))


def test_an_estimate_is_the_share_of_allowed_paths_in_the_event() -> None:
    plan = TwoStagePlan(first=3, total=6, low=1, high=2)
    ends = [path for path in _paths(plan) if len(path) == 6 and sum(path) == 4]
    first_two_pass = sum(path[0] == path[1] == 1 for path in ends) / len(ends)
    value = plan.estimates(np.array([6]), np.array([4]), np.array([2]), "pass_pow_k")[0, 0]
    assert value == pytest.approx(first_two_pass, abs=1e-15)


def test_a_task_that_stopped_gets_the_usual_estimate() -> None:
    plan = TwoStagePlan(first=5, total=10, low=1, high=4)
    n, c, ks = np.array([5, 5]), np.array([0, 5]), np.arange(1, 6)
    assert np.array_equal(plan.estimates(n, c, ks, "pass_pow_k"), products(n, c, ks))
    fixed = TwoStagePlan.fixed(5)
    n, c = np.full(6, 5), np.arange(6)
    assert np.array_equal(fixed.estimates(n, c, ks, "pass_pow_k"), products(n, c, ks))
    assert not fixed.goes_on(np.arange(6)).any()


def test_a_task_ending_where_the_plan_cannot_end_is_refused() -> None:
    plan = TwoStagePlan(first=5, total=10, low=1, high=4)
    with pytest.raises(ValueError, match="ended at"):
        plan.estimates(np.array([8]), np.array([3]), np.array([5]), "pass_pow_k")
    with pytest.raises(ValueError, match="at most the first runs"):
        plan.estimates(np.array([5]), np.array([3]), np.array([6]), "pass_pow_k")


def _beta_moments(
    mean: float, icc: float, plan: TwoStagePlan, k: int, statistic: str
) -> tuple[float, float, float]:
    """Return E[estimate], E[estimate^2] and E[runs] over p ~ Beta, by enumerating paths.

    A path of c passes in n runs has chance
    ``E[p^c (1 - p)^(n - c)] = B(a + c, b + n - c) / B(a, b)``.
    """
    from scipy import special

    value = square = runs = 0.0
    for path in _paths(plan):
        n, c = len(path), sum(path)
        if icc == 0:
            chance = mean**c * (1 - mean) ** (n - c)
        else:
            a, b = mean * (1 - icc) / icc, (1 - mean) * (1 - icc) / icc
            chance = math.exp(special.betaln(a + c, b + n - c) - special.betaln(a, b))
        estimate = float(
            plan.estimates(np.array([n]), np.array([c]), np.array([k]), statistic)[0, 0]
        )  # type: ignore[arg-type]
        value += chance * estimate
        square += chance * estimate**2
        runs += chance * n
    return value, square, runs


@pytest.mark.parametrize(
    ("statistic", "mean", "icc"),
    [("pass_pow_k", 0.7, 0.05), ("pass_at_k", 0.4, 0.05), ("pass_pow_k", 0.8, 0.0)],
)
def test_the_plan_chosen_needs_the_fewest_runs_of_the_plans_compared(statistic, mean, icc) -> None:
    first, most, k = 3, 6, 3
    chosen = choose_plan(mean, icc, first=first, most=most, k=k, statistic=statistic)
    scores = {}
    # totals compared: 1.5, 2, 3, ... times the 3 first runs, rounded up and capped at 6
    candidates = [TwoStagePlan.fixed(first)] + [
        TwoStagePlan(first, total, low, high)
        for total in (5, 6)
        for low in range(first + 1)
        for high in range(low, first + 1)
    ]
    for plan in candidates:
        value, square, runs = _beta_moments(mean, icc, plan, k, statistic)
        scores[plan] = (square - value**2) * runs
    best = min(scores, key=scores.__getitem__)
    fixed = scores[TwoStagePlan.fixed(first)]
    # a plan that goes on is chosen where it promises 10% fewer runs than the fixed one
    assert scores[best] <= 0.9 * fixed, "the test checks too little: no plan goes on here"
    assert scores[chosen] == pytest.approx(scores[best], rel=1e-6)
    assert choose_plan(mean, 0.6, first=first, most=most, k=k, statistic=statistic) == (
        TwoStagePlan.fixed(first)
    )


def test_plans_follow_the_tasks() -> None:
    same = choose_plan(0.85, 0.0, first=5, most=20, k=5, statistic="pass_pow_k")
    assert same.extends
    assert same.total == 20
    assert not choose_plan(0.85, 0.4, first=5, most=20, k=5, statistic="pass_pow_k").extends
    assert choose_plan(
        0.85, 0.0, first=5, most=5, k=5, statistic="pass_pow_k"
    ) == TwoStagePlan.fixed(5)
    assert choose_plan(
        1.0, 0.0, first=5, most=20, k=5, statistic="pass_pow_k"
    ) == TwoStagePlan.fixed(5)


@pytest.mark.parametrize("mean", [0.3, 0.9666666666666667, 0.99])
def test_a_fit_at_the_edge_of_identical_tasks_plans_as_identical_tasks(mean) -> None:
    # a beta-binomial fit at its boundary returns an icc such as 3.6e-17 (shapes of 1e17)
    for icc in (3.5679772489937166e-17, 1e-13):
        assert choose_plan(mean, icc, first=5, most=20, k=5, statistic="pass_pow_k") == (
            choose_plan(mean, 0.0, first=5, most=20, k=5, statistic="pass_pow_k")
        )


def test_many_runs_per_task_plan_without_overflow() -> None:
    plan = choose_plan(0.5, 0.02, first=5, most=1100, k=5, statistic="pass_pow_k")
    assert plan.first == 5
    assert plan.total <= 1100
    value = TwoStagePlan(5, 1100, 1, 5).estimates(
        np.array([1100]), np.array([600]), np.array([5]), "pass_pow_k"
    )
    assert 0.0 <= value[0, 0] <= 1.0
