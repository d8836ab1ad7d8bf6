from __future__ import annotations

import json
from pathlib import Path

import pytest
from fixtures import build_samples

import passk_lab as pk
from passk_lab.io._samples import is_samples, read_samples

FIXTURES = Path(__file__).parent / "fixtures" / "samples"


@pytest.mark.parametrize("name", ["cruxeval_scored.json", "plain.json"])
def test_the_fixtures_round_trip(name):
    runs = read_samples(FIXTURES / name)
    tally = pk.tally(runs)
    assert {row.task: (row.n, row.c) for row in tally.itertuples()} == build_samples.COUNTS
    document = json.loads((FIXTURES / name).read_text())
    scored = document.get("raw_scored_generations", document)
    assert runs["task"].tolist() == [task for task, v in scored.items() for _ in v]
    assert runs["run"].tolist() == [i for v in scored.values() for i in range(len(v))]
    assert runs["passed"].tolist() == [x for v in scored.values() for x in v]
    assert set(runs["file"]) == {name}
    assert is_samples(FIXTURES / name)


def test_the_sniff_leaves_other_json_alone(tmp_path):
    (tmp_path / "inspect.json").write_text('{"version": 2, "eval": {}, "samples": []}')
    (tmp_path / "tau.json").write_text('[{"task_id": 0, "trial": 0, "reward": 1.0}]')
    (tmp_path / "ints.json").write_text('{"a": [1, 0]}')
    assert not any(is_samples(tmp_path / name) for name in ("inspect.json", "tau.json"))
    assert not is_samples(tmp_path / "ints.json")


@pytest.mark.parametrize(
    ("body", "match"),
    [
        ('{"a": [true], "b": []}', r"json: task 'b' is \[\], an empty list; every task needs"),
        ('{"a": [true], "b": true}', r"json: task 'b' is True, a boolean; every task needs a list"),
        ('{"a": [true], "b": [true, 1]}', r"task 'b': sample 1 is 1, an integer; a verdict is"),
        ('{"a": [true, "true"]}', r"task 'a': sample 1 is 'true', text; a verdict is true or"),
        ('{"a": [true], "b": [null]}', r"task 'b': sample 0 is None, null; a verdict is"),
        ('{"a": [true], "b": [false, [true]]}', r"task 'b': sample 1 is \[True\], a list; a"),
        ('{"a": [[true], [false]]}', r"task 'a': sample 0 is \[True\], a list; a verdict"),
        ("{}", r"no tasks"),
        ("[true, false]", r"json: the file is \[True, False\], a list; a samples file is a JSON"),
        (
            '{"raw_scored_generations": [true]}',
            r"json: raw_scored_generations is \[True\], a list; a samples file is a JSON object",
        ),
        ('{"a": [true, fal', r"not valid JSON.*ends early"),
    ],
)
def test_damaged_files_are_refused(tmp_path, body, match):
    path = tmp_path / "scored.json"
    path.write_text(body)
    with pytest.raises(ValueError, match=match):
        read_samples(path)


def test_a_task_written_twice_is_refused_not_merged(tmp_path):
    file = tmp_path / "scored.json"
    file.write_text('{"a": [true, true], "b": [false], "a": [false]}')
    with pytest.raises(ValueError, match=r"scored\.json: the key 'a' appears twice in one object"):
        read_samples(file)
