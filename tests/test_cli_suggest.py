"""``kwsearch suggest``: text and JSON output, the documented schema, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kwsearch.cli import main

pytestmark = pytest.mark.one_engine  # the command searches on the fast engine

ROOT = Path(__file__).resolve().parent.parent
MID = str(ROOT / "examples" / "midgame-4p.json")
GAME2 = str(ROOT / "examples" / "game-2p.json")

#: docs/formats.md, "Analysis output": field -> type(s)
ROOT_INFO = {"currentPlayer": int, "visits": int, "winrate": float, "money": float, "moneyAll": list,
             "iterations": int, "iterationsPerSecond": float, "elapsed": float, "seed": int, "nodes": int,
             "config": dict}
MOVE_INFO = {"move": str, "action": int, "order": int, "visits": int, "share": float, "availability": float,
             "winrate": float, "money": float, "moneyStdev": float, "moneyAll": list, "plan": list, "pv": list}


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def check_schema(obj, players):
    assert obj["format"] == "kwsearch-analysis/1"
    assert set(obj) == {"format", "id", "ply", "interrupted", "rootInfo", "moveInfos"}
    assert set(obj["rootInfo"]) == set(ROOT_INFO)
    for k, t in ROOT_INFO.items():
        assert isinstance(obj["rootInfo"][k], (int, float) if t is float else t), k
    assert len(obj["rootInfo"]["moneyAll"]) == players
    assert obj["moveInfos"]
    for i, m in enumerate(obj["moveInfos"]):
        assert set(m) == set(MOVE_INFO)
        for k, t in MOVE_INFO.items():
            assert isinstance(m[k], (int, float) if t is float else t), k
        assert m["order"] == i and m["plan"][0] == m["move"] and len(m["moneyAll"]) == players
        assert 0 <= m["winrate"] <= 1 and 0 < m["availability"] <= 1
    visits = [m["visits"] for m in obj["moveInfos"]]
    assert visits == sorted(visits, reverse=True)


def test_suggest_text():
    r = run("suggest", MID, "--iterations", 3000, "--top", 3)
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert "seat 0" in lines[0] and "take an action tile" in lines[0]
    assert "3,000 iterations" in lines[1]
    table = [ln for ln in lines if ln[:1].isdigit()]
    assert len(table) == 3 and table[0].split()[1] == "tile"
    assert lines[-1].startswith("PV: tile ")


def test_suggest_json_schema_and_reproducibility():
    r = run("suggest", MID, "--iterations", 3000, "--json", "--seed", 5)
    assert r.exit_code == 0, r.output
    obj = json.loads(r.output)
    check_schema(obj, 4)
    assert obj["rootInfo"]["iterations"] == 3000 and obj["rootInfo"]["seed"] == 5
    again = json.loads(run("suggest", MID, "--iterations", 3000, "--json", "--seed", 5).output)
    assert again["moveInfos"] == obj["moveInfos"]


def test_suggest_on_a_record_at_a_ply():
    r = run("suggest", GAME2, "--ply", 12, "--iterations", 2000, "--json")
    assert r.exit_code == 0, r.output
    obj = json.loads(r.output)
    check_schema(obj, 2)
    assert obj["ply"] == 12


def test_suggest_two_workers_and_closed_loop():
    r = run("suggest", MID, "--iterations", 1000, "--workers", 2, "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["rootInfo"]["iterations"] == 2000
    r = run("suggest", MID, "--iterations", 1000, "--loop", "closed", "--json")
    assert r.exit_code == 0 and json.loads(r.output)["rootInfo"]["config"]["closed_loop"] is True


@pytest.mark.parametrize("args, fragment", [
    (["suggest", "missing.json"], "missing.json: no such file"),
    (["suggest", GAME2], "the game is over"),
    (["suggest", MID, "--iterations", 0], "--iterations"),
    (["suggest", MID, "--loop", "spiral"], "--loop"),
    (["suggest", GAME2, "--ply", 99999], "ply 99999"),
    (["suggest", MID, "--ply", 3], "--ply applies to game records"),
])
def test_suggest_bad_input(args, fragment):
    r = run(*args)
    assert r.exit_code != 0
    assert fragment in r.output, r.output
    assert "Traceback" not in r.output
