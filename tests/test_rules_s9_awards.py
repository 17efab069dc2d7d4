"""RULES.md §9: the ten award tiles (the two Grand-Prix awards are in test_rules_s7_race.py).

An award goes to the first player to qualify, once per game, and adds its value
to his money. Research points are set with active developments (the start tile
gives 1 body and 1 engine point), so "dev:body2" makes a body research of 3.
Tiles of the default components: 0 hire, 1 car body, 2 engine, 4 research,
7 hire + buyer.
"""

from __future__ import annotations

from helpers import minimal_position as _position
from kwsearch.engine import reference, state_from_json
from kwsearch.components import AWARDS, default_components
from kwsearch.rules import State

VALUE = dict(zip(AWARDS, default_components().awards))


def _state(players: int = 3, phase: str = "action", seats: dict | None = None, **extra) -> State:
    return state_from_json(_position(players, phase, seats, **extra), seed=5)


def _holder(st: State, name: str) -> int:
    return reference(st).awards[AWARDS.index(name)]


def _holders(st: State) -> dict[str, int]:
    return {a: reference(st).awards[i] for i, a in enumerate(AWARDS) if reference(st).awards[i] >= 0}


# ---------------------------------------------------------------------------
# Car body 3 / 6
# ---------------------------------------------------------------------------


def test_a_body_3_in_a_workshop_takes_the_body3_award():
    st = _state(seats={0: {"developments": ["dev:body2"]}})
    st.play("tile 1")
    ref = reference(st)
    assert ref.seats[0].workshops == [3]
    assert _holders(st) == {"body3": 0}
    assert ref.seats[0].money == VALUE["body3"] == 3


def test_a_body_below_3_takes_no_award():
    st = _state(seats={0: {"developments": ["dev:body1"]}})
    st.play("tile 1")
    ref = reference(st)
    assert ref.seats[0].workshops == [2]
    assert _holders(st) == {}
    assert ref.seats[0].money == 0


def test_a_body_6_takes_both_body_awards_at_once():
    st = _state(seats={0: {"developments": ["dev:body2", "dev:body2", "dev:body1"]}})
    st.play("tile 1")
    ref = reference(st)
    assert ref.seats[0].workshops == [6]
    assert _holders(st) == {"body3": 0, "body6": 0}
    assert ref.seats[0].money == VALUE["body3"] + VALUE["body6"] == 10


def test_a_body_7_takes_both_body_awards_too():
    st = _state(seats={0: {"developments": ["dev:body2", "dev:body2", "dev:body2"]}})
    st.play("tile 1")
    ref = reference(st)
    assert ref.seats[0].workshops == [7]
    assert ref.seats[0].money == 10


def test_a_body_6_takes_only_the_body6_award_when_body3_is_gone():
    st = _state(seats={0: {"developments": ["dev:body2", "dev:body2", "dev:body1"]}}, awards={"body3": 2})
    st.play("tile 1")
    assert _holders(st) == {"body3": 2, "body6": 0}
    assert reference(st).seats[0].money == 7


def test_only_the_first_player_to_qualify_takes_an_award():
    """Seat 0 puts a body 3 in a workshop first; seat 1 does the same next turn and gets nothing."""
    st = _state(seats={0: {"developments": ["dev:body2"]}, 1: {"developments": ["dev:body2"]}})
    st.play("tile 1")
    assert st.current_player() == 1
    st.play("tile 1")
    assert reference(st).seats[1].workshops == [3]
    assert _holders(st) == {"body3": 0}
    assert st.money() == [3, 0, 0]


def test_an_award_is_taken_once_even_by_its_holder():
    st = _state(seats={0: {"developments": ["dev:body2"], "workshops": ["body 3"]}}, awards={"body3": 0})
    st.play("tile 1")
    ref = reference(st)
    assert ref.seats[0].workshops == [3, 3]
    assert ref.seats[0].money == 0


def test_a_body_placed_after_giving_up_a_workshop_tile_counts():
    st = _state(seats={0: {"developments": ["dev:body2"], "workshops": ["body 1", "engine 1", "engine 2"]}})
    st.play("tile 1")
    assert st.pending() == "place"
    st.play("give up engine 1")
    ref = reference(st)
    assert sorted(ref.seats[0].workshops) == [1, 3, 10]
    assert _holders(st) == {"body3": 0}
    assert ref.seats[0].money == 3


# ---------------------------------------------------------------------------
# Engine 4 / 7: into a workshop only
# ---------------------------------------------------------------------------


def test_an_engine_4_in_a_workshop_takes_the_engine4_award():
    st = _state(seats={0: {"developments": ["dev:engine2", "dev:engine1"]}})
    st.play("tile 2")
    st.play("engine -> workshop")
    ref = reference(st)
    assert ref.seats[0].workshops == [8 + 4]
    assert _holders(st) == {"engine4": 0}
    assert ref.seats[0].money == VALUE["engine4"] == 3


def test_an_engine_4_installed_in_the_gp_car_takes_no_award():
    st = _state(seats={0: {"developments": ["dev:engine2", "dev:engine1"]}})
    st.play("tile 2")
    st.play("engine -> gp")
    ref = reference(st)
    assert ref.seats[0].gp_engine == 4
    assert _holders(st) == {}
    assert ref.seats[0].money == 0


def test_an_engine_7_in_a_workshop_takes_both_engine_awards():
    st = _state(seats={0: {"developments": ["dev:engine2", "dev:engine2", "dev:engine2"]}})
    st.play("tile 2")
    st.play("engine -> workshop")
    assert _holders(st) == {"engine4": 0, "engine7": 0}
    assert reference(st).seats[0].money == VALUE["engine4"] + VALUE["engine7"] == 10


def test_an_engine_7_installed_in_the_gp_car_takes_no_award():
    st = _state(seats={0: {"developments": ["dev:engine2", "dev:engine2", "dev:engine2"]}})
    st.play("tile 2")
    st.play("engine -> gp")
    assert reference(st).seats[0].gp_engine == 7
    assert _holders(st) == {}


def test_an_engine_below_4_takes_no_award():
    st = _state(seats={0: {"developments": ["dev:engine2"]}})
    st.play("tile 2")
    st.play("engine -> workshop")
    assert reference(st).seats[0].workshops == [8 + 3]
    assert _holders(st) == {}


# ---------------------------------------------------------------------------
# Engineer markers never count for the body/engine awards
# ---------------------------------------------------------------------------


def _market_with_marker(tiles: list[str], engineer: str, marker: str) -> State:
    """Seat 0 hires (tile 0), then moves its only car to the market with an engineer marker."""
    st = _state(seats={0: {"workshops": tiles, "engineers": [engineer]}})
    st.play("tile 0")
    st.play("market " + ("body@" + tiles[0].split()[1]))
    for text in ("market workers 1", "market price 10", marker):
        if st.pending().startswith("market"):
            st.play(text)
    assert len(reference(st).market) == 1
    return st


def test_a_maybach_marker_does_not_make_a_body_award():
    """Body 2 + Maybach 2 is a body of 4 for the buyers, but no body tile of 3 was placed."""
    st = _market_with_marker(["body 2", "engine 1"], "Maybach", "market +maybach2")
    ref = reference(st)
    assert ref.market[0][1] + ref.market[0][5] == 4
    assert _holder(st, "body3") == -1
    assert ref.seats[0].money == 0


def test_a_horch_marker_does_not_make_an_engine_award():
    """Engine 2 + Horch 2 = 4, but no engine tile of 4 was placed."""
    st = _market_with_marker(["body 1", "engine 2"], "Horch", "market +horch2")
    ref = reference(st)
    assert ref.market[0][2] + ref.market[0][6] == 4
    assert _holder(st, "engine4") == -1
    assert ref.seats[0].money == 0


# ---------------------------------------------------------------------------
# Worker
# ---------------------------------------------------------------------------


def test_the_worker_award_when_the_supply_becomes_empty():
    st = _state(seats={0: {"canteen": 11}})
    assert reference(st).seats[0].supply == 1
    st.play("tile 0")
    ref = reference(st)
    assert ref.seats[0].supply == 0 and ref.seats[0].canteen == 12
    assert _holders(st) == {"worker": 0}
    assert ref.seats[0].money == VALUE["worker"] == 7


def test_no_worker_award_while_workers_are_left():
    st = _state(seats={0: {"canteen": 10}})
    st.play("tile 0")
    assert reference(st).seats[0].supply == 1
    assert _holders(st) == {}


def test_the_worker_award_when_the_last_worker_activates_a_development():
    st = _state(seats={0: {"canteen": 11, "inactive": ["dev:body1"]}})
    st.play("tile 0")
    assert reference(st).seats[0].supply == 0
    assert _holder(st, "worker") == 0


def test_the_worker_award_goes_only_to_the_first():
    st = _state(seats={0: {"canteen": 11}, 1: {"canteen": 11}})
    st.play("tile 0")
    st.play("tile 0")
    assert [s.supply for s in reference(st).seats[:2]] == [0, 0]
    assert _holder(st, "worker") == 0
    assert st.money() == [7, 0, 0]


# ---------------------------------------------------------------------------
# Engineers
# ---------------------------------------------------------------------------


def test_the_third_engineer_takes_the_engineers_award():
    st = _state(seats={0: {"engineers": ["Opel", "Horch"]}},
                research={"display": ["Porsche", "dev:body1"]})
    st.play("tile 4")
    st.play("take research:Porsche")
    ref = reference(st)
    assert ref.seats[0].has("porsche")
    assert _holders(st) == {"engineers": 0}
    assert ref.seats[0].money == VALUE["engineers"] == 7


def test_a_second_engineer_takes_no_award():
    st = _state(seats={0: {"engineers": ["Opel"]}}, research={"display": ["Porsche", "dev:body1"]})
    st.play("tile 4")
    st.play("take research:Porsche")
    assert _holders(st) == {}


def test_the_engineers_award_is_not_taken_twice():
    st = _state(seats={0: {"engineers": ["Opel", "Horch"]}, 2: {"engineers": ["Benz", "Diesel", "Otto"]}},
                research={"display": ["Porsche", "dev:body1"]}, awards={"engineers": 2})
    st.play("tile 4")
    st.play("take research:Porsche")
    assert reference(st).seats[0].money == 0


# ---------------------------------------------------------------------------
# Market
# ---------------------------------------------------------------------------


def _second_car(market: list[dict], **extra) -> State:
    st = _state(seats={0: {"workshops": ["body 2", "engine 2"]}}, market=market, **extra)
    st.play("tile 0")
    st.play("market body@2")
    st.play("market workers 1")
    st.play("market price 10")
    return st


def test_a_second_own_car_on_the_market_takes_the_market_award():
    st = _second_car([{"owner": 0, "body": 1, "engine": 1, "workers": 1, "price": 5}])
    ref = reference(st)
    assert sum(1 for car in ref.market if car[0] == 0) == 2
    assert _holders(st) == {"market": 0}
    assert ref.seats[0].money == VALUE["market"] == 3


def test_two_cars_of_different_players_take_no_market_award():
    st = _second_car([{"owner": 1, "body": 1, "engine": 1, "workers": 1, "price": 5}])
    assert len(reference(st).market) == 2
    assert _holders(st) == {}


def test_the_market_award_is_taken_once():
    st = _second_car([{"owner": 0, "body": 1, "engine": 1, "workers": 1, "price": 5}], awards={"market": 1})
    assert reference(st).seats[0].money == 0


# ---------------------------------------------------------------------------
# Buyer: the second active buyer of one preference
# ---------------------------------------------------------------------------


def _take_buyer(active: list[str], pref: str, **extra) -> State:
    st = _state(buyers={"active": [{"preference": p} for p in active]}, **extra)
    st.play("tile 7")  # hire + buyer
    st.play("buyer " + pref)
    return st


def test_the_second_active_buyer_of_a_preference_takes_the_buyer_award():
    st = _take_buyer(["engine", "body"], "engine")
    ref = reference(st)
    assert ref.active == [1, 0, 1]
    assert _holders(st) == {"buyer": 0}
    assert ref.seats[0].money == VALUE["buyer"] == 3


def test_a_first_buyer_of_a_preference_takes_no_award():
    st = _take_buyer(["engine", "body"], "prestige")
    assert _holders(st) == {}
    assert reference(st).seats[0].money == 0


def test_the_buyer_award_is_taken_once():
    st = _take_buyer(["engine", "body", "body"], "engine", awards={"buyer": 2})
    assert reference(st).seats[0].money == 0


def _benz(active: list[str], choice: str) -> State:
    pos = _position(phase="scoring", seats={1: {"engineers": ["Benz"]}},
                    buyers={"active": [{"preference": p} for p in active], "track": 1})
    st = state_from_json(pos, seed=5)
    assert st.pending() == "benz" and st.current_player() == 1
    st.play(choice)
    return st


def test_benz_fifth_buyer_counts_for_the_buyer_award():
    st = _benz(["engine", "body", "prestige", "price"], "benz buyer body")
    assert _holder(st, "buyer") == 1
    assert st.money() == [0, 3, 0]


def test_benz_fifth_buyer_of_a_new_preference_takes_no_award():
    st = _benz(["engine", "body", "price"], "benz buyer prestige")
    assert _holder(st, "buyer") == -1
    assert st.money() == [0, 0, 0]
