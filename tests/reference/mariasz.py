"""Reference Mariasz (RULES.md §3) in plain Python, with a plain minimax.

Deliberately independent of ``ddcards`` (its notation, games and core): small, slow and
obviously matching the rules, so the fast solver can be checked against it.

Cards are canonical strings: rank letter from ``"6789TJQKA"`` + suit letter from ``"SHDC"``
(e.g. ``"TH"``, ``"QC"``); the non-card action is ``"exchange"``.

Variants (``options.variant``): ``standard`` (two players, a stock), ``kiks`` (four players,
seats 0+2 against 1+3, no stock) and ``three`` (three players, no stock, solved for
``options.player`` against the other two).  Sides: the seat (standard, three) or the team
(kiks, seat % 2).

Values (RULES.md §3.8), always for the whole deal, history included:
  points   standard/kiks: side 0's deal points - side 1's (cards, last trick, marriages);
           three: the deal points of seat ``player``
  race     +1 if the maximising side reaches 131 first (start score + deal points), -1 if
           another side does, 0 if no one does in this deal
"""
from __future__ import annotations

import math
from dataclasses import dataclass

SUITS = "SHDC"
RANKS = "6789TJQKA"
SZLIFOWANY_RANKS = "6TJQKA"
PLAIN_ORDER = "6789JQKTA"          # low -> high
TRUMP_ORDER = "6789JKTAQ"          # the trump queen (pamfil) is the highest trump
CARD_POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2}
PAMFIL_POINTS = 11
LAST_TRICK = 10
TARGET = 131
EXCHANGE = "exchange"
RANK_ALIASES = {"10": "T", "X": "T", "U": "J", "O": "Q"}
PLAYERS = {"standard": 2, "kiks": 4, "three": 3}
OPTION_DEFAULTS = {"variant": "standard", "szlifowany": False, "slepy": False, "must_beat": False,
                   "marriage_on_second": False, "player": 0}


class InvalidPosition(ValueError):
    """Bad position document (the reference's own error type)."""


# ----------------------------------------------------------------------------- cards

def parse_card(token: str) -> str:
    t = token.strip().upper()
    rank, suit = RANK_ALIASES.get(t[:-1], t[:-1]), t[-1:]
    if len(rank) != 1 or rank not in RANKS or suit not in SUITS:
        raise InvalidPosition(f"bad card {token!r}")
    return rank + suit


def parse_hand(text: str) -> list[str]:
    groups = text.strip().split(".")
    if len(groups) != 4:
        raise InvalidPosition(f"hand {text!r} needs four dot-separated suits S.H.D.C")
    cards = []
    for suit, group in zip(SUITS, groups):
        for ch in group.strip().upper().replace("10", "T"):
            cards.append(parse_card(ch + suit))
    return cards


def format_hand(cards) -> str:
    return ".".join("".join(r for r in reversed(RANKS) if r + s in cards) for s in SUITS)


def deck(szlifowany: bool) -> list[str]:
    ranks = SZLIFOWANY_RANKS if szlifowany else RANKS
    return [r + s for s in SUITS for r in ranks]


def points(card: str, trump: str) -> int:
    if card == "Q" + trump:
        return PAMFIL_POINTS
    return CARD_POINTS.get(card[0], 0)


def strength(card: str, trump: str) -> int:
    return (TRUMP_ORDER if card[1] == trump else PLAIN_ORDER).index(card[0])


def trick_winner(cards, trump: str) -> int:
    """Index of the winning card: the highest trump, else the highest card of the led suit."""
    trumps = [i for i, c in enumerate(cards) if c[1] == trump]
    pool = trumps or [i for i, c in enumerate(cards) if c[1] == cards[0][1]]
    return max(pool, key=lambda i: strength(cards[i], trump))


def marriage_value(card: str, hand, trump: str) -> int:
    """Points of the marriage `card` (a K or Q) would announce from `hand`, else 0."""
    if card[0] not in "KQ":
        return 0
    other = ("Q" if card[0] == "K" else "K") + card[1]
    if other not in hand:
        return 0
    return 40 if card[1] == trump else 20


# ----------------------------------------------------------------------------- rules

@dataclass(frozen=True)
class Rules:
    players: int
    trump: str
    objective: str                 # "points" | "race"
    must_beat: bool
    marriage_on_second: bool
    player: int                    # three players: the seat solved for
    slepy: bool
    start: tuple                   # race: start score by side
    first_deal: bool

    def side(self, seat: int) -> int:
        return seat % 2 if self.players == 4 else seat

    @property
    def sides(self) -> int:
        return 2 if self.players == 4 else self.players

    def is_max(self, seat: int) -> bool:
        if self.players == 3:
            return seat == self.player
        return self.side(seat) == 0


@dataclass(frozen=True)
class State:
    rules: Rules
    hands: tuple                   # frozenset per seat
    stock: tuple = ()              # cards still to draw, in order (the bottom card last)
    turned_in_stock: bool = True   # the bottom of the stock is still the turned card
    leader: int = 0
    trick: tuple = ()              # (seat, card, marriage pending on this card) in play order
    points: tuple = ()             # by side: cards, last trick, marriages
    marriages: tuple = ()          # by seat: the marriages announced, as (suit, value)
    tricks: tuple = ()             # by side
    claimed: int | None = None     # race: the side that reached 131

    @property
    def to_move(self) -> int | None:
        if self.over:
            return None
        return (self.leader + len(self.trick)) % self.rules.players

    @property
    def over(self) -> bool:
        return self.claimed is not None or (not self.trick and not any(self.hands))

    # -- what may be played
    def can_exchange(self) -> bool:
        r = self.rules
        if r.players != 2 or self.trick or not self.stock or not self.turned_in_stock:
            return False
        six = "6" + r.trump
        return six in self.hands[self.to_move] and self.stock[-1][1] == r.trump and self.stock[-1] != six

    def legal(self) -> list[str]:
        if self.over:
            return []
        r = self.rules
        hand = sorted(self.hands[self.to_move])
        actions = [EXCHANGE] if self.can_exchange() else []
        if not self.trick or (r.players == 2 and self.stock):        # lead, or phase 1: any card
            return actions + hand
        cards = [c for _, c, _ in self.trick]
        led = cards[0][1]
        follow = [c for c in hand if c[1] == led]
        if follow:
            if r.must_beat and not (led != r.trump and any(c[1] == r.trump for c in cards)):
                best = max((c for c in cards if c[1] == led), key=lambda c: strength(c, r.trump))
                higher = [c for c in follow if strength(c, r.trump) > strength(best, r.trump)]
                return higher or follow
            return follow
        trumps = [c for c in hand if c[1] == r.trump]
        if trumps:
            in_trick = [c for c in cards if c[1] == r.trump]
            if r.must_beat and in_trick:
                top = max(in_trick, key=lambda c: strength(c, r.trump))
                higher = [c for c in trumps if strength(c, r.trump) > strength(top, r.trump)]
                return higher or trumps
            return trumps
        return hand

    # -- playing
    def play(self, action: str) -> State:
        if action not in self.legal():
            raise InvalidPosition(f"illegal action {action!r} by seat {self.to_move}: legal {self.legal()}")
        return self._play(action)

    def _play(self, action: str) -> State:
        r = self.rules
        seat = self.to_move
        hand = self.hands[seat]
        hands = list(self.hands)
        if action == EXCHANGE:                                  # the 6 goes under the stock
            six = "6" + r.trump
            hands[seat] = hand - {six} | {self.stock[-1]}
            return _evolve(self, hands=tuple(hands), stock=self.stock[:-1] + (six,), turned_in_stock=False)
        card = action
        hands[seat] = hand - {card}
        pts, marriages, tricks, claimed = list(self.points), list(self.marriages), list(self.tricks), self.claimed
        married = marriage_value(card, hand, r.trump)
        pending = 0
        if married and not self.trick:                          # a marriage on lead scores at once
            pts[r.side(seat)] += married
            marriages[seat] += ((card[1], married),)
            claimed = _claim(r, pts, claimed)
        elif married and r.marriage_on_second:                  # scores if this card wins the trick
            pending = married
        trick = self.trick + ((seat, card, pending),)
        stock, leader = self.stock, self.leader
        if len(trick) == r.players and claimed is None:
            cards = [c for _, c, _ in trick]
            win_seat, win_card, win_pending = trick[trick_winner(cards, r.trump)]
            side = r.side(win_seat)
            pts[side] += sum(points(c, r.trump) for c in cards) + win_pending
            if not stock and not any(hands):
                pts[side] += LAST_TRICK
            if win_pending:
                marriages[win_seat] += ((win_card[1], win_pending),)
            tricks[side] += 1
            claimed = _claim(r, pts, claimed)
            if stock:                                           # the winner draws first
                hands[win_seat] = hands[win_seat] | {stock[0]}
                hands[1 - win_seat] = hands[1 - win_seat] | {stock[1]}
                stock = stock[2:]
            trick, leader = (), win_seat
        return _evolve(self, hands=tuple(hands), stock=stock, leader=leader, trick=trick, points=tuple(pts),
                       marriages=tuple(marriages), tricks=tuple(tricks), claimed=claimed)

    # -- reading the end
    def value(self) -> int:
        r = self.rules
        if r.objective == "race":
            if self.claimed is None:
                return 0
            if r.players == 3:
                return 1 if self.claimed == r.player else -1
            return 1 if self.claimed == 0 else -1
        if r.players == 3:
            return self.points[r.player]
        return self.points[0] - self.points[1]


def _claim(rules: Rules, pts, claimed):
    """Race: the first side whose start score + deal points reach 131 claims."""
    if rules.objective != "race" or claimed is not None:
        return claimed
    for side, p in enumerate(pts):
        if rules.start[side] + p >= TARGET:
            return side
    return None


def _evolve(state: State, **changes) -> State:
    """dataclasses.replace without its checks (the minimax makes millions of these)."""
    new = object.__new__(State)
    new.__dict__.update(state.__dict__)
    new.__dict__.update(changes)
    return new


# ----------------------------------------------------------------------------- documents

def from_doc(doc: dict) -> State:
    """A state from a RULES.md §3.2 position document, its history replayed."""
    if doc.get("game") != "mariasz":
        raise InvalidPosition(f"game {doc.get('game')!r} is not 'mariasz'")
    opts = dict(OPTION_DEFAULTS, **(doc.get("options") or {}))
    players = PLAYERS[opts["variant"]]
    hands = [parse_hand(h) for h in doc["hands"]]
    if len(hands) != players:
        raise InvalidPosition(f"{players} hands needed")
    stock = [parse_card(c) for c in (doc.get("stock") or "").split()] if isinstance(doc.get("stock", ""), str) \
        else [parse_card(c) for c in doc["stock"]]
    all_cards = sorted(c for h in hands for c in h) + sorted(stock)
    if sorted(all_cards) != sorted(deck(opts["szlifowany"])):
        raise InvalidPosition("hands + stock must be the deck, each card once")
    size = len(deck(opts["szlifowany"])) // players if players > 2 else 6
    if any(len(h) != size for h in hands):
        raise InvalidPosition(f"hands hold {size} cards")
    if players == 2:
        trump = doc.get("trump") or stock[-1][1]
        if not opts["slepy"] and trump != stock[-1][1]:
            raise InvalidPosition("trump must be the turned card's suit")
    else:
        trump = doc["trump"]
    objective = doc.get("objective", "points")
    sides = 2 if players == 4 else players
    start = tuple(doc.get("start_scores") or (0,) * sides)
    first = doc.get("first_deal", all(s == 0 for s in start))
    rules = Rules(players=players, trump=trump, objective=objective, must_beat=opts["must_beat"],
                  marriage_on_second=opts["marriage_on_second"], player=opts["player"], slepy=opts["slepy"],
                  start=start, first_deal=first)
    st = State(rules=rules, hands=tuple(frozenset(h) for h in hands), stock=tuple(stock),
               leader=doc.get("leader", 0), points=(0,) * sides, marriages=((),) * players, tricks=(0,) * sides)
    for action in doc.get("played") or ():
        st = st.play(action if action == EXCHANGE else parse_card(action))
    return st


def scores(st: State) -> dict:
    """Deal points by side, marriage points by seat, claims."""
    r = st.rules
    name = "team" if r.players == 4 else "seat"
    out = {f"{name}{i}": p for i, p in enumerate(st.points)}
    out.update({f"seat{i}_marriages": sum(v for _, v in m) for i, m in enumerate(st.marriages)})
    if r.objective == "race":
        out.update({f"{name}{i}_total": r.start[i] + p for i, p in enumerate(st.points)})
    return out


# ----------------------------------------------------------------------------- minimax

def _memo_key(st: State):
    # The points objective's future does not depend on what was banked: leave it out of the memo.
    if st.rules.objective == "points":
        return _evolve(st, points=(0,) * len(st.points), marriages=((),) * len(st.marriages),
                       tricks=(0,) * len(st.tricks))
    return _evolve(st, marriages=((),) * len(st.marriages), tricks=(0,) * len(st.tricks))


def _banked(st: State) -> int:
    r = st.rules
    if r.objective == "race":
        return 0
    return st.points[r.player] if r.players == 3 else st.points[0] - st.points[1]


_EXACT: dict = {}      # memo key -> exact future value


class SearchTooLarge(Exception):
    """The position's game tree is beyond the budget a caller set (node_limit): a plain minimax
    would take minutes there (a race far from its claim early in phase 1, say)."""


_BUDGET = {"limit": None, "nodes": 0}


class node_limit:
    """``with node_limit(n):`` the reference raises SearchTooLarge after n nodes (then none)."""

    def __init__(self, limit: int):
        self.limit = limit

    def __enter__(self) -> None:
        _BUDGET.update(limit=self.limit, nodes=0)

    def __exit__(self, *exc: object) -> None:
        _BUDGET.update(limit=None, nodes=0)


def _future(key: State, alpha: float, beta: float) -> int:
    """The future value (value - banked) of memo key `key`, fail-soft alpha-beta.

    Exact when alpha < result < beta; result <= alpha says the value is at most that, result
    >= beta at least that.  Only exact values are memoised.  A race is decided at +1 (-1) for
    the side to move: nothing better can follow, so that cuts too (and is exact).
    """
    if key.over:
        return key.value() - _banked(key)
    if _BUDGET["limit"] is not None:
        _BUDGET["nodes"] += 1
        if _BUDGET["nodes"] > _BUDGET["limit"]:
            raise SearchTooLarge(f"over {_BUDGET['limit']:,} nodes")
    hit = _EXACT.get(key)
    if hit is not None:
        return hit
    here = _banked(key)
    maximise = key.rules.is_max(key.to_move)
    race_best = (1 if maximise else -1) if key.rules.objective == "race" else None
    best = None
    a, b = alpha, beta
    for action in key.legal():
        child = key._play(action)
        gain = _banked(child) - here
        v = gain + _future(_memo_key(child), a - gain, b - gain)
        if best is None or (v > best if maximise else v < best):
            best = v
        if maximise:
            a = max(a, best)
        else:
            b = min(b, best)
        if best == race_best or a >= b:
            break
    if alpha < best < beta or best == race_best:
        _EXACT[key] = best
    return best


def minimax(st: State) -> int:
    """Exact value of the deal (history included) from `st`."""
    return _banked(st) + _future(_memo_key(st), -math.inf, math.inf)


def solve_state(st: State) -> dict:
    if st.over:
        return {"value": st.value(), "moves": {}, "to_move": None}
    moves = {a: minimax(st._play(a)) for a in st.legal()}
    pick = max if st.rules.is_max(st.to_move) else min
    return {"value": pick(moves.values()), "moves": moves, "to_move": st.to_move}


def reference_solve(doc: dict) -> dict:
    """{"value": int, "moves": {action: exact value}, "to_move": seat} for a position document."""
    return solve_state(from_doc(doc))


def clear_memo() -> None:
    _EXACT.clear()


def principal_line(st: State) -> State:
    """The end of one optimal line from `st` (first optimal action in `legal()` order)."""
    while not st.over:
        target = minimax(st)
        st = next(child for child in (st._play(a) for a in st.legal()) if minimax(child) == target)
    return st


# ----------------------------------------------------------------------------- random positions

def random_deal(rng, *, variant="standard", szlifowany=False, slepy=False, trump=None) -> dict:
    """A random deal as a position document (nothing played; options left to the caller)."""
    cards = deck(szlifowany)
    rng.shuffle(cards)
    players = PLAYERS[variant]
    doc = {"game": "mariasz", "options": {}}
    if variant != "standard":
        doc["options"]["variant"] = variant
    if szlifowany:
        doc["options"]["szlifowany"] = True
    if slepy:
        doc["options"]["slepy"] = True
    if players == 2:
        doc["hands"] = [format_hand(cards[0:6]), format_hand(cards[6:12])]
        doc["stock"] = " ".join(cards[12:])
        if slepy:
            doc["trump"] = trump or rng.choice(SUITS)
    else:
        size = len(cards) // players
        hands = [cards[i * size:(i + 1) * size] for i in range(players)]
        doc["hands"] = [format_hand(h) for h in hands]
        dealer = players - 1
        doc["trump"] = trump or (rng.choice(SUITS) if slepy else rng.choice(hands[dealer])[1])
    return doc


def random_history(rng, doc: dict, plies: int, *, exchange_bias: float = 0.5) -> dict:
    """`doc` with a random legal history of up to `plies` actions (stops at the deal's end).

    An available exchange is taken with probability `exchange_bias` (it is rare otherwise).
    """
    st = from_doc(dict(doc, played=[]))
    played = []
    for _ in range(plies):
        actions = st.legal()
        if not actions:
            break
        if EXCHANGE in actions and rng.random() < exchange_bias:
            action = EXCHANGE
        else:
            action = rng.choice(actions)
        st = st.play(action)
        played.append(action)
    return dict(doc, played=played)
