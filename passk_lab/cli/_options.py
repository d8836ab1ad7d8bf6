"""The options several commands share: --k, --by, --unmatched, the intervals', the output's.

Each ``*_arguments`` function adds a set of options to a command's parser;
:func:`interval_options` and :func:`curve_options` turn the parsed values back
into the keywords of the library's statistics.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from passk_lab._choices import INTERVAL_METHODS, UNMATCHED
from passk_lab.cli._argument_types import k_values, probability, whole_number

__all__ = [
    "INTERVAL_OPTIONS",
    "OUTPUTS",
    "by_argument",
    "curve_arguments",
    "curve_interval_arguments",
    "curve_options",
    "guard_argument",
    "interval_arguments",
    "interval_options",
    "k_argument",
    "output_arguments",
    "unmatched_argument",
]

OUTPUTS = ("table", "csv", "markdown", "json")
"""What --to prints."""

INTERVAL_OPTIONS = {
    "errors": "errors",
    "confidence_level": "confidence_level",
    "n_resamples": "resamples",
    "rng": "seed",
}
"""The options every statistic takes (--errors and :func:`interval_arguments`'): its keyword,
their dest."""


def k_argument(parser: argparse.ArgumentParser, default: str) -> None:
    """Add --k, the ks asked for, its default (none given) described as `default`."""
    parser.add_argument(
        "--k", type=k_values, metavar="K", help=f"5, 1,2,4 or 1..8 (default: {default})"
    )


def by_argument(parser: argparse.ArgumentParser, *, required: bool = False, what: str) -> None:
    """Add --by, a column, repeated for several; helped as `what`."""
    parser.add_argument("--by", action="append", required=required, metavar="COLUMN", help=what)


def unmatched_argument(parser: argparse.ArgumentParser, what: str) -> None:
    """Add --unmatched: whether `what` (a task not every agent ran) is refused or dropped."""
    parser.add_argument(
        "--unmatched",
        choices=UNMATCHED,
        default="raise",
        metavar="POLICY",
        help=f"{what}: {' or '.join(UNMATCHED)}",
    )


def output_arguments(parser: argparse.ArgumentParser, *, text: bool = True) -> None:
    """Add --to, what to print, and, if the tables have `text` cells, the CSV's formula guard."""
    parser.add_argument(
        "--to",
        choices=OUTPUTS,
        default="table",
        metavar="FORMAT",
        help=f"{', '.join(OUTPUTS[:-1])} or {OUTPUTS[-1]}",
    )
    if text:
        guard_argument(parser)


def guard_argument(parser: argparse.ArgumentParser) -> None:
    """Add --no-formula-guard: CSV text cells as they are, formulas and all.

    By default a text cell that starts with =, +, -, @, a tab or a carriage
    return gets a ' in front, so that a spreadsheet runs no formula.
    """
    parser.add_argument(
        "--no-formula-guard",
        dest="formula_guard",
        action="store_false",
        help="CSV text cells as they are, formulas and all",
    )


def interval_arguments(
    parser: argparse.ArgumentParser,
    *,
    resamples: str,
    methods: Sequence[str] = (),
    method: str = "",
) -> None:
    """Add the interval options (--errors is a reading option, :func:`~._input.input_arguments`).

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The command's parser.
    resamples : str
        The help of --resamples: what is drawn.
    methods : sequence of str, optional
        The choices of --method; none, no --method.
    method : str, optional
        The help of --method.
    """
    parser.add_argument(
        "--confidence-level",
        type=probability,
        default=0.95,
        metavar="LEVEL",
        help="of every interval",
    )
    if methods:
        parser.add_argument(
            "--method", choices=methods, default="auto", metavar="METHOD", help=method
        )
    parser.add_argument(
        "--resamples", type=whole_number(1), default=10_000, metavar="N", help=resamples
    )
    parser.add_argument(
        "--seed", type=whole_number(0), default=0, metavar="SEED", help="of the resamples"
    )


def curve_arguments(parser: argparse.ArgumentParser) -> None:
    """Add --by and --predict-to."""
    by_argument(parser, what="a curve per group (repeat for more columns)")
    parser.add_argument(
        "--predict-to", type=whole_number(1), metavar="K", help="predict pass^k up to K"
    )


def curve_interval_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the interval options of a curve: :func:`interval_arguments` with --method."""
    interval_arguments(
        parser,
        resamples="bootstrap resamples",
        methods=INTERVAL_METHODS,
        method="the interval of pass^k and pass@k",
    )


def interval_options(args: argparse.Namespace) -> dict[str, Any]:
    """Return the keywords every statistic takes: --errors and :func:`interval_arguments`'.

    Examples
    --------
    >>> args = argparse.Namespace(errors="fail", confidence_level=0.9, resamples=200, seed=0)
    >>> interval_options(args)
    {'errors': 'fail', 'confidence_level': 0.9, 'n_resamples': 200, 'rng': 0}
    """
    return {keyword: getattr(args, dest) for keyword, dest in INTERVAL_OPTIONS.items()}


def curve_options(args: argparse.Namespace) -> dict[str, Any]:
    """Return the reliability curve's keywords: :func:`curve_arguments`', the intervals'."""
    return {
        "by": args.by,
        "method": args.method,
        "predict_to": args.predict_to,
        **interval_options(args),
    }
