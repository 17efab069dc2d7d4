"""The analysis board under attack (issue 27): requests from other web sites, requests that
name files, hostile bodies, bad ``serve`` options.

* a request whose ``Host`` is not a name of this machine (DNS rebinding) is refused, for
  the page, the static files and the API, ``GET`` and ``POST`` alike;
* a ``POST`` whose ``Origin`` is not the board's own page is refused, even when its
  ``Host`` matches the origin;
* a seat that names a weights file gets one message whatever the file is (there, missing,
  a FIFO, ``/etc/passwd``, a good weights file), and nothing looks at the path;
* every body is read as strictly as a file, and a field of the wrong type or range is a
  one-line 4xx on every route, never a 500;
* ``kwsearch serve`` refuses options out of range and says the port it really listens on.
"""

from __future__ import annotations

import asyncio
import builtins
import io
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import cli_runner, subprocess_env, web_test_client  # noqa: E402

TestClient = web_test_client()

from starlette.applications import Starlette  # noqa: E402
from starlette.middleware import Middleware  # noqa: E402
from starlette.responses import JSONResponse  # noqa: E402
from starlette.routing import Route  # noqa: E402

from kwsearch.bots import BotSpec, names_file  # noqa: E402
from kwsearch.cli import main  # noqa: E402
from kwsearch.web.app import SameOrigin, WebConfig, create_app  # noqa: E402
from kwsearch.web.guard import MAX_PATH, host_allowed, origin_allowed, split_host  # noqa: E402

pytestmark = pytest.mark.one_engine

ROOT = Path(__file__).resolve().parent.parent
GAME = ROOT / "examples" / "game-2p.json"
REVIEW = ROOT / "examples" / "game-2p.review.json"
BASE = "http://127.0.0.1:8000"


def _board(folder: Path, host: str = "127.0.0.1"):
    return create_app(WebConfig(games_dir=folder, max_analyses=1, analysis_seconds=5, update_interval=0.1,
                                host=host), files=[("game-2p.json", json.loads(GAME.read_text()))])


@pytest.fixture
def client(tmp_path):
    games = tmp_path / "games"
    games.mkdir()
    app = _board(games)
    with TestClient(app, base_url=BASE) as c:
        c.app_ = app
        c.folder = games
        c.did = c.get("/api/info").json()["first"]
        yield c


def one_line_error(r, *statuses: int) -> str:
    """A refusal: one of ``statuses`` (any 4xx when none is given), a JSON ``{"error": one line}``."""
    assert 400 <= r.status_code < 500 if not statuses else r.status_code in statuses, (r.status_code, r.text)
    assert r.headers["content-type"].startswith("application/json"), r.headers["content-type"]
    err = r.json()["error"]
    assert isinstance(err, str) and err and "\n" not in err and "Traceback" not in err, err
    return err


def _state(client) -> tuple:
    """What a refused request must leave as it was: the open documents and games, the games folder."""
    info = client.get("/api/info").json()
    return sorted(d["id"] for d in info["docs"]), sorted(g["id"] for g in info["games"]), \
        sorted(p.name for p in client.folder.iterdir())


def asgi(app, method: str, path: str, headers: list[tuple[bytes, bytes]], body: bytes = b"",
         server=("127.0.0.1", 8000)) -> tuple[int, dict]:
    """One request straight to the ASGI app, headers exactly as given (an HTTP client would add a Host)."""
    scope = {"type": "http", "http_version": "1.1", "method": method, "path": path, "raw_path": path.encode(),
             "root_path": "", "scheme": "http", "query_string": b"", "headers": headers,
             "client": ("127.0.0.1", 50000), "server": server}
    sent: list[dict] = []
    todo = [{"type": "http.request", "body": body, "more_body": False}]

    async def receive():
        return todo.pop(0) if todo else {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    start = next(m for m in sent if m["type"] == "http.response.start")
    data = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], json.loads(data)


# ---------------------------------------------------------------- Host (DNS rebinding)

FOREIGN_HOSTS = ["evil.example:8000", "evil.example", "127.0.0.1.evil.example", "127.0.0.1.evil.example:8000",
                 "localhost.evil.example:8000", "evil.example:8000:8000", "127.0.0.1:9999", "localhost:80",
                 "[::1]:9999", "127.0.0.1:", "127.0.0.1:-1", "127.0.0.1:08000x", "[::1", "::1", "::1:8000",
                 "0.0.0.0:8000", "192.168.1.4:8000", "10.0.0.1", "127.1:8000", "2130706433:8000",
                 "127.0.0.1@evil.example", "evil.example#127.0.0.1", "[::ffff:7f00:1]:8000", "localhost.:8000",
                 "[127.0.0.1]:8000", ""]

ALLOWED_HOSTS = ["127.0.0.1:8000", "127.0.0.1", "localhost:8000", "localhost", "LOCALHOST:8000", "[::1]:8000",
                 "[::1]", "[0:0:0:0:0:0:0:1]:8000", "127.1.2.3:8000", "127.255.255.254"]


@pytest.mark.parametrize("host", FOREIGN_HOSTS)
def test_a_foreign_host_is_refused_for_every_request(client, host):
    before = _state(client)
    text = GAME.read_text()
    h = {"host": host}
    for r in [client.get("/", headers=h), client.get("/static/app.js", headers=h),
              client.get("/api/info", headers=h), client.get(f"/api/docs/{client.did}", headers=h),
              client.get("/api/games", headers=h),
              client.post("/api/games", json={"seats": "human,random"}, headers=h),
              client.post("/api/open", json={"name": "g.json", "text": text}, headers=h),
              # the attacker's page sends its own origin: the Host is refused before the Origin is looked at
              client.post("/api/games", json={"seats": "human,random"}, headers={**h, "origin": f"http://{host}"}),
              client.post(f"/api/docs/{client.did}/nodes/4/play", json={"action": 8}, headers=h)]:
        err = one_line_error(r, 400, 403)
        assert "Host" in err and "svg" not in r.text
    assert _state(client) == before


@pytest.mark.parametrize("host", ALLOWED_HOSTS)
def test_the_names_of_this_machine_are_answered(client, host):
    r = client.get("/api/info", headers={"host": host})
    assert r.status_code == 200 and r.json()["first"] == client.did
    assert client.get("/", headers={"host": host}).status_code == 200
    r = client.post("/api/games", json={"seats": "human,random"}, headers={"host": host, "origin": f"http://{host}"})
    assert r.status_code == 200, r.text


def test_a_missing_or_doubled_host_is_refused(tmp_path):
    app = _board(tmp_path)
    for method in ("GET", "POST"):
        body = b'{"seats": "human,random"}' if method == "POST" else b""
        ctype = [(b"content-type", b"application/json")] if method == "POST" else []
        status, answer = asgi(app, method, "/api/games", ctype, body)
        assert status == 400 and "Host" in answer["error"]
        status, answer = asgi(app, method, "/api/games", [(b"host", b"127.0.0.1:8000"), (b"host", b"evil.example")]
                              + ctype, body)
        assert status == 400 and "Host" in answer["error"]
        status, answer = asgi(app, method, "/", [(b"host", b"evil.example\xff")] + ctype, body)
        assert status == 403 and "\n" not in answer["error"]
    assert list(tmp_path.iterdir()) == []


def test_a_content_length_of_thousands_of_digits(tmp_path):
    for length in (b"9" * 5000, b"1" + b"0" * 18, b"-1", b"0x10"):
        status, answer = asgi(_board(tmp_path), "POST", "/api/games", [
            (b"host", b"127.0.0.1:8000"), (b"content-type", b"application/json"), (b"content-length", length)],
            b'{"seats": "human,random"}')
        assert status == 413 and "\n" not in answer["error"]
    assert list(tmp_path.iterdir()) == []


def test_the_port_of_the_host_is_the_server_s():
    assert host_allowed("127.0.0.1:8000", 8000, "127.0.0.1") and host_allowed("127.0.0.1", 8000, "127.0.0.1")
    assert not host_allowed("127.0.0.1:8001", 8000, "127.0.0.1")
    assert host_allowed("localhost:8001", None, "127.0.0.1")  # a server without a port (a socket file)
    assert split_host("[::1]:8000") == ("::1", 8000) and split_host("LocalHost") == ("localhost", None)
    for bad in ("", ":8000", "a:b", "[::1]8000", "[zz]:1", "a:99999", "a:0", "[::1]:", "a b:1x"):
        assert split_host(bad) is None or not host_allowed(bad, 8000, "127.0.0.1"), bad


def test_the_address_given_to_serve_is_a_name_of_the_server(tmp_path):
    for served, good, bad in [("kwboard.lan", ["kwboard.lan:8000", "KWBOARD.LAN", "127.0.0.1:8000"],
                               ["evil.example:8000", "kwboard.lan.evil.example", "192.168.1.4:8000"]),
                              ("192.168.1.4", ["192.168.1.4:8000", "localhost:8000"],
                               ["192.168.1.5:8000", "evil.example:8000"]),
                              ("::1", ["[::1]:8000"], ["evil.example:8000"]),
                              # bound to every address: any address (only a name can be rebound), no foreign name
                              ("0.0.0.0", ["192.168.1.4:8000", "10.1.2.3", "[fe80::1]:8000", "0.0.0.0:8000"],
                               ["evil.example:8000", "kwboard.lan:8000", "192.168.1.4:9000"])]:
        app = _board(tmp_path, host=served)
        with TestClient(app, base_url=BASE) as c:
            for h in good:
                assert c.get("/api/info", headers={"host": h}).status_code == 200, (served, h)
            for h in bad:
                one_line_error(c.get("/api/info", headers={"host": h}), 403)


# ---------------------------------------------------------------- Origin

def _echo_app(host: str = "127.0.0.1"):
    """A route that answers every POST, behind the board's Origin check alone (no Host check in front)."""
    async def ok(request):
        return JSONResponse({"ok": True})
    return Starlette(routes=[Route("/x", ok, methods=["POST"])], middleware=[Middleware(SameOrigin, host=host)])


def test_a_forged_origin_is_refused_even_when_the_host_matches_it():
    with TestClient(_echo_app(), base_url=BASE) as c:
        for host, origin in [("evil.example:8000", "http://evil.example:8000"),
                             ("127.0.0.1.evil.example:8000", "http://127.0.0.1.evil.example:8000"),
                             ("127.0.0.1:8000", "http://evil.example:8000"),
                             ("127.0.0.1:8000", "http://localhost:8000"),  # another origin of this machine
                             ("127.0.0.1:8000", "null"), ("127.0.0.1:8000", "ftp://127.0.0.1:8000"),
                             ("127.0.0.1:8000", "http://127.0.0.1:9999"), ("127.0.0.1:9999", "http://127.0.0.1:9999"),
                             ("127.0.0.1:8000", "http://127.0.0.1:8000/"), ("127.0.0.1:8000", "")]:
            r = c.post("/x", json={}, headers={"host": host, "origin": origin})
            assert one_line_error(r, 403) == "requests from other web sites are refused", (host, origin)
        assert c.post("/x", json={}, headers={"origin": "http://127.0.0.1:8000"}).json() == {"ok": True}
        assert c.post("/x", json={}, headers={"host": "LocalHost:8000", "origin": "http://localhost:8000"}).json() \
            == {"ok": True}
        assert c.post("/x", json={}).json() == {"ok": True}  # no Origin (not a browser's cross-site request)
    two = [(b"host", b"127.0.0.1:8000"), (b"content-type", b"application/json"),
           (b"origin", b"http://127.0.0.1:8000"), (b"origin", b"http://evil.example")]
    assert asgi(_echo_app(), "POST", "/x", two, b"{}")[0] == 403


def test_origin_allowed():
    assert origin_allowed("http://127.0.0.1:8000", "127.0.0.1:8000", 8000, "127.0.0.1")
    assert origin_allowed("https://[::1]:8000", "[::1]:8000", 8000, "127.0.0.1")
    assert not origin_allowed("http://evil.example:8000", "evil.example:8000", 8000, "127.0.0.1")
    assert origin_allowed("http://kwboard.lan:8000", "kwboard.lan:8000", 8000, "kwboard.lan")
    assert not origin_allowed("http://kwboard.lan:8000", "kwboard.lan:8000", 8000, "127.0.0.1")


def test_a_foreign_origin_on_the_board_itself(client):
    before = _state(client)
    for path, body in [("/api/games", {"seats": "human,random"}), ("/api/open", {"text": GAME.read_text()}),
                       (f"/api/docs/{client.did}/nodes/4/play", {"action": 8})]:
        r = client.post(path, json=body, headers={"origin": "http://evil.example:8000"})
        one_line_error(r, 403)
    assert _state(client) == before


# ---------------------------------------------------------------- no file named by a request

class FileSpy:
    """Records every path handed to the file system's doors (stat, open) that names a watched file."""

    def __init__(self, monkeypatch, *watched: str):
        self.watched, self.seen = [str(w) for w in watched], []
        for mod, name in [(os, "stat"), (os, "lstat"), (os, "open"), (os, "scandir"), (os, "listdir"),
                          (builtins, "open"), (io, "open"), (os.path, "exists"), (os.path, "isfile")]:
            monkeypatch.setattr(mod, name, self._wrap(getattr(mod, name)))

    def _wrap(self, real):
        def spy(path=None, *args, **kwargs):
            text = os.fsdecode(path) if isinstance(path, (str, bytes, os.PathLike)) else ""
            if any(w in text for w in self.watched):
                self.seen.append(text)
            return real(path, *args, **kwargs) if path is not None else real(*args, **kwargs)
        return spy


def _targets(tmp_path: Path) -> dict[str, str]:
    """Paths of every kind; a request naming any of them must get the same answer."""
    probe = tmp_path / "probe"
    probe.mkdir()
    good = probe / "prior.json"
    shutil.copy(ROOT / "kwsearch" / "data" / "prior-2p.json", good)  # a weights file that would load
    evalf = probe / "eval.json"
    shutil.copy(ROOT / "kwsearch" / "data" / "eval-2p.json", evalf)
    junk = probe / "junk.json"
    junk.write_text(json.dumps({"format": "kwsearch-game/1"}))
    out = {"weights": str(good), "evaluation": str(evalf), "json": str(junk), "missing": str(probe / "none.json"),
           "folder": str(probe), "passwd": "/etc/passwd", "relative": "probe/prior.json", "tempo-file": "./tempo",
           "proc": "/proc/self/environ", "device": "/dev/zero"}
    if hasattr(os, "mkfifo"):
        os.mkfifo(probe / "pipe.json")  # a reader that opened it would wait for a writer
        out["fifo"] = str(probe / "pipe.json")
    return out


FILE_SEATS = ["human,ismcts:prior=1,priorw={},iterations=10", "human,ismcts:iterations=10,prior=1,PriorW = {}",
              "human,ismcts:pprior=0.5,iterations=10,priorw={}", "human,pimc:prior=1,priorw={},iterations=4",
              "human,cheat:cutoff=3,eval={},iterations=10", "human,ismcts:cutoff=3,iterations=10,eval={}",
              "human,random,ismcts:cutoff=3,EVAL={},iterations=10", "human,priorw={}", "human,ismcts:eval={}"]


def test_seats_naming_a_file_are_refused_alike_and_nothing_is_opened(client, tmp_path, monkeypatch):
    targets = _targets(tmp_path)
    spy = FileSpy(monkeypatch, *targets.values(), "probe")
    before = _state(client)
    for form in FILE_SEATS:
        answers = set()
        for kind, path in targets.items():
            r = client.post("/api/games", json={"seats": form.format(path)})
            err = one_line_error(r, 400)
            assert "names a file" in err and path not in err, (kind, err)
            answers.add((r.status_code, err))
        assert len(answers) == 1, (form, answers)  # the answer says nothing about the file
    assert spy.seen == []
    assert _state(client) == before


def test_the_spy_sees_a_reader_that_opens_the_file(tmp_path, monkeypatch):
    """The control of the test above: the CLI's reader of the same spec does look at the file."""
    targets = _targets(tmp_path)
    spy = FileSpy(monkeypatch, "probe")
    BotSpec.parse(f"ismcts:prior=1,priorw={targets['weights']}")
    assert any(targets["weights"] in p for p in spy.seen)


def test_the_shipped_models_are_played_by_name(client):
    for seats in ["human,ismcts:cutoff=3,eval=searched,iterations=10",
                  "human,ismcts:cutoff=3,eval= tempo ,iterations=10",
                  "human,ismcts:prior=1,iterations=10", "human,ismcts:pprior=0.5,iterations=10"]:
        r = client.post("/api/games", json={"seats": seats})
        assert r.status_code == 200, (seats, r.text)
        assert client.post(f"/api/games/{r.json()['game']}/advance", json={}).status_code == 200
    assert names_file("eval", "./tempo") and names_file("eval", "Tempo") and names_file("priorw", "tempo")
    assert not names_file("eval", "searched") and not names_file("iterations", "/etc/passwd")


def test_a_bot_from_the_page_gets_no_more_processes_than_the_machine_s_bound(client):
    from kwsearch.worker_procs import max_workers
    top = max_workers()
    for seats in [f"human,ismcts:iterations=10,workers={top + 1}", "human,ismcts:iterations=10,workers=256",
                  "human,ismcts:workers=99999999999999999999", "human,ismcts:workers=-1"]:
        error = one_line_error(client.post("/api/games", json={"seats": seats}), 400)
        assert "workers=" in error and str(top) in error, (seats, error)
    r = client.post("/api/games", json={"seats": f"human,ismcts:iterations=10,workers={min(2, top)}"})
    assert r.status_code == 200, r.text


def test_no_route_opens_a_path_from_a_request(client, tmp_path, monkeypatch):
    targets = _targets(tmp_path)
    spy = FileSpy(monkeypatch, *targets.values(), "probe")
    record = GAME.read_text()
    for path in targets.values():
        # resume: by a listed id only
        for body in [{"file": path}, {"file": "../" + Path(path).name}, {"file": [path]}, {"path": path}]:
            one_line_error(client.post("/api/games/resume", json=body), 400, 404)
        # open / paste: the name is a label
        r = client.post("/api/open", json={"name": path, "text": record})
        assert r.status_code == 200 and r.json()["name"] == Path(path).name
        one_line_error(client.post("/api/open", json={"path": path}), 400)
        one_line_error(client.post(f"/api/docs/{client.did}/review", json={"name": path, "file": path}), 400)
        one_line_error(client.post("/api/analysis", json={"doc": path, "node": 1}), 404)
        one_line_error(client.get(f"/api/docs/{path.replace('/', '%2F')}"), 404)
        one_line_error(client.post("/api/games", json={"seats": "human,random", "file": path}), 400)
    assert spy.seen == []


# ---------------------------------------------------------------- bodies

HOSTILE = {
    "huge int": b'{"seats": "human,random", "seed": 1' + b"0" * 5000 + b"}",
    "huge int in a list": b"[" + b"9" * 5000 + b"]",
    "deep": b"[" * 100_000 + b"]" * 100_000,
    "deep objects": b'{"a":' * 50_000 + b"1" + b"}" * 50_000,
    "duplicate key": b'{"seats": "human,random", "seats": "human,heuristic"}',
    "nan": b'{"seats": "human,random", "seed": NaN}',
    "infinity": b'{"action": Infinity}',
    "minus infinity": b'{"node": -Infinity}',
    "overflow": b'{"action": 1e999}',
    "long float": b'{"action": 1.' + b"5" * 5000 + b"}",
    "not utf-8": b'{"name": "\xff\xfe"}',
    "empty": b"",
    "truncated": b'{"seats": ',
    "bom": b'\xef\xbb\xbf{"seats": "human,random"}',
    "null byte": b'{"seats": "human,random"}\x00',
    "lone surrogate": b'{"name": "\\ud800", "text": "{}"}',
}


def _routes(client) -> list[str]:
    game = client.post("/api/games", json={"seats": "human,random"}).json()["game"]
    return ["/api/open", f"/api/docs/{client.did}/nodes/4/play", f"/api/docs/{client.did}/review", "/api/analysis",
            "/api/games", "/api/games/resume", f"/api/games/{game}/decide", f"/api/games/{game}/advance",
            f"/api/games/{game}/undo", f"/api/games/{game}/explore"]


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_hostile_bodies_get_a_one_line_4xx_on_every_route(client, kind):
    routes = _routes(client)
    before = _state(client)
    for path in routes:
        r = client.post(path, content=HOSTILE[kind], headers={"content-type": "application/json"})
        err = one_line_error(r, 400)
        assert err.startswith("malformed JSON in the request body"), (path, err)
    assert _state(client) == before


def test_hostile_files_pasted_are_refused_by_name(client):
    before = _state(client)
    for text in ['{"format": "kwsearch-game/1", "players": 1' + "0" * 5000 + "}", "[" * 100_000,
                 '{"format": "kwsearch-game/1", "format": "kwsearch-position/1"}', '{"players": NaN}',
                 '{"players": 1e999}', '"\\ud800"', '{"format": "kwsearch-game/1", "x\\udfff": 1}', "", "null", "[]",
                 "5", '"text"']:
        for path in ("/api/open", f"/api/docs/{client.did}/review"):
            err = one_line_error(client.post(path, json={"name": "upload.json", "text": text}), 400, 409)
            assert err.startswith("upload.json: "), err
    assert _state(client) == before


def test_fields_of_the_wrong_type_or_range_on_every_route(client):
    routes = _routes(client)
    game = routes[6].split("/")[3]
    did = client.did
    cases = {
        "/api/open": [{"text": 5}, {"text": None}, {"text": ["{}"]}, {"name": 5}, {"name": {"a": 1}, "text": "{}"},
                      {"text": "{}", "doc": 5}, {"text": REVIEW.read_text(), "doc": ["x"]}, [], "x", 5, None],
        f"/api/docs/{did}/nodes/4/play": [{"action": 2 ** 62}, {"action": -1}, {"action": 1.0}, {"action": "8"},
                                          {"action": None}, {"action": [8]}, {"action": {"a": 8}},
                                          {"moves": [1, 2]}, {"moves": []}, {"moves": ["x"] * 300},
                                          {"moves": ["x" * 500]}, {"moves": None}, {"action": 8, "moves": ["x"]},
                                          {}, [], 5],
        f"/api/docs/{did}/review": [{"text": 5}, {"text": "{}"}, {"name": [1], "text": "[]"}, [], None],
        "/api/analysis": [{"doc": did, "node": "5"}, {"doc": did, "node": -1}, {"doc": did, "node": 2 ** 63},
                          {"doc": did, "node": 4.0}, {"doc": did, "node": True}, {"doc": did, "node": None},
                          {"doc": did}, {"doc": 5, "node": 1}, {"doc": [did], "node": 1}, {"game": 5},
                          {"game": None}, {"game": [game]}, {"node": 1}, {"doc": did, "node": 1, "x": 1}, {}, [], 5],
        "/api/games": [{"seats": 5}, {"seats": ["human", "random"]}, {"seats": "human,random", "seed": 2 ** 64},
                       {"seats": "human,random", "seed": -1}, {"seats": "human,random", "seed": 1.5},
                       {"seats": "human,random", "seed": "1"}, {"seats": "human,random", "seed": True},
                       {"seats": "human,random", "names": [1, 2]}, {"seats": "human,random", "names": ["a" * 30, "b"]},
                       {"seats": "human,random", "mirror": 1}, {"seats": "human,random", "v6": None},
                       {"seats": "human,human", "mirror": True, "setup": [1]},
                       {"seats": "human,human", "mirror": True, "setup": {"chain": 5}},
                       {"seats": "human,human", "mirror": True, "setup": {"chain": "x" * 500}},
                       {"seats": "human,human", "mirror": True, "setup": {"chain": "99 99 99"}},
                       {"seats": "human,ismcts:seconds=nan"}, {"seats": "human,ismcts:iterations=" + "9" * 30},
                       {"seats": "human," * 300 + "random"}, [], 5, None],
        "/api/games/resume": [{"file": 5}, {"file": None}, {"file": ["x"]}, {"file": "x"}, {}, [], "x"],
        f"/api/games/{game}/decide": [{"seat": "0", "action": 1}, {"seat": 0, "action": 1.0},
                                      {"seat": 2 ** 70, "action": 1}, {"seat": -1, "action": 1},
                                      {"seat": 0, "action": 2 ** 70}, {"seat": 1, "action": 1},
                                      {"seat": 0, "action": 1, "answers": "x"},
                                      {"seat": 0, "action": 1, "answers": [1]},
                                      {"seat": 0, "action": 1, "answers": ["x"] * 20},
                                      {"seat": 0, "action": 1, "extra": 1}, {"seat": None, "action": None}, {}, [], 5],
    }
    before = _state(client)
    for path, bodies in cases.items():
        for body in bodies:
            r = client.post(path, content=json.dumps(body), headers={"content-type": "application/json"})
            one_line_error(r, 400, 403, 404, 409)
    assert _state(client) == before
    for path in ["/api/docs/x/nodes/" + "9" * 5000, "/api/docs/" + "x" * 5000, f"/api/docs/{did}/nodes/" + "9" * 40,
                 f"/api/games/{'g' * (MAX_PATH + 1)}", "/static/" + "a" * 5000, "/api/nothing"]:
        one_line_error(client.get(path), 404, 414)
    one_line_error(client.get("/api/open"), 405)


# ---------------------------------------------------------------- kwsearch serve's options

@pytest.mark.parametrize("args", [["--analysis-seconds", "nan"], ["--analysis-seconds", "inf"],
                                  ["--analysis-seconds", "-inf"], ["--analysis-seconds", "-5"],
                                  ["--analysis-seconds", "0"], ["--analysis-seconds", "0.5"],
                                  ["--analysis-seconds", "1e400"], ["--analysis-seconds", "86401"],
                                  ["--analysis-seconds", "soon"], ["--max-analyses", "0"], ["--max-analyses", "-1"],
                                  ["--max-analyses", "65"], ["--max-analyses", "1" + "0" * 30],
                                  ["--max-analyses", "nan"], ["--seed", str(2 ** 64)], ["--port", "-1"],
                                  ["--port", "65536"]])
def test_serve_refuses_options_out_of_range(args, tmp_path, monkeypatch):
    import uvicorn
    monkeypatch.setattr(uvicorn.Server, "run", lambda self: pytest.fail("the server must not start"))
    r = cli_runner().invoke(main, ["serve", "--games-dir", str(tmp_path), *args], catch_exceptions=False)
    assert r.exit_code == 2 and "Traceback" not in r.output + r.stderr
    errors = [line for line in r.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and f"Invalid value for '{args[0]}'" in errors[0], r.stderr  # click's usage error


def test_serve_answers_to_the_host_it_is_given(tmp_path, monkeypatch):
    import uvicorn
    seen: dict[str, int] = {}

    def run(self):
        with TestClient(self.config.app, base_url=f"http://kwboard.lan:{self.config.port}") as c:
            seen["own"] = c.get("/api/info").status_code
            seen["loopback"] = c.get("/api/info", headers={"host": f"localhost:{self.config.port}"}).status_code
            seen["foreign"] = c.get("/api/info", headers={"host": f"evil.example:{self.config.port}"}).status_code
            seen["seconds"] = c.get("/api/info").json()["analysis_seconds"]
    monkeypatch.setattr(uvicorn.Server, "run", run)
    r = cli_runner().invoke(main, ["serve", "--host", "kwboard.lan", "--port", "8123", "--games-dir", str(tmp_path),
                                   "--analysis-seconds", "30", "--max-analyses", "64"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert seen == {"own": 200, "loopback": 200, "foreign": 403, "seconds": 30}


def test_serve_on_port_0_says_the_port_it_listens_on(tmp_path):
    import httpx
    env = subprocess_env()  # the kwsearch under test: installed in CI, the checkout's build when developing
    proc = subprocess.Popen([sys.executable, "-P", "-m", "kwsearch.cli", "serve", "--port", "0", "--games-dir",
                             str(tmp_path)], cwd=str(tmp_path), env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("kwsearch analysis board on http://127.0.0.1:"), line
        url = line.split(" on ", 1)[1].split(" ", 1)[0]
        port = int(url.rstrip("/").rsplit(":", 1)[1])
        assert port != 0
        with httpx.Client(base_url=url, timeout=10) as c:
            assert c.get("/api/info").status_code == 200
            r = c.get("/api/info", headers={"host": f"evil.example:{port}"})  # the real server's own port check
            assert r.status_code == 403 and "Host" in r.json()["error"]
            assert c.get("/api/info", headers={"host": f"localhost:{port}"}).status_code == 200
            assert c.get("/api/info", headers={"host": f"localhost:{port + 1}"}).status_code == 403
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
