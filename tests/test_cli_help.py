"""``passk-lab --help``: one screen for each command, one style of metavar, and docs/cli.md
explaining every option the help lists in short."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from passk_lab.cli import main
from passk_lab.cli._main import _parser

CLI_PAGE = Path(__file__).parent.parent / "docs" / "cli.md"

SCREEN = (26, 79)
"""A help's most lines and widest line on a terminal of 80 columns and about 25 lines."""


def parsers(parser=None, name="passk-lab"):
    """Yield every parser (passk-lab, each command, plan's questions) with its name."""
    parser = parser or _parser()
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for command, sub in action.choices.items():
                yield from parsers(sub, f"{name} {command}")


PARSERS = dict(parsers())


def options(parser):
    """The options of a parser that a user gives, less --help and --version."""
    return [
        action
        for action in parser._actions
        if action.option_strings and action.dest not in ("help", "version")
    ]


def takes_a_value(action):
    return action.nargs != 0  # a flag (store_true, store_false) takes none


@pytest.fixture
def help_text(monkeypatch):
    """The help of a parser as an 80-column terminal shows it (argparse reads COLUMNS)."""
    monkeypatch.setenv("COLUMNS", "80")
    return lambda parser: parser.format_help()


def test_the_parsers_found_are_every_command_and_question():
    assert set(PARSERS) == {
        "passk-lab",
        *(
            f"passk-lab {command}"
            for command in ("reproduce", "analyze", "report", "leaderboard", "compare", "plan")
        ),
        *(f"passk-lab plan {question}" for question in ("rate", "zero-failure", "tasks")),
    }


@pytest.mark.parametrize("name", PARSERS)
def test_each_help_fits_a_screen(name, help_text):
    lines = help_text(PARSERS[name]).splitlines()
    most_lines, widest = SCREEN
    assert len(lines) <= most_lines
    assert max(map(len, lines)) <= widest, max(lines, key=len)


@pytest.mark.parametrize("name", PARSERS)
def test_each_help_names_every_option_and_what_its_value_is(name, help_text):
    text = help_text(PARSERS[name])
    assert "{" not in text  # choices are told in words, not as argparse's {a,b,c}
    for action in options(PARSERS[name]):
        for spelling in action.option_strings:
            assert re.search(rf"(?<![\w-]){re.escape(spelling)}(?![\w-])", text), spelling
        if takes_a_value(action):
            assert isinstance(action.metavar, str), action.option_strings
            assert re.fullmatch(r"[A-Z]+", action.metavar), action.metavar
            assert re.search(rf"\b{action.metavar}\b", text), action.metavar
    for action in PARSERS[name]._actions:
        if not action.option_strings and action.metavar is not None:  # RUNS_FILE, COMMAND, ...
            assert re.fullmatch(r"[A-Z]+(_[A-Z]+)?", str(action.metavar)), action.metavar
            assert str(action.metavar) in text


def test_an_option_has_one_metavar_in_every_command_and_every_column_is_a_column():
    metavars: dict[str, set[str]] = {}
    for parser in PARSERS.values():
        for action in filter(takes_a_value, options(parser)):
            metavars.setdefault(max(action.option_strings, key=len), set()).add(action.metavar)
    assert {option: names for option, names in metavars.items() if len(names) > 1} == {}
    columns = ["--by", "--task", "--run", "--passed", "--reward", "--n", "--c"]
    assert {option: metavars[option] for option in columns} == {c: {"COLUMN"} for c in columns}
    assert metavars["--k"] == {"K"}
    assert metavars["--seed"] == {"SEED"}


@pytest.mark.parametrize("name", PARSERS)
def test_each_option_listed_with_a_default_says_it_once(name, help_text):
    text = help_text(PARSERS[name])
    listed = text.split("\noptions:\n", 1)[1].split("\n\n", 1)[0]
    entries = [" ".join(entry.split()) for entry in re.split(r"\n(?=  -)", listed)]
    for action in options(PARSERS[name]):
        if action.help is argparse.SUPPRESS:  # told in a note under the list
            continue
        (entry,) = [
            line for line in entries if line.split()[0].rstrip(",") in action.option_strings
        ]
        assert entry.count("default") <= 1, entry
        if takes_a_value(action) and action.default is not None:
            assert "default" in entry, entry


@pytest.mark.parametrize("name", PARSERS)
def test_docs_cli_explains_every_option(name):
    page = CLI_PAGE.read_text(encoding="utf-8")
    for action in options(PARSERS[name]):
        for spelling in action.option_strings:
            assert re.search(rf"`{re.escape(spelling)}[ `]", page), f"{name} {spelling}"


def test_help_is_printed_on_standard_output_and_exits_0(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["analyze", "--help"])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: passk-lab analyze RUNS_FILE [options]\n")
    assert "(docs/cli.md explains every option)" in out.splitlines()[3]
