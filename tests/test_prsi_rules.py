"""Prší rules, clause by clause (docs/RULES.md §4), on hand-built deals.

Each test names the clause it checks.  Deals are written as the hands, the upcard and the head
of the stock; the rest of the 32 cards follows in the stock in deck order (``deal``).
"""
import pytest

import ddcards
from ddcards.games import prsi
from ddcards.games._cards import OWN_CARD_RULE
from ddcards.games._document import HAND_SIZE_RULE, OPTION_RANGE_RULE
from ddcards import IllegalPlayError, InvalidCardError, InvalidDealError, InvalidOptionError, NotationError

DECK = [r + s for s in "SHDC" for r in "789TJQKA"]


def deal(hands, upcard, stock_head="", **fields):
    """A full deal: `hands` (lists of cards), the upcard, the stock starting with `stock_head`."""
    used = {c for h in hands for c in h} | {upcard}
    head = stock_head.split()
    rest = [c for c in DECK if c not in used and c not in head]
    return {"game": "prsi", "hands": [list(h) for h in hands], "upcard": upcard,
            "stock": " ".join(head + rest), **fields}


def pos(doc, *played, **options):
    if options:
        doc = dict(doc, options={**doc.get("options", {}), **options})
    return ddcards.Position.from_dict(dict(doc, played=list(played)))


def view(position):
    """(hands as S.H.D.C, top, stock, pile) after the history."""
    info = position.session().describe()
    return info["hands"], info["top"], info["stock"], info.get("pile", "")


def illegal(doc, *played):
    with pytest.raises(IllegalPlayError) as err:
        pos(doc, *played)
    return err.value


TWO = deal([["8S", "9S", "KH", "TD"], ["JC", "7C", "AD", "QH"]], "8C", "7D 7H AS")


# ---------------------------------------------------------------- §4.1 the deal and the document

def test_4_1_a_deal_places_all_32_cards_once():
    assert pos(TWO).to_move == 0
    doc = dict(TWO, stock=TWO["stock"].rsplit(" ", 1)[0])
    with pytest.raises(InvalidDealError, match="missing") as err:
        pos(doc)
    assert err.value.rule == prsi.DECK_RULE
    with pytest.raises(InvalidDealError, match="dealt twice") as err:
        pos(dict(TWO, upcard="8S"))
    assert err.value.token == "8S"
    with pytest.raises(InvalidCardError, match="6S") as err:
        pos(dict(TWO, stock=TWO["stock"] + " 6S"))
    assert err.value.token == "6S"


def test_4_1_four_cards_a_hand_and_two_to_six_players():
    hands = [["8S", "9S", "KH", "TD", "7D"], ["JC", "7C", "AD", "QH"]]
    with pytest.raises(InvalidDealError, match="hand 0 has 5 cards") as err:
        pos(deal(hands, "8C"))
    assert err.value.rule == HAND_SIZE_RULE
    with pytest.raises(InvalidDealError, match="2 to 6 players"):
        pos(deal([["8S", "9S", "KH", "TD"]], "8C"))
    seven = [DECK[4 * i:4 * i + 4] for i in range(7)]
    with pytest.raises(InvalidDealError, match="2 to 6 players"):
        pos(deal(seven, "AC"))
    six = [DECK[4 * i:4 * i + 4] for i in range(6)]
    assert pos(deal(six, "AC")).to_move == 0


def test_4_1_hands_as_pbn_or_cards():
    as_cards = dict(TWO, hands=["8S 9S KH TD", ["JC", "7C", "AD", "QH"]])
    as_pbn = dict(TWO, hands=["98.K.T.", ".Q.A.J7"])
    # The display form the CLI prints reads back (RULES §0.4 rule 4), as in the other games.
    as_shown = dict(TWO, hands=["S: 98  H: K  D: T  C: -", "♠: -  ♥: Q  ♦: A  ♣: J7"])
    assert pos(as_cards) == pos(TWO) == pos(as_pbn) == pos(as_shown)
    shown = str(pos(TWO)).splitlines()[1].split("player")[-1].strip()
    assert shown == "S: 98  H: K  D: T  C: -" and pos(dict(TWO, hands=[shown, ".Q.A.J7"])) == pos(TWO)
    # Each seat's part: the player solved for, the others his opponents.
    assert [line.split()[2] for line in str(pos(TWO)).splitlines()[1:3]] == ["player", "opponent"]
    with pytest.raises(NotationError, match="twice"):
        pos(dict(TWO, hands=["8S 9S KH 8S", "JC 7C AD QH"]))


def test_4_1_fields_upcard_stock_leader():
    with pytest.raises(InvalidDealError, match="upcard") as err:
        pos({k: v for k, v in TWO.items() if k != "upcard"})
    assert err.value.token == "upcard"
    with pytest.raises(InvalidDealError, match="stock"):
        pos({k: v for k, v in TWO.items() if k != "stock"})
    with pytest.raises(InvalidDealError, match="one card"):
        pos(dict(TWO, upcard="8C 7D"))
    with pytest.raises(InvalidOptionError, match="talon") as err:
        pos(dict(TWO, talon="7S"))
    assert err.value.token == "talon"
    assert pos(dict(TWO, leader=1)).to_move == 1
    with pytest.raises(InvalidOptionError, match="leader"):
        pos(dict(TWO, leader=2))


def test_4_1_options():
    with pytest.raises(InvalidOptionError, match="horizon") as err:
        pos(TWO, horizon=0)
    assert err.value.rule == OPTION_RANGE_RULE
    with pytest.raises(InvalidOptionError, match="horizon"):
        pos(TWO, horizon=251)
    with pytest.raises(InvalidOptionError, match="takes a whole number"):
        pos(TWO, horizon="20")
    with pytest.raises(InvalidOptionError, match="player") as err:
        pos(TWO, player=2)
    assert err.value.rule == OPTION_RANGE_RULE          # as too small: the range, said alike
    with pytest.raises(InvalidOptionError, match="unknown option 'trump'"):
        pos(TWO, trump="H")
    assert pos(TWO, horizon=None).session().horizon is None
    assert pos(TWO, horizon="none").session().horizon is None
    assert pos(TWO).session().horizon == 20


def test_4_1_action_notation():
    p = pos(TWO, "DRAW", "oh/hearts")         # the Ober is seat 1's
    assert p.played == ("draw", "QH/H")
    err = illegal(TWO, "draw", "QH")
    assert err.rule == "docs/RULES.md §4.4: the Ober names a suit" and "QH/S" in str(err)
    err = illegal(TWO, "8S/H")
    assert err.rule == "docs/RULES.md §4.4: the Ober names a suit" and "only an Ober" in str(err)
    with pytest.raises(NotationError, match="played\\[0\\]") as err:
        pos(TWO, "jump")
    assert err.value.token == "jump"
    with pytest.raises(NotationError):
        pos(TWO, "QH/X")


def test_4_1_canonical_actions_read_as_themselves():
    # parse_action gives the actions already canonical back at once (CANONICAL_ACTIONS): the
    # same text as reading them in full (the spaces around them take the full reading).
    assert len(prsi.CANONICAL_ACTIONS) == 32 + 2 + 16
    for action in prsi.CANONICAL_ACTIONS:
        assert prsi.parse_action(f" {action} ") == action == prsi.parse_action(action)
    assert prsi.parse_action(" th ") == "TH" and prsi.parse_action("Draw") == "draw"
    with pytest.raises(NotationError, match="played\\[3\\]: 'QH / S'"):
        prsi.parse_action("QH / S", 3)


# ---------------------------------------------------------------- §4.2 a turn

def test_4_2_draw_is_allowed_holding_a_card_that_fits_and_the_turn_passes():
    p = pos(TWO)
    assert "8S" in list(p.legal_moves) and "draw" in list(p.legal_moves)
    p = pos(TWO, "draw")
    hands, top, stock, _ = view(p)
    assert hands[0] == "98.K.T7." and top == "8C" and stock.startswith("7H AS")
    assert p.to_move == 1                      # the drawn 7D is not played at once


def test_4_2_pass_only_on_an_active_ace():
    err = illegal(TWO, "pass")
    assert err.rule == "docs/RULES.md §4.6: aces skip" and "not one" in str(err)


# ---------------------------------------------------------------- §4.3 matching by suit or rank

def test_4_3_suit_or_rank():
    p = pos(TWO)
    # 8S matches the rank of 8C; 9S, KH, TD match nothing.
    assert list(p.legal_moves) == ["8S", "draw"]
    err = illegal(TWO, "KH")
    assert err.rule == "docs/RULES.md §4.3: matching by suit or rank" and "neither the suit C nor the rank 8" in str(err)
    p = pos(TWO, "8S")
    assert list(p.legal_moves) == ["QH/S", "QH/H", "QH/D", "QH/C", "draw"]   # seat 1 holds no spade, no 8
    p = pos(TWO, "8S", "draw", "9S")            # suit S
    assert p.to_move == 1


def test_4_3_card_not_in_hand():
    err = illegal(TWO, "JC")
    assert err.rule == OWN_CARD_RULE and "seat 1's hand" in str(err)
    err = illegal(TWO, "7D")
    assert "in the stock" in str(err)
    err = illegal(TWO, "8C")
    assert "top card" in str(err)


# ---------------------------------------------------------------- §4.4 the Ober

def test_4_4_ober_fits_anything_and_names_a_suit():
    p = pos(TWO, "draw", "QH/D")               # an Ober on 8C, naming diamonds
    hands, top, _, _ = view(p)
    assert top == "QH, D named"
    # seat 0: 8S 9S KH TD 7D; only the diamonds fit (the named suit), not the hearts of the Ober
    assert list(p.legal_moves) == ["7D", "TD", "draw"]
    err = illegal(TWO, "draw", "QH/D", "KH")
    assert err.rule == "docs/RULES.md §4.3: matching by suit or rank" and "named suit D" in str(err)
    # an Ober naming its own suit names nothing new: the top reads as a plain QH, and a card that
    # fits neither is refused by suit and rank, not as missing a named suit (seat 0: KH only)
    p = pos(TWO, "draw", "QH/H")
    assert view(p)[1] == "QH" and list(p.legal_moves) == ["KH", "draw"]
    err = illegal(TWO, "draw", "QH/H", "TD")
    assert err.rule == "docs/RULES.md §4.3: matching by suit or rank"
    assert "TD matches neither the suit H nor the rank Q of QH" in str(err) and "named suit" not in str(err)


def test_4_4_ober_naming_its_own_suit_and_ober_on_ober():
    doc = deal([["QS", "9S", "KH", "TD"], ["QC", "7C", "AD", "JH"]], "8S")
    p = pos(doc, "QS/S")
    assert list(p.legal_moves) == ["QC/S", "QC/H", "QC/D", "QC/C", "draw"]
    p = pos(doc, "QS/H", "QC/C")
    assert list(pos(doc, "QS/H").legal_moves) == ["JH", "QC/S", "QC/H", "QC/D", "QC/C", "draw"]
    assert list(p.legal_moves) == ["draw"]          # seat 0: 9S KH TD, clubs named


def test_4_4_ober_upcard_its_own_suit_stands():
    doc = deal([["9S", "KH", "TD", "7H"], ["JC", "7C", "AD", "8H"]], "QH")
    p = pos(doc)
    assert list(p.legal_moves) == ["7H", "KH", "draw"]


def test_4_4_no_ober_on_an_active_7_or_ace():
    doc = deal([["QS", "9S", "KH", "TD"], ["JC", "8C", "AD", "8H"]], "7H")
    err = illegal(doc, "QS/S")
    assert err.rule == "docs/RULES.md §4.5: 7s stack" and "play a 7 or draw 2" in str(err)
    doc = deal([["QS", "9S", "KH", "TD"], ["JC", "8C", "7D", "8H"]], "AH")
    err = illegal(doc, "QS/S")
    assert err.rule == "docs/RULES.md §4.6: aces skip"


# ---------------------------------------------------------------- §4.5 7s stack

SEVENS = deal([["7S", "9S", "KH", "TD"], ["7C", "8C", "AD", "JH"], ["7D", "8D", "9D", "KD"]], "7H",
              "8H 9H TH QD AH AS")


def test_4_5_upcard_7_acts_on_seat_0_play_a_7_or_draw_2():
    p = pos(SEVENS)
    assert list(p.legal_moves) == ["7S", "draw"]
    p = pos(SEVENS, "draw")
    hands, top, stock, _ = view(p)
    assert hands[0] == "97.K98.T." and stock.startswith("TH QD")      # drew 8H 9H
    # after the penalty the 7 is inactive: seat 1 matches 7H as an ordinary card
    assert list(p.legal_moves) == ["JH", "7C", "draw"]


def test_4_5_chains_draw_2_per_7():
    p = pos(SEVENS, "7S", "7C")                 # a chain of three (the upcard counts)
    assert p.to_move == 2 and list(p.legal_moves) == ["7D", "draw"]
    p = pos(SEVENS, "7S", "7C", "draw")
    hands, _, stock, _ = view(p)
    assert len(hands[2].replace(".", "")) == 4 + 6
    assert stock.split()[0] == "8S"             # 8H 9H TH QD AH AS drawn
    p = pos(SEVENS, "7S", "7C", "7D")
    assert list(p.legal_moves) == ["draw"]
    hands, _, _, _ = view(pos(SEVENS, "7S", "7C", "7D", "draw"))
    assert len(hands[0].replace(".", "")) == 3 + 8   # the chain of four: 8 cards
    err = illegal(SEVENS, "7S", "8C")
    assert err.rule == "docs/RULES.md §4.5: 7s stack" and "play a 7 or draw 4" in str(err)


def test_4_5_a_7_after_the_penalty_starts_a_new_chain():
    doc = deal([["7S", "9S", "KH", "TD"], ["JC", "8C", "AD", "7D"]], "8S")
    p = pos(doc, "7S", "draw", "draw", "7D")      # 7S, seat 1 draws 2, seat 0 draws 1, seat 1 plays 7D on 7S
    assert list(p.legal_moves)[-1] == "draw" and all(m[0] == "7" or m == "draw" for m in list(p.legal_moves))
    hands, _, _, _ = view(pos(doc, "7S", "draw", "draw", "7D", "draw"))
    assert len(hands[0].replace(".", "")) == 3 + 1 + 2


# Seat 0 holds 7S 8S, seat 1 one of 8H or 7H and 9S; seat 0 to move on QS naming spades.
BLOCK = ["QD/C", "QH/S", "QC/S", "QS/S"]


def test_4_5_a_7_keeps_the_last_card_off_the_pile():
    # 8S first and seat 1 goes out with 8H on it (rank); 7S first and he may only draw 2 (8H does
    # not answer an active 7), then 8S on 7S: out at ply 3.  Worked out by hand in an audit.
    doc = deal([["QD", "7S", "8S", "QC"], ["QH", "9S", "8H", "QS"]], "TD", "AD KD JD 9D")
    res = ddcards.solve(pos(doc, *BLOCK, horizon=3))
    assert (res.value, res.distance, res.optimal_moves, res.pv) == (1, 3, ["7S"], ["7S", "draw", "8S"])
    assert {m.move: (m.value, m.distance) for m in res.moves} == {
        "7S": (1, 3), "8S": (0, None), "draw": (0, None)}
    res = ddcards.solve(pos(doc, *BLOCK, horizon=2))      # two plies cannot shed two cards
    assert {m.move: (m.value, m.distance) for m in res.moves} == {
        "7S": (0, None), "8S": (0, None), "draw": (0, None)}


def test_4_5_a_7_answered_by_a_7_and_the_return_that_undoes_a_win():
    # Seat 1 holds 7H: on 7S he answers 7H and seat 0 draws 4, so seat 0 wins with 8S first (seat
    # 1 can only play 9S or draw on it) and 7S last.  With `return` seat 1 answers that 7S with 7H
    # and seat 0 is back in: no win within 3 or 4 plies.
    doc = deal([["QD", "7S", "8S", "QC"], ["QH", "9S", "7H", "QS"]], "TD", "AD KD JD 9D")
    res = ddcards.solve(pos(doc, *BLOCK, horizon=3))
    assert {m.move: (m.value, m.distance) for m in res.moves} == {
        "7S": (0, None), "8S": (1, 3), "draw": (0, None)}
    assert list(pos(doc, *BLOCK, "7S", "7H").legal_moves) == ["draw"]
    hands, _, _, _ = view(pos(doc, *BLOCK, "7S", "7H", "draw"))
    assert len(hands[0].replace(".", "")) == 1 + 4
    for horizon in (3, 4):
        res = ddcards.solve(pos(doc, *BLOCK, horizon=horizon, **{"return": True}))
        assert (res.value, res.distance) == (0, None)
    back = pos(doc, *BLOCK, "8S", "9S", "7S", "7H", **{"return": True})
    assert back.to_move == 0 and list(back.legal_moves) == ["draw"]     # a chain of two: draw 4


# ---------------------------------------------------------------- §4.6 aces skip

ACES = deal([["AS", "9S", "KH", "TD"], ["JC", "8C", "AD", "8H"], ["7D", "8D", "9D", "KD"]], "AH")


def test_4_6_upcard_ace_acts_on_seat_0_play_an_ace_or_pass():
    p = pos(ACES)
    assert list(p.legal_moves) == ["AS", "pass"]
    err = illegal(ACES, "draw")
    assert err.rule == "docs/RULES.md §4.6: aces skip" and "not draw" in str(err)
    p = pos(ACES, "pass")
    assert p.to_move == 1 and "pass" not in list(p.legal_moves) and "draw" in list(p.legal_moves)


def test_4_6_an_ace_on_an_ace_passes_it_on():
    p = pos(ACES, "AS")
    assert p.to_move == 1 and list(p.legal_moves) == ["AD", "pass"]
    p = pos(ACES, "AS", "AD")
    assert p.to_move == 2 and list(p.legal_moves) == ["pass"]
    p = pos(ACES, "AS", "AD", "pass")
    assert p.to_move == 0 and list(p.legal_moves) == ["TD", "draw"]      # 9S KH TD on AD


# ---------------------------------------------------------------- §4.7 the stock running out

def test_4_7_the_pile_is_turned_over_oldest_first():
    doc = deal([["8S", "9S", "TS", "JS"], ["8H", "9H", "TH", "JH"]], "KS")
    # Seat 0 plays spades, seat 1 draws: the stock (23 cards) runs out after 23 draws.
    played = ["8S", "draw", "9S", "draw", "TS", "draw"]
    p = pos(doc, *played)
    _, top, stock, pile = view(p)
    assert top == "TS" and pile == "KS 8S 9S" and len(stock.split()) == 20
    # 20 more draws empty the stock; the next draw turns the pile over: KS first.
    played += ["draw"] * 20
    p = pos(doc, *played)
    _, top, stock, pile = view(p)
    assert stock == "(empty)" and pile == "KS 8S 9S" and top == "TS"
    turned = pos(doc, *played, "draw")
    hands, top, stock, pile = view(turned)
    drawer = len(played) % 2
    assert "K" in hands[drawer].split(".")[0] and stock == "8S 9S" and pile == "" and top == "TS"


def test_4_7_a_penalty_draw_turns_the_pile_over_midway():
    doc = deal([["8S", "9S", "7S", "JS"], ["8H", "9H", "TH", "JH"]], "KS")
    played = ["8S", "draw", "9S"] + ["draw"] * 21       # 22 draws: one card left in the stock
    p = pos(doc, *played)
    _, top, stock, pile = view(p)
    assert len(stock.split()) == 1 and pile == "KS 8S" and top == "9S" and p.to_move == 0
    last = stock
    p = pos(doc, *played, "7S", "draw")                  # seat 1 draws 2: the last stock card, then KS
    hands, top, stock, pile = view(p)
    assert top == "7S" and stock == "8S 9S" and pile == ""
    cards1 = {r + s for s, part in zip("SHDC", hands[1].split(".")) for r in part}
    assert last in cards1 and "KS" in cards1


def test_4_7_with_nothing_to_turn_over_a_draw_takes_what_there_is():
    doc = deal([["8S", "9S", "TS", "JS"], ["8H", "9H", "TH", "JH"]], "7C")
    played = ["draw", "draw"] * 11 + ["draw"]          # 23 draws: the stock is gone, the pile is the upcard
    p = pos(doc, *played)
    hands, top, stock, pile = view(p)
    assert stock == "(empty)" and pile == "" and top == "7C"
    before = [len(h.replace(".", "")) for h in hands]
    hands, _, _, _ = view(pos(doc, *played, "draw"))
    assert [len(h.replace(".", "")) for h in hands] == before     # nothing to draw; the turn passed
    assert pos(doc, *played, "draw").to_move == 0


def test_4_7_six_players_a_chain_of_four_turns_the_pile_midway_then_nothing_is_left():
    hands = [["7H", "8S", "9S", "TS"], ["7D", "JS", "QS", "KS"], ["7C", "AS", "8H", "9H"],
             ["TH", "JH", "QH", "KH"], ["AH", "8D", "9D", "TD"], ["JD", "QD", "KD", "AD"]]
    doc = deal(hands, "7S")                     # the stock: 8C 9C TC JC QC KC AC
    assert list(pos(doc, "7H", "7D", "7C").legal_moves) == ["draw"]      # seat 3: draw 8
    hands, top, stock, pile = view(pos(doc, "7H", "7D", "7C", "draw"))
    # 7 from the stock, then the pile 7S 7H 7D below the top turned over: 7S the eighth card
    assert hands[3] == "7.KQJT..AKQJT98" and top == "7C" and stock == "7H 7D" and pile == ""
    played = ["7H", "7D", "7C", "draw", "draw", "draw"]                # seats 4 and 5 draw 7H, 7D
    hands, _, stock, pile = view(pos(doc, *played))
    assert hands[4] == ".A7.T98." and hands[5] == "..AKQJ7." and stock == "(empty)" and pile == ""
    p = pos(doc, *played, "draw")                # seat 0 draws nothing and the turn passes
    assert view(p)[0][0] == "T98..." and p.to_move == 1


# ---------------------------------------------------------------- §4.8 the end

END = deal([["8C", "9S", "KH", "TD"], ["9C", "7C", "AD", "QH"]], "KC", "7D 7H AS")


def test_4_8_first_out_wins_and_the_game_ends():
    doc = deal([["8C", "9C", "TC", "JC"], ["8H", "9H", "TH", "JH"]], "KC")
    played = ["8C", "draw", "9C", "draw", "TC", "draw", "JC"]
    p = pos(doc, *played)
    assert p.is_over and p.to_move is None and list(p.legal_moves) == []
    err = illegal(doc, *played, "draw")
    assert err.rule == "docs/RULES.md §4.8: the end" and "seat 0 went out first" in str(err)
    res = ddcards.solve(p)
    assert res.value == 1 and res.distance == 0 and res.moves == [] and res.settlement == [1, -1]


def test_4_8_the_last_card_may_be_special():
    doc = deal([["8C", "9C", "TC", "7C"], ["8H", "9H", "TH", "JH"]], "KC")
    p = pos(doc, "8C", "draw", "9C", "draw", "TC", "draw", "7C")
    assert p.is_over                                # out with a 7: nobody draws, the game is over


def test_4_8_play_on_until_one_is_left():
    doc = deal([["8C", "9C", "TC", "7C"], ["8H", "9H", "TH", "JH"], ["8D", "9D", "TD", "JD"]], "KC")
    played = ["8C", "draw", "draw", "9C", "draw", "draw", "TC", "draw", "draw", "7C"]
    p = pos(doc, *played)
    assert p.is_over                                # the usual game: seat 0 is out first
    p = pos(doc, *played, play_on=True)
    assert not p.is_over and p.to_move == 1         # seat 0's 7 acts on seat 1 (who drew 7S)
    assert list(p.legal_moves) == ["7S", "draw"]
    p = pos(doc, *played, "draw", play_on=True)
    assert p.to_move == 2                        # turns skip seat 0
    assert pos(doc, *played, play_on=True).session().seat_role(0) == "out"


def test_4_8_return_a_7_on_the_last_card_brings_him_back():
    doc = deal([["8C", "9C", "TC", "JC"], ["8H", "7C", "TH", "JH"]], "KC")
    played = ["8C", "draw", "9C", "draw", "TC", "draw", "JC"]
    p = pos(doc, *played, **{"return": True})
    assert not p.is_over and p.to_move == 1        # out, unless seat 1 answers with a 7
    # not shown as out yet, which the result's outcomes do not say either
    assert p.session().seat_role(0) == "out unless a 7 answers"
    assert ddcards.solve(p, mode="best").outcomes["seat0_out"] is False
    assert pos(doc, *played, "draw", **{"return": True}).session().seat_role(0) == "out"
    back = pos(doc, *played, "7C", **{"return": True})
    assert not back.is_over and back.to_move == 0 and list(back.legal_moves) == ["draw"]
    hands, _, _, _ = view(pos(doc, *played, "7C", "draw", **{"return": True}))
    assert len(hands[0].replace(".", "")) == 2   # back in with no cards, the 7's penalty drawn
    settled = pos(doc, *played, "draw", **{"return": True})
    assert settled.is_over
    res = ddcards.solve(pos(doc, *played, **{"return": True}))      # seat 1 to move: only 7C saves him
    assert res.optimal_moves == ["7C"]
    assert {m.move: (m.value, m.distance) for m in res.moves if m.move != "7C"} == {
        "JH": (-1, 1), "draw": (-1, 1)}


def test_4_8_return_and_play_on_the_last_answer_leaves_its_player_alone():
    # Seat 0 goes out with 8C; seat 1 answers with TC, his own last card (seat 0 is out, seat 1
    # waits); seat 2 answers with 9C, his last card: seat 1 is out and seat 2 is the one left,
    # the loser, with no cards (an independent check found the game going on there, seat 2
    # answering his own last card, and the solve failing).
    used = "9S JH KD 8C TS TH TD TC JS KH 8D 9C 8S".split()
    stock = [r + s for s in "SHDC" for r in "789TJQKA" if r + s not in used]
    doc = {"game": "prsi", "hands": ["9S JH KD 8C", "TS TH TD TC", "JS KH 8D 9C"], "upcard": "8S",
           "stock": " ".join(stock), "options": {"play_on": True, "return": True, "horizon": 4}}
    played = ["9S", "TS", "JS", "JH", "TH", "KH", "KD", "TD", "8D", "8C", "TC"]
    p = pos(doc, *played)
    assert not p.is_over and p.to_move == 2 and set(p.legal_moves) == {"9C", "draw"}
    res = ddcards.solve(p)                          # seat 2's view: seat 0 is out first, settled
    assert (res.value, res.distance) == (-1, 0)
    res = ddcards.solve(pos(doc, *played, not_last=True))      # ... and he cannot escape being left
    assert (res.value, res.distance) == (-1, 1)
    assert {m.move: (m.value, m.distance) for m in res.moves} == {"9C": (-1, 1), "draw": (-1, 1)}
    last = pos(doc, *played, "9C")
    assert last.is_over
    res = ddcards.solve(last)
    assert res.settlement == [1, 1, -2] and res.outcomes == {"seat0_out": True, "seat1_out": True,
                                                             "seat2_out": False}


# ---------------------------------------------------------------- §4.9 values

def test_4_9_a_win_in_one_and_its_distance():
    doc = deal([["8C", "9C", "TC", "JC"], ["8H", "9H", "TH", "JH"]], "KC")
    p = pos(doc, "8C", "draw", "9C", "draw", "TC", "draw")
    res = ddcards.solve(p)
    assert (res.value, res.distance, res.optimal_moves, res.pv) == (1, 1, ["JC"], ["JC"])
    moves = {m.move: m for m in res.moves}
    assert set(moves) == {"JC", "draw"} and (moves["JC"].value, moves["JC"].distance) == (1, 1)
    assert not moves["draw"].optimal and moves["draw"].value < 1      # no second win in one
    assert res.horizon == 20 and res.value_kind == "outcome" and res.won
    assert res.scores == {"seat0": 0, "seat1": 7} and res.settlement == [1, -1]


def test_4_9_the_horizon_counts_plies():
    # Seat 0 sheds clubs at plies 1, 3, 5, 7; seat 1 holds and draws nothing that fits a club 8-J.
    doc = deal([["8C", "9C", "TC", "JC"], ["KH", "KD", "AH", "AD"]], "KC", "7S 7H 7D")
    res = ddcards.solve(pos(doc, horizon=7))
    assert (res.value, res.distance) == (1, 7)
    assert res.pv[1::2] == ["draw"] * 3 and sorted(res.pv[0::2]) == ["8C", "9C", "JC", "TC"]
    assert {m.move: (m.value, m.distance) for m in res.moves} == {
        "8C": (1, 7), "9C": (1, 7), "TC": (1, 7), "JC": (1, 7), "draw": (0, None)}
    res = ddcards.solve(pos(doc, horizon=6))
    assert (res.value, res.distance) == (0, None)
    res = ddcards.solve(pos(doc, horizon=7, player=1))        # the opponent's view
    assert (res.value, res.distance) == (-1, 7)


def test_4_9_more_players_paranoid():
    doc = deal([["8C", "9C", "TC", "JC"], ["8H", "9H", "TH", "JH"], ["8D", "9D", "TD", "JD"]], "KC")
    played = ["8C", "draw", "draw", "9C", "draw", "draw", "TC", "draw", "draw"]
    res = ddcards.solve(pos(doc, *played, horizon=1))          # seat 0: JC on TC
    assert (res.value, res.distance, res.optimal_moves) == (1, 1, ["JC"])
    res = ddcards.solve(pos(doc, *played, horizon=1, player=2))
    assert (res.value, res.distance) == (-1, 1)
    # Nothing forced within the horizon: -1 for three players, with no distance.
    res = ddcards.solve(pos(doc, horizon=1))
    assert (res.value, res.distance) == (-1, None)
    assert {m.move: (m.value, m.distance) for m in res.moves} == {"8C": (-1, None), "9C": (-1, None),
                                                                "TC": (-1, None), "JC": (-1, None),
                                                                "draw": (-1, None)}


def test_4_9_paranoid_the_others_turn_the_suit_and_one_of_them_goes_out():
    # Seat 0 holds 8H 9H on QC naming hearts; seat 1 KH KS, seat 2 KC JD.  Whatever seat 0 sheds,
    # seat 1 plays KH and seat 2 KC: seat 0 cannot follow, and seat 1 goes out with KS at ply 5.
    doc = deal([["QS", "QD", "8H", "9H"], ["9C", "TC", "KH", "KS"], ["JC", "QC", "KC", "JD"]], "8D",
               "7S 8S 9S TS JS")
    played = ["QS/C", "9C", "JC", "QD/C", "TC", "QC/H"]
    res = ddcards.solve(pos(doc, *played, horizon=4))
    assert (res.value, res.distance) == (-1, None)
    res = ddcards.solve(pos(doc, *played, horizon=5))
    assert (res.value, res.distance) == (-1, 5)
    assert {m.move: (m.value, m.distance) for m in res.moves} == {
        "8H": (-1, 5), "9H": (-1, 5), "draw": (-1, 5)}
    assert res.pv[1:] == ["KH", "KC", "draw", "KS"]


def test_4_9_play_on_value_is_being_out_first_and_not_last_getting_out_at_all():
    doc = deal([["8C", "9C", "TC", "7C"], ["8H", "9H", "TH", "JH"], ["8D", "9D", "TD", "JD"]], "KC")
    played = ["8C", "draw", "draw", "9C", "draw", "draw", "TC", "draw", "draw", "7C"]
    for goal in ({}, {"not_last": True}):
        res = ddcards.solve(pos(doc, *played, play_on=True, player=0, **goal))
        assert res.value == 1 and res.distance == 0   # out first, settled by the history
    # Seat 1 plays on, but seat 0 was out first: under play_on alone that settles seat 1's -1
    # (RULES §4.9: the first out); with not_last he may still get out.
    res = ddcards.solve(pos(doc, *played, play_on=True))
    assert (res.value, res.distance) == (-1, 0) and res.to_move == 1
    assert [(m.move, m.value, m.distance) for m in res.moves] == [("7S", -1, 0), ("draw", -1, 0)]
    res = ddcards.solve(pos(doc, *played, play_on=True, not_last=True))     # 4 cards against seat 2's 4,
    assert (res.value, res.distance) == (-1, None)                          # 20 plies: nothing forced


def test_4_9_the_goals_under_play_on_differ_where_another_player_gets_out_first():
    # Seat 1 to move (KD and QC in hand); seat 2 holds only TD. QC naming diamonds lets seat 2 out
    # first, then seat 1 gets out with KD: seat 1 is not the one left (+1 with not_last), but he is
    # not out first (-1 under play_on alone, as without it). Found by an independent audit.
    doc = {"game": "prsi", "hands": ["7C 8C 7S JH", "KD 8H QD QC", "TD AH 9C TH"], "upcard": "JC",
           "stock": "TS TC KS 7H 7D KC 9H QS JS JD 8S 8D 9S AS 9D AC QH KH AD", "leader": 2,
           "options": {"play_on": True, "horizon": 4}, "played": ["9C", "8C", "QD/H", "TH", "JH", "8H", "AH", "pass"]}
    first = ddcards.solve(doc)
    assert first.value == -1 and first.to_move == 1
    assert {m.move: m.value for m in first.moves} == {"QC/S": -1, "QC/H": -1, "QC/D": -1, "QC/C": -1, "draw": -1}
    left = ddcards.solve(dict(doc, options={"play_on": True, "not_last": True, "horizon": 4}))
    assert (left.value, left.distance, left.optimal_moves, left.pv) == (1, 4, ["QC/D"], ["QC/D", "TD", "draw", "KD"])
    assert left.settlement == [-2, 1, 1]                           # seat 0 is the one left


def test_not_last_is_a_goal_of_play_on_only():
    doc = deal([["8C", "9C", "TC", "7C"], ["8H", "9H", "TH", "JH"], ["8D", "9D", "TD", "JD"]], "KC")
    with pytest.raises(ddcards.InvalidOptionError, match="option 'not_last' is a goal of the play_on variant") as err:
        pos(doc, not_last=True)
    assert err.value.field == "options.not_last" and "§4.9" in err.value.rule
    assert not pos(doc, not_last=False).is_over


def test_the_seeds_worked_example():
    # Players 3, 4, 1, 2 in that order are seats 0-3; the pile starts with the 9 of leaves (9S).
    doc = deal([["7S", "8D", "9D", "KD"], ["7H", "QD", "8C", "9C"], ["TC", "8S", "JS", "KS"],
                ["AH", "JD", "TD", "7C"]], "9S")
    assert list(pos(doc, "7S", "7H").legal_moves) == ["draw"]        # 1. 7S, 7H: player 1 must draw 4
    hands, _, _, _ = view(pos(doc, "7S", "7H", "draw"))           # 2. he has no 7: he draws 4
    assert len(hands[2].replace(".", "")) == 8
    assert list(pos(doc, "7S", "7H", "draw", "AH").legal_moves) == ["pass"]   # 3. AH: player 3 loses his turn
    p = pos(doc, "7S", "7H", "draw", "AH", "pass")
    assert [m for m in list(p.legal_moves) if m[1] == "H" and m[0] != "Q"] == []  # 4. no hearts, no ace ...
    p = pos(doc, "7S", "7H", "draw", "AH", "pass", "QD/C")       # ... an Ober naming acorns
    assert "TC" in list(p.legal_moves)                                # 5. player 1 plays TC
    assert pos(doc, "7S", "7H", "draw", "AH", "pass", "QD/C", "TC").to_move == 3


@pytest.mark.parametrize("history, bad", [
    ("QS / H draw", "'/' names no card before its '/'"), ("QS/ H draw", "'QS/' names no suit after its '/'"),
    ("QS /H draw", "'/H' names no card before its '/'"), (["QH/"], "'QH/' names no suit after its '/'")])
def test_4_1_an_ober_names_its_suit_with_no_space_around_the_slash(history, bad):
    """'QS / H' said "played[1]: empty card ''"; 'QH/' alone said only "no space around the '/'"."""
    with pytest.raises(ddcards.NotationError, match=f"{bad}: an Ober names its suit with no space around the '/'"):
        ddcards.Position.from_dict(dict(ddcards.example("prsi"), played=history))


@pytest.mark.parametrize("history, message", [
    ("QS/X", "played[0]: 'QS/X': the suit the Ober names: unknown suit 'X' (docs/RULES.md §0.1 rule 2: suits S H D C"),
    ("ZS", "played[0]: unknown card 'ZS': 'Z' is not a rank (docs/RULES.md §0.2 rule 1: ranks 6 7 8 9 T J Q K A, "
           "aliases 10 X U O); an action is a card (TH), an Ober naming a suit (QH/S), draw or pass"),
])
def test_4_1_a_bad_action_names_one_rule(history, message):
    """'QS/X' gave two rules in a row: "unknown suit 'X' (§0.1 rule 2 ...) (§4.1 ...)"."""
    with pytest.raises(ddcards.NotationError) as info:
        ddcards.Position.from_dict(dict(ddcards.example("prsi"), played=history))
    assert str(info.value).startswith(message) and str(info.value).count("docs/RULES.md") == 1


def test_an_ober_in_a_list_with_spaces_around_the_slash_is_refused_too():
    """'QS / D' as one item of a list was read as QS/D, where the same text as a history is refused."""
    with pytest.raises(ddcards.NotationError,
                       match="'QS / D' has a space around its '/': an Ober names its suit with no space around the '/'"):
        ddcards.Position.from_dict(dict(ddcards.example("prsi"), played=["QS / D"]))


@pytest.mark.parametrize("action", ["QS\t/D", "QS/\u00a0D", "QS\u2009/D", "QS\u3000/D"])
def test_an_ober_with_other_white_space_around_the_slash_is_refused_too(action):
    """A tab or a no-break space beside the '/' was read as QS/D in a list, where an ASCII space
    is refused and the same text as a history splits there ('QS/' and 'D')."""
    with pytest.raises(ddcards.NotationError) as info:
        ddcards.Position.from_dict(dict(ddcards.example("prsi"), played=[action]))
    assert str(info.value).startswith(f"played[0]: {action!r} has a space around its '/': an Ober names its suit "
                                      f"with no space around the '/', as in 'QS/H'")
    assert info.value.token == action and info.value.field == "played[0]"
    with pytest.raises(ddcards.NotationError, match="'QS/' names no suit after its '/'"):
        ddcards.Position.from_dict(dict(ddcards.example("prsi"), played="QS/\u00a0D 9D"))    # as text
    assert ddcards.Position.from_dict(dict(ddcards.example("prsi"), played=[" QS/D\t"])).played == ("QS/D",)


@pytest.mark.parametrize("player, said", [(2, "too large"), (-1, "too small"), (6, "too large")])
def test_player_out_of_range_says_the_range_alike(player, said):
    # the deal's range on both sides (-1 was told the option's "0 to 5" for a two-player deal)
    with pytest.raises(ddcards.InvalidOptionError) as info:
        ddcards.Position.from_dict(dict(ddcards.example("prsi"), options={"player": player}))
    assert str(info.value) == (f"option 'player' is {said}: it is the seat whose value is reported, a whole number "
                               f"from 0 to 1 with 2 players, not {player} ({OPTION_RANGE_RULE})")
    assert info.value.rule == OPTION_RANGE_RULE


def test_a_player_past_the_deals_seats_is_told_the_deals_range():
    # 6 is past the option's own range (0..5) too, but with two players the range is 0..1
    with pytest.raises(ddcards.InvalidOptionError) as info:
        ddcards.Position.from_dict(dict(ddcards.example("prsi"), options={"player": 6}))
    assert str(info.value) == ("option 'player' is too large: it is the seat whose value is reported, a whole "
                               "number from 0 to 1 with 2 players, not 6 (docs/RULES.md §0.6 rule 5: a "
                               "whole-number option lies in its range)")
    assert info.value.field == "options.player"


def test_an_ober_not_held_is_refused_for_that_before_its_missing_suit():
    # 'QC' alone, QC in the stock: the first thing wrong is that seat 0 does not hold it (asking
    # for a named suit sent the user to 'QC/S', refused in turn for not being held).
    p = ddcards.Position.from_dict(ddcards.example("prsi"))
    with pytest.raises(IllegalPlayError) as err:
        p.play("QC")
    assert str(err.value) == ("played[0]: 'QC' by seat 0: QC is in the stock (docs/RULES.md §0.7 rule 2: the seat "
                              "to move plays a card from its own hand)")
    with pytest.raises(IllegalPlayError, match="QS/S', 'QS/H', 'QS/D' or 'QS/C', not 'QS' alone"):
        p.play("QS")                                              # held: the suit is what is missing


def test_an_ober_after_the_end_is_refused_for_the_end_not_its_missing_suit():
    # 'QH' alone once seat 0 is out: the first thing wrong is that the game is over, as for every
    # other action ("name the suit: 'QH/S', ..." sent the user to 'QH/S', refused in turn for the end).
    doc = deal([["8C", "9C", "TC", "JC"], ["8H", "9H", "TH", "QH"]], "KC")
    played = ["8C", "draw", "9C", "draw", "TC", "draw", "JC"]
    for extra in ("QH", "QS"):              # seat 1's Ober, and one in the stock
        err = illegal(doc, *played, extra)
        assert str(err) == (f"played[7]: '{extra}': the game is over: seat 0 went out first (docs/RULES.md §4.8: "
                            "the end)")
        assert err.rule == "docs/RULES.md §4.8: the end" and err.field == "played[7]"
    # play_on: two players, one left once seat 0 is out
    err = illegal(dict(doc, options={"play_on": True}), *played, "QH")
    assert str(err) == "played[7]: 'QH': the game is over: one player is left (docs/RULES.md §4.8: the end)"
