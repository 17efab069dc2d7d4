"""Information-set Monte Carlo tree search (ISMCTS) for Kraftwagen.

Algorithm (single-observer ISMCTS, Cowling, Powley & Whitehouse 2012)
--------------------------------------------------------------------
Every iteration

1. **determinizes**: copies the root state and redraws its hidden information —
   a uniform shuffle of the undrawn research cards and a new generator for later
   reshuffles (``k_determinize``). The observation is untouched, so the sample is
   consistent with what the root player knows; the true order is never used.
2. **selects** down the tree. At a node, the legal actions of *this*
   determinization are listed; every child whose action is among them has its
   *availability count* ``n_avail`` increased (a face-up card type, for example,
   is legal only in some determinizations). If some legal action has no child
   yet, one of them is chosen at random and **expanded**. Otherwise the child
   maximising ::

       UCB = R_p / n + c * sqrt(ln(n_avail) / n)

   is followed, where ``n`` is the child's visit count, ``R_p`` its summed reward
   for ``p``, the seat that chose the child's action (each seat maximises its own
   reward), and ``c`` is ``SearchConfig.c_uct`` (by default 0.3 with two players, 0.25 with
   three or four: ``DEFAULT_C_UCT``; a hint or a review keeps 0.4 with three or four,
   ``ANALYSIS_C_UCT``), or ``SearchConfig.c_opponents`` at the nodes where a
   seat other than the root's mover chooses, when it is set (by default it is not: one ``c``
   everywhere). With ``SearchConfig.prior = W > 0`` a
   learned move prior (a softmax policy over the options, :mod:`kwsearch.prior`,
   weights ``SearchConfig.prior_weights`` or the shipped ones) gives every option
   legal here a probability P: the untried option expanded is drawn in proportion
   to P, and the UCB score gains the progressive bias ``W * P / (1 + n)``
   (docs/evaluation.md, "The move prior"); ``W = 0``, the default, is the search
   without it, draw for draw. ``SearchConfig.prior_playout = q > 0`` lets the same
   prior guide the playouts too: each playout decision is, with chance q, an option
   drawn in proportion to P, and the rollout policy's choice otherwise (``q = 0``, the
   default: unguided, draw for draw).
3. **plays out** the rest of the game at C level. With two players the default
   is the *smart* policy below, cut off after 15 decisions; with three the smart
   policy cut off after 30 decisions and scored by the evaluation fitted to smart
   playouts; with four the smart policy cut off after 30 decisions and scored by
   the evaluation fitted to searched games (``DEFAULT_ROLLOUT``, ``DEFAULT_CUTOFF``,
   ``DEFAULT_EVALUATION``; docs/strength.md). The former defaults play the cheap
   *tempo* policy to the end of the game (``SearchConfig.rollout = "tempo"``,
   ``k_playout_tempo``). The tempo policy: at a turn, three
   times in four the seat takes one of the tiles that let the fewest other
   workers past it, and at the market step it offers a car seven times in eight
   when it can; a new engine not higher than the GP car's goes into the car only
   when it is equal and the workshops are full; every other decision is uniformly
   random. ``rollout="random"``
   plays uniformly random legal actions (``k_playout``). The tempo policy measured
   stronger than random playouts (bench/RESULTS.md, docs/design.md).
   ``rollout="smart"`` (``k_playout_smart``) plays the heuristic bot's cheap hand
   rules (kwsearch/heuristic.py) at C speed: the highest price that still wins a
   buyer on the table (else an undercut), the buyer that suits the seat's cars,
   one worker per car unless a prestige buyer is contested, developments early;
   ``SearchConfig.playout`` holds its knobs (``PLAYOUT_FIELDS``), which
   ``kwsearch tune`` searches (docs/tuning.md);
   With ``SearchConfig.cutoff = D > 0`` the playout stops after D decisions
   and, unless the game ended first, a learned evaluation scores the position
   (the modelled win shares of :mod:`kwsearch.features`, weights
   ``SearchConfig.evaluation`` or the shipped ones; docs/evaluation.md);
4. **backs up** the reward *vector*: every node on the path adds the reward of
   every seat (and the final money of every seat, for the statistics).

By default nodes are keyed on the sequence of actions from the root (*open
loop*): a node is shared by all determinizations in which its action sequence is
legal, and research reveals are not part of the key — the availability counts
handle the actions that only some reveals make legal. With
``SearchConfig.closed_loop`` an action that turns up research cards leads to one
*chance-outcome* node per set of face-up cards seen, and the next decision is
searched under the outcome of the current determinization (nodes are then keyed
on what the players observed, as OpenSpiel keys them on the information state).
Open loop is the default because it played stronger at equal time: closed loop
scored 30.0% ± 8.8 against it over 100 two-player games at 0.1 s per decision
(``bench/strength.py``, docs/design.md). The reward of a seat is its win share
(1 for a sole winner, split on ties, 0 otherwise); ``money_weight = w`` blends in
the money margin over the best other seat: ``(1 - w) * win + w * (0.5 + 0.5 *
tanh(margin / 20))``. Every node stores the summed reward of every seat; its
``player`` is the seat whose point of view the UCB formula takes at its parent.

The root
--------
With ``SearchConfig.root = "uct"`` (the default, ``DEFAULT_ROOT``) the root is selected like every
other node, and the final choice is the most visited root action (ties: the higher mean reward of
the mover, then the lower action id). With ``"halving"`` the root runs *sequential halving* (Karnin,
Koren & Somekh 2013; at the root of an MCTS as in Pepels, Cazenave, Winands & Lanctot 2014): for K
options the budget is cut into ``ceil(log2 K)`` rounds; a round gives every remaining option the
same number of iterations, each iteration taking that option at the root (UCB below it as usual),
and keeps the better half by the mover's mean reward; the last round keeps one, the choice. An
iteration limit is shared out exactly (the budget left over the rounds left); a time limit gives
each round the time left over the rounds left, spent in round-robin passes of ``HALVING_STEP``
iterations per option. The options are then listed in that ranking (the choice, the other
finalist, then each round's dropped options, best first), and their visits show how far each
came. Why: under UCB the most visited option is also the one whose subtree was searched most, and
an option's mean rises as the play below it improves, so the options are compared on unequal
searches and five seeds can settle on five different options (docs/strength.md, "Stable advice").
Root-parallel workers each run their own halving; their summed visits rank the options.

The iteration loop, the node
pool (``kwsearch._search.Tree``, a preallocated array grown by doubling up to
``SearchConfig.max_nodes``) and the playouts run in Cython without the GIL and
without Python objects.

The public API
--------------
:class:`Searcher` is the one way to search; :func:`search` is a one-shot
wrapper. ``Searcher.run(state, limits, progress=..., stop=...)`` runs the C loop
in *slices* of at most 50 ms; between slices it checks ``stop`` (a
``threading.Event`` or ``multiprocessing.Event``) and, every
``progress_interval`` seconds, calls ``progress`` with a full
:class:`SearchResult` of the statistics so far. ``stop.set()`` from another
thread, or Ctrl-C (``KeyboardInterrupt``) in the main thread, ends the search
within a slice and returns the statistics gathered (``interrupted=True``). The
generator's state is carried from slice to slice, so slicing never changes the
result: the same seed and an iteration limit give the same numbers.

With ``SearchConfig.workers = W > 1`` the search runs *root-parallel* in W
processes: each builds its own tree with seed ``derive_seed(seed, "worker", i)``
(one worker uses ``derive_seed(seed, "worker", 0)`` too) and
``SearchLimits.iterations`` is the **total**, split as evenly as possible
(worker ``i`` gets ``N // W``, plus one for ``i < N % W``); a time limit applies
to each worker (they run side by side). Workers report their root statistics
and the well-visited part of their tree (nodes with at least 0.1% of the
worker's iterations) through a pipe, and the parent sums them: visits, rewards,
money, availability counts, and the visits of every node it uses for the plans
and the principal variation. Workers ignore SIGINT (a terminal's Ctrl-C reaches
the whole process group); the parent tells them to stop through a
``multiprocessing.Event`` and they send their statistics within one slice. A
worker whose parent died stops by itself.

With ``Searcher(account=True)`` (``search(..., account=True)``; the hints' searches) the C loop
also counts, per root option, each completed iteration's win share of the root mover by the research
cards its determinization puts next (and the next V6 specialty tile), and every seat's finishing
place (``Tree.accounting``); ``SearchResult.accounts`` holds the tables, summed over the workers in
worker order, and :mod:`kwsearch.outlook` reads them (docs/cards-and-places.md). The counting draws
no random number: the search is the same, draw for draw.

The numbers add up: ``iterations`` is the number of iterations completed in
this search, which without tree reuse equals the sum of the root options'
visits (every iteration passes exactly one root child), so the shares sum to 1;
``availability`` is the share of those iterations in which the option was legal
at the root, counted exactly by the C loop (an option every determinization
allows, such as a public action tile, has 1.0). When the node pool is full the
search stops and says so (``pool_full``).

    >>> from kwsearch.game import Game
    >>> from kwsearch.search import search, SearchLimits
    >>> result = search(Game(2).new_initial_state(seed=1), SearchLimits(iterations=2000), seed=1)
    >>> result.best_text in [a.text for a in result.actions]
    True
    >>> result.iterations == sum(a.visits for a in result.actions) == 2000
    True
"""

from __future__ import annotations

import math
import numbers
import os
import signal
import time
from dataclasses import dataclass, replace
from typing import Any, Callable

from .engine import convert, fast_module
from .observation import observation_key
from .seeds import MASK64, derive_seed
from .settings import (DEFAULT_PLAYOUT, MAX_C_UCT, MAX_CUTOFF, MAX_NODES, MAX_PRIOR, MAX_WORKERS,  # noqa: F401
                       PLAYOUT_FIELDS, PLAYOUT_RANGES, ROLLOUTS, ROOT_RULES, SETTING, SearchError, check_config,
                       analysis_defaults, check_flag, check_integer, check_number, config_fields, config_json,
                       resolve)

#: The most iterations one search counts: the C loop keeps visit counts in 32-bit integers.
MAX_ITERATIONS = 2**31 - 1
#: The longest time limit accepted (a year and a day; more is a typo, not a plan).
MAX_SECONDS = 366 * 24 * 3600.0
#: The C loop runs at most this long between two looks at ``stop``, Ctrl-C and the progress clock.
SLICE_SECONDS = 0.05
#: Nodes with fewer visits than this share of their tree's root are left out of the merged plans/PV.
PATH_SHARE = 0.001


@dataclass(frozen=True)
class SearchLimits:
    """When to stop: after ``iterations`` or ``seconds`` (whichever comes first).

    ``iterations`` is the total over all workers of a root-parallel search;
    ``seconds`` is wall time, which every worker spends side by side.
    """

    iterations: int | None = None
    seconds: float | None = None
    # issue 29 (kwsearch.confidence): after the search, re-search the finalists until the best is
    # separated or they are declared equal, up to ``clear_cap`` re-search iterations (None: the
    # default cap). Read by kwsearch.analysis (hints); the search itself ignores them.
    until_clear: bool = False
    clear_cap: int | None = None

    def __post_init__(self) -> None:
        if self.iterations is None and self.seconds is None:
            raise SearchError("SearchLimits: give iterations or seconds (or both)")
        if self.iterations is not None:
            check_integer("SearchLimits", "iterations", self.iterations, 1, MAX_ITERATIONS)
        if self.seconds is not None:
            check_number("SearchLimits", "seconds", self.seconds, 0, MAX_SECONDS, lo_open=True)
        check_flag("SearchLimits", "until_clear", self.until_clear)
        if self.clear_cap is not None:
            check_integer("SearchLimits", "clear_cap", self.clear_cap, 1, 2**62)

    def as_dict(self) -> dict[str, Any]:
        extra = {"until_clear": True, "clear_cap": self.clear_cap} if self.until_clear else {}
        return {"iterations": self.iterations, "seconds": self.seconds, **extra}


#: The defaults by player count, as named by earlier versions (the table, kwsearch.settings, holds
#: them and says why each was chosen).
DEFAULT_C_UCT = SETTING["c_uct"].default
#: The exploration constant by player count when the search analyses (hints, reviews, teaching:
#: :meth:`SearchConfig.for_analysis`) rather than plays.
ANALYSIS_C_UCT = SETTING["c_uct"].analysis
DEFAULT_MONEY_WEIGHT = SETTING["money_weight"].default
DEFAULT_ROLLOUT = SETTING["rollout"].default
DEFAULT_CUTOFF = SETTING["cutoff"].default
#: The evaluation that scores a playout stopped at a cut-off when ``SearchConfig.evaluation`` is
#: None: a shipped one by name (``kwsearch.features.SHIPPED``), by player count.
DEFAULT_EVALUATION = SETTING["evaluation"].default
DEFAULT_ROOT = SETTING["root"].default
#: The search default before issue 17, by player count, as a spec's options: the search plain
#: ``ismcts`` was until the two- and four-player defaults changed (``bench/strength.py``'s matches
#: and ``bench/train_prior.py`` spell it out, so their recorded games and shipped weights stay what
#: they were).
#: They spell out their exploration constants: the defaults' changed in issue 32's sixteenth round
#: (two players, 0.7 to 0.3), seventeenth (three players, 0.4 to 0.25) and twenty-first (four
#: players, 0.4 to 0.25), and the former defaults keep theirs.
FORMER_DEFAULT = {2: "rollout=tempo,cutoff=0,money=0,c=0.7", 3: "rollout=tempo,cutoff=0,money=0.5,c=0.4",
                  4: "rollout=tempo,cutoff=0,money=0.5,c=0.4"}


@dataclass(frozen=True)
@config_fields
class SearchConfig:
    """Search settings: one field per setting of the table :data:`kwsearch.settings.SETTINGS` (which
    gives each one's type, range, default, bot-spec key, command-line flag and JSON name; docs/settings.md
    lists them). ``determinize=False`` searches the true deck order (the ``cheat`` bot).

    The settings whose default depends on the player count (``c_uct``, ``money_weight``, ``rollout``,
    ``cutoff``, ``root`` and, with a cut-off, ``evaluation``) are None until :meth:`for_players` fills
    them in (the play defaults; :meth:`for_analysis` first, for the analysis defaults of a hint or a
    review); the result of a search carries the values used. ``max_nodes`` bounds each worker's node
    pool (64 bytes a node).
    """

    def __post_init__(self) -> None:
        check_config(self)

    def for_players(self, n: int) -> "SearchConfig":
        """This configuration with the player-count defaults filled in (with a cut-off, the
        evaluation too: ``DEFAULT_EVALUATION``).

        An evaluation named with the cut-off left to the default is an error for a player
        count whose default has no cut-off (the evaluation would never be used)."""
        return replace(self, **resolve(self, n))

    def for_analysis(self, n: int) -> "SearchConfig":
        """This configuration as a search that analyses a position for a player (a hint, a review,
        teaching) runs it: the settings left to the defaults that analysing sets otherwise than
        playing (:attr:`kwsearch.settings.Setting.analysis`: the exploration constant with three
        and four players, ``ANALYSIS_C_UCT``) filled in for ``n`` players; the others stay for
        :meth:`for_players`. A value given explicitly is kept. Idempotent."""
        return replace(self, **analysis_defaults(self, n))

    def as_dict(self) -> dict[str, Any]:
        """The settings as ``kwsearch-analysis/1`` records them (``rootInfo.config``: docs/formats.md)."""
        return config_json(self)

    @property
    def uses_prior(self) -> bool:
        """Whether the search reads the move prior (a prior weight, or a playout share above 0)."""
        return self.prior > 0 or self.prior_playout > 0

    def evaluator(self, n: int):
        """The evaluation that scores playouts stopped at the cut-off (a ``kwsearch._eval.Evaluator``
        for ``n`` players), or None without a cut-off. A missing or bad weights file is a
        :class:`kwsearch.features.EvaluationError` naming the file and field."""
        resolved = self.for_players(n)
        if resolved.cutoff == 0:
            return None
        from .features import load_evaluation
        return load_evaluation(resolved.evaluation, n)

    def prior_model(self, n: int):
        """The move prior that biases selection and guides playouts (a ``kwsearch._eval.Prior`` for ``n``
        players), or None when neither ``prior`` nor ``prior_playout`` is above 0. A missing or bad
        weights file is a :class:`kwsearch.prior.PriorError` naming the file and field."""
        if not self.uses_prior:
            return None
        from .prior import load_prior
        return load_prior(self.prior_weights, n)


@dataclass(frozen=True)
class ActionInfo:
    """Root statistics of one option (sums over all workers)."""

    action: int
    text: str
    visits: int
    share: float                    # visits / the visits of all options (they sum to 1)
    avail: int                      # iterations of this search in which the option was legal at the root
    availability: float             # avail / iterations, in [0, 1]; 1.0 if every determinization allows it
    win_prob: float                 # mean win share of the mover after this option
    mean_reward: tuple[float, ...]  # per seat
    mean_money: tuple[float, ...]   # per seat
    money_sd: float = 0.0           # standard deviation of the mover's final money
    plan: tuple[str, ...] = ()      # this option and the mover's most visited follow-ups in the same turn


@dataclass(frozen=True)
class SearchResult:
    """What a search found; progress reports are results too (of the statistics so far)."""

    mover: int
    best_action: int
    best_text: str
    actions: tuple[ActionInfo, ...]   # most visited first
    pv: tuple[str, ...]               # principal variation (text), at least the mover's turn
    pv_actions: tuple[int, ...]
    iterations: int                   # iterations completed in this search (all workers)
    elapsed: float                    # wall seconds
    seed: int                         # the search's seed: search(state, limits, config, seed) repeats it
    config: SearchConfig              # with the player-count defaults filled in
    limits: SearchLimits
    nodes: int = 0                    # nodes in the tree(s)
    node_bytes: int = 0
    interrupted: bool = False         # stopped by ``stop`` or Ctrl-C before the limits were reached
    pool_full: bool = False           # a node pool filled up, which ended (that worker's) search
    reused_visits: int = 0            # root visits carried over from an earlier search (tree reuse)
    final: bool = True                # False for a progress report
    # The cards-and-places accounting of this search's iterations (``Searcher(account=True)``; None
    # without it): ``{action: [samples, win, {key: [samples, win]}, places]}``, summed over the
    # workers (kwsearch._search.Tree.card_stats; kwsearch.outlook reads it).
    accounts: dict | None = None

    @property
    def iterations_per_second(self) -> float:
        return self.iterations / self.elapsed if self.elapsed > 0 else 0.0


# ---------------------------------------------------------------------------
# Statistics of one tree, merging, and the result
# ---------------------------------------------------------------------------


def _tree_stats(tree, reused: int = 0) -> dict[str, Any]:
    """A picklable summary of a tree: root children, root availability, well-visited paths.

    ``paths`` maps an action path from the root (a chance-outcome node of closed
    loop is ``-1 - outcome``) to ``[visits, player]``, for nodes with at least
    ``PATH_SHARE`` of the root's visits (at least 2), which is what the plans
    and the principal variation are read from.
    """
    root = {}
    for action, player, visits, _avail, win, reward, money, _index, money_sq in tree.children(0):
        root[action] = [player, visits, win, list(reward), list(money), money_sq]
    visits = tree.root_visits()
    keys: list[tuple[int, ...]] = []
    paths: dict[tuple[int, ...], list[int]] = {}
    for parent, action, outcome, player, n in tree.collect(max(2, int(visits * PATH_SHARE))):
        path = (keys[parent] if parent >= 0 else ()) + ((action if action >= 0 else -1 - outcome),)
        keys.append(path)
        paths[path] = [n, player]
    out = {"root": root, "avail": tree.root_availability(), "paths": paths, "iterations": visits - reused,
           "nodes": tree.size, "pool_full": bool(tree.pool_full)}
    if tree.accounting:
        out["accounts"] = {a: [n, win, {k: list(v) for k, v in keys.items()}, places]
                           for a, (n, win, keys, places) in tree.card_stats().items()}
    return out


def _merge_accounts(parts: list[dict]) -> dict:
    """The sum of several workers' accounting tables, in the order given (worker 0 first), so the
    float sums are the same for the same seed and worker count."""
    out: dict = {}
    for part in parts:
        for a, (n, win, keys, places) in part.items():
            m = out.setdefault(a, [0, 0.0, {}, [0.0] * len(places)])
            m[0] += n
            m[1] += win
            for k, (kn, kw) in keys.items():
                e = m[2].setdefault(k, [0, 0.0])
                e[0] += kn
                e[1] += kw
            m[3] = [x + y for x, y in zip(m[3], places)]
    return out


def _merge(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """The sum of several trees' summaries (in the order given, so the sums are reproducible)."""
    if len(parts) == 1:
        return parts[0]
    root: dict[int, list] = {}
    avail: dict[int, int] = {}
    paths: dict[tuple[int, ...], list[int]] = {}
    for st in parts:
        for a, (player, visits, win, reward, money, money_sq) in st["root"].items():
            m = root.setdefault(a, [player, 0, 0.0, [0.0] * 4, [0.0] * 4, 0.0])
            m[1] += visits
            m[2] += win
            m[3] = [x + y for x, y in zip(m[3], reward)]
            m[4] = [x + y for x, y in zip(m[4], money)]
            m[5] += money_sq
        for a, n in st["avail"].items():
            avail[a] = avail.get(a, 0) + n
        for p, (n, player) in st["paths"].items():
            paths.setdefault(p, [0, player])[0] += n
    out = {"root": root, "avail": avail, "paths": paths, "iterations": sum(p["iterations"] for p in parts),
           "nodes": sum(p["nodes"] for p in parts), "pool_full": any(p["pool_full"] for p in parts)}
    if any("accounts" in p for p in parts):
        out["accounts"] = _merge_accounts([p.get("accounts", {}) for p in parts])
    return out


def _best(kids: list[tuple[int, int, int]]) -> tuple[int, int, int]:
    """The most visited of ``[(key, visits, player)]``; ties go to the lower key."""
    return max(kids, key=lambda k: (k[1], -k[0]))


def _plan(walk, mover: int, children: dict, first: int) -> tuple[str, ...]:
    """``first`` and the most visited continuation while the mover decides in this turn."""
    texts = [walk.action_to_text(first)]
    if first not in walk.legal_actions():  # apply() is unchecked: never walk an option not legal here
        return tuple(texts)
    walk = walk.copy()
    walk.apply(first)
    node: tuple[int, ...] = (first,)
    while (not walk.is_terminal() and walk.current_player() == mover and walk.pending() != "turn"
           and len(texts) < 16):
        kids = children.get(node)
        if not kids:
            break
        key = _best(kids)[0]
        node += (key,)
        if key < 0:  # closed loop: the most visited reveal
            continue
        if key not in walk.legal_actions():
            break
        texts.append(walk.action_to_text(key))
        walk.apply(key)
    return tuple(texts)


def _pv(children: dict, mover: int) -> list[int]:
    """Most visited path: the mover's decisions of this turn, then up to four plies of others."""
    pv: list[int] = []
    node: tuple[int, ...] = ()
    extra = 0
    while len(pv) < 40:
        kids = children.get(node)
        if not kids:
            break
        key, visits, player = _best(kids)
        if visits < 2:
            break
        node += (key,)
        if key < 0:
            continue
        if player != mover:
            extra += 1
            if extra > 4:
                break
        pv.append(key)
    return pv


#: What :func:`_next_slice` returns, and a schedule yields, when the caller's stop event is set.
_STOPPED = object()
#: What a schedule yields when a pass is over: the driver calls its ``tick`` (progress, orphan check).
_TICK = object()


def _next_slice(tree, done: int, iterations: int | None, seconds: float | None, t0: float, stop):
    """The next slice's ``(iterations, seconds)`` for ``run_slice`` (``iterations`` None: no count limit), or
    ``None`` when the budget is spent, or ``_STOPPED`` when ``stop`` is set — checked after the
    iteration limit, so a search that reached it is not "interrupted" by a late stop.

    ``done`` is the iterations this search has run; the tree's visit counts are 32-bit, so no
    slice takes it past ``MAX_ITERATIONS`` root visits.
    """
    left = iterations - done if iterations is not None else 0
    if iterations is not None and left <= 0:  # a worker's share may be 0 (fewer iterations than workers)
        return None
    if stop is not None and stop.is_set():
        return _STOPPED
    room = MAX_ITERATIONS - tree.root_visits()
    if room <= 0:
        return None
    left = min(left, room) if left else room
    span = SLICE_SECONDS
    if seconds:
        span = min(span, seconds - (time.perf_counter() - t0))
        if span <= 0:
            return None
    return left, span


def _uct_schedule(tree, reused: int, iterations: int | None, seconds: float | None, t0: float, stop):
    """The slices of a search that selects at the root by UCB, as :func:`_drive` runs them: each
    ``(iterations, seconds, -1)`` of :func:`_next_slice`'s budget, then a tick."""
    while True:
        budget = _next_slice(tree, tree.root_visits() - reused, iterations, seconds, t0, stop)
        if budget is _STOPPED:
            yield _STOPPED
        if not isinstance(budget, tuple):
            return
        left, span = budget
        yield left, span, -1
        yield _TICK


def _schedule(config: SearchConfig, tree, fast, reused: int, iterations: int | None, seconds: float | None,
              t0: float, stop):
    """``(schedule, halving)``: the slices a search of ``config`` runs (UCB at the root, or sequential
    halving with its ``_Halving``, else None), for :func:`_drive`."""
    if config.root == "halving":
        halving = _Halving(fast, reused)
        return halving.schedule(tree, iterations, seconds, t0, stop), halving
    return _uct_schedule(tree, reused, iterations, seconds, t0, stop), None


def _drive(tree, state, params, schedule, rng: int, tick: Callable[[], None]) -> tuple[int, bool]:
    """The one driver loop of every way of running a search -- in process, in a root-parallel worker,
    with UCB or sequential halving at the root: run ``schedule``'s slices on ``tree`` with the C
    parameters ``params`` (``search_params``), carrying the generator's state ``rng`` from slice to
    slice, call ``tick`` where the schedule says a pass is over, and stop when the schedule ends,
    the node pool is full or ``stop`` is set. Returns ``(rng, interrupted)``.

    A schedule is a generator of ``(iterations, seconds, root_action)`` slices (``root_action >= 0``:
    every iteration takes that root option), ``_TICK`` and ``_STOPPED``; it reads the tree between
    slices (its visits), so it can budget by iterations done."""
    from . import _search
    for step in schedule:
        if step is _TICK:
            tick()
        elif step is _STOPPED:
            return rng, True
        else:
            left, span, root_action = step
            _, rng = _search.run_slice(tree, state, params, left, span, rng, root_action)
            if tree.pool_full:
                break
    return rng, False


def search_params(config: SearchConfig, players: int):
    """The C parameters of a search of ``config`` for ``players`` (a ``kwsearch._search.Params``, the
    struct ``SearchParams`` of ``_search.pxd``): the player-count defaults filled in, the evaluation
    and the move prior loaded. Built once per search (and per worker)."""
    from . import _search
    resolved = config.for_players(players)
    return _search.Params(resolved, resolved.evaluator(players), resolved.prior_model(players))


def _make_result(fast, stats: dict[str, Any], *, seed: int, config: SearchConfig, limits: SearchLimits,
                 elapsed: float, interrupted: bool, reused: int = 0, final: bool = True,
                 order: list[int] | None = None) -> SearchResult:
    from . import _search
    n = fast.game.num_players
    mover = fast.current_player()
    iterations = stats["iterations"]
    children: dict[tuple[int, ...], list[tuple[int, int, int]]] = {}
    for p, (visits, player) in stats["paths"].items():
        children.setdefault(p[:-1], []).append((p[-1], visits, player))
    # Plans and the PV are read on one determinization of the root (fixed by the seed), never on
    # the true hidden order: like the statistics, they are a function of the observation and the seed.
    walk = _search.determinized(fast, derive_seed(seed, "plan")) if config.determinize else fast
    # Only the options legal here: a reused subtree (and, in open loop, a node reached through a
    # reveal) holds children for options that other draws made legal, e.g. a research card some
    # determinization turned up after Otto; playing one would apply an illegal action.
    legal = set(fast.legal_actions())
    root = {a: v for a, v in stats["root"].items() if a in legal}
    total = sum(v[1] for v in root.values()) or 1
    infos = []
    for a, (player, visits, win, reward, money, money_sq) in root.items():
        v = max(visits, 1)
        mean = money[player] / v if 0 <= player < n else 0.0
        sd = max(0.0, money_sq / v - mean * mean) ** 0.5
        avail = stats["avail"].get(a, 0)
        infos.append(ActionInfo(
            action=a, text=fast.action_to_text(a), visits=visits, share=visits / total, avail=avail,
            availability=min(1.0, avail / iterations) if iterations > 0 else 0.0, win_prob=win / v,
            mean_reward=tuple(r / v for r in reward[:n]), mean_money=tuple(m / v for m in money[:n]),
            money_sd=sd, plan=_plan(walk, mover, children, a)))
    # Most visits first; among options with as many visits, the higher mean reward of the mover (with
    # a few iterations per option, visits tie often, and breaking ties by action id alone made every
    # seat repeat the lowest tile: a game of search bots at 60 iterations never ended), then the id.
    infos.sort(key=lambda i: (-i.visits, -(i.mean_reward[mover] if 0 <= mover < n else 0.0), i.action))
    if order is not None:  # sequential halving's ranking (_Halving.order): the options it names first
        rank = {a: k for k, a in enumerate(order)}
        infos.sort(key=lambda i: rank.get(i.action, len(rank)))  # stable: the rest keep the order above
    if not infos:  # no iteration ran (stopped at once, or a pool too small): the first legal option
        a = fast.legal_actions()[0]
        infos = [ActionInfo(a, fast.action_to_text(a), 0, 0.0, 0, 0.0, 0.0, (0.0,) * n, (0.0,) * n, 0.0,
                            (fast.action_to_text(a),))]
    best = infos[0]
    pv = _pv(children, mover)
    if not pv or pv[0] != best.action:
        pv = [best.action]
    texts, line = [], walk.copy()
    for a in pv:  # the PV's texts, as far as it is legal in the determinization read
        if a not in line.legal_actions():
            break
        texts.append(line.action_to_text(a))
        line.apply(a)
    return SearchResult(mover=mover, best_action=best.action, best_text=best.text, actions=tuple(infos),
                        pv=tuple(texts), pv_actions=tuple(pv[:len(texts)]), iterations=iterations,
                        elapsed=elapsed, seed=seed, config=config, limits=limits, nodes=stats["nodes"],
                        node_bytes=_search.Tree.node_bytes(), interrupted=interrupted,
                        pool_full=stats["pool_full"], reused_visits=reused, final=final,
                        accounts=stats.get("accounts"))


def split_iterations(total: int | None, workers: int) -> list[int | None]:
    """Each worker's share of an iteration limit (``None``: no limit).

        >>> split_iterations(10, 3)
        [4, 3, 3]
    """
    if total is None:
        return [None] * workers
    return [total // workers + (1 if i < total % workers else 0) for i in range(workers)]


# ---------------------------------------------------------------------------
# The search
# ---------------------------------------------------------------------------


#: Iterations a halving round gives each remaining option in turn (its round-robin step); a timed
#: round checks the clock after every pass over the options.
HALVING_STEP = 32


class _Halving:
    """Sequential halving over the root's options (``SearchConfig.root = "halving"``; the module
    docstring, "The root").

    The budget is cut into ``ceil(log2 K)`` rounds for K options. A round gives every remaining
    option the same number of iterations (an iteration limit: the budget left over the rounds
    left, shared out; a time limit: the time left over the rounds left, in round-robin passes of
    ``HALVING_STEP`` iterations each), each iteration taking that option at the root; then the
    better half by the mover's mean reward stays. The last round leaves one option, the choice.
    """

    def __init__(self, fast, reused: int):
        self.mover = fast.current_player()
        self.options = sorted(fast.legal_actions())
        self.rounds = max(1, math.ceil(math.log2(len(self.options))))
        self.alive = list(self.options)
        self.out: list[list[int]] = []  # the options dropped, round by round (each best first)
        self.reused = reused

    def _ranked(self, tree, actions: list[int]) -> list[int]:
        """``actions`` by the mover's mean reward (unvisited last), then visits, then id."""
        stats = {a: (v, r[self.mover]) for a, _p, v, _av, _w, r, _m, _i, _sq in tree.children(0)}

        def key(a: int):
            v, r = stats.get(a, (0, 0.0))
            return (0, -r / v, -v, a) if v > 0 else (1, 0.0, 0, a)
        return sorted(actions, key=key)

    def order(self, tree) -> list[int]:
        """The ranking so far: the options still in, best first, then those dropped, latest round first."""
        return self._ranked(tree, self.alive) + [a for batch in reversed(self.out) for a in batch]

    def schedule(self, tree, iterations: int | None, seconds: float | None, t0: float, stop):
        """The slices that spend the budget (``iterations`` and/or ``seconds`` since ``t0``; None: no
        limit of that kind), for :func:`_drive`: each option's turn in a pass is a slice of up to
        ``HALVING_STEP`` iterations that takes it at the root; a tick ends every pass; ``stop`` is
        looked at before each pass. The ranking after each round reads the tree."""
        for r in range(self.rounds):
            left_rounds = self.rounds - r
            k = len(self.alive)
            quota = None
            if iterations is not None:
                spent = tree.root_visits() - self.reused
                share = max(0, min(iterations, MAX_ITERATIONS - self.reused) - spent) // left_rounds
                quota = [share // k + (1 if i < share % k else 0) for i in range(k)]
            deadline = None
            if seconds:
                deadline = time.perf_counter() + (seconds - (time.perf_counter() - t0)) / left_rounds
            done = [0] * k
            while True:
                if stop is not None and stop.is_set():
                    yield _STOPPED
                    return
                ran = 0
                for i, a in enumerate(self.alive):
                    step = HALVING_STEP if quota is None else min(HALVING_STEP, quota[i] - done[i])
                    if step <= 0:
                        continue
                    before = tree.root_visits()
                    yield step, 0.0, a
                    n = tree.root_visits() - before  # every iteration completed passes the root once
                    done[i] += n
                    ran += n
                yield _TICK
                if ran == 0 or (deadline is not None and time.perf_counter() >= deadline):
                    break
            if r == self.rounds - 1:
                keep = 1
            else:
                keep = (k + 1) // 2
            ranked = self._ranked(tree, self.alive)
            self.alive, dropped = ranked[:keep], ranked[keep:]
            if dropped:
                self.out.append(dropped)


class Searcher:
    """Searches positions, one after another; keeps its tree between decisions (tree reuse).

    :meth:`run` is the search (see the module docstring for ``progress`` and
    ``stop``). Without an explicit ``seed`` the n-th run of a searcher uses
    ``derive_seed(seed, "run", n)``, and the result records the seed it used.

    Tree reuse (one worker): tell the searcher every action played since its
    last search with :meth:`advance` (``kwsearch.bots.play_game`` does this for
    bots that have ``observe``); the next :meth:`run` then starts from the
    subtree those actions lead to, with its statistics, and adds the new
    iterations to it. A tree is reused only for the position it leads to (the
    same observation), so running a searcher on an unrelated position starts
    afresh. Open-loop nodes are keyed on actions only, so the reused statistics
    also include determinizations that the cards revealed since then have ruled
    out; they fade as new iterations are added. With reuse the options' visits
    add up to ``iterations + reused_visits``, less one when the new root was a
    child of the old one (the visit that created it went to a playout). Root
    parallelism (``workers > 1``) never reuses.

        >>> from kwsearch.game import Game
        >>> state = Game(2).new_initial_state(seed=3)
        >>> s = Searcher(seed=1)
        >>> first = s.run(state, SearchLimits(iterations=500))
        >>> s.advance(first.best_action); state.apply(first.best_action)
        >>> s.run(state, SearchLimits(iterations=500)).reused_visits > 0
        True
    """

    def __init__(self, config: SearchConfig = SearchConfig(), seed: int = 0, *, reuse: bool = True,
                 account: bool = False):
        if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
            raise SearchError(f"Searcher.seed: expected an integer, got {seed!r}")
        if not isinstance(config, SearchConfig):
            raise SearchError(f"Searcher.config: expected a SearchConfig, got {config!r}")
        self.config = config
        self.seed = int(seed)
        self.reuse = reuse
        self.account = bool(account)  # count what the cards bring and the finishing places (kwsearch.outlook)
        self.calls = 0
        self.tree = None
        self._root = None  # the state the kept tree's root stands for, advanced by advance()
        self._path: list[int] = []  # the actions advance() recorded since the last search

    def reset(self) -> None:
        """Forget the tree and start the run count again (a new game)."""
        self.tree = None
        self._root = None
        self.calls = 0

    def advance(self, action: int) -> None:
        """Record an action played (by anyone) since the last search."""
        if self._root is None:
            return
        if self._root.is_terminal() or action not in self._root.legal_actions():
            self._root = None
            return
        self._root.apply(action)
        self._path.append(action)

    def _reused_tree(self, fast):
        """The subtree reached by the recorded actions (a new Tree), or None."""
        if (not self.reuse or self.tree is None or self._root is None or self.config.closed_loop
                or observation_key(self._root) != observation_key(fast)):
            return None  # closed-loop trees branch on reveals the recorded actions do not name
        node = 0
        for a in self._path:
            node = self.tree.child(node, a)
            if node < 0:
                return None
        return self.tree.extract(node)

    def search(self, state, limits: SearchLimits, seed: int | None = None) -> SearchResult:
        """:meth:`run` without progress or stop (kept for callers of the older name)."""
        return self.run(state, limits, seed=seed)

    def run(self, state, limits: SearchLimits, *, progress: Callable[[SearchResult], None] | None = None,
            stop=None, progress_interval: float = 0.25, seed: int | None = None) -> SearchResult:
        """Search ``state`` (either engine) for the seat to move.

        ``progress(result)`` gets a snapshot of the statistics every
        ``progress_interval`` wall seconds (``result.final`` is False); ``stop``
        (anything with ``is_set()``) or Ctrl-C ends the search within a slice,
        with what it has (``interrupted=True``). With an iteration limit, the
        same ``seed`` gives the same result, whether or not progress is asked for.
        """
        if not isinstance(limits, SearchLimits):
            raise SearchError(f"search limits: expected a SearchLimits, got {limits!r}")
        check_number("Searcher.run", "progress_interval", progress_interval, 0, 86400.0, lo_open=True)
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral)):
            raise SearchError(f"Searcher.run: seed: expected an integer, got {seed!r}")
        if state.is_terminal():
            raise SearchError("the game is over: there is nothing to decide")
        seed = derive_seed(self.seed, "run", self.calls) if seed is None else int(seed)
        self.calls += 1
        fast = convert(state, "fast")
        config = self.config.for_players(fast.game.num_players)
        config.evaluator(fast.game.num_players)  # a bad weights file fails here, before any worker starts
        config.prior_model(fast.game.num_players)
        if config.workers > 1:
            self.tree = self._root = None
            return _run_workers(fast, config, limits, seed, progress, stop, progress_interval, self.account)
        return self._run_here(fast, config, limits, seed, progress, stop, progress_interval)

    def _run_here(self, fast, config: SearchConfig, limits: SearchLimits, seed: int, progress, stop,
                  interval: float) -> SearchResult:
        from . import _search
        params = search_params(config, fast.game.num_players)
        tree = self._reused_tree(fast) or _search.Tree(config.max_nodes)
        tree.reset_root_avail()
        tree.accounting = self.account
        tree.reset_accounting()
        reused = tree.root_visits()
        rng = derive_seed(seed, "worker", 0)
        t0 = last = time.perf_counter()
        interrupted = False
        schedule, halving = _schedule(config, tree, fast, reused, limits.iterations, limits.seconds, t0, stop)

        def result(final: bool) -> SearchResult:
            return _make_result(fast, _tree_stats(tree, reused), seed=seed, config=config, limits=limits,
                                elapsed=time.perf_counter() - t0, interrupted=interrupted, reused=reused,
                                final=final, order=halving.order(tree) if halving is not None else None)

        def tick() -> None:
            nonlocal last
            if progress is not None and time.perf_counter() - last >= interval:
                progress(result(False))
                last = time.perf_counter()
        try:
            rng, interrupted = _drive(tree, fast, params, schedule, rng, tick)
        except KeyboardInterrupt:
            interrupted = True  # the tree is whole: the C loop is never cut inside an iteration
        self.tree = tree
        self._root, self._path = fast.copy(), []
        return result(True)


def search(state, limits: SearchLimits = SearchLimits(iterations=1000), config: SearchConfig = SearchConfig(),
           seed: int = 0, *, progress: Callable[[SearchResult], None] | None = None, stop=None,
           progress_interval: float = 0.25, account: bool = False) -> SearchResult:
    """Search ``state`` once with ``seed`` (see :class:`Searcher` and the module docstring).

    The same seed, settings and iteration limit give the same result, with one
    worker or several (the workers' seeds and shares are derived from them).
    """
    return Searcher(config, seed, reuse=False, account=account).run(
        state, limits, progress=progress, stop=stop, progress_interval=progress_interval, seed=seed)


def determinized(state, seed: int):
    """A fast-engine copy of ``state`` with its hidden information redrawn from ``seed``
    (what one search iteration samples; the ``pimc`` bot searches such worlds)."""
    from . import _search
    return _search.determinized(convert(state, "fast"), seed & MASK64)


# ---------------------------------------------------------------------------
# Root parallelism
# ---------------------------------------------------------------------------


class _Orphaned(Exception):
    """A worker's parent is gone (raised between slices, so the worker stops)."""


def _worker_main(index: int, obj: dict, config: SearchConfig, rng: int, iterations: int | None,
                 seconds: float | None, stop, conn, report_every: float, parent: int, account: bool = False) -> None:
    """One root-parallel worker: search in slices, send ("stats", summary) every ``report_every``
    seconds (0: never) and ("final", summary) at the end, or ("error", message)."""
    # Ctrl-C in a terminal reaches the whole process group; the parent decides (it sets ``stop``).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    from .worker_procs import die_with_parent
    die_with_parent(parent)  # SIGTERM when the parent dies, even by SIGKILL, mid-slice
    try:
        from . import _search
        from .engine import state_from_json
        fast_module()
        state = state_from_json(obj, engine="fast")
        tree = _search.Tree(config.max_nodes)
        tree.accounting = account
        params = search_params(config, state.game.num_players)
        t0 = last = time.perf_counter()

        def tick() -> None:
            nonlocal last
            if os.getppid() != parent:
                raise _Orphaned
            if report_every and time.perf_counter() - last >= report_every:
                conn.send(("stats", _tree_stats(tree)))
                last = time.perf_counter()
        schedule, _ = _schedule(config, tree, state, 0, iterations, seconds, t0, stop)
        _drive(tree, state, params, schedule, rng, tick)
        conn.send(("final", _tree_stats(tree)))
    except _Orphaned:
        return  # the parent is gone: nobody wants the result
    except Exception as exc:  # reported to the parent, which raises it as a SearchError
        try:
            conn.send(("error", f"search worker {index}: {type(exc).__name__}: {exc}"))
        except OSError:
            pass
    finally:
        conn.close()


def _run_workers(fast, config: SearchConfig, limits: SearchLimits, seed: int, progress, stop,
                 interval: float, account: bool = False) -> SearchResult:
    import multiprocessing as mp
    from multiprocessing.connection import wait

    from . import _search  # noqa: F401  (imported before the fork, so a worker has it at hand)
    from .engine import state_from_json  # noqa: F401

    ctx = mp.get_context()
    workers = config.workers
    obj = fast.to_json()
    halt = ctx.Event()
    procs: list = []
    conns: list = []
    latest: list[dict | None] = [None] * workers
    pending: set[int] = set()
    interrupted = False
    t0 = last = time.perf_counter()

    def receive(timeout: float) -> None:
        for c in wait([conns[i] for i in sorted(pending)], timeout=timeout):
            i = conns.index(c)
            try:
                kind, payload = c.recv()
            except (EOFError, OSError):
                procs[i].join(1)
                raise SearchError(f"search worker {i} ended without its result "
                                  f"(exit code {procs[i].exitcode})") from None
            if kind == "error":
                raise SearchError(payload)
            latest[i] = payload
            if kind == "final":
                pending.discard(i)

    def merged(final: bool) -> SearchResult:
        parts = [p for p in latest if p is not None]
        stats = _merge(parts) if parts else {"root": {}, "avail": {}, "paths": {}, "iterations": 0, "nodes": 0,
                                            "pool_full": False}
        return _make_result(fast, stats, seed=seed, config=config, limits=limits,
                            elapsed=time.perf_counter() - t0, interrupted=interrupted, final=final)

    try:
        try:
            # Workers start with SIGINT blocked and ignore it from then on: a Ctrl-C while they
            # start must not kill one before it can report.
            mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
            try:
                for i, budget in enumerate(split_iterations(limits.iterations, workers)):
                    recv, send = ctx.Pipe(duplex=False)
                    p = ctx.Process(target=_worker_main, name=f"kwsearch-search-{i}",
                                    args=(i, obj, config, derive_seed(seed, "worker", i), budget, limits.seconds,
                                          halt, send, interval if progress is not None else 0.0, os.getpid(),
                                          account))
                    p.start()
                    send.close()
                    procs.append(p)
                    conns.append(recv)
                    pending.add(i)
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)
            while pending:
                if stop is not None and stop.is_set() and not halt.is_set():
                    halt.set()
                    interrupted = True
                receive(SLICE_SECONDS)
                if (progress is not None and pending and any(p is not None for p in latest)
                        and time.perf_counter() - last >= interval):
                    progress(merged(False))
                    last = time.perf_counter()
        except KeyboardInterrupt:
            interrupted = True
            halt.set()
            deadline = time.perf_counter() + 10.0
            while pending and time.perf_counter() < deadline:
                receive(SLICE_SECONDS)
            if pending:
                raise SearchError(f"search workers {sorted(pending)} did not stop within 10 s") from None
        return merged(True)
    finally:
        halt.set()
        for p in procs:
            p.join(2.0)
            if p.is_alive():
                p.terminate()
                p.join(1.0)
        for c in conns:
            c.close()
