"""The readable answers: a result, an analysis and its rows, the Mariáš contract table."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TextIO

import ddcards
from ddcards.games.base import Session
from ddcards.position import aligned, seat_rows
from ddcards.result import spoken, step_distances, value_jumps


def signed(v: int | None) -> str:
    return "?" if v is None else f"{v:+d}"


def describe_value(res: ddcards.Result, session: Any) -> str:
    ended = getattr(session, "ended", None)             # a game that says how it ended (Prší: who is out)
    verdict = (ended() if ended is not None else None) or session.verdict(res.value, res.won, res.value_kind)
    if res.distance:                         # 0: the game is over, which the line above says
        verdict += f", the end in {res.distance} {'ply' if res.distance == 1 else 'plies'}"
    parts = ", ".join(f"{name} {'won' if part['won'] else 'lost'} {signed(part['money'])}"
                      for name, part in res.parts.items())
    scores = ", ".join(f"{spoken(k)} {v}" for k, v in res.scores.items())
    tricks = "tricks: " + ", ".join(f"{k} {v}" for k, v in res.tricks.items())
    # the card points at the line's end where they are more than its tricks (a Mariáš Hra): what
    # decides the Hra and a Kilo, also when the value is the money or an announcement's outcome
    points = scores if res.scores != res.tricks else ""
    if res.value_kind == "money":            # (a Betl's and a Durch's scores are their tricks)
        return f"{signed(res.value)}  {verdict} ({points or tricks}; money {parts})"
    detail = getattr(session, "value_detail", None)      # a game that words its own scores
    if detail is not None:
        return f"{signed(res.value)}  {verdict} ({detail(res)})"
    if res.value_kind == "points":
        # a Hra with announcements played for the margin: each part's money, which the settlement sums
        return f"{signed(res.value)}  {verdict} ({scores}" + (f"; money {parts})" if parts else ")")
    if not res.tricks:                       # not a trick game (Prší)
        return f"{signed(res.value)}  {verdict}"
    return f"{signed(res.value)}  {verdict} ({points or tricks})"    # points: a Hra played for Sedma or Kilo


def move_value(m: ddcards.MoveValue) -> str:
    if m.value is None:
        return f"{m.move} (worse)"
    return f"{m.move} {signed(m.value)}" + (f" in {m.distance}" if m.distance is not None else "")


def print_result(res: ddcards.Result, pos: ddcards.Position, out: TextIO) -> None:
    session = pos.session()
    info = session.describe()
    seat = res.to_move
    head = info.get("title", pos.game)
    if seat is not None:
        role = session.seat_role(seat)       # Prší names only the player whose value it is
        head += f" - seat {seat}" + (f" ({role})" if role else "") + " to move"
    else:
        head += " - the deal is over"      # every card played, a race claimed, a Prší game won
    print(head, file=out)
    # the hands and what else is in view laid out as print(Position) lays them out
    hands = info.get("hands", [])
    rows = seat_rows([session.seat_role(i) for i in range(len(hands))], [display_hand(hand) for hand in hands])
    for label in ("talon", "stock", "trick", "top", "pile"):
        if info.get(label):
            shown = info[label] if isinstance(info[label], str) else " ".join(info[label])
            if label == "trick":            # who played each card, as print(Position) says it
                shown = "  ".join(f"{card} (seat {seat})" for seat, card in session.current_trick())
            rows.append((label, shown))
    for line in aligned(rows):
        print(line, file=out)
    print(file=out)
    print(f"Value       {describe_value(res, session)}", file=out)
    if res.optimal_moves:
        label = "Best move" if res.mode == "best" else "Best moves"
        print(f"{label:<11} {' '.join(res.optimal_moves)}", file=out)
    if res.mode != "best" and res.moves:
        print("Moves       " + "  ".join(move_value(m) for m in res.moves), file=out)
    if res.pv:
        line = " | ".join(" ".join(trick) for trick in session.line_tricks(res.pv))
        print(f"Line        {line}", file=out)
    achieved = [spoken(k) for k, v in res.outcomes.items() if v]
    if res.outcomes:
        missed = ", ".join(f"no {spoken(k)}" for k, v in res.outcomes.items() if not v)
        if all(spoken(k).endswith(" out") for k in res.outcomes):      # Prší's seats, up to six
            missed = "nobody out"
        print(f"On the line {', '.join(achieved) if achieved else missed}", file=out)
    print("Settlement  " + ", ".join(f"seat {i} {v:+d}" for i, v in enumerate(res.settlement)), file=out)
    rate = res.nodes / res.elapsed / 1e6 if res.elapsed > 0 else 0.0
    print(f"Searched    {res.nodes:,} nodes in {res.elapsed * 1000:.1f} ms ({rate:.1f} M nodes/s)", file=out)


def print_analysis(an: ddcards.Analysis, pos: ddcards.Position, out: TextIO) -> None:
    """The analysis as a table, one row per recorded action; plies count from 0, as
    ``played[i]``, the JSON and the error messages count them."""
    start = pos.start().session()
    print(analysis_title(start, pos.game, an.from_ply, an.initial_value), file=out)
    if not an.steps and an.from_ply:
        print(f"Nothing to analyse from ply {an.from_ply}: the record ends there; the value above is the "
              "position's after its last action", file=out)
    elif not an.steps:
        print("Nothing to analyse: the position records no play (its 'played' is empty); the value above is "
              "the deal's as dealt (`ddcards solve` gives its best moves)", file=out)
    else:
        print_steps(an.steps, pos.game, out, value_columns(start))
    print_analysis_end(an, pos, start, out)


def print_analysis_end(an: ddcards.Analysis, pos: ddcards.Position, start: Session, out: TextIO) -> None:
    """What the analysis table ends with, after its rows: the mistakes, the final value, the
    settlement, the nodes (`start`: a session at the deal's start)."""
    if an.mistakes:
        print(f"Mistakes    {len(an.mistakes)}: " + ", ".join(
            f"ply {s.ply} {s.move} (seat {s.seat}, cost {s.cost})" for s in an.mistakes), file=out)
    else:
        print("Mistakes    none", file=out)
    # Prší: a search bounded by its horizon may see further from the next position (RULES §4.9)
    edges = [f"after ply {ply} {signed(after)}, "
             + (f"before ply {following} {signed(there)}" if following is not None else f"at the end {signed(there)}")
             for ply, after, following, there in value_jumps([(s.ply, s.value_before, s.value_after)
                                                              for s in an.steps], an.final_value)]
    if edges:
        print("Horizon     the value moved between actions, where the next search, bounded by the horizon, "
              "sees further: " + "; ".join(edges), file=out)
    if an.final is None and an.steps and an.steps[-1].ply + 1 < len(pos.played):
        # an analysis stopped on the way (SearchAborted.analysis): its value is that after its last step
        print(f"Value after ply {an.steps[-1].ply} {signed(an.final_value)} (the analysis stopped there; the "
              f"record goes on to ply {len(pos.played) - 1})", file=out)
    elif an.final is None:
        print(f"Final value {signed(an.final_value)}", file=out)
    else:
        # the final solve's own words (scores, parts, who is out), from the analysis's owner's view
        final = pos._owned_by(start.owner_options())
        print(f"Final value {describe_value(an.final, final.session())}", file=out)
        if an.final.settlement:
            print("Settlement  " + ", ".join(f"seat {i} {v:+d}" for i, v in enumerate(an.final.settlement)), file=out)
    print(f"Searched    {an.nodes:,} nodes in {an.elapsed * 1000:.1f} ms", file=out)


def analysis_title(start: Session, game: str, from_ply: int, initial_value: int) -> str:
    """The analysis table's first line: the game, and the value where the analysis starts
    (`start`: a session at the deal's start, whose owner's view the analysis takes)."""
    view = f"{start.value_owner}'s view" + (f": {start.value_meaning}" if start.value_meaning else "")
    where = "at the start" if from_ply == 0 else f"before ply {from_ply}"
    return f"{start.describe().get('title', game)} - value {where} {signed(initial_value)} ({view})"


COLUMNS = (7, 6)        # before and after, cost: values of up to 5 characters (+1000, -162)


def print_steps(steps: list[ddcards.AnalysisStep], game: str, out: TextIO,
                columns: tuple[int, int] = COLUMNS) -> None:
    """The analysis table's rows, under their header: one per step (mode all: with every move's value)."""
    width = print_steps_header([s.move for s in steps], game, out, columns)
    for s in steps:
        print_step(s, width, out, columns)


def value_columns(start: Session) -> tuple[int, int]:
    """The widths of the before and after columns and of the cost column: the deal's widest value,
    and its widest cost, and a space (`start`: a session at the deal's start; Mariáš's money of 8
    digits, stakes of 1,000,000 in hearts and re, stood out of columns 7 wide, under no header)."""
    values = start.value_range()
    if not values:
        return COLUMNS
    return (max(COLUMNS[0], *(len(signed(v)) + 1 for v in values)),
            max(COLUMNS[1], len(str(max(values) - min(values))) + 1))


def print_steps_header(moves: Sequence[str], game: str, out: TextIO,
                       columns: tuple[int, int] = COLUMNS) -> int:
    """The header of the rows of the steps that play `moves` (`columns`: the widths of the value and
    the cost columns, value_columns's); the width of their move column."""
    values, cost = columns
    # Prší's draws and passes, an Ober with its suit, Mariasz's exchange: actions, not cards
    unit = "card" if game != "prsi" and "exchange" not in moves else "action"
    width = max([4, len(unit)] + [len(move) for move in moves]) + 1     # Mariasz's "exchange" is a move too
    print(f"{'ply':>4} {'seat':>4}  {unit:<{width}}{'before':>{values}}{'after':>{values}}{'cost':>{cost}}  best",
          file=out)
    return width


def print_step(s: ddcards.AnalysisStep, width: int, out: TextIO, columns: tuple[int, int] = COLUMNS) -> None:
    """One row of the analysis table (mode all: and every move's value under it)."""
    values, cost = columns
    # a space before each number whatever its width: money of 8 digits (stakes of 1,000,000 in
    # hearts and re) ran the columns together ('+16000016-1599998432000000'); the columns are as
    # wide as the deal's widest value (value_columns), as the header is printed before the rows
    print(f"{s.ply:>4} {s.seat:>4}  {s.move:<{width}}{' ' + signed(s.value_before):>{values}}"
          f"{' ' + signed(s.value_after):>{values}}{' ' + str(s.cost):>{cost}}  {' '.join(s.best_moves)}"
          f"{step_mark(s)}", file=out)
    if s.moves:                        # mode all: every legal move's value at that point
        print(f"{'':>11}moves  " + "  ".join(move_value(m) for m in s.moves), file=out)


def step_mark(s: ddcards.AnalysisStep) -> str:
    """What the analysis table says after a step: a mistake, or (Prší, where the best action is
    also the fastest forced end or the longest held out) an action that kept the value but was not
    best; with every move's value (mode all), how soon each ends."""
    if s.mistake:
        return "  <- mistake, outcome turned" if s.changes_outcome else "  <- mistake"
    if not s.best_moves or s.move in s.best_moves:
        return ""
    # (without distances say no more: with three or more players -1 also covers "nothing forced")
    soon = step_distances(s.to_dict())
    best = sorted({d for m in s.best_moves if (d := soon.get(m)) is not None})
    if best:
        played = "no end within the horizon" if s.move not in soon else f"the end in {soon[s.move]} plies"
        return f"  <- kept the value, not the best: {played}, the best's in {' or '.join(map(str, best))}"
    return "  <- kept the value, not the best"


def display_hand(hand: str) -> str:
    return "  ".join(f"{s}: {h or '-'}" for s, h in zip("SHDC", hand.split(".")))


def print_marias_table(table: dict[str, Any], out: TextIO, *, every_row: bool = False) -> None:
    """The Mariáš contract table (docs/RULES.md §1.13): the best row of each contract, best
    first, or with `every_row` every discard × contract."""
    rows = table["entries"]
    fixed = table.get("talon")
    what = f"discard {fixed} fixed" if fixed else "every discard of forehand's 12 cards"
    extras = [f"{'flek' if table['flek'] == 1 else 're'}"] if table.get("flek") else []
    extras += [f"{table['players']} players"] if table.get("players", 3) != 3 else []
    extras += [f"{name} {value}" for name, value in (table.get("options") or {}).items()]
    print(f"Mariáš contract table - {what}; money is the declarer's settlement"
          + (f" ({', '.join(extras)})" if extras else ""), file=out)
    for seat, hand in enumerate(table["hands"]):
        print(f"  seat {seat}  {display_hand(hand)}", file=out)

    def label(row: dict[str, Any]) -> str:
        name = row["contract"] + (f" {row['trump']}" if row["trump"] else "")
        return " + ".join([name, *row["announcements"]])

    if rows:
        best = rows[0]
        print(f"\nBest: {label(best)}, discard {best['discard']}: value {signed(best['value'])}, "
              f"money {signed(best['money'])}", file=out)
    if every_row:
        shown = rows
        heading = "every row, best first"
    else:
        # the best row of each contract, and how many of its discards are worth as much with the
        # same announcements (the row shown stands for them: one with others is another row)
        seen: dict[tuple[str, str | None], dict[str, Any]] = {}
        ties: dict[tuple[str, str | None], int] = {}
        for row in rows:
            key = (row["contract"], row["trump"])
            first = seen.setdefault(key, row)
            if (row["money"], row["value"], row["announcements"]) == (first["money"], first["value"],
                                                                      first["announcements"]):
                ties[key] = ties.get(key, 0) + 1
        shown = list(seen.values())
        heading = "the best discard of each contract"
    # the columns as wide as their widest text and a space: stakes up to 1,000,000, doubled in
    # hearts and by re, are money of 8 digits, which ran into the value ('+70+16000016')
    width = max([22, *(len(label(row)) + 1 for row in shown)])
    money = max([7, *(len(signed(row["money"])) + 1 for row in shown)])
    print(f"\n{'discard':<9}{'contract':<{width}}{'value':>6}{'money':>{money}}   ({heading})", file=out)
    for row in shown:
        more = ties.get((row["contract"], row["trump"]), 1) - 1 if not every_row else 0
        also = f"   and {more} other discard{'s' if more > 1 else ''}" if more else ""
        print(f"{row['discard']:<9}{label(row):<{width}}{signed(row['value']):>6}{signed(row['money']):>{money}}{also}",
              file=out)
