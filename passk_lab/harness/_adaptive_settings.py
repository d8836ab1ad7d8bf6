"""The adaptive evaluation's settings, checked once, and what a resumption may change of them.

:meth:`AdaptiveSettings.of` checks every option of
:func:`~passk_lab.evaluate_until` that its decisions and its stops rest on
(the harness's own options, such as time limits and retries, are
:class:`~passk_lab.harness._settings.Settings`'), and the
:class:`AdaptiveSettings` it returns is their one record: the ledger's
``adaptive`` field is :meth:`~AdaptiveSettings.record`, the procedure's
:class:`~passk_lab._sequential.Design` is :meth:`~AdaptiveSettings.design`,
and :meth:`~AdaptiveSettings.resume_check` refuses a ledger that records
another evaluation, or limits that would stop it sooner.
"""

from __future__ import annotations

import math
import numbers
import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from passk_lab._checks import confidence, positive_int
from passk_lab._choices import AdaptiveInterval
from passk_lab._sequential import Design
from passk_lab._two_stage import STATISTICS, Statistic
from passk_lab.harness._ledger_read import parse
from passk_lab.harness._task import Guard, Task

__all__ = ["AGENTS", "AdaptiveSettings"]

AGENTS = ("a", "b")
"""How the two agents of a paired evaluation are named, in the ledgers and the tables."""

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


@dataclass(frozen=True)
class AdaptiveSettings:
    """The options of :func:`~passk_lab.evaluate_until` its decisions and stops rest on, checked.

    Build it with :meth:`of`, which checks each option once. The fields are
    in the order the ledger's ``adaptive`` field records them.

    Attributes
    ----------
    k : int
        The target's k.
    statistic : {"pass_pow_k", "pass_at_k"}
        The target.
    confidence_level : float
        Of the intervals.
    min_runs, max_runs_per_task : int
        The runs every task gets, and the most a task may get.
    batch : int
        Tasks drawn per batch.
    pool : int
        Tasks in the pool.
    seed : int
        The seed of the order the tasks are drawn in.
    agents : int
        1, or 2 for a paired evaluation.
    interval : {"sequential", "anytime"}
        The interval stopped on: always ``"anytime"`` (the betting sequence)
        for two agents.
    half_width : float
        The half-width wanted.
    max_runs : int or None
        The most runs in all (both agents together).
    max_cost : dict
        Per cost name, the most the evaluation may spend.
    ledgers : tuple
        One ledger path per agent, or None for none.

    Examples
    --------
    >>> import passk_lab as pk
    >>> pool = [pk.Task(run=lambda: True, id=i) for i in range(50)]
    >>> settings = AdaptiveSettings.of(pool, 3, 0.1, rng=7, max_cost={"usd": 20})
    >>> settings.min_runs, settings.max_runs_per_task, settings.pool, settings.max_cost
    (3, 3, 50, {'usd': 20.0})
    >>> settings.record()["interval"], settings.design().first
    ('sequential', 3)
    >>> AdaptiveSettings.of(pool, 3, 0.1, min_runs=2)
    Traceback (most recent call last):
    ...
    ValueError: min_runs must be at least k = 3 to measure pass_pow_k at k, got 2
    """

    k: int
    statistic: Statistic
    confidence_level: float
    min_runs: int
    max_runs_per_task: int
    batch: int
    pool: int
    seed: int
    agents: int
    interval: AdaptiveInterval
    half_width: float
    max_runs: int | None
    max_cost: dict[str, float]
    ledgers: tuple[Path | None, ...]

    @classmethod
    def of(
        cls,
        tasks: Sequence[Task[Any]],
        k: object,
        half_width: object,
        *,
        confidence_level: object = 0.95,
        rng: object = None,
        statistic: object = "pass_pow_k",
        min_runs: object = None,
        max_runs_per_task: object = None,
        max_runs: object = None,
        max_cost: object = None,
        batch: object = 10,
        interval: object = "sequential",
        against: Sequence[Task[Any]] | None = None,
        ledger: object = None,
        resume: bool = False,
        run_timeout_ms: float | None = None,
        guard: Guard | None = None,
    ) -> AdaptiveSettings:
        """Check the options of :func:`~passk_lab.evaluate_until` and return their record.

        The arguments are those of :func:`~passk_lab.evaluate_until`, with the
        same defaults. `tasks` and `against` are checked as a pool and its
        pairing (their tasks themselves are the harness's to check), `ledger`
        as one path per agent; `rng` gives the seed (with `resume` and no
        `rng`, a ledger's own). `guard` and `run_timeout_ms` are asked only
        whether a guard comes without a time limit: the harness's settings
        hold them.

        Raises
        ------
        TypeError, ValueError
            For the first option that is wrong, naming it (the messages
            :func:`~passk_lab.evaluate_until` raises).
        """
        agents = 1 if against is None else 2
        power = positive_int("k", k)
        first = power if min_runs is None else positive_int("min_runs", min_runs)
        if first < power:
            raise ValueError(
                f"min_runs must be at least k = {power} to measure {statistic} at k, got {first}"
            )
        most = (
            first
            if max_runs_per_task is None
            else positive_int("max_runs_per_task", max_runs_per_task)
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
                f"(min_runs = {first}{' for each agent' if agents == 2 else ''}); allow at least "
                "that"
            )
        if guard is not None and run_timeout_ms is None:
            raise ValueError("guard only applies under a time limit; pass run_timeout_ms as well")
        _check_pool(tasks, against)
        paths = _paths(ledger, agents)
        return cls(
            k=power,
            statistic=statistic,
            confidence_level=level,
            min_runs=first,
            max_runs_per_task=most,
            batch=size,
            pool=len(tasks),
            seed=_seed(rng, paths, resume),
            agents=agents,
            interval="anytime" if agents == 2 else interval,
            half_width=width,
            max_runs=runs_limit,
            max_cost=cost_limit,
            ledgers=tuple(paths),
        )

    def record(self, agent: int = 0) -> dict[str, Any]:
        """Return the settings as agent `agent`'s ledger records them, its ``adaptive`` field."""
        return {
            "k": self.k,
            "statistic": self.statistic,
            "confidence_level": self.confidence_level,
            "min_runs": self.min_runs,
            "max_runs_per_task": self.max_runs_per_task,
            "batch": self.batch,
            "pool": self.pool,
            "seed": self.seed,
            "agent": None if self.agents == 1 else AGENTS[agent],
            "interval": self.interval,
            "half_width": self.half_width,
            "max_runs": self.max_runs,
            "max_cost": self.max_cost,
        }

    def design(self) -> Design:
        """Return the design the procedure carries out (:func:`passk_lab._sequential.procedure`)."""
        return Design(
            k=self.k,
            statistic=self.statistic,
            half_width=self.half_width,
            confidence_level=self.confidence_level,
            first=self.min_runs,
            most=self.max_runs_per_task,
            batch=self.batch,
            pool=self.pool,
            seed=self.seed,
            agents=self.agents,
            anytime=self.interval == "anytime",
            max_runs=self.max_runs,
            max_cost=self.max_cost,
        )

    def resume_check(
        self, agent: int, ids: list[Any], *, resume: bool
    ) -> Callable[[dict[str, Any]], None] | None:
        """Return the check that agent `agent`'s ledger records this evaluation; None: no ledger.

        The check refuses, by a ValueError saying what differs, a ledger of
        :func:`~passk_lab.evaluate`, another design or pool (`ids`, as the
        ledger records them), or limits that would stop the evaluation sooner
        than the ledger's. With `resume`, a ledger there is checked at once,
        before any ledger is opened (the evaluation checks it again under its
        lock), so that a refusal of the second agent's leaves the first's
        untouched.
        """
        path = self.ledgers[agent]
        if path is None:
            return None
        check = _check(self.record(agent), ids, path)
        recorded = _recorded(path) if resume else {}
        if recorded:
            check(recorded)
        return check


def _resuming(path: Path) -> bool:
    return path.is_file() and bool(path.stat().st_size)


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


def _check_pool(tasks: Sequence[Task[Any]], against: Sequence[Task[Any]] | None) -> None:
    """Refuse an empty pool, or a second agent's tasks that do not pair with the first's."""
    if not len(tasks):
        raise ValueError("evaluate_until needs a pool of at least one task to draw from")
    if against is None:
        return
    if len(against) != len(tasks):
        raise ValueError(
            f"against has {len(against)} tasks and tasks has {len(tasks)}: the paired design "
            "needs one task of the second agent per task of the first, in the same order"
        )
    for position, (one, other) in enumerate(zip(tasks, against, strict=True)):
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


def _recorded(path: Path | None) -> dict[str, Any]:
    """Return a ledger's effective header, or an empty one where there is none to resume.

    Read ahead of the evaluation, without the lock (which the evaluation takes
    and checks again under); its warnings are the evaluation's to give. A
    ledger without a complete header line has none: the evaluation starts it
    afresh.
    """
    if path is None or not _resuming(path):
        return {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return parse(path.read_bytes(), path).header or {}


def _check(
    settings: dict[str, Any], ids: list[Any], path: Path
) -> Callable[[dict[str, Any]], None]:
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
