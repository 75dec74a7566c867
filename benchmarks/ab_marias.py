"""Mariáš A/B workload: python benchmarks/ab_marias.py [REPO ...]

The 200 Hra deals of benchmarks/corpus/marias-hra.jsonl in mode all (every first card's exact
value), one thread, each checkout's in-place build in a process of its own, all at the same time
(so give at most one checkout per core).  Prints the node sum (deterministic: the same sum means
the same search) and the median CPU time per deal of each.
"""
import argparse
import statistics
import subprocess
import sys
import time
import json
from pathlib import Path

from _machine import machine_line

HERE = Path(__file__).resolve()
CORPUS = HERE.parent / "corpus" / "marias-hra.jsonl"


def measure(repo: str) -> None:
    sys.path.insert(0, str(HERE.parent))
    from _checkout import import_checkout
    ddcards = import_checkout(repo)
    solver = ddcards.Solver()
    nodes, cpu = [], []
    for line in CORPUS.read_text().splitlines():
        doc = json.loads(line)
        start = time.process_time()
        result = solver.solve(doc, mode="all")
        cpu.append(time.process_time() - start)
        nodes.append(result.nodes)
    print(f"{repo}: {len(nodes)} Hra deals, mode all: nodes sum {sum(nodes):,}; CPU median "
          f"{statistics.median(cpu) * 1e3:.2f} ms, sum {sum(cpu):.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("repos", nargs="*", metavar="REPO",
                        help="checkouts with an in-place build (default: this one)")
    repos = [str(Path(r).resolve()) for r in parser.parse_args().repos] or [str(HERE.parent.parent)]
    print(machine_line())
    if len(repos) == 1:
        measure(repos[0])
        return
    procs = [subprocess.Popen([sys.executable, str(HERE), r], stdout=subprocess.PIPE, text=True) for r in repos]
    for proc in procs:
        print(proc.communicate()[0].strip())


if __name__ == "__main__":
    main()
