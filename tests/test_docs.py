"""The README and the pages of docs/ hold together: a short front page, every page in the site's
table of contents, every relative link to a file that exists, every command shown with what it
prints, and the example files they read as their script writes them.

``make docs`` builds the site itself (CI runs it, warnings as errors); these checks are the
quick part of it that needs no Sphinx. The Python examples of the pages run as doctests.
"""

from __future__ import annotations

import contextlib
import doctest
import importlib
import importlib.util
import io
import re
import shlex
import shutil
import tomllib
from pathlib import Path

import pytest

from passk_lab.cli import main

ROOT = Path(__file__).parent.parent
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.glob("*.md"))
EXAMPLES = ROOT / "data" / "examples"

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
"""A Markdown link or image, ``[text](target)`` or ``![alt](target "title")``: its target."""

FENCE = re.compile(r"^(```|~~~)")
CODE_SPAN = re.compile(r"`[^`]*`")


def _toctree_entries(page: Path) -> list[str]:
    """The documents a page's ``{toctree}`` blocks list, as written (``Title <name>`` → name)."""
    entries = []
    inside = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```{toctree}"):
            inside = True
        elif inside and line.startswith("```"):
            inside = False
        elif inside and line.strip() and not line.startswith(":"):
            named = re.fullmatch(r".*<(.+)>", line.strip())
            entries.append(named.group(1) if named else line.strip())
    return entries


def _links(page: Path) -> list[tuple[int, str]]:
    """The (line, target) of every link of a Markdown file outside code blocks and code spans."""
    found = []
    in_code = False
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        if FENCE.match(line.strip()):
            in_code = not in_code
            continue
        if not in_code:
            found += [(number, target) for target in LINK.findall(CODE_SPAN.sub("", line))]
    return found


def test_the_readme_is_a_front_page_that_names_the_two_commands():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 200
    assert "make demo" in readme
    assert "make test" in readme


def requirement_names(requirements: list[str]) -> set[str]:
    """The names of the packages a list of requirements names, lower case: ``dask[dataframe]>=1``
    is ``dask``."""
    return {
        re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower() for requirement in requirements
    }


@pytest.mark.parametrize("page", [ROOT / "README.md", DOCS / "install.md"], ids=lambda p: p.name)
def test_the_extras_table_names_every_extra_and_what_it_adds(page):
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    rows = dict(re.findall(r"^\| `([a-z]+)` \| ([^|]+) \|", page.read_text(encoding="utf-8"), re.M))
    assert sorted(rows) == sorted(extras)
    core = requirement_names(project["dependencies"])
    for extra, requirements in extras.items():
        told = rows[extra].lower()
        for name in requirement_names(requirements):
            if name.endswith("-stubs") or name.startswith("types-"):
                assert "the stubs" in told, (extra, name)
            elif name not in core:  # a core dependency need not be told again
                assert re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", told), (extra, name)
    lacking = {"jupyterlab", "ipywidgets"}  # what the tables say make test's dev lacks
    assert lacking <= requirement_names(extras["notebooks"])
    assert not lacking & requirement_names(extras["dev"])


def test_every_page_of_docs_is_in_the_index_toctree():
    listed = set(_toctree_entries(DOCS / "index.md"))
    pages = {page.stem for page in PAGES} - {"index"}
    assert pages - listed == set(), "pages missing from the toctree of docs/index.md"
    assert listed - pages == set(), "toctree entries of docs/index.md with no page"


def test_every_notebook_is_in_the_toctree_of_the_notebooks_page():
    listed = set(_toctree_entries(DOCS / "notebooks.md"))
    notebooks = {f"notebooks/{path.stem}" for path in (ROOT / "notebooks").glob("*.ipynb")}
    assert listed == notebooks


@pytest.mark.parametrize("page", [ROOT / "README.md", *PAGES], ids=lambda page: page.name)
def test_every_relative_link_points_to_a_file_that_exists(page):
    broken = [
        (number, target)
        for number, target in _links(page)
        if not re.match(r"[a-z][a-z0-9+.-]*:", target)  # https:, mailto:, ...
        and not target.startswith("#")
        and not (page.parent / target.split("#")[0]).exists()
    ]
    assert broken == [], f"{page.name}: links to files that do not exist"


def test_the_link_finder_sees_links_and_images_and_skips_code(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "See [a](a.md#part) and ![b](img/b.png).\n"
        "`[not](code.md)`\n"
        "```python\n>>> x = [1](2)\n```\n"
        '[c](https://example.org "title")\n',
        encoding="utf-8",
    )
    assert _links(page) == [(1, "a.md#part"), (1, "img/b.png"), (6, "https://example.org")]


# --- the commands the pages show ----------------------------------------------------------


def console_commands(page: Path) -> list[tuple[int, str, str]]:
    """The (line, command, output) of every ``$ passk-lab ...`` in a page's console blocks.

    A command's output is the lines after it up to the next ``$`` line or the block's end, less
    the blank lines that end it.
    """
    found: list[tuple[int, str, list[str]]] = []
    output: list[str] | None = None  # the lines of the command being read, if any
    inside = False
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("```"):
            inside = line.strip() == "```console" and not inside
            output = None
        elif inside and line.startswith("$ "):
            output = []
            found.append((number, line.removeprefix("$ "), output))
        elif inside and output is not None:
            output.append(line)
    return [
        (number, command, "\n".join(output).rstrip("\n"))
        for number, command, output in found
        if command.startswith("passk-lab ")
    ]


def run_command(command: str) -> str:
    """What ``passk-lab`` prints for `command`: standard output, then standard error."""
    out, err = io.StringIO(), io.StringIO()
    with (
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
        contextlib.suppress(SystemExit),  # a refusal, or --help
    ):
        main(shlex.split(command)[1:])
    return (out.getvalue() + err.getvalue()).rstrip("\n")


SHOWN = [page for page in [ROOT / "README.md", *PAGES] if console_commands(page)]


@pytest.mark.parametrize("page", SHOWN, ids=lambda page: page.name)
def test_every_command_a_page_shows_prints_what_it_shows(page, tmp_path, monkeypatch):
    """Each page's commands run in order in a checkout of their own: data/examples beside
    them, ../shared/data above, what they write (data/, report/) their own."""
    checkout = tmp_path / "checkout"
    shutil.copytree(EXAMPLES, checkout / "data" / "examples")
    shared = ROOT.parent / "shared"
    if shared.is_dir():
        (tmp_path / "shared").symlink_to(shared.resolve(), target_is_directory=True)
    monkeypatch.chdir(checkout)
    monkeypatch.setenv("COLUMNS", "80")  # --help is laid out for a terminal 80 columns wide
    wrong = [
        f"{page.name}:{number}: $ {command}\n--- shown\n{shown}\n--- printed\n{printed}"
        for number, command, shown in console_commands(page)
        if (printed := run_command(command)) != shown
    ]
    assert wrong == [], "\n\n".join(wrong)


def test_the_command_finder_reads_commands_and_their_output(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "```console\n$ passk-lab one\nline 1\n\nline 2\n\n$ passk-lab two --k 3\n```\n"
        "$ passk-lab not in a block\n```console\nmake demo\n$ ls\nx\n```\n"
        "```python\n$ passk-lab in python\n```\n",
        encoding="utf-8",
    )
    assert console_commands(page) == [
        (2, "passk-lab one", "line 1\n\nline 2"),
        (7, "passk-lab two --k 3", ""),
    ]


def test_the_example_files_are_what_their_script_writes(tmp_path):
    spec = importlib.util.spec_from_file_location("make_examples", EXAMPLES / "make.py")
    assert spec is not None
    assert spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    written = script.write(tmp_path)
    committed = sorted(path.name for path in EXAMPLES.glob("*.csv"))
    assert sorted(path.name for path in written) == committed
    for path in written:
        assert path.read_bytes() == (EXAMPLES / path.name).read_bytes(), path.name


# --- numbers cut short in examples -------------------------------------------------------

CUT = re.compile(r"(?<![\w.])(-?\d+\.\d+)\.\.\.")
"""A number an example's output cuts short with ELLIPSIS: ``0.1124...``."""


def misstated_cuts(examples: list[doctest.Example], globs: dict, name: str) -> list[str]:
    """Run `examples` up to the last that cuts a number short, and return each cut number that
    is not the start of the value printed (``0.3304...`` for 0.33037...).

    Only the cuts are checked: the doctest run checks the rest (where, with pytest's NUMBER,
    a rounded number passes for a cut one).
    """
    last = max((i for i, example in enumerate(examples) if CUT.search(example.want)), default=-1)
    wrong: list[str] = []

    class Cuts(doctest.OutputChecker):
        def check_output(self, want: str, got: str, optionflags: int) -> bool:
            parts = re.split(r"((?<![\w.])-?\d+\.\d+\.\.\.|\.\.\.)", " ".join(want.split()))
            pattern = "".join(
                r"(-?\d+\.\d*)\d*(?:e[-+]?\d+)?"
                if CUT.fullmatch(part)
                else ".*?"
                if part == "..."
                else re.escape(part)
                for part in parts
            )
            found = re.fullmatch(pattern, " ".join(got.split()))
            if found is not None:
                cuts = CUT.findall(" ".join(want.split()))
                wrong.extend(
                    f"{name}: {cut}... where the value is {value}..."
                    for cut, value in zip(cuts, found.groups(), strict=True)
                    if not value.startswith(cut)
                )
            return True

    test = doctest.DocTest(examples[: last + 1], globs, name, None, 0, None)
    doctest.DocTestRunner(checker=Cuts(), verbose=False).run(test, out=lambda _: None)
    return wrong


def test_a_number_an_example_cuts_short_is_the_start_of_its_value():
    wrong = []
    for page in [ROOT / "README.md", *PAGES]:
        examples = doctest.DocTestParser().get_examples(page.read_text(encoding="utf-8"))
        wrong += misstated_cuts(examples, {}, page.name)
    for path in sorted((ROOT / "passk_lab").rglob("*.py")):
        if not CUT.search(path.read_text(encoding="utf-8")):
            continue
        module = importlib.import_module(".".join(path.relative_to(ROOT).with_suffix("").parts))
        for test in doctest.DocTestFinder().find(module):
            wrong += misstated_cuts(test.examples, test.globs, test.name)
    assert wrong == []


def test_a_cut_number_is_checked_against_the_value_printed():
    examples = doctest.DocTestParser().get_examples(
        ">>> x = 0.33037105\n>>> (0.1124375, x)\n(0.1124..., 0.3304...)\n"
        ">>> [x]\n[0.3303...]\n>>> 1 / 3\n0.33\n"
    )
    assert misstated_cuts(examples, {}, "page") == [
        "page: 0.3304... where the value is 0.33037105..."
    ]
