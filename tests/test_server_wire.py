"""server/wire.py against protobuf's own parser: a request made of several messages one after
another (which the parser merges, keeping the last member of a oneof and the last entry of a
map's key) is a conflict exactly when two of its parts set different members of one oneof or
one option's key, and a message protobuf wrote itself never is."""
from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

import pytest
from google.protobuf.message import DecodeError

from ddcards.server.wire import MAP_KEY_RULE, ONEOF_RULE, bad_utf8_field, oneof_conflict
from ddcards.v1 import ddcards_pb2 as pb

_TEXT = st.text(max_size=8)
_OPTION = st.one_of(
    st.builds(pb.OptionValue),                                    # no kind set
    st.builds(pb.OptionValue, bool_value=st.booleans()),
    st.builds(pb.OptionValue, int_value=st.integers(-2**63, 2**63 - 1)),
    st.builds(pb.OptionValue, double_value=st.floats(allow_nan=False)),
    st.builds(pb.OptionValue, string_value=_TEXT),
)


@st.composite
def positions(draw: st.DrawFn) -> pb.Position:
    position = pb.Position(game_name=draw(_TEXT), hands=[pb.Cards(notation=t) for t in draw(st.lists(_TEXT, max_size=3))],
                           start_scores=draw(st.lists(st.integers(-2**31, 2**31 - 1), max_size=3)))
    for key, value in draw(st.dictionaries(_TEXT, _OPTION, max_size=3)).items():
        position.options[key].CopyFrom(value)
    return position


@st.composite
def requests(draw: st.DrawFn) -> tuple[pb.SolveRequest, str | None]:
    """A SolveRequest and the member of `source` it sets (None: neither)."""
    member = draw(st.sampled_from([None, "position", "document_json"]))
    request = pb.SolveRequest(mode=draw(st.integers(0, 3)))
    if member == "position":
        request.position.CopyFrom(draw(positions()))
    elif member == "document_json":
        request.document_json = draw(_TEXT)              # "" too: a oneof member set to its default is sent
    return request, member


def _expected(members: list[str | None], path: str = "") -> tuple[str, str, str] | None:
    seen: list[str] = []
    for member in members:
        if member is not None and member not in seen:
            seen.append(member)
    if len(seen) < 2:
        return None
    return f"{path}{seen[0]} and {path}{seen[1]} (oneof source)", path + seen[0], ONEOF_RULE


def _check(found: tuple[str, str, str] | None, parts: list[tuple[pb.SolveRequest, str | None]], path: str = "") -> None:
    """`found` is what the check should say of these parts: two members of `source` (the first
    two sent), else an option's key that two parts both send (any such key), else nothing."""
    members = [member for _, member in parts]
    expected = _expected(members, path)
    repeated: set[str] = set()
    if expected is None:
        seen: set[str] = set()
        for request, member in parts:
            if member == "position":
                repeated |= seen & set(request.position.options)
                seen |= set(request.position.options)
    if not repeated:
        assert found == expected
        return
    assert found is not None
    assert found[1] in {f"{path}position.options[{key!r}]" for key in repeated}
    assert found[0] == f"{found[1]} twice (one key of the map options)"
    assert found[2] == MAP_KEY_RULE


@settings(max_examples=400, deadline=None)
@given(st.lists(requests(), min_size=1, max_size=3))
def test_a_request_of_parts_conflicts_exactly_when_two_parts_set_different_members(parts):
    data = b"".join(request.SerializeToString() for request, _ in parts)
    members = [member for _, member in parts]
    merged = pb.SolveRequest.FromString(data)
    _check(oneof_conflict(pb.SolveRequest.DESCRIPTOR, data), parts)
    # ... and the same with what the parser made of it, which lets it skip what cannot conflict
    _check(oneof_conflict(pb.SolveRequest.DESCRIPTOR, data, message=merged), parts)
    if _expected(members) is None and any(members):           # what the parser kept is what was sent
        assert merged.WhichOneof("source") == next(m for m in reversed(members) if m is not None)
    # The same parts as the `solve` of a stream's item, sent as copies of that one field
    item = b"".join(pb.SolveStreamRequest(id="x", solve=request).SerializeToString() for request, _ in parts)
    _check(oneof_conflict(pb.SolveStreamRequest.DESCRIPTOR, item), parts, "solve.")
    parsed = pb.SolveStreamRequest.FromString(item)
    _check(oneof_conflict(pb.SolveStreamRequest.DESCRIPTOR, item, message=parsed), parts, "solve.")


@settings(max_examples=200, deadline=None)
@given(requests())
def test_a_message_protobuf_wrote_never_conflicts(part):
    request, _ = part
    assert oneof_conflict(pb.SolveRequest.DESCRIPTOR, request.SerializeToString()) is None
    assert bad_utf8_field(pb.SolveRequest.DESCRIPTOR, request.SerializeToString()) is None
    table = pb.SolveTableRequest(position=request.position) if request.HasField("position") else \
        pb.SolveTableRequest(document_json=request.document_json)
    assert oneof_conflict(pb.SolveTableRequest.DESCRIPTOR, table.SerializeToString()) is None


# A marker written as text and its bytes swapped, on the wire, for as many that are no UTF-8
_MARK, _BAD = "\x01MARK\x01", b"\xffMARK\xff"


@settings(max_examples=300, deadline=None)
@given(requests(), st.data())
def test_the_string_field_that_is_no_utf8_is_named(part, data):
    """Protobuf's parser says "String field had bad UTF-8" and not which: the service names it,
    a map's entry by its key."""
    request, member = part
    places: list[tuple[str, object]] = []
    if member == "document_json":
        places.append(("document_json", lambda: setattr(request, "document_json", _MARK)))
    if member == "position":
        position = request.position
        places.append(("position.game_name", lambda: setattr(position, "game_name", _MARK)))
        for i, hand in enumerate(position.hands):
            places.append((f"position.hands[{i}].notation", lambda hand=hand: setattr(hand, "notation", _MARK)))
        places.append(("position.options.key", lambda: position.options[_MARK].CopyFrom(pb.OptionValue())))
        for key in position.options:
            places.append((f"position.options[{key!r}].value.string_value",
                           lambda key=key: setattr(position.options[key], "string_value", _MARK)))
    assume(places)              # (a request with neither member holds no string)
    path, spoil = data.draw(st.sampled_from(places))
    spoil()
    wire = request.SerializeToString().replace(_MARK.encode(), _BAD)
    with pytest.raises(DecodeError, match="UTF-8"):
        pb.SolveRequest.FromString(wire)
    assert bad_utf8_field(pb.SolveRequest.DESCRIPTOR, wire) == path
    item = pb.SolveStreamRequest(id="x", solve=request).SerializeToString().replace(_MARK.encode(), _BAD)
    assert bad_utf8_field(pb.SolveStreamRequest.DESCRIPTOR, item) == "solve." + path
