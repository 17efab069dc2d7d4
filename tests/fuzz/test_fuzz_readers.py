"""Fuzz targets for every reader: positions, game records, component files (JSON and TOML).

Each target asserts "a clean KwsearchError, or a state both engines play
identically" (tests/fuzz/fuzzing.py). Inputs are mutations of real files —
positions and records of random games, the default components — and raw text.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuzzing import FUZZ, VOCAB, clean, json_values, lockstep, mutate, sample_states, toml_value
from kwsearch.components import DEFAULTS, components_from_dict, load_components
from kwsearch.formats import check_position, position_to_state
from kwsearch.jsonload import loads_json
from kwsearch.records import Recorder, replay
from kwsearch.rules import Game

pytestmark = pytest.mark.one_engine  # each target compares both engines itself


# ---------------------------------------------------------------------------
# Positions
# ---------------------------------------------------------------------------


@FUZZ
@given(data=st.data(), v6=st.booleans(), reachable=st.booleans())
def test_fuzz_position(data, v6, reachable):
    base = data.draw(st.sampled_from(sample_states(v6)), label="position")
    if data.draw(st.booleans(), label="observation only"):
        base = {k: v for k, v in base.items() if k != "hidden"}
    obj = mutate(data, base)
    try:
        state = position_to_state(obj, reachable=reachable)
    except Exception as exc:  # noqa: BLE001 - the property is about which exceptions
        clean(exc)
        assert check_position(obj, reachable=reachable)  # the two entry points agree
        return
    assert check_position(obj, reachable=reachable) == []
    again = position_to_state(state.to_json())  # what a valid file becomes is itself valid
    assert again.to_json() == state.to_json()
    lockstep(state, seed=data.draw(st.integers(0, 99), label="moves"))


@FUZZ
@given(text=st.text(max_size=200) | st.sampled_from(["[" * 1000, "{" * 40, '{"a": 1e400}', '{"a": NaN}',
                                                     '{"a": 1, "a": 2}', "9" * 5000, '"\\ud800"']))
def test_fuzz_json_text(text):
    try:
        obj = loads_json(text)
    except Exception as exc:  # noqa: BLE001
        clean(exc)
        return
    try:
        position_to_state(obj)
    except Exception as exc:  # noqa: BLE001
        clean(exc)


# ---------------------------------------------------------------------------
# Game records
# ---------------------------------------------------------------------------


def _records() -> list[dict]:
    out = []
    for n, v6 in ((2, False), (3, True), (4, False)):
        rec = Recorder.start(Game(n, v6=v6), seed=n)
        rng = random.Random(n)
        for _ in range(60):
            rec.apply(rng.choice(rec.state.legal_actions()))
        out.append(rec.record)
    return out


RECORDS = _records()


@FUZZ
@given(data=st.data())
def test_fuzz_record(data):
    rec = mutate(data, data.draw(st.sampled_from(RECORDS), label="record"))
    events = rec.get("events")
    if isinstance(events, list) and events and data.draw(st.booleans(), label="edit events"):
        i = data.draw(st.integers(0, len(events) - 1), label="event")
        events[i] = data.draw(st.sampled_from(VOCAB + ["reveal Diesel", "reveal special B2", "tile 3",
                                                       "market pass", "start A"]) | st.text(max_size=12))
    try:
        state = replay(rec)
    except Exception as exc:  # noqa: BLE001
        clean(exc)
        return
    lockstep(state, seed=data.draw(st.integers(0, 99), label="moves"))


# ---------------------------------------------------------------------------
# Component files
# ---------------------------------------------------------------------------


def _play_both(comps, data) -> None:
    """A valid component set: a short random game from a drawn seed, both engines in lockstep."""
    n = data.draw(st.sampled_from([2, 3, 4]), label="players")
    v6 = data.draw(st.booleans(), label="v6")
    try:
        game = Game(n, comps, v6=v6)
    except Exception as exc:  # noqa: BLE001
        clean(exc)
        return
    seed = data.draw(st.integers(0, 2 ** 32), label="seed")
    ref = game.new_initial_state(seed, engine="reference")
    fast = game.new_initial_state(seed, engine="fast")
    assert ref.observation() == fast.observation()
    lockstep(ref, moves=25, seed=seed)


def _component_override(data) -> dict:
    key = data.draw(st.sampled_from(sorted(DEFAULTS)), label="field")
    return mutate(data, {key: DEFAULTS[key]}, rounds=2)


@FUZZ
@given(data=st.data())
def test_fuzz_component_json(data, tmp_path_factory):
    override = _component_override(data)
    path = tmp_path_factory.mktemp("c") / "c.json"
    path.write_text(json.dumps(override, allow_nan=True))
    try:
        comps = load_components(path)
    except Exception as exc:  # noqa: BLE001
        clean(exc)
        return
    assert components_from_dict(override) == comps or comps.source == components_from_dict(override).source
    _play_both(comps, data)


@FUZZ
@given(data=st.data())
def test_fuzz_component_toml(data, tmp_path_factory):
    override = _component_override(data)
    text = "".join(f"{json.dumps(k)} = {toml_value(v)}\n" for k, v in override.items() if v is not None)
    if data.draw(st.booleans(), label="garble"):
        at = data.draw(st.integers(0, len(text)), label="at")
        text = text[:at] + data.draw(st.sampled_from(["[", "]", "{", "=", '"', "\n", "#", "a.b.c = 1\n"])
                                     | st.text(max_size=4), label="insert") + text[at:]
    path = tmp_path_factory.mktemp("c") / "c.toml"
    path.write_text(text)
    try:
        comps = load_components(path)
    except Exception as exc:  # noqa: BLE001
        clean(exc)
        return
    _play_both(comps, data)


@FUZZ
@given(value=json_values)
def test_fuzz_component_values_directly(value):
    for obj in (value, {"awards": value}, {"start_tiles": value}, {"research_cards": value}):
        try:
            components_from_dict(obj)
        except Exception as exc:  # noqa: BLE001
            clean(exc)
