"""Prší without a horizon: exact values (docs/RULES.md §4.9, ``options.horizon: null``).

Play can go on for ever, so "exact" needs a proof.  A forced end is proven by searching ever
longer horizons: the shortest one that shows it gives the end exactly (the winner can force it no
sooner, the loser delay it no longer).  Where no end is forced within EXACT_PROOF_HORIZON plies,
the whole game reachable from the position is built breadth first and solved backwards
(``retrograde``), which proves a draw; past EXACT_STATE_CAP states the analysis gives up
(``Unproven``), and the session says so in words (``prsi.PrsiSession``).

Values are coded EXACT_WIN - d for a win in d plies, its negative for a loss, 0 for a draw.
"""
from __future__ import annotations

import time
from collections import deque
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ddcards.errors import SearchCancelled, SearchTimeout
from ddcards.games import _prsi, _search_budget

if TYPE_CHECKING:
    from ddcards.games.prsi import PrsiSession

__all__ = ["EXACT_WIN", "EXACT_STATE_CAP", "EXACT_PROOF_HORIZON", "Unproven", "exact_solve", "exact_graph",
           "retrograde", "decode", "decode_exact"]

#: The most states the exact analysis (``horizon: null``) explores before it gives up.
EXACT_STATE_CAP = 200_000
#: Past the cap, the longest horizon searched to prove a forced end exactly.
EXACT_PROOF_HORIZON = 30
# The exact analysis codes a win in d plies as EXACT_WIN - d (a loss: its negative).
EXACT_WIN = 20000


class _TooBig(Exception):
    """The reachable game has more states than the exact analysis explores."""


class Unproven(Exception):
    """No forced end within EXACT_PROOF_HORIZON plies (after `action`, if set: the value of that
    action was asked) and a reachable game of more than EXACT_STATE_CAP states to solve backwards."""

    def __init__(self, action: str | None = None):
        super().__init__(action)
        self.action = action


class _NoProof(Unproven):
    """No forced end within the proof horizon (after `action`, if set): the whole game is tried next."""


def exact_solve(session: PrsiSession, searcher: Any, mode: int, cancel: Any = None, timeout: float | None = None,
                want_pv: bool = True, value_only: bool = False,
                ) -> tuple[int, list[tuple[int, int | None]], list[int], int]:
    """Solve without a horizon (docs/RULES.md §4.9); returns what Searcher.solve returns.

    Values are coded EXACT_WIN - d for a win in d plies, its negative for a loss, 0 for a draw
    (no side can force an end, ever).  A forced end is proven by searching ever longer horizons,
    up to EXACT_PROOF_HORIZON plies; where that proves nothing (the root, or an action whose value
    is asked), the whole reachable game is solved backwards (``retrograde``) if it has at most
    EXACT_STATE_CAP states; else Unproven.
    """
    deadline = _search_budget.deadline(timeout)
    try:
        return _exact_by_deepening(session, searcher, mode, cancel, deadline, want_pv, value_only)
    except _NoProof as exc:
        action = exc.action
    try:
        setup = session.setup
        return exact_graph(session.board.pack(), setup.seats, setup.play_on, setup.comeback, session.player,
                           cancel, deadline, setup.not_last)
    except _TooBig:
        raise Unproven(action) from None


def _first_forced(session: PrsiSession, searcher: Any, first: int, cancel: Any,
                  deadline: float | None) -> tuple[int, int, int]:
    """(value, horizon, nodes): the shortest horizon from `first` up that shows a forced end.

    A forced end within h plies is forced exactly so: the winner cannot do faster (h - 1 showed
    nothing), the loser cannot hold out longer (every line of his ends by then)."""
    nodes = 0
    for horizon in range(first, EXACT_PROOF_HORIZON + 1):
        session.board.set_search(session.player, horizon)
        raw = searcher.value(session.board, cancel, _search_budget.time_left(deadline))
        nodes += searcher.nodes
        if raw:
            return raw, horizon, nodes
        if session.board.ply + horizon >= _prsi.MAX_HISTORY:
            # The window reaches the history's limit, after which no action follows (§4.1):
            # nothing forced before it is nothing forced at all.
            return 0, horizon, nodes
    raise _NoProof


def _exact_by_deepening(session: PrsiSession, searcher: Any, mode: int, cancel: Any, deadline: float | None,
                        want_pv: bool, value_only: bool) -> tuple[int, list[tuple[int, int | None]], list[int], int]:
    raw, horizon, nodes = _first_forced(session, searcher, 1, cancel, deadline)
    if value_only:
        return _exact_code(raw, horizon), [], [], nodes
    value, moves, pv, n = searcher.solve(session.board, mode, cancel, _search_budget.time_left(deadline),
                                         want_pv=want_pv)
    nodes += n
    exact_moves: list[tuple[int, int | None]] = []
    for move, v in moves:
        if v == 0:
            # No end forced within `horizon` after it: look further from its own position.
            session.board.play(move)
            try:
                v, h, n = _first_forced(session, searcher, horizon, cancel, deadline)
            except _NoProof:
                raise _NoProof(session.move_name(move)) from None
            finally:
                session.board.undo()
            nodes += n
            exact_moves.append((move, _exact_code(v, h + 1)))
        else:
            exact_moves.append((move, None if v is None else _exact_code(v, horizon)))
    return _exact_code(value, horizon), exact_moves, pv, nodes


def _exact_code(raw: int, horizon: int) -> int:
    """A value coded for a horizon (an end at ply d: ±(horizon + 1 - d)) as the exact analysis codes it."""
    if raw > 0:
        return EXACT_WIN - (horizon + 1 - raw)
    if raw < 0:
        return -(EXACT_WIN - (horizon + 1 + raw))
    return 0


def exact_graph(root: bytes, seats: int, play_on: bool, comeback: bool, player: int, cancel: Any = None,
                deadline: float | None = None,
                not_last: bool = False) -> tuple[int, list[tuple[int, int | None]], list[int], int]:
    """The whole game reachable from `root` (PrsiBoard.pack's bytes), breadth first, solved backwards:
    (value, [(move, value)], line, states) coded as exact_solve says.  Raises _TooBig past the cap."""
    board = _prsi.PrsiBoard([0] * seats, [], 0, 0, play_on, comeback, not_last=not_last)
    index = {root: 0}
    states = [root]
    succ: list[list[tuple[int, int]]] = []
    settled: list[int] = []              # P's outcome where settled (+1 / -1), else 0
    todo = deque([0])
    while todo:                          # breadth first: states leave the queue in index order
        i = todo.popleft()
        if (i & 1023) == 0:
            _check_stop(cancel, deadline)
        board.load(states[i])
        board.set_search(player, 1)
        outcome = board.settled()
        settled.append(outcome)
        edges: list[tuple[int, int]] = []
        if not outcome:
            for move in board.legal_moves():
                board.play(move)
                packed = board.pack()
                board.undo()
                j = index.get(packed)
                if j is None:
                    if len(states) >= EXACT_STATE_CAP:
                        raise _TooBig
                    j = index[packed] = len(states)
                    states.append(packed)
                    todo.append(j)
                edges.append((move, j))
        succ.append(edges)
    value = retrograde(succ, settled, [_mover(s) == player for s in states])
    pv: list[int] = []
    seen = {0}
    at = 0
    while succ[at] and len(pv) < 200:
        step = next(((m, j) for m, j in succ[at] if _follows(value[j], value[at])), None)
        if step is None:
            break
        pv.append(step[0])
        at = step[1]
        if at in seen:                   # a drawn line goes round: stop where it repeats
            break
        seen.add(at)
    # A move's value is that of the whole line from the root: its position's, one ply later.
    return value[0], [(move, _one_ply_later(value[j])) for move, j in succ[0]], pv, len(states)


def _one_ply_later(value: int) -> int:
    return value - 1 if value > 0 else value + 1 if value < 0 else 0


def decode(value: int, scale: int) -> tuple[int, int | None]:
    """(outcome, plies) of a search value: a win in n plies is coded scale - n, a loss n - scale
    (scale: the horizon + 1, or EXACT_WIN for the exact analysis); (0, None) where no end is forced."""
    if value > 0:
        return 1, scale - value
    if value < 0:
        return -1, scale + value
    return 0, None


def decode_exact(value: int) -> tuple[int, int | None]:
    """(outcome, plies) of a value coded by the exact analysis; (0, None) for a draw."""
    return decode(value, EXACT_WIN)


def _follows(child: int, parent: int) -> bool:
    """Is a move to a child of this value on an optimal line from a parent of that value?"""
    if parent == 0:
        return child == 0
    return child == parent + (1 if parent > 0 else -1)


def _mover(packed: bytes) -> int:
    return packed[4]


def _check_stop(cancel: Any, deadline: float | None) -> None:
    if cancel is not None and cancel.cancelled:
        raise SearchCancelled("the exact analysis was cancelled")
    if deadline is not None and time.monotonic() > deadline:
        raise SearchTimeout("the exact analysis ran out of time")


def retrograde(succ: Sequence[Sequence[tuple[int, int]]], settled: Sequence[int], max_moves: Sequence[bool]) -> list[int]:
    """Values of a game graph, coded as exact_solve says: settled states are worth their outcome at
    distance 0; a state whose mover has a move to a win for him wins one ply later than the
    fastest such win, one whose every move loses loses one ply after the slowest; the rest draw."""
    n = len(succ)
    pred: list[list[int]] = [[] for _ in range(n)]
    for i, edges in enumerate(succ):
        for _, j in edges:
            pred[j].append(i)
    value = [0] * n
    left = [len(e) for e in succ]
    frontier = [i for i in range(n) if settled[i]]
    for i in frontier:
        value[i] = settled[i] * EXACT_WIN
    dist = 0
    while frontier:
        dist += 1
        new = []
        for j in frontier:
            good_for_p = value[j] > 0
            for i in pred[j]:
                if value[i] or settled[i]:
                    continue
                if good_for_p == max_moves[i]:
                    value[i] = (EXACT_WIN - dist) * (1 if good_for_p else -1)
                    new.append(i)
                else:
                    left[i] -= 1
                    if left[i] == 0:
                        value[i] = (EXACT_WIN - dist) * (1 if good_for_p else -1)
                        new.append(i)
        frontier = new
    return value
