"""A full disk under the files that grow line by line (issue 27): the tournament results and the
tuning log (and, for the record, the atomic writers' other errors). One line on stderr, no traceback, a file of whole lines only, and ``--resume`` (or the
same ``tune`` command) goes on from the last whole line.

The disk "fills" through a patched ``os.write`` that lets the file grow to a limit — a write that
crosses it is cut short, as the kernel does, and the next one fails — or through a patched
``os.fsync`` that fails (``EIO``, ``EDQUOT``: what a network file system reports late). A real
64 KiB tmpfs is used too where this process may mount one.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import kwsearch.fileio as fileio
from helpers import fill_disk, run_cli as run, subprocess_env
from kwsearch.tournament import load_results
from kwsearch.tune import load_log

pytestmark = pytest.mark.one_engine

BOTS = ("-b", "heuristic", "-b", "random")


def _same_file(fd: int, path: Path) -> bool:
    try:
        a, b = os.fstat(fd), os.stat(path)
    except OSError:
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def disk_fills_at(monkeypatch, path: Path, limit: int, err: int = errno.ENOSPC) -> None:
    """``path`` may grow to ``limit`` bytes: a write crossing it is cut short there, the next fails with ``err``."""
    real = os.write

    def write(fd, data):
        if not _same_file(fd, path):
            return real(fd, data)
        room = limit - os.lseek(fd, 0, os.SEEK_CUR)
        if room <= 0:
            raise OSError(err, os.strerror(err))
        return real(fd, bytes(data)[:room])
    monkeypatch.setattr(os, "write", write)


def fsync_fails(monkeypatch, path: Path, after: int = 0, err: int = errno.EIO) -> None:
    """``fsync`` of ``path`` succeeds ``after`` times, then fails with ``err``."""
    real, calls = os.fsync, [0]

    def fsync(fd):
        if _same_file(fd, path):
            calls[0] += 1
            if calls[0] > after:
                raise OSError(err, os.strerror(err))
        return real(fd)
    monkeypatch.setattr(os, "fsync", fsync)


def one_error_line(r, *fragments: str) -> str:
    """A failed command: exit code != 0, no traceback, and exactly one error line on stderr (after the
    command's own progress lines), holding the fragments."""
    assert r.exit_code != 0, r.output
    assert "Traceback" not in r.output and "Traceback" not in r.stderr, r.stderr
    errors = [line for line in r.stderr.splitlines() if line.startswith("Error")]
    assert len(errors) == 1 and r.stderr.strip().splitlines()[-1] == errors[0], r.stderr
    for f in fragments:
        assert f in errors[0], (f, errors[0])
    return errors[0]


def whole_lines(path: Path) -> list[bytes]:
    data = path.read_bytes()
    assert data.endswith(b"\n"), data[-80:]
    lines = data.split(b"\n")[:-1]
    for line in lines:
        json.loads(line)
    return lines


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> list[bytes]:
    """The lines of an undisturbed 6-game tournament (their lengths place the disk's limit)."""
    out = tmp_path_factory.mktemp("ref") / "t.jsonl"
    assert run("tournament", *BOTS, "--games", 6, "--out", out).exit_code == 0
    return out.read_bytes().split(b"\n")[:-1]


def _games(path: Path) -> list[int]:
    return sorted(load_results(path, allow_cut_tail=False)[1])


def _resume_finishes(path: Path) -> None:
    r = run("tournament", "--out", path, "--resume")
    assert r.exit_code == 0, r.output
    assert _games(path) == list(range(6))


# -- the tournament ------------------------------------------------------------------------------------


def test_a_full_disk_at_the_header_leaves_no_file(tmp_path, monkeypatch):
    out = tmp_path / "t.jsonl"
    disk_fills_at(monkeypatch, out, 50)
    one_error_line(run("tournament", *BOTS, "--games", 6, "--out", out),
                   f"{out}: cannot write (No space left on device)")
    assert list(tmp_path.iterdir()) == []  # an empty file would only block the next run
    monkeypatch.undo()
    assert run("tournament", *BOTS, "--games", 6, "--out", out).exit_code == 0


@pytest.mark.parametrize("err", [errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO])
@pytest.mark.parametrize("lines, extra", [(1, 0), (1, 100), (3, 500), (6, 60)])
def test_a_full_disk_mid_tournament_keeps_whole_lines(tmp_path, monkeypatch, reference, err, lines, extra):
    """The disk fills after ``lines`` whole lines and ``extra`` bytes of the next (the first game, a game in
    the middle, the last game): the cut line is taken back, the run stops with one line, resume finishes.
    (A game line's ``seconds`` may be a few characters longer than the reference's: ``extra`` is 0 only
    after the header.)"""
    out = tmp_path / "t.jsonl"
    limit = sum(len(x) + 1 for x in reference[:lines]) + extra
    disk_fills_at(monkeypatch, out, limit, err)
    one_error_line(run("tournament", *BOTS, "--games", 6, "--out", out),
                   f"{out}: cannot write game {lines - 1} ({os.strerror(err)})", "--resume")
    assert len(whole_lines(out)) == lines
    assert _games(out) == list(range(lines - 1))
    monkeypatch.undo()
    _resume_finishes(out)


@pytest.mark.parametrize("err", [errno.EIO, errno.EDQUOT, errno.ENOSPC])
def test_a_failed_fsync_takes_the_game_back(tmp_path, monkeypatch, err):
    out = tmp_path / "t.jsonl"
    fsync_fails(monkeypatch, out, after=3, err=err)  # the header and two games are on disk
    one_error_line(run("tournament", *BOTS, "--games", 6, "--out", out),
                   f"cannot write game 2 ({os.strerror(err)})")
    assert _games(out) == [0, 1] and len(whole_lines(out)) == 3
    monkeypatch.undo()
    _resume_finishes(out)


def test_a_full_disk_on_resume(tmp_path, monkeypatch, reference):
    out = tmp_path / "t.jsonl"
    out.write_bytes(b"\n".join(reference[:3]) + b"\n" + reference[3][:40])  # a run killed mid-line
    disk_fills_at(monkeypatch, out, sum(len(x) + 1 for x in reference[:4]) + 60)
    one_error_line(run("tournament", "--out", out, "--resume"), "cannot write game 3", "No space left")
    assert _games(out) == [0, 1, 2]
    monkeypatch.undo()
    _resume_finishes(out)


def test_a_full_disk_with_workers(tmp_path, monkeypatch, reference):
    """Games played in worker processes, written by the main process: the same one line, no worker
    left running, whole lines."""
    out = tmp_path / "t.jsonl"
    disk_fills_at(monkeypatch, out, sum(len(x) + 1 for x in reference[:3]) + 300)
    one_error_line(run("tournament", *BOTS, "--games", 6, "--workers", 2, "--out", out), "No space left")
    assert whole_lines(out)
    monkeypatch.undo()
    _resume_finishes(out)


def test_ctrl_c_inside_a_write_takes_the_line_back(tmp_path):
    f = tmp_path / "log"
    f.write_bytes(b"one\n")
    fd = os.open(f, os.O_RDWR)
    real = os.write
    try:
        def write(fd_, data):
            real(fd_, bytes(data)[:3])
            raise KeyboardInterrupt
        os.write = write
        with pytest.raises(KeyboardInterrupt):
            fileio.append_whole(fd, b"two three\n", sync=True)
    finally:
        os.write = real
        os.close(fd)
    assert f.read_bytes() == b"one\n"


def test_append_whole_writes_what_a_short_write_left(tmp_path, monkeypatch):
    f = tmp_path / "log"
    f.write_bytes(b"one\n")
    real = os.write
    monkeypatch.setattr(os, "write", lambda fd, data: real(fd, bytes(data)[:2]))  # a slow pipe-like file
    fd = os.open(f, os.O_RDWR)
    try:
        fileio.append_whole(fd, b"two three\n")
    finally:
        os.close(fd)
    assert f.read_bytes() == b"one\ntwo three\n"


# -- the atomic writers (game records, review caches, weights) -------------------------------------------


@pytest.mark.parametrize("err", [errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO])
@pytest.mark.parametrize("where", ["fsync", "replace"])
def test_an_atomic_write_that_fails_keeps_the_old_file_and_no_temporary(tmp_path, monkeypatch, err, where):
    from kwsearch.errors import KwsearchError
    out = tmp_path / "g.json"
    out.write_text('{"old": true}\n')

    def fail(*args):
        raise OSError(err, os.strerror(err))
    monkeypatch.setattr(fileio.os, where, fail)
    with pytest.raises(KwsearchError, match=f"g.json: cannot write the game record \\({os.strerror(err)}\\)"):
        fileio.write_json_atomic(out, {"new": True}, what="game record")
    assert out.read_text() == '{"old": true}\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.json"]


# -- the tuning log ------------------------------------------------------------------------------------


TUNE = ("tune", "-p", "c=0.3,0.5", "--games", 6, "-i", 5)


@pytest.mark.parametrize("how", ["write", "fsync"])
def test_a_full_disk_under_tune_keeps_whole_lines(tmp_path, monkeypatch, how):
    log = tmp_path / "tune.jsonl"
    assert run(*TUNE, "--log", tmp_path / "ref.jsonl").exit_code == 0
    ref = (tmp_path / "ref.jsonl").read_bytes().split(b"\n")[:-1]
    if how == "write":
        disk_fills_at(monkeypatch, log, sum(len(x) + 1 for x in ref[:3]) + 20)
    else:
        fsync_fails(monkeypatch, log, after=3, err=errno.EDQUOT)
    err = one_error_line(run(*TUNE, "--log", log), f"{log}: cannot write")
    assert ("No space left" if how == "write" else os.strerror(errno.EDQUOT)) in err
    assert len(whole_lines(log)) == 3 and len(load_log(log)[1]) == 2
    monkeypatch.undo()
    r = run(*TUNE, "--log", log)
    assert r.exit_code == 0, r.output
    assert whole_lines(log)[1:] == ref[1:] or len(load_log(log)[1]) == 6  # cpu seconds may differ


def test_a_full_disk_at_the_tune_header(tmp_path, monkeypatch):
    log = tmp_path / "tune.jsonl"
    disk_fills_at(monkeypatch, log, 10)
    one_error_line(run(*TUNE, "--log", log), "No space left")
    assert log.read_bytes() == b""  # an empty log starts afresh
    monkeypatch.undo()
    assert run(*TUNE, "--log", log).exit_code == 0
    assert len(load_log(log)[1]) == 6


# -- a real full disk ------------------------------------------------------------------------------------


def test_a_real_full_disk_under_a_tournament(tiny_tmpfs):
    """The command as a user runs it, on a file system that fills after a few games."""
    filler = fill_disk(tiny_tmpfs, block=4096)
    os.truncate(filler, os.path.getsize(filler) - 9000)  # room for the header and a few games
    out = tiny_tmpfs / "t.jsonl"
    # -P: not the checkout in the working folder (in CI it has no compiled engine) but the kwsearch under test
    cmd = [sys.executable, "-P", "-m", "kwsearch.cli", "tournament", *BOTS, "--games", "12", "--out", str(out)]
    proc = subprocess.run(cmd, env=subprocess_env(), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith(f"Error: {out}: cannot write game "), proc.stderr
    assert [x for x in proc.stderr.splitlines() if x.startswith("Error")] == [proc.stderr.strip().splitlines()[-1]]
    assert whole_lines(out)
    filler.unlink()
    proc = subprocess.run(cmd + ["--resume"], env=subprocess_env(), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert _games(out) == list(range(12))
