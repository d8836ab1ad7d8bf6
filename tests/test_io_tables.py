from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import passk_lab as pk
from passk_lab.io import read_runs


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".ndjson", ".parquet", ".pq"])
def test_read_runs_reads_back_what_pandas_wrote(tmp_path, suffix):
    runs = pk.simulate_coin(tasks=6, k=3).assign(
        task=lambda frame: frame["task"].map("t{}".format),
        passed=lambda frame: frame["passed"] & (frame.index != 1),
        error=[None, "KeyError: 'x'"] + [None] * 16,
    )
    path = tmp_path / f"runs{suffix}"
    if suffix == ".csv":
        runs.to_csv(path, index=False)
    elif suffix in (".jsonl", ".ndjson"):
        runs.to_json(path, orient="records", lines=True)
    else:
        runs.to_parquet(path)
    back = read_runs(path)
    pd.testing.assert_frame_equal(pk.tally(back), pk.tally(runs))
    assert back["error"].notna().sum() == 1


def test_read_runs_refuses_unknown_formats_and_missing_files(tmp_path):
    with pytest.raises(ValueError, match=r"cannot tell the format of runs\.xlsx"):
        read_runs(tmp_path / "runs.xlsx")
    with pytest.raises(FileNotFoundError, match="no such runs file"):
        read_runs(tmp_path / "runs.csv")


# --- column mapping and derived runs -------------------------------------------------------


def test_columns_with_other_names_are_mapped(tmp_path):
    path = tmp_path / "results.csv"
    pd.DataFrame(
        {"problem": ["a", "a", "b", "b"], "attempt": [1, 0, 0, 1], "ok": [True, True, False, True]}
    ).to_csv(path, index=False)
    runs = read_runs(path, task="problem", run="attempt", passed="ok")
    assert runs.columns.tolist() == ["task", "run", "passed"]
    assert runs["run"].tolist() == [1, 0, 0, 1]
    assert pk.pass_pow_k(runs, 2) == 0.5


def test_a_reward_column_and_threshold_decide_the_verdicts(tmp_path):
    path = tmp_path / "scores.jsonl"
    scores = [0.9, 0.6, 0.75, 0.7 + 0.05 - 1e-9, 1.0, 0.0]
    pd.DataFrame({"task": [0, 0, 1, 1, 2, 2], "score": scores}).to_json(
        path, orient="records", lines=True
    )
    runs = read_runs(path, reward="score", threshold=0.75)
    np.testing.assert_array_equal(runs["passed"], pk.passed_from_reward(scores, 0.75))
    assert runs["passed"].tolist() == [True, False, True, True, True, False]
    assert runs["reward"].tolist() == scores
    assert runs["run"].tolist() == [0, 1, 0, 1, 0, 1]


def test_a_reward_without_a_threshold_passes_at_1(tmp_path):
    path = tmp_path / "runs.csv"
    pd.DataFrame({"task": [0, 0], "run": [0, 1], "reward": [1.0, 0.5]}).to_csv(path, index=False)
    assert read_runs(path)["passed"].tolist() == [True, False]


def test_runs_are_numbered_in_file_order_within_each_task_and_group(tmp_path):
    path = tmp_path / "runs.csv"
    frame = pd.DataFrame(
        {
            "model": ["a", "b", "a", "a", "b", "b"],
            "task": ["x", "x", "y", "x", "x", "y"],
            "passed": [True, False, True, False, True, True],
        }
    )
    frame.to_csv(path, index=False)
    assert read_runs(path, by="model")["run"].tolist() == [0, 0, 0, 1, 1, 0]
    assert read_runs(path)["run"].tolist() == [0, 1, 0, 2, 3, 1]
    expected = frame.groupby(["model", "task"], sort=False).cumcount().tolist()
    assert read_runs(path, by=["model"])["run"].tolist() == expected


def test_naming_reward_replaces_the_files_own_verdicts(tmp_path):
    path = tmp_path / "runs.csv"
    pd.DataFrame({"task": [0, 0], "passed": [True, True], "reward": [1.0, 0.2]}).to_csv(
        path, index=False
    )
    assert read_runs(path)["passed"].tolist() == [True, True]
    assert read_runs(path, reward="reward")["passed"].tolist() == [True, False]


# --- refusals -----------------------------------------------------------------------------


def table(tmp_path, name="runs.csv", **columns):
    path = tmp_path / name
    frame = pd.DataFrame(columns)
    if path.suffix == ".csv":
        frame.to_csv(path, index=False)
    else:
        frame.to_json(path, orient="records", lines=True)
    return path


@pytest.mark.parametrize(
    ("columns", "options", "message"),
    [
        ({"id": [0], "passed": [True]}, {}, r"runs\.csv: no task column .*name it with task="),
        ({"task": [0], "passed": [True]}, {"task": "problem"}, r"no column 'problem' \(given as"),
        (
            {"task": [0], "problem": [1], "passed": [True]},
            {"task": "problem"},
            r"has both a 'task' column and 'problem'",
        ),
        ({"task": [0], "score": [1.0]}, {}, r"runs\.csv: no passed or reward column"),
        (
            {"task": [0], "ok": [True], "score": [1.0]},
            {"passed": "ok", "reward": "score"},
            r"give passed= .* or reward= .*, not both",
        ),
        (
            {"task": [0], "passed": [True]},
            {"threshold": 0.5},
            r"runs\.csv: threshold applies to a reward",
        ),
        ({"task": [0], "passed": [True]}, {"by": "model"}, r"no 'model' column, named in by"),
    ],
)
def test_missing_or_conflicting_columns_are_refused(tmp_path, columns, options, message):
    with pytest.raises(ValueError, match=message):
        read_runs(table(tmp_path, **columns), **options)


@pytest.mark.parametrize(
    ("columns", "message"),
    [
        ({"task": ["a", None, "b"], "passed": [True] * 3}, r"runs\.csv, row 1: task is missing"),
        ({"task": [1, 2, 3], "passed": [True, None, True]}, r"runs\.csv, row 1: passed is missing"),
        ({"task": [1, 2, 3], "reward": [1.0, None, 1]}, r"runs\.csv, row 1: reward is missing"),
        ({"task": [1, 2, 3], "reward": [1, 0, 1.5]}, r"runs\.csv, row 2: reward is 1\.5, outside"),
        ({"task": [1, 2, 3], "reward": [1, "x", 0]}, r"runs\.csv, row 1: reward is 'x', not a num"),
        ({"task": [1, 2, 3], "run": [0, None, 1], "passed": [True] * 3}, r"row 1: run is missing"),
    ],
)
def test_a_bad_row_is_refused_naming_file_row_and_column(tmp_path, columns, message):
    with pytest.raises(ValueError, match=message):
        read_runs(table(tmp_path, **columns))


def test_a_mapped_reward_is_named_as_in_the_file(tmp_path):
    path = table(tmp_path, task=[1, 2], score=[0.5, 7.0])
    with pytest.raises(ValueError, match=r"row 1: score is 7\.0, outside \[0, 1\].*threshold="):
        read_runs(path, reward="score")
    assert read_runs(path, reward="score", threshold=5)["passed"].tolist() == [False, True]


def test_a_broken_jsonl_line_is_named(tmp_path):
    path = tmp_path / "runs.jsonl"
    path.write_text('{"task": 0, "passed": true}\n{"task": 1, "passed": tr\n')
    with pytest.raises(ValueError, match=r"runs\.jsonl, line 2, column \d+: not a readable JSONL"):
        read_runs(path)
    path.write_text('{"task": 0, "passed": true}\n[1, 2]\n')
    with pytest.raises(ValueError, match=r"runs\.jsonl, line 2: not a readable JSONL"):
        read_runs(path)


def test_a_truncated_parquet_file_is_refused(tmp_path):
    path = tmp_path / "runs.parquet"
    pk.simulate_coin(tasks=50, k=4).to_parquet(path)
    path.write_bytes(path.read_bytes()[:-100])
    with pytest.raises(ValueError, match=r"runs\.parquet: not a readable PARQUET runs table"):
        read_runs(path)
