"""Tests of the plain-Python Mariáš reference itself (tests/reference/marias.py).

Every expected value below is worked out by hand in a comment, from RULES.md §1.
Hra rank order: A T K O(Q) U(J) 9 8 7; betl/durch: A K O U T 9 8 7.
"""
import random
from dataclasses import replace

import pytest

try:
    from tests.reference import marias as m
    from tests.reference._memo import fail_soft
except ImportError:  # pytest put tests/ itself on sys.path
    from reference import marias as m
    from reference._memo import fail_soft


# --------------------------------------------------------------------------- helpers

def endgame(contract, hands, trump=None, objective=None, leader=0, trick=(), options=None, **kw):
    """A bare State (no history) for hand-made endgames: ``hands`` as S.H.D.C strings."""
    hands = [m.parse_hand(h) for h in hands]
    st = m.initial_state(hands, [], contract, trump, objective, options)
    to_move = (leader + len(trick)) % 3
    return replace(st, leader=leader, trick=tuple(trick),
                   tricks_done=10 - len(hands[to_move]), **kw)


def legal(hand, trick, trump="H", contract="hra"):
    return set(m.legal_cards(m.parse_cards(hand), m.parse_cards(trick), trump, contract))


SEED_DOC, SEED_LINE = m.SEED_DOC, m.SEED_LINE   # the seed's worked example (see marias.py)


def seed(n, **changes):
    return dict(SEED_DOC, played=SEED_LINE[:n], **changes)


# --------------------------------------------------------------------------- notation / validation

def test_parse_cards_and_aliases():
    assert m.parse_card("TH") == "TH"
    assert [m.parse_card(t) for t in ("10H", "XH", "OH", "UH", "T♥", "a♠")] == \
        ["TH", "TH", "QH", "JH", "TH", "AS"]
    assert m.parse_cards("7S 8D") == ["7S", "8D"]
    assert m.parse_hand("AKT.987..QJ") == ["AS", "KS", "TS", "9H", "8H", "7H", "QC", "JC"]
    assert m.parse_hand("A10.OU..X") == ["AS", "TS", "QH", "JH", "TC"]
    assert m.format_hand(m.parse_hand("TA.79..JQ")) == "AT.97..QJ"
    for bad in ("6S", "1H", "ZZ", "T", "AX"):
        with pytest.raises(ValueError):
            m.parse_card(bad)
    with pytest.raises(ValueError):
        m.parse_hand("AKT.987.QJ")          # only three suits


@pytest.mark.parametrize("change", [
    {"talon": "9C AS"},                                  # ace in the hra talon
    {"talon": "9C 9C"},                                  # duplicate / KC missing
    {"hands": ["AT.AKQ9.AT.8", "KQ.TJ87.KQ.AT", "J987..J987.QJ"], "talon": "9C KC 7C"},
    {"trump": None},                                     # hra without trumps
    {"contract": "betl"},                                # betl with a trump suit
    {"options": {"marriage_on_follw": True}},            # unknown option
    {"options": {"talon_points": "declarer"}},           # bad option value
    {"objective": "durch"},                              # objective not for hra
    {"played": ["QH", "JH"]},                            # must beat QH with TH
    {"played": ["QH", "TH", "7S", "7C"]},                # seat 1 leads the second trick
    {"leader": 1},
])
def test_bad_documents_are_rejected(change):
    with pytest.raises(ValueError):
        m.from_doc(dict(SEED_DOC, **change))


def test_options_do_not_apply_to_betl():
    doc = dict(SEED_DOC, contract="betl", trump=None, options={"marriage_on_follow": True})
    with pytest.raises(ValueError):
        m.from_doc(doc)
    m.from_doc(dict(SEED_DOC, contract="betl", trump=None))


# --------------------------------------------------------------------------- the seed's worked example

def test_seed_first_trick():
    st = m.from_doc(seed(0))
    assert st.to_move == 0 and len(st.legal_moves()) == 10
    st = st.play("QH")                     # leads the heart Ober holding the King: 40
    assert st.marriages == (40, 0)
    assert st.legal_moves() == ["TH"]      # must follow hearts and beat the Ober: only the Ten
    st = st.play("TH")
    assert st.to_move == 2                 # void in hearts = void in trumps: any card
    assert sorted(st.legal_moves()) == sorted(m.parse_hand(SEED_DOC["hands"][2]))
    st = st.play("7S")
    assert st.leader == 1 and st.tricks_done == 1
    assert st.cards == (0, 10)             # the trick (TH) goes to player 2: 10 for the defenders


def test_seed_full_line():
    st = m.from_doc(seed(30))
    # declarer: AS TS AD TD AH = 50 card points + 40 marriage = 90;
    # defenders: TH AC TC = 30 + last trick (JH beats 9H) 10 = 40, no marriages.
    assert st.over
    assert st.scores() == {"declarer": 90, "defenders": 40}
    assert st.value() == 50
    assert m.reference_solve(seed(30)) == {"value": 50, "moves": {}, "to_move": None}


def test_seed_line_with_marriage_on_follow():
    # seat 1 follows QS holding KS (trick 5) and QD holding KD (trick 7): +20 +20.
    st = m.from_doc(seed(30, options={"marriage_on_follow": True}))
    assert st.scores() == {"declarer": 90, "defenders": 80}
    assert st.value() == 10


def test_seed_two_tricks_left():
    # After 8 tricks: declarer 40 cards + 40 marriage, defenders 30; seat 0 to lead.
    # Seat 0: AH 9H, seat 1: JH 8H, seat 2: JD 9D.
    # - AH: seat 1 may play either heart (cannot beat A). 8H keeps JH over the 9H:
    #   defenders take the last trick -> 90 - 40 = 50 (JH instead would give 100 - 30 = 70).
    # - 9H: seat 1 must beat with JH (0 points), leads 8H, AH wins last: 100 - 30 = 70.
    res = m.reference_solve(seed(24))
    assert res == {"value": 70, "moves": {"AH": 50, "9H": 70}, "to_move": 0}
    # Mid-trick, after AH: defenders choose 8H (50) over JH (70).
    res = m.reference_solve(seed(25))
    assert res == {"value": 50, "moves": {"8H": 50, "JH": 70}, "to_move": 1}
    # One trick left: forced, 9H JH JD, defenders' last trick -> 50.
    assert m.reference_solve(seed(27)) == {"value": 50, "moves": {"9H": 50}, "to_move": 0}


def test_seed_deal_as_betl_has_no_marriage_and_betl_order():
    st = m.from_doc(dict(SEED_DOC, contract="betl", trump=None, played=["QH"]))
    assert st.marriages == (0, 0)
    # betl: T is below the Ober, so seat 1 cannot beat QH and may play any heart
    assert set(st.legal_moves()) == {"TH", "JH", "8H", "7H"}


# --------------------------------------------------------------------------- legality, one obligation each

def test_leader_plays_any_card():
    assert legal("AS 7H 8D", "") == {"AS", "7H", "8D"}


def test_must_follow_suit():
    # holds spades that cannot beat KS: any spade, but no trump and no other suit
    assert legal("7S 8S AH 7D", "KS") == {"7S", "8S"}


def test_must_beat_led_suit():
    assert legal("AS TS 7S 7H", "KS") == {"AS", "TS"}        # hra: T beats K
    assert legal("TS QS 7S", "JS") == {"TS", "QS"}           # hra: T and O beat U
    assert legal("TS QS 7S", "JS", None, "betl") == {"QS"}   # betl: T is below U
    assert legal("TS QS 7S", "JS", None, "durch") == {"QS"}


def test_must_beat_best_card_of_led_suit_not_just_the_lead():
    assert legal("QS AS 8S", "9S KS") == {"AS"}


def test_no_need_to_beat_when_trick_already_trumped():
    assert legal("AS 8S QH", "KS 7H") == {"AS", "8S"}       # follow, any spade


def test_trumps_led_must_beat():
    assert legal("KH 7H AS", "QH") == {"KH"}
    assert legal("8H 7H AS", "QH") == {"8H", "7H"}           # cannot beat: any trump


def test_void_must_trump():
    assert legal("7H AH AD", "KS") == {"7H", "AH"}


def test_void_must_overtrump():
    assert legal("7H AH JH AD", "KS 9H") == {"AH", "JH"}     # U beats 9 in hra


def test_void_any_trump_when_cannot_overtrump():
    assert legal("7H KH AD", "KS TH") == {"7H", "KH"}        # K is below T in hra


def test_free_discard_when_void_in_led_suit_and_trumps():
    assert legal("7D AC 8D", "KS") == {"7D", "AC", "8D"}
    assert legal("7D AC 8D", "KS 9H") == {"7D", "AC", "8D"}


def test_betl_durch_void_is_a_free_discard():
    assert legal("7H AD", "KS", None, "betl") == {"7H", "AD"}
    assert legal("7H AD", "KS 9S", None, "durch") == {"7H", "AD"}


def test_trick_winner():
    assert m.trick_winner(["KS", "AS", "TS"], "H", "hra") == 1
    assert m.trick_winner(["KS", "TS", "QS"], "H", "hra") == 1      # T over K in hra
    assert m.trick_winner(["KS", "TS", "QS"], None, "betl") == 0    # K over T in betl
    assert m.trick_winner(["KS", "7H", "AS"], "H", "hra") == 1      # the trump
    assert m.trick_winner(["KS", "7H", "8H"], "H", "hra") == 2      # the higher trump
    assert m.trick_winner(["7S", "AD", "AC"], "H", "hra") == 0      # discards never win


# --------------------------------------------------------------------------- marriages

def test_defender_marriage_on_lead():
    st = m.from_doc(dict(SEED_DOC, played=SEED_LINE[:9] + ["KS"]))  # seat 1 leads KS holding QS
    assert st.marriages == (40, 20)
    # the declarer's KH in trick 4 came as a follower, after QH had gone: nothing
    assert m.from_doc(seed(12)).marriages == (40, 0)


def test_marriage_on_follow_endgame():
    # Hearts trump, 2 tricks, seat 0 leads. Seat 0: AH 7S, seat 1: KH QH, seat 2: 8D 7D.
    # Default (lead only):
    #   AH: seat 1 follows with K or Q (no marriage), declarer wins AH (10), leads 7S,
    #       seat 1 must trump and takes the last trick (10): 10 - 10 = 0.
    #   7S: seat 1 must trump (0 points), then leads its last heart (K/Q without its mate:
    #       no marriage); AH must beat it and wins AH + last trick: 20 - 0 = 20.
    hands = ["7.A..", ".KQ..", "..87."]
    res = m.solve_state(endgame("hra", hands, "H"))
    assert res == {"value": 20, "moves": {"7S": 20, "AH": 0}, "to_move": 0}
    # marriage_on_follow: seat 1's first K/Q comes as a follower holding the other: +40
    # for the defenders in both lines: AH -> 0 - 40 = -40, 7S -> 20 - 40 = -20.
    res = m.solve_state(endgame("hra", hands, "H", options={"marriage_on_follow": True}))
    assert res == {"value": -20, "moves": {"7S": -20, "AH": -40}, "to_move": 0}


def test_non_trump_marriage_is_20_and_only_for_hra_points():
    st = endgame("hra", ["KQ...", "7...", "8..."], "H")
    assert st.play("QS").marriages == (20, 0)
    st = endgame("hra", ["KQ...", "7...", "8..."], "S")
    assert st.play("QS").marriages == (40, 0) and st.play("QS").declarer_trump_marriage


# --------------------------------------------------------------------------- talon and last trick

def test_talon_points():
    # Valid hra talons never hold A or T, so on real documents the option changes nothing;
    # the scoring path itself is exercised with a hand-made talon.
    st = m.initial_state([[], [], []], ["AS", "7D"], "hra", "H")
    assert st.cards == (0, 10)
    st = m.initial_state([[], [], []], ["AS", "7D"], "hra", "H",
                         options={"talon_points": "nobody"})
    assert st.cards == (0, 0)
    assert m.initial_state([[], [], []], ["AS", "TD"], "betl").cards == (0, 0)
    nobody = m.reference_solve(seed(24, options={"talon_points": "nobody"}))
    assert nobody == m.reference_solve(seed(24))


def test_last_trick_is_worth_10():
    # One trick, hearts trump, no card points: 7S led, 8S must beat, seat 1 wins -> -10.
    assert m.solve_state(endgame("hra", ["7...", "8...", "..9."], "H"))["value"] == -10
    # 8S led, 7S cannot beat: declarer wins the last trick -> +10.
    assert m.solve_state(endgame("hra", ["8...", "7...", "..9."], "H"))["value"] == 10
    # seed: the last trick moves the defenders from 30 to 40
    assert m.from_doc(seed(27)).cards == (50, 30)
    assert m.from_doc(seed(30)).cards == (50, 40)


# --------------------------------------------------------------------------- small endgames, by contract

def test_rank_order_decides_last_trick_in_each_contract():
    hands = ["T...", "J...", "..7."]              # TS led, JS must beat if it can
    # hra: T beats U, declarer wins TS (10) + last trick (10)
    assert m.solve_state(endgame("hra", hands, "H"))["value"] == 20
    # betl: U beats T, seat 1 must play JS and wins: declarer took no trick -> +1
    assert m.solve_state(endgame("betl", hands))["value"] == 1
    # durch (declarer won the 9 earlier tricks): he loses this one -> -1
    assert m.solve_state(endgame("durch", hands, declarer_tricks=9))["value"] == -1
    assert m.solve_state(endgame("durch", ["A...", "J...", "..7."], declarer_tricks=9)) == \
        {"value": 1, "moves": {"AS": 1}, "to_move": 0}


def test_betl_two_tricks():
    # Seat 0: 7S AD, seat 1: 8S KD, seat 2: 9S 7C.
    # 7S: 8S must beat, 9S must beat 8S; seat 2 leads 7C, declarer discards AD -> +1.
    # AD: KD cannot beat, seat 2 discards: declarer takes the trick -> -1.
    res = m.solve_state(endgame("betl", ["7..A.", "8..K.", "9...7"]))
    assert res == {"value": 1, "moves": {"7S": 1, "AD": -1}, "to_move": 0}


def test_sedma_two_tricks():
    # Hearts trump. Seat 0: AS 7H, seat 1: KS 8D, seat 2: 9S 7D.
    # AS first (KS and 9S must follow), then 7H wins the last trick -> +1.
    # 7H first wins trick 9; AS wins the last trick, not with the 7 -> -1.
    res = m.solve_state(endgame("hra", ["A.7..", "K..8.", "9..7."], "H", "sedma"))
    assert res == {"value": 1, "moves": {"AS": 1, "7H": -1}, "to_move": 0}
    # Seat 1 has 8H instead of 8D: it must beat the 7H whenever it is led -> -1 both ways.
    res = m.solve_state(endgame("hra", ["A.7..", "K.8..", "9..7."], "H", "sedma"))
    assert res == {"value": -1, "moves": {"AS": -1, "7H": -1}, "to_move": 0}


def test_kilo_two_tricks():
    # Hearts trump; declarer has 40 card points and already scored the trump marriage (40),
    # defenders 40.  Seat 0: AS 9C, seat 1: KS AC, seat 2: 7S 7C.
    # AS: +10 (50); 9C then loses to AC, defenders' last trick: 50 + 40 = 90 < 100 -> -1.
    # 9C: AC must beat (defenders +10), seat 1 leads KS, AS beats it: +10 + last 10:
    #     60 + 40 = 100 -> +1.
    hands = ["A...9", "K...A", "7...7"]
    kw = dict(cards=(40, 40), marriages=(40, 0), declarer_trump_marriage=True)
    res = m.solve_state(endgame("hra", hands, "H", "kilo", **kw))
    assert res == {"value": 1, "moves": {"9C": 1, "AS": -1}, "to_move": 0}
    # Same position as plain hra: AS -> (50+40) - (40+10+10) = 30; 9C -> (60+40) - 50 = 50.
    res = m.solve_state(endgame("hra", hands, "H", **kw))
    assert res == {"value": 50, "moves": {"9C": 50, "AS": 30}, "to_move": 0}
    # Without the trump marriage (a 20 one only) kilo is out of reach: at most 60 -> -1.
    kw = dict(cards=(40, 40), marriages=(20, 0))
    res = m.solve_state(endgame("hra", hands, "H", "kilo", **kw))
    assert res == {"value": -1, "moves": {"9C": -1, "AS": -1}, "to_move": 0}


def test_defenders_cooperate_mid_trick():
    # Hearts trump, seat 2 to move in trick 9 after 7S (seat 0) and 8S (seat 1).
    # Seat 0 has AD left, seat 1 TD, seat 2 holds AS and 9D.
    # Seat 2 must follow and beat 8S: AS (the only legal card) wins 10 and leads 9D;
    # seat 0 must beat with AD, seat 1's TD cannot beat it: declarer AD + TD + last = 30,
    # defenders AS = 10: value 20.  (Forced line; checks the seat bookkeeping mid-trick.)
    st = endgame("hra", ["..A.", "..T.", "A..9."], "H", trick=("7S", "8S"))
    assert st.to_move == 2 and st.legal_moves() == ["AS"]
    assert m.solve_state(st) == {"value": 20, "moves": {"AS": 20}, "to_move": 2}


# --------------------------------------------------------------------------- random positions

CONFIGS = [("hra", None, {}), ("hra", None, {"marriage_on_follow": True}),
           ("hra", "sedma", {}), ("hra", "kilo", {}), ("betl", None, {}), ("durch", None, {})]


def test_random_endgames_are_valid_documents():
    rng = random.Random(12345)
    for i in range(120):
        contract, objective, options = CONFIGS[i % len(CONFIGS)]
        tricks_left, in_trick = 1 + i % 4, i % 3
        doc = m.random_endgame(rng, contract, tricks_left, objective=objective,
                               options=options, cards_in_trick=in_trick)
        assert doc["game"] == "marias" and doc["contract"] == contract
        assert len(doc["played"]) == (10 - tricks_left) * 3 + in_trick
        assert ("trump" in doc) == (contract == "hra")
        assert doc.get("objective") == objective
        talon = m.parse_cards(doc["talon"])
        if contract == "hra":
            assert not any(c[0] in "AT" for c in talon)
        st = m.from_doc(doc)                      # validates deal and history
        assert len(st.trick) == in_trick and st.tricks_done == 10 - tricks_left
        assert [len(h) for h in map(m.parse_hand, doc["hands"])] == [10, 10, 10]


def test_pruning_does_not_change_values():
    # prune=False searches every line, with no cut and no memo
    rng = random.Random(7)
    for i in range(150):
        contract, objective, options = CONFIGS[i % len(CONFIGS)]
        doc = m.random_endgame(rng, contract, 1 + i % 3, objective=objective,
                               options=options, cards_in_trick=i % 3)
        res = m.reference_solve(doc)
        assert res == m.reference_solve(doc, prune=False)
        pick = max if res["to_move"] == 0 else min
        assert res["value"] == pick(res["moves"].values())
        assert set(res["moves"]) == set(m.from_doc(doc).legal_moves())


def test_the_memo_does_not_change_values():
    # The memo keeps bounds keyed on the whole state: searches in narrow windows around the
    # value (which leave bounds in it) keep the fail-soft contract, and the full window then
    # gives the value of the search without memo; with a memo filled by other positions,
    # cleared, or cleared mid-search (a tiny limit).
    rng = random.Random(8)
    limit = m.MEMO.limit
    try:
        for i in range(60):
            contract, objective, options = CONFIGS[i % len(CONFIGS)]
            doc = m.random_endgame(rng, contract, 2 + i % 3, objective=objective,
                                   options=options, cards_in_trick=i % 3)
            if i % 5 == 0:
                m.clear_memo()
            m.MEMO.limit = 50 if i % 7 == 3 else limit
            start = m.from_doc(doc)
            for st in [start] + [start.play(c) for c in start.legal_moves()]:
                true = m.minimax(st, prune=False)
                for _ in range(4):
                    alpha = true + rng.choice([-30, -10, -2, 0, 2, 10] if contract == "hra" else [-2, -1, 0])
                    beta = alpha + rng.choice([1, 2, 5, 20])
                    result = m.minimax(st, alpha, beta)
                    assert fail_soft(result, alpha, beta, true), (alpha, beta, result, true, doc)
                assert m.minimax(st) == true, doc
    finally:
        m.MEMO.limit = limit


def test_random_full_playouts_share_all_90_points():
    rng = random.Random(3)
    for _ in range(100):
        doc = m.random_endgame(rng, "hra", 1, bias=False)
        st = m.from_doc(doc)
        while not st.over:
            st = st.play(rng.choice(st.legal_moves()))
        assert sum(st.cards) == 90                # 80 in A/T + last trick; talon holds none
        assert st.marriages[0] % 20 == 0 and st.marriages[1] % 20 == 0
