"""Every interface gives the same answer: the Python API, `ddcards solve --json`, `ddcards batch`,
solve_many and the gRPC service (a structured Position, its JSON, a SolveStream) on positions of
every game and rule set, played on at random so that they are mid-trick and mid-deal too; the
analyses likewise (the API, `ddcards analyse --json`, AnalysePlay and AnalysePlayStream).

A field one interface fills differently from another is a bug in one of them (a cross-interface
audit on 2026-12-07 compared about 200 positions this way: this is its regression test)."""
from __future__ import annotations

import json
import random
import subprocess
import sys
from typing import Any

import pytest

import ddcards
from _batch_data import corpus  # tests/ is on sys.path
from _server_helpers import running_server

# how a search went, and where a record came from: not part of the answer
VOLATILE = {"nodes", "elapsed_ms", "line", "index", "id", "position_key"}
MODES = ("best", "optimal", "all")


def answer(doc: dict[str, Any]) -> dict[str, Any]:
    """A result or analysis document without what only says how the search went."""
    out = {k: v for k, v in doc.items() if k not in VOLATILE}
    if isinstance(out.get("final"), dict):
        out["final"] = answer(out["final"])
    return out


def played_on(doc: dict[str, Any], rng: random.Random, most: int) -> dict[str, Any]:
    """`doc` with up to `most` random legal actions more (never to the deal's end)."""
    pos = ddcards.Position.from_dict(doc)
    for _ in range(rng.randrange(most + 1)):
        moves = pos.legal_moves
        after = pos.play(rng.choice(moves)) if moves else pos
        if after.is_over:
            break
        pos = after
    return pos.to_dict()


def positions() -> list[dict[str, Any]]:
    """Two positions of each corpus of every game (Mariáš contracts and announcements, Klaverjas
    both rule sets, Mariasz points and races, Kiks and three players, Prší of 2 to 6 players), the
    bundled examples, each played on by a few random actions: seeded."""
    rng = random.Random(20261207)
    names = ["marias-hra", "marias-betl", "marias-durch", "marias-announced", "marias-mixed",
             "klaverjas-amsterdam", "klaverjas-rotterdam", "klaverjas-mixed",
             "mariasz-phase2", "mariasz-race", "mariasz-kiks", "mariasz-mixed", "prsi-mixed", "prsi-midgame"]
    docs = [doc for name in names for doc in corpus(name, 2)]
    docs += [ddcards.example(name) for name in ("marias-seed", "klaverjas", "mariasz-recorded", "prsi-4players")]
    out = []
    for doc in docs:
        doc = {k: v for k, v in doc.items() if k != "id"}
        late = doc["game"] in ("mariasz", "prsi") or len(doc.get("played") or []) > 0
        out.append(played_on(doc, rng, 3 if late else 9))
    return out


POSITIONS = positions()


def cli_lines(*args: str, docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    text = "".join(json.dumps(doc) + "\n" for doc in docs)
    out = subprocess.run([sys.executable, "-m", "ddcards", *args, "-", "--json", "--no-progress"], input=text,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


@pytest.fixture(scope="module")
def client():
    from ddcards.client import Client

    with running_server(workers=1) as server, Client(f"127.0.0.1:{server.port}", timeout=120) as c:
        yield c


def test_the_positions_cover_every_game_mid_trick_and_mid_deal():
    games = [doc["game"] for doc in POSITIONS]
    assert {g: games.count(g) for g in set(games)} == {"marias": 11, "klaverjas": 7, "mariasz": 9, "prsi": 5}
    assert sum(1 for doc in POSITIONS if ddcards.Position.from_dict(doc).trick) >= 8      # mid-trick


@pytest.mark.parametrize("mode", MODES)
def test_a_solve_is_the_same_through_every_interface(mode, client, tmp_path):
    api = [answer(ddcards.solve(doc, mode=mode).to_dict()) for doc in POSITIONS]
    assert [answer(r) for r in cli_lines("solve", "--mode", mode, docs=POSITIONS)] == api
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(doc) + "\n" for doc in POSITIONS), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "ddcards", "batch", str(source), "-o", str(tmp_path / "out.jsonl"),
                           "--jobs", "1", "--mode", mode, "--no-progress"], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()]
    batch = {r["line"]: answer(r) for r in records}        # (a record is the result with its line)
    assert [batch[i + 1] for i in range(len(POSITIONS))] == api
    many = {s.index: answer(s.result.to_dict()) for s in ddcards.solve_many(POSITIONS, jobs=2, mode=mode)}
    assert [many[i] for i in range(len(POSITIONS))] == api
    assert [answer(client.solve(doc, mode=mode)) for doc in POSITIONS] == api
    assert [answer(client.solve(json.dumps(doc), mode=mode)) for doc in POSITIONS] == api
    stream = {r["index"]: answer(r["result"]) for r in client.solve_many(POSITIONS, mode=mode)}
    assert [stream[i] for i in range(len(POSITIONS))] == api


@pytest.mark.parametrize("mode", ["optimal", "all"])
def test_an_analysis_is_the_same_through_every_interface(mode, client):
    # (not a record from a fresh 36-card Mariasz deal: its analysis from the start takes minutes)
    recorded = [doc for doc in POSITIONS if doc.get("played")
                and ddcards.Position.from_dict(doc).start().long_search is None]
    assert len(recorded) >= 25
    api = [answer(ddcards.analyse(doc, mode=mode).to_dict()) for doc in recorded]
    assert [answer(a) for a in cli_lines("analyse", "--mode", mode, docs=recorded)] == api
    assert [answer(client.analyse(doc, mode=mode)) for doc in recorded] == api
    for doc, want in zip(recorded[:6], api):
        events = list(client.analyse_stream(json.dumps(doc), mode=mode))
        final = answer(events[-1]["analysis"])
        assert final == want
        assert [e["step"] for e in events if "step" in e] == want["steps"]
