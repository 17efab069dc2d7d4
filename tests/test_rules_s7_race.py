"""RULES.md §7: the Grand-Prix race — moving the GP car and scoring the race.

Moves are made with the one-action tile "grand prix" (tile 3 of the default
components: the car moves as many spaces as its engine value). Race scoring is
checked with hand-written positions in phase "scoring" whose market and buyers
are empty, so that every money change comes from the race.
"""

from __future__ import annotations

import pytest

from helpers import minimal_position as _position
from kwsearch.engine import reference, state_from_json
from kwsearch.components import AWARDS, default_components
from kwsearch.rules import State

GP_TILE = "tile 3"  # the one-action tile "grand prix" (RULES.md §12 order)
LAP = default_components().gp_lap_length  # 12 [assumed]


def _state(players: int = 3, phase: str = "action", seats: dict | None = None, **extra) -> State:
    """The state of :func:`_position`; a "scoring" position is scored at once (no decision in it)."""
    return state_from_json(_position(players, phase, seats, **extra), seed=7)


def _award_holder(st: State, name: str) -> int:
    return reference(st).awards[AWARDS.index(name)]


def _gp(players: int = 3, seats: dict | None = None) -> State:
    """Seat 0 takes the GP tile; returns the state after its turn."""
    st = _state(players, seats=seats)
    st.play(GP_TILE)
    return st


# ---------------------------------------------------------------------------
# Moving
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("engine", [1, 2, 3, 5, 7])
def test_first_step_from_the_pit_lane_goes_to_space_1(engine):
    """From the pit lane (space 0) an engine of value v reaches space v: the first step is space 1."""
    st = _gp(seats={0: {"gp_engine": engine}})
    s = reference(st).seats[0]
    assert (s.laps, s.space) == (0, engine)


def test_moving_from_the_middle_of_the_lap():
    st = _gp(seats={0: {"gp_engine": 3, "space": 4}})
    ref = reference(st)
    assert (ref.seats[0].laps, ref.seats[0].space) == (0, 7)


def test_landing_exactly_on_the_last_space_completes_no_lap():
    st = _gp(seats={0: {"gp_engine": 2, "space": LAP - 2}})
    ref = reference(st)
    assert (ref.seats[0].laps, ref.seats[0].space) == (0, LAP)
    assert _award_holder(st, "gp1") == -1


def test_stepping_from_the_last_space_to_space_1_adds_a_lap():
    """A lap has 12 spaces: from 11 an engine 3 goes 12, 1, 2 and crosses the finish line once."""
    st = _gp(seats={0: {"gp_engine": 3, "space": LAP - 1}})
    ref = reference(st)
    assert (ref.seats[0].laps, ref.seats[0].space) == (1, 2)


def test_crossing_the_line_again_adds_another_lap():
    st = _gp(seats={0: {"gp_engine": 2, "space": LAP, "laps": 1}})
    ref = reference(st)
    assert (ref.seats[0].laps, ref.seats[0].space) == (2, 2)


def test_an_occupied_space_is_skipped_and_not_counted():
    """Another car on space 2: an engine 2 from the pit goes 1, (2 skipped), 3."""
    st = _gp(seats={0: {"gp_engine": 2}, 1: {"space": 2}})
    ref = reference(st)
    assert ref.seats[0].space == 3
    assert ref.seats[1].space == 2  # the other car does not move


def test_several_occupied_spaces_in_a_row_are_all_skipped():
    st = _gp(seats={0: {"gp_engine": 2}, 1: {"space": 2}, 2: {"space": 3}})
    assert reference(st).seats[0].space == 4


def test_an_occupied_space_1_is_skipped_when_leaving_the_pit_lane():
    st = _gp(seats={0: {"gp_engine": 1}, 1: {"space": 1}})
    assert reference(st).seats[0].space == 2


def test_a_car_never_ends_on_an_occupied_space():
    """The last step also skips: engine 1 from space 4 with a car on 5 lands on 6."""
    st = _gp(seats={0: {"gp_engine": 1, "space": 4}, 1: {"space": 5}})
    assert reference(st).seats[0].space == 6


def test_an_occupied_space_1_after_the_finish_line_is_skipped_and_the_lap_still_counts():
    st = _gp(seats={0: {"gp_engine": 1, "space": LAP}, 1: {"space": 1}})
    ref = reference(st)
    assert (ref.seats[0].laps, ref.seats[0].space) == (1, 2)


def test_cars_in_the_pit_lane_do_not_block_space_1():
    """Space 0 is the pit lane, not a track space: other cars there block nothing."""
    st = _gp(seats={0: {"gp_engine": 1}, 1: {"space": 0}, 2: {"space": 0}})
    assert reference(st).seats[0].space == 1


def test_two_player_neutral_cars_block_spaces_3_and_6():
    """2 players: neutral cars stand on 3 and 6 [book 8.0]; engine 3 from 2 goes 4, 5, (6), 7."""
    st = _gp(players=2, seats={0: {"gp_engine": 3, "space": 2}})
    assert reference(st).seats[0].space == 7


def test_two_player_neutral_car_on_3_is_skipped_from_the_pit():
    st = _gp(players=2, seats={0: {"gp_engine": 3}})
    assert reference(st).seats[0].space == 4


def test_neutral_cars_exist_only_with_two_players():
    st = _gp(players=3, seats={0: {"gp_engine": 3}})
    assert reference(st).seats[0].space == 3


def test_neutral_cars_never_move():
    """After many GP moves of both players the neutral cars still block 3 and 6."""
    st = _state(players=2, seats={0: {"gp_engine": 7}, 1: {"gp_engine": 7}})
    for _ in range(4):
        st.play(GP_TILE)
    assert st.game.neutral_cars == (3, 6)
    for s in reference(st).seats:
        assert s.space not in (3, 6)
    # A car just behind a neutral car still skips it.
    st2 = _gp(players=2, seats={0: {"gp_engine": 1, "space": 5}})
    assert reference(st2).seats[0].space == 7


def test_a_position_may_not_put_a_player_car_on_a_neutral_cars_space():
    from kwsearch.formats import check_position
    problems = check_position(_position(players=2, seats={0: {"space": 3}}))
    assert any(path == "$.seats[0].space" for path, _ in problems)


# ---------------------------------------------------------------------------
# Awards for laps
# ---------------------------------------------------------------------------


def test_first_to_complete_a_lap_takes_the_gp1_award_worth_3():
    st = _gp(seats={0: {"gp_engine": 2, "space": LAP}})
    assert _award_holder(st, "gp1") == 0
    assert reference(st).seats[0].money == 3


def test_the_gp1_award_is_taken_once():
    """Seat 0 completes the first lap and takes the award; seat 1's first lap later earns nothing."""
    st = _state(seats={0: {"gp_engine": 2, "space": LAP}, 1: {"gp_engine": 2, "space": LAP - 1}})
    st.play(GP_TILE)
    assert st.current_player() == 1
    st.play(GP_TILE)
    assert reference(st).seats[1].laps == 1
    assert _award_holder(st, "gp1") == 0
    assert st.money() == [3, 0, 0]


def test_a_gp1_award_taken_earlier_is_not_taken_again():
    st = _state(seats={0: {"gp_engine": 2, "space": LAP}}, awards={"gp1": 2})
    st.play(GP_TILE)
    ref = reference(st)
    assert ref.seats[0].laps == 1
    assert _award_holder(st, "gp1") == 2
    assert ref.seats[0].money == 0


def test_completing_a_second_lap_takes_the_gp2_award_worth_7():
    st = _state(seats={0: {"gp_engine": 3, "space": LAP - 1, "laps": 1}}, awards={"gp1": 1})
    st.play(GP_TILE)
    ref = reference(st)
    assert ref.seats[0].laps == 2
    assert _award_holder(st, "gp2") == 0
    assert ref.seats[0].money == 7


def test_a_first_lap_does_not_take_the_gp2_award():
    st = _state(seats={0: {"gp_engine": 3, "space": LAP - 1}})
    st.play(GP_TILE)
    assert _award_holder(st, "gp1") == 0
    assert _award_holder(st, "gp2") == -1


def test_the_gp2_award_is_taken_once():
    st = _state(seats={0: {"gp_engine": 3, "space": LAP - 1, "laps": 1}}, awards={"gp1": 1, "gp2": 1})
    st.play(GP_TILE)
    ref = reference(st)
    assert ref.seats[0].laps == 2
    assert ref.seats[0].money == 0


# ---------------------------------------------------------------------------
# Race scoring
# ---------------------------------------------------------------------------


def _score(players: int, cars: dict[int, tuple[int, int]]) -> list[int]:
    """Money each seat earns from a race with the given (laps, space) per seat (others in the pit)."""
    seats = {i: {"laps": laps, "space": space} for i, (laps, space) in cars.items()}
    st = _state(players, phase="scoring", seats=seats)
    return st.money()


def test_places_1_2_3_earn_7_4_2_and_the_fourth_nothing():
    assert _score(4, {0: (0, 5), 1: (0, 9), 2: (0, 2), 3: (0, 7)}) == [2, 7, 0, 4]


def test_ranking_is_by_laps_then_space():
    """A car on space 1 of its second lap is ahead of every car on its first lap."""
    money = _score(3, {0: (0, 12), 1: (1, 1), 2: (0, 11)})
    assert money == [4, 7 + 1, 2]


@pytest.mark.parametrize("laps, lap_money", [(1, 1), (2, 3), (3, 5), (4, 6), (5, 7), (6, 8), (7, 9), (9, 11)])
def test_lap_money_1_3_5_6_7_then_plus_1_per_lap(laps, lap_money):
    money = _score(3, {0: (laps, 4)})
    assert money[0] == 7 + lap_money
    assert default_components().lap_money(laps) == lap_money


def test_every_player_earns_lap_money_whatever_his_place():
    """The fourth car gets no place money but still its lap money."""
    money = _score(4, {0: (3, 1), 1: (3, 2), 2: (3, 3), 3: (2, 12)})
    assert money == [2 + 5, 4 + 5, 7 + 5, 0 + 3]


def test_cars_in_the_pit_lane_rank_below_all_and_earn_no_place_money():
    """[decision] RULES.md §7: cars still in the pit lane get no place money even if places are left."""
    assert _score(4, {2: (0, 1)}) == [0, 0, 7, 0]
    assert _score(3, {}) == [0, 0, 0]


def test_a_car_in_the_pit_lane_earns_no_money_in_a_two_player_race():
    """[decision] RULES.md §7 with two players: the neutral cars take places 1 and 2; a pit car gets nothing."""
    assert _score(2, {1: (0, 1)}) == [0, 2]
    assert _score(2, {}) == [0, 0]


def test_two_player_neutral_cars_count_in_the_ranking():
    """Neutral cars on 3 and 6 take places: a player on 5 is second (4), a player on 2 is fourth (0)."""
    assert _score(2, {0: (0, 5), 1: (0, 2)}) == [4, 0]
    assert _score(2, {0: (0, 7), 1: (0, 4)}) == [7, 2]
    assert _score(2, {0: (0, 2), 1: (0, 1)}) == [2, 0]  # behind both neutral cars: third and fourth
    assert _score(2, {0: (1, 1), 1: (0, 12)}) == [7 + 1, 4]  # a completed lap beats every neutral car


def test_race_scoring_resets_cars_and_laps_but_keeps_gp_engines():
    st = _state(3, phase="scoring", seats={0: {"laps": 2, "space": 5, "gp_engine": 4},
                                           1: {"space": 3}})
    ref = reference(st)
    assert ref.round == 2 and ref.phase == "action"
    assert [(s.laps, s.space) for s in ref.seats] == [(0, 0)] * 3
    assert ref.seats[0].gp_engine == 4
