"""Luck against skill, and accuracy: what a review says about each seat's game (issue 30; docs/luck.md).

A game of Kraftwagen is decided by the moves and by the chance events: the set-up deal, the research
cards turned up, the V6 specialty tiles drawn. A review (:mod:`kwsearch.review`) already values every
decision by verified, equally deep searches; this module adds, as GNU Backgammon does for dice:

* **luck** of a chance event for EACH seat: the seat's win % right after the event minus its expected
  win % over the events that could have happened. Both come from ONE search of the review's iterations
  per event, in chunks as deep as the review's re-searches (:data:`DRAWN_SPLIT`): the expectation is the
  mean of searches of the positions after outcomes picked with their probabilities by stratified
  sampling (:func:`stratified_outcomes`), the value after a search of the position after the real
  event, the same estimator, so the luck's mean over the possible outcomes is zero; the game's end is
  its exact result. ``method="reuse"`` (the former default) takes the value before from the review's
  re-search of the move that turned the cards up (``played_win_all``) instead: no search for it, but
  biased, as below the move the next seat cannot see what came up (docs/luck.md). ``method="sampled"``
  draws the outcomes independently, as many chunks before as after. The set-up deal has no decision
  before it: its expectation is a search over freshly drawn set-ups (one per chunk). A "win %" is a
  seat's share of first places over a search's iterations (ties split), exactly the review's win %;
  the searches steer by the settings' money weight, as the review's others
  (:func:`kwsearch.review.review_config`).
* **skill lost**: the sum of a seat's verified losses (the review's ``loss``).
* **accuracy**: lichess's accuracy of a game, from the verified losses (:func:`game_accuracy`).

An event that could have had one outcome only (every undrawn card of one kind) is *forced*: its luck is
zero for every seat and it costs no search. Every search's seed is
``derive_seed(seed, "luck", ply, part, chunk)``, so the luck is the same with any number of workers.
"""

from __future__ import annotations

import json
import math
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

#: The version of the luck's method, recorded with the luck kept in a review cache (another is searched again).
LUCK_VERSION = 1
#: Stop counting an event's possible outcomes beyond this many (its ``outcomes`` is then null).
MAX_OUTCOMES = 4096
#: The kinds of chance event.
KINDS = ("deal", "cards", "specialty", "cards+specialty")
#: How the value before an event is found (docs/luck.md). ``drawn`` (the default): one equally deep search
#: per event, its chunks split between outcomes drawn by stratified sampling with their probabilities
#: (:data:`DRAWN_SPLIT`) and the position after the event: unbiased, the luck's mean over the possible
#: outcomes is zero. ``reuse``: the review's re-search of the move that turned the cards up, with a full
#: search after the event (biased where the next seat's play depends on the cards). ``sampled``: as
#: ``drawn`` with independent draws and the decision's chunks both before and after (two searches).
METHODS = ("drawn", "reuse", "sampled")
#: The default method (``kwsearch review --luck-method``, the page's reviews).
DEFAULT_METHOD = "drawn"
#: ``drawn``: chunks for the value before (one drawn outcome each) and after the event. Together they are
#: one search of the review's iterations per decision (kwsearch.review.VERIFY_DIVISOR chunks of N/5):
#: more on the side before, whose chunks also carry the spread of the outcomes.
DRAWN_SPLIT = (3, 2)
#: lila's per-move accuracy curve (modules/analyse/src/main/AccuracyPercent.scala, fromWinPercents):
#: 103.1668100711649 * exp(-0.04354415386753951 * loss) - 3.166924740191411, + 1 "uncertainty bonus".
ACC_A, ACC_K, ACC_B, ACC_BONUS = 103.1668100711649, 0.04354415386753951, -3.166924740191411, 1.0


# ---------------------------------------------------------------------------
# Accuracy
# ---------------------------------------------------------------------------


def move_accuracy(loss_points: float) -> float:
    """lichess's accuracy (0..100) of a move that lost ``loss_points`` points of win % (0..100).

        >>> move_accuracy(0.0)
        100.0
        >>> round(move_accuracy(10.0), 1)
        64.6
    """
    if loss_points <= 0:
        return 100.0
    return min(100.0, max(0.0, ACC_A * math.exp(-ACC_K * loss_points) + ACC_B + ACC_BONUS))


def _pstdev(xs: Sequence[float]) -> float:
    m = sum(xs) / len(xs)
    return math.sqrt(sum((x - m) ** 2 for x in xs) / len(xs))


def game_accuracy(losses: Sequence[float], series: Sequence[float]) -> float | None:
    """A seat's accuracy of a game (0..100), lila's ``gameAccuracy``: the mean of the moves' accuracies
    weighted by the volatility of the win % around them, and their harmonic mean, averaged.

    ``losses``: the seat's win-% losses (points, 0..100) in game order; ``series``: its win % (points)
    before each of those moves and after the last (``len(losses) + 1`` values), whose standard deviation
    over a window of ``len(series) // 10`` (2 to 8) values is each move's weight (0.5 to 12), the first
    windows repeated as lila does. None without moves.

        >>> game_accuracy([0.0, 0.0], [50.0, 50.0, 50.0])
        100.0
    """
    if not losses:
        return None
    if len(series) != len(losses) + 1:
        raise ValueError("series: expected one value more than the moves")
    size = min(8, max(2, len(series) // 10))
    windows = [list(series[:size])] * max(0, min(size, len(series)) - 2) + \
        [list(series[i:i + size]) for i in range(0, len(series) - size + 1)]
    weights = [min(12.0, max(0.5, _pstdev(w))) for w in windows][:len(losses)]
    acc = [move_accuracy(x) for x in losses]
    weighted = sum(a * w for a, w in zip(acc, weights)) / sum(weights)
    harmonic = 0.0 if min(acc) <= 0 else len(acc) / sum(1.0 / a for a in acc)
    return (weighted + harmonic) / 2


def seat_accuracy(decisions: Sequence[Any]) -> tuple[float, float, float] | None:
    """A seat's accuracy of the game from its reviewed decisions (in game order), with its range: the
    accuracy with every loss at the low end of its 95% interval and at the high end. None without any."""
    if not decisions:
        return None
    series = [100 * d.best_win for d in decisions] + [100 * decisions[-1].played_win]
    half = [d.loss_half or 0.0 for d in decisions]
    mid = game_accuracy([100 * d.loss for d in decisions], series)
    high = game_accuracy([100 * max(0.0, d.loss - h) for d, h in zip(decisions, half)], series)
    low = game_accuracy([100 * min(1.0, d.loss + h) for d, h in zip(decisions, half)], series)
    return mid, low, high


# ---------------------------------------------------------------------------
# Chance events: what could have come up
# ---------------------------------------------------------------------------


class _Branch(Exception):
    """Raised by the enumerating hooks at the first draw beyond the prefix followed."""

    def __init__(self, choices: list[tuple[tuple, float]]):
        super().__init__()
        self.choices = choices


def _apply_with(state, action: int, prefix: Sequence[tuple]):
    """A copy of reference ``state`` after ``action`` with its draws taken from ``prefix``
    (("card", type) / ("special", stack, tile)); :class:`_Branch` at the first draw beyond it."""
    st = state.copy()
    used = [0]

    def take() -> tuple | None:
        if used[0] < len(prefix):
            used[0] += 1
            return prefix[used[0] - 1]
        return None

    def draw(s) -> int:
        got = take()
        if got is None:
            kinds = sorted(set(s.deck))
            raise _Branch([(("card", t), s.deck.count(t) / len(s.deck)) for t in kinds])
        t = got[1]
        del s.deck[len(s.deck) - 1 - s.deck[::-1].index(t)]
        return t

    def special(s, r: int) -> int:
        got = take()
        stack = s.spec_undrawn[r]
        if got is None:
            if not stack:
                return stack.pop()  # as the engine itself (an empty stack after its reshuffle)
            raise _Branch([(("special", r, t), 1 / len(stack)) for t in sorted(stack)])
        stack.remove(got[2])
        return got[2]

    return _hooked(st, action, draw, special)


def _hooked(st, action: int, draw, special):
    """``st`` (a copy, changed in place) after ``action``, its card draws and specialty tiles taken by
    ``draw(s)`` and ``special(s, stack)``, the hooks removed again whatever happens."""
    st.draw_hook, st.special_hook = draw, special
    try:
        st.apply(action)
    finally:
        st.draw_hook = st.special_hook = None
    return st


def _key(state) -> str:
    return json.dumps(state.observation(), sort_keys=True, separators=(",", ":"))


def _drawn_key(state) -> tuple:
    """What draws change, cheaply: the undrawn cards and tiles (as multisets) and the display."""
    return tuple(sorted(state.deck)), tuple(tuple(sorted(x)) for x in state.spec_undrawn), tuple(state.display)


@dataclass
class Outcome:
    """One way a chance event could have gone: what came up, its probability and the position after."""
    draws: tuple                # (("card", type) | ("special", stack, tile), ...) in the order drawn
    probability: float
    state: Any                  # the reference state after the decision and its draws


def chance_outcomes(state, action: int, cap: int = MAX_OUTCOMES) -> list[Outcome] | None:
    """Every way ``action`` in reference ``state`` could turn up research cards and specialty tiles: each
    different sequence of what comes up, with its probability (every order of the hidden deck and stacks
    equally likely, as the search assumes). ``[]`` when the move draws nothing; None when there are more
    than ``cap`` outcomes."""
    out: list[Outcome] = []
    todo: list[tuple[tuple, float]] = [((), 1.0)]
    while todo:
        prefix, p = todo.pop()
        try:
            st = _apply_with(state, action, prefix)
        except _Branch as b:
            todo.extend((prefix + (c,), p * q) for c, q in reversed(b.choices))
            continue
        out.append(Outcome(prefix, p, st))
        if len(out) > cap:
            return None
    if len(out) == 1 and not out[0].draws:
        return []
    return out


def actual_outcome(outcomes: Sequence[Outcome], after) -> Outcome:
    """The outcome that came up: the one whose position is ``after`` (the same observation)."""
    cheap = _drawn_key(after)
    k = _key(after)
    for o in outcomes:
        if _drawn_key(o.state) == cheap and _key(o.state) == k:
            return o
    raise ValueError("the position after the event is none of its outcomes")


def describe(game, draws: Sequence[tuple]) -> str:
    """What came up, as the record's reveal events name it ("gp5, special B2")."""
    cards = game.components.card_types
    tiles = game.components.specialty_tiles
    return ", ".join(cards[d[1]].name if d[0] == "card" else f"special {tiles[d[2]].name}" for d in draws)


def _kind(draws: Sequence[tuple]) -> str:
    c = any(d[0] == "card" for d in draws)
    s = any(d[0] == "special" for d in draws)
    return "cards+specialty" if c and s else "specialty" if s else "cards"


@dataclass
class EventPlan:
    """A chance event of a game and what its luck needs (found by :func:`find_events`)."""
    ply: int                    # the decision that turned it up; -1 for the set-up deal
    kind: str
    text: str                   # what came up ("" for the deal)
    outcomes: int | None        # how many different outcomes it could have had (None: too many to count)
    probability: float | None   # the probability of what came up
    forced: bool                # one possible outcome: no luck, no search
    round: int                  # the round of the position after it
    after: Any                  # the reference state right after it (the next decision's, or the game's end)
    choices: list[Outcome] | None = None  # every possible outcome (None: the deal, or too many to list)


def find_events(steps: Sequence[tuple[Any, int]], final) -> list[EventPlan]:
    """The chance events of a game: the set-up deal, then every decision of ``steps``
    (:func:`kwsearch.review.game_decisions`) that turned up cards or specialty tiles. ``final``: the
    state after the last decision."""
    if not steps:
        return []
    first = steps[0][0]
    out = [EventPlan(-1, "deal", "", None, None, False, first.round, first)]
    for ply, (st, action) in enumerate(steps):
        after = steps[ply + 1][0] if ply + 1 < len(steps) else final
        outs = chance_outcomes(st, action)
        if outs == []:
            continue
        if outs is None:  # too many to count: what came up is read off the position after it
            out.append(EventPlan(ply, "cards", _drawn(st, after), None, None, False, after.round, after))
            continue
        mine = actual_outcome(outs, after)
        out.append(EventPlan(ply, _kind(mine.draws), describe(st.game, mine.draws), len(outs), mine.probability,
                             len(outs) == 1, after.round, after, outs))
    return out


def _drawn(before, after) -> str:
    """The cards that left the undrawn deck (for an event with too many outcomes to list)."""
    left = list(before.deck)
    for t in after.deck:
        if t in left:
            left.remove(t)
    return ", ".join(before.game.components.card_types[t].name for t in sorted(left))


# ---------------------------------------------------------------------------
# The searches
# ---------------------------------------------------------------------------


def root_rows(state, config, chunk: int, seeds: Sequence[int], action: int = -1) -> list[list[float]]:
    """Every seat's win share at the root of a search of ``state`` (either engine) with ``config``
    (:func:`kwsearch.review.review_config`: the settings' money weight, as the review's other searches) of
    ``chunk`` iterations, one row per seed; with ``action >= 0`` that option alone (as the review's
    re-search of an option). The shares are the seats' shares of first places over the search's
    iterations (``Tree.accounting``), win shares whatever the money weight. A finished game's rows
    are its result."""
    from . import _search
    from .engine import convert, reference
    from .outlook import places
    from .search import search_params
    if state.is_terminal():  # no search: the game's result, exactly
        return [[float(x) for x in reference(state).returns()] for _ in seeds]
    fast = convert(state, "fast")
    n = fast.game.num_players
    params = search_params(config, n)
    rows = []
    for sd in seeds:
        tree = _search.Tree(config.max_nodes)
        tree.accounting = True
        _search.run_slice(tree, fast, params, chunk, 0.0, sd, action)
        pl = places(tree.card_stats(), n, action if action >= 0 else None)
        rows.append([x.p[0] for x in pl.seats] if pl is not None else [0.0] * n)
    return rows


def sample_outcome(state, action: int, seed: int):
    """Reference ``state`` after ``action`` with the cards and tiles it turns up drawn at random from
    ``seed`` (every undrawn card and tile equally likely at each draw, as the search assumes)."""
    import random
    rng = random.Random(seed)
    st = state.copy()

    def draw(s) -> int:
        return s.deck.pop(rng.randrange(len(s.deck)))

    def special(s, r: int) -> int:
        stack = s.spec_undrawn[r]
        return stack.pop(rng.randrange(len(stack))) if stack else stack.pop()

    return _hooked(st, action, draw, special)


def stratified_outcomes(state, action: int, m: int, seed: int, outcomes: Sequence[Outcome] | None = None) -> list:
    """``m`` reference states after ``action`` in ``state``, its draws picked with their probabilities by
    systematic sampling: the outcomes in :func:`chance_outcomes`' order (by what comes up, so outcomes
    alike lie together), the points ``(u + j) / m`` of their cumulative probability for one uniform ``u``
    from ``seed``. Each pick on its own is an outcome drawn with its probability, so the mean of values
    over the picks is an unbiased estimate of their expectation, and no less precise than independent
    draws when alike outcomes have alike values. With more outcomes than :data:`MAX_OUTCOMES`, ``m``
    independent draws (:func:`sample_outcome`). ``outcomes``: those of :func:`chance_outcomes`, when
    already listed."""
    import random
    from .seeds import derive_seed
    outs = list(outcomes) if outcomes else chance_outcomes(state, action)
    if outs is None:
        return [sample_outcome(state, action, derive_seed(seed, "draw", j)) for j in range(m)]
    u = random.Random(seed).random()
    picks, cum, i = [], 0.0, 0
    for j in range(m):
        point = (u + j) / m
        while i < len(outs) - 1 and cum + outs[i].probability <= point:
            cum += outs[i].probability
            i += 1
        picks.append(outs[i].state.copy())
    return picks


def _job(args) -> tuple[int, list | None, list | None]:
    """One event's searches (a worker process or this one): the rows before (None: given) and after
    (None: the game's end). ``before_obj``: the reference state before the event (``drawn``: the states
    after the outcomes picked), ``after_obj`` the one after it; ``k``: the chunks before and after."""
    ply, before_obj, action, after_obj, deal_record, chunk, k, config, seed, method = args
    from .seeds import derive_seed
    kb, ka = k
    before = after = None
    if deal_record is not None:  # the deal: one freshly drawn set-up per chunk
        from .records import replay
        game = replay(deal_record, upto=0).game
        before = [root_rows(game.new_initial_state(derive_seed(seed, "luck", ply, "deal", j), engine="fast"),
                             config, chunk, [derive_seed(seed, "luck", ply, "before", j)])[0] for j in range(kb)]
    elif before_obj is not None and method in ("sampled", "drawn"):  # one outcome drawn per chunk, searched after it
        if method == "drawn":  # the reference states after the outcomes picked (by review_luck, from the event's list)
            states = before_obj
        else:
            states = [sample_outcome(before_obj, action, derive_seed(seed, "luck", ply, "sample", j)) for j in range(kb)]
        before = [root_rows(st, config, chunk, [derive_seed(seed, "luck", ply, "before", j)])[0]
                  for j, st in enumerate(states)]
    elif before_obj is not None:  # the move that turned the cards up, re-searched alone
        before = root_rows(before_obj, config, chunk, [derive_seed(seed, "luck", ply, "before", j) for j in range(kb)],
                            action)
    if after_obj is not None:
        after = root_rows(after_obj, config, chunk, [derive_seed(seed, "luck", ply, "after", j) for j in range(ka)])
    return ply, before, after


def _mean_se(rows: Sequence[Sequence[float]], s: int) -> tuple[float, float]:
    xs = [r[s] for r in rows]
    m = sum(xs) / len(xs)
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1)) if len(xs) > 1 else 0.0
    return m, sd / math.sqrt(len(xs))


def welch_half(se_a: float, df_a: int | None, se_b: float, df_b: int) -> float:
    """The 95% half-width of a difference of two means with standard errors ``se_a`` (``df_a`` None: an
    exact value) and ``se_b``: Welch's t with the Welch–Satterthwaite degrees of freedom (rounded down),
    at most 1 (100 points of win %: a luck so uncertain says nothing, as a tiny review's may)."""
    from .confidence import t975
    va, vb = se_a * se_a, se_b * se_b
    if va + vb == 0.0:
        return 0.0
    den = (va * va / df_a if df_a else 0.0) + vb * vb / df_b
    df = max(1, math.floor((va + vb) ** 2 / den)) if den > 0 else 1000
    return min(1.0, t975(df) * math.sqrt(va + vb))


def event_entry(plan: EventPlan, n: int, chunk: int, k: int, before_rows, after_rows,
                reused: tuple[list[float], float | None] | None, mover: int | None,
                drawn: int | None = None) -> dict[str, Any]:
    """The ``kwsearch-review/1`` entry of an event (docs/formats.md, ``luck.events``).

    ``before_rows``/``after_rows``: the searches' rows per chunk (``after_rows`` None: the game's end,
    exact); ``reused``: the before value taken from the review's re-search of the move played, every
    seat's win share and the standard error of the mover's (``mover``), instead of ``before_rows``.
    ``drawn``: the ``drawn`` method's chunks before the event (``k`` those after), the interval then
    Welch's (:func:`welch_half`)."""
    from .confidence import t975
    base = {"ply": plan.ply, "round": plan.round, "kind": plan.kind, "text": plan.text,
            "outcomes": plan.outcomes, "probability": plan.probability, "forced": plan.forced,
            "chunks": k, "iterations": chunk}
    if drawn is not None:
        base["drawn"] = drawn
    if plan.forced:
        before = list(reused[0]) if reused is not None else None
        return {**base, "before": before, "after": before, "luck": [0.0] * n, "luck_half": [0.0] * n}
    t = t975(k - 1)
    if after_rows is None:
        after, se_a = [float(x) for x in plan.after.returns()], [0.0] * n
    else:
        after, se_a = map(list, zip(*(_mean_se(after_rows, s) for s in range(n))))
    if reused is not None:
        before = list(reused[0])
        # the re-search's spread is known for the mover (its ± ; in 2 players the other seat's is the same);
        # the other seats' is taken as the equally deep search after the event's
        se_m = reused[1] or 0.0
        se_b = [se_m if s == mover or n == 2 else se_a[s] for s in range(n)]
    else:
        before, se_b = map(list, zip(*(_mean_se(before_rows, s) for s in range(n))))
    luck = [a - b for a, b in zip(after, before)]
    if drawn is not None:
        df_a = None if after_rows is None else len(after_rows) - 1
        half = [welch_half(a, df_a, b, drawn - 1) for a, b in zip(se_a, se_b)]
    else:
        half = [t * math.sqrt(a * a + b * b) for a, b in zip(se_a, se_b)]
    return {**base, "before": [float(x) for x in before], "after": [float(x) for x in after],
            "luck": luck, "luck_half": half}


def review_luck(record: Mapping[str, Any], steps: Sequence[tuple[Any, int]], final, decisions: Mapping[int, Any],
                *, config, seed: int, chunk: int, chunks: int, workers: int = 1, reuse: bool = True,
                method: str = DEFAULT_METHOD,
                done: dict[str, dict[str, Any]] | None = None,
                finish: Callable[[str, dict[str, Any]], None] | None = None,
                progress: Callable[[int, int], None] | None = None) -> list[dict[str, Any]]:
    """Every chance event of the game with its luck for each seat (:func:`event_entry`), in game order.

    ``decisions``: the review's decisions by ply (their re-search of the move played is the value before
    an event when ``reuse``, ``method`` is ``"reuse"`` and it is verified; its chunk length, and for
    ``reuse`` and ``sampled`` its number of chunks, set the event's; else ``chunk`` x ``chunks``).
    ``method`` (:data:`METHODS`): ``"drawn"`` values the position before an event by
    ``DRAWN_SPLIT[0]`` outcomes picked by stratified sampling (:func:`stratified_outcomes`), one chunk
    each, and the position after by ``DRAWN_SPLIT[1]`` chunks; ``"sampled"`` by independent draws, as
    many as the decision's chunks. ``done``: entries already computed (a cache), by ply as text;
    ``finish(ply, entry)`` is called as each is computed. ``workers`` processes search events side by side. Ctrl-C
    (KeyboardInterrupt) propagates after the entries finished so far were passed to ``finish``.
    """
    from .confidence import t975
    from .seeds import derive_seed
    from .worker_procs import pool_worker_init, sigint_blocked, terminate_pool, wait_first
    n = record["players"]
    plans = find_events(steps, final)
    done = dict(done or {})
    jobs, meta = [], {}
    for plan in plans:
        if str(plan.ply) in done:
            continue
        d = decisions.get(plan.ply) if plan.ply >= 0 else None
        verified = reuse and d is not None and getattr(d, "played_win_all", None) is not None
        use = verified and method == "reuse"
        k, c = (d.verify_chunks, d.verify_iterations) if verified else (chunks, chunk)
        # drawn: one search of the review's iterations per event, split before / after (DRAWN_SPLIT)
        kb, k = DRAWN_SPLIT if method == "drawn" else (k, k)
        # the re-search's standard error for the mover: its chunks' pooled spread (a review since issue 29's
        # rounds), else its interval's half-width over t
        se = (d.verify_sd / math.sqrt(k) if getattr(d, "verify_sd", None) is not None
              else (d.played_win_half or 0.0) / t975(k - 1)) if use else None
        reused = (list(d.played_win_all), se) if use else None
        mover = steps[plan.ply][0].current_player() if plan.ply >= 0 else None
        meta[plan.ply] = (plan, c, k, reused, mover, kb if method == "drawn" else None)
        if plan.forced:
            continue
        before_obj = None if use or plan.ply < 0 else steps[plan.ply][0]
        action = steps[plan.ply][1] if plan.ply >= 0 else -1
        if method == "drawn" and plan.ply >= 0:
            before_obj = stratified_outcomes(steps[plan.ply][0], action, kb,
                                             derive_seed(seed, "luck", plan.ply, "strata"), plan.choices)
        after_obj = None if plan.after.is_terminal() else plan.after
        jobs.append((plan.ply, before_obj, action, after_obj, dict(record) if plan.ply < 0 else None, c, (kb, k),
                     config, seed, method))
    total = len(plans)
    count = total - len(meta)

    def store(ply: int, before, after) -> None:
        nonlocal count
        plan, c, k, reused, mover, drawn = meta[ply]
        entry = event_entry(plan, n, c, k, before, after, reused, mover, drawn)
        done[str(ply)] = entry
        count += 1
        if finish is not None:
            finish(str(ply), entry)
        if progress is not None:
            progress(count, total)

    if progress is not None:
        progress(count, total)
    for ply, m in meta.items():
        if m[0].forced:
            store(ply, None, None)
    if workers <= 1 or len(jobs) <= 1:
        for j in jobs:
            store(*_job(j))
    else:
        pool = ProcessPoolExecutor(max_workers=min(workers, len(jobs)), initializer=pool_worker_init,
                                   initargs=(os.getpid(),))
        try:
            with sigint_blocked():  # the workers start with Ctrl-C held back (kwsearch.worker_procs)
                futures = {pool.submit(_job, j) for j in jobs}
            while futures:
                ready, futures = wait_first(futures)
                for f in sorted(ready, key=lambda f: f.result()[0]):
                    store(*f.result())
        except BaseException:
            terminate_pool(pool)
            raise
        pool.shutdown()
    return [done[str(p.ply)] for p in plans if str(p.ply) in done]


# ---------------------------------------------------------------------------
# Per seat: skill lost, luck, accuracy
# ---------------------------------------------------------------------------


def seat_figures(players: int, names: Sequence[str], seats: Sequence[int], decisions: Sequence[Any],
                 events: Sequence[Mapping[str, Any]] | None) -> list[dict[str, Any]]:
    """Every seat's figures of the game (``figures`` of ``kwsearch-review/1``): for the seats reviewed the
    skill lost (sum of verified losses, 0..1 each) and the accuracy (0..100) with their ranges; for every
    seat its luck (sum over the chance events) when ``events`` is given."""
    out = []
    for s in range(players):
        ds = [d for d in decisions if d.seat == s]
        row: dict[str, Any] = {"seat": s, "name": names[s], "moves": len(ds), "skill_lost": None,
                               "skill_lost_half": None, "accuracy": None, "accuracy_low": None,
                               "accuracy_high": None, "luck": None, "luck_half": None, "luck_events": 0}
        if s in seats and ds:
            row["skill_lost"] = sum(d.loss for d in ds)
            row["skill_lost_half"] = math.sqrt(sum((d.loss_half or 0.0) ** 2 for d in ds))
            row["accuracy"], row["accuracy_low"], row["accuracy_high"] = seat_accuracy(ds)
        if events is not None:
            row["luck"] = sum(e["luck"][s] for e in events)
            row["luck_half"] = math.sqrt(sum(e["luck_half"][s] ** 2 for e in events))
            row["luck_events"] = len(events)
        out.append(row)
    return out


def _pts(x: float) -> str:
    return f"{100 * x:.0f}"


def signed(x: float) -> str:
    """Points of win % with a sign ("+3", "-12"; "0" when it rounds to nothing)."""
    r = round(100 * x)
    return "0" if r == 0 else f"{r:+d}"


def figures_line(row: Mapping[str, Any]) -> str:
    """The one line of a seat's figures: "Ann lost 18 ± 4 points to her decisions and gained 25 ± 9 from
    the cards; accuracy 84% (78-91)" (points of win %)."""
    name = row["name"]
    parts = []
    if row["skill_lost"] is not None:
        parts.append(f"{name} lost {_pts(row['skill_lost'])} ± {_pts(row['skill_lost_half'])} points of win % "
                     f"to their decisions")
    if row["luck"] is not None:
        verb = "gained" if row["luck"] >= 0 else "lost"
        what = (f"{verb} {_pts(abs(row['luck']))} ± {_pts(row['luck_half'])} from the cards "
                f"({row['luck_events']} chance events)")
        parts.append(what if parts else f"{name} {what}")
    line = " and ".join(parts) if parts else f"{name}: no decision reviewed"
    if row["accuracy"] is not None:
        line += (f"; accuracy {row['accuracy']:.0f}% ({row['accuracy_low']:.0f}–{row['accuracy_high']:.0f})")
    return line


def luck_text(figures: Sequence[Mapping[str, Any]], events: Sequence[Mapping[str, Any]] | None,
              names: Sequence[str], width: int) -> list[str]:
    """The review text's lines on luck and accuracy: the chance events' table, then a line per seat."""
    from .render import table, wrap_phrases
    out: list[str] = []
    if events:
        out.append("")
        out += wrap_phrases("Luck (each seat's win % right after the chance event minus its expected win % over "
                            "what could have come up; ± 95%; docs/luck.md)", width, "  ")
        narrow = width < 100
        head = ("ply", "came up", "outcomes") + tuple(n[:8] for n in names)
        rows = []
        for e in events:
            what = "set-up deal" if e["kind"] == "deal" else e["text"]
            if e["forced"]:
                what += " (forced)"
            cut = 26 if narrow or len(names) > 3 else 40
            what = what if len(what) <= cut else what[:cut - 1] + "…"
            p = "many" if e["outcomes"] is None else str(e["outcomes"])
            rows.append(("deal" if e["ply"] < 0 else str(e["ply"]), what, p)
                        + tuple(f"{signed(x)}±{100 * h:.0f}" for x, h in zip(e["luck"], e["luck_half"])))
        out += table(head, rows, left={1})
    out.append("")
    out.append("Luck against skill (points of win %), accuracy (lichess's formula; docs/luck.md)")
    for row in figures:
        out += wrap_phrases("  " + figures_line(row), width, "    ")
    return out


# ---------------------------------------------------------------------------
# Checking the review file's and the cache's luck
# ---------------------------------------------------------------------------

EVENT_KEYS = ("ply", "round", "kind", "text", "outcomes", "probability", "forced", "chunks", "iterations",
              "before", "after", "luck", "luck_half")
FIGURE_KEYS = ("seat", "name", "moves", "skill_lost", "skill_lost_half", "accuracy", "accuracy_low",
               "accuracy_high", "luck", "luck_half", "luck_events")
_TOL = 1e-9


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-7 * max(1.0, abs(a), abs(b))


def check_event(ck, e: Any, where: str, n: int, last_ply: int) -> dict[str, Any]:
    """One chance event's entry (``ck``: the review's checker, raising one line naming the field)."""
    ck.obj(e, where, EVENT_KEYS, ("drawn",), what="a chance event (an object)")
    ply = ck.integer(e["ply"], f"{where}.ply", -1, last_ply, f"a ply from -1 (the deal) to {last_ply}")
    ck.integer(e["round"], f"{where}.round", 1, 1000)
    if e["kind"] not in KINDS or (e["kind"] == "deal") != (ply == -1):
        ck.fail(f"{where}.kind", "\"deal\" at ply -1, else one of " + ", ".join(KINDS[1:]), e["kind"])
    ck.text(e["text"], f"{where}.text", empty=True)
    if e["outcomes"] is not None:
        ck.integer(e["outcomes"], f"{where}.outcomes", 1, MAX_OUTCOMES, f"null or 1 to {MAX_OUTCOMES} outcomes")
    if e["probability"] is not None:
        ck.number(e["probability"], f"{where}.probability", 0.0, 1.0, "null or a probability from 0 to 1")
    forced = ck.flag(e["forced"], f"{where}.forced")
    if forced != (e["outcomes"] == 1):
        ck.fail(f"{where}.forced", f"{_show_bool(e['outcomes'] == 1)} (forced: exactly one possible outcome)",
                forced)
    ck.integer(e["chunks"], f"{where}.chunks", 1, 1000)
    if "drawn" in e:
        ck.integer(e["drawn"], f"{where}.drawn", 2, 1000, "2 to 1000 outcomes drawn for the value before")
    ck.integer(e["iterations"], f"{where}.iterations", 1, 2**63 - 1)
    vals = {}
    for k in ("before", "after"):
        v = e[k]
        if v is None and forced:
            vals[k] = None
            continue
        ck.items(v, f"{where}.{k}", n, n, f"{n} win probabilities (one per seat)" + (" or null" if forced else ""))
        vals[k] = [ck.prob(x, f"{where}.{k}[{i}]") for i, x in enumerate(v)]
    luck = ck.items(e["luck"], f"{where}.luck", n, n, f"{n} numbers from -1 to 1 (one per seat)")
    half = ck.items(e["luck_half"], f"{where}.luck_half", n, n, f"{n} numbers from 0 to 1 (one per seat)")
    for i in range(n):
        x = ck.number(luck[i], f"{where}.luck[{i}]", -1.0, 1.0)
        ck.number(half[i], f"{where}.luck_half[{i}]", 0.0, 1.0)
        want = 0.0 if forced else vals["after"][i] - vals["before"][i]
        if not _close(x, want):
            ck.fail(f"{where}.luck[{i}]", f"after - before = {want:.6g}" + (" (a forced event)" if forced else ""), x)
        if forced and half[i] != 0:
            ck.fail(f"{where}.luck_half[{i}]", "0 (a forced event)", half[i])
    return e


def _show_bool(b: bool) -> str:
    return "true" if b else "false"


def check_luck(ck, obj: Any, n: int, last_ply: int) -> dict[str, Any] | None:
    """The ``luck`` object of a review: null, or ``{"complete", "events"}`` with events unique, in order."""
    if obj is None:
        return None
    ck.obj(obj, "luck", ("complete", "method", "events"), what="null or an object with complete, method and events")
    ck.flag(obj["complete"], "luck.complete")
    if obj["method"] not in METHODS:
        ck.fail("luck.method", " or ".join(f'"{m}"' for m in METHODS), obj["method"])
    events = ck.items(obj["events"], "luck.events", 0, last_ply + 2, "a list of chance events")
    prev = None
    for i, e in enumerate(events):
        check_event(ck, e, f"luck.events[{i}]", n, last_ply)
        if prev is not None and e["ply"] <= prev:
            ck.fail(f"luck.events[{i}].ply", f"the events in game order, each once (after ply {prev})", e["ply"])
        prev = e["ply"]
    return obj


def check_figures(ck, figs: Any, n: int, names: Sequence[str], seats: Sequence[int], decisions: Sequence[Any],
                  luck: Mapping[str, Any] | None) -> None:
    """The ``figures`` of a review: one row per seat, each figure that of the decisions and events listed."""
    ck.items(figs, "figures", n, n, f"{n} rows of figures (one per seat)")
    want = seat_figures(n, names, seats, decisions, luck["events"] if luck is not None else None)
    for i, (row, w) in enumerate(zip(figs, want)):
        where = f"figures[{i}]"
        ck.obj(row, where, FIGURE_KEYS)
        for k in FIGURE_KEYS:
            got, exp = row[k], w[k]
            if exp is None or isinstance(exp, str):
                ok = got == exp
            elif isinstance(exp, int) and not isinstance(exp, bool):
                ok = isinstance(got, int) and not isinstance(got, bool) and got == exp
            else:
                ok = isinstance(got, (int, float)) and not isinstance(got, bool) and math.isfinite(got) \
                    and _close(float(got), exp)
            if not ok:
                ck.fail(f"{where}.{k}", f"{json.dumps(exp) if not isinstance(exp, float) else f'{exp:.6g}'} "
                        "(from the decisions and chance events listed)", got)


def check_cache_luck(ck, obj: Any, n: int | None, hint: str = "") -> dict[str, dict[str, Any]] | None:
    """The ``luck`` of a review cache: ``{"version", "method", "events": {ply: entry}}``; the entries when of
    this :data:`LUCK_VERSION` (None for another version: searched again)."""
    ck.obj(obj, "luck", ("version", "method", "events"), what="an object with version, method and events")
    v = ck.integer(obj["version"], "luck.version", 1, 1000)
    if obj["method"] not in METHODS:
        ck.fail("luck.method", " or ".join(f'"{m}"' for m in METHODS), obj["method"])
    ev = obj["events"]
    if not isinstance(ev, dict):
        ck.fail("luck.events", "an object of chance events by ply", ev)
    if v != LUCK_VERSION:
        return None
    for name, e in ev.items():
        if not (isinstance(name, str) and (name == "-1" or (name.isascii() and name.isdigit()
                                                              and str(int(name)) == name))):
            ck.fail("luck.events", "plies as the keys (-1, 0, 1, ...)", name)
        if n is None:
            n = len(e.get("luck", [])) if isinstance(e, dict) and isinstance(e.get("luck"), list) else 2
        check_event(ck, e, f"luck.events.{name}", n, 2**31 - 1)
        if e["ply"] != int(name):
            ck.fail(f"luck.events.{name}.ply", f"{name} (the ply it is filed under)", e["ply"])
    return dict(ev)


# ---------------------------------------------------------------------------
# The HTML report's part
# ---------------------------------------------------------------------------


def event_x(event_ply: int, plies: Sequence[int], x: Callable[[int], float]) -> float:
    """Where a chance event goes on a graph of the decisions ``plies`` (their x by index ``x``): between the
    decision that turned it up and the next one drawn (at the left edge for the deal)."""
    nxt = next((i for i, p in enumerate(plies) if p > event_ply), None)
    if nxt is None:
        return x(max(0, len(plies) - 1))
    if nxt == 0:
        return x(0)
    return (x(nxt - 1) + x(nxt)) / 2


def event_title(e: Mapping[str, Any], names: Sequence[str]) -> str:
    """A chance event in one line: what came up and each seat's luck (points of win %)."""
    what = "the set-up deal" if e["kind"] == "deal" else f"after ply {e['ply']}: {e['text']}"
    if e["forced"]:
        return f"{what} (forced: the only possible outcome, no luck)"
    return what + " — luck " + ", ".join(f"{nm} {signed(x)} ± {100 * h:.0f}"
                                         for nm, x, h in zip(names, e["luck"], e["luck_half"]))


def luck_svg(events: Sequence[Mapping[str, Any]] | None, plies: Sequence[int], names: Sequence[str],
             x: Callable[[int], float], top: float, height: float) -> str:
    """The graph's marks of the chance events: a dashed line and a diamond at the top, its title the luck."""
    from xml.sax.saxutils import escape
    out = []
    for e in events or ():
        cx = event_x(e["ply"], plies, x)
        big = max(abs(v) for v in e["luck"])
        r = 3 if e["forced"] else 4 + min(6.0, 40 * big)
        out.append(f'<g class="luck" data-ply="{e["ply"]}"><title>{escape(event_title(e, names))}</title>'
                   f'<line x1="{cx:.1f}" x2="{cx:.1f}" y1="{top}" y2="{top + height}" stroke="#7b3fb5" '
                   f'stroke-opacity="0.35" stroke-dasharray="2 4"/>'
                   f'<path d="M{cx:.1f},{top - r + 6:.1f} l{r:.1f},{r:.1f} l{-r:.1f},{r:.1f} l{-r:.1f},{-r:.1f} z" '
                   f'fill="#7b3fb5" stroke="#fff"/></g>')
    return "".join(out)


def luck_html(figures: Sequence[Mapping[str, Any]], events: Sequence[Mapping[str, Any]] | None,
              names: Sequence[str]) -> str:
    """The report's section "Luck against skill": a line and a row per seat, the chance events' table."""
    from html import escape

    def pts(v, h=None) -> str:
        return "—" if v is None else signed(v) + ("" if h is None else f" ± {100 * h:.0f}")

    def skill(f) -> str:
        if f["skill_lost"] is None:
            return "—"
        return f"{100 * f['skill_lost']:.0f} ± {100 * f['skill_lost_half']:.0f}"

    def acc(f) -> str:
        if f["accuracy"] is None:
            return "—"
        return f"{f['accuracy']:.0f}% ({f['accuracy_low']:.0f}–{f['accuracy_high']:.0f})"

    rows = "".join(
        f"<tr><td>{escape(f['name'])}</td><td class='num'>{f['moves']}</td><td class='num'>{skill(f)}</td>"
        f"<td class='num'>{pts(f['luck'], f['luck_half'])}</td><td class='num'>{acc(f)}</td></tr>"
        for f in figures)
    lines = "".join(f"<li>{escape(figures_line(f))}</li>" for f in figures)
    out = (f'<h2 style="font-size:16px">Luck against skill</h2><ul id="luckline">{lines}</ul>'
           f'<table class="summary" id="figures"><tr><th>seat</th><th>decisions</th><th>skill lost (points)</th>'
           f'<th>luck (points)</th><th>accuracy</th></tr>{rows}</table>')
    if events:
        ev = "".join(
            f"<tr class='luckrow' data-ply='{e['ply']}'><td class='num'>{'deal' if e['ply'] < 0 else e['ply']}</td>"
            f"<td>{escape('set-up deal' if e['kind'] == 'deal' else e['text'])}{' (forced)' if e['forced'] else ''}</td>"
            f"<td class='num'>{'many' if e['outcomes'] is None else e['outcomes']}</td>"
            + "".join(f"<td class='num'>{pts(v, h)}</td>" for v, h in zip(e["luck"], e["luck_half"])) + "</tr>"
            for e in events)
        out += ('<h3 style="font-size:14px">Chance events (◆ on the graph)</h3><table class="summary" id="luck">'
                '<tr><th>ply</th><th>came up</th><th>outcomes</th>'
                + "".join(f"<th>{escape(n)}</th>" for n in names) + f"</tr>{ev}</table>")
    out += ('<div class="sub">Skill lost: the sum of the verified losses; luck: the sum over the chance events of '
            'the win % right after each minus the expected win % before it (the mean over what could have come '
            'up); accuracy: lichess\'s formula on the verified losses, with its range from the losses\' 95% '
            'intervals (docs/luck.md).</div>')
    return out
