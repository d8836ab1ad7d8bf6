"""What an adaptive evaluation returns: :class:`AdaptiveResult`, and how it is built from its runs.

:func:`adaptive_result` turns the runs an adaptive evaluation made and where
the procedure stopped (:class:`~passk_lab._sequential.Stop`) into the
result: every run, the curve with the design's estimates and intervals, the
plan each task ran under, and for two agents the comparison.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from passk_lab._curve import price_pass_pow_k
from passk_lab._data.costs import COST_PREFIX
from passk_lab._sequential import Design, Ends, Look, Stop, target_interval
from passk_lab._summary import Estimate, summary_html, summary_repr
from passk_lab._two_stage import STATISTICS
from passk_lab._warnings import EvaluationWarning, warn
from passk_lab.estimators import reliability_curve
from passk_lab.harness._adaptive_settings import AGENTS
from passk_lab.harness._evaluation import Evaluation
from passk_lab.harness._ledger_format import RunRecord
from passk_lab.harness._ledger_read import cost_totals, runs_frame
from passk_lab.harness._task import EvalResult

__all__ = ["AdaptiveResult", "adaptive_result"]


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
        ``passk_lab._two_stage`` and, in ``interval_method``,
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
    path : pandas.DataFrame
        What the stopping rule saw after each batch, one row per batch:
        ``batch`` (from 1), ``tasks`` and ``runs`` so far (both agents'
        runs, for two), ``cost_<name>`` spent so far for each cost the runs
        recorded, and the target's estimate and interval as the rule read
        them, named as in ``curve`` (``pass_pow_k``, ``pass_pow_k_low``,
        ``pass_pow_k_high``, or ``pass_at_k``...) or, for two agents, as in
        ``comparison`` (``difference``, ``difference_low``,
        ``difference_high``), then ``half_width``. Its last row is the
        interval the result reports; :func:`~passk_lab.plots.adaptive_path`
        draws it.
    """

    curve: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False, compare=False)
    stopped_because: str = "exhausted"
    design: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False, compare=False)
    comparison: pd.DataFrame | None = field(default=None, repr=False, compare=False)
    path: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False, compare=False)

    def __repr__(self) -> str:
        """Return one line: the fields of an EvalResult, why it stopped, and what it stopped on.

        pass@1 and pass^k carry the adaptive design's intervals (those of
        `curve`). A pass@k target follows, as ``pass_at_k`` with its interval,
        and for two agents the ``difference`` in the target with its interval.

        Examples
        --------
        >>> import passk_lab as pk
        >>> pk.evaluate_until(pk.coin_tasks(p=0.85, tasks=200, seed=1), k=3, half_width=0.1, rng=0)
        AdaptiveResult(tasks=100, k=3, pass_at_1=0.833 (95% CI [0.781, 0.878]),
                       pass_pow_k=0.6 (95% CI [0.497, 0.697]), runs=<300 rows>, errored=0,
                       timed_out=0, stopped_because='half_width')
        """
        fields = [*self._fields(), ("stopped_because", self.stopped_because)]
        name, value = self._target()
        if name != "pass_pow_k" and value is not None:
            fields.append((name, value))
        return summary_repr(type(self).__name__, fields)

    def _repr_html_(self) -> str:
        """Return the summary as an HTML table, for Jupyter, with the intervals and decisions.

        The target's estimate, when it is not pass^k, is a row of its own with
        its interval; so are, for two agents, each agent's and the difference.

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
        target = f"{_TARGETS.get(str(settings.get('statistic')), 'pass^')}{self.k}"
        rows = self._rows(k_label="k of the target")
        name, value = self._target()
        if name == "difference":  # the rows of an EvalResult are A's
            first = ("pass@1", f"pass^{self.k}")
            rows = [(f"{label} of A" if label in first else label, v) for label, v in rows]
            statistic = str(settings.get("statistic", "pass_pow_k"))
            rows += [
                (f"{target} of {agent.upper()}", self._estimate(statistic, self.k, agent))
                for agent in AGENTS
                if agent != AGENTS[0] or target not in first
            ]
            rows.append((f"difference A - B in {target}", value))
        elif name != "pass_pow_k" and value is not None:
            rows.append((target, value))
        if isinstance(value, Estimate) and value.has_interval:
            rows.append(("half-width reached", (value.high - value.low) / 2))
        if "half_width" in settings:
            rows.append(("half-width wanted", settings["half_width"]))
        rows.append(("stopped because", _REASONS.get(self.stopped_because, self.stopped_because)))
        if {"runs", "first", "task"} <= set(self.design.columns):
            more = self.design["runs"] > self.design["first"]
            rows.append(("tasks given more runs", int(self.design.loc[more, "task"].nunique())))
        methods = (
            set(self.curve["interval_method"].dropna())
            if "interval_method" in self.curve
            else set()
        )
        notes = [_METHODS[method] for method in sorted(methods) if method in _METHODS]
        return summary_html(type(self).__name__, rows, notes)

    def _estimates(self) -> tuple[Estimate | float, Estimate | float]:
        """Return pass@1 and pass^k with the adaptive design's intervals, those of `curve`."""
        at_1 = self._estimate("pass_pow_k", 1, AGENTS[0], self.pass_at_1)
        at_k = self._estimate("pass_pow_k", self.k, AGENTS[0], self.pass_pow_k)
        return self.pass_at_1 if at_1 is None else at_1, self.pass_pow_k if at_k is None else at_k

    def _estimate(
        self, statistic: str, k: int, agent: str, value: float | None = None
    ) -> Estimate | float | None:
        """Return a statistic of the curve at k for an agent, with its interval.

        `value` (the field the result holds) stands in for the curve's, and
        alone when the curve has no such row; None when neither is known.
        """
        rows = self.curve
        if "agent" in rows:
            rows = rows[rows["agent"] == agent]
        columns = {"k", statistic, f"{statistic}_low", f"{statistic}_high"}
        at_k = rows[rows["k"] == k] if columns <= set(rows.columns) else rows.iloc[:0]
        if at_k.empty:
            return value
        row = at_k.iloc[0]
        return Estimate(
            float(row[statistic]) if value is None else value,
            float(row[f"{statistic}_low"]),
            float(row[f"{statistic}_high"]),
            self._level(),
        )

    def _level(self) -> float | None:
        """Return the confidence level the evaluation recorded, None if it recorded none."""
        level = (self.header.get("adaptive") or {}).get("confidence_level")
        return float(level) if isinstance(level, (int, float)) else None

    def _target(self) -> tuple[str, Estimate | float | None]:
        """Return the name of what the evaluation stopped on, and its estimate and interval.

        ``"difference"`` for two agents, else the statistic (``"pass_pow_k"``
        or ``"pass_at_k"``) with the curve's value at the target's k.
        """
        if self.comparison is not None and len(self.comparison):
            row = self.comparison.iloc[0]
            return "difference", Estimate(
                float(row["difference"]),
                float(row["difference_low"]),
                float(row["difference_high"]),
                self._level(),
            )
        statistic = str((self.header.get("adaptive") or {}).get("statistic", "pass_pow_k"))
        return statistic, self._estimate(statistic, self.k, AGENTS[0])


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

_METHODS = {
    "sequential": (
        "The intervals are the adaptive design's sequential ones, whose coverage under its "
        "stopping rule study/adaptive_coverage.py measures (docs/adaptive.md)."
    ),
    "betting_sequence": (
        "The intervals are betting confidence sequences, valid however the evaluation stopped "
        "(docs/adaptive.md)."
    ),
}
"""What the intervals of each ``interval_method`` of the curve are, as the HTML summary says."""


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


def _path_frame(looks: tuple[Look, ...], design: Design) -> pd.DataFrame:
    """Return the path of the target's interval, one row per batch, as ``AdaptiveResult.path``."""
    name = design.statistic if design.agents == 1 else "difference"
    costs = sorted({cost for look in looks for cost in look.cost})
    frame = pd.DataFrame(
        {
            "batch": np.arange(1, len(looks) + 1),
            "tasks": [look.tasks for look in looks],
            "runs": [look.runs for look in looks],
            **{
                f"{COST_PREFIX}{cost}": [look.cost.get(cost, 0.0) for look in looks]
                for cost in costs
            },
            name: [look.estimate for look in looks],
            f"{name}_low": [look.low for look in looks],
            f"{name}_high": [look.high for look in looks],
        }
    )
    frame["half_width"] = (frame[f"{name}_high"] - frame[f"{name}_low"]) / 2
    return frame


def adaptive_result(evaluations: list[Evaluation], stop: Stop, design: Design) -> AdaptiveResult:
    """Return the result of the evaluations (one per agent) the procedure of `design` stopped.

    Runs a ledger holds that the decisions did not use (a resumed ledger's
    runs past where this evaluation stopped) are left out, with an
    :class:`~passk_lab.EvaluationWarning`.
    """
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
                part.insert(0, "agent", AGENTS[agent])
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
        path=_path_frame(stop.looks, design),
    )
