"""A table with its own column names: pk.runs, the refusal that names every missing column, and
runs numbered in order where a table has none."""

from __future__ import annotations

import io
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_cli_refusals import refused

import passk_lab as pk
from passk_lab._data.mapping import run_order
from passk_lab._data.names import SYNONYMS, likely_columns
from passk_lab._data.units import find_units
from passk_lab._errors import keywords_of
from passk_lab.cli import main


def own_table(seed: int = 7) -> pd.DataFrame:
    """The user's table: problem_id, attempt, score; 3 to 5 attempts a problem, rows shuffled."""
    rng = np.random.default_rng(seed)
    rows = [
        {"problem_id": f"p{task}", "attempt": attempt + 1, "score": float(rng.random() < rate)}
        for task, rate in enumerate(rng.uniform(0.2, 0.95, size=9))
        for attempt in range(int(rng.integers(3, 6)))
    ]
    return pd.DataFrame(rows).sample(frac=1.0, random_state=seed).reset_index(drop=True)


def by_hand(frame: pd.DataFrame, k: int) -> tuple[float, float]:
    """pass@1 and pass^k from the frame itself: per problem, C(c, k) / C(n, k), averaged."""
    rows = frame.groupby("problem_id")["score"].agg(n="size", c=lambda s: int((s == 1).sum()))
    pass_at_1 = float((rows["c"] / rows["n"]).mean())
    counted = rows[rows["n"] >= k]
    pow_k = [
        math.comb(c, k) / math.comb(n, k) for n, c in zip(counted["n"], counted["c"], strict=True)
    ]
    return pass_at_1, sum(pow_k) / len(pow_k)


# --- the user's case: problem_id, attempt, score ------------------------------------------


def test_a_table_of_its_own_names_is_refused_once_naming_every_missing_column():
    with pytest.raises(ValueError, match="has no") as refused_table:
        pk.pass_pow_k(own_table(), 2)
    message = str(refused_table.value)
    assert message.startswith(
        "runs has no task column, no passed or reward column and no run column (its columns are "
        "['problem_id', 'attempt', 'score']); by their names, map yours: "
        "pk.runs(runs, task='problem_id', run='attempt', reward='score')"
    )
    assert keywords_of(refused_table.value) == ("task", "run", "reward")
    for statistic in (pk.tally, pk.reliability_curve, pk.pass_at_1, pk.outcome_matrix):
        with pytest.raises(ValueError, match="has no") as again:
            statistic(own_table())
        assert str(again.value) == message


def test_runs_maps_the_columns_and_the_statistics_match_a_count_by_hand():
    frame = own_table()
    table = pk.runs(frame, task="problem_id", run="attempt", reward="score")
    assert table.columns.tolist() == ["task", "run", "reward", "passed"]
    assert table["passed"].tolist() == (frame["score"] == 1).tolist()
    assert table["run"].tolist() == frame["attempt"].tolist()
    pass_at_1, pass_pow_3 = by_hand(frame, 3)
    assert pk.pass_at_1(table) == pytest.approx(pass_at_1, rel=1e-12)
    assert pk.pass_pow_k(table, 3) == pytest.approx(pass_pow_3, rel=1e-12)
    curve = pk.reliability_curve(table, [3])
    assert curve["pass_pow_k"].iloc[0] == pytest.approx(pass_pow_3, rel=1e-12)
    assert list(frame.columns) == ["problem_id", "attempt", "score"]  # left as it was


def test_read_runs_and_runs_refuse_with_one_message(tmp_path):
    frame = own_table()
    path = tmp_path / "own.csv"
    frame.to_csv(path, index=False)
    with pytest.raises(ValueError, match="has no") as from_file:
        pk.io.read_runs(path)
    with pytest.raises(ValueError, match="has no") as from_frame:
        pk.runs(frame)
    assert str(from_file.value).startswith(f"{path} has no task column")
    assert str(from_frame.value).startswith("table has no task column")
    tail = str(from_frame.value).removeprefix("table")
    assert str(from_file.value).removeprefix(str(path)) == tail
    assert "map yours: task='problem_id', run='attempt', reward='score'" in tail
    assert (
        keywords_of(from_file.value) == keywords_of(from_frame.value) == ("task", "run", "reward")
    )
    read = pk.io.read_runs(path, task="problem_id", run="attempt", reward="score")
    pd.testing.assert_frame_equal(
        read, pk.runs(frame, task="problem_id", run="attempt", reward="score"), check_dtype=False
    )


def test_the_command_line_says_the_same_and_reads_the_table_with_its_options(tmp_path, capsys):
    frame = own_table()
    path = tmp_path / "own.csv"
    frame.to_csv(path, index=False)
    line = refused(["analyze", str(path)], capsys)
    with pytest.raises(ValueError, match="has no") as from_file:
        pk.io.read_runs(path)
    told = " (on the command line: task= is --task, run= is --run, reward= is --reward)"
    assert line == f"passk-lab analyze: error: {from_file.value}{told}"
    options = ["--task", "problem_id", "--run", "attempt", "--reward", "score"]
    assert main(["analyze", str(path), *options, "--k", "1,3", "--to", "json"]) == 0
    printed = pd.read_json(io.StringIO(capsys.readouterr().out))
    pass_at_1, pass_pow_3 = by_hand(frame, 3)
    assert printed["pass_pow_k"].tolist() == pytest.approx([pass_at_1, pass_pow_3], rel=1e-9)


# --- what the refusal suggests ------------------------------------------------------------


@pytest.mark.parametrize(
    ("columns", "wanted", "expected"),
    [
        (
            ["instance_id", "trial", "resolved"],
            ["task", "run", "passed"],
            {"task": "instance_id", "run": "trial", "passed": "resolved"},
        ),
        (
            ["ProblemID", "Epoch", "is-correct"],
            ["task", "run", "passed"],
            {"task": "ProblemID", "run": "Epoch", "passed": "is-correct"},
        ),
        (
            ["question_id", "seed", "accuracy"],
            ["task", "run", "passed", "reward"],
            {"task": "question_id", "run": "seed", "reward": "accuracy"},
        ),
        # close spellings of a name or a synonym
        (
            ["tsk_id", "atempt", "sucess"],
            ["task", "run", "passed"],
            {"task": "tsk_id", "run": "atempt", "passed": "sucess"},
        ),
        # the likelier synonym wins; a column is told once; a verdict beats a score
        (
            ["id", "problem_id", "score", "correct"],
            ["task", "passed", "reward"],
            {"task": "problem_id", "passed": "correct"},
        ),
        # a runs table's own columns and unlike names are never told
        (["error", "n", "model", "notes"], ["task", "run", "passed", "reward"], {}),
    ],
)
def test_likely_columns_by_name_then_by_spelling(columns, wanted, expected):
    assert likely_columns(columns, wanted) == expected


def test_the_synonyms_hold_the_names_other_tools_give():
    assert {"problem_id", "instance_id", "sample_id", "task_id", "question_id", "id"} <= set(
        SYNONYMS["task"]
    )
    assert {"attempt", "trial", "epoch", "seed", "sample", "repeat"} <= set(SYNONYMS["run"])
    assert {"success", "resolved", "correct", "is_resolved", "pass"} <= set(SYNONYMS["passed"])
    assert {"score", "accuracy"} <= set(SYNONYMS["reward"])
    every = [name for names in SYNONYMS.values() for name in names]
    assert len(every) == len(set(every))  # no name is two columns


def test_a_table_with_no_likely_column_is_told_what_to_name():
    frame = pd.DataFrame({"a": [1], "b": [True]})
    with pytest.raises(ValueError, match="has no") as refused_table:
        pk.tally(frame.assign(passed=True).drop(columns="b"))
    assert str(refused_table.value) == (
        "runs has no task column (its columns are ['a', 'passed']); name yours: "
        "pk.runs(runs, task='...')"
    )
    with pytest.raises(ValueError, match=r"yours \(the columns given look like them\): task='pr"):
        pk.runs(pd.DataFrame({"problem": ["x"], "flag": [True]}))
    with pytest.raises(ValueError, match="neither a runs table nor a tally"):
        pk.tally(frame)  # nothing looks like a verdict: any of the three kinds is told


# --- pk.runs ------------------------------------------------------------------------------


def test_runs_numbers_each_tasks_runs_in_row_order_within_groups():
    frame = pd.DataFrame(
        {
            "agent": ["x", "y", "x", "x", "y", "x"],
            "problem": ["p", "p", "q", "p", "p", "p"],
            "ok": [1, 0, 1, 0, 1, 1],
            "notes": list("abcdef"),
        }
    )
    table = pk.runs(frame, by="agent", task="problem", passed="ok")
    expected = frame.groupby(["agent", "problem"], sort=False).cumcount()
    assert table["run"].tolist() == expected.tolist() == [0, 0, 0, 1, 1, 2]
    assert table["passed"].dtype == bool
    assert table["notes"].tolist() == list("abcdef")  # other columns kept
    assert pk.tally(table, by="agent")["n"].tolist() == [3, 2, 1]


def test_runs_decides_from_a_reward_with_a_threshold_and_replaces_a_passed_column():
    frame = pd.DataFrame({"task": ["a", "a"], "passed": [True, True], "score": [7.0, 9.5]})
    table = pk.runs(frame, reward="score", threshold=8)
    assert table["passed"].tolist() == [False, True]
    assert table.columns.tolist() == ["task", "reward", "passed", "run"]


@pytest.mark.parametrize(
    ("frame", "options", "error", "message"),
    [
        (
            pd.DataFrame({"problem_id": ["a"], "passed": [True]}),
            {"task": "problem"},
            ValueError,
            r"table has no column 'problem' \(given as task=; its columns are "
            r"\['problem_id', 'passed'\]\): did you mean 'problem_id'\?$",
        ),
        (
            pd.DataFrame({"task": ["a"], "id": ["b"], "passed": [True]}),
            {"task": "id"},
            ValueError,
            r"has both a 'task' column and 'id' \(given as task=\)",
        ),
        (
            pd.DataFrame({"task": ["a"], "ok": [True], "score": [1.0]}),
            {"passed": "ok", "reward": "score"},
            ValueError,
            r"give passed= .* or reward= .*, not both",
        ),
        (
            pd.DataFrame({"task": ["a"], "passed": [True]}),
            {"threshold": 0.5},
            ValueError,
            r"threshold applies to a reward",
        ),
        (
            pd.DataFrame({"task": ["a", "a"], "score": [0.5, 7.0]}),
            {"reward": "score"},
            ValueError,
            r"row 1: score is 7\.0, outside \[0, 1\].*give threshold=",
        ),
        (
            pd.DataFrame({"task": ["a", "a"], "score": [0.5, "high"]}),
            {"reward": "score"},
            ValueError,
            r"row 1: score is 'high', not a number",
        ),
        (
            pd.DataFrame({"task": ["a"], "passed": ["yes"]}),
            {},
            ValueError,
            r"passed must be boolean",
        ),
        (
            pd.DataFrame({"task": ["a"], "attempt": [0.5], "passed": [True]}),
            {"run": "attempt"},
            ValueError,
            r"run must hold whole numbers",
        ),
        (pd.DataFrame({"task": ["a"], "passed": [True]}), {"task": 3}, TypeError, r"task= names"),
    ],
)
def test_runs_refuses_what_it_cannot_map(frame, options, error, message):
    with pytest.raises(error, match=message):
        pk.runs(frame, **options)


# --- a table without run numbers, in every statistic --------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 4)), min_size=1, max_size=40),
    st.booleans(),
)
def test_run_order_numbers_rows_as_pandas_cumcount_does(keys, contiguous):
    frame = pd.DataFrame(keys, columns=["model", "task"])
    if contiguous:
        frame = frame.sort_values(["model", "task"], kind="stable").reset_index(drop=True)
    units = find_units(frame, ["model", "task"])
    expected = frame.groupby(["model", "task"], sort=False).cumcount().to_numpy()
    assert run_order(units, len(frame)).tolist() == expected.tolist()


def test_a_table_without_run_is_counted_as_numbered_in_order():
    numbered = pk.simulate_coin(p=0.7, tasks=12, k=4, seed=3).sample(frac=1.0, random_state=1)
    numbered = numbered.reset_index(drop=True)
    bare = numbered.drop(columns="run")
    renumbered = numbered.assign(run=numbered.groupby("task", sort=False).cumcount())
    pd.testing.assert_frame_equal(pk.tally(bare), pk.tally(numbered))
    pd.testing.assert_frame_equal(pk.outcome_matrix(bare), pk.outcome_matrix(renumbered))
    pd.testing.assert_frame_equal(pk.per_run(bare), pk.per_run(renumbered))
    pd.testing.assert_frame_equal(
        pk.reliability_curve(bare, rng=0), pk.reliability_curve(numbered, rng=0)
    )


def test_a_dask_table_without_run_is_counted_as_the_pandas_one():
    dd = pytest.importorskip("dask.dataframe")
    runs = pk.simulate_coin(p=0.6, tasks=9, k=5, seed=4).drop(columns="run")
    pd.testing.assert_frame_equal(
        pk.tally(dd.from_pandas(runs, npartitions=3)), pk.tally(runs), check_dtype=False
    )


def test_a_report_of_a_table_without_run_shows_its_runs(tmp_path):
    runs = pk.simulate_coin(p=0.6, tasks=9, k=3, seed=4)
    from passk_lab.report._inputs import checked

    given_runs = checked(runs.drop(columns="run"), None, "fail", None)
    numbered = checked(runs, None, "fail", None)
    assert given_runs.states is not None
    pd.testing.assert_frame_equal(given_runs.states, numbered.states)
