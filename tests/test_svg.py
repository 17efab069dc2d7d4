"""kwsearch.svg: a standalone, valid SVG picture of any state, with every seat's money."""

from __future__ import annotations

import json
import random
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from kwsearch.cli import main
from kwsearch.formats import state_to_position
from kwsearch.engine import reference
from kwsearch.rules import Game
from kwsearch.scoring import prospective_sales
from kwsearch.svg import SEAT_COLOURS, board_svg, position_svg

ROOT = Path(__file__).resolve().parent.parent
NS = "{http://www.w3.org/2000/svg}"


def _texts(svg: str) -> list[str]:
    root = ET.fromstring(svg)  # valid XML, or this raises
    assert root.tag == NS + "svg"
    return ["".join(t.itertext()) for t in root.iter(NS + "text")]


def _walk(n: int, seed: int, steps: int, v6: bool = False):
    st = Game(n, v6=v6).new_initial_state(seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if st.is_terminal():
            break
        st.apply(rng.choice(st.legal_actions()))
    return st


@pytest.mark.parametrize("n,v6", [(2, False), (3, True), (4, False)])
def test_valid_xml_with_every_seats_money(n, v6):
    for seed in range(4):
        for steps in (0, 60, 140, 10_000):
            st = _walk(n, seed, steps, v6)
            names = [f"Seat{i}name" for i in range(n)]
            svg = board_svg(st, seat_names=names)
            texts = _texts(svg)
            for i, m in enumerate(st.money()):
                assert f"money {m}" in texts, (i, m)
                assert any(t.startswith(names[i]) for t in texts)
            for i in range(n):
                assert SEAT_COLOURS[i] in svg


def test_draws_what_the_brief_lists():
    st = _walk(4, 3, 120)
    ref = reference(st)
    texts = " | ".join(_texts(board_svg(st)))
    assert f"round {ref.round} of 3" in texts
    assert "Action track" in texts and "Research display" in texts and "Market" in texts
    assert "Grand Prix" in texts and "Buyer track" in texts
    for e in ref.chain:
        if e < 16:
            assert f"tile {e}" in texts
    for car in ref.market:
        assert f"body {car[1]}" in texts and f"engine {car[2]}" in texts
    assert "To decide" in texts


def test_market_shows_who_would_buy():
    for seed in range(30):
        st = _walk(4, seed, 110)
        ref = reference(st)
        if ref.market and ref.active:
            texts = _texts(board_svg(st))
            sales = prospective_sales(st)
            assert sum("→ buyer" in t for t in texts) == len(sales)
            return
    pytest.fail("no random position with a market and buyers")


def test_deck_order_is_never_drawn():
    st = _walk(3, 5, 50)
    other = reference(st).copy()
    other.determinize(99)
    assert board_svg(st) == board_svg(other)


def test_size_perspective_and_position_objects():
    st = _walk(3, 2, 80)
    svg = board_svg(st, size=600, perspective=2, seat_names=["Ann", "Bob", "Cy"])
    root = ET.fromstring(svg)
    assert root.get("width") == "600"
    texts = _texts(svg)
    mats = [t for t, nxt in zip(texts, texts[1:]) if nxt.startswith("money ")]  # the mats' headers
    assert mats[0].startswith("Cy (you)")  # the perspective seat's mat comes first
    assert position_svg(state_to_position(reference(st))) == board_svg(reference(st))


@pytest.mark.one_engine
def test_show_svg_cli(tmp_path):
    out = tmp_path / "board.svg"
    result = CliRunner().invoke(main, ["show", str(ROOT / "examples" / "game-2p.json"), "--svg", str(out)])
    assert result.exit_code == 0, result.output
    texts = _texts(out.read_text())
    rec = json.loads((ROOT / "examples" / "game-2p.json").read_text())
    names = rec.get("setup", {}).get("seats")
    if names:
        assert any(str(names[0]) in t for t in texts)


def test_v6_specialty_tiles_are_drawn():
    st = _walk(3, 7, 30, v6=True)
    ref = reference(st)
    texts = " | ".join(_texts(board_svg(st)))
    specials = [e - 32 for e in ref.chain if e >= 32]
    assert specials
    for t in specials:
        assert f"special {ref.game.components.specialty_tiles[t].name}" in texts
    assert "Specialty stacks" in texts
