# cython: language_level=3
"""The fast engine's C-level contract: the game state as one flat struct.

Every field is a small fixed-size integer, so a state is copied by one struct
assignment (``sizeof(KState)`` is reported by ``bench/bench_engine.py``). The
meaning of each field is the same as the reference engine's attribute of the
same name (``kwsearch/rules.py``); the reference is the specification, and
``tests/test_fast_differential.py`` checks that both agree after every action.

Invariants (hold between any two calls of the functions below):

* ``chain[0:nchain]`` holds every action tile id (0..15) and every seat as
  ``SEAT + s`` (16..19) exactly once, tail (next to move at a turn start) first;
  in a V6 game (``Comp.nspec > 0``) also exactly one specialty tile as
  ``SPECIAL + t`` (32..47).
* ``spec_loc[t]`` (V6 only, ``t < Comp.nspec``) says where specialty tile ``t``
  is: 0 in the chain; ``k > 0`` the k-th tile from the bottom of its stack's
  face-down pile (the top is the highest k of that stack, so the ks of a stack
  are 1..undrawn); ``k < 0`` the (-k)-th tile discarded to its stack's used
  pile (-1 first). This is the reference's ``spec_undrawn`` / ``spec_used``.
* ``cards[0:ndeck]`` is the undrawn deck, top card at ``ndeck - 1``; the discard
  pile is stored from the other end: its i-th card (oldest first) is
  ``cards[MAX_CARDS - 1 - i]`` for ``i < ndiscard``. So ``ndeck + ndiscard <= 64``.
* ``prices`` has bit ``v`` set for each coloured price marker of value ``v``
  still next to the market.
* ``work[0:nwork]`` of a seat is sorted ascending; a tile code is ``v`` for a
  body of value ``v`` and ``8 + v`` for an engine.
* ``active[k]`` / ``inactive[k]`` count a seat's developments of the k-th
  development type (``Comp.card_devslot`` maps card types to k).
* ``tasks[0:ntasks]`` is the task stack of the reference (``game.TASKS`` order
  is the ``TK_*`` enum below), top last; between calls the top task is a
  decision with two or more options, or ``phase == PH_OVER`` and ``ntasks == 0``.
* Every seat has ``workers_per_player`` workers: supply + canteen + active
  developments + workers on its market cars (+ the car being built) + 2.
"""

cimport cython
from libc.stdint cimport int8_t, int16_t, int32_t, uint8_t, uint16_t, uint32_t, uint64_t

cdef enum:
    MAXP = 4            # seats
    SEAT = 16           # chain entry of seat s is SEAT + s
    MAX_TILES = 16      # action tiles (components.MAX_ACTION_TILES)
    MAX_CHAIN = 21      # 16 tiles + 4 seats + 1 specialty tile
    SPECIAL = 32        # chain entry of specialty tile t is SPECIAL + t (V6)
    MAX_SPECIAL = 16    # specialty tiles (components.MAX_SPECIAL)
    MAX_CARDS = 64      # research cards (components.MAX_DECK)
    MAX_TYPES = 32      # research card types
    MAX_DEV = 16        # development types
    MAX_STARTS = 8
    MAX_MARKET = 8
    MAX_TASKS = 24
    MAX_LEGAL = 96      # options of one decision (caller's buffer size)
    ENGINE_CODE = 8     # workshop code of an engine of value v: ENGINE_CODE + v
    MAX_VALUE = 7       # body and engine tiles have values 1..MAX_VALUE
    PRICE_BITS = 32     # price-marker values are 0..31 (bit v of KState.prices)
    MAX_BUYERS = 5      # active buyers (four spaces + Benz's fifth); Daimler ids are marker * MAX_BUYERS + buyer

# The fields of a market car (KState.market[i]), in the order of the reference's market lists.
cdef enum:
    CAR_OWNER = 0
    CAR_BODY
    CAR_ENGINE
    CAR_WORKERS
    CAR_PRICE
    CAR_BODY_BONUS      # Maybach marker value on it (0 = none)
    CAR_ENGINE_BONUS    # Horch marker value on it (0 = none)
    CAR_FIELDS

# Phases (rules.SETUP, ACTION, SCORING, OVER)
cdef enum:
    PH_SETUP = 0
    PH_ACTION = 1
    PH_SCORING = 2
    PH_OVER = 3

# Task kinds, in the order of game.TASKS (checked when the module is imported).
cdef enum:
    TK_SETUP = 0
    TK_TURN
    TK_TILE
    TK_HIRE
    TK_RESEARCH
    TK_BODY
    TK_ENGINE
    TK_ENGINE_DEST
    TK_PLACE
    TK_GP
    TK_BUYER
    TK_GP_ENGINE
    TK_GP_START
    TK_MARKET
    TK_MARKET_ENGINE
    TK_MARKET_WORKERS
    TK_MARKET_PRICE
    TK_MARKET_MARKER
    TK_DAIMLER
    TK_DIESEL
    TK_DIESEL_CHANGE
    TK_END_TURN
    TK_BENZ
    TK_RACE
    TK_SALES
    TK_ROUND_END
    TK_SPECIAL
    TK_SELL
    TK_REMOVE
    TK_CARD_ORDER
    TK_SPECIAL_ORDER
    TK_COUNT

# Action kinds, in the order of components.ALL_ACTIONS.
cdef enum:
    AK_HIRE = 0
    AK_BODY
    AK_ENGINE
    AK_GP
    AK_RESEARCH
    AK_BUYER
    AK_GP_ENGINE2
    AK_GP_START2

# Buyer preferences, in the order of components.PREFERENCES.
cdef enum:
    PREF_BODY = 0
    PREF_ENGINE
    PREF_PRESTIGE       # judged by the workers on a car
    PREF_PRICE

# Specialty-tile bonuses, in the order of components.SPECIALTY_BONUSES.
cdef enum:
    BN_ENGINE = 0
    BN_BODY
    BN_GP_ENGINE
    BN_CANTEEN_MONEY
    BN_REMOVE_CAR
    BN_SELL_TILE
    BN_RESEARCH_DISCARD

# Engineers, in the order of components.ENGINEERS (bit i of SeatS.engineers).
cdef enum:
    EN_OPEL = 0
    EN_HORCH
    EN_BENZ
    EN_BUGATTI
    EN_PORSCHE
    EN_DAIMLER
    EN_OTTO
    EN_DIESEL
    EN_MAYBACH

# Awards, in the order of components.AWARDS.
cdef enum:
    AW_GP1 = 0
    AW_GP2
    AW_BUYER
    AW_MARKET
    AW_BODY3
    AW_BODY6
    AW_ENGINE4
    AW_ENGINE7
    AW_WORKER
    AW_ENGINEERS

ctypedef struct SeatS:
    int32_t money         # money so far (price markers and award tiles)
    int8_t supply         # workers in the supply
    int8_t canteen        # workers in the canteen
    int8_t nwork          # tiles in the workshops (0..3)
    int8_t work[3]        # workshop tile codes, sorted
    int8_t gp_engine      # GP car engine value (1 = the printed engine)
    int8_t gp_tile        # the GP car's engine is a tile (0: the printed 1); fills a padding byte
    int16_t laps          # laps completed in this round's race (no upper limit in the rules)
    int8_t space          # race space (0 = pit lane)
    int8_t start_tile     # chosen start tile, -1 before
    uint16_t engineers    # bit per engineer owned
    uint8_t maybach       # bit i: Maybach marker i (Comp.maybach[i]) still held
    uint8_t horch         # bit i: Horch marker i still held
    uint8_t daimler       # bit i: Daimler marker i still held
    int8_t diesel         # Diesel changes left
    int8_t benz           # Benz fifth-buyer markers left
    uint8_t active[MAX_DEV]    # active developments by development type
    uint8_t inactive[MAX_DEV]  # inactive developments by development type

ctypedef struct KState:
    # The two wide fields first, so that the int8 fields pack without padding (512 bytes).
    uint64_t rng          # splitmix64 state for reshuffles of the discard pile and specialty stacks
    uint32_t prices       # coloured price markers left (bit v = value v)
    int8_t phase          # PH_*
    int8_t round          # 1..rounds
    int8_t nchain
    int8_t chain[MAX_CHAIN]
    int8_t ndeck
    int8_t ndiscard
    int8_t ndisplay       # face-up research cards (0..2)
    int8_t display[2]     # card types, in the order turned up
    int8_t cards[MAX_CARDS]  # deck from the bottom, discard from the top (see above)
    int8_t stacks[4]      # buyers left in each preference's stack
    int8_t nactive        # active buyers (Benz's fifth included)
    int8_t active[MAX_BUYERS]  # their preferences, in order
    int8_t active_daimler[MAX_BUYERS]  # Daimler bonus on each (0 = none)
    int8_t white[4]       # white money next to each stack
    int8_t track          # buyer-track marker
    int8_t nmarket
    int8_t market[MAX_MARKET][CAR_FIELDS]  # CAR_* fields
    int8_t supply_body[MAX_VALUE]  # tiles in the supply by value 1..MAX_VALUE
    int8_t supply_engine[MAX_VALUE]
    int8_t awards[10]     # owner of each award, -1 free
    uint8_t offered       # bit t: start tile t is offered
    int8_t turn_seat      # seat whose turn (or start tile) it is, -1 between turns
    int8_t nrem
    int8_t remaining[4]   # action kinds (AK_*) of the tile still to do, sorted
    int8_t marker_placed  # an engineer marker was placed this turn
    int8_t ncar
    int8_t car[4]         # the car being built: body, engine, workers, price
    int8_t ntasks
    int8_t tasks[MAX_TASKS][2]  # (TK_* kind, argument), top last
    int8_t actor          # seat to decide, -1 when over
    int8_t nplayers
    int8_t spec_loc[MAX_SPECIAL]  # V6: where each specialty tile is (see above)
    SeatS seats[MAXP]

ctypedef struct Comp:
    int8_t nplayers
    int8_t ntiles
    int8_t tile_nact[MAX_TILES]
    int8_t tile_act[MAX_TILES][4]   # AK_* kinds
    int8_t nstart
    int8_t start_nact[MAX_STARTS]
    int8_t start_act[MAX_STARTS][4]
    int8_t start_body
    int8_t start_engine
    int8_t ntypes
    int8_t card_kind[MAX_TYPES]     # 0 development, 1 instant, 2 engineer
    int8_t card_body[MAX_TYPES]
    int8_t card_engine[MAX_TYPES]
    int8_t card_tile[MAX_TYPES]     # 0 none, 1 body, 2 engine
    int8_t card_effect[MAX_TYPES]   # instant: 0 hire, 1 gp, 2 body_engine
    int8_t card_amount[MAX_TYPES]
    int8_t card_engineer[MAX_TYPES] # EN_*
    int8_t card_devslot[MAX_TYPES]  # development slot, -1 otherwise
    int8_t ndev
    int8_t dev_type[MAX_DEV]        # card type of each development slot
    int8_t rounds
    uint32_t price_mask[5]
    int8_t white[4]
    int8_t buyers_per_pref
    int8_t lap
    int8_t nplace
    int8_t place_money[6]
    int8_t nlapmoney
    int8_t lap_money[10]
    int8_t lap_extra
    int8_t gp_start_space
    int8_t gp_start_engine
    int8_t nneutral
    int8_t neutral[2]
    int8_t market_size
    int8_t buyer_spaces
    int8_t track_start
    int8_t award_money[10]
    int8_t price_mult
    int8_t opel_mult
    int8_t nmaybach
    int8_t maybach[2]
    int8_t nhorch
    int8_t horch[2]
    int8_t ndaimler
    int8_t daimler[2]
    int8_t diesel
    int8_t benz
    int8_t otto
    int8_t slot_eng[4]     # MARKET_MARKER + i: 0 Maybach / 1 Horch
    int8_t slot_value[4]   # its value (0 = no such marker)
    int8_t nspec           # V6 specialty tiles in play (0 without V6)
    int8_t nstacks         # specialty stacks (stack r is used in round r + 1)
    int8_t spec_stack[MAX_SPECIAL]   # stack of each specialty tile
    int8_t spec_action[MAX_SPECIAL]  # its standard action (AK_*)
    int8_t spec_bonus[MAX_SPECIAL]   # its bonus (BN_*)
    int8_t spec_value[MAX_SPECIAL]   # its bonus value (components.SpecialtyTile.value)

# Shared C helpers, inline in every module that cimports them.

@cython.overflowcheck(False)  # splitmix64 wraps modulo 2**64 by design, also in the debug build
cdef inline uint64_t k_next(uint64_t* s) noexcept nogil:
    """splitmix64 (game.rng_next): advance the generator and return its next number."""
    s[0] += <uint64_t>0x9E3779B97F4A7C15ULL
    cdef uint64_t z = s[0]
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline uint64_t seed_to_rng(uint64_t seed) noexcept nogil:
    """The generator state a seed starts (game.seed_to_rng)."""
    cdef uint64_t s = seed
    return k_next(&s)


cdef inline double k_unit(uint64_t* rng) noexcept nogil:
    """A uniform number in [0, 1) from the generator."""
    return <double>(k_next(rng) >> 11) * (1.0 / 9007199254740992.0)


cdef inline void research_points(const KState* s, const Comp* c, int seat, int* body, int* engine) noexcept nogil:
    """Seat ``seat``'s research points (start tile and active developments), rules.Seat.research_points."""
    cdef const SeatS* p = &s.seats[seat]
    cdef int k, b = 0, e = 0
    if p.start_tile >= 0:
        b = c.start_body
        e = c.start_engine
    for k in range(c.ndev):
        if p.active[k]:
            b += p.active[k] * c.card_body[c.dev_type[k]]
            e += p.active[k] * c.card_engine[c.dev_type[k]]
    body[0] = b
    engine[0] = e


cdef inline int has(const SeatS* p, int engineer) noexcept nogil:
    """Whether seat ``p`` owns engineer ``engineer`` (EN_*)."""
    return (p.engineers >> engineer) & 1


cdef inline void sales_rule(const KState* s, const Comp* c, const int8_t* cars, int ncars,
                            const int8_t* prefs, int nprefs, const int8_t* bonus, int nbonus,
                            int* taken, int* money, uint32_t* sold) noexcept nogil:
    """THE buyers' rule of RULES.md §8 in C (rules.choose_sales is the reference): the engine's
    sales (sales_money), the smart playouts' projections (smart_gain, smart_price) and the evaluation's
    features (_eval's k_features through sales_money, the prior's _buyers_take) all call it.

    ``cars`` holds ``ncars`` cars of CAR_FIELDS numbers each (``&s.market[0][0]``, or a copy with
    one more car). Buyer ``b`` of preference ``prefs[b]``, in order, takes the unsold car of the
    highest value for that preference (body + Maybach bonus, engine + Horch bonus, workers; a price
    buyer values every car alike), ties going to the lowest price: ``taken[b]`` is its index, -1 if
    no unsold car is left. What it pays is added to ``money[owner]`` of that car's owner: the
    price times the multiplier (a price buyer pays ``c.opel_mult`` to an owner of Opel in ``s``,
    else ``c.price_mult``; any other buyer 1x), plus its Daimler marker ``bonus[b]`` for
    ``b < nbonus`` (``s.active_daimler`` / ``s.nactive`` for the buyers on the table; a buyer
    beyond ``nbonus`` — one that might join — has no marker yet).

    ``sold`` (may be NULL: none) is the set of cars sold before these buyers come (bit i: car i),
    updated, so that a projection can go on with more buyers: the choices and the money of buyers
    added after those of a first call (a buyer who may join) are those of one call with all.

    Each output may be NULL: ``taken`` NULL asks for the money only, ``money`` NULL for the
    choices only. Being inline, a caller's constant NULL compiles that branch away, so each
    caller runs as fast as a copy of its own would.
    """
    cdef uint32_t done = sold[0] if sold != NULL else 0  # bit i: car i is sold (ncars < 32)
    cdef int i, b, pref, best, bestv, bestp, value, mult
    cdef const int8_t* car
    for b in range(nprefs):
        pref = prefs[b]
        best = -1
        bestv = 0
        bestp = 0
        for i in range(ncars):
            if (done >> i) & 1:
                continue
            car = cars + i * CAR_FIELDS
            if pref == PREF_BODY:
                value = car[CAR_BODY] + car[CAR_BODY_BONUS]
            elif pref == PREF_ENGINE:
                value = car[CAR_ENGINE] + car[CAR_ENGINE_BONUS]
            elif pref == PREF_PRESTIGE:
                value = car[CAR_WORKERS]
            else:
                value = 0
            if best < 0 or value > bestv or (value == bestv and car[CAR_PRICE] < bestp):
                best = i
                bestv = value
                bestp = car[CAR_PRICE]
        if best < 0:  # every car is sold: so are they for the buyers after this one
            if taken != NULL:
                for i in range(b, nprefs):
                    taken[i] = -1
            break
        done |= <uint32_t>1 << best
        if taken != NULL:
            taken[b] = best
        if money != NULL:
            car = cars + best * CAR_FIELDS
            mult = 1
            if pref == PREF_PRICE:
                mult = c.opel_mult if has(&s.seats[car[CAR_OWNER]], EN_OPEL) else c.price_mult
            money[car[CAR_OWNER]] += car[CAR_PRICE] * mult + (bonus[b] if b < nbonus else 0)
    if sold != NULL:
        sold[0] = done


# C-level operations (no Python objects, no GIL).
cdef int k_legal(KState* s, const Comp* c, int16_t* buf) noexcept nogil
cdef void k_apply(KState* s, const Comp* c, int action) noexcept nogil
cdef void race_money(const KState* s, const Comp* c, int* out) noexcept nogil
cdef void sales_money(const KState* s, const Comp* c, int* out) noexcept nogil
cdef void k_determinize(KState* s, const Comp* c, uint64_t seed) noexcept nogil
# The random playout returns the number of decisions taken; ``max_decisions > 0`` stops it after
# that many decisions (the search's playout cut-off), ``<= 0`` plays to the end of the game.
cdef int k_playout(KState* s, const Comp* c, uint64_t* rng, int max_decisions) noexcept nogil

# A playout policy's pick (kwsearch._playout's tempo and smart policies): one of the n options in
# ``buf``, given ``pick``, the uniformly random option the loop drew first; ``ctx`` is its settings.
ctypedef int (*PickFn)(const void* ctx, KState* s, const Comp* c, const int16_t* buf, int n, int pick,
                       uint64_t* rng) noexcept nogil
# A playout guide: picks one of the n options in ``buf`` (the search's move prior, drawing from
# ``rng``); ``ctx`` is its model.
ctypedef int (*GuideFn)(const void* ctx, const KState* s, const Comp* c, const int16_t* buf, int n,
                        uint64_t* rng) noexcept nogil
# The one playout loop: a uniform option at every decision, replaced by ``policy``'s pick if not
# NULL, except that with a ``guide`` and ``share > 0`` a decision is the guide's with chance
# ``share`` (one uniform draw per decision decides; none without a guide). trace may be NULL;
# ``max_decisions`` as k_playout. kwsearch._playout's k_play / k_rollout choose the policy.
cdef int k_loop(KState* s, const Comp* c, uint64_t* rng, PickFn policy, const void* pctx, int16_t* trace,
                int cap, int max_decisions, GuideFn guide, const void* gctx, double share) noexcept nogil

# Forced draws (kwsearch._forced): while ``owner`` is set, that state's research draws call
# ``card`` and its V6 specialty-tile draws (stack ``r`` with ``n >= 1`` face-down tiles) call
# ``special`` instead of taking the tops; k_hook_draws(NULL, NULL, NULL) ends it.
ctypedef int (*CardDrawFn)(KState* s) noexcept nogil
ctypedef int (*SpecialDrawFn)(KState* s, const Comp* c, int r, int n) noexcept nogil
ctypedef struct DrawHook:
    KState* owner           # the state whose draws are forced (NULL: none)
    CardDrawFn card         # its research-card draw
    SpecialDrawFn special   # its specialty-tile draw
cdef void k_hook_draws(KState* owner, CardDrawFn card, SpecialDrawFn special) noexcept nogil

cdef class FastGame:
    cdef Comp comp                # the component tables in C
    cdef public object game       # the kwsearch.game.Game they came from
    cdef public object dev_slot_of  # card type -> development slot


cdef class FastState:
    cdef KState st                # the state
    cdef FastGame fg              # its game's tables (shared by copies)
