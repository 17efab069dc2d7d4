"""Ctrl-C in ``kwsearch play`` (issue 27): the first one ends the program at once — even while a
bot searches for 30 seconds, or at a prompt — with one line saying where the game is saved and how
to resume it, exit code 130 (128 + SIGINT), no traceback, and a record holding every finished
decision (the one in progress is dropped). ``suggest`` keeps its own Ctrl-C: stop and answer.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

import kwsearch.play as play_mod
from helpers import ctrl_c, proc_alive as _alive, proc_children as _children, run_cli as run, start_cli
from kwsearch.play import HUMAN, Interrupted, Session, new_game_record
from kwsearch.records import replay

pytestmark = pytest.mark.one_engine


def _events(path: Path) -> list[str] | None:
    try:
        return json.loads(path.read_text())["events"]
    except (OSError, ValueError, KeyError):
        return None  # not written yet


def _ctrl_c_while_a_bot_thinks(tmp_path: Path, seats: str, search_workers: int = 0):
    """Start ``play``; once the record holds a decision and seat 0's bot has searched a moment, send
    SIGINT to the process group (a terminal's Ctrl-C). Returns (proc, stderr, seconds to end,
    events before the Ctrl-C, the bot's search workers seen)."""
    rec = tmp_path / "g.json"
    proc = start_cli(["play", "--seats", seats, "--seed", "0", "--record", str(rec)], tmp_path, stdin=subprocess.DEVNULL)
    kids: set[int] = set()
    try:
        deadline = time.time() + 60
        while time.time() < deadline and not _events(rec):
            time.sleep(0.05)
        # the heuristic's decisions come first (a start tile, where its engine goes...); once the record
        # has stood still for a while, seat 0's bot is in its 30-second search
        before = _events(rec)
        while time.time() < deadline:
            time.sleep(1.5)
            now = _events(rec)
            if now == before:
                break
            before = now
        assert before, "no decision was recorded"
        while time.time() < deadline and len(kids) < search_workers:
            kids = _children(proc.pid)
            time.sleep(0.05)
        time.sleep(1.0)  # the bot of seat 0 is well into its 30-second search
        assert proc.poll() is None
        assert _events(rec) == before
        err, took = ctrl_c(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
    return proc, err, took, before, kids


def _check_the_end(proc, err: str, took: float, rec: Path, before: list[str]) -> None:
    assert "Traceback" not in err, err
    assert proc.returncode == 130, err
    assert took < 5, f"play took {took:.1f} s to end after Ctrl-C"
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "interrupted" in lines[0], err
    assert f"saved in {rec} " in lines[0] and lines[0].endswith(f"kwsearch play --resume {rec}"), lines[0]
    assert _events(rec) == before  # every finished decision, not the one the bot was searching
    assert run("show", rec).exit_code == 0
    replay(json.loads(rec.read_text()))
    assert [p.name for p in rec.parent.iterdir() if p.name.endswith(".tmp")] == []


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_ctrl_c_ends_play_while_a_bot_searches(tmp_path):
    # Seat 1 (the heuristic) decides first; then seat 0 searches for 30 seconds.
    proc, err, took, before, _ = _ctrl_c_while_a_bot_thinks(tmp_path, "ismcts:seconds=30,heuristic")
    rec = tmp_path / "g.json"
    _check_the_end(proc, err, took, rec, before)
    # and the game goes on from there
    r = run("play", "--resume", rec, "--seats", "heuristic,heuristic")
    assert r.exit_code == 0, r.output
    events = _events(rec)
    assert events[:len(before)] == before and len(events) > len(before)
    assert "Game over" in r.output


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_ctrl_c_ends_play_and_the_bots_search_workers(tmp_path):
    proc, err, took, before, kids = _ctrl_c_while_a_bot_thinks(tmp_path, "ismcts:seconds=30,workers=2,heuristic",
                                                             search_workers=2)
    _check_the_end(proc, err, took, tmp_path / "g.json", before)
    assert len(kids) >= 2, "the search workers did not start"
    deadline = time.time() + 5
    while time.time() < deadline and any(_alive(k) for k in kids):
        time.sleep(0.05)
    assert not [k for k in kids if _alive(k)], "search workers outlived play"


def test_ctrl_c_at_a_prompt_ends_play(tmp_path):
    """A human's prompt (stdin a pipe that stays open): the same clean end."""
    rec = tmp_path / "g.json"
    proc = start_cli(["play", "--seats", "human,heuristic", "--seed", "0", "--record", str(rec)], tmp_path, stdin=subprocess.PIPE)
    try:
        out = b""
        deadline = time.time() + 60
        while time.time() < deadline and not out.endswith(b"> "):
            out += os.read(proc.stdout.fileno(), 4096)  # the prompt of seat 0 (seat 1 moved first)
        before = _events(rec)
        err, took = ctrl_c(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
    _check_the_end(proc, err, took, rec, before)
    assert before  # the heuristic's first decisions


# -- the library: an interrupt never cuts a save, and nothing is saved after one -----------------------------


def _session(tmp_path: Path) -> Session:
    record = new_game_record(2, 5, [HUMAN, HUMAN])
    return Session(record, [HUMAN, HUMAN], tmp_path / "g.json", ask=lambda p: "", say=lambda t: None)


def test_an_interrupt_while_saving_waits_for_the_record(tmp_path, monkeypatch):
    session = _session(tmp_path)
    real = play_mod.write_record

    def write_then_ctrl_c(path, record):
        session.interrupt()  # Ctrl-C arrives while the record is written
        real(path, record)
    monkeypatch.setattr(play_mod, "write_record", write_then_ctrl_c)
    action = session.state.legal_actions()[0]
    with pytest.raises(Interrupted):
        session._apply(action)
    assert len(_events(tmp_path / "g.json")) == 1  # the decision finished, and it is saved
    monkeypatch.undo()
    session.save()  # nothing left pending
    with pytest.raises(Interrupted):
        session.interrupt()  # outside a save: at once


def test_the_ctrl_c_handler_is_put_back(tmp_path):
    before = signal.getsignal(signal.SIGINT)
    session = _session(tmp_path)
    with pytest.raises(Interrupted):
        with session.ctrl_c_ends_game():
            assert signal.getsignal(signal.SIGINT) is not before
            signal.raise_signal(signal.SIGINT)
            time.sleep(1)  # the handler runs before this ends
    assert signal.getsignal(signal.SIGINT) is before
    r = run("play", "--seats", "human,human", "--record", tmp_path / "h.json", input="quit\n")
    assert r.exit_code == 0 and signal.getsignal(signal.SIGINT) is before
