"""A Mariáš principal variation replayed in the plain reference (tests/reference/marias.py):
shared by the differential tests and the money tests."""
from __future__ import annotations

try:
    from tests.reference import marias as m
except ImportError:  # pytest put tests/ itself on sys.path
    from reference import marias as m


def check_line(doc, res, text):
    """Replay the solver's principal variation in the reference: one line of optimal play to
    the end of the deal (RULES.md §0; a decided Betl or Durch is played out too), with the
    scores, tricks, outcomes and settlement at its end (§1)."""
    state = m.from_doc(doc)
    for card in res.pv:
        state = state.play(card)                  # the reference refuses an illegal card
        assert m.minimax(state) == res.value, (card, res.pv, text)   # each card keeps the value
    assert state.over and state.value() == res.value, (res.pv, text)
    assert res.scores == state.scores(), (res.scores, text)
    assert res.tricks == {"declarer": state.declarer_tricks,
                          "defenders": state.tricks_done - state.declarer_tricks}, (res.tricks, text)
    won = state.part_won()
    if state.contract == "hra":
        assert res.outcomes == {"sedma": won["sedma"], "kilo": won["kilo"]}, (res.outcomes, text)
    # the settlement: the announced parts (or the objective money) as they end on the line,
    # else the objective solved alone (§1 Value, Variants)
    if doc.get("announcements") or state.objective == "money":
        money = state.money()
    else:
        part = state.objective if state.objective in m.ANNOUNCEMENTS else state.contract
        stakes = dict(m.stakes_of(state.contract, state.trump, [part] if part in m.ANNOUNCEMENTS else [],
                                  doc.get("options"), doc.get("flek", 0)))
        money = 2 * stakes[part] * (1 if won[part] else -1)
    assert res.settlement == m.settlement(money, doc.get("players", 3)), (res.settlement, money, text)
    assert res.won == (res.value > 0), text
    return state
