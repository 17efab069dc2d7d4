"""The search settings, each declared once: the table everything else is generated from.

:data:`SETTINGS` holds one :class:`Setting` per search setting: its one internal name (the field of
:class:`kwsearch.search.SearchConfig` and of the C struct ``SearchParams`` in ``_search.pxd``), its
type and range, its default (a value, or one per player count), its bot-spec key, its command-line
flag, its name in the ``kwsearch-analysis/1`` JSON (``rootInfo.config``) and its help. Generated from
the table:

- the fields of ``SearchConfig``, their checks, ``for_players``, ``for_analysis`` and ``as_dict``
  (:func:`config_fields`, :func:`check_config`, :func:`resolve`, :func:`analysis_defaults`,
  :func:`config_json`);
- the options of the search bots' specs and how a spec becomes a config (``kwsearch.bots``:
  :func:`spec_options`, :func:`config_kwargs`);
- the search options of ``kwsearch suggest`` and ``kwsearch review`` and the parameter names of
  ``kwsearch tune`` (``kwsearch.cli``);
- what a review's cache key records (:func:`cache_settings`);
- the settings table of ``docs/settings.md`` (``docs/gen_settings.py``, :func:`markdown_table`).

Adding a setting is one entry here, the C code that uses it (a field of ``SearchParams``, filled in
``_search.Params``) and its tests.

    >>> SETTING["c_opponents"].spec, SETTING["c_opponents"].flag
    ('copp', '--c-opponents')
    >>> SETTING["cutoff"].default_for(4)
    30
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from typing import Any, Callable

from .errors import KwsearchError


class SearchError(KwsearchError):
    """Bad search settings, or a search that cannot run (the message names the field)."""


def bound_text(x: float) -> str:
    """A range bound as messages write it: ``1,000`` for 1000.0, else ``%g``."""
    return f"{int(x):,}" if float(x).is_integer() else f"{x:g}"


def check_integer(owner: str, name: str, value, lo: int, hi: int) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not lo <= value <= hi:
        raise SearchError(f"{owner}.{name}: expected an integer from {lo} to {hi:,}, got {value!r}")


def check_number(owner: str, name: str, value, lo: float, hi: float, lo_open: bool = False) -> None:
    ok = (not isinstance(value, bool) and isinstance(value, numbers.Real) and math.isfinite(value)
          and (value > lo if lo_open else value >= lo) and value <= hi)
    if not ok:
        low = f"greater than {bound_text(lo)}" if lo_open else f"from {bound_text(lo)}"
        raise SearchError(f"{owner}.{name}: expected a finite number {low} to {bound_text(hi)}, got {value!r}")


def check_flag(owner: str, name: str, value) -> None:
    if not isinstance(value, bool):
        raise SearchError(f"{owner}.{name}: expected true or false, got {value!r}")


#: The rollout policies (``SearchConfig.rollout``), in the order of the C enum ``RolloutKind``
#: (``_playout.pxd``: ``ROLLOUT_RANDOM``, ``ROLLOUT_TEMPO``, ``ROLLOUT_SMART``).
ROLLOUTS = ("random", "tempo", "smart")
#: How the root spends the budget (``SearchConfig.root``): ``uct`` selects there by UCB like
#: everywhere else; ``halving`` runs sequential halving over the root's options
#: (:mod:`kwsearch.search`, "The root").
ROOT_RULES = ("uct", "halving")
#: The largest exploration constant accepted (UCB terms beyond it only drown the rewards).
MAX_C_UCT = 1000.0
#: The longest playout cut-off accepted, in decisions (a whole game takes a few hundred).
MAX_CUTOFF = 100_000
#: The largest move-prior weight accepted (the bias W * P / (1 + visits) then drowns the rewards).
MAX_PRIOR = 1000.0
#: The most worker processes one search starts, and the largest node pool (32-bit node indices).
MAX_WORKERS = 256
MAX_NODES = 2**31 - 1
#: The bots whose specs take the search settings.
SEARCH_BOTS = ("ismcts", "cheat", "pimc")


@dataclass(frozen=True)
class Knob:
    """One knob of a setting made of several numbers (the smart rollout's ``playout``): its spec key
    and name in the JSON, its range, default and meaning."""

    name: str
    lo: float
    hi: float
    default: float
    help: str


def _always(config) -> bool:
    return True


def _never(config) -> bool:
    return False


@dataclass(frozen=True)
class Setting:
    """One search setting, declared once (see the module docstring for what is generated from it)."""

    name: str                  # the one internal name: SearchConfig's field, SearchParams' field in C
    kind: str                  # "float", "int", "bool", "choice", "text" (a weights file or shipped name), "knobs"
    help: str                  # what it means, one sentence (CLI help, docs table)
    lo: float = 0              # range of a number (inclusive; lo_open: lo itself excluded)
    hi: float = 0
    lo_open: bool = False
    choices: tuple[str, ...] = ()       # the values of a "choice"
    default: Any = None                 # the value when not given, or {players: value} (the field is then None)
    analysis: dict[int, Any] | None = None  # {players: value} when the search analyses (hints, reviews,
                                            # teaching) rather than plays, where it differs (None: default)
    optional: bool = False              # None is a value of its own (not given: see help), not a default to fill
    spec: str | None = None             # the bot-spec key (None: not a spec option)
    bots: tuple[str, ...] = SEARCH_BOTS  # the bots whose specs take it
    words: tuple[str, str] | None = None  # a "bool" as the spec and CLI write it: (false word, true word)
    flag: str | None = None             # the command-line flag (None: no option)
    short: str | None = None            # its one-letter alias
    commands: tuple[str, ...] = ("suggest", "review")  # the commands that take the flag
    metavar: str | None = None
    json: str = ""                      # name in kwsearch-analysis/1 rootInfo.config ("": the name)
    in_json: Callable[[Any], bool] | None = None  # whether rootInfo.config records it (None: when not the default)
    in_key: Callable[[Any], bool] | None = None   # whether a review's cache key counts it (None: when not the default)
    active: Callable[[Any], bool] = _always       # whether a default by player count applies (else None stays)
    check: Callable[[Any], str | None] | None = None  # a rule across settings: the error message, or None
    knobs: tuple[Knob, ...] = ()        # the parts of a "knobs" setting (each its own spec key)
    knob_of: tuple[str, str] | None = None  # a "knobs" setting is read only when (setting, value) holds
    doc: str = ""                       # a longer note for the docs table
    processes: bool = False             # a count of processes: the CLI bounds it by this machine (worker_procs)
    by_players: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_players", isinstance(self.default, dict))
        if self.analysis is not None and (not self.by_players or set(self.analysis) != set(self.default)):
            raise ValueError(f"setting {self.name}: an analysis default needs a default by player count, "
                             "for the same player counts")
        if not self.json:
            object.__setattr__(self, "json", self.name)

    # -- values --------------------------------------------------------------
    @property
    def field_default(self) -> Any:
        """The dataclass field's default: None for a default by player count."""
        return None if self.by_players else self.default

    def default_for(self, players: int) -> Any:
        return self.default[players] if self.by_players else self.default

    @property
    def annotation(self) -> str:
        base = {"float": "float", "int": "int", "bool": "bool", "choice": "str", "text": "str",
                "knobs": "tuple"}[self.kind]
        return f"{base} | None" if self.by_players or self.optional or self.default is None else base

    def validate(self, owner: str, value: Any) -> None:
        """Raise :class:`SearchError` (``owner.name: expected ...``) unless ``value`` is allowed."""
        if value is None and (self.by_players or self.optional or self.default is None):
            return
        if self.kind == "float":
            check_number(owner, self.name, value, self.lo, self.hi, self.lo_open)
        elif self.kind == "int":
            check_integer(owner, self.name, value, int(self.lo), int(self.hi))
        elif self.kind == "bool":
            check_flag(owner, self.name, value)
        elif self.kind == "choice":
            if value not in self.choices:
                head = ", ".join(self.choices[:-1]) + " or " + self.choices[-1] if len(self.choices) > 2 \
                    else " or ".join(self.choices)
                raise SearchError(f"{owner}.{self.name}: expected {head}, got {value!r}")
        elif self.kind == "text":
            if not isinstance(value, str) or not value.strip():
                raise SearchError(f"{owner}.{self.name}: expected the path of a weights file, got {value!r}")
        elif self.kind == "knobs":
            names = [k.name for k in self.knobs]
            if not isinstance(value, tuple) or len(value) != len(self.knobs):
                raise SearchError(f"{owner}.{self.name}: expected a tuple of {len(names)} numbers "
                                  f"({', '.join(names)}), got {value!r}")
            for knob, v in zip(self.knobs, value):
                check_number(owner, f"{self.name}.{knob.name}", v, knob.lo, knob.hi)

    def to_json(self, value: Any) -> Any:
        if self.kind == "knobs":
            return {k.name: v for k, v in zip(self.knobs, value)}
        return value

    def from_words(self, text: str) -> Any:
        """A spec's or the command line's word for a "bool" setting, as its value."""
        return self.words.index(text) == 1 if self.words else text

    # -- documentation ---------------------------------------------------------
    def range_text(self) -> str:
        if self.kind in ("float", "int"):
            low = f"> {bound_text(self.lo)}" if self.lo_open else bound_text(self.lo)
            return f"{self.kind} {low} … {bound_text(self.hi)}"
        if self.kind == "bool":
            return " / ".join(self.words) if self.words else "true / false"
        if self.kind == "choice":
            return " / ".join(self.choices)
        if self.kind == "text":
            return "a weights file" + (" or a shipped name" if self.name == "evaluation" else "")
        return ", ".join(f"{k.name} {bound_text(k.lo)} … {bound_text(k.hi)}" for k in self.knobs)

    def default_text(self) -> str:
        def one(v: Any) -> str:
            if v is None:
                return "none"
            if isinstance(v, tuple):
                return ", ".join(f"{k.name} {x:g}" for k, x in zip(self.knobs, v))
            if isinstance(v, bool):
                return self.words[int(v)] if self.words else str(v).lower()
            if isinstance(v, int):
                return f"{v:,}"
            return f"{v:g}" if isinstance(v, float) else str(v)
        def by_count(table: dict[int, Any]) -> str:
            groups: dict[str, list[int]] = {}
            for n, v in table.items():
                groups.setdefault(one(v), []).append(n)
            if len(groups) == 1:
                return next(iter(groups))
            words = {2: "two", 3: "three", 4: "four"}
            return ", ".join(f"{v} with {' or '.join(words[n] for n in ns)} players" for v, ns in groups.items())
        if not self.by_players:
            return one(self.default)
        if self.analysis is None:
            return by_count(self.default)
        return f"playing: {by_count(self.default)}; analysing (hints, reviews): {by_count(self.analysis)}"


def _differs(name: str, value: Any) -> Callable[[Any], bool]:
    return lambda c: getattr(c, name) != value


def _uses_prior(c) -> bool:
    return c.prior > 0 or c.prior_playout > 0


def _evaluation_check(c) -> str | None:
    if c.evaluation is not None and c.cutoff == 0:
        return "the evaluation scores playouts stopped at a cut-off; give cutoff (decisions) too"
    return None


def _prior_weights_check(c) -> str | None:
    if c.prior_weights is not None and c.prior == 0 and c.prior_playout == 0:
        return ("the move prior is used only with a prior weight or a playout share; give prior or prior_playout "
                "(above 0) too")
    return None


#: Defaults by player count, each chosen by matches. ``c_uct`` and ``money_weight`` (docs/design.md):
#: with three and four players, where a seat's win share is mostly 0 in random playouts, a lower
#: exploration constant and half the reward from the money margin; with two players c = 0.3 since
#: issue 32's sixteenth round (0.7 before, a value chosen for playouts to the end of the game, which
#: score 0 or 1; the cut-off playouts score a win probability, and c = 0.3 passed the opponent panel,
#: docs/strength.md), with three players c = 0.25 since the seventeenth (0.4 before; it passed the
#: panel too) and with four c = 0.25 since the twenty-first (0.4 before; the panel accepted it in the
#: eighteenth round). A search that *analyses* (a hint, a review, teaching: ``Setting.analysis``,
#: ``SearchConfig.for_analysis``) keeps c = 0.4 with three and four players: at 0.25 the re-searches
#: that value each option scatter more (four players: 59.5% of the hints' equal bands hold one
#: option against 71.0% at 0.4; three players: 26 of 30 pairs of reviews agree against 28), as
#: KataGo's ``wideRootNoise`` widens its analyses and not its play (docs/confidence.md, "Playing and
#: analysing"). ``rollout``, ``cutoff`` and ``evaluation`` (docs/strength.md, "The acceptance
#: protocol"): with two players smart playouts stopped after 15 decisions and scored by the shipped
#: (``tempo``) evaluation, with a money weight of 0.2 -- it scored 62.7% [58.1, 67.4] against the
#: former default (tempo playouts to the end, money weight 0) over 400 games at 0.2 s a decision,
#: and won every game against ``random``; with four players smart playouts stopped after 30
#: decisions and scored by the evaluation fitted to searched games (``searched``) -- 51.7% [47.2,
#: 56.1] against three of the former default over 400 games at 0.2 s (parity 25%), and more search
#: helps it (4x the iterations against three copies at 1x: docs/strength.md); with three players
#: smart playouts stopped after 30 decisions and scored by the evaluation fitted to smart playouts
#: (``smart``) -- it passed the opponent panel (issue 32: docs/strength.md, "Ninth round"). The
#: former defaults stay reachable by spec (``kwsearch.search.FORMER_DEFAULT``).
SETTINGS: tuple[Setting, ...] = (
    Setting("c_uct", "float", "Exploration constant c of UCB (mean + c * sqrt(ln(avail) / visits)).",
            lo=0, hi=MAX_C_UCT, default={2: 0.3, 3: 0.25, 4: 0.25}, analysis={2: 0.3, 3: 0.4, 4: 0.4}, spec="c",
            flag="--c-uct", in_json=_always, in_key=_always),
    Setting("money_weight", "float", "Share of the reward from the money margin over the best other seat "
            "(the rest is the win share).", lo=0, hi=1, default={2: 0.2, 3: 0.5, 4: 0.5}, spec="money",
            flag="--money-weight", in_json=_always, in_key=_always),
    Setting("determinize", "bool", "Redraw the hidden deck every iteration (false: search the true order, "
            "the cheat bot; set by the bot's name, not by an option).", default=True, in_json=_always,
            in_key=_never),
    Setting("workers", "int", "Root-parallel search processes; their statistics are summed (iterations are "
            "the total over them).", lo=1, hi=MAX_WORKERS, default=1, spec="workers", bots=("ismcts", "cheat"),
            flag="--workers", short="-w", commands=("suggest",), in_json=_always, in_key=_never, processes=True),
    Setting("max_nodes", "int", "Node pool of each worker (64 bytes a node); the search stops, and says so, "
            "when it is full.", lo=2, hi=MAX_NODES, default=4_000_000, flag="--max-nodes", in_json=_always,
            in_key=_always),
    Setting("closed_loop", "bool", "Open-loop or closed-loop ISMCTS (closed: branch on the research cards "
            "revealed).", default=False, spec="loop", bots=("ismcts",), words=("open", "closed"),
            flag="--loop", in_json=_always, in_key=_always),
    Setting("rollout", "choice", "Playout policy: tempo (a cheap policy that keeps tempo and sells), random, "
            "or smart (the heuristic's hand rules, with the knobs of playout).", choices=ROLLOUTS,
            default={2: "smart", 3: "smart", 4: "smart"}, spec="rollout", flag="--rollout", in_json=_always,
            in_key=_always),
    Setting("cutoff", "int", "Stop each playout after this many decisions and score it with the learned "
            "evaluation (docs/evaluation.md); 0 plays every playout to the end.", lo=0, hi=MAX_CUTOFF,
            default={2: 15, 3: 30, 4: 30}, spec="cutoff", flag="--cutoff", in_json=_always,
            in_key=lambda c: bool(c.cutoff)),
    Setting("evaluation", "text", "Weights file of the evaluation that scores a playout stopped at the "
            "cut-off, or a shipped one by name: tempo, searched (fitted to ISMCTS games), smart (fitted "
            "to smart playouts) or mlp (four players: ISMCTS games fitted with a hidden layer).",
            default={2: "tempo", 3: "smart", 4: "searched"}, active=lambda c: c.cutoff > 0, spec="eval",
            flag="--eval", metavar="FILE|NAME", in_json=_always, in_key=lambda c: bool(c.cutoff),
            check=_evaluation_check, doc="used only with a cut-off"),
    Setting("root", "choice", "How the root spends the budget: uct selects there as everywhere; halving runs "
            "sequential halving over the options (rounds of equal iterations, keeping the better half).",
            choices=ROOT_RULES, default={2: "uct", 3: "uct", 4: "uct"}, spec="root", flag="--root",
            in_json=_always, in_key=lambda c: c.root not in (None, "uct")),
    Setting("playout", "knobs", "The smart rollout's knobs: the chance that a decision follows the heuristic's "
            "hand rule, that a turn takes a tempo tile, that the rule offers a car when it can; the worth of a "
            "useful research point (developments early) and of an engineer card at a research choice.",
            knobs=(Knob("rule", 0.0, 1.0, 0.9, "chance that a decision other than the turn's tile follows the "
                        "hand rule"),
                   Knob("tempo", 0.0, 1.0, 0.75, "chance that a turn's tile is one that lets the fewest other "
                        "workers past"),
                   Knob("sell", 0.0, 1.0, 0.875, "chance that the hand rule offers a car at the market step"),
                   Knob("develop", 0.0, 10.0, 0.7, "worth of a useful research point at a research choice"),
                   Knob("engineer", 0.0, 20.0, 4.0, "worth of an engineer card at a research choice")),
            default=(0.9, 0.75, 0.875, 0.7, 4.0), knob_of=("rollout", "smart"),
            in_json=lambda c: c.rollout == "smart", in_key=lambda c: c.rollout == "smart",
            doc="only with rollout=smart"),
    Setting("prior", "float", "Weight W of the learned move prior's bias W * P / (1 + visits) in selection "
            "(docs/evaluation.md, \"The move prior\"); 0 searches without it.", lo=0, hi=MAX_PRIOR, default=0.0,
            spec="prior", flag="--prior", in_json=_uses_prior, in_key=_uses_prior),
    Setting("prior_playout", "float", "Chance that a playout decision is drawn from the learned move prior "
            "instead of the rollout policy; 0 plays out without it.", lo=0, hi=1, default=0.0, spec="pprior",
            flag="--prior-playout", in_json=_uses_prior),
    Setting("prior_weights", "text", "Weights file of the move prior used with prior or prior_playout "
            "(default: the shipped one for the player count).", spec="priorw", flag="--prior-weights",
            metavar="FILE", in_json=_uses_prior, in_key=_uses_prior, check=_prior_weights_check),
    Setting("c_opponents", "float", "Exploration constant at the nodes where another seat than the root's "
            "mover chooses (default: c_uct everywhere).", lo=0, hi=MAX_C_UCT, optional=True, spec="copp",
            flag="--c-opponents"),
)

#: The settings by name.
SETTING: dict[str, Setting] = {s.name: s for s in SETTINGS}
#: The smart rollout's knobs (``SearchConfig.playout``, in this order, as the C struct ``PlayoutParams``
#: holds them), their defaults and ranges.
PLAYOUT_FIELDS = tuple(k.name for k in SETTING["playout"].knobs)
DEFAULT_PLAYOUT = SETTING["playout"].default
PLAYOUT_RANGES = tuple((k.lo, k.hi) for k in SETTING["playout"].knobs)


# ---------------------------------------------------------------------------
# SearchConfig
# ---------------------------------------------------------------------------


def config_fields(cls):
    """Give the class ``cls`` (a ``SearchConfig`` to be) one field per setting, in table order,
    before ``@dataclass`` makes it a dataclass (use it as the inner decorator)."""
    own = dict(cls.__dict__.get("__annotations__", {}))
    cls.__annotations__ = {**{s.name: s.annotation for s in SETTINGS}, **own}
    for s in SETTINGS:
        setattr(cls, s.name, s.field_default)
    return cls


def check_config(config, owner: str = "SearchConfig") -> None:
    """Every setting's type and range, then the rules across settings (:class:`SearchError`)."""
    for s in SETTINGS:
        s.validate(owner, getattr(config, s.name))
    for s in SETTINGS:
        problem = s.check(config) if s.check is not None else None
        if problem:
            raise SearchError(f"{owner}.{s.name}: {problem}")


def resolve(config, players: int) -> dict[str, Any]:
    """The settings left to the player count (None), filled in for ``players``: {name: value}.

    Settings are filled in table order, so an ``active`` rule reads the values filled before it
    (the evaluation's default applies only with a cut-off)."""
    from types import SimpleNamespace
    values = {s.name: getattr(config, s.name) for s in SETTINGS}
    view = SimpleNamespace(**values)
    for s in SETTINGS:
        if s.by_players and values[s.name] is None and s.active(view):
            values[s.name] = s.default[players]
            setattr(view, s.name, values[s.name])
    filled = {k: v for k, v in values.items() if v != getattr(config, k)}
    for s in SETTINGS:
        problem = s.check(view) if s.check is not None else None
        if problem:  # a rule the filled-in defaults break: "what; what to do" names the player count
            what, _, todo = problem.partition(";")
            raise SearchError(f"SearchConfig.{s.name}: {what}, and the {players}-player default has none;{todo}")
    return filled


def analysis_defaults(config, players: int) -> dict[str, Any]:
    """The settings left to the defaults (None) that analysing (a hint, a review, teaching) fills in
    otherwise than playing, for ``players``: {name: value} (:attr:`Setting.analysis`; the others are
    left for :func:`resolve`)."""
    return {s.name: s.analysis[players] for s in SETTINGS
            if s.analysis is not None and getattr(config, s.name) is None}


def config_json(config) -> dict[str, Any]:
    """``rootInfo.config`` of ``kwsearch-analysis/1``: the settings in effect, by their JSON names."""
    return {s.json: s.to_json(getattr(config, s.name)) for s in SETTINGS
            if (s.in_json or _differs(s.name, s.field_default))(config)}


def cache_settings(config) -> dict[str, Any]:
    """What a review's cache key records of ``config`` (player-count defaults filled in): the
    settings that change the search, by their JSON names (a knobs setting as a list)."""
    out = {}
    for s in SETTINGS:
        if (s.in_key or _differs(s.name, s.field_default))(config):
            value = getattr(config, s.name)
            out[s.json] = list(value) if s.kind == "knobs" else value
    return out


# ---------------------------------------------------------------------------
# Bot specs
# ---------------------------------------------------------------------------


def spec_settings(bot: str) -> list[Setting]:
    """The settings a ``bot`` spec takes (table order)."""
    return [s for s in SETTINGS if (s.spec is not None or s.knobs) and bot in s.bots]


def spec_keys(bot: str) -> dict[str, tuple[Setting, Knob | None]]:
    """{spec key: (setting, knob or None)} of a ``bot`` spec's search settings."""
    out: dict[str, tuple[Setting, Knob | None]] = {}
    for s in spec_settings(bot):
        if s.kind == "knobs":
            out.update({k.name: (s, k) for k in s.knobs})
        else:
            out[s.spec] = (s, None)
    return out


def config_kwargs(bot: str, get: Callable[[str], Any]) -> dict[str, Any]:
    """The ``SearchConfig`` keyword arguments of a ``bot`` spec whose parsed options ``get(key)`` reads
    (None: not given); a knob given without its rollout raises :class:`SearchError`."""
    kw: dict[str, Any] = {}
    for s in spec_settings(bot):
        if s.kind == "knobs":
            given = [k.name for k in s.knobs if get(k.name) is not None]
            if given and s.knob_of and get(SETTING[s.knob_of[0]].spec) != s.knob_of[1]:
                owner, value = s.knob_of
                raise SearchError(f"{given[0]} is a knob of the {value} {owner}; add {SETTING[owner].spec}={value} "
                                  f"or leave it out")
            if given:
                kw[s.name] = tuple(float(get(k.name)) if get(k.name) is not None else k.default for k in s.knobs)
            continue
        value = get(s.spec)
        if value is None:
            continue
        kw[s.name] = s.from_words(value) if s.words else (float(value) if s.kind == "float" else value)
    return kw


# ---------------------------------------------------------------------------
# Commands and documents
# ---------------------------------------------------------------------------


def command_settings(command: str) -> list[Setting]:
    """The settings that ``kwsearch COMMAND`` takes as options (table order)."""
    return [s for s in SETTINGS if s.flag is not None and command in s.commands]


def cli_help(s: Setting) -> str:
    """A setting's help on the command line: its meaning and its default."""
    if s.default is None:
        return s.help
    many = s.by_players and len({repr(v) for v in s.default.values()}) > 1
    return s.help + f" Default: {'by player count, ' if many else ''}{s.default_text()}."


def markdown_table() -> str:
    """The settings table of docs/settings.md."""
    rows = ["| setting (JSON name) | bot spec | command line | values | default | meaning |",
            "| --- | --- | --- | --- | --- | --- |"]
    for s in SETTINGS:
        if s.kind == "knobs":
            spec = ", ".join(f"`{k.name}=`" for k in s.knobs)
        else:
            spec = f"`{s.spec}=`" if s.spec else "—"
        if s.spec and s.bots != SEARCH_BOTS:
            spec += f" ({', '.join(s.bots)})"
        flag = f"`{s.flag}`" if s.flag else "—"
        if s.flag and s.commands != ("suggest", "review"):
            flag += f" ({', '.join(s.commands)})"
        meaning = s.help + (f" ({s.doc})" if s.doc else "")
        name = f"`{s.name}`" + (f" (`{s.json}`)" if s.json != s.name else "")
        rows.append(f"| {name} | {spec} | {flag} | {s.range_text()} | {s.default_text()} | {meaning} |")
    return "\n".join(rows)
