"""Call a running ddcards gRPC server from another program.

Start a server first (``python -m ddcards.server`` or ``ddcards serve``), then:

    python examples/client_example.py [--target 127.0.0.1:50051]

It lists the games, solves a Mariáš hand three ways (best / optimal / all),
analyses a short recorded play (whole, then step by step over a stream),
solves a few positions over one stream and
shows how a bad request is reported.
"""
from __future__ import annotations

import argparse
import math
import sys

import grpc

from ddcards.client import Client

# A Mariáš hra position (RULES.md §0): seat 0 declares hearts and leads.
POSITION = {
    "game": "marias",
    "hands": ["AKT.AKT9..A97", "QJ98.Q8.KQ.KQ", "7.J7.AJT7.JT8"],
    "talon": "8D 9D",
    "contract": "hra",
    "trump": "H",
}


def seconds(text: str) -> float:
    """A deadline in seconds: a number above 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds above 0")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default="127.0.0.1:50051", help="host:port of the server")
    parser.add_argument("--timeout", type=seconds, default=60.0, help="deadline of each call in seconds")
    args = parser.parse_args(argv)
    try:
        return ask(args.target, args.timeout)
    except grpc.RpcError as exc:
        if exc.code() != grpc.StatusCode.UNAVAILABLE:
            raise
        print(f"client_example.py: no ddcards server at {args.target} ({exc.details()}); start one with "
              "`ddcards serve`", file=sys.stderr)
        return 1


def ask(target: str, timeout: float) -> int:
    """Every call of the service, printed."""
    with Client(target, timeout=timeout) as client:
        for game in client.list_games():
            print(f"game {game['name']}: contracts {', '.join(game['contracts']) or '-'}; "
                  f"options {', '.join(o['name'] for o in game['options']) or '-'}")

        # Play three cards first: solving from the fourth card on keeps the example quick.
        position = dict(POSITION, played=["AS", "8S", "7S"])
        for mode in ("best", "optimal", "all"):
            result = client.solve(position, mode=mode)
            moves = ", ".join(f"{m['move']}={m['value']}" if m["value"] is not None else m["move"]
                              for m in result["moves"])
            print(f"[{mode}] value {result['value']} scores {result['scores']} "
                  f"optimal {result['optimal_moves']} moves {moves}")
        print("principal variation:", " ".join(result["pv"]))

        analysis = client.analyse(dict(POSITION, played=["AS", "8S", "7S", "KS", "9S", "7H"]))
        for step in analysis["steps"]:
            flag = f"  mistake, costs {step['cost']} (best {', '.join(step['best_moves'])})" if step["mistake"] else ""
            print(f"ply {step['ply']} seat {step['seat']} {step['move']}: "
                  f"{step['value_before']} -> {step['value_after']}{flag}")

        # The same as a stream: each step as soon as the server has analysed it (a long deal's
        # steps take minutes each), then the whole analysis.
        for event in client.analyse_stream(dict(POSITION, played=["AS", "8S", "7S", "KS"])):
            if "step" in event:
                print(f"streamed ply {event['step']['ply']}: {event['step']['value_after']}")
            else:
                print(f"streamed analysis: final value {event['analysis']['final_value']}")

        positions = [dict(POSITION, played=["AS", "8S", "7S"]), dict(POSITION, played=["AS", "9S", "7S"]),
                     dict(POSITION, hands=["ZZ" + POSITION["hands"][0]] + POSITION["hands"][1:])]
        for item in client.solve_many(positions, mode="best"):
            if "result" in item:
                print(f"stream item {item['index']}: value {item['result']['value']}")
            else:
                print(f"stream item {item['index']}: {item['error']['code']}: {item['error']['message']}")

        # The Mariáš contract table of the deal (its discard fixed): every contract, best first.
        table = client.solve_table(POSITION)
        best = table["entries"][0]
        announced = "".join(f" {a}" for a in best["announcements"])
        print(f"contract table: {len(table['entries'])} rows; best {best['contract']} {best['trump']}{announced}: "
              f"value {best['value']}, money {best['money']}")

        try:
            client.solve(dict(POSITION, played=["AS", "QH"]))       # seat 1 holds spades
        except grpc.RpcError as exc:
            print(f"bad request -> {exc.code().name}: {exc.details()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
