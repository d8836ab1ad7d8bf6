"""How a plan is found: the law of an evaluation's reported half-width, and the fewest tasks.

:class:`TaskLaw` is one task's pass^k estimate under the model of
:func:`~passk_lab.plan_evaluation`; the half-width an evaluation of T tasks
reports has an exact law at k runs a task (a binomial count) and a simulated
one with more runs (4,000 evaluations from a fixed seed). :func:`plan_row`
searches the fewest tasks that reach a half-width with a chance, by scaling
the tasks towards a fixed point; docs/uncertainty.md ("How a plan is found")
says why so.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np

from passk_lab._data.cells import pass_pow_k_values
from passk_lab._goodness_of_fit import outcome_chances
from passk_lab._interval import clopper_pearson, z_value
from passk_lab._interval_policy import IntervalSpec, mean_intervals
from passk_lab._typing import Floats

__all__ = ["TaskLaw", "plan_row"]

_SEED = 17  # every plan draws the same evaluations, so the same call gives the same plan
_REPLICATES = 4000  # simulated evaluations per number of tasks: the assurance to about 0.006
_MARGIN = 2.0  # standard errors of a simulated share added to the assurance asked for
_SCALINGS = 6  # steps T -> T (h_T / h)^2 towards the tasks whose assured half-width is h
_TAIL = 1e-12  # binomial tail mass left out of the exact law at k runs per task


@dataclass(frozen=True, eq=False)
class TaskLaw:
    """One task's pass^k estimate ``C(c, k) / C(n, k)`` under the model: values and chances."""

    scores: Floats  # the values C(c, k) / C(n, k) for c = 0, ..., runs
    chances: Floats
    runs: int
    k: int

    @classmethod
    def of(cls, p: float, icc: float, runs: int, k: int) -> TaskLaw:
        outcomes = np.arange(runs + 1, dtype=np.int64)
        values = pass_pow_k_values(np.full(len(outcomes), runs), outcomes, np.array([k]))[:, 0]
        return cls(values, outcome_chances(p, icc, runs), runs, k)

    @property
    def mean(self) -> float:
        return float(self.chances @ self.scores)

    @property
    def sd(self) -> float:
        variance = float(self.chances @ (self.scores - self.mean) ** 2)
        return math.sqrt(max(variance, 0.0))


def _half_widths(law: TaskLaw, tasks: int, level: float) -> tuple[Floats, Floats]:
    """Return the reported pass^k interval's half-widths over evaluations of `tasks` tasks.

    The half-widths come sorted, with the cumulative chance of each. At k runs
    per task the interval is Clopper-Pearson on the tasks that passed all k
    runs, a binomial count: its law is exact. With more runs it is
    Clopper-Pearson on the effective number of tasks ``m (1 - m) / Var(m)``,
    ``Var(m) = SS / ((T - 1)(T + 2))`` with SS the squared deviations of the
    T values and one pseudo-task at 0 and one at 1 from their mean, at most
    ``T * floor(runs / k)`` and T where every value is 0 or every value is 1
    (the policy's ``"auto"`` interval, :func:`~passk_lab._interval_policy.mean_intervals`,
    what a curve reports); T values are a multinomial count of the ``runs + 1`` values a
    task can take, drawn `_REPLICATES` times.
    """
    if law.runs == law.k:
        from scipy import stats

        chance = float(law.chances[-1])
        low, high = stats.binom.interval(1.0 - _TAIL, tasks, chance)
        passed = np.arange(int(low), int(high) + 1, dtype=np.float64)
        weights = stats.binom.pmf(passed, tasks, chance)
        lows, highs = clopper_pearson(passed, np.full(len(passed), float(tasks)), level)
    else:
        # every simulated evaluation is a column: its tasks at each of the runs + 1 values
        counts = np.random.default_rng(_SEED).multinomial(tasks, law.chances, size=_REPLICATES)
        values = np.repeat(law.scores[:, None], _REPLICATES, axis=1)
        runs = np.full(len(law.scores), law.runs)
        ks = np.full(_REPLICATES, law.k)
        found = mean_intervals(values, runs, counts.T, ks, IntervalSpec.of("auto", level))
        lows, highs = found.low, found.high
        weights = np.full(_REPLICATES, 1.0 / _REPLICATES)
    half = (highs - lows) / 2.0
    order = np.argsort(half, kind="stable")
    return half[order], np.cumsum(weights[order])


class _Evaluations:
    """The law of the reported half-width for each number of tasks asked about, kept."""

    def __init__(self, law: TaskLaw, level: float) -> None:
        self._law, self._level, self._z = law, level, z_value(level)
        self._laws: dict[int, tuple[Floats, Floats]] = {}

    def _of(self, tasks: int) -> tuple[Floats, Floats]:
        if tasks not in self._laws:
            self._laws[tasks] = _half_widths(self._law, tasks, self._level)
        return self._laws[tasks]

    def reached(self, tasks: int, width: float) -> float:
        """Return the chance that an evaluation of `tasks` tasks has a half-width <= `width`."""
        if tasks < 2:
            return 0.0  # one task gives no interval
        halves, chances = self._of(tasks)
        index = int(np.searchsorted(halves, width, side="right"))
        return float(chances[index - 1]) if index else 0.0

    def keeps(self, tasks: int, *, width: float, chance: float) -> bool:
        """Return whether `tasks` tasks and the next few reach `width` with `chance` (`_teeth`)."""
        teeth = _teeth(self._law, tasks, width, self._z)
        return all(self.reached(tasks + step, width) >= chance for step in range(teeth + 1))

    def scaled(self, guess: int, *, width: float, chance: float) -> int:
        """Return the tasks at which the assured half-width comes down to `width`, by scaling.

        The assured half-width h_T falls as a power of the tasks: ``T^(-1/2)``
        once the tasks' spread dominates, nearer ``1 / T`` with few tasks,
        where the pseudo-tasks do. Steps ``T (h_T / width)^e`` to a fixed
        point (e = 2, then the power seen between the last two steps), then
        one task more while h_T is above `width`. Simulated shares are noisy,
        and the smallest T whose share passes would pick a lucky draw among
        many; the fixed point rests on the draws at one or two. Where the
        steps find no fixed point (the half-width jumps with the tasks),
        bisection.
        """
        tasks, power = max(2, guess), 2.0
        last: tuple[int, float] | None = None
        for _ in range(_SCALINGS):
            half = self.assured(tasks, chance)
            if last is not None and abs(math.log(tasks / last[0])) > 0.05 and half != last[1]:
                power = min(max(-math.log(tasks / last[0]) / math.log(half / last[1]), 1.0), 4.0)
            step = max(2, math.ceil(tasks * math.pow(half / width, power)))
            if abs(step - tasks) <= 1:
                tasks = min(step, tasks)
                break
            last, tasks = (tasks, half), step
        else:
            return _fewest_tasks(lambda count: self.assured(count, chance) <= width, tasks)
        while self.assured(tasks, chance) > width:
            tasks += 1
        return tasks

    def assured(self, tasks: int, chance: float) -> float:
        """Return the half-width that an evaluation of `tasks` tasks keeps with `chance`."""
        halves, chances = self._of(tasks)
        return float(halves[min(int(np.searchsorted(chances, chance)), len(halves) - 1)])


def _teeth(law: TaskLaw, tasks: int, width: float, z: float) -> int:
    """Return how many more tasks must reach the assurance too, for it to hold from then on.

    At k runs per task the interval depends on an integer, the tasks that
    failed a run: the chance of reaching the half-width rises where one more
    failing task is allowed and falls in between. About ``(T h / z)^2``
    failing tasks are allowed at T tasks and half-width h, one more every
    ``z^2 / (2 T h^2)`` tasks; asking every number of tasks over twice that
    period to reach the assurance keeps it for larger evaluations. With more
    runs the interval moves smoothly with the tasks' values.
    """
    if law.runs != law.k:
        return 0
    return math.ceil(z * z / (tasks * width * width))


def _fewest_tasks(reaches: Callable[[int], bool], guess: int) -> int:
    """Return T >= 2 where `reaches` holds and fails at T - 1, bracketed from `guess`.

    ``reaches(1)`` is taken as false: one task gives no interval. Steps from
    `guess` that grow from 2% bracket a change, then bisection narrows it to
    one task.
    """
    low, high, factor = 1, max(2, guess), 1.02
    if reaches(high):
        while high > 2:
            candidate = max(2, min(high - 1, math.floor(high / factor)))
            if not reaches(candidate):
                low = candidate
                break
            high, factor = candidate, factor * factor
    else:
        while True:
            low, high = high, max(high + 1, math.ceil(high * factor))
            if reaches(high):
                break
            factor *= factor
    while high - low > 1:
        middle = (low + high) // 2
        if reaches(middle):
            high = middle
        else:
            low = middle
    return high


def plan_row(
    law: TaskLaw, width: float, level: float, wanted: float | None
) -> dict[str, float | int]:
    """Return the plan for one runs per task: the tasks, and what they give."""
    z = z_value(level)
    spread = law.sd
    expected = max(1, math.ceil((z * spread / width) ** 2 - 1e-9))
    evaluations = _Evaluations(law, level)
    if wanted is None:
        tasks = expected
        half = z * spread / math.sqrt(tasks)
    else:
        if law.runs == law.k:  # exact: the assurance itself
            guess = evaluations.scaled(expected, width=width, chance=wanted)
            keeps = partial(evaluations.keeps, width=width, chance=wanted)
            tasks = _fewest_tasks(keeps, guess)
        else:  # simulated: the assurance plus two of the share's standard errors
            margin = _MARGIN * math.sqrt(wanted * (1.0 - wanted) / _REPLICATES)
            asked_for = min(wanted + margin, (1.0 + wanted) / 2.0)
            tasks = evaluations.scaled(expected, width=width, chance=asked_for)
        half = evaluations.assured(tasks, wanted)
    return {
        "runs_per_task": law.runs,
        "n_tasks": tasks,
        "total_runs": tasks * law.runs,
        "pass_pow_k": law.mean,
        "task_sd": spread,
        "half_width": half,
        "assurance": evaluations.reached(tasks, width),
    }
