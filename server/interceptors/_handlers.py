"""What the interceptors share: the types of grpc's handlers and their behaviours, the
wrapping of a handler of any kind, and a call's peer read safely."""
from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar

import grpc

log = logging.getLogger("ddcards.server")

if TYPE_CHECKING:
    class CallContext(grpc.ServicerContext):
        """The context grpc's server hands a handler: it also reads back the status set so far
        (``code()``, None until one is), which types-grpcio's ServicerContext does not declare."""

        def code(self) -> grpc.StatusCode | None: ...

    Request = TypeVar("Request")
    Response = TypeVar("Response")
    Handler: TypeAlias = grpc.RpcMethodHandler[Request, Response]
    # What an interceptor calls for the handler of the interceptors (and the servicer) inside it.
    Continuation: TypeAlias = Callable[[grpc.HandlerCallDetails], Handler[Request, Response] | None]
else:
    CallContext = grpc.ServicerContext

# A handler's behaviour: (the request, or the request iterator; the context) -> the response, or
# the response iterator (grpc's non-blocking ones take a callback too: see _non_blocking).
Behavior: TypeAlias = Callable[[Any, CallContext], Any]
Wrapper: TypeAlias = Callable[[Behavior], Behavior]


def wrap_handler(handler: grpc.RpcMethodHandler[Any, Any], unary: Wrapper, streaming: Wrapper,
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


def peer(context: grpc.ServicerContext) -> str:
    """The call's peer for the log ("?" where grpc cannot say)."""
    try:
        return context.peer()
    except Exception:  # noqa: BLE001 - logging must not fail a call
        return "?"
