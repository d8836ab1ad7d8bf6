"""The names users choose among, each list written once, as a ``Literal``.

Each choice list is a ``Literal`` type, for type checkers and the signatures of
the functions that take it; its tuple, for checks, messages and the command
line's choices, is derived from it with :func:`typing.get_args`, so the two
cannot disagree. The module imports only :mod:`typing`: the command line
offers these as choices before it imports numpy or pandas.

Examples
--------
>>> INTERVAL_METHODS[:3]
('auto', 'wilson', 'clopper_pearson')
>>> UNMATCHED
('raise', 'drop')
"""

from typing import Literal, TypeAlias, get_args

__all__ = [
    "ADAPTIVE_INTERVALS",
    "ADJUSTMENTS",
    "BINOMIAL_METHODS",
    "BOOTSTRAP_METHODS",
    "ERROR_KINDS",
    "ERROR_POLICIES",
    "ESCAPES",
    "FIT_MODELS",
    "FORMATS",
    "INTERVAL_METHODS",
    "METRICS",
    "PAIRED_METHODS",
    "RESAMPLING_METHODS",
    "SE_METHODS",
    "UNMATCHED",
    "AdaptiveInterval",
    "Adjustment",
    "BinomialMethod",
    "BootstrapMethod",
    "ErrorKind",
    "ErrorPolicy",
    "Escape",
    "FitModel",
    "FormatName",
    "IntervalMethod",
    "Metric",
    "PairedMethod",
    "Resampling",
    "SEMethod",
    "Unmatched",
]

BinomialMethod: TypeAlias = Literal[
    "wilson", "clopper_pearson", "jeffreys", "agresti_coull", "wald"
]
"""Intervals of a binomial proportion (:func:`passk_lab.binomial_ci`)."""
BINOMIAL_METHODS: tuple[BinomialMethod, ...] = get_args(BinomialMethod)

BootstrapMethod: TypeAlias = Literal["percentile", "bca"]
"""Intervals from the task bootstrap."""
BOOTSTRAP_METHODS: tuple[BootstrapMethod, ...] = get_args(BootstrapMethod)

Resampling: TypeAlias = Literal[BootstrapMethod, "two-level"]
"""The methods of :func:`passk_lab.reliability_curve` that resample (and take an ``rng``)."""
RESAMPLING_METHODS: tuple[Resampling, ...] = get_args(Resampling)

IntervalMethod: TypeAlias = Literal["auto", BinomialMethod, Resampling]
"""Every ``method`` of :func:`passk_lab.reliability_curve`."""
INTERVAL_METHODS: tuple[IntervalMethod, ...] = get_args(IntervalMethod)

PairedMethod: TypeAlias = Literal["auto", BootstrapMethod]
"""The intervals of a paired difference (:func:`passk_lab.compare`)."""
PAIRED_METHODS: tuple[PairedMethod, ...] = get_args(PairedMethod)

SEMethod: TypeAlias = Literal["auto", "clustered", "naive"]
"""The intervals of :meth:`passk_lab.PassAt1SE.confidence_interval`."""
SE_METHODS: tuple[SEMethod, ...] = get_args(SEMethod)

ErrorPolicy: TypeAlias = Literal["fail", "exclude"]
"""What an errored or timed-out run counts as: a failed run, or left out of ``n``."""
ERROR_POLICIES: tuple[ErrorPolicy, ...] = get_args(ErrorPolicy)

ErrorKind: TypeAlias = Literal["agent", "timeout", "infrastructure"]
"""Whose failure an errored run was, in the ``error_kind`` column."""
ERROR_KINDS: tuple[ErrorKind, ...] = get_args(ErrorKind)

Unmatched: TypeAlias = Literal["raise", "drop"]
"""What a comparison does with a task that not every agent ran."""
UNMATCHED: tuple[Unmatched, ...] = get_args(Unmatched)

Metric: TypeAlias = Literal["pass_pow_k", "pass_at_k"]
"""What a leaderboard ranks by, a pairwise table compares and an adaptive evaluation targets."""
METRICS: tuple[Metric, ...] = get_args(Metric)

Adjustment: TypeAlias = Literal["holm", "bh"]
"""How :func:`passk_lab.pairwise` adjusts its p-values (or ``None``: not at all)."""
ADJUSTMENTS: tuple[Adjustment, ...] = get_args(Adjustment)

FitModel: TypeAlias = Literal["auto", "betabinom", "inflated"]
"""The models :func:`passk_lab.fit_betabinom` fits."""
FIT_MODELS: tuple[FitModel, ...] = get_args(FitModel)

AdaptiveInterval: TypeAlias = Literal["sequential", "anytime"]
"""The intervals of :func:`passk_lab.evaluate_until`."""
ADAPTIVE_INTERVALS: tuple[AdaptiveInterval, ...] = get_args(AdaptiveInterval)

Escape: TypeAlias = Literal["html", "latex"]
"""What :func:`passk_lab.styled` escapes its cells for."""
ESCAPES: tuple[Escape, ...] = get_args(Escape)

FormatName: TypeAlias = Literal[
    "tau-bench",
    "tau2",
    "harbor",
    "hal",
    "samples",
    "lm-eval",
    "inspect",
    "counts",
    "table",
    "ledger",
]
"""The formats :func:`passk_lab.io.read` knows, in the order it tries them."""
FORMATS: tuple[FormatName, ...] = get_args(FormatName)
