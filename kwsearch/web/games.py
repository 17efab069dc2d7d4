"""Games played from the page: against bots, or a mirror of a real table.

A web game is a :class:`kwsearch.play.Session` (the same record, the same bots,
the same file guarantees as ``kwsearch play``) driven by requests instead of a
terminal:

* **the record file** is chosen by the server — ``kwsearch-game-<12 random hex digits>.json``
  in the games folder, twelve random hex digits (never the seed, which would give
  the deck away), created exclusively so that no existing file is ever
  overwritten — and rewritten atomically
  (:func:`kwsearch.fileio.write_json_atomic`) after every decision.
  ``kwsearch play --resume FILE`` continues it in the terminal, and the page can
  resume any ``kwsearch-game-*.json`` of the games folder (``kwsearch play``'s
  default names too).
* **every decision is checked** before anything changes: the game must be
  running, the seat must be the one to decide and a human seat, the action one of
  the legal ids. The decision is applied to a copy of the state and the record,
  the copy is written to the file, and only then does it become the game: a
  refused request or a failed write leaves the game as it was.
* **the page sees only what the seat at the screen may see**: the board is drawn
  from that seat's observation (:func:`kwsearch.web.documents.state_view`), the
  move list holds the decisions and the cards turned up (public at the table),
  and a downloaded record of an unfinished game has no ``seed`` (the seed would
  give away the deck order). The record on disk keeps it, for resuming. No
  answer about a running game holds its seed: game ids and file names are
  random, and a game started without a seed gets an unpredictable one
  (:func:`secrets.randbits`), never one derived from the server's ``--seed``.
* **take back** (``undo``): the last human decision and the bots' moves after
  it; refused once the game is over. When what is taken back turned up research
  cards (or V6 specialty tiles), the undrawn ones are shuffled again
  (:meth:`kwsearch.play.Session.undo`, the rule of ``kwsearch play``): the same
  decision made again shows cards from a fresh order, so a take-back cannot be
  used to peek at the deck. The new order comes from a new ``seed`` written to
  the record, which stays an ordinary replayable ``kwsearch-game/1``.
* **mirror mode**: every seat is human and the deck is the table's. A decision
  that turns up research cards (or V6 specialty tiles) is answered with
  ``need``: the question and the options; the page sends the decision again with
  the answers, and only a decision with all its answers is applied.

Bots move one decision per request (``advance``), so the page can show each
move as it comes and no request runs for long.

**Teaching mode** (``teach`` in the request that starts a game: :class:`kwsearch.teach.TeachSettings`):
each human decision is checked as the review would check it (:func:`kwsearch.teach.check_decision`,
from the seat's observation, never the deck order) in a background thread (:class:`Teacher`), one
check after another in the order of the decisions. ``decide`` answers at once: the human's own next
decisions of a turn never wait. The bots do: ``advance`` first waits for the checks under way (a
check takes a fraction of a second at the default 5,000 iterations), so a verdict is always about
the position before the bots replied, and "Take back" takes back the human's decision alone. The
game's view carries ``teach``: the settings, whether checks are under way, the latest verdict of the
moves on the board and the latest one that reaches the threshold (``flagged``); a verdict of a
decision since taken back is never shown.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import re
import secrets
import threading
from pathlib import Path
from typing import Any

from ..errors import KwsearchError
from ..play import (HUMAN, PlayError, Session, check_mirror, load_for_resume, mirror_setup, new_game_record,
                    parse_seats, seats_of_record, write_record)
from ..records import REVEAL, Recorder, count_decisions, replay
from ..scoring import record_scorings, reports_from_log
from . import WebError
from ..teach import TeachError, TeachSettings, check_decision
from .documents import scoring_view, state_view

#: Files of the games folder that the page offers to resume (``kwsearch play`` uses the same names), but a
#: game's review and review cache (``kwsearch review``'s ``GAME.review-cache.json``, also the page's).
GAME_FILE = re.compile(r"^kwsearch-game-(?!.*\.review(-cache)?\.json$)[A-Za-z0-9_.-]*\.json$")


class NeedAnswer(Exception):
    """Mirror mode: the decision turned up a card (or specialty tile) the request did not name."""

    def __init__(self, question: str, options: list[str]):
        super().__init__(question)
        self.question, self.options = question, options


def _file_token() -> str:
    """The random part of a new record file's name (tests replace it to force a clash)."""
    return secrets.token_hex(6)


def reserve_file(folder: Path) -> Path:
    """A new, empty ``kwsearch-game-<12 random hex digits>.json`` (not the seed) in ``folder``,
    created exclusively (never an existing file)."""
    for _ in range(100):
        path = folder / f"kwsearch-game-{_file_token()}.json"
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            continue
        except OSError as exc:
            raise WebError(f"{folder}: cannot create a game record there ({exc.strerror or exc})", 500) from None
        os.close(fd)
        return path
    raise WebError(f"{folder}: could not find a free kwsearch-game-*.json name; clean up the folder", 500)


class Teacher:
    """Teaching mode's checks of one game's human decisions, in a background thread, in order.

    A verdict is kept under the key of its decision: the record's events up to the decision itself;
    the view shows only verdicts whose key is still a prefix of the record's
    events, so a decision taken back (or made again after a reshuffle) never shows an old verdict.
    """

    #: The most verdicts kept (a game has a few hundred decisions; the oldest go first).
    MAX_VERDICTS = 2000

    def __init__(self, settings: TeachSettings):
        self.settings = settings
        self._cond = threading.Condition()
        self._queue: list[tuple[tuple[str, ...], Any, int, int]] = []
        self._busy = False
        self._verdicts: dict[tuple[str, ...], dict[str, Any]] = {}
        self._thread: threading.Thread | None = None

    def submit(self, key: tuple[str, ...], state, action: int, ply: int) -> None:
        """Check ``action`` taken at ``state`` (a state the game no longer changes), decision ``ply``."""
        with self._cond:
            self._queue.append((key, state, action, ply))
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="kwsearch-teach", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        while True:
            with self._cond:
                if not self._queue:
                    self._thread = None
                    self._cond.notify_all()
                    return
                key, state, action, ply = self._queue.pop(0)
                self._busy = True
            try:
                verdict = check_decision(state, action, ply, self.settings)
                out = verdict.to_json() if verdict is not None else {"ply": ply, "error": "the check was interrupted"}
            except Exception as exc:  # noqa: BLE001 - a failed check is reported on the page, the game goes on
                out = {"ply": ply, "error": f"the check failed: {type(exc).__name__}: {exc}"}
            with self._cond:
                self._verdicts[key] = out
                while len(self._verdicts) > self.MAX_VERDICTS:
                    del self._verdicts[next(iter(self._verdicts))]
                self._busy = False
                self._cond.notify_all()

    def pending(self) -> bool:
        with self._cond:
            return bool(self._queue) or self._busy

    def wait(self, timeout: float = 120.0) -> None:
        """Until no check is queued or running (at most ``timeout`` seconds: a stuck check never
        stops the game)."""
        with self._cond:
            self._cond.wait_for(lambda: not self._queue and not self._busy, timeout=timeout)

    def view(self, events: list[str]) -> dict[str, Any]:
        """The settings, whether checks are under way, and the latest verdict (and latest flagged one)
        of the decisions on the board."""
        with self._cond:
            current = [(key, v) for key, v in self._verdicts.items()
                       if len(key) <= len(events) and tuple(events[:len(key)]) == key]
            pending = bool(self._queue) or self._busy
        current.sort(key=lambda kv: len(kv[0]))
        flagged = [v for _, v in current if v.get("fires")]
        return {**self.settings.to_json(), "checking": pending,
                "verdict": current[-1][1] if current else None,
                "flagged": flagged[-1] if flagged else None}


class WebGame:
    """One game being played from the page (a :class:`~kwsearch.play.Session` and a lock)."""

    def __init__(self, gid: str, session: Session, teach: TeachSettings | None = None):
        self.id = gid
        self.session = session
        self.names = session.names
        self.lock = threading.Lock()  # one change at a time (a bot's move runs in a thread)
        self.teacher = Teacher(teach) if teach is not None else None
        reports = record_scorings(session.record, source=session.path.name)
        self.last_scoring = reports[-1] if reports else None

    # -- what the page sees --------------------------------------------------------
    @property
    def state(self):
        return self.session.state

    def humans(self) -> list[int]:
        return [s for s, spec in enumerate(self.session.seats) if spec == HUMAN]

    def screen_seat(self) -> int | None:
        """The seat at the screen: the human to decide, else the only human seat."""
        st = self.state
        if not st.is_terminal() and self.session.seats[st.current_player()] == HUMAN:
            return st.current_player()
        humans = self.humans()
        return humans[0] if len(humans) == 1 else None

    def moves(self) -> list[dict[str, Any]]:
        """The decisions so far (text, seat, round) with the cards each turned up."""
        events = self.session.record["events"]
        deciders: list[int] = []
        steps: list = []
        replay(self.session.record, movers=deciders, steps=steps)
        out: list[dict[str, Any]] = []
        for e in events:
            if e.strip().lower().startswith(REVEAL):
                out[-1]["reveals"].append(e)
            else:
                k = len(out)
                out.append({"move": e, "seat": deciders[k], "round": steps[k][0].round, "reveals": []})
        return out

    def view(self) -> dict[str, Any]:
        st = self.state
        seat = self.screen_seat()
        human_turn = not st.is_terminal() and self.session.seats[st.current_player()] == HUMAN
        out = state_view(st, self.names, seat, legal=human_turn)
        moves = self.moves()
        out.update({
            "game": self.id,
            "file": self.session.path.name,
            "seats": list(self.session.seats),
            "mirror": self.session.mirror,
            "screen_seat": seat,
            "human_to_move": human_turn,
            "bot_to_move": not st.is_terminal() and not human_turn,
            "moves": moves,
            "can_undo": not st.is_terminal() and any(self.session.seats[m["seat"]] == HUMAN for m in moves),
            "scoring": scoring_view(self.last_scoring, self.names),
            "teach": self.teacher.view(self.session.record["events"]) if self.teacher is not None else None,
        })
        return out

    def record_for_download(self) -> dict[str, Any]:
        """The record as the page may have it: without the seed while the deck is still hidden."""
        rec = copy.deepcopy(self.session.record)
        if not self.state.is_terminal() and not self.session.mirror:
            rec.pop("seed", None)
        return rec

    # -- changes -----------------------------------------------------------------
    @contextlib.contextmanager
    def _locked(self):
        """Hold the game's lock, or refuse at once (409) while another change runs."""
        if not self.lock.acquire(blocking=False):
            raise WebError("the game is busy with another move; wait for it", 409)
        try:
            yield
        finally:
            self.lock.release()

    def decide(self, body: Any) -> dict[str, Any]:
        """A human decision ``{"seat": S, "action": A, "answers": [...]}``; the new view, or ``{"need": ...}``."""
        if not isinstance(body, dict):
            raise WebError("expected a JSON object {\"seat\": S, \"action\": A}")
        unknown = set(body) - {"seat", "action", "answers"}
        if unknown:
            raise WebError(f"unknown field {sorted(unknown)[0]!r} (expected seat, action, answers)")
        seat, action, answers = body.get("seat"), body.get("action"), body.get("answers", [])
        if isinstance(seat, bool) or not isinstance(seat, int):
            raise WebError(f"seat: expected an integer, got {json.dumps(seat)}")
        if isinstance(action, bool) or not isinstance(action, int):
            raise WebError(f"action: expected an action id (an integer), got {json.dumps(action)}")
        if not isinstance(answers, list) or not all(isinstance(a, str) for a in answers) or len(answers) > 16:
            raise WebError("answers: expected a list of at most 16 card or tile names")
        with self._locked():
            st = self.state
            n = st.game.num_players
            if st.is_terminal():
                raise WebError("the game is over: no more decisions", 409)
            if not 0 <= seat < n:
                raise WebError(f"seat: expected 0 to {n - 1}, got {seat}")
            mover = st.current_player()
            if seat != mover:
                raise WebError(f"seat {seat} cannot decide now: it is seat {mover}'s decision", 403)
            if self.session.seats[seat] != HUMAN:
                raise WebError(f"seat {seat} is played by the bot {self.session.seats[seat]!r}", 403)
            legal = st.legal_actions()
            if action not in legal:
                raise WebError(f"action: {action} is not a legal decision here (legal: "
                               + ", ".join(f"{a} ({st.action_to_text(a)})" for a in legal) + ")")
            events = self.session.record["events"]
            before, at = st, len(events)
            ply = count_decisions(self.session.record)
            try:
                self._commit(action, list(answers))
                if self.teacher is not None:  # the state before: the game never changes it again (_commit)
                    self.teacher.submit(tuple(self.session.record["events"][:at + 1]), before, action, ply)
            except NeedAnswer as need:
                return {"need": {"question": need.question, "options": need.options, "answered": len(answers),
                                 "seat": seat, "action": action, "text": st.action_to_text(action)}}
        return self.view()

    def advance(self) -> dict[str, Any]:
        """Let the bot to move make one decision (nothing when a human is to move or the game is over).
        In teaching mode the bots wait for the checks under way (see the module docstring)."""
        if self.teacher is not None:
            self.teacher.wait()
        with self._locked():
            st = self.state
            if not st.is_terminal() and self.session.seats[st.current_player()] != HUMAN:
                bot = self.session.bots[st.current_player()]
                self._commit(bot.step(st), [])
        return self.view()

    def undo(self) -> dict[str, Any]:
        """Take back the last human decision (see :meth:`kwsearch.play.Session.undo`); not after the end."""
        with self._locked():
            if self.state.is_terminal():
                raise WebError("the game is over: a finished game cannot be taken back", 409)
            before = copy.deepcopy(self.session.record), self.session.state
            try:
                done = self.session.undo()
            except PlayError as exc:  # the file could not be written: the game stays as it was
                self.session.record, self.session.state = before
                raise WebError(str(exc), 500) from None
            if not done:
                raise WebError("nothing to undo: no human decision yet", 409)
            reports = record_scorings(self.session.record, source=self.session.path.name)
            self.last_scoring = reports[-1] if reports else None
        out = self.view()
        out["reshuffled"] = self.session.reshuffled  # the undrawn cards were shuffled again
        return out

    def _commit(self, action: int, answers: list[str]) -> None:
        """Apply ``action`` to copies, write the new record, then make the copies the game."""
        session = self.session
        st = session.state.copy()
        rec = copy.deepcopy(session.record)
        todo = list(answers)

        def draw(s) -> int:
            names = [ct.name for ct in s.game.components.card_types]
            left = sorted({names[t] for t in s.deck})
            if not todo:
                raise NeedAnswer("Which research card was turned up?", left)
            answer = todo.pop(0)
            match = [t for t in set(s.deck) if names[t].lower() == answer.strip().lower()]
            if not match:
                raise WebError(f"answers: {answer!r} is not an undrawn research card (undrawn: {', '.join(left)})")
            t = match[0]
            del s.deck[len(s.deck) - 1 - s.deck[::-1].index(t)]  # the topmost such card
            return t

        def draw_special(s, r: int) -> int:
            tiles = s.game.components.specialty_tiles
            left = sorted({tiles[t].name for t in s.spec_undrawn[r]})
            if not todo:
                raise NeedAnswer("Which specialty tile was placed?", left)
            answer = todo.pop(0)
            match = [t for t in s.spec_undrawn[r] if tiles[t].name.lower() == answer.strip().lower()]
            if not match:
                raise WebError(f"answers: {answer!r} is not an undrawn specialty tile of this stack "
                               f"(undrawn: {', '.join(left)})")
            s.spec_undrawn[r].remove(match[0])
            return match[0]

        mirror = session.mirror
        # The scoring log spans decisions (Benz's fifth buyer is chosen during scoring), so the
        # copy continues the session's log; a finished scoring goes into the record as in play.
        log = st.score_log = list(session.state.score_log or [])
        money = st.money()
        Recorder(rec, st).apply(action, draw=draw if mirror else None, draw_special=draw_special if mirror else None)
        if todo:
            raise WebError(f"answers: {len(todo)} more than the decision turned up")
        reports = reports_from_log(log, money, st) if any(ev[0] == "end" for ev in log) else []
        if reports:
            del log[:]
            rec.setdefault("scoring", []).extend(r.to_json() for r in reports)
            self.last_scoring = reports[-1]
        try:
            write_record(session.path, rec)
        except PlayError as exc:
            raise WebError(str(exc), 500) from None
        session.state, session.record = st, rec
        for bot in session.bots.values():
            if hasattr(bot, "observe"):
                bot.observe(action)


class GameTable:
    """The games of this server and the record files of its games folder."""

    def __init__(self, folder: Path, hint_iterations: int = 5000):
        self.folder = Path(folder)
        self.hint_iterations = hint_iterations
        self.games: dict[str, WebGame] = {}
        self._files: dict[str, Path] = {}   # server-issued id -> a file of the folder
        self._lock = threading.Lock()

    def get(self, gid: Any) -> WebGame:
        game = self.games.get(gid) if isinstance(gid, str) else None
        if game is None:
            raise WebError(f"no game {json.dumps(gid)} on this server", 404)
        return game

    def _open(self, record: dict[str, Any], seats: list[str], path: Path, mirror: bool, seed: int,
              names: list[str] | None = None, teach: TeachSettings | None = None) -> WebGame:
        session = Session(record, seats, path, mirror=mirror, seed=seed, hint_iterations=self.hint_iterations,
                          ask=_no_terminal, say=lambda text: None, names=names)
        game = WebGame(secrets.token_urlsafe(9), session, teach)
        self.games[game.id] = game
        return game

    def create(self, body: Any) -> WebGame:
        """A new game: ``{"seats": "human,random", "seed": 0, "v6": false, "mirror": false, "setup": {...},
        "teach": {"threshold": "mistake", "iterations": 5000, "seed": 0}}`` (``teach``: teaching mode, each
        field optional; absent or null: off).

        Without ``seed`` (or with ``null``) the game gets an unpredictable one; either way the
        seed stays in the record file and never goes back to the page while the game runs.

        ``setup`` (mirror mode) may give the table's ``chain`` (action tiles in track
        order, tail first), ``offered`` start tiles and face-up ``display``, as in
        ``kwsearch play --mirror``.
        """
        if not isinstance(body, dict):
            raise WebError("expected a JSON object {\"seats\": \"human,random\", ...}")
        unknown = set(body) - {"seats", "seed", "v6", "mirror", "setup", "names", "teach"}
        if unknown:
            raise WebError(f"unknown field {sorted(unknown)[0]!r} (expected seats, seed, v6, mirror, setup, names, "
                           "teach)")
        teach = None
        if body.get("teach") is not None:
            try:
                teach = TeachSettings.from_json(body["teach"])
            except TeachError as exc:
                raise WebError(str(exc)) from None
        names = body.get("names")
        if names is not None and (not isinstance(names, list) or not all(isinstance(x, str) for x in names)):
            raise WebError("names: expected a list of seat names")
        mirror = body.get("mirror", False)
        v6 = body.get("v6", False)
        seed = body.get("seed")
        if seed is None:
            seed = secrets.randbits(63)  # unpredictable: nothing the page knows fixes the deck
        if not isinstance(mirror, bool) or not isinstance(v6, bool):
            raise WebError("mirror, v6: expected true or false")
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2 ** 63:
            raise WebError(f"seed: expected an integer from 0 to 2**63 - 1, got {json.dumps(seed)}")
        seats_text = body.get("seats")
        if mirror and not seats_text:
            seats_text = ",".join([HUMAN] * 4)
        if not isinstance(seats_text, str) or len(seats_text) > 400:
            raise WebError("seats: expected a text like \"human,ismcts:seconds=2,heuristic\"")
        try:
            seats = parse_seats(seats_text)
            check_mirror(seats, mirror)
        except PlayError as exc:
            raise WebError(str(exc).replace("--seats: ", "seats: ").replace("--mirror: ", "mirror: ")) from None
        if teach is not None and HUMAN not in seats:
            raise WebError("teach: no human seat to teach (the seats are all bots)")
        record = new_game_record(len(seats), seed, seats, v6=v6)
        if mirror:
            setup = body.get("setup") or {}
            if not isinstance(setup, dict) or set(setup) - {"chain", "offered", "display"} \
                    or not all(isinstance(v, str) and len(v) < 400 for v in setup.values()):
                raise WebError("setup: expected {\"chain\": \"0 3 4 ...\", \"offered\": \"A, D\", "
                               "\"display\": \"Horch, Otto\"} (each optional)")
            answers = iter([setup.get("chain", ""), setup.get("offered", ""), setup.get("display", "")])
            try:
                record = mirror_setup(record, ask=lambda prompt: next(answers), say=lambda text: None)
            except KwsearchError as exc:
                raise WebError(f"setup: {exc}") from None
        with self._lock:
            path = reserve_file(self.folder)
            try:
                return self._open(record, seats, path, mirror, seed, names or None, teach)
            except PlayError as exc:
                path.unlink(missing_ok=True)
                raise WebError(str(exc).replace("--names: ", "names: ")) from None
            except BaseException:
                path.unlink(missing_ok=True)  # the empty file we reserved; nothing else was written
                raise

    # -- the folder ----------------------------------------------------------------
    def files(self) -> list[dict[str, Any]]:
        """The resumable record files of the games folder, each with a server-issued id."""
        try:
            entries = sorted((p for p in self.folder.iterdir() if GAME_FILE.match(p.name) and p.is_file()),
                             key=lambda p: p.stat().st_mtime, reverse=True)
        except OSError:
            entries = []
        ids = {p: i for i, p in self._files.items()}
        out = []
        for p in entries[:200]:
            fid = ids.get(p)
            if fid is None:
                fid = secrets.token_urlsafe(6)
                self._files[fid] = p
            open_game = next((g.id for g in self.games.values() if g.session.path == p), None)
            out.append({"id": fid, "name": p.name, "game": open_game})
        return out

    def resume(self, body: Any) -> WebGame:
        """Continue the game of a listed file (``{"file": id}``) in the same file."""
        fid = body.get("file") if isinstance(body, dict) else None
        path = self._files.get(fid) if isinstance(fid, str) else None
        if path is None:
            raise WebError("file: expected the id of a file listed by GET /api/games (paths are not accepted)",
                           404)
        with self._lock:
            for game in self.games.values():
                if game.session.path == path:
                    return game
            try:
                record = load_for_resume(path)
                seats = seats_of_record(record, path)
                mirror = bool(record.get("mirror"))
                check_mirror(seats, mirror)
            except KwsearchError as exc:
                raise WebError(str(exc)) from None
            seed = record.get("seed", 0)
            return self._open(record, seats, path, mirror, seed if isinstance(seed, int) else 0)


def _no_terminal(prompt: str) -> str:
    """The session's ``ask`` on the web: every question comes through a request, never a terminal."""
    raise EOFError(prompt)
