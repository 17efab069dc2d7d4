"""Move hints for a position: the search wrapped for people (``kwsearch suggest``, ``play``'s hints).

:func:`analyse` is a thin layer over :meth:`kwsearch.search.Searcher.run`: it
runs the search (with its progress reports and its ``stop``; Ctrl-C ends it
early with what it has) and describes the best options as :class:`Candidate`
*whole-turn plans* when the mover has several decisions left in the turn (the
option, then the most visited continuation while the same seat decides).
:func:`analysis_json` gives the ``kwsearch-analysis/1`` object documented in
``docs/formats.md`` (modelled on KataGo's analysis responses: ``rootInfo`` and
``moveInfos``); it records the seed, the limits and the settings, so the same
command repeats a search with an iteration limit exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable

from .search import SearchConfig, SearchLimits, SearchResult, Searcher

ANALYSIS_FORMAT = "kwsearch-analysis/1"


@dataclass(frozen=True)
class Candidate:
    order: int
    action: int
    text: str
    plan: tuple[str, ...]          # this option and the mover's most visited follow-ups this turn
    visits: int
    share: float
    avail: float                   # fraction of iterations in which it was legal (ActionInfo.availability)
    win_prob: float
    money: float                   # the mover's expected final money
    money_sd: float
    money_all: tuple[float, ...]   # every seat's expected final money
    pv: tuple[str, ...]
    estimate: Any = None           # kwsearch.confidence.Estimate: the re-searched value and its interval
    equal: bool = False            # equal to the best at the re-searches' precision or within the margin
    rank: int | None = None        # place by the re-searched win share (0: the best; None: not verified)
    cards: Any = None              # kwsearch.outlook.OptionCards: what the cards bring (None: not counted)
    places: Any = None             # kwsearch.outlook.Places over this option's samples (None: not counted)


@dataclass(frozen=True)
class Analysis:
    result: SearchResult
    candidates: tuple[Candidate, ...]
    interrupted: bool
    verification: Any = None       # kwsearch.confidence.Verification (None: not verified)

    @property
    def places(self):
        """Every seat's finishing places over the samples of the hint's option (the first of
        :meth:`ranked`): a ``kwsearch.outlook.Places``, or None when the search did not count them."""
        return self.ranked()[0].places

    def ranked(self) -> tuple[Candidate, ...]:
        """The candidates by their re-searched rank (the search's order when not verified)."""
        return tuple(sorted(self.candidates, key=lambda c: c.order if c.rank is None else c.rank))

    def equal_text(self, state=None) -> str:
        """The best option, or all the options equal to it: ``tile 0 or tile 6, equal``; given the
        position's ``state``, cards go by their display names (``take Grand Prix 5 (gp5)``)."""
        names = [c.text for c in self.ranked() if c.equal] or [self.ranked()[0].text]
        if state is not None:
            names = [card_token(state, t) for t in names]
        if len(names) == 1:
            return names[0]
        v = self.verification
        how = "equal" if v is None or v.verdict == "equal" else "equal at this precision"
        return ", ".join(names[:-1]) + f" or {names[-1]}, {how}"


def describe(result: SearchResult, top: int = 5, components=None) -> Analysis:
    """The best ``top`` options of a search result (final or a progress report) as candidates; with
    the game's ``components`` and a search that counted them (``result.accounts``), each with what
    the cards bring and the finishing places (kwsearch.outlook)."""
    from .outlook import option_cards, places
    cands = []
    counted = components is not None and result.accounts is not None
    players = len(result.actions[0].mean_money) if result.actions else 0
    for i, a in enumerate(result.actions[:max(1, top)]):
        pv = tuple(result.pv) if a.action == result.best_action else a.plan
        cands.append(Candidate(i, a.action, a.text, a.plan, a.visits, a.share, a.availability, a.win_prob,
                               a.mean_money[result.mover], a.money_sd, a.mean_money, pv,
                               cards=option_cards(components, result.accounts, a.action) if counted else None,
                               places=places(result.accounts, players, a.action) if counted else None))
    return Analysis(result, tuple(cands), result.interrupted)


def analyse(state, limits: SearchLimits, config: SearchConfig = SearchConfig(), seed: int = 0, top: int = 5,
            progress: Callable[[Analysis], None] | None = None, stop=None,
            progress_interval: float = 0.25, verify: bool = True) -> Analysis:
    """Search ``state`` with ``seed`` and describe its best ``top`` options.

    The search analyses: the settings ``config`` leaves to the defaults take the analysis ones
    (:meth:`SearchConfig.for_analysis`: with three or four players the exploration constant 0.4,
    where a bot plays with 0.25; docs/confidence.md, "Playing and analysing").

    With ``verify`` (the default) the options described are then re-searched on their own
    (:func:`verified`, docs/confidence.md); ``limits.until_clear`` repeats that until the best is
    clear or the finalists are equal, up to ``limits.clear_cap`` iterations.

    ``progress(analysis)`` is called every ``progress_interval`` seconds with the
    candidates so far; ``stop.set()`` or Ctrl-C ends the search early with the
    statistics gathered (``interrupted``). With an iteration limit the result
    depends only on the seed and the settings (any number of workers).
    """
    components = state.game.components
    config = config.for_analysis(state.game.num_players)
    report = None if progress is None else (lambda r: progress(describe(r, top, components)))
    result = Searcher(config, seed, reuse=False, account=True).run(
        state, limits, progress=report, stop=stop, progress_interval=progress_interval, seed=seed)
    an = describe(result, top, components)
    if verify and not an.interrupted and result.iterations > 0:
        an = verified(state, an, seed=seed, until_clear=limits.until_clear, cap=limits.clear_cap, stop=stop)
    return an


def verified(state, an: Analysis, *, seed: int, until_clear: bool = False, cap: int | None = None,
             stop=None, chunk_iterations: int | None = None) -> Analysis:
    """``an`` with its candidates re-searched on their own (kwsearch.confidence): each carries its
    estimate and 95% interval and its ``rank`` by the re-searched win share (the options equal to the
    best first, marked ``equal``); the candidates stay in the search's order (``ranked()`` sorts).
    ``chunk_iterations`` fixes the re-searches' length (default: the search's iterations / 10)."""
    from .confidence import verify
    options = [c.action for c in an.candidates]
    v = verify(state, an.result, options, seed=seed, until_clear=until_clear, cap=cap, stop=stop,
               chunk_iterations=chunk_iterations)
    rank = {a: i for i, a in enumerate(v.order)}
    cands = tuple(replace(c, rank=rank[c.action], estimate=v.estimates[c.action], equal=c.action in v.equal)
                  for c in an.candidates)
    return Analysis(an.result, cands, an.interrupted, v)


def analysis_json(an: Analysis, source: str | None = None, ply: int | None = None) -> dict[str, Any]:
    """The ``kwsearch-analysis/1`` object (see docs/formats.md)."""
    from . import __version__
    r = an.result
    best = an.candidates[0]
    return {
        "format": ANALYSIS_FORMAT,
        "id": source,
        "ply": ply,
        "interrupted": an.interrupted,
        "kwsearch": __version__,
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
            "limits": r.limits.as_dict(),
            "nodes": r.nodes,
            "poolFull": r.pool_full,
            "config": r.config.as_dict(),
            **({"confidence": _confidence_json(an)} if an.verification is not None else {}),
            **({"places": _places_json(best)} if r.accounts is not None else {}),
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
            **(_estimate_json(c) if c.estimate is not None else {}),
            **({"cards": c.cards.as_json() if c.cards is not None else None,
                "places": c.places.as_json() if c.places is not None else None} if r.accounts is not None else {}),
        } for c in an.candidates],
    }


def _places_json(c: Candidate) -> dict[str, Any]:
    """rootInfo.places: the finishing places of the search's best option (as rootInfo.winrate), named
    (None: it has no samples)."""
    return None if c.places is None else {"move": c.text, **c.places.as_json()}


def _estimate_json(c: Candidate) -> dict[str, Any]:
    """A candidate's re-searched value and 95% intervals (docs/formats.md, docs/confidence.md)."""
    e = c.estimate
    return {"rank": c.rank, "equal": c.equal,
            "estimate": {"winrate": e.win, "winrateLow": e.win_low, "winrateHigh": e.win_high,
                         "winratePrecision": e.win_precision, "winrateDrift": e.win_drift,
                         "money": e.money, "moneyLow": e.money - e.money_half, "moneyHigh": e.money + e.money_half,
                         "moneyDrift": e.money_drift, "chunks": e.chunks, "chunkIterations": e.chunk_iterations,
                         "round": e.round}}


def _confidence_json(an: Analysis) -> dict[str, Any]:
    from .confidence import DEPTH_FACTOR
    v = an.verification
    return {"method": "re-search", "level": 0.95, "margin": v.margin, "depthFactor": DEPTH_FACTOR,
            "verdict": v.verdict, "capped": v.capped, "untilClear": v.until_clear, "rounds": v.rounds,
            "iterations": v.iterations, "best": an.ranked()[0].text,
            "equal": [c.text for c in an.ranked() if c.equal], "history": v.history}


def card_token(state, token: str) -> str:
    """A plan step naming a research card ("take research:gp5", "activate dev:body1") with the
    card's display name, as menus and boards show it ("take Grand Prix 5 (gp5)"); other steps as
    they are."""
    from .render import card_name
    for verb, prefix in (("take", "take research:"), ("activate", "activate ")):
        if token.lower().startswith(prefix):
            name = token[len(prefix):].strip().lower()
            for ct in state.game.components.card_types:
                if ct.name.lower() == name:
                    return f"{verb} {card_name(ct)}"
    return token


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
    head = card_token(state, head)
    groups: list[str] = []
    inner: list[str] = []
    market: list[str] = []
    for t in map(lambda x: card_token(state, x), plan[1:]):
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
