"""The text notation of actions (kwsearch.actions.Notation) and its use by the state."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from kwsearch import actions as A
from kwsearch.actions import RANGES, Notation
from kwsearch.components import default_components, load_components
from kwsearch.errors import IllegalMoveError, InvalidMoveError, KwsearchError
from kwsearch.rules import Game

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def known_ids(notation: Notation) -> dict[int, str]:
    """Every id of every RANGES range that the notation can write, with its text."""
    out = {}
    for lo, hi, _ in RANGES:
        for a in range(lo, hi):
            try:
                out[a] = notation.text(a)
            except InvalidMoveError:
                pass
    return out


# ---------------------------------------------------------------------------
# Every reachable decision
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4])
def test_every_reachable_decision_round_trips_through_text(n):
    game = Game(n)
    decisions = 0
    for seed in range(4):
        rng = random.Random(seed)
        state = game.new_initial_state(seed)
        while not state.is_terminal():
            legal = state.legal_actions()
            assert legal == sorted(legal) and len(legal) >= 2  # forced choices are never shown
            texts = [state.action_to_text(a) for a in legal]
            assert len(set(texts)) == len(texts)
            for a, text in zip(legal, texts):
                assert state.parse_move(text) == a
                assert game.parse_action(text) == a
                branch = state.copy()
                assert branch.play(text) == a
            decisions += 1
            state.apply(rng.choice(legal))
    assert decisions > 100


def test_play_applies_the_move():
    game = Game(2)
    state = game.new_initial_state(1)
    a = state.legal_actions()[0]
    expected = state.copy()
    expected.apply(a)
    assert state.play(state.action_to_text(a)) == a
    assert state.to_json() == expected.to_json()


# ---------------------------------------------------------------------------
# Tolerant parsing
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("text, canonical", [
    ("Tile 3", "tile 3"),
    ("  TILE   3  ", "tile 3"),
    ("engine->gp", "engine -> gp"),
    ("Engine  ->  GP", "engine -> gp"),
    ("engine->workshop", "engine -> workshop"),
    ("market body @ 3", "market body@3"),
    ("Market Engine@4", "market engine@4"),
    ("take research : diesel", "take research:Diesel"),
    ("TAKE RESEARCH:DEV:BODY1", "take research:dev:body1"),
    ("research Diesel", "take research:Diesel"),
    ("take Diesel", "take research:Diesel"),
    ("Start a", "start A"),
    ("Do  Research", "do research"),
    ("give up Engine 2", "give up engine 2"),
    ("Daimler +4 Buyer 2", "daimler +4 buyer 2"),
    ("diesel car @ 8", "diesel car@8"),
    ("BENZ BUYER price", "benz buyer price"),
    ("market +Maybach2", "market +maybach2"),
])
def test_parse_is_case_and_space_tolerant(text, canonical):
    n = Notation(default_components())
    a = n.parse(canonical)
    assert n.text(a) == canonical
    assert n.parse(text) == a


def test_state_play_is_tolerant():
    state = Game(4).new_initial_state(1)
    assert state.play("Start A") == A.START + 0
    texts = [state.action_to_text(a) for a in state.legal_actions()]
    choice = texts[0]
    assert state.copy().play("  " + choice.upper().replace(" ", "   ") + " ") == state.parse_move(choice)


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["fly to the moon", "", "tile", "tile 99", "take research:Zeppelin",
                                  "market body@9", "start Q"])
def test_text_that_is_no_move_raises_illegal_move_listing_the_options(text):
    state = Game(3).new_initial_state(2)
    before = state.to_json()
    legal = [state.action_to_text(a) for a in state.legal_actions()]
    with pytest.raises(IllegalMoveError) as err:
        state.play(text)
    assert err.value.legal == legal
    assert repr(text) in str(err.value)
    for option in legal:
        assert option in str(err.value)
    assert state.to_json() == before  # nothing was applied
    with pytest.raises(IllegalMoveError):
        state.parse_move(text)


def test_good_notation_but_illegal_here():
    state = Game(2).new_initial_state(0)  # a start tile is pending
    legal = [state.action_to_text(a) for a in state.legal_actions()]
    with pytest.raises(IllegalMoveError) as err:
        state.play("market pass")
    assert err.value.legal == legal
    assert "'market pass'" in str(err.value) and "not legal here" in str(err.value)
    assert isinstance(err.value, KwsearchError) and isinstance(err.value, ValueError)


def test_non_string_move():
    state = Game(2).new_initial_state(0)
    with pytest.raises(IllegalMoveError) as err:
        state.play(5)
    assert err.value.legal == [state.action_to_text(a) for a in state.legal_actions()]


def test_no_move_is_legal_when_the_game_is_over():
    from kwsearch.rules import random_game
    state = random_game(Game(2), 3)
    assert state.is_terminal() and state.legal_actions() == []
    with pytest.raises(IllegalMoveError) as err:
        state.play("tile 3")
    assert err.value.legal == [] and "over" in str(err.value)


def test_notation_errors():
    n = Notation(default_components())
    with pytest.raises(InvalidMoveError, match="fly"):
        n.parse("fly")
    with pytest.raises(InvalidMoveError):
        n.parse(None)
    with pytest.raises(InvalidMoveError, match="999"):
        n.text(999)
    with pytest.raises(InvalidMoveError):
        n.text(A.ENGINE_GP + 1)  # the gap after the engine destinations


# ---------------------------------------------------------------------------
# The id space
# ---------------------------------------------------------------------------


def test_ranges_are_ordered_and_disjoint():
    prev = 0
    for lo, hi, meaning in RANGES:
        assert lo >= prev and hi > lo, meaning
        prev = hi
    assert RANGES[0][0] == 0 and RANGES[-1][1] == A.NUM_ACTIONS


@pytest.mark.parametrize("components", ["default", "example"])
def test_every_known_id_has_a_unique_text_that_parses_back(components):
    c = default_components() if components == "default" else load_components(EXAMPLES / "components-example.toml")
    n = Notation(c)
    ids = known_ids(n)
    assert len(set(ids.values())) == len(ids)
    for a, text in ids.items():
        assert n.parse(text) == a
        assert n.parse(text.upper()) == a
    for lo, hi, meaning in RANGES:
        assert any(lo <= a < hi for a in ids), f"no id known in {meaning}"
    # Nothing outside the ranges has a text.
    in_ranges = {a for lo, hi, _ in RANGES for a in range(lo, hi)}
    for a in range(A.NUM_ACTIONS + 20):
        if a not in in_ranges:
            with pytest.raises(InvalidMoveError):
                n.text(a)


def test_known_ids_per_range_with_the_default_components():
    c = default_components()
    ids = known_ids(Notation(c))

    def count(lo, hi):
        return sum(1 for a in ids if lo <= a < hi)

    assert count(A.START, A.TILE) == len(c.start_tiles)
    assert count(A.TILE, A.DO) == len(c.action_tiles)
    assert count(A.DO, A.RESEARCH) == 8
    assert count(A.RESEARCH, A.GIVEUP) == len(c.card_types)
    assert count(A.GIVEUP, A.ENGINE_WORKSHOP) == 14
    assert count(A.MARKET_BODY, A.MARKET_ENGINE) == 7
    assert count(A.MARKET_MARKER, A.DAIMLER_PASS) == 4
    assert count(A.DAIMLER, A.DIESEL_PASS) == 10
    assert ids[A.TILE + 3] == "tile 3"
    assert ids[A.MARKET_BODY + 2] == "market body@3"
    assert ids[A.GIVEUP + 8 + 2] == "give up engine 2"


def test_order_choices_have_text_forms_after_the_earlier_ids():
    """The order decisions of RULES.md §5.2 (the "one body & one engine" card) and §11 (a V6 tile's
    standard action and bonus) have text forms that round-trip; they were appended after every
    earlier id, so those ids (stored in older files) keep their values."""
    n = Notation(default_components())
    assert A.ORDER_BODY == A.REMOVE_CAR + A.MAX_PRICE + 1 == 375
    texts = {A.ORDER_BODY: "body first", A.ORDER_ENGINE: "engine first",
             A.ORDER_ACTION: "action first", A.ORDER_BONUS: "bonus first"}
    for a, text in texts.items():
        assert n.text(a) == text
        assert n.parse(text) == a and n.parse(f"  {text.upper()} ") == a
    assert A.NUM_ACTIONS == A.ORDER_BODY + 4
