"""``passk-lab reproduce``: the source's simulated model, its pass@1 and pass^k, its runs."""

from __future__ import annotations

import argparse
from pathlib import Path

from passk_lab.cli._argument_types import whole_number
from passk_lab.cli._output import emit
from passk_lab.cli._parsing import Parser

__all__ = ["add_reproduce"]


def add_reproduce(parser: Parser) -> None:
    """Add the command ``reproduce`` to `parser`'s commands."""
    reproduce = parser.add_command(
        "reproduce",
        _reproduce,
        help="the source's simulated model: its pass@1 and pass^k",
        usage="%(prog)s [options]",
        description=(
            "Evaluate a simulated model that passes each run with probability P: print its\n"
            "pass@1 and pass^k beside the analytic p^k, and write its runs to a CSV in DIR."
        ),
    )
    reproduce.add_argument("--p", type=float, default=0.85, metavar="P", help="per-run pass rate")
    reproduce.add_argument(
        "--tasks", type=whole_number(1), default=40, metavar="N", help="number of tasks"
    )
    reproduce.add_argument(
        "-k", "--k", type=whole_number(1), default=5, metavar="K", help="runs per task"
    )
    reproduce.add_argument(
        "--seed", type=int, default=42, metavar="SEED", help="seed of the mulberry32 stream"
    )
    reproduce.add_argument("--out", default="data", metavar="DIR", help="the runs' folder")


def _reproduce(args: argparse.Namespace) -> int:
    """Evaluate the seeded coin, print what it measured beside p^k, and write its runs."""
    from passk_lab.harness import evaluate
    from passk_lab.simulate import coin_tasks

    tasks = coin_tasks(p=args.p, tasks=args.tasks, seed=args.seed)
    result = evaluate(tasks, k=args.k)
    k = result.k
    rows = [
        ("pass@1", result.pass_at_1, args.p, result.pass_at_1),
        (f"pass^{k}", result.pass_pow_k, args.p**k, result.pass_at_1**k),
    ]
    lines = [
        f"Simulated model right {args.p:.0%} of the time: "
        f"{result.tasks} tasks x {k} runs, seed {args.seed}",
        "",
        f"{'':8}{'measured':>10}{'model p^k':>12}{'pass@1^k':>11}",
        *(
            f"{name:8}{measured:>10.4g}{analytic:>12.4g}{from_measured:>11.4g}"
            for name, measured, analytic, from_measured in rows
        ),
        f"model p^k: the analytic curve at the simulated p = {args.p:g}",
        "pass@1^k:  the same curve at the measured pass@1",
        "",
        f"A run passes {result.pass_at_1:.0%} of the time, yet only {result.pass_pow_k:.0%} "
        f"of tasks pass all {k} runs.",
    ]
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"coin_p{args.p:g}_tasks{result.tasks}_k{k}_seed{args.seed}.csv"
    result.runs.to_csv(path, index=False)  # first: a reader that stops early loses no runs
    lines.append(f"Runs written to {path} ({len(result.runs)} rows).")
    emit("\n".join(lines) + "\n")
    return 0
