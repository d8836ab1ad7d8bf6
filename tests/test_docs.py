"""The README and the pages of docs/ hold together: a short front page, every page in the site's
table of contents, every relative link to a file that exists.

``make docs`` builds the site itself (CI runs it, warnings as errors); these checks are the
quick part of it that needs no Sphinx.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.glob("*.md"))

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
