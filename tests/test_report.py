from __future__ import annotations

import numpy as np
import pandas as pd

from passk_lab.report import to_markdown


def test_markdown_aligns_numbers_right_text_left_and_leaves_missing_cells_empty():
    table = pd.DataFrame({"model": ["gpt|4o", "b"], "k": [1, 10], "pass_pow_k": [0.5, np.nan]})
    lines = to_markdown(table, digits=2).splitlines()
    assert lines == [
        "| model   |  k | pass_pow_k |",
        "|---------|---:|-----------:|",
        "| gpt\\|4o |  1 |       0.50 |",
        "| b       | 10 |            |",
    ]
