# cython: language_level=3
"""The search core: information-set MCTS over the fast engine, at C level.

See :mod:`kwsearch.search` for the algorithm and the public API; this module
holds the node pool and the iteration loop, which run without the GIL and
without Python objects. The settings reach the loop in one struct, ``SearchParams``
(``_search.pxd``), built once per search by :class:`Params` and passed by pointer
through ``run_slice`` -> ``iterate`` -> ``playout``.
"""

from libc.math cimport log, sqrt, tanh
from libc.stdint cimport int8_t, int16_t, int32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset
from posix.time cimport CLOCK_MONOTONIC, clock_gettime, timespec

from kwsearch._fast cimport (MAX_LEGAL, MAX_SPECIAL, MAX_TYPES, PH_OVER, Comp, FastState, KState, k_apply, k_determinize, k_legal, k_next,
                             GuideFn)
from kwsearch._playout cimport (k_playout_tempo, PlayoutParams, k_rollout, k_play, RolloutKind, ROLLOUT_SMART)
from kwsearch._eval cimport EvalModel, Evaluator, Prior, PriorModel, k_evaluate, k_policy
# SearchParams (the search's parameters, every field documented) comes from _search.pxd.

cdef extern from "stdlib.h" nogil:
    int posix_memalign(void** memptr, size_t alignment, size_t size)

#: The node pool starts on a cache-line boundary, so each 64-byte Node fills exactly one line.
DEF CACHE_LINE = 64


# The rollout policies by name (SearchConfig.rollout) and the smart playout's knobs in the order of
# PlayoutParams (SearchConfig.playout), with their defaults: the table of kwsearch.settings.
from kwsearch.settings import DEFAULT_PLAYOUT, PLAYOUT_FIELDS, ROLLOUTS
#: Each rollout policy's ``RolloutKind`` (_playout.pxd), by its name (checked against ROLLOUTS there).
from kwsearch._playout import ROLLOUT_KINDS

#: Action ids the root's availability array counts (every id of kwsearch.actions is below it).
DEF ROOT_SLOTS = 512
#: 64-bit words of a bit set over those ids.
DEF ROOT_WORDS = ROOT_SLOTS // 64
#: Longest path of one iteration from the root (nodes); deeper, the iteration plays out from there.
DEF MAX_PATH = 512
#: Keys of the cards-and-places accounting (``Tree.accounting``): a research card type ``k`` is key
#: ``k``, a V6 specialty tile ``t`` is key ``CARD_KEYS_SPECIAL + t``.
DEF CARD_KEYS_SPECIAL = 32
DEF CARD_KEYS = 48
if CARD_KEYS_SPECIAL != MAX_TYPES or CARD_KEYS != MAX_TYPES + MAX_SPECIAL:
    raise ImportError("kwsearch._search: the accounting's card keys do not match _fast.pxd's MAX_TYPES/MAX_SPECIAL")
#: The accounting's "next" cards: this many from the top of the determinized deck (the next
#: research's refill of the display turns up two).
DEF NEXT_CARDS = 2
#: A timed slice reads the clock once every this many iterations (a power of two).
DEF CLOCK_EVERY = 16

#: log(n) for n < LOG_TABLE, computed by libm's log once: the UCB pass reads a child's
#: log(avail) from here (the same double as the call) and calls log only beyond it.
DEF LOG_TABLE = 1024
cdef double LOG_OF[LOG_TABLE]
LOG_OF[0] = -1e300  # never read: a child available to its parent has avail >= 1
for _n in range(1, LOG_TABLE):
    LOG_OF[_n] = log(<double>_n)

ctypedef struct Node:
    int32_t first_child   # index of the first child, -1 if none
    int32_t next_sibling  # index of the next sibling, -1 if none
    int32_t visits        # times this node was selected (or expanded)
    int32_t avail         # times its action was legal when its parent was visited
    int16_t action        # action id leading here from the parent (-1: a chance-outcome node)
    int16_t outcome       # closed loop: the face-up cards this node stands for (0 otherwise)
    int8_t player         # the seat that chose that action (whose reward UCB maximises here); -1 chance
    float win             # summed win share of `player`
    float money_sq        # summed squared final money of `player` (for the spread of its money)
    float reward[4]       # summed reward of every seat (win share, optionally blended with money)
    float money[4]        # summed final money of every seat


cdef inline Node* alloc_nodes(int32_t count) noexcept nogil:
    """An uninitialised array of ``count`` nodes aligned to a cache line, or NULL."""
    cdef void* p = NULL
    if posix_memalign(&p, CACHE_LINE, count * sizeof(Node)) != 0:
        return NULL
    return <Node*>p


cdef inline double now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


cdef class Tree:
    """A node pool (array of Node, grown by doubling up to ``max_nodes``) with node 0 as the root.

    Besides the nodes it counts, for every action id, the iterations in which
    that action was legal at the root (``root_avail``): exact, unlike a child's
    ``avail``, which starts counting only when the child is created. ``pool_full``
    is set when an iteration needed a node beyond ``max_nodes``.
    """

    cdef Node* nodes
    cdef int32_t n
    cdef int32_t cap
    cdef public int32_t max_nodes
    cdef public bint pool_full
    cdef int32_t root_avail[ROOT_SLOTS]
    # The cards-and-places accounting (``accounting``), NULL while it is off: per root option (by
    # action id) the samples and the root mover's summed win share, the same split by card key
    # (``CARD_KEYS`` per option), and every seat's summed share of every finishing place (seat * 4 +
    # place, 16 per option).
    cdef int32_t* acc_n
    cdef double* acc_win
    cdef int32_t* acc_key_n
    cdef double* acc_key_win
    cdef double* acc_place

    def __cinit__(self, int32_t max_nodes=4_000_000):
        self.cap = 4096
        self.nodes = alloc_nodes(self.cap)
        if self.nodes == NULL:
            raise MemoryError()
        self.acc_n = NULL
        self.acc_win = NULL
        self.acc_key_n = NULL
        self.acc_key_win = NULL
        self.acc_place = NULL
        self.max_nodes = max_nodes
        self.clear()

    def __dealloc__(self):
        free(self.nodes)
        self._free_accounting()

    cdef void _free_accounting(self):
        free(self.acc_n)
        free(self.acc_win)
        free(self.acc_key_n)
        free(self.acc_key_win)
        free(self.acc_place)
        self.acc_n = NULL
        self.acc_win = NULL
        self.acc_key_n = NULL
        self.acc_key_win = NULL
        self.acc_place = NULL

    @property
    def accounting(self):
        """Whether the iterations also count what the cards bring and the finishing places (the
        tables ``card_stats`` reads; off by default). Turning it on allocates the tables (about
        360 KB) and starts them empty; turning it off frees them. It draws no random number, so a
        search with it runs exactly the iterations of one without."""
        return self.acc_n != NULL

    @accounting.setter
    def accounting(self, bint on):
        if on == (self.acc_n != NULL):
            return
        if not on:
            self._free_accounting()
            return
        self.acc_n = <int32_t*>malloc(ROOT_SLOTS * sizeof(int32_t))
        self.acc_win = <double*>malloc(ROOT_SLOTS * sizeof(double))
        self.acc_key_n = <int32_t*>malloc(ROOT_SLOTS * CARD_KEYS * sizeof(int32_t))
        self.acc_key_win = <double*>malloc(ROOT_SLOTS * CARD_KEYS * sizeof(double))
        self.acc_place = <double*>malloc(ROOT_SLOTS * 16 * sizeof(double))
        if (self.acc_n == NULL or self.acc_win == NULL or self.acc_key_n == NULL or self.acc_key_win == NULL
                or self.acc_place == NULL):
            self._free_accounting()
            raise MemoryError()
        self.reset_accounting()

    def reset_accounting(self):
        """Empty the accounting's tables (a reused tree counts its new iterations only)."""
        if self.acc_n == NULL:
            return
        memset(self.acc_n, 0, ROOT_SLOTS * sizeof(int32_t))
        memset(self.acc_win, 0, ROOT_SLOTS * sizeof(double))
        memset(self.acc_key_n, 0, ROOT_SLOTS * CARD_KEYS * sizeof(int32_t))
        memset(self.acc_key_win, 0, ROOT_SLOTS * CARD_KEYS * sizeof(double))
        memset(self.acc_place, 0, ROOT_SLOTS * 16 * sizeof(double))

    def card_stats(self):
        """The accounting's tables since the last reset, by root option: ``{action: (samples, win,
        {key: (samples, win)}, places)}`` where ``win`` is the root mover's summed win share, a
        key is a research card type (0..31) or ``32 + t`` for V6 specialty tile ``t``, and
        ``places`` is a list of 16 sums, seat * 4 + place (0: first). Empty when it is off."""
        cdef int a, k
        cdef dict out = {}
        if self.acc_n == NULL:
            return out
        for a in range(ROOT_SLOTS):
            if self.acc_n[a] == 0:
                continue
            keys = {k: (self.acc_key_n[a * CARD_KEYS + k], self.acc_key_win[a * CARD_KEYS + k])
                    for k in range(CARD_KEYS) if self.acc_key_n[a * CARD_KEYS + k] > 0}
            out[a] = (self.acc_n[a], self.acc_win[a], keys, [self.acc_place[a * 16 + k] for k in range(16)])
        return out

    def clear(self):
        self.n = 0
        self.pool_full = False
        self.reset_root_avail()
        self._new_node(-1, -1)  # the root (max_nodes >= 1 is checked by SearchConfig)

    def reset_root_avail(self):
        """Forget the root availability counts (a reused tree counts its new iterations only)."""
        cdef int i
        for i in range(ROOT_SLOTS):
            self.root_avail[i] = 0

    def root_availability(self):
        """{action: iterations in which it was legal at the root} since the last reset."""
        cdef int i
        return {i: self.root_avail[i] for i in range(ROOT_SLOTS) if self.root_avail[i] > 0}

    cdef int32_t _new_node(self, int action, int player) noexcept nogil:
        cdef Node* nd
        cdef Node* grown
        cdef int32_t want
        if self.n >= self.max_nodes:
            self.pool_full = True
            return -1
        if self.n >= self.cap:
            want = self.cap * 2 if self.cap <= self.max_nodes // 2 else self.max_nodes
            grown = alloc_nodes(want)  # not realloc: it would not keep the alignment
            if grown == NULL:
                self.pool_full = True
                return -1
            memcpy(grown, self.nodes, self.n * sizeof(Node))
            free(self.nodes)
            self.nodes = grown
            self.cap = want
        nd = &self.nodes[self.n]
        nd.first_child = -1
        nd.next_sibling = -1
        nd.visits = 0
        nd.avail = 0
        nd.action = <int16_t>action
        nd.outcome = 0
        nd.player = <int8_t>player
        nd.win = 0
        nd.money_sq = 0
        for i in range(4):
            nd.reward[i] = 0
            nd.money[i] = 0
        self.n += 1
        return self.n - 1

    @staticmethod
    def node_bytes():
        return sizeof(Node)

    @property
    def size(self):
        return self.n

    def children(self, int32_t node=0):
        """[(action, player, visits, avail, win, reward[4], money[4], index, money_sq)] of a node's children."""
        out = []
        cdef int32_t ch = self.nodes[node].first_child
        cdef Node* nd
        while ch >= 0:
            nd = &self.nodes[ch]
            out.append((nd.action, nd.player, nd.visits, nd.avail, nd.win,
                        [nd.reward[i] for i in range(4)], [nd.money[i] for i in range(4)], ch, nd.money_sq))
            ch = nd.next_sibling
        return out

    def root_visits(self):
        return self.nodes[0].visits

    def collect(self, int32_t min_visits, int max_extra=5, int max_depth=48):
        """The well-visited part of the tree, breadth first, for merging and reading plans.

        Returns ``[(parent, action, outcome, player, visits)]`` where ``parent`` is
        the position of the parent entry in the list (-1 for the root's children);
        only nodes with at least ``min_visits`` visits (and their ancestors) are
        listed, at most ``max_depth`` deep and with at most ``max_extra`` plies by
        seats other than the root's mover on the way.
        """
        cdef list out = []
        cdef list queue = [(0, -1, 0, 0)]  # (node, position in out, depth, extra plies)
        cdef int head = 0, depth, extra, e, mover = -1
        cdef int32_t node, ch, pos
        cdef Node* nd
        ch = self.nodes[0].first_child
        if ch >= 0:
            mover = self.nodes[ch].player
        while head < len(queue):
            node, pos, depth, extra = queue[head]
            head += 1
            if depth >= max_depth:
                continue
            ch = self.nodes[node].first_child
            while ch >= 0:
                nd = &self.nodes[ch]
                if nd.visits >= min_visits:
                    e = extra + (1 if nd.player >= 0 and nd.player != mover else 0)
                    if e <= max_extra:
                        out.append((pos, nd.action, nd.outcome, nd.player, nd.visits))
                        queue.append((ch, len(out) - 1, depth + 1, e))
                ch = nd.next_sibling
        return out

    def child(self, int32_t node, int action):
        """The child of ``node`` reached by ``action``, or -1."""
        cdef int32_t ch = self.nodes[node].first_child
        while ch >= 0:
            if self.nodes[ch].action == action:
                return ch
            ch = self.nodes[ch].next_sibling
        return -1

    def extract(self, int32_t node):
        """A new Tree holding the subtree under ``node`` (which becomes its root), statistics kept."""
        cdef Tree out = Tree(self.max_nodes)
        cdef int32_t head = 0, src, ch, prev, dst
        cdef list queue = [node]
        cdef list where = [0]
        out.nodes[0] = self.nodes[node]
        out.nodes[0].first_child = -1
        out.nodes[0].next_sibling = -1
        while head < len(queue):
            src = queue[head]
            dst = where[head]
            head += 1
            prev = -1
            ch = self.nodes[src].first_child
            while ch >= 0:
                copy = out._new_node(self.nodes[ch].action, self.nodes[ch].player)
                if copy < 0:
                    raise MemoryError("the node pool is full")
                out.nodes[copy] = self.nodes[ch]
                out.nodes[copy].first_child = -1
                out.nodes[copy].next_sibling = -1
                if prev < 0:
                    out.nodes[dst].first_child = copy
                else:
                    out.nodes[prev].next_sibling = copy
                prev = copy
                queue.append(ch)
                where.append(copy)
                ch = self.nodes[ch].next_sibling
        return out


cdef inline void blend_money(KState* s, double money_weight, const double* win, double* r) noexcept nogil:
    """Each seat's reward from its win share ``win``: the share itself, or with ``money_weight > 0``
    blended with its money margin over the best other seat, squashed to [0, 1]."""
    cdef int i, j, n = s.nplayers, other
    for i in range(n):
        r[i] = win[i]
        if money_weight > 0:
            other = -100000
            for j in range(n):
                if j != i and s.seats[j].money > other:
                    other = s.seats[j].money
            r[i] = (1 - money_weight) * win[i] + money_weight * (0.5 + 0.5 * tanh((s.seats[i].money - other) / 20.0))


cdef inline void rewards(KState* s, double money_weight, double* r, double* win) noexcept nogil:
    """Win share per seat (1 to a sole winner, split on ties), optionally blended with the
    money margin squashed to [0, 1]."""
    cdef int i, n = s.nplayers, k = 0
    cdef int best = s.seats[0].money
    for i in range(1, n):
        if s.seats[i].money > best:
            best = s.seats[i].money
    for i in range(n):
        if s.seats[i].money == best:
            k += 1
    for i in range(n):
        win[i] = (1.0 / k) if s.seats[i].money == best else 0.0
    blend_money(s, money_weight, win, r)


cdef inline void cutoff_rewards(KState* s, const Comp* c, const EvalModel* model, double money_weight,
                                double* r, double* win) noexcept nogil:
    """The reward of a playout stopped at its cut-off: the model's win share per seat (they sum to 1)
    in place of the final win share, blended with the *current* money margin as ``rewards`` blends
    the final one."""
    k_evaluate(s, c, model, win)
    blend_money(s, money_weight, win, r)


cdef inline int next_keys(KState* s, const Comp* c, int* keys) noexcept nogil:
    """The accounting's keys of a determinized state (``Tree.accounting``): the research card types
    of the next ``NEXT_CARDS`` cards to come up from the deck as it stands (its top ones; a
    reshuffle of the discard pile is not looked into), each type once, and with V6 the specialty
    tile on top of the current round's stack (``CARD_KEYS_SPECIAL + t``). Returns how many."""
    cdef int n = 0, j, k, card, t, top = 0, r = s.round - 1
    cdef bint seen
    for j in range(NEXT_CARDS):
        if j >= s.ndeck:
            break
        card = s.cards[s.ndeck - 1 - j]
        seen = False
        for k in range(n):
            if keys[k] == card:
                seen = True
        if not seen:
            keys[n] = card
            n += 1
    if c.nspec > 0 and 0 <= r < c.nstacks:
        for t in range(c.nspec):  # the top of stack r is its face-down tile with the highest place
            if c.spec_stack[t] == r and s.spec_loc[t] > top:
                top = s.spec_loc[t]
        for t in range(c.nspec):
            if c.spec_stack[t] == r and s.spec_loc[t] == top and top > 0:
                keys[n] = CARD_KEYS_SPECIAL + t
                n += 1
    return n


cdef void ranked_places(const double* w, int n, int used, int place, double prob, double* out) noexcept nogil:
    """Add to ``out[seat * 4 + place]`` each seat's chance of each place from ``place`` on, when the
    seats not in the bit set ``used`` take the places left in the Plackett-Luce order of the
    strengths ``w``: the next place goes to a seat in proportion to its strength among those left
    (evenly when theirs are all 0); ``prob`` is the chance of the places above. The last two seats
    are placed directly (one division), so four seats take 17 calls."""
    cdef double total = 0.0, inv, q
    cdef int i, left = 0, a = -1, b = -1
    if prob <= 0.0:
        return
    for i in range(n):
        if not (used >> i) & 1:
            total += w[i]
            left += 1
            if a < 0:
                a = i
            else:
                b = i
    if left == 1:
        out[a * 4 + place] += prob
        return
    if left == 2:
        q = w[a] / total if total > 0.0 else 0.5
        out[a * 4 + place] += prob * q
        out[b * 4 + place + 1] += prob * q
        out[b * 4 + place] += prob * (1.0 - q)
        out[a * 4 + place + 1] += prob * (1.0 - q)
        return
    inv = 1.0 / total if total > 0.0 else 0.0
    for i in range(n):
        if not (used >> i) & 1:
            q = w[i] * inv if total > 0.0 else 1.0 / left
            if q > 0.0:
                out[i * 4 + place] += prob * q
                ranked_places(w, n, used | (1 << i), place + 1, prob * q, out)


cdef inline void account_sample(Tree t, int action, int mover, int nplayers, const double* win, bint cut,
                                const double* money, const int* keys, int nkeys) noexcept nogil:
    """Count one completed iteration in the accounting's tables (``Tree.accounting``): the root
    option ``action`` it took, the root ``mover``'s win share ``win[mover]`` under the option and
    under each of its ``keys``, and every seat's finishing place. A game played to its end places
    the seats by ``money`` (seats with equal money share the places they span evenly); a playout
    stopped at its cut-off (``cut``) places them in the Plackett-Luce order of the evaluation's win
    shares ``win`` (``ranked_places``). Either way a seat's chance of first place is its win share."""
    cdef int i, j, k, better, tied
    cdef double part
    cdef double strength[4]
    if action < 0 or action >= ROOT_SLOTS:
        return
    t.acc_n[action] += 1
    t.acc_win[action] += win[mover]
    for k in range(nkeys):
        t.acc_key_n[action * CARD_KEYS + keys[k]] += 1
        t.acc_key_win[action * CARD_KEYS + keys[k]] += win[mover]
    if cut:
        for i in range(nplayers):
            strength[i] = win[i] if win[i] > 0.0 else 0.0
        ranked_places(strength, nplayers, 0, 0, 1.0, &t.acc_place[action * 16])
        return
    for i in range(nplayers):
        better = 0
        tied = 0
        for j in range(nplayers):
            if money[j] > money[i]:
                better += 1
            elif money[j] == money[i]:
                tied += 1
        part = 1.0 / tied
        for k in range(better, better + tied):
            t.acc_place[action * 16 + i * 4 + k] += part


cdef inline int reveal_signature(KState* s) noexcept nogil:
    """What the players saw of the research display: 1 + (ndisplay, d0, d1) in base MAX_TYPES + 1,
    a card slot left empty counting as MAX_TYPES (so 0 never occurs: it marks a non-chance node)."""
    cdef int base = MAX_TYPES + 1
    cdef int d0 = s.display[0] if s.ndisplay > 0 else MAX_TYPES
    cdef int d1 = s.display[1] if s.ndisplay > 1 else MAX_TYPES
    return 1 + (s.ndisplay * base + d0) * base + d1


cdef inline int32_t outcome_child(Tree t, int32_t node, int sig) noexcept nogil:
    """The chance-outcome child of an action node for these face-up cards (created if new)."""
    cdef int32_t ch = t.nodes[node].first_child
    while ch >= 0:
        if t.nodes[ch].outcome == sig:
            return ch
        ch = t.nodes[ch].next_sibling
    ch = t._new_node(-1, -1)
    if ch < 0:
        return -1
    t.nodes[ch].outcome = <int16_t>sig
    t.nodes[ch].avail = 1
    t.nodes[ch].next_sibling = t.nodes[node].first_child
    t.nodes[node].first_child = ch
    return ch


cdef inline int32_t step_into(Tree t, KState* s, const Comp* c, int32_t child, int closed_loop,
                              int32_t* path, int* depth) noexcept nogil:
    """Apply ``child``'s action and put the child on the path. In closed loop, when the action
    turned up research cards, the descent goes on from the chance-outcome node of those cards
    (also put on the path). Returns the node to continue from, or -1 when the pool is full."""
    cdef int sig_before = reveal_signature(s)
    cdef int ndeck_before = s.ndeck
    cdef int32_t node = child
    k_apply(s, c, t.nodes[child].action)
    path[depth[0]] = child
    depth[0] += 1
    if closed_loop and (s.ndeck != ndeck_before or reveal_signature(s) != sig_before):
        node = outcome_child(t, child, reveal_signature(s))
        if node >= 0:
            path[depth[0]] = node
            depth[0] += 1
    return node


cdef int prior_guide(const void* ctx, const KState* s, const Comp* c, const int16_t* buf, int n,
                     uint64_t* rng) noexcept nogil:
    """The move prior's pick in a playout (a ``GuideFn``; ``ctx`` is the ``PriorModel``): an option
    drawn in proportion to its probability."""
    cdef double prob[MAX_LEGAL]
    cdef double draw
    cdef int i
    k_policy(s, c, <const PriorModel*>ctx, buf, n, prob)
    draw = (k_next(rng) >> 11) * (1.0 / 9007199254740992.0)
    for i in range(n):
        draw -= prob[i]
        if draw < 0:
            return buf[i]
    return buf[n - 1]


cdef inline void playout(KState* s, const Comp* c, const SearchParams* p, uint64_t* rng) noexcept nogil:
    """Play on from ``s`` with ``p``'s rollout policy, for at most ``p.cutoff`` decisions (0: to the
    end); with ``p.prior_playout > 0`` each decision is, with that chance, the move prior's draw
    (``prior_guide``), and the rollout policy's otherwise; 0 is the unguided playout, draw for draw."""
    if p.prior_playout > 0:
        k_play(s, c, rng, p.rollout, NULL, 0, p.cutoff, &p.playout, prior_guide, <const void*>p.prior_weights,
               p.prior_playout)
    else:
        k_rollout(s, c, rng, p.rollout, p.cutoff, &p.playout)


cdef int iterate(Tree t, KState* root, const Comp* c, const SearchParams* p, uint64_t* rng,
                 int root_action) noexcept nogil:
    """One iteration with the parameters ``p``: determinize, select with availability counts,
    expand one node, play out, back up. Returns 0, or -1 when the node pool is full.

    With ``p.prior > 0`` the move prior ``p.prior_weights`` gives each option of a visited node a
    probability P (computed once per node visit, over the options legal in this
    determinization): an untried option is expanded with probability proportional to its P
    (instead of uniformly), and the UCB score of a tried child gains the progressive bias
    ``p.prior * P / (1 + visits)``. ``p.prior == 0`` never calls the prior, so the
    search is the one without it, draw for draw.

    With ``p.cutoff > 0`` the playout stops after that many decisions and, if the game is not
    over by then, ``p.evaluation`` scores the state (``cutoff_rewards``); the money statistics
    then back up the seats' current money.

    With ``root_action >= 0`` the iteration takes that option at the root (the root's
    sequential halving, ``kwsearch.search``), whenever this determinization allows it; the
    other options' availability is not counted then. -1 selects by UCB as everywhere.

    The exploration constant is ``p.c_uct`` at the root mover's own nodes and ``p.c_opponents``
    where another seat chooses. The playout is ``playout`` (``p.rollout``, guided by the prior
    with ``p.prior_playout > 0``)."""
    cdef KState s = root[0]
    cdef int16_t buf[MAX_LEGAL]
    cdef int16_t root_legal[MAX_LEGAL]
    cdef int nroot = 0
    cdef int32_t path[MAX_PATH]
    cdef int depth = 1, n, i, untried, pick, mover
    cdef int32_t node = 0, ch, best, newn
    cdef double score, best_score, ln_avail, mass, draw, cexp
    cdef int root_mover = root.actor
    cdef double prob[MAX_LEGAL]
    # the settings read in the selection loop, as locals (loads the compiler need not repeat)
    cdef double c_uct = p.c_uct, c_opponents = p.c_opponents, prior_weight = p.prior
    cdef int closed_loop = p.closed_loop
    cdef const PriorModel* prior = p.prior_weights
    cdef bint biased = prior_weight > 0 and prior != NULL
    cdef double r[4]
    cdef double w[4]
    cdef Node* nd
    cdef uint64_t unseen[ROOT_WORDS]  # legal actions without a child yet (bit per action id)
    cdef int32_t slot[ROOT_SLOTS]           # the child of each legal action that has one
    cdef bint account = t.acc_n != NULL     # the cards-and-places accounting (Tree.accounting)
    cdef int keys[NEXT_CARDS + 1]
    cdef int nkeys = 0
    cdef double place_money[4]
    cdef bint cut = False
    path[0] = 0
    if p.determinize:
        k_determinize(&s, c, k_next(rng))
    if account:
        nkeys = next_keys(&s, c, keys)
    while s.phase != PH_OVER and depth < MAX_PATH - 1:
        n = k_legal(&s, c, buf)
        if n == 0:
            break
        if node == 0 and depth == 1:  # the root: remember what this determinization allows there
            memcpy(root_legal, buf, n * sizeof(int16_t))
            nroot = n
            if root_action >= 0:  # forced: the option alone, when this determinization allows it
                for i in range(n):
                    if buf[i] == root_action:
                        buf[0] = buf[i]
                        n = 1
                        break
        mover = s.actor
        # Availability: every child whose action is legal in this determinization. The children
        # are walked once: a bit set of the legal actions finds them, and slot[] remembers each
        # one's node for the UCB pass below (a child's action is unique among its siblings; a
        # chance-outcome child has action -1 and is never legal).
        for i in range(ROOT_WORDS):
            unseen[i] = 0
        for i in range(n):
            unseen[buf[i] >> 6] |= <uint64_t>1 << (buf[i] & 63)
        ch = t.nodes[node].first_child
        while ch >= 0:
            nd = &t.nodes[ch]
            if nd.action >= 0 and (unseen[nd.action >> 6] >> (nd.action & 63)) & 1:
                nd.avail += 1
                slot[nd.action] = ch
                unseen[nd.action >> 6] &= ~(<uint64_t>1 << (nd.action & 63))
            ch = nd.next_sibling
        untried = 0
        for i in range(n):  # untried actions to the front, in the order of buf
            if (unseen[buf[i] >> 6] >> (buf[i] & 63)) & 1:
                buf[untried], buf[i] = buf[i], buf[untried]
                untried += 1
        if biased:  # after the reordering above: prob[i] belongs to buf[i]
            k_policy(&s, c, prior, buf, n, prob)
        if untried > 0:
            if biased:  # an untried option in proportion to its prior probability (one draw)
                mass = 0.0
                for i in range(untried):
                    mass += prob[i]
                draw = (k_next(rng) >> 11) * (1.0 / 9007199254740992.0) * mass
                pick = untried - 1
                for i in range(untried):
                    draw -= prob[i]
                    if draw < 0:
                        pick = i
                        break
            else:
                pick = <int>(k_next(rng) % <uint64_t>untried)
            newn = t._new_node(buf[pick], mover)
            if newn < 0:
                return -1
            t.nodes[newn].avail = 1
            t.nodes[newn].next_sibling = t.nodes[node].first_child
            t.nodes[node].first_child = newn
            if step_into(t, &s, c, newn, closed_loop, path, &depth) < 0:
                return -1
            break
        # UCB1 with availability counts among the available children.
        best = -1
        best_score = -1e300
        cexp = c_uct if mover == root_mover else c_opponents
        for i in range(n):
            ch = slot[buf[i]]
            nd = &t.nodes[ch]
            ln_avail = LOG_OF[nd.avail] if nd.avail < LOG_TABLE else log(<double>nd.avail)
            score = nd.reward[mover] / nd.visits + cexp * sqrt(ln_avail / nd.visits)
            if biased:
                score += prior_weight * prob[i] / (1 + nd.visits)
            if score > best_score:
                best_score = score
                best = ch
        node = step_into(t, &s, c, best, closed_loop, path, &depth)
        if node < 0:
            return -1
    if s.phase != PH_OVER:
        playout(&s, c, p, rng)
    if s.phase != PH_OVER and p.evaluation != NULL:  # stopped at the cut-off (or at MAX_PATH with one)
        cutoff_rewards(&s, c, p.evaluation, p.money_weight, r, w)
        cut = True
    else:
        rewards(&s, p.money_weight, r, w)
    if account and depth >= 2:
        for i in range(s.nplayers):
            place_money[i] = s.seats[i].money
        account_sample(t, t.nodes[path[1]].action, root_mover, s.nplayers, w, cut, place_money, keys, nkeys)
    for i in range(depth):
        nd = &t.nodes[path[i]]
        nd.visits += 1
        for mover in range(s.nplayers):
            nd.reward[mover] += r[mover]
            nd.money[mover] += s.seats[mover].money
        if nd.player >= 0:
            nd.win += w[nd.player]
            nd.money_sq += <float>s.seats[nd.player].money * s.seats[nd.player].money
    for i in range(nroot):  # counted only for an iteration that completed (as the visits are)
        if 0 <= root_legal[i] < ROOT_SLOTS:
            t.root_avail[root_legal[i]] += 1
    return 0


cdef class Params:
    """The parameters of one search in C (``SearchParams``, _search.pxd), built once from a
    ``SearchConfig`` with its player-count defaults filled in (``SearchConfig.for_players``).

    ``evaluator`` (a ``kwsearch._eval.Evaluator``) scores the playouts stopped at the cut-off and is
    required when ``config.cutoff > 0``; ``prior`` (a ``kwsearch._eval.Prior``) is required when
    ``config.prior`` or ``config.prior_playout`` is above 0. Both must be fitted for the player count
    of the states searched (``run_slice`` checks). The object keeps them alive while the struct
    points into them.
    """

    cdef SearchParams p
    cdef readonly Evaluator evaluator
    cdef readonly Prior prior_model

    def __cinit__(self, config, Evaluator evaluator=None, Prior prior=None):
        if config.rollout not in ROLLOUTS or config.cutoff is None or config.c_uct is None \
                or config.money_weight is None:
            raise ValueError(f"config: expected a SearchConfig with its player-count defaults filled in "
                             f"(SearchConfig.for_players), got {config!r}")
        self.p.c_uct = config.c_uct
        self.p.c_opponents = config.c_uct if config.c_opponents is None else config.c_opponents
        self.p.money_weight = config.money_weight
        self.p.determinize = config.determinize
        self.p.closed_loop = config.closed_loop
        self.p.rollout = ROLLOUT_KINDS[config.rollout]
        self.p.playout = playout_params(tuple(map(float, config.playout)))
        if config.cutoff < 0:
            raise ValueError(f"cutoff: expected 0 or more decisions, got {config.cutoff}")
        self.p.cutoff = config.cutoff
        self.p.evaluation = NULL
        if config.cutoff > 0:
            if evaluator is None:
                raise ValueError("cutoff: a playout cut-off needs an evaluator")
            self.evaluator = evaluator
            self.p.evaluation = &evaluator.model
        if not config.prior >= 0:
            raise ValueError(f"prior: expected 0 or more, got {config.prior}")
        if not 0 <= config.prior_playout <= 1:
            raise ValueError(f"prior_playout: expected a chance from 0 to 1, got {config.prior_playout}")
        self.p.prior = config.prior
        self.p.prior_playout = config.prior_playout
        self.p.prior_weights = NULL
        if config.prior > 0 or config.prior_playout > 0:
            if prior is None:
                raise ValueError("prior, prior_playout: the move prior's weight or playout share needs a prior")
            self.prior_model = prior
            self.p.prior_weights = &prior.model

    def as_dict(self):
        """The struct's fields (for tests and inspection; the models by their player count)."""
        return {"c_uct": self.p.c_uct, "c_opponents": self.p.c_opponents, "money_weight": self.p.money_weight,
                "determinize": bool(self.p.determinize), "closed_loop": bool(self.p.closed_loop),
                "rollout": ROLLOUTS[<int>self.p.rollout],
                "playout": (self.p.playout.rule, self.p.playout.tempo, self.p.playout.sell, self.p.playout.develop,
                            self.p.playout.engineer),
                "cutoff": self.p.cutoff, "prior": self.p.prior, "prior_playout": self.p.prior_playout,
                "evaluation": None if self.evaluator is None else self.evaluator.model.nplayers,
                "prior_weights": None if self.prior_model is None else self.prior_model.model.nplayers}


def run_slice(Tree tree, FastState state, Params params, long iterations, double seconds, uint64_t rng_state,
              int root_action=-1):
    """Run iterations with ``params`` on ``tree`` from ``state`` until ``iterations`` are done or
    ``seconds`` have passed (0 = no limit of that kind), or the node pool is full.

    ``rng_state`` is the generator's state; the state after the slice is returned,
    so a search cut into slices draws the same numbers as one run in a piece (and
    gives the same tree for the same iteration count). ``root_action >= 0`` takes that option at
    the root in every iteration that allows it (``iterate``; sequential halving); -1 chooses there
    by UCB. Returns ``(iterations done, rng_state)``; ``tree.pool_full`` tells whether the pool
    ended it.
    """
    if params.evaluator is not None and params.evaluator.model.nplayers != state.st.nplayers:
        raise ValueError(f"evaluator: fitted for {params.evaluator.model.nplayers} players, "
                         f"the state has {state.st.nplayers}")
    if params.prior_model is not None and params.prior_model.model.nplayers != state.st.nplayers:
        raise ValueError(f"prior: fitted for {params.prior_model.model.nplayers} players, "
                         f"the state has {state.st.nplayers}")
    cdef const SearchParams* p = &params.p
    cdef KState root = state.st
    cdef const Comp* c = &state.fg.comp
    cdef uint64_t rng = rng_state
    cdef long done = 0
    cdef double deadline = now() + seconds
    if tree.pool_full:
        return 0, rng
    with nogil:
        while True:
            if iterations > 0 and done >= iterations:
                break
            if seconds > 0 and (done & (CLOCK_EVERY - 1)) == 0 and now() >= deadline:
                break
            if iterate(tree, &root, c, p, &rng, root_action) < 0:
                break
            done += 1
    return done, rng


def tempo_playout_actions(FastState state, uint64_t seed, int cap=20000):
    """The actions a tempo-policy playout from ``state`` takes (for tests and inspection)."""
    cdef KState s = state.st
    cdef uint64_t rng = seed
    cdef int16_t* trace = <int16_t*>malloc(cap * sizeof(int16_t))
    cdef int i
    if trace == NULL:
        raise MemoryError()
    try:
        k_next(&rng)
        for i in range(cap):
            trace[i] = -1
        with nogil:
            k_playout_tempo(&s, &state.fg.comp, &rng, trace, cap, 0)
        return [trace[i] for i in range(cap) if trace[i] >= 0]
    finally:
        free(trace)


def determinized(FastState state, uint64_t seed):
    """A copy of ``state`` with the hidden information redrawn from ``seed``."""
    cdef FastState f = state.copy()
    k_determinize(&f.st, &f.fg.comp, seed)
    return f


cdef PlayoutParams playout_params(tuple playout) except *:
    """The C struct of the smart playout's knobs (``PLAYOUT_FIELDS`` order; None: the defaults)."""
    cdef PlayoutParams pp
    if playout is None:
        playout = DEFAULT_PLAYOUT
    if len(playout) != len(PLAYOUT_FIELDS):
        raise ValueError(f"playout: expected {len(PLAYOUT_FIELDS)} numbers ({', '.join(PLAYOUT_FIELDS)}), "
                         f"got {playout!r}")
    pp.rule, pp.tempo, pp.sell, pp.develop, pp.engineer = playout
    return pp


cdef list _traced_playout(FastState state, uint64_t seed, RolloutKind kind, tuple playout, int cap, int max_decisions,
                          const PriorModel* pm, double share):
    """The actions of one playout (``k_play``) from a copy of ``state``: policy ``kind``, guided by
    ``pm`` with chance ``share`` when ``pm`` is not NULL."""
    cdef KState s = state.st
    cdef uint64_t rng = seed
    cdef PlayoutParams pp = playout_params(playout)
    cdef int16_t* trace = <int16_t*>malloc(cap * sizeof(int16_t))
    cdef GuideFn guide = NULL
    cdef int i, steps
    if pm != NULL:
        guide = prior_guide
    if trace == NULL:
        raise MemoryError()
    try:
        k_next(&rng)
        with nogil:
            steps = k_play(&s, &state.fg.comp, &rng, kind, trace, cap, max_decisions, &pp, guide, <const void*>pm,
                           share)
        return [trace[i] for i in range(min(steps, cap))]
    finally:
        free(trace)


def smart_playout_actions(FastState state, uint64_t seed, tuple playout=None, int cap=20000,
                          int max_decisions=0):
    """The actions a smart-policy playout from ``state`` takes (for tests and inspection), with the
    knobs ``playout`` (None: the defaults); ``max_decisions > 0`` stops after that many."""
    return _traced_playout(state, seed, ROLLOUT_SMART, playout, cap, max_decisions, NULL, 0.0)


def guided_playout_actions(FastState state, uint64_t seed, Prior prior, double share, str rollout="smart",
                           tuple playout=None, int cap=20000, int max_decisions=0):
    """The actions of a playout from ``state`` guided by the move prior ``prior`` (each decision, with
    chance ``share``, an option drawn in proportion to the prior's probability; the others by the
    rollout policy ``rollout``), as the search plays them with ``SearchConfig.prior_playout``; for
    tests and inspection. ``max_decisions > 0`` stops after that many decisions."""
    if rollout not in ROLLOUTS:
        raise ValueError(f"rollout: expected one of {', '.join(ROLLOUTS)}, got {rollout!r}")
    if not 0 <= share <= 1:
        raise ValueError(f"share: expected a chance from 0 to 1, got {share}")
    if prior is None or prior.model.nplayers != state.st.nplayers:
        raise ValueError(f"prior: expected a move prior for {state.st.nplayers} players")
    return _traced_playout(state, seed, ROLLOUT_KINDS[rollout], playout, cap, max_decisions, &prior.model, share)
