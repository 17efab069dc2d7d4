"""A game in the terminal: any mix of human and bot seats, hints, undo, mirror mode.

The session keeps the game as a record (``kwsearch-game/1``) and a reference
state; every decision and every card turned up is appended to the record and the
record is written to its file at once (atomically), so Ctrl-C, a crash or a closed
terminal lose nothing; ``kwsearch play --resume FILE`` continues the game. In
``kwsearch play`` the first Ctrl-C ends the program at once, even while a bot
searches (:meth:`Session.ctrl_c_ends_game`): the file keeps every finished decision
and the one in progress is dropped.

Input and output go through two callables (``ask(prompt) -> str`` raising
``EOFError`` at the end of input, and ``say(text)``), so the same session runs on
a terminal, under a test with scripted input, or behind another front end.

**Mirror mode** follows a game on a real table: every seat is human and the deck
is the table's, so the program never draws — it asks which research cards were
turned up (and, at the start, how the table was set up).
"""

from __future__ import annotations

import json
import signal
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

from .errors import IllegalMoveError, KwsearchError
from .fileio import write_json_atomic
from .seeds import derive_seed
from .records import REVEAL, RECORD_FORMAT, Recorder, count_decisions, record_header, replay
from .game import Game
from .rules import State

HUMAN = "human"

HELP = """Commands at your turn:
  N          take option N of the menu
  TEXT       take a move written in notation (e.g. "tile 3", "market pass")
  ?          hints: a short search shows the best plans for this turn
  undo       take back your last decision (and the moves made after it)
  board      show the board again
  cards      the research cards by their plain names, and what each does
  record     say where the game is saved
  quit       stop here; the record is saved (continue with --resume)"""


class PlayError(KwsearchError):
    """A bad ``play`` setting (seats, record, resume file)."""


class Quit(Exception):
    """The user asked to stop (or input ended); the record is saved."""


class Interrupted(BaseException):
    """Ctrl-C during a game (:meth:`Session.ctrl_c_ends_game`): the game ends at once. The record on
    disk holds every finished decision; the one in progress (a bot's search, a prompt) is dropped.

    Not a :class:`KeyboardInterrupt`, which a search takes as "stop and answer now" (``suggest``):
    a bot would make its move instead of the program ending."""


def parse_seats(text: str | None, players: int | None = None) -> list[str]:
    """``"human,ismcts:seconds=2,heuristic"`` -> a validated list of seat specs.

    Commas separate seats, except inside a bot spec's options: a part that looks
    like ``key=value`` belongs to the spec before it.
    """
    from .bots import from_spec
    if not text:
        raise PlayError("--seats: expected 2-4 comma-separated seats, e.g. human,heuristic,ismcts:seconds=2")
    seats: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            raise PlayError(f"--seats: empty seat in {text!r}")
        if "=" in part and ":" not in part and seats and seats[-1] != HUMAN:
            seats[-1] += "," + part  # e.g. "ismcts:seconds=2,c=0.5"
        else:
            seats.append(part)
    if not 2 <= len(seats) <= 4:
        raise PlayError(f"--seats: expected 2 to 4 seats, got {len(seats)} in {text!r}")
    if players is not None and players != len(seats):
        raise PlayError(f"--seats: {len(seats)} seats given but the game has {players} players")
    for s in seats:
        if s.lower() == HUMAN:
            continue
        try:
            from_spec(s)
        except ValueError as exc:
            raise PlayError(f"--seats: {exc}") from None
    return [HUMAN if s.lower() == HUMAN else s for s in seats]


def parse_names(text: str | None, players: int | None = None) -> list[str] | None:
    """``"Ann,Bob,Cleo"`` -> the seats' display names (checked), or None when not given."""
    if text is None:
        return None
    names = [p.strip() for p in text.split(",")]
    if players is not None:
        check_names(names, players)
    return names


def check_names(names: list[str], players: int) -> None:
    if len(names) != players:
        raise PlayError(f"--names: expected {players} comma-separated names (one per seat), got {len(names)}")
    for nm in names:
        if not nm or len(nm) > 20 or not nm.isprintable():
            raise PlayError(f"--names: expected names of 1 to 20 printable characters, got {nm!r}")
    if len(set(n.lower() for n in names)) != len(names):
        raise PlayError(f"--names: the names must differ, got {', '.join(names)}")


def check_mirror(seats: list[str], mirror: bool) -> None:
    if mirror and any(s != HUMAN for s in seats):
        raise PlayError("--mirror: every seat must be human (the program does not know the table's deck)")


def write_record(path: Path, record: dict[str, Any]) -> None:
    """Write atomically (kwsearch.fileio): a unique temporary file renamed over the target."""
    try:
        write_json_atomic(path, record, what="game record")
    except KwsearchError as exc:
        raise PlayError(str(exc)) from None


class Session:
    """One game: seats, the record and its file, the bots, hints."""

    def __init__(self, record: dict[str, Any], seats: list[str], path: Path, *, mirror: bool = False,
                 seed: int = 0, hint_iterations: int = 5000,
                 ask: Callable[[str], str] = input, say: Callable[[str], None] = print,
                 names: list[str] | None = None, teach: Any = None):
        from .bots import from_spec
        from .render import seat_names
        self.record, self.seats, self.path = record, seats, path
        self.mirror, self.seed, self.hint_iterations = mirror, seed, hint_iterations
        # Teaching mode: a kwsearch.teach.TeachSettings (given by the front end: play sits below teach in the
        # layers), whose check(state, action, ply) values each human decision as the review would.
        self.teach = teach
        self.ask, self.say = ask, say
        check_mirror(seats, mirror)
        self.bots = {s: from_spec(spec, seed=derive_seed(seed, "seat", s)) for s, spec in enumerate(seats)
                     if spec != HUMAN}
        self.state: State = replay(record, source=str(path))
        self.state.score_log = []  # scorings explain themselves (kwsearch.scoring)
        self.record.setdefault("setup", {})["seats"] = list(seats)  # a typed-in record may have no setup
        if names is not None:
            check_names(names, len(seats))
            self.record["setup"]["names"] = list(names)
        stored = self.record["setup"].get("names")
        self.names = seat_names(seats, stored if isinstance(stored, list) and len(stored) == len(seats) else None)
        self._rebuild_scoring()  # a record from an older version may lack it
        if mirror:
            self.record["mirror"] = True
        self._saving = self._interrupt_pending = False
        self._last_shown = -1
        self.save()

    # -- record --------------------------------------------------------------
    def save(self) -> None:
        """Write the record (atomically); a Ctrl-C meanwhile takes effect once it is written."""
        self._saving = True
        try:
            write_record(self.path, self.record)
        finally:
            self._saving = False
        if self._interrupt_pending:
            self._interrupt_pending = False
            raise Interrupted

    # -- Ctrl-C ------------------------------------------------------------------
    def interrupt(self) -> None:
        """End the game now (raise :class:`Interrupted`), or, while the record is being written, as
        soon as it is. The record is never written after an interrupt: the file holds what was
        finished, and an in-memory record cut mid-decision is never saved."""
        if self._saving:
            self._interrupt_pending = True
            return
        raise Interrupted

    @contextmanager
    def ctrl_c_ends_game(self) -> Iterator["Session"]:
        """``with session.ctrl_c_ends_game(): session.run()`` — Ctrl-C (SIGINT) then ends the game at
        once, even in the middle of a bot's long search (its slices return to Python every 50 ms) or
        at a prompt, by raising :class:`Interrupted` (see :meth:`interrupt`). In the main thread
        only (elsewhere nothing changes: signals go to the main thread)."""
        if threading.current_thread() is not threading.main_thread():
            yield self
            return

        def on_sigint(signum, frame) -> None:
            self.interrupt()
        old = signal.signal(signal.SIGINT, on_sigint)
        try:
            yield self
        finally:
            signal.signal(signal.SIGINT, old)

    def deciders(self) -> list[int]:
        """The seat that made each decision of the record, in order."""
        movers: list[int] = []
        replay(self.record, movers=movers)
        return movers

    # -- applying ------------------------------------------------------------
    def _apply(self, action: int) -> list[str]:
        """Apply ``action`` for the current seat and save; says what it did (one line) and the
        breakdown of any scoring it finished; returns the names of the cards it turned up."""
        from .render import card_name, line_width, step_account, wrap
        from .scoring import reports_from_log
        before = len(self.record["events"])
        seat = self.state.current_player()
        prev = self.state.copy()
        log = self.state.score_log
        mark = len(log)
        Recorder(self.record, self.state).apply(action, draw=self._ask_card if self.mirror else None,
                                                draw_special=self._ask_special if self.mirror else None)
        reports = reports_from_log(log[mark:], prev.money(), self.state) if any(
            ev.kind == "end" for ev in log[mark:]) else []
        if reports:
            del log[:]
            self.record.setdefault("scoring", []).extend(r.to_json() for r in reports)
        self.save()
        new = self.record["events"][before + 1:]
        cards = [c.strip() for e in new for c in e.strip()[len(REVEAL):].split(",")]
        account = step_account(prev, self.state, action, self.name(seat))
        by_name = {ct.name.lower(): card_name(ct) for ct in self.state.game.components.card_types}
        shown = [by_name.get(c.lower(), c) for c in cards]  # the cards' display names, as the menus say
        self.say("\n".join(wrap(account + (f"  [turned up: {', '.join(shown)}]" if cards else ""))))
        for r in reports:
            self.say("")
            for line in r.lines(self.names, line_width()):
                self.say(line)
        for bot in self.bots.values():
            if hasattr(bot, "observe"):
                bot.observe(action)
        return cards

    def _ask_choice(self, question: str, options: list[tuple[str, int]], what: str) -> int:
        """Ask until the answer is a number of the menu or one of the names; returns its value."""
        menu = ", ".join(f"{k + 1}={name}" for k, (name, _) in enumerate(options))
        while True:
            answer = self.ask(f"{question} ({menu}) ").strip()
            if answer.isdigit() and 1 <= int(answer) <= len(options):
                return options[int(answer) - 1][1]
            for name, value in options:
                if name.lower() == answer.lower():
                    return value
            self.say(f"  {answer!r} is not {what}; answer with a number or a name")

    def _ask_card(self, st: State) -> int:
        names = [ct.name for ct in st.game.components.card_types]
        left = sorted(set(st.deck), key=lambda t: names[t])
        t = self._ask_choice("Which research card was turned up?", [(names[t], t) for t in left],
                             "an undrawn research card")
        del st.deck[len(st.deck) - 1 - st.deck[::-1].index(t)]  # the topmost such card
        return t

    def _ask_special(self, st: State, r: int) -> int:
        tiles = st.game.components.specialty_tiles
        left = sorted(set(st.spec_undrawn[r]), key=lambda t: tiles[t].name)
        t = self._ask_choice("Which specialty tile was placed?", [(tiles[t].name, t) for t in left],
                             "a specialty tile of that stack")
        st.spec_undrawn[r].remove(t)
        return t

    def undo(self) -> bool:
        """Take back the last decision of a human seat and everything after it.

        When what is taken back turned up research cards (or V6 specialty tiles), the
        undrawn ones are shuffled again, so that the same decision made again does not
        show the same cards: the record gets a new ``seed``, ``derive_seed(seed,
        "reshuffle", K)`` (K the decisions kept), which orders only the cards no reveal
        names. The record stays an ordinary, replayable ``kwsearch-game/1`` and resumes
        with the new order. A mirror game's deck is the table's: nothing is shuffled.
        ``self.reshuffled`` says whether this undo did.
        """
        self.reshuffled = False
        deciders = self.deciders()
        humans = [k for k, s in enumerate(deciders) if self.seats[s] == HUMAN]
        if not humans:
            return False
        keep = humans[-1]
        events = self.record["events"]
        idx, count = 0, 0
        while idx < len(events) and count < keep:
            if not events[idx].strip().lower().startswith(REVEAL):
                count += 1
            idx += 1
            while idx < len(events) and events[idx].strip().lower().startswith(REVEAL):
                idx += 1
        removed = events[idx:]
        del events[idx:]
        if not self.mirror and any(e.strip().lower().startswith(REVEAL) for e in removed):
            self.record["seed"] = derive_seed(self.record.get("seed", 0), "reshuffle", keep)
            self.reshuffled = True
        self.record.pop("result", None)
        self.state = replay(self.record, source=str(self.path))
        self.state.score_log = []
        self._rebuild_scoring()
        for bot in self.bots.values():
            bot.restart()
        self.save()
        return True

    def _rebuild_scoring(self) -> None:
        """The record's ``scoring`` field for the events it holds now (after an undo)."""
        from .scoring import record_scorings
        reports = record_scorings(self.record, source=str(self.path))
        if reports:
            self.record["scoring"] = [r.to_json() for r in reports]
        else:
            self.record.pop("scoring", None)

    # -- the loop ------------------------------------------------------------
    def name(self, seat: int) -> str:
        return self.names[seat]

    def run(self) -> State:
        """Play until the game ends; raises :class:`Quit` when the user stops."""
        from .bots import MAX_MATCH_DECISIONS
        from .game import win_shares
        from .render import render, wrap_phrases
        # Only bots seated: a match between them, capped like a tournament's games (the rules allow a
        # round without end, and bots can loop in one). A human can always end the game, so no cap then.
        cap = None if HUMAN in self.seats else MAX_MATCH_DECISIONS
        decisions = sum(1 for e in self.record.get("events", [])
                        if not (isinstance(e, str) and e.strip().lower().startswith(REVEAL)))
        while not self.state.is_terminal():
            seat = self.state.current_player()
            if self.seats[seat] != HUMAN:
                if cap is not None and decisions >= cap:
                    money = self.state.money()
                    shares = win_shares(money)
                    self.say("")
                    self.say("\n".join(wrap_phrases(
                        f"Adjudicated: only bots are seated and the game passed {cap:,} decisions without "
                        "ending (the rules allow a round without end); the result is the money now: "
                        + ", ".join(f"{self.name(s)} {money[s]} (win share {shares[s]:g})"
                                    for s in range(len(money))))))
                    self.say("\n".join(wrap_phrases(f"The record (unfinished) is in {self.path}")))
                    return self.state
                action = self.bots[seat].step(self.state)
                self._apply(action)
                decisions += 1
                self._last_shown = -1
                continue
            # The board again when another seat is to decide or the phase (or round) changed, e.g. at
            # the start of the action phase, after the start tiles (issue 31).
            shown = (seat, self.state.round, self.state.phase)
            if self._last_shown != shown:
                self.say("")
                self.say(render(self.state, self.names))
                self._last_shown = shown
            self._human_turn(seat)
        money = self.state.money()
        order = sorted(range(len(money)), key=lambda s: -money[s])
        self.say("")
        self.say("\n".join(wrap_phrases("Game over: " + ", ".join(f"{self.name(s)} {money[s]}" for s in order))))
        self.say("\n".join(wrap_phrases(f"The record is in {self.path}")))
        return self.state

    def _menu(self, seat: int) -> list[int]:
        from .render import DECISION_TEXT, menu_label, wrap
        legal = self.state.legal_actions()
        kind = self.state.pending()
        self.say("\n".join(wrap(f"{self.name(seat)} (seat {seat}) to decide: {DECISION_TEXT.get(kind, kind)}")))
        for k, a in enumerate(legal):
            self.say("\n".join(wrap(f"  {k + 1:2d}. {menu_label(self.state, a)}", indent=" " * 8)))
        return legal

    def _human_turn(self, seat: int) -> None:
        legal = self._menu(seat)
        while True:
            try:
                line = self.ask("> ").strip()
            except EOFError:
                raise Quit("input ended") from None
            low = line.lower()
            if not line:
                continue
            if low in ("quit", "exit", "q"):
                raise Quit("quit")
            if low in ("help", "h"):
                from .render import card_legend
                self.say(HELP)
                self.say("Research cards (plain name, notation, what it does):")
                for text in card_legend(self.state.game.components):
                    self.say("  " + text)
                continue
            if low in ("board", "show"):
                from .render import render
                self.say(render(self.state, self.names))
                continue
            if low in ("cards", "legend"):
                from .render import card_legend
                for text in card_legend(self.state.game.components):
                    self.say(text)
                continue
            if low == "record":
                self.say(f"the game is saved after every move in {self.path}")
                continue
            if low in ("?", "hint", "hints"):
                self.hints()
                continue
            if low == "undo":
                if self.undo():
                    self.say("took back your last decision"
                             + ("; the undrawn research cards are shuffled again" if self.reshuffled else ""))
                    self._last_shown = -1
                    return
                self.say("nothing to undo: no human decision yet")
                continue
            if line.isdigit():
                k = int(line)
                if not 1 <= k <= len(legal):
                    self.say(f"  no option {k}: choose 1 to {len(legal)}")
                    continue
                action = legal[k - 1]
            else:
                try:
                    action = self.state.parse_move(line)
                except IllegalMoveError as exc:
                    self.say(f"  {exc}")
                    continue
            before, ply = self.state.copy(), self.decisions_made()
            self._apply(action)
            if self.teach is not None:
                self._teach(before, action, ply)
            return

    def decisions_made(self) -> int:
        """The decisions of the record so far (its events without the cards turned up)."""
        return count_decisions(self.record)

    def _teach(self, before: State, action: int, ply: int) -> None:
        """Teaching mode: check the human decision ``action`` just made at ``before`` (decision ``ply``)
        as the review would (``self.teach.check``: :func:`kwsearch.teach.check_decision`), before any bot replies; when it
        reaches the threshold, say so and offer to take it back."""
        from .render import wrap_phrases
        verdict = self.teach.check(before, action, ply)
        if verdict is None or not verdict.fires:
            return
        self.say("\n".join(wrap_phrases(f"  {verdict.message()} Take back? Type 'undo' to take it back, "
                                         "Enter to play on.", indent="    ")))
        while True:
            try:
                answer = self.ask("take back? (undo / Enter) ").strip().lower()
            except EOFError:
                raise Quit("input ended") from None
            if answer in ("", "no", "n", "play on"):
                return
            if answer in ("undo", "u", "yes", "y"):
                self.undo()
                self.say("took back your last decision"
                         + ("; the undrawn research cards are shuffled again" if self.reshuffled else ""))
                self._last_shown = -1
                return
            self.say("  answer 'undo' to take the decision back, or Enter to play on")

    def hints(self) -> None:
        from .analysis import analyse, plan_text
        from .render import wrap_phrases
        from .search import SearchLimits
        # Each hint gets its own stream: the game's seed and the decision it is asked at.
        seed = derive_seed(self.seed, "hint", len(self.record.get("events", [])))
        # Issue 29: the hint re-searches its options until the best is clear or they are equal
        # (kwsearch.confidence), so a short hint and a long suggest differ only within the band.
        an = analyse(self.state, SearchLimits(iterations=self.hint_iterations, until_clear=True), seed=seed, top=3)
        note = ", stopped early" if an.interrupted else ""
        cut = an.result.config.cutoff  # the money where the playouts stopped, not at the game's end
        say = lambda text, indent="    ": self.say("\n".join(wrap_phrases(text, indent=indent)))  # noqa: E731
        say(f"  hints ({an.result.iterations:,} iterations{note}"
            + (f"; money at the playout cut-off, {cut} decisions on" if cut else "") + "):")
        for c in an.ranked():
            e = c.estimate
            win = f"{100 * c.win_prob:.0f}%" if e is None else f"{100 * e.win:.0f}% [{100 * e.win_low:.0f}, {100 * e.win_high:.0f}]"
            say(f"  {(c.order if c.rank is None else c.rank) + 1}{'=' if c.equal and len(an.candidates) > 1 else '.'} "
                f"{plan_text(self.state, c.plan)}  — win {win}, "
                f"{'money@cut' if cut else 'money'} {c.money:.1f}, {c.visits:,} visits", " " * 6)
        if an.verification is not None:
            say(f"  {an.verification.summary()}; hint: {an.equal_text(self.state)}")
        # issue 30: what the cards bring and the finishing places, from the same search's samples
        from .outlook import text_lines
        from .render import line_width
        for line in text_lines(an, lambda c: plan_text(self.state, c.plan[:1]), self.names, line_width()):
            self.say(line)


# ---------------------------------------------------------------------------
# Starting and resuming
# ---------------------------------------------------------------------------


def new_game_record(players: int, seed: int, seats: list[str], v6: bool = False) -> dict[str, Any]:
    game = Game(players, v6=v6) if v6 else Game(players)
    state = game.new_initial_state(seed, engine="reference")
    return record_header(state, seed, seats)


def mirror_setup(record: dict[str, Any], ask: Callable[[str], str], say: Callable[[str], None]) -> dict[str, Any]:
    """Ask how the real table was set up (Enter keeps the value shown)."""
    setup = record["setup"]
    n = record["players"]
    # "tile 3" -> "3", "special A3" -> "A3" (a specialty tile is named, an action tile numbered)
    tiles = [e.split()[1] for e in setup["chain"][n:]]
    say("Mirror mode: enter the table's set-up (Enter keeps the value shown).")
    answer = ask(f"Action tiles in track order, tail to front [{' '.join(tiles)}]: ").strip()
    if answer:
        setup["chain"] = [f"seat {s}" for s in range(n)] + [
            f"tile {t}" if t.isdigit() else f"special {t}" for t in answer.replace(",", " ").split()]
    offered = setup["start_tiles_offered"]
    answer = ask(f"Start tiles offered [{', '.join(offered)}]: ").strip()
    if answer:
        setup["start_tiles_offered"] = [x.strip() for x in answer.split(",") if x.strip()]
    display = setup["display"]
    answer = ask(f"The face-up research cards [{', '.join(display)}]: ").strip()
    if answer:
        setup["display"] = [x.strip() for x in answer.split(",") if x.strip()]
    replay(record)  # checks the set-up; raises InvalidRecordError naming the field
    return record


def load_for_resume(path: Path) -> dict[str, Any]:
    from .formats import read_json
    obj = read_json(path, what="game record")
    if not isinstance(obj, dict) or obj.get("format") != RECORD_FORMAT:
        got = obj.get("format") if isinstance(obj, dict) else None
        raise PlayError(f"{path}: format: expected {RECORD_FORMAT!r} (a game record), got {json.dumps(got)}")
    replay(obj, source=str(path))
    return obj


def check_resume_settings(record: dict[str, Any], path: Path, *, v6: bool | None = None,
                          seed: int | None = None, mirror: bool | None = None) -> None:
    """Refuse settings given with ``--resume`` that contradict the record (``None``: not given).

    A resumed game keeps the record's options; silently ignoring ``--v6`` or
    ``--seed`` would let a user believe they changed something they did not.
    """
    rec_v6 = bool(record.get("v6", False))
    if v6 is not None and v6 != rec_v6:
        raise PlayError(f"--v6: {path} is a game {'with' if rec_v6 else 'without'} the V6 specialty tiles; "
                        "a resumed game keeps its options (drop --v6)")
    rec_seed = record.get("seed", 0)  # a record without a seed is set up from seed 0
    if seed is not None and seed != rec_seed:
        raise PlayError(f"--seed {seed}: {path} was set up with seed {json.dumps(rec_seed)}; a resumed game "
                        "keeps its seed (drop --seed)")
    if mirror and not record.get("mirror"):
        raise PlayError(f"--mirror: {path} is not a mirror-mode game (its deck is the program's); a resumed game "
                        "keeps its mode (drop --mirror)")


def seats_of_record(record: dict[str, Any], path: Path) -> list[str]:
    seats = record.get("setup", {}).get("seats")
    if not isinstance(seats, list) or not all(isinstance(s, str) for s in seats):
        raise PlayError(f"{path}: setup.seats: expected a list of seat specs (human or a bot spec); "
                        "pass --seats to choose them")
    try:
        return parse_seats(",".join(seats), record.get("players"))
    except PlayError as exc:
        raise PlayError(f"{path}: setup.seats: {str(exc).split(': ', 1)[1]} (pass --seats to choose others)") \
            from None


__all__ = ["HUMAN", "Session", "PlayError", "Quit", "Interrupted", "parse_seats", "parse_names", "check_names",
           "new_game_record", "mirror_setup", "load_for_resume", "check_resume_settings", "seats_of_record",
           "write_record", "check_mirror"]
