"""The Makefile's targets as a user calls them: what ``make lab`` would run, printed by make -n."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def lab_command(*arguments: str) -> str:
    """The jupyter command ``make lab`` runs with `arguments`, without running anything."""
    shown = subprocess.run(
        ["make", "--no-print-directory", "-n", "lab", *arguments],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    (command,) = [line for line in shown.splitlines() if "jupyter lab" in line]
    return command


def test_make_lab_allows_root_exactly_when_it_runs_as_root():
    assert ("--allow-root" in lab_command().split()) == (os.geteuid() == 0)


@pytest.mark.parametrize("variable", ["ARGS", "LAB_ARGS"])
def test_make_lab_passes_extra_arguments_to_jupyter(variable):
    command = lab_command(f"{variable}=--no-browser --port 8900")
    assert command.split()[-3:] == ["--no-browser", "--port", "8900"]
