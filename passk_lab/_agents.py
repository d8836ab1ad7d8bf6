"""The agents of a leaderboard: their runs and passes on the tasks they all have, tasks x agents.

:class:`Agents` reads the runs once (through the tally, so it takes what every
statistic takes), refuses or drops the tasks some agent lacks, and answers
what the paired tests and the ranks ask of it: one agent's tally, the tasks a
pair (or every agent) has k runs of, the ks there are. The warnings about
those tasks are here too: a k that counts fewer tasks than the first, and
agents with different runs on a shared task (which makes the paired tests
approximate).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from passk_lab._checks import k_values
from passk_lab._choices import ErrorPolicy
from passk_lab._data.rules import By, by_columns, display
from passk_lab._data.tally import Tally, as_tally
from passk_lab._errors import with_keywords
from passk_lab._paired import examples
from passk_lab._typing import Bools, Ints
from passk_lab._warnings import (
    TasksLeftOutWarning,
    UnequalRunsWarning,
    UnmatchedTasksWarning,
    warn,
)

__all__ = ["Agents", "warn_left_out", "warn_unequal_runs"]


class Agents:
    """The agents' runs and passes on the tasks they all have: tasks x agents."""

    def __init__(
        self, runs: object, by: By, errors: ErrorPolicy, unmatched: str, caller: str
    ) -> None:
        names = by_columns(by)
        if not names:
            raise with_keywords(
                ValueError(
                    f"{caller} needs by=, the column (or columns) that names the agents, e.g. "
                    f"{caller}(runs, by='model')"
                ),
                "by",
            )
        if unmatched not in ("raise", "drop"):
            raise ValueError(f"unmatched must be 'raise' or 'drop', got {unmatched!r}")
        summary = as_tally(runs, names, errors=errors)
        codes, labels = summary.groups()
        self.by = names
        self.labels = labels
        self.names: list[object] = [
            display(row[0]) if len(names) == 1 else tuple(map(display, row))
            for row in labels.itertuples(index=False)
        ]
        if len(self.names) < 2:
            raise with_keywords(
                ValueError(
                    f"{caller} compares two or more agents, and the runs hold one value of "
                    f"by={list(names)}: {self.names[0]!r}; name the column that tells the agents "
                    f"apart, or use reliability_curve for one agent"
                ),
                "by",
            )
        task_codes, tasks = pd.factorize(summary.labels["task"])
        n = np.full((len(tasks), len(self.names)), -1, dtype=np.int64)
        c = np.zeros_like(n)
        n[task_codes, codes] = summary.n
        c[task_codes, codes] = summary.c
        complete = np.all(n >= 0, axis=1)
        self.dropped: list[object] = [display(task) for task in tasks[~complete]]
        if not complete.all():
            self._refuse_unshared(n, pd.Index(tasks), complete, unmatched, caller)
        self.tasks = pd.Index(tasks[complete])
        self.n, self.c = n[complete], c[complete]
        self.errors = summary.errors

    def _refuse_unshared(
        self, n: Ints, tasks: pd.Index, complete: Bools, unmatched: str, caller: str
    ) -> None:
        """Refuse, or warn of, the tasks that some agent lacks."""
        lacking = [
            f"{name!r} lacks {int(np.sum(n[:, j] < 0))} ({examples(tasks[n[:, j] < 0])})"
            for j, name in enumerate(self.names)
            if np.any(n[:, j] < 0)
        ]
        what = f"{int(np.sum(~complete))} task(s) are not run by every agent: " + "; ".join(lacking)
        if not complete.any():
            raise ValueError(f"the agents share no task: {what}; {caller} needs the same tasks")
        if unmatched == "raise":
            raise with_keywords(
                ValueError(
                    f"{what}; agents are ranked on the same tasks: run the missing ones, or pass "
                    f"unmatched='drop' to rank on the {int(complete.sum())} tasks every agent has "
                    f"(the dropped ones are listed in the result's attrs['dropped_tasks'])"
                ),
                "unmatched",
            )
        warn(
            UnmatchedTasksWarning(
                f"ranked the {int(complete.sum())} tasks every agent has and dropped {what}",
                kept=int(complete.sum()),
                dropped=[display(task) for task in tasks[~complete]],
            )
        )

    def tally(self, agent: int, rows: Bools) -> Tally:
        """Return one agent's tally on the shared tasks that `rows` marks."""
        return Tally(
            labels=pd.DataFrame({"task": self.tasks[rows]}),
            n=self.n[rows, agent],
            c=self.c[rows, agent],
            n_errors=None,
            by=(),
            errors=self.errors,
        )

    def counted(self, pair: tuple[int, int] | None, ks: Ints) -> Bools:
        """Return tasks x ks: the tasks a pair (None: every agent) has k runs of."""
        runs = self.n if pair is None else self.n[:, list(pair)]
        fewest: Bools = runs.min(axis=1)[:, None] >= ks
        return fewest

    def ks(self, ks: Iterable[int] | None) -> Ints:
        """Return the asked ks (1 to the most runs every agent has on some task), each counted."""
        fewest = self.n.min(axis=1)
        largest = int(fewest.max())
        values = k_values(ks, largest)
        if values[-1] > largest:
            raise ValueError(
                f"no task has k = {int(values[-1])} runs for every agent (the most all reach is "
                f"{largest}); choose ks up to {largest}"
            )
        return values

    def pairs(self) -> list[tuple[int, int]]:
        """Every pair of agents, in the order they first appear."""
        count = len(self.names)
        return [(first, second) for first in range(count) for second in range(first + 1, count)]


def warn_unequal_runs(agents: Agents, counted: Bools) -> None:
    """Warn, once, where two agents have different runs on a counted task."""
    tasks = np.flatnonzero(counted.any(axis=1) & (agents.n.min(axis=1) != agents.n.max(axis=1)))
    if len(tasks) == 0:
        return
    runs = agents.n[tasks[0]]
    fewest, most = int(np.argmin(runs)), int(np.argmax(runs))
    warn(
        UnequalRunsWarning(
            f"{len(tasks)} of the {len(agents.tasks)} shared tasks have different runs for some "
            f"agents (task {display(agents.tasks[tasks[0]])!r}: {agents.names[fewest]!r} has "
            f"{int(runs[fewest])}, {agents.names[most]!r} {int(runs[most])}); the paired "
            f"sign-flip test is exact only when both agents of a pair have the same runs on "
            f"each task, and approximate here (docs/leaderboards.md measures it): run every "
            f"agent as often on each task for exact tests",
            tasks=len(tasks),
            shared=len(agents.tasks),
        )
    )


def warn_left_out(agents: Agents, counted: Bools, ks: Ints) -> None:
    """Warn where a k counts fewer tasks than the first: some agent has fewer runs there."""
    tasks = counted.sum(axis=0)
    fewer = np.flatnonzero(tasks < tasks[0])
    if len(fewer) == 0:
        return
    first = int(fewer[0])
    short = [
        repr(name)
        for j, name in enumerate(agents.names)
        if np.any(counted[:, 0] & (agents.n[:, j] < ks[first]))
    ]
    warn(
        TasksLeftOutWarning(
            f"k = {int(ks[first])} counts {int(tasks[first])} of the {int(tasks[0])} tasks "
            f"counted at k = {int(ks[0])}: {', '.join(short)} ha"
            f"{'s' if len(short) == 1 else 've'} fewer than {int(ks[first])} runs on the "
            f"others, and every agent is ranked on the tasks where all have k runs; run those "
            f"tasks again, or choose ks up to {int(ks[max(first - 1, 0)])}",
            k=int(ks[first]),
            counted=int(tasks[first]),
            first=int(tasks[0]),
            keywords=("ks",),
        )
    )
