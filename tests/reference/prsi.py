"""Reference Prší (RULES.md §4, settled in docs/RULES.md §4) in plain Python, with a plain minimax.

Deliberately independent of ``ddcards``: small, slow and obviously matching the rules, so the
fast solver can be checked against it.  It keeps the stock and the discard pile apart and turns
the pile over explicitly, where the fast code runs one queue.

Cards are canonical strings: rank letter from ``"789TJQKA"`` + suit letter from ``"SHDC"``.
Actions: a card (``"TH"``), an Ober naming a suit (``"QH/S"``), ``"draw"``, ``"pass"``.

The rules, as settled:
- A card fits when it has the suit to match (the top card's, or an Ober's named suit) or the top
  card's rank; an Ober fits anything; but on an active 7 only a 7 fits (or ``draw``: 2 cards per
  7 in the chain), and on an active A only an A (or ``pass``).  ``draw`` is one card otherwise,
  allowed at any turn without an active A.  After the penalty draw or the pass, the 7 or A is
  inactive.  The upcard acts on the first player as if just played (an Ober upcard: its suit).
- Drawing from an empty stock turns the pile except its top card over (oldest card drawn first),
  also midway through a penalty; with nothing to turn over, the draw stops.
- The first player out (hand empty after playing) wins and the game ends.  ``play_on``: the
  others go on until one is left, the loser.  ``return``: a player who went out is out for good
  only once the next player has acted; if that action is a 7 (on his last card) he is back in,
  with no cards, at his seat.
- The value, for a player P: +(H+1-d) if P's outcome is settled as a win at ply d <= H after the
  position, -(H+1-d) for a loss, 0 if nothing is settled within H plies.  P wins by being out for
  good first, loses when another is out for good first (``play_on`` too: RULES §4 asks who is out
  first); with ``not_last`` (a goal of ``play_on``) P wins by being out for good at all and loses
  when he is the one left.  Every seat but P plays against him.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass

SUITS = "SHDC"
RANKS = "789TJQKA"
DECK = tuple(r + s for s in SUITS for r in RANKS)
DRAW, PASS = "draw", "pass"


class InvalidPosition(ValueError):
    """Bad position document or an illegal action (the reference's own error type)."""


@dataclass(frozen=True)
class State:
    hands: tuple[frozenset, ...]
    stock: tuple[str, ...]          # first drawn first
    pile: tuple[str, ...]           # oldest first; the last one is the top card
    suit: str                       # the suit to match
    sevens: int                     # 7s in the active chain
    ace: bool                       # an active ace
    turn: int
    out: frozenset                  # seats out (for good, or waiting on the next player's answer)
    waiting: int | None             # `return`: the seat whose going out the next action settles
    finished: tuple[int, ...]       # seats out for good, in order
    done: bool

    @property
    def top(self) -> str:
        return self.pile[-1]


@dataclass(frozen=True)
class Rules:
    seats: int
    play_on: bool = False
    comeback: bool = False          # the variant `return`
    not_last: bool = False          # P's goal under play_on: out at all, not the one left


def start(hands, stock, upcard, leader=0) -> State:
    up = upcard
    return State(hands=tuple(frozenset(h) for h in hands), stock=tuple(stock), pile=(up,), suit=up[1],
                 sevens=1 if up[0] == "7" else 0, ace=up[0] == "A", turn=leader, out=frozenset(),
                 waiting=None, finished=(), done=False)


def legal_actions(state: State) -> list[str]:
    if state.done:
        return []
    hand = state.hands[state.turn]
    top = state.top
    if state.sevens:
        return sorted(c for c in hand if c[0] == "7") + [DRAW]
    if state.ace:
        return sorted(c for c in hand if c[0] == "A") + [PASS]
    out = []
    for c in sorted(hand):
        if c[0] == "Q":
            out += [f"{c}/{s}" for s in SUITS]
        elif c[1] == state.suit or c[0] == top[0]:
            out.append(c)
    return out + [DRAW]


def _next_seat(rules: Rules, out, seat: int) -> int:
    for i in range(1, rules.seats + 1):
        j = (seat + i) % rules.seats
        if j not in out:
            return j
    return seat


def play(rules: Rules, state: State, action: str, check: bool = True) -> State:
    """The state after `action` (which must be legal; `check` says so)."""
    if check and action not in legal_actions(state):
        raise InvalidPosition(f"illegal action {action!r} for seat {state.turn}")
    me = state.turn
    hands = list(state.hands)
    stock, pile = list(state.stock), list(state.pile)
    suit, sevens, ace = state.suit, state.sevens, state.ace
    played_seven = False
    played = None
    if action == DRAW:
        want = 2 * sevens if sevens else 1
        sevens = 0
        got = []
        for _ in range(want):
            if not stock:
                stock, pile = pile[:-1], pile[-1:]     # turn the pile over, oldest first
            if not stock:
                break
            got.append(stock.pop(0))
        hands[me] = hands[me] | frozenset(got)
    elif action == PASS:
        ace = False
    else:
        card, _, named = action.partition("/")
        played = card
        hands[me] = hands[me] - {card}
        pile.append(card)
        suit = named or card[1]
        if card[0] == "7":
            sevens += 1
            played_seven = True
        elif card[0] == "A":
            ace = True
    out, finished, done, waiting = set(state.out), list(state.finished), False, None
    if state.waiting is not None:
        if played_seven:
            out.discard(state.waiting)                 # back in, with no cards
        else:
            finished.append(state.waiting)
            done = not rules.play_on
    if played and not hands[me] and not done:
        if not rules.comeback:
            out.add(me)
            finished.append(me)
            done = not rules.play_on
        elif rules.seats - len(out) > 1:
            out.add(me)                                # the next player may answer with a 7
            waiting = me
        # else (return, play on): no one else is left to answer his last card, so he is the
        # one left: the loser (below)
    if rules.play_on and waiting is None and rules.seats - len(out) <= 1:
        done = True
    turn = me if done else _next_seat(rules, out, me)
    return State(tuple(hands), tuple(stock), tuple(pile), suit, sevens, ace, turn, frozenset(out), waiting,
                 tuple(finished), done)


def outcome(rules: Rules, state: State, player: int) -> int:
    """+1 P has won, -1 P has lost, 0 open."""
    if not rules.not_last:
        if state.finished:
            return 1 if state.finished[0] == player else -1
        return 0
    if player in state.finished:
        return 1
    if state.done:
        return -1
    return 0


def _minimax(rules: Rules, player: int, horizon: int):
    """v(state, d): the plain minimax of the distance-coded value (see the module's doc) of a state
    d plies after the root, memoised on (state, d)."""
    memo: dict = {}

    def v(s: State, d: int) -> int:
        o = outcome(rules, s, player)
        if o:
            return o * (horizon + 1 - d)
        if d == horizon:
            return 0
        key = (s, d)
        if key not in memo:
            vals = [v(play(rules, s, a, check=False), d + 1) for a in legal_actions(s)]
            memo[key] = max(vals) if s.turn == player else min(vals)
        return memo[key]

    return v


def value(rules: Rules, state: State, player: int, horizon: int) -> int:
    """The value of a position: its outcome at distance 0 if its history settled it."""
    o = outcome(rules, state, player)
    if o:
        return o * (horizon + 1)
    return _minimax(rules, player, horizon)(state, 0)


def solve(rules: Rules, state: State, player: int, horizon: int) -> dict:
    """Value of the position and of every legal action (each as the value of the whole line).

    A position whose outcome the history settled keeps it, at distance 0, whatever is played."""
    o = outcome(rules, state, player)
    if o:
        return {"value": o * (horizon + 1), "moves": {a: o * (horizon + 1) for a in legal_actions(state)}}
    v = _minimax(rules, player, horizon)
    return {"value": v(state, 0), "moves": {a: v(play(rules, state, a), 1) for a in legal_actions(state)}}


def report(raw: int, horizon: int, seats: int) -> tuple[int, int | None]:
    """(value as RULES.md §4 reports it, plies to the settled end or None)."""
    if raw > 0:
        return 1, horizon + 1 - raw
    if raw < 0:
        return -1, horizon + 1 + raw
    return (0 if seats == 2 else -1), None


# ----------------------------------------------------------------------------- exact (no horizon)

def exact(rules: Rules, state: State, player: int, cap: int = 200_000) -> dict[State, tuple[int, int]]:
    """Retrograde analysis of the whole reachable graph: state -> (outcome, plies), outcome +1/-1
    with the plies to the end (winner hurries, loser delays), or (0, 0) for a draw (neither side can
    force an end).  Raises InvalidPosition past `cap` states."""
    index: dict[State, int] = {state: 0}
    states = [state]
    succ: list[list[int]] = []
    queue = deque([0])
    while queue:
        i = queue.popleft()
        s = states[i]
        nxt = []
        if not outcome(rules, s, player):
            for a in legal_actions(s):
                t = play(rules, s, a)
                j = index.get(t)
                if j is None:
                    if len(states) >= cap:
                        raise InvalidPosition(f"more than {cap} states")
                    j = index[t] = len(states)
                    states.append(t)
                    queue.append(j)
                nxt.append(j)
        succ.append(nxt)
    pred: list[list[int]] = [[] for _ in states]
    for i, nxt in enumerate(succ):
        for j in nxt:
            pred[j].append(i)
    result: dict[int, tuple[int, int]] = {}
    left = [len(n) for n in succ]
    frontier = []
    for i, s in enumerate(states):
        o = outcome(rules, s, player)
        if o:
            result[i] = (o, 0)
            frontier.append(i)
    dist = 0
    while frontier:
        dist += 1
        new = []
        for j in frontier:
            oj = result[j][0]
            for i in pred[j]:
                if i in result:
                    continue
                mover_is_p = states[i].turn == player
                if (oj > 0) == mover_is_p:            # a move to a win for the mover: take it now
                    result[i] = (oj, dist)
                    new.append(i)
                else:
                    left[i] -= 1
                    if left[i] == 0:                   # every move loses for the mover: the longest
                        result[i] = (oj, dist)
                        new.append(i)
        frontier = new
    return {s: result.get(i, (0, 0)) for i, s in enumerate(states)}


# ----------------------------------------------------------------------------- documents

def parse_card(token: str) -> str:
    t = token.strip().upper()
    t = {"10": "T"}.get(t[:-1], t[:-1]) + t[-1:]
    t = t.replace("O", "Q", 1) if t[:1] == "O" else t.replace("U", "J", 1) if t[:1] == "U" else t
    if t not in DECK:
        raise InvalidPosition(f"bad card {token!r}")
    return t


def parse_hand(text: str) -> list[str]:
    parts = text.split(".")
    if len(parts) != 4:
        raise InvalidPosition(f"bad hand {text!r}")
    return [parse_card(r + s) for s, part in zip(SUITS, parts) for r in part.replace("10", "T")]


def from_document(doc: dict) -> tuple[Rules, State, int, int | None]:
    """(rules, state after the history, player, horizon) of a position document."""
    hands = [parse_hand(h) if isinstance(h, str) else [parse_card(c) for c in h] for h in doc["hands"]]
    stock = doc["stock"].split() if isinstance(doc["stock"], str) else list(doc["stock"])
    stock = [parse_card(c) for c in stock]
    options = doc.get("options", {})
    rules = Rules(len(hands), options.get("play_on", False), options.get("return", False),
                  options.get("not_last", False))
    state = start(hands, stock, parse_card(doc["upcard"]), doc.get("leader", 0))
    for action in doc.get("played", ()):
        state = play(rules, state, action)
    player = options.get("player")
    if player is None:              # RULES §4.9: the player to move; in a finished game, the one who started
        over = state.done or (not rules.play_on and bool(state.finished))
        player = doc.get("leader", 0) if over else state.turn
    return rules, state, player, options.get("horizon", 20)
