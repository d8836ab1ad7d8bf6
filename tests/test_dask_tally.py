"""tally and the estimators on a Dask DataFrame, computed by a real distributed cluster."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import dask.dataframe as dd
import distributed
import numpy as np
import pandas as pd
import pytest

import passk_lab as pk


@pytest.fixture(scope="module")
def client() -> Iterator[object]:
    """Two worker processes, one thread each: the runs really travel between processes."""
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as connected,
    ):
        yield connected


def runs_log(seed: int = 0) -> pd.DataFrame:
    """Three models x 150 tasks with 1 to 8 runs each, errors of every kind, rows shuffled.

    Shuffling spreads every task's runs over many partitions, so no partition
    can count a task alone.
    """
    rng = np.random.default_rng(seed)
    parts = []
    for model, skill in [("alpha", 0.8), ("beta", 0.6), ("gamma", 0.3)]:
        n = rng.integers(1, 9, size=150)
        chance = rng.beta(skill * 4, (1 - skill) * 4, size=150)
        task = np.repeat([f"task-{i:03d}" for i in range(150)], n)
        runs = len(task)
        error = rng.choice(
            np.array([None, "RateLimitError: 429", "KeyError: 'x'"], dtype=object),
            size=runs,
            p=[0.9, 0.05, 0.05],
        )
        parts.append(
            pd.DataFrame(
                {
                    "model": model,
                    "task": task,
                    "run": np.concatenate([np.arange(count) for count in n]),
                    "passed": rng.random(runs) < np.repeat(chance, n),
                    "error": pd.array(error, dtype="str"),
                    "error_kind": pd.Categorical(
                        np.where(error == "KeyError: 'x'", "agent", "infrastructure"),
                        categories=pk.ERROR_KINDS,
                    ),
                    "timed_out": rng.random(runs) < 0.03,
                }
            )
        )
    runs = pd.concat(parts, ignore_index=True)
    runs.loc[runs["error"].notna() | runs["timed_out"], "passed"] = False
    return runs.sample(frac=1.0, random_state=seed).reset_index(drop=True)


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The log as a Parquet dataset: one folder per model, several files in each."""
    folder = tmp_path_factory.mktemp("runs") / "runs.parquet"
    dd.from_pandas(runs_log(), npartitions=6).to_parquet(folder, partition_on=["model"])
    return folder


@pytest.mark.slow
# Dask's Parquet reader still passes inplace= to pandas, which pandas 3.1 deprecates
@pytest.mark.filterwarnings("ignore:The inplace keyword in DataFrame:pandas.errors.Pandas4Warning")
@pytest.mark.filterwarnings("ignore:k = .* counts:RuntimeWarning")  # unequal runs, on purpose
@pytest.mark.parametrize("errors", ["fail", "exclude"])
def test_curve_from_a_parquet_dataset_on_a_cluster_equals_pandas(
    client: object, dataset: Path, errors: str
) -> None:
    runs = dd.read_parquet(dataset)
    assert runs.npartitions > 1
    in_memory = runs.compute()
    assert len(in_memory) == len(runs_log())
    expected = pk.reliability_curve(in_memory, by="model", errors=errors, rng=7)
    curve = pk.reliability_curve(runs, by="model", errors=errors, rng=7)
    pd.testing.assert_frame_equal(curve, expected, check_exact=True)
    assert curve.attrs == expected.attrs
    # the pandas reader of the same files gives the same figures (its model column is its own)
    read = pd.read_parquet(dataset)
    by_pandas = pk.reliability_curve(read, by="model", errors=errors, rng=7)
    measures = ["pass_pow_k", "pass_pow_k_low", "pass_pow_k_high", "pass_at_k", "n_tasks"]
    np.testing.assert_array_equal(curve[measures].to_numpy(), by_pandas[measures].to_numpy())


@pytest.mark.slow
def test_tally_on_a_cluster_equals_pandas_row_for_row(client: object) -> None:
    runs = dd.from_pandas(runs_log(seed=1), npartitions=7)
    log = runs.compute()  # Dask keeps text as its own string dtype; compare like with like
    for errors in ["fail", "exclude"]:
        pd.testing.assert_frame_equal(
            pk.tally(runs, by="model", errors=errors), pk.tally(log, by="model", errors=errors)
        )
    assert pk.pass_pow_k(runs, 3, by="model").equals(pk.pass_pow_k(log, 3, by="model"))
    beta = runs[runs["model"] == "beta"]
    assert pk.pass_at_k(beta, 2) == pk.pass_at_k(beta.compute(), 2)
    pd.testing.assert_frame_equal(pk.error_sensitivity(beta), pk.error_sensitivity(beta.compute()))


def small_log() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "task": ["a", "a", "b", "b", "c", "c"],
            "run": [0, 1, 0, 1, 0, 1],
            "reward": [1.0, 0.5, 0.9, 1.0, 0.0, 0.999_999_9],
        }
    )


def test_rewards_pass_by_the_same_threshold() -> None:
    runs = dd.from_pandas(small_log(), npartitions=3)
    log = runs.compute()
    for threshold in [1.0, 0.9, 0.5]:
        pd.testing.assert_frame_equal(
            pk.tally(runs, threshold=threshold), pk.tally(log, threshold=threshold)
        )


def test_a_tally_held_in_dask_is_read_as_a_tally() -> None:
    counts = pd.DataFrame({"task": ["a", "b"], "n": [4, 4], "c": [4, 1]})
    assert pk.pass_pow_k(dd.from_pandas(counts, npartitions=2), 2) == pk.pass_pow_k(counts, 2)


def test_a_run_repeated_across_partitions_is_refused_as_in_pandas() -> None:
    log = small_log()
    repeated = pd.concat([log, log.iloc[[2]]], ignore_index=True)
    with pytest.raises(ValueError, match="run") as in_pandas:
        pk.tally(repeated)
    with pytest.raises(ValueError, match="run") as in_dask:
        pk.tally(dd.from_pandas(repeated, npartitions=3))
    assert str(in_dask.value) == str(in_pandas.value)
    assert "run 0 of task='b' appears 2 times" in str(in_dask.value)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"task": ["a", None, "b", "b", "c", "c"]}, "task is missing in 1 row"),
        ({"run": [0, -1, 0, 1, 0, 1]}, "run must be >= 0"),
        ({"passed": ["yes", "no", "yes", "no", "yes", "no"]}, "passed must be boolean"),
        ({"reward": [1.0, np.nan, 1.0, 1.0, 0.0, 1.0]}, "reward is missing"),
    ],
)
def test_bad_runs_in_a_partition_are_refused(change: dict[str, list[object]], message: str) -> None:
    log = small_log().assign(**change)
    with pytest.raises(ValueError, match=message):
        pk.tally(dd.from_pandas(log, npartitions=2))


def test_missing_columns_are_named_before_anything_runs() -> None:
    runs = dd.from_pandas(small_log().drop(columns="reward"), npartitions=2)
    with pytest.raises(ValueError, match="no passed or reward column"):
        pk.tally(runs)
    with pytest.raises(ValueError, match="no column 'model', named in by"):
        pk.tally(dd.from_pandas(small_log(), npartitions=2), by="model")


def test_passed_and_errored_runs_warn_as_in_pandas() -> None:
    log = small_log().assign(error=[None, None, None, "Boom", None, None])
    runs = dd.from_pandas(log, npartitions=2)
    log = runs.compute()
    with pytest.warns(UserWarning, match="1 run") as caught:
        counted = pk.tally(runs)
    assert caught[0].filename == __file__
    with pytest.warns(UserWarning, match="1 run"):
        pd.testing.assert_frame_equal(counted, pk.tally(log))


def test_per_run_views_ask_for_the_runs_in_memory() -> None:
    runs = dd.from_pandas(small_log(), npartitions=2)
    with pytest.raises(TypeError, match=r"Dask DataFrame.*\.compute\(\)"):
        pk.outcome_matrix(runs)


@pytest.mark.parametrize("repeat", [None, 0, 31, 32, 63, 64, 199])
def test_many_runs_and_any_repeated_one_are_told_apart_as_in_pandas(repeat: int | None) -> None:
    # runs 0..199 span seven words of 32; a repeat of any run, in any word, is found
    rng = np.random.default_rng(0 if repeat is None else repeat)
    log = pd.DataFrame(
        {
            "task": np.repeat(["x", "y", "z"], 200),
            "run": np.tile(np.arange(200), 3),
            "passed": rng.random(600) < 0.5,
        }
    )
    if repeat is not None:
        copies = log[(log["task"] == "y") & (log["run"] == repeat)]
        log = pd.concat([log, copies, copies, copies], ignore_index=True)  # four of one run
    log = log.sample(frac=1.0, random_state=1).reset_index(drop=True)
    runs = dd.from_pandas(log, npartitions=5)
    if repeat is None:
        pd.testing.assert_frame_equal(pk.tally(runs), pk.tally(runs.compute()))
        return
    with pytest.raises(ValueError, match=f"run {repeat} of task='y' appears 4 times"):
        pk.tally(runs)


def test_runs_that_differ_in_one_word_only_are_not_repeats() -> None:
    # run 1 twice sums to the bit of run 2: the count of runs, not the sum alone, tells them apart
    twice = pd.DataFrame({"task": ["a"] * 3, "run": [1, 1, 3], "passed": [True] * 3})
    distinct = pd.DataFrame({"task": ["a"] * 3, "run": [1, 2, 3], "passed": [True] * 3})
    with pytest.raises(ValueError, match="run 1 of task='a' appears 2 times"):
        pk.tally(dd.from_pandas(twice, npartitions=2))
    assert pk.tally(dd.from_pandas(distinct, npartitions=2))["n"].tolist() == [3]


def test_a_runs_log_with_columns_named_n_and_c_is_counted_as_runs() -> None:
    # token counts named n and c: the log is still a runs table, by the rule pandas follows
    log = small_log().assign(n=[812, 640, 975, 1203, 388, 451], c=[3, 2, 9, 4, 1, 7])
    counted = pk.tally(dd.from_pandas(log, npartitions=2))
    assert counted[["n", "c"]].to_numpy().tolist() == [[2, 1], [2, 1], [2, 1]]  # 1.0, 1.0, 1 - 1e-7
    pd.testing.assert_frame_equal(counted, pk.tally(log), check_dtype=False)
    # a tally is a tally in both
    counts = pd.DataFrame({"task": ["a", "b"], "n": [4, 3], "c": [1, 3]})
    got = pk.tally(dd.from_pandas(counts, npartitions=2))
    pd.testing.assert_frame_equal(got, counts, check_dtype=False)
    with pytest.raises(ValueError, match="neither a runs table nor a tally"):
        pk.tally(dd.from_pandas(counts.drop(columns="c"), npartitions=2))
