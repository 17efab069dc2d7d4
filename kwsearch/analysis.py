"""Move hints for a position: the search wrapped for people (``kwsearch suggest``).

:func:`analyse` searches a position in slices, reporting progress after each
slice and stopping early on Ctrl-C with what it has; it returns an
:class:`Analysis` whose candidates are *whole-turn plans* when the mover has
several decisions left in the turn (the option, then the most visited
continuation while the same seat decides). :func:`analysis_json` gives the
``kwsearch-analysis/1`` object documented in ``docs/formats.md`` (modelled on
KataGo's analysis responses: ``rootInfo`` and ``moveInfos``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable

from .engine import convert
from .search import SearchConfig, SearchLimits, SearchResult, _children_stats, _pv, _result, _SEED_MASK, search

ANALYSIS_FORMAT = "kwsearch-analysis/1"


@dataclass(frozen=True)
class Candidate:
    order: int
    action: int
    text: str
    plan: tuple[str, ...]          # this option and the mover's most visited follow-ups this turn
    visits: int
    share: float
    avail: float                   # fraction of iterations in which it was legal
    win_prob: float
    money: float                   # the mover's expected final money
    money_sd: float
    money_all: tuple[float, ...]   # every seat's expected final money
    pv: tuple[str, ...]


@dataclass(frozen=True)
class Analysis:
    result: SearchResult
    candidates: tuple[Candidate, ...]
    interrupted: bool


def _plan(tree, node: int, mover: int, state, first: int) -> list[str]:
    """Texts of ``first`` and the most visited continuation of the mover's turn."""
    walk = state.copy()
    walk.apply(first)
    texts = [state.action_to_text(first)]
    while (not walk.is_terminal() and walk.current_player() == mover and walk.pending() != "turn"
           and len(texts) < 16):  # the rest of this turn
        kids = [k for k in tree.children(node) if k[2] > 0]
        if not kids:
            break
        action, _, visits, _, _, _, _, child, _ = max(kids, key=lambda k: (k[2], -k[0]))
        if action < 0:  # closed loop: the most visited reveal
            node = child
            continue
        if action not in walk.legal_actions():
            break
        texts.append(walk.action_to_text(action))
        walk.apply(action)
        node = child
    return texts


def analyse(state, limits: SearchLimits, config: SearchConfig = SearchConfig(), seed: int = 0, top: int = 5,
            progress: Callable[[int, float, str], None] | None = None, slice_seconds: float = 0.25,
            slice_iterations: int = 5000) -> Analysis:
    """Search ``state`` and describe its best options.

    With one worker the search runs in slices (``slice_iterations`` under an
    iteration limit, so the result depends only on the seed and the settings;
    ``slice_seconds`` under a time limit);
    ``progress(iterations, iterations_per_second, best_text)`` is called after
    each, and Ctrl-C (KeyboardInterrupt) ends the search early with the
    statistics gathered so far. With several workers it runs in one piece.
    """
    from . import _search
    if state.is_terminal():
        raise ValueError("the game is over: there is nothing to suggest")
    fast = convert(state, "fast")
    config = config.for_players(fast.game.num_players)
    mover = fast.current_player()
    interrupted = False
    if config.workers > 1:
        try:
            result = search(fast, limits, config, seed)
        except KeyboardInterrupt:
            raise ValueError("interrupted before the workers finished; use --workers 1 for an early stop") from None
        tree = None
    else:
        tree = _search.Tree(config.max_nodes)
        done, elapsed = 0, 0.0
        rng_seed = seed & _SEED_MASK
        t0 = time.perf_counter()
        try:
            while True:
                left_iters = (limits.iterations - done) if limits.iterations else 0
                left_secs = (limits.seconds - elapsed) if limits.seconds else 0.0
                if (limits.iterations and left_iters <= 0) or (limits.seconds and left_secs <= 0):
                    break
                # Iteration limits slice by iterations (reproducible from the seed); time limits by time.
                iters = min(left_iters, slice_iterations) if limits.iterations else 0
                secs = min(slice_seconds, left_secs) if limits.seconds else 0.0
                n, _ = _search.run_search(tree, fast, iters, secs, config.c_uct, config.money_weight,
                                          config.determinize, rng_seed, config.closed_loop, config.rollout)
                done += n
                elapsed = time.perf_counter() - t0
                rng_seed = (rng_seed * 6364136223846793005 + 1442695040888963407) & _SEED_MASK
                if progress is not None:
                    stats = _children_stats(tree)
                    best = max(stats.items(), key=lambda kv: (kv[1][1], -kv[0]))[0] if stats else None
                    progress(done, done / elapsed if elapsed else 0.0,
                             fast.action_to_text(best) if best is not None else "")
                if n == 0:
                    break  # the node pool is full
        except KeyboardInterrupt:
            interrupted = True
        elapsed = time.perf_counter() - t0
        result = _result(fast, _children_stats(tree), _pv(tree, fast, mover), done, elapsed, tree.size,
                         seed, config, limits)
    total = max(1, sum(a.visits for a in result.actions))
    cands = []
    for i, a in enumerate(result.actions[:max(1, top)]):
        if tree is not None:
            node = tree.child(0, a.action)
            plan = _plan(tree, node, mover, fast, a.action) if node >= 0 else [a.text]
        else:
            plan = list(result.pv) if a.action == result.best_action else [a.text]
        pv = tuple(result.pv) if a.action == result.best_action else tuple(plan)
        cands.append(Candidate(i, a.action, a.text, tuple(plan), a.visits, a.visits / total,
                               a.avail / max(1, result.iterations), a.win_prob, a.mean_money[mover],
                               a.money_sd, a.mean_money, pv))
    return Analysis(result, tuple(cands), interrupted)


def analysis_json(an: Analysis, source: str | None = None, ply: int | None = None) -> dict[str, Any]:
    """The ``kwsearch-analysis/1`` object (see docs/formats.md)."""
    r = an.result
    best = an.candidates[0]
    return {
        "format": ANALYSIS_FORMAT,
        "id": source,
        "ply": ply,
        "interrupted": an.interrupted,
        "rootInfo": {
            "currentPlayer": r.mover,
            "visits": r.iterations,
            "winrate": best.win_prob,
            "money": best.money,
            "moneyAll": list(best.money_all),
            "iterations": r.iterations,
            "iterationsPerSecond": r.iterations_per_second,
            "elapsed": r.elapsed,
            "seed": r.seed,
            "nodes": r.nodes,
            "config": {"c_uct": r.config.c_uct, "money_weight": r.config.money_weight,
                       "workers": r.config.workers, "closed_loop": r.config.closed_loop},
        },
        "moveInfos": [{
            "move": c.text,
            "action": c.action,
            "order": c.order,
            "visits": c.visits,
            "share": c.share,
            "availability": c.avail,
            "winrate": c.win_prob,
            "money": c.money,
            "moneyStdev": c.money_sd,
            "moneyAll": list(c.money_all),
            "plan": list(c.plan),
            "pv": list(c.pv),
        } for c in an.candidates],
    }


def plan_text(state, plan: tuple[str, ...] | list[str]) -> str:
    """A whole-turn plan in one line, e.g. ``tile 8 (body+engine): do body, give up engine 1;
    market body@3 engine@2 workers 2 price 9 +maybach2``."""
    if not plan:
        return ""
    head = plan[0]
    parts = head.split()
    if len(parts) == 2 and parts[0] == "tile" and parts[1].isdigit():
        tiles = state.game.components.action_tiles
        if int(parts[1]) < len(tiles):
            head = f"{head} ({'+'.join(tiles[int(parts[1])].actions)})"
    groups: list[str] = []
    inner: list[str] = []
    market: list[str] = []
    for t in plan[1:]:
        if t.startswith("market "):
            market.append(t[len("market "):])
        else:
            if market:
                groups.append("market " + " ".join(market))
                market = []
            (inner if not groups else groups).append(t)
    if market:
        groups.append("market " + " ".join(market))
    out = head + (": " + ", ".join(inner) if inner else "")
    return "; ".join([out] + groups)
