"""The adaptive evaluation's study: its quick run, its truths, its fixed design and its runs."""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats

STUDY = Path(__file__).resolve().parents[1] / "study" / "adaptive_coverage.py"


def _study():
    """Import study/adaptive_coverage.py (a script, not a package module) once."""
    if "adaptive_study" not in sys.modules:
        spec = importlib.util.spec_from_file_location("adaptive_study", STUDY)
        module = importlib.util.module_from_spec(spec)
        sys.modules["adaptive_study"] = module
        spec.loader.exec_module(module)
    return sys.modules["adaptive_study"]


def test_the_quick_study_writes_its_tables_and_holds_its_identities(tmp_path, capsys) -> None:
    study = _study()
    arguments = ["--quick", "--jobs", "1", "--seed", "3", "--replicates", "3"]
    tables = study.main([*arguments, "--out", str(tmp_path)])
    printed = capsys.readouterr()
    assert "## Summary" in printed.out
    assert "4 cells in" in printed.err
    assert (tmp_path / "tables.md").read_text(encoding="utf-8") == printed.out.rstrip("\n") + "\n"
    for name, table in tables.items():
        written = pd.read_csv(tmp_path / f"{name}.csv")
        pd.testing.assert_frame_equal(written, table, check_dtype=False, atol=1e-9)
    one, two = tables["one_agent"], tables["two_agents"]
    cells = study.grid(quick=True)
    assert len(one) + len(two) == len(cells)
    assert len(two) == sum(cell.agents == 2 for cell in cells)
    for table in (one, two):
        assert (table["n_replicates"] == 3).all()
        expected_se = np.sqrt(table["coverage"] * (1 - table["coverage"]) / 3)
        np.testing.assert_allclose(table["coverage_se"], expected_se)
    np.testing.assert_allclose(one["runs_ratio"], one["mean_runs"] / one["fixed_runs"])
    np.testing.assert_allclose(one["runs_saved"], 1 - one["runs_ratio"])
    assert (one["fixed_runs"] == 5 * one["fixed_tasks"]).all()
    # the pool never runs out: every one-agent evaluation stops at its half-width
    assert (one["share_half_width"] == 1).all()
    assert (one["mean_half_width"] <= one["half_width"]).all()
    # two agents stop at the half-width or by the sign, and a wrong sign is a sign stop
    np.testing.assert_allclose(two["share_half_width"] + two["share_sign"], 1)
    assert (two["wrong_above"] + two["wrong_below"] <= two["share_sign"]).all()
    for row in one.itertuples():
        statistic = "pass_pow_k" if row.statistic == "pass^5" else "pass_at_k"
        assert row.truth == study.truth(statistic, row.mean, row.icc)


def _clopper_pearson_half_width(passing: int, tasks: int) -> float:
    low = stats.beta.ppf(0.025, passing, tasks - passing + 1) if passing > 0 else 0.0
    high = stats.beta.ppf(0.975, passing + 1, tasks - passing) if passing < tasks else 1.0
    return (high - low) / 2


@pytest.mark.parametrize("half_width", [0.1, 0.05])
def test_the_guaranteed_design_has_the_fewest_tasks_that_reach_the_half_width_always(
    half_width,
) -> None:
    tasks = _study().guaranteed_tasks(half_width)
    worst = [
        max(_clopper_pearson_half_width(x, t) for x in range(t + 1)) for t in (tasks - 1, tasks)
    ]
    assert worst[0] > half_width >= worst[1]


@pytest.mark.parametrize("statistic", ["pass_pow_k", "pass_at_k"])
@pytest.mark.parametrize(("mean", "icc"), [(0.7, 0.2), (0.95, 0.4), (0.6, 0.0)])
def test_the_truth_is_the_population_mean_over_the_beta_law(statistic, mean, icc) -> None:
    value = _study().truth(statistic, mean, icc)
    if icc == 0:
        exact = mean**5 if statistic == "pass_pow_k" else 1 - (1 - mean) ** 5
    else:
        law = stats.beta(mean * (1 - icc) / icc, (1 - mean) * (1 - icc) / icc)
        event = (lambda p: p**5) if statistic == "pass_pow_k" else (lambda p: 1 - (1 - p) ** 5)
        exact = integrate.quad(lambda p: event(p) * law.pdf(p), 0, 1)[0]
    assert value == pytest.approx(exact, rel=1e-9)


def test_the_simulated_runs_are_the_procedures_and_repeat_from_the_seed() -> None:
    study = _study()
    cell = study.Cell(0, "pass_pow_k", 0.1, (0.7,), 0.2)
    # with no second stage every task gets exactly the first 5 runs
    fixed = study.design(cell, 5, most=5)
    stop, _, runs = study.evaluate(cell, fixed, study.replicate_rng(1, cell, 0))
    assert stop.ends.n[0] == [5] * len(stop.ends.tasks)
    assert stop.runs == runs.answered == 5 * len(stop.ends.tasks)
    # with a second stage, each task's passes are its drawn runs' up to where it ended
    plan = study.design(cell, 5)
    stop, interval, runs = study.evaluate(cell, plan, study.replicate_rng(1, cell, 0))
    assert stop.runs == runs.answered == sum(stop.ends.n[0])
    assert any(n > 5 for n in stop.ends.n[0])
    for task, n, c in zip(stop.ends.tasks, stop.ends.n[0], stop.ends.c[0], strict=True):
        assert c == runs.passed[task][0, :n].sum()
    again = study.evaluate(cell, plan, study.replicate_rng(1, cell, 0))
    assert (again[0].ends, again[1]) == (stop.ends, interval)
    other = study.evaluate(cell, plan, study.replicate_rng(1, cell, 1))
    assert other[0].ends != stop.ends


def test_two_agents_share_each_tasks_quantile() -> None:
    study = _study()
    cell = study.Cell(0, "pass_pow_k", 0.05, (0.8, 0.7), 0.2)
    u = np.linspace(0.01, 0.99, 9)
    rates = study.task_rates(cell, u)
    for agent, mean in enumerate(cell.means):
        law = stats.beta(mean * 4, (1 - mean) * 4)  # icc 0.2: (1 - icc) / icc = 4
        np.testing.assert_allclose(law.cdf(rates[:, agent]), u, rtol=1e-9)
    assert (np.diff(rates, axis=0) > 0).all()


def test_the_study_of_extra_runs_gives_the_tasks_the_runs_its_plans_allow(tmp_path, capsys) -> None:
    study = _study()
    arguments = ["--quick", "--jobs", "1", "--seed", "3", "--replicates", "2", "--most", "20"]
    tables = study.main([*arguments, "--out", str(tmp_path)])
    assert "at most 20 (the procedure's two-stage plans" in capsys.readouterr().out
    one = tables["one_agent"]
    runs_per_task = one["mean_runs"] / one["median_tasks"]
    assert (runs_per_task >= 5).all()
    assert (runs_per_task <= 20).all()
    # by default (evaluate_until's) a task gets its first 5 runs and no more
    default = study.main(["--quick", "--jobs", "1", "--seed", "3", "--replicates", "1"])
    assert "at most 5 (evaluate_until's default" in capsys.readouterr().out
    assert (default["one_agent"]["mean_runs"] % 5 == 0).all()
