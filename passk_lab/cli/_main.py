"""The ``passk-lab`` parser and :func:`main`, which runs a command and tells what it refused."""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Sequence
from typing import TextIO

from passk_lab._errors import keywords_of
from passk_lab._version import __version__
from passk_lab.cli._agents import add_compare, add_leaderboard
from passk_lab.cli._analysis import add_analyze, add_report
from passk_lab.cli._input import READ_OPTIONS
from passk_lab.cli._options import INTERVAL_OPTIONS
from passk_lab.cli._parsing import Parser
from passk_lab.cli._plan import add_plan
from passk_lab.cli._reproduce import add_reproduce

__all__ = ["PIPE_CLOSED", "main"]

# Every command imports what it needs when it runs: `passk-lab --help` imports no numpy,
# pandas or scipy.


def _parser() -> Parser:
    """Return the parser of ``passk-lab`` and all its commands."""
    parser = Parser(
        prog="passk-lab",
        description=(
            "Measure how reliably an agent does a job: pass@1 next to pass^k.\n"
            "(docs/cli.md explains every command and option)"
        ),
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_commands(dest="command", metavar="COMMAND")
    for add in (add_reproduce, add_analyze, add_report, add_leaderboard, add_compare, add_plan):
        add(parser)
    return parser


PIPE_CLOSED = 141
"""The exit status when the reader of the output went away: 128 + SIGPIPE's 13, as a shell
reports a program that SIGPIPE ended (``cat big.csv | head -1``)."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``passk-lab`` command line and return its exit status.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments after the program name; ``sys.argv[1:]`` by default.

    Returns
    -------
    int
        0 on success; 2 when the arguments, the input or its size are refused (one line on
        stderr says why); 130 on Ctrl-C; 141 (:data:`PIPE_CLOSED`), and no message, when the
        reader of the output went away (``| head -1``), as for a program SIGPIPE ends.

    Examples
    --------
    The per-run pass rate that pass^k = 0.9 needs at k = 1 and 5, as CSV:

    >>> main(["plan", "rate", "--target", "0.9", "--k", "1,5", "--to", "csv"])
    target,k,required_p
    0.9,1,0.9
    0.9,5,0.9791483623609768
    0
    """
    try:
        return _run(_parser(), argv)
    except BrokenPipeError:
        # The reader went away (| head): write no more, and say nothing, as Unix tools do.
        # Standard output now goes nowhere, so that flushing it at exit fails no more.
        _to_devnull(sys.stdout)
        return PIPE_CLOSED


def _run(parser: Parser, argv: Sequence[str] | None) -> int:
    """Parse `argv`, run its command, and say what it refused and warned of.

    A closed pipe raises BrokenPipeError, for :func:`main` to end quietly.
    """
    try:
        args = parser.parse_args(argv)
    except SystemExit:
        sys.stdout.flush()  # --help and --version wrote here: a closed pipe shows now
        raise
    command = str(args.prog)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                status: int = args.handler(args)
                sys.stdout.flush()  # a closed pipe shows here, not at exit
            except BrokenPipeError:
                raise
            except _REFUSED as exc:
                error: str | None = _with_options(_message(exc), keywords_of(exc), args)
            else:
                error = None
    except KeyboardInterrupt:
        print(f"{command}: interrupted", file=sys.stderr)
        return 130
    # what the readers and estimators warned of, as plain lines, each once (a leaderboard's
    # table of pairs warns of the same dropped tasks as the leaderboard)
    said = dict.fromkeys(
        _with_options(
            str(warning.message),
            keywords_of(warning.message) if isinstance(warning.message, Warning) else (),
            args,
        )
        for warning in caught
    )
    for message in said:
        print(f"{command}: warning: {message}", file=sys.stderr)
    if error is not None:
        parser.exit(2, f"{command}: error: {error}\n")
    return status


def _to_devnull(stream: TextIO) -> None:
    """Point the file descriptor under `stream` at the null device, if it has one."""
    try:
        descriptor = stream.fileno()
    except (AttributeError, OSError, ValueError):  # a stream in memory (io.UnsupportedOperation)
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, descriptor)
    finally:
        os.close(devnull)


_KEYWORD_DESTS = {**READ_OPTIONS, **INTERVAL_OPTIONS}
"""The library's keywords whose options may have another dest than the keyword itself."""


def _with_options(text: str, keywords: Sequence[str], args: argparse.Namespace) -> str:
    """Return a message of the library with the options that set the keywords it names.

    Each of `keywords` (what a refusal or a warning names as its fix, see
    :func:`passk_lab._errors.keywords_of`) that the command has an option for
    is told once at the end: " (on the command line: run= is --run)".

    Parameters
    ----------
    text : str
        The message.
    keywords : sequence of str
        The library's keywords it names.
    args : argparse.Namespace
        The parsed arguments of the command that ran (its ``options``, the parser's record).

    Returns
    -------
    str
        `text`, with the options told if the command has any of them.
    """
    options: dict[str, str] = getattr(args, "options", {})
    told = [
        f"{keyword}= is {options[dest]}"
        for keyword in dict.fromkeys(keywords)
        if (dest := _KEYWORD_DESTS.get(keyword, keyword)) in options
    ]
    return f"{text} (on the command line: {', '.join(told)})" if told else text


_REFUSED = (
    TypeError,
    ValueError,
    ImportError,
    OSError,
    OverflowError,
    RecursionError,
    MemoryError,
)
"""What a command's input or its size can cause: each is told in one line and exits 2.

Anything else is a fault in passk_lab itself and keeps its traceback.
"""


def _message(error: BaseException) -> str:
    """One line for an error a command refused: an OSError's reason and file, else its text."""
    if isinstance(error, OSError) and error.strerror:
        files = [str(name) for name in (error.filename, error.filename2) if name is not None]
        return ": ".join([*files, error.strerror])
    if isinstance(error, MemoryError):
        return "out of memory; give a smaller input, fewer ks or fewer resamples"
    if isinstance(error, RecursionError):
        return "the input is nested too deeply to read"
    text = " ".join(str(error).split())  # one line, however the message was wrapped
    return text or type(error).__name__
