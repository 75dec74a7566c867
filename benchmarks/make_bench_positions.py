"""Write the positions of ``ddcards bench`` (solver/bench/positions.jsonl) from the seeded corpora.

    python benchmarks/make_bench_positions.py [--out FILE]

Each position is a line of a corpus of benchmarks/corpus (the first lines of each, as many as
``ddcards.bench.GROUPS`` says), with its ``id``: the corpus and the line.  The file is package
data, so that an installed ddcards has its bench without the repository; tests/test_bench_command.py
checks that it is what this script writes.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ddcards.bench import select_from_corpora  # noqa: E402

TARGET = ROOT / "solver" / "bench" / "positions.jsonl"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=TARGET,
                        help=f"the file to write (default: the package's, {TARGET.relative_to(ROOT)})")
    args = parser.parse_args(argv)
    docs = select_from_corpora(ROOT / "benchmarks" / "corpus")
    args.out.write_text("".join(json.dumps(doc, ensure_ascii=False) + "\n" for doc in docs), encoding="utf-8")
    print(f"wrote {len(docs)} positions to {args.out}")


if __name__ == "__main__":
    main()
