"""Use the ddcards Python API as the README shows it, with full type annotations.

    python examples/api_example.py [--server HOST:PORT]

It solves a Mariáš deal and reads the result, walks a Position card by card,
analyses a recorded deal, shows how bad input and a stopped search are
reported, reads hands and names in every notation, lists the games, and with
``--server`` asks a running ``ddcards serve`` (see docs/SERVICE.md) too.

The program passes ``mypy --strict``: the results, positions, errors and the
cancel token are typed (tests/test_typing.py checks it and runs it).
"""
from __future__ import annotations

import argparse
import sys

import grpc

import ddcards
from ddcards import Analysis, Card, Position, Result, Score, Suit, TrickCard


def solve_a_deal() -> Result:
    """Solve a whole deal: the value, every first card's value, the line and the score."""
    pos = Position.from_dict(ddcards.example("marias-hra"))
    res = ddcards.solve(pos, mode=ddcards.Mode.ALL)
    print(f"value {res.value:+d} ({res.value_kind}, the declarer's view); optimal: {' '.join(res.optimal_moves)}")
    for mv in res.moves:
        value = "?" if mv.value is None else f"{mv.value:+d}"
        print(f"  {mv.move} {value}{'  optimal' if mv.optimal else ''}")
    best: str | None = res.best_move
    print(f"best {best}; line {' '.join(res.pv[:6])} ...; scores {res.scores}; settlement {res.settlement}")
    return res


def walk_a_position() -> Position:
    """Play the first trick card by card, look at the table, and take a card back."""
    pos = Position.from_dict(ddcards.example("marias-hra"))
    for move in ("QH", "TH", "7S", "KS"):
        if move not in pos.legal_moves:
            raise SystemExit(f"{move} is not legal here: {pos.legal_moves}")
        pos = pos.play(move)
    print(pos)
    trick: tuple[TrickCard, ...] = pos.trick
    for seat, card in trick:
        print(f"  seat {seat} played the {card.rank.name.lower()} of {card.suit.name}")
    hands: tuple[tuple[Card, ...], ...] = pos.hands
    score: Score = pos.score
    print(f"to move: seat {pos.to_move}, {len(hands[pos.to_move or 0])} cards in hand; "
          f"points so far {score.points}, marriages {score.parts.get('marriages', {})}")
    earlier = pos.undo()
    assert earlier.ply == pos.ply - 1 and earlier.played == pos.played[:-1]
    return pos


def analyse_a_recorded_deal() -> Analysis:
    """Which recorded cards were mistakes, and what each cost (plies count from 0)."""
    an = ddcards.analyse(ddcards.example("marias-seed"))
    print(f"value at the start {an.initial_value:+d}, at the end {an.final_value:+d}")
    for step in an.mistakes:
        print(f"  ply {step.ply}: seat {step.seat} played {step.move} ({step.value_before:+d} -> "
              f"{step.value_after:+d}, cost {step.cost}); best {' '.join(step.best_moves)}")
    return an


def bad_input_and_stopped_searches() -> None:
    """Errors name the offending token and the rule; a stopped search is not bad input."""
    deal = ddcards.example("marias-hra")
    try:
        Position.from_dict(dict(deal, played=["QH", "7H"]))
    except ddcards.IllegalPlayError as exc:
        print(f"illegal: {exc}\n  token {exc.token!r}, rule {exc.rule!r}")
    try:
        Card.parse("ZH")
    except ddcards.DdcardsError as exc:
        print(f"bad card: token {exc.token!r}, rule {exc.rule!r}")
    engine = ddcards.Solver(tt_mb=8)
    token = ddcards.CancelToken()
    token.cancel()                       # from any thread; the search stops within a millisecond
    try:
        engine.solve(deal, cancel=token)
    except ddcards.SearchCancelled as exc:
        print(f"stopped: {exc} (cancelled: {token.cancelled})")
    print(f"with a deadline: value {engine.solve(deal, timeout=30.0, mode='best').value:+d}")


def notation() -> None:
    """Hands in the notation, the display form or as card lists; native names of suits and ranks."""
    hand = ddcards.parse_hand("S: AT  H: AKQ9  D: AT  C: 87")
    assert hand == ddcards.parse_hand("AT.AKQ9.AT.87")
    assert set(hand) == set(ddcards.parse_hand("AS TS AH KH QH 9H AD TD 8C 7C"))
    print(ddcards.format_hand(hand), "|", ddcards.format_hand(hand, style="display"))
    trump: Suit = Suit.parse("klaveren")
    jack: ddcards.Rank = ddcards.Rank.parse("boer")
    print(f"klaveren is {trump} ({trump.symbol}); boer is {jack}")


def games() -> None:
    for info in ddcards.list_games():
        options = ", ".join(f"{o.name} ({o.type}, default {o.default!r})" for o in info.options) or "none"
        print(f"{info.name}: {info.title}; contracts {', '.join(info.contracts) or '-'}; options {options}")


def ask_server(target: str) -> int:
    """The same questions over gRPC (a server must be running at `target`)."""
    from ddcards.client import Client

    with Client(target, timeout=60.0) as client:
        try:
            result = client.solve(ddcards.example("marias-hra"), mode="best")
        except grpc.RpcError as exc:
            if exc.code() != grpc.StatusCode.UNAVAILABLE:
                raise
            raise SystemExit(f"api_example.py: no ddcards server at {target} ({exc.details()}); "
                             "start one with `ddcards serve`") from None
        assert isinstance(result, dict)          # as_dict=True (the default): the result document
        value: int = result["value"]
        print(f"server: value {value:+d}, best {result['optimal_moves']}")
        try:
            client.solve(dict(ddcards.example("marias-hra"), played=["QH", "7H"]))
        except grpc.RpcError as exc:
            print(f"server: {exc.code().name}: {exc.details()}")
            return value
    raise SystemExit("the server accepted an illegal card")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--server", metavar="HOST:PORT", help="also ask a running ddcards server")
    args = parser.parse_args(argv)
    res = solve_a_deal()
    walk_a_position()
    analyse_a_recorded_deal()
    bad_input_and_stopped_searches()
    notation()
    games()
    if args.server:
        if ask_server(args.server) != res.value:
            raise SystemExit("the server and the library disagree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
