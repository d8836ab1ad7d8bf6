"""The captions under the page's figures: what each mark and symbol stands for, in words.

A figure on the page has no title (its heading says what it shows); its
caption says what a reader cannot see in it: which lines are measured and
which a model predicts, and what a symbol of its key stands for (p-hat a
pass rate, rho-hat a correlation), with the number it takes beside the numbers it
could be taken for. Each caption is HTML, its text escaped.
"""

from __future__ import annotations

import html
from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd

from passk_lab._labels import LABELS
from passk_lab._numbers import level_text
from passk_lab.report._prose import listed, num

__all__ = ["RHO", "decay_caption", "histogram_caption", "pairs_caption"]

RHO = "\N{GREEK SMALL LETTER RHO}"
"""The beta-binomial's run-to-run correlation as the figures' keys write it."""
_POW_K = "pass<sup>k</sup>"


def _ks(ks: list[int]) -> str:
    """Return ks for a sentence: ``1 to 5`` for a run of three or more, else listed."""
    if len(ks) > 2 and ks == list(range(ks[0], ks[-1] + 1)):
        return f"{ks[0]} to {ks[-1]}"
    return listed([str(k) for k in ks])


def decay_caption(measured: list[int], last: int, most: dict[str, int]) -> str:
    """Return the decay curve's caption: its points measured, its lines model-based.

    Parameters
    ----------
    measured : list of int
        The ks the curve measures.
    last : int
        The largest k it draws.
    most : dict of str to int
        Per group (by its name; one group named ``""``) the most runs of a task.

    Examples
    --------
    >>> import textwrap
    >>> print(textwrap.fill(decay_caption([1, 2, 3], 10, {"": 3}), 90))
    Points: pass<sup>k</sup> measured at k = 1 to 3, each with its interval as a bar. The
    dashed line, (pass@1)<sup>k</sup>, is what pass<sup>k</sup> would be if every run of every
    task passed independently at one rate: a model, not a measurement. Past k = 3, the most
    runs a task has, no run measured anything: there the beta-binomial, which lets tasks
    differ in difficulty, predicts pass<sup>k</sup> with its band (where tasks look alike, its
    line is the dashed one).
    """
    said = (
        f"Points: {_POW_K} measured at k = {_ks(measured)}, each with its interval as a bar. "
        f"The dashed line, (pass@1)<sup>k</sup>, is what {_POW_K} would be if every run of "
        "every task passed independently at one rate: a model, not a measurement."
    )
    ends = set(most.values())
    if last <= max(ends, default=0):
        return said
    model = (
        f"the beta-binomial, which lets tasks differ in difficulty, predicts {_POW_K} with its "
        "band (where tasks look alike, its line is the dashed one)."
    )
    if len(ends) == 1:
        (end,) = ends
        return (
            f"{said} Past k = {end}, the most runs a task has, no run measured anything: "
            f"there {model}"
        )
    each = "; ".join(f"{html.escape(name)}: k = {end}" for name, end in most.items())
    return (
        f"{said} Past the most runs of a group's task ({each}), no run of that group measured "
        f"anything: there {model}"
    )


def histogram_caption(counts: pd.DataFrame, pass_at_1: float) -> str:
    """Return a success histogram's caption: its bars and lines, and what its key's rates are.

    `counts` is :func:`~passk_lab.success_counts`' table of one group, whose
    ``attrs`` hold the fit; `pass_at_1` is the group's pass@1, which the
    binomial's rate equals when every task has as many runs, and is set beside
    it when they differ.

    Examples
    --------
    >>> import textwrap
    >>> import passk_lab as pk
    >>> runs = pk.simulate_coin(seed=42)
    >>> caption = histogram_caption(pk.success_counts(runs), 0.86)
    >>> print(textwrap.fill(caption.replace(RHO, "rho"), 90))
    Bars: the tasks that passed 0, 1, …, 5 of their runs. The binomial line is what tasks alike
    would give, every run passing at one rate, the share of all runs that passed (0.860). The
    beta-binomial fit gives each task a pass rate of its own; its run-to-run correlation rho
    (0.00 here) is not a pass rate: 0 when a task's runs pass independently of each other, 1
    when each task always passes or always fails. More tasks at both ends than the binomial
    expects mean that tasks differ.
    """
    attrs = counts.attrs
    runs = int(counts["successes"].max()) if len(counts) else 0
    pooled = float(attrs.get("binomial_mean", np.nan))
    rate = f"the share of all runs that passed ({num(pooled, '.3f')})"
    if np.isfinite(pooled) and num(pooled, ".3f") != num(pass_at_1, ".3f"):
        rate += (
            f"; pass@1, {num(pass_at_1, '.3f')}, averages each task's share instead, and the two "
            "differ because tasks have different numbers of runs"
        )
    said = (
        f"Bars: the tasks that passed 0, 1, \N{HORIZONTAL ELLIPSIS}, {runs} of their runs. "
        f"The binomial line is what tasks alike would give, every run passing at one rate, "
        f"{rate}."
    )
    icc = float(attrs.get("icc", np.nan))
    if np.isnan(icc):
        return f"{said} No beta-binomial is fitted: these runs cannot tell whether tasks differ."
    rest = " of the tasks outside the point masses" if attrs.get("model") == "inflated" else ""
    return (
        f"{said} The beta-binomial fit gives each task a pass rate of its own; its run-to-run "
        f"correlation{rest} {RHO} ({num(icc, '.2f')} here) is not a pass rate: 0 when a task's "
        "runs pass independently of each other, 1 when each task always passes or always fails. "
        "More tasks at both ends than the binomial expects mean that tasks differ."
    )


_ADJUSTED = {
    "holm": "Holm-adjusted p",
    "bh": "Benjamini\N{EN DASH}Hochberg-adjusted p",
    None: "p (not adjusted for the number of pairs)",
}


def pairs_caption(attrs: dict[Hashable, Any], metric: str, k: int) -> str:
    """Return the caption of the map of every pair at `k`: what a cell holds, what ``*`` means.

    `attrs` are those of the board's :func:`~passk_lab.pairwise` table: the
    level and the adjustment the map marks by; `metric` is the one ranked.

    Examples
    --------
    >>> pairs_caption({"confidence_level": 0.95, "adjust": "holm"}, "pass_pow_k", 5)[-82:]
    '* marks a pair the tests tell apart: Holm-adjusted p at most 0.05 (the 95% level).'
    """
    level = float(attrs["confidence_level"])
    shown = html.escape(LABELS.get(metric, metric)).replace("^k", f"<sup>{k}</sup>")
    shown = shown.replace("@k", f"@{k}")
    adjusted = _ADJUSTED.get(attrs.get("adjust"), "p")
    return (
        f"Each cell is the row's agent's {shown} less the column's, on the tasks every agent "
        "ran: blue where the row's agent is ahead, red where it is behind. * marks a pair the "
        f"tests tell apart: {adjusted} at most {num(1 - level, 'g')} (the "
        f"{level_text(level)} level)."
    )
