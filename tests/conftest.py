"""Shared test helpers: the source's JavaScript, run by Node.js as an independent oracle."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import settings

# Hypothesis profiles. "reproducible", the default, draws the same examples on every machine and
# every run and keeps no example database, so that a run never depends on the history of runs
# before it: a CI run (`bash .ci/run`, with or without CI set) passes or fails the same way each
# time, a failure being found by the budget each test sets, never by luck. "explore" draws new
# examples on every run and saves the failing ones in .hypothesis/, to look for bugs locally:
#     HYPOTHESIS_PROFILE=explore .venv/bin/pytest tests
# (or pytest's --hypothesis-profile=explore). A failure it finds is pinned for good with an
# @example(...) on the test, or a plain test, never left to the database.
settings.register_profile(
    "reproducible", derandomize=True, database=None, deadline=None, print_blob=True
)
settings.register_profile("explore", derandomize=False, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "reproducible"))

SHARED_DATA = Path(__file__).parents[1] / ".." / "shared" / "data"
TAU_BENCH = SHARED_DATA / "tau-bench"

# The source document's seeded(), verbatim apart from the TypeScript annotations.
SEEDED_JS = """
function seeded(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
"""


IN_CI = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")
"""Whether the tests run in CI (CI=true, as .ci/run sets it), where a missing tool fails them."""


@pytest.fixture(scope="session")
def run_js() -> Callable[[str], object]:
    """Run a JavaScript snippet after the source's ``seeded`` and parse what it prints as JSON."""
    node = shutil.which("node")
    if node is None:
        if IN_CI:
            pytest.fail("Node.js is missing in CI, where the JavaScript oracle must run")
        pytest.skip("Node.js is not installed here; the pure-Python transcription still runs")

    def run(snippet: str) -> object:
        completed = subprocess.run(
            [node, "-e", SEEDED_JS + snippet],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        )
        return json.loads(completed.stdout)

    return run


@pytest.fixture(scope="session")
def tau_bench_published() -> dict[int, float]:
    """Published pass^k of gpt-4o on tau-bench airline (Yao et al. 2024, the tau-bench paper)."""
    return {1: 0.420, 2: 0.273, 3: 0.220, 4: 0.200}


@pytest.fixture
def tau_bench_runs() -> pd.DataFrame:
    """The gpt-4o airline results read with a plain JSON load: one row per (task_id, trial)."""
    records = json.loads((TAU_BENCH / "gpt-4o-airline.json").read_text())
    return pd.DataFrame(
        {
            "task": [record["task_id"] for record in records],
            "run": [record["trial"] for record in records],
            "reward": [record["reward"] for record in records],
        }
    )
