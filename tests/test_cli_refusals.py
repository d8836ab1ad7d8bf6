"""What the command line does with input it cannot take: one line on stderr and exit 2."""

from __future__ import annotations

import errno
import json
import os
import warnings

import pandas as pd
import pytest

import passk_lab as pk
from passk_lab import io
from passk_lab._checks import MEMORY_BUDGET
from passk_lab.cli import main
from passk_lab.cli._main import _parser, _with_options
from passk_lab.report import write_report


@pytest.fixture
def runs_file(tmp_path):
    path = tmp_path / "runs.csv"
    pk.simulate_coin(seed=42).to_csv(path, index=False)
    return path


def refused(args, capsys):
    """Run the command line, expect exit 2, and return the one line it wrote to stderr."""
    with pytest.raises(SystemExit) as exited:
        main(args)
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    last = err.splitlines()[-1]
    assert last.startswith(f"passk-lab {args[0]}: error: ")
    return last


@pytest.mark.parametrize(
    ("error", "shown"),
    [
        (IsADirectoryError(errno.EISDIR, "Is a directory", "logs.csv"), "logs.csv: Is a directory"),
        (OSError(errno.ELOOP, "Too many levels of symbolic links", "a.csv"), "a.csv: Too many"),
        (PermissionError(errno.EACCES, "Permission denied", "r.csv"), "r.csv: Permission denied"),
        (OSError(errno.ENAMETOOLONG, "File name too long", "x" * 300), "File name too long"),
        (FileExistsError(errno.EEXIST, "File exists", "out"), "out: File exists"),
        (NotADirectoryError(errno.ENOTDIR, "Not a directory", "f/sub"), "f/sub: Not a directory"),
        (RecursionError("maximum recursion depth exceeded"), "nested too deeply"),
        (MemoryError(), "out of memory"),
        (OverflowError("Python int too large to convert to C long"), "Python int too large"),
    ],
)
@pytest.mark.parametrize("command", ["analyze", "report"])
def test_an_error_of_the_input_or_the_system_is_one_line_and_exit_2(
    tmp_path, capsys, monkeypatch, runs_file, error, shown, command
):
    def read(*args, **kwargs):
        raise error

    monkeypatch.setattr(io, "read", read)
    args = [command, str(runs_file)] + (["--out", str(tmp_path / "out")] * (command == "report"))
    assert shown in refused(args, capsys)


def damaged_inputs(folder):
    """Write a file of each kind the readers refuse; return name -> what the line must say."""
    (folder / "dir.json").mkdir()
    (folder / "loop.json").symlink_to(folder / "loop.json")
    os.mkfifo(folder / "fifo.json")  # read without the check, it would wait for a writer
    (folder / "huge.json").write_text(
        json.dumps([{"task_id": 0, "trial": 10**30, "reward": 1.0, "info": {}}])
    )
    (folder / "deep.json").write_text("[" * 100_000)
    header = {"format": "passk_lab.ledger", "format_version": 1, "model": None, "k": 1}
    (folder / "ledger.jsonl").write_text(json.dumps(header) + "\n")
    (folder / "latin1.csv").write_bytes("task,passed\ncaf\u00e9,true\n".encode("latin-1"))
    return {
        "dir.json": "a directory",
        "loop.json": "Too many levels of symbolic links",
        "fifo.json": "not a regular file (a FIFO)",
        "huge.json": f"trial is {10**30}",
        "deep.json": "nested too deeply",
        "ledger.jsonl": "no field",
        "latin1.csv": "not UTF-8 text at byte",
    }


def test_damaged_files_on_disk_are_each_one_line_naming_the_file(tmp_path, capsys):
    for name, shown in damaged_inputs(tmp_path).items():
        line = refused(["analyze", str(tmp_path / name)], capsys)
        assert str(tmp_path / name) in line, name
        assert shown in line, name


def test_a_fault_of_passk_lab_itself_keeps_its_traceback(monkeypatch, runs_file):
    def read(*args, **kwargs):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(io, "read", read)
    with pytest.raises(ZeroDivisionError, match="a bug"):
        main(["analyze", str(runs_file)])


def test_ctrl_c_is_one_line_and_exit_130(monkeypatch, capsys, runs_file):
    def read(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(io, "read", read)
    assert main(["analyze", str(runs_file)]) == 130
    assert capsys.readouterr().err == "passk-lab analyze: interrupted\n"


def test_a_bad_out_folder_is_one_line(tmp_path, capsys, runs_file):
    a_file = tmp_path / "notes.txt"
    a_file.write_text("mine\n")
    line = refused(["report", str(runs_file), "--out", str(a_file)], capsys)
    assert f"out={str(a_file)!r} is a file, not a folder" in line
    line = refused(["report", str(runs_file), "--out", str(a_file / "sub")], capsys)
    assert line.endswith(f"{a_file / 'sub'}: Not a directory")
    assert a_file.read_text() == "mine\n"


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        (
            ["analyze", "RUNS", "--seed", "-5"],
            "argument --seed: takes a whole number >= 0, got '-5'",
        ),
        (
            ["analyze", "RUNS", "--resamples", "0"],
            "argument --resamples: takes a whole number >= 1",
        ),
        (["analyze", "RUNS", "--resamples", "1e4"], "argument --resamples: takes a whole number,"),
        (["analyze", "RUNS", "--k", "0..3"], "argument --k: needs k >= 1, got '0..3'"),
        (["analyze", "RUNS", "--k", "1..0"], "argument --k: needs k >= 1, got '1..0'"),
        (
            ["compare", "RUNS", "RUNS", "--confidence-level", "2"],
            "argument --confidence-level: takes a number in (0, 1), got '2'",
        ),
        (
            ["analyze", "RUNS", "--predict-to", "0"],
            "argument --predict-to: takes a whole number >= 1, got '0'",
        ),
        (
            ["analyze", "RUNS", "--k", "5..3"],
            "argument --k: the range '5..3' is empty; write the smaller k first: 3..5",
        ),
        (["report", "RUNS", "--out", "o", "--seed", "x"], "argument --seed: takes a whole number"),
        (["reproduce", "--tasks", "0"], "argument --tasks: takes a whole number >= 1, got '0'"),
        (["reproduce", "-k", "-1"], "argument -k/--k: takes a whole number >= 1, got '-1'"),
    ],
)
def test_a_bad_number_names_its_option(capsys, runs_file, args, shown):
    args = [str(runs_file) if arg == "RUNS" else arg for arg in args]
    assert shown in refused(args, capsys)


# --- sizes refused before they are allocated ------------------------------------------


def test_a_range_of_ks_too_large_to_hold_is_refused_with_its_size(capsys, runs_file):
    ks = 10**8
    line = refused(["analyze", str(runs_file), "--k", f"1..{ks}"], capsys)
    assert f"the curve would hold {ks:,} ks" in line
    assert f"more than the {MEMORY_BUDGET // 1024**3} GiB" in line
    assert "no task has more than 5 runs" in line
    line = refused(["analyze", str(runs_file), "--k", f"1..{10**30}"], capsys)
    assert f"the curve would hold {10**30:,} ks" in line


@pytest.mark.parametrize("command", ["analyze", "report"])
def test_a_predict_to_too_large_to_hold_is_refused_with_its_size(
    tmp_path, capsys, runs_file, command
):
    out = [] if command == "analyze" else ["--out", str(tmp_path / "report")]
    line = refused([command, str(runs_file), "--predict-to", str(10**9), *out], capsys)
    assert f"would hold {10**9:,} ks" in line
    assert f"more than the {MEMORY_BUDGET // 1024**3} GiB" in line
    assert "predict_to" in line
    assert not (tmp_path / "report").exists()


def test_a_k_no_integer_holds_is_refused(capsys, runs_file):
    line = refused(["analyze", str(runs_file), "--k", str(10**23)], capsys)
    assert (
        f"ks holds k = {10**23}, which no 64-bit integer holds; no task has more than 5 runs"
        in line
    )


def test_bootstrap_resamples_too_many_to_hold_are_refused_with_their_size(capsys, runs_file):
    line = refused(
        ["analyze", str(runs_file), "--method", "bca", "--resamples", "100000000"], capsys
    )
    assert "the bootstrap's replicates would hold 100,000,000 resamples x " in line
    assert "ask for fewer resamples" in line


def test_the_library_refuses_the_same_sizes_before_allocating(tmp_path):
    runs = pk.simulate_coin(seed=42)
    with pytest.raises(ValueError, match=r"the curve would hold 100,000,000 ks"):
        pk.reliability_curve(runs, range(1, 10**8 + 1))
    with pytest.raises(ValueError, match=r"the curve would hold 1,000,000,000 ks .*predict_to"):
        pk.reliability_curve(runs, predict_to=10**9)
    # a few ks, the largest far up: the beta-binomial prediction takes every k below it
    with pytest.raises(ValueError, match=r"prediction would hold 1,000,000,000 ks at 48 bytes"):
        pk.reliability_curve(runs, [1, 10**9])
    with pytest.raises(ValueError, match=r"prediction would hold 1,000,000,000 ks at 48 bytes"):
        write_report(runs, tmp_path / "report", predict_to=10**9)
    assert not (tmp_path / "report").exists()
    with pytest.raises(ValueError, match=r"would hold 100,000,000 resamples x \d+ statistics"):
        pk.reliability_curve(runs, [1, 5], method="percentile", n_resamples=10**8)
    # one k per row, far below the budget: still computed, and the warning stays one short line
    with pytest.warns(RuntimeWarning) as warned:
        assert len(pk.reliability_curve(runs, range(1, 1001))) == 1000
    (warning,) = warned
    assert str(warning.message).startswith(
        "no estimate for k = 6, 7, 8, 9, 10, 11, 12, 13, 14, ..., 1000 (995 ks): "
    )


# --- the library's keywords told as the command line's options --------------------------


@pytest.mark.parametrize(
    ("args", "told"),
    [
        (["--run", "trial"], "run= is --run"),
        (["--by", "nosuch"], "by= is --by"),
        (["--passed", "passed", "--reward", "run"], "passed= is --passed, reward= is --reward"),
    ],
)
def test_a_refusal_naming_a_keyword_ends_with_its_option_once(capsys, runs_file, args, told):
    line = refused(["analyze", str(runs_file), *args], capsys)
    assert line.endswith(f" (on the command line: {told})")
    assert line.count("on the command line") == 1


def test_a_report_refusal_names_predict_to_as_its_option(tmp_path, capsys, runs_file):
    out = tmp_path / "report"
    line = refused(
        ["report", str(runs_file), "--k", "4", "--predict-to", "2", "--out", str(out)], capsys
    )
    assert "predict_to=2 is below" in line
    assert line.endswith(" (on the command line: predict_to= is --predict-to)")


def test_a_missing_column_is_told_with_its_option(tmp_path, capsys):
    path = tmp_path / "runs.csv"
    pd.DataFrame({"problem": [0, 0], "run": [0, 1], "passed": [True, False]}).to_csv(
        path, index=False
    )
    line = refused(["analyze", str(path)], capsys)
    assert line.endswith("map yours: task='problem' (on the command line: task= is --task)")
    assert line.count("on the command line") == 1


def command_args(*args):
    """Return the parsed arguments of a command, as main gives them to a message."""
    return _parser().parse_args(list(args))


@pytest.mark.parametrize(
    ("keywords", "told"),
    [
        (("lm_eval_filter",), "lm_eval_filter= is --lm-eval-filter"),
        (("filter",), "filter= is --lm-eval-filter"),
        (("errors",), "errors= is --errors"),
        (("n", "confidence_level"), "n= is --n, confidence_level= is --confidence-level"),
        (("by", "by"), "by= is --by"),
        (("n_resamples",), "n_resamples= is --resamples"),
        (("rng",), "rng= is --seed"),
    ],
)
def test_keywords_map_to_the_options_of_the_command_that_ran(keywords, told):
    shown = _with_options("refused", keywords, command_args("analyze", "runs.csv"))
    assert shown == f"refused (on the command line: {told})"


@pytest.mark.parametrize(
    ("args", "keywords"),
    [
        (("analyze", "runs.csv"), ()),
        (("analyze", "runs.csv"), ("common_tasks",)),  # no option of the command
        (("plan", "rate", "--target", "0.9", "--k", "2"), ("errors",)),  # not an option of plan
    ],
)
def test_a_keyword_no_option_of_the_command_sets_is_left_unsaid(args, keywords):
    assert _with_options("refused", keywords, command_args(*args)) == "refused"


def test_a_warning_the_command_line_shows_names_the_option(monkeypatch, capsys, runs_file):
    def read(*args, **kwargs):
        warnings.warn(
            pk.PasskWarning(
                "kept every run; give errors='exclude' to leave some out", keywords=["errors"]
            ),
            stacklevel=2,
        )
        return pk.simulate_coin(seed=42)

    monkeypatch.setattr(io, "read", read)
    assert main(["analyze", str(runs_file), "--to", "csv"]) == 0
    assert (
        "passk-lab analyze: warning: kept every run; give errors='exclude' to leave some out "
        "(on the command line: errors= is --errors)\n" in capsys.readouterr().err
    )


# --- a grouping column named as one of the curve's own -----------------------------------


def test_a_by_column_named_as_a_column_of_the_curve_is_refused_naming_the_fix(tmp_path, capsys):
    runs = pk.simulate_coin(tasks=4, k=2, seed=1)
    plain = pk.reliability_curve(runs.assign(model="a"), by="model", n_resamples=200)
    for name in plain.columns.drop("model"):
        with pytest.raises(ValueError, match=rf"by names '{name}', which the curve has a column"):
            pk.reliability_curve(runs.assign(**{name: "a"}), by=name)
    path = tmp_path / "runs.csv"
    runs.assign(k=1).to_csv(path, index=False)
    line = refused(["analyze", str(path), "--by", "k"], capsys)
    assert line.endswith(
        "rename that column of the runs, say to 'k_group', and give by='k_group' "
        "(on the command line: by= is --by)"
    )
    line = refused(["report", str(path), "--by", "k", "--out", str(tmp_path / "out")], capsys)
    assert "by names 'k'" in line
