"""The path of an adaptive evaluation: its interval batch by batch, and where and why it stopped."""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from passk_lab._data.costs import COST_PREFIX
from passk_lab._numbers import level_text
from passk_lab.plots._room import points, split_below, text_width
from passk_lab.plots._style import PALETTE, axes_of

if TYPE_CHECKING:  # the harness is imported when an evaluation is run, not with the plots
    from passk_lab.harness._adaptive_result import AdaptiveResult

__all__ = ["adaptive_path"]

_TARGETS = {"pass_pow_k": "pass$^{{{k}}}$", "pass_at_k": "pass@{k}"}
"""How each target reads on an axis, at its k."""

_BLUE, _VERMILION, _BLACK = PALETTE[0], PALETTE[1], PALETTE[6]


def _settings(result: AdaptiveResult) -> dict[str, Any]:
    """Return the evaluation's settings as its ledger recorded them, or refuse a result without."""
    settings = result.header.get("adaptive") if isinstance(result.header, dict) else None
    if not isinstance(settings, dict) or not {"k", "statistic", "half_width"} <= set(settings):
        raise ValueError(
            "the result records no adaptive settings (its header's 'adaptive' field); pass "
            "what evaluate_until returns"
        )
    return settings


def _x_of(path: pd.DataFrame, x: str) -> tuple[str, str]:
    """Return the path's column for `x` and its axis label, or refuse an `x` it lacks."""
    costs = [str(name) for name in path.columns if str(name).startswith(COST_PREFIX)]
    if x in ("runs", "tasks"):
        return x, f"{x} so far"
    name = x if x.startswith(COST_PREFIX) else f"{COST_PREFIX}{x}"
    if name in costs:
        return name, f"{name.removeprefix(COST_PREFIX)} spent so far"
    recorded = (
        f"a cost the runs recorded ({', '.join(map(repr, costs))})"
        if costs
        else "a cost, when the runs record one (these recorded none)"
    )
    raise ValueError(f"x must be 'runs', 'tasks' or {recorded}; got {x!r}")


def _why(result: AdaptiveResult, settings: dict[str, Any], path: pd.DataFrame) -> str:
    """Return why the evaluation stopped, with the figures that decided it."""
    reason = result.stopped_because
    last = path.iloc[-1]
    if reason == "half_width":
        at_most = "\N{NO-BREAK SPACE}\N{LESS-THAN OR EQUAL TO}\N{NO-BREAK SPACE}"
        return (
            f"the interval is narrow enough, \N{PLUS-MINUS SIGN}{last['half_width']:.3g}"
            f"{at_most}\N{PLUS-MINUS SIGN}{settings['half_width']:g}"
        )
    if reason == "sign":
        return "the interval of the difference leaves out 0: its sign is decided"
    if reason == "max_runs":
        return f"no batch more fits max_runs = {settings.get('max_runs')}"
    if reason == "max_cost":
        limits = ", ".join(f"{name} {limit:g}" for name, limit in settings["max_cost"].items())
        return f"the limit on cost ({limits}) is reached"
    if reason == "exhausted":
        return f"all {settings.get('pool'):,} tasks of the pool are used"
    return str(reason)


def _limit(
    result: AdaptiveResult, settings: dict[str, Any], column: str
) -> tuple[float, str] | None:
    """Return where the limit that stopped the evaluation lies on `column`, and its name.

    None unless a limit stopped it and `column` is what that limit counts.
    """
    reason = result.stopped_because
    if reason == "max_runs" and column == "runs":
        return float(settings["max_runs"]), f"max_runs = {settings['max_runs']:,}"
    if reason == "exhausted" and column == "tasks":
        return float(settings["pool"]), f"the pool's {settings['pool']:,} tasks"
    if reason == "max_cost":
        name = column.removeprefix(COST_PREFIX)
        limit = settings["max_cost"].get(name)
        return None if limit is None else (float(limit), f"max_cost: {name} {limit:g}")
    return None


def adaptive_path(result: AdaptiveResult, *, x: str = "runs", ax: Axes | None = None) -> Axes:
    r"""Draw an adaptive evaluation's interval batch by batch, and where and why it stopped.

    docs/adaptive.md ("The path") says how it draws each case.

    Parameters
    ----------
    result : AdaptiveResult
        What :func:`~passk_lab.evaluate_until` returns: its ``path``, one
        row per batch.
    x : str, default "runs"
        What the evaluation spent, along the x axis: ``"runs"`` (both
        agents' for two), ``"tasks"``, or a cost the runs recorded, by its
        name (``"usd"``) or column (``"cost_usd"``).
    ax : matplotlib Axes, optional
        Where to draw; the current Axes by default. Its place is split: the
        estimate and its interval above, in `ax`, and their half-width
        against the one wanted below, in a new Axes sharing the x axis
        (``ax.figure.axes[-1]``).

    Returns
    -------
    matplotlib Axes
        The upper one.

    Raises
    ------
    TypeError
        If `result` is not an AdaptiveResult.
    ValueError
        If it has no path or no adaptive settings, or `x` names nothing it spent.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import passk_lab as pk
    >>> result = pk.evaluate_until(
    ...     pk.coin_tasks(p=0.85, tasks=200, seed=1), k=3, half_width=0.1, rng=0
    ... )
    >>> fig = plt.figure()
    >>> ax = adaptive_path(result, ax=fig.add_subplot())
    >>> below = fig.axes[-1]
    >>> below.get_lines()[0].get_xydata()[-1].round(3).tolist()  # the last batch: its half-width
    [300.0, 0.1]
    >>> ax.get_title(loc="left").splitlines()
    ['stopped after 300 runs, 100 tasks: the interval is narrow', 'enough, ±0.0997\xa0≤\xa0±0.1']
    >>> plt.close(fig)
    """
    if not all(hasattr(result, name) for name in ("path", "header", "stopped_because")):
        raise TypeError(
            f"adaptive_path draws what evaluate_until returns, an AdaptiveResult; got "
            f"{type(result).__name__}"
        )
    path = result.path
    if not isinstance(path, pd.DataFrame) or path.empty:
        raise ValueError(
            "the result has no path (no batch was run, or it was built by hand); pass what "
            "evaluate_until returns"
        )
    settings = _settings(result)
    column, x_label = _x_of(path, x)
    two = "difference" in path.columns
    name = "difference" if two else str(settings["statistic"])
    spent = path[column].to_numpy(dtype=np.float64)
    ax = axes_of(ax)
    below = split_below(ax)
    _draw_estimates(ax, spent, path, name, settings, two)
    _draw_half_widths(below, spent, path, settings)
    _draw_stop(ax, below, spent[-1], path.iloc[-1], name, _limit(result, settings, column))
    ax.tick_params(labelbottom=False)
    below.set_xlabel(x_label + (", both agents" if two and column == "runs" else ""))
    below.set_xlim(left=0)
    for axes in (ax, below):
        axes.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    last = path.iloc[-1]
    title = f"stopped after {int(last['runs']):,} runs, {int(last['tasks']):,} tasks: " + _why(
        result, settings, path
    )
    if not any(ax.get_title(loc) for loc in ("left", "center", "right")):  # a caller's stands
        figure = ax.get_figure(root=True)
        width = 0.8 * 72 * (figure.get_figwidth() if figure is not None else 6.4)
        size = points("axes.titlesize")
        characters = max(20, int(len(title) * width / max(text_width(title, size), 1.0)))
        ax.set_title(textwrap.fill(title, characters), loc="left")
    return ax


def _draw_stop(
    ax: Axes, below: Axes, where: float, last: pd.Series, name: str, limit: tuple[float, str] | None
) -> None:
    """Mark where the evaluation stopped on both Axes, with the interval it reports above.

    A dotted line runs through both at the stop; a dashed one at the limit
    that stopped it, when the x axis counts what that limit does.
    """
    estimate, low, high = float(last[name]), float(last[f"{name}_low"]), float(last[f"{name}_high"])
    ax.errorbar(
        where,
        estimate,
        yerr=[[estimate - low], [high - estimate]],
        fmt="D",
        color=_VERMILION,
        ms=6,
        capsize=3,
        zorder=4,
        label="where it stopped",
    )
    below.plot(where, last["half_width"], "D", color=_VERMILION, ms=6, zorder=4)
    for axes in (ax, below):
        axes.axvline(where, color=_VERMILION, lw=1, ls=":", zorder=1)
        if limit is not None:  # keyed below, beside what it limits
            label = limit[1] if axes is below else None
            axes.axvline(limit[0], color=_VERMILION, lw=1.2, ls="--", zorder=1, label=label)


def _draw_estimates(
    ax: Axes, spent: np.ndarray, path: pd.DataFrame, name: str, settings: dict[str, Any], two: bool
) -> None:
    """Draw the estimate after each batch with its interval, and 0 for a difference."""
    level = settings.get("confidence_level")
    level = f"{level_text(level)} " if isinstance(level, float) else ""
    anytime = two or settings.get("interval") == "anytime"
    interval = f"{level}confidence sequence" if anytime else f"{level}interval"
    ax.fill_between(
        spent,
        path[f"{name}_low"].to_numpy(dtype=np.float64),
        path[f"{name}_high"].to_numpy(dtype=np.float64),
        color=_BLUE,
        alpha=0.2,
        lw=0,
        label=interval,
    )
    ax.plot(spent, path[name].to_numpy(), "o-", color=_BLUE, ms=3, lw=1.4, label="estimate")
    target = _TARGETS.get(str(settings["statistic"]), "{k}").format(k=settings["k"])
    if two:
        ax.axhline(0, color=_BLACK, lw=0.9, ls="--", label="0: the sign is\ndecided outside it")
        ax.set_ylabel(f"difference A \N{MINUS SIGN} B\nin {target}")
    else:
        ax.set_ylabel(target)


def _draw_half_widths(
    ax: Axes, spent: np.ndarray, path: pd.DataFrame, settings: dict[str, Any]
) -> None:
    """Draw the interval's half-width after each batch against the half-width wanted."""
    ax.plot(
        spent,
        path["half_width"].to_numpy(),
        "o-",
        color=_BLUE,
        ms=3,
        lw=1.4,
        label="half-width",
    )
    wanted = float(settings["half_width"])
    ax.axhline(wanted, color=_BLACK, lw=0.9, ls="--", label=f"wanted: {wanted:g}")
    ax.set_ylabel("half-width")
    ax.set_ylim(bottom=0)
