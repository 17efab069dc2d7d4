"""Playouts guided by the move prior (``SearchConfig.prior_playout``, spec ``pprior=``, ``kwsearch
suggest --prior-playout``; ``k_play`` with a guide in ``kwsearch/_fast.pyx``).

A guided playout is legal on the reference engine and repeats for its seed; at share 0 it is
the rollout policy's playout, draw for draw; at share 1 every decision follows the prior (a prior
that all but forces passes passes whenever it can, which the rollout policies do not). The
search with guided playouts stays legal and reproducible, with a cut-off and with workers, for
2, 3 and 4 players; the settings are checked at the edges (library, bot spec, CLI).
"""

from __future__ import annotations

import json
from pathlib import Path

from types import SimpleNamespace

import pytest

from helpers import assert_one_line_error, run_cli
from test_smart_playout import _random_states
from kwsearch import _eval, _search
from kwsearch import prior as P
from kwsearch.bots import BotSpec, BotSpecError, from_spec, play_game
from kwsearch.engine import convert
from kwsearch.prior import load_prior
from kwsearch.rules import Game
from kwsearch.search import SearchConfig, SearchError, SearchLimits, search

pytestmark = pytest.mark.one_engine

ROOT = Path(__file__).resolve().parent.parent
MID = str(ROOT / "examples" / "midgame-4p.json")
PASS = P.PRIOR_FEATURES.index("pass")


def _states(players: int, seed: int, every: int = 20):
    """Fast states along one random game (every ``every``-th decision; test_smart_playout's walk)."""
    return _random_states(players, False, seed, every)


def _passing_prior(players: int):
    """A prior that puts all but all of its probability on a pass whenever one is legal."""
    weights = [0.0] * P.NPRIOR
    weights[PASS] = 60.0
    return _eval.Prior(players, weights, P.PRIOR_FEATURES)


def _replay(start, trace):
    """Replay ``trace`` from ``start`` on the reference engine (every action must be legal there);
    returns, per decision, whether a pass was legal and whether one was taken."""
    ref = convert(start, "reference")
    fast = start.copy()
    out = []
    for a in trace:
        assert a in ref.legal_actions()
        options, rows = _eval.prior_features(fast)
        passes = {o for o, row in zip(options, rows) if row[PASS] == 1.0}
        out.append((bool(passes), a in passes))
        ref.apply(a)
        fast.apply(a)
    return out, ref


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("rollout", ["random", "tempo", "smart"])
def test_guided_playouts_are_legal_and_reproducible(players, rollout):
    prior = load_prior(None, players)
    for n, start in enumerate(_states(players, seed=50 + players)):
        trace = _search.guided_playout_actions(start, 700 + n, prior, 0.5, rollout)
        assert trace == _search.guided_playout_actions(start, 700 + n, prior, 0.5, rollout)
        _, ref = _replay(start, trace)
        assert ref.is_terminal()
        part = _search.guided_playout_actions(start, 700 + n, prior, 0.5, rollout, None, 20000, 7)
        assert part == trace[:7]  # a cut-off stops the same playout


def test_share_zero_is_the_rollout_policy_draw_for_draw():
    for players in (2, 4):
        prior = load_prior(None, players)
        for n, start in enumerate(_states(players, seed=9)):
            assert _search.guided_playout_actions(start, n, prior, 0.0, "smart") == \
                _search.smart_playout_actions(start, n)
            assert _search.guided_playout_actions(start, n, prior, 0.0, "tempo") == \
                _search.tempo_playout_actions(start, n)


def test_share_one_follows_the_prior_and_share_zero_does_not():
    prior = _passing_prior(3)
    guided, unguided = [], []
    for n, start in enumerate(_states(3, seed=4, every=30)):
        guided += _replay(start, _search.guided_playout_actions(start, n, prior, 1.0, "smart"))[0]
        unguided += _replay(start, _search.guided_playout_actions(start, n, prior, 0.0, "smart"))[0]
    could = [took for legal, took in guided if legal]
    assert len(could) > 50 and all(could)  # the prior's pick every time a pass was there
    assert not all(took for legal, took in unguided if legal)  # the smart policy's picks differ


def test_a_share_between_mixes_the_two():
    prior = _passing_prior(2)
    took = []
    for n, start in enumerate(_states(2, seed=6, every=4)):
        took += [t for legal, t in _replay(start, _search.guided_playout_actions(start, n, prior, 0.5,
                                                                                 "random"))[0] if legal]
    share = sum(took) / len(took)
    # a random pick passes too sometimes, so more than half of the chances are passes, but not all
    assert len(took) > 100 and 0.5 < share < 0.98


def test_guided_playout_actions_checks_its_arguments():
    start = Game(2).new_initial_state(1, engine="fast")
    with pytest.raises(ValueError, match="share"):
        _search.guided_playout_actions(start, 1, load_prior(None, 2), 1.5)
    with pytest.raises(ValueError, match="for 2 players"):
        _search.guided_playout_actions(start, 1, load_prior(None, 3), 0.5)
    with pytest.raises(ValueError, match="rollout"):
        _search.guided_playout_actions(start, 1, load_prior(None, 2), 0.5, "best")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_search_with_guided_playouts_is_legal_reproducible_and_different(players):
    st = next(s for k, s in enumerate(_states(players, seed=21, every=12)) if k == 2)
    limits = SearchLimits(iterations=1500)
    config = SearchConfig(prior_playout=0.5)
    a = search(st, limits, config, seed=5)
    assert a.actions == search(st, limits, config, seed=5).actions
    assert a.best_action in st.legal_actions() and a.iterations == 1500
    assert a.config.prior_playout == 0.5 and a.config.as_dict()["prior_playout"] == 0.5
    assert a.actions != search(st, limits, SearchConfig(), seed=5).actions  # the playouts changed
    with_cutoff = search(st, limits, SearchConfig(prior_playout=0.5, cutoff=6, prior=1.0), seed=5)
    assert with_cutoff.best_action in st.legal_actions()


def test_search_with_guided_playouts_and_workers_is_reproducible():
    st = Game(2).new_initial_state(8)
    config = SearchConfig(prior_playout=0.3, workers=2)
    a = search(st, SearchLimits(iterations=1000), config, seed=3)
    assert a.actions == search(st, SearchLimits(iterations=1000), config, seed=3).actions


def test_search_params_check_the_playout_share():
    config = SearchConfig(c_uct=0.7, money_weight=0.1, rollout="tempo", cutoff=0, prior_playout=0.5)
    with pytest.raises(ValueError, match="needs a prior"):
        _search.Params(config)
    bad = SimpleNamespace(**{**config.__dict__, "prior_playout": 1.5})  # past SearchConfig's own check
    with pytest.raises(ValueError, match="prior_playout"):
        _search.Params(bad, None, load_prior(None, 2))


def test_settings_and_specs():
    for value in (-0.1, 1.5, float("nan"), "0.5"):
        with pytest.raises(SearchError, match="SearchConfig.prior_playout"):
            SearchConfig(prior_playout=value)
    assert "prior_playout" not in SearchConfig().as_dict()
    weights = str(P.shipped_path(2))
    SearchConfig(prior_playout=0.2, prior_weights=weights)  # a playout share is a use of the weights
    _, config = BotSpec.parse(f"ismcts:iterations=50,pprior=0.25,priorw={weights}").search_settings()
    assert config.prior_playout == 0.25 and config.prior == 0 and config.prior_weights == weights
    for bad in ("ismcts:pprior=2", "ismcts:pprior=-1", "ismcts:pprior=x"):
        with pytest.raises(BotSpecError, match="pprior"):
            BotSpec.parse(bad)
    with pytest.raises(BotSpecError, match="prior"):
        BotSpec.parse(f"ismcts:iterations=50,priorw={weights}")  # weights that nothing reads
    final = play_game(Game(2).new_initial_state(5), [from_spec("ismcts:iterations=40,pprior=0.5", seed=1),
                                                     from_spec("ismcts:iterations=40,pprior=1,cutoff=5", seed=2)])
    assert final.is_terminal()


def test_cli_suggest_with_guided_playouts(tmp_path):
    r = run_cli("suggest", MID, "--iterations", 600, "--prior-playout", 0.4, "--json", "--seed", 2)
    assert r.exit_code == 0, r.output
    config = json.loads(r.stdout)["rootInfo"]["config"]
    assert config["prior_playout"] == 0.4 and config["prior"] == 0
    r = run_cli("suggest", MID, "--iterations", 600, "--prior-playout", 0.4)
    assert r.exit_code == 0 and "40% of playout decisions from the prior" in r.stdout
    assert_one_line_error(run_cli("suggest", MID, "--iterations", 100, "--prior-playout", 0.4, "--prior-weights",
                                  tmp_path / "missing.json"), "missing.json", "no such file")
    r = run_cli("suggest", MID, "--iterations", 100, "--prior-playout", 2)  # a usage error (click's own form)
    assert r.exit_code == 2 and "'--prior-playout'" in r.stderr and "Traceback" not in r.output
