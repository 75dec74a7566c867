"""pytest-benchmark suite: one round = one cold full-deal solve (value + every first card).

    pytest benchmarks/test_bench_marias.py --benchmark-only

The statistics pytest-benchmark prints are then per deal over the corpus.
"""
import itertools
import json
from pathlib import Path

import pytest

import ddcards

CORPUS = Path(__file__).parent / "corpus"
DEALS = 100


def corpus(contract):
    lines = (CORPUS / f"marias-{contract}.jsonl").read_text().splitlines()[:DEALS]
    return [ddcards.Position.from_dict(json.loads(line)) for line in lines]


@pytest.mark.parametrize("contract", ["hra", "betl", "durch"])
def test_full_deal(benchmark, contract):
    positions = corpus(contract)
    engine = ddcards.Solver()
    deals = itertools.cycle(positions)

    def setup():
        return (next(deals),), {}

    results = []
    benchmark.pedantic(lambda pos: results.append(engine.solve(pos, mode="all")), setup=setup,
                       rounds=len(positions), iterations=1, warmup_rounds=0)
    benchmark.extra_info["nodes_median"] = sorted(r.nodes for r in results)[len(results) // 2]
    benchmark.extra_info["nodes_per_s"] = sum(r.nodes for r in results) / sum(r.elapsed for r in results)
    assert all(r.moves for r in results)
