"""ddcards games and ddcards examples."""
from __future__ import annotations

import argparse
import json

import ddcards
from ddcards.cli.status import EXIT_OK


def cmd_games(args: argparse.Namespace) -> int:
    # one game by any name a document may give it; an unknown one is named with the games there are
    games = [ddcards.find_game(args.game)] if args.game is not None else ddcards.list_games()
    if args.json:
        print(json.dumps([{
            "name": g.name, "title": g.title, "seats": list(g.seats), "contracts": list(g.contracts),
            "objectives": {k: list(v) for k, v in g.objectives.items()}, "aliases": list(g.aliases),
            "sides": list(g.sides), "value_doc": g.value_doc,
            "options": [{"name": o.name, "type": o.type, "default": o.default, "description": o.description,
                         "choices": list(o.choices),
                         **({"minimum": o.minimum, "maximum": o.maximum} if o.type == "int" else {})}
                        for o in g.options],
        } for g in games], ensure_ascii=False, indent=2))
        return EXIT_OK
    for g in games:
        print(f"{g.name}: {g.title} ({'/'.join(map(str, g.seats))} players)")
        for contract in g.contracts:
            aims = g.objectives[contract]
            # one objective: nothing to choose (Klaverjas's documents take no 'objective' field)
            what = f"objectives: {', '.join(aims)}" if len(aims) > 1 else f"solved for {aims[0]}"
            print(f"  contract {contract:<6} {what}")
        for o in g.options:
            choices = f" [{'|'.join(o.choices)}]" if o.choices else ""
            kind = f"{o.type} {o.minimum}..{o.maximum}" if o.type == "int" else o.type
            # as a document writes the value (true, null, "defenders")
            print(f"  option {o.name} ({kind}, default {json.dumps(o.default, ensure_ascii=False)}){choices}: "
                  f"{o.description}")
        if g.value_doc:
            print(f"  value: {g.value_doc}")
    return EXIT_OK


def cmd_examples(args: argparse.Namespace) -> int:
    if args.name:
        print(json.dumps(ddcards.example(args.name), ensure_ascii=False))
    else:
        for name in ddcards.example_names():
            print(name)
    return EXIT_OK
