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
part (reason, token, rule, field path, retry delay).

A server started with ``--tls-cert``/``--tls-key`` wants ``tls=True`` (and
``root_certificates=`` for a private CA); one started with a token wants
``token=...``.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, TypeVar

import grpc
# Neither ships type information (googleapis-common-protos has .pyi files but no py.typed; no
# stubs for grpc_status here): their few uses below are typed at the call.
from google.rpc import error_details_pb2  # type: ignore[import-untyped, unused-ignore]
from grpc_status import rpc_status  # type: ignore[import-untyped, unused-ignore]

from ddcards.server import convert
from ddcards.v1 import ddcards_pb2 as pb
from ddcards.v1 import ddcards_pb2_grpc as pb_grpc

__all__ = ["Client", "error_details", "pb"]

_Request = TypeVar("_Request")


def _source(position: Any) -> dict[str, Any]:
    """The ``source`` oneof of a request (position or document_json) for any accepted input."""
    if isinstance(position, pb.Position):
        return {"position": position}
    if isinstance(position, str):
        return {"document_json": position}
    if not isinstance(position, Mapping) and hasattr(position, "to_dict"):
        position = position.to_dict()  # ddcards.Position
    if isinstance(position, Mapping):
        message = convert.doc_to_position(position)
        if message is not None:
            return {"position": message}
        return {"document_json": json.dumps(dict(position), ensure_ascii=False)}
    raise TypeError(f"cannot send {type(position).__name__} as a position: "
                    "use a position document (dict), its JSON text, or a Position message")


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
    """Wraps a ``SolverService`` stub. ``timeout`` (seconds) is the default deadline of every call.

    ``tls``: connect with TLS (``root_certificates``: PEM of the CA to trust, default the
    system's); ``token``: the server's bearer token, sent with every call.
    """

    def __init__(self, target: str = "127.0.0.1:50051", *, channel: grpc.Channel | None = None,
                 timeout: float | None = None, options: list[tuple[str, Any]] | None = None,
                 tls: bool = False, root_certificates: bytes | None = None, token: str | None = None):
        self._own_channel = channel is None
        if channel is None:
            if tls or root_certificates is not None:
                channel = grpc.secure_channel(target, grpc.ssl_channel_credentials(root_certificates),
                                              options=options or [])
            else:
                channel = grpc.insecure_channel(target, options=options or [])
        self._raw_channel = channel
        if token:
            channel = grpc.intercept_channel(channel, _BearerToken(token))
        self.channel = channel
        self.stub = pb_grpc.SolverServiceStub(self.channel)
        self.timeout = timeout

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._own_channel:
            self._raw_channel.close()

    def _timeout(self, timeout: float | None) -> float | None:
        return self.timeout if timeout is None else timeout

    @staticmethod
    def solve_request(position: Any, mode: str | int = "all", *, timeout_seconds: float = 0.0) -> pb.SolveRequest:
        return pb.SolveRequest(mode=convert.name_to_mode(mode), timeout_seconds=timeout_seconds, **_source(position))

    def solve(self, position: Any, mode: str | int = "all", *, timeout: float | None = None,
              as_dict: bool = True) -> dict[str, Any] | pb.SolveResponse:
        """Solve a position. ``mode``: "best" | "optimal" | "all" (default)."""
        response = self.stub.Solve(self.solve_request(position, mode), timeout=self._timeout(timeout))
        return convert.response_to_dict(response) if as_dict else response

    def solve_future(self, position: Any, mode: str | int = "all", *, timeout: float | None = None) -> grpc.Future[pb.SolveResponse]:
        """Start a Solve and return its future (``.result()``, ``.cancel()``); the result is the message."""
        return self.stub.Solve.future(self.solve_request(position, mode), timeout=self._timeout(timeout))

    def analyse(self, position: Any, mode: str | int = "optimal", *, timeout: float | None = None,
                as_dict: bool = True) -> dict[str, Any] | pb.AnalysePlayResponse:
        """Analyse the recorded play ``position["played"]`` from the start of the deal.
        ``mode``: "optimal" (default: each step's optimal moves) or "all" (every legal move's value too)."""
        request = pb.AnalysePlayRequest(mode=convert.name_to_mode(mode), **_source(position))
        response = self.stub.AnalysePlay(request, timeout=self._timeout(timeout))
        return convert.analysis_response_to_dict(response) if as_dict else response

    def solve_many(self, positions: Iterable[Any], mode: str | int = "all", *, timeout: float | None = None,
                   as_dict: bool = True, ids: Iterable[str] | None = None) -> Iterator[Any]:
        """Solve many positions over one SolveStream; yields each outcome as it finishes.

        As dicts: ``{"index": i, "id": ..., "result": {...}}`` or
        ``{"index": i, "id": ..., "error": {"code": "INVALID_ARGUMENT", "message": ..., "reason": ...,
        "token": ..., "rule": ..., "field": ..., ...}}`` (the fields of :func:`error_details`).
        """
        id_list = list(ids) if ids is not None else None

        def requests() -> Iterator[pb.SolveStreamRequest]:
            for i, position in enumerate(positions):
                item_id = id_list[i] if id_list is not None else str(i)
                yield pb.SolveStreamRequest(id=item_id, solve=self.solve_request(position, mode))

        for response in self.stub.SolveStream(requests(), timeout=self._timeout(timeout)):
            if not as_dict:
                yield response
                continue
            out: dict[str, Any] = {"index": response.index, "id": response.id}
            if response.WhichOneof("outcome") == "result":
                out["result"] = convert.response_to_dict(response.result)
            else:
                out["error"] = error_details(response.error)
            yield out

    def solve_table(self, position: Any, *, timeout: float | None = None,
                    as_dict: bool = True) -> dict[str, Any] | pb.SolveTableResponse:
        """The DD table of a whole deal: its value for every choice made before play.

        Klaverjas, every trump suit and playing team, as a dict: ``{"game", "rules", "leader",
        "values": {"S": [team 0, team 1], ...}, "nodes", "elapsed_ms"}``.  Mariáš (the deal as dealt,
        forehand's 12 cards in hands[0], or with its discard fixed), every discard x contract, best first:
        ``{"game", "hands", "talon", "flek", "players", "entries": [{"discard", "contract", "trump",
        "announcements", "value", "value_kind", "won", "money"}, ...], "nodes", "elapsed_ms"}``.
        """
        response = self.stub.SolveTable(pb.SolveTableRequest(**_source(position)), timeout=self._timeout(timeout))
        return convert.table_response_to_dict(response) if as_dict else response

    def list_games(self, *, timeout: float | None = None, as_dict: bool = True) -> list[dict[str, Any]] | pb.ListGamesResponse:
        """The games the server supports, with contracts, objectives and options."""
        response = self.stub.ListGames(pb.ListGamesRequest(), timeout=self._timeout(timeout))
        return convert.games_response_to_list(response) if as_dict else response
