"""The report's figures: what to draw, and drawing it for the page and as PNG and SVG files.

A :class:`Figure` is a plot not yet drawn: its file name, the heading it
stands under on the page, the plot function with its table, and a size. The
content of a report lists them; :func:`save` draws one, in the shipped style,
writes its two files and returns the two drawings the page holds inline.

The page and the files differ on purpose. The page says what a figure shows
in the heading above it, so its drawings carry no title; a file is opened,
pasted or mailed alone, without the page, so it carries its title. And a page
is read on a desk and on a phone: a figure drawn for a 60rem column shrinks
its text to a few pixels in a phone's 400 px, so the page holds a narrower
drawing as well, whose text stays about as large there as the wide one's on a
desk, and the page's style shows the one that fits the screen.
"""

from __future__ import annotations

import html
import io
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure as Canvas

__all__ = ["NARROW_WIDTH", "SUFFIXES", "Drawn", "Figure", "save"]

SUFFIXES = (".svg", ".png")
"""The files of a figure, in the order they are written."""
NARROW_WIDTH = 4.6
"""Inches of a figure's narrow drawing, at the least: at 96 px an inch its text is as large
in a phone's column (about 370 px) as the wide drawing's in a desk's, within a fifth."""
_NARROW_HEIGHT = 3.8
"""Inches of the narrow drawing's height, for a figure without a size of its own."""
_WIDER = 0.6
"""Inches the narrow drawing widens by, each time its contents do not fit it."""
_PLOT_SHARE = 1 / 4
"""The least share of the narrow drawing's width its Axes takes: the rest is for keys. On a
phone a plot a quarter of the width with text to read beats one a third as wide with text
too small to."""


@dataclass(frozen=True)
class Figure:
    """A plot of the report, to be drawn: ``draw(ax=...)`` returns the Axes it drew on.

    Attributes
    ----------
    name : str
        The file name without its suffix (``outcome_heatmap-model-a``).
    heading : str
        The heading it stands under on the page, ``^k`` written as such.
    draw : callable
        The plot function with its table bound, taking ``ax=``.
    size : tuple of float, optional
        The figure's size in inches; the style's by default.
    title : str, optional
        The title of its files, which are read without the page; `heading`
        by default.
    """

    name: str
    heading: str
    draw: Callable[..., Axes]
    size: tuple[float, float] | None = None
    title: str | None = None

    @property
    def files(self) -> list[str]:
        """Return the names of the figure's files."""
        return [f"{self.name}{suffix}" for suffix in SUFFIXES]


@dataclass(frozen=True)
class Drawn:
    """A figure's drawings for the page, as inline SVG: for a wide column, and a narrow one.

    `narrow` is None where the figure reads no narrower than it is drawn wide.
    """

    wide: str
    narrow: str | None


def _title(heading: str) -> str:
    """Return a heading as a plot's title: ``^k`` a superscript, every ``$`` shown as it is."""
    return "pass$^k$".join(part.replace("$", r"\$") for part in heading.split("pass^k"))


_PROLOGUE = re.compile(r"\A.*?(?=<svg\b)", re.DOTALL)
_METADATA = re.compile(r"\s*<metadata>.*?</metadata>|\s*<style\b.*?</style>", re.DOTALL)
_SIZE = re.compile(r'<svg([^>]*?) width="([\d.]+)pt" height="([\d.]+)pt"')
_IDS = re.compile(r'(\bid="|url\(#|href="#)([^")]+)')
_POINT = 4 / 3
"""CSS pixels in a point: an SVG sized in points is drawn at this many pixels a point."""


def inline_svg(svg: str, prefix: str, label: str) -> str:
    r"""Return matplotlib's SVG as an element of the page: sized in pixels, its ids the page's own.

    The XML prologue, the metadata (a date that would change the page at
    every run) and the style sheet (the page's style sets what it set) go;
    the width and height become whole CSS pixels, so that the page may scale
    the drawing down to its column; every id, and every reference to one,
    starts with `prefix`, so that two figures of one page share none; and
    the drawing is an image named `label` to a screen reader.

    Examples
    --------
    >>> svg = (
    ...     '<?xml version="1.0"?>\n<svg width="72pt" height="36pt" viewBox="0 0 72 36">'
    ...     '<metadata>2026</metadata><g id="axes_1" clip-path="url(#p1)"/></svg>'
    ... )
    >>> print(inline_svg(svg, "curve", "pass^k & k").replace("><", ">\n<"))
    <svg role="img" aria-label="pass^k &amp; k" width="96" height="48" viewBox="0 0 72 36">
    <g id="curve-axes_1" clip-path="url(#curve-p1)"/>
    </svg>
    """
    svg = _METADATA.sub("", _PROLOGUE.sub("", svg, count=1))
    svg = _SIZE.sub(
        lambda size: (
            f'<svg role="img" aria-label="{html.escape(label)}"{size.group(1)} '
            f'width="{round(float(size.group(2)) * _POINT)}" '
            f'height="{round(float(size.group(3)) * _POINT)}"'
        ),
        svg,
        count=1,
    )
    return _IDS.sub(lambda found: f"{found.group(1)}{prefix}-{found.group(2)}", svg).strip()


def _canvas(figure: Figure, size: tuple[float, float] | None) -> tuple[Canvas, Axes]:
    """Draw `figure` on a new canvas of `size` inches (the style's by default)."""
    from matplotlib.figure import Figure as Canvas

    canvas = Canvas(figsize=size)
    return canvas, figure.draw(ax=canvas.add_subplot())


def _narrow(figure: Figure, widest: float, height: float) -> tuple[Canvas, Axes] | None:
    """Draw `figure` as narrow as it reads, from :data:`NARROW_WIDTH` inches; None at `widest`.

    A plot's keys sit beside its Axes, and long names make them wide: the
    drawing widens until its contents fit it and its Axes takes a quarter
    of it at the least (:data:`_PLOT_SHARE`), and is None when that takes `widest` inches, the wide
    drawing's width. Its warnings were given when it was drawn wide.
    """
    width = NARROW_WIDTH
    while width < widest:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            canvas, ax = _canvas(figure, (width, height))
            canvas.draw_without_rendering()
        fits = canvas.get_tightbbox().width <= width + 0.05
        if fits and ax.get_position().width >= _PLOT_SHARE:
            return canvas, ax
        width += _WIDER
    return None


def _page_svg(canvas: Canvas, ax: Axes, prefix: str, label: str) -> str:
    """Return `canvas` as the page holds it, inline SVG with no title: the heading says it.

    Every title, the figure's and any the plot gave its Axes, is emptied first.
    """
    import matplotlib

    canvas.suptitle("")
    for where in ("left", "center", "right"):
        ax.set_title("", loc=where)
    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": prefix}):  # the same ids at every run
        canvas.savefig(buffer, format="svg")
    return inline_svg(buffer.getvalue(), prefix, label)


def save(figure: Figure, folder: Path) -> tuple[list[Path], Drawn]:
    """Draw `figure` in the shipped style and write its files into `folder`; return them and more.

    The files are drawn at the figure's size with its title (a figure
    without a title of its own gets its `title` as the figure's), so that a
    file opened alone says what it shows; the page's two drawings, at that
    size and as narrow as it reads (:func:`_narrow`; none where that is as
    wide), returned with the files, carry none.
    """
    from passk_lab import plots

    label = (figure.title or figure.heading).replace("^k", "\N{MODIFIER LETTER SMALL K}")
    written = []
    with plots.style():
        canvas, ax = _canvas(figure, figure.size)
        if not ax.get_title():  # above any legend
            canvas.suptitle(_title(figure.title or figure.heading))
        for name in figure.files:
            canvas.savefig(folder / name)
            written.append(folder / name)
        wide = _page_svg(canvas, ax, f"{figure.name}-wide", label)
        height = _NARROW_HEIGHT if figure.size is None else figure.size[1]
        drawn = _narrow(figure, float(canvas.get_figwidth()), height)
        narrow = None
        if drawn is not None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                narrow = _page_svg(*drawn, f"{figure.name}-narrow", label)
    return written, Drawn(wide, narrow)
