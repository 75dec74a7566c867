"""ddcards table: a deal's DD table (Klaverjas) or contract table (Mariáš)."""
from __future__ import annotations

import argparse
import sys
from typing import Any

from ddcards._jsonio import printable, read_position
from ddcards.batch.reader import Entry
from ddcards.cli.display import display_hand, print_marias_table, signed
from ddcards.cli.documents import for_each_document, header, located, record
from ddcards.cli.searches import foreground, new_solver
from ddcards.cli.streams import Input


def cmd_table(args: argparse.Namespace) -> int:
    from ddcards._jsonio import shown
    from ddcards.ddtable import available_threads, chosen_fields, dd_table

    engine = new_solver(args)
    threads = min(8, available_threads()) if args.threads is None else args.threads
    noted = False       # --all said to change nothing for a Klaverjas table

    def show(answer: tuple[dict[str, Any], dict[str, Any]], entry: Entry, source: Input) -> None:
        table, given = answer
        if given:                   # not an error (a position's document serves), but not silently dropped either
            fields = ", ".join(f"{name} {shown(value)}" for name, value in given.items())
            print(printable(f"ddcards: note: {located(entry, source)}the table chooses "
                            f"{'this' if len(given) == 1 else 'these'} itself, row by row: the document's {fields} "
                            f"{'is' if len(given) == 1 else 'are'} not used"), file=sys.stderr, flush=True)
        nonlocal noted
        if args.all and table["game"] != "marias" and not noted:      # said once, not dropped without a word
            noted = True
            print(f"ddcards: note: --all lists every discard of a Mariáš table; a {table['game'].capitalize()} "
                  "table has every row already", file=sys.stderr, flush=True)
        if args.json:
            print(record(table, entry))
            return
        header(entry, source)
        if table["game"] == "marias":
            print_marias_table(table, sys.stdout, every_row=args.all)
        else:
            print(f"Klaverjas DD table - rules {table['rules']}, seat {table['leader']} leads; "
                  "values for the team that chooses trumps")
            for seat, hand in enumerate(table["hands"]):
                print(f"  seat {seat}  {display_hand(hand)}")
            print(f"\n{'trump':<7}{'seats 0+2':>10}{'seats 1+3':>11}")
            for suit, (v0, v1) in table["values"].items():
                print(f"{suit:<7}{signed(v0):>10}{signed(v1):>11}")
        print(f"Searched    {table['nodes']:,} nodes in {table['elapsed_ms']:.1f} ms "
              f"({threads} thread{'s' if threads > 1 else ''})")
        if not source.single:
            print()

    def table(doc: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        """The table, and the document's fields it chooses itself (a bundled example: none)."""
        read_position(doc)       # a document is the JSON value itself: a string is text, never JSON to read again
        answer = searches.run(
            lambda cancel: dd_table(doc, solver=engine, timeout=args.timeout, cancel=cancel, threads=threads))
        return answer, chosen_fields(doc) if isinstance(doc, dict) and not args.example else {}

    with foreground(args, engine, bounds=False) as searches:     # each search is one row's
        return for_each_document(args, table, show)
