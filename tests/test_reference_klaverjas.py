"""Tests of the plain-Python Klaverjas reference itself (tests/reference/klaverjas.py).

Every expected value below is worked out by hand in a comment, from RULES.md §2.
Trump order J 9 A T K Q 8 7 (points 20 14 11 10 4 3 0 0); plain suits A T K Q J 9 8 7
(points 11 10 4 3 2 0 0 0).  Seats 0 and 2 play together against 1 and 3.
"""
import random
from dataclasses import replace

import pytest

try:
    from tests.reference import klaverjas as k
    from tests.reference._memo import fail_soft
except ImportError:  # pytest put tests/ itself on sys.path
    from reference import klaverjas as k
    from reference._memo import fail_soft


def legal(hand, trick, trump="H", rules="amsterdam", leader=0):
    return set(k.legal_cards(hand.split(), trick.split(), trump, rules, leader))


def endgame(hands, *, trump="H", playing_team=0, rules="amsterdam", leader=0, trick=(),
            points=(0, 0), roem=(0, 0), tricks=None):
    """A bare State for hand-made endgames: ``hands`` as S.H.D.C strings (cards of the
    current trick already removed), ``trick`` the cards played to it from ``leader`` on."""
    hands = [k.parse_hand(h) for h in hands]
    st = k.initial_state(hands, trump, playing_team, rules, leader)
    to_move = (leader + len(trick)) % 4
    done = 8 - len(hands[to_move])
    if tricks is None:
        tricks = (done, 0)
    return replace(st, trick=tuple(trick), tricks_done=done, points=points, roem=roem, tricks=tricks)


# --------------------------------------------------------------------------- notation / validation

DEAL = ["AKQJT987...", ".AKQJT987..", "..AKQJT987.", "...AKQJT987"]
DOC = {"game": "klaverjas", "hands": DEAL, "trump": "S", "playing_team": 0}


def test_notation():
    assert k.parse_hand("AT.9..J") == ["AS", "TS", "9H", "JC"]
    assert k.format_hand(["TS", "AS", "9H", "JC"]) == "AT.9..J"
    assert k.parse_card("10h") == "TH"
    for bad in ("6S", "1H", "ZZ", "T"):
        with pytest.raises(ValueError):
            k.parse_card(bad)


@pytest.mark.parametrize("change", [
    {"hands": DEAL[:3]},                                         # three hands
    {"hands": ["AKQJT98...", ".AKQJT987..", "..AKQJT987.", "...AKQJT9877"]},  # 7 + 9 cards
    {"hands": ["AKQJT987...", ".AKQJT987..", "..AKQJT987.", "...AKQJT986"]},  # a six
    {"trump": None},
    {"trump": "X"},
    {"playing_team": None},
    {"playing_team": 2},
    {"rules": "utrecht"},
    {"options": {"pit": False}},
    {"leader": 4},
    {"played": ["AS", "AS"]},                                    # seat 1 holds no AS
])
def test_bad_documents_are_rejected(change):
    doc = dict(DOC, **change)
    doc = {key: v for key, v in doc.items() if v is not None}
    with pytest.raises(ValueError):
        k.from_doc(doc)


# --------------------------------------------------------------------------- legality, one clause each

def test_leader_plays_any_card():
    assert legal("AS 7H 8D", "") == {"AS", "7H", "8D"}


def test_follow_suit_any_card_of_it():
    # rule 1: no obligation to beat the led suit
    assert legal("7S AS 8H", "KS") == {"7S", "AS"}


def test_follow_suit_even_when_the_trick_is_trumped():
    # rule 1: holding spades, neither trump nor beat: any spade
    assert legal("7S AS JH", "KS 7H") == {"7S", "AS"}


def test_trumps_led_must_overtrump():
    # 9 is the second trump; only the jack beats it
    assert legal("JH AH 7S", "9H") == {"JH"}
    assert legal("TH AH 7H 7S", "KH") == {"TH", "AH"}      # T and A beat K, 7 does not


def test_trumps_led_cannot_overtrump_any_trump():
    assert legal("AH 7H 7S", "JH") == {"AH", "7H"}


def test_trumps_led_overtrump_even_over_partner():
    # seat 0 leads 9H, seat 1 plays 7H; seat 2 (partner of the winning seat 0) must still
    # play a trump higher than every trump in the trick: the jack.
    assert legal("JH 8H 7S", "9H 7H", leader=0) == {"JH"}


def test_trumps_led_void_in_trumps_any_card():
    assert legal("AS 7D", "9H") == {"AS", "7D"}


def test_amsterdam_partner_winning_no_undertrump():
    # seat 1 leads KS, seat 2 ruffs with AH, seat 3 follows 7S: seat 0 (partner of seat 2,
    # who wins) is void in spades: any card, but no trump lower than AH (7H); JH is higher.
    assert legal("7H JH 8D", "KS AH 7S", leader=1) == {"JH", "8D"}


def test_amsterdam_partner_winning_only_lower_trumps():
    assert legal("7H 8H", "KS AH 7S", leader=1) == {"7H", "8H"}


def test_amsterdam_partner_winning_without_trump_any_card():
    # partner (seat 2) wins with AS, no trump in the trick: even a trump is allowed
    assert legal("7H 8D", "KS AS 7S", leader=1) == {"7H", "8D"}


def test_amsterdam_opponent_winning_must_trump():
    # seat 0 leads AS; seat 1 (opponent winning) is void in spades: must trump, any trump
    assert legal("7H KH 8D", "AS", leader=0) == {"7H", "KH"}


def test_amsterdam_opponent_winning_must_overtrump():
    # seat 0 leads KS, seat 1 ruffs QH; seat 2 (opponent winning) must overtrump: KH > QH
    assert legal("KH 7H 8D", "KS QH", leader=0) == {"KH"}


def test_amsterdam_opponent_winning_other_suit_rather_than_undertrump():
    # seat 1 ruffs with the jack: seat 2 cannot overtrump and plays 8D rather than 7H
    assert legal("7H 8D", "KS JH", leader=0) == {"8D"}


def test_amsterdam_opponent_winning_only_lower_trumps():
    assert legal("7H 8H", "KS JH", leader=0) == {"7H", "8H"}


def test_amsterdam_opponent_winning_void_without_trumps_any_card():
    assert legal("8D 7C", "KS JH", leader=0) == {"8D", "7C"}


def test_rotterdam_partner_winning_must_trump():
    # as in the Amsterdam case above, but Rotterdam obliges seat 0 to trump
    assert legal("7H 8D", "KS AS 7S", rules="rotterdam", leader=1) == {"7H"}


def test_rotterdam_partner_winning_must_overtrump():
    assert legal("7H JH 8D", "KS AH 7S", rules="rotterdam", leader=1) == {"JH"}


def test_rotterdam_undertrump_when_unable_to_overtrump():
    # partner winning with AH, seat 0 holds 7H 8D: must play the lower trump
    assert legal("7H 8D", "KS AH 7S", rules="rotterdam", leader=1) == {"7H"}
    # opponent winning with JH: Rotterdam makes seat 2 undertrump instead of discarding
    assert legal("7H 8D", "KS JH", rules="rotterdam", leader=0) == {"7H"}


def test_rotterdam_follow_suit_unchanged():
    assert legal("7S AS JH", "KS 7H", rules="rotterdam") == {"7S", "AS"}
    assert legal("JH AH 7S", "9H", rules="rotterdam") == {"JH"}


def test_trick_winner():
    assert k.winning_index(["KS", "AS", "TS", "7S"], "H") == 1
    assert k.winning_index(["KS", "TS", "QS", "7S"], "H") == 1      # T over K in a plain suit
    assert k.winning_index(["KS", "7H", "AS", "7D"], "H") == 1      # any trump beats the suit
    assert k.winning_index(["9H", "AH", "JH", "TH"], "H") == 2      # J 9 A T in trumps
    assert k.winning_index(["9H", "AH", "TH", "KH"], "H") == 0      # the 9 over the ace
    assert k.winning_index(["7S", "AD", "AC", "8S"], "H") == 3      # discards never win


# --------------------------------------------------------------------------- roem

@pytest.mark.parametrize("trick,trump,expected", [
    ("7S 8S 9S AH", "H", 20),       # three in sequence
    ("8S 9S TS AD", "H", 20),       # 8 9 T
    ("TS JS QS 7H", "H", 20),       # T J Q: natural order, not the plain rank order
    ("AS KS QS 7H", "H", 20),       # Q K A
    ("7S 8S 9S TS", "H", 50),       # four in sequence
    ("9S TS JS QS", "D", 50),
    ("JH 9H AH 7S", "H", 0),        # J 9 A of trumps: neighbours in rank, not in sequence
    ("KH QH JH 7S", "H", 40),       # K Q J of trumps: sequence 20 + stuk 20
    ("KH QH 7S 8D", "H", 20),       # stuk alone
    ("KS QS 7H 8D", "H", 0),        # K and Q of a plain suit: nothing
    ("QH KH AH JH", "H", 70),       # four in sequence (J Q K A) + stuk
    ("JS JH JD JC", "H", 200),      # four jacks
    ("KS KH KD KC", "H", 100),      # four kings (the trump K without the Q: no stuk)
    ("QS QH QD QC", "S", 100),
    ("AS AH AD AC", "C", 100),
    ("TS TH TD TC", "D", 100),
    ("9S 9H 9D 9C", "H", 0),        # four nines: nothing
    ("7S 7H 7D 7C", "H", 0),
    ("7S 9S JS KS", "H", 0),        # same suit, no two neighbours
])
def test_roem(trick, trump, expected):
    assert k.roem(trick.split(), trump) == expected


def test_roem_goes_to_the_trick_winner():
    # seat 0 leads 8S, seat 1 7S, seat 2 9S, seat 3 AD (void, no trumps): 9S wins the 7-8-9
    # sequence (20) for team 0 (seats 0 and 2): cards 0 + roem 20.
    st = endgame(["8.7..", "7.8..", "9.9..", "..A.7"], playing_team=1, tricks=(3, 3))
    for card in ("8S", "7S", "9S", "AD"):
        st = st.play(card)
    # playing_team 1: seats 0 and 2 are the *other* team (index 1)
    assert st.roem == (0, 20) and st.points == (0, 31) and st.tricks == (3, 4)


# --------------------------------------------------------------------------- scoring

def test_nat_on_a_tie():
    # Last trick: seat 0 AS, seat 1 7S, seat 2 8S, seat 3 9S -> team 0 wins 11 + 10 (last)
    # + 20 (7-8-9) = 41.  Before: playing 60, other 101 (20 of it roem) -> 101 : 101, a tie:
    # nat.  The playing team scores 0, the other 202 = 162 + all roem (20 + 20).
    st = endgame(["A...", "7...", "8...", "9..."], points=(60, 101), roem=(0, 20), tricks=(4, 3))
    for card in ("AS", "7S", "8S", "9S"):
        st = st.play(card)
    assert st.over and st.points == (101, 101) and st.nat()
    assert st.scores() == {"playing": 0, "other": 202}
    assert st.value() == -202


def test_made_by_one_point():
    st = endgame(["A...", "7...", "8...", "9..."], points=(61, 101), roem=(0, 20), tricks=(4, 3))
    for card in ("AS", "7S", "8S", "9S"):
        st = st.play(card)
    assert st.scores() == {"playing": 102, "other": 101} and st.value() == 1


def test_pit_for_the_playing_team():
    # all eight tricks: 162 + 100
    st = endgame(["A...", "7...", "8...", "K..."], points=(137, 0), tricks=(7, 0))
    for card in ("AS", "7S", "8S", "KS"):
        st = st.play(card)
    # last trick 11 + 4 + 10 = 25, no roem (7 8 with A K: no run of three)
    assert st.points == (162, 0) and st.tricks == (8, 0)
    assert st.scores() == {"playing": 262, "other": 0} and st.value() == 262


def test_pit_for_the_other_team_in_a_nat_game():
    # the other team takes all 8 tricks: nat, and pit counts for it
    st = endgame(["7...", "A...", "8...", "K..."], points=(0, 137), tricks=(0, 7))
    for card in ("7S", "AS", "8S", "KS"):
        st = st.play(card)
    assert st.tricks == (0, 8) and st.nat()
    assert st.scores() == {"playing": 0, "other": 262} and st.value() == -262


# --------------------------------------------------------------------------- minimax by hand

# Trick 7 of a deal, hearts trumps, playing team 0 (seats 0, 2).  Seat 1 led 8S, seat 2
# played TS (winning); seat 3 holds 9S KS and must follow; seat 0 (7D 8D) can only discard.
# Trick 8: seat 2 leads QS, seat 3 his other spade, seat 0 a diamond, seat 1 7C; no trumps.
#  - 9S: 8 9 T in spades, 20 roem; team 0 takes 10 + 20 = 30.  Trick 8: KS beats QS, team 1
#    takes 3 + 4 + 10 = 17.
#  - KS: team 0 takes 10 + 4 = 14; trick 8: QS wins, team 0 takes 3 + 10 = 13.
HANDS_7 = ["..87.", "...7", "Q...", "K9..."]
TRICK_7 = ("8S", "TS")


def test_hand_solved_two_trick_endgame():
    # before: playing 100, other 40.  9S: 130 - 57 = 73;  KS: 127 - 40 = 87.
    # Seat 3 (other team) chooses 9S.
    st = endgame(HANDS_7, leader=1, trick=TRICK_7, points=(100, 40), tricks=(4, 2))
    assert st.to_move == 3 and st.legal_moves() == ["9S", "KS"]
    assert st.play("9S").legal_moves() == ["7D", "8D"]      # partner winning: free discard
    assert k.solve_state(st) == {"value": 73, "moves": {"9S": 73, "KS": 87}, "to_move": 3}


def test_hand_solved_endgame_where_nat_decides():
    # before: playing 60, other 80.  9S: 90 vs 97, nat: -(90 + 97) = -187;
    # KS: 87 vs 80, made: +7.  Completing the opponents' sequence costs them the contract.
    st = endgame(HANDS_7, leader=1, trick=TRICK_7, points=(60, 80), tricks=(4, 2))
    assert k.solve_state(st) == {"value": -187, "moves": {"9S": -187, "KS": 7}, "to_move": 3}


def test_whole_deal_from_a_document():
    # Spades trumps, seat 0 holds every spade, seats 1-3 one whole suit each.
    st = k.from_doc(DOC)
    assert st.to_move == 0 and len(st.legal_moves()) == 8
    assert sorted(k.from_doc(dict(DOC, played=["AS"])).legal_moves()) == sorted(k.parse_hand(DEAL[1]))
    # A line where each seat plays its cards from the top: AS AH AD AC is four aces (100), and
    # so on: aces, kings, queens, tens 100 each, jacks 200 -> 600 roem; 9s, 8s, 7s nothing.
    line = [r + s for r in "AKQJT987" for s in "SHDC"]
    st = k.from_doc(dict(DOC, played=line))
    assert st.over and st.tricks == (8, 0) and st.roem == (600, 0)
    assert st.scores() == {"playing": 162 + 600 + 100, "other": 0}


# --------------------------------------------------------------------------- random positions

def test_random_endgames_are_legal_and_reproducible():
    for seed in range(30):
        doc = k.random_endgame(random.Random(seed), 1 + seed % 3, cards_in_trick=seed % 4,
                               rules=k.RULESETS[seed % 2], close=3)
        assert doc == k.random_endgame(random.Random(seed), 1 + seed % 3, cards_in_trick=seed % 4,
                                       rules=k.RULESETS[seed % 2], close=3)
        st = k.from_doc(doc)
        assert len(doc["played"]) == (8 - (1 + seed % 3)) * 4 + seed % 4
        assert st.legal_moves()


# --------------------------------------------------------------------------- the memo

def plain_minimax(st, measure=k.State.value):
    """Every line searched, no cut and no memo: the definition the memoised minimax must meet."""
    if st.over:
        return measure(st)
    pick = max if st.team(st.to_move) == 0 else min
    return pick(plain_minimax(st.play(card), measure) for card in st.legal_moves())


def test_the_memo_does_not_change_values():
    # The memo keeps bounds keyed on the measure and the whole state: searches in narrow
    # windows around the value (which leave bounds in it) keep the fail-soft contract, and the
    # full window then gives the plain minimax's value, whatever the measure; with a memo
    # filled by other positions, cleared, or cleared mid-search (a tiny limit).
    margin = lambda end: end.points[0] - end.points[1]  # noqa: E731
    rng = random.Random(11)
    limit = k.MEMO.limit
    try:
        for i in range(40):
            doc = k.random_endgame(rng, 2 + i % 2, cards_in_trick=i % 4, rules=k.RULESETS[i % 2], close=5)
            if i % 5 == 0:
                k.clear_memo()
            k.MEMO.limit = 50 if i % 7 == 3 else limit
            for st in [k.from_doc(doc)] + [k.from_doc(doc).play(c) for c in k.from_doc(doc).legal_moves()]:
                for measure in (k.State.value, margin):
                    true = plain_minimax(st, measure)
                    for _ in range(4):
                        alpha = true + rng.choice([-30, -10, -2, 0, 2, 10])
                        beta = alpha + rng.choice([1, 2, 5, 20])
                        result = k.minimax(st, alpha, beta, measure)
                        assert fail_soft(result, alpha, beta, true), (alpha, beta, result, true, doc)
                    assert k.minimax(st, measure=measure) == true, doc
    finally:
        k.MEMO.limit = limit
