"""``passk-lab plan``: the rate a target needs, the runs that show a rate, the tasks to plan."""

from __future__ import annotations

import io
import json
import math
import re
from statistics import NormalDist

import pandas as pd
import pytest

from passk_lab.cli import main
from passk_lab.planning import plan_evaluation


def printed(args, capsys):
    assert main(["plan", *args]) == 0
    return capsys.readouterr().out


def read_csv(args, capsys):
    return pd.read_csv(io.StringIO(printed([*args, "--to", "csv"], capsys)))


def columns_of(line):
    return re.split(r"\s{2,}", line.strip())


def refused(args, capsys):
    """Run ``plan``, expect exit 2 and no traceback; return the last line of stderr."""
    with pytest.raises(SystemExit) as exited:
        main(["plan", *args])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err.splitlines()[-1]


# --- rate ----------------------------------------------------------------------------------


def test_rate_is_the_kth_root_of_each_target_at_each_k(capsys):
    table = read_csv(["rate", "--target", "0.8,0.9", "--k", "1,5,10"], capsys)
    pairs = [(target, k) for target in (0.8, 0.9) for k in (1, 5, 10)]
    assert list(zip(table["target"], table["k"], strict=True)) == pairs
    assert table["required_p"].tolist() == pytest.approx([t ** (1 / k) for t, k in pairs])


def test_rate_prints_a_labelled_table_and_what_it_assumes(capsys):
    lines = printed(["rate", "--target", "0.9", "--k", "2..3"], capsys).splitlines()
    assert columns_of(lines[0]) == ["pass^k wanted", "k", "per-run p needed"]
    assert lines[1].split() == ["0.9", "2", f"{0.9 ** (1 / 2):.4f}"]
    assert lines[2].split() == ["0.9", "3", f"{0.9 ** (1 / 3):.4f}"]
    assert lines[3] == ""
    assert "if every run were independent" in " ".join(lines[4:])
    assert all(len(line) <= 100 for line in lines[4:])


def test_rate_in_json_and_markdown(capsys):
    rows = json.loads(printed(["rate", "--target", "0.5", "--k", "4", "--to", "json"], capsys))
    assert rows == [{"target": 0.5, "k": 4, "required_p": pytest.approx(0.5**0.25)}]
    lines = printed(["rate", "--target", "0.5", "--k", "4", "--to", "markdown"], capsys)
    assert lines.splitlines()[0] == "| pass^k wanted | k | per-run p needed |"
    assert lines.splitlines()[2] == f"| 0.5           | 4 |           {0.5**0.25:.4f} |"


# --- zero-failure --------------------------------------------------------------------------


def test_zero_failure_runs_are_the_closed_form_ceiling(capsys):
    rates = [0.9, 0.95, 0.99]
    table = read_csv(["zero-failure", "--p", "0.9,0.95,0.99", "--confidence-level", "0.9"], capsys)
    assert table["p0"].tolist() == rates
    assert table["confidence_level"].tolist() == [0.9] * 3
    closed_form = [math.ceil(math.log(1 - 0.9) / math.log(p)) for p in rates]
    assert table["zero_failure_runs"].tolist() == closed_form
    assert list(table.columns) == ["p0", "confidence_level", "zero_failure_runs"]
    for p, runs in zip(rates, closed_form, strict=True):  # the fewest: one less is not enough
        assert p**runs <= 1 - 0.9 < p ** (runs - 1)


def betaln(a, b):
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


def test_zero_failure_with_runs_per_task_counts_whole_tasks(capsys):
    p, icc, per_task, level = 0.95, 0.1, 5, 0.95
    table = read_csv(
        ["zero-failure", "--p", str(p), "--icc", str(icc), "--runs-per-task", str(per_task)],
        capsys,
    )
    # a task passes all its runs with chance E[p^r] = B(alpha + r, beta) / B(alpha, beta)
    alpha, beta = p * (1 - icc) / icc, (1 - p) * (1 - icc) / icc
    all_pass = math.exp(betaln(alpha + per_task, beta) - betaln(alpha, beta))
    tasks = math.ceil(math.log(1 - level) / math.log(all_pass))
    assert table[["runs_per_task", "zero_failure_runs", "n_tasks"]].to_numpy().tolist() == [
        [per_task, tasks * per_task, tasks]
    ]
    lines = printed(["zero-failure", "--p", "0.95", "--icc", "0.1", "--runs-per-task", "5"], capsys)
    assert columns_of(lines.splitlines()[0]) == [
        "p to show",
        "confidence",
        "ICC",
        "runs per task",
        "runs, all passing",
        "tasks",
    ]


def test_zero_failure_icc_without_runs_per_task_names_the_options(capsys):
    line = refused(["zero-failure", "--p", "0.9", "--icc", "0.2"], capsys)
    assert line.startswith("passk-lab plan zero-failure: error: --icc 0.2 needs --runs-per-task")


# --- tasks ---------------------------------------------------------------------------------


def test_tasks_is_the_library_plan(capsys):
    table = read_csv(["tasks", "--half-width", "0.1", "--p", "0.8", "--k", "3"], capsys)
    pd.testing.assert_frame_equal(table, plan_evaluation(0.1, 0.8, 3), check_dtype=False)


def test_tasks_passes_every_option_on(capsys):
    args = ["tasks", "--half-width", "0.1", "--p", "0.7", "--k", "2", "--runs-per-task", "2,4"]
    options = ["--icc", "0.2", "--confidence-level", "0.9"]
    table = read_csv([*args, *options, "--assurance", "0.6"], capsys)
    expected = plan_evaluation(
        0.1, 0.7, 2, runs_per_task=[2, 4], icc=0.2, confidence_level=0.9, assurance=0.6
    )
    pd.testing.assert_frame_equal(table, expected, check_dtype=False)
    table = read_csv([*args, *options, "--expected"], capsys)
    expected = plan_evaluation(
        0.1, 0.7, 2, runs_per_task=[2, 4], icc=0.2, confidence_level=0.9, assurance=None
    )
    pd.testing.assert_frame_equal(table, expected, check_dtype=False)


def test_tasks_prints_a_labelled_table_and_what_it_plans(capsys):
    args = ["tasks", "--half-width", "0.1", "--p", "0.8", "--k", "3", "--runs-per-task", "3"]
    lines = printed(args, capsys).splitlines()
    assert columns_of(lines[0]) == [
        "runs per task",
        "tasks",
        "total runs",
        "pass^k",
        "task sd",
        "half-width",
        "assurance",
    ]
    plan = plan_evaluation(0.1, 0.8, 3, runs_per_task=3)
    assert lines[1].split()[:3] == [
        "3",
        str(plan.loc[0, "n_tasks"]),
        str(plan.loc[0, "total_runs"]),
    ]
    note = " ".join(lines[3:])
    assert "80% of evaluations get a 95% interval of pass^3 no wider than +/- 0.1" in note


# --- bad values ----------------------------------------------------------------------------

PLANNED = ["tasks", "--half-width", "0.1", "--p", "0.8", "--k", "3"]


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        (["rate", "--target", "1.5", "--k", "3"], "argument --target: takes a number in [0, 1]"),
        (["rate", "--target", "0.9,x", "--k", "3"], "got 'x' (one, or a list: 0.8,0.9)"),
        (["rate", "--target", "0.9", "--k", "0"], "argument --k: needs k >= 1, got '0'"),
        (["rate", "--k", "3"], "the following arguments are required: --target"),
        (
            ["rate", "--target", "0.8,0.9", "--k", f"1..{10**12}"],
            f"a row for each target and k: 2 x {10**12:,} is more than 100,000; ask for fewer",
        ),
        (["zero-failure", "--p", "1"], "argument --p: takes a number in (0, 1), got '1'"),
        (["zero-failure", "--p", "0.9", "--confidence-level", "nan"], "in (0, 1), got 'nan'"),
        (["zero-failure", "--p", "0.9", "--icc", "1"], "argument --icc: takes a number in [0, 1)"),
        (
            ["tasks", "--half-width", "0.6", "--p", "0.8", "--k", "3"],
            "argument --half-width: takes a number in (0, 0.5], got '0.6'",
        ),
        (
            [*PLANNED, "--runs-per-task", "2"],
            "runs per task must be at least k = 3",
        ),
        (
            [*PLANNED, "--expected", "--assurance", "0.5"],
            "argument --assurance: not allowed with argument --expected",
        ),
        ([], "the following arguments are required: QUESTION"),
    ],
)
def test_a_bad_value_is_one_line_naming_its_option(capsys, args, shown):
    line = refused(args, capsys)
    assert line.startswith("passk-lab plan")
    assert shown in line


def test_json_keeps_fifteen_decimals(capsys):
    (row,) = json.loads(printed(["rate", "--target", "0.9", "--k", "5", "--to", "json"], capsys))
    assert abs(row["required_p"] - 0.9 ** (1 / 5)) < 1e-15  # 10 decimals would be 4e-11 off


@pytest.mark.parametrize("to", ["table", "markdown"])
def test_the_values_given_are_shown_as_typed_not_rounded(capsys, to):
    out = printed(
        ["zero-failure", "--p", "0.999999", "--confidence-level", "0.99995", "--to", to], capsys
    )
    assert "0.999999" in out
    assert "0.99995" in out
    assert "1.0000" not in out
    out = printed(["rate", "--target", "0.123456789", "--k", "2", "--to", to], capsys)
    assert "0.123456789" in out
    (row,) = read_csv(["rate", "--target", "0.123456789", "--k", "2"], capsys).itertuples()
    assert row.target == 0.123456789


@pytest.mark.parametrize("expected", [[], ["--expected"]])
def test_a_half_width_too_narrow_to_plan_is_refused_before_the_plan(capsys, expected):
    args = ["tasks", "--half-width", "1e-9", "--p", "0.5", "--k", "1", *expected]
    line = refused(args, capsys)
    most = (NormalDist().inv_cdf(0.975) / 2e-9) ** 2  # one task's sd is at most 1/2
    assert f"a half-width of 1e-09 could need up to ~{most:.2g} tasks at the 95% level" in line
    floor = NormalDist().inv_cdf(0.975) / (2 * math.sqrt(10**8))
    assert line.endswith(
        f"ask for a wider --half-width, at least {math.ceil(floor * 1e6) / 1e6:g} at this level"
    )
    assert "out of memory" not in line


@pytest.mark.parametrize(
    ("level", "article"),
    [("0.855", "an"), ("0.95", "a"), ("0.8", "an"), ("0.11", "an"), ("0.9", "a")],
)
def test_the_note_of_tasks_takes_the_article_its_level_is_said_with(capsys, level, article):
    args = ["tasks", "--half-width", "0.2", "--p", "0.8", "--k", "1", "--runs-per-task", "1"]
    out = printed([*args, "--confidence-level", level], capsys)
    shown = f"{float(level) * 100:g}%"
    assert f"get {article} {shown} interval" in " ".join(out.split())


@pytest.mark.parametrize("question", ["rate", "zero-failure", "tasks"])
def test_plan_offers_no_formula_guard_for_its_tables_of_numbers(capsys, question):
    with pytest.raises(SystemExit):
        main(["plan", question, "--help"])
    assert "--no-formula-guard" not in capsys.readouterr().out
