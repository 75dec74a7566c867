"""Errors raised by ddcards.

Every error about bad input is a :class:`DdcardsError`, a ``ValueError``
subclass whose message names the offending token and the rule it breaks.
Interfaces map them to exit code 2 (CLI) or INVALID_ARGUMENT (gRPC).

Each class carries a stable machine-readable ``reason`` (``INVALID_CARD``,
``ILLEGAL_PLAY``, ...): the gRPC service sends it as ``google.rpc.ErrorInfo``
reason, so clients can branch on it without parsing the message. Subclasses
inherit their parent's reason unless they name their own.
"""
from __future__ import annotations

# At run time too (result imports nothing of ddcards): typing.get_type_hints reads the annotations.
from ddcards.result import Analysis, AnalysisStep, SearchProgress


class DdcardsError(ValueError):
    """Bad input: the message names the token and the rule.

    ``token``: the offending text (as given, or in canonical notation where it parsed: a
    ``"10H"`` played illegally is ``"TH"``); ``rule``: the rule it breaks;
    ``field``: where in the position document it sits, as a path such as
    ``played[1]``, ``hands[2]``, ``talon`` or ``options.sedma_value`` (None
    when the error concerns no single field).
    """

    reason = "INVALID_INPUT"

    def __init__(self, message: str, *, token: str | None = None, rule: str | None = None,
                 field: str | None = None):
        super().__init__(message)
        self.token = token
        self.rule = rule
        self.field = field


class NotationError(DdcardsError):
    """Text that is not valid notation (docs/RULES.md §0)."""

    reason = "NOTATION"


class NotationTypeError(NotationError, TypeError):
    """Notation given as a value of the wrong type (``Card.parse(None)``, ``play(5)``): bad
    notation as any other, and a TypeError, as Python says of a wrong type."""


class InvalidCardError(NotationError):
    """A card token that names no card, or a card the game's deck lacks."""

    reason = "INVALID_CARD"


class InvalidDealError(DdcardsError):
    """Hands/talon/stock that do not form a legal deal: sizes, duplicates, talon rules."""

    reason = "INVALID_DEAL"


class IllegalPlayError(DdcardsError):
    """An action in the history that the rules do not allow at that point."""

    reason = "ILLEGAL_PLAY"


class NothingToUndoError(IllegalPlayError, IndexError):
    """``Position.undo()`` on a position with nothing played (an IndexError too, as ``list.pop()``
    on an empty list raises)."""


class InvalidOptionError(DdcardsError):
    """An unknown game, contract, objective or option, or one that does not apply."""

    reason = "INVALID_OPTION"


class InvalidArgumentTypeError(InvalidOptionError, TypeError):
    """An argument of the wrong type (``timeout="5"``, ``cancel="x"``): bad input, so a
    DdcardsError as any other, and a TypeError, as Python says of a wrong type."""


class TableMemoryError(MemoryError):
    """A transposition table that cannot be allocated now: not enough free memory.

    ``table_mb``: the table's size (MiB); ``game``: the game whose searches need a table of
    that size (None: the size the caller asked for); ``option``: the argument that sizes the
    table as the caller knows it (``tt_mb`` in Python, ``--tt-mb`` on the command line), which
    the message names in what to do. ``for_option`` gives the same error for another caller.
    """

    def __init__(self, table_mb: int, *, game: str | None = None, option: str = "tt_mb"):
        self.table_mb = table_mb
        self.game = game
        self.option = option
        if game is None:
            text = (f"cannot allocate a {table_mb:,} MiB transposition table: not enough free memory "
                    f"(give a smaller {option}, or leave it out for a table sized per game)")
        else:
            text = (f"cannot allocate the {table_mb:,} MiB transposition table {game} searches need: not "
                    f"enough free memory (give a smaller table of a fixed size: {option})")
        super().__init__(text)

    def for_option(self, option: str) -> TableMemoryError:
        """The same error, its advice naming `option` (``--tt-mb`` where a command reports it)."""
        return TableMemoryError(self.table_mb, game=self.game, option=option)

    def __reduce__(self) -> tuple[object, ...]:
        # Keyword arguments do not survive an exception's default pickling (a batch's worker
        # processes send their errors back pickled).
        return (_table_memory_error, (self.table_mb, self.game, self.option))


def _table_memory_error(table_mb: int, game: str | None, option: str) -> TableMemoryError:
    return TableMemoryError(table_mb, game=game, option=option)


class SearchAborted(Exception):
    """The search stopped before it finished (not a bad-input error).

    ``nodes``: the nodes searched before it stopped, as the message says (set by the
    ``Solver``; 0 when it stopped before a search began).  ``progress``: how far the search
    got (a ``SearchProgress``: first moves answered, the best bound on the value so far),
    which the message adds after "by then"; None where it had nothing to share out (a single
    move) or did not begin, and for an analysis.  A search of several positions at once (a
    DD table's rows) carries the progress of the first one not answered, and its index in
    ``row`` (None if none had any).  An analysis (``Solver.analyse``) carries in ``steps`` the
    ``AnalysisStep`` of each action it finished analysing, in order (None from any other call), and
    in ``analysis`` an ``Analysis`` of those steps (its ``final_value`` the value before the next
    recorded action, its ``final`` None; None if it stopped before its first value was found), which
    ``ddcards.report.render`` shows as a page.
    """

    reason = "SEARCH_ABORTED"
    nodes: int = 0
    progress: SearchProgress | None = None
    row: int | None = None
    steps: list[AnalysisStep] | None = None
    analysis: Analysis | None = None
    _nodes_told = False

    def tell_nodes(self, nodes: int) -> None:
        """Carry `nodes` and say them in the message ("<why it stopped> after N nodes"), for a call
        made of several searches (a long Prší horizon, a Mariáš contract table), where the core's
        message counts only the search it stopped.  Told before any progress (tell_progress)."""
        self.nodes = nodes
        self._nodes_told = True
        stopped = str(self.args[0]) if self.args else ""
        if nodes and stopped.startswith("the deadline passed"):  # (before a further search began)
            stopped = "the search ran out of time"
        why = stopped.split(" after ")[0]
        self.args = (f"{why} after {nodes:,} nodes" if nodes else why,) + self.args[1:]

    def tell_progress(self, progress: SearchProgress, where: str = "") -> None:
        """Carry ``progress`` and say it in the message: "<why it stopped>; by then[, where:] <progress>".
        ``where`` names the search it is of, when the stopped call ran several (a DD table's row);
        told again, the message keeps its first part and says the new progress."""
        stopped = self.__dict__.setdefault("_stopped", self.args[0] if self.args else "")
        self.progress = progress
        if isinstance(stopped, str):
            self.args = (f"{stopped}; by then{', ' + where + ':' if where else ''} {progress}",) + self.args[1:]


class SearchCancelled(SearchAborted):
    """The caller cancelled the search."""

    reason = "SEARCH_CANCELLED"


class SearchTimeout(SearchAborted):
    """The search ran past its deadline."""

    reason = "SEARCH_TIMEOUT"
