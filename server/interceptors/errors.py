"""Exceptions to status codes, and requests that do not decode.

:class:`ErrorInterceptor` maps whatever a handler raises to a status with google.rpc
details (:mod:`ddcards.server.status`) and gives every method a deserializer that never
raises; :class:`DecodeInterceptor` reports a request that did not decode, innermost."""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

import grpc

from ddcards.server import calllog
from ddcards.server.interceptors._handlers import Behavior, CallContext, Wrapper, log, wrap_handler
from ddcards.server.interceptors.deadlines import StopClock, call_budget, ended_status
from ddcards.server.status import RequestError, clean_text, code_of, describe
from ddcards.server.wire import MAP_KEY_RULE, ONEOF_RULE, bad_utf8_field, oneof_conflict

if TYPE_CHECKING:
    from ddcards.server.interceptors._handlers import Continuation, Handler, Request, Response


class Undecodable:
    """What the safe deserializer hands on for bytes that are no valid message."""

    __slots__ = ("error", "message_type", "message", "bad_utf8")

    def __init__(self, error: BaseException, message_type: str, message: Any = None, bad_utf8: str | None = None):
        self.error = error
        self.message_type = message_type
        self.message = message      # what protobuf parsed, where it could (a stream item's id: echoed)
        self.bad_utf8 = bad_utf8    # the string field whose bytes are no UTF-8, where that is the fault

    def to_error(self) -> RequestError:
        if isinstance(self.error, OneofConflict):
            advice = "give it once" if self.error.rule == MAP_KEY_RULE else "they are one field, give one of them"
            return RequestError(f"the {self.message_type} message sends {self.error}: {advice} (protobuf would keep "
                                "the last and drop the other)",
                                token=self.error.field, rule=self.error.rule, field=self.error.field)
        if self.bad_utf8 is not None:
            return RequestError(f"the request is not a valid {self.message_type} message: its string field "
                                f"{self.bad_utf8} is not UTF-8 text", token=self.bad_utf8,
                                rule="protobuf encoding: a string field holds UTF-8 text", field=self.bad_utf8)
        return RequestError(f"the request is not a valid {self.message_type} message "
                            f"({type(self.error).__name__}: {clean_text(self.error)})",
                            token="", rule="protobuf encoding")


class OneofConflict(ValueError):
    """Two members of one oneof, or one key of a map twice, in a request's bytes
    (``wire.oneof_conflict`` says which); ``field``: the first one's path in the request;
    ``rule``: the rule it breaks (ONEOF_RULE or MAP_KEY_RULE)."""

    def __init__(self, members: str, field: str, rule: str = ONEOF_RULE):
        super().__init__(members)
        self.field = field
        self.rule = rule


def _safe_deserializer(deserialize: Callable[[bytes], Any] | None) -> Callable[[bytes], Any] | None:
    """A deserializer that never raises (grpc would answer INTERNAL): bad bytes become
    an :class:`Undecodable` that the handler's wrapper reports as INVALID_ARGUMENT."""
    if deserialize is None:
        return None
    owner = getattr(deserialize, "__self__", None)
    descriptor = getattr(owner, "DESCRIPTOR", None)
    name = getattr(descriptor, "full_name", "request")

    def safe(data: bytes) -> Any:
        try:
            message = deserialize(data)
        except Exception as exc:  # noqa: BLE001 - reported to the client as INVALID_ARGUMENT
            return Undecodable(exc, name, bad_utf8=_bad_utf8(descriptor, data, exc))
        try:
            conflict = oneof_conflict(descriptor, data, message=message) if descriptor is not None else None
        except Exception:  # noqa: BLE001 - a check of what the parser took: never a reason to fail the call
            log.exception("the oneof check of a %s failed", name)
            conflict = None
        if conflict is not None:        # the parser kept the last member: no silent choice here
            return Undecodable(OneofConflict(*conflict), name, message)
        return message

    return safe


def _bad_utf8(descriptor: Any, data: bytes, exc: BaseException) -> str | None:
    """Which string field made the parser fail with "bad UTF-8" (it does not say), if any."""
    if descriptor is None or "UTF-8" not in str(exc):
        return None
    try:
        return bad_utf8_field(descriptor, data)
    except Exception:  # noqa: BLE001 - a better message, never a reason to fail otherwise
        log.exception("locating the bad UTF-8 of a %s failed", descriptor.full_name)
        return None


def _client_gone(exc: BaseException, context: grpc.ServicerContext) -> bool:
    # grpc raises RpcError from the request iterator once the call has ended; a
    # call no longer active has no one to tell either.
    return isinstance(exc, grpc.RpcError) or not context.is_active()


def abort_for(exc: BaseException, context: CallContext, request: Any = None,
              budget: float | None = None, stop: StopClock | None = None) -> None:
    """Fail the RPC with the status (and details) for ``exc``; re-raises if the RPC
    already has a status. ``budget``: the call's `call_budget` at its start; ``stop``: the
    server's `StopClock`."""
    if context.code() is not None:  # the servicer (or grpc) already set the status
        raise exc
    if _client_gone(exc, context) or (stop is not None and stop.cancelled()):
        # The call has ended: the server's stop cancelled it, its deadline passed, or the client
        # cancelled or went away; the status set is what the client heard, and the log's.
        log.debug("the call ended: %s", calllog.log_field(repr(exc), 200))
        code = ended_status(context, budget, stop)
        context.abort(code, {grpc.StatusCode.UNAVAILABLE: "the server stopped",
                             grpc.StatusCode.DEADLINE_EXCEEDED: "the deadline passed"}.get(code, "the client went away"))
    failure = describe(exc, request if not isinstance(request, Undecodable) else None)
    if code_of(exc) is grpc.StatusCode.INTERNAL:
        log.error("internal error %s", calllog.exception_text(exc))
    elif isinstance(exc, MemoryError):
        log.warning("out of memory: %s", calllog.log_field(str(exc), 300, spaces=True))
    context.abort_with_status(failure.to_status())


class ErrorInterceptor(grpc.ServerInterceptor):
    """Exceptions -> status codes with google.rpc details (see :mod:`ddcards.server.status`).

    The outermost of the server's own interceptors: it gives every method the safe
    deserializer (bad bytes become an :class:`Undecodable`, not grpc's INTERNAL) and maps
    whatever the interceptors inside it and the servicer raise.  The undecodable request
    itself is reported innermost, by :class:`DecodeInterceptor`, so that a call without the
    server's token hears UNAUTHENTICATED whatever bytes it sent.
    """

    def __init__(self, stop: StopClock | None = None):
        self._stop = stop

    def intercept_service(self, continuation: Continuation[Request, Response],
                          handler_call_details: grpc.HandlerCallDetails) -> Handler[Request, Response] | None:
        handler = continuation(handler_call_details)
        if handler is None:
            return None
        streaming_requests = handler.request_streaming
        return wrap_handler(handler, self._unary(streaming_requests), self._streaming(streaming_requests),
                     deserializer=_safe_deserializer(handler.request_deserializer))

    def _unary(self, streaming_requests: bool) -> Wrapper:
        def wrap(behavior: Behavior) -> Behavior:
            def wrapped(request: Any, context: CallContext) -> Any:
                budget = call_budget(context)
                try:
                    return behavior(request, context)
                except Exception as exc:  # noqa: BLE001 - mapped to a status
                    abort_for(exc, context, None if streaming_requests else request, budget, self._stop)

            return wrapped

        return wrap

    def _streaming(self, streaming_requests: bool) -> Wrapper:
        def wrap(behavior: Behavior) -> Behavior:
            def wrapped(request: Any, context: CallContext) -> Iterator[Any]:
                budget = call_budget(context)
                try:
                    yield from behavior(request, context)
                except Exception as exc:  # noqa: BLE001 - mapped to a status
                    abort_for(exc, context, None if streaming_requests else request, budget, self._stop)

            return wrapped

        return wrap


class DecodeInterceptor(grpc.ServerInterceptor):
    """The innermost interceptor: a request :class:`ErrorInterceptor`'s deserializer could
    not decode fails here (INVALID_ARGUMENT, reason INVALID_REQUEST), after the token and
    the limits have had their say.

    ``in_band_methods``: stream methods whose servicer reports an undecodable
    stream item itself (SolveStream answers it with an in-band error); for
    any other stream method such an item fails the call.
    """

    def __init__(self, in_band_methods: Iterable[str] = ()):
        self._in_band = frozenset(in_band_methods)

    def intercept_service(self, continuation: Continuation[Request, Response],
                          handler_call_details: grpc.HandlerCallDetails) -> Handler[Request, Response] | None:
        handler = continuation(handler_call_details)
        if handler is None:
            return None
        if handler.request_streaming:
            if handler_call_details.method in self._in_band:
                return handler
            return wrap_handler(handler, lambda b: lambda items, ctx: b(_decoded_items(items), ctx),
                         lambda b: lambda items, ctx: b(_decoded_items(items), ctx))
        return wrap_handler(handler, lambda b: lambda request, ctx: b(_decoded(request), ctx),
                     lambda b: lambda request, ctx: b(_decoded(request), ctx))


def _decoded(request: Any) -> Any:
    if isinstance(request, Undecodable):
        raise request.to_error()
    return request


def _decoded_items(requests: Iterator[Any]) -> Iterator[Any]:
    for item in requests:
        yield _decoded(item)
