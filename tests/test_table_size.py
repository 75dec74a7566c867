"""The transposition table's size: sized per game by default, fixed when asked, resizable.

A Solver made without ``tt_mb`` gives each position the table its game asks for
(``Position.table_mb``: 2 MiB, 32 for Mariasz and more early in a 36-card deal), growing
once and keeping the larger table; ``tt_mb=N`` keeps N MiB for every game.  The table's size
never changes an answer.
"""
from __future__ import annotations

import dataclasses
import os
import sys

import pytest

import ddcards
from ddcards import api
from ddcards._core.search import MODE_ALL, Searcher
from ddcards.batch import many
from ddcards.games import get_game, mariasz

MARIAS = ddcards.example("marias-hra")
MARIASZ = ddcards.example("mariasz-szlifowany")
KLAVERJAS = ddcards.example("klaverjas")
PRSI = ddcards.example("prsi-4players")
# A few positions of each game (mid-play and full deals).
POSITIONS = [ddcards.example(name) for name in (
    "marias-hra", "marias-betl", "marias-durch", "klaverjas", "mariasz", "mariasz-kiks", "mariasz-race",
    "mariasz-szlifowany", "mariasz-three", "prsi", "prsi-4players", "prsi-endgame")]
MARIASZ_MB = 32                 # Mariasz's GameInfo.table_mb
MARIASZ_MAX_MB = 1024           # ... and the most a position of it asks for (a fresh 36-card deal)
# A 36-card two-player deal mid-stock: 17 card plays (8 tricks and a lead) and the exchange.
MID_STOCK = ddcards.example("mariasz")
IMPOSSIBLE_MB = 1 << 40          # 1 EiB: more than any address space holds


def answer(res: ddcards.Result) -> tuple:
    return res.value, tuple((m.move, m.value) for m in res.moves), tuple(res.pv), res.settlement


def test_each_game_says_its_table_size():
    sizes = {info.name: info.table_mb for info in ddcards.list_games()}
    assert sizes == {"marias": 2, "klaverjas": 2, "mariasz": MARIASZ_MB, "prsi": 2}
    assert api.largest_table_mb() == MARIASZ_MAX_MB
    assert api.table_sizes_text() == "2 MiB, 32 for mariasz (up to 1024 early in a deal)"


def prefix(doc: dict, actions: int) -> dict:
    return {**doc, "played": doc["played"][:actions]}


@pytest.mark.parametrize(("actions", "stock_left", "mb"), [
    (0, 24, 1024), (2, 22, 512), (3, 22, 512),            # a fresh deal, its first trick
    (4, 20, 128), (5, 20, 128),                           # "exchange" is no card: still 20
    (7, 18, 128), (9, 16, 128), (10, 16, 128),            # mid-trick counts the tricks done
    (11, 14, MARIASZ_MB), (18, 8, MARIASZ_MB)])
def test_a_mariasz_position_asks_for_a_table_by_the_cards_left_in_its_stock(actions, stock_left, mb):
    doc = prefix(MID_STOCK, actions)
    cards = sum(a != "exchange" for a in doc["played"])
    assert len(doc["stock"].split()) - 2 * (cards // 2) == stock_left
    assert ddcards.Position.from_dict(doc).table_mb == mb


def test_a_36_card_three_player_deal_asks_for_more_in_its_first_tricks():
    deal = {"game": "mariasz", "hands": ["AQT97.A86.T.K98", "K.J7.AKJ98.AT76", "J86.KQT9.Q76.QJ"], "trump": "C",
            "options": {"variant": "three", "player": 1}}
    position = ddcards.Position.from_dict(deal)
    sizes = []
    for _ in range(13):                 # 36 cards left, then 35, ... 24
        sizes.append(position.table_mb)
        position = position.play(position.legal_moves[0])
    assert sizes == [128] * 10 + [MARIASZ_MB] * 3
    assert ddcards.Position.from_dict({**deal, "objective": "race", "start_scores": [0, 0, 0]}).table_mb == MARIASZ_MB


def test_other_positions_ask_for_their_games_table():
    sizes = {name: ddcards.Position.from_dict(ddcards.example(name)).table_mb for name in (
        "marias-hra", "klaverjas", "prsi", "mariasz-szlifowany", "mariasz-kiks", "mariasz-three", "mariasz-phase2",
        "mariasz-race")}
    assert sizes == {"marias-hra": 2, "klaverjas": 2, "prsi": 2, "mariasz-szlifowany": MARIASZ_MB,
                     "mariasz-kiks": MARIASZ_MB, "mariasz-three": MARIASZ_MB, "mariasz-phase2": MARIASZ_MB,
                     "mariasz-race": MARIASZ_MB}     # a race: a fresh 36-card deal, settled by a claim early


def test_a_solver_gives_a_position_the_table_it_asks_for(monkeypatch):
    # Tiers shrunk to this quick mid-stock position (8 cards left): 48 MiB from 8 cards.
    monkeypatch.setattr(mariasz, "TABLE_BY_STOCK", ((8, 48),))
    assert ddcards.Position.from_dict(MID_STOCK).table_mb == 48
    solver = ddcards.Solver()
    expected = answer(ddcards.Solver(tt_mb=48).solve(MID_STOCK))
    got = solver.solve(MID_STOCK)
    assert answer(got) == expected
    assert solver.tt_mb == solver.tt_allocated_mb == 48
    phase2 = ddcards.example("mariasz-phase2")            # the stock used up: the game's 32, in part of it
    assert answer(solver.solve(phase2)) == answer(ddcards.Solver().solve(phase2))
    assert (solver.tt_mb, solver.tt_allocated_mb) == (MARIASZ_MB, 48)
    assert solver.solve(MID_STOCK).nodes == got.nodes       # back to 48: as a new table of that size
    # keep_tt: a table in use at least that large stays, with what it holds.
    assert answer(solver.solve(phase2, keep_tt=True)) == answer(ddcards.Solver().solve(phase2))
    assert solver.tt_mb == 48


def test_a_table_beyond_the_games_that_cannot_be_had_gives_way_to_the_games(monkeypatch):
    monkeypatch.setattr(mariasz, "TABLE_BY_STOCK", ((8, IMPOSSIBLE_MB),))
    solver = ddcards.Solver()
    assert answer(solver.solve(MID_STOCK)) == answer(ddcards.Solver(tt_mb=MARIASZ_MB).solve(MID_STOCK))
    assert solver.tt_mb == solver.tt_allocated_mb == MARIASZ_MB


def test_a_search_with_a_time_limit_grows_the_table_as_far_as_it_can_use(monkeypatch):
    # A new table's pages are zeroed as the search first touches them, all over it: a 3-second
    # search of a fresh 36-card deal spent its time backing a 1 GiB table (9,779 nodes). With a
    # timeout the table grows only by GROWTH_MB_PER_SECOND a second of it, never below the game's.
    monkeypatch.setattr(mariasz, "TABLE_BY_STOCK", ((8, 512),))
    per_second = ddcards.api.GROWTH_MB_PER_SECOND
    expected = answer(ddcards.Solver(tt_mb=48).solve(MID_STOCK))
    for timeout, mb in ((2.0, int(2 * per_second)), (0.45, MARIASZ_MB), (1000.0, 512), (1e308, 512)):
        solver = ddcards.Solver()
        try:
            assert answer(solver.solve(MID_STOCK, timeout=timeout)) == expected
        except ddcards.SearchTimeout:   # (the table is sized before the search: that is what is checked)
            assert timeout < 1
        assert solver.tt_allocated_mb == solver.tt_mb == mb, timeout
    solver = ddcards.Solver()
    assert solver.value(MID_STOCK, timeout=2.0) == expected[0] and solver.tt_allocated_mb == 2 * per_second
    # Memory already held serves whole: the cap is on growing it
    assert answer(solver.solve(MID_STOCK)) == expected and solver.tt_allocated_mb == 512
    assert answer(solver.solve(MID_STOCK, timeout=2.0)) == expected and solver.tt_mb == 512
    # keep_tt with a longer limit keeps the table it has (growing it would empty it)
    solver = ddcards.Solver()
    solver.solve(MID_STOCK, timeout=2.0)
    assert answer(solver.solve(MID_STOCK, timeout=5.0, keep_tt=True)) == expected
    assert (solver.tt_mb, solver.tt_allocated_mb) == (2 * per_second, 2 * per_second)


def resident_mib() -> float:
    """This process's resident memory (MiB)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="tables are mapped lazily on Linux only")
def test_a_large_table_takes_memory_only_as_the_search_touches_it():
    # A fresh 36-card Mariasz deal's 1 GiB table is mapped, not written: allocating it costs
    # neither time nor memory (zeroing it up front held the caller for 0.2-2 s, with the GIL);
    # the pages come, zeroed, as the search first touches them.
    before = resident_mib()
    searcher = Searcher(tt_mb=MARIASZ_MAX_MB)
    assert resident_mib() - before < 64
    searcher.resize(2 * MARIASZ_MAX_MB)
    assert searcher.allocated_mb == 2 * MARIASZ_MAX_MB and resident_mib() - before < 64
    del searcher
    assert ddcards.Solver(tt_mb=MARIASZ_MAX_MB).solve(MARIASZ).value == 88


def test_a_solver_sized_per_game_grows_for_mariasz_and_keeps_it():
    solver = ddcards.Solver()
    assert solver.sized_per_game and solver.tt_mb == solver.tt_allocated_mb == 2
    assert solver.solve(MARIAS).value == 70
    assert solver.tt_mb == 2
    assert solver.solve(MARIASZ).value == 88
    assert solver.tt_mb == solver.tt_allocated_mb == MARIASZ_MB
    # Alternating games: the memory stays, the small games search in 2 MiB of it.
    assert solver.solve(MARIAS).value == 70
    assert (solver.tt_mb, solver.tt_allocated_mb) == (2, MARIASZ_MB)
    assert solver.value(KLAVERJAS) == 132
    assert solver.solve(MARIASZ).value == 88
    assert solver.tt_mb == solver.tt_allocated_mb == MARIASZ_MB


def test_a_smaller_game_searches_as_in_a_table_of_its_own():
    # The same nodes as a new Solver's, before and after a Mariasz search grew the memory: a
    # result does not depend on what the Solver searched before.
    fresh = [ddcards.Solver().solve(doc).nodes for doc in (MARIAS, KLAVERJAS, PRSI)]
    solver = ddcards.Solver()
    solver.solve(MARIASZ)
    assert [solver.solve(doc).nodes for doc in (MARIAS, KLAVERJAS, PRSI)] == fresh
    assert solver.solve(MARIASZ).nodes == ddcards.Solver().solve(MARIASZ).nodes


def test_searcher_use_searches_in_part_of_the_table():
    board = get_game("marias").session(MARIAS).board
    alone = Searcher(2).solve(board, MODE_ALL)
    searcher = Searcher(8)
    searcher.solve(board, MODE_ALL)
    searcher.use(2)
    assert (searcher.tt_mb, searcher.allocated_mb, searcher.tt_entries) == (2, 8, 2 * 2**20 // 32)
    assert searcher.solve(board, MODE_ALL) == alone          # empty, and as small as a 2 MiB table
    searcher.use(64)                                          # no more than is allocated
    assert (searcher.tt_mb, searcher.tt_entries) == (8, 8 * 2**20 // 32)


def test_value_and_analyse_size_the_table_too():
    solver = ddcards.Solver()
    assert solver.value(MARIASZ) == 88
    assert solver.tt_mb == MARIASZ_MB
    solver = ddcards.Solver()
    recorded = solver.analyse(ddcards.example("mariasz-recorded"))
    assert solver.tt_mb == MARIASZ_MB
    assert recorded.final_value == 86


def test_an_explicit_size_never_changes():
    solver = ddcards.Solver(tt_mb=4)
    assert not solver.sized_per_game
    for doc in (MARIASZ, MARIAS, KLAVERJAS, PRSI):
        solver.solve(doc)
        assert solver.tt_mb == 4
    small = ddcards.Solver(tt_mb=1)
    small.solve(MARIASZ)
    assert small.tt_mb == 1


@pytest.mark.parametrize("bad", [0, -2, 2.5, True, "16"])
def test_a_bad_size_is_refused(bad):
    with pytest.raises(ValueError, match="tt_mb"):
        ddcards.Solver(tt_mb=bad)


def test_answers_are_the_same_whatever_the_size():
    per_game, tiny, large = ddcards.Solver(), ddcards.Solver(tt_mb=1), ddcards.Solver(tt_mb=32)
    for doc in POSITIONS:
        expected = answer(per_game.solve(doc, mode="all"))
        assert answer(tiny.solve(doc, mode="all")) == expected, doc
        assert answer(large.solve(doc, mode="all")) == expected, doc
    assert per_game.tt_allocated_mb == MARIASZ_MB


def test_threads_of_a_search_share_the_grown_table():
    solver = ddcards.Solver()
    alone = answer(ddcards.Solver(tt_mb=16).solve(MARIASZ, mode="all"))
    assert answer(solver.solve(MARIASZ, mode="all", threads=2)) == alone
    assert solver.tt_mb == MARIASZ_MB
    assert answer(solver.solve(MARIAS, mode="all", threads=2)) == answer(ddcards.Solver().solve(MARIAS, mode="all"))


def test_the_side_area_grows_with_the_table_in_use():
    kib = 1024
    assert [Searcher(mb).side_area_bytes for mb in (1, 2, 3, 16, 32, 128)] == [
        256 * kib, 256 * kib, 256 * kib, 2048 * kib, 4096 * kib, 16384 * kib]
    # what the service states as its memory bound per worker: the table and its side area
    assert [api.table_memory_mb(mb) for mb in (1, 2, 16, 32, 128, 1024)] == [2, 3, 18, 36, 144, 1040]
    # A Mariasz search in 32 MiB of a 128 MiB table runs as in a 32 MiB table alone: its side
    # area (the endgame's memo of the last tricks) shrinks with it.
    board = get_game("mariasz").session(MARIASZ).board
    alone = Searcher(32).solve(board, MODE_ALL)
    grown = Searcher(128)
    grown.use(32)
    assert grown.side_area_bytes == 4096 * kib
    assert grown.solve(board, MODE_ALL) == alone
    grown.use(2)
    assert grown.side_area_bytes == 256 * kib


def test_a_helper_threads_side_area_is_as_large_as_the_tables():
    # A helper thread keeps its game's memo in its own Searcher's side area: the search gives
    # it the size of the searched table's (a 1 MiB helper beside a 32 MiB table: 4 MiB, not
    # 256 KiB), and the answer is the one thread's.
    kib = 1024
    session = get_game("mariasz").session(MARIASZ)
    main, helper = Searcher(32), Searcher(1)
    alone = Searcher(32).solve(session.board, MODE_ALL)
    assert helper.side_area_bytes == 256 * kib
    got = main.solve(session.board, MODE_ALL, helpers=[(helper, get_game("mariasz").session(MARIASZ).board)])
    assert helper.side_area_bytes == 4096 * kib
    assert (got[0], sorted(got[1])) == (alone[0], sorted(alone[1]))
    main.use(2)                                            # and follows the table down again
    main.solve(session.board, MODE_ALL, helpers=[(helper, get_game("mariasz").session(MARIASZ).board)])
    assert helper.side_area_bytes == 256 * kib


def test_searcher_resize_gives_an_empty_table_of_the_new_size():
    board = get_game("mariasz").session(MARIASZ).board
    cold = Searcher(8).solve(board, MODE_ALL)
    searcher = Searcher(2)
    assert searcher.tt_entries == 2 * 2**20 // 32
    searcher.solve(board, MODE_ALL)
    searcher.resize(8)
    assert (searcher.tt_mb, searcher.tt_entries) == (8, 8 * 2**20 // 32)
    # Nothing of the search before survives: the same search costs what a new table's does.
    assert searcher.solve(board, MODE_ALL) == cold


def test_a_resize_that_cannot_be_had_keeps_the_old_table():
    board = get_game("mariasz").session(MARIASZ).board
    searcher = Searcher(2)
    first = searcher.solve(board, MODE_ALL)
    for impossible in (IMPOSSIBLE_MB, (1 << 64) - 1):       # too large to have; too large to count in bytes
        with pytest.raises(MemoryError, match=f"{impossible} MiB"):
            searcher.resize(impossible)
    assert (searcher.tt_mb, searcher.tt_entries) == (2, 2 * 2**20 // 32)
    # The table still holds the first search: the same answer, far fewer nodes.
    again = searcher.solve(board, MODE_ALL)
    assert again[:3] == first[:3]
    assert again[3] < first[3] // 2
    with pytest.raises(ValueError, match="at least 1"):
        searcher.resize(0)


def test_a_table_that_cannot_grow_raises_and_the_solver_still_solves(monkeypatch):
    monkeypatch.setattr(mariasz.GAME, "info", dataclasses.replace(mariasz.INFO, table_mb=IMPOSSIBLE_MB))
    solver = ddcards.Solver()
    with pytest.raises(MemoryError):
        solver.solve(MARIASZ)
    assert solver.tt_mb == 2
    assert solver.solve(MARIAS).value == 70
    monkeypatch.undo()
    assert solver.solve(MARIASZ).value == 88
    assert solver.tt_mb == MARIASZ_MB


def test_solve_many_sizes_each_threads_table_per_game():
    docs = [MARIAS, MARIASZ]
    done = sorted(ddcards.solve_many(docs, jobs=1), key=lambda d: d.index)
    assert [d.result.value for d in done] == [70, 88]
    # jobs=1 solves in this thread, on its solve_many Solver
    assert many._thread_solver(None).sized_per_game and many._thread_solver(None).tt_allocated_mb == MARIASZ_MB
    assert many._thread_solver(4).tt_mb == 4 and not many._thread_solver(4).sized_per_game
    with pytest.raises(ValueError, match="tt_mb"):
        ddcards.solve_many(docs, tt_mb=0)


def test_ddtable_threads_get_the_callers_sizing(monkeypatch):
    from ddcards.ddtable import dd_table

    made: list[int | None] = []

    class Recording(ddcards.Solver):
        def __init__(self, tt_mb: int | None = None):
            made.append(tt_mb)
            super().__init__(tt_mb)

    monkeypatch.setattr(api, "Solver", Recording)
    # A Mariáš table's further threads each get a Solver sized as the caller's.
    marias = ddcards.example("marias-hra")
    expected = dd_table(marias, solver=ddcards.Solver(tt_mb=2))["entries"]
    assert dd_table(marias, solver=ddcards.Solver(), threads=2)["entries"] == expected
    assert dd_table(marias, solver=ddcards.Solver(tt_mb=3), threads=2)["entries"] == expected
    assert made == [None, 3]
    # Klaverjas's rows are searched together in the caller's table (Searcher.values): its further
    # threads need no Solver, only a side area each.
    made.clear()
    expected = dd_table(KLAVERJAS, solver=ddcards.Solver(tt_mb=2))["values"]
    assert dd_table(KLAVERJAS, solver=ddcards.Solver(), threads=2)["values"] == expected
    assert dd_table(KLAVERJAS, solver=ddcards.Solver(tt_mb=3), threads=2)["values"] == expected
    assert made == []


def test_cli_and_server_default_to_tables_sized_per_game(capsys):
    from ddcards import cli
    from ddcards.server.main import build_parser
    from ddcards.server.service import SolverPool

    assert cli.build_parser().parse_args(["solve", "--example"]).tt_mb is None
    assert build_parser().parse_args([]).tt_mb is None
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--help"])
    assert "per game, 2 MiB, 32 for mariasz (up to 1024 early in a deal)" in " ".join(capsys.readouterr().out.split())
    per_game, fixed = SolverPool(workers=2, tt_mb=None), SolverPool(workers=2, tt_mb=8)
    try:
        # the tables and their side areas: 1024 + 16 MiB, 8 + 1 (256 KiB, rounded up)
        assert (per_game.table_bound_mb, fixed.table_bound_mb) == (2 * (MARIASZ_MAX_MB + 16), 2 * (8 + 1))
    finally:
        per_game.shutdown(wait=True)
        fixed.shutdown(wait=True)


def test_release_memory_gives_back_what_the_table_grew_to(monkeypatch):
    """A notebook's default Solver kept 1 GiB after one fresh 36-card deal, for the whole session
    (clear() empties the table, not the memory): release_memory returns to the first 2 MiB and
    drops the helper threads' side areas; the next search grows it again, with the same answers."""
    monkeypatch.setattr(mariasz, "TABLE_BY_STOCK", ((8, 48),))
    solver = ddcards.Solver()
    expected = answer(solver.solve(MID_STOCK, threads=2))
    assert solver.tt_allocated_mb == 48 and len(solver._helpers) == 1
    solver.release_memory()
    assert (solver.tt_mb, solver.tt_allocated_mb, solver._helpers) == (2, 2, [])
    assert answer(solver.solve(KLAVERJAS)) == answer(ddcards.Solver().solve(KLAVERJAS))
    assert answer(solver.solve(MID_STOCK)) == expected
    assert solver.tt_allocated_mb == 48
    fixed = ddcards.Solver(tt_mb=4)
    fixed.solve(MID_STOCK, threads=2)
    fixed.release_memory()                                  # a fixed size stays; the side areas go
    assert (fixed.tt_mb, fixed.tt_allocated_mb, fixed._helpers) == (4, 4, [])
