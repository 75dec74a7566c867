"""Cross-cutting concerns of the service, one interceptor each.

* :class:`ErrorInterceptor` maps exceptions escaping a handler to gRPC status
  codes: bad input (``DdcardsError``) -> INVALID_ARGUMENT with its message and
  the token/rule in trailing metadata; ``SearchTimeout`` -> DEADLINE_EXCEEDED;
  ``SearchCancelled`` -> CANCELLED; anything else -> INTERNAL (logged with its
  traceback; the server keeps serving).
* :class:`LoggingInterceptor` writes one line per RPC: method, game(s),
  duration, nodes searched, status.

Both wrap any handler kind (unary or streaming), so servicers stay free of
this code.
"""
from __future__ import annotations

import logging
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from typing import Any

import grpc

from ddcards.server import calllog
from ddcards.server.convert import error_message, error_to_status

log = logging.getLogger("ddcards.server")

_SAFE = "".join(chr(c) for c in range(0x21, 0x7F) if chr(c) != "%") + " "


def _metadata_text(text: str) -> str:
    """Metadata values must be printable ASCII: percent-encode the rest (UTF-8)."""
    return urllib.parse.quote(text, safe=_SAFE)


def _wrap(handler: grpc.RpcMethodHandler,
          unary: Callable[[Callable], Callable],
          streaming: Callable[[Callable], Callable]) -> grpc.RpcMethodHandler:
    """A copy of ``handler`` with its behaviour wrapped (``streaming`` for response streams)."""
    kwargs = dict(request_deserializer=handler.request_deserializer,
                  response_serializer=handler.response_serializer)
    if handler.unary_unary:
        return grpc.unary_unary_rpc_method_handler(unary(handler.unary_unary), **kwargs)
    if handler.stream_unary:
        return grpc.stream_unary_rpc_method_handler(unary(handler.stream_unary), **kwargs)
    if handler.unary_stream:
        return grpc.unary_stream_rpc_method_handler(streaming(handler.unary_stream), **kwargs)
    if handler.stream_stream:
        return grpc.stream_stream_rpc_method_handler(streaming(handler.stream_stream), **kwargs)
    return handler


def abort_for(exc: BaseException, context: grpc.ServicerContext) -> None:
    """Fail the RPC with the status code for ``exc`` (re-raises if the RPC already has a status)."""
    if context.code() is not None:  # the servicer (or grpc) already set the status
        raise exc
    code = error_to_status(exc)
    if code is grpc.StatusCode.INTERNAL:
        log.exception("unexpected error", exc_info=exc)
    elif code is grpc.StatusCode.INVALID_ARGUMENT:
        metadata = []
        token = getattr(exc, "token", None)
        rule = getattr(exc, "rule", None)
        if token is not None:
            metadata.append(("ddcards-token", _metadata_text(str(token))))
        if rule is not None:
            metadata.append(("ddcards-rule", _metadata_text(str(rule))))
        if metadata:
            context.set_trailing_metadata(tuple(metadata))
    context.abort(code, error_message(exc))


class ErrorInterceptor(grpc.ServerInterceptor):
    """Exceptions -> gRPC status codes (see module docstring)."""

    def intercept_service(self, continuation, handler_call_details):
        handler = continuation(handler_call_details)
        if handler is None:
            return None
        return _wrap(handler, self._unary, self._streaming)

    @staticmethod
    def _unary(behavior: Callable) -> Callable:
        def wrapped(request: Any, context: grpc.ServicerContext) -> Any:
            try:
                return behavior(request, context)
            except Exception as exc:  # noqa: BLE001 - mapped to a status
                abort_for(exc, context)

        return wrapped

    @staticmethod
    def _streaming(behavior: Callable) -> Callable:
        def wrapped(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
            try:
                yield from behavior(request, context)
            except Exception as exc:  # noqa: BLE001 - mapped to a status
                abort_for(exc, context)

        return wrapped


class _PendingLine:
    """The log line of one call, written once both the handler has finished and the call
    has terminated (its status sent, or the client gone): off the call's latency path,
    and with the call's real outcome."""

    __slots__ = ("record", "context", "started", "level", "logger", "lock", "waiting", "outcome", "ended_early")

    def __init__(self, record: calllog.CallRecord, context: grpc.ServicerContext, level: int,
                 logger: logging.Logger):
        self.record = record
        self.context = context
        self.level = level
        self.logger = logger
        self.started = time.perf_counter()
        self.lock = threading.Lock()
        self.waiting = 2            # the handler, and the call's termination
        self.outcome: str | None = None
        self.ended_early = False
        if not context.add_callback(self.terminated):
            self.terminated()

    def handler_done(self, outcome: str | None) -> None:
        """``outcome``: None if the handler returned normally, else the status it ended with."""
        self.outcome = outcome
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
        if self.ended_early:  # returned normally, but the client had gone: it never got the answer
            return "DEADLINE_EXCEEDED" if self.context.time_remaining() <= 0 else "CANCELLED"
        return _status_name(self.context, "OK")

    def _emit(self) -> None:
        record = self.record
        duration_ms = (time.perf_counter() - self.started) * 1000.0
        items = f" items={record.items}" if record.items else ""
        self.logger.log(self.level, "rpc method=%s game=%s status=%s duration_ms=%.2f nodes=%d%s peer=%s",
                        record.method, record.game_text(), self._status(), duration_ms, record.nodes, items,
                        _peer(self.context))


class LoggingInterceptor(grpc.ServerInterceptor):
    """One log line per RPC: ``method game status duration nodes``.

    The line is written when the call has ended (after its response went out),
    so logging adds nothing to a call's latency; ``duration_ms`` runs from the
    handler's start to the call's end. Methods of ``quiet_prefixes`` (health
    checks, reflection) log at DEBUG.
    """

    def __init__(self, logger: logging.Logger = log,
                 quiet_prefixes: tuple[str, ...] = ("/grpc.health.", "/grpc.reflection.")):
        self._log = logger
        self._quiet = quiet_prefixes

    def intercept_service(self, continuation, handler_call_details):
        handler = continuation(handler_call_details)
        if handler is None:
            return None
        full = handler_call_details.method or "?"
        level = logging.DEBUG if full.startswith(self._quiet) else logging.INFO
        if not self._log.isEnabledFor(level):
            return handler
        method = full.rsplit("/", 1)[-1]
        return _wrap(handler, self._unary(method, level), self._streaming(method, level))

    def _unary(self, method: str, level: int) -> Callable[[Callable], Callable]:
        def wrap(behavior: Callable) -> Callable:
            def wrapped(request: Any, context: grpc.ServicerContext) -> Any:
                record = calllog.CallRecord(method)
                line = _PendingLine(record, context, level, self._log)
                previous = calllog.activate(record)
                outcome: str | None = "UNKNOWN"
                try:
                    response = behavior(request, context)
                    outcome = None
                    return response
                except BaseException:
                    outcome = _status_name(context, "UNKNOWN")
                    raise
                finally:
                    calllog.activate(previous)
                    line.handler_done(outcome)

            return wrapped

        return wrap

    def _streaming(self, method: str, level: int) -> Callable[[Callable], Callable]:
        def wrap(behavior: Callable) -> Callable:
            def wrapped(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
                record = calllog.CallRecord(method)
                line = _PendingLine(record, context, level, self._log)
                outcome: str | None = "UNKNOWN"
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
                            outcome = None
                            return
                        finally:
                            calllog.activate(previous)
                        yield response
                except GeneratorExit:  # grpc dropped the stream: the client went away
                    outcome = "DEADLINE_EXCEEDED" if context.time_remaining() <= 0 else "CANCELLED"
                    close = getattr(iterator, "close", None)
                    if close is not None:
                        close()
                    raise
                except BaseException:
                    outcome = _status_name(context, "UNKNOWN")
                    raise
                finally:
                    line.handler_done(outcome)

            return wrapped

        return wrap


def _status_name(context: grpc.ServicerContext, default: str) -> str:
    code = context.code()
    if code is None:
        return default
    return getattr(code, "name", str(code))


def _peer(context: grpc.ServicerContext) -> str:
    try:
        return context.peer()
    except Exception:  # noqa: BLE001 - logging must not fail a call
        return "?"
