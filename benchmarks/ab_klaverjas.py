"""Klaverjas A/B workload: python benchmarks/ab_klaverjas.py [REPO] [--deals N] [--tables N] [--pair OTHER]

The first N deals of each Klaverjas corpus in mode "optimal", and the value alone for every
trump suit and playing team of the first N deals (a DD table's work).  Prints deterministic
node counts and a hash of all answers (values + optimal-move sets), so that two builds (two
checkouts) can be compared: the same hash means the same answers.  CPU time (process_time) is
printed too; it is noisy on a shared machine.

--pair OTHER runs the workload on REPO and on OTHER at the same time, one process per core,
--rounds times: both see the same host, so their ratio holds even while the host's speed
drifts (alternating runs did not: the host moved by 10-15% within minutes).
"""
import argparse
import hashlib
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _args import count, positive
from _machine import command_line, machine_line

HERE = Path(__file__).resolve()


def measure(repo: str, deals: int, tables: int) -> None:
    sys.path.insert(0, str(HERE.parent))
    from _checkout import import_checkout
    ddcards = import_checkout(repo)
    from ddcards.position import Position
    assert ddcards.__file__.startswith(repo), ddcards.__file__
    engine = ddcards.Solver()
    h = hashlib.sha256()
    opt_nodes, opt_cpu, tab_nodes, tab_cpu = [], [], [], []
    for rules in ("amsterdam", "rotterdam"):
        lines = open(f"{repo}/benchmarks/corpus/klaverjas-{rules}.jsonl").read().splitlines()
        for line in lines[:deals]:
            doc = json.loads(line)
            t = time.process_time()
            r = engine.solve(doc, mode="optimal")
            opt_cpu.append(time.process_time() - t)
            opt_nodes.append(r.nodes)
            h.update(repr((r.value, sorted(m.move for m in r.moves if m.optimal))).encode())
        for line in lines[:tables]:
            doc = json.loads(line)
            for suit in "SHDC":
                for team in (0, 1):
                    dd = {k: doc[k] for k in ("game", "hands", "rules", "leader") if k in doc}
                    pos = Position.from_dict(dict(dd, trump=suit, playing_team=team))
                    t = time.process_time()
                    v = engine.value(pos)
                    tab_cpu.append(time.process_time() - t)
                    tab_nodes.append(engine._searcher.nodes)
                    h.update(repr(v).encode())
    if opt_nodes:
        print(f"optimal ({len(opt_nodes)} deals): nodes sum {sum(opt_nodes):,} median "
              f"{statistics.median(opt_nodes):,.0f}; cpu median {statistics.median(opt_cpu) * 1e3:.2f} ms, "
              f"sum {sum(opt_cpu):.2f} s")
    if tab_nodes:
        print(f"table values ({len(tab_nodes)} searches): nodes sum {sum(tab_nodes):,} median "
              f"{statistics.median(tab_nodes):,.0f}; cpu sum {sum(tab_cpu):.2f} s")
    print("answers hash", h.hexdigest()[:16])


def pair(repo: str, other: str, deals: int, tables: int, rounds: int) -> None:
    for k in range(1, rounds + 1):
        procs = [subprocess.Popen([sys.executable, str(HERE), r, "--deals", str(deals), "--tables", str(tables)],
                                  stdout=subprocess.PIPE, text=True) for r in (repo, other)]
        outs = [p.communicate()[0].strip().splitlines() for p in procs]
        for r, out in zip((repo, other), outs):
            print(f"round {k} {r}: " + " | ".join(out))
        failed = [r for r, p in zip((repo, other), procs) if p.returncode]
        if failed:
            raise SystemExit(f"ab_klaverjas.py: the measurement of {', '.join(failed)} failed (its error is above)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("repo", nargs="?", default=str(HERE.parent.parent),
                    help="the checkout to measure (default: this one)")
    ap.add_argument("--deals", type=positive, default=60, help="deals of each corpus (default 60)")
    ap.add_argument("--tables", type=count, default=10)
    ap.add_argument("--pair", metavar="OTHER", help="run OTHER's build at the same time, one core each")
    ap.add_argument("--rounds", type=positive, default=3, help="rounds of --pair")
    a = ap.parse_args()
    print(f"{machine_line()}. Command: {command_line()}")
    repo = str(Path(a.repo).resolve())
    if a.pair:
        pair(repo, str(Path(a.pair).resolve()), a.deals, a.tables, a.rounds)
    else:
        measure(repo, a.deals, a.tables)


if __name__ == "__main__":
    main()
