"""Issue 15's targets: the report of a full deal, and the board's values of a new position.

    python benchmarks/bench_report.py [--deals N] [--cli N]

1. Report: for the first N deals of the Mariáš hra and Klaverjas (Amsterdam) corpora, a whole
   deal of seeded random legal play is recorded; then the time to analyse it (every legal
   card's value at each of the 30 or 32 steps, a fresh Solver per deal as the CLI has) and
   write the HTML page.  Also the whole `ddcards report` command (a new Python process) on
   the first few deals.  Target: <= 1 s for a full Mariáš or Klaverjas deal.
2. Board: a `ddcards board` process on a free loopback port; for the same deals with nothing
   played (a new full-deal position each time), the time from the page's two requests being
   sent to both answers being in: POST /api/position (the layout, the legal cards) and POST
   /api/solve (every legal card's value).  The board keeps its table between searches, as the
   page meets it: it holds the deals searched before, never the one timed (the worker is warmed
   on a bundled example, which no corpus deal is).  Target: <= 100 ms median.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import ddcards  # noqa: E402
from ddcards.report import report_html  # noqa: E402
from _args import count, positive  # noqa: E402
from _machine import command_line, machine_line  # noqa: E402

CORPORA = {"marias": "marias-hra.jsonl", "klaverjas": "klaverjas-amsterdam.jsonl"}


def recorded_deals(game: str, n: int) -> list[dict]:
    """The first n deals of the game's corpus, each with a whole deal of seeded random legal play."""
    lines = (ROOT / "benchmarks" / "corpus" / CORPORA[game]).read_text().splitlines()[:n]
    out = []
    for i, line in enumerate(lines):
        doc = json.loads(line)
        rng = random.Random(i)
        pos = ddcards.Position.from_dict(doc)
        while not pos.is_over:
            pos = pos.play(rng.choice(list(pos.legal_moves)))
        out.append(pos.to_dict())
    return out


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def row(label: str, times: list[float]) -> str:
    ms = [t * 1e3 for t in times]
    return (f"| {label} | {len(ms)} | {statistics.median(ms):.1f} ms | {pct(ms, 0.9):.1f} ms | "
            f"{max(ms):.1f} ms |")


def bench_report(deals: dict[str, list[dict]], cli: int) -> list[str]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for game, docs in deals.items():
            times = []
            for i, doc in enumerate(docs):
                start = time.perf_counter()
                Path(tmp, f"{game}-{i}.html").write_text(report_html(doc, solver=ddcards.Solver()), encoding="utf-8")
                times.append(time.perf_counter() - start)
            rows.append(row(f"{game}: analyse (mode all) + write the page, in process", times))
        for game, docs in deals.items() if cli else ():     # --cli 0: no whole commands
            times = []
            for i, doc in enumerate(docs[:cli]):
                path = Path(tmp, f"{game}-{i}.json")
                path.write_text(json.dumps(doc))
                start = time.perf_counter()
                subprocess.run([sys.executable, "-m", "ddcards", "report", str(path), "-o", str(path) + ".html"],
                               check=True, capture_output=True)
                times.append(time.perf_counter() - start)
            rows.append(row(f"{game}: the whole `ddcards report` command (new process)", times))
    return rows


def post(url: str, body: dict) -> dict:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as answer:
        return json.loads(answer.read())


def bench_board(deals: dict[str, list[dict]]) -> list[str]:
    board = subprocess.Popen([sys.executable, "-m", "ddcards", "board", "--port", "0"],
                             stderr=subprocess.PIPE, text=True)
    try:
        line = board.stderr.readline()
        match = re.search(r"(http://[\d.]+:\d+)/", line)
        if not match:
            raise SystemExit(f"the board did not start: {line}")
        url = match.group(1)
        # Warm the worker (its Solver and table made) on a deal none of the timed ones is: the board
        # searches on what its table holds (keep_tt), so a warm-up on the first timed deal left that
        # deal's answer there and its search was timed at a few microseconds.
        warm = ddcards.example("marias-hra")
        if any(doc["hands"] == warm["hands"] for docs in deals.values() for doc in docs):
            raise SystemExit("bench_report.py: the warm-up deal is one of the timed deals")
        post(url + "/api/solve", {"position": warm})
        rows = []
        for game, docs in deals.items():
            times, search = [], []
            for doc in docs:
                position = dict(doc, played=[])
                start = time.perf_counter()
                post(url + "/api/position", {"position": position})
                result = post(url + "/api/solve", {"position": position, "search": "bench"})
                times.append(time.perf_counter() - start)
                search.append(result["elapsed_ms"] / 1e3)
            rows.append(row(f"{game}: position + every card's value, full deal", times))
            rows.append(row(f"{game}: of which the search", search))
        return rows
    finally:
        board.terminate()
        board.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=positive, default=50, help="deals per game (default %(default)s)")
    parser.add_argument("--cli", type=count, default=5, help="deals per game for the whole command (default %(default)s; 0: none)")
    args = parser.parse_args()
    deals = {game: recorded_deals(game, args.deals) for game in CORPORA}
    print(f"{machine_line()}; ddcards {ddcards.__version__}. Command: {command_line()}\n")
    print("| what | deals | median | p90 | max |\n|---|---:|---:|---:|---:|")
    for line in bench_report(deals, args.cli) + bench_board(deals):
        print(line)
    print(f"\nload average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
