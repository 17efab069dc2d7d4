# cython: language_level=3
"""The fast engine: the reference rules (kwsearch/rules.py) on a flat C struct.

The struct and its invariants are documented in ``_fast.pxd``. The task machine
mirrors the reference one method for one function, under the same name, so the
two read side by side:

* ``rules.State._task_X`` -> ``task_X``. A task with a decision returns the
  number of its options (written into ``buf``) or -1 when it did its work without
  asking; an automatic task (``body``, ``engine``, ``gp``, ``gp_engine``,
  ``gp_start``, ``end_turn``, ``race``, ``sales``, ``round_end``, ``special``)
  returns nothing and is popped by ``step`` before it runs — so where the
  reference pushes one to run next (``_start_action``, ``_take_card``,
  ``_task_special``), the C code calls it at once and pays no push, pop or
  dispatch.
* ``rules.State._choose_X`` -> ``choose_X`` (the option chosen, the task's argument).
* ``rules.State._step`` / ``_resolve`` / ``_run`` -> ``step`` / ``resolve`` /
  ``run_opts``: ``step`` and ``resolve`` only dispatch on the top task's kind, through
  the tables ``TASK_FN`` / ``CHOOSE_FN`` (an automatic task's entry is ``step_X``: pop,
  then ``task_X``). A step that finishes without a decision returns ``then_next``: the
  next task's step, run at once as a tail call, where ``run_opts`` would run it next.
* The reference's helpers (``_begin_tile``, ``_start_action``, ``_take_card``,
  ``_put_in_workshop``, ``_draw_special``, ...) -> the ``cdef inline`` functions
  above the task machine, named without the leading underscore.

``tests/test_fast_differential.py`` runs both engines in lockstep;
``tests/test_fast_fingerprint.py`` pins the fast engine's seeded games, random
streams included. What the engines share is imported from :mod:`kwsearch.game`:
the task kinds, phases and chain codes (checked against the C constants at
import), :func:`~kwsearch.game.win_shares` and
:func:`~kwsearch.game.parse_checked`; the generator is the same splitmix64 in C. Component data comes from
:class:`kwsearch.components.Components` and is copied into a :c:type:`Comp` when
a :class:`FastGame` is made: nothing of the game's data is written here. The
set-up is dealt by the reference (:meth:`kwsearch.rules.State.new`) and converted
(:meth:`FastState.from_reference`), so both engines start every seed alike.

Python API: :class:`FastState` implements :class:`kwsearch.game.GameState` (the
reference's methods; ``observation`` and ``to_json`` are
:mod:`kwsearch.observation`'s, on the converted state) plus
:meth:`FastState.playout` (uniformly random),
:meth:`FastState.to_reference` / :meth:`FastState.from_reference`.
C API (``_fast.pxd``, all ``nogil``): ``k_legal``, ``k_apply``, ``k_determinize``,
``k_playout`` and the one playout loop ``k_loop``, whose rollout policies live in
:mod:`kwsearch._playout`; ``k_hook_draws``, through which :mod:`kwsearch._forced`
(OpenSpiel's explicit chance) forces a state's draws; and the shared inline
helpers of ``_fast.pxd`` (the buyers' rule ``sales_rule``, ``k_next``, ...).
"""

cimport cython
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memmove, memset
from libc.stdint cimport int8_t, int16_t, uint8_t, uint16_t, uint32_t, uint64_t

from . import actions as _A
from . import components as _C
from . import game as _G
from .observation import observation, state_to_json
from .rules import State as RefState

# ---------------------------------------------------------------------------
# Action-id layout, read from kwsearch.actions once at import
# ---------------------------------------------------------------------------

cdef int A_START = _A.START
cdef int A_TILE = _A.TILE
cdef int A_DO = _A.DO
cdef int A_RESEARCH = _A.RESEARCH
cdef int A_GIVEUP = _A.GIVEUP
cdef int A_ENGINE_WORKSHOP = _A.ENGINE_WORKSHOP
cdef int A_ENGINE_GP = _A.ENGINE_GP
cdef int A_BUYER = _A.BUYER
cdef int A_MARKET_PASS = _A.MARKET_PASS
cdef int A_MARKET_BODY = _A.MARKET_BODY
cdef int A_MARKET_ENGINE = _A.MARKET_ENGINE
cdef int A_MARKET_WORKERS = _A.MARKET_WORKERS
cdef int A_MARKET_PRICE = _A.MARKET_PRICE
cdef int A_MARKET_NO_MARKER = _A.MARKET_NO_MARKER
cdef int A_MARKET_MARKER = _A.MARKET_MARKER
cdef int A_DAIMLER_PASS = _A.DAIMLER_PASS
cdef int A_DAIMLER = _A.DAIMLER
cdef int A_DIESEL_PASS = _A.DIESEL_PASS
cdef int A_DIESEL_CAR = _A.DIESEL_CAR
cdef int A_DIESEL_BODY = _A.DIESEL_BODY
cdef int A_DIESEL_ENGINE = _A.DIESEL_ENGINE
cdef int A_DIESEL_WORKERS = _A.DIESEL_WORKERS
cdef int A_DIESEL_PRICE = _A.DIESEL_PRICE
cdef int A_BENZ_PASS = _A.BENZ_PASS
cdef int A_BENZ = _A.BENZ
cdef int A_ACTIVATE = _A.ACTIVATE
cdef int A_SPECIAL_TILE = _A.SPECIAL_TILE
cdef int A_SELL_PASS = _A.SELL_PASS
cdef int A_SELL = _A.SELL
cdef int A_REMOVE_PASS = _A.REMOVE_PASS
cdef int A_REMOVE_CAR = _A.REMOVE_CAR
cdef int A_ORDER_BODY = _A.ORDER_BODY
cdef int A_ORDER_ENGINE = _A.ORDER_ENGINE
cdef int A_ORDER_ACTION = _A.ORDER_ACTION
cdef int A_ORDER_BONUS = _A.ORDER_BONUS

if tuple(_G.TASKS) != ("setup", "turn", "tile", "hire", "research", "body", "engine", "engine_dest", "place",
                       "gp", "buyer", "gp_engine", "gp_start", "market", "market_engine", "market_workers",
                       "market_price", "market_marker", "daimler", "diesel", "diesel_change", "end_turn",
                       "benz", "race", "sales", "round_end", "special", "sell", "remove", "card_order",
                       "special_order"):
    raise ImportError("kwsearch._fast was built for another game.TASKS order; rebuild the extension")
if tuple(_C.SPECIALTY_BONUSES) != ("engine", "body", "gp_engine", "canteen_money", "remove_car", "sell_tile",
                                   "research_discard"):
    raise ImportError("kwsearch._fast was built for another components.SPECIALTY_BONUSES order; rebuild the extension")
if _G.SEAT != SEAT or _G.SPECIAL != SPECIAL or _C.MAX_SPECIAL != MAX_SPECIAL or _C.MAX_BUYERS != MAX_BUYERS:
    raise ImportError("kwsearch._fast was built for other chain codes or limits (game.SEAT / SPECIAL, "
                      "components.MAX_SPECIAL / MAX_BUYERS); rebuild the extension")
if tuple(_C.PREFERENCES) != ("body", "engine", "prestige", "price"):
    raise ImportError("kwsearch._fast was built for another components.PREFERENCES order; rebuild the extension")
if tuple(_C.ALL_ACTIONS) != ("hire", "body", "engine", "gp", "research", "buyer", "gp_engine2", "gp_start2"):
    raise ImportError("kwsearch._fast was built for another components.ALL_ACTIONS order; rebuild the extension")

#: The options of a turn's tile choice without the specialty tile, A_TILE + t for every t < MAX_TILES:
#: task_turn copies them in one block (the first ``Comp.ntiles`` are the game's tiles).
cdef int16_t TURN_OPTIONS[MAX_TILES]
for _t in range(MAX_TILES):
    TURN_OPTIONS[_t] = A_TILE + _t

#: The tasks a turn's tile choice pushes under the tile, bottom first, as (kind, argument) pairs:
#: choose_turn copies them in one block.
cdef int8_t TURN_TASKS[8]
TURN_TASKS[:] = [TK_END_TURN, 0, TK_DIESEL, 0, TK_DAIMLER, 0, TK_MARKET, 0]

_PHASES = _G.PHASES
_TASK_INDEX = {name: i for i, name in enumerate(_G.TASKS)}

# ---------------------------------------------------------------------------
# Random numbers: splitmix64 and Fisher-Yates, as game.rng_next / rng_shuffle
# ---------------------------------------------------------------------------

cdef extern from *:
    """
    #define kw_ctz32(x) __builtin_ctz((unsigned int)(x))
    """
    int kw_ctz32(uint32_t x) noexcept nogil       # index of the lowest set bit of x (x != 0)


cdef inline void shuffle(int8_t* items, int n, uint64_t* s) noexcept nogil:
    cdef int i, j
    cdef int8_t t
    for i in range(n - 1, 0, -1):
        j = <int>(k_next(s) % <uint64_t>(i + 1))
        t = items[i]
        items[i] = items[j]
        items[j] = t


cdef inline void sort16(int16_t* buf, int n) noexcept nogil:
    cdef int i, j
    cdef int16_t v
    for i in range(1, n):
        v = buf[i]
        j = i - 1
        while j >= 0 and buf[j] > v:
            buf[j + 1] = buf[j]
            j -= 1
        buf[j + 1] = v

# ---------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------

cdef inline void push(KState* s, int kind, int arg) noexcept nogil:
    s.tasks[s.ntasks][0] = <int8_t>kind
    s.tasks[s.ntasks][1] = <int8_t>arg
    s.ntasks += 1


cdef inline void pop(KState* s) noexcept nogil:
    s.ntasks -= 1


# The task machine's dispatch tables (filled and described just above ``step``).
ctypedef int (*TaskFn)(KState* s, const Comp* c, int arg, int16_t* buf) noexcept nogil
ctypedef void (*ChooseFn)(KState* s, const Comp* c, int action, int arg) noexcept nogil

cdef TaskFn TASK_FN[TK_COUNT]
cdef ChooseFn CHOOSE_FN[TK_COUNT]


cdef inline int then_next(KState* s, const Comp* c, int16_t* buf) noexcept nogil:
    """What a task that finished without a decision returns: the next task's step, done at once
    (-1 when none is left). ``run_opts`` would run that task next anyway; the steps of the tasks
    that can finish without asking (tile, hire, research, place, buyer, market, Daimler, Diesel
    and every automatic task) chain to it directly, as a tail call, instead of returning to the
    loop. The chain ends at a decision, which ``run_opts`` resolves or returns."""
    cdef int top = s.ntasks - 1
    cdef TaskFn fn
    if top < 0:
        return -1
    fn = TASK_FN[s.tasks[top][0]]  # a local first: Cython 3.3 fails on a call of an indexed table with overflowcheck on
    return fn(s, c, s.tasks[top][1], buf)


cdef inline void award(KState* s, const Comp* c, int seat, int a) noexcept nogil:
    if s.awards[a] < 0:
        s.awards[a] = <int8_t>seat
        s.seats[seat].money += c.award_money[a]


# Forced draws (kwsearch._forced, OpenSpiel's explicit chance) hook into the two draws:
# while ``draw_hook.owner`` is a state, its research and specialty-tile draws are
# ``draw_hook.card`` / ``draw_hook.special`` instead (k_hook_draws sets it). Keyed on the
# state's address, so no other state (a search running meanwhile) is affected; the normal
# path pays one pointer comparison per draw.
cdef DrawHook draw_hook


cdef void k_hook_draws(KState* owner, CardDrawFn card, SpecialDrawFn special) noexcept nogil:
    """Force ``owner``'s draws (see _fast.pxd); ``owner`` NULL ends it."""
    draw_hook.owner = owner
    draw_hook.card = card
    draw_hook.special = special


cdef inline int draw(KState* s) noexcept nogil:
    cdef int8_t tmp[MAX_CARDS]
    cdef int i
    if s.ndeck == 0:
        if s.ndiscard == 0:
            return -1
        for i in range(s.ndiscard):
            tmp[i] = s.cards[MAX_CARDS - 1 - i]
        for i in range(s.ndiscard):
            s.cards[i] = tmp[i]
        s.ndeck = s.ndiscard
        s.ndiscard = 0
        shuffle(s.cards, s.ndeck, &s.rng)
    if s == draw_hook.owner:
        return draw_hook.card(s)
    s.ndeck -= 1
    return s.cards[s.ndeck]


cdef inline void discard(KState* s, int t) noexcept nogil:
    s.cards[MAX_CARDS - 1 - s.ndiscard] = <int8_t>t
    s.ndiscard += 1


cdef inline void refill_display(KState* s) noexcept nogil:
    cdef int card
    while s.ndisplay < 2:
        card = draw(s)
        if card < 0:
            break
        s.display[s.ndisplay] = <int8_t>card
        s.ndisplay += 1


cdef inline void prepare_round(KState* s, const Comp* c) noexcept nogil:
    cdef int p
    s.prices = c.price_mask[s.round - 1]
    for p in range(4):
        s.white[p] += c.white[p]
    s.track = c.track_start


cdef inline void begin_tile(KState* s, int seat, const int8_t* acts, int n) noexcept nogil:
    cdef int i, j
    cdef int8_t v
    s.turn_seat = <int8_t>seat
    s.actor = <int8_t>seat
    s.nrem = <int8_t>n
    for i in range(n):
        s.remaining[i] = acts[i]
    for i in range(1, n):  # sorted by action kind
        v = s.remaining[i]
        j = i - 1
        while j >= 0 and s.remaining[j] > v:
            s.remaining[j + 1] = s.remaining[j]
            j -= 1
        s.remaining[j + 1] = v
    push(s, TK_TILE, 0)


cdef inline int commutes(int a, int b, SeatS* p, const Comp* c) noexcept nogil:
    cdef int lo = a if a < b else b
    cdef int hi = b if a < b else a
    cdef int k, inactive = 0
    if a == b or a == AK_BUYER or b == AK_BUYER:
        return 1
    if (lo == AK_BODY and hi == AK_GP) or (lo == AK_HIRE and hi == AK_GP):
        return 1
    if (lo == AK_HIRE or lo == AK_BODY) and (hi == AK_GP_ENGINE2 or hi == AK_GP_START2):
        return 1
    if lo == AK_BODY and hi == AK_ENGINE:
        return p.nwork <= 1
    if lo != AK_HIRE or not (hi == AK_BODY or hi == AK_ENGINE or hi == AK_RESEARCH):
        return 0
    for k in range(c.ndev):  # only hiring against body, engine or research asks for the inactive developments
        inactive += p.inactive[k]
    if hi == AK_RESEARCH:
        return inactive == 0 and p.canteen > 0
    return inactive == 0


cdef inline int bonus_commutes(KState* s, const Comp* c, int t) noexcept nogil:
    """rules._bonus_commutes: the standard action of specialty tile t and its bonus end the same in
    either order for the seat in turn."""
    cdef int kind = c.spec_action[t], b = c.spec_bonus[t], k, v, inactive = 0
    cdef SeatS* p = &s.seats[s.turn_seat]
    if kind == AK_BUYER:
        return 1
    for k in range(c.ndev):
        inactive += p.inactive[k]
    if b == BN_ENGINE:
        return kind == AK_HIRE or (kind != AK_ENGINE and commutes(kind, AK_ENGINE, p, c))
    if b == BN_BODY:
        return kind == AK_HIRE or (kind != AK_BODY and commutes(kind, AK_BODY, p, c))
    if b == BN_GP_ENGINE:
        if kind == AK_HIRE or kind == AK_BODY or kind == AK_GP_START2:
            return 1
        if kind == AK_GP:
            v = p.gp_engine + 1
            return v > MAX_VALUE or s.supply_engine[v - 1] == 0
        return 0
    if b == BN_CANTEEN_MONEY:
        if kind == AK_BODY or kind == AK_ENGINE or kind == AK_GP or kind == AK_GP_ENGINE2 or kind == AK_GP_START2:
            return 1
        if kind == AK_HIRE:
            return p.supply == 0 or inactive > 0
        return 0
    if b == BN_REMOVE_CAR:
        v = 0
        for k in range(s.nmarket):
            if s.market[k][CAR_OWNER] == s.turn_seat:
                v = 1
        if not v:
            return 1
        if kind == AK_GP or kind == AK_GP_START2:
            return 1
        if kind == AK_HIRE:
            return p.supply >= 2
        return 0
    if b == BN_SELL_TILE:
        return kind == AK_HIRE or kind == AK_GP or kind == AK_GP_START2
    return s.ndiscard == 0 and kind != AK_RESEARCH


cdef inline void start_action(KState* s, const Comp* c, int kind) noexcept nogil:
    """rules.State._start_action. An automatic task (done at once, no decision) is called
    directly instead of pushed: it would be the next task run anyway."""
    cdef int i
    for i in range(s.nrem):
        if s.remaining[i] == kind:
            while i < s.nrem - 1:
                s.remaining[i] = s.remaining[i + 1]
                i += 1
            s.nrem -= 1
            break
    if kind == AK_HIRE:
        push(s, TK_HIRE, 1)
    elif kind == AK_GP_ENGINE2:
        task_gp_engine(s, c, c.gp_start_engine)
    elif kind == AK_GP_START2:
        task_gp_start(s, c, c.gp_start_space)
    elif kind == AK_GP:
        task_gp(s, c, s.seats[s.turn_seat].gp_engine)
    elif kind == AK_BODY:
        task_body(s, c, 0)
    elif kind == AK_ENGINE:
        task_engine(s, c, 0)
    elif kind == AK_RESEARCH:
        push(s, TK_RESEARCH, 0)
    else:
        push(s, TK_BUYER, 0)


cdef inline void take_card(KState* s, const Comp* c, int seat, int t) noexcept nogil:
    cdef SeatS* p = &s.seats[seat]
    cdef int kind = c.card_kind[t], eng, n, bits
    if kind == 0:
        if p.canteen > 0:
            p.canteen -= 1
            p.active[c.card_devslot[t]] += 1
        else:
            p.inactive[c.card_devslot[t]] += 1
        if c.card_tile[t] == 1:  # taken even while inactive (RULES.md §5.1)
            task_body(s, c, 0)  # automatic tasks are called, not pushed (see start_action)
        elif c.card_tile[t] == 2:
            task_engine(s, c, 0)
    elif kind == 1:
        discard(s, t)
        if c.card_effect[t] == 0:
            push(s, TK_HIRE, c.card_amount[t])
        elif c.card_effect[t] == 1:
            task_gp(s, c, c.card_amount[t])
        else:
            push(s, TK_CARD_ORDER, 0)
    else:
        eng = c.card_engineer[t]
        p.engineers |= <uint16_t>(1 << eng)
        if eng == EN_MAYBACH:
            p.maybach = <uint8_t>((1 << c.nmaybach) - 1)
        elif eng == EN_HORCH:
            p.horch = <uint8_t>((1 << c.nhorch) - 1)
        elif eng == EN_DAIMLER:
            p.daimler = <uint8_t>((1 << c.ndaimler) - 1)
        elif eng == EN_DIESEL:
            p.diesel = c.diesel
        elif eng == EN_BENZ:
            p.benz = c.benz
        elif eng == EN_OTTO:
            push(s, TK_RESEARCH, 0)
            push(s, TK_HIRE, c.otto)
        n = 0
        bits = p.engineers
        while bits:
            n += bits & 1
            bits >>= 1
        if n >= 3:
            award(s, c, seat, AW_ENGINEERS)


cdef inline int take_tile(KState* s, int is_engine, int value) noexcept nogil:
    cdef int8_t* supply
    cdef int v
    if is_engine:
        supply = &s.supply_engine[0]
    else:
        supply = &s.supply_body[0]
    if value > MAX_VALUE:
        value = MAX_VALUE
    for v in range(value, 0, -1):
        if supply[v - 1] > 0:
            supply[v - 1] -= 1
            return v
    return 0


cdef inline void return_tile(KState* s, int code) noexcept nogil:
    if code > ENGINE_CODE:
        s.supply_engine[code - ENGINE_CODE - 1] += 1
    else:
        s.supply_body[code - 1] += 1


cdef inline void remove_work(SeatS* p, int code) noexcept nogil:
    cdef int i
    for i in range(p.nwork):
        if p.work[i] == code:
            while i < p.nwork - 1:
                p.work[i] = p.work[i + 1]
                i += 1
            p.nwork -= 1
            return


cdef inline void put_in_workshop(KState* s, const Comp* c, int code) noexcept nogil:
    cdef int seat = s.turn_seat
    cdef SeatS* p = &s.seats[seat]
    cdef int i = p.nwork
    while i > 0 and p.work[i - 1] > code:
        p.work[i] = p.work[i - 1]
        i -= 1
    p.work[i] = <int8_t>code
    p.nwork += 1
    if code > ENGINE_CODE:
        if code - ENGINE_CODE >= 7:
            award(s, c, seat, AW_ENGINE7)
        if code - ENGINE_CODE >= 4:
            award(s, c, seat, AW_ENGINE4)
    else:
        if code >= 6:
            award(s, c, seat, AW_BODY6)
        if code >= 3:
            award(s, c, seat, AW_BODY3)


cdef inline void install_gp_engine(KState* s, int v) noexcept nogil:
    cdef SeatS* p = &s.seats[s.turn_seat]
    cdef int old = p.gp_engine
    if p.gp_tile:
        s.supply_engine[old - 1] += 1
    p.gp_engine = <int8_t>v
    p.gp_tile = 1
    if has(p, EN_BUGATTI) and v > old:
        push(s, TK_GP, v)


cdef inline int occupied(KState* s, const Comp* c, int seat, int space) noexcept nogil:
    cdef int i
    for i in range(s.nplayers):
        if i != seat and s.seats[i].space == space:
            return 1
    for i in range(c.nneutral):
        if c.neutral[i] == space:
            return 1
    return 0


cdef inline void move_car(KState* s, const Comp* c, int seat, int spaces) noexcept nogil:
    cdef SeatS* p = &s.seats[seat]
    cdef int k
    for k in range(spaces):
        while True:
            if p.space == c.lap:
                p.space = 1
                p.laps += 1
                if p.laps == 1:
                    award(s, c, seat, AW_GP1)
                elif p.laps == 2:
                    award(s, c, seat, AW_GP2)
            else:
                p.space += 1
            if not occupied(s, c, seat, p.space):
                break


cdef inline void add_buyer(KState* s, const Comp* c, int seat, int pref) noexcept nogil:
    cdef int i, n = 0
    s.stacks[pref] -= 1
    s.active[s.nactive] = <int8_t>pref
    s.active_daimler[s.nactive] = 0
    s.nactive += 1
    s.seats[seat].money += s.white[pref]
    s.white[pref] = 0
    for i in range(s.nactive):
        if s.active[i] == pref:
            n += 1
    if n == 2:
        award(s, c, seat, AW_BUYER)


cdef inline int diesel_options(KState* s, int car, int16_t* buf) noexcept nogil:
    cdef int8_t* m = s.market[car]
    cdef SeatS* p = &s.seats[m[CAR_OWNER]]
    cdef int n = 0, i, w, last = -1, v
    for i in range(p.nwork):
        w = p.work[i]
        if w < ENGINE_CODE and w != m[CAR_BODY] and w != last:
            buf[n] = A_DIESEL_BODY + w - 1
            n += 1
            last = w
    last = -1
    for i in range(p.nwork):
        w = p.work[i]
        if w > ENGINE_CODE and w - ENGINE_CODE != m[CAR_ENGINE] and w != last:
            buf[n] = A_DIESEL_ENGINE + w - ENGINE_CODE - 1
            n += 1
            last = w
    for v in range(1, m[CAR_WORKERS] + p.canteen + 1):
        if v != m[CAR_WORKERS]:
            buf[n] = A_DIESEL_WORKERS + v - 1
            n += 1
    for v in range(PRICE_BITS):
        if (s.prices >> v) & 1:
            buf[n] = A_DIESEL_PRICE + v
            n += 1
    return n


cdef inline int car_by_price(KState* s, int price) noexcept nogil:
    cdef int i
    for i in range(s.nmarket):
        if s.market[i][CAR_PRICE] == price:
            return i
    return -1


cdef inline int lap_money(const Comp* c, int laps) noexcept nogil:
    if laps <= 0:
        return 0
    if laps <= c.nlapmoney:
        return c.lap_money[laps - 1]
    return c.lap_money[c.nlapmoney - 1] + (laps - c.nlapmoney) * c.lap_extra

# ---------------------------------------------------------------------------
# V6 specialty tiles (rules.State._draw_special / _discard_special)
# ---------------------------------------------------------------------------

cdef inline int spec_count(KState* s, const Comp* c, int r, int used) noexcept nogil:
    """Tiles of stack r face down (used == 0) or in its used pile (used == 1)."""
    cdef int t, n = 0
    for t in range(c.nspec):
        if c.spec_stack[t] == r and ((used and s.spec_loc[t] < 0) or (not used and s.spec_loc[t] > 0)):
            n += 1
    return n


cdef inline void discard_special(KState* s, const Comp* c, int t) noexcept nogil:
    s.spec_loc[t] = <int8_t>(-(spec_count(s, c, c.spec_stack[t], 1) + 1))


cdef inline int draw_special(KState* s, const Comp* c, int r) noexcept nogil:
    """The top tile of stack r, into the chain; an emptied stack is reshuffled from its used pile."""
    cdef int8_t tmp[MAX_SPECIAL]
    cdef int t, k, nu
    cdef int n = spec_count(s, c, r, 0)
    if n == 0:
        nu = spec_count(s, c, r, 1)
        for k in range(nu):  # the used pile in the order it was discarded
            for t in range(c.nspec):
                if c.spec_stack[t] == r and s.spec_loc[t] == -(k + 1):
                    tmp[k] = <int8_t>t
        shuffle(tmp, nu, &s.rng)
        for k in range(nu):
            s.spec_loc[tmp[k]] = <int8_t>(k + 1)
        n = nu
    if s == draw_hook.owner:
        return draw_hook.special(s, c, r, n)
    for t in range(c.nspec):
        if c.spec_stack[t] == r and s.spec_loc[t] == n:
            s.spec_loc[t] = 0
            return t
    return -1


cdef inline void remove_market_car(KState* s, int i) noexcept nogil:
    cdef int j, k
    for j in range(i, s.nmarket - 1):
        for k in range(CAR_FIELDS):
            s.market[j][k] = s.market[j + 1][k]
    s.nmarket -= 1

# ---------------------------------------------------------------------------
# The task machine: step (do the top task, or list its options) and resolve
# ---------------------------------------------------------------------------

cdef inline int distinct_work(SeatS* p, int base, int16_t* buf, int n) noexcept nogil:
    """Append ``base + code`` for each distinct workshop tile (``work`` is sorted); return the new count."""
    cdef int i, last = -1
    for i in range(p.nwork):
        if p.work[i] != last:
            buf[n] = <int16_t>(base + p.work[i])
            n += 1
            last = p.work[i]
    return n


cdef int task_setup(KState* s, const Comp* c, int arg, int16_t* buf) noexcept nogil:
    """rules.State._task_setup."""
    cdef int n = 0, i, t, ok
    s.actor = <int8_t>arg
    for t in range(c.nstart):
        if (s.offered >> t) & 1:
            ok = 1
            for i in range(s.nplayers):
                if s.seats[i].start_tile == t:
                    ok = 0
            if ok:
                buf[n] = A_START + t
                n += 1
    return n


cdef void choose_setup(KState* s, const Comp* c, int action, int arg) noexcept nogil:
    """rules.State._choose_setup."""
    cdef int t
    t = action - A_START
    s.seats[arg].start_tile = <int8_t>t
    pop(s)
    begin_tile(s, arg, c.start_act[t], c.start_nact[t])


cdef int task_turn(KState* s, const Comp* c, int arg, int16_t* buf) noexcept nogil:
    """rules.State._task_turn."""
    cdef int n = 0, i, seat
    s.phase = PH_ACTION
    seat = s.chain[0] - SEAT
    s.turn_seat = <int8_t>seat
    s.actor = <int8_t>seat
    # Every action tile is always in the chain: one block copy (buf has MAX_LEGAL >= MAX_TILES
    # entries; those past ntiles are overwritten or ignored).
    memcpy(buf, TURN_OPTIONS, MAX_TILES * sizeof(int16_t))
    n = c.ntiles
    if c.nspec > 0:  # and, with V6, one specialty tile
        for i in range(s.nchain):
            if s.chain[i] >= SPECIAL:
                buf[n] = A_SPECIAL_TILE + s.chain[i] - SPECIAL
                n += 1
    return n


cdef void choose_turn(KState* s, const Comp* c, int action, int arg) noexcept nogil:
    """rules.State._choose_turn."""
    cdef int t, seat, i
    if action >= A_SPECIAL_TILE:
        t = SPECIAL + action - A_SPECIAL_TILE
    else:
        t = action - A_TILE
    seat = s.chain[0] - SEAT
    for i in range(s.nchain):
        if s.chain[i] == t:
            s.chain[i] = s.chain[0]
            break
    for i in range(s.nchain - 1):
        s.chain[i] = s.chain[i + 1]
    s.marker_placed = 0
    pop(s)
    memcpy(s.tasks[s.ntasks], TURN_TASKS, sizeof(TURN_TASKS))  # end_turn, diesel, daimler, market pushed
    s.ntasks += 4
    if t < SEAT:
        s.chain[s.nchain - 1] = <int8_t>t
        begin_tile(s, seat, c.tile_act[t], c.tile_nact[t])
    else:  # a specialty tile: discarded, replaced at once; then the order of action and bonus
        t -= SPECIAL
        discard_special(s, c, t)
        s.chain[s.nchain - 1] = <int8_t>(SPECIAL + draw_special(s, c, s.round - 1))
        s.turn_seat = <int8_t>seat
        push(s, TK_SPECIAL_ORDER, t)


cdef void choose_special_order(KState* s, const Comp* c, int action, int arg) noexcept nogil:
    """rules.State._choose_special_order: the specialty tile ``arg``'s standard action, then its bonus
    (A_ORDER_ACTION), or the bonus first."""
    pop(s)
    if action == A_ORDER_BONUS:
        begin_tile(s, s.turn_seat, &c.spec_action[arg], 1)
        push(s, TK_SPECIAL, arg)
    else:
        push(s, TK_SPECIAL, arg)  # under the tile: the bonus after the action
        begin_tile(s, s.turn_seat, &c.spec_action[arg], 1)


cdef int task_special_order(KState* s, const Comp* c, int arg, int16_t* buf) noexcept nogil:
    """rules.State._task_special_order."""
    if bonus_commutes(s, c, arg):
        choose_special_order(s, c, A_ORDER_ACTION, arg)
        return -1
    s.actor = s.turn_seat
    buf[0] = A_ORDER_ACTION
    buf[1] = A_ORDER_BONUS
    return 2


cdef int task_tile(KState* s, const Comp* c, int arg, int16_t* buf) noexcept nogil:
    """rules.State._task_tile.

    ``commutes`` is symmetric and true for a kind with itself, so each pair of distinct
    kinds is tested once and both of a failing pair are contested (a kind contested
    alone cannot happen); a tile with one kind left tests nothing."""
    cdef int i, j, nk, n, depth = s.ntasks
    cdef int kinds[8]
    cdef uint32_t bad = 0  # bit i: kinds[i] does not commute with some other kind left
    cdef SeatS* p
    if s.nrem == 0:
        pop(s)
        return then_next(s, c, buf)
    nk = 0
    for i in range(s.nrem):
        if nk == 0 or kinds[nk - 1] != s.remaining[i]:
            kinds[nk] = s.remaining[i]
            nk += 1
    if nk > 1:
        p = &s.seats[s.turn_seat]
        for i in range(nk - 1):
            for j in range(i + 1, nk):
                if not commutes(kinds[i], kinds[j], p, c):
                    bad |= (<uint32_t>1 << i) | (<uint32_t>1 << j)
        if bad:
            s.actor = s.turn_seat
            n = 0
            for i in range(nk):
                if (bad >> i) & 1:
                    buf[n] = A_DO + kinds[i]
                    n += 1
            return n
    start_action(s, c, kinds[0])
    if s.nrem == 0 and s.ntasks == depth:  # the last kind, automatic: the next step would only pop the tile
        pop(s)
    return then_next(s, c, buf)


cdef void choose_tile(KState* s, const Comp* c, int action, int arg) noexcept nogil:
    """rules.State._choose_tile."""
    start_action(s, c, action - A_DO)


cdef int task_hire(KState* s, const Comp* c, int arg, int16_t* buf) noexcept nogil:
    """rules.State._task_hire."""
    cdef int n = 0, j, seat, k, nk
    cdef int kinds[8]
    cdef SeatS* p
    seat = s.turn_seat
    p = &s.seats[seat]
    n = arg
    while n > 0 and p.supply > 0:
        nk = 0
        for k in range(c.ndev):
            if p.inactive[k]:
                kinds[nk if nk < 8 else 7] = k
                nk += 1
        if nk >= 2:
            s.tasks[s.ntasks - 1][1] = <int8_t>n
            s.actor = <int8_t>seat
            j = 0
            for k in range(c.ndev):
                if p.inactive[k]:
                    buf[j] = A_ACTIVATE + c.dev_type[k]
                    j += 1
            return j
        p.supply -= 1
        n -= 1
        if nk == 1:
            p.inactive[kinds[0]] -= 1
            p.active[kinds[0]] += 1
        else:
            p.canteen += 1
    pop(s)
    if p.supply == 0:
        award(s, c, seat, AW_WORKER)
    return then_next(s, c, buf)


cdef void choose_hire(KState* s, const Comp* c, int action, int arg) noexcept nogil:
    """rules.State._choose_hire."""
    cdef int k
    cdef SeatS* p
    p = &s.seats[s.turn_seat]
    p.supply -= 1
    k = c.card_devslot[action - A_ACTIVATE]
    p.inactive[k] -= 1
    p.active[k] += 1
    s.tasks[s.ntasks - 1][1] = <int8_t>(arg - 1)


cdef int task_research(KState* s, const Comp* c, int arg, int16_t* buf) noexcept nogil:
    """rules.State._task_research."""
    cdef int n = 0
    if s.ndisplay == 0:
        pop(s)
        return then_next(s, c, buf)
    s.actor = s.turn_seat
    buf[0] = A_RESEARCH + s.display[0]
    n = 1
    if s.ndisplay == 2 and s.display[1] != s.display[0]:
        buf[1] = A_RESEARCH + s.display[1]
        n = 2
    return n


cdef void choose_research(KState* s, const Comp* c, int action, int arg) noexcept nogil:
    """rules.State._choose_research."""
    cdef int t
    pop(s)
    t = action - A_RESEARCH
    if s.display[0] == t:
        if s.ndisplay == 2:
            discard(s, s.display[1])
    else:
        discard(s, s.display[0])
    s.ndisplay = 0
    refill_display(s)
    take_card(s, c, s.turn_seat, t)


cdef void choose_card_order(KState* s, const Comp* c, int action, int arg) noexcept nogil:
    """rules.State._choose_card_order: the body first (A_ORDER_BODY) or the engine first."""
    pop(s)
    if action == A_ORDER_ENGINE:
        push(s, TK_BODY, 0)
        push(s, TK_ENGINE, 0)
    else:
        push(s, TK_ENGINE, 0)
        push(s, TK_BODY, 0)


cdef int task_card_order(KState* s, const Comp* c, int arg, int16_t* buf) noexcept nogil:
    """rules.State._task_card_order."""
    if s.seats[s.turn_seat].nwork <= 1:
        choose_card_order(s, c, A_ORDER_BODY, 0)
        return -1
    s.actor = s.turn_seat
    buf[0] = A_ORDER_BODY
    buf[1] = A_ORDER_ENGINE
    return 2


cdef void task_body(KState* s, const Comp* c, int arg) noexcept nogil:
    """rules.State._task_body: the best body tile up to ``arg`` (0: the research points) to a workshop."""
    cdef int w, body, engine
    if arg == 0:
        research_points(s, c, s.turn_seat, &body, &engine)
        arg = body
    w = take_tile(s, 0, arg)
    if w:
        push(s, TK_PLACE, w)


cdef void task_engine(KState* s, const Comp* c, int arg) noexcept nogil:
    """rules.State._task_engine: the best engine tile up to ``arg`` (0: the research points), whose
    place the seat then chooses."""
    cdef int w, body, engine
    if arg == 0:
        research_points(s, c, s.turn_seat, &body, &engine)
        arg = engine
    w = take_tile(s, 1, arg)
    if w:
        push(s, TK_ENGINE_DEST, w)


cdef int task_engine_dest(KState* s, const Comp* c, int arg, int16_t* buf) noexcept nogil:
    """rules.State._task_engine_dest."""
    s.actor = s.turn_seat
    buf[0] = A_ENGINE_WORKSHOP
    buf[1] = A_ENGINE_GP
    return 2


cdef void choose_engine_dest(KState* s, const Comp* c, int action, int arg) noexcept nogil:
    """rules.State._choose_engine_dest."""
    pop(s)
    if action == A_ENGINE_WORKSHOP:
        push(s, TK_PLACE, ENGINE_CODE + arg)
    else:
        install_gp_engine(s, arg)


cdef int task_place(KState* s, const Comp* c, int arg, int16_t* buf) noexcept nogil:
    """rules.State._task_place."""
    cdef int n = 0
    cdef SeatS* p
    p = &s.seats[s.turn_seat]
    if p.nwork < 3:
        pop(s)
        put_in_workshop(s, c, arg)
        return then_next(s, c, buf)
    s.actor = s.turn_seat
    return distinct_work(p, A_GIVEUP, buf, n)


cdef void choose_place(KState* s, const Comp* c, int action, int arg) noexcept nogil:
    """rules.State._choose_place."""
    cdef int old
    cdef SeatS* p
    pop(s)
    p = &s.seats[s.turn_seat]
    old = action - A_GIVEUP
    remove_work(p, old)
    return_tile(s, old)
    put_in_workshop(s, c, arg)


cdef void task_gp(KState* s, const Comp* c, int arg) noexcept nogil:
    """rules.State._task_gp."""
    cdef int seat
    seat = s.turn_seat
    if has(&s.seats[seat], EN_PORSCHE):
        arg += 1
    move_car(s, c, seat, arg)


cdef void task_gp_engine(KState* s, const Comp* c, int arg) noexcept nogil:
    """rules.State._task_gp_engine."""
    if s.supply_engine[arg - 1] > 0 and arg > s.seats[s.turn_seat].gp_engine:
        s.supply_engine[arg - 1] -= 1
        install_gp_engine(s, arg)


cdef void task_gp_start(KState* s, const Comp* c, int arg) noexcept nogil:
    """rules.State._task_gp_start."""
    while occupied(s, c, s.turn_seat, arg):
        arg = arg % c.lap + 1
    if s.seats[s.turn_seat].space == 0:
        s.seats[s.turn_seat].space = <int8_t>arg


cdef int task_buyer(KState* s, const Comp* c, int arg, int16_t* buf) noexcept nogil:
    """rules.State._task_buyer."""
    cdef int n = 0, i
    if s.nactive >= c.buyer_spaces:
        pop(s)
        if s.track > 0:
            s.track -= 1
        return then_next(s, c, buf)
    for i in range(4):
        if s.stacks[i] > 0:
            buf[n] = A_BUYER + i
            n += 1
    if n == 0:
        pop(s)
        return then_next(s, c, buf)
    s.actor = s.turn_seat
    return n


cdef void choose_buyer(KState* s, const Comp* c, int action, int arg) noexcept nogil:
    """rules.State._choose_buyer."""
    pop(s)
    add_buyer(s, c, s.turn_seat, action - A_BUYER)


cdef int task_market(KState* s, const Comp* c, int arg, int16_t* buf) noexcept nogil:
    """rules.State._task_market."""
    cdef int n = 0, i, last, ok
    cdef SeatS* p
    p = &s.seats[s.turn_seat]
    if p.canteen < 1 or s.prices == 0 or s.nmarket >= c.market_size:  # the cheap tests first
        pop(s)
        return then_next(s, c, buf)
    ok = 0
    for i in range(p.nwork):
        if p.work[i] > ENGINE_CODE:
            ok = 1
    buf[0] = A_MARKET_PASS
    n = 1
    last = -1
    for i in range(p.nwork):
        if p.work[i] < ENGINE_CODE and p.work[i] != last:
            buf[n] = A_MARKET_BODY + p.work[i] - 1
            n += 1
            last = p.work[i]
    if n == 1 or not ok:
        pop(s)
        return then_next(s, c, buf)
    s.actor = s.turn_seat
    return n


cdef void choose_market(KState* s, const Comp* c, int action, int arg) noexcept nogil:
    """rules.State._choose_market."""
    cdef int v
    cdef int8_t* car
    pop(s)
    if action == A_MARKET_PASS:
        return
    v = action - A_MARKET_BODY + 1
    remove_work(&s.seats[s.turn_seat], v)
    s.car[0] = <int8_t>v
    s.ncar = 1
    push(s, TK_MARKET_ENGINE, 0)


cdef int task_market_engine(KState* s, const Comp* c, int arg, int16_t* buf) noexcept nogil:
    """rules.State._task_market_engine."""
    cdef int n = 0, i, last
    cdef SeatS* p
    s.actor = s.turn_seat
    p = &s.seats[s.turn_seat]
    last = -1
    for i in range(p.nwork):
        if p.work[i] > ENGINE_CODE and p.work[i] != last:
            buf[n] = A_MARKET_ENGINE + p.work[i] - ENGINE_CODE - 1
            n += 1
            last = p.work[i]
    return n


cdef void choose_market_engine(KState* s, const Comp* c, int action, int arg) noexcept nogil:
    """rules.State._choose_market_engine."""
    cdef int v
    cdef int8_t* car
    v = action - A_MARKET_ENGINE + 1
    remove_work(&s.seats[s.turn_seat], ENGINE_CODE + v)
    s.car[s.ncar] = <int8_t>v
    s.ncar += 1
    s.tasks[s.ntasks - 1][0] = TK_MARKET_WORKERS


cdef int task_market_workers(KState* s, const Comp* c, int arg, int16_t* buf) noexcept nogil:
    """rules.State._task_market_workers."""
    cdef int n = 0, i
    s.actor = s.turn_seat
    for i in range(1, s.seats[s.turn_seat].canteen + 1):
        buf[n] = A_MARKET_WORKERS + i - 1
        n += 1
    return n


cdef void choose_market_workers(KState* s, const Comp* c, int action, int arg) noexcept nogil:
    """rules.State._choose_market_workers."""
    cdef int v
    cdef int8_t* car
    v = action - A_MARKET_WORKERS + 1
    s.seats[s.turn_seat].canteen -= v
    s.car[s.ncar] = <int8_t>v
    s.ncar += 1
    s.tasks[s.ntasks - 1][0] = TK_MARKET_PRICE


cdef int task_market_price(KState* s, const Comp* c, int arg, int16_t* buf) noexcept nogil:
    """rules.State._task_market_price."""
    cdef int n = 0
    cdef uint32_t bits = s.prices
    s.actor = s.turn_seat
    while bits:  # the set bits, lowest first
        buf[n] = A_MARKET_PRICE + kw_ctz32(bits)
        n += 1
        bits &= bits - 1
    return n


cdef void choose_market_price(KState* s, const Comp* c, int action, int arg) noexcept nogil:
    """rules.State._choose_market_price."""
    cdef int v
    cdef int8_t* car
    v = action - A_MARKET_PRICE
    s.prices &= ~(<uint32_t>1 << v)
    s.car[s.ncar] = <int8_t>v
    s.ncar += 1
    s.tasks[s.ntasks - 1][0] = TK_MARKET_MARKER


cdef int task_market_marker(KState* s, const Comp* c, int arg, int16_t* buf) noexcept nogil:
    """rules.State._task_market_marker."""
    cdef int n = 0, i
    cdef SeatS* p
    s.actor = s.turn_seat
    p = &s.seats[s.turn_seat]
    buf[0] = A_MARKET_NO_MARKER
    n = 1
    if not s.marker_placed:
        for i in range(4):
            if c.slot_value[i]:
                if i < 2 and (p.maybach >> i) & 1:
                    buf[n] = A_MARKET_MARKER + i
                    n += 1
                elif i >= 2 and (p.horch >> (i - 2)) & 1:
                    buf[n] = A_MARKET_MARKER + i
                    n += 1
    return n


cdef void choose_market_marker(KState* s, const Comp* c, int action, int arg) noexcept nogil:
    """rules.State._choose_market_marker."""
    cdef int seat, i, k
    cdef SeatS* p
    cdef int8_t* car
    pop(s)
    seat = s.turn_seat
    p = &s.seats[seat]
    car = s.market[s.nmarket]
    car[CAR_OWNER] = <int8_t>seat
    car[CAR_BODY] = s.car[0]
    car[CAR_ENGINE] = s.car[1]
    car[CAR_WORKERS] = s.car[2]
    car[CAR_PRICE] = s.car[3]
    car[CAR_BODY_BONUS] = 0
    car[CAR_ENGINE_BONUS] = 0
    if action != A_MARKET_NO_MARKER:
        i = action - A_MARKET_MARKER
        if i < 2:
            p.maybach &= <uint8_t>~(1 << i)
            car[CAR_BODY_BONUS] = c.slot_value[i]
        else:
            p.horch &= <uint8_t>~(1 << (i - 2))
            car[CAR_ENGINE_BONUS] = c.slot_value[i]
        s.marker_placed = 1
    s.nmarket += 1
    s.ncar = 0
    k = 0
    for i in range(s.nmarket):
        if s.market[i][CAR_OWNER] == seat:
            k += 1
    if k >= 2:
        award(s, c, seat, AW_MARKET)


cdef int task_daimler(KState* s, const Comp* c, int arg, int16_t* buf) noexcept nogil:
    """rules.State._task_daimler."""
    cdef int n = 0, nc, a, b
    cdef SeatS* p
    p = &s.seats[s.turn_seat]
    if p.daimler == 0 or s.marker_placed:
        pop(s)
        return then_next(s, c, buf)
    nc = 0
    for b in range(s.nactive):
        if s.active_daimler[b] == 0:
            nc += 1
    if nc == 0:
        pop(s)
        return then_next(s, c, buf)
    s.actor = s.turn_seat
    buf[0] = A_DAIMLER_PASS
    n = 1
    for a in range(c.ndaimler):
        if (p.daimler >> a) & 1:
            for b in range(s.nactive):
                if s.active_daimler[b] == 0:
                    buf[n] = A_DAIMLER + a * MAX_BUYERS + b
                    n += 1
    return n


cdef void choose_daimler(KState* s, const Comp* c, int action, int arg) noexcept nogil:
    """rules.State._choose_daimler."""
    cdef int m, b
    pop(s)
    if action == A_DAIMLER_PASS:
        return
    m = (action - A_DAIMLER) // MAX_BUYERS
    b = (action - A_DAIMLER) % MAX_BUYERS
    s.seats[s.turn_seat].daimler &= <uint8_t>~(1 << m)
    s.active_daimler[b] = c.daimler[m]
    s.marker_placed = 1


cdef int task_diesel(KState* s, const Comp* c, int arg, int16_t* buf) noexcept nogil:
    """rules.State._task_diesel."""
    cdef int n = 0, i, seat
    seat = s.turn_seat
    if s.seats[seat].diesel <= 0:
        pop(s)
        return then_next(s, c, buf)
    buf[0] = A_DIESEL_PASS
    n = 1
    for i in range(s.nmarket):
        if s.market[i][CAR_OWNER] == seat and diesel_options(s, i, buf + n) > 0:
            buf[n] = A_DIESEL_CAR + s.market[i][CAR_PRICE]
            n += 1
    if n == 1:
        pop(s)
        return then_next(s, c, buf)
    s.actor = <int8_t>seat
    return n


cdef void choose_diesel(KState* s, const Comp* c, int action, int arg) noexcept nogil:
    """rules.State._choose_diesel."""
    pop(s)
    if action != A_DIESEL_PASS:
        push(s, TK_DIESEL_CHANGE, action - A_DIESEL_CAR)


cdef int task_diesel_change(KState* s, const Comp* c, int arg, int16_t* buf) noexcept nogil:
    """rules.State._task_diesel_change."""
    s.actor = s.turn_seat
    return diesel_options(s, car_by_price(s, arg), buf)


cdef void choose_diesel_change(KState* s, const Comp* c, int action, int arg) noexcept nogil:
    """rules.State._choose_diesel_change."""
    cdef int v
    cdef SeatS* p
    cdef int8_t* car
    pop(s)
    push(s, TK_DIESEL, 0)  # the next marker may follow in the same turn (RULES.md §5.3)
    car = s.market[car_by_price(s, arg)]
    p = &s.seats[car[CAR_OWNER]]
    p.diesel -= 1
    if action < A_DIESEL_ENGINE:
        v = action - A_DIESEL_BODY + 1
        remove_work(p, v)
        return_tile(s, car[CAR_BODY])
        car[CAR_BODY] = <int8_t>v
    elif action < A_DIESEL_WORKERS:
        v = action - A_DIESEL_ENGINE + 1
        remove_work(p, ENGINE_CODE + v)
        return_tile(s, ENGINE_CODE + car[CAR_ENGINE])
        car[CAR_ENGINE] = <int8_t>v
    elif action < A_DIESEL_PRICE:
        v = action - A_DIESEL_WORKERS + 1
        p.canteen -= v - car[CAR_WORKERS]
        car[CAR_WORKERS] = <int8_t>v
    else:
        v = action - A_DIESEL_PRICE
        s.prices &= ~(<uint32_t>1 << v)
        s.prices |= <uint32_t>1 << car[CAR_PRICE]
        car[CAR_PRICE] = <int8_t>v


cdef void task_end_turn(KState* s, const Comp* c, int arg) noexcept nogil:
    """rules.State._task_end_turn."""
    cdef int i, t, k
    cdef int8_t head[MAX_CHAIN]
    if c.nspec == 0 and s.chain[0] < SEAT:
        # Without V6 the tiles ahead of the first seat only move to the back, in their order:
        # one rotation by their number instead of a shift per tile.
        k = 1
        while s.chain[k] < SEAT:
            k += 1
        memcpy(head, s.chain, k)
        memmove(s.chain, s.chain + k, s.nchain - k)
        memcpy(s.chain + s.nchain - k, head, k)
    while s.chain[0] < SEAT or s.chain[0] >= SPECIAL:
        t = s.chain[0]
        for i in range(s.nchain - 1):
            s.chain[i] = s.chain[i + 1]
        if t >= SPECIAL and c.spec_stack[t - SPECIAL] < s.round - 1:
            # An earlier round's specialty tile passed by everyone: replaced [book 9.0].
            discard_special(s, c, t - SPECIAL)
            t = SPECIAL + draw_special(s, c, s.round - 1)
        s.chain[s.nchain - 1] = <int8_t>t
    s.turn_seat = -1
    s.marker_placed = 0
    if s.nmarket >= c.market_size or s.track == 0:
        s.phase = PH_SCORING
        push(s, TK_ROUND_END, 0)
        push(s, TK_SALES, 0)
        push(s, TK_RACE, 0)
        for i in range(s.nplayers):
            if s.seats[i].benz > 0:
                push(s, TK_BENZ, i)
    else:
        push(s, TK_TURN, 0)


cdef int task_benz(KState* s, const Comp* c, int arg, int16_t* buf) noexcept nogil:
    """rules.State._task_benz."""
    cdef int n = 0, i
    buf[0] = A_BENZ_PASS
    n = 1
    for i in range(4):
        if s.stacks[i] > 0:
            buf[n] = A_BENZ + i
            n += 1
    if n == 1:
        pop(s)
        return -1
    s.actor = <int8_t>arg
    return n


cdef void choose_benz(KState* s, const Comp* c, int action, int arg) noexcept nogil:
    """rules.State._choose_benz."""
    pop(s)
    if action == A_BENZ_PASS:
        return
    s.seats[arg].benz -= 1
    add_buyer(s, c, arg, action - A_BENZ)


cdef void race_money(const KState* s, const Comp* c, int* out) noexcept nogil:
    """What the race pays each seat if it is scored now: place money and lap money
    (rules.State._task_race; kwsearch._eval projects it into its features)."""
    cdef int i, j, k, w, ncars, best
    cdef int cars[12][3]
    ncars = 0
    for i in range(s.nplayers):
        out[i] = 0
        if s.seats[i].space > 0:
            cars[ncars][0] = s.seats[i].laps
            cars[ncars][1] = s.seats[i].space
            cars[ncars][2] = i
            ncars += 1
    for i in range(c.nneutral):
        cars[ncars][0] = 0
        cars[ncars][1] = c.neutral[i]
        cars[ncars][2] = -1
        ncars += 1
    for k in range(c.nplace):  # selection of the k-th best (laps, space, seat)
        if k >= ncars:
            break
        best = k
        for i in range(k + 1, ncars):
            if (cars[i][0] > cars[best][0] or (cars[i][0] == cars[best][0] and
                    (cars[i][1] > cars[best][1] or (cars[i][1] == cars[best][1] and cars[i][2] > cars[best][2])))):
                best = i
        for j in range(3):
            w = cars[k][j]
            cars[k][j] = cars[best][j]
            cars[best][j] = w
        if cars[k][2] >= 0:
            out[cars[k][2]] += c.place_money[k]
    for i in range(s.nplayers):
        out[i] += lap_money(c, s.seats[i].laps)


cdef void task_race(KState* s, const Comp* c, int arg) noexcept nogil:
    """rules.State._task_race."""
    cdef int i
    cdef int pay[MAXP]
    race_money(s, c, pay)
    for i in range(s.nplayers):
        s.seats[i].money += pay[i]


cdef void sales_money(const KState* s, const Comp* c, int* out) noexcept nogil:
    """What the buyers on the table pay each seat if sales are scored now (rules.State._task_sales;
    the rule is sales_rule of _fast.pxd; kwsearch._eval projects it into its features)."""
    cdef int b
    for b in range(s.nplayers):
        out[b] = 0
    sales_rule(s, c, &s.market[0][0], s.nmarket, s.active, s.nactive, s.active_daimler, s.nactive, NULL, out, NULL)


cdef void task_sales(KState* s, const Comp* c, int arg) noexcept nogil:
    """rules.State._task_sales."""
    cdef int i
    cdef int pay[MAXP]
    sales_money(s, c, pay)
    for i in range(s.nplayers):
        s.seats[i].money += pay[i]


cdef void task_round_end(KState* s, const Comp* c, int arg) noexcept nogil:
    """rules.State._task_round_end."""
    cdef int i
    for i in range(s.nmarket):
        s.supply_body[s.market[i][CAR_BODY] - 1] += 1
        s.supply_engine[s.market[i][CAR_ENGINE] - 1] += 1
        s.seats[s.market[i][CAR_OWNER]].supply += s.market[i][CAR_WORKERS]
    s.nmarket = 0
    for i in range(s.nactive):
        s.stacks[s.active[i]] += 1
    s.nactive = 0
    for i in range(s.nplayers):
        s.seats[i].laps = 0
        s.seats[i].space = 0
    s.prices = 0
    if s.round >= c.rounds:
        s.phase = PH_OVER
        return
    s.round += 1
    prepare_round(s, c)
    s.phase = PH_ACTION
    push(s, TK_TURN, 0)


cdef void task_special(KState* s, const Comp* c, int arg) noexcept nogil:
    """rules.State._task_special."""
    cdef int t, seat, k, w
    cdef SeatS* p
    seat = s.turn_seat
    p = &s.seats[seat]
    k = c.spec_bonus[arg]
    if k == BN_ENGINE:
        task_engine(s, c, c.spec_value[arg])
    elif k == BN_BODY:
        task_body(s, c, c.spec_value[arg])
    elif k == BN_GP_ENGINE:
        w = p.gp_engine + 1
        if w <= MAX_VALUE and s.supply_engine[w - 1] > 0:
            s.supply_engine[w - 1] -= 1
            install_gp_engine(s, w)
    elif k == BN_CANTEEN_MONEY:
        p.money += c.spec_value[arg] * p.canteen
    elif k == BN_REMOVE_CAR:
        push(s, TK_REMOVE, c.spec_value[arg])
    elif k == BN_SELL_TILE:
        push(s, TK_SELL, 0)
    elif s.ndiscard > 0:  # research with the top discard
        t = s.cards[MAX_CARDS - s.ndiscard]
        s.ndiscard -= 1
        take_card(s, c, seat, t)


cdef int task_sell(KState* s, const Comp* c, int arg, int16_t* buf) noexcept nogil:
    """rules.State._task_sell."""
    cdef SeatS* p
    p = &s.seats[s.turn_seat]
    if p.nwork == 0:
        pop(s)
        return -1
    s.actor = s.turn_seat
    buf[0] = A_SELL_PASS
    return distinct_work(p, A_SELL, buf, 1)


cdef void choose_sell(KState* s, const Comp* c, int action, int arg) noexcept nogil:
    """rules.State._choose_sell."""
    cdef int v
    cdef SeatS* p
    pop(s)
    if action == A_SELL_PASS:
        return
    v = action - A_SELL
    p = &s.seats[s.turn_seat]
    remove_work(p, v)
    return_tile(s, v)
    p.money += v - ENGINE_CODE if v > ENGINE_CODE else v


cdef int task_remove(KState* s, const Comp* c, int arg, int16_t* buf) noexcept nogil:
    """rules.State._task_remove."""
    cdef int n = 0, i, seat
    seat = s.turn_seat
    buf[0] = A_REMOVE_PASS
    n = 1
    for i in range(s.nmarket):
        if s.market[i][CAR_OWNER] == seat:
            buf[n] = A_REMOVE_CAR + s.market[i][CAR_PRICE]
            n += 1
    if n == 1:
        pop(s)
        return -1
    s.actor = <int8_t>seat
    return n


cdef void choose_remove(KState* s, const Comp* c, int action, int arg) noexcept nogil:
    """rules.State._choose_remove."""
    cdef int i
    cdef int8_t* car
    pop(s)
    if action == A_REMOVE_PASS:
        return
    i = car_by_price(s, action - A_REMOVE_CAR)
    car = s.market[i]
    s.supply_body[car[CAR_BODY] - 1] += 1
    s.supply_engine[car[CAR_ENGINE] - 1] += 1
    s.seats[car[CAR_OWNER]].supply += car[CAR_WORKERS]
    s.prices |= <uint32_t>1 << car[CAR_PRICE]
    s.seats[car[CAR_OWNER]].money += arg
    remove_market_car(s, i)

# The task machine's dispatch: one table of task functions and one of choice functions, indexed
# by the task kind (TK_*), filled once at import. A call through the table replaces a switch in
# one large function: each task is then a function of its own, so a step pays that task's
# prologue and no more (the switch's function, with every task inlined into it, saved and
# restored all registers and a large frame on each of the ~4 steps per playout decision).

cdef int step_body(KState* s, const Comp* c, int arg, int16_t* buf) noexcept nogil:
    """The automatic task ``body`` as a step: popped, then done."""
    pop(s)
    task_body(s, c, arg)
    return then_next(s, c, buf)


cdef int step_engine(KState* s, const Comp* c, int arg, int16_t* buf) noexcept nogil:
    """The automatic task ``engine`` as a step: popped, then done."""
    pop(s)
    task_engine(s, c, arg)
    return then_next(s, c, buf)


cdef int step_gp(KState* s, const Comp* c, int arg, int16_t* buf) noexcept nogil:
    """The automatic task ``gp`` as a step: popped, then done."""
    pop(s)
    task_gp(s, c, arg)
    return then_next(s, c, buf)


cdef int step_gp_engine(KState* s, const Comp* c, int arg, int16_t* buf) noexcept nogil:
    """The automatic task ``gp_engine`` as a step: popped, then done."""
    pop(s)
    task_gp_engine(s, c, arg)
    return then_next(s, c, buf)


cdef int step_gp_start(KState* s, const Comp* c, int arg, int16_t* buf) noexcept nogil:
    """The automatic task ``gp_start`` as a step: popped, then done."""
    pop(s)
    task_gp_start(s, c, arg)
    return then_next(s, c, buf)


cdef int step_end_turn(KState* s, const Comp* c, int arg, int16_t* buf) noexcept nogil:
    """The automatic task ``end_turn`` as a step: popped, then done."""
    pop(s)
    task_end_turn(s, c, arg)
    return then_next(s, c, buf)


cdef int step_race(KState* s, const Comp* c, int arg, int16_t* buf) noexcept nogil:
    """The automatic task ``race`` as a step: popped, then done."""
    pop(s)
    task_race(s, c, arg)
    return then_next(s, c, buf)


cdef int step_sales(KState* s, const Comp* c, int arg, int16_t* buf) noexcept nogil:
    """The automatic task ``sales`` as a step: popped, then done."""
    pop(s)
    task_sales(s, c, arg)
    return then_next(s, c, buf)


cdef int step_round_end(KState* s, const Comp* c, int arg, int16_t* buf) noexcept nogil:
    """The automatic task ``round_end`` as a step: popped, then done."""
    pop(s)
    task_round_end(s, c, arg)
    return then_next(s, c, buf)


cdef int step_special(KState* s, const Comp* c, int arg, int16_t* buf) noexcept nogil:
    """The automatic task ``special`` as a step: popped, then done."""
    pop(s)
    task_special(s, c, arg)
    return then_next(s, c, buf)


cdef void choose_nothing(KState* s, const Comp* c, int action, int arg) noexcept nogil:
    """An automatic task has no options to choose from (never called for a legal action)."""
    pass


TASK_FN[TK_SETUP] = task_setup
TASK_FN[TK_TURN] = task_turn
TASK_FN[TK_TILE] = task_tile
TASK_FN[TK_HIRE] = task_hire
TASK_FN[TK_RESEARCH] = task_research
TASK_FN[TK_ENGINE_DEST] = task_engine_dest
TASK_FN[TK_PLACE] = task_place
TASK_FN[TK_BUYER] = task_buyer
TASK_FN[TK_MARKET] = task_market
TASK_FN[TK_MARKET_ENGINE] = task_market_engine
TASK_FN[TK_MARKET_WORKERS] = task_market_workers
TASK_FN[TK_MARKET_PRICE] = task_market_price
TASK_FN[TK_MARKET_MARKER] = task_market_marker
TASK_FN[TK_DAIMLER] = task_daimler
TASK_FN[TK_DIESEL] = task_diesel
TASK_FN[TK_DIESEL_CHANGE] = task_diesel_change
TASK_FN[TK_BENZ] = task_benz
TASK_FN[TK_SELL] = task_sell
TASK_FN[TK_REMOVE] = task_remove
TASK_FN[TK_CARD_ORDER] = task_card_order
TASK_FN[TK_SPECIAL_ORDER] = task_special_order
TASK_FN[TK_BODY] = step_body
TASK_FN[TK_ENGINE] = step_engine
TASK_FN[TK_GP] = step_gp
TASK_FN[TK_GP_ENGINE] = step_gp_engine
TASK_FN[TK_GP_START] = step_gp_start
TASK_FN[TK_END_TURN] = step_end_turn
TASK_FN[TK_RACE] = step_race
TASK_FN[TK_SALES] = step_sales
TASK_FN[TK_ROUND_END] = step_round_end
TASK_FN[TK_SPECIAL] = step_special
CHOOSE_FN[TK_SETUP] = choose_setup
CHOOSE_FN[TK_TURN] = choose_turn
CHOOSE_FN[TK_TILE] = choose_tile
CHOOSE_FN[TK_HIRE] = choose_hire
CHOOSE_FN[TK_RESEARCH] = choose_research
CHOOSE_FN[TK_ENGINE_DEST] = choose_engine_dest
CHOOSE_FN[TK_PLACE] = choose_place
CHOOSE_FN[TK_BUYER] = choose_buyer
CHOOSE_FN[TK_MARKET] = choose_market
CHOOSE_FN[TK_MARKET_ENGINE] = choose_market_engine
CHOOSE_FN[TK_MARKET_WORKERS] = choose_market_workers
CHOOSE_FN[TK_MARKET_PRICE] = choose_market_price
CHOOSE_FN[TK_MARKET_MARKER] = choose_market_marker
CHOOSE_FN[TK_DAIMLER] = choose_daimler
CHOOSE_FN[TK_DIESEL] = choose_diesel
CHOOSE_FN[TK_DIESEL_CHANGE] = choose_diesel_change
CHOOSE_FN[TK_BENZ] = choose_benz
CHOOSE_FN[TK_SELL] = choose_sell
CHOOSE_FN[TK_REMOVE] = choose_remove
CHOOSE_FN[TK_CARD_ORDER] = choose_card_order
CHOOSE_FN[TK_SPECIAL_ORDER] = choose_special_order
CHOOSE_FN[TK_BODY] = choose_nothing
CHOOSE_FN[TK_ENGINE] = choose_nothing
CHOOSE_FN[TK_GP] = choose_nothing
CHOOSE_FN[TK_GP_ENGINE] = choose_nothing
CHOOSE_FN[TK_GP_START] = choose_nothing
CHOOSE_FN[TK_END_TURN] = choose_nothing
CHOOSE_FN[TK_RACE] = choose_nothing
CHOOSE_FN[TK_SALES] = choose_nothing
CHOOSE_FN[TK_ROUND_END] = choose_nothing
CHOOSE_FN[TK_SPECIAL] = choose_nothing


cdef inline int step(KState* s, const Comp* c, int16_t* buf) noexcept nogil:
    """Do the top task and return -1, or return the number of options in buf (rules.State._step)."""
    cdef int top = s.ntasks - 1
    cdef TaskFn fn = TASK_FN[s.tasks[top][0]]  # a local first (see then_next)
    return fn(s, c, s.tasks[top][1], buf)


cdef inline void resolve(KState* s, const Comp* c, int action) noexcept nogil:
    """Apply the chosen option of the top task (rules.State._resolve)."""
    cdef int top = s.ntasks - 1
    cdef ChooseFn fn = CHOOSE_FN[s.tasks[top][0]]  # a local first (see then_next)
    fn(s, c, action, s.tasks[top][1])


cdef int run_opts(KState* s, const Comp* c, int16_t* buf) noexcept nogil:
    """Run tasks until a decision with two or more options is pending (rules.State._run);
    its options (unsorted) are left in buf and their number returned (0 when over)."""
    cdef int n
    while s.ntasks > 0:
        n = step(s, c, buf)
        if n < 0:
            continue
        if n == 1:
            resolve(s, c, buf[0])
            continue
        return n
    s.phase = PH_OVER
    s.actor = -1
    return 0


cdef inline void run(KState* s, const Comp* c) noexcept nogil:
    cdef int16_t buf[MAX_LEGAL]
    run_opts(s, c, buf)

# ---------------------------------------------------------------------------
# Public C API
# ---------------------------------------------------------------------------

cdef int k_legal(KState* s, const Comp* c, int16_t* buf) noexcept nogil:
    """Write the sorted legal actions into buf (MAX_LEGAL entries); return their number."""
    cdef int n
    if s.phase == PH_OVER or s.ntasks == 0:
        return 0
    n = step(s, c, buf)
    if n < 0:
        return 0
    sort16(buf, n)
    return n


cdef void k_apply(KState* s, const Comp* c, int action) noexcept nogil:
    """Apply a legal action (unchecked) and run to the next decision."""
    resolve(s, c, action)
    run(s, c)


cdef void k_determinize(KState* s, const Comp* c, uint64_t seed) noexcept nogil:
    """Reshuffle the undrawn cards and each specialty stack's face-down tiles, and redraw the
    reshuffle generator (rules.State.determinize)."""
    cdef uint64_t r = seed_to_rng(seed)
    cdef int counts[MAX_TYPES]
    cdef int8_t tmp[MAX_SPECIAL]
    cdef int i, t, k = 0, st
    for t in range(MAX_TYPES):  # a canonical (sorted) order first: the true order never matters
        counts[t] = 0
    for i in range(s.ndeck):
        counts[s.cards[i]] += 1
    for t in range(MAX_TYPES):
        for i in range(counts[t]):
            s.cards[k] = <int8_t>t
            k += 1
    shuffle(s.cards, s.ndeck, &r)
    for st in range(c.nstacks):  # face-down specialty tiles, from a canonical (sorted) order too
        k = 0
        for t in range(c.nspec):
            if c.spec_stack[t] == st and s.spec_loc[t] > 0:
                tmp[k] = <int8_t>t
                k += 1
        shuffle(tmp, k, &r)
        for i in range(k):
            s.spec_loc[tmp[i]] = <int8_t>(i + 1)
    s.rng = r


cdef int k_loop(KState* s, const Comp* c, uint64_t* rng, PickFn policy, const void* pctx, int16_t* trace,
                int cap, int max_decisions, GuideFn guide, const void* gctx, double share) noexcept nogil:
    """The one playout loop: at every decision a uniformly random option, which ``policy`` (if not
    NULL) may replace by its own pick (kwsearch._playout's tempo and smart policies), except that
    with a ``guide`` and ``share > 0`` a decision is, with chance ``share``, the guide's pick instead
    (one uniform draw per decision decides; none is drawn without a guide, so the unguided
    playouts' streams are the guided ones' at share 0 minus that draw). ``trace`` (if given)
    receives the first ``cap`` actions; ``max_decisions > 0`` stops after that many decisions.
    Returns the number of decisions taken. It lives with the task machine so that each decision's
    ``resolve`` and ``run_opts`` are direct calls."""
    cdef int16_t buf[MAX_LEGAL]
    cdef int n = k_legal(s, c, buf)  # the first options sorted, later ones in run_opts' order
    cdef int pick, steps = 0
    cdef bint guided = guide != NULL and share > 0
    while n > 0 and (max_decisions <= 0 or steps < max_decisions):
        if guided and k_unit(rng) < share:
            pick = guide(gctx, s, c, buf, n, rng)
        else:
            pick = buf[<int>(k_next(rng) % <uint64_t>n)]
            if policy != NULL:
                pick = policy(pctx, s, c, buf, n, pick, rng)
        if trace != NULL and steps < cap:
            trace[steps] = <int16_t>pick
        steps += 1
        resolve(s, c, pick)
        n = run_opts(s, c, buf)
    return steps


cdef int k_playout(KState* s, const Comp* c, uint64_t* rng, int max_decisions) noexcept nogil:
    """Play uniformly random legal actions until the game is over, or (``max_decisions > 0``) until
    that many decisions are taken (the state is then at the next decision); return the number of
    decisions."""
    return k_loop(s, c, rng, NULL, NULL, NULL, 0, max_decisions, NULL, NULL, 0.0)


# ---------------------------------------------------------------------------
# Python wrappers
# ---------------------------------------------------------------------------

cdef class FastGame:
    """The component tables of one Game, copied into a C struct (fields in _fast.pxd)."""

    def __init__(self, game):
        cdef Comp* c = &self.comp
        memset(c, 0, sizeof(Comp))
        comps = game.components
        self.game = game
        n = game.num_players
        c.nplayers = n
        actions = _C.ALL_ACTIONS
        c.ntiles = len(comps.action_tiles)
        for t in comps.action_tiles:
            c.tile_nact[t.index] = len(t.actions)
            for i, a in enumerate(t.actions):
                c.tile_act[t.index][i] = actions.index(a)
        c.nstart = len(comps.start_tiles)
        for t in comps.start_tiles:
            c.start_nact[t.index] = len(t.actions)
            for i, a in enumerate(t.actions):
                c.start_act[t.index][i] = actions.index(a)
        c.start_body = comps.start_body
        c.start_engine = comps.start_engine
        c.ntypes = len(comps.card_types)
        slots = {}
        for ct in comps.card_types:
            i = ct.index
            c.card_kind[i] = ("development", "instant", "engineer").index(ct.kind)
            c.card_body[i] = ct.body
            c.card_engine[i] = ct.engine
            c.card_tile[i] = (None, "body", "engine").index(ct.tile)
            c.card_effect[i] = _C.INSTANT_EFFECTS.index(ct.effect) if ct.effect else 0
            c.card_amount[i] = ct.amount
            c.card_engineer[i] = _C.ENGINEERS.index(ct.engineer) if ct.engineer else 0
            c.card_devslot[i] = -1
            if ct.kind == "development":
                c.card_devslot[i] = len(slots)
                c.dev_type[len(slots)] = i
                slots[i] = len(slots)
        c.ndev = len(slots)
        self.dev_slot_of = slots
        c.rounds = comps.rounds
        for r, series in enumerate(comps.price_markers):
            mask = 0
            for v in series:
                mask |= 1 << v
            c.price_mask[r] = mask
        for p in range(4):
            c.white[p] = comps.white_markers[p]
        c.buyers_per_pref = comps.buyers_per_preference
        c.lap = comps.gp_lap_length
        c.nplace = len(comps.gp_place_money)
        for i, v in enumerate(comps.gp_place_money):
            c.place_money[i] = v
        c.nlapmoney = len(comps.gp_lap_money)
        for i, v in enumerate(comps.gp_lap_money):
            c.lap_money[i] = v
        c.lap_extra = comps.gp_lap_money_extra
        c.gp_start_space = comps.gp_start_tile_space
        c.gp_start_engine = comps.gp_start_tile_engine
        c.nneutral = len(game.neutral_cars)
        for i, v in enumerate(game.neutral_cars):
            c.neutral[i] = v
        c.market_size = game.market_size
        c.buyer_spaces = game.buyer_spaces
        c.track_start = game.track_start
        for i, v in enumerate(comps.awards):
            c.award_money[i] = v
        c.price_mult = comps.price_buyer_multiplier
        c.opel_mult = comps.opel_multiplier
        c.nmaybach = len(comps.maybach_markers)
        for i, v in enumerate(comps.maybach_markers):
            c.maybach[i] = v
        c.nhorch = len(comps.horch_markers)
        for i, v in enumerate(comps.horch_markers):
            c.horch[i] = v
        c.ndaimler = len(comps.daimler_markers)
        for i, v in enumerate(comps.daimler_markers):
            c.daimler[i] = v
        c.diesel = comps.diesel_markers
        c.benz = comps.benz_markers
        c.otto = comps.otto_workers
        for i, (eng, v) in enumerate(game.marker_slots):
            c.slot_eng[i] = 0 if eng == "maybach" else 1
            c.slot_value[i] = v
        c.nspec = len(comps.specialty_tiles) if game.v6 else 0
        c.nstacks = game.num_stacks
        for t in comps.specialty_tiles:
            c.spec_stack[t.index] = t.stack
            c.spec_action[t.index] = actions.index(t.action)
            c.spec_bonus[t.index] = _C.SPECIALTY_BONUSES.index(t.bonus)
            c.spec_value[t.index] = t.value


def _bits(values, allowed):
    mask = 0
    for v in values:
        mask |= 1 << list(allowed).index(v)
    return mask


def _unbits(mask, allowed):
    return [v for i, v in enumerate(allowed) if (mask >> i) & 1]


cdef class FastState:
    """A game state of the fast engine; the API of :class:`kwsearch.rules.State` (fields in _fast.pxd)."""

    # ----- construction and conversion ---------------------------------

    @staticmethod
    def from_reference(ref):
        """The fast twin of a reference :class:`~kwsearch.rules.State`."""
        cdef FastState f = FastState.__new__(FastState)
        f.fg = _fast_game(ref.game)
        f._load(ref)
        return f

    def _load(self, ref):
        cdef KState* s = &self.st
        cdef SeatS* p
        memset(s, 0, sizeof(KState))
        game = ref.game
        comps = game.components
        slots = self.fg.dev_slot_of
        s.nplayers = game.num_players
        s.phase = _PHASES.index(ref.phase)
        s.round = ref.round
        s.nchain = len(ref.chain)
        for i, e in enumerate(ref.chain):
            s.chain[i] = e
        s.ndeck = len(ref.deck)
        for i, t in enumerate(ref.deck):
            s.cards[i] = t
        s.ndiscard = len(ref.discard)
        for i, t in enumerate(ref.discard):
            s.cards[MAX_CARDS - 1 - i] = t
        s.ndisplay = len(ref.display)
        for i, t in enumerate(ref.display):
            s.display[i] = t
        s.rng = ref.rng
        for i in range(4):
            s.stacks[i] = ref.stacks[i]
            s.white[i] = ref.white[i]
        s.nactive = len(ref.active)
        for i, (a, d) in enumerate(zip(ref.active, ref.active_daimler)):
            s.active[i] = a
            s.active_daimler[i] = d
        s.track = ref.track
        s.prices = sum(1 << v for v in ref.prices)
        s.nmarket = len(ref.market)
        for i, car in enumerate(ref.market):
            for j in range(CAR_FIELDS):
                s.market[i][j] = car[j]
        for v in range(MAX_VALUE):
            s.supply_body[v] = ref.supply_body[v]
            s.supply_engine[v] = ref.supply_engine[v]
        for i in range(10):
            s.awards[i] = ref.awards[i]
        s.offered = sum(1 << t for t in ref.offered)
        s.turn_seat = ref.turn_seat
        s.nrem = len(ref.remaining)
        for i, a in enumerate(ref.remaining):
            s.remaining[i] = _C.ALL_ACTIONS.index(a)
        s.marker_placed = 1 if ref.marker_placed else 0
        s.ncar = len(ref.car)
        for i, v in enumerate(ref.car):
            s.car[i] = v
        s.ntasks = len(ref.tasks)
        for i, (kind, arg) in enumerate(ref.tasks):
            s.tasks[i][0] = _TASK_INDEX[kind]
            s.tasks[i][1] = arg
        s.actor = ref.actor
        for stack in ref.spec_undrawn:
            for i, t in enumerate(stack):
                s.spec_loc[t] = i + 1
        for stack in ref.spec_used:
            for i, t in enumerate(stack):
                s.spec_loc[t] = -(i + 1)
        for si, rs in enumerate(ref.seats):
            p = &s.seats[si]
            p.money = rs.money
            p.supply = rs.supply
            p.canteen = rs.canteen
            p.nwork = len(rs.workshops)
            for i, w in enumerate(rs.workshops):
                p.work[i] = w
            p.gp_engine = rs.gp_engine
            p.gp_tile = 1 if rs.gp_tile else 0
            p.laps = rs.laps
            p.space = rs.space
            p.start_tile = rs.start_tile
            p.engineers = rs.engineers
            p.maybach = _bits(rs.maybach, comps.maybach_markers)
            p.horch = _bits(rs.horch, comps.horch_markers)
            p.daimler = _bits(rs.daimler, comps.daimler_markers)
            p.diesel = rs.diesel
            p.benz = rs.benz
            for t in rs.dev_active:
                p.active[slots[t]] += 1
            for t in rs.dev_inactive:
                p.inactive[slots[t]] += 1

    def to_reference(self):
        """The same state as a reference :class:`~kwsearch.rules.State`."""
        cdef KState* s = &self.st
        cdef SeatS* p
        game = self.fg.game
        comps = game.components
        dev_type = [self.fg.comp.dev_type[k] for k in range(self.fg.comp.ndev)]
        ref = RefState.blank(game)
        ref.phase = _PHASES[s.phase]
        ref.round = s.round
        ref.chain = [s.chain[i] for i in range(s.nchain)]
        ref.deck = [s.cards[i] for i in range(s.ndeck)]
        ref.discard = [s.cards[MAX_CARDS - 1 - i] for i in range(s.ndiscard)]
        ref.display = [s.display[i] for i in range(s.ndisplay)]
        ref.rng = s.rng
        ref.stacks = [s.stacks[i] for i in range(4)]
        ref.white = [s.white[i] for i in range(4)]
        ref.active = [s.active[i] for i in range(s.nactive)]
        ref.active_daimler = [s.active_daimler[i] for i in range(s.nactive)]
        ref.track = s.track
        ref.prices = [v for v in range(32) if (s.prices >> v) & 1]
        ref.market = [[s.market[i][j] for j in range(CAR_FIELDS)] for i in range(s.nmarket)]
        ref.supply_body = [s.supply_body[v] for v in range(MAX_VALUE)]
        ref.supply_engine = [s.supply_engine[v] for v in range(MAX_VALUE)]
        ref.awards = [s.awards[i] for i in range(10)]
        ref.offered = [t for t in range(8) if (s.offered >> t) & 1]
        ref.turn_seat = s.turn_seat
        ref.remaining = [_C.ALL_ACTIONS[s.remaining[i]] for i in range(s.nrem)]
        ref.marker_placed = bool(s.marker_placed)
        ref.car = [s.car[i] for i in range(s.ncar)]
        ref.tasks = [[_G.TASKS[s.tasks[i][0]], s.tasks[i][1]] for i in range(s.ntasks)]
        ref.actor = s.actor
        loc = [s.spec_loc[t] for t in range(MAX_SPECIAL)]
        stack_of = [self.fg.comp.spec_stack[t] for t in range(self.fg.comp.nspec)]
        for r in range(self.fg.comp.nstacks):
            tiles = [t for t in range(len(stack_of)) if stack_of[t] == r]
            ref.spec_undrawn[r] = sorted((t for t in tiles if loc[t] > 0), key=lambda t: loc[t])
            ref.spec_used[r] = sorted((t for t in tiles if loc[t] < 0), key=lambda t: -loc[t])
        for si in range(s.nplayers):
            p = &s.seats[si]
            rs = ref.seats[si]
            rs.money = p.money
            rs.supply = p.supply
            rs.canteen = p.canteen
            rs.workshops = [p.work[i] for i in range(p.nwork)]
            rs.gp_engine = p.gp_engine
            rs.gp_tile = bool(p.gp_tile)
            rs.laps = p.laps
            rs.space = p.space
            rs.start_tile = p.start_tile
            rs.engineers = p.engineers
            rs.maybach = _unbits(p.maybach, comps.maybach_markers)
            rs.horch = _unbits(p.horch, comps.horch_markers)
            rs.daimler = _unbits(p.daimler, comps.daimler_markers)
            rs.diesel = p.diesel
            rs.benz = p.benz
            rs.dev_active = [dev_type[k] for k in range(len(dev_type)) for _ in range(p.active[k])]
            rs.dev_inactive = [dev_type[k] for k in range(len(dev_type)) for _ in range(p.inactive[k])]
        ref.settle()  # the pending decision's options (its task is already at its decision)
        return ref

    # ----- the State API -----------------------------------------------

    def __getattr__(self, name):
        """Only an error: a fast state has no reference attributes (``seats``, ``chain``, ...).

        Its fields live in a C struct; a full snapshot is an explicit, whole-state
        conversion, :meth:`to_reference` (or :func:`kwsearch.engine.reference`), made once
        and read as often as needed. Cheap single readings are methods and properties of
        their own (:attr:`round`, :meth:`money`, :meth:`pending`, :meth:`research_points`).
        """
        if name in _SNAPSHOT_ATTRS:
            raise AttributeError(f"'FastState' object has no attribute {name!r}: the fast engine keeps its "
                                 f"state in C; take a snapshot with state.to_reference().{name} "
                                 f"(kwsearch.engine.reference(state) works on both engines)")
        raise AttributeError(f"'FastState' object has no attribute {name!r}")

    @property
    def game(self):
        return self.fg.game

    @property
    def round(self):
        """The current round (1..rounds), read from the struct (as ``State.round``)."""
        return self.st.round

    def current_player(self):
        return _G.TERMINAL if self.st.phase == PH_OVER else self.st.actor

    def is_terminal(self):
        return self.st.phase == PH_OVER

    def legal_actions(self):
        cdef int16_t buf[MAX_LEGAL]
        cdef int n = k_legal(&self.st, &self.fg.comp, buf)
        return [buf[i] for i in range(n)]

    def apply(self, int action):
        """Apply a legal ``action`` (unchecked: use :meth:`play` for untrusted input)."""
        k_apply(&self.st, &self.fg.comp, action)

    def parse_move(self, text):
        return _G.parse_checked(self, text)

    def play(self, text):
        action = self.parse_move(text)
        self.apply(action)
        return action

    def action_to_text(self, action):
        return self.fg.game.notation.text(action)

    def money(self):
        return [self.st.seats[i].money for i in range(self.st.nplayers)]

    def returns(self):
        return _G.win_shares(self.money())

    def copy(self):
        cdef FastState f = FastState.__new__(FastState)
        f.st = self.st
        f.fg = self.fg
        return f

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    def determinize(self, rng):
        seed = rng if isinstance(rng, int) else rng.getrandbits(64)
        k_determinize(&self.st, &self.fg.comp, <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF))

    def playout(self, seed):
        """Money per seat after a uniformly random game from here (this state is untouched)."""
        cdef KState s = self.st
        cdef uint64_t r = seed_to_rng(<uint64_t>(seed & 0xFFFFFFFFFFFFFFFF))
        with nogil:
            k_playout(&s, &self.fg.comp, &r, 0)
        return [s.seats[i].money for i in range(s.nplayers)]

    def research_points(self, seat):
        cdef int b, e
        research_points(&self.st, &self.fg.comp, seat, &b, &e)
        return b, e

    def diesel_changes(self, int price):
        """What Diesel can do to the market car at ``price``: ``[(action, car), ...]`` as
        :meth:`kwsearch.rules.State.diesel_changes` (read from the struct; nothing changes)."""
        cdef int16_t buf[MAX_LEGAL]
        cdef int i = car_by_price(&self.st, price)
        cdef int j, n
        if i < 0:
            raise ValueError(f"diesel_changes: no car with price {price} on the market")
        n = diesel_options(&self.st, i, buf)
        car = [self.st.market[i][j] for j in range(CAR_FIELDS)]
        out = []
        for j in range(n):
            field, value = _A.diesel_target(buf[j])
            changed = list(car)
            changed[field] = value
            out.append((buf[j], changed))
        return out

    def pending(self):
        return _G.OVER if self.st.phase == PH_OVER else _G.TASKS[self.st.tasks[self.st.ntasks - 1][0]]

    def observation(self, seat=None):
        """What ``seat`` may know (:func:`kwsearch.observation.observation`)."""
        return observation(self, seat)

    def to_json(self):
        """The full state as a position object plus its hidden part (as the reference's)."""
        return state_to_json(self)

    def __eq__(self, other):
        return isinstance(other, FastState) and self.to_json() == other.to_json()

    def __repr__(self):
        if self.st.phase == PH_OVER:
            return f"<FastState over money={self.money()}>"
        return f"<FastState round {self.st.round}, seat {self.st.actor} to decide {self.pending()}>"

    @staticmethod
    def sizeof():
        """``sizeof(KState)`` in bytes."""
        return sizeof(KState)


# The reference State's attributes that a FastState does not have (named in the error of
# FastState.__getattr__, which converts nothing).
_SNAPSHOT_ATTRS = frozenset(("phase", "round", "chain", "deck", "display", "discard", "rng", "stacks", "active",
                             "active_daimler", "white", "track", "prices", "market", "supply_body",
                             "supply_engine", "awards", "offered", "seats", "turn_seat", "remaining",
                             "marker_placed", "car", "tasks", "actor", "spec_undrawn", "spec_used"))

_GAMES = {}


def _fast_game(game):
    """The FastGame of a Game (cached per Game object)."""
    key = id(game)
    fg = _GAMES.get(key)
    if fg is None or fg.game is not game:
        fg = FastGame(game)
        _GAMES[key] = fg
    return fg


def new_state(game, seed=0):
    """A fast state after the random set-up from ``seed`` (as Game.new_initial_state)."""
    return FastState.from_reference(RefState.new(game, seed))


def bench_copies(FastState state, long n):
    """n C-level struct copies into a ring of 256 heap states (read back at the end so the
    compiler keeps every copy); returns a checksum."""
    cdef KState* ring = <KState*>malloc(256 * sizeof(KState))
    cdef long i
    cdef size_t j
    cdef unsigned long acc = 0
    cdef unsigned char* raw
    if ring == NULL:
        raise MemoryError()
    try:
        with nogil:
            for i in range(n):
                ring[i & 255] = state.st
                ring[i & 255].round = <int8_t>(i & 3)
            raw = <unsigned char*>ring
            for j in range(256 * sizeof(KState)):
                acc += raw[j]
    finally:
        free(ring)
    return acc


def bench_playouts(FastState state, int n, uint64_t seed):
    """n random playouts at C level from ``state`` (for the benchmark); returns total money."""
    cdef KState s
    cdef uint64_t r = seed_to_rng(seed)
    cdef long total = 0
    cdef int i, j
    with nogil:
        for i in range(n):
            s = state.st
            k_playout(&s, &state.fg.comp, &r, 0)
            for j in range(s.nplayers):
                total += s.seats[j].money
    return total


def bench_legal_apply(FastState state, int n, uint64_t seed):
    """Random walks at C level: returns (legal generations, applies) done in n playouts."""
    cdef KState s
    cdef int16_t buf[MAX_LEGAL]
    cdef uint64_t r = seed_to_rng(seed)
    cdef long gens = 0, applies = 0
    cdef int i, k
    with nogil:
        for i in range(n):
            s = state.st
            while s.phase != PH_OVER:
                k = k_legal(&s, &state.fg.comp, buf)
                gens += 1
                if k == 0:
                    break
                k_apply(&s, &state.fg.comp, buf[<int>(k_next(&r) % <uint64_t>k)])
                applies += 1
    return gens, applies
