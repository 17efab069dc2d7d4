"""Issue 30 items 1 and 2: what the cards bring and the finishing places, from the search's own samples
(kwsearch.outlook, the accounting of kwsearch._search.Tree).

Checked here: the split adds up (p * win_if + (1 - p) * win_if_not is the option's win share over the
same samples, for every card, 2/3/4 players and V6); the counting changes nothing of the search;
a built position whose outcome depends on one card names that card first with the two expected
values; every seat's place chances sum to 1 and every place's over the seats too, and first place
is the win share; everything repeats from the seed with 1 and 2 workers; the figures reach
``suggest`` (text within 80/100 columns and JSON), the review's JSON (checked) and its HTML.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kwsearch.analysis import analyse, analysis_json
from kwsearch.cli import main
from kwsearch.engine import state_from_json
from kwsearch.game import Game
from kwsearch.outlook import SPECIAL_KEY, option_cards, places
from kwsearch.search import SearchConfig, SearchLimits, search

pytestmark = pytest.mark.one_engine  # the search runs on the fast engine whatever the state's engine

ROOT = Path(__file__).resolve().parent.parent
TACTICS = ROOT / "tests" / "data" / "tactics"
GAME2 = ROOT / "examples" / "game-2p.json"


def _midgame(players: int, seed: int = 5, plies: int = 30, v6: bool = False):
    st = Game(players, v6=v6).new_initial_state(seed=seed)
    for i in range(plies):
        legal = st.legal_actions()
        st.apply(legal[(i * 7) % len(legal)])
    return st


def _all_splits(st, accounts):
    """Every card's split of every option (no minimum of samples), for the sums."""
    return {a: option_cards(st.game.components, accounts, a, top=99, min_samples=1) for a in accounts}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_split_adds_up(players):
    st = _midgame(players)
    r = search(st, SearchLimits(iterations=3000), seed=2, account=True)
    assert sum(row[0] for row in r.accounts.values()) == r.iterations == 3000
    visits = {a.action: a for a in r.actions}
    for a, oc in _all_splits(st, r.accounts).items():
        assert oc.samples == visits[a].visits  # a new tree: every visit is a sample
        assert oc.win == pytest.approx(visits[a].win_prob, abs=1e-5)  # the tree sums in float32
        for c in oc.cards:
            assert 0 < c.p < 1 or c.p == 1
            whole = c.p * c.win_if + (1 - c.p) * (c.win_if_not if c.p < 1 else 0.0)
            assert whole == pytest.approx(oc.win, abs=1e-12)
    # a card type counts once a sample, and at most two research cards come up next
    for a, (n, _win, keys, _pl) in r.accounts.items():
        assert sum(kn for k, (kn, _) in keys.items() if k < SPECIAL_KEY) <= 2 * n


def test_v6_counts_the_next_specialty_tile():
    st = _midgame(3, v6=True, plies=12)
    r = search(st, SearchLimits(iterations=2000), seed=3, account=True)
    for a, (n, _win, keys, _pl) in r.accounts.items():
        special = sum(kn for k, (kn, _) in keys.items() if k >= SPECIAL_KEY)
        assert special == n  # the current round's stack has a tile on top in every sample
    oc = option_cards(st.game.components, r.accounts, r.best_action, top=99, min_samples=1)
    tiles = [c for c in oc.cards if c.key >= SPECIAL_KEY]
    assert tiles and all(c.name.startswith("special ") for c in tiles)
    for c in tiles:
        assert c.p * c.win_if + (1 - c.p) * (c.win_if_not if c.p < 1 else 0.0) == pytest.approx(oc.win, abs=1e-12)


def test_counting_changes_nothing_of_the_search():
    st = _midgame(2)
    with_it = search(st, SearchLimits(iterations=2000), seed=4, account=True)
    without = search(st, SearchLimits(iterations=2000), seed=4)
    assert without.accounts is None and with_it.accounts
    assert with_it.actions == without.actions and with_it.pv == without.pv


def otto_gp5_position() -> dict:
    """Built from the tactics position race_gp_2p (round 3, the round ends at the next buyer action,
    seat 0 trails seat 1 in the race, and the race's first place decides the game): seat 0's GP
    car gets the printed engine 1 back (the engine 6 goes to the supply), so no tile wins the race;
    the display shows Otto, and the deck holds 2 Grand Prix 5, 3 Hire 3 workers and 3 Body +1 (the
    rest discarded). Tile 6 (research + buyer): take Otto, whose second research takes one of the
    two cards that come up next; a Grand Prix 5 among them moves the car 5 spaces into first place,
    and the buyer action ends the round: seat 0 wins exactly when a Grand Prix 5 comes up next,
    with chance 1 - (6/8)(5/7) = 13/28."""
    pos = json.loads((TACTICS / "race_gp_2p.json").read_text())
    pos.pop("_expected")
    pos["seats"][0]["gp_engine"] = 1
    pos["supply"]["engine"][5] += 1
    undrawn = pos["research"]["undrawn"]
    undrawn["Otto"] -= 1
    keep = {"gp5": 2, "hire3": 3, "dev:body1": 3}
    discard = [k for k, v in undrawn.items() for _ in range(v - keep.get(k, 0))] + ["dev:body1"]
    pos["research"] = {"display": ["Otto", "dev:engine1"], "discard": discard, "undrawn": keep}
    return pos


def test_a_position_decided_by_one_card():
    st = state_from_json(otto_gp5_position(), seed=1, engine="fast")
    r = search(st, SearchLimits(iterations=20_000), seed=1, account=True)
    tile6 = next(a for a in st.legal_actions() if st.action_to_text(a) == "tile 6")
    assert r.best_action == tile6
    oc = option_cards(st.game.components, r.accounts, tile6)
    first = oc.cards[0]
    assert first.name == "Grand Prix 5 (gp5)"
    assert first.p == pytest.approx(13 / 28, abs=0.03)
    assert first.win_if > 0.9 and first.win_if_not < 0.05
    assert first.sure_swing > 0 and first.as_json()["beyondMargin"] is True
    assert first.p * first.win_if + (1 - first.p) * first.win_if_not == pytest.approx(oc.win, abs=1e-12)
    pl = places(r.accounts, 2, tile6)
    assert pl.seats[0].p[0] == pytest.approx(oc.win, abs=1e-12)  # first place is the win share


@pytest.mark.parametrize("players", [2, 3, 4])
def test_places_sum_to_one_both_ways(players):
    st = _midgame(players, seed=9)
    r = search(st, SearchLimits(iterations=2000), seed=5, account=True)
    cut = r.config.cutoff > 0
    for action in list(r.accounts) + [None]:
        pl = places(r.accounts, players, action)
        assert len(pl.seats) == players
        for s in pl.seats:
            assert sum(s.p) == pytest.approx(1.0, abs=1e-9)
            assert s.expected == pytest.approx(sum((k + 1) * x for k, x in enumerate(s.p)))
            assert 1 - 1e-9 <= s.expected <= players + 1e-9
        for k in range(players):
            assert sum(s.p[k] for s in pl.seats) == pytest.approx(1.0, abs=1e-9)
        if action is not None:
            n, win, _keys, _ = r.accounts[action]
            assert pl.samples == n
            assert pl.seats[r.mover].p[0] == pytest.approx(win / n, abs=1e-9)
    assert cut  # the defaults cut playouts off at every player count (3 players since issue 32)


def test_places_at_the_end_of_the_game_split_ties_evenly():
    """From the last decision the playouts end the game: places by final money, ties split."""
    pos = json.loads((TACTICS / "race_gp_2p.json").read_text())
    pos.pop("_expected")
    st = state_from_json(pos, seed=1, engine="fast")
    r = search(st, SearchLimits(iterations=3000), seed=1, account=True, config=SearchConfig(cutoff=0))
    tile5 = next(a for a in st.legal_actions() if st.action_to_text(a) == "tile 5")
    pl = places(r.accounts, 2, tile5)
    assert pl.seats[0].p == (1.0, 0.0) and pl.seats[1].p == (0.0, 1.0)  # the tactic's all-win


def _json_of(workers: int) -> dict:
    st = _midgame(3)
    an = analyse(st, SearchLimits(iterations=2000), SearchConfig(workers=workers), seed=7, top=3, verify=False)
    obj = analysis_json(an)
    for k in ("elapsed", "iterationsPerSecond"):
        obj["rootInfo"].pop(k)
    return obj


@pytest.mark.parametrize("workers", [1, 2])
def test_repeats_from_the_seed(workers):
    a, b = _json_of(workers), _json_of(workers)
    assert a == b
    assert [m["cards"] for m in a["moveInfos"]] == [m["cards"] for m in b["moveInfos"]]
    assert a["rootInfo"]["places"] is not None
    assert sum(m["cards"]["samples"] for m in a["moveInfos"]) <= 2000


def test_workers_tables_are_summed():
    st = _midgame(2)
    r = search(st, SearchLimits(iterations=3001), SearchConfig(workers=2), seed=8, account=True)
    assert sum(row[0] for row in r.accounts.values()) == 3001
    for a in r.actions:
        assert r.accounts[a.action][0] == a.visits


def test_suggest_json_and_text(tmp_path):
    r = CliRunner().invoke(main, ["suggest", str(GAME2), "--ply", "20", "-i", "3000", "--json"])
    assert r.exit_code == 0, r.output
    obj = json.loads(r.stdout)
    for m in obj["moveInfos"]:
        c = m["cards"]
        assert c["samples"] == m["visits"]
        for s in c["split"]:
            p = s["probability"]
            assert p * s["winrateIf"] + (1 - p) * s["winrateIfNot"] == pytest.approx(c["winrate"], abs=1e-12)
            assert "research:" not in s["card"] and s["kind"] == "research"
            assert isinstance(s["beyondMargin"], bool)
    pl = obj["rootInfo"]["places"]
    assert pl["basis"] == "option" and pl["move"] in [m["move"] for m in obj["moveInfos"]]
    assert [sum(s["probabilities"]) for s in pl["seats"]] == pytest.approx([1.0, 1.0])
    for width in (80, 100):
        t = CliRunner().invoke(main, ["suggest", str(GAME2), "--ply", "20", "-i", "3000"],
                               env={"COLUMNS": str(width)})
        assert t.exit_code == 0, t.output
        assert all(len(line) <= width for line in t.stdout.splitlines())
        assert "what the cards bring" in t.stdout and "comes up next (" in t.stdout
        assert "finishing places after" in t.stdout and "expected 1." in t.stdout


def test_review_json_and_html_carry_the_places(tmp_path):
    from kwsearch.review import ReviewError, check_review
    out = tmp_path / "r.html"
    r = CliRunner().invoke(main, ["review", str(GAME2), "-i", "200", "--json", "--html", str(out), "--no-cache"])
    assert r.exit_code == 0, r.output
    obj = json.loads(r.stdout)
    check_review(obj, "r.json")
    ds = [d for d in obj["decisions"] if d.get("places")]
    assert len(ds) == len(obj["decisions"])
    for d in ds:
        pl = d["places"]
        assert pl["move"] == d["played"] and 0 < pl["samples"] <= d["iterations"]
        assert [sum(row) for row in pl["probabilities"]] == pytest.approx([1.0, 1.0])
    html = out.read_text()
    assert 'id="places"' in html and html.count('class="expected-place"') == 2 and "placesLine" in html
    bad = json.loads(r.stdout)
    bad["decisions"][0]["places"]["probabilities"][0][0] += 0.1
    with pytest.raises(ReviewError, match=r"decisions\[0\]\.places\.probabilities\[0\]: expected place chances summing to 1"):
        check_review(bad, "r.json")
    bad = json.loads(r.stdout)
    bad["decisions"][0]["places"]["move"] = "tile 99"
    with pytest.raises(ReviewError, match="places.move: expected the move played"):
        check_review(bad, "r.json")


def test_play_hints_show_the_cards_and_places(tmp_path):
    r = CliRunner().invoke(main, ["play", "--seats", "human,random", "--seed", "5", "--hint-iterations", "500",
                                  "--record", str(tmp_path / "g.json")], input="?\nquit\n",
                           env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.output
    text = r.output.split("hints (500 iterations", 1)[1].split("\nstopped;", 1)[0]  # the hint, not the path
    assert "what the cards bring" in text and "finishing places after tile " in text
    assert "seat 0 (P1)" in text and "seat 1 (Random)" in text and "expected 1." in text
    assert all(len(line) <= 80 for line in text.splitlines()), [x for x in text.splitlines() if len(x) > 80]
