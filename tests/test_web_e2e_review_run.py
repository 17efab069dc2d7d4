"""Review from the page, end to end (issue 31): ``kwsearch serve`` of a game record, headless Chromium
starts a review, sees its progress, stops it, resumes it and sees the marks, the graph and the files.

Set ``KWS_REVIEW_RUN_PNG=path.png`` to save a screenshot of the finished review (docs/web-review-run.png).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from test_web_e2e import ROOT, js, new_game_from_form, pytestmark, wait  # noqa: F401
from kwsearch.web.browser import chromium, fetch_text, running_server  # noqa: E402

#: Enough per decision that a page polling every 0.4 s sees the review under way (a few seconds in all).
ITERATIONS = 10000


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    games = tmp_path_factory.mktemp("games")
    with running_server(["examples/game-2p.json"], games_dir=games, cwd=ROOT) as url:
        with chromium(height=1300) as driver:
            driver.set_script_timeout(20)
            driver.board_url = url
            driver.games = games
            yield driver


def state(driver):
    return js(driver, """const t = document.querySelector('#rr-text'), b = document.querySelector('#rr-bar');
        return t ? {state: t.dataset.state, text: t.textContent, done: b ? b.value : null, max: b ? b.max : null,
                    start: document.querySelector('#rr-start')?.textContent ?? null,
                    stop: !!document.querySelector('#rr-stop')} : null""")


def test_review_from_the_page_start_progress_stop_resume(page):
    page.get(page.board_url)
    wait(page, lambda d: js(d, "return document.querySelectorAll('#moves .mv').length") > 60, what="the move list")
    wait(page, lambda d: js(d, "return !document.querySelector('#review-run').hidden"), what="the review panel")
    assert js(page, "return document.querySelector('#graph-panel').hidden")  # no review yet
    total = len([e for e in json.loads((ROOT / "examples" / "game-2p.json").read_text())["events"]
                 if not e.startswith("reveal")])
    # the defaults are kwsearch review's
    assert js(page, """return [document.querySelector('#rr-iterations').value,
                               document.querySelector('#rr-seed').value]""") == ["5000", "0"]
    assert state(page)["start"] == "Review"
    it = page.find_element("id", "rr-iterations")
    it.clear()
    it.send_keys(str(ITERATIONS))
    page.find_element("id", "rr-start").click()
    # progress: decisions done of the total and the time left
    s = wait(page, lambda d: (lambda s: s if s and s["state"] == "running" and s["done"] >= 2 else None)(state(d)),
             timeout=60, what="the review's progress")
    assert f"/ {total} decisions" in s["text"] and " left" in s["text"] and s["max"] == total
    assert s["stop"] and js(page, "return document.querySelector('#rr-iterations').disabled")
    page.find_element("id", "rr-stop").click()
    s = wait(page, lambda d: (lambda s: s if s and s["state"] == "stopped" else None)(state(d)), timeout=60,
             what="the review to stop")
    done = s["done"]
    assert 2 <= done < total and f"Stopped after {done} of {total} decisions" in s["text"]
    assert s["start"] == "Resume"
    # what is done is shown already: the graph with those decisions
    wait(page, lambda d: js(d, "return S.doc.review && S.doc.review.points.length") == done, what="the partial review")
    assert not js(page, "return document.querySelector('#graph-panel').hidden")
    # Resume: from the cache, to the end
    page.find_element("id", "rr-start").click()
    s = wait(page, lambda d: (lambda s: s if s and s["state"] == "done" else None)(state(d)), timeout=180,
             what="the review to end")
    assert f"Reviewed {total} decisions, {ITERATIONS:,} iterations each" in s["text"]
    assert s["start"] == "Review again"
    # the page's review panel: every decision, the marks in the move list, the win-% change beside each move
    wait(page, lambda d: js(d, "return S.doc.review.points.length") == total, what="the whole review")
    review = json.loads(fetch_text(page, js(page, "return document.querySelector('#rr-json').href")))
    assert review["format"] == "kwsearch-review/1" and review["complete"] and review["reviewed"] == total
    assert review["settings"]["iterations"] == ITERATIONS and review["settings"]["seed"] == 0
    marked = sum(1 for d in review["decisions"] if d["cls"])
    assert js(page, "return document.querySelectorAll('#moves .mark').length") == marked
    assert js(page, "return document.querySelectorAll('#moves .delta').length") == total
    assert js(page, "return document.querySelectorAll('#graph path').length") == 2
    assert js(page, "return document.querySelectorAll('#graph circle.pt').length") == marked
    html = fetch_text(page, js(page, "return document.querySelector('#rr-html').href"))
    assert html.lstrip().lower().startswith("<!doctype html")
    # the cache is in the server's games folder, named by the server
    caches = [p.name for p in Path(page.games).iterdir()]
    assert len(caches) == 1 and caches[0].startswith("kwsearch-review-") and caches[0].endswith(".review-cache.json")
    assert len(json.loads((Path(page.games) / caches[0]).read_text())["decisions"]) == total
    if os.environ.get("KWS_REVIEW_RUN_PNG"):
        mark = next(p for p in js(page, "return S.doc.review.points") if p["mark"])
        js(page, f"document.querySelector('#moves .mv[data-node=\"{mark['node']}\"]').click()")
        wait(page, lambda d: js(d, "return S.view && S.view.node") == mark["node"], what="a marked move")
        js(page, """const m = document.querySelector('#moves'), c = m.querySelector('.mv.current');
            m.scrollTop = c.offsetTop - m.offsetTop - 80; window.scrollTo(0, 0);""")
        time.sleep(0.3)
        Path(os.environ["KWS_REVIEW_RUN_PNG"]).write_bytes(page.get_screenshot_as_png())


def test_a_finished_game_is_reviewed_with_kwsearch_reviews_cache(page):
    """A game played on the page, once over, offers "Review this game": its moves are opened to explore
    and reviewed there, with the cache ``kwsearch review`` uses for the game's record file."""
    page.get(page.board_url)
    wait(page, lambda d: js(d, "return S.mode") == "doc", what="the page")
    new_game_from_form(page, "random,random", 8)
    assert js(page, "return S.mode") == "game"
    assert js(page, "return document.querySelector('#review-run').hidden")  # not while the game runs
    wait(page, lambda d: js(d, "return !!document.querySelector('#game-over')"), timeout=90, what="the game's end")
    wait(page, lambda d: js(d, "return !document.querySelector('#review-run').hidden"), what="the review panel")
    view = js(page, "return S.view")
    assert state(page) is None and js(page, "return document.querySelector('#rr-start').textContent") \
        == "Review this game"
    it = page.find_element("id", "rr-iterations")
    it.clear()
    it.send_keys("100")
    page.find_element("id", "rr-start").click()
    s = wait(page, lambda d: (lambda s: s if s and s["state"] == "done" else None)(state(d)), timeout=120,
             what="the review to end")
    assert js(page, "return S.mode") == "doc"
    total = len(view["moves"])
    assert f"Reviewed {total} decisions, 100 iterations each" in s["text"]
    wait(page, lambda d: js(d, "return S.doc.review && S.doc.review.points.length") == total, what="the review")
    cache = Path(page.games) / (Path(view["file"]).stem + ".review-cache.json")
    assert len(json.loads(cache.read_text())["decisions"]) == total
