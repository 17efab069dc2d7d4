"""kwsearch.scoring: every scoring explains where each coin came from."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from helpers import minimal_position
from kwsearch.engine import reference, state_from_json
from kwsearch.errors import InvalidRecordError
from kwsearch.records import Recorder, replay
from kwsearch.rules import Game
from kwsearch.scoring import explain_apply, prospective_sales, record_scorings

ROOT = Path(__file__).resolve().parent.parent


def _random_game(n: int, seed: int, v6: bool = False):
    st = Game(n, v6=v6).new_initial_state(seed)
    rng = random.Random(seed)
    reports = []
    while not st.is_terminal():
        reports += explain_apply(st, rng.choice(st.legal_actions()))
    return st, reports


@pytest.mark.parametrize("n", [2, 3, 4])
def test_breakdown_sums_equal_the_money_change_at_every_scoring(n):
    v6_games = 0
    for seed in range(70):
        v6 = seed % 5 == 0
        st, reports = _random_game(n, seed, v6)
        v6_games += v6
        assert [r.round for r in reports] == [1, 2, 3]
        for r in reports:
            for s in range(n):
                assert r.total(s) == r.money_after[s] - r.money_before[s], (seed, r.round, s, r.items(s))
        assert reports[-1].money_after == st.money()
        assert reports[-1].final is not None and reports[-1].final.money == st.money()
        assert all(r.final is None for r in reports[:-1])
        # every car on the market at scoring is either sold or listed unsold
        for r in reports:
            sold = [x.car for x in r.sales if x.car is not None]
            assert len({id(c) for c in sold}) == len(sold)
            assert all(x.payment >= x.car.price for x in r.sales if x.car is not None)
    assert v6_games


def test_prospective_sales_are_the_sales_scoring_makes():
    """Right before a scoring without Benz, "who would buy now" is exactly what happens."""
    seen = 0
    for seed in range(40):
        st = Game(3).new_initial_state(seed)
        rng = random.Random(seed)
        while not st.is_terminal():
            ref = reference(st)
            prospect = prospective_sales(st)
            market, active = [tuple(c) for c in ref.market], list(ref.active)
            reports = explain_apply(st, rng.choice(st.legal_actions()))
            if not reports or reports[0].benz:
                continue
            r = reports[0]
            scored = [s.car for s in r.sales if s.car] + r.unsold
            if (sorted(market) != sorted((c.seller, c.body, c.engine, c.workers, c.price, c.maybach, c.horch)
                                         for c in scored) or len(r.sales) != len(active)):
                continue  # the last step still changed the market or the buyers
            sold = {(s.car.seller, s.car.price): (s.buyer - 1, s.payment) for s in r.sales if s.car}
            assert {(market[i][0], market[i][4]): (b, pay) for i, (b, _, pay) in prospect.items()} == sold
            seen += 1
    assert seen >= 20


def test_record_scorings_match_the_steps():
    rec = json.loads((ROOT / "examples" / "game-4p.json").read_text())
    reports = record_scorings(rec)
    assert len(reports) == 3
    final = replay(rec)
    assert reports[-1].money_after == final.money()
    assert [r.round for r in record_scorings(rec, upto=10)] == []


def test_record_scoring_field_is_checked_on_reading():
    rec = json.loads((ROOT / "examples" / "game-2p.json").read_text())
    rec["scoring"] = [r.to_json() for r in record_scorings(rec)]
    json.dumps(rec)  # JSON-ready
    replay(rec)  # a valid field is accepted (and ignored: it is derived from the events)
    rec["scoring"] = "yes"
    with pytest.raises(InvalidRecordError, match="scoring: expected a list"):
        replay(rec)


# --- the rulebook's worked examples (tests/test_worked_examples_b.py), as breakdowns ------------


def _score(pos: dict) -> list:
    """Play the one move of seat 0 that ends the action phase (the track is on 0)."""
    st = state_from_json(pos, seed=1)
    return explain_apply(st, st.parse_move("tile 0"))  # hire a worker; the phase ends after it


def test_worked_example_three_cars_three_buyers_line_for_line():
    market = [
        {"owner": 1, "body": 2, "engine": 2, "workers": 3, "price": 11},
        {"owner": 2, "body": 3, "engine": 2, "workers": 1, "price": 6},
        {"owner": 0, "body": 3, "engine": 4, "workers": 2, "price": 8},
    ]
    buyers = {"active": [{"preference": p} for p in ("prestige", "body", "engine")], "track": 0}
    (report,) = _score(minimal_position(4, round_=2, market=market, buyers=buyers))
    lines = report.lines(["Marion", "Blue", "Green", "Yellow"])
    assert lines[0] == "Scoring of round 2"
    assert "  Grand Prix: no car left the pit lane" in lines or any("pit lane" in x for x in lines)
    assert ("  Buyer 1 (prestige) buys Blue's car (body 2, engine 2, 3 workers, price 11): Blue +11"
            in lines)
    # the tie at body 3 goes to the cheaper Mercedes
    assert "  Buyer 2 (body) buys Green's car (body 3, engine 2, 1 worker, price 6): Green +6" in lines
    assert "  Buyer 3 (engine) buys Marion's car (body 3, engine 4, 2 workers, price 8): Marion +8" in lines
    assert "    Marion: 0 -> 8 (+8: sale to buyer 3 (engine) +8)" in lines
    assert "    Blue: 0 -> 11 (+11: sale to buyer 1 (prestige) +11)" in lines
    assert "    Green: 0 -> 6 (+6: sale to buyer 2 (body) +6)" in lines
    assert report.money_after == [8, 11, 6, 0]


def test_worked_example_two_player_race_line_for_line():
    pos = minimal_position(2, seats={0: {"space": 10}, 1: {"space": 4}}, buyers={"track": 0})
    (report,) = _score(pos)
    lines = report.lines(["Marion", "Blue"])
    assert lines[1].startswith("  Grand Prix: 1st Marion (lap 0 space 10) +7; 2nd neutral car")
    text = " ".join(x.strip() for x in lines)  # the race line wraps at 100 columns
    assert ("Grand Prix: 1st Marion (lap 0 space 10) +7; 2nd neutral car (space 6); "
            "3rd Blue (lap 0 space 4) +2; 4th neutral car (space 3)") in text
    assert "    Marion: 0 -> 7 (+7: 1st in the race +7)" in lines
    assert "    Blue: 0 -> 2 (+2: 3rd in the race +2)" in lines


def test_price_buyer_opel_and_daimler_are_named():
    market = [{"owner": 0, "body": 1, "engine": 1, "workers": 1, "price": 5}]
    pos = minimal_position(2, market=market, buyers={"active": [{"preference": "price", "daimler": 2}],
                                                       "track": 0},
                           seats={0: {"engineers": ["Opel"]}})
    (report,) = _score(pos)
    (sale,) = [s for s in report.sales if s.car]
    assert (sale.multiplier, sale.opel, sale.daimler, sale.payment) == (3, True, 2, 17)
    text = " ".join(x.strip() for x in report.lines(["Marion", "Blue"]))
    assert "Marion +5 x3 (Opel) + 2 Daimler = 17" in text


def test_final_sheet_with_a_tie():
    pos = minimal_position(2, round_=3, buyers={"track": 0}, seats={0: {"money": 12}, 1: {"money": 12}})
    (report,) = _score(pos)
    sheet = report.final
    assert sheet.winners == [0, 1] and sheet.places == [1, 1]
    text = report.lines(["Ann", "Bob"])
    start = text.index("Final score sheet")
    assert text[start + 1:start + 3] == ["  1. Ann   12", "  1. Bob   12"]
    assert text[start + 3].startswith("  Winner: Ann and Bob (they share the win)")


def test_lines_fit_100_columns():
    for seed in range(10):
        _, reports = _random_game(4, seed)
        for r in reports:
            assert all(len(x) <= 100 for x in r.lines(["Annabelle", "Bob", "Cleopatra", "Dan"]))


@pytest.mark.one_engine
def test_show_prints_the_last_scoring():
    from click.testing import CliRunner
    from kwsearch.cli import main
    game = ROOT / "examples" / "game-4p.json"
    rec = json.loads(game.read_text())
    reports = record_scorings(rec)
    r = CliRunner().invoke(main, ["show", str(game)])
    assert r.exit_code == 0
    assert "Scoring of round 3" in r.output and "Final score sheet" in r.output
    early = CliRunner().invoke(main, ["show", str(game), "--ply", "5"])
    assert "Scoring of round" not in early.output
    names = rec["setup"]["seats"]
    for line in reports[-1].lines(names):
        assert line in r.output
