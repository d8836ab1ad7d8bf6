"""What the harness runs and what it returns: :class:`Task` and :class:`EvalResult`."""

from __future__ import annotations

import warnings
from collections.abc import Awaitable, Callable, Hashable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar

import pandas as pd

from passk_lab._data.cells import Cells
from passk_lab._data.tally import as_tally
from passk_lab._summary import SUMMARY_LEVEL, Estimate, Shown, summary_html, summary_repr
from passk_lab.intervals import ConfidenceInterval, default_intervals

__all__ = ["EvalResult", "Guard", "Task", "date_text", "the_result"]

T = TypeVar("T")

Guard = Callable[[Callable[[], Any], int], Any]
"""A time limit: ``guard(fn, ms)`` runs ``fn`` and returns its result (or an
awaitable of it), raising (for example ``TimeoutError``) when ``ms`` pass first."""


def the_result(result: Any) -> Any:
    """Return `result` as its own verdict (the default ``passes``), so it must be a bool."""
    return result


@dataclass(frozen=True)
class Task(Generic[T]):
    """One job for the agent: how to run it once, and how to judge the result.

    Parameters
    ----------
    run : callable
        Called with no arguments for every run. A plain function returns the
        result; an ``async def`` function (or any callable returning an
        awaitable) is awaited.
    passes : callable, optional
        ``passes(result) -> bool``, the verdict on one run's result: ``True``
        or ``False`` (a numpy bool too), or an awaitable of one (``async def``
        verdicts are awaited). Without it the result is its own verdict, so
        the run must return a bool: a task whose run declares another result
        type is refused before any run, and a run that returns anything else
        (``"False"``, ``nan``, ``1``) is a failed run whose error says so.
        Anything else a verdict returns fails the run the same way. A time
        limit covers the run and its verdict together.
    id : hashable, optional
        A stable name for the task, recorded in the ``task`` column of the
        runs. The default is the task's position in the list given to
        :func:`~passk_lab.evaluate`.
    cost : callable, optional
        ``cost(result) -> mapping or None``, what one run cost: a mapping of
        names to finite numbers >= 0, such as ``{"usd": 0.25, "tokens": 1000}``.
        Without it a run's cost is its result's own ``cost`` attribute, if it
        has one; the hook is how results you cannot change are priced, as
        ``cost=lambda r: {"usd": r.usage.total_cost}``. None records no cost.
        The cost is taken after the verdict, outside the time limit (keep the
        hook quick: it runs on the evaluation's event loop). A run that
        raised has no result and so no cost. A cost that is not such a
        mapping, or a hook that raises, leaves the run its verdict and records
        no cost, with one :class:`~passk_lab.EvaluationWarning` at the end of the evaluation.
        The costs go in the runs table as ``cost_<name>`` columns and are
        summed in ``EvalResult.cost``.

    Examples
    --------
    >>> from passk_lab import evaluate
    >>> task = Task(run=lambda: 2 + 2, passes=lambda answer: answer == 4, id="add")
    >>> evaluate([task], k=3).pass_pow_k
    1.0

    A result that carries its cost, and one priced by the hook:

    >>> from dataclasses import dataclass
    >>> @dataclass
    ... class Answer:
    ...     ok: bool
    ...     cost: dict
    >>> paid = Task(run=lambda: Answer(ok=True, cost={"usd": 0.25, "tokens": 1000}),
    ...             passes=lambda answer: answer.ok, id="paid")
    >>> priced = Task(run=lambda: 7, passes=lambda answer: answer == 7, id="priced",
    ...               cost=lambda answer: {"usd": 0.5})
    >>> result = evaluate([paid, priced], k=2)
    >>> result.cost
    {'usd': 1.5, 'tokens': 2000.0}
    >>> result.runs[["task", "run", "cost_usd", "cost_tokens"]]
         task  run  cost_usd  cost_tokens
    0    paid    0      0.25       1000.0
    1    paid    1      0.25       1000.0
    2  priced    0      0.50          NaN
    3  priced    1      0.50          NaN
    """

    run: Callable[[], T | Awaitable[T]]
    passes: Callable[[T], bool | Awaitable[bool]] = the_result
    id: Hashable | None = None
    cost: Callable[[T], Mapping[str, float] | None] | None = None


@dataclass(frozen=True)
class EvalResult:
    """What :func:`~passk_lab.evaluate` measured.

    Attributes
    ----------
    tasks : int
        Number of tasks.
    k : int
        Runs per task.
    pass_at_1 : float
        Mean over tasks of the share of runs that passed, ``wins / k``.
    pass_pow_k : float
        Share of tasks that passed on every one of their `k` runs.
    runs : pandas.DataFrame
        One row per run, in task then run order, with columns

        * ``task``: the task's id; ``run``: 0 to k - 1;
        * ``passed`` (bool): the verdict of ``Task.passes``, false when the run
          or the verdict raised;
        * ``error``: ``"Type: message"`` of what was raised, missing when
          nothing was;
        * ``error_kind`` (categorical): ``"agent"`` when the run or its verdict
          raised, ``"timeout"`` when the run ran out of time, and
          ``"infrastructure"`` when an exception named in `infrastructure`
          outlasted its retries; missing when nothing was raised;
        * ``timed_out`` (bool): the run raised ``TimeoutError``, from the time
          limit or from the task itself;
        * ``attempts``: 1, plus one per retry;
        * ``started_at`` (UTC) and ``duration_s``: when the run started and
          how long it took, verdict and retries included;
        * ``cost_<name>`` (float), one column per cost name any run recorded
          (see ``Task.cost``), in order of first appearance: NaN where a run
          recorded none. No column when no run recorded a cost.

        A resumed evaluation's rows are in the order of the tasks given to
        it, as a new one's are.
    header : dict
        What the evaluation records about itself, as a ledger's first line
        does: ``model``, ``date`` (its start, UTC), ``seed``, ``passk_lab``
        (the version), ``k``, ``tasks`` (the ids), the time limits,
        ``metadata`` and ``adaptive`` (None but for an adaptive evaluation);
        and ``resumptions``, the ledger's resumption records (each with
        ``resumed``, its date; ``passk_lab``; ``k``; ``tasks_added``;
        ``adaptive``), empty for a new evaluation. A resumed evaluation
        gives its ledger's effective header: its first line with ``k``,
        ``tasks`` (the ledger's, then those added) and ``adaptive`` as of the
        last resumption, this one included.
    cost : dict
        Per cost name, the sum over the runs that recorded it; empty when
        none did.
    """

    tasks: int
    k: int
    pass_at_1: float
    pass_pow_k: float
    runs: pd.DataFrame = field(repr=False, compare=False)
    header: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    cost: dict[str, float] = field(default_factory=dict, repr=False, compare=False)

    def __repr__(self) -> str:
        """Return one line: the tasks, k, both estimates with their 95% intervals, the runs.

        The intervals are those :func:`~passk_lab.reliability_curve` gives
        ``runs`` by default (closed form, the tasks as the units: nothing is
        drawn), pass@1's from its k = 1 row and pass^k's from its row at `k`.
        Then the runs table, summarised by its length (never printed), the runs
        that raised and timed out, the model and the costs.

        Examples
        --------
        >>> import passk_lab as pk
        >>> pk.evaluate(pk.coin_tasks(p=0.85, tasks=40, seed=42), k=5, model="coin")
        EvalResult(tasks=40, k=5, pass_at_1=0.86 (95% CI [0.787, 0.915]),
                   pass_pow_k=0.45 (95% CI [0.293, 0.615]), runs=<200 rows>, errored=0,
                   timed_out=0, model='coin')
        """
        return summary_repr(type(self).__name__, self._fields())

    def _repr_html_(self) -> str:
        """Return the summary as an HTML table, for Jupyter, each estimate with its 95% interval.

        Examples
        --------
        >>> import passk_lab as pk
        >>> page = pk.evaluate(pk.coin_tasks(p=0.85, tasks=40, seed=42), k=5)._repr_html_()
        >>> "pass^5" in page and "0.45" in page and "[0.293, 0.615]" in page
        True
        """
        rows = self._rows()
        shown = any(isinstance(value, Estimate) for _, value in rows)
        return summary_html(type(self).__name__, rows, [_CURVE_NOTE] if shown else [])

    def _estimates(self) -> tuple[Estimate | float, Estimate | float]:
        """Return pass@1 and pass^k, each with the interval the reliability curve of the runs gives.

        The values alone when the runs table cannot be counted (a table made by
        hand, without ``task`` and ``passed``).
        """
        limits = _curve_limits(self.runs, self.k)
        if limits is None:
            return self.pass_at_1, self.pass_pow_k
        at_1, pow_k = limits
        return (
            Estimate(self.pass_at_1, float(at_1.low), float(at_1.high), SUMMARY_LEVEL),
            Estimate(self.pass_pow_k, float(pow_k.low), float(pow_k.high), SUMMARY_LEVEL),
        )

    def _errors(self) -> tuple[int, int]:
        """Return the runs that raised and those of them that timed out.

        A run errored when it has an ``error_kind``, or, in a runs table that
        records only the ``error`` text, an ``error``.
        """
        runs = self.runs
        recorded = next((name for name in ("error_kind", "error") if name in runs), None)
        errored = 0 if recorded is None else int(runs[recorded].notna().sum())
        timed_out = int(runs["timed_out"].sum()) if "timed_out" in runs else 0
        return errored, timed_out

    def _fields(self) -> list[tuple[str, object]]:
        errored, timed_out = self._errors()
        pass_at_1, pass_pow_k = self._estimates()
        fields: list[tuple[str, object]] = [
            ("tasks", self.tasks),
            ("k", self.k),
            ("pass_at_1", pass_at_1),
            ("pass_pow_k", pass_pow_k),
            ("runs", Shown(f"<{len(self.runs)} rows>")),
            ("errored", errored),
            ("timed_out", timed_out),
        ]
        if self.header.get("model") is not None:
            fields.append(("model", str(self.header["model"])))
        if self.cost:
            fields.append(("cost", self.cost))
        return fields

    def _rows(self, k_label: str = "runs per task (k)") -> list[tuple[str, object]]:
        errored, timed_out = self._errors()
        pass_at_1, pass_pow_k = self._estimates()
        rows: list[tuple[str, object]] = [
            ("tasks", self.tasks),
            (k_label, self.k),
            ("pass@1", pass_at_1),
            (f"pass^{self.k}", pass_pow_k),
            ("runs", len(self.runs)),
            ("errored runs", errored),
            ("of them, timed out", timed_out),
        ]
        if self.header.get("model") is not None:
            rows.append(("model", str(self.header["model"])))
        if self.header.get("date"):
            rows.append(("date", date_text(self.header["date"])))
        rows += [(f"cost ({name})", total) for name, total in self.cost.items()]
        return rows

    def to_frame(self) -> pd.DataFrame:
        """Return the summary as a one-row DataFrame (for tables and exports).

        A ``cost_<name>`` column follows per cost name, holding its total.

        Examples
        --------
        >>> from passk_lab import evaluate
        >>> result = evaluate([Task(run=lambda: True)], k=2)
        >>> result.to_frame()
           n_tasks  k  pass_at_1  pass_pow_k
        0        1  2        1.0         1.0
        """
        return pd.DataFrame(
            {
                "n_tasks": [self.tasks],
                "k": [self.k],
                "pass_at_1": [self.pass_at_1],
                "pass_pow_k": [self.pass_pow_k],
                **{f"cost_{name}": [total] for name, total in self.cost.items()},
            }
        )


_CURVE_NOTE = (
    "The intervals are those pk.reliability_curve(result.runs) gives (tasks as the units; "
    "closed form)."
)
"""Where an evaluation's intervals come from, as its HTML summary says."""


def _curve_limits(
    runs: pd.DataFrame, k: int
) -> tuple[ConfidenceInterval, ConfidenceInterval] | None:
    """Return the limits of pass@1 and of pass^k that :func:`~passk_lab.reliability_curve` gives.

    The curve's default: errored runs as failures, every task with a run
    counted for pass@1 and every task with `k` runs or more for pass^k, the
    ``"auto"`` intervals at :data:`SUMMARY_LEVEL` (closed form, so the generator
    is never drawn from). None when the runs cannot be counted; a warning the
    counting gives is not repeated at every display.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            cells = Cells.from_tally(as_tally(runs, None))
        except (ValueError, TypeError, KeyError):
            return None
        if k < 1 or not len(cells.n):
            return None
        return default_intervals(cells.n, cells.c, cells.tasks, k, SUMMARY_LEVEL)


def date_text(recorded: object) -> str:
    """Return a header's ISO date as ``2026-12-02 00:49 UTC``, or as recorded if it is not one.

    Examples
    --------
    >>> date_text("2026-12-02T01:49:31+01:00"), date_text("yesterday")
    ('2026-12-02 00:49 UTC', 'yesterday')
    """
    try:
        moment = datetime.fromisoformat(str(recorded))
    except ValueError:
        return str(recorded)
    if moment.utcoffset() is not None:
        moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%d %H:%M") + (" UTC" if moment.tzinfo else "")
