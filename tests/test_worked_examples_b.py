"""The rulebook's worked examples on buyers, the race and scoring, restated as positions.

Each test restates one example of the rulebook in our own words and checks that
the engine reaches the outcome the book describes. Seat 0 plays the book's
Marion. Values the book does not state are chosen so that the book's outcome
follows from them (noted where they matter).
"""

from __future__ import annotations

from helpers import minimal_position
from kwsearch.engine import reference, state_from_json
from kwsearch.rules import Game


def _position(players: int = 4, **kw) -> dict:
    return minimal_position(players, **kw)


def test_buyer_example_first_body_buyer_on_space_2_takes_the_white_2():
    """Round 1. One buyer (engine) is active already; Marion takes the first body buyer. It goes on
    active space 2 and she receives the white marker "2" lying by the body stack (round 1's
    preparation put 2 there, 1 by each other stack)."""
    white = {"body": 2, "engine": 1, "prestige": 1, "price": 1}
    st = state_from_json(_position(buyers={"active": [{"preference": "engine"}], "track": 4, "white": white}),
                         seed=1)
    st.play("tile 7")  # hire worker + buyer
    st.play("buyer body")
    ref = reference(st)
    assert ref.active == [1, 0]  # engine on space 1, body on space 2
    assert ref.stacks[0] == 1
    assert ref.seats[0].money == 2
    assert ref.white == [0, 1, 1, 1]


def test_buyer_example_from_a_new_game():
    """The same after a real set-up: the first player to take a body buyer gets round 1's white 2."""
    st = Game(4).new_initial_state(seed=3)
    assert reference(st).white == [2, 1, 1, 1]
    while st.pending() != "turn":  # the four start tiles and their actions
        st.apply(st.legal_actions()[0])
    ref = reference(st)
    assert ref.active == [] and ref.white[0] == 2
    seat = st.current_player()
    money = reference(st).seats[seat].money
    st.play("tile 7")  # hire worker + buyer
    st.play("buyer body")
    ref = reference(st)
    assert ref.active == [0]
    assert ref.seats[seat].money == money + 2
    assert ref.white[0] == 0


def test_race_example_an_occupied_space_is_skipped():
    """Marion's GP car has the printed engine 1 upgraded to 2 and starts from the pit lane.
    Another car already stands on space 2, so she goes to space 1, skips 2, and stops on 3."""
    st = state_from_json(_position(seats={0: {"gp_engine": 2}, 1: {"space": 2}}), seed=1)
    st.play("tile 3")  # grand prix
    ref = reference(st)
    assert (ref.seats[0].laps, ref.seats[0].space) == (0, 3)
    assert ref.seats[1].space == 2


def test_scoring_example_three_cars_three_buyers():
    """Round 2 (its markers include 6, 8, 11). The market holds:
    - seat 1 (blue): "Tatra 11", 3 workers, price 11 — we give it body 2, engine 2;
    - seat 2 (green): "Mercedes 630", body 3, price 6 — we give it engine 2 and 1 worker;
    - Marion: "BMW Dixi", body 3, engine 4, 2 workers, price 8.
    Active buyers in order: prestige, body, engine. The prestige buyer takes the Tatra (3 workers);
    the body buyer finds the Mercedes and the Dixi tied at body 3 and takes the cheaper Mercedes;
    the engine buyer takes the Dixi. Every car is in the pit lane: the race pays nothing."""
    market = [
        {"owner": 1, "body": 2, "engine": 2, "workers": 3, "price": 11},
        {"owner": 2, "body": 3, "engine": 2, "workers": 1, "price": 6},
        {"owner": 0, "body": 3, "engine": 4, "workers": 2, "price": 8},
    ]
    buyers = {"active": [{"preference": p} for p in ("prestige", "body", "engine")], "track": 0}
    st = state_from_json(_position(phase="scoring", round_=2, market=market, buyers=buyers), seed=1)
    assert reference(st).round == 3
    assert st.money() == [8, 11, 6, 0]


def test_two_player_race_example_first_and_third_earn_7_and_2():
    """Two players: neutral cars stand on spaces 3 and 6. Seat 0 on space 10 is first, the neutral
    car on 6 second, seat 1 on space 4 third, the neutral car on 3 fourth: 7 and 2."""
    st = state_from_json(_position(players=2, phase="scoring", seats={0: {"space": 10}, 1: {"space": 4}}),
                         seed=1)
    assert reference(st).round == 2
    assert st.money() == [7, 2]
