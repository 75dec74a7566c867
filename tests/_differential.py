"""What every differential test compares: the solver's answer for a position against the plain
reference's (tests/reference/<game>.py), given as {"value", "moves": {action: value}, "to_move"}."""
from __future__ import annotations

from typing import Any

import ddcards


def assert_answers(doc: dict[str, Any], expected: dict[str, Any], text: str) -> ddcards.Result:
    """The position's side to move and legal actions, then the solver's value, each action's value
    and the optimal actions (mode "all"), each as the reference has them; returns the Result so
    that the caller can follow its line. `text` names the position in a failure."""
    pos = ddcards.Position.from_dict(doc)
    assert pos.to_move == expected["to_move"], text
    assert sorted(pos.legal_moves) == sorted(expected["moves"]), text
    res = ddcards.solve(pos, mode="all")
    assert res.to_move == expected["to_move"], text
    assert res.value == expected["value"], text
    assert {mv.move: mv.value for mv in res.moves} == expected["moves"], text
    optimal = {action for action, value in expected["moves"].items() if value == expected["value"]}
    assert set(res.optimal_moves) == optimal, text
    return res
