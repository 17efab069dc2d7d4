"""RULES.md §1: players, seats, workers, player mats and research points."""

from __future__ import annotations

import random

import pytest

from helpers import load, make_position, options, play, tile
from kwsearch.engine import reference
from kwsearch.rules import Game


def workers_in_play(st, seat):
    """Every worker of a seat: supply, canteen, developments, market, track marker, lap counter."""
    s = reference(st).seats[seat]
    on_market = sum(car[3] for car in reference(st).market if car[0] == seat)
    return s.supply + s.canteen + len(s.dev_active) + on_market + 2


@pytest.mark.parametrize("players", [2, 3, 4])
def test_player_counts_accepted(players):
    st = Game(players).new_initial_state(seed=3)
    assert len(reference(st).seats) == players
    assert st.current_player() == players - 1  # the last seat chooses a start tile first


@pytest.mark.parametrize("players", [0, 1, 5, True, "4"])
def test_other_player_counts_refused(players):
    with pytest.raises(ValueError):
        Game(players)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_fourteen_workers_four_in_canteen_eight_in_supply(players):
    st = Game(players).new_initial_state(seed=11)
    for s in reference(st).seats:
        assert s.canteen == 4
        assert s.supply == 8
    for seat in range(players):
        assert workers_in_play(st, seat) == 14


def test_workers_stay_fourteen_through_a_random_game():
    """Every worker is accounted for after every move of a game (supply, canteen, developments, market)."""
    game = Game(3)
    st = game.new_initial_state(seed=5)
    rng = random.Random(5)
    steps = 0
    while not st.is_terminal() and steps < 400:
        st.apply(rng.choice(st.legal_actions()))
        steps += 1
        for seat in range(3):
            in_car = reference(st).car[2] if reference(st).turn_seat == seat and len(reference(st).car) >= 3 else 0
            assert workers_in_play(st, seat) + in_car == 14


def test_fresh_mat_before_start_tiles():
    st = Game(4).new_initial_state(seed=2)
    for seat, s in enumerate(reference(st).seats):
        assert s.workshops == []
        assert s.gp_engine == 1  # the GP car's printed engine
        assert (s.laps, s.space) == (0, 0)  # pit lane
        assert s.money == 0
        assert s.engineers == 0
        assert st.research_points(seat) == (0, 0)  # no start tile yet


def test_research_points_one_and_one_from_the_start_tile():
    st = Game(3).new_initial_state(seed=2)
    play(st, "start A")  # seat 2 (hire and engine commute here: done at once, no order decision)
    play(st, "engine -> workshop")  # its engine 1: a workshop or the GP car (RULES.md §4.1)
    play(st, "start B")  # seat 1
    assert st.research_points(0) == (0, 0)
    play(st, "start C")  # seat 0 (start tile D, with its research action, stays unused)
    assert st.pending() == "turn"
    for seat in range(3):
        assert reference(st).seats[seat].dev_active == []
        assert st.research_points(seat) == (1, 1)


def test_start_development_is_active_without_a_worker():
    pos = make_position(seats={0: {"canteen": 0, "developments": []}})
    st = load(pos)
    assert st.research_points(0) == (1, 1)
    assert reference(st).seats[0].supply == 12  # 14 - canteen 0 - track marker - lap counter


def test_three_workshops_a_fourth_tile_needs_room():
    pos = make_position(seats={0: {"workshops": ["body 1", "engine 1"]}})
    st = load(pos)
    play(st, tile("body"))  # third workshop: placed without a question
    assert reference(st).seats[0].workshops == [1, 1, 9]
    pos = make_position(seats={0: {"workshops": ["body 1", "body 1", "engine 1"]}})
    st = load(pos)
    play(st, tile("body"))
    assert options(st) == ["give up body 1", "give up engine 1"]


def test_seat_zero_is_the_start_player():
    pos = make_position()
    st = load(pos)
    assert st.current_player() == 0
    st = Game(3).new_initial_state(seed=8)
    while st.pending() == "setup" or reference(st).phase == "setup":
        st.apply(st.legal_actions()[0])
    assert st.pending() == "turn"
    assert st.current_player() == 0
