"""kwsearch review: every decision of a logged game against the search's best."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from kwsearch.cli import main
from kwsearch.engine import state_from_json
from kwsearch.review import (REVIEW_FORMAT, THRESHOLDS, classify, review_decision, review_game, review_html,
                             review_text, verified_class)
from kwsearch.search import SearchLimits

pytestmark = pytest.mark.one_engine  # the review searches with the fast engine whatever the default

ROOT = Path(__file__).resolve().parent.parent
GAME = ROOT / "examples" / "game-2p.json"
LIMITS = SearchLimits(iterations=300)


def _record() -> dict:
    return json.loads(GAME.read_text())


def test_classes_follow_the_thresholds():
    assert classify(0.0) is None and classify(0.049) is None
    assert classify(0.05) == "inaccuracy" and classify(0.1) == "mistake" and classify(0.15) == "blunder"
    assert [name for name, _ in THRESHOLDS] == ["blunder", "mistake", "inaccuracy"]


def test_same_seed_same_classes_in_one_process_and_in_two():
    a = review_game(_record(), LIMITS, seed=3, source="g")
    b = review_game(_record(), LIMITS, seed=3, source="g")
    c = review_game(_record(), LIMITS, seed=3, source="g", workers=2)
    assert a.complete and len(a.decisions) == a.total_decisions > 50
    sig = [(d.ply, d.best, d.cls, round(d.loss, 9)) for d in a.decisions]
    assert sig == [(d.ply, d.best, d.cls, round(d.loss, 9)) for d in b.decisions]
    assert sig == [(d.ply, d.best, d.cls, round(d.loss, 9)) for d in c.decisions]
    for d in a.decisions:
        assert 0 <= d.played_win <= 1 and 0 <= d.best_win <= 1 and d.loss >= 0
        assert d.cls == verified_class(d.loss, d.loss_half, d.equal)  # by the loss beyond its interval
        assert d.loss == 0 or d.played != d.best
        assert abs(sum(d.win_all) - 1) < 1e-6  # every seat's win share, from one search


def test_a_planted_blunder_is_classed_as_a_blunder():
    """tests/data/tactics/race_gp_2p.json: tile 5 wins the game, every other tile loses it."""
    pos = json.loads((ROOT / "tests" / "data" / "tactics" / "race_gp_2p.json").read_text())
    state = state_from_json(pos, seed=1)
    limits = SearchLimits(iterations=3000)
    bad = review_decision(state, state.parse_move("tile 6"), limits, seed=1)
    assert bad.best == "tile 5" and bad.cls == "blunder" and bad.loss > 0.5
    good = review_decision(state, state.parse_move("tile 5"), limits, seed=1)
    assert good.cls is None and good.loss == 0


def test_seat_filter_summary_and_text():
    r = review_game(_record(), LIMITS, seed=1, seats=[1], names=["red", "blue"], source="game-2p.json")
    assert r.seats == [1] and {d.seat for d in r.decisions} == {1}
    (s,) = r.summary
    assert s.decisions == len(r.decisions) and len(s.worst) <= 3
    assert sum(s.counts.values()) == sum(1 for d in r.decisions if d.cls)
    losses = sorted((d.loss for d in r.decisions), reverse=True)
    assert [next(d.loss for d in r.decisions if d.ply == p) for p in s.worst] == losses[:len(s.worst)]
    text = review_text(r)
    assert all(len(line) <= 100 for line in text.splitlines())
    assert "blue (seat 1)" in text
    # every decision's row shows the loss with its 95% half-width (the interval its class is read beyond),
    # except where the move played is the best (a loss of 0, no interval)
    table = text.split("\nply ", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
    rows = {int(line.split()[0]): line for line in table}
    assert sorted(rows) == [d.ply for d in r.decisions]
    for d in r.decisions:
        loss = f"{100 * d.loss:.1f}" + ("" if d.played == d.best else f"±{100 * d.loss_half:.1f}")
        assert f" {loss}" in rows[d.ply] and ("±" in loss) == (d.played != d.best)
    assert any(d.played != d.best for d in r.decisions)


def test_cut_off_search_is_named_and_its_money_labelled():
    from kwsearch.search import SearchConfig
    r = review_game(_record(), LIMITS, seed=1, seats=[0], source="g")  # the two-player default cuts off
    assert r.settings["cutoff"] == 15 and r.settings["rollout"] == "smart"
    assert "playouts cut off after 15 decisions: money and best$ are the money there" in review_text(r)
    assert "playouts cut off after 15 decisions" in review_html(r, _record())
    full = review_game(_record(), LIMITS, seed=1, seats=[0], source="g", config=SearchConfig(cutoff=0))
    assert full.settings["cutoff"] == 0 and "cut off" not in review_text(full)
    assert [d.played_money for d in full.decisions] != [d.played_money for d in r.decisions]


def test_cache_key_names_every_setting_that_changes_the_search():
    """A cached decision is reused only by a review with the same settings: the cut-off, its
    evaluation, the prior (in selection and in the playouts), the root's rule and the opponents'
    constant count, and a default spelled out is the same key as the default."""
    from kwsearch.review import cache_key
    from kwsearch.search import SearchConfig
    rec = _record()
    key = lambda c: cache_key(rec, LIMITS, c, 0)  # noqa: E731
    default = key(SearchConfig())
    assert default == key(SearchConfig(rollout="smart", cutoff=15, c_uct=0.3, money_weight=0.2, root="uct"))
    variants = [SearchConfig(cutoff=0), SearchConfig(cutoff=20), SearchConfig(evaluation="searched"),
                SearchConfig(prior=1.0), SearchConfig(prior=1.0, prior_weights="p.json"),
                SearchConfig(rollout="tempo", cutoff=0, money_weight=0.0), SearchConfig(prior_playout=0.3),
                SearchConfig(prior_playout=0.3, prior_weights="p.json"), SearchConfig(root="halving"),
                SearchConfig(c_opponents=0.7), SearchConfig(c_uct=0.7)]
    keys = [key(c) for c in variants]
    assert len(set(keys)) == len(keys) and default not in keys


def test_interrupted_review_resumes_from_its_cache(tmp_path):
    cache = tmp_path / "c.json"
    full = review_game(_record(), LIMITS, seed=2)

    def stop_after_five(done, total, decision):
        if done >= 5:
            raise KeyboardInterrupt

    part = review_game(_record(), LIMITS, seed=2, cache=cache, progress=stop_after_five)
    assert not part.complete and len(part.decisions) == 5
    assert len(json.loads(cache.read_text())["decisions"]) == 5
    seen = []
    rest = review_game(_record(), LIMITS, seed=2, cache=cache, progress=lambda d, t, x: seen.append(d))
    assert rest.complete and seen[0] == 5
    assert [(d.ply, d.best, d.cls) for d in rest.decisions] == [(d.ply, d.best, d.cls) for d in full.decisions]
    # other settings do not reuse the cache
    other = []
    review_game(_record(), SearchLimits(iterations=200), seed=2, cache=cache, seats=[0],
                progress=lambda d, t, x: other.append(d))
    assert other[0] == 0


def test_a_stop_at_the_first_report_returns_an_empty_review(tmp_path):
    """The page's Stop can come as soon as the worker's first report (0 of N) is read: it ends the review
    with nothing finished, as a Ctrl-C during the first search does, instead of escaping it."""
    def stop_at_once(done, total, decision):
        assert decision is None and done == 0
        raise KeyboardInterrupt

    cache = tmp_path / "c.json"
    r = review_game(_record(), LIMITS, seed=2, cache=cache, progress=stop_at_once)
    assert not r.complete and r.decisions == [] and r.total_decisions == 70 and r.luck is None
    assert r.cache_file is None and not cache.exists()


def test_a_ctrl_c_while_the_review_is_assembled_keeps_every_decision(monkeypatch):
    """A SIGINT that comes after the last decision, while the review is put together, is held back until
    it is whole, then ends the luck's searches: every decision is returned, the luck marked incomplete.
    The signal goes to the main thread, as the web worker's stop thread sends it (a signal to the process
    may be taken by any thread that does not hold it back, and pytest's workers run threads of their own)."""
    import signal
    import threading

    import kwsearch.review as review_mod

    assert threading.current_thread() is threading.main_thread()  # where Python takes SIGINT
    calls = []
    real = review_mod.summarise

    def summarise_then_ctrl_c(review):
        calls.append(review.total_decisions)
        if len(calls) == 1:
            signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)  # held back until it is whole
        return real(review)

    monkeypatch.setattr(review_mod, "summarise", summarise_then_ctrl_c)
    idle = threading.Event()  # another thread, which does not hold SIGINT back
    other = threading.Thread(target=idle.wait, daemon=True)
    other.start()
    try:
        r = review_game(_record(), LIMITS, seed=2, seats=[0])
    finally:
        idle.set()
        other.join()
    assert len(calls) == 1  # put together once: the Ctrl-C did not cut it
    assert len(r.decisions) == r.total_decisions > 0 and not r.complete
    assert r.luck == {"complete": False, "method": r.luck["method"], "events": []}


def _run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_cli_json_and_bad_input(tmp_path):
    game = tmp_path / "g.json"
    shutil.copy(GAME, game)
    r = _run("review", game, "-i", 200, "--seat", 0, "--json")
    assert r.exit_code == 0, r.output
    obj = json.loads(r.stdout)
    assert obj["format"] == REVIEW_FORMAT and obj["complete"] and obj["seats"] == [0]
    assert obj["decisions"][0].keys() >= {"ply", "seat", "played", "best", "played_win", "best_win", "loss",
                                          "cls", "mark", "win_all", "money_all"}
    assert (tmp_path / "g.review-cache.json").exists()
    assert obj["settings"]["cutoff"] == 15  # the two-player default
    full = _run("review", game, "-i", 200, "--seat", 0, "--json", "--cutoff", 0)
    assert full.exit_code == 0, full.output
    full_obj = json.loads(full.stdout)
    assert full_obj["settings"]["cutoff"] == 0 and full_obj["settings"]["rollout"] == "smart"
    # another cut-off is another search: the cache of the first run is not reused for it
    assert full_obj["decisions"][0]["money_all"] != obj["decisions"][0]["money_all"]
    assert _run("review", game, "--cutoff", -1).exit_code == 2
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "kwsearch-game/1", "players": 2, "events": ["tile 99"]}')
    for target, fragment in ((bad, "event 0: 'tile 99'"), (ROOT / "examples" / "midgame-4p.json", "a game record"),
                             (ROOT / "README.md", "not valid JSON")):
        r = _run("review", target, "--no-cache")
        assert r.exit_code != 0
        err = (r.stderr if hasattr(r, "stderr") else r.output).strip()
        assert fragment in err and len(err.splitlines()) == 1 and "Traceback" not in err


def _chromium():
    chrome, driver = shutil.which("chromium") or "/usr/bin/chromium", shutil.which("chromedriver") or "/usr/bin/chromedriver"
    if not (Path(chrome).exists() and Path(driver).exists()):
        pytest.skip("chromium and chromedriver are not installed")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.skip("selenium is not installed")
    opts = Options()
    opts.add_argument("--headless=new")
    opts.add_argument("--no-sandbox")
    opts.add_argument("--window-size=1400,1200")
    opts.binary_location = chrome
    return webdriver.Chrome(service=Service(driver), options=opts)


def test_html_report_in_headless_chromium(tmp_path):
    rec = _record()
    r = review_game(rec, SearchLimits(iterations=200), seed=1, names=["red", "blue"], source="game-2p.json")
    html = review_html(r, rec)
    assert "http://" not in html.replace("http://www.w3.org/2000/svg", "") and "https://" not in html
    page = tmp_path / "review.html"
    page.write_text(html)
    from selenium.webdriver.common.by import By
    browser = _chromium()
    try:
        browser.get(page.as_uri())
        points = browser.find_elements(By.CSS_SELECTOR, "#graph .pt")
        assert len(points) == len(r.decisions)
        first_board = browser.find_element(By.ID, "board").get_attribute("innerHTML")
        first_move = browser.find_element(By.ID, "move").text
        assert first_move.startswith("Ply 0")
        k = next(i for i, d in enumerate(r.decisions) if d.round == 2)
        points[k].click()
        move = browser.find_element(By.ID, "move").text
        board = browser.find_element(By.ID, "board").get_attribute("innerHTML")
        assert move.startswith(f"Ply {r.decisions[k].ply}") and move != first_move
        assert r.decisions[k].played_label in move
        assert board != first_board and "round 2 of 3" in board
        selected = browser.find_elements(By.CSS_SELECTOR, "#moves tr.sel")
        assert len(selected) == 1 and selected[0].get_attribute("data-i") == str(k)
    finally:
        browser.quit()


def test_a_move_the_search_never_visited_is_measured_by_its_own_re_searches():
    st = state_from_json(json.loads((ROOT / "examples" / "midgame-4p.json").read_text()), seed=1)
    legal = st.legal_actions()
    d = review_decision(st, legal[-1], SearchLimits(iterations=1), seed=5)
    assert d.options == len(legal) and d.iterations >= 1
    if d.played != d.best:
        assert d.played_visits == 0  # one iteration visits one option only
    assert 0 <= d.played_win <= 1 and d.played_money > 0 and d.loss >= 0


def test_a_review_analyses_with_the_analysis_constant():
    """A review searches as a hint does (SearchConfig.for_analysis): with four players the exploration
    constant 0.4, where the bot ``ismcts`` plays with 0.25; its cache key is that of the constant spelled
    out, and a review given another constant records it."""
    from kwsearch.review import cache_key
    from kwsearch.search import ANALYSIS_C_UCT, DEFAULT_C_UCT, SearchConfig
    rec = json.loads((ROOT / "examples" / "game-4p.json").read_text())
    rec = {k: v for k, v in rec.items() if k != "result"} | {"events": rec["events"][:12]}  # a first few decisions
    r = review_game(rec, LIMITS, seed=1, seats=[0], luck=False)
    assert r.settings["c_uct"] == ANALYSIS_C_UCT[4] == 0.4 and DEFAULT_C_UCT[4] == 0.25
    key = lambda c: cache_key(rec, LIMITS, c, 1)  # noqa: E731
    assert key(SearchConfig()) == key(SearchConfig(c_uct=0.4)) != key(SearchConfig(c_uct=0.25))
    other = review_game(rec, LIMITS, seed=1, seats=[0], luck=False, config=SearchConfig(c_uct=0.25))
    assert other.settings["c_uct"] == 0.25
