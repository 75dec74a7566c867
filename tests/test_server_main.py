"""`python -m ddcards.server` as a process: flags, reflection-ready startup, SIGTERM/SIGINT drain and exit."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest

import ddcards

from grpc_health.v1 import health_pb2, health_pb2_grpc  # noqa: E402

from _server_helpers import marias_deal, marias_position  # noqa: E402
from ddcards.client import Client  # noqa: E402
from ddcards.server.main import build_parser, default_workers  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _env():
    env = dict(os.environ)
    return env


def _start(tmp_path, *args):
    log = open(tmp_path / "server.log", "w+")
    proc = subprocess.Popen([sys.executable, "-m", "ddcards.server", "--host", "127.0.0.1", "--port", "0", *args],
                            cwd=ROOT, env=_env(), stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        text = (tmp_path / "server.log").read_text()
        match = re.search(r"listening on 127\.0\.0\.1:(\d+)", text)
        if match:
            return proc, int(match.group(1)), tmp_path / "server.log"
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    proc.kill()
    raise AssertionError("server did not start:\n" + (tmp_path / "server.log").read_text())


def test_parser_defaults():
    args = build_parser().parse_args([])
    assert (args.host, args.port, args.workers, args.tt_mb) == ("127.0.0.1", 50051, None, ddcards.api.DEFAULT_TT_MB)
    assert (args.max_queue, args.queue_timeout, args.max_streams, args.stream_idle_timeout) == (64, 30.0, 16, 60.0)
    assert (args.tls_cert, args.tls_key, args.token, args.no_reflection) == (None, None, None, False)
    args = build_parser().parse_args(["--port", "6000", "--host", "::", "--workers", "3", "--tt-mb", "8",
                                      "--max-queue", "5", "--queue-timeout", "1.5", "--max-streams", "2",
                                      "--stream-idle-timeout", "0", "--grace", "2", "--no-reflection"])
    assert (args.host, args.port, args.workers, args.tt_mb, args.max_queue, args.grace) == ("::", 6000, 3, 8, 5, 2.0)
    assert (args.queue_timeout, args.max_streams, args.stream_idle_timeout, args.no_reflection) == (1.5, 2, 0.0, True)
    assert default_workers() >= 1


def test_help_documents_every_service_flag():
    text = build_parser().format_help()
    for flag in ("--max-queue", "--queue-timeout", "--max-streams", "--stream-idle-timeout", "--tls-cert",
                 "--tls-key", "--tls-client-ca", "--token", "--token-file", "DDCARDS_TOKEN", "--no-reflection"):
        assert flag in text, flag


@pytest.mark.parametrize("args, words", [
    (["--workers", "0"], "--workers"),
    (["--max-streams", "0"], "--max-streams"),
    (["--tt-mb", "0"], "--tt-mb"),
    (["--max-queue", "-1"], "--max-queue"),
    (["--queue-timeout", "0"], "--queue-timeout"),
    (["--tls-cert", "cert.pem"], "go together"),
    (["--tls-cert", "no-such.pem", "--tls-key", "no-such.key"], "no such file"),
    (["--token", ""], "token is empty"),
])
def test_bad_flags_exit_2(args, words):
    proc = subprocess.run([sys.executable, "-m", "ddcards.server", "--port", "0", *args], cwd=ROOT, env=_env(),
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and words in proc.stderr, proc.stderr


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_signal_drains_and_exits(tmp_path, signum):
    proc, port, log = _start(tmp_path, "--workers", "1", "--tt-mb", "8", "--grace", "30")
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            status = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10).status
            assert status == health_pb2.HealthCheckResponse.SERVING
        docs = [marias_deal(seed, trump="H") for seed in (95, 79, 180)] * 6
        want = [ddcards.solve(doc).value for doc in docs[:3]]
        with Client(f"127.0.0.1:{port}", timeout=120) as client:
            quick = marias_position(3, 6)
            assert client.solve(quick)["value"] == ddcards.solve(quick).value
            stream = client.solve_many(docs)
            outcomes = [next(stream)]          # a call is in flight
            proc.send_signal(signum)
            outcomes += list(stream)           # ... and runs to its end
        assert sorted(o["index"] for o in outcomes) == list(range(len(docs)))
        assert all(o["result"]["value"] == want[o["index"] % 3] for o in outcomes)
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    text = log.read_text()
    assert "draining" in text and "stopped" in text
    assert re.search(r"rpc method=Solve game=marias status=OK duration_ms=[\d.]+ nodes=\d+", text)
    assert re.search(r"rpc method=SolveStream game=marias status=OK .* items=18", text)
