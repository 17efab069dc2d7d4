"""ISMCTS search and the bots (kwsearch.search, kwsearch.bots)."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest

from kwsearch import _search
from kwsearch.bots import PIMCBot, RandomBot, SearchBot, from_spec, play_game
from kwsearch.engine import convert, reference, state_from_json
from kwsearch import actions as A
from kwsearch.rules import SPECIAL, Game, is_seat
from kwsearch.search import SearchConfig, SearchLimits, search

pytestmark = pytest.mark.one_engine  # the search runs on the fast engine whatever the input

ROOT = Path(__file__).resolve().parent.parent
MIDGAME = json.loads((ROOT / "examples" / "midgame-4p.json").read_text())


def _stats(result):
    return [(a.action, a.visits, a.avail, round(a.win_prob, 9), tuple(round(x, 6) for x in a.mean_money))
            for a in result.actions]


def states_by_decision(players: int, seeds: range) -> dict[str, object]:
    """One state per decision kind reached in seeded random games."""
    found: dict[str, object] = {}
    for seed in seeds:
        rng = random.Random(seed)
        st = Game(players).new_initial_state(seed, engine="fast")
        while not st.is_terminal():
            kind = st.pending()
            if kind not in found:
                found[kind] = st.copy()
            st.apply(rng.choice(st.legal_actions()))
    return found


def test_same_seed_same_result():
    st = Game(4).new_initial_state(3)
    a = search(st, SearchLimits(iterations=3000), seed=11)
    b = search(st, SearchLimits(iterations=3000), seed=11)
    assert _stats(a) == _stats(b) and a.pv == b.pv and a.best_action == b.best_action
    assert a.iterations == 3000


def test_different_seeds_explore_differently():
    st = state_from_json(MIDGAME, seed=1)
    a = search(st, SearchLimits(iterations=2000), seed=1)
    b = search(st, SearchLimits(iterations=2000), seed=2)
    assert _stats(a) != _stats(b)


def test_result_statistics_are_consistent():
    st = state_from_json(MIDGAME, seed=1)
    r = search(st, SearchLimits(iterations=4000), SearchConfig(money_weight=0.0), seed=5)  # pure win shares
    legal = st.legal_actions()
    assert r.mover == st.current_player()
    assert {a.action for a in r.actions} <= set(legal)
    assert r.best_action == r.actions[0].action and r.best_text == st.action_to_text(r.best_action)
    assert sum(a.visits for a in r.actions) == r.iterations  # every iteration passes one root child
    assert all(a.avail >= a.visits for a in r.actions)
    assert abs(sum(a.share for a in r.actions) - 1) < 1e-9
    for a in r.actions:
        assert len(a.mean_money) == 4 and 0 <= a.win_prob <= 1
        assert abs(sum(a.mean_reward) - 1) < 1e-4  # win shares of all seats add up to 1
    assert r.pv[0] == r.best_text
    assert r.iterations_per_second > 0 and r.nodes > 1 and r.node_bytes > 0


def test_pv_is_a_legal_line_at_least_to_the_end_of_the_movers_decisions():
    st = Game(3).new_initial_state(8)
    for a in st.legal_actions()[:1]:
        st.apply(a)
    r = search(st, SearchLimits(iterations=3000), seed=2)
    walk = st.copy()
    for text in r.pv:
        walk.play(text)  # raises if the PV is not legal
    assert len(r.pv) >= 1


@pytest.mark.parametrize("players", [2, 3, 4])
def test_search_from_every_kind_of_decision(players):
    found = states_by_decision(players, range(40))
    assert {"setup", "turn", "research", "market", "market_price", "buyer"} <= set(found)
    for kind, st in found.items():
        r = search(st, SearchLimits(iterations=300), seed=1)
        assert r.best_action in st.legal_actions(), kind
        assert r.mover == st.current_player()


def test_benz_decision_at_scoring_is_searched():
    for seed in range(200):
        found = states_by_decision(3, range(seed, seed + 1))
        if "benz" in found:
            st = found["benz"]
            r = search(st, SearchLimits(iterations=500), seed=1)
            assert r.best_text.startswith("benz")
            return
    pytest.fail("no Benz decision in 200 random games")


def test_terminal_state_is_refused():
    st = Game(2).new_initial_state(1)
    rng = random.Random(1)
    while not st.is_terminal():
        st.apply(rng.choice(st.legal_actions()))
    with pytest.raises(ValueError, match="over"):
        search(st, SearchLimits(iterations=10))


def test_reference_states_are_searched_on_the_fast_engine():
    ref = Game(2).new_initial_state(4, engine="reference")
    fast = convert(ref, "fast")
    assert _stats(search(ref, SearchLimits(iterations=500), seed=3)) == \
        _stats(search(fast, SearchLimits(iterations=500), seed=3))


def test_time_limit():
    st = Game(4).new_initial_state(1)
    r = search(st, SearchLimits(seconds=0.2), seed=1)
    assert 0.15 < r.elapsed < 2.0 and r.iterations > 100


@pytest.mark.parametrize("bad", [dict(), dict(iterations=0), dict(seconds=-1), dict(iterations=True)])
def test_bad_limits(bad):
    with pytest.raises(ValueError, match="SearchLimits"):
        SearchLimits(**bad)


@pytest.mark.parametrize("bad", [dict(c_uct=-1), dict(money_weight=2), dict(workers=0)])
def test_bad_config(bad):
    with pytest.raises(ValueError, match="SearchConfig"):
        SearchConfig(**bad)


def test_two_workers_merge_root_statistics():
    st = state_from_json(MIDGAME, seed=1)
    r = search(st, SearchLimits(iterations=2001), SearchConfig(workers=2), seed=4)
    # The iteration limit is the total over the workers (1001 + 1000 here).
    assert r.iterations == 2001 and sum(a.visits for a in r.actions) == 2001 and not r.interrupted
    assert r.best_action in st.legal_actions() and r.nodes == 2001 + 2
    again = search(st, SearchLimits(iterations=2001), SearchConfig(workers=2), seed=4)
    assert _stats(again) == _stats(r) and again.pv == r.pv


def test_the_money_blend_changes_the_rewards():
    st = state_from_json(MIDGAME, seed=1)
    plain = search(st, SearchLimits(iterations=1500), SearchConfig(money_weight=0.0), seed=3)
    blended = search(st, SearchLimits(iterations=1500), SearchConfig(money_weight=0.5), seed=3)
    assert _stats(plain) != _stats(blended)


# ---------------------------------------------------------------------------
# Determinization hygiene
# ---------------------------------------------------------------------------


def test_determinized_decks_hold_exactly_the_undrawn_cards():
    st = state_from_json(MIDGAME, seed=1, engine="fast")  # _search works on the fast engine
    obs = st.observation()
    deck = reference(st).deck
    for seed in range(50):
        d = _search.determinized(st, seed)
        assert Counter(reference(d).deck) == Counter(deck)
        assert d.observation() == obs


def test_determinized_decks_are_uniform():
    """Chi-square on the top card: its type is drawn in proportion to the undrawn counts."""
    st = state_from_json(MIDGAME, seed=1, engine="fast")  # _search works on the fast engine
    counts = Counter(reference(st).deck)
    total = sum(counts.values())
    n = 6000
    tops = Counter(reference(_search.determinized(st, seed)).deck[-1] for seed in range(n))
    chi2 = sum((tops[t] - n * c / total) ** 2 / (n * c / total) for t, c in counts.items())
    df = len(counts) - 1
    assert chi2 < df + 5 * (2 * df) ** 0.5, (chi2, df)  # far beyond a 99.9% bound only if biased
    # ... and on a middle position too.
    mids = Counter(reference(_search.determinized(st, seed)).deck[total // 2] for seed in range(n))
    chi2 = sum((mids[t] - n * c / total) ** 2 / (n * c / total) for t, c in counts.items())
    assert chi2 < df + 5 * (2 * df) ** 0.5, (chi2, df)


def test_search_never_depends_on_the_true_deck_order():
    st = state_from_json(MIDGAME, seed=1)
    other = state_from_json(MIDGAME, seed=999)  # same observation, another true order
    assert other.observation() == st.observation() and reference(other).deck != reference(st).deck
    assert _stats(search(st, SearchLimits(iterations=2000), seed=7)) == \
        _stats(search(other, SearchLimits(iterations=2000), seed=7))


def test_cheating_search_does_depend_on_the_true_order():
    st = state_from_json(MIDGAME, seed=1)
    other = state_from_json(MIDGAME, seed=999)
    cfg = SearchConfig(determinize=False)
    assert _stats(search(st, SearchLimits(iterations=2000), cfg, seed=7)) != \
        _stats(search(other, SearchLimits(iterations=2000), cfg, seed=7))


# ---------------------------------------------------------------------------
# Bots
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("spec, cls", [("random", RandomBot), ("ismcts:iterations=50", SearchBot),
                                       ("cheat:iterations=50", SearchBot),
                                       ("pimc:worlds=2,iterations=50", PIMCBot)])
def test_from_spec(spec, cls):
    assert isinstance(from_spec(spec, seed=1), cls)


@pytest.mark.parametrize("spec, message", [
    ("nobody", "unknown bot 'nobody'"),
    ("ismcts:iters=5", "unknown option 'iters'"),
    ("ismcts:iterations=lots", "iterations expects"),
    ("ismcts:iterations", "expected key=value"),
    ("pimc:worlds=0", "worlds must be positive: an integer from 1 to 100,000, got '0'"),
    ("ismcts:c=-1", "c expects a finite number from 0 to 1,000"),
    ("ismcts:seconds=inf", "seconds expects a finite number greater than 0"),
    ("ismcts:seconds=nan", "seconds expects a finite number"),
    ("ismcts:c=nan", "c expects a finite number"),
    ("ismcts:iterations=99999999999999999999", "iterations expects an integer from 1 to 2,147,483,647"),
    ("ismcts:iterations=2147483648", "iterations expects an integer"),
    ("ismcts:iterations=5,iterations=6", "option 'iterations' is given twice"),
    ("ismcts:workers=100000", "workers expects an integer from 1 to 256"),
    ("ismcts:money=1.5", "money expects a finite number from 0 to 1"),
    ("", "bot spec"),
])
def test_bad_specs(spec, message):
    from kwsearch.bots import BotSpec, BotSpecError
    from kwsearch.errors import KwsearchError
    with pytest.raises(BotSpecError, match=message):
        from_spec(spec)
    with pytest.raises(KwsearchError, match=message):  # parsing alone finds it (no bot is built)
        BotSpec.parse(spec)


@pytest.mark.parametrize("text, canonical", [
    ("ismcts:iterations=500", "ismcts:iterations=500"),
    (" ISMCTS: iterations=0500 , c=0.50", "ismcts:iterations=500,c=0.5"),
    ("heuristic", "heuristic"),
    ("pimc:worlds=4,iterations=100,rollout=random", "pimc:worlds=4,iterations=100,rollout=random"),
    ("ismcts:seconds=1e-1,loop=closed,reuse=0,workers=2,money=0", "ismcts:seconds=0.1,loop=closed,reuse=0,workers=2,money=0"),
    ("ismcts:seconds=2.0,c=1e3", "ismcts:seconds=2,c=1000"),
])
def test_bot_spec_round_trip(text, canonical):
    from kwsearch.bots import BotSpec
    spec = BotSpec.parse(text)
    assert str(spec) == canonical and BotSpec.parse(str(spec)) == spec and BotSpec.parse(spec) is spec
    assert spec.name == canonical.partition(":")[0]
    hash(spec)  # a value: usable as a key


@pytest.mark.parametrize("players", [2, 3, 4])
def test_bots_play_legal_games(players):
    specs = ["ismcts:iterations=60", "pimc:worlds=2,iterations=60", "cheat:iterations=60", "random"]
    bots = [from_spec(specs[i % len(specs)], seed=i) for i in range(players)]
    seen = []

    def step(st, seat, a):
        seen.append(a in st.legal_actions())
        # The longest of thousands of random games has under 300 decisions; search bots that break
        # visit ties by action id alone once repeated the lowest tile forever here (3 players).
        assert len(seen) < 3000, "the game does not end"

    final = play_game(Game(players).new_initial_state(players), bots, on_step=step)
    assert final.is_terminal() and all(seen) and len(seen) > 20


def test_bots_are_reproducible():
    def game():
        bots = [from_spec("ismcts:iterations=80", seed=3), from_spec("pimc:worlds=2,iterations=80", seed=4)]
        return play_game(Game(2).new_initial_state(9), bots).to_json()
    assert game() == game()


def test_ismcts_beats_random():
    """A small, fast sanity check of strength (the real measurements live in bench/strength.py)."""
    wins = 0.0
    games = 6
    for g in range(games):
        ismcts, rnd = from_spec("ismcts:iterations=400", seed=g), from_spec("random", seed=g)
        bots = [ismcts, rnd] if g % 2 == 0 else [rnd, ismcts]
        final = play_game(Game(2).new_initial_state(100 + g), bots)
        wins += final.returns()[g % 2]
    assert wins >= 5


# ---------------------------------------------------------------------------
# Tree reuse
# ---------------------------------------------------------------------------


def test_extracted_subtree_keeps_the_statistics():
    """Tree reuse starts from exactly the statistics a search gathered under the played action."""
    from kwsearch.search import Searcher
    st = state_from_json(MIDGAME, seed=1)
    s = Searcher(seed=2)
    r = s.search(st, SearchLimits(iterations=4000))
    node = s.tree.child(0, r.best_action)
    before = s.tree.children(node)
    sub = s.tree.extract(node)
    assert [c[:7] for c in sub.children(0)] == [c[:7] for c in before]
    assert sub.root_visits() == next(a.visits for a in r.actions if a.action == r.best_action)

    def count(tree, n):
        return 1 + sum(count(tree, c[7]) for c in tree.children(n))
    assert count(sub, 0) == count(s.tree, node) == sub.size


def test_searcher_reuses_the_subtree_of_the_played_actions():
    from kwsearch.search import Searcher
    st = Game(3).new_initial_state(5)
    s = Searcher(seed=1)
    r = s.search(st, SearchLimits(iterations=3000))
    carried = next(a.visits for a in r.actions if a.action == r.best_action)
    s.advance(r.best_action)
    st.apply(r.best_action)
    r2 = s.search(st, SearchLimits(iterations=1000))
    assert r2.reused_visits == carried
    # The visit that created the node went on to a playout, not to a child.
    assert sum(a.visits for a in r2.actions) == carried - 1 + 1000


def test_searcher_starts_afresh_when_the_actions_left_the_tree():
    from kwsearch.search import Searcher
    st = Game(2).new_initial_state(6)
    s = Searcher(seed=1)
    s.search(st, SearchLimits(iterations=50))
    unexplored = st.legal_actions()[0]
    s.advance(9999)  # not a child of the root
    st.apply(unexplored)
    r = s.search(st, SearchLimits(iterations=200))
    assert r.reused_visits == 0 and sum(a.visits for a in r.actions) == 200


def test_play_game_informs_bots_and_restarts_them():
    seen = []

    class Spy(RandomBot):
        def observe(self, action):
            seen.append(action)

        def restart(self):
            seen.append("restart")
            super().restart()

    spy = Spy(1)
    final = play_game(Game(2).new_initial_state(2), [spy, spy])
    assert seen[0] == "restart" and seen.count("restart") == 1
    assert len(seen) - 1 > 20 and final.is_terminal()


def test_reuse_option_in_specs():
    assert from_spec("ismcts:iterations=10,reuse=0").reuse is False
    assert from_spec("ismcts:iterations=10").reuse is True
    with pytest.raises(ValueError, match="reuse expects 0 or 1"):
        from_spec("ismcts:reuse=yes")


# ---------------------------------------------------------------------------
# Closed loop
# ---------------------------------------------------------------------------


def test_closed_loop_branches_on_the_revealed_cards():
    st = Game(2).new_initial_state(2)
    open_ = search(st, SearchLimits(iterations=5000), seed=3)
    closed = search(st, SearchLimits(iterations=5000), SearchConfig(closed_loop=True), seed=3)
    # Open loop: one node per iteration (plus the root). Closed loop adds chance-outcome nodes.
    assert open_.nodes == 5001
    assert closed.nodes > 5001
    assert closed.best_action in st.legal_actions()
    walk = st.copy()
    for text in closed.pv:  # outcome nodes never appear in the PV
        walk.play(text)


def test_closed_loop_spec():
    bot = from_spec("ismcts:iterations=100,loop=closed", seed=1)
    assert bot.config.closed_loop is True
    with pytest.raises(ValueError, match="loop expects open or closed"):
        from_spec("ismcts:loop=sideways")
    final = play_game(Game(2).new_initial_state(3), [bot, from_spec("random", seed=2)])
    assert final.is_terminal()


def test_tempo_rollout_policy():
    st = Game(4).new_initial_state(5)
    cfg = SearchConfig(rollout="tempo")
    a = search(st, SearchLimits(iterations=3000), cfg, seed=4)
    b = search(st, SearchLimits(iterations=3000), cfg, seed=4)
    plain = search(st, SearchLimits(iterations=3000), SearchConfig(rollout="random"), seed=4)
    assert _stats(a) == _stats(b)  # reproducible
    assert _stats(a) != _stats(plain)  # the policy changes the playouts
    assert SearchConfig().rollout is None and from_spec("ismcts").config.rollout is None  # by player count
    assert SearchConfig().for_players(4).rollout == "smart" and SearchConfig().for_players(3).rollout == "smart"
    assert SearchConfig(rollout="tempo").for_players(3).rollout == "tempo"  # an explicit one is kept
    assert a.best_action in st.legal_actions()
    with pytest.raises(ValueError, match="rollout"):
        SearchConfig(rollout="greedy")
    bot = from_spec("ismcts:iterations=100,rollout=tempo", seed=1)
    assert bot.config.rollout == "tempo"
    with pytest.raises(ValueError, match="rollout expects random or tempo or smart"):
        from_spec("ismcts:rollout=greedy")
    final = play_game(Game(3).new_initial_state(3), [bot, from_spec("random", seed=2),
                                                     from_spec("pimc:worlds=2,iterations=60,rollout=tempo")])
    assert final.is_terminal()


def _jumps(state, action) -> int:
    """Other workers a turn's tile choice lets past the mover (reference chain, tail first)."""
    chain = state.chain
    entry = action - A.TILE if action < A.SPECIAL_TILE else SPECIAL + action - A.SPECIAL_TILE
    return sum(1 for e in chain[1:chain.index(entry)] if is_seat(e))


@pytest.mark.parametrize("players, v6", [(2, False), (4, False), (3, True)])
def test_tempo_playouts_are_legal_and_keep_tempo(players, v6):
    jumps = {"tempo": [], "random": []}
    for seed in range(6):
        start = Game(players, v6=v6).new_initial_state(seed, engine="fast")
        trace = _search.tempo_playout_actions(start, seed)
        ref = convert(start, "reference")
        for a in trace:  # every action is legal, and the trace ends the game
            assert a in ref.legal_actions()
            if ref.pending() == "turn":
                jumps["tempo"].append(_jumps(ref, a))
            ref.apply(a)
        assert ref.is_terminal()
        rnd = random.Random(seed)
        ref = Game(players, v6=v6).new_initial_state(seed, engine="reference")
        while not ref.is_terminal():
            a = rnd.choice(ref.legal_actions())
            if ref.pending() == "turn":
                jumps["random"].append(_jumps(ref, a))
            ref.apply(a)
    mean = {k: sum(v) / len(v) for k, v in jumps.items()}
    assert mean["tempo"] < 0.85 * mean["random"], mean


# ---------------------------------------------------------------------------
# V6: the specialty stacks' order is hidden information too
# ---------------------------------------------------------------------------


def _v6_midgame(seed: int = 3):
    """A V6 state at a turn start of round 1 (stacks B and C wholly face down)."""
    rng = random.Random(seed)
    st = Game(3, v6=True).new_initial_state(seed, engine="reference")
    for _ in range(40):
        st.apply(rng.choice(st.legal_actions()))
    while st.pending() != "turn":
        st.apply(rng.choice(st.legal_actions()))
    return convert(st, "fast")


def test_determinized_specialty_stacks_hold_the_same_tiles_and_are_uniform():
    st = _v6_midgame()
    obs = st.observation()
    undrawn = reference(st).spec_undrawn
    tops = Counter()
    for seed in range(2000):
        d = _search.determinized(st, seed)
        d_undrawn = reference(d).spec_undrawn
        assert [sorted(x) for x in d_undrawn] == [sorted(x) for x in undrawn]
        assert d.observation() == obs
        tops[d_undrawn[1][-1]] += 1  # the top of stack B
    assert set(tops) == set(undrawn[1])
    expected = 2000 / len(tops)
    assert all(abs(n - expected) < 0.25 * expected for n in tops.values()), tops


def test_search_never_depends_on_the_true_specialty_order():
    st = _v6_midgame()
    ref = convert(st, "reference")
    other = ref.copy()
    other.spec_undrawn = [list(reversed(x)) for x in other.spec_undrawn]  # another true order
    other = convert(other, "fast")
    assert other.observation() == st.observation() and reference(other).spec_undrawn != ref.spec_undrawn
    assert _stats(search(st, SearchLimits(iterations=1500), seed=7)) == \
        _stats(search(other, SearchLimits(iterations=1500), seed=7))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_player_count_defaults(players):
    from kwsearch.search import DEFAULT_C_UCT, DEFAULT_CUTOFF, DEFAULT_EVALUATION, DEFAULT_MONEY_WEIGHT, DEFAULT_ROLLOUT
    st = Game(players).new_initial_state(2)
    res = search(st, SearchLimits(iterations=300), seed=1)
    assert res.config.c_uct == DEFAULT_C_UCT[players] and res.config.money_weight == DEFAULT_MONEY_WEIGHT[players]
    assert res.config.rollout == DEFAULT_ROLLOUT[players] and res.config.cutoff == DEFAULT_CUTOFF[players]
    # The defaults are the same search as the values spelled out; explicit values are kept.
    spelled = search(st, SearchLimits(iterations=300), SearchConfig(c_uct=DEFAULT_C_UCT[players],
                                                                     money_weight=DEFAULT_MONEY_WEIGHT[players],
                                                                     rollout=DEFAULT_ROLLOUT[players],
                                                                     cutoff=DEFAULT_CUTOFF[players]), seed=1)
    assert _stats(res) == _stats(spelled)
    other = search(st, SearchLimits(iterations=300), SearchConfig(c_uct=1.3, money_weight=0.3, rollout="random",
                                                                  cutoff=0), seed=1)
    assert (other.config.c_uct, other.config.money_weight, other.config.rollout, other.config.cutoff) == \
        (1.3, 0.3, "random", 0)
    bot = from_spec("ismcts:iterations=300,c=1.3", seed=0)
    assert bot.config.c_uct == 1.3 and bot.config.money_weight is None and bot.config.cutoff is None
    # Chosen by matches (docs/strength.md): two players, smart playouts cut off after 15 decisions,
    # scored by the tempo evaluation, money weight 0.2 and exploration constant 0.3 (0.7 until the
    # sixteenth round of issue 32); four players, smart playouts cut off after
    # 30 decisions, scored by the evaluation fitted to searched games; three players, smart playouts cut
    # off after 30 decisions, scored by the evaluation fitted to smart playouts, exploration constant
    # 0.25 with three and four (0.4 until the seventeenth and twenty-first rounds; money weight 0.5
    # with three and four).
    assert (DEFAULT_C_UCT[2], DEFAULT_MONEY_WEIGHT[2], DEFAULT_ROLLOUT[2], DEFAULT_CUTOFF[2],
            DEFAULT_EVALUATION[2]) == (0.3, 0.2, "smart", 15, "tempo")
    assert (DEFAULT_C_UCT[3], DEFAULT_MONEY_WEIGHT[3], DEFAULT_ROLLOUT[3], DEFAULT_CUTOFF[3],
            DEFAULT_EVALUATION[3]) == (0.25, 0.5, "smart", 30, "smart")
    assert (DEFAULT_C_UCT[4], DEFAULT_MONEY_WEIGHT[4], DEFAULT_ROLLOUT[4], DEFAULT_CUTOFF[4],
            DEFAULT_EVALUATION[4]) == (0.25, 0.5, "smart", 30, "searched")
    # The evaluation is filled in only where playouts stop early, and an explicit one is kept.
    assert res.config.evaluation == (DEFAULT_EVALUATION[players] if DEFAULT_CUTOFF[players] else None)
    assert SearchConfig(cutoff=0).for_players(4).evaluation is None
    assert SearchConfig(cutoff=20).for_players(4).evaluation == "searched"
    assert SearchConfig(cutoff=20).for_players(2).evaluation == "tempo"
    assert SearchConfig(cutoff=20).for_players(3).evaluation == "smart"
    assert SearchConfig(cutoff=20, evaluation="tempo").for_players(4).evaluation == "tempo"


@pytest.mark.parametrize("players", [2, 3, 4])
def test_former_default_is_reachable_by_a_spec(players):
    """The default before issue 17 (search.FORMER_DEFAULT) is the search the plain spec gave then."""
    from kwsearch.search import FORMER_DEFAULT
    st = Game(players).new_initial_state(3)
    bot = from_spec(f"ismcts:iterations=200,{FORMER_DEFAULT[players]}", seed=0)
    used = bot.config.for_players(players)
    assert (used.rollout, used.cutoff, used.c_uct) == ("tempo", 0, 0.7 if players == 2 else 0.4)
    assert used.money_weight == (0.0 if players == 2 else 0.5)
    res = search(st, SearchLimits(iterations=200), bot.config, seed=5)
    assert res.config.evaluation is None and res.config.cutoff == 0
    # every player count's default has changed since (three players' in issue 32)
    assert _stats(res) != _stats(search(st, SearchLimits(iterations=200), seed=5))


@pytest.mark.parametrize("engine", ["reference", "fast"])
def test_play_match_adjudicates_at_the_cap_with_shared_ties(engine):
    """The match rule: past ``max_decisions`` the game stops and is scored on the current money by the
    game's tie rule (a shared lead shares the win); below the cap nothing changes."""
    from kwsearch.bots import MAX_MATCH_DECISIONS, play_match
    from kwsearch.game import win_shares
    seen = []
    res = play_match(Game(3).new_initial_state(seed=9, engine=engine), [RandomBot(s) for s in range(3)],
                     on_step=lambda st, seat, a: seen.append(a), max_decisions=5)
    assert res.adjudicated and res.decisions == 5 == len(seen) and not res.state.is_terminal()
    assert res.money == res.state.money() and res.returns == win_shares(res.money) == [1 / 3] * 3
    full = play_match(Game(3).new_initial_state(seed=9, engine=engine), [RandomBot(s) for s in range(3)])
    plain = play_game(Game(3).new_initial_state(seed=9, engine=engine), [RandomBot(s) for s in range(3)])
    assert not full.adjudicated and full.state.is_terminal() and full.decisions < MAX_MATCH_DECISIONS
    assert full.money == plain.money() and full.returns == plain.returns()
    with pytest.raises(Exception, match="max_decisions: expected a positive integer"):
        play_game(Game(2).new_initial_state(seed=1), [RandomBot(0), RandomBot(1)], max_decisions=0)


@pytest.mark.parametrize("engine", ["reference", "fast"])
def test_a_real_stall_is_adjudicated_at_the_match_cap(engine):
    """Two seats that keep taking the hire-only tile: the rules let the round go on for ever; the
    match cap stops it and the seat with more money wins (both engines)."""
    from helpers import HireOnlyBot
    from kwsearch.bots import MAX_MATCH_DECISIONS, play_match
    from kwsearch.game import win_shares
    moves = []
    res = play_match(Game(2).new_initial_state(seed=3, engine=engine), [HireOnlyBot(), HireOnlyBot()],
                     on_step=lambda st, seat, a: moves.append((st.action_to_text(a), list(st.money()))))
    assert res.adjudicated and res.decisions == MAX_MATCH_DECISIONS and not res.state.is_terminal()
    assert all(text == "tile 0" and money == res.money for text, money in moves[-200:])  # nothing changes any more
    assert res.returns == win_shares(res.money) == [0.0, 1.0] and res.money == [0, 7]


@pytest.mark.one_engine
def test_a_reused_tree_never_offers_or_walks_an_option_illegal_here(monkeypatch):
    """A reused subtree (open loop) holds children for options other reveals made legal: after a
    research card is taken, the next decision's node has children for cards that other
    determinizations turned up. The result must offer only the options legal in the state searched,
    and the plan of an option is never walked from an illegal one (``apply`` is unchecked: that
    corrupted the engine's memory and crashed tournaments of cut-off bots). Game 5 of this schedule
    reaches such a node (found by a 60-game tournament that crashed)."""
    import kwsearch.search as S
    from kwsearch.tournament import TournamentSpec, play_scheduled_game

    seen = {"results": 0, "stale": 0}
    make = S._make_result

    def checked(fast, stats, **kw):
        legal = set(fast.legal_actions())
        seen["stale"] += any(a not in legal for a in stats["root"])
        result = make(fast, stats, **kw)
        assert all(info.action in legal for info in result.actions), [i.text for i in result.actions]
        seen["results"] += 1
        return result

    monkeypatch.setattr(S, "_make_result", checked)
    bot = "ismcts:rollout=tempo,cutoff=15,eval=tempo,c=0.4,iterations="  # as it was when the crash was found
    spec = TournamentSpec(bots=(bot + "1000",) + (bot + "250",) * 3, players=4, games=60, seed=915)
    line = play_scheduled_game(spec, 5)
    assert seen["stale"] > 0, "the game no longer reaches a node with stale children: pick another"
    assert line["decisions"] > 0 and seen["results"] >= line["decisions"] // 4


def test_play_game_refuses_an_illegal_action_from_a_bot():
    """``apply`` is unchecked, so the game loop checks what a bot returns: a clear error, not a
    corrupted state."""
    from kwsearch.errors import IllegalMoveError

    class Liar:
        def restart(self):
            pass

        def step(self, state):
            return max(state.legal_actions()) + 1

        def __repr__(self):
            return "Liar()"

    st = Game(2).new_initial_state(1)
    with pytest.raises(IllegalMoveError, match=r"bot Liar\(\) in seat \d chose action \d+, which is not legal"):
        play_game(st, [Liar(), Liar()])
