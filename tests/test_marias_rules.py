"""Mariáš rules through the public API (RULES.md §1), with hand-checked values.

Every position here is a full deal reached by a legal ``played`` history, so the
product path is exercised end to end: validation, replay, legal moves, the error
for an illegal card, the search, the scores and the settlement.  Every expected
number is worked out by hand in the comment next to it.

Rank order — Hra: A T K O(Q) U(J) 9 8 7; Betl/Durch: A K O U T 9 8 7.
Points — A and T 10 each, last trick 10; marriage 20, in trumps 40.
"""
from __future__ import annotations

import pytest

import ddcards

# --------------------------------------------------------------------------- helpers


def pos(doc, played=None, **changes):
    """The position of ``doc`` with ``played`` (list or space-separated) and field changes."""
    d = dict(doc, **changes)
    if played is not None:
        d["played"] = played.split() if isinstance(played, str) else list(played)
    return ddcards.Position.from_dict(d)


def legal(doc, played=None, **changes):
    return set(pos(doc, played, **changes).legal_moves)


def assert_illegal(position, card, clause, *also):
    """Playing ``card`` raises IllegalPlayError naming the card and the clause."""
    with pytest.raises(ddcards.IllegalPlayError) as info:
        position.play(card)
    err = info.value
    assert isinstance(err, ddcards.DdcardsError) and isinstance(err, ValueError)
    assert err.token == card
    assert card in str(err)
    assert clause in str(err)
    for text in also:
        assert text in str(err)
    # the same card in a `played` history is rejected the same way
    doc = position.to_dict()
    doc["played"] = doc["played"] + [card]
    with pytest.raises(ddcards.IllegalPlayError) as info2:
        ddcards.Position.from_dict(doc)
    assert info2.value.token == card and clause in str(info2.value)
    assert f"played[{len(doc['played']) - 1}]" in str(info2.value)


def solve(doc, played=None, mode="all", **changes):
    return ddcards.solve(pos(doc, played, **changes), mode=mode)


# --------------------------------------------------------------------------- the seed's worked example

SEED = ddcards.example("marias-seed")          # hearts Hra, the seed's line of play
SEED_START = ddcards.example("marias-hra")     # the same deal, nothing played


def test_seed_documents_are_the_same_deal():
    start = dict(SEED, played=[])
    assert ddcards.Position.from_dict(start) == ddcards.Position.from_dict(SEED_START)
    assert len(SEED["played"]) == 30


def test_seed_worked_example_first_trick():
    # Seat 0: AT.AKQ9.AT.87, seat 1: KQ.TJ87.KQ.AT, seat 2: J987..J987.QJ; hearts trump.
    p = pos(SEED_START)
    assert p.to_move == 0
    assert set(p.legal_moves) == set(ddcards.format_cards(ddcards.parse_hand("AT.AKQ9.AT.87")).split())
    # Seat 0 leads QH (announcing 40: he holds KH). Seat 1 must follow hearts and beat
    # the Ober: of TH JH 8H 7H only the Ten is higher.
    p = p.play("QH")
    assert p.to_move == 1
    assert p.legal_moves == ("TH",)
    assert_illegal(p, "JH", "must beat", "QH")
    assert_illegal(p, "KS", "must follow suit")
    # Seat 2 has no hearts = no trumps: any of his ten cards.
    p = p.play("TH")
    assert p.to_move == 2
    assert set(p.legal_moves) == set(ddcards.format_cards(ddcards.parse_hand("J987..J987.QJ")).split())
    # The trick goes to seat 1 (TH), who leads the next one.
    p = p.play("7S")
    assert p.to_move == 1


def test_seed_worked_example_final_scores():
    # Tricks of the recorded line (leader first):
    #  1 QH TH 7S -> seat 1 (TH 10)           6 TS KS JS -> seat 0 (TS 10)
    #  2 AC JC 7C -> seat 1 (AC 10)           7 AD QD 7D -> seat 0 (AD 10)
    #  3 TC QC 8C -> seat 1 (TC 10)           8 TD KD 8D -> seat 0 (TD 10)
    #  4 7H 8S KH -> seat 0                   9 AH 8H 9D -> seat 0 (AH 10)
    #  5 AS QS 9S -> seat 0 (AS 10)          10 9H JH JD -> seat 1 (JH > 9H), last trick 10
    # Declarer: 50 in cards + 40 for the trump marriage = 90.
    # Defenders: 30 in cards + 10 for the last trick = 40 (no marriage: they never led K/O).
    p = pos(SEED)
    assert p.to_move is None and p.legal_moves == ()
    res = ddcards.solve(p)
    assert res.value == 50
    assert res.scores == {"declarer": 90, "defenders": 40}
    assert res.tricks == {"declarer": 6, "defenders": 4}
    assert res.won is True
    assert res.settlement == [2 * 2, -2, -2]         # hearts Hra is worth 2
    assert res.to_move is None and res.pv == [] and res.moves == [] and res.optimal_moves == []


# --------------------------------------------------------------------------- legality, one obligation each

# R1, hearts trump.  Seat 0: AJ9.JT7.A9.A9  seat 1: K7.AKQ98.KT7.  seat 2: QT8..J8.KQJT7
# talon QD 8C.  Seat 1 is void in clubs, seat 2 in hearts.
R1 = {"game": "marias", "contract": "hra", "trump": "H",
      "hands": ["AJ9.JT7.A9.A9", "K7.AKQ98.KT7.", "QT8..J8.KQJT7"], "talon": "QD 8C"}

# R2, hearts trump.  Seat 0: A.KQJ.ATKQJ9.  seat 1: KQJ9.A98..AKQ  seat 2: T87.T7..TJ987
# talon 8D 7D.  Both defenders are void in diamonds; seat 1 holds AH 9H 8H, seat 2 TH 7H.
R2 = {"game": "marias", "contract": "hra", "trump": "H",
      "hands": ["A.KQJ.ATKQJ9.", "KQJ9.A98..AKQ", "T87.T7..TJ987"], "talon": "8D 7D"}

# R3, betl (no trumps).  Seat 0: AKT9.87.AT.AT  seat 1: J8.AKQJT9.K.K  seat 2: Q7..QJ98.QJ98
# talon 7D 7C (no ace or ten, so the same deal is also a valid Hra).
R3 = {"game": "marias", "contract": "betl",
      "hands": ["AKT9.87.AT.AT", "J8.AKQJT9.K.K", "Q7..QJ98.QJ98"], "talon": "7D 7C"}


def test_rule1_leader_plays_any_card():
    for doc in (R1, R2, R3):
        p = pos(doc, [])
        assert set(p.legal_moves) == set(ddcards.format_cards(ddcards.parse_hand(doc["hands"][0])).split())


def test_rule2_follow_suit_when_you_cannot_beat():
    # AS led; seat 1 holds KS 7S, neither beats the ace: either spade, nothing else.
    p = pos(R1, "AS")
    assert set(p.legal_moves) == {"KS", "7S"}
    assert_illegal(p, "AH", "must follow suit")       # not even a trump
    assert_illegal(p, "TD", "must follow suit")
    # seat 2 (QS TS 8S) cannot beat AS either: any spade.
    assert legal(R1, "AS KS") == {"QS", "TS", "8S"}


def test_rule2_must_beat_the_lead():
    # 9D led; seat 1 holds KD TD 7D: K and T beat the nine, 7D does not.
    p = pos(R1, "9D")
    assert set(p.legal_moves) == {"KD", "TD"}
    assert_illegal(p, "7D", "must beat", "9D")
    assert_illegal(p, "KS", "must follow suit")


def test_rule2_must_beat_the_best_card_when_second_player_beat_the_lead():
    # 9S led; seat 1 must beat it: KS (7S is lower).
    p = pos(R1, "9S")
    assert p.legal_moves == ("KS",)
    assert_illegal(p, "7S", "must beat", "9S")
    # Seat 2 holds QS TS 8S: QS beats the lead 9S but not the best card KS;
    # only TS (T over K in Hra) beats KS.
    p = pos(R1, "9S KS")
    assert p.legal_moves == ("TS",)
    assert_illegal(p, "QS", "must beat", "KS")
    assert_illegal(p, "8S", "must beat", "KS")
    assert_illegal(p, "7C", "must follow suit")


def test_rule2_trumps_led_must_beat_with_a_higher_trump():
    # JH (trump) led; seat 1 holds AH 9H 8H: only AH beats the Unter.
    p = pos(R2, "JH")
    assert p.legal_moves == ("AH",)
    assert_illegal(p, "9H", "must beat", "JH")
    # Seat 2 (TH 7H) cannot beat AH: any trump, but a trump.
    p = pos(R2, "JH AH")
    assert set(p.legal_moves) == {"TH", "7H"}
    assert_illegal(p, "TS", "must follow suit")


def test_rule2_exception_trick_already_trumped_any_card_of_led_suit():
    # 9C led; seat 1 is void in clubs and trumps with 9H. Seat 2 holds KC QC JC TC 7C:
    # without the trump he would have to beat 9C (7C illegal); with a trump in the
    # trick any club will do — 7C included.
    assert legal(R1, "9C 9H") == {"KC", "QC", "JC", "TC", "7C"}
    p = pos(R1, "9C 9H")
    assert_illegal(p, "TS", "must follow suit")
    assert_illegal(p, "8D", "must follow suit")


def test_rule3_void_must_trump():
    # 9C led; seat 1 has no clubs but AH KH QH 9H 8H: any trump, no spade/diamond.
    p = pos(R1, "9C")
    assert set(p.legal_moves) == {"AH", "KH", "QH", "9H", "8H"}
    assert_illegal(p, "KS", "must trump")
    assert_illegal(p, "TD", "must trump")
    # AD led in R2: seat 1 void in diamonds, holds AH 9H 8H: any of them.
    p = pos(R2, "AD")
    assert set(p.legal_moves) == {"AH", "9H", "8H"}
    assert_illegal(p, "AC", "must trump")


def test_rule3_must_overtrump():
    # AD led, seat 1 trumps with 9H; seat 2 (void in diamonds) holds TH 7H: TH beats 9H,
    # so TH it must be.
    p = pos(R2, "AD 9H")
    assert p.legal_moves == ("TH",)
    assert_illegal(p, "7H", "must overtrump", "9H")
    assert_illegal(p, "TS", "must trump")
    # over 8H too: only TH (7H is lower)
    assert legal(R2, "AD 8H") == {"TH"}


def test_rule3_any_trump_when_you_cannot_overtrump():
    # AD led, seat 1 trumps with AH: seat 2 cannot beat it, so TH or 7H — but a trump.
    p = pos(R2, "AD AH")
    assert set(p.legal_moves) == {"TH", "7H"}
    assert_illegal(p, "TS", "must trump")
    assert_illegal(p, "TC", "must trump")


def test_rule4_free_discard_void_in_led_suit_and_trumps():
    # The seed deal: QH led, TH; seat 2 has no hearts (= trumps): any card (checked in
    # the seed test).  In R3 played as a clubs Hra: 7H led, 9H; seat 2 has no hearts but
    # clubs are trumps, so he must trump...
    hra_c = dict(R3, contract="hra", trump="C")
    p = pos(hra_c, "7H 9H")
    assert set(p.legal_moves) == {"QC", "JC", "9C", "8C"}
    assert_illegal(p, "QD", "must trump")
    # ... while in Betl there are no trumps: a free discard of any of his ten cards.
    assert legal(R3, "7H 9H") == set(ddcards.format_cards(ddcards.parse_hand(R3["hands"][2])).split())


def test_betl_durch_rank_order_ten_between_nine_and_unter():
    # TS led; seat 1 holds JS 8S.  Betl/Durch: U is above T -> must beat with JS.
    for contract in ("betl", "durch"):
        p = pos(R3, "TS", contract=contract)
        assert p.legal_moves == ("JS",)
        assert_illegal(p, "8S", "must beat", "TS")
        assert_illegal(p, "AH", "must follow suit")
        # seat 2 (QS 7S) must beat the Unter: QS.
        p = pos(R3, "TS JS", contract=contract)
        assert p.legal_moves == ("QS",)
        assert_illegal(p, "7S", "must beat", "JS")
    # The same cards in a clubs Hra: T is above U, nobody can beat TS -> any spade.
    hra_c = dict(R3, contract="hra", trump="C")
    assert legal(hra_c, "TS") == {"JS", "8S"}
    assert legal(hra_c, "TS JS") == {"QS", "7S"}


def test_betl_no_trumps_follow_or_discard():
    # 7H led in betl: seat 1 must beat 7H — all his hearts do.
    assert legal(R3, "7H") == {"AH", "KH", "QH", "JH", "TH", "9H"}


def test_illegal_cards_not_in_hand():
    p = pos(R1, "AS")
    with pytest.raises(ddcards.IllegalPlayError) as info:
        p.play("JH")                          # seat 0's card, seat 1 to play
    assert info.value.token == "JH" and "seat 0" in str(info.value)
    with pytest.raises(ddcards.IllegalPlayError) as info:
        p.play("QD")                          # in the talon
    assert info.value.token == "QD" and "talon" in str(info.value)
    with pytest.raises(ddcards.IllegalPlayError) as info:
        pos(R1, "AS KS QS").play("AS")        # already played
    assert info.value.token == "AS" and "already been played" in str(info.value)


def test_trick_winner_decides_the_next_leader():
    assert pos(R1, "9S KS TS").to_move == 2           # TS beats KS in Hra
    assert pos(R1, "9C 9H 7C").to_move == 1           # the trump wins
    assert pos(R2, "AD 9H TH").to_move == 2           # the higher trump wins
    assert pos(R2, "AD AH 7H").to_move == 1
    assert pos(R3, "TS JS QS").to_move == 2           # betl: Q over U over T
    assert pos(R3, "7H 9H QD").to_move == 1           # betl: a discard never wins


# --------------------------------------------------------------------------- hand-made endgames

# BASE_A, spades trump.  Seven filler tricks, each led by seat 0 with the top card of a suit
# (so the followers may play any card of it), all won by seat 0:
#   AD 7D 8D | TD 9D JD | AC 7C 8C | TC 9C JC | AH 7H 8H | TH 9H JH | AS 7S 8S
# Declarer: AD TD AC TC AH TH AS = 70.  Talon KD QD (no points).
# Left (seat 0 to lead): seat 0 KS QS QC   seat 1 TS JS KH   seat 2 9S KC QH.
# Outstanding: TS (10) and the last trick (10); marriages KS+QS (trumps, 40) with seat 0.
BASE_A = {"game": "marias", "contract": "hra", "trump": "S",
          "hands": ["AKQ.AT.AT.ATQ", "TJ7.K97.97.97", "98.QJ8.J8.KJ8"], "talon": "KD QD",
          "played": "AD 7D 8D TD 9D JD AC 7C 8C TC 9C JC AH 7H 8H TH 9H JH AS 7S 8S".split()}
A7 = BASE_A["played"]

# BASE_B, hearts trump.  Seven filler tricks led and won by seat 0:
#   AS 7S 9S | TS 8S JS | AH KH QH | TH JH KS (seat 2 void in trumps: discard) |
#   AD 7D 8D | TD 9D JD | TC 7C 8C
# Declarer: AS TS AH TH AD TD TC = 70.  Talon QS 9C (no points).
# Left (seat 0 to lead): seat 0 8H 7H AC   seat 1 9H KD QD   seat 2 KC QC JC.
# Outstanding: AC (10) and the last trick (10); seat 1 scores 20 whenever he leads KD or QD
# (holding the other).
BASE_B = {"game": "marias", "contract": "hra", "trump": "H",
          "hands": ["AT.AT87.AT.AT", "87.KJ9.KQ97.7", "KJ9.Q.J8.KQJ8"], "talon": "QS 9C",
          "played": "AS 7S 9S TS 8S JS AH KH QH TH JH KS AD 7D 8D TD 9D JD TC 7C 8C".split()}
B7 = BASE_B["played"]

# BETL_E.  Eight filler tricks, the declarer never winning one:
#   7S AS JS | KS TS 8S | QS JC 9S | AD JD 7D | KD TD 8D | QD TC 9D | AC QC 8C | AH KH JH
# (seat 1 wins them all and leads).  Talon QH 9C.
# Left (seat 1 to lead): seat 0 9H 7C   seat 1 8H KC   seat 2 TH 7H.
BETL_E = {"game": "marias", "contract": "betl",
          "hands": ["987.J9.987.87", "AKQ.A8.AKQ.AK", "JT.KT7.JT.QJT"], "talon": "QH 9C",
          "played": ("7S AS JS KS TS 8S QS JC 9S AD JD 7D KD TD 8D QD TC 9D "
                     "AC QC 8C AH KH JH").split()}

# DURCH_E.  Eight filler tricks led and won by seat 0 with top cards:
#   AC JC 8C | KC TC 7C | QC 9C 8D | AH JH 8H | KH TH 7H | QH 9H TS | AD QD TD | KD JD 9D
# Talon 9S 8S.  Left (seat 0 to lead): seat 0 AS QS   seat 1 KS 7D   seat 2 JS 7S.
DURCH_E = {"game": "marias", "contract": "durch",
           "hands": ["AQ.AKQ.AK.AKQ", "K.JT9.QJ7.JT9", "JT7.87.T98.87"], "talon": "9S 8S",
           "played": ("AC JC 8C KC TC 7C QC 9C 8D AH JH 8H KH TH 7H QH 9H TS "
                      "AD QD TD KD JD 9D").split()}


def test_endgame_positions_are_where_the_comments_say():
    p = pos(BASE_A)
    assert p.to_move == 0 and set(p.legal_moves) == {"KS", "QS", "QC"}
    p = pos(BASE_B)
    assert p.to_move == 0 and set(p.legal_moves) == {"8H", "7H", "AC"}
    p = pos(BETL_E)
    assert p.to_move == 1 and set(p.legal_moves) == {"8H", "KC"}
    p = pos(DURCH_E)
    assert p.to_move == 0 and set(p.legal_moves) == {"AS", "QS"}


def test_endgame_a_three_tricks_trump_marriage():
    # Seat 0 (KS QS QC) to lead, 70 banked.
    # KS (announcing 40): seat 1 must beat the King: TS (JS is lower); seat 2 follows 9S.
    #   Seat 1 wins (TS 10) and leads: JS -> seat 0 must beat with QS, wins, leads QC, seat 2
    #   must beat with KC and takes the last trick; or KH -> seat 0 must trump with QS, leads
    #   QC, seat 1 trumps it with JS for the last trick.  Either way: declarer 70 + 40 = 110,
    #   defenders TS 10 + last trick 10 = 20 -> 90.
    # QS (also announcing 40): the same with K and Q swapped -> 90.
    # QC: no marriage for seat 0 (KC is seat 2's), and he never leads again holding both
    #   trump honours (see the mid-trick test below) -> 50.
    res = solve(BASE_A)
    assert res.value == 90
    assert res.move_values == {"KS": 90, "QS": 90, "QC": 50}
    assert set(res.optimal_moves) == {"KS", "QS"}
    assert res.scores == {"declarer": 110, "defenders": 20}
    assert res.tricks == {"declarer": 8, "defenders": 2}
    assert res.won is True and res.settlement == [2, -1, -1]     # spades Hra: 1


def test_endgame_a_mid_trick_start():
    # After QC led: seat 1 is void in clubs and must trump (TS or JS); seat 2 then plays KC.
    #  TS: seat 1 wins (TS 10 to the defenders) with JS KH left; whatever he leads, seat 0
    #      wins both tricks with KS/QS (JS must be beaten; KH must be trumped), last trick
    #      10 -> declarer 80, defenders 10 -> 70.
    #  JS: seat 1 wins (no points) with TS KH left.  TS lead: seat 0 cannot beat it,
    #      seat 1 wins 10, then KH is trumped for the last trick -> 80 - 10 = 70.
    #      KH lead: seat 0 must trump, then leads his last spade, TS beats it and takes the
    #      last trick -> declarer 70, defenders 20 -> 50.  Seat 1 picks KH: 50.
    # Defenders minimise: JS, value 50.
    res = solve(BASE_A, A7 + ["QC"])
    assert res.to_move == 1
    assert res.value == 50
    assert res.move_values == {"TS": 70, "JS": 50}
    assert res.optimal_moves == ["JS"]


def test_endgame_a_two_tricks():
    # QC JS KC played: seat 1 leads (TS KH) against seat 0 (KS QS), seat 2 (9S QH).
    # TS -> 70, KH -> 50 (worked out above).  KH led by seat 1 is no marriage: QH is
    # seat 2's.
    res = solve(BASE_A, A7 + ["QC", "JS", "KC"])
    assert res.to_move == 1 and res.value == 50
    assert res.move_values == {"TS": 70, "KH": 50}
    assert res.scores == {"declarer": 70, "defenders": 20}


def test_endgame_a_one_trick_last_trick_counts_ten():
    # QC JS KC | KH QH QS (seat 0 trumps): seat 0 leads KS, seat 1 must beat it with TS and
    # takes TS + the last trick -> declarer 70, defenders 20 -> 50.
    res = solve(BASE_A, A7 + "QC JS KC KH QH QS".split())
    assert res.to_move == 0 and res.value == 50
    assert res.move_values == {"KS": 50}
    assert res.pv == ["KS", "TS", "9S"]
    assert res.scores == {"declarer": 70, "defenders": 20}
    assert res.tricks == {"declarer": 8, "defenders": 2}


def test_endgame_a_marriage_on_follow_variant():
    # With marriage_on_follow, seat 0 playing KS or QS as a follower while holding the
    # other also scores the trump marriage (40).  After QC JS KC (seat 1 leads):
    #  TS: seat 0 follows with a trump honour (+40), seat 1 wins TS, then KH is trumped
    #      for the last trick: declarer 70 + 40 + 10 = 120, defenders 10 -> 110.
    #  KH: seat 0 must trump with an honour (+40) and wins; his last spade loses to TS:
    #      declarer 110, defenders 20 -> 90.
    opts = {"marriage_on_follow": True}
    res = solve(BASE_A, A7 + ["QC", "JS", "KC"], options=opts)
    assert res.value == 90 and res.move_values == {"TS": 110, "KH": 90}
    assert res.scores == {"declarer": 110, "defenders": 20}
    # One ply earlier (after QC): TS -> 110 (as above), JS -> 90.
    res = solve(BASE_A, A7 + ["QC"], options=opts)
    assert res.value == 90 and res.move_values == {"TS": 110, "JS": 90}


def test_endgame_b_three_tricks_defenders_marriage():
    # Seat 0 (8H 7H AC) to lead, 70 banked; seat 1 (9H KD QD), seat 2 (KC QC JC).
    # 8H: seat 1 must beat with 9H (seat 2 discards a club) and leads KD or QD holding the
    #     other: +20 for the defenders.  Seat 0 must trump with 7H, then AC takes AC + the
    #     last trick: declarer 70 + 20 = 90, defenders 20 -> 70.
    # 7H: the same with the trumps swapped -> 70.
    # AC: seat 1 trumps it with 9H (defenders 10), leads KD (+20); seat 0 trumps twice and
    #     takes the last trick: declarer 80, defenders 30 -> 50.
    res = solve(BASE_B)
    assert res.value == 70
    assert res.move_values == {"8H": 70, "7H": 70, "AC": 50}
    assert res.scores == {"declarer": 90, "defenders": 20}
    assert res.won is True and res.settlement == [4, -2, -2]     # hearts Hra: 2
    assert res.outcomes == {"sedma": False, "kilo": False}


def test_endgame_b_sedma_objective():
    # Sedma: the declarer must win the last trick with the 7 of trumps.
    # 8H: seat 1 beats it with 9H and leads a diamond; seat 0 must trump with 7H now
    #     (his only trump) -> the 7 wins trick 9, not the last: -1.
    # 7H: the 7 is beaten by 9H: -1.
    # AC: seat 1 trumps with 9H, leads a diamond; seat 0 trumps with 8H, then leads 7H,
    #     nobody has a trump left: the 7 takes the last trick: +1.
    res = solve(BASE_B, objective="sedma")
    assert res.value == 1
    assert res.move_values == {"AC": 1, "8H": -1, "7H": -1}
    assert res.optimal_moves == ["AC"]
    assert res.won is True
    assert res.outcomes["sedma"] is True
    assert res.settlement == [4, -2, -2]     # sedma_value 1, doubled in hearts
    # Mid-trick, KD led at trick 9 (AC 9H KC played), seat 2 discards a club (either),
    # then seat 0 must trump: 8H keeps the 7 for the last trick (+1), 7H wastes it (-1).
    res = solve(BASE_B, B7 + "AC 9H KC KD".split(), objective="sedma")
    assert res.to_move == 2 and res.value == 1 and res.move_values == {"QC": 1, "JC": 1}
    res = solve(BASE_B, B7 + "AC 9H KC KD QC".split(), objective="sedma")
    assert res.to_move == 0 and res.value == 1 and res.move_values == {"8H": 1, "7H": -1}


def test_endgame_b_sedma_reported_on_a_plain_hra_solve():
    # One trick left after AC 9H KC | KD QC 8H: seat 0 leads 7H, the last trick with the
    # trump 7 = sedma.  Score: declarer 70 + 10 (last trick) = 80; defenders AC 10 +
    # marriage KD/QD 20 = 30 -> 50.  No kilo (80 and no trump marriage).
    res = solve(BASE_B, B7 + "AC 9H KC KD QC 8H".split())
    assert res.value == 50 and res.pv == ["7H", "QD", "JC"]
    assert res.scores == {"declarer": 80, "defenders": 30}
    assert res.outcomes == {"sedma": True, "kilo": False}


def test_kilo_objective():
    # Kilo: declarer's card points + last trick + the trump marriage >= 100.
    # BASE_A: KS/QS announce 40 on top of 70 -> 110 (+1); after QC he can never announce
    # it and has at most 70 + 10 + 10 = 90 (-1).
    res = solve(BASE_A, objective="kilo")
    assert res.value == 1 and res.move_values == {"KS": 1, "QS": 1, "QC": -1}
    assert res.won is True and res.outcomes["kilo"] is True
    assert res.settlement == [4, -2, -2]     # kilo_value 2, spades
    # BASE_B: no trump marriage for the declarer at all -> -1 whatever he does.
    res = solve(BASE_B, objective="kilo")
    assert res.value == -1 and res.move_values == {"8H": -1, "7H": -1, "AC": -1}
    assert res.won is False
    assert res.settlement == [-8, 4, 4]      # kilo_value 2, doubled in hearts


def test_kilo_reported_on_a_plain_hra_solve():
    # BASE_A's optimal line announces 40 on top of 70 in cards: 110 >= 100.
    res = solve(BASE_A)
    assert res.outcomes == {"sedma": False, "kilo": True}
    # After QC the trump marriage is gone: no kilo on the optimal line.
    res = solve(BASE_A, A7 + ["QC"])
    assert res.outcomes == {"sedma": False, "kilo": False}


def test_betl_endgame_two_tricks():
    # Seat 1 (8H KC) leads against seat 0 (9H 7C) and seat 2 (TH 7H); seat 0 must take no
    # trick (Betl order: T above 9).
    #  8H: seat 2 must beat it with TH; seat 0 cannot beat TH and plays 9H; seat 2 leads 7H,
    #      seat 0 throws 7C: declarer takes nothing -> +1.
    #  KC: seat 2 is void in clubs and may keep either heart; seat 0 plays 7C.  Seat 1 then
    #      leads 8H: if seat 2 kept 7H he cannot beat 8H and seat 0 must beat it with 9H ->
    #      the declarer takes the last trick: -1.  (Kept TH: TH wins, +1.)
    # Defenders choose KC: -1.
    res = solve(BETL_E)
    assert res.to_move == 1 and res.value == -1
    assert res.move_values == {"8H": 1, "KC": -1}
    assert res.won is False
    assert res.scores == res.tricks == {"declarer": 1, "defenders": 9}
    assert res.settlement == [-10, 5, 5]
    assert res.outcomes == {}
    # Mid-trick after KC: seat 2 discards TH (-1) or 7H (+1).
    res = solve(BETL_E, BETL_E["played"] + ["KC"])
    assert res.to_move == 2 and res.value == -1
    assert res.move_values == {"TH": -1, "7H": 1}
    # The winning defence line
    res = solve(BETL_E, BETL_E["played"] + ["8H"])
    assert res.value == 1 and res.won is True and res.settlement == [10, -5, -5]


def test_durch_endgame_two_tricks():
    # Seat 0 (AS QS) must take both tricks; seat 1 holds KS 7D.
    #  AS: seat 1 must follow with KS, then QS is the top spade: +1.
    #  QS: seat 1 must beat it with KS: -1.
    res = solve(DURCH_E)
    assert res.value == 1 and res.move_values == {"AS": 1, "QS": -1}
    assert res.scores == res.tricks == {"declarer": 10, "defenders": 0}
    assert res.won is True and res.settlement == [20, -10, -10]
    p = pos(DURCH_E, DURCH_E["played"] + ["QS"])
    assert p.legal_moves == ("KS",)
    res = ddcards.solve(p)
    assert res.value == -1 and res.won is False and res.settlement == [-20, 10, 10]
    # KS takes the ninth trick (QS KS JS: the Durch is lost); the line goes on to the end of the
    # deal (docs/RULES.md §0.8 rule 6): seat 1 leads 7D, seat 2 throws 7S, the declarer his AS,
    # and the 7D takes the last trick too (no trumps): 8 tricks to 2.
    assert res.pv == ["KS", "JS", "7D", "7S", "AS"]
    assert res.tricks == {"declarer": 8, "defenders": 2}


ORDER = [rank + suit for suit in "SHDC" for rank in "789TJQKA"]    # the line's order: Betl ranks, low to high


def test_a_defeated_betl_is_played_to_the_last_trick():
    """The search stops a Betl at the trick that defeats it; the line goes on to the end of the
    deal, each seat playing its lowest legal card (spades, hearts, diamonds, clubs; low to high),
    and the scores count all ten tricks (docs/RULES.md §0.8 rule 6, §1.11)."""
    doc = {"game": "marias", "contract": "betl", "hands": ["T987.8.T7.987", "AK.AQJ7.J.AKJ", "J.KT9.AK98.QT"],
           "talon": "QD QS", "played": ["7D"]}
    res = ddcards.solve(doc)
    assert res.value == -1 and res.optimal_moves == ["JD"] and not res.won
    assert len(res.pv) == 29                           # the 30 cards of the deal, 7D already played
    p, decided = ddcards.Position.from_dict(doc), False
    for card in res.pv:
        if decided:
            assert card == min(p.legal_moves, key=ORDER.index), card
        p = p.play(card)
        decided = decided or p.score.tricks["declarer"] > 0
    assert decided and p.is_over
    assert res.tricks == p.score.tricks and sum(res.tricks.values()) == 10
    assert res.scores == res.tricks


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("mode", ["best", "optimal", "all"])
def test_a_betl_decided_by_the_history_gets_a_line_from_its_reported_move(mode, threads):
    """The history has made the declarer take a trick (the seventh of the line above: 8D TD KC):
    the core has nothing to search and no line; the line starts with the lowest optimal card
    (in mode best, the card reported) and goes on to the end of the deal."""
    doc = {"game": "marias", "contract": "betl", "hands": ["T987.8.T7.987", "AK.AQJ7.J.AKJ", "J.KT9.AK98.QT"],
           "talon": "QD QS", "played": ("7D JD AD KH 8H AH AS JS TS AC TC 9C KS 9D 9S JC QC 8C 8D TD KC"
                                        .split())}
    assert ddcards.Position.from_dict(doc).score.tricks == {"declarer": 1, "defenders": 6}
    res = ddcards.solve(doc, mode=mode, threads=threads)
    assert res.value == -1 and res.pv[0] == res.best_move == min(res.optimal_moves, key=ORDER.index)
    if mode != "best":                      # every card is worth the same: all are optimal
        assert sorted(res.optimal_moves) == sorted(ddcards.Position.from_dict(doc).legal_moves) == ["7C", "7S", "8S"]
    end = ddcards.Position.from_dict(dict(doc, played=doc["played"] + res.pv))
    assert end.is_over and len(res.pv) == 9 and sum(res.tricks.values()) == 10


# Decided by the history, the record stopping inside a later trick (an audit found the rest of
# that trick in the core's order: AH for the Betl's seat 1, whose lowest is 7H).
BETL_CUT = {"game": "marias", "contract": "betl", "talon": "QD JC",
            "hands": ["J987.9.98.T97", "AQ.AKQT7.T7.Q", "KT.J8.AKJ.AK8"],
            "played": "7S AS KS TH JH 9H KC TC QC 8H 9S QH TD KD 8D 8C 9C QS JS".split()}
DURCH_CUT = {"game": "marias", "contract": "durch", "talon": "JS JC",
             "hands": ["AKQ.KQJ.A.AKQ", "T97.T87.J9.T8", "8.A9.KQT87.97"],
             "played": ["KC", "TC", "9C", "KH", "8H", "AH", "9H"]}


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("mode", ["best", "optimal", "all"])
def test_a_betl_decided_by_the_history_mid_trick_plays_its_lowest_cards(mode, threads):
    """Every card of the line, the rest of the current trick included, is the seat's lowest
    legal card once the contract is decided (docs/RULES.md §0.8 rule 6); mode best reports the
    first of them."""
    p = ddcards.Position.from_dict(BETL_CUT)
    assert p.score.tricks["declarer"] == 1 and len(p.trick) == 1 and p.legal_moves == ("AH", "KH", "7H", "7D")
    res = ddcards.solve(p, mode=mode, threads=threads)
    assert res.value == -1 and res.best_move == "7H" and res.pv[:3] == ["7H", "TS", "8S"]
    if mode != "best":
        assert sorted(res.optimal_moves) == sorted(p.legal_moves)
    for card in res.pv:
        assert card == min(p.legal_moves, key=ORDER.index), card
        p = p.play(card)
    assert p.is_over and res.tricks == p.score.tricks == {"declarer": 3, "defenders": 7}


@pytest.mark.parametrize("mode", ["best", "optimal", "all"])
def test_a_durch_decided_by_the_history_mid_trick_plays_its_lowest_cards(mode):
    # Seat 2's AH took the second trick (KH 8H AH): the Durch is lost; seat 2 has led 9H, and the
    # declarer follows with his lowest heart, JH (the core would have played QH).
    p = ddcards.Position.from_dict(DURCH_CUT)
    assert p.score.tricks == {"declarer": 1, "defenders": 1} and p.legal_moves == ("QH", "JH")
    res = ddcards.solve(p, mode=mode)
    assert res.value == -1 and res.best_move == res.pv[0] == "JH"
    for card in res.pv:
        assert card == min(p.legal_moves, key=ORDER.index), card
        p = p.play(card)
    assert p.is_over and sum(res.tricks.values()) == 10


# --------------------------------------------------------------------------- scoring

@pytest.mark.parametrize("lead,follow", [("KS", "QS"), ("QS", "KS")])
def test_marriage_on_lead_scores_20_or_40_in_trumps(lead, follow):
    # BASE_A played out: trick 8 seat 0 leads a spade honour holding the other (marriage),
    # seat 1 must beat it with TS, seat 2 follows 9S -> seat 1 (10).  Trick 9 seat 1 leads
    # JS, seat 2 (void, no trumps) throws KC, seat 0 must beat with his other honour ->
    # seat 0.  Trick 10 QC KH QH -> seat 0, last trick 10.
    # Cards: declarer 70 + 10, defenders 10.  No trump is played in tricks 8-10, so the
    # same line is legal with spades or diamonds as trumps:
    #   spades trump: the marriage is in trumps, 40 -> 120 / 10, value 110;
    #   diamonds trump: a plain marriage, 20 -> 100 / 10, value 90.
    line = A7 + [lead, "TS", "9S", "JS", "KC", follow, "QC", "KH", "QH"]
    res = ddcards.solve(pos(BASE_A, line))
    assert res.scores == {"declarer": 120, "defenders": 10} and res.value == 110
    res = ddcards.solve(pos(BASE_A, line, trump="D"))
    assert res.scores == {"declarer": 100, "defenders": 10} and res.value == 90


def test_marriage_on_lead_in_the_seed():
    # The seed line's 90 for the declarer is 50 in cards + 40 for QH led holding KH.
    res = ddcards.solve(pos(SEED))
    assert res.scores["declarer"] == 50 + 40


def test_marriage_on_follow_only_with_the_option():
    # In the seed line seat 1 follows QS holding KS (trick 5) and QD holding KD (trick 7).
    # Default: no marriage for a follower -> 90 / 40.  With marriage_on_follow:
    # defenders 40 + 20 + 20 = 80, value 90 - 80 = 10.
    res = ddcards.solve(pos(SEED, options={"marriage_on_follow": False}))
    assert res.scores == {"declarer": 90, "defenders": 40} and res.value == 50
    res = ddcards.solve(pos(SEED, options={"marriage_on_follow": True}))
    assert res.scores == {"declarer": 90, "defenders": 80} and res.value == 10
    assert res.won is True


def test_defenders_marriage_on_lead_and_king_without_queen():
    # BASE_B, 8H line: seat 1 leads KD holding QD: defenders 20 (scores 90 / 20).
    res = solve(BASE_B, B7 + ["8H"])
    assert res.value == 70 and res.scores == {"declarer": 90, "defenders": 20}
    # BASE_A: seat 1 leads KH without QH (seat 2 has it): no marriage (70 / 20).
    res = solve(BASE_A, A7 + ["QC", "JS", "KC", "KH"])
    assert res.scores == {"declarer": 70, "defenders": 20}


def test_betl_has_no_marriages():
    # The seed deal as Betl: seat 0 leads QH holding KH — nothing scored; values are ±1
    # and scores are tricks.
    res = ddcards.solve(pos(SEED_START, [], contract="betl", trump=None), mode="best")
    assert res.value in (1, -1)
    assert res.value_kind == "outcome"
    assert set(res.scores) == {"declarer", "defenders"}
    assert res.scores == res.tricks


def test_talon_points_option_is_inert_in_hra():
    # The talon's points go to the defenders (variant: to nobody) — but a Hra talon can
    # hold no ace or ten, so there are never any: both settings give the same answers.
    for doc, played in ((SEED, None), (BASE_A, None), (BASE_B, B7 + ["AC"])):
        a = solve(doc, played, options={"talon_points": "defenders"})
        b = solve(doc, played, options={"talon_points": "nobody"})
        assert (a.value, a.scores, a.move_values) == (b.value, b.scores, b.move_values)


@pytest.mark.parametrize("doc,played", [
    (SEED, None), (SEED_START, "QH TH 7S"), (BASE_A, None), (BASE_A, A7 + ["QC"]),
    (BASE_B, None), (BASE_B, B7 + ["AC"]),
])
def test_hra_value_is_the_score_difference(doc, played):
    res = solve(doc, played)
    assert res.value_kind == "points"
    assert res.value == res.scores["declarer"] - res.scores["defenders"]
    # card points + last trick = 90, plus marriages in steps of 20
    assert (res.scores["declarer"] + res.scores["defenders"] - 90) % 20 == 0
    assert res.won == (res.value > 0)


def test_lost_hra_finished_deal():
    # Clubs trump.  Seat 0: 987.987.J987.  seat 1: AKT.AKT.AKT.A  seat 2: QJ.QJ.Q.KQJT9,
    # talon 8C 7C.  The line (leader first):
    #  1 7S AS JS -> 1 (10)    2 TS QS 8S -> 1 (10)   3 AH JH 7H -> 1 (10)
    #  4 TH QH 8H -> 1 (10)    5 AD QD 7D -> 1 (10)
    #  6 TD 9C 8D -> 2 (seat 2 void in D must trump; seat 0 any diamond: 10)
    #  7 TC 9S AC -> 1 (seat 0 discards, seat 1 must beat TC with AC: 20)
    #  8 KS JC 9H -> 2 (seat 2 must trump)   9 QC JD KH -> 2 (QC led holding KC: +40)
    # 10 KC 9D KD -> 2, last trick 10.
    # Defenders 90 in cards and last trick + 40 = 130, declarer 0 -> -130, lost.
    doc = {"game": "marias", "contract": "hra", "trump": "C",
           "hands": ["987.987.J987.", "AKT.AKT.AKT.A", "QJ.QJ.Q.KQJT9"], "talon": "8C 7C",
           "played": ("7S AS JS TS QS 8S AH JH 7H TH QH 8H AD QD 7D TD 9C 8D "
                      "TC 9S AC KS JC 9H QC JD KH KC 9D KD").split()}
    res = ddcards.solve(pos(doc))
    assert res.value == -130
    assert res.scores == {"declarer": 0, "defenders": 130}
    assert res.tricks == {"declarer": 0, "defenders": 10}
    assert res.won is False
    assert res.settlement == [-2, 1, 1]
    res = ddcards.solve(pos(doc, flek=1))
    assert res.settlement == [-4, 2, 2]
    res = ddcards.solve(pos(doc, flek=2))
    assert res.settlement == [-8, 4, 4]


# --------------------------------------------------------------------------- settlement

@pytest.mark.parametrize("doc,played,changes,expected", [
    # hearts Hra (2), won
    (SEED, None, {}, [4, -2, -2]),
    (SEED, None, {"flek": 1}, [8, -4, -4]),            # flek x2
    (SEED, None, {"flek": 2}, [16, -8, -8]),           # re x4
    # spades Hra (1), won
    (BASE_A, None, {}, [2, -1, -1]),
    (BASE_A, None, {"flek": 2}, [8, -4, -4]),
    # Betl 5: lost / won; Durch 10: won / lost
    (BETL_E, None, {}, [-10, 5, 5]),
    (BETL_E, BETL_E["played"] + ["8H"], {}, [10, -5, -5]),
    (BETL_E, None, {"flek": 1}, [-20, 10, 10]),
    (DURCH_E, None, {}, [20, -10, -10]),
    (DURCH_E, None, {"flek": 2}, [80, -40, -40]),
    (DURCH_E, DURCH_E["played"] + ["QS"], {"flek": 1}, [-40, 20, 20]),
    # Sedma / Kilo stakes (options), doubled in hearts, then flek
    (BASE_B, None, {"objective": "sedma"}, [4, -2, -2]),
    (BASE_B, None, {"objective": "sedma", "options": {"sedma_value": 3}}, [12, -6, -6]),
    (BASE_B, None, {"objective": "sedma", "options": {"sedma_value": 3}, "flek": 1}, [24, -12, -12]),
    (BASE_A, None, {"objective": "kilo"}, [4, -2, -2]),
    (BASE_A, None, {"objective": "kilo", "options": {"kilo_value": 5}, "flek": 1}, [20, -10, -10]),
    (BASE_A, A7 + ["QC"], {"objective": "kilo"}, [-4, 2, 2]),
    (BASE_B, None, {"objective": "kilo"}, [-8, 4, 4]),
])
def test_settlement(doc, played, changes, expected):
    res = solve(doc, played, **changes)
    assert res.settlement == expected
    assert sum(res.settlement) == 0
    assert res.won == (expected[0] > 0)
    # the declarer gets twice the stake, each defender pays it
    assert res.settlement[0] == -2 * res.settlement[1] and res.settlement[1] == res.settlement[2]


def test_sedma_kilo_stakes_do_not_change_the_hra_settlement():
    # sedma_value / kilo_value only price those objectives
    res = solve(BASE_A, options={"sedma_value": 7, "kilo_value": 9})
    assert res.settlement == [2, -1, -1]
