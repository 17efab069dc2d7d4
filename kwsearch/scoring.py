"""Scoring that explains itself: who bought which car, what the race paid, the final sheet.

A round's scoring (RULES.md §6.3: Benz's fifth buyer, the Grand-Prix race §7, the
buyers §8) moves a lot of money at once. This module says where every coin came
from, per seat, as data (:class:`ScoringReport`) and as text:

    >>> from kwsearch.game import Game
    >>> reports = []
    >>> state = Game(3).new_initial_state(seed=4)
    >>> import random; rng = random.Random(4)
    >>> while not state.is_terminal():
    ...     reports += explain_apply(state, rng.choice(state.legal_actions()))
    >>> len(reports), reports[-1].final is not None
    (3, True)
    >>> all(r.total(s) == r.money_after[s] - r.money_before[s] for r in reports for s in range(3))
    True

How it works: the reference engine's scoring tasks append small tuples to
``State.score_log`` when it is a list (it is ``None`` by default and in every copy,
so the search never pays for it). :func:`explain_apply` applies a move to a state
of either engine; when the move finished a scoring it replays that step on a
reference copy with the log on (the fast engine is not touched) and turns the log
into reports. :func:`prospective_sales` ("who would buy which car if scoring
happened now") calls the buyers' rule itself, :func:`kwsearch.rules.choose_sales`
— the function the reference engine's sales task runs — so it can never disagree
with a real scoring.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from .components import AWARDS, PREFERENCES
from .engine import reference
from .records import replay
from .rules import State, choose_sales


AWARD_LABEL = {"gp1": "GP 1 lap", "gp2": "GP 2 laps", "buyer": "Buyer", "market": "Market",
               "body3": "Body 3", "body6": "Body 6", "engine4": "Engine 4", "engine7": "Engine 7",
               "worker": "Worker", "engineers": "Engineers"}

#: RULES.md §6: the tie rule stated in every final sheet.
TIE_RULE = "highest money wins, tied players share the win (rules §6: kwsearch rules 6)"


def prospective_sales(state) -> dict[int, tuple[int, int, int]]:
    """If scoring happened now (with the buyers active now, before any Benz fifth buyer):
    ``{market index: (buyer index, preference index, payment)}`` (either engine)."""
    st = reference(state)
    sales = choose_sales(st.market, st.active, st.active_daimler, lambda s: st.seats[s].has("opel"),
                         st.game.components)
    return {sale.car: (sale.buyer, st.active[sale.buyer], sale.payment) for sale in sales}


# ---------------------------------------------------------------------------
# The breakdown
# ---------------------------------------------------------------------------


@dataclass
class Car:
    """A car on the market at scoring."""
    seller: int
    body: int
    engine: int
    workers: int
    price: int
    maybach: int = 0  # Maybach marker: body counts this much more
    horch: int = 0    # Horch marker: engine counts this much more

    def text(self) -> str:
        body = f"body {self.body}" + (f"+{self.maybach} Maybach" if self.maybach else "")
        engine = f"engine {self.engine}" + (f"+{self.horch} Horch" if self.horch else "")
        return f"{body}, {engine}, {self.workers} worker{'s' if self.workers != 1 else ''}, price {self.price}"


@dataclass
class RaceLine:
    """One car in the race's ranking (``seat`` None: a neutral car of the two-player game)."""
    seat: int | None
    laps: int
    space: int
    place: int | None   # 1, 2, 3, ... among the cars that left the pit lane; None in the pit lane
    place_money: int


@dataclass
class Sale:
    """One active buyer at scoring: the car he bought (None: no unsold car was left)."""
    buyer: int           # 1-based position among the active buyers (Benz's fifth is the last)
    preference: str
    car: Car | None
    multiplier: int = 1  # a price buyer pays 2x, 3x to an Opel owner
    opel: bool = False
    daimler: int = 0     # a Daimler marker on this buyer adds this once
    payment: int = 0


@dataclass
class BenzBuyer:
    """Benz's fifth buyer, added at the start of scoring (RULES.md §5.3)."""
    seat: int
    preference: str
    white: int           # the white money lying by that stack, taken with it
    award: int           # the Buyer award's money if it came with it, else 0


@dataclass
class FinalSheet:
    """The game end: money, the awards each seat holds, places and the tie rule."""
    money: list[int]
    awards: list[list[tuple[str, int]]]
    places: list[int]    # per seat: 1 = best; tied seats share a place
    winners: list[int]
    rule: str = TIE_RULE


@dataclass
class ScoringReport:
    """Everything one round's scoring paid, and to whom (see :meth:`items`)."""
    round: int
    money_before: list[int]
    money_after: list[int]
    race: list[RaceLine] = field(default_factory=list)
    lap_money: list[int] = field(default_factory=list)
    laps: list[int] = field(default_factory=list)
    benz: list[BenzBuyer] = field(default_factory=list)
    sales: list[Sale] = field(default_factory=list)
    unsold: list[Car] = field(default_factory=list)
    final: FinalSheet | None = None

    # -- per seat ----------------------------------------------------------
    def items(self, seat: int) -> list[tuple[str, int]]:
        """What ``seat`` earned in this scoring, item by item (label, money); the items sum
        to the seat's money change."""
        out: list[tuple[str, int]] = []
        for b in self.benz:
            if b.seat == seat:
                if b.white:
                    out.append((f"white money by the {b.preference} stack (Benz's buyer)", b.white))
                if b.award:
                    out.append(("Buyer award (Benz's buyer)", b.award))
        for line in self.race:
            if line.seat == seat and line.place_money:
                out.append((f"{_ordinal(line.place)} in the race", line.place_money))
        if self.lap_money and self.lap_money[seat]:
            out.append((f"{self.laps[seat]} lap{'s' if self.laps[seat] != 1 else ''}", self.lap_money[seat]))
        for s in self.sales:
            if s.car is not None and s.car.seller == seat:
                out.append((f"sale to buyer {s.buyer} ({s.preference})", s.payment))
        return out

    def total(self, seat: int) -> int:
        return sum(v for _, v in self.items(seat))

    # -- text ----------------------------------------------------------------
    def lines(self, names: list[str] | None = None, width: int | None = None) -> list[str]:
        """The breakdown as text lines of at most ``width`` columns (default 100; the terminal's
        commands pass ``kwsearch.render.line_width()``)."""
        w = width or 100
        n = len(self.money_before)
        names = names if names and len(names) == n else [f"P{i + 1}" for i in range(n)]
        out = [f"Scoring of round {self.round}"]
        for b in self.benz:
            extra = f", Buyer award +{b.award}" if b.award else ""
            out.append(f"  Benz: {names[b.seat]} adds a fifth buyer ({b.preference}) and takes the white "
                       f"money +{b.white}{extra}")
        race = []
        for r in self.race:
            who = names[r.seat] if r.seat is not None else "neutral car"
            if r.place is None:
                race.append(f"{who} in the pit lane")
            else:
                where = f"lap {r.laps} space {r.space}" if r.seat is not None else f"space {r.space}"
                race.append(f"{_ordinal(r.place)} {who} ({where})" + (f" +{r.place_money}" if r.place_money else ""))
        out += _wrap("  Grand Prix: " + ("; ".join(race) if race else "no car left the pit lane"), w, "    ")
        laps = [f"{names[s]} {self.laps[s]} lap{'s' if self.laps[s] != 1 else ''} +{m}"
                for s, m in enumerate(self.lap_money) if m]
        if laps:
            out += _wrap("  Lap money: " + "; ".join(laps), w, "    ")
        for s in self.sales:
            if s.car is None:
                out.append(f"  Buyer {s.buyer} ({s.preference}) buys nothing: no unsold car left")
                continue
            pay = f"{s.car.price}"
            if s.multiplier != 1:
                pay += f" x{s.multiplier}" + (" (Opel)" if s.opel else "")
            if s.daimler:
                pay += f" + {s.daimler} Daimler"
            pay += f" = {s.payment}" if (s.multiplier != 1 or s.daimler) else ""
            out += _wrap(f"  Buyer {s.buyer} ({s.preference}) buys {names[s.car.seller]}'s car "
                         f"({s.car.text()}): {names[s.car.seller]} +{pay}", w, "    ")
        for car in self.unsold:
            out += _wrap(f"  Unsold: {names[car.seller]}'s car ({car.text()}) — its parts go back", w, "    ")
        out.append("  Money:")
        for seat in range(n):
            items = ", ".join(f"{label} +{v}" for label, v in self.items(seat))
            change = self.money_after[seat] - self.money_before[seat]
            out += _wrap(f"    {names[seat]}: {self.money_before[seat]} -> {self.money_after[seat]} "
                         f"({change:+d}{': ' + items if items else ''})", w, "      ")
        if self.final is not None:
            out += final_lines(self.final, names, w)
        return out

    # -- JSON ------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (the ``scoring`` entries of records and ``--json``; docs/formats.md)."""
        obj = asdict(self)
        obj["seats"] = [{"items": [{"what": label, "money": v} for label, v in self.items(s)],
                         "change": self.money_after[s] - self.money_before[s]}
                        for s in range(len(self.money_before))]
        if self.final is not None:
            obj["final"]["awards"] = [[{"award": a, "money": m} for a, m in row] for row in self.final.awards]
        return obj


def final_lines(sheet: FinalSheet, names: list[str], width: int | None = None) -> list[str]:
    w = width or 100
    out = ["Final score sheet"]
    order = sorted(range(len(sheet.money)), key=lambda s: (sheet.places[s], s))
    width = max(len(nm) for nm in names)
    for s in order:
        items = [award_text(a, m) for a, m in sheet.awards[s]]
        line = f"  {sheet.places[s]}. {names[s]:<{width}} {sheet.money[s]:>4}" + ("   awards:" if items else "")
        for k, item in enumerate(items):  # lines break between awards, never inside "Body 3 (3 money)"
            item += "," if k < len(items) - 1 else ""
            if len(line) + 1 + len(item) > w and line.strip():
                out.append(line)
                line = "      " + item
            else:
                line += " " + item
        out += _wrap(line, w, "      ")
    win = " and ".join(names[s] for s in sheet.winners)
    shared = " (they share the win)" if len(sheet.winners) > 1 else ""
    out += _wrap(f"  Winner: {win}{shared}; {sheet.rule}", w, "    ")
    return out


def award_text(award: str, money: int) -> str:
    """An award and the money it paid, as the final sheet lists it: "Body 3 (3 money)"."""
    return f"{AWARD_LABEL.get(award, award)} ({money} money)"


def _ordinal(k: int) -> str:
    return f"{k}{'th' if 10 <= k % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(k % 10, 'th')}"


def _wrap(text: str, width: int, indent: str) -> list[str]:
    """Word-wrap ``text`` to ``width`` columns, continuation lines indented."""
    lead = text[:len(text) - len(text.lstrip(" "))]
    lines, cur = [], lead
    for word in text.lstrip(" ").split(" "):
        if cur.strip() and len(cur) + 1 + len(word) > width:
            lines.append(cur)
            cur = indent + word
        else:
            cur = f"{cur} {word}" if cur.strip() else cur + word
    lines.append(cur)
    return lines


# ---------------------------------------------------------------------------
# From the engine's log to reports
# ---------------------------------------------------------------------------


def reports_from_log(log: list, money_before: list[int], state) -> list[ScoringReport]:
    """Turn the reference engine's ``score_log`` entries into reports.

    ``money_before`` is the money when the log began (used when the scoring had started
    before, i.e. a Benz decision split it); ``state`` is the reference state after the
    log's last entry (for the game's components and the final awards).
    """
    c = state.game.components
    n = state.game.num_players
    reports: list[ScoringReport] = []
    cur: ScoringReport | None = None
    start = list(money_before)
    for ev in log:
        if ev.kind == "start":
            start = list(ev.money)
            cur = None
            continue
        if cur is None:
            cur = ScoringReport(round=state.round, money_before=list(start), money_after=list(start))
        if ev.kind == "benz":
            cur.benz.append(BenzBuyer(ev.seat, PREFERENCES[ev.pref], ev.white,
                                      c.awards[AWARDS.index("buyer")] if ev.got_award else 0))
        elif ev.kind == "race":
            for k, car in enumerate(ev.cars):
                money = c.gp_place_money[k] if k < len(c.gp_place_money) and car.seat >= 0 else 0
                cur.race.append(RaceLine(car.seat if car.seat >= 0 else None, car.laps, car.space, k + 1, money))
            for seat in range(n):
                if ev.spaces[seat] == 0:
                    cur.race.append(RaceLine(seat, ev.laps[seat], 0, None, 0))
            cur.laps = list(ev.laps)
            cur.lap_money = [c.lap_money(x) for x in ev.laps]
        elif ev.kind == "sales":
            cars = [Car(*car) for car in ev.market]
            bought = {sale.buyer: sale for sale in ev.sales}
            for b, p in enumerate(ev.active):
                if b in bought:
                    sale = bought[b]
                    opel = sale.mult != 1 and sale.mult == c.opel_multiplier and sale.mult != c.price_buyer_multiplier
                    cur.sales.append(Sale(b + 1, PREFERENCES[p], cars[sale.car], sale.mult, opel, ev.daimler[b],
                                          sale.payment))
                else:
                    cur.sales.append(Sale(b + 1, PREFERENCES[p], None))
            sold = {sale.car for sale in ev.sales}
            cur.unsold = [car for i, car in enumerate(cars) if i not in sold]
        elif ev.kind == "end":
            cur.round = ev.round
            cur.money_after = list(ev.money)
            if ev.round >= c.rounds:
                cur.final = final_sheet(state, ev.money)
            reports.append(cur)
            cur = None
            start = list(ev.money)
    return reports


def final_sheet(state, money: list[int] | None = None) -> FinalSheet:
    """The final score sheet of a finished game (either engine)."""
    st = reference(state)
    c = st.game.components
    money = list(money if money is not None else st.money())
    awards = [[(a, c.awards[k]) for k, a in enumerate(AWARDS) if st.awards[k] == s] for s in range(len(money))]
    places = [1 + sum(1 for m in money if m > money[s]) for s in range(len(money))]
    best = max(money)
    return FinalSheet(money, awards, places, [s for s in range(len(money)) if money[s] == best])


def explain_apply(state, action: int) -> list[ScoringReport]:
    """Apply ``action`` to ``state`` (either engine, in place) and return the scorings it finished.

    A reference state whose ``score_log`` is a list keeps collecting into it (and the
    new entries are drained); otherwise the step is mirrored on a reference copy with
    the log on, only when it finished a scoring (the round changed or the game ended),
    so a fast-engine game pays one conversion per round.
    """
    if isinstance(state, State):
        own = state.score_log is None
        if own:
            state.score_log = []
        money = state.money()
        mark = len(state.score_log)
        state.apply(action)
        log = state.score_log[mark:]
        if own:
            state.score_log = None
        else:
            del state.score_log[mark:]
        return reports_from_log(log, money, state) if any(ev.kind == "end" for ev in log) else []
    before = state.copy()
    rnd = state.round
    state.apply(action)
    if state.round == rnd and not state.is_terminal():
        return []
    ref = before.to_reference()
    return explain_apply(ref, action)


def record_scorings(record, upto: int | None = None, source: str | None = None) -> list[ScoringReport]:
    """Every scoring of a game record (up to ``upto`` decisions), in order."""
    log: list[tuple] = []
    state = replay(record, upto=upto, source=source, score_log=log)
    return reports_from_log(log, [0] * state.game.num_players, state)
