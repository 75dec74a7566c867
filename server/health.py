"""``grpc.health.v1.Health``: Check, Watch and List, with no send under a lock.

grpcio-health-checking's servicer sent a Watch's first response while it held the lock that
every Watch's close callback takes, and waited there for the send to complete. gRPC runs the
close callbacks on the thread that also completes the sends, so one Watch cancelled while
another was sending deadlocked that thread: every later call timed out and SIGTERM no longer
stopped the process (four clients opening and cancelling Watch calls did it within seconds).
It also kept every service name ever watched, so Watch calls with distinct long names grew the
server's memory for good.

Here the servicer's lock guards only its tables (the statuses, the open watchers): nothing
waits under it, and no response is sent while any lock is held. Each Watch is a
:class:`_Watcher`: the newest status still to send, sent by one drain at a time on the
servicer's own sender threads; a close callback only marks it closed and forgets it. A name's
entry goes when its last watcher leaves, and names longer than :data:`MAX_SERVICE_CHARS` are
refused (INVALID_ARGUMENT, field ``service``).

The statuses are the standard ones: Check answers NOT_FOUND for an unknown name, Watch
SERVICE_UNKNOWN (and keeps watching, as the protocol says); ``enter_graceful_shutdown`` turns
every status NOT_SERVING for good, sends it to the watchers and then ends their streams (OK),
so an open Watch never holds a stop for its whole grace: one whose client takes nothing (its
send still waits after SHUTDOWN_SEND_SECONDS) is cancelled instead. A Watch also ends when its
client cancels or its deadline passes (gRPC ends the call; the close callback forgets it).
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial
from typing import Any

import grpc
# grpcio-health-checking ships no type information.
from grpc_health.v1 import health_pb2, health_pb2_grpc  # type: ignore[import-untyped, unused-ignore]

from ddcards._jsonio import MAX_TEXT
from ddcards.server.status import RequestError, shorten

log = logging.getLogger("ddcards.server")

SERVICE_NAME: str = health_pb2.DESCRIPTOR.services_by_name["Health"].full_name
SERVING: int = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING: int = health_pb2.HealthCheckResponse.NOT_SERVING
SERVICE_UNKNOWN: int = health_pb2.HealthCheckResponse.SERVICE_UNKNOWN

#: The longest service name Check and Watch take: the service's limit on any text.
MAX_SERVICE_CHARS = MAX_TEXT
SERVICE_RULE = f"grpc.health.v1: a service name holds at most {MAX_SERVICE_CHARS:,} characters"
#: How long ``enter_graceful_shutdown`` waits for NOT_SERVING and the streams' ends to go out
#: before the stop goes on (a Watch whose end is still not out then is cancelled).
SHUTDOWN_SEND_SECONDS = 1.0


def service_name(request: Any) -> str:
    """The request's service name, or RequestError (INVALID_ARGUMENT, field ``service``) if it
    is longer than any service's name."""
    name: str = request.service
    if len(name) > MAX_SERVICE_CHARS:
        raise RequestError(f"service: text of {len(name):,} characters; a service name holds at most "
                           f"{MAX_SERVICE_CHARS:,}", token=shorten(name, 20), rule=SERVICE_RULE, field="service")
    return name


class _Watcher:
    """One open Watch call: the newest status still to send (older ones are moot) and whether
    its stream ends after it. One drain at a time sends, outside the lock, so the responses go
    out in order; ``close`` (the call's end) stops it. ``ended`` is set once the stream's end
    has gone out or the call has ended."""

    __slots__ = ("service", "ended", "_send", "_context", "_lock", "_pending", "_end", "_draining", "_closed")

    def __init__(self, service: str, send: Callable[[Any], None], context: grpc.ServicerContext):
        self.service = service
        self.ended = threading.Event()
        self._send = send                   # grpc's send_response_callback: None ends the stream
        self._context = context
        self._lock = threading.Lock()
        self._pending: int | None = None
        self._end = False
        self._draining = False
        self._closed = False

    def offer(self, status: int | None, *, end: bool = False) -> bool:
        """Queue `status` (None: no new one) and, with `end`, the stream's end after it. True if
        the caller must start a drain (none runs)."""
        with self._lock:
            if self._closed:
                return False
            if status is not None:
                self._pending = status
            self._end = self._end or end
            if self._draining:
                return False            # the running drain sends it
            self._draining = True
            return True

    def drain(self) -> None:
        """Send what is queued until nothing is; each send waits for gRPC, under no lock."""
        try:
            while True:
                with self._lock:
                    status, self._pending = self._pending, None
                    if self._closed or (status is None and not self._end):
                        self._draining = False
                        return
                    if status is None:          # all sent, and the stream ends
                        self._closed = True
                        self._draining = False
                if status is None:
                    self._send(None)
                    self.ended.set()
                    return
                self._send(health_pb2.HealthCheckResponse(status=status))
        except Exception:  # noqa: BLE001 - a send that fails ends this watcher, not the sender thread
            log.debug("a Health/Watch send failed", exc_info=True)
            self.close()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._pending = None
            self._draining = False
        self.ended.set()

    def cancel(self) -> None:
        """End the call itself (its client hears CANCELLED): a send that waits returns."""
        self.close()
        try:
            self._context.cancel()
        except Exception:  # noqa: BLE001 - the call has ended already
            log.debug("cancelling a Health/Watch call failed", exc_info=True)


class HealthServicer(health_pb2_grpc.HealthServicer):  # type: ignore[misc, unused-ignore]
    """grpc.health.v1.Health: Check, Watch (gRPC's non-blocking form: a Watch holds no thread
    while it is open) and List (every service's status).

    A Watch's request is read on the server's pool (``start_server``'s RequestWaitInterceptor
    bounds that wait). ``senders``: the most threads that send Watch responses at once (made as
    needed): one per Watch open at once at most (``--max-streams``), so a client that takes
    nothing can hold up only its own."""

    def __init__(self, *, senders: int = 4) -> None:
        self._lock = threading.Lock()     # the tables below; never held while anything waits
        self._statuses: dict[str, int] = {"": SERVING}
        self._watchers: dict[str, set[_Watcher]] = {}
        self._closing = False
        self._senders = max(1, senders)
        self._executor: ThreadPoolExecutor | None = None
        self._stopped = False

        def watch(request: Any, context: grpc.ServicerContext, send_response_callback: Callable[[Any], None]) -> None:
            self._watch(request, context, send_response_callback)

        # gRPC calls it with a callback that sends (see grpc._server), and returns its thread at once.
        watch.experimental_non_blocking = True  # type: ignore[attr-defined]
        self.Watch = watch                  # this instance's: the attributes are per server

    @property
    def shutting_down(self) -> bool:
        """Has ``enter_graceful_shutdown`` been called (every status NOT_SERVING for good)?"""
        with self._lock:
            return self._closing

    def watched_services(self) -> int:
        """Service names with an open Watch now (an entry goes with its last watcher)."""
        with self._lock:
            return len(self._watchers)

    # ------------------------------------------------------------ RPCs

    def Check(self, request: Any, context: grpc.ServicerContext) -> Any:
        service = service_name(request)
        with self._lock:
            status = self._statuses.get(service)
        if status is None:
            context.set_code(grpc.StatusCode.NOT_FOUND)
            return health_pb2.HealthCheckResponse()
        return health_pb2.HealthCheckResponse(status=status)

    def List(self, request: Any, context: grpc.ServicerContext) -> Any:
        with self._lock:
            statuses = dict(self._statuses)
        return health_pb2.HealthListResponse(statuses={
            name: health_pb2.HealthCheckResponse(status=status) for name, status in statuses.items()})

    def _watch(self, request: Any, context: grpc.ServicerContext, send: Callable[[Any], None]) -> None:
        service = service_name(request)
        watcher = _Watcher(service, send, context)
        with self._lock:
            # Offered under the lock, as set() offers: a newer status always follows this one.
            closing = self._closing
            start = watcher.offer(self._statuses.get(service, SERVICE_UNKNOWN), end=closing)
            if not closing:
                self._watchers.setdefault(service, set()).add(watcher)
        if not closing and not context.add_callback(partial(self._forget, watcher)):
            self._forget(watcher)           # the call has ended already
            return
        if start:
            self._submit(watcher)

    # ------------------------------------------------------------ statuses

    def set(self, service: str, status: int) -> None:
        """Set `service`'s status and send it to its watchers (ignored once shutting down)."""
        with self._lock:
            if self._closing:
                return
            self._statuses[service] = status
            starts = [w for w in self._watchers.get(service, ()) if w.offer(status)]
        for watcher in starts:
            self._submit(watcher)

    def enter_graceful_shutdown(self) -> None:
        """Every status NOT_SERVING for good (later ``set`` calls are ignored); the watchers are
        sent it (a watcher of an unknown name nothing new) and their streams end. Waits up to
        SHUTDOWN_SEND_SECONDS for the sends, so that they go out before the server's stop; a
        watcher whose stream has not ended by then (a send still waits: its client takes
        nothing) is cancelled, so that it does not hold the stop for its whole grace."""
        with self._lock:
            if self._closing:
                return
            self._closing = True
            for name in self._statuses:
                self._statuses[name] = NOT_SERVING
            watching = [w for watchers in self._watchers.values() for w in watchers]
            starts = [w for name, watchers in self._watchers.items() for w in watchers
                      if w.offer(NOT_SERVING if name in self._statuses else None, end=True)]
        for watcher in starts:
            self._submit(watcher)
        end = time.monotonic() + SHUTDOWN_SEND_SECONDS
        for watcher in watching:
            if not watcher.ended.wait(max(0.0, end - time.monotonic())):
                watcher.cancel()

    def shutdown(self) -> None:
        """The server has stopped: no more sends (those under way end with their calls)."""
        with self._lock:
            self._stopped = True
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)

    # ------------------------------------------------------------ watchers

    def _forget(self, watcher: _Watcher) -> None:
        """The Watch call has ended (gRPC's close callback, on its event thread: nothing here waits)."""
        watcher.close()
        with self._lock:
            watchers = self._watchers.get(watcher.service)
            if watchers is not None:
                watchers.discard(watcher)
                if not watchers:
                    del self._watchers[watcher.service]

    def _submit(self, watcher: _Watcher) -> Future[None] | None:
        with self._lock:
            if self._executor is None and not self._stopped:
                self._executor = ThreadPoolExecutor(max_workers=self._senders, thread_name_prefix="ddcards-health")
            executor = self._executor
        if executor is None:
            watcher.close()
            return None
        try:
            return executor.submit(watcher.drain)
        except RuntimeError:                # shut down meanwhile
            watcher.close()
            return None
