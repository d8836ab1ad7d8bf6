from __future__ import annotations

import asyncio
import collections
import dataclasses
import gc
import inspect
import itertools
import signal
import subprocess
import sys
import threading
import time
from typing import Any

import numpy as np
import pandas as pd
import pytest
from test_harness_verdicts import finishes

import passk_lab as pk
from passk_lab import EvalResult, Task, coin_tasks, evaluate, evaluate_async
from passk_lab.harness._evaluation import Evaluation
from passk_lab.harness._settings import Settings, make_plan
from passk_lab.harness._threads import run_in_loop

# --- the source's four tests -------------------------------------------------------------


def test_source_pinned_figures(run_js):
    """40 tasks of an 85% coin, k = 5, seed 42 -> 0.86 and 0.45, as the source pins and as its
    own JavaScript computes."""
    expected = run_js(
        "const r = seeded(42); let single = 0, allK = 0;"
        "for (let i = 0; i < 40; i++) { let w = 0;"
        "  for (let j = 0; j < 5; j++) if (r() < 0.85) w++;"
        "  single += w / 5; if (w === 5) allK++; }"
        "console.log(JSON.stringify([single / 40, allK / 40]));"
    )
    result = evaluate(coin_tasks(0.85, 40, 42), k=5)
    assert [result.pass_at_1, result.pass_pow_k] == expected == [0.86, 0.45]
    assert (result.tasks, result.k) == (40, 5)


def test_a_throw_is_a_failed_run_and_the_run_count_stays_at_k():
    calls = itertools.count()

    def flaky() -> bool:
        if next(calls) == 2:
            raise RuntimeError("tool call failed")
        return True

    result = evaluate([Task(run=flaky)], k=5)
    assert len(result.runs) == 5
    assert result.runs["passed"].tolist() == [True, True, False, True, True]
    assert result.runs["error"].iloc[2] == "RuntimeError: tool call failed"
    assert result.runs["error"].drop(index=2).isna().all()
    assert result.pass_at_1 == pytest.approx(4 / 5)
    assert result.pass_pow_k == 0.0


@pytest.mark.parametrize(
    ("k", "error", "message"),
    [
        (0, ValueError, "k must be a positive integer, got 0"),
        (-1, ValueError, "k must be a positive integer, got -1"),
        (2.5, TypeError, "k must be an integer, got 2.5"),
        (True, TypeError, "k must be an integer, got the bool True"),
        ("5", TypeError, "k must be an integer, got '5'"),
    ],
)
def test_invalid_k_is_refused(k, error, message):
    with pytest.raises(error, match=message):
        evaluate([Task(run=lambda: True)], k)


def test_an_empty_task_list_is_refused():
    with pytest.raises(ValueError, match="evaluate needs at least one task"):
        evaluate([], 5)


# --- the runs table ----------------------------------------------------------------------


def test_runs_table_keeps_every_run_in_task_then_run_order():
    outcomes = iter([True, False, True, True, False, False])
    tasks = [Task(run=lambda: next(outcomes), id=name) for name in ("a", "b", "c")]
    result = evaluate(tasks, k=2)
    runs = result.runs
    assert list(runs.columns) == [
        "task",
        "run",
        "passed",
        "error",
        "error_kind",
        "timed_out",
        "attempts",
        "started_at",
        "duration_s",
    ]
    assert runs["task"].tolist() == ["a", "a", "b", "b", "c", "c"]
    assert runs["run"].tolist() == [0, 1, 0, 1, 0, 1]
    assert runs["passed"].tolist() == [True, False, True, True, False, False]
    assert runs["passed"].dtype == bool
    assert runs["timed_out"].dtype == bool
    assert (runs["duration_s"] >= 0).all()
    # The source's arithmetic: mean of wins / k; share of tasks with wins == k.
    assert result.pass_at_1 == (1 / 2 + 2 / 2 + 0 / 2) / 3
    assert result.pass_pow_k == 1 / 3


def test_default_ids_are_positions():
    runs = evaluate([Task(run=lambda: True) for _ in range(3)], k=1).runs
    assert runs["task"].tolist() == [0, 1, 2]


def test_a_verdict_that_raises_is_a_failed_run():
    def judge(result: int) -> bool:
        raise KeyError("score")

    result = evaluate([Task(run=lambda: 1, passes=judge)], k=2)
    assert result.runs["passed"].tolist() == [False, False]
    assert result.runs["error"].tolist() == ["KeyError: 'score'"] * 2


def test_the_verdict_sees_the_result():
    answers = iter([4, 5, 4])
    result = evaluate([Task(run=lambda: next(answers), passes=lambda a: a == 4)], k=3)
    assert result.runs["passed"].tolist() == [True, False, True]


def test_result_to_frame():
    frame = evaluate([Task(run=lambda: True)], k=2).to_frame()
    pd.testing.assert_frame_equal(
        frame, pd.DataFrame({"n_tasks": [1], "k": [2], "pass_at_1": [1.0], "pass_pow_k": [1.0]})
    )


def test_result_is_frozen():
    result = evaluate([Task(run=lambda: True)], k=1)
    assert isinstance(result, EvalResult)
    with pytest.raises(AttributeError):
        result.k = 3  # type: ignore[misc]


# --- time limits ---------------------------------------------------------------------------


@pytest.mark.parametrize("concurrency", [1, 2])
def test_a_hung_plain_function_does_not_hold_the_evaluation_past_its_budget(concurrency):
    release = threading.Event()

    def hangs() -> bool:
        release.wait(60)
        return True

    tasks = [Task(run=hangs), Task(run=lambda: True)]
    try:  # 1 s a run: the hung one ends at it, a quick one meets it on a loaded machine
        result = finishes(lambda: evaluate(tasks, k=1, timeout_ms=2000, concurrency=concurrency))
    finally:
        release.set()
    assert result.runs["passed"].tolist() == [False, True]
    assert result.runs["timed_out"].tolist() == [True, False]
    assert result.runs["error_kind"].astype(object).fillna("").tolist() == ["timeout", ""]
    assert result.runs["error"].iloc[0].startswith("TimeoutError")


@pytest.mark.parametrize("limit", [{"timeout_ms": 2000}, {"run_timeout_ms": 1000}])
def test_a_slow_async_run_is_cancelled(limit):
    cancelled = []

    async def slow() -> bool:
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.append(True)
            raise
        return True

    async def quick() -> bool:
        return True

    result = evaluate([Task(run=slow), Task(run=quick)], k=1, **limit)  # 1 s a run
    assert result.runs["timed_out"].tolist() == [True, False]
    assert cancelled == [True]
    assert result.runs["duration_s"].iloc[0] > 0.5  # the time it was given, not nothing
    assert result.pass_at_1 == 0.5


def test_budget_is_spread_over_runs_with_a_floor_of_one_ms():
    seen: list[int] = []

    def recording_guard(fn, ms):
        seen.append(ms)
        return fn()

    tasks = [Task(run=lambda: True) for _ in range(3)]
    evaluate(tasks, k=4, timeout_ms=1000, guard=recording_guard)
    assert seen == [1000 // 12] * 12
    seen.clear()
    evaluate(tasks, k=4, timeout_ms=5, guard=recording_guard)
    assert seen == [1] * 12


def test_a_custom_guard_replaces_the_default():
    def always_late(fn, ms):
        raise TimeoutError(f"over {ms} ms")

    result = evaluate([Task(run=lambda: True)], k=2, timeout_ms=100, guard=always_late)
    assert result.runs["timed_out"].all()
    assert result.runs["error"].tolist() == ["TimeoutError: over 50 ms"] * 2


def test_an_async_guard_is_awaited():
    async def guard(fn, ms):
        return not fn()

    result = evaluate([Task(run=lambda: False)], k=2, timeout_ms=100, guard=guard)
    assert result.pass_pow_k == 1.0


def test_fast_runs_pass_under_a_budget():
    async def quick() -> bool:
        return True

    tasks = [Task(run=quick), Task(run=lambda: True)]
    result = evaluate(tasks, k=3, timeout_ms=60_000)
    assert result.pass_pow_k == 1.0
    assert not result.runs["timed_out"].any()


@pytest.mark.parametrize(
    ("timeout_ms", "error", "message"),
    [
        (0, ValueError, "timeout_ms must be a positive, finite number"),
        (-5, ValueError, "timeout_ms must be a positive, finite number"),
        (float("inf"), ValueError, "timeout_ms must be a positive, finite number"),
        (float("nan"), ValueError, "timeout_ms must be a positive, finite number"),
        ("100", TypeError, "timeout_ms must be a number of milliseconds"),
    ],
)
def test_bad_budgets_are_refused(timeout_ms, error, message):
    with pytest.raises(error, match=message):
        evaluate([Task(run=lambda: True)], 1, timeout_ms=timeout_ms)


def test_a_guard_without_a_budget_is_refused():
    with pytest.raises(ValueError, match="guard only applies under a time limit"):
        evaluate([Task(run=lambda: True)], 1, guard=lambda fn, ms: fn())


# --- async and mixed tasks -----------------------------------------------------------------


def test_async_and_plain_tasks_mix():
    async def passes() -> bool:
        await asyncio.sleep(0)
        return True

    async def raises() -> bool:
        raise ValueError("bad answer")

    tasks = [Task(run=passes), Task(run=raises), Task(run=lambda: True)]
    result = evaluate(tasks, k=2)
    assert result.runs["passed"].tolist() == [True, True, False, False, True, True]
    assert result.runs["error"].iloc[2] == "ValueError: bad answer"
    assert result.pass_pow_k == pytest.approx(2 / 3)


def test_a_plain_function_returning_an_awaitable_is_awaited():
    async def answer() -> int:
        return 4

    result = evaluate([Task(run=lambda: answer(), passes=lambda a: a == 4)], k=2)
    assert result.pass_pow_k == 1.0


def test_evaluate_inside_a_running_loop_as_in_a_notebook():
    async def notebook_cell() -> EvalResult:
        return evaluate(coin_tasks(0.85, 40, 42), k=5)

    result = asyncio.run(notebook_cell())
    assert (result.pass_at_1, result.pass_pow_k) == (0.86, 0.45)


def test_evaluate_async_equals_evaluate():
    a = asyncio.run(evaluate_async(coin_tasks(0.7, 10, 3), k=4))
    b = evaluate(coin_tasks(0.7, 10, 3), k=4)
    assert (a.pass_at_1, a.pass_pow_k) == (b.pass_at_1, b.pass_pow_k)
    pd.testing.assert_frame_equal(
        a.runs.drop(columns=["started_at", "duration_s"]),
        b.runs.drop(columns=["started_at", "duration_s"]),
    )


# --- what is refused or not swallowed ------------------------------------------------------


def test_keyboard_interrupt_is_not_swallowed():
    def interrupted() -> bool:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        evaluate([Task(run=interrupted)], 2)


def test_a_non_task_is_refused():
    with pytest.raises(TypeError, match=r"tasks\[1\] is a function, not a Task"):
        evaluate([Task(run=lambda: True), lambda: True], 1)  # type: ignore[list-item]


def test_repeated_ids_are_refused():
    with pytest.raises(ValueError, match="task ids must be unique, but 'x' names more than one"):
        evaluate([Task(run=lambda: True, id="x"), Task(run=lambda: True, id="x")], 1)


# --- concurrency ---------------------------------------------------------------------------


class _InFlight:
    """Counts runs in flight, from any thread, and remembers the most at once."""

    def __init__(self) -> None:
        self.now = 0
        self.most = 0
        self.lock = threading.Lock()

    def __enter__(self) -> None:
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)

    def __exit__(self, *exc: object) -> None:
        with self.lock:
            self.now -= 1


@pytest.mark.parametrize("concurrency", [1, 3])
def test_async_runs_overlap_up_to_the_concurrency_limit_and_no_further(concurrency):
    flight = _InFlight()

    async def run() -> bool:
        with flight:
            await asyncio.sleep(0.01)
        return True

    result = evaluate([Task(run=run) for _ in range(8)], k=3, concurrency=concurrency)
    assert flight.most == concurrency
    assert result.pass_pow_k == 1.0


def test_plain_runs_go_to_threads_up_to_the_concurrency_limit():
    flight = _InFlight()
    threads = set()

    def run() -> bool:
        with flight:
            threads.add(threading.get_ident())
            time.sleep(0.02)
        return True

    evaluate([Task(run=run) for _ in range(6)], k=2, concurrency=4)
    assert flight.most == 4
    assert threading.get_ident() not in threads


def test_concurrent_rows_are_in_task_then_run_order_whatever_order_runs_finish_in():
    """Runs finish out of order; the rows, and so the figures, do not depend on it."""
    rng = np.random.default_rng(0)
    passes = {i: rng.random(5) < 0.6 for i in range(12)}  # each task's outcomes, in any order
    ended: list[tuple[int, int]] = []  # (task, its call), in the order the calls end

    def make(i: int):
        remaining = list(passes[i])

        async def run() -> bool:
            outcome = remaining.pop()
            # a task's first run ends after its four others, its second after three, ...
            later = len(remaining)
            while sum(task == i for task, _ in ended) < later:
                await asyncio.sleep(0)
            ended.append((i, 4 - later))
            return bool(outcome)

        return run

    tasks = [Task(run=make(i), id=f"t{i}") for i in range(12)]
    result = evaluate(tasks, k=5, concurrency=5)
    assert ended != sorted(ended), "runs finished in order"
    assert result.runs["task"].tolist() == [f"t{i}" for i in range(12) for _ in range(5)]
    assert result.runs["run"].tolist() == list(range(5)) * 12
    wins = np.array([passes[i].sum() for i in range(12)])
    assert result.runs.groupby("task", sort=False)["passed"].sum().tolist() == wins.tolist()
    assert result.pass_at_1 == sum(w / 5 for w in wins) / 12  # the source's accumulation
    assert result.pass_pow_k == (wins == 5).mean()


# --- per-run time limits -------------------------------------------------------------------


def test_a_run_gets_the_smaller_of_the_per_run_limit_and_its_share_of_the_budget():
    seen: list[int] = []

    def recording_guard(fn, ms):
        seen.append(ms)
        return fn()

    tasks = [Task(run=lambda: True) for _ in range(2)]
    evaluate(tasks, k=2, timeout_ms=1000, run_timeout_ms=100, guard=recording_guard)
    evaluate(tasks, k=2, timeout_ms=1000, run_timeout_ms=900, guard=recording_guard)
    evaluate(tasks, k=2, run_timeout_ms=70.9, guard=recording_guard)
    assert seen == [100] * 4 + [250] * 4 + [70] * 4


# --- infrastructure errors -----------------------------------------------------------------


class RateLimitError(Exception):
    pass


@pytest.fixture
def sleeps(monkeypatch):
    """Record the harness's backoff sleeps instead of sleeping."""
    delays: list[float] = []
    real_sleep = asyncio.sleep

    async def fake_sleep(delay: float) -> None:
        delays.append(delay)
        await real_sleep(0)

    monkeypatch.setattr("passk_lab.harness._attempt.asyncio.sleep", fake_sleep)
    return delays


def test_an_infrastructure_error_is_retried_with_doubling_backoff(sleeps):
    failures = iter([RateLimitError("429"), ConnectionError("reset"), None])

    def run() -> bool:
        failure = next(failures)
        if failure is not None:
            raise failure
        return True

    result = evaluate(
        [Task(run=run)], k=1, infrastructure=(RateLimitError, ConnectionError), backoff_s=0.5
    )
    assert sleeps == [0.5, 1.0]
    assert result.runs[["passed", "attempts"]].iloc[0].tolist() == [True, 3]
    assert result.runs["error"].isna().all()


def test_an_infrastructure_error_that_persists_is_recorded_as_infrastructure(sleeps):
    def run() -> bool:
        raise RateLimitError("429 Too Many Requests")

    result = evaluate([Task(run=run)], k=2, infrastructure=RateLimitError, retries=3)
    assert sleeps == [1.0, 2.0, 4.0] * 2
    runs = result.runs
    assert runs["error"].tolist() == ["RateLimitError: 429 Too Many Requests"] * 2
    assert runs["error_kind"].tolist() == ["infrastructure"] * 2
    assert runs["attempts"].tolist() == [4, 4]
    assert not runs["passed"].any()


def test_other_exceptions_are_the_agents_failures_and_are_not_retried(sleeps):
    def run() -> bool:
        raise ValueError("bad tool call")

    result = evaluate([Task(run=run)], k=2, infrastructure=RateLimitError)
    assert sleeps == []
    assert result.runs["error_kind"].tolist() == ["agent"] * 2
    assert result.runs["attempts"].tolist() == [1, 1]


def test_retries_share_the_runs_time_limit():
    def run() -> bool:
        raise RateLimitError("429")

    result = finishes(  # a 1 s backoff would not fit in the 0.9 s left
        lambda: evaluate([Task(run=run)], k=1, infrastructure=RateLimitError, run_timeout_ms=900)
    )
    assert result.runs["attempts"].tolist() == [1]
    assert result.runs["error_kind"].tolist() == ["infrastructure"]


def test_error_sensitivity_reads_infrastructure_errors_both_ways():
    """Infrastructure errors are the errors the exclude policy leaves out; agent errors stay
    failures under both readings."""
    calls = itertools.count()

    def run() -> bool:
        call = next(calls)
        if call % 4 == 1:
            raise RateLimitError("429")
        if call % 4 == 2:
            raise KeyError("answer")
        return True

    runs = evaluate(
        [Task(run=run) for _ in range(3)], k=4, infrastructure=RateLimitError, retries=0
    ).runs
    # every task: pass, infrastructure, agent, pass
    table = pk.error_sensitivity(runs, ks=[1])
    assert table["pass_at_k_fail"].tolist() == [2 / 4]
    assert table["pass_at_k_exclude"].tolist() == [2 / 3]
    assert table["n_runs_excluded"].tolist() == [3]


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"concurrency": 0}, ValueError, "concurrency must be a positive integer"),
        ({"retries": -1}, ValueError, "retries must be >= 0"),
        ({"infrastructure": RateLimitError()}, TypeError, "infrastructure must be exception"),
        ({"infrastructure": (KeyboardInterrupt,)}, TypeError, "infrastructure must be excep"),
        ({"backoff_s": -1}, ValueError, "backoff_s must be a finite number of seconds"),
        ({"backoff_s": 10**400}, ValueError, "backoff_s must be a finite number of seconds"),
        ({"run_timeout_ms": 10**400}, ValueError, "run_timeout_ms must be a positive, finite"),
        ({"timeout_ms": 10**400}, ValueError, "timeout_ms must be a positive, finite"),
        ({"run_timeout_ms": 0}, ValueError, "run_timeout_ms must be a positive, finite"),
        ({"resume": True}, ValueError, "resume=True continues a ledger; pass ledger=PATH"),
        ({"model": 4}, TypeError, "model must be the model or agent's name"),
        ({"metadata": ["a"]}, TypeError, "metadata must be a dict"),
        ({"progress": "yes"}, TypeError, "resume and progress must be True or False"),
    ],
)
def test_bad_options_are_refused(options, error, message):
    with pytest.raises(error, match=message):
        evaluate([Task(run=lambda: True)], 1, **options)


@pytest.mark.parametrize("function", [evaluate, evaluate_async])
def test_the_settings_are_the_keyword_options_of_both_functions(function):
    """Settings is where the options are checked: its fields must be the signatures' options."""
    options = [
        (name, parameter.default, parameter.annotation)
        for name, parameter in inspect.signature(function).parameters.items()
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY
    ]
    fields = [(field.name, field.default, field.type) for field in dataclasses.fields(Settings)]
    assert options == fields


# --- interrupts and progress ---------------------------------------------------------------


def test_ctrl_c_keeps_the_finished_runs_and_says_how_to_resume(tmp_path):
    path = tmp_path / "ledger.jsonl"
    calls = itertools.count()

    def run() -> bool:
        if next(calls) == 5:
            raise KeyboardInterrupt
        return True

    tasks = [Task(run=run) for _ in range(4)]
    with pytest.raises(KeyboardInterrupt) as stop:
        evaluate(tasks, k=3, ledger=path)
    (note,) = stop.value.__notes__
    assert "5 of 12 runs are recorded" in note
    assert f"ledger={str(path)!r}, resume=True" in note
    assert len(pk.read_ledger(path).runs) == 5
    result = evaluate(tasks, k=3, ledger=path, resume=True)
    assert result.pass_pow_k == 1.0
    assert next(calls) == 6 + 7, "the resumed evaluation ran more than the 7 runs left"


def test_without_a_ledger_an_interrupt_says_how_to_keep_runs():
    def run() -> bool:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt) as stop:
        evaluate([Task(run=run)], k=3)
    assert "pass ledger=PATH to keep every finished run" in stop.value.__notes__[0]


def test_cancelling_evaluate_async_stops_new_runs_and_keeps_the_finished_ones(tmp_path):
    path = tmp_path / "ledger.jsonl"
    started = []

    async def run() -> bool:
        started.append(True)
        await asyncio.sleep(0 if len(started) <= 3 else 60)
        return True

    async def main() -> BaseException:
        evaluation = asyncio.ensure_future(  # noqa: RUF006 - awaited below
            evaluate_async([Task(run=run) for _ in range(5)], k=2, ledger=path, concurrency=2)
        )
        while not path.exists() or len(pk.read_ledger(path).runs) < 3:
            await asyncio.sleep(0.01)
        evaluation.cancel()
        with pytest.raises(asyncio.CancelledError) as stop:
            await evaluation
        return stop.value

    stop = asyncio.run(main())
    assert "3 of 10 runs are recorded" in stop.__notes__[0]
    assert len(started) == 5, "new runs started after the cancellation"
    assert len(pk.read_ledger(path).runs) == 3


def test_progress_shows_a_bar_with_the_running_pass_at_1(capsys):
    outcomes = iter([True, False, True, True])
    evaluate([Task(run=lambda: next(outcomes)) for _ in range(2)], k=2, progress=True)
    err = capsys.readouterr().err
    assert "4/4" in err
    assert "pass@1=0.750" in err


def test_ctrl_c_in_a_notebook_stops_the_evaluation_running_in_its_worker_thread(tmp_path):
    """In Jupyter, evaluate runs its loop in a worker thread while Ctrl-C raises in the main
    thread; the worker's evaluation must stop too, not run on unseen."""
    path = tmp_path / "ledger.jsonl"
    started = []

    async def run() -> bool:
        started.append(True)
        await asyncio.sleep(0.02 if len(started) <= 40 else 60)  # past 40, wait for Ctrl-C
        return True

    def interrupt_when_recorded(runs: int) -> None:
        while not path.exists() or len(path.read_text().splitlines()) < 1 + runs:
            time.sleep(0.005)
        signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)

    async def cell() -> EvalResult:  # a notebook cell: a loop is running in this thread
        return evaluate([Task(run=run) for _ in range(50)], k=2, ledger=path)

    # A KeyboardInterrupt raised inside a finalizer is lost ("Exception ignored in ..."): with
    # the garbage of the tests before, the cyclic collector could run one in this thread just
    # as Ctrl-C arrives, and the evaluation would run on (as a user's Ctrl-C would, once in a
    # while, and the user would press it again). No collection runs while the signal is due.
    gc.collect()
    gc.disable()
    threading.Thread(target=interrupt_when_recorded, args=(5,), daemon=True).start()
    loop = asyncio.new_event_loop()  # no SIGINT handler of its own, as in a Jupyter kernel
    try:
        with pytest.raises(KeyboardInterrupt) as stop:
            loop.run_until_complete(cell())
    finally:
        gc.enable()
        loop.close()
    recorded = len(pk.read_ledger(path).runs)
    assert f"{recorded} of 100 runs are recorded" in stop.value.__notes__[0]
    time.sleep(0.1)
    assert len(pk.read_ledger(path).runs) == recorded < 100, "the evaluation ran on"
    assert len(started) <= recorded + 1


# --- the threads that plain runs go to -----------------------------------------------------


def test_plain_runs_reuse_a_few_daemon_threads_which_end_with_the_evaluation():
    threads: list[threading.Thread] = []  # the objects, so that no identity is reused

    def run() -> bool:
        threads.append(threading.current_thread())
        time.sleep(0.001)
        return True

    result = evaluate([Task(run=run) for _ in range(10)], k=4, concurrency=3)
    assert result.pass_pow_k == 1.0
    used = set(threads)
    assert len(threads) == 40
    assert 1 <= len(used) <= 3, "a thread was started per run, not reused"
    assert threading.current_thread() not in used
    assert all(thread.daemon and thread.name == "passk_lab-run" for thread in used)
    for thread in used:
        thread.join(timeout=60)  # a bound for a broken pool, not a timing
    assert not any(thread.is_alive() for thread in used)


@pytest.mark.slow
def test_a_plain_run_over_its_time_keeps_only_its_own_thread():
    """A run's limit is 1.5 s, far more than a quick run needs on a loaded machine, thread start
    included; the hung runs wait until the test is over, and then end."""
    release = threading.Event()
    threads: dict[str, set[threading.Thread]] = {"hangs": set(), "quick": set()}

    def hangs() -> bool:
        threads["hangs"].add(threading.current_thread())
        return release.wait()

    def quick() -> bool:
        threads["quick"].add(threading.current_thread())
        return True

    tasks = [Task(run=hangs, id="hangs"), Task(run=quick, id="quick")]
    try:
        result = evaluate(tasks, k=2, run_timeout_ms=1500)
    finally:
        release.set()
    assert result.runs["timed_out"].tolist() == [True] * 2 + [False] * 2
    assert len(threads["hangs"]) == 2, "a run was given a thread still held by a hung run"
    assert not threads["hangs"] & threads["quick"]
    assert len(threads["quick"]) == 1
    for thread in threads["hangs"]:
        thread.join(timeout=60)  # a bound for a broken pool, not a timing
    assert not any(thread.is_alive() for thread in threads["hangs"])


HUNG_CHILD = """
import threading
import passk_lab as pk

def hangs():
    threading.Event().wait()  # forever

tasks = [pk.Task(run=hangs, id="hangs"), pk.Task(run=lambda: True, id="quick")]
result = pk.evaluate(tasks, k=1, run_timeout_ms=1000, concurrency={concurrency})
print(result.runs["timed_out"].tolist())
"""


@pytest.mark.parametrize("concurrency", [1, 4])
def test_a_hung_plain_run_does_not_keep_the_interpreter_from_exiting(concurrency):
    completed = subprocess.run(
        [sys.executable, "-c", HUNG_CHILD.format(concurrency=concurrency)],
        capture_output=True,
        text=True,
        timeout=120,  # a bound for a hung interpreter, not a timing
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "[True, False]"


class InfrastructureDown(Exception):
    pass


class _Stagger:
    """Holds each call of an even task's run until the same call of the next task's run ends,
    and records the order calls end in: runs taken later end first, on every machine.

    Runs are taken in task-then-run order, so a held call waits on a run that is taken next;
    with more workers than runs a task, a worker is always free to take it.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.calls: collections.Counter[int] = collections.Counter()
        self.ended: collections.defaultdict[tuple[int, int], threading.Event] = (
            collections.defaultdict(threading.Event)
        )
        self.order: list[tuple[int, int]] = []  # (task, its call), in the order calls end

    def start(self, i: int) -> tuple[int, int]:
        with self.lock:
            call = (i, self.calls[i])
            self.calls[i] += 1
            partner = self.ended[i + 1, call[1]]
        if i % 2 == 0:
            partner.wait(60)  # a bound for a broken harness, not a timing
        return call

    def end(self, call: tuple[int, int]) -> None:
        with self.lock:
            self.order.append(call)
            ended = self.ended[call]
        ended.set()


def kinds_of_task(i: int, stagger: _Stagger | None = None) -> Task[Any]:
    """Task `i`: one of six behaviours, the same on every run; `stagger` orders when calls end."""

    async def four() -> int:
        return 4

    def behave() -> Any:
        if i % 6 == 2:
            raise ValueError(f"task {i} answered badly")
        if i % 6 == 3:
            raise InfrastructureDown(f"task {i}: 503")
        if i % 6 == 4:
            return four()  # a plain function that returns an awaitable
        if i % 6 == 5:
            return {"answer": 4}
        return i % 6 == 0

    def run() -> Any:
        if stagger is None:
            return behave()
        call = stagger.start(i)
        try:
            return behave()
        finally:
            stagger.end(call)

    def passes(result: Any) -> bool:
        return result == 4 or result == {"answer": 4} or result is True

    return Task(run=run, passes=passes, id=f"t{i}")


def test_concurrent_plain_runs_give_the_runs_table_of_a_sequential_evaluation(tmp_path):
    stagger = _Stagger()
    options = {"infrastructure": InfrastructureDown, "retries": 2, "backoff_s": 0.0}
    timing = ["started_at", "duration_s"]
    tasks = [kinds_of_task(i) for i in range(24)]
    sequential = evaluate(tasks, k=3, ledger=tmp_path / "one.jsonl", **options)
    tasks = [kinds_of_task(i, stagger) for i in range(24)]
    concurrent = evaluate(tasks, k=3, concurrency=8, ledger=tmp_path / "eight.jsonl", **options)
    ended = {call: position for position, call in enumerate(stagger.order)}
    # every run of an even task, taken before the next task's runs, ended after them
    assert all(ended[i + 1, c] < ended[i, c] for i in range(0, 24, 2) for c in range(3))
    expected = sequential.runs.drop(columns=timing)
    pd.testing.assert_frame_equal(concurrent.runs.drop(columns=timing), expected)
    assert (concurrent.pass_at_1, concurrent.pass_pow_k) == (
        sequential.pass_at_1,
        sequential.pass_pow_k,
    )
    for name in ("one", "eight"):
        recorded = pk.read_ledger(tmp_path / f"{name}.jsonl").runs
        pd.testing.assert_frame_equal(recorded.drop(columns=timing), expected)
    # every behaviour is in the table: 4 tasks of each, 3 runs each
    counts = expected.groupby("error_kind", observed=False).size().to_dict()
    assert counts == {"agent": 12, "timeout": 0, "infrastructure": 12}
    assert expected.loc[expected["error_kind"] == "infrastructure", "attempts"].eq(3).all()
    assert expected["passed"].sum() == 3 * 12  # tasks 0, 4 and 5 of every six


# --- Evaluation: chosen runs, for an adaptive driver ---------------------------------------


def counting_tasks(n: int) -> tuple[list[Task[bool]], collections.Counter[str]]:
    calls: collections.Counter[str] = collections.Counter()

    def make(task_id: str) -> Task[bool]:
        def run() -> bool:
            calls[task_id] += 1
            return True

        return Task(run=run, id=task_id)

    return [make(f"t{i}") for i in range(n)], calls


def test_an_evaluation_runs_only_the_chosen_runs_not_yet_recorded(tmp_path):
    tasks, calls = counting_tasks(3)
    path = tmp_path / "ledger.jsonl"
    evaluation = Evaluation(make_plan(tasks, 4, ledger=path))
    try:
        run_in_loop(lambda: evaluation.run([(0, 0), (2, 3), (0, 0)]))
        run_in_loop(lambda: evaluation.run([(0, 0), (1, 1)]))
    finally:
        evaluation.close()
    assert calls == {"t0": 1, "t1": 1, "t2": 1}
    assert sorted(evaluation.recorded) == [(0, 0), (1, 1), (2, 3)]
    assert [(r.task, r.run) for r in evaluation.recorded.values()] == [
        ("t0", 0),
        ("t2", 3),
        ("t1", 1),
    ]
    assert evaluation.header["resumptions"] == []
    runs = pk.read_ledger(path).runs
    assert runs[["task", "run"]].to_numpy().tolist() == [["t0", 0], ["t1", 1], ["t2", 3]]


def test_an_evaluation_resumes_with_the_ledgers_runs_recorded(tmp_path):
    path = tmp_path / "ledger.jsonl"
    tasks, calls = counting_tasks(2)
    evaluate(tasks[:1], 2, ledger=path)
    evaluation = Evaluation(make_plan(tasks, 3, ledger=path, resume=True))
    try:
        assert sorted(evaluation.recorded) == [(0, 0), (0, 1)]
        assert evaluation.header["k"] == 3
        assert evaluation.header["tasks"] == ["t0", "t1"]
        run_in_loop(lambda: evaluation.run([(0, 1), (0, 2), (1, 0)]))
    finally:
        evaluation.close()
    assert calls == {"t0": 2 + 1, "t1": 1}


@pytest.mark.parametrize("job", [(0, 2), (2, 0), (-1, 0), (0, -1)])
def test_a_job_outside_the_plan_is_refused_before_any_run(job):
    tasks, calls = counting_tasks(2)
    evaluation = Evaluation(make_plan(tasks, 2))
    try:
        with pytest.raises(
            ValueError, match=f"the job \\(task {job[0]}, run {job[1]}\\) is outside"
        ):
            run_in_loop(lambda: evaluation.run([(0, 0), job]))
    finally:
        evaluation.close()
    assert calls == {}


def test_an_adaptive_evaluation_records_its_settings_and_checks_a_resumed_ledger(tmp_path):
    path = tmp_path / "ledger.jsonl"
    tasks, _ = counting_tasks(2)
    settings = {"half_width": 0.05, "batch": 2}
    evaluation = Evaluation(make_plan(tasks, 2, ledger=path), adaptive=settings)
    evaluation.close()
    assert evaluation.header["adaptive"] == settings
    with pytest.raises(ValueError, match="records an adaptive evaluation; resume it with evalu"):
        Evaluation(make_plan(tasks, 2, ledger=path, resume=True))  # check=None: must be equal
    fixed = tmp_path / "fixed.jsonl"
    evaluate(tasks, 2, ledger=fixed)
    with pytest.raises(ValueError, match="an evaluation of fixed k, not an adaptive one"):
        Evaluation(make_plan(tasks, 2, ledger=fixed, resume=True), adaptive=settings)
    seen: list[dict[str, Any]] = []

    def refuse(header: dict[str, Any]) -> None:
        seen.append(header)
        raise ValueError("another half_width")

    before = path.read_bytes()
    with pytest.raises(ValueError, match="another half_width"):
        Evaluation(make_plan(tasks, 2, ledger=path, resume=True), adaptive={}, check=refuse)
    assert path.read_bytes() == before
    assert seen[0]["adaptive"] == settings
    assert seen[0]["resumptions"] == []
    later = {"half_width": 0.02}
    evaluation = Evaluation(
        make_plan(tasks, 4, ledger=path, resume=True), adaptive=later, check=seen.append
    )
    evaluation.close()
    assert evaluation.header["adaptive"] == later
    assert evaluation.header["resumptions"][0]["adaptive"] == later
    assert pk.read_ledger(path).header == evaluation.header
    with pytest.raises(ValueError, match="resume it with evaluate_until"):
        evaluate(tasks, 4, ledger=path, resume=True)


def test_run_in_loop_runs_on_a_worker_threads_loop_when_one_is_running():
    async def main() -> str:
        await asyncio.sleep(0)
        return threading.current_thread().name

    async def cell() -> str:  # a notebook cell: a loop already runs in this thread
        return run_in_loop(main)

    assert run_in_loop(main) == threading.current_thread().name
    assert asyncio.run(cell()).startswith("passk_lab")
