"""Read runs from the files people already have.

* :func:`read_runs` -- a runs table as CSV, JSON Lines or Parquet, with a
  mapping for other column names;
* :func:`read_tau_bench` -- tau-bench results files;
* :func:`read_tau2` -- tau2-bench results, a JSON file or a ``results.json`` folder;
* :func:`read_harbor` -- Harbor job folders, one run per trial;
* :func:`read_hal` -- HAL (Holistic Agent Leaderboard) upload files, one run per task and file;
* :func:`read_lm_eval` -- lm-evaluation-harness sample logs (``--log_samples``);
* :func:`read_counts` -- tables of per-task counts (task, n, c), read as a tally;
* :func:`read_samples` -- per-task lists of verdicts (``raw_scored_generations``);
* :func:`read_inspect_log` -- Inspect AI eval logs (needs ``passk-lab[inspect]``);
* :func:`read` -- any of these, or the ledger :func:`passk_lab.evaluate` writes,
  the format detected by :func:`detect_format`; :data:`FORMATS` names them.

Each returns a runs table as :func:`passk_lab.tally` takes it, with the
source's own fields kept as extra columns.

Examples
--------
>>> import passk_lab as pk
>>> pk.io.FORMATS
('tau-bench', 'tau2', 'harbor', 'hal', 'samples', 'lm-eval', 'inspect', 'counts', 'table', 'ledger')
"""

from passk_lab.io._counts import read_counts
from passk_lab.io._formats import FORMATS, detect_format, read
from passk_lab.io._hal import read_hal
from passk_lab.io._harbor import read_harbor
from passk_lab.io._harbor_rewards import HARBOR_ERROR_KINDS
from passk_lab.io._inspect_logs import read_inspect_log
from passk_lab.io._lm_eval import read_lm_eval
from passk_lab.io._samples import read_samples
from passk_lab.io._tables import read_runs
from passk_lab.io._tau2 import TERMINATION_KINDS, read_tau2
from passk_lab.io._tau_bench import read_tau_bench

__all__ = [
    "FORMATS",
    "HARBOR_ERROR_KINDS",
    "TERMINATION_KINDS",
    "detect_format",
    "read",
    "read_counts",
    "read_hal",
    "read_harbor",
    "read_inspect_log",
    "read_lm_eval",
    "read_runs",
    "read_samples",
    "read_tau2",
    "read_tau_bench",
]
