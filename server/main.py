"""Start the ddcards gRPC server: ``python -m ddcards.server`` or ``ddcards serve``.

    ddcards serve [--host 127.0.0.1] [--port 50051] [--workers N] [--tt-mb MIB]
                  [--max-queue 64] [--queue-timeout 30] [--max-streams 16]
                  [--stream-idle-timeout 60] [--max-search-seconds S] [--grace 10] [--log-level info]
                  [--tls-cert FILE --tls-key FILE [--tls-client-ca FILE]]
                  [--token TOKEN | --token-file FILE] [--no-reflection]

* ``--port`` 0 to 65535 (0: any free port, named by the startup line).
* ``--workers`` search threads, 1 to 256 (default: the cores this process may use), each
  with its own ``ddcards.Solver`` and transposition table: by default sized per
  game (2 MiB; 32 for Mariasz, grown at a worker's first Mariasz search), so the
  tables take at most ``workers x`` the largest game's table in total; or
  ``--tt-mb`` MiB for every game (1 to the machine's memory), at most ``workers x tt_mb``
  MiB. The tables allocated at startup must fit in the machine's memory.
* Admission: calls that find every worker busy wait first come, first served:
  at most ``--max-queue`` of them, each at most ``--queue-timeout`` seconds;
  beyond that RESOURCE_EXHAUSTED (reason OVERLOADED) with a RetryInfo.
  Health checks, ListGames and reflection never wait behind searches.
* Streams: at most ``--max-streams`` open per streaming method (SolveStream,
  AnalysePlayStream, Health/Watch, reflection); a SolveStream or reflection stream idle for
  ``--stream-idle-timeout`` seconds is closed (UNAVAILABLE, reason STREAM_IDLE), and one whose
  client takes no response for as long (AnalysePlayStream's too) is cancelled, as is a unary
  call whose answer waits that long for its client (and at most 64 answers wait at once).
* ``--max-search-seconds``: the longest one search may run, whatever the call asks (default
  none: a call without a deadline waits for its exact answer, minutes on a fresh 36-card
  Mariasz deal); a search it stops is DEADLINE_EXCEEDED saying so.
* Health (``grpc.health.v1.Health``) and server reflection (with the .proto's
  comments) are registered; ``--no-reflection`` leaves reflection out.
* ``--tls-cert``/``--tls-key`` serve TLS (``--tls-client-ca`` also requires
  client certificates); ``--token`` (or ``DDCARDS_TOKEN``, or ``--token-file``)
  makes every call but health checks carry ``authorization: Bearer <token>``.
* SIGTERM / SIGINT: health turns NOT_SERVING (open Health/Watch streams are sent it and
  end), new calls are refused, calls in flight get ``--grace`` seconds to finish (then
  they are cancelled, which stops their searches), and the process exits 0; a second
  signal cancels them at once.
"""
from __future__ import annotations

import argparse
import errno
import ipaddress
import itertools
import logging
import logging.handlers
import math
import os
import queue
import re
import signal
import socket
import ssl
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TypedDict

import grpc
# grpcio-health-checking ships no type information.
from grpc_health.v1 import health_pb2, health_pb2_grpc  # type: ignore[import-untyped, unused-ignore]

from ddcards import api as solver_api
from ddcards.errors import DdcardsError, InvalidOptionError
from ddcards.server import health, reflection
from ddcards.server.health import HealthServicer
from ddcards.server.interceptors import (AnswerWaitInterceptor, DecodeInterceptor, ErrorInterceptor,
                                         LoggingInterceptor, RequestWaitInterceptor, StopClock,
                                         StreamLimitInterceptor, TokenInterceptor)
from ddcards.server.service import SERVICE_NAME, SolverPool, SolverServicer
from ddcards.v1 import ddcards_pb2_grpc as pb_grpc

log = logging.getLogger("ddcards.server")

DEFAULT_PORT = 50051
DEFAULT_HOST = "127.0.0.1"
DEFAULT_TT_MB = solver_api.DEFAULT_TT_MB     # the library's: None, sized per game
DEFAULT_GRACE = 10.0
#: gRPC's threads that run the calls; at a stop, how long they get to finish (their log lines).
HANDLER_THREAD_PREFIX = "ddcards-grpc"
_SERVER_NUMBERS = itertools.count(1)        # each server's handler threads: ddcards-grpc-N_k
HANDLERS_JOIN_SECONDS = 5.0

#: The longest --grace (a day): far beyond any search worth waiting for at shutdown, and within
#: what gRPC's timers take (an infinite or huge grace broke its cancel-after-grace thread).
MAX_GRACE = 86400.0
#: The longest --stream-idle-timeout (a day; 0 = never): the wait for a stream's next message
#: takes no infinite or huge timeout (OverflowError in the stream's handler).
MAX_STREAM_IDLE_TIMEOUT = 86400.0
DEFAULT_MAX_QUEUE = 64
DEFAULT_QUEUE_TIMEOUT = 30.0
DEFAULT_MAX_STREAMS = 16
DEFAULT_STREAM_IDLE_TIMEOUT = 60.0
#: The most workers a server runs: far above any machine's cores (searches are CPU-bound, so
#: workers beyond the cores only share them), while each worker's Solver, table and threads stay
#: bounded. Calls beyond the workers wait in the admission queue instead.
MAX_WORKERS = 256
MAX_PORT = 65535
TOKEN_ENV = "DDCARDS_TOKEN"
SOLVE_STREAM = f"/{SERVICE_NAME}/SolveStream"
# A unary call's request message must come within this (it comes with the call's headers), and
# at most MAX_WAITING_REQUESTS calls wait for theirs at once (beyond that those that have waited
# over REQUEST_GRACE are cancelled), never more than MOST_WAITING_REQUESTS (beyond that the
# longest-waiting is cancelled at once: interceptors.waits.RequestWaitInterceptor). Both are
# generous: a burst of real calls on a busy server waits for the GIL in turn before each reads
# its message (100 at once: up to 72 waiting together; 100 of 3.9 MB each on a loaded machine:
# some over a second), and a cap of 16 cancelled one in six of them, a grace of 1 s up to one in
# five; the calls that never send hold spare threads of their own meanwhile.
REQUEST_TIMEOUT = 30.0
REQUEST_GRACE = 5.0
MAX_WAITING_REQUESTS = 8
MOST_WAITING_REQUESTS = 16 * MAX_WAITING_REQUESTS
# Threads beyond those every admitted call and open stream may hold: those of the calls waiting
# for their request message, and 8 more, so that the quick calls (health checks, ListGames,
# calls about to be turned away) always find one. (The pool starts a thread only when a call
# finds none idle: these cost nothing until a flood of calls needs them.)
SPARE_THREADS = MOST_WAITING_REQUESTS + 8
# At most this many unary calls' answers wait for their clients to take them at once (they hold
# no thread, but each its call and response in memory; interceptors.AnswerWaitInterceptor).
MAX_WAITING_ANSWERS = 64
# Calls that have come but that gRPC's Python server has not yet taken up (it takes them one at a
# time, on its one event thread, which waits for the GIL): grpc's core holds them meanwhile, and
# beyond its default of 1,000 (3,000 at most) it dropped a random share of them, each a bare
# CANCELLED with no log line: 4 clients sending 1,000 Health/Check and ListGames calls at once
# lost 342 of them (a real burst, each call answered in a millisecond). Held far above any burst
# now, and still bounded: a flood beyond is refused, and a call not taken within 30 s is dropped.
MAX_PENDING_CALLS = 20_000


def blocking_stream_methods(reflection_enabled: bool) -> int:
    """Streaming methods whose open streams each hold a thread of the server's pool, every one
    capped at --max-streams: SolveStream and AnalysePlayStream, and reflection's
    ServerReflectionInfo, served under v1alpha and v1 (two methods, two caps). Health/Watch
    holds none while it is open."""
    return 2 + (2 if reflection_enabled else 0)


def check_capacity(port: int, workers: int, tt_mb: int | None, *, flags: bool = False) -> None:
    """ValueError (an InvalidOptionError) unless `port` is 0..65535, `workers` 1..MAX_WORKERS,
    `tt_mb` a table size (``ddcards.api.check_tt_mb``) and the tables the workers allocate at
    startup fit in this machine's memory. `flags`: name the command line's flags."""
    def name(flag: str) -> str:
        return f"--{flag.replace('_', '-')}" if flags else flag

    def in_range(value: int, field: str, low: int, high: int, meaning: str) -> None:
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise InvalidOptionError(f"{name(field)} must be {low} to {high} ({meaning}), not {value!r}",
                                     token=str(value), rule=f"{name(field)} {low}..{high}", field=field)

    in_range(port, "port", 0, MAX_PORT, "0 = any free port")
    in_range(workers, "workers", 1, MAX_WORKERS, "searches at once, each with its own table")
    solver_api.check_tt_mb(tt_mb, name("tt_mb"))
    solver_api.check_tables_fit(workers, tt_mb, name("workers"), name("tt_mb"),
                                what="at startup, one per worker", fewer="fewer workers")


def default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("ddcards")
    except Exception:  # noqa: BLE001 - not installed (running from a checkout)
        return "0+unknown"


def _address(host: str, port: int) -> str:
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"{host}:{port}"


def _check_address(host: str, port: int) -> None:
    """OSError naming the address when the server cannot listen there: grpc would refuse too,
    but only after printing its own core log line to stderr, and its message says only "Failed to
    bind" (a host that does not resolve, an address of another machine, a port in use)."""
    try:
        addresses = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise OSError(f"cannot listen on {_address(host, port)}: no such host ({exc.strerror}); give --host an "
                      f"address of this machine ({DEFAULT_HOST}, 0.0.0.0 or :: for every interface)") from None
    refusals = []
    for family, kind, proto, _, sockaddr in addresses:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)   # as grpc binds: TIME_WAIT is free
            try:
                probe.bind(sockaddr)
            except OSError as exc:
                if exc.errno == errno.EADDRINUSE:
                    raise OSError(f"cannot listen on {_address(host, port)}: the port is in use (another "
                                  "ddcards serve?); stop that program or give another --port") from None
                refusals.append(exc)
    # grpc listens on every address the host resolves to that it can bind ("localhost" on a machine
    # without IPv6: 127.0.0.1 alone), so only a host none of whose addresses binds is refused here.
    if refusals and len(refusals) == len(addresses):
        why = refusals[0]
        if why.errno == errno.EADDRNOTAVAIL:
            raise OSError(f"cannot listen on {_address(host, port)}: {host} is no address of this machine "
                          f"({why.strerror}); give --host one of its own ({DEFAULT_HOST}, 0.0.0.0 or :: for every "
                          "interface)")
        if why.errno == errno.EACCES:
            raise OSError(f"cannot listen on {_address(host, port)}: {why.strerror} (a port below 1024 needs "
                          "privileges); give another --port")
        # else (no IPv6 here, say): grpc decides, and names it


_PEM_LABEL = re.compile(rb"^-----BEGIN ([A-Z0-9 ]+)-----", re.MULTILINE)


@dataclass(frozen=True)
class TlsFiles:
    """PEM files of the server's TLS: certificate chain, private key, and optionally
    the CA whose certificates clients must present (mutual TLS)."""

    cert: str
    key: str
    client_ca: str | None = None

    @staticmethod
    def read(path: str) -> bytes:
        """The bytes of a PEM file; ValueError if it holds no PEM block."""
        with open(path, "rb") as handle:
            data = handle.read()
        if b"-----BEGIN " not in data:
            raise ValueError(f"{path} is not a PEM file (no '-----BEGIN' line)")
        return data

    def check(self) -> None:
        """ValueError saying what is wrong with the files, when TLS cannot use them: gRPC refused
        them with its own core log lines and only "Failed to bind", which the server read as "do
        they match?" even of a certificate given as the key or a key kept under a passphrase."""
        def blocks(path: str) -> tuple[bytes, list[str]]:
            data = self.read(path)
            return data, [label.decode("ascii") for label in _PEM_LABEL.findall(data)]

        _, labels = blocks(self.cert)
        if "CERTIFICATE" not in labels:
            raise ValueError(f"{self.cert} holds no certificate (its PEM blocks: {', '.join(labels) or 'none'})")
        data, labels = blocks(self.key)
        if "ENCRYPTED PRIVATE KEY" in labels or b"Proc-Type: 4,ENCRYPTED" in data:
            raise ValueError(f"the key {self.key} is encrypted (kept under a passphrase): the server needs it in "
                             "the clear ('openssl pkey -in KEY -out PLAIN.key', a file only the server may read)")
        if not any(label.endswith("PRIVATE KEY") for label in labels):
            raise ValueError(f"{self.key} holds no private key (its PEM blocks: {', '.join(labels) or 'none'})")
        if self.client_ca:
            _, labels = blocks(self.client_ca)
            if "CERTIFICATE" not in labels:
                raise ValueError(f"{self.client_ca} holds no CA certificate (its PEM blocks: "
                                 f"{', '.join(labels) or 'none'})")
        try:
            ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER).load_cert_chain(self.cert, self.key)
        except ssl.SSLError as exc:
            if exc.reason == "KEY_VALUES_MISMATCH":
                raise ValueError(f"the key {self.key} does not match the certificate {self.cert}: give the "
                                 "key the certificate was made for") from None
            raise ValueError(f"TLS cannot use the certificate {self.cert} with the key {self.key}: "
                             f"{exc.reason or exc}") from None

    def credentials(self) -> grpc.ServerCredentials:
        self.check()
        client_ca = self.read(self.client_ca) if self.client_ca else None
        return grpc.ssl_server_credentials([(self.read(self.key), self.read(self.cert))], root_certificates=client_ca,
                                           require_client_auth=client_ca is not None)


@dataclass
class RunningServer:
    """A started server: its bound ``port`` and how to stop it."""

    server: grpc.Server
    health: HealthServicer
    pool: SolverPool
    streams: StreamLimitInterceptor
    host: str
    port: int
    workers: int
    tt_mb: int | None          # None: sized per game
    max_queue: int
    queue_timeout: float
    max_streams: int
    stream_idle_timeout: float | None
    tls: bool
    token: bool
    reflection: bool
    requests: RequestWaitInterceptor | None = None
    answers: AnswerWaitInterceptor | None = None
    max_search_seconds: float | None = None
    stop_clock: StopClock | None = None      # when stop() cancels the calls in flight
    handlers: ThreadPoolExecutor | None = None   # gRPC's threads that run the calls (and log each)
    handler_prefix: str = HANDLER_THREAD_PREFIX  # ... their names' own prefix (PREFIX_n)

    @property
    def address(self) -> str:
        return _address(self.host, self.port)

    def stop(self, grace: float | None = DEFAULT_GRACE) -> None:
        """Drain and stop: NOT_SERVING, refuse new calls, let calls in flight finish
        within ``grace`` seconds (then cancel them), stop the search threads. ``grace`` is 0 to
        ``MAX_GRACE`` seconds, or None to cancel them at once (else ValueError, before anything stops)."""
        if grace is not None and not 0 <= grace <= MAX_GRACE:     # also NaN and inf
            raise ValueError(f"grace must be 0 to {MAX_GRACE:g} seconds (or None), not {grace!r}")
        self.health.enter_graceful_shutdown()
        self.pool.drain()
        if self.stop_clock is not None:
            self.stop_clock.begin(grace)
        self.server.stop(grace).wait()
        self.pool.shutdown(wait=True)
        self.health.shutdown()
        if self.handlers is not None:
            # The calls cancelled at the stop are still unwinding on gRPC's threads, each to write
            # its log line: let them (briefly), or the lines are lost with the process.
            self.handlers.shutdown(wait=False, cancel_futures=True)
            end = time.monotonic() + HANDLERS_JOIN_SECONDS
            own = self.handler_prefix + "_"
            for thread in threading.enumerate():
                if thread.name.startswith(own) and thread is not threading.current_thread():
                    thread.join(max(0.0, end - time.monotonic()))

    def stop_now(self) -> None:
        """Cancel the calls in flight at once (a second signal while ``stop`` drains): their
        clients get UNAVAILABLE, and so say their log lines (the stop clock is moved to now first,
        else a call cancelled so logged CANCELLED, as if its client had cancelled it)."""
        if self.stop_clock is not None:
            self.stop_clock.begin(None)
        self.server.stop(None)

    def wait(self, timeout: float | None = None) -> bool:
        return self.server.wait_for_termination(timeout)


#: Seconds between the server's keepalive pings (grpc's own default is two hours: a client cut off
#: without a FIN or RST kept its search running to its end, minutes for a fresh 36-card deal).
KEEPALIVE_SECONDS = 30.0

#: The shortest interval at which a client may ping while its calls are open. grpc's own is 5
#: minutes with no data sent, and a long search sends none: a client with keepalive on (Go's
#: shortest is 10 s) got GOAWAY "too_many_pings" at its fourth ping and lost its call.
CLIENT_PING_SECONDS = 10.0


def keepalive_options(seconds: float) -> list[tuple[str, int]]:
    """grpc server arguments: ping each client every `seconds` while it has calls open, even
    when no data flows (a long search sends none), and drop its connection when a ping goes
    unanswered for `seconds` (at most 20 s); the calls on it are cancelled. A client's own
    pings are welcome every CLIENT_PING_SECONDS while it has calls open."""
    return [("grpc.keepalive_time_ms", int(seconds * 1000)),
            ("grpc.keepalive_timeout_ms", int(min(seconds, 20.0) * 1000)),
            ("grpc.http2.max_pings_without_data", 0),
            # (else a ping follows the last by 5 minutes while no data flows: a search sends none)
            ("grpc.http2.min_time_between_pings_ms", int(seconds * 1000)),
            ("grpc.http2.ping_timeout_ms", int(min(seconds, 20.0) * 1000)),
            ("grpc.http2.min_ping_interval_without_data_ms", int(CLIENT_PING_SECONDS * 1000))]


def start_server(*, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, workers: int | None = None,
                 tt_mb: int | None = DEFAULT_TT_MB, max_queue: int = DEFAULT_MAX_QUEUE,
                 queue_timeout: float = DEFAULT_QUEUE_TIMEOUT, max_streams: int = DEFAULT_MAX_STREAMS,
                 stream_idle_timeout: float | None = DEFAULT_STREAM_IDLE_TIMEOUT, tls: TlsFiles | None = None,
                 token: str | None = None, reflection_enabled: bool = True,
                 log_requests: bool = True, request_timeout: float = REQUEST_TIMEOUT,
                 max_search_seconds: float | None = None, keepalive: float = KEEPALIVE_SECONDS) -> RunningServer:
    """Build, bind and start the server (port 0 picks a free port: see ``.port``).

    keepalive: seconds between the HTTP/2 pings that find a client gone without a word (a
    network cut, a machine switched off): after one unanswered for as long again, its calls
    are cancelled and their searches stop (see keepalive_options).

    ValueError (InvalidOptionError for the port, the workers and their tables: see
    ``check_capacity``) for an option out of its range; MemoryError if the workers' tables
    cannot be had."""
    workers = workers or default_workers()
    check_capacity(port, workers, tt_mb)
    if max_queue < 0:
        raise ValueError("max_queue must be >= 0")
    if not queue_timeout > 0:
        raise ValueError("queue_timeout must be > 0")
    if not request_timeout > 0:
        raise ValueError("request_timeout must be > 0")
    if max_streams < 1:
        raise ValueError("max_streams must be >= 1")
    if stream_idle_timeout is not None and not 0 < stream_idle_timeout <= MAX_STREAM_IDLE_TIMEOUT:
        raise ValueError(f"stream_idle_timeout must be > 0 and at most {MAX_STREAM_IDLE_TIMEOUT:g} seconds "
                         "(or None for none)")
    if not 0 < keepalive < math.inf:
        raise ValueError("keepalive must be > 0 seconds")
    if max_search_seconds is not None and not 0 < max_search_seconds < math.inf:
        raise ValueError("max_search_seconds must be > 0 and finite (or None for none)")
    if token is not None and not token:
        raise ValueError("the token must not be empty")
    credentials = tls.credentials() if tls is not None else None   # a bad file fails before anything starts
    pool = SolverPool(workers, tt_mb, max_queue=max_queue, queue_timeout=queue_timeout)
    streams = StreamLimitInterceptor(max_streams, stream_idle_timeout, self_timed=(SOLVE_STREAM,))
    # Outermost first: the error mapping around everything, the bad bytes reported innermost
    # (after the token: a caller without it learns nothing of how its request parses).
    stop_clock = StopClock()
    interceptors: list[grpc.ServerInterceptor] = [ErrorInterceptor(stop_clock)]
    if token is not None:
        interceptors.append(TokenInterceptor(token))
    interceptors += [streams, DecodeInterceptor(in_band_methods=(SOLVE_STREAM,))]
    if log_requests:
        interceptors.insert(0, LoggingInterceptor(stop=stop_clock))
    # A unary call's answer must go out as a stream's must (--stream-idle-timeout), and at most
    # MAX_WAITING_ANSWERS wait for their clients at once (interceptors.AnswerWaitInterceptor).
    answers = AnswerWaitInterceptor(stream_idle_timeout, MAX_WAITING_ANSWERS)
    requests = RequestWaitInterceptor(request_timeout, MAX_WAITING_REQUESTS, REQUEST_GRACE,
                                      most=MOST_WAITING_REQUESTS)
    interceptors[:0] = [requests, answers]
    # Threads: one per admitted unary call (running or queued) and per open
    # blocking stream (each method's --max-streams: SolveStream, AnalysePlayStream, and
    # reflection's v1alpha and v1; Health/Watch holds none), plus spares for the quick
    # calls. grpc's own cap on calls in progress is only a flood guard far above that: it
    # counts open streams too, and idle streams must never crowd out a Solve or a health check.
    threads = workers + max_queue + blocking_stream_methods(reflection_enabled) * max_streams + SPARE_THREADS
    # A prefix of this server's own: its stop waits for its threads, not another server's.
    handler_prefix = f"{HANDLER_THREAD_PREFIX}-{next(_SERVER_NUMBERS)}"
    handlers = ThreadPoolExecutor(max_workers=threads, thread_name_prefix=handler_prefix)
    server = grpc.server(
        handlers,
        interceptors=interceptors,
        maximum_concurrent_rpcs=2 * threads + max_streams,
        options=[("grpc.so_reuseport", 0), *keepalive_options(keepalive),
                 ("grpc.server.max_pending_requests", MAX_PENDING_CALLS),
                 ("grpc.server.max_pending_requests_hard_limit", MAX_PENDING_CALLS)],
    )
    pb_grpc.add_SolverServiceServicer_to_server(
        SolverServicer(pool, version=_version(), stream_idle_timeout=stream_idle_timeout,
                       max_search_seconds=max_search_seconds), server)
    # (a Watch waits for its request message as a unary call does: RequestWaitInterceptor)
    health_servicer = HealthServicer(senders=max_streams)
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    if reflection_enabled:
        reflection.enable(server, (SERVICE_NAME, health.SERVICE_NAME), idle_timeout=stream_idle_timeout)
    address = _address(host, port)
    try:
        _check_address(host, port)
    except OSError:
        pool.shutdown(wait=False)
        raise
    try:
        bound = (server.add_secure_port(address, credentials) if credentials is not None
                 else server.add_insecure_port(address))
    except RuntimeError as exc:  # grpc's "Failed to bind": a port in use, or TLS files it cannot use
        bound = 0
        why = f" ({exc})" if credentials is None else " with this TLS certificate and key (do they match?)"
    else:
        why = ""
    if not bound:
        pool.shutdown(wait=False)
        raise OSError(f"cannot listen on {address}{why}")
    server.start()
    for name in ("", SERVICE_NAME):
        health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    if token is not None and credentials is None and not _loopback(host):
        log.warning("a token over plain TCP on %s travels in the clear: add --tls-cert and --tls-key", host)
    return RunningServer(server, health_servicer, pool, streams, host, bound, workers, tt_mb, max_queue,
                         queue_timeout, max_streams, stream_idle_timeout, credentials is not None,
                         token is not None, reflection_enabled, requests, answers, max_search_seconds,
                         stop_clock, handlers, handler_prefix)


def _tables(tt_mb: int | None) -> str:
    return f"{tt_mb}" if tt_mb is not None else f"per game ({solver_api.table_sizes_text()})"


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ddcards serve",
        description="Serve the ddcards solver over gRPC (package ddcards.v1, service SolverService). "
                    "See docs/SERVICE.md.",
    )
    parser.add_argument("--host", default=DEFAULT_HOST,
                        help=f"address to listen on (default {DEFAULT_HOST}; 0.0.0.0 or :: for every interface)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT,
                        help=f"port, 0 to {MAX_PORT} (default {DEFAULT_PORT}; 0 = any free port, which the startup "
                             "line names)")
    parser.add_argument("--workers", type=int, default=None, metavar="N",
                        help=f"searches run at once, each with its own solver and transposition table, 1 to "
                             f"{MAX_WORKERS} (default: number of cores); the tables they allocate at startup must "
                             "fit in the machine's memory")
    parser.add_argument("--tt-mb", type=int, default=DEFAULT_TT_MB, metavar="MIB",
                        help=f"transposition table per worker in MiB, the same for every game, at most the "
                             f"machine's memory: the tables take at most workers x (tt-mb + its side area, an "
                             f"eighth of it, 256 KiB to 16 MiB) "
                             f"(default: per game, {solver_api.table_sizes_text()}: at most "
                             f"workers x {solver_api.table_memory_mb(solver_api.largest_table_mb())} MiB with "
                             f"the tables' side areas)")
    capacity = parser.add_argument_group("capacity")
    capacity.add_argument("--max-queue", type=int, default=DEFAULT_MAX_QUEUE, metavar="CALLS",
                          help="calls that may wait for a busy worker at once; one more gets RESOURCE_EXHAUSTED "
                               f"(reason OVERLOADED) with a RetryInfo (default {DEFAULT_MAX_QUEUE})")
    capacity.add_argument("--queue-timeout", type=float, default=DEFAULT_QUEUE_TIMEOUT, metavar="SECONDS",
                          help="the longest a call waits for a worker before RESOURCE_EXHAUSTED with a RetryInfo "
                               f"(default {DEFAULT_QUEUE_TIMEOUT:g}; inf: no limit of its own; the call's own deadline "
                               "still applies)")
    capacity.add_argument("--max-streams", type=int, default=DEFAULT_MAX_STREAMS, metavar="STREAMS",
                          help="open streams per streaming method (SolveStream, AnalysePlayStream, Health/Watch, reflection), "
                               "1 or more; one more gets RESOURCE_EXHAUSTED (reason TOO_MANY_STREAMS) "
                               f"(default {DEFAULT_MAX_STREAMS})")
    capacity.add_argument("--stream-idle-timeout", type=float, default=DEFAULT_STREAM_IDLE_TIMEOUT, metavar="SECONDS",
                          help="close a SolveStream or reflection stream that sends nothing (and has nothing in "
                               "flight) for this long, with UNAVAILABLE (reason STREAM_IDLE), and cancel a stream whose "
                               "client takes no response for as long (a unary call whose answer waits as long too); "
                               f"0 to {MAX_STREAM_IDLE_TIMEOUT:g} seconds (default {DEFAULT_STREAM_IDLE_TIMEOUT:g}; 0 = never)")
    capacity.add_argument("--max-search-seconds", type=float, default=0.0, metavar="SECONDS",
                          help="the longest one search may run, whatever the call asks: a search it stops ends "
                               "its call with DEADLINE_EXCEEDED saying so (default 0 = no limit, as is inf: a call without a "
                               "deadline waits for the exact answer, minutes on a fresh 36-card Mariasz deal)")
    parser.add_argument("--grace", type=float, default=DEFAULT_GRACE, metavar="SECONDS",
                        help=f"seconds calls in flight may take to finish on SIGTERM/SIGINT, 0 to {MAX_GRACE:g} "
                             f"(default {DEFAULT_GRACE:g}; 0: cancel them at once)")
    parser.add_argument("--log-level", default="info", type=str.lower,   # INFO too, as logging writes it
                        choices=["debug", "info", "warning", "error"],
                        help="log level; info logs one line per call (default info)")
    security = parser.add_argument_group("security")
    security.add_argument("--tls-cert", metavar="FILE", help="serve TLS with this PEM certificate chain (needs --tls-key)")
    security.add_argument("--tls-key", metavar="FILE", help="the PEM private key of --tls-cert")
    security.add_argument("--tls-client-ca", metavar="FILE",
                          help="also require client certificates signed by this PEM CA (mutual TLS)")
    security.add_argument("--token", help=f"require 'authorization: Bearer TOKEN' on every call but health checks "
                                          f"(default: ${TOKEN_ENV} if set; prefer it or --token-file: a flag "
                                          "shows in the process list)")
    security.add_argument("--token-file", metavar="FILE", help="read the token from FILE (its first line)")
    parser.add_argument("--no-reflection", action="store_true",
                        help="do not register server reflection (clients then need the .proto)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    listener, handler = _log_to_stderr(getattr(logging, args.log_level.upper()))
    try:
        return _serve(args)
    finally:
        listener.stop()
        logging.getLogger().removeHandler(handler)


def _log_to_stderr(level: int) -> tuple[logging.handlers.QueueListener, logging.Handler]:
    """Log through a queue: formatting happens in the calling thread, the write to stderr
    in a thread of its own, so a slow stderr never holds up a call or gRPC's poller."""
    output = logging.StreamHandler(sys.stderr)
    output.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    records: queue.SimpleQueue[logging.LogRecord] = queue.SimpleQueue()
    handler = logging.handlers.QueueHandler(records)
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(level)
    listener = logging.handlers.QueueListener(records, output)
    listener.start()
    return listener, handler


class _Usage(Exception):
    """A bad flag value: exit 2 with the message."""


class _ServeOptions(TypedDict):
    """start_server's keyword arguments from the command line."""

    host: str
    port: int
    workers: int | None
    tt_mb: int | None
    max_queue: int
    queue_timeout: float
    max_streams: int
    stream_idle_timeout: float | None
    tls: TlsFiles | None
    token: str | None
    reflection_enabled: bool
    max_search_seconds: float | None


def _options(args: argparse.Namespace) -> _ServeOptions:
    if not args.host.strip():       # grpc logged its own errors for it, then 'cannot listen on :0' (exit 1)
        raise _Usage(f"--host must name an address to listen on (default {DEFAULT_HOST}; 0.0.0.0 or :: for every "
                     f"interface), not {args.host!r}")
    if args.max_streams < 1:
        raise _Usage(f"--max-streams must be >= 1 (open streams per streaming method), not {args.max_streams}")
    try:
        check_capacity(args.port, default_workers() if args.workers is None else args.workers, args.tt_mb,
                       flags=True)
    except DdcardsError as exc:
        raise _Usage(str(exc)) from None
    if args.max_queue < 0:
        raise _Usage(f"--max-queue must be >= 0 (calls that may wait for a worker), not {args.max_queue}")
    if not args.queue_timeout > 0:
        raise _Usage(f"--queue-timeout must be > 0 seconds (inf: as long as the call's deadline allows), "
                     f"not {args.queue_timeout:g}")
    if not 0 <= args.stream_idle_timeout <= MAX_STREAM_IDLE_TIMEOUT:      # also NaN and inf
        raise _Usage(f"--stream-idle-timeout must be 0 to {MAX_STREAM_IDLE_TIMEOUT:g} seconds (0 = never), "
                     f"not {args.stream_idle_timeout:g}")
    if not 0 <= args.max_search_seconds:            # also NaN
        raise _Usage(f"--max-search-seconds must be a number of seconds, 0 or more (0 or inf = no limit), "
                     f"not {args.max_search_seconds:g}")
    if not 0 <= args.grace <= MAX_GRACE:            # also NaN and inf
        raise _Usage(f"--grace must be 0 to {MAX_GRACE:g} seconds (0: cancel the calls in flight at once), "
                     f"not {args.grace:g}")
    if bool(args.tls_cert) != bool(args.tls_key):
        raise _Usage("--tls-cert and --tls-key go together")
    if args.tls_client_ca and not args.tls_cert:
        raise _Usage("--tls-client-ca needs --tls-cert and --tls-key")
    for path, name in ((args.tls_cert, "--tls-cert"), (args.tls_key, "--tls-key"),
                       (args.tls_client_ca, "--tls-client-ca"), (args.token_file, "--token-file")):
        if path and os.path.isdir(path):
            raise _Usage(f"{name}: {path} is a folder, not a file")
        if path and not os.path.exists(path):
            raise _Usage(f"{name}: no such file: {path}")
        if path and not os.path.isfile(path):     # /dev/null, a pipe (<(...)): it was 'no such file'
            raise _Usage(f"{name}: {path} is not a regular file (a device, a pipe or a socket): give a file")
        if path and name.startswith("--tls"):
            try:
                TlsFiles.read(path)
            except (OSError, ValueError) as exc:
                raise _Usage(f"{name}: {exc}") from None
    if args.token is not None and args.token_file:
        raise _Usage("give --token or --token-file, not both")
    token = args.token
    if args.token_file:
        try:
            with open(args.token_file, encoding="utf-8") as handle:
                token = handle.readline().strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise _Usage(f"--token-file: cannot read {args.token_file}: {exc}") from None
    elif token is None:
        token = os.environ.get(TOKEN_ENV) or None
    if token is not None and not token.strip():
        raise _Usage("the token is empty")
    return _ServeOptions(host=args.host, port=args.port, workers=args.workers, tt_mb=args.tt_mb,
                         max_queue=args.max_queue, queue_timeout=args.queue_timeout, max_streams=args.max_streams,
                         stream_idle_timeout=args.stream_idle_timeout or None,
                         tls=TlsFiles(args.tls_cert, args.tls_key, args.tls_client_ca) if args.tls_cert else None,
                         token=token.strip() if token else None, reflection_enabled=not args.no_reflection,
                         max_search_seconds=args.max_search_seconds if 0 < args.max_search_seconds < math.inf
                         else None)


def _serve(args: argparse.Namespace) -> int:
    try:
        options = _options(args)
    except _Usage as exc:
        print(f"ddcards serve: error: {exc}", file=sys.stderr)
        return 2
    try:
        running = start_server(**options)
    except MemoryError:  # the workers' tables cannot be had now
        workers, tt_mb = options["workers"] or default_workers(), options["tt_mb"]
        print(f"ddcards serve: error: cannot allocate the tables of {workers} worker{'s' if workers > 1 else ''} "
              f"({solver_api.first_table_mb(tt_mb):,} MiB each, {solver_api.first_tables_memory_mb(workers, tt_mb):,} "
              "MiB in all with their side areas): not enough free memory; give fewer --workers or a smaller "
              "--tt-mb", file=sys.stderr)
        return 2
    except (OSError, ValueError, RuntimeError) as exc:  # a port in use, an unreadable or invalid key
        print(f"ddcards serve: error: {exc}", file=sys.stderr)
        return 1
    # Printed whatever the log level: scripts read the bound port (--port 0) from this line.
    print(f"ddcards serve: listening on {running.address} (workers={running.workers}, "
          f"tt_mb={_tables(running.tt_mb)} per worker, at most {running.pool.table_bound_mb} MiB total, "
          f"max_queue={running.max_queue}, queue_timeout={running.queue_timeout:g}s, "
          + (f"max_search_seconds={running.max_search_seconds:g}, " if running.max_search_seconds else "")
          + f"max_streams={running.max_streams}, tls={'on' if running.tls else 'off'}, "
          f"token={'on' if running.token else 'off'}, reflection={'on' if running.reflection else 'off'})",
          file=sys.stderr, flush=True)
    memory, cores = solver_api.physical_memory_mb(), default_workers()
    if memory is not None and running.pool.table_bound_mb > memory:
        log.warning("the tables may grow to %s MiB in all, more than this machine's memory (%s MiB): a worker "
                    "whose table cannot grow fails that call; give fewer --workers or a smaller --tt-mb",
                    f"{running.pool.table_bound_mb:,}", f"{memory:,}")
    if running.workers > cores:
        log.warning("--workers %d is more than the %d cores this process may use: the searches share them "
                    "(calls beyond the cores wait in the queue as well, --max-queue)", running.workers, cores)

    stopping = threading.Event()

    signals = []

    def on_signal(signum: int, frame: object) -> None:
        signals.append(signum)
        if len(signals) == 2:
            # A second signal while draining: stop now (the calls in flight are cancelled, their
            # searches stop), as a second Ctrl-C does elsewhere; a third is not needed.
            log.info("%s again: stopping now, the calls in flight are cancelled", signal.Signals(signum).name)
            threading.Thread(target=running.stop_now, name="ddcards-stop-now", daemon=True).start()
        if len(signals) > 1:
            return
        log.info("%s: draining (grace %gs; a second signal stops at once)", signal.Signals(signum).name, args.grace)
        stopping.set()

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, on_signal)
        signal.signal(signal.SIGINT, on_signal)
    try:
        while not stopping.wait(1.0):
            pass
    finally:
        running.stop(args.grace)
        log.info("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
