"""Reference Mariáš (RULES.md §1) in plain Python, with a plain minimax.

Deliberately independent of ``solver`` (its notation, games and core): small, slow and
obviously matching the rules, so the fast solver can be checked against it.

Cards are canonical strings: rank letter from ``"6789TJQKA"`` + suit letter from ``"SHDC"``
(e.g. ``"TH"``, ``"QC"``).  Seat 0 is the declarer (forehand, leads the first trick);
seats 1 and 2 are the defenders and cooperate.

Values (RULES.md §0/§1), always for the whole deal, history included:
  hra            declarer's final points − defenders' final points
                 (card points incl. last trick, marriages; talon points to the defenders
                 unless option ``talon_points`` is ``"nobody"``)
  betl           +1 if the declarer takes no trick, else −1
  durch          +1 if the declarer takes all ten tricks, else −1
  hra / sedma    +1 if the declarer wins the last trick with the trump 7, else −1
  hra / kilo     +1 if declarer's card points + last trick (+40 if he scored the trump
                 marriage) >= 100, else −1
  money          the declarer's settlement (RULES.md §1.8): twice the sum over the game's
                 parts — the contract and, in Hra, the announced Sedma and Kilo — of
                 +stake if the part is won, −stake if it is lost

Stakes per defender: Hra 1, Betl 5, Durch 10, Sedma ``sedma_value`` (1), Kilo ``kilo_value``
(2); the Hra family doubled in hearts; everything × 2^flek.  Four players: the dealer (seat 3)
sits out and is paid 0.

Reduced deals (fewer than 10 cards a hand, the other cards out of play) are played by the
same rules: the deal ends when the hands are empty, the last trick scores 10.
``reference_table`` tabulates every discard × contract of such a deal by plain minimax.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace

from ._memo import BoundMemo

SUITS = "SHDC"
MARIAS_RANKS = "789TJQKA"                    # the 32-card deck (no sixes)
DECK = tuple(r + s for s in SUITS for r in MARIAS_RANKS)
ORDER = {                                    # low -> high
    "hra": "789JQKTA",                       # A T K O U 9 8 7
    "betl": "789TJQKA",                      # A K O U T 9 8 7
    "durch": "789TJQKA",
}
CONTRACTS = tuple(ORDER)
OBJECTIVES = {"hra": ("hra", "sedma", "kilo", "money"), "betl": ("betl", "money"),
              "durch": ("durch", "money")}
OPTIONS = {"marriage_on_follow": (False, True), "talon_points": ("defenders", "nobody")}
STAKE_OPTIONS = ("sedma_value", "kilo_value")          # whole numbers >= 0
OPTION_DEFAULTS = {"marriage_on_follow": False, "talon_points": "defenders", "sedma_value": 1, "kilo_value": 2}
ANNOUNCEMENTS = ("sedma", "kilo")
BASE_STAKE = {"hra": 1, "betl": 5, "durch": 10}
RANK_ALIASES = {"10": "T", "X": "T", "U": "J", "O": "Q"}
SUIT_ALIASES = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}
HAND_FORMAT_ORDER = "AKQJT987"               # how format_hand lists the ranks of a suit
DECLARER, DEFENDERS = 0, 1                   # indices into the (declarer, defenders) pairs


class InvalidPosition(ValueError):
    """Bad position document (the reference's own error type)."""


# ----------------------------------------------------------------------------- notation

def parse_suit(text: str) -> str:
    s = SUIT_ALIASES.get(text.strip(), text.strip().upper())
    if s not in SUITS:
        raise InvalidPosition(f"bad suit {text!r}")
    return s


def parse_card(token: str) -> str:
    t = token.strip().upper()
    if len(t) < 2:
        raise InvalidPosition(f"bad card {token!r}")
    rank, suit = t[:-1], SUIT_ALIASES.get(t[-1], t[-1])
    rank = RANK_ALIASES.get(rank, rank)
    if rank not in MARIAS_RANKS or len(rank) != 1 or suit not in SUITS:
        raise InvalidPosition(f"bad card {token!r}")
    return rank + suit


def parse_cards(cards) -> list[str]:
    if isinstance(cards, str):
        cards = cards.split()
    return [parse_card(c) for c in cards]


def parse_hand(text: str) -> list[str]:
    groups = text.strip().split(".")
    if len(groups) != 4:
        raise InvalidPosition(f"hand {text!r} needs four dot-separated suits S.H.D.C")
    cards = []
    for suit, group in zip(SUITS, groups):
        for ch in group.strip().upper().replace("10", "T"):
            rank = RANK_ALIASES.get(ch, ch)
            if rank not in MARIAS_RANKS:
                raise InvalidPosition(f"bad rank {ch!r} in hand {text!r}")
            cards.append(rank + suit)
    return cards


def format_hand(cards) -> str:
    return ".".join(
        "".join(r for r in HAND_FORMAT_ORDER if r + s in cards) for s in SUITS)


# ----------------------------------------------------------------------------- card rules

def strength(card: str, contract: str) -> int:
    return ORDER[contract].index(card[0])


def card_points(card: str) -> int:
    return 10 if card[0] in "AT" else 0


def legal_cards(hand, trick, trump, contract) -> list[str]:
    """Rules 1-4 of RULES.md §1.  ``trick`` = cards already in the trick, in play order."""
    hand = sorted(hand)
    if not trick:                                              # 1. leader: any card
        return hand
    led = trick[0][1]
    beats = lambda c, best: strength(c, contract) > strength(best, contract)  # noqa: E731
    follow = [c for c in hand if c[1] == led]
    if follow:                                                 # 2. follow suit ...
        if trump is not None and led != trump and any(c[1] == trump for c in trick):
            return follow                                      # ... trick already trumped
        best = max((c for c in trick if c[1] == led), key=lambda c: strength(c, contract))
        return [c for c in follow if beats(c, best)] or follow  # ... and beat if you can
    trumps = [c for c in hand if trump is not None and c[1] == trump]
    if trumps:                                                 # 3. void: trump ...
        in_trick = [c for c in trick if c[1] == trump]
        if not in_trick:
            return trumps
        top = max(in_trick, key=lambda c: strength(c, contract))
        return [c for c in trumps if beats(c, top)] or trumps  # ... overtrump if you can
    return hand                                                # 4. any card


def trick_winner(trick, trump, contract) -> int:
    """Index (0..2, in play order) of the card winning a complete trick."""
    led = trick[0][1]
    candidates = [i for i, c in enumerate(trick) if trump is not None and c[1] == trump]
    if not candidates:
        candidates = [i for i, c in enumerate(trick) if c[1] == led]
    return max(candidates, key=lambda i: strength(trick[i], contract))


def side(seat: int) -> int:
    return DECLARER if seat == 0 else DEFENDERS


# ----------------------------------------------------------------------------- game state

@dataclass(frozen=True)
class State:
    contract: str
    trump: str | None
    objective: str
    marriage_on_follow: bool
    hands: tuple[frozenset, frozenset, frozenset]
    leader: int = 0
    trick: tuple[str, ...] = ()          # cards of the trick in progress, from the leader on
    tricks_done: int = 0
    cards: tuple[int, int] = (0, 0)      # (declarer, defenders): card points + last trick (+ talon)
    marriages: tuple[int, int] = (0, 0)  # (declarer, defenders) marriage points
    declarer_trump_marriage: bool = False
    declarer_tricks: int = 0
    sedma: bool = False                  # declarer won the last trick with the trump 7
    announcements: tuple[str, ...] = ()  # parts announced on top of a hra
    stakes: tuple[tuple[str, int], ...] = ()   # (part, stake per defender) for money

    @property
    def over(self) -> bool:
        return not any(self.hands)

    @property
    def to_move(self) -> int | None:
        return None if self.over else (self.leader + len(self.trick)) % 3

    def legal_moves(self) -> list[str]:
        if self.over:
            return []
        return legal_cards(self.hands[self.to_move], self.trick, self.trump, self.contract)

    def play(self, card: str) -> "State":
        seat = self.to_move
        if card not in self.legal_moves():
            raise InvalidPosition(f"illegal play {card!r} by seat {seat}: legal {self.legal_moves()}")
        hand = self.hands[seat]
        hands = tuple(h - {card} if i == seat else h for i, h in enumerate(self.hands))
        marriages, trump_marriage = list(self.marriages), self.declarer_trump_marriage
        if (self.contract == "hra" and card[0] in "QK"
                and (not self.trick or self.marriage_on_follow)):
            other = ("K" if card[0] == "Q" else "Q") + card[1]
            if other in hand:                  # leads (or follows) Q/K holding the other
                marriages[side(seat)] += 40 if card[1] == self.trump else 20
                if seat == 0 and card[1] == self.trump:
                    trump_marriage = True
        trick = self.trick + (card,)
        st = replace(self, hands=hands, trick=trick, marriages=tuple(marriages),
                     declarer_trump_marriage=trump_marriage)
        if len(trick) < 3:
            return st
        winner = (self.leader + trick_winner(trick, self.trump, self.contract)) % 3
        done = self.tricks_done + 1
        last = not any(hands)
        points = sum(card_points(c) for c in trick) + (10 if last else 0)
        cards = list(self.cards)
        cards[side(winner)] += points
        declarer_card = trick[(0 - self.leader) % 3]
        sedma = (last and winner == 0 and self.trump is not None
                 and declarer_card == "7" + self.trump)
        return replace(st, leader=winner, trick=(), tricks_done=done, cards=tuple(cards),
                       declarer_tricks=self.declarer_tricks + (winner == 0), sedma=sedma)

    def scores(self) -> dict:
        """Final (or so-far) scores: points for hra, tricks for betl/durch."""
        if self.contract == "hra":
            return {"declarer": self.cards[0] + self.marriages[0],
                    "defenders": self.cards[1] + self.marriages[1]}
        return {"declarer": self.declarer_tricks,
                "defenders": self.tricks_done - self.declarer_tricks}

    def part_won(self) -> dict:
        """Whether the declarer wins each part of the game on this finished deal."""
        assert self.over
        if self.contract == "betl":
            return {"betl": self.declarer_tricks == 0}
        if self.contract == "durch":
            return {"durch": self.declarer_tricks == self.tricks_done}
        s = self.scores()
        kilo = self.cards[0] + (40 if self.declarer_trump_marriage else 0)
        return {"hra": s["declarer"] > s["defenders"], "sedma": self.sedma, "kilo": kilo >= 100}

    def money(self) -> int:
        """The declarer's settlement on this finished deal for the parts played (his view)."""
        won = self.part_won()
        return sum(2 * stake * (1 if won[part] else -1) for part, stake in self.stakes)

    def value(self) -> int:
        """Value of a finished deal for the declarer (see module docstring)."""
        assert self.over
        if self.objective == "money":
            return self.money()
        if self.contract in ("betl", "durch"):
            return 1 if self.part_won()[self.contract] else -1
        if self.objective in ("sedma", "kilo"):
            return 1 if self.part_won()[self.objective] else -1
        s = self.scores()
        return s["declarer"] - s["defenders"]


def stakes_of(contract, trump, announcements=(), options=None, flek=0) -> tuple:
    """(part, stake per defender) for the contract and its announced parts."""
    opts = dict(OPTION_DEFAULTS, **(options or {}))
    factor = 2 ** flek * (2 if contract == "hra" and trump == "H" else 1)
    parts = [(contract, BASE_STAKE[contract] * factor)]
    for part in announcements:
        parts.append((part, opts[part + "_value"] * factor))
    return tuple(parts)


def settlement(money: int, players: int = 3) -> list:
    """By seat: the declarer's money, each defender pays half, the sitting-out dealer 0."""
    return [money, -money // 2, -money // 2] + [0] * (players - 3)


def initial_state(hands, talon, contract, trump=None, objective=None, options=None,
                  announcements=(), flek=0) -> State:
    """State before the first card; ``hands``/``talon`` are lists of canonical cards (any
    equal number of cards a hand: a reduced deal leaves the other cards out of play)."""
    opts = dict(OPTION_DEFAULTS, **(options or {}))
    talon_to_defenders = contract == "hra" and opts["talon_points"] == "defenders"
    return State(contract=contract, trump=trump,
                 objective=objective or ("money" if announcements else contract),
                 marriage_on_follow=bool(opts["marriage_on_follow"]),
                 hands=tuple(frozenset(h) for h in hands),
                 cards=(0, sum(map(card_points, talon)) if talon_to_defenders else 0),
                 announcements=tuple(announcements),
                 stakes=stakes_of(contract, trump, announcements, opts, flek))


def can_announce(part: str, trump: str, forehand) -> bool:
    """Sedma needs the trump 7, Kilo the trump K and O in forehand's hand."""
    needed = ["7" + trump] if part == "sedma" else ["K" + trump, "Q" + trump]
    return all(c in forehand for c in needed)


def from_doc(doc: dict) -> State:
    """Validate a RULES.md §0 position document for Mariáš and replay its history."""
    known = {"game", "hands", "talon", "contract", "trump", "objective", "options", "played",
             "leader", "flek", "announcements", "players"}
    if doc.get("game") != "marias":
        raise InvalidPosition(f"game {doc.get('game')!r} is not 'marias'")
    if set(doc) - known:
        raise InvalidPosition(f"unknown fields {sorted(set(doc) - known)}")
    contract = doc.get("contract")
    if contract not in CONTRACTS:
        raise InvalidPosition(f"bad contract {contract!r}")
    trump = doc.get("trump")
    if contract == "hra":
        if trump is None:
            raise InvalidPosition("hra needs a trump suit")
        trump = parse_suit(trump)
    elif trump is not None:
        raise InvalidPosition(f"{contract} has no trumps (got {trump!r})")
    announcements = doc.get("announcements") or []
    if isinstance(announcements, str):
        announcements = announcements.replace(",", " ").split()
    announcements = [a.lower() for a in announcements]
    if any(a not in ANNOUNCEMENTS for a in announcements) or len(set(announcements)) != len(announcements):
        raise InvalidPosition(f"bad announcements {announcements!r}")
    if announcements and contract != "hra":
        raise InvalidPosition(f"announcements on top of {contract}")
    announcements = [a for a in ANNOUNCEMENTS if a in announcements]
    objective = doc.get("objective") or ("money" if announcements else contract)
    if objective not in OBJECTIVES[contract]:
        raise InvalidPosition(f"objective {objective!r} does not apply to {contract}")
    if doc.get("players", 3) not in (3, 4):
        raise InvalidPosition(f"bad players {doc.get('players')!r}")
    options = doc.get("options") or {}
    for name, val in options.items():
        if name in STAKE_OPTIONS:
            if type(val) is not int or val < 0:
                raise InvalidPosition(f"bad value {val!r} for option {name!r}")
        elif name not in OPTIONS:
            raise InvalidPosition(f"unknown option {name!r}")
        elif val not in OPTIONS[name] or type(val) is not type(OPTIONS[name][0]):
            raise InvalidPosition(f"bad value {val!r} for option {name!r}")
        if contract != "hra":
            raise InvalidPosition(f"option {name!r} does not apply to {contract}")
    if doc.get("leader", 0) != 0:
        raise InvalidPosition("in Mariáš the declarer (seat 0) leads the first trick")
    if doc.get("flek", 0) not in (0, 1, 2):
        raise InvalidPosition(f"bad flek {doc.get('flek')!r}")
    if len(doc.get("hands", ())) != 3:
        raise InvalidPosition("Mariáš needs three hands")
    hands = [parse_hand(h) for h in doc["hands"]]
    talon = parse_cards(doc.get("talon", ""))
    if [len(h) for h in hands] != [10, 10, 10] or len(talon) != 2:
        raise InvalidPosition("hands must hold 10 cards each and the talon 2")
    every = [c for h in hands for c in h] + talon
    if sorted(every) != sorted(DECK):
        raise InvalidPosition("hands + talon must be the 32-card deck, each card once")
    if contract == "hra" and any(c[0] in "AT" for c in talon):
        raise InvalidPosition(f"aces and tens may not be discarded in hra (talon {talon})")
    for part in announcements:
        if not can_announce(part, trump, hands[0]):
            raise InvalidPosition(f"{part} cannot be announced without its cards (hand 0 {hands[0]})")
    st = initial_state(hands, talon, contract, trump, objective, options, announcements,
                       doc.get("flek", 0))
    played = doc.get("played") or []
    if len(played) > 30:
        raise InvalidPosition("more than 30 cards played")
    for card in parse_cards(played):
        st = st.play(card)
    return st


# ----------------------------------------------------------------------------- minimax

MEMO = BoundMemo()         # State -> bounds on its value: the transposition memo


def minimax(st: State, alpha: float = -math.inf, beta: float = math.inf, prune: bool = True):
    """Exact value (declarer maximises, defenders minimise), plain fail-soft alpha-beta.

    Fail-soft: a result <= alpha is an upper bound on the value, >= beta a lower bound, and
    exact in between.  With ``prune`` those bounds are memoised, keyed on the whole state (a
    State is the complete game: hands, trick, scores, objective and stakes), so that the same
    cards reached by another order of the tricks are searched once.  ``prune=False``: every
    line searched, no cut and no memo.
    """
    if st.over:
        return st.value()
    if prune:
        settled, alpha, beta = MEMO.probe(st, alpha, beta)
        if settled is not None:
            return settled
    maximise = st.to_move == 0
    best = -math.inf if maximise else math.inf
    a, b = alpha, beta
    for card in st.legal_moves():
        v = minimax(st.play(card), a, b, prune)
        if maximise:
            best, a = max(best, v), max(a, v)
        else:
            best, b = min(best, v), min(b, v)
        if prune and a >= b:
            break
    if prune:
        MEMO.store(st, best, alpha, beta)
    return best


def clear_memo() -> None:
    MEMO.clear()


def solve_state(st: State, prune: bool = True) -> dict:
    if st.over:
        return {"value": st.value(), "moves": {}, "to_move": None}
    moves = {c: minimax(st.play(c), prune=prune) for c in st.legal_moves()}
    pick = max if st.to_move == 0 else min
    return {"value": pick(moves.values()), "moves": moves, "to_move": st.to_move}


def reference_solve(doc: dict, prune: bool = True) -> dict:
    """{"value": int, "moves": {card: exact value}, "to_move": seat} for a position document."""
    return solve_state(from_doc(doc), prune)


# ----------------------------------------------------------------------------- the contract table

HAND_ORDER = {r + s: (SUITS.index(s), HAND_FORMAT_ORDER.index(r)) for s in SUITS for r in MARIAS_RANKS}


def reference_table(forehand, defenders, talon=None, options=None, flek=0) -> list:
    """Every discard × contract of a (reduced) deal, by plain minimax, best first.

    ``forehand``: his cards before the discard (with ``talon`` None) or after it (``talon``
    the fixed discard); ``defenders``: their two hands.  A row is a dict: discard (the two
    cards, in hand order), contract, trump, announcements, value (Hra margin; Betl/Durch
    +1/-1) and money (the declarer's, with the best announcements: the most money, then
    the fewest parts, then Sedma before Kilo).  Hra in a suit forehand keeps a card of;
    no ace or ten in a Hra discard.  Best first: money, then the contract (hra, betl,
    durch), the value, the trump (S H D C), the discard's place in the enumeration.
    """
    opts = dict(OPTION_DEFAULTS, **(options or {}))
    cards = sorted(forehand, key=HAND_ORDER.get)
    if talon is None:
        discards = [list(pair) for pair in itertools.combinations(cards, 2)]
    else:
        discards = [sorted(talon, key=HAND_ORDER.get)]
    rows = []
    for index, discard in enumerate(discards):
        kept = [c for c in cards if c not in discard] if talon is None else cards
        hands = [kept, list(defenders[0]), list(defenders[1])]
        games = [("hra", t) for t in SUITS if any(c[1] == t for c in kept)] if not any(
            c[0] in "AT" for c in discard) else []
        for contract, trump in games + [("betl", None), ("durch", None)]:
            value = minimax(initial_state(hands, discard, contract, trump, None, opts if trump else None))
            best = None
            possible = [a for a in ANNOUNCEMENTS if contract == "hra" and can_announce(a, trump, kept)]
            for size in range(len(possible) + 1):
                for parts in itertools.combinations(possible, size):
                    st = initial_state(hands, discard, contract, trump, "money", opts if trump else None,
                                       parts, flek)
                    money = minimax(st)
                    if best is None or money > best[0]:
                        best = (money, list(parts))
            rows.append({"discard": " ".join(discard), "contract": contract, "trump": trump,
                         "announcements": best[1], "value": value, "money": best[0], "_order": index})
    contract_order = {"hra": 0, "betl": 1, "durch": 2}
    rows.sort(key=lambda r: (-r["money"], contract_order[r["contract"]], -r["value"],
                             SUITS.index(r["trump"]) if r["trump"] else 0, r["_order"]))
    for row in rows:
        del row["_order"]
    return rows


# ----------------------------------------------------------------------------- seed example

# The seed's worked example (hearts hra), completed to a full deal and line by hand:
# seat 0 = player 1 (declarer), 1 = player 2, 2 = player 3.  Player 1 leads QH announcing
# 40, player 2 must beat with TH, player 3 (void in hearts) throws 7S; in the end player 1
# has 50 card points + 40 = 90 and the defenders 40.
SEED_DOC = {
    "game": "marias",
    "hands": ["AT.AKQ9.AT.87",      # AS TS | AH KH QH 9H | AD TD | 8C 7C
              "KQ.TJ87.KQ.AT",      # KS QS | TH JH 8H 7H | KD QD | AC TC
              "J987..J987.QJ"],     # JS 9S 8S 7S | - | JD 9D 8D 7D | QC JC
    "talon": "9C KC",
    "contract": "hra", "trump": "H",
}
SEED_LINE = ("QH TH 7S  AC JC 7C  TC QC 8C  7H 8S KH  AS QS 9S  TS KS JS  "
             "AD QD 7D  TD KD 8D  AH 8H 9D  9H JH JD").split()


# ----------------------------------------------------------------------------- random positions

def _deal(rng, contract, objective, bias):
    """Hands + talon.  With ``bias`` the declarer's cards are drawn with weights favouring
    low cards (betl) or high cards (durch, kilo), so the contract is not hopeless at once."""
    deck = list(DECK)
    rng.shuffle(deck)
    if bias and (contract in ("betl", "durch") or objective == "kilo"):
        low = contract == "betl"
        weight = lambda c: (8 - strength(c, contract) if low else 1 + strength(c, contract)) ** 2  # noqa: E731
        # weighted sampling without replacement (Efraimidis-Spirakis keys)
        deck.sort(key=lambda c: rng.random() ** (1 / weight(c)), reverse=True)
    declarer, rest = deck[:10], deck[10:]
    if contract == "hra":                 # aces and tens may not be discarded in hra
        talon = [c for c in rest if c[0] not in "AT"][:2]
    else:
        talon = rest[:2]
    rest = [c for c in rest if c not in talon]
    rng.shuffle(rest)
    return [declarer, rest[0:10], rest[10:20]], talon


def _give(rng, hands, talon, wanted):
    """Swap the cards ``wanted`` into the declarer's hand (keeping the hra talon A/T-free)."""
    for card in wanted:
        if card in hands[0]:
            continue
        where = talon if card in talon else next(h for h in hands if card in h)
        pool = [c for c in hands[0] if c not in wanted
                and not (where is talon and c[0] in "AT")]
        out = rng.choice(pool)
        hands[0][hands[0].index(out)] = card
        where[where.index(card)] = out


def _alive(st: State) -> bool:
    """Betl/durch not yet decided against the declarer by the history."""
    if st.contract == "betl":
        return st.declarer_tricks == 0
    if st.contract == "durch":
        return st.declarer_tricks == st.tricks_done
    return True


def _pick(rng, st: State, keep, bias: bool) -> str:
    moves = st.legal_moves()
    if bias and st.to_move == 0:
        moves = [c for c in moves if c not in keep] or moves
        if st.contract in ("betl", "durch") and rng.random() < 0.75:
            pick = min if st.contract == "betl" else max     # keep the contract alive
            return pick(moves, key=lambda c: strength(c, st.contract))
    return rng.choice(moves)


def random_endgame(rng, contract="hra", tricks_left=3, *, trump=None, objective=None,
                   options=None, cards_in_trick=0, bias=True, announcements=(), flek=0,
                   players=3) -> dict:
    """A random legal deal plus a random legal history, stopped when ``tricks_left`` tricks
    are not yet complete, ``cards_in_trick`` (0-2) cards of the current one already played.

    ``rng`` is a ``random.Random``.  Hra picks a random trump unless ``trump`` is given.
    With ``bias`` (default) the positions are made less often trivially decided, all of it
    staying legal: betl/durch/kilo deals favour low/high cards for the declarer, sedma deals
    give him the trump 7 and kilo deals the trump K+Q, which he keeps through the history
    while he can; in betl/durch the declarer mostly plays his lowest/highest legal card and
    a history that already lost the contract is redrawn (up to 20 times).
    """
    if not 1 <= tricks_left <= 10 or cards_in_trick not in (0, 1, 2):
        raise ValueError("need 1 <= tricks_left <= 10 and cards_in_trick in 0..2")
    if contract == "hra" and trump is None:
        trump = rng.choice(SUITS)
    hands, talon = _deal(rng, contract, objective, bias)
    needs = {"sedma": ["7" + str(trump)], "kilo": ["K" + str(trump), "Q" + str(trump)]}
    keep = needs.get(objective, []) if bias else []
    for part in announcements:           # an announcement needs its cards, bias or not
        keep = keep + [c for c in needs[part] if c not in keep]
    _give(rng, hands, talon, keep)
    if not bias:
        keep = []
    doc = {"game": "marias", "hands": [format_hand(h) for h in hands],
           "talon": " ".join(talon), "contract": contract}
    if trump is not None:
        doc["trump"] = trump
    if announcements:
        doc["announcements"] = list(announcements)
    if objective not in (None, contract):
        doc["objective"] = objective
    if flek:
        doc["flek"] = flek
    if players != 3:
        doc["players"] = players
    doc["options"] = dict(options or {})
    start = from_doc(doc)
    for _attempt in range(20 if bias else 1):
        st, played = start, []
        for _ in range((10 - tricks_left) * 3 + cards_in_trick):
            card = _pick(rng, st, keep, bias)
            st = st.play(card)
            played.append(card)
        if _alive(st):
            break
    doc["played"] = played
    return doc


def random_table_deal(rng, size=3, *, bias=True) -> tuple:
    """A random reduced deal for ``reference_table``: forehand's ``size`` + 2 cards (before his
    discard) and the defenders' ``size`` each; the other cards are out of play.  With ``bias``
    forehand is often given a suit's 7, and its King and Ober, so that Sedma and Kilo can be
    announced, and his other cards lean to aces and tens, so that points are at stake."""
    deck = list(DECK)
    rng.shuffle(deck)
    forehand = []
    if bias and rng.random() < 0.7:
        suit = rng.choice(SUITS)
        forehand = ["7" + suit] + (["K" + suit, "Q" + suit] if rng.random() < 0.6 else [])
    rest = [c for c in deck if c not in forehand]
    if bias:
        rest.sort(key=lambda c: rng.random() - (0.3 if c[0] in "AT" else 0))
    forehand += rest[:size + 2 - len(forehand)]
    rest = [c for c in rest if c not in forehand]
    rng.shuffle(rest)
    return forehand, (rest[:size], rest[size:2 * size])
