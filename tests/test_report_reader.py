"""What `ddcards report` says of an input it cannot show: a value JSON cannot write (a number
of more than 30 digits, which the strict reader keeps as a LongNumber marker) is named by its
place, in the fields the report reads and in those it does not know; an input holding no
document says so (and what to give), one holding several says to split it.
"""
from __future__ import annotations

import json
import types

import pytest

import ddcards
from ddcards import cli
from ddcards._jsonio import loads
from ddcards.report import render
from ddcards.report.check import MAX_NESTING, check_json
from ddcards.report.render import script_json

try:
    from tests import _report_deals as deals
except ImportError:  # pytest put tests/ itself on sys.path
    import _report_deals as deals

LONG = "1" * 31                                    # one digit over the limit
DIGITS_RULE = "numbers have at most 30 digits"


@pytest.fixture(scope="module")
def analysis_text() -> str:
    """What `ddcards analyse --json` prints for the seed deal (one line)."""
    doc = ddcards.analyse(deals.seed_deal(), mode="all").to_dict()
    return json.dumps(doc)


def with_raw(text: str, path: str, literal: str) -> str:
    """`text` (a JSON object) with the field at `path` ("final.value", "steps.2.note") set to the
    JSON `literal` as written, so that the strict reader, not Python, reads it."""
    doc = json.loads(text)
    *parents, last = path.split(".")
    node = doc
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node[key]
    node[int(last) if isinstance(node, list) else last] = "@@HERE@@"
    return json.dumps(doc).replace('"@@HERE@@"', literal)


def report(capsys, *argv: str) -> tuple[int, str]:
    code = cli.main(["report", *argv])
    return code, capsys.readouterr().err


# ------------------------------------------------------------------ a long number anywhere

@pytest.mark.parametrize("path, literal, field, shown", [
    ("final.value", str(10 ** 40), "final.value", "100000000000… (41 digits)"),    # read by no check before
    ("note", LONG, "note", "111111111111… (31 digits)"),                          # a key the report does not know
    ("final.note", "-" + LONG, "final.note", "-111111111111… (31 digits)"),
    ("steps.2.extra", f'{{"a": [1, {LONG}]}}', "steps[2].extra.a[1]", "(31 digits)"),
    ("deal.position.note", LONG, "deal.position.note", "(31 digits)"),
    ("initial_value", LONG, "initial_value", "(31 digits)"),                      # a field the report reads
    ("steps.0.moves", f'[{{"move": "AS", "value": {LONG}}}]', "steps[0].moves[0].value", "(31 digits)"),
])
def test_a_long_number_is_named_by_its_place(tmp_path, capsys, analysis_text, path, literal, field, shown):
    # It was "the analysis document is not JSON: Object of type LongNumber is not JSON serializable"
    # (field "analysis"): the document is JSON, and the field and the rule are what to say.
    text = with_raw(analysis_text, path, literal)
    doc = loads(text)
    with pytest.raises(ddcards.NotationError) as err:
        render(doc)
    assert err.value.field == field and str(err.value).startswith(f"{field}: ")
    assert shown in str(err.value) and DIGITS_RULE in str(err.value)
    assert err.value.rule.startswith("docs/RULES.md §0.11 rule 2") and "not JSON" not in str(err.value)
    (tmp_path / "an.json").write_text(text)
    code, stderr = report(capsys, str(tmp_path / "an.json"), "-o", str(tmp_path / "an.html"))
    assert code == 2 and stderr.startswith(f"ddcards: error: {field}: ") and DIGITS_RULE in stderr
    assert "not JSON" not in stderr and "LongNumber" not in stderr and "Traceback" not in stderr
    assert not (tmp_path / "an.html").exists()


def test_a_number_no_float_holds_is_named_by_its_place(analysis_text):
    with pytest.raises(ddcards.NotationError) as err:
        render(loads(with_raw(analysis_text, "nodes", "1e400")))
    assert err.value.field == "nodes" and "nodes: 1e400 is far out of the range" in str(err.value)
    assert "beyond what any number holds" in str(err.value)


def test_a_moves_distance_is_a_whole_number_from_0_or_none():
    # The page reads a Prší action's distance (how soon the better actions end it): a text one
    # was an internal error (TypeError comparing it), one of true printed "in True".
    from test_report import PRSI_SLOW

    doc = ddcards.analyse(PRSI_SLOW, mode="all").to_dict()
    assert render(doc).startswith("<!DOCTYPE html>")
    for value, wanted in (("soon", "a whole number from 0, not 'soon'"), (True, "not true"), (-1, "not -1")):
        bad = json.loads(json.dumps(doc))
        bad["steps"][4]["moves"][0]["distance"] = value
        with pytest.raises(ddcards.NotationError) as err:
            render(bad)
        assert err.value.field == "steps[4].moves[0].distance" and wanted in str(err.value)
    bad["steps"][4]["moves"][0]["distance"] = None          # no end forced: as the solver writes it
    assert render(bad).startswith("<!DOCTYPE html>")


def test_final_value_is_checked_like_the_other_values(analysis_text):
    doc = json.loads(analysis_text)
    for value, wanted in (("50", "final.value: a whole number, not '50'"), (True, "a whole number, not true"),
                          (10 ** 20, "a whole number, not 100000000000000000000")):
        doc["final"]["value"] = value
        with pytest.raises(ddcards.NotationError) as err:
            render(doc)
        assert err.value.field == "final.value" and wanted in str(err.value)
    doc["final"]["value"] = None                          # left out: the page shows final_value
    assert render(doc).startswith("<!DOCTYPE html>")
    del doc["final"]["value"]
    assert render(doc).startswith("<!DOCTYPE html>")


# ------------------------------------------------------------------ any value JSON cannot write (Python callers)

class Odd:
    pass


@pytest.mark.parametrize("value, field, message", [
    (10 ** 40, "extra.x", "extra.x: 100000000000… (41 digits) is far out of the range of any field"),
    (float("nan"), "extra.x", "extra.x: nan is not a JSON number"),
    (float("-inf"), "extra.x", "extra.x: -inf is not a JSON number"),
    ({1, 2}, "extra.x", "is not a JSON value"),
    (Odd(), "extra.x", "is not a JSON value"),
    (b"ab", "extra.x", "extra.x: <2 bytes> is not a JSON value"),
    ({("a", 1): 1}, "extra.x", "extra.x: key ['a', 1] is not text"),
])
def test_what_json_cannot_write_is_named_by_its_place(analysis_text, value, field, message):
    doc = json.loads(analysis_text)
    doc["extra"] = {"x": value}
    with pytest.raises(ddcards.NotationError) as err:
        render(doc)
    assert err.value.field == field and str(err.value).startswith(f"{field}: ") and message in str(err.value)
    if not isinstance(value, int):
        # script_json (the last line, which json.dumps fails in) names it too, given such a document
        with pytest.raises(ddcards.NotationError) as err:
            script_json(doc)
        assert err.value.field == field


def test_a_container_inside_itself_or_too_deep_is_named(analysis_text):
    doc = json.loads(analysis_text)
    loop: list = []
    loop.append(loop)
    doc["extra"] = loop
    with pytest.raises(ddcards.NotationError) as err:
        render(doc)
    assert err.value.field == "extra[0]" and "holds itself" in str(err.value)
    deep: list = []
    doc["extra"] = deep
    for _ in range(1000):
        deep.append([])
        deep = deep[0]
    with pytest.raises(ddcards.NotationError) as err:
        render(doc)
    assert err.value.field.startswith("extra[0][0]") and f"more than {MAX_NESTING} levels" in str(err.value)


def test_what_json_can_write_passes(analysis_text):
    doc = json.loads(analysis_text)
    shared = {"a": [1, 2]}
    doc["extra"] = {"one": shared, "two": shared, "t": (1, 2.5, None, True, "x", -10 ** 29)}
    check_json(doc)
    doc["deal"] = types.MappingProxyType(doc["deal"])  # a Mapping that is no dict: written as one
    page = render(doc)
    assert page.startswith("<!DOCTYPE html>") and '"two": {"a": [1, 2]}' in page


# ------------------------------------------------------------------ no document, several documents

@pytest.mark.parametrize("content", ["", "# only a comment\n", "\n\n", "# a\n\n# b\n"])
def test_an_input_with_no_document_says_so(tmp_path, capsys, content):
    (tmp_path / "empty.json").write_text(content)
    code, stderr = report(capsys, str(tmp_path / "empty.json"), "-o", str(tmp_path / "x.html"))
    assert code == 2 and f"{tmp_path / 'empty.json'} holds no document" in stderr
    assert "ddcards analyse --json" in stderr and "split" not in stderr
    assert not (tmp_path / "x.html").exists()


def test_dev_null_and_empty_stdin_hold_no_document(tmp_path, capsys, monkeypatch):
    import io
    import os

    if os.path.exists(os.devnull):
        code, stderr = report(capsys, os.devnull, "-o", str(tmp_path / "x.html"))
        assert code == 2 and "holds no document" in stderr and "split" not in stderr
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"")))
    code, stderr = report(capsys, "-", "-o", str(tmp_path / "x.html"))
    assert code == 2 and "standard input holds no document" in stderr and "split" not in stderr
    assert not (tmp_path / "x.html").exists()


def test_an_input_with_several_documents_says_to_split_it(tmp_path, capsys, analysis_text):
    (tmp_path / "two.json").write_text(analysis_text + "\n" + analysis_text + "\n")
    code, stderr = report(capsys, str(tmp_path / "two.json"), "-o", str(tmp_path / "x.html"))
    assert code == 2 and "holds more than one document: a report shows one deal (split the file)" in stderr
    assert not (tmp_path / "x.html").exists()
    (tmp_path / "one.json").write_text("# the seed deal, analysed\n" + analysis_text + "\n")
    code, stderr = report(capsys, str(tmp_path / "one.json"), "-o", str(tmp_path / "x.html"))
    assert code == 0 and (tmp_path / "x.html").exists()


def test_the_place_is_said_printably(analysis_text):
    # A key is the document's text: an escape sequence in it must not reach the terminal.
    text = analysis_text[:-1] + f', "\\u001b[2J\\u202e": {{"n": {LONG}}}}}'
    with pytest.raises(ddcards.NotationError) as err:
        render(loads(text))
    assert str(err.value).startswith("\\x1b[2J\\u202e.n: 111111111111… (31 digits)")
    assert err.value.field == "\x1b[2J\u202e.n" and "\x1b" not in str(err.value)
    text = analysis_text[:-1] + f', "{"k" * 100}": {LONG}}}'
    with pytest.raises(ddcards.NotationError) as err:
        render(loads(text))
    assert str(err.value).startswith("k" * 60 + "…: ") and err.value.field == "k" * 100



def test_an_analysis_from_a_later_ply_shows_the_position_then_and_numbers_the_tricks_on():
    # RULES §0.10: from ply 25 of the seed deal, 8 tricks and one card of the ninth are played.
    late = ddcards.analyse(ddcards.example("marias-seed"), from_ply=25).to_dict()
    page = render(late)
    assert '<h2 id="deal-h">The position before ply 25</h2>' in page
    assert "This analysis starts at ply 25: the hands shown are those before it, where the value is" in page
    assert 'data-trick="9"' in page and 'data-trick="10"' in page and 'data-trick="1"' not in page
    assert '<span class="label">on the table</span> <span class="card suit-H" data-card="AH"' in page
    assert '<span class="badge">to play</span>' in page           # seat 1 follows the AH on the table
    assert "score so far</span> declarer 80, defenders 30" in page
    # a hand-edited from_ply past the record is named
    with pytest.raises(ddcards.NotationError) as err:
        render(dict(late, from_ply=31))
    assert err.value.field == "from_ply" and "a whole number from 0 to 30" in str(err.value)
    # from the record's end: no step, and the page says so
    end = render(ddcards.analyse(ddcards.example("marias-seed"), from_ply=30).to_dict())
    assert "No card is recorded from ply 30 on" in end


# ------------------------------------------------------------------ a document that contradicts its deal

@pytest.mark.parametrize("edit, field, message", [
    (lambda a: a.update(game="prsi"), "game", "the game of deal.position ('marias'), not 'prsi'"),
    (lambda a: a.update(game="skat"), "game", "one of the games marias, klaverjas, mariasz, prsi, not 'skat'"),
    (lambda a: a["deal"]["position"].update(game=5), "deal.position.game", "one of the games"),
    (lambda a: a["steps"][3].update(move="KD"), "steps[3].move",
     "'AC', the action deal.position.played holds at ply 3, not 'KD'"),
    (lambda a: a["steps"][3].update(move="zz"), "steps[3].move", "not 'zz'"),
    (lambda a: a["steps"][3].update(ply=7), "steps[3].ply", "3, the steps following deal.position.played"),
    (lambda a: a["steps"].append(dict(a["steps"][-1], ply=30)), "steps[30].ply",
     "a ply of deal.position.played, which holds 30 actions"),
    # ... or contradicts itself: the verdicts and values the page draws must agree
    (lambda a: a.update(mistakes=[0, 1]), "mistakes", "[0, 9, 24], the plies of the steps that cost something, "
                                                      "not [0, 1]"),
    (lambda a: a.update(outcome_mistakes=[9]), "outcome_mistakes", "[], the plies of the steps that turned"),
    (lambda a: a["steps"][9].update(cost=0), "steps[9].cost", "what the action lost: the difference of"),
    (lambda a: a["steps"][9].update(mistake=False), "steps[9].mistake", "true, whether the action cost anything"),
    (lambda a: a["steps"][3].update(changes_outcome=True), "steps[3].changes_outcome",
     "false for an action that cost nothing"),
    (lambda a: a.update(initial_value=a["initial_value"] + 10), "initial_value", "70, steps[0].value_before"),
    (lambda a: a["steps"][5].update(value_before=a["steps"][5]["value_before"] + 10,
                                    value_after=a["steps"][5]["value_after"] + 10), "steps[5].value_before",
     "the value after the step before it"),
    (lambda a: a.update(final_value=a["final_value"] - 20), "final_value", "the last step's value_after"),
    (lambda a: a["final"].update(value=a["final_value"] - 20), "final.value", "the final_value of the analysis"),
    # ... or lays out a deal the record does not hold
    (lambda a: a["deal"].update(hands=["A.A.A.A", *a["deal"]["hands"][1:]]), "deal.hands[0]",
     '"AT.AKQ9.AT.87", as deal.position lays it out at ply 0, not \'A.A.A.A\''),
    (lambda a: a["deal"].update(talon="AS AH"), "deal.talon", '"9C KC", as deal.position lays it out'),
    (lambda a: a["deal"].update(roles=["defender", "declarer", "defender"]), "deal.roles[0]",
     '"declarer", as deal.position lays it out at ply 0, not \'defender\''),
    (lambda a: a["deal"].update(to_move=2), "deal.to_move", "0, as deal.position lays it out at ply 0, not 2"),
    (lambda a: a["deal"].update(suit_names=["červené", "zelené", "kule", "žaludy"]), "deal.suit_names[0]",
     '"zelené", as deal.position lays it out'),
    (lambda a: a.update(value_owner="defenders"), "value_owner", '"declarer", as deal.position lays it out'),
    (lambda a: a["deal"]["position"].update(contract="betl"), "deal.position", "a position document that can "
                                                                               "be read"),
    (lambda a: a.update(mode="best"), "mode", "optimal or all, not 'best'"),
    (lambda a: a.update(value_meaning=["a"]), "value_meaning", "text"),
    (lambda a: a.update(nodes=-5), "nodes", "a whole number from 0, not -5"),
    (lambda a: a.update(elapsed_ms="NaN"), "elapsed_ms", "a number of milliseconds from 0, not 'NaN'"),
    (lambda a: a["steps"][3].update(seat=2), "steps[3].seat", "1, the seat to move at ply 3 of the record, not 2"),
    # ... and each step's moves (mode all) are every legal one, valued as the step says
    (lambda a: a["steps"][9].update(best_moves=["QS"]), "steps[9].best_moves",
     '["KS", "QS", "KD", "QD"], the moves of steps[9].moves marked optimal'),
    (lambda a: (a["steps"][9]["moves"][0].update(optimal=False), a["steps"][9].update(best_moves=["QS", "KD", "QD"])),
     "steps[9].moves[0].optimal", "true: whether its value (50) is the step's value_before (50), not false"),
    # a move worth more to its side than value_before, the best there is, was shown as a better card
    # worth more than the position (KH +90 where the best lead gives +70)
    (lambda a: a["steps"][0]["moves"][3].update(value=90), "steps[0].moves[3].value",
     "at most the step's value_before (70), the value of the best move for the side to move, as the action played "
     "says, not 90"),
    (lambda a: a["steps"][3]["moves"][2].update(value=30), "steps[3].moves[3].value",
     "at most the step's value_before (50), the value of the best move for the side to move, as the moves before it "
     "say, not 70"),
    (lambda a: a["steps"][9]["moves"][4].update(value=72), "steps[9].moves[4].value",
     "70, the step's value_after: the value of the action played, not 72"),
    (lambda a: a["steps"][9].update(moves=[m for m in a["steps"][9]["moves"] if m["move"] != "JH"]), "steps[9].moves",
     "every legal action at ply 9 of the record once (JH missing), not 'KS QS 8H 7H KD QD'"),
    (lambda a: a["steps"][9]["moves"].append(dict(a["steps"][9]["moves"][2], move="9S")), "steps[9].moves",
     "every legal action at ply 9 of the record once (9S not legal or listed twice)"),
    # ... and without the record, each listed move is at least an action of the game
    (lambda a: (a["deal"].pop("position"), a["steps"][9]["moves"][1].update(move="draw")), "steps[9].moves[1].move",
     "an action of marias: a card, not 'draw'"),
    (lambda a: a["steps"][2].update(trick_winner=2), "steps[2].trick_winner", "1, the seat the record has take"),
    (lambda a: a["steps"][1].update(trick_winner=1), "steps[1].trick_winner", "null: this action ends no trick"),
    (lambda a: a["steps"][2].update(score={"declarer": 999, "defenders": 0}), "steps[2].score",
     "the record's after ply 2"),
    (lambda a: a.update(final_outcome="declarer loses"), "final_outcome", "'declarer wins', the last step's"),
    (lambda a: a.update(steps=a["steps"][:5], mistakes=[0], final_value=a["steps"][4]["value_after"],
                        final=dict(a["final"], value=a["steps"][4]["value_after"])), "steps",
     "the steps from ply 0 to the end of deal.position.played (30 actions), as a whole analysis"),
])
def test_a_document_that_contradicts_its_deal_is_refused_naming_the_field(analysis_text, tmp_path, capsys,
                                                                        edit, field, message):
    # RULES §0.10: the report shows the document as it is, so it must be one analysis of its own deal
    doc = json.loads(analysis_text)
    edit(doc)
    with pytest.raises(ddcards.NotationError) as err:
        render(doc)
    assert err.value.field == field and message in str(err.value)
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(doc))
    code, err_text = report(capsys, str(path), "-o", str(tmp_path / "edited.html"))
    assert code == cli.EXIT_BAD_INPUT and f"ddcards: error: {field}: " in err_text
    assert not (tmp_path / "edited.html").exists()


@pytest.fixture(scope="module")
def race_text() -> str:
    """A mode optimal analysis of a Mariasz race after `exchange 8C TH` (3 steps, none a mistake)."""
    deal = dict(ddcards.example("mariasz-race"), played=["exchange", "8C", "TH"])
    return json.dumps(ddcards.analyse(deal, mode="optimal").to_dict())


@pytest.fixture(scope="module")
def seed_optimal_text() -> str:
    """The seed deal analysed in mode optimal (its mistakes at plies 0, 9 and 24)."""
    return json.dumps(ddcards.analyse(deals.seed_deal(), mode="optimal").to_dict())


def _refused(doc: dict, field: str, message: str, tmp_path, capsys) -> None:
    """`doc` is refused naming `field` with `message`, by render() and by `ddcards report` (exit 2,
    no page written)."""
    with pytest.raises(ddcards.NotationError) as err:
        render(doc)
    assert err.value.field == field and message in str(err.value), str(err.value)
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(doc))
    code, err_text = report(capsys, str(path), "-o", str(tmp_path / "edited.html"))
    assert code == cli.EXIT_BAD_INPUT and f"ddcards: error: {field}: {message}" in err_text, err_text
    assert not (tmp_path / "edited.html").exists()


def _drop_played(a: dict) -> None:
    del a["deal"]["position"]["played"]


NOTHING_PLAYED = ("a ply of deal.position.played, which holds 0 actions (a position without played has nothing "
                  "played), not 0")


@pytest.mark.parametrize("edit, field, message", [
    # A deal.position without `played` is a record of nothing played (RULES §0.6, §0.10), not a
    # document let off every check against its record: it showed 8C, and a card still in the
    # stock, as moves made.
    (lambda a: (_drop_played(a), a["steps"][1].update(move="AS")), "steps[0].ply", NOTHING_PLAYED),
    (_drop_played, "steps[0].ply", NOTHING_PLAYED),
    (lambda a: a["deal"]["position"].update(played=None), "steps[0].ply", NOTHING_PLAYED),   # null: left out
    (lambda a: (_drop_played(a), a.update(from_ply=2)), "from_ply",
     "a whole number from 0 to 0, the actions of deal.position.played, not 2"),
    # A step's whole numbers are whole numbers: false is no 0, 112.0 no 112 (Python's == took them)
    (lambda a: a["steps"][2]["score"].update(seat0=False), "steps[2].score.seat0", "a whole number, not false"),
    (lambda a: a["steps"][2]["score"].update(seat1_total=112.0), "steps[2].score.seat1_total",
     "a whole number, not 112.0"),
    (lambda a: a["steps"][2].update(trick_winner=False), "steps[2].trick_winner",
     "a seat: a whole number from 0 to 1, not false"),
    (lambda a: a["steps"][2].update(trick_winner=1.0), "steps[2].trick_winner",
     "a seat: a whole number from 0 to 1, not 1.0"),
    (lambda a: a["deal"]["score"].update(seat0_total=95.0), "deal.score.seat0_total", "a whole number, not 95.0"),
    (lambda a: a.update(from_ply=False), "from_ply", "a whole number from 0 to 3, the actions of "
                                                     "deal.position.played, not false"),
    # Mode optimal's best_moves are held as mode all's are: legal actions at the step, each once,
    # the action played among them where it cost nothing
    (lambda a: a["steps"][1].update(best_moves=["ZZ"]), "steps[1].best_moves[0]",
     "one of the legal actions at ply 1 of the record (JS QH JH 8H TD 8C), not 'ZZ'"),
    (lambda a: a["steps"][1].update(best_moves=["8C", "AS"]), "steps[1].best_moves[1]",
     "one of the legal actions at ply 1 of the record (JS QH JH 8H TD 8C), not 'AS'"),     # a card in the stock
    (lambda a: a["steps"][1].update(best_moves=["8C", "JS", "8C"]), "steps[1].best_moves[2]",
     "an action not listed before it in steps[1].best_moves: each optimal action once, not '8C'"),
    (lambda a: a["steps"][1].update(best_moves=["JS", "QH"]), "steps[1].best_moves",
     "the optimal actions, the action played ('8C') among them: it cost nothing, so it was optimal, "
     "not ['JS', 'QH']"),
    (lambda a: a["steps"][1].update(best_moves=[]), "steps[1].best_moves",
     "the optimal actions, the action played ('8C') among them: it cost nothing, so it was optimal, not []"),
    # ... and without the record, each is at least an action of the game, as each step's move is
    (lambda a: (a["deal"].pop("position"), a["steps"][1].update(best_moves=["8C", "ZZ"])), "steps[1].best_moves[1]",
     "an action of mariasz: a card or 'exchange', not 'ZZ'"),
])
def test_an_optimal_analysis_is_held_to_its_record_its_types_and_its_best_moves(race_text, tmp_path, capsys,
                                                                               edit, field, message):
    doc = json.loads(race_text)
    assert doc["mode"] == "optimal" and doc["deal"]["position"]["played"] == ["exchange", "8C", "TH"]
    render(doc)                                        # as the solver wrote it: shown
    edit(doc)
    _refused(doc, field, message, tmp_path, capsys)


@pytest.mark.parametrize("edit, field, message", [
    (lambda a: a["steps"][9]["best_moves"].append(a["steps"][9]["move"]), "steps[9].best_moves",
     "the optimal actions, not the action played ('7H'): it cost 20, and an optimal action costs nothing"),
    (lambda a: a.update(mistakes=[False, 9, 24]), "mistakes[0]", "a ply: a whole number from 0, not false"),
    (lambda a: a.update(mistakes=[0, 9.0, 24]), "mistakes[1]", "a ply: a whole number from 0, not 9.0"),
    (lambda a: a.update(outcome_mistakes=[True]), "outcome_mistakes[0]", "a ply: a whole number from 0, not true"),
    (lambda a: a["final"]["scores"].update(declarer=90.0), "final.scores.declarer", "a whole number, not 90.0"),
    (lambda a: a["final"]["tricks"].update(declarer=True), "final.tricks.declarer", "a whole number, not true"),
    (lambda a: a["final"].update(won=1), "final.won", "true or false, not 1"),
    (lambda a: a["final"]["outcomes"].update(kilo=0), "final.outcomes.kilo", "true or false, not 0"),
])
def test_a_mistake_is_no_best_move_and_plies_scores_and_outcomes_are_of_their_type(seed_optimal_text, tmp_path,
                                                                                   capsys, edit, field, message):
    doc = json.loads(seed_optimal_text)
    assert doc["mode"] == "optimal" and doc["mistakes"] == [0, 9, 24] and doc["steps"][9]["cost"] == 20
    render(doc)
    edit(doc)
    _refused(doc, field, message, tmp_path, capsys)


def test_what_is_held_to_the_record_is_held_to_its_kind_too():
    """Klaverjas's points and roem so far (a game's extras, no field the check knows) are the
    record's: 175.0 or false for a record's 175 or 0 are refused, where Python's == let them by."""
    pos = ddcards.Position.from_dict(ddcards.example("klaverjas"))
    while pos.ply < 24:
        pos = pos.play(pos.legal_moves[0])
    doc = ddcards.analyse(pos.to_dict(), mode="optimal", from_ply=20).to_dict()
    render(doc)
    points, roem = doc["deal"]["points"], doc["deal"]["roem"]
    for key, value, shown in (("points", dict(points, playing=float(points["playing"])),
                               f"'playing': {points['playing']}.0"),
                              ("roem", dict(roem, other=False), "'other': false")):
        with pytest.raises(ddcards.NotationError) as err:
            render(dict(doc, deal=dict(doc["deal"], **{key: value})))
        assert err.value.field == f"deal.{key}" and "as deal.position lays it out at ply 20" in str(err.value)
        assert shown in str(err.value)


def test_a_record_without_played_is_one_of_nothing_played():
    """An analysis of a position with nothing played, its `played` left out (as a position
    document may leave it out): shown, and its deal is held to that record, not let off."""
    doc = ddcards.analyse(dict(ddcards.example("mariasz-race"), played=[])).to_dict()
    assert doc["steps"] == [] and doc["deal"]["position"]["played"] == []
    del doc["deal"]["position"]["played"]
    assert "No card has been played in this record" in render(doc)
    with pytest.raises(ddcards.NotationError) as err:
        render(dict(doc, deal=dict(doc["deal"], to_move=1)))
    assert err.value.field == "deal.to_move" and "0, as deal.position lays it out at ply 0, not 1" in str(err.value)


def test_an_analysis_stopped_on_the_way_and_one_without_its_deal_are_held_to_what_they_say():
    """A stopped analysis (no final solve) shows the steps it has, and says it stopped; a document
    without its deal is held to its game's actions: a Prší analysis relabelled Mariáš is refused
    at its first action that is no card, not drawn as a Mariáš page of Obers and draws."""
    doc = ddcards.analyse(ddcards.example("prsi-endgame")).to_dict()
    stopped = dict(doc, steps=doc["steps"][:5], mistakes=[], outcome_mistakes=[], final=None,
                   final_value=doc["steps"][4]["value_after"])
    page = render(stopped)
    assert page.count('<tr id="ply-') == 5
    # ... and says so at its top, as a page of an analysis that ran out of time does (it read as
    # the whole record's: "after the recorded play it is ...")
    assert ("<strong>Incomplete:</strong> the analysis stopped after ply 4 (the document has no final solve): "
            "this page shows plies 0 to 4; the 9 recorded actions after them are not analysed.") in page
    assert "after ply 4, where the analysis stopped," in page
    assert "Incomplete" not in render(doc)
    del doc["deal"]
    assert render(doc).count('<tr id="ply-') == 14
    with pytest.raises(ddcards.NotationError) as err:
        render(dict(doc, game="marias"))
    assert err.value.field == "steps[0].move" and "an action of marias: a card, not 'QD/C'" in str(err.value)
    shifted = dict(doc, initial_value=4)                 # an outcome is +1, -1 or 0
    with pytest.raises(ddcards.NotationError) as err:
        render(shifted)
    assert err.value.field == "initial_value" and "+1, -1 or 0, an outcome (value_kind outcome), not 4" in \
        str(err.value)
    bad = json.loads(json.dumps(doc))
    bad["steps"][1]["move"] = "jump"
    with pytest.raises(ddcards.NotationError) as err:
        render(bad)
    assert err.value.field == "steps[1].move" and "'QS/H'), 'draw' or 'pass', not 'jump'" in str(err.value)


@pytest.mark.parametrize("where, move", [("move", "QC"), ("move", "7H/S"), ("move", "6H"),
                                         ("best_moves", "QD"), ("best_moves", "KH/S")])
def test_without_its_record_a_prsi_action_is_a_whole_action_of_the_game(where, move):
    """Without the record, an Ober that names no suit ('QC'), a suit named by another card ('7H/S',
    docs/RULES.md §4.1) and a six (not in Prší's deck) were drawn on the page as actions."""
    doc = ddcards.analyse(ddcards.example("prsi-endgame")).to_dict()
    del doc["deal"]
    assert render(doc).count('<tr id="ply-') == 14
    bad = json.loads(json.dumps(doc))
    bad["steps"][3][where] = move if where == "move" else [move]
    field = "steps[3].move" if where == "move" else "steps[3].best_moves[0]"
    with pytest.raises(ddcards.NotationError) as err:
        render(bad)
    assert err.value.field == field
    assert f"an action of prsi: a card, an Ober naming a suit ('QS/H'), 'draw' or 'pass', not '{move}'" in \
        str(err.value)
    ok = json.loads(json.dumps(doc))
    ok["steps"][3]["move"] = " qc/s "                      # case and spaces aside, an Ober naming a suit
    assert render(ok).count('<tr id="ply-') == 14


def test_without_its_record_a_marias_move_is_a_card_of_its_deck(analysis_text):
    """A six is no card of Mariáš's 32-card deck: without the record it was drawn as a move."""
    doc = json.loads(analysis_text)
    del doc["deal"]["position"]
    doc["steps"][3]["move"] = "6H"
    with pytest.raises(ddcards.NotationError) as err:
        render(doc)
    assert err.value.field == "steps[3].move" and "an action of marias: a card, not '6H'" in str(err.value)


def test_a_move_written_another_way_and_a_document_without_its_record_are_shown(analysis_text):
    doc = json.loads(analysis_text)
    doc["steps"][3]["move"] = " ac "                      # case and spaces aside, the recorded AC
    assert 'data-ply="3" data-move=" ac "' in render(doc)
    del doc["deal"]["position"]                           # no record to hold the steps against
    assert "seat 0" in render(doc)
    # a from_ply analysis's steps follow the record from from_ply
    late = ddcards.analyse(deals.seed_deal(), from_ply=25).to_dict()
    late["steps"][0]["ply"] = 0
    with pytest.raises(ddcards.NotationError) as err:
        render(late)
    assert err.value.field == "steps[0].ply" and "25, the steps following" in str(err.value)


@pytest.mark.parametrize("path", ["value_owner", "deal.title", "steps.3.outcome", "steps.2.score.declarer"])
def test_a_lone_surrogate_is_named_by_its_place_and_no_page_is_left(analysis_text, tmp_path, capsys, path):
    """It made the page unwritable as UTF-8: 'internal error' (exit 3) and an empty file left."""
    text = with_raw(analysis_text, path, '"\\ud800"')
    with pytest.raises(ddcards.NotationError) as err:
        render(loads(text))
    where = path.replace(".3.", "[3].").replace(".2.", "[2].")
    assert err.value.field == where and str(err.value).startswith(f"{where}: lone surrogate \\ud800 in text")
    source, page = tmp_path / "an.json", tmp_path / "an.html"
    source.write_text(text)
    code, said = report(capsys, str(source), "-o", str(page))
    assert code == cli.EXIT_BAD_INPUT and "lone surrogate" in said and not page.exists()


def _played_out(doc: dict, rng, plies: int, slip: float = 0.3) -> dict:
    """`doc` with `plies` legal actions recorded (the first legal one, or at random)."""
    pos = ddcards.Position.from_dict(doc)
    for _ in range(plies):
        legal = pos.legal_moves
        if not legal:
            break
        pos = pos.play(rng.choice(legal) if rng.random() < slip else legal[0])
    return pos.to_dict()


def _records() -> list:
    import random

    try:
        from tests.reference import mariasz as ref_mariasz
    except ImportError:  # pytest put tests/ itself on sys.path
        from reference import mariasz as ref_mariasz

    rng = random.Random(20261206)
    money = {"game": "marias", "contract": "hra", "trump": "C", "objective": "money",
             "announcements": ["sedma", "kilo"], "hands": ["T.TK8.T.AKQJ7", "AKJ9.J9.KQJ.9", "Q87.A7.A987.T"],
             "talon": "QH 8C", "flek": 1}
    durch = {"game": "marias", "contract": "durch", "objective": "money", "hands": ["KQT.KJT9.K.J8", "AJ98.Q.QJT.K9",
             "7.A8.A97.AQT7"], "talon": "7H 8D"}
    three = ref_mariasz.random_history(rng, ref_mariasz.random_deal(rng, variant="three", szlifowany=True), 9)
    race = _played_out(dict(ref_mariasz.random_deal(rng, szlifowany=True), objective="race", start_scores=[110, 95]),
                       rng, 14)
    return [
        pytest.param(_played_out(money, rng, 30), 0, id="marias-money"),
        pytest.param(_played_out(durch, rng, 30, slip=0.8), 0, id="marias-durch-money"),
        pytest.param(_played_out(deals.klaverjas_deal(5, "rotterdam"), rng, 32), 12, id="klaverjas-rotterdam"),
        pytest.param(_played_out(deals.klaverjas_deal(6, "amsterdam"), rng, 32, slip=0.8), 20, id="klaverjas-amsterdam"),
        pytest.param(ddcards.example("mariasz-kiks"), 0, id="mariasz-kiks"),
        pytest.param(three, 0, id="mariasz-three"),
        pytest.param(race, 2, id="mariasz-race"),
        pytest.param(ddcards.example("prsi-endgame"), 0, id="prsi-endgame"),
        pytest.param(_played_out(ddcards.example("prsi-4players"), rng, 12, slip=0.5), 4, id="prsi-4players"),
    ]


@pytest.mark.parametrize("doc, from_ply", _records())
def test_every_analysis_the_solver_writes_is_one_the_report_takes(doc, from_ply):
    """The report holds a document to its record (the words on each value, whether an action
    turned them, the final line and where it ends): every analysis the solver writes passes,
    whatever the game, rule set, objective or first ply, and a changed word or a changed end of
    the final line is refused."""
    from ddcards.report.check import check_analysis

    for mode in ("optimal", "all"):
        analysis = json.loads(json.dumps(ddcards.analyse(doc, mode=mode, from_ply=from_ply).to_dict()))
        assert len(analysis["steps"]) == len(doc["played"]) - from_ply > 0 and analysis["final"] is not None
        check_analysis(analysis)
    wrong = dict(analysis, steps=[dict(s) for s in analysis["steps"]])
    wrong["steps"][0]["outcome"] = "seat 9 wins"
    with pytest.raises(ddcards.NotationError) as err:
        check_analysis(wrong)
    assert err.value.field == "steps[0].outcome"
    wrong = dict(analysis, final=dict(analysis["final"], settlement=[s + 1 for s in analysis["final"]["settlement"]]))
    with pytest.raises(ddcards.NotationError) as err:
        check_analysis(wrong)
    assert err.value.field == "final.settlement[0]" and "where final.pv ends" in str(err.value)
