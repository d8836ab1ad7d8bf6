"""The data core: the rules every run is judged by, the per-task tally and its (n, c) cells.

* :mod:`~passk_lab._data.names` -- a runs table's column names, the names
  other tools give them, and the one refusal of a table that lacks some;
* :mod:`~passk_lab._data.rules` -- what a call and a table must hold (the
  arguments, the kinds of table, columns, ids);
* :mod:`~passk_lab._data.verdicts` -- what each run means (the pass rule, the
  error rule, run numbers);
* :mod:`~passk_lab._data.units` -- rows split by (group..., task), repeated runs refused;
* :mod:`~passk_lab._data.mapping` -- a table of one's own column names made a
  runs table (``pk.runs``), and runs numbered in row order where a table has none;
* :mod:`~passk_lab._data.matrix` -- what an outcome matrix must hold, and its counts;
* :mod:`~passk_lab._data.tally` -- :class:`~passk_lab._data.tally.Tally`, from a
  runs table, an outcome matrix, a tally table, a Tally or (through
  :mod:`~passk_lab._data.dask`) a Dask DataFrame;
* :mod:`~passk_lab._data.grid` -- every run's verdict or state, tasks x runs, from one check;
* :mod:`~passk_lab._data.cells` -- the histogram of (n, c) pairs every statistic
  works on;
* :mod:`~passk_lab._data.costs` -- each task's mean cost per run.

Nothing here imports a statistic, a reader or a plot.
"""
