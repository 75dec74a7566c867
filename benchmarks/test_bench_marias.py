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
    # The answers, not just their presence (the timing is what the benchmark measures, but a
    # broken search is no benchmark): forehand leads any of his 10 cards; a Hra's value is the
    # declarer's margin, an odd multiple of 10 (docs/RULES.md §1.7 rule 1) and 190 at most (cards,
    # last trick and every marriage), a Betl's or Durch's +1 or -1 (rule 2); the declarer moves
    # first, so the value is his best first card's and exactly the cards worth it are optimal.
    assert results
    for r in results:
        values = [m.value for m in r.moves]
        assert r.to_move == 0 and len(values) == 10, r
        if contract == "hra":
            assert all(v % 20 == 10 and abs(v) <= 190 for v in values), values
        else:
            assert set(values) <= {1, -1}, values
        assert r.value == max(values) and all(m.optimal == (m.value == r.value) for m in r.moves), r
