"""A hand-written greedy player for Kraftwagen (``HeuristicBot``).

The bot is a sparring partner for the search: it plays the game the way a
sensible beginner would — researches toward the buyers' preferences, builds
the best cars its research allows, prices them to sell, takes buyers that suit
its cars, races when cheap — and it is fast (about a millisecond a decision
with the compiled engine).

Policy
------
Every decision is made by a **one-ply search over the legal options**: each
option is applied to a copy of the state, the rest of the seat's turn is played
out with the *hand rules* (:class:`HandRules`: cheap hand-written choices, one per
decision kind),
and the resulting position is scored by :func:`evaluate`. The option with the
highest score wins; ties are broken by a seeded :class:`random.Random`, so a
bot with a given seed is reproducible. ``docs/heuristic.md`` describes every
rule and every term of the evaluation.

The evaluation is ``V(me) - w * max(V(other))`` (``w`` =
:attr:`HeuristicConfig.opponent_weight`) where ``V`` adds
a seat's money to the projected worth of everything it holds: its cars on the
market (the purchases a scoring would make, by the engine's own buyers' rule
:func:`kwsearch.rules.choose_sales`, RULES.md §8),
the race if it were run now (§7), its workshop tiles (paired into cars), its
research points, workers, engineers and its place in the chain (tempo). Future
worth is scaled by the part of the game that is left.

The bot works on states of either engine: it reads the position through
:func:`kwsearch.engine.reference` and simulates on copies of the state it was
given, never on the state itself. Its only memory between calls is a count of
its own turns during which the round did not advance (after a few it forces
progress, so that no game can go on for ever); :meth:`HeuristicBot.restart`
clears it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from . import actions as A
from .actions import ENGINE_CODE
from .components import ALL_ACTIONS, AWARDS, ENGINEERS
from .engine import reference
from .game import SEAT, is_seat
from .rules import buyers_choices, choose_sales

__all__ = ["HeuristicBot", "HeuristicConfig", "HandRules", "evaluate", "seat_values", "project_sales"]

_BODY, _ENGINE, _PRESTIGE, _PRICE = range(4)
_AW = {name: i for i, name in enumerate(AWARDS)}
_ENG = {name: i for i, name in enumerate(ENGINEERS)}
_STOP = ("turn", "setup", "over")  # the rollout of a turn stops at the next turn (or the end)
_PASSES = (A.MARKET_PASS, A.DAIMLER_PASS, A.DIESEL_PASS, A.BENZ_PASS)
_ORDER = ("hire", "research", "engine", "gp_engine2", "body", "gp", "gp_start2", "buyer")


@dataclass(frozen=True)
class HeuristicConfig:
    """The weights of the evaluation (see ``docs/heuristic.md``)."""

    opponent_weight: float = 0.5    # score = V(me) - w * max V(other)
    tempo: float = 15.0             # per opponent worker ahead of mine in the chain
    sold_certainty: float = 0.55    # a car a current buyer would take, early in the round (-> 1 at its end)
    unsold_chance: float = 0.7     # a car no current buyer takes: chance a future buyer does
    race_weight: float = 1.0        # the race as if run now, early in the round (-> 1 at its end)
    pair_base: float = 2.5          # a body + engine in the workshops: a car to come
    pair_per_point: float = 0.45
    car_quality: float = 0.15       # per body + engine point of a market car, early in the round
    single_base: float = 0.5        # an unpaired workshop tile
    single_per_point: float = 0.2
    research_point: float = 0.7     # a research point below 7, per remaining round
    gp_engine_point: float = 0.35   # a GP engine point, per remaining round
    worker_values: tuple = (1.4, 1.1, 0.8, 0.5, 0.3, 0.2)  # canteen workers, first to last
    win_bonus: float = 10.0         # at the end of the game, for each winner (shared on a tie)
    stall_turns: int = 6            # own turns without the round advancing before forcing progress


DEFAULT_CONFIG = HeuristicConfig()

# Worth of an engineer card kept for the game (its markers are valued apart).
_ENGINEER_WORTH = {"opel": 2.0, "horch": 0.0, "benz": 0.0, "bugatti": 1.5, "porsche": 2.0,
                   "daimler": 0.0, "otto": 0.0, "diesel": 0.0, "maybach": 0.0}


# ---------------------------------------------------------------------------
# Buyers: the scoring's purchases (RULES.md §8), by the engine's own rule
# ---------------------------------------------------------------------------


def project_sales(market, active, bonuses) -> list[int]:
    """For each car on ``market``, the index of the active buyer that would buy it at a scoring
    run now (-1: unsold). Cars are ``[seat, body, engine, workers, price, body+, engine+]``.
    The buyers' rule is the engine's own (:func:`kwsearch.rules.buyers_choices`)."""
    buyer_of = [-1] * len(market)
    for b, car in buyers_choices(market, active):
        buyer_of[car] = b
    return buyer_of


def _opel_of(st):
    """``has_opel(seat)`` for :func:`kwsearch.rules.choose_sales` over the seats of ``st``."""
    return lambda seat: st.seats[seat].has("opel")


def _sales(st, market, active, bonuses) -> list[tuple[int, int, int, int]]:
    """The sales a scoring would make now over ``market`` with buyers ``active`` (Daimler markers
    ``bonuses``) for the sellers of ``st``: the engine's rule, :func:`kwsearch.rules.choose_sales`."""
    return choose_sales(market, active, bonuses, _opel_of(st), st.game.components)


def market_values(st, market, active, bonuses, progress: float,
                  cfg: "HeuristicConfig | None" = None) -> list[float]:
    """Expected sale revenue of each car of ``market``.

    A car an active buyer takes (simulated as at scoring) is worth its price times the buyer's
    multiplier plus any Daimler marker, scaled by a certainty that grows to 1 as the round ends.
    A car no active buyer takes may still sell to a buyer yet to come: for every preference whose
    stack is not empty, the unsold car such a buyer would take gets that preference's share of
    the stacks; ``f`` buyer spaces still free make the chance ``1 - (1 - share) ** f``.
    """
    cfg = cfg or DEFAULT_CONFIG
    out = [0.0] * len(market)
    cert = cfg.sold_certainty + (1.0 - cfg.sold_certainty) * progress
    sold = set()
    for _, i, _, payment in _sales(st, market, active, bonuses):
        out[i] = payment * cert
        sold.add(i)
    unsold = [i for i in range(len(market)) if i not in sold]
    free = st.game.buyer_spaces - len(active)
    total = sum(st.stacks)
    if not unsold or free <= 0 or total <= 0:
        return out
    # The round may end before every free space is taken: at most one more buyer per free
    # market space (a rough pace of the game).
    free = min(free, 1 + st.game.market_size - len(market))
    cars = [market[i] for i in unsold]
    share = [0.0] * len(cars)
    paid = [0.0] * len(cars)
    has_opel = _opel_of(st)
    comps = st.game.components
    for pref in range(4):
        if st.stacks[pref] <= 0:
            continue
        w = st.stacks[pref] / total
        [sale] = choose_sales(cars, [pref], [0], has_opel, comps)  # a lone buyer of pref
        k, mult = sale.car, sale.mult
        share[k] += w
        paid[k] += w * cars[k][4] * mult
    rest = cfg.unsold_chance * 0.15 * min(1.0, free / len(cars))
    for k, i in enumerate(unsold):
        car = cars[k]
        if share[k] > 0:
            chance = 1.0 - (1.0 - share[k]) ** free
            out[i] = cfg.unsold_chance * chance * paid[k] / share[k]
        else:
            out[i] = rest * car[4]
    return out


# ---------------------------------------------------------------------------
# Evaluation
# ---------------------------------------------------------------------------


def _progress(st) -> float:
    """How far the current round is, 0..1 (the round ends at a full market or the track at 0)."""
    g = st.game
    fill = len(st.market) / g.market_size
    buyers = (len(st.active) + (g.track_start - st.track)) / (g.buyer_spaces + g.track_start)
    return min(1.0, max(fill, buyers))


def _pair_tiles(workshops) -> tuple[list[tuple[int, int]], list[int]]:
    """Workshop tiles as cars (best body with best engine, ...) and the tiles left over."""
    bodies = sorted((w for w in workshops if w < ENGINE_CODE), reverse=True)
    engines = sorted((w - ENGINE_CODE for w in workshops if w > ENGINE_CODE), reverse=True)
    n = min(len(bodies), len(engines))
    return list(zip(bodies[:n], engines[:n])), bodies[n:] + engines[n:]


def workshop_value(workshops, tf: float, cfg: HeuristicConfig = DEFAULT_CONFIG) -> float:
    pairs, singles = _pair_tiles(workshops)
    v = sum(cfg.pair_base + cfg.pair_per_point * (b + e) for b, e in pairs)
    v += sum(cfg.single_base + cfg.single_per_point * t for t in singles)
    return v * tf


def seat_values(st, cfg: HeuristicConfig = DEFAULT_CONFIG) -> list[float]:
    """``V(seat)`` for every seat of a state of either engine (see the module docstring)."""
    st = reference(st)  # the state itself on the reference engine
    g = st.game
    c = g.components
    over = st.phase == "over"
    vals = [float(s.money) for s in st.seats]
    if over:
        best = max(vals)
        winners = [i for i, v in enumerate(vals) if v == best]
        for i in winners:
            vals[i] += cfg.win_bonus / len(winners)
        return vals
    p = _progress(st)
    rounds_after = c.rounds - st.round
    future = rounds_after + (1.0 - p)          # rounds of play left
    tf = min(1.0, future * 1.5)                # worth of things that need time to be used
    late = min(2.0, future)

    # Cars on the market.
    if st.market:
        q = cfg.car_quality * (1.0 - p)  # a better car keeps its buyer against cars to come
        for car, v in zip(st.market, market_values(st, st.market, st.active, st.active_daimler, p, cfg)):
            vals[car[0]] += v + q * (car[1] + car[2] + car[5] + car[6])

    # The race as if it were run now.
    race_w = cfg.race_weight + (1.0 - cfg.race_weight) * p
    cars = [(s.laps, s.space, i) for i, s in enumerate(st.seats) if s.space > 0]
    cars += [(0, sp, -1) for sp in g.neutral_cars]
    cars.sort(reverse=True)
    for place, (_, _, seat) in enumerate(cars[:len(c.gp_place_money)]):
        if seat >= 0:
            vals[seat] += c.gp_place_money[place] * race_w
    for i, s in enumerate(st.seats):
        if s.laps:
            vals[i] += c.lap_money(s.laps) * race_w

    for i, s in enumerate(st.seats):
        v = workshop_value(s.workshops, tf, cfg)
        bp, ep = st.research_points(i)
        v += cfg.research_point * (min(bp, 7) + min(ep, 7) - 2) * late
        # Body and engine awards within reach of the next tile.
        if st.awards[_AW["body6"]] < 0 and bp >= 6:
            v += 3.0 * tf
        elif st.awards[_AW["body3"]] < 0 and bp >= 3:
            v += 1.2 * tf
        if st.awards[_AW["engine7"]] < 0 and ep >= 7:
            v += 3.0 * tf
        elif st.awards[_AW["engine4"]] < 0 and ep >= 4:
            v += 1.2 * tf
        for t in s.dev_inactive:  # needs a worker from the supply first
            ct = c.card_types[t]
            v += 0.5 * cfg.research_point * (ct.body + ct.engine) * late
        v += cfg.gp_engine_point * (s.gp_engine - 1) * late
        wv = cfg.worker_values
        v += sum(wv[min(k, len(wv) - 1)] for k in range(s.canteen)) * tf
        if st.awards[_AW["worker"]] < 0 and s.supply <= 3:
            v += (4 - s.supply) * 0.8 * tf
        # Engineers and their markers.
        eng = s.engineers
        if eng:
            for name, worth in _ENGINEER_WORTH.items():
                if eng >> _ENG[name] & 1:
                    v += worth * tf
            if st.awards[_AW["engineers"]] < 0 and bin(eng).count("1") == 2:
                v += 2.0 * tf
        v += sum(1.0 + m for m in s.maybach) * tf + sum(1.0 + m for m in s.horch) * tf
        v += sum(0.7 * m for m in s.daimler) * tf + 1.5 * s.diesel * tf + 3.5 * s.benz * tf
        vals[i] += v

    # Tempo: opponents' workers ahead of this seat's worker act first.
    ahead = 0
    for e in st.chain:
        if is_seat(e):
            vals[e - SEAT] -= cfg.tempo * ahead * tf
            ahead += 1
    return vals


def _round_clock(st) -> tuple:
    """How far the game is: (game over, round, buyer-track moves + buyers + market cars)."""
    g = st.game
    if st.phase == "over":
        return (1, 0, 0)
    return (0, st.round, (g.track_start - st.track) + len(st.active) + len(st.market))


def evaluate(st, seat: int, cfg: HeuristicConfig = DEFAULT_CONFIG) -> float:
    """The score of a state (either engine) for ``seat``: ``V(seat) - w * max V(other)``."""
    vals = seat_values(st, cfg)
    others = max(v for i, v in enumerate(vals) if i != seat)
    return vals[seat] - cfg.opponent_weight * others


# ---------------------------------------------------------------------------
# Rules: one cheap hand-written choice per decision kind
# ---------------------------------------------------------------------------


def _car_revenue(st, seat: int, car, market=None, cfg: "HeuristicConfig | None" = None) -> float:
    """What ``car`` (not yet on the market) is projected to earn if added to it."""
    market = st.market if market is None else market
    mk = market + [car]
    g = st.game
    progress = min(1.0, max(len(mk) / g.market_size,
                            (len(st.active) + g.track_start - st.track) / (g.buyer_spaces + g.track_start)))
    return market_values(st, mk, st.active, st.active_daimler, progress, cfg)[-1]


class HandRules:
    """The hand rules: one cheap hand-written choice per decision kind, used to play out the rest
    of a turn inside the bot's look-ahead (:meth:`HeuristicBot.rule_action` shows one alone).

    :meth:`choose` takes a *reference* state (the bot converts once per decision) and returns
    one of its legal actions; ``docs/heuristic.md`` lists every rule. Sales and Diesel are
    valued with the engine's own rules (:func:`kwsearch.rules.choose_sales`,
    :meth:`kwsearch.rules.State.diesel_changes`), never a copy of them.
    """

    def __init__(self, cfg: HeuristicConfig):
        self.cfg = cfg

    def choose(self, st, legal: list[int]) -> int:
        kind = st.tasks[-1][0]
        fn = getattr(self, "r_" + kind, None)
        if fn is None:
            return legal[0]
        a = fn(st, legal)
        return a if a in legal else legal[0]

    # -- tile: the order of its actions
    def r_tile(self, st, legal):
        return min(legal, key=lambda a: _ORDER.index(ALL_ACTIONS[a - A.DO]))

    def r_turn(self, st, legal):
        return legal[0]

    def r_setup(self, st, legal):
        return legal[0]

    def r_hire(self, st, legal):
        ct = st.game.components.card_types
        return max(legal, key=lambda a: (ct[a - A.ACTIVATE].body + ct[a - A.ACTIVATE].engine, -a))

    def r_research(self, st, legal):
        seat = st.turn_seat
        return max(legal, key=lambda a: (self.card_worth(st, seat, a - A.RESEARCH), -a))

    def card_worth(self, st, seat: int, t: int) -> float:
        c = st.game.components
        ct = c.card_types[t]
        s = st.seats[seat]
        p = _progress(st)
        future = c.rounds - st.round + (1.0 - p)
        late = min(2.0, future)
        if ct.kind == "development":
            bp, ep = st.research_points(seat)
            v = self.cfg.research_point * late * (min(ct.body, max(0, 7 - bp)) + min(ct.engine, max(0, 7 - ep)))
            # Research toward the buyers: points of a kind an active buyer wants.
            if ct.body and _BODY in st.active:
                v += 0.5
            if ct.engine and _ENGINE in st.active:
                v += 0.5
            if s.canteen == 0:
                # Inactive for now; its immediate tile still comes, by the points without it (RULES.md §5.1).
                return 0.4 * v + (1.5 if ct.tile else 0.0)
            if ct.tile:
                v += 2.0
            return v - 0.6  # the worker it takes from the canteen
        if ct.kind == "instant":
            if ct.effect == "hire":
                return 0.9 * min(ct.amount, s.supply)
            if ct.effect == "gp":
                return 2.0 + (1.5 if s.space > 0 else 0.0)
            return 2.5 + 0.3 * sum(st.research_points(seat))
        name = ct.engineer
        v = {"opel": 2.5, "horch": 4.0, "benz": 3.5, "bugatti": 1.5, "porsche": 2.5, "daimler": 4.0,
             "otto": 3.5, "diesel": 2.5, "maybach": 4.0}[name]
        if name == "opel" and (_PRICE in st.active or st.stacks[_PRICE] > 0):
            v += 1.0
        if st.awards[_AW["engineers"]] < 0 and bin(s.engineers).count("1") == 2:
            v += 5.0
        return v * min(1.0, future)

    def r_engine_dest(self, st, legal):
        s = st.seats[st.turn_seat]
        v = st.tasks[-1][1]
        bodies = sum(1 for w in s.workshops if w < ENGINE_CODE)
        engines = [w - ENGINE_CODE for w in s.workshops if w > ENGINE_CODE]
        if v < s.gp_engine:
            return A.ENGINE_WORKSHOP  # a lower engine would only slow the car
        if v == s.gp_engine:
            # The GP car is offered whatever the values (RULES.md §4.1): an equal engine there
            # changes nothing but spares a workshop tile, worth it when the workshops are full and
            # already hold an engine as good.
            full = len(s.workshops) >= 3
            return A.ENGINE_GP if full and engines and max(engines) >= v else A.ENGINE_WORKSHOP
        if s.engineers >> _ENG["bugatti"] & 1:
            return A.ENGINE_GP
        if v >= s.gp_engine + 2 and len(engines) > bodies and max(engines) >= v - 1:
            return A.ENGINE_GP
        return A.ENGINE_WORKSHOP

    def r_card_order(self, st, legal):
        """The "one body & one engine" card: the body first (a car body is never wasted)."""
        return A.ORDER_BODY

    def r_special_order(self, st, legal):
        """A V6 tile: the GP engine upgrade before the tile's GP move (the car races with the better
        engine); otherwise the standard action first."""
        tile = st.game.components.specialty_tiles[st.tasks[-1][1]]
        if tile.bonus == "gp_engine" and tile.action == "gp":
            return A.ORDER_BONUS
        return A.ORDER_ACTION

    def r_place(self, st, legal):
        s = st.seats[st.turn_seat]
        new = st.tasks[-1][1]

        def keep(a):
            ws = list(s.workshops)
            ws.remove(a - A.GIVEUP)
            return workshop_value(ws + [new], 1.0, self.cfg)
        return max(legal, key=lambda a: (keep(a), -a))

    def r_buyer(self, st, legal):
        seat = st.turn_seat
        return max(legal, key=lambda a: (self.buyer_worth(st, seat, a - A.BUYER), -a))

    def buyer_worth(self, st, seat: int, pref: int) -> float:
        """White money and the change of projected sales (own minus half the others')."""
        before = [0] * len(st.market)  # each car's payment at a scoring now (0: unsold)
        for _, i, _, payment in _sales(st, st.market, st.active, st.active_daimler):
            before[i] = payment
        after = [0] * len(st.market)  # ... and with this buyer added
        for _, i, _, payment in _sales(st, st.market, st.active + [pref], st.active_daimler + [0]):
            after[i] = payment
        gain = 0.0
        for car, r0, r1 in zip(st.market, before, after):
            gain += (r1 - r0) * (1.0 if car[0] == seat else -0.5)
        # With nothing of ours on the market, a buyer our workshop cars would suit.
        if not any(car[0] == seat for car in st.market):
            pairs, _ = _pair_tiles(st.seats[seat].workshops)
            bp, ep = st.research_points(seat)
            if pref == _BODY:
                gain += 0.3 * (max((b for b, _ in pairs), default=bp))
            elif pref == _ENGINE:
                gain += 0.3 * (max((e for _, e in pairs), default=ep))
            elif pref == _PRESTIGE:
                gain += 0.25 * st.seats[seat].canteen
            else:
                gain += 1.5 if st.seats[seat].engineers >> _ENG["opel"] & 1 else 0.5
        v = st.white[pref] + gain
        if st.awards[_AW["buyer"]] < 0 and pref in st.active:
            v += st.game.components.awards[_AW["buyer"]]
        return v

    # -- market
    def r_market(self, st, legal):
        if len(legal) == 1:
            return legal[0]
        seat = st.turn_seat
        s = st.seats[seat]
        body = max(a - A.MARKET_BODY + 1 for a in legal if a != A.MARKET_PASS)
        engine = max(w - ENGINE_CODE for w in s.workshops if w > ENGINE_CODE)
        workers = self.workers_for(st, seat, body, engine, s.canteen)
        best = max(_car_revenue(st, seat, [seat, body, engine, workers, price, 0, 0], cfg=self.cfg)
                   for price in st.prices)
        rounds = st.game.components.rounds
        keep = (self.cfg.pair_base + self.cfg.pair_per_point * (body + engine)) * min(1.0, rounds - st.round + 0.5)
        if best >= 0.6 * keep or _progress(st) > 0.6 or st.round == rounds:
            return A.MARKET_BODY + body - 1
        return A.MARKET_PASS

    def r_market_engine(self, st, legal):
        return max(legal)

    def workers_for(self, st, seat: int, body: int, engine: int, canteen: int) -> int:
        """One worker, or enough to beat every car on the market for a prestige buyer."""
        if _PRESTIGE in st.active or (st.stacks[_PRESTIGE] > 0 and len(st.active) < st.game.buyer_spaces):
            need = 1 + max((car[3] for car in st.market), default=0)
            if need <= canteen and need <= 4:
                return need
        return 1

    def r_market_workers(self, st, legal):
        seat = st.turn_seat
        body, engine = st.car[0], st.car[1]
        n = self.workers_for(st, seat, body, engine, st.seats[seat].canteen)
        return A.MARKET_WORKERS + n - 1

    def r_market_price(self, st, legal):
        seat = st.turn_seat
        body, engine, workers = st.car[0], st.car[1], st.car[2]

        def worth(a):
            price = a - A.MARKET_PRICE
            return _car_revenue(st, seat, [seat, body, engine, workers, price, 0, 0], cfg=self.cfg)
        return max(legal, key=lambda a: (worth(a), a))

    def r_market_marker(self, st, legal):
        seat = st.turn_seat
        body, engine, workers, price = st.car
        slots = st.game.marker_slots
        base = _car_revenue(st, seat, [seat, body, engine, workers, price, 0, 0], cfg=self.cfg)
        best, best_gain = A.MARKET_NO_MARKER, 1.5
        for a in legal:
            if a == A.MARKET_NO_MARKER:
                continue
            eng, v = slots[a - A.MARKET_MARKER]
            car = [seat, body, engine, workers, price, v if eng == "maybach" else 0, v if eng == "horch" else 0]
            kept = 0.0 if st.round == st.game.components.rounds else 1.0 + v  # the marker's worth kept
            gain = _car_revenue(st, seat, car, cfg=self.cfg) - base - kept
            if gain > best_gain:
                best, best_gain = a, gain
        return best

    def r_daimler(self, st, legal):
        seat = st.turn_seat
        buyer_of = project_sales(st.market, st.active, st.active_daimler)
        mine = {b for car, b in zip(st.market, buyer_of) if car[0] == seat and b >= 0}
        last = st.round == st.game.components.rounds
        p = _progress(st)
        best = A.DAIMLER_PASS
        for a in legal:
            if a == A.DAIMLER_PASS:
                continue
            m, b = divmod(a - A.DAIMLER, 5)
            if b in mine and (last or p >= 0.5):
                if best == A.DAIMLER_PASS or a > best:
                    best = a
        return best

    def r_diesel(self, st, legal):
        seat = st.turn_seat
        best, best_gain = A.DIESEL_PASS, 3.0
        for a in legal:
            if a == A.DIESEL_PASS:
                continue
            price = a - A.DIESEL_CAR
            gain = self._diesel_best(st, seat, price)[1]
            if gain > best_gain:
                best, best_gain = a, gain
        return best

    def _diesel_best(self, st, seat, price):
        """The Diesel change of the own car at ``price`` that raises its projected revenue most
        (extra workers cost 0.3 each), and that gain; the changes are the engine's own."""
        i = next(k for k, car in enumerate(st.market) if car[4] == price)
        car = st.market[i]
        rest = st.market[:i] + st.market[i + 1:]

        def rev(cc):
            return _car_revenue(st, seat, cc, market=rest, cfg=self.cfg)
        base = rev(list(car))
        best, best_gain = None, -1e9
        for a, changed in st.diesel_changes(price):
            gain = rev(changed) - base
            gain -= 0.3 * (changed[3] - car[3])  # workers taken from the canteen (0 for other changes)
            if gain > best_gain:
                best, best_gain = a, gain
        return best, best_gain

    def r_diesel_change(self, st, legal):
        seat = st.turn_seat
        a, _ = self._diesel_best(st, seat, st.tasks[-1][1])
        return a if a in legal else legal[0]

    def r_benz(self, st, legal):
        seat = st.tasks[-1][1]
        best, best_v = A.BENZ_PASS, (0.0 if st.round == st.game.components.rounds else 4.0)
        for a in legal:
            if a == A.BENZ_PASS:
                continue
            pref = a - A.BENZ
            v = self.buyer_worth(st, seat, pref)
            if v > best_v:
                best, best_v = a, v
        return best


# ---------------------------------------------------------------------------
# The bot
# ---------------------------------------------------------------------------


class HeuristicBot:
    """A greedy player: one-ply search over the options, the rest of the turn by hand rules.

    >>> from kwsearch.game import Game
    >>> st = Game(2).new_initial_state(seed=3)
    >>> bot = HeuristicBot(seed=0)
    >>> bot.step(st) in st.legal_actions()
    True
    """

    def __init__(self, seed: int = 0, config: HeuristicConfig | None = None):
        self.seed = seed
        self.config = config or DEFAULT_CONFIG
        self.rules = HandRules(self.config)
        self.restart()

    def restart(self) -> None:
        """Forget the game: the tie-breaking generator starts again from the seed."""
        self.rng = random.Random(self.seed)
        self._last_key = None
        self._stall = 0

    def __repr__(self) -> str:
        return f"HeuristicBot(seed={self.seed})"

    # -- the decision
    def step(self, state) -> int:
        """The chosen action (one of ``state.legal_actions()``); ``state`` is not changed."""
        legal = state.legal_actions()
        if not legal:
            raise ValueError("step: the game is over, there is no decision to make")
        if len(legal) == 1:
            return legal[0]
        me = state.current_player()
        forcing = state.pending() == "turn" and self._stalled(reference(state))
        best: list[int] = []
        best_score = None
        for a in legal:
            st = state.copy()
            st.apply(a)
            self._finish_turn(st)
            ref = reference(st)
            score = evaluate(ref, me, self.config)
            if forcing:
                score = (_round_clock(ref), score)
            if best_score is None or score > best_score:
                best, best_score = [a], score
            elif score == best_score:
                best.append(a)
        return best[0] if len(best) == 1 else self.rng.choice(best)

    def _stalled(self, ref) -> bool:
        """Whether the round has not advanced during the last ``stall_turns`` own turns.

        The evaluation alone could let a game with opponents that never take a buyer or sell a
        car go on for ever (tempo and assets keep their worth while nothing happens); after that
        many own turns without progress the bot takes the option that advances the round most.
        """
        key = _round_clock(ref)
        if key == self._last_key:
            self._stall += 1
        else:
            self._last_key, self._stall = key, 0
        return self._stall >= self.config.stall_turns

    def _finish_turn(self, st, limit: int = 200) -> None:
        """Play ``st`` on with the rules until the next turn starts (or the game ends)."""
        rules = self.rules
        for _ in range(limit):
            if st.is_terminal() or st.pending() in _STOP:
                return
            legal = st.legal_actions()
            st.apply(rules.choose(reference(st), legal))

    def rule_action(self, state) -> int:
        """The hand rule's choice alone (no search): the policy used inside the look-ahead."""
        return self.rules.choose(reference(state), state.legal_actions())
