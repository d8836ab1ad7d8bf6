from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest
from conftest import SHARED_DATA
from fixtures import build_tau2

import passk_lab as pk
from passk_lab.io import read_tau2
from passk_lab.io._tau2 import TERMINATION_KINDS, is_tau2

FIXTURES = Path(build_tau2.__file__).parent / "tau2"
MONOLITHIC = FIXTURES / build_tau2.MONOLITHIC
FOLDER = FIXTURES / build_tau2.FOLDER
TAU2 = SHARED_DATA / "tau2"
FOUR_TRIALS = (
    TAU2
    / "monolithic_4trials/gpt-4.1-2025-04-14_telecom_no-user_gpt-4.1-2025-04-14_4trials_5tasks.json"
)
ONE_TRIAL = TAU2 / "monolithic_1trial/langchain_agent_airline_2025-11-26_00-37-06.json"


def counts(runs, errors="fail"):
    tally = pk.tally(runs, errors=errors)
    return {task: (n, c) for task, n, c in zip(tally["task"], tally["n"], tally["c"], strict=True)}


def copy(tmp_path, change):
    """Copy the monolithic fixture into tmp_path after `change` edits its parsed JSON."""
    results = json.loads(MONOLITHIC.read_text())
    change(results)
    file = tmp_path / "results.json"
    file.write_text(json.dumps(results))
    return file


def is_successful(reward):  # tau2-bench's own rule, src/tau2/metrics/agent_metrics.py
    return (1 - 1e-6) <= reward <= (1 + 1e-6)


# --- the fixtures: both formats ------------------------------------------------------------


def test_the_monolithic_fixture_gives_the_designed_counts_under_either_policy():
    runs = read_tau2(MONOLITHIC)
    assert counts(runs) == build_tau2.COUNTS
    assert counts(runs, "exclude") == build_tau2.COUNTS_EXCLUDING
    tau2_own = runs[runs["termination_reason"] != "infrastructure_error"]
    assert counts(tau2_own) == build_tau2.COUNTS_TAU2


def test_every_column_holds_what_the_simulation_held():
    raw = json.loads(MONOLITHIC.read_text())
    simulations = raw["simulations"]
    runs = read_tau2(MONOLITHIC)
    assert runs["task"].tolist() == [s["task_id"] for s in simulations]
    assert runs["run"].tolist() == [s["trial"] for s in simulations]
    assert runs["termination_reason"].tolist() == [s["termination_reason"] for s in simulations]
    assert runs["simulation_id"].tolist() == [s["id"] for s in simulations]
    assert runs["seed"].tolist() == [s["seed"] for s in simulations]
    assert runs["start_time"].tolist() == [s["start_time"] for s in simulations]
    expected_reward = [
        np.nan if s["reward_info"] is None else s["reward_info"]["reward"] for s in simulations
    ]
    np.testing.assert_array_equal(runs["reward"], expected_reward)
    np.testing.assert_array_equal(
        runs["cost_usd"],
        [np.nan if s["agent_cost"] is None else s["agent_cost"] for s in simulations],
    )
    np.testing.assert_array_equal(runs["duration_s"], [s["duration"] for s in simulations])
    assert runs["passed"].tolist() == [
        s["reward_info"] is not None and is_successful(s["reward_info"]["reward"])
        for s in simulations
    ]
    kinds = [TERMINATION_KINDS[s["termination_reason"]] for s in simulations]
    assert [
        None if isinstance(kind, float) else kind for kind in runs["error_kind"].tolist()
    ] == kinds
    assert runs["error"].isna().tolist() == [kind is None for kind in kinds]
    infrastructure = runs[runs["termination_reason"] == "infrastructure_error"]
    assert infrastructure["error"].tolist() == [
        "infrastructure_error: APIConnectionError: connection reset"
    ]
    assert set(runs["model"]) == {raw["info"]["agent_info"]["llm"]}
    assert set(runs["agent"]) == {raw["info"]["agent_info"]["implementation"]}
    assert set(runs["user_model"]) == {raw["info"]["user_info"]["llm"]}
    assert set(runs["domain"]) == {"airline"}
    assert set(runs["file"]) == {build_tau2.MONOLITHIC}
    assert runs.attrs["files"] == [str(MONOLITHIC)]


def test_the_costs_price_the_curve():
    runs = read_tau2(MONOLITHIC)
    curve = pk.reliability_curve(runs, [1])
    per_task = runs.groupby("task")["cost_usd"].mean()  # NaN where a run recorded none
    assert curve["cost_usd"].iloc[0] == pytest.approx(per_task.mean())


@pytest.mark.parametrize("path", [FOLDER, FOLDER / "results.json"])
def test_the_folder_format_reads_in_the_order_of_its_index(path):
    runs = read_tau2(path)
    assert counts(runs) == build_tau2.FOLDER_COUNTS
    index = json.loads((FOLDER / "results.json").read_text())["simulation_index"]
    assert runs["simulation_id"].tolist() == [entry["id"] for entry in index]
    assert set(runs["domain"]) == {"retail"}
    assert runs.attrs["files"] == [str(FOLDER / "results.json")]


def test_several_evaluations_read_together_are_told_apart_by_domain():
    runs = read_tau2([MONOLITHIC, FOLDER / "results.json"])
    assert counts(runs[runs["domain"] == "airline"]) == build_tau2.COUNTS
    assert len(pk.tally(runs, by="domain")) == len(build_tau2.COUNTS) + len(
        build_tau2.FOLDER_COUNTS
    )


def test_error_sensitivity_shows_tau2s_two_conventions():
    table = pk.error_sensitivity(read_tau2(MONOLITHIC), [1])
    fail = np.mean([c / n for n, c in build_tau2.COUNTS.values()])
    exclude = np.mean([c / n for n, c in build_tau2.COUNTS_EXCLUDING.values()])
    assert table["pass_at_k_fail"].iloc[0] == pytest.approx(fail)
    assert table["pass_at_k_exclude"].iloc[0] == pytest.approx(exclude)
    excludable = [
        TERMINATION_KINDS[ending] in ("infrastructure", "timeout")
        for *_, ending, _ in build_tau2.SIMULATIONS
    ]
    assert table["n_runs_excluded"].iloc[0] == sum(excludable)


# --- the real files ------------------------------------------------------------------------


def test_the_four_trial_file_gives_tau2s_own_pass_hat_k():
    raw = json.loads(FOUR_TRIALS.read_text())
    successes: dict[str, int] = {}
    for simulation in raw["simulations"]:
        hit = is_successful(simulation["reward_info"]["reward"])
        successes[simulation["task_id"]] = successes.get(simulation["task_id"], 0) + hit
    runs = read_tau2(FOUR_TRIALS)
    for k in range(1, 5):  # tau2's pass_hat_k: comb(c, k) / comb(n, k), averaged over tasks
        expected = np.mean([math.comb(c, k) / math.comb(4, k) for c in successes.values()])
        assert pk.pass_pow_k(runs, k) == pytest.approx(expected)
    assert runs["cost_usd"].tolist() == [s["agent_cost"] for s in raw["simulations"]]
    assert set(runs["domain"]) == {"telecom"}


def test_the_one_trial_file_counts_its_early_endings_as_the_agents_failures():
    raw = json.loads(ONE_TRIAL.read_text())
    runs = read_tau2(ONE_TRIAL)
    passes = sum(is_successful(s["reward_info"]["reward"]) for s in raw["simulations"])
    assert pk.pass_pow_k(runs, 1) == pytest.approx(passes / len(raw["simulations"]))
    early = runs[runs["termination_reason"].isin(["max_steps", "too_many_errors"])]
    assert len(early) == sum(
        s["termination_reason"] in ("max_steps", "too_many_errors") for s in raw["simulations"]
    )
    assert set(early["error_kind"]) == {"agent"}
    table = pk.error_sensitivity(runs, [1])  # the agent's own failures count under both
    assert table["pass_at_k_fail"].iloc[0] == table["pass_at_k_exclude"].iloc[0]
    np.testing.assert_array_equal(  # the submission recorded agent_cost for one run only
        runs["cost_usd"],
        [np.nan if s["agent_cost"] is None else s["agent_cost"] for s in raw["simulations"]],
    )


def test_the_voice_fixture_was_never_scored_and_is_refused():
    with pytest.raises(
        ValueError,
        match=r"simulations/.*\.json \(task_id '\d+'\): no "
        r"reward_info\.reward.*never evaluated.*tau2 evaluate-trajs",
    ):
        read_tau2(TAU2 / "dir_format" / "experiment")


def test_the_sniff_tells_tau2_from_the_other_json_formats(tmp_path):
    assert is_tau2(MONOLITHIC)
    assert is_tau2(FOLDER)
    assert is_tau2(FOLDER / "results.json")
    assert is_tau2(FOUR_TRIALS)
    assert is_tau2(ONE_TRIAL)
    assert is_tau2(TAU2 / "dir_format" / "experiment")
    assert not is_tau2(SHARED_DATA / "tau-bench" / "gpt-4o-airline.json")
    inspect = tmp_path / "log.json"
    inspect.write_text(json.dumps({"version": 2, "eval": {"task": "x"}, "samples": []}))
    assert not is_tau2(inspect)
    nested = {"version": 2, "eval": {"metadata": {"info": {"source": "tau2"}, "num_trials": 4}}}
    inspect.write_text(json.dumps(nested))  # an info object, but not at the top
    assert not is_tau2(inspect)
    assert not is_tau2(tmp_path)


# --- damaged files -------------------------------------------------------------------------


def test_a_simulation_without_its_trial_is_refused(tmp_path):
    file = copy(tmp_path, lambda r: r["simulations"][4].pop("trial"))
    with pytest.raises(ValueError, match=r"results\.json, simulation 4 \(task_id '1'\): no trial"):
        read_tau2(file)


def test_a_task_short_of_num_trials_is_refused_unless_partial(tmp_path):
    file = copy(tmp_path, lambda r: r["simulations"].pop(5))
    with pytest.raises(
        ValueError,
        match=r"task '1' has 2 of the 3 trials results\.json's "
        r"info\.num_trials declares: trial 2 is missing.*partial=True",
    ):
        read_tau2(file)
    runs = read_tau2(file, partial=True)
    assert counts(runs)["1"] == (2, 1)


def test_a_listed_task_with_no_simulation_is_refused_unless_partial(tmp_path):
    file = copy(tmp_path, lambda r: r["tasks"].append({"id": "9"}))
    with pytest.raises(ValueError, match=r"task '9' is in tasks but has none of the 3 trials"):
        read_tau2(file)
    assert counts(read_tau2(file, partial=True)) == build_tau2.COUNTS


def test_a_trial_past_num_trials_is_refused(tmp_path):
    file = copy(tmp_path, lambda r: r["simulations"][0].update(trial=3))
    with pytest.raises(
        ValueError,
        match=r"simulation 0 \(task_id '0'\): trial is 3, but "
        r"results\.json's info\.num_trials declares 3 trial",
    ):
        read_tau2(file)


def test_a_duplicate_trial_is_refused_naming_both(tmp_path):
    file = copy(tmp_path, lambda r: r["simulations"][1].update(trial=0))
    with pytest.raises(
        ValueError,
        match=r"simulation 1 \(task_id '0'\): trial 0 of task '0' is "
        r"recorded twice \(first at .*simulation 0",
    ):
        read_tau2(file)


@pytest.mark.parametrize(
    ("reward", "message"),
    [
        ("1.0", r"reward_info\.reward is '1\.0', text; a reward is a number in \[0, 1\]"),
        (True, r"reward_info\.reward is True, a boolean"),
        (2.0, r"reward_info\.reward is 2\.0, outside \[0, 1\]"),
        (float("nan"), r"reward_info\.reward is nan"),
    ],
)
def test_a_bad_reward_is_refused(tmp_path, reward, message):
    file = copy(tmp_path, lambda r: r["simulations"][3]["reward_info"].update(reward=reward))
    with pytest.raises(ValueError, match=r"simulation 3 \(task_id '1'\): " + message):
        read_tau2(file)


def test_a_normal_ending_without_a_reward_is_refused(tmp_path):
    file = copy(tmp_path, lambda r: r["simulations"][2].update(reward_info=None))
    with pytest.raises(ValueError, match=r"simulation 2 \(task_id '0'\): no reward_info\.reward"):
        read_tau2(file)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("task_id", None, r"simulation 6: no task_id"),
        ("task_id", [2], r"simulation 6: task_id is \[2\], a list"),
        (
            "termination_reason",
            "crashed",
            r"termination_reason is 'crashed', an unknown reason; tau2-bench writes one of",
        ),
        (
            "agent_cost",
            "cheap",
            r"agent_cost is 'cheap', text; tau2-bench writes a number or null",
        ),
        ("duration", float("inf"), r"duration is inf"),
    ],
)
def test_a_bad_field_is_refused(tmp_path, field, value, message):
    file = copy(tmp_path, lambda r: r["simulations"][6].update({field: value}))
    with pytest.raises(ValueError, match=message):
        read_tau2(file)


def test_files_that_are_not_tau2_results_are_refused(tmp_path):
    cut = tmp_path / "cut.json"
    cut.write_text(MONOLITHIC.read_text()[:500])
    with pytest.raises(ValueError, match=r"cut\.json: not valid JSON .*cut short"):
        read_tau2(cut)
    listed = tmp_path / "list.json"
    listed.write_text("[]")
    with pytest.raises(
        ValueError,
        match=r"list\.json: the file is \[\], a list; a tau2-bench results file is a JSON",
    ):
        read_tau2(listed)
    bare = copy(tmp_path, lambda r: r.pop("simulations"))
    with pytest.raises(ValueError, match=r"no simulations and no simulations/ folder"):
        read_tau2(bare)
    empty = copy(tmp_path, lambda r: r.update(simulations=[]))
    with pytest.raises(ValueError, match=r"results\.json: no simulations"):
        read_tau2(empty)
    scalar = copy(tmp_path, lambda r: r.update(simulations=7))
    with pytest.raises(ValueError, match=r"simulations is 7, an integer; tau2-bench writes a list"):
        read_tau2(scalar)


def test_a_folder_that_disagrees_with_its_index_is_refused(tmp_path):
    folder = tmp_path / "run"
    shutil.copytree(FOLDER, folder)
    files = sorted((folder / "simulations").glob("*.json"))
    files[0].unlink()
    with pytest.raises(
        ValueError, match=rf"lists 1 simulation\(s\) with no file .*{files[0].name}"
    ):
        read_tau2(folder)
    shutil.copy(files[1], folder / "simulations" / files[0].name)
    (folder / "simulations" / "extra.json").write_text("{}")
    with pytest.raises(ValueError, match=r"holds 1 file\(s\) the index does not list .*extra"):
        read_tau2(folder)


@pytest.mark.parametrize(
    ("declared", "message"),
    [
        (None, r"no info\.num_trials"),
        ("3", r"info\.num_trials is '3', text"),
        (0, r"info\.num_trials is 0, below 1"),
        (True, r"info\.num_trials is True, a boolean"),
    ],
)
def test_a_missing_or_bad_num_trials_is_refused(tmp_path, declared, message):
    def change(results):
        if declared is None:
            del results["info"]["num_trials"]
        else:
            results["info"]["num_trials"] = declared

    with pytest.raises(
        ValueError, match=r"results\.json: " + message + r"; tau2-bench records the trials .* >= 1"
    ):
        read_tau2(copy(tmp_path, change))


def test_partial_still_refuses_a_trial_past_num_trials(tmp_path):
    file = copy(tmp_path, lambda r: r["simulations"][0].update(trial=7))
    with pytest.raises(ValueError, match=r"trial is 7, but .*declares 3 trial"):
        read_tau2(file, partial=True)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda s: s["reward_info"].update(reward=10**400), r"reward_info\.reward is 1000"),
        (lambda s: s.update(agent_cost=10**400), r"agent_cost is 1000"),
        (
            lambda s: s.update(seed=2**70),
            r"seed is 1180591620717411303424, an integer too large for int64; .*within int64",
        ),
    ],
)
def test_numbers_past_a_floats_range_are_refused(tmp_path, change, message):
    file = copy(tmp_path, lambda r: change(r["simulations"][0]))
    with pytest.raises(ValueError, match=r"simulation 0 \(task_id '0'\): " + message):
        read_tau2(file)


def test_an_info_entry_that_is_not_an_object_is_refused(tmp_path):
    file = copy(tmp_path, lambda r: r["info"].update(agent_info="gpt-4.1"))
    with pytest.raises(
        ValueError, match=r"info\.agent_info is 'gpt-4\.1', text; tau2-bench writes an object"
    ):
        read_tau2(file)


def test_a_folder_whose_index_or_ids_disagree_with_its_files_is_refused(tmp_path):
    folder = tmp_path / "run"
    shutil.copytree(FOLDER, folder)
    meta = json.loads((folder / "results.json").read_text())
    meta["simulation_index"].append(meta["simulation_index"][0])
    (folder / "results.json").write_text(json.dumps(meta))
    with pytest.raises(ValueError, match=r"simulation_index lists .* more than once"):
        read_tau2(folder)
    shutil.copy(FOLDER / "results.json", folder / "results.json")
    file = sorted((folder / "simulations").glob("*.json"))[0]
    simulation = json.loads(file.read_text())
    simulation["id"] = "another"
    file.write_text(json.dumps(simulation))
    with pytest.raises(ValueError, match=r"id is 'another', not the file's name"):
        read_tau2(folder)
