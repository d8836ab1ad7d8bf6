"""What each run cost: Task.cost, a result's cost attribute, the ledger's cost field."""

from __future__ import annotations

import asyncio
import json
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import pytest

import passk_lab as pk
from passk_lab import Task, evaluate


@dataclass
class Answer:
    ok: bool
    cost: Any = None


@dataclass
class Usage:
    total_cost: float


@dataclass
class Reply:  # a result the caller cannot change: no cost attribute, a usage record
    ok: bool
    usage: Usage


# The cost of each (task, run), and whether it passes: costs differ by run, so a cost put on
# the wrong run or summed wrongly shows.
USD = [[0.25, 0.5, 0.125], [1.0, 2.0, 0.0]]
TOKENS = [[1000, 2000, 4000], [10, 20, 30]]
PASSES = [[True, False, True], [True, True, True]]


def answer_tasks() -> list[Task[Answer]]:
    """Two tasks of three runs whose results carry their cost."""

    def make(i: int) -> Task[Answer]:
        calls = iter(range(3))

        def run() -> Answer:
            j = next(calls)
            return Answer(PASSES[i][j], {"usd": USD[i][j], "tokens": TOKENS[i][j]})

        return Task(run=run, passes=lambda answer: answer.ok, id=f"a{i}")

    return [make(0), make(1)]


def test_a_results_cost_is_recorded_per_run_and_summed(tmp_path):
    path = tmp_path / "ledger.jsonl"
    result = evaluate(answer_tasks(), k=3, ledger=path)
    runs = result.runs
    assert list(runs.columns[-3:]) == ["duration_s", "cost_usd", "cost_tokens"]
    assert runs["cost_usd"].dtype == runs["cost_tokens"].dtype == np.float64
    assert runs["cost_usd"].tolist() == [usd for row in USD for usd in row]
    assert runs["cost_tokens"].tolist() == [tokens for row in TOKENS for tokens in row]
    assert runs["passed"].tolist() == [passed for row in PASSES for passed in row]
    assert result.cost == {
        "usd": math.fsum(usd for row in USD for usd in row),
        "tokens": sum(tokens for row in TOKENS for tokens in row),
    }
    frame = result.to_frame()
    assert list(frame.columns) == [
        "n_tasks",
        "k",
        "pass_at_1",
        "pass_pow_k",
        "cost_usd",
        "cost_tokens",
    ]
    assert frame["cost_usd"].item() == result.cost["usd"]
    line = path.read_text().splitlines()[1]
    assert line.endswith(',"cost":{"usd":0.25,"tokens":1000}}')  # last, in the order given
    pd.testing.assert_frame_equal(pk.read_ledger(path).runs, runs)


def test_the_cost_hook_prices_a_result_that_has_no_cost_attribute(tmp_path):
    spent = iter([0.5, 1.5])
    task = Task(
        run=lambda: Reply(True, Usage(next(spent))),
        passes=lambda reply: reply.ok,
        cost=lambda reply: {"usd": reply.usage.total_cost},
    )
    result = evaluate([task], k=2)
    assert result.runs["cost_usd"].tolist() == [0.5, 1.5]
    assert result.cost == {"usd": 2.0}


def test_the_hook_replaces_the_results_own_cost():
    task = Task(
        run=lambda: Answer(True, {"usd": 9.0}),
        passes=lambda answer: answer.ok,
        cost=lambda answer: {"tokens": 3},
    )
    result = evaluate([task], k=1)
    assert result.cost == {"tokens": 3.0}
    assert "cost_usd" not in result.runs


def test_without_costs_the_runs_table_and_the_ledger_lines_are_as_before(tmp_path):
    path = tmp_path / "ledger.jsonl"
    result = evaluate([Task(run=lambda: True)], k=2, ledger=path)
    assert list(result.runs.columns) == [
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
    assert result.cost == {}
    assert list(result.to_frame().columns) == ["n_tasks", "k", "pass_at_1", "pass_pow_k"]
    assert all("cost" not in json.loads(line) for line in path.read_text().splitlines()[1:])


def test_names_come_in_order_of_first_appearance_and_nan_where_a_run_has_none():
    costs = iter([None, {"tokens": 5}, {"usd": 1.0, "tokens": 7}, {}])
    task = Task(run=lambda: Answer(True, next(costs)), passes=lambda answer: answer.ok)
    result = evaluate([task], k=4)
    runs = result.runs
    assert list(runs.columns[-2:]) == ["cost_tokens", "cost_usd"]
    assert runs["cost_tokens"].tolist()[1:3] == [5.0, 7.0]
    assert np.isnan(runs["cost_tokens"].to_numpy()[[0, 3]]).all()
    assert np.isnan(runs["cost_usd"].to_numpy()[[0, 1, 3]]).all()
    assert result.cost == {"tokens": 12.0, "usd": 1.0}


def test_a_run_that_raises_has_no_cost():
    outcomes = iter([Answer(True, {"usd": 1.0}), None])

    def run() -> Answer:
        answer = next(outcomes)
        if answer is None:
            raise RuntimeError("no answer")
        return answer

    result = evaluate([Task(run=run, passes=lambda answer: answer.ok)], k=2)
    assert result.runs["cost_usd"].tolist()[0] == 1.0
    assert np.isnan(result.runs["cost_usd"].iloc[1])
    assert result.cost == {"usd": 1.0}


async def async_answer() -> Answer:
    return Answer(True, {"usd": 0.25})


def plain_answer() -> Answer:
    return Answer(True, {"usd": 0.25})


def guard(fn: Any, ms: int) -> Any:
    return fn()


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"concurrency": 2},
        {"run_timeout_ms": 5_000},
        {"run_timeout_ms": 5_000, "concurrency": 2},
        {"run_timeout_ms": 5_000, "guard": guard},
    ],
    ids=["inline", "threads", "timed", "timed threads", "guard"],
)
@pytest.mark.parametrize("run", [plain_answer, async_answer], ids=["plain", "async"])
def test_the_cost_is_taken_on_every_path_of_the_runner(options, run):
    tasks = [Task(run=run, passes=lambda answer: answer.ok, id=i) for i in range(2)]
    result = evaluate(tasks, k=2, **options)
    assert result.runs["cost_usd"].tolist() == [0.25] * 4
    assert result.cost == {"usd": 1.0}


class Unmappable:
    def keys(self) -> list[str]:
        return ["usd"]


def hook_that_raises(answer: Answer) -> dict[str, float]:
    raise KeyError("usage")


@pytest.mark.parametrize(
    ("cost", "problem"),
    [
        ([("usd", 1.0)], "it is [('usd', 1.0)] (list), not a mapping of names to numbers"),
        (0.25, "it is 0.25 (float), not a mapping"),
        ({3: 1.0}, "its name 3 (int) is not text"),
        ({"usd": -0.5}, "its field 'usd' is -0.5 (float), not a finite number >= 0"),
        ({"usd": math.nan}, "its field 'usd' is nan (float), not a finite number >= 0"),
        ({"usd": math.inf}, "its field 'usd' is inf (float), not a finite number >= 0"),
        ({"usd": True}, "its field 'usd' is True (bool), not a finite number >= 0"),
        ({"usd": "0.25"}, "its field 'usd' is '0.25' (str), not a finite number >= 0"),
        ({"usd": 10**400}, "its field 'usd' is 1000"),
    ],
)
def test_a_wrong_cost_keeps_the_verdict_records_no_cost_and_warns_once(tmp_path, cost, problem):
    path = tmp_path / "ledger.jsonl"
    costs = iter([{"usd": 1.0}, cost, cost, {"usd": 2.0}])
    verdicts = iter([True, False, True, True])
    task = Task(run=lambda: Answer(next(verdicts), next(costs)), passes=lambda a: a.ok, id="t")
    with pytest.warns(RuntimeWarning) as warned:
        result = evaluate([task], k=4, ledger=path)
    (warning,) = warned
    message = str(warning.message)
    assert message.startswith("2 run(s) recorded no cost")
    assert f"run 1 of task 't': the cost from the result's cost attribute is wrong: {problem}" in (
        message
    )
    assert "Give a cost such as {'usd': 0.25, 'tokens': 1000}" in message
    assert result.runs["passed"].tolist() == [True, False, True, True]
    assert result.runs["cost_usd"].tolist()[::3] == [1.0, 2.0]
    assert np.isnan(result.runs["cost_usd"].to_numpy()[1:3]).all()
    assert result.cost == {"usd": 3.0}
    assert ["cost" in json.loads(line) for line in path.read_text().splitlines()[1:]] == [
        True,
        False,
        False,
        True,
    ]


def test_a_cost_hook_that_raises_is_named_in_the_warning():
    task = Task(run=lambda: Answer(True), passes=lambda a: a.ok, id="t", cost=hook_that_raises)
    with pytest.warns(RuntimeWarning, match="1 run\\(s\\) recorded no cost") as warned:
        result = evaluate([task], k=1)
    assert "run 0 of task 't': Task.cost raised KeyError: 'usage'" in str(warned[0].message)
    assert result.runs["passed"].tolist() == [True]
    assert "cost_usd" not in result.runs


def test_costs_recorded_before_a_resume_are_summed_with_the_new_ones(tmp_path):
    path = tmp_path / "ledger.jsonl"
    tasks = answer_tasks()
    evaluate(tasks[:1], k=3, ledger=path)
    result = evaluate(tasks, k=3, ledger=path, resume=True)
    assert result.runs["cost_usd"].tolist() == [usd for row in USD for usd in row]
    assert result.cost["tokens"] == sum(tokens for row in TOKENS for tokens in row)


def written_with_costs(path) -> list[str]:
    evaluate(answer_tasks(), k=3, ledger=path)
    return path.read_text().splitlines()


def test_a_cost_reads_the_same_when_a_ledger_is_read_line_by_line(tmp_path):
    """A time in another form sends the reading line by line: the costs read the same."""
    path = tmp_path / "ledger.jsonl"
    rows = written_with_costs(path)
    quick = pk.read_ledger(path).runs
    run = json.loads(rows[1])
    run["started_at"] = run["started_at"].replace("+00:00", "Z")
    rows[1] = json.dumps(run)
    path.write_text("\n".join(rows) + "\n")
    pd.testing.assert_frame_equal(pk.read_ledger(path).runs, quick)


@pytest.mark.parametrize(
    "cost",
    [[1], "usd", {"usd": -1}, {"usd": True}, {"usd": "1"}, {"usd": {"value": 1}}, 5],
)
def test_a_wrong_cost_in_a_ledger_is_refused_with_its_line(tmp_path, cost):
    path = tmp_path / "ledger.jsonl"
    rows = written_with_costs(path)
    run = json.loads(rows[2])
    run["cost"] = cost
    rows[2] = json.dumps(run)
    path.write_text("\n".join(rows) + "\n")
    expected = f"line 3 of {path} is not a run record: its field 'cost' is {cost!r}"
    for attempt in (
        lambda: pk.read_ledger(path),
        lambda: evaluate(answer_tasks(), k=3, ledger=path, resume=True),
    ):
        with pytest.raises(ValueError, match="the ledger is damaged") as refused:
            attempt()
        assert str(refused.value).startswith(expected)
        assert "not an object of names to finite numbers >= 0" in str(refused.value)


def test_a_null_cost_in_a_ledger_reads_as_none(tmp_path):
    path = tmp_path / "ledger.jsonl"
    rows = written_with_costs(path)
    run = json.loads(rows[1])
    run["cost"] = None
    rows[1] = json.dumps(run)
    path.write_text("\n".join(rows) + "\n")
    assert np.isnan(pk.read_ledger(path).runs["cost_usd"].iloc[0])


def test_the_cost_hook_of_an_async_evaluation():
    async def main() -> pk.EvalResult:
        task = Task(run=async_answer, passes=lambda answer: answer.ok, cost=lambda a: {"n": 1})
        return await pk.evaluate_async([task], k=3)

    assert asyncio.run(main()).cost == {"n": 3.0}


def test_a_cost_whose_key_is_written_with_escapes_is_read(tmp_path):
    path = tmp_path / "ledger.jsonl"
    rows = written_with_costs(path)
    quick = pk.read_ledger(path).runs
    path.write_text("\n".join(row.replace('"cost"', '"\\u0063ost"') for row in rows) + "\n")
    assert '"cost"' not in path.read_text()
    pd.testing.assert_frame_equal(pk.read_ledger(path).runs, quick)
