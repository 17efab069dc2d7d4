"""Whole-game review: every decision of a logged game compared with the search's best.

Like lichess's computer analysis or KaTrain for Go, :func:`review_game` goes
through a game record decision by decision. At each decision it searches the
position from the deciding seat's information set (the search redraws the
hidden research deck in every iteration; the record's true order is never
used) and compares the move played with the best option (verified: see below):

* **win %** — the deciding seat's mean win share after the option (ties split);
* **expected money** — its mean final money after the option;
* **loss** — the best option's win % minus the played option's (never below 0),
  and the same for money;
* **class** — ``inaccuracy`` / ``mistake`` / ``blunder`` by the win-% loss, with
  the thresholds of :data:`THRESHOLDS` (docs/review.md gives the reasons).

**Verified values** (issue 29; docs/review.md, "Verified values"). The main search ranks the
options; the move played and the main search's most visited other options (:data:`VERIFY_OPTIONS`
in all) are then each **re-searched alone**: in :data:`VERIFY_CHUNKS` independent searches forced
to that option at the root (the forced root option of ``kwsearch._search.run_slice``, as
:mod:`kwsearch.confidence` re-searches a hint's options), every chunk of the same length
(:func:`verify_iterations`: the main search's iterations over :data:`VERIFY_DIVISOR`; few long
chunks rather than many short ones, since an option's value depends on the depth of its search
more than on the seed). The best is the option of the highest verified value, so a better option
the main search ranked lower is found and a move the main search preferred is still compared with
the runner-up. The options are valued by equally deep searches, the same depth at every decision,
and their difference has a 95% interval from the chunks' spread (pooled over the options verified).
A move is classed only when its loss *beyond that interval* (``loss - loss_half``) reaches a
threshold, and never when it is in the best's equal band (within :data:`EQUAL_MARGIN`, or not told
apart). The graph draws every seat's win share after the move played (``played_win_all``, from the
same re-searches), so a seat's point does not jump on its own turns.

**Sequential verification** (issue 29 item 5). While the mark is in doubt (:func:`in_doubt`: the loss's
interval straddles the mistake line, or clears it upwards by less than :data:`DOUBT_ZONE` over the
square root of the rounds), the move played and the best get :data:`VERIFY_CHUNKS` more chunks, up to
:data:`VERIFY_ROUNDS` rounds, and in the first :data:`WIDER_ROUNDS` the next option by the main search's
visits is verified too; in a settled decision (every option within the mistake line of the others) the
third option is not verified. **The screen**: in a decision not settled, every option the first round did not
verify gets one re-search of a chunk's length over :data:`SCREEN_DIVISOR`, and one within :data:`SCREEN_MARGIN`
of the best verified value (or above it) is verified in full: the main search can lock onto one option and
leave a better one with a hundred visits or fewer.
The move played is valued by its own re-searches alone: reviews made before 2026-11-27 also combined
them with the seat's next position where nothing came between (``played_next``; docs/review.md, "The
next position, no longer combined", gives the measurements that ended it); the checker still reads them.

Every search of a review (the main search, the re-searches, and the chance events' searches of
:mod:`kwsearch.luck`) steers by the settings' money weight, as the hints' searches do
(:func:`review_config`; docs/review.md, "Searches that steer as the hints do"). What a review reads
is win shares either way: the main search's win share of the mover per option (it only ranks the
options), and every seat's win share from the finishing places the re-searches count
(``Tree.accounting``). The reward only guides the trees.

Each decision's seed is ``derive_seed(seed, "review", ply)``, so a decision's
result depends only on the game, the settings and the seed: the same in one
process or spread over ``workers`` processes, and the same when a run is
resumed from its cache (a JSON file written atomically after every decision,
keyed by the game and the settings; Ctrl-C keeps what is done).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from .errors import KwsearchError
from .luck import DEFAULT_METHOD as DEFAULT_LUCK_METHOD
from .search import DEFAULT_CUTOFF, SearchConfig, SearchLimits
from .settings import cache_settings

REVIEW_FORMAT = "kwsearch-review/1"
CACHE_FORMAT = "kwsearch-review-cache/1"

#: Search iterations per decision when neither iterations nor seconds are given (``kwsearch review``
#: and a review started from the web board's page).
DEFAULT_ITERATIONS = 5000
#: Classes by the drop in the deciding seat's win probability (0..1), worst first.
#: lichess's thresholds on its winning-chances scale (-1..1) of 0.1/0.2/0.3 are 5/10/15
#: points of win probability; see docs/review.md.
THRESHOLDS = (("blunder", 0.15), ("mistake", 0.10), ("inaccuracy", 0.05))
MARKS = {"blunder": "??", "mistake": "?", "inaccuracy": "?!", None: ""}
#: Independent re-searches (chunks) of each verified option: few and long (docs/confidence.md: the depth
#: of a chunk matters far more than the number of chunks).
VERIFY_CHUNKS = 3
#: A chunk's length is the main search's iterations over this (800 at 4,000).
VERIFY_DIVISOR = 5
#: The options verified: the move played and the main search's first VERIFY_OPTIONS - 1 by visits (so a
#: move the search preferred is still compared with the runner-up); at most VERIFY_OPTIONS x VERIFY_CHUNKS
#: x N / VERIFY_DIVISOR iterations on top of the main search's N (bench/review_trust.py measures the cost).
VERIFY_OPTIONS = 3
#: The shortest chunk (a tiny review still gets a spread).
MIN_VERIFY_CHUNK = 20
#: Rounds of verification at most: a decision in doubt after a round (:func:`in_doubt`) gets VERIFY_CHUNKS more
#: chunks (of the same length) for the move played and the best, then is judged again. A loss that sits on the
#: mistake line needs many rounds to fall on one side of it (docs/review.md, "Sequential verification").
VERIFY_ROUNDS = 20
#: The screen (docs/review.md, "The screen"): in a decision not settled, every option the first round did not
#: verify gets one re-search of a chunk's length over SCREEN_DIVISOR (400 iterations at 4,000); one whose value
#: comes within SCREEN_MARGIN of the best verified value, or above it, is verified in full (VERIFY_CHUNKS chunks).
#: The main search can lock onto one option and value a better one from a hundred visits or fewer.
SCREEN_DIVISOR = 2
SCREEN_MARGIN = 0.05
#: The rounds (the first ones) in which a decision in doubt also verifies the next option by the main search's
#: visits not yet verified (a better option the main search ranked lower).
WIDER_ROUNDS = 3
#: A mark is concluded only when the loss's interval clears the mistake line by this much over the square root of
#: the rounds (1 point after the first round): the first rounds' intervals rest on few chunks, and a round whose
#: chunks happen to agree gives an interval too narrow, ending the verification with a mark another seed does
#: not repeat.
DOUBT_ZONE = 0.01
#: The lines a mark's doubt is about: the mistake line, which decides whether a move is marked "mistake or
#: worse" (the blunder line gets the first round's interval only: extra rounds there cost more than they told).
DOUBT_LINES = (0.10,)
#: The review's equal band: within this many points of win share of the best (0..1), or not told apart
#: (kwsearch.confidence.band). The review's own constant (recorded in the cache key), not the hints'.
EQUAL_MARGIN = 0.02


class ReviewError(KwsearchError):
    """A bad review input or setting (the game, the cache file, the options)."""


def classify(loss: float) -> str | None:
    """The class of a win-probability drop (0..1), or None for a good move."""
    for name, limit in THRESHOLDS:
        if loss >= limit - 1e-12:
            return name
    return None


def verified_class(loss: float, loss_half: float, equal: bool) -> str | None:
    """The class of a verified decision: that of the loss beyond its 95% interval
    (``loss - loss_half``), None for a move in the best's equal band."""
    return None if equal else classify(max(0.0, loss - loss_half))


def verify_iterations(iterations: int, divisor: int = VERIFY_DIVISOR) -> int:
    """The length of each re-search (chunk) after a main search of ``iterations``.

        >>> verify_iterations(4000)
        800
    """
    return max(MIN_VERIFY_CHUNK, iterations // divisor)


@dataclass
class DecisionReview:
    """One decision of the game, as the search saw it."""
    ply: int                 # decisions before this one (``show --ply`` shows its position)
    seat: int
    round: int
    kind: str                # the pending decision (a game.TASKS name)
    played: str              # the move played (notation)
    played_label: str        # the same, as the menus show it ("tile 8 (body+engine)")
    best: str                # the best option: the highest verified win % (see the module docstring)
    best_label: str          # the same, as the menus show it
    best_plan: list[str]     # the best option and the seat's follow-ups this turn
    played_win: float
    best_win: float
    played_money: float
    best_money: float
    loss: float              # best_win - played_win, at least 0
    money_loss: float        # best_money - played_money, at least 0
    cls: str | None          # "inaccuracy" / "mistake" / "blunder" / None
    win_all: list[float]     # every seat's win probability at this decision (best option)
    money_all: list[float]   # every seat's expected final money at this decision
    played_visits: int       # the move played's visits in the main search
    iterations: int
    options: int
    # The verification (absent from reviews of the former method, docs/formats.md):
    played_win_half: float | None = None   # 95% half-width of played_win (the chunks' spread)
    best_win_half: float | None = None     # the same for best_win
    loss_half: float | None = None         # 95% half-width of best_win - played_win
    equal: bool | None = None              # the move played is in the best's equal band (never marked)
    played_win_all: list[float] | None = None  # every seat's win probability after the move played
    verify_chunks: int | None = None       # re-searches of each verified option
    verify_iterations: int | None = None   # iterations of each (the last round's)
    # issue 30: every seat's finishing places in the main search's samples of the move played
    # (kwsearch.outlook; absent from reviews made before): {"move", "samples", "probabilities", "expected"}
    places: dict | None = None
    # The sequential verification and the next position (absent from reviews before them, docs/formats.md):
    verify_rounds: int | None = None       # rounds of verification (2: in doubt, verified again deeper)
    verify_sd: float | None = None         # one chunk's standard deviation of win share, pooled over the options
    verify_df: int | None = None           # its degrees of freedom
    played_forced_win: float | None = None  # the move played's own re-searches' value (= played_win since 2026-11-27)
    played_next: int | None = None         # None; before 2026-11-27 the ply whose position also valued the move played

    @property
    def mark(self) -> str:
        return MARKS[self.cls]

    @property
    def verified(self) -> bool:
        return self.loss_half is not None

    @property
    def graph_win(self) -> list[float]:
        """Every seat's point of the graph: its win probability after the move played (verified),
        or at the best option for a review of the former method."""
        return self.played_win_all if self.played_win_all is not None else self.win_all

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "DecisionReview":
        return cls(**{k: obj[k] for k in cls.__dataclass_fields__ if k in obj})


@dataclass
class SeatSummary:
    seat: int
    name: str
    decisions: int
    mean_loss: float                 # mean win-probability loss per decision (0..1)
    mean_money_loss: float
    counts: dict[str, int]           # per class
    worst: list[int]                 # plies of the (up to) three worst decisions, worst first


@dataclass
class Review:
    """A whole game's review (see :func:`review_game`)."""
    source: str | None
    players: int
    names: list[str]
    settings: dict[str, Any]
    decisions: list[DecisionReview]          # in game order (only the seats reviewed)
    total_decisions: int                     # decisions to review (the selected seats')
    seats: list[int]
    final_money: list[int] | None
    complete: bool
    summary: list[SeatSummary] = field(default_factory=list)
    cache_file: Path | None = None           # the cache file holding this review's decisions (None: none written)
    luck: dict[str, Any] | None = None       # the chance events' luck (kwsearch.luck; None: not computed)

    @property
    def figures(self) -> list[dict[str, Any]]:
        """Every seat's skill lost, accuracy and luck (:func:`kwsearch.luck.seat_figures`)."""
        from .luck import seat_figures
        return seat_figures(self.players, self.names, self.seats, self.decisions,
                            self.luck["events"] if self.luck is not None else None)

    def to_json(self) -> dict[str, Any]:
        """The ``kwsearch-review/1`` object (docs/formats.md)."""
        return {
            "format": REVIEW_FORMAT,
            "source": self.source,
            "players": self.players,
            "names": self.names,
            "settings": self.settings,
            "thresholds": {name: limit for name, limit in THRESHOLDS},
            "complete": self.complete,
            "reviewed": len(self.decisions),
            "total": self.total_decisions,
            "seats": self.seats,
            "final_money": self.final_money,
            "decisions": [dict(asdict(d), mark=d.mark) for d in self.decisions],
            "summary": [asdict(s) for s in self.summary],
            "figures": self.figures,
            "luck": self.luck,
        }


# ---------------------------------------------------------------------------
# One decision
# ---------------------------------------------------------------------------


def review_config(config: SearchConfig | None = None, players: int | None = None) -> SearchConfig:
    """The settings of a review's searches: the given ones (their money weight by player count when
    not given, as a hint's) with one worker per decision (the review spreads decisions over
    processes); given ``players``, with the analysis defaults of that many players filled in
    (:meth:`SearchConfig.for_analysis`: the exploration constant a hint searches with). The values a
    review reads are win shares whatever the weight (:func:`_chunk_row`); the weight only steers the
    searches, which a pure win share leaves adrift in a decided position (docs/review.md, "Searches
    that steer as the hints do")."""
    from dataclasses import replace
    config = replace(config or SearchConfig(), workers=1)
    return config if players is None else config.for_analysis(players)


def review_decision(state, action: int, limits: SearchLimits, seed: int,
                    config: SearchConfig | None = None, ply: int = 0) -> DecisionReview | None:
    """Analyse one decision: ``state`` before it (either engine), ``action`` the move played.

    The main search ranks the options; the move played and the most visited others (up to
    :data:`VERIFY_OPTIONS` in all) are then re-searched alone in chunks, and in a decision not settled every
    other option is screened by one shorter re-search (those near the best verified in full); the best is
    the highest verified value, and the verified values give the win %, the loss, its interval, the equal
    band and the class.
    While the mark is in doubt (:func:`in_doubt`), the move played and the best get :data:`VERIFY_CHUNKS`
    more chunks each, up to :data:`VERIFY_ROUNDS` rounds (docs/review.md). Returns None when the search
    was interrupted (Ctrl-C) before it finished.
    """
    from .analysis import analyse
    from .engine import convert, reference
    from .render import menu_label
    from .search import search_params
    ref = reference(state)
    seat = ref.current_player()
    n = ref.game.num_players
    config = review_config(config, n)
    legal = ref.legal_actions()
    an = analyse(state, limits, config, seed=seed, top=len(legal), verify=False)
    if an.interrupted:
        return None
    by_action = {c.action: c for c in an.candidates}
    visits = by_action[action].visits if action in by_action else 0
    k = VERIFY_CHUNKS
    chunk = verify_iterations(an.result.iterations)
    options = [action] + [c.action for c in an.candidates if c.action != action and c.visits > 0]
    ranked, options = options, options[:VERIFY_OPTIONS]
    order = {c.action: i for i, c in enumerate(an.candidates)}
    fast = convert(state, "fast")
    params = search_params(config, n)

    def extend(a: int, count: int) -> None:
        """Option ``a``'s chunks up to ``count``: chunk j seeded ``derive_seed(seed, "verify", 0, a, j)``."""
        got = rows.setdefault(a, [])
        got += [_chunk_row(fast, params, an.result.config.max_nodes, a, chunk, n, _verify_seed(seed, 0, a, j))
                for j in range(len(got), count)]

    rows: dict[int, list] = {}
    for a in options[:2]:
        extend(a, k)
    # a settled decision: the options the main search visited, and the two verified, all lie within the
    # mistake line of each other (a decided position, or options of one value), so no loss can reach it:
    # the third option is not verified, nor the others screened (docs/review.md, "Sequential verification and
    # the next position")
    values = [i.win_prob for i in an.result.actions if i.visits > 0] + [
        _option_value(rows[a], seat)[0] for a in rows]
    if max(values) - min(values) >= DOUBT_LINES[0]:
        for a in options[2:]:
            extend(a, k)
        # not settled: the screen of every option not verified (the main search's order; docs/review.md)
        top_value = max(_option_value(got, seat)[0] for got in rows.values())
        short = max(MIN_VERIFY_CHUNK, chunk // SCREEN_DIVISOR)
        for a in [a for a in ranked if a not in rows]:
            screen = _chunk_row(fast, params, an.result.config.max_nodes, a, short, n, _screen_seed(seed, a))
            if screen[1][0][seat] >= top_value - SCREEN_MARGIN:
                extend(a, k)
    options = [a for a in ranked if a in rows]
    rounds = 1
    while True:
        v = _judge(rows, options, action, seat, order)
        if v["top"] == action or rounds >= VERIFY_ROUNDS or not in_doubt(v["loss"], v["loss_half"], rounds):
            break
        # in doubt: more chunks of the same length for the move played and the best (sequential verification),
        # and in the first WIDER_ROUNDS rounds the next option by the main search's visits not yet verified (a better
        # option it ranked lower)
        more = len(rows[action]) + k
        extend(action, more)
        extend(v["top"], more)
        wider = next((a for a in ranked if a not in rows), None) if rounds < WIDER_ROUNDS else None
        if wider is not None:
            extend(wider, k)
            options.append(wider)
        rounds += 1
    top = v["top"]
    best = by_action[top] if top in by_action else an.candidates[0]
    pw, pall, pmoney = _option_value(rows[action], seat)
    bw, _, bmoney = _option_value(rows[top], seat)
    if action == top:
        loss = money_loss = loss_half = 0.0
        equal = True
    else:
        loss, loss_half = v["loss"], v["loss_half"]
        money_loss = max(0.0, bmoney[seat] - pmoney[seat])
        equal = loss <= max(EQUAL_MARGIN, loss_half)
    # every seat's win % at the best option: its re-searches' (the main search's rewards blend in money)
    win_all = list(_option_value(rows[top], seat)[1])
    played_places = by_action[action].places if action in by_action else None
    t = _t(v["df"])
    return DecisionReview(
        ply=ply, seat=seat, round=ref.round, kind=ref.pending(),
        played=ref.action_to_text(action), played_label=menu_label(ref, action),
        best=best.text, best_label=menu_label(ref, best.action), best_plan=list(best.plan),
        played_win=pw, best_win=bw, played_money=pmoney[seat], best_money=bmoney[seat],
        loss=loss, money_loss=money_loss, cls=verified_class(loss, loss_half, equal),
        win_all=win_all, money_all=list(best.money_all),
        played_visits=visits, iterations=an.result.iterations, options=len(legal),
        played_win_half=t * v["sd"] / math.sqrt(len(rows[action])),
        best_win_half=t * v["sd"] / math.sqrt(len(rows[top])),
        loss_half=loss_half, equal=equal,
        played_win_all=pall, verify_chunks=len(rows[action]), verify_iterations=chunk,
        verify_rounds=rounds, verify_sd=v["sd"], verify_df=v["df"], played_forced_win=pw, played_next=None,
        places=None if played_places is None else {
            "move": ref.action_to_text(action), "samples": played_places.samples,
            "probabilities": [list(x.p) for x in played_places.seats],
            "expected": [x.expected for x in played_places.seats]})


def _verify_seed(seed: int, rnd: int, option: int, j: int) -> int:
    from .seeds import derive_seed
    return derive_seed(seed, "verify", rnd, option, j)


def _screen_seed(seed: int, option: int) -> int:
    from .seeds import derive_seed
    return derive_seed(seed, "screen", option)


def _chunk_row(fast, params, max_nodes: int, action: int, length: int, n: int, seed: int):
    """One re-search of ``action`` alone (:func:`kwsearch.confidence.forced_halves`): ``(after length/2,
    after length)``, each ``(every seat's win share, every seat's mean money)``; the win shares are the
    seats' shares of first places (``forced_halves(..., shares=True)``), win shares whatever
    ``params``' money weight."""
    from .confidence import forced_halves
    return [(list(c[9][:n]), [x / c[2] for x in c[6][:n]]) if c else ([0.0] * n, [0.0] * n)
            for c in forced_halves(fast, params, max_nodes, action, length, seed, shares=True)]


def _option_value(rows: list, seat: int) -> tuple[float, list[float], list[float]]:
    """An option's verified value from its chunks: (the mover's win share, every seat's, every seat's money)."""
    n = len(rows[0][1][0])
    wall = [min(1.0, max(0.0, _mean([r[1][0][s] for r in rows]))) for s in range(n)]
    return wall[seat], wall, [_mean([r[1][1][s] for r in rows]) for s in range(n)]


def _judge(rows: dict[int, list], verified: list[int], action: int, seat: int, order: dict[int, int]) -> dict:
    """The best of the options ``verified`` (the highest mean, the main search's order between equal values),
    the loss of ``action`` against it and the loss's 95% half-width from the chunks' variance pooled over the
    options (``sd``: one chunk's pooled standard deviation, ``df`` its degrees of freedom)."""
    wins = {a: [r[1][0][seat] for r in rows[a]] for a in verified}
    means = {a: _mean(w) for a, w in wins.items()}
    top = min(verified, key=lambda a: (-means[a], order.get(a, len(order)), a))
    ss = sum((x - means[a]) ** 2 for a, w in wins.items() for x in w)
    df = sum(len(w) - 1 for w in wins.values())
    sd = math.sqrt(ss / df) if df > 0 else 0.0
    loss = max(0.0, means[top] - means[action])
    half = 0.0 if top == action else _t(df) * sd * math.sqrt(1 / len(wins[action]) + 1 / len(wins[top]))
    return {"top": top, "loss": loss, "loss_half": half, "sd": sd, "df": max(1, df)}


def _t(df: int) -> float:
    from .confidence import t975
    return t975(max(1, df))


def in_doubt(loss: float, half: float, rounds: int = 1) -> bool:
    """Whether the class of "mistake or worse" is still in doubt after ``rounds`` rounds, so the review
    verifies the decision further: the loss's 95% interval reaches a line of :data:`DOUBT_LINES`, and its
    lower end does not clear that line by :data:`DOUBT_ZONE` / sqrt(``rounds``). A loss below the line
    is settled as soon as its interval is.

        >>> in_doubt(0.12, 0.03), in_doubt(0.12, 0.015), in_doubt(0.12, 0.015, rounds=9)
        (True, True, False)
    """
    zone = DOUBT_ZONE / math.sqrt(rounds)
    return any(loss - half - zone < line - 1e-12 <= loss + half for line in DOUBT_LINES)


def _mean(xs: list[float]) -> float:
    return sum(xs) / len(xs)


def verify_options(state, options: list[int], chunk: int, seed: int, chunks: int = VERIFY_CHUNKS,
                   config: SearchConfig | None = None):
    """Each of ``options`` re-searched alone in ``chunks`` independent searches of ``chunk`` iterations
    (seeds ``derive_seed(seed, "verify", 0, option, j)``, as :func:`kwsearch.confidence.estimate`), with
    a review's settings (:func:`review_config` of ``config``): ``{option: (Estimate, every seat's mean
    win share, every seat's mean money)}``."""
    from .confidence import EXTRAPOLATION, Estimate
    from .engine import convert
    from .search import search_params
    fast = convert(state, "fast")
    n = fast.game.num_players
    mover = fast.current_player()
    vconfig = review_config(config, n)
    params = search_params(vconfig, n)
    out = {}
    for a in options:
        rows = [_chunk_row(fast, params, vconfig.max_nodes, a, chunk, n, _verify_seed(seed, 0, a, j))
                for j in range(chunks)]
        w = [r[1][0][mover] for r in rows]
        m = [r[1][1][mover] for r in rows]
        wm, wsd = _mean_sd(w)
        mm, msd = _mean_sd(m)
        _, csd = _mean_sd([r[1][0][mover] + EXTRAPOLATION * (r[1][0][mover] - r[0][0][mover])
                           for r in rows])
        est = Estimate(a, chunks, chunk, 0, wm, wsd / math.sqrt(chunks),
                       sum(r[1][0][mover] - r[0][0][mover] for r in rows) / chunks,
                       mm, msd / math.sqrt(chunks), sum(r[1][1][mover] - r[0][1][mover] for r in rows) / chunks,
                       tuple(w), csd / math.sqrt(chunks))
        _, wall, mall = _option_value(rows, mover)
        out[a] = (est, wall, mall)
    return out


def _mean_sd(xs: list[float]) -> tuple[float, float]:
    m = sum(xs) / len(xs)
    return m, (math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1)) if len(xs) > 1 else 0.0)


def _job(args) -> tuple[int, dict[str, Any] | None]:
    """A worker process: one decision from its full JSON state (hidden part included)."""
    obj, action, limits, config, seed, ply = args
    from .engine import state_from_json
    state = state_from_json(obj, engine="fast")
    try:
        d = review_decision(state, action, limits, seed, config, ply)
    except KeyboardInterrupt:
        return ply, None
    return ply, (asdict(d) if d is not None else None)


# ---------------------------------------------------------------------------
# Reading a review cache or a review file: one strict checker
# ---------------------------------------------------------------------------

#: The verification's fields of a decision: all present (a verified review) or none (the former method).
VERIFY_KEYS = ("played_win_half", "best_win_half", "loss_half", "equal", "played_win_all", "verify_chunks",
               "verify_iterations")
#: The fields of a decision in a cache (a review file's decisions also hold ``mark``), the verification's
#: optional.
#: Optional fields of a decision besides the verification's (each checked when present).
EXTRA_KEYS = ("places",)
#: The sequential verification's and the next position's fields: all present or none (a review before them),
#: and only with the verification's.
ROUND_KEYS = ("verify_rounds", "verify_sd", "verify_df", "played_forced_win", "played_next")
DECISION_KEYS = tuple(k for k in DecisionReview.__dataclass_fields__ if k not in VERIFY_KEYS + ROUND_KEYS + EXTRA_KEYS)
REVIEW_KEYS = ("format", "source", "players", "names", "settings", "thresholds", "complete", "reviewed", "total",
               "seats", "final_money", "decisions", "summary")
#: Added by issue 30 (luck, skill and accuracy; kwsearch.luck): optional, so older reviews still read.
REVIEW_OPTIONAL = ("figures", "luck")
SETTINGS_KEYS = ("iterations", "seconds", "seed", "c_uct", "money_weight", "closed_loop", "rollout")
SUMMARY_KEYS = ("seat", "name", "decisions", "mean_loss", "mean_money_loss", "counts", "worst")
CACHE_KEYS = ("format", "key", "decisions")
CLASSES = ("inaccuracy", "mistake", "blunder")
#: Bounds of a review's values: money a seat can hold, a text (a move, a label, a name), a plan's length.
MAX_MONEY = 1_000_000
MAX_TEXT = 200
MAX_PLAN = 100
MAX_COUNT = 2**63 - 1
_TOLERANCE = 1e-9
_NONE = object()
_MISSING = object()


def _show(v: Any) -> str:
    """A value of the file for a one-line message (JSON, cut short)."""
    try:
        s = json.dumps(v)
    except (TypeError, ValueError):
        s = repr(v)
    return s if len(s) <= 60 else s[:57] + "..."


class _Checker:
    """Raises ``error`` with one line: the file, the field, what was expected and what it holds."""

    def __init__(self, source: str, error: type[Exception], hint: str = ""):
        self.head = f"{source}: " if source else ""
        self.error, self.hint = error, hint

    def fail(self, where: str, expected: str, got: Any = _NONE) -> None:
        shown = "" if got is _NONE else ", missing" if got is _MISSING else f", got {_show(got)}"
        raise self.error(f"{self.head}{where}: expected {expected}{shown}{self.hint}")

    def obj(self, v: Any, where: str, required: tuple[str, ...], optional: tuple[str, ...] = (),
            what: str = "an object") -> dict:
        from .jsonload import key_path
        if not isinstance(v, dict):
            self.fail(where, what, v)
        base = "" if where == "$" else where
        for k in v:
            if k not in required and k not in optional:
                raise self.error(f"{self.head}{key_path(base, k)}: unknown key (expected only "
                                 f"{', '.join(required + optional)}){self.hint}")
        for k in required:
            if k not in v:
                self.fail(key_path(base, k), _WHAT.get(k, "a value"), _MISSING)
        return v

    def integer(self, v: Any, where: str, lo: int, hi: int, what: str | None = None) -> int:
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            self.fail(where, what or f"an integer from {lo} to {hi}", v)
        return v

    def number(self, v: Any, where: str, lo: float, hi: float, what: str | None = None) -> float:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or not lo <= v <= hi:
            self.fail(where, what or f"a number from {lo:g} to {hi:g}", v)
        return float(v)

    def prob(self, v: Any, where: str) -> float:
        return self.number(v, where, 0.0, 1.0, "a win probability from 0 to 1")

    def money(self, v: Any, where: str) -> float:
        return self.number(v, where, 0.0, MAX_MONEY, f"an amount of money from 0 to {MAX_MONEY:,}")

    def text(self, v: Any, where: str, empty: bool = False) -> str:
        if not isinstance(v, str) or len(v) > MAX_TEXT or (not v and not empty):
            self.fail(where, f"a{'' if empty else ' non-empty'} string of at most {MAX_TEXT} characters", v)
        return v

    def flag(self, v: Any, where: str) -> bool:
        if not isinstance(v, bool):
            self.fail(where, "true or false", v)
        return v

    def items(self, v: Any, where: str, lo: int, hi: int, what: str) -> list:
        if not isinstance(v, list) or not lo <= len(v) <= hi:
            self.fail(where, what, v)
        return v


_WHAT = {"format": "the format's name", "ply": "a ply", "seat": "a seat", "played": "a move", "best": "a move"}


def _classify(loss: float, thresholds: Mapping[str, float]) -> str | None:
    for name in reversed(CLASSES):  # worst first
        if loss >= thresholds[name] - 1e-12:
            return name
    return None


def _near(a: float, b: float) -> bool:
    return abs(a - b) <= _TOLERANCE * max(1.0, abs(a), abs(b))


def _check_decision(ck: _Checker, d: Any, where: str, players: int | None, thresholds: Mapping[str, float], *,
                    in_review: bool, steps: Sequence[tuple[Any, int]] | None = None, game: str | None = None,
                    seats: Sequence[int] | None = None) -> dict[str, Any]:
    """One reviewed decision (see :func:`check_review`); ``players`` None: as many as ``win_all`` has."""
    from .engine import reference
    from .jsonload import key_path

    def at(k: str) -> str:
        return key_path(where, k)

    ck.obj(d, where, DECISION_KEYS + (("mark",) if in_review else ()), VERIFY_KEYS + ROUND_KEYS + EXTRA_KEYS,
           what="a reviewed decision (an object)")
    verified = any(k in d for k in VERIFY_KEYS)
    rounds = any(k in d for k in ROUND_KEYS)
    if verified or rounds:
        ck.obj(d, where, DECISION_KEYS + (("mark",) if in_review else ()) + VERIFY_KEYS
               + (ROUND_KEYS if rounds else ()), EXTRA_KEYS, what="a reviewed decision (an object)")
    if players is None:
        w = d["win_all"]
        players = len(w) if isinstance(w, list) and 2 <= len(w) <= 4 else None
        if players is None:
            ck.fail(at("win_all"), "2 to 4 win probabilities (one per seat)", w)
    top = len(steps) - 1 if steps is not None else 2**31 - 1
    ply = ck.integer(d["ply"], at("ply"), 0, top, f"a ply of the game (0 to {top})" if steps is not None else None)
    seat = ck.integer(d["seat"], at("seat"), 0, players - 1, f"a seat from 0 to {players - 1}")
    if seats is not None and seat not in seats:
        ck.fail(at("seat"), f"one of the seats reviewed ({', '.join(map(str, seats))})", seat)
    played = ck.text(d["played"], at("played"))
    if steps is not None:
        state, action = steps[ply]
        ref = reference(state)
        move, mover = ref.action_to_text(action), ref.current_player()
        if (played != move or seat != mover) and in_review:
            raise ck.error(f"{ck.head}the review is not of {game or 'this game'}: at ply {ply} it has {_show(played)} "
                           f"by seat {seat}, the game {_show(move)} by seat {mover}")
        if played != move:
            ck.fail(at("played"), f"{_show(move)} (the move played at ply {ply})", played)
        if seat != mover:
            ck.fail(at("seat"), f"{mover} (the seat to decide at ply {ply})", seat)
    best = ck.text(d["best"], at("best"))
    if steps is not None:
        legal = ref.legal_actions()
        try:
            a = ref.parse_move(best)
        except KwsearchError:
            a = None
        if a not in legal:
            ck.fail(at("best"), f"a legal move at ply {ply}", best)
    ck.integer(d["round"], at("round"), 1, 1000)
    ck.text(d["kind"], at("kind"))
    ck.text(d["played_label"], at("played_label"))
    ck.text(d["best_label"], at("best_label"))
    plan = ck.items(d["best_plan"], at("best_plan"), 1, MAX_PLAN,
                   f"a list of 1 to {MAX_PLAN} moves, the first the best option")
    for i, m in enumerate(plan):
        ck.text(m, f"{at('best_plan')}[{i}]")
    if plan[0] != best:
        ck.fail(f"{at('best_plan')}[0]", f"the best option {_show(best)}", plan[0])
    played_win, best_win = ck.prob(d["played_win"], at("played_win")), ck.prob(d["best_win"], at("best_win"))
    played_money = ck.money(d["played_money"], at("played_money"))
    best_money = ck.money(d["best_money"], at("best_money"))
    loss = ck.prob(d["loss"], at("loss"))
    money_loss = ck.money(d["money_loss"], at("money_loss"))
    same = played == best
    want = 0.0 if same else max(0.0, best_win - played_win)
    if not _near(loss, want):
        ck.fail(at("loss"), f"best_win - played_win, at least 0{' (0: the move played is the best)' if same else ''}"
                f" = {want:.6g}", loss)
    want = 0.0 if same else max(0.0, best_money - played_money)
    if not _near(money_loss, want):
        ck.fail(at("money_loss"), f"best_money - played_money, at least 0 = {want:.6g}", money_loss)
    cls = d["cls"]
    if cls is not None and cls not in CLASSES:
        ck.fail(at("cls"), f"one of {', '.join(CLASSES)} or null", cls)
    if verified:
        for k in ("played_win_half", "best_win_half", "loss_half"):
            ck.prob(d[k], at(k))
        equal = ck.flag(d["equal"], at("equal"))
        if same and not equal:
            ck.fail(at("equal"), "true (the move played is the best)", equal)
        if same and d["loss_half"] != 0:
            ck.fail(at("loss_half"), "0 (the move played is the best)", d["loss_half"])
        ck.integer(d["verify_chunks"], at("verify_chunks"), 1, 1000)
        ck.integer(d["verify_iterations"], at("verify_iterations"), 1, MAX_COUNT)
        if rounds:
            ck.integer(d["verify_rounds"], at("verify_rounds"), 1, 1000)
            ck.number(d["verify_sd"], at("verify_sd"), 0.0, 1.0, "a standard deviation of win share from 0 to 1")
            ck.integer(d["verify_df"], at("verify_df"), 1, MAX_COUNT)
            ck.prob(d["played_forced_win"], at("played_forced_win"))
            nxt = d["played_next"]
            if nxt is None:
                if not _near(played_win, d["played_forced_win"]):
                    ck.fail(at("played_win"), f"played_forced_win = {d['played_forced_win']:.6g} (no next position "
                            "valued the move played)", played_win)
            elif isinstance(nxt, bool) or not isinstance(nxt, int) or nxt != ply + 1 or same:
                ck.fail(at("played_next"), f"null or {ply + 1} (the next ply, a move played other than the best)",
                        nxt)
            elif steps is not None and not follows_directly(steps, ply):
                ck.fail(at("played_next"), f"null (ply {ply + 1} is not the same seat's next position with "
                        "nothing between)", nxt)
        want_cls = None if equal else _classify(max(0.0, loss - d["loss_half"]), thresholds)
        if cls != want_cls:
            why = "the move played is in the best's equal band" if equal else \
                f"the class of the loss beyond its interval, {loss:.6g} - {d['loss_half']:.6g}"
            ck.fail(at("cls"), f"{_show(want_cls)} ({why})", cls)
    elif cls != _classify(loss, thresholds):
        ck.fail(at("cls"), f"{_show(_classify(loss, thresholds))} (the class of a loss of {loss:.6g})", cls)
    if in_review and d["mark"] != MARKS[cls]:
        ck.fail(at("mark"), _show(MARKS[cls]), d["mark"])
    win_all = ck.items(d["win_all"], at("win_all"), players, players,
                      f"{players} win probabilities (one per seat)")
    for i, p in enumerate(win_all):
        ck.prob(p, f"{at('win_all')}[{i}]")
    if sum(win_all) > 1.001:  # shares of one win (a cut-off's evaluation adds float32 rounding)
        ck.fail(at("win_all"), "win probabilities summing to at most 1", win_all)
    money_all = ck.items(d["money_all"], at("money_all"), players, players,
                        f"{players} amounts of money (one per seat)")
    for i, m in enumerate(money_all):
        ck.money(m, f"{at('money_all')}[{i}]")
    if verified:
        pall = ck.items(d["played_win_all"], at("played_win_all"), players, players,
                        f"{players} win probabilities (one per seat)")
        for i, p in enumerate(pall):
            ck.prob(p, f"{at('played_win_all')}[{i}]")
        if sum(pall) > 1.001:
            ck.fail(at("played_win_all"), "win probabilities summing to at most 1", pall)
    iterations = ck.integer(d["iterations"], at("iterations"), 0, MAX_COUNT)
    ck.integer(d["played_visits"], at("played_visits"), 0, iterations,
           f"visits from 0 to the decision's iterations ({iterations})")
    if d.get("places") is not None:
        _check_places(ck, d["places"], at("places"), players, played, iterations)
    options = ck.integer(d["options"], at("options"), 1, 100_000)
    if steps is not None:
        if options != len(legal):
            ck.fail(at("options"), f"{len(legal)} (the options at ply {ply})", options)
        if d["round"] != ref.round:
            ck.fail(at("round"), f"{ref.round} (the round at ply {ply})", d["round"])
        if d["kind"] != ref.pending():
            ck.fail(at("kind"), f"{_show(ref.pending())} (the decision at ply {ply})", d["kind"])
    return d


def _check_places(ck: _Checker, v: Any, where: str, players: int, played: str, iterations: int) -> None:
    """A decision's finishing places (``DecisionReview.places``): the move played, its samples, a
    row of place chances per seat (each row sums to 1, and so does each place over the seats) and
    each seat's expected place."""
    from .jsonload import key_path
    ck.obj(v, where, ("move", "samples", "probabilities", "expected"), (), what="finishing places (an object)")
    if v["move"] != played:
        ck.fail(key_path(where, "move"), f"the move played {_show(played)}", v["move"])
    ck.integer(v["samples"], key_path(where, "samples"), 1, max(1, iterations),
               f"samples from 1 to the decision's iterations ({iterations})")
    rows = ck.items(v["probabilities"], key_path(where, "probabilities"), players, players,
                    f"{players} rows of place chances (one per seat)")
    for i, row in enumerate(rows):
        at = f"{key_path(where, 'probabilities')}[{i}]"
        ck.items(row, at, players, players, f"{players} place chances (first place first)")
        for k, p in enumerate(row):
            ck.prob(p, f"{at}[{k}]")
        if abs(sum(row) - 1) > 1e-6:
            ck.fail(at, "place chances summing to 1", row)
    for k in range(players):
        if abs(sum(row[k] for row in rows) - 1) > 1e-6:
            ck.fail(key_path(where, "probabilities"), f"chances of place {k + 1} summing to 1 over the seats",
                    [row[k] for row in rows])
    exp = ck.items(v["expected"], key_path(where, "expected"), players, players,
                   f"{players} expected places (one per seat)")
    for i, e in enumerate(exp):
        want = sum((k + 1) * p for k, p in enumerate(rows[i]))
        ck.number(e, f"{key_path(where, 'expected')}[{i}]", 1 - 1e-6, players + 1e-6,
                  f"an expected place from 1 to {players}")
        if abs(e - want) > 1e-6:
            ck.fail(f"{key_path(where, 'expected')}[{i}]", f"the expected place of its row = {want:.6g}", e)


def _check_plies(ck: _Checker, plies: list[tuple[str, int]]) -> None:
    """Plies unique and in increasing order (``plies``: (where, ply) in the file's order)."""
    for (_, a), (where, b) in zip(plies, plies[1:]):
        if b == a:
            ck.fail(where, f"each ply once (ply {b} is reviewed twice)", b)
        if b < a:
            ck.fail(where, f"the plies in increasing order (after ply {a})", b)


def check_cache(obj: Any, source: str, *, key: str | None = None, steps: Sequence[tuple[Any, int]] | None = None,
                players: int | None = None, error: type[Exception] | None = None, hint: str = "") -> bool:
    """Check a ``kwsearch-review-cache/1`` object strictly; True if it belongs to ``key`` (this game and these
    settings: then its decisions are also checked against the game, ``steps`` = :func:`game_decisions`).

    A cache of another key is checked for its form only (it is started afresh). Every problem raises
    ``error`` (default :class:`ReviewError`): one line naming ``source``, the field and what was expected.
    """
    from .jsonload import key_path
    ck = _Checker(source, error or ReviewError, hint)
    ck.obj(obj, "$", CACHE_KEYS, ("luck",), what=f"a review cache (an object with format {CACHE_FORMAT!r})")
    if obj["format"] != CACHE_FORMAT:
        ck.fail("format", repr(CACHE_FORMAT) + " (a review cache)", obj["format"])
    k = obj["key"]
    if not isinstance(k, str) or len(k) != 64 or any(c not in "0123456789abcdef" for c in k):
        ck.fail("key", "a SHA-256 hash (64 lowercase hex digits)", k)
    mine = key is not None and k == key
    decisions = obj["decisions"]
    if not isinstance(decisions, dict):
        ck.fail("decisions", "an object of reviewed decisions by ply", decisions)
    if not mine:
        steps, players = None, None
    plies: list[tuple[str, int]] = []
    seen_players = players
    for name, d in decisions.items():
        where = key_path("decisions", name)
        if not (isinstance(name, str) and 0 < len(name) <= 10 and name.isascii() and name.isdigit()
                and str(int(name)) == name):
            raise (error or ReviewError)(f"{ck.head}{where}: expected a ply as the key (0, 1, 2, ...){hint}")
        _check_decision(ck, d, where, seen_players, dict(THRESHOLDS), in_review=False, steps=steps)
        if d["ply"] != int(name):
            ck.fail(key_path(where, "ply"), f"{name} (the ply it is filed under)", d["ply"])
        if seen_players is None:
            seen_players = len(d["win_all"])
        plies.append((where, d["ply"]))
    _check_plies(ck, plies)
    if "luck" in obj:
        from .luck import check_cache_luck
        check_cache_luck(ck, obj["luck"], seen_players)
    return mine


def check_review(obj: Any, source: str, *, steps: Sequence[tuple[Any, int]] | None = None,
                 players: int | None = None, game: str | None = None,
                 error: type[Exception] | None = None) -> dict[str, Any]:
    """Check a ``kwsearch-review/1`` object (``kwsearch review --json``) strictly; return it.

    The one checker of a review file, wherever it is read (``kwsearch serve --review``, a review pasted
    or uploaded to the board). Every key known and present, every value of its type and range (win
    probabilities and losses 0..1, money 0..:data:`MAX_MONEY`, counts non-negative integers, seats in
    range), the plies unique and in order, each decision's figures consistent (the loss is
    ``best_win - played_win``, the class that of the loss, the mark that of the class). With ``steps``
    (:func:`game_decisions` of the game, or the same pairs of states and moves) each decision must be
    the game's: its move and seat those of the game at its ply (else "the review is not of ``game``"),
    its options, round and kind too, and its best option a legal move there. ``error`` (default
    :class:`ReviewError`) names ``source``, the field and what was expected, in one line.
    """
    ck = _Checker(source, error or ReviewError)
    ck.obj(obj, "$", REVIEW_KEYS, REVIEW_OPTIONAL, what=f"a review (an object with format {REVIEW_FORMAT!r})")
    if obj["format"] != REVIEW_FORMAT:
        ck.fail("format", f"{REVIEW_FORMAT!r} (kwsearch review --json)", obj["format"])
    n = ck.integer(obj["players"], "players", 2, 4)
    if players is not None and n != players:
        ck.fail("players", f"{players} (the players of {game or 'the game'})", n)
    if obj["source"] is not None and (not isinstance(obj["source"], str) or len(obj["source"]) > 4096):
        ck.fail("source", "a file name or null", obj["source"])
    names = ck.items(obj["names"], "names", n, n, f"{n} names (one per seat)")
    for i, name in enumerate(names):
        ck.text(name, f"names[{i}]")
    st = ck.obj(obj["settings"], "settings", SETTINGS_KEYS, ("cutoff",))
    if st["iterations"] is not None:
        ck.integer(st["iterations"], "settings.iterations", 1, MAX_COUNT, "a positive integer or null")
    if st["seconds"] is not None:
        ck.number(st["seconds"], "settings.seconds", 0.0, 366 * 24 * 3600.0, "a positive number of seconds or null")
    if not st["iterations"] and not st["seconds"]:
        ck.fail("settings.iterations", "iterations or seconds (the limit of each decision's search)",
                st["iterations"])
    ck.integer(st["seed"], "settings.seed", -(1 << 63), (1 << 64) - 1, "a 64-bit seed")
    ck.number(st["c_uct"], "settings.c_uct", 0.0, 1000.0)
    ck.number(st["money_weight"], "settings.money_weight", 0.0, 1.0)
    ck.flag(st["closed_loop"], "settings.closed_loop")
    ck.text(st["rollout"], "settings.rollout")
    if st.get("cutoff") is not None:
        ck.integer(st["cutoff"], "settings.cutoff", 0, 100_000, "a number of decisions (0 to 100000) or null")
    th = ck.obj(obj["thresholds"], "thresholds", CLASSES)
    for name in CLASSES:
        ck.number(th[name], f"thresholds.{name}", 0.0, 1.0, "a loss of win probability from 0 to 1")
    if not th["inaccuracy"] <= th["mistake"] <= th["blunder"]:
        ck.fail("thresholds", "inaccuracy <= mistake <= blunder", th)
    ck.flag(obj["complete"], "complete")
    seats = ck.items(obj["seats"], "seats", 1, n, f"1 to {n} seats, each once, in order")
    for i, s in enumerate(seats):
        ck.integer(s, f"seats[{i}]", 0, n - 1, f"a seat from 0 to {n - 1}")
    if seats != sorted(set(seats)):
        ck.fail("seats", "each seat once, in increasing order", seats)
    decisions = ck.items(obj["decisions"], "decisions", 0, len(steps) if steps is not None else MAX_COUNT,
                        "a list of reviewed decisions" + (f" (at most {len(steps)})" if steps is not None else ""))
    plies = []
    for i, d in enumerate(decisions):
        where = f"decisions[{i}]"
        _check_decision(ck, d, where, n, th, in_review=True, steps=steps, game=game, seats=seats)
        plies.append((f"{where}.ply", d["ply"]))
    _check_plies(ck, plies)
    top = len(steps) if steps is not None else MAX_COUNT
    total = ck.integer(obj["total"], "total", 0, top)
    if steps is not None:
        from .engine import reference
        want = sum(1 for state, _ in steps if reference(state).current_player() in seats)
        if total != want:
            ck.fail("total", f"{want} (the decisions of seats {', '.join(map(str, seats))} in {game or 'the game'})",
                    total)
    ck.integer(obj["reviewed"], "reviewed", len(decisions), len(decisions), f"{len(decisions)} (the decisions listed)")
    if len(decisions) > total:
        ck.fail("total", f"at least the {len(decisions)} decisions reviewed", total)
    if obj["complete"] and len(decisions) != total:
        ck.fail("complete", f"false ({len(decisions)} of {total} decisions reviewed)", True)
    if obj["final_money"] is not None:
        fm = ck.items(obj["final_money"], "final_money", n, n, f"null or {n} amounts of money (one per seat)")
        for i, m in enumerate(fm):
            ck.integer(m, f"final_money[{i}]", 0, MAX_MONEY, f"an amount of money from 0 to {MAX_MONEY:,}")
    reviewed = {d["ply"] for d in decisions}
    summary = ck.items(obj["summary"], "summary", len(seats), len(seats),
                      f"{len(seats)} summaries (one per seat reviewed)")
    for i, s in enumerate(summary):
        where = f"summary[{i}]"
        ck.obj(s, where, SUMMARY_KEYS)
        if s["seat"] != seats[i]:
            ck.fail(f"{where}.seat", f"{seats[i]} (the seats reviewed, in order)", s["seat"])
        ck.text(s["name"], f"{where}.name")
        k = ck.integer(s["decisions"], f"{where}.decisions", 0, len(decisions),
                   f"the number of the seat's decisions reviewed (0 to {len(decisions)})")
        ck.prob(s["mean_loss"], f"{where}.mean_loss")
        ck.money(s["mean_money_loss"], f"{where}.mean_money_loss")
        counts = ck.obj(s["counts"], f"{where}.counts", CLASSES)
        for c in CLASSES:
            ck.integer(counts[c], f"{where}.counts.{c}", 0, k, f"a count from 0 to {k}")
        worst = ck.items(s["worst"], f"{where}.worst", 0, 3, "a list of up to 3 plies")
        for j, p in enumerate(worst):
            if isinstance(p, bool) or not isinstance(p, int) or p not in reviewed:
                ck.fail(f"{where}.worst[{j}]", "the ply of a reviewed decision", p)
    _check_luck_figures(ck, obj, n, names, seats, decisions, steps)
    return obj


def _check_luck_figures(ck: _Checker, obj: dict, n: int, names: list, seats: list, decisions: list,
                        steps: Sequence[tuple[Any, int]] | None) -> None:
    """The optional ``luck`` and ``figures`` of a review (issue 30, :mod:`kwsearch.luck`)."""
    from .luck import check_figures, check_luck
    last = len(steps) - 1 if steps is not None else 2**31 - 1
    luck = check_luck(ck, obj.get("luck"), n, last)
    if "figures" in obj:
        check_figures(ck, obj["figures"], n, names, seats, [DecisionReview.from_json(d) for d in decisions], luck)


# ---------------------------------------------------------------------------
# A whole game
# ---------------------------------------------------------------------------


def game_decisions(record: Mapping[str, Any], source: str | None = None) -> list[tuple[Any, int]]:
    """``(state before, action played)`` for every decision of a game record (reference states).

    Raises :class:`~kwsearch.errors.InvalidRecordError` (one line, naming the event) for a
    record that is not valid, e.g. one with an illegal move.
    """
    from .records import RECORD_FORMAT, replay
    if not isinstance(record, Mapping) or record.get("format") != RECORD_FORMAT:
        got = record.get("format") if isinstance(record, Mapping) else None
        where = f"{source}: " if source else ""
        raise ReviewError(f"{where}format: expected {RECORD_FORMAT!r} (a game record), got {json.dumps(got)}")
    out: list[tuple[Any, int]] = []
    replay(record, source=source, steps=out)
    return out


def cache_key(record: Mapping[str, Any], limits: SearchLimits, config: SearchConfig, seed: int) -> str:
    """What a cached decision depends on: the game (options, set-up, events) and the settings (with
    the player-count defaults filled in, so a changed default never reuses an old decision)."""
    game = {k: record.get(k) for k in ("players", "v6", "components", "seed", "setup", "events")}
    game["setup"] = {k: v for k, v in (game["setup"] or {}).items() if k not in ("seats", "names")}
    players = record.get("players")
    if players in DEFAULT_CUTOFF:
        config = config.for_analysis(players).for_players(players)
    # The settings that change the search (kwsearch.settings.cache_settings: each setting's table entry
    # says when it counts; a setting at its neutral value is left out, so older keys stay as they were).
    # version 2: the verified method (the move played and the best re-searched alone, with its constants);
    # version 3: 3 chunks of N/5, up to 3 options, the best the highest verified value, the loss's interval
    # from the chunks' variance pooled over the options; version 4: no third option in a decided position,
    # sequential rounds (more chunks, one more option) while a mark is in doubt, the pooled spread kept;
    # version 5: every search with the settings' money weight (it was 0), the win shares read from the
    # mover's win share (the main search) and the finishing places (the re-searches, the chance events);
    # version 6: up to 20 rounds, a mark concluded only beyond the doubt zone, the wider option in the first rounds;
    # version 7: the screen of the options not verified in a decision not settled
    settings = {"iterations": limits.iterations, "seconds": limits.seconds, "seed": seed, "version": 7,
                "verify": [VERIFY_CHUNKS, VERIFY_DIVISOR, VERIFY_OPTIONS, MIN_VERIFY_CHUNK, EQUAL_MARGIN,
                           VERIFY_ROUNDS, list(DOUBT_LINES), "pooled", DOUBT_ZONE, WIDER_ROUNDS,
                           SCREEN_DIVISOR, SCREEN_MARGIN],
                **cache_settings(config)}
    blob = json.dumps({"game": game, "settings": settings}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()


def default_cache_path(game_path: str | os.PathLike) -> Path:
    p = Path(game_path)
    return p.with_name(p.stem + ".review-cache.json")


#: Appended to every error about a cache file: the file is left as it is.
CACHE_HINT = "; the cache file is left as it is: fix or remove it, or pass another --cache or --no-cache"


def _load_cache(path: Path, key: str, steps: Sequence[tuple[Any, int]],
                players: int) -> tuple[dict[int, dict[str, Any]], bool, dict[str, Any]]:
    """The decisions of the cache at ``path`` that belong to ``key``, and whether the file is one of ``key``.

    The file is read strictly (:func:`kwsearch.jsonload.load_json_file`: a regular file only, so a FIFO
    or a device is refused at once, within bounds) and checked (:func:`check_cache`). A bad cache
    is an error and the file is left untouched: it may be someone's work, and guessing which part
    of it is good would be worse than asking. A valid cache of another game or other settings
    is started afresh (it is overwritten at the first decision reviewed).
    """
    from .jsonload import load_json_file
    from .luck import LUCK_VERSION
    if not path.exists():
        return {}, False, {}
    try:
        obj = load_json_file(path, what="review cache", error=ReviewError)
    except ReviewError as exc:
        raise ReviewError(f"{exc}{CACHE_HINT}") from None
    if not check_cache(obj, str(path), key=key, steps=steps, players=players, hint=CACHE_HINT):
        return {}, False, {}
    luck = obj.get("luck") or {}
    luck = {"method": luck["method"], "events": dict(luck["events"])} if luck.get("version") == LUCK_VERSION else {}
    return {int(k): dict(v) for k, v in obj["decisions"].items()}, True, luck


def _save_cache(path: Path, key: str, done: dict[int, dict[str, Any]],
                luck: dict[str, dict[str, Any]] | None = None, method: str = DEFAULT_LUCK_METHOD) -> None:
    from .fileio import write_json_atomic
    from .luck import LUCK_VERSION
    obj = {"format": CACHE_FORMAT, "key": key, "decisions": {str(k): v for k, v in sorted(done.items())}}
    if luck:
        obj["luck"] = {"version": LUCK_VERSION, "method": method,
                       "events": {k: luck[k] for k in sorted(luck, key=int)}}
    write_json_atomic(path, obj, what="review cache", indent=None)


def review_game(record: Mapping[str, Any], limits: SearchLimits, *, seed: int = 0,
                config: SearchConfig | None = None, seats: list[int] | None = None, workers: int = 1,
                cache: str | os.PathLike | None = None, source: str | None = None,
                names: list[str] | None = None,
                progress: Callable[[int, int, DecisionReview | None], None] | None = None,
                luck: bool = True, luck_progress: Callable[[int, int], None] | None = None,
                luck_method: str = DEFAULT_LUCK_METHOD) -> Review:
    """Review every decision of ``record`` (of the ``seats`` given, default all).

    ``workers`` processes analyse decisions side by side (each with one search
    worker). ``cache``, if given, is read first (decisions already reviewed with the
    same game and settings are not searched again) and rewritten after every
    decision. ``progress(done, total, decision)`` is called as decisions finish.
    Ctrl-C (KeyboardInterrupt) stops the review; the returned :class:`Review` then
    has ``complete = False`` and holds what was finished. ``luck``: once every decision is reviewed,
    value every chance event's luck for each seat (:func:`_review_luck`, :mod:`kwsearch.luck`; one
    extra search per event, two with ``luck_method="sampled"``; ``luck_method`` one of
    :data:`kwsearch.luck.METHODS`, default :data:`kwsearch.luck.DEFAULT_METHOD`), ``luck_progress(done, total)`` called as events
    finish.
    """
    from .records import replay
    from .render import seat_names
    from .seeds import derive_seed
    from .worker_procs import check_workers, sigint_blocked
    check_workers(workers, ReviewError)
    from .luck import METHODS
    if luck_method not in METHODS:
        raise ReviewError(f"--luck-method: expected {' or '.join(METHODS)}, got {luck_method!r}")
    items = game_decisions(record, source)
    final = replay(record) if items else None
    n = record["players"]
    config = review_config(config, n)
    if seats is not None:
        bad = [s for s in seats if not 0 <= s < n]
        if bad:
            raise ReviewError(f"--seat: expected seats 0 to {n - 1}, got {bad[0]}")
    chosen = sorted(set(seats)) if seats is not None else list(range(n))
    todo = [(ply, st, a) for ply, (st, a) in enumerate(items) if st.current_player() in chosen]
    key = cache_key(record, limits, config, seed)
    cache_path = Path(cache) if cache is not None else None
    # every decision of the cache (other seats' too: the cache keeps them), and those of this review
    cached, ours, luck_obj = _load_cache(cache_path, key, items, n) if cache_path else ({}, False, {})
    # the luck kept in the cache: its events when valued by the same method (else valued again)
    cached_luck = dict(luck_obj["events"]) if luck_obj and luck_obj["method"] == luck_method else {}
    wanted = {p for p, _, _ in todo}
    done = {k: v for k, v in cached.items() if k in wanted}
    written: Path | None = cache_path if ours and cached else None
    complete = True
    count = len(done)
    pending = [(ply, st, a) for ply, st, a in todo if ply not in done]

    def finish(ply: int, d: dict[str, Any]) -> None:
        nonlocal count, written
        with sigint_blocked():  # a Ctrl-C comes after the write: the file holds what is reported done
            done[ply] = cached[ply] = d
            count += 1
            if cache_path is not None:
                _save_cache(cache_path, key, cached, cached_luck, luck_method)
                written = cache_path
        if progress is not None:
            progress(count, len(todo), DecisionReview.from_json(d))

    try:  # from the first report on, a Ctrl-C (or the page's Stop) ends the review with what is finished
        if progress is not None:
            progress(count, len(todo), None)
        if workers <= 1 or len(pending) <= 1:
            for ply, st, a in pending:
                d = review_decision(st, a, limits, derive_seed(seed, "review", ply), config, ply)
                if d is None:
                    raise KeyboardInterrupt
                finish(ply, asdict(d))
        else:
            _parallel(pending, limits, config, seed, workers, finish)
    except KeyboardInterrupt:
        complete = False

    def assemble() -> Review:
        decisions = [DecisionReview.from_json(done[p]) for p, _, _ in todo if p in done]
        used = config.for_players(n)
        settings = {"iterations": limits.iterations, "seconds": limits.seconds, "seed": seed,
                    "c_uct": used.c_uct, "money_weight": used.money_weight,
                    "closed_loop": used.closed_loop, "rollout": used.rollout, "cutoff": used.cutoff}
        out = Review(source, n, list(names) if names else seat_names([f"P{i + 1}" for i in range(n)]), settings,
                     decisions, len(todo), chosen, final.money() if final is not None and final.is_terminal()
                     else None, complete and len(decisions) == len(todo), cache_file=written)
        out.summary = summarise(out)
        return out

    review: Review | None = None
    try:
        # the page's Stop (a SIGINT to this thread: kwsearch.web.reviews) while it is put together is
        # taken once it is whole (a Ctrl-C to the process, taken by another thread, may come at once)
        with sigint_blocked():
            review = assemble()
        if luck and review.complete:
            review.luck = _review_luck(record, items, final, review, limits, config, seed, workers, cached_luck,
                                       lambda: _save_cache(cache_path, key, cached, cached_luck, luck_method)
                                       if cache_path is not None else None, luck_progress, luck_method)
    except KeyboardInterrupt:  # the decisions are returned; the luck is what was valued (docs/formats.md)
        if review is None:
            review = assemble()
        if luck and review.complete:
            review.complete = False
            review.luck = {"complete": False, "method": luck_method,
                           "events": [cached_luck[k] for k in sorted(cached_luck, key=int)]}
    if review.luck is not None and cache_path is not None and cached_luck:  # the luck was valued, or begun
        review.cache_file = cache_path
    return review


def _hidden(state) -> tuple:
    """What a move can reveal of the hidden part: the undrawn research cards and specialty tiles (their
    numbers) and the reshuffle generator's state."""
    return len(state.deck), state.rng, tuple(len(x) for x in state.spec_undrawn)


def follows_directly(items: Sequence[tuple[Any, int]], ply: int) -> bool:
    """The game's next decision after ``ply`` is the same seat's, in the same round, and the move played
    revealed nothing hidden (no card or tile drawn): its position is the position after the move played,
    seen by the same seat with nothing between (``items``: :func:`game_decisions`). The checker reads a
    ``played_next`` of a review made before 2026-11-27 by it."""
    if ply + 1 >= len(items):
        return False
    (before, _), (after, _) = items[ply], items[ply + 1]
    return (before.current_player() == after.current_player() and before.round == after.round
            and _hidden(before) == _hidden(after))


def _review_luck(record, items, final, review: Review, limits: SearchLimits, config: SearchConfig, seed: int,
                 workers: int, store: dict[str, dict[str, Any]], save: Callable[[], None],
                 progress: Callable[[int, int], None] | None, method: str) -> dict[str, Any]:
    """The hook of :mod:`kwsearch.luck`: every chance event's luck, equally deep as the decisions'
    re-searches (with the default method the move played's re-search is the value before an event)."""
    from .luck import review_luck
    from .worker_procs import sigint_blocked
    chunk = verify_iterations(limits.iterations) if limits.iterations else next(
        (d.verify_iterations for d in review.decisions if d.verify_iterations), MIN_VERIFY_CHUNK)

    def finish(ply: str, entry: dict[str, Any]) -> None:
        with sigint_blocked():
            store[ply] = entry
            save()

    events = review_luck(record, items, final, {d.ply: d for d in review.decisions}, config=config.for_players(
        review.players), seed=seed, chunk=chunk, chunks=VERIFY_CHUNKS, workers=workers,
        reuse=True, method=method, done=store, finish=finish, progress=progress)
    return {"complete": True, "method": method, "events": events}


def _parallel(pending, limits, config, seed, workers, finish) -> None:
    """The decisions ``pending`` in ``workers`` processes. The workers ignore Ctrl-C (the terminal sends
    it to them too) and end with this process, even when it is killed (:mod:`kwsearch.worker_procs`);
    on Ctrl-C or an error here they are stopped at once (the decisions under way are lost)."""
    from .seeds import derive_seed
    from .worker_procs import pool_worker_init, sigint_blocked, terminate_pool, wait_first
    jobs = [(st.to_json(), a, limits, config, derive_seed(seed, "review", ply), ply) for ply, st, a in pending]
    pool = ProcessPoolExecutor(max_workers=min(workers, len(jobs)), initializer=pool_worker_init,
                               initargs=(os.getpid(),))
    try:
        with sigint_blocked():  # the workers start (at the first submit) with Ctrl-C held back
            futures = {pool.submit(_job, j) for j in jobs}
        while futures:
            ready, futures = wait_first(futures)
            for f in ready:
                ply, d = f.result()
                if d is None:
                    raise KeyboardInterrupt
                finish(ply, d)
    except BaseException:
        terminate_pool(pool)
        raise
    pool.shutdown()


def summarise(review: Review) -> list[SeatSummary]:
    out = []
    for s in review.seats:
        ds = [d for d in review.decisions if d.seat == s]
        counts = {name: sum(1 for d in ds if d.cls == name) for name, _ in reversed(THRESHOLDS)}
        worst = sorted((d for d in ds if d.loss > 0), key=lambda d: (-d.loss, d.ply))[:3]
        out.append(SeatSummary(s, review.names[s], len(ds),
                               sum(d.loss for d in ds) / len(ds) if ds else 0.0,
                               sum(d.money_loss for d in ds) / len(ds) if ds else 0.0,
                               counts, [d.ply for d in worst]))
    return out


# ---------------------------------------------------------------------------
# Text
# ---------------------------------------------------------------------------


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"


def _plural(word: str, k: int) -> str:
    if k == 1:
        return word
    return word[:-1] + "ies" if word.endswith("y") else word + "s"


def review_text(review: Review) -> str:
    """The review as text, every line within the terminal's width (at most 100 columns; 100 when the
    output is not a terminal): narrower, the table drops its visits, money and best$ columns."""
    from .render import line_width, table, wrap_phrases
    width = line_width()
    names = review.names
    st = review.settings
    limit = (f"{st['iterations']:,} iterations" if st.get("iterations") else "") + \
        (" / " if st.get("iterations") and st.get("seconds") else "") + \
        (f"{st['seconds']:g} s" if st.get("seconds") else "")
    from .render import wrap
    out = wrap(f"Review of {review.source or 'the game'}: {review.players} players ({', '.join(names)})")
    out += wrap(f"  {limit} per decision, seed {st['seed']}; classes by the loss in win %: "
                + ", ".join(f"{name} {MARKS[name]} >= {100 * limit:g}" for name, limit in reversed(THRESHOLDS)))
    if st.get("cutoff"):
        out += wrap(f"  playouts cut off after {st['cutoff']} decisions: money and best$ are the money there, "
                    "not at the game's end")
    v = next((d for d in review.decisions if d.verified), None)
    if v is not None:
        out += wrap(f"  verified: the move played and the best each re-searched alone ({VERIFY_CHUNKS} x "
                    f"{v.verify_iterations:,} iterations, up to {VERIFY_CHUNKS * VERIFY_ROUNDS} x when a mark is in "
                    "doubt; where the options differ, every other one screened and those near the best verified "
                    "too); "
                    f"win% and loss ± their 95% intervals; a move is classed by its loss "
                    f"beyond the loss's interval, never when in the best's equal band (=, within "
                    f"{100 * EQUAL_MARGIN:g} points or not told apart); visits: the main search's (docs/review.md)")
    if not review.complete:
        out.append(f"  interrupted: {len(review.decisions)} of {review.total_decisions} decisions reviewed "
                   "(run again to continue)")
    out.append("")
    head = ("ply", "seat", "played", "best (if other)", "visits", "win%", "best%", "loss", "money", "best$", "")
    narrow = width < 100  # issue 31: fit 80 columns without the visits and money columns
    cols = [k for k, h in enumerate(head) if not (narrow and h in ("visits", "money", "best$"))]
    rows = []
    for d in review.decisions:
        win = f"{100 * d.played_win:.0f}" + (f"±{100 * d.played_win_half:.0f}" if d.verified else "")
        mark = d.mark or ("=" if d.verified and d.equal and d.played != d.best else "")
        # the loss with its 95% half-width, the interval its class is read beyond (none when the move is the best)
        loss = f"{100 * d.loss:.1f}" + (f"±{100 * d.loss_half:.1f}" if d.verified and d.played != d.best else "")
        row = (str(d.ply), _cut(names[d.seat], 9), _cut(d.played_label, 17 if narrow else 18),
               "" if d.played == d.best else _cut(d.best_label, 15 if narrow else 16), f"{d.played_visits:,}",
               win, f"{100 * d.best_win:.0f}", loss,
               f"{d.played_money:.1f}", f"{d.best_money:.1f}", mark)
        rows.append(tuple(row[k] for k in cols))
    out += table(tuple(head[k] for k in cols), rows,
                 left={i for i, k in enumerate(cols) if k in (1, 2, 3, 10)})
    out.append("")
    out.append("Summary (loss = drop in the deciding seat's win %, per decision)")
    for s in review.summary:
        counts = ", ".join(f"{v} {_plural(k, v)}" for k, v in s.counts.items())
        out += wrap(f"  {names[s.seat]} (seat {s.seat}): {s.decisions} decisions, mean loss "
                    f"{100 * s.mean_loss:.1f} %, mean money loss {s.mean_money_loss:.1f}; {counts}")
        by_ply = {d.ply: d for d in review.decisions}
        for p in s.worst:
            d = by_ply[p]
            out += wrap_phrases(f"    worst: ply {p} {d.played_label} (win {100 * d.played_win:.0f}%) instead of "
                                f"{d.best_label} ({100 * d.best_win:.0f}%) {d.mark}".rstrip(), width, " " * 8)
    if review.final_money is not None:
        out += wrap_phrases("  final money: " + ", ".join(f"{names[i]} {m}" for i, m in enumerate(review.final_money)),
                            width)
    from .luck import luck_text
    out += luck_text(review.figures, review.luck["events"] if review.luck else None, names, width)
    return "\n".join(line[:width] for line in out)


# ---------------------------------------------------------------------------
# HTML
# ---------------------------------------------------------------------------

_CSS = """
body{font-family:DejaVu Sans,Verdana,Arial,sans-serif;margin:16px;color:#222;background:#f7f7f5}
h1{font-size:20px;margin:0 0 4px} .sub{color:#555;font-size:13px;margin-bottom:10px}
#top{display:flex;gap:16px;align-items:flex-start;flex-wrap:wrap}
#graphbox{background:#fff;border:1px solid #ccc;border-radius:6px;padding:6px}
#graph .pt{cursor:pointer} #graph .pt:hover{stroke-width:3}
#move{background:#fff;border:1px solid #ccc;border-radius:6px;padding:8px 12px;flex:1 1 300px;min-width:280px;
 max-width:520px;font-size:14px;line-height:1.45}
#move .cls{font-weight:bold} .blunder{color:#b00020} .mistake{color:#d35400} .inaccuracy{color:#9a7d0a}
#board{margin-top:12px;background:#fff;border:1px solid #ccc;border-radius:6px;padding:4px}
#board svg{width:100%;height:auto;display:block}
#moves{max-height:420px;overflow-y:auto;position:relative;background:#fff;border:1px solid #ccc;border-radius:6px}
table{border-collapse:collapse;font-size:13px} td,th{padding:2px 8px;text-align:left}
#moves tr.row{cursor:pointer} #moves tr.row:hover{background:#eef} #moves tr.sel{background:#dde6ff}
.summary td,.summary th{border-bottom:1px solid #ddd} .num{text-align:right}
#nav button{font-size:14px;margin-right:6px}
"""

_JS = """
const D = JSON.parse(document.getElementById('data').textContent);
let cur = -1;
function pct(x){ return (100*x).toFixed(0) + '%'; }
function show(i){
  if(i < 0 || i >= D.decisions.length) return;
  cur = i;
  const d = D.decisions[i];
  document.getElementById('board').innerHTML = D.boards[i];
  const name = D.names[d.seat];
  let h = '<div><b>Ply ' + d.ply + '</b> · round ' + d.round + ' · <b>' + name + '</b> (seat ' + d.seat + ')</div>';
  const iv = (x) => (x === null || x === undefined) ? '' : ' ± ' + (100*x).toFixed(1);
  h += '<div>played: <b id="played">' + esc(d.played_label) + '</b> — win ' + pct(d.played_win) + iv(d.played_win_half) +
       ', money ' + d.played_money.toFixed(1) + ' <span style="color:#666">(' + d.played_visits.toLocaleString() +
       ' visits in the main search)</span></div>';
  if (d.best !== d.played) {
    h += '<div>best: <b>' + esc([d.best_label].concat(d.best_plan.slice(1)).join(', ')) + '</b> — win ' + pct(d.best_win) +
         iv(d.best_win_half) + ', money ' + d.best_money.toFixed(1) + '</div>';
    h += '<div>loss: ' + (100*d.loss).toFixed(1) + iv(d.loss_half) + ' points of win %, ' + d.money_loss.toFixed(1) + ' money';
    if (d.cls) h += ' — <span class="cls ' + d.cls + '">' + d.cls + ' ' + d.mark + '</span>';
    else if (d.equal) h += ' — in the best\\'s equal band: not marked';
    h += '</div>';
  } else {
    h += '<div>the search\\'s choice too' + (d.best_plan.length > 1 ? ' (plan: ' + esc(d.best_plan.join(', ')) + ')' : '') + '</div>';
  }
  const after = d.played_win_all || d.win_all;
  h += '<div style="color:#666;font-size:12px">' + d.iterations.toLocaleString() + ' iterations, ' +
       d.options + ' options' + (d.verify_chunks ? '; verified: ' + d.verify_chunks + ' x ' +
       d.verify_iterations.toLocaleString() + ' iterations alone per option, ± 95% intervals' : '') +
       (d.played_next !== null && d.played_next !== undefined ? '; the move played also valued by the next ' +
        'position (ply ' + d.played_next + ')' : '') +
       '; win % after the move: ' + D.names.map((n,k)=>n+' '+pct(after[k])).join(', ') + '</div>';
  h += placesLine(d);
  document.getElementById('move').innerHTML = h;
  document.querySelectorAll('#moves tr.row').forEach(r => r.classList.toggle('sel', +r.dataset.i === i));
  const row = document.querySelector('#moves tr.row[data-i="' + i + '"]');
  const box = document.getElementById('moves');
  if (row) box.scrollTop = row.offsetTop - box.clientHeight / 2;  // the list only, not the page
  const c = document.getElementById('cursor');
  const p = document.querySelector('#graph .pt[data-i="' + i + '"]');
  if (c && p) { c.setAttribute('x1', p.getAttribute('cx')); c.setAttribute('x2', p.getAttribute('cx')); }
}
function esc(s){ return String(s).replace(/[&<>"]/g, ch => ({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[ch])); }
document.querySelectorAll('#graph .pt').forEach(p => p.addEventListener('click', () => show(+p.dataset.i)));
document.querySelectorAll('#moves tr.row').forEach(r => r.addEventListener('click', () => show(+r.dataset.i)));
document.getElementById('prev').addEventListener('click', () => show(cur - 1));
document.getElementById('next').addEventListener('click', () => show(cur + 1));
document.addEventListener('keydown', e => { if (e.key === 'ArrowLeft') show(cur - 1); if (e.key === 'ArrowRight') show(cur + 1); });
show(0);
"""


def _graph_svg(review: Review) -> str:
    """Every seat's win probability over the reviewed decisions; one clickable point per decision."""
    from xml.sax.saxutils import escape
    from .svg import SEAT_COLOURS
    ds = review.decisions
    w, h, left, top, bottom = 900, 260, 44, 14, 30
    pw, ph = w - left - 12, h - top - bottom
    n = max(1, len(ds) - 1)

    def x(i: int) -> float:
        return left + pw * i / n

    def y(p: float) -> float:
        return top + ph * (1 - p)

    out = [f'<svg id="graph" xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
           f'viewBox="0 0 {w} {h}" font-size="11">']
    out.append(f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="#fff" stroke="#999"/>')
    for p in (0, 0.25, 0.5, 0.75, 1):
        out.append(f'<line x1="{left}" x2="{left + pw}" y1="{y(p):.1f}" y2="{y(p):.1f}" stroke="#e3e3e3"/>')
        out.append(f'<text x="{left - 4}" y="{y(p) + 4:.1f}" text-anchor="end" fill="#555">{100 * p:.0f}%</text>')
    last_round = None
    for i, d in enumerate(ds):
        if d.round != last_round:
            out.append(f'<line x1="{x(i):.1f}" x2="{x(i):.1f}" y1="{top}" y2="{top + ph}" stroke="#bbb" '
                       'stroke-dasharray="3 3"/>')
            out.append(f'<text x="{x(i) + 3:.1f}" y="{top + ph + 14}" fill="#555">round {d.round}</text>')
            last_round = d.round
    out.append(f'<line id="cursor" x1="{left}" x2="{left}" y1="{top}" y2="{top + ph}" stroke="#333" '
               'stroke-width="1.5"/>')
    for s in range(review.players):
        pts = " ".join(f"{x(i):.1f},{y(d.graph_win[s]):.1f}" for i, d in enumerate(ds))
        out.append(f'<polyline points="{pts}" fill="none" stroke="{SEAT_COLOURS[s]}" stroke-width="2"/>')
    size = {"blunder": 7, "mistake": 6, "inaccuracy": 5, None: 4}
    for i, d in enumerate(ds):
        ring = {"blunder": "#b00020", "mistake": "#d35400", "inaccuracy": "#c9a227"}.get(d.cls, "#fff")
        title = escape(f"ply {d.ply}: {review.names[d.seat]} {d.played} {d.mark}".strip())
        out.append(f'<circle class="pt" data-i="{i}" cx="{x(i):.1f}" cy="{y(d.graph_win[d.seat]):.1f}" '
                   f'r="{size[d.cls]}" fill="{SEAT_COLOURS[d.seat]}" stroke="{ring}" stroke-width="2">'
                   f'<title>{title}</title></circle>')
    from .luck import luck_svg
    out.append(luck_svg(review.luck["events"] if review.luck else None, [d.ply for d in ds], review.names, x, top, ph))
    lx = left + 6
    for s in range(review.players):
        out.append(f'<rect x="{lx}" y="{h - 12}" width="10" height="10" fill="{SEAT_COLOURS[s]}"/>')
        out.append(f'<text x="{lx + 14}" y="{h - 3}">{escape(review.names[s])}</text>')
        lx += 24 + 7 * len(review.names[s])
    out.append("</svg>")
    return "".join(out)


def _places_svg(review: Review) -> str:
    """Every seat's expected finishing place over the reviewed decisions, under the win-% graph and
    on its x scale (1st at the top); empty when no decision has its places."""
    from xml.sax.saxutils import escape
    from .svg import SEAT_COLOURS
    ds = review.decisions
    if not any(d.places for d in ds):
        return ""
    w, h, left, top, bottom = 900, 96, 44, 8, 8
    pw, ph = w - left - 12, h - top - bottom
    n = max(1, len(ds) - 1)
    last = max(2, review.players)

    def x(i: int) -> float:
        return left + pw * i / n

    def y(place: float) -> float:
        return top + ph * (place - 1) / (last - 1)

    out = [f'<svg id="places" xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
           f'viewBox="0 0 {w} {h}" font-size="11"><title>expected finishing place (main search)</title>']
    out.append(f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="#fff" stroke="#999"/>')
    out.append(f'<text x="{left + pw - 4}" y="{top + 12}" text-anchor="end" fill="#777">expected finishing place '
               '(main search, after the move played)</text>')
    for k in range(1, last + 1):
        out.append(f'<line x1="{left}" x2="{left + pw}" y1="{y(k):.1f}" y2="{y(k):.1f}" stroke="#e3e3e3"/>')
        out.append(f'<text x="{left - 4}" y="{y(k) + 4:.1f}" text-anchor="end" fill="#555">'
                   f'{ {1: "1st", 2: "2nd", 3: "3rd"}.get(k, f"{k}th")}</text>')
    for s in range(review.players):
        pts = " ".join(f"{x(i):.1f},{y(d.places['expected'][s]):.1f}" for i, d in enumerate(ds) if d.places)
        out.append(f'<polyline class="expected-place" data-seat="{s}" points="{pts}" fill="none" '
                   f'stroke="{SEAT_COLOURS[s]}" stroke-width="2"><title>{escape(review.names[s])}: expected place'
                   f'</title></polyline>')
    out.append("</svg>")
    return "".join(out)


#: The decision box's line of finishing places (the review page's script; kwsearch.outlook).
_PLACES_JS = """
function placesLine(d){
  if (!d.places) return '';
  const ord = (k) => ({1:'1st',2:'2nd',3:'3rd'})[k] || k + 'th';
  return '<div class="places" style="color:#444;font-size:12px">finishing places after ' + esc(d.places.move) +
    ' (main search, ' + d.places.samples.toLocaleString() + ' samples): ' +
    D.names.map((n,s) => esc(n) + ' ' + d.places.probabilities[s].map((p,k) => ord(k+1) + ' ' + pct(p)).join(' ') +
    ' (expected ' + d.places.expected[s].toFixed(2) + ')').join('; ') + '</div>';
}
"""


def review_html(review: Review, record: Mapping[str, Any]) -> str:
    """ONE self-contained HTML page (no network: inline CSS, JavaScript and SVG): the board at
    every reviewed decision, every seat's win-% graph (click a point to see that decision),
    the move list with marks and the summary."""
    from html import escape
    from .luck import luck_html
    from .svg import board_svg
    states = {ply: st for ply, (st, _) in enumerate(game_decisions(record, review.source))}
    boards = [board_svg(states[d.ply], seat_names=review.names, perspective=d.seat) for d in review.decisions]
    data = {"names": review.names, "decisions": [dict(asdict(d), mark=d.mark) for d in review.decisions],
            "boards": boards}
    blob = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    rows = []
    for i, d in enumerate(review.decisions):
        cls = f' class="{d.cls}"' if d.cls else ""
        rows.append(f'<tr class="row" data-i="{i}"><td class="num">{d.ply}</td><td>{escape(review.names[d.seat])}'
                    f'</td><td>{escape(d.played_label)} <b{cls}>{d.mark}</b></td>'
                    f'<td>{"" if d.best == d.played else escape(d.best_label)}</td>'
                    f'<td class="num">{d.played_visits:,}</td><td class="num">{100 * d.played_win:.0f}%'
                    f'{f" ±{100 * d.played_win_half:.0f}" if d.verified else ""}</td>'
                    f'<td class="num">{100 * d.loss:.1f}{f" ±{100 * d.loss_half:.1f}" if d.verified else ""}</td></tr>')
    summary = []
    for s in review.summary:
        worst = ", ".join(str(p) for p in s.worst) or "—"
        summary.append(f"<tr><td>{escape(s.name)}</td><td class='num'>{s.decisions}</td>"
                       f"<td class='num'>{100 * s.mean_loss:.1f}</td><td class='num'>{s.mean_money_loss:.1f}</td>"
                       + "".join(f"<td class='num'>{s.counts[k]}</td>" for k in ("inaccuracy", "mistake", "blunder"))
                       + f"<td>{worst}</td></tr>")
    st = review.settings
    limit = (f"{st['iterations']:,} iterations" if st.get("iterations") else f"{st['seconds']:g} s")
    final = (" · final money " + ", ".join(f"{escape(review.names[i])} {m}" for i, m in enumerate(review.final_money))
             if review.final_money else "")
    status = "" if review.complete else (f" · <b>incomplete</b>: {len(review.decisions)} of "
                                         f"{review.total_decisions} decisions")
    thresholds = ", ".join(f"{name} {MARKS[name]} ≥ {100 * lim:g}" for name, lim in reversed(THRESHOLDS))
    cut = (f" · playouts cut off after {int(st['cutoff'])} decisions: money is the money there, not at the "
           "game's end") if st.get("cutoff") else ""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>kwsearch review — {escape(str(review.source or 'game'))}</title>
<style>{_CSS}</style></head><body>
<h1>Game review: {escape(str(review.source or 'game'))}</h1>
<div class="sub">{review.players} players ({escape(', '.join(review.names))}) · {limit} per decision, seed {st['seed']}
 · classes by the loss in win % beyond its 95% interval (the move played and the best re-searched alone;
 never within the best's equal band): {thresholds}{cut}{final}{status}</div>
<div id="top">
 <div id="graphbox">{_graph_svg(review)}{_places_svg(review)}
  <div id="nav"><button id="prev">◀ previous</button><button id="next">next ▶</button>
   <span style="color:#666;font-size:12px">click a point or a move; ← → keys</span></div></div>
 <div id="move"></div>
</div>
<div id="board"></div>
<h2 style="font-size:16px">Moves</h2>
<div id="moves"><table><tr><th>ply</th><th>seat</th><th>played</th><th>best (if other)</th><th>visits</th>
<th>win ± 95%</th><th>loss ± 95%</th></tr>{''.join(rows)}</table></div>
<h2 style="font-size:16px">Summary</h2>
<table class="summary"><tr><th>seat</th><th>decisions</th><th>mean loss (win %)</th><th>mean money loss</th>
<th>inaccuracies</th><th>mistakes</th><th>blunders</th><th>worst plies</th></tr>{''.join(summary)}</table>
{luck_html(review.figures, review.luck['events'] if review.luck else None, review.names)}
<script id="data" type="application/json">{blob}</script>
<script>{_PLACES_JS}{_JS}</script>
</body></html>
"""
