"""Pure conversions between ddcards.v1 messages and the solver's Python values.

Nothing here talks to a network or runs a search, so every function can be
tested on its own. The request side builds the *position document* of
docs/RULES.md §0 (a plain dict) from a ``Position`` message; the solver validates
it (``ddcards.Position.from_dict``), so this module only rejects what it cannot
express as a document (a structured card without a suit, an option without a
value, ...). The response side reads the documented attributes of
``ddcards.Result``, ``ddcards.Analysis`` and ``ddcards.GameInfo``.

No function knows a game's rules: games, contracts and enums are converted by
name (``GAME_MARIAS`` <-> ``"marias"``), options are passed through by name,
so a game the solver adds appears here without code changes.

The package: `scalars` (enums, modes, numbers, option values), `actions` (cards and actions),
`requests` (a request -> its position document, and back), `responses` (answers -> response
messages) and `client_side` (response messages -> plain dicts, for the Python client).
"""
from __future__ import annotations

from ddcards.server.convert.actions import (ACTION_RULE, action_message, action_to_str, card_message, card_to_str,
                                            cards_to_hand, cards_to_sequence)
from ddcards.server.convert.client_side import (analysis_response_to_dict, games_response_to_list, response_to_dict,
                                                step_dict)
from ddcards.server.convert.requests import (check_message_size, doc_to_position, load_document, position_to_doc,
                                             request_to_doc)
from ddcards.server.convert.responses import (analysis_to_response, game_info_to_message, games_to_response,
                                              result_to_response, step_message, table_response_to_dict,
                                              table_to_response)
from ddcards.server.convert.scalars import (MODE_NAMES, RANK_LETTERS, SUIT_LETTERS, TIMEOUT_RULE, analysis_from_ply,
                                            analysis_mode_name, enum_to_name, from_ply_field, int32, mode_to_name,
                                            name_to_analysis_mode, name_to_enum, name_to_mode, option_to_python,
                                            python_to_option, timeout_limit)
from ddcards.server.status import RequestError

__all__ = [
    "ACTION_RULE",
    "MODE_NAMES",
    "RANK_LETTERS",
    "RequestError",
    "SUIT_LETTERS",
    "TIMEOUT_RULE",
    "action_message",
    "action_to_str",
    "analysis_from_ply",
    "analysis_mode_name",
    "analysis_response_to_dict",
    "analysis_to_response",
    "card_message",
    "card_to_str",
    "cards_to_hand",
    "cards_to_sequence",
    "check_message_size",
    "doc_to_position",
    "enum_to_name",
    "from_ply_field",
    "game_info_to_message",
    "games_response_to_list",
    "games_to_response",
    "int32",
    "load_document",
    "mode_to_name",
    "name_to_analysis_mode",
    "name_to_enum",
    "name_to_mode",
    "option_to_python",
    "position_to_doc",
    "python_to_option",
    "request_to_doc",
    "response_to_dict",
    "result_to_response",
    "step_dict",
    "step_message",
    "table_response_to_dict",
    "table_to_response",
    "timeout_limit",
]
