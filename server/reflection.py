"""Server reflection that serves the .proto's comments.

grpcio-reflection serves each file from the process's descriptor pool, which
keeps no comments. The build writes ``ddcards/v1/ddcards.binpb`` (a
FileDescriptorSet with source info); this servicer answers with those
descriptors for the files they hold, under the name the stubs were generated
with (``ddcards/v1/ddcards.proto``), so grpcurl's ``describe`` and GUI clients
show the documentation. Every other file (``google/protobuf/struct.proto``,
``google/rpc/error_details.proto`` for the error details...) comes from the
pool as before.

A client that leaves the stream mid-way ends the call quietly: grpc raises
from the request iterator, and that is no server error. One that stops reading its answers
(they wait for its HTTP/2 window) is cancelled after the stream idle timeout, as a SolveStream's
(:class:`~ddcards.server.interceptors.StallWatch`): it held its place under --max-streams for
as long as it kept its connection.

A method's full name (``ddcards.v1.SolverService.Solve``) is a symbol too, as the reflection
protocol has it: its file is its service's (protobuf's pool finds no method by that name).
"""
from __future__ import annotations

import logging
from importlib import resources
from typing import Any

import grpc
from google.protobuf import descriptor_pb2
# grpcio-reflection ships no type information.
from grpc_reflection.v1alpha import reflection, reflection_pb2  # type: ignore[import-untyped, unused-ignore]

from ddcards.server.interceptors import StallWatch

log = logging.getLogger("ddcards.server")

SERVICE_NAME = reflection.SERVICE_NAME


def documented_files(package: str = "ddcards.v1", name: str = "ddcards.binpb") -> dict[str, bytes]:
    """Serialized FileDescriptorProtos with source info, by file name ({} if the set is missing)."""
    try:
        data = (resources.files(package) / name).read_bytes()
    except (FileNotFoundError, ModuleNotFoundError, OSError):
        return {}
    files = descriptor_pb2.FileDescriptorSet.FromString(data)
    return {f.name: f.SerializeToString() for f in files.file}


# Its base is untyped (Any): the subclass is checked as far as its own code goes.
class DocumentedReflectionServicer(reflection.ReflectionServicer):  # type: ignore[misc, unused-ignore]
    """grpcio-reflection's servicer, answering with the documented descriptors where it has them."""

    def __init__(self, service_names: Any, documented: dict[str, bytes] | None = None,
                 idle_timeout: float | None = None):
        super().__init__(service_names)
        self._documented = documented_files() if documented is None else documented
        self._idle_timeout = idle_timeout       # a client that takes no answer this long is cancelled

    def _respond(self, request: Any, file: Any) -> Any:
        """The descriptors of ``file`` and everything it imports, documented ones where known."""
        seen: dict[str, Any] = {}
        stack = [file]
        while stack:
            current = stack.pop()
            if current.name in seen:
                continue
            seen[current.name] = current
            stack.extend(current.dependencies)
        serialized = []
        for name, descriptor in seen.items():
            if name in self._documented:
                serialized.append(self._documented[name])
            else:
                proto = descriptor_pb2.FileDescriptorProto()
                descriptor.CopyToProto(proto)
                serialized.append(proto.SerializeToString())
        return reflection_pb2.ServerReflectionResponse(
            file_descriptor_response=reflection_pb2.FileDescriptorResponse(file_descriptor_proto=serialized),
            original_request=request)

    def _file_by_filename(self, request: Any, filename: str) -> Any:
        try:
            return self._respond(request, self._pool.FindFileByName(filename))
        except KeyError:
            return super()._file_by_filename(request, filename)

    def _file_containing_symbol(self, request: Any, fully_qualified_name: str) -> Any:
        try:
            file = self._pool.FindFileContainingSymbol(fully_qualified_name)
        except KeyError:
            file = self._method_file(fully_qualified_name)
            if file is None:
                return super()._file_containing_symbol(request, fully_qualified_name)
        return self._respond(request, file)

    def _method_file(self, name: str) -> Any:
        """The file of the method ``<package>.<service>.<method>``, or None."""
        service, _, method = name.rpartition(".")
        try:
            descriptor = self._pool.FindServiceByName(service)
        except KeyError:
            return None
        return descriptor.file if method in descriptor.methods_by_name else None

    def ServerReflectionInfo(self, request_iterator: Any, context: grpc.ServicerContext) -> Any:
        stall = StallWatch(context, self._idle_timeout)
        try:
            for response in super().ServerReflectionInfo(request_iterator, context):
                stall.writing()
                yield response              # (grpc writes it before it asks for the next)
                stall.written()
        except grpc.RpcError:
            # The client left (grpc raises from the request iterator once the call ended).
            log.debug("reflection client left")
        finally:
            stall.stop()
            if stall.fired:
                log.info("ServerReflectionInfo: the client took no response for %g s: the stream was closed",
                         self._idle_timeout)


V1_SERVICE_NAME = "grpc.reflection.v1.ServerReflection"


def enable(server: grpc.Server, service_names: Any, idle_timeout: float | None = None) -> None:
    """Register the documented reflection service for ``service_names`` (and itself), as
    ``grpc.reflection.v1alpha`` and as ``grpc.reflection.v1`` (tools that speak only v1).
    ``idle_timeout``: a stream whose client takes no answer for that many seconds is cancelled
    (None: never)."""
    from grpc_reflection.v1alpha import reflection_pb2_grpc

    # v1 is served but not listed: its descriptors are not in this process's pool, and a client
    # that describes every listed service would find it missing.
    servicer = DocumentedReflectionServicer(tuple(service_names) + (SERVICE_NAME,), idle_timeout=idle_timeout)
    reflection_pb2_grpc.add_ServerReflectionServicer_to_server(servicer, server)
    # v1 is v1alpha under another package name: the same messages field for field, so the
    # v1alpha classes read and write it (grpcio-reflection ships no v1 stubs).
    handler = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
        response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(
        V1_SERVICE_NAME, {"ServerReflectionInfo": handler}),))
