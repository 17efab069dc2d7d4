"""The learned move prior (kwsearch.prior, kwsearch._eval's k_prior_features / k_policy) in the search.

Features: the Python reference and the C version agree option for option on
random positions of both engines (2, 3 and 4 players, V6 too). Weights: the
shipped files load and reproduce their stored prediction; a missing or bad
file is an error naming the file and the field, in the library, the bot specs
and the CLI (one line), never a fallback. Training: a tiny run is reproducible
from its seed. Search: with a prior (and with a cut-off too) it stays legal and
reproducible for a seed; a prior weight of 0 is exactly the search without one.
"""

from __future__ import annotations

import importlib.util
import json
import math
import random
import sys
from pathlib import Path

import pytest

from helpers import (assert_frame_errors, assert_one_line_error, assert_unreadable_weights, bad_weights_message,
                     run_cli)
from kwsearch import _eval, _search
from kwsearch import prior as P
from kwsearch.bots import BotSpecError, from_spec, play_game
from kwsearch.engine import convert
from kwsearch.prior import PriorError, load_prior
from kwsearch.rules import Game
from kwsearch.search import SearchConfig, SearchError, SearchLimits, search

ROOT = Path(__file__).resolve().parent.parent
MID = str(ROOT / "examples" / "midgame-4p.json")


def decisions(players: int, v6: bool, seed: int, every: int = 2, tempo: bool = False):
    """Every ``every``-th decision of a game (the default engine's states): uniformly random moves,
    or (``tempo``) the tempo playout policy's, which races and sells more."""
    st = Game(players, v6=v6).new_initial_state(seed=seed)
    rng = random.Random(seed)
    trace = _search.tempo_playout_actions(convert(st, "fast"), seed) if tempo else None
    k = 0
    while not st.is_terminal():
        if k % every == 0:
            yield st
        st.apply(trace[k] if tempo else rng.choice(st.legal_actions()))
        k += 1


def test_feature_lists_match():
    assert _eval.prior_feature_count() == P.NPRIOR == len(set(P.PRIOR_FEATURES))


@pytest.mark.parametrize("players,v6", [(2, False), (3, False), (4, False), (2, True), (3, True), (4, True)])
def test_features_python_and_c_agree(players, v6):
    seen = set()
    for seed in range(3):
        for st in decisions(players, v6, 300 * players + seed, tempo=seed == 1):
            legal = st.legal_actions()
            ref = dict(zip(legal, P.prior_features(st)))
            options, rows = _eval.prior_features(convert(st, "fast"))
            assert sorted(options) == sorted(legal)
            for a, row in zip(options, rows):
                assert len(row) == P.NPRIOR
                assert ref[a] == pytest.approx(row, abs=1e-12), (st.pending(), a)
                seen.update(k for k, v in enumerate(row) if v != 0)
    common = ("tile", "card_dev", "price", "tempo", "passed", "dev_useful", "dev_early", "price_value", "offer_value")
    assert {P.PRIOR_FEATURES.index(name) for name in common} <= seen


@pytest.mark.one_engine
def test_every_interaction_occurs():
    """The interactions are not dead columns: each is non-zero somewhere in a few games (the order of
    a tile's hire and buyer actions is never a choice: they commute with the others)."""
    seen = set()
    for players in (2, 3, 4):
        for seed in range(4):
            for st in decisions(players, seed % 2 == 1, 40 + seed, every=1, tempo=seed < 2):
                _, rows = _eval.prior_features(convert(st, "fast"))
                seen.update(k for row in rows for k, v in enumerate(row) if v != 0)
    assert set(P.INTERACTIONS) <= {P.PRIOR_FEATURES[k] for k in seen}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_shipped_weights_load_and_reproduce_their_prediction(players):
    obj = json.loads(P.shipped_path(players).read_text())
    pr = load_prior(None, players)
    assert pr.nplayers == players and tuple(pr.names) == P.PRIOR_FEATURES
    assert pr.weights == obj["weights"]
    assert pr.predict(obj["test"]["features"]) == pytest.approx(obj["test"]["prediction"], abs=1e-12)
    assert P.policy(obj["test"]["features"], obj["weights"]) == pytest.approx(obj["test"]["prediction"], abs=1e-12)
    training = obj["training"]
    assert training["script"] == "bench/train_prior.py" and training["games"] > 0 and "seed" in training
    assert training["command"].startswith("python bench/train_prior.py")
    held = training["holdout_metrics"]
    assert held["cross_entropy"] < held["uniform_cross_entropy"]  # the fit learned something


@pytest.mark.parametrize("players", [2, 4])
def test_policy_on_a_state_is_the_reference_model(players):
    pr = load_prior(None, players)
    for st in decisions(players, False, 7, every=20):
        got = pr.policy(convert(st, "fast"))
        want = dict(zip(st.legal_actions(), P.policy(P.prior_features(st), pr.weights)))
        assert got.keys() == want.keys()
        assert [got[a] for a in want] == pytest.approx(list(want.values()), abs=1e-12)
        assert math.fsum(got.values()) == pytest.approx(1.0) and all(0 < p <= 1 for p in got.values())


def test_features_of_a_finished_game_are_an_error():
    st = Game(2).new_initial_state(seed=1)
    rng = random.Random(1)
    while not st.is_terminal():
        st.apply(rng.choice(st.legal_actions()))
    with pytest.raises(ValueError, match="over"):
        P.prior_features(st)
    with pytest.raises(ValueError, match="over"):
        _eval.prior_features(convert(st, "fast"))
    with pytest.raises(ValueError, match="over"):
        load_prior(None, 2).policy(convert(st, "fast"))


def _train_module():
    spec = importlib.util.spec_from_file_location("train_prior", ROOT / "bench" / "train_prior.py")
    module = importlib.util.module_from_spec(spec)
    saved = list(sys.path)  # the script puts its checkout first on sys.path: undo that
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path[:] = saved
    return module


@pytest.mark.one_engine
def test_training_is_reproducible_from_its_seed(tmp_path):
    train = _train_module()
    a = train.train(2, seed=6, games=3, iterations=40, sample=0.3)
    b = train.train(2, seed=6, games=3, iterations=40, sample=0.3)
    assert a["weights"] == b["weights"] and a["test"] == b["test"]
    assert a["training"]["decisions"] == b["training"]["decisions"]
    c = train.train(2, seed=7, games=3, iterations=40, sample=0.3)
    assert c["weights"] != a["weights"]
    # at 40 iterations two of these four games stall (every seat taking a tile that does nothing):
    # they stop at the cap, and their decisions are left out
    d = train.train(2, seed=5, games=4, iterations=40, sample=0.3)
    assert d["training"]["games_stopped_at_max_decisions"] == 2 and d["training"]["max_decisions"] == 240
    with pytest.raises(SystemExit, match="stopped at 240 decisions"):
        train.train(2, seed=5, games=3, iterations=40, sample=0.3)
    assert train.main(["--seed", "5", "--games", "2", "--iterations", "30", "--sample", "0.2", "--players", "3",
                       "--out", str(tmp_path)]) == 0
    pr = load_prior(tmp_path / "prior-3p.json", 3)
    assert pr.nplayers == 3 and pr.meta["training"]["seed"] == 5


@pytest.mark.one_engine
def test_training_with_another_search_spec(tmp_path):
    """``--search SPEC``: self-play by that search (recorded with the player-count defaults filled in);
    reproducible from its seed like the default; a spec of another bot is a usage error."""
    train = _train_module()
    a = train.train(2, seed=8, games=3, iterations=60, sample=0.3, search_spec="ismcts")
    again = train.train(2, seed=8, games=3, iterations=60, sample=0.3, search_spec="ismcts")
    assert (a["weights"], a["test"], a["training"]["decisions"]) == \
        (again["weights"], again["test"], again["training"]["decisions"])
    search = a["training"]["search"]
    assert (search["rollout"], search["cutoff"], search["c_uct"]) == ("smart", 15, 0.3)  # today's 2p default
    former = train.train(2, seed=8, games=3, iterations=60, sample=0.3)
    assert former["training"]["search"]["rollout"] == "tempo" and former["weights"] != a["weights"]
    for bad in ("heuristic", "ismcts:c=-1"):
        with pytest.raises(SystemExit):
            train.main(["--seed", "1", "--games", "2", "--search", bad, "--out", str(tmp_path)])


# ---------------------------------------------------------------------------
# The search with a prior
# ---------------------------------------------------------------------------


def _midgame(players: int, seed: int = 11, moves: int = 25):
    st = Game(players).new_initial_state(seed=seed)
    rng = random.Random(1)
    for _ in range(moves):  # into the game, past the set-up
        st.apply(rng.choice(st.legal_actions()))
    return st


@pytest.mark.parametrize("players", [2, 3])
@pytest.mark.parametrize("cutoff", [0, 10])
def test_search_with_prior_is_legal_and_reproducible(players, cutoff):
    st = _midgame(players)
    config = SearchConfig(prior=2.0, cutoff=cutoff)
    a = search(st, SearchLimits(iterations=1500), config, seed=4)
    b = search(st, SearchLimits(iterations=1500), config, seed=4)
    assert a.actions == b.actions and a.pv == b.pv and a.nodes == b.nodes
    assert a.best_action in st.legal_actions()
    assert a.iterations == sum(x.visits for x in a.actions) == 1500
    assert a.config.prior == 2.0 and a.config.as_dict()["prior"] == 2.0
    plain = search(st, SearchLimits(iterations=1500), SearchConfig(cutoff=cutoff), seed=4)
    assert plain.actions != a.actions  # the prior changes what the search explores


def test_prior_weight_zero_is_the_search_without_it():
    st = _midgame(3)
    fast = convert(st, "fast")
    pr = load_prior(None, 3)
    runs = []
    for weight, model in ((0.0, None), (0.0, pr)):
        tree = _search.Tree()
        params = _search.Params(SearchConfig(c_uct=0.7, money_weight=0.1, rollout="tempo", cutoff=0, prior=weight),
                                None, model)
        _search.run_slice(tree, fast, params, 700, 0, 99)
        runs.append((tree.size, tree.children()))
    assert runs[0] == runs[1]
    assert "prior" not in SearchConfig().as_dict()  # the recorded settings of a search without it are unchanged


def test_run_slice_checks_the_prior():
    fast = convert(_midgame(2), "fast")
    config = SearchConfig(c_uct=0.7, money_weight=0.1, rollout="tempo", cutoff=0, prior=1.0)
    with pytest.raises(ValueError, match="needs a prior"):
        _search.Params(config)
    with pytest.raises(ValueError, match="fitted for 3 players"):
        _search.run_slice(_search.Tree(), fast, _search.Params(config, None, load_prior(None, 3)), 10, 0, 1)


@pytest.mark.one_engine
def test_search_with_prior_and_workers_is_reproducible():
    st = _midgame(2)
    config = SearchConfig(prior=1.5, workers=2)
    a = search(st, SearchLimits(iterations=1200), config, seed=8)
    b = search(st, SearchLimits(iterations=1200), config, seed=8)
    assert a.actions == b.actions and a.best_action in st.legal_actions()


def test_bots_with_prior_play_legal_games():
    bots = [from_spec("ismcts:iterations=40,prior=2,cutoff=8", seed=1),
            from_spec("pimc:worlds=2,iterations=40,prior=1", seed=2)]
    seen = []
    final = play_game(Game(2).new_initial_state(3), bots,
                      on_step=lambda st, seat, a: seen.append(a in st.legal_actions()))
    assert final.is_terminal() and all(seen) and len(seen) > 20


def test_bot_spec_with_prior_file(tmp_path):
    path = tmp_path / "p.json"
    path.write_text(P.shipped_path(2).read_text())
    spec = f"ismcts:iterations=30,prior=2,priorw={path}"
    st = Game(2).new_initial_state(1)
    assert from_spec(spec, seed=1).step(st) in st.legal_actions()
    with pytest.raises(BotSpecError, match="no such file"):
        from_spec(f"ismcts:iterations=30,prior=2,priorw={tmp_path / 'missing.json'}")
    with pytest.raises(BotSpecError, match="prior"):
        from_spec(f"ismcts:iterations=30,priorw={path}")
    with pytest.raises(BotSpecError, match="prior"):
        from_spec("ismcts:iterations=30,prior=-1")
    with pytest.raises(PriorError, match="the game has 3"):  # weights of another player count
        from_spec(spec, seed=1).step(Game(3).new_initial_state(1))


# ---------------------------------------------------------------------------
# Bad weights files and settings
# ---------------------------------------------------------------------------


def _doc(players: int = 2) -> dict:
    return json.loads(P.shipped_path(players).read_text())


def _bad(tmp_path, mutate) -> str:
    return bad_weights_message(tmp_path, _doc(), mutate, load_prior, PriorError)


@pytest.mark.one_engine
def test_bad_weights_files_name_file_and_field(tmp_path):
    assert_unreadable_weights(tmp_path, load_prior, PriorError)
    assert "format" in _bad(tmp_path, lambda o: o.update(format="kwsearch-eval"))
    assert_frame_errors(lambda mutate: _bad(tmp_path, mutate))

    def shift_a_telling_weight(o):  # a weight of a column that differs between the test's options
        rows = o["test"]["features"]
        k = next(k for k in range(P.NPRIOR) if len({row[k] for row in rows}) > 1)
        o["weights"][k] += 0.5
    assert "test.prediction" in _bad(tmp_path, shift_a_telling_weight)
    assert "test.prediction" in _bad(tmp_path, lambda o: o["test"]["prediction"].pop())
    assert "test.features[1]" in _bad(tmp_path, lambda o: o["test"]["features"][1].pop())
    assert "training" in _bad(tmp_path, lambda o: o.update(training=[]))
    # found by tests/fuzz/test_fuzz_models.py: test features so large that w . f is inf - inf made the
    # weights "give" NaN, which passed the comparison with the stored prediction (a NaN is never > tol);
    # such features are now refused by their size (kwsearch.weights.MAX_FEATURE) before any prediction
    msg = _bad(tmp_path, lambda o: o["test"]["features"].__setitem__(0, [1.7e308] * len(o["weights"])))
    assert "test.features[0][0]: expected at most 1e+06 in size, got 1.7e+308" in msg
    assert "players: expected 2, 3 or 4, got 2.0" in _bad(tmp_path, lambda o: o.update(players=2.0))
    assert "version: expected 1, got 1.0" in _bad(tmp_path, lambda o: o.update(version=1.0))
    (tmp_path / "list.json").write_text("[]")
    with pytest.raises(PriorError, match="JSON object"):
        load_prior(tmp_path / "list.json", 2)


def test_bad_prior_settings():
    for value in (-1, float("nan"), 1e9, "2"):
        with pytest.raises(SearchError, match="SearchConfig.prior"):
            SearchConfig(prior=value)
    with pytest.raises(SearchError, match="SearchConfig.prior_weights"):
        SearchConfig(prior_weights="p.json")  # weights without a prior weight would be ignored
    with pytest.raises(SearchError, match="SearchConfig.prior_weights"):
        SearchConfig(prior=1, prior_weights=" ")
    with pytest.raises(PriorError, match="no such file"):
        search(Game(2).new_initial_state(1), SearchLimits(iterations=10),
               SearchConfig(prior=1, prior_weights="/nonexistent/p.json"))


@pytest.mark.one_engine
def test_cli_suggest_with_prior(tmp_path):
    r = run_cli("suggest", MID, "--iterations", 600, "--prior", 2, "--json", "--seed", 2)
    assert r.exit_code == 0, r.output
    obj = json.loads(r.stdout)
    assert obj["rootInfo"]["config"]["prior"] == 2 and obj["rootInfo"]["config"]["prior_weights"] is None
    err = assert_one_line_error(run_cli("suggest", MID, "--iterations", 100, "--prior", 1, "--prior-weights",
                                        tmp_path / "missing.json"), "missing.json", "no such file")
    assert "Traceback" not in err
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(_doc(2)))  # the midgame has 4 players
    assert_one_line_error(run_cli("suggest", MID, "--iterations", 100, "--prior", 1, "--prior-weights", bad),
                          "bad.json", "players")
    assert_one_line_error(run_cli("suggest", MID, "--iterations", 100, "--prior-weights", bad), "prior")
    r = run_cli("suggest", MID, "--iterations", 100, "--prior", -1)  # a usage error (click's own form)
    assert r.exit_code == 2 and "'--prior'" in r.stderr and "Traceback" not in r.output


@pytest.mark.one_engine
def test_an_unknown_key_in_a_prior_file_is_refused_wherever_the_file_is_named(tmp_path):
    """Issue 27: ``--prior-weights``, a spec's ``priorw=`` and the loader refuse a key the frame does
    not know, in one line naming the file, the key and the keys expected."""
    doc = _doc(4)
    doc["weigths"] = doc["weights"]  # misspelt: before, silently ignored
    bad = tmp_path / "typo.json"
    bad.write_text(json.dumps(doc))
    expected = "weigths: unknown key (a move prior weights file has format, version, players, features, " \
               "weights, training and test)"
    with pytest.raises(PriorError, match=f"^{bad}: weigths: unknown key"):
        load_prior(bad, 4)
    assert_one_line_error(run_cli("suggest", MID, "--iterations", 20, "--prior", 1, "--prior-weights", bad),
                          str(bad), expected)
    assert_one_line_error(run_cli("tournament", "-b", f"ismcts:iterations=10,prior=1,priorw={bad}", "-b", "random",
                                  "-n", 4, "-g", 1, "-o", tmp_path / "t.jsonl"), str(bad), expected)
    assert not (tmp_path / "t.jsonl").exists()


def test_results_file_reads_without_its_weights_file_but_resume_needs_it(tmp_path):
    """Showing or reporting the games of a results file needs no weights file; playing on does."""
    from click.testing import CliRunner

    from kwsearch.cli import main
    from kwsearch.tournament import TournamentError, TournamentSpec, load_results, make_report, run_tournament
    path = tmp_path / "p.json"
    path.write_text(P.shipped_path(2).read_text())
    out = tmp_path / "t.jsonl"
    spec = TournamentSpec(bots=(f"ismcts:iterations=20,prior=2,priorw={path}", "random"), players=2, games=2,
                          seed=5)
    run_tournament(spec, out, workers=1)
    with pytest.raises(TournamentError, match="no such file"):  # a new tournament still checks the file
        TournamentSpec(bots=(f"ismcts:iterations=20,prior=2,priorw={tmp_path / 'gone.json'}", "random"),
                       players=2, games=2)
    path.unlink()
    header, games, _ = load_results(out)
    assert len(games) == 2 and make_report(header, games)
    r = CliRunner().invoke(main, ["show", str(out), "--game", "1"])
    assert r.exit_code == 0 and "Game over" in r.output, r.output
    r = CliRunner().invoke(main, ["report", str(out)])
    assert r.exit_code == 0 and "2 of 2 games" in r.output, r.output
    before = out.read_bytes()
    r = CliRunner().invoke(main, ["tournament", "--resume", "-o", str(out), "-g", "4"])
    assert r.exit_code != 0 and "no such file" in r.output and "Traceback" not in r.output, r.output
    assert out.read_bytes() == before  # nothing the user wrote is lost
