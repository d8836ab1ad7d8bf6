"""The adaptive evaluation's procedure: which runs to make next, and when to stop.

:func:`procedure` is a generator that asks for runs and is sent their
outcomes, so that the harness (real runs, a ledger, concurrency) and a
simulation study (drawn outcomes) carry out the very same decisions:

1. The pool's tasks are taken in a random order (a permutation drawn from
   the seed), `batch` at a time.
2. Each task of a batch gets the first runs, then, if its plan says so, its
   second stage (:mod:`passk_lab._two_stage`). The plan of a batch is chosen
   from the tasks of the batches before it only, so every task's estimate is
   unbiased given the past.
3. After each batch the target interval is computed on every task so far, and
   the procedure stops when it is narrow enough, or sign-decided for two
   agents, or when a limit is reached.

One agent: the interval is the sequential one, :func:`sequential_interval`,
whose coverage under this stopping rule is measured by
``study/adaptive_coverage.py``, or, with ``anytime``, the betting confidence
sequence of :mod:`passk_lab._confidence_sequence`, valid under any stopping
rule and wider for it. Two agents: the paired differences always get the
betting sequence, since stopping when the sign is decided is a rule a
fixed-sample interval does not survive.
"""

from __future__ import annotations

import math
from collections.abc import Generator, Mapping
from dataclasses import dataclass, field
from typing import Literal, NamedTuple, TypeAlias

import numpy as np

from passk_lab._confidence_sequence import betting_interval
from passk_lab._interval_policy import IntervalSpec, mean_intervals
from passk_lab._two_stage import Statistic, TwoStagePlan, choose_plan
from passk_lab._typing import Floats, Ints
from passk_lab._warnings import EvaluationWarning, warn
from passk_lab.heterogeneity import fit_cells

__all__ = [
    "Design",
    "Ends",
    "Job",
    "Look",
    "Outcome",
    "Stop",
    "StopReason",
    "procedure",
    "sequential_interval",
    "target_interval",
    "target_limits",
]

_FIT_TASKS = 10
"""Tasks run before a plan may go past the first runs: a fit of fewer says little about them."""
_REFIT = 1.25
"""The plan is fitted again once the tasks have grown by this factor since the last fit."""

StopReason: TypeAlias = Literal["half_width", "sign", "max_runs", "max_cost", "exhausted"]


class Job(NamedTuple):
    """One run to make: of which agent (0, or 1 for the second), which pool task, which run."""

    agent: int
    task: int  # position in the pool
    run: int


class Outcome(NamedTuple):
    """What one run gave: its verdict and what it cost (None: nothing recorded)."""

    passed: bool
    cost: Mapping[str, float] | None


@dataclass(frozen=True)
class Design:
    """The settings of an adaptive evaluation, checked by the caller."""

    k: int
    statistic: Statistic
    half_width: float
    confidence_level: float
    first: int  # runs every task gets (min_runs)
    most: int  # runs a task may get (max_runs_per_task)
    batch: int  # tasks per batch
    pool: int  # tasks in the pool
    seed: int
    agents: int = 1
    anytime: bool = False  # one agent: the betting confidence sequence, not the sequential interval
    max_runs: int | None = None
    max_cost: Mapping[str, float] = field(default_factory=dict)


@dataclass
class Ends:
    """Where every task evaluated so far ended, per agent, in the order the tasks were drawn."""

    tasks: list[int] = field(default_factory=list)  # pool positions
    plans: list[list[TwoStagePlan]] = field(default_factory=list)  # per agent, per task
    n: list[list[int]] = field(default_factory=list)
    c: list[list[int]] = field(default_factory=list)
    targets: list[list[float]] = field(default_factory=list)  # the target's estimate per task

    def values(self, agent: int, ks: Ints, statistic: Statistic) -> Floats:
        """Return every task's unbiased estimate for `agent` at each k (tasks x ks)."""
        n, c = np.array(self.n[agent], dtype=np.int64), np.array(self.c[agent], dtype=np.int64)
        values = np.empty((len(n), len(ks)))
        plans = self.plans[agent]
        for plan in set(plans):
            rows = np.array([each == plan for each in plans])
            values[rows] = plan.estimates(n[rows], c[rows], ks, statistic)
        return values

    def runs(self, agent: int) -> Ints:
        return np.array(self.n[agent], dtype=np.int64)


class Look(NamedTuple):
    """What the stopping rule saw after one batch: the runs so far, and the target's interval.

    `cost` totals every cost the runs recorded so far, by name; `estimate`,
    `low` and `high` are the target's (the difference's, for two agents).
    """

    tasks: int
    runs: int
    cost: dict[str, float]
    estimate: float
    low: float
    high: float


class Stop(NamedTuple):
    """Why the procedure stopped, where every task ended, and what it saw after each batch."""

    reason: StopReason
    ends: Ends
    runs: int
    cost: dict[str, float]
    looks: tuple[Look, ...] = ()


def sequential_interval(
    values: Floats, n: Ints, k: int, confidence_level: float
) -> tuple[float, float]:
    """Return the one-agent interval of the mean of per-task estimates in [0, 1].

    The effective-n interval of a curve (Clopper-Pearson on the tasks when
    every value is 0 or 1, on ``m (1 - m) / Var(m)`` effective tasks with one
    pseudo-task at 0 and one at 1 otherwise), without the curve's cap at the
    disjoint blocks of k runs: a two-stage plan's estimate of a task that went
    on uses every run, and is worth more than its blocks. It is always the
    policy's ``"auto"`` interval: its coverage under the stopping rule is
    what ``study/adaptive_coverage.py`` measured, and a method chosen for it
    would be one nobody has measured (an adaptive evaluation's choice of
    interval is ``evaluate_until(interval=)``, sequential or anytime).

    Examples
    --------
    >>> import numpy as np
    >>> values = np.array([1.0] * 30 + [0.0] * 10)
    >>> [round(limit, 3) for limit in sequential_interval(values, np.full(40, 5), 5, 0.95)]
    [0.588, 0.873]
    """
    found = mean_intervals(
        values[:, None],
        n,
        np.ones(len(values), dtype=np.int64),
        np.array([k]),
        IntervalSpec.of("auto", confidence_level),
        capped=False,
    )
    return float(found.low[0]), float(found.high[0])


def _next_plan(design: Design, ends: Ends, agent: int) -> TwoStagePlan:
    """Return the plan for the next batch, from a beta-binomial fit of the tasks so far."""
    if design.most <= design.first:
        return TwoStagePlan.fixed(design.first)
    cells, tasks = np.unique(
        np.stack([ends.runs(agent), np.array(ends.c[agent], dtype=np.int64)]),
        axis=1,
        return_counts=True,
    )
    fit = fit_cells(cells[0], cells[1], tasks, model="betabinom")
    icc = fit.icc if math.isfinite(fit.icc) else 0.0
    return choose_plan(
        fit.mean, icc, first=design.first, most=design.most, k=design.k, statistic=design.statistic
    )


def target_interval(
    design: Design, values: Floats, n: Ints, k: int, *, difference: bool = False
) -> tuple[float, float]:
    """Return the interval `design` reports for the mean of per-task estimates at `k`.

    One agent: :func:`sequential_interval`, or with ``anytime`` the betting
    confidence sequence on [0, 1]. Two agents: the betting sequence, of each
    agent's estimates on [0, 1] and, with `difference`, of the paired
    differences on [-1, 1]. `n` is each task's runs.
    """
    if difference:
        return betting_interval(values, design.confidence_level, low=-1.0, high=1.0)
    if design.agents == 1 and not design.anytime:
        return sequential_interval(values, n, k, design.confidence_level)
    return betting_interval(values, design.confidence_level)


def target_limits(design: Design, ends: Ends) -> tuple[float, float]:
    """Return the interval the stopping rule reads at `ends`: the target's, or the difference's."""
    values = _target_values(design, ends)
    if design.agents == 1:
        return target_interval(design, values, ends.runs(0), design.k)
    return target_interval(design, values, ends.runs(0), design.k, difference=True)


def _target_values(design: Design, ends: Ends) -> Floats:
    """Return every task's estimate of the target: the agent's, or the paired difference."""
    values = np.array(ends.targets[0])
    return values if design.agents == 1 else values - np.array(ends.targets[1])


def _look(design: Design, ends: Ends, runs: int, totals: Mapping[str, float]) -> Look:
    """Return what the stopping rule sees at `ends`, `runs` runs and `totals` spent so far."""
    low, high = target_limits(design, ends)
    estimate = float(_target_values(design, ends).mean())
    return Look(len(ends.tasks), runs, dict(totals), estimate, low, high)


def _reached(design: Design, low: float, high: float) -> StopReason | None:
    if not (math.isfinite(low) and math.isfinite(high)):
        return None
    if (high - low) / 2.0 <= design.half_width:
        return "half_width"
    if design.agents == 2 and (low > 0.0 or high < 0.0):
        return "sign"
    return None


def _warn_unrecorded(limits: Mapping[str, float], seen: set[str]) -> None:
    unrecorded = [name for name in limits if name not in seen]
    if unrecorded:
        recorded = ", ".join(map(repr, sorted(seen))) or "none"
        warn(
            EvaluationWarning(
                f"max_cost limits {', '.join(map(repr, unrecorded))}, but no run of the first "
                f"batch recorded a cost of that name (the runs recorded: {recorded}), so that "
                "limit cannot stop the evaluation; name a cost the runs record, or give the tasks "
                "a cost",
                keywords=("max_cost",),
            )
        )


def procedure(design: Design) -> Generator[list[Job], dict[Job, Outcome], Stop]:
    """Ask for runs batch by batch, and return why and where the evaluation stopped.

    Each ``yield`` gives the runs to make next; send back a dict of every one
    of them to its :class:`Outcome`. The generator returns a :class:`Stop`.

    Examples
    --------
    Four tasks, one always right and the rest right half the time, as a
    simulation draws them:

    >>> import numpy as np
    >>> design = Design(k=2, statistic="pass_pow_k", half_width=0.01, confidence_level=0.95,
    ...                 first=2, most=2, batch=2, pool=4, seed=0)
    >>> steps, rng = procedure(design), np.random.default_rng(1)
    >>> jobs = next(steps)
    >>> try:
    ...     while True:
    ...         jobs = steps.send({job: Outcome(job.task == 0 or bool(rng.random() < 0.5), None)
    ...                            for job in jobs})
    ... except StopIteration as stopped:
    ...     stop = stopped.value
    >>> stop.reason, sorted(stop.ends.tasks), stop.runs
    ('exhausted', [0, 1, 2, 3], 8)
    """
    order = np.random.default_rng(design.seed).permutation(design.pool)
    agents = range(design.agents)
    ends = Ends(
        plans=[[] for _ in agents],
        n=[[] for _ in agents],
        c=[[] for _ in agents],
        targets=[[] for _ in agents],
    )
    fitted = 0  # tasks at the last fit
    seen: set[str] = set()  # the cost names the runs recorded
    runs, spent = 0, dict.fromkeys(design.max_cost, 0.0)
    totals: dict[str, float] = {}  # every cost the runs recorded, by name
    looks: list[Look] = []
    plans = [TwoStagePlan.fixed(design.first) for _ in agents]
    used = 0
    while True:
        if used == design.pool:
            return Stop("exhausted", ends, runs, spent, tuple(looks))
        size = min(design.batch, design.pool - used)
        worst = sum(plan.total if plan.extends else plan.first for plan in plans)  # runs a task
        if design.max_runs is not None:
            size = min(size, (design.max_runs - runs) // worst)
            if size <= 0:
                return Stop("max_runs", ends, runs, spent, tuple(looks))
        fits = [  # tasks whose most runs fit the budget left, at the mean cost of a run so far
            (limit - spent[name]) / (spent[name] / runs * worst)
            for name, limit in design.max_cost.items()
            if spent[name] > 0  # nothing spent yet (or no batch run): no mean to judge by
        ]
        if fits:
            size = min(size, math.floor(min(fits)))
            if size <= 0:
                return Stop("max_cost", ends, runs, spent, tuple(looks))
        tasks = order[used : used + size].tolist()
        used += size
        first = {
            Job(agent, task, run): None
            for task in tasks
            for agent in agents
            for run in range(design.first)
        }
        outcomes = yield list(first)
        later: list[Job] = []
        passes: dict[tuple[int, int], int] = {}
        for agent in agents:
            for task in tasks:
                c1 = sum(outcomes[Job(agent, task, run)].passed for run in range(design.first))
                passes[agent, task] = c1
                if plans[agent].goes_on(np.array(c1)):
                    later.extend(
                        Job(agent, task, run) for run in range(design.first, plans[agent].total)
                    )
        if later:
            outcomes = {**outcomes, **(yield later)}
        for outcome in outcomes.values():
            runs += 1
            if outcome.cost is not None:
                seen.update(outcome.cost)
                for name in spent:
                    spent[name] += outcome.cost.get(name, 0.0)
                for name, value in outcome.cost.items():
                    totals[name] = totals.get(name, 0.0) + value
        if not ends.tasks:  # the first batch: say so if a limit names a cost no run records
            _warn_unrecorded(design.max_cost, seen)
        ends.tasks.extend(tasks)
        for agent in agents:
            for task in tasks:
                went_on = bool(plans[agent].goes_on(np.array(passes[agent, task])))
                total = plans[agent].total if went_on else design.first
                ends.plans[agent].append(plans[agent])
                ends.n[agent].append(total)
                ends.c[agent].append(
                    passes[agent, task]
                    + sum(
                        outcomes[Job(agent, task, run)].passed for run in range(design.first, total)
                    )
                )
            batch_n = np.array(ends.n[agent][-len(tasks) :], dtype=np.int64)
            batch_c = np.array(ends.c[agent][-len(tasks) :], dtype=np.int64)
            estimates = plans[agent].estimates(
                batch_n, batch_c, np.array([design.k]), design.statistic
            )
            ends.targets[agent].extend(estimates[:, 0].tolist())
        looks.append(_look(design, ends, runs, totals))
        reason = _reached(design, looks[-1].low, looks[-1].high)
        if reason is not None:
            return Stop(reason, ends, runs, spent, tuple(looks))
        if any(spent[name] >= limit for name, limit in design.max_cost.items()):
            return Stop("max_cost", ends, runs, spent, tuple(looks))
        if len(ends.tasks) >= max(_FIT_TASKS, _REFIT * fitted):
            plans = [_next_plan(design, ends, agent) for agent in agents]
            fitted = len(ends.tasks)
