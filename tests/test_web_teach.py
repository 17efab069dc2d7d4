"""Teaching mode through the board's HTTP API (kwsearch.web.games.Teacher) under Starlette's TestClient:
the settings checked, the verdict in the game's view once the check is done, the bots waiting for it,
a verdict gone with the decision it was about, nothing of the deck given away."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from helpers import (TEACH_BAD, TEACH_BEST, TEACH_PLAYERS, TEACH_SEAT, TEACH_SEATS, TEACH_SEED,  # noqa: E402
                     web_test_client)

TestClient = web_test_client()

from kwsearch.game import Game  # noqa: E402
from kwsearch.teach import TeachSettings, check_decision  # noqa: E402
from kwsearch.web.app import WebConfig, create_app  # noqa: E402

pytestmark = pytest.mark.one_engine

# the planted mistake of tests/helpers.py: after BAD a bot moves, after BEST the human moves again
SEATS, SEED, SEAT, PLAYERS, BAD, BEST = TEACH_SEATS, TEACH_SEED, TEACH_SEAT, TEACH_PLAYERS, TEACH_BAD, TEACH_BEST


@pytest.fixture
def client(tmp_path):
    app = create_app(WebConfig(games_dir=tmp_path, max_analyses=1, analysis_seconds=30))
    with TestClient(app, base_url="http://127.0.0.1:8000") as c:
        c.folder = tmp_path
        yield c


def new_game(client, **teach):
    r = client.post("/api/games", json={"seats": SEATS, "seed": SEED, "teach": teach})
    assert r.status_code == 200, r.text
    return r.json()


def action_of(view, text):
    return next(o["action"] for o in view["legal"] if o["text"] == text)


def settle(client, gid, timeout=60.0):
    deadline = time.monotonic() + timeout
    while True:
        view = client.get(f"/api/games/{gid}").json()
        if not view["teach"]["checking"]:
            return view
        assert time.monotonic() < deadline, "the check did not end"
        time.sleep(0.05)


def test_a_mistake_is_flagged_and_gone_after_the_take_back(client):
    view = new_game(client)
    assert view["teach"] == {"threshold": "mistake", "iterations": 5000, "seed": 0, "checking": False,
                             "verdict": None, "flagged": None}
    gid = view["game"]
    out = client.post(f"/api/games/{gid}/decide", json={"seat": SEAT, "action": action_of(view, BAD)}).json()
    assert out["bot_to_move"] and len(out["moves"]) == 1
    view = settle(client, gid)
    flagged = view["teach"]["flagged"]
    st = Game(PLAYERS).new_initial_state(SEED, engine="reference")
    want = check_decision(st, st.parse_move(BAD), 0, TeachSettings())
    assert flagged == json.loads(json.dumps(want.to_json())) and view["teach"]["verdict"] == flagged
    assert flagged["fires"] and flagged["best"] == BEST and flagged["message"].endswith("was better.")
    assert len(view["moves"]) == 1  # nothing moved while the check ran
    undo = client.post(f"/api/games/{gid}/undo", json={}).json()
    assert undo["moves"] == [] and undo["teach"]["flagged"] is None and undo["teach"]["verdict"] is None
    # the same decision again: its verdict again (same settings, same seed), then the best one
    client.post(f"/api/games/{gid}/decide", json={"seat": SEAT, "action": action_of(undo, BAD)})
    assert settle(client, gid)["teach"]["flagged"] == flagged
    client.post(f"/api/games/{gid}/undo", json={})
    client.post(f"/api/games/{gid}/decide", json={"seat": SEAT, "action": action_of(undo, BEST)})
    view = settle(client, gid)
    assert view["teach"]["flagged"] is None and view["teach"]["verdict"]["played"] == BEST
    assert not view["teach"]["verdict"]["fires"]


def test_the_bots_wait_for_the_check(client):
    view = new_game(client, threshold="blunder", iterations=20000)  # the mistake is told only at "mistake"
    gid = view["game"]
    out = client.post(f"/api/games/{gid}/decide", json={"seat": SEAT, "action": action_of(view, BAD)}).json()
    assert out["bot_to_move"] and out["teach"]["checking"]
    out = client.post(f"/api/games/{gid}/advance", json={}).json()   # asked at once: waits for the verdict
    assert len(out["moves"]) == 2 and not out["teach"]["checking"]
    assert out["teach"]["verdict"]["ply"] == 0 and out["teach"]["verdict"]["played"] == BAD
    assert out["teach"]["verdict"]["iterations"] == 20000 and not out["teach"]["verdict"]["fires"]


def test_the_view_and_the_record_hold_nothing_of_the_deck(client):
    view = new_game(client)
    gid = view["game"]
    client.post(f"/api/games/{gid}/decide", json={"seat": SEAT, "action": action_of(view, BAD)})
    view = settle(client, gid)
    text = json.dumps(view["teach"])
    assert "deck" not in text and "seed\": 0" in text  # the check's own seed (the review's), never the game's
    rec = client.get(f"/api/games/{gid}/record.json").json()
    assert "seed" not in rec and "teach" not in rec


@pytest.mark.parametrize("teach, message", [
    ({"threshold": "bad"}, "teach.threshold: expected one of inaccuracy, mistake, blunder, got 'bad'"),
    ({"iterations": 0}, "teach.iterations: expected an integer from 1 to 1,000,000, got 0"),
    ({"iterations": None}, "teach.iterations: expected an integer"),
    ({"file": "/etc/passwd"}, "teach: unknown field 'file'"),
    ("mistake", "teach: expected an object"),
])
def test_bad_teaching_settings_are_refused(client, teach, message):
    r = client.post("/api/games", json={"seats": SEATS, "teach": teach})
    assert r.status_code == 400 and r.json()["error"].startswith(message)
    assert not list(Path(client.folder).glob("kwsearch-game-*.json"))  # no game file left behind


def test_teaching_needs_a_human_seat(client):
    r = client.post("/api/games", json={"seats": "heuristic,random", "teach": {}})
    assert r.status_code == 400 and r.json()["error"] == "teach: no human seat to teach (the seats are all bots)"


def test_a_game_without_teaching_has_no_teach_view(client):
    r = client.post("/api/games", json={"seats": SEATS, "seed": SEED})
    assert r.json()["teach"] is None
    r = client.post("/api/games", json={"seats": SEATS, "seed": SEED, "teach": None})
    assert r.json()["teach"] is None
