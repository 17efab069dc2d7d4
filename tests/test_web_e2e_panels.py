"""The analysis board's panels around the board, end to end (issue 31 item 2): the evaluation bar
beside the board, the win-% change beside each reviewed move, and the best plan drawn on the board.

The server, the browser and the helpers are tests/test_web_e2e.py's (a server of examples/game-2p.json
with its review). Set ``KWS_PANELS_PNG=path.png`` to save a screenshot of the three together.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from test_web_e2e import ROOT, board, current_node, js, open_board, pytestmark, wait  # noqa: F401

REVIEW = json.loads((ROOT / "examples" / "game-2p.review.json").read_text())


def goto_node(driver, node):
    js(driver, f"document.querySelector('#moves .mv[data-node=\"{node}\"]').click()")
    wait(driver, lambda d: current_node(d) == node, what=f"node {node}")


def reviewed_node(driver, marked=False):
    """A main-line node the review covers (after a reviewed move): (node, its review point)."""
    points = js(driver, "return S.doc.review.points")
    p = next(p for p in points if (p["mark"] if marked else p["ply"] > 10))
    return p["node"], p


def start_analysis(driver):
    driver.find_element("id", "btn-analyse").click()
    wait(driver, lambda d: js(d, "return !!(S.lastResult && S.lastResult.moveInfos.length)"), what="an analysis update")


def stop_analysis(driver):
    if js(driver, "return S.analysing"):
        driver.find_element("id", "btn-analyse").click()
    wait(driver, lambda d: js(d, "return S.analysis === null"), timeout=60, what="the analysis to end")


def bar(driver):
    return js(driver, """const b = document.querySelector('#evalbar');
        return {hidden: b.hidden, source: b.dataset.source, seats: b.dataset.seats ? JSON.parse(b.dataset.seats) : null,
                mover: b.dataset.mover, label: b.querySelector('.ev-label').textContent,
                segs: [...b.querySelectorAll('.ev-seg')].map(s => ({seat: s.dataset.seat ?? null,
                        h: s.getBoundingClientRect().height})),
                track: b.querySelector('.ev-track').getBoundingClientRect().height,
                left: b.getBoundingClientRect().right <= document.querySelector('#board svg').getBoundingClientRect().left + 1}""")


def test_the_evaluation_bar_shows_the_review_then_the_live_analysis(board):
    open_board(board)
    node, p = reviewed_node(board)
    goto_node(board, node)
    b = wait(board, lambda d: (lambda x: x if not x["hidden"] and x["source"] == "review" else None)(bar(d)),
             what="the review's values in the bar")
    assert b["left"]  # a vertical bar beside (left of) the board, as lichess's
    assert b["seats"] == pytest.approx(p["win"])
    # every seat a segment, the seat to move at the bottom (first), heights as the values
    mover = js(board, "return S.view.to_move")
    assert [int(s["seat"]) for s in b["segs"]][0] == mover and len(b["segs"]) == 2
    for s in b["segs"]:
        assert s["h"] == pytest.approx(b["track"] * p["win"][int(s["seat"])], abs=2)
    assert b["label"] == f"{100 * p['win'][mover]:.0f}"
    # the root is not a reviewed position: no value, no bar
    goto_node_root = "document.querySelector('#moves .root').click()"
    js(board, goto_node_root)
    wait(board, lambda d: current_node(d) == 0, what="the start")
    assert bar(board)["hidden"]
    # the live analysis: the best option's win probability for the mover, the other seat the rest (2 players)
    goto_node(board, node)
    start_analysis(board)
    b = wait(board, lambda d: (lambda x: x if x["source"] == "analysis" else None)(bar(d)), what="the analysis's bar")
    r = js(board, "return S.lastResult")
    mover = r["rootInfo"]["currentPlayer"]
    best = sorted(r["moveInfos"], key=lambda m: m.get("rank", m["order"]))[0]
    w = b["seats"][mover]
    assert b["mover"] == str(mover) and 0 <= w <= 1 and b["seats"][1 - mover] == pytest.approx(1 - w)
    assert abs(w - best["winrate"]) < 0.2  # the numbers move between updates; the one read may be one older
    stop_analysis(board)
    r = js(board, "return S.lastResult")
    best = sorted(r["moveInfos"], key=lambda m: m.get("rank", m["order"]))[0]
    win = (best.get("estimate") or best)["winrate"]
    assert bar(board)["seats"][mover] == pytest.approx(win)


def test_each_reviewed_move_shows_its_win_change(board):
    open_board(board)
    points = js(board, "return S.doc.review.points")
    rows = js(board, """return Object.fromEntries([...document.querySelectorAll('#moves .mv')].map(r =>
        [r.dataset.node, (e => e ? [e.textContent, e.className] : null)(r.querySelector('.delta'))]))""")
    assert len(points) == len(REVIEW["decisions"])
    for p in points:
        text, cls = rows[str(p["node"])]
        d = 100 * (p["win_played"] - p["win_best"])
        want = "0.0" if abs(d) < 0.05 else ("\u2212" if d < 0 else "+") + f"{abs(d):.1f}"
        assert text == want, (p, text)
        assert cls == f"delta {p['mark'] or 'none'}"
    marked = [p for p in points if p["mark"]]
    assert marked and all(rows[str(p["node"])][0].startswith("\u2212") for p in marked)
    # coloured by the mark: a blunder's change is red, an unmarked one muted
    colours = js(board, """const c = (sel) => { const e = document.querySelector(sel); return e && getComputedStyle(e).color; };
        return [c('#moves .mv:not(.current) .delta.blunder'), c('#moves .mv:not(.current) .delta.none')]""")
    if colours[0]:
        assert colours[0] == "rgb(212, 42, 42)"
    assert colours[1] and colours[1] != colours[0]


def test_the_best_plan_is_drawn_on_the_board(board):
    open_board(board)
    # a turn: the seat takes a tile from the track (the next main-line move is a tile)
    node = js(board, "return S.doc.nodes.find(n => n.main && n.parent !== null && /^tile \\d+$/.test(n.move) && n.ply > 8).parent")
    goto_node(board, node)
    assert not js(board, "return !!document.querySelector('#plan-overlay')")
    svg_ids = js(board, "return [...document.querySelectorAll('#board svg [data-kw]')].map(e => e.dataset.kw)")
    assert any(k.startswith("tile-") for k in svg_ids) and any(k.startswith("market-") for k in svg_ids)
    start_analysis(board)
    stop_analysis(board)
    wait(board, lambda d: js(d, "return !!document.querySelector('#plan-overlay .plan-place')"), what="the plan overlay")
    plan = js(board, "return ranked(S.lastResult)[0].plan")
    places = js(board, """return [...document.querySelectorAll('#plan-overlay .plan-place')].map(p =>
        ({kw: p.dataset.kw, step: p.dataset.step, title: p.querySelector('title').textContent}))""")
    nums = js(board, "return [...document.querySelectorAll('#plan-overlay .plan-num')].map(t => t.textContent)")
    assert plan[0].startswith("tile ")
    assert places[0]["kw"] == "tile-" + plan[0].split()[1] and places[0]["title"].startswith("1. " + plan[0])
    assert nums == [str(k + 1) for k in range(len(places))] == [p["step"] for p in places]
    market = [s for s in plan if s.startswith("market ") and s != "market pass"]
    if market:  # the car it puts on the market: the market space it takes, all its parts one place
        mk = [p for p in places if p["kw"].startswith("market-")]
        assert len(mk) == 1 and all(s in mk[0]["title"] for s in market)
        assert js(board, f"return document.querySelector('#board svg [data-kw=\"{mk[0]['kw']}\"]').dataset.next") == "1"
    buyers = [s for s in plan if s.startswith("buyer ")]
    if buyers:
        assert any(p["kw"].startswith("buyer-") for p in places)
    # the overlay sits on the board's places: its outline around the tile's rectangle
    inside = js(board, """const t = document.querySelector('#board svg [data-kw="' + arguments[0] + '"]').getBoundingClientRect();
        const o = document.querySelector('#plan-overlay .plan-place').getBoundingClientRect();
        return o.left <= t.left && o.right >= t.right && o.top <= t.top && o.bottom >= t.bottom""", places[0]["kw"])
    assert inside
    # the evaluation bar and the move deltas are there too; the screenshot shows the three
    assert not bar(board)["hidden"]
    if os.environ.get("KWS_PANELS_PNG"):
        board.set_window_size(1500, 1500)
        js(board, """const m = document.querySelector('#moves'), c = m.querySelector('.mv.current');
            m.scrollTop = c.offsetTop - m.offsetTop - 60; window.scrollTo(0, 0);""")
        time.sleep(0.3)
        Path(os.environ["KWS_PANELS_PNG"]).write_bytes(board.get_screenshot_as_png())
    # another position: the plan goes with the analysis of the position before
    goto_node(board, node + 1)
    assert not js(board, "return !!document.querySelector('#plan-overlay')")


def test_the_bar_with_four_seats_shows_the_mover_and_the_other_seats_as_one_part(board):
    """The analysis carries the mover's win only (docs/web.md): with four seats the bar is the mover's
    part and one hatched part for the rest (drawn from a made-up view and result, nothing searched)."""
    open_board(board)
    js(board, """S.view = {...S.view, names: ['a', 'b', 'c', 'd'], to_move: 2, terminal: false};
        S.lastResult = {rootInfo: {currentPlayer: 2}, moveInfos: [{order: 0, winrate: 0.4, plan: []}]};
        renderEvalBar();""")
    b = bar(board)
    assert b["source"] == "analysis" and b["seats"] == [None, None, 0.4, None] and b["label"] == "40"
    assert [s["seat"] for s in b["segs"]] == ["2", None]
    assert b["segs"][0]["h"] == pytest.approx(0.4 * b["track"], abs=2)
    assert b["segs"][1]["h"] == pytest.approx(0.6 * b["track"], abs=2)
    assert "mover's win only" in js(board, "return document.querySelector('#evalbar').title")
