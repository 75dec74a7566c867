"""The game registry: each game is a small module found by name or alias."""
from __future__ import annotations

import unicodedata

from ddcards._kernels import kernel_path

# The games' C modules come in builds per CPU level: see ddcards._kernels.
__path__ = kernel_path(__path__)

from ddcards.errors import InvalidOptionError
from ddcards.games.base import Game, GameInfo, OptionInfo

__all__ = ["Game", "GameInfo", "OptionInfo", "find_game", "list_games", "get_game"]


def _registry() -> dict[str, Game]:
    from ddcards.games import klaverjas, marias, mariasz
    return {g.info.name: g for g in (marias.GAME, klaverjas.GAME, mariasz.GAME)}


_GAMES: dict[str, Game] | None = None


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFKD", text.strip().lower())
    return "".join(ch for ch in text if not unicodedata.combining(ch))


def get_game(name: object) -> Game:
    """The game module for `name` (its name or an alias, any case, with or without diacritics)."""
    global _GAMES
    if _GAMES is None:
        _GAMES = _registry()
    if not isinstance(name, str) or not name.strip():
        raise InvalidOptionError(f"a position names its game (field 'game': one of {', '.join(_GAMES)})",
                                 token=repr(name), rule="game")
    key = _fold(name)
    for game in _GAMES.values():
        if key == game.info.name or key in (_fold(a) for a in game.info.aliases):
            return game
    raise InvalidOptionError(f"unknown game '{name}' (supported: {', '.join(_GAMES)})", token=name,
                             rule="supported games")


def find_game(name: str) -> GameInfo:
    """What the game named `name` offers."""
    return get_game(name).info


def list_games() -> list[GameInfo]:
    global _GAMES
    if _GAMES is None:
        _GAMES = _registry()
    return [g.info for g in _GAMES.values()]
