"""Batches of positions: on every core, resumable, and on a Dask cluster (docs/BATCH.md).

- :mod:`~ddcards.batch.reader`: the batch input formats (JSON Lines, or one JSON text over
  several lines), read as they arrive, a bad document an error of its own (``ddcards solve``,
  ``ddcards batch``);
- :mod:`~ddcards.batch.pipeline`: bounded in-flight work, outcomes in completion order (the
  one dispatch path of ``solve_many``, ``ddcards batch`` and the gRPC ``SolveStream``);
- :mod:`~ddcards.batch.many`: chunks of positions on threads, any executor or a Dask
  client (``ddcards.solve_many``);
- :mod:`~ddcards.batch.journal`: the output file as an append-only journal that a killed
  run resumes;
- :mod:`~ddcards.batch.job`: the ``ddcards batch`` job (order, duplicates, progress, summary);
- :mod:`~ddcards.batch.cluster`: a Dask client for ``--dask``;
- :mod:`~ddcards.batch.progress`, :mod:`~ddcards.batch.summary`: the progress bar and the
  closing figures, shared with ``ddcards solve``.
"""
from ddcards.batch.many import ExecutorFailure, Solved

__all__ = ["Solved", "ExecutorFailure"]
