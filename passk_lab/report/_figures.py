"""The report's figures: what to draw, and drawing it to PNG and SVG files.

A :class:`Figure` is a plot not yet drawn: its file name, the heading it
stands under, the plot function with its table, and a size. The content of a
report lists them; :func:`save` draws one, in the shipped style, and writes
both files.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["SUFFIXES", "Figure", "save"]

SUFFIXES = (".svg", ".png")
"""The files of a figure, in the order they are written."""


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
    """

    name: str
    heading: str
    draw: Callable[..., Axes]
    size: tuple[float, float] | None = None

    @property
    def files(self) -> list[str]:
        """Return the names of the figure's files."""
        return [f"{self.name}{suffix}" for suffix in SUFFIXES]


def _title(heading: str) -> str:
    """Return a heading as a plot's title: ``^k`` a superscript, every ``$`` shown as it is."""
    return "pass$^k$".join(part.replace("$", r"\$") for part in heading.split("pass^k"))


def save(figure: Figure, folder: Path) -> tuple[list[Path], bytes]:
    """Draw `figure` in the shipped style, write its files into `folder`; return them and the PNG.

    A figure without a title of its own gets its heading as the figure's title,
    so that a file opened alone says what it shows.
    """
    from matplotlib.figure import Figure as Canvas

    from passk_lab import plots

    written = []
    with plots.style():
        canvas = Canvas(figsize=figure.size)
        ax = figure.draw(ax=canvas.add_subplot())
        if not ax.get_title():  # above any legend
            canvas.suptitle(_title(figure.heading))
        for name in figure.files:
            canvas.savefig(folder / name)
            written.append(folder / name)
    return written, (folder / f"{figure.name}.png").read_bytes()
