"""The ``leaderboard`` and ``compare`` commands: what they print, and what they refuse."""

from __future__ import annotations

import io
import json
import re

import pandas as pd
import pytest
from test_cli_refusals import refused

import passk_lab as pk
from passk_lab.cli import main
from passk_lab.report import labelled, to_markdown

AGENTS = [("strong", 0.9, 1), ("middle", 0.8, 2), ("weak", 0.6, 3)]


@pytest.fixture(scope="module")
def runs():
    return pd.concat(
        [
            pk.simulate_coin(p=p, tasks=30, k=3, seed=seed).assign(model=name)
            for name, p, seed in AGENTS
        ],
        ignore_index=True,
    )


@pytest.fixture(scope="module")
def runs_file(runs, tmp_path_factory):
    path = tmp_path_factory.mktemp("runs") / "runs.csv"
    runs.to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def read_back(runs_file):
    """The runs as the command line reads them (a CSV's task ids are text)."""
    return pk.io.read(runs_file)


def printed(args, capsys):
    assert main(args) == 0
    return capsys.readouterr().out


def columns_of(line):
    return re.split(r"\s{2,}", line.strip())


# --- leaderboard -------------------------------------------------------------------------


def test_leaderboard_prints_the_board_and_under_it_every_pair_at_the_same_ks(
    runs_file, read_back, capsys
):
    out = printed(["leaderboard", str(runs_file), "--by", "model", "--k", "1,3"], capsys)
    board = pk.leaderboard(read_back, ks=[1, 3], rng=0)
    pairs = pk.pairwise(read_back, ks=[1, 3], metrics=["pass_pow_k"], common_tasks=True, rng=0)
    lines = out.splitlines()
    assert columns_of(lines[0]) == [
        "model",
        "k",
        "pass^k",
        "pass^k 95% CI",
        "tasks",
        "rank (simultaneous 95% CI)",
        "tie group",
    ]
    rows = lines[1 : 1 + len(board)]
    for line, (_, row) in zip(rows, board.iterrows(), strict=True):
        rank = f"{row['rank']} ({row['rank_low']}\N{EN DASH}{row['rank_high']})"
        low, high = row["pass_pow_k_low"], row["pass_pow_k_high"]
        assert line.split()[:5] == [
            row["model"],
            str(row["k"]),
            f"{row['pass_pow_k']:.3f}",
            *f"[{low:.3f}, {high:.3f}]".split(),
        ]
        assert f" {rank} " in line
        assert line.split()[-1] == str(row["tie_group"])
    assert lines[1 + len(board)] == ""
    blank = lines.index("", 2 + len(board))
    note = lines[2 + len(board) : blank]
    assert " ".join(note).startswith(
        "The tests the ranks come from: every pair at pass^k on the tasks every agent has k runs"
    )
    assert len(note) == 3
    assert all(len(line) < 80 for line in note)
    assert "Holm" in note[-1]
    table = lines[blank + 1 :]
    assert columns_of(table[0])[:3] == ["agent A", "agent B", "k"]  # the metric is the note's
    assert len(table) == 1 + len(pairs) == 1 + 3 * 2  # three pairs at each of two ks
    for line, (_, pair) in zip(table[1:], pairs.iterrows(), strict=True):
        assert line.split()[:3] == [pair["a"], pair["b"], str(pair["k"])]
        assert line.split()[-1] == f"{pair['p_adjusted']:.2g}"


def test_leaderboard_csv_and_json_hold_the_board_and_pairs_the_pairs(runs_file, read_back, capsys):
    args = ["leaderboard", str(runs_file), "--by", "model"]
    board = pk.leaderboard(read_back, rng=0)
    table = pd.read_csv(io.StringIO(printed([*args, "--to", "csv"], capsys)))
    pd.testing.assert_frame_equal(table, board, check_dtype=False)
    records = json.loads(printed([*args, "--to", "json"], capsys))
    assert [row["rank_high"] for row in records] == board["rank_high"].tolist()
    at_pass_at_k = pk.pairwise(read_back, metrics=["pass_at_k"], common_tasks=True, rng=0)
    pairs = pd.read_csv(
        io.StringIO(printed([*args, "--pairs", "--metric", "pass_at_k", "--to", "csv"], capsys))
    )
    pd.testing.assert_frame_equal(pairs, at_pass_at_k, check_dtype=False)


def test_leaderboard_ranks_by_the_metric_asked_and_in_markdown(runs_file, read_back, capsys):
    args = ["leaderboard", str(runs_file), "--by", "model", "--k", "3", "--metric", "pass_at_k"]
    out = printed([*args, "--to", "markdown", "--wide"], capsys)  # every column, as the report
    board = pk.leaderboard(read_back, ks=[3], metric="pass_at_k", rng=0)
    assert out.startswith(
        to_markdown(labelled(board), digits=3)
        + "\n\nThe tests the ranks come from: every pair at pass@k on the tasks"
    )
    last = [cell.strip() for cell in out.splitlines()[-1].split("|")[1:5]]
    assert last == ["middle", "weak", "pass@k", "3"]  # the pairs at pass@k, as it ranks


def test_leaderboard_drops_unshared_tasks_when_told_and_warns_once(runs, tmp_path, capsys):
    path = tmp_path / "runs.csv"
    short = runs[~((runs["model"] == "weak") & (runs["task"] >= 25))]  # weak ran 25 of 30
    short.to_csv(path, index=False)
    refused(["leaderboard", str(path), "--by", "model"], capsys)
    assert main(["leaderboard", str(path), "--by", "model", "--unmatched", "drop"]) == 0
    captured = capsys.readouterr()
    warnings = [line for line in captured.err.splitlines() if "warning:" in line]
    assert len(warnings) == 1  # the board and its pairs drop the same tasks: said once
    assert "ranked the 25 tasks every agent has and dropped 5 task(s)" in warnings[0]
    shared = pk.io.read(path)
    shared = shared[shared["task"].astype(int) < 25]
    assert f"{pk.pass_pow_k(shared[shared['model'] == 'weak'], 3):.3f}" in captured.out


def test_leaderboard_pairs_count_each_k_on_the_tasks_the_board_ranks(runs, tmp_path, capsys):
    path = tmp_path / "runs.csv"
    # weak ran tasks 0 to 9 twice: at k = 3 the board counts the other 20 tasks, for every pair
    short = runs[~((runs["model"] == "weak") & (runs["task"] < 10) & (runs["run"] == 2))]
    short.to_csv(path, index=False)
    args = ["leaderboard", str(path), "--by", "model", "--k", "1,3"]
    pairs = pd.read_csv(io.StringIO(printed([*args, "--pairs", "--to", "csv"], capsys)))
    assert pairs["n_tasks"].tolist() == [30] * 3 + [20] * 3  # k = 1, then k = 3
    board = pd.read_csv(io.StringIO(printed([*args, "--to", "csv"], capsys)))
    assert board.groupby("k")["n_tasks"].unique().map(list).to_dict() == {1: [30], 3: [20]}
    with pytest.warns(RuntimeWarning, match="different runs"):
        expected = pk.pairwise(
            pk.io.read(path), ks=[1, 3], metrics=["pass_pow_k"], common_tasks=True, rng=0
        )
    pd.testing.assert_frame_equal(pairs, expected, check_dtype=False)


# --- compare -----------------------------------------------------------------------------


def test_compare_two_agents_of_one_file(runs_file, read_back, capsys):
    args = ["compare", str(runs_file), "--by", "model", "--a", "weak", "--b", "strong"]
    weak = read_back[read_back["model"] == "weak"]
    strong = read_back[read_back["model"] == "strong"]
    expected = pk.compare(weak, strong, [1, 2], rng=0)
    table = pd.read_csv(io.StringIO(printed([*args, "--k", "1..2", "--to", "csv"], capsys)))
    pd.testing.assert_frame_equal(table, expected, check_dtype=False)
    lines = printed([*args, "--k", "1..2"], capsys).splitlines()
    assert lines[:2] == ["A: model=weak; B: model=strong", ""]
    assert columns_of(lines[2])[:8] == [
        "metric",
        "k",
        "A",
        "A 95% CI",
        "B",
        "B 95% CI",
        "A - B",
        "A - B 95% CI",
    ]
    low, high = expected.loc[0, ["difference_low", "difference_high"]]
    assert f"[{low:.3f}, {high:.3f}]" in lines[3]
    assert len(lines) == 3 + 4


def test_compare_two_files_of_one_agent_each(runs, tmp_path, capsys):
    paths = []
    for name in ("strong", "middle"):
        paths.append(tmp_path / f"{name}.csv")
        runs[runs["model"] == name].drop(columns="model").to_csv(paths[-1], index=False)
    sides = [pk.io.read(path) for path in paths]
    expected = pk.compare(*sides, rng=0, method="percentile", n_resamples=300)
    options = ["--method", "percentile", "--resamples", "300", "--to", "csv"]
    table = pd.read_csv(io.StringIO(printed(["compare", *map(str, paths), *options], capsys)))
    pd.testing.assert_frame_equal(table, expected, check_dtype=False)
    heading = printed(["compare", *map(str, paths), "--to", "markdown"], capsys).splitlines()[0]
    assert heading == f"A: {paths[0]}; B: {paths[1]}"


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        (["--a", "weak", "--b", "strong"], "--a and --b are values of the column that names"),
        (["--by", "model", "--a", "weak", "--b", "best"], "--b 'best' is not a value of column"),
        ([], "compare needs two agents: give two runs files, one agent each, or one file with"),
        (["--by", "model", "--a", "weak"], "compare --by model needs both --a and --b"),
        (["--by", "model", "--a", "weak", "--b", "weak"], "--a and --b both name 'weak'"),
        (["--by", "model", "--by", "task2", "--a", "x", "--b", "y"], "of one --by column, got 2"),
    ],
)
def test_compare_refuses_what_names_no_two_agents_of_one_file(runs_file, capsys, args, shown):
    line = refused(["compare", str(runs_file), *args], capsys)
    assert shown in line
    if "is not a value" in shown:
        assert line.endswith("which holds: middle, strong, weak")


def test_compare_refuses_three_files_and_agents_picked_from_two(runs_file, capsys):
    line = refused(["compare", *[str(runs_file)] * 3], capsys)
    assert "takes one runs file (with --by, --a and --b) or two (one agent each), got 3" in line
    line = refused(["compare", str(runs_file), str(runs_file), "--by", "model"], capsys)
    assert "two files are one agent each: leave them out, or give one file" in line


def test_leaderboard_refuses_one_agent_and_a_missing_by(runs, tmp_path, capsys):
    path = tmp_path / "one.csv"
    runs[runs["model"] == "weak"].to_csv(path, index=False)
    line = refused(["leaderboard", str(path), "--by", "model"], capsys)
    assert "leaderboard compares two or more agents" in line
    assert "'weak'" in line
    line = refused(["leaderboard", str(path)], capsys)
    assert line.endswith("the following arguments are required: --by")


def test_compare_names_the_sides_as_they_were_given(runs, tmp_path, capsys):
    strong = runs[runs["model"] == "strong"].drop(columns="model")
    middle = runs[(runs["model"] == "middle") & (runs["task"] < 28)].drop(columns="model")
    paths = [tmp_path / "strong.csv", tmp_path / "middle.csv"]
    strong.to_csv(paths[0], index=False)
    middle.to_csv(paths[1], index=False)
    line = refused(["compare", *map(str, paths)], capsys)
    assert f"2 task(s) appear only in A ({paths[0]}) ('28', '29') and 0 only in B ({paths[1]})" in (
        line
    )
    assert "runs_a" not in line
    assert "runs_b" not in line
    assert f"0 only in B ({paths[1]}); " in line  # no empty list of none
    assert line.endswith("(on the command line: unmatched= is --unmatched)")
    assert main(["compare", *map(str, paths), "--unmatched", "drop"]) == 0
    err = capsys.readouterr().err
    assert (
        f"warning: compared the 28 shared tasks and dropped 2 task(s) appear only in A ({paths[0]})"
        in (err)
    )
    numbered = tmp_path / "middle.jsonl"  # JSON Lines keeps the ids numbers, CSV reads them as text
    runs[runs["model"] == "middle"].drop(columns="model").to_json(
        numbered, orient="records", lines=True
    )
    line = refused(["compare", str(paths[0]), str(numbered)], capsys)
    assert f"A ({paths[0]})'s '0' and B ({numbered})'s 0 are one id written two ways" in line
    assert "give both sides one kind: ids all numbers or all text;" in line
    assert "astype" not in line


def test_compare_names_the_agents_of_one_file_by_their_column(runs, tmp_path, capsys):
    path = tmp_path / "runs.csv"
    runs[(runs["model"] != "weak") | (runs["task"] < 29)].to_csv(path, index=False)
    line = refused(["compare", str(path), "--by", "model", "--a", "strong", "--b", "weak"], capsys)
    assert "1 task(s) appear only in A (model=strong) ('29') and 0 only in B (model=weak)" in line


def test_compare_keeps_task_ids_that_read_like_a_side(tmp_path, capsys):
    a = pd.DataFrame({"task": ["runs_a", "runs_b", "t"], "run": 0, "passed": [True, False, True]})
    paths = [tmp_path / "one.csv", tmp_path / "two.csv"]
    a.to_csv(paths[0], index=False)
    a[a["task"] == "t"].to_csv(paths[1], index=False)
    line = refused(["compare", *map(str, paths)], capsys)
    assert (
        f"2 task(s) appear only in A ({paths[0]}) ('runs_a', 'runs_b') and 0 only in B "
        f"({paths[1]})" in line
    )
