"""What the commands print for a reader at a terminal: the main columns of a table, within 80
(or 100) columns, every column with --wide; and nothing more, quietly, once the reader goes away.
"""

from __future__ import annotations

import errno
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import TAU_BENCH

import passk_lab as pk
from passk_lab.cli import main
from passk_lab.report import labelled

EXAMPLES = Path(__file__).parent.parent / "data" / "examples"
TWO_MODELS = EXAMPLES / "two_models.csv"
MODELS = EXAMPLES / "models.csv"

MAIN = ["k", "pass^k", "pass^k 95% CI", "pass@k", "pass@k 95% CI", "tasks"]
"""The columns analyze's plain table shows without --wide: what a user reads first."""


def printed(args, capsys):
    assert main([str(arg) for arg in args]) == 0
    return capsys.readouterr().out


def widest(text):
    return max(len(line) for line in text.splitlines())


def columns_of(line):
    return re.split(r"\s{2,}", line.strip())


@pytest.fixture(scope="module")
def coin_file(tmp_path_factory):
    """The reference runs: one agent, 40 tasks of 5 runs."""
    path = tmp_path_factory.mktemp("coin") / "coin.csv"
    pk.simulate_coin().to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def costs(tmp_path_factory):
    """Runs of two models with a cost in usd for each run, their file, and model a's file."""
    rng = np.random.default_rng(7)
    runs = pd.read_csv(TWO_MODELS)
    runs["cost_usd"] = rng.uniform(0.01, 0.05, len(runs)).round(4)
    folder = tmp_path_factory.mktemp("costs")
    runs.to_csv(folder / "costs.csv", index=False)
    runs[runs["model"] == "a"].to_csv(folder / "a.csv", index=False)
    return runs, folder / "costs.csv", folder / "a.csv"


# --- analyze: the main columns, and every one with --wide --------------------------------


def test_analyze_shows_the_main_columns_and_wide_every_column(coin_file, capsys):
    out = printed(["analyze", coin_file], capsys)
    header, *rows = out.splitlines()
    assert columns_of(header) == MAIN
    curve = pk.reliability_curve(pk.simulate_coin(), rng=0)
    for row, expected in zip(rows, curve.itertuples(), strict=True):
        interval = f"[{expected.pass_at_k_low:.3f}, {expected.pass_at_k_high:.3f}]"
        assert row.split()[-4:] == [f"{expected.pass_at_k:.3f}", *interval.split(), "40"]
    wide = printed(["analyze", coin_file, "--wide"], capsys)
    assert columns_of(wide.splitlines()[0]) == list(labelled(curve).columns)
    assert widest(wide) > 100 > 80 > widest(out)  # --wide shows what the main columns leave out


def test_csv_and_json_hold_every_column_with_or_without_wide(coin_file, capsys):
    curve = pk.reliability_curve(pk.simulate_coin(), rng=0)
    for wide in ([], ["--wide"]):
        table = pd.read_csv(
            io.StringIO(printed(["analyze", coin_file, "--to", "csv", *wide], capsys))
        )
        assert list(table.columns) == list(curve.columns)
        records = pd.read_json(io.StringIO(printed(["analyze", coin_file, "--to", "json"], capsys)))
        assert list(records.columns) == list(curve.columns)


def test_analyze_shows_what_a_task_passing_every_run_costs(costs, capsys):
    runs, path, _ = costs
    lines = printed(["analyze", path, "--by", "model"], capsys).split("\n\n")
    for block, (model, group) in zip(lines, runs.groupby("model", sort=False), strict=True):
        heading, header, *rows = block.splitlines()
        assert heading == f"model = {model}"
        assert columns_of(header) == [*MAIN, "cost per pass^k task (usd)"]
        per_run = group.groupby("task")["cost_usd"].mean().mean()  # each task's mean, averaged
        for row in rows:
            k = int(row.split()[0])
            measured = pk.pass_pow_k(group, k)
            assert row.split()[-1] == f"{k * per_run / measured:.3f}"


def test_predictions_beyond_the_runs_fill_their_own_columns(capsys):
    out = printed(["analyze", TWO_MODELS, "--by", "model", "--k", "4", "--predict-to", "6"], capsys)
    runs = pd.read_csv(TWO_MODELS)
    for block, (_, group) in zip(out.split("\n\n"), runs.groupby("model"), strict=True):
        header, *rows = block.splitlines()[1:]
        assert columns_of(header) == [*MAIN[:5], "(pass@1)^k", "beta-binomial pass^k", "tasks"]
        pass_at_1 = group.groupby("task")["passed"].mean().mean()
        assert [row.split()[0] for row in rows] == ["4", "5", "6"]
        for row in rows[1:]:  # beyond the 4 runs: the predictions, and no task measured
            k, independent, _, tasks = row.split()
            assert independent == f"{pass_at_1 ** int(k):.3f}"
            assert tasks == "0"
            assert row[: header.index("(pass@1)^k")].strip() == k


@pytest.mark.parametrize(
    ("case", "arguments", "most"),
    [
        ("one agent", ["analyze", "COIN"], 79),
        ("one agent, Markdown", ["analyze", "COIN", "--to", "markdown"], 79),
        ("tau-bench", ["analyze", TAU_BENCH / "gpt-4o-airline.json"], 79),
        ("groups", ["analyze", TWO_MODELS, "--by", "model"], 79),
        ("costs", ["analyze", "COST"], 99),
        ("costs and groups", ["analyze", "COSTS", "--by", "model"], 99),
        ("predictions", ["analyze", TWO_MODELS, "--by", "model", "--predict-to", "12"], 99),
        ("leaderboard", ["leaderboard", MODELS, "--by", "model"], 79),
        ("its pairs", ["leaderboard", MODELS, "--by", "model", "--pairs"], 79),
        ("compare", ["compare", MODELS, "--by", "model", "--a", "alpha", "--b", "gamma"], 99),
        ("plan rate", ["plan", "rate", "--target", "0.8,0.9", "--k", "1..8"], 79),
        ("plan zero-failure", ["plan", "zero-failure", "--p", "0.9", "--runs-per-task", "5"], 79),
        ("plan tasks", ["plan", "tasks", "--half-width", "0.1", "--p", "0.8", "--k", "3"], 79),
    ],
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_each_output_fits_its_width(case, arguments, most, coin_file, costs, capsys):
    files = {"COIN": coin_file, "COSTS": costs[1], "COST": costs[2]}
    out = printed([files.get(argument, argument) for argument in arguments], capsys)
    assert widest(out) <= most, case


@pytest.mark.parametrize(("name_length", "most"), [(7, 79), (20, 99)])
def test_a_leaderboard_fits_80_columns_with_short_names_and_100_with_long(
    tmp_path, capsys, name_length, most
):
    names = {"alpha": "a" * name_length, "beta": "b" * name_length, "gamma": "c" * name_length}
    path = tmp_path / "named.csv"
    pd.read_csv(MODELS).replace({"model": names}).to_csv(path, index=False)
    out = printed(["leaderboard", path, "--by", "model", "--k", "1,3"], capsys)
    assert names["alpha"] in out
    assert widest(out) <= most


def test_a_leaderboard_shows_its_metric_and_wide_every_column(capsys):
    board = pk.leaderboard(pk.io.read(MODELS), ks=[3], metric="pass_at_k", rng=0)
    args = ["leaderboard", MODELS, "--by", "model", "--k", "3", "--metric", "pass_at_k"]
    lines = printed(args, capsys).splitlines()
    assert columns_of(lines[0]) == [
        "model",
        "k",
        "pass@k",
        "pass@k 95% CI",
        "tasks",
        "rank (simultaneous 95% CI)",
        "tie group",
    ]
    pairs = lines[lines.index("", 5) + 1 :]
    assert columns_of(pairs[0]) == [
        "agent A",
        "agent B",
        "k",
        "A",
        "B",
        "A - B",
        "A - B 95% CI",
        "tasks",
        "adjusted p",
    ]
    wide = printed([*args, "--wide"], capsys).splitlines()
    assert columns_of(wide[0]) == list(labelled(board).columns)
    assert "correlation" in columns_of(wide[wide.index("", 5) + 1])


# --- a reader that goes away --------------------------------------------------------------


@pytest.fixture
def long_runs_file(tmp_path):
    """Two tasks of 2,000 runs: a curve of 2,000 ks, in every format far beyond a pipe's buffer."""
    path = tmp_path / "long.csv"
    runs = 2000
    frame = pd.DataFrame(
        {"task": np.repeat([0, 1], runs), "run": np.tile(np.arange(runs), 2), "passed": True}
    )
    frame.to_csv(path, index=False)
    return path


class _Head(io.BufferedIOBase):
    """Standard output's buffer when ``| head -1`` has read its line and gone away.

    As CPython's buffered writer does then, its one long write is cut short
    and returns how much it wrote, raising nothing; the next write fails.
    """

    def __init__(self, closed_to: int) -> None:
        self.room = 65_536
        self.closed_to = closed_to

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        if data and not self.room:  # (an empty write writes nothing, as a real one)
            raise BrokenPipeError(errno.EPIPE, "Broken pipe")
        written = min(len(data), self.room)
        self.room -= written
        return written

    def fileno(self) -> int:  # where the command line's os.dup2 of os.devnull lands
        return self.closed_to


@pytest.mark.parametrize("to", ["table", "csv", "markdown", "json"])
def test_output_to_a_reader_that_stops_ends_quietly_with_141(
    monkeypatch, capsys, long_runs_file, tmp_path, to
):
    with open(tmp_path / "closed", "wb") as closed:
        head = _Head(closed.fileno())
        monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(head, encoding="utf-8"))
        status = main(["analyze", str(long_runs_file), "--to", to, "--wide"])
    assert head.room == 0  # the output was written until the pipe closed
    assert status == 141 == 128 + 13  # as a shell tells a program SIGPIPE ended
    assert capsys.readouterr().err == ""


def passk_lab(*arguments):
    """``python -m passk_lab ARGUMENTS``, its output a pipe, as the one in a shell's ``|``."""
    return subprocess.Popen(
        [sys.executable, "-m", "passk_lab", *map(str, arguments)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def head_1(process):
    """Read the first line of the output, as ``| head -1``, and go away: the line, the status and
    what the command wrote on stderr."""
    line = process.stdout.readline()
    process.stdout.close()
    with process.stderr:
        err = process.stderr.read().decode()
    return line.decode(), process.wait(), err


@pytest.mark.slow
@pytest.mark.parametrize("to", ["table", "csv"])
def test_analyze_piped_to_head_ends_quietly_with_141(long_runs_file, to):
    line, status, err = head_1(passk_lab("analyze", long_runs_file, "--to", to))
    assert (line.split()[:2] if to == "table" else line.split(",")[:2]) == (
        ["k", "pass^k"] if to == "table" else ["k", "pass_pow_k"]
    )
    assert (status, err) == (141, "")


@pytest.mark.slow
def test_a_large_leaderboard_piped_to_head_ends_quietly_with_141(tmp_path):
    agents = 24  # 276 pairs, their long names twice a line: far beyond a pipe's 64 KiB
    runs = pd.concat(
        [
            pk.simulate_coin(0.5, 6, 2, seed).assign(model=f"agent {seed:02d} " + "x" * 200)
            for seed in range(agents)
        ]
    )
    path = tmp_path / "many.csv"
    runs.to_csv(path, index=False)
    line, status, err = head_1(passk_lab("leaderboard", path, "--by", "model", "--k", "1"))
    assert columns_of(line)[:2] == ["model", "k"]
    assert (status, err) == (141, "")


@pytest.mark.slow
@pytest.mark.parametrize(
    "arguments",
    [
        ["reproduce"],
        ["report", TWO_MODELS, "--by", "model", "--out", "report", "--resamples", "100"],
        ["compare", MODELS, "--by", "model", "--a", "alpha", "--b", "beta"],
        ["plan", "rate", "--target", "0.9", "--k", "1..3"],
        ["--help"],
        ["plan", "rate", "--help"],
    ],
    ids=lambda arguments: " ".join(map(str, arguments[:2])),
)
def test_a_command_whose_reader_is_gone_writes_its_files_and_ends_quietly(tmp_path, arguments):
    reading, writing = os.pipe()
    os.close(reading)  # gone before the command writes a byte
    with open(writing, "wb") as output:
        process = subprocess.run(
            [sys.executable, "-m", "passk_lab", *map(str, arguments)],
            stdout=output,
            stderr=subprocess.PIPE,
            cwd=tmp_path,
            check=False,
        )
    assert (process.returncode, process.stderr.decode()) == (141, "")
    if arguments == ["reproduce"]:  # its runs are written before what it prints
        written = pd.read_csv(tmp_path / "data" / "coin_p0.85_tasks40_k5_seed42.csv")
        pd.testing.assert_frame_equal(written[["task", "run", "passed"]], pk.simulate_coin())
    if arguments[0] == "report":  # and a report its folder
        assert (tmp_path / "report" / "report.html").is_file()
