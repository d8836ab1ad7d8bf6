"""RUNS_FILE and the options that say how to read it, and the reading itself."""

from __future__ import annotations

import argparse
import warnings
from typing import TYPE_CHECKING, Any

from passk_lab._choices import ERROR_POLICIES, FORMATS

if TYPE_CHECKING:
    import pandas as pd

    from passk_lab.cli._parsing import Parser

__all__ = ["READ_OPTIONS", "input_arguments", "read_runs"]

READ_OPTIONS = {
    "scorer": "scorer",
    "threshold": "threshold",
    "task": "task",
    "run": "run",
    "passed": "passed",
    "reward": "reward",
    "n": "n",
    "c": "c",
    "metric": "lm_eval_metric",
    "filter": "lm_eval_filter",
    "partial": "partial",
}
"""The options of :func:`input_arguments` that pass on to the reader: its keyword, their dest."""


def input_arguments(parser: Parser, *, two_files: bool = False) -> None:
    """Add RUNS_FILE and how to read it.

    The reading options (with --errors: what an errored run counts as) are left
    out of the help's list of options: a note at its end tells them in short,
    and docs/cli.md in full.

    Parameters
    ----------
    parser : Parser
        The command's parser.
    two_files : bool, default False
        Take one or more files (compare's agents, one each) instead of one.
    """
    hidden = argparse.SUPPRESS  # told in the note below
    parser.add_argument(
        "runs_file", metavar="RUNS_FILE", nargs="+" if two_files else None, help=hidden
    )
    formats = ["auto", *FORMATS]
    parser.add_argument("--format", choices=formats, default="auto", metavar="FORMAT", help=hidden)
    for name in ("task", "run", "passed", "reward", "n", "c"):
        parser.add_argument(f"--{name}", metavar="COLUMN", help=hidden)
    parser.add_argument("--threshold", type=float, metavar="REWARD", help=hidden)
    for name in ("scorer", "lm-eval-metric", "lm-eval-filter"):
        parser.add_argument(f"--{name}", metavar="NAME", help=hidden)
    parser.add_argument("--partial", action="store_true", help=hidden)
    parser.add_argument(
        "--errors", choices=ERROR_POLICIES, default="fail", metavar="POLICY", help=hidden
    )
    parser.add_note(
        "RUNS_FILE: a runs table, a table of counts, or another harness's results.",
        [
            ("--format FORMAT", "its format (default: auto, told from its shape)"),
            (
                "--task, --run, --passed, --reward, --n, --c COLUMN",
                "columns named otherwise",
            ),
            ("--threshold REWARD", "the reward a run needs to pass (default: 1)"),
            ("--scorer, --lm-eval-metric, --lm-eval-filter NAME", "what decides a pass"),
            ("--partial", "read an evaluation that stopped early"),
            ("--errors POLICY", "an errored run: fail (default) or exclude"),
        ],
    )


def read_runs(args: argparse.Namespace, path: str | None = None) -> pd.DataFrame:
    """Read RUNS_FILE (or `path`) as the options of :func:`input_arguments` say.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed arguments of a command with those options.
    path : str, optional
        The file to read, when it is not RUNS_FILE (one of compare's two).

    Returns
    -------
    pandas.DataFrame
        What ``passk_lab.io.read`` returns.

    Raises
    ------
    TypeError, ValueError
        As the reader refuses the file; a table refused as counts because --n or --c chose
        them, that reads as a runs table without them, says so.
    """
    from passk_lab.io import read

    file = args.runs_file if path is None else path
    name, counted = _format(args, file)
    given = {keyword: getattr(args, dest, None) for keyword, dest in READ_OPTIONS.items()}
    options = {
        keyword: value
        for keyword, value in given.items()
        if value is not None and value is not False
    }
    if getattr(args, "by", None) and _takes(name, "by"):
        options["by"] = args.by  # a reader that reads groups reads them as ids, as tally does
    try:
        return read(file, format=name, **options)
    except (TypeError, ValueError) as error:
        if not counted or not _reads_as_runs(file, options):
            raise
        raise type(error)(
            f"{error} (--n and --c read {file} as a table of counts; without them it reads as a "
            "runs table: leave them out)"
        ) from None


def _reads_as_runs(file: str, options: dict[str, Any]) -> bool:
    """Tell whether `file`, refused as a table of counts, reads as a runs table with `options`."""
    from passk_lab.io import read

    kept = {name: value for name, value in options.items() if name not in ("n", "c")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # what reading it warns of is not this file's reading
        try:
            read(file, format="table", **kept)
        except (TypeError, ValueError):
            return False
    return True


def _format(args: argparse.Namespace, file: str) -> tuple[str, bool]:
    """Return the format of `file` (--format, else told from its shape), and if --n or --c chose it.

    A table told from its shape is a table of counts when --n or --c names its columns.
    """
    from passk_lab.io import detect_format

    if args.format != "auto":
        return str(args.format), False
    name = detect_format(file)
    counted = name == "table" and (args.n is not None or args.c is not None)
    return ("counts" if counted else name), counted


def _takes(name: str, option: str) -> bool:
    """Tell whether the reader of the format `name` takes `option`."""
    from passk_lab.io._formats import REGISTRY

    return any(row.name == name and option in row.options for row in REGISTRY)
