"""Write the example runs files the README and docs/cli.md use: ``python data/examples/make.py``.

Each file is simulated agents on shared tasks (``pk.simulate_coin``: every run of an agent
passes with its chance p, from a seeded stream), so it is the same, byte for byte, wherever it
is written; tests/test_docs.py checks that the committed files are what this script writes.

* ``two_models.csv``: models ``a`` (p = 0.9) and ``b`` (p = 0.6), 30 tasks of 4 runs each;
* ``models.csv``: agents ``alpha`` (p = 0.9), ``beta`` (p = 0.8) and ``gamma`` (p = 0.6),
  60 tasks of 3 runs each.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

import passk_lab as pk

HERE = Path(__file__).resolve().parent

EXAMPLES = {
    "two_models.csv": (30, 4, [("a", 0.9, 1), ("b", 0.6, 2)]),
    "models.csv": (60, 3, [("alpha", 0.9, 1), ("beta", 0.8, 2), ("gamma", 0.6, 3)]),
}
"""Each file's tasks, runs per task, and its agents: a name, a pass chance and a seed."""


def runs(tasks: int, k: int, agents: list[tuple[str, float, int]]) -> pd.DataFrame:
    """Return the runs of `agents` on the same `tasks` tasks, `k` runs each, with ``model``."""
    return pd.concat(
        [
            pk.simulate_coin(p, tasks, k, seed).assign(model=name)[
                ["model", "task", "run", "passed"]
            ]
            for name, p, seed in agents
        ],
        ignore_index=True,
    )


def write(folder: Path) -> list[Path]:
    """Write every example into `folder` and return their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, (tasks, k, agents) in EXAMPLES.items():
        path = folder / name
        runs(tasks, k, agents).to_csv(path, index=False, lineterminator="\n")
        written.append(path)
    return written


if __name__ == "__main__":
    for path in write(HERE):
        print(f"wrote {path}")
