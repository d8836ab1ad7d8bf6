"""The leaderboard's coverage study: its quick run, its truths and its fast tests."""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, special, stats

from passk_lab._permutation import permutation_test

STUDY = Path(__file__).resolve().parents[1] / "study" / "leaderboard_coverage.py"


def _study():
    """Import study/leaderboard_coverage.py (a script, not a package module) once."""
    if "leaderboard_study" not in sys.modules:
        spec = importlib.util.spec_from_file_location("leaderboard_study", STUDY)
        module = importlib.util.module_from_spec(spec)
        sys.modules["leaderboard_study"] = module
        spec.loader.exec_module(module)
    return sys.modules["leaderboard_study"]


def test_the_quick_study_writes_its_tables_and_holds_its_identities(tmp_path, capsys) -> None:
    study = _study()
    tables = study.main(["--quick", "--jobs", "1", "--seed", "3", "--out", str(tmp_path)])
    printed = capsys.readouterr()
    assert "## Leaderboard: simultaneous coverage" in printed.out
    assert "cells x 40 replicates in" in printed.err
    assert (tmp_path / "tables.md").read_text(encoding="utf-8") == printed.out.rstrip("\n") + "\n"
    for name, table in tables.items():
        written = pd.read_csv(tmp_path / f"{name}.csv")
        pd.testing.assert_frame_equal(written, table, check_dtype=False, atol=1e-9)
    coverage, fwer = tables["coverage"], tables["fwer"]
    cells = study.grid(quick=True)
    assert len(coverage) == sum(len(cell.ks) for cell in cells) * len(study.METHODS)
    assert coverage["coverage"].between(0, 1).all()
    expected_se = np.sqrt(coverage["coverage"] * (1 - coverage["coverage"]) / 40)
    np.testing.assert_allclose(coverage["coverage_se"], expected_se)
    assert (coverage["mean_width"] >= 0).all()
    # Holm's adjusted p-values are at least BH's, and BH's at least the raw ones
    errors = fwer.pivot_table(index=["index", "k"], columns="adjust", values="fwer")
    assert (errors["holm"] <= errors["bh"]).all()
    assert (errors["bh"] <= errors["none"]).all()
    # all agents tie at rank 1 in the complete null: an interval misses exactly when Holm
    # declares any pair, so the coverage is one less the family-wise error, data set by data set
    null = coverage[(coverage["config"] == "equal") & (coverage["method"] == "leaderboard")]
    holm = errors["holm"].loc[list(zip(null["index"], null["k"], strict=True))]
    np.testing.assert_allclose(null["coverage"], 1 - holm.to_numpy())


def test_a_cell_repeats_alone_from_the_seed_and_its_index() -> None:
    study = _study()
    cell = study.grid(quick=True)[1]
    first = study.run_cell(cell, 5, 50, 0, 11)
    again = study.run_cell(cell, 5, 50, 0, 11)
    other = study.run_cell(cell, 5, 50, 0, 12)
    for name in ("coverage", "fwer"):
        pd.testing.assert_frame_equal(pd.DataFrame(first[name]), pd.DataFrame(again[name]))
    widths = [row["mean_width"] for row in first["coverage"]]
    assert widths != [row["mean_width"] for row in other["coverage"]]


@pytest.mark.parametrize(("runs", "k"), [((5,), 1), ((5,), 5), ((3, 5), 1), ((3, 5), 3)])
def test_the_vectorised_tests_are_the_librarys(runs, k) -> None:
    study = _study()
    rng = np.random.default_rng(len(runs) * 10 + k)
    tasks, agents = 30, 4
    n = rng.choice(runs, size=(tasks, agents))
    c = rng.binomial(n, rng.uniform(0.2, 0.9, size=(tasks, 1)))
    pairs = study.all_pairs(agents)
    mine = study.pair_p_values(n, c, k, pairs)
    theirs = [
        permutation_test(
            n[:, a], c[:, a], n[:, b], c[:, b], k, "pass_pow_k", n_resamples=1, rng=rng
        ).p_value
        for a, b in pairs
    ]
    np.testing.assert_allclose(mine, theirs, atol=1e-12)
    assert (mine < 1).any()


def test_a_mismatch_with_the_library_is_caught() -> None:
    study = _study()
    cell = study.grid(quick=True)[0]
    rng = np.random.default_rng(0)
    n = study.runs_per_task(cell)
    c = study.simulate(cell, n, rng)
    found = study.evaluate(n, c, cell, 20, rng)
    study.check_against_library(n, c, cell, found, check_pairwise=False)
    low, high, group = found["limits"][0]["leaderboard"]
    found["limits"][0]["leaderboard"] = (low, high + 1, group)
    with pytest.raises(AssertionError, match="rank_high differs"):
        study.check_against_library(n, c, cell, found, check_pairwise=False)


def test_the_truths_are_the_population_means_and_ties_share_the_better_rank() -> None:
    study = _study()
    cell = study.Cell(0, 5, 40, "clusters", 1.5, 0.5, "5 runs", (1, 5))
    values = study.true_values(cell)
    law = stats.norm(0, np.hypot(1.5, 0.5))
    for row, k in enumerate(cell.ks):
        for offset, value in zip(study.offsets("clusters", 5), values[row], strict=True):
            exact = integrate.quad(
                lambda z, k=k, m=offset: special.expit(z + m) ** k * law.pdf(z), -12, 12
            )[0]
            assert value == pytest.approx(exact, rel=1e-9)
    # three agents at +0.5 share rank 1, the two at -0.5 rank 4; one leader, then four tied
    assert study.ranks_of(values).tolist() == [[1, 1, 1, 4, 4]] * 2
    leader = study.true_values(study.Cell(0, 5, 40, "leader", 0.5, 0.0, "5 runs", (1,)))
    assert study.ranks_of(leader).tolist() == [[1, 2, 2, 2, 2]]


def test_unequal_runs_give_every_second_agent_3_runs_on_a_third_of_the_tasks() -> None:
    study = _study()
    n = study.runs_per_task(study.Cell(0, 4, 30, "equal", 1.5, 0.0, "3 or 5 runs", (1, 3)))
    assert n[:10, 1::2].tolist() == [[3, 3]] * 10
    assert (n[10:] == 5).all()
    assert (n[:, ::2] == 5).all()
