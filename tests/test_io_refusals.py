"""Files the readers refuse before or while reading them: each a ValueError naming the file."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import tempfile
from pathlib import Path

import pytest

from passk_lab.io import detect_format, read, read_runs, read_tau_bench

RUNS = {
    ".csv": b"task,passed\na,true\n",
    ".jsonl": b'{"task":"a","passed":true}\n',
    ".json": json.dumps([{"task_id": 0, "trial": 0, "reward": 1.0, "info": {}}]).encode(),
}


def reader(suffix):
    return read_tau_bench if suffix == ".json" else read_runs


# --- what is not a regular file -------------------------------------------------------------


@pytest.mark.parametrize("suffix", list(RUNS))
def test_a_fifo_is_refused_before_it_is_opened(tmp_path, suffix):
    # opening a FIFO for reading waits for a writer: without the check these calls never return
    path = tmp_path / f"runs{suffix}"
    os.mkfifo(path)
    message = re.escape(str(path)) + r": not a regular file \(a FIFO\)"
    with pytest.raises(ValueError, match=message):
        reader(suffix)(path)
    with pytest.raises(ValueError, match=message):
        detect_format(path)
    with pytest.raises(ValueError, match=message):
        read(path)


def test_a_fifo_inside_a_results_directory_is_refused(tmp_path):
    (tmp_path / "a-airline.json").write_bytes(RUNS[".json"])
    os.mkfifo(tmp_path / "b-airline.json")
    with pytest.raises(ValueError, match=r"b-airline\.json: not a regular file \(a FIFO\)"):
        read_tau_bench(tmp_path)
    with pytest.raises(ValueError, match=r"b-airline\.json: not a regular file \(a FIFO\)"):
        read(tmp_path)


def test_a_device_is_refused(tmp_path):
    path = tmp_path / "runs.csv"
    path.symlink_to("/dev/null")
    with pytest.raises(ValueError, match=r"runs\.csv: not a regular file \(a character device\)"):
        read_runs(path)


def test_a_directory_or_a_symlink_loop_named_json_in_a_results_folder_is_refused(tmp_path):
    (tmp_path / "a-airline.json").write_bytes(RUNS[".json"])
    (tmp_path / "b-airline.json").mkdir()
    with pytest.raises(ValueError, match=r"b-airline\.json: not a regular file \(a directory\)"):
        read_tau_bench(tmp_path)
    (tmp_path / "b-airline.json").rmdir()
    (tmp_path / "b-airline.json").symlink_to(tmp_path / "b-airline.json")
    with pytest.raises(ValueError, match=r"b-airline\.json: cannot be read \(.*symbolic links"):
        read_tau_bench(tmp_path)


@contextlib.contextmanager
def as_another_user():
    """Read as a user other than root, who reads a file whatever its permissions."""
    if os.geteuid() != 0:
        yield
        return
    os.seteuid(65534)  # nobody, for the reads in the block only
    try:
        yield
    finally:
        os.seteuid(0)


@pytest.fixture
def open_folder():
    """A folder every user may enter (pytest's own are root's alone), removed afterwards."""
    folder = Path(tempfile.mkdtemp())
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder)


@pytest.mark.parametrize("suffix", list(RUNS))
def test_an_unreadable_file_is_refused_naming_it(open_folder, tmp_path, suffix):
    path = open_folder / f"runs{suffix}"
    path.write_bytes(RUNS[suffix])
    path.chmod(0)
    message = re.escape(str(path)) + r": cannot be read \(Permission denied\)"
    with as_another_user(), pytest.raises(ValueError, match=message):
        reader(suffix)(path)
    # a file in a folder the user may not enter
    hidden = tmp_path / "closed" / f"runs{suffix}"
    hidden.parent.mkdir()
    hidden.write_bytes(RUNS[suffix])
    hidden.parent.chmod(0o700)
    message = re.escape(str(hidden)) + r": cannot be read \(Permission denied\)"
    with as_another_user(), pytest.raises(ValueError, match=message):
        reader(suffix)(hidden)


# --- what cannot be parsed ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("suffix", "data", "line"),
    [
        (".csv", b"task,passed\na,true\ncaf\xe9,false\n", 3),
        (".jsonl", b'{"task":"a","passed":true}\n{"task":"\xe9"}\n', 2),
        (".json", b'[{"task_id": "caf\xe9"}]', 1),
    ],
)
def test_text_that_is_not_utf8_is_refused_naming_the_file_and_byte(tmp_path, suffix, data, line):
    path = tmp_path / f"runs{suffix}"
    path.write_bytes(data)
    byte = data.index(b"\xe9")
    where = f": not UTF-8 text at byte {byte} (line {line})"
    with pytest.raises(ValueError, match=re.escape(str(path) + where)):
        reader(suffix)(path)


def test_deeply_nested_json_is_refused_naming_the_file(tmp_path):
    path = tmp_path / "r.json"
    path.write_text("[" * 100_000)
    with pytest.raises(ValueError, match=r"r\.json: nested too deeply"):
        read_tau_bench(path)
    path = tmp_path / "runs.jsonl"
    path.write_text('{"task":"a","passed":true}\n{"task":' + "[" * 100_000 + "\n")
    with pytest.raises(ValueError, match=r"runs\.jsonl, line 2: nested too deeply"):
        read_runs(path)
    path.write_text("[" * 100_000 + "\n")
    with pytest.raises(ValueError, match=r"runs\.jsonl, line 1: nested too deeply"):
        read(path)


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("runs.csv", b"", r"runs\.csv: the file is empty"),
        ("runs.csv", b"task,passed\n", r"runs\.csv: no runs, only a header"),
        ("runs.jsonl", b"", r"runs\.jsonl: the file is empty"),
        ("runs.jsonl", b"\n\n", r"runs\.jsonl: no runs"),
        ("r.json", b"[]", r"r\.json: no runs \(an empty list\)"),
    ],
)
def test_a_file_without_runs_is_refused_naming_it(tmp_path, name, data, message):
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(ValueError, match=message):
        read(path)


# --- a file cut short -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "data", "where"),
    [
        ("runs.csv", b"task,run,reward\na,0,1.0\nb,1,0.", "row 1 (line 3)"),
        ("runs.csv", b"task,reward\na,1.0\n\nb,0.", "row 1 (line 4)"),
        ("runs.jsonl", b'{"task":"a","reward":1.0}\n{"task":"b","reward":0}', "line 2"),
        ("runs.jsonl", b'{"task":"a","reward":1.0}\n\n{"task":"b","reward":0}', "line 3"),
    ],
)
def test_a_file_without_a_final_line_break_is_read_with_a_warning(tmp_path, name, data, where):
    path = tmp_path / name
    path.write_bytes(data)
    message = re.escape(f"{path}, {where}: the file does not end with a line break")
    with pytest.warns(UserWarning, match=message):
        runs = read_runs(path, threshold=0)
    assert len(runs) == 2
    path.write_bytes(data + b"\n")
    assert len(read_runs(path, threshold=0)) == 2  # and no warning


# --- options -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["read_tau2", "read_harbor", "read_hal", "read_lm_eval"])
def test_every_reader_refuses_a_partial_that_is_not_a_bool(tmp_path, name):
    import passk_lab.io as io

    with pytest.raises(TypeError, match=r"^partial must be True or False, got 'no'$"):
        getattr(io, name)(tmp_path / "missing.json", partial="no")
