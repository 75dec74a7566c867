"""What the sessions of card games coded ``suit * 8 + power`` share.

Both Mariáš and Klaverjas hand their C module card ints ``suit * 8 +
power`` (power: strength in the suit's rank order) and keep three tables:
card -> code, code -> card, code -> name.  This class names, lists and
plays cards on that basis and explains a card that is not in the mover's
hand; a game adds only its rules-specific explanation of an illegal card.
"""
from __future__ import annotations

from ddcards.errors import IllegalPlayError, InvalidCardError, NotationError
from ddcards.games._document import in_field
from ddcards.games.base import Session, TrickCard
from ddcards.notation import Card

# The clauses of docs/RULES.md that errors about the history cite.
OWN_CARD_RULE = "docs/RULES.md §0.7 rule 2: the seat to move plays a card from its own hand"
DEAL_OVER_RULE = "docs/RULES.md §0.7 rule 4: once every card has been played, nothing more may be played"


class CardSession(Session):
    deck_title = ""              # "Mariáš": for "not in the ... deck"
    deck_rule = ""               # the clause naming the game's deck
    all_tricks = ""              # "all ten tricks": for "the deal is over"
    _code: dict[Card, int]
    _card: dict[int, Card]
    _name: dict[int, str]

    # -- naming
    def move_name(self, move: int) -> str:
        return self._name[move]

    def move_order(self, move: int) -> tuple[int, ...]:
        return (move >> 3, -(move & 7))            # suits S H D C, strongest first

    def move_code(self, token: str) -> int:
        card = Card.parse(token)
        if card not in self._code:
            raise InvalidCardError(f"card '{card}' is not in the {self.deck_title} deck ({self.deck_rule})",
                                   token=str(card), rule=self.deck_rule)
        return self._code[card]

    def _cards(self, mask: int) -> list[Card]:
        return sorted((self._card[i] for i in range(32) if mask >> i & 1),
                      key=lambda c: (c.suit, -self._code[c]))

    # -- state
    @property
    def to_move(self) -> int:
        return int(self.board.to_move)

    @property
    def over(self) -> bool:
        return bool(self.board.finished)

    def legal_moves(self) -> list[str]:
        return [self.move_name(m) for m in self.board.legal_moves()]

    def hands(self) -> list[list[Card]]:
        return [self._cards(m) for m in self.board.state["hands"]]

    def trick(self) -> list[Card]:
        return [self._card[c] for c in self.board.state["trick"]]

    def current_trick(self) -> list[TrickCard]:
        st = self.board.state
        seats = len(st["hands"])
        return [TrickCard((st["leader"] + i) % seats, self._card[c]) for i, c in enumerate(st["trick"])]

    # -- play
    def play(self, token: str) -> None:
        ply = len(self.history)
        try:
            code = self.move_code(token)
        except NotationError as exc:
            raise type(exc)(f"played[{ply}]: {exc}", token=exc.token, rule=exc.rule,
                            field=f"played[{ply}]") from None
        card = self._card[code]
        if not self.board.legal_mask() >> code & 1:
            with in_field(f"played[{ply}]"):
                raise self._illegal(card, ply)
        self.board.play(code)
        self.history.append(str(card))

    def _illegal(self, card: Card, ply: int) -> IllegalPlayError:
        st = self.board.state
        seat = st["turn"]
        where = f"played[{ply}] '{card}' by seat {seat}"
        hands = st["hands"]
        if hands[seat] >> self._code[card] & 1:
            return self._illegal_in_hand(card, where)
        if not any(hands):
            # Nobody is to move: the message names no seat.
            why = f"the deal is over: {self.all_tricks} have been played"
            return IllegalPlayError(f"played[{ply}] '{card}': {why} ({DEAL_OVER_RULE})", token=str(card),
                                    rule=DEAL_OVER_RULE)
        owner = next((s for s, mask in enumerate(hands) if mask >> self._code[card] & 1), None)
        if owner is not None:
            why = f"that card is in seat {owner}'s hand, not seat {seat}'s"
        else:
            why = self._where_else(card) or "that card has already been played"
        return IllegalPlayError(f"{where}: {why} ({OWN_CARD_RULE})", token=str(card), rule=OWN_CARD_RULE)

    def _where_else(self, card: Card) -> str | None:
        """Where a card in nobody's hand and never played lies (Mariáš: the talon)."""
        return None

    def _illegal_in_hand(self, card: Card, where: str) -> IllegalPlayError:
        """Why the mover may not play `card`, which he holds (the game's rules)."""
        raise NotImplementedError
