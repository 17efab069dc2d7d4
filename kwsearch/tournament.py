"""Bot-vs-bot tournaments: a schedule, a results file that survives a kill, a report.

    >>> spec = TournamentSpec(bots=("random", "heuristic"), players=2, games=4, seed=7)
    >>> [spec.seat_bots(i) for i in range(4)]
    [[0, 1], [1, 0], [0, 1], [1, 0]]
    >>> d = [spec.deck_seed(i) for i in range(4)]
    >>> d[0] == d[1] != d[2] == d[3]
    True
    >>> TournamentSpec(bots=("heuristic", "heuristic"), players=2, games=2).names
    ['heuristic#1', 'heuristic#2']

The schedule (modelled on cutechess-cli / fastchess):

* **Line-ups.** With as many bots as seats, every game seats all of them. With
  more bots than seats, every combination of ``players`` bots is a line-up, in
  turn. With fewer, the bots fill the seats cyclically (``A B A B``; for three
  bots at four seats ``A B C A``, ``B C A B``, ``C A B C``), so each bot gets as
  many seats as the others over a cycle.
* **Rotation.** A line-up is played ``players`` times in a row, rotated one seat
  each time, so every bot plays every seat equally often.
* **Paired decks.** The games of one rotation share the set-up and deck seed
  (``derive_seed(seed, "deal", block)``); the difference between bots is not
  drowned by the luck of the deal. The games of one block form a **deal set**
  (all seat rotations of one deal, the analogue of a chess game pair): the SPRT
  and the Elo interval score deal sets, not single games.
* **Seeds.** Bot ``s`` of game ``i`` gets seed ``derive_seed(seed, "game", i,
  "seat", s)``: game ``i`` is the same game whoever plays it, in whatever order or
  process.
* **Decision cap.** A game still running after ``max_decisions`` decisions
  (default :data:`kwsearch.bots.MAX_MATCH_DECISIONS`) is stopped and
  **adjudicated** on the seats' current money with the game's tie rule; its
  line says ``"adjudicated": true`` and the report counts such games per bot.
  A match rule, not a game rule (docs/rules-notes.md): the rules allow a round
  without end, and search bots can fall into one.
* **Self-play.** The same spec may be given twice (to measure seat bias, say);
  the copies are told apart as ``spec#1``, ``spec#2`` in the games and the report.

The results file is JSON Lines (``kwsearch-tournament/1``, docs/formats.md): a
header line with the settings, then one line per finished game, appended and
fsynced the moment the game ends (with several workers, in the order games end),
whole or not at all: a full disk cuts the file back to its last whole line
(:func:`kwsearch.fileio.append_whole`) and the run stops with one line.
:func:`run_tournament` with ``resume=True`` plays only the games the file lacks,
so a killed run loses at most the games that were being played, and the finished
file holds the same games, line for line apart from ``seconds`` and the order, as
an uninterrupted run. The file is locked (``flock``) while a tournament writes
it, so a second run or ``--resume`` on the same file is refused instead of
writing games twice; worker processes end by themselves when the main process
dies. The reader is strict: every line must be a complete, well-formed game,
except a last line cut short by a kill, which is dropped.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import signal
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from .errors import KwsearchError
from .fileio import append_whole
from .jsonload import loads_json
from .seeds import check_seed, derive_seed, seed_problem

RESULTS_FORMAT = "kwsearch-tournament/1"
#: The header's ``seeds`` value: how deal and bot seeds are derived (files without it used another rule).
SEEDS_RULE = "derive_seed/1"
#: The most games one tournament plays, and the most local worker processes.
MAX_GAMES = 10_000_000
MAX_WORKERS = 256
#: The largest decision cap a tournament accepts (``--max-decisions``).
MAX_DECISIONS_CAP = 10_000_000


class TournamentError(KwsearchError):
    """A bad tournament setting or results file (the message names the file, line and field).

    ``field`` names the setting at fault (``bots``, ``players``, ``games``,
    ``sprt``, ``workers``, ``backend``), or is None for a problem with a file.
    """

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


# ---------------------------------------------------------------------------
# Schedule
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class SPRT:
    """Sequential probability ratio test for two bots: H0 elo = elo0 against H1 elo = elo1.

    Uses the normal approximation of the log-likelihood ratio over the scores of
    the units (the GSPRT of fishtest): ``LLR = (s1 - s0) (2 Σx - n (s0 + s1)) / (2 var)``,
    with ``s = 1 / (1 + 10^(-elo/400))`` and ``var`` the sample variance of the
    scores. The units are **deal sets** (all seat rotations of one deal, see the
    module docstring), scored by the mean of their games' scores, as fishtest
    scores game pairs; the score of a game is the share of the win held by the
    first bot's seats, normalised by its share of the seats (0.5 = equal strength).
    """

    elo0: float = 0.0
    elo1: float = 20.0
    alpha: float = 0.05
    beta: float = 0.05

    @classmethod
    def parse(cls, text: str) -> "SPRT":
        """``"elo0=0,elo1=20"`` (also ``alpha=``, ``beta=``)."""
        values: dict[str, float] = {}
        for part in filter(None, (p.strip() for p in text.split(","))):
            key, eq, value = part.partition("=")
            key = key.strip().lower()
            if not eq or key not in ("elo0", "elo1", "alpha", "beta"):
                raise TournamentError(f"SPRT: expected elo0=E0,elo1=E1[,alpha=A,beta=B], got {text!r}", "sprt")
            if key in values:
                raise TournamentError(f"SPRT: {key} is given twice in {text!r}", "sprt")
            try:
                values[key] = float(value) if len(value) <= 40 else math.nan
            except ValueError:
                values[key] = math.nan
            if not math.isfinite(values[key]) or abs(values[key]) > 2000:
                raise TournamentError(f"SPRT: {key} expects a finite number (Elo within ±2000), "
                                      f"got {value.strip()!r}", "sprt")
        sprt = cls(**values)
        sprt.check()
        return sprt

    def check(self) -> None:
        for key in ("elo0", "elo1", "alpha", "beta"):
            v = getattr(self, key)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise TournamentError(f"SPRT: {key} expects a finite number, got {v!r}", "sprt")
            if key.startswith("elo") and abs(v) > 2000:  # as parse() says; 10 ** (2e305) overflowed in llr()
                raise TournamentError(f"SPRT: {key} expects a finite number (Elo within ±2000), got {v!r}", "sprt")
        if not self.elo1 > self.elo0:
            raise TournamentError(f"SPRT: elo1 must be greater than elo0, got elo0={self.elo0:g}, "
                                  f"elo1={self.elo1:g}", "sprt")
        if not (0 < self.alpha < 0.5 and 0 < self.beta < 0.5):
            raise TournamentError(f"SPRT: alpha and beta must lie in (0, 0.5), got alpha={self.alpha:g}, "
                                  f"beta={self.beta:g}", "sprt")

    @property
    def bounds(self) -> tuple[float, float]:
        return math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha)

    def llr(self, scores: list[float]) -> float:
        n = len(scores)
        if n < 2:
            return 0.0
        mean = sum(scores) / n
        var = sum((x - mean) ** 2 for x in scores) / n
        if var <= 0:
            var = 1e-3  # all scores equal so far: a small floor keeps the test defined
        s0, s1 = (1 / (1 + 10 ** (-e / 400)) for e in (self.elo0, self.elo1))
        return (s1 - s0) * (2 * sum(scores) - n * (s0 + s1)) / (2 * var)

    def status(self, scores: list[float]) -> tuple[float, str | None, int | None]:
        """(LLR, ``"H1"``/``"H0"`` or None, the number of scores at which it was decided)."""
        lo, hi = self.bounds
        for k in range(2, len(scores) + 1):
            v = self.llr(scores[:k])
            if v >= hi:
                return v, "H1", k
            if v <= lo:
                return v, "H0", k
        return self.llr(scores), None, None

    def as_dict(self) -> dict[str, float]:
        return {"elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta}


@dataclass(frozen=True)
class TournamentSpec:
    """What a tournament plays: bot specs, player count, number of games, seed, variant.

    ``bots`` holds spec strings; they are parsed and checked here
    (:class:`kwsearch.bots.BotSpec`) and kept in canonical form.
    """

    bots: tuple[str, ...]
    players: int
    games: int
    seed: int = 0
    v6: bool = False
    sprt: SPRT | None = None
    #: The decision cap after which a game is adjudicated (None: kwsearch.bots.MAX_MATCH_DECISIONS).
    max_decisions: int | None = None
    #: Load and check the weights files the specs name (False: a spec read back from a results file
    #: to show or report it; a bot built from it checks them when it is built).
    check_files: bool = field(default=True, repr=False, compare=False)

    def __post_init__(self) -> None:
        from .bots import MAX_MATCH_DECISIONS, BotSpec
        if self.max_decisions is None:
            object.__setattr__(self, "max_decisions", MAX_MATCH_DECISIONS)
        if isinstance(self.max_decisions, bool) or not isinstance(self.max_decisions, int) \
                or not 1 <= self.max_decisions <= MAX_DECISIONS_CAP:
            raise TournamentError(f"max_decisions: expected a number of decisions from 1 to {MAX_DECISIONS_CAP:,}, "
                                  f"got {self.max_decisions!r}", "max_decisions")
        if isinstance(self.players, bool) or self.players not in (2, 3, 4):
            raise TournamentError(f"players: expected 2, 3 or 4, got {self.players!r}", "players")
        if isinstance(self.bots, str) or len(self.bots) < 2:
            raise TournamentError("bots: a tournament needs at least two bot specs", "bots")
        canonical = []
        for b in self.bots:
            try:
                canonical.append(str(BotSpec.parse(b, check_files=self.check_files)))
            except KwsearchError as exc:
                raise TournamentError(str(exc), "bots") from None
        object.__setattr__(self, "bots", tuple(canonical))
        if isinstance(self.games, bool) or not isinstance(self.games, int) or not 1 <= self.games <= MAX_GAMES:
            raise TournamentError(f"games: expected a number of games from 1 to {MAX_GAMES:,}, got {self.games!r}",
                                  "games")
        problem = seed_problem(self.seed)  # the bound of every --seed (kwsearch.seeds)
        if problem is not None:
            raise TournamentError(f"seed: {problem}", "seed")
        if self.sprt is not None:
            self.sprt.check()
            if len(self.bots) != 2:
                raise TournamentError(f"sprt: needs exactly two bots, got {len(self.bots)}", "sprt")

    @property
    def names(self) -> list[str]:
        """Display names: the spec, with ``#1``, ``#2`` ... on specs given more than once."""
        counts: dict[str, int] = {}
        out = []
        for b in self.bots:
            counts[b] = counts.get(b, 0) + 1
            out.append(f"{b}#{counts[b]}" if self.bots.count(b) > 1 else b)
        return out

    # -- schedule -------------------------------------------------------------
    def lineups(self) -> list[tuple[int, ...]]:
        """The line-ups in playing order (bot indices, seat order before rotation)."""
        n, p = len(self.bots), self.players
        if n > p:
            return list(itertools.combinations(range(n), p))
        out: list[tuple[int, ...]] = []
        seen = set()
        for k in range(n):
            lineup = tuple((k + j) % n for j in range(p))
            if tuple(sorted(lineup)) not in seen:
                seen.add(tuple(sorted(lineup)))
                out.append(lineup)
        return out

    @property
    def cycle(self) -> int:
        """Games in one balanced cycle (every line-up in every rotation)."""
        return len(self.lineups()) * self.players

    def seat_bots(self, index: int) -> list[int]:
        lineups = self.lineups()
        block, rotation = divmod(index, self.players)
        lineup = lineups[block % len(lineups)]
        return [lineup[(s - rotation) % self.players] for s in range(self.players)]

    def deal(self, index: int) -> int:
        """The deal set (block of seat rotations) game ``index`` belongs to."""
        return index // self.players

    def deck_seed(self, index: int) -> int:
        return derive_seed(self.seed, "deal", self.deal(index))

    def bot_seed(self, index: int, seat: int) -> int:
        return derive_seed(self.seed, "game", index, "seat", seat)

    def header(self, workers: int = 1) -> dict[str, Any]:
        from . import __version__
        return {"format": RESULTS_FORMAT, "bots": list(self.bots), "players": self.players, "games": self.games,
                "seed": self.seed, "v6": self.v6, "sprt": self.sprt.as_dict() if self.sprt else None,
                "seeds": SEEDS_RULE, "workers": workers, "max_decisions": self.max_decisions,
                "kwsearch": __version__}


# ---------------------------------------------------------------------------
# One game
# ---------------------------------------------------------------------------


def ranks_of(money: list[int]) -> list[float]:
    """1 = most money; tied seats share the mean of the places they cover."""
    out = []
    for m in money:
        above = sum(1 for x in money if x > m)
        tied = sum(1 for x in money if x == m)
        out.append(above + (tied + 1) / 2)
    return out


def play_scheduled_game(spec: TournamentSpec, index: int) -> dict[str, Any]:
    """Play game ``index`` of ``spec``; returns its results line (a dict)."""
    from .bots import from_spec, play_match
    from .records import Recorder
    from .game import Game

    seat_bots = spec.seat_bots(index)
    seats = [spec.names[b] for b in seat_bots]
    deck_seed = spec.deck_seed(index)
    game = Game(spec.players, v6=spec.v6)
    bots = [from_spec(spec.bots[b], seed=spec.bot_seed(index, s)) for s, b in enumerate(seat_bots)]
    actions: list[int] = []
    t0 = time.perf_counter()
    result = play_match(game.new_initial_state(deck_seed), bots, on_step=lambda st, seat, a: actions.append(a),
                        max_decisions=spec.max_decisions)
    final = result.state
    seconds = time.perf_counter() - t0
    # The record (with the cards each decision turned up) from the reference engine,
    # which deals the same set-up and deck from the same seed.
    rec = Recorder.start(game, deck_seed, seat_names=seats)
    for a in actions:
        rec.apply(a)
    money = final.money()
    if rec.state.money() != money:
        raise TournamentError(f"game {index}: the fast and the reference engine disagree on the final money "
                           f"({money} vs {rec.state.money()})")
    line = {"game": index, "deck_seed": deck_seed, "seats": seats, "bots": seat_bots, "money": money,
            "ranks": ranks_of(money), "returns": result.returns, "decisions": len(actions),
            "seconds": round(seconds, 3), "record": rec.record}
    if result.adjudicated:  # only then: the lines of games that end are as they always were
        line["adjudicated"] = True
    return line


# ---------------------------------------------------------------------------
# Results files
# ---------------------------------------------------------------------------


def spec_from_header(h: dict[str, Any], games: int | None = None) -> TournamentSpec:
    """The tournament a results file's header describes. Its specs' weights files are not loaded:
    showing or reporting the games needs none, and a bot built to play (a resumed run) checks them."""
    sprt = h.get("sprt")
    if sprt is not None and (not isinstance(sprt, dict) or set(sprt) - {"elo0", "elo1", "alpha", "beta"}):
        raise TournamentError(f"sprt: expected an object with elo0, elo1, alpha, beta, got {json.dumps(sprt)}")
    # A file without max_decisions (older kwsearch) played with the default cap.
    return TournamentSpec(bots=tuple(h["bots"]), players=h["players"], games=games or h["games"],
                          seed=h["seed"], v6=h.get("v6", False), sprt=SPRT(**sprt) if sprt else None,
                          max_decisions=h.get("max_decisions"), check_files=False)


#: The keys of a results file's header line and of a game line (anything else is an error).
HEADER_KEYS = {"format", "bots", "players", "games", "seed", "v6", "sprt", "seeds", "workers", "max_decisions",
               "kwsearch"}
GAME_KEYS = {"game", "deck_seed", "seats", "bots", "money", "ranks", "returns", "decisions", "seconds", "record",
             "adjudicated"}
_GAME_FIELDS = {"game": int, "seats": list, "bots": list, "money": list, "ranks": list, "returns": list}
#: The longest line read (a game line with its record is a few kilobytes).
MAX_LINE = 16 << 20


def _type_name(kind) -> str:
    return {list: "a list", int: "an integer", str: "a string", bool: "true or false", dict: "an object"}[kind]


def _check_type(p: Path, no: int, key: str, value: Any, kind) -> None:
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise TournamentError(f"{p}: line {no}: {key}: expected {_type_name(kind)}, got {json.dumps(value)[:60]}")


def _check_numbers(p: Path, no: int, key: str, values: list, n: int, integers: bool, lo: float, hi: float) -> None:
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int if integers else (int, float)) or (
                isinstance(v, float) and not math.isfinite(v)):
            raise TournamentError(f"{p}: line {no}: {key}: expected {n} {'integers' if integers else 'numbers'}, "
                                  f"got {json.dumps(values)[:80]}")
    if len(values) != n:
        raise TournamentError(f"{p}: line {no}: {key}: expected {n} values (one per seat), got {len(values)}")
    bad = next((v for v in values if not lo <= v <= hi), None)
    if bad is not None:  # the statistics assume them (a share of 7 broke the Wilson interval)
        raise TournamentError(f"{p}: line {no}: {key}: expected {'integers' if integers else 'numbers'} from "
                              f"{lo:g} to {hi:g}, got {json.dumps(bad)[:40]}")


def load_results(path: str | Path, allow_cut_tail: bool = True) -> tuple[dict[str, Any], dict[int, dict], int]:
    """(header, games by index, byte length of the valid part) of a results file.

    Strict: every line must be a complete JSON object with the documented keys
    (docs/formats.md) and values that match the header's schedule. A last line
    without its newline — a write cut short by a kill — is dropped (the valid
    length excludes it, so a resumed run truncates it before appending); with
    ``allow_cut_tail=False`` it is an error too.
    """
    from .formats import MAX_MONEY
    p = Path(path)
    try:
        if p.exists() and not p.is_file():
            raise TournamentError(f"{p}: not a regular file")
        data = p.read_bytes()
    except FileNotFoundError:
        raise TournamentError(f"{p}: no such file") from None
    except OSError as exc:
        raise TournamentError(f"{p}: cannot read ({exc.strerror})") from None
    lines = data.split(b"\n")
    valid_len = len(data)
    if lines and lines[-1] == b"":
        lines.pop()
    elif lines:
        if not allow_cut_tail:
            raise TournamentError(f"{p}: line {len(lines)}: cut short (no end of line)")
        valid_len = len(data) - len(lines[-1])
        lines.pop()
    if not lines:
        raise TournamentError(f"{p}: empty file, expected a {RESULTS_FORMAT} header line")
    header = _json_line(p, 1, lines[0])
    if not isinstance(header, dict) or header.get("format") != RESULTS_FORMAT:
        raise TournamentError(f"{p}: line 1: format: expected {RESULTS_FORMAT!r}, got "
                              f"{json.dumps(header.get('format') if isinstance(header, dict) else header)[:60]}")
    unknown = set(header) - HEADER_KEYS
    if unknown:
        raise TournamentError(f"{p}: line 1: unknown key {sorted(unknown)[0]!r} (allowed: {', '.join(sorted(HEADER_KEYS))})")
    for key, kind in (("bots", list), ("players", int), ("games", int), ("seed", int)):
        _check_type(p, 1, key, header.get(key), kind)
    if "v6" in header:
        _check_type(p, 1, "v6", header["v6"], bool)
    if "workers" in header:
        _check_type(p, 1, "workers", header["workers"], int)
        if not 1 <= header["workers"] <= MAX_WORKERS:
            raise TournamentError(f"{p}: line 1: workers: expected 1 to {MAX_WORKERS}, got {header['workers']}")
    if "max_decisions" in header:
        _check_type(p, 1, "max_decisions", header["max_decisions"], int)
        if not 1 <= header["max_decisions"] <= MAX_DECISIONS_CAP:
            raise TournamentError(f"{p}: line 1: max_decisions: expected 1 to {MAX_DECISIONS_CAP:,}, "
                                  f"got {header['max_decisions']}")
    if "seeds" in header and header["seeds"] != SEEDS_RULE:
        raise TournamentError(f"{p}: line 1: seeds: expected {SEEDS_RULE!r}, got {json.dumps(header['seeds'])[:60]}")
    if not all(isinstance(b, str) for b in header["bots"]):
        raise TournamentError(f"{p}: line 1: bots: expected a list of bot spec strings")
    try:
        spec = spec_from_header(header)
    except (TournamentError, TypeError) as exc:
        raise TournamentError(f"{p}: line 1: {exc}") from None
    games: dict[int, dict] = {}
    for no, raw in enumerate(lines[1:], start=2):
        g = _json_line(p, no, raw)
        if not isinstance(g, dict):
            raise TournamentError(f"{p}: line {no}: expected a JSON object")
        unknown = set(g) - GAME_KEYS
        if unknown:
            raise TournamentError(f"{p}: line {no}: unknown key {sorted(unknown)[0]!r} "
                                  f"(allowed: {', '.join(sorted(GAME_KEYS))})")
        for key, kind in _GAME_FIELDS.items():
            _check_type(p, no, key, g.get(key), kind)
        idx = g["game"]
        if not 0 <= idx < MAX_GAMES:
            raise TournamentError(f"{p}: line {no}: game: expected a game number from 0 to {MAX_GAMES - 1:,}, "
                                  f"got {idx}")
        if idx in games:
            raise TournamentError(f"{p}: line {no}: game {idx} appears twice")
        if g["bots"] != spec.seat_bots(idx):
            raise TournamentError(f"{p}: line {no}: game {idx}: bots: the schedule of the header says "
                                  f"{spec.seat_bots(idx)}, the line has {json.dumps(g['bots'])[:60]}")
        _check_numbers(p, no, "money", g["money"], spec.players, True, 0, MAX_MONEY)
        _check_numbers(p, no, "returns", g["returns"], spec.players, False, 0, 1)
        if abs(math.fsum(g["returns"]) - 1) > 1e-9:
            raise TournamentError(f"{p}: line {no}: returns: expected win shares that sum to 1, "
                                  f"got {json.dumps(g['returns'])[:80]}")
        _check_numbers(p, no, "ranks", g["ranks"], spec.players, False, 1, spec.players)
        if not all(isinstance(x, str) for x in g["seats"]) or len(g["seats"]) != spec.players:
            raise TournamentError(f"{p}: line {no}: seats: expected {spec.players} bot names")
        if "record" in g and not isinstance(g["record"], dict):
            raise TournamentError(f"{p}: line {no}: record: expected a game record object")
        for key in ("decisions", "deck_seed"):
            if key in g:
                _check_type(p, no, key, g[key], int)
        if "deck_seed" in g:
            check_seed(g["deck_seed"], f"{p}: line {no}: deck_seed", TournamentError)
        if "adjudicated" in g and g["adjudicated"] is not True:
            raise TournamentError(f"{p}: line {no}: adjudicated: expected true (or no key), "
                                  f"got {json.dumps(g['adjudicated'])[:40]}")
        if "seconds" in g and (isinstance(g["seconds"], bool) or not isinstance(g["seconds"], (int, float))
                               or not 0 <= g["seconds"] <= 1e9):
            raise TournamentError(f"{p}: line {no}: seconds: expected a number of seconds from 0 to 1e9, "
                                  f"got {json.dumps(g['seconds'])[:40]}")
        games[idx] = g
    return header, games, valid_len


def _json_line(p: Path, no: int, raw: bytes) -> Any:
    """One line of a results file, read as strictly as every kwsearch input (kwsearch.jsonload)."""
    if len(raw) > MAX_LINE:
        raise TournamentError(f"{p}: line {no}: longer than {MAX_LINE >> 20} MB")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise TournamentError(f"{p}: line {no}: not valid JSON (not UTF-8 text)") from None
    return loads_json(text, f"{p}: line {no}", error=TournamentError)


# ---------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------


@dataclass
class RunInfo:
    """What :func:`run_tournament` did."""

    played: int = 0
    skipped: int = 0
    stopped_by_sprt: bool = False
    seconds: float = 0.0
    workers: int = 1
    header: dict[str, Any] = field(default_factory=dict)  # the results file's header
    games: dict[int, dict] = field(default_factory=dict)  # every game in the file, by number


def _lock(f, out: Path) -> None:
    """Hold an exclusive lock on the open results file (released when it is closed)."""
    import fcntl
    try:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise TournamentError(f"{out}: another tournament is writing this file (it is locked); wait for it to "
                              "end, or choose another file") from None


def run_tournament(spec: TournamentSpec, out: str | Path, *, workers: int | None = None, resume: bool = False,
                   backend: str = "local", address: str | None = None,
                   progress: Callable[[int, int, dict], None] | None = None) -> RunInfo:
    """Play ``spec`` into the results file ``out``.

    A new file is refused if ``out`` exists (nothing is overwritten); with
    ``resume=True`` the file must exist and hold the same settings (``spec.games``
    may be larger, to extend a finished tournament), and only its missing games
    are played. ``workers`` (games at once) defaults to 1, or on resume to the
    number the file's header records. The file is locked while games are
    written. ``progress(done, total, line)`` is called after each game.
    """
    out = Path(out)
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)
                                or not 1 <= workers <= MAX_WORKERS):
        raise TournamentError(f"workers: expected 1 to {MAX_WORKERS}, got {workers!r}", "workers")
    if backend not in ("local", "ray"):
        raise TournamentError(f"backend: expected local or ray, got {backend!r}", "backend")
    done: dict[int, dict] = {}
    if resume:
        if out.exists() and not out.is_file():
            raise TournamentError(f"{out}: not a regular file")
        try:
            f = out.open("r+b", buffering=0)  # unbuffered: lines go whole to the file (fileio.append_whole)
        except FileNotFoundError:
            raise TournamentError(f"{out}: no such file") from None
        except OSError as exc:
            raise TournamentError(f"{out}: cannot open ({exc.strerror})") from None
    else:
        try:
            f = out.open("xb", buffering=0)
        except FileExistsError:
            raise TournamentError(f"{out}: already exists; resume it, or choose another file") from None
        except OSError as exc:
            raise TournamentError(f"{out}: cannot write ({exc.strerror})") from None
    with f:
        _lock(f, out)
        if resume:
            header, done, valid_len = load_results(out)  # read under the lock: nobody else appends now
            if header.get("seeds") != SEEDS_RULE:
                raise TournamentError(f"{out}: line 1: seeds: the file was written by kwsearch "
                                      f"{header.get('kwsearch', '(unknown version)')}, which derived deal and bot "
                                      "seeds by another rule; resuming it would play other games — start a new "
                                      "results file")
            old = spec_from_header(header)
            for key in ("bots", "players", "seed", "v6", "sprt", "max_decisions"):
                if getattr(old, key) != getattr(spec, key):
                    raise TournamentError(f"{out}: line 1: {key}: the file has {getattr(old, key)!r}, the "
                                          f"tournament asks for {getattr(spec, key)!r} (resume with the same "
                                          "settings)")
            workers = workers or header.get("workers", 1)
            try:
                if valid_len < os.fstat(f.fileno()).st_size:  # drop a line cut short by a kill
                    f.truncate(valid_len)
            except OSError as exc:
                raise TournamentError(f"{out}: cannot write ({exc.strerror})") from None
        else:
            workers = workers or 1
            header = spec.header(workers)
            try:
                append_whole(f.fileno(), (json.dumps(header) + "\n").encode(), sync=True)
            except OSError as exc:
                try:
                    out.unlink()  # ours, and empty: it would only block the next run
                except OSError:
                    pass
                raise TournamentError(f"{out}: cannot write ({exc.strerror})") from None
        todo = [i for i in range(spec.games) if i not in done]
        info = RunInfo(skipped=len(done), header=header, games=done, workers=workers)
        if spec.sprt is not None and _sprt_decided(spec, done):
            todo = []
            info.stopped_by_sprt = True
        total = spec.games
        t0 = time.perf_counter()

        def record(line: dict) -> bool:
            """Append one game (whole, fsynced: a full disk leaves the file at its last game); True when
            the SPRT says stop."""
            try:
                append_whole(f.fileno(), (json.dumps(line, separators=(",", ":")) + "\n").encode(), sync=True)
            except OSError as exc:
                raise TournamentError(f"{out}: cannot write game {line['game']} ({exc.strerror}); the games "
                                      "before it are saved, for --resume") from None
            done[line["game"]] = line
            info.played += 1
            if progress is not None:
                progress(len(done), total, line)
            return spec.sprt is not None and _sprt_decided(spec, done)

        if backend == "ray":
            try:
                info.stopped_by_sprt |= _run_ray(spec, todo, workers, address, record)
            except TournamentError as exc:
                if not resume and not done and exc.field == "backend":  # Ray missing or not reached
                    try:
                        out.unlink()  # ours, with its header only: it would only block the next run
                    except OSError:
                        pass
                raise
        else:
            info.stopped_by_sprt |= _run_local(spec, todo, workers, record, file_id(f.fileno()))
        info.seconds = time.perf_counter() - t0
    return info


def deal_scores(spec: TournamentSpec, games: dict[int, dict], bot: int = 0) -> list[float]:
    """``bot``'s score per complete deal set, in order, up to the first incomplete one (so the
    SPRT does not depend on which worker finished first). A deal set's score is the mean of its
    games' scores (:func:`pair_score`)."""
    scores = []
    block = 0
    while True:
        members = range(block * spec.players, (block + 1) * spec.players)
        if not all(i in games for i in members):
            return scores
        scores.append(sum(pair_score(games[i], bot) for i in members) / spec.players)
        block += 1


def _sprt_decided(spec: TournamentSpec, done: dict[int, dict]) -> bool:
    """Whether the SPRT has decided on the deal sets played so far."""
    return spec.sprt.status(deal_scores(spec, done))[1] is not None


def file_id(fd: int) -> tuple[int, int, int]:
    """``(fd, device, inode)`` of an open file, for :func:`worker_init` to close a worker's copy."""
    st = os.fstat(fd)
    return fd, st.st_dev, st.st_ino


def worker_init(parent: int, drop: tuple[int, int, int] | None = None) -> None:
    """In a worker process: leave Ctrl-C to the main process (a terminal sends SIGINT to the whole
    process group; the main process ends the workers), and end when the tournament's main process
    dies, even by SIGKILL (:func:`kwsearch.worker_procs.pool_worker_init`). ``drop`` (:func:`file_id`) is
    the results file or log the main process holds locked: the worker closes the copy it inherited,
    so that a worker still ending after an error or Ctrl-C does not hold the lock a ``--resume`` asks for."""
    from .worker_procs import pool_worker_init
    pool_worker_init(parent)
    if drop is not None:
        fd, dev, ino = drop
        try:
            st = os.fstat(fd)
            if (st.st_dev, st.st_ino) == (dev, ino):  # inherited by fork (not some other file of that number)
                os.close(fd)
        except OSError:
            pass


class _GamesInterrupted(BaseException):
    """Ctrl-C while games are played in this process (see :func:`ctrl_c_stops_games`)."""


@contextmanager
def ctrl_c_stops_games() -> Iterator[None]:
    """``with ctrl_c_stops_games(): play games in this process`` — Ctrl-C abandons the game being
    played and raises :class:`KeyboardInterrupt` from the block. Without it a search bot takes
    Ctrl-C as "stop searching and move now" (kwsearch.search, for ``suggest``): the game would go
    on, and its line would hold a result an uninterrupted run does not. Main thread only."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_sigint(signum, frame) -> None:
        raise _GamesInterrupted
    old = signal.signal(signal.SIGINT, on_sigint)
    try:
        yield
    except _GamesInterrupted:
        raise KeyboardInterrupt from None
    finally:
        signal.signal(signal.SIGINT, old)


def _run_local(spec: TournamentSpec, todo: list[int], workers: int, record: Callable[[dict], bool],
               drop: tuple[int, int, int] | None = None) -> bool:
    if workers <= 1:
        with ctrl_c_stops_games():
            for i in todo:
                if record(play_scheduled_game(spec, i)):
                    return True
        return False
    from concurrent.futures import ProcessPoolExecutor
    from .worker_procs import sigint_blocked, terminate_pool, wait_first
    pending = iter(todo)
    stop = False
    pool = ProcessPoolExecutor(max_workers=workers, initializer=worker_init, initargs=(os.getpid(), drop))
    try:
        running = set()
        with sigint_blocked():  # the workers start with Ctrl-C held back until they ignore it
            for i in itertools.islice(pending, workers):
                running.add(pool.submit(play_scheduled_game, spec, i))
        while running:
            finished, running = wait_first(running)
            for fut in finished:
                stop |= record(fut.result())
            if not stop:
                for i in itertools.islice(pending, len(finished)):
                    running.add(pool.submit(play_scheduled_game, spec, i))
    except BaseException:
        # Ctrl-C or an error: do not wait for the games still being played (they are lost anyway); no
        # worker outlives the command (terminate_pool kills one still there after 5 s).
        terminate_pool(pool)
        raise
    pool.shutdown()
    return stop


def play_header_game(header: dict[str, Any], index: int) -> dict[str, Any]:
    """Game ``index`` of the tournament a results file's ``header`` describes (a Ray task's job)."""
    return play_scheduled_game(spec_from_header(header), index)


def _run_ray(spec: TournamentSpec, todo: list[int], workers: int, address: str | None,
             record: Callable[[dict], bool]) -> bool:
    from .raytasks import ray_session

    if not todo:  # a finished file: no Ray to start
        return False

    def error(message: str) -> TournamentError:
        return TournamentError(message, "backend")
    with ray_session(workers, address, error) as ray:
        header = spec.header()
        return ray.run("kwsearch.tournament:play_header_game", ((header, i) for i in todo), record)


# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------


def pair_score(g: dict, bot: int) -> float:
    """The score of ``bot`` in a game between two bots: its seats' share of the win,
    normalised by its share of the seats (0.5 = even)."""
    seats = g["bots"]
    mine = sum(r for r, b in zip(g["returns"], seats) if b == bot)
    frac = seats.count(bot) / len(seats)
    # Expected share at equal strength is frac; map [0, 1] so that frac -> 0.5.
    return mine / (2 * frac) if mine <= frac else 0.5 + (mine - frac) / (2 * (1 - frac))


@dataclass
class BotLine:
    name: str
    seats: int = 0
    wins: float = 0.0
    win_lo: float = 0.0
    win_hi: float = 1.0
    money: float = 0.0
    rank: float = 0.0
    mu: float = 0.0
    sigma: float = 0.0
    adjudicated: int = 0  # games this bot played that the decision cap stopped


@dataclass
class Report:
    header: dict[str, Any]
    games: int
    bots: list[BotLine]
    crosstable: list[list[tuple[float, int] | None]]
    balanced: bool
    sprt: dict[str, Any] | None = None
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)
    elo: dict[str, Any] | None = None  # two bots: elo_report()
    adjudicated: int = 0  # games the decision cap stopped (scored on the money at the cap)


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a win rate (ties count as fractional wins)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def make_report(header: dict[str, Any], games: dict[int, dict]) -> Report:
    """Statistics over the games of a results file, taken in game order."""
    from openskill.models import PlackettLuce

    spec = spec_from_header(header)
    order = [games[i] for i in sorted(games)]
    nb = len(spec.bots)
    shares: list[list[float]] = [[] for _ in range(nb)]
    money: list[list[int]] = [[] for _ in range(nb)]
    ranks: list[list[float]] = [[] for _ in range(nb)]
    ahead = [[0.0] * nb for _ in range(nb)]
    met = [[0] * nb for _ in range(nb)]
    model = PlackettLuce()
    ratings = [model.rating(name=str(b)) for b in range(nb)]
    adjudicated = [0] * nb
    for g in order:
        seats = g["bots"]
        if g.get("adjudicated"):
            for b in set(seats):
                adjudicated[b] += 1
        for s, b in enumerate(seats):
            shares[b].append(g["returns"][s])
            money[b].append(g["money"][s])
            ranks[b].append(g["ranks"][s])
        for s, a in enumerate(seats):
            for t, b in enumerate(seats):
                if a != b:
                    met[a][b] += 1
                    m1, m2 = g["money"][s], g["money"][t]
                    ahead[a][b] += 1.0 if m1 > m2 else 0.5 if m1 == m2 else 0.0
        # One team per seat; a bot holding two seats is rated on each.
        teams = [[ratings[b]] for b in seats]
        new = model.rate(teams, ranks=[r for r in g["ranks"]])
        for s, b in enumerate(seats):
            ratings[b] = new[s][0]
    lines = []
    for b in range(nb):
        n = len(shares[b])
        lo, hi = wilson(sum(shares[b]), n)
        lines.append(BotLine(name=spec.names[b], seats=n, wins=sum(shares[b]), win_lo=lo, win_hi=hi,
                             money=sum(money[b]) / n if n else 0.0, rank=sum(ranks[b]) / n if n else 0.0,
                             mu=ratings[b].mu, sigma=ratings[b].sigma, adjudicated=adjudicated[b]))
    cross = [[(ahead[a][b] / met[a][b], met[a][b]) if met[a][b] and a != b else None for b in range(nb)]
             for a in range(nb)]
    played = sorted(games)
    balanced = len(played) % spec.cycle == 0 and played == list(range(len(played)))
    rep = Report(header=header, games=len(order), bots=lines, crosstable=cross, balanced=balanced,
                 seconds=sum(g.get("seconds", 0.0) for g in order),
                 adjudicated=sum(1 for g in order if g.get("adjudicated")))
    if not balanced:
        rep.notes.append(f"seats are balanced every {spec.cycle} games; {len(played)} games played, so some bots "
                         "had more of some seats")
    if nb == 2:
        rep.elo = elo_report(spec, games)
    if spec.sprt is not None:
        scores = deal_scores(spec, games)
        llr, verdict, at = spec.sprt.status(scores)
        lo, hi = spec.sprt.bounds
        rep.sprt = {**spec.sprt.as_dict(), "llr": llr, "lower": lo, "upper": hi, "verdict": verdict,
                    "decided_at": at * spec.players if at else None, "deal_sets": len(scores),
                    "games": len(scores) * spec.players}
    return rep


def elo_of(score: float) -> float:
    """The Elo difference that gives an expected ``score`` (logistic, 400-point scale); ±inf at 1 and 0."""
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


def elo_interval(scores: list[float], z: float = 1.96) -> tuple[float, float, float]:
    """(Elo, low, high): the Elo difference of the mean score and its 95% interval, from the
    normal approximation of the mean over independent units (games, or deal sets)."""
    n = len(scores)
    if n == 0:
        return 0.0, -math.inf, math.inf
    mean = sum(scores) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in scores) / (n - 1)) if n > 1 else 0.5
    half = z * sd / math.sqrt(n)
    return elo_of(mean), elo_of(mean - half), elo_of(mean + half)


def elo_report(spec: TournamentSpec, games: dict[int, dict]) -> dict[str, Any]:
    """Elo difference of the first bot over the second, with its 95% interval counted two ways:
    over **deal sets** (the units the schedule pairs; the interval the report quotes) and, for
    comparison, over single games as if they were independent."""
    sets = deal_scores(spec, games)
    per_game = [pair_score(games[i], 0) for i in sorted(games)]
    e, lo, hi = elo_interval(sets)
    ge, glo, ghi = elo_interval(per_game)
    return {"bot": spec.names[0], "opponent": spec.names[1], "elo": e, "ci95": [lo, hi], "deal_sets": len(sets),
            "games_per_deal_set": spec.players, "score": sum(sets) / len(sets) if sets else None,
            "per_game": {"elo": ge, "ci95": [glo, ghi], "games": len(per_game)}}


def _elo_text(x: float) -> str:
    return "+inf" if x == math.inf else "-inf" if x == -math.inf else f"{x:+.0f}"


def report_text(rep: Report) -> str:
    from .render import table
    h = rep.header
    spec = spec_from_header(h)
    out = [f"{rep.games} of {h['games']} games, {spec.players} players, seed {spec.seed}"
           f"{', V6' if spec.v6 else ''}; {rep.seconds / 60:.1f} min of play"]
    parity = 100 / spec.players
    head = ("#", "bot", "seats", "wins", "win % (95% CI)", "money", "rank", "OpenSkill μ ± σ")
    rows = []
    for i, b in sorted(enumerate(rep.bots), key=lambda x: -x[1].mu):
        pct = 100 * b.wins / b.seats if b.seats else 0.0
        rows.append((str(i + 1), b.name, str(b.seats), f"{b.wins:g}", f"{pct:.1f} ({100 * b.win_lo:.1f}–{100 * b.win_hi:.1f})",
                     f"{b.money:.1f}", f"{b.rank:.2f}", f"{b.mu:.1f} ± {b.sigma:.1f}"))
    out += ["", *table(head, rows, left={1}), "", f"(win parity {parity:.0f}%; rank 1 = most money; "
            "OpenSkill: Plackett-Luce over the finishing order)"]
    nb = len(rep.bots)
    out += ["", "Crosstable: row finished ahead of column (ties ½), share of their meetings (games)"]
    chead = ("", *[str(j + 1) for j in range(nb)])
    crows = []
    for a in range(nb):
        cells = []
        for b in range(nb):
            c = rep.crosstable[a][b]
            cells.append("—" if c is None else f"{100 * c[0]:.0f}% ({c[1]})")
        crows.append((f"{a + 1} {rep.bots[a].name}", *cells))
    out += table(chead, crows, left={0})
    if rep.elo:
        e = rep.elo
        if e["deal_sets"]:
            out += ["", f"Elo difference {e['bot']} − {e['opponent']}: {_elo_text(e['elo'])} "
                        f"(95% CI {_elo_text(e['ci95'][0])} to {_elo_text(e['ci95'][1])}) over {e['deal_sets']} deal "
                        f"set{'s' if e['deal_sets'] != 1 else ''} of {e['games_per_deal_set']} games; counted per "
                        f"game: {_elo_text(e['per_game']['ci95'][0])} to {_elo_text(e['per_game']['ci95'][1])}"]
        else:
            out += ["", f"Elo difference {e['bot']} − {e['opponent']}: no complete deal set yet "
                        f"({e['games_per_deal_set']} games each)"]
    if rep.sprt:
        s = rep.sprt
        verdict = {"H1": f"H1 accepted: {rep.bots[0].name} is stronger by about {s['elo1']:g} Elo or more",
                   "H0": f"H0 accepted: {rep.bots[0].name} is not stronger by {s['elo1']:g} Elo",
                   None: "undecided"}[s["verdict"]]
        where = f" after game {s['decided_at']}" if s["decided_at"] else f" ({s['deal_sets']} deal sets so far)"
        out += ["", f"SPRT elo0={s['elo0']:g} elo1={s['elo1']:g} alpha={s['alpha']:g} beta={s['beta']:g}: "
                    f"LLR {s['llr']:.2f} (bounds {s['lower']:.2f}, {s['upper']:.2f}) — {verdict}{where}"]
    if rep.adjudicated:
        cap = spec_from_header(h).max_decisions
        per_bot = ", ".join(f"{b.name} {b.adjudicated}" for b in rep.bots)
        out += ["", f"Adjudicated: {rep.adjudicated} game{'s' if rep.adjudicated != 1 else ''} passed {cap:,} "
                    f"decisions without ending and were scored on the money at that point (per bot: {per_bot})"]
    for note in rep.notes:
        out += ["", f"Note: {note}"]
    return "\n".join(out)


def report_json(rep: Report) -> dict[str, Any]:
    return {"format": "kwsearch-tournament-report/1", "games": rep.games, "settings": rep.header,
            "bots": [{"bot": b.name, "seats": b.seats, "wins": b.wins, "win_rate": b.wins / b.seats if b.seats else 0,
                      "win_ci95": [b.win_lo, b.win_hi], "mean_money": b.money, "mean_rank": b.rank,
                      "openskill_mu": b.mu, "openskill_sigma": b.sigma, "adjudicated": b.adjudicated}
                     for b in rep.bots],
            "adjudicated": rep.adjudicated,
            "crosstable": [[None if c is None else {"score": c[0], "games": c[1]} for c in row]
                           for row in rep.crosstable],
            "balanced": rep.balanced, "sprt": rep.sprt, "elo": _json_safe(rep.elo)}


def _json_safe(obj: Any) -> Any:
    """Infinite Elo bounds (a score of 0 or 1) as null: JSON has no infinity."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_json_safe(v) for v in obj]
    return obj



# ---------------------------------------------------------------------------
# One game of a results file
# ---------------------------------------------------------------------------


def load_game(path: str | Path, index: int):
    """(state at the end, seat names, move lines) of game ``index`` of a results file.

    The state is the game's record replayed (so a corrupt record is an error
    naming the file and the line's game); the move lines number the decisions
    and name the seat and bot that made each, with the cards each turned up.
    """
    from .records import REVEAL, replay
    header, games, _ = load_results(path)
    if index not in games:
        have = sorted(games)
        span = f"games {have[0]} to {have[-1]}" if have else "no finished games"
        raise TournamentError(f"{path}: game {index}: not in the file ({len(have)} games: {span})")
    line = games[index]
    if "record" not in line:
        raise TournamentError(f"{path}: game {index}: the line has no record")
    movers: list[int] = []
    state = replay(line["record"], source=f"{path}: game {index}: record", movers=movers)
    names = [str(s) for s in line["seats"]]
    out: list[str] = []
    k = 0
    for ev in line["record"].get("events", []):
        if isinstance(ev, str) and ev.strip().lower().startswith(REVEAL):
            if out:
                out[-1] += f"  [{ev}]"
            continue
        seat = movers[k] if k < len(movers) else -1
        k += 1
        out.append(f"{k:4d}. seat {seat} ({names[seat] if 0 <= seat < len(names) else '?'}): {ev}")
    return state, names, out, line
