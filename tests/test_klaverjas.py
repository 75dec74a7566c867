"""Product-level tests of Klaverjas through the public API (ddcards.Position, solve, dd_table)."""
import json
import time

import pytest

import ddcards
from ddcards.ddtable import dd_table
from ddcards.errors import IllegalPlayError, InvalidCardError, InvalidDealError, InvalidOptionError, NotationError

# Seat 0 holds all spades, seat 1 all hearts, seat 2 all diamonds, seat 3 all clubs.
SUITED = ["AKQJT987...", ".AKQJT987..", "..AKQJT987.", "...AKQJT987"]
DEAL = {"game": "klaverjas", "rules": "amsterdam", "trump": "S", "playing_team": 1,
        "hands": ["A.KT.987.AK", "KJ9..KQJ.T7", "T8.AJ9.T.98", "Q7.Q87.A.QJ"]}


def doc(**changes):
    out = dict(DEAL, **changes)
    return {k: v for k, v in out.items() if v is not None}


# --------------------------------------------------------------------------- registry

def test_registered_with_aliases():
    info = ddcards.find_game("klaverjassen")
    assert info.name == "klaverjas" and ddcards.find_game("Klaverjas") is info
    assert info.seats == (4,) and info.contracts == ("play",) and info.options == ()
    assert "klaverjas" in [g.name for g in ddcards.list_games()]


# --------------------------------------------------------------------------- the position document

def test_position_round_trip_and_defaults():
    pos = ddcards.Position.from_dict(doc(rules=None, played=["ac"]))
    assert pos.game == "klaverjas" and pos.to_move == 1
    d = pos.to_dict()
    assert d["rules"] == "amsterdam" and d["played"] == ["AC"] and "leader" not in d
    assert ddcards.Position.from_json(json.dumps(d)) == pos
    assert ddcards.Position.from_dict(doc(leader=3)).to_move == 3


@pytest.mark.parametrize("change,error,token", [
    ({"hands": DEAL["hands"][:3]}, InvalidDealError, "hands"),
    ({"hands": ["A.KT.987.AKQ", "KJ9..KQJ.T7", "T8.AJ9.T.98", "Q7.Q87.A.J"]}, InvalidDealError, "hand 0"),
    ({"hands": ["A.KT.987.AK", "KJ9..KQJ.T7", "T8.AJ9.T.98", "Q7.Q87.A.QQ"]}, NotationError, "QC"),
    ({"hands": ["A.KT.987.AK", "KJ9..KQJ.T7", "T8.AJ9.T.98", "A7.Q87.A.QJ"]}, InvalidDealError, "AS"),
    ({"hands": ["A.KT.987.AK", "KJ9..KQJ.T7", "T8.AJ9.T.98", "Q6.Q87.A.QJ"]}, InvalidCardError, "6S"),
    ({"trump": None}, InvalidOptionError, "trump"),
    ({"trump": "X"}, InvalidCardError, "X"),
    ({"playing_team": None}, InvalidOptionError, "playing_team"),
    ({"playing_team": 2}, InvalidOptionError, "2"),
    ({"playing_team": True}, InvalidOptionError, "true"),
    ({"rules": "utrecht"}, InvalidOptionError, "utrecht"),
    ({"options": {"pit": False}}, InvalidOptionError, "pit"),
    ({"contract": "hra"}, InvalidOptionError, "hra"),
    ({"talon": "7S 8S"}, InvalidOptionError, "talon"),
    ({"leader": 4}, InvalidOptionError, "4"),
    ({"played": ["AC", "ZZ"]}, InvalidCardError, "ZZ"),
])
def test_bad_documents(change, error, token):
    with pytest.raises(error) as info:
        ddcards.Position.from_dict(doc(**change))
    assert info.value.token == token, str(info.value)
    assert info.value.rule


@pytest.mark.parametrize("played,rule,words", [
    # seat 0 leads AC; seat 1 holds clubs (TC 7C) and plays a spade
    (["AC", "KS"], "docs/RULES.md §2.4 rule 2: holding the led suit you must play it", "must follow suit"),
    # seat 0 leads 9D (trumps are spades); seat 1 follows KD... seat 2 void in diamonds? no:
    # seat 2 holds TD.  Trumps led: seat 0 leads AS; seat 1 holds KS JS 9S, must beat AS: 9S, JS
    (["AS", "KS"], "docs/RULES.md §2.4 rule 2: on a trump lead, beat every trump in the trick if you can",
     "higher than AS"),
    # seat 0 leads KH; seat 1 has no hearts and an opponent (seat 0) wins: he must trump
    (["KH", "KD"], "docs/RULES.md §2.4 rule 4: opponent winning, you must trump", "must trump"),
    # seat 0 leads KH, seat 1 trumps with 9S; seat 2 follows AH; seat 3 (void in hearts? no:
    # QH 8H 7H) must follow suit
    (["KH", "9S", "AH", "QC"], "docs/RULES.md §2.4 rule 2: holding the led suit you must play it",
     "must follow suit"),
])
def test_illegal_play_names_the_clause(played, rule, words):
    with pytest.raises(IllegalPlayError) as info:
        ddcards.Position.from_dict(doc(played=played))
    err = info.value
    assert err.rule == rule, str(err)
    assert words in str(err) and f"played[{len(played) - 1}]" in str(err)
    assert err.token == played[-1]


def test_illegal_play_partner_winning_and_rotterdam():
    # Hearts trumps, seat 1 leads KS, seat 2 (void) ruffs with AH, seat 3 follows 7S: seat 0,
    # void in spades with his partner winning, may not undertrump with 7H while he holds
    # diamonds and clubs (Amsterdam rule 2) ...
    d = {"game": "klaverjas", "trump": "H", "playing_team": 0, "leader": 1,
         "hands": [".87.AKQJ.AK", "KQJ9.Q.T98.", ".AKT.7.JT98", "AT87.J9..Q7"]}
    pos = ddcards.Position.from_dict(dict(d, played=["KS", "AH", "7S"]))
    assert sorted(pos.legal_moves) == ["AC", "AD", "JD", "KC", "KD", "QD"]
    with pytest.raises(IllegalPlayError) as info:
        ddcards.Position.from_dict(dict(d, played=["KS", "AH", "7S", "7H"]))
    assert info.value.rule == ("docs/RULES.md §2.4 rule 3: partner winning, no undertrump while you hold "
                               "another card")
    assert "lower than AH" in str(info.value)
    # ... which Rotterdam obliges him to do: he must trump and cannot overtrump AH
    pos = ddcards.Position.from_dict(dict(d, rules="rotterdam", played=["KS", "AH", "7S"]))
    assert sorted(pos.legal_moves) == ["7H", "8H"]
    with pytest.raises(IllegalPlayError) as info:
        ddcards.Position.from_dict(dict(d, rules="rotterdam", played=["KS", "AH", "7S", "AD"]))
    assert info.value.rule == ("docs/RULES.md §2.5 rule 1: Rotterdam, void: you must trump, even when your "
                               "partner is winning")
    assert "even when your partner is winning" in str(info.value)
    # an opponent winning: the message says so (the rule quotes the clause as it is)
    with pytest.raises(IllegalPlayError) as info:
        ddcards.Position.from_dict(dict(d, rules="rotterdam", played=["KS", "7D"]))      # seat 2, void, discards
    assert info.value.rule.startswith("docs/RULES.md §2.5 rule 1")
    assert "Rotterdam rules oblige you to trump if you can, an opponent winning the trick" in str(info.value)
    # Amsterdam, opponent winning with a trump: overtrump, else another suit
    pos = ddcards.Position.from_dict(dict(d, played=["KS", "AH"]))       # seat 3 follows
    assert sorted(pos.legal_moves) == ["7S", "8S", "AS", "TS"]


def test_card_from_another_hand_or_after_the_end():
    with pytest.raises(IllegalPlayError, match="seat 1's hand"):
        ddcards.Position.from_dict(doc(played=["KS"]))
    full = ddcards.solve(doc(), mode="best")
    with pytest.raises(IllegalPlayError, match="over"):
        ddcards.Position.from_dict(doc(played=full.pv + ["AS"]))


# --------------------------------------------------------------------------- solving

def test_solve_reports_scores_and_line():
    res = ddcards.solve(doc(), mode="all")
    assert res.game == "klaverjas" and res.value_kind == "points" and res.to_move == 0
    assert len(res.pv) == 32 and res.optimal_moves
    assert set(res.scores) == {"playing", "other", "playing_roem", "other_roem"}
    assert res.scores["playing"] - res.scores["other"] == res.value
    assert set(res.outcomes) == {"nat", "pit", "pit_other"}
    assert res.won == (not res.outcomes["nat"]) == (res.value > 0)
    assert sum(res.tricks.values()) == 8
    assert res.settlement == [-res.value, res.value, -res.value, res.value]   # playing team 1
    assert {m.move for m in res.moves} == set(ddcards.Position.from_dict(doc()).legal_moves)
    best = max(m.value for m in res.moves if m.value is not None)   # seat 0 is the other team
    worst = min(m.value for m in res.moves if m.value is not None)
    assert res.value == worst and best >= worst
    # replaying the principal variation reaches the value
    end = ddcards.solve(doc(played=res.pv), mode="all")
    assert end.value == res.value and end.to_move is None and end.pv == []


def test_values_along_the_line_and_mid_trick():
    res = ddcards.solve(doc(), mode="optimal")
    for n in (1, 2, 3, 5, 13, 30):
        mid = ddcards.solve(doc(played=res.pv[:n]), mode="optimal")
        assert mid.value == res.value
        assert res.pv[n] in mid.optimal_moves


def test_nat_and_pit_on_the_suited_deal():
    # spades trumps, seats 1+3 playing: seat 0 takes every trick -> nat with pit for the others
    res = ddcards.solve({"game": "klaverjas", "hands": SUITED, "trump": "S", "playing_team": 1})
    assert res.value == -262 and res.outcomes == {"nat": True, "pit": False, "pit_other": True}
    assert res.scores["playing"] == 0 and res.scores["other"] == 262 and not res.won
    res = ddcards.solve({"game": "klaverjas", "hands": SUITED, "trump": "S", "playing_team": 0})
    assert res.value == 262 and res.outcomes["pit"] and res.tricks == {"playing": 8, "other": 0}


def test_a_tie_in_points_is_nat():
    """RULES §2: the playing team must score strictly more than the other team. Hearts trumps,
    seats 0+2 playing; the tricks, checked by hand (trumps J 20, 9 14, A 11, T 10, K 4, Q 3;
    others A 11, T 10, K 4, Q 3, J 2), no roem in any:
    1 JS 7S 9D TS: TS (seat 3) 12; 2 KH JH AH 8H: JH (seat 0) 35; 3 KS 8S JD QS: KS (0) 9;
    4 7H KD QH 9H: 9H (3) 21; 5 7C QC AC TC: AC (1) 24; 6 QD 7D TH AD: TH (3) 24;
    7 9C JC 8C KC: KC (2) 6; 8 TD 9S 8D AS: TD (2) 21 + the last trick's 10 = 31.
    Seats 0+2: 35 + 9 + 6 + 31 = 81; seats 1+3: 12 + 21 + 24 + 24 = 81. A tie: nat."""
    hands = ["7H 8D AD JC JH JS KS QC", "7S 8C 8S AC AH AS KD QD", "7D 8H 9D JD KC QH TC TD",
             "7C 9C 9H 9S KH QS TH TS"]
    played = ("JS 7S 9D TS KH JH AH 8H KS 8S JD QS 7H KD QH 9H 7C QC AC TC QD 7D TH AD "
              "9C JC 8C KC").split()
    deal = {"game": "klaverjas", "trump": "H", "playing_team": 0, "hands": hands}
    res = ddcards.solve(dict(deal, played=played))          # the last trick is forced
    assert res.value == -162 and not res.won
    assert res.outcomes == {"nat": True, "pit": False, "pit_other": False}
    assert res.scores == {"playing": 0, "other": 162, "playing_roem": 0, "other_roem": 0}
    assert res.pv == ["TD", "9S", "8D", "AS"] and res.tricks == {"playing": 4, "other": 4}
    # the other team playing, the same tie is its nat: seats 0+2 take everything
    other = ddcards.solve(dict(deal, playing_team=1, played=played))
    assert other.value == -162 and other.scores["other"] == 162 and other.outcomes["nat"]


def test_analyse():
    res = ddcards.solve(doc(), mode="best")
    an = ddcards.analyse(doc(played=res.pv[:8]))
    assert an.initial_value == res.value == an.final_value and not an.mistakes


def test_session_describes_seats():
    session = ddcards.Position.from_dict(doc(played=["AC"])).session()
    info = session.describe()
    assert "Klaverjas" in info["title"] and "trumps S" in info["title"]
    assert info["trick"] == ["AC"] and len(info["hands"]) == 4
    assert [session.seat_role(s) for s in range(4)] == ["other team", "playing team"] * 2


# --------------------------------------------------------------------------- DD table

def test_dd_table_equals_single_solves():
    engine = ddcards.Solver()
    table = dd_table(doc(trump=None, playing_team=None), solver=engine)
    assert set(table["values"]) == {"S", "H", "D", "C"}
    for suit, row in table["values"].items():
        for team, value in enumerate(row):
            single = ddcards.Solver().solve(doc(trump=suit, playing_team=team), mode="best")
            assert single.value == value, (suit, team)
    assert table["hands"] == ddcards.Position.from_dict(doc()).to_dict()["hands"]


def test_dd_table_inputs():
    pos = ddcards.Position.from_dict(doc())
    assert dd_table(pos)["values"] == dd_table(json.dumps(doc()))["values"]
    with pytest.raises(InvalidOptionError, match="§2.8 rule 5: the table is of a whole deal") as err:
        dd_table(doc(played=["AC"]))
    assert err.value.field == "played[0]"
    # trump and playing_team are the table's to choose, but given they must be valid (§2.8 rule 5)
    assert dd_table(doc(trump="h", playing_team=1))["values"] == dd_table(doc())["values"]
    assert dd_table(doc(trump=""))["values"] == dd_table(doc())["values"]     # none given, as a Mariáš table
    with pytest.raises(ddcards.InvalidCardError, match="unknown suit 'ZZ'") as err:
        dd_table(doc(trump="ZZ"))
    assert err.value.field == "trump"
    for team in ("x", 5):
        with pytest.raises(InvalidOptionError, match="playing_team must be one of 0, 1") as err:
            dd_table(doc(playing_team=team))
        assert err.value.field == "playing_team"
    with pytest.raises(ddcards.NotationError, match="hand '' is empty"):
        dd_table({"game": "marias", "hands": ["", "", ""]})     # a Mariáš table reads its deal (§1.13)
    with pytest.raises(ddcards.SearchTimeout):
        dd_table(doc(), timeout=1e-9)
    token = ddcards.CancelToken()
    token.cancel()
    with pytest.raises(ddcards.SearchCancelled):
        dd_table(doc(), cancel=token)
    for bad in (0, -1, 2.0, True):
        with pytest.raises(InvalidOptionError, match="threads"):
            dd_table(doc(), threads=bad)
    with pytest.raises(InvalidOptionError, match=r"^threads is a whole number from 1 to 64 \(got 65\)$"):
        dd_table(doc(), threads=65)                          # as solve's threads
    # A Mariáš table's further threads each hold a Solver of the caller's size: together they
    # must fit in memory.  (Klaverjas's rows share the caller's table: its threads add side areas.)
    half = ddcards.api.tt_mb_limit() // 2
    with pytest.raises(InvalidOptionError, match=rf"^threads 3 x tt_mb {half}: the tables take "):
        dd_table(ddcards.example("marias-hra"), solver=ddcards.Solver(tt_mb=half), threads=3)


def test_dd_table_threads():
    # Every thread count gives the same table; the caller's Solver serves one thread.
    engine = ddcards.Solver(tt_mb=1)
    one = dd_table(doc(), solver=engine)
    for threads in (2, 3, 8, 20):
        table = dd_table(doc(), solver=engine, threads=threads)
        assert table["values"] == one["values"] and table["nodes"] > 0, threads
    with pytest.raises(ddcards.SearchTimeout):
        dd_table(doc(), threads=4, timeout=1e-9)
    token = ddcards.CancelToken()
    token.cancel()
    with pytest.raises(ddcards.SearchCancelled):
        dd_table(doc(), threads=2, cancel=token)


# Found by playing random legal histories on corpus deals and trying every illegal card.
D_TRUMPS = {"game": "klaverjas", "trump": "D", "playing_team": 1,
            "hands": ["7.QT.KQT7.9", ".AJ7.AJ98.A", "T8.K9..KT87", "AKQJ9.8..QJ"]}
C_TRUMPS = {"game": "klaverjas", "trump": "C", "playing_team": 1,
            "hands": ["J7.AQ.AQ.AK", "Q.JT.K.JT98", "KT9..JT97.7", "A8.K987.8.Q"]}
S_TRUMPS = {"game": "klaverjas", "trump": "S", "playing_team": 0,
            "hands": ["J97.8.AQJ.J", "QT.JT97.9.T", "AK.AQ.7.AK8", "8.K.KT8.Q97"]}
C_TRUMPS_2 = {"game": "klaverjas", "trump": "C", "playing_team": 0,
              "hands": ["QT8.A7..J87", "J.J.Q9.AQT9", "9.KQ.JT87.K", "AK7.T98.AK."]}
# Hand-built: seat 0 leads 7C, seat 1 beats it with AC, seat 2 (void in clubs, three trumps) is
# the leader's partner with an opponent winning in the led suit, not by a trump: the clause
# depends on who wins a trick of one suit by rank.
H_TRUMPS = {"game": "klaverjas", "trump": "H", "playing_team": 0, "leader": 0,
            "hands": ["AKQ.7.AK.87", "JT9.8.QJ.AK", "87.AKQ.T98.", ".JT9.7.QJT9"]}


@pytest.mark.parametrize("deal,rules,played,rule,legal", [
    (D_TRUMPS, "amsterdam", ["QD", "AH"], "docs/RULES.md §2.4 rule 2: holding the led suit you must play it",
     ["AD", "9D", "JD"]),
    (D_TRUMPS, "amsterdam", ["QD", "8D"],
     "docs/RULES.md §2.4 rule 2: on a trump lead, beat every trump in the trick if you can", ["AD", "9D", "JD"]),
    (C_TRUMPS, "amsterdam", ["QD", "KD", "TD", "8D", "9D", "QC", "AD", "8C"],
     "docs/RULES.md §2.4 rule 3: partner winning, no undertrump while you hold another card",
     ["9C", "JC", "JH", "QS", "TC", "TH"]),
    (S_TRUMPS, "amsterdam", ["AD", "9D", "7D", "TD", "JD", "QS", "AH"],
     "docs/RULES.md §2.4 rule 4: opponent winning, you must overtrump if you can", ["AS", "KS"]),
    (D_TRUMPS, "amsterdam", ["7S", "AH"], "docs/RULES.md §2.4 rule 4: opponent winning, you must trump",
     ["8D", "9D", "AD", "JD"]),
    (C_TRUMPS_2, "amsterdam", ["QS", "JS", "9S", "7S", "TS", "9C", "KC"],
     "docs/RULES.md §2.4 rule 4: opponent winning, play another suit rather than undertrump",
     ["7D", "8D", "JD", "KH", "QH", "TD"]),
    (H_TRUMPS, "amsterdam", ["7C", "AC", "8D"], "docs/RULES.md §2.4 rule 4: opponent winning, you must trump",
     ["AH", "KH", "QH"]),
    (D_TRUMPS, "rotterdam", ["QH", "JD"], "docs/RULES.md §2.4 rule 2: holding the led suit you must play it",
     ["7H", "AH", "JH"]),
    (C_TRUMPS, "rotterdam", ["QD", "KD", "TD", "8D", "JD", "QC", "AD", "8C"],
     "docs/RULES.md §2.5 rule 2: Rotterdam, void: you must overtrump if you can", ["9C", "JC", "TC"]),
    (D_TRUMPS, "rotterdam", ["7S", "AH"],
     "docs/RULES.md §2.5 rule 1: Rotterdam, void: you must trump, even when your partner is winning",
     ["8D", "9D", "AD", "JD"]),
])
def test_every_clause_is_named(deal, rules, played, rule, legal):
    d = dict(deal, rules=rules)
    before = ddcards.Position.from_dict(dict(d, played=played[:-1]))
    assert sorted(before.legal_moves) == sorted(legal)
    with pytest.raises(IllegalPlayError) as info:
        ddcards.Position.from_dict(dict(d, played=played))
    assert info.value.rule == rule and info.value.token == played[-1]
    assert "legal: " in str(info.value)


# Trick 7 of three hand-built deals, spades trumps, seat 0 leading the first trick: seat 1 leads AH
# and seat 0, void in hearts, holds nothing but trumps.  The six tricks before are the same, all
# to team 1: QS KS TS AS (28; Q K A 20 + stuk 20), AC 7C 8C 9C (11; 20), TC JC QC KC (19; 50),
# AD 7D 8D 9D (11; 20), TD JD QD KD (19; 50), QH 9H TH JH (15; 50): 103 in cards, 230 in roem.
ONLY_TRUMPS_SIX = "QS KS TS AS, AC 7C 8C 9C, TC JC QC KC, AD 7D 8D 9D, TD JD QD KD, QH 9H TH JH, "
ONLY_TRUMPS = {
    # partner (seat 2, 9S) winning, seat 0 holds JS 8S: 8S is lower than the 9 and he holds
    # something else (a higher trump), so only JS (§2.4 rule 3), Rotterdam too (§2.5 rule 2).
    # JS takes 11 + 14 + 20 = 45, the last trick 8S 7H 7S KH 4 + 10: team 0 has 59.
    "higher and lower": (["QJ8.9.J7.J7", "K.AT7.Q8.Q8", "T97.J.K9.K9", "A.KQ8.AT.AT"], "AH 9S 8H",
                         ["JS"], 333, 59),
    # partner winning, seat 0 holds 8S 7S, only lower trumps: either (§2.4 rule 3).  Team 0 takes
    # 25 (AH 9S 8H, no roem) and the last trick, JS 7H 7S or 8S KH, 24 + 10: 59.
    "only lower, partner winning": (["Q87.9.J7.J7", "K.AKT.Q8.Q8", "JT9.J.K9.K9", "A.Q87.AT.AT"],
                                    "AH 9S 8H", ["8S", "7S"], 333, 59),
    # an opponent (seat 3, 9S) winning, seat 0 holds 8S 7S, only lower trumps: either (§2.4 rule
    # 4).  Team 1 takes every trick: 162 + 230, and pit.
    "only lower, opponent winning": (["Q87.9.J7.J7", "K.AT8.Q8.Q8", "T.KJ7.K9.K9", "AJ9.Q.AT.AT"],
                                     "AH KH 9S", ["8S", "7S"], 392, 0),
}


@pytest.mark.parametrize("rules", ["amsterdam", "rotterdam"])
@pytest.mark.parametrize("case", list(ONLY_TRUMPS))
def test_void_holding_only_trumps(case, rules):
    hands, trick, legal, team1, team0 = ONLY_TRUMPS[case]
    for playing in (0, 1):
        d = {"game": "klaverjas", "trump": "S", "playing_team": playing, "rules": rules, "hands": hands,
             "played": ONLY_TRUMPS_SIX + trick}
        assert sorted(ddcards.Position.from_dict(d).legal_moves) == sorted(legal)
        res = ddcards.solve(d, mode="all")
        pit = team0 == 0
        if playing == 1:        # made: each team its own, + 100 for taking every trick
            assert res.value == team1 + 100 * pit - team0
            assert res.scores == {"playing": team1 + 100 * pit, "other": team0, "playing_roem": 230,
                                  "other_roem": 0}
        else:                   # nat: team 1 scores both teams' points (and its pit)
            assert res.value == -(team1 + team0 + 100 * pit)
            assert res.scores == {"playing": 0, "other": team1 + team0 + 100 * pit, "playing_roem": 0,
                                  "other_roem": 230}
        assert res.outcomes == {"nat": playing == 0, "pit": pit and playing == 1,
                                "pit_other": pit and playing == 0}
        assert {m.move: m.value for m in res.moves} == {c: res.value for c in legal}


def test_void_holding_a_higher_and_a_lower_trump_may_not_undertrump_partner():
    hands, trick = ONLY_TRUMPS["higher and lower"][:2]
    with pytest.raises(IllegalPlayError) as info:
        ddcards.Position.from_dict({"game": "klaverjas", "trump": "S", "playing_team": 0, "hands": hands,
                                    "played": ONLY_TRUMPS_SIX + trick + " 8S"})
    assert info.value.rule == ("docs/RULES.md §2.4 rule 3: partner winning, no undertrump while you hold "
                               "another card")
    assert info.value.token == "8S" and "legal: JS" in str(info.value)


# --------------------------------------------------------------------------- C-level hooks

def test_c_roem_matches_the_reference():
    import random

    from ddcards.games import _klaverjas
    from ddcards.games.klaverjas import card_codes
    from ddcards.notation import Card, Suit
    try:
        from tests.reference import klaverjas as ref
    except ImportError:
        from reference import klaverjas as ref
    rng = random.Random(7)
    deck = list(ref.DECK)
    for trump in "SHDC":
        codes = card_codes(Suit.parse(trump))
        tricks = [rng.sample(deck, 4) for _ in range(3000)]
        tricks += [[r + s for s in "SHDC"] for r in ref.RANKS]           # every four of a kind
        tricks += [[r + trump for r in run] for run in ("QKA7", "JQK8", "TJQK", "789A")]
        for trick in tricks:
            c_codes = [codes[Card.parse(c)] for c in trick]
            assert _klaverjas.roem_of(c_codes, int(Suit.parse(trump))) == ref.roem(trick, trump), trick


def test_boundary_bounds_are_sound():
    # Along the optimal line of a few deals, at every trick boundary: the quick bounds hold
    # the true future value, and a settled class agrees with the outcome.
    engine = ddcards.Solver()
    classes = set()
    for d in (DEAL, D_TRUMPS, C_TRUMPS, S_TRUMPS, dict(C_TRUMPS_2, rules="rotterdam")):
        res = engine.solve(d, mode="best")
        for n in range(0, 32, 4):
            pos = ddcards.Position.from_dict(dict(d, played=res.pv[:n]))
            info = pos.session().board.boundary_info()
            future = res.value - info["banked"]
            assert info["lo"] <= future <= info["hi"], (d, n, info, res.value)
            classes.add(info["class"])
            if info["class"] == "made":
                assert res.value > 0
            if info["class"] == "nat":
                assert res.value < 0
    assert {"open", "made", "nat"} <= classes
    assert ddcards.Position.from_dict(doc(played=["AC"])).session().board.boundary_info() is None


def test_snap_keeps_exactly_the_values_a_deal_can_have():
    # Made: P - O (+ pit) is even and >= 2; nat: -(162 + roem) (- pit), roem a multiple of
    # 10.  The value search only tests and bounds such values (search core: GameOps.snap).
    from ddcards.games import _klaverjas
    possible = sorted(set(range(2, 500, 2)) | set(range(-162, -800, -10)))
    for v in range(-700, 480):
        assert _klaverjas.snap_value(v, True) == min(x for x in possible if x >= v), v
        assert _klaverjas.snap_value(v, False) == max(x for x in possible if x <= v), v
    # Every value the corpus deals reach is on that lattice.
    engine = ddcards.Solver()
    for d in (DEAL, D_TRUMPS, C_TRUMPS, S_TRUMPS):
        value = engine.solve(d, mode="best").value
        assert value in possible and _klaverjas.snap_value(value, True) == value


def test_a_null_leader_is_the_default_as_absent():
    """leader is optional (seat 0 leads): null reads as absent, as other games' optional fields;
    it said "Klaverjas needs field 'leader'".  The required playing_team still needs a value."""
    doc = ddcards.example("klaverjas")
    assert ddcards.Position.from_dict(dict(doc, leader=None)) == ddcards.Position.from_dict(doc)
    with pytest.raises(ddcards.InvalidOptionError, match="Klaverjas needs field 'playing_team'"):
        ddcards.Position.from_dict(dict(doc, playing_team=None))


def test_a_stopped_dd_table_names_the_row_its_progress_bounds():
    # The progress of a stopped table is the row searched then: its bound is that row's value's,
    # so the message names the row (it read "by then 4 of 7 first moves answered, value >= +112
    # (AC)", a bound on trump H's row, not the table's).
    started = time.perf_counter()
    full = dd_table(ddcards.example("klaverjas"), solver=ddcards.Solver())["values"]
    # stopped at fractions of the whole table's time here (fixed ones, 3-20 ms against 44, would
    # all finish on a machine ten times as fast, and the test would check nothing there)
    whole = time.perf_counter() - started
    named = 0
    for t in (0.003, 0.006, 0.01, *(whole * f for f in (0.1, 0.25, 0.4, 0.6))):
        try:
            dd_table(ddcards.example("klaverjas"), timeout=t, solver=ddcards.Solver())
        except ddcards.SearchTimeout as exc:
            p = exc.progress
            if p is None:
                continue
            prefix = "; by then, in the row trump "
            assert prefix in str(exc) and str(exc).endswith(str(p))
            suit, team = str(exc).split(prefix)[1][0], int(str(exc).split("playing team ")[1][0])
            named += 1
            if p.value is not None:
                assert p.value <= full[suit][team] if p.at_least else p.value >= full[suit][team]
    assert named


def test_the_one_objective_listed_is_accepted_and_no_other():
    # `ddcards games` lists Klaverjas's contract 'play' as solved for points: a document that says
    # so was refused ("field 'objective' does not apply"); another objective still is.
    deal = ddcards.example("klaverjas")
    assert ddcards.find_game("klaverjas").objectives == {"play": ("points",)}
    assert ddcards.solve(dict(deal, objective="Points"), mode="best").value == \
        ddcards.solve(deal, mode="best").value == 132
    with pytest.raises(ddcards.InvalidOptionError, match="unknown objective 'race'") as err:
        ddcards.Position.from_dict(dict(deal, objective="race"))
    assert err.value.field == "objective" and "§2.8" in err.value.rule


def test_row_position_gives_each_dd_table_value_its_position():
    from ddcards.ddtable import dd_table, row_position
    table = dd_table(dict(ddcards.example("klaverjas"), rules="rotterdam", leader=2))
    for suit in "SHDC":
        for team in (0, 1):
            pos = row_position(table, (suit, team))
            assert (pos.to_dict()["trump"], pos.to_dict()["playing_team"], pos.to_dict()["leader"]) == (suit, team, 2)
            assert ddcards.solve(pos, mode="best").value == table["values"][suit][team]
    for bad in (("X", 0), ("S", 2), ("S", True), "S0", table):
        with pytest.raises(ddcards.InvalidArgumentTypeError, match=r"^a Klaverjas table's row is \(suit, team\)"):
            row_position(table, bad)
    with pytest.raises(ddcards.InvalidArgumentTypeError, match="^row_position takes a table dd_table returned"):
        row_position({"game": "prsi"}, ("S", 0))


def test_row_position_names_what_a_table_without_its_deal_lacks():
    # A table without its deal (the gRPC client's solve_table gave a Klaverjas table without
    # "hands" and a Mariáš one without "options" before SolveTableResponse carried them; a
    # program's own): row_position said KeyError: 'hands'.
    from ddcards.ddtable import dd_table, row_position
    table = dd_table(ddcards.example("klaverjas"))
    del table["hands"]
    with pytest.raises(ddcards.InvalidArgumentTypeError,
                       match="^row_position takes a table dd_table returned: this klaverjas table lacks 'hands' ") as err:
        row_position(table, ("H", 0))
    assert (err.value.token, err.value.field) == ("hands", "table")
    marias = dd_table(ddcards.example("marias-hra"))
    row = marias["entries"][0]
    del marias["options"], marias["flek"]
    with pytest.raises(ddcards.InvalidArgumentTypeError,
                       match="^row_position takes a table dd_table returned: this marias table lacks 'flek', 'options' ") as err:
        row_position(marias, row)
    assert (err.value.token, err.value.field) == ("flek", "table")
