"""Start the ddcards gRPC server: ``python -m ddcards.server`` or ``ddcards serve``.

    python -m ddcards.server [--host 127.0.0.1] [--port 50051] [--workers N] [--tt-mb 2]
                     [--max-concurrent K] [--grace 10] [--log-level info]

* ``--workers`` search threads (default: the cores this process may use), each
  with its own ``ddcards.Solver`` and transposition table of ``--tt-mb``
  megabytes, so the tables take at most ``workers x tt_mb`` MB in total.
* ``--max-concurrent`` calls admitted at once (running or queued for a
  worker, every method counted, health checks included); over it the server
  answers RESOURCE_EXHAUSTED at once.
* Health (``grpc.health.v1.Health``) and server reflection are registered, so
  ``grpcurl -plaintext localhost:50051 list`` works without the .proto files.
* SIGTERM / SIGINT: health turns NOT_SERVING, new calls are refused, calls in
  flight get ``--grace`` seconds to finish (then they are cancelled, which
  stops their searches), and the process exits 0.
"""
from __future__ import annotations

import argparse
import logging
import logging.handlers
import os
import queue
import signal
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from ddcards.v1 import ddcards_pb2_grpc as pb_grpc
from ddcards import api as solver_api
from ddcards.server.interceptors import ErrorInterceptor, LoggingInterceptor
from ddcards.server.service import SERVICE_NAME, SolverPool, SolverServicer

log = logging.getLogger("ddcards.server")

DEFAULT_PORT = 50051
DEFAULT_HOST = "127.0.0.1"
DEFAULT_TT_MB = solver_api.DEFAULT_TT_MB     # the library's: small tables stay in cache
DEFAULT_GRACE = 10.0


def default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def default_max_concurrent(workers: int) -> int:
    return max(8, 4 * workers)


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


@dataclass
class RunningServer:
    """A started server: its bound ``port`` and how to stop it."""

    server: grpc.Server
    health: health.HealthServicer
    pool: SolverPool
    host: str
    port: int
    workers: int
    tt_mb: int
    max_concurrent: int

    @property
    def address(self) -> str:
        return _address(self.host, self.port)

    def stop(self, grace: float | None = DEFAULT_GRACE) -> None:
        """Drain and stop: NOT_SERVING, refuse new calls, let calls in flight finish
        within ``grace`` seconds (then cancel them), stop the search threads."""
        self.health.enter_graceful_shutdown()
        self.server.stop(grace).wait()
        self.pool.shutdown(wait=True)

    def wait(self, timeout: float | None = None) -> bool:
        return self.server.wait_for_termination(timeout)


def start_server(*, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, workers: int | None = None,
                 tt_mb: int = DEFAULT_TT_MB, max_concurrent: int | None = None,
                 log_requests: bool = True) -> RunningServer:
    """Build, bind and start the server (port 0 picks a free port: see ``.port``)."""
    workers = workers or default_workers()
    max_concurrent = max_concurrent or default_max_concurrent(workers)
    if max_concurrent < 1:
        raise ValueError("max_concurrent must be >= 1")
    if tt_mb < 1:
        raise ValueError("tt_mb must be >= 1")
    pool = SolverPool(workers, tt_mb)
    interceptors = [ErrorInterceptor()]
    if log_requests:
        interceptors.insert(0, LoggingInterceptor())
    # One gRPC thread per admitted call: handlers only convert and wait, the
    # searches run on the pool's `workers` threads.
    server = grpc.server(
        ThreadPoolExecutor(max_workers=max_concurrent, thread_name_prefix="ddcards-grpc"),
        interceptors=interceptors,
        maximum_concurrent_rpcs=max_concurrent,
        options=[("grpc.so_reuseport", 0)],
    )
    pb_grpc.add_SolverServiceServicer_to_server(SolverServicer(pool, version=_version()), server)
    health_servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection((SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), server)
    bound = server.add_insecure_port(_address(host, port))
    if not bound:
        pool.shutdown(wait=False)
        raise OSError(f"cannot listen on {_address(host, port)}")
    server.start()
    for name in ("", SERVICE_NAME):
        health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    return RunningServer(server, health_servicer, pool, host, bound, workers, tt_mb, max_concurrent)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ddcards serve",
        description="Serve the ddcards solver over gRPC (package ddcards.v1, service SolverService).",
    )
    parser.add_argument("--host", default=DEFAULT_HOST,
                        help=f"address to listen on (default {DEFAULT_HOST}; 0.0.0.0 or :: for every interface)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0 = any free port)")
    parser.add_argument("--workers", type=int, default=None,
                        help="searches run at once, each with its own solver and transposition table (default: number of cores)")
    parser.add_argument("--tt-mb", type=int, default=DEFAULT_TT_MB,
                        help=f"transposition table per worker in MB (default {DEFAULT_TT_MB}); "
                             "total = workers x tt-mb")
    parser.add_argument("--max-concurrent", type=int, default=None,
                        help="calls admitted at once, running or queued; more get RESOURCE_EXHAUSTED "
                             "(default max(8, 4 x workers))")
    parser.add_argument("--grace", type=float, default=DEFAULT_GRACE,
                        help=f"seconds calls in flight may take to finish on SIGTERM/SIGINT (default {DEFAULT_GRACE:g})")
    parser.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"],
                        help="log level; info logs one line per call (default info)")
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
    records: queue.SimpleQueue = queue.SimpleQueue()
    handler = logging.handlers.QueueHandler(records)
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(level)
    listener = logging.handlers.QueueListener(records, output)
    listener.start()
    return listener, handler


def _serve(args: argparse.Namespace) -> int:
    for value, name in ((args.workers, "--workers"), (args.max_concurrent, "--max-concurrent")):
        if value is not None and value < 1:
            print(f"ddcards serve: {name} must be >= 1", file=sys.stderr)
            return 2
    if args.tt_mb < 1:
        print("ddcards serve: --tt-mb must be >= 1", file=sys.stderr)
        return 2
    try:
        running = start_server(host=args.host, port=args.port, workers=args.workers, tt_mb=args.tt_mb,
                               max_concurrent=args.max_concurrent)
    except OSError as exc:
        print(f"ddcards serve: {exc}", file=sys.stderr)
        return 1
    # Printed whatever the log level: scripts read the bound port (--port 0) from this line.
    print(f"ddcards serve: listening on {running.address} (workers={running.workers}, "
          f"tt_mb={running.tt_mb} per worker, {running.workers * running.tt_mb} MB total, "
          f"max_concurrent={running.max_concurrent})", file=sys.stderr, flush=True)

    stopping = threading.Event()

    def on_signal(signum: int, frame: object) -> None:
        if stopping.is_set():
            return
        log.info("%s: draining (grace %gs)", signal.Signals(signum).name, args.grace)
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
