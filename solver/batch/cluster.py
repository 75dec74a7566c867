"""A Dask client for ``ddcards batch --dask``: an existing cluster, or a local one.

``--dask tcp://HOST:8786`` connects to a running scheduler (``dask scheduler`` with
``dask worker`` processes, dask-jobqueue on SLURM, ...: docs/BATCH.md); ``--dask local``
starts a ``distributed.LocalCluster`` of worker processes (one thread each) on this machine.
Every worker must run the same ddcards as the driver: they are asked before any work is sent.
"""
from __future__ import annotations

import logging
import signal
import socket
import threading
import time
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import ddcards
from ddcards.errors import InvalidOptionError

__all__ = ["dask_client", "DASK_RULE", "WORKER_WAIT_SECONDS"]

DASK_RULE = "--dask: a Dask scheduler's address (tcp://HOST:8786) or 'local' (pip install 'ddcards[dask]')"
WORKER_WAIT_SECONDS = 60.0
CONNECT_SECONDS = 20.0


def _worker_version() -> str:
    """What a worker runs (sent to every worker): ddcards' version, or why it cannot import it."""
    try:
        import ddcards as worker_ddcards
    except Exception as exc:            # noqa: BLE001 - reported to the driver as text
        return f"no ddcards ({type(exc).__name__}: {exc})"
    return str(worker_ddcards.__version__)


def _check_reachable(address: str) -> None:
    """A TCP scheduler address that cannot be right (a port past 65535) or where nothing listens
    (connection refused) is said at once: Dask's client would retry it for CONNECT_SECONDS.
    Anything else (a host that does not answer, another protocol) is left to Dask."""
    parts = urllib.parse.urlsplit(address if "://" in address else "tcp://" + address)
    if parts.scheme != "tcp":
        return
    try:
        host, port = parts.hostname, parts.port
    except ValueError:
        raise InvalidOptionError(f"cannot reach the Dask scheduler at {address}: its port is not a number from 0 "
                                 "to 65535", token=address, rule=DASK_RULE) from None
    if not host or port is None:
        return
    try:
        socket.create_connection((host, port), timeout=CONNECT_SECONDS).close()
    except ConnectionRefusedError:
        raise InvalidOptionError(f"cannot reach the Dask scheduler at {address}: nothing listens on port {port} of "
                                 f"{host} (connection refused); start one (dask scheduler) or check the address",
                                 token=address, rule=DASK_RULE) from None
    except OSError:
        return                  # a name that does not resolve, a host that does not answer: Dask says


@contextmanager
def _signals_held() -> Iterator[list[int]]:
    """SIGINT and SIGTERM held while a LocalCluster starts; the ones caught are in the list.
    Interrupted half-way, the cluster is no object yet that could be closed, and Dask's own
    exit hook then fails on its workers still starting: a traceback (AssertionError:
    Status.init) after "ddcards: interrupted", and a SIGTERM left their semaphores leaked.
    Only the main thread may set handlers: elsewhere nothing is held."""
    caught: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield caught
        return
    previous = {signum: signal.signal(signum, lambda signum, frame: caught.append(signum))
                for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield caught
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _take_held(caught: list[int]) -> None:
    """A signal held while the cluster started, taken now that it can be stopped in order:
    SIGTERM as the batch takes it (Terminated, exit status 143), Ctrl-C as KeyboardInterrupt."""
    if signal.SIGTERM in caught:
        from ddcards.batch.job import Terminated

        raise Terminated
    if caught and signal.getsignal(signal.SIGINT) != signal.SIG_IGN:
        raise KeyboardInterrupt


@contextmanager
def dask_client(address: str, workers: int | None) -> Iterator[tuple[Any, str]]:
    """(a connected dask.distributed Client, a description for the summary); closed on exit."""
    try:
        import distributed
    except ImportError:
        raise InvalidOptionError("--dask needs Dask's distributed scheduler: pip install 'ddcards[dask]'",
                                 token=address, rule=DASK_RULE) from None
    dist: Any = distributed                 # untyped calls, kept at arm's length
    if address != "local":
        _check_reachable(address)
    cluster = None
    start = time.perf_counter()
    try:
        if address == "local":
            from ddcards.ddtable import available_threads

            import dask

            # Dask's statistical profiler samples every worker thread 100 times a second:
            # 10% of the workers' CPU on a batch of searches, for a profile nobody reads here.
            with dask.config.set({"distributed.worker.profile.enabled": False}), _signals_held() as caught:
                cluster = dist.LocalCluster(n_workers=workers or available_threads(), threads_per_worker=1,
                                            processes=True, dashboard_address=None, silence_logs=logging.ERROR)
            _take_held(caught)
            client = dist.Client(cluster)
        else:
            client = dist.Client(address, timeout=CONNECT_SECONDS)
    except KeyboardInterrupt:           # (and Terminated) the cluster started: stopped in order
        if cluster is not None:
            cluster.close()
        raise
    except (OSError, TimeoutError, ValueError, RuntimeError, TypeError) as exc:
        # (TypeError: Dask's own word on its configuration, such as a tls:// address with no
        # certificates configured, "TLS expects a `ssl_context` argument ...")
        if cluster is not None:
            cluster.close()
        what = ("the local Dask cluster did not start" if address == "local" else
                f"cannot reach the Dask scheduler at {address}")
        raise InvalidOptionError(f"{what}: {exc}", token=address, rule=DASK_RULE) from None
    try:
        try:
            client.wait_for_workers(1, timeout=WORKER_WAIT_SECONDS)
        except TimeoutError:
            raise InvalidOptionError(f"no Dask worker joined the scheduler at {address} in "
                                     f"{WORKER_WAIT_SECONDS:g} s: start some (dask worker {address})",
                                     token=address, rule=DASK_RULE) from None
        except (OSError, RuntimeError) as exc:     # the scheduler went away while we waited
            raise InvalidOptionError(f"lost the Dask scheduler at {address} while waiting for workers: {exc}",
                                     token=address, rule=DASK_RULE) from None
        try:
            versions = client.run(_worker_version)
        except (OSError, RuntimeError) as exc:
            raise InvalidOptionError(f"lost the Dask scheduler at {address} while asking the workers' ddcards "
                                     f"version: {exc}", token=address, rule=DASK_RULE) from None
        wrong = {worker: v for worker, v in versions.items() if v != ddcards.__version__}
        if wrong:
            worker, version = sorted(wrong.items())[0]
            raise InvalidOptionError(f"the Dask worker {worker} runs {version}, not ddcards {ddcards.__version__} "
                                     f"like this driver ({len(wrong)} of {len(versions)} workers differ): install "
                                     "the same ddcards on every worker", token=address, rule=DASK_RULE)
        threads = sum(client.nthreads().values())
        where = (f"a local Dask cluster of {len(versions)} worker process{'' if len(versions) == 1 else 'es'} (started in "
                 f"{time.perf_counter() - start:.1f} s)" if cluster is not None else
                 f"the Dask cluster at {address} ({len(versions)} worker{'' if len(versions) == 1 else 's'}, "
                 f"{threads} thread{'' if threads == 1 else 's'})")
        yield client, where
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
