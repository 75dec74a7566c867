"""The command line's arguments: one subcommand each, with its options and help."""
from __future__ import annotations

import argparse

import ddcards
from ddcards.cli.analyse import cmd_analyse
from ddcards.cli.bench import bench_groups, cmd_bench
from ddcards.cli.games import cmd_examples, cmd_games
from ddcards.cli.solve import cmd_batch, cmd_solve
from ddcards.cli.table import cmd_table


def version_text() -> str:
    """The version and the build of the search kernels this process runs."""
    from ddcards import _kernels
    from ddcards._core.search import BUILD_FEATURES

    return f"ddcards {ddcards.__version__} ({_kernels.loaded()} kernels: {BUILD_FEATURES})"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ddcards", description="Double-dummy solver for Mariáš, Klaverjas, Mariasz "
                                     "and Prší (Central-European card games).",
                                     epilog="Exit status of solve, analyse, table, report and batch: 0 every document answered, 1 a search stopped (--timeout), "
                                            "2 bad input or a usage error, 3 an internal error, 130 Ctrl-C; "
                                            "a batch exits with the highest of its documents'. "
                                            "Positions, values and errors: docs/RULES.md.")
    parser.add_argument("--version", action="version", version=version_text())
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    table_sizes = ddcards.api.table_sizes_text()

    def common(p: argparse.ArgumentParser, example: str = "marias-hra", answers: str = "result documents",
               bounded: str = "a search") -> None:
        p.add_argument("file", nargs="?", help="position document (JSON), JSON Lines, or - for stdin")
        p.add_argument("--example", nargs="?", const=example, metavar="NAME",
                       help=f"use a bundled example (default {example}; see `ddcards examples`)")
        p.add_argument("--json", action="store_true", help=f"print {answers} (one JSON per line)")
        p.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                       help=f"stop {bounded} after this long, at least 0 ('inf': no limit, the default; exit status 1; "
                            "the first search in a fresh large table may overrun it by up to a second)")
        p.add_argument("--tt-mb", type=int, default=ddcards.api.DEFAULT_TT_MB, metavar="MIB",
                       help=f"transposition table size in MiB, 1 to the machine's memory "
                            f"(default: per game, {table_sizes})")
        batch = " (and a bar over a batch of several documents)" if p.prog.endswith(" solve") else ""
        p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                       help=f"show progress on stderr: a ticker for a search that runs a second or more{batch}; "
                            "default: when stderr is a terminal")

    p = sub.add_parser("solve", help="solve positions",
                       description="Solve each position of the file (one document, JSON Lines or one JSON "
                                   "text) and print its value, every legal move's value and the principal "
                                   "variation; every value is the maximising side's (Mariáš: the declarer; "
                                   "docs/RULES.md §0.8).")
    common(p)
    p.add_argument("--mode", choices=["best", "optimal", "all"], default="all",
                   help="best: one optimal move; optimal: all optimal moves; all: every move's value (default)")
    p.add_argument("--threads", type=int, default=1, metavar="N",
                   help="threads for each position's search, 1 to 64 (default 1; the same values and moves: in mode "
                        "best the move reported may be another optimal one)")
    p.set_defaults(func=cmd_solve)

    p = sub.add_parser("batch", help="solve a batch on every core or a Dask cluster; resumable (docs/BATCH.md)",
                       description="Solve every position of IN into OUT (JSON Lines, one record per document, in "
                                   "the order they finish, each with its input line and id). Run the same command "
                                   "again after a kill and it goes on where it stopped.")
    p.add_argument("input", metavar="IN", help="JSON Lines of position documents (or an array, or - for stdin)")
    p.add_argument("-o", "--output", metavar="OUT", required=True,
                   help="the results (JSON Lines); OUT.job beside it lets a killed run resume")
    p.add_argument("--jobs", "-j", type=int, default=None, metavar="N",
                   help="searches at once: threads (default: every CPU), or with --dask local its worker processes; "
                        "each holds a table, and together they must fit in the machine's memory")
    p.add_argument("--dask", metavar="SCHEDULER", default=None,
                   help="run on a Dask cluster: a scheduler's address (tcp://HOST:8786), or 'local' to start "
                        "one on this machine (pip install 'ddcards[dask]')")
    p.add_argument("--mode", choices=["best", "optimal", "all"], default="all",
                   help="best: one optimal move; optimal: all optimal moves; all: every move's value (default)")
    p.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                   help="stop a position's search after this long, at least 0 ('inf': no limit, the default; "
                        "its record is an error; exit status 1; the first search in a fresh large table may "
                        "overrun it by up to a second)")
    p.add_argument("--tt-mb", type=int, default=ddcards.api.DEFAULT_TT_MB, metavar="MIB",
                   help=f"transposition table of each search thread in MiB, 1 to the machine's memory "
                        f"(default: per game, {table_sizes})")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="the progress bar (default: when stderr is a terminal)")
    p.add_argument("--restart", action="store_true",
                   help="replace OUT instead of resuming it")
    p.set_defaults(func=cmd_batch)

    p = sub.add_parser("analyse", aliases=["analyze"], help="analyse the recorded play of a deal",
                       description="Go through the recorded play of each deal (its 'played' history) action by "
                                   "action: the value before and after each, what it cost against the best "
                                   "play (a mistake is marked) and the optimal actions at that point; every "
                                   "value is the maximising side's (Mariáš: the declarer; docs/RULES.md §0.8).")
    common(p, example="marias-seed", answers="analysis documents", bounded="the analysis of a deal (all its searches)")
    p.add_argument("--mode", choices=["optimal", "all"], default="optimal",
                   help="optimal: the best cards at each step (default); all: every legal card's value too")
    p.add_argument("--threads", type=int, default=1, metavar="N",
                   help="threads for each search of the analysis, 1 to 64 (default 1; the answers are the same)")
    p.add_argument("--from-ply", type=int, default=0, metavar="N",
                   help="analyse the recorded actions from played[N] on (default 0, the deal's start): those "
                        "before are replayed, not searched, so the late play of a long deal (a 36-card "
                        "Mariasz deal, whose first tricks take minutes) is analysed in seconds")
    p.set_defaults(func=cmd_analyse)

    p = sub.add_parser("table", help="a deal's DD table: Klaverjas, every trump suit and playing team; Mariáš, "
                                     "every discard and contract with its value and money",
                       description="The double-dummy table of each deal (nothing played yet): Klaverjas, the "
                                   "value for every trump suit and either playing team; Mariáš, every legal "
                                   "discard and contract with its value and the declarer's money.")
    common(p, example="klaverjas", answers="table documents", bounded="the table of a deal (all its searches)")
    p.add_argument("--threads", type=int, default=None, metavar="N",
                   help="searches run at once, 1 to 64 (default: the CPUs available, at most 8)")
    p.add_argument("--all", action="store_true",
                   help="Mariáš: print every discard x contract, not only the best discard of each contract")
    p.set_defaults(func=cmd_table)

    p = sub.add_parser("games", help="list games, contracts, objectives and options",
                       description="List each game the solver knows (or the one named): its names, players, contracts, the "
                                   "objectives of each contract, and its options with their types, defaults and "
                                   "ranges (what a position document's 'options' may hold; docs/RULES.md).")
    p.add_argument("game", nargs="?", metavar="GAME",
                   help="only this game (its name or an alias, any case, e.g. prsi or Mariáš)")
    p.add_argument("--json", action="store_true", help="print them as one JSON document")
    p.set_defaults(func=cmd_games)

    p = sub.add_parser("examples", help="list bundled examples, or print one",
                       description="List the bundled examples (one name a line), or print one. Every example "
                                   "solves at once; mariasz and mariasz-phase2 are late in fresh 36-card deals, "
                                   "so analysing them (analyse, report: every search from the deal's start) takes "
                                   "many minutes; mariasz-recorded is the Mariasz deal to analyse.")
    p.add_argument("name", nargs="?", help="the example to print (a position document); none: list them")
    p.set_defaults(func=cmd_examples)

    p = sub.add_parser("bench", help="solve a fixed set of positions of every game: speed and the search's "
                                     "node signature",
                       description="Solve a fixed set of positions of every game (full Mariáš and Klaverjas deals of "
                                   "every contract, trump and rule set, Mariasz from the first trick and late, Prší "
                                   "of 2 to 6 players), each in mode all in a cleared table sized per game, and "
                                   "print the nodes and the search time of each group. On one thread the node count "
                                   "is the same on every machine: a signature of the search.")
    p.add_argument("--json", action="store_true", help="print the figures as one JSON document")
    p.add_argument("--group", action="append", choices=[name for name, _, _ in bench_groups()], default=None,
                   help="only this group (repeat for several; default: all)")
    p.add_argument("--repeat", type=int, default=1, metavar="R",
                   help="solve each position R times and keep its least time (default 1)")
    p.add_argument("--threads", type=int, default=1, metavar="N",
                   help="threads for each search, 1 to 64 (default 1; the node count is a signature only on one)")
    p.add_argument("--tt-mb", type=int, default=ddcards.api.DEFAULT_TT_MB, metavar="MIB",
                   help=f"transposition table size in MiB, 1 to the machine's memory "
                        f"(default: per game, {table_sizes})")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="show a progress bar on stderr (default: when stderr is a terminal)")
    p.set_defaults(func=cmd_bench)

    sub.add_parser("serve", help="run the gRPC service (see `ddcards serve --help`)", add_help=False)

    from ddcards.board.cli import add_arguments as board_arguments
    from ddcards.report.cli import add_arguments as report_arguments
    report_arguments(sub.add_parser(
        "report", help="write an HTML report of a recorded deal",
        description="Analyse a recorded deal (as `ddcards analyse` does) and write one self-contained HTML page: "
                    "the hands, every card or action with the value after it, the mistakes and what each cost, "
                    "the value chart and the optimal continuation. An analysis document (`ddcards analyse "
                    "--json`) is rendered as it is, without searching again."))
    board_arguments(sub.add_parser(
        "board", help="run the local analysis board (a web page)",
        description="Run the analysis board on http://127.0.0.1:8765/ (needs pip install 'ddcards[board]'): "
                    "a local web page to paste, load or pick a position, see every legal card's exact value, "
                    "play a card by clicking it and step back and forward. It listens on this machine only "
                    "unless --host says otherwise."))
    return parser


def command_parser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    """The parser of `command` (its usage is the one to show with an error in its arguments)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:
            found: argparse.ArgumentParser = action.choices[command]
            return found
    return parser
