"""Mariasz rules through the public API (RULES.md §3), with hand-checked values.

Every position is a full deal reached by a legal ``played`` history, so the product path is
exercised end to end: validation, replay (draws from the stock included), legal actions, the
error for an illegal action, the search, the scores and the settlement.  Every expected number
is worked out by hand in the comment next to it.

Order — plain suits A T K Q J 9 8 7 6; trumps Q (pamfil) A T K J 9 8 7 6.
Points — pamfil 11, A 11, T 10, K 4, Q 3, J 2; last trick 10; marriage 20, in trumps 40.
"""
from __future__ import annotations

import pytest

import ddcards
from ddcards.games.mariasz import line_summary, marriage_stake, parse_setup, settlement

# --------------------------------------------------------------------------- helpers


def pos(doc, played=None, **changes):
    d = dict(doc, **changes)
    if played is not None:
        d["played"] = played.split() if isinstance(played, str) else list(played)
    return ddcards.Position.from_dict(d)


def hands(position):
    return position.session().describe()["hands"]


def score(position):
    return position.score.points


def assert_illegal(position, action, clause, *also):
    """Playing ``action`` raises IllegalPlayError naming the action and the clause."""
    with pytest.raises(ddcards.IllegalPlayError) as info:
        position.play(action)
    err = info.value
    assert err.token == action and action in str(err) and clause in str(err), str(err)
    assert err.rule.startswith("docs/RULES.md §3.") and err.rule in str(err), err.rule
    assert not clause.startswith("§") or clause in err.rule, err.rule
    for text in also:
        assert text in str(err), str(err)
    doc = position.to_dict()
    doc["played"] = doc["played"] + [action]
    with pytest.raises(ddcards.IllegalPlayError) as again:
        ddcards.Position.from_dict(doc)
    assert again.value.token == action and f"played[{len(doc['played']) - 1}]" in str(again.value)


# --------------------------------------------------------------------------- deal A: 36 cards, trumps H
# seat 0: AS KS QS 6H 7D 8C; seat 1: TS 9S AH 6D 9C 7C; the turned card 7H fixes hearts.
A = {"game": "mariasz", "hands": ["AKQ.6.7.8", "T9.A.6.97"],
     "stock": "JS 8H QD 6C TH 9D KC 7S 8D QH JC AD 6S KD TC 9H 8S JD AC KH JH TD QC 7H"}


def test_the_turned_card_fixes_trumps_and_seat_0_leads():
    p = pos(A)
    assert p.to_dict()["trump"] == "H" and p.to_move == 0
    # on lead holding the trump six while the turned 7H is in the stock: he may exchange (§3.7)
    assert list(p.legal_moves) == ["exchange", "AS", "KS", "QS", "6H", "7D", "8C"]


def test_phase1_tricks_draws_and_a_marriage():
    # 1. seat 0 leads KS holding QS: marriage 20 at once; 9S follows lower, KS wins 4 + 0.
    p = pos(A, "KS")
    assert score(p) == {"seat0": 20, "seat1": 0}
    p = p.play("9S")
    assert score(p) == {"seat0": 24, "seat1": 0}
    # the winner draws first: seat 0 takes JS, seat 1 takes 8H (§3.3 rule 3)
    assert hands(p) == ["AQJ.6.7.8", "T.A8.6.97"]
    # 2. AS led, seat 1 throws 6D: no obligation to follow in phase 1 (§3.3 rule 1); AS wins 11
    p = p.play("AS").play("6D")
    assert score(p) == {"seat0": 35, "seat1": 0}
    assert hands(p) == ["QJ.6.Q7.8", "T.A8..976"]
    # 3. QS led (its K is gone: no marriage); the trump AH wins 3 + 11 = 14; seat 1 draws TH first
    p = p.play("QS").play("AH")
    assert score(p) == {"seat0": 35, "seat1": 14}
    assert hands(p) == ["J.6.Q97.8", "T.T8..976"] and p.to_move == 1
    # 4. 9C led; QD of another plain suit loses though higher (§3.5): seat 1 wins 0 + 3
    p = p.play("9C").play("QD")
    assert score(p) == {"seat0": 35, "seat1": 17}
    # 5. TS led; the lowest trump 6H takes a ten: seat 0 wins 10
    p = p.play("TS").play("6H")
    assert score(p) == {"seat0": 45, "seat1": 17} and p.to_move == 0


def test_phase1_any_card_may_follow():
    p = pos(A, "AS")
    assert list(p.legal_moves) == ["TS", "9S", "AH", "6D", "9C", "7C"]     # not only spades (§3.3 rule 1)


def test_marriage_only_on_lead_unless_marriage_on_second():
    # seat 1 leads (leader 1: seat 0 is the dealer); seat 0 follows KS holding QS and wins
    p = pos(A, "9S KS", leader=1)
    assert score(p) == {"seat0": 4, "seat1": 0}                      # no marriage by default
    opts = {"marriage_on_second": True}
    assert score(pos(A, "9S KS", leader=1, options=opts)) == {"seat0": 24, "seat1": 0}
    assert score(pos(A, "9S QS", leader=1, options=opts)) == {"seat0": 23, "seat1": 0}
    # KS loses to TS (A T K Q J): a marriage played second scores only if it wins
    assert score(pos(A, "TS KS", leader=1, options=opts)) == {"seat0": 0, "seat1": 14}


def test_exchange():
    p = pos(A, "exchange")
    assert hands(p)[0] == "AKQ.7.7.8"                       # the turned 7H for the 6H
    assert p.session().describe()["stock"].endswith("QC 6H")   # the six is drawn last
    assert "exchange" not in list(p.legal_moves) and p.to_move == 0  # he now leads; once a deal
    assert_illegal(p, "exchange", "§3.7", "already been exchanged")
    # play the stock out (first legal card each time): the loser of the last trick of phase 1
    # draws the six, the winner the last face-down card QC (§3.3 rule 3)
    while p.session().describe()["stock"] != "QC 6H":
        p = p.play(list(p.legal_moves)[0])
    p = p.play(list(p.legal_moves)[0])
    p = p.play(list(p.legal_moves)[0])
    winner = p.to_move
    assert "Q" in hands(p)[winner].split(".")[3] and "6" in hands(p)[1 - winner].split(".")[1]
    assert p.session().describe()["stock"] == "-"


def test_exchange_only_when_allowed():
    assert_illegal(pos(A, "AS"), "exchange", "§3.7", "on lead, before leading")
    p = pos(A, "7D AH")                                     # seat 1 wins and leads
    assert_illegal(p, "exchange", "§3.7", "seat 1 does not hold the trump six 6H (seat 0 holds it)")
    six_turned = dict(A, stock=A["stock"].replace("7H", "XX").replace("6C", "7H").replace("XX", "6C"))
    assert pos(six_turned).to_dict()["trump"] == "C"
    assert "exchange" not in list(pos(six_turned).legal_moves)  # nobody holds 6C: it is the turned card
    assert_illegal(pos(six_turned), "exchange", "§3.7", "the turned card is the trump six 6C itself")
    slepy = pos(A, options={"slepy": True}, trump="D")      # trumps D drawn apart: 7H is no trump
    assert_illegal(slepy, "exchange", "§3.7", "7H is not a trump")
    assert "exchange" in list(pos(A, options={"slepy": True}, trump="H").legal_moves)


def test_trump_six_holder_can_exchange_for_the_pamfil():
    # seat 1 holds 6C (7C is in the stock instead) and the turned card is the pamfil QC
    doc = dict(A, hands=["AKQ.6.7.8", "T9.A.6.96"],
               stock=A["stock"].replace("6C", "7C").replace("QC 7H", "7H QC"))
    assert pos(doc).to_dict()["trump"] == "C"
    assert "exchange" not in list(pos(doc).legal_moves)         # seat 0 lacks 6C
    p = pos(doc, "7D 9C")                                   # the trump 9C wins; seat 1 draws JS
    assert p.to_move == 1 and "exchange" in list(p.legal_moves)
    p = p.play("exchange")
    assert hands(p)[1] == "JT9.A.6.Q"                       # QC in, 6C under the stock


# --------------------------------------------------------------------------- deal B: szlifowany, trumps C
# seat 0: AS KS 6S TH QD JC; seat 1: QS JS AH 6H KD TC; the turned pamfil QC fixes clubs.
B = {"game": "mariasz", "options": {"szlifowany": True}, "hands": ["AK6.T.Q.J", "QJ.A6.K.T"],
     "stock": "TS KH QH JH AD TD JD 6D AC KC 6C QC"}
B_PHASE1 = ("6S JS "     # JS wins 2; seat 1 draws TS, seat 0 KH
            "6H TH "     # TH wins 10; seat 0 draws QH, seat 1 JH
            "KH AH "     # KH led holding QH: marriage 20; AH wins 4 + 11 = 15
            "TC JC "     # trumps: TC over JC, 10 + 2 = 12 to seat 1
            "KD QD "     # 4 + 3 = 7 to seat 1
            "QS KS")     # KS wins 3 + 4 = 7; seat 0 draws 6C, seat 1 the turned QC
B_PHASE2 = "AS TS QH JH"  # seat 1 must follow each time: 21 and 3 + 2 = 5 to seat 0


def test_szlifowany_phase1_points_and_the_last_draws():
    p = pos(B, B_PHASE1)
    assert score(p) == {"seat0": 37, "seat1": 36}            # 10 + 20 + 7, 2 + 15 + 12 + 7
    assert hands(p) == ["A.Q.T6.K6", "T.J.AJ.AQ"]            # seat 1 lost the last trick: QC
    assert p.session().describe()["stock"] == "-" and p.to_move == 0


def test_phase2_follow_suit_and_must_beat():
    p = pos(B, B_PHASE1 + " AS")
    assert list(p.legal_moves) == ["TS"]                          # §3.4 rule 2
    assert_illegal(p, "AD", "§3.4 rule 2: phase 2, follow suit", "must follow suit S")
    p = pos(B, f"{B_PHASE1} {B_PHASE2} TD")
    assert list(p.legal_moves) == ["AD", "JD"]
    p = pos(B, f"{B_PHASE1} {B_PHASE2} TD", options={"szlifowany": True, "must_beat": True})
    assert list(p.legal_moves) == ["AD"]                          # JD would not beat TD (§3.4 rule 5)
    assert_illegal(p, "JD", "§3.4 rule 5", "must beat TD")


def test_phase2_hand_checked_values():
    p = pos(B, f"{B_PHASE1} {B_PHASE2}")
    assert score(p) == {"seat0": 63, "seat1": 36}
    # seat 0: TD 6D KC 6C, seat 1: AD JD AC QC, seat 0 leads; 85 points remain (47 + 28 + 10).
    # - TD: seat 1 takes it with AD (21) and wins the rest, JD over 6D and both clubs: 63 - 95.
    # - 6D: seat 1 takes it with JD (2), then AD fells TD (21), then the clubs (36): 63 - 95.
    # - KC or 6C: seat 1 must win it with a club, then whatever he leads seat 0 keeps TD for
    #   his JD (12): seat 0 75, seat 1 36 + 15 + 11 + 21 = 83 (or the other club order).
    res = ddcards.solve(p)
    assert res.move_values == {"TD": -32, "6D": -32, "KC": -8, "6C": -8}
    assert res.value == -8 and res.optimal_moves == ["KC", "6C"]
    assert res.scores == {"seat0": 75, "seat1": 83, "seat0_marriages": 20, "seat1_marriages": 0}
    assert res.settlement == [-8, 8] and not res.won
    # two tricks from the end: seat 1's AC and QC win both (36 with the last trick)
    p = pos(B, f"{B_PHASE1} {B_PHASE2} TD JD 6D AD")
    res = ddcards.solve(p)
    assert p.to_move == 1 and res.move_values == {"AC": -8, "QC": -8}


def test_the_deal_ends_when_the_cards_run_out():
    p = pos(B, f"{B_PHASE1} {B_PHASE2} TD JD 6D AD AC 6C QC KC")
    assert p.is_over and list(p.legal_moves) == []
    assert score(p) == {"seat0": 75, "seat1": 83}           # 138 + the marriage 20 = 158
    assert_illegal(p, "AD", "deal is over", "all 12 tricks")


# --------------------------------------------------------------------------- races (§3.8, §3.9)

def test_a_marriage_on_lead_claims_at_once():
    p = pos(A, "KS", objective="race", start_scores=[111, 0])
    assert p.is_over and p.to_move is None                     # 111 + 20 = 131 before the trick ends
    res = ddcards.solve(p)
    assert res.value == 1 and res.value_kind == "outcome" and res.won
    assert res.outcomes == {"seat0_claims": True, "seat1_claims": False,
                            "seat0_swatowe": False, "seat1_swatowe": False}
    # a later deal: sympla 1, and the marriage pays 1
    assert res.scores["stake"] == 1 and res.scores["seat0_total"] == 131 and res.settlement == [2, -2]
    assert_illegal(p, "9S", "deal is over", "seat 0 reached 131")


def test_a_trick_claims_and_who_claims_first_wins():
    # seat 0: 90 + 24 + 11 = 125 after two tricks; seat 1: 119 + QS 3 + AH 11 = 133 at the third
    p = pos(A, "KS 9S AS 6D QS AH", objective="race", start_scores=[90, 119])
    assert p.is_over
    res = ddcards.solve(p)
    assert res.value == -1 and res.scores["seat1_total"] == 133 and res.scores["seat0_total"] == 125
    assert res.outcomes["seat1_claims"] and not res.outcomes["seat0_claims"]
    # from 100 seat 0 reaches 135 at the second trick and claims first: the third is not played
    p = pos(A, "KS 9S AS 6D", objective="race", start_scores=[100, 119])
    assert p.is_over and ddcards.solve(p).value == 1
    assert_illegal(p, "QS", "deal is over")


def test_race_value_zero_when_no_one_can_reach_131():
    p = pos(B, f"{B_PHASE1} {B_PHASE2}", objective="race", start_scores=[0, 0])
    res = ddcards.solve(p)
    assert res.value == 0 and res.moves and all(m.value == 0 for m in res.moves)
    assert res.scores["stake"] == 0 and res.outcomes["seat0_claims"] is False
    assert res.settlement == [1, -1]                       # no game: seat 0's marriage pays 1


def test_stake_arithmetic():
    assert marriage_stake(0, 0) == 0 and marriage_stake(20, 1) == 1 and marriage_stake(40, 1) == 2
    assert marriage_stake(100, 4) == 5                      # swatowe
    setup = parse_setup(dict(A, objective="race"))          # 0/0: the first deal
    st = {"points": [131, 20], "marriage_points": [40, 20], "marriages": [1, 1], "claimed": 0,
          "tricks": [5, 3]}
    assert settlement(setup, st) == [2 + 2 - 1, -(2 + 2 - 1)]  # dubla 2, trump marriage 2, plain 1
    summary = line_summary(setup, st, 1)
    assert summary.scores["stake"] == 2 and summary.outcomes["seat0_claims"]


# Deal E (trumps H): twelve phase-1 tricks leave seat 0 with 63 points and 9S 8S 9D 8D 9C 6H,
# seat 1 with 65 and 7S 6S 7D 6D 7C 7H (he lost the last phase-1 trick: the turned 7H), seat 0
# on lead.  Every phase-2 trick is worth nothing but the last trick's 10: seat 0 wins each suit
# by following higher, so the 10 is seat 1's only if 6H-7H is the last trick.
E = {"game": "mariasz", "hands": ["AQ.A.AQ.A", "KT.Q.KT.K"], "objective": "race",
     "stock": "QC TC 8C JC JS 8H JD 9H JH 6C TH KH 7S 9S 8S 6S 7D 9D 8D 6D 7C 9C 6H 7H"}
E_PHASE1 = "AS KS QS TS KD AD QD TD QH AH KC AC QC TC 8C JC JS 8H JD 9H 6C JH KH TH"
E_PHASE2 = "9S 7S 8S 6S 9D 7D 8D 6D 9C 7C"


def test_the_last_tricks_ten_claims():
    p = pos(E, E_PHASE1, start_scores=[0, 56])
    assert score(p) == {"seat0": 63, "seat1": 65}
    # the last trick: 56 + 65 + 10 = 131 claims for seat 1; from 55 it stops at 130
    res = ddcards.solve(pos(E, f"{E_PHASE1} {E_PHASE2}", start_scores=[0, 56]))
    assert res.value == -1 and res.scores["seat1_total"] == 131 and res.outcomes["seat1_claims"]
    assert res.scores["stake"] == 1 and res.settlement == [-1, 1]          # sympla
    assert ddcards.solve(pos(E, f"{E_PHASE1} {E_PHASE2}", start_scores=[0, 55])).value == 0
    # from phase 2's first lead seat 0 plays 6H before the end and takes the 10 himself:
    # 58 + 63 + 10 = 131 whatever he leads; from 57 no one reaches 131
    res = ddcards.solve(pos(E, E_PHASE1, start_scores=[58, 56]))
    assert res.value == 1 and all(m.value == 1 for m in res.moves) and res.scores["seat0_total"] == 131
    assert ddcards.solve(pos(E, E_PHASE1, start_scores=[57, 56])).value == 0


# Deal F (trumps H): seat 0 leads KC holding QC and KD holding QD in phase 1 (40) and ends it
# with 44 points, seat 1 with 58; seat 0 holds KS QS KH QH 7S and the turned 6H, seat 1
# AC TC JC 9C AD TD and leads phase 2.
F = {"game": "mariasz", "hands": ["86..KQ.KQ", "AT.987..8"], "objective": "race",
     "stock": "9S JS JD 6D 9D 7D JH 8D TH 6C AH 7C AC KS TC QS JC KH 9C QH AD 7S TD 6H"}
F_PHASE1 = "KC 8C KD 7H 9H QC 8H QD AS 6S TS 8S JS 9S JD 6D 9D 7D JH 8D TH 6C AH 7C"


def test_swatowe_in_a_race():
    # 9C is trumped with 6H (0); KS led holding QS (20) takes JC (4 + 2); KH led holding QH
    # (40): 44 + 20 + 6 + 40 = 110, the fourth marriage before any claim
    p = pos(F, f"{F_PHASE1} 9C 6H KS JC KH")
    assert score(p) == {"seat0": 110, "seat1": 58}
    res = ddcards.solve(p)
    # the KH trick brings 14 or 15 (125 at most), then QH led takes 21 or 22: the claim comes there
    assert res.value == 1 and res.outcomes["seat0_swatowe"] and res.outcomes["seat0_claims"]
    assert res.scores["seat0_marriages"] == 100 and res.scores["stake"] == 2    # the first deal: dubla
    assert res.settlement == [2 + 5, -(2 + 5)]                                # swatowe 5 = 1 + 1 + 1 + 2


# --------------------------------------------------------------------------- Kiks (§3.10)
# seat 0: AS TS 9S AH 6H AD AC 7C 6C; seat 1: KS 8S KH 7H KD TD 9D KC TC;
# seat 2: QS 7S 6S QH 8H QD 8D QC 9C; seat 3 (the dealer): JS TH JH 9H JD 7D 6D JC 8C.
C = {"game": "mariasz", "options": {"variant": "kiks"}, "trump": "H",
     "hands": ["AT9.A6.A.A76", "K8.K7.KT9.KT", "Q76.Q8.Q8.Q9", "J.TJ9.J76.J8"]}
C_LINE = "AS 8S 6S JS  AD 9D 8D 6D  AC TC 9C 8C  TS KS 7S"


def test_kiks_follow_and_trump_from_the_first_trick():
    assert list(pos(C, "AS").legal_moves) == ["KS", "8S"]       # §3.4 rule 2 from the first trick
    p = pos(C, C_LINE)
    assert list(p.legal_moves) == ["TH", "JH", "9H"]            # seat 3 void in spades: trump (§3.4 rule 3)
    assert_illegal(p, "7D", "§3.4 rule 3: trump when void", "must trump")     # no "phase 2": no stock
    p = p.play("9H")
    # team 0: 13 + 11 + 21; team 1: TS KS 7S 9H = 10 + 4 = 14 to seat 3
    assert score(p) == {"team0": 45, "team1": 14} and p.to_move == 3


def test_kiks_must_beat_overtrumps():
    line = C_LINE + " 9H  7D 6H TD QD  9S KH QS"            # seat 0 trumps 7D; seat 1 trumps 9S
    assert list(pos(C, line).legal_moves) == ["TH", "JH"]
    p = pos(C, line, options={"variant": "kiks", "must_beat": True})
    assert list(p.legal_moves) == ["TH"]                        # TH over KH; JH is lower (§3.4 rule 5)
    assert_illegal(p, "JH", "§3.4 rule 5", "must overtrump KH")
    assert score(p) == {"team0": 58, "team1": 14}           # 7D 6H TD QD: 10 + 3 to team 0


def test_kiks_must_overtrump_the_highest_trump_of_two():
    # seat 0 leads 6C in the sixth trick; seats 1 and 2 are void in clubs: KH trumps, 8H cannot
    # beat it (seat 2's only trump).  Seat 3 holds TH 9H 7D 6D: TH beats KH, 9H beats only 8H, so
    # 9H breaks §3.4 rule 5 and the trump to beat is KH, the trick's best, not the 8H under it.
    line = "6H 7H QH JH  8D JD AD KD  TS KS 6S JS  7C TC QC 8C  KC 9C JC AC  6C KH 8H"
    p = pos(C, line, options={"variant": "kiks", "must_beat": True})
    assert p.to_move == 3 and list(p.legal_moves) == ["TH"]
    assert_illegal(p, "9H", "§3.4 rule 5", "must overtrump KH", "legal: TH")


def test_kiks_value_is_team_margin():
    res = ddcards.solve(pos(C, C_LINE + " 9H"))
    assert res.scores["team0"] + res.scores["team1"] == 138 + sum(
        res.scores[f"seat{i}_marriages"] for i in range(4))
    assert res.value == res.scores["team0"] - res.scores["team1"]
    assert res.settlement == [res.value, -res.value, res.value, -res.value]


# --------------------------------------------------------------------------- three players (§3.10)
# szlifowany, 8 each; seat 2 deals (holds a club: trumps C).
D = {"game": "mariasz", "options": {"variant": "three", "szlifowany": True}, "trump": "C",
     "hands": ["AT.K6.KJ.QT", "Q.QJ.T6.AKJ", "KJ6.AT.AQ.6"]}


def test_three_players_paranoid_value_is_the_players_points():
    for player in range(3):
        res = ddcards.solve(pos(D, options={**D["options"], "player": player}), mode="best")
        assert res.value == res.scores[f"seat{player}"]
        total = sum(res.scores[f"seat{i}"] for i in range(3))
        assert total == 138 + sum(res.scores[f"seat{i}_marriages"] for i in range(3))
        assert sum(res.settlement) == 0
    # seat 0 against the two others: 29 (the bundled example). The plain reference
    # (tests/reference/mariasz.py) gives 29 too, in about 20 s of pure Python: too slow to run
    # here; the differential tests compare three-player positions from later in the deal.
    assert ddcards.solve(pos(D)).value == 29


def test_three_players_last_trick_by_hand():
    # The example's line: AS QS 6S (14 to seat 0) | 6H QH AH (14, seat 2) | AD JD 6D (13, seat 2)
    # | TH KH JH (16, seat 2) | 6C TC AC (21, seat 1) | TD QD KD (17, seat 1) | JC JS QC (the
    # pamfil: 15 to seat 0) — then seat 0 leads TS, seat 1's last card is the trump KC, seat 2's
    # KS: KC wins 10 + 4 + 4 + the last trick 10 = 28.  Seat 0 29, seat 1 66, seat 2 43.
    line = "AS QS 6S 6H QH AH AD JD 6D TH KH JH 6C TC AC TD QD KD JC JS QC".split()
    for player, expected in enumerate((29, 66, 43)):
        p = pos(D, line, options={**D["options"], "player": player})
        assert list(p.legal_moves) == ["TS"]
        res = ddcards.solve(p)
        assert res.value == expected and res.pv == ["TS", "KC", "KS"]
        assert res.scores == {"seat0": 29, "seat1": 66, "seat2": 43, "seat0_marriages": 0,
                              "seat1_marriages": 0, "seat2_marriages": 0}
        assert res.settlement == [3 * 29 - 138, 3 * 66 - 138, 3 * 43 - 138]


# --------------------------------------------------------------------------- the seed's open points (§3.13), by hand
# Three players, szlifowany (8 each, A T K Q J 6 per suit), trumps C (seat 2 deals, holding clubs).
THREE = {"game": "mariasz", "options": {"variant": "three", "szlifowany": True}, "trump": "C",
     "hands": ["AKQJT6.6.6.", ".KQ.JT.AKQJ", ".AJT.AKQ.T6"]}
# The same, seat 1 void in spades: a spade lead is trumped before seat 2 follows.
THREE_VOID = {"game": "mariasz", "options": {"variant": "three", "szlifowany": True}, "trump": "C",
     "hands": ["KQJT.A6.A6.", ".KQJT.KQ.AK", "A6..JT.QJT6"]}


def test_szlifowany_keeps_the_full_decks_order_the_ten_above_the_king():
    # 6H KH TH: the ten wins (0 + 4 + 10 to seat 2); 6H KH JH: the king wins (0 + 4 + 2 to seat 1)
    assert score(pos(THREE, "6H KH TH")) == {"seat0": 0, "seat1": 0, "seat2": 14}
    assert score(pos(THREE, "6H KH JH")) == {"seat0": 0, "seat1": 6, "seat2": 0}
    assert pos(THREE, "6H KH TH").to_move == 2


def test_marriage_on_second_lets_any_follower_whose_king_or_queen_wins_score_it():
    opts = {**THREE["options"], "marriage_on_second": True}
    # second hand: seat 1's KH (holding QH) wins the trick: 6 + 20
    assert score(pos(THREE, "6H KH JH", options=opts)) == {"seat0": 0, "seat1": 26, "seat2": 0}
    # ... but not a king that loses (TH beats it), nor without the option (above)
    assert score(pos(THREE, "6H KH TH", options=opts)) == {"seat0": 0, "seat1": 0, "seat2": 14}
    # seat 1 leads JD, seat 2's KD (holding QD) wins as second hand of three: 2 + 4 + 0 + 20
    p = pos(THREE, "6H KH JH JD KD 6D", options=opts)
    assert score(p) == {"seat0": 0, "seat1": 26, "seat2": 26} and p.to_move == 2
    assert score(pos(THREE, "6H KH JH JD KD 6D")) == {"seat0": 0, "seat1": 6, "seat2": 6}


def test_must_beat_with_three_players_need_not_beat_once_the_trick_is_trumped():
    opts = {**THREE_VOID["options"], "must_beat": True}
    # not trumped: seat 2 must beat QD (TD does, JD does not) ...
    assert list(pos(THREE_VOID, "6D QD", options=opts).legal_moves) == ["TD"]
    assert_illegal(pos(THREE_VOID, "6D QD", options=opts), "JD", "§3.4 rule 5", "must beat QD")
    assert list(pos(THREE_VOID, "6D QD").legal_moves) == ["TD", "JD"]
    # ... seat 1, void in spades, must trump QS (either club, nothing to overtrump); then
    # seat 2 need not beat the queen: the trick is trumped, so 6S is as legal as AS
    assert list(pos(THREE_VOID, "QS", options=opts).legal_moves) == ["AC", "KC"]
    assert list(pos(THREE_VOID, "QS KC", options=opts).legal_moves) == ["AS", "6S"]
