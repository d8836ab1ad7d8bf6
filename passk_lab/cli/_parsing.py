"""The command line's parser: it records each option as it is added, and says its default.

A message of the library names the keywords that would fix it (``run``,
``n_resamples``); the parser of the command that ran knows which option sets
each (``--run``, ``--resamples``), from :attr:`Parser.options`, kept as the
options are added rather than read back from argparse's internals.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

__all__ = ["Handler", "Parser"]

Handler = Callable[[argparse.Namespace], int]
"""What runs a command: it takes the parsed arguments and returns the exit status."""


class Parser(argparse.ArgumentParser):
    """An argument parser that records each option's dest and its longest spelling.

    Its commands are parsers of this class too. Every option's help ends in
    ``(default: X)`` when it has a default and its help does not say it.

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
        if _shows_default(action) and "default" not in text:
            action.help = f"{text} (default: %(default)s)"

    def add_commands(self, *, dest: str, metavar: str) -> None:
        """Give the parser commands of its own, to add with :meth:`add_command`.

        Parameters
        ----------
        dest : str
            The name of the command chosen, in the parsed arguments.
        metavar : str
            How the help shows it (``COMMAND``).
        """
        self._commands = self.add_subparsers(dest=dest, required=True, metavar=metavar)

    def add_command(self, name: str, handler: Handler | None, **options: Any) -> Parser:
        """Add the command `name` (after :meth:`add_commands`) and return its parser.

        Parameters
        ----------
        name : str
            The command's name.
        handler : callable or None
            What runs it; None for a command that has commands of its own.
        **options
            Its ``help`` and ``description``.

        Returns
        -------
        Parser
            The command's parser. Its parsed arguments hold ``handler``, ``prog``
            (the command, for messages) and ``options`` (its :attr:`options`).
        """
        parser = self._commands.add_parser(name, **options)
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
