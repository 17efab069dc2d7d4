"""``kwsearch tune`` with worker processes (issue 27): Ctrl-C is one line and no traceback, the workers
end with the main process (Ctrl-C or ``kill -9``), the log keeps whole lines, and running the same
command again resumes. With one worker (games in the main process) Ctrl-C ends ``tune`` and ``tournament``
at once, not only the search under way. (The tournament's workers: test_tournament_faults.py.)"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import ctrl_c, pool_workers as _children, proc_alive as _alive, start_cli, subprocess_env
from kwsearch.tune import load_log

pytestmark = [pytest.mark.one_engine,
              pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")]


def _tune(log: Path, games: int) -> list[str]:
    return ["tune", "-p", "c=0.3,0.5", "--log", str(log), "--games", str(games), "-i", "400", "--workers", "2"]


def _start_with_workers(tmp_path: Path) -> tuple[subprocess.Popen, set[int]]:
    proc = start_cli(_tune(tmp_path / "tune.jsonl", 400), tmp_path)
    workers: set[int] = set()
    deadline = time.time() + 60
    while time.time() < deadline and len(workers) < 2:
        workers = _children(proc.pid)
        time.sleep(0.05)
    assert len(workers) >= 2, "the workers did not start"
    time.sleep(1.5)  # some games logged, others being played
    return proc, workers


def _gone(workers: set[int]) -> None:
    deadline = time.time() + 10
    while time.time() < deadline and any(_alive(w) for w in workers):
        time.sleep(0.05)
    left = [w for w in workers if _alive(w)]
    for w in left:
        os.kill(w, signal.SIGKILL)
    assert not left, "workers outlived the main process"


def test_ctrl_c_of_tune_with_workers(tmp_path):
    proc, workers = _start_with_workers(tmp_path)
    try:
        text, _ = ctrl_c(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 1 and "Traceback" not in text, text
    assert text.strip().splitlines()[-1].startswith("Error: ") and "interrupted" in text.strip().splitlines()[-1]
    assert [x for x in text.splitlines() if x.startswith("Error")] == [text.strip().splitlines()[-1]]
    _gone(workers)
    log = tmp_path / "tune.jsonl"
    assert log.read_bytes().endswith(b"\n")
    logged = len(load_log(log)[1])
    r = subprocess.run([sys.executable, "-m", "kwsearch.cli", *_tune(log, logged + 4)], cwd=tmp_path,
                       env=subprocess_env(), capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert len(load_log(log)[1]) >= logged + 4


def test_kill_9_of_tune_ends_its_workers(tmp_path):
    proc, workers = _start_with_workers(tmp_path)
    try:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        _gone(workers)
    finally:
        if proc.poll() is None:
            proc.kill()


@pytest.mark.parametrize("command", ["tournament", "tune"])
def test_ctrl_c_ends_games_played_in_the_main_process(tmp_path, command):
    """One worker: the games run in the main process, where a search takes a plain Ctrl-C as "move
    now". The command must end instead — at once, one line — and log no game whose search was cut."""
    out = tmp_path / "out.jsonl"
    args = (["tournament", "-b", "ismcts:seconds=30", "-b", "heuristic", "--games", "2", "--out", str(out)]
            if command == "tournament" else
            ["tune", "-p", "c=0.3,0.5", "--log", str(out), "--games", "2", "-s", "30"])
    proc = start_cli(args, tmp_path)
    try:
        deadline = time.time() + 60
        while time.time() < deadline and not (out.exists() and out.read_bytes().endswith(b"\n")):
            time.sleep(0.05)  # the header is written: the first game's searches run
        time.sleep(1.0)
        text, took = ctrl_c(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 1 and "Traceback" not in text, text
    assert took < 5, f"{command} took {took:.1f} s to end after Ctrl-C"
    last = text.strip().splitlines()[-1]
    assert last.startswith(f"Error: {out}: interrupted"), text
    assert len(out.read_bytes().splitlines()) == 1  # the header only: no game with a cut search
