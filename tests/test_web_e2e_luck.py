"""The board's review graph marks the chance events and says each seat's luck against skill and accuracy
(issue 30 items 3 and 4; kwsearch/web/static/luck.js), end to end in headless Chromium."""

from __future__ import annotations

import json

import pytest

from test_web_e2e import ROOT, js, open_board, pytestmark, wait  # noqa: F401
from kwsearch.review import review_game
from kwsearch.search import SearchLimits
from kwsearch.web.browser import chromium, running_server


@pytest.fixture(scope="module")
def luck_board(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("luck")
    record = json.loads((ROOT / "examples" / "game-2p.json").read_text())
    review = review_game(record, SearchLimits(iterations=60), seed=3, source="game-2p.json").to_json()
    (tmp / "rev.json").write_text(json.dumps(review))
    with running_server([str(ROOT / "examples" / "game-2p.json"), "--review", str(tmp / "rev.json")],
                        games_dir=tmp, cwd=ROOT) as url:
        with chromium() as driver:
            driver.set_script_timeout(20)
            driver.board_url = url
            yield driver, review


def test_the_graph_marks_the_chance_events_and_the_summary_says_luck_and_accuracy(luck_board):
    driver, review = luck_board
    open_board(driver)
    marks = wait(driver, lambda d: js(d, """return [...document.querySelectorAll('#graph polygon.luck')].map(p =>
        ({ply: +p.dataset.ply, title: p.querySelector('title').textContent,
          x: p.getBoundingClientRect().left}))"""), what="the luck marks")
    events = review["luck"]["events"]
    assert [m["ply"] for m in marks] == [e["ply"] for e in events]
    assert marks[0]["title"].startswith("the set-up deal — luck P1 ")
    assert all(a["x"] < b["x"] for a, b in zip(marks, marks[1:]))  # in game order along the graph
    lines = js(driver, "return [...document.querySelectorAll('#review-summary .luck-lines li')].map(li => li.textContent)")
    assert len(lines) == 2
    for line, f in zip(lines, review["figures"]):
        assert line.startswith(f"{f['name']} lost ") and f"accuracy {f['accuracy']:.0f}%" in line
    # a mark leads to the position right after its event
    e = events[3]
    js(driver, f"document.querySelector('#graph polygon.luck[data-ply=\"{e['ply']}\"]')"
               ".dispatchEvent(new MouseEvent('click', {bubbles: true}))")
    wait(driver, lambda d: js(d, "return S.view && S.view.ply") == e["ply"] + 1, what="the node after the event")
