import math

import numpy as np
import pandas as pd
import pytest
from scipy import special
from statsmodels.stats.proportion import samplesize_confint_proportion

import passk_lab as pk
from passk_lab._data.cells import products


def test_required_p_inverts_p_to_the_k():
    targets = np.array([0.0, 0.2, 0.5, 0.9, 1.0])
    for k in (1, 2, 5, 16):
        assert pk.required_p(targets, k) ** k == pytest.approx(targets, abs=1e-15)
    assert pk.required_p(0.5, [1, 2]).tolist() == pytest.approx([0.5, math.sqrt(0.5)])
    assert isinstance(pk.required_p(0.9, 5), float)


@pytest.mark.parametrize(
    ("target", "k", "error", "message"),
    [
        (1.5, 2, ValueError, r"in \[0, 1\]"),
        (0.5, 0, ValueError, "positive"),
        (0.5, 2.5, TypeError, "integer"),
    ],
)
def test_required_p_refuses_bad_input(target, k, error, message):
    with pytest.raises(error, match=message):
        pk.required_p(target, k)


@pytest.mark.parametrize("p0", [0.5, 0.8, 0.9, 0.95, 0.99, 0.999])
@pytest.mark.parametrize("level", [0.8, 0.9, 0.95, 0.99])
def test_zero_failure_runs_is_the_smallest_n_that_demonstrates_p0(p0, level):
    runs = pk.zero_failure_runs(p0, level)
    assert p0**runs <= 1 - level < p0 ** (runs - 1)
    # the one-sided Clopper-Pearson lower bound after n passes of n is the two-sided
    # bound at level 2 * level - 1
    bound = pk.binomial_ci(runs, runs, confidence_level=2 * level - 1, method="clopper_pearson")
    assert bound.low >= p0 - 1e-12
    fewer = pk.binomial_ci(
        runs - 1, runs - 1, confidence_level=2 * level - 1, method="clopper_pearson"
    )
    assert fewer.low < p0


def test_zero_failure_runs_at_an_exact_power():
    assert pk.zero_failure_runs(0.5, 0.75) == 2  # 0.5^2 is exactly 0.25


@pytest.mark.parametrize("p0", [0.0, 1.0])
def test_zero_failure_runs_needs_p0_inside(p0):
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        pk.zero_failure_runs(p0)


@pytest.mark.parametrize(
    ("p", "k", "half_width"), [(0.85, 5, 0.05), (0.6, 3, 0.1), (0.95, 10, 0.03)]
)
def test_plan_with_k_runs_and_identical_tasks_is_the_binomial_sample_size(p, k, half_width):
    plan = pk.plan_evaluation(half_width, p, k, runs_per_task=k)
    row = plan.iloc[0]
    expected = samplesize_confint_proportion(p**k, half_width, alpha=0.05)
    assert row["n_tasks"] == math.ceil(expected)
    assert row["pass_pow_k"] == pytest.approx(p**k)
    assert row["task_sd"] == pytest.approx(math.sqrt(p**k * (1 - p**k)))
    assert row["half_width"] <= half_width
    assert 1.96 * row["task_sd"] / math.sqrt(row["n_tasks"] - 1) > half_width


def test_task_sd_matches_simulated_tasks():
    p, icc, runs, k = 0.7, 0.3, 10, 4
    row = pk.plan_evaluation(0.05, p, k, runs_per_task=runs, icc=icc).iloc[0]
    alpha, beta = p * (1 - icc) / icc, (1 - p) * (1 - icc) / icc
    rng = np.random.default_rng(1)
    passes = rng.binomial(runs, rng.beta(alpha, beta, size=400_000))
    values = products(np.full(len(passes), runs), passes, np.array([k]))[:, 0]
    assert row["task_sd"] == pytest.approx(values.std(), rel=0.01)
    truth = math.exp(special.betaln(alpha + k, beta) - special.betaln(alpha, beta))
    assert row["pass_pow_k"] == pytest.approx(truth, rel=1e-10)


def test_planned_tasks_give_the_half_width_in_simulation():
    plan = pk.plan_evaluation(0.05, 0.85, 5, runs_per_task=5, icc=0.3).iloc[0]
    tasks = int(plan["n_tasks"])
    rng = np.random.default_rng(2)
    alpha, beta = 0.85 * 0.7 / 0.3, 0.15 * 0.7 / 0.3
    chances = rng.beta(alpha, beta, size=(2000, tasks))
    passed_all = (rng.binomial(5, chances) == 5).sum(axis=1)
    low, high = pk.binomial_ci(passed_all, tasks)
    assert np.mean((high - low) / 2) == pytest.approx(0.05, rel=0.03)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"half_width": 0}, r"half_width must be in \(0, 0.5\]"),
        ({"half_width": 0.7}, r"half_width must be in \(0, 0.5\]"),
        ({"p": 1.0}, "p must be strictly between 0 and 1"),
        ({"icc": 1.0}, "icc must be below 1"),
        ({"runs_per_task": [5, 3]}, "at least k = 4"),
        ({"confidence_level": 1}, "strictly between"),
    ],
)
def test_plan_refuses_bad_input(kwargs, message):
    settings = {"half_width": 0.05, "p": 0.8, "k": 4, **kwargs}
    with pytest.raises(ValueError, match=message):
        pk.plan_evaluation(**settings)


def test_the_old_runs_keyword_still_plans_with_a_warning() -> None:
    with pytest.warns(DeprecationWarning, match="runs_per_task"):
        old = pk.plan_evaluation(0.05, 0.85, 5, runs=[5, 10])
    pd.testing.assert_frame_equal(old, pk.plan_evaluation(0.05, 0.85, 5, runs_per_task=[5, 10]))
    with pytest.raises(TypeError, match="not both"):
        pk.plan_evaluation(0.05, 0.85, 5, runs=5, runs_per_task=5)
