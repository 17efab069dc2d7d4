"""The analysis board's defects of issue 31 item 1, each seen in headless Chromium (the fixtures of
``tests/test_web_e2e.py``): Take back during the player's own multi-step turn, the car being built,
one numbering of the decisions, error banners after a later success, a reload keeping the game, the
help saying where the options are.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("sse_starlette")
pytest.importorskip("uvicorn")

from kwsearch.web.browser import browser_missing, running_server  # noqa: E402
from test_web_e2e import board, board_svg, current_node, js, open_board, wait  # noqa: E402,F401

pytestmark = [pytest.mark.one_engine,
              pytest.mark.skipif(browser_missing() is not None, reason=f"no headless browser: {browser_missing()}")]

ROOT = Path(__file__).resolve().parent.parent


def new_game(driver, seats="human,random", seed=3):
    js(driver, "startGame({seats: arguments[0], seed: arguments[1]})", seats, seed)
    wait(driver, lambda d: js(d, "return S.mode === 'game' && !S.busy && S.view.human_to_move"), what="the new game")
    return js(driver, "return S.view.game")


def settled(driver):
    """The game's view once no request runs and it waits for the human (or is over)."""
    return wait(driver, lambda d: js(d, "return !S.busy && S.view && (S.view.human_to_move || S.view.terminal) "
                                        "&& S.view"), what="the human's decision")


def click_option(driver, prefer=()):
    """Click the first option whose text starts with one of ``prefer`` (else the first option); its text."""
    return js(driver, """
        const buttons = [...document.querySelectorAll('#options .option')];
        const b = arguments[0].map(p => buttons.find(x => x.dataset.text.startsWith(p))).find(x => x) || buttons[0];
        b.click(); return b.dataset.text;""", list(prefer))


def test_take_back_is_enabled_during_the_players_own_multi_step_turn(board):
    open_board(board)
    new_game(board, seed=3)
    for _ in range(60):
        before = settled(board)
        if before["terminal"]:
            break
        n = len(before["moves"])
        click_option(board)
        wait(board, lambda d: js(d, "return !S.busy && S.view.moves.length > arguments[0]", n), what="the decision")
        view = js(board, "return S.view")
        if view["human_to_move"] and len(view["moves"]) == n + 1:  # the same turn goes on: no bot moved
            break
    else:
        pytest.fail("no multi-step turn of the human")
    assert view["can_undo"]
    undo = board.find_element("id", "btn-undo")
    assert undo.is_enabled(), "Take back is disabled during the player's own turn"
    assert board.find_element("id", "btn-hint").is_enabled()
    undo.click()
    wait(board, lambda d: js(d, "return !S.busy && S.view.moves.length") == n, what="the take-back")


def main_line_node_with(driver, pending):
    """The first node of the open record's main line whose decision is ``pending``."""
    return driver.execute_async_script("""
        const pending = arguments[0], done = arguments[arguments.length - 1];
        (async () => {
          for (let id = 0; id < S.doc.nodes.length; id++) {
            if (!S.doc.nodes[id].main) continue;
            const v = await api(`/api/docs/${S.doc.id}/nodes/${id}`);
            if (v.pending === pending) return id;
          }
          return null;
        })().then(done, (e) => done('ERROR ' + e));""", pending)


def test_the_car_being_built_is_drawn_while_its_workers_and_price_are_chosen(board):
    open_board(board)
    node = main_line_node_with(board, "market_workers")
    assert isinstance(node, int), node
    js(board, "goto(arguments[0])", node)
    wait(board, lambda d: current_node(d) == node, what="the workers' decision")
    svg = board_svg(board)
    assert "car-building" in svg and "being built" in svg and "workers ?" in svg
    body_value = js(board, "return S.doc.nodes[arguments[0]].move", node)  # the move that led here: market body@2
    assert f"body {body_value.rsplit('@', 1)[1]}" in svg
    js(board, "step(1)")  # the workers chosen: the price is asked
    wait(board, lambda d: js(d, "return S.view.pending") == "market_price", what="the price's decision")
    svg = board_svg(board)
    workers = int(js(board, "return S.doc.nodes[S.node].move").split()[-1])
    assert "car-building" in svg and f"{workers} worker" in svg and "workers ?" not in svg
    js(board, "step(1)")  # the price chosen: the car is on the market, no longer being built
    wait(board, lambda d: js(d, "return S.view.pending") not in ("market_price", "market_workers"), what="the car")
    assert "car-building" not in board_svg(board)


def test_one_numbering_in_the_review_and_the_move_list(board):
    """A decision is numbered by its ply (decisions before it) on the page as in the review."""
    open_board(board)
    review = json.loads((ROOT / "examples" / "game-2p.review.json").read_text())
    rows = js(board, """return Object.fromEntries([...document.querySelectorAll('#moves .mv')].map(r =>
        [r.querySelector('.ply').textContent, [r.querySelector('.txt').firstChild.textContent,
         (r.querySelector('.mark') || {}).title || '']]))""")
    for d in review["decisions"]:
        move, title = rows[str(d["ply"])]
        assert move == d["played"], (d["ply"], move, d["played"])
        if d.get("cls"):
            assert title.startswith(f"ply {d['ply']}, {d['cls']}"), title
    # a game's move list counts the same way: its first decision is ply 0
    open_board(board)
    new_game(board, seed=4)
    click_option(board)
    wait(board, lambda d: js(d, "return !S.busy && S.view.moves.length") >= 1, what="a decision")
    assert js(board, "return document.querySelector('#moves .mv .ply').textContent") == "0"


def test_an_error_goes_away_after_a_later_success_and_never_covers_game_over(board):
    open_board(board)
    new_game(board, seed=6)
    js(board, "decide(123456, [])")  # refused by the server: an error banner
    wait(board, lambda d: d.find_element("id", "errors").text, what="the error")
    click_option(board)
    wait(board, lambda d: js(d, "return !S.busy && S.view.moves.length") >= 1, what="the decision")
    assert js(board, "return document.querySelector('#errors').children.length") == 0
    # an error, then the record's end: "Game over" is shown and nothing covers it
    open_board(board)
    js(board, "showError('a failed request')")
    js(board, "goto(lineEnd(0))")
    wait(board, lambda d: js(d, "return S.view && S.view.terminal"), what="the end of the game")
    banner = board.find_element("css selector", "#decision .banner.over")
    assert banner.text.startswith("Game over")
    assert js(board, "return document.querySelector('#errors').children.length") == 0
    covered = js(board, """const r = arguments[0].getBoundingClientRect();
        return [0.1, 0.5, 0.9].some(f => !arguments[0].contains(
            document.elementFromPoint(r.left + f * r.width, r.top + r.height / 2)))""", banner)
    assert not covered


def test_a_reload_keeps_the_game_in_progress(board):
    open_board(board)
    gid = new_game(board, seed=8)
    for _ in range(3):
        settled(board)
        click_option(board)
        time.sleep(0.05)
    before = settled(board)
    assert before["moves"]
    board.refresh()
    wait(board, lambda d: js(d, "return S.mode === 'game' && !S.busy && S.view.game"), what="the game after the reload")
    after = settled(board)
    assert after["game"] == gid and after["moves"] == before["moves"] and after["svg"] == before["svg"]
    assert len(board.find_elements("css selector", "#moves .mv")) == len(before["moves"])
    # a document comes back at its node
    open_board(board)
    js(board, "goto(20)")
    wait(board, lambda d: current_node(d) == 20, what="node 20")
    board.refresh()
    wait(board, lambda d: current_node(d) == 20, what="node 20 after the reload")
    # a restarted server still has the game's file: the page resumes it from there
    hash_ = f"#game={gid}&file={before['file']}"
    with running_server([], games_dir=board.games, cwd=ROOT) as url:
        board.get(url + hash_)
        wait(board, lambda d: js(d, "return S.mode === 'game' && !S.busy && S.view.file"), what="the resumed game")
        resumed = settled(board)
        assert resumed["file"] == before["file"] and resumed["moves"] == before["moves"]
        assert js(board, "return document.querySelector('#errors').children.length") == 0


def test_the_help_says_where_the_options_are(board):
    open_board(board)
    board.find_element("id", "btn-help").click()
    text = board.find_element("id", "dlg-help").text
    js(board, "document.querySelector('#dlg-help').close()")
    assert "under the board" not in text and "top right" in text
    side = js(board, """const o = document.querySelector('#options').getBoundingClientRect(),
        b = document.querySelector('#board').getBoundingClientRect();
        return [o.left >= b.right, o.top < window.innerHeight / 2]""")
    assert side == [True, True]  # the options: right of the board, in the upper half
