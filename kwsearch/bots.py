"""Bots: one protocol, built from spec strings.

A spec string is parsed once into a :class:`BotSpec`, a small frozen value that
checks every option (names, types, ranges, no key twice) without building a bot;
``spec.build(seed)`` makes the bot and ``str(spec)`` gives the spec back.
:func:`from_spec` does both in one call.

    >>> spec = BotSpec.parse("ismcts:iterations=2000")
    >>> spec.name, str(spec)
    ('ismcts', 'ismcts:iterations=2000')
    >>> from kwsearch.bots import from_spec
    >>> bot = from_spec("ismcts:iterations=2000", seed=1)
    >>> from kwsearch.game import Game
    >>> state = Game(2).new_initial_state(seed=4)
    >>> bot.step(state) in state.legal_actions()
    True

Spec strings (used by the CLI's ``--seats`` and ``--bots``):

==========================================  ==========================================================
``random``                                  uniformly random legal actions
``heuristic``                               the hand-written greedy player (:mod:`kwsearch.heuristic`)
``ismcts:iterations=N`` / ``seconds=S``     information-set MCTS (:mod:`kwsearch.search`) with the
                                            search settings' spec keys (``c=``, ``money=``, ``workers=``,
                                            ``loop=``, ``rollout=`` and its knobs, ``cutoff=``, ``eval=``,
                                            ``root=``, ``prior=``, ``pprior=``, ``priorw=``, ``copp=``:
                                            the table of :mod:`kwsearch.settings`, docs/settings.md), and
                                            ``reuse=1`` (keep the subtree between decisions)
``ismcts:level=K``                          a playing level, 1 (a beginner can win) to 6 (today's
                                            default search): a budget and a softmax move choice
                                            (:data:`LEVELS`); ``temp=T`` sets the softmax temperature
                                            (0: the most visited option); explicit ``iterations=``,
                                            ``seconds=``, ``temp=`` override the level's
``pimc:worlds=K,iterations=N``              determinized UCT: K sampled decks, a UCT search of N/K
                                            iterations on each, the worlds vote (ties: total visits)
``cheat:iterations=N``                      UCT that sees the true deck order (to measure what hidden
                                            information costs; not a fair player)
``openspiel-ismcts:iterations=N``           OpenSpiel's ISMCTS with random rollouts on the OpenSpiel
                                            game (:mod:`kwsearch.openspiel`); also ``seconds=S``,
                                            ``c=0.7``. Needs ``pip install ".[openspiel]"`` (in the clone)
``openspiel-mcts:iterations=N``             OpenSpiel's C++ MCTS with random rollouts (the same options)
==========================================  ==========================================================

Limits: ``iterations`` from 1 to 2^31 - 1 (what the search counts), ``seconds``
a finite number above 0 (at most a year), ``worlds`` from 1 to 100,000; the search settings' ranges
are in the table (``eval`` and ``priorw`` name files: their paths cannot hold ``,``). Every random
choice of a bot flows from its seed: the n-th search of a search bot uses
``derive_seed(seed, "run", n)`` (:mod:`kwsearch.seeds`).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace
from typing import Any, Callable, Protocol

from .errors import IllegalMoveError, KwsearchError
from .search import MAX_ITERATIONS, MAX_SECONDS, SearchConfig, SearchLimits, Searcher, determinized, search
from .seeds import derive_seed
from .settings import MAX_C_UCT, SEARCH_BOTS, Setting, config_kwargs, spec_keys


class BotSpecError(KwsearchError):
    """A bot spec that cannot be parsed or built; the message quotes the spec and says what is allowed."""


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


#: The playing levels of ``ismcts:level=K`` (docs/strength.md, "Levels"): K -> (iterations,
#: temperature). A level is a small search budget and a move chosen by a softmax over the root
#: options' mean rewards at that temperature (:func:`softmax_choice`): close options are confused
#: often, clearly worse ones rarely, as people err -- not random moves. Stronger levels search more and
#: choose more sharply; the top level is today's default search (10,000 iterations, the most visited
#: option). Given explicitly, ``iterations=``/``seconds=`` and ``temp=`` override the level's.
LEVELS: tuple[tuple[int, float], ...] = (
    (10, 0.08),      # 1
    (40, 0.05),      # 2
    (150, 0.03),     # 3
    (600, 0.015),    # 4
    (2_500, 0.01),   # 5
    (10_000, 0.0),   # 6: today's default search
)
#: The largest softmax temperature a spec accepts (rewards lie in [0, 1]: beyond it a choice is random).
MAX_TEMPERATURE = 100.0


def softmax_choice(result, temperature: float, rng: random.Random) -> int:
    """An option of a search's ``result`` drawn with probability proportional to
    ``exp(mean reward of the mover / temperature)`` over the visited options (0: the search's own
    choice, ``result.best_action``). ``rng`` draws it (the bot's seeded generator)."""
    options = [i for i in result.actions if i.visits > 0]
    if temperature <= 0 or len(options) < 2:
        return result.best_action
    mover = result.mover
    values = [i.mean_reward[mover] if 0 <= mover < len(i.mean_reward) else 0.0 for i in options]
    top = max(values)
    weights = [math.exp((v - top) / temperature) for v in values]
    return rng.choices([i.action for i in options], weights=weights)[0]


class SearchBot:
    """ISMCTS (``determinize=True``) or cheating UCT (``determinize=False``), with tree reuse.

    A :class:`kwsearch.search.Searcher` with the bot's seed: its n-th search uses
    ``derive_seed(seed, "run", n)``, so a game is reproducible from the bot's seed.
    ``observe(action)`` (called by :func:`play_game` after every action) lets the
    next search reuse the subtree. With a ``temperature`` above 0 the move is drawn by
    :func:`softmax_choice` from a generator seeded with ``derive_seed(seed, "choice")``.
    """

    def __init__(self, limits: SearchLimits, config: SearchConfig, seed: int = 0, reuse: bool = True,
                 temperature: float = 0.0):
        self.limits, self.config, self.seed, self.reuse = limits, config, seed, reuse
        self.temperature = temperature
        self.searcher = Searcher(config, seed, reuse=reuse)
        self.rng = random.Random(derive_seed(seed, "choice"))
        self.last = None

    def step(self, state) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        self.last = self.searcher.run(state, self.limits)
        return softmax_choice(self.last, self.temperature, self.rng) if self.temperature > 0 \
            else self.last.best_action

    def observe(self, action: int) -> None:
        self.searcher.advance(action)

    def restart(self) -> None:
        self.searcher.reset()
        self.rng = random.Random(derive_seed(self.seed, "choice"))
        self.last = None


class PIMCBot:
    """Perfect-information Monte Carlo: K determinized worlds, a UCT search on each, a vote.

    Decision n uses ``base = derive_seed(seed, "decision", n)``; world k is drawn
    with ``derive_seed(base, "world", k)`` and searched with ``derive_seed(base, "search", k)``.
    """

    def __init__(self, worlds: int, limits: SearchLimits, config: SearchConfig, seed: int = 0):
        self.worlds, self.limits, self.config, self.seed = worlds, limits, config, seed
        self.calls = 0

    def step(self, state) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        base = derive_seed(self.seed, "decision", self.calls)
        self.calls += 1
        per_world = SearchLimits(
            iterations=max(1, (self.limits.iterations or 0) // self.worlds) if self.limits.iterations else None,
            seconds=(self.limits.seconds / self.worlds) if self.limits.seconds else None)
        uct = replace(self.config, determinize=False, workers=1, closed_loop=False)
        votes: dict[int, int] = {}
        visits: dict[int, int] = {}
        for k in range(self.worlds):
            world = determinized(state, derive_seed(base, "world", k))
            res = search(world, per_world, uct, seed=derive_seed(base, "search", k))
            votes[res.best_action] = votes.get(res.best_action, 0) + 1
            for info in res.actions:
                visits[info.action] = visits.get(info.action, 0) + info.visits
        return max(legal, key=lambda a: (votes.get(a, 0), visits.get(a, 0), -a))

    def restart(self) -> None:
        self.calls = 0


# ---------------------------------------------------------------------------
# Bot specs
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Option:
    kind: str                      # "int", "float", "choice" or "text" (a path: any text without "," or "=")
    lo: float = 0
    hi: float = 0
    lo_open: bool = False
    choices: tuple[str, ...] = ()

    def parse(self, spec: str, key: str, text: str) -> Any:
        if self.kind == "text":
            return text
        if self.kind == "choice":
            if text not in self.choices:
                raise BotSpecError(f"bot spec {spec!r}: {key} expects {' or '.join(self.choices)}, got {text!r}")
            return text
        if self.kind == "int":
            digits = text[1:] if text[:1] in "+-" else text
            value = int(text) if digits.isdigit() and len(digits) <= 20 else None
            if value is None or not self.lo <= value <= self.hi:
                head = "must be positive:" if value is not None and value < self.lo == 1 else "expects"
                raise BotSpecError(f"bot spec {spec!r}: {key} {head} an integer from {self.lo:,} to {self.hi:,}, "
                                   f"got {text!r}")
            return value
        try:
            value = float(text) if len(text) <= 40 else math.nan
        except ValueError:
            value = math.nan
        low = f"greater than {_bound(self.lo)}" if self.lo_open else f"from {_bound(self.lo)}"
        if not (math.isfinite(value) and (value > self.lo if self.lo_open else value >= self.lo)
                and value <= self.hi):
            head = "must be positive:" if self.lo_open and self.lo == 0 and value <= 0 else "expects"
            raise BotSpecError(f"bot spec {spec!r}: {key} {head} a finite number {low} to {_bound(self.hi)}, "
                               f"got {text!r}")
        return value


def _spec_option(setting: Setting, knob=None) -> _Option:
    """A search setting's spec option, from its entry in the table (kwsearch.settings)."""
    if knob is not None:
        return _Option("float", knob.lo, knob.hi)
    if setting.words:
        return _Option("choice", choices=setting.words)
    if setting.kind in ("float", "int"):
        return _Option(setting.kind, setting.lo, setting.hi, setting.lo_open)
    return _Option(setting.kind, choices=setting.choices)


_ITERATIONS = _Option("int", 1, MAX_ITERATIONS)
_SECONDS = _Option("float", 0, MAX_SECONDS, lo_open=True)
_REUSE = _Option("choice", choices=("0", "1"))


def _search_options(bot: str, **extra: _Option) -> dict[str, _Option]:
    """The options of a search bot's spec: its limits, the search settings it takes (the table,
    kwsearch.settings) and ``extra``."""
    return {"iterations": _ITERATIONS, "seconds": _SECONDS,
            **{key: _spec_option(s, k) for key, (s, k) in spec_keys(bot).items()}, **extra}


#: Every bot and its options (what a spec may say).
OPTIONS: dict[str, dict[str, _Option]] = {
    "random": {},
    "heuristic": {},
    "ismcts": _search_options("ismcts", reuse=_REUSE, level=_Option("int", 1, len(LEVELS)),
                              temp=_Option("float", 0, MAX_TEMPERATURE)),
    "cheat": _search_options("cheat", reuse=_REUSE),
    "pimc": _search_options("pimc", worlds=_Option("int", 1, 100_000)),
    "openspiel-ismcts": {"iterations": _ITERATIONS, "seconds": _SECONDS, "c": _Option("float", 0, MAX_C_UCT)},
    "openspiel-mcts": {"iterations": _ITERATIONS, "seconds": _SECONDS, "c": _Option("float", 0, MAX_C_UCT)},
}
#: The options whose value is a path (``eval=FILE``, ``priorw=FILE``), of any bot.
FILE_OPTIONS = frozenset(k for opts in OPTIONS.values() for k, o in opts.items() if o.kind == "text")


def names_file(key: str, value: str) -> bool:
    """Whether the option ``key=value`` names a file: a path option, unless its value is the name of a
    shipped model (``eval=tempo``). A reader that must open no file (``kwsearch serve``) refuses those."""
    from .features import SHIPPED
    return key in FILE_OPTIONS and not (key == "eval" and value in SHIPPED)


def _bound(x: float) -> str:
    return f"{int(x):,}" if float(x).is_integer() else f"{x:g}"


def value_text(value: Any) -> str:
    """A value as a spec writes it: ``2`` for 2.0 (it parses back to the same float), else repr."""
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
    return str(value)


@dataclass(frozen=True)
class BotSpec:
    """A parsed, checked bot spec: the bot's ``name`` and its ``options`` in the order written.

    ``BotSpec.parse(text)`` raises :class:`BotSpecError` naming what is wrong;
    ``str(spec)`` is the spec in canonical form (``BotSpec.parse(str(spec)) ==
    spec``); ``spec.build(seed)`` makes the bot.

        >>> str(BotSpec.parse(" ISMCTS: iterations=500 , c=0.5"))
        'ismcts:iterations=500,c=0.5'
        >>> BotSpec.parse("ismcts:seconds=inf")
        Traceback (most recent call last):
        ...
        kwsearch.bots.BotSpecError: bot spec 'ismcts:seconds=inf': seconds expects a finite number greater than 0 to 31,622,400, got 'inf'
    """

    name: str
    options: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def parse(cls, text: "str | BotSpec", check_files: bool = True) -> "BotSpec":
        """The spec of ``text``, every option checked; with ``check_files`` (the default) the weights
        files it names are loaded and checked too. A reader that only names the bot (a results file
        shown or reported) passes ``check_files=False``; building the bot checks them in any case."""
        if isinstance(text, BotSpec):
            return text
        if not isinstance(text, str) or not text.strip():
            raise BotSpecError(f"bot spec: expected e.g. 'ismcts:iterations=10000', got {text!r}")
        if len(text) > 1000:
            raise BotSpecError(f"bot spec {text[:40]!r}...: longer than 1000 characters")
        name, _, rest = text.strip().partition(":")
        name = name.strip().lower()
        if name not in OPTIONS:
            raise BotSpecError(f"bot spec {text!r}: unknown bot {name!r} (expected one of {', '.join(OPTIONS)})")
        allowed = OPTIONS[name]
        options: list[tuple[str, Any]] = []
        for part in filter(None, (p.strip() for p in rest.split(","))):
            key, eq, value = part.partition("=")
            key = key.strip().lower()
            if not eq or not value.strip():
                raise BotSpecError(f"bot spec {text!r}: expected key=value, got {part!r}")
            if key not in allowed:
                names = ", ".join(sorted(allowed)) or "none"
                raise BotSpecError(f"bot spec {text!r}: unknown option {key!r} for {name} (allowed: {names})")
            if any(k == key for k, _ in options):
                raise BotSpecError(f"bot spec {text!r}: option {key!r} is given twice")
            options.append((key, allowed[key].parse(text, key, value.strip())))
        spec = cls(name, tuple(options))
        spec._limits(check_files)  # a search bot's limits and settings are checked here, not at the first move
        return spec

    def __str__(self) -> str:
        if not self.options:
            return self.name
        return self.name + ":" + ",".join(f"{k}={value_text(v)}" for k, v in self.options)

    def get(self, key: str, default: Any = None) -> Any:
        return next((v for k, v in self.options if k == key), default)

    def search_settings(self) -> tuple[SearchLimits, SearchConfig]:
        """The search limits and configuration this spec stands for (``ismcts``, ``cheat`` and
        ``pimc`` specs; :class:`BotSpecError` for any other bot). ``kwsearch suggest --bot`` reads
        its settings from here, so a hint is searched as that bot would play, but for the settings
        the spec leaves to the defaults that analysing sets otherwise (the exploration constant with
        three or four players: :meth:`kwsearch.search.SearchConfig.for_analysis`); a spec that names
        them (``ismcts:c=0.25``) is searched exactly as it plays."""
        out = self._limits()
        if out is None:
            raise BotSpecError(f"bot spec {str(self)!r}: expected a search bot (ismcts, cheat or pimc), "
                               f"got {self.name}")
        return out

    def _limits(self, check_files: bool = True) -> tuple[SearchLimits, SearchConfig] | None:
        if self.name not in SEARCH_BOTS:
            return None
        iterations, seconds = self.get("iterations"), self.get("seconds")
        if iterations is None and seconds is None:
            iterations = LEVELS[self.get("level") - 1][0] if self.get("level") else 10_000
        try:
            limits = SearchLimits(iterations=iterations, seconds=seconds)
            config = SearchConfig(determinize=(self.name != "cheat"), **config_kwargs(self.name, self.get))
            from .features import SHIPPED, load_evaluation
            if check_files and config.evaluation is not None and config.evaluation not in SHIPPED:
                load_evaluation(config.evaluation)  # a bad weights file fails when the spec is read
            if check_files and config.prior_weights is not None:
                from .prior import load_prior
                load_prior(config.prior_weights)  # the same for the prior's weights
        except KwsearchError as exc:
            raise BotSpecError(f"bot spec {str(self)!r}: {exc}") from None
        return limits, config

    def build(self, seed: int = 0):
        """The bot, with every random choice drawn from ``seed``."""
        if self.name == "random":
            return RandomBot(seed)
        if self.name == "heuristic":
            from .heuristic import HeuristicBot
            return HeuristicBot(seed=seed)
        if self.name.startswith("openspiel-"):
            try:
                from .openspiel import OpenSpielBot
            except ImportError:
                raise BotSpecError(f'bot spec {str(self)!r}: needs OpenSpiel, which is not installed: '
                                   f'pip install ".[openspiel]" (in the kwsearch clone)') from None
            iterations, seconds = self.get("iterations"), self.get("seconds")
            if iterations is None and seconds is None:
                iterations = 1000
            return OpenSpielBot(self.name.partition("-")[2], iterations=iterations, seconds=seconds,
                                c=self.get("c", 0.7), seed=seed)
        limits, config = self._limits()
        if self.name == "pimc":
            return PIMCBot(self.get("worlds", 20), limits, config, seed)
        return SearchBot(limits, config, seed, reuse=self.get("reuse", "1") == "1", temperature=self.temperature())

    def temperature(self) -> float:
        """The softmax temperature of an ``ismcts`` spec's move choice: ``temp=``, else its level's,
        else 0 (the most visited option)."""
        if self.get("temp") is not None:
            return float(self.get("temp"))
        return LEVELS[self.get("level") - 1][1] if self.get("level") else 0.0


def from_spec(spec: "str | BotSpec", seed: int = 0):
    """A bot from its spec (see the module docstring); :class:`BotSpecError` names what is wrong."""
    return BotSpec.parse(spec).build(seed)


#: The decision cap of a match (tournaments, the tuner, the bench scripts, ``kwsearch play`` with only
#: bots seated): a game still running after this many decisions is stopped and **adjudicated** on the
#: seats' current money (docs/rules-notes.md, "Adjudicated matches"). The rules let a round last for
#: ever (RULES.md §6: the action phase ends only on a full market or an exhausted buyer track), and
#: search bots can fall into such a loop, each seat taking the hire-only tile with an empty supply.
#: Measured longest normal games (docs/rules-notes.md): random bots 163 / 274 / 237 decisions with
#: 2 / 3 / 4 players, heuristic and mixed fields under 180; 2-player search self-play loops at times and
#: some loops break out by themselves, after up to 1,637 decisions (1,000 logged tuning games) and
#: 3,571 (30 games at 100 iterations); the cap is well above all of them, so it never touches a game that
#: ends. A stalled game costs up to this many searches before it is adjudicated.
MAX_MATCH_DECISIONS = 10_000


@dataclass(frozen=True)
class MatchResult:
    """How a game of :func:`play_match` ended.

    ``returns`` is the win share of each seat (:func:`kwsearch.game.win_shares` of ``money``: the
    game's own result, or with ``adjudicated`` the result the same tie rule gives the money the
    seats held when the decision cap stopped the game). ``state`` is the last state (not terminal
    when adjudicated) and ``decisions`` the number of actions applied.
    """

    state: Any
    decisions: int
    adjudicated: bool
    money: list[int]
    returns: list[float]


def play_match(state, bots: list, on_step: Callable | None = None,
               max_decisions: int | None = MAX_MATCH_DECISIONS) -> MatchResult:
    """Play ``state`` to the end or to ``max_decisions`` decisions (None: no cap), as
    :func:`play_game` does, and say how it ended (:class:`MatchResult`).

    A match rule, not a game rule: a game that passes the cap is stopped and
    adjudicated on the current money with the game's tie rule (a shared lead
    shares the win), as chess engine tournaments adjudicate endless games.
    """
    from .game import win_shares
    count = [0]

    def step(st, seat, action):
        count[0] += 1
        if on_step is not None:
            on_step(st, seat, action)
    final = play_game(state, bots, on_step=step, max_decisions=max_decisions)
    money = list(final.money())
    adjudicated = not final.is_terminal()
    return MatchResult(state=final, decisions=count[0], adjudicated=adjudicated, money=money,
                       returns=win_shares(money) if adjudicated else list(final.returns()))


def play_game(state, bots: list, on_step: Callable | None = None, max_decisions: int | None = None):
    """Play ``state`` to the end with ``bots[seat]`` deciding for each seat; returns the final state.

    ``on_step(state, seat, action)`` is called before each action is applied;
    every bot with an ``observe(action)`` method is told each action after it is
    applied (tree reuse). The bots are restarted first.

    With ``max_decisions`` (a match's cap, e.g. :data:`MAX_MATCH_DECISIONS`) the
    game stops after that many decisions if it has not ended: the returned state
    is then not terminal, and its ``returns()`` (the win shares of the current
    money, by the game's tie rule) is the adjudicated result. :func:`play_match`
    says so explicitly.
    """
    if max_decisions is not None and (isinstance(max_decisions, bool) or not isinstance(max_decisions, int)
                                      or max_decisions < 1):
        raise KwsearchError(f"max_decisions: expected a positive integer, got {max_decisions!r}")
    unique = list({id(b): b for b in bots}.values())  # one bot may play several seats
    for bot in unique:
        bot.restart()
    observers = [b for b in unique if hasattr(b, "observe")]
    decisions = 0
    while not state.is_terminal():
        if max_decisions is not None and decisions >= max_decisions:
            break  # adjudicated: the caller scores the current money
        seat = state.current_player()
        action = bots[seat].step(state)
        if action not in state.legal_actions():  # apply() is unchecked: a bot's bug must not corrupt the game
            raise IllegalMoveError(f"bot {bots[seat]!r} in seat {seat} chose action {action!r}, which is not "
                                   f"legal here (legal: {state.legal_actions()})")
        if on_step is not None:
            on_step(state, seat, action)
        state.apply(action)
        decisions += 1
        for b in observers:
            b.observe(action)
    return state
