"""Every speed target the open issues set, measured with the commands benchmarks/RESULTS.md quotes.

    python benchmarks/targets.py            # every target, one command after the other (15-20 minutes)
    python benchmarks/targets.py --quick    # without the fresh 36-card Mariasz deals (about 5 minutes)
    python benchmarks/targets.py --list     # the targets and their commands, nothing run

"Where things stand" in benchmarks/RESULTS.md gives each target's latest figure; this script runs
the same commands, in the same order, so that anyone can reproduce that table on their machine.
Each command's own report follows the target it measures (the machine line, the command, the
figures as Markdown); nothing is parsed or summed here, so a figure reads exactly as the script
that made it printed it. A command that cannot run (DDS needs the 'bench' extra: pip install -e
'.[bench]') is said so, and the others still run. The exit status is 0 if every command ran, 1
otherwise.

Quote medians, and ratios measured side by side in one run: a shared or virtual machine moves
single runs by 10-30% (the scripts' --repeat keeps each deal's least time of R runs).
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Target:
    issue: int
    what: str           # the target, as the issue sets it
    script: str         # a script in benchmarks/
    args: tuple[str, ...]
    where: str          # which line of the script's report holds the figure
    needs: str | None = None    # a module the command imports that a plain install may lack
    long: bool = False          # left out by --quick

    def command(self) -> list[str]:
        return [sys.executable, str(HERE / self.script), *self.args]

    def shown(self) -> str:
        return " ".join(["python", f"benchmarks/{self.script}", *map(shlex.quote, self.args)])


TARGETS = (
    Target(16, "Mariáš Hra, every first card's value: median <= 2 ms (one thread)",
           "bench_marias.py", ("--deals", "200", "--reference-positions", "0", "--repeat", "10"),
           "the row 'hra': its search median"),
    Target(16, "Klaverjas, all optimal first cards: within 4x of DDS on the same layouts; "
               "every first card <= 2x all optimal ones (one thread)",
           "bench_dds.py", ("--deals", "100", "--seed", "20261203", "--repeat", "10"),
           "the row 'ddcards ... all optimal cards', its last column (ratio to DDS, median of the layouts), "
           "and the line 'ddcards every card / all optimal cards'",
           needs="endplay"),
    Target(16, "Klaverjas DD table <= 10 ms on 2 threads; one full deal on 2 threads >= 1.6x one",
           "bench_threads.py", ("--deals", "40", "--tables", "10", "--mariasz", "0", "--seed", "490213565",
                                "--repeat", "10"),
           "the line 'DD table, random layouts (10), 2 thread(s): median', and the rows in mode all: "
           "their 'median of ratios'"),
    Target(11, "Mariasz: any phase-2 position <= 1 ms; a szlifowany deal from the first trick, "
               "every first card's value: median <= 50 ms (one thread)",
           "bench_mariasz.py", ("--deals", "40", "--limit", "30", "--ladder-deals", "0", "--tt-mb", "16"),
           "the rows mariasz-phase2 (max) and mariasz-szlifowany (median)"),
    Target(11, "Mariasz: a fresh 36-card deal from the first trick, every first card's value: "
               "median <= 1 s (one thread a deal)",
           "bench_mariasz.py", ("fresh", "--deals", "8", "--mode", "all", "--jobs", "2", "--tt-mb", "0"),
           "the CPU median over the deals (each deal one thread; two deals at a time)", long=True),
)


def missing(target: Target) -> str | None:
    """Why `target`'s command cannot run here, or None."""
    if target.needs is not None and importlib.util.find_spec(target.needs) is None:
        return f"it needs the module {target.needs!r} (pip install -e '.[bench]')"
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="leave out the fresh 36-card Mariasz deals (minutes each)")
    ap.add_argument("--list", action="store_true", help="print the targets and their commands; run nothing")
    args = ap.parse_args(argv)
    chosen = [t for t in TARGETS if not (args.quick and t.long)]
    failed = 0
    for number, target in enumerate(chosen, 1):
        print(f"## {number}/{len(chosen)}. Issue {target.issue}: {target.what}\n\n"
              f"Command: `{target.shown()}`\nThe figure: {target.where}.\n", flush=True)
        if args.list:
            continue
        why = missing(target)
        if why is not None:
            print(f"Not run: {why}.\n", flush=True)
            failed += 1
            continue
        start = time.monotonic()
        # Unbuffered: a script prints each row as it is measured, and through a pipe (targets.py | tee)
        # its rows came only when it ended, minutes later (bench_threads.py's among them).
        status = subprocess.run(target.command(), cwd=HERE.parent,
                                env=dict(os.environ, PYTHONUNBUFFERED="1")).returncode
        took = time.monotonic() - start
        print(f"\n({target.script} {'ran' if status == 0 else f'failed, exit status {status},'} in {took:.0f} s)\n",
              flush=True)
        failed += status != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
