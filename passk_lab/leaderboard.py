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
As Holm's method holds the family-wise error -- the chance of declaring any
pair ordered that is not -- at ``1 - confidence_level``, every agent's rank
interval holds its true rank at once with at least that chance: the
intervals are simultaneous. ``study/leaderboard_coverage.py`` measures it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

import numpy as np
import pandas as pd

from passk_lab._checks import confidence, k_values, positive_int
from passk_lab._data.cells import products
from passk_lab._data.rules import By, ErrorPolicy, by_columns, display
from passk_lab._data.tally import Tally, as_tally
from passk_lab._mean_intervals import TaskMoments, effective_n_interval
from passk_lab._permutation import Metric, permutation_test
from passk_lab._typing import Bools, Floats, Ints
from passk_lab._warnings import warn
from passk_lab.compare import paired_table

__all__ = ["leaderboard", "pairwise"]

Adjustment = Literal["holm", "bh"] | None

_METRICS: tuple[Metric, ...] = ("pass_pow_k", "pass_at_k")


class _Agents:
    """The agents' runs and passes on the tasks they all have: tasks x agents."""

    def __init__(
        self, runs: object, by: By, errors: ErrorPolicy, unmatched: str, caller: str
    ) -> None:
        names = by_columns(by)
        if not names:
            raise ValueError(
                f"{caller} needs by=, the column (or columns) that names the agents, e.g. "
                f"{caller}(runs, by='model')"
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
            raise ValueError(
                f"{caller} compares two or more agents, and the runs hold one value of "
                f"by={list(names)}: {self.names[0]!r}; name the column that tells the agents "
                f"apart, or use reliability_curve for one agent"
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
            f"{name!r} lacks {int(np.sum(n[:, j] < 0))} ({_examples(tasks[n[:, j] < 0])})"
            for j, name in enumerate(self.names)
            if np.any(n[:, j] < 0)
        ]
        what = f"{int(np.sum(~complete))} task(s) are not run by every agent: " + "; ".join(lacking)
        if not complete.any():
            raise ValueError(f"the agents share no task: {what}; {caller} needs the same tasks")
        if unmatched == "raise":
            raise ValueError(
                f"{what}; agents are ranked on the same tasks: run the missing ones, or pass "
                f"unmatched='drop' to rank on the {int(complete.sum())} tasks every agent has "
                f"(the dropped ones are listed in the result's attrs['dropped_tasks'])"
            )
        warn(f"ranked the {int(complete.sum())} tasks every agent has and dropped {what}")

    def tally(self, agent: int) -> Tally:
        """One agent's tally on the shared tasks."""
        return Tally(
            labels=pd.DataFrame({"task": self.tasks}),
            n=self.n[:, agent],
            c=self.c[:, agent],
            n_errors=None,
            by=(),
            errors=self.errors,
        )

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


def _examples(tasks: pd.Index) -> str:
    shown = ", ".join(repr(display(task)) for task in tasks[:5])
    return shown + (", ..." if len(tasks) > 5 else "")


def _adjusted(p_values: Floats, adjust: Adjustment) -> Floats:
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


def _check_adjust(adjust: object) -> Adjustment:
    if adjust is None or adjust == "holm" or adjust == "bh":
        return adjust
    raise ValueError(f"adjust must be 'holm', 'bh' or None, got {adjust!r}")


def _tests(
    agents: _Agents,
    pair: tuple[int, int],
    counted: Bools,
    ks: Ints,
    metric: Metric,
    n_resamples: int,
    rng: np.random.Generator,
) -> list[tuple[float, str]]:
    """Return the test of one pair and metric at every k, on the tasks `counted` marks."""
    first, second = pair
    results = []
    for column, k in enumerate(ks.tolist()):
        rows = counted[:, column]
        test = permutation_test(
            agents.n[rows, first],
            agents.c[rows, first],
            agents.n[rows, second],
            agents.c[rows, second],
            k,
            metric,
            n_resamples=n_resamples,
            rng=rng,
        )
        results.append((test.p_value, test.test))
    return results


def pairwise(
    runs: pd.DataFrame | np.ndarray,
    by: By = "model",
    ks: Iterable[int] | None = None,
    *,
    adjust: Adjustment = "holm",
    errors: ErrorPolicy = "fail",
    confidence_level: float = 0.95,
    unmatched: Literal["raise", "drop"] = "raise",
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
    adjust : {"holm", "bh", None}
        How the p-values of one metric and k are adjusted for the number of
        pairs: Holm's step-down method (holds the family-wise error), Benjamini
        and Hochberg's (holds the false discovery rate), or not at all.
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
        Seed or generator of those draws.

    Returns
    -------
    DataFrame
        One row per metric (``pass_pow_k``, then ``pass_at_k``), k and pair,
        the pairs in the order the agents first appear: ``[a, b, metric, k,
        value_a, value_b, difference, difference_low, difference_high,
        correlation, n_tasks, p_value, p_adjusted, test]``. ``difference`` is
        ``value_a - value_b`` over the ``n_tasks`` tasks where both have at
        least k runs, with :func:`~passk_lab.compare`'s paired interval (not
        adjusted); ``correlation`` is that of their per-task estimates.
        ``p_value`` is the two-sided p-value of the paired sign-flip test of
        no difference (``test``: ``mcnemar_exact`` at k = 1 with one run per
        task, ``sign_flip_exact``, or ``sign_flip_monte_carlo``),
        ``p_adjusted`` the adjusted one. With several `by` columns, ``a`` and
        ``b`` hold tuples.

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
    approximate. The interval and the test are separate
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
    agents = _Agents(runs, by, errors, unmatched, "pairwise")
    values_ks = agents.ks(ks)
    generator = np.random.default_rng(rng)
    tables: list[pd.DataFrame] = []
    for pair in agents.pairs():
        first, second = pair
        table = paired_table(
            agents.tally(first), agents.tally(second), values_ks, confidence_level=level
        )
        counted = (np.minimum(agents.n[:, first], agents.n[:, second])[:, None]) >= values_ks
        tests = [
            result
            for metric in _METRICS
            for result in _tests(agents, pair, counted, values_ks, metric, draws, generator)
        ]
        table.insert(0, "b", [agents.names[second]] * len(table))
        table.insert(0, "a", [agents.names[first]] * len(table))
        table["p_value"] = [p for p, _ in tests]
        table["test"] = [name for _, name in tests]
        table["pair"] = len(tables)
        tables.append(table)
    result = pd.concat(tables, ignore_index=True)
    order = {metric: place for place, metric in enumerate(_METRICS)}
    result = result.sort_values(
        ["metric", "k", "pair"],
        key=lambda column: column.map(order) if column.name == "metric" else column,
    )
    result["p_adjusted"] = result["p_value"]
    if chosen is not None:
        for _, rows in result.groupby(["metric", "k"], sort=False).groups.items():
            result.loc[rows, "p_adjusted"] = _adjusted(
                result.loc[rows, "p_value"].to_numpy(), chosen
            )
    columns = [*result.columns.drop(["pair", "test", "p_adjusted"]), "p_adjusted", "test"]
    result = result[columns].reset_index(drop=True)
    result.attrs = {  # the pairs' own, not the first pair's comparison's
        "by": list(agents.by),
        "adjust": chosen,
        "confidence_level": level,
        "errors": agents.errors,
        "n_resamples": draws,
        "dropped_tasks": agents.dropped,
    }
    return result


def _ranks(values: Floats, better: Bools) -> tuple[Ints, Ints, Ints, Ints]:
    """Each agent's rank, rank interval and tie group at one k.

    `better[i, j]` says agent i is shown to be better than agent j.
    """
    count = len(values)
    rounded = np.round(values, 12)
    rank: Ints = 1 + (rounded[None, :] > rounded[:, None]).sum(axis=1)
    low = 1 + better.sum(axis=0)
    high = count - better.sum(axis=1)
    group = np.zeros(count, dtype=np.int64)
    order = np.lexsort((np.arange(count), rank))
    leader, label = int(order[0]), 1
    for agent in order.tolist():
        if better[leader, agent]:
            leader, label = agent, label + 1
        group[agent] = label
    return rank.astype(np.int64), low.astype(np.int64), high.astype(np.int64), group


def leaderboard(
    runs: pd.DataFrame | np.ndarray,
    by: By = "model",
    ks: Iterable[int] | None = None,
    *,
    metric: Metric = "pass_pow_k",
    confidence_level: float = 0.95,
    errors: ErrorPolicy = "fail",
    unmatched: Literal["raise", "drop"] = "raise",
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
        Seed or generator of those draws.

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
        better rank. ``rank_low`` to ``rank_high`` is the rank interval:
        the intervals of all agents at a k hold their true ranks at once
        with at least ``confidence_level`` chance. ``tie_group`` numbers
        groups of agents in rank order: a group is the agents that cannot be
        told from its first (best) agent, and the next group starts at the
        first agent shown to be worse than it. ``attrs`` holds ``by``,
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
    agents less those shown to be worse. An interval misses a true rank only
    if some pair is declared ordered that is not, and Holm's method keeps
    the chance of any such declaration to alpha: the rank intervals are
    simultaneous. The true rank of an agent is one more than the number of
    agents whose true value (the mean over the population of tasks) is
    higher.

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
    level = confidence(confidence_level)
    if metric not in _METRICS:
        raise ValueError(f"metric must be 'pass_pow_k' or 'pass_at_k', got {metric!r}")
    draws = positive_int("n_resamples", n_resamples)
    agents = _Agents(runs, by, errors, unmatched, "leaderboard")
    values_ks = agents.ks(ks)
    counted = agents.n.min(axis=1)[:, None] >= values_ks  # tasks x ks: every agent has k runs
    _warn_unequal(agents, counted, values_ks)
    generator = np.random.default_rng(rng)
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
    tests = np.array(
        [
            [p for p, _ in _tests(agents, pair, counted, values_ks, metric, draws, generator)]
            for pair in pairs
        ]
    )
    alpha = 1.0 - level
    estimates = np.array(columns[metric])  # agents x ks
    frames = []
    for column, k in enumerate(values_ks.tolist()):
        adjusted = _adjusted(tests[:, column], "holm")
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
    return board


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
        f"k = {int(ks[first])} counts {int(tasks[first])} of the {int(tasks[0])} tasks counted at "
        f"k = {int(ks[0])}: {', '.join(short)} ha{'s' if len(short) == 1 else 've'} fewer than "
        f"{int(ks[first])} runs on the others, and every agent is ranked on the tasks where all "
        f"have k runs; run those tasks again, or choose ks up to {int(ks[max(first - 1, 0)])}",
        RuntimeWarning,
    )
