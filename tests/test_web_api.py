"""The analysis board's HTTP API (kwsearch.web.app) under Starlette's TestClient.

Forged and malformed requests must get a clear 4xx and leave every game and
document as it was; the page must never receive the deck order.
"""

from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path

import pytest

from helpers import web_test_client  # noqa: E402

TestClient = web_test_client()

from click.testing import CliRunner  # noqa: E402

from helpers import ANALYSIS_VERIFIED_MOVE, check_analysis_fields  # noqa: E402
from kwsearch.cli import main  # noqa: E402
from kwsearch.formats import check_position  # noqa: E402
from kwsearch.records import replay  # noqa: E402
from kwsearch.web.app import WebConfig, create_app  # noqa: E402
from kwsearch.web.documents import state_view  # noqa: E402
from kwsearch.web.engine_bridge import VERIFY_CHUNK_MAX  # noqa: E402
from kwsearch.web.browser import free_port  # noqa: E402
from kwsearch.web.server import host_warning, is_loopback  # noqa: E402

pytestmark = pytest.mark.one_engine

ROOT = Path(__file__).resolve().parent.parent
GAME = ROOT / "examples" / "game-2p.json"
REVIEW = ROOT / "examples" / "game-2p.review.json"
POSITION = ROOT / "examples" / "midgame-4p.json"


def _record():
    return json.loads(GAME.read_text())


def _last() -> int:
    """The node of the bundled game's final position: one node per decision after the set-up."""
    return sum(1 for e in _record()["events"] if not e.startswith("reveal"))


@pytest.fixture
def client(tmp_path):
    app = create_app(WebConfig(games_dir=tmp_path, max_analyses=1, analysis_seconds=30, update_interval=0.1),
                     files=[("game-2p.json", _record())])
    with TestClient(app, base_url="http://127.0.0.1:8000") as c:  # a Host the board answers
        c.board = app.state.board
        c.folder = tmp_path
        yield c


def _doc(client):
    return client.get("/api/info").json()["first"]


def _events(client, body):
    """(event, data) pairs of an analysis stream, read until the caller stops."""
    with client.stream("POST", "/api/analysis", json=body) as r:
        assert r.status_code == 200, r.read()
        event = None
        for line in r.iter_lines():
            if line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("data:"):
                yield event, json.loads(line[5:])


# ---------------------------------------------------------------- documents

def test_info_and_record_document(client):
    info = client.get("/api/info").json()
    assert info["first"] and info["docs"][0]["name"] == "game-2p.json"
    doc = client.get(f"/api/docs/{info['first']}").json()
    assert doc["kind"] == "record" and doc["names"] == ["red", "blue"]
    main = [n for n in doc["nodes"] if n["main"]]
    assert len(main) == 1 + sum(1 for e in _record()["events"] if not e.startswith("reveal"))
    # The first decision that turns up research cards carries its reveal event (node 0 is the set-up).
    events = _record()["events"]
    at = next(i for i, e in enumerate(events[:-1]) if not e.startswith("reveal") and events[i + 1].startswith("reveal"))
    node = main[1 + sum(1 for e in events[:at] if not e.startswith("reveal"))]
    assert node["move"] == events[at] and node["reveals"] == [events[at + 1]]


def test_node_views_follow_the_record(client):
    did = _doc(client)
    rec = _record()
    a = client.get(f"/api/docs/{did}/nodes/4").json()
    b = client.get(f"/api/docs/{did}/nodes/5").json()
    assert a["svg"].startswith("<svg") and a["svg"] != b["svg"]
    state = replay(rec, upto=4)
    assert a["to_move"] == state.current_player()
    assert [o["text"] for o in a["legal"]] == [state.action_to_text(x) for x in state.legal_actions()]
    last = _last()
    end = client.get(f"/api/docs/{did}/nodes/{last}").json()
    assert end["terminal"] and end["money"] == replay(rec).money() and end["legal"] == []
    assert client.get(f"/api/docs/{did}/nodes/{last + 1}").status_code == 404


def test_what_if_branches_are_variations(client):
    did = _doc(client)
    view = client.get(f"/api/docs/{did}/nodes/5").json()
    main_next = client.get(f"/api/docs/{did}").json()["nodes"][5]["children"][0]
    main_move = client.get(f"/api/docs/{did}").json()["nodes"][main_next]["move"]
    other = next(o for o in view["legal"] if o["text"] != main_move)
    r = client.post(f"/api/docs/{did}/nodes/5/play", json={"action": other["action"]})
    assert r.status_code == 200
    new = r.json()["node"]
    nodes = r.json()["doc"]["nodes"]
    assert nodes[5]["children"] == [main_next, new] and not nodes[new]["main"] and nodes[new]["move"] == other["text"]
    # the same decision again is the same node, not a copy
    assert client.post(f"/api/docs/{did}/nodes/5/play", json={"action": other["action"]}).json()["node"] == new
    # a line of moves in text notation (what "play the best plan" sends)
    legal = client.get(f"/api/docs/{did}/nodes/{new}").json()["legal"]
    r = client.post(f"/api/docs/{did}/nodes/{new}/play", json={"moves": [legal[0]["text"]]})
    assert r.status_code == 200 and r.json()["doc"]["nodes"][r.json()["node"]]["parent"] == new
    # a branch of a record saves as a record that replays to the same place
    rec = client.get(f"/api/docs/{did}/nodes/{new}/record.json").json()
    st = replay(rec)
    assert st.observation() == json.loads(client.get(f"/api/docs/{did}/nodes/{new}/position.json").text)


def test_illegal_and_malformed_moves_change_nothing(client):
    did = _doc(client)
    before = client.get(f"/api/docs/{did}").json()
    for body, status in [({"action": 99999}, 400), ({"action": "tile 3"}, 400), ({"action": True}, 400),
                         ({"moves": ["tile 0", "no such move"]}, 400), ({"moves": "tile 0"}, 400),
                         ({"action": 8, "path": "/etc/passwd"}, 400), ([1, 2], 400)]:
        r = client.post(f"/api/docs/{did}/nodes/5/play", json=body)
        assert r.status_code == status, body
        assert r.json()["error"]
    r = client.post(f"/api/docs/{did}/nodes/{_last()}/play", json={"action": 8})
    assert r.status_code == 409 and "over" in r.json()["error"]
    assert client.get(f"/api/docs/{did}").json() == before


def test_downloads(client):
    did = _doc(client)
    r = client.get(f"/api/docs/{did}/nodes/20/position.json")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    pos = r.json()
    assert "hidden" not in pos and check_position(pos) == []
    rec = client.get(f"/api/docs/{did}/nodes/{_last()}/record.json").json()
    assert rec["events"] == _record()["events"] and replay(rec).money() == replay(_record()).money()


def test_upload_position_and_errors(client):
    text = POSITION.read_text()
    r = client.post("/api/open", json={"name": "../../etc/passwd", "text": text})
    assert r.status_code == 200
    doc = r.json()
    assert doc["kind"] == "position" and doc["name"] == "passwd"  # a label, never a path that is opened
    assert client.get(f"/api/docs/{doc['id']}/nodes/0/record.json").status_code == 409
    r = client.post("/api/open", json={"name": "broken.json", "text": "{\"format\": "})
    assert r.status_code == 400 and r.json()["error"].startswith("broken.json: not valid JSON")
    r = client.post("/api/open", json={"name": "x.json", "text": json.dumps({"format": "kwsearch-game/9"})})
    assert r.status_code == 400 and "format" in r.json()["error"]
    bad = _record()
    bad["events"][4] = "tile 77"
    r = client.post("/api/open", json={"name": "bad.json", "text": json.dumps(bad)})
    assert r.status_code == 400 and "bad.json" in r.json()["error"] and "event 4" in r.json()["error"]
    assert client.post("/api/open", json={"path": "/etc/passwd"}).status_code == 400


def test_request_hygiene(client):
    did = _doc(client)
    url = f"/api/docs/{did}/nodes/5/play"
    r = client.post(url, content=b"{\"action\": 8", headers={"content-type": "application/json"})
    assert r.status_code == 400 and "malformed JSON" in r.json()["error"]
    r = client.post(url, content=b"action=8", headers={"content-type": "application/x-www-form-urlencoded"})
    assert r.status_code == 415
    r = client.post(url, json={"action": 8}, headers={"origin": "http://evil.example"})
    assert r.status_code == 403
    big = b"[" + b"0," * 1_100_000 + b"0]"
    r = client.post("/api/open", content=big, headers={"content-type": "application/json"})
    assert r.status_code == 413
    assert client.get("/api/docs/..%2F..%2Fetc%2Fpasswd").status_code == 404
    assert client.get("/static/../../pyproject.toml").status_code == 404


def test_review_graph_and_marks(client, tmp_path):
    did = _doc(client)
    review = json.loads(REVIEW.read_text())
    r = client.post("/api/open", json={"name": "game-2p.review.json", "text": REVIEW.read_text(), "doc": did})
    assert r.status_code == 200
    rev = r.json()["review"]
    assert len(rev["points"]) == len(review["decisions"])
    nodes = r.json()["nodes"]
    for p, d in zip(rev["points"], review["decisions"]):
        assert nodes[p["node"]]["move"] == d["played"] and p["mark"] == d["cls"]
        assert p["win"] == d.get("played_win_all", d["win_all"])  # verified: after the move played
    assert {s["seat"] for s in rev["summary"]} == {0, 1}
    # a review of another game is refused, naming the file and the first difference
    other = json.loads(REVIEW.read_text())
    other["decisions"][3]["played"] = "tile 9"
    r = client.post(f"/api/docs/{did}/review", json={"name": "other.json", "text": json.dumps(other)})
    assert r.status_code == 400 and r.json()["error"].startswith("other.json: the review is not of game-2p.json")
    r = client.post("/api/open", json={"name": "r.json", "text": REVIEW.read_text()})
    assert r.status_code == 400 and "open its game record first" in r.json()["error"]
    # given on the command line: kwsearch serve GAME --review REVIEW
    app = create_app(WebConfig(games_dir=tmp_path), files=[("game-2p.json", _record())], review=("rev.json", review))
    with TestClient(app, base_url="http://127.0.0.1:8000") as c2:
        first = c2.get("/api/info").json()["first"]
        assert len(c2.get(f"/api/docs/{first}").json()["review"]["points"]) == _last()


def test_scoring_breakdowns_in_views(client):
    did = _doc(client)
    nodes = client.get(f"/api/docs/{did}").json()["nodes"]
    assert client.get(f"/api/docs/{did}/nodes/3").json()["scoring"] is None
    end = client.get(f"/api/docs/{did}/nodes/{len(nodes) - 1}").json()
    sc = end["scoring"]
    assert sc["final"] and sc["round"] == 3 and sc["lines"][0] == "Scoring of round 3"
    assert [s["after"] for s in sc["seats"]] == end["money"]
    assert all(sum(v for _, v in s["items"]) == s["after"] - s["before"] for s in sc["seats"])
    # a what-if branch of a position document explains its own scorings
    pos = client.post("/api/open", json={"name": "mid.json", "text": POSITION.read_text()}).json()
    node, view = 0, client.get(f"/api/docs/{pos['id']}/nodes/0").json()
    start_round = view["round"]
    rng = random.Random(1)
    while view["round"] == start_round and not view["terminal"]:
        pick = rng.choice(view["legal"])["action"]
        node = client.post(f"/api/docs/{pos['id']}/nodes/{node}/play", json={"action": pick}).json()["node"]
        view = client.get(f"/api/docs/{pos['id']}/nodes/{node}").json()
    assert view["scoring"]["round"] == start_round
    assert all(sum(v for _, v in s["items"]) == s["after"] - s["before"] for s in view["scoring"]["seats"])


# ---------------------------------------------------------------- games

def _new_game(client, seats="human,random", seed=3, **extra):
    r = client.post("/api/games", json={"seats": seats, "seed": seed, **extra})
    assert r.status_code == 200, r.json()
    return r.json()


def _first_option(view):
    return {"seat": view["to_move"], "action": view["legal"][0]["action"]}


def _file(client, view):
    return client.folder / view["file"]


def test_game_against_a_bot_to_the_end(client):
    view = _new_game(client)
    gid = view["game"]
    path = _file(client, view)
    assert path.name.startswith("kwsearch-game-") and path.name != "kwsearch-game-3.json"  # random, not the seed
    assert json.loads(path.read_text())["setup"]["seats"] == ["human", "random"]
    decisions = 0
    while not view["terminal"]:
        if view["human_to_move"]:
            r = client.post(f"/api/games/{gid}/decide", json=_first_option(view))
        else:
            assert view["legal"] == []  # a bot's options are not offered to the page
            r = client.post(f"/api/games/{gid}/advance", json={})
        assert r.status_code == 200, r.json()
        view = r.json()
        decisions += 1
        saved = json.loads(path.read_text())  # saved after every decision
        assert sum(1 for e in saved["events"] if not e.startswith("reveal")) == len(view["moves"])
    assert saved["result"]["money"] == view["money"]
    assert replay(saved).money() == view["money"]
    r = client.post(f"/api/games/{gid}/decide", json={"seat": 0, "action": 8})
    assert r.status_code == 409 and "over" in r.json()["error"]
    assert json.loads(path.read_text()) == saved
    assert client.get(f"/api/games/{gid}/record.json").json()["seed"] == 3  # finished: nothing left to hide


def test_forged_decisions_are_refused(client):
    view = _new_game(client, seats="human,random", seed=5)
    gid = view["game"]
    path = _file(client, view)
    while not view["human_to_move"]:
        view = client.post(f"/api/games/{gid}/advance", json={}).json()
    before = path.read_text()
    me = view["to_move"]
    legal = [o["action"] for o in view["legal"]]
    forged = [
        ({"seat": me, "action": 99999}, 400),                        # an illegal action id
        ({"seat": me, "action": max(legal) + 1 if max(legal) + 1 not in legal else 0}, 400),
        ({"seat": 1 - me, "action": legal[0]}, 403),                  # another seat's decision (the bot's)
        ({"seat": 7, "action": legal[0]}, 400),
        ({"seat": me, "action": str(legal[0])}, 400),
        ({"seat": me, "action": legal[0], "answers": ["Otto"]}, 400),  # an answer nobody asked for
        ({"seat": me, "action": legal[0], "path": "../x.json"}, 400),
        ({"action": legal[0]}, 400),
        ("tile 3", 400),
    ]
    for body, status in forged:
        r = client.post(f"/api/games/{gid}/decide", json=body)
        assert r.status_code == status, (body, r.json())
        assert r.json()["error"]
        assert path.read_text() == before
    r = client.post(f"/api/games/{gid}/decide", content=b"{\"seat\": 0,", headers={"content-type": "application/json"})
    assert r.status_code == 400 and path.read_text() == before
    assert client.get(f"/api/games/{gid}").json()["moves"] == view["moves"]
    assert client.post("/api/games/nope/decide", json={"seat": 0, "action": 8}).status_code == 404


def test_game_view_never_holds_the_deck_order(client):
    view = _new_game(client, seats="human,random", seed=11)
    text = json.dumps(view)
    assert "hidden" not in text and "rng" not in view
    game = client.board.games.get(view["game"])
    state = game.state
    other = state.copy()
    other.determinize(12345)  # the same observation, another deck order
    assert other.deck != state.deck
    assert state_view(other, game.names, 0) == state_view(state, game.names, 0)
    assert "seed" not in client.get(f"/api/games/{view['game']}/record.json").json()  # the seed would give it away
    assert "seed" in json.loads(_file(client, view).read_text())                      # the file keeps it to resume


def test_named_seats(client):
    view = _new_game(client, seats="human,random", seed=12, names=["Ann", "Robo"])
    assert view["names"] == ["Ann", "Robo"]
    assert json.loads(_file(client, view).read_text())["setup"]["names"] == ["Ann", "Robo"]


def test_game_files_are_never_overwritten_and_resume(client):
    mine = client.folder / "kwsearch-game-4.json"
    mine.write_text("my own file\n")
    view = _new_game(client, seed=4)
    ours = view["file"]  # a random name, never the seed's (tests/test_web_deck.py forces a clash)
    assert ours != mine.name and mine.read_text() == "my own file\n"
    listing = client.get("/api/games").json()
    names = {f["name"]: f for f in listing["files"]}
    assert set(names) == {"kwsearch-game-4.json", ours}
    assert names[ours]["game"] == view["game"]
    # resuming a file opens it once; a path is never accepted
    assert client.post("/api/games/resume", json={"file": str(mine)}).status_code == 404
    assert client.post("/api/games/resume", json={"file": names[ours]["id"]}).json()["game"] \
        == view["game"]
    r = client.post("/api/games/resume", json={"file": names["kwsearch-game-4.json"]["id"]})
    assert r.status_code == 400 and "kwsearch-game-4.json" in r.json()["error"]
    # a fresh server resumes the saved game where it stopped
    app = create_app(WebConfig(games_dir=client.folder))
    with TestClient(app, base_url="http://127.0.0.1:8000") as c2:
        files = {f["name"]: f["id"] for f in c2.get("/api/games").json()["files"]}
        again = c2.post("/api/games/resume", json={"file": files[ours]}).json()
        assert again["moves"] == view["moves"] and again["seats"] == ["human", "random"]


def test_bad_game_settings(client):
    for body in [{"seats": "human"}, {"seats": "human,nobot"}, {"seats": "human,random", "seed": -1},
                 {"seats": "human,random", "names": ["Ann"]}, {"seats": "human,random", "names": "Ann,Bob"},
                 {"seats": "human,random", "mirror": True}, {"seats": "human,random", "v6": "yes"},
                 {"seats": "human,random", "file": "/tmp/x.json"}]:
        r = client.post("/api/games", json=body)
        assert r.status_code == 400, body
        assert r.json()["error"]
    assert list(client.folder.iterdir()) == []


def _research_first(option):
    """Options that lead to taking a face-up research card first (the display is then refilled)."""
    from kwsearch.components import default_components
    text = option["text"]
    tiles = default_components().action_tiles
    if text.startswith("take research"):
        return 0
    if text == "do research":
        return 1
    if text.startswith("tile ") and text[5:].isdigit() and "research" in tiles[int(text[5:])].actions:
        return 2
    return 3


def test_mirror_game_asks_for_the_cards_turned_up(client):
    view = _new_game(client, seats="human,human", seed=2, mirror=True,
                     setup={"display": "Horch, Otto"})
    gid = view["game"]
    path = _file(client, view)
    assert json.loads(path.read_text())["setup"]["display"] == ["Horch", "Otto"]
    # play until a decision turns up a research card (taking a face-up card refills the display)
    for _ in range(60):
        before = path.read_text()
        pick = min(view["legal"], key=_research_first)
        body = {"seat": view["to_move"], "action": pick["action"]}
        r = client.post(f"/api/games/{gid}/decide", json=body).json()
        if "need" in r:
            break
        view = r
    else:
        pytest.fail("no decision turned up a card")
    need = r["need"]
    assert need["question"] == "Which research card was turned up?" and "Benz" in need["options"]
    assert path.read_text() == before  # nothing applied yet
    r = client.post(f"/api/games/{gid}/decide", json={**body, "answers": ["no such card"]})
    assert r.status_code == 400 and path.read_text() == before
    answers = []
    while True:
        r = client.post(f"/api/games/{gid}/decide", json={**body, "answers": answers}).json()
        if "need" not in r:
            break
        answers.append("Benz" if "Benz" in r["need"]["options"] and "Benz" not in answers else r["need"]["options"][0])
    saved = json.loads(path.read_text())
    assert saved["mirror"] is True and saved["events"][-1] == "reveal " + ", ".join(answers)
    assert "seed" in client.get(f"/api/games/{gid}/record.json").json()  # mirror: the deck is the table's


def test_undo_takes_back_the_last_human_decision(client):
    view = _new_game(client, seats="human,random", seed=8)
    gid = view["game"]
    assert client.post(f"/api/games/{gid}/undo", json={}).status_code in (409, 200)
    while not view["human_to_move"]:
        view = client.post(f"/api/games/{gid}/advance", json={}).json()
    before = view["moves"]
    last = {"seat": view["to_move"], "action": view["legal"][-1]["action"]}
    view = client.post(f"/api/games/{gid}/decide", json=last).json()
    assert len(view["moves"]) == len(before) + 1 and view["can_undo"]
    view = client.post(f"/api/games/{gid}/undo", json={}).json()
    assert view["moves"] == before


def test_explore_a_running_game_draws_from_another_deck(client):
    view = _new_game(client, seats="human,random", seed=9)
    gid = view["game"]
    for _ in range(6):
        if view["human_to_move"]:
            view = client.post(f"/api/games/{gid}/decide", json=_first_option(view)).json()
        else:
            view = client.post(f"/api/games/{gid}/advance", json={}).json()
    doc = client.post(f"/api/games/{gid}/explore", json={}).json()
    assert doc["kind"] == "record" and len(doc["nodes"]) == len(view["moves"]) + 1
    game = client.board.games.get(gid)
    explored = client.board.library.get(doc["id"]).state(len(doc["nodes"]) - 1)
    assert explored.observation() == game.state.observation()
    assert explored.deck != game.state.deck  # what-if draws never come from the real deck


# ---------------------------------------------------------------- live analysis

def test_analysis_streams_growing_updates_and_stops(client):
    """Updates, the search's final statistics and the verified result are all kwsearch-analysis/1
    objects with the fields of ``suggest --json`` (tests/helpers.py); the updates lack only the
    re-searches' fields, the final ``done`` has them (intervals, the equal band, the verdict)."""
    did = _doc(client)
    updates = []
    stream = _events(client, {"doc": did, "node": 12})
    event, data = next(stream)
    assert event == "start" and data["mover"] == replay(_record(), upto=12).current_player()
    aid = data["id"]
    verifying = None
    for event, data in stream:
        if event == "update":
            updates.append(data)
            if len(updates) == 3:
                assert client.post(f"/api/analysis/{aid}/stop", json={}).status_code == 200
        elif event == "verifying":
            verifying = data
        elif event == "done":
            final = data
            break
    for u in updates + [verifying]:
        check_analysis_fields(u, 2, verified=False)
    check_analysis_fields(final, 2)
    its = [u["rootInfo"]["iterations"] for u in updates]
    assert its == sorted(its) and its[0] < its[-1]
    assert final["interrupted"] and final["rootInfo"]["iterations"] >= its[-1]
    # the search's statistics are those sent before the re-searches, which add the rest
    assert {k: v for k, v in final["rootInfo"].items() if k != "confidence"} == verifying["rootInfo"]
    assert [{k: v for k, v in m.items() if k not in ANALYSIS_VERIFIED_MOVE} for m in final["moveInfos"]] \
        == verifying["moveInfos"]
    # the two-player default stops playouts after 15 decisions: the page labels money as at the cut-off
    assert all(u["rootInfo"]["config"]["cutoff"] == 15 for u in updates + [final])
    c = final["moveInfos"][0]
    assert c["plan"][0] == c["move"] and 0 <= c["winrate"] <= 1 and c["visits"] > 0
    assert sum(x["share"] for x in final["moveInfos"]) <= 1.0 + 1e-9
    legal = {o["text"] for o in client.get(f"/api/docs/{did}/nodes/12").json()["legal"]}
    assert {x["move"] for x in final["moveInfos"]} <= legal
    # issue 29: every option re-searched alone (a bounded chunk), ranked, the band and the verdict
    conf = final["rootInfo"]["confidence"]
    assert conf["verdict"] in ("clear", "equal", "open") and not conf["untilClear"] and conf["rounds"] == 1
    assert sorted(m["rank"] for m in final["moveInfos"]) == list(range(len(final["moveInfos"])))
    band = [m["move"] for m in sorted(final["moveInfos"], key=lambda m: m["rank"]) if m["equal"]]
    assert band == conf["equal"] and band[0] == conf["best"]
    for m in final["moveInfos"]:
        e = m["estimate"]
        assert 0 <= e["winrateLow"] <= e["winrate"] <= e["winrateHigh"] <= 1
        assert 100 <= e["chunkIterations"] <= VERIFY_CHUNK_MAX and e["chunks"] == 3


def test_a_hint_re_searches_until_clear(client):
    """The game's hint (the page's Hint button): play's '?' -- hint_iterations, the top 3, until clear."""
    view = _new_game(client, seats="human,random", seed=3)
    gid = view["game"]
    while not view["human_to_move"]:
        view = client.post(f"/api/games/{gid}/advance", json={}).json()
    events = dict(_events(client, {"game": gid, "hint": True}))
    final = events["done"]
    check_analysis_fields(final, 2)
    assert final["rootInfo"]["limits"]["iterations"] == 5000 and final["rootInfo"]["limits"]["until_clear"]
    assert final["rootInfo"]["confidence"]["untilClear"] and not final["interrupted"]
    assert len(final["moveInfos"]) == min(3, len(view["legal"]))
    assert {m["move"] for m in final["moveInfos"]} <= {o["text"] for o in view["legal"]}
    did = _doc(client)
    for bad in ({"doc": did, "node": 3, "hint": True}, {"game": gid, "hint": 1}):
        r = client.post("/api/analysis", json=bad)
        assert r.status_code == 400 and "hint" in r.json()["error"]


def test_analysis_limits_and_errors(client):
    did = _doc(client)
    assert client.post("/api/analysis", json={"doc": did, "node": _last()}).status_code == 409
    assert client.post("/api/analysis", json={"doc": "nope", "node": 1}).status_code == 404
    assert client.post("/api/analysis", json={"doc": did, "node": 1, "path": "x"}).status_code == 400
    assert client.post("/api/analysis/nope/stop", json={}).status_code == 404
    stream = _events(client, {"doc": did, "node": 3})
    assert next(stream)[0] == "start"
    r = client.post("/api/analysis", json={"doc": did, "node": 4})  # max_analyses=1 in this fixture
    assert r.status_code == 429 and "limit is 1" in r.json()["error"]
    stream.close()


def test_analysis_of_a_game_uses_the_seat_s_view(client):
    view = _new_game(client, seats="human,random", seed=3)
    gid = view["game"]
    while not view["human_to_move"]:
        view = client.post(f"/api/games/{gid}/advance", json={}).json()
    stream = _events(client, {"game": gid})
    assert next(stream)[0] == "start"
    event, data = next(stream)
    assert event == "update" and {m["move"] for m in data["moveInfos"]} <= {o["text"] for o in view["legal"]}
    check_analysis_fields(data, 2, verified=False)
    stream.close()


# ---------------------------------------------------------------- the command

def test_serve_needs_the_web_extra(monkeypatch):
    import kwsearch.web as web
    monkeypatch.setattr(web, "missing_web_modules", lambda: ["sse_starlette"])
    r = CliRunner().invoke(main, ["serve"])
    assert r.exit_code != 0 and 'pip install ".[web]"' in r.output and "Traceback" not in r.output


def test_serve_refuses_bad_files_before_starting(tmp_path):
    r = CliRunner().invoke(main, ["serve", str(tmp_path / "none.json")])
    assert r.exit_code != 0 and "none.json: no such file" in r.output
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "kwsearch-game/1", "players": 7}))
    r = CliRunner().invoke(main, ["serve", str(bad)])
    assert r.exit_code != 0 and "bad.json" in r.output and "players" in r.output
    r = CliRunner().invoke(main, ["serve", str(GAME), "--games-dir", str(tmp_path / "missing")])
    assert r.exit_code != 0 and "no such folder" in r.output


def test_host_warning():
    assert is_loopback("127.0.0.1") and is_loopback("localhost") and is_loopback("::1")
    assert host_warning("127.0.0.1") is None
    assert "warning" in host_warning("0.0.0.0") and not is_loopback("192.168.1.4")


def test_static_page_is_self_contained(client):
    page = client.get("/").text
    assert "<script src=\"/static/app.js\">" in page
    for name in ("app.js", "app.css", "favicon.svg"):
        body = client.get(f"/static/{name}").text
        assert "http://" not in body.replace("http://www.w3.org", "") and "https://" not in body, name
    assert os.path.getsize(ROOT / "kwsearch" / "web" / "static" / "app.js") > 1000


# ---------------------------------------------------------------- a real server (uvicorn in a subprocess)

def test_two_clients_analyse_at_once_and_a_disconnect_stops_the_search(tmp_path):
    import httpx

    from kwsearch.web.browser import running_server

    with running_server(["examples/game-2p.json", "--max-analyses", "2"], games_dir=tmp_path) as url:
        with httpx.Client(base_url=url, timeout=30) as a, httpx.Client(base_url=url, timeout=30) as b:
            did = a.get("/api/info").json()["first"]
            streams = [c.stream("POST", "/api/analysis", json={"doc": did, "node": n}) for c, n in ((a, 12), (b, 20))]
            responses = [s.__enter__() for s in streams]
            try:
                assert [r.status_code for r in responses] == [200, 200]
                lines = [r.iter_lines() for r in responses]
                for it in lines:  # both tabs get updates while the other runs
                    assert any(line.startswith("event: update") for line in it)
                assert a.get("/api/info").json()["analyses_running"] == 2
                r = a.post("/api/analysis", json={"doc": did, "node": 30})
                assert r.status_code == 429  # the bound
            finally:
                for s in streams:  # the clients go away without asking to stop
                    s.__exit__(None, None, None)
            deadline = time.monotonic() + 10
            while a.get("/api/info").json()["analysis_processes"] and time.monotonic() < deadline:
                time.sleep(0.1)
            info = a.get("/api/info").json()
            assert info["analyses_running"] == 0 and info["analysis_processes"] == 0  # the workers have exited


def test_serve_warns_when_bound_beyond_this_machine(monkeypatch, tmp_path):
    import uvicorn

    from kwsearch.web.app import WebConfig
    from kwsearch.web.server import serve

    seen = {}
    monkeypatch.setattr(uvicorn.Server, "run", lambda self: seen.setdefault("host", self.config.host))
    said: list[str] = []
    serve(str(GAME), host="0.0.0.0", port=free_port(), config=WebConfig(games_dir=tmp_path), echo=said.append)
    assert seen["host"] == "0.0.0.0" and said and said[0].startswith("warning: serving on 0.0.0.0")
    said.clear()
    serve(None, host="127.0.0.1", port=free_port(), config=WebConfig(games_dir=tmp_path), echo=said.append)
    assert not any(s.startswith("warning") for s in said)
