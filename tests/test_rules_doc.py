"""docs/RULES.md is checked against the solver.

- Every worked example (a ``json`` block, followed by a ``Solved:``, ``Rejected:`` or ``Tabled:``
  line) is solved (a ``Tabled:`` one tabulated by ``dd_table``), and what ddcards answers must be
  what the line states.
- Every clause that is cited — by an error message or ``.rule`` in the source, in the README or
  the docs, or inside RULES.md itself — exists there as a heading or as a numbered rule of it.
- The errors that bad input provokes cite clauses that exist.
- The game names and options the document lists are the ones the registry has.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

import ddcards
from ddcards.games import list_games

ROOT = Path(__file__).resolve().parent.parent
RULES_PATH = ROOT / "docs" / "RULES.md"
RULES = RULES_PATH.read_text(encoding="utf-8")

# "## 1. Mariáš", "### §1.4 Legal play"
HEADING = re.compile(r"^#{2,4}\s+§?(\d+(?:\.\d+)?)\.?\s", re.M)
NUMBERED_RULE = re.compile(r"^(\d+)\.\s", re.M)
# "§1.4", "§1.4 rule 2", "§1.6 rules 4 and 5", "§1.4 rules 1-4"
CITATION = re.compile(r"§(\d+(?:\.\d+)?)((?: rules? \d+(?:(?:, | and |-)\d+)*)?)")


def clauses(text: str) -> dict[str, set[int]]:
    """Clause number -> the numbers of the rules written in it (lines "1. ...")."""
    found: dict[str, set[int]] = {}
    heads = list(HEADING.finditer(text))
    for i, head in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        body = re.sub(r"^```.*?^```", "", text[head.end():end], flags=re.M | re.S)
        found[head.group(1)] = {int(n) for n in NUMBERED_RULE.findall(body)}
    return found


CLAUSES = clauses(RULES)


def cited(text: str) -> list[tuple[str, list[int]]]:
    """The (clause, rule numbers) cited in `text`; "rules 1-4" stands for 1 2 3 4."""
    out = []
    for m in CITATION.finditer(text):
        numbers: list[int] = []
        if m.group(2):
            for part in re.findall(r"\d+(?:-\d+)?", m.group(2)):
                lo, _, hi = part.partition("-")
                numbers.extend(range(int(lo), int(hi or lo) + 1))
        out.append((m.group(1), numbers))
    return out


def missing(citations: list[tuple[str, list[int]]]) -> list[str]:
    bad = []
    for clause, numbers in citations:
        if clause not in CLAUSES:
            bad.append(f"§{clause}")
        bad.extend(f"§{clause} rule {n}" for n in numbers if n not in CLAUSES[clause] and clause in CLAUSES)
    return bad


# --------------------------------------------------------------------------- the document's shape

def test_every_game_section_and_the_common_notation_have_clauses():
    for clause in ("0", "0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "0.10",
                   "1", "1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7", "1.8", "1.9", "1.11", "1.12", "1.13",
                   "2", "2.1", "2.2", "2.3", "2.4", "2.5", "2.6", "2.7", "2.8", "2.9", "2.10"):
        assert clause in CLAUSES, f"§{clause} has no heading"
    assert CLAUSES["1.4"] == {1, 2, 3, 4, 5}
    assert CLAUSES["2.4"] == {1, 2, 3, 4, 5, 6}
    for clause, rules in CLAUSES.items():       # a wrapped line starting "40." would be a rule 40
        assert rules == set(range(1, len(rules) + 1)), f"§{clause} numbers its rules {sorted(rules)}"


def test_clauses_cited_inside_the_document_exist():
    assert missing(cited(RULES)) == []


SOURCES = sorted(
    [p for pattern in ("solver/**/*.py", "solver/**/*.pyx", "solver/**/*.pxd", "server/**/*.py",
                       "proto/**/*.proto", "docs/*.md", "examples/**/*.py")
     for p in ROOT.glob(pattern)] + [ROOT / "README.md"])


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_clauses_cited_by_the_code_and_docs_exist(path):
    text = path.read_text(encoding="utf-8")
    if path == RULES_PATH:
        return                                  # checked above, without the "docs/" prefix
    citations = [c for m in re.finditer(r"docs/RULES\.md\)? ?(§[^;)\"'\n]*)", text) for c in cited(m.group(1))]
    assert missing(citations) == [], path


def test_the_code_cites_the_document():
    # Every clause constant of the game modules is a citation of docs/RULES.md.
    from ddcards import notation
    from ddcards.games import _cards, _document, klaverjas, marias, mariasz, prsi
    constants = [value for module in (notation, _cards, _document, marias, klaverjas, mariasz, prsi)
                 for name, value in vars(module).items() if name.endswith("_RULE") and isinstance(value, str)]
    assert len(constants) > 30
    for rule in constants:
        assert rule.startswith("docs/RULES.md §"), rule
        assert missing(cited(rule)) == [], rule


# --------------------------------------------------------------------------- errors cite clauses

def provoked_errors():
    """Errors from the bad-input matrix of test_errors and a few of Klaverjas's own."""
    from test_errors import CASES
    docs = [case[1] for case in CASES]
    kj = ddcards.example("klaverjas")
    docs += [dict(kj, trump=None), dict(kj, playing_team=2), dict(kj, leader=4), dict(kj, rules="utrecht"),
             dict(kj, contract="hra"), dict(kj, options={"pit": True}), dict(kj, hands=kj["hands"][:3]),
             dict(kj, hands=["A.KT.987.AKQ"] + kj["hands"][1:]), dict(kj, played=["AC", "KS"]),
             dict(kj, game="klaverjas rotterdam")]
    mz = ddcards.example("mariasz")
    kiks = ddcards.example("mariasz-kiks")
    docs += [dict(mz, stock="JH KS"), dict(mz, trump="C"), dict(mz, contract="hra"), dict(mz, objective="money"),
             dict(mz, leader=2), dict(mz, played="AS KS"), dict(mz, played=5), dict(mz, trump=5),
             dict(mz, hands=[mz["hands"][0], mz["hands"][0]]), dict(mz, options={"player": 1}),
             dict(mz, start_scores=[10, 20]), dict(mz, played=mz["played"] + ["exchange"]),
             dict(kiks, stock="6S"), dict(kiks, trump=None), dict(kiks, options={"variant": "kiks", "szlifowany": True})]
    ps = ddcards.example("prsi")
    docs += [dict(ps, hands=ps["hands"][:1]), {k: v for k, v in ps.items() if k != "upcard"}, dict(ps, upcard="7S 8S"),
             {k: v for k, v in ps.items() if k != "stock"}, dict(ps, leader=9), dict(ps, played=5),
             dict(ps, played=["6S"]), dict(ps, played=["QH"]), dict(ps, played=["7H/S"]), dict(ps, played=["AC", "AC"])]
    return docs


@pytest.mark.parametrize("document", provoked_errors())
def test_errors_cite_clauses_that_exist(document):
    with pytest.raises(ddcards.DdcardsError) as info:
        ddcards.Position.from_dict(document)
    rule = info.value.rule
    assert rule and rule.startswith("docs/RULES.md §"), f"{info.value} (rule {rule!r})"
    assert rule in str(info.value)
    assert missing(cited(rule)) == [], rule


def test_the_sample_message_of_the_introduction():
    sample = re.search(r"^```\n(played\[.*)\n```", RULES, re.M).group(1)
    example = next(e for e in EXAMPLES if e.doc.get("played") == "AS AH")
    with pytest.raises(ddcards.IllegalPlayError) as info:
        ddcards.Position.from_dict(example.doc)
    assert str(info.value) == sample


# --------------------------------------------------------------------------- names and options

def test_the_documented_game_names_are_the_registry_s():
    section = RULES[RULES.index("### §0.6"):RULES.index("### §0.7")]
    rule1 = section[section.index("Mariáš is"):section.index("\n2. ")]
    documented = set(re.findall(r"`([^`]+)`", rule1))
    accepted = {name for info in list_games() for name in (info.name, *info.aliases)}
    assert documented == accepted
    for name in accepted:
        assert ddcards.find_game(name).name in accepted


def test_a_name_does_not_choose_the_rules():
    # "klaverjas rotterdam" once was an alias that silently played Amsterdam rules.
    with pytest.raises(ddcards.InvalidOptionError) as info:
        ddcards.find_game("klaverjas rotterdam")
    assert info.value.token == "klaverjas rotterdam"


def options_table(clause: str, after: str) -> dict[str, list[str]]:
    """The rows of the options table that follows `after` in `clause`: option name -> its cells."""
    start = RULES.index(clause)
    section = RULES[start:RULES.index("\n### ", start + 1)]
    section = section[section.index(after):]
    rows: dict[str, list[str]] = {}
    for line in section.splitlines()[1:]:
        line = line.strip()
        if rows and not line.startswith("|"):
            break                               # the end of the table
        if line.startswith("| `"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            rows[cells[0].strip("` ")] = cells
    return rows


@pytest.mark.parametrize("game, clause, after", [
    ("marias", "### §1.9", "### §1.9"),
    # Mariasz's and Prší's variants are off by default, as the shared spec has it, and their
    # defaults once went unsaid (marriage_on_second, szlifowany, slepy)
    ("mariasz", "### §3.2", "The `options`, each at its default"),
    ("prsi", "### §4.1", "**Options** (`options`), each at its default"),
])
def test_every_option_is_documented_with_its_default(game, clause, after):
    rows = options_table(clause, after)
    info = ddcards.find_game(game)
    assert set(rows) == {opt.name for opt in info.options}
    for opt in info.options:
        cell = rows[opt.name][2]                # "`false`", "1", "`null` (the player to move)"
        quoted = re.match(r"`([^`]*)`", cell)
        default = quoted.group(1) if quoted else cell
        assert default == (json.dumps(opt.default) if opt.type != "str" else opt.default), opt.name
        for choice in opt.choices:
            assert f"`{choice}`" in rows[opt.name][1], (opt.name, choice)
        if opt.type == "bool":
            assert rows[opt.name][1] == "true/false", opt.name


def test_klaverjas_has_no_options():
    assert ddcards.find_game("klaverjas").options == ()


# --------------------------------------------------------------------------- worked examples

@dataclass
class Example:
    line: int
    doc: dict
    claim: str


def examples() -> list[Example]:
    out = []
    for m in re.finditer(r"^```json\n(.*?)^```\n", RULES, re.M | re.S):
        line = RULES.count("\n", 0, m.start()) + 1
        rest = RULES[m.end():].lstrip("\n")
        claim = rest.split("\n", 1)[0].replace("*", "").strip()
        out.append(Example(line, json.loads(m.group(1)), claim))
    return out


EXAMPLES = examples()


def test_there_are_worked_examples_for_every_game():
    games = [ddcards.find_game(e.doc["game"]).name for e in EXAMPLES]
    assert games.count("marias") >= 10 and games.count("klaverjas") >= 10
    assert games.count("mariasz") >= 5 and games.count("prsi") >= 5
    assert sum(e.claim.startswith("Rejected:") for e in EXAMPLES) >= 8


def _number(text: str) -> int:
    return int(text.replace("−", "-").replace("+", ""))


def _pairs(text: str) -> dict[str, int]:
    return {name: _number(n) for name, n in (item.strip().rsplit(" ", 1) for item in text.split(","))}


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: f"line {e.line}")
def test_worked_example(example):
    kind, _, body = example.claim.partition(":")
    items = [item.strip() for item in body.split("·")]
    if kind == "Tabled":
        check_table(example, items)
        return
    if kind == "Rejected":
        error, clause = items
        with pytest.raises(ddcards.DdcardsError) as info:
            ddcards.Position.from_dict(example.doc)
        assert type(info.value).__name__ == error, str(info.value)
        assert info.value.rule.startswith(f"docs/RULES.md {clause}:"), info.value.rule
        return
    assert kind == "Solved", f"line {example.line}: the line after the block is {example.claim!r}"
    position = ddcards.Position.from_dict(example.doc)
    result = ddcards.solve(position)
    seen = set()
    for item in items:
        key, _, value = item.partition(" ")
        seen.add(key)
        if key == "value":
            assert result.value == _number(value)
        elif key == "scores":
            got = _pairs(value)
            assert {k: result.scores[k] for k in got} == got
        elif key == "tricks":
            got = _pairs(value)
            assert {k: result.tricks[k] for k in got} == got
        elif key == "settlement":
            assert result.settlement == [_number(v) for v in value.split()]
        elif key == "optimal":     # in the game's order, as the solver lists them (§0.9)
            assert result.optimal_moves == value.split()
        elif key == "legal":
            assert list(position.legal_moves) == value.split()
        elif key == "distance":    # Prší: the plies to the end the value forces (§4.9)
            assert result.distance == int(value)
        elif key in ("won", "lost"):
            assert result.won is (key == "won")
        elif key == "parts":
            assert {name: part["money"] for name, part in result.parts.items()} == _pairs(value)
        elif key == "outcomes":
            happen = set() if value == "none" else {name.strip() for name in value.split(",")}
            assert happen <= set(result.outcomes)
            assert {name for name, yes in result.outcomes.items() if yes} == happen
        else:
            pytest.fail(f"line {example.line}: unknown item {item!r}")
    assert "value" in seen


def check_table(example: Example, items: list[str]) -> None:
    """A ``Tabled:`` line (docs/RULES.md §1.13): ``rows N``, and ``[best] CONTRACT [TRUMP]
    [ANNOUNCEMENTS...]: discard C C, value N, money N`` for the first row of that contract (the
    table's first row with ``best``), whose announcements are those named."""
    from ddcards.ddtable import dd_table
    rows = dd_table(example.doc, threads=1)["entries"]
    for item in items:
        if item.startswith("rows "):
            assert len(rows) == int(item.split()[1])
            continue
        label, _, fields = item.partition(":")
        words = label.split()
        best = words[0] == "best"
        words = words[1:] if best else words
        contract, trump = words[0], (words[1] if words[0] == "hra" else None)
        announcements = words[2:] if contract == "hra" else words[1:]
        row = rows[0] if best else next(r for r in rows if (r["contract"], r["trump"]) == (contract, trump))
        assert (row["contract"], row["trump"], row["announcements"]) == (contract, trump, announcements), row
        for field in fields.split(","):
            key, _, value = field.strip().partition(" ")
            if key == "discard":
                assert row["discard"] == value, row
            elif key in ("value", "money"):
                assert row[key] == _number(value), row
            else:
                pytest.fail(f"line {example.line}: unknown table field {key!r}")


@pytest.mark.parametrize("game, clause, deal", [
    ("marias", "### §1.13", {"game": "marias", "hands": ["AT.AKQ9.AT.K987", "KQ.TJ87.KQ.AT", "J987..J987.QJ"]}),
    ("klaverjas", "### §2.8", {"game": "klaverjas",
                               "hands": ["A.KT.987.AK", "KJ9..KQJ.T7", "T8.AJ9.T.98", "Q7.Q87.A.QJ"]}),
])
def test_the_table_clauses_name_every_field_of_the_table(game, clause, deal):
    """§1.13 rule 7 and §2.8 rule 5 named the rows' fields but not where the rows are (`entries`,
    `values`), so the spec alone could not read a table."""
    start = RULES.index(clause)
    text = RULES[start:RULES.index("\n### ", start + 1)]
    missing_fields = [key for key in ddcards.dd_table(deal) if f"`{key}`" not in text]
    assert missing_fields == []


def test_the_analysis_deals_sides_are_as_section_0_10_says():
    # §0.10: `sides` names the sides of `score`, except in Prší, where it is empty (its score is each
    # seat's cards left, no side's): the clause said only "the sides score names"
    prsi = ddcards.analyse(ddcards.example("prsi-endgame"), from_ply=10).to_dict()["deal"]
    assert prsi["sides"] == [] and prsi["score"] == {"seat0": 3, "seat1": 5}
    assert "empty in Prší, whose `score` is each seat's cards left" in " ".join(RULES.split())
    marias = ddcards.analyse(ddcards.example("marias-seed"), from_ply=27).to_dict()["deal"]
    assert marias["sides"] and set(marias["sides"]) <= set(marias["score"])


def test_the_analysis_deals_pile_and_suit_names_are_as_section_0_10_says():
    # §0.10: Prší's `pile` is left out while it is empty; `suit_names` is empty in the games
    # without names of their own; `hands` are in the hand notation of §0.4
    text = " ".join(RULES.split())
    assert "`pile`, the cards under it, left out while there are none" in text
    assert "empty where the game has none: Klaverjas, Mariasz, Prší" in text
    start = ddcards.analyse(ddcards.example("prsi-endgame")).to_dict()["deal"]
    assert "pile" not in start and start["top"]
    for name in ("klaverjas", "mariasz-recorded", "prsi-endgame"):
        assert ddcards.analyse(ddcards.example(name), from_ply=0).to_dict()["deal"]["suit_names"] == []
    marias = ddcards.analyse(ddcards.example("marias-seed"), from_ply=1).to_dict()["deal"]
    assert marias["suit_names"] == ["zelené", "červené", "kule", "žaludy"]
    assert marias["hands"][0] == "AT.AK9.AT.87" and "in the notation of §0.4)" in text
