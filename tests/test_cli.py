from __future__ import annotations

import subprocess
import sys

import pandas as pd
import pytest

from passk_lab import __version__, simulate_coin
from passk_lab.cli import main


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
