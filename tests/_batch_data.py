"""A batch input with every kind of line, and the answers a plain solve gives each document.

Full Mariáš deals of the benchmark corpus (the biggest searches), endgames of the recorded
seed deal, a Klaverjas deal, duplicates (the same document again, and the same position in
other notation: the game's and the trump's native names, a list of cards for a hand, keys in
another order), a JSON array, ids, comments, blank lines and bad lines of several kinds.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import ddcards

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / "benchmarks" / "corpus"
SEED = ddcards.example("marias-seed")


def corpus(name: str, count: int | None = None, start: int = 0) -> list[dict[str, Any]]:
    """The documents of benchmarks/corpus/NAME.jsonl from `start` on, `count` of them (None: all)."""
    lines = (CORPUS / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines[start:None if count is None else start + count]]


def endgame(cut: int) -> dict[str, Any]:
    """The recorded seed deal with its first `cut` cards played."""
    return dict(SEED, played=SEED["played"][:cut])


def in_other_notation(doc: dict[str, Any]) -> dict[str, Any]:
    """The same Mariáš Hra position written differently (its canonical document is the same)."""
    native = {"S": "zelené", "H": "červené", "D": "kule", "C": "žaludy"}
    first = doc["hands"][0].split(".")
    cards = [rank + suit for suit, ranks in zip("SHDC", first) for rank in ranks]
    return {"talon": doc["talon"], "trump": native[doc["trump"]], "contract": "HRA",
            "hands": [cards, *doc["hands"][1:]], "game": "Mariáš"}


def expected_answer(doc: dict[str, Any], mode: str = "all") -> dict[str, Any]:
    """What a plain solve answers (without the time it took)."""
    answer = ddcards.solve(doc, mode=mode).to_dict()
    answer.pop("elapsed_ms")
    return answer


def batch_lines(full_deals: int = 10) -> tuple[list[bytes], dict[tuple[int, int | None], Any]]:
    """(the input's lines, {(line, index): the document or the error expected there})."""
    deals = corpus("marias-hra", full_deals)
    lines: list[bytes] = [b"# a batch of every kind of line", b""]
    expect: dict[tuple[int, int | None], Any] = {}

    def add(doc: Any, raw: bytes | None = None, index_docs: list[Any] | None = None) -> None:
        lines.append(raw if raw is not None else json.dumps(doc, ensure_ascii=False).encode())
        if index_docs is not None:
            for i, d in enumerate(index_docs):
                expect[(len(lines), i)] = d
        else:
            expect[(len(lines), None)] = doc

    for cut in (27, 24, 21, 26):                   # small searches first in the file
        add(endgame(cut))
    for n, deal in enumerate(deals):
        add(dict(deal, id=f"hra-{n}"))
    add(ddcards.example("klaverjas"))
    add(dict(in_other_notation(deals[0]), id="same-as-hra-0"))
    add(endgame(24))                               # the same document again
    add(None, json.dumps([endgame(29), dict(endgame(27), id=7)]).encode(), [endgame(29), dict(endgame(27), id=7)])
    add({"error": "NotationError", "token": "{not json"}, b"{not json")
    bad_card = dict(deals[1], talon="ZZ 8D")
    add({"error": "InvalidCardError", "token": "ZZ"}, json.dumps(bad_card).encode())
    illegal = dict(SEED, played=SEED["played"][:3] + [SEED["played"][5]])
    add({"error": "IllegalPlayError"}, json.dumps(illegal).encode())
    add({"error": "NotationError", "token": "[]"}, b"[]")
    lines.append(b"")
    return lines, expect


def write_batch(path: Path, full_deals: int = 10) -> dict[tuple[int, int | None], Any]:
    lines, expect = batch_lines(full_deals)
    path.write_bytes(b"\n".join(lines) + b"\n")
    return expect


def read_records(path: Path) -> dict[tuple[int, ...], dict[str, Any]]:
    """OUT's records by (line, index), or (line, index, column) where a record has a column; every
    line whole, no document answered twice."""
    data = path.read_bytes()
    assert data.endswith(b"\n"), "the output ends inside a line"
    records: dict[tuple[int, ...], dict[str, Any]] = {}
    for raw in data.splitlines():
        record = json.loads(raw)
        label = (record["line"], record.get("index"))
        if "column" in record:
            label += (record["column"],)
        assert label not in records, f"{label} answered twice"
        records[label] = record
    return records


def without_times(records: dict[Any, dict[str, Any]]) -> dict[Any, dict[str, Any]]:
    return {label: {k: v for k, v in r.items() if k != "elapsed_ms"} for label, r in records.items()}
