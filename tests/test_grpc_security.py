"""TLS, the bearer token and switching reflection off, against real servers on loopback.

The certificates are made for each run with the openssl command line (a CA, and a server
certificate for 127.0.0.1 and localhost signed by it).
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

import ddcards
from _server_helpers import marias_position, running_server
from ddcards.client import Client, error_details
from ddcards.server.main import TlsFiles
from ddcards.v1 import ddcards_pb2 as pb
from ddcards.v1 import ddcards_pb2_grpc as pb_grpc

ROOT = Path(__file__).resolve().parents[1]


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    """ca.pem, server.pem, server.key (for 127.0.0.1 and localhost), and a client pair signed by the CA."""
    d = tmp_path_factory.mktemp("tls")
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=ddcards test CA",
             "-keyout", "ca.key", "-out", "ca.pem", cwd=d)
    (d / "san.ext").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    for name in ("server", "client"):
        _openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={name}", "-keyout", f"{name}.key",
                 "-out", f"{name}.csr", cwd=d)
        _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                 "-days", "2", "-extfile", "san.ext", "-out", f"{name}.pem", cwd=d)
    return d


def _doc():
    return marias_position(7, 6)


def _want():
    return ddcards.solve(ddcards.Position.from_dict(_doc())).value


def test_tls(certs):
    tls = TlsFiles(str(certs / "server.pem"), str(certs / "server.key"))
    with running_server(workers=1, tls=tls) as srv:
        assert srv.tls
        ca = (certs / "ca.pem").read_bytes()
        with Client(f"127.0.0.1:{srv.port}", root_certificates=ca, timeout=30) as client:
            assert client.solve(_doc())["value"] == _want()
        # A plaintext client cannot talk to it.
        with Client(f"127.0.0.1:{srv.port}", timeout=5) as plain:
            with pytest.raises(grpc.RpcError) as info:
                plain.solve(_doc())
            assert info.value.code() is grpc.StatusCode.UNAVAILABLE


def test_mutual_tls_requires_a_client_certificate(certs):
    tls = TlsFiles(str(certs / "server.pem"), str(certs / "server.key"), client_ca=str(certs / "ca.pem"))
    ca = (certs / "ca.pem").read_bytes()
    with running_server(workers=1, tls=tls) as srv:
        key, chain = (certs / "client.key").read_bytes(), (certs / "client.pem").read_bytes()
        credentials = grpc.ssl_channel_credentials(ca, key, chain)
        with Client(channel=grpc.secure_channel(f"127.0.0.1:{srv.port}", credentials), timeout=30) as client:
            assert client.solve(_doc())["value"] == _want()
        # The project's own client presents its certificate too (TLS implied by the pair)
        with Client(f"127.0.0.1:{srv.port}", root_certificates=ca, certificate_chain=chain, private_key=key,
                    timeout=30) as client:
            assert client.solve(_doc())["value"] == _want()
        with Client(f"127.0.0.1:{srv.port}", root_certificates=ca, timeout=5) as anonymous:
            with pytest.raises(grpc.RpcError) as info:
                anonymous.solve(_doc())
            assert info.value.code() is grpc.StatusCode.UNAVAILABLE


def test_a_client_certificate_is_a_pair_of_pem_bytes(certs):
    chain = (certs / "client.pem").read_bytes()
    with pytest.raises(ddcards.InvalidOptionError, match="certificate_chain without its pair") as info:
        Client("127.0.0.1:1", certificate_chain=chain)
    assert info.value.field == "certificate_chain"
    with pytest.raises(ddcards.InvalidOptionError, match="private_key without its pair"):
        Client("127.0.0.1:1", private_key=b"key")
    with pytest.raises(ddcards.InvalidArgumentTypeError, match="certificate_chain must be PEM bytes") as info:
        Client("127.0.0.1:1", certificate_chain=str(certs / "client.pem"), private_key=b"key")   # a path, not PEM
    assert info.value.token == "str" and isinstance(info.value, TypeError)


def test_token():
    with running_server(workers=1, token="s3cret") as srv:
        target = f"127.0.0.1:{srv.port}"
        with Client(target, token="s3cret", timeout=30) as client:
            assert client.solve(_doc())["value"] == _want()
            assert [o["index"] for o in client.solve_many([_doc()])] == [0]        # streams too
            assert client.list_games()
        for token, reason in ((None, "TOKEN_MISSING"), ("wrong", "TOKEN_INVALID"), ("s3cret ", "TOKEN_INVALID")):
            with Client(target, token=token, timeout=10) as client:
                for call in (lambda: client.solve(_doc()), lambda: list(client.solve_many([_doc()])),
                             lambda: client.list_games()):
                    with pytest.raises(grpc.RpcError) as info:
                        call()
                    assert info.value.code() is grpc.StatusCode.UNAUTHENTICATED
                    assert error_details(info.value)["reason"] == reason
                    assert "s3cret" not in info.value.details()
        with grpc.insecure_channel(target) as channel:
            # Health checks need no token (load balancers probe them) ...
            status = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=5).status
            assert status == health_pb2.HealthCheckResponse.SERVING
            # ... reflection does.
            stub = reflection_pb2_grpc.ServerReflectionStub(channel)
            with pytest.raises(grpc.RpcError) as info:
                list(stub.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")]),
                                               timeout=5))
            assert info.value.code() is grpc.StatusCode.UNAUTHENTICATED


def test_a_caller_without_the_token_learns_nothing_of_how_its_bytes_parse():
    """The token is checked before the request is decoded: bytes that are no message get
    UNAUTHENTICATED without the token (not the parse error), INVALID_ARGUMENT with it."""
    with running_server(workers=1, token="s3cret") as srv, grpc.insecure_channel(f"127.0.0.1:{srv.port}") as channel:
        garbage = b"\xff\xff\xff\xff"
        for method in ("Solve", "AnalysePlay", "SolveTable", "ListGames"):
            call = channel.unary_unary(f"/ddcards.v1.SolverService/{method}")
            for metadata, reason in ((None, "TOKEN_MISSING"), ((("authorization", "Bearer wrong"),), "TOKEN_INVALID")):
                with pytest.raises(grpc.RpcError) as info:
                    call(garbage, metadata=metadata, timeout=10)
                assert info.value.code() is grpc.StatusCode.UNAUTHENTICATED, (method, metadata)
                assert error_details(info.value)["reason"] == reason
                assert "DecodeError" not in info.value.details()
            with pytest.raises(grpc.RpcError) as info:
                call(garbage, metadata=(("authorization", "Bearer s3cret"),), timeout=10)
            assert info.value.code() is grpc.StatusCode.INVALID_ARGUMENT, method
            assert f"the request is not a valid ddcards.v1.{method}Request message" in info.value.details()
        stream = channel.stream_stream("/ddcards.v1.SolverService/SolveStream")
        with pytest.raises(grpc.RpcError) as info:
            list(stream(iter([garbage]), timeout=10))
        assert info.value.code() is grpc.StatusCode.UNAUTHENTICATED


def test_token_scheme_is_case_insensitive_and_blanks_before_the_token_are_tolerated():
    """RFC 7235: the auth scheme is case-insensitive; the token itself is compared exactly."""
    with running_server(workers=1, token="s3cret") as srv, grpc.insecure_channel(f"127.0.0.1:{srv.port}") as channel:
        stub = pb_grpc.SolverServiceStub(channel)
        for value in ("Bearer s3cret", "bearer s3cret", "BEARER s3cret", "bEaReR s3cret", "Bearer   s3cret",
                      "  Bearer s3cret"):      # (gRPC's metadata takes no tab: see test_bearer_token_parsing)
            metadata = (("authorization", value),)
            assert stub.ListGames(pb.ListGamesRequest(), metadata=metadata, timeout=10).games, value
            response = stub.Solve(pb.SolveRequest(document_json=json.dumps(_doc()), mode=pb.SOLVE_MODE_BEST),
                                  metadata=metadata, timeout=30)
            assert response.value == _want(), value


def test_a_malformed_authorization_says_what_is_wrong_with_it():
    with running_server(workers=1, token="s3cret") as srv, grpc.insecure_channel(f"127.0.0.1:{srv.port}") as channel:
        stub = pb_grpc.SolverServiceStub(channel)
        for value, reason, words in (
                ("s3cret", "TOKEN_INVALID", "its scheme is not Bearer"),        # the token without its scheme
                ("Basic s3cret", "TOKEN_INVALID", "its scheme is not Bearer"),
                ("Bearers3cret", "TOKEN_INVALID", "its scheme is not Bearer"),
                ("Bearer", "TOKEN_MISSING", "no token after it"),
                ("bearer   ", "TOKEN_MISSING", "no token after it"),
                ("", "TOKEN_MISSING", "the 'authorization' metadata is empty"),     # no token sent at all
                ("bearer S3CRET", "TOKEN_INVALID", "is not this server's token"),   # the token is case-sensitive
                ("Bearer s3cret ", "TOKEN_INVALID", "is not this server's token"),
                ("Bearer s3cre", "TOKEN_INVALID", "is not this server's token")):
            with pytest.raises(grpc.RpcError) as info:
                stub.ListGames(pb.ListGamesRequest(), metadata=(("authorization", value),), timeout=10)
            assert info.value.code() is grpc.StatusCode.UNAUTHENTICATED, value
            assert error_details(info.value)["reason"] == reason, value
            assert words in info.value.details(), (value, info.value.details())
            assert "s3cret" not in info.value.details().lower()      # never echoed


def test_two_authorization_values_are_refused_whichever_holds_the_token():
    """Which of two values counts would be the server's guess: a proxy that adds one to a call
    that already has one must not get through, nor the other way round."""
    with running_server(workers=1, token="s3cret") as srv, grpc.insecure_channel(f"127.0.0.1:{srv.port}") as channel:
        stub = pb_grpc.SolverServiceStub(channel)
        for values in (("Bearer s3cret", "Bearer wrong"), ("Bearer wrong", "Bearer s3cret"),
                       ("Bearer s3cret", "Bearer s3cret")):
            with pytest.raises(grpc.RpcError) as info:
                stub.ListGames(pb.ListGamesRequest(), metadata=tuple(("authorization", v) for v in values),
                               timeout=10)
            assert info.value.code() is grpc.StatusCode.UNAUTHENTICATED, values
            assert error_details(info.value)["reason"] == "TOKEN_INVALID", values
            assert info.value.details() == ("the call carries 2 'authorization' metadata values: send one, "
                                            "'authorization: Bearer <token>'"), values
        metadata = (("authorization", "Bearer s3cret"),)
        assert stub.ListGames(pb.ListGamesRequest(), metadata=metadata, timeout=10).games     # still serving


def test_bearer_token_parsing():
    from ddcards.server.interceptors.auth import _bearer_token

    assert _bearer_token(b"Bearer abc")[0] == b"abc"
    assert _bearer_token(b"bearer \t abc def")[0] == b"abc def"     # the rest is the token, as it is
    assert _bearer_token(b"BEARER abc ")[0] == b"abc "
    for value in (b"abc", b"Basic abc", b"", b"Bearer", b"Bearer \t ", b"Bearerabc"):
        token, error = _bearer_token(value)
        assert token is None and error is not None, value


def test_no_reflection():
    with running_server(workers=1, reflection_enabled=False) as srv, \
            grpc.insecure_channel(f"127.0.0.1:{srv.port}") as channel:
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        with pytest.raises(grpc.RpcError) as info:
            list(stub.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")]),
                                           timeout=5))
        assert info.value.code() is grpc.StatusCode.UNIMPLEMENTED
        with Client(channel=channel, timeout=30) as client:
            assert client.solve(_doc())["value"] == _want()


def _serve(tmp_path, *args, env=None):
    log = open(tmp_path / "server.log", "w+")
    proc = subprocess.Popen([sys.executable, "-m", "ddcards.server", "--host", "127.0.0.1", "--port", "0",
                             "--workers", "1", *args], cwd=ROOT, env=env or dict(os.environ),
                            stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        match = re.search(r"listening on 127\.0\.0\.1:(\d+).*", (tmp_path / "server.log").read_text())
        if match:
            return proc, int(match.group(1)), match.group(0)
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    proc.kill()
    raise AssertionError("server did not start:\n" + (tmp_path / "server.log").read_text())


@pytest.mark.parametrize("how", ["env", "file"])
def test_the_process_takes_tls_and_a_token_from_flags_env_or_file(tmp_path, certs, how):
    env = dict(os.environ)
    args = ["--tls-cert", str(certs / "server.pem"), "--tls-key", str(certs / "server.key"), "--no-reflection"]
    if how == "env":
        env["DDCARDS_TOKEN"] = "from-env"
        token = "from-env"
    else:
        (tmp_path / "token").write_text("from-file\n")
        args += ["--token-file", str(tmp_path / "token")]
        token = "from-file"
    proc, port, line = _serve(tmp_path, *args, env=env)
    try:
        assert "tls=on" in line and "token=on" in line and "reflection=off" in line
        ca = (certs / "ca.pem").read_bytes()
        with Client(f"127.0.0.1:{port}", root_certificates=ca, token=token, timeout=30) as client:
            assert client.solve(_doc())["value"] == _want()
        with Client(f"127.0.0.1:{port}", root_certificates=ca, timeout=10) as client:
            with pytest.raises(grpc.RpcError) as info:
                client.solve(_doc())
            assert info.value.code() is grpc.StatusCode.UNAUTHENTICATED
    finally:
        proc.terminate()
        assert proc.wait(timeout=30) == 0


@pytest.mark.parametrize("key, words, status", [
    ("bad.key", "--tls-key: {certs}/bad.key is not a PEM file (no '-----BEGIN' line)", 2),   # a bad argument
    # found as the server starts: as a port in use (they said only "do they match?", after gRPC's core lines)
    ("client.key", "the key {certs}/client.key does not match the certificate {certs}/server.pem: give the key the "
                   "certificate was made for", 1),
    ("encrypted.key", "the key {certs}/encrypted.key is encrypted (kept under a passphrase): the server needs it in "
                      "the clear ('openssl pkey -in KEY -out PLAIN.key', a file only the server may read)", 1),
    ("ca.pem", "{certs}/ca.pem holds no private key (its PEM blocks: CERTIFICATE)", 1)])
def test_an_unusable_key_is_a_clean_error(tmp_path, certs, key, words, status):
    (certs / "bad.key").write_text("not a key\n")
    _openssl("pkey", "-in", "server.key", "-aes256", "-passout", "pass:secret", "-out", "encrypted.key", cwd=certs)
    proc = subprocess.run([sys.executable, "-m", "ddcards.server", "--port", "0", "--tls-cert",
                           str(certs / "server.pem"), "--tls-key", str(certs / key)],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == status
    assert proc.stderr == f"ddcards serve: error: {words.format(certs=certs)}\n", proc.stderr    # one line, no gRPC's


@pytest.mark.parametrize("flag, words", [
    ("--tls-cert", "{certs}/server.key holds no certificate (its PEM blocks: PRIVATE KEY)"),
    ("--tls-client-ca", "{certs}/server.key holds no CA certificate (its PEM blocks: PRIVATE KEY)")])
def test_a_certificate_file_that_holds_none_is_a_clean_error(certs, flag, words):
    files = {"--tls-cert": "server.pem", "--tls-key": "server.key", "--tls-client-ca": "ca.pem", flag: "server.key"}
    proc = subprocess.run([sys.executable, "-m", "ddcards.server", "--port", "0",
                           *(part for name, file in files.items() for part in (name, str(certs / file)))],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stderr == f"ddcards serve: error: {words.format(certs=certs)}\n", proc.stderr


def test_a_method_the_server_lacks_is_unauthenticated_without_the_token():
    """Without the token, a call of an unknown method was UNIMPLEMENTED and one of a real
    method UNAUTHENTICATED: a caller with no token could list which method names exist. Now
    both are UNAUTHENTICATED; with the token, the unknown method is UNIMPLEMENTED."""
    with running_server(workers=1, token="s3cret") as srv, grpc.insecure_channel(f"127.0.0.1:{srv.port}") as channel:
        for method in ("/a/b", "/ddcards.v1.SolverService/Nope", "/ddcards.v2.SolverService/Solve"):
            unary, stream = channel.unary_unary(method), channel.stream_stream(method)
            for metadata, reason in ((None, "TOKEN_MISSING"), ((("authorization", "Bearer wrong"),), "TOKEN_INVALID")):
                with pytest.raises(grpc.RpcError) as info:
                    unary(b"", metadata=metadata, timeout=10)
                assert info.value.code() is grpc.StatusCode.UNAUTHENTICATED, (method, metadata)
                assert error_details(info.value)["reason"] == reason
                with pytest.raises(grpc.RpcError) as info:
                    list(stream(iter([b"x"]), metadata=metadata, timeout=10))
                assert info.value.code() is grpc.StatusCode.UNAUTHENTICATED, (method, metadata)
            with pytest.raises(grpc.RpcError) as info:
                unary(b"", metadata=(("authorization", "Bearer s3cret"),), timeout=10)
            assert info.value.code() is grpc.StatusCode.UNIMPLEMENTED, method
        with Client(channel=channel, token="s3cret", timeout=30) as client:     # still serving
            assert client.solve(_doc())["value"] == _want()
