"""Random-simulation conformance: invariants that hold at every decision of seeded random games.

Cheap invariants are checked at every step of 500 games per player count;
the dearer ones (play-by-text of every legal action, copies, serialization,
determinization) on fewer games, to keep the file well under a minute.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from kwsearch.engine import reference
from kwsearch.formats import position_to_state
from kwsearch.formats import tiles_in_play
from kwsearch.components import MAX_TILE_VALUE, default_components
from kwsearch.rules import TERMINAL, Game, State

pytestmark = pytest.mark.one_engine  # engine-independent (see conftest.py)

C = default_components()
MAX_STEPS = 3000  # a game takes about 100-200 decisions; far more means it does not end
CHEAP_GAMES = 500
PLAY_TEXT_GAMES = 40
COPY_GAMES = 20
ROUNDTRIP_GAMES = 16
RESTORE_PLAYER_GAMES = 5
DETERMINIZE_GAMES = 60


# ---------------------------------------------------------------------------
# Invariants
# ---------------------------------------------------------------------------


def _workers(st: State, seat: int) -> int:
    """All of a seat's workers: supply, canteen, on active developments, on its market cars,
    on the car it is building, the action-track marker and the lap counter."""
    s = st.seats[seat]
    on_market = sum(car[3] for car in st.market if car[0] == seat)
    building = st.car[2] if st.turn_seat == seat and len(st.car) >= 3 else 0
    return s.supply + s.canteen + len(s.dev_active) + on_market + building + 2


def _tiles(st: State) -> tuple[Counter, Counter]:
    """(body, engine) tiles by value: supply plus every tile in play."""
    body, engine = tiles_in_play(st)
    for v in range(1, MAX_TILE_VALUE + 1):
        body[v] += st.supply_body[v - 1]
        engine[v] += st.supply_engine[v - 1]
    return body, engine


BODY_TOTAL = Counter({v: n for v, n in enumerate(C.body_tiles, 1)})
ENGINE_TOTAL = Counter({v: n for v, n in enumerate(C.engine_tiles, 1)})


def _cheap_checks(st: State, where: str, last_money: list[int]) -> list[int]:
    legal = st.legal_actions()
    if st.is_terminal():
        assert legal == [], where
        assert st.current_player() == TERMINAL, where
    else:
        assert legal, f"{where}: no legal action in a running game"
        assert legal == sorted(set(legal)), f"{where}: legal actions not sorted and unique: {legal}"
        assert 0 <= st.current_player() < st.game.num_players, where
        for a in legal:
            assert st.parse_move(st.action_to_text(a)) == a, f"{where}: {st.action_to_text(a)!r}"
    ref = reference(st)  # one snapshot of a fast state for the checks below
    for seat in range(st.game.num_players):
        assert _workers(ref, seat) == C.workers_per_player, f"{where}: seat {seat} workers"
        assert ref.seats[seat].supply >= 0 and ref.seats[seat].canteen >= 0, where
    body, engine = _tiles(ref)
    assert body == BODY_TOTAL, f"{where}: body tiles {dict(body)}"
    assert engine == ENGINE_TOTAL, f"{where}: engine tiles {dict(engine)}"
    money = st.money()
    assert all(m >= p for m, p in zip(money, last_money)), f"{where}: money went down {last_money} -> {money}"
    return money


def _specialty_checks(st: State, where: str) -> None:
    """V6: every specialty tile once in the chain, face down or used, under its own stack; exactly
    one in the chain, of the current or an earlier round."""
    from kwsearch.rules import SPECIAL
    sp = st.game.components.specialty_tiles
    st = reference(st)
    in_chain = [e - SPECIAL for e in st.chain if e >= SPECIAL]
    assert len(in_chain) == 1, f"{where}: specialty tiles in the chain: {in_chain}"
    assert sp[in_chain[0]].stack <= st.round - 1, where
    seen = list(in_chain)
    for r, (undrawn, used) in enumerate(zip(st.spec_undrawn, st.spec_used)):
        assert all(sp[t].stack == r for t in undrawn + used), where
        seen += undrawn + used
    assert sorted(seen) == list(range(len(sp))), f"{where}: specialty tiles {sorted(seen)}"


def _play(players: int, seed: int, on_state=None, v6: bool = False) -> State:
    """A seeded random game; ``on_state(state, where)`` runs at every decision and at the end."""
    rng = random.Random(seed)
    st = Game(players, v6=v6).new_initial_state(seed)
    last = st.money()
    for step in range(MAX_STEPS):
        where = f"players={players} seed={seed} step={step}"
        last = _cheap_checks(st, where, last)
        if v6:
            _specialty_checks(st, where)
        if on_state is not None:
            on_state(st, where)
        if st.is_terminal():
            return st
        st.apply(rng.choice(st.legal_actions()))
    raise AssertionError(f"players={players} seed={seed}: no end after {MAX_STEPS} decisions")


# ---------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_end_and_keep_the_cheap_invariants(players):
    """Termination after three rounds, 14 workers per seat, constant tiles, money never down,
    sorted unique non-empty legal actions whose text parses back."""
    for seed in range(CHEAP_GAMES):
        st = _play(players, seed)
        assert st.is_terminal() and st.round == C.rounds
        assert sum(st.returns()) == pytest.approx(1.0)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_playing_the_text_of_every_legal_action_gives_that_action(players):
    def check(st: State, where: str) -> None:
        for a in st.legal_actions():
            c = st.copy()
            text = st.action_to_text(a)
            assert c.play(text) == a, f"{where}: {text!r}"

    for seed in range(1000, 1000 + PLAY_TEXT_GAMES):
        _play(players, seed, check)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_copy_is_independent_of_the_original(players):
    moves = random.Random(players)

    def check(st: State, where: str) -> None:
        if st.is_terminal():
            return
        before = st.to_json()
        c = st.copy()
        for _ in range(15):  # mutate the copy deeply: several decisions, seats, market, deck
            if c.is_terminal():
                break
            c.apply(moves.choice(c.legal_actions()))
        c = reference(c)  # the copy itself on the reference engine
        c.seats[0].workshops.append(1)
        c.market.append([0, 1, 1, 1, 0, 0, 0])
        c.tasks.append(["turn", 0])
        assert st.to_json() == before, where
        assert st.copy().to_json() == before, where

    for seed in range(2000, 2000 + COPY_GAMES):
        _play(players, seed, check)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_to_json_from_json_round_trips_at_every_step(players):
    def check(st: State, where: str) -> None:
        obj = st.to_json()
        back = position_to_state(obj)
        assert back.to_json() == obj, where
        assert back.legal_actions() == st.legal_actions(), where
        assert back.pending() == st.pending(), where

    for seed in range(3000, 3000 + ROUNDTRIP_GAMES):
        _play(players, seed, check)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_restored_state_has_the_same_player_to_decide(players):
    """from_json(to_json()) must name the same deciding seat at every decision (inside a market
    move too, where the pending task itself does not name the seat)."""
    def check(st: State, where: str) -> None:
        back = position_to_state(st.to_json())
        assert back.current_player() == st.current_player(), f"{where}: pending {st.pending()}"

    for seed in range(3000, 3000 + RESTORE_PLAYER_GAMES):
        _play(players, seed, check)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_restored_state_plays_on_exactly_like_the_original(players):
    """Restore the full state mid-game and replay the same moves: same draws, same end."""
    for seed in range(4000, 4000 + ROUNDTRIP_GAMES):
        rng = random.Random(seed)
        st = Game(players).new_initial_state(seed)
        for _ in range(rng.randrange(10, 90)):
            if st.is_terminal():
                break
            st.apply(rng.choice(st.legal_actions()))
        back = position_to_state(st.to_json())
        moves = random.Random(seed + 1)
        while not st.is_terminal():
            a = moves.choice(st.legal_actions())
            st.apply(a)
            back.apply(a)
        assert back.is_terminal()
        assert back.to_json() == st.to_json()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_determinize_keeps_every_observation_and_permutes_only_the_undrawn_cards(players):
    det = random.Random(players * 7)

    def check(st: State, where: str) -> None:
        if det.random() > 0.2:
            return
        d = st.copy()
        d.determinize(det)
        assert sorted(reference(d).deck) == sorted(reference(st).deck), where
        for seat in range(players):
            assert d.observation(seat) == st.observation(seat), where
        full, dfull = st.to_json(), d.to_json()
        del full["hidden"], dfull["hidden"]
        assert dfull == full, where
        assert d.legal_actions() == st.legal_actions(), where

    for seed in range(5000, 5000 + DETERMINIZE_GAMES):
        _play(players, seed, check)


# ---------------------------------------------------------------------------
# V6 (RULES.md §11)
# ---------------------------------------------------------------------------

V6_GAMES = 200


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_v6_games_keep_every_invariant(players):
    """The cheap invariants plus the specialty tiles' conservation, in V6 games."""
    for seed in range(V6_GAMES):
        st = _play(players, seed, v6=True)
        assert st.is_terminal() and st.round == C.rounds


@pytest.mark.parametrize("players", [2, 3, 4])
def test_v6_states_round_trip_and_determinize(players):
    det = random.Random(players * 11)

    def check(st: State, where: str) -> None:
        if det.random() > 0.15:
            return
        assert position_to_state(json.loads(json.dumps(st.to_json()))).to_json() == st.to_json(), where
        d = st.copy()
        d.determinize(det)
        d_ref, ref = reference(d), reference(st)
        assert [sorted(x) for x in d_ref.spec_undrawn] == [sorted(x) for x in ref.spec_undrawn], where
        assert d_ref.spec_used == ref.spec_used and d_ref.chain == ref.chain, where
        assert d.observation() == st.observation(), where
        assert d.legal_actions() == st.legal_actions(), where

    for seed in range(300, 300 + ROUNDTRIP_GAMES):
        _play(players, seed, check, v6=True)


# ---------------------------------------------------------------------------
# The decisions added by the rules corrections of RULES.md §4.1, §5.1-§5.3 and §11
# ---------------------------------------------------------------------------

NEW_DECISION_GAMES = 60
NEW_DECISION_V6_GAMES = 30


def test_random_games_reach_the_corrected_rules_decisions():
    """Random games keep every invariant (above) while they reach the decisions the corrections
    added: an engine equal to or lower than the GP car's offered for the GP car (§4.1), the
    immediate tile of an inactive development (§5.1), the order of the "one body & one engine"
    card (§5.2), a second Diesel change in the same turn (§5.3) and, with V6, the order of a
    specialty tile's standard action and bonus (§11)."""
    seen: Counter = Counter()
    prev: list = [None]

    def watch(st: State, where: str) -> None:
        pend = st.pending()
        ref = reference(st)
        if not st.is_terminal():
            seat = ref.seats[st.current_player()]
            seen[pend] += 1
            if pend == "engine_dest":
                assert st.legal_actions() == [st.game.notation.parse("engine -> workshop"),
                                              st.game.notation.parse("engine -> gp")], where
                if ref.tasks[-1][1] <= seat.gp_engine:
                    seen["engine not higher than the GP car's"] += 1
            if pend == "diesel" and prev[0] == "diesel_change":
                seen["second Diesel decision in one turn"] += 1
        for s in ref.seats:
            if s.dev_inactive and any(C.card_types[t].tile for t in s.dev_inactive):
                seen["inactive development with a tile"] += 1
        prev[0] = pend

    for seed in range(6000, 6000 + NEW_DECISION_GAMES):
        _play(4, seed, watch)
    for seed in range(7000, 7000 + NEW_DECISION_V6_GAMES):
        _play(3, seed, watch, v6=True)
    for kind in ("card_order", "special_order", "engine not higher than the GP car's",
                 "second Diesel decision in one turn", "inactive development with a tile"):
        assert seen[kind] >= 1, f"never reached: {kind} ({dict(seen)})"
