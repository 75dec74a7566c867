"""Unit tests of server/convert/: pure message <-> document conversions (no server, no search)."""
from __future__ import annotations

import json
from types import SimpleNamespace

import pytest


import ddcards  # noqa: E402
from ddcards.server import convert  # noqa: E402
from ddcards.v1 import ddcards_pb2 as pb  # noqa: E402
from ddcards.errors import DdcardsError  # noqa: E402
from ddcards.server.status import RequestCardError, RequestError, ValueOutOfRange  # noqa: E402

DOC = {
    "game": "marias",
    "hands": ["AKT.987..QJ", "Q.AKQ.AKQ.A9", "J.JT.JT9.KT8"],
    "talon": "7S 8D",
    "contract": "hra",
    "trump": "H",
    "options": {"marriage_on_follow": False},
    "played": ["TH", "AH", "8H"],
}


# ---------------------------------------------------------------- enums

def test_enum_names_round_trip():
    assert convert.enum_to_name(pb.Game, pb.GAME_MARIAS) == "marias"
    assert convert.enum_to_name(pb.Game, pb.GAME_PRSI) == "prsi"
    assert convert.enum_to_name(pb.Contract, pb.CONTRACT_BETL) == "betl"
    assert convert.enum_to_name(pb.Game, pb.GAME_UNSPECIFIED) == ""
    assert convert.enum_to_name(pb.Game, 99) == ""
    assert convert.name_to_enum(pb.Game, "klaverjas") == pb.GAME_KLAVERJAS
    assert convert.name_to_enum(pb.Game, "MARIASZ") == pb.GAME_MARIASZ
    assert convert.name_to_enum(pb.Game, "skat") == pb.GAME_UNSPECIFIED
    assert convert.name_to_enum(pb.Contract, "durch") == pb.CONTRACT_DURCH


def test_every_game_and_contract_enum_maps_to_a_name_and_back():
    for enum_type in (pb.Game, pb.Contract, pb.SolveMode):
        for value in enum_type.values()[1:]:
            name = convert.enum_to_name(enum_type, value)
            assert name and name == name.lower()
            assert convert.name_to_enum(enum_type, name) == value


def test_modes():
    assert convert.mode_to_name(pb.SOLVE_MODE_UNSPECIFIED) == "all"
    assert convert.mode_to_name(pb.SOLVE_MODE_BEST) == "best"
    assert convert.name_to_mode("optimal") == pb.SOLVE_MODE_OPTIMAL
    assert convert.name_to_mode("SOLVE_MODE_ALL") == pb.SOLVE_MODE_ALL
    assert convert.name_to_mode(SimpleNamespace(value="best")) == pb.SOLVE_MODE_BEST  # an Enum member
    with pytest.raises(DdcardsError, match="bogus"):
        convert.name_to_mode("bogus")
    with pytest.raises(DdcardsError, match="42"):
        convert.mode_to_name(42)


# ---------------------------------------------------------------- cards and actions

def test_card_notation_or_structure():
    assert convert.card_to_str(pb.Card(notation="TH")) == "TH"
    assert convert.card_to_str(pb.Card(notation=" 10h ")) == "10h"  # aliases go to the solver as typed
    assert convert.card_to_str(pb.Card(rank=pb.RANK_TEN, suit=pb.SUIT_HEARTS)) == "TH"
    assert convert.card_to_str(pb.Card(rank=pb.RANK_SIX, suit=pb.SUIT_CLUBS)) == "6C"
    with pytest.raises(RequestCardError, match="no valid suit") as info:
        convert.card_to_str(pb.Card(rank=pb.RANK_ACE), "position.upcard")
    assert (info.value.reason, info.value.field) == ("INVALID_CARD", "position.upcard.suit")
    with pytest.raises(RequestCardError, match="no valid rank"):
        convert.card_to_str(pb.Card(suit=pb.SUIT_SPADES))
    with pytest.raises(RequestCardError) as info:
        convert.card_to_str(pb.Card(rank=3, suit=pb.SUIT_SPADES))
    # an enum number outside the enum: its range and the rule in the message (an audit's find)
    assert str(info.value) == ("card has no valid rank (3; docs/RULES.md §0.2 rule 1: ranks 6 7 8 9 T J Q K A; "
                               "a Rank is RANK_SIX (6) to RANK_ACE (14))")
    with pytest.raises(RequestCardError, match=r"trump names no valid suit \(99; docs/RULES.md §0.1 rule 1: "):
        convert.position_to_doc(pb.Position(game_name="marias", trump=99))
    # Both forms (a card echoed from a response) must agree.
    assert convert.card_to_str(convert.card_message("TH")) == "TH"
    assert convert.card_to_str(pb.Card(notation="10h", rank=pb.RANK_TEN, suit=pb.SUIT_HEARTS)) == "10h"
    with pytest.raises(DdcardsError, match="disagree"):
        convert.card_to_str(pb.Card(notation="TH", rank=pb.RANK_TEN))
    with pytest.raises(DdcardsError, match="disagree"):
        convert.card_to_str(pb.Card(notation="TH", rank=pb.RANK_ACE, suit=pb.SUIT_HEARTS))
    with pytest.raises(RequestCardError, match="empty"):
        convert.card_to_str(pb.Card())


@pytest.mark.parametrize("action, field, needle", [
    (pb.Action(notation="QS", named_suit=pb.SUIT_DIAMONDS), "a.named_suit",
     "write the named suit in notation ('QS/D')"),
    (pb.Action(notation="AS", named_suit=pb.SUIT_CLUBS), "a.named_suit", "'AS' is no Ober: leave named_suit unset"),
    (pb.Action(notation="draw", named_suit=pb.SUIT_SPADES), "a.named_suit",
     "'draw' is no Ober: leave named_suit unset"),
    (pb.Action(notation="OH", named_suit=pb.SUIT_CLUBS), "a.named_suit", "write the named suit in notation ('OH/C')"),
    (pb.Action(notation="QS/H", named_suit=pb.SUIT_DIAMONDS), "a.named_suit",
     "notation 'QS/H' and named_suit SUIT_DIAMONDS disagree"),
    (pb.Action(notation="QS/D", named_suit=pb.SUIT_DIAMONDS), "a.named_suit", "names the suit already"),
    (pb.Action(notation="QS", named_suit=9), "a.named_suit", "named_suit 9 is no suit"),
    (pb.Action(named_suit=pb.SUIT_CLUBS), "a", "a is empty: named_suit goes with card: set card too"),
    (pb.Action(notation="QH/S", card=pb.Card(notation="QH"), named_suit=pb.SUIT_CLUBS), "a.named_suit",
     "notation 'QH/S' and named_suit SUIT_CLUBS disagree"),
    (pb.Action(notation="QH/S", card=pb.Card(notation="KH"), named_suit=pb.SUIT_SPADES), "a",
     "notation 'QH/S' and card 'KH/S' disagree"),
])
def test_named_suit_beside_notation_names_the_conflict_and_its_field(action, field, needle):
    with pytest.raises(RequestError) as info:
        convert.action_to_str(action, "a")
    assert needle in str(info.value) and "is empty: set notation" not in str(info.value)
    assert info.value.field == field and info.value.token == action.notation
    assert info.value.rule == convert.ACTION_RULE


def test_both_forms_agree_by_meaning():
    """Aliases of a named suit agree; a talon has no order; a card twice in a hand is named as such."""
    for notation in ("QS/♦", "OS/diamonds", "qs/d"):
        action = pb.Action(notation=notation, card=pb.Card(notation="QS"), named_suit=pb.SUIT_DIAMONDS)
        assert convert.action_to_str(action, "a") == notation
    both = pb.Cards(notation="9C KC", cards=[pb.Card(notation="KC"), pb.Card(notation="9C")])
    assert convert.cards_to_sequence(both, "talon", ordered=False) == "KC 9C"
    twice = pb.Cards(notation="AS AS", cards=[pb.Card(notation="AS"), pb.Card(notation="AS")])
    with pytest.raises(RequestError, match=r"hands\[0\]\.cards\[1\]: card 'AS' appears twice in the hand") as info:
        convert.cards_to_hand(twice, "hands[0]")          # the list's item, not a hand text never sent
    assert (info.value.reason, info.value.field, info.value.token) == ("NOTATION", "hands[0].cards[1]", "AS")
    with pytest.raises(RequestError, match="AH is no Ober") as info:
        convert.action_to_str(pb.Action(notation="AH/S", card=pb.Card(notation="AH"), named_suit=pb.SUIT_SPADES), "a")
    assert info.value.field == "a.named_suit"


def test_named_suit_on_a_card_that_is_no_ober_names_its_field():
    action = pb.Action(card=pb.Card(rank=pb.RANK_TEN, suit=pb.SUIT_HEARTS), named_suit=pb.SUIT_CLUBS)
    with pytest.raises(RequestError) as info:
        convert.action_to_str(action, "position.played[1]")
    assert "card TH is no Ober: leave named_suit unset" in str(info.value) and "'TH/C'" not in str(info.value)
    assert (info.value.field, info.value.token) == ("position.played[1].named_suit", "TH")
    assert convert.action_to_str(pb.Action(card=pb.Card(notation="QH"), named_suit=pb.SUIT_CLUBS), "a") == "QH/C"


def test_card_message_fills_structure():
    msg = convert.card_message("QC")
    assert (msg.notation, msg.rank, msg.suit) == ("QC", pb.RANK_QUEEN, pb.SUIT_CLUBS)
    msg = convert.card_message("draw")
    assert (msg.notation, msg.rank, msg.suit) == ("draw", 0, 0)


def test_actions():
    assert convert.action_to_str(pb.Action(notation="draw")) == "draw"
    assert convert.action_to_str(pb.Action(card=pb.Card(rank=pb.RANK_ACE, suit=pb.SUIT_HEARTS))) == "AH"
    named = pb.Action(card=pb.Card(notation="QH"), named_suit=pb.SUIT_SPADES)
    assert convert.action_to_str(named) == "QH/S"
    assert convert.action_to_str(convert.action_message("QH/S")) == "QH/S"
    assert convert.action_to_str(pb.Action(notation="AH", card=pb.Card(notation="AH"))) == "AH"
    with pytest.raises(DdcardsError, match="disagree"):
        convert.action_to_str(pb.Action(notation="AH", card=pb.Card(notation="KH")))
    with pytest.raises(DdcardsError, match="disagree"):
        convert.action_to_str(pb.Action(notation="QH/S", card=pb.Card(notation="QH"), named_suit=pb.SUIT_CLUBS))
    with pytest.raises(DdcardsError, match="empty"):
        convert.action_to_str(pb.Action())

    msg = convert.action_message("QH/S")
    assert msg.notation == "QH/S" and msg.card.notation == "QH" and msg.named_suit == pb.SUIT_SPADES
    msg = convert.action_message("TH")
    assert msg.card.rank == pb.RANK_TEN and msg.card.suit == pb.SUIT_HEARTS and not msg.named_suit
    msg = convert.action_message("exchange")
    assert msg.notation == "exchange" and not msg.HasField("card")


def test_hand_from_structured_cards_is_pbn_in_suit_and_rank_order():
    cards = [pb.Card(notation=t) for t in ["JC", "7H", "AS", "TS", "QC", "KS", "9H", "8H"]]
    assert convert.cards_to_hand(pb.Cards(cards=cards)) == "AKT.987..QJ"
    aliases = [pb.Card(notation=t) for t in ["10H", "OC", "U♣"]]
    assert convert.cards_to_hand(pb.Cards(cards=aliases)) == ".T..QJ"
    with pytest.raises(RequestCardError, match="ZZ") as info:
        convert.cards_to_hand(pb.Cards(cards=[pb.Card(notation="ZZ")]), "position.hands[2]")
    assert (info.value.token, info.value.field) == ("ZZ", "position.hands[2].cards[0]")
    assert convert.cards_to_hand(pb.Cards(notation="AKT.987..QJ")) == "AKT.987..QJ"
    structured = [pb.Card(rank=pb.RANK_SIX, suit=pb.SUIT_DIAMONDS), pb.Card(rank=pb.RANK_ACE, suit=pb.SUIT_DIAMONDS)]
    assert convert.cards_to_hand(pb.Cards(cards=structured)) == "..A6."
    # both forms, as a response carries them, read back when they name the same cards
    assert convert.cards_to_hand(pb.Cards(notation="A...", cards=[pb.Card(notation="AS")])) == "A..."
    assert convert.cards_to_sequence(pb.Cards(notation="9H KC", cards=[pb.Card(notation="9H"),
                                                                        pb.Card(notation="KC")])) == "9H KC"
    for bad in (pb.Cards(notation="A...", cards=[pb.Card(notation="KS")]),
                pb.Cards(notation="ZZ", cards=[pb.Card(notation="KS")])):
        with pytest.raises(DdcardsError, match="notation .* and cards disagree"):
            convert.cards_to_hand(bad)
    with pytest.raises(DdcardsError, match="disagree"):        # a sequence keeps its order
        convert.cards_to_sequence(pb.Cards(notation="KC 9H", cards=[pb.Card(notation="9H"), pb.Card(notation="KC")]))
    with pytest.raises(RequestCardError, match=r"hands\[0\]\.cards\[1\] has no valid suit") as info:
        convert.cards_to_hand(pb.Cards(cards=[pb.Card(notation="AS"), pb.Card(rank=pb.RANK_ACE)]), "position.hands[0]")
    assert info.value.field == "position.hands[0].cards[1].suit"


def test_sequence_keeps_order():
    cards = [pb.Card(notation="8D"), pb.Card(rank=pb.RANK_SEVEN, suit=pb.SUIT_SPADES)]
    assert convert.cards_to_sequence(pb.Cards(cards=cards)) == "8D 7S"
    assert convert.cards_to_sequence(pb.Cards(notation="7S 8D")) == "7S 8D"


# ---------------------------------------------------------------- options

@pytest.mark.parametrize("value", [True, False, 3, -7, 2.5, "amsterdam"])
def test_option_values_round_trip(value):
    msg = convert.python_to_option(value)
    back = convert.option_to_python("x", msg)
    assert back == value and type(back) is type(value)


def test_option_without_value_is_rejected():
    with pytest.raises(DdcardsError, match="'horizon' has no value") as info:
        convert.option_to_python("horizon", pb.OptionValue())
    assert info.value.token == "horizon"


# ---------------------------------------------------------------- position -> document

def _position_message() -> pb.Position:
    msg = pb.Position(game=pb.GAME_MARIAS, contract=pb.CONTRACT_HRA, trump=pb.SUIT_HEARTS)
    for hand in DOC["hands"]:
        msg.hands.add(notation=hand)
    msg.talon.CopyFrom(pb.Cards(cards=[pb.Card(notation="7S"), pb.Card(notation="8D")]))
    msg.options["marriage_on_follow"].bool_value = False
    for card in DOC["played"]:
        msg.played.add(notation=card)
    return msg


def test_position_to_doc_mirrors_the_document():
    assert convert.position_to_doc(_position_message()) == DOC


def test_position_to_doc_writes_only_set_fields():
    msg = pb.Position(game_name="prsi", hands=[pb.Cards(notation="A...")], upcard=pb.Card(notation="7H"),
                      stock=pb.Cards(notation=""), leader=0, flek=0, first_deal=False, playing_team=1,
                      rules="rotterdam", objective="race", start_scores=[100, 120])
    msg.options["horizon"].int_value = 12
    msg.played.add(card=pb.Card(notation="QH"), named_suit=pb.SUIT_CLUBS)
    doc = convert.position_to_doc(msg)
    assert doc == {
        "game": "prsi", "hands": ["A..."], "upcard": "7H", "stock": "", "leader": 0, "flek": 0,
        "first_deal": False, "playing_team": 1, "rules": "rotterdam", "objective": "race",
        "start_scores": [100, 120], "options": {"horizon": 12}, "played": ["QH/C"],
    }
    bare = convert.position_to_doc(pb.Position(game_name="marias"))
    assert bare == {"game": "marias"}


def test_game_name_and_enum():
    assert convert.position_to_doc(pb.Position(game_name="mariáš"))["game"] == "mariáš"
    assert convert.position_to_doc(pb.Position(game=pb.GAME_KLAVERJAS))["game"] == "klaverjas"
    # Both set: they must agree (the server checks aliases with ddcards.find_game).
    same = convert.position_to_doc(pb.Position(game_name="Marias", game=pb.GAME_MARIAS))
    assert same["game"] == "Marias"
    with pytest.raises(DdcardsError, match="disagree"):
        convert.position_to_doc(pb.Position(game_name="prsi", game=pb.GAME_MARIAS))
    alias = {"mariáš": "marias", "marias": "marias"}
    doc = convert.position_to_doc(pb.Position(game_name="mariáš", game=pb.GAME_MARIAS), canonical_game=alias.get)
    assert doc["game"] == "mariáš"
    with pytest.raises(DdcardsError, match="names no game"):
        convert.position_to_doc(pb.Position())
    with pytest.raises(DdcardsError, match="unknown game enum value 42") as err:
        convert.position_to_doc(pb.Position(game=42))
    # the values there are, as a client in any language names them
    assert str(err.value) == ("unknown game enum value 42: use GAME_MARIAS (1), GAME_KLAVERJAS (2), GAME_MARIASZ (3) "
                              "or GAME_PRSI (4)")
    assert err.value.rule == "game: a value of the Game enum of ddcards/v1/ddcards.proto"


def test_contract_name_and_enum():
    assert convert.position_to_doc(pb.Position(game_name="marias", contract=pb.CONTRACT_DURCH))["contract"] == "durch"
    assert convert.position_to_doc(pb.Position(game_name="marias", contract_name="betl"))["contract"] == "betl"
    with pytest.raises(DdcardsError, match="disagree"):
        convert.position_to_doc(pb.Position(game_name="marias", contract_name="betl", contract=pb.CONTRACT_HRA))


def test_request_to_doc_from_json():
    request = pb.SolveRequest(document_json=json.dumps(DOC))
    assert convert.request_to_doc(request) == DOC
    with pytest.raises(DdcardsError, match="not valid JSON"):
        convert.request_to_doc(pb.SolveRequest(document_json="{not json"))
    with pytest.raises(DdcardsError, match="JSON object"):
        convert.request_to_doc(pb.SolveRequest(document_json="[1, 2]"))
    with pytest.raises(DdcardsError, match="no position"):
        convert.request_to_doc(pb.SolveRequest())
    assert convert.request_to_doc(pb.AnalysePlayRequest(position=_position_message())) == DOC


def test_doc_to_position_round_trips():
    msg = convert.doc_to_position(DOC)
    assert msg is not None and msg.game == pb.GAME_MARIAS
    assert convert.position_to_doc(msg) == DOC
    other = {"game": "mariasz", "hands": ["", ""], "stock": ["AH", "6S"], "objective": "race",
             "start_scores": [10, 20], "first_deal": True, "leader": 1, "flek": 2, "playing_team": 0,
             "options": {"must_beat": True, "x": 1.5, "y": "z"}}
    back = convert.position_to_doc(convert.doc_to_position(other))
    assert back == {**other, "stock": "AH 6S"}


@pytest.mark.parametrize("doc", [
    {"game": "marias", "future_field": 1},   # a field the message lacks
    {"game": "marias", "trump": "♥"},         # an alias the enum cannot carry
    {"game": "marias", "hands": [["AS"]]},     # a hand as a list
    {"game": "marias", "options": {"x": [1]}},
    {"game": "marias", "leader": "0"},
    {"hands": []},
    # A field of another type than the message's is never converted: the server then reads the
    # document as the library does, and its error names what was given (a hand list given as one
    # string used to become a hand per character: "needs 4 hands, got 11").
    {"game": "klaverjas", "hands": "A.KT.987.AK"},
    {"game": 5},
    {"game": "marias", "talon": 7},
    {"game": "marias", "talon": ["9C", 7]},
    {"game": "prsi", "upcard": ["7H"]},
    {"game": "marias", "contract": ["hra"]},
    {"game": "klaverjas", "rules": 1},
    {"game": "marias", "trump": 1},
    {"game": "marias", "announcements": "sedma"},
    {"game": "marias", "flek": 2.0},
    {"game": "marias", "flek": 2 ** 40},
    {"game": "mariasz", "start_scores": ["12", 3]},
    {"game": "mariasz", "start_scores": [12.5, 3]},
    {"game": "mariasz", "start_scores": 12},
    {"game": "prsi", "options": []},
    {"game": "prsi", "options": {"horizon": None}},
    {"game": "prsi", "options": {"horizon": 2 ** 70}},
    {"game": "marias", "played": None},
    {"game": "marias", "played": ["AS", 7]},
    {"game": "marias", "played": {"AS": 1}},
    # Empty lists and a null trump: the message would leave them out, and the server would read
    # the game's defaults where the library refuses them
    {"game": "mariasz", "objective": "race", "start_scores": []},
    {"game": "mariasz", "announcements": []},
    {"game": "prsi", "hands": []},
    {"game": "prsi", "trump": None},
])
def test_doc_to_position_declines_what_the_message_cannot_carry(doc):
    assert convert.doc_to_position(doc) is None


def test_a_null_trump_of_the_games_own_field_is_left_out_as_the_library_reads_it():
    # RULES §0.6 rule 6: a Mariáš Betl's "trump": null is an absent trump, which the message carries
    msg = convert.doc_to_position(dict(ddcards.example("marias-hra"), contract="betl", trump=None))
    assert msg is not None and msg.trump == 0 and msg.contract_name == "betl"


def test_doc_to_position_reads_a_history_text_as_the_library_does():
    msg = convert.doc_to_position({"game": "marias", "played": "QH TH, 9H | AS"})
    assert msg is not None and [a.notation for a in msg.played] == ["QH", "TH", "9H", "AS"]


# ---------------------------------------------------------------- results -> messages

def _result(**over):
    base = dict(
        game="marias", value=40, scores={"declarer": 60, "defenders": 20}, tricks={"declarer": 7, "defenders": 3},
        won=True, settlement=[4, -2, -2], to_move=0, optimal_moves=["AS", "KS"],
        moves=[SimpleNamespace(move="AS", value=40, optimal=True), SimpleNamespace(move="KS", value=40, optimal=True),
               SimpleNamespace(move="7H", value=None, optimal=False)],
        pv=["AS", "QS", "JS"], outcomes={"sedma": False, "kilo": False}, nodes=1234, elapsed=0.01,
    )
    base.update(over)
    result = SimpleNamespace(**base)
    result.to_dict = lambda: {**{k: v for k, v in base.items() if k != "moves"}, "moves": [], "nat": False,
                              "roem": {"0": 20, "1": 0}}
    return result


def test_result_to_response():
    msg = convert.result_to_response(_result(), mode="optimal")
    assert msg.game == pb.GAME_MARIAS and msg.game_name == "marias" and msg.mode == pb.SOLVE_MODE_OPTIMAL
    assert msg.value == 40 and dict(msg.scores) == {"declarer": 60, "defenders": 20}
    assert dict(msg.tricks) == {"declarer": 7, "defenders": 3} and msg.won
    assert list(msg.settlement) == [4, -2, -2] and msg.to_move == 0
    assert [a.notation for a in msg.optimal_moves] == ["AS", "KS"]
    assert msg.optimal_moves[0].card.rank == pb.RANK_ACE and msg.optimal_moves[0].card.suit == pb.SUIT_SPADES
    assert [(m.move.notation, m.value if m.HasField("value") else None, m.optimal) for m in msg.moves] == [
        ("AS", 40, True), ("KS", 40, True), ("7H", None, False)]
    assert [a.notation for a in msg.principal_variation] == ["AS", "QS", "JS"]
    assert dict(msg.outcomes) == {"sedma": False, "kilo": False}
    assert msg.nodes == 1234 and msg.elapsed_seconds == pytest.approx(0.01)
    # Fields of the result document without a typed field travel in `extra`.
    assert dict(msg.extra) == {"nat": False, "roem": {"0": 20.0, "1": 0.0}}


def test_response_to_dict_is_the_result_document_shape():
    out = convert.response_to_dict(convert.result_to_response(_result(), mode="all"))
    assert out["value"] == 40 and out["mode"] == "all" and out["pv"] == ["AS", "QS", "JS"]
    assert out["moves"][2] == {"move": "7H", "value": None, "optimal": False, "distance": None}
    assert out["nat"] is False and out["roem"] == {"0": 20, "1": 0}      # whole numbers, not a Struct's doubles
    assert isinstance(out["roem"]["0"], int) and out["elapsed_ms"] == 10.0


def test_result_at_the_end_of_the_deal_has_no_seat_to_move():
    msg = convert.result_to_response(_result(to_move=None, value_kind="points"), mode="all")
    assert not msg.HasField("to_move") and msg.value_kind == "points"
    assert convert.response_to_dict(msg)["to_move"] is None
    msg = convert.result_to_response(_result(to_move=2), mode="all")
    assert msg.HasField("to_move") and msg.to_move == 2


def test_result_without_to_dict_or_optional_fields():
    minimal = SimpleNamespace(value=-1, optimal_moves=["7S"], moves=[], pv=["7S"], nodes=5)
    msg = convert.result_to_response(minimal, mode="best", game="marias")
    assert msg.value == -1 and not msg.HasField("extra") and msg.mode == pb.SOLVE_MODE_BEST
    assert msg.game_name == "marias"


def _step(ply, move, before, after, best, cost):
    return SimpleNamespace(ply=ply, seat=ply % 3, move=move, value_before=before, value_after=after,
                           best_moves=best, cost=cost, mistake=cost > 0)


def test_analysis_to_response():
    steps = [_step(0, "AS", 40, 40, ["AS"], 0), _step(1, "7S", 40, 60, ["QS"], 20)]
    analysis = SimpleNamespace(game="marias", initial_value=40, final_value=60, steps=steps,
                               mistakes=[steps[1]], nodes=99, elapsed=0.5)
    msg = convert.analysis_to_response(analysis)
    assert (msg.initial_value, msg.final_value, msg.nodes) == (40, 60, 99)
    assert [(s.ply, s.move.notation, s.value_before, s.value_after, s.cost, s.mistake) for s in msg.steps] == [
        (0, "AS", 40, 40, 0, False), (1, "7S", 40, 60, 20, True)]
    assert [s.ply for s in msg.mistakes] == [1]
    assert [a.notation for a in msg.steps[1].best_moves] == ["QS"]
    out = convert.analysis_response_to_dict(msg)
    assert out["mistakes"] == [out["steps"][1]["ply"]] and out["steps"][1]["move"] == "7S"
    # mistakes derived from steps when the object has no list of its own
    del analysis.mistakes
    assert [s.ply for s in convert.analysis_to_response(analysis).mistakes] == [1]


def test_game_info_to_message():
    info = SimpleNamespace(
        name="marias", title="Mariáš", seats=(3, 4), contracts=("hra", "betl", "durch"),
        objectives={"hra": ("hra", "sedma", "kilo"), "betl": ("betl",), "durch": ("durch",)},
        options=(SimpleNamespace(name="marriage_on_follow", type=bool, default=False, description="d"),
                 SimpleNamespace(name="horizon", type="int", default=None, description="")),
        aliases=("mariáš",))
    msg = convert.game_info_to_message(info)
    assert msg.game == pb.GAME_MARIAS and msg.title == "Mariáš" and list(msg.seats) == [3, 4]
    assert [(c.name, c.contract, list(c.objectives)) for c in msg.contracts] == [
        ("hra", pb.CONTRACT_HRA, ["hra", "sedma", "kilo"]), ("betl", pb.CONTRACT_BETL, ["betl"]),
        ("durch", pb.CONTRACT_DURCH, ["durch"])]
    assert msg.options[0].type == "bool" and msg.options[0].default_value.bool_value is False
    assert msg.options[0].default_value.WhichOneof("kind") == "bool_value"
    assert msg.options[1].default_value.WhichOneof("kind") is None
    other = convert.game_info_to_message(SimpleNamespace(name="skat", contracts=("grand",), objectives={}))
    assert other.game == pb.GAME_UNSPECIFIED and other.contracts[0].contract == pb.CONTRACT_UNSPECIFIED
    listing = convert.games_response_to_list(convert.games_to_response([info], version="1"))
    assert listing[0]["contracts"] == ["hra", "betl", "durch"]
    assert listing[0]["options"][0] == {"name": "marriage_on_follow", "type": "bool", "default": False,
                                        "description": "d", "choices": []}
    # an option without choices or a range (a library before them) lists none
    assert listing[0]["options"][1] == {"name": "horizon", "type": "int", "default": None, "description": "",
                                        "choices": []}


def test_option_info_carries_choices_and_the_range_of_whole_number_options():
    from ddcards.games.base import OptionInfo

    info = SimpleNamespace(name="marias", options=(
        OptionInfo("talon_points", "str", "defenders", "who", choices=("defenders", "nobody")),
        OptionInfo("sedma_value", "int", 1, "stake"),
        OptionInfo("horizon", "int", 20, "plies", minimum=1, maximum=250),
        OptionInfo("flag", "bool", False, "a switch")))
    msg = convert.game_info_to_message(info)
    talon, sedma, horizon, flag = msg.options
    assert list(talon.choices) == ["defenders", "nobody"] and not talon.HasField("minimum")
    assert (sedma.minimum, sedma.maximum, list(sedma.choices)) == (0, 1_000_000, [])
    assert (horizon.minimum, horizon.maximum) == (1, 250)
    assert not flag.HasField("minimum") and not flag.HasField("maximum") and not flag.choices
    # a minimum of 0 is set, not "no bound"
    assert sedma.HasField("minimum")
    listing = convert.games_response_to_list(convert.games_to_response([info]))
    assert [o.get("choices") for o in listing[0]["options"]] == [["defenders", "nobody"], [], [], []]
    assert [(o.get("minimum"), o.get("maximum")) for o in listing[0]["options"]] == [
        (None, None), (0, 1_000_000), (1, 250), (None, None)]
    assert "minimum" not in listing[0]["options"][0] and "maximum" not in listing[0]["options"][3]
    # a server before these fields: no bounds at all
    old = pb.ListGamesResponse(games=[pb.GameInfo(name="marias", options=[pb.OptionInfo(name="x", type="int")])])
    assert convert.games_response_to_list(old)[0]["options"][0] == {"name": "x", "type": "int", "default": None,
                                                                     "description": "", "choices": []}


# ---------------------------------------------------------------- request field paths and JSON documents

def test_position_errors_name_their_message_field():
    cases = [
        (pb.Position(game_name="marias", played=[pb.Action(notation="AS"), pb.Action()]), "position.played[1]"),
        (pb.Position(game_name="marias", played=[pb.Action(card=pb.Card(rank=pb.RANK_ACE))]),
         "position.played[0].card.suit"),
        (pb.Position(game_name="marias", options={"x": pb.OptionValue()}), "position.options.x"),
        (pb.Position(game_name="marias", game=pb.GAME_KLAVERJAS), "position.game_name"),
        (pb.Position(game=99), "position.game"),
        (pb.Position(), "position.game_name"),
        (pb.Position(game_name="marias", trump=9), "position.trump"),
        (pb.Position(game_name="marias", talon=pb.Cards(cards=[pb.Card(notation="7S"), pb.Card(suit=pb.SUIT_HEARTS)])),
         "position.talon.cards[1].rank"),
        # both forms of a hand, a bad card among the structured ones: the card's own field
        (pb.Position(game_name="marias", hands=[pb.Cards(notation="AS", cards=[pb.Card(notation="AS")] * 9 +
                                                                            [pb.Card(notation="ZZ")])]),
         "position.hands[0].cards[9]"),
    ]
    for message, field in cases:
        with pytest.raises(RequestError) as info:
            convert.position_to_doc(message, canonical_game=lambda name: ddcards.find_game(name).name)
        assert info.value.field == field, (message, info.value)


@pytest.mark.parametrize("game", ["marias", "mariasz", "klaverjas"])
def test_a_named_suit_outside_prsi_says_only_prsi_names_one(game):
    """It said "unknown card 'QH/S': 'H/S' is not a suit", on the action's field."""
    action = pb.Action(card=pb.Card(notation="QH"), named_suit=pb.SUIT_SPADES)
    message = pb.Position(game_name=game, played=[pb.Action(notation="AS"), action])
    with pytest.raises(RequestError) as info:
        convert.position_to_doc(message, canonical_game=lambda name: ddcards.find_game(name).name)
    assert info.value.field == "position.played[1].named_suit"
    assert "only Prší's Ober names a suit" in str(info.value) and info.value.token == "QH"


@pytest.mark.parametrize("game", ["marias", "mariasz", "klaverjas"])
@pytest.mark.parametrize("notation", ["QH/S", "7H/S", "QH/X"])
def test_a_suit_in_an_actions_notation_outside_prsi_is_refused_by_the_game_naming_it(game, notation):
    """The server refused it first with "leave named_suit unset" (a field never set), without the
    token in the message; the game names the token and its rule, as for a document (an audit's find)."""
    message = pb.Position(game_name=game, played=[pb.Action(notation="AS"), pb.Action(notation=notation)])
    doc = convert.position_to_doc(message, canonical_game=lambda name: ddcards.find_game(name).name)
    assert doc["played"] == ["AS", notation]
    with pytest.raises(ddcards.InvalidCardError) as info:
        ddcards.Position.from_dict(dict(ddcards.example({"marias": "marias-hra", "mariasz": "mariasz"}.get(game, game)),
                                        played=doc["played"]))
    assert f"unknown card '{notation}'" in str(info.value) and info.value.token == notation


def test_prsi_keeps_its_named_suits():
    message = pb.Position(game_name="Prší", played=[pb.Action(card=pb.Card(notation="QH"), named_suit=pb.SUIT_SPADES),
                                                    pb.Action(notation="QS/D")])
    assert convert.position_to_doc(message)["played"] == ["QH/S", "QS/D"]


@pytest.mark.parametrize("text, words", [
    ("{oops", "not valid JSON"),
    ("[" * 100_000, "nested more than 16 levels deep"),
    ('{"hands": ' + "[" * 40 + "]" * 40 + "}", "nested more than 16 levels deep"),
    ("[1, 2]", "must be a JSON object"),
    ('"marias"', "must be a JSON object"),
    # read as the CLI reads a document (docs/RULES.md §0.11 rule 1), not by Python's json
    ('{"game": "marias", "game": "prsi"}', "key 'game' appears twice in one object"),
    ('{"game": "marias", "flek": NaN}', "NaN is not a JSON number"),
    ('{"game": "marias", "flek": Infinity}', "Infinity is not a JSON number"),
])
def test_bad_json_documents_are_request_errors(text, words):
    with pytest.raises(DdcardsError, match=words) as info:
        convert.request_to_doc(pb.SolveRequest(document_json=text))
    assert info.value.field == "document_json" and len(str(info.value)) < 400


def test_a_json_document_with_a_lone_surrogate_loads():
    # JSON may escape a lone surrogate; the document loads and the solver rejects the game by name.
    doc = convert.request_to_doc(pb.SolveRequest(document_json='{"game": "\\ud800"}'))
    assert doc == {"game": "\ud800"}


def test_values_that_do_not_fit_the_response_are_request_errors():
    assert convert.int32(-(2 ** 31), "value") == -(2 ** 31) and convert.int32(2 ** 31 - 1, "value") == 2 ** 31 - 1
    for value in (2 ** 31, -(2 ** 31) - 1, 2 ** 62, 10 ** 5000):
        with pytest.raises(ValueOutOfRange, match="does not fit the response") as info:
            convert.int32(value, "settlement[1]")
        assert info.value.reason == "VALUE_OUT_OF_RANGE" and "settlement[1]" in str(info.value)
        assert len(str(info.value)) < 300
    result = SimpleNamespace(value=10, scores={"declarer": 2 ** 40}, settlement=[1, -1])
    with pytest.raises(ValueOutOfRange, match=r"scores\['declarer'\]"):
        convert.result_to_response(result, game="marias")
    result = SimpleNamespace(value=10, settlement=[2 ** 33, -(2 ** 33)])
    with pytest.raises(ValueOutOfRange, match=r"settlement\[0\] is 8589934592"):
        convert.result_to_response(result, game="marias")


def test_extra_fields_with_huge_integers_travel_as_text():
    class Result(SimpleNamespace):
        def to_dict(self):
            return {"value": 1, "stake": 2 ** 70, "exact": 2 ** 52, "huge": 10 ** 400}

    msg = convert.result_to_response(Result(value=1), game="marias")
    extra = convert.response_to_dict(msg)
    assert extra["stake"] == str(2 ** 70) and extra["exact"] == 2 ** 52
    assert extra["huge"] == "<an integer of 1329 bits>"


ACE = pb.Card(rank=pb.RANK_ACE, suit=pb.SUIT_SPADES)


@pytest.mark.parametrize("fields, field, needle", [
    ({"options": {f"k{i}": pb.OptionValue(bool_value=True) for i in range(20_000)}},
     "position.options", "position.options: 20,000 items; a map in a position holds at most 2,000"),
    ({"played": [pb.Action(card=ACE)] * 30_000}, "position.played", "position.played: 30,000 items"),
    ({"hands": [pb.Cards(cards=[ACE] * 50_000)]}, "position.hands[0].cards", "position.hands[0].cards: 50,000 items"),
])
def test_a_message_over_the_document_limits_is_refused_before_it_is_converted(fields, field, needle):
    """docs/RULES.md §0.11 rule 2 on the message itself: counts and lengths are read before any
    item is converted (hundreds of thousands of items fit the 4 MB a request may carry)."""
    with pytest.raises(RequestError) as err:
        convert.position_to_doc(pb.Position(game_name="marias", **fields))
    assert needle in str(err.value)
    assert err.value.field == field
    assert err.value.rule.startswith("docs/RULES.md §0.11 rule 2")


def test_a_message_at_the_limits_is_converted():
    played = [pb.Action(notation="draw")] * 2000
    doc = convert.position_to_doc(pb.Position(game_name="prsi", played=played))
    assert doc["played"] == ["draw"] * 2000


def test_lists_within_the_limit_but_too_many_items_in_all_are_refused_before_conversion():
    """1,999 hands of 300 cards each: every list within 2,000 items, 600,000 cards in all, 8 KB
    of gzip; converting them took seconds.  Refused by the total (docs/RULES.md §0.11 rule 2)."""
    message = pb.Position(game_name="marias")
    for _ in range(1999):
        message.hands.add().cards.extend([pb.Card(rank=pb.RANK_ACE, suit=pb.SUIT_SPADES)] * 300)
    with pytest.raises(RequestError) as info:
        convert.position_to_doc(message)
    assert "over 10,000 items in the lists of position together" in str(info.value)
    assert info.value.field.startswith("position.hands[") and info.value.field.endswith("].cards")
    # a repeated number field counts too (it was not checked at all)
    with pytest.raises(RequestError, match="start_scores: 2,001 items"):
        convert.position_to_doc(pb.Position(game_name="mariasz", start_scores=[1] * 2001))


def test_a_document_json_with_too_many_items_in_all_is_refused_before_it_is_parsed():
    text = json.dumps({"game": "marias", "hands": [[0] * 1000] * 1990})      # 4 MB
    with pytest.raises(RequestError) as info:
        convert.load_document(text)
    assert "over 10,000 items" in str(info.value) and info.value.field == "document_json"
    # commas inside strings (escaped quotes and backslashes among them) are no items: read
    text = json.dumps({"game": "marias", "x": ['a,\\",' * 300] * 50})    # 50 items, 45,000 commas
    assert len(text) > 40_000 and text.count(",") > 10_000
    assert convert.load_document(text)["x"][0] == 'a,\\",' * 300


def test_the_comma_count_reads_a_hostile_text_in_one_pass():
    # load_document's pre-count of commas outside strings, over 40,000 characters: an unterminated
    # string of escaped quotes is one string to the end (a 40 KB request froze the server 9 s).
    assert convert.requests._separators('{"a": "x,y", "b": [1, 2]}') == 2
    assert convert.requests._separators('[1, "' + '\\",' * 300_000) == 1
    with pytest.raises(DdcardsError, match="^document_json is not valid JSON: Unterminated string") as info:
        convert.load_document('"' + '\\"' * 300_000, "document_json")
    assert info.value.field == "document_json"


@pytest.mark.parametrize("call, field", [
    (lambda: convert.request_to_doc(pb.SolveRequest()), "position"),
    (lambda: convert.position_to_doc(pb.Position()), "game"),
    (lambda: convert.position_to_doc(pb.Position(game=42)), "game"),
    (lambda: convert.position_to_doc(pb.Position(game_name="marias", contract=9)), "contract"),
    (lambda: convert.position_to_doc(pb.Position(game_name="prsi", game=pb.GAME_MARIAS)), "game"),
    (lambda: convert.option_to_python("horizon", pb.OptionValue()), "option value"),
])
def test_a_request_error_cites_a_rule_not_a_bare_field_name(call, field):
    # ErrorInfo's `rule` (and an ItemError's) is "the rule it breaks" (docs/SERVICE.md); these
    # errors carried "position", "game", "contract" or "option value" there: a field's name.
    with pytest.raises(RequestError) as info:
        call()
    rule = info.value.rule
    assert rule and rule != field and " " in rule and len(rule) > 30, rule
