"""The command line's parser: it records each option as it is added, and says its default.

A message of the library names the keywords that would fix it (``run``,
``n_resamples``); the parser of the command that ran knows which option sets
each (``--run``, ``--resamples``), from :attr:`Parser.options`, kept as the
options are added rather than read back from argparse's internals.

Its help is short, to fit a terminal's screen: one line an option, the
options seldom needed listed in a few lines under a title (:meth:`Parser.add_note`),
and docs/cli.md for the long explanations.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

__all__ = ["HELP_COLUMN", "MORE", "WIDTH", "Handler", "HelpFormatter", "Parser"]

Handler = Callable[[argparse.Namespace], int]
"""What runs a command: it takes the parsed arguments and returns the exit status."""

HELP_COLUMN = 28
"""The column each option's help starts at: ``  --confidence-level LEVEL`` fits before it."""

WIDTH = 78
"""The widest line of a note: argparse's width on an 80-column terminal."""

MORE = "(docs/cli.md explains every option)"
"""The last line of every command's description."""


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """The help's layout: descriptions and notes as written, each option's help at `HELP_COLUMN`."""

    def __init__(self, prog: str, **kwargs: Any) -> None:
        kwargs.setdefault("max_help_position", HELP_COLUMN)
        super().__init__(prog, **kwargs)


class Parser(argparse.ArgumentParser):
    """An argument parser that records each option's dest and its longest spelling.

    Its commands are parsers of this class too. Every option's help ends in
    ``(default: X)`` when it has a default and its help does not say it; the
    help's layout is :class:`HelpFormatter`'s.

    Attributes
    ----------
    options : dict of str to str
        Each option's dest and its longest spelling: ``{"resamples": "--resamples"}``.

    Examples
    --------
    >>> parser = Parser(prog="demo")
    >>> _ = parser.add_argument("--resamples", type=int, default=10, help="draws")
    >>> parser.options
    {'resamples': '--resamples'}
    >>> " ".join(parser.format_help().split()[-5:])
    '--resamples RESAMPLES draws (default: 10)'
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.options: dict[str, str] = {}
        self._notes: list[str] = []
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        """Add an argument as argparse does, and :meth:`record` it."""
        action = super().add_argument(*args, **kwargs)
        self.record(action)
        return action

    def record(self, action: argparse.Action) -> None:
        """Record an option added elsewhere (in a group of options), and say its default.

        Parameters
        ----------
        action : argparse.Action
            What ``add_argument`` returned.
        """
        if action.option_strings and action.dest not in ("help", "version"):
            self.options[action.dest] = max(action.option_strings, key=len)
        text = action.help or ""
        shown = action.help is not argparse.SUPPRESS
        if shown and _shows_default(action) and "default" not in text:
            action.help = f"{text} (default: %(default)s)"

    def print_help(self, file: SupportsWrite[str] | None = None) -> None:
        """Write the help to `file` (standard output by default), raising what writing raises.

        argparse's own drops an OSError, so that a closed pipe would pass unseen: here it
        raises BrokenPipeError, for the command line to end as it does for any output.
        """
        (sys.stdout if file is None else file).write(self.format_help())

    def add_note(self, title: str, rows: Sequence[tuple[str, str]]) -> None:
        """Add a block at the end of the help: `title`, then one line a row, help at `HELP_COLUMN`.

        For options left out of the help's list (``help=argparse.SUPPRESS``) and
        told here in short, a few to a row.

        Parameters
        ----------
        title : str
            The block's first line.
        rows : sequence of (str, str)
            Each row's options (``--n, --c COLUMN``) and what they do. Options too
            long for the column have their help two spaces after them, or on the
            next line if the row would be wider than `WIDTH`.

        Examples
        --------
        >>> parser = Parser(prog="demo")
        >>> parser.add_note("reading:", [("--n, --c COLUMN", "the counts' columns")])
        >>> print(parser.epilog)
        reading:
          --n, --c COLUMN           the counts' columns
        """
        lines = [title]
        for names, text in rows:
            if len(names) + 4 <= HELP_COLUMN:
                lines.append(f"  {names:<{HELP_COLUMN - 2}}{text}")
            elif len(names) + len(text) + 4 <= WIDTH:
                lines.append(f"  {names}  {text}")
            else:
                lines += [f"  {names}", f"{'':<{HELP_COLUMN}}{text}"]
        self._notes.append("\n".join(lines))
        self.epilog = "\n\n".join(self._notes)

    def add_commands(self, *, dest: str, metavar: str) -> None:
        """Give the parser commands of its own, to add with :meth:`add_command`.

        Parameters
        ----------
        dest : str
            The name of the command chosen, in the parsed arguments.
        metavar : str
            How the help shows it (``COMMAND``).
        """
        # prog: a command's name follows this parser's, whatever usage it shows
        self._commands = self.add_subparsers(
            dest=dest, required=True, metavar=metavar, prog=self.prog
        )

    def add_command(self, name: str, handler: Handler | None, **options: Any) -> Parser:
        """Add the command `name` (after :meth:`add_commands`) and return its parser.

        Parameters
        ----------
        name : str
            The command's name.
        handler : callable or None
            What runs it; None for a command that has commands of its own.
        **options
            Its ``help``, ``usage`` and ``description``, which :data:`MORE` ends.

        Returns
        -------
        Parser
            The command's parser. Its parsed arguments hold ``handler``, ``prog``
            (the command, for messages) and ``options`` (its :attr:`options`).
        """
        described = "\n".join(filter(None, [options.pop("description", None), MORE]))
        parser = self._commands.add_parser(name, description=described, **options)
        if handler is not None:
            parser.set_defaults(handler=handler, prog=parser.prog, options=parser.options)
        return parser


def _shows_default(action: argparse.Action) -> bool:
    """Tell whether an option has a default to show: a value it takes when left out."""
    return (
        bool(action.option_strings)
        and action.nargs != 0
        and action.default not in (None, argparse.SUPPRESS)
    )
