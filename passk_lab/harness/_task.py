"""What the harness runs and what it returns: :class:`Task` and :class:`EvalResult`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import pandas as pd

__all__ = ["EvalResult", "Guard", "Task", "the_result"]

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

    Examples
    --------
    >>> from passk_lab import evaluate
    >>> task = Task(run=lambda: 2 + 2, passes=lambda answer: answer == 4, id="add")
    >>> evaluate([task], k=3).pass_pow_k
    1.0
    """

    run: Callable[[], T | Awaitable[T]]
    passes: Callable[[T], bool | Awaitable[bool]] = the_result
    id: Hashable | None = None


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
          how long it took, verdict and retries included.
    header : dict
        What the evaluation records about itself, as a ledger's first line
        does: ``model``, ``date`` (its start, UTC), ``seed``, ``passk_lab``
        (the version), ``k``, ``tasks`` (the ids), the time limits and
        ``metadata``. A resumed evaluation keeps its ledger's header.
    """

    tasks: int
    k: int
    pass_at_1: float
    pass_pow_k: float
    runs: pd.DataFrame = field(repr=False, compare=False)
    header: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def to_frame(self) -> pd.DataFrame:
        """Return the summary as a one-row DataFrame (for tables and exports).

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
            }
        )
