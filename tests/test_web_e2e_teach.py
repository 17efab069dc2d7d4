"""Teaching mode and the level picker on the web board (issue 31), in headless Chromium (the fixtures of
``tests/test_web_e2e.py``).

The planted mistake is tests/helpers.py's TEACH_*: four players, seed 2, the human at seat 3, which
chooses the first start tile; ``start B`` loses about 12 points of win % to ``start D`` (the review's
check, 5,000 iterations, seed 0: tests/test_teach.py), after which the human orders the tile's
actions. Set ``KWS_TEACH_PNG=path.png`` to keep the screenshot of the banner.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from helpers import TEACH_BAD, TEACH_BEST, TEACH_PLAYERS, TEACH_SEAT, TEACH_SEATS, TEACH_SEED
from test_web_e2e import board, js, new_game_from_form, open_board, pytestmark, wait  # noqa: F401
from kwsearch.bots import LEVELS
from kwsearch.game import Game
from kwsearch.teach import TeachSettings, check_decision

SEATS, SEED, BLUNDER, BEST = TEACH_SEATS, TEACH_SEED, TEACH_BAD, TEACH_BEST


def click_option(driver, text):
    js(driver, "[...document.querySelectorAll('#options .option')].find(b => b.dataset.text === arguments[0]).click()",
       text)


def screen(driver):
    """What the player sees of the position: the board picture and the options."""
    return js(driver, """return {svg: document.querySelector('#board svg').outerHTML,
        options: [...document.querySelectorAll('#options .option')].map(b => b.dataset.text),
        moves: S.view.moves.length, human: S.view.human_to_move}""")


def test_teaching_mode_fires_on_a_planted_mistake_and_take_back_restores_the_position(board, tmp_path):
    open_board(board)
    new_game_from_form(board, SEATS, SEED, teach="mistake")
    view = wait(board, lambda d: js(d, "return !S.busy && S.view.human_to_move && S.view"), what="the human's turn")
    assert view["teach"]["threshold"] == "mistake" and view["teach"]["iterations"] == 5000
    assert view["to_move"] == TEACH_SEAT and view["moves"] == []
    assert board.find_element("id", "teach-about").is_displayed()
    start = screen(board)
    assert BLUNDER in start["options"] and BEST in start["options"]

    click_option(board, BLUNDER)
    flag = wait(board, lambda d: d.find_element("id", "teach-flag"), timeout=60, what="the teaching banner")
    message = board.find_element("id", "teach-message").text
    # the library's check of the same decision, same settings: the same words and numbers
    st = Game(TEACH_PLAYERS).new_initial_state(SEED, engine="reference")
    want = check_decision(st, st.parse_move(BLUNDER), 0, TeachSettings())
    assert want.fires and want.best == BEST
    assert message == want.message() + " Take back?"
    assert message.startswith(("Blunder (-", "Mistake (-")) and "start D (gp_start2+research) was better" in message
    # the bots wait for the verdict: only the human's decision is on the board, nothing after it
    time.sleep(0.5)
    assert js(board, "return S.view.moves.length") == 1 and js(board, "return S.view.bot_to_move")
    assert flag.is_displayed()
    png = Path(os.environ.get("KWS_TEACH_PNG") or tmp_path / "teach.png")
    board.set_window_size(1500, 1100)
    time.sleep(0.2)
    png.write_bytes(board.get_screenshot_as_png())
    assert png.stat().st_size > 10_000

    board.find_element("id", "teach-undo").click()
    wait(board, lambda d: js(d, "return !S.busy && S.view.moves.length === 0 && S.view.human_to_move"),
         what="the take-back")
    assert screen(board) == start  # the position before the blunder, as it was
    assert not js(board, "return !!document.querySelector('#teach-flag')")

    # the best move does not fire, and the game goes on (start D's tile: the human orders its actions
    # next; the bots moving on by themselves is the next test's)
    click_option(board, BEST)
    verdict = wait(board, lambda d: js(d, "return !S.busy && S.view.human_to_move && S.view.teach.verdict"),
                   timeout=60, what="the verdict")
    assert verdict["ply"] == 0 and verdict["played"] == BEST and not verdict["fires"] and verdict["class"] is None
    assert js(board, "return S.view.teach.flagged") is None
    assert not js(board, "return !!document.querySelector('#teach-flag')")
    assert js(board, "return S.view.moves.length") == 1 and screen(board)["options"] != start["options"]


def test_playing_on_after_the_banner_lets_the_bots_move(board):
    open_board(board)
    new_game_from_form(board, SEATS, SEED, teach="inaccuracy")
    wait(board, lambda d: js(d, "return !S.busy && S.view.human_to_move"), what="the human's turn")
    click_option(board, BLUNDER)
    wait(board, lambda d: d.find_element("id", "teach-dismiss"), timeout=60, what="the teaching banner").click()
    wait(board, lambda d: js(d, "return S.view.moves.length > 1"), timeout=60, what="the bots' replies")
    assert js(board, "return S.view.moves[0].move") == BLUNDER
    assert not js(board, "return !!document.querySelector('#teach-flag')")


def test_a_game_without_teaching_mode_shows_no_banner(board):
    open_board(board)
    new_game_from_form(board, SEATS, SEED)
    wait(board, lambda d: js(d, "return !S.busy && S.view.human_to_move"), what="the human's turn")
    assert js(board, "return S.view.teach") is None
    assert not board.find_element("id", "teach-banner").is_displayed()


def test_the_level_picker_lists_the_levels_and_starts_a_game_against_that_level(board):
    open_board(board)
    board.find_element("id", "btn-new-game").click()
    values = js(board, "return [...document.querySelectorAll('#new-level option')].map(o => o.value)")
    assert values == [""] + [str(k) for k in range(1, len(LEVELS) + 1)]  # kwsearch.bots.LEVELS, all of them
    js(board, "document.querySelector('#dlg-new').close()")
    level = 2
    new_game_from_form(board, None, 11, level=level)
    view = wait(board, lambda d: js(d, "return !S.busy && S.view.human_to_move && S.view"), timeout=60,
                what="the human's turn")
    assert view["seats"] == ["human", f"ismcts:level={level}"]
    # the bot (seat 1 chooses the first start tile with two players) has moved as that level
    assert view["moves"] and view["moves"][0]["seat"] == 1
    record = json.loads(board.execute_async_script("""
        const done = arguments[arguments.length - 1];
        fetch(`/api/games/${S.view.game}/record.json`).then(r => r.text()).then(done, e => done(String(e)));"""))
    assert record["setup"]["seats"] == ["human", f"ismcts:level={level}"]
    assert "seed" not in record  # the game runs: its seed stays on the server
    saved = json.loads((board.games / view["file"]).read_text())
    assert saved["setup"]["seats"] == ["human", f"ismcts:level={level}"] and saved["seed"] == 11
