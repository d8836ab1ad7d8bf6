"""How many tasks passed how often: the success counts against the models' expectations."""

from __future__ import annotations

import math
from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.container import BarContainer
from matplotlib.lines import Line2D
from matplotlib.patches import StepPatch
from matplotlib.ticker import MaxNLocator

from passk_lab.plots._room import legend_width, make_room, wrapped
from passk_lab.plots._style import MOST_TICKS, PALETTE, axes_of, integer_ticks, require_table

__all__ = ["success_histogram"]

_MOST_BARS = 200
"""The most counts a success histogram draws as bars; past it, one filled outline of them all.

A bar is an artist: 20,001 of them (tasks of 20,000 runs) took 20 s to draw, and each is
thinner than a pixel anyway.
"""

_MOST_MARKERS = 50
"""The most counts the success histogram marks one by one; past them its lines are plain."""


def success_histogram(counts: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    r"""Draw how many tasks passed 0, 1, ..., n of their runs, against the models' expectations.

    docs/report.md ("The plots in detail") says how it draws each case.

    Parameters
    ----------
    counts : DataFrame
        What :func:`~passk_lab.success_counts` returns.
    ax : matplotlib Axes, optional
        Where to draw; the current Axes by default.

    Returns
    -------
    matplotlib Axes

    Notes
    -----
    Bars are the tasks observed (past 200 counts, one filled outline of
    them); circles the binomial expectation, every task passing a run with
    one chance, the pooled pass rate; squares the beta-binomial fit, each
    task with a chance of its own. Bars taller than the circles at both
    ends mean heterogeneity: some tasks nearly always pass and some nearly
    never do. The key names each number in words, and says why two pass
    rates a reader would compare differ. It sits beside the Axes, clear of
    the bars; in a figure with no layout engine, the figure's right margin
    is widened when it would not fit.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import pandas as pd
    >>> import passk_lab as pk
    >>> counts = pd.DataFrame({"task": range(6), "n": 4, "c": [0, 0, 1, 3, 4, 4]})
    >>> fig, ax = plt.subplots()
    >>> ax = success_histogram(pk.success_counts(counts), ax=ax)
    >>> [int(bar.get_height()) for bar in ax.patches]
    [2, 1, 0, 1, 2]
    >>> ax.get_legend().get_texts()[1].get_text().splitlines()  # no line breaks at a "="
    ['binomial: one pass rate,', 'pass@1\xa0=\xa00.500']
    >>> plt.close(fig)
    """
    frame = require_table(
        counts, ["successes", "n_tasks", "binomial", "betabinom"], "success_counts"
    )
    ax = axes_of(ax)
    successes = frame["successes"].to_numpy()
    observed = frame["n_tasks"].to_numpy()
    bars: BarContainer | StepPatch
    if len(successes) <= _MOST_BARS:
        bars = ax.bar(successes, observed, width=0.7, color="0.75", label="tasks observed")
    else:  # one outline, not a bar per count: a bar each is an artist each
        edges = np.append(successes - 0.5, successes[-1] + 0.5)
        bars = ax.stairs(observed, edges, fill=True, color="0.75", label="tasks observed")
    figure = ax.get_figure(root=True)
    room = _KEY_SHARE * 72 * (figure.get_figwidth() if figure is not None else 6.4)
    binomial, betabinom, note = _model_labels(frame.attrs, room)
    few = len(successes) <= _MOST_MARKERS  # a marker a count, while they stay apart
    handles: list[Artist | BarContainer] = [bars]  # what was seen, first
    handles += ax.plot(
        successes,
        frame["binomial"].to_numpy(),
        "o--" if few else "--",
        color=PALETTE[0],
        label=binomial,
    )
    fitted = frame["betabinom"].to_numpy(dtype=np.float64)
    if np.isfinite(fitted).any():  # a fit not identified draws nothing, and is not keyed
        handles += ax.plot(
            successes, fitted, "s:" if few else ":", color=PALETTE[1], lw=2.2, label=betabinom
        )
        if note:
            handles.append(Line2D([], [], ls="none", label=note))
    if len(successes) <= MOST_TICKS:
        ax.set_xticks(successes)
    else:
        integer_ticks(ax)
        ax.set_xlim(successes.min() - 0.5, successes.max() + 0.5)
    ax.set_xlabel(f"runs passed (of {int(successes.max())})")
    ax.set_ylabel("tasks")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # a count of tasks
    ax.set_ylim(bottom=0)
    make_room(ax, legend_width([str(handle.get_label()) for handle in handles]))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return ax


def _model_labels(attrs: dict[Hashable, Any], room: float) -> tuple[str, str, str]:
    """Return the key's words for the binomial and the fit, and a note on why two rates differ.

    Each pass rate is named, and where two a reader would compare differ as
    written (the pooled rate and pass@1; the fit's mean and pass@1), the key
    says why; the note is empty when they agree. Two rates equal but for
    rounding error are written alike. The lines are as long as fit in `room`
    points, 32 characters at most.
    """
    pooled, pass_at_1 = _number(attrs, "binomial_mean"), _number(attrs, "pass_at_1")
    if pooled is not None and pass_at_1 is not None and math.isclose(pooled, pass_at_1):
        pooled = pass_at_1
    binomial = "binomial: one pass rate"
    if pooled is not None:
        if pass_at_1 is None or f"{pooled:.3f}" == f"{pass_at_1:.3f}":
            binomial += f", pass@1{_IS}{pooled:.3f}"
        else:  # tasks with more runs count more in the pool
            binomial += (
                f", {pooled:.3f}{_IS}all passes \N{DIVISION SIGN} all runs "
                f"(pass@1 {pass_at_1:.3f} weighs tasks equally)"
            )
    mean, icc = _number(attrs, "fit_pass_at_1"), _number(attrs, "icc")
    if mean is not None and pass_at_1 is not None and math.isclose(mean, pass_at_1):
        mean = pass_at_1
    shares = [
        f"{share:.0%} {which} pass"
        for which, share in (
            ("never", _number(attrs, "zero_share")),
            ("always", _number(attrs, "one_share")),
        )
        if attrs.get("model") == "inflated" and share
    ]
    rho = "" if icc is None else f"run-to-run correlation \N{GREEK SMALL LETTER RHO}{_IS}{icc:.2f}"
    if rho and not shares and f"{icc:.2f}" == "0.00":  # its line lies on the binomial's
        fit = f"beta-binomial fit: {rho}, tasks alike: the binomial's line"
        mean = None  # the binomial's rate, said once
    else:
        fit = "beta-binomial fit: a pass rate per task"
        if shares:
            fit += ", " + " and ".join(shares).replace(" pass and", " and")
        if mean is not None:
            fit += f"; mean pass rate {mean:.3f}"
        if rho:
            fit += f"; {rho}" + (" in the rest" if shares else "")
    note = ""
    if mean is not None and pass_at_1 is not None and f"{mean:.3f}" != f"{pass_at_1:.3f}":
        note = f"{mean:.3f} is not pass@1 ({pass_at_1:.3f}): the fit matches the whole histogram"
    labels = wrapped([binomial, fit, note], room, _LONGEST)
    return labels[0], labels[1], labels[2]


_LONGEST = 32
"""The most characters a line of the success histogram's key holds."""

_KEY_SHARE = 0.45
"""The share of its figure's width the success histogram's key may take, if its lines allow."""


_IS = "\N{NO-BREAK SPACE}=\N{NO-BREAK SPACE}"
"""An equals sign that a line of the key does not break at."""


def _number(attrs: dict[Hashable, Any], name: str) -> float | None:
    """Return ``attrs[name]`` if it is a number that is not NaN, else None."""
    value = attrs.get(name)
    return float(value) if isinstance(value, float | int) and value == value else None
