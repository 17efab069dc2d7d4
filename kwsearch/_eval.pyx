# cython: language_level=3
"""The learned evaluation at C level: a seat's features from the flat state, and the model.

:mod:`kwsearch.features` is the readable reference (the same features from the
reference engine's ``State``, checked against this module by
tests/test_evaluation.py) and the loader of the weights files; docs/evaluation.md
describes the features and the model. The search calls ``k_evaluate`` where a
playout stops at its cut-off (``SearchConfig.cutoff``).
"""

from libc.math cimport exp
from libc.stdint cimport uint64_t

from kwsearch._fast cimport (CAR_BODY, CAR_BODY_BONUS, CAR_ENGINE, CAR_ENGINE_BONUS, CAR_OWNER, CAR_PRICE,
                             CAR_WORKERS, EN_OPEL, MAXP, PH_ACTION, PH_OVER, PREF_BODY, PREF_ENGINE, PREF_PRESTIGE,
                             PREF_PRICE, SEAT, TK_RACE, TK_SALES, Comp, FastState, KState, k_next,
                             k_playout, k_playout_tempo)

#: Feature scales (the raw quantity is divided by these; kwsearch.features uses the same numbers).
DEF MONEY_SCALE = 50.0
DEF INCOME_SCALE = 20.0
DEF VALUE_SCALE = 10.0
DEF DEV_SCALE = 5.0


cdef inline int _lap_money(const Comp* c, int laps) noexcept nogil:
    """Money for ``laps`` laps (as the engine's race scoring)."""
    if laps <= 0:
        return 0
    if laps <= c.nlapmoney:
        return c.lap_money[laps - 1]
    return c.lap_money[c.nlapmoney - 1] + (laps - c.nlapmoney) * c.lap_extra


cdef inline bint _pending(const KState* s, int kind) noexcept nogil:
    """Whether this round's race (TK_RACE) or sales (TK_SALES) are still to be scored."""
    cdef int k
    if s.phase == PH_ACTION:
        return True
    for k in range(s.ntasks):
        if s.tasks[k][0] == kind:
            return True
    return False


cdef void _race_money(const KState* s, const Comp* c, double* out) noexcept nogil:
    """What the race would pay each seat if it were scored now (place money and lap money)."""
    cdef int i, k, j, best, w, ncars = 0
    cdef int cars[12][3]
    for i in range(s.nplayers):
        out[i] = _lap_money(c, s.seats[i].laps)
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
    for k in range(c.nplace):  # the k-th best (laps, space, seat), as the race scoring orders them
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


cdef void _sales_money(const KState* s, const Comp* c, double* out) noexcept nogil:
    """What the buyers on the table would pay each seat if sales were scored now (RULES.md §8,
    as kwsearch.scoring.choose_sales)."""
    cdef int i, a, b, best, bestv, bestp, value, owner, mult
    cdef int sold[8]
    for i in range(s.nplayers):
        out[i] = 0
    for i in range(s.nmarket):
        sold[i] = 0
    for b in range(s.nactive):
        a = s.active[b]
        best = -1
        bestv = 0
        bestp = 0
        for i in range(s.nmarket):
            if sold[i]:
                continue
            if a == PREF_BODY:
                value = s.market[i][CAR_BODY] + s.market[i][CAR_BODY_BONUS]
            elif a == PREF_ENGINE:
                value = s.market[i][CAR_ENGINE] + s.market[i][CAR_ENGINE_BONUS]
            elif a == PREF_PRESTIGE:
                value = s.market[i][CAR_WORKERS]
            else:
                value = 0
            if best < 0 or value > bestv or (value == bestv and s.market[i][CAR_PRICE] < bestp):
                best = i
                bestv = value
                bestp = s.market[i][CAR_PRICE]
        if best < 0:
            continue
        sold[best] = 1
        owner = s.market[best][CAR_OWNER]
        mult = 1
        if a == PREF_PRICE:
            mult = c.opel_mult if (s.seats[owner].engineers >> EN_OPEL) & 1 else c.price_mult
        out[owner] += s.market[best][CAR_PRICE] * mult + s.active_daimler[b]


cdef void k_features(const KState* s, const Comp* c, double* out) noexcept nogil:
    """Every seat's NFEAT features into ``out[seat * NFEAT + k]`` (order: kwsearch.features.FEATURES)."""
    cdef double race[MAXP]
    cdef double sales[MAXP]
    cdef double progress, v
    cdef int i, j, k, other, count, pos
    cdef bint do_race = _pending(s, TK_RACE), do_sales = _pending(s, TK_SALES)
    cdef double* f
    progress = 1.0 if s.phase == PH_OVER else (s.round - 1) / <double>c.rounds
    if do_race:
        _race_money(s, c, race)
    if do_sales:
        _sales_money(s, c, sales)
    for i in range(s.nplayers):
        f = out + i * NFEAT
        other = -1000000
        for j in range(s.nplayers):
            if j != i and s.seats[j].money > other:
                other = s.seats[j].money
        f[0] = s.seats[i].money / MONEY_SCALE
        f[1] = (s.seats[i].money - other) / MONEY_SCALE
        f[2] = sales[i] / INCOME_SCALE if do_sales else 0.0
        f[3] = race[i] / INCOME_SCALE if do_race else 0.0
        f[4] = s.seats[i].laps
        f[5] = s.seats[i].gp_engine / 7.0
        count = 0
        for k in range(s.nmarket):
            if s.market[k][CAR_OWNER] == i:
                count += 1
        f[6] = count
        v = 0
        for k in range(s.seats[i].nwork):
            v += s.seats[i].work[k] & 7
        f[7] = v / VALUE_SCALE
        v = 0
        for k in range(c.ndev):
            v += s.seats[i].active[k]
        f[8] = v / DEV_SCALE
        v = 0
        for k in range(c.ndev):
            v += s.seats[i].inactive[k]
        f[9] = v / DEV_SCALE
        f[10] = (s.seats[i].supply + s.seats[i].canteen) / VALUE_SCALE
        count = 0
        for k in range(16):
            count += (s.seats[i].engineers >> k) & 1
        f[11] = count
        count = 0
        for k in range(10):
            if s.awards[k] == i:
                count += 1
        f[12] = count
        pos = 0
        for k in range(s.nchain):
            if s.chain[k] == SEAT + i:
                pos = k
                break
        f[13] = 1.0 - pos / <double>(s.nchain - 1) if s.nchain > 1 else 0.0
        for k in range(NBASE):
            f[NBASE + k] = f[k] * progress


cdef void k_shares(const double* feats, int nplayers, const EvalModel* m, double* share) noexcept nogil:
    """The softmax over the seats of ``w . f`` (per seat features ``feats[seat * NFEAT + k]``)."""
    cdef double z[MAXP]
    cdef double top = -1e300, total = 0
    cdef int i, k
    for i in range(nplayers):
        z[i] = 0
        for k in range(NFEAT):
            z[i] += m.w[k] * feats[i * NFEAT + k]
        if z[i] > top:
            top = z[i]
    for i in range(nplayers):
        z[i] = exp(z[i] - top)
        total += z[i]
    for i in range(nplayers):
        share[i] = z[i] / total


cdef void k_evaluate(const KState* s, const Comp* c, const EvalModel* m, double* share) noexcept nogil:
    """Each seat's modelled win share in ``s`` (they sum to 1)."""
    cdef double feats[MAXP * NFEAT]
    k_features(s, c, feats)
    k_shares(feats, s.nplayers, m, share)


cdef class Evaluator:
    """A fitted model in C form; build it with :func:`kwsearch.features.load_evaluation`, which checks
    the weights file (the constructor only checks the shapes)."""

    def __init__(self, int nplayers, weights, names, source="", meta=None):
        if not 2 <= nplayers <= MAXP:
            raise ValueError(f"nplayers: expected 2 to {MAXP}, got {nplayers}")
        if len(weights) != NFEAT or len(names) != NFEAT:
            raise ValueError(f"expected {NFEAT} weights and names, got {len(weights)} and {len(names)}")
        self.model.nplayers = nplayers
        for k in range(NFEAT):
            self.model.w[k] = float(weights[k])
        self.names = tuple(names)
        self.source = source
        self.meta = meta or {}

    @property
    def nplayers(self):
        return self.model.nplayers

    @property
    def weights(self):
        return [self.model.w[k] for k in range(NFEAT)]

    def predict(self, features):
        """Win shares from per-seat feature rows (``features[seat][k]``), as the search computes them."""
        cdef double feats[MAXP * NFEAT]
        cdef double share[MAXP]
        cdef int n = len(features), i, k
        if not 1 <= n <= MAXP or any(len(row) != NFEAT for row in features):
            raise ValueError(f"features: expected 1 to {MAXP} rows of {NFEAT} numbers")
        for i in range(n):
            for k in range(NFEAT):
                feats[i * NFEAT + k] = float(features[i][k])
        k_shares(feats, n, &self.model, share)
        return [share[i] for i in range(n)]

    def evaluate(self, FastState state):
        """Each seat's modelled win share in a fast state."""
        cdef double share[MAXP]
        k_evaluate(&state.st, &state.fg.comp, &self.model, share)
        return [share[i] for i in range(state.st.nplayers)]

    def __repr__(self):
        return f"<Evaluator {self.model.nplayers}p from {self.source!r}>"


def feature_count():
    """(NBASE, NFEAT) of the compiled module (checked against kwsearch.features.FEATURES)."""
    return NBASE, NFEAT


def features(FastState state):
    """Every seat's features in a fast state: ``[seat][k]`` in the order of kwsearch.features.FEATURES."""
    cdef double feats[MAXP * NFEAT]
    k_features(&state.st, &state.fg.comp, feats)
    return [[feats[i * NFEAT + k] for k in range(NFEAT)] for i in range(state.st.nplayers)]


def sample_game(FastState start, uint64_t seed, int every, bint tempo=True):
    """A self-play game for training: play from ``start`` to the end with the search's playout policy
    (``tempo``, else uniformly random), recording every seat's features about every ``every``
    decisions (gaps drawn uniformly from 1 to 2 * every - 1, from ``seed``).

    Returns ``(samples, final money)``: ``samples`` is a list of ``(decisions so far, features)``.
    """
    cdef KState s = start.st
    cdef const Comp* c = &start.fg.comp
    cdef uint64_t rng = seed
    cdef double feats[MAXP * NFEAT]
    cdef int gap, done = 0, i, k
    cdef list samples = []
    if every < 1:
        raise ValueError(f"every: expected at least 1, got {every}")
    k_next(&rng)
    while s.phase != PH_OVER:
        gap = 1 + <int>(k_next(&rng) % <uint64_t>(2 * every - 1))
        with nogil:
            if tempo:
                done += k_playout_tempo(&s, c, &rng, NULL, 0, gap)
            else:
                done += k_playout(&s, c, &rng, gap)
        if s.phase == PH_OVER:
            break
        k_features(&s, c, feats)
        samples.append((done, [[feats[i * NFEAT + k] for k in range(NFEAT)] for i in range(s.nplayers)]))
    return samples, [s.seats[i].money for i in range(s.nplayers)]
