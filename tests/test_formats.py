"""The position format ``kwsearch-position/1`` (docs/formats.md): checking, loading, writing."""

from __future__ import annotations

import copy
import json
import random
import re
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import after_random_decisions
from kwsearch.components import AWARDS, DEFAULTS, default_components, load_components
from kwsearch.engine import reference
from kwsearch.errors import InvalidPositionError, KwsearchError
from kwsearch.formats import POSITION_FORMAT, check_position, load_position_file, position_to_state
from kwsearch.rules import TASKS, Game

pytestmark = pytest.mark.one_engine  # engine-independent (see conftest.py)

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
DOC = ROOT / "docs" / "formats.md"


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def minimal(players: int = 2, **fields) -> dict:
    """A hand-written position at the start of a turn with only the required fields."""
    pos = {
        "format": POSITION_FORMAT,
        "players": players,
        "phase": "action",
        "chain": [f"seat {s}" for s in range(players)] + [f"tile {t}" for t in range(10)],
        "seats": [{"money": 0, "canteen": 4, "workshops": [], "start_tile": "ABCD"[s]}
                  for s in range(players)],
    }
    pos.update(fields)
    return pos


def undrawn_cards(pos: dict) -> list[str]:
    """Every undrawn card of a position (sorted by name), computed from the component counts."""
    c = default_components()
    seen = Counter()
    research = pos.get("research", {})
    for key in ("display", "discard"):
        seen.update(research.get(key, []))
    for s in pos["seats"]:
        for key in ("developments", "inactive", "engineers"):
            seen.update(s.get(key, []))
    left = []
    for ct in c.card_types:
        left += [ct.name] * (ct.count - seen[ct.name])
    return sorted(left)


def paths(obj) -> list[str]:
    return [p for p, _ in check_position(obj)]


def problem(obj, path: str) -> str:
    """The message of the problem reported at ``path`` (fails if there is none)."""
    found = [m for p, m in check_position(obj) if p == path]
    assert found, f"no problem at {path}; got {check_position(obj)}"
    return found[0]


def assert_invalid(obj, path: str, *fragments: str) -> None:
    """``obj`` has a problem at ``path`` whose message holds every fragment; from_json agrees."""
    msg = problem(obj, path)
    for f in fragments:
        assert f in msg, (path, msg)
    with pytest.raises(InvalidPositionError) as err:
        position_to_state(obj)
    assert err.value.problems == check_position(obj)


# ---------------------------------------------------------------------------
# Valid positions
# ---------------------------------------------------------------------------


def test_minimal_position_is_valid():
    assert check_position(minimal()) == []
    for n in (2, 3, 4):
        assert check_position(minimal(n)) == []


def test_example_midgame_position():
    obj = json.loads((EXAMPLES / "midgame-4p.json").read_text())
    assert check_position(obj) == []
    state = position_to_state(obj)
    assert state.observation() == obj  # the file was written by observation()
    assert state.pending() == obj["pending"][-1][0]
    assert state.current_player() in range(4)
    loaded = load_position_file(EXAMPLES / "midgame-4p.json")
    assert loaded.observation() == obj


def test_omitted_fields_are_derived():
    c = default_components()
    state = position_to_state(minimal(2), seed=1)
    obs = state.observation()
    assert obs["round"] == 1 and obs["v6"] is False and obs["components"] is None
    assert obs["research"]["undrawn"] == {ct.name: ct.count for ct in c.card_types}
    assert obs["research"]["display"] == [] and obs["research"]["discard"] == []
    assert obs["supply"] == {"body": list(c.body_tiles), "engine": list(c.engine_tiles)}
    assert obs["awards"] == {a: None for a in AWARDS}
    assert obs["buyers"]["stacks"] == {p: c.buyers_per_preference for p in ("body", "engine", "prestige", "price")}
    assert obs["buyers"]["white"] == {"body": 0, "engine": 0, "prestige": 0, "price": 0}
    assert obs["buyers"]["track"] == c.buyer_track_start[2]
    assert obs["prices"] == list(c.price_markers[0])
    assert obs["start_tiles_offered"] == ["A", "B"]  # the first two start tiles with two players
    assert obs["pending"] == [["turn", 0]]
    assert obs["turn"]["seat"] == 0  # the worker at the tail of the chain
    for s in obs["seats"]:
        # 14 workers = supply + canteen 4 + track marker + lap counter
        assert s["supply"] == c.workers_per_player - 4 - 2
        assert s["markers"] == {"maybach": [], "horch": [], "daimler": [], "diesel": 0, "benz": 0}
        assert (s["gp_engine"], s["laps"], s["space"]) == (1, 0, 0)
    assert state.current_player() == 0
    assert [state.action_to_text(a) for a in state.legal_actions()] == [f"tile {t}" for t in range(10)]


def test_derived_values_follow_the_given_ones():
    pos = minimal(3, round=2,
                  research={"display": ["Diesel", "dev:body2"], "discard": ["gp5"]},
                  buyers={"active": [{"preference": "price"}, {"preference": "body", "daimler": 4}]},
                  market=[{"owner": 1, "body": 3, "engine": 2, "workers": 3, "price": 8}])
    pos["seats"][0].update(workshops=["body 2", "engine 7"], developments=["dev:body1", "dev:engine1"],
                           engineers=["Maybach", "Benz"], gp_engine=4, canteen=1)
    pos["seats"][1]["engineers"] = ["Daimler"]
    pos["seats"][1]["markers"] = {"daimler": [2]}  # the +4 marker lies on an active buyer
    assert check_position(pos) == []
    obs = position_to_state(pos).observation()
    c = default_components()
    s0, s1 = obs["seats"][0], obs["seats"][1]
    assert s0["supply"] == 14 - 1 - 2 - 2  # canteen, two developments, two markers
    assert s1["supply"] == 14 - 4 - 3 - 2  # canteen, three workers on the market car
    assert s0["markers"] == {"maybach": [1, 2], "horch": [], "daimler": [], "diesel": 0, "benz": 1}
    assert s1["markers"]["daimler"] == [2]
    body = list(c.body_tiles)
    engine = list(c.engine_tiles)
    body[2 - 1] -= 1
    engine[7 - 1] -= 1
    engine[4 - 1] -= 1  # the GP engine
    body[3 - 1] -= 1  # the market car
    engine[2 - 1] -= 1
    assert obs["supply"] == {"body": body, "engine": engine}
    assert obs["buyers"]["stacks"] == {"body": 1, "engine": 2, "prestige": 2, "price": 1}
    assert obs["prices"] == [p for p in c.price_markers[1] if p != 8]
    undrawn = Counter({ct.name: ct.count for ct in c.card_types})
    undrawn.subtract(["Diesel", "dev:body2", "gp5", "dev:body1", "dev:engine1", "Maybach", "Benz", "Daimler"])
    assert obs["research"]["undrawn"] == {k: v for k, v in sorted(undrawn.items()) if v > 0}


def test_setup_phase_pending_is_derived():
    pos = minimal(4, phase="setup")
    for s in pos["seats"]:
        del s["start_tile"]
    assert check_position(pos) == []
    state = position_to_state(pos)
    assert state.observation()["pending"] == [["turn", 0], ["setup", 0], ["setup", 1], ["setup", 2], ["setup", 3]]
    assert state.current_player() == 3  # the top of the stack is last
    assert [state.action_to_text(a) for a in state.legal_actions()] == ["start A", "start B", "start C", "start D"]


def test_scoring_phase_pending_is_derived():
    pos = minimal(2, phase="scoring")
    pos["seats"][1]["engineers"] = ["Benz"]
    state = position_to_state(pos)
    assert state.observation()["pending"] == [["round_end", 0], ["sales", 0], ["race", 0], ["benz", 1]]
    assert state.current_player() == 1
    assert [state.action_to_text(a) for a in state.legal_actions()] == [
        "benz pass", "benz buyer body", "benz buyer engine", "benz buyer prestige", "benz buyer price"]
    assert state.observation()["prices"] == []


def test_over_phase_has_no_pending_decision():
    pos = minimal(2, phase="over", round=3)
    pos["seats"][0]["money"] = 40
    state = position_to_state(pos)
    assert state.is_terminal()
    assert state.observation()["pending"] == []
    assert state.money() == [40, 0]
    assert paths(dict(pos, pending=[["turn", 0]])) == ["$.pending"]


def test_observation_of_random_states_is_a_valid_position():
    for n in (2, 3, 4):
        rng = random.Random(n)
        state = Game(n).new_initial_state(n)
        step = 0
        while not state.is_terminal():
            if step % 5 == 0:
                obs = state.observation()
                assert "hidden" not in obs
                assert check_position(obs) == [], (n, step)
                again = position_to_state(json.loads(json.dumps(obs)), seed=step)
                assert again.observation() == obs
                assert again.legal_actions() == state.legal_actions()
                assert again.pending() == state.pending()
            state.apply(rng.choice(state.legal_actions()))
            step += 1
        assert check_position(state.observation()) == []


def test_observation_is_the_same_for_every_seat():
    state = after_random_decisions(3, 5, 40)
    assert state.observation(0) == state.observation(1) == state.observation(2) == state.observation()


def test_non_default_components_round_trip():
    comps = load_components(EXAMPLES / "components-example.toml")
    rng = random.Random(3)
    state = Game(3, comps).new_initial_state(3)
    for _ in range(60):
        state.apply(rng.choice(state.legal_actions()))
    obj = state.to_json()
    assert obj["components"]["gp_lap_length"] == 14
    assert "research_cards" not in obj["components"]  # only the fields that differ
    again = position_to_state(json.loads(json.dumps(obj)))
    assert again.to_json() == obj
    assert again.game.components.gp_lap_length == 14


def test_doc_example_position():
    """The hand-written example of docs/formats.md loads and derives what the doc says."""
    blocks = re.findall(r"```json\n(.*?)```", DOC.read_text(), re.S)
    pos, seat0 = json.loads(blocks[0]), json.loads(blocks[1])
    assert check_position(pos) == []
    obs = position_to_state(pos, seed=7).observation()
    assert obs["seats"][0] == seat0
    assert obs["buyers"]["stacks"] == {"body": 2, "engine": 2, "prestige": 2, "price": 1}
    assert obs["prices"] == [2, 3, 5, 6, 9, 11, 12]
    assert obs["turn"] == {"seat": 1, "remaining": [], "marker_placed": False, "car": []}
    assert obs["pending"] == [["turn", 0]]


def test_doc_lists_every_task_kind():
    text = DOC.read_text()
    for kind in TASKS:
        assert f"| `{kind}` |" in text, kind


# ---------------------------------------------------------------------------
# Round trip and hidden information
# ---------------------------------------------------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.sampled_from([2, 3, 4]), seed=st.integers(0, 2**32 - 1), moves=st.integers(0, 260))
def test_round_trip_parse_print_parse(n, seed, moves):
    state = after_random_decisions(n, seed, moves)
    obj = state.to_json()
    text = json.dumps(obj)
    again = position_to_state(json.loads(text))
    assert again.to_json() == obj
    assert json.dumps(again.to_json()) == text
    assert again.legal_actions() == state.legal_actions()
    assert again.is_terminal() == state.is_terminal()
    # The hidden part is complete: both go on identically.
    rng = random.Random(seed)
    for _ in range(25):
        if state.is_terminal():
            break
        a = rng.choice(state.legal_actions())
        state.apply(a)
        again.apply(a)
    assert again.to_json() == state.to_json()


def test_loaded_state_has_the_same_player_to_move():
    """A state saved while a car is being put on the market loads with the same seat to decide."""
    checked = Counter()
    for n in (2, 3, 4):
        for seed in range(12):
            rng = random.Random(seed)
            state = Game(n).new_initial_state(seed)
            while not state.is_terminal():
                again = position_to_state(state.to_json())
                assert again.current_player() == state.current_player(), (n, seed, state.pending())
                checked[state.pending()] += 1
                state.apply(rng.choice(state.legal_actions()))
    assert checked["market_workers"] > 0 and checked["market_price"] > 0


def test_to_json_hidden_part():
    state = after_random_decisions(4, 9, 30)
    obj = state.to_json()
    hidden = obj.pop("hidden")
    assert obj == state.observation()
    names = [ct.name for ct in state.game.components.card_types]
    ref = reference(state)
    assert hidden["deck"] == [names[i] for i in ref.deck]
    assert dict(sorted(Counter(hidden["deck"]).items())) == obj["research"]["undrawn"]
    assert int(hidden["rng"], 16) == ref.rng
    assert re.fullmatch(r"[0-9a-f]{16}", hidden["rng"])


def test_position_without_hidden_gets_a_seeded_deck_order():
    pos = minimal(2, research={"display": ["Opel", "dev:body1"]})
    decks = {seed: position_to_state(pos, seed=seed).to_json()["hidden"]["deck"] for seed in range(8)}
    assert position_to_state(pos, seed=3).to_json()["hidden"] == position_to_state(pos, seed=3).to_json()["hidden"]
    assert len({tuple(d) for d in decks.values()}) >= 7  # different seeds give different orders
    for deck in decks.values():
        assert sorted(deck) == undrawn_cards(pos)
    assert position_to_state(pos).to_json() == position_to_state(pos, seed=0).to_json()


def test_hidden_deck_order_is_honoured():
    pos = minimal(2, research={"display": ["Diesel", "Opel"]})
    deck = [c for c in undrawn_cards(pos) if c not in ("Benz", "Horch")] + ["Benz", "Horch"]  # top last
    pos["hidden"] = {"deck": deck, "rng": "2a"}
    state = position_to_state(pos)
    assert state.to_json()["hidden"] == {"deck": deck, "rng": f"{0x2a:016x}"}
    state.play("tile 4")  # the research tile
    state.play("take research:Diesel")
    assert state.observation()["research"]["display"] == ["Horch", "Benz"]
    assert state.observation()["research"]["discard"] == ["Opel"]


def test_hidden_rng_may_be_omitted():
    pos = minimal(2)
    pos["hidden"] = {"deck": undrawn_cards(pos)}
    state = position_to_state(pos)
    assert state.rng == 0


# ---------------------------------------------------------------------------
# Invalid positions: every kind of problem, with its JSON path
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("obj", [[], "position", None, 3, [minimal()]])
def test_not_an_object(obj):
    probs = check_position(obj)
    assert len(probs) == 1 and probs[0][0] == "$"
    assert "expected a JSON object" in probs[0][1]
    with pytest.raises(InvalidPositionError) as err:
        position_to_state(obj)
    assert err.value.problems == probs


@pytest.mark.parametrize("tag", [None, "kwsearch-position/2", "kwsearch-game/1", 1])
def test_wrong_format_tag(tag):
    pos = minimal()
    if tag is None:
        del pos["format"]
    else:
        pos["format"] = tag
    assert paths(pos) == ["$.format"]
    assert_invalid(pos, "$.format", "kwsearch-position/1")


@pytest.mark.parametrize("players", [1, 5, "2", True, None])
def test_wrong_player_count(players):
    pos = minimal()
    pos["players"] = players
    assert paths(pos) == ["$.players"]
    assert_invalid(pos, "$.players", "expected 2, 3 or 4")


def test_seat_count_must_match_players():
    pos = minimal(2)
    pos["seats"].append({"money": 0, "canteen": 4, "workshops": []})
    assert_invalid(pos, "$.seats", "expected 2 seats", "got 3")
    pos = minimal(3)
    pos["seats"].pop()
    assert_invalid(pos, "$.seats", "expected 3 seats", "got 2")


def test_a_card_too_often():
    pos = minimal(2, research={"display": ["Opel"]})
    pos["seats"][1]["engineers"] = ["Opel"]
    assert_invalid(pos, "$.research", "Opel appears 2 times", "the game has 1")
    pos = minimal(2, research={"discard": ["gp5"] * 4})
    assert_invalid(pos, "$.research", "gp5 appears 4 times", "the game has 3")


def test_a_card_missing_from_an_explicit_undrawn_list():
    pos = minimal(2, research={"undrawn": {"hire3": 3}})
    msg = problem(pos, "$.research")
    assert "missing cards" in msg


def test_unknown_card_name():
    pos = minimal(2, research={"display": ["Frobnicator"]})
    assert_invalid(pos, "$.research.display[0]", "unknown research card", "Frobnicator")
    pos = minimal(2)
    pos["seats"][0]["developments"] = ["dev:body1", "dev:wheel"]
    assert_invalid(pos, "$.seats[0].developments[1]", "dev:wheel")
    pos = minimal(2)
    pos["seats"][0]["engineers"] = ["dev:body1"]  # a development is not an engineer
    assert_invalid(pos, "$.seats[0].engineers[0]", "development card, expected a engineer")


def test_fifteen_workers_for_a_seat():
    pos = minimal(2)
    pos["seats"][0]["supply"] = 9  # 9 + canteen 4 + 2 markers = 15
    assert_invalid(pos, "$.seats[0].supply", "15 workers in total", "each seat has 14")
    pos = minimal(2)
    pos["seats"][1].update(canteen=12, developments=["dev:body1"])  # supply derived: 14 - 15 < 0
    assert_invalid(pos, "$.seats[1]", "15 workers are in play", "14")


def test_tile_value_out_of_range_in_a_workshop():
    pos = minimal(2)
    pos["seats"][0]["workshops"] = ["engine 2", "body 9"]
    assert_invalid(pos, "$.seats[0].workshops[1]", "body 9", "1..7")
    pos = minimal(2)
    pos["seats"][1]["workshops"] = ["wheel 2"]
    assert_invalid(pos, "$.seats[1].workshops[0]", "wheel 2")


def test_more_than_three_workshop_tiles():
    pos = minimal(2)
    pos["seats"][0]["workshops"] = ["body 1", "body 2", "engine 1", "engine 2"]
    assert_invalid(pos, "$.seats[0].workshops", "3 workshops")


def test_more_tiles_in_play_than_the_game_has():
    pos = minimal(4)
    for s in pos["seats"]:
        s["workshops"] = ["body 7", "body 7"]  # 8 bodies of value 7; the game has 4
    assert_invalid(pos, "$.supply.body", "8 body tiles of value 7", "the game has 4")


def test_given_supply_disagrees_with_tiles_in_play():
    c = default_components()
    pos = minimal(2, supply={"body": list(c.body_tiles), "engine": list(c.engine_tiles)})
    pos["seats"][0]["workshops"] = ["body 3"]
    assert_invalid(pos, "$.supply.body[2]", "expected 5")
    pos["supply"] = {"body": [1, 2, 3], "engine": list(c.engine_tiles)}
    assert_invalid(pos, "$.supply.body", "expected 7 counts")


@pytest.mark.parametrize("chain, path", [
    (["seat 0", "seat 1"] + [f"tile {t}" for t in range(9)], "$.chain"),            # a tile missing
    (["seat 0", "seat 1"] + [f"tile {t}" for t in range(10)] + ["tile 3"], "$.chain"),  # a tile twice
    (["seat 0", "seat 0"] + [f"tile {t}" for t in range(10)], "$.chain"),          # a seat twice
    (["seat 0", "seat 2"] + [f"tile {t}" for t in range(10)], "$.chain[1]"),       # no seat 2 with 2 players
    (["seat 0", "seat 1"] + [f"tile {t}" for t in range(9)] + ["tile 10"], "$.chain[11]"),
    (["seat 0", "seat 1"] + [f"tile {t}" for t in range(9)] + [9], "$.chain[11]"),
])
def test_chain_not_a_permutation(chain, path):
    pos = minimal(2, chain=chain)
    assert path in paths(pos)
    if path == "$.chain":
        assert_invalid(pos, path, "exactly once")
    else:
        assert_invalid(pos, path, "expected \"seat S\"")


def test_turn_needs_a_worker_at_the_tail():
    pos = minimal(2, chain=["tile 0", "seat 0", "seat 1"] + [f"tile {t}" for t in range(1, 10)])
    assert_invalid(pos, "$.chain", "tail of the chain must be a worker")


@pytest.mark.parametrize("field, value", [("money", -1), ("money", "5"), ("money", 2.5), ("canteen", -2),
                                          ("laps", -1), ("gp_engine", 0), ("gp_engine", 8)])
def test_seat_numbers_out_of_range(field, value):
    pos = minimal(2)
    pos["seats"][1][field] = value
    assert f"$.seats[1].{field}" in paths(pos)
    with pytest.raises(InvalidPositionError):
        position_to_state(pos)


def test_money_below_zero():
    pos = minimal(2)
    pos["seats"][0]["money"] = -3
    assert_invalid(pos, "$.seats[0].money", "-3 is out of range")


def test_missing_required_seat_field():
    pos = minimal(2)
    del pos["seats"][1]["money"]
    assert_invalid(pos, "$.seats[1].money", "missing")


def test_price_marker_not_of_this_round():
    pos = minimal(2, round=2, market=[{"owner": 0, "body": 1, "engine": 1, "workers": 1, "price": 1}])
    pos["seats"][0]["canteen"] = 3
    assert_invalid(pos, "$.market[0].price", "not a price marker of round 2")
    pos = minimal(2, prices=[1, 2, 3, 4])
    assert_invalid(pos, "$.prices[3]", "4 is not a price marker of round 1")


def test_price_marker_on_two_cars():
    car = {"owner": 0, "body": 1, "engine": 1, "workers": 1, "price": 5}
    pos = minimal(2, market=[car, dict(car, owner=1)])
    assert_invalid(pos, "$.market[1].price", "price marker 5 is on two cars")
    pos = minimal(2, market=[car], prices=[1, 5])
    assert_invalid(pos, "$.prices[1]", "already on a car")


def test_two_cars_on_one_race_space():
    pos = minimal(4)
    pos["seats"][0]["space"] = 5
    pos["seats"][2]["space"] = 5
    assert_invalid(pos, "$.seats[0].space", "occupied")
    assert "$.seats[2].space" in paths(pos)
    pos = minimal(2)
    pos["seats"][1]["space"] = 3  # a neutral car stands there with two players
    assert_invalid(pos, "$.seats[1].space", "occupied")


def test_laps_in_the_pit_lane():
    pos = minimal(2)
    pos["seats"][0]["laps"] = 1
    assert_invalid(pos, "$.seats[0].laps", "pit lane")


def test_start_tile_not_offered():
    pos = minimal(2)  # A and B are offered by default with two players
    pos["seats"][1]["start_tile"] = "C"
    assert_invalid(pos, "$.seats[1].start_tile", "C was not offered")


def test_start_tile_taken_twice_or_missing():
    pos = minimal(3)
    pos["seats"][2]["start_tile"] = "A"
    assert_invalid(pos, "$.seats[2].start_tile", "also seat 0's")
    pos = minimal(3)
    del pos["seats"][1]["start_tile"]
    assert_invalid(pos, "$.seats[1].start_tile", "missing")


def test_start_tiles_offered():
    assert_invalid(minimal(2, start_tiles_offered=["A", "Z"]), "$.start_tiles_offered[1]", "\"Z\"")
    assert_invalid(minimal(2, start_tiles_offered=["A", "A"]), "$.start_tiles_offered[1]", "repeated")
    assert_invalid(minimal(2, start_tiles_offered=["A", "B", "C"]), "$.start_tiles_offered",
                   "expected 2 start tiles for 2 players")


def test_hidden_deck_not_a_permutation_of_the_undrawn_cards():
    pos = minimal(2)
    deck = undrawn_cards(pos)
    for bad in (deck[:-1], deck + ["Opel"], deck[:-1] + ["hire3" if deck[-1] != "hire3" else "gp5"]):
        p = dict(pos, hidden={"deck": bad, "rng": "0"})
        assert_invalid(p, "$.hidden.deck", "permutation of the undrawn cards")
    p = dict(pos, hidden={"deck": deck[:-1] + ["Zeppelin"], "rng": "0"})
    assert "$.hidden.deck[49]" in paths(p)
    p = dict(pos, hidden={"deck": deck, "rng": "xyz"})
    assert_invalid(p, "$.hidden.rng", "hexadecimal")


def test_engineer_markers():
    pos = minimal(2)
    pos["seats"][0]["markers"] = {"maybach": [1]}  # Maybach is not owned
    assert_invalid(pos, "$.seats[0].markers.maybach[0]", "not owned")
    pos = minimal(2)
    pos["seats"][0]["engineers"] = ["Horch"]
    pos["seats"][0]["markers"] = {"horch": [2, 2]}
    assert_invalid(pos, "$.seats[0].markers.horch[1]", "once each")
    pos["seats"][0]["markers"] = {"horch": [3]}
    assert_invalid(pos, "$.seats[0].markers.horch[0]", "expected values from [1, 2]")
    pos = minimal(2)
    pos["seats"][0]["engineers"] = ["Diesel", "Diesel"]
    assert_invalid(pos, "$.seats[0].engineers[1]", "listed twice")


def test_buyers():
    pos = minimal(2, buyers={"active": [{"preference": "colour"}]})
    assert_invalid(pos, "$.buyers.active[0].preference", "colour")
    pos = minimal(2, buyers={"active": [{"preference": "body"}], "stacks": {"body": 2, "engine": 2,
                                                                            "prestige": 2, "price": 2}})
    assert_invalid(pos, "$.buyers.stacks.body", "is not the game's 2 body buyers")
    pos = minimal(2, buyers={"active": [{"preference": "body", "daimler": 3}]})
    assert_invalid(pos, "$.buyers.active[0].daimler", "Daimler marker")
    pos = minimal(2, buyers={"active": [{"preference": "body"}] * 3})
    assert_invalid(pos, "$.buyers.active", "more than 2 active body buyers")


def test_awards_and_phase():
    assert_invalid(minimal(2, awards={"gp3": 0}), "$.awards.gp3", "unknown award")
    assert_invalid(minimal(2, awards={"gp1": 2}), "$.awards.gp1", "out of range")
    assert_invalid(minimal(2, phase="lunch"), "$.phase", "lunch")


def test_pending_task_kinds():
    assert_invalid(minimal(2, pending=[["dance", 0]]), "$.pending[0]", "game.TASKS")
    assert_invalid(minimal(2, pending=[["turn"]]), "$.pending[0]", "[task, integer]")
    assert_invalid(minimal(2, pending=[]), "$.pending", "needs a pending decision")
    assert_invalid(minimal(2, pending=[["market_price", 0]]), "$.turn", "give \"turn\"")


def test_round_out_of_range():
    """A round beyond the game's last is reported, not a crash."""
    for rnd in (0, 4, 99):
        pos = minimal(2, round=rnd)
        assert_invalid(pos, "$.round", "out of range")


def test_pending_place_task_needs_a_tile_code():
    """A pending ``place`` task must carry a workshop tile code (body 1..7 = 1..7, engine 1..7 = 9..15).

    Accepting ``["place", 99]`` puts an "engine 91" into a workshop, and the position written
    back does not load again.
    """
    pos = minimal(2, pending=[["place", 99]], turn={"seat": 0})
    assert any(p.startswith("$.pending") for p in paths(pos)), check_position(pos)


def test_pending_market_marker_needs_the_car():
    """A pending ``market_marker`` task without the car's parts in ``turn.car`` is reported.

    Accepted, the position offers "market no-marker", and playing it crashes (the car is empty).
    """
    pos = minimal(2, pending=[["end_turn", 0], ["market_marker", 0]], turn={"seat": 0})
    pos["seats"][0]["engineers"] = ["Maybach"]
    assert any(p.startswith(("$.pending", "$.turn")) for p in paths(pos)), check_position(pos)


def test_prices_derived_without_the_car_under_construction():
    """With ``prices`` omitted, the price marker already on the car being built is not available.

    Otherwise the marker is both on the car and in ``prices``: after the car is placed the
    position written back fails its own check ("price marker 5 is already on a car").
    """
    pos = minimal(2, pending=[["end_turn", 0], ["daimler", 0], ["market_marker", 0]],
                  turn={"seat": 0, "car": [1, 1, 1, 5]})
    pos["seats"][0].update(canteen=3, engineers=["Maybach"])
    state = position_to_state(pos)
    assert 5 not in state.observation()["prices"]
    state.play("market no-marker")
    assert check_position(state.observation()) == []


def test_several_problems_are_all_reported():
    pos = minimal(3)
    pos["format"] = "kwsearch-position/0"
    pos["seats"][0]["money"] = -1
    pos["seats"][1]["workshops"] = ["body 9"]
    pos["seats"][2]["developments"] = ["dev:nothing"]
    pos["chain"] = pos["chain"][:-1]
    pos["market"] = [{"owner": 0, "body": 1, "engine": 1, "workers": 1, "price": 4}]
    got = paths(pos)
    for want in ("$.format", "$.seats[0].money", "$.seats[1].workshops[0]", "$.seats[2].developments[0]",
                 "$.chain", "$.market[0].price"):
        assert want in got, (want, got)
    with pytest.raises(InvalidPositionError) as err:
        position_to_state(pos, source="pos.json")
    exc = err.value
    assert exc.problems == check_position(pos)
    assert len(exc.problems) >= 6
    assert isinstance(exc, KwsearchError) and isinstance(exc, ValueError)
    assert str(exc).startswith("pos.json: $.format:")
    assert f"(and {len(exc.problems) - 1} more problems)" in str(exc)


def test_position_to_state_is_from_json():
    pos = minimal(2)
    assert position_to_state(pos, seed=4).to_json() == position_to_state(pos, seed=4).to_json()
    bad = dict(pos, phase=None)
    with pytest.raises(InvalidPositionError):
        position_to_state(bad)


def test_check_does_not_modify_its_input():
    pos = minimal(2)
    pos["seats"][0]["workshops"] = ["engine 3", "body 2"]
    before = copy.deepcopy(pos)
    check_position(pos)
    position_to_state(pos)
    assert pos == before


def test_components_field():
    pos = minimal(2, components={"gp_lap_length": 14})
    state = position_to_state(pos)
    assert state.game.components.gp_lap_length == 14
    assert state.observation()["components"] == {"gp_lap_length": 14}
    pos = minimal(2, components={"gp_lap_length": "long"})
    assert paths(pos) == ["$.components"]
    assert DEFAULTS["gp_lap_length"] == 12
