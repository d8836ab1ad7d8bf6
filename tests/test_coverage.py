"""Coverage pinned by simulation, interval_coverage's options and checks, and the quick study."""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats

import passk_lab as pk
from passk_lab.coverage import COVERAGE_METHODS

STUDY = Path(__file__).resolve().parents[1] / "study" / "coverage.py"


def _study():
    """Import study/coverage.py (a script, not a package module) once."""
    if "coverage_study" not in sys.modules:
        spec = importlib.util.spec_from_file_location("coverage_study", STUDY)
        module = importlib.util.module_from_spec(spec)
        sys.modules["coverage_study"] = module
        spec.loader.exec_module(module)
    return sys.modules["coverage_study"]


# ---------------------------------------------------------------- how many replicates

FAILING, HOLDING = 0.90, 0.93  # a coverage the tests must catch, and one they must let pass
FALSE_PASS, TRUE_PASS = 0.001, 0.99


def _replicates_and_threshold() -> tuple[int, int]:
    """The fewest replicates N, and the covered count t a cell needs, such that a coverage of
    0.90 reaches t with chance <= 0.001 and a coverage of 0.93 with chance >= 0.99."""
    sizes = np.arange(100, 10_000)
    needed = stats.binom.isf(FALSE_PASS, sizes, FAILING).astype(np.int64) + 1
    passes = stats.binom.sf(needed - 1, sizes, HOLDING)
    first = int(np.flatnonzero(passes >= TRUE_PASS)[0])
    return int(sizes[first]), int(needed[first])


REPLICATES, NEEDED = _replicates_and_threshold()


def test_the_replicates_tell_0_90_from_0_93() -> None:
    assert stats.binom.sf(NEEDED - 1, REPLICATES, FAILING) <= FALSE_PASS
    assert stats.binom.sf(NEEDED - 1, REPLICATES, HOLDING) >= TRUE_PASS


def _assert_holds(table: pd.DataFrame) -> None:
    """Every row was scored on enough replicates, covered at least NEEDED of them, never a point."""
    assert (table["n_replicates"] >= REPLICATES).all(), table
    covered = np.round(table["coverage"] * table["n_replicates"])
    needed = stats.binom.isf(FALSE_PASS, table["n_replicates"], FAILING) + 1
    assert (covered >= needed).all(), table[covered < needed]
    assert (table["zero_width"] == 0).all(), table


# ---------------------------------------------------------------- the defaults in the hardest cells

HARD_CELLS = {  # the study's lowest default cells of each kind (docs/coverage/tables.md)
    # rare passes at 20 tasks: pass@10 = 0.40 is its lowest 20-task cell
    "near 0, 20 x 10": (20, 10, {"p": 0.05, "icc": 0.0}, [1, 5, 10]),
    # rare failures: pass@10 = 0.999, most evaluations see every task pass
    "near 1, 20 x 10": (20, 10, {"p": 0.99, "icc": 0.5}, [1, 5, 10]),
    # its lowest cell with unequal runs and a mixture (k = 5 counts two thirds of the tasks)
    "mixture, 150 x 2..10": (150, range(2, 11), {"mixture": [(0.5, 0.02), (0.5, 0.9)]}, [1, 5]),
    # pass@1 of pass_at_1_se at a truth of 0.005
    "pass@1 at 0.005, 20 x 3": (20, 3, {"p": 0.005, "icc": 0.5}, [1]),
}


@pytest.mark.parametrize("cell", list(HARD_CELLS), ids=list(HARD_CELLS))
def test_the_default_intervals_hold_0_93_in_the_hardest_cells(cell: str) -> None:
    tasks, runs, model, ks = HARD_CELLS[cell]
    table = pk.interval_coverage(
        tasks, runs, **model, ks=ks, methods=["auto"], n_replicates=REPLICATES, rng=17
    )
    assert set(table["statistic"]) == {"pass_pow_k", "pass_at_k", "p_pow_k", "pass_at_1"}
    _assert_holds(table)


def test_compare_holds_0_93_near_the_ceiling() -> None:
    study = _study()
    cell = {"sigma": 0.5, "regime": "ceiling", "gap": "large", "tasks": 40, "runs": (5, 5)}
    table = study.compare_cell(cell, (0.95,), REPLICATES, check=True)
    assert (
        table["statistic"].tolist() == ["pass_at_1", "pass_pow_k", "pass_pow_k"] + ["pass_at_k"] * 2
    )
    _assert_holds(table)


# ---------------------------------------------------------------- what is measured


def test_the_curve_and_pass_at_1_intervals_are_the_librarys() -> None:
    # every task passes every run: the one evaluation there is, so each width is the library's
    table = (
        pk.interval_coverage(
            30, 4, mixture=[(1.0, 1.0)], methods=["auto", "clustered"], n_replicates=3, rng=0
        )
        .set_index(["method", "statistic", "k"])
        .sort_index()
    )
    runs = pd.DataFrame({"task": range(30), "n": 4, "c": 4})
    curve = pk.reliability_curve(runs, rng=0).set_index("k")
    for k in range(1, 5):
        for statistic in ("pass_pow_k", "pass_at_k", "p_pow_k"):
            width = curve.loc[k, f"{statistic}_high"] - curve.loc[k, f"{statistic}_low"]
            assert table.loc[("auto", statistic, k), "mean_width"] == pytest.approx(width)
    for method in ("auto", "clustered"):
        low, high = pk.pass_at_1_se(runs).confidence_interval(method=method)
        assert table.loc[(method, "pass_at_1", 1), "mean_width"] == pytest.approx(high - low)
    # the old normal interval is the point [1, 1] here, the default never is
    assert table.loc[("clustered", "pass_at_1", 1), "zero_width"] == 1.0
    assert (table.loc["auto", "zero_width"] == 0).all()


def test_pass_at_1_of_cells_counting_many_tasks_is_what_pass_at_1_se_returns() -> None:
    rng = np.random.default_rng(5)
    n = rng.integers(1, 9, size=25)
    c = rng.binomial(n, 0.4)
    runs = pd.DataFrame({"task": range(25), "n": n, "c": c})
    cells = pd.DataFrame({"n": n, "c": c}).value_counts().sort_index()
    n_cells, c_cells = (cells.index.get_level_values(name).to_numpy() for name in ("n", "c"))
    mine = pk.PassAt1SE.from_cells(n_cells, c_cells, cells.to_numpy().astype(np.int64))
    theirs = pk.pass_at_1_se(runs)
    assert mine.to_frame().iloc[0].to_dict() == pytest.approx(theirs.to_frame().iloc[0].to_dict())
    for method in ("auto", "clustered", "naive"):
        assert mine.confidence_interval(0.9, method) == pytest.approx(
            theirs.confidence_interval(0.9, method)
        )


def test_the_truths_are_the_populations_values_for_a_new_task() -> None:
    ks = [1, 2, 5]
    beta = pk.interval_coverage(
        30, 5, p=0.6, icc=0.4, ks=ks, methods=["auto"], n_replicates=2, rng=0
    ).set_index(["statistic", "k"])["truth"]
    alpha, beta_shape = 0.6 * 1.5, 0.4 * 1.5  # (1 - icc) / icc = 1.5
    law = stats.beta(alpha, beta_shape)
    for k in ks:
        pow_k = integrate.quad(lambda p, k=k: p**k * law.pdf(p), 0, 1)[0]
        at_k = integrate.quad(lambda p, k=k: (1 - (1 - p) ** k) * law.pdf(p), 0, 1)[0]
        assert beta["pass_pow_k", k] == pytest.approx(pow_k, rel=1e-6)
        assert beta["pass_at_k", k] == pytest.approx(at_k, rel=1e-6)
        assert beta["p_pow_k", k] == pytest.approx(0.6**k, rel=1e-12)  # the band: (E p)^k
    assert beta["pass_at_1", 1] == pytest.approx(0.6)
    mixed = pk.interval_coverage(
        30, 5, mixture=[(0.3, 1.0), (0.7, 0.6)], ks=ks, methods=["auto"], n_replicates=2, rng=0
    ).set_index(["statistic", "k"])["truth"]
    for k in ks:
        assert mixed["pass_pow_k", k] == pytest.approx(0.3 + 0.7 * 0.6**k)
        assert mixed["pass_at_k", k] == pytest.approx(1 - 0.7 * 0.4**k)
        assert mixed["p_pow_k", k] == pytest.approx(0.72**k)


def test_a_mixture_at_k_equal_runs_gives_the_exact_binomial_coverage() -> None:
    # with 5 runs a task, pass^5 is the share of tasks that passed all 5: Binomial(tasks,
    # 0.3 + 0.7 * 0.6^5) under this mixture, so Wilson's coverage is a sum over its outcomes
    tasks, runs, mixture = 40, 5, [(0.3, 1.0), (0.7, 0.6)]
    row = (
        pk.interval_coverage(
            tasks, runs, mixture=mixture, ks=[runs], methods=["wilson"], n_replicates=1000, rng=1
        )
        .set_index("statistic")
        .loc["pass_pow_k"]
    )
    truth = 0.3 + 0.7 * 0.6**runs
    outcomes = np.arange(tasks + 1)
    low, high = pk.binomial_ci(outcomes, tasks, method="wilson")
    exact = stats.binom.pmf(outcomes, tasks, truth)[(low <= truth) & (truth <= high)].sum()
    se = np.sqrt(exact * (1 - exact) / row["n_replicates"])
    assert row["coverage"] == pytest.approx(exact, abs=4 * se)


def test_unequal_runs_leave_a_k_undefined_where_it_counts_fewer_than_2_tasks() -> None:
    # each task draws 2..10 runs; k = 10 counts the tasks that drew 10, Binomial(20, 1/9) of them
    replicates = 600
    table = pk.interval_coverage(
        20, range(2, 11), p=0.5, ks=[10], methods=["auto"], n_replicates=replicates, rng=3
    ).set_index(["statistic", "k"])
    share = stats.binom.cdf(1, 20, 1 / 9)
    se = np.sqrt(share * (1 - share) / replicates)
    for statistic in ("pass_pow_k", "pass_at_k"):
        row = table.loc[(statistic, 10)]
        assert row["n_replicates"] + row["n_undefined"] == replicates
        assert row["n_undefined"] / replicates == pytest.approx(share, abs=4 * se)
    assert table.loc[("p_pow_k", 10), "n_undefined"] == 0  # the band needs pass@1 only


def test_naive_errors_undercover_by_the_design_effect() -> None:
    # 200 tasks x 5 runs, icc 0.4: the naive variance is short by 1 + (5 - 1) 0.4 = 2.6
    replicates = 1000
    row = pk.interval_coverage(
        200, 5, p=0.6, icc=0.4, methods=["naive"], n_replicates=replicates, rng=2
    ).iloc[0]
    expected = 2 * stats.norm.cdf(stats.norm.ppf(0.975) / np.sqrt(2.6)) - 1
    se = np.sqrt(expected * (1 - expected) / replicates)
    assert row["statistic"] == "pass_at_1"
    assert row["coverage"] == pytest.approx(expected, abs=4 * se + 0.01)  # + the CLT's slack


# ---------------------------------------------------------------- arguments


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"methods": ["bootstrap"]}, ValueError, "methods must be a non-empty list of auto"),
        ({"methods": []}, ValueError, "methods must be a non-empty list"),
        ({"methods": ["analytic"]}, ValueError, "statistic p_pow_k"),
        ({"methods": "auto"}, TypeError, "methods must be a list of method names"),
        ({"ks": [6]}, ValueError, "ks must be at most the most runs a task has, 5"),
        ({"p": 1.0}, ValueError, "p must be strictly between 0 and 1"),
        ({"icc": 1.0}, ValueError, "icc must be below 1"),
        ({"n_replicates": 0}, ValueError, "n_replicates must be a positive integer"),
        ({"mixture": [(1.0, 0.5)], "p": 0.5}, ValueError, "either as p= and icc="),
        ({"mixture": [(0.5, 0.2), (0.4, 0.9)]}, ValueError, "add up to 1"),
        ({"mixture": [(0.5,)]}, ValueError, r"list of \(share, rate\) pairs"),
        ({"mixture": [(1.0, 1.5)]}, ValueError, "mixture rate must be a probability"),
        ({"mixture": 0.5}, TypeError, "mixture must be a list of"),
        ({"runs_per_task": []}, ValueError, "runs_per_task is empty"),
        ({"runs_per_task": [3, 0]}, ValueError, "runs_per_task must be a positive integer"),
    ],
)
def test_bad_settings_are_refused(kwargs, error, message) -> None:
    options = {"runs_per_task": 5} | kwargs
    with pytest.raises(error, match=message):
        pk.interval_coverage(10, **options)


def test_one_task_is_refused() -> None:
    with pytest.raises(ValueError, match="n_tasks must be at least 2"):
        pk.interval_coverage(1, 5)


def test_the_same_seed_gives_the_same_evaluations_whatever_the_methods() -> None:
    options = {"p": 0.7, "icc": 0.2, "ks": [1, 3], "n_replicates": 50, "rng": 8}
    alone = pk.interval_coverage(20, 4, methods=["auto"], **options)
    beside = pk.interval_coverage(20, 4, methods=["auto", "bca"], n_resamples=200, **options)
    pd.testing.assert_frame_equal(alone, beside[beside["method"] == "auto"].reset_index(drop=True))


def test_the_old_n_runs_keyword_still_works_with_a_warning() -> None:
    options = {"methods": ["wilson"], "n_replicates": 20, "rng": 3}
    with pytest.warns(DeprecationWarning, match="runs_per_task"):
        old = pk.interval_coverage(30, n_runs=4, **options)
    pd.testing.assert_frame_equal(old, pk.interval_coverage(30, runs_per_task=4, **options))
    with pytest.raises(TypeError, match="needs runs_per_task"):
        pk.interval_coverage(30, methods=["wilson"])


def test_every_method_is_measured() -> None:
    table = pk.interval_coverage(
        12, 3, methods=list(COVERAGE_METHODS), n_replicates=3, n_resamples=50, rng=0
    )
    assert set(table["method"]) == set(COVERAGE_METHODS)


# ---------------------------------------------------------------- the study


def test_the_quick_study_holds_every_default_cell_to_its_bar(capsys) -> None:
    study = _study()
    tables = study.main(["--quick", "--jobs", "1"])
    printed = capsys.readouterr().out
    assert "## Level 0.95" in printed
    assert study.failures(tables).empty
    for name, table in tables.items():
        default = table[(table["method"] == "auto") & (table["n_replicates"] > 0)]
        assert len(default), name
        covered = np.round(default["coverage"] * default["n_replicates"])
        chance = stats.binom.cdf(covered, default["n_replicates"], default["level"] - 0.02)
        assert (chance >= FALSE_PASS).all(), default[chance < FALSE_PASS]
        assert (default["zero_width"] == 0).all(), name
