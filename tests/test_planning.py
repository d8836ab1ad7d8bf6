import math

import numpy as np
import pandas as pd
import pytest
from scipy import special, stats
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


def _smallest_power(chance, tail):
    count = 1
    while chance**count > tail:
        count += 1
    return count


def _all_pass(p0, icc, runs):
    """E[p^runs] for p ~ Beta(mean p0, icc), from the beta function."""
    alpha, beta = p0 * (1 - icc) / icc, (1 - p0) * (1 - icc) / icc
    return math.exp(special.betaln(alpha + runs, beta) - special.betaln(alpha, beta))


def test_fifty_nine_passes_on_one_task_show_little_when_tasks_differ():
    # mean 0.95, icc 0.1: 59 passes on one task happen 39% of the time
    chance = _all_pass(0.95, 0.1, 59)
    assert round(chance, 2) == 0.39
    runs = pk.zero_failure_runs(0.95, icc=0.1, runs_per_task=59)
    assert runs == 59 * _smallest_power(chance, 0.05)
    assert runs > pk.zero_failure_runs(0.95) == 59


@pytest.mark.parametrize(
    ("p0", "icc", "runs_per_task", "level"),
    [(0.95, 0.1, 5, 0.95), (0.9, 0.3, 10, 0.9), (0.99, 0.05, 3, 0.99), (0.8, 0.5, 2, 0.8)],
)
def test_zero_failure_runs_of_tasks_that_differ(p0, icc, runs_per_task, level):
    runs = pk.zero_failure_runs(p0, level, icc=icc, runs_per_task=runs_per_task)
    chance = _all_pass(p0, icc, runs_per_task)
    tasks = runs // runs_per_task
    assert runs == tasks * runs_per_task
    assert chance**tasks <= 1 - level < chance ** (tasks - 1)


@pytest.mark.parametrize("p0", [0.8, 0.95, 0.99])
@pytest.mark.parametrize("level", [0.9, 0.95])
def test_one_run_per_task_or_no_icc_is_the_independent_answer(p0, level):
    independent = _smallest_power(p0, 1 - level)
    assert pk.zero_failure_runs(p0, level) == independent
    assert pk.zero_failure_runs(p0, level, icc=0.0) == independent
    assert pk.zero_failure_runs(p0, level, icc=0.3, runs_per_task=1) == independent
    # no icc, r runs a task: whole tasks of independent runs
    tasks = _smallest_power(p0**4, 1 - level)
    assert pk.zero_failure_runs(p0, level, runs_per_task=4) == 4 * tasks


def test_tasks_that_differ_need_more_passes():
    runs = [pk.zero_failure_runs(0.95, icc=icc, runs_per_task=10) for icc in (0, 0.1, 0.3)]
    assert runs == sorted(runs)
    assert runs[0] < runs[-1]


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"icc": 0.1}, ValueError, "needs runs_per_task"),
        ({"icc": 1.0, "runs_per_task": 3}, ValueError, "icc must be below 1"),
        ({"runs_per_task": 0}, ValueError, "runs_per_task must be a positive integer"),
        ({"runs_per_task": 2.5}, TypeError, "runs_per_task"),
    ],
)
def test_zero_failure_runs_refuses_bad_input(kwargs, error, message):
    with pytest.raises(error, match=message):
        pk.zero_failure_runs(0.9, **kwargs)


@pytest.mark.parametrize(
    ("p", "k", "half_width"), [(0.85, 5, 0.05), (0.6, 3, 0.1), (0.95, 10, 0.03)]
)
def test_plan_with_k_runs_and_identical_tasks_is_the_binomial_sample_size(p, k, half_width):
    plan = pk.plan_evaluation(half_width, p, k, runs_per_task=k, assurance=None)
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
    plan = pk.plan_evaluation(0.05, 0.85, 5, runs_per_task=5, icc=0.3, assurance=None).iloc[0]
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
        ({"p": 10**400}, "p must be a probability in"),
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


def _reported_half_width(values, runs, k, level=0.95):
    """Half the default pass^k interval of each row of per-task values (rows: evaluations).

    Clopper-Pearson on the tasks at k runs a task; elsewhere on the effective
    tasks m (1 - m) / Var(m), Var(m) from the values with a task at 0 and at 1
    added, at most tasks * (runs // k), the tasks where every value is 0 or 1.
    """
    tasks = values.shape[1]
    m = values.mean(axis=1)
    if runs == k:
        trials = np.full(len(m), float(tasks))
    else:
        padded = np.hstack([values, np.zeros((len(m), 1)), np.ones((len(m), 1))])
        squares = ((padded - padded.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
        variance = squares / ((tasks - 1) * (tasks + 2))
        effective = np.minimum(m * (1 - m) / variance, tasks * (runs // k))
        trials = np.where((m > 0) & (m < 1), effective, tasks)
    x = m * trials
    tail = (1 - level) / 2
    with np.errstate(all="ignore"):
        low = np.where(x > 0, stats.beta.ppf(tail, x, trials - x + 1), 0.0)
        high = np.where(x < trials, stats.beta.ppf(1 - tail, x + 1, trials - x), 1.0)
    return (high - low) / 2


def _simulated_reach(p, icc, runs, k, tasks, half_width, repeats, seed):
    """Evaluations (of `repeats`) whose reported interval is at most `half_width` each side."""
    rng = np.random.default_rng(seed)
    if icc == 0:
        chances = np.full((repeats, tasks), p)
    else:
        chances = rng.beta(p * (1 - icc) / icc, (1 - p) * (1 - icc) / icc, size=(repeats, tasks))
    passes = rng.binomial(runs, chances)
    values = special.comb(passes, k) / math.comb(runs, k)
    return int((_reported_half_width(values, runs, k) <= half_width).sum())


@pytest.mark.parametrize(
    ("half_width", "p", "k", "runs", "icc"),
    [
        (0.05, 0.85, 5, 10, 0.3),
        (0.1, 0.6, 3, 6, 0.1),
        (0.05, 0.95, 1, 1, 0.0),
        (0.1, 0.9, 3, 3, 0.2),
    ],
)
def test_an_assurance_plan_reaches_its_half_width_in_simulation(half_width, p, k, runs, icc):
    row = pk.plan_evaluation(half_width, p, k, runs_per_task=runs, icc=icc).iloc[0]
    repeats = 1000
    reached = _simulated_reach(p, icc, runs, k, int(row["n_tasks"]), half_width, repeats, seed=3)
    # a plan that reached the half-width in only 70% of evaluations would pass this bar
    # with chance below 0.001; one that reaches it in 80% fails it with chance below 1e-4
    bar = stats.binom.isf(0.001, repeats, 0.7) + 1
    assert stats.binom.cdf(bar - 1, repeats, 0.8) < 1e-4
    assert reached >= bar
    # the chance the plan reports is the simulated one, within sampling error
    spread = math.sqrt(row["assurance"] * (1 - row["assurance"]) / repeats)
    assert reached / repeats == pytest.approx(row["assurance"], abs=4 * spread + 0.01)
    assert row["half_width"] <= half_width


@pytest.mark.parametrize(("p", "k", "icc"), [(0.85, 5, 0.3), (0.95, 1, 0.0), (0.7, 3, 0.1)])
def test_more_assurance_needs_more_tasks(p, k, icc):
    plans = [pk.plan_evaluation(0.05, p, k, icc=icc, assurance=a) for a in (0.5, 0.8, 0.9, 0.99)]
    tasks = np.array([plan["n_tasks"].to_numpy() for plan in plans])
    assert (np.diff(tasks, axis=0) >= 0).all()
    assert (tasks[-1] > tasks[0]).all()
    for plan, wanted in zip(plans, (0.5, 0.8, 0.9, 0.99), strict=True):
        assert (plan["assurance"] >= wanted).all()


def test_no_assurance_is_the_expected_half_width_plan():
    p, icc, k, half_width = 0.8, 0.2, 3, 0.05
    plan = pk.plan_evaluation(half_width, p, k, icc=icc, assurance=None)
    alpha, beta = p * (1 - icc) / icc, (1 - p) * (1 - icc) / icc
    z = stats.norm.ppf(0.975)
    for row in plan.itertuples():
        runs = row.runs_per_task
        chances = stats.betabinom.pmf(np.arange(runs + 1), runs, alpha, beta)
        values = np.array([math.comb(c, k) / math.comb(runs, k) for c in range(runs + 1)])
        sd = math.sqrt(chances @ values**2 - (chances @ values) ** 2)
        assert row.n_tasks == math.ceil((z * sd / half_width) ** 2)
        assert row.half_width == pytest.approx(z * sd / math.sqrt(row.n_tasks))
        assert row.task_sd == pytest.approx(sd)
    assert list(plan.columns) == [
        "runs_per_task",
        "n_tasks",
        "total_runs",
        "pass_pow_k",
        "task_sd",
        "half_width",
        "assurance",
    ]


def test_the_same_call_gives_the_same_plan():
    first = pk.plan_evaluation(0.05, 0.7, 3, icc=0.2)
    pd.testing.assert_frame_equal(first, pk.plan_evaluation(0.05, 0.7, 3, icc=0.2))


@pytest.mark.parametrize(
    ("assurance", "error", "message"),
    [
        (0.0, ValueError, r"assurance must be strictly between 0 and 1 .* or None"),
        (1.0, ValueError, "assurance must be strictly between 0 and 1"),
        (1.5, ValueError, "assurance must be strictly between 0 and 1"),
        (float("nan"), ValueError, "assurance must be strictly between 0 and 1"),
        ("0.8", TypeError, "assurance must be a number"),
        (True, TypeError, "assurance must be a number"),
    ],
)
def test_plan_refuses_an_assurance_outside_0_1(assurance, error, message):
    with pytest.raises(error, match=message):
        pk.plan_evaluation(0.05, 0.8, 3, assurance=assurance)


def _exact_reach(tasks, chance, half_width, level=0.95):
    """The chance that Clopper-Pearson on Binomial(tasks, chance) tasks is within half_width."""
    x = np.arange(tasks + 1.0)
    tail = (1 - level) / 2
    low = np.where(x > 0, stats.beta.ppf(tail, x, tasks - x + 1), 0.0)
    high = np.where(x < tasks, stats.beta.ppf(1 - tail, x + 1, tasks - x), 1.0)
    return stats.binom.pmf(x, tasks, chance)[(high - low) / 2 <= half_width].sum()


@pytest.mark.parametrize(
    ("half_width", "p", "k", "icc"),
    [(0.05, 0.95, 1, 0.0), (0.1, 0.6, 3, 0.0), (0.03, 0.9, 2, 0.3), (0.1, 0.97, 1, 0.0)],
)
def test_at_k_runs_any_evaluation_from_the_planned_size_up_keeps_the_assurance(
    half_width, p, k, icc
):
    # the count of tasks that passed all k runs is an integer: the chance of reaching the
    # half-width rises and falls with the tasks; the plan is past the last fall below 0.8
    row = pk.plan_evaluation(half_width, p, k, runs_per_task=k, icc=icc).iloc[0]
    tasks, chance = int(row["n_tasks"]), row["pass_pow_k"]
    assert row["assurance"] == pytest.approx(_exact_reach(tasks, chance, half_width), abs=1e-9)
    for more in range(tasks, tasks + 150):
        assert _exact_reach(more, chance, half_width) >= 0.8
