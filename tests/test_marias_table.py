"""The Mariáš contract table (docs/RULES.md §1.13): every discard × contract, best first.

- Against the plain reference (tests/reference/marias.py ``reference_table``: plain minimax of
  every discard, contract and set of announcements) on reduced deals, where the minimax can
  finish: every row, in order.
- On full deals, against single solves of the positions each row stands for: its value (the
  margin), its money with its announcements, and no other set of announcements paying more.
- A hand-checked reduced deal where Kilo is the best announcement; the inputs (as dealt, the
  discard fixed, a Position, JSON text), threads, timeout and cancel; the CLI and gRPC.
- Bad tables are rejected naming the token and the clause.
"""
import itertools
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ddcards
from ddcards._core.search import Searcher
from ddcards.ddtable import dd_table, row_position
from ddcards.games import marias, marias_table
from ddcards.notation import Card

try:
    from tests.reference import marias as m
except ImportError:  # pytest put tests/ itself on sys.path
    from reference import marias as m

# The source's deal as dealt: forehand's 10 cards for play and the talon 9C KC he discarded.
SEED_DEALT = {"game": "marias", "hands": ["AT.AKQ9.AT.K987", "KQ.TJ87.KQ.AT", "J987..J987.QJ"]}
SEED_FIXED = {"game": "marias", "hands": ["AT.AKQ9.AT.87", "KQ.TJ87.KQ.AT", "J987..J987.QJ"], "talon": "9C KC"}
ROW_KEYS = ("discard", "contract", "trump", "announcements", "value", "money")


def fast_table(forehand, defenders, talon=None, options=None, flek=0):
    """The table's core on a (reduced) deal given as card texts, on one Searcher."""
    opts = {o.name: o.default for o in marias.INFO.options}
    opts.update(options or {})
    cards = lambda texts: tuple(Card.parse(t) for t in texts)  # noqa: E731
    deal = marias_table.TableDeal(cards(forehand), (cards(defenders[0]), cards(defenders[1])),
                                  None if talon is None else cards(talon), opts, flek)
    searcher = Searcher(2)
    table = marias_table.run_table(deal, lambda jobs: [marias_table.run_job(job, deal, searcher) for job in jobs])
    return [{k: row[k] for k in ROW_KEYS} for row in table["entries"]]


# --------------------------------------------------------------------------- against the reference

options = st.sampled_from([{}, {"sedma_value": 3}, {"kilo_value": 0}, {"sedma_value": 0},
                           {"marriage_on_follow": True, "sedma_value": 2, "kilo_value": 1},
                           {"talon_points": "nobody"}, {"talon_points": "nobody", "marriage_on_follow": True}])


@settings(deadline=None, max_examples=40)
@given(st.integers(0, 2**32 - 1), options, st.integers(0, 2))
def test_reduced_tables_against_the_reference(seed, opts, flek):
    forehand, defenders = m.random_table_deal(random.Random(seed), 3)
    expected = m.reference_table(forehand, defenders, None, opts, flek)
    assert fast_table(forehand, defenders, None, opts, flek) == expected, (forehand, defenders, opts, flek)


@settings(deadline=None, max_examples=15)
@given(st.integers(0, 2**32 - 1), options)
def test_reduced_tables_with_the_discard_fixed(seed, opts):
    forehand, defenders = m.random_table_deal(random.Random(seed), 3)
    talon, kept = forehand[:2], forehand[2:]
    expected = m.reference_table(kept, defenders, talon, opts)
    assert fast_table(kept, defenders, talon, opts) == expected
    assert len(expected) == (2 if any(c[0] in "AT" for c in talon) else 2 + len({c[1] for c in kept}))


def test_a_reduced_deal_where_kilo_pays():
    # Forehand keeps A T K Q of hearts: he leads the King (the trump marriage, 40), then his
    # trumps; the defenders, void in hearts and holding 60 in aces and tens, must throw them on
    # his tricks: 40 + 20 (his A T) + 60 + 10 (the last trick) = 130: Kilo is made, with a Hra
    # of 130 to 0.  Hearts: Hra 2 and Kilo 4 a defender, 2 x (2 + 4) = +12.  Taking every trick,
    # he makes a Durch too, worth more: 2 x 10 = +20.
    forehand = ["KH", "QH", "AH", "TH", "7S", "8S"]
    defenders = (["AS", "TS", "AD", "9D"], ["TD", "AC", "TC", "9C"])
    rows = fast_table(forehand, defenders)
    assert rows == m.reference_table(forehand, defenders)
    assert rows[:2] == [
        {"discard": "8S 7S", "contract": "durch", "trump": None, "announcements": [], "value": 1, "money": 20},
        {"discard": "8S 7S", "contract": "hra", "trump": "H", "announcements": ["kilo"], "value": 130, "money": 12}]
    # discarding a heart loses the marriage or the 20 of A T: no Kilo, a smaller Hra
    assert all(r["announcements"] == [] for r in rows if r["contract"] == "hra" and "H" in r["discard"])


# --------------------------------------------------------------------------- full deals, row by row

def position_of(table_doc, row):
    """The position a row stands for (its discard, contract and trump)."""
    hands = [list(ddcards.notation.parse_hand(h)) for h in table_doc["hands"]]
    discard = [Card.parse(c) for c in row["discard"].split()]
    if "talon" not in table_doc:
        hands[0] = [c for c in hands[0] if c not in discard]
    doc = {"game": "marias", "hands": [" ".join(map(str, h)) for h in hands],
           "talon": row["discard"], "contract": row["contract"]}
    if row["trump"]:
        doc["trump"] = row["trump"]
    return doc


def check_row(table_doc, row, solver):
    doc = position_of(table_doc, row)
    assert solver.value(doc) == row["value"], row
    assert solver.value(dict(doc, objective="money", announcements=row["announcements"])) == row["money"], row
    if row["contract"] != "hra":
        return
    hand = ddcards.Position.from_dict(doc).hands[0]
    possible = [a for a in ("sedma", "kilo") if marias.can_announce(a, Card.parse("7" + row["trump"]).suit, hand)]
    for n in range(len(possible) + 1):
        for parts in itertools.combinations(possible, n):
            money = solver.value(dict(doc, objective="money", announcements=list(parts)))
            chosen = (len(row["announcements"]), row["announcements"])
            # no set pays more; one that pays as much has no fewer parts (§1.13 rule 4)
            assert money < row["money"] or (money == row["money"] and (n, list(parts)) >= chosen), (row, parts)


def test_the_fixed_discard_table_row_by_row():
    table = dd_table(SEED_FIXED)
    assert [(r["contract"], r["trump"]) for r in table["entries"]] == [
        ("hra", "H"), ("hra", "C"), ("hra", "S"), ("hra", "D"), ("betl", None), ("durch", None)]
    solver = ddcards.Solver()
    for row in table["entries"]:
        check_row(SEED_FIXED, row, solver)


def test_the_dealt_table_sampled_row_by_row():
    table = dd_table(SEED_DEALT, threads=2)
    rows = table["entries"]
    assert len(rows) == 4 * 21 + 66 + 66          # 7 cards besides aces and tens: 21 Hra discards a suit
    solver = ddcards.Solver()
    firsts = {}
    for row in rows:
        firsts.setdefault((row["contract"], row["trump"]), row)
    sample = list(firsts.values()) + random.Random(14).sample(rows, 8)
    for row in sample:
        check_row(SEED_DEALT, row, solver)


@pytest.mark.parametrize("line", [3, 17, 62])
def test_corpus_deals_as_dealt(line):
    doc = json.loads(open(m.__file__.replace("tests/reference/marias.py", "benchmarks/corpus/marias-hra.jsonl"))
                     .read().splitlines()[line])
    talon = [Card.parse(c) for c in doc["talon"].split()]
    dealt = {"game": "marias", "hands": [" ".join(map(str, [*ddcards.notation.parse_hand(doc["hands"][0]), *talon])),
                                         doc["hands"][1], doc["hands"][2]]}
    table = dd_table(dealt, threads=2)
    rows = table["entries"]
    moneys = [r["money"] for r in rows]
    assert moneys == sorted(moneys, reverse=True)
    solver = ddcards.Solver()
    for row in rows[:2] + random.Random(line).sample(rows, 4):
        check_row(dealt, row, solver)
    # The fixed discard's rows are the dealt table's rows of that discard.
    fixed = dd_table(doc)["entries"]
    text = fixed[0]["discard"]
    assert sorted(map(json.dumps, fixed)) == sorted(json.dumps(r) for r in rows if r["discard"] == text)


# --------------------------------------------------------------------------- the table's rules

def test_discards_and_contracts_follow_the_rules():
    rows = dd_table(SEED_DEALT)["entries"]
    for row in rows:
        cards = [Card.parse(c) for c in row["discard"].split()]
        assert sorted(cards, key=marias_table.hand_order) == cards              # hand order (rule 2)
        if row["contract"] == "hra":
            assert not any(c.rank in (ddcards.Rank.ACE, ddcards.Rank.TEN) for c in cards)   # rule 3
    assert {r["discard"] for r in rows if r["contract"] == "betl"} == {
        " ".join(map(str, pair)) for pair in itertools.combinations(
            sorted(ddcards.notation.parse_hand(SEED_DEALT["hands"][0]), key=marias_table.hand_order), 2)}


def test_hra_only_in_suits_forehand_keeps():
    # Forehand's only spades are 8 and 7: discarding both leaves him no spade to lay out as trumps.
    deal = {"game": "marias", "hands": ["87.AKQ9.AT.K987", "AQJT9.T7.K9.T", "K.J8.QJ87.AQJ"]}
    rows = dd_table(deal)["entries"]
    assert not [r for r in rows if r["discard"] == "8S 7S" and r["trump"] == "S"]
    assert [r for r in rows if r["discard"] == "8S 7S" and r["trump"] == "H"]
    # A fixed talon with a ten leaves Betl and Durch only.
    fixed = dict(SEED_FIXED, hands=["A.AKQ9.AT.K87", "KQ.TJ87.KQ.AT", "J987..J987.QJ"], talon="TS 9C")
    assert [r["contract"] for r in dd_table(fixed)["entries"]] == ["betl", "durch"]


def test_stakes_players_and_flek_reach_every_row():
    plain = dd_table(SEED_FIXED)["entries"]
    re = dd_table(dict(SEED_FIXED, flek=2, players=4))
    assert re["flek"] == 2 and re["players"] == 4
    assert [r["money"] for r in re["entries"]] == [4 * r["money"] for r in plain]
    richer = dd_table(dict(SEED_FIXED, options={"kilo_value": 10}))
    assert richer["options"] == {"kilo_value": 10}
    assert richer["entries"][0]["money"] == 2 * (2 + 2 * 10)            # hearts Hra + Kilo


def test_inputs_and_threads():
    by_doc = dd_table(SEED_FIXED)
    assert dd_table(ddcards.Position.from_dict(dict(SEED_FIXED, contract="hra", trump="H")))["entries"] == \
        by_doc["entries"]
    assert dd_table(json.dumps(SEED_FIXED))["entries"] == by_doc["entries"]
    # contract, trump, objective and announcements are the table's to choose
    chosen = dict(SEED_FIXED, contract="betl", objective="money", announcements=["sedma"])
    assert dd_table(chosen)["entries"] == by_doc["entries"]
    one = dd_table(SEED_DEALT, threads=1)
    two = dd_table(SEED_DEALT, threads=3)
    assert one["entries"] == two["entries"]
    assert one["hands"][0] == "AT.AKQ9.AT.K987" and one["talon"] is None and by_doc["talon"] == "KC 9C"


def test_a_stopped_table_says_the_nodes_of_all_its_searches(monkeypatch):
    """A table stopped on the way said the nodes of the one search it stopped in its message
    ("after 1,280 nodes") and 0 in `nodes`: both are the nodes of every search of the table."""
    token = ddcards.CancelToken()
    done: list[int] = []
    real = marias_table.run_job

    def first_job_then_cancel(*args, **kwargs):
        found = real(*args, **kwargs)
        done.append(found[1])
        token.cancel()                   # the next job's first search stops before it begins
        return found

    monkeypatch.setattr(marias_table, "run_job", first_job_then_cancel)
    with pytest.raises(ddcards.SearchCancelled) as err:
        dd_table(SEED_DEALT, cancel=token)
    assert len(done) == 1 and done[0] > 1000
    assert err.value.nodes == done[0]
    assert str(err.value) == f"the contract table was cancelled after {done[0]:,} nodes"


def test_a_table_on_two_threads_asked_from_an_analysis_on_the_same_solver():
    """An analysis's on_step may call its Solver (it holds the Solver's turn meanwhile). A Mariáš
    table on two threads there ran its first jobs on the caller's Solver from a pool thread, which
    waited for the turn the analysing thread held: it never returned (here: its timeout)."""
    solver = ddcards.Solver()
    tables: list = []

    def on_step(step):
        if step.ply == 0:
            tables.append(dd_table(ddcards.example("marias-hra"), solver=solver, threads=2, timeout=60))

    solver.analyse(ddcards.example("marias-seed"), on_step=on_step)
    alone = dd_table(ddcards.example("marias-hra"), solver=ddcards.Solver(), threads=2)
    assert len(tables) == 1 and tables[0]["entries"] == alone["entries"]
    assert tables[0]["entries"][0]["money"] == 12 and tables[0]["nodes"] == alone["nodes"]


def test_timeout_and_cancel():
    with pytest.raises(ddcards.SearchTimeout):
        dd_table(SEED_DEALT, timeout=1e-9)
    with pytest.raises(ddcards.SearchTimeout):
        dd_table(SEED_DEALT, timeout=1e-9, threads=2)
    token = ddcards.CancelToken()
    token.cancel()
    with pytest.raises(ddcards.SearchCancelled):
        dd_table(SEED_DEALT, cancel=token)


@pytest.mark.parametrize("changes,error,token,clause,field", [
    ({"hands": ["AT.AKQ9.AT.987", "KQ.TJ87.KQ.AT", "J987..J987.QJ"]}, ddcards.InvalidDealError, "hands[0]",
     "§1.13 rule 1", "hands[0]"),                                          # 11 cards, no talon
    ({"talon": "7C"}, ddcards.InvalidDealError, "hands[0]", "§1.13 rule 1", "hands[0]"),   # 12 cards and a talon
    ({"hands": SEED_FIXED["hands"]}, ddcards.InvalidDealError, "hands[0]", "§1.13 rule 1", "hands[0]"),  # no talon
    ({"hands": SEED_FIXED["hands"], "talon": "9C"}, ddcards.InvalidDealError, "9C", "§1.13 rule 1", "talon"),
    ({"hands": ["AT.AKQ9.AT.K987", "KQ.TJ87.KQ.AT", "J987..J987.QA"]}, ddcards.InvalidDealError, "AC",
     "§0.5 rule 3", "hands[2]"),                                           # a card twice: where it repeats
    ({"played": ["AS"]}, ddcards.InvalidOptionError, "AS", "§1.13 rule 1", "played[0]"),
    ({"contract": "slam"}, ddcards.InvalidOptionError, "slam", "§1.2 rule 1", "contract"),
    ({"objective": "cash"}, ddcards.InvalidOptionError, "cash", "§1.13 rule 1", "objective"),
    # an unknown suit names its field, as in a position (the table's own check of the chosen trump said none)
    ({"trump": "X"}, ddcards.InvalidCardError, "X", "§0.1 rule 2", "trump"),
    ({"trump": 5}, ddcards.InvalidOptionError, "5", "§1.2 rule 2", "trump"),
    ({"announcements": ["hundred"]}, ddcards.InvalidOptionError, "hundred", "§1.13 rule 1", "announcements[0]"),
    ({"announcements": ["sedma", 7]}, ddcards.InvalidOptionError, "7", "§1.13 rule 1", "announcements[1]"),
    ({"announcements": {"sedma": 1}}, ddcards.InvalidOptionError, None, "§1.13 rule 1", "announcements"),
    ({"players": 5}, ddcards.InvalidOptionError, "5", "§1.1 rule 5", "players"),
    ({"flek": 3}, ddcards.InvalidOptionError, "3", "§1.2 rule 5", "flek"),
    ({"leader": 1}, ddcards.InvalidOptionError, "1", "§1.2 rule 6", "leader"),
    ({"options": {"sedma_value": -1}}, ddcards.InvalidOptionError, "-1", "§0.6 rule 5", "options.sedma_value"),
    ({"rules": "amsterdam"}, ddcards.InvalidOptionError, "rules", "§0.6 rule 2", "rules"),
])
def test_bad_tables(changes, error, token, clause, field):
    with pytest.raises(error) as info:
        dd_table(dict(SEED_DEALT, **changes))
    exc = info.value
    assert type(exc) is error
    assert exc.rule.startswith(f"docs/RULES.md {clause}:") and exc.rule in str(exc), exc.rule
    assert exc.field == field
    if token is not None:
        assert exc.token == token


# --------------------------------------------------------------------------- CLI and gRPC

def test_cli_prints_the_best_of_each_contract_and_every_row(capsys):
    from ddcards import cli
    path = json.dumps(SEED_DEALT)
    import io
    import sys
    old = sys.stdin
    try:
        sys.stdin = io.TextIOWrapper(io.BytesIO(path.encode()))
        assert cli.main(["table", "-", "--threads", "1"]) == 0
    finally:
        sys.stdin = old
    out = capsys.readouterr().out
    assert "Mariáš contract table - every discard of forehand's 12 cards" in out
    assert "Best: hra H + kilo, discard 9H KC: value +70, money +12" in out
    assert "9H KC    hra C + sedma            +50     +4   and 2 other discards" in out
    assert "AS TS    durch                     -1    -20   and 65 other discards" in out
    assert cli.main(["table", "--example", "marias-hra", "--all", "--json", "--threads", "1"]) == 0
    table = json.loads(capsys.readouterr().out)
    assert table["entries"][0]["announcements"] == ["kilo"] and len(table["entries"]) == 6
    assert cli.main(["table", "--example", "marias-hra", "--all", "--threads", "1"]) == 0
    assert "(every row, best first)" in capsys.readouterr().out


def test_cli_table_columns_hold_the_largest_money(tmp_path, capsys):
    """Stakes of 1,000,000 with re: money of 8 digits ran into the value ('+70+16000016')."""
    from ddcards import cli
    path = tmp_path / "dealt.json"
    path.write_text(json.dumps(dict(SEED_DEALT, flek=2, options={"sedma_value": 1_000_000, "kilo_value": 1_000_000})))
    assert cli.main(["table", str(path), "--threads", "1"]) == 0
    out = capsys.readouterr().out
    assert "discard  contract               value     money   (the best discard of each contract)" in out
    assert "9H KC    hra H + kilo             +70 +16000016   and 9 other discards" in out
    assert "9H KC    hra S                    +30        +8   and 9 other discards" in out


def test_grpc_solve_table_for_marias():
    from ddcards.client import Client

    try:
        from tests._server_helpers import running_server
    except ImportError:
        from _server_helpers import running_server
    with running_server(workers=1) as server, Client(f"127.0.0.1:{server.port}", timeout=60) as client:
        table = client.solve_table(SEED_DEALT)
        direct = dd_table(SEED_DEALT)
        assert table["entries"] == direct["entries"]
        assert table["hands"] == direct["hands"] and table["talon"] is None and table["players"] == 3
        # the options every row was solved with come back too (row_position needs them: it said they lacked)
        staked = dict(SEED_FIXED, options={"sedma_value": 3, "kilo_value": 5, "talon_points": "nobody"})
        table, direct = client.solve_table(staked), dd_table(staked)
        assert table["options"] == direct["options"] == {"sedma_value": 3, "kilo_value": 5, "talon_points": "nobody"}
        assert {k: v for k, v in table.items() if k not in ("nodes", "elapsed_ms")} == \
            {k: v for k, v in direct.items() if k not in ("nodes", "elapsed_ms")}
        row = table["entries"][0]
        assert ddcards.solve(row_position(table, row), mode="best").value == row["money"]
        raw = client.solve_table(SEED_FIXED, as_dict=False)
        first = raw.entries[0]
        assert (first.contract_name, first.discard.notation, list(first.announcements), first.money) == \
            ("hra", "KC 9C", ["kilo"], 12)
        assert [c.notation for c in first.discard.cards] == ["KC", "9C"] and raw.talon.notation == "KC 9C"
        solved = client.solve(dict(SEED_FIXED, contract="hra", trump="H", announcements=["kilo"], players=4),
                              mode="best")
        assert solved["value"] == 12 and solved["settlement"] == [12, -6, -6, 0]
        assert solved["value_kind"] == "money" and solved["parts"]["kilo"]["money"] == 8
        # a document the message cannot carry as it is goes as JSON: the error is the library's
        # the library's own values travel as the notation they are read as (a Suit is an int to JSON)
        hra = ddcards.Position.from_dict(dict(SEED_FIXED, contract="hra", trump="H"))
        own = dict(hra.to_dict(), trump=hra.trump, hands=[list(h) for h in hra.hands])
        assert client.solve(own, mode="best")["value"] == ddcards.solve(hra, mode="best").value
        import grpc
        for call, doc in ((client.solve_table, SEED_DEALT), (client.solve, dict(SEED_FIXED, contract="hra", trump="H"))):
            with pytest.raises(grpc.RpcError) as info:
                call(dict(doc, hands=" ".join(doc["hands"])))
            assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert "Mariáš needs a list of 3 hands (field 'hands')" in info.value.details(), info.value.details()


def test_row_position_gives_the_position_each_row_answers():
    """A notebook user could not solve a row: the deal as dealt with the row's discard as the talon
    was refused (forehand's 12 cards still held it).  row_position takes the discard out; each row's
    position solves to its money where it announces parts, else to its value."""
    from ddcards.ddtable import dd_table, row_position
    dealt = {"game": "marias", "hands": ["7S 8S 9S QS KS TS AS 7H 8H 9H TH JH",
                                         "QH KH AH 7D 8D 9D TD JD QD KD", "AD 7C 8C 9C TC JC QC KC AC JS"],
             "flek": 1}
    for table in (dd_table(ddcards.example("marias-hra")), dd_table(dealt, threads=2)):
        rows = table["entries"][:12] + [e for e in table["entries"] if e["contract"] != "hra"][:4]
        for row in rows:
            pos = row_position(table, row)
            assert sorted(pos.to_dict()["talon"].split()) == sorted(row["discard"].split())
            assert pos.to_dict()["contract"] == row["contract"]
            expected = row["money"] if row["announcements"] else row["value"]
            assert ddcards.solve(pos, mode="best").value == expected, row
    with pytest.raises(ddcards.InvalidArgumentTypeError) as info:
        row_position(table, dict(table["entries"][0], discard="7S 8S", contract="durch"))
    assert info.value.rule == "row_position: a Mariáš row is one of the table's entries; a Klaverjas row is " \
                              "(suit, team), a suit of S H D C and team 0 or 1"


def test_row_position_of_a_betl_or_durch_row_leaves_out_the_hra_only_options():
    """A table of a deal with an option of its own (talon points, a marriage on follow, the Sedma and
    Kilo stakes: Hra's alone) gave its Betl and Durch rows a position with that option, which
    Position.from_dict refuses ("option 'talon_points' does not apply here: betl has no points ...")."""
    from ddcards.ddtable import dd_table, row_position
    deal = {key: value for key, value in ddcards.example("marias-hra").items()
            if key not in ("contract", "trump", "announcements")}
    table = dd_table(dict(deal, options={"talon_points": "nobody", "marriage_on_follow": True, "kilo_value": 3}))
    assert {e["contract"] for e in table["entries"]} == {"hra", "betl", "durch"}
    for row in table["entries"]:
        pos = row_position(table, row)
        assert pos.to_dict().get("options", {}) == (table["options"] if row["contract"] == "hra" else {})
        expected = row["money"] if row["announcements"] else row["value"]
        assert ddcards.solve(pos, mode="best").value == expected, row
