"""What a seat sees: one definition of the observable part of a state.

Only the order of the undrawn research cards (and, with V6, of each specialty
stack's face-down tiles) is hidden (RULES.md §10, §11); everything else,
money included, is public by perfect recall [decision]. So every seat sees the
same thing, and this module says what it is, once:

* :func:`observation` — what ``seat`` sees of a state of either engine: a
  ``kwsearch-position/1`` object (docs/formats.md), the undrawn cards as a
  multiset. Both engines' ``observation()`` methods, the position files
  (:mod:`kwsearch.formats`), the search's check that a reused tree still
  belongs to the position (:mod:`kwsearch.search`) and the OpenSpiel observer
  (:mod:`kwsearch.openspiel`) all call it.
* :func:`observation_key` — the same as one canonical string, for comparing
  and hashing observations.
* :func:`state_to_json` — the full state: the observation plus its ``hidden``
  part (the deck order, the specialty stacks' order, the generator).

    >>> from kwsearch.game import Game
    >>> state = Game(2).new_initial_state(seed=3)
    >>> obs = observation(state, seat=0)
    >>> obs == observation(state, seat=1) == observation(state.copy())
    True
    >>> sum(obs["research"]["undrawn"].values()) == len(state.to_json()["hidden"]["deck"])
    True
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from .actions import ENGINE_CODE
from .components import AWARDS, DEFAULTS, ENGINEERS, PREFERENCES, SPECIALTY_STACKS, Components, default_components
from .game import SEAT, SPECIAL

POSITION_FORMAT = "kwsearch-position/1"

#: Width of the generator state in the ``hidden`` part: 64 bits as 16 hex digits.
RNG_HEX_DIGITS = 16


def _reference(state):
    """The reference form of a state of either engine, without importing either engine
    (the fast state converts itself; both engines import this module)."""
    to_reference = getattr(type(state), "to_reference", None)
    return state if to_reference is None else to_reference(state)


def observation(state, seat: int | None = None) -> dict[str, Any]:
    """What ``seat`` (any seat, or ``None`` for an onlooker) may know of ``state`` (either
    engine): the position without the order of anything face down.

    Every seat sees the same: the deck order is unknown to all alike, and money is
    public by perfect recall (RULES.md §10 [decision]); ``seat`` is accepted so the
    callers say whose view they mean.
    """
    return state_to_position(_reference(state))


def observation_key(state, seat: int | None = None) -> str:
    """:func:`observation` as one canonical JSON string (sorted keys, no spaces): equal
    strings are equal observations."""
    return json.dumps(observation(state, seat), sort_keys=True, separators=(",", ":"))


def state_to_json(state) -> dict[str, Any]:
    """The full state (either engine): the position plus its hidden part (the deck order,
    with V6 each specialty stack's order, and the generator of later reshuffles)."""
    st = _reference(state)
    obj = state_to_position(st)
    names = [ct.name for ct in st.game.components.card_types]
    obj["hidden"] = {"deck": [names[i] for i in st.deck], "rng": f"{st.rng:0{RNG_HEX_DIGITS}x}"}
    if st.game.v6:
        sp = st.game.components.specialty_tiles
        obj["hidden"]["specialty"] = {SPECIALTY_STACKS[r]: [sp[t].name for t in stack]
                                      for r, stack in enumerate(st.spec_undrawn)}
    return obj


def tile_name(code: int) -> str:
    """A workshop tile's code as a position names it: ``"body 3"``, ``"engine 2"``."""
    return f"engine {code - ENGINE_CODE}" if code > ENGINE_CODE else f"body {code}"


def chain_name(e: int, c: Components | None = None) -> str:
    """A chain entry as a position names it: ``"tile 3"``, ``"seat 1"``, ``"special A2"``."""
    if e >= SPECIAL:
        return f"special {(c or default_components()).specialty_tiles[e - SPECIAL].name}"
    return f"seat {e - SEAT}" if e >= SEAT else f"tile {e}"


def _specialty_position(st) -> dict[str, Any]:
    """The observable V6 state: per stack, the undrawn tiles (a set: their order is hidden)
    and the used ones in the order they were discarded."""
    sp = st.game.components.specialty_tiles
    return {
        "undrawn": {SPECIALTY_STACKS[r]: sorted(sp[t].name for t in stack)
                    for r, stack in enumerate(st.spec_undrawn)},
        "used": {SPECIALTY_STACKS[r]: [sp[t].name for t in stack] for r, stack in enumerate(st.spec_used)},
    }


def state_to_position(st) -> dict[str, Any]:
    """The observable part of the reference state ``st`` as a ``kwsearch-position/1`` object
    (:func:`observation` takes a state of either engine)."""
    game = st.game
    c = game.components
    names = [ct.name for ct in c.card_types]
    undrawn = Counter(names[i] for i in st.deck)
    seats = []
    for s in st.seats:
        seats.append({
            "money": s.money,
            "supply": s.supply,
            "canteen": s.canteen,
            "workshops": [tile_name(w) for w in s.workshops],
            "gp_engine": s.gp_engine,
            **({"gp_engine_tile": True} if s.gp_tile and s.gp_engine == 1 else {}),
            "laps": s.laps,
            "space": s.space,
            "start_tile": c.start_tiles[s.start_tile].name if s.start_tile >= 0 else None,
            "developments": [names[i] for i in s.dev_active],
            "inactive": [names[i] for i in s.dev_inactive],
            "engineers": [names[game.engineer_card[e]] for i, e in enumerate(ENGINEERS)
                          if s.engineers >> i & 1],
            "markers": {"maybach": list(s.maybach), "horch": list(s.horch), "daimler": list(s.daimler),
                        "diesel": s.diesel, "benz": s.benz},
        })
    turn = None
    if st.turn_seat >= 0:
        turn = {"seat": st.turn_seat, "remaining": list(st.remaining),
                "marker_placed": st.marker_placed, "car": list(st.car)}
    pos = {
        "format": POSITION_FORMAT,
        "players": game.num_players,
        "v6": game.v6,
        "components": None if c is default_components() or c.source == default_components().source else _overrides(c),
        "round": st.round,
        "phase": st.phase,
        "chain": [chain_name(e, c) for e in st.chain],
        "research": {
            "display": [names[i] for i in st.display],
            "discard": [names[i] for i in st.discard],
            "undrawn": dict(sorted(undrawn.items())),
        },
        "buyers": {
            "stacks": {p: st.stacks[i] for i, p in enumerate(PREFERENCES)},
            "active": [{"preference": PREFERENCES[p], "daimler": d}
                       for p, d in zip(st.active, st.active_daimler)],
            "white": {p: st.white[i] for i, p in enumerate(PREFERENCES)},
            "track": st.track,
        },
        "prices": list(st.prices),
        "market": [{"owner": o, "body": b, "engine": e, "workers": w, "price": p,
                    "body_bonus": bb, "engine_bonus": eb} for o, b, e, w, p, bb, eb in st.market],
        "supply": {"body": list(st.supply_body), "engine": list(st.supply_engine)},
        "awards": {a: (None if st.awards[i] < 0 else st.awards[i]) for i, a in enumerate(AWARDS)},
        "start_tiles_offered": [c.start_tiles[t].name for t in st.offered],
        "seats": seats,
        "turn": turn,
        "pending": [list(t) for t in st.tasks],
    }
    if game.v6:
        pos["specialty"] = _specialty_position(st)
    return pos


def _overrides(c: Components) -> dict[str, Any]:
    return {k: v for k, v in c.source.items() if DEFAULTS.get(k) != v}
