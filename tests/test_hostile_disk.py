"""A full disk (issue 12): never a traceback, never a 0-byte or partial file that blocks the next run,
never a user's file lost; temporary files have unique names.

Two ways to fill the disk: a patched writer that raises ``ENOSPC`` (everywhere),
and a real 64 KiB tmpfs (where this process may mount one; skipped otherwise).
"""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest

import kwsearch.fileio as fileio
from kwsearch.errors import KwsearchError
from kwsearch.records import replay
from helpers import assert_one_line_error as one_line_error, fill_disk, run_cli as run  # noqa: E402

pytestmark = pytest.mark.one_engine


@pytest.fixture
def full_disk(monkeypatch):
    """Every write through kwsearch.fileio fails with ENOSPC once the data is handed to the disk."""
    def no_space(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(fileio.os, "fsync", no_space)
    return monkeypatch


def test_new_on_a_full_disk_leaves_nothing_behind(tmp_path, full_disk):
    out = tmp_path / "g.json"
    one_line_error(run("new", "-o", out), f"{out}: cannot write the file (No space left on device)")
    assert list(tmp_path.iterdir()) == []  # neither the target nor a temporary file
    full_disk.undo()
    assert run("new", "-o", out).exit_code == 0  # nothing blocks the next run
    replay(json.loads(out.read_text()))


def test_a_failed_overwrite_keeps_the_old_file(tmp_path, full_disk):
    out = tmp_path / "g.json"
    out.write_text("the user's own content")
    one_line_error(run("new", "-o", out, "--force"), "No space left on device")
    assert out.read_text() == "the user's own content"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.json"]


def test_play_on_a_full_disk_does_not_block_the_next_game(tmp_path, full_disk):
    rec = tmp_path / "g.json"
    one_line_error(run("play", "--seats", "human,human", "--record", rec, input="quit\n"),
                   "cannot write the game record (No space left on device)")
    assert list(tmp_path.iterdir()) == []
    full_disk.undo()
    assert run("play", "--seats", "human,human", "--record", rec, input="quit\n").exit_code == 0


def test_play_loses_nothing_saved_when_the_disk_fills_mid_game(tmp_path, monkeypatch):
    rec = tmp_path / "g.json"
    assert run("play", "--seats", "human,human", "--seed", "2", "--record", rec, input="1\n1\nquit\n").exit_code == 0
    saved = rec.read_text()
    monkeypatch.setattr(fileio.os, "fsync", lambda fd: (_ for _ in ()).throw(OSError(errno.ENOSPC, "No space")))
    one_line_error(run("play", "--resume", rec, input="1\nquit\n"), "cannot write the game record")
    assert rec.read_text() == saved  # the last good record
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.json"]
    monkeypatch.undo()
    assert run("play", "--resume", rec, input="quit\n").exit_code == 0


def test_a_users_tmp_file_is_never_touched(tmp_path):
    out = tmp_path / "x.json"
    mine = tmp_path / "x.json.tmp"
    mine.write_text("mine")
    assert run("new", "-o", out).exit_code == 0
    assert mine.read_text() == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.json", "x.json.tmp"]


def test_an_atomic_write_keeps_the_permissions(tmp_path):
    """A replaced file keeps its mode; a new one gets the umask's (not mkstemp's private 0600,
    which made shipped weights files unreadable to other users)."""
    old = tmp_path / "old.json"
    old.write_text("{}")
    os.chmod(old, 0o640)
    fileio.write_json_atomic(old, {"a": 1})
    assert json.loads(old.read_text()) == {"a": 1} and (old.stat().st_mode & 0o777) == 0o640
    new = tmp_path / "new.json"
    fileio.write_json_atomic(new, [1])
    assert (new.stat().st_mode & 0o777) == 0o666 & ~fileio._UMASK  # the process umask read at import


def test_write_json_atomic_names_the_file_and_cleans_up(tmp_path, full_disk):
    with pytest.raises(KwsearchError, match=r"x.json: cannot write the game record \(No space left on device\)"):
        fileio.write_json_atomic(tmp_path / "x.json", {"a": 1}, what="game record")
    assert list(tmp_path.iterdir()) == []


def test_a_real_full_disk(tiny_tmpfs):
    filler = fill_disk(tiny_tmpfs)
    out = tiny_tmpfs / "g.json"
    one_line_error(run("new", "-o", out), f"{out}: cannot write the file", "No space left on device")
    assert sorted(p.name for p in tiny_tmpfs.iterdir()) == ["filler"]
    rec = tiny_tmpfs / "p.json"
    one_line_error(run("play", "--seats", "human,human", "--record", rec, input="quit\n"), "No space left")
    assert sorted(p.name for p in tiny_tmpfs.iterdir()) == ["filler"]
    filler.unlink()
    assert run("new", "-o", out).exit_code == 0
    assert run("play", "--seats", "human,human", "--record", rec, input="quit\n").exit_code == 0
    replay(json.loads(rec.read_text()))
