"""Fuzz targets for the analysis board's requests (``kwsearch serve``, issue 27).

Bodies for the board's ``POST`` routes — objects shaped like each route's own
(its fields with random values, the server's real ids among them), random JSON,
mutated valid bodies, raw text and bytes, the hostile texts (5,000 digits, deep
nesting, duplicate keys, NaN) — go to the app under Starlette's TestClient; and
random ``Host`` headers go to the app as they are.

The property: every answer is JSON; a refusal is a 4xx whose ``error`` is one
line, never a 5xx; a seat that names a weights file is refused and no file a
request names is looked at; a ``Host`` that is not a name of this machine is
refused.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import os
import re
from pathlib import Path

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from fuzzing import FUZZ, VOCAB, json_values, mutate

from helpers import web_test_client  # noqa: E402

TestClient = web_test_client()

from kwsearch.web.app import WebConfig, create_app  # noqa: E402

pytestmark = pytest.mark.one_engine

ROOT = Path(__file__).resolve().parents[2]
GAME = ROOT / "examples" / "game-2p.json"
REVIEW = ROOT / "examples" / "game-2p.review.json"
POSITION = ROOT / "examples" / "midgame-4p.json"

#: Paths a request may name; the server must never look at them.
PROBES = ["/etc/passwd", "/nonexistent/kwsearch-probe.json", "kwsearch-probe.json", "/dev/zero"]

SEATS = ["human,random", "human,heuristic", "human,human", "human,random,random", "random,random",
         "human,ismcts:iterations=4", "human,ismcts:iterations=4,prior=1", "human,ismcts:cutoff=3,eval=tempo,"
         "iterations=4", "human,nobot", "human", ""] + \
    [f"human,ismcts:iterations=4,prior=1,priorw={p}" for p in PROBES] + \
    [f"human,ismcts:cutoff=3,iterations=4,eval={p}" for p in PROBES] + [f"human,priorw={p}" for p in PROBES]

HOSTILE = [b'{"a": 1' + b"0" * 5000 + b"}", b"[" * 100_000, b'{"a": 1, "a": 2}', b'{"a": NaN}', b'{"a": -Infinity}',
           b'{"a": 1e999}', b"", b"\xff\xfe", b'{"a": "\\ud800"}', b"null", b"[]", b'"x"']


@pytest.fixture(scope="module")
def web(tmp_path_factory):
    games = tmp_path_factory.mktemp("games")
    app = create_app(WebConfig(games_dir=games, max_analyses=1, analysis_seconds=1, update_interval=0.1),
                     files=[("game-2p.json", json.loads(GAME.read_text()))])
    with TestClient(app, base_url="http://127.0.0.1:8000") as c:
        c.did = c.get("/api/info").json()["first"]
        c.gid = c.post("/api/games", json={"seats": "human,random", "seed": 3}).json()["game"]
        c.fid = c.get("/api/games").json()["files"][0]["id"]
        yield c


class Spy:
    """Records every stat or open of a path that names a probe."""

    def __init__(self, monkeypatch):
        self.seen: list[str] = []
        for name in ("stat", "lstat", "open"):
            monkeypatch.setattr(os, name, self._wrap(getattr(os, name)))

    def _wrap(self, real):
        def spy(path, *args, **kwargs):
            text = os.fsdecode(path) if isinstance(path, (str, bytes, os.PathLike)) else ""
            if "kwsearch-probe" in text or text in PROBES:
                self.seen.append(text)
            return real(path, *args, **kwargs)
        return spy


def _ids(web) -> st.SearchStrategy:
    return st.sampled_from([web.did, web.gid, web.fid, "x", "", "../x", *PROBES]) | st.text(max_size=12)


def _values(web) -> st.SearchStrategy:
    return (json_values | _ids(web) | st.integers(-3, 300) | st.sampled_from([2 ** 63, -2 ** 63, 10 ** 24, 1e300])
            | st.lists(st.sampled_from(VOCAB + ["tile 3", "market pass", "Horch"]), max_size=4))


def _shape(data, web, fields: dict[str, st.SearchStrategy]) -> dict:
    """An object with some of the route's fields (random values) and now and then a field of no route."""
    keys = data.draw(st.lists(st.sampled_from(sorted(fields)), unique=True, max_size=len(fields)),
                     label="fields") if fields else []
    out = {k: data.draw(fields[k] | _values(web), label=k) for k in keys}
    if data.draw(st.integers(0, 9), label="extra?") == 0:
        out[data.draw(st.sampled_from(["path", "file", "x", "seats"]), label="extra")] = data.draw(_values(web))
    return out


def _routes(web) -> dict[str, tuple[dict, dict[str, st.SearchStrategy]]]:
    """Each route: a body it accepts, and its fields with the values worth trying."""
    record, review = GAME.read_text(), REVIEW.read_text()
    texts = st.sampled_from([record, review, POSITION.read_text(), "{}", "[]", "{\"format\": "]) | st.text(max_size=20)
    node = st.integers(-2, 90)
    return {
        "/api/open": ({"name": "g.json", "text": record},
                      {"name": st.sampled_from(["g.json", *PROBES]) | st.text(max_size=8), "text": texts,
                       "doc": _ids(web)}),
        f"/api/docs/{web.did}/nodes/{{node}}/play": ({"action": 8},
                                                     {"action": st.integers(-2, 200), "moves": st.lists(
                                                         st.sampled_from(["tile 3", "tile 0", "market pass",
                                                                          "do hire", ""]) | st.text(max_size=8),
                                                         max_size=5)}),
        f"/api/docs/{web.did}/review": ({"name": "r.json", "text": review}, {"name": st.text(max_size=8),
                                                                            "text": texts}),
        # no real document or game: a body that started an analysis would stream for a second
        "/api/analysis": ({"doc": "x", "node": 4}, {"doc": st.text(max_size=8), "node": node,
                                                    "game": st.text(max_size=8)}),
        "/api/games": ({"seats": "human,random"}, {"seats": st.sampled_from(SEATS) | st.text(max_size=20),
                                                   "seed": st.integers(-2, 2 ** 64), "v6": st.booleans(),
                                                   "mirror": st.booleans(), "names": st.lists(st.text(max_size=4),
                                                                                              max_size=5),
                                                   "setup": st.dictionaries(st.sampled_from(["chain", "offered",
                                                                                             "display"]),
                                                                            st.text(max_size=12), max_size=3)}),
        "/api/games/resume": ({"file": web.fid}, {"file": _ids(web)}),
        f"/api/games/{web.gid}/decide": ({"seat": 0, "action": 8},
                                         {"seat": st.integers(-1, 4), "action": st.integers(-1, 200),
                                          "answers": st.lists(st.sampled_from(["Horch", "Otto", "A"]), max_size=3)}),
        f"/api/games/{web.gid}/advance": ({}, {}),
        f"/api/games/{web.gid}/undo": ({}, {}),
        f"/api/games/{web.gid}/explore": ({}, {}),
    }


def check_answer(r) -> dict | list | None:
    """2xx or 4xx, never 5xx; JSON; a refusal's ``error`` is one line."""
    assert r.status_code < 500, (r.status_code, r.text[:300])
    assert r.headers["content-type"].startswith("application/json"), r.headers["content-type"]
    body = r.json()
    if r.status_code >= 400:
        err = body["error"]
        assert isinstance(err, str) and err and "\n" not in err, err
        event(f"refused {r.status_code}")
    else:
        event("accepted")
    return body


@FUZZ
@given(data=st.data())
def test_fuzz_web_bodies(web, data, monkeypatch):
    spy = Spy(monkeypatch)
    routes = _routes(web)
    path = data.draw(st.sampled_from(sorted(routes)), label="route")
    valid, fields = routes[path]
    path = path.replace("{node}", str(data.draw(st.integers(0, 80) | st.sampled_from([10 ** 30, 2 ** 63]),
                                                label="node")))
    how = data.draw(st.sampled_from(["shape", "shape", "mutate", "json", "text", "bytes", "hostile"]), label="how")
    if how == "shape":
        body = json.dumps(_shape(data, web, fields))
    elif how == "mutate":
        body = json.dumps(mutate(data, valid))
    elif how == "json":
        body = json.dumps(data.draw(json_values, label="body"))
    elif how == "text":
        body = data.draw(st.text(max_size=40), label="body")
    elif how == "bytes":
        body = data.draw(st.binary(max_size=40), label="body")
    else:
        body = data.draw(st.sampled_from(HOSTILE), label="body")
    r = web.post(path, content=body.encode("utf-8", "surrogatepass") if isinstance(body, str) else body,
                 headers={"content-type": "application/json"})
    answer = check_answer(r)
    sent = body if isinstance(body, str) else body.decode("utf-8", "replace")
    if path == "/api/games" and any(f"{k}={p}" in sent for p in PROBES for k in ("priorw", "eval")):
        assert r.status_code == 400 and "names a file" in answer["error"], answer
    assert spy.seen == []


_PIECES = ["127.0.0.1", "localhost", "[::1]", ":8000", ":80", ":", "evil.example", ".", "@", "[", "]", "127.",
           "0", "1", "255", "::1", "LOCALHOST", " ", "%", "\\", "/", "#", "0.0.0.0", "2130706433", "xn--"]


def _loopback_name(host: str) -> bool:
    """The oracle, written apart from the guard: a loopback name, with the server's port or none."""
    m = re.fullmatch(r"(localhost|\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-f:.]+\])(:8000)?", host.strip().lower())
    if m is None:
        return False
    name = m.group(1)
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name.strip("[]")).is_loopback
    except ValueError:
        return False


def _asgi(app, host: bytes) -> int:
    scope = {"type": "http", "http_version": "1.1", "method": "GET", "path": "/api/info", "raw_path": b"/api/info",
             "root_path": "", "scheme": "http", "query_string": b"", "headers": [(b"host", host)],
             "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8000)}
    sent: list[dict] = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    start = next(m for m in sent if m["type"] == "http.response.start")
    if start["status"] != 200:
        body = json.loads(b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body"))
        assert "\n" not in body["error"]
    return start["status"]


@FUZZ
@given(pieces=st.lists(st.sampled_from(_PIECES) | st.text(max_size=4), max_size=6))
def test_fuzz_host_header(web, pieces):
    host = "".join(pieces)
    raw = host.encode("utf-8", "surrogatepass")
    status = _asgi(web.app, raw)
    assert status in (200, 400, 403), status
    if status == 200:
        assert _loopback_name(raw.decode("latin-1")), host
    if host.strip().lower() in ("127.0.0.1:8000", "localhost", "localhost:8000", "[::1]:8000", "127.0.0.1"):
        assert status == 200, host
    event("accepted" if status == 200 else "refused")
