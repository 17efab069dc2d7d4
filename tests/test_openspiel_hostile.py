"""kwsearch.openspiel under hostile action ids (issue 27).

An id that is not legal where it is applied — not a legal action of a decision
node, not an outcome of a chance node, not an integer, negative, beyond 64 bits,
or any id once the game is over — raises :class:`kwsearch.openspiel.IllegalActionError`
(a ``pyspiel.SpielError`` and a ``ValueError``) with a one-line message naming the
id and the legal ones, and changes nothing: state, history, returns. Before, such
ids were applied silently (and one crashed Python in the fast engine).

Runs when the ``openspiel`` extra is installed (it is part of the ``test`` extra).
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pyspiel = pytest.importorskip("pyspiel", reason='needs pip install ".[openspiel]"')

from kwsearch import openspiel as kos  # noqa: E402
from kwsearch.actions import NUM_ACTIONS  # noqa: E402
from kwsearch.rules import Game  # noqa: E402

pytestmark = pytest.mark.one_engine  # the OpenSpiel game wraps the fast engine itself

CHANCE = pyspiel.PlayerId.CHANCE
HOSTILE_IDS = (-1, -5, -2 ** 31, 2 ** 31, 2 ** 32, 2 ** 63 - 1, 2 ** 63, 2 ** 64, 2 ** 70, 10 ** 6, 10 ** 30)
WRONG_TYPES = ("3", 1.0, float("nan"), None, True, [0], b"\x00")


def sample(state, rng: np.random.RandomState) -> int:
    """A chance outcome drawn with its probability, or a uniformly random legal action."""
    if state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes())
        return int(outcomes[rng.choice(len(outcomes), p=probs)])
    legal = state.legal_actions()
    return int(legal[rng.randint(len(legal))])


def legal_here(state) -> list[int]:
    if state.is_terminal():
        return []
    if state.is_chance_node():
        return [int(o) for o, _ in state.chance_outcomes()]
    return [int(a) for a in state.legal_actions()]


def snapshot(state) -> tuple:
    """Everything a caller can see of a state, and its pickled attributes."""
    kw = state.kw_state
    return (tuple(state.history()), state.move_number(), state.current_player(), state.is_terminal(),
            tuple(state.returns()), tuple(legal_here(state)), str(state), state.information_state_string(0),
            None if kw is None else kw.to_json(), state._setup, state._pending,
            pickle.dumps(state.__dict__))


def refuses(state, action, call=None) -> str:
    """``action`` is refused with a one-line IllegalActionError that names it; the state is unchanged."""
    before = snapshot(state)
    with pytest.raises(kos.IllegalActionError) as info:
        (call or state.apply_action)(action)
    msg = str(info.value)
    assert "\n" not in msg and msg.startswith("kraftwagen: ")
    assert repr(action) in msg or str(action) in msg
    assert isinstance(info.value, pyspiel.SpielError) and isinstance(info.value, ValueError)
    assert snapshot(state) == before
    return msg


def past_setup(players=2, v6=False, seed=0):
    game = pyspiel.load_game("kraftwagen", {"players": players, "v6": v6})
    state = game.new_initial_state()
    rng = np.random.RandomState(seed)
    while state.is_chance_node():
        state.apply_action(sample(state, rng))
    return state, rng


def a_state_with_legal(pred, players=2, seed=0):
    """A decision node of a random game whose legal actions satisfy ``pred``."""
    for s in range(seed, seed + 50):
        state, rng = past_setup(players, seed=s)
        while not state.is_terminal():
            if not state.is_chance_node() and pred(state.legal_actions()):
                return state
            state.apply_action(sample(state, rng))
    raise AssertionError("no such state in 50 games")


def test_an_illegal_player_action_after_the_setup_is_refused_and_names_the_legal_ones():
    state = a_state_with_legal(lambda legal: NUM_ACTIONS - 1 not in legal)
    legal = state.legal_actions()
    msg = refuses(state, NUM_ACTIONS - 1)  # 378: an action id of the game, not legal here (it once segfaulted)
    assert msg == (f"kraftwagen: illegal action {NUM_ACTIONS - 1} for player {state.current_player()}; "
                   f"legal: {', '.join(map(str, legal))}")


def test_with_legal_actions_0_and_1_the_id_5_is_refused():
    state = a_state_with_legal(lambda legal: list(legal) == [0, 1])
    assert refuses(state, 5).endswith("legal: 0, 1")
    state.apply_action(1)  # and the state still plays


@pytest.mark.parametrize("where", ("setup", "reveal", "decision"))
def test_huge_negative_and_wrong_type_ids_are_refused_everywhere(where):
    if where == "setup":
        state = pyspiel.load_game("kraftwagen", {"players": 3}).new_initial_state()
    elif where == "decision":
        state, _ = past_setup(2, seed=1)
    else:  # a research reveal pending after a player action
        state = a_state_with_legal(lambda legal: True)
        rng = np.random.RandomState(3)
        while not state.is_chance_node() or state._pending is None:
            state.apply_action(sample(state, rng))
    assert state.is_chance_node() == (where != "decision")
    for action in HOSTILE_IDS:
        msg = refuses(state, action)
        assert ("for chance" in msg) == (where != "decision")
    for action in WRONG_TYPES:
        assert "an action must be an integer id" in refuses(state, action)
    # a 10**6 at a chance node does not enter the history; 2**31 is no OverflowError
    assert 10 ** 6 not in state.history() and 2 ** 31 not in state.history()


def test_a_player_action_id_at_a_chance_node_and_an_outcome_id_at_a_decision_node_are_refused():
    setup = pyspiel.load_game("kraftwagen", {"players": 2}).new_initial_state()
    outcomes = legal_here(setup)
    refuses(setup, max(outcomes) + 1)
    refuses(setup, kos.CH_CARD)  # a card reveal is not a set-up outcome of the chain
    state = a_state_with_legal(lambda legal: kos.CH_CARD + 1 not in legal)
    refuses(state, kos.CH_CARD + 1)


def test_a_reveal_of_a_card_type_not_in_the_pile_is_refused():
    state = a_state_with_legal(lambda legal: True)
    rng = np.random.RandomState(5)
    while state._pending is None:
        state.apply_action(sample(state, rng))
    absent = [kos.CH_CARD + k for k in range(kos.MAX_CARD_TYPES) if kos.CH_CARD + k not in legal_here(state)]
    for action in absent[:3] + [kos.CH_SPECIAL, kos.MAX_CHANCE_OUTCOMES_V6 + 5]:
        refuses(state, action)


def test_every_id_is_refused_once_the_game_is_over():
    state, rng = past_setup(2, seed=4)
    while not state.is_terminal():
        state.apply_action(sample(state, rng))
    for action in (0, 1, kos.CH_CARD, 2 ** 31):
        assert "the game is over" in refuses(state, action)


def test_child_and_the_legality_checked_entry_points_refuse_cleanly():
    state = a_state_with_legal(lambda legal: list(legal) == [0, 1])
    refuses(state, 5, call=state.child)
    refuses(state, 2 ** 64, call=state.child)
    # pyspiel's own checked entry point raises its SpielError (naming the action), no IndexError
    before = snapshot(state)
    with pytest.raises(pyspiel.SpielError, match="illegal action"):
        state.apply_action_with_legality_check(10 ** 6)
    assert snapshot(state) == before
    setup = state.get_game().new_initial_state()
    with pytest.raises(pyspiel.SpielError, match="illegal action"):
        setup.apply_action_with_legality_check(10 ** 6)
    # ids outside the spaces have a text (no exception), so such messages can name them
    assert state.action_to_string(state.current_player(), 10 ** 6) == "(not an action id of kraftwagen: 1000000)"
    assert setup.action_to_string(CHANCE, 99) == "(not a chance outcome of kraftwagen: 99)"
    assert setup.action_to_string(CHANCE, -3) == "(not a chance outcome of kraftwagen: -3)"
    # apply_actions is for simultaneous games: a clean refusal, not "pure virtual function"
    with pytest.raises(kos.IllegalActionError, match="kraftwagen is sequential"):
        state.apply_actions([0])
    assert snapshot(state) == before


def test_a_cpp_caller_is_checked_too():
    """pyspiel's C++ search applies ids through the trampoline (``_apply_action``): checked there."""
    state = a_state_with_legal(lambda legal: list(legal) == [0, 1])
    before = snapshot(state)
    with pytest.raises(kos.IllegalActionError):
        state._apply_action(5)
    assert snapshot(state) == before
    bot = pyspiel.MCTSBot(state.get_game(), pyspiel.RandomRolloutEvaluator(1, 3), 0.7, 20, 1000, False, 3, False)
    assert bot.mcts_search(state).best_child().action in (0, 1)


def test_resample_from_infostate_refuses_a_bad_player_or_sampler():
    state, _ = past_setup(2, seed=6)
    good = pyspiel.UniformProbabilitySampler(7, 0.0, 1.0)
    for player in (-1, 2, 10 ** 6, "0", None):
        with pytest.raises(ValueError, match="player_id must be a seat 0-1"):
            state.resample_from_infostate(player, good)
    for value in (1.0, -0.5, 10 ** 30, float("nan"), float("inf"), "0.5", None):
        with pytest.raises(ValueError, match=r"must return a number in \[0, 1\)"):
            state.resample_from_infostate(0, lambda value=value: value)
    assert state.resample_from_infostate(0, lambda: 0.999).information_state_string(0) == \
        state.information_state_string(0)


def test_state_from_kwsearch_refuses_other_objects_and_other_games():
    game = pyspiel.load_game("kraftwagen", {"players": 2})
    with pytest.raises(TypeError, match="expects a kwsearch state"):
        game.state_from_kwsearch({"format": "kwsearch-position/1"})
    with pytest.raises(ValueError, match="3-player game, this game is 2-player"):
        game.state_from_kwsearch(Game(3).new_initial_state(seed=1))
    with pytest.raises(ValueError, match="with V6"):
        game.state_from_kwsearch(Game(2, v6=True).new_initial_state(seed=1))


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(players=st.sampled_from((2, 3, 4)), v6=st.booleans(), seed=st.integers(0, 2 ** 32 - 1), data=st.data())
def test_random_illegal_ids_at_random_points_of_random_games_never_crash(players, v6, seed, data):
    """Random games; at random points a random illegal id (near the legal ones, any id of
    either space, huge, negative, of a wrong type) is refused and changes nothing; then the
    game goes on and ends normally."""
    game = pyspiel.load_game("kraftwagen", {"players": players, "v6": v6})
    state = game.new_initial_state()
    rng = np.random.RandomState(seed % 2 ** 32)
    every = data.draw(st.integers(1, 40), label="attack every")
    ids = (st.integers(-3, NUM_ACTIONS + 3) | st.integers(-2 ** 70, 2 ** 70)
           | st.sampled_from(HOSTILE_IDS + (kos.CH_SPECIAL, kos.MAX_CHANCE_OUTCOMES_V6)))
    attacks = 0
    while True:
        if len(state.history()) % every == 0 or state.is_terminal():
            legal = legal_here(state)
            bad = data.draw(ids.filter(lambda a: a not in legal) | st.sampled_from(WRONG_TYPES), label="id")
            how = data.draw(st.sampled_from(("apply_action", "child", "_apply_action")), label="how")
            refuses(state, bad, call=getattr(state, how))
            attacks += 1
        if state.is_terminal():
            break
        state.apply_action(sample(state, rng))
    assert attacks >= 1
    assert abs(sum(state.returns()) - 1.0) < 1e-9
