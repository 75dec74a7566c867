"""The scalar fields: enums by name (GAME_MARIAS <-> "marias"), solve modes, the analysis's from_ply, time
limits, option values (OptionValue <-> a Python value) and the int32 range of a response's numbers."""
from __future__ import annotations

import math
from typing import Any, TypeVar, cast

from google.protobuf.internal.enum_type_wrapper import EnumTypeWrapper

from ddcards.api import ANALYSIS_MODE_RULE, MODE_RULE, check_from_ply
from ddcards.errors import DdcardsError
from ddcards.server.status import RequestError, ValueOutOfRange, shorten
from ddcards.v1 import ddcards_pb2 as pb

SUIT_LETTERS: dict[pb.Suit, str] = {
    pb.SUIT_SPADES: "S",
    pb.SUIT_HEARTS: "H",
    pb.SUIT_DIAMONDS: "D",
    pb.SUIT_CLUBS: "C",
}
SUIT_BY_LETTER = {v: k for k, v in SUIT_LETTERS.items()}

# The rule of an OptionValue, which its error cites (as the library's errors cite docs/RULES.md).
OPTION_VALUE_RULE = "OptionValue: exactly one of bool_value, int_value, double_value and string_value is set"

# An enum number outside the enum (a client may send any): named with the enum's range and the rule.
SUIT_ENUM_RULE = "docs/RULES.md §0.1 rule 1: suits S H D C; a Suit is SUIT_SPADES (1) to SUIT_CLUBS (4)"
RANK_ENUM_RULE = "docs/RULES.md §0.2 rule 1: ranks 6 7 8 9 T J Q K A; a Rank is RANK_SIX (6) to RANK_ACE (14)"

RANK_LETTERS: dict[pb.Rank, str] = {
    pb.RANK_SIX: "6",
    pb.RANK_SEVEN: "7",
    pb.RANK_EIGHT: "8",
    pb.RANK_NINE: "9",
    pb.RANK_TEN: "T",
    pb.RANK_JACK: "J",
    pb.RANK_QUEEN: "Q",
    pb.RANK_KING: "K",
    pb.RANK_ACE: "A",
}
RANK_BY_LETTER = {v: k for k, v in RANK_LETTERS.items()}
# Order of ranks inside a PBN hand ("AKT.987..QJ"), highest first.
HAND_RANK_ORDER = "AKQJT9876"
HAND_SUIT_ORDER = "SHDC"

MODE_NAMES: dict[int, str] = {
    pb.SOLVE_MODE_UNSPECIFIED: "all",
    pb.SOLVE_MODE_BEST: "best",
    pb.SOLVE_MODE_OPTIMAL: "optimal",
    pb.SOLVE_MODE_ALL: "all",
}
_MODE_BY_NAME = {"best": pb.SOLVE_MODE_BEST, "optimal": pb.SOLVE_MODE_OPTIMAL, "all": pb.SOLVE_MODE_ALL}


def enum_to_name(enum_type: EnumTypeWrapper, value: int) -> str:
    """``(pb.Game, GAME_MARIAS)`` -> ``"marias"``; ``""`` for the UNSPECIFIED value or an unknown number."""
    if value == 0:
        return ""
    try:
        full = enum_type.Name(value)
    except ValueError:
        return ""
    prefix = _enum_prefix(enum_type)
    return full[len(prefix):].lower() if full.startswith(prefix) else full.lower()


_Enum = TypeVar("_Enum", bound=int)


def name_to_enum(enum_type: type[_Enum], name: str) -> _Enum:
    """``(pb.Game, "marias")`` -> ``GAME_MARIAS``; 0 (UNSPECIFIED) for a name the enum lacks."""
    # protoc's stubs make an enum (pb.Game) a class of its values; the object is the class's
    # metaclass, EnumTypeWrapper, whose Value() is typed as a plain int: that number is the enum's.
    return cast(_Enum, _enum_number(cast(EnumTypeWrapper, enum_type), name))


def _enum_number(enum_type: EnumTypeWrapper, name: str) -> int:
    if not name:
        return 0
    key = _enum_prefix(enum_type) + name.upper()
    try:
        return enum_type.Value(key)
    except ValueError:
        return 0


def _enum_prefix(enum_type: EnumTypeWrapper) -> str:
    # Every enum's zero value is <PREFIX>UNSPECIFIED (buf's style rule).
    zero = enum_type.Name(0)
    return zero[: -len("UNSPECIFIED")]


def mode_to_name(mode: int) -> str:
    try:
        return MODE_NAMES[mode]
    except KeyError:
        raise RequestError(f"unknown solve mode {mode}: use SOLVE_MODE_BEST (1), SOLVE_MODE_OPTIMAL (2) or "
                           f"SOLVE_MODE_ALL (3) ({MODE_RULE})", token=str(mode), rule=MODE_RULE,
                           field="mode") from None


def analysis_mode_name(mode: int) -> str:
    """An AnalysePlayRequest's mode: unset is "optimal" (a solve's unset is "all"), BEST is refused."""
    if mode == pb.SOLVE_MODE_UNSPECIFIED:
        return "optimal"
    if mode == pb.SOLVE_MODE_BEST:
        raise RequestError(f"an analysis takes mode SOLVE_MODE_OPTIMAL or SOLVE_MODE_ALL, not SOLVE_MODE_BEST: each "
                           f"step lists every optimal move (best_moves) and whether the move played was one of "
                           f"them ({ANALYSIS_MODE_RULE})",
                           token="SOLVE_MODE_BEST", rule=ANALYSIS_MODE_RULE, field="mode")
    if mode not in MODE_NAMES:
        raise RequestError(f"unknown analysis mode {mode}: use SOLVE_MODE_OPTIMAL (2) or SOLVE_MODE_ALL (3) "
                           f"({ANALYSIS_MODE_RULE})", token=str(mode), rule=ANALYSIS_MODE_RULE, field="mode")
    return mode_to_name(mode)


def name_to_analysis_mode(name: str | int) -> pb.SolveMode:
    """An analysis's mode for its request, as name_to_mode takes it, checked as the server checks
    it: "optimal" or "all" (a number outside the enum goes as it is); "best" or an unknown name
    is a RequestError before anything is sent (name_to_mode's would suggest "best")."""
    try:
        number = name_to_mode(name)
    except RequestError:
        raise RequestError(f"unknown analysis mode {name!r}: use optimal or all ({ANALYSIS_MODE_RULE})",
                           token=str(name), rule=ANALYSIS_MODE_RULE, field="mode") from None
    if number == pb.SOLVE_MODE_BEST:      # the server's refusal, in the client's names of the modes
        raise RequestError(f"an analysis takes mode optimal or all, not best: each step lists every optimal move "
                           f"(best_moves) and whether the move played was one of them ({ANALYSIS_MODE_RULE})",
                           token=str(name), rule=ANALYSIS_MODE_RULE, field="mode")
    return number


FROM_PLY_RULE = "AnalysePlayRequest.from_ply: a whole number from 0 to the number of recorded actions"


def from_ply_field(value: Any) -> int:
    """An analysis's from_ply for its request: a whole number that an int32 field holds (the
    server checks it against the record); a RequestError otherwise, before anything is sent."""
    if isinstance(value, bool) or not isinstance(value, int) or not INT32_MIN <= value <= INT32_MAX:
        raise RequestError(f"from_ply is a whole number from 0 to the number of recorded actions, not {value!r} "
                           f"({FROM_PLY_RULE})", token=repr(value), rule=FROM_PLY_RULE, field="from_ply")
    return value


def analysis_from_ply(from_ply: int, actions: int) -> int:
    """An AnalysePlayRequest's from_ply checked against the record's `actions` as the library
    checks it, refused as a request field (``from_ply``, not a place in the position)."""
    try:
        return check_from_ply(from_ply, actions)
    except DdcardsError as exc:
        raise RequestError(str(exc), token=exc.token, rule=exc.rule, field="from_ply") from None


def name_to_mode(name: str | int) -> pb.SolveMode:
    if isinstance(name, bool):      # an int to Python, but no mode: protobuf's TypeError, or True as BEST
        raise RequestError(f"unknown solve mode {name!r}: use best, optimal or all ({MODE_RULE})", token=str(name),
                           rule=MODE_RULE, field="mode")
    if isinstance(name, int):
        if not INT32_MIN <= name <= INT32_MAX:      # no enum field holds it
            raise RequestError(f"unknown solve mode {name}: use best, optimal or all ({MODE_RULE})", token=str(name),
                               rule=MODE_RULE, field="mode")
        return cast(pb.SolveMode, name)   # a number goes as it is: the receiver checks it
    key = str(getattr(name, "value", name)).strip().lower()
    if key.startswith("solve_mode_"):
        key = key[len("solve_mode_"):]
    try:
        return _MODE_BY_NAME[key]
    except KeyError:
        raise RequestError(f"unknown solve mode {name!r}: use best, optimal or all ({MODE_RULE})", token=str(name),
                           rule=MODE_RULE, field="mode") from None


TIMEOUT_RULE = "timeout_seconds: a number of seconds, at least 0 (0 = no limit of its own)"


def timeout_limit(seconds: float, where: str = "timeout_seconds") -> float:
    """A request's ``timeout_seconds``: 0 (unset) or infinity for no limit of its own (the
    call's deadline applies all the same), else the seconds; NaN or a negative number is a
    RequestError naming ``where``, never a search without a limit."""
    if math.isnan(seconds) or seconds < 0:
        raise RequestError(f"{where} must be a number of seconds, at least 0 (0: no limit but the call's "
                           f"deadline), not {seconds!r}", token=repr(seconds), rule=TIMEOUT_RULE, field=where)
    return seconds


def option_to_python(name: str, value: pb.OptionValue, where: str = "options") -> bool | int | float | str:
    kind = value.WhichOneof("kind")
    if kind is None:
        raise RequestError(f"option {shorten(name)!r} has no value", token=name, rule=OPTION_VALUE_RULE,
                           field=f"{where}.{name}")
    python: bool | int | float | str = getattr(value, kind)   # the oneof's one field set
    return python


def option_value(value: pb.OptionValue) -> bool | int | float | str | None:
    """An OptionValue of a response as Python reads it: its one value, None where none is set
    (what a client reads it does not refuse, as option_to_python does a request's)."""
    kind = value.WhichOneof("kind")
    return None if kind is None else getattr(value, kind)


def python_to_option(value: Any) -> pb.OptionValue:
    if value is None:
        return pb.OptionValue()
    if isinstance(value, bool):
        return pb.OptionValue(bool_value=value)
    if isinstance(value, int):
        return pb.OptionValue(int_value=value)
    if isinstance(value, float):
        return pb.OptionValue(double_value=value)
    return pb.OptionValue(string_value=str(value))


INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1


def int32(value: Any, field: str, key: Any = None) -> int:
    """``value`` for an int32 response field, or ValueOutOfRange naming the field
    (``field``, or ``field[key]``): a value the field cannot hold (e.g. a settlement of
    huge stakes) is the request's fault, not an internal error."""
    number = int(value)
    if INT32_MIN <= number <= INT32_MAX:
        return number
    where = field if key is None else f"{field}[{key!r}]" if isinstance(key, str) else f"{field}[{key}]"
    shown = str(number) if number.bit_length() <= 64 else f"an integer of {number.bit_length()} bits"
    raise ValueOutOfRange(f"the result's {where} is {shown}, which does not fit the response "
                          "(a 32-bit integer): the position's stakes are too large to report",
                          token=shown, rule="result values are 32-bit integers")
