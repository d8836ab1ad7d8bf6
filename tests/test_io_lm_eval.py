"""lm-evaluation-harness sample logs: the fixture round-trips and damaged files are refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from fixtures import build_lm_eval

import passk_lab as pk
from passk_lab.io._lm_eval import is_lm_eval, read_lm_eval

FIXTURE = Path(__file__).parent / "fixtures" / "lm_eval"
GSM8K = [FIXTURE / name for name in build_lm_eval.GSM8K_FILES]
REPEAT = FIXTURE / build_lm_eval.REPEAT_FILE


def _counts(runs) -> dict[int, tuple[int, int]]:  # type: ignore[no-untyped-def]
    tally = pk.tally(runs)
    return {
        int(t): (int(n), int(c))
        for t, n, c in zip(tally["task"], tally["n"], tally["c"], strict=True)
    }


def _copy(tmp_path: Path) -> list[Path]:
    shutil.copytree(FIXTURE, tmp_path / "lm_eval")
    return [tmp_path / "lm_eval" / name for name in build_lm_eval.GSM8K_FILES]


def _records(file: Path) -> list[dict]:
    return [json.loads(line) for line in file.read_text().splitlines()]


def _rewrite(file: Path, records: list[dict]) -> None:
    file.write_text("".join(json.dumps(record) + "\n" for record in records))


def test_regenerating_gives_the_same_bytes(tmp_path: Path) -> None:
    build_lm_eval.write(tmp_path)
    files = sorted(FIXTURE.rglob("*.json*"))
    assert len(files) == 6
    for file in files:
        assert (tmp_path / file.relative_to(FIXTURE)).read_bytes() == file.read_bytes()


def test_two_seeded_files_are_two_runs() -> None:
    assert _counts(read_lm_eval(GSM8K, filter="strict-match")) == build_lm_eval.COUNTS
    flexible = read_lm_eval(GSM8K, filter="flexible-extract")
    assert _counts(flexible) == build_lm_eval.COUNTS_FLEXIBLE


def test_columns_hold_what_the_lines_held() -> None:
    runs = read_lm_eval(list(reversed(GSM8K)), filter="strict-match")
    expected = []
    for run, file in enumerate(GSM8K):  # runs follow the date_id, not the order given
        for record in _records(file):
            if record["filter"] == "strict-match":
                expected.append((file.name, run, record))
    assert sorted(runs["file"].unique()) == [file.name for file in GSM8K]
    rows = {(row.file, row.task): row for row in runs.itertuples()}
    assert len(rows) == len(expected) == 6
    results = json.loads((GSM8K[0].parent / "results_2024-05-01T10-00-00.000001.json").read_text())
    for name, run, record in expected:
        row = rows[(name, record["doc_id"])]
        assert row.run == run
        assert row.reward == record["exact_match"]
        assert row.passed == (record["exact_match"] == 1)
        assert row.lm_eval_task == "gsm8k"
        assert row.filter == record["filter"]
        assert row.metric == record["metrics"][0]
        assert row.model == results["model_name"]
        assert row.doc_hash == record["doc_hash"]
        assert row.prompt_hash == record["prompt_hash"]
        assert row.target_hash == record["target_hash"]
        assert row.target == record["target"]
    assert runs["task"].dtype == "int64"
    assert runs["run"].dtype == "int64"
    assert runs.attrs["files"] == [str(file) for file in reversed(GSM8K)]


def test_a_list_metric_is_one_run_per_repeat() -> None:
    runs = read_lm_eval(REPEAT)
    assert _counts(runs) == build_lm_eval.COUNTS_REPEATS
    records = _records(REPEAT)
    assert runs["reward"].tolist() == [v for record in records for v in record["exact_match"]]
    assert runs["run"].tolist() == [0, 1, 2, 0, 1, 2]
    assert set(runs["lm_eval_task"]) == {"gsm8k_rep3"}
    assert set(runs["filter"]) == {"none"}


def test_a_folder_and_a_glob(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"samples_gsm8k_2024.*2 filters.*'strict-match'.*filter="):
        read_lm_eval(FIXTURE)
    runs = read_lm_eval(str(FIXTURE / "*" / "samples_gsm8k_rep3_*.jsonl"))
    assert _counts(runs) == build_lm_eval.COUNTS_REPEATS
    folder = tmp_path / "out" / "EleutherAI__pythia-160m"
    folder.mkdir(parents=True)
    shutil.copy(REPEAT, folder)
    assert _counts(read_lm_eval(tmp_path / "out")) == build_lm_eval.COUNTS_REPEATS
    # without results json the model is the folder's name
    assert set(read_lm_eval(tmp_path / "out")["model"]) == {"EleutherAI__pythia-160m"}


def test_sniff(tmp_path: Path) -> None:
    assert is_lm_eval(FIXTURE)
    assert is_lm_eval(FIXTURE / "EleutherAI__pythia-160m")
    assert is_lm_eval(GSM8K[0])
    assert is_lm_eval(REPEAT)
    other = tmp_path / "runs.jsonl"
    other.write_text('{"task": 0, "run": 0, "passed": true}\n')
    assert not is_lm_eval(other)
    assert not is_lm_eval(tmp_path)
    ledger = tmp_path / "ledger.jsonl"
    ledger.write_text('{"format": "passk_lab.ledger"}\n')
    assert not is_lm_eval(ledger)
    assert not is_lm_eval(
        FIXTURE / "EleutherAI__pythia-160m" / "results_2024-05-03T10-00-00.000003.json"
    )


def test_a_doc_missing_from_one_run(tmp_path: Path) -> None:
    files = _copy(tmp_path)
    _rewrite(files[1], [r for r in _records(files[1]) if r["doc_id"] != 1])
    with pytest.raises(
        ValueError, match=r"task 1 has 1 of the 2 trials the 2 samples file.*partial=True"
    ):
        read_lm_eval(files, filter="strict-match")
    runs = read_lm_eval(files, filter="strict-match", partial=True)
    assert _counts(runs) == {0: (2, 2), 1: (1, 1), 2: (2, 0)}


def test_a_duplicate_document(tmp_path: Path) -> None:
    files = _copy(tmp_path)
    records = _records(files[0])
    _rewrite(files[0], [*records, records[0]])
    with pytest.raises(
        ValueError, match=r"samples_gsm8k_2024-05-01.*doc_id 0: run 0 of task 0 is recorded twice"
    ):
        read_lm_eval(files, filter="strict-match")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: r.pop("doc_id"), r"line 1: no doc_id"),
        (
            lambda r: r.update(doc_id="zero"),
            r"line 1 \(doc_id 'zero'\): doc_id is 'zero', text; lm-eval numbers documents",
        ),
        (lambda r: r.update(doc_id=1.5), r"line 1 \(doc_id 1.5\): doc_id is 1.5"),
        (lambda r: r.pop("exact_match"), r"line 1 \(doc_id 0\): no exact_match; .*metric="),
        (
            lambda r: r.update(exact_match="1.0"),
            r"line 1 \(doc_id 0\): exact_match is '1.0', text",
        ),
        (lambda r: r.update(exact_match=None), r"line 1 \(doc_id 0\): exact_match is None"),
        (
            lambda r: r.update(exact_match=float("nan")),
            r"line 1 \(doc_id 0\): exact_match is missing",
        ),
        (
            lambda r: r.update(exact_match=2.0),
            r"line 1 \(doc_id 0\): exact_match is 2.0, outside \[0, 1\]",
        ),
        (
            lambda r: r.update(exact_match={"pass@2": 0.5}),
            r"line 1 \(doc_id 0\): exact_match is .*pass@k estimate.*--seed",
        ),
        (
            lambda r: r.update(resps=[["a", "b"]]),
            r"line 1 \(doc_id 0\): exact_match is 1.0 for 2 responses; the harness combined",
        ),
        (
            lambda r: r.update(metrics=["exact_match", "f1"]),
            r"line 1 \(doc_id 0\): metrics is .*metric=",
        ),
    ],
)
def test_damaged_lines_are_refused(tmp_path: Path, change, message: str) -> None:  # type: ignore[no-untyped-def]
    files = _copy(tmp_path)
    records = _records(files[0])
    change(records[0])
    _rewrite(files[0], records)
    with pytest.raises(
        ValueError, match=r"samples_gsm8k_2024-05-01T10-00-00.000001.jsonl, " + message
    ):
        read_lm_eval(files, filter="strict-match")


def test_a_list_of_the_wrong_length(tmp_path: Path) -> None:
    files = _copy(tmp_path)
    repeat = files[0].parent / Path(build_lm_eval.REPEAT_FILE).name
    records = _records(repeat)
    records[1]["exact_match"] = [1.0, 0.0]
    _rewrite(repeat, records)
    with pytest.raises(
        ValueError, match=r"line 2 \(doc_id 1\): exact_match holds 2 value\(s\).*3 response"
    ):
        read_lm_eval(repeat)
    records[1]["exact_match"] = [1.0, "x", 0.0]
    _rewrite(repeat, records)
    with pytest.raises(ValueError, match=r"line 2 \(doc_id 1\): exact_match\[1\] is 'x'"):
        read_lm_eval(repeat)


def test_a_scalar_under_declared_repeats(tmp_path: Path) -> None:
    files = _copy(tmp_path)
    repeat = files[0].parent / Path(build_lm_eval.REPEAT_FILE).name
    records = _records(repeat)
    for record in records:
        record["exact_match"] = 1.0
        record["resps"] = [record["resps"][0][:1]]
    _rewrite(repeat, records)
    with pytest.raises(
        ValueError, match=r"exact_match is 1.0 for 3 responses; the harness combined"
    ):
        read_lm_eval(repeat)


def test_not_json_and_cut_short(tmp_path: Path) -> None:
    files = _copy(tmp_path)
    text = files[0].read_text()
    files[0].write_text(text[:-40])
    with pytest.raises(ValueError, match=r"line 6: not valid JSON \(the line ends early"):
        read_lm_eval(files[0], filter="strict-match")
    files[0].write_text("not json\n" + text)
    with pytest.raises(ValueError, match=r"line 1: not valid JSON"):
        read_lm_eval(files[0], filter="strict-match")
    files[0].write_bytes(b'{"doc_id": 0, "doc": "caf\xe9"}\n')
    with pytest.raises(ValueError, match=r"samples_gsm8k_2024-05-01.*UTF-8"):
        read_lm_eval(files[0])
    files[0].write_text("[1, 2]\n")
    with pytest.raises(
        ValueError, match=r"line 1: the line is \[1, 2\], a list; an lm-evaluation-harness samples"
    ):
        read_lm_eval(files[0])
    files[0].write_text("")
    with pytest.raises(ValueError, match=r"no lines"):
        read_lm_eval(files[0])


def test_a_line_separator_inside_a_text(tmp_path: Path) -> None:
    files = _copy(tmp_path)
    records = _records(files[0])
    records[0]["doc"]["question"] += "\u2028\x85"
    files[0].write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    assert _counts(read_lm_eval(files, filter="strict-match")) == build_lm_eval.COUNTS


def test_options(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"no line of filter 'strict'.*'flexible-extract'"):
        read_lm_eval(GSM8K, filter="strict")
    with pytest.raises(ValueError, match=r"no f1; .*metric="):
        read_lm_eval(GSM8K, filter="strict-match", metric="f1")
    runs = read_lm_eval(GSM8K, filter="strict-match", threshold=0.5)
    assert _counts(runs) == build_lm_eval.COUNTS
    with pytest.raises(TypeError, match="filter"):
        read_lm_eval(GSM8K, filter=1)  # type: ignore[arg-type]
    with pytest.raises(FileNotFoundError):
        read_lm_eval(tmp_path)
