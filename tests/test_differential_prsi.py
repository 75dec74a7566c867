"""Differential test: the fast Prší solver against the plain-Python reference (tests/reference/prsi.py).

Random positions — 2 to 6 players, both variants, chains of 7s and aces pending, stocks about to
run out and piles turned over, players out or waiting on a return — are solved by both; the side
to move, the legal actions, the value, its distance and every action's value and distance must
agree.  Most positions are late in a game (a hand of a card or three) and are searched within a
horizon that reaches the end, so that ends are forced and the distances ("the winner hurries, the
loser delays") are compared, not only draws; the default horizon and none at all are compared
with the ends the reference sees forced, and an exact analysis of a record's last actions with the
ends forced before each one.  A failure prints the position document, so it can be
replayed with ``ddcards.solve(doc)`` and ``reference.solve(*reference.from_document(doc))``.
"""
import json
import random
from unittest import mock

from hypothesis import assume, given, settings
from hypothesis import strategies as st

import ddcards
from ddcards.games import _prsi, prsi, prsi_exact

try:
    from tests.reference import prsi as ref
except ImportError:  # pytest put tests/ itself on sys.path
    from reference import prsi as ref

seeds = st.integers(0, 2**32 - 1)

# The reference's plain minimax grows with the movers' choices ply after ply: a horizon is cut
# back until their product (a generous bound on its work) is at most this.
EFFORT = 1_000_000


def _fmt(cards):
    return ".".join("".join(r for r in "AKQJT987" if r + s in cards) for s in "SHDC")


def _rules(rng, seats, play_on, comeback):
    """The variants, and under play_on P's goal: out first (RULES §4.9) or, half the time, not_last."""
    return ref.Rules(seats, play_on, comeback, play_on and rng.random() < 0.5)


def _variants(rules):
    """The options of the variants, as a document gives them."""
    return {"play_on": rules.play_on, "return": rules.comeback, **({"not_last": True} if rules.not_last else {})}


def new_game(rng, seats, *, play_on=None, comeback=None, rig=""):
    """A random deal, variants and leader: (rules, the document so far, the state at the deal).

    rig: a rank whose four cards are dealt into the hands (to build chains of 7s or of aces)."""
    deck = list(ref.DECK)
    rng.shuffle(deck)
    if rig:
        other = iter([c for c in deck if c[0] != rig])
        slots = dict(zip(rng.sample(range(4 * seats), 4), [c for c in deck if c[0] == rig]))
        deck = [slots[i] if i in slots else next(other) for i in range(4 * seats)] + list(other)
    hands = [deck[4 * i:4 * i + 4] for i in range(seats)]
    upcard, stock = deck[4 * seats], deck[4 * seats + 1:]
    rules = _rules(rng, seats, rng.random() < 0.3 if play_on is None else play_on,
                   rng.random() < 0.3 if comeback is None else comeback)
    leader = rng.randrange(seats)
    doc = {"game": "prsi", "hands": [_fmt(h) for h in hands], "upcard": upcard, "stock": " ".join(stock)}
    if leader or rng.random() < 0.5:        # else the default, seat 0
        doc["leader"] = leader
    return rules, doc, ref.start(hands, stock, upcard, leader)


def choose(rng, state, draw_bias, keep="", eager=""):
    """A random legal action: a card of a rank in `eager` whenever one is legal; `draw` with the
    probability draw_bias (the seat's, if a list) or when nothing else is; never a card of a rank
    in `keep` (drawing or passing instead)."""
    actions = ref.legal_actions(state)
    now = [a for a in actions if a[0] in eager]
    if now:
        return rng.choice(now)
    bias = draw_bias[state.turn] if isinstance(draw_bias, list) else draw_bias
    others = [a for a in actions if a != ref.DRAW and a[0] not in keep]
    if ref.DRAW in actions and (not others or rng.random() < bias):
        return ref.DRAW
    return rng.choice(others)


def random_play(rng, rules, state, *, steps, draw_bias, stop=None, keep="", eager=""):
    """Up to `steps` random actions from `state`, stopping where stop(state) says or before the one
    that ends the game: (the states passed through, first and last included; the actions; whether
    the game was about to end)."""
    states, played = [state], []
    for _ in range(steps):
        if stop is not None and stop(state):
            break
        action = choose(rng, state, draw_bias, keep, eager)
        after = ref.play(rules, state, action)
        if after.done:
            return states, played, True
        state = after
        states.append(state)
        played.append(action)
    return states, played, False


def _seats_in(rules, state):
    """The seats still in, from the one to move on."""
    seats = [(state.turn + i) % rules.seats for i in range(rules.seats)]
    return [s for s in seats if s not in state.out]


def reach(rules, state):
    """The plies until the first hand can be played out (its last card at its owner's n-th turn);
    with `return` one more, the answer that settles it."""
    seats = _seats_in(rules, state)
    return min((t + (len(state.hands[s]) - 1) * len(seats) + 1 for t, s in enumerate(seats) if state.hands[s]),
               default=1) + rules.comeback


def effort(rules, state, horizon):
    """A generous bound on the reference's work within `horizon`: the movers' choices multiplied
    (a card each, an Ober four, and a draw), hands as they are now."""
    seats, work = _seats_in(rules, state), 1
    for t in range(horizon):
        hand = state.hands[seats[t % len(seats)]]
        work *= len(hand) + 3 * sum(c[0] == "Q" for c in hand) + 1 + (2 * state.sevens if t == 0 else 0)
    return work


def late_horizon(rng, rules, state, slack=3):
    """A horizon that reaches the end (no end can be forced before a hand can be played out), a
    ply or two more, cut back where the reference would take too long."""
    horizon = reach(rules, state) + rng.randrange(slack)
    while horizon > 1 and effort(rules, state, horizon) > EFFORT:
        horizon -= 1
    return horizon


def document(rng, rules, doc, played, horizon):
    """The position document: the deal, the history, the variants, the horizon and, in two thirds
    of them, the player P (else the default: the player to move)."""
    options = {"horizon": horizon, **_variants(rules)}
    if rng.random() < 2 / 3:
        options["player"] = rng.randrange(rules.seats)
    return dict(doc, options=options, played=list(played))


def random_position(rng):
    """A position anywhere in a game, reached by random play from a random deal (mostly big hands:
    the end out of reach, the value a draw), within a short horizon: (document, state)."""
    rules, doc, state = new_game(rng, rng.choice([2, 2, 3, 4]))
    states, played, _ = random_play(rng, rules, state, steps=rng.randrange(0, 70),
                                    draw_bias=rng.choice([0.1, 0.4, 0.7, 0.95]))
    # Short horizons: the reference's plain minimax grows ~10x a ply with big hands.
    return document(rng, rules, doc, played, rng.choice([1, 2, 3, 3, 4, 4])), states[-1]


def late_position(rng, seats, back=None):
    """A position late in a game: random play, most often a card where one fits, to the end of the
    game, then `back` plies back (0: the winner is about to play his last card), within a horizon
    that reaches the end: (rules, document, state)."""
    rules, doc, state = new_game(rng, seats)
    states, played, ended = random_play(rng, rules, state, steps=300, draw_bias=rng.choice([0.05, 0.1, 0.2]))
    assume(ended)                   # rare: a game still going after 300 plies
    back = min(len(played), rng.choice([0, 1, 2, 2, 3, 3, 4, 5, 6, 8]) if back is None else back)
    state = states[-1 - back]
    return rules, document(rng, rules, doc, played[:len(played) - back], late_horizon(rng, rules, state)), state


def check(doc):
    text = json.dumps(doc)
    rules, state, player, horizon = ref.from_document(doc)
    want = ref.solve(rules, state, player, horizon)
    pos = ddcards.Position.from_dict(doc)
    assert pos.to_move == (None if state.done else state.turn), text
    assert sorted(pos.legal_moves) == sorted(ref.legal_actions(state)), text
    res = ddcards.solve(pos, mode="all")
    assert (res.value, res.distance) == ref.report(want["value"], horizon, rules.seats), text
    got = {m.move: (m.value, m.distance) for m in res.moves}
    assert got == {a: ref.report(v, horizon, rules.seats) for a, v in want["moves"].items()}, text
    best = {a for a, v in want["moves"].items() if v == want["value"]}
    assert set(res.optimal_moves) == best, text
    assert res.horizon == horizon, text
    check_line(text, rules, state, player, horizon, pos, res)
    return res


def check_line(text, rules, state, player, horizon, pos, res):
    """The hands after the history are the reference's, and the principal variation replays in
    the reference: an optimal action first, P's outcome settled by its last action at the
    distance (else nothing settled, the horizon's length), the scores the hands at its end."""
    assert [{str(c) for c in h} for h in pos.hands] == [set(h) for h in state.hands], text
    line = state
    for action in res.pv:
        line = ref.play(rules, line, action)
    if res.pv:
        assert res.pv[0] in res.optimal_moves, text
    if res.distance is None:
        assert len(res.pv) == horizon and not ref.outcome(rules, line, player), text
    else:
        assert len(res.pv) == res.distance and ref.outcome(rules, line, player) == res.value, text
    assert res.scores == {f"seat{i}": len(h) for i, h in enumerate(line.hands)}, text


def test_the_examples():
    for name in ("prsi", "prsi-endgame", "prsi-4players"):
        doc = ddcards.example(name)
        check(dict(doc, options=dict(doc.get("options", {}), horizon=5)))


@settings(deadline=None, max_examples=600)
@given(seeds)
def test_two_players(seed):
    check(late_position(random.Random(seed), 2)[1])


@settings(deadline=None, max_examples=400)
@given(seeds, st.sampled_from([3, 4]))
def test_three_and_four_players(seed, seats):
    check(late_position(random.Random(seed), seats)[1])


@settings(deadline=None, max_examples=200)
@given(seeds, st.sampled_from([5, 6]))
def test_five_and_six_players(seed, seats):
    """Five and six seats: a stock of 11 or 7 cards that turns over soon, and the wider table key."""
    check(late_position(random.Random(seed), seats)[1])


@settings(deadline=None, max_examples=150)
@given(seeds)
def test_anywhere_in_a_game(seed):
    """Positions from anywhere in a game (big hands, long stocks): the legal actions, and the draw
    the short horizon gives."""
    check(random_position(random.Random(seed))[0])


def special_position(rng):
    """A chain of 7s (up to four) or an ace pending late in a game: the four cards of the rank are
    dealt into the hands and held until a hand is down to one other card, then played wherever one
    fits; the history stops once the chain is long enough (or at random while one is pending)."""
    seats = rng.choice([2, 2, 3, 4])
    rank = rng.choice("77A")
    rules, doc, state = new_game(rng, seats, rig=rank)
    left = rng.choice([0, 1, 1])
    states, played, _ = random_play(rng, rules, state, steps=200, draw_bias=0.1, keep=rank,
                                    stop=lambda s: min(sum(c[0] != rank for c in s.hands[i])
                                                       for i in _seats_in(rules, s)) <= left)
    chain = rng.choice([1, 2, 3, 4, 4])

    def pending(s):
        return s.sevens if rank == "7" else s.ace

    more, acts, _ = random_play(rng, rules, states[-1], steps=40, draw_bias=0.1, eager=rank,
                                stop=lambda s: pending(s) >= chain or (pending(s) and rng.random() < 0.2))
    state = more[-1]
    assume(pending(state))          # no chain started before the game ended or within 40 plies
    return document(rng, rules, doc, played + acts, late_horizon(rng, rules, state)), state


@settings(deadline=None, max_examples=300)
@given(seeds)
def test_special_cards_pending(seed):
    check(special_position(random.Random(seed))[0])


@settings(deadline=None, max_examples=300)
@given(seeds, st.integers(0, 4))
def test_the_pile_about_to_turn_over(seed, left):
    """One seat draws almost always, the others now and then, until the stock holds `left` cards
    or fewer (also after a turnover) and a hand is small: the searches draw through the turnover."""
    rng = random.Random(seed)
    seats = rng.choice([2, 2, 3, 4])
    rules, doc, state = new_game(rng, seats)
    bias = [rng.choice([0.2, 0.3, 0.4]) for _ in range(seats)]
    bias[rng.randrange(seats)] = 0.95
    states, played, _ = random_play(
        rng, rules, state, steps=300, draw_bias=bias,
        stop=lambda s: len(s.stock) <= left and min(len(s.hands[i]) for i in _seats_in(rules, s)) <= 1
        and rng.random() < 0.5)
    assume(len(states[-1].stock) <= left)       # not when the game ended first (or went on too long)
    check(document(rng, rules, doc, played, late_horizon(rng, rules, states[-1])))


@settings(deadline=None, max_examples=300)
@given(seeds)
def test_variants_with_players_out(seed):
    """play_on and return, with histories that run until someone is out or waiting on a return."""
    check(variants_position(random.Random(seed)))


def variants_position(rng):
    """A position of three or four players under play_on and return, most often, whose history ran
    until someone is out or waiting on a return, within a horizon that reaches the end."""
    rules, doc, state = new_game(rng, rng.choice([3, 4]), play_on=rng.random() < 0.7, comeback=rng.random() < 0.6)
    states, played, _ = random_play(rng, rules, state, steps=120, draw_bias=0.05,
                                    stop=lambda s: (s.out or s.waiting is not None) and rng.random() < 0.6)
    return document(rng, rules, doc, played, late_horizon(rng, rules, states[-1]))


@settings(deadline=None, max_examples=150)
@given(seeds)
def test_finished_games_report_the_seat_who_started(seed):
    """A history played to the end, `player` left out: the value is the leader's (RULES §4.9)."""
    rng = random.Random(seed)
    seats = rng.choice([2, 3, 4])
    deck = list(ref.DECK)
    rng.shuffle(deck)
    hands = [deck[4 * i:4 * i + 4] for i in range(seats)]
    upcard, stock = deck[4 * seats], deck[4 * seats + 1:]
    leader = rng.randrange(seats)
    rules = _rules(rng, seats, rng.random() < 0.4, rng.random() < 0.4)
    state, played = ref.start(hands, stock, upcard, leader), []
    while not state.done and len(played) < 400:
        actions = ref.legal_actions(state)
        action = rng.choice([a for a in actions if a != "draw"] or actions)
        state = ref.play(rules, state, action)
        played.append(action)
    assume(state.done)              # a rare endless line: nothing to check here
    doc = {"game": "prsi", "hands": [_fmt(h) for h in hands], "upcard": upcard, "stock": " ".join(stock),
           "leader": leader, "options": {"horizon": 2, **_variants(rules)},
           "played": played}
    res = check(doc)
    assert ref.from_document(doc)[2] == leader
    assert res.value == ref.outcome(rules, state, leader), json.dumps(doc)


# ---------------------------------------------------------------- the default horizon, and none

def forced_end(rules, state, player, limit):
    """(value, distance) of the end forced within `limit` plies, as the reference's minimax within
    ever longer horizons shows it, or None.  The first horizon that shows an end shows it exactly
    (RULES §4.9): the winner cannot do faster (a shorter one showed nothing), the loser cannot hold
    out longer (every line ends by then); test_reference_prsi checks it against ref.exact."""
    for horizon in range(1, limit + 1):
        value = ref.value(rules, state, player, horizon)
        if value:
            return ref.report(value, horizon, rules.seats)
    return None


def forced_ends(rules, state, player, limit):
    """forced_end of the position, and of every action (within `limit` plies from the position)."""
    want = forced_end(rules, state, player, limit)
    if ref.outcome(rules, state, player):           # settled by the history: at distance 0, whatever is played
        return want, {a: want for a in ref.legal_actions(state)}
    moves = {a: forced_end(rules, ref.play(rules, state, a), player, limit - 1) for a in ref.legal_actions(state)}
    return want, {a: f and (f[0], f[1] + 1) for a, f in moves.items()}


def check_beyond(doc, limit, mode="all", ends=None):
    """A solve at the default horizon (20) or with none, beyond the reference's reach, against the
    ends the reference sees forced within `limit` plies (forced_ends, unless given): the solver
    must report those exactly, and where the reference sees none, no end nearer than `limit`.
    Returns whether the position is live (an end forced, or the actions' values differ)."""
    text = json.dumps(doc)
    rules, state, player, horizon = ref.from_document(doc)
    pos = ddcards.Position.from_dict(doc)
    assert pos.to_move == state.turn and sorted(pos.legal_moves) == sorted(ref.legal_actions(state)), text
    want, moves = ends or forced_ends(rules, state, player, limit)
    res = ddcards.solve(pos, mode=mode)
    assert res.horizon == horizon, text

    def agrees(got, expected):
        if expected is None:
            assert got[1] is None or got[1] > limit, (text, got)
        else:
            assert got == expected, (text, got, expected)

    agrees((res.value, res.distance), want)
    got = {m.move: (m.value, m.distance) for m in res.moves}
    assert set(got) == set(moves), text
    if mode == "all":
        for a, expected in moves.items():
            agrees(got[a], expected)
    if want is not None:            # the optimal actions keep the value and its distance
        best = {a for a, f in moves.items() if f == want}
        assert set(res.optimal_moves) == best, text
        for a in best:
            assert got[a] == want, text
    check_line(text, rules, state, player, horizon, pos, res)
    return want is not None or len(set(moves.values())) > 1


def deep_limit(rules, state, most=8):
    """How far the reference looks for a forced end: up to `most` plies, less where that would take
    too long (the deepening reruns each horizon, and again after each action)."""
    limit = most
    while limit > 1 and effort(rules, state, limit) > EFFORT // 4:
        limit -= 1
    return limit


@settings(deadline=None, max_examples=150)
@given(seeds)
def test_the_default_horizon(seed):
    """`horizon` left out: 20 plies (RULES §4.9), far beyond the reference's plain minimax, so the
    solver is checked against the ends the reference sees forced nearer."""
    rng = random.Random(seed)
    rules, doc, state = late_position(rng, rng.choice([2, 2, 3, 4]), back=rng.randrange(5))
    del doc["options"]["horizon"]
    check_beyond(doc, deep_limit(rules, state))


@settings(deadline=None, max_examples=100)
@given(seeds)
def test_no_horizon(seed):
    """`horizon: null`, exact values (RULES §4.9) on real positions: where the reference sees an end
    forced, the solver proves the same; every action's value where the reference sees each one's end,
    else the optimal actions (mode "optimal": an action with no end in sight would need the whole
    game, too big to explore)."""
    rng = random.Random(seed)
    rules, doc, state = late_position(rng, rng.choice([2, 2, 3, 4]), back=rng.randrange(5))
    doc["options"]["horizon"] = None
    player = ref.from_document(doc)[2]
    limit = deep_limit(rules, state)
    ends = forced_ends(rules, state, player, limit)
    assume(ends[0])                 # a forced end is proven fast; a draw would need the whole game, too big
    check_beyond(doc, limit, "all" if all(ends[1].values()) else "optimal", ends)


@settings(deadline=None, max_examples=200)
@given(seeds)
def test_an_exact_analysis_of_a_record_s_last_actions(seed):
    """`ddcards analyse` with `horizon: null` (exact values, RULES §4.9) over the last actions of a
    record: each step's value and distance before its action, the action's own value and distance,
    the best actions and the cost to the mover are the ends the reference sees forced from the
    position before it (forced_ends), all from the view of P at the deal's start."""
    rng = random.Random(seed)
    rules, doc, _ = late_position(rng, rng.choice([2, 2, 3, 4]), back=rng.randrange(4))
    doc["options"]["horizon"] = None
    played = doc["played"]
    from_ply = max(0, len(played) - rng.choice([1, 2, 3]))
    player = ref.from_document(dict(doc, played=[]))[2]        # P at the deal's start: the analysis's view
    wanted = []
    for ply in range(from_ply, len(played) + 1):
        state = ref.from_document(dict(doc, played=played[:ply]))[1]
        want, moves = forced_ends(rules, state, player, deep_limit(rules, state))
        # an end forced everywhere: exact values a search proves fast (a draw would need the whole game)
        assume(want is not None and (ply == len(played) or moves[played[ply]] is not None))
        wanted.append((state, want, moves))
    text = json.dumps(dict(doc, from_ply=from_ply))
    an = ddcards.analyse(doc, from_ply=from_ply)
    assert [s.ply for s in an.steps] == list(range(from_ply, len(played))), text
    assert (an.initial_value, an.final_value) == (wanted[0][1][0], wanted[-1][1][0]), text
    for step, (state, want, moves) in zip(an.steps, wanted):
        action = played[step.ply]
        assert step.seat == state.turn and step.move == action, text
        assert (step.value_before, step.best_distance) == want, (text, step.ply)
        assert (step.value_after, step.distance) == moves[action], (text, step.ply)
        assert set(step.best_moves) == {a for a, f in moves.items() if f == want}, (text, step.ply)
        sign = 1 if state.turn == player else -1
        assert step.cost == sign * (want[0] - moves[action][0]) and step.mistake == (step.cost > 0), text
    final = an.final
    assert (final.value, final.distance) == wanted[-1][1], text


# ---------------------------------------------------------------- long horizons: shorter ones first

def within_its_own_horizon_only():
    """Searches within the position's own horizon alone, none shorter tried first (the plain search)."""
    return mock.patch.object(prsi, "shorter_horizons", lambda horizon, after=0: [])


def answer(res):
    """What a solve answers, but the line (an optimal one; equal ends may be reached by other lines)."""
    return (res.value, res.distance, res.optimal_moves, [(m.move, m.value, m.distance, m.optimal) for m in res.moves])


@settings(deadline=None, max_examples=150)
@given(seeds)
def test_a_long_horizon_finds_the_ends_the_reference_sees(seed):
    """A horizon over 20 plies tries shorter ones first (RULES §4.9): the ends the reference sees
    forced, and every action's, come out exactly as within the whole horizon, and none nearer where
    the reference sees none; the line reaches the end it forces."""
    rng = random.Random(seed)
    rules, doc, state = late_position(rng, rng.choice([2, 2, 3, 4]), back=rng.randrange(7))
    limit = deep_limit(rules, state)
    if rng.random() < 0.3:
        # up to the most the rules allow, where the reference sees the position's end forced: mode
        # optimal (in mode all an action that forces no end is searched within the whole horizon)
        ends = forced_ends(rules, state, ref.from_document(doc)[2], limit)
        if ends[0] is not None:
            doc["options"]["horizon"] = rng.randrange(31, prsi.MAX_HORIZON + 1)
            check_beyond(doc, limit, "optimal", ends)
            return
    doc["options"]["horizon"] = rng.randrange(21, 31)
    check_beyond(doc, limit)


def test_a_long_horizon_answers_as_the_search_within_it_alone():
    """Fresh deals and positions from anywhere in a game (2 to 6 players, any seat's value, every
    variant and goal), every mode: the value, its distance, the optimal actions and every action's
    value and distance found by trying shorter horizons first are those of the search within the
    whole horizon alone."""
    docs = (corpus("fresh-2", 36) + corpus("fresh-3", 8) + corpus("fresh-4", 8) + corpus("midgame", 24)
            + corpus("mixed", 30))
    rng = random.Random(16)
    forced = looked_on = 0
    for doc in docs:
        horizon = rng.randrange(21, 27)
        mode = rng.choice(["all", "all", "all", "optimal", "best"])
        doc = dict(doc, options=dict(doc.get("options", {}), horizon=horizon))
        text = json.dumps(doc)
        got = ddcards.solve(doc, mode=mode)
        with within_its_own_horizon_only():
            want = ddcards.solve(doc, mode=mode)
        if mode == "best":              # one optimal action, of the same value
            assert (got.value, got.distance) == (want.value, want.distance), text
            assert [(m.value, m.distance) for m in got.moves] == [(want.value, want.distance)], text
        else:
            assert answer(got) == answer(want), text
        forced += got.distance is not None
        looked_on += mode == "all" and got.distance is not None and any(m.distance is None for m in got.moves)
        line = ddcards.Position.from_dict(doc)
        for move in got.pv:             # a line of legal actions to the end forced
            line = line.play(move)
        assert got.distance is None or len(got.pv) == got.distance, text
    assert forced >= 12 and looked_on >= 2      # ends forced; actions that force none searched on


def test_an_analysis_at_a_long_horizon_values_each_action_as_the_search_within_it_alone():
    """`analyse` values an action that is not optimal by one search after it, within the horizon
    less one ply: trying shorter ones first, it values each as the search within it alone does."""
    valued = forced = 0
    for doc in corpus("midgame", 16) + corpus("fresh-3", 4):
        pos = ddcards.Position.from_dict(dict(doc, options=dict(doc.get("options", {}), horizon=22)))
        start = len(doc.get("played", []))
        rng = random.Random(start)
        for _ in range(6):
            if pos.is_over:
                break
            pos = pos.play(rng.choice(pos.legal_moves))
        record = pos.to_dict()
        got = ddcards.analyse(record, from_ply=start)
        with within_its_own_horizon_only():
            want = ddcards.analyse(record, from_ply=start)
        valued += sum(s.move not in s.best_moves for s in got.steps)
        forced += sum(s.distance is not None for s in got.steps)
        assert [(s.value_before, s.best_distance, s.value_after, s.distance, s.best_moves, s.cost)
                for s in got.steps] == [(s.value_before, s.best_distance, s.value_after, s.distance, s.best_moves,
                                         s.cost) for s in want.steps], json.dumps(record)
    assert valued >= 10 and forced >= 40          # actions valued after they were played; ends forced


def test_a_long_horizon_on_two_threads_answers_as_on_one():
    """The shorter searches and those after an action run on every thread of the search (each
    helper's board plays the action too): the same answers as on one thread."""
    forced = 0
    for doc in corpus("fresh-2", 36) + corpus("fresh-3", 4) + corpus("midgame", 8):
        doc = dict(doc, options=dict(doc.get("options", {}), horizon=26))
        one = ddcards.solve(doc)
        two = ddcards.solve(doc, threads=2)
        assert answer(two) == answer(one), json.dumps(doc)
        forced += sum(m.distance is not None for m in one.moves) < len(one.moves) and one.distance is not None
    assert forced >= 4                  # actions searched on after the shorter horizon showed an end


def test_the_shorter_horizons_tried_first():
    """Every fourth from 12, each at least 4 plies short of the horizon (one nearer costs about as
    much as the horizon's own search), over the one already searched; none within 20 plies."""
    assert [list(prsi.shorter_horizons(h)) for h in (1, 20, 21, 24, 25, 40)] == [
        [], [], [12, 16], [12, 16, 20], [12, 16, 20], [12, 16, 20, 24, 28, 32, 36]]
    assert list(prsi.shorter_horizons(39, 23)) == [24, 28, 32]
    assert list(prsi.shorter_horizons(39, 24)) == [28, 32]
    assert list(prsi.shorter_horizons(29, 27)) == []
    # a forced end at ply d is coded +-(h + 1 - d) within h plies: within 30 as within 12, 18 plies on
    assert (prsi.within(5, 12, 30), prsi.within(-5, 12, 30), prsi.within(0, 12, 30)) == (23, -23, 0)


# ---------------------------------------------------------------- the exact analysis on small games

def mini_state(rng, seats, size):
    """A small game (not a deal: `size` cards only), as the reference's State and the board's bytes."""
    cards = rng.sample(ref.DECK, size)
    top, rest = cards[0], cards[1:]
    hands = [[] for _ in range(seats)]
    for i in range(seats):
        hands[i].append(rest[i])
    queue = []
    for c in rest[seats:]:
        (hands[rng.randrange(seats)] if rng.random() < 0.5 else queue).append(c)
    sevens = 1 if top[0] == "7" and rng.random() < 0.5 else 0
    ace = top[0] == "A" and rng.random() < 0.5
    suit = rng.choice("SHDC") if top[0] == "Q" else top[1]
    turn = rng.randrange(seats)
    state = ref.State(hands=tuple(frozenset(h) for h in hands), stock=tuple(queue), pile=(top,), suit=suit,
                      sevens=sevens, ace=ace, turn=turn, out=frozenset(), waiting=None, finished=(), done=False)
    code = {c: "SHDC".index(c[1]) * 8 + "789TJQKA".index(c[0]) for c in ref.DECK}
    # PrsiBoard.pack's layout: top, suit, sevens, ace, turn, pending_out + 1, out, first_out + 1, done,
    # the hands (4 bytes each), the queue.
    packed = bytes([code[top], "SHDC".index(suit), sevens, int(ace), turn, 0, 0, 0, 0])
    packed += b"".join(sum(1 << code[c] for c in h).to_bytes(4, "little") for h in hands)
    packed += bytes(code[c] for c in queue)
    return state, packed


@settings(deadline=None, max_examples=200)
@given(seeds, st.sampled_from([2, 2, 3]))
def test_exact_analysis_of_small_games(seed, seats):
    rng = random.Random(seed)
    rules = _rules(rng, seats, rng.random() < 0.3, rng.random() < 0.3)
    # Small enough for the reference's exact analysis (a few thousand states at most).
    state, packed = mini_state(rng, seats, rng.choice([4, 5, 5, 6]) if seats == 2 else 5)
    player = rng.randrange(seats)
    want = ref.exact(rules, state, player)
    value, moves, pv, states = prsi_exact.exact_graph(packed, seats, rules.play_on, rules.comeback, player,
                                                not_last=rules.not_last)
    # The same game graph: the reference tells apart states that differ only in where the stock
    # ends and the pile begins (the same queue to draw from), and in who went out second.
    assert states == len({(s.hands, s.stock + s.pile, s.suit, s.sevens, s.ace, s.turn, s.out, s.waiting,
                           s.finished[:1], s.done) for s in want})
    o, d = want[state]
    assert prsi_exact.decode_exact(value) == (o, d if o else None), (seed, state)
    for action, v in moves:
        child = ref.play(rules, state, _action_name(action))
        o, d = want[child]
        assert prsi_exact.decode_exact(v) == (o, d + 1 if o else None), (seed, state, action)
    if value == 0:
        assert pv, "a drawn game has a line that goes round"


def _action_name(move):
    if move == _prsi.MOVE_DRAW:
        return "draw"
    if move == _prsi.MOVE_PASS:
        return "pass"
    if move >= _prsi.MOVE_OBER:
        return f"Q{'SHDC'[(move - 32) >> 2]}/{'SHDC'[(move - 32) & 3]}"
    return "789TJQKA"[move & 7] + "SHDC"[move >> 3]


# ---------------------------------------------------------------- the table at long horizons

CORPUS = __import__("pathlib").Path(__file__).resolve().parent.parent / "benchmarks" / "corpus"


def corpus(name, n):
    return [json.loads(line) for line in (CORPUS / f"prsi-{name}.jsonl").read_text().splitlines()[:n]]


def raw_answer(doc, searcher, probe=True):
    from ddcards._core.search import MODE_ALL

    session = ddcards.Position.from_dict(doc).session()
    session.board.probe = probe
    value, moves, pv, _ = session.search(searcher, MODE_ALL, None, None)
    return value, sorted(moves)


def test_the_table_never_changes_an_answer():
    """The keys are exact: at horizons the reference cannot reach, a search that probes the table
    answers as one that does not (values coded with their distance, every action's)."""
    from ddcards._core.search import Searcher

    for name, horizon, n in (("fresh-2", 24, 20), ("fresh-3", 22, 20), ("fresh-4", 26, 20), ("midgame", 20, 40)):
        for doc in corpus(name, n):
            doc = dict(doc, options=dict(doc.get("options", {}), horizon=horizon))
            assert raw_answer(doc, Searcher(2)) == raw_answer(doc, Searcher(2), probe=False), json.dumps(doc)


def test_a_shared_table_never_changes_an_answer():
    """One table across deals, horizons and players (keys carry the deal, plies left and P)."""
    from ddcards._core.search import Searcher

    shared = Searcher(2)
    docs = corpus("fresh-2", 8) + corpus("midgame", 8)
    for doc in docs:
        for player in range(len(doc["hands"]))[:3]:
            for horizon in (12, 18):
                d = dict(doc, options=dict(doc.get("options", {}), horizon=horizon, player=player))
                assert raw_answer(d, shared) == raw_answer(d, Searcher(2)), json.dumps(d)
