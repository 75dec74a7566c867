"""A small Python client for the ddcards gRPC service.

    from ddcards.client import Client

    with Client("127.0.0.1:50051") as client:
        result = client.solve({"game": "marias", "hands": [...], "talon": "7S 8D",
                               "contract": "hra", "trump": "H"}, mode="all")
        print(result["value"], result["optimal_moves"])

A position is given as a position document (dict, docs/RULES.md §0.6), its JSON
text, a ``ddcards.v1.Position`` message or a ``ddcards.Position``. Results are
plain dicts shaped like the solver's result documents (``as_dict=False``
returns the response messages). Errors are raised as ``grpc.RpcError``
(``.code()``, ``.details()``); :func:`error_details` reads the machine-readable
part (reason, token, rule, field path, retry delay). A position that cannot be put
in a message at all (a number JSON cannot write, a set, a lone surrogate in a JSON
text) is refused before sending with the status the server gives it: a
:class:`RejectedRequest`, both a ``grpc.RpcError`` and a ``ddcards.DdcardsError``.

A server started with ``--tls-cert``/``--tls-key`` wants ``tls=True`` (and
``root_certificates=`` for a private CA); one started with a token wants
``token=...``.
"""
from __future__ import annotations

import dataclasses
import json
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

import grpc
# Neither ships type information (googleapis-common-protos has .pyi files but no py.typed; no
# stubs for grpc_status here): their few uses below are typed at the call.
from google.rpc import error_details_pb2  # type: ignore[import-untyped, unused-ignore]
from grpc_status import rpc_status  # type: ignore[import-untyped, unused-ignore]

from ddcards._jsonio import POSITION_RULE
from ddcards.api import check_timeout
from ddcards.errors import DdcardsError, InvalidArgumentTypeError, InvalidOptionError
from ddcards.notation import Card, Rank, Suit
from ddcards.position import Position
from ddcards.server import convert, status
from ddcards.v1 import ddcards_pb2 as pb
from ddcards.v1 import ddcards_pb2_grpc as pb_grpc

__all__ = ["Client", "RejectedRequest", "error_details", "pb"]

_Request = TypeVar("_Request")
# What solve_future returns: a grpc.Future of the response. grpc's stubs make Future generic,
# grpc itself does not (grpc.Future[...] raises at run time): the run-time name is the plain
# class, so that typing.get_type_hints resolves the method's annotations.
if TYPE_CHECKING:
    SolveFuture = grpc.Future[pb.SolveResponse]
else:
    SolveFuture = grpc.Future
TARGET_RULE = "Client(target): the server's address, host:port"
IDS_RULE = "Client.solve_many(ids=...): one str id for each position"
# gRPC holds a call's deadline as nanoseconds since the epoch in 64 bits (to the year 2262): a
# timeout that ends later read as a deadline already passed, DEADLINE_EXCEEDED at once (1e10 s,
# 1e300 s). A timeout this long or longer is no limit, as infinity is (over 31 years).
LONGEST_DEADLINE_SECONDS = 1e9


def _deadline_seconds(timeout: Any) -> float | None:
    """A call's timeout as grpc takes it: check_timeout's, None (no deadline) past the longest."""
    seconds = check_timeout(timeout)
    return None if seconds is not None and seconds >= LONGEST_DEADLINE_SECONDS else seconds


def _source(position: Any) -> dict[str, Any]:
    """The ``source`` oneof of a request (position or document_json) for any accepted input.

    A position that cannot even be put in a message (a lone surrogate in a JSON text, a number
    JSON cannot write, a set, a document nested beyond Python's limits) is refused here with
    the error the server gives for it (:class:`RejectedRequest`), not sent."""
    if not isinstance(position, (pb.Position, str, Mapping)) and hasattr(position, "to_dict"):
        position = position.to_dict()  # ddcards.Position
    try:
        if isinstance(position, pb.Position):
            return {"position": position}
        if isinstance(position, str):
            position.encode("utf-8")        # a proto string holds valid UTF-8 only
            return {"document_json": position}
        if isinstance(position, Mapping):
            position = _notation(position)
            json.dumps(position, allow_nan=False)   # NaN or an infinity anywhere: no JSON (RFC 8259)
            message = convert.doc_to_position(position)
            if message is not None:
                return {"position": message}
            # ASCII: a lone surrogate goes as its escape, for the server to name
            return {"document_json": json.dumps(dict(position), ensure_ascii=True)}
    except (TypeError, ValueError, RecursionError) as exc:   # UnicodeError is a ValueError
        raise _rejected(position, exc) from None
    raise InvalidArgumentTypeError(f"cannot send {type(position).__name__} as a position: use a position "
                                   "document (dict), its JSON text, or a Position message",
                                   token=type(position).__name__, rule=POSITION_RULE, field="position")


def _notation(value: Any, depth: int = 0) -> Any:
    """A document with the library's values in it (a Card in a hand, Position.trump's Suit) as
    the notation the library reads them as, so that it travels as it would be solved here (a
    Suit is an int to JSON); everything else as it is, for the server to judge."""
    if depth > 20:
        return value                    # the server names a document nested that deep
    if isinstance(value, (Card, Suit, Rank)):
        return str(value)
    if isinstance(value, Mapping):
        return {k: _notation(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_notation(v, depth + 1) for v in value]
    return value


class RejectedRequest(grpc.RpcError, DdcardsError):
    """A request the client refused to send: the position cannot be put in a message.

    It carries the status the server answers such a position with (INVALID_ARGUMENT, the
    offending token and rule: :func:`error_details` reads it), and is a ``grpc.RpcError`` as
    every failed call is, and a :class:`ddcards.DdcardsError` as the library's own refusal is.
    """

    def __init__(self, failure: status.Failure):
        DdcardsError.__init__(self, failure.message, token=failure.token or None, rule=failure.rule or None,
                              field=failure.doc_field or None)
        self.failure = failure
        self.reason = failure.reason
        self._status = failure.to_status()

    def __reduce__(self) -> tuple[type[RejectedRequest], tuple[status.Failure]]:
        return RejectedRequest, (self.failure,)      # pickled as its Failure (a process pool's worker)

    def code(self) -> grpc.StatusCode:
        """The status code the server gives such a position (INVALID_ARGUMENT), as a failed call's."""
        return self._status.code

    def details(self) -> str:
        """The status message: what is wrong, naming the token and the rule."""
        return self._status.details

    def trailing_metadata(self) -> Any:
        """The trailers a failed call carries: the google.rpc details that ``error_details`` reads."""
        return self._status.trailing_metadata


def _iterable(values: Any, name: str, rule: str) -> Iterator[Any]:
    try:
        if isinstance(values, (str, bytes, Mapping)):
            raise TypeError
        return iter(values)
    except TypeError:
        raise InvalidArgumentTypeError(f"{name} must be an iterable (a list, say), not {type(values).__name__}",
                                       token=type(values).__name__, rule=rule, field=name) from None


def _check_id(item_id: Any, i: int) -> None:
    """A stream item's id: a str that a message can hold (valid Unicode)."""
    if item_id is None:
        problem = f"ids: no id for position {i}"
    elif not isinstance(item_id, str):
        problem = f"ids: an id is a str, not {type(item_id).__name__} (position {i})"
    else:
        try:
            item_id.encode("utf-8")
            return
        except UnicodeError:
            problem = f"ids: the id of position {i} is not valid Unicode (a lone surrogate)"
    raise RejectedRequest(status.Failure(grpc.StatusCode.INVALID_ARGUMENT, problem, DdcardsError.reason,
                                         rule=IDS_RULE, field="id"))


def _rejected(position: Any, exc: BaseException) -> RejectedRequest:
    """The refusal of a position that cannot be encoded: the library's reading of it names
    what is wrong, as the server's would."""
    try:
        if isinstance(position, str):
            Position.from_json(position)
        else:
            Position.from_dict(position)
    except DdcardsError as error:
        failure = status.describe(error, doc=position if isinstance(position, Mapping) else None)
        # the request's field, as the server names it: such a document goes as its JSON text
        return RejectedRequest(dataclasses.replace(failure, field="document_json"))
    except RecursionError:
        pass
    text = status.clean_text(f"{type(exc).__name__}: {exc}")
    return RejectedRequest(status.Failure(grpc.StatusCode.INVALID_ARGUMENT,
                                          f"the position cannot be sent in a request ({text})",
                                          DdcardsError.reason, rule=POSITION_RULE, field="document_json"))


def error_details(error: grpc.RpcError | Any) -> dict[str, Any]:
    """The google.rpc details of a failed call (a ``grpc.RpcError``) or of a stream item's
    ``ItemError`` message, as a dict: ``code``, ``message``, ``reason``, ``domain``, ``token``,
    ``rule``, ``field`` (the request field's path, e.g. ``position.played[1]``),
    ``doc_field`` (the document's, e.g. ``played[1]``) and ``retry_after`` (seconds, or None)."""
    if isinstance(error, pb.ItemError):
        out: dict[str, Any] = {"code": error.code_name, "message": error.message}
        details = list(error.details)
    else:
        status = rpc_status.from_call(error) if hasattr(error, "trailing_metadata") else None
        out = {"code": error.code().name, "message": error.details()}
        details = list(status.details) if status is not None else []
    out.update(reason="", domain="", token="", rule="", field="", doc_field="", retry_after=None)
    for detail in details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            out.update(reason=info.reason, domain=info.domain, token=info.metadata.get("token", ""),
                       rule=info.metadata.get("rule", ""), doc_field=info.metadata.get("field", ""))
        elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            if bad.field_violations:
                out["field"] = bad.field_violations[0].field
        elif detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
            retry = error_details_pb2.RetryInfo()
            detail.Unpack(retry)
            out["retry_after"] = retry.retry_delay.ToNanoseconds() / 1e9
    return out


class _BearerToken(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor,
                   grpc.StreamUnaryClientInterceptor, grpc.StreamStreamClientInterceptor):
    """Adds ``authorization: Bearer <token>`` to every call (plain or TLS channels alike)."""

    def __init__(self, token: str):
        self._header = ("authorization", f"Bearer {token}")

    def _details(self, details: grpc.ClientCallDetails) -> grpc.ClientCallDetails:
        metadata = list(details.metadata or ()) + [self._header]
        return details._replace(metadata=metadata) if hasattr(details, "_replace") else _CallDetails(
            details.method, details.timeout, metadata, details.credentials, details.wait_for_ready,
            details.compression)

    def intercept_unary_unary(self, continuation: Callable[[grpc.ClientCallDetails, _Request], Any],
                              client_call_details: grpc.ClientCallDetails, request: _Request) -> Any:
        return continuation(self._details(client_call_details), request)

    def intercept_unary_stream(self, continuation: Callable[[grpc.ClientCallDetails, _Request], Any],
                               client_call_details: grpc.ClientCallDetails, request: _Request) -> Any:
        return continuation(self._details(client_call_details), request)

    def intercept_stream_unary(self, continuation: Callable[[grpc.ClientCallDetails, Iterator[_Request]], Any],
                               client_call_details: grpc.ClientCallDetails,
                               request_iterator: Iterator[_Request]) -> Any:
        return continuation(self._details(client_call_details), request_iterator)

    def intercept_stream_stream(self, continuation: Callable[[grpc.ClientCallDetails, Iterator[_Request]], Any],
                                client_call_details: grpc.ClientCallDetails,
                                request_iterator: Iterator[_Request]) -> Any:
        return continuation(self._details(client_call_details), request_iterator)


class _CallDetails(grpc.ClientCallDetails):
    def __init__(self, method: str, timeout: float | None, metadata: Any, credentials: grpc.CallCredentials | None,
                 wait_for_ready: bool | None, compression: grpc.Compression | None):
        self.method, self.timeout, self.metadata = method, timeout, metadata
        self.credentials, self.wait_for_ready, self.compression = credentials, wait_for_ready, compression


class Client:
    """Wraps a ``SolverService`` stub. ``timeout`` (seconds) is the default deadline of every call
    (None, infinity or 10**9 s and more: none).

    ``tls``: connect with TLS (``root_certificates``: PEM of the CA to trust, default the
    system's); ``certificate_chain`` and ``private_key``: this client's PEM certificate and
    key, for a server that requires them (``ddcards serve --tls-client-ca``; TLS implied);
    ``token``: the server's bearer token, sent with every call.
    """

    def __init__(self, target: str = "127.0.0.1:50051", *, channel: grpc.Channel | None = None,
                 timeout: float | None = None, options: list[tuple[str, Any]] | None = None,
                 tls: bool = False, root_certificates: bytes | None = None, token: str | None = None,
                 certificate_chain: bytes | None = None, private_key: bytes | None = None):
        if channel is None and not isinstance(target, str):
            raise InvalidArgumentTypeError(f"target must be an address such as '127.0.0.1:50051', not "
                                           f"{type(target).__name__}", token=type(target).__name__,
                                           rule=TARGET_RULE, field="target")
        for name, pem in (("root_certificates", root_certificates), ("certificate_chain", certificate_chain),
                          ("private_key", private_key)):
            if pem is not None and not isinstance(pem, bytes):      # grpc's own error names neither
                raise InvalidArgumentTypeError(f"{name} must be PEM bytes (a file's contents, read in binary), not "
                                               f"{type(pem).__name__}", token=type(pem).__name__,
                                               rule=f"Client({name}): PEM bytes", field=name)
        if (certificate_chain is None) != (private_key is None):
            given = "certificate_chain" if private_key is None else "private_key"
            raise InvalidOptionError(f"{given} without its pair: a client certificate needs both "
                                     "certificate_chain and private_key", token=given,
                                     rule="Client: a client certificate is a certificate_chain and its private_key",
                                     field=given)
        self.timeout = _deadline_seconds(timeout)
        self._own_channel = channel is None
        if channel is None:
            if tls or root_certificates is not None or certificate_chain is not None:
                credentials = grpc.ssl_channel_credentials(root_certificates, private_key, certificate_chain)
                channel = grpc.secure_channel(target, credentials, options=options or [])
            else:
                channel = grpc.insecure_channel(target, options=options or [])
        self._raw_channel = channel
        if token:
            channel = grpc.intercept_channel(channel, _BearerToken(token))
        self.channel = channel
        self.stub = pb_grpc.SolverServiceStub(self.channel)

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the channel this client opened (one given as ``channel=`` is the caller's to close)."""
        if self._own_channel:
            self._raw_channel.close()

    def _timeout(self, timeout: float | None) -> float | None:
        """A call's deadline in seconds (None: none): `timeout`, else the client's default."""
        return self.timeout if timeout is None else _deadline_seconds(timeout)

    @staticmethod
    def solve_request(position: Any, mode: str | int = "all", *, timeout_seconds: float = 0.0) -> pb.SolveRequest:
        """The ``SolveRequest`` message ``solve`` sends for `position` (0 ``timeout_seconds``: no limit of its own)."""
        return pb.SolveRequest(mode=convert.name_to_mode(mode), timeout_seconds=timeout_seconds, **_source(position))

    @overload
    def solve(self, position: Any, mode: str | int = "all", *, timeout: float | None = None,
              as_dict: Literal[True] = True) -> dict[str, Any]: ...
    @overload
    def solve(self, position: Any, mode: str | int = "all", *, timeout: float | None = None,
              as_dict: Literal[False]) -> pb.SolveResponse: ...
    @overload
    def solve(self, position: Any, mode: str | int = "all", *, timeout: float | None = None,
              as_dict: bool = True) -> dict[str, Any] | pb.SolveResponse: ...

    def solve(self, position: Any, mode: str | int = "all", *, timeout: float | None = None,
              as_dict: bool = True) -> dict[str, Any] | pb.SolveResponse:
        """Solve a position. ``mode``: "best" | "optimal" | "all" (default)."""
        response = self.stub.Solve(self.solve_request(position, mode), timeout=self._timeout(timeout))
        return convert.response_to_dict(response) if as_dict else response

    def solve_future(self, position: Any, mode: str | int = "all", *,
                     timeout: float | None = None) -> SolveFuture:
        """Start a Solve and return its future (``.result()``, ``.cancel()``); the result is the message."""
        return self.stub.Solve.future(self.solve_request(position, mode), timeout=self._timeout(timeout))

    @overload
    def analyse(self, position: Any, mode: str | int = "optimal", *, timeout: float | None = None,
                as_dict: Literal[True] = True, from_ply: int = 0) -> dict[str, Any]: ...
    @overload
    def analyse(self, position: Any, mode: str | int = "optimal", *, timeout: float | None = None,
                as_dict: Literal[False], from_ply: int = 0) -> pb.AnalysePlayResponse: ...
    @overload
    def analyse(self, position: Any, mode: str | int = "optimal", *, timeout: float | None = None,
                as_dict: bool = True, from_ply: int = 0) -> dict[str, Any] | pb.AnalysePlayResponse: ...

    def analyse(self, position: Any, mode: str | int = "optimal", *, timeout: float | None = None,
                as_dict: bool = True, from_ply: int = 0) -> dict[str, Any] | pb.AnalysePlayResponse:
        """Analyse the recorded play ``position["played"]`` from the start of the deal (or from
        ``played[from_ply]``: the actions before it are replayed, not searched).
        ``mode``: "optimal" (default: each step's optimal moves) or "all" (every legal move's value too)."""
        request = pb.AnalysePlayRequest(mode=convert.name_to_analysis_mode(mode), from_ply=convert.from_ply_field(from_ply),
                                        **_source(position))
        response = self.stub.AnalysePlay(request, timeout=self._timeout(timeout))
        return convert.analysis_response_to_dict(response) if as_dict else response

    @overload
    def analyse_stream(self, position: Any, mode: str | int = "optimal", *, timeout: float | None = None,
                       as_dict: Literal[True] = True, from_ply: int = 0) -> Iterator[dict[str, Any]]: ...
    @overload
    def analyse_stream(self, position: Any, mode: str | int = "optimal", *, timeout: float | None = None,
                       as_dict: Literal[False], from_ply: int = 0) -> Iterator[pb.AnalysePlayStreamResponse]: ...
    @overload
    def analyse_stream(self, position: Any, mode: str | int = "optimal", *, timeout: float | None = None,
                       as_dict: bool = True, from_ply: int = 0
                       ) -> Iterator[dict[str, Any]] | Iterator[pb.AnalysePlayStreamResponse]: ...

    def analyse_stream(self, position: Any, mode: str | int = "optimal", *, timeout: float | None = None,
                       as_dict: bool = True, from_ply: int = 0) -> Iterator[Any]:
        """``analyse`` over an AnalysePlayStream: yields each step as soon as the server has analysed
        it, then the whole analysis (as dicts, ``{"step": {...}}`` then ``{"analysis": {...}}``, the
        dicts ``analyse`` gives).  The steps yielded stay valid if the stream then ends with an
        error (the deadline, say): a long deal's analysis is not lost to it.  Closing the generator
        cancels the call, which stops the server's analysis: ``stream.close()``, or leaving a
        ``for`` loop written over the call itself (``for event in client.analyse_stream(...)``),
        which drops the generator.  A generator kept in a variable is not closed by a ``break``:
        the server analyses on (minutes, a long deal) until it is closed or dropped."""
        # Bad arguments fail the call here, before the stream is opened (in the generator they
        # would wait for the first next()).
        request = pb.AnalysePlayStreamRequest(mode=convert.name_to_analysis_mode(mode),
                                              from_ply=convert.from_ply_field(from_ply), **_source(position))
        return self._analysis_events(request, self._timeout(timeout), as_dict)

    def _analysis_events(self, request: pb.AnalysePlayStreamRequest, timeout: float | None,
                         as_dict: bool) -> Iterator[Any]:
        """analyse_stream's events, from the call opened here."""
        call = self.stub.AnalysePlayStream(request, timeout=timeout)
        try:
            for message in call:
                if not as_dict:
                    yield message
                elif message.WhichOneof("event") == "step":
                    yield {"step": convert.step_dict(message.step)}
                else:
                    yield {"analysis": convert.analysis_response_to_dict(message.analysis)}
        finally:
            call.cancel()       # a caller that stops reading (closes the generator) ends the server's analysis

    @overload
    def solve_many(self, positions: Iterable[Any], mode: str | int = "all", *, timeout: float | None = None,
                   as_dict: Literal[True] = True, ids: Iterable[str] | None = None) -> Iterator[dict[str, Any]]: ...
    @overload
    def solve_many(self, positions: Iterable[Any], mode: str | int = "all", *, timeout: float | None = None,
                   as_dict: Literal[False], ids: Iterable[str] | None = None) -> Iterator[pb.SolveStreamResponse]: ...
    @overload
    def solve_many(self, positions: Iterable[Any], mode: str | int = "all", *, timeout: float | None = None,
                   as_dict: bool = True, ids: Iterable[str] | None = None
                   ) -> Iterator[dict[str, Any]] | Iterator[pb.SolveStreamResponse]: ...

    def solve_many(self, positions: Iterable[Any], mode: str | int = "all", *, timeout: float | None = None,
                   as_dict: bool = True, ids: Iterable[str] | None = None) -> Iterator[Any]:
        """Solve many positions over one SolveStream; yields each outcome as it finishes.

        As dicts: ``{"index": i, "id": ..., "result": {...}}`` or
        ``{"index": i, "id": ..., "error": {"code": "INVALID_ARGUMENT", "message": ..., "reason": ...,
        "token": ..., "rule": ..., "field": ..., ...}}`` (the fields of :func:`error_details`).
        ``index`` is the position's place in `positions`. A position the client cannot put in a
        message (:class:`RejectedRequest`) is answered so too, without being sent; the others go on.
        """
        # Bad arguments fail the call here, before any item (not on gRPC's thread, which would end
        # the stream with UNKNOWN).
        mode_number = convert.name_to_mode(mode)
        deadline = self._timeout(timeout)
        position_source = _iterable(positions, "positions", POSITION_RULE)
        id_source = _iterable(ids, "ids", IDS_RULE) if ids is not None else None
        sent: list[int] = []                              # the stream's item k is positions[sent[k]]
        refused: deque[tuple[int, str, RejectedRequest]] = deque()

        def requests() -> Iterator[pb.SolveStreamRequest]:
            # Runs on gRPC's thread: an item that cannot be sent is answered here, in band,
            # and the others go on (an exception would end the whole stream).
            for i, position in enumerate(position_source):
                item_id: Any = str(i)
                try:
                    if id_source is not None:
                        item_id = next(id_source, None)
                        _check_id(item_id, i)
                    request = pb.SolveStreamRequest(id=item_id, solve=self.solve_request(position, mode_number))
                except DdcardsError as exc:
                    failure = exc.failure if isinstance(exc, RejectedRequest) else status.describe(exc)
                    # the field as the server names a stream item's (solve.document_json, say)
                    if failure.field and failure.field != "id":
                        failure = dataclasses.replace(failure, field=f"solve.{failure.field}")
                    shown_id = status.clean_text(item_id) if isinstance(item_id, str) else ""
                    refused.append((i, shown_id, RejectedRequest(failure)))
                    continue
                sent.append(i)
                yield request

        def refusals() -> Iterator[Any]:
            while refused:
                i, item_id, exc = refused.popleft()
                if as_dict:
                    yield {"index": i, "id": item_id, "error": error_details(exc)}
                else:
                    yield pb.SolveStreamResponse(id=item_id, index=i, error=exc.failure.to_error_message())

        for response in self.stub.SolveStream(requests(), timeout=deadline):
            yield from refusals()
            index = sent[response.index] if 0 <= response.index < len(sent) else response.index
            if not as_dict:
                if index != response.index:
                    response.index = index
                yield response
                continue
            out: dict[str, Any] = {"index": index, "id": response.id}
            if response.WhichOneof("outcome") == "result":
                out["result"] = convert.response_to_dict(response.result)
            else:
                out["error"] = error_details(response.error)
            yield out
        yield from refusals()

    @overload
    def solve_table(self, position: Any, *, timeout: float | None = None,
                    as_dict: Literal[True] = True) -> dict[str, Any]: ...
    @overload
    def solve_table(self, position: Any, *, timeout: float | None = None,
                    as_dict: Literal[False]) -> pb.SolveTableResponse: ...
    @overload
    def solve_table(self, position: Any, *, timeout: float | None = None,
                    as_dict: bool = True) -> dict[str, Any] | pb.SolveTableResponse: ...

    def solve_table(self, position: Any, *, timeout: float | None = None,
                    as_dict: bool = True) -> dict[str, Any] | pb.SolveTableResponse:
        """The DD table of a whole deal: its value for every choice made before play.

        Klaverjas, every trump suit and playing team, as a dict: ``{"game", "hands", "rules", "leader",
        "values": {"S": [team 0, team 1], ...}, "nodes", "elapsed_ms"}``.  Mariáš (the deal as dealt,
        forehand's 12 cards in hands[0], or with its discard fixed), every discard x contract, best first:
        ``{"game", "hands", "talon", "flek", "players", "options", "entries": [{"discard", "contract",
        "trump", "announcements", "value", "value_kind", "won", "money"}, ...], "nodes", "elapsed_ms"}``.
        Either is ``ddcards.dd_table``'s dict (but its timing), so ``ddcards.ddtable.row_position``
        makes a row's own position of it.
        """
        response = self.stub.SolveTable(pb.SolveTableRequest(**_source(position)), timeout=self._timeout(timeout))
        return convert.table_response_to_dict(response) if as_dict else response

    @overload
    def list_games(self, *, timeout: float | None = None, as_dict: Literal[True] = True) -> list[dict[str, Any]]: ...
    @overload
    def list_games(self, *, timeout: float | None = None, as_dict: Literal[False]) -> pb.ListGamesResponse: ...
    @overload
    def list_games(self, *, timeout: float | None = None,
                   as_dict: bool = True) -> list[dict[str, Any]] | pb.ListGamesResponse: ...

    def list_games(self, *, timeout: float | None = None, as_dict: bool = True) -> list[dict[str, Any]] | pb.ListGamesResponse:
        """The games the server supports, with contracts, objectives and options."""
        response = self.stub.ListGames(pb.ListGamesRequest(), timeout=self._timeout(timeout))
        return convert.games_response_to_list(response) if as_dict else response
