"""The ``passk-lab`` command line."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from passk_lab import __version__
from passk_lab.harness import evaluate
from passk_lab.simulate import coin_tasks

__all__ = ["main"]


def _reproduce(args: argparse.Namespace) -> int:
    result = evaluate(coin_tasks(args.p, args.tasks, args.seed), args.k)
    k = result.k
    rows = [
        ("pass@1", result.pass_at_1, args.p, result.pass_at_1),
        (f"pass^{k}", result.pass_pow_k, args.p**k, result.pass_at_1**k),
    ]
    print(
        f"Simulated model right {args.p:.0%} of the time: "
        f"{result.tasks} tasks x {k} runs, seed {args.seed}"
    )
    print()
    print(f"{'':8}{'measured':>10}{'model p^k':>12}{'pass@1^k':>11}")
    for name, measured, analytic, from_measured in rows:
        print(f"{name:8}{measured:>10.4g}{analytic:>12.4g}{from_measured:>11.4g}")
    print(f"model p^k: the analytic curve at the simulated p = {args.p:g}")
    print("pass@1^k:  the same curve at the measured pass@1")
    print()
    print(
        f"A run passes {result.pass_at_1:.0%} of the time, yet only {result.pass_pow_k:.0%} "
        f"of tasks pass all {k} runs."
    )
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"coin_p{args.p:g}_tasks{result.tasks}_k{k}_seed{args.seed}.csv"
    result.runs.to_csv(path, index=False)
    print(f"Runs written to {path} ({len(result.runs)} rows).")
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="passk-lab",
        description="Measure how reliably an agent does a job: pass@1 next to pass^k.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    reproduce = commands.add_parser(
        "reproduce",
        help="run the source's simulated model (a seeded coin) and print pass@1 and pass^k",
        description=(
            "Evaluate a simulated model that passes each run with probability P, "
            "print pass@1 and pass^k beside the analytic p^k, and write every run to a CSV."
        ),
    )
    reproduce.add_argument("--p", type=float, default=0.85, help="per-run pass probability")
    reproduce.add_argument("--tasks", type=int, default=40, help="number of tasks")
    reproduce.add_argument("-k", "--k", type=int, default=5, help="runs per task")
    reproduce.add_argument("--seed", type=int, default=42, help="seed of the mulberry32 stream")
    reproduce.add_argument(
        "--out", default="data", metavar="DIR", help="directory for the runs CSV (default: data)"
    )
    reproduce.set_defaults(handler=_reproduce)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``passk-lab`` command line and return its exit status.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments after the program name; ``sys.argv[1:]`` by default.

    Returns
    -------
    int
        0 on success, 2 when the arguments are refused.
    """
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        status: int = args.handler(args)
    except (TypeError, ValueError) as exc:
        parser.exit(2, f"passk-lab {args.command}: error: {exc}\n")
    return status
