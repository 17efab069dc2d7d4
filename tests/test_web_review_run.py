"""A review run from the page (issue 31): ``/api/docs/D/review/...`` under Starlette's TestClient.

The review is ``kwsearch review``'s own (:func:`kwsearch.review.review_game` in a worker process):
the same JSON as the command for the same game, settings and seed, the same cache (resumed after
a Stop to the same result as an uninterrupted run), refusals as one-line JSON 4xx.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import proc_alive, subprocess_env, web_test_client  # noqa: E402

TestClient = web_test_client()

from kwsearch.records import replay  # noqa: E402
from kwsearch.review import cache_key, review_config, review_game  # noqa: E402
from kwsearch.search import SearchConfig, SearchLimits  # noqa: E402
from kwsearch.web.app import WebConfig, create_app  # noqa: E402
from kwsearch.web.reviews import MAX_ITERATIONS  # noqa: E402

pytestmark = pytest.mark.one_engine

ROOT = Path(__file__).resolve().parent.parent
GAME = ROOT / "examples" / "game-2p.json"
POSITION = ROOT / "examples" / "midgame-4p.json"


def _record():
    return json.loads(GAME.read_text())


@pytest.fixture
def client(tmp_path):
    app = create_app(WebConfig(games_dir=tmp_path, max_analyses=2, analysis_seconds=30, update_interval=0.1),
                     files=[("game-2p.json", _record())])
    with TestClient(app, base_url="http://127.0.0.1:8000") as c:
        c.board = app.state.board
        c.folder = tmp_path
        c.doc = c.get("/api/info").json()["first"]
        yield c


def _status(client, did):
    r = client.get(f"/api/docs/{did}/review/status")
    assert r.status_code == 200, r.text
    return r.json()


def _wait(client, did, until, timeout=120.0, poll=0.01):
    deadline = time.monotonic() + timeout
    while True:
        s = _status(client, did)
        if until(s):
            return s
        assert time.monotonic() < deadline, f"timed out; the review is {s}"
        time.sleep(poll)


def _ended(s):
    return s["state"] not in ("running", "stopping")


def _cli_review(cwd: Path, name: str, *args) -> dict:
    """``kwsearch review NAME --json ...`` run in ``cwd`` as a user would (the installed package)."""
    r = subprocess.run([sys.executable, "-P", "-m", "kwsearch.cli", "review", name, "--json", *map(str, args)],
                       cwd=cwd, env=subprocess_env(), capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def _one_line_error(r, status: int, *fragments: str) -> str:
    assert r.status_code == status, (r.status_code, r.text)
    err = r.json()["error"]
    assert set(r.json()) == {"error"} and "\n" not in err and "Traceback" not in err
    for f in fragments:
        assert f in err, err
    return err


def test_start_progress_stop_and_resume_give_the_uninterrupted_result(client):
    did = client.doc
    assert _status(client, did) == {"state": "none"}
    r = client.post(f"/api/docs/{did}/review/start", json={"iterations": 1000, "seed": 3})
    assert r.status_code == 200, r.text
    s = r.json()
    assert s["state"] == "running" and s["iterations"] == 1000 and s["seed"] == 3 and s["files"] is None
    cache = client.folder / s["cache"]
    assert cache.parent == client.folder and s["cache"].startswith("kwsearch-review-")
    run = client.board.reviews.latest(client.board.library.get(did))
    pid = run.process.pid
    # progress: decisions done of the total, and once two are done the time left with its spread
    s = _wait(client, did, lambda s: s["done"] >= 2 or _ended(s))
    assert s["state"] == "running", s
    total = s["total"]
    assert total == sum(1 for e in _record()["events"] if not e.startswith("reveal"))
    assert s["eta"] is not None and s["eta"] >= 0 and s["rate"] > 0 and s["eta_half"] >= 0
    # a second review of the same game while one runs is refused
    _one_line_error(client.post(f"/api/docs/{did}/review/start", json={"iterations": 1000, "seed": 3}), 409,
                    "running already")
    # Stop: the worker ends as after Ctrl-C, what it finished is kept and laid onto the page
    r = client.post(f"/api/docs/{did}/review/stop", json={})
    assert r.status_code == 200 and r.json()["state"] in ("stopping", "stopped")
    s = _wait(client, did, _ended)
    assert s["state"] == "stopped" and 2 <= s["done"] < total and not s["complete"]
    assert not proc_alive(pid)  # the CPU work has really stopped
    assert client.board.reviews.running == {}  # its slot is free
    kept = json.loads(cache.read_text())
    assert len(kept["decisions"]) == s["done"]
    partial = client.get(s["files"]["json"]).json()
    assert partial["complete"] is False and partial["reviewed"] == s["done"]
    doc = client.get(f"/api/docs/{did}").json()
    assert len(doc["review"]["points"]) == s["done"] and "(incomplete)" in doc["review"]["note"]
    _one_line_error(client.post(f"/api/docs/{did}/review/stop", json={}), 409, "not running")
    # started again with the same budget it continues from the cache
    r = client.post(f"/api/docs/{did}/review/start", json={"iterations": 1000, "seed": 3})
    assert r.status_code == 200, r.text
    s = _wait(client, did, _ended)
    assert s["state"] == "done" and s["complete"] and s["done"] == total and s["cached"] == len(kept["decisions"])
    # after the decisions, the chance events' luck was valued, and its progress reported to the end
    assert s["luck"] is not None and s["luck"]["total"] > 0 and s["luck"]["done"] == s["luck"]["total"]
    resumed = client.get(s["files"]["json"])
    assert resumed.headers["content-disposition"] == 'attachment; filename="game-2p.review.json"'
    resumed = resumed.json()
    # ... and ends with the result of an uninterrupted run
    whole = review_game(_record(), SearchLimits(iterations=1000), seed=3, source="game-2p.json",
                        names=client.get(f"/api/docs/{did}").json()["names"])
    assert resumed == whole.to_json()
    html = client.get(s["files"]["html"])
    assert html.status_code == 200 and html.headers["content-type"].startswith("text/html")
    assert html.headers["content-disposition"] == 'attachment; filename="game-2p.review.html"'
    assert "<svg" in html.text
    # the page's review panel: every decision, its mark and the win after the move played
    doc = client.get(f"/api/docs/{did}").json()
    points = doc["review"]["points"]
    assert len(points) == total and "(incomplete)" not in doc["review"]["note"]
    for p, d in zip(points, resumed["decisions"]):
        assert doc["nodes"][p["node"]]["move"] == d["played"] and p["mark"] == d["cls"]
        assert p["win"] == d["played_win_all"]


def test_same_json_and_same_cache_as_kwsearch_review(client):
    """A finished game of this server, opened with Explore and reviewed from the page: the JSON of
    ``kwsearch review FILE`` (computed by the command alone, --no-cache), and the cache file is the
    command's own for FILE, which the command then reads."""
    view = client.post("/api/games", json={"seats": "random,random", "seed": 7}).json()
    gid = view["game"]
    while not view["terminal"]:
        view = client.post(f"/api/games/{gid}/advance", json={}).json()
    doc = client.post(f"/api/games/{gid}/explore", json={}).json()
    did = doc["id"]
    r = client.post(f"/api/docs/{did}/review/start", json={"iterations": 100, "seed": 11})
    assert r.status_code == 200, r.text
    game_file = client.folder / view["file"]
    assert r.json()["cache"] == game_file.stem + ".review-cache.json"
    s = _wait(client, did, _ended)
    assert s["state"] == "done", s
    web = client.get(s["files"]["json"]).json()
    cli = _cli_review(client.folder, game_file.name, "-i", 100, "--seed", 11, "--no-cache")
    assert web == cli
    # the cache: kwsearch review's default for the file, with the key the command computes
    cache = json.loads((client.folder / s["cache"]).read_text())
    record = json.loads(game_file.read_text())
    assert cache["key"] == cache_key(record, SearchLimits(iterations=100), review_config(SearchConfig()), 11)
    assert len(cache["decisions"]) == web["total"]
    assert _cli_review(client.folder, game_file.name, "-i", 100, "--seed", 11) == cli  # reads it
    # the cache file is not offered as a game to resume
    assert [f["name"] for f in client.get("/api/games").json()["files"]] == [game_file.name]


def test_a_running_game_is_reviewed_without_its_deck(client):
    """A running game's moves are opened with another deck (explore); their review is the review of
    the true record up to there: nothing in it depends on the undrawn cards."""
    view = client.post("/api/games", json={"seats": "random,random", "seed": 9}).json()
    gid = view["game"]
    for _ in range(25):
        view = client.post(f"/api/games/{gid}/advance", json={}).json()
    assert not view["terminal"]
    doc = client.post(f"/api/games/{gid}/explore", json={}).json()
    did = doc["id"]
    s = client.post(f"/api/docs/{did}/review/start", json={"iterations": 100, "seed": 2}).json()
    assert s["cache"].startswith("kwsearch-review-")  # not the running game's file
    s = _wait(client, did, _ended)
    web = client.get(s["files"]["json"]).json()
    true = client.board.games.get(gid).session.record
    assert "seed" not in json.dumps(web["settings"]).replace('"seed": 2', "")  # only the review's own seed
    assert replay(true).deck != client.board.library.get(did).state(len(doc["nodes"]) - 1).deck
    honest = review_game(true, SearchLimits(iterations=100), seed=2, source=web["source"], names=web["names"])
    assert web == honest.to_json()


def test_hostile_requests_get_one_line_4xx(client):
    did = client.doc
    base = f"/api/docs/{did}/review"
    _one_line_error(client.post("/api/docs/nosuch/review/start", json={}), 404, "no open document")
    _one_line_error(client.get("/api/docs/nosuch/review/status"), 404)
    _one_line_error(client.post("/api/docs/nosuch/review/stop", json={}), 404)
    for body, fragment in [
        ({"iterations": "100"}, "iterations: expected an integer from 1 to"),
        ({"iterations": 0}, "iterations: expected"),
        ({"iterations": -5}, "iterations: expected"),
        ({"iterations": 2.5}, "iterations: expected"),
        ({"iterations": True}, "iterations: expected"),
        ({"iterations": None}, "iterations: expected"),
        ({"iterations": MAX_ITERATIONS + 1}, "iterations: expected"),
        ({"iterations": 10**400}, "malformed JSON"),  # the strict reader: no huge numbers
        ({"seed": -1}, "seed: expected a seed"),
        ({"seed": 2**64}, "seed: expected a seed"),
        ({"seed": "x"}, "seed: expected a seed"),
        ({"seed": 1.0}, "seed: expected a seed"),
        ({"iterations": 100, "cache": "/etc/passwd"}, 'unknown key "cache"'),
        ({"path": "x"}, 'unknown key "path"'),
        ([100], "expected {"),
        ("100", "expected {"),
    ]:
        _one_line_error(client.post(f"{base}/start", json=body), 400, fragment)
    _one_line_error(client.post(f"{base}/start", content=b"{\"iterations\": 1", headers={
        "Content-Type": "application/json"}), 400, "malformed JSON")
    _one_line_error(client.post(f"{base}/start", content=b"{}", headers={"Content-Type": "text/plain"}), 415)
    assert not list(client.folder.iterdir())  # nothing started, nothing written
    assert client.board.reviews.running == {}
    _one_line_error(client.post(f"{base}/stop", json={}), 409, "no review is running")
    _one_line_error(client.get(f"{base}/game-2p.review.json"), 404, "no review run")
    # a position has no game to review
    pos = client.post("/api/open", json={"name": "midgame-4p.json", "text": POSITION.read_text()}).json()
    _one_line_error(client.post(f"/api/docs/{pos['id']}/review/start", json={}), 409, "a position has no game")
    # the server's slots (--max-analyses 2): two reviews of two games, then a third is refused, and so
    # is a live analysis; the same game opened twice shares one cache, so one review at a time
    twin = client.post("/api/open", json={"name": "again.json", "text": GAME.read_text()}).json()["id"]
    other = client.post("/api/games", json={"seats": "random,random", "seed": 4}).json()
    for _ in range(10):
        client.post(f"/api/games/{other['game']}/advance", json={})
    third = client.post(f"/api/games/{other['game']}/explore", json={}).json()["id"]
    big = {"iterations": MAX_ITERATIONS}
    assert client.post(f"{base}/start", json=big).status_code == 200
    _one_line_error(client.post(f"/api/docs/{twin}/review/start", json=big), 409, "running already")
    # the running game's record as the page downloads it (no seed) is the same game as its explored moves
    same = client.post("/api/open", json={"name": "g3.json", "text": json.dumps(
        client.get(f"/api/games/{other['game']}/record.json").json())}).json()["id"]
    assert client.post(f"/api/docs/{third}/review/start", json=big).status_code == 200
    _one_line_error(client.post(f"/api/docs/{same}/review/start", json=big), 409, "running already")
    four = client.post("/api/open", json={"name": "game-4p.json", "text": (ROOT / "examples" / "game-4p.json")
                                          .read_text()}).json()["id"]
    _one_line_error(client.post(f"/api/docs/{four}/review/start", json=big), 429, "the limit is 2")
    _one_line_error(client.post("/api/analysis", json={"doc": did, "node": 3}), 429, "analyses and reviews")
    assert client.get("/api/info").json()["analyses_running"] == 0
    # downloads: only the run's own two names
    for did_ in (did, third):
        _wait(client, did_, lambda s: s["total"] > 0)  # begun: stopped now, it reports what it finished
        assert client.post(f"/api/docs/{did_}/review/stop", json={}).status_code == 200
    s = _wait(client, did, _ended)
    assert s["state"] == "stopped" and s["done"] == 0
    _wait(client, third, _ended)
    assert client.board.reviews.running == {}
    _one_line_error(client.get(f"{base}/etc.review.json"), 404, "no such file")
    _one_line_error(client.get(f"{base}/game-2p.review.txt"), 404, "no such file")
    assert client.get(f"{base}/game-2p.review.json").json()["reviewed"] == 0
    # the same game opened twice finds the same cache file
    assert client.post(f"/api/docs/{twin}/review/start", json={"iterations": 50}).json()["cache"] == s["cache"]
    _wait(client, twin, _ended)


@pytest.mark.parametrize("players", [3, 4])
def test_three_and_four_players(client, players):
    """A finished 3- or 4-player game of the page: its review from the page is review_game's on its file."""
    view = client.post("/api/games", json={"seats": ",".join(["random"] * players), "seed": 12}).json()
    gid = view["game"]
    while not view["terminal"]:
        view = client.post(f"/api/games/{gid}/advance", json={}).json()
    did = client.post(f"/api/games/{gid}/explore", json={}).json()["id"]
    assert client.post(f"/api/docs/{did}/review/start", json={"iterations": 50, "seed": 1}).status_code == 200
    s = _wait(client, did, _ended)
    assert s["state"] == "done" and s["total"] == len(view["moves"])
    web = client.get(s["files"]["json"]).json()
    game_file = client.folder / view["file"]
    direct = review_game(json.loads(game_file.read_text()), SearchLimits(iterations=50), seed=1,
                         source=game_file.name, names=web["names"])
    assert web == direct.to_json() and web["players"] == players
    points = client.get(f"/api/docs/{did}").json()["review"]["points"]
    assert len(points) == s["total"] and all(len(p["win"]) == players for p in points)


def test_a_review_ends_with_its_server_even_killed_outright(tmp_path):
    """``kill -9`` of ``kwsearch serve``: its review worker notices its pipe closing and ends (a forkserver's
    child keeps the forkserver alive, so it cannot count on its parent's death)."""
    import os
    import signal
    import urllib.request

    from helpers import proc_children, start_cli
    from kwsearch.web.browser import free_port

    port = free_port()
    proc = start_cli(["serve", str(GAME), "--port", str(port), "--games-dir", str(tmp_path)], cwd=tmp_path)
    url = f"http://127.0.0.1:{port}"

    def call(path, body=None):
        req = urllib.request.Request(url + path, data=None if body is None else json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())

    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                did = call("/api/info")["first"]
                break
            except OSError:
                assert time.monotonic() < deadline and proc.poll() is None, proc.stderr.read()
                time.sleep(0.1)
        call(f"/api/docs/{did}/review/start", {"iterations": MAX_ITERATIONS})
        while call(f"/api/docs/{did}/review/status")["total"] == 0:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        tree, todo = set(), [proc.pid]
        while todo:
            kids = proc_children(todo.pop())
            tree |= kids
            todo.extend(kids)
        assert tree  # the forkserver and the review's worker
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(30)
    deadline = time.monotonic() + 60
    while any(proc_alive(p) for p in tree):
        assert time.monotonic() < deadline, f"still running: {[p for p in tree if proc_alive(p)]}"
        time.sleep(0.1)
