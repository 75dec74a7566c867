"""`python -m ddcards.server` as a process: flags, reflection-ready startup, SIGTERM/SIGINT drain and exit."""
from __future__ import annotations

import contextlib
import errno
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

import ddcards

from grpc_health.v1 import health_pb2, health_pb2_grpc  # noqa: E402

from _server_helpers import marias_deal, marias_position, wait_until  # noqa: E402
from ddcards.client import Client, error_details  # noqa: E402
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
    assert args.max_search_seconds == 0.0                # no limit of the server's own
    assert (args.tls_cert, args.tls_key, args.token, args.no_reflection) == (None, None, None, False)
    args = build_parser().parse_args(["--port", "6000", "--host", "::", "--workers", "3", "--tt-mb", "8",
                                      "--max-queue", "5", "--queue-timeout", "1.5", "--max-streams", "2",
                                      "--stream-idle-timeout", "0", "--grace", "2", "--no-reflection"])
    assert (args.host, args.port, args.workers, args.tt_mb, args.max_queue, args.grace) == ("::", 6000, 3, 8, 5, 2.0)
    assert (args.queue_timeout, args.max_streams, args.stream_idle_timeout, args.no_reflection) == (1.5, 2, 0.0, True)
    assert default_workers() >= 1


def test_the_log_level_is_read_in_any_case():
    """--log-level WARNING (as logging itself writes it) was refused: invalid choice."""
    assert [build_parser().parse_args(["--log-level", level]).log_level for level in ("WARNING", "Debug", "info")] == \
        ["warning", "debug", "info"]


@pytest.mark.parametrize("given, limit", [("0", None), ("inf", None), ("0.5", 0.5), ("30", 30.0)])
def test_max_search_seconds_of_0_or_inf_set_no_limit(given, limit):
    # inf means no limit, as it does for --queue-timeout and the command line's --timeout (it was refused)
    from ddcards.server.main import _options

    assert _options(build_parser().parse_args(["--max-search-seconds", given]))["max_search_seconds"] == limit


def test_help_documents_every_service_flag():
    text = build_parser().format_help()
    for flag in ("--max-queue", "--queue-timeout", "--max-streams", "--stream-idle-timeout", "--max-search-seconds",
                 "--tls-cert",
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
    (["--tls-cert", "tests", "--tls-key", "tests"], "--tls-cert: tests is a folder, not a file"),
    (["--tls-cert", "/dev/null", "--tls-key", "/dev/null"],
     "ddcards serve: error: --tls-cert: /dev/null is not a regular file (a device, a pipe or a socket): give a file"),
    (["--token-file", "/dev/null"],
     "ddcards serve: error: --token-file: /dev/null is not a regular file (a device, a pipe or a socket): give a file"),
    (["--token", ""], "token is empty"),
    (["--host", ""], "ddcards serve: error: --host must name an address to listen on (default 127.0.0.1; 0.0.0.0 "
                     "or :: for every interface), not ''"),
    (["--host", " "], "not ' '"),
])
def test_bad_flags_exit_2(args, words):
    proc = subprocess.run([sys.executable, "-m", "ddcards.server", "--port", "0", *args], cwd=ROOT, env=_env(),
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and words in proc.stderr, proc.stderr


def test_a_token_file_that_is_no_text_exits_2(tmp_path):
    # a Latin-1 or binary file was a UnicodeDecodeError's traceback
    path = tmp_path / "token.bin"
    path.write_bytes(b"\xff\xfe secret \x80\n")
    proc = subprocess.run([sys.executable, "-m", "ddcards.server", "--port", "0", "--token-file", str(path)],
                          cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and f"--token-file: cannot read {path}: 'utf-8' codec can't decode" in proc.stderr
    assert "Traceback" not in proc.stderr


LIMIT = ddcards.api.tt_mb_limit()


@pytest.mark.parametrize("args, message", [
    (["--max-queue", "-1"], "ddcards serve: error: --max-queue must be >= 0 (calls that may wait for a worker), not -1"),
    (["--queue-timeout", "0"],
     "ddcards serve: error: --queue-timeout must be > 0 seconds (inf: as long as the call's deadline allows), not 0"),
    (["--queue-timeout", "nan"],
     "ddcards serve: error: --queue-timeout must be > 0 seconds (inf: as long as the call's deadline allows), not nan"),
    (["--max-streams", "0"], "ddcards serve: error: --max-streams must be >= 1 (open streams per streaming method), not 0"),
    (["--port", "99999"], "ddcards serve: error: --port must be 0 to 65535 (0 = any free port), not 99999"),
    (["--port", "-1"], "ddcards serve: error: --port must be 0 to 65535 (0 = any free port), not -1"),
    (["--port", "65536"], "ddcards serve: error: --port must be 0 to 65535 (0 = any free port), not 65536"),
    (["--workers", "257"],
     "ddcards serve: error: --workers must be 1 to 256 (searches at once, each with its own table), not 257"),
    (["--workers", "0"],
     "ddcards serve: error: --workers must be 1 to 256 (searches at once, each with its own table), not 0"),
    (["--tt-mb", str(LIMIT + 1)],
     f"ddcards serve: error: --tt-mb {LIMIT + 1} is too large: a table takes 1 to {LIMIT:,} MiB (this machine's memory); "
     "leave it out for a table sized per game"),
    (["--tt-mb", "0"], f"ddcards serve: error: --tt-mb 0 is too small: a table takes 1 to {LIMIT:,} MiB (this machine's "
                       "memory); leave it out for a table sized per game"),
    (["--grace", "-1"],
     "ddcards serve: error: --grace must be 0 to 86400 seconds (0: cancel the calls in flight at once), not -1"),
    (["--grace", "nan"],
     "ddcards serve: error: --grace must be 0 to 86400 seconds (0: cancel the calls in flight at once), not nan"),
    # an infinite or huge grace was accepted, then broke gRPC's cancel-after-grace thread at SIGTERM
    (["--grace", "inf"],
     "ddcards serve: error: --grace must be 0 to 86400 seconds (0: cancel the calls in flight at once), not inf"),
    (["--grace", "1e12"],
     "ddcards serve: error: --grace must be 0 to 86400 seconds (0: cancel the calls in flight at once), not 1e+12"),
    (["--grace", "86400.5"],
     "ddcards serve: error: --grace must be 0 to 86400 seconds (0: cancel the calls in flight at once), not 86400.5"),
    (["--stream-idle-timeout", "nan"],
     "ddcards serve: error: --stream-idle-timeout must be 0 to 86400 seconds (0 = never), not nan"),
    # an infinite or huge one broke the wait for a stream's next message (OverflowError)
    (["--stream-idle-timeout", "inf"],
     "ddcards serve: error: --stream-idle-timeout must be 0 to 86400 seconds (0 = never), not inf"),
    (["--stream-idle-timeout", "1e12"],
     "ddcards serve: error: --stream-idle-timeout must be 0 to 86400 seconds (0 = never), not 1e+12"),
    (["--stream-idle-timeout", "-1"],
     "ddcards serve: error: --stream-idle-timeout must be 0 to 86400 seconds (0 = never), not -1"),
    (["--max-search-seconds", "-1"],
     "ddcards serve: error: --max-search-seconds must be a number of seconds, 0 or more (0 or inf = no limit), not -1"),
    (["--max-search-seconds", "nan"],
     "ddcards serve: error: --max-search-seconds must be a number of seconds, 0 or more (0 or inf = no limit), not nan"),
])
def test_flags_out_of_range_exit_2_with_the_range(args, message):
    proc = subprocess.run([sys.executable, "-m", "ddcards", "serve", "--port", "0", *args], cwd=ROOT, env=_env(),
                          capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stderr) == (2, message + "\n")


def test_tables_at_startup_beyond_the_machines_memory_exit_2():
    tt_mb = LIMIT // 2                                      # three of them: half as much again as the memory
    proc = subprocess.run([sys.executable, "-m", "ddcards", "serve", "--port", "0", "--workers", "3", "--tt-mb",
                           str(tt_mb)], cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=60)
    each = ddcards.api.table_memory_mb(tt_mb)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == (f"ddcards serve: error: --workers 3 x --tt-mb {tt_mb}: the tables take {3 * each:,} MiB (at "
                           f"startup, one per worker; each {each:,} MiB with its side area), more than this machine's memory, "
                           f"{LIMIT:,} MiB: give fewer workers or a smaller table\n")


def test_tables_that_cannot_be_allocated_at_startup_exit_2_cleanly(monkeypatch, capsys):
    from ddcards.server.main import main

    def no_memory(tt_mb=None):
        raise MemoryError("cannot allocate a 8 MiB transposition table")

    monkeypatch.setattr(ddcards, "Solver", no_memory)
    assert main(["--port", "0", "--workers", "2", "--tt-mb", "8"]) == 2
    err = capsys.readouterr().err
    assert err == ("ddcards serve: error: cannot allocate the tables of 2 workers (8 MiB each, 18 MiB in all with their "
                   "side areas): not enough free memory; give fewer --workers or a smaller --tt-mb\n")


def test_a_port_in_use_exits_1_with_one_clear_line():
    """No grpc core log line before ours: the port is probed first."""
    import socket
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = subprocess.run([sys.executable, "-m", "ddcards", "serve", "--host", "127.0.0.1", "--port", str(port),
                               "--workers", "1", "--tt-mb", "1"], cwd=ROOT, env=_env(), capture_output=True, text=True,
                              timeout=60)
    assert proc.returncode == 1
    assert proc.stderr == (f"ddcards serve: error: cannot listen on 127.0.0.1:{port}: the port is in use (another ddcards "
                           "serve?); stop that program or give another --port\n"), proc.stderr


def _resolve_error(host):
    import socket
    try:
        socket.getaddrinfo(host, 0)
    except socket.gaierror as exc:
        return exc.strerror
    raise AssertionError(f"{host} resolves")


@pytest.mark.parametrize("host, why", [
    ("nosuch.invalid", lambda: f"no such host ({_resolve_error('nosuch.invalid')}); give --host an address of this "
                               "machine"),
    ("192.0.2.1", lambda: f"192.0.2.1 is no address of this machine ({os.strerror(errno.EADDRNOTAVAIL)}); give --host "
                          "one of its own"),
])
def test_a_host_it_cannot_listen_on_exits_1_with_one_line_saying_why(host, why):
    """grpc printed its own core log line first, then 'Failed to bind ...; set GRPC_VERBOSITY=debug
    ...', which said neither that the name does not resolve nor that the address is another machine's."""
    proc = subprocess.run([sys.executable, "-m", "ddcards", "serve", "--host", host, "--port", "0", "--workers", "1",
                           "--tt-mb", "1"], cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stderr == (f"ddcards serve: error: cannot listen on {host}:0: {why()} (127.0.0.1, 0.0.0.0 or :: for "
                           "every interface)\n"), proc.stderr


def test_a_port_it_may_not_take_says_so(monkeypatch):
    """A port below 1024 for a user without the privilege: grpc said only 'Failed to bind'."""
    import socket

    from ddcards.server import main

    class Unprivileged(socket.socket):
        def bind(self, address):
            raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(main.socket, "socket", Unprivileged)
    with pytest.raises(OSError) as info:
        main.start_server(host="127.0.0.1", port=443, workers=1, tt_mb=1)
    assert str(info.value) == ("cannot listen on 127.0.0.1:443: Permission denied (a port below 1024 needs privileges); "
                               "give another --port")


def test_start_server_checks_its_port_workers_and_tables():
    from ddcards.server.main import MAX_WORKERS, start_server

    for kwargs, field in (({"port": 70000}, "port"), ({"port": -1}, "port"), ({"workers": MAX_WORKERS + 1}, "workers"),
                          ({"tt_mb": 0}, "tt_mb"), ({"tt_mb": LIMIT + 1}, "tt_mb")):
        with pytest.raises(ddcards.InvalidOptionError) as info:
            start_server(**{"port": 0, "workers": 1, **kwargs})
        assert info.value.field == field and str(info.value).startswith(f"{field} ")


def test_stop_refuses_a_grace_out_of_range_before_stopping_anything():
    import math

    from ddcards.server.main import MAX_GRACE, start_server

    running = start_server(port=0, workers=1, tt_mb=1)
    try:
        for grace in (math.inf, math.nan, -1.0, 1e12, MAX_GRACE + 1):
            with pytest.raises(ValueError, match="grace must be 0 to 86400 seconds"):
                running.stop(grace)
        with grpc.insecure_channel(f"127.0.0.1:{running.port}") as channel:       # still serving
            status = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10).status
            assert status == health_pb2.HealthCheckResponse.SERVING
    finally:
        running.stop(0)


def test_start_server_refuses_an_endless_stream_idle_timeout():
    import math

    from ddcards.server.main import start_server

    for idle in (math.inf, math.nan, 1e12, 0.0, -1.0):
        with pytest.raises(ValueError, match="stream_idle_timeout must be > 0 and at most 86400 seconds"):
            start_server(port=0, workers=1, tt_mb=1, stream_idle_timeout=idle)


@contextlib.contextmanager
def ended(proc: subprocess.Popen) -> Iterator[None]:
    """The server process is killed on the way out if the test left it running (a failure)."""
    try:
        yield
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def assert_serving(port: int) -> None:
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        status = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10).status
        assert status == health_pb2.HealthCheckResponse.SERVING


def test_the_longest_grace_drains_and_exits_cleanly(tmp_path):
    from ddcards.server.main import MAX_GRACE

    proc, port, log = _start(tmp_path, "--workers", "1", "--tt-mb", "1", "--grace", f"{MAX_GRACE:g}")
    with ended(proc):
        assert_serving(port)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0
    text = log.read_text()
    assert "draining (grace 86400s;" in text and "stopped" in text
    assert "Traceback" not in text and "Exception in thread" not in text, text


def test_more_workers_than_cores_or_memory_start_with_a_warning(tmp_path):
    workers = max(default_workers() + 1, LIMIT // ddcards.api.table_memory_mb(ddcards.api.largest_table_mb()) + 1)
    if workers > 256:
        pytest.skip("this machine has more memory than 256 workers' largest tables take")
    proc, _, log = _start(tmp_path, "--workers", str(workers))
    try:
        assert wait_until(lambda: "more than this machine's memory" in log.read_text(), timeout=10.0, step=0.05)
        text = log.read_text()
        assert f"--workers {workers} is more than the {default_workers()} cores this process may use" in text
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_signal_drains_and_exits(tmp_path, signum):
    proc, port, log = _start(tmp_path, "--workers", "1", "--tt-mb", "8", "--grace", "30")
    with ended(proc):
        assert_serving(port)
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
    text = log.read_text()
    assert "draining" in text and "stopped" in text
    assert re.search(r"rpc method=Solve game=marias status=OK duration_ms=[\d.]+ nodes=\d+", text)
    assert re.search(r"rpc method=SolveStream game=marias status=OK .* items=18", text)


def test_calls_cancelled_at_the_stop_still_get_their_log_line(tmp_path):
    # One call searching, two queued, then SIGTERM with no grace: each is cancelled (UNAVAILABLE)
    # and each still writes its line ("one line per call": an audit found 0-2 of the 3 written,
    # the log stopped before gRPC's threads had unwound).
    from _long_search import ENDLESS
    from ddcards.v1 import ddcards_pb2 as pb, ddcards_pb2_grpc as pb_grpc
    import json

    proc, port, log = _start(tmp_path, "--workers", "1", "--grace", "0")
    with ended(proc), grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = pb_grpc.SolverServiceStub(channel)
        calls = [stub.Solve.future(pb.SolveRequest(document_json=json.dumps(ENDLESS)), timeout=120) for _ in range(3)]
        # the first call is searching once the server burns CPU (the others, sent with it, wait in line)
        busy = _cpu_seconds(proc.pid) + 0.3
        assert wait_until(lambda: _cpu_seconds(proc.pid) > busy, timeout=30, step=0.05)
        proc.send_signal(signal.SIGTERM)
        assert [call.exception().code() for call in calls] == [grpc.StatusCode.UNAVAILABLE] * 3
        assert proc.wait(timeout=60) == 0
    lines = [line for line in log.read_text().splitlines() if "rpc method=Solve" in line]
    assert len(lines) == 3, log.read_text()


def test_a_second_signal_stops_at_once_and_a_call_left_waiting_is_told_the_server_is_going(tmp_path):
    """SIGTERM drains: the search in flight keeps its --grace (here a minute), a call waiting for
    a worker whose --queue-timeout ends meanwhile is told UNAVAILABLE, reason SHUTTING_DOWN (it
    was told RESOURCE_EXHAUSTED OVERLOADED, "retry later", by a server going away). A second
    signal stops at once: the search in flight is cancelled (UNAVAILABLE), the process exits 0
    long before the grace is over (the second signal was ignored), and its log line says
    UNAVAILABLE, what its client got (it said CANCELLED, as if the client had cancelled)."""
    from _long_search import ENDLESS
    from ddcards.v1 import ddcards_pb2 as pb, ddcards_pb2_grpc as pb_grpc
    import json

    proc, port, log = _start(tmp_path, "--workers", "1", "--grace", "60", "--queue-timeout", "2")
    with ended(proc), grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = pb_grpc.SolverServiceStub(channel)
        searching = stub.Solve.future(pb.SolveRequest(document_json=json.dumps(ENDLESS)), timeout=120)
        busy = _cpu_seconds(proc.pid) + 0.3
        assert wait_until(lambda: _cpu_seconds(proc.pid) > busy, timeout=30, step=0.05)
        waiting = stub.Solve.future(pb.SolveRequest(document_json=json.dumps(ENDLESS)), timeout=120)
        time.sleep(0.3)                                     # it is in the queue
        proc.send_signal(signal.SIGTERM)
        error = waiting.exception(timeout=30)
        assert error.code() == grpc.StatusCode.UNAVAILABLE and "the server is shutting down" in error.details()
        assert error_details(error)["reason"] == "SHUTTING_DOWN"
        assert not searching.done()                         # the search in flight keeps its grace
        stopped_at = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        assert searching.exception(timeout=30).code() == grpc.StatusCode.UNAVAILABLE
        assert proc.wait(timeout=30) == 0 and time.monotonic() - stopped_at < 20
    text = log.read_text()
    assert "SIGTERM again: stopping now" in text and "Traceback" not in text, text
    lines = [line for line in text.splitlines() if "rpc method=Solve " in line]
    assert len(lines) == 2 and all(" status=UNAVAILABLE " in line for line in lines), text


def _cpu_seconds(pid: int) -> float:
    """The CPU time a process has used (user and system), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_the_stop_clock_keeps_an_earlier_cancel():
    # A second signal's immediate stop (stop_now) can come while the first stop still drains,
    # before that stop begins its grace: the calls were cancelled at once, and so their log lines
    # must say (UNAVAILABLE, what their clients got), not the later end of the grace.
    from ddcards.server.interceptors import StopClock
    clock = StopClock()
    assert not clock.cancelled()
    clock.begin(None)                   # stop_now
    clock.begin(60.0)                   # the first stop, going on after it
    assert clock.cancelled()
    later = StopClock()
    later.begin(60.0)
    assert not later.cancelled() and later.cancelled(time.monotonic() + 61.0)
    later.begin(None)                   # a second signal during the grace
    assert later.cancelled()


def test_two_servers_in_one_process_name_their_call_threads_apart():
    # A stop waits (briefly) for its call threads to write their log lines: each server's
    # threads carry a prefix of its own, so that one server's stop never waits on another's.
    import threading

    from ddcards.server.main import HANDLER_THREAD_PREFIX, start_server

    first = start_server(port=0, workers=1, tt_mb=1)
    second = start_server(port=0, workers=1, tt_mb=1)
    try:
        assert first.handler_prefix != second.handler_prefix
        for running in (first, second):
            assert running.handler_prefix.startswith(HANDLER_THREAD_PREFIX + "-")
            with Client(f"127.0.0.1:{running.port}") as client:
                assert "marias" in [g["name"] for g in client.list_games()]
        names = [t.name for t in threading.enumerate()]
        for running in (first, second):
            assert any(n.startswith(running.handler_prefix + "_") for n in names), names
    finally:
        first.stop(0)
        second.stop(0)
