from __future__ import annotations

import asyncio
import itertools
import threading
import time

import pandas as pd
import pytest

from passk_lab import EvalResult, Task, coin_tasks, evaluate, evaluate_async

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
        frame, pd.DataFrame({"tasks": [1], "k": [2], "pass_at_1": [1.0], "pass_pow_k": [1.0]})
    )


def test_result_is_frozen():
    result = evaluate([Task(run=lambda: True)], k=1)
    assert isinstance(result, EvalResult)
    with pytest.raises(AttributeError):
        result.k = 3  # type: ignore[misc]


# --- time limits ---------------------------------------------------------------------------


def test_a_hung_plain_function_fails_without_holding_up_the_evaluation():
    release = threading.Event()

    def hangs() -> bool:
        release.wait(60)
        return True

    tasks = [Task(run=hangs), Task(run=lambda: True)]
    started = time.perf_counter()
    result = evaluate(tasks, k=2, timeout_ms=400)  # 100 ms per run
    elapsed = time.perf_counter() - started
    release.set()
    assert elapsed < 30, "the evaluation waited for a hung run"
    assert result.runs["passed"].tolist() == [False, False, True, True]
    assert result.runs["timed_out"].tolist() == [True, True, False, False]
    assert result.runs["error"].iloc[0].startswith("TimeoutError")


def test_a_slow_async_run_is_cancelled():
    cancelled = []

    async def slow() -> bool:
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.append(True)
            raise
        return True

    result = evaluate([Task(run=slow)], k=3, timeout_ms=300)
    assert result.runs["timed_out"].tolist() == [True, True, True]
    assert cancelled == [True, True, True]
    assert result.pass_at_1 == 0.0


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
