"""Bad input is rejected with a DdcardsError that names the offending token (RULES.md §0).

A matrix of bad position documents through ``ddcards.Position.from_dict`` /
``from_json``: each case states the exception class and a piece of text the message
must contain (the offending token).  A hypothesis test then mutates a valid document
at random and checks that nothing but a DdcardsError (or success) ever comes out —
never a KeyError, TypeError, AttributeError or IndexError.
"""
from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ddcards
from ddcards import (DdcardsError, IllegalPlayError, InvalidCardError, InvalidDealError,
                    InvalidOptionError, NotationError)

START = ddcards.example("marias-hra")     # hearts Hra, seat 0: AT.AKQ9.AT.87, talon 9C KC
SEED = ddcards.example("marias-seed")     # the same deal with the seed's 30 cards played
H0, H1, H2 = START["hands"]              # H1 = KQ.TJ87.KQ.AT, H2 = J987..J987.QJ
BETL = dict(START, contract="betl")
del BETL["trump"]


def doc(base=START, drop=(), **changes):
    d = dict(base, **changes)
    for key in drop:
        d.pop(key, None)
    return d


# seat 0 discards AS instead of 9C: a Hra talon with an ace
ACE_TALON = dict(hands=["T.AKQ9.AT.987", H1, H2], talon="AS KC")
TEN_TALON = dict(hands=["A.AKQ9.AT.987", H1, H2], talon="TS KC")

# (id, document, exception class, text the message must contain)
CASES = [
    # --- notation: cards, ranks, suits
    ("unknown card in talon", doc(talon="9C ZZ"), InvalidCardError, "ZZ"),
    ("unknown rank in card", doc(talon="9C 1C"), InvalidCardError, "1C"),
    ("unknown suit in card", doc(talon="9C 9Z"), InvalidCardError, "9Z"),
    ("unknown rank in hand", doc(hands=["AT.AKQ9.AT.8Z", H1, H2]), InvalidCardError, "Z"),
    ("unknown rank in hand (1)", doc(hands=["AT.AKQ9.AT.81", H1, H2]), InvalidCardError, "1"),
    ("unknown suit in hand list", doc(hands=[["AS", "TS", "AH", "KH", "QH", "9H", "AD", "TD", "8C", "7Z"],
                                             H1, H2]), InvalidCardError, "7Z"),
    ("hand with 3 suits", doc(hands=["AT.AKQ9.AT87", H1, H2]), NotationError, "AT.AKQ9.AT87"),
    ("hand with 5 suits", doc(hands=["AT.AKQ9.AT.87.", H1, H2]), NotationError, "AT.AKQ9.AT.87."),
    ("empty hand", doc(hands=["", H1, H2]), NotationError, "hand"),
    # --- the deal
    ("card in two hands", doc(hands=[H0, H1, "J987..J987.QA"]), InvalidDealError, "AC"),
    ("card in hand and talon", doc(talon="9C AC"), InvalidDealError, "AC"),
    ("card in seat 0 and talon", doc(talon="9C 7C"), InvalidDealError, "7C"),
    ("card twice in one hand", doc(hands=["AAT.AKQ9.AT.87", H1, H2]), NotationError, "AS"),
    ("card twice in a hand list", doc(hands=[["AS", "AS"], H1, H2]), NotationError, "AS"),
    ("hand of 9", doc(hands=["AT.AKQ9.AT.8", H1, H2], talon="9C KC 7C"), InvalidDealError, "hand 0"),
    ("hand of 11", doc(hands=[H0, H1, "J987..J987.QJK"], talon="9C"), InvalidDealError, "hand 2"),
    ("talon of 1", doc(talon="9C"), InvalidDealError, "talon"),
    ("talon of 0", doc(talon=""), InvalidDealError, "talon"),
    ("talon missing", doc(drop=["talon"]), InvalidDealError, "talon"),
    ("hands missing", doc(drop=["hands"]), InvalidDealError, "hands"),
    ("two hands", doc(hands=[H0, H1]), InvalidDealError, "hands"),
    ("four hands", doc(hands=[H0, H1, H2, ""]), InvalidDealError, "hands"),
    ("a six in a hand", doc(hands=["AT.AKQ9.AT.86", H1, H2]), (InvalidDealError, InvalidCardError), "6C"),
    ("a six in the talon", doc(talon="9C 6C", hands=["AT.AKQ9.AT.87", H1, "J987..J987.QJ"]),
     (InvalidDealError, InvalidCardError), "6C"),
    ("ace in a Hra talon", doc(**ACE_TALON), InvalidDealError, "AS"),
    ("ten in a Hra talon", doc(**TEN_TALON), InvalidDealError, "TS"),
    # --- contract, trump, objective
    ("hra without trump", doc(drop=["trump"]), InvalidOptionError, "trump"),
    ("hra with trump null", doc(trump=None), InvalidOptionError, "trump"),
    ("hra with unknown trump", doc(trump="X"), InvalidCardError, "X"),
    ("hra with trump 3", doc(trump=3), InvalidOptionError, "3"),
    ("trump for betl", doc(BETL, trump="H"), InvalidOptionError, "H"),
    ("trump for durch", doc(BETL, contract="durch", trump="S"), InvalidOptionError, "S"),
    ("unknown contract", doc(contract="slam"), InvalidOptionError, "slam"),
    ("contract not a string", doc(contract=5), InvalidOptionError, "5"),
    ("unknown objective", doc(objective="sedmaa"), InvalidOptionError, "sedmaa"),
    ("objective of another contract", doc(objective="durch"), InvalidOptionError, "durch"),
    ("sedma objective for betl", doc(BETL, objective="sedma"), InvalidOptionError, "sedma"),
    ("objective not a string", doc(objective=7), InvalidOptionError, "7"),
    # --- game, fields, options
    ("unknown game", doc(game="bridge"), InvalidOptionError, "bridge"),
    ("game in fullwidth letters", doc(game="ｍａｒｉａｓ"), InvalidOptionError, "ｍａｒｉａｓ"),
    ("game missing", doc(drop=["game"]), InvalidOptionError, "game"),
    ("game not a string", doc(game=7), InvalidOptionError, "game"),
    ("unknown field", doc(stock="7S 8S"), InvalidOptionError, "stock"),
    ("field of another game", doc(playing_team=0), InvalidOptionError, "playing_team"),
    ("unknown option", doc(options={"marriage_on_folow": True}), InvalidOptionError, "marriage_on_folow"),
    ("option of wrong type", doc(options={"marriage_on_follow": "yes"}), InvalidOptionError,
     "marriage_on_follow"),
    ("option value not a choice", doc(options={"talon_points": "declarer"}), InvalidOptionError, "declarer"),
    ("negative stake", doc(options={"sedma_value": -1}), InvalidOptionError, "-1"),
    ("float stake", doc(options={"kilo_value": 1.5}), InvalidOptionError, "kilo_value"),
    ("options not an object", doc(options=[1]), InvalidOptionError, "options"),
    ("options a string", doc(options="marriage_on_follow"), InvalidOptionError, "options"),
    ("marriage_on_follow for betl", doc(BETL, options={"marriage_on_follow": True}), InvalidOptionError,
     "marriage_on_follow"),
    ("talon_points for durch", doc(BETL, contract="durch", options={"talon_points": "nobody"}),
     InvalidOptionError, "talon_points"),
    ("sedma_value for betl", doc(BETL, options={"sedma_value": 2}), InvalidOptionError, "sedma_value"),
    ("flek 3", doc(flek=3), InvalidOptionError, "3"),
    ("flek -1", doc(flek=-1), InvalidOptionError, "-1"),
    ("flek as string", doc(flek="1"), InvalidOptionError, "1"),
    ("flek true", doc(flek=True), InvalidOptionError, "flek takes a whole number, 0, 1 or 2, not true"),
    ("flek 1.0", doc(flek=1.5), InvalidOptionError, "1.5"),
    ("leader 1", doc(leader=1), InvalidOptionError, "1"),
    ("leader 2", doc(leader=2), InvalidOptionError, "2"),
    # --- the history
    ("history: not in hand", doc(played=["TH"]), IllegalPlayError, "TH"),
    ("history: seat 1 plays seat 0's card", doc(played=["QH", "AS"]), IllegalPlayError, "AS"),
    ("history: not following", doc(played=["QH", "KS"]), IllegalPlayError, "must follow suit"),
    ("history: not beating", doc(played=["QH", "JH"]), IllegalPlayError, "must beat"),
    ("history: not beating (2)", doc(played=["QH", "7H"]), IllegalPlayError, "7H"),
    ("history: wrong leader", doc(played=["QH", "TH", "7S", "AH"]), IllegalPlayError, "AH"),
    ("history: talon card", doc(played=["9C"]), IllegalPlayError, "talon"),
    ("history: card played twice", doc(played=["QH", "TH", "7S", "AC", "JC", "7C", "QH"]),
     IllegalPlayError, "QH"),
    ("history: unknown card", doc(played=["QH", "XX"]), InvalidCardError, "XX"),
    ("history: a six", doc(played=["QH", "6H"]), (InvalidCardError, IllegalPlayError), "6H"),
    ("history: number", doc(played=[5]), InvalidCardError, "5"),
    ("history: past the end", doc(played=SEED["played"] + ["AS"]), IllegalPlayError, "AS"),
    ("history: not a list", doc(played={"a": 1}), NotationError, "played"),
    ("history: a number", doc(played=7), NotationError, "played"),
    # --- wrong types
    ("hands a string", doc(hands=H0), InvalidDealError, "hands"),
    ("hands an object", doc(hands={"0": H0}), InvalidDealError, "hands"),
    ("hands a number", doc(hands=3), InvalidDealError, "hands"),
    ("hand a number", doc(hands=[5, H1, H2]), NotationError, "hand 0"),
    ("hand null", doc(hands=[None, H1, H2]), NotationError, "hand 0 is not a hand: null"),
    ("hand an object", doc(hands=[{"S": "AT"}, H1, H2]), NotationError, "hand 0"),
    ("hand list of numbers", doc(hands=[[1, 2], H1, H2]), InvalidCardError, "1"),
    ("talon a number", doc(talon=5), NotationError, "talon"),
    ("talon null: missing", doc(talon=None), InvalidDealError, "talon"),     # null reads as absent
    ("talon an object", doc(talon={"a": "9C"}), NotationError, "talon"),
]


@pytest.mark.parametrize("label,document,exc,needle", CASES, ids=[c[0] for c in CASES])
def test_bad_document(label, document, exc, needle):
    with pytest.raises(DdcardsError) as info:
        ddcards.Position.from_dict(document)
    err = info.value
    assert isinstance(err, exc), f"{label}: got {type(err).__name__}: {err}"
    assert isinstance(err, ValueError)
    assert needle in str(err), f"{label}: {needle!r} not in {str(err)!r}"
    assert err.token is not None and err.rule, f"{label}: token={err.token!r} rule={err.rule!r}"
    # the same document as JSON text fails the same way
    with pytest.raises(type(err)):
        ddcards.Position.from_json(json.dumps(document))


@pytest.mark.parametrize("document,token,field", [
    (doc(options={"sedma_value": "x"}), "x", "options.sedma_value"),
    (doc(options={"marriage_on_follow": "yes"}), "yes", "options.marriage_on_follow"),
    (doc(hands=5), "5", "hands"),
    (doc(trump="X"), "X", "trump"),
])
def test_the_token_is_the_text_given_and_the_field_says_where(document, token, field):
    # The token is what the document wrote, not the field's name (that is `field`).
    with pytest.raises(DdcardsError) as info:
        ddcards.Position.from_dict(document)
    assert (info.value.token, info.value.field) == (token, field)


def test_error_hierarchy():
    for cls in (NotationError, InvalidCardError, InvalidDealError, IllegalPlayError, InvalidOptionError):
        assert issubclass(cls, DdcardsError) and issubclass(cls, ValueError)
    assert issubclass(InvalidCardError, NotationError)
    assert issubclass(ddcards.SearchCancelled, ddcards.SearchAborted)
    assert issubclass(ddcards.SearchTimeout, ddcards.SearchAborted)
    assert not issubclass(ddcards.SearchAborted, ValueError)


def test_a_stopped_search_says_its_progress_once_and_where():
    # The message keeps why the search stopped and says the latest progress after "by then", with
    # the search it is of when the call ran several (a DD table's row); told twice, not repeated.
    from ddcards.result import SearchProgress
    exc = ddcards.SearchTimeout("the search ran out of time after 1,000 nodes")
    exc.tell_progress(SearchProgress(answered=1, moves=3, value=4, move="AS", at_least=True))
    assert str(exc) == "the search ran out of time after 1,000 nodes; by then 1 of 3 distinct first moves answered, value >= +4 (AS)"
    exc.tell_progress(exc.progress, "in the row trump S, playing team 0")
    assert str(exc) == ("the search ran out of time after 1,000 nodes; by then, in the row trump S, playing team 0: "
                        "1 of 3 distinct first moves answered, value >= +4 (AS)")
    assert exc.progress.value == 4 and exc.progress.at_least


def test_history_error_names_the_ply_and_seat():
    with pytest.raises(IllegalPlayError) as info:
        ddcards.Position.from_dict(doc(played=["QH", "JH"]))
    msg = str(info.value)
    assert info.value.token == "JH"
    assert "played[1]" in msg and "seat 1" in msg and "QH" in msg
    assert "TH" in msg                      # the legal alternative is listed


@pytest.mark.parametrize("name", ["marias-hra", "klaverjas", "mariasz", "prsi"])
def test_a_hand_of_the_cards_left_says_hands_are_as_dealt(name):
    """The commonest hand-size slip — the cards left given after some play — gets the way out
    (RULES §0.5 rule 4); a hand too long does not."""
    short = ddcards.example(name)
    cards = short["hands"][0]
    short["hands"] = [cards[:-1] if cards[-1] != "." else cards[:-2] + "."] + short["hands"][1:]
    with pytest.raises(InvalidDealError) as info:
        ddcards.Position.from_dict(short)
    assert "as dealt, whatever has been played since" in str(info.value)
    assert "list them in 'played'" in str(info.value) and info.value.field == "hands[0]"


def test_a_deal_as_dealt_given_to_solve_says_to_discard_or_ask_the_table():
    """Forehand's 12 cards and no talon - the document `ddcards table` takes - was answered only
    "Mariáš needs the talon", not what to do with the 12 cards."""
    dealt = {"game": "marias", "trump": "H", "hands": ["AT.AKQ9.AT.K987", H1, H2]}
    with pytest.raises(InvalidDealError) as info:
        ddcards.Position.from_dict(dealt)
    assert "forehand (hand 0) holds 12 cards, the deal as dealt; put his 2 discards in 'talon'" in str(info.value)
    assert "the contract table (`ddcards table`, dd_table)" in str(info.value) and info.value.field == "talon"
    assert len(ddcards.dd_table(dealt)["entries"]) == 216      # which the table takes
    # ten cards and no talon: only that the talon is missing
    with pytest.raises(InvalidDealError, match=r"^Mariáš needs the talon \(field 'talon'; docs/RULES.md §1.3"):
        ddcards.Position.from_dict(doc(drop=("talon",)))


def test_valid_variants_are_accepted():
    # Aces and tens may be discarded in Betl and Durch.
    betl = doc(BETL, **ACE_TALON)
    assert ddcards.Position.from_dict(betl).to_move == 0
    assert ddcards.Position.from_dict(dict(betl, contract="durch")).to_move == 0
    assert ddcards.Position.from_dict(doc(BETL, **TEN_TALON)).to_move == 0
    # Aliases and canonical forms
    p = ddcards.Position.from_dict(doc(game="Mariáš", contract="HRA", trump="♥",
                                      talon=["9C", "KC"], played="QH TH"))
    assert p.to_dict()["trump"] == "H" and p.to_dict()["played"] == ["QH", "TH"]
    assert ddcards.Position.from_dict(doc(trump="hearts")).to_dict()["trump"] == "H"
    assert ddcards.Position.from_dict(doc(leader=0, flek=2)).to_dict()["flek"] == 2


@pytest.mark.parametrize("text", ["{not json", "", "{\"game\": \"marias\",}", "[1, 2", "nul", "{\"game\": \"mar"])
def test_json_that_does_not_parse(text):
    with pytest.raises(NotationError) as info:
        ddcards.Position.from_json(text)
    assert "JSON" in str(info.value)
    # the token is the text near where it stops, which the message quotes, and the rule JSON's
    assert info.value.token in text and str(info.value).endswith(f"(near {info.value.token!r})")
    assert info.value.rule == "docs/RULES.md §0.11 rule 1: a document is one JSON value (RFC 8259) in UTF-8"
    assert " at at " not in str(info.value)     # json's "Unterminated string starting at", then the place


def test_a_truncated_document_names_where_its_string_starts():
    with pytest.raises(NotationError) as info:
        ddcards.Position.from_json('{"game": "mar')
    assert str(info.value).startswith("a position document is not valid JSON: Unterminated string starting at "
                                      "line 1 column 10 (near ")


@pytest.mark.parametrize("value,typename", [([1, 2], "not an array"), ("marias", "not text"), (None, "not null"),
                                            (5, "not a number"), (3.5, "not a number")])
def test_non_object_input(value, typename):
    # in JSON's words, as the document is JSON (it said 'NoneType', 'str')
    with pytest.raises(NotationError) as info:
        ddcards.Position.from_dict(value)
    assert typename in str(info.value)
    with pytest.raises(NotationError) as info:
        ddcards.Position.from_json(json.dumps(value))
    assert typename in str(info.value)
    # a DD table says it alike: one message for "not a position", whoever reads the document
    with pytest.raises(NotationError) as table_info:
        dd_table(value if not isinstance(value, str) else json.dumps(value))
    assert str(table_info.value) == str(info.value) and table_info.value.token == info.value.token


# The next three are bugs: from_json lets non-DdcardsError exceptions escape.

@pytest.mark.parametrize("value", [5, None])
def test_from_json_of_a_non_string_is_a_notation_error(value):
    # got: TypeError("the JSON object must be str, bytes or bytearray, not int")
    with pytest.raises(NotationError):
        ddcards.Position.from_json(value)


def test_from_json_of_deeply_nested_json_is_a_notation_error():
    # got: RecursionError from json.loads
    with pytest.raises(DdcardsError):
        ddcards.Position.from_json("[" * 100_000 + "]" * 100_000)


def test_from_json_of_undecodable_bytes_is_a_notation_error():
    # got: UnicodeDecodeError (a ValueError, but not a DdcardsError)
    with pytest.raises(NotationError):
        ddcards.Position.from_json(b"\xff\xfe{")


# Bug: wrong-typed falsy values are silently replaced by the default ("never a silent fix").

@pytest.mark.parametrize("changes", [
    {"objective": 0}, {"objective": []}, {"options": []}, {"options": False},
], ids=lambda c: json.dumps(c))
def test_wrong_typed_falsy_fields_are_rejected(changes):
    with pytest.raises(InvalidOptionError):
        ddcards.Position.from_dict(doc(**changes))


def test_solve_with_unknown_mode():
    with pytest.raises(InvalidOptionError) as info:
        ddcards.solve(START, mode="bogus")
    assert "bogus" in str(info.value) and info.value.token == "bogus"
    with pytest.raises(InvalidOptionError):
        ddcards.Solver().solve(SEED, mode="everything")
    with pytest.raises(InvalidOptionError):
        ddcards.solve(START, mode=None)


def test_solve_and_analyse_validate_their_input():
    with pytest.raises(NotationError):
        ddcards.solve("{")
    with pytest.raises(InvalidDealError):
        ddcards.solve(doc(talon="9C"))
    with pytest.raises(IllegalPlayError):
        ddcards.analyse(doc(played=["QH", "JH"]))
    with pytest.raises(InvalidOptionError):
        ddcards.find_game("bridge")
    with pytest.raises(InvalidOptionError):
        ddcards.example("no-such-example")


def test_play_validates_its_move():
    p = ddcards.Position.from_dict(START)
    with pytest.raises(InvalidCardError) as info:
        p.play("QQ")
    assert "QQ" in str(info.value)
    with pytest.raises(IllegalPlayError):
        p.play("TH")
    finished = ddcards.Position.from_dict(SEED)
    with pytest.raises(IllegalPlayError) as info:
        finished.play("AS")
    assert "over" in str(info.value)


# --------------------------------------------------------------------------- fuzz

CARD_TOKENS = [r + s for s in "SHDC" for r in "AKQJT9876"] + ["10H", "OH", "UH", "XS", "T♥", "a♠", "", " "]
KEYS = ["game", "hands", "talon", "contract", "trump", "objective", "flek", "options", "played", "leader",
        "stock", "upcard", "rules"]
json_leaf = (st.none() | st.booleans() | st.integers(-3, 40) | st.floats(allow_nan=True)
             | st.text(max_size=10)
             | st.sampled_from(CARD_TOKENS + ["hra", "betl", "durch", "sedma", "kilo", "H", "S", "marias"]))
json_value = st.recursive(json_leaf, lambda inner: st.lists(inner, max_size=4)
                          | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=8)
hand_text = st.text(alphabet="AKQJT98761024XUO.SHDC♠♥ ,", max_size=20)
option_names = st.sampled_from(["marriage_on_follow", "talon_points", "sedma_value", "kilo_value", "x"])


@st.composite
def mutated_documents(draw):
    d = json.loads(json.dumps(draw(st.sampled_from([START, SEED, BETL]))))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.integers(0, 6))
        key = draw(st.sampled_from(KEYS))
        if kind == 0:
            d.pop(key, None)
        elif kind == 1:
            d[key] = draw(json_value)
        elif kind == 2:
            d["hands"] = [draw(hand_text | json_value) for _ in range(draw(st.integers(0, 4)))]
        elif kind == 3:
            d["played"] = draw(st.lists(st.sampled_from(CARD_TOKENS) | st.text(max_size=4) | json_leaf,
                                        max_size=8))
        elif kind == 4:
            d["played"] = (SEED["played"][:draw(st.integers(0, 30))]
                           + draw(st.lists(st.sampled_from(CARD_TOKENS), max_size=3)))
        elif kind == 5:
            d["options"] = draw(st.dictionaries(option_names, json_leaf, max_size=3))
        else:
            d["talon"] = draw(st.lists(st.sampled_from(CARD_TOKENS), max_size=3) | hand_text)
    return d


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(mutated_documents())
def test_mutated_documents_raise_only_ddcards_errors(document):
    try:
        p = ddcards.Position.from_dict(document)
    except DdcardsError as err:
        # a message, the offending token and the rule it breaks
        assert str(err) and err.token is not None and err.rule
        return
    # accepted: the position must be usable
    p.to_dict()
    assert p.legal_moves or p.is_over
    again = ddcards.Position.from_json(p.to_json())
    assert again == p


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.text(max_size=60) | json_value.map(json.dumps))
def test_random_json_text_raises_only_ddcards_errors(text):
    try:
        ddcards.Position.from_json(text)
    except DdcardsError:
        pass


# --------------------------------------------------------------------------- issue 10: hostile documents
# Each failed before issue 10 with a ValueError, RecursionError or TypeError, or a message
# that could not be printed.

from ddcards._jsonio import MAX_DEPTH, check_limits, shown          # noqa: E402
from ddcards.ddtable import dd_table                                  # noqa: E402
from ddcards.games._document import OPTION_RANGE_RULE, STAKE_RANGE_RULE  # noqa: E402

KLAVERJAS = ddcards.example("klaverjas")
HUGE_TEXT = "1" * 5000


def _nested(levels, inner="AS"):
    for _ in range(levels):
        inner = [inner]
    return inner


@pytest.mark.parametrize("field", ["flek", "leader", "contract", "trump", "objective", "talon", "played", "game"])
def test_a_number_of_5000_digits_in_any_field(field):
    text = json.dumps(doc()).replace("{", '{"%s": %s, ' % (field, HUGE_TEXT), 1) if field not in START else \
        json.dumps(doc(**{field: 0})).replace(f'"{field}": 0', f'"{field}": {HUGE_TEXT}')
    with pytest.raises(DdcardsError) as info:
        ddcards.Position.from_json(text)
    assert "111111111111… (5,000 digits)" in str(info.value), str(info.value)
    # the same number as a Python int through from_dict: the message is built, not a ValueError
    with pytest.raises(DdcardsError) as info:
        ddcards.Position.from_dict(doc(**{field: 10 ** 5000}))
    assert "digits" in str(info.value) and len(str(info.value)) < 200


@pytest.mark.parametrize("literal", ["1e400", "-1E+999", "9.9e99999"])
def test_a_number_no_float_holds_is_named_as_written(literal):
    """Python reads 1e400 as inf: the message quotes the number given, not 'inf'."""
    for name, where in (("leader", "leader"), ("flek", "flek")):
        with pytest.raises(NotationError) as info:
            ddcards.Position.from_json(json.dumps(doc(**{name: 0})).replace(f'"{name}": 0', f'"{name}": {literal}'))
        assert str(info.value).startswith(f"{where}: {literal} is far out of the range of any field")
        assert info.value.token == literal and info.value.field == where and "inf" not in str(info.value)


def test_a_game_name_that_is_not_valid_unicode_is_named_so():
    with pytest.raises(NotationError) as info:
        ddcards.Position.from_json('{"game": "prsi\\ud800"}')
    assert "game: lone surrogate \\ud800 in text" in str(info.value) and info.value.field == "game"


def test_huge_numbers_inside_lists_and_options():
    for bad in (doc(hands=[10 ** 5000, H1, H2]), doc(played=["QH", -10 ** 5000]),
                doc(options={"sedma_value": 10 ** 5000}), doc(options={10 ** 5000: 1})):
        with pytest.raises(NotationError) as info:
            ddcards.Position.from_dict(bad)
        assert "digits" in str(info.value)


def test_deep_nesting_never_overflows():
    with pytest.raises(NotationError) as info:
        ddcards.Position.from_dict(doc(hands=_nested(990)))
    assert str(info.value).startswith("hands[0]") and f"nested more than {MAX_DEPTH} levels deep" in str(info.value)
    text = json.dumps(doc()).replace(json.dumps(START["hands"]), "[" * 990 + "]" * 990)
    with pytest.raises(NotationError) as info:
        ddcards.Position.from_json(text)
    assert f"JSON nested more than {MAX_DEPTH} levels deep" in str(info.value)
    with pytest.raises(NotationError):
        ddcards.Position.from_dict(_nested(5000, {}))                # not a document at all
    with pytest.raises(NotationError):
        ddcards.solve("[" * 100_000)


@pytest.mark.parametrize("text", ['{"game": "\\ud800"}', '{"game": "marias", "trump": "\\udfff"}',
                                  '{"game": "marias", "\\ud800": 1}'])
def test_lone_surrogates_give_printable_errors(text):
    with pytest.raises(DdcardsError) as info:
        ddcards.Position.from_json(text)
    str(info.value).encode("utf-8")
    str(info.value.token).encode("utf-8")
    assert "\\ud800" in str(info.value) or "\\udfff" in str(info.value)


def test_strict_json():
    for text, needle in [('{"game": "marias", "flek": NaN}', "NaN is not a JSON number"),
                         ('{"game": "marias", "flek": -Infinity}', "-Infinity is not a JSON number"),
                         ('{"game": "marias", "game": "klaverjas"}', "key 'game' appears twice"),
                         ('{"game": "marias"} {"game": "marias"}', "more than one JSON value")]:
        with pytest.raises(NotationError) as info:
            ddcards.Position.from_json(text)
        assert needle in str(info.value) and info.value.token is not None


def test_undecodable_bytes_name_the_byte():
    with pytest.raises(NotationError) as info:
        ddcards.Position.from_json(b'{"game": "mari\xe1s"}')
    assert str(info.value) == ("a position document is not UTF-8 text: byte 15 (0xe1) starts a character that "
                               "the next byte does not continue")
    assert info.value.token == "0xe1"


@pytest.mark.parametrize("name,value", [("sedma_value", 2 ** 31), ("kilo_value", 2 ** 62),
                                        ("kilo_value", 1_000_001), ("sedma_value", -1)])
def test_stakes_out_of_range_are_rejected_with_the_range(name, value):
    objective = name.split("_")[0]
    with pytest.raises(InvalidOptionError) as info:
        ddcards.Position.from_dict(doc(objective=objective, options={name: value}))
    why = "is too small" if value < 0 else "is too large"
    assert str(info.value) == (f"option '{name}' {why}: it is a stake, a whole number from 0 to 1,000,000, not "
                               f"{value} ({STAKE_RANGE_RULE})")
    assert info.value.rule == STAKE_RANGE_RULE and info.value.token == str(value)
    assert info.value.field == f"options.{name}"


@pytest.mark.parametrize("game_doc,option,value,why,meaning,low,high", [
    ("prsi", "horizon", 0, "is too small", "the plies searched", 1, 250),
    ("prsi", "horizon", 251, "is too large", "the plies searched", 1, 250),
    # outside the example's two seats: the deal's range, not the option's 0..5 (commit f7474ec)
    ("prsi", "player", 9, "is too large", "the seat whose value is reported", 0, "1 with 2 players"),
    ("prsi", "player", -1, "is too small", "the seat whose value is reported", 0, "1 with 2 players"),
    ("mariasz-three", "player", 3, "is too large", "the seat solved for (three players)", 0, 2),
])
def test_option_ranges_say_too_small_or_too_large_and_their_own_range(game_doc, option, value, why, meaning, low,
                                                                      high):
    # Not a stake: the message gives the option's own range and meaning, the rule no stake range.
    document = ddcards.example(game_doc)
    document["options"] = {**document.get("options", {}), option: value}
    with pytest.raises(InvalidOptionError) as info:
        ddcards.Position.from_dict(document)
    assert str(info.value) == (f"option '{option}' {why}: it is {meaning}, a whole number from {low} to {high}, "
                               f"not {value} ({OPTION_RANGE_RULE})")
    assert info.value.rule == OPTION_RANGE_RULE and "stake" not in info.value.rule
    assert info.value.token == str(value) and info.value.field == f"options.{option}"


@pytest.mark.parametrize("option,value,words", [("horizon", "20", "a whole number"), ("play_on", 1, "true or false")])
def test_an_option_of_the_wrong_type_names_the_type_in_words(option, value, words):
    with pytest.raises(InvalidOptionError) as info:
        ddcards.Position.from_dict(dict(ddcards.example("prsi"), options={option: value}))
    assert str(info.value).startswith(f"option '{option}' takes {words}, not {value!r} (")
    assert info.value.field == f"options.{option}"


def test_the_largest_stakes_settle_inside_32_bits():
    res = ddcards.solve(doc(objective="kilo", flek=2, options={"kilo_value": 1_000_000}), mode="best")
    assert max(abs(v) for v in res.settlement) == 2 * 1_000_000 * 2 * 4 < 2 ** 31


@pytest.mark.parametrize("played,cls,needle", [
    (5, NotationError, "played must be a list of cards, not 5"),
    (True, NotationError, "not true"), (1.5, NotationError, "not 1.5"),
    ({"x": 1}, NotationError, "not {'x': 1}"),
    ("AS", InvalidOptionError, "1 card(s) are already played, from played[0] 'AS'"),
    ("AS KS", InvalidOptionError, "2 card(s) are already played, from played[0] 'AS'"),
    (["ZZ"], InvalidCardError, "ZZ"),
])
def test_dd_table_reads_the_history_like_a_position(played, cls, needle):
    with pytest.raises(cls) as info:
        dd_table(dict(KLAVERJAS, played=played))
    assert needle in str(info.value) and info.value.rule


def test_dd_table_of_bad_json_and_unknown_fields():
    with pytest.raises(NotationError):
        dd_table('{"game": "klaverjas", "hands": ' + "[" * 990)
    with pytest.raises(InvalidOptionError) as info:
        dd_table(dict(KLAVERJAS, stock="7S"))
    assert info.value.token == "stock"
    with pytest.raises(InvalidOptionError):
        dd_table(dict(KLAVERJAS, contract="slam"))          # validated, not dropped


class _Hostile:
    def __repr__(self):
        raise RuntimeError("no repr")


@pytest.mark.parametrize("value", [10 ** 5000, -10 ** 5000, 10 ** 40, "x" * 10 ** 6, "\ud800", _nested(5000),
                                   {i: i for i in range(100)}, b"\xff" * 100, _Hostile(), float("nan")],
                         ids=["huge", "-huge", "40 digits", "1 MB text", "surrogate", "deep", "dict", "bytes",
                              "hostile repr", "nan"])
def test_shown_is_short_and_never_raises(value):
    text = shown(value)
    assert len(text) < 120
    text.encode("utf-8")


def test_limits_gate_accepts_every_example():
    for name in ddcards.example_names():
        check_limits(ddcards.example(name))


# Every game reads its history alike: a bad history, a bad action and an illegal one name the
# field they sit in (the service's ErrorInfo carries it), and Card objects are cards.
HISTORY_CASES = [   # (example, a history whose action at ply 1 is illegal, a legal history of Cards)
    ("marias-hra", ["QH", "7H"], ["QH", "TH"]),
    ("klaverjas", ["9D", "AS"], ["9D", "JD"]),
    ("mariasz-szlifowany", ["exchange", "6S"], ["exchange", "KC"]),
    ("prsi", ["QS/D", "AS"], ["QS/D", "draw"]),
]


@pytest.mark.parametrize("example,illegal,legal", HISTORY_CASES, ids=[c[0] for c in HISTORY_CASES])
def test_every_game_names_the_history_field_at_fault(example, illegal, legal):
    doc = ddcards.example(example)
    for played, field in ((5, "played"), ([legal[0], 5], "played[1]"), ([legal[0], "ZZ"], "played[1]"),
                          (illegal, "played[1]")):
        with pytest.raises(DdcardsError) as info:
            ddcards.Position.from_dict(dict(doc, played=played))
        assert info.value.field == field, (played, info.value)
    with pytest.raises(ddcards.IllegalPlayError) as info:
        ddcards.Position.from_dict(dict(doc, played=illegal[:1])).play(illegal[1])
    assert info.value.field == "played[1]" and info.value.token == illegal[1]
    as_cards = [ddcards.Card.parse(m) if m not in ("exchange", "draw") and "/" not in m else m for m in legal]
    assert ddcards.Position.from_dict(dict(doc, played=as_cards)).played == tuple(legal)


FIELD_CASES = [     # (example, changes to its document, the field the error names)
    ("marias-hra", {"hands": ["AT.AKQ9.AT.87", "KQ.TJ87.KQ.AT", "J987..J987.QZ"]}, "hands[2]"),
    ("marias-hra", {"talon": "9C ZZ"}, "talon"),
    ("marias-hra", {"talon": "QC 6C"}, "talon"),           # QC dealt twice: where it repeats
    ("marias-hra", {"hands": ["AT.AKQ9.AT.87", "AS.TJ87.KQ.AT", "J987..J987.QJ"]}, "hands[1]"),
    ("mariasz-szlifowany", {"stock": "TC TC KS 6S TH KD JH AC QH AS JD KC"}, "stock"),
    ("prsi", {"upcard": "8C"}, "stock"),                    # 8C also in the stock
    ("marias-hra", {"trump": "X"}, "trump"),
    ("marias-hra", {"announcements": ["x"]}, "announcements[0]"),
    ("klaverjas", {"hands": ["AKQJ.T987..", "x", "", ""]}, "hands[1]"),
    ("klaverjas", {"trump": "X"}, "trump"),
    ("mariasz-szlifowany", {"hands": ["T..QT6.KZ", "Q.AK6..J6"]}, "hands[0]"),
    ("mariasz-szlifowany", {"stock": "TC ZZ"}, "stock"),
    ("mariasz-szlifowany", {"stock": "TC JS KS 6S TH KD JH AC QH AS JD 7D"}, "stock"),   # 7D: not szlifowany
    ("mariasz-szlifowany", {"trump": "X"}, "trump"),
    ("mariasz-szlifowany", {"objective": "x"}, "objective"),
    ("mariasz-szlifowany", {"objective": "race", "start_scores": [1, "a"]}, "start_scores[1]"),
    ("mariasz-szlifowany", {"leader": 9}, "leader"),
    ("prsi", {"hands": ["QS 7H AD TZ", "x"]}, "hands[0]"),
    ("prsi", {"upcard": "7H 8H"}, "upcard"),
    ("prsi", {"leader": 9}, "leader"),
]


@pytest.mark.parametrize("example,changes,field", FIELD_CASES, ids=[f"{c[0]}-{c[2]}" for c in FIELD_CASES])
def test_every_game_names_the_field_at_fault(example, changes, field):
    with pytest.raises(DdcardsError) as info:
        ddcards.Position.from_dict(dict(ddcards.example(example), **changes))
    assert info.value.field == field, info.value


def test_a_card_twice_in_one_place_says_so():
    doc = dict(ddcards.example("mariasz-szlifowany"), stock="TC TC KS 6S TH KD JH AC QH AS JD KC")
    with pytest.raises(ddcards.InvalidDealError, match=r"^card 'TC' is in the stock twice \(docs/RULES.md §3.2"):
        ddcards.Position.from_dict(doc)
    doc = dict(ddcards.example("klaverjas"), hands=["AKQJ.T987..", "AKQJ.T987..", "...", "..."])
    with pytest.raises(ddcards.InvalidDealError, match=r"^card 'AS' is dealt twice, in hand 0 and hand 1 ") as err:
        ddcards.Position.from_dict(doc)
    assert err.value.field == "hands[1]"


@pytest.mark.parametrize("name, option, given, canonical", [
    ("marias-hra", "talon_points", "NOBODY", "nobody"),
    ("mariasz-kiks", "variant", " Kiks ", "kiks"),
])
def test_an_option_word_reads_in_any_case_as_the_other_words_do(name, option, given, canonical):
    """Contract, objective and rules read in any case; an option's word did not ('NOBODY' was
    refused).  The canonical document writes it in lower case."""
    doc = ddcards.example(name)
    pos = ddcards.Position.from_dict(dict(doc, options=dict(doc.get("options", {}), **{option: given})))
    assert pos.to_dict()["options"][option] == canonical
    with pytest.raises(ddcards.InvalidOptionError, match=f"option '{option}' is one of"):
        ddcards.Position.from_dict(dict(doc, options=dict(doc.get("options", {}), **{option: "nobodyy"})))


def test_a_marias_contract_and_objective_read_with_spaces_around_them_as_the_other_games_do():
    """Mariáš read its contract and objective in any case but not with a space around them, where
    Klaverjas and Mariasz strip it: "Hra " was refused as an objective that "does not apply to hra"."""
    pos = ddcards.Position.from_dict(doc(contract=" Hra ", objective="kilo "))
    assert pos.contract == "hra" and pos.to_dict()["objective"] == "kilo"
    assert ddcards.solve(doc(objective=" Hra"), mode="best").value == 70
    table = ddcards.dd_table(dict(START, contract=" betl ", objective=" money"))
    assert len(table["entries"]) == 6             # the chosen fields are still only checked
    with pytest.raises(InvalidOptionError, match="objective 'hraa' does not apply to hra"):
        ddcards.Position.from_dict(doc(objective="hraa"))


def test_a_document_of_lists_each_within_the_limit_but_too_many_items_in_all_is_refused():
    """1,990 lists of 1,000 numbers: every list within 2,000 items, 2 million in all (checking them
    took seconds); the total is capped as the lists are (docs/RULES.md §0.11 rule 2)."""
    from ddcards._jsonio import check_limits

    with pytest.raises(NotationError) as info:
        check_limits({"game": "marias", "hands": [[0] * 1000] * 1990})
    assert "over 10,000 items in the arrays and objects of a position document together" in str(info.value)
    check_limits({"game": "prsi", "played": ["draw"] * 1748, "hands": [["7H"] * 5] * 6})   # the largest in use


@pytest.mark.parametrize("name", ["x" * 3_000_000, " " * 3_000_000 + "marias", "marias" + " " * 995])
def test_a_game_name_over_the_text_limit_is_refused_before_it_is_looked_up(name):
    """As any text of a document (RULES §0.11 rule 2), and first: a 3 MB name was case-folded in
    full (0.3 s) before it was refused as unknown."""
    with pytest.raises(NotationError) as info:
        ddcards.Position.from_dict(dict(START, game=name))
    assert str(info.value).startswith(f"game: text of {len(name):,} characters; a text of a position document "
                                      "holds at most 1,000 (docs/RULES.md §0.11 rule 2)")
    assert info.value.field == "game"
    with pytest.raises(NotationError):
        ddcards.find_game(name)


def test_a_game_name_within_the_limit_is_found_with_blanks_around_it():
    assert ddcards.Position.from_dict(dict(START, game=" Marias ")).game == "marias"
    assert ddcards.find_game("marias" + " " * 994).name == "marias"      # 1,000 characters
    with pytest.raises(InvalidOptionError, match="unknown game"):
        ddcards.Position.from_dict(dict(START, game="x" * 1000))


# A document is JSON: a message names its values in JSON's words (true, null), not Python's.
@pytest.mark.parametrize("document,needle", [
    (dict(START, flek=True), "flek takes a whole number, 0, 1 or 2, not true (docs/RULES.md §1.2 rule 5"),
    (dict(START, flek="1"), "flek takes a whole number, 0, 1 or 2, not '1' (docs/RULES.md §1.2 rule 5"),
    (dict(START, flek=3), "flek 3 is not 0, 1 or 2 (docs/RULES.md §1.2 rule 5"),
    # a leader of another type is told so, as flek's is (it said "leader true: only seat 0 leads")
    (dict(START, leader=True), "leader takes a whole number, 0 (only seat 0 leads in Mariáš), not true"),
    (dict(START, leader="0"), "leader takes a whole number, 0 (only seat 0 leads in Mariáš), not '0'"),
    (dict(START, leader=0.0), "leader takes a whole number, 0 (only seat 0 leads in Mariáš), not 0.0"),
    (dict(START, leader=1), "leader 1: only seat 0 leads in Mariáš"),
    (dict(START, id=True), "id must be text of at most 256 characters or a whole number of at most 30 digits, "
                           "not true"),
    (dict(ddcards.example("mariasz"), leader=False), "leader must be a seat 0..1, not false"),
    (dict(ddcards.example("mariasz"), options={"player": None}), "option 'player' takes a whole number, not null"),
    (dict(ddcards.example("klaverjas"), trump=False), 'trump must be a suit such as "H", not false'),
    (dict(ddcards.example("prsi"), hands=True), "give 2 to 6 hands (field 'hands'), not true"),
])
def test_messages_name_values_as_json_writes_them(document, needle):
    with pytest.raises(DdcardsError) as info:
        if "id" in document:
            ddcards._jsonio.check_id(document["id"])
        ddcards.Position.from_dict(document)
    assert needle in str(info.value), str(info.value)
    assert "True" not in str(info.value) and "None" not in str(info.value) and "False" not in str(info.value)


@pytest.mark.parametrize("game,needle", [
    ("prsi", "Prší needs the hands (field 'hands', missing: 2 to 6 of them, one per player; docs/RULES.md §4.1"),
    ("mariasz", "Mariasz needs its 2 hands (field 'hands', missing; docs/RULES.md §0.6 rule 3"),
    ("marias-hra", "Mariáš needs its 3 hands (field 'hands', missing; docs/RULES.md §0.6 rule 3"),
])
@pytest.mark.parametrize("how", ["left out", "null"])
def test_hands_left_out_or_null_are_said_to_be_missing(game, needle, how):
    document = {k: v for k, v in ddcards.example(game).items() if k != "hands"}
    if how == "null":                      # null reads as left out (docs/RULES.md §0.6 rule 6)
        document["hands"] = None
    with pytest.raises(InvalidDealError) as info:
        ddcards.Position.from_dict(document)
    assert str(info.value).startswith(needle) and info.value.field == "hands"


def test_playing_on_after_a_race_claim_names_the_side_as_every_message_does():
    race = dict(ddcards.example("mariasz-race"), played="exchange 8C TH 7S QH 9S TS 7C TC 6C JC KD QD")
    with pytest.raises(IllegalPlayError) as info:
        ddcards.Position.from_dict(race)
    assert str(info.value) == ("played[12] 'QD': the deal is over: seat 1 reached 131 and claimed "
                               "(docs/RULES.md §3.8: a race ends at the claim: nothing is played after it)")
    assert info.value.rule == "docs/RULES.md §3.8: a race ends at the claim: nothing is played after it"
    race["played"] = "exchange 8C TH 7S QH 9S TS 7C TC 6C JC KD exchange"
    with pytest.raises(IllegalPlayError, match=r"seat 1 reached 131 and claimed \(docs/RULES.md §3.8[^()]*\)$"):
        ddcards.Position.from_dict(race)
    kiks = dict(ddcards.example("mariasz-kiks"), objective="race", start_scores=[100, 110])  # its play: 5 cards
    with pytest.raises(IllegalPlayError) as info:
        ddcards.Position.from_dict(kiks)
    assert "the deal is over: team 1 reached 131 and claimed (docs/RULES.md §3.8" in str(info.value)
    assert str(info.value).count("(docs/RULES.md") == 1


@pytest.mark.parametrize("game, said", [("marias", "Mariáš needs its 3 hands (field 'hands', missing"),
                                        ("klaverjas", "Klaverjas needs its 4 hands (field 'hands', missing"),
                                        ("mariasz", "Mariasz needs its 2 hands (field 'hands', missing"),
                                        ("prsi", "Prší needs the hands (field 'hands', missing")])
def test_a_document_of_the_game_alone_asks_for_its_hands_first(game, said):
    # {"game": "marias"} said "contract 'hra' needs a trump suit" (Klaverjas likewise), where the
    # other games ask for the hands: a newcomer's first question, answered alike in every game.
    with pytest.raises(ddcards.DdcardsError) as info:
        ddcards.Position.from_dict({"game": game})
    assert str(info.value).startswith(said) and info.value.field == "hands"


# -- hostile texts are read in one pass (an audit froze the service 9 s with a 40 KB request)

def test_an_unterminated_string_is_one_token_to_the_end_of_the_text():
    # Every match that starts at a quote runs to the string's end or the text's: the depth check
    # and the service's comma count scan a text once, however many escaped quotes it holds (a
    # pattern matching closed strings only started a scan to the end at each of them).
    from ddcards._jsonio import _TOKENS
    for text in ('"' + '\\"' * 1000, '"a\\', '"\\\n\\"x', '"ab"'):
        assert _TOKENS.match(text).end() == len(text), text
    assert [m.group() for m in _TOKENS.finditer('{"a": ["[", "\\"]"]}')] == ["{", '"a"', "[", '"["', '"\\"]"', "]", "}"]


@pytest.mark.parametrize("text", ['"' + '\\"' * 200_000 + "[" * 17, "[" * 17 + '"' + '\\"' * 200_000])
def test_a_long_hostile_text_is_refused_as_bad_json(text):
    with pytest.raises(NotationError, match="not valid JSON|nested more than 16 levels"):
        ddcards.Position.from_json(text)


def test_a_display_hand_label_is_tried_once_per_run_of_characters():
    from ddcards.notation import _DISPLAY_LABEL
    assert _DISPLAY_LABEL.split("S: AKT  H: 987  D: -  C: QJ") == ["", "S", " AKT  ", "H", " 987  ", "D", " -  ",
                                                                   "C", " QJ"]
    assert _DISPLAY_LABEL.split("AKTH:9") == ["", "AKTH", "9"] and _DISPLAY_LABEL.split("S:AKT H :9")[3] == "H"
    with pytest.raises(NotationError):
        ddcards.parse_hand("S: " + "A" * 200_000)       # one pass (it took minutes), then the error


def test_a_short_hand_in_a_whole_deck_is_a_card_in_the_wrong_place_not_cards_played():
    # Ten, ten and nine cards and a talon of three: every card of the deck is there, so "give the
    # cards played back to the hands" (the usual cause of a short hand) was the wrong advice.
    doc = dict(ddcards.example("marias-hra"), hands=["AT.AKQ9.AT.87", "KQ.TJ87.KQ.AT", "J987..J987.J"],
               talon="9C KC QC")
    with pytest.raises(ddcards.InvalidDealError) as info:
        ddcards.solve(doc)
    assert str(info.value).startswith("hand 2 has 9 cards; Mariáš hands hold 10 for card play, forehand's 12 less "
                                      "the 2 discarded; the deal holds every card of the deck, so a card of this "
                                      "hand is in the talon (")
    assert info.value.field == "hands[2]"
    swapped = dict(ddcards.example("klaverjas"), hands=["A.KT.987.AK", "KJ9..KQJ.T", "T8.AJ9.T.987", "Q7.Q87.A.QJ"])
    with pytest.raises(ddcards.InvalidDealError, match="hand 1 has 7 cards; Klaverjas hands hold 8; the deal holds "
                                                       "every card of the deck, so a card of this hand is in hand 2"):
        ddcards.solve(swapped)
    # Cards missing from the deck: the hands were given as they are now, the usual cause
    short = dict(ddcards.example("marias-hra"), hands=["AT.AKQ9.AT.87", "KQ.TJ87.KQ.AT", "J987..J987.J"])
    with pytest.raises(ddcards.InvalidDealError, match="give the cards played back to the hands"):
        ddcards.solve(short)


def test_a_short_hand_in_a_whole_deck_is_a_card_in_the_wrong_place_in_prsi_and_mariasz_too():
    # Prší places all 32 cards and Mariasz's hands and stock hold its whole deck: a short hand there
    # was told to "give the cards played back to the hands" as well (the fix above covered only
    # Mariáš and Klaverjas, which share the rule)
    prsi = dict(ddcards.example("prsi"), hands=["Q.7.A.", ".9.9.K7"],
                stock="TD 8C QD TS 8H 9C JD 8D AH AC 7S QC TC 7D AS JC 9S 8S KD KS JS JH TH KH")
    with pytest.raises(ddcards.InvalidDealError) as info:
        ddcards.Position.from_dict(prsi)
    assert str(info.value).startswith("hand 0 has 3 cards; Prší hands hold 4 as dealt; the deal holds every card of "
                                      "the deck, so a card of this hand is in the stock (")
    assert info.value.field == "hands[0]"
    mariasz = ddcards.example("mariasz")
    with pytest.raises(ddcards.InvalidDealError, match=r"^hand 0 has 5 cards; Mariasz hands hold 6 \(two players take 6 "
                                                       r"each\); the deal holds every card of the deck, so a card of "
                                                       r"this hand is in the stock \("):
        ddcards.Position.from_dict(dict(mariasz, hands=[".AQ.A.A9", "T86..T8.T"], stock="7C " + mariasz["stock"],
                                        played=[]))
    three = ddcards.example("mariasz-three")
    with pytest.raises(ddcards.InvalidDealError, match="hand 0 has 7 cards; Mariasz for three hands hold 8 .*; the "
                                                       "deal holds every card of the deck, so a card of this hand is "
                                                       "in hand 1 "):
        ddcards.Position.from_dict(dict(three, hands=["AT.K6.KJ.Q", "Q.QJ.T6.AKJT", "KJ6.AT.AQ.6"]))
    # cards missing from the deck: the usual cause, as before
    with pytest.raises(ddcards.InvalidDealError, match="give the cards played back to the hands"):
        ddcards.Position.from_dict(dict(prsi, stock=prsi["stock"][3:]))
    with pytest.raises(ddcards.InvalidDealError, match="give the cards played back to the hands"):
        ddcards.Position.from_dict(dict(mariasz, hands=[".AQ.A.A9", "T86..T8.T"], played=[]))


def test_over_long_text_is_named_by_its_start_and_length_once():
    """A 999-character hand: the message names it by its first 40 characters and its length, and
    the card inside it too, not the whole text twice (over 2,000 characters, which the service's
    600-character bound then cut into the rule)."""
    doc = {"game": "marias", "hands": ["A" * 999, "KQ.JT87.KQ.AT", "J987..J987.QJ"], "talon": "9C KC", "trump": "H"}
    with pytest.raises(ddcards.NotationError) as err:
        ddcards.solve(doc)
    message = str(err.value)
    assert len(message) < 500 and message.count("A" * 41) == 0
    assert message.startswith(f"hand '{'A' * 40}'… (999 characters): unknown card '{'A' * 40}'… (999 characters): ")
    assert message.endswith("or a list of cards such as 'AS KS TS'")
    # ... and a dotted hand that names a card twice (its message held the whole hand)
    with pytest.raises(ddcards.NotationError) as err:
        ddcards.parse_hand("AA" + "K" * 900 + ".QJ.T9.87")
    assert str(err.value).startswith(f"card 'AS' appears twice in hand '{'AA' + 'K' * 38}'… (911 characters) (")


def test_an_example_name_given_as_a_position_says_how_to_get_the_example():
    # ddcards.solve("prsi"), a newcomer's guess, was told only that 'prsi' is not valid JSON
    for text in ("prsi", " Klaverjas "):
        for call in (ddcards.solve, ddcards.Position.from_json, ddcards.dd_table):
            with pytest.raises(NotationError) as caught:
                call(text)
            name = text.strip().lower()
            assert str(caught.value).endswith(f"; it names a bundled example, whose document "
                                              f"ddcards.example('{name}') gives"), (call, text)
            assert caught.value.token == text
    with pytest.raises(NotationError) as caught:
        ddcards.solve("nope")
    assert str(caught.value) == "a position document is not valid JSON: Expecting value at line 1 column 1 (near 'nope')"


def test_a_file_name_given_as_a_position_says_to_read_the_file(tmp_path, monkeypatch):
    # A newcomer's first guess, ddcards.solve("position.json") (the CLI takes a file's name), was
    # told only that the text is not valid JSON; a pathlib.Path that it is not a JSON object.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "position.json").write_text(json.dumps(START), encoding="utf-8")
    from pathlib import Path
    for text in ("position.json", "  deal.jsonl ", Path("position.json")):
        for call in (ddcards.solve, ddcards.Position.from_json, ddcards.dd_table):
            with pytest.raises(NotationError) as caught:
                call(text)
            message = str(caught.value)
            assert "read the file first" in message and "read_text()" in message, (call, text, message)
            assert caught.value.rule is not None
    assert ddcards.solve(Path("position.json").read_text()).value == 70    # what the message advises
    # Text that is no file's name is told as before, without the advice.
    for text in ("hello", "{bad", "[1", "   "):
        with pytest.raises(NotationError) as caught:
            ddcards.solve(text)
        assert "not valid JSON" in str(caught.value) and "read the file" not in str(caught.value)


class _Refuses:
    """A program's foreign object that refuses ==, as a numpy array of several numbers does."""

    def __eq__(self, other: object) -> bool:
        raise ValueError("The truth value of an array with more than one element is ambiguous")

    __hash__ = None         # type: ignore[assignment]


@pytest.mark.parametrize("name", ["klaverjas", "marias-hra", "mariasz", "prsi"])
def test_a_field_holding_an_object_that_refuses_equality_is_refused_as_the_fields_error(name):
    # trump: numpy's array got through `trump in (None, "")` as its own ValueError (an API audit)
    base = ddcards.example(name)
    for field in ("trump", "talon", "contract", "objective", "playing_team", "upcard", "stock", "player",
                  "start_scores", "rules"):
        with pytest.raises(DdcardsError) as caught:
            ddcards.Position.from_dict(dict(base, **{field: _Refuses()}))
        assert "_Refuses" in str(caught.value) or caught.value.field == field, (field, str(caught.value))
    with pytest.raises(DdcardsError):
        dd_table(dict(ddcards.example("klaverjas"), trump=_Refuses()))


def test_a_value_a_little_over_the_cut_is_shown_whole():
    """A nested hand of 13 characters was shown as its first 12 and "… (13 characters)": a cut
    that saves less than its note adds. Within 8 characters of the limit a value is shown whole;
    further over, cut as before."""
    from ddcards._jsonio import argument_shown

    assert argument_shown({"0": "AT.AKQ9.AT.87"}) == "{'0': 'AT.AKQ9.AT.87'}"
    assert argument_shown({"0": "AT.AKQ9.AT.87654"}) == "{'0': 'AT.AKQ9.AT.87654'}"        # 12 + 4
    assert argument_shown({"0": "AKQJT9876.AKQJT9876.AK"}) == "{'0': 'AKQJT9876.AK'… (22 characters)}"
