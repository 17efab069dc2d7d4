"""RULES.md §2: set-up (tile order, research deck, buyers, start tiles, 2-player offer, seeds)."""

from __future__ import annotations

from collections import Counter

import pytest

from helpers import chain, options, play
from kwsearch.engine import reference
from kwsearch.actions import ENGINE_CODE
from kwsearch.components import default_components
from kwsearch.rules import Game

C = default_components()
SIZE = {t.index: len(t.actions) for t in C.action_tiles}


def tile_ids(st):
    return [int(e.split()[1]) for e in chain(st) if e.startswith("tile")]


# ---------------------------------------------------------------------------
# §2.1 / §3: the chain of action tiles
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_initial_chain_seats_then_tiles_by_category(players):
    """[decision on geometry, RULES.md §3] The initial chain, tail first: seat 0 .. seat n-1, then the
    one-action tiles, the two-action tiles and the three-action tile at the front."""
    for seed in range(12):
        st = Game(players).new_initial_state(seed=seed)
        names = chain(st)
        assert names[:players] == [f"seat {s}" for s in range(players)]
        sizes = [SIZE[t] for t in tile_ids(st)]
        # one-action tiles, then two-action tiles, then the three-action tile (at the front)
        assert sizes == sorted(sizes)
        assert sizes == [1] * 5 + [2] * 4 + [3]


def test_tile_order_within_categories_depends_on_the_seed():
    singles, doubles = set(), set()
    for seed in range(20):
        ids = tile_ids(Game(4).new_initial_state(seed=seed))
        singles.add(tuple(ids[:5]))
        doubles.add(tuple(ids[5:9]))
    assert len(singles) > 5
    assert len(doubles) > 5


# ---------------------------------------------------------------------------
# §2.2: research deck and display
# ---------------------------------------------------------------------------


def test_two_cards_face_up_from_a_shuffled_deck():
    decks = set()
    for seed in range(6):
        st = Game(4).new_initial_state(seed=seed)
        ref = reference(st)
        assert len(ref.display) == 2
        assert ref.discard == []
        assert len(ref.deck) == 48
        assert Counter(reference(st).deck + reference(st).display) == Counter(
            {ct.index: ct.count for ct in C.card_types})
        decks.add(tuple(reference(st).deck))
    assert len(decks) == 6


# ---------------------------------------------------------------------------
# §2.3 / §2.6 / §6.1: buyers, price markers, GP cars
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("players,track", [(2, 2), (3, 4), (4, 4)])
def test_buyers_prices_and_track_at_start(players, track):
    st = Game(players).new_initial_state(seed=1)
    ref = reference(st)
    assert ref.stacks == [2, 2, 2, 2]
    assert ref.active == []
    assert ref.white == [2, 1, 1, 1]  # body 2, engine/prestige/price 1
    assert ref.track == track
    assert ref.prices == [1, 2, 3, 5, 6, 8, 9, 10]
    assert ref.market == []
    for s in reference(st).seats:
        assert (s.laps, s.space) == (0, 0)


# ---------------------------------------------------------------------------
# §2.5: start tiles
# ---------------------------------------------------------------------------


def test_start_tiles_chosen_in_reverse_seat_order():
    st = Game(4).new_initial_state(seed=4)
    assert st.pending() == "setup" and st.current_player() == 3
    assert options(st) == ["start A", "start B", "start C", "start D"]
    play(st, "start C")
    assert st.pending() == "setup" and st.current_player() == 2
    assert options(st) == ["start A", "start B", "start D"]
    play(st, "start B")  # hire, hire and body commute (no inactive development): no order decision
    assert st.current_player() == 1
    assert options(st) == ["start A", "start D"]
    play(st, "start D", "do gp_start2")  # then the research decision of tile D
    assert st.pending() == "research" and st.current_player() == 1
    play(st, options(st)[0])
    # Seat 0 (the start player) gets the last tile, A, without a question and does its actions
    # (hire, hire, engine commute: no order decision); the engine 1 may go to a workshop or the GP
    # car (RULES.md §4.1), the one decision.
    assert st.pending() == "engine_dest" and st.current_player() == 0
    play(st, "engine -> workshop")
    ref = reference(st)
    assert ref.seats[0].start_tile == 0
    assert ref.seats[0].workshops == [ENGINE_CODE + 1] and ref.seats[0].canteen == 6
    assert st.pending() == "turn" and st.current_player() == 0
    assert [s.start_tile for s in ref.seats] == [0, 3, 1, 2]


def test_start_tile_a_done_at_once():
    st = Game(4).new_initial_state(seed=4)
    play(st, "start A")  # hire and engine commute (no inactive development): no order decision
    s = reference(st).seats[3]
    # The engine 1 (by the start tile's own research points, RULES.md §2.5) may go to either
    # place (§4.1).
    assert st.pending() == "engine_dest" and options(st) == ["engine -> workshop", "engine -> gp"]
    play(st, "engine -> workshop")
    assert st.pending() == "setup" and st.current_player() == 2  # done before the next seat chooses
    s = reference(st).seats[3]
    assert (s.canteen, s.supply) == (6, 6)
    assert s.workshops == [ENGINE_CODE + 1]
    assert s.gp_engine == 1
    assert reference(st).supply_engine[0] == C.engine_tiles[0] - 1


def test_start_tile_research_points_count_during_its_own_actions():
    """[book example] RULES.md §2.5: the start tile's development side (1 body + 1 engine point)
    already counts while its own actions are done, so tile A's engine action takes an engine 1 (with
    0 points it would find none)."""
    st = Game(4).new_initial_state(seed=4)
    play(st, "start A")
    ref = reference(st)
    assert st.pending() == "engine_dest" and ref.tasks[-1] == ["engine_dest", 1]
    assert st.research_points(3) == (1, 1)
    assert ref.supply_engine[0] == C.engine_tiles[0] - 1
    play(st, "engine -> gp")  # RULES.md §4.1: the GP car is offered for an engine 1 too
    s = reference(st).seats[3]
    assert s.gp_engine == 1 and s.gp_tile and s.workshops == []


def test_start_tile_b_done_at_once():
    st = Game(4).new_initial_state(seed=4)
    play(st, "start B")  # hire and body commute (no inactive development): no order decision
    s = reference(st).seats[3]
    assert st.current_player() == 2
    assert (s.canteen, s.supply) == (6, 6)
    assert s.workshops == [1]
    assert reference(st).supply_body[0] == C.body_tiles[0] - 1


def test_start_tile_c_done_at_once():
    st = Game(4).new_initial_state(seed=4)
    play(st, "start C")  # GP engine 2 and hire commute: no order decision
    s = reference(st).seats[3]
    assert st.current_player() == 2
    assert s.gp_engine == 2
    assert (s.canteen, s.supply) == (5, 7)
    assert s.workshops == []
    assert reference(st).supply_engine[1] == C.engine_tiles[1] - 1


def test_start_tile_d_done_at_once():
    st = Game(4).new_initial_state(seed=4)
    display = sorted(reference(st).display)
    play(st, "start D", "do gp_start2")
    s = reference(st).seats[3]
    assert s.space == 2 and s.laps == 0
    assert st.pending() == "research" and st.current_player() == 3
    assert set(options(st)) == {f"take research:{C.card_types[t].name}" for t in display}


def test_start_tile_turns_to_its_development_side():
    """1 body + 1 engine research point, active without a worker from the canteen."""
    st = Game(4).new_initial_state(seed=4)
    play(st, "start C")
    ref = reference(st)
    assert st.research_points(3) == (1, 1)
    assert ref.seats[3].dev_active == []
    assert ref.seats[3].canteen == 5  # 4 + the hired one: nothing went onto the development side


def test_two_players_offer_two_random_start_tiles():
    offers = set()
    for seed in range(30):
        st = Game(2).new_initial_state(seed=seed)
        assert st.current_player() == 1
        opts = options(st)
        assert len(opts) == 2
        assert opts == [f"start {C.start_tiles[t].name}" for t in reference(st).offered]
        offers.add(tuple(opts))
    assert len(offers) >= 4  # different pairs are drawn


def test_two_players_seat_zero_gets_the_other_offered_tile():
    st = Game(2).new_initial_state(seed=0)
    first, other = options(st)
    play(st, first)
    while st.pending() != "turn":
        play(st, options(st)[0])
    names = [C.start_tiles[s.start_tile].name for s in reference(st).seats]
    assert names == [other.split()[1], first.split()[1]]
    assert st.current_player() == 0


@pytest.mark.parametrize("players", [3, 4])
def test_three_and_four_players_offer_all_start_tiles(players):
    st = Game(players).new_initial_state(seed=9)
    assert options(st) == ["start A", "start B", "start C", "start D"]


# ---------------------------------------------------------------------------
# Seeds
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_same_seed_same_setup(players):
    a = Game(players).new_initial_state(seed=77)
    b = Game(players).new_initial_state(seed=77)
    assert a.to_json() == b.to_json()
    assert a.legal_actions() == b.legal_actions()
    # and the same game afterwards, move for move
    for _ in range(40):
        if a.is_terminal():
            break
        act = a.legal_actions()[len(a.legal_actions()) // 2]
        a.apply(act)
        b.apply(act)
        assert a.to_json() == b.to_json()


def test_different_seeds_different_setups():
    setups = {str(Game(4).new_initial_state(seed=s).to_json()) for s in range(10)}
    assert len(setups) == 10
