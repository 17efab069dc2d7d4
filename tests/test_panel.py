"""bench/panel.py: the opponent panel (issue 32), its verdict rule and its resumable files."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from kwsearch.bots import BotSpec
from kwsearch.search import FORMER_DEFAULT

pytestmark = pytest.mark.one_engine

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture()
def panel():
    path = list(sys.path)
    spec = importlib.util.spec_from_file_location("panel", ROOT / "bench" / "panel.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    yield mod
    sys.path[:] = path


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_panel_resolves_to_valid_specs(panel, players):
    members = panel.panel(players)
    assert tuple(members) == panel.MEMBERS == ("default", "heuristic", "former", "openspiel", "pimc", "cheat")
    assert members["default"] == "ismcts" and members["former"] == "ismcts:" + FORMER_DEFAULT[players]
    for name, spec in members.items():
        for limit in ((1000, None), (None, 0.2)):
            text = panel.limited(spec, *limit)
            parsed = BotSpec.parse(text, check_files=False)
            assert str(parsed) == text
            if name != "heuristic":
                assert parsed.get("iterations") == limit[0] and parsed.get("seconds") == limit[1]
    assert panel.limited(members["openspiel"], 500, None) == "openspiel-ismcts:iterations=500"
    assert panel.limited(members["former"], 500, None) == "ismcts:iterations=500," + FORMER_DEFAULT[players]
    assert panel.limited("heuristic", 500, None) == "heuristic"


def test_panel_seeds_are_fresh_and_distinct(panel):
    import acceptance
    seeds = {panel.match_seed(n, m) for n in (2, 3, 4) for m in panel.MEMBERS}
    assert len(seeds) == 18
    assert not seeds & {acceptance.SEED_BASE + i for i in range(len(acceptance.MATCHES))}
    assert all(2_000_000 < s < 3_000_000 for s in seeds)  # a range no earlier match used (docstring)


def test_bad_player_count(panel):
    with pytest.raises(panel.PanelError):
        panel.panel(5)


def _deals(values):
    return dict(enumerate(values))


def test_the_verdict_rule_on_synthetic_scores(panel):
    judge, verdict = panel.judge, panel.panel_verdict
    # (a) beats today's default: the deal-set interval's lower end above parity
    strong = judge("default", _deals([1.0, 0.5] * 150 + [0.5, 0.0] * 50), None, 0.5, 800)
    assert strong["passed"] and strong["verdict"] == "pass" and strong["reference"] == 0.5
    assert strong["diff"] == pytest.approx(0.125) and strong["diff_interval"][0] > 0
    even = judge("default", _deals([1.0, 0.0] * 200), None, 0.5, 800)
    assert not even["passed"] and even["verdict"].startswith("**fails**")
    # (b) not worse: the paired difference's lower end above -5 points
    same = judge("heuristic", _deals([1.0, 0.5, 0.0, 1.0] * 100), _deals([1.0, 0.5, 0.0, 1.0] * 100), 0.5, 800)
    assert same["passed"] and same["diff"] == 0 and same["diff_interval"] == (0, 0)
    # a candidate 2 points worse, tightly: passes (inside the margin)
    close = judge("pimc", _deals([0.96, 0.9] * 200), _deals([0.98, 0.92] * 200), 0.5, 800)
    assert close["passed"] and close["diff"] == pytest.approx(-0.02)
    # a candidate 10 points worse: fails, and is significantly worse
    worse = judge("cheat", _deals([0.3, 0.1] * 200), _deals([0.4, 0.2] * 200), 0.5, 800)
    assert not worse["passed"] and worse["verdict"] == "**fails** (significantly worse)"
    # a noisy difference that cannot exclude -5 points: fails (the burden is the candidate's)
    noisy = judge("former", _deals([1.0, 0.0] * 20), _deals([0.0, 1.0, 1.0, 0.0] * 10), 0.5, 400)
    assert noisy["diff"] == 0 and noisy["diff_interval"][0] < -0.05 and not noisy["passed"]
    # the pairing keeps only deals both files have
    paired = judge("heuristic", {0: 1.0, 1: 0.5, 2: 0.0}, {1: 0.5, 2: 0.0}, 0.5, 400)
    assert paired["deals"] == 2 and paired["diff"] == 0
    # fewer games than MIN_GAMES: undecided whatever the numbers
    short = judge("heuristic", _deals([1.0] * 10), _deals([0.0] * 10), 0.5, 20)
    assert not short["decided"] and short["verdict"].startswith("undecided: 20 of ≥ 400 games")
    # the panel: accept iff all members decided and pass; one decided failure rejects
    rows = [strong] + [dict(same, member=m) for m in panel.MEMBERS[1:]]
    assert verdict(rows) == "accept"
    assert verdict(rows[:-1]) == "undecided"  # a member not played
    assert verdict(rows[:-1] + [dict(short, member="cheat")]) == "undecided"
    assert verdict(rows[:-1] + [worse]) == "reject"
    assert verdict([even] + rows[1:]) == "reject"
    # 4 players: parity 25%
    four = judge("default", _deals([0.5, 0.25] * 200), None, 0.25, 1600)
    assert four["passed"] and four["diff"] == pytest.approx(0.125)


def test_a_tiny_run_resumes_and_writes_its_summary(panel, tmp_path, capsys):
    results = tmp_path / "RESULTS.md"
    results.write_text("# Benchmark results\n\nother sections stay\n")
    args = ["--candidate", "ismcts:c=0.5", "--label", "tiny", "--iterations", "4", "--out-dir", str(tmp_path),
            "--results", str(results), "--member", "default", "--member", "heuristic"]
    assert panel.main(args + ["--games", "2"]) == 0
    assert panel.main(args + ["--games", "4"]) == 0  # resumed and extended
    out = capsys.readouterr().out
    assert "2p heuristic: 2 games played, 2 already in panel-tiny-2p-heuristic.jsonl" in out
    assert "2p heuristic (reference): 2 games played, 2 already in panel-tiny-2p-heuristic-ref.jsonl" in out
    cand = (tmp_path / "panel-tiny-2p-heuristic.jsonl").read_text().splitlines()
    ref = (tmp_path / "panel-tiny-2p-heuristic-ref.jsonl").read_text().splitlines()
    assert len(cand) == len(ref) == 5
    hc, hr = json.loads(cand[0]), json.loads(ref[0])
    assert hc["seed"] == hr["seed"] == panel.match_seed(2, "heuristic")  # the same decks
    assert hc["bots"] == ["ismcts:iterations=4,c=0.5", "heuristic"] and hr["bots"] == ["ismcts:iterations=4", "heuristic"]
    assert not (tmp_path / "panel-tiny-2p-default-ref.jsonl").exists()  # today's default against itself: parity
    text = results.read_text()
    assert "other sections stay" in text and "<!-- BEGIN panel-tiny -->" in text and "<!-- END panel-tiny -->" in text
    assert "**2 players**, candidate `ismcts:iterations=4,c=0.5`" in text and "Panel verdict: **undecided**" in text
    assert "| default | `ismcts:iterations=4` | 4 |" in text and "| 50.0% (parity) |" in text
    assert "| heuristic | `heuristic` | 4 |" in text
    assert "undecided: 4 of ≥ 400 games" in text
    # the report alone rewrites the same section; acceptance.py --panel hands over
    import acceptance
    assert acceptance.main(["--panel", "--label", "tiny", "--report", "--out-dir", str(tmp_path),
                            "--results", str(results)]) == 0
    assert results.read_text().count("<!-- BEGIN panel-tiny -->") == 1
    # other settings on the same file are refused
    assert panel.main(args[:5] + ["9", *args[6:], "--games", "4"]) == 2
    assert "the file has" in capsys.readouterr().err


def test_a_candidate_equal_to_the_reference_shares_its_files(panel, tmp_path):
    results = tmp_path / "RESULTS.md"
    args = ["--candidate", "ismcts", "--label", "self", "--iterations", "4", "--games", "2", "--out-dir", str(tmp_path),
            "--results", str(results), "--member", "heuristic"]
    assert panel.main(args) == 0
    assert not (tmp_path / "panel-self-2p-heuristic-ref.jsonl").exists()
    rows, _ = panel.collect("self", tmp_path, 2)
    assert [r["member"] for r in rows] == ["heuristic"] and rows[0]["diff"] == 0


def test_a_file_without_a_complete_deal_set_gives_no_row(panel, tmp_path):
    results = tmp_path / "RESULTS.md"
    args = ["--candidate", "ismcts", "--label", "part", "--iterations", "4", "--games", "1", "--out-dir", str(tmp_path),
            "--results", str(results), "--member", "heuristic"]
    assert panel.main(args) == 0  # one game of a two-game deal set
    assert panel.collect("part", tmp_path, 2)[0] == []
    assert "No match played yet." in results.read_text()
