"""The suite runs against both engines (msgpack's pure/compiled pattern).

Every test runs twice, with ``kwsearch.engine.set_default_engine("reference")``
and ``("fast")``, so ``Game.new_initial_state``, ``random_game`` and
``kwsearch.engine.state_from_json`` give states of that engine. A module whose
tests do not depend on the engine (formats, records, components, CLI, and the
long random-game checks whose fast twin is tests/test_fast_differential.py) sets
``pytestmark = pytest.mark.one_engine`` and runs once, on the reference.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess

import pytest

from kwsearch.engine import set_default_engine


def pytest_configure(config):
    config.addinivalue_line("markers", "one_engine: run on the reference engine only (not engine-dependent)")
    # A run started in the background of a non-interactive shell (`cmd &`, nohup, some CI runners)
    # inherits SIGINT ignored, and Python keeps it ignored, as do the subprocesses it starts: the
    # Ctrl-C tests would then interrupt nothing. A handler here (in every xdist worker too) makes
    # the tests see Ctrl-C, and children get the default back at exec.
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_generate_tests(metafunc):
    if "kw_engine" in metafunc.fixturenames:
        engines = ["reference"] if metafunc.definition.get_closest_marker("one_engine") else ["reference", "fast"]
        # indirect: the kw_engine fixture below runs with the value and sets the default engine
        # (a direct parametrization would replace the fixture and leave the default untouched)
        metafunc.parametrize("kw_engine", engines, scope="function", indirect=True)


@pytest.fixture(autouse=True)
def kw_engine(request):
    """The engine this test runs on; sets the process default for its duration."""
    name = getattr(request, "param", "reference")
    set_default_engine(name)
    yield name
    set_default_engine(None)


@pytest.fixture(autouse=True)
def kw_columns(monkeypatch):
    """Text output at its default width, 100 columns: pytest-xdist's workers get COLUMNS=80 from
    the environment, and kwsearch's text output follows COLUMNS (kwsearch.render.line_width);
    tests/test_terminal_width.py sets it itself."""
    monkeypatch.setenv("COLUMNS", "100")


@pytest.fixture
def tiny_tmpfs(tmp_path):
    """A real 64 KiB tmpfs at ``tmp_path / "disk"``; skipped where mounting is not permitted
    (the real-full-disk tests of test_hostile_disk.py and test_hostile_disk_append.py)."""
    mnt = tmp_path / "disk"
    mnt.mkdir()
    if not shutil.which("mount") or os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mnt)], capture_output=True)
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {proc.stderr.decode().strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", str(mnt)], capture_output=True)
