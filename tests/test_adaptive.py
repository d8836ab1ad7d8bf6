"""evaluate_until: the adaptive evaluation with real runs, its stops, its ledger and its resumption.

Tasks play a fixed table of outcomes: run j of task i passes when OUTCOMES[i, j], read
through a per-task counter (started from a ledger's runs when resuming), so a run's
outcome depends on its (task, run) alone and every decision can be checked against the
procedure driven with the table directly.
"""

from __future__ import annotations

import inspect
import itertools
import json
import math
import os
import signal
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import passk_lab as pk
from passk_lab._sequential import Design, Outcome, procedure
from passk_lab.harness._adaptive_settings import AdaptiveSettings

N_TASKS, MOST = 300, 12
# task chances spread from about 0.3 to 1: a pool whose tasks differ
CHANCES = np.random.default_rng(11).beta(4.0, 1.2, size=N_TASKS)
OUTCOMES = np.random.default_rng(12).random((N_TASKS, MOST)) < CHANCES[:, None]
SETTINGS = {"k": 3, "half_width": 0.1, "max_runs_per_task": MOST, "batch": 10, "rng": 5}


@dataclass
class Paid:
    ok: bool
    cost: dict[str, float]


def table_tasks(
    start: dict[str, int] | None = None, hold_after: int | None = None, paid: bool = False
):
    """Tasks that play OUTCOMES; `start` gives the run each task begins at (a resume).

    Past `hold_after` runs in all, a run waits a minute (for a test to kill the process).
    """
    calls = dict(start or {})
    made = itertools.count(1)

    def make(i: int):
        def run():
            j = calls.get(f"t{i}", 0)
            calls[f"t{i}"] = j + 1
            if hold_after is not None and next(made) > hold_after:
                time.sleep(60)
            outcome = bool(OUTCOMES[i, j])
            return Paid(outcome, {"usd": 0.01 * (1 + i % 3)}) if paid else outcome

        return run

    passes = (lambda answer: answer.ok) if paid else pk.Task.__dataclass_fields__["passes"].default
    return [pk.Task(run=make(i), passes=passes, id=f"t{i}") for i in range(N_TASKS)]


def by_table(design: Design, agents_outcomes: list[np.ndarray]):
    """Drive the procedure with the table directly: the decisions with no harness at all."""
    steps = procedure(design)
    jobs = next(steps)
    while True:
        outcomes = {
            job: Outcome(bool(agents_outcomes[job.agent][job.task, job.run]), None) for job in jobs
        }
        try:
            jobs = steps.send(outcomes)
        except StopIteration as stopped:
            return stopped.value


def design_of(**changes) -> Design:
    settings = {
        "k": 3,
        "statistic": "pass_pow_k",
        "half_width": 0.1,
        "confidence_level": 0.95,
        "first": 3,
        "most": MOST,
        "batch": 10,
        "pool": N_TASKS,
        "seed": 5,
    }
    return Design(**{**settings, **changes})


def test_the_harness_makes_the_procedures_decisions() -> None:
    result = pk.evaluate_until(table_tasks(), **SETTINGS)
    stop = by_table(design_of(), [OUTCOMES])
    assert result.stopped_because == stop.reason == "half_width"
    assert result.design["task"].tolist() == [f"t{i}" for i in stop.ends.tasks]
    assert result.design["runs"].tolist() == stop.ends.n[0]
    assert result.design["passes"].tolist() == stop.ends.c[0]
    assert len(result.runs) == stop.runs == sum(stop.ends.n[0])
    assert (result.design["runs"] > 3).any(), "no task went on: the test checks too little"
    assert result.tasks < N_TASKS
    # the estimates the stopping rule used are the ones the result reports
    values = stop.ends.values(0, np.array([3]), "pass_pow_k")[:, 0]
    np.testing.assert_array_equal(stop.ends.targets[0], values)
    # the runs are the table's: run j of task i is OUTCOMES[i, j]
    index = result.runs["task"].str[1:].astype(int).to_numpy()
    assert result.runs["passed"].tolist() == OUTCOMES[index, result.runs["run"]].tolist()


def _share(first: int, total: int, low: int, high: int, runs: int, passes: int, k: int) -> float:
    """Pass^k of one task by enumerating the paths its plan allows to where it ended."""
    paths = []
    for start in itertools.product((0, 1), repeat=first):
        goes_on = total > first and low <= sum(start) <= high
        if goes_on and runs == total:
            paths.extend(start + rest for rest in itertools.product((0, 1), repeat=total - first))
        elif not goes_on and runs == first:
            paths.append(start)
    ending = [path for path in paths if sum(path) == passes]
    return sum(all(path[:k]) for path in ending) / len(ending)


def test_the_curve_holds_the_designs_unbiased_estimates_and_its_interval() -> None:
    result = pk.evaluate_until(table_tasks(), **{**SETTINGS, "max_runs_per_task": 8})
    design, curve = result.design, result.curve
    assert curve["k"].tolist() == [1, 2, 3]
    for k in (1, 3):
        shares = [
            _share(row.first, row.total, row.low, row.high, row.runs, row.passes, k)
            for row in design.itertuples()
        ]
        assert curve.loc[curve["k"] == k, "pass_pow_k"].item() == pytest.approx(np.mean(shares))
    assert set(curve["interval_method"]) == {"sequential"}
    row = curve.iloc[-1]
    assert (row.pass_pow_k_high - row.pass_pow_k_low) / 2 <= 0.1
    assert result.pass_pow_k == row.pass_pow_k
    assert result.pass_at_1 == curve.iloc[0].pass_pow_k


def test_with_k_runs_a_task_the_curve_is_the_reliability_curve() -> None:
    result = pk.evaluate_until(table_tasks(), **{**SETTINGS, "max_runs_per_task": 3})
    assert set(result.design["runs"]) == {3}
    plain = pk.reliability_curve(result.runs, ks=[1, 2, 3])
    columns = ["pass_pow_k", "pass_at_k", "n_tasks"]
    pd.testing.assert_frame_equal(result.curve[columns], plain[columns])
    # every value is 0 or 1 at k = 3: both are Clopper-Pearson on the tasks
    last = [result.curve.iloc[-1][f"pass_pow_k_{end}"] for end in ("low", "high")]
    assert last == pytest.approx([plain.iloc[-1][f"pass_pow_k_{end}"] for end in ("low", "high")])


@pytest.mark.parametrize(
    ("limits", "reason"),
    [
        ({"half_width": 0.02, "max_runs": 200}, "max_runs"),
        ({"half_width": 0.02, "max_cost": {"usd": 3.0}}, "max_cost"),
        ({"half_width": 0.01}, "exhausted"),
    ],
)
def test_every_limit_stops_the_evaluation_and_says_so(limits, reason) -> None:
    result = pk.evaluate_until(table_tasks(paid=True), **{**SETTINGS, **limits})
    assert result.stopped_because == reason
    if reason == "max_runs":
        assert len(result.runs) <= 200
    if reason == "exhausted":
        assert result.tasks == N_TASKS
    spent = result.runs["cost_usd"].sum()
    assert result.cost["usd"] == pytest.approx(spent)
    if reason == "max_cost":
        # it stops when one more task at the mean cost per task so far would pass the limit,
        # and the batches before the last one fitted in it
        assert spent + spent / result.tasks > 3.0
        last = result.design["order"] >= result.tasks - 10
        last_runs = result.runs["task"].isin(result.design.loc[last, "task"])
        assert spent - result.runs.loc[last_runs, "cost_usd"].sum() < 3.0


def test_two_agents_stop_when_the_sign_is_decided() -> None:
    worse = OUTCOMES & (np.random.default_rng(13).random(OUTCOMES.shape) < 0.5)

    def tasks_of(table):
        calls: dict[int, int] = {}

        def make(i):
            def run():
                j = calls.get(i, 0)
                calls[i] = j + 1
                return bool(table[i, j])

            return run

        return [pk.Task(run=make(i), id=f"t{i}") for i in range(N_TASKS)]

    result = pk.evaluate_until(
        tasks_of(OUTCOMES), against=tasks_of(worse), **{**SETTINGS, "half_width": 0.05}
    )
    stop = by_table(design_of(agents=2, half_width=0.05), [OUTCOMES, worse])
    assert result.stopped_because == stop.reason == "sign"
    comparison = result.comparison.iloc[0]
    assert comparison.difference_low > 0
    a = result.curve.loc[(result.curve["agent"] == "a") & (result.curve["k"] == 3), "pass_pow_k"]
    b = result.curve.loc[(result.curve["agent"] == "b") & (result.curve["k"] == 3), "pass_pow_k"]
    assert comparison.difference == pytest.approx(a.item() - b.item())
    assert set(result.runs["agent"]) == {"a", "b"}
    assert set(result.curve["interval_method"]) == {"betting_sequence"}
    assert result.tasks == len(stop.ends.tasks)


def test_a_tighter_limit_on_resume_goes_on_from_where_it_stopped(tmp_path) -> None:
    path = tmp_path / "ledger.jsonl"
    first = pk.evaluate_until(table_tasks(), ledger=path, **{**SETTINGS, "half_width": 0.2})
    assert first.stopped_because == "half_width"
    start = first.runs.groupby("task")["run"].count().to_dict()
    resumed = pk.evaluate_until(table_tasks(start), ledger=path, resume=True, **SETTINGS)
    fresh = pk.evaluate_until(table_tasks(), **SETTINGS)
    pd.testing.assert_frame_equal(resumed.design, fresh.design)
    assert resumed.stopped_because == fresh.stopped_because
    ledger = pk.read_ledger(path)
    assert len(ledger.runs) == len(fresh.runs)
    assert len(ledger.header["resumptions"]) == 1
    assert ledger.header["adaptive"]["half_width"] == 0.1


def test_a_resume_that_changes_the_design_or_loosens_a_limit_is_refused(tmp_path) -> None:
    path = tmp_path / "ledger.jsonl"
    pk.evaluate_until(table_tasks(), ledger=path, **SETTINGS)
    with pytest.raises(ValueError, match="batch: the ledger has 10, this evaluation has 20"):
        pk.evaluate_until(table_tasks(), ledger=path, resume=True, **{**SETTINGS, "batch": 20})
    with pytest.raises(ValueError, match=r"stop the evaluation sooner .*half_width 0.2 > 0.1"):
        pk.evaluate_until(
            table_tasks(), ledger=path, resume=True, **{**SETTINGS, "half_width": 0.2}
        )
    added = {**SETTINGS, "max_cost": {"usd": 1.0}}
    with pytest.raises(ValueError, match=r"max_cost 'usd' 1\.0, where the ledger had no limit"):
        pk.evaluate_until(table_tasks(), ledger=path, resume=True, **added)
    with pytest.raises(ValueError, match="max_runs 50, where the ledger had no limit"):
        pk.evaluate_until(table_tasks(), ledger=path, resume=True, **{**SETTINGS, "max_runs": 50})
    with pytest.raises(ValueError, match="resume it with evaluate_until"):
        pk.evaluate(table_tasks(), MOST, ledger=path, resume=True)
    plain = tmp_path / "plain.jsonl"
    pk.evaluate(table_tasks()[:5], MOST, ledger=plain)
    with pytest.raises(ValueError, match="not an adaptive one"):
        pk.evaluate_until(table_tasks()[:5], ledger=plain, resume=True, **SETTINGS)


def test_a_resume_without_a_seed_takes_the_ledgers(tmp_path) -> None:
    path = tmp_path / "ledger.jsonl"
    settings = {**SETTINGS, "rng": None}
    first = pk.evaluate_until(table_tasks(), ledger=path, **{**settings, "half_width": 0.2})
    seed = pk.read_ledger(path).header["adaptive"]["seed"]
    start = first.runs.groupby("task")["run"].count().to_dict()
    resumed = pk.evaluate_until(table_tasks(start), ledger=path, resume=True, **settings)
    fresh = pk.evaluate_until(table_tasks(), **{**SETTINGS, "rng": seed})
    pd.testing.assert_frame_equal(resumed.design, fresh.design)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"min_runs": 2}, "min_runs must be at least k = 3"),
        ({"max_runs_per_task": 2}, "max_runs_per_task must be at least min_runs = 3"),
        ({"half_width": 0.7}, r"half_width must be in \(0, 0.5\]"),
        ({"half_width": float("nan")}, "half_width must be in"),
        ({"statistic": "pass_at_1"}, "statistic must be one of pass_pow_k, pass_at_k"),
        ({"max_cost": 5.0}, "max_cost must name the cost it limits"),
        ({"max_runs": 0}, "max_runs"),
        ({"batch": 0}, "batch"),
        ({"ledger": ("a", "b")}, "one agent keeps one ledger"),
        ({"max_runs": 2}, "max_runs = 2 is fewer than one task's 3 first runs"),
        ({"rng": -1}, "rng must be a seed >= 0"),
        ({"guard": lambda fn, ms: fn()}, "pass run_timeout_ms as well"),
    ],
)
def test_bad_settings_are_refused_before_any_run(change, message) -> None:
    ran = []
    tasks = [pk.Task(run=lambda: ran.append(1) or True, id=i) for i in range(5)]
    with pytest.raises((TypeError, ValueError), match=message):
        pk.evaluate_until(tasks, **{**SETTINGS, **change})
    assert not ran


def test_the_adaptive_settings_take_the_options_of_evaluate_until_with_its_defaults() -> None:
    """AdaptiveSettings.of is where the options are checked: its defaults must be the API's."""
    of = inspect.signature(AdaptiveSettings.of).parameters
    options = inspect.signature(pk.evaluate_until).parameters
    assert {name: of[name].default for name in of if name != "cls"} == {
        name: options[name].default for name in of if name != "cls"
    }
    assert [name for name in options if name not in of] == [
        "concurrency",
        "model",
        "metadata",
        "infrastructure",
        "retries",
        "backoff_s",
        "progress",
    ]


def test_the_ledgers_adaptive_field_and_the_design_come_from_the_settings(tmp_path) -> None:
    path = tmp_path / "ledger.jsonl"
    pk.evaluate_until(table_tasks(paid=True), ledger=path, **{**SETTINGS, "max_cost": {"usd": 1e9}})
    settings = AdaptiveSettings.of(
        table_tasks(), **{**SETTINGS, "max_cost": {"usd": 1e9}, "ledger": path}
    )
    assert pk.read_ledger(path).header["adaptive"] == settings.record()
    assert settings.design() == Design(
        k=3, statistic="pass_pow_k", half_width=0.1, confidence_level=0.95, first=3, most=MOST,
        batch=10, pool=N_TASKS, seed=5, max_cost={"usd": 1e9},
    )  # fmt: skip


def test_unpaired_agents_are_refused() -> None:
    tasks = [pk.Task(run=lambda: True, id=i) for i in range(5)]
    with pytest.raises(ValueError, match="against has 4 tasks and tasks has 5"):
        pk.evaluate_until(tasks, against=tasks[:4], **SETTINGS)
    other = [pk.Task(run=lambda: True, id=i + 1) for i in range(5)]
    with pytest.raises(ValueError, match=r"tasks\[0\] has the id 0 and against\[0\] 1"):
        pk.evaluate_until(tasks, against=other, **SETTINGS)
    with pytest.raises(TypeError, match="two agents keep two ledgers"):
        pk.evaluate_until(tasks, against=tasks, ledger="one.jsonl", **SETTINGS)


# --- a real process, killed, then resumed ---------------------------------------------------

CHILD = textwrap.dedent(
    """
    import json, sys
    sys.path.insert(0, {tests!r})
    import passk_lab as pk
    from test_adaptive import SETTINGS, table_tasks

    path = sys.argv[1]
    try:
        start = pk.read_ledger(path).runs.groupby("task")["run"].count().to_dict()
    except FileNotFoundError:
        start = {{}}
    hold = int(sys.argv[2]) if len(sys.argv) > 2 else None
    result = pk.evaluate_until(table_tasks(start, hold_after=hold), ledger=path, resume=True,
                               **SETTINGS)
    print(json.dumps({{"stopped_because": result.stopped_because,
                      "design": result.design.to_dict(orient="list")}}))
    """
)


def test_a_killed_adaptive_evaluation_resumes_to_the_same_decision_every_run_once(tmp_path):
    script = tmp_path / "child.py"
    script.write_text(CHILD.format(tests=os.path.dirname(__file__)))
    ledger = tmp_path / "ledger.jsonl"
    reference = pk.evaluate_until(table_tasks(), **SETTINGS)
    kill_at = len(reference.runs) // 2  # mid-evaluation
    process = subprocess.Popen(
        [sys.executable, str(script), str(ledger), str(kill_at)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not ledger.exists() or ledger.read_bytes().count(b"\n") < 1 + kill_at:
        assert process.poll() is None, process.communicate()[1]
        assert time.monotonic() < deadline, "the evaluation made no progress"
        time.sleep(0.005)
    process.send_signal(signal.SIGKILL)  # the next run waits: the kill lands part way
    process.communicate()
    assert ledger.read_bytes().count(b"\n") == 1 + kill_at

    resumed = subprocess.run(
        [sys.executable, str(script), str(ledger)], capture_output=True, text=True, timeout=120
    )
    assert resumed.returncode == 0, resumed.stderr
    out = json.loads(resumed.stdout)
    assert out["stopped_because"] == reference.stopped_because
    assert out["design"] == reference.design.to_dict(orient="list")
    runs = pk.read_ledger(ledger).runs  # a run recorded twice would be refused here
    assert len(runs) == len(reference.runs)
    assert not runs.duplicated(["task", "run"]).any()
    assert math.isclose(pk.pass_at_1(runs), pk.pass_at_1(reference.runs))


def test_the_anytime_interval_is_the_betting_sequence_and_needs_more_runs() -> None:
    from passk_lab._confidence_sequence import betting_interval

    settings = {**SETTINGS, "max_runs_per_task": 6}
    anytime = pk.evaluate_until(table_tasks(), interval="anytime", **settings)
    sequential = pk.evaluate_until(table_tasks(), **settings)
    assert anytime.stopped_because == sequential.stopped_because == "half_width"
    assert len(anytime.runs) > len(sequential.runs)
    assert set(anytime.curve["interval_method"]) == {"betting_sequence"}
    shares = [
        _share(row.first, row.total, row.low, row.high, row.runs, row.passes, 3)
        for row in anytime.design.itertuples()
    ]
    row = anytime.curve.iloc[-1]
    assert (row.pass_pow_k_low, row.pass_pow_k_high) == pytest.approx(
        betting_interval(shares, 0.95)
    )


def test_an_empty_pool_or_ids_of_two_kinds_are_refused_before_any_run() -> None:
    with pytest.raises(ValueError, match="evaluate_until needs a pool of at least one task"):
        pk.evaluate_until([], **SETTINGS)
    ran = []
    mixed = [
        pk.Task(run=lambda: ran.append(1) or True, id=i if i % 2 else str(i)) for i in range(6)
    ]
    with pytest.raises(ValueError, match=r"mixes task ids of two kinds, such as '0' \(str\) and 1"):
        pk.evaluate_until(mixed, **SETTINGS)
    assert not ran
    tasks = table_tasks()
    with pytest.raises(TypeError, match=r"against\[2\] is a str, not a Task"):
        pk.evaluate_until(tasks, against=[*tasks[:2], "x", *tasks[3:]], **SETTINGS)


def test_a_cost_limit_on_runs_that_record_no_such_cost_warns_and_never_stops() -> None:
    with pytest.warns(RuntimeWarning, match=r"max_cost limits 'USD', but no run .* 'usd'"):
        result = pk.evaluate_until(table_tasks(paid=True), **{**SETTINGS, "max_cost": {"USD": 1.0}})
    assert result.stopped_because == "half_width"
    with pytest.warns(RuntimeWarning, match="the runs recorded: none"):
        free = pk.evaluate_until(table_tasks(), **{**SETTINGS, "max_cost": {"usd": 1.0}})
    assert free.stopped_because == "half_width"


def test_the_cost_per_passing_task_uses_the_designs_pass_pow_k() -> None:
    result = pk.evaluate_until(table_tasks(paid=True), **{**SETTINGS, "half_width": 0.05})
    assert (result.design["runs"] > 3).any()
    curve = result.curve
    np.testing.assert_allclose(
        curve["cost_usd_per_pass_pow_k"], curve["cost_usd"] / curve["pass_pow_k"]
    )
    np.testing.assert_allclose(curve["pass_pow_k_per_usd"], curve["pass_pow_k"] / curve["cost_usd"])


def test_runs_that_finish_out_of_order_make_the_same_decisions() -> None:
    import asyncio

    def async_tasks():
        calls: dict[int, int] = {}

        def make(i):
            async def run() -> bool:
                j = calls.get(i, 0)
                calls[i] = j + 1
                await asyncio.sleep(0.001 * ((i * 7 + j * 3) % 5))  # later runs may end first
                return bool(OUTCOMES[i, j])

            return run

        return [pk.Task(run=make(i), id=f"t{i}") for i in range(N_TASKS)]

    settings = {**SETTINGS, "half_width": 0.15}
    together = pk.evaluate_until(async_tasks(), concurrency=8, **settings)
    alone = pk.evaluate_until(table_tasks(), **settings)
    pd.testing.assert_frame_equal(together.design, alone.design)
    assert together.stopped_because == alone.stopped_because


def test_two_agents_resume_from_their_two_ledgers(tmp_path) -> None:
    paths = (tmp_path / "a.jsonl", tmp_path / "b.jsonl")
    worse = OUTCOMES & (np.random.default_rng(13).random(OUTCOMES.shape) < 0.8)

    def tasks_of(table, start=None):
        calls = dict(start or {})

        def make(i):
            def run():
                j = calls.get(f"t{i}", 0)
                calls[f"t{i}"] = j + 1
                return bool(table[i, j])

            return run

        return [pk.Task(run=make(i), id=f"t{i}") for i in range(N_TASKS)]

    settings = {**SETTINGS, "half_width": 0.3}
    first = pk.evaluate_until(tasks_of(OUTCOMES), against=tasks_of(worse), ledger=paths, **settings)
    starts = [
        first.runs[first.runs["agent"] == agent].groupby("task")["run"].count().to_dict()
        for agent in ("a", "b")
    ]
    tighter = {**settings, "half_width": 0.1}
    resumed = pk.evaluate_until(
        tasks_of(OUTCOMES, starts[0]),
        against=tasks_of(worse, starts[1]),
        ledger=paths,
        resume=True,
        **tighter,
    )
    fresh = pk.evaluate_until(tasks_of(OUTCOMES), against=tasks_of(worse), **tighter)
    pd.testing.assert_frame_equal(resumed.design, fresh.design)
    pd.testing.assert_frame_equal(resumed.comparison, fresh.comparison)
    for agent, path in zip(("a", "b"), paths, strict=True):
        assert len(pk.read_ledger(path).runs) == (fresh.runs["agent"] == agent).sum()


def test_a_refused_second_ledger_leaves_the_first_untouched(tmp_path) -> None:
    paths = (tmp_path / "a.jsonl", tmp_path / "b.jsonl")
    pk.evaluate_until(table_tasks(), against=table_tasks(), ledger=paths, **SETTINGS)
    before = paths[0].read_bytes()
    paths[1].unlink()
    pk.evaluate(table_tasks()[:5], 3, ledger=paths[1])  # b's ledger is now another evaluation's
    with pytest.raises(ValueError, match=r"b\.jsonl' records an evaluation of every run"):
        pk.evaluate_until(
            table_tasks(), against=table_tasks(), ledger=paths, resume=True, **SETTINGS
        )
    assert paths[0].read_bytes() == before


# --- the path: what the stopping rule saw after each batch ----------------------------------


def clopper_pearson(passed: int, tasks: int, level: float = 0.95) -> tuple[float, float]:
    """SciPy's Beta quantiles, apart from the library's interval code."""
    tail = (1 - level) / 2
    low = stats.beta.ppf(tail, passed, tasks - passed + 1) if passed > 0 else 0.0
    high = stats.beta.ppf(1 - tail, passed + 1, tasks - passed) if passed < tasks else 1.0
    return float(low), float(high)


def test_the_path_is_the_interval_the_rule_read_after_each_batch() -> None:
    # k runs a task: a task's pass^3 is 0 or 1, and the interval Clopper-Pearson on the tasks
    result = pk.evaluate_until(table_tasks(), **{**SETTINGS, "max_runs_per_task": 3})
    path, design = result.path, result.design
    assert path.columns.tolist() == [
        "batch",
        "tasks",
        "runs",
        "pass_pow_k",
        "pass_pow_k_low",
        "pass_pow_k_high",
        "half_width",
    ]
    batches = len(path)
    assert path["batch"].tolist() == list(range(1, batches + 1))
    assert path["tasks"].tolist() == [10 * batch for batch in range(1, batches + 1)]
    assert path["runs"].tolist() == [30 * batch for batch in range(1, batches + 1)]
    assert result.tasks == 10 * batches
    all_three = (design["passes"] == 3).to_numpy()
    for row in path.itertuples():
        passed = int(all_three[: row.tasks].sum())
        assert row.pass_pow_k == pytest.approx(passed / row.tasks, abs=1e-12)
        limits = clopper_pearson(passed, row.tasks)
        assert (row.pass_pow_k_low, row.pass_pow_k_high) == pytest.approx(limits, abs=1e-9)
        assert row.half_width == pytest.approx((limits[1] - limits[0]) / 2, abs=1e-9)
    # it stopped at the first batch narrow enough, and reports that batch's interval
    assert (path["half_width"].iloc[:-1] > 0.1).all()
    assert path["half_width"].iloc[-1] <= 0.1
    last, reported = path.iloc[-1], result.curve.iloc[-1]
    for column in ("pass_pow_k", "pass_pow_k_low", "pass_pow_k_high"):
        assert last[column] == pytest.approx(reported[column], abs=1e-12)


def test_the_path_counts_every_cost_and_the_batches_a_cost_limit_shrank() -> None:
    limit = 3.0
    result = pk.evaluate_until(
        table_tasks(paid=True), **{**SETTINGS, "half_width": 0.02, "max_cost": {"usd": limit}}
    )
    assert result.stopped_because == "max_cost"
    path, design, runs = result.path, result.design, result.runs
    order = design["task"].tolist()
    per_task = runs.groupby("task")["cost_usd"].sum()
    spent = np.cumsum(per_task.loc[order].to_numpy())
    np.testing.assert_allclose(path["cost_usd"], spent[path["tasks"].to_numpy() - 1], rtol=1e-12)
    runs_per_task = runs.groupby("task").size().loc[order].to_numpy()
    np.testing.assert_array_equal(path["runs"], np.cumsum(runs_per_task)[path["tasks"] - 1])
    assert path["cost_usd"].iloc[-1] == pytest.approx(result.cost["usd"])
    sizes = np.diff(path["tasks"], prepend=0)
    assert sizes[0] == 10
    assert sizes[-1] < 10  # the last batch: as many tasks as the limit left room for
    assert path["tasks"].iloc[-1] == result.tasks


def test_two_agents_path_is_the_difference_and_counts_both_agents_runs() -> None:
    result = pk.evaluate_until(
        table_tasks(), against=table_tasks(), **{**SETTINGS, "half_width": 0.2}
    )
    path = result.path
    assert {"difference", "difference_low", "difference_high"} <= set(path.columns)
    assert "pass_pow_k" not in path.columns
    row, last = result.comparison.iloc[0], path.iloc[-1]
    for column in ("difference", "difference_low", "difference_high"):
        assert last[column] == pytest.approx(row[column], abs=1e-12)
    assert last["runs"] == len(result.runs)  # both agents'
    assert last["difference"] == 0  # the same outcomes: no difference, whatever the batch
    assert result.stopped_because == "half_width"


def test_a_resumed_evaluation_has_the_path_it_had(tmp_path) -> None:
    ledger = tmp_path / "ledger.jsonl"
    first = pk.evaluate_until(table_tasks(), **SETTINGS, ledger=ledger)
    again = pk.evaluate_until(table_tasks(), **SETTINGS, ledger=ledger, resume=True)
    pd.testing.assert_frame_equal(again.path, first.path)
