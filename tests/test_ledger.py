from __future__ import annotations

import datetime as dt
import itertools
import json
import os
import resource
import signal
import subprocess
import sys
import textwrap
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from test_harness_verdicts import finishes

import passk_lab as pk
from passk_lab import Task, evaluate
from passk_lab.cli import main
from passk_lab.harness._ledger_format import RunRecord
from passk_lab.harness._ledger_write import run_line, utc_iso

# A table of outcomes: run j of task i passes when OUTCOMES[i, j]. Tasks read it through a
# per-task call counter, so a run's outcome depends on its (task, run) and nothing else.
N_TASKS, K = 30, 4
OUTCOMES = np.random.default_rng(7).random((N_TASKS, K)) < 0.7


def table_tasks(
    start: dict[str, int] | None = None,
    delay: float = 0.0,
    hold_after: int | None = None,
    release: Path | None = None,
) -> list[Task[bool]]:
    """Tasks that play OUTCOMES; `start` gives the run each task begins at (for a resume).

    Past `hold_after` runs, a run writes `release` with ``.held`` appended and waits (a
    minute at most) until `release` exists: an evaluation that a test interrupts cannot
    have finished first, however slow the machine, and goes on once the test releases it.
    """
    calls = dict(start or {})
    made = []

    def hold() -> None:
        if release is None:
            time.sleep(60)
            return
        Path(f"{release}.held").touch()
        deadline = time.monotonic() + 60
        while not release.exists() and time.monotonic() < deadline:
            time.sleep(0.01)

    def make(task_id: str, row: np.ndarray):
        def run() -> bool:
            j = calls.get(task_id, 0)
            calls[task_id] = j + 1
            made.append(task_id)
            if hold_after is not None and len(made) > hold_after:
                hold()
            else:
                time.sleep(delay)
            return bool(row[j])

        return run

    return [Task(run=make(f"t{i}", OUTCOMES[i]), id=f"t{i}") for i in range(N_TASKS)]


def lines(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


# --- writing and reading -------------------------------------------------------------------


def test_read_ledger_gives_back_the_runs_table_and_the_header(tmp_path):
    path = tmp_path / "ledger.jsonl"
    before = dt.datetime.now(dt.UTC)
    result = evaluate(
        table_tasks(), K, ledger=path, model="table-agent", seed=7, metadata={"split": "test"}
    )
    runs, header = pk.read_ledger(path)
    pd.testing.assert_frame_equal(runs, result.runs)
    assert header == result.header
    assert header["model"] == "table-agent"
    assert header["seed"] == 7
    assert header["metadata"] == {"split": "test"}
    assert header["passk_lab"] == pk.__version__
    assert (header["k"], header["tasks"]) == (K, [f"t{i}" for i in range(N_TASKS)])
    assert before <= dt.datetime.fromisoformat(header["date"]) <= dt.datetime.now(dt.UTC)
    assert runs["passed"].to_numpy().reshape(N_TASKS, K).tolist() == OUTCOMES.tolist()
    assert pk.pass_pow_k(runs, K) == result.pass_pow_k == OUTCOMES.all(axis=1).mean()


def test_each_run_is_on_disk_as_soon_as_it_finishes(tmp_path):
    path = tmp_path / "ledger.jsonl"
    seen = []

    def run() -> bool:
        seen.append(len(path.read_text().splitlines()))
        return True

    evaluate([Task(run=run) for _ in range(3)], k=2, ledger=path)
    assert seen == [1, 2, 3, 4, 5, 6]  # the header, then one line per finished run


def test_a_ledger_line_holds_every_field_of_the_run(tmp_path):
    path = tmp_path / "ledger.jsonl"

    def run() -> bool:
        raise ConnectionError("reset by peer")

    evaluate([Task(run=run, id=3)], k=1, ledger=path, infrastructure=ConnectionError, retries=0)
    (line,) = lines(path)[1:]
    started = line.pop("started_at")
    assert dt.datetime.fromisoformat(started).tzinfo == dt.UTC
    assert line.pop("duration_s") >= 0
    assert line == {
        "task": 3,
        "run": 0,
        "passed": False,
        "error_type": "ConnectionError",
        "error_message": "reset by peer",
        "error_kind": "infrastructure",
        "timed_out": False,
        "attempts": 1,
    }


def test_numpy_integer_ids_are_recorded_as_integers(tmp_path):
    path = tmp_path / "ledger.jsonl"
    evaluate([Task(run=lambda: True, id=np.int64(5))], k=1, ledger=path)
    assert lines(path)[0]["tasks"] == [5]
    assert pk.read_ledger(path).runs["task"].tolist() == [5]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"tasks": [Task(run=lambda: True, id=("a", 1))]}, r"tasks\[0\] has the id \('a', 1\)"),
        ({"tasks": [Task(run=lambda: True, id=True)]}, r"give the Task an int or str id"),
        ({"metadata": {"when": dt.date(2026, 1, 1)}}, "metadata must hold only JSON values"),
        ({"metadata": {"score": float("nan")}}, "metadata must hold only JSON values"),
    ],
)
def test_what_a_ledger_cannot_hold_is_refused(tmp_path, options, message):
    arguments = {"tasks": [Task(run=lambda: True)], **options}
    with pytest.raises(TypeError, match=message):
        evaluate(arguments.pop("tasks"), 1, ledger=tmp_path / "ledger.jsonl", **arguments)


def test_an_existing_ledger_is_not_overwritten(tmp_path):
    path = tmp_path / "ledger.jsonl"
    evaluate([Task(run=lambda: True)], 1, ledger=path)
    before = path.read_bytes()
    with pytest.raises(ValueError, match="already exists; pass resume=True"):
        evaluate([Task(run=lambda: True)], 1, ledger=path)
    assert path.read_bytes() == before


def test_a_directory_is_not_a_ledger(tmp_path):
    with pytest.raises(ValueError, match="not a regular file \\(a directory\\); give a ledger"):
        evaluate([Task(run=lambda: True)], 1, ledger=tmp_path)


def refusal(attempt: Callable[[], object]) -> str:
    """Return the refusal `attempt` raises, failing (not hanging) if it blocks 10 s."""

    def refused() -> str:
        with pytest.raises(ValueError, match="not a regular file") as error:
            attempt()
        return str(error.value)

    return str(finishes(refused, 10))


def exit_status(argv: list[str]) -> object:
    """Return the exit status of the command line, returned or raised as SystemExit."""
    try:
        return main(argv)
    except SystemExit as exited:
        return exited.code


@pytest.mark.parametrize("resume", [False, True])
def test_a_fifo_is_refused_before_it_is_opened(tmp_path, capsys, resume):
    fifo = tmp_path / "ledger.jsonl"
    os.mkfifo(fifo)  # opened, it would wait for a writer (or a reader) forever
    expected = f"{fifo}: not a regular file (a FIFO); give a ledger file"
    assert refusal(lambda: pk.read_ledger(fifo)) == expected
    assert refusal(lambda: evaluate(table_tasks(), K, ledger=fifo, resume=resume)) == expected
    assert finishes(lambda: exit_status(["analyze", str(fifo), "--format", "ledger"]), 10) == 2
    assert expected in capsys.readouterr().err


def test_a_device_is_refused_as_a_ledger():
    expected = "/dev/null: not a regular file (a character device); give a ledger file"
    with pytest.raises(ValueError, match="not a regular file") as refused:
        evaluate(table_tasks(), K, ledger="/dev/null", resume=True)
    assert str(refused.value) == expected
    with pytest.raises(ValueError, match="not a regular file") as refused:
        pk.read_ledger("/dev/zero")  # read, it would never end
    assert str(refused.value) == expected.replace("null", "zero")


def test_a_missing_ledger_is_named_when_read(tmp_path):
    with pytest.raises(FileNotFoundError, match=f"^no such ledger file: {tmp_path / 'no.jsonl'}$"):
        pk.read_ledger(tmp_path / "no.jsonl")


def refusals_when_read_and_resumed(path, match: str) -> list[str]:
    """The messages with which read_ledger and a resume (the ledger's two readers) refuse it."""
    messages = []
    for attempt in (
        lambda: pk.read_ledger(path),
        lambda: evaluate(table_tasks(), K, ledger=path, resume=True),
    ):
        with pytest.raises(ValueError, match=match) as refused:
            attempt()
        messages.append(str(refused.value))
    return messages


def test_a_ledger_that_is_not_utf8_is_refused_at_its_first_bad_byte(tmp_path):
    path = tmp_path / "ledger.jsonl"
    evaluate(table_tasks(), K, ledger=path)
    first, second, rest = path.read_bytes().split(b"\n", 2)
    path.write_bytes(first + b"\n" + second + b"\n" + b'{"task": "caf\xe9"}\n' + rest)
    byte = len(first) + len(second) + 2 + len(b'{"task": "caf')
    expected = f"{path}: not UTF-8 text at byte {byte} (line 3); save the file as UTF-8"
    assert refusals_when_read_and_resumed(path, "not UTF-8 text") == [expected, expected]


# --- resume --------------------------------------------------------------------------------


def interrupted_after(runs: int, path, **options) -> None:
    """Evaluate the table tasks into `path`, stopping with Ctrl-C after `runs` runs."""
    calls = itertools.count()
    tasks = table_tasks()

    def stop_at(task: Task[bool]) -> Task[bool]:
        def run() -> bool:
            if next(calls) == runs:
                raise KeyboardInterrupt
            return task.run()  # type: ignore[return-value]

        return Task(run=run, id=task.id)

    with pytest.raises(KeyboardInterrupt):
        evaluate([stop_at(task) for task in tasks], K, ledger=path, **options)


def test_resume_runs_only_what_is_missing_and_returns_the_whole_evaluation(tmp_path):
    path = tmp_path / "ledger.jsonl"
    interrupted_after(50, path, model="m", seed=1)
    recorded = pk.read_ledger(path).runs
    assert len(recorded) == 50
    start = recorded.groupby("task")["run"].count().to_dict()  # runs go in order here
    tasks = table_tasks(start)
    result = evaluate(tasks, K, ledger=path, resume=True, model="m", seed=1)
    runs = result.runs
    assert len(runs) == N_TASKS * K
    assert not runs.duplicated(["task", "run"]).any()
    assert runs["passed"].to_numpy().reshape(N_TASKS, K).tolist() == OUTCOMES.tolist()
    uninterrupted = evaluate(table_tasks(), K)
    assert (result.pass_at_1, result.pass_pow_k) == (
        uninterrupted.pass_at_1,
        uninterrupted.pass_pow_k,
    )
    pd.testing.assert_frame_equal(pk.read_ledger(path).runs, runs)
    assert len(lines(path)) == 1 + 1 + N_TASKS * K  # the header, the resumption, the runs


def test_resume_keeps_the_ledgers_header(tmp_path):
    path = tmp_path / "ledger.jsonl"
    interrupted_after(3, path, metadata={"note": "first"})
    header = lines(path)[0]
    time.sleep(0.002)  # a resumed evaluation starts later: its own date would differ
    result = evaluate(
        table_tasks({"t0": 3}), K, ledger=path, resume=True, metadata={"note": "first"}
    )
    (resumption,) = result.header.pop("resumptions")
    assert result.header == header
    assert lines(path)[0] == header
    assert resumption["resumed"] > header["date"]


def test_resume_without_a_ledger_file_starts_one(tmp_path):
    path = tmp_path / "new.jsonl"
    result = evaluate(table_tasks(), K, ledger=path, resume=True)
    assert len(pk.read_ledger(path).runs) == N_TASKS * K == len(result.runs)


@pytest.mark.parametrize(
    ("changes", "difference"),
    [
        ({"model": "gpt-5"}, "model: the ledger has 'gpt-4o', this evaluation has 'gpt-5'"),
        ({"seed": 2}, "seed: the ledger has 1, this evaluation has 2"),
        ({"run_timeout_ms": 500}, "run_timeout_ms: the ledger has None, this evaluation has 500"),
        ({"timeout_ms": 9000}, "timeout_ms: the ledger has None, this evaluation has 9000"),
        ({"metadata": {"prompt": "v2"}}, "metadata: the ledger has {}, this evaluation has {'pro"),
    ],
)
def test_a_ledger_of_another_evaluation_is_refused(tmp_path, changes, difference):
    path = tmp_path / "ledger.jsonl"
    interrupted_after(10, path, model="gpt-4o", seed=1)
    before = path.read_bytes()
    arguments = {"tasks": table_tasks(), "k": K, "model": "gpt-4o", "seed": 1, **changes}
    with pytest.raises(ValueError, match="records another evaluation") as refused:
        evaluate(arguments.pop("tasks"), arguments.pop("k"), ledger=path, resume=True, **arguments)
    assert difference in str(refused.value)
    assert path.read_bytes() == before


def test_every_difference_is_named(tmp_path):
    path = tmp_path / "ledger.jsonl"
    interrupted_after(10, path, model="a", seed=1)
    with pytest.raises(ValueError, match=r"\(model: .*; seed: .*; metadata: .*\)"):
        evaluate(table_tasks(), K, ledger=path, resume=True, model="b", seed=2, metadata={"v": 2})


# --- damaged ledgers -----------------------------------------------------------------------


def test_a_half_written_last_line_is_ignored_and_its_run_run_again(tmp_path):
    path = tmp_path / "ledger.jsonl"
    evaluate(table_tasks(), K, ledger=path)
    whole = path.read_bytes()
    last = whole.rstrip(b"\n").rfind(b"\n") + 1
    path.write_bytes(whole[: last + 25])  # the last run, cut off mid-write
    with pytest.warns(UserWarning, match="ignored a half-written last line"):
        runs = pk.read_ledger(path).runs
    assert len(runs) == N_TASKS * K - 1
    with pytest.warns(UserWarning, match="ignored a half-written last line"):
        result = evaluate(
            table_tasks({f"t{i}": K for i in range(N_TASKS - 1)} | {f"t{N_TASKS - 1}": K - 1}),
            K,
            ledger=path,
            resume=True,
        )
    assert result.pass_pow_k == OUTCOMES.all(axis=1).mean()
    assert len(lines(path)) == 1 + 1 + N_TASKS * K  # every line whole again, and the resumption
    assert path.read_bytes()[:last] == whole[:last]


def test_the_half_written_line_warning_names_the_callers_file(tmp_path):
    path = tmp_path / "ledger.jsonl"
    evaluate(table_tasks(), K, ledger=path)
    path.write_bytes(path.read_bytes()[:-5])
    with pytest.warns(UserWarning, match="half-written") as read:
        pk.read_ledger(path)
    with pytest.warns(UserWarning, match="half-written") as resumed:
        evaluate(table_tasks(), K, ledger=path, resume=True)
    assert [read[0].filename, resumed[0].filename] == [__file__, __file__]


def cut_short(text: str, line: int) -> str:
    """Drop the last character of one line (1-based), its closing brace."""
    rows = text.split("\n")
    rows[line - 1] = rows[line - 1][:-1]
    return "\n".join(rows)


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda text: text.replace('"run":1', '"run":0', 1), "a second time"),
        (lambda text: text.replace('"run":1', '"run":9', 1), "do not include"),
        (lambda text: text.replace('"task":"t0"', '"task":"x"', 1), "do not include"),
        (lambda text: text.replace('"passed"', '"pass"', 1), "line 2 of .* is not a run record"),
        (lambda text: cut_short(text, line=2), "line 2 of .* is not JSON"),
        (lambda text: text.replace('"run":1', '"run":1' + "0" * 5000, 1), "line 3 .* not JSON"),
        (lambda text: text.replace('"run":1', '"run":' + "[" * 10**5, 1), "line 3 .* not JSON"),
        (lambda text: text.split("\n", 1)[1], "is not a passk_lab ledger"),
        (lambda text: text.replace('"format_version":2', '"format_version":9'), "version 9"),
    ],
)
def test_a_damaged_ledger_is_refused(tmp_path, damage, message):
    path = tmp_path / "ledger.jsonl"
    evaluate(table_tasks()[:2], K, ledger=path)
    path.write_text(damage(path.read_text().replace(": ", ":").replace(", ", ",")))
    with pytest.raises(ValueError, match=message):
        pk.read_ledger(path)


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("passed", "false", "true or false"),
        ("passed", 0.5, "true or false"),
        ("passed", None, "true or false"),
        ("timed_out", 1, "true or false"),
        ("run", -1, "an integer >= 0"),
        ("run", 1.0, "an integer >= 0"),
        ("task", ["t0"], "a task id"),
        ("error_type", 7, "text or null"),
        ("error_message", False, "text or null"),
        ("error_kind", "network", "null or"),
        ("attempts", 0, "an integer >= 1"),
        ("duration_s", "fast", "a number of seconds >= 0"),
        ("duration_s", -1.0, "a number of seconds >= 0"),
        pytest.param("duration_s", 10**400, "a number of seconds >= 0", id="10**400 s"),
        ("started_at", "yesterday", "an ISO 8601 time with its UTC offset"),
        ("started_at", "2026-01-01T00:00:00", "an ISO 8601 time with its UTC offset"),
        ("started_at", 17, "an ISO 8601 time with its UTC offset"),
        ("started_at", "0000-01-01T00:00:00.000000+00:00", "an ISO 8601 time"),  # no year 0
        ("started_at", "2026-02-30T00:00:00.000000+00:00", "an ISO 8601 time"),
        ("duration_s", float("nan"), "a number of seconds >= 0"),
    ],
)
def test_every_field_of_a_run_line_is_checked_when_read_and_when_resumed(
    tmp_path, field, value, expected
):
    path = tmp_path / "ledger.jsonl"
    interrupted_after(3, path)
    rows = path.read_text().splitlines()
    run = json.loads(rows[2])
    run[field] = value
    rows[2] = json.dumps(run)
    path.write_text("\n".join(rows) + "\n")
    before = path.read_bytes()
    message = f"line 3 of {path} is not a run record: its field '{field}' is {value!r}"
    for refused in refusals_when_read_and_resumed(path, "the ledger is damaged"):
        assert refused.startswith(message)
        assert f"not {expected}" in refused
        assert "delete it and resume=True runs that run again" in refused
    assert path.read_bytes() == before


def test_the_first_damaged_line_is_named_whatever_the_damage_after_it(tmp_path):
    path = tmp_path / "ledger.jsonl"
    evaluate(table_tasks(), K, ledger=path)
    rows = path.read_text().splitlines()
    rows[2] = rows[2].replace('"attempts":1', '"attempts":0')
    rows[3] = rows[3][:-5]  # not JSON
    path.write_text("\n".join(rows) + "\n")
    with pytest.raises(ValueError, match=f"^line 3 of {path} .* field 'attempts' is 0"):
        pk.read_ledger(path)


def test_a_time_written_in_another_form_reads_as_the_same_moment(tmp_path):
    """A ledger's times are read quickly in the form it writes them, and any other way too."""
    path = tmp_path / "ledger.jsonl"
    evaluate(table_tasks(), K, ledger=path)
    rows = path.read_text().splitlines()
    forms = ["2026-03-01T01:30:00.5+01:00", "2026-03-01T00:30:00.500000Z", "2026-03-01 00:30:00.5Z"]
    for number, form in enumerate(forms, start=1):
        run = json.loads(rows[number])
        run["started_at"] = form
        rows[number] = json.dumps(run)
    path.write_text("\n".join(rows) + "\n")
    started = pk.read_ledger(path).runs["started_at"]
    moment = dt.datetime(2026, 3, 1, 0, 30, 0, 500_000, tzinfo=dt.UTC)
    assert started.iloc[:3].tolist() == [moment] * 3  # task t0's runs 0 to 2
    assert started.iloc[3:].tolist() == [
        dt.datetime.fromisoformat(json.loads(row)["started_at"]) for row in rows[4:]
    ]


def test_a_run_line_without_a_field_names_it(tmp_path):
    path = tmp_path / "ledger.jsonl"
    interrupted_after(3, path)
    rows = path.read_text().splitlines()
    run = json.loads(rows[1])
    del run["timed_out"]
    path.write_text("\n".join([rows[0], json.dumps(run), *rows[2:]]) + "\n")
    with pytest.raises(ValueError, match=r"line 2 of .* has no field 'timed_out'"):
        pk.read_ledger(path)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("tasks", None, "it has no field 'tasks'"),
        ("k", "4", "its field 'k' is '4' \\(str\\), not a positive integer"),
        ("k", 0, "its field 'k' is 0 \\(int\\), not a positive integer"),
        ("tasks", "t0", "its field 'tasks' is 't0' \\(str\\), not a list of task ids"),
        ("tasks", ["t0", "t0"], "its field 'tasks' names 't0' more than once"),
        ("date", "last Tuesday", "its field 'date' is 'last Tuesday' \\(str\\), not an ISO"),
        ("date", "2026-01-01", "its field 'date' is '2026-01-01' \\(str\\), not an ISO"),
        ("seed", "1", "its field 'seed' is '1' \\(str\\), not an integer or null"),
        ("model", 5, "its field 'model' is 5 \\(int\\), not text or null"),
        ("run_timeout_ms", "500", "its field 'run_timeout_ms' is '500' \\(str\\), not a pos"),
        pytest.param(
            "timeout_ms",
            10**400,  # below math.inf as an int, past every float
            f"its field 'timeout_ms' is {10**400} \\(int\\), not a positive number",
            id="10**400 ms",
        ),
        ("metadata", [], "its field 'metadata' is \\[\\] \\(list\\), not an object"),
    ],
)
def test_every_field_of_the_header_is_checked(tmp_path, field, value, message):
    path = tmp_path / "ledger.jsonl"
    interrupted_after(3, path)
    rows = path.read_text().splitlines()
    head = json.loads(rows[0])
    if value is None:
        del head[field]
    else:
        head[field] = value
    path.write_text("\n".join([json.dumps(head), *rows[1:]]) + "\n")
    for refused in refusals_when_read_and_resumed(path, f"^line 1 of {path} .*{message}"):
        assert "start a new ledger" in refused


def test_an_empty_ledger_has_nothing_to_read_and_is_started_afresh(tmp_path):
    path = tmp_path / "ledger.jsonl"
    path.write_bytes(b"")
    with pytest.raises(ValueError, match="is empty: the evaluation stopped before"):
        pk.read_ledger(path)
    evaluate(table_tasks(), K, ledger=path, resume=True)
    assert len(pk.read_ledger(path).runs) == N_TASKS * K


# --- a real process, killed and interrupted ------------------------------------------------

CHILD = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    sys.path.insert(0, {tests!r})
    import passk_lab as pk
    from test_ledger import K, table_tasks

    path = sys.argv[1]
    try:
        start = pk.read_ledger(path).runs.groupby("task")["run"].count().to_dict()
    except FileNotFoundError:
        start = {{}}
    hold = int(sys.argv[2]) if len(sys.argv) > 2 else None
    release = Path(sys.argv[3]) if len(sys.argv) > 3 else None
    tasks = table_tasks(start, delay=0.01, hold_after=hold, release=release)
    result = pk.evaluate(tasks, K, ledger=path, resume=True, model="m")
    print(json.dumps([result.pass_at_1, result.pass_pow_k]))
    """
)


@pytest.fixture
def child(tmp_path):
    script = tmp_path / "child.py"
    script.write_text(CHILD.format(tests=os.path.dirname(__file__)))
    ledger = tmp_path / "ledger.jsonl"

    def start(
        preexec_fn: Callable[[], None] | None = None,
        hold_after: int | None = None,
        release: Path | None = None,
    ) -> subprocess.Popen[str]:
        held = [] if hold_after is None else [str(hold_after)]
        held += [] if release is None else [str(release)]
        return subprocess.Popen(
            [sys.executable, str(script), str(ledger), *held],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=preexec_fn,
        )

    return start, ledger


def wait_for_lines(path, count: int, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 60
    while not path.exists() or path.read_bytes().count(b"\n") < count:
        assert process.poll() is None, process.communicate()[1]
        assert time.monotonic() < deadline, "the evaluation made no progress"
        time.sleep(0.005)


def test_a_killed_evaluation_resumes_to_every_run_exactly_once(child):
    start, ledger = child
    process = start(hold_after=60)  # runs past the sixtieth wait for the kill
    wait_for_lines(ledger, 1 + 45, process)
    process.send_signal(signal.SIGKILL)
    process.communicate()
    recorded = ledger.read_bytes().count(b"\n") - 1
    assert 45 <= recorded < N_TASKS * K, "the kill did not land part way"

    resumed = start()
    out, err = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, err
    runs = pk.read_ledger(ledger).runs
    assert len(runs) == N_TASKS * K
    assert not runs.duplicated(["task", "run"]).any()
    assert runs["passed"].to_numpy().reshape(N_TASKS, K).tolist() == OUTCOMES.tolist()
    uninterrupted = evaluate(table_tasks(), K)
    assert json.loads(out) == [uninterrupted.pass_at_1, uninterrupted.pass_pow_k]
    assert uninterrupted.pass_pow_k == OUTCOMES.all(axis=1).mean()


def test_a_full_disk_loses_no_run_and_resume_finishes_every_run_once(child, tmp_path):
    # the most bytes the child may write (RLIMIT_FSIZE, the kernel's EFBIG, as a full disk's
    # ENOSPC): the end of its 20th run line and half of the next, so a write fails mid-line
    whole = tmp_path / "whole.jsonl"
    evaluate(table_tasks(), K, ledger=whole, model="m")
    ends = np.cumsum([len(line) for line in whole.read_bytes().splitlines(keepends=True)])
    limit = int(ends[20] + (ends[21] - ends[20]) // 2)

    def full_disk() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a failed write, not a killed process
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    start, ledger = child
    process = start(preexec_fn=full_disk)
    _, err = process.communicate(timeout=120)
    assert process.returncode != 0
    assert "File too large" in err
    assert ledger.stat().st_size == limit  # the 20th run whole, then half a line
    with pytest.warns(UserWarning, match="ignored a half-written last line"):
        assert len(pk.read_ledger(ledger).runs) == 20
    resumed = start()
    out, err = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, err
    runs = pk.read_ledger(ledger).runs
    assert len(runs) == N_TASKS * K
    assert not runs.duplicated(["task", "run"]).any()
    assert runs["passed"].to_numpy().reshape(N_TASKS, K).tolist() == OUTCOMES.tolist()
    uninterrupted = pk.read_ledger(whole).runs
    assert json.loads(out) == [pk.pass_at_1(uninterrupted), pk.pass_pow_k(uninterrupted, K)]


def test_ctrl_c_on_a_real_process_keeps_its_runs_and_prints_how_to_resume(child):
    start, ledger = child
    release = ledger.parent / "release"
    process = start(hold_after=20, release=release)  # the 21st run waits for the Ctrl-C
    try:
        wait_for_lines(Path(f"{release}.held"), 0, process)
        process.send_signal(signal.SIGINT)
        release.touch()
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode != 0
    assert "KeyboardInterrupt" in err
    recorded = len(pk.read_ledger(ledger).runs)
    assert recorded < N_TASKS * K, "Ctrl-C did not stop the evaluation"
    assert f"{recorded} of {N_TASKS * K} runs are recorded in the ledger" in err
    assert "resume=True" in err


# --- the lines, written field by field -----------------------------------------------------

TEXTS = [
    "",
    "plain",
    'a "quoted" \\ back\\slash',
    "line\nbreak\ttab\r\x00\x1f",
    "é ü 中文",
    "😀 \u2028\u2029",
    "\ud800",
]


def records_of_every_kind(rng: np.random.Generator, count: int) -> list[RunRecord]:
    """Records of every kind of field value a run can have, drawn at random."""
    ids: list[int | str] = [0, -3, 2**70, *TEXTS]
    texts: list[str | None] = [None, *TEXTS]
    records = []
    for _ in range(count):
        records.append(
            RunRecord(
                task=ids[rng.integers(len(ids))],
                run=int(rng.integers(0, 1000)),
                passed=bool(rng.integers(2)),
                error_type=texts[rng.integers(len(texts))],
                error_message=texts[rng.integers(len(texts))],
                error_kind=[None, *pk.ERROR_KINDS][rng.integers(4)],
                timed_out=bool(rng.integers(2)),
                attempts=int(rng.integers(1, 5)),
                # from 1900 to 2100
                started_at_us=int(rng.integers(-2_208_988_800, 4_102_444_800) * 10**6)
                + int(rng.integers(0, 10**6)),
                duration_s=float(rng.choice([0.0, 1e-7, 0.1 + 0.2, 12_345.678, rng.random()])),
                cost=[None, {}, {"usd": 0.1 + 0.2, "tokens": 1000}, {TEXTS[-1]: 2**70}][
                    rng.integers(4)
                ],
            )
        )
    return records


def utc_iso_from_datetime(microseconds: int) -> str:
    moment = dt.datetime(1970, 1, 1, tzinfo=dt.UTC) + dt.timedelta(microseconds=microseconds)
    return moment.isoformat(timespec="microseconds")


def test_a_run_line_is_the_compact_json_of_the_runs_fields():
    for record in records_of_every_kind(np.random.default_rng(5), 2_000):
        content = record._asdict()
        cost = content.pop("cost")
        content["started_at"] = utc_iso_from_datetime(content.pop("started_at_us"))
        if cost is not None:  # last, and only when the run has one
            content["cost"] = cost
        expected = json.dumps(content, separators=(",", ":")) + "\n"
        assert run_line(record) == expected, record
        assert json.loads(run_line(record)) == json.loads(expected)


@pytest.mark.parametrize("second", [-1, 0, 1, 1_700_000_000, 253_402_300_798])  # 9999-12-31
def test_times_around_a_second_read_as_datetime_writes_them(second):
    around = [second * 10**6 + offset for offset in (-1, 0, 1, 999_999, 10**6, -1, 0)]
    assert [utc_iso(us) for us in around] == [utc_iso_from_datetime(us) for us in around]


def test_each_run_is_on_disk_before_the_next_verdict_when_runs_overlap(tmp_path):
    path = tmp_path / "ledger.jsonl"
    seen = []

    def run() -> bool:
        time.sleep(0.001)
        return True

    def passes(result: bool) -> bool:  # the verdict: on the loop, just before the record
        seen.append(len(path.read_text().splitlines()))
        return result

    evaluate([Task(run=run, passes=passes) for _ in range(6)], k=3, concurrency=4, ledger=path)
    assert seen == list(range(1, 19))  # the header, then every run judged before this one
    assert len(lines(path)) == 1 + 18


# --- growing an evaluation: resumption lines -----------------------------------------------


def counted_tasks(start: dict[str, int] | None = None) -> tuple[list[Task[bool]], Counter]:
    """The table tasks (each from its run in `start`), and the calls each (task, run) gets."""
    calls: Counter = Counter()
    made = Counter(start or {})  # the run each task makes next

    def counting(task: Task[bool]) -> Task[bool]:
        def run() -> bool:
            calls[task.id, made[task.id]] += 1
            made[task.id] += 1
            return task.run()  # type: ignore[return-value]

        return Task(run=run, id=task.id)

    return [counting(task) for task in table_tasks(start)], calls


def test_resuming_with_a_larger_k_runs_exactly_the_new_runs(tmp_path):
    path = tmp_path / "ledger.jsonl"
    evaluate(table_tasks(), 2, ledger=path)
    tasks, calls = counted_tasks({f"t{i}": 2 for i in range(N_TASKS)})
    result = evaluate(tasks, K, ledger=path, resume=True)
    assert calls == Counter({(f"t{i}", run): 1 for i in range(N_TASKS) for run in range(2, K)})
    assert result.k == K
    assert result.runs["passed"].to_numpy().reshape(N_TASKS, K).tolist() == OUTCOMES.tolist()
    assert result.pass_pow_k == OUTCOMES.all(axis=1).mean()
    assert result.header["k"] == K
    pd.testing.assert_frame_equal(pk.read_ledger(path).runs, result.runs)


def test_resuming_with_more_tasks_runs_only_the_new_tasks_runs(tmp_path):
    path = tmp_path / "ledger.jsonl"
    evaluate(table_tasks()[:10], K, ledger=path)
    tasks, calls = counted_tasks()
    result = evaluate(tasks, K, ledger=path, resume=True)
    assert calls == Counter({(f"t{i}", run): 1 for i in range(10, N_TASKS) for run in range(K)})
    assert result.tasks == N_TASKS
    assert result.runs["passed"].to_numpy().reshape(N_TASKS, K).tolist() == OUTCOMES.tolist()
    assert result.header["tasks"] == [f"t{i}" for i in range(N_TASKS)]


def test_a_grown_evaluation_returns_its_runs_in_the_callers_task_order(tmp_path):
    path = tmp_path / "ledger.jsonl"
    evaluate(table_tasks()[:10], K, ledger=path)
    tasks = table_tasks({f"t{i}": K for i in range(10)})
    order = [*tasks[20:], *tasks[5:10], *tasks[10:20], *tasks[:5]]
    result = evaluate(order, K, ledger=path, resume=True)
    ids = [task.id for task in order]
    assert result.runs["task"].tolist() == [task_id for task_id in ids for _ in range(K)]
    # the effective header: the ledger's tasks in their order, then the added ones as given
    added = [task_id for task_id in ids if task_id not in {f"t{i}" for i in range(10)}]
    assert result.header["tasks"] == [f"t{i}" for i in range(10)] + added
    assert result.header["resumptions"][0]["tasks_added"] == added
    assert pk.read_ledger(path).runs["task"].tolist()[::K] == result.header["tasks"]


def test_every_resumption_is_recorded_and_returned(tmp_path):
    path = tmp_path / "ledger.jsonl"
    first = evaluate(table_tasks()[:2], 2, ledger=path, model="m")
    assert first.header["resumptions"] == []
    assert pk.read_ledger(path).header["resumptions"] == []
    evaluate(table_tasks()[:2], 2, ledger=path, resume=True, model="m")  # changes nothing
    grown = evaluate(table_tasks()[:3], 3, ledger=path, resume=True, model="m")
    written = lines(path)
    resumptions = [line for line in written if "resumed" in line]
    assert [written.index(line) for line in resumptions] == [1 + 4, 1 + 4 + 1]
    assert [(line["k"], line["tasks_added"], line["adaptive"]) for line in resumptions] == [
        (2, [], None),
        (3, ["t2"], None),
    ]
    assert all(line["passk_lab"] == pk.__version__ for line in resumptions)
    assert first.header["date"] < resumptions[0]["resumed"] < resumptions[1]["resumed"]
    header = pk.read_ledger(path).header
    assert header == grown.header
    assert header["resumptions"] == resumptions
    assert (header["k"], header["tasks"], header["date"]) == (
        3,
        ["t0", "t1", "t2"],
        written[0]["date"],
    )
    assert len(grown.runs) == 9


def test_a_smaller_k_is_refused(tmp_path):
    path = tmp_path / "ledger.jsonl"
    evaluate(table_tasks(), K, ledger=path)
    before = path.read_bytes()
    with pytest.raises(ValueError, match=f"with k = 2: the ledger already has k = {K}") as refused:
        evaluate(table_tasks(), 2, ledger=path, resume=True)
    assert f"resume with k >= {K}" in str(refused.value)
    assert path.read_bytes() == before


def test_a_dropped_task_is_refused(tmp_path):
    path = tmp_path / "ledger.jsonl"
    evaluate(table_tasks(), K, ledger=path)
    before = path.read_bytes()
    with pytest.raises(ValueError, match="lacks") as refused:
        evaluate(table_tasks()[5:], K + 1, ledger=path, resume=True)
    message = str(refused.value)
    assert "the ledger has 5 task(s) this evaluation lacks ('t0', 't1', 't2', ...)" in message
    assert "pass every task it has" in message
    assert path.read_bytes() == before


def test_a_changed_model_is_refused_even_when_the_evaluation_grows(tmp_path):
    path = tmp_path / "ledger.jsonl"
    evaluate(table_tasks()[:3], 2, ledger=path, model="a")
    with pytest.raises(ValueError, match="model: the ledger has 'a', this evaluation has 'b'"):
        evaluate(table_tasks(), K, ledger=path, resume=True, model="b")


def version_1(path) -> list[dict]:
    """Write a ledger of two tasks, k = 2, three runs done, as version 1 wrote them."""
    head = {
        "format": "passk_lab.ledger",
        "format_version": 1,
        "model": "old",
        "date": "2026-01-05T10:00:00.000000+00:00",
        "seed": 3,
        "passk_lab": "0.0.9",
        "k": 2,
        "tasks": ["t0", "t1"],
        "timeout_ms": None,
        "run_timeout_ms": None,
        "metadata": {},
    }
    runs = [
        {
            "task": task,
            "run": run,
            "passed": bool(OUTCOMES[int(task[1]), run]),
            "error_type": None,
            "error_message": None,
            "error_kind": None,
            "timed_out": False,
            "attempts": 1,
            "duration_s": 0.5,
            "started_at": f"2026-01-05T10:00:0{number}.000000+00:00",
        }
        for number, (task, run) in enumerate([("t0", 0), ("t0", 1), ("t1", 0)])
    ]
    path.write_text(json.dumps(head) + "\n" + "".join(json.dumps(run) + "\n" for run in runs))
    return [head, *runs]


def test_a_version_1_ledger_reads_and_resumes(tmp_path):
    path = tmp_path / "ledger.jsonl"
    head, *runs = version_1(path)
    ledger = pk.read_ledger(path)
    assert ledger.header == {**head, "adaptive": None, "resumptions": []}
    assert ledger.runs[["task", "run"]].to_numpy().tolist() == [["t0", 0], ["t0", 1], ["t1", 0]]
    assert ledger.runs["passed"].tolist() == [run["passed"] for run in runs]
    tasks, calls = counted_tasks({"t0": 2, "t1": 1})
    result = evaluate(tasks[:3], 3, ledger=path, resume=True, model="old", seed=3)
    expected = [("t0", 2), ("t1", 1), ("t1", 2), ("t2", 0), ("t2", 1), ("t2", 2)]
    assert calls == Counter(dict.fromkeys(expected, 1))
    assert result.runs["passed"].to_numpy().reshape(3, 3).tolist() == OUTCOMES[:3, :3].tolist()
    assert lines(path)[0] == head  # the version-1 header stays; version-2 lines follow it
    assert lines(path)[4]["tasks_added"] == ["t2"]
    assert pk.read_ledger(path).header["format_version"] == 1


def test_a_version_1_header_with_no_adaptive_field_is_read_but_a_version_2_one_is_refused(tmp_path):
    path = tmp_path / "ledger.jsonl"
    evaluate(table_tasks()[:2], 2, ledger=path)
    rows = path.read_text().splitlines()
    head = json.loads(rows[0])
    del head["adaptive"]
    path.write_text("\n".join([json.dumps(head), *rows[1:]]) + "\n")
    with pytest.raises(ValueError, match=r"line 1 of .* has no field 'adaptive'"):
        pk.read_ledger(path)


def resumed_ledger(path) -> list[str]:
    """A ledger of three tasks, grown once from two (k = 2 to 3): its lines as text."""
    evaluate(table_tasks()[:2], 2, ledger=path)
    evaluate(table_tasks({"t0": 2, "t1": 2})[:3], 3, ledger=path, resume=True)
    return path.read_text().splitlines()


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("resumed", "yesterday", "its field 'resumed' is 'yesterday' \\(str\\), not an ISO 8601"),
        ("k", 1, "its field 'k' is 1, below the k = 2 in force before it"),
        ("k", "3", "its field 'k' is '3' \\(str\\), not a positive integer"),
        ("tasks_added", ["t0"], "its field 'tasks_added' adds 't0', which the ledger already"),
        ("tasks_added", ["t9", "t9"], "its field 'tasks_added' adds 't9', which the ledger"),
        ("tasks_added", "t2", "its field 'tasks_added' is 't2' \\(str\\), not a list of task"),
        ("adaptive", [1], "its field 'adaptive' is \\[1\\] \\(list\\), not an object or null"),
        ("passk_lab", None, "it has no field 'passk_lab'"),
    ],
)
def test_a_damaged_resumption_line_is_refused_with_its_line_number(tmp_path, field, value, message):
    path = tmp_path / "ledger.jsonl"
    rows = resumed_ledger(path)
    assert "resumed" in json.loads(rows[5])
    line = json.loads(rows[5])
    if value is None:
        del line[field]
    else:
        line[field] = value
    rows[5] = json.dumps(line)
    path.write_text("\n".join(rows) + "\n")
    for attempt in (
        lambda: pk.read_ledger(path),
        lambda: evaluate(table_tasks()[:3], 3, ledger=path, resume=True),
    ):
        with pytest.raises(
            ValueError, match=f"^line 6 of {path} is not a resumption record: {message}"
        ):
            attempt()


def test_runs_before_a_resumption_are_checked_against_the_header_then(tmp_path):
    path = tmp_path / "ledger.jsonl"
    rows = resumed_ledger(path)
    # a run of k = 3 and a run of the task added later, both before the resumption that
    # allows them: refused, though the final header has both
    for damage, message in [
        ('"run":1', '"run":2'),
        ('"task":"t1"', '"task":"t2"'),
    ]:
        changed = [*rows]
        changed[4] = rows[4].replace(damage, message)
        assert changed[4] != rows[4]
        path.write_text("\n".join(changed) + "\n")
        with pytest.raises(ValueError, match=r"line 5 of .* which the header's 2 tasks x k = 2"):
            pk.read_ledger(path)


def test_a_run_recorded_again_after_a_resumption_is_refused(tmp_path):
    path = tmp_path / "ledger.jsonl"
    rows = resumed_ledger(path)
    path.write_text("\n".join([*rows, rows[1]]) + "\n")
    with pytest.raises(ValueError, match=f"line {len(rows) + 1} of .* a second time"):
        pk.read_ledger(path)


def test_evaluate_on_an_adaptive_ledger_is_refused(tmp_path):
    path = tmp_path / "ledger.jsonl"
    evaluate(table_tasks()[:2], 2, ledger=path)
    rows = path.read_text().splitlines()
    head = json.loads(rows[0])
    head["adaptive"] = {"half_width": 0.05}
    path.write_text("\n".join([json.dumps(head), *rows[1:]]) + "\n")
    before = path.read_bytes()
    with pytest.raises(
        ValueError,
        match="this ledger records an adaptive evaluation; resume it with evaluate_until",
    ):
        evaluate(table_tasks()[:2], 2, ledger=path, resume=True)
    assert path.read_bytes() == before
    assert pk.read_ledger(path).header["adaptive"] == {"half_width": 0.05}
