"""One evaluation at a time writes a ledger: a second is refused, a killed one leaves no lock."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time

import pytest

import passk_lab as pk
from passk_lab import Task, evaluate

K = 3

# An evaluation in its own process whose first run waits for a line on stdin, so that it
# holds its ledger for as long as the test needs.
HOLDER = textwrap.dedent(
    """
    import sys
    import passk_lab as pk

    def run() -> bool:
        sys.stdin.readline()
        return True

    pk.evaluate([pk.Task(run=run, id="t")], {k}, ledger=sys.argv[1], resume=True)
    """
)


def tasks() -> list[Task[bool]]:
    return [Task(run=lambda: True, id="t")]


@pytest.fixture
def holder(tmp_path):
    """Start an evaluation of the ledger in another process; return it once it holds it."""
    path = tmp_path / "ledger.jsonl"
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER.format(k=K), str(path)],
        stdin=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not path.exists() or not path.read_bytes().endswith(b"\n"):  # the header is written
        assert process.poll() is None, process.communicate()[1]
        assert time.monotonic() < deadline, "the evaluation never started"
        time.sleep(0.005)
    yield process, path
    if process.poll() is None:
        process.kill()
    process.communicate()


@pytest.mark.parametrize("resume", [True, False])
def test_a_second_evaluation_of_a_held_ledger_is_refused_at_once(holder, resume):
    process, path = holder
    before = path.read_bytes()
    with pytest.raises(ValueError, match="another evaluation holds it") as refused:
        evaluate(tasks(), K, ledger=path, resume=resume)
    assert f"the ledger {str(path)!r} is in use" in str(refused.value)
    assert path.read_bytes() == before
    with pytest.raises(ValueError, match="another evaluation holds it"):
        evaluate(tasks(), K, ledger=path, resume=True)  # refused again: the lock is still held

    _, err = process.communicate(input="\n", timeout=60)  # the holder finishes its runs
    assert process.returncode == 0, err
    runs = pk.read_ledger(path).runs
    assert runs["run"].tolist() == list(range(K))
    assert runs["passed"].all()


def test_a_killed_evaluation_leaves_no_lock_behind(holder):
    process, path = holder
    process.send_signal(signal.SIGKILL)
    process.communicate()
    result = evaluate(tasks(), K, ledger=path, resume=True)  # its first run never finished
    assert result.runs["run"].tolist() == list(range(K))
    assert len(path.read_text().splitlines()) == 1 + 1 + K  # the header, the resumption, the runs
