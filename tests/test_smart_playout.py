"""The smart rollout (``k_playout_smart``): legal, reproducible, and following its hand rules.

Every playout is replayed on the reference engine (each action must be legal
there, and the game must end with the same money); the rules are checked on
positions reached by random play, against a direct Python reading of the rule
(the price that wins a buyer on the table, the workers for a contested prestige
buyer, the heuristic's order of a tile's actions, the best body offered).
"""

from __future__ import annotations

import random

import pytest

from kwsearch import _fast, _playout, _search
from kwsearch import actions as A
from kwsearch.bots import BotSpec, BotSpecError, from_spec, play_game
from kwsearch.engine import convert
from kwsearch.heuristic import project_sales
from kwsearch.rules import Game
from kwsearch.search import DEFAULT_PLAYOUT, SearchConfig, SearchError, SearchLimits, search

pytestmark = pytest.mark.one_engine

#: Every decision follows the rule (the rules are then checked one decision at a time).
ALWAYS = (1.0, 1.0, 1.0, 0.7, 4.0)


def _random_states(players: int, v6: bool, seed: int, every: int = 7):
    """Fast states along one random game (every ``every``-th decision)."""
    rnd = random.Random(seed)
    st = Game(players, v6=v6).new_initial_state(seed, engine="fast")
    k = 0
    while not st.is_terminal():
        if k % every == 0:
            yield st.copy()
        st.apply(rnd.choice(st.legal_actions()))
        k += 1


@pytest.mark.parametrize("players, v6", [(2, False), (3, False), (4, False), (2, True), (3, True), (4, True)])
def test_smart_playouts_are_legal_and_deterministic(players, v6):
    params = [DEFAULT_PLAYOUT, ALWAYS, (0.0, 0.0, 0.0, 0.0, 0.0), (0.5, 0.3, 0.6, 2.0, 9.0)]
    for n, start in enumerate(_random_states(players, v6, seed=players * 10 + v6, every=25)):
        seed = 1000 + n
        playout = params[n % len(params)]
        trace = _search.smart_playout_actions(start, seed, playout)
        assert trace == _search.smart_playout_actions(start, seed, playout)  # reproducible
        ref = convert(start, "reference")
        for a in trace:
            assert a in ref.legal_actions()
            ref.apply(a)
        assert ref.is_terminal()
        actions, money = _playout.smart_playout_trace(start, seed, playout)
        assert actions == trace and money == ref.money()  # both engines end the game alike


def test_smart_playout_stops_after_max_decisions():
    start = Game(3).new_initial_state(5, engine="fast")
    full = _search.smart_playout_actions(start, 9)
    part = _search.smart_playout_actions(start, 9, None, 20000, 10)
    assert len(part) == 10 and part == full[:10]
    actions, _ = _playout.smart_playout_trace(start, 9, DEFAULT_PLAYOUT, 20000, 10)
    assert actions == part


def _first(st, playout=ALWAYS, seed=3):
    return _search.smart_playout_actions(st, seed, playout, 1, 1)[0]


def _decisions(kind: str, players=(2, 3, 4), games=12):
    """Fast states whose pending decision is ``kind`` (reached by random play)."""
    for players_ in players:
        for seed in range(games):
            rnd = random.Random(seed)
            st = Game(players_).new_initial_state(seed, engine="fast")
            while not st.is_terminal():
                if st.pending() == kind and len(st.legal_actions()) > 1:
                    yield st.copy()
                st.apply(rnd.choice(st.legal_actions()))


def test_price_rule_takes_the_highest_price_that_wins_a_buyer_else_undercuts():
    seen = {"wins": 0, "undercut": 0}
    for st in _decisions("market_price"):
        ref = convert(st, "reference")
        seat = ref.turn_seat
        body, engine, workers = ref.car[:3]
        winning = [p for p in ref.prices
                   if project_sales(ref.market + [[seat, body, engine, workers, p, 0, 0]], ref.active,
                                    ref.active_daimler)[-1] >= 0]
        if winning:
            want = max(winning)
            seen["wins"] += 1
        else:
            cheapest = min((car[4] for car in ref.market), default=1000)
            under = [p for p in ref.prices if p < cheapest]
            want = max(under) if under else min(ref.prices)
            seen["undercut"] += 1
        assert _first(st) == A.MARKET_PRICE + want
    assert seen["wins"] >= 5 and seen["undercut"] >= 5, seen


def test_workers_rule_is_one_unless_a_prestige_buyer_is_contested():
    contested = 0
    for st in _decisions("market_workers"):
        ref = convert(st, "reference")
        prestige = 2 in ref.active or (ref.stacks[2] > 0 and len(ref.active) < ref.game.buyer_spaces)
        need = 1 + max((car[3] for car in ref.market), default=0)
        canteen = ref.seats[ref.turn_seat].canteen
        want = need if prestige and need <= canteen and need <= 4 else 1
        contested += want > 1
        assert _first(st) == A.MARKET_WORKERS + want - 1
    assert contested >= 3


def test_market_rule_offers_the_best_body_and_engine():
    for st in _decisions("market", games=6):
        legal = st.legal_actions()
        assert _first(st) == max(legal)  # sell = 1: always offer, the highest body
        assert _first(st, (1.0, 1.0, 0.0, 0.7, 4.0)) == A.MARKET_PASS  # sell = 0: never
    for st in _decisions("market_engine", games=6):
        assert _first(st) == max(st.legal_actions())


def test_tile_rule_follows_the_heuristics_order():
    order = ("hire", "research", "engine", "gp_engine2", "body", "gp", "gp_start2", "buyer")
    from kwsearch.components import ALL_ACTIONS
    for st in _decisions("tile", games=6):
        want = min(st.legal_actions(), key=lambda a: order.index(ALL_ACTIONS[a - A.DO]))
        assert _first(st) == want


def test_rule_chance_zero_plays_like_random_choices():
    """With rule = 0 and tempo = 0 no hand rule is used: the choices spread over the options."""
    firsts = {_first(st, (0.0, 0.0, 0.0, 0.0, 0.0), seed=s) for st in _decisions("market_price", (2,), 2)
              for s in range(8)}
    assert len(firsts) > 2


def test_smart_rollout_in_search_and_specs():
    st = Game(2).new_initial_state(seed=3, engine="fast")
    cfg = SearchConfig(rollout="smart")
    a = search(st, SearchLimits(iterations=1500), cfg, seed=4)
    b = search(st, SearchLimits(iterations=1500), cfg, seed=4)
    tempo = search(st, SearchLimits(iterations=1500), SearchConfig(rollout="tempo"), seed=4)
    other = search(st, SearchLimits(iterations=1500), SearchConfig(rollout="smart", playout=(0.2, 0.5, 0.5, 1, 1)),
                   seed=4)
    stats = lambda r: [(x.action, x.visits) for x in r.actions]  # noqa: E731
    assert stats(a) == stats(b) and stats(a) != stats(tempo) and stats(a) != stats(other)
    assert a.config.as_dict()["playout"] == dict(zip(_search.PLAYOUT_FIELDS, DEFAULT_PLAYOUT))
    assert "playout" not in tempo.config.as_dict()
    assert SearchConfig().for_players(2).rollout == "smart"  # the two-player default (docs/strength.md)
    assert SearchConfig().for_players(4).rollout == "smart" and SearchConfig().for_players(3).rollout == "smart"
    spec = BotSpec.parse("ismcts:iterations=50,rollout=smart,rule=0.5,engineer=2")
    assert str(spec) == "ismcts:iterations=50,rollout=smart,rule=0.5,engineer=2"
    bot = spec.build(seed=1)
    assert bot.config.playout == (0.5, 0.75, 0.875, 0.7, 2.0)
    with pytest.raises(BotSpecError, match="rule is a knob of the smart rollout"):
        BotSpec.parse("ismcts:rule=0.5")
    with pytest.raises(BotSpecError, match="sell expects a finite number from 0 to 1"):
        BotSpec.parse("ismcts:rollout=smart,sell=2")
    with pytest.raises(SearchError, match="playout.tempo"):
        SearchConfig(playout=(0.5, -1.0, 0.5, 1.0, 1.0))
    with pytest.raises(SearchError, match="playout: expected a tuple of 5"):
        SearchConfig(playout=(0.5,))
    final = play_game(Game(3).new_initial_state(2), [bot, from_spec("random", seed=2),
                                                     from_spec("pimc:worlds=2,iterations=40,rollout=smart")])
    assert final.is_terminal()
