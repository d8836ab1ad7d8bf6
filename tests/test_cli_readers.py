"""The command line reads every format by its shape, and passes the readers' options on."""

from __future__ import annotations

import io
import json
import shutil

import pandas as pd
import pytest
from fixtures import build_counts, build_tau2, make
from test_cli_refusals import refused

import passk_lab as pk
from passk_lab.cli import main

TAU2 = make.HERE / "tau2"


def analyze(capsys, *arguments):
    assert main(["analyze", *map(str, arguments), "--k", "1", "--to", "json"]) == 0
    return pd.read_json(io.StringIO(capsys.readouterr().out))


def test_analyze_reads_a_tau2_folder_by_its_shape(capsys):
    table = analyze(capsys, TAU2 / build_tau2.FOLDER)
    expected = pk.reliability_curve(pk.io.read_tau2(TAU2 / build_tau2.FOLDER), [1])
    assert table["pass_pow_k"].tolist() == pytest.approx(expected["pass_pow_k"].tolist())


def test_partial_reads_a_tau2_file_short_of_its_trials(tmp_path, capsys):
    results = json.loads((TAU2 / build_tau2.MONOLITHIC).read_text())
    del results["simulations"][5]
    file = tmp_path / "short.json"
    file.write_text(json.dumps(results))
    with pytest.raises(SystemExit) as exit_info:
        main(["analyze", str(file)])
    assert exit_info.value.code == 2
    assert "trial 2 is missing" in capsys.readouterr().err
    table = analyze(capsys, file, "--partial")
    assert table["n_tasks"].tolist() == [len(build_tau2.COUNTS)]


def test_task_names_the_column_of_a_table_of_counts_and_by_its_groups(tmp_path, capsys):
    table = analyze(capsys, make.HERE / "counts" / "by_model.csv", "--by", "model")
    assert sorted(table["model"]) == sorted({model for model, *_ in build_counts.GROUPED})
    renamed = tmp_path / "counts.csv"
    frame = pd.read_csv(make.HERE / "counts" / "by_model.csv", dtype={"task": str})
    frame.rename(columns={"task": "problem"}).to_csv(renamed, index=False)
    again = analyze(capsys, renamed, "--by", "model", "--task", "problem")
    pd.testing.assert_frame_equal(again, table)


def test_an_option_the_format_does_not_take_is_refused(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["analyze", str(TAU2 / build_tau2.MONOLITHIC), "--reward", "score"])
    assert exit_info.value.code == 2
    assert "not an option for tau2 files: reward (tau2 files take partial)" in (
        capsys.readouterr().err
    )


def test_format_names_a_folder_detection_would_not_pick(tmp_path, capsys):
    folder = tmp_path / "evaluation"
    shutil.copytree(TAU2 / build_tau2.FOLDER, folder)
    table = analyze(capsys, folder / "results.json", "--format", "tau2")
    assert table["n_tasks"].tolist() == [len(build_tau2.FOLDER_COUNTS)]


def test_lm_eval_options_choose_the_filter_of_a_log(tmp_path, capsys):
    folder = tmp_path / "model"
    folder.mkdir()
    for file in (make.HERE / "lm_eval").glob("*/*_2024-05-0[12]*"):
        shutil.copy(file, folder)  # the two seeded runs of gsm8k, with their results files
    with pytest.raises(SystemExit):
        main(["analyze", str(tmp_path)])
    assert "strict-match" in capsys.readouterr().err  # two filters: the message names them
    table = analyze(
        capsys, tmp_path, "--lm-eval-filter", "strict-match", "--lm-eval-metric", "exact_match"
    )
    expected = pk.io.read_lm_eval(tmp_path, filter="strict-match", metric="exact_match")
    assert table["pass_pow_k"].tolist() == pytest.approx([expected["passed"].mean()])


def test_a_threshold_of_zero_reaches_the_reader(tmp_path, capsys):
    file = tmp_path / "runs.csv"
    file.write_text("task,run,reward\na,0,0.5\na,1,-0.5\nb,0,0.2\nb,1,0.0\n")
    table = analyze(capsys, file, "--threshold", "0")
    expected = pk.pass_pow_k(pk.io.read_runs(file, threshold=0.0), 1)
    assert table["pass_pow_k"].tolist() == pytest.approx([expected])


def test_by_with_format_does_not_ask_the_shape(tmp_path, capsys):
    results = json.loads((TAU2 / build_tau2.MONOLITHIC).read_text())
    file = tmp_path / "late.json"  # info after 64 KB: the shape cannot tell it, --format can
    file.write_text(json.dumps({"padding": "x" * 70_000, **results}))
    table = analyze(capsys, file, "--format", "tau2", "--by", "model")
    assert table["model"].tolist() == [results["info"]["agent_info"]["llm"]]


def test_run_and_passed_name_the_columns_of_a_runs_table(tmp_path, capsys):
    runs = pk.simulate_coin(tasks=6, k=3)
    path = tmp_path / "renamed.csv"
    runs.rename(columns={"task": "problem", "run": "attempt", "passed": "ok"}).to_csv(
        path, index=False
    )
    table = analyze(capsys, path, "--task", "problem", "--run", "attempt", "--passed", "ok")
    expected = pk.reliability_curve(runs, [1])
    assert table["pass_pow_k"].tolist() == pytest.approx(expected["pass_pow_k"].tolist())
    for options, missing, told in [
        (
            [],
            "renamed.csv has no task column, no passed or reward column and no run column",
            "task= is --task, run= is --run, passed= is --passed",
        ),
        (["--task", "problem"], "no passed or reward column", "run= is --run, passed= is --passed"),
    ]:
        with pytest.raises(SystemExit):
            main(["analyze", str(path), *options])
        line = capsys.readouterr().err.splitlines()[-1]
        assert missing in line
        assert line.endswith(f" (on the command line: {told})")
    with pytest.raises(SystemExit):  # --run names the column of run numbers
        main(["analyze", str(path), "--task", "problem", "--passed", "ok", "--run", "trial"])
    assert "no column 'trial' (given as run=;" in capsys.readouterr().err


def test_n_and_c_name_the_columns_of_a_table_of_counts(tmp_path, capsys):
    path = tmp_path / "counts.csv"
    pd.DataFrame({"task": ["a", "b"], "samples": [4, 4], "correct": [1, 3]}).to_csv(
        path, index=False
    )
    table = analyze(capsys, path, "--n", "samples", "--c", "correct")
    assert table["pass_pow_k"].tolist() == pytest.approx([(1 / 4 + 3 / 4) / 2])
    with pytest.raises(SystemExit):
        main(["analyze", str(path), "--n", "samples"])
    line = capsys.readouterr().err.splitlines()[-1]
    assert line.endswith(
        "no c column (its columns are ['task', 'samples', 'correct']); name it "
        "with c='...' (on the command line: c= is --c)"
    )


@pytest.mark.parametrize(
    ("options", "shown"),
    [
        (["--n", "run"], "no c column"),
        (["--c", "passed"], "no n column"),
        (["--n", "run", "--passed", "passed"], "not an option for counts files: passed"),
    ],
)
def test_n_or_c_on_a_runs_table_say_they_read_it_as_counts(tmp_path, capsys, options, shown):
    path = tmp_path / "runs.csv"
    pk.simulate_coin(tasks=3, k=2).to_csv(path, index=False)
    line = refused(["analyze", str(path), *options], capsys)
    assert shown in line
    assert line.endswith(
        f"(--n and --c read {path} as a table of counts; without them it reads as a runs table: "
        "leave them out)"
    )
