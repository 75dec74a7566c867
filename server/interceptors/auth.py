"""The bearer token: calls must carry ``authorization: Bearer <token>`` where the server
has one."""
from __future__ import annotations

import hmac
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import grpc

from ddcards.server.interceptors._handlers import Behavior, CallContext, wrap_handler
from ddcards.server.status import TokenInvalid, Unauthenticated

if TYPE_CHECKING:
    from ddcards.server.interceptors._handlers import Continuation, Handler, Request, Response


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

    def intercept_service(self, continuation: Continuation[Request, Response],
                          handler_call_details: grpc.HandlerCallDetails) -> Handler[Request, Response] | None:
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
        if error is None:
            error = (Unauthenticated("this server needs a token: send the metadata 'authorization: Bearer <token>'")
                     if given is None else TokenInvalid("the token in 'authorization' is not this server's token"))
        if handler is None:
            # A method the server lacks is UNAUTHENTICATED too without the token: UNIMPLEMENTED
            # would tell a caller with none which method names exist. One stream handler
            # refuses every kind of call (a unary client reads its status just the same).
            return grpc.stream_stream_rpc_method_handler(_refuse(error))

        def reject(behavior: Behavior) -> Behavior:
            def rejected(request: Any, context: CallContext) -> Any:
                raise error

            return rejected

        return wrap_handler(handler, reject, lambda behavior: _refuse(error))


def _refuse(error: Unauthenticated) -> Behavior:
    """A response stream's behavior that ends its call with `error` (for a call of any kind)."""
    def refused(requests: Any, context: CallContext) -> Iterator[Any]:
        raise error
        yield  # a generator, as grpc expects of a response stream

    return refused


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
