"""The ddcards command line, run as a user runs it (a subprocess) and in-process."""
from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
from pathlib import Path
import sys

import pytest

import ddcards
from ddcards import cli
from ddcards._jsonio import JSON_RULE, LIMITS_RULE
from ddcards.games._document import STAKE_RANGE_RULE

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
    # The printed line reads back as a history (RULES §0.7 rule 1: "|" may separate tricks).
    played = line.removeprefix("Line").strip()
    pos = ddcards.Position.from_dict(dict(ddcards.example("marias-hra"), played=played))
    assert pos.played == tuple(played.replace("|", " ").split()) and len(pos.played) == 30
    assert pos.is_over and ddcards.solve(pos).value == 70


def test_outcomes_on_the_line_read_as_words_and_their_keys_are_identifiers():
    # Prší: seat 0 goes out on the optimal line (the example's value +1)
    out = run("solve", "--example", "prsi", "--mode", "best")
    assert out.returncode == 0, out.stderr
    assert "On the line seat 0 out\n" in out.stdout
    doc = json.loads(run("solve", "--example", "prsi", "--mode", "best", "--json").stdout)
    assert doc["outcomes"] == {"seat0_out": True, "seat1_out": False}
    assert doc["scores"] == {"seat0": 0, "seat1": 4}
    assert ddcards.result.spoken("seat1_claims") == "seat 1 claims" and ddcards.result.spoken("pit_other") == "pit other"


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


def test_an_example_named_where_a_file_goes_is_pointed_to_the_flag(tmp_path, monkeypatch):
    # `ddcards solve prsi` (a newcomer's guess) said only that no such file exists
    monkeypatch.chdir(tmp_path)
    for command, name in (("solve", "prsi"), ("analyse", "prsi"), ("report", "Prsi")):
        out = run(command, name)
        assert out.returncode == 2 and out.stdout == ""
        assert out.stderr == (f"ddcards: error: cannot read {name}: No such file or directory "
                              "(the bundled example: --example prsi)\n"), command
    (tmp_path / "prsi").write_text(json.dumps(ddcards.example("prsi-endgame")), encoding="utf-8")
    assert run("solve", "prsi", "--json").returncode == 0     # a file of that name is read, as any file


def test_a_document_written_where_its_file_goes_is_pointed_to_standard_input(tmp_path, monkeypatch):
    # `ddcards solve '{"game": ...}'` (a newcomer's first try) said only that no such file exists;
    # and `ddcards batch prsi` was pointed to an --example that batch does not take
    monkeypatch.chdir(tmp_path)
    document = json.dumps(ddcards.example("prsi-endgame"))
    for command, extra in (("solve", ()), ("analyse", ()), ("table", ()), ("report", ()), ("batch", ("-o", "out.jsonl"))):
        out = run(command, document, *extra)
        assert out.returncode == 2 and out.stdout == "", command
        assert out.stderr == (f"ddcards: error: cannot read {document}: No such file or directory (that is a document, "
                              f"not a file's name: give it on standard input, echo '...' | ddcards {command} -)\n"), command
    assert run("solve", "-", "--json", stdin=document).returncode == 0      # as the hint says
    out = run("batch", "prsi", "-o", "out.jsonl")
    assert out.returncode == 2 and out.stderr == ("ddcards: error: cannot read prsi: No such file or directory "
                                                  "(the bundled example: ddcards examples prsi > prsi.json)\n")
    assert not (tmp_path / "out.jsonl").exists()


def test_illegal_history_names_the_rule(tmp_path):
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(dict(SEED, played=["QH", "7H"])))
    out = run("solve", str(path))
    assert out.returncode == 2
    assert "played[1] '7H' by seat 1: must beat QH" in out.stderr


PRSI_SLOWER = {"game": "prsi", "hands": [".K98..7", "QT8...J", ".QJ.KQ.", "K..A7.T", "A.7..Q8", "97...K9"],
               "upcard": "JD", "stock": "AC TD TH JS 8D 9D AH",
               "played": ["draw", "QS/H", "JH", "draw", "7H", "7S", "7C", "draw", "QD/D", "TD", "QC/C", "9C", "AC",
                          "AH", "pass", "AD", "pass", "draw", "draw", "JD", "QH/C", "TC", "8C", "KC", "KH", "TH",
                          "draw", "draw", "draw", "QS/S"]}
PRSI_HORIZON = {"game": "prsi", "hands": ["7.9..J8", "AQT.8..", "J98..J."], "upcard": "KH",
                "stock": "7H 8D AH KS QH 7C AC QC TC TH AD KD 7D QD 9C KC TD JH 9D", "options": {"horizon": 6},
                "played": ["9H", "QS/D", "JD", "JC", "draw", "JS", "7S", "7H", "draw", "draw", "8H", "QH/H", "draw",
                           "draw", "AH", "pass", "AS", "pass", "AC", "pass", "draw", "7C", "draw"]}


PRSI_LAST_EDGE = {"game": "prsi", "hands": [".T.9.T8", "J..AQJ."], "upcard": "KD", "options": {"horizon": 6},
                  "stock": "9S JH KS 7D AC QS 7C QC AH AS KC 8H KH TS 8D TD 8S 9C 9H JC QH 7H 7S",
                  "played": ["9D", "JD"]}
PRSI_THREE = {"game": "prsi", "hands": ["9.9.8.K", "A..K7.T", "Q8.8.Q."], "upcard": "9D",
              "stock": "TH AC 9C TD QH AD 7S 8C QC KS JH JD JC KH 7C AH TS 7H JS",
              "options": {"horizon": 10, "play_on": True},
              "played": ["draw", "KD", "draw", "8D", "draw", "QS/D", "draw", "draw", "QD/D"]}


def test_analyse_says_what_the_value_alone_does_not(tmp_path):
    # Prší (an audit): an action that keeps the value but not the fastest end shows cost 0 and
    # other best actions; the table says why.  The value may move between actions where the next
    # search sees further than its horizon (RULES §4.9): the analysis names where.
    path = tmp_path / "slower.json"
    path.write_text(json.dumps(PRSI_SLOWER))
    out = run("analyse", str(path))
    assert out.returncode == 0, out.stderr
    an = ddcards.analyse(PRSI_SLOWER)
    slower = [s for s in an.steps if s.cost == 0 and s.move not in s.best_moves]
    assert [s.ply for s in slower] == [2, 13, 16, 25]
    # how soon the action and the best ones end it (each step's distance and best_distance)
    assert ("  25    1  TH          -1     -1     0  draw  <- kept the value, not the best: the end in 11 plies, "
            "the best's in 2\n") in out.stdout
    assert out.stdout.count("<- kept the value, not the best") == 4
    out_all = run("analyse", str(path), "--mode", "all")       # with every move's value: the same words
    assert [line for line in out_all.stdout.splitlines() if "<-" in line] == \
        [line for line in out.stdout.splitlines() if "<-" in line]
    out = out_all
    assert "Horizon" not in out.stdout
    assert "Final value -1  seat 0 cannot force being out first within 20 plies, the end in 6 plies\n" in out.stdout
    path = tmp_path / "horizon.json"
    path.write_text(json.dumps(PRSI_HORIZON))
    out = run("analyse", str(path))
    an = ddcards.analyse(PRSI_HORIZON)
    assert (an.steps[18].value_after, an.steps[19].value_before) == (-1, 1)
    assert ("Horizon     the value moved between actions, where the next search, bounded by the horizon, sees "
            "further: after ply 18 -1, before ply 19 +1\n") in out.stdout
    assert "Mistakes    none" in out.stdout and "<- mistake" not in out.stdout
    # and after the last action, at the end
    path.write_text(json.dumps(PRSI_LAST_EDGE))
    out = run("analyse", str(path))
    assert ("sees further: after ply 1 +0, at the end -1\nFinal value -1  the opponent can force being out first "
            "within 6 plies, the end in 6 plies\n") in out.stdout


def test_analyse_says_a_slower_action_forced_no_end_from_its_own_distance():
    # Three players: -1 covers both "the others force an end" and "nothing is forced" (RULES §4.9),
    # so the mark reads the action's own distance (none here) and the best ones' (10), in either mode.
    out = run("analyse", "-", stdin=json.dumps(PRSI_THREE))
    assert out.returncode == 0, out.stderr
    assert ("   1    1  KD          -1     -1     0  7D  <- kept the value, not the best: no end within the horizon, "
            "the best's in 10\n") in out.stdout
    step = ddcards.analyse(PRSI_THREE).steps[1]
    assert (step.move, step.distance, step.best_distance) == ("KD", None, 10)
    out = run("analyse", "-", "--mode", "all", stdin=json.dumps(PRSI_THREE))
    an = ddcards.analyse(PRSI_THREE, mode="all")
    assert {m.move: m.distance for m in an.steps[1].moves} == {"7D": 10, "KD": None, "draw": None}
    assert ("   1    1  KD          -1     -1     0  7D  <- kept the value, not the best: no end within the horizon, "
            "the best's in 10\n") in out.stdout


def test_analyse_readable_and_json():
    out = run("analyse", "--example", "marias-seed")
    assert out.returncode == 0, out.stderr
    assert "value at the start +70" in out.stdout
    # plies count from 0 here as in the JSON, the API and the error messages
    assert "Mistakes    3: ply 0 QH (seat 0, cost 20), ply 9 7H (seat 1, cost 20), ply 24 AH (seat 0, cost 20)" \
        in out.stdout
    assert "   0    0  QH" in out.stdout and "  29 " in out.stdout
    # the end as a solve of the played-out deal words it: the scores and the settlement
    assert "Final value +50  declarer wins (declarer 90, defenders 40)\nSettlement  seat 0 +4, seat 1 -2, seat 2 -2\n" \
        in out.stdout
    end = run("solve", "--example", "marias-seed")
    assert "Value       +50  declarer wins (declarer 90, defenders 40)" in end.stdout
    assert "Settlement  seat 0 +4, seat 1 -2, seat 2 -2" in end.stdout
    out = run("analyse", "--example", "marias-seed", "--json")
    doc = json.loads(out.stdout)
    assert doc["initial_value"] == 70 and doc["final_value"] == 50
    assert doc["mistakes"] == [0, 9, 24]
    assert len(doc["steps"]) == 30


def test_analyse_marks_every_mistake_and_those_that_turned_the_outcome():
    """One vocabulary (RULES §0.10): a card that cost value is a mistake; the text sets apart the
    ones that turned the outcome, as the report does."""
    text = run("analyse", str(Path(__file__).parent.parent / "docs" / "report-deal.json")).stdout
    marks = {int(line.split()[0]): line.split("<- ")[1] for line in text.splitlines() if "<- " in line}
    assert marks == {11: "mistake", 16: "mistake, outcome turned", 18: "mistake, outcome turned", 24: "mistake",
                     25: "mistake, outcome turned"}
    header, first = run("analyse", "--example", "mariasz-recorded").stdout.splitlines()[1:3]
    before, after = (header.index(word) + len(word) for word in ("before", "after"))
    assert first.split()[2] == "exchange" and first[before - 3:before] == first[after - 3:after] == "+88"
    empty = run("analyse", "--example", "marias-hra")
    assert empty.returncode == 0 and "Nothing to analyse: the position records no play" in empty.stdout
    assert "ply seat" not in empty.stdout


def test_analyse_rows_keep_a_space_between_values_of_any_width():
    """Money of 8 digits (stakes of 1,000,000, re, kilo in hearts) ran the columns together:
    '+16000016-1599998432000000' for before, after and cost."""
    doc = dict(ddcards.example("marias-seed"), flek=2, announcements=["kilo"],
               options={"sedma_value": 1_000_000, "kilo_value": 1_000_000})
    out = run("analyse", "-", stdin=json.dumps(doc))
    assert out.returncode == 0, out.stderr
    # each column as wide as the deal's widest money, under its header (they stood 3 and 2
    # characters to the right of 'before', 'after' and 'cost', columns 7 and 6 wide)
    assert " ply seat  card     before     after     cost  best\n" in out.stdout
    assert "   0    0  QH    +16000016 +16000016        0  AS TS AH KH QH 9H AD TD 8C 7C\n" in out.stdout
    assert "  24    0  AH    +16000016 -15999984 32000000  9H  <- mistake, outcome turned\n" in out.stdout
    # points keep their columns
    out = run("analyse", "--example", "marias-seed")
    assert " ply seat  card  before  after  cost  best\n" in out.stdout
    assert "   0    0  QH       +70    +50    20  AS TS AH AD TD  <- mistake\n" in out.stdout


def test_money_and_announcement_values_say_the_card_points():
    """Played for money or for Sedma or Kilo, a Hra's value line gave the money by part or the
    tricks, never the card points that decide the Hra and a Kilo (the JSON's scores)."""
    kilo = dict(SEED, objective="kilo")
    out = run("solve", "--mode", "best", "-", stdin=json.dumps(kilo))
    assert "Value       +1  made (declarer 100, defenders 70)\n" in out.stdout, out.stderr
    money = dict(SEED, objective="money", announcements=["kilo"], flek=2, options={"kilo_value": 1_000_000})
    out = run("solve", "--mode", "best", "-", stdin=json.dumps(money))
    assert ("Value       +16000016  declarer wins (declarer 100, defenders 70; money hra won +16, "
            "kilo won +16000000)\n") in out.stdout, out.stderr
    betl = dict(ddcards.example("marias-betl"), objective="money")
    out = run("solve", "--mode", "best", "-", stdin=json.dumps(betl))
    assert "Value       +10  declarer wins (tricks: declarer 0, defenders 10; money betl won +10)\n" in out.stdout


def test_games_and_examples():
    out = run("games", "--json")
    games = json.loads(out.stdout)
    marias = next(g for g in games if g["name"] == "marias")
    assert marias["contracts"] == ["hra", "betl", "durch"]
    assert marias["objectives"]["hra"] == ["hra", "sedma", "kilo", "money"]
    assert {o["name"] for o in marias["options"]} >= {"marriage_on_follow", "talon_points"}
    kilo = next(o for o in marias["options"] if o["name"] == "kilo_value")
    assert (kilo["minimum"], kilo["maximum"]) == (0, 1_000_000)          # the range validation applies
    assert "option kilo_value (int 0..1000000, default 2)" in run("games").stdout
    # one game, by any name a document may give it (`ddcards games prsi` was an unrecognised argument)
    one = run("games", "Prší").stdout
    assert one.startswith("prsi: Prší (2/3/4/5/6 players)\n") and "option horizon (int 1..250" in one
    assert "klaverjas" not in one and "marias" not in one
    assert [g["name"] for g in json.loads(run("games", "klaverjassen", "--json").stdout)] == ["klaverjas"]
    unknown = run("games", "bridge")
    assert unknown.returncode == 2 and unknown.stdout == ""
    assert unknown.stderr == ("ddcards: error: unknown game 'bridge' (supported: marias, klaverjas, mariasz, prsi; "
                              "docs/RULES.md §0.6 rule 1: game names the game by its name or an alias)\n")
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


def test_klaverjas_value_line_says_the_scores_hold_the_roem():
    from ddcards.cli import describe_value
    text = run("solve", "--example", "klaverjas").stdout
    # 137 card points + 20 roem = 157: the roem is in the score, not on top of it
    assert "Value       +132  the playing team makes it (playing 157, other 25; roem in them: playing 20, " \
        "other 0)\n" in text
    session = ddcards.Position.from_dict(ddcards.example("klaverjas")).session()
    nat = ddcards.Result(game="klaverjas", mode="best", value=-202, to_move=None, optimal_moves=[], moves=[], pv=[],
                         scores={"playing": 0, "other": 202, "playing_roem": 20, "other_roem": 20}, tricks={},
                         won=False, settlement=[], outcomes={"nat": True, "pit": False, "pit_other": True},
                         value_kind="points")
    assert describe_value(nat, session) == ("-202  nat: the playing team scores nothing (playing 0, other 202; roem "
                                            "playing 20 + other 20, all to the other team (nat); pit: the other "
                                            "team took every trick (+100))")


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
    out = run("table", "--example", "marias-hra", "--threads", "1")       # Mariáš: the discard fixed
    assert out.returncode == 0 and "Best: hra H + kilo, discard KC 9C: value +70, money +12" in out.stdout, out.stdout
    out = run("table", "--example", "klaverjas", "--threads", "1")
    assert out.returncode == 0 and "(1 thread)" in out.stdout and "+132" in out.stdout, out.stdout
    out = run("table", "--example", "--threads", "1")          # the table's default example
    assert out.returncode == 0 and "Klaverjas DD table" in out.stdout, out.stderr
    out = run("table", "--example", "klaverjas", "--threads", "0")
    assert out.returncode == 2 and "ddcards table: error: --threads must be a whole number from 1 to 64 (got 0)" \
        in out.stderr and out.stderr.startswith("usage: ddcards table ")     # the command's usage


def test_klaverjas_readable_solve():
    out = run("solve", "--example", "klaverjas", "--mode", "optimal")
    assert out.returncode == 0, out.stderr
    assert "Klaverjas (Amsterdam), trumps S" in out.stdout
    assert "Line" in out.stdout and out.stdout.count("|") >= 7


# --------------------------------------------------------------------------- issue 10: bad input
# Each test below failed on the code before issue 10 (a traceback, a lost batch or a wrong line).

import io                                                       # noqa: E402

BETL = ddcards.example("marias-betl")
KLAVERJAS = ddcards.example("klaverjas")
HUGE = "1" * 5000                                               # past Python's 4,300-digit limit


def main_on(stdin: bytes, *args: str, capsys) -> tuple[int, str, str]:
    """Run cli.main in-process on `stdin` (bytes); (status, stdout, stderr)."""
    old = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    try:
        status = cli.main([*args, "-"])
    finally:
        sys.stdin = old
    out, err = capsys.readouterr()
    return status, out, err


def lines_of(*docs) -> bytes:
    return b"".join((d if isinstance(d, bytes) else json.dumps(d).encode()) + b"\n" for d in docs)


BAD_LINES = {
    "huge number": ('{"game": "marias", "contract": "hra", "trump": "H", "flek": %s}' % HUGE).encode(),
    "huge number in hands": ('{"game": "marias", "hands": [%s]}' % HUGE).encode(),
    "deep brackets": b"[" * 100_000,
    "hands nested 990 deep": json.dumps(dict(SEED, hands=[[[]]] if False else None)).encode().replace(
        b'"hands": null', b'"hands": ' + b"[" * 990 + b"]" * 990),
    "lone surrogate": b'{"game": "\\ud800"}',
    "invalid UTF-8": b'{"game": "mari\xe1s"}',
    "raw bytes": b"\xff\xfe\x00garbage",
    "NaN": b'{"game": "marias", "flek": NaN}',
    "key twice": b'{"game": "marias", "game": "klaverjas"}',
    "not JSON": b"{not json",
    "stake too large": json.dumps(dict(SEED, objective="sedma", options={"sedma_value": 2 ** 31})).encode(),
    "empty array": b"[]",
    "form feed after the document": json.dumps(SEED).encode() + b"\x0c",
}


@pytest.mark.parametrize("label", list(BAD_LINES))
def test_a_bad_line_costs_only_itself(label, capsys):
    data = lines_of(SEED, BAD_LINES[label], BETL)
    status, out, err = main_on(data, "solve", "--json", "--mode", "best", capsys=capsys)
    assert status == cli.EXIT_BAD_INPUT, err
    docs = [json.loads(line) for line in out.splitlines()]
    assert [d["line"] for d in docs] == [1, 2, 3]
    assert docs[0]["value"] == 70 and docs[2]["value"] == 1
    bad = docs[1]
    assert bad["error_type"] in {"NotationError", "InvalidCardError", "InvalidDealError", "InvalidOptionError"}, bad
    assert bad["token"] is not None and bad["rule"], bad
    assert len(bad["error"]) < 400 and "Traceback" not in err
    out.encode("utf-8")                                          # stdout stays valid UTF-8


def test_bad_lines_name_the_field_and_the_rule(capsys):
    data = lines_of(BAD_LINES["huge number"], BAD_LINES["hands nested 990 deep"], BAD_LINES["lone surrogate"],
                    BAD_LINES["invalid UTF-8"], BAD_LINES["NaN"], BAD_LINES["key twice"],
                    BAD_LINES["stake too large"],
                    json.dumps(dict(SEED, objective="kilo", options={"kilo_value": 2 ** 62})).encode())
    status, out, _ = main_on(data, "solve", "--json", capsys=capsys)
    assert status == cli.EXIT_BAD_INPUT
    huge, deep, surrogate, utf8, nan, twice, sedma, kilo = [json.loads(line) for line in out.splitlines()]
    assert huge["error"].startswith("flek: 111111111111… (5,000 digits) is far out of the range")
    assert huge["rule"] == LIMITS_RULE
    assert deep["error"].startswith("JSON nested more than 16 levels deep at line 1 column ")
    assert surrogate["error"].startswith("game: lone surrogate \\ud800 in text: text must be valid Unicode")
    assert surrogate["rule"] == LIMITS_RULE and surrogate["field"] == "game"
    assert utf8["error"] == ("the line is not UTF-8 text: byte 15 (0xe1) starts a character that the "
                             "next byte does not continue")
    assert utf8["token"] == "0xe1" and utf8["rule"] == JSON_RULE
    assert nan["error"].startswith("NaN is not a JSON number")
    assert twice["error"].startswith("key 'game' appears twice")
    assert sedma["error"] == ("option 'sedma_value' is too large: it is a stake, a whole number from 0 to "
                              f"1,000,000, not 2147483648 ({STAKE_RANGE_RULE})")
    assert sedma["rule"] == STAKE_RANGE_RULE and kilo["token"] == str(2 ** 62)


def test_invalid_utf8_on_stdin_is_never_echoed():
    data = lines_of(SEED) + b'{"game": "\xff\xfe\xc0"}\n' + lines_of(BETL)
    out = subprocess.run([sys.executable, "-m", "ddcards", "solve", "-", "--mode", "best"], input=data,
                         capture_output=True, timeout=120)
    assert out.returncode == 2
    text = out.stdout.decode("utf-8")                             # raises if a raw byte got through
    assert text.count("Value") == 2
    err = out.stderr.decode("utf-8")
    assert "standard input, line 2: the line is not UTF-8 text: byte 11 (0xff)" in err
    assert b"\xff" not in out.stdout + out.stderr


def test_an_id_or_a_file_name_reaches_the_terminal_escaped(tmp_path):
    # A document's id (or the file's name) that holds an escape sequence or a newline is
    # repeated escaped in the readable output's headers: it cannot act on the terminal, nor
    # forge a line of the answer.
    forged = "x\nValue       -999  forged\x1b]0;title\x07\u202e"
    path = tmp_path / "deals\x1b[31m.jsonl"
    path.write_bytes(lines_of(dict(SEED, id=forged)) + lines_of(dict(BETL, id=7)))
    out = subprocess.run([sys.executable, "-m", "ddcards", "solve", str(path), "--mode", "best"],
                         capture_output=True, timeout=120)
    assert out.returncode == 0, out.stderr
    text = out.stdout.decode("utf-8")
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    assert f"# {tmp_path}/deals\\x1b[31m.jsonl, line 1, id x\\nValue       -999  forged\\x1b]0;title\\x07\\u202e\n" \
        in text
    assert ", line 2, id 7\n" in text
    assert text.count("\nValue ") == 2                          # the two answers' own lines, no third
    assert "forged" not in "".join(line for line in text.splitlines() if not line.startswith("#"))


def test_invalid_utf8_in_a_file(tmp_path):
    path = tmp_path / "bad.json"
    path.write_bytes(b'{"game": "marias", "trump": "\xc3"}\n')
    out = run("solve", str(path))
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr == ("ddcards: error: the line is not UTF-8 text: byte 30 (0xc3) starts a character "
                          "that the next byte does not continue\n")
    # A document over several lines: the error names the line, as a JSON error in it does
    path.write_bytes(b'# a comment\n{"game": "marias",\n "trump": "\xc3"}\n')
    out = run("solve", str(path))
    assert out.returncode == 2
    assert out.stderr == ("ddcards: error: line 3 is not UTF-8 text: byte 12 (0xc3) starts a character "
                          "that the next byte does not continue\n")


@pytest.mark.parametrize("played,message", [
    (5, "played must be a list of cards, not 5"),
    (True, "played must be a list of cards, not true"),
    (1.5, "played must be a list of cards, not 1.5"),
    ({"x": 1}, "played must be a list of cards, not {'x': 1}"),
    ("AS", "a DD table solves whole deals, but 1 card(s) are already played, from played[0] 'AS'"),
    (["AS", 7], "played[1] must be a card such as 'TH', not 7"),
])
def test_table_with_a_wrong_history(played, message, capsys):
    status, out, err = main_on(lines_of(dict(KLAVERJAS, played=played)), "table", "--threads", "1",
                               capsys=capsys)
    assert status == cli.EXIT_BAD_INPUT and out == ""
    assert err.startswith("ddcards: error: ") and message in err, err


@pytest.mark.parametrize("command", ["solve", "table"])
def test_a_document_that_is_a_json_string_is_text_not_a_position(command, capsys):
    # A line holding a JSON string is that text, even when the text is a position's JSON: read
    # twice, a table used to solve it (exit 0) where solve says what it is; "x" is not bad JSON.
    status, out, err = main_on(lines_of(json.dumps(KLAVERJAS), "x", None), command, "--json", capsys=capsys)
    assert status == cli.EXIT_BAD_INPUT
    answers = [json.loads(line) for line in out.splitlines()]
    assert [a["error"] for a in answers] == ["a position is a JSON object, not text"] * 2 + \
        ["a position is a JSON object, not null"]
    assert [a["error_type"] for a in answers] == ["NotationError"] * 3
    assert answers[1]["token"] == "x" and answers[2]["token"] == "null"


def test_table_notes_the_choices_it_makes_itself(capsys):
    # Each row sets the trump suit and playing team (Klaverjas), the contract and trump (Mariáš):
    # those a document gives are not used, and the table says so rather than drop them silently.
    status, out, err = main_on(lines_of(dict(KLAVERJAS, trump="S", playing_team=1)), "table", "--threads", "1",
                               capsys=capsys)
    assert status == 0 and "Klaverjas DD table" in out
    assert err == ("ddcards: note: the table chooses these itself, row by row: the document's trump 'S', "
                   "playing_team 1 are not used\n")
    deal = {k: v for k, v in SEED.items() if k not in ("contract", "trump")}
    # each note names its document, as an error would
    status, out, err = main_on(lines_of(deal, dict(deal, contract="betl", id="b")), "table", "--threads", "1",
                               capsys=capsys)
    assert status == 0 and err == ("ddcards: note: standard input, line 2, id b: the table chooses this itself, "
                                   "row by row: the document's contract 'betl' is not used\n")
    status, out, err = main_on(lines_of(deal), "table", "--threads", "1", capsys=capsys)
    assert status == 0 and err == ""
    # --all is Mariáš's: with a Klaverjas deal it is said to change nothing, once for the whole input
    klaverjas = {k: v for k, v in KLAVERJAS.items() if k not in ("trump", "playing_team")}
    status, out, err = main_on(lines_of(klaverjas, klaverjas), "table", "--all", "--threads", "1", capsys=capsys)
    assert status == 0 and out.count("Klaverjas DD table") == 2
    assert err == ("ddcards: note: --all lists every discard of a Mariáš table; a Klaverjas table has every row "
                   "already\n")
    status, out, err = main_on(lines_of(deal), "table", "--all", "--threads", "1", capsys=capsys)
    assert status == 0 and err == ""
    # a recorded deal: the way to its table is said
    status, out, err = main_on(lines_of(ddcards.example("marias-seed")), "table", capsys=capsys)
    assert status == cli.EXIT_BAD_INPUT and "leave 'played' out for the table of the deal as dealt" in err


def test_lines_split_only_at_newline(capsys):
    # A form feed, U+2028 and a lone CR belong to their line; CRLF ends one.
    ff = json.dumps(dict(SEED, contract="hra")).encode().replace(b'"hra"', b'"hra"\x0c')
    ls = json.dumps(dict(BETL, trump="\u2028"), ensure_ascii=False).encode()
    cr = json.dumps(SEED).encode()[:-1] + b',\r"flek": 1}'
    data = ff + b"\n" + ls + b"\r\n" + cr + b"\n" + lines_of(BETL)
    status, out, _ = main_on(data, "solve", "--json", "--mode", "best", capsys=capsys)
    assert "\u2028" not in out                  # escaped in the records: any line splitter works
    docs = [json.loads(line) for line in out.splitlines()]
    assert [d["line"] for d in docs] == [1, 2, 3, 4]
    assert "error" in docs[0] and "column" in docs[0]["error"]          # a form feed is not JSON space
    assert docs[1]["error_type"] == "InvalidOptionError"                # the trump given for betl
    assert docs[2]["value"] == 70 and docs[3]["value"] == 1             # a lone CR is JSON space
    assert status == cli.EXIT_BAD_INPUT


def test_results_carry_line_and_id(capsys):
    data = b"# a corpus\n\n" + lines_of(dict(SEED, id="deal-1"), dict(BETL, id=7), [SEED, dict(BETL, id="x")],
                                       dict(SEED, id=[1]))
    status, out, _ = main_on(data, "solve", "--json", "--mode", "best", capsys=capsys)
    docs = [json.loads(line) for line in out.splitlines()]
    assert [(d["line"], d.get("index"), d.get("id")) for d in docs] == [
        (3, None, "deal-1"), (4, None, 7), (5, 0, None), (5, 1, "x"), (6, None, None)]
    assert list(docs[0])[:2] == ["line", "id"] and docs[0]["value"] == 70
    assert docs[4]["error"].startswith("id must be text of at most 256 characters") and status == 2


def test_pretty_document_and_multi_line_array(tmp_path, capsys):
    pretty = tmp_path / "pretty.json"
    pretty.write_text(json.dumps(SEED, indent=2))
    assert cli.main(["solve", str(pretty), "--mode", "best"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Mariáš hra") and "#" not in out                # one document: no batch header
    many = tmp_path / "many.json"
    many.write_text("[\n" + ",\n".join(json.dumps(d, indent=1) for d in (SEED, dict(SEED, talon="AS 9C"), BETL))
                    + "\n]\n")
    assert cli.main(["solve", str(many), "--json", "--mode", "best"]) == cli.EXIT_BAD_INPUT
    docs = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    starts = [i + 1 for i, line in enumerate(many.read_text().splitlines()) if line.startswith("{")]
    assert [(d["line"], d["index"]) for d in docs] == list(zip(starts, [0, 1, 2]))
    assert docs[0]["value"] == 70 and docs[1]["token"] == "AS" and docs[2]["value"] == 1


def test_jq_style_documents_one_after_another(tmp_path, capsys):
    path = tmp_path / "jq.json"
    path.write_text(json.dumps(SEED, indent=2) + "\n" + json.dumps(BETL, indent=2) + "\n")
    assert cli.main(["solve", str(path), "--json", "--mode", "best"]) == 0
    docs = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [d["value"] for d in docs] == [70, 1]
    assert docs[1]["line"] == json.dumps(SEED, indent=2).count("\n") + 2


def test_a_broken_document_among_pretty_ones_costs_only_itself(tmp_path, capsys):
    """The documents after one that is not valid JSON are still read (they were dropped
    without a word); its error record is on the line it starts on."""
    broken = '{"game": "marias",\n"x": }'
    path = tmp_path / "pretty.json"
    path.write_text(json.dumps(SEED, indent=2) + "\n" + broken + "\n" + json.dumps(BETL, indent=2) + "\n")
    assert cli.main(["solve", str(path), "--json", "--mode", "best"]) == cli.EXIT_BAD_INPUT
    captured = capsys.readouterr()
    docs = [json.loads(line) for line in captured.out.splitlines()]
    first = json.dumps(SEED, indent=2).count("\n") + 2
    assert [d["line"] for d in docs] == [1, first, first + 2]
    assert docs[0]["value"] == 70 and docs[2]["value"] == 1
    assert docs[1]["error"].startswith(f"not valid JSON: Expecting value at line {first + 1} column 6")
    assert re.search(r"ddcards: solved 2 positions in \d+\.\d{3} s of search; per position median [\d.]+ ms, "
                     r"max [\d.]+ ms; 1 failed \(see their error records\)\n", captured.err), captured.err


def test_a_batch_s_summary_tells_searches_stopped_from_bad_input(tmp_path, capsys):
    """A stopped search (exit status 1) is counted apart from bad input (2) in the closing line,
    with the time limit it ran to: "5 failed" lumped a search stopped at --timeout with bad lines."""
    long = dict(ddcards.example("mariasz"), played=[])   # a 36-card deal from its first trick: minutes
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(json.dumps(d) for d in (SEED, long, {"game": "marias"}, BETL)) + "\n")
    assert cli.main(["solve", str(path), "--mode", "best", "--timeout", "0.5"]) == cli.EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert re.search(r"ddcards: solved 2 positions in [\d.]+ s of search; per position median [\d.]+ ms, max "
                     r"[\d.]+ ms; 1 search stopped at the time limit \(0\.5 s each\); 1 failed \(see the errors "
                     r"above\)\n", err), err
    path.write_text(json.dumps(long) + "\n" + json.dumps(long) + "\n")
    assert cli.main(["solve", str(path), "--mode", "best", "--timeout", "0.2"]) == cli.EXIT_ABORTED
    assert "ddcards: solved 0 positions; 2 searches stopped at the time limit (0.2 s each) (see the errors above)" \
        in capsys.readouterr().err


def test_a_control_character_after_a_line_s_value_is_named_so(capsys):
    status, out, _ = main_on(lines_of(SEED)[:-1] + b"\x00\n", "solve", "--json", "--mode", "best", capsys=capsys)
    (doc,) = [json.loads(line) for line in out.splitlines()]
    assert status == cli.EXIT_BAD_INPUT
    assert doc["error"].startswith("a control character '\\x00' follows the JSON value (column ")


def test_a_broken_first_line_of_json_lines_costs_only_itself(capsys):
    data = b'{"game": "marias", "hands": [\n' + lines_of(SEED, BETL)
    status, out, _ = main_on(data, "solve", "--json", "--mode", "best", capsys=capsys)
    docs = [json.loads(line) for line in out.splitlines()]
    assert [d["line"] for d in docs] == [1, 2, 3] and status == cli.EXIT_BAD_INPUT
    assert "the input ends first" in docs[0]["error"]
    assert docs[1]["value"] == 70 and docs[2]["value"] == 1


@pytest.mark.parametrize("data,needle", [
    (b"", "holds no position document"),
    (b"# nothing but a comment\n\n   \n", "holds no position document"),
    (b"[]\n", "an empty array holds no position document"),
    (b"[\n]\n", "an empty array holds no position document"),
])
def test_no_documents_is_an_error(data, needle, capsys):
    status, out, err = main_on(data, "solve", capsys=capsys)
    assert status == cli.EXIT_BAD_INPUT and out == ""
    assert needle in err


def test_a_line_over_the_limit_is_an_error_record(monkeypatch, capsys):
    from ddcards.batch import reader
    monkeypatch.setattr(reader, "MAX_LINE_BYTES", 2000)
    data = lines_of(SEED) + b'{"game": "' + b"m" * 5000 + b'"}\n' + lines_of(BETL)
    status, out, _ = main_on(data, "solve", "--json", "--mode", "best", capsys=capsys)
    docs = [json.loads(line) for line in out.splitlines()]
    assert [d["line"] for d in docs] == [1, 2, 3]
    assert docs[1]["error"].startswith("the line is longer than") and docs[2]["value"] == 1


class _Endless(io.RawIOBase):
    """A stream of bytes without a newline that never ends (as /dev/zero); counts what is read."""

    def __init__(self):
        self.given = 0

    def readable(self):
        return True

    def readinto(self, buffer):
        buffer[:] = b"x" * len(buffer)
        self.given += len(buffer)
        return len(buffer)


def test_an_endless_line_is_an_error_at_once_and_ends_the_input():
    from ddcards.batch import reader
    source = _Endless()
    entries = reader.read_documents(io.BufferedReader(source))
    first = next(entries)            # as soon as 16 MiB is read, not when (never) the line ends
    assert first.line == 1 and str(first.error).startswith("the line is longer than 16 MiB")
    assert source.given <= reader.MAX_LINE_BYTES + (1 << 20)
    rest = list(entries)             # the reading stops: nothing after an endless line can be read
    assert [(e.line, str(e.error)) for e in rest] == [
        (1, "the line runs on past 64 MiB with no newline in them: nothing after it is read")]
    assert source.given <= reader.MAX_RUNAWAY_BYTES + (2 << 20)
    # the batch job reads (hashes, spools) as far as the reader does, in pieces
    pieces = list(reader.input_pieces(io.BufferedReader(_Endless())))
    assert pieces[0] == (b"x" * (1 << 20), True) and all(not starts for _, starts in pieces[1:])
    assert sum(len(p) for p, _ in pieces) == reader.MAX_RUNAWAY_BYTES + (1 << 20)


def test_a_long_line_that_ends_still_lets_the_next_lines_be_read(monkeypatch):
    from ddcards.batch import reader
    monkeypatch.setattr(reader, "MAX_LINE_BYTES", 2000)
    monkeypatch.setattr(reader, "MAX_RUNAWAY_BYTES", 1 << 20)
    data = b"m" * 900_000 + b"\n" + lines_of(BETL)     # over the line limit, under the runaway one
    entries = list(reader.read_documents(io.BytesIO(data)))
    assert [e.line for e in entries] == [1, 2] and entries[1].document == BETL
    data = b"m" * 3_000_000 + b"\n" + lines_of(BETL)   # past the runaway limit: the input ends there
    entries = list(reader.read_documents(io.BytesIO(data)))
    assert [e.line for e in entries] == [1, 1] and "nothing after it is read" in str(entries[1].error)


@pytest.mark.parametrize("command", [["solve", "-"], ["solve", "-", "--json"], ["analyse", "-"], ["table", "-"],
                                     ["report", "-", "-o", "out.html"]])
def test_dev_zero_as_input_is_an_error_not_a_hang(command, tmp_path):
    with open("/dev/zero", "rb") as zero:
        out = subprocess.run([sys.executable, "-m", "ddcards", *command], stdin=zero, capture_output=True,
                             text=True, timeout=60, cwd=tmp_path)
    assert out.returncode == 2
    assert "the line is longer than 16 MiB" in out.stdout + out.stderr
    assert "Traceback" not in out.stderr and not (tmp_path / "out.html").exists()


def test_batch_of_dev_zero_ends(tmp_path):
    out = subprocess.run([sys.executable, "-m", "ddcards", "batch", "/dev/zero", "-o", str(tmp_path / "out.jsonl"),
                          "--jobs", "1"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2, out.stderr
    # One record for the line (two for the same line made OUT a journal no run could resume);
    # that it ran on and nothing after it was read is said on stderr.
    records = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [(r["line"], r["error"].split(";")[0].split(":")[0]) for r in records] == [
        (1, "the line is longer than 16 MiB")]
    assert ("ddcards: /dev/zero line 1: the line runs on past 64 MiB with no newline in them: nothing after it is read"
            in out.stderr), out.stderr


# ----------------------------------------------------------------- input and output that fail

def _io_run(*args: str, stdin=None, stdout=None, close: tuple[int, ...] = ()) -> tuple[int, str, str]:
    """Run the CLI with standard input or output redirected or closed (`close`: those fds)."""
    def closing():
        import os
        for fd in close:
            os.close(fd)
    proc = subprocess.run([sys.executable, "-m", "ddcards", *args], stdin=stdin, stdout=stdout,
                          stderr=subprocess.PIPE, preexec_fn=closing if close else None, timeout=120)
    return proc.returncode, "", proc.stderr.decode()


@pytest.mark.parametrize("args", [("solve", "--example"), ("solve", "--example", "--json"), ("games",),
                                  ("games", "--json"), ("examples",), ("examples", "prsi"),
                                  ("analyse", "--example", "--json"), ("report", "--example", "-o", "-"),
                                  ("table", "--example"), ("analyse", "--example")])
def test_a_full_disk_is_said_plainly(args):
    with open("/dev/full", "w") as full:
        status, _, err = _io_run(*args, stdout=full)
    assert status == cli.EXIT_BAD_INPUT
    assert err == "ddcards: error: cannot write the output: No space left on device\n"


@pytest.mark.parametrize("args", [("solve", "--example"), ("examples",), ("games",), ("analyse", "--example")])
def test_closed_standard_output_is_said_plainly(args):
    status, _, err = _io_run(*args, close=(1,))
    assert status == cli.EXIT_BAD_INPUT
    assert err == "ddcards: error: cannot write the output: standard output is closed\n"


@pytest.mark.parametrize("args,status", [
    (("solve", "--example", "--json"), 0),
    (("solve", "no-such-file.json"), 2),
    (("batch", "-", "-o", "/dev/null"), 2),              # refused: no .job beside /dev/null
])
def test_a_standard_error_that_cannot_be_written_keeps_the_exit_status(args, status, tmp_path):
    # Its messages cannot reach anyone; the status stays the command's (it was 1, "a search was
    # stopped", once the internal-error message failed on the same full stream).
    for stderr in (open("/dev/full", "w"), subprocess.DEVNULL):
        with stderr if stderr is not subprocess.DEVNULL else contextlib.nullcontext():
            proc = subprocess.run([sys.executable, "-m", "ddcards", *args], stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=stderr, cwd=tmp_path, timeout=120)
        assert proc.returncode == status, (args, proc.stdout[-300:])
    proc = subprocess.run([sys.executable, "-m", "ddcards", "solve", "--example", "--json"], stdout=subprocess.PIPE,
                          stderr=open("/dev/full", "w"), timeout=120)
    if args[0] == "solve" and status == 0:
        assert json.loads(proc.stdout)["value"] == 70          # the answers are whole


def test_file_names_reach_the_terminal_escaped(tmp_path):
    # A name may hold what a terminal acts on (ESC sequences set colours, titles): every message
    # that echoes it escapes it, as the solve headers did (an audit found the rest raw).
    name = tmp_path / "evil\x1b[31m\nname.jsonl"
    out = tmp_path / "out\x1b]0;TITLE\x07.jsonl"
    name.write_text(json.dumps(ddcards.example("klaverjas")) + "\n")
    runs = [subprocess.run([sys.executable, "-m", "ddcards", *args], capture_output=True, text=True, timeout=120)
            for args in (["solve", f"{name}.missing"], ["batch", str(name), "-o", str(out)],
                         ["report", str(name), "-o", f"{out}.html"])]
    for run in runs:
        assert "\x1b" not in run.stderr and "\x07" not in run.stderr, run.stderr
    assert "evil\\x1b[31m\\nname.jsonl.missing: No such file or directory" in runs[0].stderr
    assert "evil\\x1b[31m\\nname.jsonl -> " in runs[1].stderr and "out\\x1b]0;TITLE\\x07.jsonl: " in runs[1].stderr


def test_a_readable_error_line_names_the_documents_id(capsys):
    # as the header of an answer does ("# -, line 2, id 5"): the error says which document it is
    docs = lines_of({"game": "marias", "id": "x7"}, dict(KLAVERJAS, id=5), {"game": "marias"})
    status, out, err = main_on(docs, "solve", capsys=capsys)
    assert status == cli.EXIT_BAD_INPUT and "# standard input, line 2, id 5" in out
    assert err.splitlines()[:2] == [
        "ddcards: error: standard input, line 1, id x7: Mariáš needs its 3 hands (field 'hands', missing; "
        "docs/RULES.md §0.6 rule 3: one hand per seat)",
        "ddcards: error: standard input, line 3: Mariáš needs its 3 hands (field 'hands', missing; "
        "docs/RULES.md §0.6 rule 3: one hand per seat)"]


def test_closed_standard_input_is_said_plainly():
    status, _, err = _io_run("solve", "-", close=(0,))
    assert status == cli.EXIT_BAD_INPUT
    assert err == "ddcards: error: cannot read standard input: it is closed\n"
    status, _, err = _io_run("batch", "-", "-o", "/dev/null", close=(0,))
    assert status == cli.EXIT_BAD_INPUT and "cannot read standard input: it is closed" in err


def test_closed_standard_error_keeps_messages_off_standard_output():
    proc = subprocess.run([sys.executable, "-m", "ddcards", "solve", "-", "--json"], input=b"{bad\n",
                          stdout=subprocess.PIPE, preexec_fn=lambda: __import__("os").close(2), timeout=120)
    assert proc.returncode == 2
    assert [json.loads(line)["error_type"] for line in proc.stdout.splitlines()] == ["NotationError"]


@pytest.mark.parametrize("args", [("games",), ("solve", "--example", "marias-seed", "--json"),
                                  ("report", "--example", "-o", "-"), ("analyse", "--example")])
def test_a_reader_that_goes_away_ends_the_command_quietly(args):
    proc = subprocess.Popen([sys.executable, "-m", "ddcards", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdout.read(1)
    proc.stdout.close()                  # as `| head -c1` does
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 0 and err == b""


def _read_line(proc, timeout=60.0):
    """One line of the child's stdout, or fail after `timeout` seconds (never hang)."""
    import selectors
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    assert sel.select(timeout), "no answer while the input was still open"
    return proc.stdout.readline()


@pytest.mark.parametrize("as_json", [True, False])
def test_each_line_is_answered_before_the_next_is_read(as_json):
    args = [sys.executable, "-m", "ddcards", "solve", "-", "--mode", "best"] + (["--json"] if as_json else [])
    # unbuffered, so that select() sees every byte the child wrote
    proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0)
    try:
        proc.stdin.write(lines_of(SEED))
        proc.stdin.flush()
        first = _read_line(proc)
        if as_json:
            assert json.loads(first)["value"] == 70
        else:
            assert first == b"# standard input, line 1\n"
            block = [_read_line(proc)]
            while not block[-1].startswith(b"Searched") and len(block) < 20:
                block.append(_read_line(proc))          # the whole readable answer, before more input
            assert block[0].startswith("Mariáš hra".encode()) and block[-1].startswith(b"Searched"), block
        proc.stdin.write(b"{bad\n")
        proc.stdin.flush()
        if as_json:
            assert json.loads(_read_line(proc))["line"] == 2
        proc.stdin.close()
        assert proc.wait(60) == cli.EXIT_BAD_INPUT
    finally:
        proc.kill()
        proc.wait()


def test_the_batch_loop_is_reusable_lines_in_records_out():
    # ddcards.batch.reader.records: what `ddcards solve --json` does, as a function of lines (bytes or
    # str) -- for other drivers (a parallel or resumable batch command).
    from ddcards.batch.reader import records

    lines = [json.dumps(dict(SEED, id="a")), "# comment", "{bad", json.dumps([BETL, {"game": "bridge"}]).encode()]
    out = list(records(lines, lambda doc: ddcards.solve(doc, mode="best"), lambda res: {"value": res.value}))
    assert out[0] == {"line": 1, "id": "a", "value": 70}
    assert out[1]["line"] == 3 and out[1]["error_type"] == "NotationError"
    assert out[2] == {"line": 4, "index": 0, "value": 1}
    assert out[3]["index"] == 1 and out[3]["token"] == "bridge" and out[3]["rule"].startswith("docs/RULES.md §0.6 rule 1")
    # a bug in the work function is one record too, and the batch goes on
    out = list(records([b"{}", b"{}"], lambda doc: doc["missing"], dict))
    assert [(r["line"], r["error_type"]) for r in out] == [(1, "InternalError"), (2, "InternalError")]
    assert out[0]["error"].startswith("internal error: KeyError")


# --------------------------------------------------------------------------- table size, memory, timeouts

@pytest.mark.parametrize("command", ["solve", "analyse", "table"])
@pytest.mark.parametrize("size,why", [("0", "is too small"), ("-3", "is too small"), ("200000000", "is too large"),
                                      (str(2 ** 70), "is too large")])
def test_a_table_size_out_of_range_is_a_usage_error(command, size, why, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main([command, "--example", "--tt-mb", size])
    assert exc.value.code == cli.EXIT_BAD_INPUT
    err = capsys.readouterr().err
    limit = ddcards.api.tt_mb_limit()
    assert f"ddcards {command}: error: --tt-mb {size} {why}: a table takes 1 to {limit:,} MiB (" in err, err
    assert "leave it out for a table sized per game" in err and "internal error" not in err


def test_a_table_that_cannot_be_allocated_exits_2_saying_what_to_do(monkeypatch, capsys):
    def no_memory(tt_mb):
        raise MemoryError(f"cannot allocate a {tt_mb} MiB transposition table")

    monkeypatch.setattr(ddcards.api.solver, "Searcher", no_memory)
    assert cli.main(["solve", "--example", "--tt-mb", "8"]) == cli.EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert err == ("ddcards: error: cannot allocate a 8 MiB transposition table: not enough free memory (give a "
                   "smaller --tt-mb, or leave it out for a table sized per game)\n")
    # Without --tt-mb: the first table of a Solver sized per game (the message named None: a TypeError)
    assert cli.main(["solve", "--example"]) == cli.EXIT_BAD_INPUT
    assert capsys.readouterr().err.startswith("ddcards: error: cannot allocate a 2 MiB transposition table: ")


def test_a_per_game_table_that_cannot_grow_is_bad_input_not_a_bug(monkeypatch, capsys):
    import dataclasses

    from ddcards.games import mariasz

    monkeypatch.setattr(mariasz.GAME, "info", dataclasses.replace(mariasz.INFO, table_mb=1 << 40))
    status, out, err = main_on(lines_of(ddcards.example("mariasz"), SEED), "solve", "--json", "--mode", "best",
                               capsys=capsys)
    assert status == cli.EXIT_BAD_INPUT
    failed, solved = [json.loads(line) for line in out.splitlines()]
    assert failed["error_type"] == "TableMemoryError" and "internal error" not in failed["error"]
    assert failed["error"] == (f"cannot allocate the {1 << 40:,} MiB transposition table mariasz searches "
                               "need: not enough free memory (give a smaller table of a fixed size: --tt-mb)")
    assert solved["value"] == 70                                        # the batch goes on


def test_an_infinite_timeout_is_no_limit(capsys):
    assert cli.main(["solve", "--example", "--timeout", "inf", "--mode", "best"]) == cli.EXIT_OK
    assert "Value       +70" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exc:
        cli.main(["solve", "--example", "--timeout", "nan"])
    assert exc.value.code == 2 and "--timeout must be a number of seconds, at least 0 (got nan)" in \
        capsys.readouterr().err


# --------------------------------------------------------------------------- byte-order mark

BOM = b"\xef\xbb\xbf"


def test_a_byte_order_mark_at_the_start_of_a_file_or_stdin_is_ignored(tmp_path, capsys):
    single = tmp_path / "bom.json"
    single.write_bytes(BOM + json.dumps(SEED).encode())
    assert cli.main(["solve", str(single), "--mode", "best"]) == cli.EXIT_OK
    assert capsys.readouterr().out.startswith("Mariáš hra")
    pretty = tmp_path / "pretty.json"
    pretty.write_bytes(BOM + json.dumps(SEED, indent=2).encode())
    assert cli.main(["analyse", str(pretty), "--json"]) == cli.EXIT_OK
    assert json.loads(capsys.readouterr().out)["final_value"] == 70
    status, out, _ = main_on(BOM + b"# a comment\n" + lines_of(SEED, BETL), "solve", "--json", "--mode", "best",
                             capsys=capsys)
    assert status == cli.EXIT_OK and [json.loads(line)["value"] for line in out.splitlines()] == [70, 1]


def test_a_byte_order_mark_inside_the_input_is_an_error_that_says_so(capsys):
    status, out, _ = main_on(lines_of(SEED) + BOM + lines_of(BETL), "solve", "--json", "--mode", "best",
                             capsys=capsys)
    assert status == cli.EXIT_BAD_INPUT
    solved, bad = [json.loads(line) for line in out.splitlines()]
    assert solved["value"] == 70 and bad["line"] == 2 and bad["error_type"] == "NotationError"
    assert bad["error"].endswith("; a byte-order mark (U+FEFF) is ignored only at the very start of the input")


# --------------------------------------------------------------------------- long analyses

def test_a_long_search_says_so_before_it_starts_once_per_run(tmp_path, capsys):
    fresh = {"game": "mariasz", "hands": ["AS KS QS JS TS 9S", "AH KH QH JH TH 9H"],
             "stock": "AD KD QD JD TD 9D AC KC QC JC TC 9C 8S 7S 6S 8H 7H 6H 8D 7D 6D 8C 7C 6C"}
    path = tmp_path / "fresh.jsonl"
    path.write_text(json.dumps(fresh) + "\n" + json.dumps(fresh) + "\n")
    status = cli.main(["solve", str(path), "--tt-mb", "16", "--timeout", "0.05", "--no-progress", "--json"])
    assert status == cli.EXIT_ABORTED
    out, err = capsys.readouterr()
    # each record says what the stopped search had done, as its message does: nodes, how far it got
    for record in map(json.loads, out.splitlines()):
        assert record["error_type"] == "SearchTimeout" and record["nodes"] > 0
        assert f"after {record['nodes']:,} nodes; by then {record['progress']['answered']} of 6 distinct" in \
            record["error"]
        assert set(record["progress"]) == {"answered", "moves", "value", "move", "at_least"}
    notes = [line for line in err.splitlines() if "note:" in line]
    assert notes == ["ddcards: note: this search takes long: a 36-card Mariasz deal with 24 cards left in the "
                     "stock, whose searches take tens of seconds to minutes (--timeout SECONDS bounds it, "
                     "--threads 2 uses a second core, Ctrl-C interrupts it)"]
    assert cli.main(["solve", "--example", "mariasz"]) == cli.EXIT_OK     # 8 left: quick, no note
    assert "note:" not in capsys.readouterr().err
    # A race from far off its claim is as long (9 s to minutes: it said nothing); near a claim it is quick.
    race = dict(fresh, objective="race", start_scores=[0, 71])
    assert ddcards.Position.from_dict(race).long_search == (
        "a 36-card Mariasz race with each side 60 or more points from 131 at the start with 24 cards left in the "
        "stock, whose searches take tens of seconds to minutes")
    assert ddcards.Position.from_dict(dict(race, start_scores=[0, 72])).long_search is None


def test_a_long_prsi_horizon_says_so_before_it_starts(tmp_path, capsys):
    """Where no end is forced sooner, a Prší search's cost can grow tenfold with every five plies
    past 30 (the bundled example, every first move: 0.12 s within 30 plies, 2.5 s within 35, 14.5 s
    within 40, for its four actions that force no end): from 40 on it is named long, and the note
    points to mode optimal and the exact analysis (horizon null). A heavy user's audit: the
    largest horizons the rules allow searched on and on, unannounced."""
    doc = ddcards.example("prsi")
    at = lambda horizon: ddcards.Position.from_dict(dict(doc, options=dict(doc["options"], horizon=horizon)))
    assert at(39).long_search is None and at(None).long_search is None
    why = ("a Prší search within {} plies: where no end is forced sooner (from the position or, in mode all, "
           "after one of its actions) its cost can grow tenfold or more with every five plies past 30 (seconds "
           "to hours); mode optimal, or the exact analysis (\"horizon\": null), often answers at once")
    assert at(40).long_search == why.format(40)
    path = tmp_path / "far.json"
    path.write_text(json.dumps(dict(doc, options=dict(doc["options"], horizon=250))))
    assert cli.main(["solve", str(path), "--timeout", "0.05", "--no-progress"]) == cli.EXIT_ABORTED
    notes = [line for line in capsys.readouterr().err.splitlines() if "note:" in line]
    assert notes == ["ddcards: note: this search takes long: " + why.format(250) + " (--timeout SECONDS bounds it, "
                     "--threads 2 uses a second core, Ctrl-C interrupts it)"]
    # mode optimal: the end forced within 11 plies is the end within 250 (RULES §4.9)
    assert cli.main(["solve", str(path), "--mode", "optimal", "--json", "--no-progress"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["value"], out["distance"], out["optimal_moves"], out["horizon"]) == (1, 11, ["QS/D"], 250)


def test_an_analysis_of_minutes_says_so_before_it_starts(capsys):
    status = cli.main(["analyse", "--example", "mariasz", "--tt-mb", "16", "--timeout", "0.05", "--no-progress"])
    assert status == cli.EXIT_ABORTED
    note, stopped = capsys.readouterr().err.splitlines()
    assert note == ("ddcards: note: analysing this deal can take many minutes: an analysis searches from the deal's "
                    "start, a 36-card Mariasz deal with 24 cards left in the stock, whose searches take tens of "
                    "seconds to minutes; --from-ply N analyses the play from played[N] on (--timeout SECONDS "
                    "bounds it, --threads 2 uses a second core, Ctrl-C interrupts it)")
    assert stopped.startswith("ddcards: stopped: the analysis ran out of time after ")
    assert stopped.endswith(" nodes, with 0 of the 18 recorded actions analysed")
    # With --threads the note leaves the hint out.
    assert cli.main(["analyse", "--example", "mariasz", "--tt-mb", "16", "--timeout", "0.05", "--no-progress",
                     "--threads", "2"]) == cli.EXIT_ABORTED
    assert "(--timeout SECONDS bounds it, Ctrl-C interrupts it)" in capsys.readouterr().err
    # From a late ply the same deal is quick (10 cards left in the stock at played[16]), and says nothing;
    # from a ply still early, the note names it.
    assert cli.main(["analyse", "--example", "mariasz", "--from-ply", "16"]) == cli.EXIT_OK
    out, err = capsys.readouterr()
    assert err == ""
    assert out.splitlines()[0].startswith("Mariasz, trumps S - value before ply 16 ")
    assert [line.split()[0] for line in out.splitlines()[2:4]] == ["16", "17"]
    assert cli.main(["analyse", "--example", "mariasz", "--from-ply", "2", "--tt-mb", "16", "--timeout", "0.05",
                     "--no-progress"]) == cli.EXIT_ABORTED
    note, stopped = capsys.readouterr().err.splitlines()
    assert "an analysis searches from played[2], a 36-card Mariasz deal with 22 cards left" in note
    assert "; a later --from-ply (up to 17) analyses less of it, sooner (--timeout" in note     # (not "N": it was given)
    assert stopped.endswith(" nodes, with 0 of the 16 recorded actions from played[2] analysed")
    # The report says so too, and reports the late play from --from-ply.
    assert cli.main(["report", "--example", "mariasz", "--tt-mb", "16", "--timeout", "0.05", "--no-progress",
                     "-o", os.devnull]) == cli.EXIT_ABORTED
    note = capsys.readouterr().err.splitlines()[0]
    assert "an analysis searches from the deal's start" in note and "--from-ply N analyses" in note
    assert cli.main(["report", "--example", "mariasz", "--from-ply", "16", "-o", "-"]) == cli.EXIT_OK
    out, err = capsys.readouterr()
    assert err == "" and '<h2 id="deal-h">The position before ply 16</h2>' in out and 'data-trick="8"' in out
    # A quick one says nothing; every bundled example but the two late fresh deals is quick.
    assert cli.main(["analyse", "--example", "mariasz-recorded"]) == cli.EXIT_OK
    assert capsys.readouterr().err == ""
    slow = [name for name in ddcards.example_names()
            if ddcards.Position.from_dict(ddcards.example(name)).start().long_search]
    assert slow == ["mariasz", "mariasz-phase2"]
    assert "mariasz and mariasz-phase2" in cli.build_parser()._subparsers._group_actions[0].choices[
        "examples"].description


def test_a_race_analysis_says_what_its_values_mean(tmp_path):
    # RULES §3.8: a race is worth +1 / -1 / 0 (who reaches 131 first), not "made / defeated".
    path = tmp_path / "race.json"
    path.write_text(json.dumps(dict(ddcards.example("mariasz-race"), played=["exchange", "JS", "7S"])))
    out = run("analyse", str(path))
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0] == (
        "Mariasz, trumps H, race from 95/102 - value at the start -1 "
        "(seat 0's view: +1 reaches 131 first, -1 the other side does, 0 no one in this deal)")


@pytest.mark.parametrize("command", ["solve", "analyse", "table", "report"])
def test_a_file_and_an_example_together_are_refused(command, tmp_path, capsys):
    """Both a file and --example: which one did the user mean?  Neither is read (the example
    used to win, the file silently ignored)."""
    doc = tmp_path / "deal.json"
    doc.write_text(json.dumps(ddcards.example("klaverjas")))
    assert cli.main([command, str(doc), "--example", "marias-hra"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"give a position file or --example, not both ('{doc}' and --example marias-hra)" in captured.err


def test_a_finished_position_is_headed_the_deal_is_over(tmp_path, capsys):
    """A finished deal may still hold cards (a Prší game won); the header says the deal is over
    (it said "all cards played"), as str(Position) does."""
    pos = ddcards.Position.from_dict(ddcards.example("prsi-endgame"))
    while pos.legal_moves:
        pos = pos.play(ddcards.solve(pos, mode="best").optimal_moves[0])
    assert pos.hands[0] == () and len(pos.hands[1]) == 11             # seat 0 shed his cards and won
    doc = tmp_path / "over.json"
    doc.write_text(json.dumps(pos.to_dict()))
    assert cli.main(["solve", str(doc)]) == 0
    assert capsys.readouterr().out.splitlines()[0].endswith(" - the deal is over")


# ----------------------------------------------------------------- the readable answer's wording

PRSI = ddcards.example("prsi")
PRSI_LINE = ["QS/D", "9D", "AD", "pass", "TD", "draw", "draw", "draw", "QD/H", "9H", "7H"]     # seat 0 goes out


def test_prsi_without_a_horizon_reads_naturally(capsys):
    doc = dict(PRSI, played=PRSI_LINE[:7], options={"horizon": None})
    status, out, _ = main_on(lines_of(doc), "solve", capsys=capsys)
    assert status == 0
    assert "Value       -1  the opponent can force being out first, the end in 4 plies\n" in out
    assert " ever" not in out


def test_a_prsi_line_where_nobody_goes_out_says_so_once(capsys):
    # it listed every seat: "no seat 0 out, no seat 1 out, no seat 2 out, no seat 3 out"
    status, out, _ = main_on(lines_of(ddcards.example("prsi-4players")), "solve", capsys=capsys)
    assert status == 0 and "Value       -1  seat 0 cannot force being out first within 20 plies\n" in out
    assert "On the line nobody out\n" in out
    status, out, _ = main_on(lines_of(dict(PRSI, played=PRSI_LINE[:7], options={"horizon": None})), "solve",
                             capsys=capsys)
    assert "On the line seat 0 out\n" in out


def test_a_finished_prsi_game_says_who_went_out_and_asks_nothing_more(capsys):
    doc = dict(PRSI, played=PRSI_LINE)
    status, out, _ = main_on(lines_of(doc), "solve", capsys=capsys)
    assert status == 0
    assert "Prší, 2 players, horizon 20 plies - the deal is over\n" in out
    assert "  top               7H\n" in out and "active" not in out          # the 7 ended the game: no one draws
    assert "Value       +1  the game is over: seat 0 went out first\n" in out and "in 0 plies" not in out
    pos = ddcards.Position.from_dict(doc)
    assert pos.is_over and set(pos.table) == {"top", "stock", "pile"}
    # one action before the end the obligations still show
    before = ddcards.Position.from_dict(dict(PRSI, played=PRSI_LINE[:3]))      # AD just played
    assert "ace active" in before.table


def test_the_trick_line_says_who_played_each_card(capsys):
    doc = dict(SEED, played=["QH", "TH"])
    status, out, _ = main_on(lines_of(doc), "solve", "--mode", "best", capsys=capsys)
    assert status == 0
    assert "  trick             QH (seat 0)  TH (seat 1)\n" in out
    # laid out as print(Position) lays it out (the columns were one space apart, its two)
    shown = str(ddcards.Position.from_dict(doc))
    assert "  trick             QH (seat 0)  TH (seat 1)" in shown
    assert out.splitlines()[:5] == shown.splitlines()[:5]


def test_a_stopped_analysis_of_a_deal_without_play_says_so():
    fresh = ddcards.Position.from_dict(ddcards.example("mariasz")).start()
    with pytest.raises(ddcards.SearchTimeout) as info:
        ddcards.Solver(tt_mb=16).analyse(fresh, timeout=0.05)
    assert str(info.value) == (f"the analysis ran out of time after {info.value.nodes:,} nodes, in the search of "
                               "the deal's value (it records no play to analyse)")


def test_ctrl_c_before_the_command_runs_is_said_as_any_other(monkeypatch, capsys):
    """A Ctrl-C while the parser was being built (the first moments of any command) was a traceback."""
    def interrupted() -> None:
        raise KeyboardInterrupt
    monkeypatch.setattr(cli, "build_parser", interrupted)
    assert cli.main(["games"]) == 130
    assert capsys.readouterr().err == "ddcards: interrupted\n"


def test_a_stopped_analysis_prints_the_steps_it_finished(capsys, monkeypatch, tmp_path):
    """A --timeout in a long analysis printed only "stopped": the rows it had finished went with
    it. They come first now, and the message says where --from-ply goes on."""
    deal = ddcards.example("klaverjas")
    doc = dict(deal, played=ddcards.solve(deal, mode="best").pv)
    whole = ddcards.Solver().analyse(doc)
    path = tmp_path / "deal.json"
    path.write_text(json.dumps(doc))

    def stopped(self, pos, **kwargs):
        exc = ddcards.SearchTimeout("the analysis ran out of time after 99 nodes, with 3 of the 32 recorded "
                                    "actions analysed")
        exc.steps = whole.steps[:3]
        raise exc

    monkeypatch.setattr(ddcards.Solver, "analyse", stopped)
    assert cli.main(["analyse", str(path), "--no-progress"]) == cli.EXIT_ABORTED
    out, err = capsys.readouterr()
    title, *rows = out.splitlines()
    assert title == ("Klaverjas (Amsterdam), trumps S, playing team 1 (seats 1 and 3) - value at the start +132 "
                     "(playing team's view: the playing team's final score - the other team's (roem, last trick, "
                     "pit and nat included))")
    assert rows[0].split() == ["ply", "seat", "card", "before", "after", "cost", "best"]
    assert [row.split()[:3] for row in rows[1:]] == [[str(s.ply), str(s.seat), s.move] for s in whole.steps[:3]]
    assert err == ("ddcards: stopped: the analysis ran out of time after 99 nodes, with 3 of the 32 recorded actions "
                   "analysed (shown above; --from-ply 3 analyses the rest)\n")
    # --json: the record carries the finished steps (the error record had only the message)
    assert cli.main(["analyse", str(path), "--no-progress", "--json"]) == cli.EXIT_ABORTED
    out, err = capsys.readouterr()
    [record] = [json.loads(line) for line in out.splitlines()]
    assert record["error"] == ("the analysis ran out of time after 99 nodes, with 3 of the 32 recorded actions "
                               "analysed (the record's steps; --from-ply 3 analyses the rest)")
    assert record["error_type"] == "SearchTimeout" and record["nodes"] == 0    # (the stand-in's: set by Solver)
    assert record["steps"] == [s.to_dict() for s in whole.steps[:3]] and "progress" not in record


def test_a_stopped_analysis_of_several_documents_says_which_one_its_rows_are(capsys, monkeypatch, tmp_path):
    """In a file of several documents each answer comes under its "# FILE, line N" header: the rows a
    stopped analysis finished came with none (nor the blank line after), so they read as the rows of
    the document before them."""
    deal = ddcards.example("klaverjas")
    doc = dict(deal, played=ddcards.solve(deal, mode="best").pv)
    whole = ddcards.Solver().analyse(doc)
    path = tmp_path / "deals.jsonl"
    path.write_text(json.dumps(doc) + "\n" + json.dumps(ddcards.example("marias-seed")) + "\n")
    analyse = ddcards.Solver.analyse

    def first_stopped(self, pos, **kwargs):
        if pos.game == "klaverjas":
            exc = ddcards.SearchTimeout("the analysis ran out of time after 99 nodes, with 3 of the 32 recorded "
                                        "actions analysed")
            exc.steps = whole.steps[:3]
            raise exc
        return analyse(self, pos, **kwargs)

    monkeypatch.setattr(ddcards.Solver, "analyse", first_stopped)
    assert cli.main(["analyse", str(path), "--no-progress"]) == cli.EXIT_ABORTED
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[0] == f"# {path}, line 1"
    assert lines[1].startswith("Klaverjas (Amsterdam), trumps S")
    assert [row.split()[:3] for row in lines[3:6]] == [[str(s.ply), str(s.seat), s.move] for s in whole.steps[:3]]
    assert lines[6:8] == ["", f"# {path}, line 2"]
    assert lines[8].startswith("Mariáš hra, trumps H - value at the start +70")
    assert err == (f"ddcards: stopped: {path}, line 1: the analysis ran out of time after 99 nodes, with 3 of the 32 "
                   "recorded actions analysed (shown above; --from-ply 3 analyses the rest)\n")


def test_an_analysis_prints_each_row_as_its_step_is_analysed(capsys, monkeypatch, tmp_path):
    """A long deal's analysis (minutes for each of a fresh 36-card Mariasz deal's first steps)
    printed nothing until its end: each row now comes as soon as its step is analysed, the table
    the same as before, under each document's header in a file of several."""
    deal = ddcards.example("klaverjas")
    doc = dict(deal, played=ddcards.solve(deal, mode="best").pv[:6])
    path = tmp_path / "deals.jsonl"
    path.write_text(json.dumps(doc) + "\n" + json.dumps(ddcards.example("marias-seed")) + "\n")
    analyse, chunks, rows = ddcards.Solver.analyse, [], []

    def watched(self, pos, **kwargs):
        on_step = kwargs.pop("on_step")

        def step_done(step):
            chunks.append(capsys.readouterr().out)
            on_step(step)
            printed = capsys.readouterr().out
            chunks.append(printed)
            rows.append((step.ply, printed))
        return analyse(self, pos, on_step=step_done, **kwargs)

    monkeypatch.setattr(ddcards.Solver, "analyse", watched)
    assert cli.main(["analyse", str(path), "--no-progress"]) == cli.EXIT_OK
    printed = "".join(chunks) + capsys.readouterr().out
    # each step's row was out as soon as it was analysed (the first with the title and the column
    # header before it), each document's header line before its analysis began
    assert [ply for ply, _ in rows] == list(range(6)) + list(range(30))
    assert all(out.splitlines()[-1].split()[0] == str(ply) for ply, out in rows)
    assert rows[0][1].startswith("Klaverjas (Amsterdam), trumps S") and rows[6][1].startswith("Mariáš hra, trumps H")
    assert chunks[0] == f"# {path}, line 1\n"
    # the first's end before the second's header line
    assert chunks[12].startswith("Mistakes    ") and chunks[12].endswith(f"\n\n# {path}, line 2\n")
    # ... and the table is the same as the one printed at the end
    monkeypatch.setattr(ddcards.Solver, "analyse", lambda self, pos, **kwargs: analyse(
        self, pos, **dict(kwargs, on_step=None)))
    assert cli.main(["analyse", str(path), "--no-progress"]) == cli.EXIT_OK
    whole = capsys.readouterr().out

    def unsearched(text):
        return [line for line in text.splitlines() if not line.startswith("Searched ")]
    assert unsearched(printed) == unsearched(whole) and len(unsearched(whole)) > 40


def test_an_analysis_prints_its_title_and_column_header_as_soon_as_it_has_the_value(monkeypatch, tmp_path):
    """The title and the column header came only with the first row, a search after the value at
    the start they show is found (a fresh 36-card Mariasz deal: minutes of the ticker alone). A
    document's header line (a file of several) is now out before its first search, the title and
    the column header as soon as that search ends; the table is the same as the one printed at the end."""
    import io
    import time

    from ddcards.games.base import Session
    deal = ddcards.example("klaverjas")
    line = ddcards.solve(deal, mode="best").pv
    path = tmp_path / "deals.jsonl"
    path.write_text(json.dumps(dict(deal, played=line[:6])) + "\n" + json.dumps(dict(deal, played=line[:3])) + "\n")
    analyse, search = ddcards.Solver.analyse, Session.search
    searches, before_first, before_second = [0], [], []

    def analysing(self, pos, **kwargs):
        searches[0] = 0
        return analyse(self, pos, **kwargs)

    def searching(self, *args, **kwargs):
        searches[0] += 1
        if searches[0] == 1:                # the first position's: its value is not found yet
            before_first.append(out.getvalue())
        elif searches[0] == 2:              # the first step's, after played[0]: held until the heading is out
            deadline = time.monotonic() + 5
            while out.getvalue().count(" ply seat ") < len(before_first) and time.monotonic() < deadline:
                time.sleep(0.01)
            before_second.append(out.getvalue())
        return search(self, *args, **kwargs)

    monkeypatch.setattr(ddcards.Solver, "analyse", analysing)
    monkeypatch.setattr(Session, "search", searching)
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    assert cli.main(["analyse", str(path), "--no-progress"]) == cli.EXIT_OK
    streamed = out.getvalue()
    monkeypatch.setattr(Session, "search", search)
    monkeypatch.setattr(ddcards.Solver, "analyse", lambda self, pos, **kwargs: analyse(
        self, pos, **dict(kwargs, on_step=None)))
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    assert cli.main(["analyse", str(path), "--no-progress"]) == cli.EXIT_OK
    whole = out.getvalue()

    def unsearched(text):
        return [line for line in text.splitlines() if not line.startswith("Searched ")]
    assert unsearched(streamed) == unsearched(whole)
    lines = whole.splitlines()
    second = lines.index(f"# {path}, line 2")               # the second document's table, as printed at the end
    assert lines[0] == f"# {path}, line 1" and lines[second - 1] == ""
    assert lines[1].startswith("Klaverjas (Amsterdam), trumps S") and " - value at the start +" in lines[1]
    assert lines[2].split() == ["ply", "seat", "card", "before", "after", "cost", "best"]
    assert lines[second + 2].split() == lines[2].split() and lines[second + 3].split()[0] == "0"
    assert before_first[0] == f"# {path}, line 1\n"
    assert before_second[0] == "\n".join(lines[:3]) + "\n"
    assert unsearched(before_first[1]) == unsearched("\n".join(lines[:second + 1]))
    assert unsearched(before_second[1]) == unsearched("\n".join(lines[:second + 3]))


def test_analyse_on_step_is_checked_and_its_exception_ends_the_analysis():
    doc = ddcards.example("marias-seed")
    got = []
    an = ddcards.Solver().analyse(doc, on_step=got.append)
    assert got == an.steps and len(got) == 30
    with pytest.raises(ddcards.InvalidArgumentTypeError, match="on_step must be a function of one AnalysisStep or "
                       "None, not 'rows'") as info:
        ddcards.analyse(doc, on_step="rows")
    assert info.value.field == "on_step"

    def enough(step):
        if step.ply == 2:
            raise LookupError("enough")
    with pytest.raises(LookupError, match="enough") as raised:
        ddcards.Solver().analyse(doc, on_step=enough)
    assert raised.value.__notes__ == ["raised by on_step, called with the step of ply 2: the analysis stopped there"]


def test_rows_of_an_analysis_that_fails_on_the_way_end_with_their_blank_line(capsys, monkeypatch, tmp_path):
    """A document whose analysis fails after some rows were printed (a position on the way that
    cannot be solved as asked) keeps them, and the next document's header follows a blank line."""
    from ddcards.games.base import Session
    deal = ddcards.example("klaverjas")
    doc = dict(deal, played=ddcards.solve(deal, mode="best").pv[:6])
    path = tmp_path / "deals.jsonl"
    path.write_text(json.dumps(doc) + "\n" + json.dumps(doc) + "\n")
    search, calls = Session.search, []

    def failing(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 4:                 # the start, plies 0 and 1 analysed, then ply 2's search
            raise ddcards.InvalidOptionError("stand-in failure", token="x", rule="y")
        return search(self, *args, **kwargs)

    monkeypatch.setattr(Session, "search", failing)
    assert cli.main(["analyse", str(path), "--no-progress"]) == cli.EXIT_BAD_INPUT
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[0] == f"# {path}, line 1" and [row.split()[0] for row in lines[3:5]] == ["0", "1"]
    assert lines[5:7] == ["", f"# {path}, line 2"]
    assert "analysing the position after played[2]" in err and "stand-in failure" in err

@pytest.mark.parametrize("command", ["solve", "analyse"])
def test_a_document_whose_bad_token_reads_standard_output_is_its_own_error(command, capsys, tmp_path):
    """A failure to write the output ends the command, even where a document's work met it; it was
    told by its token, "standard output", which a document's own bad card may be too: such a
    document ended the whole file (the documents after it unanswered, no line named)."""
    seed = ddcards.example("marias-seed")
    path = tmp_path / "deals.jsonl"
    path.write_text(json.dumps(dict(seed, played=["standard output"])) + "\n" + json.dumps(seed) + "\n")
    assert cli.main([command, str(path), "--no-progress", "--json"]) == cli.EXIT_BAD_INPUT
    out, err = capsys.readouterr()
    first, second = map(json.loads, out.splitlines())
    assert first["line"] == 1 and first["error_type"] == "InvalidCardError" and first["field"] == "played[0]"
    assert second["line"] == 2 and "error" not in second
    assert cli.main([command, str(path), "--no-progress"]) == cli.EXIT_BAD_INPUT
    out, err = capsys.readouterr()
    assert f"# {path}, line 2" in out
    assert err.startswith(f"ddcards: error: {path}, line 1: played[0]: unknown card 'standard output'")


def test_an_analysis_document_where_a_position_is_wanted_is_said_so(tmp_path, capsys):
    """`ddcards solve` (or analyse, table, board) given an analysis document, and `ddcards report`
    given one that lost its steps: the error says what the input is ("field 'line' does not apply
    to marias" said nothing of it)."""
    analysis = ddcards.analyse(ddcards.example("marias-seed")).to_dict()
    path = tmp_path / "analysis.json"
    path.write_text(json.dumps(analysis))
    for command in ("solve", "analyse"):
        assert cli.main([command, str(path)]) == cli.EXIT_BAD_INPUT
        assert "the input is an analysis document (ddcards analyse --json), not a position document " \
               "(docs/RULES.md §0.6); the position it analysed is its deal.position" in capsys.readouterr().err
    del analysis["steps"]
    path.write_text(json.dumps(analysis))
    assert cli.main(["report", str(path), "-o", str(tmp_path / "page.html")]) == cli.EXIT_BAD_INPUT
    assert "the input is an analysis document without its 'steps'" in capsys.readouterr().err
    assert not (tmp_path / "page.html").exists()


def test_running_out_of_memory_is_said_in_words(monkeypatch, capsys):
    """A plain MemoryError (no message: Python's own when an allocation fails) was said as
    "ddcards: error: " and nothing after it (a resumed batch's output with a record of line 10**15)."""
    def exhausted(args: object) -> int:
        raise MemoryError
    monkeypatch.setattr(cli.parser, "cmd_games", exhausted)     # (what the parser hands the command to)
    assert cli.main(["games"]) == cli.EXIT_BAD_INPUT
    assert capsys.readouterr().err == "ddcards: error: out of memory (MemoryError)\n"
