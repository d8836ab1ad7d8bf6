"""Run AI-agent tasks k times, keep every run, and read the record back.

:func:`evaluate` (or, from async code, :func:`evaluate_async`) runs every
:class:`Task` `k` times and returns an :class:`EvalResult`: pass@1, pass^k
and one row per run. With ``ledger=PATH`` each run is also appended to a JSON
Lines file as it finishes, which :func:`read_ledger` reads back as a
:class:`Ledger` and ``resume=True`` continues, or grows by a larger k or more
tasks (the ledger records each resumption). A run's cost (``Task.cost``, or
the result's ``cost`` attribute) is recorded with it. What a task is and what
an evaluation returns are in :mod:`passk_lab.harness._task`, its options and
their checks in :mod:`passk_lab.harness._settings`, how runs are timed,
retried and counted (and :class:`~passk_lab.harness._runner.Evaluation`,
which runs chosen runs for an adaptive driver) in
:mod:`passk_lab.harness._runner`, the ledger's lines in
:mod:`passk_lab.harness._ledger`, and :func:`~passk_lab.evaluate_until`, which
runs tasks from a pool until pass^k is known to a half-width, in
:mod:`passk_lab.harness._adaptive`.

Examples
--------
>>> from passk_lab.harness import Task, evaluate
>>> result = evaluate([Task(run=lambda: True, id="always")], k=3)
>>> result.pass_at_1, result.pass_pow_k, len(result.runs)
(1.0, 1.0, 3)
"""

from typing import TYPE_CHECKING, Any

from passk_lab._choices import ERROR_KINDS
from passk_lab.harness._ledger import Ledger, read_ledger
from passk_lab.harness._task import EvalResult, Guard, Task

if TYPE_CHECKING:
    from passk_lab.harness._runner import evaluate, evaluate_async

__all__ = [
    "ERROR_KINDS",
    "EvalResult",
    "Guard",
    "Ledger",
    "Task",
    "evaluate",
    "evaluate_async",
    "read_ledger",
]


def __getattr__(name: str) -> Any:
    """Load the runner (and asyncio, 40 ms) on first use: reading a ledger needs neither."""
    if name in ("evaluate", "evaluate_async"):
        from passk_lab.harness import _runner

        return getattr(_runner, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
