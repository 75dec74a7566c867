"""Searches the command line runs in the foreground: Ctrl-C stops them, a ticker shows them.

Each search runs on one worker thread while the main thread waits in short slices: it takes
the KeyboardInterrupt, cancels the search through its CancelToken (polled every 256 nodes),
waits for it to stop and lets the interrupt go on. (A search on the main thread stops at
Ctrl-C too, as the core takes SIGINT while it runs, but the main thread would then have no
moment for the ticker.) While it waits, a search that has run for a second gets a one-line ticker on standard
error (elapsed time, nodes, rate, and where the search shares out the first moves, how many
are answered and the best value so far; in an analysis, how many of its actions are analysed),
shown as the progress bar is: on a terminal, or as asked.
"""
from __future__ import annotations

import sys
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Callable, TextIO, TypeVar

from ddcards._jsonio import printable
from ddcards.api import CancelToken, Solver
from ddcards.errors import SearchAborted

__all__ = ["Foreground"]

T = TypeVar("T")

DELAY = 1.0        # seconds before a search gets its ticker: short ones print nothing
SLICE = 0.25       # how often the main thread wakes: for Ctrl-C and the ticker


class Foreground:
    """Runs a command's searches, one at a time, on one worker thread (see the module)."""

    def __init__(self, solver: Solver, *, ticker: bool, stream: TextIO | None = None,
                 delay: float = DELAY, bounds: bool = True):
        self.solver = solver
        self.ticker = ticker
        # The ticker shows the search's bound on the value (progress_now) only where it is the
        # answer's: a DD table's or an analysis's searches are each of one row or one position.
        self.bounds = bounds
        self.stream = sys.stderr if stream is None else stream
        self.delay = delay
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ddcards-search")
        self._shown = False
        self._base = self._last = 0        # nodes of the run's earlier searches; the last reading
        # The ticker's line and what the search's thread prints (an analysis's rows, as they come)
        # take turns, so that a row never lands inside the ticker's line.
        self._screen = threading.Lock()
        # How far the last search that Ctrl-C stopped got (its SearchAborted), for a command that
        # keeps its work (a report's page of the actions analysed); None if Ctrl-C did not stop it.
        self.interrupted: SearchAborted | None = None

    def run(self, search: Callable[[CancelToken], T], *, tell_stop: bool = True,
            watch: Callable[[], None] | None = None) -> T:
        """`search(cancel)` on the worker; its answer, or its exception, here.  Ctrl-C stops it
        and goes on as KeyboardInterrupt, `interrupted` holding how far the search got, which
        stderr is told (unless `tell_stop` is False: the command tells it itself).  `watch` is
        called here each time the main thread wakes while the search runs (what it prints: by emit)."""
        cancel = CancelToken()
        self.interrupted = None
        self._base = self._last = 0
        future: Future[T] = self._pool.submit(search, cancel)
        start = time.monotonic()
        try:
            while True:
                try:
                    return future.result(timeout=SLICE)
                except FutureTimeout:
                    if watch is not None:
                        watch()
                    if self.ticker and time.monotonic() - start >= self.delay:
                        self._tick(time.monotonic() - start)
        except KeyboardInterrupt:
            cancel.cancel()
            stopped = future.exception()      # the search stops at its next poll
            if isinstance(stopped, SearchAborted):
                # how far it got, as a --timeout says it (the interrupt then ends the command)
                self._clear()
                self.interrupted = stopped
                if not tell_stop:
                    raise
                try:
                    print(printable(f"ddcards: stopped: {stopped}"), file=self.stream, flush=True)
                except (OSError, ValueError):   # an unwritable stderr: the exit status still says it
                    pass
            raise
        finally:
            self._clear()

    def emit(self, write: Callable[[], None]) -> None:
        """Run `write` (which prints, from any thread) with the ticker's line cleared first; the
        ticker comes back at its next tick."""
        with self._screen:
            self._clear_line()
            write()

    def close(self) -> None:
        self._pool.shutdown(wait=True)

    def __enter__(self) -> Foreground:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _tick(self, elapsed: float) -> None:
        # One call may run many searches (an analysis: one per action); nodes_now restarts with
        # each, so a reading below the last one means a new search began.
        now = self.solver.nodes_now
        if now < self._last:
            self._base += self._last
        self._last = now
        nodes = self._base + now
        minutes, seconds = divmod(int(elapsed), 60)
        hours, minutes = divmod(minutes, 60)
        clock = f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes}:{seconds:02d}"
        figures = f", {nodes / 1e6:,.1f} M nodes ({nodes / elapsed / 1e6:.1f} M/s)" if nodes else ""
        progress = self.solver.progress_now if self.bounds else None   # first moves answered, the best value
        if progress is not None:
            figures += f"; {progress}"
        analysis = self.solver.analysis_now                 # an analysis: its actions analysed so far
        if analysis is not None and analysis.actions:
            figures += f"; {analysis}"
            if analysis.value is not None:      # (found before the first step is: a long deal's minute)
                figures += f", value {analysis.value:+d} {analysis.value_where}"
        line = f"ddcards: searching {clock}{figures}; Ctrl-C stops"
        with self._screen:
            self._shown = True              # before the write: Ctrl-C may land in it, and the line is cleared
            self.stream.write("\r" + line + "\x1b[K")
            self.stream.flush()

    def _clear(self) -> None:
        with self._screen:
            self._clear_line()

    def _clear_line(self) -> None:
        if self._shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self._shown = False
