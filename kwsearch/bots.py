"""Bots: one protocol, built from spec strings.

    >>> from kwsearch.bots import from_spec
    >>> bot = from_spec("ismcts:iterations=2000", seed=1)
    >>> from kwsearch.rules import Game
    >>> state = Game(2).new_initial_state(seed=4)
    >>> bot.step(state) in state.legal_actions()
    True

Spec strings (used by the CLI's ``--seats`` and ``--bots``):

==========================================  ==========================================================
``random``                                  uniformly random legal actions
``heuristic``                               the hand-written greedy player (:mod:`kwsearch.heuristic`)
``ismcts:iterations=N`` / ``seconds=S``     information-set MCTS (:mod:`kwsearch.search`); also
                                            ``c=`` and ``money=`` (money weight; both by default
                                            by player count, ``search.DEFAULT_C_UCT``), ``workers=1``,
                                            ``reuse=1`` (keep the subtree between decisions),
                                            ``loop=open`` (or ``closed``: branch on reveals),
                                            ``rollout=tempo`` (a cheap playout policy; or ``random``)
``pimc:worlds=K,iterations=N``              determinized UCT: K sampled decks, a UCT search of N/K
                                            iterations on each, the worlds vote (ties: total visits)
``cheat:iterations=N``                      UCT that sees the true deck order (to measure what hidden
                                            information costs; not a fair player)
``openspiel-ismcts:iterations=N``           OpenSpiel's ISMCTS with random rollouts on the OpenSpiel
                                            game (:mod:`kwsearch.openspiel`); also ``seconds=S``,
                                            ``c=0.7``. Needs ``pip install "kwsearch[openspiel]"``
``openspiel-mcts:iterations=N``             OpenSpiel's C++ MCTS with random rollouts (the same options)
==========================================  ==========================================================
"""

from __future__ import annotations

import random
from typing import Callable, Protocol

from .engine import convert
from .search import SearchConfig, SearchLimits, search


class Bot(Protocol):
    """A player: ``step(state)`` returns one of ``state.legal_actions()``; ``restart()``
    forgets everything about the previous game."""

    def step(self, state) -> int: ...

    def restart(self) -> None: ...


class RandomBot:
    """Uniformly random legal actions, from its own seeded generator."""

    def __init__(self, seed: int = 0):
        self.seed = seed
        self.rng = random.Random(seed)

    def step(self, state) -> int:
        return self.rng.choice(state.legal_actions())

    def restart(self) -> None:
        self.rng = random.Random(self.seed)


class SearchBot:
    """ISMCTS (``determinize=True``) or cheating UCT (``determinize=False``), with tree reuse.

    Each decision gets the seed ``seed * 1000003 + number of searches so far``, so a
    game is reproducible from the bot's seed. ``observe(action)`` (called by
    :func:`play_game` after every action) lets the next search reuse the subtree.
    """

    def __init__(self, limits: SearchLimits, config: SearchConfig, seed: int = 0, reuse: bool = True):
        from .search import Searcher
        self.limits, self.config, self.seed, self.reuse = limits, config, seed, reuse
        self.searcher = Searcher(config, seed)
        self.last = None

    def step(self, state) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        if not self.reuse:
            self.searcher.tree = None
        self.last = self.searcher.search(state, self.limits)
        return self.last.best_action

    def observe(self, action: int) -> None:
        self.searcher.advance(action)

    def restart(self) -> None:
        self.searcher.reset()
        self.last = None


class PIMCBot:
    """Perfect-information Monte Carlo: K determinized worlds, a UCT search on each, a vote."""

    def __init__(self, worlds: int, limits: SearchLimits, config: SearchConfig, seed: int = 0):
        self.worlds, self.limits, self.config, self.seed = worlds, limits, config, seed
        self.calls = 0

    def step(self, state) -> int:
        from . import _search
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        fast = convert(state, "fast")
        base = self.seed * 1_000_003 + self.calls
        self.calls += 1
        per_world = SearchLimits(
            iterations=max(1, (self.limits.iterations or 0) // self.worlds) if self.limits.iterations else None,
            seconds=(self.limits.seconds / self.worlds) if self.limits.seconds else None)
        uct = SearchConfig(c_uct=self.config.c_uct, money_weight=self.config.money_weight, determinize=False,
                           max_nodes=self.config.max_nodes, rollout=self.config.rollout)
        votes: dict[int, int] = {}
        visits: dict[int, int] = {}
        for k in range(self.worlds):
            world = _search.determinized(fast, (base * 7919 + k) & ((1 << 64) - 1))
            res = search(world, per_world, uct, seed=base * 31 + k)
            votes[res.best_action] = votes.get(res.best_action, 0) + 1
            for info in res.actions:
                visits[info.action] = visits.get(info.action, 0) + info.visits
        return max(legal, key=lambda a: (votes.get(a, 0), visits.get(a, 0), -a))

    def restart(self) -> None:
        self.calls = 0


def _heuristic(seed: int):
    from .heuristic import HeuristicBot
    return HeuristicBot(seed=seed)


_KEYS = {
    "random": set(),
    "heuristic": set(),
    "ismcts": {"iterations", "seconds", "c", "money", "workers", "reuse", "loop", "rollout"},
    "cheat": {"iterations", "seconds", "c", "money", "workers", "reuse", "rollout"},
    "pimc": {"worlds", "iterations", "seconds", "c", "money", "rollout"},
    "openspiel-ismcts": {"iterations", "seconds", "c"},
    "openspiel-mcts": {"iterations", "seconds", "c"},
}


def _openspiel(spec: str, name: str, params: dict[str, str], seed: int):
    try:
        from .openspiel import OpenSpielBot
    except ImportError:
        raise ValueError(f'bot spec {spec!r}: needs OpenSpiel, which is not installed: '
                         f'pip install "kwsearch[openspiel]"') from None
    iterations = _number(spec, params, "iterations", int)
    seconds = _number(spec, params, "seconds", float)
    if iterations is None and seconds is None:
        iterations = 1000
    return OpenSpielBot(name.partition("-")[2], iterations=iterations, seconds=seconds,
                        c=_number(spec, params, "c", float, 0.7), seed=seed)


def _parse(spec: str) -> tuple[str, dict[str, str]]:
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"bot spec: expected e.g. 'ismcts:iterations=10000', got {spec!r}")
    name, _, rest = spec.strip().partition(":")
    name = name.strip().lower()
    if name not in _KEYS:
        raise ValueError(f"bot spec {spec!r}: unknown bot {name!r} (expected one of {', '.join(_KEYS)})")
    params: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = part.partition("=")
        key = key.strip().lower()
        if not eq or not value.strip():
            raise ValueError(f"bot spec {spec!r}: expected key=value, got {part!r}")
        if key not in _KEYS[name]:
            allowed = ", ".join(sorted(_KEYS[name])) or "none"
            raise ValueError(f"bot spec {spec!r}: unknown option {key!r} for {name} (allowed: {allowed})")
        params[key] = value.strip()
    return name, params


def _number(spec: str, params: dict[str, str], key: str, kind: Callable, default=None):
    if key not in params:
        return default
    try:
        value = kind(params[key])
    except ValueError:
        raise ValueError(f"bot spec {spec!r}: {key} expects a {kind.__name__}, got {params[key]!r}") from None
    if value < 0 or (kind is int and value == 0 and key != "money"):
        raise ValueError(f"bot spec {spec!r}: {key} must be positive, got {params[key]!r}")
    return value


def from_spec(spec: str, seed: int = 0):
    """A bot from its spec string (see the module docstring); ``ValueError`` names what is wrong."""
    name, params = _parse(spec)
    if name == "random":
        return RandomBot(seed)
    if name == "heuristic":
        return _heuristic(seed)
    if name.startswith("openspiel-"):
        return _openspiel(spec, name, params, seed)
    iterations = _number(spec, params, "iterations", int)
    seconds = _number(spec, params, "seconds", float)
    if iterations is None and seconds is None:
        iterations = 10_000
    try:
        limits = SearchLimits(iterations=iterations, seconds=seconds)
        loop = params.get("loop", "open")
        if loop not in ("open", "closed"):
            raise ValueError(f"loop expects open or closed, got {loop!r}")
        rollout = params.get("rollout", "tempo")
        if rollout not in ("random", "tempo"):
            raise ValueError(f"rollout expects random or tempo, got {rollout!r}")
        config = SearchConfig(c_uct=_number(spec, params, "c", float),  # None: the player-count default
                              money_weight=_number(spec, params, "money", float),
                              determinize=(name != "cheat"),
                              workers=_number(spec, params, "workers", int, 1),
                              closed_loop=(loop == "closed"), rollout=rollout)
    except ValueError as exc:
        raise ValueError(f"bot spec {spec!r}: {exc}") from None
    if name == "pimc":
        worlds = _number(spec, params, "worlds", int, 20)
        return PIMCBot(worlds, limits, config, seed)
    reuse = params.get("reuse", "1")
    if reuse not in ("0", "1"):
        raise ValueError(f"bot spec {spec!r}: reuse expects 0 or 1, got {reuse!r}")
    return SearchBot(limits, config, seed, reuse=reuse == "1")


def play_game(state, bots: list, on_step: Callable | None = None):
    """Play ``state`` to the end with ``bots[seat]`` deciding for each seat; returns the final state.

    ``on_step(state, seat, action)`` is called before each action is applied;
    every bot with an ``observe(action)`` method is told each action after it is
    applied (tree reuse). The bots are restarted first.
    """
    unique = list({id(b): b for b in bots}.values())  # one bot may play several seats
    for bot in unique:
        bot.restart()
    observers = [b for b in unique if hasattr(b, "observe")]
    while not state.is_terminal():
        seat = state.current_player()
        action = bots[seat].step(state)
        if on_step is not None:
            on_step(state, seat, action)
        state.apply(action)
        for b in observers:
            b.observe(action)
    return state
