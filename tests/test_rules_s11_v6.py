"""RULES.md §11: the V6 specialty tiles — set-up, taking a tile (standard action, then the bonus,
then discard and replace), the pass-over rule, stack exhaustion, the round change, every bonus.

Default specialty tiles (components.DEFAULTS): A1 research + engine 3, A2 gp + GP engine upgrade,
A3 hire + 1 per canteen worker, A4 buyer + remove a car for 3; B1 research + body 5, B2 gp + GP
engine upgrade, B3 body + sell a workshop tile, B4 research + the top discard; C1 engine + sell,
C2 hire + 1 per canteen worker, C3 research + engine 6, C4 buyer + remove a car for 7.
"""

from __future__ import annotations

import copy

import pytest

from helpers import load, make_position, options, play, tile, with_deck
from kwsearch.engine import reference
from kwsearch.components import default_components
from kwsearch.errors import ComponentError, InvalidPositionError
from kwsearch.formats import check_position
from kwsearch.rules import SPECIAL, Game, random_game

C = default_components()
NAMES = [t.name for t in C.specialty_tiles]


def v6_position(special: str = "A1", round_: int = 1, order: dict | None = None, used: dict | None = None,
                top_cards=(), **overrides) -> dict:
    """A V6 position at the start of seat 0's turn: ``special`` at the front of the chain,
    the stacks' face-down order ``order`` (top last; default: by name) and used piles ``used``."""
    pos = make_position(**overrides)
    pos["v6"] = True
    pos["round"] = round_
    if "chain" not in overrides:
        pos["chain"] = pos["chain"] + [f"special {special}"]
    used = used or {}
    placed = {special} | {t for tiles in used.values() for t in tiles}
    order = dict(order or {})
    for letter in "ABC":
        if letter not in order:
            order[letter] = [t.name for t in C.specialty_tiles if t.stack_name == letter and t.name not in placed]
    pos["specialty"] = {"undrawn": {k: sorted(v) for k, v in order.items()}, "used": used}
    pos = with_deck(pos, top_cards)
    pos["hidden"]["specialty"] = order
    return pos


def spec(st) -> dict:
    return st.observation()["specialty"]


def front(st) -> str:
    return st.observation()["chain"][-1]


# ---------------------------------------------------------------------------
# Set-up, the chain, the notation
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_setup_puts_the_top_a_tile_at_the_front(players):
    """The top A tile is the 11th tile, at the front of the chain; B and C wait face down."""
    st = Game(players, v6=True).new_initial_state(seed=5)
    chain = st.observation()["chain"]
    assert len(chain) == players + 11
    assert chain[-1].startswith("special A")
    assert len(spec(st)["undrawn"]["A"]) == 3 and len(spec(st)["undrawn"]["B"]) == 4
    assert len(spec(st)["undrawn"]["C"]) == 4 and spec(st)["used"] == {"A": [], "B": [], "C": []}


def test_setups_differ_by_seed_and_non_v6_is_unchanged():
    fronts = {Game(3, v6=True).new_initial_state(seed=s).observation()["chain"][-1] for s in range(40)}
    assert fronts == {"special A1", "special A2", "special A3", "special A4"}
    plain = Game(3).new_initial_state(seed=5)
    v6 = Game(3, v6=True).new_initial_state(seed=5)
    # The V6 stacks are shuffled after everything else, so the rest of the set-up is the same.
    assert plain.observation()["chain"] == v6.observation()["chain"][:-1]
    assert reference(plain).display == reference(v6).display and "specialty" not in plain.observation()


def test_the_specialty_tile_is_offered_by_name():
    st = load(v6_position("A3"))
    assert "tile special A3" in options(st)
    assert st.game.parse_action("Tile Special a3") == st.game.parse_action("tile special A3")


def test_v6_needs_a_stack_for_every_round():
    comps = copy.deepcopy(C.source)
    comps["specialty_tiles"] = [t for t in comps["specialty_tiles"] if t["stack"] != "C"]
    from kwsearch.components import components_from_dict
    c2 = components_from_dict(comps)
    Game(3, c2)  # fine without V6
    with pytest.raises(ComponentError, match="round 3 has no specialty tile"):
        Game(3, c2, v6=True)


# ---------------------------------------------------------------------------
# Taking a specialty tile
# ---------------------------------------------------------------------------


def test_taking_a_tile_discards_it_and_places_the_next_of_the_round():
    """The worker takes the tile's place; the tile is used; the top A tile goes to the front."""
    st = load(v6_position("A3", order={"A": ["A2", "A1", "A4"]}))
    play(st, "tile special A3")
    assert st.observation()["chain"][-1] == "special A4"
    assert "seat 0" in st.observation()["chain"]
    assert spec(st)["used"]["A"] == ["A3"] and spec(st)["undrawn"]["A"] == ["A1", "A2"]


def test_canteen_money_counts_the_worker_hired_first():
    """A3: hire (standard action) first, then 1 money per canteen worker: 5 workers -> 5."""
    st = load(v6_position("A3"))
    play(st, "tile special A3")
    assert st.pending() == "special_order" and options(st) == ["action first", "bonus first"]
    play(st, "action first")
    s = reference(st).seats[0]
    assert s.canteen == 5 and s.money == 5


def test_the_player_orders_standard_action_and_bonus():
    """[decision] RULES.md §11 (corrected): the standard action and the bonus in the order the player
    chooses, as a tile's actions (§4). A3 with the bonus first: 4 canteen workers -> 4, then the hire."""
    st = load(v6_position("A3"))
    play(st, "tile special A3", "bonus first")
    s = reference(st).seats[0]
    assert s.money == 4 and s.canteen == 5
    assert st.current_player() == 1


@pytest.mark.parametrize("seat0, award", [({"canteen": 4, "inactive": ["dev:body1"]}, 0), ({"canteen": 12}, 7)],
                         ids=["inactive-development", "empty-supply"])
def test_order_of_action_and_bonus_not_asked_where_it_cannot_matter(seat0, award):
    """[decision, reading 1] A3 when the hired worker cannot reach the canteen (it activates an inactive
    development, or the supply is empty): hire and canteen money commute, no question."""
    st = load(v6_position("A3", seats={0: seat0}))
    canteen = reference(st).seats[0].canteen
    play(st, "tile special A3")
    ref = reference(st)
    assert st.current_player() == 1
    assert ref.seats[0].money == canteen + award and ref.seats[0].canteen == canteen  # (+ the Worker award)


def test_buyer_and_car_removal_never_asked():
    """[decision, reading 1] A4: the buyer action commutes with every bonus: the buyer, then the removal."""
    st = load(_market_position("A4", 1))
    play(st, "tile special A4")
    assert st.pending() == "buyer"


def test_engine_3_regardless_of_research():
    """A1: research, then an engine 3 although the seat has 1 engine research point."""
    st = load(v6_position("A1"))
    play(st, "tile special A1", "action first", "take research:dev:body1")
    assert options(st) == ["engine -> workshop", "engine -> gp"]
    play(st, "engine -> workshop")
    assert 8 + 3 in reference(st).seats[0].workshops
    assert st.research_points(0) == (2, 1)


def test_engine_6_may_go_into_the_gp_car():
    """C3 in round 3: an engine 6 into the GP car (the old engine goes back unless it is the printed 1)."""
    st = load(v6_position("C3", round_=3, used={"A": ["A1", "A2", "A3", "A4"], "B": ["B1", "B2", "B3", "B4"]}))
    before = list(reference(st).supply_engine)
    play(st, "tile special C3", "action first", "take research:dev:body1", "engine -> gp")
    ref = reference(st)
    assert ref.seats[0].gp_engine == 6 and ref.supply_engine[5] == before[5] - 1


def test_engine_of_a_fixed_value_falls_back_to_a_lower_one():
    """No engine 3 left: the highest lower value [decision §4.1, reading 17]."""
    threes = ["engine 3"] * 3
    st = load(v6_position("A1", seats={1: {"workshops": threes}, 2: {"workshops": threes}}))
    assert reference(st).supply_engine[2] == 0
    play(st, "tile special A1", "action first", "take research:dev:body1", "engine -> workshop")
    assert 8 + 2 in reference(st).seats[0].workshops


def test_body_5_regardless_of_research():
    """B1 (round 2): research, then a body 5; it earns the Body 3 award."""
    st = load(v6_position("B1", round_=2, used={"A": ["A1", "A2", "A3", "A4"]}))
    play(st, "tile special B1", "action first", "take research:dev:engine1")
    assert 5 in reference(st).seats[0].workshops
    assert st.observation()["awards"]["body3"] == 0


def test_gp_engine_upgrade_after_the_race_move():
    """A2: the GP move uses the old engine (2 spaces), then the engine becomes 3; the 2 goes back."""
    st = load(v6_position("A2", seats={0: {"gp_engine": 2}}))
    before = list(reference(st).supply_engine)
    play(st, "tile special A2")
    assert options(st) == ["action first", "bonus first"]
    play(st, "action first")
    s = reference(st).seats[0]
    ref = reference(st)
    assert s.space == 2 and s.gp_engine == 3
    assert ref.supply_engine[1] == before[1] + 1 and ref.supply_engine[2] == before[2] - 1


def test_gp_engine_upgrade_before_the_race_move():
    """[decision] RULES.md §11: A2 with the bonus first: the engine becomes 3, then the GP move by 3."""
    st = load(v6_position("A2", seats={0: {"gp_engine": 2}}))
    before = list(reference(st).supply_engine)
    play(st, "tile special A2", "bonus first")
    s = reference(st).seats[0]
    ref = reference(st)
    assert s.space == 3 and s.gp_engine == 3
    assert ref.supply_engine[1] == before[1] + 1 and ref.supply_engine[2] == before[2] - 1


def test_gp_engine_upgrade_lets_bugatti_race():
    """A2 with Bugatti: after the upgrade the car moves again, by the new engine (2 + 3)."""
    st = load(v6_position("A2", seats={0: {"gp_engine": 2, "engineers": ["Bugatti"]}}))
    play(st, "tile special A2", "action first")
    ref = reference(st)
    assert ref.seats[0].space == 5 and ref.seats[0].gp_engine == 3
    st = load(v6_position("A2", seats={0: {"gp_engine": 2, "engineers": ["Bugatti"]}}))
    play(st, "tile special A2", "bonus first")  # Bugatti's move by 3, then the GP action by 3
    ref = reference(st)
    assert ref.seats[0].space == 6 and ref.seats[0].gp_engine == 3


def test_gp_engine_upgrade_needs_the_next_value():
    """Engine 7 cannot be upgraded; a missing next value does nothing [reading 18]."""
    st = load(v6_position("A2", seats={0: {"gp_engine": 7}}))
    play(st, "tile special A2")
    ref = reference(st)
    assert ref.seats[0].gp_engine == 7 and ref.seats[0].space == 7
    sevens = ["engine 7"] * 2
    st = load(v6_position("A2", seats={0: {"gp_engine": 6}, 1: {"workshops": sevens},
                                       2: {"workshops": sevens}}))
    assert reference(st).supply_engine[6] == 0
    play(st, "tile special A2")
    assert reference(st).seats[0].gp_engine == 6


def _market_position(special: str, round_: int, **kw) -> dict:
    prices = C.price_markers[round_ - 1]
    used = {"A": ["A1", "A2", "A3", "A4"], "B": ["B1", "B2", "B3", "B4"]} if round_ == 3 else {}
    pos = v6_position(special, round_=round_, used=used,
                      seats={0: {"engineers": ["Maybach"], "markers": {"maybach": [1]}}}, **kw)
    pos["market"] = [
        {"owner": 0, "body": 3, "engine": 2, "workers": 2, "price": prices[5], "body_bonus": 2},
        {"owner": 1, "body": 1, "engine": 1, "workers": 1, "price": prices[0]},
        {"owner": 0, "body": 1, "engine": 4, "workers": 1, "price": prices[2]},
    ]
    return pos


def test_remove_a_car_for_3():
    """A4: buyer action, then optionally remove an own car: its parts go back, +3 money."""
    st = load(_market_position("A4", 1))
    play(st, "tile special A4", "buyer engine")
    assert options(st) == ["remove pass", "remove car@3", "remove car@8"]
    money, supply = reference(st).seats[0].money, reference(st).seats[0].supply
    b3, e2 = reference(st).supply_body[2], reference(st).supply_engine[1]
    play(st, "remove car@8")
    ref = reference(st)
    assert [car[4] for car in ref.market] == [1, 3]
    assert 8 in ref.prices
    assert ref.seats[0].money == money + 3 and ref.seats[0].supply == supply + 2
    assert ref.supply_body[2] == b3 + 1 and ref.supply_engine[1] == e2 + 1


def test_remove_a_car_for_7_or_pass():
    """C4: the same for 7; passing keeps the car."""
    st = load(_market_position("C4", 3))
    play(st, "tile special C4", "buyer engine")
    money = reference(st).seats[0].money
    play(st, "remove car@12")
    ref = reference(st)
    assert ref.seats[0].money == money + 7 and 12 in ref.prices
    st = load(_market_position("C4", 3))
    play(st, "tile special C4", "buyer engine", "remove pass")
    assert len(reference(st).market) == 3


def test_remove_needs_an_own_car():
    st = load(v6_position("A4"))
    play(st, "tile special A4", "buyer body")
    assert st.pending() != "remove"


def test_sell_a_workshop_tile():
    """B3: car body (by research), then optionally sell one workshop tile for its value."""
    st = load(v6_position("B3", round_=2, used={"A": ["A1", "A2", "A3", "A4"]},
                          seats={0: {"workshops": ["engine 4"]}}))
    play(st, "tile special B3", "action first")
    assert options(st) == ["sell pass", "sell body 1", "sell engine 4"]
    e4 = reference(st).supply_engine[3]
    play(st, "sell engine 4")
    ref = reference(st)
    assert ref.seats[0].money == 4 and ref.seats[0].workshops == [1]
    assert ref.supply_engine[3] == e4 + 1


def test_sell_after_the_engine_action():
    """C1: engine (by research) first, so the new engine may be sold."""
    st = load(v6_position("C1", round_=3, used={"A": ["A1", "A2", "A3", "A4"], "B": ["B1", "B2", "B3", "B4"]}))
    play(st, "tile special C1", "action first", "engine -> workshop")
    assert options(st) == ["sell pass", "sell engine 1"]
    play(st, "sell engine 1")
    ref = reference(st)
    assert ref.seats[0].money == 1 and ref.seats[0].workshops == []


def test_research_with_the_top_discard():
    """B4: a research action, then the top discard — the card just passed over — as research."""
    st = load(v6_position("B4", round_=2, used={"A": ["A1", "A2", "A3", "A4"]},
                          research={"display": ["Diesel", "Maybach"]}))
    play(st, "tile special B4", "action first", "take research:Diesel")
    obs = st.observation()
    assert sorted(obs["seats"][0]["engineers"]) == ["Diesel", "Maybach"]
    assert obs["research"]["discard"] == []


def test_research_with_the_top_discard_first():
    """[decision] RULES.md §11: B4 with the bonus first: the top discard now (Otto), then the research."""
    pos = v6_position("B4", round_=2, used={"A": ["A1", "A2", "A3", "A4"]},
                      research={"display": ["Diesel", "Maybach"], "discard": ["gp5", "Opel"]})
    st = load(pos)
    play(st, "tile special B4")
    assert options(st) == ["action first", "bonus first"]
    play(st, "bonus first")
    assert st.pending() == "research"  # Opel taken from the discard; now the display
    play(st, "take research:Diesel")
    obs = st.observation()
    assert sorted(obs["seats"][0]["engineers"]) == ["Diesel", "Opel"]
    assert obs["research"]["discard"] == ["gp5", "Maybach"]


def test_research_with_an_empty_discard_does_nothing():
    st = load(v6_position("B4", round_=2, used={"A": ["A1", "A2", "A3", "A4"]},
                          research={"display": ["Diesel"]}))
    play(st, "tile special B4", "action first")
    assert st.observation()["seats"][0]["engineers"] == ["Diesel"]


# ---------------------------------------------------------------------------
# Passing over, exhaustion, the round change
# ---------------------------------------------------------------------------


def _passed_position(special: str, round_: int, used: dict) -> dict:
    """Seat 0 to move with ``special`` right behind it, so that it reaches the tail after the turn."""
    chain = ["seat 0", f"special {special}", "seat 1", "seat 2", "seat 3"] + [f"tile {t}" for t in range(10)]
    return v6_position(special, round_=round_, used=used, chain=chain)


def test_a_current_tile_passed_by_everyone_stays():
    st = load(_passed_position("A2", 1, {}))
    play(st, tile("hire"))
    assert front(st) == "special A2" and spec(st)["used"]["A"] == []


def test_an_earlier_tile_passed_by_everyone_is_replaced():
    """Round 2: the A tile at the tail is discarded; the top B tile goes to the front."""
    st = load(_passed_position("A2", 2, {"A": ["A1"]}))
    play(st, tile("hire"))
    assert front(st) == "special B4"  # stack B in name order: B4 on top
    assert spec(st)["used"]["A"] == ["A1", "A2"] and len(spec(st)["undrawn"]["B"]) == 3


def test_taking_an_earlier_tile_gives_its_bonus_and_a_current_replacement():
    st = load(v6_position("A3", round_=2, order={"B": ["B4", "B1", "B3", "B2"]}))
    play(st, "tile special A3", "action first")
    assert reference(st).seats[0].money == 5
    assert front(st) == "special B2" and spec(st)["used"]["A"] == ["A3"]


def test_an_emptied_stack_is_reshuffled_from_its_used_tiles():
    used = {"A": ["A1", "A2", "A3"]}
    st = load(v6_position("A4", order={"A": []}, used=used))
    play(st, "tile special A4", "buyer body")
    obs = spec(st)
    assert obs["used"]["A"] == []
    assert len(obs["undrawn"]["A"]) == 3 and front(st).startswith("special A")
    assert sorted(obs["undrawn"]["A"] + [front(st)[len("special "):]]) == ["A1", "A2", "A3", "A4"]


def test_the_reshuffle_is_reproducible_and_uses_the_generator():
    used = {"A": ["A1", "A2", "A3"]}
    fronts = set()
    for rng in ("1", "2", "3", "4", "5", "6", "7", "8"):
        pos = v6_position("A4", order={"A": []}, used=used)
        pos["hidden"]["rng"] = rng
        a, b = load(pos), load(pos)
        play(a, "tile special A4", "buyer body")
        play(b, "tile special A4", "buyer body")
        assert front(a) == front(b)
        fronts.add(front(a))
    assert len(fronts) >= 2


def test_round_change_uses_stack_b_then_c():
    """The chain keeps its tile at the round change; the next replacement comes from the new round."""
    game = Game(3, v6=True)
    seen_rounds = {}
    for seed in range(20):
        def watch(st, a):
            if st.pending() == "turn" and a >= st.game.parse_action("tile special A1"):
                seen_rounds.setdefault(reference(st).round, set()).add(
                    C.specialty_tiles[a - st.game.parse_action("tile special A1")].stack)
        random_game(game, seed, on_step=watch)
    # A round's own stack (and earlier ones until they are replaced) is what can be taken.
    assert seen_rounds[1] == {0}
    assert 1 in seen_rounds[2] and seen_rounds[2] <= {0, 1}
    assert 2 in seen_rounds[3] and seen_rounds[3] <= {0, 1, 2}


def test_round_end_keeps_the_tile_and_draws_from_the_next_stack():
    pos = v6_position("A2")
    pos["phase"] = "scoring"
    pos["turn"] = {"seat": 0}
    pos["buyers"]["track"] = 0
    st = load(pos)
    assert reference(st).round == 2 and front(st) == "special A2"
    play(st, "tile special A2")
    assert front(st).startswith("special B")


# ---------------------------------------------------------------------------
# Positions with V6 state
# ---------------------------------------------------------------------------


def test_position_round_trip_and_hidden_order():
    st = Game(4, v6=True).new_initial_state(seed=9)
    obj = st.to_json()
    assert "specialty" in obj and set(obj["hidden"]["specialty"]) == {"A", "B", "C"}
    again = load(obj)
    assert again.to_json() == obj


@pytest.mark.parametrize("mutate, path", [
    (lambda p: p["specialty"]["undrawn"].update(B=["B1", "B2", "C2"]), "$.specialty.undrawn.B[2]"),
    (lambda p: p["specialty"]["undrawn"].update(A=["A2", "X9"]), "$.specialty.undrawn.A[1]"),
    (lambda p: p["specialty"]["used"].update(A=["A1"]), "$.specialty.used.A[0]"),
    (lambda p: p["specialty"]["undrawn"].update(D=[]), "$.specialty.undrawn.D"),
    (lambda p: p.update(specialty=["A1"]), "$.specialty"),
    (lambda p: p["specialty"]["undrawn"].update(A=["A2"]), "$.specialty"),
    (lambda p: p["hidden"]["specialty"].update(A=["A2", "A3"]), "$.hidden.specialty.A"),
    (lambda p: p.update(chain=p["chain"][:-1]), "$.chain"),
    (lambda p: p.update(chain=p["chain"][:-1] + ["special C1"]), "$.chain"),
    (lambda p: p.update(v6="yes"), "$.v6"),
])
def test_malformed_v6_fields_are_named(mutate, path):
    pos = v6_position("A1")
    mutate(pos)
    problems = check_position(pos)
    assert any(p == path for p, _ in problems), problems
    with pytest.raises(InvalidPositionError):
        load(pos)


def test_non_v6_positions_reject_specialty_tiles():
    pos = make_position()
    pos["chain"] = pos["chain"] + ["special A1"]
    assert any(p == "$.chain[14]" for p, _ in check_position(pos))
