"""Teaching mode (kwsearch.teach): a human decision checked by the review's own valuation.

Planted decisions, where one option loses over ten points of win % to the best (the review's check
at its defaults, 5,000 iterations and seed 0): the first start tile of a game with 2 and 4 players;
with 3 players, whose default search (issue 32) finds the start tiles within a few points of each
other, a choice of action tile 36 random decisions into a game.
"""

from __future__ import annotations

import re

import pytest

from helpers import TEACH_BAD, TEACH_BEST, TEACH_PLAYERS, TEACH_SEED, after_random_decisions
from kwsearch.formats import position_to_state
from kwsearch.game import Game
from kwsearch.play import new_game_record
from kwsearch.records import Recorder
from kwsearch.review import review_game
from kwsearch.search import SearchLimits
from kwsearch.teach import (DEFAULT_ITERATIONS, DEFAULT_SEED, DEFAULT_THRESHOLD, LEVELS, TeachError, TeachSettings,
                            check_decision, reaches)

pytestmark = pytest.mark.one_engine

# (players, seed, plies, a planted mistake, the best option): the decision after ``plies`` random ones;
# the last is the one the terminal and web tests play (tests/helpers.py, TEACH_*)
PLANTED = [(2, 10, 0, "start A", "start D"), (3, 6, 36, "tile 1", "tile 5"),
           (4, 2, 0, "start A", "start D"), (TEACH_PLAYERS, TEACH_SEED, 0, TEACH_BAD, TEACH_BEST)]


def first_decision(players: int, seed: int):
    return Game(players).new_initial_state(seed, engine="reference")




@pytest.mark.parametrize("players, seed, plies, bad, best", PLANTED)
def test_a_planted_mistake_fires_and_the_best_move_does_not(players, seed, plies, bad, best):
    st = after_random_decisions(players, seed, plies)
    v = check_decision(st, st.parse_move(bad), 0)
    assert v.fires and v.cls in ("mistake", "blunder") and v.threshold == DEFAULT_THRESHOLD
    assert v.best == best and v.played == bad and v.seat == st.current_player() and v.ply == 0
    assert v.loss - v.loss_half >= 0.10 and v.loss == pytest.approx(v.best_win - v.played_win)
    assert re.fullmatch(rf"{v.cls.capitalize()} \(-\d+ ± [\d.]+ points of win %\): {re.escape(v.best_label)} "
                        r"was better\.", v.message())
    assert v.best_label == best or v.best_label.startswith(best + " (")  # by its menu name (a tile's content)
    good = check_decision(st, st.parse_move(best), 0)
    assert not good.fires and good.cls is None and good.loss == 0 and good.best == best
    for level in LEVELS:  # the best move never fires, whatever the threshold
        assert not check_decision(st, st.parse_move(best), 0, TeachSettings(level)).fires


def test_the_threshold_is_respected():
    players, seed, plies, bad, _ = PLANTED[1]
    st = after_random_decisions(players, seed, plies)
    firing = {}
    classes = {}
    for level in LEVELS:
        settings = TeachSettings(level)
        firing[level] = set()
        for a in st.legal_actions():
            v = check_decision(st, a, 0, settings)
            classes.setdefault(a, v.cls)
            assert v.cls == classes[a]  # the threshold changes what is told, never the valuation
            assert v.fires == reaches(v.cls, level)
            if v.fires:
                firing[level].add(a)
    assert firing["inaccuracy"] >= firing["mistake"] >= firing["blunder"]
    assert firing["inaccuracy"] > firing["blunder"]  # an inaccuracy told at the lowest threshold only
    assert st.parse_move(bad) in firing["mistake"]


def test_teaching_and_the_review_agree_on_the_same_decision():
    """The same settings and seed: ``kwsearch review`` marks the decision as the check did."""
    seats = ["heuristic", "heuristic", "human"]
    record = new_game_record(3, 0, seats)
    st = first_decision(3, 0)
    action = st.parse_move("start B")
    Recorder(record, st.copy()).apply(action)
    for settings in (TeachSettings(), TeachSettings("inaccuracy", 800, 7)):
        v = check_decision(st, action, 0, settings)
        review = review_game(record, SearchLimits(iterations=settings.iterations), seed=settings.seed, seats=[2])
        d = review.decisions[0]
        assert (d.ply, d.cls, d.best, d.played) == (v.ply, v.cls, v.best, v.played)
        assert (d.loss, d.loss_half, d.played_win, d.best_win) == (v.loss, v.loss_half, v.played_win, v.best_win)


def test_the_check_never_sees_the_deck_order():
    """Two states that differ only in the order of the undrawn cards get the same verdict."""
    st = first_decision(3, 0)
    other = position_to_state(st.observation(2), seed=12345)
    assert other.deck != st.deck and sorted(other.deck) == sorted(st.deck)
    for move in ("start B", "start D"):
        assert check_decision(st, st.parse_move(move), 0) == check_decision(other, other.parse_move(move), 0)


def test_the_same_seed_gives_the_same_verdict_and_the_ply_picks_the_stream():
    st = first_decision(2, 10)
    a = st.parse_move("start A")
    assert check_decision(st, a, 0) == check_decision(st, a, 0)
    # the review's seed for decision k is derive_seed(seed, "review", k): another ply, another search
    assert check_decision(st, a, 0, TeachSettings(iterations=300)).played_win != \
        check_decision(st, a, 5, TeachSettings(iterations=300)).played_win


def test_defaults_are_the_reviews():
    s = TeachSettings()
    assert (s.threshold, s.iterations, s.seed) == ("mistake", DEFAULT_ITERATIONS, DEFAULT_SEED) == ("mistake", 5000, 0)
    assert TeachSettings.from_json({}) == s
    assert TeachSettings.from_json({"threshold": "blunder", "iterations": 100, "seed": 3}) == TeachSettings("blunder", 100, 3)
    assert "5,000 iterations" in s.describe()


@pytest.mark.parametrize("obj, message", [
    ({"threshold": "awful"}, "teach.threshold: expected one of inaccuracy, mistake, blunder, got 'awful'"),
    ({"iterations": 0}, "teach.iterations: expected an integer from 1 to 1,000,000, got 0"),
    ({"iterations": True}, "teach.iterations: expected an integer from 1 to 1,000,000, got True"),
    ({"iterations": 2.5}, "teach.iterations: expected an integer"),
    ({"seed": -1}, "teach.seed: expected an integer from 0 to 2**63 - 1, got -1"),
    ({"seed": 2**63}, "teach.seed: expected an integer"),
    ({"depth": 3}, "teach: unknown field 'depth'"),
    ([1], "teach: expected an object"),
])
def test_bad_settings_are_one_line_errors(obj, message):
    with pytest.raises(TeachError) as exc:
        TeachSettings.from_json(obj)
    assert str(exc.value).startswith(message) and "\n" not in str(exc.value)


def test_bad_decisions_are_refused():
    st = first_decision(2, 10)
    with pytest.raises(TeachError, match="not a legal decision"):
        check_decision(st, 999, 0)


@pytest.mark.parametrize("players, v6", [(2, False), (3, True), (4, False)])
def test_every_kind_of_decision_can_be_checked(players, v6):
    """A whole game of heuristic bots, every decision checked (a short search): set-up, turns, the
    market, Benz's buyer during a scoring, the V6 tiles' decisions; each verdict about its own move."""
    from kwsearch.bots import from_spec
    st = (Game(players, v6=True) if v6 else Game(players)).new_initial_state(3, engine="reference")
    bots = [from_spec("heuristic", seed=k) for k in range(players)]
    settings = TeachSettings("inaccuracy", iterations=60)
    kinds, ply = set(), 0
    while not st.is_terminal():
        a = bots[st.current_player()].step(st)
        kinds.add(st.pending())
        v = check_decision(st, a, ply, settings)
        assert v.played == st.action_to_text(a) and v.seat == st.current_player() and 0 <= v.loss <= 1
        assert v.fires == reaches(v.cls, "inaccuracy")
        st.apply(a)
        ply += 1
    assert {"setup", "turn", "market", "benz"} <= kinds
