"""How sure a hint is: a 95% interval per option, the options equal to the best, search until clear.

Method (docs/confidence.md gives the reasons and the measurements)
------------------------------------------------------------------
After the main search, the options a hint shows (its *candidates*, by default the top five) are
**re-searched on their own**: each one in ``CHUNKS`` independent searches ("chunks") of ``n``
iterations that all take that option at the root (the forced root option of
``kwsearch._search.run_slice``; the tree below it is the search's usual one). Chunk ``j`` of option
``a`` in round ``r`` has the seed ``derive_seed(seed, "verify", r, a, j)``, so a hint depends on the
search's seed only, never on the number of workers (the chunks run in the calling process).

A chunk is one independent sample of "the value of this option searched alone for ``n``
iterations": the chunks of an option are independent and identically distributed, so their spread
is an honest measure of the search's own noise -- correlated playouts, the shared subtree below the
option and the line the tree settles into are all inside one chunk. Per option:

* ``value``: the mean over the chunks of the mover's mean win share (money: the mean final money,
  or the money at the cut-off with a playout cut-off);
* ``se``: their standard deviation over ``sqrt(k)``; the *precision* half-width is
  ``t(0.975, k - 1) * se`` (Student t);
* ``drift``: how much the value still moved in the chunk's second half: the mean over the chunks
  of (value after ``n`` iterations - value after ``n / 2``). Searched longer, an option's value keeps
  moving (good options rise as the play below them sharpens, weak ones fall as the opponents'
  replies do), and by far more than the seed noise. The 95% interval of the win share is for the
  value of the option searched alone 20 times longer (``bench/bench_intervals.py`` measures how often
  it holds it): it is centred on ``win + EXTRAPOLATION * drift`` (the trend goes on, slowing: three
  quarters of the log2(20) doublings to 20x), and its half-width is ``t(0.975, k - 1)`` times the
  standard error of the chunks' extrapolated values, plus ``DEPTH_FACTOR * |drift|``, plus
  ``WIN_FLOOR`` (two points: values that did not move in the last doubling still move that much).
  The money's interval is centred on the money and adds ``MONEY_DEPTH_FACTOR * |money drift|``.

The chunks are few and long (``CHUNKS`` = 3 of the search's iterations / 5) rather than many and
short: the depth of a chunk decides how far its value is from the longer search's, the seed noise
is small beside that (docs/confidence.md has the measurements).

**Equal to the best.** The best option is the one with the highest re-searched win share. Another
option is *equal* to it when their difference cannot be told apart from zero at the chunks'
precision (``diff <= t(0.975, 2k - 2) * sqrt(se_best^2 + se^2)``) or is below ``MARGIN`` (0.75 points
of win share). The comparison uses equal searches (every option alone, the same ``n``), so an
option is never ahead because it was searched more.

**Verdict.** ``clear``: no other option is equal to the best. ``equal``: every option in the band
is surely within the margin (its difference's 95% interval lies inside ``[-MARGIN, MARGIN]``).
``open``: the band holds an option that is neither separated nor surely equal.
**Until clear** repeats the verification while the verdict is ``open``: each round keeps the band's
options, doubles the chunk length and runs new chunks (the latest round decides: values at
different lengths are not mixed), until the verdict is ``clear`` or ``equal`` or the next round would
pass the cap (``cap``: then the verdict stays ``open`` and the output says the cap was reached).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from .seeds import derive_seed

#: Independent re-searches per option and round: few and long rather than many and short, since an
#: option's value depends far more on the depth of its search than on the seed (docs/confidence.md).
CHUNKS = 3
#: A chunk's length is the main search's iterations over this (at least MIN_CHUNK): 5 options x 3
#: chunks x n/5 = 3 times the search's iterations per round.
CHUNK_DIVISOR = 5
MIN_CHUNK = 100
#: Two options whose win shares differ by less than this are practically equal (0..1 scale).
MARGIN = 0.0075
#: The win share's 95% interval is centred on the value moved on by this many times the last
#: doubling's drift (three quarters of the log2(20) doublings to a search 20 times longer: the trend
#: goes on, slowing) ...
EXTRAPOLATION = 0.75 * math.log2(20)
#: ... adds this many times the drift to the precision half-width (so the interval runs from "the
#: value stops moving" to "it moves on 1.5 times as fast", plus the noise) ...
DEPTH_FACTOR = 0.75 * math.log2(20)
#: ... and this floor: searched 20 times longer, options whose value did not move in the chunk's last
#: doubling still move by up to 2 points (bench/bench_intervals.py, docs/confidence.md).
WIN_FLOOR = 0.02
#: The money's interval is centred on the chunks' mean and adds this many times the money's drift
#: (no floor: money has no fixed scale).
MONEY_DEPTH_FACTOR = 2 * math.log2(20)
#: Until clear: by default the verification stops before it has spent this many times the main
#: search's iterations.
CAP_FACTOR = 16
#: The verdicts.
CLEAR, EQUAL, OPEN = "clear", "equal", "open"

# Student t quantiles t(0.975, df) for small df (beyond the table: the normal's 1.96 plus a tail term).
_T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262,
         10: 2.228, 12: 2.179, 14: 2.145, 16: 2.120, 18: 2.101, 20: 2.086, 30: 2.042}


def t975(df: int) -> float:
    """The 0.975 quantile of Student's t with ``df`` degrees of freedom (to three decimals).

        >>> t975(4), t975(8), round(t975(1000), 2)
        (2.776, 2.306, 1.96)
    """
    if df < 1:
        raise ValueError(f"df: expected at least 1, got {df}")
    if df in _T975:
        return _T975[df]
    below = max(k for k in _T975 if k <= df)
    if df > 30:
        return 1.96 + 2.4 / df  # within 0.005 of the exact quantile from 30 on
    return _T975[below]  # conservative: the quantile falls with df


def _mean_sd(xs: list[float]) -> tuple[float, float]:
    m = sum(xs) / len(xs)
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1)) if len(xs) > 1 else 0.0
    return m, sd


@dataclass(frozen=True)
class Estimate:
    """One option's re-searched value (win share and money of the mover) with its 95% interval."""

    action: int
    chunks: int            # independent re-searches
    chunk_iterations: int  # iterations of each
    round: int             # the verification round that measured it (0: the first)
    win: float             # mean win share over the chunks
    win_se: float          # standard error of that mean (chunk spread / sqrt(chunks))
    win_drift: float       # mean change of the value over the chunks' second halves
    money: float
    money_se: float
    money_drift: float
    win_values: tuple[float, ...] = ()
    #: standard error of the mean of the chunks' extrapolated values (each chunk's value moved on by
    #: EXTRAPOLATION times its own drift); None: ``win_se``
    win_centre_se: float | None = None

    @property
    def win_precision(self) -> float:
        """Half-width of the seed noise's 95% interval (what the equal band compares)."""
        return t975(self.chunks - 1) * self.win_se

    @property
    def win_centre(self) -> float:
        """The centre of the 95% interval: the value extrapolated towards the search 20 times longer."""
        return min(1.0, max(0.0, self.win + EXTRAPOLATION * self.win_drift))

    @property
    def win_half(self) -> float:
        """Half-width of the 95% interval of the value searched 20 times longer, around ``win_centre``:
        the extrapolated values' noise + the depth term + the floor."""
        se = self.win_se if self.win_centre_se is None else self.win_centre_se
        return t975(self.chunks - 1) * se + DEPTH_FACTOR * abs(self.win_drift) + WIN_FLOOR

    @property
    def win_low(self) -> float:
        return max(0.0, self.win_centre - self.win_half)

    @property
    def win_high(self) -> float:
        return min(1.0, self.win_centre + self.win_half)

    @property
    def money_half(self) -> float:
        return t975(self.chunks - 1) * self.money_se + MONEY_DEPTH_FACTOR * abs(self.money_drift)


@dataclass
class Verification:
    """What the re-searches found: estimates, the ranking, the equal band, the verdict and the cost."""

    estimates: dict[int, Estimate]
    order: list[int]          # the re-searched options, best first (the band first)
    equal: list[int]          # the options equal to the best, the best first
    verdict: str              # CLEAR, EQUAL or OPEN
    rounds: int
    iterations: int           # iterations of all re-searches
    cpu_seconds: float
    until_clear: bool = False
    capped: bool = False      # until clear stopped at the cap with the verdict still open
    margin: float = MARGIN
    history: list[dict] = field(default_factory=list)  # per round: chunk length, options, band, verdict

    @property
    def best(self) -> int:
        return self.order[0]

    def summary(self) -> str:
        """The verdict in words, e.g. ``clear after 2 rounds`` or ``equal (tie)``."""
        rounds = f"{self.rounds} round{'s' if self.rounds != 1 else ''}"
        if self.verdict == CLEAR:
            return f"clear: the best is separated from the rest ({rounds})"
        if self.verdict == EQUAL:
            return f"equal: the best {len(self.equal)} are within {100 * self.margin:g} points of win share ({rounds})"
        why = "; the cap was reached" if self.capped else ""
        return f"open: {len(self.equal)} options cannot be told apart yet ({rounds}{why})"


def forced_halves(fast, params, max_nodes: int, action: int, n: int, seed: int, shares: bool = False) -> list:
    """``action`` searched alone (the forced root option) for ``n`` iterations from ``seed``, with the C
    parameters ``params`` of the main search (:func:`kwsearch.search.search_params`) and a pool of
    ``max_nodes``, in two halves: the forced child's row of ``Tree.children`` after n/2 and after n
    (None while it has no visits). The one re-search behind the hints' and the review's values.

    With ``shares`` the tree also counts the finishing places (``Tree.accounting``, which draws no
    random number: the same iterations), and each row ends with every seat's win share under the
    option, its share of first places: the node keeps only its mover's win share, and with a money
    weight above 0 its rewards are not win shares."""
    from . import _search
    from .outlook import places
    tree = _search.Tree(max_nodes)
    tree.accounting = shares
    rng, done, rows = seed, 0, []
    for stop in (n // 2, n):
        _, rng = _search.run_slice(tree, fast, params, stop - done, 0.0, rng, action)
        done = stop
        kid = [c for c in tree.children(0) if c[0] == action]
        row = kid[0] if kid and kid[0][2] else None
        if row is not None and shares:
            pl = places(tree.card_stats(), fast.game.num_players, action)
            row = row + ([s.p[0] for s in pl.seats],)
        rows.append(row)
    return rows


def chunk_value(fast, params, max_nodes: int, action: int, n: int, seed: int) -> tuple[float, float, float, float, int]:
    """One re-search of ``action`` alone (:func:`forced_halves`): ``(win after n/2, win after n, money
    after n/2, money after n, visits)`` of the mover (win share; money at the playouts' end)."""
    mover = fast.current_player()
    (w1, m1, _), (w2, m2, v2) = [(c[4] / c[2], c[6][mover] / c[2], c[2]) if c else (0.0, 0.0, 0)
                                 for c in forced_halves(fast, params, max_nodes, action, n, seed)]
    return w1, w2, m1, m2, v2


def estimate(fast, params, max_nodes: int, action: int, n: int, seed: int, rnd: int,
             chunks: int = CHUNKS) -> Estimate:
    """``action`` re-searched in ``chunks`` independent searches of ``n`` iterations (round ``rnd``)."""
    rows = [chunk_value(fast, params, max_nodes, action, n, derive_seed(seed, "verify", rnd, action, j))
            for j in range(chunks)]
    w, wsd = _mean_sd([r[1] for r in rows])
    m, msd = _mean_sd([r[3] for r in rows])
    wd = sum(r[1] - r[0] for r in rows) / len(rows)
    md = sum(r[3] - r[2] for r in rows) / len(rows)
    _, csd = _mean_sd([r[1] + EXTRAPOLATION * (r[1] - r[0]) for r in rows])
    return Estimate(action, chunks, n, rnd, w, wsd / math.sqrt(chunks), wd, m, msd / math.sqrt(chunks), md,
                    tuple(r[1] for r in rows), csd / math.sqrt(chunks))


def band(estimates: dict[int, Estimate], options: list[int], margin: float = MARGIN,
         tiebreak: list[int] | None = None) -> tuple[list[int], list[int], str]:
    """``(order, equal, verdict)`` of ``options`` by their estimates (see the module docstring).

    ``tiebreak`` (the main search's order) decides between equal values; the order lists the band
    first, then the rest, each by value."""
    pos = {a: i for i, a in enumerate(tiebreak or options)}
    ranked = sorted(options, key=lambda a: (-estimates[a].win, pos.get(a, len(pos)), a))
    best = estimates[ranked[0]]
    equal, surely = [ranked[0]], True
    for a in ranked[1:]:
        e = estimates[a]
        diff = best.win - e.win
        h = t975(best.chunks + e.chunks - 2) * math.hypot(best.win_se, e.win_se)
        if diff <= max(margin, h):
            equal.append(a)
            surely = surely and diff + h <= margin
    verdict = CLEAR if len(equal) == 1 else EQUAL if surely else OPEN
    order = equal + [a for a in ranked if a not in equal]
    return order, equal, verdict


def verify(state, result, options: list[int], *, seed: int, until_clear: bool = False, cap: int | None = None,
           chunk_iterations: int | None = None, chunks: int = CHUNKS, margin: float = MARGIN,
           stop=None) -> Verification:
    """Re-search ``options`` (actions of ``state``, in the main search's order) as the module docstring
    says, with ``result``'s settings; ``until_clear`` repeats rounds until the verdict is not ``open`` or
    the next round would pass ``cap`` iterations (default ``CAP_FACTOR`` times the main search's)."""
    from .engine import convert
    from .search import search_params
    fast = convert(state, "fast")
    config = result.config
    n_players = fast.game.num_players
    params = search_params(config, n_players)  # built once: the evaluation and the prior loaded
    n = chunk_iterations or max(MIN_CHUNK, result.iterations // CHUNK_DIVISOR)
    if cap is None:
        cap = CAP_FACTOR * max(result.iterations, MIN_CHUNK * CHUNK_DIVISOR)
    t0 = time.process_time()
    estimates: dict[int, Estimate] = {}
    spent = 0
    live = list(options)
    rnd = 0
    history = []
    capped = False
    while True:
        for a in live:
            estimates[a] = estimate(fast, params, config.max_nodes, a, n, seed, rnd, chunks)
        spent += len(live) * chunks * n
        order, equal, verdict = band(estimates, live, margin, options)
        history.append({"round": rnd, "chunkIterations": n, "options": len(live), "equal": len(equal),
                        "verdict": verdict})
        rnd += 1
        if len(live) == 1 or not until_clear or verdict != OPEN:
            break
        if stop is not None and stop.is_set():
            break
        if spent + len(equal) * chunks * 2 * n > cap:
            capped = True
            break
        live, n = equal, 2 * n
    # The options dropped in earlier rounds follow, by their last estimate.
    rest = sorted((a for a in options if a not in order), key=lambda a: (-estimates[a].win, options.index(a)))
    return Verification(estimates, order + rest, equal, verdict, rnd, spent, time.process_time() - t0,
                        until_clear, capped, margin, history)


def confidence_rows(an, plan_of, cut: int) -> tuple[tuple[str, ...], list[tuple[str, ...]]]:
    """The suggest table's header and rows: ``=`` marks the options equal to the best; with a
    verification the win column is the re-searched win share and its 95% interval [low, high] of the
    value searched 20 times longer, and the money's 95% interval follows the money ± its spread (sd)."""
    rows = []
    for c in an.ranked():
        e = c.estimate
        mark = "=" if c.equal and len([x for x in an.candidates if x.equal]) > 1 else ""
        if e is None:
            win, money95 = f"{100 * c.win_prob:.1f}%", ""
        else:
            win = f"{100 * e.win:.1f}% [{100 * e.win_low:.1f}, {100 * e.win_high:.1f}]"
            money95 = f"{e.money:.1f} ± {e.money_half:.1f}"
        row = (f"{(c.order if c.rank is None else c.rank) + 1}{mark}", plan_of(c), f"{c.visits:,}", f"{100 * c.share:.1f}%", win,
               f"{c.money:.1f} ± {c.money_sd:.1f}")
        rows.append(row + ((money95,) if e is not None else ()) + (f"{100 * c.avail:.0f}%",))
    verified = an.verification is not None
    head = ("#", "plan for this turn", "visits", "share", "win [95%]" if verified else "win",
            "money@cut ± sd" if cut else "money ± sd") + (("money 95%",) if verified else ()) + ("avail",)
    return head, rows


def legend(an, state=None) -> list[str]:
    """The lines under the suggest table: the verdict, the hint, the cost of the re-searches."""
    v = an.verification
    e = an.ranked()[0].estimate
    return [f"re-searched alone: {e.chunks} searches of {e.chunk_iterations:,} iterations per option"
            f" in the last round, {v.iterations:,} iterations in all ({v.cpu_seconds:.1f} s CPU); "
            f"win and money: the re-searches' means and their 95% intervals of the option searched 20x "
            f"longer; = equal to the best "
            f"(docs/confidence.md)",
            f"{'until clear: ' if v.until_clear else ''}{v.summary()}",
            f"hint: {an.equal_text(state)}"]
