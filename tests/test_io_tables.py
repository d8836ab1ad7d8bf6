from __future__ import annotations

import pandas as pd
import pytest

import passk_lab as pk
from passk_lab.io import read_runs


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".ndjson", ".parquet", ".pq"])
def test_read_runs_reads_back_what_pandas_wrote(tmp_path, suffix):
    runs = pk.simulate_coin(tasks=6, k=3).assign(
        task=lambda frame: frame["task"].map("t{}".format),
        passed=lambda frame: frame["passed"] & (frame.index != 1),
        error=[None, "KeyError: 'x'"] + [None] * 16,
    )
    path = tmp_path / f"runs{suffix}"
    if suffix == ".csv":
        runs.to_csv(path, index=False)
    elif suffix in (".jsonl", ".ndjson"):
        runs.to_json(path, orient="records", lines=True)
    else:
        runs.to_parquet(path)
    back = read_runs(path)
    pd.testing.assert_frame_equal(pk.tally(back), pk.tally(runs))
    assert back["error"].notna().sum() == 1


def test_read_runs_refuses_unknown_formats_and_missing_files(tmp_path):
    with pytest.raises(ValueError, match=r"cannot tell the format of runs\.xlsx"):
        read_runs(tmp_path / "runs.xlsx")
    with pytest.raises(FileNotFoundError, match="no such runs file"):
        read_runs(tmp_path / "runs.csv")
