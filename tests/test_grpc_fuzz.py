"""Fuzzing the gRPC service through a real server on a loopback port (hypothesis).

Malformed ``Position`` messages, ``document_json`` texts (mutated valid documents, huge
numbers, deep nesting, lone surrogates, cut-off JSON, random text), raw bytes that are
no message at all, and streams mixing all of them go to Solve, AnalysePlay,
AnalysePlayStream, SolveTable and SolveStream. Every call must end OK, INVALID_ARGUMENT (with an ErrorInfo reason and a
BadRequest field) or DEADLINE_EXCEEDED (searches are capped at 0.5 s): never INTERNAL,
UNKNOWN or RESOURCE_EXHAUSTED; and the server keeps serving.

Budget: ``DDCARDS_FUZZ_EXAMPLES`` examples per target (default 60, a few seconds each in
CI); a longer run: ``DDCARDS_FUZZ_EXAMPLES=5000 pytest tests/test_grpc_fuzz.py``. What it
found is in docs/FUZZING.md ("Service").
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ddcards
from _server_helpers import marias_position, running_server
from ddcards.client import Client, error_details
from ddcards.server import convert
from ddcards.v1 import ddcards_pb2 as pb

EXAMPLES = int(os.environ.get("DDCARDS_FUZZ_EXAMPLES", "60"))
# A fixed seed, as the API and CLI fuzz tests (docs/FUZZING.md); DDCARDS_FUZZ_RANDOM=1 draws afresh.
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None,
                derandomize=os.environ.get("DDCARDS_FUZZ_RANDOM", "0") in ("", "0"),
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])
SEARCH_LIMIT = 0.5          # seconds: a valid position found by mutation is searched at most this long
ALLOWED = {grpc.StatusCode.OK, grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.DEADLINE_EXCEEDED}
# What the run sent and got back, by outcome (printed by the last test: pytest -s shows it).
COUNTS: dict[str, int] = {}


def _count(key: str) -> None:
    COUNTS[key] = COUNTS.get(key, 0) + 1

BASES = [ddcards.example("marias-hra"), ddcards.example("klaverjas"), marias_position(3, 6),
         dict(ddcards.example("marias-hra"), contract="betl", trump=None)]
FIELDS = ["game", "hands", "talon", "stock", "upcard", "contract", "trump", "playing_team", "rules", "objective",
          "start_scores", "first_deal", "flek", "options", "played", "leader"]
TOKENS = ["AS", "TH", "10h", "OH", "U♣", "7C", "6D", "ZZ", "A", "", "draw", "QH/S", "marias", "klaverjas", "hra",
          "betl", "durch", "H", "♥", "sedma", "kilo", "amsterdam", "rotterdam", "sedma_value", "AKQ.JT9.87.",
          "\x00", "\n", "\x1b[31m", "ž" * 3]


@pytest.fixture(scope="module")
def server():
    with running_server(workers=2) as srv:
        yield srv
        # After this server's last fuzz test, whichever process ran them (with pytest -n the
        # module's tests may be shared out among workers, each with a server of its own): a
        # check in a test of its own could meet a server no fuzz test had touched.
        still_serving(srv)
        print(f"\nfuzzed the service with {EXAMPLES} examples per target: "
              + ", ".join(f"{key} {count}" for key, count in sorted(COUNTS.items())))


def still_serving(srv) -> None:
    """The server answers health checks and solves right, with no search left running."""
    with grpc.insecure_channel(f"127.0.0.1:{srv.port}") as ch:
        health = health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(), timeout=5)
        assert health.status == health_pb2.HealthCheckResponse.SERVING
        doc = marias_position(5, 5)
        with Client(channel=ch, timeout=30) as client:
            assert client.solve(doc)["value"] == ddcards.solve(ddcards.Position.from_dict(doc)).value
    assert srv.pool.busy == 0


@pytest.fixture(scope="module")
def channel(server):
    with grpc.insecure_channel(f"127.0.0.1:{server.port}",
                               options=[("grpc.max_receive_message_length", 64 << 20)]) as ch:
        yield ch


# ---------------------------------------------------------------- strategies

leaves = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(min_value=2 ** 31 - 3, max_value=2 ** 64),
    st.integers(min_value=-(2 ** 64), max_value=-(2 ** 31) + 3), st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30), st.sampled_from(TOKENS),
    st.text(st.sampled_from("AKQJT9876SHDC.♠♥♦♣ 10XUO/,"), max_size=16),
)
json_values = st.recursive(leaves, lambda inner: st.lists(inner, max_size=5)
                           | st.dictionaries(st.text(max_size=12) | st.sampled_from(TOKENS), inner, max_size=5),
                           max_leaves=25)


@st.composite
def mutated_documents(draw) -> dict:
    doc = dict(draw(st.sampled_from(BASES)))
    for _ in range(draw(st.integers(0, 4))):   # 0: a valid document, searched
        key = draw(st.sampled_from(FIELDS) | st.text(max_size=8))
        action = draw(st.sampled_from(["set", "delete", "card", "list-item"]))
        if action == "delete":
            doc.pop(key, None)
        elif action == "card":
            doc[key] = draw(st.sampled_from(TOKENS))
        elif action == "list-item" and isinstance(doc.get(key), list) and doc[key]:
            items = list(doc[key])
            items[draw(st.integers(0, len(items) - 1))] = draw(json_values)
            doc[key] = items
        else:
            doc[key] = draw(json_values)
    return doc


def _nested(depth: int, inner: str = "1") -> str:
    return "[" * depth + inner + "]" * depth


hostile_texts = st.one_of(
    st.builds(lambda d: json.dumps(d), mutated_documents()),
    st.builds(lambda d, cut: json.dumps(d)[:cut], mutated_documents(), st.integers(0, 200)),
    st.builds(lambda digits, field: f'{{"game": "marias", "{field}": {"9" * digits}}}',
              st.integers(4000, 6000), st.sampled_from(["flek", "leader", "playing_team", "options"])),
    st.builds(lambda depth: '{"game": "marias", "hands": ' + _nested(depth) + "}", st.integers(10, 3000)),
    st.builds(_nested, st.integers(1, 200_000)),
    st.builds(lambda escape, d: json.dumps(d)[:-1] + f', "x": "{escape}"}}',
              st.sampled_from(["\\ud800", "\\udfff", "\\ud83d", "\\u0000"]), mutated_documents()),
    st.builds(lambda s: json.dumps({"game": s}), st.sampled_from(["\ud800", "g" * 9000, "\x1b" * 3000])),
    st.text(max_size=200),
)


def _card(draw) -> pb.Card:
    if draw(st.booleans()):
        return pb.Card(notation=draw(st.sampled_from(TOKENS) | st.text(max_size=6)))
    return pb.Card(rank=draw(st.integers(0, 20)), suit=draw(st.integers(0, 7)))


def _cards(draw) -> pb.Cards:
    if draw(st.booleans()):
        return pb.Cards(notation=draw(st.sampled_from(TOKENS) | st.text(st.sampled_from("AKQJT987SHDC. "),
                                                                         max_size=40)))
    msg = pb.Cards(cards=[_card(draw) for _ in range(draw(st.integers(0, 12)))])
    if draw(st.integers(0, 9)) == 0:
        msg.notation = "AS"                         # both forms: an error
    return msg


int32s = st.integers(-(2 ** 31), 2 ** 31 - 1)


@st.composite
def position_messages(draw) -> pb.Position:
    base = convert.doc_to_position(draw(st.sampled_from(BASES)))
    msg = pb.Position() if draw(st.booleans()) else base
    if draw(st.booleans()):
        msg.game_name = draw(st.sampled_from(["", "marias", "klaverjas", "mariáš", "skat"]) | st.text(max_size=20))
    if draw(st.booleans()):
        msg.game = draw(st.integers(0, 9))
    if draw(st.booleans()):
        del msg.hands[:]
        msg.hands.extend(_cards(draw) for _ in range(draw(st.integers(0, 5))))
    for field in ("talon", "stock"):
        if draw(st.integers(0, 3)) == 0:
            getattr(msg, field).CopyFrom(_cards(draw))
    if draw(st.integers(0, 3)) == 0:
        msg.upcard.CopyFrom(_card(draw))
    if draw(st.booleans()):
        msg.contract_name = draw(st.sampled_from(["", "hra", "betl", "durch", "klaverjas"]) | st.text(max_size=10))
    if draw(st.booleans()):
        msg.contract = draw(st.integers(0, 6))
    if draw(st.booleans()):
        msg.trump = draw(st.integers(0, 7))
    for field in ("playing_team", "flek", "leader"):
        if draw(st.integers(0, 3)) == 0:
            setattr(msg, field, draw(int32s))
    for field in ("rules", "objective"):
        if draw(st.integers(0, 3)) == 0:
            setattr(msg, field, draw(st.sampled_from(TOKENS) | st.text(max_size=10)))
    if draw(st.integers(0, 4)) == 0:
        msg.start_scores.extend(draw(st.lists(int32s, max_size=4)))
    if draw(st.integers(0, 4)) == 0:
        msg.first_deal = draw(st.booleans())
    for _ in range(draw(st.integers(0, 2))):
        value = draw(st.one_of(st.builds(lambda b: pb.OptionValue(bool_value=b), st.booleans()),
                               st.builds(lambda i: pb.OptionValue(int_value=i), st.integers(-(2 ** 63), 2 ** 63 - 1)),
                               st.builds(lambda f: pb.OptionValue(double_value=f), st.floats()),
                               st.builds(lambda s: pb.OptionValue(string_value=s), st.text(max_size=10)),
                               st.just(pb.OptionValue())))
        msg.options[draw(st.sampled_from(["sedma_value", "kilo_value", "marriage_on_follow", "x", ""])
                         | st.text(max_size=10))].CopyFrom(value)
    if draw(st.booleans()):
        for _ in range(draw(st.integers(0, 6))):
            if draw(st.booleans()):
                msg.played.add(notation=draw(st.sampled_from(TOKENS) | st.text(max_size=6)))
            else:
                msg.played.add(card=_card(draw), named_suit=draw(st.integers(0, 6)))
    return msg


# ---------------------------------------------------------------- checks

def _check(error: grpc.RpcError | None, what: object) -> None:
    _count("calls")
    _count("OK" if error is None else error.code().name)
    if error is None:
        return
    code = error.code()
    assert code in ALLOWED, (code, error.details(), what)
    if code is grpc.StatusCode.INVALID_ARGUMENT:
        got = error_details(error)
        assert got["reason"] and got["domain"] == "ddcards", (got, what)
        assert len(error.details()) <= 620


def _call(method, request):
    try:
        method(request, timeout=30)
    except grpc.RpcError as error:
        return error
    return None


def _stubs(channel):
    from ddcards.v1 import ddcards_pb2_grpc as pb_grpc

    return pb_grpc.SolverServiceStub(channel)


def _request(kind: str, source: dict, mode: int):
    if kind == "solve":
        return pb.SolveRequest(mode=mode, timeout_seconds=SEARCH_LIMIT, **source)
    if kind == "analyse":
        return pb.AnalysePlayRequest(timeout_seconds=SEARCH_LIMIT, **source)
    if kind == "analyse_stream":
        return pb.AnalysePlayStreamRequest(timeout_seconds=SEARCH_LIMIT, **source)
    return pb.SolveTableRequest(timeout_seconds=SEARCH_LIMIT, **source)


def _methods(stub):
    """The call of each kind (a stream's read to its end)."""
    return {"solve": stub.Solve, "analyse": stub.AnalysePlay, "table": stub.SolveTable,
            "analyse_stream": lambda request, timeout: list(stub.AnalysePlayStream(request, timeout=timeout))}


KINDS = st.sampled_from(["solve", "solve", "analyse", "analyse_stream", "table"])
MODES = st.integers(0, 5)                   # 4 and 5 are no mode


@FUZZ
@given(text=hostile_texts, kind=KINDS, mode=MODES)
def test_fuzz_document_json(channel, text, kind, mode):
    method = _methods(_stubs(channel))[kind]
    _check(_call(method, _request(kind, {"document_json": text}, mode)), text[:200])


@FUZZ
@given(message=position_messages(), kind=KINDS, mode=MODES)
def test_fuzz_position_messages(channel, message, kind, mode):
    method = _methods(_stubs(channel))[kind]
    _check(_call(method, _request(kind, {"position": message}, mode)), message)


@FUZZ
@given(data=st.binary(max_size=300) | st.builds(lambda m, cut: m.SerializeToString()[:cut],
                                                position_messages().map(lambda p: pb.SolveRequest(position=p)),
                                                st.integers(0, 300)),
       method=st.sampled_from(["Solve", "AnalysePlay", "AnalysePlayStream", "SolveTable", "ListGames"]))
def test_fuzz_raw_bytes(channel, data, method):
    if method == "AnalysePlayStream":
        stream = channel.unary_stream(f"/ddcards.v1.SolverService/{method}")
        _check(_call(lambda request, timeout: list(stream(request, timeout=timeout)), data), data[:100])
        return
    call = channel.unary_unary(f"/ddcards.v1.SolverService/{method}")
    _check(_call(call, data), data[:100])


@FUZZ
@given(items=st.lists(st.one_of(
    hostile_texts.map(lambda t: pb.SolveStreamRequest(id="json", solve=pb.SolveRequest(
        document_json=t, timeout_seconds=SEARCH_LIMIT)).SerializeToString()),
    position_messages().map(lambda p: pb.SolveStreamRequest(id="msg", solve=pb.SolveRequest(
        position=p, timeout_seconds=SEARCH_LIMIT)).SerializeToString()),
    st.binary(max_size=50)), min_size=1, max_size=6))
def test_fuzz_solve_stream(channel, items):
    """A stream of bad items answers every item in band and ends OK."""
    call = channel.stream_stream("/ddcards.v1.SolverService/SolveStream")
    try:
        outcomes = [pb.SolveStreamResponse.FromString(raw) for raw in call(iter(items), timeout=60)]
    except grpc.RpcError as error:
        pytest.fail(f"the stream failed as a whole: {error.code()} {error.details()}")
    assert sorted(o.index for o in outcomes) == list(range(len(items)))
    _count("streams")
    for outcome in outcomes:
        _count("stream items")
        _count("item " + (outcome.error.code_name if outcome.WhichOneof("outcome") == "error" else "OK"))
        if outcome.WhichOneof("outcome") == "error":
            assert outcome.error.code_name in {"INVALID_ARGUMENT", "DEADLINE_EXCEEDED"}, outcome.error
            assert outcome.error.reason


def _atheris_target():
    import importlib.util

    path = Path(__file__).resolve().parent / "fuzz" / "service_atheris.py"
    spec = importlib.util.spec_from_file_location("service_atheris", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.load()
    return module, path


@FUZZ
@given(data=st.binary(max_size=400))
def test_the_coverage_guided_target_holds_on_random_bytes(data):
    target, _ = _atheris_target()
    target.TestOneInput(data)


def test_the_coverage_guided_target_runs_briefly_under_atheris():
    """The on-demand atheris target (tests/fuzz/service_atheris.py): its seeds pass, and a short
    coverage-guided run finds nothing (atheris is a test extra on x86-64)."""
    target, path = _atheris_target()
    for seed in target.seeds():
        target.TestOneInput(seed)
    run = subprocess.run([sys.executable, str(path), "-atheris_runs=3000"], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0 and "Done 3000 in" in run.stderr, run.stderr[-2000:]


def test_a_server_that_stopped_serving_is_caught():
    """The check the server fixture runs after its fuzz tests fails on a server that no longer
    answers (so that it would catch one the fuzzing broke)."""
    with running_server(workers=1) as srv:
        still_serving(srv)
        srv.stop(0)
        with pytest.raises(grpc.RpcError):
            still_serving(srv)
