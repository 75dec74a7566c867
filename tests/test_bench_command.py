"""``ddcards bench``: its positions are the corpora's, its node count is the sum of the cold solves
of those positions (a signature: the same whatever ran before and on a second Solver), and the
command reads and reports as its help says.  (Its times are a benchmark's, never asserted.)"""
from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

import ddcards
from ddcards.bench import GROUPS, answers_hash, bench_positions, run_bench, select_from_corpora

ROOT = Path(__file__).resolve().parents[1]


def test_the_packaged_positions_are_the_corpora_lines_they_name():
    packaged = [json.loads(line) for line in (ROOT / "solver/bench/positions.jsonl").read_text().splitlines()]
    assert packaged == select_from_corpora(ROOT / "benchmarks/corpus"), \
        "run python benchmarks/make_bench_positions.py"
    wanted = sum(count for _, _, corpora in GROUPS for _, count in corpora)
    assert len(packaged) == wanted == 282
    for doc in packaged:
        corpus, line = doc["id"].split(":")
        text = (ROOT / "benchmarks/corpus" / f"{corpus}.jsonl").read_text().splitlines()[int(line) - 1]
        assert {k: v for k, v in doc.items() if k != "id"} == json.loads(text)
        ddcards.Position.from_dict(doc)                      # each is a position (its id allowed)


def test_every_game_and_group_is_there():
    games = {name: {doc["game"] for group, doc in bench_positions() if group == name} for name, _, _ in GROUPS}
    assert games == {"marias": {"marias"}, "klaverjas": {"klaverjas"}, "mariasz": {"mariasz"}, "prsi": {"prsi"}}
    assert [group for group, _ in bench_positions(["prsi"])] == ["prsi"] * 45
    with pytest.raises(ddcards.InvalidOptionError, match="no bench group 'bridge'"):
        bench_positions(["bridge"])


def test_a_group_title_names_only_what_its_positions_vary():
    # The Klaverjas title said "any ... leader" while every Klaverjas corpus line, so every bench
    # position, has seat 0 leading (a benchmark user's audit): a title may claim any leader only
    # if its positions have more than one.
    for name, title, _ in GROUPS:
        leaders = {doc.get("leader", 0) for group, doc in bench_positions([name])}
        if "leader" in title:
            assert len(leaders) > 1, (name, title, leaders)
    # Prší's said "any ... horizon": its positions take 8 to 30 plies (20 by default), never a null
    # horizon (exact values: the reachable game's own solver, 0.5-0.8 s on a fresh deal) nor 31-250.
    prsi = [name_title for name_title in GROUPS if name_title[0] == "prsi"][0][1]
    horizons = {doc.get("options", {}).get("horizon", 20) for _, doc in bench_positions(["prsi"])}
    assert None not in horizons and f"horizons {min(horizons)} to {max(horizons)}" in prsi, (prsi, horizons)


def test_the_node_count_is_the_sum_of_the_cold_solves():
    groups = ["marias", "prsi"]
    report = run_bench(groups=groups)
    solves = [ddcards.Solver().solve(doc, mode="all") for _, doc in bench_positions(groups)]
    assert report.nodes == sum(r.nodes for r in solves) and report.positions == len(solves) == 165
    assert [(g.name, g.positions) for g in report.groups] == [("marias", 120), ("prsi", 45)]
    assert report.nodes == sum(g.nodes for g in report.groups) and report.threads == 1 and report.repeat == 1
    # a signature: the same on a second Solver whose table searched other deals before
    other = ddcards.Solver()
    other.solve(ddcards.example("klaverjas"))
    again = run_bench(other, groups=groups, repeat=2)
    assert [g.nodes for g in again.groups] == [g.nodes for g in report.groups] and again.repeat == 2


def test_the_command_prints_the_groups_and_the_signature():
    out = subprocess.run([sys.executable, "-m", "ddcards", "bench", "--group", "prsi", "--json"], capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert [g["name"] for g in doc["groups"]] == ["prsi"] and doc["positions"] == 45
    assert doc["nodes"] == run_bench(groups=["prsi"]).nodes and doc["threads"] == 1
    assert set(doc) == {"groups", "threads", "repeat", "version", "kernels", "nodes", "seconds", "positions",
                        "nodes_per_second", "tt_mb", "signature", "answers"}
    assert doc["tt_mb"] is None and doc["signature"] is True
    text = subprocess.run([sys.executable, "-m", "ddcards", "bench", "--group", "prsi"], capture_output=True,
                          text=True, timeout=300)
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    assert lines[0].startswith("ddcards bench: 45 positions, each solved in mode all in a table sized per game, "
                               "cleared first (1 thread;")
    assert lines[1].split()[:5] == ["group", "positions", "nodes", "seconds", "nodes/s"]
    assert lines[2].split()[:3] == ["prsi", "45", f"{doc['nodes']:,}"]
    assert lines[-3] == (f"Nodes searched  {doc['nodes']:,} (the search's signature: the same on every machine for "
                         "this version of the search)")
    assert lines[-1].startswith(f"Answers         {doc['answers']} (a hash of every position's value and each move's")


@pytest.mark.parametrize("args,message", [
    (["--repeat", "0"], "--repeat is a whole number of at least 1 (got 0)"),
    (["--threads", "0"], "--threads must be a whole number from 1 to 64 (got 0)"),
    (["--group", "bridge"], "argument --group: invalid choice: 'bridge'"),
])
def test_bad_arguments_are_usage_errors(args, message):
    out = subprocess.run([sys.executable, "-m", "ddcards", "bench", "--group", "prsi", *args], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 2 and message in out.stderr and "Traceback" not in out.stderr, out.stderr


def test_a_fixed_table_size_is_said_and_its_count_is_no_signature():
    # an audit found --tt-mb 1 printing another count as "the search's signature", the size unsaid
    out = subprocess.run([sys.executable, "-m", "ddcards", "bench", "--group", "prsi", "--tt-mb", "1"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert "each solved in mode all in a table of 1 MiB, cleared first" in lines[0]
    assert lines[-3].endswith("(with this table size: the signature is the count in tables sized per game, "
                              "without --tt-mb)")
    report = run_bench(ddcards.Solver(tt_mb=1), groups=["prsi"])
    assert (report.tt_mb, report.signature, report.to_dict()["signature"]) == (1, False, False)


@pytest.mark.parametrize("repeat", [0, -1, 1.5, True])
def test_run_bench_refuses_a_repeat_that_times_nothing(repeat):
    with pytest.raises(ddcards.InvalidOptionError, match="repeat is a whole number of at least 1") as info:
        run_bench(groups=["prsi"], repeat=repeat)
    # a wrong type is a TypeError too, as every argument's (README)
    assert isinstance(info.value, TypeError) == (not isinstance(repeat, int) or isinstance(repeat, bool))


def test_run_bench_takes_numpys_integers():
    import numpy
    report = run_bench(groups=["prsi"], repeat=numpy.int64(1))
    assert report.repeat == 1 and type(report.repeat) is int and [g.positions for g in report.groups] == [45]


def test_the_answers_hash_is_the_answers_and_not_the_search():
    # The node count says whether the search changed; the answers hash whether the answers did: the
    # same on two threads (other nodes) and in another table size, another when one answer moves.
    positions = bench_positions(["prsi"])
    solves = [(doc["id"], ddcards.Solver().solve(doc, mode="all")) for _, doc in positions]
    one = run_bench(groups=["prsi"])
    assert one.answers == answers_hash(solves) and len(one.answers) == 16
    assert run_bench(groups=["prsi"], threads=2).answers == one.answers
    assert run_bench(ddcards.Solver(tt_mb=1), groups=["prsi"]).answers == one.answers
    ident, first = solves[0]
    moved = dataclasses.replace(first, value=first.value + 1)
    assert answers_hash([(ident, moved)] + solves[1:]) != one.answers
    assert answers_hash(solves[1:] + solves[:1]) != one.answers      # each answer is its position's


def test_the_targets_script_names_commands_the_benchmarks_take():
    # benchmarks/targets.py runs the commands RESULTS.md quotes for each open target: each must be
    # a script there whose options (and subcommand) it still takes, or the table cannot be redone
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import targets
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    assert {t.issue for t in targets.TARGETS} == {11, 16} and sum(t.long for t in targets.TARGETS) == 1
    for target in targets.TARGETS:
        words = [a for a in target.args if not a.startswith("-") and not a.lstrip("-").isdigit()]
        sub = words[:1] if words and words[0] == target.args[0] else []        # a subcommand (fresh)
        shown = subprocess.run([sys.executable, str(ROOT / "benchmarks" / target.script), *sub, "--help"],
                               capture_output=True, text=True, timeout=60, cwd=ROOT)
        assert shown.returncode == 0, shown.stderr
        for option in (a for a in target.args if a.startswith("--")):
            assert option in shown.stdout, (target.script, option)
    listed = subprocess.run([sys.executable, str(ROOT / "benchmarks/targets.py"), "--list", "--quick"],
                            capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert listed.returncode == 0 and listed.stdout.count("## ") == 4 and "fresh" not in listed.stdout
    assert "Command: `python benchmarks/bench_marias.py --deals 200 --reference-positions 0 --repeat 10`" in listed.stdout
