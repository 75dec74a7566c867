"""``ddcards bench``: a fixed set of positions of every game, each solved cold, as a speed figure
and a signature of the search (as a chess engine's ``bench``).

The positions (``positions.jsonl`` beside this file, each with its ``id``: the corpus and its line)
are the first lines of the seeded corpora of ``benchmarks/corpus``, chosen to sample what users
solve: full Mariáš and Klaverjas deals of every contract, trump, playing team and rule set,
Mariasz deals from the first trick and late in the stock, every variant, Prší positions of 2 to 6
players at their own horizons.  ``benchmarks/make_bench_positions.py`` writes the file from the
corpora (a test checks that they agree).

Each position is solved in mode ``all`` (the value and every legal move's value, as the command
line answers by default) in a table cleared first and sized per game, as ``ddcards solve`` does.
On one thread the node count is a property of the search alone: the same on every machine and
either build of the kernels, so a build that searches differently shows at once.  Times are the
search's own (each position's least over ``repeat`` runs); they vary with the machine and its load.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from ddcards.api import Solver
from ddcards.api.arguments import check_whole
from ddcards.errors import InvalidOptionError

__all__ = ["GROUPS", "BenchGroup", "BenchReport", "answers_hash", "bench_positions", "run_bench"]

#: The groups of the bench, in the order they run: (name, title, the corpora their positions come from
#: with how many of each: the first lines of benchmarks/corpus/<corpus>.jsonl).
GROUPS: tuple[tuple[str, str, tuple[tuple[str, int], ...]], ...] = (
    ("marias", "Mariáš: Hra, Betl, Durch, Sedma and Kilo, money, 3 or 4 players, mid-deal",
     (("marias-hra", 40), ("marias-mixed", 40), ("marias-betl", 10), ("marias-durch", 10),
      ("marias-announced", 10), ("marias-midgame", 10))),
    ("klaverjas", "Klaverjas: both rule sets, any trump, playing team and leader, mid-deal",
     (("klaverjas-amsterdam", 10), ("klaverjas-rotterdam", 10), ("klaverjas-mixed", 20),
      ("klaverjas-midgame", 10))),
    ("mariasz", "Mariasz: szlifowany from the first trick, Kiks, three players, races, phase 2",
     (("mariasz-szlifowany", 4), ("mariasz-kiks", 4), ("mariasz-three", 3), ("mariasz-race", 10),
      ("mariasz-race-early", 6), ("mariasz-mixed", 20), ("mariasz-phase2", 20))),
    ("prsi", "Prší: 2 to 6 players, any leader, player and variant, horizons 8 to 30",
     (("prsi-mixed", 30), ("prsi-midgame", 10), ("prsi-fresh-2", 5))),
)
GROUP_RULE = "ddcards bench --group: one of " + ", ".join(name for name, _, _ in GROUPS)


@dataclass(frozen=True)
class BenchGroup:
    """One group's figures: its positions, the nodes they took and the search's seconds."""

    name: str
    title: str
    positions: int
    nodes: int
    seconds: float

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0


@dataclass(frozen=True)
class BenchReport:
    """What ``ddcards bench`` prints: each group's figures and the totals.  ``nodes`` (on one
    thread) is the search's signature; ``threads``, ``repeat`` and ``kernels`` say how it ran."""

    groups: list[BenchGroup]
    threads: int
    repeat: int
    version: str
    kernels: str
    tt_mb: int | None = None           # None: each position's table sized per game (the signature's)
    answers: str = ""                  # answers_hash of every position's answer: any right search's

    @property
    def nodes(self) -> int:
        return sum(g.nodes for g in self.groups)

    @property
    def seconds(self) -> float:
        return sum(g.seconds for g in self.groups)

    @property
    def positions(self) -> int:
        return sum(g.positions for g in self.groups)

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0

    @property
    def signature(self) -> bool:
        """Is ``nodes`` the search's signature (one thread, the tables sized per game)?"""
        return self.threads == 1 and self.tt_mb is None

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        for group, data in zip(self.groups, out["groups"]):
            data["nodes_per_second"] = round(group.nodes_per_second)
        out.update(nodes=self.nodes, seconds=self.seconds, positions=self.positions,
                   nodes_per_second=round(self.nodes_per_second), signature=self.signature)
        return out


def bench_positions(groups: Iterable[str] | None = None) -> list[tuple[str, dict[str, Any]]]:
    """The bench's (group, position document) pairs, in order; `groups` picks some by name."""
    wanted = None if groups is None else list(groups)
    known = [name for name, _, _ in GROUPS]
    for name in wanted or ():
        if name not in known:
            raise InvalidOptionError(f"no bench group '{name}' ({GROUP_RULE})", token=name, rule=GROUP_RULE)
    group_of = {corpus: name for name, _, corpora in GROUPS for corpus, _ in corpora}
    text = resources.files(__package__).joinpath("positions.jsonl").read_text(encoding="utf-8")
    out = []
    for line in text.splitlines():
        doc = json.loads(line)
        group = group_of[doc["id"].split(":")[0]]
        if wanted is None or group in wanted:
            out.append((group, doc))
    return out


def answers_hash(answers: Iterable[tuple[str, Any]]) -> str:
    """A short hash of (position id, Result) pairs: each position's value and every legal move's
    value. Unlike the node count it does not depend on how the search got there (threads, table
    size, a faster search), only on the answers: a build that answers one position wrongly
    changes it, where the node count alone would not say whether the answers moved."""
    h = hashlib.sha256()
    for ident, result in answers:
        moves = sorted((str(m.move), m.value) for m in result.moves)
        h.update(json.dumps([ident, result.value, moves]).encode())
    return h.hexdigest()[:16]


def run_bench(solver: Solver | None = None, *, groups: Iterable[str] | None = None, repeat: int = 1, threads: int = 1,
              progress: Callable[[int, int], None] | None = None) -> BenchReport:
    """Solve every bench position (of `groups`, default all) cold in mode all, `repeat` times
    each (its least search time counts), on `threads` threads; `progress(done, total)` after
    each position."""
    import ddcards
    from ddcards import _kernels
    from ddcards._core.search import BUILD_FEATURES

    # (0 would time nothing: an endless least time, a rate of 0)
    repeat = check_whole(repeat, 1, None, f"repeat is a whole number of at least 1 (got {repeat!r})",
                         rule="run_bench: repeat", field="repeat")
    engine = solver if solver is not None else ddcards.Solver()
    tt_mb = None if engine.sized_per_game else engine.tt_mb
    work = bench_positions(groups)
    figures: dict[str, list[int | float]] = {name: [0, 0, 0.0] for name, _, _ in GROUPS}
    answered = []
    for done, (group, doc) in enumerate(work, 1):
        pos = ddcards.Position.from_dict(doc)
        best, nodes = float("inf"), 0
        for _ in range(repeat):
            result = engine.solve(pos, mode="all", threads=threads)        # a cleared table each time
            best, nodes = min(best, result.elapsed), result.nodes
        answered.append((doc["id"], result))
        figures[group][0] += 1
        figures[group][1] += nodes
        figures[group][2] += best
        if progress is not None:
            progress(done, len(work))
    chosen = [BenchGroup(name, title, int(figures[name][0]), int(figures[name][1]), float(figures[name][2]))
              for name, title, _ in GROUPS if figures[name][0]]
    return BenchReport(chosen, threads=threads, repeat=repeat, version=ddcards.__version__,
                       kernels=f"{_kernels.loaded()} ({BUILD_FEATURES})", tt_mb=tt_mb, answers=answers_hash(answered))


def select_from_corpora(corpus_dir: Any) -> list[dict[str, Any]]:
    """The bench's positions as the corpora give them (benchmarks/make_bench_positions.py)."""
    out = []
    for _, _, corpora in GROUPS:
        for corpus, count in corpora:
            lines = (Path(corpus_dir) / f"{corpus}.jsonl").read_text(encoding="utf-8").splitlines()[:count]
            out += [{"id": f"{corpus}:{i + 1}", **json.loads(line)} for i, line in enumerate(lines)]
    return out

