"""The text board and play's output: readable menus, plain card names, names, 100 columns."""

from __future__ import annotations

import json
import random
import re

import pytest
from click.testing import CliRunner

from kwsearch import actions as A
from kwsearch.cli import main
from kwsearch.components import default_components
from kwsearch.engine import reference
from kwsearch.play import HUMAN, PlayError, Session, new_game_record, parse_names
from kwsearch.render import card_label, card_legend, card_name, menu_label, render, seat_names, step_account
from kwsearch.rules import Game


def _states(n: int, seed: int, v6: bool = False):
    st = Game(n, v6=v6).new_initial_state(seed)
    rng = random.Random(seed)
    while not st.is_terminal():
        yield st
        st.apply(rng.choice(st.legal_actions()))
    yield st


def test_board_lines_fit_100_columns_and_name_cards_plainly():
    names = ["Annabelle-Marie", "Bob", "Cleopatra VII", "Dan"]
    for n, v6 in ((4, False), (3, True), (2, False)):
        for k, st in enumerate(_states(n, 11 + n, v6)):
            if k % 7:
                continue
            text = render(st, names[:n])
            assert all(len(line) <= 100 for line in text.splitlines()), text
            board = text[text.index("Action track"):]  # after the options (which show the notation too)
            # issue 31: cards go by one display name on the board as in menus and hints
            assert "research:" not in board
            cards = [card_name(ct) for ct in st.game.components.card_types]
            for t in reference(st).display:
                assert cards[t] in " ".join(board.split())


def test_menu_names_a_tiles_actions_and_cards():
    c = default_components()
    st = Game(4).new_initial_state(1)
    while st.pending() != "turn":
        st.apply(st.legal_actions()[0])
    labels = [menu_label(st, a) for a in st.legal_actions()]
    assert "tile 8 (body+engine)" in labels and "tile 9 (body+engine+buyer)" in labels
    ct = next(ct for ct in c.card_types if ct.name == "dev:engine1+tile")
    assert menu_label(st, A.RESEARCH + ct.index) == "take Engine +1 & engine tile (dev:engine1+tile)"
    assert card_label(ct) == "Engine +1 & engine tile"
    legend = card_legend(c)
    assert len(legend) >= len(c.card_types) and all(len(x) <= 98 for x in legend)  # wrapped (issue 31)
    assert sum(not x.startswith(" ") for x in legend) == len(c.card_types)


def test_seat_names_shorten_bot_specs():
    assert seat_names(["human", "ismcts:seconds=2,c=0.5", "heuristic", "heuristic"]) == [
        "P1", "ISMCTS", "Heuristic 3", "Heuristic 4"]
    assert seat_names(["human", "random"], ["Ann", "Bob"]) == ["Ann", "Bob"]
    assert parse_names("Ann, Bob", 2) == ["Ann", "Bob"]
    for bad, msg in (("Ann", "expected 2"), ("Ann,ann", "must differ"), ("Ann,", "1 to 20")):
        with pytest.raises(PlayError, match=msg):
            parse_names(bad, 2)


def test_step_account_says_what_a_move_did():
    st = Game(4).new_initial_state(3)
    rng = random.Random(3)
    lines = []
    while not st.is_terminal() and len(lines) < 150:
        a = rng.choice(st.legal_actions())
        before = st.copy()
        st.apply(a)
        lines.append(step_account(before, st, a, "Ann"))
    assert all(x.startswith("Ann ") for x in lines)
    assert any(re.match(r"Ann takes tile \d \(.*\)", x) for x in lines)
    assert any("-> workshop" in x for x in lines)


class _Say:
    def __init__(self):
        self.lines: list[str] = []

    def __call__(self, text: str) -> None:
        self.lines.extend(text.splitlines())


def test_play_prints_accounts_scorings_and_keeps_them_in_the_record(tmp_path):
    seats = ["heuristic", "random"]
    rec = new_game_record(2, 4, seats)
    said = _Say()
    session = Session(rec, seats, tmp_path / "g.json", seed=4, ask=lambda p: "quit", say=said,
                      names=["Ann", "Bob"])
    final = session.run()
    assert final.is_terminal()
    text = "\n".join(said.lines)
    assert text.count("Scoring of round") == 3 and "Final score sheet" in text
    assert re.search(r"^(Ann|Bob) takes tile \d+ \(", text, re.M)
    saved = json.loads((tmp_path / "g.json").read_text())
    assert saved["setup"]["names"] == ["Ann", "Bob"]
    assert [s["round"] for s in saved["scoring"]] == [1, 2, 3]
    assert saved["scoring"][-1]["money_after"] == final.money()
    assert all(len(x) <= 100 for x in said.lines)


def test_play_help_cards_and_names_option(tmp_path):
    r = CliRunner().invoke(main, ["play", "--help-cards"])
    assert r.exit_code == 0 and "Engine +1 & engine tile" in r.output and "dev:engine1+tile" in r.output
    out = tmp_path / "n.json"
    r = CliRunner().invoke(main, ["play", "--seats", "human,random", "--names", "Ann,Bob", "--record", str(out)],
                           input="cards\nquit\n")
    assert r.exit_code == 0, r.output
    assert "Ann (seat 0) to decide" in r.output and "Hire 3 workers" in r.output
    assert json.loads(out.read_text())["setup"]["names"] == ["Ann", "Bob"]
    r = CliRunner().invoke(main, ["play", "--seats", "human,random", "--names", "Ann", "--record",
                                  str(tmp_path / "x.json")])
    assert r.exit_code != 0 and "--names: expected 2" in r.output
