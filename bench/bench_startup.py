"""Start-up: the command line's help, the package's import and an analysis, as fresh processes.

Each is a new interpreter, timed from start to exit and the fastest of several
kept; the baselines are interpreters that import pandas (and read the same
file), timed alternately with the operations so that a burst of load hits both.
"""

from __future__ import annotations

import functools
import subprocess
import sys
from pathlib import Path

from timing import Row, alternating_minima

TAU_BENCH = (
    Path(__file__).parents[1] / ".." / "shared" / "data" / "tau-bench" / "gpt-4o-airline.json"
)
ROUNDS = 7


def _python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def rows() -> list[Row]:
    cli = str(Path(sys.executable).with_name("passk-lab"))
    commands = {
        "help": [cli, "--help"],
        "import": _python("import passk_lab"),
        "first use": _python("import passk_lab as pk; pk.reliability_curve"),
        "pandas": _python("import pandas"),
        "analyze": [cli, "analyze", str(TAU_BENCH)],
        "pandas read": _python(
            "import json, pandas; "
            f"pandas.DataFrame(json.load(open({str(TAU_BENCH)!r}, encoding='utf-8')))"
        ),
    }
    runs = (
        functools.partial(subprocess.run, command, check=True, stdout=subprocess.DEVNULL)
        for command in commands.values()
    )
    best = dict(zip(commands, alternating_minima(*runs, rounds=ROUNDS), strict=True))
    return [
        Row("passk-lab --help", "", best["help"], "import pandas", best["pandas"], budget=0.1),
        Row("import passk_lab", "", best["import"], "import pandas", best["pandas"], target=1.2),
        Row(
            "  then pk.reliability_curve",
            "",
            best["first use"],
            "import pandas",
            best["pandas"],
            note="the library's core: numpy and pandas",
        ),
        Row(
            "passk-lab analyze tau-bench",
            "50x4",
            best["analyze"],
            "import pandas + json read",
            best["pandas read"],
            target=1.5,
        ),
    ]
