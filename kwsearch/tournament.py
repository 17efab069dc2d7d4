"""Bot-vs-bot tournaments: a schedule, a results file that survives a kill, a report.

    >>> spec = TournamentSpec(bots=("random", "heuristic"), players=2, games=4, seed=7)
    >>> [spec.seat_bots(i) for i in range(4)]
    [[0, 1], [1, 0], [0, 1], [1, 0]]
    >>> [spec.deck_seed(i) for i in range(4)]
    [7, 7, 8, 8]

The schedule (modelled on cutechess-cli / fastchess):

* **Line-ups.** With as many bots as seats, every game seats all of them. With
  more bots than seats, every combination of ``players`` bots is a line-up, in
  turn. With fewer, the bots fill the seats cyclically (``A B A B``; for three
  bots at four seats ``A B C A``, ``B C A B``, ``C A B C``), so each bot gets as
  many seats as the others over a cycle.
* **Rotation.** A line-up is played ``players`` times in a row, rotated one seat
  each time, so every bot plays every seat equally often.
* **Paired decks.** The games of one rotation share the set-up and deck seed
  (``seed + block``); the difference between bots is not drowned by the luck of
  the deal.
* **Seeds.** Bot ``s`` of game ``i`` gets seed ``(seed * 1000003 + i) * 8 + s``:
  game ``i`` is the same game whoever plays it, in whatever order or process.

The results file is JSON Lines (``kwsearch-tournament/1``, docs/formats.md): a
header line with the settings, then one line per finished game, appended and
flushed the moment the game ends (with several workers, in the order games end).
:func:`run_tournament` with ``resume=True`` plays only the games the file lacks,
so a killed run loses at most the games that were being played, and the finished
file holds the same games, line for line apart from ``seconds`` and the order, as
an uninterrupted run.
"""

from __future__ import annotations

import itertools
import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .errors import KwsearchError

RESULTS_FORMAT = "kwsearch-tournament/1"


class TournamentError(KwsearchError):
    """A bad tournament setting or results file (the message names the file, line and field)."""


# ---------------------------------------------------------------------------
# Schedule
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class SPRT:
    """Sequential probability ratio test for two bots: H0 elo = elo0 against H1 elo = elo1.

    Uses the normal approximation of the log-likelihood ratio over per-game scores
    (the GSPRT of fishtest): ``LLR = (s1 - s0) (2 Σx - n (s0 + s1)) / (2 var)``, with
    ``s = 1 / (1 + 10^(-elo/400))`` and ``var`` the sample variance of the scores.
    The score of a game is the share of the win held by the first bot's seats,
    normalised by its share of the seats (0.5 = equal strength).
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
                raise TournamentError(f"--sprt: expected elo0=E0,elo1=E1[,alpha=A,beta=B], got {text!r}")
            try:
                values[key] = float(value)
            except ValueError:
                raise TournamentError(f"--sprt: {key} expects a number, got {value.strip()!r}") from None
        sprt = cls(**values)
        if not sprt.elo1 > sprt.elo0:
            raise TournamentError(f"--sprt: elo1 must be greater than elo0, got {text!r}")
        if not (0 < sprt.alpha < 0.5 and 0 < sprt.beta < 0.5):
            raise TournamentError(f"--sprt: alpha and beta must lie in (0, 0.5), got {text!r}")
        return sprt

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
        """(LLR, ``"H1"``/``"H0"`` or None, the game count at which it was decided)."""
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
    """What a tournament plays: bot specs, player count, number of games, seed, variant."""

    bots: tuple[str, ...]
    players: int
    games: int
    seed: int = 0
    v6: bool = False
    sprt: SPRT | None = None

    def __post_init__(self) -> None:
        from .bots import from_spec
        if self.players not in (2, 3, 4):
            raise TournamentError(f"--players: expected 2, 3 or 4, got {self.players}")
        if len(self.bots) < 2:
            raise TournamentError("--bots: a tournament needs at least two bot specs")
        seen = set()
        for b in self.bots:
            try:
                from_spec(b)
            except ValueError as exc:
                raise TournamentError(f"--bots: {exc}") from None
            if b in seen:
                raise TournamentError(f"--bots: {b!r} is given twice (each bot spec once)")
            seen.add(b)
        if self.games < 1:
            raise TournamentError(f"--games: expected a positive number, got {self.games}")
        if self.sprt is not None and len(self.bots) != 2:
            raise TournamentError(f"--sprt: needs exactly two bots, got {len(self.bots)}")

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

    def deck_seed(self, index: int) -> int:
        return self.seed + index // self.players

    def bot_seed(self, index: int, seat: int) -> int:
        return ((self.seed * 1_000_003 + index) * 8 + seat) & ((1 << 63) - 1)

    def header(self) -> dict[str, Any]:
        from . import __version__
        return {"format": RESULTS_FORMAT, "bots": list(self.bots), "players": self.players, "games": self.games,
                "seed": self.seed, "v6": self.v6, "sprt": self.sprt.as_dict() if self.sprt else None,
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
    from .bots import from_spec, play_game
    from .records import Recorder
    from .rules import Game

    seat_bots = spec.seat_bots(index)
    seats = [spec.bots[b] for b in seat_bots]
    deck_seed = spec.deck_seed(index)
    game = Game(spec.players, v6=spec.v6)
    bots = [from_spec(seats[s], seed=spec.bot_seed(index, s)) for s in range(spec.players)]
    actions: list[int] = []
    t0 = time.perf_counter()
    final = play_game(game.new_initial_state(deck_seed), bots, on_step=lambda st, seat, a: actions.append(a))
    seconds = time.perf_counter() - t0
    # The record (with the cards each decision turned up) from the reference engine,
    # which deals the same set-up and deck from the same seed.
    rec = Recorder.start(game, deck_seed, seat_names=seats)
    for a in actions:
        rec.apply(a)
    money = final.money()
    if rec.state.money() != money:
        raise RuntimeError(f"game {index}: the fast and the reference engine disagree on the final money "
                           f"({money} vs {rec.state.money()})")
    return {"game": index, "deck_seed": deck_seed, "seats": seats, "bots": seat_bots, "money": money,
            "ranks": ranks_of(money), "returns": final.returns(), "decisions": len(actions),
            "seconds": round(seconds, 3), "record": rec.record}


# ---------------------------------------------------------------------------
# Results files
# ---------------------------------------------------------------------------


def spec_from_header(h: dict[str, Any], games: int | None = None) -> TournamentSpec:
    sprt = h.get("sprt")
    return TournamentSpec(bots=tuple(h["bots"]), players=h["players"], games=games or h["games"],
                          seed=h["seed"], v6=bool(h.get("v6", False)), sprt=SPRT(**sprt) if sprt else None)


_GAME_FIELDS = {"game": int, "seats": list, "bots": list, "money": list, "ranks": list, "returns": list}


def load_results(path: str | Path, allow_cut_tail: bool = False) -> tuple[dict[str, Any], dict[int, dict], int]:
    """(header, games by index, byte length of the valid part) of a results file.

    Every line must be valid; with ``allow_cut_tail`` a last line without its
    newline (a write cut short by a kill) is ignored instead — the caller
    truncates it before appending.
    """
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise TournamentError(f"{p}: no such file") from None
    except OSError as exc:
        raise TournamentError(f"{p}: cannot read ({exc.strerror})") from None
    lines = data.split(b"\n")
    valid_len = len(data)
    if lines and lines[-1] == b"":
        lines.pop()
    elif allow_cut_tail and lines:
        valid_len = len(data) - len(lines[-1])
        lines.pop()
    if not lines:
        raise TournamentError(f"{p}: empty file, expected a {RESULTS_FORMAT} header line")
    header = _json_line(p, 1, lines[0])
    if not isinstance(header, dict) or header.get("format") != RESULTS_FORMAT:
        raise TournamentError(f"{p}: line 1: format: expected {RESULTS_FORMAT!r}, got "
                              f"{json.dumps(header.get('format') if isinstance(header, dict) else header)}")
    for key, kind in (("bots", list), ("players", int), ("games", int), ("seed", int)):
        if not isinstance(header.get(key), kind) or isinstance(header.get(key), bool):
            raise TournamentError(f"{p}: line 1: {key}: expected {'a list' if kind is list else 'an integer'}, "
                                  f"got {json.dumps(header.get(key))}")
    try:
        spec = spec_from_header(header)
    except (TournamentError, TypeError) as exc:
        raise TournamentError(f"{p}: line 1: {exc}") from None
    games: dict[int, dict] = {}
    for no, raw in enumerate(lines[1:], start=2):
        g = _json_line(p, no, raw)
        if not isinstance(g, dict):
            raise TournamentError(f"{p}: line {no}: expected a JSON object")
        for key, kind in _GAME_FIELDS.items():
            if not isinstance(g.get(key), kind) or isinstance(g.get(key), bool):
                raise TournamentError(f"{p}: line {no}: {key}: expected {'a list' if kind is list else 'an integer'}"
                                      f", got {json.dumps(g.get(key))}")
        idx = g["game"]
        if not 0 <= idx:
            raise TournamentError(f"{p}: line {no}: game: expected a game number >= 0, got {idx}")
        if idx in games:
            raise TournamentError(f"{p}: line {no}: game {idx} appears twice")
        if g["bots"] != spec.seat_bots(idx) or len(g["money"]) != spec.players:
            raise TournamentError(f"{p}: line {no}: game {idx}: bots/money do not match the schedule of the "
                                  f"header (expected bots {spec.seat_bots(idx)} and {spec.players} money values)")
        games[idx] = g
    return header, games, valid_len


def _json_line(p: Path, no: int, raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise TournamentError(f"{p}: line {no}: not valid JSON ({str(exc).split(':')[0]})") from None


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
    header: dict[str, Any] = field(default_factory=dict)  # the results file's header
    games: dict[int, dict] = field(default_factory=dict)  # every game in the file, by number


def run_tournament(spec: TournamentSpec, out: str | Path, *, workers: int = 1, resume: bool = False,
                   backend: str = "local", address: str | None = None,
                   progress: Callable[[int, int, dict], None] | None = None) -> RunInfo:
    """Play ``spec`` into the results file ``out``.

    A new file is refused if ``out`` exists (nothing is overwritten); with
    ``resume=True`` the file must exist and hold the same settings (``spec.games``
    may be larger, to extend a finished tournament), and only its missing games
    are played. ``progress(done, total, line)`` is called after each game.
    """
    out = Path(out)
    done: dict[int, dict] = {}
    header = spec.header()
    if resume:
        header, done, valid_len = load_results(out, allow_cut_tail=True)
        old = spec_from_header(header)
        for key in ("bots", "players", "seed", "v6", "sprt"):
            if getattr(old, key) != getattr(spec, key):
                raise TournamentError(f"{out}: line 1: {key}: the file has {getattr(old, key)!r}, the command "
                                      f"asks for {getattr(spec, key)!r} (resume with the same settings)")
        if valid_len < out.stat().st_size:  # drop a line cut short by a kill
            with out.open("r+b") as f:
                f.truncate(valid_len)
    else:
        if out.exists():
            raise TournamentError(f"{out}: already exists; pass --resume to continue it, or choose another file")
        try:
            out.write_text(json.dumps(header) + "\n", encoding="utf-8")
        except OSError as exc:
            raise TournamentError(f"{out}: cannot write ({exc.strerror})") from None
    todo = [i for i in range(spec.games) if i not in done]
    info = RunInfo(skipped=len(done), header=header, games=done)
    if spec.sprt is not None and _sprt_decided(spec, done):
        todo = []
        info.stopped_by_sprt = True
    total = spec.games
    t0 = time.perf_counter()
    with out.open("a", encoding="utf-8") as f:
        def record(line: dict) -> bool:
            """Append one game; True when the SPRT says stop."""
            f.write(json.dumps(line, separators=(",", ":")) + "\n")
            f.flush()
            done[line["game"]] = line
            info.played += 1
            if progress is not None:
                progress(len(done), total, line)
            return spec.sprt is not None and _sprt_decided(spec, done)

        if backend == "ray":
            info.stopped_by_sprt |= _run_ray(spec, todo, workers, address, record)
        elif backend == "local":
            info.stopped_by_sprt |= _run_local(spec, todo, workers, record)
        else:
            raise TournamentError(f"--backend: expected local or ray, got {backend!r}")
    info.seconds = time.perf_counter() - t0
    return info


def _sprt_scores(games: dict[int, dict]) -> list[float]:
    """The first bot's scores in game order, up to the first missing game (so the SPRT
    does not depend on which worker finished first)."""
    scores = []
    i = 0
    while i in games:
        scores.append(pair_score(games[i], 0))
        i += 1
    return scores


def _sprt_decided(spec: TournamentSpec, done: dict[int, dict]) -> bool:
    """Whether the SPRT has decided on the games played so far."""
    return spec.sprt.status(_sprt_scores(done))[1] is not None


def _run_local(spec: TournamentSpec, todo: list[int], workers: int, record: Callable[[dict], bool]) -> bool:
    if workers <= 1:
        for i in todo:
            if record(play_scheduled_game(spec, i)):
                return True
        return False
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    pending = iter(todo)
    stop = False
    with ProcessPoolExecutor(max_workers=workers) as pool:
        running = set()
        for i in itertools.islice(pending, workers):
            running.add(pool.submit(play_scheduled_game, spec, i))
        while running:
            finished, running = wait(running, return_when=FIRST_COMPLETED)
            for fut in finished:
                stop |= record(fut.result())
            if not stop:
                for i in itertools.islice(pending, len(finished)):
                    running.add(pool.submit(play_scheduled_game, spec, i))
    return stop


def _run_ray(spec: TournamentSpec, todo: list[int], workers: int, address: str | None,
             record: Callable[[dict], bool]) -> bool:
    try:
        import ray
    except ImportError:
        raise TournamentError('--backend ray: Ray is not installed (pip install "kwsearch[ray]")') from None
    import kwsearch
    home = str(Path(kwsearch.__file__).resolve().parent.parent)
    started = False
    if not ray.is_initialized():
        try:
            if address:
                ray.init(address=address, log_to_driver=False)
            else:
                ray.init(num_cpus=max(1, workers), include_dashboard=False, log_to_driver=False)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise TournamentError(f"--backend ray: cannot start or join Ray"
                                  f"{' at ' + address if address else ''} ({str(exc).splitlines()[0]})") from None
        started = True
    def play(header: dict, index: int, home: str = home) -> dict:
        # Defined here so that Ray ships it by value: a worker imports kwsearch only
        # below, from the driver's copy first. (Ray puts the driver's working
        # directory on a worker's path, where a source checkout without its
        # compiled extension would otherwise shadow the installed package.)
        import sys
        if sys.path[:1] != [home]:
            sys.path.insert(0, home)
        from kwsearch.tournament import play_scheduled_game, spec_from_header
        return play_scheduled_game(spec_from_header(header), index)

    try:
        remote = ray.remote(num_cpus=1)(play)
        header = spec.header()
        pending = iter(todo)
        running = [remote.remote(header, i) for i in itertools.islice(pending, max(1, workers))]
        stop = False
        while running:
            finished, running = ray.wait(running, num_returns=1)
            for ref in finished:
                stop |= record(ray.get(ref))
                if not stop:
                    running += [remote.remote(header, i) for i in itertools.islice(pending, 1)]
        return stop
    finally:
        if started:
            ray.shutdown()


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
    for g in order:
        seats = g["bots"]
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
        lines.append(BotLine(name=spec.bots[b], seats=n, wins=sum(shares[b]), win_lo=lo, win_hi=hi,
                             money=sum(money[b]) / n if n else 0.0, rank=sum(ranks[b]) / n if n else 0.0,
                             mu=ratings[b].mu, sigma=ratings[b].sigma))
    cross = [[(ahead[a][b] / met[a][b], met[a][b]) if met[a][b] and a != b else None for b in range(nb)]
             for a in range(nb)]
    played = sorted(games)
    balanced = len(played) % spec.cycle == 0 and played == list(range(len(played)))
    rep = Report(header=header, games=len(order), bots=lines, crosstable=cross, balanced=balanced,
                 seconds=sum(g.get("seconds", 0.0) for g in order))
    if not balanced:
        rep.notes.append(f"seats are balanced every {spec.cycle} games; {len(played)} games played, so some bots "
                         "had more of some seats")
    if spec.sprt is not None:
        scores = _sprt_scores(games)
        llr, verdict, at = spec.sprt.status(scores)
        lo, hi = spec.sprt.bounds
        rep.sprt = {**spec.sprt.as_dict(), "llr": llr, "lower": lo, "upper": hi, "verdict": verdict,
                    "decided_at": at, "games": len(scores)}
    return rep


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
    if rep.sprt:
        s = rep.sprt
        verdict = {"H1": f"H1 accepted: {rep.bots[0].name} is stronger by about {s['elo1']:g} Elo or more",
                   "H0": f"H0 accepted: {rep.bots[0].name} is not stronger by {s['elo1']:g} Elo",
                   None: "undecided"}[s["verdict"]]
        where = f" after game {s['decided_at']}" if s["decided_at"] else ""
        out += ["", f"SPRT elo0={s['elo0']:g} elo1={s['elo1']:g} alpha={s['alpha']:g} beta={s['beta']:g}: "
                    f"LLR {s['llr']:.2f} (bounds {s['lower']:.2f}, {s['upper']:.2f}) — {verdict}{where}"]
    for note in rep.notes:
        out += ["", f"Note: {note}"]
    return "\n".join(out)


def report_json(rep: Report) -> dict[str, Any]:
    return {"format": "kwsearch-tournament-report/1", "games": rep.games, "settings": rep.header,
            "bots": [{"bot": b.name, "seats": b.seats, "wins": b.wins, "win_rate": b.wins / b.seats if b.seats else 0,
                      "win_ci95": [b.win_lo, b.win_hi], "mean_money": b.money, "mean_rank": b.rank,
                      "openskill_mu": b.mu, "openskill_sigma": b.sigma} for b in rep.bots],
            "crosstable": [[None if c is None else {"score": c[0], "games": c[1]} for c in row]
                           for row in rep.crosstable],
            "balanced": rep.balanced, "sprt": rep.sprt}

