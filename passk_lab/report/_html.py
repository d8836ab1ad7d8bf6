"""The report page: its content put into one self-contained HTML file through a template.

The page is ``templates/report.html.j2``, rendered by Jinja2 with every value
escaped unless the report built it as HTML; its style is ``report.css``,
inlined, and its figures are inline SVG (a wide drawing and, where the figure
reads narrower, a narrow one, which the style shows by the screen's width),
so the page needs no network, no script and no file beside it. Its table of
contents is read from the rendered page itself: every section heading and
every group's folded part, so that it lists what the page holds and nothing
else.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

import pandas as pd

from passk_lab.report._render import html_text, to_html
from passk_lab.report._shown import two_levels

if TYPE_CHECKING:
    from passk_lab.report._content import Content
    from passk_lab.report._figures import Drawn

__all__ = ["CONTENTS", "contents", "render"]

CONTENTS = '<nav id="contents" aria-label="Contents"></nav>'
"""Where the template puts the table of contents, which :func:`contents` fills."""
_ENTRY = re.compile(
    r'<h2 id="(?P<section>[^"]+)">(?P<heading>.*?)</h2>'
    r'|<details class="part"><summary>(?P<name>.*?)</summary>'
    r'<div class="part" id="(?P<part>[^"]+)">'
)
"""A section's heading or a group's folded part, as the template writes each: on one line.

A link points into the part, not at it: a browser opens a closed ``details`` when it goes
to an element inside it (the HTML standard's "ancestor details revealing algorithm")."""


def _table(frame: pd.DataFrame, wrap: bool = False) -> str:
    """Return a shown table in its box: each interval under its estimate.

    With `wrap` its text cells (an agent's name) may take more than one line.
    The box scrolls sideways when the table is wider than the page's column.
    """
    box = "table wrap" if wrap else "table"
    return f'<div class="{box}">\n{to_html(two_levels(frame))}\n</div>'


def contents(page: str) -> str:
    r"""Return `page` with its table of contents: a link to each section and each group's part.

    The sections are the page's ``h2`` headings with an id; a group's folded
    part (a ``details`` element of class ``part``, its content in a ``div``
    with the part's id) is listed under the section it is in.

    Examples
    --------
    >>> page = (
    ...     f'<h1>R</h1>{CONTENTS}\n<h2 id="runs">Runs</h2>\n'
    ...     '<details class="part"><summary>model a</summary><div class="part" id="runs-a">'
    ... )
    >>> print(contents(page).split("\n")[1])  # doctest: +NORMALIZE_WHITESPACE
    <h2>Contents</h2><ol><li><a href="#runs">Runs</a><ol><li><a href="#runs-a">model
    a</a></li></ol></li></ol></nav>
    """
    sections: list[tuple[str, str, list[str]]] = []
    for found in _ENTRY.finditer(page):
        if found["section"] is not None:
            sections.append((found["section"], found["heading"], []))
        elif sections:
            sections[-1][2].append(f'<li><a href="#{found["part"]}">{found["name"]}</a></li>')
    items = [
        f'<li><a href="#{anchor}">{heading}</a>'
        + (f"<ol>{''.join(parts)}</ol>" if parts else "")
        + "</li>"
        for anchor, heading, parts in sections
    ]
    listed = "".join(items)
    nav = f'<nav id="contents" aria-label="Contents">\n<h2>Contents</h2><ol>{listed}</ol></nav>'
    return page.replace(CONTENTS, nav, 1)


def render(content: Content, pictures: Mapping[str, Drawn]) -> str:
    """Return the page of `content`, its figures' drawings taken from `pictures` by name."""
    import jinja2
    from markupsafe import Markup

    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("passk_lab.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )
    environment.filters["table"] = lambda frame, wrap=False: Markup(_table(frame, wrap))
    environment.filters["sup"] = lambda text: Markup(html_text(str(text)))
    environment.globals["drawn"] = lambda name: pictures[name]
    environment.filters["svg"] = Markup
    page = environment.get_template("report.html.j2").render(
        content=content, contents=Markup(CONTENTS)
    )
    return contents(page)
