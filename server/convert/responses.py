"""The solver's answers -> response messages: a Result, a DD or contract table, an Analysis, the games."""
from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from typing import Any

from google.protobuf.struct_pb2 import Struct

from ddcards.notation import parse_hand
from ddcards.server.convert.actions import action_message, card_message
from ddcards.server.convert.scalars import (SUIT_BY_LETTER, SUIT_LETTERS, int32, name_to_enum, name_to_mode,
                                            option_value, python_to_option)
from ddcards.v1 import ddcards_pb2 as pb


def _int_map(values: Mapping[str, Any] | None, field: str) -> dict[str, int]:
    return {str(k): int32(v, field, str(k)) for k, v in (values or {}).items()}


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=_json_default))


def _json_default(value: Any) -> Any:
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    return str(value)


def _extra_struct(obj: Any, known: Iterable[str]) -> Struct | None:
    """Fields of ``obj.to_dict()`` that the typed message has no field for."""
    to_dict = getattr(obj, "to_dict", None)
    if to_dict is None:
        return None
    # (no catch: a to_dict that fails is a bug of ours, which the call reports as INTERNAL and
    # the interceptor logs, rather than an answer that silently lacks its extra fields)
    full = to_dict()
    if not isinstance(full, Mapping):
        return None
    skip = set(known)
    # A null field is an absent one (RULES §0.6 rule 6): a foreign client need not see it.
    extra = {k: v for k, v in full.items() if k not in skip and v is not None}
    if not extra:
        return None
    struct = Struct()
    struct.update(_finite(_jsonable(extra)))
    return struct


_EXACT_IN_DOUBLE = 1 << 53


def _finite(value: Any) -> Any:
    # Struct numbers are doubles: JSON has no NaN/inf, and an integer a double
    # cannot hold exactly travels as its digits.
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > _EXACT_IN_DOUBLE:
        return str(value) if value.bit_length() <= 1024 else f"<an integer of {value.bit_length()} bits>"
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


# Keys of Result.to_dict() that SolveResponse carries in typed fields (or that
# repeat the request); everything else goes to `extra`.
_RESULT_KNOWN = {
    "game", "mode", "value", "scores", "tricks", "won", "settlement", "to_move", "optimal_moves",
    "moves", "pv", "principal_variation", "outcomes", "nodes", "elapsed", "elapsed_seconds", "elapsed_ms",
    "position", "contract", "value_kind", "distance", "horizon", "value_owner", "parts",
    "value_meaning",
}
_ANALYSIS_KNOWN = {
    "game", "initial_value", "final_value", "steps", "mistakes", "nodes", "elapsed", "elapsed_seconds",
    "elapsed_ms", "position", "contract", "played", "value_kind", "value_owner", "initial_outcome",
    "final_outcome", "outcome_mistakes", "final", "value_meaning", "from_ply",
}


def _add_moves(field: Any, moves: Iterable[Any]) -> None:
    """Append a MoveValue to the repeated `field` for each ddcards.MoveValue of `moves`."""
    for mv in moves:
        if mv.value is None:
            entry = field.add(move=action_message(str(mv.move)), optimal=bool(mv.optimal))
        else:
            entry = field.add(move=action_message(str(mv.move)), value=int32(mv.value, "moves", str(mv.move)),
                              optimal=bool(mv.optimal))
        distance = getattr(mv, "distance", None)
        if distance is not None:
            entry.distance = int(distance)


def move_dicts(moves: Iterable[pb.MoveValue]) -> list[dict[str, Any]]:
    return [{"move": m.move.notation, "value": m.value if m.HasField("value") else None, "optimal": m.optimal,
             "distance": m.distance if m.HasField("distance") else None}
            for m in moves]


def result_to_response(result: Any, *, mode: str | int = "all", game: str = "") -> pb.SolveResponse:
    """A SolveResponse for a ``ddcards.Result``."""
    game = game or str(getattr(result, "game", "") or "")
    msg = pb.SolveResponse(
        game_name=game,
        game=name_to_enum(pb.Game, game),
        mode=name_to_mode(mode),
        value=int32(result.value, "value"),
        scores=_int_map(getattr(result, "scores", None), "scores"),
        tricks=_int_map(getattr(result, "tricks", None), "tricks"),
        won=bool(getattr(result, "won", False)),
        settlement=[int32(x, "settlement", i) for i, x in enumerate(getattr(result, "settlement", None) or ())],
        optimal_moves=[action_message(str(m)) for m in getattr(result, "optimal_moves", ())],
        principal_variation=[action_message(str(m)) for m in getattr(result, "pv", ())],
        outcomes={str(k): bool(v) for k, v in (getattr(result, "outcomes", None) or {}).items()},
        nodes=int(getattr(result, "nodes", 0) or 0),
        elapsed_seconds=float(getattr(result, "elapsed", 0.0) or 0.0),
        value_kind=str(getattr(result, "value_kind", "") or ""),
        value_owner=str(getattr(result, "value_owner", "") or ""),
        value_meaning=str(getattr(result, "value_meaning", "") or ""),
    )
    for name in ("to_move", "distance", "horizon"):
        value = getattr(result, name, None)
        if value is not None:
            setattr(msg, name, int32(value, name))
    _add_moves(msg.moves, getattr(result, "moves", ()))
    for name, part in (getattr(result, "parts", None) or {}).items():
        msg.parts[str(name)].CopyFrom(pb.PartResult(won=bool(part["won"]), stake=int32(part["stake"], "parts", name),
                                                    money=int32(part["money"], "parts", name)))
    extra = _extra_struct(result, _RESULT_KNOWN)
    if extra is not None:
        msg.extra.CopyFrom(extra)
    return msg


def table_to_response(table: Mapping[str, Any]) -> pb.SolveTableResponse:
    """A SolveTableResponse for ddcards.ddtable.dd_table's result (Klaverjas: ``values`` by suit
    and team; Mariáš: ``entries``, one per discard x contract, best first)."""
    msg = pb.SolveTableResponse(game_name=table["game"], game=name_to_enum(pb.Game, table["game"]),
                                rules=str(table.get("rules", "")), leader=int(table.get("leader", 0)),
                                nodes=int(table.get("nodes", 0)),
                                elapsed_seconds=float(table.get("elapsed_ms", 0.0)) / 1000.0)
    # both forms, as the proto promises of a response (and as a request takes them back); with the
    # rest, what each row's own position is made of (row_position)
    msg.hands.extend(pb.Cards(notation=hand, cards=[card_message(str(c)) for c in parse_hand(hand)])
                     for hand in table.get("hands", ()))
    if "entries" in table:
        for name, value in (table.get("options") or {}).items():
            msg.options[name].CopyFrom(python_to_option(value))
        if table.get("talon"):
            msg.talon.CopyFrom(pb.Cards(notation=table["talon"],
                                        cards=[card_message(c) for c in table["talon"].split()]))
        msg.flek = int(table.get("flek", 0))
        msg.players = int(table.get("players", 3))
        for i, row in enumerate(table["entries"]):
            entry = msg.entries.add(value=int32(row["value"], "entries.value", i),
                                    money=int32(row["money"], "entries.money", i),
                                    contract_name=row["contract"], contract=name_to_enum(pb.Contract, row["contract"]),
                                    announcements=list(row["announcements"]), value_kind=row["value_kind"],
                                    won=bool(row["won"]))
            entry.discard.CopyFrom(pb.Cards(notation=row["discard"],
                                            cards=[card_message(c) for c in row["discard"].split()]))
            if row.get("trump"):
                entry.trump = SUIT_BY_LETTER[row["trump"]]
        return msg
    for suit, values in table["values"].items():
        for team, value in enumerate(values):
            msg.entries.add(trump=SUIT_BY_LETTER[suit], playing_team=team, value=int32(value, "values", f"{suit}{team}"))
    return msg


def table_response_to_dict(msg: pb.SolveTableResponse) -> dict[str, Any]:
    """The dd_table-shaped dict of a SolveTableResponse."""
    common = {"game": msg.game_name, "nodes": msg.nodes, "elapsed_ms": round(msg.elapsed_seconds * 1000, 3)}
    if msg.game == pb.GAME_MARIAS or msg.game_name == "marias":
        entries = [{"discard": entry.discard.notation, "contract": entry.contract_name,
                    "trump": SUIT_LETTERS[entry.trump] if entry.trump else None,
                    "announcements": list(entry.announcements), "value": entry.value,
                    "value_kind": entry.value_kind, "won": entry.won, "money": entry.money}
                   for entry in msg.entries]
        return {**common, "hands": [h.notation for h in msg.hands],
                "talon": msg.talon.notation if msg.HasField("talon") else None, "flek": msg.flek,
                "players": msg.players, "options": {name: option_value(value) for name, value in
                                                    sorted(msg.options.items()) if value.WhichOneof("kind")},
                "entries": entries}
    values: dict[str, list[int]] = {}
    for entry in msg.entries:
        row = values.setdefault(SUIT_LETTERS[entry.trump], [0, 0])
        row[entry.playing_team] = entry.value
    return {**common, "hands": [h.notation for h in msg.hands], "rules": msg.rules, "leader": msg.leader,
            "values": values}


def step_message(step: Any) -> pb.AnalysisStep:
    """An AnalysisStep message for a ``ddcards.AnalysisStep``."""
    msg = pb.AnalysisStep(
        ply=int(step.ply),
        seat=int(step.seat),
        value_before=int32(step.value_before, "value_before", step.ply),
        value_after=int32(step.value_after, "value_after", step.ply),
        best_moves=[action_message(str(m)) for m in step.best_moves],
        cost=int32(step.cost, "cost", step.ply),
        mistake=bool(step.mistake),
        outcome=str(getattr(step, "outcome", "") or ""),
        changes_outcome=bool(getattr(step, "changes_outcome", False)),
        score=_int_map(getattr(step, "score", None), "score"),
    )
    msg.move.CopyFrom(action_message(str(step.move)))
    winner = getattr(step, "trick_winner", None)
    if winner is not None:
        msg.trick_winner = int32(winner, "trick_winner", step.ply)
    for name in ("distance", "best_distance"):
        value = getattr(step, name, None)
        if value is not None:
            setattr(msg, name, int32(value, name, step.ply))
    _add_moves(msg.moves, getattr(step, "moves", ()))
    return msg


def analysis_to_response(analysis: Any, *, game: str = "") -> pb.AnalysePlayResponse:
    """An AnalysePlayResponse for a ``ddcards.Analysis``."""
    game = game or str(getattr(analysis, "game", "") or "")
    steps = list(getattr(analysis, "steps", ()))
    mistakes = getattr(analysis, "mistakes", None)
    if mistakes is None:
        mistakes = [s for s in steps if s.mistake]
    msg = pb.AnalysePlayResponse(
        game_name=game,
        game=name_to_enum(pb.Game, game),
        initial_value=int32(analysis.initial_value, "initial_value"),
        final_value=int32(analysis.final_value, "final_value"),
        steps=[step_message(s) for s in steps],
        mistakes=[step_message(s) for s in mistakes],
        nodes=int(getattr(analysis, "nodes", 0) or 0),
        elapsed_seconds=float(getattr(analysis, "elapsed", 0.0) or 0.0),
        value_kind=str(getattr(analysis, "value_kind", "") or ""),
        value_owner=str(getattr(analysis, "value_owner", "") or ""),
        value_meaning=str(getattr(analysis, "value_meaning", "") or ""),
        from_ply=int(getattr(analysis, "from_ply", 0) or 0),
        initial_outcome=str(getattr(analysis, "initial_outcome", "") or ""),
        final_outcome=str(getattr(analysis, "final_outcome", "") or ""),
        outcome_mistakes=[int(s.ply) for s in getattr(analysis, "outcome_mistakes", ())],
    )
    final = getattr(analysis, "final", None)
    if final is not None:
        msg.final.CopyFrom(result_to_response(final, mode=getattr(analysis, "mode", "optimal"), game=game))
    extra = _extra_struct(analysis, _ANALYSIS_KNOWN)
    if extra is not None:
        msg.extra.CopyFrom(extra)
    return msg


def game_info_to_message(info: Any) -> pb.GameInfo:
    """A GameInfo message for a ``ddcards.GameInfo``."""
    objectives = dict(getattr(info, "objectives", None) or {})
    msg = pb.GameInfo(
        name=info.name,
        game=name_to_enum(pb.Game, info.name),
        title=str(getattr(info, "title", "") or ""),
        seats=[int(s) for s in (getattr(info, "seats", None) or ())],
        aliases=[str(a) for a in (getattr(info, "aliases", None) or ())],
        sides=[str(s) for s in (getattr(info, "sides", None) or ())],
        value_doc=str(getattr(info, "value_doc", "") or ""),
    )
    for contract in getattr(info, "contracts", None) or ():
        msg.contracts.add(
            name=str(contract),
            contract=name_to_enum(pb.Contract, str(contract)),
            objectives=[str(o) for o in objectives.get(contract, ())],
        )
    for key, names in objectives.items():
        msg.objectives[str(key)].names.extend(str(n) for n in names)
    for opt in getattr(info, "options", None) or ():
        entry = msg.options.add(
            name=str(opt.name),
            type=_type_name(getattr(opt, "type", "")),
            description=str(getattr(opt, "description", "") or ""),
        )
        default = getattr(opt, "default", None)
        if default is not None:
            entry.default_value.CopyFrom(python_to_option(default))
        # As `ddcards games --json`: the choices of every option, the range of a whole-number one.
        entry.choices.extend(str(c) for c in (getattr(opt, "choices", None) or ()))
        if entry.type == "int":
            for bound in ("minimum", "maximum"):
                value = getattr(opt, bound, None)
                if value is not None:
                    setattr(entry, bound, int(value))
    return msg


def _type_name(value: Any) -> str:
    if isinstance(value, type):
        return value.__name__
    return str(value or "")


def games_to_response(games: Iterable[Any], *, version: str = "") -> pb.ListGamesResponse:
    return pb.ListGamesResponse(
        games=[game_info_to_message(g) for g in games],
        modes=[pb.SOLVE_MODE_BEST, pb.SOLVE_MODE_OPTIMAL, pb.SOLVE_MODE_ALL],
        server_version=version,
    )
