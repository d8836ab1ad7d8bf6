"""Run AI-agent tasks k times, keep every run, and read the record back.

:func:`evaluate` (or, from async code, :func:`evaluate_async`) runs every
:class:`Task` `k` times and returns an :class:`EvalResult`: pass@1, pass^k
and one row per run. With ``ledger=PATH`` each run is also appended to a JSON
Lines file as it finishes, which :func:`read_ledger` reads back as a
:class:`Ledger` and ``resume=True`` continues, or grows by a larger k or more
tasks (docs/ledger.md). A run's cost (``Task.cost``, or the result's ``cost``
attribute) is recorded with it.

The modules, from the bottom up:

* :mod:`~passk_lab.harness._task`: what a task is and what an evaluation returns;
* :mod:`~passk_lab.harness._ledger_format`: what a ledger's lines hold, and
  the one check of each; :mod:`~passk_lab.harness._ledger_read`: reading a
  ledger back, and the runs table; :mod:`~passk_lab.harness._ledger_write`:
  its header and lines, the lock, the appends;
* :mod:`~passk_lab.harness._settings`: the options, checked once, and the plan;
* :mod:`~passk_lab.harness._threads`: plain functions run in threads, and an
  evaluation on a loop of its own; :mod:`~passk_lab.harness._attempt`: one
  run (time limit, retries, verdict, cost, error kind);
  :mod:`~passk_lab.harness._evaluation`: the loop over the runs,
  :func:`evaluate` and the :class:`~passk_lab.harness._evaluation.Evaluation`
  an adaptive driver runs chosen runs through;
* :mod:`~passk_lab.harness._adaptive_settings`,
  :mod:`~passk_lab.harness._adaptive_result` and
  :mod:`~passk_lab.harness._adaptive`: :func:`~passk_lab.evaluate_until`,
  which runs tasks from a pool until pass^k is known to a half-width.

Examples
--------
>>> from passk_lab.harness import Task, evaluate
>>> result = evaluate([Task(run=lambda: True, id="always")], k=3)
>>> result.pass_at_1, result.pass_pow_k, len(result.runs)
(1.0, 1.0, 3)
"""

from typing import TYPE_CHECKING, Any

from passk_lab._choices import ERROR_KINDS
from passk_lab.harness._ledger_format import RunRecord
from passk_lab.harness._ledger_read import Ledger, read_ledger
from passk_lab.harness._task import EvalResult, Guard, Task

if TYPE_CHECKING:
    from passk_lab.harness._evaluation import evaluate, evaluate_async

__all__ = [
    "ERROR_KINDS",
    "EvalResult",
    "Guard",
    "Ledger",
    "RunRecord",
    "Task",
    "evaluate",
    "evaluate_async",
    "read_ledger",
]


def __getattr__(name: str) -> Any:
    """Load the runner (and asyncio, 40 ms) on first use: reading a ledger needs neither."""
    if name in ("evaluate", "evaluate_async"):
        from passk_lab.harness import _evaluation

        return getattr(_evaluation, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
