"""The game registry: each game is a small module found by name or alias."""
from __future__ import annotations

from ddcards._kernels import kernel_path

# The games' C modules come in builds per CPU level: see ddcards._kernels.
__path__ = kernel_path(__path__)

from ddcards._jsonio import MAX_TEXT, argument_shown, argument_token, check_limits, shown, token_text
from ddcards.errors import InvalidArgumentTypeError, InvalidOptionError
# Names are matched as suits are: any case, accents optional, compatibility forms (fullwidth
# 'ｍａｒｉａｓ') not folded.
from ddcards.notation import _fold
from ddcards.games.base import Game, GameInfo, OptionInfo

__all__ = ["Game", "GameInfo", "OptionInfo", "find_game", "list_games", "get_game"]

GAME_RULE = "docs/RULES.md §0.6 rule 1: game names the game by its name or an alias"


def _registry() -> dict[str, Game]:
    from ddcards.games import klaverjas, marias, mariasz, prsi
    return {g.info.name: g for g in (marias.GAME, klaverjas.GAME, mariasz.GAME, prsi.GAME)}


_GAMES: dict[str, Game] | None = None


def get_game(name: object) -> Game:
    """The game module for `name` (its name or an alias, any case, with or without diacritics,
    its words apart by any run of spaces)."""
    global _GAMES
    if _GAMES is None:
        _GAMES = _registry()
    if isinstance(name, str) and len(name) > MAX_TEXT:
        check_limits({"game": name})    # refused as any text over the limit, before it is folded (RULES §0.11 rule 2)
    if not isinstance(name, str) or not name.strip():
        given = "" if name is None else f", not {shown(name)}"
        raise InvalidOptionError(f"a position names its game (field 'game': one of {', '.join(_GAMES)}){given} "
                                 f"({GAME_RULE})", token="game" if name is None else token_text(name),
                                 rule=GAME_RULE, field="game")
    game = _GAMES.get(name)
    if game is not None:
        return game                     # the name itself, as every canonical document has it
    if not name.isascii():
        check_limits({"game": name[:MAX_TEXT]})   # a lone surrogate is named as such (RULES §0.11 rule 2)
    key = " ".join(_fold(name).split())     # spaces inside as one ("volený  mariáš"), as case and accents
    for game in _GAMES.values():
        if key == game.info.name or key in (_fold(a) for a in game.info.aliases):
            return game
    raise InvalidOptionError(f"unknown game {shown(name)} (supported: {', '.join(_GAMES)}; {GAME_RULE})",
                             token=token_text(name), rule=GAME_RULE, field="game")


def find_game(name: str) -> GameInfo:
    """What the game named `name` offers (its name or an alias, any case, with or without
    diacritics); a name that is no text is an InvalidArgumentTypeError (a TypeError too)."""
    if not isinstance(name, str):
        raise InvalidArgumentTypeError(f"a game's name is text (games: {', '.join(_registry_names())}), not "
                                       f"{argument_shown(name)}", token=argument_token(name), rule=GAME_RULE,
                                       field="name")
    if not name.strip():        # (get_game's word for it speaks of a position's field)
        raise InvalidOptionError(f"unknown game {shown(name)} (supported: {', '.join(_registry_names())}; "
                                 f"{GAME_RULE})", token=token_text(name), rule=GAME_RULE, field="name")
    return get_game(name).info


def _registry_names() -> list[str]:
    return [info.name for info in list_games()]


def list_games() -> list[GameInfo]:
    """What each supported game offers (a ``GameInfo`` each: its name, aliases, seats,
    contracts, objectives and options), in the order marias, klaverjas, mariasz, prsi."""
    global _GAMES
    if _GAMES is None:
        _GAMES = _registry()
    return [g.info for g in _GAMES.values()]
