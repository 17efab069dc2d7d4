# cython: language_level=3
"""OpenSpiel's forced draws: apply an action whose draws turn up named cards and tiles.

:mod:`kwsearch.openspiel` makes the deck's draws explicit chance nodes: it applies an action
to a copy with :func:`apply_forced`, which hooks this module's draws into the engine
(``_fast.k_hook_draws``) for that one state, so the action takes the named cards and specialty
tiles instead of the tops of the piles, and reports the pile of the first draw beyond them.
"""

from libc.stdint cimport int8_t

from kwsearch._fast cimport MAX_SPECIAL, MAX_TYPES, Comp, FastState, KState, k_apply, k_hook_draws

# Forced draws (apply_forced, for kwsearch.openspiel's explicit chance
# nodes): while ``_force.owner`` is a state, its research draws take the named
# card types in order — the topmost undrawn card of that type, as the reference
# engine's ``draw_hook`` in records.replay — and its V6 specialty-tile draws take
# the named tiles in order (out of the stack drawn from, after any reshuffle, as
# records.replay's ``special_hook``). The first draw of either kind beyond the
# named ones is recorded: its kind and the pile it would draw from (card-type
# counts, or the stack's face-down tiles). Keyed on the state's address, so no
# other state (a search running meanwhile) is affected; the normal path pays one
# pointer comparison per draw.
ctypedef struct ForceS:
    KState* owner
    int n               # named cards
    int i               # named cards drawn so far
    int8_t cards[8]
    int ns              # named specialty tiles
    int si              # named specialty tiles drawn so far
    int8_t specials[8]
    int missing         # a named card / tile was not among the undrawn ones
    int more            # draws asked for beyond the named ones (of either kind)
    int kind            # the kind of the first such draw: 0 a research card, 1 a specialty tile
    int pool[MAX_TYPES] # kind 0: undrawn card-type counts at that draw
    int spool[MAX_SPECIAL]  # kind 1: 1 for each face-down tile of the stack drawn from

cdef ForceS _force


cdef int forced_draw(KState* s) noexcept nogil:
    cdef int i, j, t
    if _force.i < _force.n:
        t = _force.cards[_force.i]
        _force.i += 1
        for j in range(s.ndeck - 1, -1, -1):
            if s.cards[j] == t:
                for i in range(j, s.ndeck - 1):
                    s.cards[i] = s.cards[i + 1]
                s.ndeck -= 1
                return t
        _force.missing = 1
    elif _force.more == 0:
        _force.kind = 0
        for t in range(MAX_TYPES):
            _force.pool[t] = 0
        for i in range(s.ndeck):
            _force.pool[s.cards[i]] += 1
    if _force.i >= _force.n:
        _force.more += 1
    s.ndeck -= 1
    return s.cards[s.ndeck]


cdef int forced_draw_special(KState* s, const Comp* c, int r, int n) noexcept nogil:
    """draw_special for the forced state: stack r has n >= 1 face-down tiles (positions 1..n, top n)."""
    cdef int t, u, p
    if _force.si < _force.ns:
        t = _force.specials[_force.si]
        _force.si += 1
        if 0 <= t < c.nspec and c.spec_stack[t] == r and s.spec_loc[t] > 0:
            p = s.spec_loc[t]
            for u in range(c.nspec):  # the tiles above it close the gap (the order is kept)
                if c.spec_stack[u] == r and s.spec_loc[u] > p:
                    s.spec_loc[u] -= 1
            s.spec_loc[t] = 0
            return t
        _force.missing = 1
    elif _force.more == 0:
        _force.kind = 1
        for t in range(MAX_SPECIAL):
            _force.spool[t] = 1 if t < c.nspec and c.spec_stack[t] == r and s.spec_loc[t] > 0 else 0
    if _force.si >= _force.ns:
        _force.more += 1
    for t in range(c.nspec):
        if c.spec_stack[t] == r and s.spec_loc[t] == n:
            s.spec_loc[t] = 0
            return t
    return -1


def apply_forced(FastState state, int action, cards=(), specials=()):
    """Apply a legal ``action`` to ``state`` (a FastState, in place) whose research draws turn
    up ``cards`` (card-type ids, in order) and whose V6 specialty-tile draws place ``specials``
    (specialty tile ids, in order) instead of the tops of the deck and stacks.

    Returns ``None`` when the action drew nothing beyond the named cards and
    tiles. Otherwise the first draw beyond them (in the order the action draws)
    is the next chance event, and the result says which pile it comes from:
    ``("card", counts)`` — the card-type counts (a list indexed by type) of the
    undrawn research pile, after a reshuffle of the discard pile if the deck is
    empty — or ``("special", tiles)`` — the sorted ids of the face-down tiles of
    the stack drawn from, after a reshuffle of its used pile if it is empty. The
    state is then past that draw (an arbitrary one) and is for discarding.

    Raises ``ValueError`` if a named card or tile is not among the undrawn ones,
    or if the action drew fewer than named. This is :mod:`kwsearch.openspiel`'s
    explicit chance: the caller applies the action to a copy and adds one chance
    outcome per draw until it returns ``None``.
    """
    cdef int k, n = len(cards), ns = len(specials)
    if n > 8 or ns > 8:
        raise ValueError(f"apply_forced: at most 8 named cards and 8 named specialty tiles, "
                         f"got {n} and {ns}")
    _force.owner = &state.st
    _force.n = n
    _force.i = 0
    _force.ns = ns
    _force.si = 0
    _force.missing = 0
    _force.more = 0
    _force.kind = 0
    for k in range(n):
        _force.cards[k] = <int8_t>cards[k]
    for k in range(ns):
        _force.specials[k] = <int8_t>specials[k]
    k_hook_draws(&state.st, forced_draw, forced_draw_special)
    try:
        k_apply(&state.st, &state.fg.comp, action)
    finally:
        k_hook_draws(NULL, NULL, NULL)
        _force.owner = NULL
    if _force.missing or _force.i < n or _force.si < ns:
        raise ValueError(f"apply_forced: the action drew {_force.i} cards and {_force.si} specialty tiles; "
                         f"not all of {list(cards)} and {list(specials)} could be turned up")
    if _force.more == 0:
        return None
    if _force.kind == 1:
        return "special", [t for t in range(state.fg.comp.nspec) if _force.spool[t]]
    return "card", [_force.pool[k] for k in range(state.fg.comp.ntypes)]
