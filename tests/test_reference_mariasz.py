"""Tests of the plain-Python Mariasz reference itself (tests/reference/mariasz.py).

Every expected value below is worked out by hand in a comment, from RULES.md §3 and §0.
Plain suits A T K Q J 9 8 7 6; trumps Q (pamfil) A T K J 9 8 7 6.  Points: pamfil 11, A 11,
T 10, K 4, Q 3 (a plain queen), J 2, the rest 0; the last trick 10.  Marriages (K + Q, scored
by leading one of them while holding the other): 20, trumps 40.
"""
import random

import pytest

try:
    from tests.reference import mariasz as m
except ImportError:  # pytest put tests/ itself on sys.path
    from reference import mariasz as m


# --------------------------------------------------------------------------- helpers

def state(hands, *, trump="H", stock=(), leader=0, trick=(), points=None, objective="points", start=None,
          first_deal=None, player=0, must_beat=False, marriage_on_second=False, slepy=False):
    """A bare State for hand-made positions: ``hands`` as S.H.D.C strings (cards of the current
    trick already removed), ``trick`` the cards played to it from ``leader`` on, ``stock`` the
    cards still to draw (the turned card last)."""
    players = len(hands)
    sides = 2 if players == 4 else players
    start = tuple(start or (0,) * sides)
    rules = m.Rules(players=players, trump=trump, objective=objective, must_beat=must_beat,
                    marriage_on_second=marriage_on_second, player=player, slepy=slepy, start=start,
                    first_deal=not any(start) if first_deal is None else first_deal)
    return m.State(rules=rules, hands=tuple(frozenset(m.parse_hand(h)) for h in hands), stock=tuple(stock),
                   leader=leader, trick=tuple(((leader + i) % players, c, 0) for i, c in enumerate(trick)),
                   points=tuple(points or (0,) * sides), marriages=((),) * players, tricks=(0,) * sides)


def play(st, actions):
    for action in actions.split():
        st = st.play(action)
    return st


def legal(hand, trick, trump="H", **kw):
    """The legal cards, in phase 2 (no stock), of the seat holding ``hand`` after ``trick`` (led
    by seat 0; two players, or three for a trick of two cards)."""
    trick = trick.split()
    hands = ["..."] * len(trick) + [hand]
    return set(state(hands, trump=trump, trick=trick, **kw).legal())


def plain_minimax(st):
    """The value by plain minimax: no memo, no alpha-beta, nothing shared with m.minimax."""
    if st.over:
        return st.value()
    values = [plain_minimax(st._play(a)) for a in st.legal()]
    return max(values) if st.rules.is_max(st.to_move) else min(values)


# A szlifowany deal: seat 0 all the spades, seat 1 the trump A and five diamonds, the clubs, the
# A of diamonds and the other hearts in the stock; the jack of hearts turned: trumps hearts.
DEAL = {"game": "mariasz", "options": {"szlifowany": True}, "hands": ["AKQJT6...", ".A.KQJT6."],
        "stock": "AC KC QC JC TC 6C AD KH QH TH 6H JH"}


# --------------------------------------------------------------------------- notation / validation

def test_notation():
    assert [m.parse_card(t) for t in ("TH", "10H", "XH", "OH", "UH", "qs")] == ["TH", "TH", "TH", "QH", "JH", "QS"]
    assert m.parse_hand("AQ10.6..J") == ["AS", "QS", "TS", "6H", "JC"]
    assert m.format_hand(["QS", "TS", "AS", "6H", "JC"]) == "AQT.6..J"
    for bad in ("5S", "1H", "ZZ", "T", "AX"):
        with pytest.raises(ValueError):
            m.parse_card(bad)
    assert len(m.deck(False)) == 36 and len(m.deck(True)) == 24
    assert sum(m.points(c, "H") for c in m.deck(False)) + m.LAST_TRICK == 138      # §3: 138 in all
    assert sum(m.points(c, "S") for c in m.deck(True)) + m.LAST_TRICK == 138       # either deck


@pytest.mark.parametrize("change", [
    {"game": "marias"},
    {"hands": ["AKQJT...", ".A.KQJT6."]},                         # 5 cards
    {"hands": ["AKQJT6...", ".A.KQJT7."]},                        # a 7 in szlifowany, the 6D missing
    {"hands": ["AKQJT6...", ".A.KQJT6.", "..."]},                 # three hands, two players
    {"trump": "S"},                                               # not the turned card's suit
    {"played": ["AS", "AS"]},                                     # a card he does not hold
    {"played": ["exchange"]},                                     # seat 0 holds no trump six
    {"played": ["AS", "AH", "KS"]},                               # seat 1 won: he leads
])
def test_bad_documents_are_rejected(change):
    with pytest.raises(ValueError):
        m.from_doc(dict(DEAL, **change))


def test_slepy_trump_is_given():
    st = m.from_doc(dict(DEAL, trump="S", options={"szlifowany": True, "slepy": True}))
    assert st.rules.trump == "S"


# --------------------------------------------------------------------------- cards and tricks

def test_pamfil_is_the_highest_trump():
    assert m.trick_winner(["AH", "QH"], "H") == 1                 # the pamfil over the trump A
    assert m.trick_winner(["QH", "AH"], "H") == 0
    assert m.trick_winner(["KH", "TH"], "H") == 1                 # T over K in trumps too
    assert m.trick_winner(["QS", "AS"], "H") == 1                 # a plain Q is just a Q
    assert m.trick_winner(["TS", "KS"], "H") == 0                 # T over K
    assert m.trick_winner(["AS", "6H"], "H") == 1                 # any trump over a non-trump
    assert m.trick_winner(["6S", "AD"], "H") == 0                 # another plain suit never wins
    assert m.trick_winner(["9S", "AS", "6H", "QH"], "H") == 3     # four players: the highest trump
    assert (m.points("QH", "H"), m.points("QS", "H"), m.points("AH", "H")) == (11, 3, 11)


def test_the_pamfil_takes_the_trump_ace_in_the_last_trick():
    # seat 0 leads the trump A, seat 1's pamfil takes it: 11 + 11 and the last trick, 32, to seat 1
    st = state([".A..", ".Q.."], trump="H")
    assert m.minimax(st) == -32
    end = play(st, "AH QH")
    assert end.over and end.points == (0, 32) and end.tricks == (0, 1)


# --------------------------------------------------------------------------- phase 1: draws

def test_the_winner_draws_first():
    # seat 1 trumps the spade A with the heart A (22 points): he draws the AC (the top card),
    # seat 0 the KC; seat 1 leads the next trick
    st = m.from_doc(dict(DEAL, played=["AS", "AH"]))
    assert st.points == (0, 22) and st.leader == 1 and st.to_move == 1
    assert "AC" in st.hands[1] and "KC" in st.hands[0]
    assert st.stock == tuple("QC JC TC 6C AD KH QH TH 6H JH".split())


def test_phase1_any_card_may_be_played():
    # seat 1 holds diamonds and the heart A: on the spade A any of them, no need to follow or trump
    st = m.from_doc(dict(DEAL, played=["AS"]))
    assert set(st.legal()) == {"AH", "KD", "QD", "JD", "TD", "6D"}


def test_the_last_two_draws():
    # The last trick of phase 1: the stock holds the last face-down card (6H) and the turned JH.
    # Seat 1 leads the 6D, seat 0 throws the spade A (another suit: it loses): seat 1 wins, draws
    # the 6H, and seat 0 the turned JH.  Phase 2: seat 0, void in diamonds, must trump with it.
    st = state(["AKQJT6...", "..AKQJT6."], stock=("6H", "JH"), leader=1)
    st = play(st, "6D AS")
    assert st.stock == () and "6H" in st.hands[1] and "JH" in st.hands[0] and st.leader == 1
    st = st.play("TD")
    assert st.legal() == ["JH"]


# --------------------------------------------------------------------------- the trump six

def test_the_exchange():
    # seat 0 on lead holds the trump 6, the turned JH is still in the stock: he may exchange;
    # then he holds the JH, the 6H lies at the bottom, and he leads (no second exchange)
    st = state(["A.6..", "K...9"], stock=("TC", "JH"))
    assert st.legal() == ["exchange", "6H", "AS"]
    st = st.play("exchange")
    assert st.hands[0] == {"AS", "JH"} and st.stock == ("TC", "6H") and st.to_move == 0
    assert st.legal() == ["AS", "JH"]
    # he wins with the A over the K: he draws the TC, seat 1 the 6 he put under the stock
    st = play(st, "AS KS")
    assert st.hands == (frozenset({"JH", "TC"}), frozenset({"9C", "6H"}))


def test_no_exchange():
    assert "exchange" not in state(["K...9", "A.6.."], stock=("TC", "JH")).legal()      # not his six
    assert "exchange" not in state(["A.6..", "...9"], stock=("TC", "JH"), leader=1,
                                   trick=["KS"]).legal()                                   # not on lead
    assert "exchange" not in state(["A.6..", "K...9"]).legal()                              # stock empty
    # ślepy: trumps hearts, the turned card a club: no exchange for the 6H
    assert "exchange" not in state(["A.6..", "K...9"], stock=("TC", "JC"), slepy=True).legal()
    assert "exchange" in state(["A.6..", "K...9"], stock=("TC", "JH"), slepy=True).legal()
    # the turned card is the six itself: no one can hold it, no exchange all deal long
    doc = dict(DEAL, hands=["AKQJT6...", ".J.KQJT6."], stock="AC KC QC JC TC 6C AD KH QH TH AH 6H")
    st = m.from_doc(doc)
    for _ in range(12):
        assert "exchange" not in st.legal()
        st = st.play(st.legal()[0])


# --------------------------------------------------------------------------- phase 2: legal cards

def test_phase2_follow_then_trump_then_any():
    assert legal("AK.6.A.", "QS") == {"AS", "KS"}                   # follow suit
    assert legal(".6Q.A.", "QS") == {"6H", "QH"}                     # void: trump, any trump
    assert legal("..AK.6", "QS") == {"AD", "KD", "6C"}               # no spade, no trump: any
    assert legal("A.K..", "9H") == {"KH"}                            # trumps led: follow them


def test_must_beat():
    kw = {"must_beat": True}
    assert legal("AQ.6..", "KS", **kw) == {"AS"}                     # beat the K with the A
    assert legal("QJ.6..", "KS", **kw) == {"QS", "JS"}               # cannot beat: any spade
    assert legal(".6Q..", "KS", **kw) == {"6H", "QH"}                # two players: any trump beats
    assert legal(".AK..", "TH", **kw) == {"AH"}                      # trumps: A over T, not K
    assert legal(".QA..", "AH", **kw) == {"QH"}                      # only the pamfil beats the A
    # three players: the best spade led, the trick trumped by seat 1: seat 2 follows, no beating
    assert legal("A9...", "KS 6H", **kw) == {"AS", "9S"}
    # seat 1 trumped with the K: seat 2, void in spades, must overtrump with the A if he can
    assert legal(".6A..", "KS KH", **kw) == {"AH"}
    assert legal(".69..", "KS KH", **kw) == {"6H", "9H"}
    assert legal(".69..", "KS KH") == {"6H", "9H"}                   # without must_beat: any trump


# --------------------------------------------------------------------------- marriages

def test_a_lead_marriage_scores_at_once():
    # seat 0 leads the K of spades holding the Q: 20 before seat 1 plays; trumps K + pamfil: 40
    st = state(["KQ.KQ..", "A...AKJ"]).play("KS")
    assert st.points == (20, 0) and st.marriages[0] == (("S", 20),)
    st = state(["KQ.KQ..", "A...AKJ"]).play("QH")
    assert st.points == (40, 0)
    # following with the K holding the Q (it wins: 2 + 4), or leading it without the Q, scores nothing
    st = play(state(["..KQ.", "..J.9"], leader=1), "JD KD")
    assert st.points == (6, 0) and st.marriages == ((), ())
    assert state(["K...", "A..."]).play("KS").points == (0, 0)


def test_marriage_on_second():
    # phase 1: seat 1 leads the JS, seat 0 follows with the KS holding the QS and wins: the
    # variant gives him 20 with the trick's 2 + 4
    won = play(state(["KQ.6..", "J...9"], stock=("TC", "JH"), leader=1), "JS KS")
    assert won.points == (6, 0)
    won = play(state(["KQ.6..", "J...9"], stock=("TC", "JH"), leader=1, marriage_on_second=True), "JS KS")
    assert won.points == (26, 0) and won.marriages[0] == (("S", 20),)
    # the KS following the AS loses: no marriage
    lost = play(state(["KQ.6..", "A...9"], stock=("TC", "JH"), leader=1, marriage_on_second=True), "AS KS")
    assert lost.points == (0, 15) and lost.marriages == ((), ())


# --------------------------------------------------------------------------- races

def test_a_lead_marriage_claims_at_once_in_a_race():
    # seat 0 needs 20 (111 + 20 = 131): leading the KS (he holds the QS) claims before seat 1
    # plays; the deal is over, nothing more is legal, the value +1
    doc = dict(DEAL, objective="race", start_scores=[111, 0])
    st = m.from_doc(dict(doc, played=["KS"]))
    assert st.over and st.claimed == 0 and st.value() == 1 and st.legal() == []
    assert m.scores(st)["seat0_total"] == 131
    with pytest.raises(ValueError):
        m.from_doc(dict(doc, played=["KS", "6D"]))                  # nothing after the claim
    # 110 + 20 = 130: no claim, seat 1 plays on
    st = m.from_doc(dict(doc, start_scores=[110, 0], played=["KS"]))
    assert not st.over and st.to_move == 1
    # the marriage is a winning move (the value is +1, the best there is)
    st = m.from_doc(doc)
    m.clear_memo()
    assert m.minimax(st.play("KS")) == m.minimax(st.play("QS")) == 1


def test_a_race_claimed_by_taking_a_trick():
    # seat 1 needs 22: his heart A on the spade A takes 22 and claims: -1; needing 23, no claim
    st = m.from_doc(dict(DEAL, objective="race", start_scores=[0, 109], played=["AS", "AH"]))
    assert st.over and st.claimed == 1 and st.value() == -1
    st = m.from_doc(dict(DEAL, objective="race", start_scores=[0, 108], played=["AS", "AH"]))
    assert not st.over and st.to_move == 1


def test_first_deal_defaults():
    assert m.from_doc(dict(DEAL, objective="race")).rules.first_deal
    assert not m.from_doc(dict(DEAL, objective="race", start_scores=[5, 0])).rules.first_deal


# --------------------------------------------------------------------------- three players, Kiks

# Two tricks left, seat 1 to lead, trumps hearts (none out): seat 0 holds AS 6C, seat 1 TS AC,
# seat 2 KS TC; every card follows suit.  Seat 1 leads TS: seat 0's AS takes TS KS (25), and
# seat 1's AC the last trick (21 + 10).  Seat 1 leads AC: he takes 21, then seat 0's AS the
# last trick with TS KS (25 + 10).
THREE = ["A...6", "T...A", "K...T"]


def test_three_players_paranoid():
    # player 0: the other two hold him down to 25 (seat 1 leads the TS); leading the AC gives 35
    st = state(THREE, leader=1, player=0)
    assert {a: m.minimax(st.play(a)) for a in st.legal()} == {"TS": 25, "AC": 35}
    assert m.minimax(st) == 25
    # player 1: his own points, 31 (TS) or 21 (AC): he picks 31
    st = state(THREE, leader=1, player=1)
    assert {a: m.minimax(st.play(a)) for a in st.legal()} == {"TS": 31, "AC": 21}
    assert m.minimax(st) == 31


def test_three_players_race():
    # player 0 needs 25: either lead gives him 25 (TS) or 35 (AC) at some point: +1.  Needing 26,
    # the TS lead keeps him at 25, and seat 1, needing 31, takes the last trick's 31: -1; needing
    # 32, seat 1 falls a point short: no one claims, 0 (the AC lead would give seat 0 his 35).
    assert m.minimax(state(THREE, leader=1, objective="race", start=(106, 0, 0))) == 1
    assert m.minimax(state(THREE, leader=1, objective="race", start=(105, 100, 0))) == -1
    assert m.minimax(state(THREE, leader=1, objective="race", start=(105, 99, 0))) == 0


def test_kiks_team_points():
    # one trick: seat 0 leads the AS, seat 3 void in spades trumps with the 6H: team 1 (seats 1
    # and 3) takes 11 + 10 + 4 and the last trick: -35
    st = play(state(["A...", "T...", "K...", ".6.."]), "AS TS KS 6H")
    assert st.points == (0, 35) and st.tricks == (0, 1) and st.value() == -35
    # with the 6S instead the AS wins: team 0, 35 (seat 2's K counts for his team either way)
    st = play(state(["A...", "T...", "K...", "6..."]), "AS TS KS 6S")
    assert st.points == (35, 0) and st.value() == 35
    # a partner's marriage counts for the team: seat 2 leads the K of clubs holding the Q
    st = state(["...6", "...7", "...KQ", "...8"], leader=2)
    assert st.legal() == ["KC", "QC"] and st.play("KC").points == (20, 0)


# --------------------------------------------------------------------------- the memoised minimax

def mini_deal(rng, *, players=2, objective="points"):
    """A small random position: two players get 2 cards and a stock of 2 (the last trick of
    phase 1, the turned card last, then 2 tricks of phase 2), the trump six often in a hand;
    Kiks 2 cards each, three players 3.  A race: start scores 100-130."""
    cards = m.deck(False)
    rng.shuffle(cards)
    size = {2: 2, 3: 3, 4: 2}[players]
    hands = [cards[i * size:(i + 1) * size] for i in range(players)]
    stock = tuple(cards[4:6]) if players == 2 else ()
    slepy = players == 2 and rng.random() < 0.2
    trump = stock[-1][1] if players == 2 and not slepy else rng.choice(m.SUITS)
    if players == 2 and rng.random() < 0.6 and "6" + trump not in cards[:6]:
        hands[rng.randrange(2)][0] = "6" + trump                       # the exchange in play
    sides = 2 if players == 4 else players
    start = tuple(rng.randrange(100, 131) for _ in range(sides)) if objective == "race" else None
    return state([m.format_hand(h) for h in hands], trump=trump, stock=stock, leader=rng.randrange(players),
                 objective=objective, start=start, player=rng.randrange(players) if players == 3 else 0,
                 must_beat=rng.random() < 0.4, marriage_on_second=rng.random() < 0.4, slepy=slepy)


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("objective", ["points", "race"])
def test_memoised_minimax_is_plain_minimax(players, objective):
    """m.minimax (memo, fail-soft alpha-beta, the race's early cut) against a plain minimax on
    small positions, whose value and every action's value must agree.  One memo across all the
    positions: entries of one must not answer for another."""
    rng = random.Random(players * 10 + len(objective))
    m.clear_memo()
    for _ in range(60):
        st = mini_deal(rng, players=players, objective=objective)
        if st.over:
            continue
        assert m.minimax(st) == plain_minimax(st)
        for a in st.legal():
            child = st._play(a)
            assert m.minimax(child) == plain_minimax(child)


def test_principal_line_reaches_the_value():
    rng = random.Random(7)
    m.clear_memo()
    for _ in range(20):
        st = mini_deal(rng)
        end = m.principal_line(st)
        assert end.over and end.value() == m.minimax(st)


def test_random_documents_are_legal_and_score_138():
    # whole random deals of each variant: every card is played and, with the marriages taken
    # out, the sides' points are the 138 of the deck
    rng = random.Random(1)
    for variant in ("standard", "kiks", "three"):
        for szl in ((False, True) if variant != "kiks" else (False,)):
            doc = m.random_history(rng, m.random_deal(rng, variant=variant, szlifowany=szl), 200)
            st = m.from_doc(doc)
            assert st.over and not any(st.hands)
            married = sum(v for seat in st.marriages for _, v in seat)
            assert sum(st.points) - married == 138
            cards = [a for a in doc["played"] if a != m.EXCHANGE]
            assert sum(st.tricks) == len(cards) // m.PLAYERS[variant] == len(m.deck(szl)) // m.PLAYERS[variant]
