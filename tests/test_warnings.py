"""Typed warnings: each kind of warning is its own class, carrying its figures as attributes.

The report and the command line decide by a warning's class and fields, never by
its wording; these tests raise each kind from a real call and read its fields.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pandas as pd
import pytest

import passk_lab as pk
from passk_lab import _warnings
from passk_lab._choices import (
    BINOMIAL_METHODS,
    INTERVAL_METHODS,
    PAIRED_METHODS,
    RESAMPLING_METHODS,
    UNMATCHED,
)
from passk_lab._errors import keywords_of
from passk_lab._warnings import by_keyword

CLASSES = [
    value
    for value in vars(_warnings).values()
    if inspect.isclass(value) and issubclass(value, Warning)
]


def caught(call, *args, **kwargs):
    with warnings.catch_warnings(record=True) as found:
        warnings.simplefilter("always")
        result = call(*args, **kwargs)
    return result, [record.message for record in found]


def test_every_warning_class_is_a_public_passk_warning():
    assert len(CLASSES) >= 14
    for cls in CLASSES:
        assert issubclass(cls, pk.PasskWarning)
        assert getattr(pk, cls.__name__) is cls


@pytest.mark.parametrize(
    "name",
    [
        "NoEstimateWarning",
        "FewTasksWarning",
        "FewRunsWarning",
        "NoVariationWarning",
        "TasksLeftOutWarning",
        "UnequalRunsWarning",
        "ResolutionWarning",
        "FitRejectedWarning",
        "EmptySequenceWarning",
        "EvaluationWarning",
    ],
)
def test_what_was_a_runtime_warning_still_is(name):
    """A filter on RuntimeWarning of the last release catches the same warnings."""
    assert issubclass(getattr(pk, name), RuntimeWarning)


def test_a_k_past_every_task_names_the_ks_and_the_most_runs():
    runs = pk.simulate_coin(tasks=10, k=3, seed=1)
    _, found = caught(pk.reliability_curve, runs, [2, 5, 6])
    (warning,) = [w for w in found if isinstance(w, pk.NoEstimateWarning)]
    assert (warning.ks, warning.most_runs, warning.keywords) == ((5, 6), 3, ("ks",))


def test_one_task_at_a_k_names_the_k():
    runs = pd.DataFrame(
        {"task": [0, 0, 0, 1], "run": [0, 1, 2, 0], "passed": [True, True, False, True]}
    )
    _, found = caught(pk.reliability_curve, runs, [1, 3])
    few = [w for w in found if isinstance(w, pk.FewTasksWarning)]
    assert [(w.ks, w.tasks) for w in few] == [((3,), 1)]
    left = [w for w in found if isinstance(w, pk.TasksLeftOutWarning)]
    assert [(w.k, w.counted, w.first) for w in left] == [(3, 1, 2)]


def test_dropped_tasks_of_a_comparison_are_listed():
    a = pk.simulate_coin(tasks=6, k=2, seed=1)
    b = a[a["task"] < 4]
    _, found = caught(pk.compare, a, b, [1], unmatched="drop")
    (warning,) = [w for w in found if isinstance(w, pk.UnmatchedTasksWarning)]
    assert warning.kept == 4
    assert set(warning.dropped) == {4, 5}
    assert warning.keywords == ("unmatched",)


def test_a_comparison_refusal_names_the_sides_as_asked():
    a = pk.simulate_coin(tasks=6, k=2, seed=1)
    b = a[a["task"] < 4]
    with pytest.raises(ValueError, match=r"only in A \(a\.csv\)") as refused:
        pk.compare(a, b, [1], names=("A (a.csv)", "B (b.csv)"))
    assert keywords_of(refused.value) == ("unmatched",)
    with pytest.raises(TypeError, match="names must be two"):
        pk.compare(a, a, [1], names=("only one",))


def test_unequal_runs_of_a_leaderboard_count_the_tasks():
    runs = pd.concat(
        [
            pk.simulate_coin(tasks=8, k=3, seed=1).assign(model="a"),
            pk.simulate_coin(tasks=8, k=2, seed=2).assign(model="b"),
        ]
    )
    _, found = caught(pk.leaderboard, runs, ks=[1])
    (warning,) = [w for w in found if isinstance(w, pk.UnequalRunsWarning)]
    assert (warning.tasks, warning.shared) == (8, 8)


def test_a_rejected_fit_carries_its_p_value():
    # half the tasks always pass, half never: no beta-binomial with mass inside fits
    counts = pd.DataFrame({"task": range(60), "n": 6, "c": [0, 6] * 25 + [3] * 10})
    _, found = caught(pk.reliability_curve, counts, [1], predict_to=12)
    (warning,) = [w for w in found if isinstance(w, pk.FitRejectedWarning)]
    fit = pk.fit_betabinom(counts)
    assert warning.p_value == pytest.approx(fit.goodness_of_fit.p_value)
    assert warning.p_value < 0.05
    assert warning.most_runs == 6


def test_a_passed_and_errored_run_is_counted_and_named():
    runs = pd.DataFrame(
        {"task": [0, 0], "run": [0, 1], "passed": [True, True], "error": ["boom", None]}
    )
    _, found = caught(pk.tally, runs)
    (warning,) = [w for w in found if isinstance(w, pk.ConflictingVerdictWarning)]
    assert (warning.runs, warning.keywords) == (1, ("errors",))


def test_choice_tuples_are_their_literals_args():
    assert ("auto", *BINOMIAL_METHODS, *RESAMPLING_METHODS) == INTERVAL_METHODS
    assert PAIRED_METHODS == ("auto", "percentile", "bca")
    assert UNMATCHED == ("raise", "drop")


def test_a_positional_by_works_for_one_release_with_a_warning():
    @by_keyword(2)
    def statistic(runs, k, *, by=None):
        return k, by

    with pytest.warns(pk.PasskDeprecationWarning, match=r"by is keyword-only: write statistic"):
        assert statistic("runs", 3, None) == (3, None)  # past the positional ones: by
    with pytest.raises(TypeError, match="got by twice"):
        statistic("runs", 3, "model", by="model")
    assert statistic("runs", 3, by=["model"]) == (3, ["model"])

    @by_keyword(1)
    def board(runs, ks=None, *, by="model"):
        return ks, by

    with pytest.warns(DeprecationWarning, match=r"write board\(\.\.\., by=\['model'"):
        assert board("runs", ["model", "domain"], [3]) == ([3], ["model", "domain"])
    assert board("runs", [3]) == ([3], "model")  # a k is never read as by
    ks, by = board("runs", np.array([1, 2]))  # an array of ks is no list of column names
    assert (ks.tolist(), by) == ([1, 2], "model")
