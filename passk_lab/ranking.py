"""Leaderboards of many agents on the same tasks: ranks with simultaneous intervals, pairwise tests.

Every pair of agents is compared task by task, as :func:`~passk_lab.compare`
compares two: the difference in pass^k (or pass@k), its paired interval,
and the correlation of the agents' per-task scores. Each pair also gets the
p-value of the paired sign-flip test of no difference (McNemar's exact
test at k = 1 with one run per task), adjusted for the number of pairs by
Holm's step-down method (or Benjamini and Hochberg's).

A leaderboard ranks the agents by their estimate at each k, and turns the
Holm-adjusted tests at level ``1 - confidence_level`` into rank intervals:
agent j's rank is at least one more than the number of agents shown to be
better than it, and at most the number of agents less those shown to be worse.
Holm's method keeps the chance of telling any two alike agents apart at
``1 - confidence_level``; a wrong direction between unequal agents is outside
that proof, so the simultaneous coverage of the rank intervals is measured,
by ``study/leaderboard_coverage.py``.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable
from typing import Any

import numpy as np
import pandas as pd

from passk_lab._checks import confidence, k_values, positive_int
from passk_lab._choices import METRICS, Adjustment, ErrorPolicy, Metric, Unmatched
from passk_lab._data.cells import products
from passk_lab._data.rules import By, by_columns, display
from passk_lab._data.tally import Tally, as_tally
from passk_lab._errors import with_keywords
from passk_lab._mean_intervals import TaskMoments, effective_n_interval
from passk_lab._paired import examples, paired_table
from passk_lab._permutation import permutation_test
from passk_lab._typing import Bools, Floats, Ints
from passk_lab._warnings import (
    ResolutionWarning,
    TasksLeftOutWarning,
    UnequalRunsWarning,
    UnmatchedTasksWarning,
    warn,
)

__all__ = ["leaderboard", "pairwise"]


class _Agents:
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


def _adjusted(p_values: Floats, adjust: Adjustment | None) -> Floats:
    """Holm's step-down or Benjamini and Hochberg's step-up adjusted p-values of one family."""
    count = len(p_values)
    order = np.argsort(p_values, kind="stable")
    ranked = p_values[order]
    if adjust == "holm":
        steps = np.maximum.accumulate(np.minimum(1.0, (count - np.arange(count)) * ranked))
    else:
        scaled = ranked * count / np.arange(1, count + 1)
        steps = np.minimum(1.0, np.minimum.accumulate(scaled[::-1])[::-1])
    adjusted = np.empty(count)
    adjusted[order] = steps
    return adjusted


def _check_adjust(adjust: object) -> Adjustment | None:
    if adjust is None or adjust == "holm" or adjust == "bh":
        return adjust
    raise ValueError(f"adjust must be 'holm', 'bh' or None, got {adjust!r}")


def _family(
    agents: _Agents,
    ks: Ints,
    metrics: tuple[Metric, ...],
    *,
    common_tasks: bool,
    confidence_level: float,
    adjust: Adjustment | None,
    n_resamples: int,
    seed: int,
) -> pd.DataFrame:
    """Return every pair's comparison and test at each metric and k: :func:`pairwise`'s table.

    Each test draws (where it draws at all) from its own generator, seeded by
    `seed`, the pair, the metric and k, so that a test gives one p-value
    whatever else is computed beside it.
    """
    tables: list[pd.DataFrame] = []
    for place, pair in enumerate(agents.pairs()):
        first, second = pair
        counted = agents.counted(None if common_tasks else pair, ks)
        masks, which = np.unique(counted, axis=1, return_inverse=True)
        parts = []
        for mask in range(masks.shape[1]):  # the ks that count the same tasks, together
            rows, at = masks[:, mask], ks[which.ravel() == mask]
            table = paired_table(
                agents.tally(first, rows),
                agents.tally(second, rows),
                at,
                confidence_level=confidence_level,
            )
            parts.append(table[table["metric"].isin(metrics)])
        table = pd.concat(parts, ignore_index=True)
        tests = [
            permutation_test(
                agents.n[rows, first],
                agents.c[rows, first],
                agents.n[rows, second],
                agents.c[rows, second],
                int(k),
                metric,
                n_resamples=n_resamples,
                rng=np.random.default_rng([seed, first, second, METRICS.index(metric), int(k)]),
            )
            for metric, k in zip(table["metric"], table["k"], strict=True)
            for rows in [counted[:, int(np.searchsorted(ks, k))]]
        ]
        table.insert(0, "b", [agents.names[second]] * len(table))
        table.insert(0, "a", [agents.names[first]] * len(table))
        table["p_value"] = [test.p_value for test in tests]
        table["test"] = [test.test for test in tests]
        table["pair"] = place
        tables.append(table)
    result = pd.concat(tables, ignore_index=True)
    result = result.sort_values(
        ["metric", "k", "pair"],
        key=lambda column: column.map(METRICS.index) if column.name == "metric" else column,
    )
    result["p_adjusted"] = result["p_value"]
    if adjust is not None:
        for _, family in result.groupby(["metric", "k"], sort=False).groups.items():
            result.loc[family, "p_adjusted"] = _adjusted(
                result.loc[family, "p_value"].to_numpy(), adjust
            )
    _warn_monte_carlo(result, len(agents.pairs()), 1.0 - confidence_level, adjust, n_resamples)
    columns = [*result.columns.drop(["pair", "test", "p_adjusted"]), "p_adjusted", "test"]
    return result[columns].reset_index(drop=True)


def _warn_monte_carlo(
    pairs: pd.DataFrame, count: int, alpha: float, adjust: Adjustment | None, n_resamples: int
) -> None:
    """Warn where Monte Carlo p-values cannot fall below the smallest adjusted threshold."""
    drawn = pairs["test"].str.startswith("sign_flip_monte_carlo")
    threshold = alpha if adjust is None else alpha / count
    if drawn.any() and 1.0 / (1 + n_resamples) > threshold:
        needed = math.ceil(1.0 / threshold - 1.0)
        against = (
            f"the level {alpha:.2g}"
            if adjust is None
            else f"{alpha:.2g} / {count} pairs = {threshold:.2g}, the smallest threshold of "
            f"{'Holm' if adjust == 'holm' else 'Benjamini and Hochberg'}"
        )
        warn(
            ResolutionWarning(
                f"{int(drawn.sum())} test(s) are Monte Carlo ones (their exact lattice is too "
                f"large), and {n_resamples:,} draws cannot show a p-value below "
                f"1/{n_resamples + 1:,}, which is above {against}: a difference those tests "
                f"would show may be missed; raise n_resamples to at least {needed:,}",
                tests=int(drawn.sum()),
                needed=needed,
            )
        )


def _warn_unequal_runs(agents: _Agents, counted: Bools) -> None:
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


def pairwise(
    runs: pd.DataFrame | np.ndarray,
    by: By = "model",
    ks: Iterable[int] | None = None,
    *,
    metrics: Iterable[Metric] = METRICS,
    adjust: Adjustment | None = "holm",
    common_tasks: bool = False,
    errors: ErrorPolicy = "fail",
    confidence_level: float = 0.95,
    unmatched: Unmatched = "raise",
    n_resamples: int = 10_000,
    rng: int | np.random.Generator | None = None,
) -> pd.DataFrame:
    """Compare every pair of agents on the tasks they share: differences, intervals, tests.

    Parameters
    ----------
    runs : DataFrame
        A runs table or a tally with the column(s) `by` naming the agents.
    by : str or list of str
        The column(s) that name the agents.
    ks : sequence of int, optional
        The k values; by default 1 to the most runs every agent has on a task.
    metrics : sequence of {"pass_pow_k", "pass_at_k"}
        The metrics compared; both by default.
    adjust : {"holm", "bh", None}
        How the p-values of one metric and k are adjusted for the number of
        pairs: Holm's step-down method (holds the family-wise error), Benjamini
        and Hochberg's (holds the false discovery rate), or not at all.
    common_tasks : bool
        Count each k on the tasks where every agent has at least k runs: the
        tests :func:`leaderboard`'s ranks are made from. By default each
        pair counts the tasks where both of its agents have k runs.
    errors : {"fail", "exclude"}
        An errored or timed-out run is a failed run, or is left out of `n`.
    confidence_level : float
        Of each difference's interval, in (0, 1).
    unmatched : {"raise", "drop"}
        A task that some agent lacks is refused (the default), or dropped
        from every agent with a warning and listed in
        ``attrs["dropped_tasks"]``.
    n_resamples : int
        Draws of the Monte Carlo sign-flip test, used only where the exact
        distribution would be too large (``test`` says which was used).
    rng : int, numpy.random.Generator or None
        Seed or generator of those draws; each test draws from its own
        generator, made from one seed drawn from `rng` and the test's pair,
        metric and k, so that :func:`leaderboard` with the same int seed
        draws the same.

    Returns
    -------
    DataFrame
        One row per metric (``pass_pow_k``, then ``pass_at_k``), k and pair,
        the pairs in the order the agents first appear: ``[a, b, metric, k,
        value_a, value_b, difference, difference_low, difference_high,
        correlation, n_tasks, p_value, p_adjusted, test]``. ``difference`` is
        ``value_a - value_b`` over the ``n_tasks`` tasks counted at k, with
        :func:`~passk_lab.compare`'s paired interval (not adjusted);
        ``correlation`` is that of their per-task estimates.
        ``p_value`` is the two-sided p-value of the paired sign-flip test of
        no difference (``test``: ``mcnemar_exact`` at k = 1 with one run per
        task, ``sign_flip_exact``, ``sign_flip_approximate`` where the two
        agents' runs differ on some task, or ``sign_flip_monte_carlo``),
        ``p_adjusted`` the adjusted one. With several `by` columns, ``a`` and
        ``b`` hold tuples. ``attrs`` holds ``by``, ``adjust``,
        ``confidence_level``, ``errors``, ``n_resamples``, ``common_tasks``
        and ``dropped_tasks``.

    Raises
    ------
    ValueError
        If the runs hold fewer than two agents, the agents share no task, or
        a task is not run by every agent (with ``unmatched="raise"``).

    Notes
    -----
    The test flips the sign of each task's difference ``d_i`` at random: its
    null hypothesis is that the two agents' outcomes on a task are as likely
    either way round (so the spread of the observed differences, an
    agent-by-task interaction included, is the null's spread). Its p-value
    is computed exactly on the lattice the differences live on (Monte Carlo
    where that is too large), and it is exact at any number of tasks when
    both agents have the same runs on each task; with unequal runs it is
    approximate, with a warning. A Monte Carlo p-value is never below
    ``1 / (1 + n_resamples)``; where that is above the smallest threshold
    of the adjustment, a warning says how many draws would do. The interval
    and the test are separate
    procedures: near the level, an interval can exclude 0 while the test's
    p-value is above ``1 - confidence_level``, or the other way round.

    Examples
    --------
    >>> import pandas as pd
    >>> import passk_lab as pk
    >>> runs = pd.concat(
    ...     [
    ...         pk.simulate_coin(p=p, tasks=60, k=3, seed=seed).assign(model=name)
    ...         for name, p, seed in [("a", 0.9, 1), ("b", 0.8, 2), ("c", 0.6, 3)]
    ...     ]
    ... )
    >>> table = pairwise(runs, ks=[3])
    >>> table[table.metric == "pass_pow_k"][["a", "b", "difference", "p_adjusted"]].round(4)
       a  b  difference  p_adjusted
    0  a  b      0.3667      0.0001
    1  a  c      0.5167      0.0000
    2  b  c      0.1500      0.1078
    """
    level = confidence(confidence_level)
    chosen = _check_adjust(adjust)
    draws = positive_int("n_resamples", n_resamples)
    if not isinstance(common_tasks, bool):
        raise TypeError(f"common_tasks must be True or False, got {common_tasks!r}")
    asked = _check_metrics(metrics)
    agents = _Agents(runs, by, errors, unmatched, "pairwise")
    values_ks = agents.ks(ks)
    _warn_unequal_runs(agents, agents.counted(None, values_ks[:1]))
    result = _family(
        agents,
        values_ks,
        asked,
        common_tasks=common_tasks,
        confidence_level=level,
        adjust=chosen,
        n_resamples=draws,
        seed=_seed(rng),
    )
    result.attrs = _pairs_attrs(agents, chosen, level, draws, common_tasks)
    return result


def _pairs_attrs(
    agents: _Agents, adjust: Adjustment | None, level: float, draws: int, common_tasks: bool
) -> dict[Hashable | None, Any]:
    """Return a pairwise table's ``attrs``."""
    return {
        "by": list(agents.by),
        "adjust": adjust,
        "confidence_level": level,
        "errors": agents.errors,
        "n_resamples": draws,
        "common_tasks": common_tasks,
        "dropped_tasks": agents.dropped,
    }


def _check_metrics(metrics: object) -> tuple[Metric, ...]:
    """Return the asked metrics in the tables' order, refusing any other name."""
    names = [metrics] if isinstance(metrics, str) else list(metrics)  # type: ignore[call-overload]
    unknown = [name for name in names if name not in METRICS]
    if unknown or not names:
        raise ValueError(f"metrics must name pass_pow_k, pass_at_k or both, got {metrics!r}")
    return tuple(metric for metric in METRICS if metric in names)


def _seed(rng: int | np.random.Generator | None) -> int:
    """Return one seed drawn from `rng`, from which every test's own generator is made."""
    return int(np.random.default_rng(rng).integers(2**63))


def _ranks(values: Floats, better: Bools) -> tuple[Ints, Ints, Ints, Ints]:
    """Return each agent's rank, rank interval and tie group at one k.

    `better[i, j]` says agent i is shown to be better than agent j (its
    estimate is higher). An agent's tie group is 1 when no agent is shown
    better than it, and otherwise one more than the largest group of those
    that are: no two agents of a group are told apart.

    Examples
    --------
    Only the first agent is shown better than the second; the third, a little
    below the second, is told apart from neither, and shares group 1 with the
    first:

    >>> import numpy as np
    >>> better = np.zeros((3, 3), dtype=bool)
    >>> better[0, 1] = True
    >>> [part.tolist() for part in _ranks(np.array([0.9, 0.8, 0.79]), better)]
    [[1, 2, 3], [1, 2, 1], [2, 3, 3], [1, 2, 1]]
    """
    count = len(values)
    # ties: equal to rounding, relative to the values' size (pass^k can be 1e-300 and differ)
    gap = values[None, :] - values[:, None]  # [j, l]: l's value less j's
    scale = np.maximum(np.abs(values[None, :]), np.abs(values[:, None]))
    rank: Ints = 1 + (gap > 1e-12 * scale).sum(axis=1)
    low = 1 + better.sum(axis=0)
    high = count - better.sum(axis=1)
    group = np.ones(count, dtype=np.int64)
    for agent in np.argsort(-values, kind="stable").tolist():  # those shown better come first
        above = np.flatnonzero(better[:, agent])
        if len(above):
            group[agent] = 1 + int(group[above].max())
    return rank.astype(np.int64), low.astype(np.int64), high.astype(np.int64), group


def leaderboard(
    runs: pd.DataFrame | np.ndarray,
    by: By = "model",
    ks: Iterable[int] | None = None,
    *,
    metric: Metric = "pass_pow_k",
    confidence_level: float = 0.95,
    errors: ErrorPolicy = "fail",
    unmatched: Unmatched = "raise",
    n_resamples: int = 10_000,
    rng: int | np.random.Generator | None = None,
) -> pd.DataFrame:
    """Rank agents by pass^k (or pass@k) at every k, with simultaneous rank intervals.

    Parameters
    ----------
    runs : DataFrame
        A runs table or a tally with the column(s) `by` naming the agents.
    by : str or list of str
        The column(s) that name the agents.
    ks : sequence of int, optional
        The k values; by default 1 to the most runs every agent has on a task.
    metric : {"pass_pow_k", "pass_at_k"}
        The statistic the agents are ranked by.
    confidence_level : float
        Of every interval, the rank intervals included (jointly), in (0, 1).
    errors : {"fail", "exclude"}
        An errored or timed-out run is a failed run, or is left out of `n`.
    unmatched : {"raise", "drop"}
        A task that some agent lacks is refused (the default), or dropped
        from every agent with a warning and listed in
        ``attrs["dropped_tasks"]``.
    n_resamples : int
        Draws of the Monte Carlo sign-flip test, used only where its exact
        distribution would be too large.
    rng : int, numpy.random.Generator or None
        Seed or generator of those draws; :func:`pairwise` with
        ``common_tasks=True`` and the same int seed gives the same tests.

    Returns
    -------
    DataFrame
        One row per (k, agent), by k and then rank: ``[*by, k, pass_pow_k,
        pass_pow_k_low, pass_pow_k_high, pass_at_k, pass_at_k_low,
        pass_at_k_high, n_tasks, rank, rank_low, rank_high, tie_group]``.
        At each k every agent is counted on the same ``n_tasks`` tasks: those
        where every agent has at least k runs. The intervals of pass^k and
        pass@k are the curve's (:func:`~passk_lab.reliability_curve`).
        ``rank`` is 1 for the best estimate, and tied estimates share the
        better rank. ``rank_low`` to ``rank_high`` is the rank interval,
        meant to hold the true ranks of all agents at a k at once with
        ``confidence_level`` chance (see Notes for what that rests on). ``tie_group``
        is 1 for the agents that no agent is shown to beat (those whose
        ``rank_low`` is 1), and otherwise one more than the largest group of
        the agents shown to beat it: no two agents of a group are told apart,
        and every agent of group g + 1 is shown worse than one of group g.
        Groups follow the ranks but need not be contiguous in them: an agent
        just below one that is shown worse than the leader may itself not
        be. ``attrs`` holds ``by``,
        ``metric``, ``confidence_level``, ``adjust`` (``"holm"``), ``errors``,
        ``n_resamples`` and ``dropped_tasks``.

    Raises
    ------
    ValueError
        If the runs hold fewer than two agents, the agents share no task, or
        a task is not run by every agent (with ``unmatched="raise"``).

    See Also
    --------
    pairwise : the tests the rank intervals come from, every pair's difference.

    Notes
    -----
    Agent i is shown to be better than agent j when i's estimate is higher
    and the paired sign-flip test of the pair (:func:`pairwise`),
    Holm-adjusted over all pairs at that k, rejects no difference at level
    ``alpha = 1 - confidence_level``. Then ``rank_low`` is one more than the
    number of agents shown to be better, and ``rank_high`` the number of
    agents less those shown to be worse. The true rank of an agent is one
    more than the number of agents whose true value (the mean over the
    population of tasks) is higher. The intervals miss only if some pair is
    declared ordered that is not: two equal agents told apart, or two
    unequal ones put the wrong way round. Holm's method keeps the chance of
    the first kind to alpha when the tests are exact (both agents of each
    pair with the same runs on every task, and alike agents exchangeable);
    the second kind, a wrong direction, is rarer still but outside that
    proof, so the simultaneous coverage is measured: at least 0.954 at 0.95 over the 160 cells of
    ``study/leaderboard_coverage.py`` (docs/leaderboards.md).

    Examples
    --------
    >>> import pandas as pd
    >>> import passk_lab as pk
    >>> runs = pd.concat(
    ...     [
    ...         pk.simulate_coin(p=p, tasks=60, k=3, seed=seed).assign(model=name)
    ...         for name, p, seed in [("a", 0.9, 1), ("b", 0.8, 2), ("c", 0.6, 3)]
    ...     ]
    ... )
    >>> board = leaderboard(runs, ks=[1, 3])
    >>> board[["model", "k", "pass_pow_k", "rank", "rank_low", "rank_high", "tie_group"]]
      model  k  pass_pow_k  rank  rank_low  rank_high  tie_group
    0     a  1    0.894444     1         1          1          1
    1     b  1    0.755556     2         2          2          2
    2     c  1    0.594444     3         3          3          3
    3     a  3    0.750000     1         1          1          1
    4     b  3    0.383333     2         2          3          2
    5     c  3    0.233333     3         2          3          2
    """
    board, _ = ranks_and_tests(
        runs,
        by,
        ks,
        metric=metric,
        confidence_level=confidence_level,
        errors=errors,
        unmatched=unmatched,
        n_resamples=n_resamples,
        rng=rng,
    )
    return board


def ranks_and_tests(
    runs: pd.DataFrame | np.ndarray,
    by: By,
    ks: Iterable[int] | None,
    *,
    metric: Metric = "pass_pow_k",
    confidence_level: float = 0.95,
    errors: ErrorPolicy = "fail",
    unmatched: Unmatched = "raise",
    n_resamples: int = 10_000,
    rng: int | np.random.Generator | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Return :func:`leaderboard`'s board and the tests its ranks come from, computed once.

    The tests are the table ``pairwise(runs, by, ks, metrics=[metric],
    common_tasks=True)`` would return with the same int seed, for the views
    that show a board with its tests (the command line, the report).
    """
    level = confidence(confidence_level)
    if metric not in METRICS:
        raise ValueError(f"metric must be 'pass_pow_k' or 'pass_at_k', got {metric!r}")
    draws = positive_int("n_resamples", n_resamples)
    agents = _Agents(runs, by, errors, unmatched, "leaderboard")
    values_ks = agents.ks(ks)
    counted = agents.counted(None, values_ks)  # tasks x ks: every agent has k runs
    _warn_unequal(agents, counted, values_ks)
    _warn_unequal_runs(agents, counted)
    ones = np.ones(len(agents.tasks), dtype=np.int64)
    columns: dict[str, list[Floats]] = {}
    for agent in range(len(agents.names)):
        n, c = agents.n[:, agent], agents.c[:, agent]
        for name, values in (
            ("pass_pow_k", products(n, c, values_ks)),
            ("pass_at_k", 1.0 - products(n, n - c, values_ks)),
        ):
            values = np.where(counted, values, np.nan)
            moments = TaskMoments.of(values, ones, n, values_ks)
            low, high = effective_n_interval(moments, level)
            columns.setdefault(name, []).append(moments.mean)
            columns.setdefault(f"{name}_low", []).append(low)
            columns.setdefault(f"{name}_high", []).append(high)
    pairs = agents.pairs()
    tests = _family(
        agents,
        values_ks,
        (metric,),
        common_tasks=True,
        confidence_level=level,
        adjust="holm",
        n_resamples=draws,
        seed=_seed(rng),
    )
    alpha = 1.0 - level
    estimates = np.array(columns[metric])  # agents x ks
    frames = []
    for column, k in enumerate(values_ks.tolist()):
        adjusted = tests.loc[tests["k"] == k, "p_adjusted"]  # the pairs in order
        better = np.zeros((len(agents.names),) * 2, dtype=bool)
        for (first, second), p in zip(pairs, adjusted.tolist(), strict=True):
            if p <= alpha:
                gap = estimates[first, column] - estimates[second, column]
                better[(first, second) if gap > 0 else (second, first)] = True
        rank, rank_low, rank_high, group = _ranks(estimates[:, column], better)
        frame = agents.labels.copy()
        frame["k"] = k
        for name, per_agent in columns.items():
            frame[name] = [values[column] for values in per_agent]
        frame["n_tasks"] = int(counted[:, column].sum())
        frame["rank"], frame["rank_low"], frame["rank_high"], frame["tie_group"] = (
            rank,
            rank_low,
            rank_high,
            group,
        )
        frames.append(frame.sort_values("rank", kind="stable"))
    board = pd.concat(frames, ignore_index=True)
    board.attrs.update(
        by=list(agents.by),
        metric=metric,
        confidence_level=level,
        adjust="holm",
        errors=agents.errors,
        n_resamples=draws,
        dropped_tasks=agents.dropped,
    )
    tests.attrs = _pairs_attrs(agents, "holm", level, draws, True)
    return board, tests


def _warn_unequal(agents: _Agents, counted: Bools, ks: Ints) -> None:
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
