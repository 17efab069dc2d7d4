"""bench/acceptance.py: the four evidence matches, resumable, summarised with 95% intervals."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.one_engine

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture()
def acceptance():
    path = list(sys.path)
    spec = importlib.util.spec_from_file_location("acceptance", ROOT / "bench" / "acceptance.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    yield mod
    sys.path[:] = path


def test_limits_and_lineups(acceptance):
    assert acceptance.with_limit("ismcts:seconds=1,rollout=smart", None, 0.2) == "ismcts:seconds=0.2,rollout=smart"
    assert acceptance.with_limit("ismcts:c=0.5", 100, None, 4) == "ismcts:iterations=400,c=0.5"
    four = acceptance.lineup("4p", "ismcts:rollout=smart", "ismcts", 10, None)
    assert four == ["ismcts:iterations=10,rollout=smart"] + ["ismcts:iterations=10"] * 3
    more = acceptance.lineup("more", "ismcts:rollout=smart", "ismcts", 10, None)
    assert more[0] == "ismcts:iterations=40,rollout=smart" and more[1:] == ["ismcts:iterations=10,rollout=smart"] * 3
    assert acceptance.lineup("random", "ismcts", "ismcts", None, 0.2)[1] == "random"


def test_a_tiny_run_resumes_and_writes_its_summary(acceptance, tmp_path, capsys):
    results = tmp_path / "RESULTS.md"
    results.write_text("# Benchmark results\n\nother sections stay\n")
    args = ["--candidate", "ismcts:rollout=smart", "--label", "tiny", "--iterations", "8", "--games", "4",
            "--out-dir", str(tmp_path), "--results", str(results)]
    assert acceptance.main(args + ["--match", "2p", "--match", "random"]) == 0
    assert acceptance.main(args + ["--match", "2p", "--games", "6"]) == 0  # resumed and extended
    out = capsys.readouterr().out
    assert "2p: 2 games played, 4 already in acceptance-tiny-2p.jsonl" in out
    lines = (tmp_path / "acceptance-tiny-2p.jsonl").read_text().splitlines()
    assert len(lines) == 7 and json.loads(lines[0])["seed"] == acceptance.SEED_BASE
    text = results.read_text()
    assert "other sections stay" in text and "<!-- BEGIN acceptance-tiny -->" in text
    assert ("| 2p | 2 players, candidate vs baseline | `ismcts:iterations=8,rollout=smart` vs "
            "`ismcts:iterations=8` | 6 | 3 |") in text
    assert "| random | 2 players, candidate vs random | `ismcts:iterations=8,rollout=smart` vs `random` |" in text
    assert "Written by `bench/acceptance.py` on " in text and "Python " in text  # the date and the machine
    assert "undecided: 6 of ≥ 400 games (" in text and "| pass |" not in text  # no verdict before 400 games
    assert "| 4p |" not in text
    s = acceptance.match_stats(tmp_path / "acceptance-tiny-random.jsonl", "random")
    assert s["games"] == 4 and s["deals"] == 2 and 0 <= s["wilson"][0] <= s["mean"] <= s["wilson"][1] <= 1
    # other settings on the same file are refused, in one line
    assert acceptance.main(args[:5] + ["9", *args[6:], "--match", "2p"]) == 2
    assert "the file has" in capsys.readouterr().err


def test_adjudicated_games_are_counted_with_their_result(acceptance, tmp_path, monkeypatch):
    import kwsearch.bots
    from kwsearch.game import win_shares
    monkeypatch.setattr(kwsearch.bots, "MAX_MATCH_DECISIONS", 10)
    results = tmp_path / "RESULTS.md"
    args = ["--candidate", "ismcts", "--label", "cap", "--iterations", "8", "--games", "2",
            "--out-dir", str(tmp_path), "--results", str(results), "--match", "random"]
    assert acceptance.main(args) == 0
    path = tmp_path / "acceptance-cap-random.jsonl"
    games = [json.loads(x) for x in path.read_text().splitlines()[1:]]
    assert all(g["adjudicated"] is True and g["returns"] == win_shares(g["money"]) for g in games)
    s = acceptance.match_stats(path, "random")
    assert s["adjudicated"] == 2 and s["mean"] == sum(g["returns"][g["bots"].index(0)] for g in games) / 2
    assert "2 adjudicated at the decision cap" in results.read_text()
