"""One definition of what a seat sees (kwsearch.observation), and everyone uses it.

The position files (formats.state_to_position), both engines' ``observation()``,
the search (its determinizations and its check that a reused tree belongs to the
position) and the OpenSpiel observer (string and tensor) must all agree with
:func:`kwsearch.observation.observation`.
"""

from __future__ import annotations

import json
import random

import pytest

from kwsearch.engine import convert, reference
from kwsearch.formats import position_to_state, state_to_position
from kwsearch.game import Game
from kwsearch.observation import observation, observation_key, state_to_json
from kwsearch.search import determinized


def _positions(players: int, v6: bool, seed: int, every: int = 23):
    """States along a seeded random game (the engine of the running test)."""
    rng = random.Random(seed)
    st = Game(players, v6=v6).new_initial_state(seed)
    out = [st.copy()]
    k = 0
    while not st.is_terminal():
        st.apply(rng.choice(st.legal_actions()))
        k += 1
        if k % every == 0:
            out.append(st.copy())
    out.append(st)
    return out


CASES = [(2, False, 5), (3, True, 8), (4, False, 13)]


@pytest.mark.parametrize("players,v6,seed", CASES)
def test_every_seat_sees_the_same_and_both_engines_agree(players, v6, seed):
    for st in _positions(players, v6, seed):
        obs = observation(st)
        assert all(observation(st, s) == obs for s in range(players))
        assert st.observation() == obs == st.observation(players - 1)
        assert state_to_position(reference(st)) == obs  # the position file writes the same
        for engine in ("fast", "reference"):
            assert observation(convert(st, engine)) == obs
        assert observation_key(st) == json.dumps(obs, sort_keys=True, separators=(",", ":"))


@pytest.mark.parametrize("players,v6,seed", CASES)
def test_hidden_part_is_all_that_to_json_adds(players, v6, seed):
    for st in _positions(players, v6, seed, every=41):
        full = st.to_json()
        assert full == state_to_json(st)
        hidden = full.pop("hidden")
        assert full == observation(st)
        assert sorted(hidden["deck"]) == sorted(n for n, k in full["research"]["undrawn"].items() for _ in range(k))
        back = position_to_state(st.to_json())
        assert back.to_json() == st.to_json()


@pytest.mark.parametrize("players,v6,seed", CASES)
def test_the_search_samples_worlds_with_the_same_observation(players, v6, seed):
    for i, st in enumerate(_positions(players, v6, seed, every=31)):
        world = determinized(st, 1000 + i)
        assert observation_key(world) == observation_key(st)
        assert world.legal_actions() == st.legal_actions()


@pytest.mark.one_engine
def test_the_openspiel_observer_reads_the_same_observation():
    pytest.importorskip("pyspiel")
    from kwsearch.openspiel import game_for

    for players, v6, seed in CASES:
        kw = Game(players, v6=v6)
        game = game_for(kw)
        for st in _positions(players, v6, seed, every=37):
            os_state = game.state_from_kwsearch(st)
            # The public string (and so every player's observation string) is the observation.
            assert os_state.public_string() == observation_key(st)
            assert os_state.observation_string(0) == observation_key(st)
            # The tensor encodes it: the undrawn cards' counts, for one, are the observation's.
            obs = observation(st)
            observer = game.make_py_observer()
            observer.set_from(os_state, 0)
            card = {ct.name: ct.index for ct in kw.components.card_types}
            for name, k in obs["research"]["undrawn"].items():
                assert observer.dict["undrawn"][card[name]] == k
            assert observer.dict["round"][obs["round"] - 1] == 1.0
