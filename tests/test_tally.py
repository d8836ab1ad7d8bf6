"""A Tally is accepted wherever runs are: as it is, checked once, and under either error policy."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import passk_lab as pk
from passk_lab._data import tally as tally_module
from passk_lab._data.tally import Tally, as_tally

RUNS = pd.DataFrame(
    {
        "model": ["m1"] * 6 + ["m2"] * 6,
        "task": [0, 0, 0, 1, 1, 1] * 2,
        "run": [0, 1, 2] * 4,
        "passed": [True, True, False, True, False, True, True, False, False, True, True, True],
        "error": [None, None, "429", None, None, None, None, "timeout", None, None, None, None],
    }
)
ONE = RUNS[RUNS["model"] == "m1"].drop(columns="model").reset_index(drop=True)
OTHER = RUNS[RUNS["model"] == "m2"].drop(columns="model").reset_index(drop=True)


def _same(got: object, expected: object) -> None:
    if isinstance(expected, pd.DataFrame):
        assert isinstance(got, pd.DataFrame)
        pd.testing.assert_frame_equal(got, expected)
    elif isinstance(expected, pd.Series):
        pd.testing.assert_series_equal(got, expected)  # type: ignore[arg-type]
    elif hasattr(expected, "to_frame"):  # a result object
        pd.testing.assert_frame_equal(got.to_frame(), expected.to_frame())  # type: ignore[attr-defined]
    else:
        assert got == expected or (np.isnan(got) and np.isnan(expected))  # type: ignore[arg-type]


# (statistic, takes by, takes errors): each called as statistic(data, **keywords)
STATISTICS = [
    (pk.tally, True, True),
    (pk.task_consistency, True, True),
    (lambda data, **kw: pk.pass_pow_k(data, 2, **kw), True, True),
    (lambda data, **kw: pk.pass_at_k(data, 2, **kw), True, True),
    (pk.pass_at_1, True, True),
    (lambda data, **kw: pk.plugin_pow_k(data, 2, **kw), True, True),
    (lambda data, **kw: pk.analytic_pow_k(data, 2, **kw), True, True),
    (pk.reliability_curve, True, True),
    (pk.error_sensitivity, True, False),
]


@pytest.mark.parametrize(("statistic", "grouped", "policies"), STATISTICS)
@pytest.mark.parametrize("built", ["fail", "exclude"])
@pytest.mark.parametrize("asked", ["fail", "exclude"])
def test_a_statistic_of_a_tally_is_that_of_its_runs_under_every_error_policy(
    statistic, grouped, policies, built, asked
):
    by = {"by": "model"} if grouped else {}
    errors = {"errors": asked} if policies else {}
    summary = as_tally(RUNS, "model", errors=built)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pk.PasskWarning)
        _same(statistic(summary, **by, **errors), statistic(RUNS, **by, **errors))


def test_compare_takes_a_tally_for_each_side():
    strong, weak = as_tally(ONE, errors="exclude"), as_tally(OTHER)
    for errors in ("fail", "exclude"):
        _same(
            pk.compare(strong, weak, [1], errors=errors),
            pk.compare(ONE, OTHER, [1], errors=errors),
        )


def test_a_tally_given_comes_back_as_it_is_and_is_not_checked_again(monkeypatch):
    summary = as_tally(RUNS, "model")
    sides = as_tally(ONE), as_tally(OTHER)
    assert as_tally(summary, "model") is summary
    assert as_tally(summary, ["model"], errors="fail") is summary

    def checked_again(*arguments: object, **keywords: object) -> None:
        raise AssertionError("a Tally was checked again")

    for name in ("refuse_mixed_ids", "as_frame", "_tally_frame", "_tally_runs", "_tally_matrix"):
        monkeypatch.setattr(tally_module, name, checked_again)
    excluded = summary.under("exclude")
    assert pk.pass_pow_k(summary, 2, by="model").tolist() == [1 / 3, 0.5]
    assert pk.pass_pow_k(excluded, 2, by="model").tolist() == [1 / 3, 0.5]
    assert pk.pass_pow_k(excluded, 2, by="model", errors="exclude").tolist() == [2 / 3, 0.5]
    assert len(pk.reliability_curve(summary, by="model")) == 6
    assert len(pk.compare(*sides, [1])) == 2


def test_a_tally_under_the_other_policy_is_counted_again_from_its_errored_runs():
    summary = as_tally(ONE, errors="exclude")
    assert (summary.n.tolist(), summary.n_errors.tolist()) == ([2, 3], [1, 0])
    again = as_tally(summary, errors="fail")
    assert (again.n.tolist(), again.c.tolist(), again.errors) == ([3, 3], [2, 2], "fail")
    assert as_tally(again, errors="exclude").n.tolist() == [2, 3]


def test_a_tally_whose_runs_recorded_no_error_counts_alike_under_both_policies():
    clean = ONE.drop(columns="error")
    summary = as_tally(clean, errors="exclude")
    assert summary.n_errors is None
    assert (
        pk.pass_pow_k(summary, 2)
        == pk.pass_pow_k(clean, 2)
        == pk.pass_pow_k(clean, 2, errors="exclude")
    )


@pytest.mark.parametrize(
    ("built", "asked", "message"),
    [
        ("model", None, r"this tally is grouped by \['model'\], and the call asks for no groups"),
        ("model", "domain", r"asks for by=\['domain'\]: a tally keeps the groups it was counted"),
        (None, "model", r"this tally has no groups, and the call asks for by=\['model'\]"),
    ],
)
def test_a_tally_is_not_grouped_again(built, asked, message):
    summary = as_tally(RUNS if built else ONE, built)
    with pytest.raises(ValueError, match=message) as caught:
        pk.pass_pow_k(summary, 2, by=asked)
    assert caught.value.keywords == ("by",)  # type: ignore[attr-defined]


def test_compare_refuses_a_tally_with_groups_naming_pairwise():
    grouped = as_tally(RUNS, "model")
    with pytest.raises(ValueError, match=r"runs_a is a tally grouped by \['model'\].*pairwise"):
        pk.compare(grouped, as_tally(ONE))


def test_a_tally_is_a_frozen_summary():
    summary = as_tally(ONE)
    assert isinstance(summary, Tally)
    with pytest.raises(AttributeError):
        summary.n = np.zeros(2)  # type: ignore[misc]
