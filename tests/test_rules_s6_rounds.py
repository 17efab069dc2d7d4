"""RULES.md §6: the round structure — preparation, end of the action phase, scoring,
clean-up, the end of the game and the winner.

Tiles of the default components used here: 0 hire worker, 3 grand prix,
7 hire worker + buyer.
"""

from __future__ import annotations

import pytest

from helpers import minimal_position as _position
from kwsearch.engine import reference, state_from_json
from kwsearch.components import default_components
from kwsearch.errors import IllegalMoveError
from kwsearch.rules import TERMINAL, Game, State

C = default_components()
WHITE = list(C.white_markers)  # body, engine, prestige, price


def _state(players: int = 3, phase: str = "action", seats: dict | None = None, round_: int = 1,
           **extra) -> State:
    return state_from_json(_position(players, phase, seats, round_, **extra), seed=11)


def _cars(k: int, players: int, round_: int = 1, skip: tuple[int, ...] = ()) -> list[dict]:
    """k market cars of the seats other than seat 0, priced with this round's markers."""
    prices = [p for p in C.price_markers[round_ - 1] if p not in skip]
    return [{"owner": 1 + i % (players - 1), "body": 1, "engine": 1, "workers": 1, "price": prices[i]}
            for i in range(k)]


def _buyers(prefs: list[str], track: int) -> dict:
    return {"active": [{"preference": p} for p in prefs], "track": track}


# ---------------------------------------------------------------------------
# 1. Preparation
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("players, track", [(2, 2), (3, 4), (4, 4)])
def test_preparation_of_round_1(players, track):
    """Round 1: its eight coloured markers, white 2/1/1/1 by the stacks, buyer track on S (2 with 2 players)."""
    st = Game(players).new_initial_state(seed=4)
    ref = reference(st)
    assert ref.round == 1
    assert ref.prices == [1, 2, 3, 5, 6, 8, 9, 10] == list(C.price_markers[0])
    assert ref.white == [2, 1, 1, 1] == WHITE
    assert ref.track == track
    obs = st.observation()
    assert obs["buyers"]["white"] == {"body": 2, "engine": 1, "prestige": 1, "price": 1}
    assert obs["buyers"]["track"] == track


@pytest.mark.parametrize("players, track", [(2, 2), (3, 4), (4, 4)])
def test_preparation_of_round_2_and_3(players, track):
    st = _state(players, phase="scoring", buyers=_buyers([], 0))
    ref = reference(st)
    assert ref.round == 2 and ref.phase == "action"
    assert ref.prices == [2, 3, 5, 6, 8, 9, 11, 12]
    assert ref.track == track
    st = _state(players, phase="scoring", round_=2, buyers=_buyers([], 1))
    ref = reference(st)
    assert ref.round == 3
    assert ref.prices == [3, 4, 6, 8, 10, 12, 14, 15]
    assert ref.track == track


def test_untaken_white_markers_stay_and_accumulate():
    """White markers left next to a stack stay; the new round adds 2 (body) or 1 (others) to them."""
    st = _state(phase="scoring", buyers={"active": [], "track": 0,
                                         "white": {"body": 2, "engine": 0, "prestige": 1, "price": 3}})
    ref = reference(st)
    assert ref.round == 2
    assert ref.white == [2 + 2, 0 + 1, 1 + 1, 3 + 1]


def test_accumulated_white_markers_go_to_the_next_buyer_of_that_stack():
    st = _state(phase="scoring", buyers={"active": [], "track": 0, "white": {"body": 2}})
    assert reference(st).white[0] == 4
    assert st.current_player() == 0
    st.play("tile 7")  # hire + buyer
    st.play("buyer body")
    ref = reference(st)
    assert ref.seats[0].money == 4
    assert ref.white == [0, 1, 1, 1]


def test_white_markers_accumulate_over_a_whole_game_when_never_taken():
    """Three rounds without a price buyer: 1 + 1 + 1 markers lie by the price stack in round 3."""
    st = _state(phase="scoring", buyers={"active": [], "track": 0, "white": {"price": 1}})
    st2 = state_from_json(_position(phase="scoring", round_=2, buyers={
        "active": [], "track": 0, "white": {"price": reference(st).white[3]}}), seed=1)
    st2_ref = reference(st2)
    assert st2_ref.round == 3
    assert st2_ref.white[3] == 3


# ---------------------------------------------------------------------------
# 2. End of the action phase
# ---------------------------------------------------------------------------


def _move_a_car(players: int, on_market: int) -> State:
    """Seat 0 hires (tile 0) and moves a car to a market already holding ``on_market`` cars."""
    st = _state(players, seats={0: {"workshops": ["body 2", "engine 2"]}}, market=_cars(on_market, players))
    st.play("tile 0")
    st.play("market body@2")
    st.play("market workers 1")
    st.play(f"market price {reference(st).prices[-1]}")
    return st


@pytest.mark.parametrize("players, size", [(2, 4), (3, 6), (4, 6)])
def test_the_action_phase_ends_when_the_market_is_full(players, size):
    st = _move_a_car(players, size - 1)
    ref = reference(st)
    assert ref.round == 2 and ref.phase == "action"
    assert ref.market == []


@pytest.mark.parametrize("players, size", [(2, 4), (3, 6), (4, 6)])
def test_the_action_phase_goes_on_below_a_full_market(players, size):
    st = _move_a_car(players, size - 2)
    ref = reference(st)
    assert ref.round == 1 and ref.phase == "action"
    assert len(ref.market) == size - 1
    assert st.pending() == "turn" and st.current_player() == 1


def test_the_action_phase_ends_after_the_turn_not_at_the_sixth_car():
    """The player who moves the sixth car still has his end-of-turn Daimler option."""
    st = _state(seats={0: {"workshops": ["body 2", "engine 2"], "engineers": ["Daimler"]}},
                market=_cars(5, 3), buyers=_buyers(["body"], 4))
    st.play("tile 0")
    st.play("market body@2")
    st.play("market workers 1")
    st.play(f"market price {reference(st).prices[-1]}")
    ref = reference(st)
    assert len(ref.market) == 6
    assert ref.round == 1 and st.pending() == "daimler" and st.current_player() == 0
    st.play("daimler +4 buyer 1")
    assert reference(st).round == 2


@pytest.mark.parametrize("players, spaces", [(2, 3), (3, 4), (4, 4)])
def test_the_action_phase_ends_when_the_buyer_track_reaches_0(players, spaces):
    st = _state(players, buyers=_buyers(["engine"] * 2 + ["price"] * (spaces - 2), 1))
    st.play("tile 7")  # hire + buyer: all active spaces are full, the marker moves down to 0
    ref = reference(st)
    assert ref.round == 2 and ref.phase == "action"
    assert ref.active == [] and ref.track == C.buyer_track_start[players]


@pytest.mark.parametrize("players, spaces", [(2, 3), (3, 4), (4, 4)])
def test_the_action_phase_goes_on_while_the_buyer_track_is_above_0(players, spaces):
    st = _state(players, buyers=_buyers(["engine"] * 2 + ["price"] * (spaces - 2), 2))
    st.play("tile 7")
    ref = reference(st)
    assert ref.round == 1 and ref.track == 1
    assert st.pending() == "turn" and st.current_player() == 1


def test_the_turn_that_moves_the_track_to_0_may_still_move_a_car_to_the_market():
    """The phase ends after the turn: the car moved in it is sold at this scoring."""
    st = _state(seats={0: {"workshops": ["body 2", "engine 2"]}},
                buyers=_buyers(["engine", "engine", "price", "price"], 1))
    st.play("tile 7")
    ref = reference(st)
    assert ref.track == 0 and ref.round == 1 and st.pending() == "market"
    st.play("market body@2")
    st.play("market workers 1")
    st.play("market price 10")
    ref = reference(st)
    assert ref.round == 2
    assert ref.seats[0].money == 10  # bought by the first (engine) buyer


def test_a_two_player_game_starts_each_round_with_the_track_on_2():
    st = Game(2).new_initial_state(seed=9)
    assert reference(st).track == 2
    st = _state(2, phase="scoring", buyers=_buyers(["body"], 0))
    assert reference(st).track == 2


# ---------------------------------------------------------------------------
# 3. Scoring: the race and the buyers
# ---------------------------------------------------------------------------


def test_scoring_pays_the_race_and_the_buyers():
    """Seat 0 wins the race (7 + 1 lap) and sells a car (8); seat 1 is second (4)."""
    st = _state(phase="scoring", seats={0: {"laps": 1, "space": 3}, 1: {"space": 7}},
                market=[{"owner": 0, "body": 3, "engine": 1, "workers": 1, "price": 8}],
                buyers=_buyers(["body"], 0))
    assert st.money() == [7 + 1 + 8, 4, 0]


def test_benz_decides_at_the_start_of_scoring_before_the_race():
    st = _state(phase="scoring", seats={0: {"laps": 1, "space": 3}, 2: {"engineers": ["Benz"]}},
                buyers=_buyers(["body"], 0))
    assert st.pending() == "benz" and st.current_player() == 2
    assert st.money() == [0, 0, 0] and reference(st).seats[0].space == 3  # race not yet run
    st.play("benz pass")
    assert st.money() == [8, 0, 0]


# ---------------------------------------------------------------------------
# 3. Clean-up
# ---------------------------------------------------------------------------


def _cleaned() -> tuple[State, State]:
    """A round-1 scoring with two sold cars and one unsold one; returns (before, after)."""
    pos = _position(
        phase="scoring",
        seats={0: {"laps": 1, "space": 4, "gp_engine": 3, "workshops": ["body 2", "engine 5"], "canteen": 2,
                   "engineers": ["Maybach"], "markers": {"maybach": [1]}, "developments": ["dev:engine1"]},
               1: {"space": 9, "canteen": 1, "engineers": ["Daimler"], "markers": {"daimler": [2]}},
               2: {"canteen": 3}},
        market=[{"owner": 0, "body": 4, "engine": 3, "workers": 2, "price": 8, "body_bonus": 2},
                {"owner": 1, "body": 2, "engine": 6, "workers": 3, "price": 2},
                {"owner": 1, "body": 1, "engine": 1, "workers": 4, "price": 9}],
        buyers={"active": [{"preference": "body"}, {"preference": "engine", "daimler": 4},
                           {"preference": "engine"}], "track": 0},
    )
    before = state_from_json(dict(pos, phase="action", pending=[["turn", 0]], turn=None,
                                  buyers=dict(pos["buyers"], track=1)), seed=2)
    after = state_from_json(pos, seed=2)
    return before, after


def test_clean_up_returns_market_parts_to_the_supply():
    before, after = _cleaned()
    after_ref = reference(after)
    before_ref = reference(before)
    assert after_ref.market == []
    assert after_ref.supply_body[4 - 1] == before_ref.supply_body[4 - 1] + 1
    assert after_ref.supply_body[2 - 1] == before_ref.supply_body[2 - 1] + 1
    assert after_ref.supply_body[1 - 1] == before_ref.supply_body[1 - 1] + 1
    assert after_ref.supply_engine[3 - 1] == before_ref.supply_engine[3 - 1] + 1
    assert after_ref.supply_engine[6 - 1] == before_ref.supply_engine[6 - 1] + 1
    assert after_ref.supply_engine[1 - 1] == before_ref.supply_engine[1 - 1] + 1
    # Every tile is now in the supply except the workshops' and the GP engine 3.
    after_ref = reference(after)
    assert sum(after_ref.supply_body) == sum(C.body_tiles) - 1
    assert sum(after_ref.supply_engine) == sum(C.engine_tiles) - 2


def test_clean_up_returns_market_workers_to_their_owners_supply_not_the_canteen():
    before, after = _cleaned()
    after_ref = reference(after)
    before_ref = reference(before)
    assert after_ref.seats[0].supply == before_ref.seats[0].supply + 2
    assert after_ref.seats[1].supply == before_ref.seats[1].supply + 3 + 4  # sold and unsold cars alike
    assert after_ref.seats[2].supply == before_ref.seats[2].supply
    assert [s.canteen for s in after_ref.seats] == [2, 1, 3]
    for s in reference(after).seats:
        assert s.supply + s.canteen + len(s.dev_active) + 2 == C.workers_per_player


def test_clean_up_returns_buyers_to_their_stacks():
    _, after = _cleaned()
    after_ref = reference(after)
    assert after_ref.active == [] and after_ref.active_daimler == []
    assert after_ref.stacks == [C.buyers_per_preference] * 4


def test_clean_up_sends_cars_to_the_pit_lane_with_laps_0():
    _, after = _cleaned()
    assert [(s.laps, s.space) for s in reference(after).seats] == [(0, 0)] * 3


def test_clean_up_keeps_workshops_gp_engines_developments_and_canteens():
    before, after = _cleaned()
    for b, a in zip(reference(before).seats, reference(after).seats):
        assert (a.workshops, a.gp_engine, a.dev_active, a.canteen) == (b.workshops, b.gp_engine, b.dev_active,
                                                                        b.canteen)


def test_used_engineer_markers_leave_the_game():
    """The Maybach +2 on the car and the Daimler +4 on a buyer do not come back."""
    _, after = _cleaned()
    after_ref = reference(after)
    assert after_ref.seats[0].maybach == [1]
    assert after_ref.seats[1].daimler == [2]
    assert after.observation()["buyers"]["active"] == []


def test_untaken_coloured_markers_leave_play():
    """Round 1's markers 1, 3, 5, 6 and 10 were never used: none of them is in round 2's set."""
    _, after = _cleaned()
    after_ref = reference(after)
    assert after_ref.prices == list(C.price_markers[1]) == [2, 3, 5, 6, 8, 9, 11, 12]
    assert 1 not in after_ref.prices and 10 not in after_ref.prices


def test_scoring_money_of_the_clean_up_example():
    """Body buyer: seat 0's 4 + Maybach 2 for 8; engine buyer (+4 Daimler): seat 1's engine 6 for 2;
    the second engine buyer: seat 1's last car for 9. Race: seat 0 (1 lap) first, seat 1 second."""
    _, after = _cleaned()
    assert after.money() == [8 + 7 + 1, 2 + 4 + 9 + 4, 0]


# ---------------------------------------------------------------------------
# Game end and winner
# ---------------------------------------------------------------------------


def test_the_game_goes_on_after_the_second_scoring():
    st = _state(phase="scoring", round_=2, buyers=_buyers([], 0))
    ref = reference(st)
    assert not st.is_terminal()
    assert ref.round == 3 and ref.phase == "action"


def test_the_game_ends_after_the_third_scoring():
    st = _state(phase="scoring", round_=3, buyers=_buyers(["body"], 0),
                market=[{"owner": 2, "body": 3, "engine": 1, "workers": 1, "price": 15}],
                seats={0: {"money": 20}, 2: {"money": 4}})
    assert st.is_terminal()
    assert reference(st).phase == "over" and st.pending() == "over"
    assert st.current_player() == TERMINAL
    assert st.legal_actions() == []
    assert st.money() == [20, 0, 19]
    with pytest.raises(IllegalMoveError):
        st.play("tile 0")


def test_money_is_the_price_markers_plus_the_awards():
    """Round 3: seat 1 sells a car for 6 and puts no tile anywhere; seat 0's earlier awards stay counted."""
    st = _state(phase="scoring", round_=3, buyers=_buyers(["engine"], 0),
                market=[{"owner": 1, "body": 1, "engine": 3, "workers": 1, "price": 6}],
                seats={0: {"money": 3 + 7}}, awards={"body3": 0, "worker": 0})
    assert st.is_terminal()
    assert st.money() == [10, 6, 0]


def _final(money: list[int]) -> State:
    seats = {i: {"money": m} for i, m in enumerate(money)}
    st = _state(len(money), phase="scoring", round_=3, buyers=_buyers([], 0), seats=seats)
    assert st.is_terminal()
    return st


def test_the_richest_player_wins_alone():
    assert _final([10, 14, 3]).returns() == [0.0, 1.0, 0.0]
    assert _final([5, 2]).returns() == [1.0, 0.0]


def test_tied_players_share_the_win():
    """[decision] RULES.md §6: players tied for the most money share the win equally."""
    assert _final([10, 10, 4]).returns() == [0.5, 0.5, 0.0]
    assert _final([9, 12, 12, 12]).returns() == pytest.approx([0.0, 1 / 3, 1 / 3, 1 / 3])
    assert _final([7, 7]).returns() == [0.5, 0.5]
    assert _final([0, 0, 0, 0]).returns() == [0.25] * 4


def test_returns_always_sum_to_one():
    for money in ([1, 2, 3], [3, 3, 1, 3], [0, 5], [8, 8, 8]):
        assert sum(_final(money).returns()) == pytest.approx(1.0)


def test_a_hand_written_scoring_position_needs_no_turn():
    """A position at the start of scoring may leave out "turn" and "pending" (docs: both are
    derived for a hand-written file); loading it scores the round."""
    pos = _position(phase="scoring", seats={0: {"space": 2}})
    del pos["turn"]
    st = state_from_json(pos, seed=1)
    assert reference(st).round == 2
    assert st.money() == [7, 0, 0]
