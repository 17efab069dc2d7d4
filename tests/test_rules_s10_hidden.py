"""RULES.md §10: hidden information — only the order of the undrawn research cards.

States are taken from seeded random games at several points; the deck order is
the only thing observation() leaves out and the only thing determinize() changes.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from helpers import after_random_decisions
from kwsearch.engine import reference, state_from_json
from kwsearch.rules import State


def _names(st: State, cards: list[int]) -> list[str]:
    return [st.game.components.card_types[t].name for t in cards]




STATES = [(n, seed, steps) for n in (2, 3, 4) for seed, steps in ((1, 0), (2, 25), (3, 70), (4, 140))]


def _without_hidden(obj: dict) -> dict:
    return {k: v for k, v in obj.items() if k != "hidden"}


# ---------------------------------------------------------------------------
# Observation
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("players, seed, steps", STATES)
def test_every_seat_observes_the_same(players, seed, steps):
    st = after_random_decisions(players, seed, steps)
    views = [st.observation(seat) for seat in range(players)]
    for v in views[1:]:
        assert v == views[0]
    assert st.observation() == views[0]


@pytest.mark.parametrize("players, seed, steps", STATES)
def test_the_observation_holds_the_undrawn_cards_as_counts_not_as_an_order(players, seed, steps):
    st = after_random_decisions(players, seed, steps)
    obs = st.observation(0)
    assert "hidden" not in obs
    assert obs["research"]["undrawn"] == dict(Counter(_names(st, reference(st).deck)))
    assert list(obs["research"]["undrawn"]) == sorted(obs["research"]["undrawn"])
    # The full state does hold the order; it is the only difference.
    full = st.to_json()
    assert full["hidden"]["deck"] == _names(st, reference(st).deck)
    assert _without_hidden(full) == obs


@pytest.mark.parametrize("players, seed, steps", STATES)
def test_states_differing_only_in_deck_order_look_the_same(players, seed, steps):
    st = after_random_decisions(players, seed, steps)
    obj = st.to_json()
    deck = obj["hidden"]["deck"]
    other = deck[1:] + deck[:1]
    assert other != deck  # the deck holds cards of several types
    obj2 = dict(obj, hidden=dict(obj["hidden"], deck=other))
    st2 = state_from_json(obj2)
    assert st2.to_json() != st.to_json()
    for seat in range(players):
        assert st2.observation(seat) == st.observation(seat)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_money_is_public(players):
    """[decision] RULES.md §10: money (face-down markers) is observed by everyone (perfect recall)."""
    st = after_random_decisions(players, 5, 200)
    assert any(st.money())
    for seat in range(players):
        assert [s["money"] for s in st.observation(seat)["seats"]] == st.money()


# ---------------------------------------------------------------------------
# Determinization
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("players, seed, steps", STATES)
def test_determinize_only_permutes_the_undrawn_cards(players, seed, steps):
    st = after_random_decisions(players, seed, steps)
    before_obs = [st.observation(s) for s in range(players)]
    before_full = _without_hidden(st.to_json())
    legal, player = st.legal_actions(), st.current_player()
    orders = set()
    for k in range(6):
        d = st.copy()
        d.determinize(random.Random(k))
        d_ref = reference(d)
        ref = reference(st)
        assert sorted(d_ref.deck) == sorted(ref.deck)
        assert d_ref.display == ref.display and d_ref.discard == ref.discard
        assert [d.observation(s) for s in range(players)] == before_obs
        assert _without_hidden(d.to_json()) == before_full
        assert d.legal_actions() == legal and d.current_player() == player
        orders.add(tuple(reference(d).deck))
    assert len(orders) > 1  # it really reshuffles
    # The original is untouched by its copies' determinization.
    assert _without_hidden(st.to_json()) == before_full


@pytest.mark.parametrize("players, seed, steps", STATES)
def test_determinize_with_the_same_rng_gives_the_same_state(players, seed, steps):
    st = after_random_decisions(players, seed, steps)
    a, b = st.copy(), st.copy()
    a.determinize(random.Random(1234))
    b.determinize(random.Random(1234))
    assert a.to_json() == b.to_json()
    c, d = st.copy(), st.copy()
    c.determinize(99)
    d.determinize(99)
    assert c.to_json() == d.to_json()
    assert reference(c).rng == reference(d).rng


def test_determinized_copies_with_the_same_rng_play_on_identically():
    """Same determinization, same moves: the same draws and reshuffles, to the end of the game."""
    st = after_random_decisions(3, 6, 30)
    a, b = st.copy(), st.copy()
    a.determinize(random.Random(7))
    b.determinize(random.Random(7))
    moves = random.Random(8)
    while not a.is_terminal():
        action = moves.choice(a.legal_actions())
        assert b.legal_actions() == a.legal_actions()
        a.apply(action)
        b.apply(action)
        assert a.to_json() == b.to_json()
    assert b.is_terminal()


def test_determinize_redraws_the_generator_of_later_reshuffles():
    st = after_random_decisions(4, 2, 25)
    rngs = set()
    for k in range(4):
        d = st.copy()
        d.determinize(random.Random(k))
        rngs.add(reference(d).rng)
    assert len(rngs) > 1
