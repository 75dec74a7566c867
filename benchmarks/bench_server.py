"""Benchmark of the gRPC service on loopback (a runnable script, not a test).

    python benchmarks/bench_server.py [--deals 300] [--seed 2024] [--out benchmarks/RESULTS_SERVER.md]

Measures, against a real server process (``python -m ddcards.server``) on 127.0.0.1:

1. Overhead: each corpus position solved by the library in this process
   (``ddcards.solve``) and by the service (``Solve`` through ``ddcards.client``),
   side by side, alternating which goes first; medians per position, then the
   median of the per-position differences. Both sides clear their
   transposition table per solve (the library's default), so they do the same
   search.
2. Latency p50/p99 and throughput with 1, 2 and 8 concurrent clients (one
   channel each) against a 2-worker server; a fresh server per client count.
3. CPU after a cancel: a long SolveStream (one worker busy for seconds) and a
   single Solve are cancelled mid-search; the server's CPU time is read from
   /proc/<pid>/task/*/schedstat (ns resolution) every millisecond.
4. One SolveStream against separate calls: small positions (three tricks left of each corpus
   deal) solved one ``Solve`` call after another, then all over one ``SolveStream``
   (``Client.solve_many``), against a 1-worker server, in turns; the time per position.
   ``--stream-only`` runs just this phase and rewrites only its section of the results file.
5. Load: 16 client processes, each with one call at a time, against the
   *default* server (``python -m ddcards.server``, no flags): the share of calls
   that succeed, the codes of the others, OK/s and latency; once more with 8 idle
   Health/Watch streams and 8 idle SolveStreams open. ``--load-only`` runs just
   this phase and rewrites only its section of the results file.

The corpus: ``--deals`` seeded Mariáš hra deals (random trump, talon without
A/T), full deals (10 tricks to play), mode "all" (every legal move valued).
"""
from __future__ import annotations

import argparse
import os
import platform
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import grpc  # noqa: E402

import ddcards  # noqa: E402
from ddcards.v1 import ddcards_pb2 as pb  # noqa: E402
from ddcards.client import Client  # noqa: E402
from _args import positive, seconds  # noqa: E402
from _machine import machine_line  # noqa: E402

RANKS = "AKQJT987"
SUITS = "SHDC"
DECK = [r + s for s in SUITS for r in RANKS]


# ---------------------------------------------------------------- corpus

def _hand(cards):
    return ".".join("".join(c[0] for c in sorted((c for c in cards if c[1] == s), key=lambda c: RANKS.index(c[0])))
                    for s in SUITS)


def corpus(n: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    docs = []
    while len(docs) < n:
        deck = DECK[:]
        rng.shuffle(deck)
        talon = deck[30:]
        if any(c[0] in "AT" for c in talon):
            continue
        docs.append({"game": "marias", "hands": [_hand(deck[0:10]), _hand(deck[10:20]), _hand(deck[20:30])],
                     "talon": " ".join(talon), "contract": "hra", "trump": rng.choice(SUITS)})
    return docs


# ---------------------------------------------------------------- server process

class CpuClock:
    """CPU time of a process in ns, summed over its threads' /proc/<pid>/task/*/schedstat
    (ns resolution, unlike /proc/<pid>/stat's 10 ms ticks). A thread that has ended keeps
    the time last seen for it, so the clock never runs backwards."""

    def __init__(self, pid: int):
        self.pid = pid
        self.seen: dict[str, int] = {}

    def __call__(self) -> int:
        task_dir = f"/proc/{self.pid}/task"
        try:
            tids = os.listdir(task_dir)
        except FileNotFoundError:
            tids = []
        for tid in tids:
            try:
                with open(f"{task_dir}/{tid}/schedstat") as fh:
                    self.seen[tid] = max(self.seen.get(tid, 0), int(fh.read().split()[0]))
            except (FileNotFoundError, ProcessLookupError, ValueError):
                pass  # the thread ended between listdir and open
        return sum(self.seen.values())


class ServerProcess:
    def __init__(self, *args: str):
        self.log = tempfile.NamedTemporaryFile("w+", prefix="ddcards-bench-", suffix=".log", delete=False)
        env = dict(os.environ)
        self.proc = subprocess.Popen([sys.executable, "-m", "ddcards.server", "--host", "127.0.0.1", "--port", "0", *args],
                                     cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            match = re.search(r"listening on 127\.0\.0\.1:(\d+)", Path(self.log.name).read_text())
            if match:
                self.port = int(match.group(1))
                self.target = f"127.0.0.1:{self.port}"
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.02)
        self.stop()
        raise RuntimeError("server did not start:\n" + Path(self.log.name).read_text())

    @property
    def pid(self) -> int:
        return self.proc.pid

    def cpu_ns(self) -> int:
        """CPU time of every thread the server process has had, in ns (/proc schedstat)."""
        if not hasattr(self, "_clock"):
            self._clock = CpuClock(self.pid)
        return self._clock()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        os.unlink(self.log.name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def system_busy_s() -> float:
    """CPU seconds every core of the machine has been busy (/proc/stat)."""
    with open("/proc/stat") as fh:
        fields = [int(x) for x in fh.readline().split()[1:9]]
    idle = fields[3] + fields[4]
    return (sum(fields) - idle) / os.sysconf("SC_CLK_TCK")


class Background:
    """CPU used by other processes (not this one, not the server) while a phase runs, in cores."""

    def __init__(self, srv: "ServerProcess | None" = None):
        self.srv = srv

    def __enter__(self):
        self.t0, self.sys0, self.me0 = time.perf_counter(), system_busy_s(), time.process_time()
        self.srv0 = self.srv.cpu_ns() / 1e9 if self.srv else 0.0
        return self

    def __exit__(self, *exc):
        wall = time.perf_counter() - self.t0
        own = time.process_time() - self.me0 + ((self.srv.cpu_ns() / 1e9 - self.srv0) if self.srv else 0.0)
        self.cores = max(0.0, (system_busy_s() - self.sys0 - own) / wall)


def quiet_wait(text: str) -> float:
    """--wait-quiet: 0 (do not wait) or seconds above 0 (nan and inf waited for ever on a busy machine)."""
    try:
        return 0.0 if float(text) == 0 else seconds(text)
    except (ValueError, argparse.ArgumentTypeError):
        raise argparse.ArgumentTypeError(f"{text!r} is not 0 (no wait) or a number of seconds above 0") from None


def wait_quiet(max_wait: float, threshold: float = 0.15) -> float:
    """Wait (up to ``max_wait`` s) until other processes use < ``threshold`` cores; returns their last load."""
    end = time.monotonic() + max_wait
    while True:
        with Background() as bg:
            time.sleep(2.0)
        if bg.cores < threshold or time.monotonic() >= end:
            return bg.cores
        print(f"waiting for a quiet machine: other processes use {bg.cores:.2f} cores", flush=True)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1)))))
    return ordered[k]


# ---------------------------------------------------------------- 1. overhead

def bench_overhead(docs: list[dict], reps: int) -> dict:
    direct_solver = ddcards.Solver()
    results = {"direct": [], "rpc": [], "rpc_dict": [], "diff": [], "diff_dict": [], "diff_no_search": [],
               "search_ratio": []}
    with ServerProcess("--workers", "1", "--log-level", "info") as srv, Client(srv.target, timeout=60) as client, \
            Background(srv) as bg:
        results["background"] = bg
        for doc in docs[:10]:  # warm up: connection, worker thread, its solver
            client.solve(doc, as_dict=False)
            direct_solver.solve(doc)
        list_games = []
        for _ in range(200):
            t0 = time.perf_counter()
            client.list_games(as_dict=False)
            list_games.append(time.perf_counter() - t0)
        for i, doc in enumerate(docs):
            value = direct_solver.solve(doc, mode="all").value  # expected answer (untimed)
            d, r, rd, d_search, r_search = [], [], [], [], []
            # Blocks of `reps` calls each, in alternating order: each side runs in its own
            # steady state (caches warm with its own tables), as a real caller would.
            for which in ((0, 1, 2) if i % 2 == 0 else (2, 1, 0)):
                for _ in range(reps):
                    t0 = time.perf_counter()
                    if which == 0:
                        res = direct_solver.solve(doc, mode="all")
                        d.append(time.perf_counter() - t0)
                        d_search.append(res.elapsed)
                        assert res.value == value
                    elif which == 1:
                        msg = client.solve(doc, mode="all", as_dict=False)
                        r.append(time.perf_counter() - t0)
                        r_search.append(msg.elapsed_seconds)
                        assert msg.value == value
                    else:
                        out = client.solve(doc, mode="all")
                        rd.append(time.perf_counter() - t0)
                        assert out["value"] == value
            md, mr, mrd = statistics.median(d), statistics.median(r), statistics.median(rd)
            results["direct"].append(md)
            results["rpc"].append(mr)
            results["rpc_dict"].append(mrd)
            results["diff"].append(mr - md)
            results["diff_dict"].append(mrd - md)
            # the same without the search itself (the library's nogil search in either process)
            results["diff_no_search"].append(statistics.median(x - y for x, y in zip(r, r_search))
                                             - statistics.median(x - y for x, y in zip(d, d_search)))
            results["search_ratio"].append(statistics.median(r_search) / statistics.median(d_search))
        results["list_games"] = list_games
    return results


def bench_service_code(docs: list[dict], calls: int = 3000) -> float:
    """Seconds per Solve spent in the service's own code, in process: request parsing,
    conversions both ways, interceptors, the log line, response serialization. The
    library calls (Position.from_dict, Solver.solve) are stubbed with precomputed answers."""
    import logging

    from ddcards.server.interceptors import ErrorInterceptor, LoggingInterceptor, StreamLimitInterceptor
    from ddcards.server.service import SolverPool, SolverServicer

    logging.getLogger("ddcards.server").setLevel(logging.INFO)
    handler_out = logging.StreamHandler(open(os.devnull, "w"))
    logging.getLogger("ddcards.server").addHandler(handler_out)
    logging.getLogger("ddcards.server").propagate = False

    position = ddcards.Position.from_dict(docs[0])
    answer = ddcards.Solver().solve(position)

    class Answer:
        def solve(self, pos, **kwargs):
            return answer

    class Context:
        def time_remaining(self):
            return 1e9

        def add_callback(self, callback):
            self.callback = callback
            return True

        def code(self):
            return None

        def peer(self):
            return "ipv4:127.0.0.1:1"

    class Details:
        method = "/ddcards.v1.SolverService/Solve"

    servicer = SolverServicer(SolverPool(1, 1, solver_factory=Answer))
    handler = grpc.unary_unary_rpc_method_handler(servicer.Solve, request_deserializer=pb.SolveRequest.FromString)
    # The server's chain: logging, errors (with its safe deserializer), stream limits (a unary call passes).
    logging_i, errors_i, streams_i = LoggingInterceptor(), ErrorInterceptor(), StreamLimitInterceptor(16, 60.0)
    raw = Client.solve_request(docs[0]).SerializeToString()
    from_dict = ddcards.Position.from_dict
    ddcards.Position.from_dict = staticmethod(lambda doc: position)
    try:
        def call():
            wrapped = logging_i.intercept_service(lambda d: errors_i.intercept_service(
                lambda d: streams_i.intercept_service(lambda d: handler, Details()), Details()), Details())
            context = Context()
            out = wrapped.unary_unary(wrapped.request_deserializer(raw), context).SerializeToString()
            context.callback()  # the call ends: the log line is written
            return out

        for _ in range(200):
            call()
        t0 = time.perf_counter()
        for _ in range(calls):
            call()
        return (time.perf_counter() - t0) / calls
    finally:
        ddcards.Position.from_dict = from_dict
        logging.getLogger("ddcards.server").removeHandler(handler_out)
        logging.getLogger("ddcards.server").propagate = True


# ---------------------------------------------------------------- 2. throughput

def _client_process(target: str, jobs: list[dict], counter, ready, start, results) -> None:
    """One client program: its own process and channel, solving jobs from a shared counter."""
    sys.path.insert(0, str(ROOT))
    from ddcards.client import Client as _Client

    latencies = []
    with _Client(target, timeout=120) as client:
        for doc in jobs[:4]:  # connect, warm up
            client.solve(doc, as_dict=False)
        ready.release()
        start.wait()
        cpu0 = time.process_time()
        while True:
            with counter.get_lock():
                i = counter.value
                counter.value += 1
            if i >= len(jobs):
                break
            t0 = time.perf_counter()
            client.solve(jobs[i], mode="all", as_dict=False)
            latencies.append(time.perf_counter() - t0)
    results.put((latencies, time.process_time() - cpu0))


def bench_throughput(docs: list[dict], clients: int, rounds: int, workers: int) -> dict:
    """``clients`` client processes (separate programs, as real clients are) against one server."""
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    jobs = [doc for _ in range(rounds) for doc in docs]
    with ServerProcess("--workers", str(workers)) as srv:
        counter = ctx.Value("l", 0)
        ready = ctx.Semaphore(0)
        start = ctx.Event()
        results = ctx.Queue()
        procs = [ctx.Process(target=_client_process, args=(srv.target, jobs, counter, ready, start, results))
                 for _ in range(clients)]
        for p in procs:
            p.start()
        for _ in procs:
            ready.acquire()
        cpu0 = srv.cpu_ns()
        sys0, me0 = system_busy_s(), time.process_time()
        t0 = time.perf_counter()
        start.set()
        latencies: list[float] = []
        client_cpu = 0.0
        for _ in procs:
            mine, cpu_s = results.get()
            latencies.extend(mine)
            client_cpu += cpu_s
        wall = time.perf_counter() - t0
        cpu = (srv.cpu_ns() - cpu0) / 1e9
        other = max(0.0, (system_busy_s() - sys0 - (time.process_time() - me0) - cpu - client_cpu) / wall)
        for p in procs:
            p.join(30)
    return {"clients": clients, "solves": len(jobs), "wall": wall, "throughput": len(jobs) / wall,
            "p50": pct(latencies, 50), "p99": pct(latencies, 99), "server_cores": cpu / wall,
            "client_cores": client_cpu / wall, "other_cores": other}


def bench_library_scaling(docs: list[dict], rounds: int) -> dict[int, float]:
    """The library alone, for reference: solves/s with 1 and 2 threads, each with its own Solver."""
    import threading

    jobs = [doc for _ in range(rounds) for doc in docs]
    out = {}
    for threads in (1, 2):
        counter = iter(range(len(jobs)))
        lock = threading.Lock()

        def work():
            own = ddcards.Solver()
            while True:
                with lock:
                    i = next(counter, None)
                if i is None:
                    return
                own.solve(jobs[i], mode="all")

        pool = [threading.Thread(target=work) for _ in range(threads)]
        t0 = time.perf_counter()
        for t in pool:
            t.start()
        for t in pool:
            t.join()
        out[threads] = len(jobs) / (time.perf_counter() - t0)
    return out


# ---------------------------------------------------------------- 3. CPU after cancel

def _cpu_trace(srv: ServerProcess, seconds: float) -> list[tuple[float, int]]:
    trace = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        trace.append((time.perf_counter(), srv.cpu_ns()))
        time.sleep(0.001)
    return trace


def _idle_after(trace: list[tuple[float, int]], t_cancel: float, idle_rate: float) -> float:
    """Seconds after the cancel from which the server's CPU use stays at its idle rate:
    the first t with CPU in [t, t + 50 ms] at most the idle rate + 2% of a core."""
    window = 0.05
    for i, (t, c) in enumerate(trace):
        if t < t_cancel:
            continue
        j = next((j for j in range(i, len(trace)) if trace[j][0] >= t + window), None)
        if j is None:
            break
        used = (trace[j][1] - c) / 1e9
        if used <= (idle_rate + 0.02) * (trace[j][0] - t):
            return t - t_cancel
    return float("nan")


def bench_cancel(hard: list[dict]) -> dict:
    out = {}
    with ServerProcess("--workers", "1") as srv, Client(srv.target, timeout=300) as client:
        client.solve(hard[0], as_dict=False)
        idle = _cpu_trace(srv, 0.5)
        idle_rate = (idle[-1][1] - idle[0][1]) / 1e9 / (idle[-1][0] - idle[0][0])
        out["idle_rate"] = idle_rate

        # (a) a long SolveStream: the single worker is busy for seconds; cancel after 0.5 s.
        requests = [pb.SolveStreamRequest(id=str(i), solve=Client.solve_request(d)) for i, d in enumerate(hard * 20)]
        stream = client.stub.SolveStream(iter(requests))
        first = next(stream)
        assert first.WhichOneof("outcome") == "result"
        busy = _cpu_trace(srv, 0.5)
        out["busy_rate"] = (busy[-1][1] - busy[0][1]) / 1e9 / (busy[-1][0] - busy[0][0])
        t_cancel = time.perf_counter()
        stream.cancel()
        trace = busy + _cpu_trace(srv, 1.2)
        out["stream_idle_after_ms"] = _idle_after(trace, t_cancel, idle_rate) * 1000

        def cpu_between(a: float, b: float) -> float:
            pts = [(t, c) for t, c in trace if t_cancel + a <= t <= t_cancel + b]
            return (pts[-1][1] - pts[0][1]) / 1e6 if len(pts) > 1 else float("nan")

        out["stream_cpu_ms_0_100"] = cpu_between(0.0, 0.1)
        out["stream_cpu_ms_100_1100"] = cpu_between(0.1, 1.1)
        out["stream_work_left_s"] = len(requests) * statistics.median(
            ddcards.solve(d).elapsed for d in hard) - 0.5

        # (b) single Solves of the hardest deal, cancelled ~10 ms into the search.
        unary = []
        for _ in range(10):
            future = client.solve_future(hard[0], mode="all")
            time.sleep(0.01)
            t_cancel = time.perf_counter()
            future.cancel()
            trace = _cpu_trace(srv, 0.3)
            unary.append(_idle_after([(t_cancel, trace[0][1])] + trace, t_cancel, idle_rate) * 1000)
        out["unary_idle_after_ms"] = unary
        out["unary_search_ms"] = statistics.median(ddcards.solve(hard[0]).elapsed for _ in range(5)) * 1000
    return out


# ---------------------------------------------------------------- report

def machine() -> str:
    """What the service's figures depend on beyond machine_line() (printed beside it)."""
    return f"Linux {platform.release()}, grpcio {grpc.__version__}, solver {ddcards.__version__}"


# ---------------------------------------------------------------- 4. load

def _load_client(target: str, jobs: list[dict], counter, ready, start, results) -> None:
    """A client process of the load test: one call at a time; every outcome counted."""
    sys.path.insert(0, str(ROOT))
    import grpc as _grpc
    from ddcards.client import Client as _Client

    codes: dict[str, int] = {}
    latencies = []
    with _Client(target, timeout=120) as client:
        client.list_games()
        ready.release()
        start.wait()
        while True:
            with counter.get_lock():
                i = counter.value
                counter.value += 1
            if i >= len(jobs):
                break
            t0 = time.perf_counter()
            try:
                client.solve(jobs[i], mode="all", as_dict=False)
                code = "OK"
                latencies.append(time.perf_counter() - t0)
            except _grpc.RpcError as error:
                code = error.code().name
            codes[code] = codes.get(code, 0) + 1
    results.put((codes, latencies))


def _idle_streams(target: str, count: int):
    """``count`` open Health/Watch streams and ``count`` SolveStreams that send nothing."""
    import queue as _queue

    from grpc_health.v1 import health_pb2, health_pb2_grpc

    channel = grpc.insecure_channel(target)
    calls, gates = [], []
    for _ in range(count):
        watch = health_pb2_grpc.HealthStub(channel).Watch(health_pb2.HealthCheckRequest(), timeout=600)
        next(watch)
        calls.append(watch)
        gate: _queue.Queue = _queue.Queue()
        gates.append(gate)
        calls.append(channel.stream_stream("/ddcards.v1.SolverService/SolveStream")(iter(gate.get, None), timeout=600))

    def close() -> None:
        for gate in gates:
            gate.put(None)
        for call in calls:
            call.cancel()
        channel.close()

    return close


def bench_load(docs: list[dict], clients: int, rounds: int, idle: int = 0) -> dict:
    """``clients`` client processes, one call at a time each, against the default server."""
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    jobs = [doc for _ in range(rounds) for doc in docs]
    with ServerProcess() as srv:
        close_idle = _idle_streams(srv.target, idle) if idle else None
        try:
            counter = ctx.Value("l", 0)
            ready = ctx.Semaphore(0)
            start = ctx.Event()
            results = ctx.Queue()
            procs = [ctx.Process(target=_load_client, args=(srv.target, jobs, counter, ready, start, results))
                     for _ in range(clients)]
            for p in procs:
                p.start()
            for _ in procs:
                ready.acquire()
            sys0, me0 = system_busy_s(), time.process_time()
            t0 = time.perf_counter()
            start.set()
            codes: dict[str, int] = {}
            latencies: list[float] = []
            for _ in procs:
                mine, lat = results.get()
                for code, n in mine.items():
                    codes[code] = codes.get(code, 0) + n
                latencies.extend(lat)
            wall = time.perf_counter() - t0
            busy = (system_busy_s() - sys0 - (time.process_time() - me0)) / wall
            for p in procs:
                p.join(30)
        finally:
            if close_idle is not None:
                close_idle()
    calls = sum(codes.values())
    return {"clients": clients, "idle": idle, "calls": calls, "codes": codes, "ok_share": codes.get("OK", 0) / calls,
            "ok_per_s": codes.get("OK", 0) / wall, "p50": pct(latencies, 50), "p99": pct(latencies, 99),
            "wall": wall, "busy_cores": busy}


def late(doc: dict, cards: int = 21) -> dict:
    """The deal after `cards` cards of play (each the first legal one): a small position whose
    search is short, so that a call's own cost shows."""
    pos = ddcards.Position.from_dict(doc)
    for _ in range(cards):
        pos = pos.play(pos.legal_moves[0])
    return pos.to_dict()


def bench_stream(docs: list[dict], rounds: int) -> dict:
    """Seconds per position: separate Solve calls against one SolveStream, in turns."""
    small = [late(d) for d in docs]
    calls, streams = [], []
    with ServerProcess("--workers", "1") as srv, Client(srv.target, timeout=600) as client:
        client.solve(small[0])                                   # the connection and the worker warm
        for _ in range(rounds):
            start = time.perf_counter()
            for doc in small:
                client.solve(doc)
            calls.append((time.perf_counter() - start) / len(small))
            start = time.perf_counter()
            answered = sum(1 for item in client.solve_many(small) if "result" in item)
            streams.append((time.perf_counter() - start) / len(small))
            if answered != len(small):
                raise RuntimeError(f"the stream answered {answered} of {len(small)} positions")
    search = statistics.median(ddcards.solve(d).elapsed for d in small)
    return {"positions": len(small), "rounds": rounds, "calls": calls, "streams": streams, "search": search}


def stream_section(run: dict, command: str, machine_before: str) -> list[str]:
    """The SolveStream phase's section; `machine_before`: machine_line() as the phase began."""
    call, stream = statistics.median(run["calls"]), statistics.median(run["streams"])
    return [
        "## Many positions: one SolveStream against separate Solve calls",
        "",
        f"Command: `{command}`. {machine_before}; {machine()}.",
        "",
        f"{run['positions']} small positions (each corpus deal after 21 cards, the first legal one each time: three "
        f"tricks left, mode `all`; the library's search takes {run['search'] * 1e3:.3f} ms median) against a "
        f"1-worker server, {run['rounds']} rounds, each round the separate calls then the stream "
        f"(`Client.solve_many`). Time per position, the median round:",
        "",
        "| | per position | each round |",
        "|---|---:|---|",
        f"| separate `Solve` calls, one after another | **{call * 1e3:.2f} ms** | "
        + ", ".join(f"{t * 1e3:.2f}" for t in run["calls"]) + " ms |",
        f"| one `SolveStream` | **{stream * 1e3:.2f} ms** | "
        + ", ".join(f"{t * 1e3:.2f}" for t in run["streams"]) + " ms |",
        "",
        f"The stream takes {stream / call:.2f}x the time of separate calls: no per-call setup, and the next "
        "positions travel while one is searched.",
        "",
    ]


def load_section(runs: list[dict], command: str, docs: list[dict], rounds: int, machine_before: str) -> list[str]:
    """The load phase's section; `machine_before`: machine_line() as the phase began (after it, the
    load average counted the phase's own 16 clients)."""
    lines = [
        "## Load: 16 clients against the default server",
        "",
        f"Command: `{command}`. {machine_before} (the load average says how busy it was when the run began); "
        f"{machine()}.",
        "",
        f"Server: `python -m ddcards.server` with no flags (2 workers on 2 cores, queue of 64, queue timeout 30 s). "
        f"Each client a process of its own with one call at a time (Solve, mode `all`), {len(docs)} seeded full "
        f"deals x {rounds} passes shared between them.",
        "",
        "| clients | idle streams open | calls | succeeded | other outcomes | OK/s | latency p50 | latency p99 |",
        "|---:|---:|---:|---:|---|---:|---:|---:|",
    ]
    for run in runs:
        others = ", ".join(f"{code} {n}" for code, n in sorted(run["codes"].items()) if code != "OK") or "none"
        lines.append(f"| {run['clients']} | {2 * run['idle']} ({run['idle']} Watch + {run['idle']} SolveStream) | "
                     f"{run['calls']} | **{run['ok_share'] * 100:.1f}%** | {others} | {run['ok_per_s']:.1f} | "
                     f"{run['p50'] * 1000:.1f} ms | {run['p99'] * 1000:.1f} ms |")
    lines += [
        "",
        "Target: ≥ 95% of calls succeed. Before 0.2.0 the server admitted max(8, 4 x workers) calls, streams "
        "included, and turned the rest away at once: 98% of calls failed above that limit, and 8 idle streams "
        "failed every call.",
        "",
    ]
    return lines


def _replace_section(path: Path, heading: str, lines: list[str]) -> None:
    text = path.read_text() if path.exists() else ""
    start = text.find(heading)
    if start < 0:
        text = text.rstrip("\n") + "\n\n" + "\n".join(lines)
    else:
        end = text.find("\n## ", start + len(heading))
        text = text[:start] + "\n".join(lines) + (text[end + 1:] if end >= 0 else "")
    path.write_text(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=positive, default=300, help="corpus size (seeded full deals)")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--overhead-deals", type=positive, default=100, help="positions of the overhead comparison")
    parser.add_argument("--reps", type=positive, default=5, help="repetitions per position in the overhead comparison")
    parser.add_argument("--rounds", type=positive, default=2, help="passes over the corpus per throughput run")
    parser.add_argument("--repeats", type=positive, default=3, help="throughput runs per client count (median kept)")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "RESULTS_SERVER.md"))
    parser.add_argument("--wait-quiet", type=quiet_wait, default=0.0, metavar="SECONDS",
                        help="before each phase wait up to SECONDS for other processes to leave the CPUs "
                             "idle, and repeat a phase (up to --attempts times) if they did not")
    parser.add_argument("--attempts", type=positive, default=3)
    parser.add_argument("--load-only", action="store_true",
                        help="run only the load phase (16 clients against the default server) and rewrite its section")
    parser.add_argument("--load-deals", type=positive, default=100, help="corpus of the load phase")
    parser.add_argument("--stream-only", action="store_true",
                        help="run only the SolveStream phase (against separate calls) and rewrite its section")
    parser.add_argument("--stream-rounds", type=positive, default=5, help="rounds of the SolveStream phase")
    args = parser.parse_args(argv)
    command = "python benchmarks/bench_server.py" + (" " + " ".join(argv if argv is not None else sys.argv[1:])).rstrip()
    # Each section's machine line is taken before its work: taken when the section was written, after
    # the phase, the load average counted the benchmark's own servers and clients.
    started = machine_line()
    print(f"{started}. Command: {command}", flush=True)

    def run_load() -> list[str]:
        load_docs = corpus(args.load_deals, args.seed)
        before = machine_line()
        runs = []
        for idle in (0, 8):
            run = bench_load(load_docs, 16, args.rounds, idle=idle)
            print(f"load, 16 clients, {2 * idle} idle streams: {run['ok_share'] * 100:.1f}% OK, "
                  f"{run['ok_per_s']:.1f} OK/s, codes {run['codes']}, p50 {run['p50'] * 1000:.1f} ms, "
                  f"p99 {run['p99'] * 1000:.1f} ms", flush=True)
            runs.append(run)
        return load_section(runs, command, load_docs, args.rounds, before)

    def run_stream() -> list[str]:
        if args.wait_quiet:
            wait_quiet(args.wait_quiet)
        before = machine_line()
        run = bench_stream(corpus(args.load_deals, args.seed), args.stream_rounds)
        print(f"stream: separate calls {statistics.median(run['calls']) * 1e3:.2f} ms a position, one SolveStream "
              f"{statistics.median(run['streams']) * 1e3:.2f} ms", flush=True)
        return stream_section(run, command, before)

    if args.stream_only:
        _replace_section(Path(args.out), "## Many positions: one SolveStream against separate Solve calls",
                         run_stream())
        print(f"wrote the SolveStream section of {args.out}")
        return 0

    if args.load_only:
        _replace_section(Path(args.out), "## Load: 16 clients against the default server", run_load())
        print(f"wrote the load section of {args.out}")
        return 0

    def quietly(label, fn, load):
        """Run a phase; with --wait-quiet, on a quiet machine (retrying while others load the CPUs)."""
        for attempt in range(1, args.attempts + 1):
            if args.wait_quiet:
                wait_quiet(args.wait_quiet)
            result = fn()
            other = load(result)
            if not args.wait_quiet or other < 0.2 or attempt == args.attempts:
                return result
            print(f"{label}: other processes used {other:.2f} cores; repeating", flush=True)

    docs = corpus(args.deals, args.seed)
    times = sorted(((ddcards.solve(d).elapsed, i) for i, d in enumerate(docs)), reverse=True)
    hard = [docs[i] for _, i in times[:6]]
    direct_median = statistics.median(t for t, _ in times)
    print(f"corpus: {len(docs)} deals, direct solve median {direct_median * 1000:.2f} ms, "
          f"max {times[0][0] * 1000:.1f} ms", flush=True)

    ov = quietly("overhead", lambda: bench_overhead(docs[: args.overhead_deals], args.reps),
                 lambda r: r["background"].cores)
    print(f"overhead: direct {statistics.median(ov['direct']) * 1000:.3f} ms, rpc {statistics.median(ov['rpc']) * 1000:.3f} ms, "
          f"diff p50 {statistics.median(ov['diff']) * 1000:.3f} ms", flush=True)

    own = quietly("service code", lambda: bench_service_code(docs), lambda r: 0.0)
    print(f"service code per Solve (in process, library stubbed): {own * 1e6:.0f} us", flush=True)

    all_runs: dict[int, list[dict]] = {1: [], 2: [], 8: []}
    for _ in range(args.repeats):  # interleaved, so slow drifts of the machine hit every client count
        for clients in all_runs:
            run = quietly(f"{clients} clients", lambda: bench_throughput(docs, clients, args.rounds, workers=2),
                          lambda r: r["other_cores"])
            all_runs[clients].append(run)
            print(f"{clients} clients: {run['throughput']:.1f} solves/s, p50 {run['p50'] * 1000:.2f} ms, "
                  f"p99 {run['p99'] * 1000:.2f} ms, server {run['server_cores']:.2f} cores, "
                  f"other processes {run['other_cores']:.2f} cores", flush=True)
    library = quietly("library scaling", lambda: bench_library_scaling(docs, args.rounds), lambda r: 0.0)
    print(f"library alone: 1 thread {library[1]:.1f}/s, 2 threads {library[2]:.1f}/s", flush=True)
    # The run with the median throughput stands for each client count.
    runs = [sorted(rs, key=lambda r: r["throughput"])[len(rs) // 2] for rs in all_runs.values()]

    if args.wait_quiet:
        wait_quiet(args.wait_quiet)
    cancel = bench_cancel(hard)
    print(f"cancel: stream idle after {cancel['stream_idle_after_ms']:.1f} ms, unary idle after "
          f"{statistics.median(cancel['unary_idle_after_ms']):.1f} ms (median)", flush=True)

    stream_lines = run_stream()
    load_lines = run_load()
    base = runs[0]["throughput"]
    unary = cancel["unary_idle_after_ms"]
    # the stream's figure counts only if it still had work when it was cancelled
    idle_after = max([max(unary)] + ([cancel["stream_idle_after_ms"]] if cancel["stream_work_left_s"] > 0 else []))
    lines = [
        "# gRPC service benchmark (benchmarks/bench_server.py)",
        "",
        f"Command: `{command}` (from the repository root, dev venv).",
        f"{started}; {machine()}.",
        f"Corpus: {len(docs)} seeded Mariáš hra full deals (seed {args.seed}, random trump, talon without A/T), "
        f"mode `all`; direct library solve median {direct_median * 1000:.2f} ms, max {times[0][0] * 1000:.1f} ms.",
        "",
        "Against the targets:",
        "",
        f"* Solve overhead over the direct call: **{statistics.median(ov['diff']) * 1000:.2f} ms** p50 "
        f"(target ≤ 1 ms: {'met' if statistics.median(ov['diff']) <= 0.001 else 'missed'}; an empty gRPC round trip "
        f"alone costs {statistics.median(ov['list_games']) * 1000:.2f} ms here, the service's own code {own * 1e6:.0f} µs).",
        f"* Throughput with 2 clients: **{runs[1]['throughput'] / base:.2f}x** one client "
        f"(target ≥ 1.7x: {'met' if runs[1]['throughput'] / base >= 1.7 else 'missed'}; the library alone: "
        f"{library[2] / library[1]:.2f}x).",
        f"* Server CPU idle after a cancel: within **{idle_after:.1f} ms** "
        f"(target ≤ 100 ms: {'met' if idle_after <= 100 else 'missed'}).",
        "",
        "Server: `python -m ddcards.server` in its own process on 127.0.0.1 (request logging on, the default transposition table per worker). "
        "Overhead and cancel: the client in the benchmark process. Throughput: each client a process of its own "
        "(`ddcards.client.Client`, one channel each) taking the next position from a shared counter.",
        "",
        "## Overhead of a Solve over the direct library call",
        "",
        f"{len(ov['direct'])} positions; per position {args.reps} direct calls, {args.reps} RPCs and {args.reps} RPCs "
        "returning dicts, in blocks of alternating order; 1-worker server; per-position medians, then the median "
        "(p90) over positions.",
        "",
        "| | p50 | p90 |",
        "|---|---:|---:|",
        f"| direct `ddcards.Solver().solve(doc)` | {statistics.median(ov['direct']) * 1000:.3f} ms | {pct(ov['direct'], 90) * 1000:.3f} ms |",
        f"| `Client.solve(doc, as_dict=False)` over gRPC | {statistics.median(ov['rpc']) * 1000:.3f} ms | {pct(ov['rpc'], 90) * 1000:.3f} ms |",
        f"| `Client.solve(doc)` (plain dict) | {statistics.median(ov['rpc_dict']) * 1000:.3f} ms | {pct(ov['rpc_dict'], 90) * 1000:.3f} ms |",
        f"| **overhead** (RPC − direct, per position) | **{statistics.median(ov['diff']) * 1000:.3f} ms** | {pct(ov['diff'], 90) * 1000:.3f} ms |",
        f"| overhead with dict conversion | {statistics.median(ov['diff_dict']) * 1000:.3f} ms | {pct(ov['diff_dict'], 90) * 1000:.3f} ms |",
        f"| overhead outside the search (each side's time minus its own search time) | {statistics.median(ov['diff_no_search']) * 1000:.3f} ms | {pct(ov['diff_no_search'], 90) * 1000:.3f} ms |",
        f"| empty round trip (`ListGames`) | {statistics.median(ov['list_games']) * 1000:.3f} ms | {pct(ov['list_games'], 90) * 1000:.3f} ms |",
        "",
        f"Other processes used {ov['background'].cores:.2f} cores on average during this phase.",
        "",
        "Target: overhead ≤ 1 ms p50.",
        "",
        f"The search itself took {statistics.median(ov['search_ratio']):.2f}x as long in the server as in the "
        "benchmark process (median over positions; each side has its own Solver, and how fast a Solver's "
        "table is depends on how many huge pages it got, which varies from instance to instance here).",
        "",
        f"Of the overhead, the service's own code (request parsing, conversions both ways, interceptors, "
        f"the log line, response serialization; measured in process with the library calls stubbed) takes "
        f"{own * 1e6:.0f} µs per Solve. The rest is gRPC's Python transport on both sides — the empty "
        f"round trip above — plus the larger Solve messages and the search running in another process "
        f"(its own caches, threads woken across processes).",
        "",
        f"## Latency and throughput (2-worker server, {args.rounds} passes over the corpus per run, fresh server per run)",
        "",
        f"{args.repeats} runs per client count, interleaved (1, 2, 8, 1, 2, 8, ...); the table shows the run with the "
        "median throughput. All runs: " + "; ".join(
            f"{n} client{'s' if n > 1 else ''} " + ", ".join(f"{r['throughput']:.0f}/s" for r in rs)
            for n, rs in all_runs.items()) + ".",
        "",
        "| clients | solves | throughput | vs 1 client | latency p50 | latency p99 | server CPU | clients' CPU | other processes |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for run in runs:
        lines.append(f"| {run['clients']} | {run['solves']} | {run['throughput']:.1f}/s | {run['throughput'] / base:.2f}x | "
                     f"{run['p50'] * 1000:.2f} ms | {run['p99'] * 1000:.2f} ms | {run['server_cores']:.2f} cores | "
                     f"{run['client_cores']:.2f} cores | {run['other_cores']:.2f} cores |")
    lines += [
        "",
        f"For reference, the library alone in one process (a thread and a Solver per stream of work, no gRPC): "
        f"1 thread {library[1]:.1f}/s, 2 threads {library[2]:.1f}/s ({library[2] / library[1]:.2f}x); a solve there "
        "includes Position.from_dict, as on the server.",
        "",
        "Target: 2 clients ≥ 1.7x one client on 2 cores.",
        "",
        "## Server CPU after a cancel (1-worker server, CPU from /proc/<pid>/task/*/schedstat every 1 ms)",
        "",
        f"Idle server: {cancel['idle_rate'] * 100:.1f}% of a core; while searching: {cancel['busy_rate'] * 100:.0f}%.",
        "",
        "| cancelled call | CPU idle again after | server CPU in the 100 ms after the cancel | CPU from 100 ms to 1.1 s |",
        "|---|---:|---:|---:|",
        f"| SolveStream of {len(hard) * 20} hard deals, cancelled 0.5 s in "
        + (f"(≈{cancel['stream_work_left_s']:.1f} s of work left) | " if cancel['stream_work_left_s'] > 0 else
           "(its work was done before the cancel: this row measures no cancel; a larger --deals gives it work) | ")
        + 
        f"{cancel['stream_idle_after_ms']:.1f} ms | {cancel['stream_cpu_ms_0_100']:.1f} ms | {cancel['stream_cpu_ms_100_1100']:.1f} ms |",
        f"| Solve of the hardest deal ({cancel['unary_search_ms']:.0f} ms search), cancelled 10 ms in, 10 times | "
        f"median {statistics.median(unary):.1f} ms, max {max(unary):.1f} ms | | |",
        "",
        "\"Idle again\": the first moment after the cancel from which the server uses no more than its idle rate "
        "+ 2% of a core over the next 50 ms. Target: idle within 100 ms.",
        "",
    ] + stream_lines + load_lines
    Path(args.out).write_text("\n".join(lines))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
