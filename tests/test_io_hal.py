"""HAL upload files: the fixture round-trips and damaged files are refused by name."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from fixtures import build_hal

import passk_lab as pk
from passk_lab.io._hal import is_hal, read_hal

FIXTURE = Path(__file__).parent / "fixtures" / "hal"
TAU0 = "taubench_airline_react_1735689600"


def _copy(tmp_path: Path) -> Path:
    shutil.copytree(FIXTURE, tmp_path / "hal")
    return tmp_path / "hal"


def _edit(folder: Path, run_id: str, change) -> Path:  # type: ignore[no-untyped-def]
    file = folder / run_id / f"{run_id}_UPLOAD.json"
    upload = json.loads(file.read_text())
    change(upload)
    file.write_text(json.dumps(upload))
    return file


def test_regenerating_gives_the_same_bytes(tmp_path: Path) -> None:
    build_hal.write(tmp_path)
    for file in FIXTURE.rglob("*.json"):
        assert (tmp_path / file.relative_to(FIXTURE)).read_bytes() == file.read_bytes()


def test_tally_equals_the_design() -> None:
    runs = read_hal(FIXTURE)
    tally = pk.tally(runs, by=["agent_name", "benchmark"])
    got = {(r.agent_name, r.benchmark, r.task): (r.n, r.c) for r in tally.itertuples()}
    assert got == build_hal.COUNTS


def test_columns_hold_what_the_files_hold() -> None:
    runs = read_hal(FIXTURE)
    for file in sorted(FIXTURE.rglob("*_UPLOAD.json")):
        upload = json.loads(file.read_text())
        rows = runs[runs["file"] == file.name]
        assert list(rows["task"]) == list(upload["raw_eval_results"])
        assert set(rows["run_id"]) == {upload["config"]["run_id"]}
        assert set(rows["model"]) == {upload["config"]["agent_args"]["model_name"]}
        assert list(rows["duration_s"]) == [upload["wall_clock_times"][t] for t in rows["task"]]
        assert list(rows["latency_s"]) == [
            upload["results"]["latencies"][t]["total_time"] for t in rows["task"]
        ]
        assert list(rows["step_count"]) == [upload["task_step_counts"][t] for t in rows["task"]]
    # trials follow config.date then run_id; HAL's error text is a timeout with reward 0
    tau = runs[runs["benchmark"] == "taubench_airline"]
    assert list(tau.loc[tau["run"] == 0, "run_id"].unique()) == [TAU0]
    timed = tau[(tau["task"] == "2") & (tau["run"] == 0)].iloc[0]
    assert timed["error_kind"] == "timeout"
    assert timed["reward"] == 0.0
    assert not timed["passed"]
    core = runs[runs["task"] == "capsule-2"].iloc[0]
    counts = build_hal.CORE["capsule-2"]
    right = counts["correct_written_answers"] + counts["correct_vision_answers"]
    total = counts["total_written_questions"] + counts["total_vision_questions"]
    assert core["reward"] == right / total
    assert runs[runs["task"] == "capsule-3"].iloc[0]["error_kind"] == "agent"
    assert is_hal(FIXTURE)
    assert all(is_hal(f) for f in FIXTURE.rglob("*.json"))


def test_threshold_applies_the_same_rule() -> None:
    runs = read_hal(FIXTURE, threshold=0.7)
    assert bool(runs[runs["task"] == "capsule-2"]["passed"].iloc[0])


def test_a_task_missing_from_one_trial_needs_partial(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    _edit(
        folder,
        TAU0,
        lambda u: u["raw_eval_results"].pop("1") and u["results"]["failed_tasks"].remove("1"),
    )
    with pytest.raises(ValueError, match=r"task '1' has 1 of the 2 .*partial=True"):
        read_hal(folder)
    runs = read_hal(folder, partial=True)
    assert len(runs) == sum(n for n, _ in build_hal.COUNTS.values()) - 1


@pytest.mark.parametrize(
    ("value", "match"),
    [
        ("one", r"raw_eval_results\['0'\]: reward is 'one'"),
        (None, r"raw_eval_results\['0'\]: no reward; a reward is a finite number"),
        (1.5, r"raw_eval_results\['0'\]: reward is 1.5, outside \[0, 1\]"),
    ],
)
def test_bad_rewards_are_refused(tmp_path: Path, value: object, match: str) -> None:
    folder = _copy(tmp_path)
    _edit(folder, TAU0, lambda u: u["raw_eval_results"].update({"0": {"reward": value}}))
    with pytest.raises(ValueError, match=match):
        read_hal(folder)


def test_nan_reward_is_refused(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    file = _edit(folder, TAU0, lambda u: None)
    file.write_text(file.read_text().replace('"reward": 1.0', '"reward": NaN', 1))
    with pytest.raises(
        ValueError,
        match=r"_UPLOAD.json, raw_eval_results\['0'\]: reward is nan, not a finite number",
    ):
        read_hal(folder)


def test_a_listed_task_without_result_is_refused(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    _edit(folder, TAU0, lambda u: u["raw_eval_results"].pop("0"))
    with pytest.raises(ValueError, match=r"task '0' is in results.successful_tasks but has no"):
        read_hal(folder)


def test_the_same_run_twice_is_refused(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    shutil.copy(folder / TAU0 / f"{TAU0}_UPLOAD.json", folder / "copy_UPLOAD.json")
    with pytest.raises(ValueError, match=r"config.run_id '.*' is also the run id of"):
        read_hal(folder)


def test_missing_task_id_and_run_id(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    _edit(folder, TAU0, lambda u: u["config"].pop("run_id"))
    with pytest.raises(ValueError, match=r"_UPLOAD.json: no config.run_id; HAL writes it as text"):
        read_hal(folder)
    folder = _copy(tmp_path / "b")
    _edit(folder, TAU0, lambda u: u["raw_eval_results"].update({"": {"reward": 1.0}}))
    with pytest.raises(ValueError, match=r"raw_eval_results\[''\]: the task id is empty"):
        read_hal(folder)


def test_not_json_cut_short_and_wrong_shapes(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    file = folder / TAU0 / f"{TAU0}_UPLOAD.json"
    file.write_text(file.read_text()[:200])
    with pytest.raises(ValueError, match=r"_UPLOAD.json: not valid JSON .* ends early"):
        read_hal(file)
    file.write_text("[1, 2]")
    with pytest.raises(
        ValueError, match=r"_UPLOAD.json: the file is \[1, 2\], a list; a HAL upload file"
    ):
        read_hal(file)
    file.write_text(
        json.dumps(
            {
                "config": {"agent_name": "a", "benchmark_name": "usaco", "run_id": "r"},
                "raw_eval_results": {"sdict": {}},
            }
        )
    )
    with pytest.raises(ValueError, match=r"raw_eval_results holds 'sdict', USACO"):
        read_hal(file)
    file.write_text(
        json.dumps(
            {
                "config": {"agent_name": "a", "benchmark_name": "b", "run_id": "r"},
                "raw_eval_results": [1.0],
            }
        )
    )
    with pytest.raises(ValueError, match=r"raw_eval_results is \[1\.0\], a list; read are"):
        read_hal(file)


def test_other_formats_are_not_claimed(tmp_path: Path) -> None:
    tau = tmp_path / "gpt-4o-airline.json"
    tau.write_text('[{"task_id": 0, "trial": 0, "reward": 1.0, "info": {}}]')
    inspect = tmp_path / "log.json"
    inspect.write_text('{"eval": {}, "samples": []}')
    assert not is_hal(tau)
    assert not is_hal(inspect)


def test_another_model_is_another_evaluation(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    upload = json.loads((folder / TAU0 / f"{TAU0}_UPLOAD.json").read_text())
    upload["config"]["agent_args"]["model_name"] = "claude-3-5-sonnet"
    upload["config"]["run_id"] = "taubench_airline_react_1735862400"
    (folder / "other_UPLOAD.json").write_text(json.dumps(upload))
    runs = read_hal(folder)
    tally = pk.tally(runs, by=["agent_name", "benchmark", "model"])
    got = {(r.agent_name, r.benchmark, r.model, r.task): (r.n, r.c) for r in tally.itertuples()}
    models = {"react": "gpt-4o", "core": "openai/gpt-4.1-2025-04-14"}
    expected = {(a, b, models[a], t): nc for (a, b, t), nc in build_hal.COUNTS.items()}
    for task, result in upload["raw_eval_results"].items():
        passed = isinstance(result, dict) and result["reward"] == 1
        expected["react", "taubench_airline", "claude-3-5-sonnet", task] = (1, int(passed))
    assert got == expected
    assert set(runs.loc[runs["model"] == "claude-3-5-sonnet", "run"]) == {0}


@pytest.mark.parametrize("field", ["reward", "score"])
def test_a_boolean_reward_is_refused(tmp_path: Path, field: str) -> None:
    folder = _copy(tmp_path)
    _edit(folder, TAU0, lambda u: u["raw_eval_results"].update({"0": {field: True}}))
    with pytest.raises(ValueError, match=rf"\['0'\]: {field} is True, a boolean; a reward is a"):
        read_hal(folder)


@pytest.mark.parametrize("value", ["Infinity", "-Infinity"])
def test_an_infinite_reward_is_refused(tmp_path: Path, value: str) -> None:
    folder = _copy(tmp_path)
    file = _edit(folder, TAU0, lambda u: None)
    file.write_text(file.read_text().replace('"reward": 1.0', f'"reward": {value}', 1))
    with pytest.raises(ValueError, match=r"\['0'\]: reward is -?inf, not a finite number"):
        read_hal(folder)
    with pytest.raises(ValueError, match=r"\['0'\]: reward is -?inf, not a finite number"):
        read_hal(folder, threshold=0.5)


CORE_RUN = "corebench_hard_coreagent_1735862400"


@pytest.mark.parametrize(
    ("field", "value", "match"),
    [
        ("correct_written_answers", True, r"correct_written_answers is True, a boolean"),
        ("correct_written_answers", 1.5, r"correct_written_answers is 1.5, a number with"),
        ("total_vision_questions", -1, r"total_vision_questions is -1, below 0; CORE-Bench"),
        ("correct_written_answers", None, r"no correct_written_answers; CORE-Bench counts"),
        ("correct_vision_answers", 2, r"correct_vision_answers is 2, more than total_vision_q"),
    ],
)
def test_bad_corebench_counts_are_refused(
    tmp_path: Path, field: str, value: object, match: str
) -> None:
    folder = _copy(tmp_path)
    _edit(folder, CORE_RUN, lambda u: u["raw_eval_results"]["capsule-1"].update({field: value}))
    with pytest.raises(ValueError, match=r"raw_eval_results\['capsule-1'\]: " + match):
        read_hal(folder)


def test_corebench_opening_with_an_error_text(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    text = "ERROR: container failed to start"

    def change(upload: dict) -> None:  # type: ignore[type-arg]
        upload["raw_eval_results"] = {"capsule-0": text, **upload["raw_eval_results"]}
        upload["results"]["failed_tasks"].append("capsule-0")

    _edit(folder, CORE_RUN, change)
    runs = read_hal(folder).set_index("task")
    assert runs.loc["capsule-0", "error"] == text
    assert runs.loc["capsule-0", "error_kind"] == "infrastructure"
    assert not runs.loc["capsule-0", "passed"]
    for (agent, _, task), (_, c) in build_hal.COUNTS.items():
        if agent == "core":
            assert bool(runs.loc[task, "passed"]) == bool(c)


@pytest.mark.parametrize("listed", ["successful_tasks", "failed_tasks"])
def test_listed_tasks_must_be_a_list(tmp_path: Path, listed: str) -> None:
    folder = _copy(tmp_path)
    _edit(folder, TAU0, lambda u: u["results"].update({listed: "01"}))
    with pytest.raises(
        ValueError, match=rf"_UPLOAD.json: results.{listed} is '01', text; HAL writes"
    ):
        read_hal(folder)


def test_appworld_success_may_be_a_boolean(tmp_path: Path) -> None:
    file = tmp_path / "appworld_UPLOAD.json"
    individual = {"t1": {"success": True}, "t2": {"success": False}}
    config = {"agent_name": "a", "benchmark_name": "appworld_test_normal", "run_id": "r"}
    file.write_text(json.dumps({"config": config, "raw_eval_results": {"individual": individual}}))
    runs = read_hal(file)
    assert list(runs["passed"]) == [v["success"] for v in individual.values()]


def test_the_content_sniff(tmp_path: Path) -> None:
    renamed = tmp_path / "evaluation.json"
    shutil.copy(FIXTURE / TAU0 / f"{TAU0}_UPLOAD.json", renamed)
    assert is_hal(renamed)
    assert list(read_hal(renamed)["task"]) == list(build_hal.TAU[TAU0])
    other = tmp_path / "settings.json"
    other.write_text('{"config": {"learning_rate": 0.1}, "steps": 10}')
    assert not is_hal(other)
