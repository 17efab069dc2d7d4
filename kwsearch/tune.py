"""Parameter tuning of the search bot: NTBEA on paired games, resumable from a JSONL log.

``kwsearch tune`` (and :func:`run_tune`) searches a discrete space of search
settings — any option of an ``ismcts`` bot spec but its limits: ``c``,
``money``, ``rollout``, the smart rollout's knobs ``rule``, ``tempo``, ``sell``,
``develop``, ``engineer``, ``loop`` ... — for the one that scores best against a
fixed baseline spec. docs/tuning.md describes the method and the files.

Method: N-Tuple Bandit Evolutionary Algorithm (NTBEA; Lucas, Liu & Perez-Liebana
2018). The model keeps, for every 1-tuple (one parameter's value) and for the
full tuple (the whole point), the number of evaluations and their summed score.
A step evaluates the current point, then draws ``neighbours`` mutations of it
(each parameter re-drawn with chance 1/d, at least one) and moves to the one with
the highest mean over its tuples of ``mean + k * sqrt(ln N / (n + eps))``
(``N`` evaluations so far; a tuple never seen counts ``k * sqrt(ln N / eps)``).
The recommendation is the evaluated point with the best model estimate (the mean
of its tuples' means). NTBEA suits this problem: the space mixes categories (the
rollout, the loop) with numbers, every evaluation is one noisy game pair, and
the 1-tuples share what one value is worth across all the points that hold it.

An evaluation is a **game pair** on one deal: the candidate against the baseline
(in four-player games, against three copies of it) twice, the candidate's seat
moved by half the table between the two games (2p: seats 0 and 1; 4p: seats e
and e + 2, e the evaluation number, so that every seat is used). The deal of
evaluation ``e`` is ``derive_seed(seed, "tune", "deal", e)``; bot ``s`` of game
``g`` gets ``derive_seed(seed, "tune", "game", g, "seat", s)``. A game's score
is the candidate's win share (1 for a sole win, split on ties); a step's score
is the mean over its games. ``batch`` pairs per step (default 1).

Every game is appended to the log (``kwsearch-tune/1``) the moment it ends,
flushed and fsynced. On restart with the same log, the run starts again from
its seed and takes each game's result from the log instead of playing it, so the
model, the random stream and hence the recommendation are exactly those of an
uninterrupted run; only the missing games are played. The log's header holds the
settings; a log whose settings differ is refused (the game budget may grow).
"""

from __future__ import annotations

import json
import math
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .errors import KwsearchError
from .jsonload import loads_json, loads_toml, read_text
from .seeds import check_seed, derive_seed

LOG_FORMAT = "kwsearch-tune/1"
#: Options of a search spec that are not tunable (its limits and how it runs, set by the run).
NOT_TUNED = ("iterations", "seconds", "workers", "reuse")
MAX_GAMES = 1_000_000
MAX_WORKERS = 256
#: Game pairs per step (as the command line's --batch) and mutations scored per step, at most.
MAX_BATCH = 1000
MAX_NEIGHBOURS = 100_000
#: Keys of a space file (TOML or JSON): the run's settings and ``params`` (parameter -> list of values).
SPACE_KEYS = ("params", "base", "baseline", "players", "iterations", "seconds", "seed", "batch", "k", "neighbours")
#: The settings a log's header records that a resumed run must repeat.
SETTINGS_KEYS = ("params", "base", "baseline", "players", "iterations", "seconds", "seed", "batch", "k",
                 "neighbours", "v6")


class TuneError(KwsearchError):
    """A bad tuning setting, space file or log (the message names the file, line and field)."""


def tunable() -> dict[str, Any]:
    """{parameter name: its spec option} of the ``ismcts`` bot: what a space may vary."""
    from .bots import OPTIONS
    return {k: v for k, v in OPTIONS["ismcts"].items() if k not in NOT_TUNED}


def _value_text(v: Any) -> str:
    from .bots import value_text
    return value_text(v)


@dataclass(frozen=True)
class TuneSettings:
    """What a tuning run searches and how (all of it, but ``games``, is in the log's header)."""

    params: tuple[tuple[str, tuple], ...]   # (name, values) in the order given
    base: str = "ismcts"                    # the candidate's spec before the parameters are added
    baseline: str = "ismcts"
    players: int = 2
    iterations: int | None = 1000           # per decision, for candidate and baseline (unless seconds)
    seconds: float | None = None
    seed: int = 0
    batch: int = 1                          # game pairs per NTBEA step
    k: float = 2.0                          # UCB exploration constant of the model
    neighbours: int = 50                    # mutations scored per step
    v6: bool = False

    def __post_init__(self) -> None:
        from .bots import BotSpec
        if isinstance(self.players, bool) or self.players not in (2, 4):
            raise TuneError(f"players: expected 2 or 4, got {self.players!r}")
        if not self.params:
            raise TuneError("params: give at least one parameter with its values, e.g. money = [0, 0.1, 0.2]")
        allowed = tunable()
        for name, values in self.params:
            if name not in allowed:
                raise TuneError(f"params.{name}: unknown parameter (allowed: {', '.join(sorted(allowed))})")
            if not isinstance(values, tuple) or not values:
                raise TuneError(f"params.{name}: expected a non-empty list of values, got {values!r}")
            if len(set(map(str, values))) != len(values):
                raise TuneError(f"params.{name}: a value is listed twice")
        for key in ("iterations", "batch", "neighbours"):
            v = getattr(self, key)
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
                raise TuneError(f"{key}: expected a positive integer, got {v!r}")
        # A step plays 2 * batch games and scores `neighbours` mutations: beyond these a run never ends.
        for key, most in (("batch", MAX_BATCH), ("neighbours", MAX_NEIGHBOURS)):
            if getattr(self, key) > most:
                raise TuneError(f"{key}: expected at most {most:,}, got {getattr(self, key)!r}")
        if (self.iterations is None) == (self.seconds is None):
            raise TuneError("iterations / seconds: give exactly one limit per decision")
        if self.seconds is not None and (isinstance(self.seconds, bool) or not isinstance(self.seconds, (int, float))
                                         or not 0 < self.seconds <= 3600):
            raise TuneError(f"seconds: expected a number above 0 and at most 3600, got {self.seconds!r}")
        if isinstance(self.k, bool) or not isinstance(self.k, (int, float)) or not 0 <= self.k <= 100:
            raise TuneError(f"k: expected a number from 0 to 100, got {self.k!r}")
        check_seed(self.seed, "seed", TuneError)  # the bound of every --seed (kwsearch.seeds)
        for key in ("base", "baseline"):
            try:
                spec = BotSpec.parse(getattr(self, key))
            except KwsearchError as exc:
                raise TuneError(f"{key}: {exc}") from None
            if key == "base" and spec.name != "ismcts":
                raise TuneError(f"base: expected an ismcts spec, got {str(spec)!r}")
            object.__setattr__(self, key, str(spec))
        # Every value must make a valid spec, alone with the base (checked now, not mid-run); a knob of
        # the smart rollout is checked in a smart spec, which some point of the run may make even when
        # the base is not one. A value must stand for itself in the spec: a string holding "," or "="
        # (or padded with spaces) would read as other options or another value.
        from .search import PLAYOUT_FIELDS  # the smart rollout's knobs (the table, kwsearch.settings)
        for name, values in self.params:
            for v in values:
                self.spec_of({name: v})
                options = {"rollout": "smart", name: v} if name in PLAYOUT_FIELDS else {name: v}
                got = BotSpec.parse(self._with(self.base, options)).get(name)
                if got != v:
                    raise TuneError(f"params.{name}: the value {json.dumps(v)} reads as {name}={_value_text(got)} "
                                    "in a bot spec (a value cannot hold ',' or '=', nor start or end with a space)")

    # -- specs ---------------------------------------------------------------
    def _limit(self) -> str:
        if self.iterations is not None:
            return f"iterations={self.iterations}"
        return f"seconds={_value_text(self.seconds)}"

    def _with(self, spec: str, options: dict[str, Any]) -> str:
        from .bots import BotSpec
        from .search import PLAYOUT_FIELDS
        parsed = BotSpec.parse(spec)
        opts = {k: v for k, v in parsed.options if k not in ("iterations", "seconds")}
        opts.update(options)
        if opts.get("rollout") != "smart":  # the smart rollout's knobs mean nothing to another rollout
            opts = {k: v for k, v in opts.items() if k not in PLAYOUT_FIELDS}
        text = parsed.name + ":" + ",".join([self._limit()] + [f"{k}={_value_text(v)}" for k, v in opts.items()])
        try:
            return str(BotSpec.parse(text))
        except KwsearchError as exc:
            names = ", ".join(f"{k}={_value_text(v)}" for k, v in options.items())
            raise TuneError(f"params ({names}): {exc}") from None

    def spec_of(self, point: "dict[str, Any] | tuple[int, ...]") -> str:
        """The candidate's bot spec at ``point`` (a {name: value} dict or value indices)."""
        if isinstance(point, tuple):
            point = {name: values[i] for (name, values), i in zip(self.params, point)}
        return self._with(self.base, point)

    @property
    def baseline_spec(self) -> str:
        return self._with(self.baseline, {})

    def as_dict(self) -> dict[str, Any]:
        return {"params": {name: list(values) for name, values in self.params}, "base": self.base,
                "baseline": self.baseline, "players": self.players, "iterations": self.iterations,
                "seconds": self.seconds, "seed": self.seed, "batch": self.batch, "k": self.k,
                "neighbours": self.neighbours, "v6": self.v6}


def _space_value(where: str, name: str, v: Any) -> Any:
    if isinstance(v, bool) or not isinstance(v, (int, float, str)):
        raise TuneError(f"{where}: params.{name}: expected numbers or strings, got {json.dumps(v)}")
    return v


def _read_bytes(p: Path) -> bytes:
    """The bytes of a log (it may outgrow the bounds of kwsearch.jsonload); a missing or unreadable file is a
    one-line :class:`TuneError`."""
    try:
        if p.exists() and not p.is_file():  # a FIFO or a device would block or never end
            raise TuneError(f"{p}: not a regular file; expected a tuning log")
        return p.read_bytes()
    except FileNotFoundError:
        raise TuneError(f"{p}: no such file") from None
    except OSError as exc:
        raise TuneError(f"{p}: cannot read ({exc.strerror})") from None


def load_space(path: str | os.PathLike, **overrides: Any) -> TuneSettings:
    """Settings from a space file (``.toml`` or ``.json``): a ``params`` table of lists, and optionally
    any other setting (``base``, ``baseline``, ``players``, ``iterations``...); ``overrides`` (the
    command line; None = not given) win over the file."""
    p = Path(path)
    # The strict readers of kwsearch.jsonload: a regular file within bounds, no NaN, no key twice, no
    # integer of thousands of digits or nesting that would overflow the parser's stack.
    text = read_text(p, what="space file", error=TuneError)
    if p.suffix.lower() == ".json":
        obj = loads_json(text, str(p), error=TuneError)
    else:
        obj = loads_toml(text, str(p), error=TuneError)
    if not isinstance(obj, dict):
        raise TuneError(f"{p}: expected an object (table) at the top")
    for key in obj:
        if key not in SPACE_KEYS:
            raise TuneError(f"{p}: {key}: unknown setting (expected {', '.join(SPACE_KEYS)})")
    params = obj.get("params")
    if not isinstance(params, dict) or not params:
        raise TuneError(f"{p}: params: expected a table of parameter = [values], e.g. money = [0, 0.1]")
    plist = []
    for name, values in params.items():
        if not isinstance(values, list) or not values:
            raise TuneError(f"{p}: params.{name}: expected a non-empty list of values, got {json.dumps(values)}")
        plist.append((name, tuple(_space_value(str(p), name, v) for v in values)))
    kw = {k: v for k, v in obj.items() if k != "params"}
    given = {k: v for k, v in overrides.items() if v is not None}
    if "seconds" in given and "iterations" not in given:
        kw.pop("iterations", None)  # a limit on the command line replaces the file's
    if "iterations" in given:
        kw.pop("seconds", None)
    kw.update(given)
    if "seconds" in kw and "iterations" not in kw:
        kw["iterations"] = None
    try:
        return TuneSettings(params=tuple(plist), **kw)
    except TuneError as exc:
        raise TuneError(f"{p}: {exc}") from None


def parse_params(items: list[str]) -> tuple[tuple[str, tuple], ...]:
    """``name=v1,v2,...`` items (the command line's ``--param``) as settings' params."""
    out = []
    for item in items:
        name, eq, rest = item.partition("=")
        if not eq or not rest.strip():
            raise TuneError(f"--param {item!r}: expected name=value,value,..., e.g. money=0,0.1,0.2")
        values = []
        for t in rest.split(","):
            t = t.strip()
            try:
                values.append(int(t))
            except ValueError:
                try:
                    values.append(float(t))
                except ValueError:
                    values.append(t)
        out.append((name.strip().lower(), tuple(values)))
    return tuple(out)


# ---------------------------------------------------------------------------
# NTBEA
# ---------------------------------------------------------------------------


class NTupleModel:
    """The NTBEA model: count and summed score of every 1-tuple and of the full tuple."""

    def __init__(self, sizes: tuple[int, ...], k: float, eps: float = 0.5):
        self.sizes, self.k, self.eps = sizes, k, eps
        self.ones = [np.zeros((n, 2)) for n in sizes]   # per parameter: [count, sum] by value
        self.full: dict[tuple[int, ...], list[float]] = {}
        self.total = 0

    def add(self, point: tuple[int, ...], score: float, count: int = 1) -> None:
        for d, i in enumerate(point):
            self.ones[d][i] += (count, score * count)
        entry = self.full.setdefault(point, [0.0, 0.0])
        entry[0] += count
        entry[1] += score * count
        self.total += count

    def _tuples(self, point: tuple[int, ...]) -> list[tuple[float, float]]:
        stats = [(float(self.ones[d][i][0]), float(self.ones[d][i][1])) for d, i in enumerate(point)]
        if len(point) > 1:
            n, s = self.full.get(point, (0.0, 0.0))
            stats.append((n, s))
        return stats

    def estimate(self, point: tuple[int, ...]) -> float:
        """The mean over the point's tuples of their mean score (unseen tuples left out)."""
        means = [s / n for n, s in self._tuples(point) if n > 0]
        return sum(means) / len(means) if means else 0.0

    def ucb(self, point: tuple[int, ...]) -> float:
        ln = math.log(max(self.total, 1) + 1)
        vals = [(s / n if n > 0 else 0.0) + self.k * math.sqrt(ln / (n + self.eps)) for n, s in self._tuples(point)]
        return sum(vals) / len(vals)


def _mutate(point: tuple[int, ...], sizes: tuple[int, ...], rng: np.random.Generator) -> tuple[int, ...]:
    """A neighbour: each parameter with more than one value re-drawn with chance 1/d (at least one)."""
    free = [d for d, n in enumerate(sizes) if n > 1]
    out = list(point)
    if not free:
        return point
    chosen = [d for d in free if rng.random() < 1.0 / len(free)] or [free[int(rng.integers(len(free)))]]
    for d in chosen:
        other = int(rng.integers(sizes[d] - 1))
        out[d] = other if other < point[d] else other + 1  # a different value
    return tuple(out)


# ---------------------------------------------------------------------------
# Games
# ---------------------------------------------------------------------------


def play_tune_game(task: dict[str, Any]) -> dict[str, Any]:
    """Play one game of a tuning run (in a worker process); returns its log line."""
    from .bots import MAX_MATCH_DECISIONS, from_spec, play_match
    from .rules import Game

    game = Game(task["players"], v6=task["v6"])
    bots = [from_spec(spec, seed=seed) for spec, seed in zip(task["seats"], task["bot_seeds"])]
    decisions = [0]

    def count(*_: Any) -> None:
        decisions[0] += 1
    t0 = time.process_time()
    # A game past the match cap is adjudicated on the money then (docs/rules-notes.md) and says so.
    result = play_match(game.new_initial_state(task["deck_seed"]), bots, on_step=count,
                        max_decisions=MAX_MATCH_DECISIONS)
    returns = result.returns
    line = {"game": task["game"], "eval": task["eval"], "spec": task["spec"], "baseline": task["baseline"],
            "deck_seed": task["deck_seed"], "seat": task["seat"], "money": result.money,
            "returns": returns, "score": returns[task["seat"]], "decisions": decisions[0],
            "cpu": round(time.process_time() - t0, 3)}
    if result.adjudicated:
        line["adjudicated"] = True
    return line


def _tasks(settings: TuneSettings, step: int, spec: str) -> list[dict[str, Any]]:
    """The games of one NTBEA step (``batch`` pairs of evaluation numbers step*batch ...)."""
    base = settings.baseline_spec
    out = []
    for b in range(settings.batch):
        e = step * settings.batch + b
        deal = derive_seed(settings.seed, "tune", "deal", e)
        for j in range(2):
            g = 2 * e + j
            seat = (e + j * settings.players // 2) % settings.players
            seats = [spec if s == seat else base for s in range(settings.players)]
            out.append({"game": g, "eval": e, "spec": spec, "baseline": base, "deck_seed": deal, "seat": seat,
                        "seats": seats, "players": settings.players, "v6": settings.v6,
                        "bot_seeds": [derive_seed(settings.seed, "tune", "game", g, "seat", s)
                                      for s in range(settings.players)]})
    return out


# ---------------------------------------------------------------------------
# The log
# ---------------------------------------------------------------------------

GAME_KEYS = {"game", "eval", "spec", "baseline", "deck_seed", "seat", "money", "returns", "score", "decisions",
             "cpu"}


def load_log(path: str | os.PathLike) -> tuple[dict[str, Any], dict[int, dict], int]:
    """(header, {game: line}, length of the valid part) of a tuning log; a last line cut short by a
    kill is left out; anything else malformed is a one-line :class:`TuneError`."""
    p = Path(path)
    data = _read_bytes(p)
    valid = data.rfind(b"\n") + 1  # a last line without its newline was cut short by a kill: dropped
    header = None
    games: dict[int, dict] = {}
    for no, raw in enumerate(data[:valid].split(b"\n")[:-1], 1):
        if not raw.strip():
            continue
        try:
            obj = loads_json(raw.decode("utf-8"), error=TuneError)
        except UnicodeDecodeError:
            raise TuneError(f"{p}: line {no}: not a JSON object (not UTF-8 text)") from None
        except TuneError as exc:  # also NaN, a key twice, huge integers, deep nesting (kwsearch.jsonload)
            raise TuneError(f"{p}: line {no}: not a JSON object ({exc})") from None
        if not isinstance(obj, dict):
            raise TuneError(f"{p}: line {no}: expected a JSON object")
        if header is None:
            if obj.get("format") != LOG_FORMAT:
                raise TuneError(f"{p}: line {no}: format: expected {LOG_FORMAT!r} (a tuning log), "
                                f"got {json.dumps(obj.get('format'))}")
            if not isinstance(obj.get("settings"), dict):
                raise TuneError(f"{p}: line {no}: settings: expected an object")
            header = obj
            continue
        if "adjudicated" in obj and obj["adjudicated"] is not True:
            raise TuneError(f"{p}: line {no}: adjudicated: expected true (or no key), "
                            f"got {json.dumps(obj['adjudicated'])[:40]}")
        if set(obj) - {"adjudicated"} != GAME_KEYS:
            missing, extra = sorted(GAME_KEYS - set(obj)), sorted(set(obj) - GAME_KEYS - {"adjudicated"})
            what = f"{missing[0]}: missing" if missing else f"{extra[0]}: unknown key"
            raise TuneError(f"{p}: line {no}: {what} (a game line holds {', '.join(sorted(GAME_KEYS))})")
        g = obj["game"]
        if isinstance(g, bool) or not isinstance(g, int) or g < 0:
            raise TuneError(f"{p}: line {no}: game: expected a game number, got {json.dumps(g)}")
        check_seed(obj["deck_seed"], f"{p}: line {no}: deck_seed", TuneError)
        sc = obj["score"]
        if isinstance(sc, bool) or not isinstance(sc, (int, float)) or not 0 <= sc <= 1:
            raise TuneError(f"{p}: line {no}: score: expected a number from 0 to 1, got {json.dumps(sc)}")
        if g in games:
            raise TuneError(f"{p}: line {no}: game: game {g} is logged twice")
        games[g] = obj
    if header is None:
        raise TuneError(f"{p}: line 1: expected the header of a tuning log ({LOG_FORMAT})")
    return header, games, valid


def _append(f, line: dict[str, Any], where: Path) -> None:
    """Append one line, whole and fsynced, or nothing (kwsearch.fileio.append_whole: a full disk leaves
    the log at its last whole line, ready to resume)."""
    from .fileio import append_whole
    try:
        append_whole(f.fileno(), (json.dumps(line, separators=(",", ":")) + "\n").encode(), sync=True)
    except OSError as exc:
        raise TuneError(f"{where}: cannot write ({exc.strerror})") from None


# ---------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------


@dataclass
class Candidate:
    spec: str
    estimate: float      # the model's estimate (mean of the point's tuple means)
    score: float         # mean score of the point's own games
    games: int
    low: float           # 95% Wilson interval of that mean
    high: float


@dataclass
class TuneResult:
    settings: TuneSettings
    best: Candidate
    top: list[Candidate]
    games: int                       # games in the model
    played: int                      # of which played by this call (the rest came from the log)
    parity: float                    # a candidate as strong as the baseline scores this
    marginals: dict[str, list[tuple[Any, float, int]]] = field(default_factory=dict)  # name -> (value, mean, games)
    adjudicated: int = 0             # games stopped at the match cap, counted with their adjudicated result


def _lock(f, where: Path) -> None:
    import fcntl
    try:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise TuneError(f"{where}: another tuning run is writing this log (it is locked)") from None


def _check_header(header: dict[str, Any], want: dict[str, Any], where: Path) -> None:
    have = header["settings"]
    for key in SETTINGS_KEYS:
        if have.get(key) != want.get(key):
            raise TuneError(f"{where}: line 1: settings.{key}: the log has {json.dumps(have.get(key))}, "
                            f"this run asks for {json.dumps(want.get(key))} (resume with the same "
                            "settings, or start another log)")


def check_log(settings: TuneSettings, log: str | os.PathLike) -> int:
    """Games already in ``log`` for a run of ``settings`` (0 if there is no log yet); a log of other
    settings, or a malformed one, is a :class:`TuneError` (so a command can say so before it starts)."""
    where = Path(log)
    if not where.exists() or (where.is_file() and where.stat().st_size == 0):
        return 0
    header, games, _ = load_log(where)
    _check_header(header, json.loads(json.dumps(settings.as_dict())), where)
    return len(games)


def run_tune(settings: TuneSettings, games: int, log: str | os.PathLike, *, workers: int = 1,
             backend: str = "local", address: str | None = None,
             progress: Callable[[int, int, dict], None] | None = None) -> TuneResult:
    """Run NTBEA for ``games`` games (rounded up to whole steps) against ``settings.baseline``,
    appending each game to ``log``; an existing log is resumed (its header's settings must equal
    ``settings``). ``progress(done, total, line)`` is called after each game.

    ``backend="ray"`` plays the games of a step as Ray tasks (``workers`` at once; a local Ray
    instance, or the cluster at ``address``: kwsearch.raytasks) running the same function as a local
    worker; their lines are written in the same order as a local run's, so the log is the same."""
    from contextlib import ExitStack
    from .tournament import ctrl_c_stops_games, file_id, worker_init, wilson
    from .worker_procs import terminate_pool

    if isinstance(games, bool) or not isinstance(games, int) or not 1 <= games <= MAX_GAMES:
        raise TuneError(f"games: expected a number of games from 1 to {MAX_GAMES:,}, got {games!r}")
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= MAX_WORKERS:
        raise TuneError(f"workers: expected 1 to {MAX_WORKERS}, got {workers!r}")
    if backend not in ("local", "ray"):
        raise TuneError(f"backend: expected local or ray, got {backend!r}")
    if address and backend != "ray":
        raise TuneError("address: applies only with backend ray")
    where = Path(log)
    want = json.loads(json.dumps(settings.as_dict()))
    logged: dict[int, dict] = {}
    if where.exists():
        if not where.is_file():
            raise TuneError(f"{where}: not a regular file")
        try:
            f = where.open("r+b", buffering=0)  # unbuffered: lines go whole to the file (_append)
        except OSError as exc:
            raise TuneError(f"{where}: cannot open ({exc.strerror})") from None
    else:
        try:
            f = where.open("xb", buffering=0)
        except OSError as exc:
            raise TuneError(f"{where}: cannot write ({exc.strerror})") from None
    pool = None
    ray = None
    with f, ExitStack() as stack:
        _lock(f, where)
        if where.stat().st_size:
            header, logged, valid = load_log(where)
            _check_header(header, want, where)
            try:
                if valid < os.fstat(f.fileno()).st_size:  # drop a line cut short by a kill
                    f.truncate(valid)
            except OSError as exc:
                raise TuneError(f"{where}: cannot write ({exc.strerror})") from None
        else:
            from . import __version__
            _append(f, {"format": LOG_FORMAT, "settings": want, "kwsearch": __version__}, where)

        sizes = tuple(len(values) for _, values in settings.params)
        model = NTupleModel(sizes, settings.k)
        rng = np.random.default_rng(derive_seed(settings.seed, "tune", "ntbea"))
        point = tuple(int(rng.integers(n)) for n in sizes)
        per_step = 2 * settings.batch
        steps = -(-games // per_step)
        done = played = adjudicated = 0
        seen: dict[tuple[int, ...], list[float]] = {}
        try:
            for step in range(steps):
                spec = settings.spec_of(point)
                tasks = _tasks(settings, step, spec)
                results: dict[int, dict] = {}
                todo = []
                for t in tasks:
                    line = logged.get(t["game"])
                    if line is None:
                        todo.append(t)
                        continue
                    if line["spec"] != spec or line["baseline"] != t["baseline"] or line["seat"] != t["seat"]:
                        raise TuneError(f"{where}: game {t['game']}: spec: the log has {line['spec']!r} at seat "
                                        f"{line['seat']}, this run plays {spec!r} at seat {t['seat']} (the log "
                                        "belongs to another run)")
                    results[t["game"]] = line
                if todo and backend == "ray":
                    if ray is None:  # started at the first game to play (a finished log needs no Ray)
                        from .raytasks import ray_session
                        ray = stack.enter_context(ray_session(workers, address, TuneError))

                    def record(line: dict) -> None:
                        nonlocal played
                        _append(f, line, where)  # in the order of the step's games, as a local run writes
                        results[line["game"]] = line
                        played += 1
                    ray.run("kwsearch.tune:play_tune_game", ((t,) for t in todo), record, ordered=True)
                elif todo:
                    if len(todo) > 1 and (pool is not None or workers > 1):
                        from .worker_procs import all_results, sigint_blocked
                        if pool is None:
                            from concurrent.futures import ProcessPoolExecutor
                            pool = ProcessPoolExecutor(max_workers=workers, initializer=worker_init,
                                                       initargs=(os.getpid(), file_id(f.fileno())))
                        # a new pool's workers start at the first submit, with Ctrl-C held back until they ignore it
                        with sigint_blocked():
                            futures = [pool.submit(play_tune_game, t) for t in todo]  # every game now
                        lines = all_results(futures)
                    else:
                        with ctrl_c_stops_games():  # not "move now": the game's line must be an uninterrupted one's
                            lines = [play_tune_game(t) for t in todo]
                    for line in lines:
                        _append(f, line, where)
                        results[line["game"]] = line
                        played += 1
                for t in tasks:
                    line = results[t["game"]]
                    model.add(point, float(line["score"]))
                    s = seen.setdefault(point, [0.0, 0.0])
                    s[0] += 1
                    s[1] += float(line["score"])
                    done += 1
                    adjudicated += bool(line.get("adjudicated"))
                    if progress is not None:
                        progress(done, steps * per_step, line)
                # The next point: the best of the neighbours by the model's UCB (ties: the first drawn).
                best, best_v = point, -math.inf
                for _ in range(settings.neighbours):
                    nb = _mutate(point, sizes, rng)
                    v = model.ucb(nb)
                    if v > best_v:
                        best, best_v = nb, v
                point = best
        except BaseException:
            if pool is not None:
                terminate_pool(pool)
                pool = None
            raise
        finally:
            if pool is not None:
                pool.shutdown()

    def cand(pt: tuple[int, ...]) -> Candidate:
        n, s = seen[pt]
        lo, hi = wilson(s, int(n))
        return Candidate(settings.spec_of(pt), model.estimate(pt), s / n, int(n), lo, hi)

    ranked = sorted(seen, key=lambda pt: (-model.estimate(pt), -seen[pt][0], pt))
    marginals = {name: [(values[i], float(model.ones[d][i][1] / model.ones[d][i][0]) if model.ones[d][i][0] else 0.0,
                         int(model.ones[d][i][0])) for i in range(len(values))]
                 for d, (name, values) in enumerate(settings.params)}
    return TuneResult(settings, cand(ranked[0]), [cand(pt) for pt in ranked[:5]], done, played,
                      1.0 / settings.players, marginals, adjudicated)


def result_text(res: TuneResult) -> str:
    """The run's summary: the recommendation, the top points, what each value scored."""
    b = res.best
    lines = [f"best: {b.spec}",
             f"  model estimate {b.estimate:.3f}; its own games: score {b.score:.3f} "
             f"[{b.low:.3f}, {b.high:.3f}] over {b.games} games (parity {res.parity:.2f})",
             f"games: {res.games} ({res.played} played now, {res.games - res.played} from the log)"
             + (f"; {res.adjudicated} adjudicated at the decision cap" if res.adjudicated else ""),
             "top points (model estimate, own score [95% Wilson], games):"]
    for c in res.top:
        lines.append(f"  {c.estimate:.3f}  {c.score:.3f} [{c.low:.3f}, {c.high:.3f}]  {c.games:4d}  {c.spec}")
    lines.append("values (mean score, games):")
    for name, rows in res.marginals.items():
        lines.append(f"  {name}: " + ", ".join(f"{_value_text(v)} {m:.3f} ({n})" for v, m, n in rows))
    return "\n".join(lines)


def result_json(res: TuneResult) -> dict[str, Any]:
    def c(x: Candidate) -> dict[str, Any]:
        return {"spec": x.spec, "estimate": x.estimate, "score": x.score, "games": x.games,
                "interval": [x.low, x.high]}
    return {"best": c(res.best), "top": [c(x) for x in res.top], "games": res.games, "played": res.played,
            "adjudicated": res.adjudicated,
            "parity": res.parity, "settings": res.settings.as_dict(),
            "values": {k: [{"value": v, "score": m, "games": n} for v, m, n in rows]
                       for k, rows in res.marginals.items()}}
