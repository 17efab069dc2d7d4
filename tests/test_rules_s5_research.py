"""RULES.md §5: research cards — developments, instant actions and the nine engineers."""

from __future__ import annotations

import pytest

from helpers import card_index, load, make_position, options, play, tile, with_deck
from kwsearch.engine import reference
from kwsearch.actions import ENGINE_CODE
from kwsearch.components import AWARDS, default_components

C = default_components()
ALL_BUYERS = [{"preference": p} for p in ("body", "engine", "prestige", "price")]
RESEARCH = tile("research")


def car(owner, body=1, engine=1, workers=1, price=1, **extra):
    return dict(owner=owner, body=body, engine=engine, workers=workers, price=price, **extra)


def research_position(card, seat0=None, **overrides):
    """Seat 0 to move, ``card`` face up next to a dev:body1; extra seat-0 fields in ``seat0``."""
    seats = overrides.pop("seats", {})
    seats = {**seats, 0: {**seats.get(0, {}), **(seat0 or {})}}
    other = "dev:engine1" if card == "dev:body1" else "dev:body1"
    return make_position(research={"display": [card, other]}, seats=seats, **overrides)


def take(card, seat0=None, top=(), **overrides):
    """Load a research position, take the research tile and ``card``; returns the state."""
    st = load(with_deck(research_position(card, seat0, **overrides), top))
    play(st, RESEARCH, f"take research:{card}")
    return st


def end_round(pos):
    """Seat 0 ends the action phase with a buyer action (all buyer spaces full, track on 1).

    ``pos`` must leave seat 0 unable to move a car to the market.
    """
    pos = dict(pos)
    pos["buyers"] = {**pos["buyers"], "track": 1}
    st = load(pos)
    before = st.money()
    play(st, tile("hire", "buyer"))
    return st, before


# ---------------------------------------------------------------------------
# §5.1 Developments
# ---------------------------------------------------------------------------


def test_development_activated_with_a_canteen_worker():
    st = take("dev:body2")
    s = reference(st).seats[0]
    assert s.dev_active == [card_index("dev:body2")]
    assert s.canteen == 3 and s.supply == 8
    assert st.research_points(0) == (3, 1)


def test_development_inactive_without_a_canteen_worker():
    st = take("dev:body1engine1", {"canteen": 0})
    s = reference(st).seats[0]
    assert s.dev_active == [] and s.dev_inactive == [card_index("dev:body1engine1")]
    assert s.supply == 12  # not taken from the supply
    assert st.research_points(0) == (1, 1)  # its points do not count


@pytest.mark.parametrize("choice, active, left, points", [
    ("activate dev:engine2", "dev:engine2", "dev:body2", (1, 3)),
    ("activate dev:body2", "dev:body2", "dev:engine2", (3, 1)),
])
def test_the_player_chooses_which_inactive_development_the_new_worker_activates(choice, active, left, points):
    """[decision] With inactive developments of several kinds, the player chooses which one the
    next worker from the supply activates (docs/rules-notes.md, row 3)."""
    pos = make_position(seats={0: {"canteen": 0, "inactive": ["dev:engine2", "dev:body2"]}})
    st = load(pos)
    assert st.research_points(0) == (1, 1)
    play(st, tile("hire"))
    assert st.pending() == "hire" and st.current_player() == 0
    assert options(st) == ["activate dev:body2", "activate dev:engine2"]
    play(st, choice)
    s = reference(st).seats[0]
    assert s.dev_active == [card_index(active)]
    assert s.dev_inactive == [card_index(left)]
    assert s.canteen == 0 and s.supply == 11
    assert st.research_points(0) == points


def test_one_kind_of_inactive_development_is_activated_without_asking():
    pos = make_position(seats={0: {"canteen": 0, "inactive": ["dev:body2", "dev:body2"]}})
    st = load(pos)
    play(st, tile("hire"))
    s = reference(st).seats[0]
    assert st.pending() != "hire"
    assert s.dev_active == [card_index("dev:body2")] and s.dev_inactive == [card_index("dev:body2")]


def test_workers_of_hire3_activate_inactive_developments_then_go_to_the_canteen():
    pos = make_position(seats={0: {"canteen": 0, "inactive": ["dev:engine2", "dev:body2"]}},
                        research={"display": ["hire3", "dev:body1"]})
    st = load(with_deck(pos))
    play(st, RESEARCH, "take research:hire3")
    assert st.pending() == "hire"  # the first of the three workers: which development?
    play(st, "activate dev:body2")
    s = reference(st).seats[0]  # the second worker activates the only kind left, the third goes to the canteen
    assert sorted(s.dev_active) == sorted([card_index("dev:engine2"), card_index("dev:body2")])
    assert s.dev_inactive == []
    assert s.canteen == 1 and s.supply == 9
    assert st.research_points(0) == (3, 3)


def test_otto_workers_activate_an_inactive_development():
    pos = make_position(seats={0: {"canteen": 0, "inactive": ["dev:body2"]}},
                        research={"display": ["Otto", "dev:body1"]})
    st = load(with_deck(pos, ["hire3", "gp5"]))
    play(st, RESEARCH, "take research:Otto")
    s = reference(st).seats[0]
    assert s.dev_active == [card_index("dev:body2")] and s.canteen == 1


def test_immediate_body_tile_after_activation():
    st = take("dev:body1+tile", {"canteen": 1})
    s = reference(st).seats[0]
    assert s.dev_active == [card_index("dev:body1+tile")] and s.canteen == 0
    assert s.workshops == [2]  # the new point already counts: 1 + 1


def test_immediate_engine_tile_after_activation():
    st = load(with_deck(research_position("dev:engine1+tile")))
    play(st, RESEARCH, "take research:dev:engine1+tile")
    assert st.pending() == "engine_dest"
    assert options(st) == ["engine -> workshop", "engine -> gp"]
    play(st, "engine -> gp")
    assert reference(st).seats[0].gp_engine == 2


def test_immediate_tile_taken_while_inactive_without_the_cards_points():
    """[decision] RULES.md §5.1 (corrected): a development taken without a canteen worker stays
    inactive, but its immediate tile is taken at once, by the research points without the card's
    own (an earlier reading lost the tile)."""
    seat0 = {"canteen": 0, "developments": ["dev:body1"]}  # 2 body points before the card
    st = load(with_deck(research_position("dev:body1+tile", seat0)))
    body = list(reference(st).supply_body)
    play(st, RESEARCH)
    assert options(st) == ["take research:dev:body1", "take research:dev:body1+tile"]
    play(st, "take research:dev:body1+tile")
    s = reference(st).seats[0]
    assert s.dev_inactive == [card_index("dev:body1+tile")] and s.canteen == 0
    assert st.research_points(0) == (2, 1)  # the inactive card's point does not count
    assert s.workshops == [2]  # the body by 2 points, not 3
    assert reference(st).supply_body[1] == body[1] - 1
    # seat 0 hires later: the development becomes active; no second tile
    pos = make_position(seats={0: {"canteen": 0, "inactive": ["dev:body1+tile"]}})
    st = load(pos)
    body = list(reference(st).supply_body)
    play(st, tile("hire"))
    ref = reference(st)
    assert ref.seats[0].dev_active == [card_index("dev:body1+tile")]
    assert ref.seats[0].workshops == []
    assert ref.supply_body == body
    assert st.research_points(0) == (2, 1)


def test_immediate_engine_tile_while_inactive_may_go_to_the_gp_car():
    """RULES.md §5.1 and §4.1: the inactive card's engine (by the points without it) is placed like any
    engine, the GP car included."""
    st = take("dev:engine1+tile", {"canteen": 0})
    assert reference(st).seats[0].dev_inactive == [card_index("dev:engine1+tile")]
    assert st.pending() == "engine_dest"
    assert options(st) == ["engine -> workshop", "engine -> gp"]
    play(st, "engine -> gp")
    ref = reference(st)
    assert ref.seats[0].gp_engine == 1 and ref.seats[0].gp_tile  # engine 1: 1 point, not 2


# ---------------------------------------------------------------------------
# §5.2 Instant actions
# ---------------------------------------------------------------------------


def test_hire3_hires_three_and_is_discarded():
    st = take("hire3")
    s = reference(st).seats[0]
    assert (s.canteen, s.supply) == (7, 5)
    assert card_index("hire3") in reference(st).discard


def test_hire3_hires_up_to_three():
    st = take("hire3", {"canteen": 10})
    ref = reference(st)
    assert (ref.seats[0].canteen, ref.seats[0].supply) == (12, 0)


def test_gp5_moves_five_spaces_and_is_discarded():
    st = take("gp5")
    ref = reference(st)
    assert (ref.seats[0].laps, ref.seats[0].space) == (0, 5)
    assert card_index("gp5") in ref.discard


def test_gp5_follows_the_racing_rules():
    # spaces 2 and 4 are taken by other cars: skipped and not counted
    st = take("gp5", seats={1: {"space": 2}, 2: {"space": 4}})
    assert reference(st).seats[0].space == 7


def test_body_and_engine_instant():
    st = load(with_deck(research_position("body+engine", {"developments": ["dev:body1", "dev:engine2"]})))
    play(st, RESEARCH, "take research:body+engine")
    assert reference(st).seats[0].workshops == [2]  # the body is already in
    assert options(st) == ["engine -> workshop", "engine -> gp"]  # the engine may go to the GP car
    play(st, "engine -> gp")
    ref = reference(st)
    assert ref.seats[0].gp_engine == 3  # 1 + 2 engine points
    assert card_index("body+engine") in ref.discard


def test_body_and_engine_instant_the_player_orders_body_and_engine():
    """[decision] RULES.md §5.2 (corrected): the player chooses the order of the card's body and
    engine, as for a tile's actions; with full workshops it matters (the first tile may be given up
    for the second)."""
    seat0 = {"workshops": ["body 1", "engine 1", "engine 1"]}
    st = load(with_deck(research_position("body+engine", seat0)))
    play(st, RESEARCH, "take research:body+engine")
    assert st.pending() == "card_order" and st.current_player() == 0
    assert options(st) == ["body first", "engine first"]
    body_first = play(st.copy(), "body first")
    body_first_ref = reference(body_first)
    assert body_first.pending() == "place" and body_first_ref.tasks[-1][1] == 1  # the body needs room first
    assert not any(t[0] == "engine_dest" for t in body_first_ref.tasks)
    play(body_first, "give up engine 1")
    assert reference(body_first).seats[0].workshops == [1, 1, ENGINE_CODE + 1]
    play(body_first, "engine -> workshop")
    assert body_first.pending() == "place" and reference(body_first).tasks[-1][1] == ENGINE_CODE + 1  # then the engine
    play(body_first, "give up body 1")
    assert reference(body_first).seats[0].workshops == [1, ENGINE_CODE + 1, ENGINE_CODE + 1]
    engine_first = play(st.copy(), "engine first")
    assert engine_first.pending() == "engine_dest"  # the engine first, the body still to come
    assert reference(engine_first).tasks[-2] == ["body", 0]
    play(engine_first, "engine -> gp", "give up engine 1")
    s = reference(engine_first).seats[0]
    assert s.gp_engine == 1 and s.gp_tile and s.workshops == [1, 1, ENGINE_CODE + 1]


@pytest.mark.parametrize("workshops", [[], ["engine 2"]])
def test_body_and_engine_instant_order_not_asked_with_two_free_workshops(workshops):
    """[decision, reading 1] With two free workshops neither tile can displace the other: no order
    question, the body first."""
    st = load(with_deck(research_position("body+engine", {"workshops": workshops})))
    play(st, RESEARCH, "take research:body+engine")
    assert st.pending() == "engine_dest"
    assert 1 in reference(st).seats[0].workshops  # the body is in already


# ---------------------------------------------------------------------------
# §5.3 Engineers
# ---------------------------------------------------------------------------


def test_engineer_cards_are_kept_with_their_markers():
    for name, field, value in [("Maybach", "maybach", [1, 2]), ("Horch", "horch", [1, 2]),
                               ("Daimler", "daimler", [2, 4]), ("Diesel", "diesel", 2), ("Benz", "benz", 1)]:
        st = take(name)
        s = reference(st).seats[0]
        assert s.has(name.lower())
        assert getattr(s, field) == value
        assert card_index(name) not in reference(st).discard
        assert s.canteen == 4  # an engineer needs no worker


def test_three_engineers_award():
    st = take("Opel", {"engineers": ["Horch", "Benz"]})
    ref = reference(st)
    assert ref.awards[AWARDS.index("engineers")] == 0
    assert ref.seats[0].money == 7


# --- Opel ---------------------------------------------------------------------


def opel_position(opel):
    seats = {1: {"engineers": ["Opel"] if opel else []}}
    return make_position(seats=seats, buyers={"active": [{"preference": "price"}] + ALL_BUYERS[:3]},
                         market=[car(1, price=5), car(2, price=6)])


@pytest.mark.parametrize("opel,gain", [(True, 15), (False, 10)])
def test_opel_price_buyer_pays_three_times(opel, gain):
    st, before = end_round(opel_position(opel))
    assert reference(st).round == 2
    # the price buyer (first) buys the lowest price: seat 1's car at 5; the body buyer buys seat 2's
    ref = reference(st)
    assert ref.seats[1].money - before[1] == gain
    assert ref.seats[2].money - before[2] == 6


def test_opel_does_not_change_other_buyers():
    pos = make_position(seats={1: {"engineers": ["Opel"]}}, buyers={"active": ALL_BUYERS},
                        market=[car(1, body=3, price=5)])
    st, before = end_round(pos)
    assert reference(st).seats[1].money - before[1] == 5  # sold to the body buyer: once the price


# --- Maybach and Horch ----------------------------------------------------------


def test_maybach_marker_on_a_car_moved_to_the_market():
    seat0 = {"workshops": ["body 2", "engine 1"], "engineers": ["Maybach"]}
    st = load(make_position(seats={0: seat0}))
    play(st, tile("gp"), "market body@2", "market workers 1", "market price 3")
    assert options(st) == ["market no-marker", "market +maybach1", "market +maybach2"]
    play(st, "market +maybach2")
    ref = reference(st)
    assert ref.market == [[0, 2, 1, 1, 3, 2, 0]]
    assert ref.seats[0].maybach == [1]


def test_maybach_marker_counts_at_scoring_and_may_exceed_seven():
    # body 7 + 1 = 8 beats body 7 even though the other car is cheaper (a tie would go to price 1)
    pos = make_position(seats={1: {"engineers": ["Maybach"], "markers": {"maybach": [2]}}},
                        buyers={"active": [{"preference": p} for p in ("body", "price", "engine", "prestige")]},
                        market=[car(1, body=7, price=10, body_bonus=1), car(2, body=7, price=1)])
    st, before = end_round(pos)
    # the body buyer (first) buys seat 1's car (value 8); the price buyer then buys seat 2's (twice 1)
    ref = reference(st)
    assert ref.seats[1].money - before[1] == 10
    assert ref.seats[2].money - before[2] == 2


def test_horch_marker_counts_at_scoring_and_may_exceed_seven():
    pos = make_position(seats={1: {"engineers": ["Horch"], "markers": {"horch": [1]}}},
                        buyers={"active": [{"preference": p} for p in ("engine", "price", "body", "prestige")]},
                        market=[car(1, engine=7, price=9, engine_bonus=2), car(2, engine=7, price=2)])
    st, before = end_round(pos)
    # the engine buyer buys seat 1's car (value 9); the price buyer then buys seat 2's (twice 2)
    ref = reference(st)
    assert ref.seats[1].money - before[1] == 9
    assert ref.seats[2].money - before[2] == 4


# --- Benz -----------------------------------------------------------------------


def benz_position(track=2):
    """Round 3: four active buyers, five cars; seat 0 moves the sixth car, which ends the game."""
    return make_position(
        round=3,
        seats={0: {"workshops": ["body 1", "engine 1"], "canteen": 1},
               1: {"engineers": ["Benz"], "space": 5},
               2: {"canteen": 4}},
        buyers={"active": ALL_BUYERS, "track": track,
                "white": {"body": 0, "engine": 3, "prestige": 1, "price": 1}},
        market=[car(2, body=5, price=3), car(2, engine=5, price=4), car(2, workers=5, price=6),
                car(3, price=8), car(1, engine=4, price=10)],
    )


def play_to_benz(track=2):
    st = load(benz_position(track))
    before = st.money()
    play(st, tile("hire"), "market body@1", "market workers 1", "market price 15")
    return st, before


def test_benz_fifth_buyer_offered_at_the_start_of_scoring():
    st, before = play_to_benz()
    assert st.pending() == "benz" and st.current_player() == 1
    assert options(st) == ["benz pass", "benz buyer body", "benz buyer engine", "benz buyer prestige",
                           "benz buyer price"]
    assert st.money() == before  # before the race and the buyers


def test_benz_fifth_buyer_buys_after_the_others_and_takes_the_white_markers():
    """[decision] Benz's fifth buyer takes the price markers next to its stack; [book] it may earn the
    Buyer award (its preference's second active buyer)."""
    st, before = play_to_benz()
    play(st, "benz buyer engine")
    assert st.is_terminal()
    # white engine markers 3 + Buyer award 3 + the car with engine 4 sold at 10 + race: first place 7
    ref = reference(st)
    assert ref.seats[1].money - before[1] == 3 + 3 + 10 + 7
    assert ref.awards[AWARDS.index("buyer")] == 1
    assert ref.seats[1].benz == 0
    # the four others bought the cars priced 3, 4, 6 (seat 2) and 8 (seat 3, the lowest price left)
    ref = reference(st)
    assert ref.seats[2].money - before[2] == 3 + 4 + 6
    assert ref.seats[3].money - before[3] == 8 * 2
    assert ref.seats[0].money - before[0] == 0  # seat 0's car (price 15) stays unsold


def test_benz_fifth_buyer_only_from_non_empty_stacks():
    pos = benz_position()
    pos["buyers"]["active"] = [{"preference": p} for p in ("body", "body", "engine", "price")]
    st = load(pos)
    play(st, tile("hire"), "market body@1", "market workers 1", "market price 15")
    assert options(st) == ["benz pass", "benz buyer engine", "benz buyer prestige", "benz buyer price"]


def test_benz_pass():
    st, before = play_to_benz()
    play(st, "benz pass")
    ref = reference(st)
    assert ref.seats[1].money - before[1] == 7  # race only: its car stays unsold
    assert ref.awards[AWARDS.index("buyer")] == -1
    assert ref.seats[1].benz == 1


def test_benz_does_not_move_the_buyer_track():
    """[decision] The fifth buyer does not move the buyer-track marker."""
    st, _ = play_to_benz(track=2)
    play(st, "benz buyer prestige")
    assert st.is_terminal()
    assert reference(st).track == 2


# --- Bugatti ----------------------------------------------------------------------


def test_bugatti_races_when_a_higher_engine_goes_to_the_gp_car():
    seat0 = {"engineers": ["Bugatti"], "gp_engine": 2, "developments": ["dev:engine2"]}
    st = load(make_position(seats={0: seat0}))
    play(st, tile("engine"), "engine -> gp")
    ref = reference(st)
    assert ref.seats[0].gp_engine == 3
    assert ref.seats[0].space == 3


def test_bugatti_no_race_for_an_engine_into_a_workshop():
    seat0 = {"engineers": ["Bugatti"], "developments": ["dev:engine2"]}
    st = load(make_position(seats={0: seat0}))
    play(st, tile("engine"), "engine -> workshop")
    assert reference(st).seats[0].space == 0


@pytest.mark.parametrize("gp_engine", [3, 4])
def test_bugatti_no_race_for_an_engine_not_higher_than_the_gp_cars(gp_engine):
    """[book] RULES.md §5.3: Bugatti moves only when the new engine is higher than the one it replaces;
    an equal or lower engine may still go into the GP car (§4.1), without a move."""
    seat0 = {"engineers": ["Bugatti"], "gp_engine": gp_engine, "developments": ["dev:engine2"]}
    st = load(make_position(seats={0: seat0}))
    play(st, tile("engine"))
    assert options(st) == ["engine -> workshop", "engine -> gp"]
    play(st, "engine -> gp")
    ref = reference(st)
    assert ref.seats[0].gp_engine == 3 and ref.seats[0].space == 0
    assert st.current_player() == 1


def test_bugatti_takes_the_best_engine_his_research_allows():
    """[book note] RULES.md §5.3: the engine taken is the best the research allows (no lower one is
    offered), and the move uses the new engine's value."""
    seat0 = {"engineers": ["Bugatti"], "developments": ["dev:engine2", "dev:engine2"]}
    st = load(make_position(seats={0: seat0}))
    play(st, tile("engine"))
    assert reference(st).tasks[-1] == ["engine_dest", 5]
    play(st, "engine -> gp")
    ref = reference(st)
    assert ref.seats[0].gp_engine == 5 and ref.seats[0].space == 5


def test_bugatti_race_from_the_body_and_engine_instant():
    seat0 = {"engineers": ["Bugatti"], "developments": ["dev:engine1"]}
    st = load(with_deck(research_position("body+engine", seat0)))
    play(st, RESEARCH, "take research:body+engine", "engine -> gp")
    ref = reference(st)
    assert ref.seats[0].gp_engine == 2 and ref.seats[0].space == 2


# --- Porsche ----------------------------------------------------------------------


def test_porsche_gp_action_one_further():
    st = load(make_position(seats={0: {"engineers": ["Porsche"], "gp_engine": 3}}))
    play(st, tile("gp"))
    assert reference(st).seats[0].space == 4


def test_porsche_gp5_one_further():
    st = take("gp5", {"engineers": ["Porsche"]})
    assert reference(st).seats[0].space == 6


def test_porsche_bugatti_move_one_further():
    seat0 = {"engineers": ["Porsche", "Bugatti"], "gp_engine": 2, "developments": ["dev:engine2"]}
    st = load(make_position(seats={0: seat0}))
    play(st, tile("engine"), "engine -> gp")
    assert reference(st).seats[0].space == 4


# --- Daimler ----------------------------------------------------------------------


def test_daimler_marker_once_per_turn():
    seat0 = {"engineers": ["Daimler"]}
    pos = make_position(seats={0: seat0}, buyers={"active": ALL_BUYERS[:2]},
                        chain=["seat 0", "tile 3", "tile 0", "seat 1", "seat 2", "seat 3",
                               "tile 1", "tile 2", "tile 4", "tile 5", "tile 6", "tile 7", "tile 8", "tile 9"])
    st = load(pos)
    play(st, "tile 3")
    assert options(st) == ["daimler pass", "daimler +2 buyer 1", "daimler +2 buyer 2",
                           "daimler +4 buyer 1", "daimler +4 buyer 2"]
    play(st, "daimler +4 buyer 2")
    ref = reference(st)
    assert ref.active_daimler == [0, 4]
    assert ref.seats[0].daimler == [2]
    # one per turn: the turn is over; seat 0 moves again (double turn) and may place the other
    assert st.pending() == "turn" and st.current_player() == 0
    play(st, "tile 0")
    assert options(st) == ["daimler pass", "daimler +2 buyer 1"]  # only buyers without a marker
    play(st, "daimler +2 buyer 1")
    ref = reference(st)
    assert ref.active_daimler == [2, 4] and ref.seats[0].daimler == []
    assert st.current_player() == 0  # a third turn: no marker left, no Daimler decision
    play(st, "tile 1")
    assert st.current_player() == 1


def test_daimler_not_offered_without_a_free_active_buyer():
    pos = make_position(seats={0: {"engineers": ["Daimler"]}},
                        buyers={"active": [{"preference": "body", "daimler": 2}]})
    st = load(pos)
    play(st, tile("gp"))
    assert st.current_player() == 1


@pytest.mark.parametrize("pref,mult", [("price", 2), ("body", 1)])
def test_daimler_bonus_at_scoring_not_multiplied(pref, mult):
    active = [{"preference": pref, "daimler": 4}] + [{"preference": p} for p in ("engine", "prestige", "prestige")]
    pos = make_position(buyers={"active": active}, market=[car(1, price=5)])
    st, before = end_round(pos)
    assert reference(st).seats[1].money - before[1] == 5 * mult + 4


def test_daimler_bonus_with_opel_not_tripled():
    active = [{"preference": "price", "daimler": 2}] + ALL_BUYERS[:3]
    pos = make_position(buyers={"active": active}, market=[car(1, price=5)],
                        seats={1: {"engineers": ["Opel"]}})
    st, before = end_round(pos)
    assert reference(st).seats[1].money - before[1] == 15 + 2


def test_used_engineer_markers_leave_the_game_at_scoring():
    pos = make_position(
        seats={1: {"engineers": ["Daimler", "Maybach"], "markers": {"daimler": [2], "maybach": [1]}}},
        buyers={"active": [{"preference": "body", "daimler": 4}] + ALL_BUYERS[1:]},
        market=[car(1, body=2, price=5, body_bonus=2)])
    st, before = end_round(pos)
    ref = reference(st)
    assert ref.round == 2
    assert ref.seats[1].money - before[1] == 5 + 4
    assert ref.active_daimler == [] and ref.market == []
    assert ref.seats[1].daimler == [2] and ref.seats[1].maybach == [1]  # only the unused ones are kept


# --- Otto -------------------------------------------------------------------------


def test_otto_two_workers_and_another_research():
    st = load(with_deck(research_position("Otto"), ["hire3", "Diesel"]))
    play(st, RESEARCH, "take research:Otto")
    s = reference(st).seats[0]
    assert (s.canteen, s.supply) == (6, 6)
    assert st.pending() == "research" and st.current_player() == 0
    assert set(options(st)) == {"take research:hire3", "take research:Diesel"}
    play(st, "take research:Diesel")
    assert s.has("otto") and reference(st).seats[0].has("diesel")


def test_otto_up_to_two_workers():
    st = load(with_deck(research_position("Otto", {"canteen": 11}), ["hire3", "Diesel"]))
    play(st, RESEARCH, "take research:Otto")
    ref = reference(st)
    assert (ref.seats[0].canteen, ref.seats[0].supply) == (12, 0)
    assert st.pending() == "research"


# --- Diesel -----------------------------------------------------------------------


def diesel_position(**seat0):
    s0 = {"engineers": ["Diesel"], "workshops": ["body 4", "engine 5"], "canteen": 3}
    s0.update(seat0)
    return make_position(seats={0: s0}, market=[car(0, body=2, engine=3, workers=2, price=5)])


def test_diesel_options():
    st = load(diesel_position())
    play(st, tile("gp"), "market pass")
    assert options(st) == ["diesel pass", "diesel car@5"]
    play(st, "diesel car@5")
    expected = ["diesel body 4", "diesel engine 5"] + [f"diesel workers {n}" for n in (1, 3, 4, 5)]
    expected += [f"diesel price {p}" for p in (1, 2, 3, 6, 8, 9, 10)]
    assert options(st) == expected


def run_diesel(change, **seat0):
    st = load(diesel_position(**seat0))
    supply = (list(reference(st).supply_body), list(reference(st).supply_engine))
    play(st, tile("gp"), "market pass", "diesel car@5", change)
    return st, supply


def test_diesel_body_change_old_body_to_the_supply():
    """[decision] The replaced car body goes to the supply."""
    st, (body, _) = run_diesel("diesel body 4")
    ref = reference(st)
    assert ref.market == [[0, 4, 3, 2, 5, 0, 0]]
    assert ref.seats[0].workshops == [ENGINE_CODE + 5]
    assert ref.supply_body[1] == body[1] + 1 and ref.supply_body[3] == body[3]
    assert ref.seats[0].diesel == 1


def test_diesel_engine_change_old_engine_to_the_supply():
    """[decision] The replaced engine goes to the supply."""
    st, (_, engine) = run_diesel("diesel engine 5")
    ref = reference(st)
    assert ref.market == [[0, 2, 5, 2, 5, 0, 0]]
    assert ref.seats[0].workshops == [4]
    assert ref.supply_engine[2] == engine[2] + 1 and ref.supply_engine[4] == engine[4]


def test_diesel_more_workers_from_the_canteen():
    st, _ = run_diesel("diesel workers 5")
    ref = reference(st)
    assert ref.market[0][3] == 5 and ref.seats[0].canteen == 0


def test_diesel_fewer_workers_back_to_the_canteen():
    """[decision] Workers removed by a Diesel change go back to the canteen."""
    st, _ = run_diesel("diesel workers 1")
    ref = reference(st)
    assert ref.market[0][3] == 1 and ref.seats[0].canteen == 4


def test_diesel_price_change_old_marker_back_next_to_the_market():
    st, _ = run_diesel("diesel price 10")
    ref = reference(st)
    assert ref.market[0][4] == 10
    assert ref.prices == [1, 2, 3, 5, 6, 8, 9]


def test_diesel_both_markers_in_one_turn():
    """[book] RULES.md §5.3 (corrected): after one change the second marker is offered again in the
    same turn, with "diesel pass" to stop."""
    st = load(diesel_position())
    play(st, tile("gp"), "market pass", "diesel car@5", "diesel workers 3")
    assert st.pending() == "diesel" and st.current_player() == 0  # the second marker, same turn
    assert options(st) == ["diesel pass", "diesel car@5"]
    play(st, "diesel car@5", "diesel price 1")
    ref = reference(st)
    assert ref.seats[0].diesel == 0
    assert ref.market == [[0, 2, 3, 3, 1, 0, 0]]
    assert ref.prices == [2, 3, 5, 6, 8, 9, 10]
    assert st.current_player() == 1  # no markers left: the turn ended without another question


def test_diesel_second_change_may_be_declined():
    st = load(diesel_position())
    play(st, tile("gp"), "market pass", "diesel car@5", "diesel body 4", "diesel pass")
    ref = reference(st)
    assert ref.seats[0].diesel == 1 and ref.market == [[0, 4, 3, 2, 5, 0, 0]]
    assert st.current_player() == 1


def test_diesel_markers_over_two_turns():
    pos = diesel_position()
    pos["chain"] = ["seat 0", "tile 3", "tile 0", "seat 1", "seat 2", "seat 3",
                    "tile 1", "tile 2", "tile 4", "tile 5", "tile 6", "tile 7", "tile 8", "tile 9"]
    st = load(pos)
    play(st, "tile 3", "market pass", "diesel car@5", "diesel workers 3", "diesel pass")
    assert st.pending() == "turn" and st.current_player() == 0
    play(st, "tile 0", "market pass", "diesel car@5", "diesel price 1")
    ref = reference(st)
    assert ref.seats[0].diesel == 0
    assert ref.market == [[0, 2, 3, 3, 1, 0, 0]]
    assert st.current_player() == 0  # a third turn: no markers left, no Diesel decision
    play(st, "tile 1", "market pass")
    assert st.current_player() == 1


def test_diesel_not_offered_without_markers_or_own_cars():
    st = load(make_position(seats={0: {"engineers": ["Diesel"], "canteen": 2}},
                            market=[car(1, price=5)]))
    play(st, tile("gp"))
    assert st.current_player() == 1
    pos = diesel_position()
    pos["seats"][0]["markers"] = {"diesel": 0}
    st = load(pos)
    play(st, tile("gp"), "market pass")
    assert st.current_player() == 1


# --- at most one engineer marker per turn ------------------------------------------


def test_one_marker_per_turn_maybach_then_no_daimler():
    seat0 = {"engineers": ["Maybach", "Daimler"], "workshops": ["body 2", "engine 1"]}
    st = load(make_position(seats={0: seat0}, buyers={"active": ALL_BUYERS[:1]}))
    play(st, tile("gp"), "market body@2", "market workers 1", "market price 3", "market +maybach1")
    assert st.current_player() == 1  # no Daimler decision after a marker placement
    assert reference(st).seats[0].daimler == [2, 4]


def test_without_a_marker_on_the_car_daimler_is_offered():
    seat0 = {"engineers": ["Maybach", "Daimler"], "workshops": ["body 2", "engine 1"]}
    st = load(make_position(seats={0: seat0}, buyers={"active": ALL_BUYERS[:1]}))
    play(st, tile("gp"), "market body@2", "market workers 1", "market price 3", "market no-marker")
    assert st.pending() == "daimler"


def test_diesel_discard_is_not_a_marker_placement():
    """[decision] A Diesel discard is not a marker placement: after a Daimler marker the Diesel change
    is still offered."""
    seat0 = {"engineers": ["Daimler", "Diesel"], "workshops": ["body 4"], "canteen": 2}
    pos = make_position(seats={0: seat0}, buyers={"active": ALL_BUYERS[:1]},
                        market=[car(0, body=2, engine=3, workers=1, price=5)])
    st = load(pos)
    play(st, tile("gp"), "daimler +2 buyer 1")
    assert st.pending() == "diesel"
    play(st, "diesel car@5", "diesel body 4")
    ref = reference(st)
    assert ref.market[0][1] == 4 and ref.active_daimler == [2]


def test_maybach_marker_then_diesel_change_in_the_same_turn():
    """[decision] A Diesel discard is not a marker placement."""
    seat0 = {"engineers": ["Maybach", "Diesel"], "workshops": ["body 3", "engine 1"], "canteen": 2}
    pos = make_position(seats={0: seat0}, market=[car(0, body=2, engine=3, workers=1, price=5)])
    st = load(pos)
    play(st, tile("gp"), "market body@3", "market workers 1", "market price 1", "market +maybach2")
    assert st.pending() == "diesel"
    assert "diesel car@5" in options(st) and "diesel car@1" in options(st)
