"""Nothing the page receives about a live game fixes or hints at the undrawn cards (issue 27).

* no answer about a running game — views, ``/api/info``, ``/api/games``, downloads
  and their headers, the explored document — holds the game's seed, and game ids
  and file names are random (two games with one seed share neither);
* a take-back across a reveal shuffles the undrawn cards again, reproducibly
  from the new seed written to the record (which stays replayable), so the same
  decision made again does not show the same cards; ``kwsearch play``'s ``undo``
  follows the same rule;
* a finished game cannot be taken back.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from helpers import web_test_client  # noqa: E402

TestClient = web_test_client()

from click.testing import CliRunner  # noqa: E402

from kwsearch.cli import main  # noqa: E402
from kwsearch.components import default_components  # noqa: E402
from kwsearch.play import HUMAN, Quit, Session, load_for_resume, new_game_record  # noqa: E402
from kwsearch.records import replay  # noqa: E402
from kwsearch.seeds import derive_seed  # noqa: E402
from kwsearch.web import games as web_games  # noqa: E402
from kwsearch.web.app import WebConfig, create_app  # noqa: E402

pytestmark = pytest.mark.one_engine

ROOT = Path(__file__).resolve().parent.parent
GAME = ROOT / "examples" / "game-2p.json"
#: A seed whose decimal string cannot turn up by chance in an answer.
BIG_SEED = 7318640097712345
#: A game (two human seats) whose first card-turning decision, taken back and made again, shows other cards.
RESHUFFLE_SEED = 3
FILE_NAME = re.compile(r"^kwsearch-game-[0-9a-f]{12}\.json$")


def _app(folder: Path):
    # The loopback address as Host: the board answers only requests that name this machine.
    app = create_app(WebConfig(games_dir=folder, max_analyses=1, analysis_seconds=30, update_interval=0.1),
                     files=[("game-2p.json", json.loads(GAME.read_text()))])
    return app


@pytest.fixture
def client(tmp_path):
    app = _app(tmp_path)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        c.board = app.state.board
        c.folder = tmp_path
        yield c


def _new_game(client, **body):
    r = client.post("/api/games", json={"seats": "human,random", **body})
    assert r.status_code == 200, r.json()
    return r.json()


def _saved(client, view) -> dict:
    return json.loads((client.folder / view["file"]).read_text())


def _research_first(option) -> int:
    """Options that lead to taking a face-up research card first (the display is then refilled)."""
    text = option["text"]
    tiles = default_components().action_tiles
    if text.startswith("take research"):
        return 0
    if text == "do research":
        return 1
    if text.startswith("tile ") and text[5:].isdigit() and "research" in tiles[int(text[5:])].actions:
        return 2
    return 3


def _step(client, gid, view):
    """One decision: the human's (the first option) or the bot's."""
    if view["human_to_move"]:
        r = client.post(f"/api/games/{gid}/decide", json={"seat": view["to_move"], "action": view["legal"][0]["action"]})
    else:
        r = client.post(f"/api/games/{gid}/advance", json={})
    assert r.status_code == 200, r.json()
    return r.json()


def _to_first_reveal(client, gid, view, limit=80):
    """Make research-first human decisions until one turns up cards; (view before it, its body, view after)."""
    for _ in range(limit):
        if not view["human_to_move"]:
            view = _step(client, gid, view)
            continue
        pick = min(view["legal"], key=_research_first)
        body = {"seat": view["to_move"], "action": pick["action"]}
        after = client.post(f"/api/games/{gid}/decide", json=body).json()
        if after["moves"][-1]["reveals"] and after["moves"][-1]["seat"] == body["seat"]:
            return view, body, after
        view = after
    pytest.fail("no human decision turned up a card")


def _no_seed(obj, seed: int, where: str) -> None:
    """No ``seed`` key at any depth and no trace of the seed's digits."""
    text = obj if isinstance(obj, str) else json.dumps(obj)
    assert str(seed) not in text, f"{where}: the game's seed is in the answer"

    def walk(x, path):
        if isinstance(x, dict):
            for k, v in x.items():
                assert k != "seed", f"{where}: a seed key at {path}"
                walk(v, f"{path}.{k}")
        elif isinstance(x, list):
            for k, v in enumerate(x):
                walk(v, f"{path}[{k}]")
    walk(json.loads(text) if isinstance(obj, str) else obj, where)


def _check(r, seed: int, where: str):
    """An answer (body and headers) about a live game: no seed."""
    assert r.status_code == 200, (where, r.text)
    for name, value in r.headers.items():
        assert str(seed) not in value and "seed" not in value.lower(), f"{where}: header {name}: {value}"
    _no_seed(r.text, seed, where)
    return r.json()


# ---------------------------------------------------------------- no seed in any answer


@pytest.mark.parametrize("given", [True, False], ids=["seed-given", "no-seed"])
def test_no_answer_about_a_live_game_holds_its_seed(client, given):
    r = client.post("/api/games", json={"seats": "human,random", **({"seed": BIG_SEED} if given else {})})
    seed = _saved(client, r.json())["seed"]  # the file keeps it, for resuming
    if given:
        assert seed == BIG_SEED
    else:
        assert isinstance(seed, int) and seed != 0 and seed != client.board.config.seed
    view = _check(r, seed, "POST /api/games")
    gid = view["game"]
    assert FILE_NAME.match(view["file"]) and str(seed) not in gid
    view = _to_first_reveal(client, gid, view)[2]
    _no_seed(view, seed, "decide")
    for _ in range(3):
        view = _step(client, gid, view)
        _no_seed(view, seed, "decide/advance")
    assert not view["terminal"]
    _check(client.post(f"/api/games/{gid}/undo", json={}), seed, "POST undo")
    _check(client.get(f"/api/games/{gid}"), seed, "GET /api/games/G")
    _check(client.get("/api/info"), seed, "GET /api/info")
    listing = _check(client.get("/api/games"), seed, "GET /api/games")
    assert [f["name"] for f in listing["files"]] == [view["file"]]
    _check(client.post("/api/games/resume", json={"file": listing["files"][0]["id"]}), seed, "POST resume")
    rec = client.get(f"/api/games/{gid}/record.json")
    assert view["file"] in rec.headers["content-disposition"]
    rec = _check(rec, seed, "GET record.json")
    assert rec["format"] == "kwsearch-game/1" and replay(rec).observation() == client.board.games.get(gid) \
        .state.observation()  # replayable without its seed: every card turned up is named
    # The game opened to explore: its document, every node, its downloads, a what-if branch.
    doc = _check(client.post(f"/api/games/{gid}/explore", json={}), seed, "POST explore")
    did = doc["id"]
    _check(client.get(f"/api/docs/{did}"), seed, "GET doc")
    last = len(doc["nodes"]) - 1
    for nid in range(last + 1):
        _check(client.get(f"/api/docs/{did}/nodes/{nid}"), seed, f"GET node {nid}")
    for kind in ("record", "position"):
        _check(client.get(f"/api/docs/{did}/nodes/{last}/{kind}.json"), seed, f"GET doc {kind}.json")
    node = client.get(f"/api/docs/{did}/nodes/{last}").json()
    branch = _check(client.post(f"/api/docs/{did}/nodes/{last}/play", json={"action": node["legal"][-1]["action"]}),
                    seed, "POST what-if")
    _check(client.get(f"/api/docs/{did}/nodes/{branch['node']}/record.json"), seed, "GET what-if record.json")
    _check(client.get("/api/info"), seed, "GET /api/info with the document")
    # The live analysis of the game: the search's own seed is not the game's (closing the stream stops it).
    with client.stream("POST", "/api/analysis", json={"game": gid}) as r:
        assert r.status_code == 200
        assert not any(str(seed) in value for value in r.headers.values())
        events = 0
        for line in r.iter_lines():
            assert str(seed) not in line
            if line.startswith("data:"):
                assert json.loads(line[5:]).get("seed") != seed
                events += 1
                if events >= 3:
                    break
        assert events >= 3


def test_two_games_with_one_seed_share_no_id_and_no_file_name(client):
    a, b = _new_game(client, seed=BIG_SEED), _new_game(client, seed=BIG_SEED)
    assert a["game"] != b["game"] and a["file"] != b["file"]
    for v in (a, b):
        assert FILE_NAME.match(v["file"]) and str(BIG_SEED) not in v["file"] + v["game"]
        assert _saved(client, v)["seed"] == BIG_SEED
    # Without a seed every game gets its own, unpredictable one.
    c, d = _new_game(client), _new_game(client)
    assert _saved(client, c)["seed"] != _saved(client, d)["seed"]
    assert c["game"] != d["game"] and c["file"] != d["file"]


def test_a_file_name_that_exists_is_never_overwritten(client, monkeypatch):
    tokens = iter(["00000000000a", "00000000000a", "00000000000b"])
    monkeypatch.setattr(web_games, "_file_token", lambda: next(tokens))
    mine = client.folder / "kwsearch-game-00000000000a.json"
    mine.write_text("my own file\n")
    view = _new_game(client, seed=4)
    assert view["file"] == "kwsearch-game-00000000000b.json" and mine.read_text() == "my own file\n"
    # The folder's games list and `kwsearch play --resume` still find it.
    names = {f["name"] for f in client.get("/api/games").json()["files"]}
    assert names == {mine.name, view["file"]}
    assert load_for_resume(client.folder / view["file"])["seed"] == 4


# ---------------------------------------------------------------- take-back across a reveal


def test_taking_back_a_reveal_shuffles_the_undrawn_cards_again(client):
    view = _new_game(client, seats="human,human", seed=RESHUFFLE_SEED)
    gid = view["game"]
    game = client.board.games.get(gid)
    before, body, after = _to_first_reveal(client, gid, view)
    first = after["moves"][-1]["reveals"]
    kept = len(before["moves"])
    deck_before = list(game.state.deck)
    undone = client.post(f"/api/games/{gid}/undo", json={}).json()
    assert undone["reshuffled"] is True
    assert undone["moves"] == before["moves"] and undone["legal"] == before["legal"]
    assert undone["svg"] == before["svg"]  # the same position, as every seat sees it
    saved = _saved(client, view)
    assert saved["seed"] == derive_seed(RESHUFFLE_SEED, "reshuffle", kept)  # kept in the file, for resuming
    # The cards turned up are back among the undrawn ones, in a fresh order.
    assert Counter(game.state.deck) == Counter(deck_before) + Counter(
        t for ev in first for t in _card_ids(game, ev))
    again = client.post(f"/api/games/{gid}/decide", json=body).json()
    second = again["moves"][-1]["reveals"]
    assert again["moves"][-1]["move"] == after["moves"][-1]["move"]
    assert second != first, "the same decision after a take-back showed the same cards"
    # A take-back that turned up nothing does not shuffle.
    seed_now = _saved(client, view)["seed"]
    for _ in range(40):
        v = client.get(f"/api/games/{gid}").json()
        pick = max(v["legal"], key=_research_first)
        nxt = client.post(f"/api/games/{gid}/decide", json={"seat": v["to_move"], "action": pick["action"]}).json()
        if not nxt["moves"][-1]["reveals"]:
            undone = client.post(f"/api/games/{gid}/undo", json={}).json()
            assert undone["reshuffled"] is False and _saved(client, view)["seed"] == seed_now
            break
    else:
        pytest.fail("no decision without a reveal")


def _card_ids(game, event: str) -> list[int]:
    names = {ct.name.lower(): ct.index for ct in game.state.game.components.card_types}
    return [names[c.strip().lower()] for c in event.split(" ", 1)[1].split(",")]


def test_the_file_after_a_take_back_replays_and_resumes_with_the_new_order(client, tmp_path):
    view = _new_game(client, seats="human,human", seed=RESHUFFLE_SEED)
    gid = view["game"]
    before, body, after = _to_first_reveal(client, gid, view)
    client.post(f"/api/games/{gid}/undo", json={})
    path = client.folder / view["file"]
    saved = json.loads(path.read_text())
    game = client.board.games.get(gid)
    assert replay(saved).to_json() == game.state.to_json()  # the deck order too: the file holds it all
    r = CliRunner().invoke(main, ["show", str(path)])
    assert r.exit_code == 0, r.output
    assert load_for_resume(path)["events"] == saved["events"]
    # Reproducible: another server resuming the file turns up what this one turns up.
    again = client.post(f"/api/games/{gid}/decide", json=body).json()["moves"][-1]["reveals"]
    other = tmp_path / "other"
    other.mkdir()
    (other / path.name).write_text(json.dumps(saved))
    app = _app(other)
    with TestClient(app, base_url="http://127.0.0.1") as c2:
        fid = c2.get("/api/games").json()["files"][0]["id"]
        g2 = c2.post("/api/games/resume", json={"file": fid}).json()
        assert g2["moves"] == before["moves"]
        assert c2.post(f"/api/games/{g2['game']}/decide", json=body).json()["moves"][-1]["reveals"] == again
    assert again != after["moves"][-1]["reveals"]


def test_terminal_undo_follows_the_same_rule(tmp_path):
    seats = [HUMAN, HUMAN]
    said = []
    session = Session(new_game_record(2, RESHUFFLE_SEED, seats), seats, tmp_path / "g.json", seed=RESHUFFLE_SEED,
                      ask=lambda p: "", say=said.append)
    for _ in range(80):
        st = session.state
        legal = [{"action": a, "text": st.action_to_text(a)} for a in st.legal_actions()]
        action = min(legal, key=_research_first)["action"]
        kept = len(session.deciders())
        cards = session._apply(action)
        if cards:
            break
    else:
        pytest.fail("no decision turned up a card")
    assert session.undo() and session.reshuffled
    assert session.record["seed"] == derive_seed(RESHUFFLE_SEED, "reshuffle", kept)
    assert json.loads((tmp_path / "g.json").read_text())["seed"] == session.record["seed"]
    assert session._apply(action) != cards
    # The command's "undo" says so.
    answers = iter(["undo", "quit"])
    session.ask = lambda p: next(answers)
    with pytest.raises(Quit):
        session.run()
    assert any(s.startswith("took back your last decision; the undrawn research cards are shuffled again")
               for s in said)


def test_a_mirror_take_back_shuffles_nothing(tmp_path):
    seats = [HUMAN, HUMAN]
    session = Session(new_game_record(2, 2, seats), seats, tmp_path / "m.json", mirror=True, seed=2,
                      ask=lambda p: "1", say=lambda t: None)
    for _ in range(80):
        st = session.state
        legal = [{"action": a, "text": st.action_to_text(a)} for a in st.legal_actions()]
        if session._apply(min(legal, key=_research_first)["action"]):
            break
    else:
        pytest.fail("no decision turned up a card")
    assert session.undo() and not session.reshuffled and session.record["seed"] == 2


# ---------------------------------------------------------------- no take-back after the end


def test_no_take_back_after_the_end(client):
    view = _new_game(client, seed=3)
    gid = view["game"]
    while not view["terminal"]:
        view = _step(client, gid, view)
    assert view["can_undo"] is False
    path = client.folder / view["file"]
    saved = path.read_text()
    r = client.post(f"/api/games/{gid}/undo", json={})
    assert r.status_code == 409
    error = r.json()["error"]
    assert "over" in error and "\n" not in error
    assert path.read_text() == saved
    now = client.get(f"/api/games/{gid}").json()
    assert now["terminal"] and now["moves"] == view["moves"] and now["can_undo"] is False
    assert client.get(f"/api/games/{gid}/record.json").json()["seed"] == 3  # finished: it may have its seed
