"""Mariáš A/B workload: python benchmarks/ab_marias.py [REPO ...] [--alternate ROUNDS]

The 200 Hra deals of benchmarks/corpus/marias-hra.jsonl in mode all (every first card's exact
value), one thread, each checkout's in-place build in a process of its own, all at the same time
(so give at most one checkout per core).  Prints the node sum (deterministic: the same sum means
the same search), the median CPU time of a call and the median search time per deal of each.

--alternate ROUNDS runs the checkouts one after another instead, ROUNDS times in turn, each
process going over the 200 deals five times: two processes at once slow each other on this VM
(3.3-3.5 ms a deal against 2.8-3.1 alone), so small differences show better in turns.
"""
import argparse
import statistics
import subprocess
import sys
import time
import json
from pathlib import Path

from _args import count, positive
from _machine import command_line, machine_line

HERE = Path(__file__).resolve()
CORPUS = HERE.parent / "corpus" / "marias-hra.jsonl"


def measure(repo: str, passes: int = 1) -> None:
    sys.path.insert(0, str(HERE.parent))
    from _checkout import import_checkout
    ddcards = import_checkout(repo)
    solver = ddcards.Solver()
    nodes, cpu, search = [], [], []
    docs = [json.loads(line) for line in CORPUS.read_text().splitlines()]
    for _ in range(passes):
        nodes = []
        for doc in docs:
            start = time.process_time()
            result = solver.solve(doc, mode="all")
            cpu.append(time.process_time() - start)
            search.append(result.elapsed)
            nodes.append(result.nodes)
    print(f"{repo}: {len(nodes)} Hra deals, mode all, {passes} pass(es): nodes sum {sum(nodes):,}; CPU median "
          f"{statistics.median(cpu) * 1e3:.2f} ms, sum {sum(cpu):.2f} s; search median "
          f"{statistics.median(search) * 1e3:.3f} ms")


def measurement_failed(repos: list[str]) -> None:
    raise SystemExit(f"ab_marias.py: the measurement of {', '.join(repos)} failed (its error is above)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("repos", nargs="*", metavar="REPO",
                        help="checkouts with an in-place build (default: this one)")
    parser.add_argument("--alternate", type=count, metavar="ROUNDS", default=0,
                        help="run the checkouts one after another, ROUNDS times in turn")
    parser.add_argument("--passes", type=positive, default=1, help=argparse.SUPPRESS)   # a worker's passes
    args = parser.parse_args()
    repos = [str(Path(r).resolve()) for r in args.repos] or [str(HERE.parent.parent)]
    print(f"{machine_line()}. Command: {command_line()}")
    if args.alternate:
        for _ in range(args.alternate):
            for repo in repos:
                done = subprocess.run([sys.executable, str(HERE), repo, "--passes", "5"], stdout=subprocess.PIPE,
                                      text=True)
                if done.returncode:
                    measurement_failed([repo])
                print(done.stdout.strip().splitlines()[-1], flush=True)
        return
    if len(repos) == 1:
        measure(repos[0], args.passes)
        return
    procs = [subprocess.Popen([sys.executable, str(HERE), r], stdout=subprocess.PIPE, text=True) for r in repos]
    failed = []
    for repo, proc in zip(repos, procs):
        print(proc.communicate()[0].strip())
        if proc.returncode:
            failed.append(repo)
    if failed:
        measurement_failed(failed)


if __name__ == "__main__":
    main()
