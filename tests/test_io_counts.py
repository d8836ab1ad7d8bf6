from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from fixtures import build_counts

import passk_lab as pk
from passk_lab.io._counts import is_counts, read_counts

FIXTURES = Path(__file__).parent / "fixtures" / "counts"


def _as_dict(tally: pd.DataFrame, keys: list[str]) -> dict[object, tuple[int, int]]:
    return {
        (tuple(row[keys]) if len(keys) > 1 else row[keys[0]]): (int(row["n"]), int(row["c"]))
        for _, row in tally.iterrows()
    }


def test_the_fixture_round_trips_through_every_estimator():
    counts = read_counts(FIXTURES / "counts.jsonl", task="task_id")
    assert counts.columns.tolist() == ["task", "n", "c", "temperature", "file"]
    assert counts["n"].dtype == np.int64
    assert counts["c"].dtype == np.int64
    assert _as_dict(pk.tally(counts), ["task"]) == build_counts.COUNTS
    records = [json.loads(line) for line in (FIXTURES / "counts.jsonl").read_text().splitlines()]
    assert counts["task"].tolist() == [record["task_id"] for record in records]
    assert counts["temperature"].tolist() == [record["temperature"] for record in records]
    assert set(counts["file"]) == {"counts.jsonl"}
    expected = np.mean([c / n for n, c in build_counts.COUNTS.values()])
    assert pk.pass_at_k(counts, 1) == pytest.approx(expected)
    curve = pk.reliability_curve(counts, ks=[1, 2])
    assert curve["pass_pow_k"].iloc[0] == pytest.approx(expected)


def test_groups_may_repeat_a_task():
    counts = read_counts(FIXTURES / "by_model.csv", by="model")
    assert counts.columns.tolist()[:4] == ["model", "task", "n", "c"]
    assert _as_dict(pk.tally(counts, by="model"), ["model", "task"]) == (
        build_counts.COUNTS_BY_MODEL
    )


def test_parquet_and_its_sniff(tmp_path):
    frame = pd.DataFrame({"task": ["a", "b"], "n": [3, 4], "c": [1, 4]})
    frame.to_parquet(tmp_path / "counts.parquet")
    assert _as_dict(read_counts(tmp_path / "counts.parquet"), ["task"]) == {
        "a": (3, 1),
        "b": (4, 4),
    }
    assert is_counts(tmp_path / "counts.parquet")
    assert is_counts(FIXTURES / "counts.jsonl")
    assert is_counts(FIXTURES / "by_model.csv")
    frame.assign(run=0).to_parquet(tmp_path / "runs.parquet")
    assert not is_counts(tmp_path / "runs.parquet")
    (tmp_path / "runs.jsonl").write_text(
        '{"task": "a", "run": 0, "passed": true, "n": 1, "c": 1}\n'
    )
    assert not is_counts(tmp_path / "runs.jsonl")
    (tmp_path / "counts.json").write_text('{"task": "a", "n": 1, "c": 1}\n')
    assert not is_counts(tmp_path / "counts.json")


def _jsonl(tmp_path: Path, *records: str) -> Path:
    path = tmp_path / "counts.jsonl"
    path.write_text("".join(record + "\n" for record in records))
    return path


@pytest.mark.parametrize(
    ("second", "match"),
    [
        ('{"task": "b", "n": 3, "c": 4}', r"line 2: n is 3 and c is 4; c counts passes"),
        ('{"task": "b", "n": 3, "c": -1}', r"line 2: n is 3 and c is -1; c must be at least 0"),
        ('{"task": "b", "n": 0, "c": 0}', r"line 2: n is 0 and c is 0; n must be at least 1"),
        ('{"task": "b", "n": 2.5, "c": 1}', r"line 2: n is 2.5, a number with a fraction"),
        ('{"task": "b", "n": 2.0, "c": 1}', r"line 2: n is 2.0, a number with a fraction"),
        ('{"task": "b", "n": "3", "c": 1}', r"line 2: n is '3', text; a count is a whole"),
        ('{"task": "b", "n": 3, "c": true}', r"line 2: c is True, a boolean"),
        ('{"task": "b", "n": 3, "c": null}', r"line 2: c is missing"),
        ('{"task": "b", "n": 3}', r"line 2: c is missing"),
        ('{"n": 3, "c": 1}', r"line 2: task is missing"),
        ('{"task": "a", "n": 3, "c": 1}', r"line 2: task 'a' is listed twice"),
        ('{"task": ["b"], "n": 3, "c": 1}', r"line 2.*task holds a list"),
        ('{"task": 2, "n": 3, "c": 1}', r"line 2: task is 2, an integer, but on line 1"),
        ('{"task": "b", "run": 0, "n": 3, "c": 1}', r"counts.jsonl: has run, the columns of a"),
    ],
)
def test_damaged_json_lines_are_refused(tmp_path, second, match):
    path = _jsonl(tmp_path, '{"task": "a", "n": 3, "c": 1}', second)
    with pytest.raises(ValueError, match=match):
        read_counts(path)


def test_damaged_csv_files_are_refused(tmp_path):
    path = tmp_path / "counts.csv"
    for body, match in [
        ("task,n,c\na,3,1\nb,2.5,1\n", r"row 1 \(line 3\): n is '2.5', not an integer"),
        ("task,n,c\na,3,1\nb,,1\n", r"row 1 \(line 3\): n is missing"),
        ("task,n,c\na,3,1\nb,three,1\n", r"row 1 \(line 3\): n is 'three', not an integer"),
        ("task,n,c\na,3,1\na,2,1\n", r"row 1 \(line 3\): task 'a' is listed twice"),
        ("task,n,c\n", r"no counts, only a header"),
        ("", r"the file is empty; a counts table has one row per task"),
        (
            "problem,n,c\na,3,1\n",
            r"no task column \(its .*name it with task='\.\.\.'$",
        ),
    ]:
        path.write_text(body)
        with pytest.raises(ValueError, match=match):
            read_counts(path)
    path.write_text("task,n,c\na,3,1\n")
    with pytest.raises(ValueError, match=r"no column 'samples' \(given as n=; its columns"):
        read_counts(path, n="samples")
    with pytest.raises(ValueError, match=r"no column 'cc' \(given as c=.*did you mean 'c'\?$"):
        read_counts(path, c="cc")


def test_a_file_cut_short_is_refused(tmp_path):
    shutil.copy(FIXTURES / "counts.jsonl", tmp_path / "counts.jsonl")
    text = (tmp_path / "counts.jsonl").read_text()
    (tmp_path / "counts.jsonl").write_text(text[:-20])
    with pytest.raises(ValueError, match=r"counts.jsonl, line 4.*not a readable JSONL counts"):
        read_counts(tmp_path / "counts.jsonl", task="task_id")


@pytest.mark.parametrize(
    ("body", "match"),
    [
        ("task,n,c\na,5,2\nb,5,2.0\n", r"row 1 \(line 3\): c is '2.0', not an integer"),
        (
            "task,n,c\na,5,1\nb,99999999999999999999999,1\n",
            r"row 1 \(line 3\): n is '99999999999999999999999', not an integer within int64",
        ),
        ("task,n,c\na,5,1\nb,³,1\n", r"row 1 \(line 3\): n is '³', not an integer"),
        ("task,n,c\na,5,1\nb,5\u00a0,1\n", r"row 1 \(line 3\): n is '5\\xa0', not an integer"),
    ],
)
def test_a_csv_count_that_is_no_integer_is_named_by_its_row(tmp_path, body, match):
    path = tmp_path / "counts.csv"
    path.write_text(body, encoding="utf-8")
    with pytest.raises(ValueError, match=match):
        read_counts(path)


def test_blank_lines_before_the_first_line_are_skipped_by_the_sniff(tmp_path):
    (tmp_path / "counts.csv").write_text("\n\ntask,n,c\na,5,2\n")
    (tmp_path / "counts.jsonl").write_text('\n{"task": "a", "n": 5, "c": 2}\n')
    assert is_counts(tmp_path / "counts.csv")
    assert is_counts(tmp_path / "counts.jsonl")
    (tmp_path / "far.csv").write_text("\n" * 70_000 + "task,n,c\na,5,2\n")
    assert not is_counts(tmp_path / "far.csv")  # the sniff reads 64 KB at most


def test_a_column_named_file_is_refused(tmp_path):
    path = tmp_path / "counts.csv"
    path.write_text("task,n,c,file\na,5,2,x.json\n")
    with pytest.raises(ValueError, match=r"counts.csv: has a column 'file'.*rename that column"):
        read_counts(path)


@pytest.mark.parametrize(("by", "task"), [("task", None), ("n", None), ("c", None), ("id", "id")])
def test_by_may_not_name_the_task_or_a_count(tmp_path, by, task):
    path = tmp_path / "counts.csv"
    path.write_text("task,id,n,c\na,a,5,2\n")
    with pytest.raises(ValueError, match=rf"by names '{by}', a column the result keeps"):
        read_counts(path, by=by, task=task)


def test_ids_are_marked_as_repeats_once(tmp_path, monkeypatch):
    path = tmp_path / "counts.csv"
    path.write_text("model,task,n,c\nx,a,5,2\ny,a,5,2\nx,a,5,1\n")
    calls = []
    duplicated = pd.DataFrame.duplicated
    monkeypatch.setattr(
        pd.DataFrame, "duplicated", lambda *args, **kw: calls.append(1) or duplicated(*args, **kw)
    )
    with pytest.raises(ValueError, match=r"row 2 \(line 4\): task 'a' is listed twice within"):
        read_counts(path, by="model")
    assert len(calls) == 1


def test_the_missing_value_check_is_the_runs_tables_one(tmp_path):
    from passk_lab.io import _counts, _table_files

    assert _counts.require_complete is _table_files.require_complete
    path = tmp_path / "counts.csv"
    path.write_text("task,n,c\na,5,2\nb,5,\n")
    with pytest.raises(ValueError, match=r"row 1 \(line 3\): c is missing.*every task needs"):
        read_counts(path)
