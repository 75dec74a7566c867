"""Cross-cutting concerns of the service, one interceptor each.

* :class:`LoggingInterceptor` writes one line per RPC: method, game(s), status,
  duration, nodes searched; every field escaped and cut (:func:`calllog.log_field`).
* :class:`ErrorInterceptor` turns exceptions escaping a handler into a status
  with google.rpc details (:mod:`ddcards.server.status`); a request that does
  not even decode is INVALID_ARGUMENT, not gRPC's own INTERNAL; a client that
  went away mid-stream is no error (no traceback in the log).
* :class:`TokenInterceptor` asks for ``authorization: Bearer <token>`` when the
  server has a token (health checks are exempt: load balancers probe them).
* :class:`StreamLimitInterceptor` caps the streams of each streaming method
  open at once and closes request streams that stay idle, so idle streams can
  never take the threads that Solve calls and health checks need.
* :class:`RequestWaitInterceptor` bounds the wait for a unary call's request
  message, so calls whose message never comes cannot take those threads either.
* :class:`AnswerWaitInterceptor` bounds the wait for a unary call's response to go
  out, so calls whose client takes no answer cannot pile up in the server's memory.

They wrap any handler kind (unary, streaming, and grpc's non-blocking
callback handlers such as ``Health/Watch``), so servicers stay free of this
code. The order in ``start_server`` is the request wait (outermost), the answer wait,
logging, errors, token, stream limits.
"""
from __future__ import annotations

import hmac
import logging
import queue
import re
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar

import grpc

from ddcards.server import calllog
from ddcards.server.wire import MAP_KEY_RULE, ONEOF_RULE, bad_utf8_field, oneof_conflict
from ddcards.server.status import (RequestError, StreamIdle, TokenInvalid, TooManyStreams, Unauthenticated,
                                   clean_text, code_of, describe)

log = logging.getLogger("ddcards.server")

if TYPE_CHECKING:
    class CallContext(grpc.ServicerContext):
        """The context grpc's server hands a handler: it also reads back the status set so far
        (``code()``, None until one is), which types-grpcio's ServicerContext does not declare."""

        def code(self) -> grpc.StatusCode | None: ...

    _Request = TypeVar("_Request")
    _Response = TypeVar("_Response")
    Handler: TypeAlias = grpc.RpcMethodHandler[_Request, _Response]
    # What an interceptor calls for the handler of the interceptors (and the servicer) inside it.
    Continuation: TypeAlias = Callable[[grpc.HandlerCallDetails], Handler[_Request, _Response] | None]
else:
    CallContext = grpc.ServicerContext

# A handler's behaviour: (the request, or the request iterator; the context) -> the response, or
# the response iterator (grpc's non-blocking ones take a callback too: see _non_blocking).
Behavior: TypeAlias = Callable[[Any, CallContext], Any]
Wrapper: TypeAlias = Callable[[Behavior], Behavior]


def _wrap(handler: grpc.RpcMethodHandler[Any, Any], unary: Wrapper, streaming: Wrapper,
          deserializer: Callable[[bytes], Any] | None = None) -> grpc.RpcMethodHandler[Any, Any]:
    """A copy of ``handler`` with its behaviour wrapped: ``unary`` for single responses,
    ``streaming`` for response streams. grpc's non-blocking callback behaviours
    (``Health/Watch``: they return at once and answer through a callback) are
    wrapped with ``unary`` and stay non-blocking, so they hold no thread."""
    def rebuilt(make: Callable[..., grpc.RpcMethodHandler[Any, Any]],
                behavior: Behavior) -> grpc.RpcMethodHandler[Any, Any]:
        return make(behavior, request_deserializer=deserializer or handler.request_deserializer,
                    response_serializer=handler.response_serializer)

    if handler.unary_unary:
        return rebuilt(grpc.unary_unary_rpc_method_handler, unary(handler.unary_unary))
    if handler.stream_unary:
        return rebuilt(grpc.stream_unary_rpc_method_handler, unary(handler.stream_unary))
    if handler.unary_stream:
        inner = handler.unary_stream
        if getattr(inner, "experimental_non_blocking", False):
            return rebuilt(grpc.unary_stream_rpc_method_handler, _non_blocking(inner, unary))
        return rebuilt(grpc.unary_stream_rpc_method_handler, streaming(inner))
    if handler.stream_stream:
        return rebuilt(grpc.stream_stream_rpc_method_handler, streaming(handler.stream_stream))
    return handler


def _non_blocking(inner: Callable[..., Any], unary: Wrapper) -> Callable[..., Any]:
    def behavior(request: Any, context: CallContext, send_response_callback: Callable[[Any], None]) -> Any:
        return unary(lambda req, ctx: inner(req, ctx, send_response_callback))(request, context)

    behavior.experimental_non_blocking = True  # type: ignore[attr-defined]
    behavior.experimental_thread_pool = getattr(inner, "experimental_thread_pool", None)  # type: ignore[attr-defined]
    return behavior


# ---------------------------------------------------------------- errors

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


# grpc's deadline timer may end a call a little before time_remaining() reaches 0 on this
# thread's clock: a call ended this close to its deadline ended by it (not a client's cancel).
_DEADLINE_SLACK = 0.01
# And the client's grpc rounds its timeout up as it sends it (the grpc-timeout header: in 10 ms
# steps from 1 s, 100 ms from 10 s, 1 s from 100 s: by up to 1%), so the server's deadline falls
# up to that much after the client's, and a client that gives up at its own deadline cancels
# the call that much before the server's (a 10 s call: up to 0.1 s).
_DEADLINE_ROUNDING = 0.01


# grpc reports "no deadline" as a huge time_remaining().
_NO_DEADLINE = 1e8


class StopClock:
    """When the server's stop cancels the calls still in flight: its grace over, grpc cancels
    them, and their clients hear UNAVAILABLE ("Cancelling all calls"). The log and the
    status the handler sets say so, rather than taking the cancel for the client's."""

    def __init__(self) -> None:
        self.cancel_at: float | None = None

    def begin(self, grace: float | None) -> None:
        """Called just before grpc's stop, whose timer therefore cancels after ``cancel_at``. An
        earlier cancel stands: a second signal's immediate stop (``stop_now``) may come while the
        first stop still drains, before it has begun its grace."""
        at = time.monotonic() + (grace or 0.0)
        if self.cancel_at is None or at < self.cancel_at:
            self.cancel_at = at

    def cancelled(self, at: float | None = None) -> bool:
        """Had the stop cancelled the calls in flight by ``at`` (time.monotonic(); default now)?"""
        return self.cancel_at is not None and (time.monotonic() if at is None else at) >= self.cancel_at


def ended_status(context: grpc.ServicerContext, budget: float | None, stop: StopClock | None) -> grpc.StatusCode:
    """What the client of a call that ended under its handler heard: the server's stop
    (UNAVAILABLE), its deadline, or its own cancel."""
    if stop is not None and stop.cancelled():
        return grpc.StatusCode.UNAVAILABLE
    return grpc.StatusCode.DEADLINE_EXCEEDED if deadline_passed(context, budget) else grpc.StatusCode.CANCELLED


def call_budget(context: grpc.ServicerContext) -> float | None:
    """The seconds the call has left (None: it has no deadline); at the handler's start,
    its budget."""
    try:
        remaining = context.time_remaining()
    except Exception:  # noqa: BLE001 - no deadline to read
        return None
    return remaining if remaining is not None and remaining < _NO_DEADLINE else None


def deadline_passed(context: grpc.ServicerContext, budget: float | None = None) -> bool:
    """Has the call's deadline passed, or all but a slack of it (False: the call has none)?
    ``budget`` (`call_budget` at the handler's start) widens the slack by what the client's
    rounding of its timeout may have added."""
    remaining = call_budget(context)
    slack = _DEADLINE_SLACK + (budget * _DEADLINE_ROUNDING if budget else 0.0)
    return remaining is not None and remaining <= slack


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

    def intercept_service(self, continuation: Continuation[_Request, _Response],
                          handler_call_details: grpc.HandlerCallDetails) -> Handler[_Request, _Response] | None:
        handler = continuation(handler_call_details)
        if handler is None:
            return None
        streaming_requests = handler.request_streaming
        return _wrap(handler, self._unary(streaming_requests), self._streaming(streaming_requests),
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

    def intercept_service(self, continuation: Continuation[_Request, _Response],
                          handler_call_details: grpc.HandlerCallDetails) -> Handler[_Request, _Response] | None:
        handler = continuation(handler_call_details)
        if handler is None:
            return None
        if handler.request_streaming:
            if handler_call_details.method in self._in_band:
                return handler
            return _wrap(handler, lambda b: lambda items, ctx: b(_decoded_items(items), ctx),
                         lambda b: lambda items, ctx: b(_decoded_items(items), ctx))
        return _wrap(handler, lambda b: lambda request, ctx: b(_decoded(request), ctx),
                     lambda b: lambda request, ctx: b(_decoded(request), ctx))


def _decoded(request: Any) -> Any:
    if isinstance(request, Undecodable):
        raise request.to_error()
    return request


def _decoded_items(requests: Iterator[Any]) -> Iterator[Any]:
    for item in requests:
        yield _decoded(item)


# ---------------------------------------------------------------- bearer token

class TokenInterceptor(grpc.ServerInterceptor):
    """Calls must carry ``authorization: Bearer <token>``; else UNAUTHENTICATED
    (reason TOKEN_MISSING or TOKEN_INVALID). The scheme is case-insensitive (RFC 7235:
    ``bearer``, ``BEARER`` do too) and any spaces or tabs may separate it from the token;
    the token itself is compared exactly, in constant time. A call with two or more
    ``authorization`` values is refused, whichever holds the token. Methods under
    ``exempt_prefixes`` (health checks) need no token."""

    def __init__(self, token: str, exempt_prefixes: tuple[str, ...] = ("/grpc.health.v1.Health/",)):
        if not token:
            raise ValueError("the token must not be empty")
        self._expected = token.encode("utf-8")
        self._exempt = exempt_prefixes

    def intercept_service(self, continuation: Continuation[_Request, _Response],
                          handler_call_details: grpc.HandlerCallDetails) -> Handler[_Request, _Response] | None:
        if (handler_call_details.method or "").startswith(self._exempt):
            return continuation(handler_call_details)
        values = [value for key, value in handler_call_details.invocation_metadata or () if key == "authorization"]
        given = values[0] if values else None
        error: Unauthenticated | None = None
        if len(values) > 1:     # which one counts would be a guess (RFC 9110: a header sent once)
            error = TokenInvalid(f"the call carries {len(values)} 'authorization' metadata values: send one, "
                                 "'authorization: Bearer <token>'")
        elif given is not None:
            given_bytes = given.encode("utf-8", "backslashreplace") if isinstance(given, str) else bytes(given)
            token, error = _bearer_token(given_bytes)
            if token is not None and hmac.compare_digest(token, self._expected):
                return continuation(handler_call_details)
        handler = continuation(handler_call_details)
        if handler is None:
            return None
        if error is None:
            error = (Unauthenticated("this server needs a token: send the metadata 'authorization: Bearer <token>'")
                     if given is None else TokenInvalid("the token in 'authorization' is not this server's token"))

        def reject(behavior: Behavior) -> Behavior:
            def rejected(request: Any, context: CallContext) -> Any:
                raise error

            return rejected

        def reject_stream(behavior: Behavior) -> Behavior:
            def rejected(request: Any, context: CallContext) -> Iterator[Any]:
                raise error
                yield  # a generator, as grpc expects of a response stream

            return rejected

        return _wrap(handler, reject, reject_stream)


# ``Bearer <token>``: blanks before and after the scheme; the token is the rest, as it is.
_AUTHORIZATION = re.compile(rb"[ \t]*([^ \t]*)[ \t]*(.*)\Z", re.DOTALL)


def _bearer_token(value: bytes) -> tuple[bytes | None, Unauthenticated | None]:
    """The token of an ``authorization`` value ``Bearer <token>`` (the scheme in any case, any
    spaces or tabs around it), or None and the error saying what is wrong with the value's form.
    The messages never quote the value: a token sent without its scheme would be echoed."""
    match = _AUTHORIZATION.match(value)         # always matches
    scheme, token = match.groups() if match else (b"", b"")
    if not scheme:                              # an empty (or blank) value: no token was sent
        return None, Unauthenticated("the 'authorization' metadata is empty: send 'authorization: Bearer <token>'")
    if scheme.lower() != b"bearer":
        return None, TokenInvalid("the 'authorization' metadata must be 'Bearer <token>' (the scheme Bearer, in any "
                                  "case, a space, then the token): its scheme is not Bearer")
    if not token:
        return None, Unauthenticated("the 'authorization' metadata has the scheme Bearer but no token after it: "
                                     "send 'authorization: Bearer <token>'")
    return token, None


# ---------------------------------------------------------------- stream limits

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

    def intercept_service(self, continuation: Continuation[_Request, _Response],
                          handler_call_details: grpc.HandlerCallDetails) -> Handler[_Request, _Response] | None:
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

        return _wrap(handler, unary, streaming)

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


class _Waiter:
    __slots__ = ("context", "since", "peer", "cancelled")

    def __init__(self, context: grpc.ServicerContext):
        self.context = context
        self.since = time.monotonic()
        self.peer = _peer(context)          # read now: a cancelled call's peer reads ""
        self.cancelled: str | None = None     # why this interceptor cancelled the call


class RequestWaitInterceptor(grpc.ServerInterceptor):
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
    - and never more than ``most`` (twice ``max_waiting`` unless given): a call that comes
      when that many wait has the longest-waiting cancelled at once, whatever its age. The
      grace alone let silent calls that came faster than the pool's threads a second hold
      every thread, each for a second, and the calls queued behind them reach grpc's cap on
      calls in progress; so calls that never send hold at most ``most`` threads, and a real
      call gets a thread however many never send, and however fast they come.

    A call's message comes with its headers or just after, so a real call waits
    microseconds.  grpc's non-blocking handlers (``Health/Watch``) are read the same way and
    stay non-blocking: once its message has come, the call holds no thread. (grpc's own wait
    for their message has no end: silent Watch calls held every thread it waited on for as
    long as they stayed open, and, queued behind those, counted toward grpc's cap on calls in
    progress until every other call was refused.)"""

    def __init__(self, timeout: float = 30.0, max_waiting: int = 8, grace: float = 1.0,
                 logger: logging.Logger = log, *, most: int | None = None):
        most = 2 * max_waiting if most is None else most
        if not timeout > 0 or max_waiting < 1 or not grace >= 0 or most < max_waiting:
            raise ValueError("timeout > 0, max_waiting >= 1, grace >= 0 and most >= max_waiting")
        self.timeout = timeout
        self.max_waiting = max_waiting
        self.most = most
        self.grace = grace
        self._log = logger
        self._lock = threading.Lock()
        self._waiting: OrderedDict[int, _Waiter] = OrderedDict()    # the longest-waiting first
        self._reaper: threading.Thread | None = None

    def waiting(self) -> int:
        """Calls waiting for their request message now."""
        with self._lock:
            return len(self._waiting)

    def intercept_service(self, continuation: Continuation[_Request, _Response],
                          handler_call_details: grpc.HandlerCallDetails) -> Handler[_Request, _Response] | None:
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
            self._leave(waiter)
        if request is not None:
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
            if self._reaper is None:
                self._reaper = threading.Thread(target=self._reap, name="ddcards-request-wait", daemon=True)
                self._reaper.start()

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


class AnswerWaitInterceptor(grpc.ServerInterceptor):
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
        self.timeout = timeout
        self.max_waiting = max_waiting
        self.grace = grace
        self._log = logger
        self._lock = threading.Lock()
        self._waiting: OrderedDict[int, _Answer] = OrderedDict()     # the longest-waiting first
        self._reaper: threading.Thread | None = None

    def waiting(self) -> int:
        """Answers handed to gRPC that have not gone out yet."""
        with self._lock:
            return len(self._waiting)

    def intercept_service(self, continuation: Continuation[_Request, _Response],
                          handler_call_details: grpc.HandlerCallDetails) -> Handler[_Request, _Response] | None:
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
            if self._reaper is None:
                self._reaper = threading.Thread(target=self._reap, name="ddcards-answer-wait", daemon=True)
                self._reaper.start()
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


# ---------------------------------------------------------------- logging

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
        self.peer = _peer(context)      # read now: once the call has ended (a deadline) it may be ""
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
                        calllog.log_field(self.peer or _peer(self.context)))


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

    def intercept_service(self, continuation: Continuation[_Request, _Response],
                          handler_call_details: grpc.HandlerCallDetails) -> Handler[_Request, _Response] | None:
        handler = continuation(handler_call_details)
        if handler is None:
            return None
        full = handler_call_details.method or "?"
        level = logging.DEBUG if full.startswith(self._quiet) else logging.INFO
        if not self._log.isEnabledFor(level):
            return handler
        method = calllog.log_field(full.rsplit("/", 1)[-1])
        if getattr(handler.unary_stream, "experimental_non_blocking", False):
            return self._non_blocking(handler, method, level)
        return _wrap(handler, self._unary(method, level), self._streaming(method, level))

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

            previous = calllog.activate(record)
            outcome: str | None = "UNKNOWN"
            try:
                response = inner(request, context, send)
                outcome = None
                return response
            except BaseException:
                outcome = _status_name(context, "UNKNOWN")
                raise
            finally:
                calllog.activate(previous)
                line.handler_done(outcome)

        behavior.experimental_non_blocking = True  # type: ignore[attr-defined]
        behavior.experimental_thread_pool = getattr(inner, "experimental_thread_pool", None)  # type: ignore[attr-defined]
        return grpc.unary_stream_rpc_method_handler(behavior, request_deserializer=handler.request_deserializer,
                                                    response_serializer=handler.response_serializer)

    def _unary(self, method: str, level: int) -> Wrapper:
        def wrap(behavior: Behavior) -> Behavior:
            def wrapped(request: Any, context: CallContext) -> Any:
                record = calllog.CallRecord(method)
                line = _PendingLine(record, context, level, self._log, self._stop)
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


def _status_name(context: CallContext, default: str) -> str:
    code = context.code()
    if code is None:
        return default
    return getattr(code, "name", str(code))


def _peer(context: grpc.ServicerContext) -> str:
    try:
        return context.peer()
    except Exception:  # noqa: BLE001 - logging must not fail a call
        return "?"
