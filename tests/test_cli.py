"""The ddcards command line, run as a user runs it (a subprocess) and in-process."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

import ddcards
from ddcards import cli

SEED = ddcards.example("marias-hra")


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ddcards", *args], input=stdin, capture_output=True,
                          text=True, timeout=120)


def test_example_readable():
    out = run("solve", "--example")
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "Mariáš hra, trumps H - seat 0 (declarer) to move" in text
    assert "Value       +70  declarer wins (declarer 100, defenders 30)" in text
    assert "Best moves  AS TS AH AD TD" in text
    assert "QH +50" in text and "AH +70" in text
    assert "Settlement  seat 0 +4, seat 1 -2, seat 2 -2" in text
    line = next(l for l in text.splitlines() if l.startswith("Line"))
    assert line.count("|") == 9                      # ten tricks


def test_json_document_from_file(tmp_path):
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(dict(SEED, played=["QH"])))
    out = run("solve", str(path), "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["to_move"] == 1
    assert doc["moves"] == [{"move": "TH", "value": 50, "optimal": True, "distance": None}]
    assert doc["value"] == 50 and doc["pv"][0] == "TH" and len(doc["pv"]) == 29
    assert doc["scores"]["declarer"] - doc["scores"]["defenders"] == 50


def test_json_lines_batch_from_stdin_with_a_bad_line():
    lines = [json.dumps(SEED), json.dumps(dict(SEED, talon="AS 9C")), "{not json", json.dumps(ddcards.example("marias-betl"))]
    out = run("solve", "-", "--json", "--mode", "best", stdin="\n".join(lines) + "\n")
    assert out.returncode == 2
    docs = [json.loads(l) for l in out.stdout.splitlines()]
    assert len(docs) == 4
    assert docs[0]["value"] == 70 and len(docs[0]["moves"]) == 1 and docs[0]["moves"][0]["optimal"]
    assert docs[1]["line"] == 2 and docs[1]["error_type"] == "InvalidDealError"
    assert "AS" in docs[1]["error"] and docs[1]["token"] == "AS"
    assert docs[2]["line"] == 3 and docs[2]["error_type"] == "NotationError"
    assert docs[3]["value"] == 1 and docs[3]["won"] is True
    assert "solved 2 positions" in out.stderr and "median" in out.stderr


def test_bad_input_exit_code_and_message(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(dict(SEED, contract="betl")))
    out = run("solve", str(path))
    assert out.returncode == 2
    assert out.stdout == ""
    assert out.stderr.startswith("ddcards: error: ") and "trump 'H' given for betl" in out.stderr
    assert "Traceback" not in out.stderr


def test_missing_file_and_unknown_example():
    out = run("solve", "/nonexistent/pos.json")
    assert out.returncode == 2 and "cannot read /nonexistent/pos.json" in out.stderr
    out = run("solve", "--example", "nope")
    assert out.returncode == 2 and "no example 'nope'" in out.stderr


def test_illegal_history_names_the_rule(tmp_path):
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(dict(SEED, played=["QH", "7H"])))
    out = run("solve", str(path))
    assert out.returncode == 2
    assert "played[1] '7H' by seat 1: must beat QH" in out.stderr


def test_analyse_readable_and_json():
    out = run("analyse", "--example", "marias-seed")
    assert out.returncode == 0, out.stderr
    assert "value at the start +70" in out.stdout
    assert "Mistakes    3: ply 1 QH (seat 0, cost 20), ply 10 7H (seat 1, cost 20), ply 25 AH (seat 0, cost 20)" \
        in out.stdout
    out = run("analyse", "--example", "marias-seed", "--json")
    doc = json.loads(out.stdout)
    assert doc["initial_value"] == 70 and doc["final_value"] == 50
    assert doc["mistakes"] == [0, 9, 24]
    assert len(doc["steps"]) == 30


def test_games_and_examples():
    out = run("games", "--json")
    games = json.loads(out.stdout)
    marias = next(g for g in games if g["name"] == "marias")
    assert marias["contracts"] == ["hra", "betl", "durch"]
    assert marias["objectives"]["hra"] == ["hra", "sedma", "kilo"]
    assert {o["name"] for o in marias["options"]} >= {"marriage_on_follow", "talon_points"}
    out = run("examples")
    assert "marias-hra" in out.stdout.split()
    out = run("examples", "marias-betl")
    assert json.loads(out.stdout)["contract"] == "betl"


def test_timeout_exit_status(capsys):
    # A zero timeout stops before the search starts: exit status 1, a clear message.
    status = cli.main(["solve", "--example", "--timeout", "0"])
    assert status == cli.EXIT_ABORTED
    assert "deadline passed" in capsys.readouterr().err


def test_in_process_json_array(tmp_path, capsys):
    path = tmp_path / "many.json"
    path.write_text(json.dumps([SEED, ddcards.example("marias-durch")]))
    assert cli.main(["solve", str(path), "--json", "--mode", "optimal"]) == 0
    docs = [json.loads(l) for l in capsys.readouterr().out.splitlines()]
    assert [d["value"] for d in docs] == [70, 1]
    # optimal mode: values only for the optimal moves
    assert all((m["value"] is None) != m["optimal"] for m in docs[0]["moves"])


def test_usage_errors(capsys):
    assert cli.main(["solve"]) == cli.EXIT_BAD_INPUT
    assert "give a position file" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        cli.main(["solve", "--tt-mb", "0", "--example"])
    assert exc.value.code == 2


def test_klaverjas_table_matches_single_solves():
    out = run("table", "--example", "klaverjas", "--json")
    assert out.returncode == 0, out.stderr
    table = json.loads(out.stdout)
    assert set(table["values"]) == {"S", "H", "D", "C"}
    deal = ddcards.example("klaverjas")
    for suit in ("S", "D"):
        for team in (0, 1):
            assert table["values"][suit][team] == ddcards.solve(dict(deal, trump=suit, playing_team=team),
                                                               mode="best").value
    out = run("table", "--example", "marias-hra")
    assert out.returncode == 2 and "dd_table covers Klaverjas deals" in out.stderr
    out = run("table", "--example", "klaverjas", "--threads", "1")
    assert out.returncode == 0 and "(1 thread)" in out.stdout and "+132" in out.stdout, out.stdout
    out = run("table", "--example", "--threads", "1")          # the table's default example
    assert out.returncode == 0 and "Klaverjas DD table" in out.stdout, out.stderr
    out = run("table", "--example", "klaverjas", "--threads", "0")
    assert out.returncode == 2 and "threads is a whole number, at least 1" in out.stderr


def test_klaverjas_readable_solve():
    out = run("solve", "--example", "klaverjas", "--mode", "optimal")
    assert out.returncode == 0, out.stderr
    assert "Klaverjas (Amsterdam), trumps S" in out.stdout
    assert "Line" in out.stdout and out.stdout.count("|") >= 7
