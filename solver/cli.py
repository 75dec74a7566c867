"""The ``ddcards`` command line.

    ddcards solve FILE|-          solve a position document (or JSON Lines, one per line)
    ddcards solve --example       solve a bundled example
    ddcards analyse FILE|-        value before/after every recorded card, mistakes
    ddcards table FILE|-          Klaverjas: the value for every trump suit and playing team
    ddcards games                 games, contracts, objectives, options
    ddcards examples              list (or print) the bundled examples
    ddcards serve                 run the gRPC service

Exit status: 0 success, 1 the search was stopped (--timeout), 2 bad input.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any, TextIO

import ddcards
from ddcards.errors import DdcardsError, NotationError, SearchAborted

EXIT_OK, EXIT_ABORTED, EXIT_BAD_INPUT = 0, 1, 2


# ----------------------------------------------------------------- input

def read_documents(text: str, source: str) -> Iterator[tuple[int, Any]]:
    """Yield (line number, parsed JSON or DdcardsError) for one document, an array, or JSON Lines."""
    stripped = text.strip()
    if not stripped:
        yield 1, NotationError(f"{source} is empty: expected a position document (JSON)",
                               token=source, rule="position document")
        return
    try:
        whole = json.loads(stripped)
    except json.JSONDecodeError:
        whole = None
    else:
        if isinstance(whole, list):
            for i, doc in enumerate(whole, 1):
                yield i, doc
        else:
            yield 1, whole
        return
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            yield lineno, json.loads(line)
        except json.JSONDecodeError as exc:
            yield lineno, NotationError(f"line {lineno} is not valid JSON: {exc.msg} (column {exc.colno})",
                                        token=line.strip()[:40], rule="JSON Lines: one document a line")


def load_input(args: argparse.Namespace) -> tuple[str, str]:
    if getattr(args, "example", None):
        return json.dumps(ddcards.example(args.example)), f"example {args.example}"
    if args.file is None:
        raise NotationError("give a position file, '-' for standard input, or --example",
                            token="FILE", rule="usage")
    if args.file == "-":
        return sys.stdin.read(), "standard input"
    try:
        with open(args.file, encoding="utf-8") as fh:
            return fh.read(), args.file
    except OSError as exc:
        raise NotationError(f"cannot read {args.file}: {exc.strerror}", token=args.file,
                            rule="readable file") from None


# ----------------------------------------------------------------- output

def signed(v: int | None) -> str:
    return "?" if v is None else f"{v:+d}"


def describe_value(res: ddcards.Result, session: Any) -> str:
    verdict = session.verdict(res.value, res.won, res.value_kind)
    detail = getattr(session, "value_detail", None)      # a game that words its own scores
    if detail is not None:
        return f"{signed(res.value)}  {verdict} ({detail(res)})"
    if res.value_kind == "points":
        scores = ", ".join(f"{k} {v}" for k, v in res.scores.items())
        return f"{signed(res.value)}  {verdict} ({scores})"
    detail = ", ".join(f"{k} {v}" for k, v in res.tricks.items())
    return f"{signed(res.value)}  {verdict} (tricks: {detail})"


def format_line(moves: list[str], size: int | None, offset: int) -> str:
    if not size:
        return " ".join(moves)
    out, i, first = [], 0, (size - offset) % size or size
    chunk = moves[:first]
    out.append(" ".join(chunk))
    i = first
    while i < len(moves):
        out.append(" ".join(moves[i:i + size]))
        i += size
    return " | ".join(x for x in out if x)


def print_result(res: ddcards.Result, pos: ddcards.Position, out: TextIO) -> None:
    session = pos.session()
    info = session.describe()
    seat = res.to_move
    head = info.get("title", pos.game)
    if seat is not None:
        head += f" - seat {seat} ({session.seat_role(seat)}) to move"
    else:
        head += " - all cards played"
    print(head, file=out)
    hands = info.get("hands", [])
    width = max([len(session.seat_role(i)) for i in range(len(hands))] + [5])
    for i, hand in enumerate(hands):
        suits = hand.split(".")
        shown = "  ".join(f"{s}: {h or '-'}" for s, h in zip("SHDC", suits))
        print(f"  seat {i}  {session.seat_role(i):<{width}} {shown}", file=out)
    for label in ("talon", "stock", "trick"):
        if info.get(label):
            shown = info[label] if isinstance(info[label], str) else " ".join(info[label])
            print(f"  {label:<{width + 8}} {shown}", file=out)
    print(file=out)
    print(f"Value       {describe_value(res, session)}", file=out)
    if res.optimal_moves:
        label = "Best move" if res.mode == "best" else "Best moves"
        print(f"{label:<11} {' '.join(res.optimal_moves)}", file=out)
    if res.mode != "best" and res.moves:
        print("Moves       " + "  ".join(f"{m.move} {signed(m.value) if m.value is not None else '(worse)'}"
                                       for m in res.moves), file=out)
    if res.pv:
        offset = len(info.get("trick", []))
        own = getattr(session, "format_line", None)      # a game with non-card actions groups its own line
        line = own(res.pv) if own is not None else format_line(res.pv, session.trick_size, offset)
        print(f"Line        {line}", file=out)
    achieved = [k for k, v in res.outcomes.items() if v]
    if res.outcomes:
        missed = ", ".join(f"no {k}" for k, v in res.outcomes.items() if not v)
        print(f"On the line {', '.join(achieved) if achieved else missed}", file=out)
    print("Settlement  " + ", ".join(f"seat {i} {v:+d}" for i, v in enumerate(res.settlement)), file=out)
    rate = res.nodes / res.elapsed / 1e6 if res.elapsed > 0 else 0.0
    print(f"Searched    {res.nodes:,} nodes in {res.elapsed * 1000:.1f} ms ({rate:.1f} M nodes/s)", file=out)


def print_analysis(an: ddcards.Analysis, pos: ddcards.Position, out: TextIO) -> None:
    info = pos.start().session().describe()
    owner = pos.session().value_owner
    view = f"{owner}'s view" if an.value_kind == "points" else f"{owner}'s view: +1 made, -1 defeated"
    print(f"{info.get('title', pos.game)} - value at the start {signed(an.initial_value)} ({view})", file=out)
    print(f"{'ply':>4} {'seat':>4}  {'card':<5}{'before':>7}{'after':>7}{'cost':>6}  best", file=out)
    for s in an.steps:
        mark = "  <- mistake" if s.mistake else ""
        print(f"{s.ply + 1:>4} {s.seat:>4}  {s.move:<5}{signed(s.value_before):>7}{signed(s.value_after):>7}"
              f"{s.cost:>6}  {' '.join(s.best_moves)}{mark}", file=out)
    if an.mistakes:
        print(f"Mistakes    {len(an.mistakes)}: " + ", ".join(
            f"ply {s.ply + 1} {s.move} (seat {s.seat}, cost {s.cost})" for s in an.mistakes), file=out)
    else:
        print("Mistakes    none", file=out)
    print(f"Final value {signed(an.final_value)}", file=out)
    print(f"Searched    {an.nodes:,} nodes in {an.elapsed * 1000:.1f} ms", file=out)


def error_document(lineno: int, exc: Exception) -> dict[str, Any]:
    doc: dict[str, Any] = {"line": lineno, "error": str(exc), "error_type": type(exc).__name__}
    if isinstance(exc, DdcardsError):
        doc["token"], doc["rule"] = exc.token, exc.rule
    return doc


# ----------------------------------------------------------------- commands

class Progress:
    """A one-line counter on stderr for long batches (only on a terminal, or when asked)."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.start = time.perf_counter()
        self.last = 0.0

    def update(self, done: int) -> None:
        now = time.perf_counter()
        if self.enabled and now - self.last > 0.5:
            self.last = now
            rate = done / (now - self.start)
            print(f"\rsolved {done} positions ({rate:.1f}/s)", end="", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.enabled and self.last:
            print(file=sys.stderr)


def for_each_document(args: argparse.Namespace, work: Callable[[Any], Any],
                      show: Callable[[Any, int, str, bool], None]) -> int:
    """Run `work` on every document of the input and `show` each answer.

    A bad document is reported (as a JSON error line with --json, else on
    stderr) and the rest go on; the exit status is the worst seen.
    """
    text, source = load_input(args)
    docs = list(read_documents(text, source))
    batch = len(docs) > 1
    status = EXIT_OK
    for lineno, doc in docs:
        try:
            if isinstance(doc, Exception):
                raise doc
            answer = work(doc)
        except (DdcardsError, SearchAborted) as exc:
            status = max(status, EXIT_BAD_INPUT if isinstance(exc, DdcardsError) else EXIT_ABORTED)
            if args.json:
                print(json.dumps(error_document(lineno, exc), ensure_ascii=False), flush=True)
            else:
                where = f"{source}, line {lineno}: " if batch else ""
                print(f"ddcards: error: {where}{exc}", file=sys.stderr)
            continue
        show(answer, lineno, source, batch)
    return status


def as_position(doc: Any) -> ddcards.Position:
    return ddcards.Position.from_dict(doc) if isinstance(doc, dict) else ddcards.Position(doc)


def cmd_solve(args: argparse.Namespace) -> int:
    engine = ddcards.Solver(tt_mb=args.tt_mb)
    times: list[float] = []
    progress = Progress(bool(args.progress))

    def work(doc: Any) -> tuple[ddcards.Result, ddcards.Position]:
        pos = as_position(doc)
        return engine.solve(pos, mode=args.mode, timeout=args.timeout), pos

    def show(answer: tuple[ddcards.Result, ddcards.Position], lineno: int, source: str, batch: bool) -> None:
        res, pos = answer
        times.append(res.elapsed)
        if args.json:
            print(json.dumps(res.to_dict(), ensure_ascii=False), flush=batch)
        else:
            if batch:
                print(f"# {source}, line {lineno}")
            print_result(res, pos, sys.stdout)
            if batch:
                print()
        if args.progress is None and batch and sys.stderr.isatty():
            progress.enabled = True
        progress.update(len(times))

    status = for_each_document(args, work, show)
    progress.close()
    if len(times) > 1:
        print(f"ddcards: solved {len(times)} positions in {sum(times):.3f} s of search; per position median "
              f"{statistics.median(times) * 1000:.2f} ms, max {max(times) * 1000:.2f} ms", file=sys.stderr)
    return status


def cmd_analyse(args: argparse.Namespace) -> int:
    engine = ddcards.Solver(tt_mb=args.tt_mb)

    def work(doc: Any) -> tuple[ddcards.Analysis, ddcards.Position]:
        pos = as_position(doc)
        return engine.analyse(pos, timeout=args.timeout), pos

    def show(answer: tuple[ddcards.Analysis, ddcards.Position], lineno: int, source: str, batch: bool) -> None:
        an, pos = answer
        if args.json:
            print(json.dumps(an.to_dict(), ensure_ascii=False))
        else:
            print_analysis(an, pos, sys.stdout)

    return for_each_document(args, work, show)


def cmd_table(args: argparse.Namespace) -> int:
    from ddcards.ddtable import available_threads, dd_table

    engine = ddcards.Solver(tt_mb=args.tt_mb)
    threads = min(8, available_threads()) if args.threads is None else args.threads

    def show(table: dict[str, Any], lineno: int, source: str, batch: bool) -> None:
        if args.json:
            print(json.dumps(table, ensure_ascii=False))
            return
        print(f"Klaverjas DD table - rules {table['rules']}, seat {table['leader']} leads; "
              "values for the team that chooses trumps")
        for seat, hand in enumerate(table["hands"]):
            shown = "  ".join(f"{s}: {h or '-'}" for s, h in zip("SHDC", hand.split(".")))
            print(f"  seat {seat}  {shown}")
        print(f"\n{'trump':<7}{'seats 0+2':>10}{'seats 1+3':>11}")
        for suit, (v0, v1) in table["values"].items():
            print(f"{suit:<7}{signed(v0):>10}{signed(v1):>11}")
        print(f"Searched    {table['nodes']:,} nodes in {table['elapsed_ms']:.1f} ms "
              f"({threads} thread{'s' if threads > 1 else ''})")

    return for_each_document(args, lambda doc: dd_table(doc, solver=engine, timeout=args.timeout,
                                                          threads=threads), show)


def cmd_games(args: argparse.Namespace) -> int:
    games = ddcards.list_games()
    if args.json:
        print(json.dumps([{
            "name": g.name, "title": g.title, "seats": list(g.seats), "contracts": list(g.contracts),
            "objectives": {k: list(v) for k, v in g.objectives.items()}, "aliases": list(g.aliases),
            "options": [{"name": o.name, "type": o.type, "default": o.default, "description": o.description,
                         "choices": list(o.choices)} for o in g.options],
        } for g in games], ensure_ascii=False, indent=2))
        return EXIT_OK
    for g in games:
        print(f"{g.name}: {g.title} ({'/'.join(map(str, g.seats))} players)")
        for contract in g.contracts:
            print(f"  contract {contract:<6} objectives: {', '.join(g.objectives[contract])}")
        for o in g.options:
            choices = f" [{'|'.join(o.choices)}]" if o.choices else ""
            print(f"  option {o.name} ({o.type}, default {o.default!r}){choices}: {o.description}")
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


def cmd_serve(argv: list[str]) -> int:
    from ddcards.server.main import main as serve_main
    return serve_main(argv) or EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ddcards", description="Double-dummy solver for Mariáš and Klaverjas (Central-European card games).")
    parser.add_argument("--version", action="version", version=f"ddcards {ddcards.__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def common(p: argparse.ArgumentParser, example: str = "marias-hra") -> None:
        p.add_argument("file", nargs="?", help="position document (JSON), JSON Lines, or - for stdin")
        p.add_argument("--example", nargs="?", const=example, metavar="NAME",
                       help=f"use a bundled example (default {example}; see `ddcards examples`)")
        p.add_argument("--json", action="store_true", help="print result documents (one JSON per line)")
        p.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                       help="stop a search after this long (exit status 1)")
        p.add_argument("--tt-mb", type=int, default=ddcards.api.DEFAULT_TT_MB, metavar="MIB",
                       help="transposition table size (default %(default)s MiB)")

    p = sub.add_parser("solve", help="solve positions")
    common(p)
    p.add_argument("--mode", choices=["best", "optimal", "all"], default="all",
                   help="best: one optimal move; optimal: all optimal moves; all: every move's value (default)")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="show a progress line for batches (default: when stderr is a terminal)")
    p.set_defaults(func=cmd_solve)

    p = sub.add_parser("analyse", aliases=["analyze"], help="analyse the recorded play of a deal")
    common(p)
    p.set_defaults(func=cmd_analyse)

    p = sub.add_parser("table", help="Klaverjas: the value for every trump suit and playing team")
    common(p, example="klaverjas")
    p.add_argument("--threads", type=int, default=None, metavar="N",
                   help="searches run at once (default: the CPUs available, at most 8)")
    p.set_defaults(func=cmd_table)

    p = sub.add_parser("games", help="list games, contracts, objectives and options")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_games)

    p = sub.add_parser("examples", help="list bundled examples, or print one")
    p.add_argument("name", nargs="?")
    p.set_defaults(func=cmd_examples)

    sub.add_parser("serve", help="run the gRPC service (see `ddcards serve --help`)", add_help=False)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "serve":
        return cmd_serve(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "tt_mb", 1) < 1:
        parser.error("--tt-mb must be at least 1")
    try:
        return args.func(args)
    except DdcardsError as exc:
        print(f"ddcards: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except SearchAborted as exc:
        print(f"ddcards: stopped: {exc}", file=sys.stderr)
        return EXIT_ABORTED
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # the reader went away (e.g. `| head`): stop quietly
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
