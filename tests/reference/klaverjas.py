"""Reference Klaverjas (RULES.md §2) in plain Python, with a plain minimax.

Deliberately independent of ``solver`` (its notation, games and core): small, slow and
obviously matching the rules, so the fast solver can be checked against it.

Cards are strings: rank letter from ``"789TJQKA"`` + suit letter from ``"SHDC"`` (``"TH"``).
Seats 0..3 play clockwise; the teams are seats {0, 2} and {1, 3}.  ``playing_team`` 0 means
seats 0 and 2 chose trumps, 1 means seats 1 and 3.

Value of a finished deal (RULES.md §2 Result), from the playing team's side:
  P, O = each team's card points (+10 for the last trick) + roem of the tricks it took.
  P > O  (made): playing scores P (+100 pit if it took all 8 tricks), other scores O.
  P <= O (nat):  playing scores 0, other scores P + O = 162 + all roem (+100 pit if the other
                 team took all 8 tricks; the playing team can never be nat with all 8).
  value = playing team's score - other team's score.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from ._memo import BoundMemo

SUITS = "SHDC"
RANKS = "789TJQKA"                       # the natural order, also the sequence order for roem
DECK = tuple(r + s for s in SUITS for r in RANKS)
TRUMP_ORDER = "78QKTA9J"                 # low -> high: J 9 A T K Q 8 7 from the top
PLAIN_ORDER = "789JQKTA"                 # low -> high: A T K Q J 9 8 7 from the top
TRUMP_POINTS = {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3, "8": 0, "7": 0}
PLAIN_POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}
FOUR_OF_A_KIND = {"J": 200, "A": 100, "K": 100, "Q": 100, "T": 100}
RULESETS = ("amsterdam", "rotterdam")
HAND_FORMAT_ORDER = "AKQJT987"


class InvalidPosition(ValueError):
    """Bad position document or illegal play (the reference's own error type)."""


# ----------------------------------------------------------------------------- notation

def parse_card(token: str) -> str:
    t = token.strip().upper().replace("10", "T")
    if len(t) != 2 or t[0] not in RANKS or t[1] not in SUITS:
        raise InvalidPosition(f"bad card {token!r}")
    return t


def parse_hand(text: str) -> list[str]:
    groups = text.strip().split(".")
    if len(groups) != 4:
        raise InvalidPosition(f"hand {text!r} needs four dot-separated suits S.H.D.C")
    cards = []
    for suit, group in zip(SUITS, groups):
        for ch in group.strip().upper():
            if ch not in RANKS:
                raise InvalidPosition(f"bad rank {ch!r} in hand {text!r}")
            cards.append(ch + suit)
    return cards


def format_hand(cards) -> str:
    return ".".join("".join(r for r in HAND_FORMAT_ORDER if r + s in cards) for s in SUITS)


# ----------------------------------------------------------------------------- card rules

def strength(card: str, trump: str) -> int:
    """Rank of a card within its own suit (higher beats lower)."""
    return (TRUMP_ORDER if card[1] == trump else PLAIN_ORDER).index(card[0])


def points(card: str, trump: str) -> int:
    return (TRUMP_POINTS if card[1] == trump else PLAIN_POINTS)[card[0]]


def winning_index(trick, trump: str) -> int:
    """Index of the card winning the (partial or complete) trick: the highest trump, else the
    highest card of the led suit."""
    trumps = [i for i, c in enumerate(trick) if c[1] == trump]
    pool = trumps or [i for i, c in enumerate(trick) if c[1] == trick[0][1]]
    return max(pool, key=lambda i: strength(trick[i], trump))


def legal_cards(hand, trick, trump: str, rules: str = "amsterdam", leader: int = 0) -> list[str]:
    """The cards the player to move may play (RULES.md §2).  ``trick`` holds the cards played
    so far in this trick, from ``leader`` on; the player to move sits at leader + len(trick)."""
    hand = sorted(hand)
    if not trick:
        return hand
    me = (leader + len(trick)) % 4
    led = trick[0][1]
    same = [c for c in hand if c[1] == led]
    my_trumps = [c for c in hand if c[1] == trump]
    trick_trumps = [c for c in trick if c[1] == trump]
    best_trump = max((strength(c, trump) for c in trick_trumps), default=None)
    higher = [c for c in my_trumps if best_trump is None or strength(c, trump) > best_trump]

    if led == trump:
        # Rule 1, trumps led: a trump higher than every trump in the trick if you can (even
        # over partner), else any trump; with no trump at all, any card.
        if my_trumps:
            return higher or my_trumps
        return hand
    if same:
        return same                       # Rule 1: follow suit, any card of it
    if not my_trumps:
        return hand                       # void, no trumps: nothing to oblige
    if rules == "rotterdam":
        # Void: always trump if you can, even when partner is winning; overtrump if you can,
        # otherwise a lower trump.
        return higher or my_trumps
    winner = (leader + winning_index(trick, trump)) % 4
    if winner == (me + 2) % 4:
        # Rule 2, partner winning: any card, but no trump lower than a trump already in the
        # trick unless the hand holds nothing else.
        lower = [c for c in my_trumps if best_trump is not None and strength(c, trump) < best_trump]
        allowed = [c for c in hand if c not in lower]
        return allowed or hand
    # Rule 3, opponent winning: must trump; overtrump a trump in the trick if you can; if you
    # cannot, another suit rather than undertrump, unless only lower trumps are left.
    if best_trump is None:
        return my_trumps
    if higher:
        return higher
    others = [c for c in hand if c[1] != trump]
    return others or my_trumps


def roem(trick, trump: str) -> int:
    """Roem of the four cards of a trick (RULES.md §2)."""
    total = 0
    for s in SUITS:
        idx = sorted(RANKS.index(c[0]) for c in trick if c[1] == s)
        longest = run = 0
        for i, x in enumerate(idx):
            run = run + 1 if i and x == idx[i - 1] + 1 else 1
            longest = max(longest, run)
        if longest >= 4:
            total += 50
        elif longest == 3:
            total += 20
    ranks = [c[0] for c in trick]
    if len(trick) == 4 and len(set(ranks)) == 1:
        total += FOUR_OF_A_KIND.get(ranks[0], 0)
    if "K" + trump in trick and "Q" + trump in trick:
        total += 20                        # stuk
    return total


# ----------------------------------------------------------------------------- game state

@dataclass(frozen=True)
class State:
    trump: str
    playing_team: int
    rules: str
    hands: tuple[frozenset, frozenset, frozenset, frozenset]
    leader: int = 0
    trick: tuple[str, ...] = ()
    tricks_done: int = 0
    points: tuple[int, int] = (0, 0)      # (playing, other): cards + last trick + roem
    roem: tuple[int, int] = (0, 0)        # (playing, other): roem only
    tricks: tuple[int, int] = (0, 0)      # (playing, other)

    def team(self, seat: int) -> int:
        """0 = the playing team, 1 = the other team."""
        return 0 if seat % 2 == self.playing_team else 1

    @property
    def over(self) -> bool:
        return self.tricks_done == 8

    @property
    def to_move(self) -> int | None:
        return None if self.over else (self.leader + len(self.trick)) % 4

    def legal_moves(self) -> list[str]:
        if self.over:
            return []
        return legal_cards(self.hands[self.to_move], self.trick, self.trump, self.rules, self.leader)

    def play(self, card: str) -> "State":
        seat = self.to_move
        if card not in self.legal_moves():
            raise InvalidPosition(f"illegal play {card!r} by seat {seat}: legal {self.legal_moves()}")
        hands = tuple(h - {card} if i == seat else h for i, h in enumerate(self.hands))
        trick = self.trick + (card,)
        if len(trick) < 4:
            return replace(self, hands=hands, trick=trick)
        winner = (self.leader + winning_index(trick, self.trump)) % 4
        team = self.team(winner)
        done = self.tricks_done + 1
        r = roem(trick, self.trump)
        gained = sum(points(c, self.trump) for c in trick) + r + (10 if done == 8 else 0)
        pts, rm, tr = list(self.points), list(self.roem), list(self.tricks)
        pts[team] += gained
        rm[team] += r
        tr[team] += 1
        return replace(self, hands=hands, trick=(), leader=winner, tricks_done=done,
                       points=tuple(pts), roem=tuple(rm), tricks=tuple(tr))

    def scores(self) -> dict:
        """Final scores of a finished deal."""
        assert self.over
        p, o = self.points
        if p > o:
            return {"playing": p + (100 if self.tricks[1] == 0 else 0), "other": o}
        return {"playing": 0, "other": p + o + (100 if self.tricks[0] == 0 else 0)}

    def nat(self) -> bool:
        return self.points[0] <= self.points[1]

    def value(self) -> int:
        s = self.scores()
        return s["playing"] - s["other"]


def initial_state(hands, trump, playing_team, rules="amsterdam", leader=0) -> State:
    return State(trump=trump, playing_team=playing_team, rules=rules,
                 hands=tuple(frozenset(h) for h in hands), leader=leader)


def from_doc(doc: dict) -> State:
    """Validate a RULES.md §0 position document for Klaverjas and replay its history."""
    known = {"game", "hands", "trump", "playing_team", "rules", "contract", "options", "played", "leader"}
    if doc.get("game") != "klaverjas":
        raise InvalidPosition(f"game {doc.get('game')!r} is not 'klaverjas'")
    if set(doc) - known:
        raise InvalidPosition(f"unknown fields {sorted(set(doc) - known)}")
    if doc.get("options"):
        raise InvalidPosition("klaverjas has no options")
    trump = doc.get("trump")
    if not isinstance(trump, str) or trump.upper() not in SUITS:
        raise InvalidPosition(f"bad trump {trump!r}")
    team = doc.get("playing_team")
    if team not in (0, 1) or isinstance(team, bool):
        raise InvalidPosition(f"bad playing team {team!r}")
    rules = doc.get("rules", "amsterdam")
    if rules not in RULESETS:
        raise InvalidPosition(f"bad rules {rules!r}")
    leader = doc.get("leader", 0)
    if leader not in (0, 1, 2, 3) or isinstance(leader, bool):
        raise InvalidPosition(f"bad leader {leader!r}")
    if len(doc.get("hands", ())) != 4:
        raise InvalidPosition("Klaverjas needs four hands")
    hands = [parse_hand(h) for h in doc["hands"]]
    if [len(h) for h in hands] != [8] * 4:
        raise InvalidPosition("hands must hold 8 cards each")
    if sorted(c for h in hands for c in h) != sorted(DECK):
        raise InvalidPosition("the hands must be the 32-card deck, each card once")
    st = initial_state(hands, trump.upper(), team, rules, leader)
    for token in doc.get("played") or []:
        if st.over:
            raise InvalidPosition("more than 32 cards played")
        st = st.play(parse_card(token))
    return st


# ----------------------------------------------------------------------------- minimax

MEMO = BoundMemo()         # (measure, State) -> bounds on its value: the transposition memo


def minimax(st: State, alpha: float = float("-inf"), beta: float = float("inf"),
            measure: Callable[[State], int] = State.value) -> int:
    """Exact value (playing team maximises, other team minimises), plain fail-soft alpha-beta;
    `measure` scores a finished deal (default: the value, RULES.md §2 Result).

    Fail-soft: a result <= alpha is an upper bound on the value, >= beta a lower bound, and
    exact in between.  Those bounds are memoised, keyed on the measure and the whole state (a
    State is the complete game: hands, trick, points, roem and tricks taken), so that the same
    cards reached by another order of the tricks are searched once."""
    if st.over:
        return measure(st)
    key = (measure, st)
    settled, alpha, beta = MEMO.probe(key, alpha, beta)
    if settled is not None:
        return settled
    maximise = st.team(st.to_move) == 0
    best = float("-inf") if maximise else float("inf")
    a, b = alpha, beta
    for card in st.legal_moves():
        v = minimax(st.play(card), a, b, measure)
        if maximise:
            best, a = max(best, v), max(a, v)
        else:
            best, b = min(best, v), min(b, v)
        if a >= b:
            break
    MEMO.store(key, best, alpha, beta)
    return best


def clear_memo() -> None:
    MEMO.clear()


def solve_state(st: State) -> dict:
    if st.over:
        return {"value": st.value(), "moves": {}, "to_move": None}
    moves = {c: minimax(st.play(c)) for c in st.legal_moves()}
    pick = max if st.team(st.to_move) == 0 else min
    return {"value": pick(moves.values()), "moves": moves, "to_move": st.to_move}


def reference_solve(doc: dict) -> dict:
    """{"value": int, "moves": {card: exact value}, "to_move": seat} for a position document."""
    return solve_state(from_doc(doc))


# ----------------------------------------------------------------------------- random positions

def random_endgame(rng, tricks_left: int = 3, *, cards_in_trick: int = 0, trump: str | None = None,
                   playing_team: int | None = None, rules: str = "amsterdam", leader: int | None = None,
                   close: int = 1) -> dict:
    """A random deal plus a random legal history, stopped when ``tricks_left`` tricks are not yet
    complete and ``cards_in_trick`` (0-3) cards of the current one are played.

    ``rng`` is a ``random.Random``.  With ``close`` > 1, that many histories are drawn and the one
    whose margin so far (playing - other points) is nearest to 0 is kept, so that whether the
    playing team goes nat is still open (the hard case for the solver's table).
    """
    if not 1 <= tricks_left <= 8 or cards_in_trick not in (0, 1, 2, 3):
        raise ValueError("need 1 <= tricks_left <= 8 and cards_in_trick in 0..3")
    deck = list(DECK)
    rng.shuffle(deck)
    hands = [deck[8 * i: 8 * i + 8] for i in range(4)]
    trump = trump or rng.choice(SUITS)
    playing_team = rng.randrange(2) if playing_team is None else playing_team
    leader = rng.randrange(4) if leader is None else leader
    doc = {"game": "klaverjas", "hands": [format_hand(h) for h in hands], "trump": trump,
           "playing_team": playing_team, "rules": rules, "leader": leader}
    start = from_doc(doc)
    best = None
    for _ in range(max(1, close)):
        st, played = start, []
        for _ in range((8 - tricks_left) * 4 + cards_in_trick):
            card = rng.choice(st.legal_moves())
            st = st.play(card)
            played.append(card)
        margin = abs(st.points[0] - st.points[1])
        if best is None or margin < best[0]:
            best = (margin, played)
    doc["played"] = best[1]
    return doc
