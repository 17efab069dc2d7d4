"""Hostile input to ``kwsearch review`` and ``kwsearch serve --review``, and its worker processes.

A review cache and a review file go through one strict reader and checker
(:func:`kwsearch.jsonload.load_json_file`, :func:`kwsearch.review.check_cache`,
:func:`kwsearch.review.check_review`): a bad one is a one-line error naming the
file, the field and what was expected, a non-zero exit code, and the file left
exactly as it was. ``--workers`` is bounded; the workers end with the review
(Ctrl-C: one line, the cache kept and named; kill -9: the workers go too).
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from helpers import ctrl_c, proc_alive as _alive, proc_children, start_cli, subprocess_env
from kwsearch.cli import main
from kwsearch.review import (CACHE_FORMAT, ReviewError, cache_key, check_cache, check_review, game_decisions,
                             review_config, review_game)
from kwsearch.search import SearchConfig, SearchLimits
from kwsearch.worker_procs import max_workers

pytestmark = pytest.mark.one_engine

ROOT = Path(__file__).resolve().parent.parent
GAME = ROOT / "examples" / "game-2p.json"
REVIEW = ROOT / "examples" / "game-2p.review.json"
MID = ROOT / "examples" / "midgame-4p.json"
ITERATIONS = 20
LINUX_PROC = Path("/proc/self/task").exists()


def _run(*args, **kw):
    return CliRunner().invoke(main, [str(a) for a in args], **kw)


def _one_line_error(r, fragment: str) -> str:
    err = (r.stderr if hasattr(r, "stderr") else r.output).strip()
    assert r.exit_code not in (0, None), r.output
    assert "Traceback" not in r.output and "Traceback" not in err, err
    assert len(err.splitlines()) == 1, err
    assert fragment in err, err
    return err


@pytest.fixture(scope="module")
def cached(tmp_path_factory):
    """A game and a valid cache of seat 0's decisions (``review -i 20 --seat 0``): (folder, cache object)."""
    d = tmp_path_factory.mktemp("cache")
    shutil.copy(GAME, d / "g.json")
    r = _run("review", d / "g.json", "-i", ITERATIONS, "--seat", 0, "--cache", d / "c.json", "--json")
    assert r.exit_code == 0, r.output
    return d, json.loads((d / "c.json").read_text())


def _review_with_cache(folder: Path, obj=None, text: str | None = None, name: str = "bad-cache.json"):
    """Write ``obj`` (or ``text``) as a cache, review with it; the result and the file's bytes before."""
    path = folder / name
    path.write_text(text if text is not None else json.dumps(obj))
    before = path.read_bytes()
    r = _run("review", folder / "g.json", "-i", ITERATIONS, "--seat", 0, "--cache", path)
    return r, path, before


def _first(obj) -> str:
    return next(iter(obj["decisions"]))


def _set(field, value):
    def change(c):
        c["decisions"][_first(c)][field] = value
    return change


def _second_filed_as(c):
    """The first decision filed a second time, under the next ply's key (a duplicated ply)."""
    k0, k1 = list(c["decisions"])[:2]
    c["decisions"][k1] = copy.deepcopy(c["decisions"][k0])


def _reversed(c):
    c["decisions"] = dict(reversed(list(c["decisions"].items())))


def _leading_zero(c):
    k = _first(c)
    c["decisions"] = {("0" + k if key == k else key): v for key, v in c["decisions"].items()}


def _far_ply(c):
    d = copy.deepcopy(c["decisions"][_first(c)])
    d["ply"] = 999
    c["decisions"]["999"] = d


CACHE_CASES = [
    ("win 5", _set("played_win", 5.0), "played_win: expected a win probability from 0 to 1, got 5.0"),
    ("loss -3", _set("loss", -3), "loss: expected a win probability from 0 to 1, got -3"),
    ("loss 2", _set("loss", 2), "loss: expected a win probability from 0 to 1, got 2"),
    ("loss made up", _set("loss", 0.5), "loss: expected best_win - played_win"),
    ("win_all", _set("win_all", [1.5, -0.5]), "win_all[0]: expected a win probability from 0 to 1, got 1.5"),
    ("win_all count", _set("win_all", [0.5]), "win_all: expected 2 win probabilities"),
    ("money", _set("played_money", -4), "played_money: expected an amount of money from 0"),
    ("visits", _set("played_visits", -1), "played_visits: expected visits from 0"),
    ("visits float", _set("played_visits", 1.5), "played_visits: expected visits from 0"),
    ("iterations", _set("iterations", "many"), 'iterations: expected an integer from 0 to'),
    ("seat", _set("seat", 7), "seat: expected a seat from 0 to 1, got 7"),
    ("seat bool", _set("seat", True), "seat: expected a seat from 0 to 1, got true"),
    ("cls", _set("cls", "brilliant"), "cls: expected one of inaccuracy, mistake, blunder or null"),
    ("unknown best", _set("best", "tile 99"), "best: expected a legal move at ply"),
    ("garbage best", _set("best", "fly to the moon"), "best: expected a legal move at ply"),
    ("unknown played", _set("played", "tile 99"), "played: expected"),
    ("plan", _set("best_plan", []), "best_plan: expected a list of 1 to"),
    ("unknown key", _set("mood", "happy"), '.mood: unknown key (expected only ply, seat'),
    ("unknown top key", lambda c: c.update(extra=1), "extra: unknown key (expected only format, key, decisions, luck)"),
    ("missing key", lambda c: c["decisions"][_first(c)].pop("loss"), "loss: expected a value, missing"),
    ("format", lambda c: c.update(format="kwsearch-review-cache/9"), "format: expected 'kwsearch-review-cache/1'"),
    ("key", lambda c: c.update(key="not a hash"), "key: expected a SHA-256 hash"),
    ("decisions list", lambda c: c.update(decisions=[]), "decisions: expected an object of reviewed decisions"),
    ("not an object", lambda c: c["decisions"].update({_first(c): 7}), "expected a reviewed decision (an object)"),
    ("duplicated ply", _second_filed_as, "ply: expected"),
    ("out of order", _reversed, "expected the plies in increasing order"),
    ("key with a leading zero", _leading_zero, "expected a ply as the key"),
    ("ply out of range", _far_ply, "decisions.999.ply: expected a ply of the game (0 to 69), got 999"),
]


@pytest.mark.parametrize("name, change, fragment", CACHE_CASES, ids=[c[0] for c in CACHE_CASES])
def test_a_bad_cache_is_refused_in_one_line_and_left_untouched(cached, name, change, fragment):
    folder, good = cached
    obj = copy.deepcopy(good)
    change(obj)
    r, path, before = _review_with_cache(folder, obj)
    err = _one_line_error(r, fragment)
    assert err.startswith(f"Error: {path}: ")
    assert "the cache file is left as it is" in err
    assert path.read_bytes() == before  # neither overwritten nor moved


def test_a_bad_cache_of_other_settings_is_refused_too(cached):
    """A cache of another game or other settings starts afresh, but only a well-formed one."""
    folder, good = cached
    obj = copy.deepcopy(good)
    obj["key"] = "0" * 64
    obj["decisions"][_first(obj)]["played_win"] = 5.0
    r, path, before = _review_with_cache(folder, obj)
    _one_line_error(r, "played_win: expected a win probability from 0 to 1, got 5.0")
    assert path.read_bytes() == before


@pytest.mark.parametrize("text, fragment", [
    ("[" * 100_000, "not valid JSON: nested more than 32 levels deep"),
    ('{"format": "kwsearch-review-cache/1", "key": "a", "key": "b", "decisions": {}}',
     'the key "key" appears twice in one object'),
    ('{"format": "kwsearch-review-cache/1", "key": "%s", "decisions": {"2": {}, "2": {}}}' % ("0" * 64),
     'the key "2" appears twice in one object'),
    ('{"format": "kwsearch-review-cache/1", "key": NaN, "decisions": {}}', "NaN and Infinity are not allowed"),
    ("1" * 5000, "an integer of 5000 digits"),
    ("", "not valid JSON"),
    ("\xff\xfe", "not valid JSON"),
], ids=["deep", "duplicate key", "duplicate ply key", "nan", "digits", "empty", "junk"])
def test_hostile_cache_text(cached, text, fragment):
    folder, _ = cached
    r, path, before = _review_with_cache(folder, text=text)
    _one_line_error(r, fragment)
    assert path.read_bytes() == before


def _cli(*args: str, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess:
    """The CLI in its own process, with a timeout: a reader that opened a FIFO or /dev/zero would hang."""
    return subprocess.run([sys.executable, "-m", "kwsearch.cli", *args], env=subprocess_env(), cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_as_the_cache_is_refused_at_once(cached):
    folder, _ = cached
    fifo = folder / "pipe.review-cache.json"
    os.mkfifo(fifo)
    try:
        proc = _cli("review", "g.json", "-i", str(ITERATIONS), "--cache", str(fifo), cwd=folder)
    finally:
        assert fifo.exists()
        fifo.unlink()
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines() == [
        f"Error: {fifo}: not a regular file; expected a review cache (a regular file); the cache file is left "
        "as it is: fix or remove it, or pass another --cache or --no-cache"]


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_a_symlink_to_dev_zero_as_the_cache_is_refused_at_once(cached):
    folder, _ = cached
    link = folder / "g.review-cache.json"  # the default cache of g.json
    link.symlink_to("/dev/zero")
    try:
        proc = _cli("review", "g.json", "-i", str(ITERATIONS), cwd=folder)
        assert proc.returncode == 1 and "Traceback" not in proc.stderr
        (line,) = proc.stderr.strip().splitlines()
        assert line.startswith(f"Error: {Path('g.review-cache.json')}: not a regular file; expected a review cache")
        assert link.is_symlink() and os.readlink(link) == "/dev/zero"  # left as it was
    finally:
        link.unlink()


def test_a_valid_cache_is_used_and_kept_whole(cached, tmp_path):
    """The control: the valid cache is accepted (nothing searched again), and a review of the other seat
    adds its decisions to the cache without dropping seat 0's."""
    folder, good = cached
    shutil.copy(folder / "g.json", tmp_path / "g.json")
    cache = tmp_path / "c.json"
    cache.write_text(json.dumps(good))
    seen = []
    rec = json.loads(GAME.read_text())
    r = review_game(rec, SearchLimits(iterations=ITERATIONS), seats=[0], cache=cache,
                    progress=lambda done, total, d: seen.append(done))
    assert r.complete and seen == [len(good["decisions"])] and r.cache_file == cache
    review_game(rec, SearchLimits(iterations=ITERATIONS), seats=[1], cache=cache)
    after = json.loads(cache.read_text())
    steps = game_decisions(rec)
    assert len(after["decisions"]) == len(steps) and set(good["decisions"]) < set(after["decisions"])
    key = cache_key(rec, SearchLimits(iterations=ITERATIONS), review_config(SearchConfig()), 0)
    assert check_cache(after, "c.json", key=key, steps=steps, players=2)
    assert after["format"] == CACHE_FORMAT


# ---------------------------------------------------------------------------
# Review files: kwsearch serve --review, and a review pasted or uploaded to the board
# ---------------------------------------------------------------------------


def _review() -> dict:
    return json.loads(REVIEW.read_text())


def _rset(path, value):
    def change(r):
        parent = r
        for k in path[:-1]:
            parent = parent[k]
        parent[path[-1]] = value
    return change


def _duplicate_decision(r):
    r["decisions"][1] = copy.deepcopy(r["decisions"][0])


def _swap_decisions(r):
    r["decisions"][0], r["decisions"][1] = r["decisions"][1], r["decisions"][0]


REVIEW_CASES = [
    ("iterations text", _rset(("settings", "iterations"), "lots"), "settings.iterations: expected a positive integer"),
    ("mean_loss text", _rset(("summary", 0, "mean_loss"), "x"), "summary[0].mean_loss: expected a win probability"),
    ("round list", _rset(("decisions", 0, "round"), [1]), "decisions[0].round: expected an integer"),
    ("win 5", _rset(("decisions", 0, "played_win"), 5.0), "decisions[0].played_win: expected a win probability"),
    ("loss -3", _rset(("decisions", 0, "loss"), -3), "decisions[0].loss: expected a win probability"),
    ("win_all", _rset(("decisions", 0, "win_all"), [2, -1]), "decisions[0].win_all[0]: expected a win probability"),
    ("money", _rset(("decisions", 0, "money_all"), [1e300, 0]), "decisions[0].money_all[0]: expected an amount"),
    ("visits", _rset(("decisions", 0, "played_visits"), -5), "decisions[0].played_visits: expected visits"),
    ("unknown best", _rset(("decisions", 0, "best"), "tile 99"), "decisions[0].best: expected a legal move at ply 0"),
    ("seat", _rset(("decisions", 0, "seat"), 5), "decisions[0].seat: expected a seat from 0 to 1, got 5"),
    ("unknown key", _rset(("decisions", 0, "comment"), "!"), "decisions[0].comment: unknown key"),
    ("unknown top key", _rset(("extra",), 1), "extra: unknown key"),
    ("duplicate ply", _duplicate_decision, "decisions[1].ply: expected each ply once"),
    ("out of order", _swap_decisions, "decisions[1].ply: expected the plies in increasing order"),
    ("names", _rset(("names",), ["a"]), "names: expected 2 names"),
    ("final money", _rset(("final_money",), [-1, 5]), "final_money[0]: expected an amount of money"),
    ("thresholds", _rset(("thresholds",), {}), "thresholds.inaccuracy: expected a value, missing"),
    ("counts", _rset(("summary", 0, "counts", "blunder"), -1), "summary[0].counts.blunder: expected a count"),
    ("worst", _rset(("summary", 0, "worst"), [9999]), "summary[0].worst[0]: expected the ply of a reviewed"),
    ("seats", _rset(("seats",), [1, 1]), "seats: expected each seat once"),
    ("complete", _rset(("total",), 999), "total: expected"),
    ("cls", _rset(("decisions", 0, "cls"), None), "decisions[0].cls: expected \"inaccuracy\""),
    ("mark", _rset(("decisions", 0, "mark"), "!!"), "decisions[0].mark: expected"),
    ("another game", _rset(("decisions", 3, "played"), "tile 9"), "the review is not of g.json: at ply"),
    ("not a review", lambda r: r.update(format="kwsearch-game/1"), "format: expected 'kwsearch-review/1'"),
]


@pytest.fixture
def no_server(monkeypatch):
    """``kwsearch serve`` up to the point of serving: the server itself returns at once."""
    pytest.importorskip("starlette")
    uvicorn = pytest.importorskip("uvicorn")

    def run(self, *args, **kwargs):
        self.should_exit = True
    monkeypatch.setattr(uvicorn.Server, "run", run)


def _serve(tmp_path: Path, review_obj=None, text: str | None = None):
    shutil.copy(GAME, tmp_path / "g.json")
    path = tmp_path / "r.json"
    path.write_text(text if text is not None else json.dumps(review_obj))
    before = path.read_bytes()
    r = _run("serve", tmp_path / "g.json", "--review", path, "--games-dir", tmp_path, "--port", 0)
    return r, path, before


def test_a_valid_review_file_is_served(tmp_path, no_server):
    r, _, _ = _serve(tmp_path, _review())
    assert r.exit_code == 0, r.output
    obj = _review()
    assert check_review(obj, "r.json", steps=game_decisions(json.loads(GAME.read_text())), players=2) is obj


@pytest.mark.parametrize("name, change, fragment", REVIEW_CASES, ids=[c[0] for c in REVIEW_CASES])
def test_a_bad_review_file_is_refused_by_serve_in_one_line(tmp_path, no_server, name, change, fragment):
    obj = _review()
    change(obj)
    r, path, before = _serve(tmp_path, obj)
    err = _one_line_error(r, fragment)
    assert err.startswith("Error: r.json: ")
    assert path.read_bytes() == before


@pytest.mark.parametrize("name, change, fragment", REVIEW_CASES[::3], ids=[c[0] for c in REVIEW_CASES[::3]])
def test_a_bad_review_uploaded_to_the_board_is_refused_by_the_same_checker(tmp_path, name, change, fragment):
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from kwsearch.web.app import WebConfig, create_app
    obj = _review()
    change(obj)
    app = create_app(WebConfig(games_dir=tmp_path), files=[("g.json", json.loads(GAME.read_text()))])
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        did = client.get("/api/info").json()["first"]
        r = client.post(f"/api/docs/{did}/review", json={"name": "r.json", "text": json.dumps(obj)})
        assert r.status_code == 400, r.text
        err = r.json()["error"]
        assert err.startswith("r.json: ") and fragment in err and "\n" not in err


def test_hostile_review_file_text(tmp_path, no_server):
    r, path, before = _serve(tmp_path, text="[" * 100_000)
    _one_line_error(r, "not valid JSON: nested more than 32 levels deep")
    assert path.read_bytes() == before


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_as_the_review_file_is_refused_at_once(tmp_path):
    pytest.importorskip("starlette")
    pytest.importorskip("uvicorn")
    shutil.copy(GAME, tmp_path / "g.json")
    os.mkfifo(tmp_path / "r.json")
    proc = _cli("serve", "g.json", "--review", "r.json", "--port", "0", cwd=tmp_path)  # a hang fails by the timeout
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines() == ["Error: r.json: not a regular file; expected a file (a regular file)"]


def test_library_check_review_errors_are_review_errors():
    obj = _review()
    obj["decisions"][0]["loss"] = float("inf")
    with pytest.raises(ReviewError, match=r"^x: decisions\[0\]\.loss: expected a win probability from 0 to 1"):
        check_review(obj, "x")


# ---------------------------------------------------------------------------
# Worker processes
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("command", [["review", str(GAME)], ["suggest", str(MID)],
                                     ["tournament", "-b", "random", "-b", "random", "--out", "t.jsonl"],
                                     ["tune", "-p", "money=0,0.1", "--log", "t.log", "--games", "2"]])
def test_workers_are_bounded_by_one_shared_type(tmp_path, command):
    r = _run(*command, "--workers", 1000)
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert "--workers" in r.output and f"1<=x<={max_workers()}" in r.output
    assert not (tmp_path / "t.jsonl").exists()
    types = {id(p.type) for name in ("review", "suggest", "tournament", "tune")
             for p in main.commands[name].params if p.name == "workers"}
    assert len(types) == 1  # one type, declared once (kwsearch.cli.WORKERS)
    (param,) = [p for p in main.commands[command[0]].params if p.name == "workers"]
    assert param.type.min == 1 and param.type.max == max_workers() <= 256


def test_the_library_refuses_a_thousand_review_workers():
    with pytest.raises(ReviewError, match=r"^workers: expected 1 to \d+ \(4 per CPU\), got 1000$"):
        review_game(json.loads(GAME.read_text()), SearchLimits(iterations=ITERATIONS), workers=1000)


def _children(pid: int) -> set[int]:
    try:
        import psutil
    except ImportError:
        return proc_children(pid)
    try:
        return {c.pid for c in psutil.Process(pid).children()}
    except psutil.Error:
        return set()


def _wait_for_workers(proc: subprocess.Popen, n: int, timeout: float = 60) -> set[int]:
    deadline = time.time() + timeout
    while time.time() < deadline and len(_children(proc.pid)) < n and proc.poll() is None:
        time.sleep(0.05)
    kids = _children(proc.pid)
    assert len(kids) >= n, (proc.poll(), kids)
    return kids


@pytest.mark.skipif(not LINUX_PROC, reason="needs Linux /proc")
@pytest.mark.parametrize("command", [["review", "g.json", "-i", "100000000", "--no-cache"],
                                     ["suggest", str(MID), "-i", "2000000000"]], ids=["review", "suggest"])
def test_kill_9_of_the_parent_ends_its_workers(tmp_path, command):
    shutil.copy(GAME, tmp_path / "g.json")
    proc = start_cli([*command, "--workers", "2"], tmp_path)
    workers: set[int] = set()
    try:
        workers = _wait_for_workers(proc, 2)
        time.sleep(0.3)  # the workers are searching (a decision takes minutes at these iterations)
        proc.kill()
        proc.wait(10)
        deadline = time.time() + 5
        while time.time() < deadline and any(_alive(w) for w in workers):
            time.sleep(0.05)
        assert not [w for w in workers if _alive(w)], "workers still running 5 s after their parent was killed"
    finally:
        if proc.poll() is None:
            proc.kill()
        for w in workers:
            if _alive(w):
                os.kill(w, signal.SIGKILL)


@pytest.mark.skipif(not LINUX_PROC, reason="needs Linux /proc")
def test_ctrl_c_keeps_the_cache_and_names_it(tmp_path):
    """SIGINT to the whole process group (a terminal's Ctrl-C) once some decisions are done: one line, no
    traceback from the workers, the cache holds the finished decisions and is the file named."""
    shutil.copy(GAME, tmp_path / "g.json")
    cache = tmp_path / "kept" / "my-cache.json"
    cache.parent.mkdir()
    proc = start_cli(["review", "g.json", "-i", "30000", "--workers", "2", "--cache", str(cache)], tmp_path)
    try:
        workers = _wait_for_workers(proc, 2)
        deadline = time.time() + 60
        while time.time() < deadline and not cache.exists() and proc.poll() is None:
            time.sleep(0.02)
        assert cache.exists()
        text, _ = ctrl_c(proc, timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "Traceback" not in text and "KeyboardInterrupt" not in text, text
    (line,) = text.strip().splitlines()
    done = json.loads(cache.read_text())["decisions"]
    assert line == (f"stopped after {len(done)} of 70 decisions (kept in {cache}); run the same command again "
                    "to continue")
    assert 0 < len(done) < 70
    rec = json.loads(GAME.read_text())
    key = cache_key(rec, SearchLimits(iterations=30000), review_config(SearchConfig()), 0)
    assert check_cache(json.loads(cache.read_text()), str(cache), key=key, steps=game_decisions(rec), players=2)
    deadline = time.time() + 5
    while time.time() < deadline and any(_alive(w) for w in workers):
        time.sleep(0.05)
    assert not [w for w in workers if _alive(w)]


@pytest.mark.skipif(not LINUX_PROC, reason="needs Linux /proc")
def test_ctrl_c_before_any_decision_names_no_cache(tmp_path):
    shutil.copy(GAME, tmp_path / "g.json")
    proc = start_cli(["review", "g.json", "-i", "100000000", "--workers", "2"], tmp_path)
    try:
        _wait_for_workers(proc, 2)
        time.sleep(0.3)
        text, _ = ctrl_c(proc, timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "Traceback" not in text, text
    assert text.strip().splitlines() == ["stopped after 0 of 70 decisions; run the same command again to continue"]
    assert not (tmp_path / "g.review-cache.json").exists()
