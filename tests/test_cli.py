from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from conftest import TAU_BENCH
from fixtures import build_tau2, make

import passk_lab as pk
from passk_lab import __version__, reliability_curve, report, simulate_coin
from passk_lab.cli import main
from passk_lab.report import labelled


def test_reproduce_prints_the_source_figures_and_writes_the_runs(tmp_path, capsys):
    assert main(["reproduce", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    lines = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line[:4] == "pass"}
    assert lines["pass@1"] == ["0.86", f"{0.85:.4g}", f"{0.86:.4g}"]
    assert lines["pass^5"] == ["0.45", f"{0.85**5:.4g}", f"{0.86**5:.4g}"]
    path = tmp_path / "coin_p0.85_tasks40_k5_seed42.csv"
    assert f"Runs written to {path} (200 rows)." in out
    runs = pd.read_csv(path)
    pd.testing.assert_frame_equal(runs[["task", "run", "passed"]], simulate_coin())


def test_reproduce_takes_the_model_settings(tmp_path, capsys):
    args = ["reproduce", "--p", "0.6", "--tasks", "12", "-k", "3", "--seed", "7"]
    assert main([*args, "--out", str(tmp_path)]) == 0
    runs = pd.read_csv(tmp_path / "coin_p0.6_tasks12_k3_seed7.csv")
    pd.testing.assert_frame_equal(runs[["task", "run", "passed"]], simulate_coin(0.6, 12, 3, 7))
    assert "12 tasks x 3 runs, seed 7" in capsys.readouterr().out


def test_bad_arguments_exit_with_a_message(tmp_path, capsys):
    with pytest.raises(SystemExit) as exited:
        main(["reproduce", "--p", "1.5", "--out", str(tmp_path)])
    assert exited.value.code == 2
    assert "p must be a probability in [0, 1], got 1.5" in capsys.readouterr().err


def test_module_entry_point_runs():
    completed = subprocess.run(
        [sys.executable, "-m", "passk_lab", "--version"], capture_output=True, text=True, check=True
    )
    assert completed.stdout.strip() == f"passk-lab {__version__}"


# --- analyze ---------------------------------------------------------------------------


def write_runs(runs, tmp_path, suffix):
    path = tmp_path / f"runs{suffix}"
    if suffix == ".csv":
        runs.to_csv(path, index=False)
    elif suffix == ".jsonl":
        runs.to_json(path, orient="records", lines=True)
    else:
        runs.to_parquet(path)
    return path


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet"])
def test_analyze_gives_the_published_tau_bench_figures(
    tmp_path, capsys, suffix, tau_bench_runs, tau_bench_published
):
    path = write_runs(tau_bench_runs, tmp_path, suffix)
    assert main(["analyze", str(path), "--to", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [row["k"] for row in rows] == [1, 2, 3, 4]
    for row in rows:
        assert row["pass_pow_k"] == pytest.approx(tau_bench_published[row["k"]], abs=5e-4)


def test_analyze_prints_a_table_per_group_in_each_format(tmp_path, capsys):
    runs = pd.concat(
        [
            simulate_coin(0.9, 30, 4, 1).assign(model="a"),
            simulate_coin(0.5, 30, 4, 2).assign(model="b"),
        ]
    )
    path = tmp_path / "runs.csv"
    runs.to_csv(path, index=False)
    expected = reliability_curve(runs, [1, 2, 3], by="model", rng=0)

    assert main(["analyze", str(path), "--by", "model", "--k", "1..3", "--to", "csv"]) == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out))
    pd.testing.assert_frame_equal(table, expected, check_dtype=False)

    assert main(["analyze", str(path), "--by", "model", "--k", "1,2,3"]) == 0
    blocks = capsys.readouterr().out.split("\n\n")
    labels = ["k", "pass^k", "pass^k 95% CI", "pass@k", "pass@k 95% CI", "tasks"]
    assert len(blocks) == 2
    for block, (model, rows) in zip(blocks, expected.groupby("model"), strict=True):
        lines = block.splitlines()
        assert lines[0] == f"model = {model}"
        assert re.split(r"\s{2,}", lines[1].strip()) == labels
        assert len(lines) == 2 + 3
        for line, row in zip(lines[2:], rows.itertuples(), strict=True):
            interval = f"[{row.pass_pow_k_low:.3f}, {row.pass_pow_k_high:.3f}]"
            assert line.split()[:4] == [str(row.k), f"{row.pass_pow_k:.3f}", *interval.split()]
            assert line.split()[-1] == str(row.n_tasks)

    assert main(["analyze", str(path), "--by", "model", "--k", "1,2,3", "--wide"]) == 0
    blocks = capsys.readouterr().out.split("\n\n")
    wide = list(labelled(expected.drop(columns="model")).columns)  # every column of the curve
    assert [re.split(r"\s{2,}", block.splitlines()[1].strip()) for block in blocks] == [wide] * 2

    assert main(["analyze", str(path), "--by", "model", "--to", "markdown"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [cell.strip() for cell in lines[0].split("|")[1:-1]] == ["model", *labels]
    assert len(lines) == 2 + 8


def test_analyze_heads_a_block_of_two_by_columns_with_both_in_the_curves_group_order(
    tmp_path, capsys
):
    runs = pd.concat(
        [
            simulate_coin(0.9, 4, 2, seed).assign(model=model, tools=tools)
            for seed, (model, tools) in enumerate([("b", "on"), ("a", "off"), ("a", "on")])
        ]
    )
    for order in [slice(None), slice(None, None, -1)]:  # the groups first seen in either order
        path = tmp_path / "runs.csv"
        runs.iloc[order].to_csv(path, index=False)
        args = ["analyze", str(path), "--by", "model", "--by", "tools", "--k", "1"]
        assert main([*args, "--resamples", "200", "--to", "csv"]) == 0
        curve = pd.read_csv(io.StringIO(capsys.readouterr().out))
        assert main([*args, "--resamples", "200"]) == 0
        blocks = capsys.readouterr().out.split("\n\n")
        headings = [block.splitlines()[0] for block in blocks]
        assert headings == [
            f"model = {row.model}, tools = {row.tools}" for row in curve.itertuples()
        ]
        for block, row in zip(blocks, curve.itertuples(), strict=True):
            assert block.splitlines()[2].split()[:2] == ["1", f"{row.pass_pow_k:.3f}"]


@pytest.fixture(scope="module")
def reported(tmp_path_factory):
    """A report of a model's runs, written where `report` writes by default; what it printed."""
    folder = tmp_path_factory.mktemp("reported")
    simulate_coin(0.8, 8, 3, 1).to_csv(folder / "runs.csv", index=False)
    out = io.StringIO()
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(out):
        patch.chdir(folder)
        assert main(["report", "runs.csv", "--resamples", "200"]) == 0
    return folder, out.getvalue()


def test_report_writes_into_report_and_the_file_name_and_says_where(reported):
    folder, out = reported
    written = folder / "report" / "runs"
    files = [path for path in written.iterdir() if path.name != ".passk-report.json"]
    assert (written / "report.html").is_file()
    page = Path("report") / "runs" / "report.html"
    assert out.splitlines() == [
        f"Wrote {len(files)} files to {Path('report') / 'runs'}{os.sep}",
        f"The report: {page}",
    ]


def test_analyze_prints_the_table_the_report_writes(reported, capsys):
    folder, _ = reported
    arguments = [str(folder / "runs.csv"), "--resamples", "200", "--wide"]
    assert main(["analyze", *arguments, "--to", "markdown"]) == 0
    printed = capsys.readouterr().out.splitlines()
    written = (folder / "report" / "runs" / "curve.md").read_text().splitlines()
    assert printed[0].split(" | ")[:3] == ["| k", "pass^k", "pass^k 95% CI "]
    assert printed[0] == written[0]
    assert printed == written[: len(printed)]  # the same rows, then the report's metadata line


def test_report_passes_its_options_on(monkeypatch, tmp_path, capsys):
    calls = []

    def write_report(runs, out, **options):
        calls.append((runs, out, options))
        return [Path(out) / "curve.csv", Path(out) / "report.html"]

    monkeypatch.setattr(report, "write_report", write_report)
    path = tmp_path / "my runs.v2.csv"
    simulate_coin(tasks=4, k=3).to_csv(path, index=False)
    out = tmp_path / "out"
    options = ["--k", "1,3", "--predict-to", "9", "--title", "Coins", "--out", str(out)]
    assert main(["report", str(path), *options, "--resamples", "200"]) == 0
    ((runs, folder, given),) = calls
    assert folder == out
    assert len(runs) == 4 * 3
    assert given["ks"] == [1, 3]
    assert given["predict_to"] == 9
    assert given["source"].name == "my runs.v2.csv"  # the page names the file,
    assert given["source"].is_absolute()  # the manifest records its whole path
    assert given["title"] == "Coins"
    assert given["n_resamples"] == 200
    assert capsys.readouterr().out == (
        f"Wrote 2 files to {out}{os.sep}\nThe report: {out / 'report.html'}\n"
    )
    monkeypatch.chdir(tmp_path)
    assert main(["report", path.name, "--k", "1..2"]) == 0
    assert calls[-1][1] == Path("report") / "my runs.v2"
    assert list(calls[-1][2]["ks"]) == [1, 2]
    assert calls[-1][2]["predict_to"] is None
    assert calls[-1][2]["title"] is None
    folder = make.HERE / "tau2" / build_tau2.FOLDER  # a results folder: its name, as it is
    assert main(["report", str(folder)]) == 0
    assert calls[-1][1] == Path("report") / build_tau2.FOLDER
    assert calls[-1][2]["source"].name == build_tau2.FOLDER


def test_report_of_the_current_folder_or_a_pattern_is_named_after_it(monkeypatch, tmp_path):
    calls = []

    def write_report(runs, out, **options):
        calls.append((out, options["source"].name))
        return [Path(out) / "report.html"]

    monkeypatch.setattr(report, "write_report", write_report)
    monkeypatch.setattr(pk.io, "read", lambda *args, **options: simulate_coin(tasks=3, k=2))
    folder = tmp_path / "lm logs"
    folder.mkdir()
    monkeypatch.chdir(folder)
    lm_eval = ["--format", "lm-eval"]
    assert main(["report", ".", *lm_eval]) == 0
    assert calls[-1] == (Path("report") / "lm logs", "lm logs")
    assert main(["report", "samples_gsm8k_2024*", *lm_eval]) == 0
    assert calls[-1][0] == Path("report") / "samples_gsm8k_2024"
    assert main(["report", "samples_[ab]_*.jsonl", *lm_eval]) == 0
    assert calls[-1][0] == Path("report") / "samples"
    assert main(["report", str(folder / "*.jsonl"), *lm_eval]) == 0  # no name before it: the folder
    assert calls[-1][0] == Path("report") / "lm logs"


@pytest.mark.parametrize(
    ("options", "shown"),
    [
        (["--predict-to", "0"], "argument --predict-to: takes a whole number >= 1, got '0'"),
        (["--k", "0"], "argument --k: needs k >= 1, got '0'"),
        (["--k", "1..3", "--predict-to", "2"], "is below the report's largest k, 3"),
    ],
)
def test_report_refuses_a_bad_k_or_predict_to_in_one_line(tmp_path, capsys, options, shown):
    path = tmp_path / "runs.csv"
    simulate_coin(tasks=4, k=3).to_csv(path, index=False)
    with pytest.raises(SystemExit) as exited:
        main(["report", str(path), "--out", str(tmp_path / "out"), *options])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.splitlines()[-1].startswith("passk-lab report: error: ")
    assert shown in err.splitlines()[-1]


def test_analyze_refuses_bad_input_with_a_message(tmp_path, capsys):
    (tmp_path / "runs.txt").write_text("task,run,passed\n")
    for args, message in [
        (["analyze", str(tmp_path / "runs.txt")], "cannot tell the format of runs.txt"),
        (["analyze", str(tmp_path / "missing.csv")], "no such results file or directory"),
        (["analyze", str(tmp_path / "missing.csv"), "--format", "table"], "no such runs file"),
        (
            ["analyze", str(tmp_path / "runs.txt"), "--format", "tau-bench"],
            "runs.txt: not valid JSON at line 1",
        ),
    ]:
        with pytest.raises(SystemExit) as exited:
            main(args)
        assert exited.value.code == 2
        assert message in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["analyze", "x.csv", "--k", "0..3"])
    assert "argument --k: needs k >= 1" in capsys.readouterr().err
    path = tmp_path / "runs.csv"
    pd.DataFrame({"task": [0, 0], "run": [0, 0], "passed": [True, False]}).to_csv(path)
    with pytest.raises(SystemExit):
        main(["analyze", str(path)])
    assert re.search("run 0 of task='?0'? appears 2 times", capsys.readouterr().err)
    with pytest.raises(SystemExit):
        main(["analyze", str(path), "--scorer", "match"])
    assert "not an option for table files: scorer" in capsys.readouterr().err


def test_analyze_reads_tau_bench_results_by_their_shape(capsys, tau_bench_published):
    path = TAU_BENCH / "gpt-4o-airline.json"
    assert main(["analyze", str(path), "--to", "csv"]) == 0
    curve = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert curve["pass_pow_k"].round(3).tolist() == list(tau_bench_published.values())
    excluded = ["analyze", str(path), "--format", "tau-bench", "--errors", "exclude", "--wide"]
    assert main(excluded) == 0
    assert "  runs excluded  " in capsys.readouterr().out.splitlines()[0]


def test_analyze_decides_table_rewards_with_a_threshold(tmp_path, capsys):
    path = tmp_path / "scores.csv"
    rewards = {"task": [0, 0, 1, 1], "run": [0, 1, 0, 1], "reward": [0.9, 0.7, 0.8, 0.9]}
    pd.DataFrame(rewards).to_csv(path, index=False)
    assert main(["analyze", str(path), "--threshold", "0.8", "--to", "json"]) == 0
    curve = pd.DataFrame(json.loads(capsys.readouterr().out))
    assert curve["pass_pow_k"].tolist() == [0.75, 0.5]


def test_analyze_reports_k_beyond_the_runs_as_a_warning(tmp_path, capsys):
    path = tmp_path / "runs.csv"
    simulate_coin(tasks=5, k=2).to_csv(path, index=False)
    assert main(["analyze", str(path), "--k", "1..3"]) == 0
    captured = capsys.readouterr()
    assert "warning: no estimate for k = 3" in captured.err
    header, *_, last = captured.out.splitlines()
    assert last.split() == ["3", "0"]  # no estimate, and no task with 3 runs
    assert last[header.index(" pass^k ") : header.index(" tasks")].strip() == ""


def test_analyze_reads_a_ledger(tmp_path, capsys):
    path = tmp_path / "ledger.jsonl"
    result = pk.evaluate(pk.coin_tasks(0.85, 40, seed=42), k=5, ledger=path, model="coin")
    assert main(["analyze", str(path), "--to", "csv"]) == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out), comment="#")
    expected = reliability_curve(result.runs, rng=0)
    assert table["pass_pow_k"].tolist() == pytest.approx(expected["pass_pow_k"].tolist())
    assert table["pass_pow_k"].iloc[-1] == pytest.approx(0.45)


def test_the_plain_table_leaves_a_value_with_no_estimate_empty(tmp_path, capsys):
    path = tmp_path / "runs.csv"
    simulate_coin(tasks=6, k=3, seed=1).to_csv(path, index=False)
    assert main(["analyze", str(path), "--predict-to", "4", "--resamples", "200", "--wide"]) == 0
    header, *rows = capsys.readouterr().out.splitlines()
    assert "NaN" not in "\n".join(rows)
    (predicted,) = [row for row in rows if row.split()[0] == "4"]
    start = header.index(" pass^k ")
    assert predicted[start : header.index("(pass@1)^k")].strip() == ""  # pass^k .. pass@k CI
    everyone = tmp_path / "all.csv"  # every run passes: no spread, no correlation
    pd.DataFrame({"task": [0, 0, 1, 1], "run": [0, 1] * 2, "passed": True}).to_csv(everyone)
    other = tmp_path / "other.csv"
    pd.DataFrame({"task": [0, 0, 1, 1], "run": [0, 1] * 2, "passed": [1, 0, 1, 1]}).to_csv(other)
    assert main(["compare", str(everyone), str(other), "--k", "1"]) == 0
    out = capsys.readouterr().out
    assert "correlation" in out
    assert "NaN" not in out
