"""The service's error model: an exception becomes a gRPC status with google.rpc details.

Every failed call ends with a standard status code and, in the
``grpc-status-details-bin`` trailer, a ``google.rpc.Status`` carrying

* ``ErrorInfo``: ``domain`` :data:`DOMAIN`, a stable ``reason`` per error class
  (the ``reason`` of the ``ddcards.errors`` classes, or one of the service's
  own: ``OVERLOADED``, ``STREAM_IDLE`` ...) and ``metadata`` with ``token``,
  ``rule``, ``field`` (the path in the position document) and ``error_class``;
* ``BadRequest`` (INVALID_ARGUMENT): the path of the bad field in the request
  message (``position.played[1]``, ``document_json``);
* ``RetryInfo`` (RESOURCE_EXHAUSTED, UNAVAILABLE): when to try again.

A SolveStream item gets the same content in band (:meth:`Failure.to_error_message`).

Echoes of the client's input are bounded (:data:`TOKEN_ECHO`,
:data:`MESSAGE_LIMIT`) and made valid UTF-8, so a status always fits the
trailers: an 8,000-character token is still INVALID_ARGUMENT, never the
RESOURCE_EXHAUSTED a client reports for oversized metadata, and a lone
surrogate (``"\\ud800"`` in JSON) never breaks the encoding.

Nothing here talks to a network; :func:`describe` is a pure function of the
exception and the request.
"""
from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import CancelledError
from dataclasses import dataclass, field as dataclass_field
from typing import Any, TypeGuard

import grpc
from google.protobuf import any_pb2, duration_pb2
# Neither ships type information (googleapis-common-protos has .pyi files but no py.typed; no
# stubs for grpc_status here): their few uses below are typed at the call.
from google.rpc import error_details_pb2, status_pb2  # type: ignore[import-untyped, unused-ignore]
from grpc_status import rpc_status  # type: ignore[import-untyped, unused-ignore]

import ddcards
from ddcards.errors import DdcardsError, InvalidOptionError, SearchCancelled, SearchTimeout, TableMemoryError
from ddcards.v1 import ddcards_pb2 as pb

__all__ = [
    "DOMAIN", "OUT_OF_MEMORY", "TOKEN_ECHO", "MESSAGE_LIMIT", "ServiceError", "Overloaded", "ShuttingDown", "TooManyStreams",
    "StreamIdle",
    "Unauthenticated", "TokenInvalid", "RequestError", "RequestCardError", "RequestNotationError", "ValueOutOfRange", "Failure", "describe", "code_of", "clean_text",
    "shorten", "bounded_message", "message_field", "locate_field",
]

DOMAIN = "ddcards"
# The reason of RESOURCE_EXHAUSTED for a search whose table cannot be had (a MemoryError).
OUT_OF_MEMORY = "OUT_OF_MEMORY"
# How much of the client's input an error echoes: a token, a message (in characters,
# and in UTF-8 bytes: gRPC percent-encodes every non-ASCII byte of the message into
# its trailers, whose usual client limit is 8 KB), a rule.
TOKEN_ECHO = 64
MESSAGE_LIMIT = 600
MESSAGE_BYTES = 1000
RULE_LIMIT = 200


# ---------------------------------------------------------------- the service's own errors

class ServiceError(Exception):
    """A failure the service reports itself (capacity, idle streams, authentication)."""

    code = grpc.StatusCode.UNAVAILABLE
    reason = "UNAVAILABLE"

    def __init__(self, message: str, *, retry_after: float | None = None,
                 metadata: Mapping[str, str] | None = None):
        super().__init__(message)
        self.retry_after = retry_after
        self.metadata = dict(metadata or {})


class Overloaded(ServiceError):
    """Every worker stayed busy for the longest a call may wait, or the queue is full."""

    code = grpc.StatusCode.RESOURCE_EXHAUSTED
    reason = "OVERLOADED"


class ShuttingDown(ServiceError):
    """The server began to stop while the call waited for a worker, and no worker took it before
    its wait ended: another instance (or this one restarted) may answer it."""

    code = grpc.StatusCode.UNAVAILABLE
    reason = "SHUTTING_DOWN"


class TooManyStreams(ServiceError):
    """The streams of one method open at once reached the server's limit."""

    code = grpc.StatusCode.RESOURCE_EXHAUSTED
    reason = "TOO_MANY_STREAMS"


class StreamIdle(ServiceError):
    """A stream sent nothing and had nothing in flight for the idle timeout."""

    code = grpc.StatusCode.UNAVAILABLE
    reason = "STREAM_IDLE"


class Unauthenticated(ServiceError):
    """The server requires a bearer token and the call carried none, or a wrong one."""

    code = grpc.StatusCode.UNAUTHENTICATED
    reason = "TOKEN_MISSING"


class TokenInvalid(Unauthenticated):
    """The call's bearer token is not the server's."""

    reason = "TOKEN_INVALID"


class RequestError(InvalidOptionError):
    """A request message that cannot become a position document.

    Its ``field`` is a path in the *request message* ("position.hands[0].cards[3]",
    "mode", "document_json"), not in the document.
    """

    reason = "INVALID_REQUEST"


class RequestCardError(RequestError):
    """A card in a request message that names no card (an unset rank, a bad notation)."""

    reason = "INVALID_CARD"


class RequestNotationError(RequestError):
    """A hand in a request message that is no valid hand (a card twice in its list of cards)."""

    reason = "NOTATION"


class ValueOutOfRange(RequestError):
    """A result value too large for its response field (e.g. a huge stake)."""

    reason = "VALUE_OUT_OF_RANGE"


# ---------------------------------------------------------------- bounded, valid text

def clean_text(text: object) -> str:
    """``text`` as valid UTF-8: lone surrogates become ``\\udXXX`` escapes."""
    string = text if isinstance(text, str) else str(text)
    try:
        string.encode("utf-8")
        return string
    except UnicodeEncodeError:
        return string.encode("utf-8", "backslashreplace").decode("utf-8")


def shorten(text: object, limit: int = TOKEN_ECHO) -> str:
    """``text`` cut to ``limit`` characters, saying how long it was."""
    string = clean_text(text)
    if len(string) <= limit:
        return string
    return f"{string[:limit]}…({len(string)} chars)"


def bounded_message(message: str, token: str | None = None, limit: int = MESSAGE_LIMIT) -> str:
    """The message with a long ``token`` shortened where it is echoed, then cut to
    about ``limit`` characters and :data:`MESSAGE_BYTES` bytes (keeping the head and
    the tail, which usually names the rule)."""
    message = clean_text(message)
    if token:
        token = clean_text(token)
        if len(token) > TOKEN_ECHO and token in message:
            message = message.replace(token, shorten(token))
    if len(message) <= limit and len(message.encode("utf-8")) <= MESSAGE_BYTES:
        return message
    size = limit
    while True:
        head, tail = size * 2 // 3, size // 4
        cut = f"{message[:head]} …({len(message) - head - tail} chars)… {message[len(message) - tail:]}"
        if len(cut.encode("utf-8")) <= MESSAGE_BYTES or size <= 16:
            return cut
        size = size * 3 // 4        # wide characters: fewer of them


# ---------------------------------------------------------------- field paths

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# Document fields whose message field has another name when given by name.
_BY_NAME = {"game": ("game_name", "game"), "contract": ("contract_name", "contract")}


def message_field(request: Any, doc_field: str | None, *, prefix: str = "") -> str:
    """The path in the request message for a path in the position document.

    ``request`` is a Solve/AnalysePlay/SolveTable request; ``prefix`` is the
    path of that request inside a bigger message ("solve." in a stream item).
    A JSON document is one field: its path is ``document_json`` (the document
    path goes to ErrorInfo's metadata).
    """
    source = request.WhichOneof("source") if request is not None else None
    if source == "document_json":
        return prefix + "document_json"
    if not doc_field:
        return prefix + "position"
    head, rest = _split_path(doc_field)
    if head in _BY_NAME:
        by_name, by_enum = _BY_NAME[head]
        position = request.position
        head = by_name if getattr(position, by_name) or not getattr(position, by_enum) else by_enum
    elif head == "options" and rest.startswith("."):
        key = rest[1:]
        rest = "." + (key if _IDENTIFIER.match(key) else "`" + shorten(key).replace("`", "``") + "`")
    return f"{prefix}position.{head}{rest}"


def _split_path(path: str) -> tuple[str, str]:
    match = re.match(r"[^.\[]*", path)
    head = match.group(0) if match else path
    return head, path[len(head):]


def locate_field(doc: Any, exc: DdcardsError) -> str | None:
    """The document field an error is about: the error's own ``field`` if it names one,
    else the first card field (hands, talon, stock, upcard, trump, game, played) that on
    its own fails with the same class of error on the same token."""
    if exc.field:
        return exc.field
    if not exc.token or not isinstance(doc, Mapping):
        return None
    for path, check in _card_fields(doc):
        try:
            check()
        except DdcardsError as other:
            if type(other) is type(exc) and other.token == exc.token:
                return path
        except Exception:  # noqa: BLE001 - locating is best effort; the error stands as it is
            continue
    return None


def _card_fields(doc: Mapping[str, Any]) -> Iterator[tuple[str, Callable[[], Any]]]:
    def text_or_cards(value: Any) -> TypeGuard[str | list[str]]:
        return isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value))

    game = doc.get("game")
    if isinstance(game, str):
        yield "game", lambda: ddcards.find_game(game)
    hands = doc.get("hands")
    if isinstance(hands, list):
        for seat, hand in enumerate(hands):
            if isinstance(hand, str):
                yield f"hands[{seat}]", functools.partial(ddcards.parse_hand, hand)
            elif text_or_cards(hand):
                yield f"hands[{seat}]", functools.partial(ddcards.parse_cards, hand)
    for name in ("talon", "stock"):
        value = doc.get(name)
        if text_or_cards(value):
            yield name, functools.partial(ddcards.parse_cards, value)
    for name, parse in (("upcard", ddcards.Card.parse), ("trump", ddcards.Suit.parse)):
        value = doc.get(name)
        if isinstance(value, str):
            yield name, functools.partial(parse, value)
    played = doc.get("played")
    if isinstance(played, list):
        for ply, action in enumerate(played):
            if isinstance(action, str):
                yield f"played[{ply}]", functools.partial(ddcards.Card.parse, action)


# ---------------------------------------------------------------- exception -> status

def code_of(exc: BaseException) -> grpc.StatusCode:
    """The gRPC status code for an exception raised while serving a request."""
    if isinstance(exc, DdcardsError):
        return grpc.StatusCode.INVALID_ARGUMENT
    if isinstance(exc, ServiceError):
        return exc.code
    if isinstance(exc, SearchTimeout):
        return grpc.StatusCode.DEADLINE_EXCEEDED
    if isinstance(exc, (SearchCancelled, CancelledError)):
        return grpc.StatusCode.CANCELLED
    if isinstance(exc, MemoryError):        # a worker's table that cannot grow now
        return grpc.StatusCode.RESOURCE_EXHAUSTED
    return grpc.StatusCode.INTERNAL


def _reason_of(exc: BaseException, code: grpc.StatusCode) -> str:
    if code is grpc.StatusCode.INTERNAL:
        return "INTERNAL"
    if isinstance(exc, CancelledError):
        return SearchCancelled.reason
    if isinstance(exc, MemoryError):
        return OUT_OF_MEMORY
    return str(getattr(exc, "reason", code.name))


@dataclass
class Failure:
    """Everything a client learns about a failed call (or stream item)."""

    code: grpc.StatusCode
    message: str
    reason: str
    token: str = ""
    rule: str = ""
    field: str = ""            # path in the request message ("position.played[1]")
    doc_field: str = ""        # path in the position document ("played[1]")
    error_class: str = ""
    retry_after: float | None = None
    metadata: dict[str, str] = dataclass_field(default_factory=dict)

    def details(self) -> list[Any]:
        """ErrorInfo, then BadRequest (INVALID_ARGUMENT) and RetryInfo (if any)."""
        info = error_details_pb2.ErrorInfo(reason=self.reason, domain=DOMAIN)
        for key, value in (("token", self.token), ("rule", self.rule), ("field", self.doc_field),
                           ("error_class", self.error_class)):
            if value:
                info.metadata[key] = value
        info.metadata.update(self.metadata)
        found: list[Any] = [info]
        if self.code is grpc.StatusCode.INVALID_ARGUMENT:
            found.append(error_details_pb2.BadRequest(field_violations=[error_details_pb2.BadRequest.FieldViolation(
                field=self.field, description=self.message, reason=self.reason)]))
        if self.retry_after is not None:
            found.append(error_details_pb2.RetryInfo(retry_delay=_duration(self.retry_after)))
        return found

    def packed_details(self) -> list[any_pb2.Any]:
        packed = []
        for detail in self.details():
            holder = any_pb2.Any()
            holder.Pack(detail)
            packed.append(holder)
        return packed

    def to_status(self) -> grpc.Status:
        """A ``grpc.Status`` for ``context.abort_with_status``."""
        status: grpc.Status = rpc_status.to_status(status_pb2.Status(code=self.code.value[0], message=self.message,
                                                                     details=self.packed_details()))
        return status

    def to_error_message(self) -> pb.ItemError:
        """The in-band ``ItemError`` of a SolveStream item."""
        return pb.ItemError(code=self.code.value[0], code_name=self.code.name, message=self.message,
                        token=self.token, rule=self.rule, reason=self.reason, field=self.field,
                        details=self.packed_details())


def _duration(seconds: float) -> duration_pb2.Duration:
    duration = duration_pb2.Duration()
    duration.FromNanoseconds(int(max(0.0, seconds) * 1e9))
    return duration


_POSITION_PATH = re.compile(r"position\.(options\.[^.\[]+|[a-z_]+(?:\[\d+\])?)")


def document_field(message_path: str) -> str:
    """The position document's path of a fault found in the request message's own form (an enum
    value out of range, a card with no rank), as ErrorInfo's ``field`` names it for a fault found
    in the document: ``position.played[0].card.rank`` -> ``played[0]``, ``position.trump`` ->
    ``trump``, ``position.options.sedma_value`` -> ``options.sedma_value``; "" for a field of the
    request outside the position (``mode``, ``timeout_seconds``)."""
    found = _POSITION_PATH.match(message_path)
    if found is None:
        return ""
    name = found.group(1)
    return {"game_name": "game", "contract_name": "contract", "document_json": ""}.get(name, name)


def describe(exc: BaseException, request: Any = None, *, prefix: str = "",
             doc: Mapping[str, Any] | None = None) -> Failure:
    """The Failure for ``exc`` raised while serving ``request``.

    ``doc``: the position document of the request, if the caller has it (else it
    is rebuilt from the request to locate a card error's field).
    """
    code = code_of(exc)
    reason = _reason_of(exc, code)
    if code is grpc.StatusCode.INVALID_ARGUMENT:
        assert isinstance(exc, DdcardsError)
        token = shorten(exc.token) if exc.token is not None else ""
        message = bounded_message(str(exc) or type(exc).__name__, exc.token)
        if isinstance(exc, RequestError):
            doc_field = ""
            if exc.field:
                path = prefix + exc.field
                doc_field = document_field(exc.field)
            else:  # the request as a whole (its position), or the whole undecodable message
                path = message_field(request, None, prefix=prefix) if request is not None else ""
        else:
            if doc is None and request is not None:
                doc = _doc_of(request)
            doc_field = clean_text(locate_field(doc, exc) or "")
            path = message_field(request, doc_field, prefix=prefix) if request is not None else doc_field
        return Failure(code, message, reason, token=token, rule=shorten(exc.rule or "", RULE_LIMIT),
                       field=shorten(path, RULE_LIMIT), doc_field=shorten(doc_field, RULE_LIMIT),
                       error_class=type(exc).__name__)
    if isinstance(exc, ServiceError):
        return Failure(code, bounded_message(str(exc)), reason, retry_after=exc.retry_after,
                       metadata={k: shorten(v) for k, v in exc.metadata.items()},
                       error_class=type(exc).__name__)
    if isinstance(exc, TableMemoryError):    # what the server's operator can change, not the client
        exc = exc.for_option("the server's --tt-mb")
    text = clean_text(str(exc))
    if code is grpc.StatusCode.DEADLINE_EXCEEDED:
        # the call's deadline or timeout_seconds, or the server's own --max-search-seconds
        # (service.ServerLimitTimeout and RequestLimitTimeout, which import this module: known
        # here by their fields)
        if getattr(exc, "server_limit", None):
            at = "the server's limit"
        elif getattr(exc, "request_limit", None):
            at = "timeout_seconds"
        else:
            at = "the deadline"
        message = f"search stopped at {at}" + (f": {text}" if text else "")
    elif code is grpc.StatusCode.CANCELLED:
        message = "search cancelled" + (f": {text}" if text else "")
    elif code is grpc.StatusCode.RESOURCE_EXHAUSTED:
        message = "out of memory" + (f": {text}" if text else "")
    else:
        message = f"internal error: {type(exc).__name__}: {text}"
    return Failure(code, bounded_message(message), reason, error_class=type(exc).__name__)


def _doc_of(request: Any) -> Mapping[str, Any] | None:
    from ddcards.server.convert import request_to_doc

    try:
        return request_to_doc(request)
    except Exception:  # noqa: BLE001 - no document: the error is reported without a field
        return None
