"""Game records ``kwsearch-game/1`` (docs/formats.md): recording, replaying, reveals and errors."""

from __future__ import annotations

import copy
import json
import random
import re
from pathlib import Path

import pytest

from kwsearch.engine import reference
from kwsearch.errors import InvalidRecordError, KwsearchError
from kwsearch.records import RECORD_FORMAT, Recorder, count_decisions, load_file, new_record, replay
from kwsearch.rules import Game

pytestmark = pytest.mark.one_engine  # engine-independent (see conftest.py)

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
DOC = ROOT / "docs" / "formats.md"


def is_reveal(event: str) -> bool:
    return event.lower().startswith("reveal")


def record_game(n: int, seed: int, stop_after: int | None = None) -> tuple[Recorder, list[dict]]:
    """A random game recorded; also the to_json() of the state after each decision (index = decisions)."""
    rng = random.Random(seed * 31 + n)
    rec = Recorder.start(Game(n), seed=seed)
    states = [rec.state.to_json()]
    while not rec.state.is_terminal() and (stop_after is None or len(states) <= stop_after):
        rec.apply(rng.choice(rec.state.legal_actions()))
        states.append(rec.state.to_json())
    return rec, states


def example(name: str) -> dict:
    return json.loads((EXAMPLES / name).read_text())


def replay_error(record: dict, **kw) -> InvalidRecordError:
    with pytest.raises(InvalidRecordError) as err:
        replay(record, **kw)
    return err.value


# ---------------------------------------------------------------------------
# Recording and replaying
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_record_and_replay_round_trip(n, seed):
    rec, _ = record_game(n, seed)
    record = json.loads(json.dumps(rec.record))
    assert record["format"] == RECORD_FORMAT and record["players"] == n and record["seed"] == seed
    state = replay(record)
    assert state.is_terminal()
    assert state.to_json() == rec.state.to_json()  # the hidden part too: same seed, same deck
    assert record["result"] == {"money": state.money()}
    assert all(isinstance(e, str) for e in record["events"])
    assert not is_reveal(record["events"][0])


def test_new_record_header():
    game = Game(3)
    rec = new_record(game, seed=11, seat_names=["a", "b", "c"])
    state = game.new_initial_state(11)
    assert rec["format"] == "kwsearch-game/1"
    assert rec["events"] == [] and "result" not in rec
    assert rec["setup"]["seats"] == ["a", "b", "c"]
    assert rec["setup"]["chain"][:3] == ["seat 0", "seat 1", "seat 2"]
    assert rec["setup"]["start_tiles_offered"] == ["A", "B", "C", "D"]
    names = [ct.name for ct in game.components.card_types]
    assert rec["setup"]["display"] == [names[i] for i in reference(state).display]
    assert replay(rec).to_json() == state.to_json()
    assert new_record(Game(2))["setup"]["seats"] == ["P1", "P2"]
    assert Recorder.start(game, seed=11, seat_names=["a", "b", "c"]).record == rec


def test_recorder_logs_reveals_after_the_drawing_decision():
    rec, _ = record_game(2, 4)
    events = rec.record["events"]
    reveals = [i for i, e in enumerate(events) if is_reveal(e)]
    assert reveals, "a random game takes research cards"
    for i in reveals:
        assert not is_reveal(events[i - 1])  # one reveal event per decision
        cards = events[i][len("reveal "):].split(", ")
        assert 1 <= len(cards) <= 2
    assert count_decisions(rec.record) == len(events) - len(reveals)


def test_recorder_play_returns_the_action():
    rec = Recorder.start(Game(2), seed=7)
    legal = rec.state.legal_actions()
    a = rec.play(rec.state.action_to_text(legal[-1]))
    assert a == legal[-1]
    assert rec.record["events"] == [rec.state.action_to_text(a)]


@pytest.mark.parametrize("n", [2, 3, 4])
def test_replay_with_another_seed_gives_the_same_observations(n):
    rec, _ = record_game(n, 5)
    record = json.loads(json.dumps(rec.record))
    total = count_decisions(record)
    other = dict(record, seed=987654)
    hidden_differs = False
    for k in sorted({0, 1, total // 3, total // 2, total - 1, total}):
        a, b = replay(record, upto=k), replay(other, upto=k)
        assert a.observation() == b.observation(), k
        assert a.legal_actions() == b.legal_actions()
        hidden_differs |= a.to_json()["hidden"] != b.to_json()["hidden"]
    assert hidden_differs  # the undrawn cards are ordered by the seed, only the reveals are forced
    assert replay(other).money() == record["result"]["money"]


def test_upto_counts_decisions_only():
    rec, states = record_game(3, 8, stop_after=60)
    record = rec.record
    assert count_decisions(record) == len(states) - 1 == 60
    assert any(is_reveal(e) for e in record["events"])
    for k in (0, 1, 5, 17, 33, 59, 60):
        assert replay(record, upto=k).to_json() == states[k], k
    assert replay(record).to_json() == states[-1]
    err = replay_error(record, upto=61)
    assert err.index is None and "ply 61" in str(err) and "only 60 decisions" in str(err)


def test_upto_zero_is_the_set_up():
    record = example("game-4p.json")
    state = replay(record, upto=0)
    assert state.to_json() == Game(4).new_initial_state(record["seed"]).to_json()
    assert state.pending() == "setup"


# ---------------------------------------------------------------------------
# Bundled examples and the doc's example
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["game-4p.json", "game-2p.json"])
def test_bundled_examples_replay_to_their_result(name):
    record = example(name)
    state = replay(record)
    assert state.is_terminal()
    assert state.money() == record["result"]["money"]
    state2, obj = load_file(EXAMPLES / name)
    assert obj == record and state2.to_json() == state.to_json()
    with pytest.raises(KwsearchError, match="ply"):
        load_file(EXAMPLES / name, ply=count_decisions(record) + 1)
    assert load_file(EXAMPLES / name, ply=3)[0].to_json() == replay(record, upto=3).to_json()


def test_load_file_dispatches_on_the_format(tmp_path):
    state, obj = load_file(EXAMPLES / "midgame-4p.json")
    assert obj["format"] == "kwsearch-position/1" and state.observation() == obj
    with pytest.raises(KwsearchError, match="--ply applies to game records"):
        load_file(EXAMPLES / "midgame-4p.json", ply=2)
    other = tmp_path / "x.json"
    other.write_text(json.dumps({"format": "something/1"}))
    with pytest.raises(KwsearchError, match=r"x\.json: format"):
        load_file(other)


def test_doc_example_record():
    blocks = re.findall(r"```json\n(.*?)```", DOC.read_text(), re.S)
    records = [json.loads(b) for b in blocks if '"kwsearch-game/1"' in b]
    assert len(records) == 1
    doc = records[0]
    assert doc == HAND_TYPED  # the doc's example is the hand-typed game tested below
    assert replay(doc).observation()["research"]["display"] == ["gp5", "Maybach"]


# ---------------------------------------------------------------------------
# A game typed in from a real table
# ---------------------------------------------------------------------------


HAND_TYPED = {
    "format": "kwsearch-game/1",
    "players": 2,
    "seed": 99,
    "setup": {
        "seats": ["Ann", "Bob"],
        "chain": ["seat 0", "seat 1", "tile 0", "tile 1", "tile 2", "tile 3", "tile 4", "tile 5",
                  "tile 6", "tile 7", "tile 8", "tile 9"],
        "start_tiles_offered": ["C", "D"],
        "display": ["Diesel", "Opel"],
    },
    "events": [
        "start d",                    # Bob (seat 1) chooses first; Ann gets C without a decision
        "do research",
        "take research:Opel",
        "reveal Benz, Horch",
        "Tile 4",                     # Ann takes the research tile
        "take research: Horch",
        "reveal: gp5, Maybach",
    ],
}


def hand_typed() -> dict:
    return copy.deepcopy(HAND_TYPED)


def test_hand_typed_record_replays():
    record = hand_typed()
    state = replay(record)
    obs = state.observation()
    assert [s["start_tile"] for s in obs["seats"]] == ["C", "D"]
    assert [s["engineers"] for s in obs["seats"]] == [["Horch"], ["Opel"]]
    assert obs["research"]["display"] == ["gp5", "Maybach"]
    assert obs["research"]["discard"] == ["Diesel", "Benz"]
    assert state.current_player() == 1 and state.pending() == "turn"
    assert count_decisions(record) == 5
    # The reveals fix every card that came up: the seed does not matter.
    for seed in (0, 1, 12345):
        assert replay(dict(record, seed=seed)).observation() == obs
    # After "take research:Opel" the named cards came up in order.
    after = replay(record, upto=3).observation()
    assert after["research"]["display"] == ["Benz", "Horch"]
    assert after["research"]["discard"] == ["Diesel"]


def test_setup_may_be_omitted():
    record = {"format": "kwsearch-game/1", "players": 3, "seed": 4, "events": []}
    assert replay(record).to_json() == Game(3).new_initial_state(4).to_json()
    record = {"format": "kwsearch-game/1", "players": 2}
    assert replay(record).to_json() == Game(2).new_initial_state(0).to_json()


def test_setup_display_with_one_card():
    record = {"format": "kwsearch-game/1", "players": 2, "seed": 3, "setup": {"display": ["Otto"]}}
    state = replay(record)
    assert state.observation()["research"]["display"][0] == "Otto"
    assert len(state.display) == 2


# ---------------------------------------------------------------------------
# The first bad event
# ---------------------------------------------------------------------------


def test_illegal_move():
    record = hand_typed()
    state = replay(record, upto=3)
    legal = [state.action_to_text(a) for a in state.legal_actions()]
    assert "market pass" not in legal
    record["events"][4] = "market pass"  # good notation, not legal at a turn
    err = replay_error(record)
    assert (err.index, err.event) == (4, "market pass")
    assert err.legal == legal
    assert "event 4" in str(err) and "'market pass'" in str(err)


def test_unparsable_event():
    record = hand_typed()
    state = replay(record, upto=1)
    record["events"][1] = "fly to the moon"
    err = replay_error(record)
    assert (err.index, err.event) == (1, "fly to the moon")
    assert err.legal == [state.action_to_text(a) for a in state.legal_actions()]
    assert "fly to the moon" in str(err)


def test_only_the_first_bad_event_is_reported():
    record = hand_typed()
    record["events"][2] = "nonsense"
    record["events"][4] = "more nonsense"
    assert replay_error(record).index == 2
    with pytest.raises(InvalidRecordError):
        replay(record, upto=3)
    assert replay(record, upto=2).pending() == "research"  # the good prefix still replays


def test_event_that_is_not_a_string():
    record = hand_typed()
    record["events"][1] = 42
    err = replay_error(record)
    assert err.index == 1 and "expected a string" in str(err)


def test_reveal_of_a_card_that_is_not_undrawn():
    record = hand_typed()
    record["events"][3] = "reveal Diesel, Horch"  # Diesel was face up at the start: not undrawn
    err = replay_error(record)
    assert (err.index, err.event) == (3, "reveal Diesel, Horch")
    assert "no undrawn Diesel" in str(err)


def test_reveal_of_more_cards_than_were_drawn():
    record = hand_typed()
    record["events"][3] = "reveal Benz, Horch, hire3"
    err = replay_error(record)
    assert err.index == 3 and "names 3 cards but the decision turned up 2" in str(err)
    # Split over two reveal events: the second one is reported.
    record["events"][3:4] = ["reveal Benz, Horch", "reveal hire3"]
    err = replay_error(record)
    assert (err.index, err.event) == (4, "reveal hire3")


def test_reveal_after_a_decision_that_drew_nothing():
    record = hand_typed()
    record["events"].insert(1, "reveal gp5")
    err = replay_error(record)
    assert (err.index, err.event) == (1, "reveal gp5")
    assert "turned up 0" in str(err)


def test_reveal_with_no_preceding_decision():
    record = hand_typed()
    record["events"].insert(0, "reveal gp5")
    err = replay_error(record)
    assert (err.index, err.event) == (0, "reveal gp5")
    assert "follows no decision" in str(err)


def test_reveal_of_an_unknown_card_or_no_card():
    record = hand_typed()
    record["events"][3] = "reveal Benz, Zeppelin"
    err = replay_error(record)
    assert err.index == 3 and "Zeppelin" in str(err)
    record["events"][3] = "reveal"
    err = replay_error(record)
    assert err.index == 3 and "names no card" in str(err)


def test_reveals_may_be_split_and_change_the_cards():
    record = hand_typed()
    record["events"][3:4] = ["REVEAL gp5", "reveal Otto"]
    state = replay(record, upto=3)
    assert state.observation()["research"]["display"] == ["gp5", "Otto"]


def test_a_reveal_may_name_fewer_cards_than_were_drawn():
    record = hand_typed()
    record["events"][3] = "reveal Otto"
    record["events"] = record["events"][:4]
    display = replay(record).observation()["research"]["display"]
    assert display[0] == "Otto" and len(display) == 2  # the second card comes off the seeded deck


def test_error_names_the_source():
    record = hand_typed()
    record["events"][1] = "nonsense"
    err = replay_error(record, source="game.json")
    assert str(err).startswith("game.json: event 1")
    assert err.index == 1 and err.legal


# ---------------------------------------------------------------------------
# Bad headers
# ---------------------------------------------------------------------------


def header_error(change) -> InvalidRecordError:
    record = hand_typed()
    change(record)
    err = replay_error(record)
    assert err.index is None
    return err


@pytest.mark.parametrize("tag", ["kwsearch-game/2", "kwsearch-position/1", None])
def test_wrong_format_tag(tag):
    err = header_error(lambda r: r.update(format=tag))
    assert "format" in str(err) and "kwsearch-game/1" in str(err)


@pytest.mark.parametrize("players", [1, 5, "2", True, None])
def test_bad_players(players):
    err = header_error(lambda r: r.update(players=players))
    assert str(err).startswith("players:")


def test_not_an_object():
    for obj in ([], "record", None):
        err = replay_error(obj)
        assert "expected a JSON object" in str(err)


def test_bad_seed_v6_and_events():
    assert "seed" in str(header_error(lambda r: r.update(seed="seven")))
    assert "v6" in str(header_error(lambda r: r.update(v6="yes")))
    assert "events" in str(header_error(lambda r: r.update(events="start A")))
    assert "components" in str(header_error(lambda r: r.update(components={"gp_lap_length": -1})))
    assert "setup" in str(header_error(lambda r: r.update(setup=["x"])))


@pytest.mark.parametrize("chain", [
    ["seat 1", "seat 0"] + [f"tile {t}" for t in range(10)],          # seats out of order
    ["seat 0", "seat 1"] + [f"tile {t}" for t in range(9)],           # a tile missing
    ["seat 0", "seat 1"] + [f"tile {t}" for t in range(10)] + ["tile 0"],
    ["seat 0", "seat 1", "seat 2"] + [f"tile {t}" for t in range(10)],  # no seat 2 with two players
    ["seat 0", "seat 1"] + [f"tile {t}" for t in range(9)] + ["car 9"],
    "seat 0, seat 1",
])
def test_bad_setup_chain(chain):
    err = header_error(lambda r: r["setup"].update(chain=chain))
    assert str(err).startswith("setup.chain")


@pytest.mark.parametrize("offered", [["A"], ["A", "A"], ["A", "Z"], ["A", "B", "C"], "A, D", [1, 2]])
def test_bad_start_tiles_offered(offered):
    err = header_error(lambda r: r["setup"].update(start_tiles_offered=offered))
    assert str(err).startswith("setup.start_tiles_offered")


def test_unknown_card_in_setup_display():
    err = header_error(lambda r: r["setup"].update(display=["Horch", "Zeppelin"]))
    assert str(err).startswith("setup.display[1]") and "Zeppelin" in str(err)
    err = header_error(lambda r: r["setup"].update(display=["Opel", "Opel"]))  # only one Opel
    assert str(err).startswith("setup.display[1]")
    err = header_error(lambda r: r["setup"].update(display=["gp5", "gp5", "gp5"]))
    assert str(err).startswith("setup.display")


def test_setup_with_other_tiles_and_offer():
    record = hand_typed()
    record["setup"]["chain"] = ["seat 0", "seat 1"] + [f"tile {t}" for t in range(9, -1, -1)]
    record["setup"]["start_tiles_offered"] = ["b", "c"]
    record["events"] = ["start C"]  # seat 1 takes C; seat 0 gets B without a decision
    obs = replay(record).observation()
    assert obs["start_tiles_offered"] == ["B", "C"]
    assert [s["start_tile"] for s in obs["seats"]] == ["B", "C"]
