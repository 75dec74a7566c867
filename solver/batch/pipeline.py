"""Bounded in-flight work: items read on one thread, run on an executor, outcomes in completion order.

The one dispatch path of ddcards' batches: :func:`ddcards.solve_many` (and through it
``ddcards batch``, locally or on Dask) and the gRPC ``SolveStream`` all run their work
through a :class:`Pipeline`.

- A reader thread takes items from the source as long as fewer than ``window`` items are
  *between* being taken and having their outcome taken by the consumer.  That is the
  back-pressure: a slow consumer (a client that does not read its responses, a full disk)
  stops the reading, and with it the work, after ``window`` items — the outcomes waiting
  for it never pile up.
- A source that blocks (a gRPC request stream, a generator reading a socket) never holds
  back outcomes that are ready: the consumer waits on the outcomes, not on the source.
- An item is a :class:`Work`: a callable to run on the executor, or an outcome known
  already (an item that failed validation), which takes its turn like any other.
"""
from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, InvalidStateError
from dataclasses import dataclass
from functools import partial
from typing import Any, cast

__all__ = ["Work", "Done", "Pipeline", "END"]


@dataclass(frozen=True, slots=True)
class Work:
    """One item: ``run()`` on the executor, or (``run`` None) the outcome given here."""

    tag: Any
    run: Callable[[], Any] | None = None
    result: Any = None
    error: BaseException | None = None


@dataclass(frozen=True, slots=True)
class Done:
    """The outcome of one item: what ``run()`` returned, or what it raised."""

    tag: Any
    result: Any = None
    error: BaseException | None = None


class _End:
    def __repr__(self) -> str:
        return "END"


#: What :meth:`Pipeline.get` returns once the source is exhausted and every outcome was taken.
END: Any = _End()
_SOURCE_DONE = object()


class Pipeline:
    """Run the items of `source` with `submit`, at most `window` outstanding at once.

    `submit(fn)` starts ``fn()`` and returns a ``concurrent.futures.Future`` (an
    executor's ``submit``; a Dask client's executor gives the same).  Take the outcomes
    with :meth:`get` or by iterating; :meth:`close` stops everything (call it when done,
    also on errors: ``with Pipeline(...) as pipe``).  An exception raised by the source
    ends the reading; it is kept in :attr:`source_error` for the consumer to re-raise or
    log, and the items read before it still complete.
    """

    def __init__(self, source: Iterable[Work], submit: Callable[[Callable[[], Any]], Future[Any]], window: int,
                 *, name: str = "ddcards-batch-reader"):
        if window < 1:
            raise ValueError(f"window must be at least 1, not {window}")
        self.window = window
        self.source_error: BaseException | None = None
        self._source = source
        self._submit = submit
        self._slots = threading.Semaphore(window)
        self._outbox: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._futures: set[Future[Any]] = set()
        self._outstanding = 0            # taken from the source, outcome not yet taken by the consumer
        self._reading = True
        self._stop = threading.Event()
        self._reader = threading.Thread(target=self._read, name=name, daemon=True)
        self._reader.start()

    # ------------------------------------------------------------ the reader thread

    def _read(self) -> None:
        try:
            for item in self._source:
                while not self._slots.acquire(timeout=0.1):
                    if self._stop.is_set():
                        return
                if self._stop.is_set():
                    self._slots.release()
                    return
                with self._lock:
                    self._outstanding += 1
                if item.run is None:
                    self._outbox.put(Done(item.tag, item.result, item.error))
                    continue
                try:
                    future = self._submit(item.run)
                except BaseException as exc:      # noqa: BLE001 - the executor refused it: its outcome
                    self._outbox.put(Done(item.tag, error=exc))
                    continue
                with self._lock:
                    self._futures.add(future)
                future.add_done_callback(partial(self._finish, item.tag))
        except BaseException as exc:              # noqa: BLE001 - kept for the consumer (source_error)
            self.source_error = exc
        finally:
            self._outbox.put(_SOURCE_DONE)

    def _finish(self, tag: Any, future: Future[Any]) -> None:
        # The outcome is queued before the future leaves the in-flight set.
        try:
            self._outbox.put(Done(tag, result=future.result()))
        except BaseException as exc:              # noqa: BLE001 - the item's own outcome (CancelledError too)
            self._outbox.put(Done(tag, error=exc))
        with self._lock:
            self._futures.discard(future)

    # ------------------------------------------------------------ the consumer

    @property
    def outstanding(self) -> int:
        """Items taken from the source whose outcome the consumer has not taken yet."""
        with self._lock:
            return self._outstanding

    @property
    def reading(self) -> bool:
        """Is the source still being read (as far as the consumer has seen)?"""
        return self._reading

    @property
    def stopped(self) -> bool:
        """Was :meth:`close` called?"""
        return self._stop.is_set()

    def get(self, timeout: float | None = None) -> Done | None:
        """The next outcome; None if `timeout` seconds pass first; :data:`END` when all are taken
        (typed as a Done: compare with ``is END``)."""
        while True:
            with self._lock:
                if not self._reading and self._outstanding == 0:
                    return cast(Done, END)
            try:
                done = self._outbox.get(timeout=timeout)
            except queue.Empty:
                return None
            if done is _SOURCE_DONE:
                self._reading = False
                continue
            with self._lock:
                self._outstanding -= 1
            self._slots.release()
            return cast(Done, done)

    def __iter__(self) -> Iterator[Done]:
        while (done := self.get()) is not END:
            assert done is not None
            yield done

    def close(self) -> None:
        """Stop reading, cancel what has not started (running work is the caller's to stop)."""
        self._stop.set()
        with self._lock:
            pending = list(self._futures)
        for future in pending:
            future.cancel()

    def abandon(self, error: BaseException) -> None:
        """Stop reading and fail every outstanding item with `error`, without asking the executor
        (one that is gone, such as a Dask client that lost its scheduler, leaves its futures
        pending for ever, and cancelling them would ask it again)."""
        self._stop.set()
        with self._lock:
            pending = list(self._futures)
        for future in pending:
            try:
                future.set_exception(error)
            except InvalidStateError:       # it finished meanwhile: its own outcome stands
                pass

    def __enter__(self) -> Pipeline:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
