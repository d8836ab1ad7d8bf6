"""Result tables as files, and whole reports.

A result table -- a reliability curve, a comparison, a plan -- goes out in
the format its file name ends in: CSV and Parquet keep the library's column
names and every digit; Markdown, LaTeX and HTML get the labels a reader knows
(pass^k, pass@k, one ``95% CI`` column per interval) and rounded numbers.
Each carries the metadata its table records (tasks, runs per task,
confidence level, interval method, error policy), the version and the date.

* :func:`export` writes one table; :func:`labelled` and :func:`metadata` are
  what it shows; :func:`to_markdown`, :func:`to_latex` and :func:`to_html`
  render any DataFrame;
* :func:`write_report` writes every table, every plot and one self-contained
  ``report.html`` from a runs table, a tally or a Dask DataFrame. It alone
  imports matplotlib, and only when called.

Examples
--------
>>> import passk_lab as pk
>>> curve = pk.reliability_curve(pk.simulate_coin(seed=42), [5])
>>> print(to_markdown(labelled(curve)[["k", "pass^k", "pass^k 95% CI", "interval"]], digits=3))
| k | pass^k | pass^k 95% CI  | interval        |
|--:|-------:|----------------|-----------------|
| 5 |  0.450 | [0.293, 0.615] | clopper_pearson |
"""

from passk_lab.report._page import write_report
from passk_lab.report._render import to_html, to_latex, to_markdown
from passk_lab.report._tables import export, labelled, metadata

__all__ = ["export", "labelled", "metadata", "to_html", "to_latex", "to_markdown", "write_report"]
