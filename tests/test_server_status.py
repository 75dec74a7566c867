"""Unit tests of the service's error model (server/status.py) and of log-safe text (server/calllog.py).

Pure functions: an exception and a request in, the status a client reads out.
"""
from __future__ import annotations

from concurrent.futures import CancelledError

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2

import ddcards
from ddcards.errors import (IllegalPlayError, InvalidCardError, InvalidDealError, InvalidOptionError, NotationError,
                            SearchCancelled, SearchTimeout)
from ddcards.server import calllog, status
from ddcards.v1 import ddcards_pb2 as pb

DEAL = {"game": "marias", "contract": "hra", "trump": "H", "talon": "9C KC",
        "hands": ["AT.AKQ9.AT.87", "KQ.TJ87.KQ.AT", "J987..J987.QJ"]}


def _unpack(failure):
    details = {}
    for packed in failure.packed_details():
        for kind in (error_details_pb2.ErrorInfo, error_details_pb2.BadRequest, error_details_pb2.RetryInfo):
            if packed.Is(kind.DESCRIPTOR):
                message = kind()
                packed.Unpack(message)
                details[kind.__name__] = message
    return details


@pytest.mark.parametrize("exc, code, reason", [
    (InvalidCardError("x", token="ZZ"), grpc.StatusCode.INVALID_ARGUMENT, "INVALID_CARD"),
    (NotationError("x"), grpc.StatusCode.INVALID_ARGUMENT, "NOTATION"),
    (InvalidDealError("x"), grpc.StatusCode.INVALID_ARGUMENT, "INVALID_DEAL"),
    (IllegalPlayError("x", token="AH"), grpc.StatusCode.INVALID_ARGUMENT, "ILLEGAL_PLAY"),
    (InvalidOptionError("x"), grpc.StatusCode.INVALID_ARGUMENT, "INVALID_OPTION"),
    (status.RequestError("x"), grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST"),
    (status.ValueOutOfRange("x"), grpc.StatusCode.INVALID_ARGUMENT, "VALUE_OUT_OF_RANGE"),
    (SearchTimeout("t"), grpc.StatusCode.DEADLINE_EXCEEDED, "SEARCH_TIMEOUT"),
    (SearchCancelled(), grpc.StatusCode.CANCELLED, "SEARCH_CANCELLED"),
    (CancelledError(), grpc.StatusCode.CANCELLED, "SEARCH_CANCELLED"),
    (status.Overloaded("busy", retry_after=0.5), grpc.StatusCode.RESOURCE_EXHAUSTED, "OVERLOADED"),
    (status.TooManyStreams("many", retry_after=1.0), grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_STREAMS"),
    (status.StreamIdle("idle", retry_after=0.0), grpc.StatusCode.UNAVAILABLE, "STREAM_IDLE"),
    (status.Unauthenticated("no token"), grpc.StatusCode.UNAUTHENTICATED, "TOKEN_MISSING"),
    (status.TokenInvalid("bad token"), grpc.StatusCode.UNAUTHENTICATED, "TOKEN_INVALID"),
    (RuntimeError("boom"), grpc.StatusCode.INTERNAL, "INTERNAL"),
])
def test_every_error_class_has_a_code_and_a_stable_reason(exc, code, reason):
    failure = status.describe(exc)
    assert (failure.code, failure.reason) == (code, reason)
    details = _unpack(failure)
    assert details["ErrorInfo"].reason == reason and details["ErrorInfo"].domain == status.DOMAIN
    assert ("BadRequest" in details) == (code is grpc.StatusCode.INVALID_ARGUMENT)
    assert ("RetryInfo" in details) == (code in (grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.UNAVAILABLE))
    # The grpc.Status carries the same google.rpc.Status in its trailer.
    grpc_status = failure.to_status()
    ((key, raw),) = grpc_status.trailing_metadata
    sent = status_pb2.Status.FromString(raw)
    assert key == "grpc-status-details-bin" and sent.code == code.value[0] and sent.message == grpc_status.details
    # ... and a stream item's Error.
    error = failure.to_error_message()
    assert (error.code, error.code_name, error.reason) == (code.value[0], code.name, reason)
    assert [d.type_url for d in error.details] == [d.type_url for d in sent.details]


def test_a_table_that_cannot_be_had_is_resource_exhausted_not_internal():
    failure = status.describe(MemoryError("cannot allocate the 1,024 MiB transposition table mariasz searches need"))
    assert (failure.code, failure.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, status.OUT_OF_MEMORY)
    assert failure.message == "out of memory: cannot allocate the 1,024 MiB transposition table mariasz searches need"
    assert _unpack(failure)["ErrorInfo"].metadata["error_class"] == "MemoryError"
    # The API's advice names tt_mb, which a client cannot give: the message names the server's option
    failure = status.describe(ddcards.TableMemoryError(1024, game="mariasz"))
    assert failure.code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert failure.message == ("out of memory: cannot allocate the 1,024 MiB transposition table mariasz searches "
                               "need: not enough free memory (give a smaller table of a fixed size: the server's "
                               "--tt-mb)")


def test_retry_info_carries_the_delay():
    details = _unpack(status.describe(status.Overloaded("busy", retry_after=2.5, metadata={"queued": "7"})))
    assert details["RetryInfo"].retry_delay.ToNanoseconds() == 2_500_000_000
    assert details["ErrorInfo"].metadata["queued"] == "7"


def test_an_invalid_argument_names_token_rule_class_and_field():
    exc = IllegalPlayError("played[1] 'AS' by seat 1: must follow suit", token="AS", rule="follow suit",
                           field="played[1]")
    request = pb.SolveRequest(position=pb.Position(game_name="marias"))
    failure = status.describe(exc, request)
    info = _unpack(failure)["ErrorInfo"]
    assert dict(info.metadata) == {"token": "AS", "rule": "follow suit", "field": "played[1]",
                                   "error_class": "IllegalPlayError"}
    violation = _unpack(failure)["BadRequest"].field_violations[0]
    assert (violation.field, violation.reason) == ("position.played[1]", "ILLEGAL_PLAY")
    assert violation.description == str(exc)
    as_json = status.describe(exc, pb.SolveRequest(document_json="{}"))
    assert as_json.field == "document_json" and as_json.doc_field == "played[1]"
    in_stream = status.describe(exc, request, prefix="solve.")
    assert in_stream.field == "solve.position.played[1]"


@pytest.mark.parametrize("doc_field, message, path", [
    ("game", pb.Position(game_name="mariáš"), "position.game_name"),
    ("game", pb.Position(game=pb.GAME_MARIAS), "position.game"),
    ("contract", pb.Position(contract=pb.CONTRACT_BETL), "position.contract"),
    ("contract", pb.Position(contract_name="betl"), "position.contract_name"),
    ("hands[2]", pb.Position(), "position.hands[2]"),
    ("options.sedma_value", pb.Position(), "position.options.sedma_value"),
    ("options.a b", pb.Position(), "position.options.`a b`"),
    (None, pb.Position(), "position"),
])
def test_document_paths_map_to_message_paths(doc_field, message, path):
    assert status.message_field(pb.SolveRequest(position=message), doc_field) == path


def test_card_errors_without_a_field_are_located_by_parsing_each_field_alone():
    cases = [
        (dict(DEAL, talon="9C ZZ"), "talon"),
        (dict(DEAL, hands=[DEAL["hands"][0], "KQ.TJ87.KQ.AZ", DEAL["hands"][2]]), "hands[1]"),
        (dict(DEAL, hands=[DEAL["hands"][0], ["KS", "QS", "ZZ"], DEAL["hands"][2]]), "hands[1]"),
        (dict(DEAL, trump="Z"), "trump"),
    ]
    for doc, field in cases:
        with pytest.raises(ddcards.DdcardsError) as info:
            ddcards.Position.from_dict(doc)
        assert status.locate_field(doc, info.value) == field, (doc, info.value)
    # A card twice names where it repeats itself; no card at all: no guess.
    twice = dict(DEAL, talon="AS KC")              # AS is in hand 0 too
    with pytest.raises(ddcards.DdcardsError) as info:
        ddcards.Position.from_dict(twice)
    assert status.locate_field(twice, info.value) == "talon"
    assert status.locate_field({"hands": [[[["deep"]]]]}, InvalidCardError("x", token="deep")) is None


def test_echoes_are_bounded_and_valid_utf8():
    long = "g" * 8000
    message = status.bounded_message(f"unknown game '{long}' (supported: marias, klaverjas)", long)
    assert message.startswith("unknown game 'gggg") and message.endswith("(supported: marias, klaverjas)")
    assert "(8000 chars)" in message and len(message) < 200
    assert len(status.bounded_message("x " * 5000)) <= status.MESSAGE_LIMIT + 40
    assert status.shorten("\ud800abc") == "\\ud800abc"
    failure = status.describe(InvalidOptionError(f"unknown game '\ud800{long}'", token="\ud800" + long),
                              pb.SolveRequest(document_json="{}"))
    failure.to_status()                                   # encodes: no UnicodeEncodeError
    assert len(failure.token) < 100 and failure.token.startswith("\\ud800")
    assert len(failure.to_status().trailing_metadata[0][1]) < 2000


@pytest.mark.parametrize("message", ["x " * 5000, "😀" * 5000, "é" * 700, "a" * 601, "\ud800" * 2000])
def test_messages_are_cut_to_their_characters_and_bytes(message):
    cut = status.bounded_message(message)
    assert len(cut) <= status.MESSAGE_LIMIT and len(cut.encode("utf-8")) <= status.MESSAGE_BYTES
    assert "chars)…" in cut and cut[:1] == status.clean_text(message)[:1]
    assert status.bounded_message("a" * status.MESSAGE_LIMIT) == "a" * status.MESSAGE_LIMIT


def test_internal_errors_name_the_exception_only():
    failure = status.describe(ValueError("x" * 10_000))
    assert failure.code is grpc.StatusCode.INTERNAL and failure.message.startswith("internal error: ValueError: xxx")
    assert len(failure.message) <= status.MESSAGE_LIMIT + 40


# ---------------------------------------------------------------- log-safe text

@pytest.mark.parametrize("value, logged", [
    ("marias", "marias"),
    ("a b", "a\\x20b"),
    ("line\nforged", "line\\nforged"),
    ("\x1b[31mred", "\\x1b[31mred"),
    ("back\\slash", "back\\\\slash"),
    ("\ud800", "\\ud800"),
    ("\u2028", "\\u2028"),
    ("mariáš", "mariáš"),
    ("x" * 100, "x" * 64 + "…(+36)"),
])
def test_log_fields_are_escaped_and_cut(value, logged):
    assert calllog.log_field(value) == logged


def test_exception_text_escapes_the_message_and_keeps_the_frames():
    try:
        raise RuntimeError("one\ntwo")
    except RuntimeError as exc:
        text = calllog.exception_text(exc)
    first, *frames = text.split("\n")
    assert first == "RuntimeError: one\\ntwo" and frames and frames[0].startswith("  File ")


class _Context:
    """time_remaining() as grpc's servicer context gives it: None or a huge number for none."""

    def __init__(self, remaining):
        self.remaining = remaining

    def time_remaining(self):
        return self.remaining


@pytest.mark.parametrize("budget, remaining, passed", [
    (None, None, False),            # no deadline
    (None, 1e9, False),             # grpc's "none": a huge time left
    (1e9, 1e9, False),
    (1.0, 0.005, True),             # within grpc's own 10 ms
    (1.0, 0.05, False),             # a client's cancel 50 ms before a 1 s deadline
    (10.0, 0.08, True),             # a 10 s call: the client's grpc-timeout may run 100 ms short
    (10.0, 0.2, False),
    (120.0, 1.1, True),             # 120 s: 1 s steps
    (120.0, 3.0, False),
])
def test_a_call_ended_near_its_deadline_ended_by_it(budget, remaining, passed):
    """The server's deadline falls after the client's by what the client's grpc rounded its
    timeout up (up to 1%): a client giving up at its deadline is logged DEADLINE_EXCEEDED,
    as it heard, not CANCELLED."""
    from ddcards.server.interceptors import call_budget, deadline_passed

    assert call_budget(_Context(budget)) == (budget if budget is not None and budget < 1e8 else None)
    assert deadline_passed(_Context(remaining), call_budget(_Context(budget))) is passed
