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
   reward), and ``c`` is ``SearchConfig.c_uct`` (by default 0.7 with two players, 0.4 with
   three or four: ``DEFAULT_C_UCT``).
3. **plays out** the rest of the game at C level with the cheap *tempo* policy
   (``SearchConfig.rollout = "tempo"``, ``k_playout_tempo``): at a turn, three
   times in four the seat takes one of the tiles that let the fewest other
   workers past it, and at the market step it offers a car seven times in eight
   when it can; a new engine not higher than the GP car's goes into the car only
   when it is equal and the workshops are full; every other decision is uniformly
   random. ``rollout="random"``
   plays uniformly random legal actions (``k_playout``). The policy is the
   default because it measured stronger (bench/RESULTS.md, docs/design.md);
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

The final choice is the most visited root action. The iteration loop, the node
pool (``kwsearch._search.Tree``, a preallocated array grown by doubling) and the
playouts run in Cython without the GIL and without Python objects.

    >>> from kwsearch.rules import Game
    >>> from kwsearch.search import search, SearchLimits
    >>> result = search(Game(2).new_initial_state(seed=1), SearchLimits(iterations=2000), seed=1)
    >>> result.best_text in [a.text for a in result.actions]
    True
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

from .engine import convert, fast_module

_SEED_MASK = (1 << 64) - 1


@dataclass(frozen=True)
class SearchLimits:
    """When to stop: after ``iterations`` or ``seconds`` (whichever comes first)."""

    iterations: int | None = None
    seconds: float | None = None

    def __post_init__(self) -> None:
        if self.iterations is None and self.seconds is None:
            raise ValueError("SearchLimits: give iterations or seconds (or both)")
        if self.iterations is not None and (isinstance(self.iterations, bool) or int(self.iterations) < 1):
            raise ValueError(f"SearchLimits.iterations: expected a positive integer, got {self.iterations!r}")
        if self.seconds is not None and not float(self.seconds) > 0:
            raise ValueError(f"SearchLimits.seconds: expected a positive number, got {self.seconds!r}")


#: Defaults of ``c_uct`` and ``money_weight`` by player count, chosen by matches (docs/design.md):
#: with two players the plain win-share reward and c = 0.7; with three and four, where a seat's win
#: share is mostly 0 in random playouts, a lower exploration constant and half the reward from the
#: money margin.
DEFAULT_C_UCT = {2: 0.7, 3: 0.4, 4: 0.4}
DEFAULT_MONEY_WEIGHT = {2: 0.0, 3: 0.5, 4: 0.5}


@dataclass(frozen=True)
class SearchConfig:
    """Search settings. ``determinize=False`` searches the true deck order (the ``cheat`` bot).

    ``c_uct`` and ``money_weight`` left at ``None`` take the defaults for the game's
    player count (``DEFAULT_C_UCT``, ``DEFAULT_MONEY_WEIGHT``); the result of a search
    carries the values used (:meth:`for_players`).
    """

    c_uct: float | None = None
    money_weight: float | None = None
    determinize: bool = True
    workers: int = 1
    max_nodes: int = 4_000_000
    closed_loop: bool = False  # branch on the research cards revealed (see the module docstring)
    rollout: str = "tempo"     # playout policy: "tempo" or "random" (see the module docstring)

    def __post_init__(self) -> None:
        if self.c_uct is not None and not self.c_uct >= 0:
            raise ValueError(f"SearchConfig.c_uct: expected a number >= 0, got {self.c_uct!r}")
        if self.money_weight is not None and not 0 <= self.money_weight <= 1:
            raise ValueError(f"SearchConfig.money_weight: expected 0..1, got {self.money_weight!r}")
        if self.rollout not in ("random", "tempo"):
            raise ValueError(f"SearchConfig.rollout: expected random or tempo, got {self.rollout!r}")
        if isinstance(self.workers, bool) or int(self.workers) < 1:
            raise ValueError(f"SearchConfig.workers: expected a positive integer, got {self.workers!r}")

    def for_players(self, n: int) -> "SearchConfig":
        """This configuration with the player-count defaults filled in."""
        if self.c_uct is not None and self.money_weight is not None:
            return self
        return replace(self, c_uct=DEFAULT_C_UCT[n] if self.c_uct is None else self.c_uct,
                       money_weight=DEFAULT_MONEY_WEIGHT[n] if self.money_weight is None else self.money_weight)


@dataclass(frozen=True)
class ActionInfo:
    """Root statistics of one option."""

    action: int
    text: str
    visits: int
    avail: int           # iterations in which the option was legal
    share: float         # visits / all root visits
    win_prob: float      # mean win share of the mover after this option
    mean_reward: tuple[float, ...]  # per seat
    mean_money: tuple[float, ...]   # per seat
    money_sd: float = 0.0           # standard deviation of the mover's final money


@dataclass(frozen=True)
class SearchResult:
    mover: int
    best_action: int
    best_text: str
    actions: tuple[ActionInfo, ...]   # most visited first
    pv: tuple[str, ...]               # principal variation (text), at least the mover's turn
    pv_actions: tuple[int, ...]
    iterations: int
    elapsed: float
    seed: int
    config: SearchConfig
    limits: SearchLimits
    nodes: int = 0
    node_bytes: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def reused_visits(self) -> int:
        """Root visits carried over from an earlier search (tree reuse), else 0."""
        return self.extra.get("reused_visits", 0)

    @property
    def iterations_per_second(self) -> float:
        return self.iterations / self.elapsed if self.elapsed > 0 else 0.0


def _children_stats(tree, node: int = 0) -> dict[int, list]:
    """{action: [player, visits, avail, win, reward[4], money[4], money_sq]} of a node's children."""
    out = {}
    for action, player, visits, avail, win, reward, money, _, money_sq in tree.children(node):
        out[action] = [player, visits, avail, win, list(reward), list(money), money_sq]
    return out


def _pv(tree, state, mover: int) -> list[int]:
    """Most-visited path: the mover's decisions of this turn, then a few more well-visited plies."""
    pv, node, extra = [], 0, 0
    while len(pv) < 40:
        kids = tree.children(node)
        if not kids:
            break
        action, player, visits, child = max(((k[0], k[1], k[2], k[7]) for k in kids), key=lambda k: (k[2], -k[0]))
        if visits < 2:
            break
        if action < 0:  # a chance-outcome node (closed loop): the most visited reveal
            node = child
            continue
        if player != mover:
            extra += 1
            if extra > 4:
                break
        pv.append(action)
        node = child
    return pv


def _merge(stats: list[dict[int, list]]) -> dict[int, list]:
    merged: dict[int, list] = {}
    for st in stats:
        for a, (player, visits, avail, win, reward, money, money_sq) in st.items():
            m = merged.setdefault(a, [player, 0, 0, 0.0, [0.0] * 4, [0.0] * 4, 0.0])
            m[1] += visits
            m[2] += avail
            m[3] += win
            m[4] = [x + y for x, y in zip(m[4], reward)]
            m[5] = [x + y for x, y in zip(m[5], money)]
            m[6] += money_sq
    return merged


def _worker(args) -> tuple[dict[int, list], list[int], int, float, int]:
    obj, limits, config, seed = args
    from .engine import state_from_json
    state = state_from_json(obj, engine="fast")
    fast_module()
    from . import _search
    tree = _search.Tree(config.max_nodes)
    done, elapsed = _search.run_search(tree, state, limits.iterations or 0, limits.seconds or 0.0,
                                       config.c_uct, config.money_weight, config.determinize, seed & _SEED_MASK,
                                       config.closed_loop, config.rollout)
    return _children_stats(tree), _pv(tree, state, state.current_player()), done, elapsed, tree.size


def _result(state, stats: dict[int, list], pv: list[int], done: int, elapsed: float, nodes: int,
            seed: int, config: SearchConfig, limits: SearchLimits) -> SearchResult:
    from . import _search
    n = state.game.num_players
    mover = state.current_player()
    total = sum(v[1] for v in stats.values()) or 1
    infos = []
    for a, (player, visits, avail, win, reward, money, money_sq) in stats.items():
        v = max(visits, 1)
        mean = money[player] / v if 0 <= player < n else 0.0
        sd = max(0.0, money_sq / v - mean * mean) ** 0.5
        infos.append(ActionInfo(a, state.action_to_text(a), visits, avail, visits / total, win / v,
                                tuple(r / v for r in reward[:n]), tuple(m / v for m in money[:n]), sd))
    infos.sort(key=lambda i: (-i.visits, i.action))
    if not infos:  # no iteration ran (e.g. a tiny time limit): fall back to the first legal option
        a = state.legal_actions()[0]
        infos = [ActionInfo(a, state.action_to_text(a), 0, 0, 0.0, 0.0, (0.0,) * n, (0.0,) * n, 0.0)]
    best = infos[0]
    if not pv or pv[0] != best.action:
        pv = [best.action]
    texts, walk = [], state.copy()
    for a in pv:  # the PV's texts, checked against the real state as far as it is legal
        if a not in walk.legal_actions():
            break
        texts.append(walk.action_to_text(a))
        walk.apply(a)
    return SearchResult(mover, best.action, best.text, tuple(infos), tuple(texts), tuple(pv[:len(texts)]),
                        done, elapsed, seed, config, limits, nodes, _search.Tree.node_bytes())


def search(state, limits: SearchLimits = SearchLimits(iterations=1000), config: SearchConfig = SearchConfig(),
           seed: int = 0) -> SearchResult:
    """Search ``state`` (either engine) for the seat to move; see the module docstring.

    With ``config.workers = N > 1`` runs N root-parallel searches in processes
    (each with the full limits, seeds ``seed + i``) and sums their root statistics.
    With one worker the same seed and an iteration limit give the same result.
    """
    if state.is_terminal():
        raise ValueError("search: the game is over, there is nothing to decide")
    fast = convert(state, "fast")
    config = config.for_players(fast.game.num_players)
    if config.workers <= 1:
        from . import _search
        tree = _search.Tree(config.max_nodes)
        done, elapsed = _search.run_search(tree, fast, limits.iterations or 0, limits.seconds or 0.0,
                                           config.c_uct, config.money_weight, config.determinize,
                                           seed & _SEED_MASK, config.closed_loop, config.rollout)
        return _result(fast, _children_stats(tree), _pv(tree, fast, fast.current_player()), done, elapsed,
                       tree.size, seed, config, limits)
    obj = fast.to_json()
    jobs = [(obj, limits, config, seed + i) for i in range(config.workers)]
    with ProcessPoolExecutor(max_workers=config.workers) as pool:
        outs = list(pool.map(_worker, jobs))
    stats = _merge([o[0] for o in outs])
    best = max(stats.items(), key=lambda kv: (kv[1][1], -kv[0]))[0] if stats else None
    pv = next((o[1] for o in outs if o[1] and o[1][0] == best), [best] if best is not None else [])
    return _result(fast, stats, pv, sum(o[2] for o in outs), max(o[3] for o in outs), sum(o[4] for o in outs),
                   seed, config, limits)


class Searcher:
    """A search that keeps its tree between decisions (tree reuse).

    Tell it every action played since its last search with :meth:`advance`
    (``kwsearch.bots.play_game`` does this for bots that have ``observe``); the
    next :meth:`search` then starts from the subtree those actions lead to, with
    its statistics, and adds the new iterations to it. Open-loop nodes are keyed
    on actions only, so the reused statistics also include determinizations that
    the cards revealed since then have ruled out; they fade as new iterations are
    added. Root parallelism (``workers > 1``) searches without reuse.

        >>> from kwsearch.rules import Game
        >>> state = Game(2).new_initial_state(seed=3)
        >>> s = Searcher(seed=1)
        >>> first = s.search(state, SearchLimits(iterations=500))
        >>> s.advance(first.best_action); state.apply(first.best_action)
        >>> s.search(state, SearchLimits(iterations=500)).reused_visits > 0
        True
    """

    def __init__(self, config: SearchConfig = SearchConfig(), seed: int = 0):
        self.config = config
        self.seed = seed
        self.calls = 0
        self.tree = None
        self.path: list[int] | None = None

    def reset(self) -> None:
        self.tree = None
        self.path = None
        self.calls = 0

    def advance(self, action: int) -> None:
        """Record an action played (by anyone) since the last search."""
        if self.path is not None:
            self.path.append(action)

    def _reused_tree(self):
        """The subtree reached by the recorded actions (a new Tree), or None."""
        if self.tree is None or self.path is None or self.config.closed_loop:
            return None  # closed-loop trees branch on reveals the recorded actions do not name
        node = 0
        for a in self.path:
            node = self.tree.child(node, a)
            if node < 0:
                return None
        return self.tree.extract(node)

    def search(self, state, limits: SearchLimits, seed: int | None = None):
        if state.is_terminal():
            raise ValueError("search: the game is over, there is nothing to decide")
        seed = self.seed * 1_000_003 + self.calls if seed is None else seed
        self.calls += 1
        if self.config.workers > 1:
            res = search(state, limits, self.config, seed)
            self.tree, self.path = None, None
            return res
        from . import _search
        fast = convert(state, "fast")
        config = self.config.for_players(fast.game.num_players)
        tree = self._reused_tree() or _search.Tree(config.max_nodes)
        reused = tree.root_visits()
        done, elapsed = _search.run_search(tree, fast, limits.iterations or 0, limits.seconds or 0.0,
                                           config.c_uct, config.money_weight, config.determinize,
                                           seed & _SEED_MASK, config.closed_loop, config.rollout)
        self.tree, self.path = tree, []
        res = _result(fast, _children_stats(tree), _pv(tree, fast, fast.current_player()), done, elapsed,
                      tree.size, seed, config, limits)
        res.extra["reused_visits"] = reused
        return res


def default_workers() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))
