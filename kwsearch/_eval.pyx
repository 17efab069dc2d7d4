# cython: language_level=3
"""The learned evaluation at C level: a seat's features from the flat state, and the model.

:mod:`kwsearch.features` is the readable reference (the same features from the
reference engine's ``State``, checked against this module by
tests/test_evaluation.py) and the loader of the weights files; docs/evaluation.md
describes the features and the model. The search calls ``k_evaluate`` where a
playout stops at its cut-off (``SearchConfig.cutoff``).
"""

from libc.math cimport exp
from libc.stdint cimport int8_t, int16_t, uint64_t

import kwsearch.actions as _A
from kwsearch._playout import ROLLOUT_KINDS

from kwsearch._fast cimport (AK_BODY, AK_BUYER, AK_ENGINE, AK_GP, AK_GP_ENGINE2, AK_GP_START2, AK_HIRE,
                             AK_RESEARCH, CAR_BODY, CAR_BODY_BONUS, CAR_ENGINE, CAR_ENGINE_BONUS, CAR_OWNER,
                             CAR_FIELDS, CAR_PRICE, CAR_WORKERS, EN_OPEL, MAX_BUYERS, MAX_LEGAL, MAX_MARKET, MAX_TILES, MAXP,
                             PH_ACTION, PH_OVER, PREF_BODY, PREF_ENGINE, PREF_PRESTIGE, PREF_PRICE, SEAT, SPECIAL,
                             TK_ENGINE_DEST, TK_MARKET_PRICE, TK_RACE, TK_SALES, Comp, FastState, KState, k_next,
                             race_money, sales_money, sales_rule)
from kwsearch._playout cimport PlayoutParams, RolloutKind, k_rollout

#: Feature scales (the raw quantity is divided by these; kwsearch.features uses the same numbers).
DEF MONEY_SCALE = 50.0
DEF INCOME_SCALE = 20.0
DEF VALUE_SCALE = 10.0
DEF DEV_SCALE = 5.0


cdef inline bint _pending(const KState* s, int kind) noexcept nogil:
    """Whether this round's race (TK_RACE) or sales (TK_SALES) are still to be scored."""
    cdef int k
    if s.phase == PH_ACTION:
        return True
    for k in range(s.ntasks):
        if s.tasks[k][0] == kind:
            return True
    return False


cdef void k_features(const KState* s, const Comp* c, double* out) noexcept nogil:
    """Every seat's NFEAT features into ``out[seat * NFEAT + k]`` (order: kwsearch.features.FEATURES)."""
    cdef double race[MAXP]
    cdef double sales[MAXP]
    cdef int pay[MAXP]
    cdef double progress, v
    cdef int i, j, k, other, count, pos
    cdef bint do_race = _pending(s, TK_RACE), do_sales = _pending(s, TK_SALES)
    cdef double* f
    progress = 1.0 if s.phase == PH_OVER else (s.round - 1) / <double>c.rounds
    if do_race:  # the engine's own scoring, as money the seats would get now
        race_money(s, c, pay)
        for i in range(s.nplayers):
            race[i] = pay[i]
    if do_sales:
        sales_money(s, c, pay)
        for i in range(s.nplayers):
            sales[i] = pay[i]
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


cdef inline double _hidden(const double* f, const EvalModel* m) noexcept nogil:
    """The hidden layer's part of a seat's score, ``W2 . relu(W1 . f + b1)``: the units' sums run side by
    side over the features (``W1[k * MAXH + h]``), and a feature of 0 (often: no engineer, no award, and
    every ``*progress`` feature in round 1) is skipped."""
    cdef double acc[MAXH]
    cdef double fk, out = 0
    cdef int k, h, nh = m.hidden
    for h in range(nh):
        acc[h] = m.b1[h]
    for k in range(NFEAT):
        fk = f[k]
        if fk != 0:
            for h in range(nh):
                acc[h] += m.W1[k * MAXH + h] * fk
    for h in range(nh):
        if acc[h] > 0:
            out += m.W2[h] * acc[h]
    return out


cdef void k_shares(const double* feats, int nplayers, const EvalModel* m, double* share) noexcept nogil:
    """The softmax over the seats of their scores (per seat features ``feats[seat * NFEAT + k]``): ``w . f``,
    plus the hidden layer's ``W2 . relu(W1 . f + b1)`` when the model has one."""
    cdef double z[MAXP]
    cdef double top = -1e300, total = 0
    cdef int i, k
    for i in range(nplayers):
        z[i] = 0
        for k in range(NFEAT):
            z[i] += m.w[k] * feats[i * NFEAT + k]
        if m.hidden > 0:
            z[i] += _hidden(feats + i * NFEAT, m)
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


cdef int _set_model(int nplayers, weights, names, int width, int* model_nplayers, double* w) except -1:
    """The constructors' common part (Evaluator and Prior): the shapes checked, the weights copied."""
    cdef int k
    if not 2 <= nplayers <= MAXP:
        raise ValueError(f"nplayers: expected 2 to {MAXP}, got {nplayers}")
    if len(weights) != width or len(names) != width:
        raise ValueError(f"expected {width} weights and names, got {len(weights)} and {len(names)}")
    model_nplayers[0] = nplayers
    for k in range(width):
        w[k] = float(weights[k])
    return 0


cdef int _read_rows(rows, int most, int width, str name, double* feats) except -1:
    """Feature rows (``rows[i][k]``, 1 to ``most`` of ``width`` numbers) into
    ``feats[i * width + k]``; returns their count (the ``predict`` methods' common part)."""
    cdef int n = len(rows), i, k
    if not 1 <= n <= most or any(len(row) != width for row in rows):
        raise ValueError(f"{name}: expected 1 to {most} rows of {width} numbers")
    for i in range(n):
        for k in range(width):
            feats[i * width + k] = float(rows[i][k])
    return n


cdef class Evaluator:
    """A fitted model in C form; build it with :func:`kwsearch.features.load_evaluation`, which checks
    the weights file (the constructor only checks the shapes)."""

    def __init__(self, int nplayers, weights, names, source="", meta=None, hidden=None):
        """``hidden``: None (the linear model), or ``(W1, b1, W2)`` of H units (1 to MAXH): ``W1`` NFEAT
        rows of H numbers (``W1[k][h]``, feature k to unit h), ``b1`` and ``W2`` H numbers each."""
        cdef int k, h, nh
        _set_model(nplayers, weights, names, NFEAT, &self.model.nplayers, self.model.w)
        self.model.hidden = 0
        if hidden is not None:
            W1, b1, W2 = hidden
            nh = len(W2)
            if not 1 <= nh <= MAXH or len(b1) != nh or len(W1) != NFEAT or any(len(row) != nh for row in W1):
                raise ValueError(f"hidden: expected 1 to {MAXH} units: {NFEAT} rows of them, a bias and an "
                                 "output weight each")
            for k in range(NFEAT):
                for h in range(nh):
                    self.model.W1[k * MAXH + h] = float(W1[k][h])
            for h in range(nh):
                self.model.b1[h] = float(b1[h])
                self.model.W2[h] = float(W2[h])
            self.model.hidden = nh
        self.names = tuple(names)
        self.source = source
        self.meta = meta or {}

    @property
    def nplayers(self):
        return self.model.nplayers

    @property
    def weights(self):
        return [self.model.w[k] for k in range(NFEAT)]

    @property
    def hidden_units(self):
        """The hidden layer's units (0 for the linear model)."""
        return self.model.hidden

    def predict(self, features):
        """Win shares from per-seat feature rows (``features[seat][k]``), as the search computes them."""
        cdef double feats[MAXP * NFEAT]
        cdef double share[MAXP]
        cdef int n = _read_rows(features, MAXP, NFEAT, "features", feats), i
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


def max_hidden():
    """MAXH, the most hidden units an evaluation may have (kwsearch.features.MAX_HIDDEN)."""
    return MAXH


def features(FastState state):
    """Every seat's features in a fast state: ``[seat][k]`` in the order of kwsearch.features.FEATURES."""
    cdef double feats[MAXP * NFEAT]
    k_features(&state.st, &state.fg.comp, feats)
    return [[feats[i * NFEAT + k] for k in range(NFEAT)] for i in range(state.st.nplayers)]


def sample_game(FastState start, uint64_t seed, int every, str policy="tempo", tuple playout=None):
    """A self-play game for training: play from ``start`` to the end with one of the search's playout
    policies (``policy``: "tempo", "smart" with the knobs ``playout`` in
    ``kwsearch._search.PLAYOUT_FIELDS`` order, or "random"), recording every seat's features about
    every ``every`` decisions (gaps drawn uniformly from 1 to 2 * every - 1, from ``seed``).

    Returns ``(samples, final money)``: ``samples`` is a list of ``(decisions so far, features)``.
    """
    cdef KState s = start.st
    cdef const Comp* c = &start.fg.comp
    cdef uint64_t rng = seed
    cdef double feats[MAXP * NFEAT]
    cdef int gap, done = 0, i, k
    cdef RolloutKind kind
    cdef list samples = []
    cdef PlayoutParams pp
    if every < 1:
        raise ValueError(f"every: expected at least 1, got {every}")
    if policy not in ROLLOUT_KINDS:
        raise ValueError(f"policy: expected tempo, smart or random, got {policy!r}")
    kind = ROLLOUT_KINDS[policy]
    if policy == "smart":
        if playout is None or len(playout) != 5:
            raise ValueError(f"playout: the smart policy needs its 5 knobs, got {playout!r}")
        pp.rule, pp.tempo, pp.sell, pp.develop, pp.engineer = playout
    k_next(&rng)
    while s.phase != PH_OVER:
        gap = 1 + <int>(k_next(&rng) % <uint64_t>(2 * every - 1))
        with nogil:
            done += k_rollout(&s, c, &rng, kind, gap, &pp)
        if s.phase == PH_OVER:
            break
        k_features(&s, c, feats)
        samples.append((done, [[feats[i * NFEAT + k] for k in range(NFEAT)] for i in range(s.nplayers)]))
    return samples, [s.seats[i].money for i in range(s.nplayers)]


# ---------------------------------------------------------------------------
# The learned move prior: features of (state, option) pairs and a softmax policy
# ---------------------------------------------------------------------------
#
# kwsearch.prior is the readable reference (PRIOR_FEATURES names the columns below, in
# order; tests/test_prior.py checks both agree) and the loader of the weights files.

cdef int P_TILE = _A.TILE
cdef int P_DO = _A.DO
cdef int P_RESEARCH = _A.RESEARCH
cdef int P_GIVEUP = _A.GIVEUP
cdef int P_ENGINE_GP = _A.ENGINE_GP
cdef int P_BUYER = _A.BUYER
cdef int P_MARKET_PASS = _A.MARKET_PASS
cdef int P_MARKET_BODY = _A.MARKET_BODY
cdef int P_MARKET_ENGINE = _A.MARKET_ENGINE
cdef int P_MARKET_WORKERS = _A.MARKET_WORKERS
cdef int P_MARKET_PRICE = _A.MARKET_PRICE
cdef int P_MARKET_NO_MARKER = _A.MARKET_NO_MARKER
cdef int P_MARKET_MARKER = _A.MARKET_MARKER
cdef int P_DAIMLER_PASS = _A.DAIMLER_PASS
cdef int P_DAIMLER = _A.DAIMLER
cdef int P_DIESEL_PASS = _A.DIESEL_PASS
cdef int P_BENZ_PASS = _A.BENZ_PASS
cdef int P_BENZ = _A.BENZ
cdef int P_ACTIVATE = _A.ACTIVATE
cdef int P_SPECIAL_TILE = _A.SPECIAL_TILE
cdef int P_SELL_PASS = _A.SELL_PASS
cdef int P_REMOVE_PASS = _A.REMOVE_PASS

#: Research points at which a kind stops mattering (the best body / engine tile has value 7).
DEF POINTS_CAP = 7


cdef void _buyers_take(const KState* s, const Comp* c, const int8_t* extra, const int8_t* prefs, int nprefs,
                       int* taken) noexcept nogil:
    """The buyers' rule (RULES.md §8; _fast.pxd's sales_rule) over the market plus, if ``extra``
    is not NULL, one more car (owner, body, engine, workers, price; no marker) at index
    ``nmarket``: ``taken[b]`` is the car buyer ``b`` of preference ``prefs[b]`` takes, -1 if none."""
    cdef int8_t cars[(MAX_MARKET + 1) * CAR_FIELDS]
    cdef int i
    for i in range(s.nmarket * CAR_FIELDS):
        cars[i] = (&s.market[0][0])[i]
    if extra != NULL:
        for i in range(CAR_FIELDS):
            cars[s.nmarket * CAR_FIELDS + i] = 0
        cars[s.nmarket * CAR_FIELDS + CAR_OWNER] = extra[0]
        cars[s.nmarket * CAR_FIELDS + CAR_BODY] = extra[1]
        cars[s.nmarket * CAR_FIELDS + CAR_ENGINE] = extra[2]
        cars[s.nmarket * CAR_FIELDS + CAR_WORKERS] = extra[3]
        cars[s.nmarket * CAR_FIELDS + CAR_PRICE] = extra[4]
    sales_rule(s, c, cars, s.nmarket + (1 if extra != NULL else 0), prefs, nprefs, NULL, 0, taken, NULL, NULL)


cdef inline bint _price_wins(const KState* s, const Comp* c, int price) noexcept nogil:
    """Whether the car being built, offered at ``price``, is taken by a buyer on the table."""
    cdef int8_t extra[5]
    cdef int taken[MAX_BUYERS + 1]
    cdef int b
    extra[0] = s.turn_seat
    extra[1] = s.car[0]
    extra[2] = s.car[1]
    extra[3] = s.car[2]
    extra[4] = <int8_t>price
    _buyers_take(s, c, extra, s.active, s.nactive, taken)
    for b in range(s.nactive):
        if taken[b] == s.nmarket:
            return True
    return False


cdef inline bint _buyer_sells(const KState* s, const Comp* c, int seat, int pref) noexcept nogil:
    """Whether one more buyer of ``pref``, after the buyers on the table, would take a car of ``seat``."""
    cdef int8_t prefs[MAX_BUYERS + 1]
    cdef int taken[MAX_BUYERS + 1]
    cdef int b
    for b in range(s.nactive):
        prefs[b] = s.active[b]
    prefs[s.nactive] = <int8_t>pref
    _buyers_take(s, c, NULL, prefs, s.nactive + 1, taken)
    return taken[s.nactive] >= 0 and s.market[taken[s.nactive]][CAR_OWNER] == seat


cdef inline double _useful(const Comp* c, int t, int bp, int ep) noexcept nogil:
    """Research points of development card type ``t`` below the cap, given the seat's (bp, ep), / 7."""
    cdef int room_b = POINTS_CAP - bp if bp < POINTS_CAP else 0
    cdef int room_e = POINTS_CAP - ep if ep < POINTS_CAP else 0
    return ((c.card_body[t] if c.card_body[t] < room_b else room_b)
            + (c.card_engine[t] if c.card_engine[t] < room_e else room_e)) / <double>POINTS_CAP


cdef void k_prior_features(const KState* s, const Comp* c, const int16_t* buf, int n, double* out) noexcept nogil:
    """The NPRIOR features of each option ``buf[i]`` of the pending decision into
    ``out[i * NPRIOR + k]`` (order: kwsearch.prior.PRIOR_FEATURES)."""
    cdef int seat = s.actor, kind = s.tasks[s.ntasks - 1][0], arg = s.tasks[s.ntasks - 1][1]
    cdef int i, j, k, a, t, e, entry, passed, minpass = 0, bp = 0, ep = 0, best_win = -1, price
    cdef double progress = (s.round - 1) / <double>c.rounds
    cdef double* f
    if seat < 0:
        seat = 0
    if s.seats[seat].start_tile >= 0:  # research points (as the engine's research_points)
        bp = c.start_body
        ep = c.start_engine
    for k in range(c.ndev):
        bp += s.seats[seat].active[k] * c.card_body[c.dev_type[k]]
        ep += s.seats[seat].active[k] * c.card_engine[c.dev_type[k]]
    for j in range(1, s.nchain):  # the fewest other workers a tile lets past: those before the first tile
        if SEAT <= s.chain[j] < SPECIAL:
            minpass += 1
        else:
            break
    if kind == TK_MARKET_PRICE:
        for i in range(n):
            price = buf[i] - P_MARKET_PRICE
            if P_MARKET_PRICE <= buf[i] < P_MARKET_NO_MARKER and price > best_win and _price_wins(s, c, price):
                best_win = price
    for i in range(n):
        f = out + i * NPRIOR
        for k in range(NPRIOR):
            f[k] = 0.0
        a = buf[i]
        if P_TILE <= a < P_DO or P_SPECIAL_TILE <= a < P_SELL_PASS:
            f[0] = 1.0
            entry = a - P_TILE if a < P_DO else SPECIAL + a - P_SPECIAL_TILE
            passed = 0
            for j in range(1, s.nchain):
                e = s.chain[j]
                if e == entry:
                    break
                if SEAT <= e < SPECIAL:
                    passed += 1
            f[16] = 1.0 if passed == minpass else 0.0
            f[17] = passed / <double>(s.nplayers - 1)
        elif P_DO <= a < P_RESEARCH:
            k = a - P_DO
            if k == AK_HIRE:
                f[1] = 1.0
            elif k == AK_BODY or k == AK_ENGINE:
                f[2] = 1.0
            elif k == AK_GP or k == AK_GP_ENGINE2 or k == AK_GP_START2:
                f[3] = 1.0
            elif k == AK_RESEARCH:
                f[4] = 1.0
            elif k == AK_BUYER:
                f[5] = 1.0
        elif P_RESEARCH <= a < P_GIVEUP:
            t = a - P_RESEARCH
            if c.card_kind[t] == 0:
                f[6] = 1.0
                f[18] = _useful(c, t, bp, ep)
                f[19] = f[18] * (1.0 - progress)
            elif c.card_kind[t] == 1:
                f[7] = 1.0
            else:
                f[8] = 1.0
                f[20] = progress
        elif P_ACTIVATE <= a < P_SPECIAL_TILE:
            t = a - P_ACTIVATE
            f[9] = 1.0
            f[18] = _useful(c, t, bp, ep)
            f[19] = f[18] * (1.0 - progress)
        elif P_BUYER <= a < P_MARKET_PASS or P_BENZ <= a < P_ACTIVATE:
            t = a - P_BUYER if a < P_MARKET_PASS else a - P_BENZ
            f[10] = 1.0
            if a < P_MARKET_PASS:
                f[26] = s.white[t] / 5.0
            f[27] = 1.0 if _buyer_sells(s, c, seat, t) else 0.0
        elif P_MARKET_BODY <= a < P_MARKET_WORKERS:
            f[11] = 1.0
            f[24] = (a - P_MARKET_BODY + 1 if a < P_MARKET_ENGINE else a - P_MARKET_ENGINE + 1) / 7.0
        elif P_MARKET_WORKERS <= a < P_MARKET_PRICE:
            f[25] = (a - P_MARKET_WORKERS + 1) / 4.0
        elif P_MARKET_PRICE <= a < P_MARKET_NO_MARKER:
            price = a - P_MARKET_PRICE
            f[13] = 1.0
            f[21] = price / 10.0
            if kind == TK_MARKET_PRICE and _price_wins(s, c, price):
                f[22] = 1.0
            f[23] = 1.0 if price == best_win else 0.0
        elif a == P_ENGINE_GP:
            f[14] = 1.0
            if kind == TK_ENGINE_DEST:
                f[28] = (arg - s.seats[seat].gp_engine) / 7.0
        elif (a == P_MARKET_PASS or a == P_MARKET_NO_MARKER or a == P_DAIMLER_PASS or a == P_DIESEL_PASS
              or a == P_BENZ_PASS or a == P_SELL_PASS or a == P_REMOVE_PASS):
            f[12] = 1.0
        elif P_MARKET_MARKER <= a < P_DAIMLER_PASS or P_DAIMLER <= a < P_DIESEL_PASS:
            f[15] = 1.0


cdef void _softmax_rows(const double* feats, int n, const PriorModel* m, double* prob) noexcept nogil:
    """prob[i] = softmax over the rows of ``w . feats[i]``."""
    cdef double top = -1e300, total = 0.0
    cdef int i, k
    for i in range(n):
        prob[i] = 0.0
        for k in range(NPRIOR):
            prob[i] += m.w[k] * feats[i * NPRIOR + k]
        if prob[i] > top:
            top = prob[i]
    for i in range(n):
        prob[i] = exp(prob[i] - top)
        total += prob[i]
    for i in range(n):
        prob[i] /= total


cdef void k_policy(const KState* s, const Comp* c, const PriorModel* m, const int16_t* buf, int n,
                   double* prob) noexcept nogil:
    """The prior's probability of each option ``buf[i]`` (they sum to 1 over the n options)."""
    cdef double feats[MAX_LEGAL * NPRIOR]
    k_prior_features(s, c, buf, n, feats)
    _softmax_rows(feats, n, m, prob)


cdef class Prior:
    """A fitted move prior in C form; build it with :func:`kwsearch.prior.load_prior`, which checks
    the weights file (the constructor only checks the shapes)."""

    def __init__(self, int nplayers, weights, names, source="", meta=None):
        _set_model(nplayers, weights, names, NPRIOR, &self.model.nplayers, self.model.w)
        self.names = tuple(names)
        self.source = source
        self.meta = meta or {}

    @property
    def nplayers(self):
        return self.model.nplayers

    @property
    def weights(self):
        return [self.model.w[k] for k in range(NPRIOR)]

    def predict(self, rows):
        """Option probabilities from feature rows (``rows[i][k]``, one row per option), as the search
        computes them."""
        cdef double feats[MAX_LEGAL * NPRIOR]
        cdef double prob[MAX_LEGAL]
        cdef int n = _read_rows(rows, MAX_LEGAL, NPRIOR, "rows", feats), i
        _softmax_rows(feats, n, &self.model, prob)
        return [prob[i] for i in range(n)]

    def policy(self, FastState state):
        """``{action: probability}`` over the legal options of a fast state (not over)."""
        cdef int16_t buf[MAX_LEGAL]
        cdef double prob[MAX_LEGAL]
        cdef int n = _options(state, buf), i
        k_policy(&state.st, &state.fg.comp, &self.model, buf, n, prob)
        return {int(buf[i]): prob[i] for i in range(n)}

    def __repr__(self):
        return f"<Prior {self.model.nplayers}p from {self.source!r}>"


cdef int _options(FastState state, int16_t* buf) except -1:
    """The legal options of ``state`` into ``buf`` (the engine's order); an error once the game is over."""
    cdef list legal
    cdef int i
    if state.st.phase == PH_OVER:
        raise ValueError("the game is over: there are no options")
    legal = state.legal_actions()
    for i in range(len(legal)):
        buf[i] = legal[i]
    return len(legal)


def prior_feature_count():
    """NPRIOR of the compiled module (checked against kwsearch.prior.PRIOR_FEATURES)."""
    return NPRIOR


def prior_features(FastState state):
    """``(options, rows)``: the legal options of a fast state and each one's NPRIOR features."""
    cdef int16_t buf[MAX_LEGAL]
    cdef double feats[MAX_LEGAL * NPRIOR]
    cdef int n = _options(state, buf), i, k
    k_prior_features(&state.st, &state.fg.comp, buf, n, feats)
    return [int(buf[i]) for i in range(n)], [[feats[i * NPRIOR + k] for k in range(NPRIOR)] for i in range(n)]
