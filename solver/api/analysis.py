"""Solver.analyse's work: the value before and after every recorded action, each step as it is
analysed, and a stop (a timeout, a cancel, Ctrl-C) that keeps the steps finished."""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from ddcards._core.search import CancelToken
from ddcards.api.moves import MODE_CODE, move_values
from ddcards.errors import DdcardsError, SearchAborted, SearchTimeout
from ddcards.games import _search_budget
from ddcards.position import Position
from ddcards.result import Analysis, AnalysisProgress, AnalysisStep, Mode, MoveValue

if TYPE_CHECKING:
    from ddcards.api.solver import Solver


def analyse_record(solver: Solver, pos: Position, *, timeout: float | None, cancel: CancelToken | None, mode: Mode,
                   threads: int, from_ply: int, on_step: Callable[[AnalysisStep], object] | None) -> Analysis:
    """Solver.analyse with `solver`, its arguments checked; the Solver's analysis_now follows it."""
    progress = AnalysisProgress(analysed=0, actions=len(pos.played) - from_ply, from_ply=from_ply)
    solver._analysing = progress
    start = time.perf_counter()
    deadline = _search_budget.deadline(timeout)
    first = pos.start()
    session = first.session()
    value_kind = session.value_kind
    # sized for the first position searched: the longest search of the analysis
    solver._fit_table(pos._with_played(list(pos.played[:from_ply])), timeout=timeout)
    solver._searcher.clear()
    nodes = 0
    # Each further thread follows the play on a session of its own.
    helpers = solver._helper_searchers(threads)
    helper_sessions = [first.session() for _ in helpers]

    def remaining() -> float | None:
        return _search_budget.time_left(deadline, "the analysis ran out of time")

    def solve_here() -> tuple[int, list[MoveValue]]:
        nonlocal nodes
        with solver._watched(session), solver._counted():
            value, raw, _, n = session.search(
                solver._searcher, MODE_CODE[mode], cancel, remaining(), want_pv=False,
                helpers=[(helper, other.board) for helper, other in zip(helpers, helper_sessions)])
        nodes += n
        return value, move_values(session, raw, value, mode)

    def outcome(value: int) -> str:
        # the game's own words on a value here ("declarer wins", "nat: ...")
        return session.verdict(report(value), session.summary((), value).won, value_kind)

    def outcome_here(value: int) -> str:
        # the words for where the analysis starts or ends: how a game over ended, as the command
        # line's solve and analyse say it (Prší: "the game is over: seat 1 went out first", not
        # what can be forced within a horizon), else the verdict on the value
        ended = getattr(session, "ended", None)
        return (ended() if ended is not None else None) or outcome(value)

    report = session.reported
    steps: list[AnalysisStep] = []
    for move in pos.played[:from_ply]:
        session.play(move)
        for other in helper_sessions:
            other.play(move)
    # the first position analysed as a viewer lays it out (the deal as dealt, from ply 0)
    deal = dict(session.view(), position=pos.to_dict())
    try:
        value, moves = solve_here()
    except (SearchAborted, KeyboardInterrupt) as exc:
        raise _analysis_stopped(exc, nodes, progress, steps, None) from None
    except DdcardsError as exc:
        # the first position analysed cannot be solved as asked, though the document's own
        # position may (Prší without a horizon): say which position it was, as for any later step
        raise _at_start(exc, from_ply) if from_ply < len(pos.played) else exc from None
    initial, initial_outcome = value, outcome_here(value)
    progress = replace(progress, value=report(value))
    solver._analysing = progress
    value_outcome = outcome(value)

    def so_far(final_outcome: str) -> Analysis:
        """The analysis of the steps finished, up to the value before the next recorded action
        (`final_outcome`: the words on that value, said before the session played the action)."""
        return Analysis(game=pos.game, value_kind=value_kind, initial_value=report(initial),
                        final_value=report(value), steps=list(steps), nodes=nodes,
                        elapsed=time.perf_counter() - start, mode=mode, deal=deal,
                        initial_outcome=initial_outcome, final_outcome=final_outcome, from_ply=from_ply)
    for ply in range(from_ply, len(pos.played)):
        move = pos.played[ply]
        seat = session.to_move
        best = [m.move for m in moves if m.optimal]
        session.play(move)
        for other in helper_sessions:
            other.play(move)
        try:
            following, next_moves = solve_here()
            # The action's value in the search before it (Prší: within the same horizon).
            with solver._counted():
                after, n = session.action_value(solver._searcher, value, session.history[-1] in best,
                                                following, cancel, remaining())
        except (SearchAborted, KeyboardInterrupt) as exc:
            # (the session has played the action: the words on the value before it are those
            # said before it, not "the game is over" of an action that ended the game)
            raise _analysis_stopped(exc, nodes, progress, steps, so_far(value_outcome)) from None
        except DdcardsError as exc:
            # a position on the way that cannot be solved as asked (Prší without a horizon):
            # say which, as the document's own position and the deal's may solve
            raise _at_step(exc, ply, session.history[-1]) from None
        nodes += n
        after_outcome = outcome(after)
        cost = report(value) - report(after) if session.is_max(seat) else report(after) - report(value)
        done = session.trick_done()         # its winner leads next
        steps.append(AnalysisStep(
            ply=ply, seat=seat, move=session.history[-1], value_before=report(value),
            value_after=report(after), best_moves=best, cost=cost, mistake=cost > 0,
            # (the words may also change with what the action settles at no cost, e.g. Prší's
            # "seat 3 went out first" for a -1 that was already forced: not a turn)
            changes_outcome=cost > 0 and after_outcome != value_outcome, outcome=after_outcome,
            moves=moves if mode is Mode.ALL else [],
            trick_winner=session.to_move if done else None, score=session.scores_now(),
            distance=session.distance(after), best_distance=session.distance(value)))
        progress = replace(progress, analysed=len(steps), value=report(following))
        solver._analysing = progress
        if on_step is not None:
            try:
                on_step(steps[-1])
            except BaseException as exc:
                # raised as it is, but told apart from the analysis's own stop: a SearchTimeout
                # of a search made in the callback reads like this analysis's
                exc.add_note(f"raised by on_step, called with the step of ply {ply}: the analysis "
                             f"stopped there")
                raise
        value, moves, value_outcome = following, next_moves, outcome(following)
    # The final solve from the analysis's owner's view (Prší: P at the deal's start, where a
    # solve's own default P is the player to move after the last action).
    pos = pos._owned_by(session.owner_options())
    try:
        final = solver.solve(pos, mode=mode, timeout=remaining(), cancel=cancel, keep_tt=True, threads=threads)
    except (SearchAborted, KeyboardInterrupt) as exc:
        raise _analysis_stopped(exc, nodes, progress, steps, so_far(outcome_here(value))) from None
    nodes += final.nodes
    return Analysis(game=pos.game, value_kind=value_kind,
                    initial_value=report(initial), final_value=report(value), steps=steps, nodes=nodes,
                    elapsed=time.perf_counter() - start, mode=mode, deal=deal,
                    initial_outcome=initial_outcome, final_outcome=outcome_here(value), final=final,
                    from_ply=from_ply)


def _at_step(exc: DdcardsError, ply: int, move: str) -> DdcardsError:
    """`exc`, raised solving the position after played[ply], saying so (the same class, token,
    rule and field)."""
    return type(exc)(f"analysing the position after played[{ply}] '{move}': {exc}", token=exc.token, rule=exc.rule,
                     field=exc.field)


def _at_start(exc: DdcardsError, from_ply: int = 0) -> DdcardsError:
    """`exc`, raised solving the first position analysed (the deal's start, or the position
    before played[from_ply]), saying so (the same class, token, rule and field)."""
    where = "the deal's start (before played[0])" if from_ply == 0 else f"the position before played[{from_ply}]"
    return type(exc)(f"analysing {where}: {exc}", token=exc.token, rule=exc.rule, field=exc.field)


def _analysis_stopped(exc: SearchAborted | KeyboardInterrupt, nodes: int, progress: AnalysisProgress,
                      steps: list[AnalysisStep], so_far: Analysis | None) -> SearchAborted | KeyboardInterrupt:
    """The analysis's own SearchTimeout, SearchCancelled or KeyboardInterrupt (Ctrl-C) for `exc`,
    which stopped it where `progress` says: ``nodes`` and the message count every search of the
    analysis (`nodes` before the one that stopped, and that one's), ``steps`` the steps finished
    and ``analysis`` the analysis of those (`so_far`: None if the first value was not found), so
    that a long deal's work is not lost to a timeout or Ctrl-C.  With no recorded action to analyse
    the message says the value's search was stopped instead of "0 of the 0"."""
    total = nodes + getattr(exc, "nodes", 0)
    how = ("ran out of time" if isinstance(exc, SearchTimeout) else "was cancelled" if isinstance(exc, SearchAborted)
           else "was interrupted")
    if progress.actions:
        where = f"with {progress}"
    elif progress.from_ply:                 # "0 of the 0 actions" would say nothing: only the value was searched
        where = (f"in the search of the value after the record's last action (nothing from "
                 f"played[{progress.from_ply}] on)")
    else:
        where = "in the search of the deal's value (it records no play to analyse)"
    stopped = type(exc)(f"the analysis {how} after {total:,} nodes, {where}")
    stopped.nodes = total                       # type: ignore[union-attr]
    stopped.steps = list(steps)                 # type: ignore[union-attr]
    stopped.analysis = None if so_far is None else replace(so_far, nodes=total)   # type: ignore[union-attr]
    return stopped
