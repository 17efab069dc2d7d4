"""Tournaments: self-play, resume settings, the Elo interval over deal sets, the lock on the results file,
workers that end with the main process, the strict results reader, ``show --game``."""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from helpers import ctrl_c, pool_workers, proc_alive as _alive, proc_children as _children, start_cli, subprocess_env
from kwsearch.cli import main
from kwsearch.tournament import (TournamentError, TournamentSpec, deal_scores, load_results, make_report,
                                 report_json, report_text, run_tournament)

pytestmark = pytest.mark.one_engine


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def one_line_error(r, *fragments):
    assert r.exit_code != 0
    msg = r.output.strip().splitlines()
    assert len(msg) >= 1 and msg[-1].startswith("Error: "), r.output
    for f in fragments:
        assert f in msg[-1], msg[-1]
    assert "Traceback" not in r.output


# -- self-play and names ---------------------------------------------------------------


def test_self_play_gives_the_copies_distinct_names(tmp_path):
    out = tmp_path / "self.jsonl"
    r = run("tournament", "-b", "heuristic", "-b", "heuristic", "--games", 4, "--out", out)
    assert r.exit_code == 0, r.output
    header, games, _ = load_results(out)
    assert header["bots"] == ["heuristic", "heuristic"]
    assert [g["seats"] for g in games.values()] == [["heuristic#1", "heuristic#2"], ["heuristic#2", "heuristic#1"]] * 2
    assert "heuristic#1" in r.stdout and "heuristic#2" in r.stdout
    rep = make_report(header, games)
    assert [b.name for b in rep.bots] == ["heuristic#1", "heuristic#2"] and rep.elo is not None
    # A deal set: the same deal with the seats swapped.
    assert games[0]["deck_seed"] == games[1]["deck_seed"] != games[2]["deck_seed"]


def test_bot_specs_are_canonical_and_checked_before_any_game(tmp_path):
    spec = TournamentSpec(bots=(" ISMCTS: iterations=0300", "heuristic"), players=2, games=2)
    assert spec.bots == ("ismcts:iterations=300", "heuristic")
    for bad, fragment in [("ismcts:seconds=inf", "seconds"), ("ismcts:c=nan", "c expects"),
                          ("ismcts:iterations=99999999999999999999", "iterations"),
                          ("ismcts:c=1,c=2", "given twice")]:
        r = run("tournament", "-b", "heuristic", "-b", bad, "--out", tmp_path / "x.jsonl")
        one_line_error(r, "--bots", fragment)
    assert not (tmp_path / "x.jsonl").exists()
    one_line_error(run("tournament", "-b", "random", "-b", "heuristic", "--sprt", "elo0=0,elo1=nan", "--out",
                       tmp_path / "x.jsonl"), "--sprt", "elo1")
    one_line_error(run("tournament", "-b", "random", "-b", "heuristic", "--sprt", "elo0=0,elo1=inf", "--out",
                       tmp_path / "x.jsonl"), "--sprt")
    r = run("tournament", "-b", "random", "-b", "heuristic", "--workers", 100000, "--out", tmp_path / "x.jsonl")
    assert r.exit_code == 2 and "--workers" in r.output


# -- resume keeps the workers ----------------------------------------------------------------


def test_resume_keeps_the_workers_unless_given_again(tmp_path):
    out = tmp_path / "w.jsonl"
    r = run("tournament", "-b", "random", "-b", "heuristic", "--games", 2, "--workers", 2, "--out", out)
    assert r.exit_code == 0, r.output
    assert load_results(out)[0]["workers"] == 2
    r = run("tournament", "--out", out, "--resume", "--games", 4)
    assert r.exit_code == 0, r.output
    assert "2 workers" in r.stderr and "played 2 games in" in r.stdout and "with 2 workers" in r.stdout
    r = run("tournament", "--out", out, "--resume", "--games", 6, "--workers", 1)
    assert r.exit_code == 0 and "with 1 worker" in r.stdout
    spec = TournamentSpec(bots=("random", "heuristic"), players=2, games=8)
    info = run_tournament(spec, out, resume=True)
    assert info.workers == 2 and info.played == 2


# -- Elo over deal sets ------------------------------------------------------------------------


def _synthetic(tmp_path, set_scores: list[float]) -> Path:
    """A 2-player results file whose deal sets score ``set_scores`` for the first bot (1 or 0.5)."""
    spec = TournamentSpec(bots=("random", "heuristic"), players=2, games=2 * len(set_scores), seed=1)
    lines = [json.dumps(spec.header())]
    for k, s in enumerate(set_scores):
        for j in range(2):
            i = 2 * k + j
            seats = spec.seat_bots(i)
            first_wins = s == 1 or j == 0
            winner = seats.index(0) if first_wins else seats.index(1)
            money = [30 if seat == winner else 20 for seat in range(2)]
            lines.append(json.dumps({"game": i, "seats": [spec.names[b] for b in seats], "bots": seats,
                                     "money": money, "ranks": [1.0 if m == 30 else 2.0 for m in money],
                                     "returns": [1.0 if m == 30 else 0.0 for m in money]}))
    path = tmp_path / "synthetic.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_elo_line_on_a_known_result(tmp_path):
    # 12 deal sets: 4 won twice, 8 split. Mean score 2/3 -> +120 Elo (400 log10 2).
    path = _synthetic(tmp_path, [1, .5, .5, 1, .5, .5, 1, .5, .5, .5, 1, .5])
    header, games, _ = load_results(path)
    spec = TournamentSpec(bots=("random", "heuristic"), players=2, games=24, seed=1)
    assert deal_scores(spec, games) == [1, .5, .5, 1, .5, .5, 1, .5, .5, .5, 1, .5]
    rep = make_report(header, games)
    e = rep.elo
    assert round(e["elo"], 1) == 120.4 and e["deal_sets"] == 12 and e["score"] == pytest.approx(2 / 3)
    # sd of the set scores 0.2462, standard error 0.0711: scores 0.527 .. 0.806 -> +19 .. +247 Elo
    assert [round(x) for x in e["ci95"]] == [19, 247]
    # Counted per game (16 wins, 8 losses, as if independent) the interval is wider: -18 .. +314.
    assert [round(x) for x in e["per_game"]["ci95"]] == [-18, 314]
    text = report_text(rep)
    assert ("Elo difference random − heuristic: +120 (95% CI +19 to +247) over 12 deal sets of 2 games; counted "
            "per game: -18 to +314") in text
    assert report_json(rep)["elo"]["ci95"] == e["ci95"]
    r = run("report", path)
    assert r.exit_code == 0 and "+120 (95% CI +19 to +247)" in r.stdout


def test_sprt_counts_complete_deal_sets_only(tmp_path):
    path = _synthetic(tmp_path, [1, 1, 1])
    header, games, _ = load_results(path)
    del games[5]  # the third deal set is incomplete
    spec = TournamentSpec(bots=("random", "heuristic"), players=2, games=6, seed=1)
    assert deal_scores(spec, games) == [1, 1]


# -- the lock ------------------------------------------------------------------------------------


def test_a_locked_results_file_is_refused(tmp_path):
    out = tmp_path / "t.jsonl"
    assert run("tournament", "-b", "random", "-b", "heuristic", "--games", 2, "--out", out).exit_code == 0
    before = out.read_bytes()
    with out.open("rb") as held:  # as a running tournament holds it
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        r = run("tournament", "--out", out, "--resume", "--games", 4)
        one_line_error(r, str(out), "another tournament is writing this file")
        assert out.read_bytes() == before
        spec = TournamentSpec(bots=("random", "heuristic"), players=2, games=4)
        with pytest.raises(TournamentError, match="locked"):
            run_tournament(spec, out, resume=True)
    r = run("tournament", "--out", out, "--resume", "--games", 4)  # released: it goes on
    assert r.exit_code == 0 and len(load_results(out)[1]) == 4


def test_a_second_run_on_a_running_tournament_gets_a_clear_error(tmp_path):
    out = tmp_path / "t.jsonl"
    args = [sys.executable, "-m", "kwsearch.cli", "tournament", "-b", "heuristic", "-b", "ismcts:iterations=2000",
            "--games", "40", "--out", str(out)]
    proc = subprocess.Popen(args, cwd=tmp_path, env=subprocess_env(), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 60
        while time.time() < deadline and not (out.exists() and out.read_bytes().count(b"\n") >= 1):
            time.sleep(0.05)
        second = subprocess.run([sys.executable, "-m", "kwsearch.cli", "tournament", "--out", str(out), "--resume"],
                                cwd=tmp_path, env=subprocess_env(), capture_output=True, text=True, timeout=120)
        assert second.returncode != 0 and "Traceback" not in second.stderr
        assert "another tournament is writing this file" in second.stderr.strip().splitlines()[-1]
    finally:
        proc.kill()
        proc.wait()
    header, games, _ = load_results(out)  # still one clean file
    assert all(g["game"] == i for i, g in sorted(games.items()))


# -- killing the main process ends its workers --------------------------------------------------


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_kill_9_of_the_main_process_ends_the_workers(tmp_path):
    out = tmp_path / "t.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "kwsearch.cli", "tournament", "-b", "heuristic", "-b",
                             "ismcts:iterations=5000", "--games", "40", "--workers", "2", "--out", str(out)],
                            cwd=tmp_path, env=subprocess_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers: set[int] = set()
    try:
        deadline = time.time() + 60
        while time.time() < deadline:
            # The pool's worker processes (the resource tracker, if any, is not a game worker).
            workers = pool_workers(proc.pid)
            if len(workers) >= 2:
                break
            time.sleep(0.05)
        assert len(workers) >= 2, "the workers did not start"
        time.sleep(0.5)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        deadline = time.time() + 10
        while time.time() < deadline and any(_alive(w) for w in workers):
            time.sleep(0.1)
        assert not [w for w in workers if _alive(w)], "workers outlived the killed main process"
    finally:
        for w in workers:
            if _alive(w):
                os.kill(w, signal.SIGKILL)
        if proc.poll() is None:
            proc.kill()


# -- the strict reader -------------------------------------------------------------------------


@pytest.fixture
def results(tmp_path) -> Path:
    out = tmp_path / "t.jsonl"
    assert run("tournament", "-b", "random", "-b", "heuristic", "--games", 2, "--out", out).exit_code == 0
    return out


def test_a_cut_last_line_is_dropped_by_every_reader(results):
    text = results.read_text()
    results.write_text(text + '{"game": 2, "deck_se')
    header, games, valid = load_results(results)
    assert len(games) == 2 and valid == len(text.encode())
    r = run("report", results)
    assert r.exit_code == 0 and "2 of 2 games" in r.stdout
    with pytest.raises(TournamentError, match="line 4: cut short"):
        load_results(results, allow_cut_tail=False)


@pytest.mark.parametrize("edit, fragment", [
    (lambda g: {**g, "mony": 3}, "line 2: unknown key 'mony'"),
    (lambda g: {**g, "money": [1]}, "line 2: money: expected 2 values"),
    (lambda g: {**g, "money": [1.5, 2]}, "line 2: money: expected 2 integers"),
    (lambda g: {**g, "returns": [True, 0]}, "line 2: returns: expected 2 numbers"),
    (lambda g: {**g, "game": -1}, "line 2: game: expected a game number"),
    (lambda g: {**g, "game": True}, "line 2: game: expected an integer"),
])
def test_bad_game_lines_are_errors_naming_the_line(results, edit, fragment):
    lines = results.read_text().splitlines()
    lines[1] = json.dumps(edit(json.loads(lines[1])))
    results.write_text("\n".join(lines) + "\n")
    one_line_error(run("report", results), str(results), fragment)


@pytest.mark.parametrize("raw, fragment", [
    ('{"game": 0, "game": 1}', 'line 2: not valid JSON: the key "game" appears twice'),
    ('{"game": NaN}', "line 2: not valid JSON: NaN is not a JSON number"),
    ("[" * 100_000, "line 2: not valid JSON: nested more than 32 levels deep"),
    ('{"game": 1' + "0" * 400 + "}", "line 2: not valid JSON: an integer of 401 digits"),
])
def test_malformed_lines(results, raw, fragment):
    lines = results.read_text().splitlines()
    lines[1] = raw
    results.write_text("\n".join(lines) + "\n")
    one_line_error(run("report", results), fragment)


def test_header_keys_are_checked_and_old_seeding_is_not_resumed(results):
    lines = results.read_text().splitlines()
    header = json.loads(lines[0])
    bad = dict(header, Round=1)
    results.write_text("\n".join([json.dumps(bad)] + lines[1:]) + "\n")
    one_line_error(run("report", results), "line 1: unknown key 'Round'")
    old = {k: v for k, v in header.items() if k not in ("seeds", "workers")}
    results.write_text("\n".join([json.dumps(old)] + lines[1:]) + "\n")
    assert run("report", results).exit_code == 0  # an older file still reports
    one_line_error(run("tournament", "--out", results, "--resume", "--games", 4), "line 1: seeds",
                   "start a new results file")


# -- show --game ---------------------------------------------------------------------------------


def test_show_a_tournament_game(results):
    _, games, _ = load_results(results)
    r = run("show", results, "--game", 1)
    assert r.exit_code == 0, r.output
    out = r.stdout
    g = games[1]
    assert out.splitlines()[0] == (f"{results}: game 1 (seat 0: {g['seats'][0]}, seat 1: {g['seats'][1]}); "
                                   f"money {g['money'][0]} {g['money'][1]}")
    moves = [ln for ln in out.splitlines() if ln[:5].strip().rstrip(".").isdigit()]
    assert len(moves) == g["decisions"]
    assert moves[0].strip().startswith("1. seat ")
    one_line_error(run("show", results, "--game", 7), "game 7: not in the file (2 games: games 0 to 1)")
    one_line_error(run("show", results, "--game", 0, "--ply", 3), "--ply")


def test_ctrl_c_of_a_tournament_with_workers_is_one_line_and_resumable(tmp_path):
    """SIGINT to the whole process group (a terminal's Ctrl-C): no traceback from any worker."""
    out = tmp_path / "t.jsonl"
    proc = start_cli(["tournament", "-b", "heuristic", "-b", "ismcts:iterations=3000", "--games", "40", "--workers",
                      "2", "--out", str(out)], tmp_path)
    try:
        deadline = time.time() + 60
        while time.time() < deadline and len(_children(proc.pid)) < 2:
            time.sleep(0.05)
        time.sleep(0.5)
        text, _ = ctrl_c(proc, timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 1 and "Traceback" not in text, text
    assert text.strip().splitlines()[-1].startswith(f"Error: {out}: interrupted; the finished games are saved")
    load_results(out)  # a clean file, ready for --resume
