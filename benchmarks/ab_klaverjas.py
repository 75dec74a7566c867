"""Klaverjas A/B workload: python benchmarks/ab_klaverjas.py [REPO] [--deals N] [--tables N]

The first N deals of each Klaverjas corpus in mode "optimal", and the value alone for every
trump suit and playing team of the first N deals (a DD table's work).  Prints deterministic
node counts and a hash of all answers (values + optimal-move sets), so that two builds (two
checkouts) can be compared: the same hash means the same answers.  CPU time (process_time) is
printed too; it is noisy on a shared machine: alternate runs of the two checkouts.
"""
import argparse, hashlib, json, statistics, sys, time
ap = argparse.ArgumentParser()
ap.add_argument("repo", nargs="?", default=str(__import__("pathlib").Path(__file__).resolve().parent.parent),
                help="the checkout to measure (default: this one)")
ap.add_argument("--deals", type=int, default=60)
ap.add_argument("--tables", type=int, default=10)
a = ap.parse_args()
sys.path.insert(0, a.repo)
import solver
from solver.position import Position
assert solver.__file__.startswith(a.repo), solver.__file__
S = solver.Solver()
h = hashlib.sha256()
opt_nodes, opt_cpu, tab_nodes, tab_cpu = [], [], [], []
for rules in ("amsterdam", "rotterdam"):
    lines = open(f"{a.repo}/benchmarks/corpus/klaverjas-{rules}.jsonl").read().splitlines()
    for l in lines[:a.deals]:
        d = json.loads(l)
        t = time.process_time()
        r = S.solve(d, mode="optimal")
        opt_cpu.append(time.process_time() - t)
        opt_nodes.append(r.nodes)
        h.update(repr((r.value, sorted(m.move for m in r.moves if m.optimal))).encode())
    for l in lines[:a.tables]:
        d = json.loads(l)
        for suit in "SHDC":
            for team in (0, 1):
                dd = {k: d[k] for k in ("game", "hands", "rules", "leader") if k in d}
                pos = Position.from_dict(dict(dd, trump=suit, playing_team=team))
                t = time.process_time()
                v = S.value(pos)
                tab_cpu.append(time.process_time() - t)
                tab_nodes.append(S._searcher.nodes)
                h.update(repr(v).encode())
print(f"optimal ({len(opt_nodes)} deals): nodes sum {sum(opt_nodes):,} median {statistics.median(opt_nodes):,.0f}; "
      f"cpu median {statistics.median(opt_cpu)*1e3:.2f} ms, sum {sum(opt_cpu):.2f} s")
print(f"table values ({len(tab_nodes)} searches): nodes sum {sum(tab_nodes):,} median {statistics.median(tab_nodes):,.0f}; "
      f"cpu sum {sum(tab_cpu):.2f} s")
print("answers hash", h.hexdigest()[:16])
