"""The Makefile's targets as a user calls them: what ``make lab`` would run, printed by make -n."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import IN_CI

ROOT = Path(__file__).parent.parent


@pytest.fixture(autouse=True)
def needs_make():
    """These tests ask make what it would run.

    Without make (a pip-only install, Windows without a POSIX shell) there is nothing to ask;
    in CI, whose .ci/run installs make, that is a failure.
    """
    if shutil.which("make") is None:
        if IN_CI:
            pytest.fail("make is missing in CI: .ci/run installs it (apt-get install make)")
        pytest.skip("make is not installed: the Makefile cannot be asked what it runs")


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


def _old_python() -> str | None:
    """A Python 3.10 that runs here (a pyenv shim may name one that is not selected), or None."""
    found = [
        shutil.which("python3.10"),
        *map(str, Path.home().glob(".pyenv/versions/3.10*/bin/python")),
    ]
    for python in filter(None, found):
        ran = subprocess.run(
            [python, "-c", "import sys; print(sys.version_info[:2])"],
            capture_output=True,
            text=True,
        )
        if ran.returncode == 0 and ran.stdout.strip() == "(3, 10)":
            return python
    return None


OLD_PYTHON = _old_python()


@pytest.mark.skipif(
    OLD_PYTHON is None,
    reason="needs a Python 3.10 to refuse, and none runs here (Debian's own Python is 3.11+)",
)
def test_make_with_a_python_too_old_says_which_python_to_name_before_it_makes_anything(tmp_path):
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    refused = subprocess.run(
        ["make", "--no-print-directory", "test", f"PYTHON={OLD_PYTHON}"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert refused.returncode != 0
    assert "passk_lab needs Python 3.11 or newer" in refused.stderr
    assert "make PYTHON=/path/to/python3.11" in refused.stderr
    assert not (tmp_path / ".venv").exists()
