"""The data core: the rules every run is judged by, the per-task tally and its (n, c) cells.

* :mod:`~passk_lab._data.rules` -- what a call and a table must hold (the
  arguments, the kinds of table, columns, ids, messages);
* :mod:`~passk_lab._data.verdicts` -- what each run means (the pass rule, the
  error rule, run numbers);
* :mod:`~passk_lab._data.units` -- rows split by (group..., task), repeated runs found;
* :mod:`~passk_lab._data.tally` -- :class:`~passk_lab._data.tally.Tally`, from a
  runs table, an outcome matrix, a tally table or (through
  :mod:`~passk_lab._data.dask`) a Dask DataFrame;
* :mod:`~passk_lab._data.cells` -- the histogram of (n, c) pairs every statistic
  works on.

Nothing here imports a statistic, a reader or a plot.
"""
