"""grpc.health.v1.Health: the service's own servicer (ddcards.server.health), each test a regression test.

grpcio-health-checking's servicer sent a Watch's first response under the lock that a cancelled
Watch's close callback takes, on the one thread that completes sends: Watch calls opened and
cancelled at once locked up the whole server (every later call timed out, SIGTERM no longer
stopped it), and health needs no token. It also kept every service name ever watched.
"""
from __future__ import annotations

import logging
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from _server_helpers import running_server, wait_until
from ddcards.client import error_details
from ddcards.server import health
from ddcards.server.health import HealthServicer

ROOT = Path(__file__).resolve().parents[1]
SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING
SERVICE_UNKNOWN = health_pb2.HealthCheckResponse.SERVICE_UNKNOWN


def _request(service: str = "") -> health_pb2.HealthCheckRequest:
    return health_pb2.HealthCheckRequest(service=service)


@pytest.fixture(scope="module")
def server():
    with running_server(workers=1, tt_mb=1) as srv:
        yield srv


@pytest.fixture()
def stub(server):
    with grpc.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        yield health_pb2_grpc.HealthStub(channel)


def test_watch_calls_cancelled_at_once_never_lock_up_the_server(tmp_path):
    """The audit's case: 4 clients each opening Watch calls and cancelling each as soon as its
    first response came. The old servicer deadlocked gRPC's event thread within a few calls; the
    server is a process of its own here, so that a deadlock fails the test (every call below has
    a deadline) and is killed, never hanging the suite."""
    log = tmp_path / "server.log"
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "ddcards.server", "--host", "127.0.0.1", "--port", "0",
                                 "--workers", "1", "--tt-mb", "1", "--grace", "5"],
                                cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
    try:
        assert wait_until(lambda: "listening on" in log.read_text() or proc.poll() is not None, timeout=30, step=0.05)
        port = int(re.search(r"listening on 127\.0\.0\.1:(\d+)", log.read_text()).group(1))
        failures: list[str] = []

        def churn() -> None:
            with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
                stub = health_pb2_grpc.HealthStub(channel)
                for _ in range(150):
                    call = stub.Watch(_request(), timeout=3)
                    try:
                        assert next(call).status == SERVING
                    except grpc.RpcError as exc:
                        failures.append(exc.code().name)
                        return
                    call.cancel()

        threads = [threading.Thread(target=churn, daemon=True) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert not failures and not any(t.is_alive() for t in threads), failures
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            assert health_pb2_grpc.HealthStub(channel).Check(_request(), timeout=3).status == SERVING
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert "Traceback" not in log.read_text(), log.read_text()


def test_watch_follows_the_statuses_and_ends_at_the_shutdown():
    """A name unknown when watched is sent its status once it is set; at the stop every watcher
    is sent NOT_SERVING (a watcher of an unknown name nothing new) and its stream ends, so open
    Watch calls do not hold the stop for its grace."""
    with running_server(workers=1, tt_mb=1) as srv, grpc.insecure_channel(f"127.0.0.1:{srv.port}") as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        overall, later, unknown = (stub.Watch(_request(name), timeout=30) for name in ("", "later.Service", "nope"))
        assert [next(overall).status, next(later).status, next(unknown).status] == \
            [SERVING, SERVICE_UNKNOWN, SERVICE_UNKNOWN]
        srv.health.set("later.Service", SERVING)
        assert next(later).status == SERVING
        started = time.monotonic()
        stopper = threading.Thread(target=srv.stop, args=(20,), daemon=True)
        stopper.start()
        assert [r.status for r in overall] == [NOT_SERVING]      # then the stream ends, OK
        assert [r.status for r in later] == [NOT_SERVING]
        assert list(unknown) == []
        stopper.join(20)
        assert not stopper.is_alive() and time.monotonic() - started < 10


def test_a_watch_racing_the_shutdown_is_told_not_serving_and_ended():
    sent: list = []
    servicer = HealthServicer()
    servicer.enter_graceful_shutdown()

    class Context:
        def add_callback(self, callback):
            raise AssertionError("a watcher that ends at once needs no close callback")

    servicer.Watch(_request(), Context(), sent.append)
    assert wait_until(lambda: len(sent) == 2)
    assert sent[0].status == NOT_SERVING and sent[1] is None      # None: the stream ends (OK)
    servicer.shutdown()


def test_watch_calls_that_never_send_their_request_are_cut_as_unary_calls_are():
    """grpc waits for a Watch's request message with no end, and the server waited on 4 threads
    of its own: 4 Watch calls that sent their headers and never their message held every other
    Watch for as long as they stayed open (a few hundred, queued behind them, had every call of
    the server refused: RESOURCE_EXHAUSTED). Now their wait is a unary call's: bounded."""
    hold = threading.Event()

    def never():
        hold.wait()
        return
        yield

    with running_server(workers=1, tt_mb=1, request_timeout=2.0) as srv, \
            grpc.insecure_channel(f"127.0.0.1:{srv.port}") as channel:
        try:
            raw = channel.stream_stream("/grpc.health.v1.Health/Watch", request_serializer=lambda b: b,
                                        response_deserializer=health_pb2.HealthCheckResponse.FromString)
            silent = [raw(never(), timeout=60) for _ in range(6)]
            assert wait_until(lambda: srv.requests.waiting() == 6)     # in view: the wait's limits apply
            watch = health_pb2_grpc.HealthStub(channel).Watch(_request(), timeout=10)
            assert next(watch).status == SERVING
            watch.cancel()
            for call in silent:         # not past the request timeout
                with pytest.raises(grpc.RpcError) as info:
                    next(call)
                assert info.value.code() is grpc.StatusCode.CANCELLED
            assert wait_until(lambda: srv.requests.waiting() == 0)
        finally:
            hold.set()


def test_a_watch_whose_client_takes_nothing_is_cancelled_at_the_shutdown(monkeypatch):
    """A client that opens a Watch and grants it no HTTP/2 window (a raw HTTP/2 client with an
    initial window of 0) leaves its first send waiting until the call ends: the shutdown's end
    queued behind it, and three such Watch calls held SIGTERM for the whole --grace. Now a Watch
    whose end is not out within SHUTDOWN_SEND_SECONDS is cancelled; the others end as before."""
    monkeypatch.setattr(health, "SHUTDOWN_SEND_SECONDS", 0.2)

    class Context:
        def __init__(self):
            self.cancelled = threading.Event()

        def add_callback(self, callback):
            return True

        def cancel(self):
            self.cancelled.set()

    stuck, reading = Context(), Context()
    stuck_sent: list = []
    sent: list = []

    def stuck_send(response):       # grpc's send returns once the client takes it, or the call ends
        stuck_sent.append(response)
        stuck.cancelled.wait(10)

    servicer = HealthServicer()
    try:
        servicer.Watch(_request(), stuck, stuck_send)
        servicer.Watch(_request(), reading, sent.append)
        assert wait_until(lambda: len(stuck_sent) == 1 and len(sent) == 1)
        servicer.enter_graceful_shutdown()
        assert stuck.cancelled.is_set()
        assert not reading.cancelled.is_set()
        assert [r and r.status for r in sent] == [SERVING, NOT_SERVING, None]
    finally:
        stuck.cancelled.set()
        servicer.shutdown()


def test_a_watch_logs_how_it_ended(caplog):
    """A Watch's handler returns at once and its call ends later: every Watch was logged OK,
    whether its deadline passed, its client cancelled it or the server ended it."""
    caplog.set_level(logging.DEBUG, logger="ddcards.server")

    def statuses():
        return [re.search(r"status=(\w+)", r.getMessage()).group(1) for r in caplog.records
                if "rpc method=Watch " in r.getMessage()]

    with running_server(workers=1, tt_mb=1) as srv, grpc.insecure_channel(f"127.0.0.1:{srv.port}") as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        timed = stub.Watch(_request("until.the.deadline"), timeout=0.5)
        assert next(timed).status == SERVICE_UNKNOWN
        with pytest.raises(grpc.RpcError) as info:
            next(timed)
        assert info.value.code() is grpc.StatusCode.DEADLINE_EXCEEDED
        assert wait_until(lambda: len(statuses()) == 1)
        cancelled = stub.Watch(_request(), timeout=10)
        assert next(cancelled).status == SERVING
        cancelled.cancel()
        assert wait_until(lambda: len(statuses()) == 2)
        ended = stub.Watch(_request(), timeout=10)
        assert next(ended).status == SERVING
        srv.stop(5)
        assert [r.status for r in ended] == [NOT_SERVING]       # then OK
        assert wait_until(lambda: len(statuses()) == 3)
    assert statuses() == ["DEADLINE_EXCEEDED", "CANCELLED", "OK"]


# The tests above run servers of their own before the module's server starts: a server's stop
# waits briefly for every gRPC handler thread of the process, another server's too.

def test_a_watched_name_is_forgotten_with_its_last_watcher(server, stub):
    """Every name ever watched stayed in the server's memory (120 Watch calls with distinct 1 MiB
    names grew it by 130 MiB)."""
    for i in range(20):
        call = stub.Watch(_request(f"{i:04d}" + "x" * 996), timeout=5)
        assert next(call).status == SERVICE_UNKNOWN
        call.cancel()
    first, second = (stub.Watch(_request("twice"), timeout=5) for _ in range(2))
    assert next(first).status == SERVICE_UNKNOWN and next(second).status == SERVICE_UNKNOWN
    assert wait_until(lambda: server.health.watched_services() == 1)
    first.cancel()
    time.sleep(0.1)
    assert server.health.watched_services() == 1           # "twice" is still watched
    second.cancel()
    assert wait_until(lambda: server.health.watched_services() == 0)


@pytest.mark.parametrize("method", ["Check", "Watch"])
def test_a_service_name_longer_than_any_text_is_refused(stub, method):
    call = (lambda request: stub.Check(request, timeout=5)) if method == "Check" else \
        (lambda request: next(stub.Watch(request, timeout=5)))
    with pytest.raises(grpc.RpcError) as info:
        call(_request("s" * 1001))
    assert info.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert info.value.details() == "service: text of 1,001 characters; a service name holds at most 1,000"
    got = error_details(info.value)
    assert (got["reason"], got["field"]) == ("INVALID_REQUEST", "service")
    # 1,000 characters is a name like any other: unknown
    if method == "Check":
        with pytest.raises(grpc.RpcError) as info:
            call(_request("s" * 1000))
        assert info.value.code() is grpc.StatusCode.NOT_FOUND
    else:
        assert call(_request("s" * 1000)).status == SERVICE_UNKNOWN


def test_watch_ends_at_its_deadline_and_its_name_is_forgotten(server, stub):
    call = stub.Watch(_request("until.the.deadline"), timeout=0.5)
    assert next(call).status == SERVICE_UNKNOWN
    with pytest.raises(grpc.RpcError) as info:
        next(call)
    assert info.value.code() is grpc.StatusCode.DEADLINE_EXCEEDED
    assert wait_until(lambda: server.health.watched_services() == 0)
