"""Sequential halving at the root (SearchConfig.root = "halving", spec ``root=halving``)."""

from __future__ import annotations

import json
import math
import threading
from pathlib import Path

import pytest

from kwsearch import _search
from kwsearch.bots import BotSpec, from_spec
from kwsearch.engine import convert, state_from_json
from kwsearch.rules import Game
from kwsearch.search import HALVING_STEP, SearchConfig, SearchError, SearchLimits, Searcher, search

pytestmark = pytest.mark.one_engine  # the search runs on the fast engine whatever the input

ROOT = Path(__file__).resolve().parent.parent
MIDGAME = json.loads((ROOT / "examples" / "midgame-4p.json").read_text())
HALVING = SearchConfig(root="halving")


def turn_state(players: int = 4):
    """A state at a turn (ten tiles or so to choose from)."""
    st = Game(players).new_initial_state(5, engine="fast")
    while len(st.legal_actions()) < 5:
        st.apply(st.legal_actions()[0])
    return st


def schedule(k: int, budget: int) -> list[int]:
    """The visits sequential halving gives the options dropped in each round (and, last, the choice)."""
    rounds = max(1, math.ceil(math.log2(k)))
    alive, per_option, spent, out = k, 0, 0, []
    for r in range(rounds):
        share = (budget - spent) // (rounds - r)
        per_option += share // alive  # every option gets share // alive or one more
        spent += share
        keep = 1 if r == rounds - 1 else (alive + 1) // 2
        out.append((alive - keep, per_option))
        alive = keep
    return out


def test_forced_root_option_takes_every_iteration():
    st = convert(turn_state(), "fast")
    legal = st.legal_actions()
    tree = _search.Tree()
    params = _search.Params(SearchConfig(c_uct=0.4, money_weight=0.5, rollout="tempo", cutoff=0))
    done, _ = _search.run_slice(tree, st, params, 300, 0.0, 7, legal[-1])
    kids = {a: visits for a, _p, visits, *_ in tree.children(0)}
    assert done == 300 and kids == {legal[-1]: 300}


def test_budget_is_spent_round_by_round():
    st = turn_state()
    k = len(st.legal_actions())
    r = search(st, SearchLimits(iterations=4000), HALVING, seed=3)
    assert r.config.root == "halving" and r.iterations == 4000
    assert sum(a.visits for a in r.actions) == 4000 and len(r.actions) == k
    # The options dropped in round j got (about) the j-th entry of the schedule; the choice and the
    # runner-up of the last round the most.
    visits = sorted((a.visits for a in r.actions), reverse=True)
    expected = sorted((v for dropped, v in schedule(k, 4000) for _ in range(dropped)), reverse=True)
    expected = [expected[0]] + expected  # the choice had as many as the last runner-up
    rounds = math.ceil(math.log2(k))
    assert all(abs(v - e) <= rounds for v, e in zip(visits, expected)), (visits, expected)
    # The choice is the better of the last two by the mover's mean reward.
    best, second = r.actions[0], r.actions[1]
    assert r.best_action == best.action
    assert abs(best.visits - second.visits) <= 1
    assert best.mean_reward[r.mover] >= second.mean_reward[r.mover]


def test_the_ranking_lists_each_round_best_first():
    st = turn_state()
    r = search(st, SearchLimits(iterations=4000), HALVING, seed=8)
    m = r.mover
    # Options with equal visits were dropped together; within such a batch the better mean comes first,
    # and batches dropped later (more visits) come before those dropped earlier.
    for a, b in zip(r.actions[1:], r.actions[2:]):
        assert a.visits >= b.visits - 1
        if abs(a.visits - b.visits) <= 1:
            assert a.mean_reward[m] >= b.mean_reward[m]


def test_halving_is_reproducible_and_differs_from_uct():
    st = turn_state()
    a = search(st, SearchLimits(iterations=2000), HALVING, seed=11)
    b = search(st, SearchLimits(iterations=2000), HALVING, seed=11)
    u = search(st, SearchLimits(iterations=2000), seed=11)
    assert [(x.action, x.visits, x.mean_reward) for x in a.actions] == \
        [(x.action, x.visits, x.mean_reward) for x in b.actions]
    assert a.best_action == b.best_action and a.pv == b.pv
    assert [x.visits for x in a.actions] != [x.visits for x in u.actions]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_player_count(players):
    st = turn_state(players)
    r = search(st, SearchLimits(iterations=600), HALVING, seed=2)
    assert r.iterations == 600 and r.best_action in st.legal_actions() and r.config.root == "halving"


def test_fewer_iterations_than_options_still_gives_a_legal_choice():
    st = turn_state()
    r = search(st, SearchLimits(iterations=3), HALVING, seed=1)
    assert r.iterations == 3 and r.best_action in st.legal_actions()


def test_time_limit_gives_the_finalists_equal_visits():
    st = turn_state()
    r = search(st, SearchLimits(seconds=0.3), HALVING, seed=4)
    assert 0.2 < r.elapsed < 3.0 and r.iterations > 100
    assert r.actions[0].visits == r.actions[1].visits  # whole round-robin passes
    assert r.actions[0].visits % HALVING_STEP == 0


def test_two_workers_halve_each_and_add_up():
    st = state_from_json(MIDGAME, seed=1)
    r = search(st, SearchLimits(iterations=2001), SearchConfig(root="halving", workers=2), seed=4)
    assert r.iterations == 2001 and sum(a.visits for a in r.actions) == 2001 and not r.interrupted
    again = search(st, SearchLimits(iterations=2001), SearchConfig(root="halving", workers=2), seed=4)
    assert [(x.action, x.visits) for x in r.actions] == [(x.action, x.visits) for x in again.actions]


def test_tree_reuse_adds_to_the_kept_statistics():
    st = turn_state()
    s = Searcher(HALVING, seed=1)
    first = s.run(st, SearchLimits(iterations=1000))
    s.advance(first.best_action)
    st.apply(first.best_action)
    while st.current_player() == first.mover and len(st.legal_actions()) == 1:
        s.advance(st.legal_actions()[0])
        st.apply(st.legal_actions()[0])
    second = s.run(st, SearchLimits(iterations=1000))
    total = sum(a.visits for a in second.actions)
    assert second.iterations == 1000 and total in (1000 + second.reused_visits, 999 + second.reused_visits)


def test_stop_and_progress():
    st = turn_state()
    stop = threading.Event()
    seen = []

    def progress(res):
        seen.append(res)
        stop.set()
    r = search(st, SearchLimits(seconds=30), HALVING, seed=1, progress=progress, stop=stop,
               progress_interval=0.01)
    assert r.interrupted and r.elapsed < 10 and seen and not seen[0].final
    assert r.best_action in st.legal_actions()


def test_spec_and_errors():
    spec = BotSpec.parse("ismcts:iterations=300,root=halving")
    assert str(spec) == "ismcts:iterations=300,root=halving" and BotSpec.parse(str(spec)) == spec
    assert from_spec("ismcts:iterations=300,root=halving").config.root == "halving"
    assert from_spec("ismcts:iterations=300").config.for_players(4).root == "uct"
    with pytest.raises(Exception, match="root expects uct or halving, got 'best'"):
        BotSpec.parse("ismcts:root=best")
    with pytest.raises(SearchError, match="SearchConfig.root: expected uct or halving"):
        SearchConfig(root="best")


# ---------------------------------------------------------------------------
# The opponents' exploration constant (SearchConfig.c_opponents, spec copp=)
# ---------------------------------------------------------------------------


def test_opponents_constant_equal_to_c_is_the_same_search():
    st = state_from_json(MIDGAME, seed=1)
    plain = search(st, SearchLimits(iterations=3000), seed=6)
    same = search(st, SearchLimits(iterations=3000), SearchConfig(c_opponents=plain.config.c_uct), seed=6)
    other = search(st, SearchLimits(iterations=3000), SearchConfig(c_opponents=2.0), seed=6)
    stats = lambda r: [(a.action, a.visits, a.mean_reward) for a in r.actions]  # noqa: E731
    assert stats(same) == stats(plain)
    assert stats(other) != stats(plain)
    assert plain.config.c_opponents is None and other.config.c_opponents == 2.0


def test_opponents_constant_spreads_the_other_seats_visits():
    """A huge c_opponents spreads the other seats' visits over their options (their most visited
    option holds a smaller share of their node's visits)."""
    st = convert(turn_state(), "fast")
    mover = st.current_player()
    tree_a, tree_b = _search.Tree(), _search.Tree()
    for tree, c_opponents in ((tree_a, None), (tree_b, 50.0)):
        params = _search.Params(SearchConfig(c_uct=0.4, money_weight=0.5, rollout="tempo", cutoff=0,
                                             c_opponents=c_opponents))
        _search.run_slice(tree, st, params, 3000, 0.0, 9)

    def opponent_spread(tree):
        """Share of the most visited child, over the well-visited nodes where another seat chooses."""
        shares = []
        queue = [0]
        while queue:
            node = queue.pop()
            kids = tree.children(node)
            if not kids:
                continue
            total = sum(k[2] for k in kids)
            if kids[0][1] not in (-1, mover) and total >= 50:
                shares.append(max(k[2] for k in kids) / total)
            queue.extend(k[7] for k in kids if k[2] >= 50)
        return sum(shares) / len(shares)
    assert opponent_spread(tree_b) < opponent_spread(tree_a)


def test_opponents_constant_spec_and_errors():
    spec = BotSpec.parse("ismcts:iterations=300,copp=1.5")
    assert str(spec) == "ismcts:iterations=300,copp=1.5"
    assert from_spec("ismcts:iterations=300,copp=1.5").config.c_opponents == 1.5
    with pytest.raises(Exception, match="copp expects a finite number from 0 to 1,000"):
        BotSpec.parse("ismcts:copp=-1")
    with pytest.raises(SearchError, match="SearchConfig.c_opponents"):
        SearchConfig(c_opponents=float("nan"))


def test_both_limits_and_a_full_pool():
    st = turn_state()
    r = search(st, SearchLimits(iterations=3000, seconds=60), HALVING, seed=2)
    assert r.iterations == 3000 and r.elapsed < 30  # the iteration limit came first
    small = search(st, SearchLimits(iterations=50_000), SearchConfig(root="halving", max_nodes=300), seed=2)
    assert small.pool_full and small.iterations < 50_000 and small.best_action in st.legal_actions()
