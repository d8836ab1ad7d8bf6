"""The report page: its content put into one self-contained HTML file through a template.

The page is ``templates/report.html.j2``, rendered by Jinja2 with every value
escaped unless the report built it as HTML; its style is ``report.css``,
inlined, and its figures are inlined as PNG data, so the page needs no network
and no file beside it.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import TYPE_CHECKING

import pandas as pd

from passk_lab.report._render import html_text, to_html
from passk_lab.report._shown import two_levels

if TYPE_CHECKING:
    from passk_lab.report._content import Content

__all__ = ["render"]


def _table(frame: pd.DataFrame, wrap: bool = False) -> str:
    """Return a shown table in its box: each interval under its estimate.

    With `wrap` its text cells (an agent's name) may take more than one line.
    """
    box = "table wrap" if wrap else "table"
    return f'<div class="{box}">\n{to_html(two_levels(frame))}\n</div>'


def render(content: Content, pictures: Mapping[str, bytes]) -> str:
    """Return the page of `content`, its figures' PNG data taken from `pictures` by name."""
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
    environment.filters["png"] = lambda name: (
        f"data:image/png;base64,{base64.b64encode(pictures[name]).decode('ascii')}"
    )
    return environment.get_template("report.html.j2").render(content=content)
