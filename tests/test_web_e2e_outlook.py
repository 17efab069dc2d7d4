"""The analysis board's cards-and-places panel, end to end (issue 30 items 1 and 2): a live analysis
shows every seat's finishing places after the hint's option and, per option, the cards that move
its value most (kwsearch/web/static/outlook.js), from the analysis stream's ``rootInfo.places`` and
``moveInfos[].cards``.

The server, the browser and the helpers are tests/test_web_e2e.py's (a server of examples/game-2p.json
with its review).
"""

from __future__ import annotations

import pytest

from test_web_e2e import board, js, open_board, pytestmark, wait  # noqa: F401
from test_web_e2e_panels import goto_node, start_analysis, stop_analysis


def panel(driver):
    return js(driver, """const b = document.querySelector('#outlook');
        if (!b) return null;
        return {rows: [...b.querySelectorAll('.outlook-places tr[data-seat]')].map(r =>
                    [...r.querySelectorAll('td')].map(td => td.textContent.trim())),
                title: (b.querySelector('.outlook-places-box .outlook-title') || {}).textContent || '',
                options: [...b.querySelectorAll('.outlook-option')].map(o => o.dataset.move),
                cards: [...b.querySelectorAll('.outlook-card')].map(c => c.textContent)}""")


def test_the_panel_shows_places_and_cards_of_the_live_analysis(board):
    open_board(board)
    goto_node(board, 12)
    start_analysis(board)
    wait(board, lambda d: (lambda p: p if p and p["rows"] and p["cards"] else None)(panel(d)), timeout=60,
         what="the places table and the cards")
    # stopped first, so that no newer result of the running analysis comes between the panel and S.lastResult
    # (on a loaded machine one did: the panel was a result older than the one read)
    stop_analysis(board)
    got, r = panel(board), js(board, "return S.lastResult")
    assert got["rows"] and got["cards"]
    best = sorted(r["moveInfos"], key=lambda m: m.get("rank", m["order"]))[0]
    places = dict(best["places"], move=best["move"])  # the hint's option: the re-searched best once verified
    assert got["title"] == f"Finishing places after {places['move']}"
    assert len(got["rows"]) == 2  # one row per seat: name, 1st, 2nd, expected
    for row, seat in zip(got["rows"], places["seats"]):
        assert row[1:3] == [f"{round(100 * p)}%" for p in seat["probabilities"]]
        assert row[3] == f"{seat['expected']:.2f}"
    shown = [m for m in r["moveInfos"] if m["cards"]]
    assert got["options"] and set(got["options"]) <= {m["move"] for m in shown}
    assert all(" comes up next (" in c and ", otherwise " in c for c in got["cards"])
    # another position without an analysis: the panel goes with the candidates
    goto_node(board, 3)
    wait(board, lambda d: not panel(d)["rows"] and not panel(d)["cards"], what="the panel cleared")
