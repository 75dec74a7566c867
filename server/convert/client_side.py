"""Response messages -> plain dicts, as the Python client returns them (the same shapes as the
library's to_dict())."""
from __future__ import annotations

from typing import Any

from google.protobuf import json_format

from ddcards.server.convert.responses import move_dicts
from ddcards.server.convert.scalars import MODE_NAMES, option_value
from ddcards.v1 import ddcards_pb2 as pb


def _action_text(action: pb.Action) -> str:
    return action.notation


def response_to_dict(msg: pb.SolveResponse) -> dict[str, Any]:
    """A SolveResponse as a plain dict shaped like the solver's result document."""
    out: dict[str, Any] = {
        "game": msg.game_name,
        "mode": MODE_NAMES.get(msg.mode, "all"),
        "value": msg.value,
        "value_kind": msg.value_kind,
        "value_owner": msg.value_owner,
        "value_meaning": msg.value_meaning,
        "scores": dict(sorted(msg.scores.items())),   # map order is unspecified in protobuf
        "tricks": dict(sorted(msg.tricks.items())),
        "won": msg.won,
        "settlement": list(msg.settlement),
        "to_move": msg.to_move if msg.HasField("to_move") else None,
        "distance": msg.distance if msg.HasField("distance") else None,
        "horizon": msg.horizon if msg.HasField("horizon") else None,
        "optimal_moves": [_action_text(a) for a in msg.optimal_moves],
        "moves": move_dicts(msg.moves),
        "pv": [_action_text(a) for a in msg.principal_variation],
        "outcomes": dict(sorted(msg.outcomes.items())),
        "nodes": msg.nodes,
        "elapsed_ms": round(msg.elapsed_seconds * 1000, 3),
    }
    if msg.parts:                   # as the result document: only for a game settled by parts
        out["parts"] = {name: {"won": p.won, "stake": p.stake, "money": p.money}
                        for name, p in sorted(msg.parts.items())}
    if msg.HasField("extra"):
        out.update(_whole_numbers(json_format.MessageToDict(msg.extra)))
    return out


def _whole_numbers(value: Any) -> Any:
    """A Struct's numbers as the document has them: a Struct holds every number as a double,
    so a stake of 4 came back 4.0."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _whole_numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_whole_numbers(v) for v in value]
    return value


def step_dict(step: pb.AnalysisStep) -> dict[str, Any]:
    """An AnalysisStep message as the step of an analysis document (``AnalysisStep.to_dict()``)."""
    return {
        "ply": step.ply,
        "seat": step.seat,
        "move": step.move.notation,
        "value_before": step.value_before,
        "value_after": step.value_after,
        "best_moves": [_action_text(a) for a in step.best_moves],
        "cost": step.cost,
        "mistake": step.mistake,
        "changes_outcome": step.changes_outcome,
        "outcome": step.outcome,
        "moves": move_dicts(step.moves),
        "trick_winner": step.trick_winner if step.HasField("trick_winner") else None,
        "score": dict(sorted(step.score.items())),
        "distance": step.distance if step.HasField("distance") else None,
        "best_distance": step.best_distance if step.HasField("best_distance") else None,
    }


def analysis_response_to_dict(msg: pb.AnalysePlayResponse) -> dict[str, Any]:
    out: dict[str, Any] = {
        "game": msg.game_name,
        "value_kind": msg.value_kind,
        "value_owner": msg.value_owner,
        "value_meaning": msg.value_meaning,
        "initial_value": msg.initial_value,
        "final_value": msg.final_value,
        "steps": [step_dict(s) for s in msg.steps],
        "mistakes": [s.ply for s in msg.mistakes],      # their plies, as the analysis document lists them
        "nodes": msg.nodes,
        "elapsed_ms": round(msg.elapsed_seconds * 1000, 3),
        "initial_outcome": msg.initial_outcome,
        "final_outcome": msg.final_outcome,
        "outcome_mistakes": list(msg.outcome_mistakes),
        "final": response_to_dict(msg.final) if msg.HasField("final") else None,
        "from_ply": msg.from_ply,
    }
    if msg.HasField("extra"):
        out.update(_whole_numbers(json_format.MessageToDict(msg.extra)))
    return out


def _option_info_dict(o: pb.OptionInfo) -> dict[str, Any]:
    """An OptionInfo as `ddcards games --json` lists an option: ``minimum`` and ``maximum``
    only where the server set them (whole-number options; a server before them sets none)."""
    out: dict[str, Any] = {"name": o.name, "type": o.type, "default": option_value(o.default_value),
                           "description": o.description, "choices": list(o.choices)}
    for bound in ("minimum", "maximum"):
        if o.HasField(bound):
            out[bound] = getattr(o, bound)
    return out


def games_response_to_list(msg: pb.ListGamesResponse) -> list[dict[str, Any]]:
    return [
        {
            "name": g.name,
            "title": g.title,
            "seats": list(g.seats),
            "contracts": [c.name for c in g.contracts],
            "objectives": {k: list(v.names) for k, v in g.objectives.items()},
            "options": [_option_info_dict(o) for o in g.options],
            "aliases": list(g.aliases),
            "sides": list(g.sides),
            "value_doc": g.value_doc,
        }
        for g in msg.games
    ]
