"""The published contract: the shipped .proto, reflection with its comments, and foreign stubs.

* Reflection serves ``ddcards/v1/ddcards.proto`` *with* the .proto's comments (from the
  build's ``ddcards.binpb``) and resolves the google.rpc detail types, so grpcurl can
  show both.
* A client that generates its own stubs from the shipped .proto (protoc into a temporary
  folder) and also imports ``ddcards.client`` in the same process works, in either import
  order: both register the same file under the same name.
"""
from __future__ import annotations

import subprocess
import sys
import textwrap
from importlib import resources
from pathlib import Path

import grpc
import pytest
from google.protobuf import descriptor_pb2
from grpc_health.v1 import health_pb2
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from _server_helpers import running_server
from ddcards.server.reflection import documented_files

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def server():
    with running_server(workers=1) as srv:
        yield srv


def _reflect(port, **request):
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        (reply,) = list(stub.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(**request)]),
                                                  timeout=10))
    return reply


def _comment(file: descriptor_pb2.FileDescriptorProto, path: list[int]) -> str:
    return next((loc.leading_comments for loc in file.source_code_info.location if list(loc.path) == path), "")


def test_the_proto_ships_with_the_package():
    shipped = resources.files("ddcards.v1") / "ddcards.proto"
    assert shipped.read_text(encoding="utf-8") == (ROOT / "proto" / "ddcards" / "v1" / "ddcards.proto").read_text(
        encoding="utf-8")
    assert "ddcards/v1/ddcards.proto" in documented_files()


def test_reflection_serves_the_documented_descriptor(server):
    reply = _reflect(server.port, file_containing_symbol="ddcards.v1.SolverService")
    files = {f.name: f for f in map(descriptor_pb2.FileDescriptorProto.FromString,
                                    reply.file_descriptor_response.file_descriptor_proto)}
    assert {"ddcards/v1/ddcards.proto", "google/protobuf/struct.proto", "google/protobuf/any.proto"} <= set(files)
    ours = files["ddcards/v1/ddcards.proto"]
    assert ours.package == "ddcards.v1" and ours.source_code_info.location
    # service 0 (path 6, 0), its method 0 (Solve: path 6, 0, 2, 0); message Card (4, i) and its field 0.
    assert "double-dummy solver" in _comment(ours, [6, 0])
    assert "Solve a position" in _comment(ours, [6, 0, 2, 0])
    card = next(i for i, m in enumerate(ours.message_type) if m.name == "Card")
    assert "notation" in _comment(ours, [4, card, 2, 0]).lower()
    # The same file by name, as grpcurl asks for imports.
    by_name = _reflect(server.port, file_by_filename="ddcards/v1/ddcards.proto")
    assert descriptor_pb2.FileDescriptorProto.FromString(
        by_name.file_descriptor_response.file_descriptor_proto[0]).source_code_info.location


def test_reflection_answers_as_v1_too(server):
    """grpc.reflection.v1 (what newer tools speak) answers as v1alpha does: the same messages."""
    with grpc.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        call = channel.stream_stream("/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
                                     request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
                                     response_deserializer=reflection_pb2.ServerReflectionResponse.FromString)
        (listed, found) = list(call(iter([reflection_pb2.ServerReflectionRequest(list_services=""),
                                          reflection_pb2.ServerReflectionRequest(
                                              file_containing_symbol="ddcards.v1.SolverService")]), timeout=10))
    names = {s.name for s in listed.list_services_response.service}
    assert {"ddcards.v1.SolverService", "grpc.health.v1.Health", "grpc.reflection.v1alpha.ServerReflection"} <= names
    # every listed service resolves (v1 answers but is not listed: its descriptors are not here)
    assert "grpc.reflection.v1.ServerReflection" not in names
    files = [descriptor_pb2.FileDescriptorProto.FromString(f) for f in found.file_descriptor_response.file_descriptor_proto]
    assert any(f.name == "ddcards/v1/ddcards.proto" and f.source_code_info.location for f in files)


@pytest.mark.parametrize("symbol, file", [
    ("ddcards.v1.SolverService.Solve", "ddcards/v1/ddcards.proto"),
    ("ddcards.v1.SolverService.SolveStream", "ddcards/v1/ddcards.proto"),
    ("grpc.health.v1.Health.Check", health_pb2.DESCRIPTOR.name),    # grpcio's: grpc_health/v1/health.proto
    ("grpc.health.v1.Health.Watch", health_pb2.DESCRIPTOR.name),
])
def test_reflection_finds_a_method_by_its_full_name(server, symbol, file):
    """The reflection protocol's symbols include methods (``<package>.<service>.<method>``, what
    grpcurl's describe sends): they were "Symbol not found"."""
    reply = _reflect(server.port, file_containing_symbol=symbol)
    assert reply.WhichOneof("message_response") == "file_descriptor_response", reply
    files = {f.name: f for f in map(descriptor_pb2.FileDescriptorProto.FromString,
                                    reply.file_descriptor_response.file_descriptor_proto)}
    assert file in files
    if file == "ddcards/v1/ddcards.proto":
        assert files[file].source_code_info.location      # the documented descriptor, as for the service


@pytest.mark.parametrize("symbol", ["ddcards.v1.SolverService.Nope", "ddcards.v1.Nope.Solve", "Solve", ""])
def test_reflection_still_finds_no_method_that_is_not_there(server, symbol):
    reply = _reflect(server.port, file_containing_symbol=symbol)
    assert reply.WhichOneof("message_response") == "error_response"
    assert reply.error_response.error_code == grpc.StatusCode.NOT_FOUND.value[0]


def test_reflection_resolves_the_error_detail_types(server):
    for symbol in ("google.rpc.ErrorInfo", "google.rpc.BadRequest", "google.rpc.RetryInfo"):
        reply = _reflect(server.port, file_containing_symbol=symbol)
        names = [descriptor_pb2.FileDescriptorProto.FromString(raw).name
                 for raw in reply.file_descriptor_response.file_descriptor_proto]
        assert "google/rpc/error_details.proto" in names, (symbol, names)


FOREIGN = textwrap.dedent('''
    import importlib.util, sys
    gen, port, order = sys.argv[1], sys.argv[2], sys.argv[3]

    def foreign():
        spec = importlib.util.spec_from_file_location("their_stubs", gen + "/ddcards/v1/ddcards_pb2.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    if order == "theirs-first":
        theirs = foreign()
        from ddcards.client import Client
    else:
        from ddcards.client import Client
        theirs = foreign()
    import grpc
    request = theirs.SolveRequest(document_json='{"game": "marias", "contract": "hra", "trump": "H", '
        '"hands": ["AT.AKQ9.AT.87", "KQ.TJ87.KQ.AT", "J987..J987.QJ"], "talon": "9C KC"}',
        mode=theirs.SOLVE_MODE_BEST)
    with grpc.insecure_channel("127.0.0.1:" + port) as channel:
        call = channel.unary_unary("/ddcards.v1.SolverService/Solve",
                                   request_serializer=theirs.SolveRequest.SerializeToString,
                                   response_deserializer=theirs.SolveResponse.FromString)
        theirs_value = call(request, timeout=30).value
    with Client("127.0.0.1:" + port, timeout=30) as client:
        ours_value = client.solve(request.document_json, mode="best")["value"]
    print(theirs_value, ours_value, theirs.Game.Name(theirs.GAME_MARIAS))
''')


@pytest.mark.parametrize("order", ["theirs-first", "ours-first"])
def test_foreign_stubs_from_the_shipped_proto_live_beside_the_client(server, tmp_path, order):
    import grpc_tools

    shipped = Path(str(resources.files("ddcards.v1") / "ddcards.proto"))
    include = shipped.parents[2]                       # the folder holding ddcards/v1/ddcards.proto
    well_known = Path(grpc_tools.__file__).parent / "_proto"
    protoc = subprocess.run([sys.executable, "-m", "grpc_tools.protoc", f"-I{include}", f"-I{well_known}",
                             f"--python_out={tmp_path}", "ddcards/v1/ddcards.proto"],
                            capture_output=True, text=True, timeout=120)
    assert protoc.returncode == 0, protoc.stderr
    run = subprocess.run([sys.executable, "-c", FOREIGN, str(tmp_path), str(server.port), order],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    theirs, ours, name = run.stdout.split()
    assert theirs == ours and name == "GAME_MARIAS"
