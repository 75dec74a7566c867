"""Benchmarks of batch solving (issue 13): ``ddcards batch`` on threads and on Dask.

    python benchmarks/bench_batch.py speedup [--rounds 5]     # 2 jobs against 1, Mariáš Hra corpus
    python benchmarks/bench_batch.py overhead [--rounds 5]    # the batch machinery's own cost a position
    python benchmarks/bench_batch.py dask [--rounds 3]        # LocalCluster of 2 workers against 1 job
    python benchmarks/bench_batch.py large [--positions 100000] [--kills 3]   # memory, kill and resume

speedup, dask: ``ddcards batch benchmarks/corpus/marias-hra.jsonl`` (200 full deals, mode all),
run in this process through ``ddcards.cli.main`` (no interpreter start-up in the figure), the
configurations interleaved round by round; medians of the wall times.

overhead: ``ddcards batch --jobs 1`` against the plainest loop that does the same work (read
a line, ``json.loads``, ``Position.from_dict``, ``Solver.solve``, write its JSON line) over
thousands of distinct small endgames, whose searches take microseconds, so that what is left
is per-position cost: (batch wall - loop wall) / positions, interleaved, medians.

large: N distinct positions (corpus-style deals of the three Mariáš contracts played along
their optimal line to 15-29 cards) written to a file; ``ddcards batch`` runs under
``/usr/bin/time -v`` for N/10 and N positions (peak RSS of each), then for N again killed with
SIGKILL ``--kills`` times at random moments and resumed; the output is checked: every
document answered exactly once, no torn line.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import ddcards  # noqa: E402
from ddcards import cli  # noqa: E402
from make_corpus import hra_deal, no_trump_deal  # noqa: E402
from _args import count, positive  # noqa: E402
from _machine import command_line, machine_line  # noqa: E402

HRA = ROOT / "benchmarks" / "corpus" / "marias-hra.jsonl"


def _batch(source: Path, out: Path, *extra: str, cpu: list[float] | None = None) -> float:
    """Wall seconds of one fresh ``ddcards batch`` run in this process (its CPU seconds, all
    threads, appended to `cpu`)."""
    for stale in (out, Path(str(out) + ".job")):
        stale.unlink(missing_ok=True)
    start, start_cpu = time.perf_counter(), time.process_time()
    status = cli.main(["batch", str(source), "-o", str(out), "--no-progress", *extra])
    wall = time.perf_counter() - start
    if cpu is not None:
        cpu.append(time.process_time() - start_cpu)
    assert status == 0, status
    return wall


def _quiet_stderr():
    """The batch summary on stderr, silenced between rounds (the figures are ours)."""
    return open(os.devnull, "w")


def speedup(rounds: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.jsonl"
        walls: dict[str, list[float]] = {"1 job": [], "2 jobs": []}
        cpus: dict[str, list[float]] = {"1 job": [], "2 jobs": []}
        saved, sys.stderr = sys.stderr, _quiet_stderr()
        try:
            _batch(HRA, out, "--jobs", "1")                  # warm the caches
            for _ in range(rounds):
                walls["1 job"].append(_batch(HRA, out, "--jobs", "1", cpu=cpus["1 job"]))
                walls["2 jobs"].append(_batch(HRA, out, "--jobs", "2", cpu=cpus["2 jobs"]))
        finally:
            sys.stderr = saved
    _report("Mariáš Hra corpus, 200 deals, mode all", rounds, walls, "speed-up of 2 jobs over 1", 1.8)
    # How many cores the host gave: CPU seconds over wall seconds (2 jobs on a quiet
    # 2-core machine: close to 2; below 1, the host had less than one core to spare).
    for name in walls:
        print(f"  {name}: CPU {statistics.median(cpus[name]):.3f} s (median), CPU/wall "
              + ", ".join(f"{c / w:.2f}" for c, w in zip(cpus[name], walls[name])))


def _report(what: str, rounds: int, walls: dict[str, list[float]], ratio: str, target: float) -> None:
    """Medians and bests (the least disturbed run: interference only adds time) and their ratios."""
    (base, base_walls), (other, other_walls) = walls.items()
    print(f"{what}, {rounds} rounds interleaved:")
    for name, values in walls.items():
        print(f"  {name}: median {statistics.median(values):.3f} s, best {min(values):.3f} s  (runs: "
              + ", ".join(f"{v:.3f}" for v in values) + ")")
    print(f"  {ratio}: {statistics.median(base_walls) / statistics.median(other_walls):.2f}x of the medians, "
          f"{min(base_walls) / min(other_walls):.2f}x of the bests (target >= {target}x)")


def _endgames(count: int, seed: int = 13) -> list[dict]:
    """`count` distinct small positions: seeded deals played along their optimal line to 24-29 cards."""
    rng = random.Random(seed)
    solver = ddcards.Solver()
    out: list[dict] = []
    while len(out) < count:
        contract = rng.choice(["hra", "betl", "durch"])
        deal = hra_deal(rng) if contract == "hra" else no_trump_deal(rng, contract)
        line = solver.solve(deal, mode="best").pv
        out += [dict(deal, played=line[:cut]) for cut in range(24, min(len(line), 30))]
    return out[:count]


def _plain_loop(source: Path, out: Path, cpu: list[float]) -> float:
    solver = ddcards.Solver()
    start, start_cpu = time.perf_counter(), time.process_time()
    with open(source, "rb") as fh, open(out, "w", encoding="utf-8") as sink:
        for lineno, raw in enumerate(fh, 1):
            doc = json.loads(raw)
            result = solver.solve(ddcards.Position.from_dict(doc))
            sink.write(cli.json_line({"line": lineno, **result.to_dict()}) + "\n")
    cpu.append(time.process_time() - start_cpu)
    return time.perf_counter() - start


def overhead(rounds: int, count: int) -> None:
    docs = _endgames(count)
    with tempfile.TemporaryDirectory() as tmp:
        source, out = Path(tmp) / "in.jsonl", Path(tmp) / "out.jsonl"
        source.write_text("".join(json.dumps(d) + "\n" for d in docs))
        loop, batch, loop_cpu, batch_cpu = [], [], [], []
        saved, sys.stderr = sys.stderr, _quiet_stderr()
        try:
            _batch(source, out, "--jobs", "1")
            for _ in range(rounds):
                loop.append(_plain_loop(source, out, loop_cpu))
                batch.append(_batch(source, out, "--jobs", "1", cpu=batch_cpu))
        finally:
            sys.stderr = saved
        records = sum(1 for _ in open(out, "rb"))
    assert records == count

    def ms(x: float) -> str:
        return f"{x / count * 1e3:.3f}"

    print(f"{count} distinct endgames (24-29 cards played), --jobs 1, {rounds} rounds interleaved; "
          "ms a position, medians (wall | CPU of this process):")
    print(f"  plain loop (json.loads, Position.from_dict, solve, write): {ms(statistics.median(loop))} | "
          f"{ms(statistics.median(loop_cpu))}")
    print(f"  ddcards batch --jobs 1:                                    {ms(statistics.median(batch))} | "
          f"{ms(statistics.median(batch_cpu))}")
    wall = [b - lp for b, lp in zip(batch, loop)]
    cpu = [b - lp for b, lp in zip(batch_cpu, loop_cpu)]
    print(f"  the machinery's own cost: wall {ms(statistics.median(wall))}, CPU {ms(statistics.median(cpu))} "
          f"(CPU by round: {', '.join(ms(c) for c in cpu)}; target <= 0.1 ms)")


def _process_cpu() -> float:
    return time.process_time()


def dask(rounds: int) -> None:
    import dask as dask_config
    from distributed import Client, LocalCluster

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.jsonl"
        start = time.perf_counter()
        # as `--dask local` makes it (ddcards.batch.cluster): no statistical profiler on the workers
        with dask_config.config.set({"distributed.worker.profile.enabled": False}):
            local = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
        with local, Client(local) as client:
            started = time.perf_counter() - start
            address = client.scheduler.address
            walls: dict[str, list[float]] = {"1 local job": [], "Dask, 2 workers": []}
            local_cpu: list[float] = []
            cluster_cpu: list[tuple[float, float]] = []      # (this process: driver and scheduler, workers)
            saved, sys.stderr = sys.stderr, _quiet_stderr()
            try:
                _batch(HRA, out, "--dask", address)          # the workers import ddcards and warm up
                for _ in range(rounds):
                    walls["1 local job"].append(_batch(HRA, out, "--jobs", "1", cpu=local_cpu))
                    before = client.run(_process_cpu)
                    driver: list[float] = []
                    walls["Dask, 2 workers"].append(_batch(HRA, out, "--dask", address, cpu=driver))
                    after = client.run(_process_cpu)
                    cluster_cpu.append((driver[0], sum(after[w] - before[w] for w in after)))
            finally:
                sys.stderr = saved
        saved, sys.stderr = sys.stderr, _quiet_stderr()
        try:
            local_start = _batch(HRA, out, "--dask", "local", "--jobs", "2")
        finally:
            sys.stderr = saved
    _report(f"Mariáš Hra corpus, 200 deals, mode all (the LocalCluster started in {started:.2f} s, before the "
            "timing)", rounds, walls, "speed-up of the cluster over 1 local job", 1.6)
    # The work each side does, whatever share of the cores the host gives.
    print("  CPU of 1 local job: " + ", ".join(f"{c:.3f}" for c in local_cpu) + " s")
    print("  CPU of the cluster (driver and scheduler + workers): "
          + ", ".join(f"{d:.3f} + {w:.3f} = {d + w:.3f}" for d, w in cluster_cpu) + " s")
    print(f"  `--dask local --jobs 2`, the cluster's start and stop included: {local_start:.2f} s")


def _peak(argv: list[str]) -> tuple[float, float, str]:
    """(peak RSS MiB, wall s, stderr) of a command under /usr/bin/time -v."""
    proc = subprocess.run(["/usr/bin/time", "-v", *argv], capture_output=True, text=True)
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr).group(1)) / 1024
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", proc.stderr).group(1)
    minutes, _, seconds = wall.rpartition(":")
    return rss, float(minutes or 0) * 60 + float(seconds), proc.stderr


def _check_output(out: Path, count: int) -> tuple[int, int]:
    """(documents answered, documents answered twice); asserts every line is a whole record."""
    data = out.read_bytes()
    assert data.endswith(b"\n")
    seen: set[int] = set()
    twice = 0
    for raw in data.splitlines():
        line = json.loads(raw)["line"]
        twice += line in seen
        seen.add(line)
    return len(seen & set(range(1, count + 1))), twice


def large(count: int, kills: int, seed: int) -> None:
    docs_per_deal = 15
    rng = random.Random(seed)
    solver = ddcards.Solver()
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "in.jsonl"
        written = 0
        start = time.perf_counter()
        with open(source, "w") as fh:
            while written < count:
                contract = rng.choice(["hra", "betl", "durch", "durch"])
                deal = hra_deal(rng) if contract == "hra" else no_trump_deal(rng, contract)
                line = solver.solve(deal, mode="best").pv
                for cut in range(15, min(len(line), 15 + docs_per_deal)):
                    if written < count:
                        fh.write(json.dumps(dict(deal, played=line[:cut], id=written)) + "\n")
                        written += 1
        print(f"{count:,} distinct positions (Mariáš Hra/Betl/Durch deals, 15-29 cards played) written in "
              f"{time.perf_counter() - start:.0f} s")
        tenth = Path(tmp) / "tenth.jsonl"
        with open(source) as fh, open(tenth, "w") as sink:
            for _, text in zip(range(count // 10), fh):
                sink.write(text)
        argv = [sys.executable, "-m", "ddcards", "batch"]
        for path, n in ((tenth, count // 10), (source, count)):
            out = Path(tmp) / "out.jsonl"
            for stale in (out, Path(str(out) + ".job")):
                stale.unlink(missing_ok=True)
            rss, wall, err = _peak([*argv, str(path), "-o", str(out), "--jobs", "2"])
            answered, twice = _check_output(out, n)
            print(f"  {n:>7,} positions: peak RSS {rss:.1f} MiB, wall {wall:.1f} s ({n / wall:,.0f}/s), "
                  f"{answered:,} answered, {twice} twice")
            print("    " + err.splitlines()[0][:300])
        out = Path(tmp) / "killed.jsonl"
        full_wall = wall
        for k in range(kills):
            proc = subprocess.Popen([*argv, str(source), "-o", str(out), "--jobs", "2"], stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)
            time.sleep(rng.uniform(0.15, 0.8) * full_wall / kills)
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            held = out.read_bytes().count(b"\n") if out.exists() else 0
            print(f"  killed run {k + 1}: SIGKILL with {held:,} records in the output")
        rss, wall, err = _peak([*argv, str(source), "-o", str(out), "--jobs", "2"])
        answered, twice = _check_output(out, count)
        resumed = re.search(r"\(([\d,]+) answered by earlier runs\)", err)
        print(f"  resumed after {kills} kills: {answered:,} of {count:,} answered ({count - answered} lost), "
              f"{twice} answered twice; the last run found {resumed.group(1) if resumed else 0} in the output, "
              f"peak RSS {rss:.1f} MiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    sub.add_parser("speedup").add_argument("--rounds", type=positive, default=5)
    p = sub.add_parser("overhead")
    p.add_argument("--rounds", type=positive, default=5)
    p.add_argument("--positions", type=positive, default=6000)
    sub.add_parser("dask").add_argument("--rounds", type=positive, default=3)
    p = sub.add_parser("large")
    p.add_argument("--positions", type=positive, default=100_000)
    p.add_argument("--kills", type=count, default=3)
    p.add_argument("--seed", type=int, default=20261201)
    args = parser.parse_args()
    if args.what == "large" and args.positions < 10:
        parser.error("large --positions: at least 10 (a tenth of them runs first)")
    if args.what == "dask":
        try:                    # (without it: a ModuleNotFoundError traceback after the machine line)
            import distributed  # noqa: F401
        except ImportError:
            sys.exit("bench_batch.py dask needs Dask's distributed: pip install -e '.[dask]'")
    print(f"# {machine_line()}. Command: {command_line()}")
    if args.what == "speedup":
        speedup(args.rounds)
    elif args.what == "overhead":
        overhead(args.rounds, args.positions)
    elif args.what == "dask":
        dask(args.rounds)
    else:
        large(args.positions, args.kills, args.seed)


if __name__ == "__main__":
    main()
