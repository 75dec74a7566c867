"""Streams that hold their place: a cap on the open streams of each method, request
streams that go idle, and response streams whose client takes nothing."""
from __future__ import annotations

import queue
import threading
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

import grpc

from ddcards.server.interceptors._handlers import Behavior, CallContext, wrap_handler
from ddcards.server.status import StreamIdle, TooManyStreams

if TYPE_CHECKING:
    from ddcards.server.interceptors._handlers import Continuation, Handler, Request, Response


class StreamLimitInterceptor(grpc.ServerInterceptor):
    """At most ``max_streams`` open streams per streaming method (more get
    RESOURCE_EXHAUSTED, reason TOO_MANY_STREAMS, with a RetryInfo), and request
    streams that send nothing for ``idle_timeout`` seconds are closed
    (UNAVAILABLE, reason STREAM_IDLE). ``self_timed`` methods (SolveStream, which
    is not idle while it searches) time themselves out."""

    def __init__(self, max_streams: int, idle_timeout: float | None,
                 self_timed: Iterable[str] = ()):
        if max_streams < 1:
            raise ValueError("max_streams must be >= 1")
        self.max_streams = max_streams
        self.idle_timeout = idle_timeout
        self._self_timed = frozenset(self_timed)
        self._lock = threading.Lock()
        self._open: Counter[str] = Counter()

    def open_streams(self, method: str) -> int:
        with self._lock:
            return self._open[method]

    def intercept_service(self, continuation: Continuation[Request, Response],
                          handler_call_details: grpc.HandlerCallDetails) -> Handler[Request, Response] | None:
        handler = continuation(handler_call_details)
        if handler is None or not (handler.request_streaming or handler.response_streaming):
            return handler
        method = handler_call_details.method or "?"
        idle = None if method in self._self_timed else self.idle_timeout
        request_idle = idle if handler.request_streaming else None     # None: the requests are not limited

        def admit(context: grpc.ServicerContext) -> None:
            with self._lock:
                if self._open[method] >= self.max_streams:
                    raise TooManyStreams(
                        f"{self._open[method]} {method.rsplit('/', 1)[-1]} streams are open, the server's limit: "
                        "close one or retry later", retry_after=1.0,
                        metadata={"method": method, "limit": str(self.max_streams)})
                self._open[method] += 1
            if not context.add_callback(lambda: self._leave(method)):
                self._leave(method)

        def unary(behavior: Behavior) -> Behavior:
            def wrapped(request: Any, context: CallContext) -> Any:
                admit(context)
                if request_idle is not None:
                    request = IdleLimited(request, request_idle, what="request", context=context)
                return behavior(request, context)

            return wrapped

        def streaming(behavior: Behavior) -> Behavior:
            def wrapped(request: Any, context: CallContext) -> Iterator[Any]:
                admit(context)
                if request_idle is not None:
                    request = IdleLimited(request, request_idle, what="request", context=context)
                yield from behavior(request, context)

            return wrapped

        return wrap_handler(handler, unary, streaming)

    def _leave(self, method: str) -> None:
        with self._lock:
            self._open[method] -= 1


class IdleLimited:
    """An iterator over ``source`` that raises :class:`StreamIdle` when no item comes
    for ``idle`` seconds. A daemon thread reads ``source`` (grpc's request iterator
    blocks), one item each time this iterator is asked for the next, never further ahead:
    a client that sends requests while the answers wait for it (it reads none) has them wait
    in its own HTTP/2 window, not in the server's memory (read ahead into a queue, they did).
    The thread ends when the call ends: grpc's iterator raises, or, while it waits to be
    asked, ``context``'s end (`close`) wakes it."""

    _END = object()

    def __init__(self, source: Iterator[Any], idle: float, *, what: str = "item",
                 context: grpc.ServicerContext | None = None):
        self._idle = idle
        self._what = what
        self._items: queue.SimpleQueue[tuple[Any, BaseException | None]] = queue.SimpleQueue()
        self._wanted = threading.Semaphore(0)   # released once per item asked for (and by close)
        self._asked = False                     # an item asked for has not come yet
        self._closed = False
        threading.Thread(target=self._pump, args=(iter(source),), name="ddcards-idle-pump", daemon=True).start()
        if context is not None and not context.add_callback(self.close):
            self.close()                        # the call has ended already

    def close(self) -> None:
        """The call has ended: the thread reads no more (its wait to be asked ends)."""
        self._closed = True
        self._wanted.release()

    def _pump(self, source: Iterator[Any]) -> None:
        try:
            while True:
                self._wanted.acquire()
                if self._closed:
                    # The call ended before this thread woke: a reader may be waiting for the
                    # item it asked for, which will never come (it waited out the idle timeout,
                    # 60 s by default, holding its handler thread and its stream's place).
                    self._items.put((self._END, None))
                    return
                try:
                    item = next(source)
                except StopIteration:
                    break
                self._items.put((item, None))
        except BaseException as exc:  # noqa: BLE001 - handed to the reader
            self._items.put((self._END, exc))
            return
        self._items.put((self._END, None))

    def __iter__(self) -> IdleLimited:
        return self

    def __next__(self) -> Any:
        if not self._asked:     # (after an idle timeout the item asked for is still to come)
            self._asked = True
            self._wanted.release()
        try:
            item, error = self._items.get(timeout=self._idle)
        except queue.Empty:
            raise StreamIdle(f"no {self._what} for {self._idle:g} s: the server closed the idle stream; "
                             "open a new one when there is work", retry_after=0.0,
                             metadata={"idle_timeout_seconds": f"{self._idle:g}"}) from None
        self._asked = False
        if item is self._END:
            self._items.put((self._END, error))  # every later next() ends the same way
            if error is not None:
                raise error
            raise StopIteration
        return item


class StallWatch:
    """Closes a stream whose client takes no response for `idle` seconds.

    grpc writes a stream's responses as the client's HTTP/2 window allows: a client that
    stops reading (but keeps its connection) leaves the next write waiting for ever, the
    stream's slot (--max-streams) held, and no code of the stream runs to notice.  A thread
    looks at the write under way and cancels the call when it has waited `idle` seconds (the
    client sees the stream end; a stream's searches stop with it).  None: no watch.  SolveStream,
    AnalysePlayStream and reflection streams each keep one around their writes."""

    def __init__(self, context: grpc.ServicerContext, idle: float | None):
        self._context, self._idle = context, idle
        self._since: float | None = None       # when the write under way began
        self._done = threading.Event()
        self.fired = False
        if idle is not None:
            threading.Thread(target=self._watch, name="ddcards-stream-stall", daemon=True).start()

    def writing(self) -> None:
        self._since = time.monotonic()

    def written(self) -> None:
        self._since = None

    def stop(self) -> None:
        self._done.set()

    def _watch(self) -> None:
        assert self._idle is not None
        while not self._done.wait(min(1.0, self._idle / 2)):
            since = self._since
            if since is not None and time.monotonic() - since > self._idle:
                self.fired = True
                self._context.cancel()
                return
