"""A long run of the gRPC service under a mixed, partly hostile load (a runnable script, not a test).

    python benchmarks/soak_server.py [--seconds 600] [--clients 4] [--workers 2] [--seed 1] [--sample 1]

Starts a real server (``python -m ddcards.server --port 0 --workers W``) and lets ``--clients``
threads (a channel each) call it for ``--seconds``, each call drawn at random from a mix of what
its users do:

- ``solve``: a position of the mixed corpora of all four games (every rule set, trump, team,
  variant), in a random mode; must answer OK;
- ``analyse``: a recorded deal of Mariáš, Mariasz or Prší (the bundled examples with a history;
  no Klaverjas example has one), played card by card; OK;
- ``analyse_stream``: the same over ``AnalysePlayStream``, each step as it is analysed, a third
  of them abandoned after the first step (the analysis stops); OK, or CANCELLED where abandoned;
- ``table``: a Klaverjas DD table; OK;
- ``stream``: 2 to 12 positions over one ``SolveStream``, a third of them abandoned after the first
  answer (the client stops reading and cancels); OK, or CANCELLED where abandoned;
- ``bad``: a position with a card that does not exist, an unknown game, an illegal card in the
  history, a JSON text cut short; INVALID_ARGUMENT;
- ``deadline``: a fresh 36-card Mariasz deal (minutes of search, a large table) with a deadline of
  0.05 to 0.3 s; DEADLINE_EXCEEDED;
- ``cancel``: the same kind of deal, the call cancelled 10 to 100 ms after it starts; CANCELLED;
- ``games``: ListGames; OK.

RESOURCE_EXHAUSTED (a full queue) is an allowed answer to any call. Any other code is a failure and
is printed with its message. Every ``--sample`` seconds the server's resident memory (VmRSS), its
peak (VmHWM), its threads and open files are read from /proc. At the end the health service must
answer SERVING, then SIGTERM must stop the server with status 0 within its grace.

What it reports: the calls by kind and code, the samples at ten points of the run, and the memory
trend over the run's second half (a least-squares slope in MiB a minute: a leak shows as a steady
rise once every table has been allocated). Exit status 1 if any call failed, the server did not
stay healthy or did not stop cleanly.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import sys
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import grpc  # noqa: E402
from grpc_health.v1 import health_pb2, health_pb2_grpc  # noqa: E402

import ddcards  # noqa: E402
from ddcards.client import Client  # noqa: E402
from _args import positive, seconds  # noqa: E402
from _machine import machine_line  # noqa: E402
from bench_mariasz import deal as mariasz_deal  # noqa: E402
from bench_server import ServerProcess  # noqa: E402

CORPUS = ROOT / "benchmarks" / "corpus"
MIXED = ("marias-mixed", "klaverjas-mixed", "mariasz-mixed", "prsi-mixed")
RECORDED = ("marias-seed", "mariasz-recorded", "prsi-endgame")
# kind: weight in the mix
MIX = {"solve": 45, "analyse": 5, "analyse_stream": 5, "table": 5, "stream": 10, "bad": 15, "deadline": 5,
       "cancel": 5, "games": 10}
# the codes each kind may end with (RESOURCE_EXHAUSTED: the server's queue was full, a fair answer)
EXPECTED = {
    "solve": {"OK"}, "analyse": {"OK"}, "table": {"OK"}, "games": {"OK"},
    "stream": {"OK", "CANCELLED"}, "analyse_stream": {"OK", "CANCELLED"}, "bad": {"INVALID_ARGUMENT"},
    "deadline": {"DEADLINE_EXCEEDED"}, "cancel": {"CANCELLED"},
}


def load(name: str, n: int = 60) -> list[dict]:
    with open(CORPUS / f"{name}.jsonl") as fh:
        return [json.loads(line) for line, _ in zip(fh, range(n))]


class Workload:
    def __init__(self, seed: int):
        self.solvable = [doc for name in MIXED for doc in load(name)]
        self.recorded = [ddcards.example(name) for name in RECORDED]
        self.tables = [doc for doc in load("klaverjas-mixed") if not doc.get("played")][:20]
        rng = random.Random(seed)
        self.fresh = [mariasz_deal(rng) for _ in range(8)]    # 36 cards, the stock full

    def bad(self, rng: random.Random) -> dict | str:
        doc = dict(rng.choice(self.solvable))
        kind = rng.randrange(4)
        if kind == 0:                       # a card that does not exist
            hands = list(doc["hands"])
            hands[0] = "Z" + hands[0]
            doc["hands"] = hands
        elif kind == 1:
            doc["game"] = "bridge"
        elif kind == 2:                     # a history ending in a token that is no card
            doc["played"] = list(doc.get("played", [])) + ["XX"]
        else:
            return json.dumps(doc)[: rng.randrange(5, 40)]
        return doc


def code_of(exc: BaseException) -> str:
    if isinstance(exc, grpc.RpcError):
        return exc.code().name
    if isinstance(exc, grpc.FutureCancelledError):
        return "CANCELLED"
    return f"{type(exc).__name__}"


class Tally:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.codes: Counter[tuple[str, str]] = Counter()
        self.failures: list[str] = []

    def add(self, kind: str, code: str, message: str = "") -> None:
        with self.lock:
            self.codes[(kind, code)] += 1
            if code not in EXPECTED[kind] and code != "RESOURCE_EXHAUSTED" and len(self.failures) < 20:
                self.failures.append(f"{kind}: {code} {message[:300]}")


def one_call(client: Client, work: Workload, kind: str, rng: random.Random) -> str:
    """Make one call of `kind`; the code it ended with."""
    if kind == "solve":
        client.solve(rng.choice(work.solvable), rng.choice(("best", "optimal", "all")))
    elif kind == "analyse":
        client.analyse(rng.choice(work.recorded), rng.choice(("optimal", "all")))
    elif kind == "analyse_stream":
        events = client.analyse_stream(rng.choice(work.recorded), rng.choice(("optimal", "all")))
        if rng.random() < 1 / 3:
            next(events)
            events.close()      # the client stops reading: the call is cancelled, the analysis stops
            return "CANCELLED"
        if "analysis" not in list(events)[-1]:
            return "NO_ANALYSIS"
    elif kind == "table":
        client.solve_table(rng.choice(work.tables))
    elif kind == "stream":
        positions = [rng.choice(work.solvable) for _ in range(rng.randint(2, 12))]
        answers = client.solve_many(positions, "optimal")
        if rng.random() < 1 / 3:
            next(answers)
            answers.close()     # the client stops reading: gRPC cancels the call
            return "CANCELLED"
        for answer in answers:
            if "error" in answer:
                return str(answer["error"]["code"])
    elif kind == "bad":
        client.solve(work.bad(rng))
    elif kind == "deadline":
        client.solve(rng.choice(work.fresh), "best", timeout=rng.uniform(0.05, 0.3))
    elif kind == "cancel":
        future = client.solve_future(rng.choice(work.fresh), "best")
        time.sleep(rng.uniform(0.01, 0.1))
        future.cancel()
        future.result()
    elif kind == "games":
        client.list_games()
    return "OK"


def client_loop(target: str, work: Workload, tally: Tally, seed: int, stop: threading.Event) -> None:
    rng = random.Random(seed)
    kinds, weights = list(MIX), list(MIX.values())
    with Client(target, timeout=120) as client:
        while not stop.is_set():
            kind = rng.choices(kinds, weights)[0]
            try:
                code, message = one_call(client, work, kind, rng), ""
            except Exception as exc:        # noqa: BLE001 - every outcome is tallied
                code = code_of(exc)
                message = exc.details() if isinstance(exc, grpc.RpcError) else repr(exc)
            tally.add(kind, code, message or "")


def proc_sample(pid: int) -> dict[str, float]:
    fields = {}
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                fields[key] = int(value.split()[0]) / 1024
            elif key == "Threads":
                fields[key] = int(value)
    fields["fds"] = len(os.listdir(f"/proc/{pid}/fd"))
    return fields


def slope_mib_per_min(samples: list[tuple[float, dict[str, float]]]) -> float:
    """Least-squares slope of VmRSS over the second half of the run, MiB a minute."""
    half = samples[len(samples) // 2:]
    if len(half) < 2:
        return 0.0
    xs = [t for t, _ in half]
    ys = [s["VmRSS"] for _, s in half]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    var = sum((x - mx) ** 2 for x in xs)
    return 60 * sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / var if var else 0.0


def healthy(target: str) -> bool:
    with grpc.insecure_channel(target) as channel:
        reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
    return reply.status == health_pb2.HealthCheckResponse.SERVING


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=seconds, default=600.0, help="how long the clients call (default 600)")
    parser.add_argument("--clients", type=positive, default=4, help="client threads, a channel each (default 4)")
    parser.add_argument("--workers", type=positive, default=2, help="the server's --workers (default 2)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the calls and the fresh deals (default 1)")
    parser.add_argument("--sample", type=seconds, default=1.0, help="seconds between memory samples (default 1)")
    args = parser.parse_args()

    print(machine_line())
    print("Command: python benchmarks/soak_server.py " + " ".join(sys.argv[1:]))
    work = Workload(args.seed)
    tally = Tally()
    samples: list[tuple[float, dict[str, float]]] = []
    ok = True
    after: dict[str, float] | None = None
    with ServerProcess("--workers", str(args.workers), "--log-level", "warning") as server:
        stop = threading.Event()
        threads = [threading.Thread(target=client_loop, args=(server.target, work, tally, args.seed * 1000 + i, stop),
                                    daemon=True) for i in range(args.clients)]
        start = time.monotonic()
        samples.append((0.0, proc_sample(server.pid)))
        for thread in threads:
            thread.start()
        while time.monotonic() - start < args.seconds:
            time.sleep(min(args.sample, max(0.0, args.seconds - (time.monotonic() - start))))
            samples.append((time.monotonic() - start, proc_sample(server.pid)))
            if server.proc.poll() is not None:
                print(f"the server exited with status {server.proc.returncode} during the run")
                ok = False
                break
        stop.set()
        for thread in threads:
            thread.join(150)
        if server.proc.poll() is None:
            after = proc_sample(server.pid)
            if not healthy(server.target):
                print("the server did not answer SERVING after the run")
                ok = False
            t0 = time.monotonic()
            server.proc.send_signal(signal.SIGTERM)
            try:
                status = server.proc.wait(60)
            except Exception:       # noqa: BLE001 - a server that does not stop is the finding
                status = None
            stopped = time.monotonic() - t0
            print(f"SIGTERM: exit status {status} after {stopped:.2f} s")
            ok = ok and status == 0

    print()
    print("| call | outcomes |")
    print("|---|---|")
    for kind in MIX:
        codes = {code: n for (k, code), n in sorted(tally.codes.items()) if k == kind}
        print(f"| {kind} | " + ", ".join(f"{code} {n:,}" for code, n in codes.items()) + " |")
    total = sum(tally.codes.values())
    print(f"\n{total:,} calls in {args.seconds:.0f} s ({total / args.seconds:.1f} a second), {args.clients} clients, "
          f"{args.workers} workers")
    print()
    print("| time | VmRSS MiB | VmHWM MiB | threads | open files |")
    print("|---|---|---|---|---|")
    step = max(1, (len(samples) - 1) // 10)
    for t, s in samples[::step] + ([samples[-1]] if (len(samples) - 1) % step else []):
        print(f"| {t:.0f} s | {s['VmRSS']:.0f} | {s['VmHWM']:.0f} | {s['Threads']} | {s['fds']} |")
    if after is not None:
        print(f"| after the run | {after['VmRSS']:.0f} | {after['VmHWM']:.0f} | {after['Threads']} | {after['fds']} |")
    print(f"\nVmRSS over the second half: {slope_mib_per_min(samples):+.2f} MiB a minute (least squares)")
    if tally.failures:
        ok = False
        print("\nCalls that ended with a code their kind may not:")
        for line in tally.failures:
            print("  " + line)
    print("\nresult: " + ("every call answered as it should; the server stayed healthy and stopped cleanly"
                          if ok else "FAILED (above)"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
