"""Adaptive evaluation: run tasks until the answer is known, and say why it stopped.

:func:`evaluate_until` carries out :func:`passk_lab._sequential.procedure` with
real runs: it draws the pool's tasks in a random order, `batch` at a time,
gives each its first runs and, where its first passes leave most to learn,
more (:mod:`passk_lab._two_stage`), and stops when the interval of the target
is narrow enough (or, for two agents, when the sign of the difference is
decided), or a limit is reached. Every run goes through the harness's runner
(time limits, retries, concurrency, costs) and, with a ledger, is recorded as
it finishes. The decisions are a function of the seed and the outcomes alone,
so a resumed evaluation makes them again from the recorded runs and runs only
what is missing: the same decision, every run exactly once.
"""

from __future__ import annotations

import asyncio
import math
import numbers
import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from passk_lab._checks import confidence, positive_int
from passk_lab._choices import AdaptiveInterval
from passk_lab._curve import price_pass_pow_k
from passk_lab._sequential import (
    Design,
    Ends,
    Outcome,
    Stop,
    procedure,
    target_interval,
)
from passk_lab._summary import Shown, level_text, summary_html, summary_repr
from passk_lab._two_stage import STATISTICS, Statistic
from passk_lab._warnings import EvaluationWarning, warn
from passk_lab.estimators import reliability_curve
from passk_lab.harness._evaluation import Evaluation
from passk_lab.harness._ledger_format import RunRecord
from passk_lab.harness._ledger_read import cost_totals, read_ledger, runs_frame
from passk_lab.harness._ledger_write import json_id
from passk_lab.harness._settings import make_plan
from passk_lab.harness._task import EvalResult, Guard, Task
from passk_lab.harness._threads import run_in_loop

__all__ = ["AdaptiveResult", "evaluate_until"]

_DESIGN = (
    "k",
    "statistic",
    "confidence_level",
    "min_runs",
    "max_runs_per_task",
    "batch",
    "pool",
    "seed",
    "agent",
    "interval",
)
"""What a resumed adaptive evaluation must share with its ledger: what its decisions rest on."""
_AGENTS = ("a", "b")


@dataclass(frozen=True)
class AdaptiveResult(EvalResult):
    """What :func:`~passk_lab.evaluate_until` measured, and why it stopped.

    The fields of :class:`~passk_lab.EvalResult` describe the (first) agent:
    ``tasks`` evaluated, ``k`` the target's, ``pass_at_1`` and ``pass_pow_k``
    the curve's estimates (means of per-task estimates that are unbiased for
    a task whose runs depend on its outcomes, unlike the plain ``wins / n``;
    stopping when the interval is narrow, itself a data-dependent rule, leaves
    their mean a bias, whose effect the coverage of ``study/adaptive_coverage.py``
    includes),
    ``runs`` every run made (both
    agents', with an ``agent`` column of ``"a"`` and ``"b"``, when there are
    two), ``header`` the (first) ledger's, ``cost`` the totals of all runs.

    Attributes
    ----------
    curve : pandas.DataFrame
        The :func:`~passk_lab.reliability_curve` of the runs, one row per k
        from 1 to the target's (per agent, with an ``agent`` column, for two),
        with ``pass_pow_k``, ``pass_at_k`` and their intervals replaced by the
        adaptive design's: the means of the per-task estimates of
        :mod:`passk_lab._two_stage` and, in ``interval_method``,
        ``"sequential"`` (one agent: the interval the stopping rule was
        measured with, see docs/adaptive.md) or ``"betting_sequence"`` (two
        agents: valid under any stopping rule). ``p_pow_k`` is pass@1 ** k
        from the same estimates.
    stopped_because : str
        ``"half_width"`` (the target's interval is narrow enough), ``"sign"``
        (two agents: the difference's interval excludes 0), ``"max_runs"``,
        ``"max_cost"`` or ``"exhausted"`` (every task of the pool is used).
    design : pandas.DataFrame
        One row per task evaluated (per agent), in the order drawn: ``order``,
        ``task``, ``runs``, ``passes`` and the plan it ran under (``first``,
        ``total``, ``low``, ``high``: the task went on to ``total`` runs when
        its first ``first`` passes were in [low, high]).
    comparison : pandas.DataFrame or None
        Two agents: one row, the target's ``value_a``, ``value_b``,
        ``difference`` (a - b), ``difference_low``, ``difference_high`` (the
        betting confidence sequence of the paired differences) and
        ``n_tasks``. None for one agent.
    """

    curve: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False, compare=False)
    stopped_because: str = "exhausted"
    design: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False, compare=False)
    comparison: pd.DataFrame | None = field(default=None, repr=False, compare=False)

    def __repr__(self) -> str:
        """Return one line: the fields of an EvalResult, why it stopped and the target's interval.

        The interval is named after what it bounds, and follows that value:
        ``pass_pow_k_interval`` (the target pass^k, shown as ``pass_pow_k``),
        ``pass_at_k`` and ``pass_at_k_interval`` for a pass@k target, and for
        two agents ``difference`` and ``difference_interval``.

        Examples
        --------
        >>> import passk_lab as pk
        >>> pk.evaluate_until(pk.coin_tasks(p=0.85, tasks=200, seed=1), k=3, half_width=0.1, rng=0)
        AdaptiveResult(tasks=100, k=3, pass_at_1=0.833, pass_pow_k=0.6, runs=<300 rows>,
                       errored=0, timed_out=0, stopped_because='half_width',
                       pass_pow_k_interval=[0.497, 0.697])
        """
        fields = [*self._fields(), ("stopped_because", self.stopped_because)]
        name, value = self._target()
        if name != "pass_pow_k" and value is not None:
            fields.append((name, value))
        interval = self._target_interval()
        if interval is not None:
            fields.append((f"{name}_interval", Shown(f"[{interval[0]:.3f}, {interval[1]:.3f}]")))
        return summary_repr(type(self).__name__, fields)

    def _repr_html_(self) -> str:
        """Return the summary as an HTML table, for Jupyter, with the decisions taken.

        The target's estimate is a row of its own above its interval.

        Examples
        --------
        >>> import passk_lab as pk
        >>> result = pk.evaluate_until(
        ...     pk.coin_tasks(p=0.85, tasks=200, seed=1), k=3, half_width=0.1, rng=0
        ... )
        >>> "the interval is narrow enough" in result._repr_html_()
        True
        """
        settings = self.header.get("adaptive") or {}
        k = settings.get("k", self.k)
        target = f"{_TARGETS.get(str(settings.get('statistic')), 'pass^')}{k}"
        rows = self._rows(k_label="k of the target")
        level = settings.get("confidence_level")
        ci = f"{level_text(level)} CI" if isinstance(level, float) else "CI"
        interval = self._target_interval()
        name, value = self._target()
        if self.comparison is not None and len(self.comparison):
            row = self.comparison.iloc[0]
            rows += [
                (f"{target} of A", float(row["value_a"])),
                (f"{target} of B", float(row["value_b"])),
                (f"difference A - B in {target}", float(row["difference"])),
            ]
            target = "difference"
        elif name != "pass_pow_k" and value is not None:
            rows.append((target, value))
        if interval is not None:
            low, high = interval
            rows += [
                (f"{target} {ci}", f"[{low:.3f}, {high:.3f}]"),
                ("half-width reached", (high - low) / 2),
            ]
        if "half_width" in settings:
            rows.append(("half-width wanted", settings["half_width"]))
        rows.append(("stopped because", _REASONS.get(self.stopped_because, self.stopped_because)))
        if {"runs", "first", "task"} <= set(self.design.columns):
            more = self.design["runs"] > self.design["first"]
            rows.append(("tasks given more runs", int(self.design.loc[more, "task"].nunique())))
        return summary_html(type(self).__name__, rows)

    def _target(self) -> tuple[str, float | None]:
        """Return the name of what the evaluation stopped on, and its estimate if known.

        ``"difference"`` for two agents, else the statistic (``"pass_pow_k"``
        or ``"pass_at_k"``) with the curve's value at the target's k.
        """
        if self.comparison is not None and len(self.comparison):
            return "difference", float(self.comparison["difference"].iloc[0])
        statistic = str((self.header.get("adaptive") or {}).get("statistic", "pass_pow_k"))
        if not {"k", statistic} <= set(self.curve.columns):
            return statistic, None
        at_k = self.curve.loc[self.curve["k"] == self.k, statistic]
        return statistic, None if at_k.empty else float(at_k.iloc[0])

    def _target_interval(self) -> tuple[float, float] | None:
        """Return the interval the evaluation stopped on: the target's, or the difference's."""
        if self.comparison is not None and len(self.comparison):
            row = self.comparison.iloc[0]
            return float(row["difference_low"]), float(row["difference_high"])
        statistic = (self.header.get("adaptive") or {}).get("statistic", "pass_pow_k")
        low, high = f"{statistic}_low", f"{statistic}_high"
        if not {"k", low, high} <= set(self.curve.columns):
            return None
        at_k = self.curve[self.curve["k"] == self.k]
        if at_k.empty:
            return None
        return float(at_k[low].iloc[0]), float(at_k[high].iloc[0])


_TARGETS = {"pass_pow_k": "pass^", "pass_at_k": "pass@"}
"""How the targets read, before their k."""

_REASONS = {
    "half_width": "the interval is narrow enough",
    "sign": "the sign of the difference is decided",
    "max_runs": "the limit on runs was reached",
    "max_cost": "the limit on cost was reached",
    "exhausted": "every task of the pool was used",
}
"""What each ``stopped_because`` means."""


def _number(name: str, value: object, *, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {value!r}")
    number = float(value)
    if not 0.0 < number <= high:  # NaN fails this too
        raise ValueError(f"{name} must be in (0, {high:g}], got {value!r}")
    return number


def _limits(max_runs: object, max_cost: object) -> tuple[int | None, dict[str, float]]:
    runs = None if max_runs is None else positive_int("max_runs", max_runs)
    if max_cost is None:
        return runs, {}
    if not isinstance(max_cost, Mapping):
        raise TypeError(
            f"max_cost must name the cost it limits, such as max_cost={{'usd': 20.0}}, got "
            f"{max_cost!r}"
        )
    costs = {}
    for name, limit in max_cost.items():
        if not isinstance(name, str):
            raise TypeError(f"max_cost's names must be text (a cost's name), got {name!r}")
        costs[name] = _number(f"max_cost[{name!r}]", limit, high=math.inf)
    return runs, costs


def _seed(rng: object, ledgers: Sequence[Path | None], resume: bool) -> int:
    """Return the seed of the task order: given, drawn from a generator, a ledger's, or fresh."""
    if isinstance(rng, np.random.Generator):
        return int(rng.integers(2**63))
    if rng is not None:
        if isinstance(rng, bool) or not isinstance(rng, numbers.Integral):
            raise TypeError(f"rng must be a seed (an int), a numpy Generator or None, got {rng!r}")
        if int(rng) < 0:
            raise ValueError(f"rng must be a seed >= 0, got {rng!r}")
        return int(rng)
    if resume:
        for path in ledgers:
            adaptive = _recorded(path).get("adaptive") or {}
            if isinstance(adaptive.get("seed"), int):
                return int(adaptive["seed"])
    return int(np.random.SeedSequence().generate_state(2, np.uint32).view(np.uint64)[0] >> 1)


def _require_one_kind(ids: Sequence[Any], argument: str) -> None:
    """Refuse task ids that mix text and integers: the runs table could not be counted."""
    kinds = {type(task_id) for task_id in ids}
    if len(kinds) > 1:
        text = next(task_id for task_id in ids if isinstance(task_id, str))
        other = next(task_id for task_id in ids if not isinstance(task_id, str))
        raise ValueError(
            f"{argument} mixes task ids of two kinds, such as {text!r} (str) and {other!r} "
            f"({type(other).__name__}); give every Task an id of one kind (str(id) for all)"
        )


def _recorded(path: Path | None) -> dict[str, Any]:
    """Return a ledger's effective header, or an empty one where there is none to resume.

    Read ahead of the evaluation, without the lock (which the evaluation takes
    and checks again under); its warnings are the evaluation's to give.
    """
    if path is None or not path.is_file() or not path.stat().st_size:
        return {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return read_ledger(path).header
        except ValueError as error:
            if "is empty" in str(error):  # a half-written header: the evaluation starts afresh
                return {}
            raise


def _paths(ledger: object, agents: int) -> list[Path | None]:
    if ledger is None:
        return [None] * agents
    if agents == 2:
        if not (isinstance(ledger, tuple | list) and len(ledger) == 2):
            raise TypeError(
                "two agents keep two ledgers: pass ledger=(path_a, path_b), one per agent"
            )
        return [Path(os.fspath(path)) for path in ledger]
    if isinstance(ledger, tuple | list):
        raise TypeError("one agent keeps one ledger: pass ledger=PATH")
    return [Path(os.fspath(ledger))]  # type: ignore[call-overload]


def _sooner(recorded: dict[str, Any], settings: dict[str, Any]) -> list[str]:
    """Return the limits of `settings` that would stop an evaluation sooner than `recorded`'s."""
    sooner = []
    if settings["half_width"] > recorded["half_width"]:
        sooner.append(f"half_width {settings['half_width']} > {recorded['half_width']}")
    old_runs, new_runs = recorded["max_runs"], settings["max_runs"]
    if new_runs is not None and (old_runs is None or new_runs < old_runs):
        sooner.append(
            f"max_runs {new_runs}, where the ledger had "
            + ("no limit" if old_runs is None else str(old_runs))
        )
    for name, limit in settings["max_cost"].items():
        old = recorded["max_cost"].get(name)
        if old is None or limit < old:
            sooner.append(
                f"max_cost {name!r} {limit}, where the ledger had "
                + ("no limit" if old is None else str(old))
            )
    return sooner


def _check(settings: dict[str, Any], ids: list[Any], path: Path) -> Any:
    """Return the check that a resumed ledger records this evaluation, or one stopped sooner."""

    def check(header: dict[str, Any]) -> None:
        recorded = header.get("adaptive")
        if recorded is None:
            raise ValueError(
                f"the ledger {str(path)!r} records an evaluation of every run (evaluate), not "
                "an adaptive one; resume it with evaluate(..., resume=True), or give "
                "evaluate_until a new ledger path"
            )
        differences = [
            f"{key}: the ledger has {recorded.get(key)!r}, this evaluation has {settings[key]!r}"
            for key in _DESIGN
            if recorded.get(key) != settings[key]
        ]
        if header.get("tasks") != ids:
            differences.append("tasks: the ledger's pool is not this evaluation's")
        if differences:
            raise ValueError(
                f"cannot resume from {str(path)!r}: it records another adaptive evaluation ("
                + "; ".join(differences)
                + "). Resume with its settings (its decisions rest on them), or give a new path"
            )
        sooner = _sooner(recorded, settings)
        if sooner:
            raise ValueError(
                f"cannot resume from {str(path)!r} with limits that would stop the evaluation "
                "sooner than the ledger's (" + "; ".join(sooner) + "): runs it holds might "
                "then go unused. Resume with the same limits, or ones that let it go further "
                "(a smaller half_width, a larger max_runs or max_cost, or none)"
            )

    return check


async def _drive(evaluations: list[Evaluation], design: Design) -> Stop:
    """Carry out the procedure with real runs: the recorded ones are not run again."""
    steps = procedure(design)
    jobs = next(steps)
    while True:
        await asyncio.gather(
            *(
                evaluation.run([(job.task, job.run) for job in jobs if job.agent == agent])
                for agent, evaluation in enumerate(evaluations)
            )
        )
        outcomes = {}
        for job in jobs:
            record = evaluations[job.agent].recorded[job.task, job.run]
            outcomes[job] = Outcome(record.passed, record.cost)
        try:
            jobs = steps.send(outcomes)
        except StopIteration as stopped:
            result: Stop = stopped.value
            return result


def _curve(runs: pd.DataFrame, ends: Ends, agent: int, design: Design) -> pd.DataFrame:
    """Return one agent's reliability curve, with the design's estimates and intervals."""
    ks = np.arange(1, design.k + 1)
    curve = reliability_curve(runs, ks=ks.tolist(), confidence_level=design.confidence_level)
    n = ends.runs(agent)
    for statistic in STATISTICS:
        values = ends.values(agent, ks, statistic)
        limits = [target_interval(design, values[:, j], n, int(k)) for j, k in enumerate(ks)]
        curve[statistic] = values.mean(axis=0)
        curve[f"{statistic}_low"] = [low for low, _ in limits]
        curve[f"{statistic}_high"] = [high for _, high in limits]
    first = curve.iloc[0]
    curve["p_pow_k"] = first["pass_pow_k"] ** ks
    curve["p_pow_k_low"] = first["pass_pow_k_low"] ** ks
    curve["p_pow_k_high"] = first["pass_pow_k_high"] ** ks
    method = "sequential" if design.agents == 1 and not design.anytime else "betting_sequence"
    curve["interval_method"] = pd.array([method] * len(ks), dtype="str")
    return price_pass_pow_k(curve)


def _records(evaluation: Evaluation, ends: Ends, agent: int) -> list[RunRecord]:
    return [
        evaluation.recorded[task, run]
        for task, n in zip(ends.tasks, ends.n[agent], strict=True)
        for run in range(n)
    ]


def _design_frame(ends: Ends, ids: list[Any], agent: int) -> pd.DataFrame:
    plans = ends.plans[agent]
    return pd.DataFrame(
        {
            "order": np.arange(len(ends.tasks)),
            "task": pd.Series([ids[task] for task in ends.tasks], dtype="object"),
            "runs": ends.n[agent],
            "passes": ends.c[agent],
            "first": [plan.first for plan in plans],
            "total": [plan.total if plan.extends else plan.first for plan in plans],
            "low": [plan.low for plan in plans],
            "high": [plan.high for plan in plans],
        }
    )


def _result(evaluations: list[Evaluation], stop: Stop, design: Design) -> AdaptiveResult:
    agents = len(evaluations)
    ids = list(evaluations[0].plan.ids)
    runs, curves, designs, records = [], [], [], []
    for agent, evaluation in enumerate(evaluations):
        kept = _records(evaluation, stop.ends, agent)
        unused = len(evaluation.recorded) - len(kept)
        if unused:
            warn(
                EvaluationWarning(
                    f"{unused} run(s) recorded in the ledger {str(evaluation.path)!r} are not "
                    "part of this evaluation's decisions and are left out of its result"
                )
            )
        records.extend(kept)
        frame = runs_frame(kept)
        curve = _curve(frame, stop.ends, agent, design)
        table = _design_frame(stop.ends, ids, agent)
        if agents == 2:
            for part in (frame, curve, table):
                part.insert(0, "agent", _AGENTS[agent])
        runs.append(frame)
        curves.append(curve)
        designs.append(table)
    comparison = None
    ks = np.array([design.k])
    if agents == 2:
        a, b = (stop.ends.values(agent, ks, design.statistic)[:, 0] for agent in range(2))
        runs_a = stop.ends.runs(0)
        low, high = target_interval(design, a - b, runs_a, design.k, difference=True)
        comparison = pd.DataFrame(
            {
                "statistic": [design.statistic],
                "k": [design.k],
                "value_a": [a.mean()],
                "value_b": [b.mean()],
                "difference": [a.mean() - b.mean()],
                "difference_low": [low],
                "difference_high": [high],
                "n_tasks": [len(a)],
            }
        )
    first = curves[0]
    return AdaptiveResult(
        tasks=len(stop.ends.tasks),
        k=design.k,
        pass_at_1=float(first["pass_pow_k"].iloc[0]),
        pass_pow_k=float(first["pass_pow_k"].iloc[-1]),
        runs=pd.concat(runs, ignore_index=True) if agents == 2 else runs[0],
        header=evaluations[0].header,
        cost=cost_totals(records),
        curve=pd.concat(curves, ignore_index=True) if agents == 2 else curves[0],
        stopped_because=stop.reason,
        design=pd.concat(designs, ignore_index=True) if agents == 2 else designs[0],
        comparison=comparison,
    )


def evaluate_until(
    tasks: Sequence[Task[Any]],
    *,
    k: int,
    half_width: float,
    statistic: Statistic = "pass_pow_k",
    confidence_level: float = 0.95,
    min_runs: int | None = None,
    max_runs_per_task: int | None = None,
    max_runs: int | None = None,
    max_cost: Mapping[str, float] | None = None,
    batch: int = 10,
    interval: AdaptiveInterval = "sequential",
    against: Sequence[Task[Any]] | None = None,
    ledger: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None = None,
    resume: bool = False,
    rng: int | np.random.Generator | None = None,
    run_timeout_ms: float | None = None,
    guard: Guard | None = None,
    concurrency: int = 1,
    model: str | None = None,
    metadata: Mapping[str, Any] | None = None,
    infrastructure: type[Exception] | tuple[type[Exception], ...] = (),
    retries: int = 3,
    backoff_s: float = 1.0,
    progress: bool = False,
) -> AdaptiveResult:
    """Run tasks from a pool until pass^k (or pass@k) is known to a half-width, then stop.

    The pool's tasks are drawn in a random order, `batch` at a time. Each
    task gets `min_runs` runs; with `max_runs_per_task` above that, a task
    whose first passes leave most to learn (a task that failed every first
    run has a pass^k near 0) goes on to more, by the plan that needs the
    fewest runs for the precision under a beta-binomial fit of the tasks run
    so far. After
    each batch the target's interval is computed on every task so far, and
    the evaluation stops when its half-width, ``(high - low) / 2``, is at
    most `half_width`, or a limit is reached. With `against`, a second agent
    runs the same tasks (the paired design), and the evaluation stops as
    soon as the sign of the difference is decided, or the difference is
    known to `half_width`.

    Parameters
    ----------
    tasks : sequence of Task
        The pool. Tasks are drawn from it in a random order, never twice.
    k : int
        The target is pass^k (or pass@k) at this k.
    half_width : float
        The half-width wanted, in (0, 0.5] for one agent and (0, 1] for a
        difference.
    statistic : {"pass_pow_k", "pass_at_k"}
        The target.
    confidence_level : float
        Of the intervals, in (0, 1).
    min_runs : int, optional
        Runs every task gets, at least `k`; `k` by default.
    max_runs_per_task : int, optional
        Runs a task may get, at least `min_runs`; `min_runs` by default: every
        task gets `min_runs` runs and no more. Above it, a task whose first
        runs leave most to learn may go on to more, by the two-stage plan the
        fit of the tasks so far favours. The study measured both: with the
        default interval, extra runs needed as many runs as new tasks on
        average for pass^5 +/- 0.05 and 13% to 14% more for pass^5 +/- 0.1
        and pass@5, fewer in some pools and more in others (see
        docs/adaptive.md), so they are yours to ask for.
    max_runs : int, optional
        Runs the evaluation may make in all (both agents together); a batch
        is cut to the tasks whose most runs still fit. None: no limit.
    max_cost : dict, optional
        Per cost name, the most the evaluation may spend, e.g.
        ``{"usd": 20.0}`` (costs come from the runs, see :class:`Task`).
        Checked between batches: a batch is cut to the tasks whose most runs
        fit what is left at the mean cost of a run so far, and the evaluation
        stops once the spend reaches the limit, so the last batch may pass it
        by what its runs cost above that mean. The first batch, with no mean
        to judge by, always runs whole: give a small `batch` for a tight
        budget. A name no run of the first batch records is warned of.
    batch : int
        Tasks drawn per batch: the interval is looked at after each. 10 by
        default.
    interval : {"sequential", "anytime"}
        One agent's interval, the one the evaluation stops on and reports.
        ``"sequential"`` (the default): the effective-n interval of the
        per-task estimates, whose coverage under this stopping rule is
        measured (see Notes). ``"anytime"``: the betting confidence sequence,
        valid under any stopping rule (so also when you look after every
        batch and stop by hand), and wider for it: it needs more runs to
        reach a half-width. Two agents always get the betting sequence.
    against : sequence of Task, optional
        The second agent's tasks, one per task of `tasks`, in the same order
        (where both give ids, they must be equal).
    ledger : str or path-like, or a pair of them, optional
        The ledger to record the runs in (a pair, one per agent, with
        `against`). Its header records the settings under ``adaptive``.
    resume : bool
        Continue the evaluation the ledger records: the decisions are made
        again from its runs, and only runs it lacks are run. The design
        (k, statistic, level, runs per task, batch, the pool, the seed) must
        be the ledger's; the limits may be the same or tighter (a smaller
        `half_width`, a larger `max_runs` or `max_cost`), which goes on from
        where the evaluation stopped. The ledger records each resumption.
    rng : int, numpy.random.Generator or None
        The seed of the order tasks are drawn in. None draws a fresh seed (a
        resumed ledger's own, when resuming), recorded in the ledger.
    run_timeout_ms, guard, concurrency, model, metadata, infrastructure, retries, backoff_s
        As for :func:`~passk_lab.evaluate` (concurrency is per agent). A
        total time budget spread over the runs has no meaning when the runs
        are not known in advance, so there is no `timeout_ms`.
    progress : bool
        Show a progress bar, as :func:`~passk_lab.evaluate` does.

    Returns
    -------
    AdaptiveResult
        ``runs``, ``curve``, ``stopped_because``, ``design`` and, with
        `against`, ``comparison``.

    Raises
    ------
    TypeError, ValueError
        For a bad setting (named), tasks of `against` that do not pair with
        `tasks`, or a ledger that cannot be resumed (the message says what
        differs), as well as everything :func:`~passk_lab.evaluate` raises.
    KeyboardInterrupt
        On Ctrl-C, as :func:`~passk_lab.evaluate`: every finished run stays
        in the ledger, and the note says how to resume.

    Notes
    -----
    Errored and timed-out runs are failed runs (the harness's rule), since a
    task's plan depends on its outcomes. One agent: the interval reported
    (and stopped on) is the effective-n interval of the per-task estimates
    without the curve's cap at blocks of k runs; its coverage, the stopping
    rule included, is measured by ``study/adaptive_coverage.py`` (tables in
    ``docs/coverage/adaptive/``), not guaranteed for any other rule: looking
    at the curve after every batch and stopping by hand when it looks good
    is a different rule. Two agents: a betting confidence sequence (Waudby-Smith
    and Ramdas 2023), valid under any stopping rule, and wider for it.

    Examples
    --------
    A simulated agent whose tasks pass with chances from 0.5 to 1:

    >>> import numpy as np
    >>> from passk_lab import Task
    >>> chances = np.random.default_rng(0).uniform(0.5, 1.0, size=2000)
    >>> draws = np.random.default_rng(1)
    >>> tasks = [Task(run=lambda p=p: bool(draws.random() < p), id=i)
    ...          for i, p in enumerate(chances)]
    >>> result = evaluate_until(tasks, k=3, half_width=0.05, rng=7)
    >>> result.stopped_because, result.tasks < len(tasks)
    ('half_width', True)
    >>> row = result.curve.iloc[-1]
    >>> bool(row.pass_pow_k_high - row.pass_pow_k_low <= 0.1)
    True
    """
    agents = 1 if against is None else 2
    power = positive_int("k", k)
    first = power if min_runs is None else positive_int("min_runs", min_runs)
    if first < power:
        raise ValueError(
            f"min_runs must be at least k = {power} to measure {statistic} at k, got {first}"
        )
    most = (
        first if max_runs_per_task is None else positive_int("max_runs_per_task", max_runs_per_task)
    )
    if most < first:
        raise ValueError(f"max_runs_per_task must be at least min_runs = {first}, got {most}")
    if statistic not in STATISTICS:
        raise ValueError(f"statistic must be one of {', '.join(STATISTICS)}, got {statistic!r}")
    width = _number("half_width", half_width, high=0.5 if agents == 1 else 1.0)
    level = confidence(confidence_level)
    size = positive_int("batch", batch)
    if interval not in ("sequential", "anytime"):
        raise ValueError(f"interval must be 'sequential' or 'anytime', got {interval!r}")
    runs_limit, cost_limit = _limits(max_runs, max_cost)
    if runs_limit is not None and runs_limit < first * agents:
        raise ValueError(
            f"max_runs = {runs_limit} is fewer than one task's {first * agents} first runs "
            f"(min_runs = {first}{' for each agent' if agents == 2 else ''}); allow at least that"
        )
    if guard is not None and run_timeout_ms is None:
        raise ValueError("guard only applies under a time limit; pass run_timeout_ms as well")
    pool = list(tasks)
    if not pool:
        raise ValueError("evaluate_until needs a pool of at least one task to draw from")
    sides = [pool] if against is None else [pool, list(against)]
    if against is not None:
        if len(sides[1]) != len(pool):
            raise ValueError(
                f"against has {len(sides[1])} tasks and tasks has {len(pool)}: the paired design "
                "needs one task of the second agent per task of the first, in the same order"
            )
        for position, (one, other) in enumerate(zip(*sides, strict=True)):
            if (
                isinstance(one, Task)
                and isinstance(other, Task)
                and None not in (one.id, other.id)
                and one.id != other.id
            ):
                raise ValueError(
                    f"tasks[{position}] has the id {one.id!r} and against[{position}] "
                    f"{other.id!r}: pair the tasks in the same order (the same ids)"
                )
    paths = _paths(ledger, agents)
    seed = _seed(rng, paths, resume)
    design = Design(
        k=power,
        statistic=statistic,
        half_width=width,
        confidence_level=level,
        first=first,
        most=most,
        batch=size,
        pool=len(pool),
        seed=seed,
        agents=agents,
        anytime=interval == "anytime",
        max_runs=runs_limit,
        max_cost=cost_limit,
    )
    options = {
        "run_timeout_ms": run_timeout_ms,
        "guard": guard,
        "concurrency": concurrency,
        "resume": resume,
        "model": model,
        "metadata": metadata,
        "infrastructure": infrastructure,
        "retries": retries,
        "backoff_s": backoff_s,
        "progress": progress,
    }
    # every plan made and every ledger checked before any is opened, so that a refusal of the
    # second agent's leaves the first's untouched
    plans, checks, records = [], [], []
    for agent, (side, path) in enumerate(zip(sides, paths, strict=True)):
        plan = make_plan(
            side, most, ledger=path, argument=("tasks", "against")[agent], sized=False, **options
        )
        settings = {
            "k": power,
            "statistic": statistic,
            "confidence_level": level,
            "min_runs": first,
            "max_runs_per_task": most,
            "batch": size,
            "pool": len(pool),
            "seed": seed,
            "agent": None if agents == 1 else _AGENTS[agent],
            "interval": "anytime" if agents == 2 else interval,
            "half_width": width,
            "max_runs": runs_limit,
            "max_cost": cost_limit,
        }
        _require_one_kind(plan.ids, ("tasks", "against")[agent])
        check = None
        if path is not None:
            check = _check(settings, [json_id(task, i) for i, task in enumerate(plan.ids)], path)
            header = _recorded(path) if resume else {}
            if header:
                check(header)
        plans.append(plan)
        checks.append(check)
        records.append(settings)
    evaluations: list[Evaluation] = []
    try:
        for plan, check, settings in zip(plans, checks, records, strict=True):
            evaluations.append(
                Evaluation(
                    plan,
                    adaptive=settings,
                    check=check,
                    total=runs_limit,
                    label="evaluate_until",
                )
            )
        made = sum(evaluation.finished for evaluation in evaluations)
        try:
            stop = run_in_loop(lambda: _drive(evaluations, design))
        except KeyboardInterrupt as interrupt:
            finished = sum(evaluation.finished for evaluation in evaluations)
            kept = [os.fspath(path) for path in paths if path is not None]
            interrupt.add_note(
                f"evaluate_until was interrupted after {finished - made} new runs"
                + (
                    f" ({finished} in all are recorded in {', '.join(map(repr, kept))}); call "
                    "evaluate_until again with the same tasks and settings and resume=True: it "
                    "makes the same decisions from the recorded runs and runs only what is "
                    "missing"
                    if kept
                    else "; pass ledger=PATH to keep every finished run, and resume=True to go on"
                )
            )
            raise
    finally:
        for evaluation in evaluations:
            evaluation.close()
    return _result(evaluations, stop, design)
