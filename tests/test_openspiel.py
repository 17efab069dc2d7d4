"""kwsearch.openspiel: Kraftwagen as an OpenSpiel game, and OpenSpiel's searches as bots.

Runs when the ``openspiel`` extra is installed (it is part of the ``test`` extra).
"""

from __future__ import annotations

import sys
from collections import Counter

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason='needs pip install ".[openspiel]"')

from kwsearch import openspiel as kos  # noqa: E402
from kwsearch.bots import from_spec, play_game  # noqa: E402
from kwsearch.engine import convert, reference  # noqa: E402
from kwsearch.observation import chain_name  # noqa: E402
from kwsearch.records import RECORD_FORMAT, replay  # noqa: E402
from kwsearch.rules import SEAT, SPECIAL, Game, win_shares  # noqa: E402

pytestmark = pytest.mark.one_engine  # the OpenSpiel game wraps the fast engine itself

PLAYERS = (2, 3, 4)
CHANCE = pyspiel.PlayerId.CHANCE


def sample(state, rng: np.random.RandomState) -> int:
    """A chance outcome drawn with its probability, or a uniformly random legal action."""
    if state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes())
        return int(outcomes[rng.choice(len(outcomes), p=probs)])
    legal = state.legal_actions()
    return int(legal[rng.randint(len(legal))])


def through_setup(game, seed: int):
    state = game.new_initial_state()
    rng = np.random.RandomState(seed)
    while state.is_chance_node():
        state.apply_action(sample(state, rng))
    return state, rng


@pytest.mark.parametrize("v6", (False, True))
@pytest.mark.parametrize("players", PLAYERS)
def test_openspiel_random_sim_test_passes(players, v6):
    game = pyspiel.load_game("kraftwagen", {"players": players, "v6": v6})
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_game_type_and_parameters():
    game = pyspiel.load_game("kraftwagen")
    gt = game.get_type()
    assert game.num_players() == 2 and game.get_parameters() == {"players": 2, "v6": False}
    assert gt.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert gt.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert gt.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert gt.utility == pyspiel.GameType.Utility.CONSTANT_SUM and game.utility_sum() == 1.0
    assert (game.min_utility(), game.max_utility()) == (0.0, 1.0)
    assert game.num_distinct_actions() == kos.A.NUM_ACTIONS
    assert game.max_chance_outcomes() == kos.MAX_CHANCE_OUTCOMES == 56
    v6 = pyspiel.load_game("kraftwagen", {"v6": True})
    assert v6.get_parameters() == {"players": 2, "v6": True} and v6.kw_game.v6
    assert v6.max_chance_outcomes() == kos.MAX_CHANCE_OUTCOMES_V6 == kos.CH_SPECIAL + 16 == 72
    assert pyspiel.load_game("kraftwagen", {"players": 4}).num_players() == 4
    with pytest.raises(Exception, match="players must be 2, 3 or 4"):
        pyspiel.load_game("kraftwagen", {"players": 5})


def to_record(players: int, history: list[tuple[int, int]], names, v6: bool = False) -> dict:
    """The kwsearch game record of a game played through pyspiel: (player, action) pairs.

    After each decision, its research cards go to a ``"reveal A, B"`` event and (V6) its
    specialty tiles to a ``"reveal special X"`` event (records.replay forces each kind in order).
    """
    setup = [a for p, a in history[:next(i for i, (p, _) in enumerate(history) if p != CHANCE)]]
    tiles = [a - kos.CH_TILE for a in setup if a < kos.CH_START]
    offered = [a - kos.CH_START for a in setup if kos.CH_START <= a < kos.CH_CARD]
    display = [a - kos.CH_CARD for a in setup if kos.CH_CARD <= a < kos.CH_SPECIAL]
    specials = [a - kos.CH_SPECIAL for a in setup if a >= kos.CH_SPECIAL]
    assert len(specials) == (1 if v6 else 0)
    game = Game(players, v6=v6)
    c = game.components
    # RULES.md §2.1: one-action tiles at the tail, then two-, then three-action ones; the
    # last tile of a group is not a chance node (it is the only one left).
    order = []
    for size in sorted({len(t.actions) for t in c.action_tiles}):
        group = [t.index for t in c.action_tiles if len(t.actions) == size]
        chosen = [t for t in tiles if t in group]
        order += chosen + [t for t in group if t not in chosen]
    assert len(tiles) == len(c.action_tiles) - 3
    tiles = order
    if not offered:
        offered = [t.index for t in c.start_tiles]
    events: list[str] = []
    cards: list[str] = []
    placed: list[str] = []

    def flush():
        if cards:
            events.append("reveal " + ", ".join(cards))
        if placed:
            events.append("reveal special " + ", ".join(placed))
        cards.clear()
        placed.clear()

    for p, a in history[len(setup):]:
        if p == CHANCE:
            if a >= kos.CH_SPECIAL:
                placed.append(c.specialty_tiles[a - kos.CH_SPECIAL].name)
            else:
                cards.append(names[a - kos.CH_CARD])
        else:
            flush()
            events.append(game.action_to_text(a))
    flush()
    chain = [SEAT + s for s in range(players)] + tiles + [SPECIAL + t for t in specials]
    return {"format": RECORD_FORMAT, "players": players, "v6": v6, "seed": 0,
            "setup": {"chain": [chain_name(e) for e in chain],
                      "start_tiles_offered": [c.start_tiles[t].name for t in offered],
                      "display": [names[t] for t in display]},
            "events": events}


@pytest.mark.parametrize("v6", (False, True))
@pytest.mark.parametrize("players", PLAYERS)
def test_a_game_through_pyspiel_ends_with_the_money_of_the_same_actions_in_kwsearch(players, v6):
    game = pyspiel.load_game("kraftwagen", {"players": players, "v6": v6})
    names = game._shared.card_names
    for seed in range(2):
        state = game.new_initial_state()
        rng = np.random.RandomState(seed)
        history: list[tuple[int, int]] = []
        while not state.is_terminal():
            action = sample(state, rng)
            history.append((state.current_player(), action))
            state.apply_action(action)
        assert [a for _, a in history] == state.history()
        record = to_record(players, history, names, v6)
        reveals = [e for e in record["events"] if e.startswith("reveal")]
        assert sum(not e.startswith("reveal special") for e in reveals) >= 3  # research reveals happened
        if v6:  # specialty tiles were placed during play, not only at set-up
            assert sum(e.count(",") + 1 for e in reveals if e.startswith("reveal special")) >= 3
            assert record["setup"]["chain"][-1].startswith("special A")
        else:
            assert not any(e.startswith("reveal special") for e in reveals)
        final = replay(record)  # the reference engine, deck and stacks arranged by the reveal events
        assert final.is_terminal()
        assert final.money() == state.money()
        assert state.returns() == win_shares(final.money())


def test_setup_chance_outcomes_are_exact():
    game = pyspiel.load_game("kraftwagen", {"players": 2})
    state = game.new_initial_state()
    assert state.chance_outcomes() == [(kos.CH_TILE + t, 0.2) for t in range(5)]  # five one-action tiles
    rng = np.random.RandomState(3)
    seen = Counter()
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        assert sum(p for _, p in outcomes) == pytest.approx(1.0)
        kinds = {(a >= kos.CH_START) + (a >= kos.CH_CARD) for a, _ in outcomes}
        assert len(kinds) == 1
        kind = kinds.pop()
        if kind == 1:  # two of the four start tiles are offered with two players
            assert len(outcomes) == 4 - seen[1] and all(p == 1 / len(outcomes) for _, p in outcomes)
        if kind == 2:
            deck = Counter({ct.index: ct.count for ct in game.kw_game.components.card_types})
            drawn = Counter(a - kos.CH_CARD for a in state.history() if a >= kos.CH_CARD)
            total = sum(deck.values()) - sum(drawn.values())
            assert outcomes == [(kos.CH_CARD + t, (deck[t] - drawn[t]) / total)
                                for t in sorted(deck) if deck[t] > drawn[t]]
        seen[kind] += 1
        state.apply_action(sample(state, rng))
    assert seen[1] == 2 and seen[2] == 2 and seen[0] == 4 + 3  # a group's last tile needs no chance
    assert not state.is_chance_node() and state.current_player() == 1  # the last seat picks a start tile


def test_a_research_reveal_is_a_chance_node_over_the_undrawn_cards():
    game = pyspiel.load_game("kraftwagen", {"players": 3})
    state, rng = through_setup(game, 5)
    reveals = 0
    while not state.is_terminal() and reveals < 6:
        if state.is_chance_node():
            before = reference(state.kw_state)  # the position before the action that turns cards up
            act, drawn, _ = state._pending
            shown = [o - kos.CH_CARD for o in drawn]  # no V6: every reveal is a research card
            pile = Counter(before.deck) - Counter(shown)
            if before.deck and len(before.deck) > len(shown):  # no reshuffle yet
                total = sum(pile.values())
                assert state.chance_outcomes() == [(kos.CH_CARD + t, pile[t] / total) for t in sorted(pile)]
                names = game._shared.card_names
                assert [state.action_to_string(CHANCE, kos.CH_CARD + t) for t in sorted(pile)] == \
                    [f"reveal {names[t]}" for t in sorted(pile)]
                reveals += 1
        state.apply_action(sample(state, rng))
    assert reveals == 6


def test_v6_setup_places_a_uniformly_drawn_stack_a_tile_at_the_front_of_the_chain():
    game = pyspiel.load_game("kraftwagen", {"players": 3, "v6": True})
    c = game.kw_game.components
    stack_a = sorted(t.index for t in c.specialty_stack(0))
    state = game.new_initial_state()
    rng = np.random.RandomState(8)
    while state.chance_outcomes()[0][0] < kos.CH_START:  # the chain's action tiles first
        state.apply_action(sample(state, rng))
    assert state.chance_outcomes() == [(kos.CH_SPECIAL + t, 1 / len(stack_a)) for t in stack_a]
    assert [state.action_to_string(CHANCE, kos.CH_SPECIAL + t) for t in stack_a] == \
        [f"place special {c.specialty_tiles[t].name}" for t in stack_a]
    chosen = stack_a[2]
    state.apply_action(kos.CH_SPECIAL + chosen)
    assert "place special A" in state.observation_string(0)  # the set-up so far is public
    while state.is_chance_node():  # the two first research cards (three players: no offer draw)
        assert all(kos.CH_CARD <= a < kos.CH_SPECIAL for a, _ in state.chance_outcomes())
        state.apply_action(sample(state, rng))
    kw = reference(state.kw_state)
    assert kw.chain[-1] == SPECIAL + chosen  # the front of the chain
    assert sorted(kw.spec_undrawn[0]) == [t for t in stack_a if t != chosen]
    assert [sorted(x) for x in kw.spec_undrawn[1:]] == \
        [sorted(t.index for t in c.specialty_stack(r)) for r in (1, 2)]
    assert f'"special {c.specialty_tiles[chosen].name}"' in state.observation_string(1)


def reference_next_draw(state) -> tuple[str, list[int]]:
    """The reference engine's answer for a pending reveal: the kind and the sorted pile of the
    next draw of the pending action, once the draws named so far are forced (as records.replay)."""
    act, drawn, _ = state._pending
    cards = [o - kos.CH_CARD for o in drawn if o < kos.CH_SPECIAL]
    tiles = [o - kos.CH_SPECIAL for o in drawn if o >= kos.CH_SPECIAL]
    ref = convert(state.kw_state, "reference")

    class Next(Exception):
        pass

    def draw_hook(st):
        if not cards:
            raise Next("card", sorted(st.deck))
        t = cards.pop(0)
        del st.deck[len(st.deck) - 1 - st.deck[::-1].index(t)]
        return t

    def special_hook(st, r):
        if not tiles:
            raise Next("special", sorted(st.spec_undrawn[r]))
        t = tiles.pop(0)
        st.spec_undrawn[r].remove(t)
        return t

    ref.draw_hook, ref.special_hook = draw_hook, special_hook
    try:
        ref.apply(act)
    except Next as nxt:
        return nxt.args
    raise AssertionError("the pending action draws nothing more")


@pytest.mark.parametrize("players", PLAYERS)
def test_v6_specialty_draws_are_uniform_over_the_stack_drawn_from_reshuffles_included(players):
    game = pyspiel.load_game("kraftwagen", {"players": players, "v6": True})
    sp = game.kw_game.components.specialty_tiles
    draws = reshuffled = 0
    for seed in range(3):
        state, rng = through_setup(game, seed)
        while not state.is_terminal():
            if state.is_chance_node():
                kind, pile = reference_next_draw(state)
                outcomes = state.chance_outcomes()
                if kind == "card":
                    counts = Counter(pile)
                    assert outcomes == [(kos.CH_CARD + t, counts[t] / len(pile)) for t in sorted(counts)]
                else:
                    assert outcomes == [(kos.CH_SPECIAL + t, 1 / len(pile)) for t in pile]
                    assert [state.action_to_string(CHANCE, a) for a, _ in outcomes] == \
                        [f"place special {sp[t].name}" for t in pile]
                    r = sp[pile[0]].stack
                    assert {sp[t].stack for t in pile} == {r} and r == state.kw_state.round - 1
                    named = [o - kos.CH_SPECIAL for o in state._pending[1] if o >= kos.CH_SPECIAL]
                    kw = reference(state.kw_state)
                    face_down = set(kw.spec_undrawn[r]) - set(named)
                    if face_down:  # a normal replacement: the stack's face-down tiles
                        assert set(pile) == face_down
                    else:  # the stack was emptied: its used tiles, reshuffled, are the pile
                        assert set(pile) <= set(kw.spec_used[r]) | {e - SPECIAL for e in kw.chain if e >= SPECIAL}
                        assert not set(pile) & set(reference(state.kw_state).spec_undrawn[r])
                        reshuffled += 1
                    draws += 1
            state.apply_action(sample(state, rng))
    assert draws >= 10 and reshuffled >= 1


@pytest.mark.parametrize("v6", (False, True))
def test_resample_from_infostate_keeps_the_information_state(v6):
    game = pyspiel.load_game("kraftwagen", {"players": 3, "v6": v6})
    state = game.new_initial_state()
    rng = np.random.RandomState(11)
    sampler = pyspiel.UniformProbabilitySampler(7, 0.0, 1.0)
    checked = stacks_reordered = 0
    while not state.is_terminal():
        if len(state.history()) % 9 == 0:
            r = state.resample_from_infostate(state.current_player() if state.current_player() >= 0 else 0,
                                              sampler)
            for p in range(3):
                assert r.information_state_string(p) == state.information_state_string(p)
                assert r.observation_string(p) == state.observation_string(p)
            assert r.current_player() == state.current_player()
            assert r.legal_actions() == state.legal_actions()
            if state.kw_state is not None:
                assert sorted(reference(r.kw_state).deck) == sorted(reference(state.kw_state).deck)
                # V6: the same tiles face down (in a resampled order) and the same used piles
                assert [sorted(x) for x in reference(r.kw_state).spec_undrawn] == \
                    [sorted(x) for x in reference(state.kw_state).spec_undrawn]
                assert reference(r.kw_state).spec_used == reference(state.kw_state).spec_used
                assert reference(r.kw_state).chain == reference(state.kw_state).chain
                stacks_reordered += reference(r.kw_state).spec_undrawn != reference(state.kw_state).spec_undrawn
                before = state.information_state_string(0)
                if not r.is_chance_node():
                    r.apply_action(r.legal_actions()[0])
                    assert state.information_state_string(0) == before  # r is a separate state
            checked += 1
        state.apply_action(sample(state, rng))
    assert checked > 10
    assert (stacks_reordered > 0) == v6  # the stacks' hidden order is resampled


def test_clone_is_independent_and_shares_the_game_constants():
    game = pyspiel.load_game("kraftwagen", {"players": 2})
    state, rng = through_setup(game, 2)
    clone = state.clone()
    assert clone._g is state._g and clone.kw_state is not state.kw_state
    assert str(clone) == str(state) and clone.history() == state.history()
    clone.apply_action(clone.legal_actions()[0])
    assert clone.history() != state.history()
    assert state.kw_state.to_json() != clone.kw_state.to_json()


def test_information_state_is_the_public_history_and_observation_the_position():
    game = pyspiel.load_game("kraftwagen", {"players": 2})
    state, rng = through_setup(game, 4)
    assert state.information_state_string(0) == state.information_state_string(1) == state.history_str()
    assert '"format"' in state.observation_string(0)
    for _ in range(3):
        state.apply_action(sample(state, rng))
    assert state.information_state_string(1) == state.history_str()


def test_state_from_kwsearch_is_the_same_position():
    kw = Game(2).new_initial_state(9)
    game = kos.game_for(kw.game)
    for _ in range(20):
        kw.apply(kw.legal_actions()[-1])
    st = game.state_from_kwsearch(kw)
    assert st.current_player() == kw.current_player() and st.legal_actions() == kw.legal_actions()
    other = kw.copy()
    other.apply(other.legal_actions()[0])
    assert game.state_from_kwsearch(other).information_state_string(0) != st.information_state_string(0)


def test_the_openspiel_bot_specs_play_a_short_tournament():
    specs = ["openspiel-ismcts:iterations=5", "openspiel-mcts:iterations=5", "ismcts:iterations=200"]
    scores = Counter()
    for game_index in range(3):  # each bot plays each seat once
        seats = [specs[(s - game_index) % 3] for s in range(3)]
        bots = [from_spec(spec, seed=100 * game_index + s) for s, spec in enumerate(seats)]

        def check(state, seat, action):
            assert action in state.legal_actions()

        final = play_game(Game(3).new_initial_state(game_index), bots, on_step=check)
        assert final.is_terminal()
        for seat, share in enumerate(final.returns()):
            scores[seats[seat]] += share
    assert sum(scores.values()) == pytest.approx(3.0)


def test_openspiel_bots_are_reproducible_from_their_seed():
    state = Game(2).new_initial_state(4)
    for _ in range(6):
        state.apply(state.legal_actions()[0])
    for spec in ("openspiel-ismcts:iterations=30", "openspiel-mcts:iterations=30,c=1.5"):
        assert from_spec(spec, seed=3).step(state) == from_spec(spec, seed=3).step(state)


def test_openspiel_specs_check_options_and_say_how_to_install(monkeypatch):
    with pytest.raises(ValueError, match="unknown option 'money'"):
        from_spec("openspiel-ismcts:money=1")
    with pytest.raises(ValueError, match="iterations must be positive"):
        from_spec("openspiel-mcts:iterations=0")
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # as if OpenSpiel were not installed
    monkeypatch.delitem(sys.modules, "kwsearch.openspiel")
    with pytest.raises(ValueError, match=r'pip install "\.\[openspiel\]" \(in the kwsearch clone\)'):
        from_spec("openspiel-ismcts:iterations=10")


def test_a_time_budget_too_short_for_one_simulation_still_gives_a_move():
    state = Game(2).new_initial_state(5)
    bot = from_spec("openspiel-ismcts:seconds=0.000001", seed=1)
    assert bot.step(state) in state.legal_actions()
    assert bot.last_iterations == 2  # the root's expansion and one simulation through it


# ---------------------------------------------------------------------------
# Serialization, tensors, rl_environment (issue 12)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("players, v6", [(2, False), (3, True)])
def test_a_pickled_state_continues_exactly(players, v6):
    import pickle
    game = kos.load(players, v6)
    for seed in range(3):
        state, rng = through_setup(game, seed)
        for _ in range(seed * 40):
            if state.is_terminal():
                break
            state.apply_action(sample(state, rng))
        copy = pickle.loads(pickle.dumps(state))
        text = pyspiel.serialize_game_and_state(game, state)
        _, again = pyspiel.deserialize_game_and_state(text)
        for other in (copy, again):
            assert other.history() == state.history() and str(other) == str(state)
            assert other.observation_string(0) == state.observation_string(0)
            assert other.information_state_string(1) == state.information_state_string(1)
            assert other.kw_state == state.kw_state  # the hidden deck order and generator too
        rng2 = np.random.RandomState(seed + 100)
        while not state.is_terminal():
            a = sample(state, rng2)
            state.apply_action(a)
            copy.apply_action(a)
            assert copy.legal_actions() == state.legal_actions()
        assert copy.returns() == state.returns()


def test_fast_state_pickles_as_its_exact_json_form():
    import pickle
    from kwsearch.rules import random_game
    st = convert(Game(3, v6=True).new_initial_state(4, engine="reference"), "fast")
    for a in st.legal_actions()[:1]:
        st.apply(a)
    back = pickle.loads(pickle.dumps(st))
    assert back == st and back.to_json() == st.to_json()
    assert random_game  # the module imports cleanly next to the registration


@pytest.mark.parametrize("players, v6", [(2, False), (4, False), (3, True)])
def test_tensors_are_declared_and_encode_the_position(players, v6):
    game = kos.load(players, v6)
    gt = game.get_type()
    assert gt.provides_observation_tensor and gt.provides_information_state_tensor
    layout = kos.tensor_layout(game.kw_game)
    size = sum(int(np.prod(shape)) for _, shape in layout)
    assert game.observation_tensor_size() == game.information_state_tensor_size() == size
    from open_spiel.python.observation import make_observation
    obs = make_observation(game)
    assert list(obs.dict) == [name for name, _ in layout]
    state, rng = through_setup(game, 7)
    seen = 0
    while not state.is_terminal():
        if not state.is_chance_node():
            p = state.current_player()
            t = np.asarray(state.observation_tensor(p))
            assert t.shape == (size,) and np.all(np.isfinite(t))
            assert t.tolist() == list(state.information_state_tensor(p))
            obs.set_from(state, p)
            d = obs.dict
            assert d["observer"][p] == 1 and d["observer"].sum() == 1
            assert d["to_move"][p] == 1 and d["to_move"].sum() == 1
            assert d["chain"].sum(axis=1).tolist() == [1.0] * d["chain"].shape[0]
            assert d["seats"][:, 0].tolist() == state.money()
            pos = state.kw_state.observation()
            assert d["undrawn"].sum() == sum(pos["research"]["undrawn"].values())
            assert d["supply"].tolist() == pos["supply"]["body"] + pos["supply"]["engine"]
            assert d["awards"].sum() == 10
            seen += 1
        state.apply_action(sample(state, rng))
    assert seen > 20
    first = game.new_initial_state()
    t = np.asarray(first.observation_tensor(0))
    assert t[players + players] == 1.0  # chance[0]: the set-up is being drawn


@pytest.mark.parametrize("players, v6", [(2, False), (3, True)])
def test_rl_environment_plays_whole_games(players, v6):
    from open_spiel.python import rl_environment
    env = rl_environment.Environment("kraftwagen", players=players, v6=v6,
                                     chance_event_sampler=rl_environment.ChanceEventSampler(seed=5))
    size = env.observation_spec()["info_state"][0]
    assert size == kos.load(players, v6).information_state_tensor_size()
    assert env.action_spec()["num_actions"] == kos.A.NUM_ACTIONS
    rng = np.random.RandomState(players)
    for _ in range(2):
        ts = env.reset()
        steps = 0
        while not ts.last():
            p = ts.observations["current_player"]
            legal = ts.observations["legal_actions"][p]
            assert len(ts.observations["info_state"][p]) == size
            ts = env.step([int(rng.choice(legal))])
            steps += 1
        assert steps > 30 and sum(ts.rewards) == pytest.approx(1.0)


DOC = __import__("pathlib").Path(__file__).resolve().parent.parent / "docs" / "openspiel.md"


def test_doc_states_the_true_num_distinct_actions():
    import re
    text = DOC.read_text()
    row = re.search(r"^\| num_distinct_actions \| (\d+) \|", text, re.M)
    assert row, "docs/openspiel.md has no num_distinct_actions row"
    assert int(row.group(1)) == kos.A.NUM_ACTIONS == kos.load(2).num_distinct_actions()


def test_doc_lists_the_tensor_layout():
    import re
    text = DOC.read_text()
    section = text.split("## Observations", 1)[1].split("\n## ", 1)[0]
    names = re.findall(r"^\| `(\w+)` \|", section, re.M)
    assert names == [name for name, _ in kos.tensor_layout(Game(3, v6=True))]
    for players, v6 in ((2, False), (4, False), (3, True)):
        size = kos.load(players, v6).observation_tensor_size()
        assert f"{size}" in section.split("|", 1)[0], (players, v6, size)
    from kwsearch.rules import TASKS
    assert f"2 × {len(TASKS)} + 1" in section
