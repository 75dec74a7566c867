"""Mariáš combined announcements, the money objective and four players (docs/RULES.md §1.2 rules
7-8, §1.6 rule 6, §1.7 rule 4, §1.8 rules 5-6, §1.1 rule 5).

- The money objective against the plain reference (tests/reference/marias.py) on random legal
  endgames with every set of announcements, stakes, options, flek and four players: the value,
  every legal move's value, and the principal variation replayed in the reference (optimal to
  the end, each part won or lost and paid as the solver reports).
- Hand-checked combinations: finished deals whose parts are counted by hand, the stakes of each
  part in and out of hearts, with flek and re.
- Announcements that cannot be made, and other bad input, are rejected naming the token and the
  clause.
"""
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ddcards
from ddcards.games.marias import MoneyScale

try:
    from tests.reference import marias as m
except ImportError:  # pytest put tests/ itself on sys.path
    from reference import marias as m
from _marias_line import check_line  # noqa: E402 - tests/ is on sys.path

SEED = m.SEED_DOC                                  # hearts Hra; forehand holds K Q of hearts, not 7H
SEED_LINE = " ".join(m.SEED_LINE)
# A spades Hra (benchmarks/corpus/marias-hra.jsonl line 63) where forehand can make the Hra and,
# asked alone, the Sedma, but not both on one line.
SPADES = {"game": "marias", "contract": "hra", "trump": "S",
          "hands": ["ATKQ7..J98.T9", "J8.AK87.AK.KJ", "9.TJ9.TQ7.AQ7"], "talon": "QH 8C"}


# --------------------------------------------------------------------------- against the reference

def check(doc):
    expected = m.reference_solve(doc)
    text = json.dumps(doc, ensure_ascii=False)
    res = ddcards.solve(doc, mode="all")
    assert res.value_kind == "money", text
    assert res.value == expected["value"], text
    assert {mv.move: mv.value for mv in res.moves} == expected["moves"], text
    assert set(res.optimal_moves) == {c for c, v in expected["moves"].items() if v == expected["value"]}, text
    # the settlement is the money, paid by the defenders (and nothing to a sitting-out dealer)
    assert res.settlement == m.settlement(res.value, doc.get("players", 3)), text
    assert sum(part["money"] for part in res.parts.values()) == res.value, text
    # the line, replayed in the reference, ends with each part as the solver reports it
    end = check_line(doc, res, text)
    won = end.part_won()
    assert res.parts == {part: {"won": won[part], "stake": stake, "money": 2 * stake * (1 if won[part] else -1)}
                         for part, stake in end.stakes}, (res.parts, text)


announcement_sets = st.sampled_from([(), ("sedma",), ("kilo",), ("sedma", "kilo")])
stakes = st.fixed_dictionaries({}, optional={"sedma_value": st.integers(0, 5), "kilo_value": st.integers(0, 5),
                                             "marriage_on_follow": st.booleans(),
                                             "talon_points": st.sampled_from(["defenders", "nobody"])})
short = st.integers(2, 4)                  # tricks left (with one left every card is forced)


@settings(deadline=None, max_examples=600)
@given(st.integers(0, 2**32 - 1), short, st.integers(0, 2), st.sampled_from("SHDC"), announcement_sets,
       stakes, st.integers(0, 2), st.sampled_from([3, 4]))
def test_money_against_the_reference(seed, tricks_left, cards, trump, announcements, options, flek, players):
    check(m.random_endgame(random.Random(seed), "hra", tricks_left, trump=trump, cards_in_trick=cards,
                           announcements=announcements, objective="money", options=options, flek=flek,
                           players=players))


@settings(deadline=None, max_examples=150)
@given(st.integers(0, 2**32 - 1), short, st.integers(0, 2), st.sampled_from(["betl", "durch"]),
       st.integers(0, 2))
def test_money_of_betl_and_durch_against_the_reference(seed, tricks_left, cards, contract, flek):
    check(m.random_endgame(random.Random(seed), contract, tricks_left, cards_in_trick=cards, objective="money",
                           flek=flek))


@settings(deadline=None, max_examples=20)         # the reference's memoised minimax: ~0.1 s for each
@given(st.integers(0, 2**32 - 1), st.sampled_from("SHDC"), announcement_sets)
def test_money_five_tricks_left(seed, trump, announcements):
    check(m.random_endgame(random.Random(seed), "hra", 5, trump=trump, announcements=announcements,
                           objective="money"))


def test_a_combined_game_is_not_its_parts_added_up():
    # Asked alone, the Hra (+10) and the Sedma are both made; together one of them is lost.
    assert ddcards.solve(SPADES).value == 10
    assert ddcards.solve(dict(SPADES, objective="sedma")).value == 1
    both = ddcards.solve(dict(SPADES, announcements=["sedma"]))
    assert both.value == 0 and both.settlement == [0, 0, 0]
    assert sorted(part["won"] for part in both.parts.values()) == [False, True]


# --------------------------------------------------------------------------- hand-checked combinations

def test_the_recorded_seed_play_with_kilo_announced():
    # Hearts Hra: the declarer has 50 card points + 40 for the trump marriage = 90 against 40,
    # the Hra is won; his Kilo count is 50 + 40 = 90 (the defenders took the last trick): lost.
    # Stakes in hearts: Hra 2, Kilo 2 x 2 = 4; money 2 x (2 - 4) = -4.
    res = ddcards.solve(dict(SEED, played=SEED_LINE, announcements=["kilo"]))
    assert res.value == -4 and res.value_kind == "money" and not res.won
    assert res.parts == {"hra": {"won": True, "stake": 2, "money": 4},
                         "kilo": {"won": False, "stake": 4, "money": -8}}
    assert res.settlement == [-4, 2, 2]
    # The margin objective keeps its value; the settlement is still the announced game's.
    res = ddcards.solve(dict(SEED, played=SEED_LINE, announcements=["kilo"], objective="hra"))
    assert res.value == 50 and res.value_kind == "points" and res.settlement == [-4, 2, 2]


@pytest.mark.parametrize("changes,parts,money", [
    # the source's deal: Hra and Kilo both made; hearts double every part
    ({}, {"hra": 2, "kilo": 4}, 2 * (2 + 4)),
    ({"flek": 1}, {"hra": 4, "kilo": 8}, 2 * (4 + 8)),                # flek doubles every part
    ({"flek": 2}, {"hra": 8, "kilo": 16}, 2 * (8 + 16)),              # re quadruples them
    ({"options": {"kilo_value": 5}}, {"hra": 2, "kilo": 10}, 2 * (2 + 10)),
    ({"options": {"kilo_value": 0}}, {"hra": 2, "kilo": 0}, 2 * 2),
])
def test_stakes_of_the_parts(changes, parts, money):
    res = ddcards.solve(dict(SEED, announcements=["kilo"], **changes), mode="best")
    assert {name: part["stake"] for name, part in res.parts.items()} == parts
    assert res.value == money and res.settlement == [money, -money // 2, -money // 2]


def test_stakes_outside_hearts_and_sedma_with_kilo():
    # Spades: Hra 1, Sedma 1, Kilo 2 a defender. Forehand holds 7 K Q of spades.
    res = ddcards.solve(dict(SPADES, announcements="kilo sedma"), mode="best")
    assert [*res.parts] == ["hra", "sedma", "kilo"]                  # canonical order
    assert {name: part["stake"] for name, part in res.parts.items()} == {"hra": 1, "sedma": 1, "kilo": 2}
    assert res.value == sum(part["money"] for part in res.parts.values())
    assert res.position["announcements"] == ["sedma", "kilo"]
    assert "objective" not in res.position                          # money: the default once announced


def test_money_scale_ranks_follow_the_money():
    scale = MoneyScale(("hra", "sedma", "kilo"), {"hra": 2, "sedma": 2, "kilo": 4})
    # combos by bit: 1 Hra, 2 Sedma, 4 Kilo won; money = 2 x sum of +-stake
    assert [scale.money(scale.won_parts(c)) for c in range(8)] == [-16, -8, -8, 0, 0, 8, 8, 16]
    assert scale.values == (-16, -8, 0, 8, 16)
    assert scale.ranks == (0, 1, 1, 2, 2, 3, 3, 4)
    assert scale.rank_above(0) == 3 and scale.rank_above(16) == 5


def test_four_players():
    res = ddcards.solve(dict(SEED, players=4))
    assert res.value == 70 and res.settlement == [4, -2, -2, 0]
    res = ddcards.solve(dict(SEED, players=4, contract="betl", trump=None, objective="money"), mode="best")
    assert res.settlement == [res.value, -res.value // 2, -res.value // 2, 0]
    pos = ddcards.Position.from_dict(dict(SEED, players=4))
    assert pos.to_dict()["players"] == 4 and "players" not in ddcards.Position.from_dict(SEED).to_dict()
    assert len(pos.hands) == 3                                       # the dealer holds no cards
    assert str(pos).splitlines()[0] == ("Mariáš hra, trumps H, 4 players (seat 3 deals and sits out) - "
                                        "seat 0 (declarer) to move")


@pytest.mark.parametrize("players, needle", [
    (4, "got 4: the dealer (seat 3) sits out and holds no cards: give the three hands that play"),
    (3, "got 4: three play; at a table of four give \"players\": 4 and the three hands that play"),
])
def test_four_hands_are_refused_by_the_four_player_rule_not_one_hand_per_seat(players, needle):
    """A table of four has four seats: four hands (the dealer's empty) were refused as
    "one hand per seat" (§0.6 rule 3), which they are. The rule that refuses them is §1.1 rule 5,
    the dealer sitting out with no cards; the position and the contract table both say so."""
    doc = dict(SEED, players=players, hands=[*SEED["hands"], ""])
    table = {"game": "marias", "players": players, "hands": ["AT.AKQ9.AT.K987", *SEED["hands"][1:], ""]}
    for make, document in ((ddcards.Position.from_dict, doc), (ddcards.dd_table, table)):
        with pytest.raises(ddcards.InvalidDealError) as info:
            make(document)
        assert needle in str(info.value) and info.value.field == "hands"
        assert info.value.rule.startswith("docs/RULES.md §1.1 rule 5:")


def test_analysis_in_money():
    an = ddcards.analyse(dict(SEED, played=SEED_LINE, announcements=["kilo"]))
    assert an.value_kind == "money"
    assert an.initial_value == 12 and an.final_value == -4
    # Every step's value is money; the mistakes together cost what was lost.
    assert sum(step.cost for step in an.steps if step.seat == 0) >= 16


def test_describe_and_cli_show_the_parts(capsys):
    from ddcards import cli
    pos = ddcards.Position.from_dict(dict(SEED, announcements=["kilo"], flek=1))
    assert str(pos).startswith("Mariáš hra, trumps H + kilo, flek - seat 0")
    status = cli.main(["solve", "--example", "marias-hra", "--mode", "best"])
    assert status == 0
    doc = dict(SEED, announcements=["kilo"])
    res = ddcards.solve(doc, mode="best")
    text = cli.describe_value(res, ddcards.Position.from_dict(doc).session())
    assert text == "+12  declarer wins (declarer 100, defenders 70; money hra won +4, kilo won +8)"
    # played for the margin, the parts still settle the game: the line says what each won or paid
    doc = dict(SEED, played=[], trump="C", announcements=["sedma"], objective="hra")
    res = ddcards.solve(doc)
    assert res.parts == {"hra": {"won": True, "stake": 1, "money": 2}, "sedma": {"won": False, "stake": 1, "money": -2}}
    assert res.settlement == [0, 0, 0]
    text = cli.describe_value(res, ddcards.Position.from_dict(doc).session())
    assert text == "+50  declarer wins (declarer 80, defenders 30; money hra won +2, sedma lost -2)"


# --------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("changes,token,clause,field", [
    ({"announcements": ["sedma"]}, "sedma", "§1.2 rule 8", "announcements[0]"),          # 7H is seat 1's
    ({"trump": "S", "announcements": ["kilo"]}, "kilo", "§1.2 rule 8", "announcements[0]"),   # no KS QS
    ({"trump": "D", "announcements": ["kilo"]}, "kilo", "§1.2 rule 8", "announcements[0]"),   # no KD QD
    ({"announcements": ["kilo", "kilo"]}, "kilo", "§1.2 rule 7", "announcements[1]"),
    ({"announcements": ["kilo", "hundred"]}, "hundred", "§1.2 rule 7", "announcements[1]"),
    ({"announcements": [7]}, "7", "§1.2 rule 7", "announcements[0]"),
    ({"announcements": {"kilo": True}}, None, "§1.2 rule 7", "announcements"),
    ({"contract": "betl", "trump": None, "announcements": ["kilo"]}, "kilo", "§1.2 rule 7", "announcements[0]"),
    ({"contract": "durch", "trump": None, "announcements": "sedma"}, "sedma", "§1.2 rule 7", "announcements[0]"),
    ({"players": 5}, "5", "§1.1 rule 5", "players"),
    ({"players": 2}, "2", "§1.1 rule 5", "players"),
    ({"players": True}, "true", "§1.1 rule 5", "players"),
    ({"players": "4"}, None, "§1.1 rule 5", "players"),
    ({"objective": "money", "contract": "betl", "trump": None, "options": {"kilo_value": 3}}, "kilo_value",
     "§0.6 rule 4", "options.kilo_value"),
    ({"objective": "cash"}, "cash", "§1.2 rule 4", "objective"),
])
def test_bad_announcements_and_players(changes, token, clause, field):
    with pytest.raises(ddcards.InvalidOptionError) as info:
        ddcards.Position.from_dict(dict(SEED, **changes))
    error = info.value
    assert error.rule.startswith(f"docs/RULES.md {clause}:"), error.rule
    assert error.rule in str(error) and error.field == field
    if token is not None:
        assert error.token == token


def test_the_rejection_names_the_missing_cards():
    with pytest.raises(ddcards.InvalidOptionError, match=r"'sedma' cannot be announced: forehand \(seat 0\) "
                                                         r"does not hold 7H"):
        ddcards.Position.from_dict(dict(SEED, announcements=["sedma"]))
    with pytest.raises(ddcards.InvalidOptionError, match="does not hold KS QS"):
        ddcards.Position.from_dict(dict(SEED, trump="S", announcements=["kilo"]))


def test_announcements_are_read_in_any_case_and_form():
    a = ddcards.Position.from_dict(dict(SPADES, announcements="Kilo, SEDMA"))
    b = ddcards.Position.from_dict(dict(SPADES, announcements=["sedma", "kilo"]))
    assert a == b and a.to_dict()["announcements"] == ["sedma", "kilo"]
    # Cards held when the deal began count, whatever has been played since (§0.5 rule 4).
    later = ddcards.Position.from_dict(dict(SEED, announcements=["kilo"], played="QH TH 7S"))
    assert later.to_dict()["announcements"] == ["kilo"]
