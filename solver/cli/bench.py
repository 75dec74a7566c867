"""ddcards bench: the fixed positions of every game, their speed and the search's node signature."""
from __future__ import annotations

import argparse
import json

import ddcards
from ddcards.batch.progress import ProgressBar, wanted
from ddcards.cli.searches import new_solver
from ddcards.cli.status import EXIT_OK


def bench_groups() -> tuple[tuple[str, str, tuple[tuple[str, int], ...]], ...]:
    from ddcards.bench import GROUPS

    return GROUPS


def cmd_bench(args: argparse.Namespace) -> int:
    from ddcards.bench import GROUPS, run_bench

    if args.repeat < 1:
        raise ddcards.InvalidOptionError(f"--repeat is a whole number of at least 1 (got {args.repeat})",
                                         token=str(args.repeat), rule="ddcards bench --repeat")
    engine = new_solver(args)
    bar = ProgressBar(wanted(args.progress), total=None)

    def progress(done: int, total: int) -> None:
        bar.set_total(total)
        bar.update()

    try:
        report = run_bench(engine, groups=args.group, repeat=args.repeat, threads=args.threads, progress=progress)
    finally:
        bar.close()
    if args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False))
        return EXIT_OK
    titles = {name: title for name, title, _ in GROUPS}
    runs = f", each position's least time of {report.repeat}" if report.repeat > 1 else ""
    table = "a table sized per game" if report.tt_mb is None else f"a table of {report.tt_mb} MiB"
    print(f"ddcards bench: {report.positions} positions, each solved in mode all in {table}, cleared first "
          f"({report.threads} thread{'s' if report.threads > 1 else ''}{runs}; ddcards {report.version}, "
          f"{report.kernels} kernels)")
    print(f"{'group':<11}{'positions':>10}{'nodes':>15}{'seconds':>10}{'nodes/s':>10}  what")
    for g in report.groups:
        print(f"{g.name:<11}{g.positions:>10}{g.nodes:>15,}{g.seconds:>10.3f}{g.nodes_per_second / 1e6:>8.1f} M  "
              f"{titles[g.name]}")
    print(f"{'total':<11}{report.positions:>10}{report.nodes:>15,}{report.seconds:>10.3f}"
          f"{report.nodes_per_second / 1e6:>8.1f} M")
    same = ("the search's signature: the same on every machine for this version of the search" if report.signature
            else "on several threads the count varies from run to run" if report.threads > 1
            else "with this table size: the signature is the count in tables sized per game, without --tt-mb")
    print(f"Nodes searched  {report.nodes:,} ({same})")
    print(f"Nodes/second    {report.nodes_per_second:,.0f} (search time only; the machine and its load move it)")
    print(f"Answers         {report.answers} (a hash of every position's value and each move's value: the same "
          "for any search that answers right, on any number of threads)")
    return EXIT_OK
