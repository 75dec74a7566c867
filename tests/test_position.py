"""ddcards.Position: what a position shows (hands, trick, turn, score, legal moves), moving
(play / undo), its text forms, and hands written in every form wherever a hand is read.

The views are checked on hand-worked positions and, differentially, against the
plain-Python references of the rules (tests/reference) over random play.
"""
from __future__ import annotations

import io
import json
import random
import re
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ddcards
from ddcards import Card, IllegalPlayError, NotationError, Position, Score, Suit, TrickCard
from ddcards.examples import example_names
from ddcards.notation import format_cards, format_hand, parse_cards, parse_hand

try:
    from tests.reference import klaverjas as ref_k
    from tests.reference import marias as ref_m
    from tests.reference import mariasz as ref_z
    from tests.reference import prsi as ref_p
except ImportError:  # pytest put tests/ itself on sys.path
    from reference import klaverjas as ref_k
    from reference import marias as ref_m
    from reference import mariasz as ref_z
    from reference import prsi as ref_p

HRA = ddcards.example("marias-hra")          # seat 0: AT.AKQ9.AT.87, trumps H
SEED = ddcards.example("marias-seed")        # the same deal played to the end
BETL = ddcards.example("marias-betl")
KLAVERJAS = ddcards.example("klaverjas")     # trumps S, playing team 1 (seats 1 and 3)


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


# --------------------------------------------------------------------------- hand-checked views

def test_start_of_a_hra_deal():
    pos = Position.from_dict(HRA)
    assert pos.game == "marias" and pos.contract == "hra" and pos.trump is Suit.H
    assert pos.to_move == 0 and pos.ply == 0 and pos.played == () and not pos.is_over
    assert [format_hand(h) for h in pos.hands] == ["AT.AKQ9.AT.87", "KQ.JT87.KQ.AT", "J987..J987.QJ"]
    # hands list suits S H D C, strongest first in the contract's order (Hra: A T K O U 9 8 7)
    assert pos.hands[0] == cards("AS TS AH KH QH 9H AD TD 8C 7C")
    assert pos.legal_moves == tuple(map(str, pos.hands[0]))      # the leader may play anything
    assert pos.trick == ()
    assert pos.table == {"talon": cards("9C KC")}
    assert pos.score == Score(points={"declarer": 0, "defenders": 0}, tricks={"declarer": 0, "defenders": 0},
                              parts={"marriages": {"declarer": 0, "defenders": 0}})


def test_a_led_trump_queen_scores_the_trump_marriage():
    # Seat 0 leads QH holding KH: the marriage of trumps, 40 (RULES.md §1 Points).
    pos = Position.from_dict(HRA).play("QH")
    assert pos.to_move == 1 and pos.ply == 1
    assert pos.trick == (TrickCard(seat=0, card=Card.parse("QH")),)
    assert pos.legal_moves == ("TH",)           # seat 1 must follow and beat the Ober: only the Ten
    assert pos.score.points == {"declarer": 40, "defenders": 0}
    assert pos.score.parts == {"marriages": {"declarer": 40, "defenders": 0}}
    assert Card.parse("QH") not in pos.hands[0] and len(pos.hands[0]) == 9


def test_a_finished_trick_goes_to_its_winner():
    # QH TH 7S: the Ten of trumps wins; the defenders take A/T points: TH = 10.
    pos = Position.from_dict(HRA).play("QH").play("TH").play("7S")
    assert pos.trick == () and pos.to_move == 1                  # the winner leads
    assert pos.score.tricks == {"declarer": 0, "defenders": 1}
    assert pos.score.points == {"declarer": 40, "defenders": 10}
    assert [len(h) for h in pos.hands] == [9, 9, 9]


def test_the_end_of_the_seed_deal():
    pos = Position.from_dict(SEED)
    assert pos.is_over and pos.to_move is None and pos.legal_moves == () and pos.ply == 30
    assert pos.hands == ((), (), ())
    # declarer 90 (cards, last trick, the trump marriage 40), defenders 40: the margin solved, 50
    assert pos.score.points == {"declarer": 90, "defenders": 40}
    assert pos.score.parts["marriages"] == {"declarer": 40, "defenders": 0}
    assert pos.score.tricks == {"declarer": 6, "defenders": 4}
    res = ddcards.solve(pos)
    assert res.value == 50 == pos.score.points["declarer"] - pos.score.points["defenders"]
    assert res.scores == pos.score.points


def test_betl_counts_tricks_only():
    pos = Position.from_dict(BETL)
    assert pos.contract == "betl" and pos.trump is None
    assert pos.score == Score(tricks={"declarer": 0, "defenders": 0})
    # betl ranks: A K O U T 9 8 7
    assert pos.hands[0] == cards("TS 9S 8S 7S 8H TD 7D 9C 8C 7C")


def test_klaverjas_trick_with_roem():
    # Seat 0 leads 9D; JD, TD, AD follow: 9-T-J of diamonds is a sequence of three, 20 roem.
    # AD wins (plain suit: A highest) for seat 3, of the playing team (1: seats 1 and 3):
    # cards 0 + 2 + 10 + 11 = 23, plus the roem.
    pos = Position.from_dict(KLAVERJAS)
    assert pos.contract == "play" and pos.trump is Suit.S and pos.table == {}
    for move in ("9D", "JD", "TD"):
        pos = pos.play(move)
    assert pos.trick == (TrickCard(0, Card.parse("9D")), TrickCard(1, Card.parse("JD")),
                         TrickCard(2, Card.parse("TD")))
    assert pos.to_move == 3 and pos.legal_moves == ("AD",)
    pos = pos.play("AD")
    assert pos.trick == () and pos.to_move == 3
    assert pos.score == Score(points={"playing": 43, "other": 0}, tricks={"playing": 1, "other": 0},
                              parts={"roem": {"playing": 20, "other": 0}})


def test_a_mariasz_trick_with_a_marriage_and_the_draws():
    # Szlifowany, trumps D.  Seat 0 leads KC holding QC: the clubs marriage, 20, scores on the
    # lead.  Seat 1 answers JC (no obligation while the stock lasts); KC wins: K 4 + J 2.  The
    # winner draws first: TC to seat 0, JS to seat 1 (RULES §3.3).
    pos = Position.from_dict(ddcards.example("mariasz-szlifowany"))
    assert pos.table == {"stock": cards("TC JS KS 6S TH KD JH AC QH AS JD AD")}
    assert pos.hands == (cards("TS QD TD 6D KC QC"), cards("QS AH KH 6H JC 6C"))   # trumps: Q (pamfil) first
    pos = pos.play("KC")
    assert pos.trick == (TrickCard(0, Card.parse("KC")),) and pos.to_move == 1
    assert pos.score.points == {"seat0": 20, "seat1": 0}
    pos = pos.play("JC")
    assert pos.trick == () and pos.to_move == 0
    assert pos.hands == (cards("TS QD TD 6D TC QC"), cards("QS JS AH KH 6H 6C"))
    assert pos.table == {"stock": cards("KS 6S TH KD JH AC QH AS JD AD")}
    assert pos.score == Score(points={"seat0": 26, "seat1": 0}, tricks={"seat0": 1, "seat1": 0},
                              parts={"marriages": {"seat0": 20, "seat1": 0}})
    shown = str(pos)
    assert shown.splitlines()[0] == "Mariasz, trumps D, szlifowany - seat 0 (forehand) to move"
    assert "  stock             KS 6S TH KD JH AC QH AS JD AD" in shown
    assert "  points            seat0 26, seat1 0 (marriages: seat0 20, seat1 0)" in shown


def test_a_race_shows_the_totals_and_the_claim():
    # From 95 / 102: seat 1 leads KD holding QD, a 20 marriage on lead, which takes him from
    # 102 + 22 to 144 >= 131: he claims at once, before the trick is played out (RULES §3.8).
    line = ["exchange", "8C", "TH", "7S", "QH", "9S", "TS", "7C", "TC", "6C", "JC"]
    pos = Position.from_dict(dict(ddcards.example("mariasz-race"), played=line))
    assert pos.table["race"] == "seat 0 116, seat 1 124 (first to 131 wins)" and "claimed" not in pos.table
    pos = pos.play("KD")
    assert pos.is_over and pos.to_move is None and pos.legal_moves == ()
    assert pos.table["race"] == "seat 0 116, seat 1 144 (first to 131 wins)"
    assert pos.table["claimed"] == "seat 1 reached 131"
    assert pos.score.parts["marriages"] == {"seat0": 0, "seat1": 20}
    assert "  claimed           seat 1 reached 131" in str(pos)


def test_kiks_scores_by_team_and_shows_no_stock():
    pos = Position.from_dict(ddcards.example("mariasz-kiks"))
    assert pos.table == {} and len(pos.hands) == 4 and all(len(hand) == 7 for hand in pos.hands)
    assert pos.score.points == {"team0": 0, "team1": 34} and pos.score.tricks == {"team0": 0, "team1": 2}
    assert "  seat 2  team 0  S: QT  H: Q86  D: 8  C: J" in str(pos)


def test_the_prsi_table_shows_the_top_card_and_what_it_asks():
    # The endgame example: 7H on top starts a chain; seat 0 adds 7D (draw 4 now), seat 1 holds
    # no 7 and draws the four cards at the stock's front (RULES §4).
    pos = Position.from_dict(ddcards.example("prsi-endgame"))
    assert pos.table == {"top": Card.parse("7H"), "7s active": "draw 2 or play a 7",
                         "stock": cards("7S 7C JC TC 8C AD AH JH KH JS TD 9D 8D AC AS 9C"),
                         "pile": cards("KC QD QC 9S QS 8H TH")}
    assert pos.score == Score() and pos.trick == ()
    pos = pos.play("7D")
    assert pos.table["7s active"] == "draw 4 or play a 7" and pos.legal_moves == ("draw",)
    pos = pos.play("draw")
    assert pos.hands[1] == cards("KS 8S 7S 9H KD JD JC TC 7C")
    assert pos.table["top"] == Card.parse("7D") and "7s active" not in pos.table
    assert pos.table["stock"][:2] == cards("8C AD") and pos.table["pile"][-1] == Card.parse("7H")
    ober = Position.from_dict(ddcards.example("prsi"))
    assert ober.table["top"] == Card.parse("QH") and ober.table["suit to play"] is Suit.H
    assert "  top               QH\n  suit to play      H\n" in str(ober)


@pytest.mark.parametrize("name", example_names())
def test_every_bundled_example_shows_its_table(name):
    """Every game draws its position: a line per seat with the cards it holds, and a Score."""
    pos = Position.from_dict(ddcards.example(name))
    shown = str(pos)
    assert isinstance(pos.score, Score)
    rows = re.findall(r"^  seat (\d)  .*?(S: .*)$", shown, flags=re.M)
    assert [int(seat) for seat, _ in rows] == list(range(len(pos.hands))) and len(pos.hands) >= 2
    assert [set(parse_hand(text)) for _, text in rows] == [set(hand) for hand in pos.hands]
    for name, value in pos.table.items():
        assert f"  {name}" in shown


# --------------------------------------------------------------------------- the views against the references

def _random_marias_doc(rng: random.Random, contract: str) -> dict:
    while True:
        deck = list(ref_m.DECK)
        rng.shuffle(deck)
        talon = deck[30:]
        if contract != "hra" or not any(c[0] in "AT" for c in talon):
            break
    doc = {"game": "marias", "contract": contract, "talon": " ".join(talon),
           "hands": [ref_m.format_hand(deck[i:i + 10]) for i in (0, 10, 20)]}
    if contract == "hra":
        doc["trump"] = rng.choice("SHDC")
        doc["options"] = {"marriage_on_follow": rng.random() < 0.5}
    return doc


def _check_hands_and_trick(pos: Position, state, seats: int) -> None:
    assert pos.to_move == state.to_move
    assert set(pos.legal_moves) == set(state.legal_moves())
    assert [{str(c) for c in hand} for hand in pos.hands] == [set(h) for h in state.hands]
    assert [str(tc.card) for tc in pos.trick] == list(state.trick)
    assert [tc.seat for tc in pos.trick] == [(state.leader + i) % seats for i in range(len(state.trick))]
    assert pos.is_over == state.over


@settings(deadline=None, max_examples=150)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["hra", "hra", "betl", "durch"]), st.integers(0, 30))
def test_marias_views_match_the_reference(seed, contract, plies):
    rng = random.Random(seed)
    doc = _random_marias_doc(rng, contract)
    state = ref_m.from_doc(doc)
    played = []
    for _ in range(plies):
        move = rng.choice(state.legal_moves())
        state = state.play(move)
        played.append(move)
    pos = Position.from_dict(dict(doc, played=played))
    _check_hands_and_trick(pos, state, 3)
    tricks = {"declarer": state.declarer_tricks, "defenders": state.tricks_done - state.declarer_tricks}
    assert pos.score.tricks == tricks
    if contract == "hra":
        assert pos.score.points == {"declarer": state.cards[0] + state.marriages[0],
                                    "defenders": state.cards[1] + state.marriages[1]}
        assert pos.score.parts == {"marriages": dict(zip(("declarer", "defenders"), state.marriages))}
    else:
        assert pos.score.points == {} and pos.score.parts == {}


@settings(deadline=None, max_examples=100)
@given(st.integers(0, 2**32 - 1), st.integers(0, 32))
def test_klaverjas_views_match_the_reference(seed, plies):
    rng = random.Random(seed)
    deck = list(ref_k.DECK)
    rng.shuffle(deck)
    doc = {"game": "klaverjas", "trump": rng.choice("SHDC"), "playing_team": rng.randrange(2),
           "rules": rng.choice(["amsterdam", "rotterdam"]), "leader": rng.randrange(4),
           "hands": [ref_k.format_hand(deck[i:i + 8]) for i in range(0, 32, 8)]}
    state = ref_k.from_doc(doc)
    played = []
    for _ in range(plies):
        move = rng.choice(state.legal_moves())
        state = state.play(move)
        played.append(move)
    pos = Position.from_dict(dict(doc, played=played))
    _check_hands_and_trick(pos, state, 4)
    teams = ("playing", "other")
    assert pos.score == Score(points=dict(zip(teams, state.points)), tricks=dict(zip(teams, state.tricks)),
                              parts={"roem": dict(zip(teams, state.roem))})


def _mariasz_side_names(players: int) -> list[str]:
    return [f"team{i}" for i in range(2)] if players == 4 else [f"seat{i}" for i in range(players)]


@settings(deadline=None, max_examples=150)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["standard", "standard", "kiks", "three"]), st.booleans(),
       st.integers(0, 40))
def test_mariasz_views_match_the_reference(seed, variant, szlifowany, plies):
    rng = random.Random(seed)
    deal = ref_z.random_deal(rng, variant=variant, szlifowany=szlifowany and variant != "kiks",
                             slepy=rng.random() < 0.2)
    if rng.random() < 0.4:          # a race, often from start scores near 131 (claims come early)
        sides = 2 if variant == "kiks" else len(deal["hands"])
        deal.update(objective="race", start_scores=[rng.choice([0, rng.randrange(131)]) for _ in range(sides)])
    doc = ref_z.random_history(rng, deal, plies)
    state = ref_z.from_doc(doc)
    pos = Position.from_dict(doc)
    players = state.rules.players
    assert pos.to_move == state.to_move and pos.is_over == state.over
    assert set(pos.legal_moves) == set(state.legal())
    assert [{str(c) for c in hand} for hand in pos.hands] == [set(h) for h in state.hands]
    assert [(tc.seat, str(tc.card)) for tc in pos.trick] == [(seat, card) for seat, card, _ in state.trick]
    sides = _mariasz_side_names(players)
    table = {"stock": cards(" ".join(state.stock))} if players == 2 else {}
    if state.rules.objective == "race":
        totals = [start + points for start, points in zip(state.rules.start, state.points)]
        words = [side.replace("seat", "seat ").replace("team", "team ") for side in sides]    # read as words
        table["race"] = ", ".join(f"{side} {total}" for side, total in zip(words, totals)) + " (first to 131 wins)"
        if state.claimed is not None:
            table["claimed"] = f"{words[state.claimed]} reached 131"
    assert pos.table == table
    marriages = [0] * len(sides)
    for seat, announced in enumerate(state.marriages):
        marriages[state.rules.side(seat)] += sum(value for _, value in announced)
    assert pos.score == Score(points=dict(zip(sides, state.points)), tricks=dict(zip(sides, state.tricks)),
                              parts={"marriages": dict(zip(sides, marriages))})


@settings(deadline=None, max_examples=150)
@given(st.integers(0, 2**32 - 1), st.integers(2, 4), st.integers(0, 40))
def test_prsi_views_match_the_reference(seed, seats, plies):
    rng = random.Random(seed)
    deck = list(ref_p.DECK)
    rng.shuffle(deck)
    hands = [deck[4 * i:4 * i + 4] for i in range(seats)]
    upcard, stock = deck[4 * seats], deck[4 * seats + 1:]
    rules = ref_p.Rules(seats, False, False)
    state = ref_p.start(hands, stock, upcard)
    played = []
    for _ in range(plies):
        after = ref_p.play(rules, state, rng.choice(ref_p.legal_actions(state)))
        if after.done:
            break
        played.append(after)
        state = after
    history = []
    replay = ref_p.start(hands, stock, upcard)
    for after in played:        # the actions, found again by the state each one led to
        history.append(next(a for a in ref_p.legal_actions(replay) if ref_p.play(rules, replay, a) == after))
        replay = after
    doc = {"game": "prsi", "hands": [" ".join(h) for h in hands], "upcard": upcard, "stock": " ".join(stock),
           "played": history}
    pos = Position.from_dict(doc)
    assert pos.to_move == state.turn and set(pos.legal_moves) == set(ref_p.legal_actions(state))
    assert [{str(c) for c in hand} for hand in pos.hands] == [set(h) for h in state.hands]
    for hand in pos.hands:      # suits S H D C, the highest first
        assert list(hand) == sorted(hand, key=lambda c: (c.suit, -c.rank))
    assert pos.table["top"] == Card.parse(state.top)
    assert pos.table["stock"] == cards(" ".join(state.stock))
    assert pos.table["pile"] == cards(" ".join(state.pile[:-1]))
    assert ("7s active" in pos.table) == bool(state.sevens) and ("ace active" in pos.table) == state.ace
    if state.top[0] == "Q":
        assert str(pos.table["suit to play"]) == state.suit
    assert pos.score == Score() and pos.trick == ()


# --------------------------------------------------------------------------- moving

def test_play_and_undo_return_new_positions():
    start = Position.from_dict(HRA)
    after = start.play("QH")
    assert start.played == () and start.to_move == 0          # unchanged: positions are values
    assert after.played == ("QH",)
    assert after.undo() == start and hash(after.undo()) == hash(start)
    assert after.play("TH").play("7S").undo().undo() == after
    assert after.start() == start
    assert start.play(Card.parse("QH")) == after == start.play("oh") == start.play("Q♥")


def test_walking_a_whole_deal_forward_and_back():
    pos = Position.from_dict(HRA)
    seen = [pos]
    for move in SEED["played"]:
        assert move in pos.legal_moves
        pos = pos.play(move)
        seen.append(pos)
    assert pos == Position.from_dict(SEED) and pos.is_over
    for earlier in reversed(seen[:-1]):
        pos = pos.undo()
        assert pos == earlier
    with pytest.raises(IndexError, match="nothing has been played"):
        pos.undo()
    with pytest.raises(ddcards.IllegalPlayError) as err:          # a DdcardsError too, naming the field
        pos.undo()
    assert err.value.field == "played" and err.value.reason == "ILLEGAL_PLAY"


def test_an_illegal_move_names_the_ply_and_the_rule():
    pos = Position.from_dict(HRA).play("QH")
    with pytest.raises(IllegalPlayError) as info:
        pos.play("7H")
    assert "played[1] '7H' by seat 1: must beat QH" in str(info.value)
    assert info.value.token == "7H"
    with pytest.raises(IllegalPlayError, match=r"played\[1\] 'AS' by seat 1: that card is in seat 0's hand"):
        pos.play("AS")
    with pytest.raises(ddcards.InvalidCardError, match="played\\[1\\]: unknown card 'ZZ'"):
        pos.play("ZZ")
    with pytest.raises(NotationError, match="a move is action notation such as 'TH' or a Card, not int") as bad:
        pos.play(5)  # type: ignore[arg-type]
    assert bad.value.token == "5"
    with pytest.raises(IllegalPlayError) as over:
        Position.from_dict(SEED).play("AS")
    # Nobody is to move once the deal is over: the message names no seat.
    assert str(over.value) == ("played[30] 'AS': the deal is over: all ten tricks have been played (docs/RULES.md "
                               "§0.7 rule 4: once every card has been played, nothing more may be played)")
    assert over.value.token == "AS" and "seat" not in str(over.value)


@pytest.mark.parametrize("example", ["marias-seed", "prsi-endgame", "klaverjas", "mariasz-recorded"])
def test_an_action_after_the_end_names_no_seat(example):
    pos = Position.from_dict(ddcards.example(example))
    for move in ddcards.solve(pos, mode="best").pv:          # play the deal out
        pos = pos.play(move)
    assert pos.is_over and pos.to_move is None
    with pytest.raises(IllegalPlayError) as info:
        pos.play("AS")
    assert str(info.value).startswith(f"played[{pos.ply}] 'AS': the ") and "by seat" not in str(info.value)


@pytest.mark.parametrize("moves,count,game", [("AS KS", 2, HRA), ("AS, KS, QS", 3, HRA),
                                              ("draw pass", 2, ddcards.example("prsi"))])
def test_play_takes_one_action_not_several(moves, count, game):
    pos = Position.from_dict(game)
    with pytest.raises(NotationError) as info:
        pos.play(moves)
    first, second = moves.replace(",", " ").split()[:2]
    assert str(info.value) == (f"play() takes one action, got {count}: {moves!r} (play them one at a time: "
                               f".play({first!r}).play({second!r}))")
    assert info.value.token == moves and info.value.field == "played[0]" and info.value.rule == "play(): one action"


def test_views_do_not_disturb_solving():
    # Reading the score steps the position's own board back and forth; the solve after it
    # must see the position as it was.
    doc = dict(SEED, played=SEED["played"][:13])
    pos = Position.from_dict(doc)
    assert pos.score.parts["marriages"]["declarer"] == 40
    assert ddcards.solve(pos).to_dict() | {"nodes": 0, "elapsed_ms": 0} == \
        ddcards.solve(Position.from_dict(doc)).to_dict() | {"nodes": 0, "elapsed_ms": 0}
    assert pos.hands == Position.from_dict(doc).hands


def test_views_from_many_threads():
    positions = [Position.from_dict(dict(SEED, played=SEED["played"][:n])) for n in range(31)]
    expected = [(p.score, p.hands, p.trick) for p in
                (Position.from_dict(dict(SEED, played=SEED["played"][:n])) for n in range(31))]
    out: dict[int, list] = {}

    def work(k: int) -> None:
        out[k] = [(p.score, p.hands, p.trick) for p in positions]
        ddcards.Solver().solve(positions[20])

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(out[k] == expected for k in range(4))


# --------------------------------------------------------------------------- text forms, equality

HRA_AFTER_QH = """\
Mariáš hra, trumps H - seat 1 (defender) to move
  seat 0  declarer  S: AT  H: AK9  D: AT  C: 87
  seat 1  defender  S: KQ  H: JT87  D: KQ  C: AT
  seat 2  defender  S: J987  H: -  D: J987  C: QJ
  talon             9C KC
  trick             QH (seat 0)
  points            declarer 40, defenders 0 (marriages: declarer 40, defenders 0)
  tricks            declarer 0, defenders 0"""


def test_str_draws_the_table():
    assert str(Position.from_dict(HRA).play("QH")) == HRA_AFTER_QH
    klaverjas = str(Position.from_dict(KLAVERJAS).play("9D"))
    assert klaverjas.splitlines()[0] == ("Klaverjas (Amsterdam), trumps S, playing team 1 (seats 1 and 3)"
                                         " - seat 1 (playing team) to move")
    assert "  seat 3  playing team  S: Q7  H: Q87  D: A  C: QJ" in klaverjas
    assert "  trick                 9D (seat 0)" in klaverjas
    assert "  points                playing 0, other 0 (roem: playing 0, other 0)" in klaverjas
    over = str(Position.from_dict(SEED))
    assert over.startswith("Mariáš hra, trumps H - the deal is over\n")
    assert "points            declarer 90, defenders 40" in over
    betl = str(Position.from_dict(BETL))
    assert "points" not in betl and "tricks            declarer 0, defenders 0" in betl


def test_the_hands_str_shows_read_back():
    pos = Position.from_dict(dict(SEED, played=SEED["played"][:7]))
    shown = re.findall(r"seat \d  \w+\s+(S: .*)$", str(pos), flags=re.M)
    assert len(shown) == 3
    assert [set(parse_hand(text)) for text in shown] == [set(hand) for hand in pos.hands]


def test_repr_round_trips():
    for pos in (Position.from_dict(HRA).play("QH"), Position.from_dict(KLAVERJAS), Position.from_dict(BETL)):
        again = eval(repr(pos), {"Position": Position})
        assert again == pos and hash(again) == hash(pos) and str(again) == str(pos)


def test_equality_and_hashing_are_by_the_canonical_document():
    a = Position.from_dict(dict(HRA, played=["QH"]))
    b = Position.from_dict(dict(HRA, trump="hearts", game="Mariáš", played=["OH"],
                                hands=["S: AT  H: AKQ9  D: AT  C: 87", "KS QS TH JH 8H 7H KD QD AC TC",
                                       ["JS", "9S", "8S", "7S", "JD", "9D", "8D", "7D", "QC", "JC"]]))
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != Position.from_dict(HRA) and a != "QH"


def test_positions_pickle_and_copy():
    import copy
    import pickle

    pos = Position.from_dict(KLAVERJAS).play("9D")
    for again in (pickle.loads(pickle.dumps(pos)), copy.copy(pos), copy.deepcopy(pos)):
        assert again == pos and again.trick == pos.trick and again.legal_moves == pos.legal_moves
        assert ddcards.solve(again, mode="best").value == ddcards.solve(pos, mode="best").value


def test_a_position_can_be_referred_to_weakly():
    # A cache of answers by position that lets them go with the positions (a WeakKeyDictionary, a
    # weakref.finalize), as a python-chess Board allows: the slots left no room for a weak reference
    import gc
    import weakref

    pos = Position.from_dict(HRA).play("QH")
    answers: weakref.WeakKeyDictionary[Position, int] = weakref.WeakKeyDictionary()
    answers[pos] = ddcards.solve(pos).value
    assert answers[Position.from_dict(dict(HRA, played=["QH"]))] == answers[pos]     # found by equality
    ref = weakref.ref(pos)
    assert ref() is pos
    del pos
    gc.collect()
    assert ref() is None and len(answers) == 0
    assert not hasattr(Position.from_dict(HRA), "__dict__")     # still slots: no attribute of one's own


def test_table_is_a_copy():
    pos = Position.from_dict(HRA)
    pos.table["talon"] = ()
    assert pos.table == {"talon": cards("9C KC")}


# --------------------------------------------------------------------------- hands in every form, wherever a hand is

HRA_HANDS = {
    "pbn": HRA["hands"],
    "display": ["S: AT  H: AKQ9  D: AT  C: 87", "S: KQ  H: JT87  D: KQ  C: AT", "S: J987  H: -  D: J987  C: QJ"],
    "card list": ["AS TS AH KH QH 9H AD TD 8C 7C", "KS QS TH JH 8H 7H KD QD AC TC",
                  "JS 9S 8S 7S JD 9D 8D 7D QC JC"],
    "JSON list": [["AS", "TS", "AH", "KH", "QH", "9H", "AD", "TD", "8C", "7C"],
                  ["KS", "QS", "TH", "JH", "8H", "7H", "KD", "QD", "AC", "TC"],
                  ["JS", "9S", "8S", "7S", "JD", "9D", "8D", "7D", "QC", "JC"]],
}


@pytest.mark.parametrize("form", list(HRA_HANDS))
def test_marias_hands_in_every_form(form):
    pos = Position.from_dict(dict(HRA, hands=HRA_HANDS[form]))
    assert pos == Position.from_dict(HRA)
    assert pos.to_dict()["hands"] == ["AT.AKQ9.AT.87", "KQ.JT87.KQ.AT", "J987..J987.QJ"]   # canonical


def test_klaverjas_hands_in_every_form_and_dutch_names():
    display = [format_hand(parse_hand(h), style="display") for h in KLAVERJAS["hands"]]
    listed = [format_cards(parse_hand(h)) for h in KLAVERJAS["hands"]]
    base = Position.from_dict(KLAVERJAS)
    assert Position.from_dict(dict(KLAVERJAS, hands=display)) == base
    assert Position.from_dict(dict(KLAVERJAS, hands=listed)) == base
    assert Position.from_dict(dict(KLAVERJAS, trump="schoppen")) == base
    from ddcards.ddtable import dd_table
    assert dd_table(dict(KLAVERJAS, hands=display))["values"] == dd_table(KLAVERJAS)["values"]
    assert Position.from_dict(dict(KLAVERJAS, trump="klaveren")).trump is Suit.C
    assert Position.from_dict(dict(KLAVERJAS, trump="Harten")).to_dict()["trump"] == "H"
    with pytest.raises(ddcards.InvalidCardError, match="unknown suit 'klaver-en'") as info:
        Position.from_dict(dict(KLAVERJAS, trump="klaver-en"))
    assert info.value.token == "klaver-en"


def test_the_solve_output_hands_read_back():
    # The hand lines `ddcards solve` prints are accepted as they are.
    from ddcards import cli

    pos = Position.from_dict(HRA)
    out = io.StringIO()
    cli.print_result(ddcards.solve(pos), pos, out)
    shown = re.findall(r"^  seat \d  \w+\s+(S: .*)$", out.getvalue(), flags=re.M)
    assert len(shown) == 3
    assert Position.from_dict(dict(HRA, hands=shown)) == pos


def test_hands_in_every_form_over_grpc():
    # The service reads hands from the Position message (notation or structured cards) and
    # from document_json; every form arrives at the same position.
    from ddcards.server import convert
    from ddcards.v1 import ddcards_pb2 as pb

    expected = Position.from_dict(HRA)

    def via_message(doc):
        msg = convert.doc_to_position(doc)
        source = ({"position": msg} if msg is not None
                  else {"document_json": json.dumps(doc, ensure_ascii=False)})
        request = pb.SolveRequest(**source)
        return Position.from_dict(convert.request_to_doc(request))

    for form, hands in HRA_HANDS.items():
        doc = dict(HRA, hands=hands)
        assert via_message(doc) == expected, form
        request = pb.SolveRequest(document_json=json.dumps(doc))
        assert Position.from_dict(convert.request_to_doc(request)) == expected, form
    message = pb.Position(game_name="marias", contract_name="hra", trump=pb.SUIT_HEARTS,
                          talon=pb.Cards(notation="9C KC"),
                          hands=[pb.Cards(notation=HRA_HANDS["display"][0]),
                                 pb.Cards(notation=HRA_HANDS["card list"][1]),
                                 pb.Cards(cards=[pb.Card(notation=c) for c in HRA_HANDS["JSON list"][2]])])
    assert Position.from_dict(convert.position_to_doc(message)) == expected


def test_a_bad_hand_form_names_the_token():
    hands = list(HRA["hands"])
    hands[1] = "S: KQ  H: JT87  D: KQ"
    with pytest.raises(NotationError, match="does not name suit C") as info:
        Position.from_dict(dict(HRA, hands=hands))
    assert info.value.rule and "display form" in info.value.rule
    hands[1] = "KS QS TH JH 8H 7H KD QD AC 1C"
    with pytest.raises(ddcards.InvalidCardError, match="unknown card '1C'") as bad:
        Position.from_dict(dict(HRA, hands=hands))
    assert bad.value.token == "1C"


def test_a_marias_talon_is_one_position_however_its_two_cards_are_written():
    """The talon is two discards, not a sequence: "9C KC" and "KC 9C" are one position (equal,
    one hash, one canonical document: what the batch keys a position by)."""
    doc = ddcards.example("marias-hra")
    first, second = doc["talon"].split()
    swapped = ddcards.Position.from_dict(dict(doc, talon=f"{second} {first}"))
    plain = ddcards.Position.from_dict(doc)
    assert swapped == plain and hash(swapped) == hash(plain)
    assert swapped.to_dict() == plain.to_dict() and plain.to_dict()["talon"] == "9C KC"   # the cards' order
    assert ddcards.solve(swapped).value == ddcards.solve(plain).value == 70


@pytest.mark.parametrize("name", ["marias-hra", "klaverjas", "mariasz"])
def test_a_documents_trump_may_be_the_suit_a_position_hands_out(name):
    doc = ddcards.example(name)
    pos = ddcards.Position.from_dict(doc)
    assert isinstance(pos.trump, ddcards.Suit)
    assert ddcards.Position.from_dict(dict(doc, trump=pos.trump)) == pos


def test_a_prsi_upcard_may_be_the_card_a_position_hands_out():
    doc = ddcards.example("prsi-endgame")
    start = ddcards.Position.from_dict(dict(doc, played=[]))
    top = start.table["top"]
    assert isinstance(top, ddcards.Card) and str(top) == doc["upcard"]
    assert ddcards.Position.from_dict(dict(doc, upcard=top)) == ddcards.Position.from_dict(doc)


def test_a_move_or_a_document_of_the_wrong_type_is_a_type_error_too():
    # README: a bad argument of the wrong type is a TypeError as well as a DdcardsError
    position = ddcards.Position.from_dict(ddcards.example("marias-hra"))
    for call in (lambda: position.play(None), lambda: position.play(5), lambda: ddcards.Position.from_json(None),
                 lambda: ddcards.Card.parse(None), lambda: ddcards.parse_hand(5),
                 lambda: ddcards.solve(5), lambda: ddcards.Position.from_dict(None),
                 lambda: ddcards.Position(memoryview(b"{}")), lambda: ddcards.dd_table(3)):
        with pytest.raises(ddcards.NotationTypeError) as info:
            call()
        assert isinstance(info.value, TypeError) and isinstance(info.value, ddcards.NotationError)


def test_is_legal_takes_a_move_as_play_does():
    # legal_moves is canonical text: a Card or an alias is not "in" it, which is_legal answers for
    position = ddcards.Position.from_dict(ddcards.example("marias-hra"))
    assert ddcards.Card.parse("AS") not in position.legal_moves
    for move in ("AS", "as", ddcards.Card.parse("AS"), "10S", "XS", " TS "):
        assert position.is_legal(move), move
    assert not position.is_legal("9C") and not position.is_legal("KC")   # held / in the talon: not legal
    with pytest.raises(ddcards.NotationError):
        position.is_legal("ZZ")
    with pytest.raises(ddcards.NotationTypeError):
        position.is_legal(None)
    prsi = ddcards.Position.from_dict(ddcards.example("prsi"))
    assert prsi.is_legal("OS/H") and prsi.is_legal("Draw") and not prsi.is_legal("QS") and not prsi.is_legal("pass")
    over = ddcards.Position.from_dict(ddcards.example("mariasz-recorded"))
    assert over.is_over and not over.is_legal("AS")
    assert all(position.is_legal(move) for move in position.legal_moves)
    # An action of the notation this game lacks is not legal (it raised InvalidCardError: a
    # review's find), and text that is no action raises in a finished deal too (it was False)
    for move in ("6H", ddcards.Card.parse("6H"), "draw", "pass", "exchange", "QH/S"):
        assert not position.is_legal(move), move
    assert not ddcards.Position.from_dict(ddcards.example("mariasz-szlifowany")).is_legal("7H")
    for bad in ("ZZ", "", "QH/X", "draw 2"):
        with pytest.raises(ddcards.NotationError):
            over.is_legal(bad)


@pytest.mark.parametrize("move, advice", [
    ("QS / H", "an Ober names its suit without spaces: .play('QS/H')"),
    ("draw 2", "a draw is one action, 'draw', however many cards it takes"),
    ("10 H", "a card is one token: .play('10H')"),
    ("7S 7H", "play them one at a time: .play('7S').play('7H')"),
])
def test_several_tokens_get_advice_that_fits_them(move, advice):
    prsi = ddcards.Position.from_dict(ddcards.example("prsi"))
    with pytest.raises(ddcards.NotationError) as info:
        prsi.play(move)
    assert str(info.value).endswith(f"({advice})")
    # is_legal takes a move as play does: several tokens are no move (it answered 'QS / H' False)
    with pytest.raises(ddcards.NotationError) as info:
        prsi.is_legal(move)
    assert str(info.value).startswith("is_legal() takes one action") and str(info.value).endswith(f"({advice})")


def test_advice_on_prsi_actions_is_given_in_prsi_only():
    # Mariáš has no Ober naming a suit and no draw: "QS /H" told to play 'QS/H', or .play('/'), was
    # advice it refused; the token it has no use for is named instead
    hra = ddcards.Position.from_dict(ddcards.example("marias-hra"))
    for move, advice in (("QS / H", "'/' is no action of Mariáš (Volený mariáš)"),
                         ("QS /H", "'/H' is no action of Mariáš (Volený mariáš)"),
                         ("draw 2", "'draw' is no action of Mariáš (Volený mariáš)"),
                         ("AS TS", "play them one at a time: .play('AS').play('TS')"),
                         ("7S foo", "'foo' is no action of Mariáš (Volený mariáš)"),
                         ("AS TS foo", "play them one at a time: .play('AS').play('TS')"),
                         ("7S " + "x" * 40, "'xxxxxxxxxxxxxxxxxxxx'… (40 characters) is no action of Mariáš (Volený mariáš)")):
        with pytest.raises(ddcards.NotationError) as info:
            hra.play(move)
        assert str(info.value).endswith(f"({advice})")
    # in Prší the same slips get the Prší advice
    prsi = ddcards.Position.from_dict(ddcards.example("prsi"))
    for move, advice in (("QS /H", "an Ober names its suit without spaces: .play('QS/H')"),
                         ("draw 2", "a draw is one action, 'draw', however many cards it takes")):
        with pytest.raises(ddcards.NotationError) as info:
            prsi.play(move)
        assert str(info.value).endswith(f"({advice})")


def test_a_suits_name_inside_a_card_is_told_apart_from_no_suit():
    with pytest.raises(ddcards.InvalidCardError, match="'herz' is a suit's name, and a card writes its suit as one "
                                                      "letter or symbol"):
        ddcards.Card.parse("Aherz")
    assert ddcards.Suit.parse("herz") is ddcards.Suit.H
    with pytest.raises(ddcards.InvalidCardError, match="'Z' is not a suit"):
        ddcards.Card.parse("AZ")


def test_json_of_another_kind_is_bad_notation_not_a_type_error():
    # the text is of the right type; what it holds is no object: a NotationError only
    for call in (lambda: ddcards.Position.from_json("5"), lambda: ddcards.solve("[1]"), lambda: ddcards.dd_table(b"null")):
        with pytest.raises(ddcards.NotationError, match="a position is a JSON object, not ") as info:
            call()
        assert not isinstance(info.value, TypeError)


def test_a_dd_table_takes_the_utf8_bytes_of_a_document_as_solve_does():
    doc = {"game": "klaverjas", "hands": ["AKQJT987...", ".AKQJT987..", "..AKQJT987.", "...AKQJT987"]}
    assert ddcards.dd_table(json.dumps(doc).encode())["values"] == ddcards.dd_table(doc)["values"]
    with pytest.raises(ddcards.NotationError, match="byte"):
        ddcards.dd_table(b"\xff{}")


def test_json_text_given_for_a_dict_names_the_method_that_reads_it_and_back():
    """Position(text) and Position.from_dict(text) said only "a position is a JSON object, not
    text", where solve() takes the same text: a newcomer holding JSON learns which method reads it
    (and from_json given a dict which method takes that), an audit."""
    doc = ddcards.example("marias-hra")
    text = ddcards.Position.from_dict(doc).to_json()
    for call in (lambda: ddcards.Position(text), lambda: ddcards.Position.from_dict(text),
                 lambda: ddcards.Position.from_dict(text.encode())):
        with pytest.raises(ddcards.NotationTypeError) as info:
            call()
        assert str(info.value).startswith("a position is a JSON object, not ")
        assert str(info.value).endswith("(Position.from_json reads a position from its JSON text)")
        assert isinstance(info.value, TypeError)
    with pytest.raises(ddcards.NotationTypeError) as info:
        ddcards.Position.from_json(doc)
    assert str(info.value).startswith("a position document is JSON text, not dict ")
    assert str(info.value).endswith("(Position.from_dict takes a position document as a dict)")
    with pytest.raises(ddcards.NotationTypeError) as info:      # nothing to point at for a number
        ddcards.Position(5)
    assert str(info.value) == "a position is a JSON object, not a number"


def test_a_hand_holds_cards_and_a_move_is_text_as_the_readme_says():
    """README: a hand holds Cards, which are no strings ("TH" in a hand is False), and a hand's
    card meets a legal move by its text."""
    pos = ddcards.Position.from_dict(ddcards.example("marias-hra"))
    assert ddcards.Card.parse("TH") in pos.hands[1] and "TH" not in pos.hands[1]
    mover = pos.hands[pos.to_move]
    assert sorted(str(card) for card in mover if str(card) in pos.legal_moves) == sorted(pos.legal_moves)
