"""Write the positions of ``ddcards bench`` (solver/bench/positions.jsonl) from the seeded corpora.

    python benchmarks/make_bench_positions.py

Each position is a line of a corpus of benchmarks/corpus (the first lines of each, as many as
``ddcards.bench.GROUPS`` says), with its ``id``: the corpus and the line.  The file is package
data, so that an installed ddcards has its bench without the repository; tests/test_bench_command.py
checks that it is what this script writes.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ddcards.bench import select_from_corpora  # noqa: E402

TARGET = ROOT / "solver" / "bench" / "positions.jsonl"


def main() -> None:
    docs = select_from_corpora(ROOT / "benchmarks" / "corpus")
    TARGET.write_text("".join(json.dumps(doc, ensure_ascii=False) + "\n" for doc in docs), encoding="utf-8")
    print(f"wrote {len(docs)} positions to {TARGET.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
