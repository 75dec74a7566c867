"""``ddcards board``: run the analysis board on this machine."""
from __future__ import annotations

import argparse
import ipaddress
import socket
import sys
import threading
import webbrowser
from collections.abc import Iterable

import ddcards

DEFAULT_PORT = 8765


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", nargs="?", help="a position to open on the board (JSON), or - for stdin")
    p.add_argument("--example", nargs="?", const="marias-seed", metavar="NAME",
                   help="open a bundled example (default marias-seed; see `ddcards examples`)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default %(default)s: this machine only)")
    p.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                   help="also answer requests that name the board NAME (a name of this machine that browsers "
                        "use, with --host 0.0.0.0, say); repeatable")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help="port (default %(default)s; 0 picks a free one)")
    p.add_argument("--open", action="store_true", help="open the board in the default browser")
    p.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                   help="stop any search after this long (default: never; the page has a Stop button)")
    p.add_argument("--tt-mb", type=int, default=ddcards.api.DEFAULT_TT_MB, metavar="MIB",
                   help=f"transposition table size per worker in MiB, 1 to the machine's memory (default: per game, "
                        f"{ddcards.api.table_sizes_text()})")
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help="searches run at once (pages, tabs), each with its own transposition table (kept while "
                        "the board runs), 1 to 256 (default: number of cores); a search waits for a free worker")
    p.add_argument("--threads", type=int, default=1, metavar="N",
                   help="threads for each search, 1 to 64 (default 1; --threads 2 solves a long position on two cores)")
    p.set_defaults(func=cmd_board)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def is_wildcard(host: str) -> bool:
    """Every address of this machine (0.0.0.0, ::): requests may name it by any of its names."""
    try:
        return ipaddress.ip_address(host.strip("[]")).is_unspecified
    except ValueError:
        return False


def _allowed_name(name: str) -> str:
    """An --allow-host name as the Host header carries it (lower case, no port, scheme or brackets)."""
    from ddcards.errors import NotationError

    bare = name.strip().lower()
    try:
        return str(ipaddress.ip_address(bare.strip("[]")))
    except ValueError:
        pass
    if not bare or not all(part and part.replace("-", "").isalnum() and part.isascii() for part in bare.split(".")):
        raise NotationError(f"--allow-host {name!r} is not a host name such as mybox.example (no port, scheme "
                            "or path)", token=name, rule="--allow-host: a host name of this machine")
    return bare


def board_hosts(host: str, allowed: Iterable[str] = ()) -> tuple[str, ...]:
    """The host names the board answers to when it listens on `host` (see BoardApp): its
    loopback names, the address it was told to listen on, and the `allowed` names; on a
    wildcard address any IP address and this machine's own names, never any name at all (a
    page whose name points at this machine would then reach it: DNS rebinding)."""
    from ddcards.board.app import IP_LITERALS, LOOPBACK_NAMES

    extra = tuple(_allowed_name(name) for name in allowed)
    if is_wildcard(host):
        names = {socket.gethostname().lower(), socket.getfqdn().lower()} - {""}
        return LOOPBACK_NAMES + (IP_LITERALS,) + tuple(sorted(names)) + extra
    return LOOPBACK_NAMES + (host.strip("[]"),) + extra


def check_listen(host: str, port: int) -> None:
    """A NotationError naming the host or the port if the board cannot listen there (uvicorn's own
    report of it is a log line and exit status 3)."""
    from ddcards.errors import NotationError

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise NotationError(f"cannot listen on {host!r}: {exc.strerror}", token=host,
                            rule="--host: an address or a name of this machine") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)     # as uvicorn binds
        try:
            probe.bind(address)
        except OSError as exc:
            raise NotationError(f"cannot listen on {host}:{port}: {exc.strerror}", token=f"{host}:{port}",
                                rule="--host and --port: a free port of this machine") from None


def cmd_board(args: argparse.Namespace) -> int:
    from ddcards.cli.documents import as_position
    from ddcards.cli.status import EXIT_BAD_INPUT
    from ddcards.cli.streams import one_document

    try:
        import uvicorn

        from ddcards.board.app import create_app
    except ImportError as exc:
        print(f"ddcards: error: the board needs its web stack ({exc.name} is missing): "
              "pip install 'ddcards[board]'", file=sys.stderr)
        return EXIT_BAD_INPUT
    position = None
    if args.file is not None or args.example:
        doc, _ = one_document(args, "the board opens one position", "a position document")
        position = as_position(doc).to_dict()
    check_listen(args.host, args.port)
    if not is_loopback(args.host):
        print(f"ddcards: warning: the board listens on {args.host}: anyone who reaches it can run searches "
              "on this machine (it has no login)", file=sys.stderr)
    app = create_app(tt_mb=args.tt_mb, timeout=args.timeout, position=position, threads=args.threads,
                     workers=args.workers, hosts=board_hosts(args.host, args.allow_host))
    # A search runs until it ends or is stopped: on Ctrl-C every one is stopped at once, and what
    # has not answered within a second is cut (uvicorn would otherwise wait for them for ever).
    config = uvicorn.Config(app, host=args.host, port=args.port, log_level="warning", timeout_graceful_shutdown=1)

    class BoardServer(uvicorn.Server):
        def handle_exit(self, sig: int, frame: object) -> None:
            app.cancel_all()
            super().handle_exit(sig, frame)     # type: ignore[arg-type]

    server = BoardServer(config)

    def announce() -> None:
        while not server.started:
            if server.should_exit:
                return
            threading.Event().wait(0.05)
        sock = server.servers[0].sockets[0].getsockname()
        host = f"[{sock[0]}]" if ":" in sock[0] else sock[0]
        url = f"http://{host}:{sock[1]}/"
        print(f"ddcards board on {url} (Ctrl-C stops it)", file=sys.stderr, flush=True)
        if args.open and not webbrowser.open(url):
            print(f"ddcards: no web browser could be opened here: open {url} in one", file=sys.stderr, flush=True)

    threading.Thread(target=announce, daemon=True).start()
    server.run()
    return 0
