"""RULES.md §4: a player turn — the six actions, the order of a tile's actions, the market,
and the end-of-turn engineer options."""

from __future__ import annotations

import copy

import pytest

from helpers import card_index, load, make_position, options, play, tile, with_deck
from kwsearch.engine import reference
from kwsearch.actions import ENGINE_CODE
from kwsearch.components import DEFAULTS, default_components

C = default_components()
ALL_BUYERS = [{"preference": p} for p in ("body", "engine", "prestige", "price")]


def car(owner, body=1, engine=1, workers=1, price=1, **extra):
    return dict(owner=owner, body=body, engine=engine, workers=workers, price=price, **extra)


def all_cards_but(*keep):
    """Every research card name (with repeats) except one of each name in ``keep``."""
    names = [ct.name for ct in C.card_types for _ in range(ct.count)]
    for k in keep:
        names.remove(k)
    return names


# ---------------------------------------------------------------------------
# Hire worker
# ---------------------------------------------------------------------------


def test_hire_moves_one_worker_from_supply_to_canteen():
    st = load(make_position())
    ref = reference(st)
    assert (ref.seats[0].supply, ref.seats[0].canteen) == (8, 4)
    play(st, tile("hire"))
    ref = reference(st)
    assert (ref.seats[0].supply, ref.seats[0].canteen) == (7, 5)
    assert st.current_player() == 1


def test_hire_with_an_empty_supply_does_nothing():
    st = load(make_position(seats={0: {"canteen": 12}}))
    assert reference(st).seats[0].supply == 0
    play(st, tile("hire"))
    ref = reference(st)
    assert (ref.seats[0].supply, ref.seats[0].canteen) == (0, 12)
    assert st.current_player() == 1  # the action is forfeited, the turn goes on as usual


# ---------------------------------------------------------------------------
# Research
# ---------------------------------------------------------------------------


def test_research_take_one_discard_the_other_turn_up_two():
    pos = make_position(research={"display": ["dev:body2", "Opel"]})
    st = load(with_deck(pos, ["hire3", "Otto"]))
    play(st, tile("research"))
    assert set(options(st)) == {"take research:Opel", "take research:dev:body2"}
    play(st, "take research:dev:body2")
    ref = reference(st)
    assert ref.seats[0].dev_active == [card_index("dev:body2")]
    assert ref.discard == [card_index("Opel")]
    assert sorted(ref.display) == sorted([card_index("hire3"), card_index("Otto")])
    assert len(ref.deck) == 50 - 2 - 2


def test_research_reshuffles_the_discard_pile_when_the_deck_is_empty():
    pos = make_position(research={"display": ["dev:body1", "dev:engine1"],
                                  "discard": all_cards_but("dev:body1", "dev:engine1")})
    pos = with_deck(pos, [])
    assert pos["hidden"]["deck"] == []
    st = load(pos)
    assert reference(st).deck == []
    play(st, tile("research"), "take research:dev:body1")
    # dev:engine1 went onto the discard pile, then the pile (49 cards) became the deck: two turned up.
    ref = reference(st)
    assert ref.discard == []
    assert len(ref.display) == 2
    assert len(ref.deck) == 47
    assert sorted(ref.deck + ref.display) == sorted(card_index(n) for n in all_cards_but("dev:body1"))


SMALL_DECK = {"research_cards": [
    {"name": "dev:body1", "kind": "development", "body": 1, "engine": 0, "tile": None, "count": 2},
    {"name": "dev:engine1", "kind": "development", "body": 0, "engine": 1, "tile": None, "count": 1},
], "research_deck_size": 3}


def test_display_holds_what_there_is_when_fewer_than_two_cards_can_be_turned_up():
    """[decision] If fewer than two cards can be turned up, the display holds what there is."""
    pos = make_position(components=SMALL_DECK, research={"display": ["dev:body1", "dev:engine1"]},
                        seats={3: {"developments": ["dev:body1"]}})
    st = load(with_deck(pos, []))
    play(st, tile("research"), "take research:dev:body1")
    # dev:engine1 was discarded, then reshuffled into the deck and turned up again: one card face up.
    ref = reference(st)
    assert [st.game.components.card_types[t].name for t in ref.display] == ["dev:engine1"]
    assert ref.deck == [] and ref.discard == []
    # Seat 1 takes the last card (a single option: taken without a question): the display is empty.
    play(st, tile("research", "buyer"))
    while st.current_player() == 1:
        play(st, options(st)[0])
    ref = reference(st)
    assert ref.display == []
    assert ref.seats[1].dev_active == [st.game.components.card_type("dev:engine1").index]
    # A research action with nothing face up does nothing.
    play(st, tile("research"))
    ref = reference(st)
    assert st.current_player() == 3
    assert ref.seats[2].dev_active == [] and ref.seats[2].canteen == 4


# ---------------------------------------------------------------------------
# Car body and engine
# ---------------------------------------------------------------------------


def test_body_by_body_research_points():
    st = load(make_position(seats={0: {"developments": ["dev:body2"]}}))
    assert st.research_points(0) == (3, 1)
    play(st, tile("body"))
    ref = reference(st)
    assert ref.seats[0].workshops == [3]
    assert ref.supply_body[2] == C.body_tiles[2] - 1


def test_lower_value_than_allowed_is_not_offered():
    """[decision] Taking a lower value than allowed is not offered: the body is taken without a question."""
    st = load(make_position(seats={0: {"developments": ["dev:body2", "dev:body1"]}}))
    play(st, tile("body"))
    assert reference(st).seats[0].workshops == [4]
    assert st.pending() == "turn" and st.current_player() == 1


def test_engine_by_engine_research_points():
    st = load(make_position(seats={0: {"developments": ["dev:engine2"]}}))
    play(st, tile("engine"))
    assert options(st) == ["engine -> workshop", "engine -> gp"]
    play(st, "engine -> workshop")
    ref = reference(st)
    assert ref.seats[0].workshops == [ENGINE_CODE + 3]
    assert ref.seats[0].gp_engine == 1


def test_research_points_above_seven_take_a_seven():
    st = load(make_position(seats={0: {"developments": ["dev:body2"] * 4, "canteen": 0}}))
    assert st.research_points(0)[0] == 9
    play(st, tile("body"))
    assert reference(st).seats[0].workshops == [7]


def test_highest_lower_value_when_the_supply_has_none():
    """[decision] No tile of the value in the supply: take the highest lower value available."""
    pos = make_position(seats={0: {"developments": ["dev:body2"]},
                               1: {"workshops": ["body 3", "body 3", "body 3"]},
                               2: {"workshops": ["body 3", "body 3"]}},
                        market=[car(3, body=3, engine=1, price=5)])
    st = load(pos)
    assert reference(st).supply_body[2] == 0
    play(st, tile("body"))
    assert reference(st).seats[0].workshops == [2]


def test_highest_lower_value_skips_several_values():
    """[decision] The highest lower value available, even several values lower."""
    pos = make_position(seats={0: {"developments": ["dev:engine2"]},
                               1: {"workshops": ["engine 3", "engine 3", "engine 3"]},
                               2: {"workshops": ["engine 3", "engine 3", "engine 3"]},
                               3: {"workshops": ["engine 2", "engine 2", "engine 2"]}},
                        market=[car(1, engine=2, price=2), car(2, engine=2, price=3),
                                car(3, engine=2, price=5), car(3, engine=2, price=6)])
    st = load(pos)
    assert reference(st).supply_engine[1:3] == [0, 0]
    play(st, tile("engine"), "engine -> workshop")
    assert reference(st).seats[0].workshops == [ENGINE_CODE + 1]


def test_nothing_when_no_lower_value_is_left():
    """[decision] No tile of the value and none lower: the action does nothing."""
    pos = make_position(seats={1: {"workshops": ["body 1", "body 1", "body 1"]},
                               2: {"workshops": ["body 1", "body 1", "body 1"]},
                               3: {"workshops": ["body 1", "body 1"]}})
    st = load(pos)
    assert reference(st).supply_body[0] == 0
    play(st, tile("body"))
    assert reference(st).seats[0].workshops == []
    assert st.current_player() == 1


def test_full_workshops_give_up_a_tile_first():
    pos = make_position(seats={0: {"workshops": ["body 1", "engine 2", "engine 2"],
                                   "developments": ["dev:body1"]}})
    st = load(pos)
    supply = list(reference(st).supply_engine)
    play(st, tile("body"))
    assert st.pending() == "place"
    assert options(st) == ["give up body 1", "give up engine 2"]
    play(st, "give up engine 2")
    ref = reference(st)
    assert ref.seats[0].workshops == [1, 2, ENGINE_CODE + 2]
    assert ref.supply_engine[1] == supply[1] + 1


def test_full_workshops_may_give_up_a_body_for_a_body():
    pos = make_position(seats={0: {"workshops": ["body 1", "body 1", "engine 1"]}})
    st = load(pos)
    body1 = reference(st).supply_body[0]
    play(st, tile("body"), "give up body 1")
    ref = reference(st)
    assert ref.seats[0].workshops == [1, 1, ENGINE_CODE + 1]
    assert ref.supply_body[0] == body1  # one returned, one taken


def test_engine_into_the_gp_car_returns_the_old_engine():
    pos = make_position(seats={0: {"gp_engine": 2, "developments": ["dev:engine2"]}})
    st = load(pos)
    supply = list(reference(st).supply_engine)
    play(st, tile("engine"), "engine -> gp")
    ref = reference(st)
    assert ref.seats[0].gp_engine == 3
    assert ref.seats[0].workshops == []
    assert ref.supply_engine[1] == supply[1] + 1  # the old engine 2
    assert ref.supply_engine[2] == supply[2] - 1


def test_printed_engine_one_is_not_a_supply_tile():
    pos = make_position(seats={0: {"developments": ["dev:engine1"]}})
    st = load(pos)
    supply = list(reference(st).supply_engine)
    play(st, tile("engine"), "engine -> gp")
    ref = reference(st)
    assert ref.seats[0].gp_engine == 2
    assert ref.supply_engine == [supply[0], supply[1] - 1] + supply[2:]


@pytest.mark.parametrize("gp_engine", [3, 4])
def test_engine_to_gp_offered_whatever_the_values(gp_engine):
    """[book] RULES.md §4.1: both destinations are always offered, also for an engine equal to or
    lower than the GP car's; the GP car's old engine goes back to the supply."""
    st = load(make_position(seats={0: {"gp_engine": gp_engine, "developments": ["dev:engine2"]}}))
    supply = list(reference(st).supply_engine)
    play(st, tile("engine"))
    assert st.pending() == "engine_dest"
    assert options(st) == ["engine -> workshop", "engine -> gp"]
    play(st, "engine -> gp")
    s = reference(st).seats[0]
    assert s.gp_engine == 3 and s.workshops == [] and s.space == 0
    expected = list(supply)
    expected[3 - 1] -= 1           # the new engine 3 came from the supply
    expected[gp_engine - 1] += 1   # the old one went back
    assert reference(st).supply_engine == expected
    assert st.current_player() == 1


def test_equal_engine_into_the_gp_car_spares_a_workshop_tile():
    """[book] RULES.md §4.1: with all workshops full, an engine equal to the GP car's goes into the car
    instead of making the player give up a tile (before the correction he had to give one up)."""
    seat0 = {"workshops": ["body 2", "body 3", "engine 2"], "gp_engine": 2, "developments": ["dev:engine1"]}
    st = load(make_position(seats={0: seat0}))
    supply = list(reference(st).supply_engine)
    play(st, tile("engine"))
    assert options(st) == ["engine -> workshop", "engine -> gp"]
    play(st, "engine -> gp")
    s = reference(st).seats[0]
    assert s.workshops == [2, 3, ENGINE_CODE + 2] and s.gp_engine == 2
    assert reference(st).supply_engine == supply  # one engine 2 taken, the old engine 2 returned
    assert st.pending() == "market"  # and the seat can still build a car


def test_a_value_1_engine_covers_the_printed_engine_and_returns_when_replaced():
    """RULES.md §4.1: a value-1 engine tile may go into the GP car; the printed 1 is no tile, but the
    covering tile goes back to the supply when a later engine replaces it (the supply is conserved)."""
    st = load(make_position(seats={0: {"workshops": ["body 1", "body 1", "body 1"]}}))
    supply = list(reference(st).supply_engine)
    play(st, tile("engine"), "engine -> gp")
    s = reference(st).seats[0]
    assert s.gp_engine == 1 and s.gp_tile and s.workshops == [1, 1, 1]
    assert reference(st).supply_engine[0] == supply[0] - 1
    assert st.to_json()["seats"][0]["gp_engine_tile"] is True  # the position records the tile
    # A later engine replaces it: the value-1 tile goes back to the supply.
    st = load(make_position(seats={0: {"gp_engine_tile": True, "developments": ["dev:engine1"]}}))
    assert reference(st).supply_engine[0] == supply[0] - 1  # the covering tile is out of the supply
    play(st, tile("engine"), "engine -> gp")
    ref = reference(st)
    assert ref.seats[0].gp_engine == 2
    assert ref.supply_engine[:2] == [supply[0], supply[1] - 1]  # the value-1 tile is back


def test_engine_to_gp_with_full_workshops_needs_no_give_up():
    pos = make_position(seats={0: {"workshops": ["body 1", "body 1", "body 1"],
                                   "developments": ["dev:engine1"]}})
    st = load(pos)
    play(st, tile("engine"))
    assert options(st) == ["engine -> workshop", "engine -> gp"]
    play(st, "engine -> gp")
    ref = reference(st)
    assert ref.seats[0].workshops == [1, 1, 1] and ref.seats[0].gp_engine == 2


def test_gp_engine_never_goes_to_the_market():
    pos = make_position(seats={0: {"gp_engine": 3, "workshops": ["body 2"]}})
    st = load(pos)
    play(st, tile("hire"))
    assert st.current_player() == 1  # no market decision: no engine in a workshop
    assert reference(st).market == []


# ---------------------------------------------------------------------------
# Grand Prix
# ---------------------------------------------------------------------------


def test_grand_prix_moves_by_the_gp_engine():
    st = load(make_position(seats={0: {"gp_engine": 4}}))
    play(st, tile("gp"))
    ref = reference(st)
    assert (ref.seats[0].laps, ref.seats[0].space) == (0, 4)


# ---------------------------------------------------------------------------
# Buyer
# ---------------------------------------------------------------------------


def test_buyer_goes_to_the_lowest_empty_space_and_takes_the_white_markers():
    pos = make_position(buyers={"active": [{"preference": "engine"}], "white": {"body": 4, "engine": 0,
                                                                                "prestige": 1, "price": 1}})
    st = load(pos)
    play(st, tile("hire", "buyer"))
    assert options(st) == ["buyer body", "buyer engine", "buyer prestige", "buyer price"]
    play(st, "buyer body")
    ref = reference(st)
    assert ref.active == [1, 0]
    assert ref.stacks == [1, 1, 2, 2]
    assert ref.seats[0].money == 4  # two rounds of white markers had accumulated
    assert ref.white == [0, 0, 1, 1]


def test_buyer_of_an_empty_stack_is_not_offered():
    pos = make_position(buyers={"active": [{"preference": "body"}, {"preference": "body"},
                                           {"preference": "price"}]})
    st = load(pos)
    play(st, tile("hire", "buyer"))
    assert options(st) == ["buyer engine", "buyer prestige", "buyer price"]


def test_buyer_track_moves_down_when_all_spaces_are_full():
    st = load(make_position(buyers={"active": ALL_BUYERS}))
    assert reference(st).track == 4
    play(st, tile("hire", "buyer"))
    # mandatory and without a question: no buyer decision, the marker moved down one space
    ref = reference(st)
    assert ref.track == 3
    assert ref.active == [0, 1, 2, 3]
    assert st.current_player() == 1


def test_two_players_have_three_buyer_spaces():
    pos = make_position(players=2, buyers={"active": ALL_BUYERS[:3]})
    st = load(pos)
    assert reference(st).track == 2
    play(st, tile("hire", "buyer"))
    ref = reference(st)
    assert ref.track == 1 and len(ref.active) == 3


def test_buyer_track_at_zero_ends_the_action_phase_after_the_turn():
    pos = make_position(buyers={"active": ALL_BUYERS, "track": 1},
                        seats={0: {"workshops": ["body 1", "engine 1"]}})
    st = load(pos)
    play(st, tile("hire", "buyer"))
    assert reference(st).track == 0
    # the turn goes on: part II, the market, is still offered
    assert reference(st).round == 1 and st.pending() == "market" and st.current_player() == 0
    play(st, "market body@1", "market workers 1")
    play(st, "market price 10")
    ref = reference(st)
    assert ref.round == 2 and ref.phase == "action"
    assert ref.track == 4 and ref.active == [] and ref.market == []


def test_phase_goes_on_while_the_track_is_above_zero():
    st = load(make_position(buyers={"active": ALL_BUYERS, "track": 2}))
    play(st, tile("hire", "buyer"))
    ref = reference(st)
    assert ref.round == 1 and ref.track == 1 and st.current_player() == 1


# ---------------------------------------------------------------------------
# Moving a car to the market (§4.2)
# ---------------------------------------------------------------------------


READY = {"workshops": ["body 1", "body 2", "engine 3"], "canteen": 3}


def test_market_choices():
    st = load(make_position(seats={0: READY}, market=[car(1, price=5)]))
    play(st, tile("hire"))  # canteen 4 now
    assert st.pending() == "market"
    assert options(st) == ["market pass", "market body@1", "market body@2"]
    play(st, "market body@2")  # a single engine: chosen without a question
    assert options(st) == [f"market workers {n}" for n in range(1, 5)]
    play(st, "market workers 3")
    assert options(st) == [f"market price {p}" for p in (1, 2, 3, 6, 8, 9, 10)]
    play(st, "market price 9")
    ref = reference(st)
    assert ref.market[-1] == [0, 2, 3, 3, 9, 0, 0]
    assert ref.seats[0].workshops == [1]
    assert ref.seats[0].canteen == 1
    assert ref.prices == [1, 2, 3, 6, 8, 10]
    assert st.current_player() == 1


def test_market_pass():
    st = load(make_position(seats={0: READY}))
    play(st, tile("hire"), "market pass")
    assert reference(st).market == [] and st.current_player() == 1


def test_market_engine_choice():
    st = load(make_position(seats={0: {"workshops": ["body 1", "engine 2", "engine 3"], "canteen": 1}}))
    play(st, tile("gp"), "market body@1")
    assert options(st) == ["market engine@2", "market engine@3"]
    play(st, "market engine@2", "market price 1")  # one canteen worker: one worker, no question
    assert reference(st).market == [[0, 1, 2, 1, 1, 0, 0]]


@pytest.mark.parametrize("missing", ["body", "engine", "worker", "price", "space"])
def test_market_requirements(missing):
    seat = {"workshops": ["body 1", "engine 1"], "canteen": 1}
    extra = {}
    if missing == "body":
        seat["workshops"] = ["engine 1", "engine 1"]
    elif missing == "engine":
        seat["workshops"] = ["body 1", "body 1"]
    elif missing == "worker":
        seat["canteen"] = 0
    elif missing == "price":
        extra["prices"] = []
    elif missing == "space":
        extra["market"] = [car(1 + i % 3, price=p) for i, p in enumerate((1, 2, 3, 5, 6, 8))]
    st = load(make_position(seats={0: seat}, **extra))
    play(st, tile("gp"))
    assert st.pending() == "turn"  # no market decision
    assert sorted(reference(st).seats[0].workshops) == sorted(
        {"body 1": 1, "engine 1": ENGINE_CODE + 1}[w] for w in seat["workshops"])
    if missing == "space":
        assert reference(st).round == 2  # the full market ended the phase after this turn
    else:
        assert st.current_player() == 1 and reference(st).market == []


def test_market_engineer_marker_at_most_one_per_car():
    seat = dict(READY, engineers=["Maybach", "Horch"])
    st = load(make_position(seats={0: seat}))
    play(st, tile("gp"), "market body@2", "market workers 1", "market price 10")
    assert options(st) == ["market no-marker", "market +maybach1", "market +maybach2",
                           "market +horch1", "market +horch2"]
    play(st, "market +horch2")
    ref = reference(st)
    assert ref.market == [[0, 2, 3, 1, 10, 0, 2]]
    assert ref.seats[0].horch == [1] and ref.seats[0].maybach == [1, 2]
    assert st.current_player() == 1  # no second marker for the same car


def test_market_without_engineer_markers_asks_no_marker_question():
    st = load(make_position(seats={0: READY}))
    play(st, tile("gp"), "market body@2", "market workers 1", "market price 10")
    assert reference(st).market == [[0, 2, 3, 1, 10, 0, 0]] and st.current_player() == 1


def test_full_market_ends_the_action_phase():
    market = [car(1 + i % 3, price=p) for i, p in enumerate((1, 2, 3, 5, 6))]
    st = load(make_position(seats={0: {"workshops": ["body 1", "engine 1"], "canteen": 1}}, market=market))
    play(st, tile("hire"), "market body@1", "market workers 2", "market price 10")
    ref = reference(st)
    assert ref.round == 2 and ref.phase == "action" and ref.market == []


def test_full_market_ends_the_action_phase_two_players():
    market = [car(1, price=p) for p in (1, 2, 3)]
    pos = make_position(players=2, seats={0: {"workshops": ["body 1", "engine 1"], "canteen": 1}},
                        market=market)
    st = load(pos)
    play(st, tile("hire"), "market body@1", "market workers 1", "market price 10")
    assert reference(st).round == 2


def test_market_not_full_the_phase_goes_on():
    market = [car(1 + i % 3, price=p) for i, p in enumerate((1, 2, 3, 5))]
    st = load(make_position(seats={0: {"workshops": ["body 1", "engine 1"], "canteen": 1}}, market=market))
    play(st, tile("hire"), "market body@1", "market workers 2", "market price 10")
    ref = reference(st)
    assert ref.round == 1 and len(ref.market) == 5 and st.current_player() == 1


# ---------------------------------------------------------------------------
# End-of-turn engineer options
# ---------------------------------------------------------------------------


def test_daimler_and_diesel_are_offered_after_the_market():
    """[decision] End-of-turn engineer options (Daimler marker, Diesel change) are offered after II."""
    seat = {"workshops": ["body 1", "body 2", "engine 1"], "canteen": 2, "engineers": ["Daimler", "Diesel"]}
    pos = make_position(seats={0: seat}, market=[car(0, body=1, engine=1, price=5)],
                        buyers={"active": [{"preference": "body"}]})
    st = load(pos)
    play(st, tile("gp"))
    assert st.pending() == "market"
    play(st, "market pass")
    assert st.pending() == "daimler"
    assert options(st) == ["daimler pass", "daimler +2 buyer 1", "daimler +4 buyer 1"]
    play(st, "daimler pass")
    assert st.pending() == "diesel"
    assert options(st) == ["diesel pass", "diesel car@5"]
    play(st, "diesel pass")
    assert st.current_player() == 1


def test_engineer_options_follow_the_actions_of_the_tile():
    """[decision] The Daimler option comes at the end of the turn, after every action of the tile:
    the buyer taken in this turn can already get the marker."""
    seat = {"engineers": ["Daimler"]}
    st = load(make_position(seats={0: seat}))
    play(st, tile("gp", "buyer"), "buyer price")
    assert st.pending() == "daimler"
    assert options(st) == ["daimler pass", "daimler +2 buyer 1", "daimler +4 buyer 1"]


# ---------------------------------------------------------------------------
# The order of a tile's actions
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("actions", [("gp", "buyer"), ("research", "buyer"), ("hire", "buyer")])
def test_buyer_commutes_no_order_decision(actions):
    """[decision, rules.py _commutes] The buyer action commutes with every other action:
    no order-of-actions decision is offered."""
    pos = make_position(seats={0: {"workshops": ["body 1", "body 1", "engine 1"]}})
    st = load(pos)
    play(st, tile(*actions))
    assert st.pending() in ("buyer", "research")
    assert not any(o.startswith("do ") for o in options(st))


def test_order_decision_where_order_matters():
    """[decision, rules.py _commutes] Body and engine do not commute when only one workshop is free
    (either tile may have to displace the other): the player chooses the order."""
    st = load(make_position(seats={0: {"workshops": ["body 2", "engine 2"]}}))
    play(st, tile("body", "engine"))
    assert st.pending() == "tile"
    assert options(st) == ["do body", "do engine"]


def test_order_decision_leaves_out_the_buyer():
    """[decision, rules.py _commutes] Only the actions whose order matters are offered (not the buyer)."""
    st = load(make_position(seats={0: {"workshops": ["body 2", "engine 2"]}}))
    play(st, tile("body", "engine", "buyer"))
    assert options(st) == ["do body", "do engine"]
    play(st, "do engine", "engine -> workshop")  # engine 1 into the free workshop
    assert reference(st).seats[0].workshops == [2, ENGINE_CODE + 1, ENGINE_CODE + 2]
    # body and buyer commute: the rest runs without an order question (body, then the buyer)
    assert st.pending() == "place" and reference(st).tasks[-1][1] == 1  # the body needs room
    play(st, "give up engine 1")
    assert reference(st).seats[0].workshops == [1, 2, ENGINE_CODE + 2]
    assert st.pending() == "buyer"


def test_the_chosen_order_is_kept():
    pos = make_position(seats={0: {"workshops": ["body 1", "body 1", "engine 2"],
                                   "developments": ["dev:engine1"], "gp_engine": 2}})
    st = load(pos)
    play(st, tile("body", "engine"), "do engine", "engine -> workshop")
    # the engine first: its 'give up' decision comes before the body is taken
    assert st.pending() == "place" and reference(st).tasks[-1][1] == ENGINE_CODE + 2
    play(st, "give up body 1")
    ref = reference(st)
    assert ref.seats[0].workshops == [1, ENGINE_CODE + 2, ENGINE_CODE + 2]
    assert st.pending() == "place" and ref.tasks[-1][1] == 1
    play(st, "give up engine 2")
    assert reference(st).seats[0].workshops == [1, 1, ENGINE_CODE + 2]


def test_start_tiles_order_decision_only_where_order_matters():
    """[decision, rules.py _commutes] Start tile C (GP engine 2 + hire) commutes: no order decision;
    start tile D (GP start space + research) does not (research may bring a GP move)."""
    from kwsearch.rules import Game
    st = Game(4).new_initial_state(seed=0)
    play(st, "start C")
    ref = reference(st)
    assert st.pending() == "setup" and st.current_player() == 2
    assert ref.seats[3].gp_engine == 2 and ref.seats[3].canteen == 5
    play(st, "start D")
    assert options(st) == ["do research", "do gp_start2"]


# ---------------------------------------------------------------------------
# The order of a tile's actions: each context-dependent pair, asked and not asked
# (RULES.md §4 lets the player order a tile's actions; docs/rules-notes.md row 1 and
# rules._commutes say when the order cannot change the outcome, so it is not asked)
# ---------------------------------------------------------------------------


def setup_position(**seat3):
    """Round 1 set-up, seat 3 to choose a start tile first, with ``seat3`` fields for seat 3."""
    pos = make_position(phase="setup", seats={3: seat3})
    for s in pos["seats"]:
        del s["start_tile"]
    return pos


def with_extra_tile(actions, **overrides):
    """A position whose components add an action tile with ``actions`` (index 10, in the chain)."""
    tiles = copy.deepcopy(DEFAULTS["action_tiles"]) + [{"actions": list(actions)}]
    chain = [f"seat {s}" for s in range(4)] + [f"tile {t}" for t in range(len(tiles))]
    return make_position(components={"action_tiles": tiles}, chain=chain, **overrides), f"tile {len(tiles) - 1}"


# --- hire and body (start tile B: hire, hire, body) ---


def test_hire_body_asked_with_an_inactive_development():
    """An inactive development: hiring first activates it (more body points), so the order matters."""
    st = load(setup_position(inactive=["dev:body1"]))
    play(st, "start B")
    assert st.pending() == "tile" and st.current_player() == 3
    assert options(st) == ["do hire", "do body"]
    hire_first = play(st.copy(), "do hire")  # dev:body1 active: 2 body points -> body 2
    body_first = play(st.copy(), "do body")  # 1 body point -> body 1, then the hires
    for s in (reference(hire_first).seats[3], reference(body_first).seats[3]):
        assert s.dev_active == [card_index("dev:body1")] and s.dev_inactive == []
        assert s.canteen == 4 + 1  # one of the two hires activated the development
    assert reference(hire_first).seats[3].workshops == [2]
    assert reference(body_first).seats[3].workshops == [1]
    for after in (hire_first, body_first):  # the rest ran without another order question
        assert after.pending() == "setup" and after.current_player() == 2


@pytest.mark.parametrize("seat3", [{}, {"developments": ["dev:body1"]}])
def test_hire_body_not_asked_without_an_inactive_development(seat3):
    """No inactive development (none, or only active ones): hire and body commute, no question."""
    st = load(setup_position(**seat3))
    play(st, "start B")
    assert st.pending() == "setup" and st.current_player() == 2
    s = reference(st).seats[3]
    assert s.canteen == 6 and s.workshops == [st.research_points(3)[0]]


# --- hire and engine (start tile A: hire, hire, engine) ---


def test_hire_engine_asked_with_an_inactive_development():
    """An inactive development: hiring first activates it (more engine points), so the order matters."""
    st = load(setup_position(inactive=["dev:engine1"]))
    play(st, "start A")
    assert st.pending() == "tile"
    assert options(st) == ["do hire", "do engine"]
    hire_first = play(st.copy(), "do hire")  # 2 engine points: engine 2, higher than the GP car's 1
    assert hire_first.pending() == "engine_dest"
    assert options(hire_first) == ["engine -> workshop", "engine -> gp"]
    play(hire_first, "engine -> workshop")
    assert reference(hire_first).seats[3].workshops == [ENGINE_CODE + 2]
    engine_first = play(st.copy(), "do engine")  # engine 1: a workshop or the GP car (RULES.md §4.1)
    assert engine_first.pending() == "engine_dest"
    play(engine_first, "engine -> workshop")
    assert reference(engine_first).seats[3].workshops == [ENGINE_CODE + 1]
    for after in (hire_first, engine_first):
        after_ref = reference(after)
        assert after_ref.seats[3].canteen == 5 and after_ref.seats[3].dev_inactive == []
        assert after.pending() == "setup" and after.current_player() == 2


def test_hire_engine_not_asked_without_an_inactive_development():
    """No inactive development: hire and engine commute; the hires, then the engine (value 1), without
    an order question; the engine's destination is the one decision (RULES.md §4.1)."""
    st = load(setup_position())
    play(st, "start A")
    assert st.pending() == "engine_dest" and reference(st).seats[3].canteen == 6  # hired first
    play(st, "engine -> workshop")
    assert st.pending() == "setup" and st.current_player() == 2
    s = reference(st).seats[3]
    assert (s.canteen, s.supply) == (6, 6)
    assert s.workshops == [ENGINE_CODE + 1] and s.gp_engine == 1


# --- hire and research (a component file's "hire + research" tile) ---


@pytest.mark.parametrize("seat0", [{"canteen": 0}, {"canteen": 2, "inactive": ["dev:engine1"]}],
                         ids=["empty-canteen", "inactive-development"])
def test_hire_research_asked_with_an_empty_canteen_or_an_inactive_development(seat0):
    pos, hire_research = with_extra_tile(["hire", "research"], seats={0: seat0},
                                         research={"display": ["dev:body1+tile", "dev:body2"]})
    st = load(with_deck(pos, []))
    play(st, hire_research)
    assert st.pending() == "tile" and st.current_player() == 0
    assert options(st) == ["do hire", "do research"]


def test_hire_research_order_matters_with_an_empty_canteen():
    """Canteen 0: hiring first lets the new development be activated, so its immediate tile counts its
    point; researching first leaves it inactive while its tile is taken, by the points without it
    (RULES.md §5.1), and the hire activates it afterwards."""
    pos, hire_research = with_extra_tile(["hire", "research"], seats={0: {"canteen": 0}},
                                         research={"display": ["dev:body1+tile", "dev:body2"]})
    st = load(with_deck(pos, []))
    play(st, hire_research)
    hire_first = play(st.copy(), "do hire", "take research:dev:body1+tile")
    research_first = play(st.copy(), "do research", "take research:dev:body1+tile")
    dev = card_index("dev:body1+tile")
    for after in (hire_first, research_first):
        s = reference(after).seats[0]
        assert s.dev_active == [dev] and s.dev_inactive == [] and s.canteen == 0
    assert reference(hire_first).seats[0].workshops == [2]  # the immediate body, with 2 body points
    assert reference(research_first).seats[0].workshops == [1]  # the immediate body by 1 point, not 2


def test_hire_research_not_asked_with_canteen_workers_and_no_inactive_development():
    """Canteen > 0 and no inactive development: hire and research commute; the hire is done first
    (canonical order), then the research decision."""
    pos, hire_research = with_extra_tile(["hire", "research"], seats={0: {"canteen": 2}},
                                         research={"display": ["dev:body1+tile", "dev:body2"]})
    st = load(with_deck(pos, []))
    play(st, hire_research)
    assert st.pending() == "research" and st.current_player() == 0
    assert reference(st).seats[0].canteen == 3  # hired already
    play(st, "take research:dev:body1+tile")
    s = reference(st).seats[0]
    assert s.dev_active == [card_index("dev:body1+tile")] and s.canteen == 2
    assert s.workshops == [2]
    assert not any(o.startswith("do ") for o in options(st))


# --- body and engine (the "body + engine" and "body + engine + buyer" tiles) ---


def test_body_engine_order_matters_with_one_free_workshop():
    """One free workshop: whichever comes first takes it; the second tile must displace one."""
    st = load(make_position(seats={0: {"workshops": ["body 2", "engine 2"]}}))
    play(st, tile("body", "engine"))
    assert options(st) == ["do body", "do engine"]
    body_first = play(st.copy(), "do body", "engine -> workshop")
    body_first_ref = reference(body_first)
    assert body_first_ref.seats[0].workshops == [1, 2, ENGINE_CODE + 2]
    assert body_first.pending() == "place" and body_first_ref.tasks[-1][1] == ENGINE_CODE + 1
    engine_first = play(st.copy(), "do engine", "engine -> workshop")
    engine_first_ref = reference(engine_first)
    assert engine_first_ref.seats[0].workshops == [2, ENGINE_CODE + 1, ENGINE_CODE + 2]
    assert engine_first.pending() == "place" and engine_first_ref.tasks[-1][1] == 1


@pytest.mark.parametrize("workshops", [[], ["body 2"], ["engine 2"]])
def test_body_engine_not_asked_with_two_free_workshops(workshops):
    """At most one tile in the workshops: body and engine both fit, so they commute; the body is
    taken first (canonical order), then the engine (2 engine points here, so its destination is
    asked, with the body already in its workshop)."""
    st = load(make_position(seats={0: {"workshops": workshops, "developments": ["dev:engine1"]}}))
    before = list(reference(st).seats[0].workshops)
    play(st, tile("body", "engine"))
    assert st.pending() == "engine_dest" and st.current_player() == 0
    assert reference(st).seats[0].workshops == sorted(before + [1])
    play(st, "engine -> workshop")
    assert reference(st).seats[0].workshops == sorted(before + [1, ENGINE_CODE + 2])
    assert st.pending() == "market"


@pytest.mark.parametrize("workshops, asked", [([], False), (["body 2"], False), (["body 2", "engine 2"], True)])
def test_body_engine_buyer_tile_asks_only_body_against_engine(workshops, asked):
    """The "body + engine + buyer" tile: the order of body and engine is asked only with one free
    workshop; the buyer is never offered in the order decision and comes last."""
    st = load(make_position(seats={0: {"workshops": workshops}}))
    play(st, tile("body", "engine", "buyer"))
    if asked:
        assert options(st) == ["do body", "do engine"]
        play(st, "do body")  # body 1 into the free workshop
        play(st, "engine -> workshop")  # engine next, no order question
        assert st.pending() == "place" and reference(st).tasks[-1][1] == ENGINE_CODE + 1
        play(st, "give up body 2")
    else:
        play(st, "engine -> workshop")
    ref = reference(st)
    assert st.pending() == "buyer"  # body and engine done, the buyer last
    assert 1 in ref.seats[0].workshops and ENGINE_CODE + 1 in ref.seats[0].workshops


# --- the buyer ---


@pytest.mark.parametrize("actions", [("gp", "buyer"), ("research", "buyer"), ("hire", "buyer")])
@pytest.mark.parametrize("seat0", [
    {},
    {"canteen": 0, "inactive": ["dev:body1"], "workshops": ["body 1", "body 1", "engine 1"]},
], ids=["plain", "every-condition-that-makes-order-matter"])
def test_buyer_never_asked_and_done_last(actions, seat0):
    """[decision, rules.py _commutes] The buyer commutes with every action whatever the seat's state:
    no order decision; the other action is done first, the buyer decision last."""
    pos = make_position(seats={0: seat0})
    st = load(pos)
    before = reference(st).seats[0]
    supply, space = before.supply, before.space
    play(st, tile(*actions))
    assert st.pending() != "tile"
    if "research" in actions:
        assert st.pending() == "research"
        play(st, "take research:dev:engine1")
    assert st.pending() == "buyer"
    assert not any(o.startswith("do ") for o in options(st))
    s = reference(st).seats[0]
    if "hire" in actions:
        assert s.supply == supply - 1  # the hire was done before the buyer
    if "gp" in actions:
        assert s.space == space + 1  # the GP car moved before the buyer


def test_a_position_names_a_bad_gp_engine_tile_flag():
    """The seat field that records a value-1 tile over the printed engine (RULES.md §4.1) must be a
    boolean; a bad value is a one-line error naming its path."""
    from kwsearch.errors import InvalidPositionError
    with pytest.raises(InvalidPositionError, match=r"\$\.seats\[0\]\.gp_engine_tile: expected true or false"):
        load(make_position(seats={0: {"gp_engine_tile": "yes"}}))
    st = load(make_position(seats={0: {"gp_engine": 3}}))
    assert reference(st).seats[0].gp_tile and "gp_engine_tile" not in st.to_json()["seats"][0]  # above 1: always a tile
