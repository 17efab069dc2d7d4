"""``kwsearch suggest``: text and JSON output, the documented schema, bad input."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from helpers import check_analysis_fields, subprocess_env
from kwsearch.cli import main

pytestmark = pytest.mark.one_engine  # the command searches on the fast engine

ROOT = Path(__file__).resolve().parent.parent
MID = str(ROOT / "examples" / "midgame-4p.json")
GAME2 = str(ROOT / "examples" / "game-2p.json")
MID3 = str(ROOT / "tests" / "data" / "scoring-3p.json")

#: rootInfo fields that are timings (the rest is reproducible from the seed under an iteration limit)
TIMINGS = ("iterationsPerSecond", "elapsed")


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def logical(stdout: str) -> list[str]:
    """suggest's lines with the wrapped ones (continued on lines indented 4 or more) joined again."""
    out: list[str] = []
    for line in stdout.splitlines():
        if line.startswith("    ") and out:
            out[-1] += " " + line.strip()
        else:
            out.append(line)
    return out


def check_schema(obj, players):
    check_analysis_fields(obj, players)  # docs/formats.md's fields and types (tests/helpers.py)
    visits = [m["visits"] for m in obj["moveInfos"]]
    assert visits == sorted(visits, reverse=True)
    config = obj["rootInfo"]["config"]
    smart = {"playout"} if config["rollout"] == "smart" else set()  # the smart rollout's knobs
    assert set(config) == {"c_uct", "money_weight", "determinize", "workers", "max_nodes",
                           "closed_loop", "rollout", "cutoff", "evaluation", "root"} | smart
    assert config["root"] == "uct"  # the default at every player count
    # the player-count defaults filled in (docs/strength.md)
    assert (config["rollout"], config["cutoff"], config["evaluation"]) == \
        {2: ("smart", 15, "tempo"), 3: ("smart", 30, "smart"), 4: ("smart", 30, "searched")}[players]


def without_timings(text: str) -> str:
    obj = json.loads(text)
    for key in TIMINGS:
        del obj["rootInfo"][key]
    return json.dumps(obj, indent=1)


def test_suggest_text():
    r = run("suggest", MID, "--iterations", 3000, "--top", 3)
    assert r.exit_code == 0, r.output
    assert r.stderr.startswith("searching: 3,000 iterations, 1 worker, seed 0")
    lines = logical(r.stdout)
    assert "seat 0" in lines[0] and "take an action tile" in lines[0]
    assert "3,000 iterations" in lines[1]
    assert lines[1].endswith("1 worker, open loop, c 0.4, smart playouts, "
                             "cut off after 30 decisions (searched evaluation)")
    table = [k for k, ln in enumerate(lines) if ln[:1].isdigit()]
    # issue 31: the numbers on the row, the plan on the line under it (within 100 columns)
    assert len(table) == 3 and lines[table[0] + 1].split()[0] == "tile"
    assert lines[-1].startswith("PV: tile ")


def test_suggest_json_schema_and_reproducibility():
    r = run("suggest", MID, "--iterations", 3000, "--json", "--seed", 5)
    assert r.exit_code == 0, r.output
    obj = json.loads(r.stdout)
    check_schema(obj, 4)
    assert obj["rootInfo"]["iterations"] == 3000 and obj["rootInfo"]["seed"] == 5
    assert obj["rootInfo"]["limits"] == {"iterations": 3000, "seconds": None}
    assert sum(m["visits"] for m in obj["moveInfos"]) <= 3000


@pytest.mark.parametrize("workers", [1, 2])
def test_same_seed_gives_byte_identical_json_minus_timings(workers):
    args = ("suggest", MID, "--iterations", 4000, "--json", "--seed", 9, "--workers", workers, "--top", 30)
    first, second = run(*args), run(*args)
    assert first.exit_code == 0 and second.exit_code == 0, first.output
    assert without_timings(first.stdout) == without_timings(second.stdout)
    obj = json.loads(first.stdout)
    # All options listed: their visits add up to the iterations, their shares to 1.
    assert sum(m["visits"] for m in obj["moveInfos"]) == obj["rootInfo"]["iterations"] == 4000
    assert abs(sum(m["share"] for m in obj["moveInfos"]) - 1) < 1e-9
    assert obj["rootInfo"]["config"]["workers"] == workers
    other = run("suggest", MID, "--iterations", 4000, "--json", "--seed", 10, "--workers", workers, "--top", 30)
    assert without_timings(other.stdout) != without_timings(first.stdout)


def test_suggest_on_a_record_at_a_ply():
    r = run("suggest", GAME2, "--ply", 12, "--iterations", 2000, "--json")
    assert r.exit_code == 0, r.output
    obj = json.loads(r.stdout)
    check_schema(obj, 2)
    assert obj["ply"] == 12


def test_money_is_labelled_as_at_the_cut_off_when_playouts_stop_early():
    """The defaults cut playouts off (docs/strength.md): the money column is the money there."""
    r = run("suggest", GAME2, "--ply", 12, "--iterations", 1500)
    assert r.exit_code == 0, r.output
    assert "money@cut ± sd" in r.stdout and "cut off after 15 decisions" in r.stdout
    assert "money@cut: the seat's money where the playouts stopped, 15 decisions on" in r.stdout
    full = run("suggest", GAME2, "--ply", 12, "--iterations", 1500, "--cutoff", 0)
    assert full.exit_code == 0, full.output
    assert "money ± sd" in full.stdout and "money@cut" not in full.stdout and "cut off" not in full.stdout
    four = run("suggest", MID, "--iterations", 800)  # the four-player default cuts off after 30
    assert four.exit_code == 0 and "money@cut ± sd" in four.stdout and "cut off after 30 decisions" in four.stdout
    three = run("suggest", MID3, "--iterations", 800)  # so does the three-player one, scored by `smart`
    assert three.exit_code == 0 and "money@cut ± sd" in three.stdout
    assert "cut off after 30 decisions (smart evaluation)" in three.stdout


def test_suggest_two_workers_and_closed_loop():
    r = run("suggest", MID, "--iterations", 1000, "--workers", 2, "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["rootInfo"]["iterations"] == 1000  # the total over both workers
    r = run("suggest", MID, "--iterations", 1000, "--loop", "closed", "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["rootInfo"]["config"]["closed_loop"] is True


def test_suggest_reports_a_full_node_pool():
    r = run("suggest", MID, "--iterations", 50000, "--max-nodes", 500, "--json")
    assert r.exit_code == 0, r.output
    obj = json.loads(r.stdout)
    assert obj["rootInfo"]["poolFull"] is True and obj["rootInfo"]["iterations"] < 50000
    assert "node pool" in r.stderr and "--max-nodes" in r.stderr
    text = run("suggest", MID, "--iterations", 50000, "--max-nodes", 500)
    assert "(node pool full)" in " ".join(logical(text.stdout))


def test_suggest_searches_as_the_bot_spec_says():
    """--bot takes every search setting of the spec (and its limit), the explicit options override it,
    and the result equals a search with that configuration."""
    spec = "ismcts:iterations=3000,c=0.9,money=0.2,rollout=smart,rule=0.8,cutoff=15"
    a = json.loads(run("suggest", MID, "--json", "--bot", spec).stdout)
    config = a["rootInfo"]["config"]
    assert config["c_uct"] == 0.9 and config["money_weight"] == 0.2 and config["rollout"] == "smart"
    assert config["cutoff"] == 15 and config["playout"]["rule"] == 0.8
    assert a["rootInfo"]["iterations"] == 3000 and a["rootInfo"]["limits"]["iterations"] == 3000
    header = logical(run("suggest", MID, "--bot", spec, "--loop", "closed").stdout)[1]
    assert header.endswith("closed loop, c 0.9, smart playouts, "
                           "cut off after 15 decisions (searched evaluation)")  # as run
    b = json.loads(run("suggest", MID, "--json", "--bot", spec, "--iterations", 1000, "--cutoff", 0,
                       "--loop", "closed").stdout)
    assert b["rootInfo"]["iterations"] == 1000
    assert b["rootInfo"]["config"]["cutoff"] == 0 and b["rootInfo"]["config"]["closed_loop"] is True
    assert b["rootInfo"]["config"]["c_uct"] == 0.9  # the rest of the spec stays
    plain = json.loads(run("suggest", MID, "--json", "--iterations", 1000).stdout)
    assert plain["rootInfo"]["config"]["rollout"] == "smart" and plain["rootInfo"]["config"]["cutoff"] == 30
    again = json.loads(run("suggest", MID, "--json", "--bot", spec).stdout)
    for k in TIMINGS:
        a["rootInfo"].pop(k), again["rootInfo"].pop(k)
    assert a == again


def test_suggest_root_halving():
    """--root halving (or root=halving in --bot) searches by sequential halving: the header says so, the
    JSON names it, the finalists have equal visits, and it is the library's search, draw for draw."""
    from kwsearch.records import load_file
    from kwsearch.search import SearchConfig, SearchLimits, search
    r = run("suggest", MID, "--iterations", 4000, "--root", "halving", "--json")
    assert r.exit_code == 0, r.output
    obj = json.loads(r.stdout)
    assert obj["rootInfo"]["config"]["root"] == "halving" and obj["rootInfo"]["iterations"] == 4000
    first, second = obj["moveInfos"][:2]
    assert abs(first["visits"] - second["visits"]) <= 1 and first["winrate"] >= 0
    state, _ = load_file(MID)
    # a hint analyses: the library's search with the analysis defaults (SearchConfig.for_analysis)
    lib = search(state, SearchLimits(iterations=4000), SearchConfig(root="halving").for_analysis(4), seed=0)
    assert [m["action"] for m in obj["moveInfos"]] == [a.action for a in lib.actions[:len(obj["moveInfos"])]]
    assert [m["visits"] for m in obj["moveInfos"]] == [a.visits for a in lib.actions[:len(obj["moveInfos"])]]
    via_bot = json.loads(run("suggest", MID, "--bot", "ismcts:iterations=4000,root=halving", "--json").stdout)
    assert via_bot["moveInfos"] == obj["moveInfos"]
    header = logical(run("suggest", MID, "--iterations", 2000, "--root", "halving").stdout)[1]
    assert header.endswith("(searched evaluation), sequential halving at the root")
    plain = logical(run("suggest", MID, "--iterations", 2000).stdout)[1]
    assert "halving" not in plain


@pytest.mark.parametrize("args, fragment", [
    (["suggest", "missing.json"], "missing.json: no such file"),
    (["suggest", MID, "--root", "best"], "--root"),
    (["suggest", MID, "--bot", "ismcts:root=best"], "root expects uct or halving, got 'best'"),
    (["suggest", GAME2], "the game is over"),
    (["suggest", MID, "--iterations", 0], "--iterations"),
    (["suggest", MID, "--iterations", 2**31], "--iterations"),
    (["suggest", MID, "--seconds", "nan"], "--seconds"),
    (["suggest", MID, "--seconds", "inf"], "--seconds"),
    (["suggest", MID, "--seconds", "-1"], "--seconds"),
    (["suggest", MID, "--workers", 1000], "--workers"),
    (["suggest", MID, "--loop", "spiral"], "--loop"),
    (["suggest", GAME2, "--ply", 99999], "ply 99999"),
    (["suggest", MID, "--ply", 3], "--ply applies to game records"),
    (["suggest", MID, "--bot", "heuristic"], "--bot: bot spec 'heuristic': expected an ismcts: spec"),
    (["suggest", MID, "--bot", "pimc:worlds=3"], "expected an ismcts: spec"),
    (["suggest", MID, "--bot", "ismcts:rollout=smrt"], "--bot: bot spec 'ismcts:rollout=smrt': rollout expects"),
    (["suggest", MID, "--bot", "ismcts:tempo=0.5"], "knob of the smart rollout"),
])
def test_suggest_bad_input(args, fragment):
    r = run(*args)
    assert r.exit_code != 0
    assert fragment in r.output, r.output
    assert "Traceback" not in r.output


@pytest.mark.parametrize("workers", [1, 2])
def test_ctrl_c_stops_suggest_and_prints_what_it_has(workers, tmp_path):
    """A real process and a real SIGINT to its process group (what a terminal's Ctrl-C does)."""
    proc = subprocess.Popen([sys.executable, "-m", "kwsearch.cli", "suggest", MID, "--iterations", "2000000000",
                             "--workers", str(workers), "--json", "--top", "40"], cwd=tmp_path, env=subprocess_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        first = proc.stderr.readline().decode()  # "searching: ..." once the search starts
        assert first.startswith("searching:"), first
        time.sleep(1.0)
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err.decode()
    assert b"Traceback" not in err
    obj = json.loads(out)
    assert obj["interrupted"] is True
    n = obj["rootInfo"]["iterations"]
    assert 0 < n < 2_000_000_000
    assert sum(m["visits"] for m in obj["moveInfos"]) == n  # every option listed (--top 40)
    assert all(0 < m["availability"] <= 1 for m in obj["moveInfos"])


@pytest.mark.parametrize("path, players", [(MID, 4), (MID3, 3), (str(ROOT / "tests" / "data" / "scoring-2p.json"), 2)])
def test_a_hint_analyses_with_the_analysis_constant_and_a_bot_plays_with_its_own(path, players):
    """``suggest`` (and every hint and review: kwsearch.analysis.analyse) searches with the analysis
    defaults, the exploration constant 0.4 with three or four players; the bot ``ismcts`` plays with
    the play defaults (0.25), and a spec that names the constant is searched with it."""
    from kwsearch.bots import from_spec
    from kwsearch.records import load_file
    from kwsearch.search import ANALYSIS_C_UCT, DEFAULT_C_UCT
    hint = json.loads(run("suggest", path, "--json", "--iterations", 300).stdout)
    assert hint["rootInfo"]["config"]["c_uct"] == ANALYSIS_C_UCT[players]
    named = json.loads(run("suggest", path, "--json", "--bot", "ismcts:iterations=300,c=0.25").stdout)
    assert named["rootInfo"]["config"]["c_uct"] == 0.25
    header = logical(run("suggest", path, "--iterations", 300).stdout)[1]  # the text names the constant
    assert f"open loop, c {ANALYSIS_C_UCT[players]:g}, smart playouts" in header
    state, _ = load_file(path)
    bot = from_spec("ismcts:iterations=300", seed=0)
    bot.step(state)
    assert bot.last.config.c_uct == DEFAULT_C_UCT[players]
    assert (DEFAULT_C_UCT[players] != ANALYSIS_C_UCT[players]) == (players > 2)
