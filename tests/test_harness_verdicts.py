"""What counts as a pass, what a run's error says, and what holds a run to its time limit."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import passk_lab as pk
from passk_lab import Task, evaluate
from passk_lab._checks import MEMORY_BUDGET
from passk_lab.harness._settings import _RUN_BYTES


def finishes(fn: Callable[[], Any], seconds: float = 30) -> Any:
    """Return ``fn()``, failing (not hanging) if it has not returned within `seconds`."""
    outcome: list[Any] = []
    thread = threading.Thread(target=lambda: outcome.append(fn()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still running after {seconds} s: it hangs"
    assert outcome, "it raised (see the thread's traceback above)"
    return outcome[0]


def records(path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


# --- results that are not a bool -------------------------------------------------------------


@pytest.mark.parametrize(
    ("result", "shown"),
    [("False", "'False' (str)"), (float("nan"), "nan (float)"), (1, "1 (int)"), (None, "None")],
)
def test_a_result_that_is_not_a_bool_fails_its_run_without_a_verdict(result, shown):
    runs = evaluate([Task(run=lambda: result)], k=2).runs
    assert runs["passed"].tolist() == [False, False]
    assert runs["error"].str.startswith(f"TypeError: run returned {shown}").all()
    assert runs["error"].str.contains("give the task a passes= verdict").all()
    assert runs["error_kind"].tolist() == ["agent", "agent"]


def test_a_numpy_bool_is_a_bool():
    results = iter([np.bool_(True), np.bool_(False), np.True_])
    runs = evaluate([Task(run=lambda: next(results))], k=3).runs
    assert runs["passed"].tolist() == [True, False, True]
    assert runs["error"].isna().all()


def test_a_verdict_that_is_not_a_bool_fails_its_run():
    runs = evaluate([Task(run=lambda: 4, passes=lambda answer: "yes")], k=1).runs
    assert runs["error"].iloc[0].startswith("TypeError: the verdict returned 'yes' (str)")
    assert not runs["passed"].iloc[0]


def test_a_task_declaring_a_result_that_is_not_a_bool_needs_a_verdict_before_any_run():
    calls = []

    def answer() -> str:
        calls.append(1)
        return "False"

    with pytest.raises(TypeError, match=r"tasks\[1\] returns str .* give the task a passes="):
        evaluate([Task(run=lambda: True), Task(run=answer)], k=3)
    assert calls == []
    result = evaluate([Task(run=answer, passes=lambda text: text == "False")], k=1)
    assert result.pass_at_1 == 1.0


@pytest.mark.parametrize("limit", [{}, {"run_timeout_ms": 5_000}])
def test_an_async_verdict_is_awaited(limit):
    async def rejects(result: bool) -> bool:
        await asyncio.sleep(0)
        return not result

    runs = evaluate([Task(run=lambda: True, passes=rejects)], k=2, **limit).runs
    assert runs["passed"].tolist() == [False, False]
    assert runs["error"].isna().all()


# --- what a run's error says ---------------------------------------------------------------


class Unprintable(Exception):
    def __str__(self) -> str:
        raise ValueError("no text for this one")


def test_an_exception_whose_str_raises_is_recorded_with_a_stand_in(tmp_path):
    def run() -> bool:
        raise Unprintable

    result = evaluate([Task(run=run)], k=2, ledger=tmp_path / "ledger.jsonl")
    expected = "Unprintable: <Unprintable; str() raised ValueError: no text for this one>"
    assert result.runs["error"].tolist() == [expected, expected]
    assert pk.read_ledger(tmp_path / "ledger.jsonl").runs["error"].tolist() == [expected] * 2


@pytest.mark.parametrize("concurrency", [1, 2])
@pytest.mark.parametrize("limit", [{}, {"run_timeout_ms": 5_000}])
def test_stop_iteration_is_the_runs_error_not_a_timeout(concurrency, limit):
    def run() -> bool:
        raise StopIteration("the agent ran out of steps")

    result = finishes(lambda: evaluate([Task(run=run)], k=3, concurrency=concurrency, **limit))
    runs = result.runs
    assert runs["error"].tolist() == ["StopIteration: the agent ran out of steps"] * 3
    assert runs["error_kind"].tolist() == ["agent"] * 3
    assert not runs["timed_out"].any()


# --- text that cannot be encoded -------------------------------------------------------------

NAME = "report-\udcff.txt"  # as os.listdir gives a file name that is not UTF-8
ESCAPED = "report-\\udcff.txt"


def test_a_lone_surrogate_in_an_error_is_backslash_escaped_everywhere(tmp_path):
    path = tmp_path / "ledger.jsonl"

    def run() -> bool:
        raise FileNotFoundError(NAME)

    tasks = [Task(run=run, id="a"), Task(run=lambda: True, id="b")]
    result = evaluate(tasks, k=2, ledger=path, resume=True, model=NAME, metadata={NAME: NAME})
    errors = [f"FileNotFoundError: {ESCAPED}"] * 2 + [""] * 2
    assert result.runs["error"].fillna("").tolist() == errors
    assert result.header["model"] == ESCAPED
    assert result.header["metadata"] == {ESCAPED: ESCAPED}
    ledger = pk.read_ledger(path)
    assert ledger.runs["error"].fillna("").tolist() == errors
    resumed = evaluate(tasks, k=2, ledger=path, resume=True, model=NAME, metadata={NAME: NAME})
    assert resumed.runs["error"].fillna("").tolist() == errors
    curve = pk.reliability_curve(ledger.runs, [1, 2])  # what analyze computes
    assert curve["n_tasks"].tolist() == [2, 2]


def test_a_task_id_with_a_lone_surrogate_is_escaped():
    runs = evaluate([Task(run=lambda: True, id=NAME)], k=1).runs
    assert runs["task"].tolist() == [ESCAPED]


def test_a_ledger_holding_escaped_surrogates_reads_and_resumes(tmp_path):
    """JSON may hold "\\udcff": a ledger written so (by hand, or by an older passk_lab) reads."""
    path = tmp_path / "ledger.jsonl"

    def run() -> bool:
        raise RuntimeError("x")

    evaluate([Task(run=run, id="x")], k=2, ledger=path)
    text = path.read_text().replace('"x"', '"x\\udcff"')  # the id and the messages
    path.write_text(text.split("\n", 2)[0] + "\n" + text.split("\n", 2)[1] + "\n")
    ledger = pk.read_ledger(path)
    assert ledger.runs["task"].tolist() == ["x\\udcff"]
    assert ledger.runs["error"].tolist() == ["RuntimeError: x\\udcff"]
    assert ledger.header["tasks"] == ["x\\udcff"]
    resumed = evaluate([Task(run=run, id="x\udcff")], k=2, ledger=path, resume=True)
    assert resumed.runs["error"].tolist() == ["RuntimeError: x\\udcff", "RuntimeError: x"]


# --- time limits over the run and its verdict ----------------------------------------------


@pytest.mark.parametrize("raises", [False, True])
def test_an_async_run_that_blocks_the_event_loop_past_its_limit_is_timed_out(raises):
    async def blocks() -> bool:
        time.sleep(0.3)  # not await asyncio.sleep: nothing can interrupt it
        if raises:
            raise ValueError("and then failed")
        return True

    with pytest.warns(RuntimeWarning, match=r"1 async run\(s\) .* blocked the event loop"):
        runs = evaluate([Task(run=blocks)], k=1, run_timeout_ms=50).runs
    assert runs["timed_out"].tolist() == [True]
    assert runs["passed"].tolist() == [False]
    assert runs["error_kind"].tolist() == ["timeout"]
    assert runs["error"].iloc[0].startswith("TimeoutError: the run took")
    assert "past its limit of 50 ms" in runs["error"].iloc[0]


@pytest.mark.parametrize("concurrency", [1, 2])
def test_a_plain_verdict_that_hangs_is_held_to_the_runs_time_limit(concurrency):
    release = threading.Event()

    def hangs(result: bool) -> bool:
        release.wait(60)
        return result

    tasks = [Task(run=lambda: True, passes=hangs), Task(run=lambda: True)]
    try:  # the limit ends the hung verdict and leaves a quick run time on a loaded machine
        result = finishes(
            lambda: evaluate(tasks, k=1, run_timeout_ms=1000, concurrency=concurrency)
        )
    finally:
        release.set()
    assert result.runs["timed_out"].tolist() == [True, False]
    assert result.runs["passed"].tolist() == [False, True]


def test_an_async_verdict_that_hangs_is_cancelled_at_the_runs_time_limit():
    async def hangs(result: bool) -> bool:
        await asyncio.sleep(60)
        return result

    result = finishes(
        lambda: evaluate([Task(run=lambda: True, passes=hangs)], 1, run_timeout_ms=50)
    )
    assert result.runs["timed_out"].tolist() == [True]
    assert result.runs["error_kind"].tolist() == ["timeout"]


def test_a_custom_guard_leaves_the_verdict_the_rest_of_the_time():
    async def hangs(result: bool) -> bool:
        await asyncio.sleep(60)
        return result

    def guard(fn: Callable[[], Any], ms: int) -> Any:
        return fn()

    task = Task(run=lambda: True, passes=hangs)
    result = finishes(lambda: evaluate([task], 1, run_timeout_ms=50, guard=guard))
    assert result.runs["timed_out"].tolist() == [True]


# --- more runs than memory holds -------------------------------------------------------------


MOST_RUNS = MEMORY_BUDGET // _RUN_BYTES  # the runs an evaluation may keep


@pytest.mark.parametrize(("n_tasks", "k"), [(1, 10**12), (3, MOST_RUNS // 3 + 1)])
def test_more_runs_than_an_evaluation_can_keep_are_refused_before_any_run(n_tasks, k):
    calls = []
    tasks = [Task(run=lambda: calls.append(1) or True) for _ in range(n_tasks)]
    assert n_tasks * k > MOST_RUNS
    with pytest.raises(
        ValueError,
        match=f"would hold {n_tasks} tasks x {k:,} runs each = {n_tasks * k:,} runs at ",
    ):
        evaluate(tasks, k)
    assert calls == []
