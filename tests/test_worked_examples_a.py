"""The rulebook's worked examples for RULES.md §1–§5, restated as tests.

Marion is seat 0 (the start player) in each example.
"""

from __future__ import annotations

import pytest

from helpers import chain, load, make_position, options, play, tile
from kwsearch.engine import reference
from kwsearch.actions import ENGINE_CODE
from kwsearch.rules import Game

MARION = 0


def test_marion_start_tile():
    """Rulebook 4.0: as start player Marion gets the last start tile; tile A gives her two more
    canteen workers and an engine of value 1 in a workshop."""
    st = Game(4).new_initial_state(seed=0)
    play(st, "start B")  # seat 3 chooses first
    play(st, "start C")  # seat 2
    play(st, "start D", "do gp_start2")  # seat 1, then tile D's research
    play(st, options(st)[0])
    # Marion gets the remaining tile without a choice and does its actions at once.
    assert reference(st).seats[MARION].start_tile == 0  # A
    # (hire and engine commute for her, so no order is asked.) Her engine 1 needs the start tile's
    # research points, which count during its own actions (RULES.md §2.5); it may go to a workshop
    # or the GP car (§4.1): she puts it in a workshop, as in the book.
    assert st.pending() == "engine_dest" and st.current_player() == MARION
    assert reference(st).tasks[-1] == ["engine_dest", 1]
    play(st, "engine -> workshop")
    m = reference(st).seats[MARION]
    assert m.canteen == 4 + 2
    assert m.supply == 8 - 2
    assert m.workshops == [ENGINE_CODE + 1]
    assert m.gp_engine == 1  # the GP car keeps its printed engine 1
    assert st.research_points(MARION) == (1, 1)  # the development side of the start tile
    assert st.pending() == "turn" and st.current_player() == MARION  # and she starts the game


DOUBLE_TURN_CHAIN = ["seat 0", "tile 3", "seat 1", "seat 2", "seat 3", "tile 0", "tile 1", "tile 2",
                     "tile 4", "tile 5", "tile 6", "tile 7", "tile 8", "tile 9"]


@pytest.mark.parametrize("car_in_turn", [1, 2])
def test_marion_double_turn(car_in_turn):
    """Rulebook 5.2: Marion, last in the chain, takes the Grand-Prix tile in front of her; she is still
    last, so she takes another turn, with the Grand-Prix + Buyer tile. At the end of each of the two
    turns she may move a car to the market.

    (A mat's three workshops hold the parts of one car and a half, so the test moves the car at the
    end of the first turn in one run and at the end of the second in the other.)"""
    pos = make_position(chain=DOUBLE_TURN_CHAIN,
                        seats={MARION: {"gp_engine": 2, "workshops": ["body 2", "engine 2", "engine 1"],
                                        "canteen": 2}})
    st = load(pos)
    assert st.current_player() == MARION
    play(st, tile("gp"))  # the Grand-Prix tile in front of her
    assert reference(st).seats[MARION].space == 2
    assert st.pending() == "market" and st.current_player() == MARION  # end of the first turn
    if car_in_turn == 1:
        play(st, "market body@2", "market engine@2", "market workers 1", "market price 10")
    else:
        play(st, "market pass")
    # the tile went to the front; Marion is still last: another turn
    assert chain(st)[0] == "seat 0" and chain(st)[-1] == "tile 3"
    assert st.pending() == "turn" and st.current_player() == MARION
    play(st, tile("gp", "buyer"), "buyer body")
    ref = reference(st)
    assert ref.seats[MARION].space == 4
    assert ref.active == [0]
    if car_in_turn == 1:
        assert st.current_player() == 1  # no parts for a second car: no market step
        assert [car[0] for car in reference(st).market] == [MARION]
    else:
        assert st.pending() == "market" and st.current_player() == MARION  # end of the second turn
        play(st, "market body@2", "market engine@2", "market workers 2", "market price 10")
        assert reference(st).market == [[MARION, 2, 2, 2, 10, 0, 0]]
        assert st.current_player() == 1


def test_marion_double_turn_two_cars():
    """Rulebook 5.2 (variant of the double-turn example): a car to the market at the end of each of
    two turns in a row; the second tile (car body + engine) brings the parts of the second car."""
    chain_ = ["seat 0", "tile 3", "tile 8", "seat 1", "seat 2", "seat 3", "tile 0", "tile 1", "tile 2",
              "tile 4", "tile 5", "tile 6", "tile 7", "tile 9"]
    pos = make_position(chain=chain_, seats={MARION: {"workshops": ["body 2", "engine 2"], "canteen": 2}})
    st = load(pos)
    play(st, tile("gp"), "market body@2", "market workers 1", "market price 9")
    assert st.pending() == "turn" and st.current_player() == MARION
    play(st, tile("body", "engine"))  # empty workshops: body 1, then engine 1, no order question
    play(st, "engine -> workshop", "market body@1", "market price 10")
    assert reference(st).market == [[MARION, 2, 2, 1, 9, 0, 0], [MARION, 1, 1, 1, 10, 0, 0]]
    assert chain(st)[:2] == ["seat 0", "seat 1"]  # the tile was in front of her again: a third turn
    assert st.current_player() == MARION


def test_marion_research_points():
    """Rulebook 5.2 (developments): with two active developments Marion has 2 body and 3 engine
    research points, so she takes a body of value 2 and an engine of value 3."""
    pos = make_position(seats={MARION: {"developments": ["dev:body1engine1", "dev:engine1"]}})
    st = load(pos)
    assert st.research_points(MARION) == (2, 3)
    play(st, tile("body", "engine"))  # two free workshops: body, then engine, without a question
    assert reference(st).seats[MARION].workshops == [2]
    assert options(st) == ["engine -> workshop", "engine -> gp"]
    play(st, "engine -> workshop")
    assert reference(st).seats[MARION].workshops == [2, ENGINE_CODE + 3]


def test_marion_buyer_track():
    """Rulebook 5.2 (buyer): four active buyers are placed, so Marion's buyer action moves the marker
    token down one space, from S to 3."""
    pos = make_position(buyers={"active": [{"preference": p} for p in ("body", "engine", "prestige", "price")]})
    st = load(pos)
    assert reference(st).track == 4  # S
    play(st, tile("hire", "buyer"))
    ref = reference(st)
    assert ref.track == 3
    assert len(ref.active) == 4
    assert ref.seats[MARION].money == 0  # no buyer taken, no white markers


def test_marion_places_a_body_buyer():
    """Rulebook 5.2 (buyer): Marion places a body buyer on space 2 of the active buyers and gets the
    white marker of value 2 lying next to the body stack."""
    pos = make_position(buyers={"active": [{"preference": "engine"}],
                                "white": {"body": 2, "engine": 0, "prestige": 1, "price": 1}})
    st = load(pos)
    play(st, tile("hire", "buyer"), "buyer body")
    ref = reference(st)
    assert ref.active == [1, 0]  # body on the second space
    assert ref.seats[MARION].money == 2
    assert ref.white[0] == 0
