"""``ddcards board``: run the analysis board on this machine."""
from __future__ import annotations

import argparse
import ipaddress
import sys
import threading
import webbrowser

import ddcards

DEFAULT_PORT = 8765


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", nargs="?", help="a position to open on the board (JSON), or - for stdin")
    p.add_argument("--example", nargs="?", const="marias-seed", metavar="NAME",
                   help="open a bundled example (default marias-seed; see `ddcards examples`)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default %(default)s: this machine only)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help="port (default %(default)s; 0 picks a free one)")
    p.add_argument("--open", action="store_true", help="open the board in the default browser")
    p.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                   help="stop any search after this long (default: never; the page has a Stop button)")
    p.add_argument("--tt-mb", type=int, default=ddcards.api.DEFAULT_TT_MB, metavar="MIB",
                   help=f"transposition table size per worker in MiB (default: per game, "
                        f"{ddcards.api.table_sizes_text()})")
    p.add_argument("--threads", type=int, default=1, metavar="N",
                   help="threads for each search (default 1; --threads 2 solves a long position on two cores)")
    p.set_defaults(func=cmd_board)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def cmd_board(args: argparse.Namespace) -> int:
    from ddcards.cli import EXIT_BAD_INPUT, as_position, one_document
    from ddcards.errors import NotationError

    try:
        import uvicorn

        from ddcards.board.app import create_app
    except ImportError as exc:
        print(f"ddcards: error: the board needs its web stack ({exc.name} is missing): "
              "pip install 'ddcards[board]'", file=sys.stderr)
        return EXIT_BAD_INPUT
    position = None
    if args.file is not None or args.example:
        doc, _ = one_document(args, "the board opens one position")
        position = as_position(doc).to_dict()
    if not 0 <= args.port <= 65535:
        raise NotationError(f"port {args.port} is not a TCP port", token=str(args.port), rule="ports 0-65535")
    if not is_loopback(args.host):
        print(f"ddcards: warning: the board listens on {args.host}: anyone who reaches it can run searches "
              "on this machine (it has no login)", file=sys.stderr)
    app = create_app(tt_mb=args.tt_mb, timeout=args.timeout, position=position, threads=args.threads)
    config = uvicorn.Config(app, host=args.host, port=args.port, log_level="warning")
    server = uvicorn.Server(config)

    def announce() -> None:
        while not server.started:
            if server.should_exit:
                return
            threading.Event().wait(0.05)
        sock = server.servers[0].sockets[0].getsockname()
        host = f"[{sock[0]}]" if ":" in sock[0] else sock[0]
        url = f"http://{host}:{sock[1]}/"
        print(f"ddcards board on {url} (Ctrl-C stops it)", file=sys.stderr, flush=True)
        if args.open:
            webbrowser.open(url)

    threading.Thread(target=announce, daemon=True).start()
    server.run()
    return 0
