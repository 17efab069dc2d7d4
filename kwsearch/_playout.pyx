# cython: language_level=3
"""The rollout policies: how a playout picks at each decision (random, tempo, smart).

The engine (:mod:`kwsearch._fast`) owns the one playout loop, ``k_loop``, next to its task
machine; this module supplies the policies it calls at each decision (a ``PickFn``):

* ``random``: the loop's own uniform pick (no policy);
* ``tempo`` (``pick_tempo``): the tile that lets the fewest other workers past, a car offered at
  the market, a sensible engine destination (``k_playout_tempo``);
* ``smart`` (``pick_smart``): kwsearch/heuristic.py's hand rules at playout speed
  (``smart_rule``, docs/heuristic.md; ``k_playout_smart``), its knobs in ``PlayoutParams``.

``k_play`` / ``k_rollout`` (declared in ``_playout.pxd``) run the loop with the policy of a
``RolloutKind`` (the enum of ``_playout.pxd``, whose names are ``kwsearch.settings.ROLLOUTS``,
checked at import; ``ROLLOUT_KINDS`` maps them); the search (:mod:`kwsearch._search`) and the
evaluation's training games (:mod:`kwsearch._eval`) call them. The buyers' rule the smart policy
projects with is the engine's own, ``sales_rule`` of ``_fast.pxd``.
"""

from libc.stdlib cimport free, malloc
from libc.stdint cimport int8_t, int16_t, uint32_t, uint64_t

from kwsearch import actions as _A
from kwsearch.settings import ROLLOUTS

from kwsearch._fast cimport (AK_GP, BN_GP_ENGINE, CAR_BODY, CAR_BODY_BONUS, CAR_ENGINE, CAR_ENGINE_BONUS,
                             CAR_FIELDS, CAR_OWNER, CAR_PRICE, CAR_WORKERS, ENGINE_CODE, EN_BUGATTI, EN_OPEL,
                             MAX_BUYERS, MAX_LEGAL, MAX_MARKET, MAXP, MAX_TILES, PREF_BODY, PREF_ENGINE,
                             PREF_PRESTIGE, SEAT, SPECIAL, TK_BENZ, TK_BUYER, TK_CARD_ORDER, TK_DAIMLER,
                             TK_DIESEL, TK_ENGINE_DEST, TK_HIRE, TK_MARKET, TK_MARKET_ENGINE,
                             TK_MARKET_MARKER, TK_MARKET_PRICE, TK_MARKET_WORKERS, TK_PLACE, TK_RESEARCH,
                             TK_SPECIAL_ORDER, TK_TILE, TK_TURN, Comp, FastState, KState, SeatS, GuideFn,
                             PickFn, has, k_loop, k_next, k_playout, k_unit, research_points, sales_rule, seed_to_rng)

cdef extern from *:
    """
    #define kw_ctz32(x) __builtin_ctz((unsigned int)(x))
    """
    int kw_ctz32(uint32_t x) noexcept nogil       # index of the lowest set bit of x (x != 0)


# Action-id layout, read from kwsearch.actions once at import (as the engine does).
cdef int A_ACTIVATE = _A.ACTIVATE
cdef int A_BENZ = _A.BENZ
cdef int A_BENZ_PASS = _A.BENZ_PASS
cdef int A_BUYER = _A.BUYER
cdef int A_DAIMLER = _A.DAIMLER
cdef int A_DAIMLER_PASS = _A.DAIMLER_PASS
cdef int A_DIESEL_PASS = _A.DIESEL_PASS
cdef int A_DO = _A.DO
cdef int A_ENGINE_GP = _A.ENGINE_GP
cdef int A_ENGINE_WORKSHOP = _A.ENGINE_WORKSHOP
cdef int A_GIVEUP = _A.GIVEUP
cdef int A_MARKET_MARKER = _A.MARKET_MARKER
cdef int A_MARKET_NO_MARKER = _A.MARKET_NO_MARKER
cdef int A_MARKET_PASS = _A.MARKET_PASS
cdef int A_MARKET_PRICE = _A.MARKET_PRICE
cdef int A_MARKET_WORKERS = _A.MARKET_WORKERS
cdef int A_ORDER_ACTION = _A.ORDER_ACTION
cdef int A_ORDER_BODY = _A.ORDER_BODY
cdef int A_ORDER_BONUS = _A.ORDER_BONUS
cdef int A_RESEARCH = _A.RESEARCH
cdef int A_SPECIAL_TILE = _A.SPECIAL_TILE
cdef int A_TILE = _A.TILE


# ---------------------------------------------------------------------------
# The tempo playout
# ---------------------------------------------------------------------------

cdef inline int tempo_tile(KState* s, uint64_t* rng) noexcept nogil:
    """The tempo policy's tile at a turn: uniformly one of the tiles that let the fewest other
    workers past the seat moving, found in one pass over the chain.

    The seat moving is ``chain[0]``; a tile at position j lets past it the seats in
    ``chain[1:j]``, a count that only grows along the chain, so the fewest are the
    tiles between the first seat-free run after position 0 and the next seat. They are
    collected as a bit set indexed like the options of ``task_turn`` (action tile ``t``
    is bit ``t``, the V6 specialty tile bit ``MAX_TILES``), and the k-th set bit is
    taken: the same choice, from the same random number, as a scan of the options in
    their order.
    """
    cdef uint32_t good = 0
    cdef int j, e, m, k, special = 0
    m = 0  # tiles collected (each chain entry is distinct, so each sets a new bit)
    for j in range(1, s.nchain):
        e = s.chain[j]
        if SEAT <= e < SPECIAL:  # another seat's worker
            if good:
                break
        elif e < SEAT:
            good |= <uint32_t>1 << e
            m += 1
        else:
            good |= <uint32_t>1 << MAX_TILES
            special = e - SPECIAL
            m += 1
    k = <int>(k_next(rng) % <uint64_t>m)
    while k > 0:  # drop the k lowest set bits: the k-th (from 0) is then the lowest
        good &= good - 1
        k -= 1
    j = kw_ctz32(good)
    return A_TILE + j if j < MAX_TILES else A_SPECIAL_TILE + special


cdef int k_playout_tempo(KState* s, const Comp* c, uint64_t* rng, int16_t* trace, int cap,
                         int max_decisions) noexcept nogil:
    """Play to the end with a cheap policy that keeps tempo and sells; return the number of decisions.
    With ``max_decisions > 0`` the playout stops after that many decisions (the playout cut-off of
    the search, ``SearchConfig.cutoff``), leaving the state at its next decision.

    At a turn, three times in four the seat takes one of the tiles that let the
    fewest other workers past it (uniformly among those), otherwise any tile; at
    the market step it passes only one time in eight when it could offer a car.
    A new engine lower than the GP car's goes to a workshop, an equal one goes to
    the GP car only when the workshops are full (RULES.md §4.1 offers both places
    whatever the values; a lower engine in the car would only slow it). Every
    other decision is uniformly random. ``trace`` (if given) receives the first
    ``cap`` actions taken (for tests).
    """
    return k_play(s, c, rng, ROLLOUT_TEMPO, trace, cap, max_decisions, NULL, NULL, NULL, 0.0)


# ---------------------------------------------------------------------------
# The smart playout: the heuristic bot's cheap rules at playout speed
# ---------------------------------------------------------------------------
#
# kwsearch/heuristic.py's ``HandRules`` (docs/heuristic.md), cut down to what costs a
# few hundred nanoseconds: no evaluation, no copies, no allocation. Each rule
# returns its choice or -1 ("no opinion": the playout then picks at random); the
# playout checks that a choice is among the options before taking it.

#: The place of each action kind (AK_*) in the heuristic's order of a tile's actions
#: (heuristic._ORDER: hire, research, engine, gp_engine2, body, gp, gp_start2, buyer).
cdef int8_t SMART_TILE_ORDER[8]
SMART_TILE_ORDER[:] = [0, 4, 2, 5, 1, 7, 3, 6]
#: Worth of each engineer (EN_* order) relative to the others (heuristic card_worth / 4).
cdef double SMART_ENGINEER[9]
SMART_ENGINEER[:] = [0.625, 1.0, 0.875, 0.375, 0.625, 1.0, 0.875, 0.625, 1.0]


cdef int smart_gain(KState* s, const Comp* c, const int8_t* prefs, int nprefs, int pref, int seat,
                    int* others) noexcept nogil:
    """How much more the scoring's purchases (heuristic.project_sales; the rule is sales_rule of
    _fast.pxd) of the market's cars fetch when one buyer of ``pref`` comes after buyers of
    ``prefs[0:nprefs]``: returns what it adds to ``seat``'s revenue and sets ``others[0]`` to what
    it adds to the other seats'. The buyers before it choose as they would without it, so this is
    the difference of two projections (with and without it), computed as one: the first buyers'
    choices, then the one buyer's purchase from the cars they leave. The new buyer has no Daimler
    marker (a buyer who may join, or a Daimler option's buyer, which has none yet)."""
    cdef int money[MAXP]
    cdef uint32_t sold = 0
    cdef int8_t one = <int8_t>pref
    cdef int mine
    money[0] = money[1] = money[2] = money[3] = 0
    sales_rule(s, c, &s.market[0][0], s.nmarket, prefs, nprefs, NULL, 0, NULL, NULL, &sold)
    sales_rule(s, c, &s.market[0][0], s.nmarket, &one, 1, NULL, 0, NULL, money, &sold)
    mine = money[seat]
    others[0] = money[0] + money[1] + money[2] + money[3] - mine
    return mine


cdef inline double smart_workshop(const int8_t* work, int n) noexcept nogil:
    """heuristic.workshop_value of tile codes (bodies paired with engines, best with best)."""
    cdef int bodies[4]
    cdef int engines[4]
    cdef int nb = 0, ne = 0, i, j, t
    cdef double v = 0.0
    for i in range(n):
        if work[i] > ENGINE_CODE:
            engines[ne] = work[i] - ENGINE_CODE
            ne += 1
        else:
            bodies[nb] = work[i]
            nb += 1
    for i in range(nb):  # sort both descending (at most four items)
        for j in range(i + 1, nb):
            if bodies[j] > bodies[i]:
                t = bodies[i]; bodies[i] = bodies[j]; bodies[j] = t
    for i in range(ne):
        for j in range(i + 1, ne):
            if engines[j] > engines[i]:
                t = engines[i]; engines[i] = engines[j]; engines[j] = t
    for i in range(nb if nb > ne else ne):
        if i < nb and i < ne:
            v += 2.5 + 0.45 * (bodies[i] + engines[i])
        elif i < nb:
            v += 0.5 + 0.2 * bodies[i]
        else:
            v += 0.5 + 0.2 * engines[i]
    return v


cdef inline double smart_card(KState* s, const Comp* c, int seat, int t, const PlayoutParams* pp) noexcept nogil:
    """A cheap heuristic card_worth: developments by the research points they add that are still
    useful (below 7), weighted by the rounds left, so they count early; an instant card a little;
    an engineer by its worth while the game lasts."""
    cdef int bp, ep, k = c.card_kind[t]
    cdef double left = c.rounds - s.round + 0.5, v
    if k == 0:
        research_points(s, c, seat, &bp, &ep)
        v = (c.card_body[t] if c.card_body[t] < 7 - bp else (7 - bp if bp < 7 else 0))
        v += (c.card_engine[t] if c.card_engine[t] < 7 - ep else (7 - ep if ep < 7 else 0))
        v *= pp.develop * (left if left < 2.0 else 2.0)
        if c.card_tile[t]:
            v += 2.0
        if s.seats[seat].canteen == 0:
            v *= 0.4
        return v
    if k == 1:
        return 2.5
    return pp.engineer * SMART_ENGINEER[c.card_engineer[t]] * (left if left < 1.0 else 1.0)


cdef inline int smart_buyer_gain(KState* s, const Comp* c, int seat, int pref) noexcept nogil:
    """heuristic.buyer_worth without its fractions, in half units: twice the white money, twice the
    change of ``seat``'s projected sales minus the change of the others', and (with no car of
    ``seat`` on the market) a bonus for a buyer that suits the seat's workshop or research."""
    cdef int others, gain, i, v, mine = 0, bp, ep
    gain = smart_gain(s, c, s.active, s.nactive, pref, seat, &others)
    v = 2 * s.white[pref] + 2 * gain - others
    for i in range(s.nmarket):
        if s.market[i][CAR_OWNER] == seat:
            mine = 1
    if not mine:
        research_points(s, c, seat, &bp, &ep)
        if pref == PREF_BODY:
            v += bp // 2
        elif pref == PREF_ENGINE:
            v += ep // 2
        elif pref == PREF_PRESTIGE:
            v += s.seats[seat].canteen // 2
        elif has(&s.seats[seat], EN_OPEL):
            v += 3
    return v


cdef int smart_price(KState* s, const Comp* c, const int16_t* buf, int n) noexcept nogil:
    """The highest price marker at which the car being built still wins one of the buyers on the
    table; when none does, undercut: the highest marker below every price on the market (the
    first buyer of price takes the cheapest car), else the lowest."""
    cdef int8_t cars[MAX_MARKET + 1][CAR_FIELDS]
    cdef int taken[MAX_BUYERS]
    cdef int i, k, b, price, best = -1, under = -1, low = -1, cheapest = 1000
    cdef int seat = s.turn_seat
    for i in range(s.nmarket):
        for k in range(CAR_FIELDS):
            cars[i][k] = s.market[i][k]
        if s.market[i][CAR_PRICE] < cheapest:
            cheapest = s.market[i][CAR_PRICE]
    cars[s.nmarket][CAR_OWNER] = <int8_t>seat
    cars[s.nmarket][CAR_BODY] = s.car[0]
    cars[s.nmarket][CAR_ENGINE] = s.car[1]
    cars[s.nmarket][CAR_WORKERS] = s.car[2]
    cars[s.nmarket][CAR_BODY_BONUS] = 0
    cars[s.nmarket][CAR_ENGINE_BONUS] = 0
    for i in range(n):
        price = buf[i] - A_MARKET_PRICE
        if low < 0 or price < low:
            low = price
        if price < cheapest and price > under:
            under = price
    # The options come in rising order (task_market_price's bit scan): the highest prices are tried
    # first, and once one wins a buyer no lower one is projected (the same answer, fewer projections).
    for i in range(n - 1, -1, -1):
        price = buf[i] - A_MARKET_PRICE
        if price <= best:
            continue
        cars[s.nmarket][CAR_PRICE] = <int8_t>price
        # only whether a buyer takes the new car matters: the rule's choices, without the money
        sales_rule(s, c, &cars[0][0], s.nmarket + 1, s.active, s.nactive, NULL, 0, taken, NULL, NULL)
        for b in range(s.nactive):
            if taken[b] == s.nmarket:
                best = price
                break
    if best >= 0:
        return A_MARKET_PRICE + best
    return A_MARKET_PRICE + (under if under >= 0 else low)


cdef int smart_workers(KState* s, const Comp* c) noexcept nogil:
    """One worker, or (a prestige buyer on the table or still to come, heuristic.workers_for)
    one more than any car on the market has, if the canteen has them (at most four)."""
    cdef int i, need = 0, prestige = 0
    for i in range(s.nactive):
        if s.active[i] == PREF_PRESTIGE:
            prestige = 1
    if prestige or (s.stacks[PREF_PRESTIGE] > 0 and s.nactive < c.buyer_spaces):
        for i in range(s.nmarket):
            if s.market[i][CAR_WORKERS] > need:
                need = s.market[i][CAR_WORKERS]
        need += 1
        if need <= s.seats[s.turn_seat].canteen and need <= 4:
            return A_MARKET_WORKERS + need - 1
    return A_MARKET_WORKERS


cdef int smart_rule(KState* s, const Comp* c, int kind, const int16_t* buf, int n, uint64_t* rng,
                    const PlayoutParams* pp) noexcept nogil:
    """The hand rule's choice for the pending decision of kind ``kind``, or -1 (none)."""
    cdef int i, a, best = -1, seat = s.turn_seat, v, bv = 0, arg = s.tasks[s.ntasks - 1][1], m, b
    cdef int8_t work[4]
    cdef int extra[2]
    cdef double d, bd = -1e300
    cdef SeatS* p
    if kind == TK_TILE:  # the heuristic's order of a tile's actions
        for i in range(n):
            v = SMART_TILE_ORDER[buf[i] - A_DO]
            if best < 0 or v < bv:
                best = buf[i]
                bv = v
        return best
    if kind == TK_HIRE:  # the development with the most research points
        for i in range(n):
            v = c.card_body[buf[i] - A_ACTIVATE] + c.card_engine[buf[i] - A_ACTIVATE]
            if best < 0 or v > bv:
                best = buf[i]
                bv = v
        return best
    if kind == TK_RESEARCH:
        for i in range(n):
            d = smart_card(s, c, seat, buf[i] - A_RESEARCH, pp)
            if d > bd:
                best = buf[i]
                bd = d
        return best
    if kind == TK_ENGINE_DEST:  # heuristic r_engine_dest, without its Bugatti and upgrade cases
        p = &s.seats[seat]
        if arg < p.gp_engine:
            return A_ENGINE_WORKSHOP
        if arg == p.gp_engine:
            return A_ENGINE_GP if p.nwork >= 3 else A_ENGINE_WORKSHOP
        return A_ENGINE_GP if has(p, EN_BUGATTI) else A_ENGINE_WORKSHOP
    if kind == TK_PLACE:  # give up the tile whose loss keeps the best workshop
        p = &s.seats[seat]
        for i in range(n):
            m = 0
            a = 0
            for b in range(p.nwork):
                if p.work[b] == buf[i] - A_GIVEUP and not a:
                    a = 1
                else:
                    work[m] = p.work[b]
                    m += 1
            work[m] = <int8_t>arg
            d = smart_workshop(work, m + 1)
            if d > bd:
                best = buf[i]
                bd = d
        return best
    if kind == TK_BUYER:
        for i in range(n):
            v = smart_buyer_gain(s, c, seat, buf[i] - A_BUYER)
            if best < 0 or v > bv:
                best = buf[i]
                bv = v
        return best
    if kind == TK_MARKET:  # offer the best body (its best engine follows) at the rule's rate
        if k_unit(rng) >= pp.sell:
            return A_MARKET_PASS
        for i in range(n):
            if buf[i] > best:
                best = buf[i]
        return best
    if kind == TK_MARKET_ENGINE:
        for i in range(n):
            if buf[i] > best:
                best = buf[i]
        return best
    if kind == TK_MARKET_WORKERS:
        return smart_workers(s, c)
    if kind == TK_MARKET_PRICE:
        return smart_price(s, c, buf, n)
    if kind == TK_MARKET_MARKER:  # a marker is worth keeping until the last round
        if s.round < c.rounds:
            return A_MARKET_NO_MARKER
        for i in range(n):
            if buf[i] != A_MARKET_NO_MARKER and (best < 0 or c.slot_value[buf[i] - A_MARKET_MARKER]
                                                   > c.slot_value[best - A_MARKET_MARKER]):
                best = buf[i]
        return best if best >= 0 else A_MARKET_NO_MARKER
    if kind == TK_DAIMLER:  # late in the round: the highest marker on a buyer who takes our car
        if s.round < c.rounds and 2 * s.nmarket < c.market_size:
            return A_DAIMLER_PASS
        best = A_DAIMLER_PASS
        for i in range(n):
            if buf[i] == A_DAIMLER_PASS:
                continue
            m = (buf[i] - A_DAIMLER) // MAX_BUYERS
            b = (buf[i] - A_DAIMLER) % MAX_BUYERS
            # buyer b takes one of our cars if our revenue grows when it joins the buyers before it
            if smart_gain(s, c, s.active, b, s.active[b], seat, extra) > 0:
                if best == A_DAIMLER_PASS or buf[i] > best:
                    best = buf[i]
        return best
    if kind == TK_DIESEL:
        return A_DIESEL_PASS
    if kind == TK_BENZ:  # a fifth buyer when it pays (half units: 8 = the heuristic's 4.0)
        best = A_BENZ_PASS
        bv = 0 if s.round >= c.rounds else 8
        for i in range(n):
            if buf[i] == A_BENZ_PASS:
                continue
            v = smart_buyer_gain(s, c, arg, buf[i] - A_BENZ)
            if v > bv:
                best = buf[i]
                bv = v
        return best
    if kind == TK_CARD_ORDER:
        return A_ORDER_BODY
    if kind == TK_SPECIAL_ORDER:
        if c.spec_bonus[arg] == BN_GP_ENGINE and c.spec_action[arg] == AK_GP:
            return A_ORDER_BONUS
        return A_ORDER_ACTION
    return -1


cdef int k_playout_smart(KState* s, const Comp* c, uint64_t* rng, int16_t* trace, int cap, int max_decisions,
                         const PlayoutParams* pp) noexcept nogil:
    """Play on with the heuristic's cheap rules; return the number of decisions taken.

    At a turn the seat takes, with chance ``pp.tempo``, one of the tiles that let
    the fewest other workers past it (as the tempo playout), otherwise any tile.
    Every other decision follows, with chance ``pp.rule``, the hand rule of its
    kind (``smart_rule``: the heuristic's order of a tile's actions, the research
    card worth most — developments early —, the buyer that best suits the seat's
    cars, a car offered with chance ``pp.sell``, one worker unless a prestige buyer
    is contested, the highest price that still wins a buyer on the table, else an
    undercut, ...) and is uniformly random otherwise (or when the rule has no
    choice). ``trace`` (if given) receives the first ``cap`` actions taken;
    ``max_decisions > 0`` stops after that many decisions (the state is then not over).
    """
    return k_play(s, c, rng, ROLLOUT_SMART, trace, cap, max_decisions, pp, NULL, NULL, 0.0)


#: Each rollout policy's ``RolloutKind`` (_playout.pxd), by its name in ``ROLLOUTS`` (kwsearch.settings:
#: SearchConfig.rollout, the evaluation's training games; the one list of the names).
ROLLOUT_KINDS = {"random": ROLLOUT_RANDOM, "tempo": ROLLOUT_TEMPO, "smart": ROLLOUT_SMART}
if tuple(sorted(ROLLOUT_KINDS, key=ROLLOUT_KINDS.get)) != ROLLOUTS:
    raise ImportError("kwsearch._playout: the RolloutKind enum and kwsearch.settings.ROLLOUTS disagree")


cdef int pick_tempo(const void* ctx, KState* s, const Comp* c, const int16_t* buf, int n, int pick,
                    uint64_t* rng) noexcept nogil:
    """The tempo policy's pick (a ``PickFn``; k_playout_tempo's rules; ``ctx`` unused): ``pick`` is
    the uniform option the loop drew, kept unless a rule applies."""
    cdef int16_t good[MAX_LEGAL]
    cdef int i, m
    cdef int tk = s.tasks[s.ntasks - 1][0]
    if tk == TK_TURN and (k_next(rng) & 3) != 0:
        pick = tempo_tile(s, rng)
    elif tk == TK_ENGINE_DEST and s.tasks[s.ntasks - 1][1] <= s.seats[s.turn_seat].gp_engine:
        if s.tasks[s.ntasks - 1][1] == s.seats[s.turn_seat].gp_engine and s.seats[s.turn_seat].nwork >= 3:
            pick = A_ENGINE_GP
        else:
            pick = A_ENGINE_WORKSHOP
    elif tk == TK_MARKET and n > 1 and pick == A_MARKET_PASS and (k_next(rng) & 7) != 0:
        m = 0
        for i in range(n):
            if buf[i] != A_MARKET_PASS:
                good[m] = buf[i]
                m += 1
        pick = good[<int>(k_next(rng) % <uint64_t>m)]
    return pick


cdef int pick_smart(const void* ctx, KState* s, const Comp* c, const int16_t* buf, int n, int pick,
                    uint64_t* rng) noexcept nogil:
    """The smart policy's pick (a ``PickFn``; k_playout_smart's rules; ``ctx`` is its
    ``PlayoutParams``): ``pick`` is the uniform option the loop drew, kept unless a rule applies."""
    cdef const PlayoutParams* pp = <const PlayoutParams*>ctx
    cdef int i, rule
    cdef int tk = s.tasks[s.ntasks - 1][0]
    if tk == TK_TURN:
        if k_unit(rng) < pp.tempo:
            pick = tempo_tile(s, rng)
    elif k_unit(rng) < pp.rule:
        rule = smart_rule(s, c, tk, buf, n, rng, pp)
        for i in range(n):
            if buf[i] == rule:
                pick = rule
                break
    return pick


cdef inline PickFn policy_of(RolloutKind kind) noexcept nogil:
    """The pick function of rollout policy ``kind``; NULL (ROLLOUT_RANDOM): uniformly random."""
    if kind == ROLLOUT_TEMPO:
        return pick_tempo
    if kind == ROLLOUT_SMART:
        return pick_smart
    return NULL


cdef int k_play(KState* s, const Comp* c, uint64_t* rng, RolloutKind kind, int16_t* trace, int cap,
                int max_decisions, const PlayoutParams* pp, GuideFn guide, const void* ctx, double share) noexcept nogil:
    """The engine's one playout loop (``_fast.k_loop``) with rollout policy ``kind`` (random, tempo or
    smart; ``pp`` is read only by the smart policy), guided by ``guide`` with chance ``share`` (see
    k_loop). Every policy draws a uniform option first, so the streams of the three stay aligned."""
    return k_loop(s, c, rng, policy_of(kind), <const void*>pp, trace, cap, max_decisions, guide, ctx, share)


cdef int k_rollout(KState* s, const Comp* c, uint64_t* rng, RolloutKind kind, int max_decisions,
                   const PlayoutParams* pp) noexcept nogil:
    return k_loop(s, c, rng, policy_of(kind), <const void*>pp, NULL, 0, max_decisions, NULL, NULL, 0.0)


def smart_playout_trace(FastState state, uint64_t seed, params, int cap=20000, int max_decisions=0):
    """The actions a smart playout from ``state`` takes with ``params`` (rule, tempo, sell,
    develop, engineer), and the money per seat at its end (for tests and inspection)."""
    cdef KState s = state.st
    cdef uint64_t rng = seed
    cdef PlayoutParams pp
    cdef int16_t* trace = <int16_t*>malloc(cap * sizeof(int16_t))
    cdef int i, steps
    if trace == NULL:
        raise MemoryError()
    pp.rule, pp.tempo, pp.sell, pp.develop, pp.engineer = params
    try:
        k_next(&rng)
        with nogil:
            steps = k_playout_smart(&s, &state.fg.comp, &rng, trace, cap, max_decisions, &pp)
        return [trace[i] for i in range(min(steps, cap))], [s.seats[i].money for i in range(s.nplayers)]
    finally:
        free(trace)


def bench_playouts_counted(FastState state, int n, uint64_t seed, bint tempo=False):
    """n playouts at C level from ``state``, uniformly random or (``tempo``) with the search's tempo
    policy; returns (total money, total decisions), for ns-per-decision figures."""
    cdef KState s
    cdef uint64_t r = seed_to_rng(seed)
    cdef long total = 0, decisions = 0
    cdef int i, j
    with nogil:
        for i in range(n):
            s = state.st
            if tempo:
                decisions += k_playout_tempo(&s, &state.fg.comp, &r, NULL, 0, 0)
            else:
                decisions += k_playout(&s, &state.fg.comp, &r, 0)
            for j in range(s.nplayers):
                total += s.seats[j].money
    return total, decisions
