"""The analysis board end to end: ``kwsearch serve`` in a subprocess, the page in headless Chromium.

Skipped when selenium, /usr/bin/chromium or /usr/bin/chromedriver is missing.
Timing is never asserted: the click-to-first-update latency is measured by
``bench/bench_web.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("sse_starlette")
pytest.importorskip("uvicorn")

from kwsearch.web.browser import browser_missing, chromium, fetch_text, running_server  # noqa: E402
from helpers import subprocess_env  # noqa: E402

pytestmark = [pytest.mark.one_engine,
              pytest.mark.skipif(browser_missing() is not None, reason=f"no headless browser: {browser_missing()}")]

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    games = tmp_path_factory.mktemp("games")
    with running_server(["examples/game-2p.json", "--review", "examples/game-2p.review.json",
                         "--analysis-seconds", "60"], games_dir=games, cwd=ROOT) as url:
        with chromium() as driver:
            driver.set_script_timeout(20)
            driver.board_url = url
            driver.games = games
            yield driver


def wait(driver, condition, timeout=15.0, what="the page"):
    """Poll ``condition(driver)`` until it is truthy; its value."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = condition(driver)
        except Exception:  # the element is being redrawn
            value = None
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def js(driver, script, *args):
    return driver.execute_script(script, *args)


def new_game_from_form(driver, seats, seed, teach=None, level=None):
    """Fill the new-game form and start: ``teach`` a threshold (teaching mode on), ``level`` a level."""
    from selenium.webdriver.support.ui import Select
    driver.find_element("id", "btn-new-game").click()
    wait(driver, lambda d: d.find_element("id", "dlg-new").is_displayed(), what="the new-game form")
    if level is not None:
        Select(driver.find_element("id", "new-level")).select_by_value(str(level))
    else:
        box = driver.find_element("id", "new-seats")
        box.clear()
        box.send_keys(seats)
    seed_box = driver.find_element("id", "new-seed")
    seed_box.clear()
    seed_box.send_keys(str(seed))
    if teach is not None:
        driver.find_element("id", "new-teach").click()
        Select(driver.find_element("id", "new-teach-threshold")).select_by_value(teach)
    before = js(driver, "return S.mode === 'game' ? S.view.game : null")
    driver.find_element("id", "new-ok").click()
    wait(driver, lambda d: js(d, "return S.mode === 'game' && S.view.game !== arguments[0] && S.view.game", before),
         what="the new game")


def open_board(driver):
    driver.get(driver.board_url)
    wait(driver, lambda d: js(d, "return document.querySelectorAll('#moves .mv').length") > 60, what="the move list")


def current_node(driver):
    """The node the page shows (drawn, not only asked for)."""
    return js(driver, "return S.view && S.mode === 'doc' ? S.view.node : null")


def board_svg(driver):
    return js(driver, "const svg = document.querySelector('#board svg'); return svg ? svg.outerHTML : ''")


def press(driver, key):
    from selenium.webdriver.common.action_chains import ActionChains
    ActionChains(driver).send_keys(key).perform()


def test_step_through_moves_and_the_board_changes(board):
    from selenium.webdriver.common.keys import Keys
    open_board(board)
    wait(board, lambda d: current_node(d) == 0, what="the start")
    first = board_svg(board)
    assert first.startswith("<svg")
    seen = [first]
    for k in range(1, 6):
        press(board, Keys.ARROW_RIGHT)
        wait(board, lambda d: current_node(d) == k and board_svg(d) != seen[-1], what=f"node {k}")
        seen.append(board_svg(board))
    assert len(set(seen)) == 6
    press(board, Keys.ARROW_LEFT)
    wait(board, lambda d: current_node(d) == 4 and board_svg(d) == seen[4], what="a step back")
    # clicking a move in the list goes there; the row is marked current
    js(board, "document.querySelector('#moves .mv[data-node=\"20\"]').click()")
    wait(board, lambda d: current_node(d) == 20, what="node 20")
    assert js(board, "return document.querySelector('#moves .mv.current').dataset.node") == "20"
    # the review is drawn: the graph and the marks in the move list
    assert js(board, "return !document.querySelector('#graph-panel').hidden")
    assert js(board, "return document.querySelectorAll('#graph path').length") == 2
    assert js(board, "return document.querySelectorAll('#moves .mark').length") > 0
    js(board, "document.querySelector('#graph circle.pt').dispatchEvent(new MouseEvent('click', {bubbles: true}))")
    wait(board, lambda d: current_node(d) != 20, what="a click on a graph mark")


def test_live_analysis_updates_and_stops(board):
    open_board(board)
    js(board, "document.querySelector('#moves .mv[data-node=\"12\"]').click()")
    wait(board, lambda d: current_node(d) == 12, what="node 12")
    board.find_element("id", "btn-analyse").click()
    iterations = []

    def next_update(d):
        r = js(d, "return S.lastResult && [S.lastResult.rootInfo.iterations, S.lastResult.moveInfos[0].visits]")
        if r and (not iterations or r[0] > iterations[-1][0]):
            iterations.append(r)
            return True
        return False

    for _ in range(3):
        wait(board, next_update, what="an analysis update")
    assert [i[0] for i in iterations] == sorted(i[0] for i in iterations) and iterations[0][0] < iterations[-1][0]
    assert iterations[0][1] <= iterations[-1][1]  # the best candidate's visits grow
    rows = js(board, "return [...document.querySelectorAll('#candidates .cand .first')].map(e => e.textContent)")
    legal = js(board, "return S.view.legal.map(o => o.text)")
    assert rows and set(rows) <= set(legal)
    # the two-player default cuts playouts off: the money shown is the money there, and says so
    money = js(board, "const m = document.querySelector('#candidates .cand .money'); return [m.textContent, m.title]")
    assert money[0].startswith("money@cut ") and "15 decisions on" in money[1]
    assert len(js(board, "return window.kwsLatencies")) >= 1
    # while it runs the numbers are the search's own: no interval yet, and the page says so
    assert js(board, "return document.querySelector('#verdict').className") == "verdict unverified"
    assert "UNVERIFIED" in board.find_element("id", "verdict").text.upper()
    assert not board.find_elements("css selector", "#candidates .err:not([hidden])")
    board.find_element("id", "btn-analyse").click()  # stop
    wait(board, lambda d: "stopped" in d.find_element("id", "engine-status").text, what="the final statistics")
    assert board.find_element("id", "btn-analyse").text == "Analyse"
    # issue 29: the options are re-searched alone when the analysis ends; the page draws the 95%
    # intervals as error bars, the verdict and (when the band holds several) the = badges
    wait(board, lambda d: js(d, "return !!(S.lastResult && S.lastResult.rootInfo.confidence) && S.analysis === null"),
         what="the verified result")
    check_verified_panel(board)
    done = js(board, "return S.lastResult.rootInfo.iterations")
    time.sleep(0.5)
    assert js(board, "return S.lastResult.rootInfo.iterations") == done  # no update after the stop
    # an equal band, as the JSON says it (built from this result: the second option made equal to the best)
    js(board, """
        const r = structuredClone(S.lastResult), [a, b] = ranked(r);
        for (const m of r.moveInfos) { m.equal = m === a || m === b; m.rank = m === a ? 0 : m === b ? 1 : m.rank + 2; }
        r.rootInfo.confidence = {...r.rootInfo.confidence, verdict: "equal", best: a.move, equal: [a.move, b.move]};
        renderCandidates(r, "done", false);""")
    badges = check_verified_panel(board)
    assert badges == js(board, "return ranked(S.lastResult).slice(0, 2).map(m => m.move)")
    assert board.find_element("id", "verdict").text.upper().startswith("EQUAL")
    assert " or " in board.find_element("css selector", "#verdict .hint-line").text
    # "play the best plan" makes the engine's line a variation
    n_before = js(board, "return S.doc.nodes.length")
    board.find_element("id", "btn-best").click()
    wait(board, lambda d: js(d, "return S.doc.nodes.length") > n_before, what="the best plan as a variation")
    assert js(board, "return S.doc.nodes[S.node].main") is False


def check_verified_panel(driver):
    """The panel drawn from a verified kwsearch-analysis/1 object agrees with it: a row per option in
    the re-searched order, each with its 95% interval as an error bar over its win bar, the verdict
    line, an = badge exactly on the options of the equal band (when it holds more than one); the
    badged options."""
    r = js(driver, "return S.lastResult")
    conf = r["rootInfo"]["confidence"]
    moves = sorted(r["moveInfos"], key=lambda m: m["rank"])
    rows = js(driver, """return [...document.querySelectorAll('#candidates .cand')].map(row => {
        const err = row.querySelector('.err'), bar = row.querySelector('.bar').getBoundingClientRect();
        const box = err.getBoundingClientRect();
        return {move: row.querySelector('.first').textContent, shown: !err.hidden && box.width > 0,
                left: (box.left - bar.left) / bar.width, right: (box.right - bar.left) / bar.width,
                badge: !!row.querySelector('.eq'), label: row.querySelector('.label').textContent};
    })""")
    assert [row["move"] for row in rows] == [m["move"] for m in moves]
    for row, m in zip(rows, moves):
        e = m["estimate"]
        assert row["shown"], row
        assert abs(row["left"] - e["winrateLow"]) < 0.02 and abs(row["right"] - e["winrateHigh"]) < 0.02, (row, e)
        assert "95%" in row["label"]
        assert row["badge"] == (m["equal"] and len(conf["equal"]) > 1)
    verdict = js(driver, "return [document.querySelector('#verdict').dataset.verdict, "
                         "document.querySelector('#verdict').textContent]")
    assert verdict[0] == conf["verdict"] and verdict[1].startswith(conf["verdict"])
    if conf["verdict"] == "open":
        assert "cannot be told apart yet" in verdict[1]
    return [row["move"] for row in rows if row["badge"]]


def test_branch_with_a_legal_move(board):
    open_board(board)
    js(board, "document.querySelector('#moves .mv[data-node=\"4\"]').click()")
    wait(board, lambda d: current_node(d) == 4, what="node 4")
    main_next = js(board, "return S.doc.nodes[S.doc.nodes[4].children[0]].move")
    buttons = board.find_elements("css selector", "#options .option")
    pick = next(b for b in buttons if b.get_attribute("data-text") != main_next)
    text = pick.get_attribute("data-text")
    before = board_svg(board)
    pick.click()
    wait(board, lambda d: current_node(d) != 4 and board_svg(d) != before, what="the new branch")
    node = js(board, "return S.doc.nodes[S.node]")
    assert node["move"] == text and node["parent"] == 4 and not node["main"]
    assert js(board, "return document.querySelector('#moves .var .vm.current') !== null")  # shown as a variation
    # the branch saves as a game record the CLI reads
    rec = json.loads(fetch_text(board, js(board, "return document.querySelector('#save-record').href")))
    assert rec["format"] == "kwsearch-game/1" and text in rec["events"]


def test_paste_a_position_and_see_errors_in_the_page(board):
    open_board(board)
    board.find_element("id", "btn-paste").click()
    js(board, "document.querySelector('#paste-text').value = arguments[0]", "{\"format\": ")
    board.find_element("id", "paste-ok").click()
    wait(board, lambda d: "not valid JSON" in d.find_element("id", "errors").text, what="the error")
    board.find_element("id", "btn-paste").click()
    js(board, "document.querySelector('#paste-text').value = arguments[0]",
       (ROOT / "examples" / "midgame-4p.json").read_text())
    board.find_element("id", "paste-ok").click()
    wait(board, lambda d: js(d, "return S.doc && S.doc.kind") == "position", what="the pasted position")
    wait(board, lambda d: current_node(d) == 0, what="its board")
    assert "4 players" in board.find_element("id", "title").text
    assert len(board.find_elements("css selector", "#options .option")) >= 2


def test_the_game_hint_searches_until_clear(board):
    """The Hint button of a game: play's '?' -- a short search, its top 3 re-searched until clear."""
    open_board(board)
    js(board, "startGame({seats: 'human,random', seed: 5})")
    wait(board, lambda d: js(d, "return S.mode === 'game' && S.view.human_to_move"), what="the new game")
    board.find_element("id", "btn-hint").click()
    wait(board, lambda d: js(d, "return !!(S.lastResult && S.lastResult.rootInfo.confidence) && S.analysis === null"),
         what="the hint")
    r = js(board, "return S.lastResult")
    assert r["rootInfo"]["confidence"]["untilClear"] and r["rootInfo"]["limits"]["iterations"] == 5000
    assert len(r["moveInfos"]) <= 3
    check_verified_panel(board)
    assert "until clear" in board.find_element("id", "engine-status").text


def test_play_a_game_against_a_bot_to_its_end(board, tmp_path):
    open_board(board)
    new_game_from_form(board, "human,random", 21)
    assert js(board, "return S.mode") == "game"
    clicks = 0
    deadline = time.monotonic() + 50
    while not js(board, "return !!document.querySelector('#game-over')"):
        assert time.monotonic() < deadline, "the game did not finish"
        moved = js(board, """
            if (S.busy || !S.view || !S.view.human_to_move) return false;
            const b = document.querySelector('#options .option');
            if (!b) return false;
            b.click(); return true;""")
        clicks += moved
        if not moved:
            time.sleep(0.02)
    assert clicks > 10
    view = js(board, "return S.view")
    assert view["terminal"] and view["legal"] == []
    saved = board.games / view["file"]
    assert json.loads(saved.read_text())["result"]["money"] == view["money"]
    # save it from the page and read it back with the CLI
    out = tmp_path / "downloaded.json"
    out.write_text(fetch_text(board, js(board, "return document.querySelector('#save-record').href")))
    show = subprocess.run([sys.executable, "-P", "-m", "kwsearch.cli", "show", str(out)], capture_output=True,
                          text=True, cwd=ROOT, timeout=60, env=subprocess_env())
    assert show.returncode == 0, show.stderr
    assert "Game over" in show.stdout
    assert subprocess.run([sys.executable, "-P", "-m", "kwsearch.cli", "show", str(saved)], capture_output=True,
                          cwd=ROOT, timeout=60, env=subprocess_env()).returncode == 0
