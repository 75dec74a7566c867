"""Errors raised by ddcards.

Every error about bad input is a :class:`DdcardsError`, a ``ValueError``
subclass whose message names the offending token and the rule it breaks.
Interfaces map them to exit code 2 (CLI) or INVALID_ARGUMENT (gRPC).
"""
from __future__ import annotations


class DdcardsError(ValueError):
    """Bad input: the message names the token and the rule."""

    def __init__(self, message: str, *, token: str | None = None, rule: str | None = None):
        super().__init__(message)
        self.token = token
        self.rule = rule


class NotationError(DdcardsError):
    """Text that is not valid notation (docs/RULES.md §0)."""


class InvalidCardError(NotationError):
    """A card token that names no card, or a card the game's deck lacks."""


class InvalidDealError(DdcardsError):
    """Hands/talon/stock that do not form a legal deal: sizes, duplicates, talon rules."""


class IllegalPlayError(DdcardsError):
    """An action in the history that the rules do not allow at that point."""


class InvalidOptionError(DdcardsError):
    """An unknown game, contract, objective or option, or one that does not apply."""


class SearchAborted(Exception):
    """The search stopped before it finished (not a bad-input error)."""


class SearchCancelled(SearchAborted):
    """The caller cancelled the search."""


class SearchTimeout(SearchAborted):
    """The search ran past its deadline."""
