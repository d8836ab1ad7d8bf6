"""Pictures of reliability: decay curves, outcomes, success counts, sweeps, comparisons and costs.

Every function draws a table that a statistics function returned on a
matplotlib Axes -- the one given, or the current one -- and returns it. None
shows or saves a figure, and importing this module changes no setting: the
shipped style applies only inside ``with style():``.

Examples
--------
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> import matplotlib.pyplot as plt
>>> import passk_lab as pk
>>> curve = pk.reliability_curve(pk.simulate_coin(seed=42), rng=0, predict_to=10)
>>> with style():
...     fig, ax = plt.subplots()
...     ax = decay_curve(curve, ax=ax)
>>> ax.get_xlabel()
'k (runs that must all pass)'
>>> plt.close(fig)
"""

from passk_lab.plots._adaptive import adaptive_path
from passk_lab.plots._costs import cost_reliability
from passk_lab.plots._curves import comparison
from passk_lab.plots._decay import decay_curve
from passk_lab.plots._histogram import success_histogram
from passk_lab.plots._leaderboard import leaderboard_forest, pairwise_heatmap
from passk_lab.plots._runs import outcome_heatmap
from passk_lab.plots._style import style
from passk_lab.plots._sweep_heatmap import sweep_heatmap
from passk_lab.plots._sweeps import measured_vs_analytic, sweep_lines

__all__ = [
    "adaptive_path",
    "comparison",
    "cost_reliability",
    "decay_curve",
    "leaderboard_forest",
    "measured_vs_analytic",
    "outcome_heatmap",
    "pairwise_heatmap",
    "style",
    "success_histogram",
    "sweep_heatmap",
    "sweep_lines",
]
