"""Calls that wait on their client: for their request message to come, or for their answer
to go out. Each wait is bounded in time and in the number of calls waiting at once, so that
clients that send or take nothing can hold neither the pool's threads nor the server's memory."""
from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import grpc

from ddcards.server import calllog
from ddcards.server.interceptors._handlers import log, peer

if TYPE_CHECKING:
    from ddcards.server.interceptors._handlers import Continuation, Handler, Request, Response


# ---------------------------------------------------------------- waiting for a request

_Since = TypeVar("_Since", "_Waiter", "_Answer")


def _longest_waiting(waiting: OrderedDict[int, _Since], age: float, keep: int) -> list[_Since]:
    """Take out of ``waiting`` (the longest-waiting first, each with its ``since``) those that
    have waited over ``age`` seconds, the longest first, until at most ``keep`` are left."""
    now, taken = time.monotonic(), []
    for key, entry in list(waiting.items()):
        if len(waiting) <= keep or now - entry.since <= age:
            break
        del waiting[key]
        taken.append(entry)
    return taken


class _Waits(Generic[_Since]):
    """What the two waits share: the calls waiting, the longest-waiting first, under a lock, and
    a reaper thread, started as the first call comes, that cancels those waiting too long."""

    def __init__(self, max_waiting: int, grace: float, logger: logging.Logger, reaper_name: str):
        self.max_waiting = max_waiting
        self.grace = grace
        self._log = logger
        self._lock = threading.Lock()
        self._waiting: OrderedDict[int, _Since] = OrderedDict()     # the longest-waiting first
        self._reaper: threading.Thread | None = None
        self._reaper_name = reaper_name

    def waiting(self) -> int:
        """Calls waiting now (for their request message, or for their answer to go out)."""
        with self._lock:
            return len(self._waiting)

    def _start_reaper(self) -> None:
        """Start the reaper unless it runs (under the lock; it clears ``_reaper`` as it ends)."""
        if self._reaper is None:
            self._reaper = threading.Thread(target=self._reap, name=self._reaper_name, daemon=True)
            self._reaper.start()

    def _reap(self) -> None:
        raise NotImplementedError


class _Waiter:
    __slots__ = ("context", "since", "peer", "cancelled")

    def __init__(self, context: grpc.ServicerContext):
        self.context = context
        self.since = time.monotonic()
        self.peer = peer(context)          # read now: a cancelled call's peer reads ""
        self.cancelled: str | None = None     # why this interceptor cancelled the call


class RequestWaitInterceptor(_Waits[_Waiter], grpc.ServerInterceptor):
    """Bounds the wait for the request message of a method with a single request.

    grpc's sync server gives each call a thread of its pool and, for a single request,
    waits on that thread until the message has come: a client that sends a call's
    headers and never its message holds a thread for as long as it stays connected, and
    about a hundred such calls took every thread (health checks and Solve calls then
    timed out).  This interceptor, the outermost, serves those methods as request
    streams and reads the one message itself, keeping the calls still waiting in view:

    - a call whose message has not come within ``timeout`` seconds is cancelled;
    - at most ``max_waiting`` calls wait at once: beyond that, those that have waited
      longest, over ``grace`` seconds (far longer than a client that is sending takes),
      are cancelled, as soon as a call comes and at least every ``grace / 4`` seconds;
    - and never more than ``most`` (16 times ``max_waiting`` unless given): a call that comes
      when that many wait has the longest-waiting cancelled at once, whatever its age. The
      grace alone let silent calls that came faster than the pool's threads per grace hold
      every thread, each for the grace, and the calls queued behind them reach grpc's cap on
      calls in progress; so calls that never send hold at most ``most`` threads (the server's
      pool keeps that many spare), and a real call gets a thread however many never send, and
      however fast they come.

    A call's message comes with its headers or just after, so a real call waits microseconds on
    an idle server; but a burst of calls on a busy one waits for the GIL in turn (100 Health
    checks sent at once, on two cores with a load average of 5: up to 57 waiting together, for
    up to 60 ms; with two more threads of the server's process holding the GIL and a load of 6,
    over a quarter of a second; 100 Solve calls of 3.9 MB each, two other processes busy: some
    over a second).  So ``most`` is far above what a burst reaches (at 16, one call in six of
    such bursts was cancelled), no cap short of it cancels a call younger than the grace, and
    the server's grace is 5 s (at 1 s, up to one of those large calls in five was cancelled).
    grpc's non-blocking handlers (``Health/Watch``) are read the same way and stay non-blocking:
    once its message has come, the call holds no thread. (grpc's own wait for their message has
    no end: silent Watch calls held every thread it waited on for as long as they stayed open,
    and, queued behind those, counted toward grpc's cap on calls in progress until every other
    call was refused.)"""

    def __init__(self, timeout: float = 30.0, max_waiting: int = 8, grace: float = 5.0,
                 logger: logging.Logger = log, *, most: int | None = None):
        most = 16 * max_waiting if most is None else most
        if not timeout > 0 or max_waiting < 1 or not grace >= 0 or most < max_waiting:
            raise ValueError("timeout > 0, max_waiting >= 1, grace >= 0 and most >= max_waiting")
        super().__init__(max_waiting, grace, logger, "ddcards-request-wait")
        self.timeout = timeout
        self.most = most

    def intercept_service(self, continuation: Continuation[Request, Response],
                          handler_call_details: grpc.HandlerCallDetails) -> Handler[Request, Response] | None:
        handler = continuation(handler_call_details)
        if handler is None or handler.request_streaming:
            return handler
        method = calllog.log_field((handler_call_details.method or "?").rsplit("/", 1)[-1])
        request_deserializer, response_serializer = handler.request_deserializer, handler.response_serializer
        if handler.unary_unary:
            inner = handler.unary_unary

            def unary(requests: Iterator[Any], context: grpc.ServicerContext) -> Any:
                return inner(self._request(requests, context, method), context)

            return grpc.stream_unary_rpc_method_handler(unary, request_deserializer=request_deserializer,
                                                        response_serializer=response_serializer)
        if getattr(handler.unary_stream, "experimental_non_blocking", False):
            inner_callback: Callable[..., Any] | None = handler.unary_stream     # (called with a callback too)
            assert inner_callback is not None

            def non_blocking(requests: Iterator[Any], context: grpc.ServicerContext,
                             send_response_callback: Callable[[Any], None]) -> Any:
                return inner_callback(self._request(requests, context, method), context, send_response_callback)

            # On the server's own pool, as any call's wait here: bounded like theirs.
            non_blocking.experimental_non_blocking = True  # type: ignore[attr-defined]
            return grpc.stream_stream_rpc_method_handler(non_blocking, request_deserializer=request_deserializer,
                                                         response_serializer=response_serializer)
        inner_stream = handler.unary_stream
        assert inner_stream is not None     # a single request, not unary-unary: unary-stream

        def streaming(requests: Iterator[Any], context: grpc.ServicerContext) -> Iterator[Any]:
            yield from inner_stream(self._request(requests, context, method), context)

        return grpc.stream_stream_rpc_method_handler(streaming, request_deserializer=request_deserializer,
                                                     response_serializer=response_serializer)

    def _request(self, requests: Iterator[Any], context: grpc.ServicerContext, method: str) -> Any:
        """The call's one request message, or the call ends (context.abort)."""
        waiter = _Waiter(context)
        self._enter(waiter)
        try:
            request = next(requests)
        except StopIteration:
            request = None
        except grpc.RpcError:           # the call ended while it waited (cancelled, its deadline)
            request = None
        finally:
            self._leave(waiter)     # (out of view: nothing cancels it from here on)
        # A call cancelled here is over even if its message came as it was cancelled (a large
        # one arriving as the cap cut it): its handler must not run on the dead call, whose log
        # line then said only "the call ended before the search started", never why.
        if request is not None and waiter.cancelled is None:
            return request
        if waiter.cancelled is not None:
            self._log.info("rpc method=%s game=- status=CANCELLED duration_ms=%.2f nodes=0 peer=%s reason=%s",
                           method, (time.monotonic() - waiter.since) * 1000.0, calllog.log_field(waiter.peer),
                           waiter.cancelled)
            context.abort(grpc.StatusCode.CANCELLED, waiter.cancelled)
        if context.is_active():
            context.abort(grpc.StatusCode.UNIMPLEMENTED,
                          f"{method} takes exactly one request message; the call sent none")
        context.abort(grpc.StatusCode.CANCELLED, "the call ended before its request message came")

    def _enter(self, waiter: _Waiter) -> None:
        with self._lock:
            self._waiting[id(waiter)] = waiter
            self._cancel_over_the_cap()
            self._start_reaper()

    def _leave(self, waiter: _Waiter) -> None:
        with self._lock:
            self._waiting.pop(id(waiter), None)

    def _cancel_older_than(self, age: float, *, keep: int, why: str) -> None:
        """Cancel the waiters that have waited over ``age`` seconds, the longest first, until at
        most ``keep`` wait (under the lock)."""
        for waiter in _longest_waiting(self._waiting, age, keep):
            waiter.cancelled = why
            waiter.context.cancel()     # wakes its thread: grpc's request iterator ends

    def _cancel_over_the_cap(self) -> None:
        if len(self._waiting) > self.max_waiting:
            self._cancel_older_than(self.grace, keep=self.max_waiting,
                                    why=f"more than {self.max_waiting} calls were waiting for their request "
                                        "message; this one had waited longest")
        if len(self._waiting) > self.most:      # (whatever their age: each holds a thread)
            self._cancel_older_than(-1.0, keep=self.most,
                                    why=f"{self.most} calls were waiting for their request message, the most "
                                        "that may; this one had waited longest")

    def _reap(self) -> None:
        """Cancel the calls over the cap and those past the timeout; runs while any call waits.
        (The calls that never send take the pool's threads, so no new call may come to do it.)"""
        while True:
            time.sleep(min(self.grace, self.timeout) / 4 or 0.05)
            with self._lock:
                self._cancel_over_the_cap()
                self._cancel_older_than(self.timeout, keep=0,
                                        why=f"its request message did not come within {self.timeout:g} s")
                if not self._waiting:
                    self._reaper = None
                    return


# ---------------------------------------------------------------- waiting for an answer to go out

class _Answer:
    __slots__ = ("context", "method", "since", "ended")

    def __init__(self, context: grpc.ServicerContext, method: str):
        self.context = context
        self.method = method
        self.since = 0.0
        self.ended = False          # the call has ended (its answer went out, or it was cancelled)


class AnswerWaitInterceptor(_Waits[_Answer], grpc.ServerInterceptor):
    """Bounds how long a unary call's answer may wait to go out, and how many wait at once.

    grpc sends a unary call's response once its handler has returned, as the client's HTTP/2
    flow-control window lets it: a client that grants no window (or reads nothing) while it
    answers the keepalive pings leaves the response, and the call with it, in the server's
    memory for as long as it keeps its connection, holding no thread and under no cap (2,000
    ``Health/Check`` calls on one connection took 40 MB; a ``ListGames`` about 28 KB).  This
    interceptor keeps the answers not yet out in view:

    - an answer that has not gone out within ``timeout`` seconds cancels its call (None: no
      time limit of its own);
    - at most ``max_waiting`` wait at once: beyond that, those that have waited longest, over
      ``grace`` seconds (an answer goes out in milliseconds to a client that reads), are
      cancelled, as soon as another call answers and at least every ``grace / 4`` seconds.

    The client sees its stream reset (``CANCELLED``), as a stream's whose client takes no
    response; the call's log line says ``status=CANCELLED`` and a line says why."""

    LINGER = 5.0        # seconds the reaper stays with nothing waiting

    def __init__(self, timeout: float | None = 60.0, max_waiting: int = 64, grace: float = 1.0,
                 logger: logging.Logger = log):
        if (timeout is not None and not timeout > 0) or max_waiting < 1 or not grace > 0:
            raise ValueError("timeout > 0 (or None), max_waiting >= 1 and grace > 0")
        super().__init__(max_waiting, grace, logger, "ddcards-answer-wait")
        self.timeout = timeout

    def intercept_service(self, continuation: Continuation[Request, Response],
                          handler_call_details: grpc.HandlerCallDetails) -> Handler[Request, Response] | None:
        handler = continuation(handler_call_details)
        if handler is None or handler.unary_unary is None:
            return handler      # a stream's writes wait on its own thread: StallWatch
        inner = handler.unary_unary
        method = calllog.log_field((handler_call_details.method or "?").rsplit("/", 1)[-1])

        def unary(request: Any, context: grpc.ServicerContext) -> Any:
            answer = _Answer(context, method)
            if not context.add_callback(lambda: self._ended(answer)):
                answer.ended = True
            response = inner(request, context)
            self._expect(answer)        # gRPC sends it as this returns
            return response

        return grpc.unary_unary_rpc_method_handler(unary, request_deserializer=handler.request_deserializer,
                                                   response_serializer=handler.response_serializer)

    def _expect(self, answer: _Answer) -> None:
        with self._lock:
            if answer.ended:
                return
            answer.since = time.monotonic()
            self._waiting[id(answer)] = answer
            cancel = self._over_the_cap()
            self._start_reaper()
        self._cancel(cancel)

    def _ended(self, answer: _Answer) -> None:
        """The call has ended (gRPC's termination callback: nothing here waits)."""
        with self._lock:
            answer.ended = True
            self._waiting.pop(id(answer), None)

    def _older_than(self, age: float, keep: int, why: str) -> list[tuple[_Answer, str]]:
        """Take the answers that have waited over ``age`` seconds, the longest first, until at
        most ``keep`` wait (under the lock)."""
        return [(answer, why) for answer in _longest_waiting(self._waiting, age, keep)]

    def _over_the_cap(self) -> list[tuple[_Answer, str]]:
        if len(self._waiting) <= self.max_waiting:
            return []
        return self._older_than(self.grace, self.max_waiting,
                                f"more than {self.max_waiting} answers were waiting for their clients to take "
                                "them; this one had waited longest")

    def _cancel(self, answers: list[tuple[_Answer, str]]) -> None:
        for answer, why in answers:
            self._log.info("%s: the client took no answer (%s): the call was cancelled", answer.method, why)
            try:
                answer.context.set_code(grpc.StatusCode.CANCELLED)     # what its log line says
                answer.context.cancel()     # resets the stream: the answer goes, and the call
            except Exception:  # noqa: BLE001 - the call has ended meanwhile
                log.debug("cancelling a call whose answer waited failed", exc_info=True)

    def _reap(self) -> None:
        """Cancel the answers over the cap and those past the timeout; runs while any waits, and
        a few seconds more (not started anew for each call: calls come and go in milliseconds)."""
        period = min(self.grace, self.timeout or self.grace) / 4
        idle = 0
        while True:
            time.sleep(period)
            with self._lock:
                cancel = self._over_the_cap()
                if self.timeout is not None:
                    cancel += self._older_than(self.timeout, 0, f"for {self.timeout:g} s")
                idle = 0 if self._waiting else idle + 1
                done = idle * period >= self.LINGER
                if done:
                    self._reaper = None
            self._cancel(cancel)
            if done:
                return
