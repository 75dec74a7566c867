"""One log line per call, written once the call has ended, with its real outcome."""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import grpc

from ddcards.server import calllog
from ddcards.server.interceptors._handlers import Behavior, CallContext, Wrapper, log, peer, wrap_handler
from ddcards.server.interceptors.deadlines import StopClock, call_budget, ended_status

if TYPE_CHECKING:
    from ddcards.server.interceptors._handlers import Continuation, Handler, Request, Response


class _PendingLine:
    """The log line of one call, written once both the handler has finished and the call
    has terminated (its status sent, or the client gone): off the call's latency path,
    and with the call's real outcome."""

    __slots__ = ("record", "context", "peer", "started", "budget", "stop", "level", "logger", "lock", "waiting",
                 "outcome", "ended_early", "handler_end", "answers_later", "end_sent")

    def __init__(self, record: calllog.CallRecord, context: CallContext, level: int,
                 logger: logging.Logger, stop: StopClock | None = None):
        self.record = record
        self.stop = stop
        self.context = context
        self.peer = peer(context)      # read now: once the call has ended (a deadline) it may be ""
        self.level = level
        self.logger = logger
        self.started = time.perf_counter()
        self.budget = call_budget(context)
        self.lock = threading.Lock()
        self.waiting = 2            # the handler, and the call's termination
        self.outcome: str | None = None
        self.ended_early = False
        self.handler_end = 0.0
        # A non-blocking handler (Health/Watch) returns at once and ends its call later, through
        # its send callback: its call is OK only if it sent that end (``end_sent``).
        self.answers_later = False
        self.end_sent = False
        if not context.add_callback(self.terminated):
            self.terminated()

    def handler_done(self, outcome: str | None) -> None:
        """``outcome``: None if the handler returned normally, else the status it ended with."""
        self.outcome = outcome
        self.handler_end = time.monotonic()
        self._arrive()

    def terminated(self) -> None:
        with self.lock:
            self.ended_early = self.waiting == 2  # the call ended while the handler still ran
        self._arrive()

    def _arrive(self) -> None:
        with self.lock:
            self.waiting -= 1
            if self.waiting:
                return
        try:
            self._emit()
        except Exception:  # noqa: BLE001 - logging must never fail a call
            pass

    def _status(self) -> str:
        if self.outcome is not None:
            return self.outcome
        if self.stop is not None and self.stop.cancelled(self.handler_end):
            # The handler returned after the server's stop cancelled every call (a stream whose
            # request iterator grpc ended first looks finished): no OK could reach its client.
            return grpc.StatusCode.UNAVAILABLE.name
        code = self.context.code()
        if code is not None:
            return getattr(code, "name", str(code))
        if self.ended_early:  # returned normally, but the client had gone: it never got the answer
            return self.ended_status()
        if self.answers_later and not self.end_sent:    # the call ended before its handler ended it
            return self.ended_status()
        return "OK"

    def ended_status(self) -> str:
        """The status of a call that ended under its handler (see `ended_status`)."""
        return ended_status(self.context, self.budget, self.stop).name

    def _emit(self) -> None:
        record = self.record
        duration_ms = (time.perf_counter() - self.started) * 1000.0
        items = f" items={record.items}" if record.items or record.stream else ""
        self.logger.log(self.level, "rpc method=%s game=%s status=%s duration_ms=%.2f nodes=%d%s peer=%s",
                        record.method, record.game_text(), self._status(), duration_ms, record.nodes, items,
                        calllog.log_field(self.peer or peer(self.context)))


class LoggingInterceptor(grpc.ServerInterceptor):
    """One log line per RPC: ``method game status duration nodes``.

    The line is written when the call has ended (after its response went out),
    so logging adds nothing to a call's latency; ``duration_ms`` runs from the
    handler's start to the call's end. Methods of ``quiet_prefixes`` (health
    checks, reflection) log at DEBUG. Fields that come from the client (the
    game) are escaped and cut, so no input can forge or flood a log line.
    """

    def __init__(self, logger: logging.Logger = log,
                 quiet_prefixes: tuple[str, ...] = ("/grpc.health.", "/grpc.reflection."),
                 stop: StopClock | None = None):
        self._log = logger
        self._quiet = quiet_prefixes
        self._stop = stop

    def intercept_service(self, continuation: Continuation[Request, Response],
                          handler_call_details: grpc.HandlerCallDetails) -> Handler[Request, Response] | None:
        handler = continuation(handler_call_details)
        full = handler_call_details.method or "?"
        level = logging.DEBUG if full.startswith(self._quiet) else logging.INFO
        if not self._log.isEnabledFor(level):
            return handler
        if handler is None:
            # No such method: gRPC answered UNIMPLEMENTED itself and the log had no line of it (a
            # client built from another .proto called in vain, unseen). Its line names the whole
            # path, the service too.
            return wrap_handler(_unknown_method(), self._unary(calllog.log_field(full), level),
                                self._streaming(calllog.log_field(full), level))
        method = calllog.log_field(full.rsplit("/", 1)[-1])
        if getattr(handler.unary_stream, "experimental_non_blocking", False):
            return self._non_blocking(handler, method, level)
        return wrap_handler(handler, self._unary(method, level), self._streaming(method, level))

    def _non_blocking(self, handler: grpc.RpcMethodHandler[Any, Any], method: str,
                      level: int) -> grpc.RpcMethodHandler[Any, Any]:
        """A non-blocking handler's line (Health/Watch): its call ends after the handler has
        returned, OK only if the handler sent the stream's end; else as the call ended (the
        client's cancel, its deadline, the server's stop)."""
        inner: Callable[..., Any] | None = handler.unary_stream     # (grpc calls it with a callback too)
        assert inner is not None

        def behavior(request: Any, context: CallContext, send_response_callback: Callable[[Any], None]) -> Any:
            record = calllog.CallRecord(method)
            line = _PendingLine(record, context, level, self._log, self._stop)
            line.answers_later = True

            def send(response: Any) -> None:
                if response is None and context.is_active():
                    line.end_sent = True        # (before the end goes out: the line waits for the call's end)
                send_response_callback(response)

            return _handled(record, line, context, lambda: inner(request, context, send))

        behavior.experimental_non_blocking = True  # type: ignore[attr-defined]
        behavior.experimental_thread_pool = getattr(inner, "experimental_thread_pool", None)  # type: ignore[attr-defined]
        return grpc.unary_stream_rpc_method_handler(behavior, request_deserializer=handler.request_deserializer,
                                                    response_serializer=handler.response_serializer)

    def _unary(self, method: str, level: int) -> Wrapper:
        def wrap(behavior: Behavior) -> Behavior:
            def wrapped(request: Any, context: CallContext) -> Any:
                record = calllog.CallRecord(method)
                line = _PendingLine(record, context, level, self._log, self._stop)
                return _handled(record, line, context, lambda: behavior(request, context))

            return wrapped

        return wrap

    def _streaming(self, method: str, level: int) -> Wrapper:
        def wrap(behavior: Behavior) -> Behavior:
            def wrapped(request: Any, context: CallContext) -> Iterator[Any]:
                record = calllog.CallRecord(method, stream=True)
                line = _PendingLine(record, context, level, self._log, self._stop)
                outcome: str | None = "UNKNOWN"
                iterator: Any = None
                try:
                    previous = calllog.activate(record)
                    try:
                        iterator = iter(behavior(request, context))
                    finally:
                        calllog.activate(previous)
                    while True:
                        previous = calllog.activate(record)
                        try:
                            response = next(iterator)
                        except StopIteration:
                            # A stream whose call ended under it (the server's stop cancelled
                            # it, say) ends its generator too: its client heard no OK.
                            outcome = None if context.is_active() else line.ended_status()
                            return
                        finally:
                            calllog.activate(previous)
                        yield response
                except GeneratorExit:  # grpc dropped the stream: the client went away
                    outcome = line.ended_status()
                    close = getattr(iterator, "close", None)
                    if close is not None:
                        previous = calllog.activate(record)     # what the handler notes as it stops counts
                        try:
                            close()
                        finally:
                            calllog.activate(previous)
                    raise
                except BaseException:
                    outcome = _status_name(context, "UNKNOWN")
                    raise
                finally:
                    line.handler_done(outcome)

            return wrapped

        return wrap


def _unknown_method() -> grpc.RpcMethodHandler[Any, Any]:
    """A handler that answers UNIMPLEMENTED as gRPC does for a method it does not know, for a call of
    any kind: it reads none of the requests (their bytes are never parsed)."""
    def unimplemented(requests: Iterator[Any], context: CallContext) -> Any:
        context.abort(grpc.StatusCode.UNIMPLEMENTED, "Method not found!")

    return grpc.stream_unary_rpc_method_handler(unimplemented)


def _handled(record: calllog.CallRecord, line: _PendingLine, context: CallContext, handler: Callable[[], Any]) -> Any:
    """Run a handler that answers once (a unary one, or a non-blocking one that returns at once)
    with ``record`` the thread's current record, and tell ``line`` how it ended."""
    previous = calllog.activate(record)
    outcome: str | None = "UNKNOWN"
    try:
        response = handler()
        outcome = None
        return response
    except BaseException:
        outcome = _status_name(context, "UNKNOWN")
        raise
    finally:
        calllog.activate(previous)
        line.handler_done(outcome)


def _status_name(context: CallContext, default: str) -> str:
    code = context.code()
    if code is None:
        return default
    return getattr(code, "name", str(code))
