from __future__ import annotations

import inspect
import json
from pathlib import Path

import pandas as pd
import pytest
from conftest import SHARED_DATA, TAU_BENCH
from fixtures import make

import passk_lab as pk
from passk_lab.io import FORMATS, detect_format, read
from passk_lab.io._formats import REGISTRY, Format


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("runs.csv", "task,run,passed\n", "table"),
        ("runs.JSONL", "", "table"),
        ("runs.ndjson", "", "table"),
        ("runs.parquet", "", "table"),
        ("runs.pq", "", "table"),
        ("log.eval", "", "inspect"),
        ("results.json", '\n  [{"task_id": 0}]', "tau-bench"),
        ("log.json", '{"version": 2, "status": "success"}', "inspect"),
    ],
)
def test_the_format_is_told_from_the_suffix_and_first_character(tmp_path, name, content, expected):
    path = tmp_path / name
    path.write_text(content)
    assert detect_format(path) == expected


def test_a_directory_takes_the_format_of_its_logs(tmp_path):
    (tmp_path / "a.json").write_text("[]")
    assert detect_format(tmp_path) == "tau-bench"
    (tmp_path / "deep").mkdir()
    (tmp_path / "deep" / "x.eval").write_bytes(b"")
    assert detect_format(tmp_path) == "inspect"


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("runs.txt", "task\n", r"cannot tell the format of runs\.txt: name it with format="),
        ("empty.json", "", r"cannot tell the format of empty\.json"),
        ("number.json", "42", r"cannot tell the format of number\.json"),
    ],
)
def test_an_unknown_format_is_refused_with_the_way_to_name_it(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(ValueError, match=message):
        detect_format(path)


def test_an_empty_directory_or_missing_path_is_refused(tmp_path):
    with pytest.raises(ValueError, match=r"a directory with no \.eval or \.json file"):
        detect_format(tmp_path)
    with pytest.raises(FileNotFoundError, match="no such results file or directory"):
        detect_format(tmp_path / "nothing")


def test_read_detects_or_obeys_the_format_and_passes_options(tmp_path):
    shared = TAU_BENCH / "gpt-4o-airline.json"
    pd.testing.assert_frame_equal(read(shared), pk.io.read_tau_bench(shared))
    renamed = read(shared, format="tau-bench", model="gpt-4o-2024-05-13")
    assert set(renamed["model"]) == {"gpt-4o-2024-05-13"}
    path = tmp_path / "scores.csv"
    pd.DataFrame({"id": [1, 1], "score": [0.5, 0.9]}).to_csv(path, index=False)
    runs = read(path, task="id", reward="score", threshold=0.6)
    assert runs["passed"].tolist() == [False, True]


def test_read_refuses_unknown_formats_and_options_of_another_format(tmp_path):
    path = tmp_path / "runs.json"
    path.write_text(json.dumps([{"task_id": 0, "trial": 0, "reward": 1.0, "info": {}}]))
    refusal = rf"unknown format 'csv': use auto, {', '.join(FORMATS)}"
    with pytest.raises(ValueError, match=refusal):
        read(path, format="csv")
    with pytest.raises(TypeError, match=r"not an option for tau-bench files: scorer, threshold"):
        read(path, scorer="match", threshold=0.5)
    assert pk.io.__doc__ is not None
    assert repr(FORMATS) in pk.io.__doc__


def test_a_ledger_is_told_from_its_header_and_read_as_its_runs(tmp_path):
    path = tmp_path / "ledger.jsonl"
    result = pk.evaluate(pk.coin_tasks(0.85, 40, seed=42), k=5, ledger=path)
    assert detect_format(path) == "ledger"
    pd.testing.assert_frame_equal(read(path), result.runs)
    table = tmp_path / "runs.jsonl"
    result.runs.drop(columns="started_at").to_json(table, orient="records", lines=True)
    assert detect_format(table) == "table"


# --- the table of formats -------------------------------------------------------------------


def samples(folder: Path) -> dict[str, list[Path]]:
    """Small files (and a directory) of each format, by the format's name."""
    texts = {
        "tau-bench": {"results.json": '[{"task_id": 0}]'},
        "inspect": {"log.json": '{"version": 2}', "logs/deep/log.eval": ""},
        "table": {"runs.csv": "task,passed\n", "runs.jsonl": '{"task": 0}\n'},
    }
    found: dict[str, list[Path]] = {"ledger": [folder / "ledger.jsonl"]}
    for name, files in texts.items():
        for file, text in files.items():
            path = folder / file
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            found.setdefault(name, []).append(path)
    pk.evaluate(pk.coin_tasks(0.5, 2, seed=1), k=1, ledger=found["ledger"][0])
    found["inspect"].append(folder / "logs")  # a directory holding an .eval log
    for name, paths in FIXTURES.items():
        found.setdefault(name, []).extend(paths)
    return found


HARBOR_JOB = make.HERE / "harbor" / "2026-08-20__10-00-00"
FIXTURES: dict[str, list[Path]] = {
    "tau2": [
        make.HERE / "tau2" / "gpt-4.1_airline_llm_agent_3trials.json",
        make.HERE / "tau2" / "retail_dir",
        make.HERE / "tau2" / "retail_dir" / "results.json",
        *sorted((SHARED_DATA / "tau2").glob("monolithic_*/*.json")),
        SHARED_DATA / "tau2" / "dir_format" / "experiment",
    ],
    "harbor": [
        make.HERE / "harbor",
        HARBOR_JOB,
        HARBOR_JOB / "result.json",
        next(HARBOR_JOB.glob("*/result.json")),
    ],
    "hal": [
        make.HERE / "hal",
        *sorted((make.HERE / "hal").glob("*/*_UPLOAD.json")),
    ],
    "lm-eval": [
        *sorted((make.HERE / "lm_eval").glob("*/samples_gsm8k_rep3_*.jsonl")),
        *sorted((make.HERE / "lm_eval").glob("*/samples_*.jsonl")),
        make.HERE / "lm_eval",
    ],
    "counts": sorted((make.HERE / "counts").iterdir(), reverse=True),  # counts.jsonl first
    "samples": sorted((make.HERE / "samples").iterdir()),
}
"""The committed fixtures (and the shared real files) of each format beside the sample files."""


@pytest.mark.parametrize(
    ("name", "path"),
    [(name, path) for name, paths in FIXTURES.items() for path in paths[:1]],
    ids=list(FIXTURES),
)
def test_read_detects_each_fixture_and_reads_it_as_its_reader_does(name, path):
    row = next(row for row in REGISTRY if row.name == name)
    options = {"task": "task_id"} if name == "counts" else {}
    pd.testing.assert_frame_equal(read(path, **options), row.reader(path, **options))


def test_the_table_names_each_format_once_in_the_order_of_formats():
    assert tuple(row.name for row in REGISTRY) == FORMATS
    assert len(set(FORMATS)) == len(FORMATS)


def test_every_row_passes_on_options_its_reader_takes_by_keyword():
    expected = {
        "tau-bench": ("model", "domain"),
        "tau2": ("partial",),
        "harbor": ("reward", "threshold", "partial"),
        "hal": ("threshold", "partial"),
        "samples": (),
        "lm-eval": ("metric", "filter", "threshold", "partial"),
        "inspect": ("scorer", "threshold"),
        "counts": ("by", "task", "n", "c"),
        "table": ("by", "task", "run", "passed", "reward", "threshold"),
        "ledger": (),
    }
    assert {row.name: row.options for row in REGISTRY} == expected
    for row in REGISTRY:
        inspect.signature(row.reader).bind("runs.csv", **dict.fromkeys(row.options))


def test_exactly_one_row_claims_a_sample_of_each_format(tmp_path):
    for name, paths in samples(tmp_path).items():
        for path in paths:
            assert [row.name for row in REGISTRY if row.sniff(path)] == [name], path
            assert detect_format(path) == name


def test_a_new_format_is_one_row_of_the_table(tmp_path, monkeypatch):
    def read_verdicts(path, *, passing="pass"):
        """One line per run: the task, then its verdict."""
        lines = [line.split() for line in Path(path).read_text().splitlines()]
        runs = pd.DataFrame(lines, columns=["task", "verdict"])
        runs["run"] = runs.groupby("task").cumcount()
        runs["passed"] = runs["verdict"] == passing
        return runs

    row = Format("verdicts", read_verdicts, lambda path: path.suffix == ".verdicts")
    monkeypatch.setattr("passk_lab.io._formats.REGISTRY", (*REGISTRY, row))
    path = tmp_path / "runs.verdicts"
    path.write_text("a pass\na fail\nb ok\n")
    assert detect_format(path) == "verdicts"
    assert read(path)["passed"].tolist() == [True, False, False]
    assert read(path, format="verdicts", passing="ok")["passed"].tolist() == [False, False, True]
    with pytest.raises(TypeError, match=r"not an option for verdicts files: model \(.*passing\)"):
        read(path, model="m")
    with pytest.raises(ValueError, match=rf"use auto, {', '.join(FORMATS)}, verdicts"):
        read(path, format="csv")
    assert pk.pass_at_1(read(path)) == 0.25


def test_a_format_without_options_says_so(tmp_path):
    path = tmp_path / "ledger.jsonl"
    pk.evaluate(pk.coin_tasks(0.5, 2, seed=1), k=1, ledger=path)
    with pytest.raises(TypeError, match=r"ledger files: by \(ledger files take no options\)"):
        read(path, by="model")
