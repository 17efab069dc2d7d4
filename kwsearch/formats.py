"""The position format ``kwsearch-position/1`` (docs/formats.md).

A position is a JSON object holding everything a player at the table can see:
the board, every player's mat, money, awards and the pending decision. The
undrawn research cards are an unordered multiset (``research.undrawn``): their
order is the game's only hidden information.

* :func:`state_to_position` — a state's observable part, as a JSON-ready dict
  (written by :mod:`kwsearch.observation`, the one definition of what a seat
  sees; re-exported here as the format's writer).
* :func:`check_position` — every problem of a position object at once, as
  ``(json_path, message)`` pairs.
* :func:`position_to_state` — a :class:`~kwsearch.rules.State`, or
  :class:`~kwsearch.errors.InvalidPositionError` listing all problems
  (:func:`kwsearch.engine.state_from_json` gives it on either engine).

Fields a person writing a position by hand may leave out (they are derived):
``research.undrawn``, ``supply``, ``awards``, ``pending``, ``turn``, a seat's
``supply`` (workers) and ``markers``, ``components`` and ``v6``.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any, Mapping

from .actions import ENGINE_CODE, tile_code
from .components import (ALL_ACTIONS, AWARDS, ENGINEERS, MAX_PRICE, MAX_TILE_VALUE, PREFERENCES, SPECIALTY_STACKS,
                         Components, components_from_dict, default_components)
from .errors import ComponentError, InvalidPositionError
from .game import PHASES, SEAT, SPECIAL, TASKS, Game, rng_shuffle, seed_to_rng
from .jsonload import key_path
from .observation import POSITION_FORMAT, state_to_position  # noqa: F401 (the format's writer, re-exported)
from .rules import State

# Bounds no real game reaches, so both engines hold every valid position exactly.
MAX_MONEY = 1_000_000
MAX_LAPS = 10_000
MAX_WHITE = 100


# ---------------------------------------------------------------------------
# Checking and decoding
# ---------------------------------------------------------------------------


_MISSING = object()  # a required field that is absent (already reported by _Checker.obj)


class _Checker:
    """Collects problems with JSON paths while decoding a position.

    ``null`` is never a default: a field is either left out (then its default or
    derived value applies) or holds a value of its type; ``null`` is accepted only
    where the format says "or null" (``turn``, ``components``, an award's holder, a
    seat's ``start_tile``).
    """

    def __init__(self) -> None:
        self.problems: list[tuple[str, str]] = []

    def err(self, path: str, msg: str) -> None:
        self.problems.append((path, msg))

    def keys(self, value: Any, path: str, allowed) -> None:
        """Report every key of the object ``value`` that the format does not define at ``path``."""
        if not isinstance(value, Mapping):
            return
        allowed = tuple(allowed)
        for k in value:
            if k not in allowed and not (isinstance(k, str) and k.startswith("_")):  # "_...": a comment
                self.err(key_path(path, k), f"unknown key (allowed here: {', '.join(allowed)})")

    def obj(self, parent: Any, key: str, path: str, default: Any = KeyError) -> Any:
        if not isinstance(parent, Mapping):
            return _MISSING if default is KeyError else default
        if key not in parent:
            if default is KeyError:
                self.err(f"{path}.{key}", "missing")
                return _MISSING
            return default
        return parent[key]

    def int(self, value: Any, path: str, lo: int | None = None, hi: int | None = None,
            default: int = 0) -> int:
        if value is _MISSING:
            return default
        if isinstance(value, bool) or not isinstance(value, int):
            self.err(path, f"expected an integer, got {_show(value)}")
            return default
        if lo is not None and value < lo or hi is not None and value > hi:
            rng = f"{lo}..{hi}" if hi is not None else f"at least {lo}"
            self.err(path, f"{_show(value)} is out of range (expected {rng})")
            return default
        return value

    def bool(self, value: Any, path: str, default: bool = False) -> bool:
        if value is _MISSING:
            return default
        if not isinstance(value, bool):
            self.err(path, f"expected true or false, got {_show(value)}")
            return default
        return value

    def list(self, value: Any, path: str) -> list:
        if value is _MISSING:
            return []
        if not isinstance(value, list):
            self.err(path, f"expected a list, got {_show(value)}")
            return []
        return value

    def mapping(self, value: Any, path: str) -> Mapping:
        if value is _MISSING:
            return {}
        if not isinstance(value, Mapping):
            self.err(path, f"expected an object, got {_show(value)}")
            return {}
        return value


def _show(value: Any) -> str:
    """A bad value for a message: its JSON when short, else a description (a message stays short)."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    if len(text) <= 60:
        return text
    if isinstance(value, Mapping):
        return f"an object of {len(value)} keys"
    if isinstance(value, list):
        return f"a list of {len(value)} entries"
    return text[:57] + "..."


#: The keys each object of a position may hold (docs/formats.md, "Fields").
_KEYS = {
    "$": ("format", "players", "v6", "components", "round", "phase", "chain", "research", "buyers", "prices",
          "market", "supply", "awards", "start_tiles_offered", "seats", "turn", "pending", "specialty", "hidden"),
    "research": ("display", "discard", "undrawn"),
    "buyers": ("stacks", "active", "white", "track"),
    "active": ("preference", "daimler"),
    "market": ("owner", "body", "engine", "workers", "price", "body_bonus", "engine_bonus"),
    "supply": ("body", "engine"),
    "seat": ("money", "supply", "canteen", "workshops", "gp_engine", "laps", "space", "start_tile",
             "developments", "inactive", "engineers", "markers", "gp_engine_tile"),
    "markers": ("maybach", "horch", "daimler", "diesel", "benz"),
    "turn": ("seat", "remaining", "marker_placed", "car"),
    "hidden": ("deck", "rng", "specialty"),
}


def check_position(obj: Any, components: Components | None = None, reachable: bool = False
                   ) -> list[tuple[str, str]]:
    """All problems of a position object, as ``(json_path, message)`` pairs (empty: valid).

    ``reachable=True`` (what ``kwsearch validate`` and every command reading a file
    use) also rejects states no game can reach although an engine would play on
    from them, e.g. a car with a completed lap while the first-lap award is free
    (docs/formats.md, "What is checked"). Without it a test may still build such a
    hypothetical position.
    """
    _, problems = _decode(obj, components, seed=0, reachable=reachable)
    return problems


def position_to_state(obj: Any, seed: int = 0, components: Components | None = None,
                      source: str | None = None, reachable: bool = False):
    """Decode a position object into a State; raises InvalidPositionError listing every problem.

    ``reachable``: see :func:`check_position`."""
    st, problems = _decode(obj, components, seed, reachable=reachable)
    if problems:
        raise InvalidPositionError(problems, source)
    return st


def load_position_file(path: str | Path, seed: int = 0):
    """Read a position file; errors name the file."""
    obj = read_json(path, what="position file")
    return position_to_state(obj, seed=seed, source=str(path), reachable=True)


def read_json(path: str | Path, what: str = "file") -> Any:
    """Read a JSON file strictly and within bounds (:mod:`kwsearch.jsonload`); errors name the file."""
    from .jsonload import load_json_file
    return load_json_file(path, what=what)


def _decode(obj: Any, components: Components | None, seed: int, reachable: bool = False):
    """The state a position object describes and its problems: ``(state, [])`` or ``(None, problems)``.

    One section of the format after another (docs/formats.md, "Fields"), each helper checking
    and decoding its part into ``st`` and reporting to the shared checker; the later sections
    check what the earlier ones decoded (the pending decision, the race, the workers, the tiles).
    """
    if not isinstance(obj, Mapping):
        return None, [("$", f"expected a JSON object, got {type(obj).__name__}")]
    ck = _Checker()
    game = _decode_game(ck, obj, components)
    if game is None:
        return None, ck.problems
    st = State.blank(game)
    card = _card_reader(ck, game.components)
    _decode_round(ck, obj, st)
    offered = _decode_start_tiles(ck, obj, st)
    owned, supply_given = _decode_seats(ck, obj, st, card, offered)
    _decode_research(ck, obj, st, card, owned, seed)
    _decode_chain(ck, obj, st)
    _decode_buyers(ck, obj, st)
    used_prices = _decode_market(ck, obj, st)
    prices_given = _decode_prices(ck, obj, st, used_prices)
    _decode_awards(ck, obj, st)
    _decode_turn(ck, obj, st)
    _settle_prices(ck, st, used_prices, prices_given)
    _decode_pending(ck, obj, st)
    _check_pending(ck, st)
    _check_race(ck, st)
    _settle_workers(ck, st, supply_given)
    if reachable:
        _check_awards(ck, st)
    _decode_supply(ck, obj, st)

    if ck.problems:
        return None, ck.problems
    # Settle: compute the pending decision's options (a no-op for a saved state).
    try:
        legal = st.settle()
    except (IndexError, KeyError, ValueError, StopIteration) as exc:
        return None, [("$.pending", f"the pending decision cannot be carried out in this position ({exc!r})")]
    if st.phase != "over" and not legal:
        return None, [("$.pending", "the pending decision has no legal option")]
    return st, []


# --- set-up: format, players, V6, components --------------------------------

def _decode_game(ck: _Checker, obj: Mapping, components: Components | None) -> Game | None:
    """The game a position is of (None, with the problem reported, where there is none)."""
    fmt = obj.get("format")
    ck.keys(obj, "$", _KEYS["$"])
    if fmt != POSITION_FORMAT:
        ck.err("$.format", f"expected {POSITION_FORMAT!r}, got {_show(fmt)}")
    n = obj.get("players")
    if isinstance(n, bool) or n not in (2, 3, 4):
        ck.err("$.players", f"expected 2, 3 or 4, got {_show(n)}")
        return None
    v6 = ck.bool(obj.get("v6", _MISSING), "$.v6")
    comp = components
    if comp is None:
        raw = obj.get("components")
        if raw is None:
            comp = default_components()
        else:
            try:
                comp = components_from_dict(raw)
            except ComponentError as exc:
                ck.err("$.components", str(exc))
                return None
    try:
        return Game(n, comp, v6=v6)
    except ComponentError as exc:
        ck.err("$.v6", str(exc))
        return None


def _card_reader(ck: _Checker, c: Components):
    """``card(value, path, kind=None)``: the card type a name stands for, or None (reported)."""
    names = {ct.name.lower(): ct for ct in c.card_types}

    def card(value: Any, path: str, kind: str | None = None) -> int | None:
        ct = names.get(value.lower()) if isinstance(value, str) else None
        if ct is None:
            ck.err(path, f"unknown research card {_show(value)}")
            return None
        if kind and ct.kind != kind:
            ck.err(path, f"{ct.name} is a {ct.kind} card, expected a {kind}")
            return None
        return ct.index
    return card


def _decode_round(ck: _Checker, obj: Mapping, st) -> None:
    st.round = ck.int(obj.get("round", _MISSING), "$.round", 1, st.game.components.rounds, default=1)
    phase = obj.get("phase")
    if phase not in PHASES:
        ck.err("$.phase", f"expected one of {', '.join(PHASES)}, got {_show(phase)}")
        phase = "action"
    st.phase = phase


# --- start tiles -------------------------------------------------------------

def _start_names(c: Components) -> dict[str, int]:
    return {t.name.lower(): t.index for t in c.start_tiles}


def _decode_start_tiles(ck: _Checker, obj: Mapping, st) -> list[int]:
    """The start tiles offered (``st.offered``, sorted); returns them in the order given."""
    c, n = st.game.components, st.game.num_players
    start_names = _start_names(c)
    offered_raw = obj.get("start_tiles_offered", [t.name for t in c.start_tiles][:c.start_tiles_offered[n]])
    offered = []
    for i, v in enumerate(ck.list(offered_raw, "$.start_tiles_offered")):
        t = start_names.get(v.lower()) if isinstance(v, str) else None
        if t is None or t in offered:
            ck.err(f"$.start_tiles_offered[{i}]", f"unknown or repeated start tile {_show(v)}")
        else:
            offered.append(t)
    if len(offered) != c.start_tiles_offered[n]:
        ck.err("$.start_tiles_offered", f"expected {c.start_tiles_offered[n]} start tiles for {n} players, "
                                        f"got {len(offered)}")
    st.offered = sorted(offered)
    return offered


# --- seats -------------------------------------------------------------------

def _decode_seats(ck: _Checker, obj: Mapping, st, card, offered: list[int]
                  ) -> tuple[Counter, list[int | None]]:
    """Every seat's mat; returns the research cards the seats own (by type) and each seat's
    worker supply as given (None where left out, to be derived)."""
    c, n = st.game.components, st.game.num_players
    seats_raw = ck.list(ck.obj(obj, "seats", "$"), "$.seats")
    if len(seats_raw) != n:
        ck.err("$.seats", f"expected {n} seats for players={n}, got {len(seats_raw)}")
    owned = Counter()
    supply_given: list[int | None] = []
    taken_start: dict[int, int] = {}
    start_names = _start_names(c)
    for si, sraw in enumerate(seats_raw[:n]):
        p = f"$.seats[{si}]"
        sr = ck.mapping(sraw, p)
        ck.keys(sr, p, _KEYS["seat"])
        s = st.seats[si]
        supply_given.append(_decode_mat(ck, sr, p, s, c))
        stn = ck.obj(sr, "start_tile", p, None)
        if stn is not None:
            t = start_names.get(stn.lower()) if isinstance(stn, str) else None
            if t is None:
                ck.err(f"{p}.start_tile", f"unknown start tile {_show(stn)}")
            elif t not in offered:
                ck.err(f"{p}.start_tile", f"start tile {stn} was not offered")
            elif t in taken_start:
                ck.err(f"{p}.start_tile", f"start tile {stn} is also seat {taken_start[t]}'s")
            else:
                taken_start[t] = si
                s.start_tile = t
        _decode_seat_cards(ck, sr, p, s, c, card, owned)
        _decode_markers(ck, sr, p, s, c)
    return owned, supply_given


def _decode_mat(ck: _Checker, sr: Mapping, p: str, s, c: Components) -> int | None:
    """A seat's money, workers, workshops, Grand Prix engine and car; returns its worker supply
    as given (None where left out)."""
    s.money = ck.int(ck.obj(sr, "money", p), f"{p}.money", 0, MAX_MONEY)
    sup = ck.obj(sr, "supply", p, _MISSING)
    given = None if sup is _MISSING else ck.int(sup, f"{p}.supply", 0, c.workers_per_player)
    s.canteen = ck.int(ck.obj(sr, "canteen", p), f"{p}.canteen", 0, c.workers_per_player)
    s.workshops = []
    ws = ck.list(ck.obj(sr, "workshops", p), f"{p}.workshops")
    if len(ws) > 3:
        ck.err(f"{p}.workshops", f"a mat has 3 workshops, got {len(ws)} tiles")
    for wi, w in enumerate(ws):
        code = _parse_tile(w)
        if code is None:
            ck.err(f"{p}.workshops[{wi}]", f"expected \"body V\" or \"engine V\" (or \"BV\" / \"EV\" as the "
                                           f"board shows them) with V in 1..{MAX_TILE_VALUE}, got {_show(w)}")
        else:
            s.workshops.append(code)
    s.workshops.sort()
    s.gp_engine = ck.int(ck.obj(sr, "gp_engine", p, 1), f"{p}.gp_engine", 1, MAX_TILE_VALUE, 1)
    # An engine above 1 is always a tile; a value-1 tile may cover the printed 1 (RULES.md §4.1).
    gp_tile = ck.obj(sr, "gp_engine_tile", p, False)
    if not isinstance(gp_tile, bool):
        ck.err(f"{p}.gp_engine_tile", f"expected true or false, got {json.dumps(gp_tile)}")
        gp_tile = False
    s.gp_tile = gp_tile or s.gp_engine > 1
    s.laps = ck.int(ck.obj(sr, "laps", p, 0), f"{p}.laps", 0, MAX_LAPS)
    s.space = ck.int(ck.obj(sr, "space", p, 0), f"{p}.space", 0, c.gp_lap_length)
    if s.laps > 0 and s.space == 0:
        ck.err(f"{p}.laps", "a car in the pit lane (space 0) has completed no lap")
    return given


def _decode_seat_cards(ck: _Checker, sr: Mapping, p: str, s, c: Components, card, owned: Counter) -> None:
    """A seat's developments (active and inactive) and engineers, counted into ``owned``."""
    for key, dst in (("developments", s.dev_active), ("inactive", s.dev_inactive)):
        for di, d in enumerate(ck.list(ck.obj(sr, key, p, []), f"{p}.{key}")):
            t = card(d, f"{p}.{key}[{di}]", "development")
            if t is not None:
                dst.append(t)
                owned[t] += 1
        dst.sort()  # developments are kept sorted by card type
    engs = ck.list(ck.obj(sr, "engineers", p, []), f"{p}.engineers")
    for ei, e in enumerate(engs):
        t = card(e, f"{p}.engineers[{ei}]", "engineer")
        if t is not None:
            bit = 1 << ENGINEERS.index(c.card_types[t].engineer)
            if s.engineers & bit:
                ck.err(f"{p}.engineers[{ei}]", f"{e} listed twice")
            s.engineers |= bit
            owned[t] += 1


def _decode_markers(ck: _Checker, sr: Mapping, p: str, s, c: Components) -> None:
    """A seat's engineers' markers (all of an owned engineer's where left out)."""
    mk = ck.mapping(ck.obj(sr, "markers", p, _MISSING), f"{p}.markers")
    ck.keys(mk, f"{p}.markers", _KEYS["markers"])
    full = {"maybach": list(c.maybach_markers), "horch": list(c.horch_markers),
            "daimler": list(c.daimler_markers)}
    for eng, allowed in full.items():
        has = s.has(eng)
        vals = mk.get(eng, list(allowed) if has else [])
        vals = ck.list(vals, f"{p}.markers.{eng}")
        good = []
        for vi, v in enumerate(vals):
            if v not in allowed or v in good or not has:
                why = "its engineer is not owned" if not has else f"expected values from {allowed}, once each"
                ck.err(f"{p}.markers.{eng}[{vi}]", f"marker {_show(v)}: {why}")
            else:
                good.append(v)
        setattr(s, eng, sorted(good))
    for eng, total in (("diesel", c.diesel_markers), ("benz", c.benz_markers)):
        has = s.has(eng)
        v = ck.int(mk.get(eng, total if has else 0), f"{p}.markers.{eng}", 0, total if has else 0)
        setattr(s, eng, v)


# --- research cards ------------------------------------------------------------

def _decode_research(ck: _Checker, obj: Mapping, st, card, owned: Counter, seed: int) -> None:
    """The face-up and discarded cards, the undrawn ones and the deck's order (``hidden``, else
    shuffled with ``seed``)."""
    c = st.game.components
    res = ck.mapping(obj.get("research", _MISSING), "$.research")
    ck.keys(res, "$.research", _KEYS["research"])
    for key in ("display", "discard"):
        dst = []
        for i, v in enumerate(ck.list(ck.obj(res, key, "$.research", []), f"$.research.{key}")):
            t = card(v, f"$.research.{key}[{i}]")
            if t is not None:
                dst.append(t)
        setattr(st, key, dst)
    if len(st.display) > 2:
        ck.err("$.research.display", f"at most 2 cards are face up, got {len(st.display)}")
    seen = owned + Counter(st.display) + Counter(st.discard)
    undrawn = _decode_undrawn(ck, res, c, card, seen)
    for ct in c.card_types:
        total = seen[ct.index] + undrawn[ct.index]
        if total != ct.count:
            where = "owned, face up, discarded and undrawn together"
            if total > ct.count:
                ck.err("$.research", f"card {ct.name} appears {total} times ({where}); the game has {ct.count}")
            else:
                ck.err("$.research", f"card {ct.name} appears {total} times ({where}); the game has {ct.count} "
                                     "(missing cards)")
    _decode_deck(ck, obj, st, card, undrawn, seed)


def _decode_undrawn(ck: _Checker, res: Mapping, c: Components, card, seen: Counter) -> Counter:
    """``research.undrawn`` by card type (derived from the cards ``seen`` where left out)."""
    undrawn_raw = res.get("undrawn", _MISSING)
    undrawn: Counter = Counter()
    if undrawn_raw is _MISSING:
        for ct in c.card_types:
            left = ct.count - seen[ct.index]
            if left > 0:
                undrawn[ct.index] = left
    else:
        for k, v in ck.mapping(undrawn_raw, "$.research.undrawn").items():
            t = card(k, key_path("$.research.undrawn", k))
            # bounded by the game's count before use: a count of 10^8 would build a deck of 10^8 cards
            cnt = ck.int(v, key_path("$.research.undrawn", k), 0, c.card_types[t].count if t is not None else None)
            if t is not None:
                undrawn[t] += cnt
    return undrawn


def _decode_deck(ck: _Checker, obj: Mapping, st, card, undrawn: Counter, seed: int) -> None:
    """``st.deck`` and ``st.rng``: as ``hidden`` gives them, else the undrawn cards shuffled with ``seed``."""
    hidden = obj.get("hidden", _MISSING)
    deck: list[int] = []
    if hidden is not _MISSING:
        hd = ck.mapping(hidden, "$.hidden")
        ck.keys(hd, "$.hidden", _KEYS["hidden"])
        for i, v in enumerate(ck.list(hd.get("deck", []), "$.hidden.deck")):
            t = card(v, f"$.hidden.deck[{i}]")
            if t is not None:
                deck.append(t)
        if Counter(deck) != undrawn:
            ck.err("$.hidden.deck", "the deck order must be a permutation of the undrawn cards")
        st.rng = _parse_rng(ck, hd.get("rng", "0"))
    else:
        deck = sorted(undrawn.elements())
        st.rng = rng_shuffle(seed_to_rng(seed), deck)
    st.deck = deck


# --- chain -------------------------------------------------------------------

def _decode_chain(ck: _Checker, obj: Mapping, st) -> None:
    """The chain of workers and action tiles (and, in V6, the specialty tiles)."""
    game = st.game
    c, n = game.components, game.num_players
    chain = []
    for i, v in enumerate(ck.list(ck.obj(obj, "chain", "$"), "$.chain")):
        e = parse_chain(v, n, c, game.v6)
        if e is None:
            special = ' or "special X" (a specialty tile)' if game.v6 else ""
            ck.err(f"$.chain[{i}]", f"expected \"seat S\" (S in 0..{n - 1}) or \"tile T\" "
                                    f"(T in 0..{len(c.action_tiles) - 1}){special}, got {_show(v)}")
        else:
            chain.append(e)
    specials = [e for e in chain if e >= SPECIAL]
    want = sorted(list(range(len(c.action_tiles))) + [SEAT + s for s in range(n)])
    if sorted(e for e in chain if e < SPECIAL) != want:
        ck.err("$.chain", f"the chain must hold each of the {len(c.action_tiles)} action tiles and each of the "
                          f"{n} seats exactly once")
    if game.v6 and len(specials) != 1:
        ck.err("$.chain", f"a V6 chain holds exactly one specialty tile (\"special X\"), got {len(specials)}")
    for e in specials:
        t = c.specialty_tiles[e - SPECIAL]
        if t.stack > st.round - 1:
            ck.err("$.chain", f"specialty tile {t.name} of stack {t.stack_name} cannot be in play in round {st.round}")
    st.chain = chain
    if game.v6:
        _decode_specialty(ck, obj, st, specials)


# --- buyers, market, prices ------------------------------------------------------

def _decode_buyers(ck: _Checker, obj: Mapping, st) -> None:
    """The active buyers, the buyer stacks, the white cubes and the buyer track."""
    game = st.game
    c = game.components
    by = ck.mapping(obj.get("buyers", _MISSING), "$.buyers")
    ck.keys(by, "$.buyers", _KEYS["buyers"])
    stacks = ck.mapping(by.get("stacks"), "$.buyers.stacks") if "stacks" in by else None
    ck.keys(stacks, "$.buyers.stacks", PREFERENCES)
    for i, v in enumerate(ck.list(by.get("active", []), "$.buyers.active")):
        path = f"$.buyers.active[{i}]"
        a = ck.mapping(v, path)
        ck.keys(a, path, _KEYS["active"])
        pref = a.get("preference")
        if pref not in PREFERENCES:
            ck.err(f"{path}.preference", f"expected one of {', '.join(PREFERENCES)}, got {_show(pref)}")
            continue
        d = ck.int(a.get("daimler", 0), f"{path}.daimler", 0)
        if d and d not in c.daimler_markers:
            ck.err(f"{path}.daimler", f"expected 0 or a Daimler marker {list(c.daimler_markers)}, got {d}")
        st.active.append(PREFERENCES.index(pref))
        st.active_daimler.append(d)
    if len(st.active) > game.buyer_spaces + c.benz_markers:
        ck.err("$.buyers.active", f"at most {game.buyer_spaces} active buyers (+ Benz's fifth), got {len(st.active)}")
    for i, pref in enumerate(PREFERENCES):
        left = c.buyers_per_preference - st.active.count(i)
        if stacks is not None:
            v = ck.int(stacks.get(pref, _MISSING), f"$.buyers.stacks.{pref}", 0, c.buyers_per_preference, left)
            if v != left:
                ck.err(f"$.buyers.stacks.{pref}", f"{v} in the stack plus {st.active.count(i)} active is not "
                                                  f"the game's {c.buyers_per_preference} {pref} buyers")
            st.stacks[i] = v
        else:
            if left < 0:
                ck.err("$.buyers.active", f"more than {c.buyers_per_preference} active {pref} buyers")
            st.stacks[i] = max(0, left)
    white = ck.mapping(by.get("white", {}), "$.buyers.white")
    ck.keys(white, "$.buyers.white", PREFERENCES)
    st.white = [ck.int(white.get(p, 0), f"$.buyers.white.{p}", 0, MAX_WHITE) for p in PREFERENCES]
    st.track = ck.int(by.get("track", game.track_start), "$.buyers.track", 0, game.track_start, game.track_start)


def _decode_market(ck: _Checker, obj: Mapping, st) -> list[int]:
    """The cars on the market; returns the price markers on them."""
    game = st.game
    c, n = game.components, game.num_players
    series = c.price_markers[st.round - 1]
    used_prices = []
    st.market = []
    market_raw = ck.list(obj.get("market", []), "$.market")
    if len(market_raw) > game.market_size:
        ck.err("$.market", f"the market holds {game.market_size} cars with {n} players, got {len(market_raw)}")
    for i, v in enumerate(market_raw):
        path = f"$.market[{i}]"
        m = ck.mapping(v, path)
        ck.keys(m, path, _KEYS["market"])
        owner = ck.int(ck.obj(m, "owner", path), f"{path}.owner", 0, n - 1)
        body = ck.int(ck.obj(m, "body", path), f"{path}.body", 1, MAX_TILE_VALUE, 1)
        engine = ck.int(ck.obj(m, "engine", path), f"{path}.engine", 1, MAX_TILE_VALUE, 1)
        workers = ck.int(ck.obj(m, "workers", path), f"{path}.workers", 1, c.workers_per_player, 1)
        price = ck.int(ck.obj(m, "price", path), f"{path}.price", 0)
        if "price" in m and price not in series:
            ck.err(f"{path}.price", f"{price} is not a price marker of round {st.round} {list(series)}")
        elif price in used_prices:
            ck.err(f"{path}.price", f"price marker {price} is on two cars")
        used_prices.append(price)
        bb = ck.int(m.get("body_bonus", 0), f"{path}.body_bonus", 0)
        eb = ck.int(m.get("engine_bonus", 0), f"{path}.engine_bonus", 0)
        if bb and bb not in c.maybach_markers:
            ck.err(f"{path}.body_bonus", f"expected 0 or a Maybach marker {list(c.maybach_markers)}")
        if eb and eb not in c.horch_markers:
            ck.err(f"{path}.engine_bonus", f"expected 0 or a Horch marker {list(c.horch_markers)}")
        st.market.append([owner, body, engine, workers, price, bb, eb])
    return used_prices


def _decode_prices(ck: _Checker, obj: Mapping, st, used_prices: list[int]) -> bool:
    """The price markers not on a car, where given (returns whether they are; else derived later)."""
    prices_raw = obj.get("prices", _MISSING)
    if prices_raw is _MISSING:
        return False
    series = st.game.components.price_markers[st.round - 1]
    st.prices = []
    for i, v in enumerate(ck.list(prices_raw, "$.prices")):
        pv = ck.int(v, f"$.prices[{i}]", 0)
        if pv not in series:
            ck.err(f"$.prices[{i}]", f"{pv} is not a price marker of round {st.round} {list(series)}")
        elif pv in used_prices or pv in st.prices:
            ck.err(f"$.prices[{i}]", f"price marker {pv} is already on a car or listed twice")
        else:
            st.prices.append(pv)
    st.prices.sort()
    return True


def _settle_prices(ck: _Checker, st, used_prices: list[int], given: bool) -> None:
    """Derive the free price markers where not given: the round's markers not on a car (nor on the
    car being built); where given, none may be the car being built's."""
    car_price = st.car[3] if len(st.car) >= 4 else None
    if not given:
        series = st.game.components.price_markers[st.round - 1]
        st.prices = [p for p in series if p not in used_prices and p != car_price] \
            if st.phase in ("setup", "action") else []
    elif car_price is not None and car_price in st.prices:
        ck.err("$.prices", f"price marker {car_price} is on the car under construction ($.turn.car[3])")


# --- awards, turn, pending decision ----------------------------------------------

def _decode_awards(ck: _Checker, obj: Mapping, st) -> None:
    n = st.game.num_players
    aw = ck.mapping(obj.get("awards", {}), "$.awards")
    for k, v in aw.items():
        if k not in AWARDS:
            ck.err(key_path("$.awards", k), f"unknown award (expected one of {', '.join(AWARDS)})")
        elif v is not None:
            st.awards[AWARDS.index(k)] = ck.int(v, f"$.awards.{k}", 0, n - 1, -1)


def _decode_turn(ck: _Checker, obj: Mapping, st) -> None:
    """The turn in progress: its seat, the actions left, the marker and the car under construction."""
    turn = obj.get("turn")
    if turn is None:
        return
    c, n = st.game.components, st.game.num_players
    tr = ck.mapping(turn, "$.turn")
    ck.keys(tr, "$.turn", _KEYS["turn"])
    st.turn_seat = ck.int(tr.get("seat", 0), "$.turn.seat", 0, n - 1, 0)
    rem = ck.list(tr.get("remaining", []), "$.turn.remaining")
    for i, r in enumerate(rem):
        if r not in ALL_ACTIONS:
            ck.err(f"$.turn.remaining[{i}]", f"unknown action {_show(r)}")
    st.remaining = sorted((r for r in rem if r in ALL_ACTIONS), key=ALL_ACTIONS.index)
    st.marker_placed = ck.bool(tr.get("marker_placed", False), "$.turn.marker_placed")
    car_raw = ck.list(tr.get("car", []), "$.turn.car")
    if len(car_raw) > 4:
        ck.err("$.turn.car", "a car under construction has at most body, engine, workers and price")
    # Each part range-checked before an engine sees it (a body 8 would crash one engine, a body 0
    # make the two disagree): body and engine a tile value, workers 1..workers, price a marker of the round.
    car_bounds = ((1, MAX_TILE_VALUE, "body"), (1, MAX_TILE_VALUE, "engine"),
                  (1, c.workers_per_player, "workers"), (1, MAX_PRICE, "price"))
    st.car = [ck.int(v, f"$.turn.car[{i}]", lo, hi, lo)
              for i, (v, (lo, hi, _)) in enumerate(zip(car_raw[:4], car_bounds))]
    if len(st.car) == 4 and st.car[3] not in c.price_markers[st.round - 1]:
        ck.err("$.turn.car[3]", f"price {st.car[3]} is not a price marker of round {st.round} "
                                f"{list(c.price_markers[st.round - 1])}")


def _decode_pending(ck: _Checker, obj: Mapping, st) -> None:
    """The stack of pending tasks (derived from the phase where left out)."""
    c, n = st.game.components, st.game.num_players
    pending = obj.get("pending", _MISSING)
    if pending is _MISSING:
        st.tasks = _default_tasks(st)
        return
    st.tasks = []
    for i, t in enumerate(ck.list(pending, "$.pending")):
        if (not isinstance(t, list) or len(t) != 2 or t[0] not in TASKS
                or isinstance(t[1], bool) or not isinstance(t[1], int)):
            ck.err(f"$.pending[{i}]", f"expected [task, integer] with a task from game.TASKS, got {_show(t)}")
        else:
            bounds = _task_arg_bounds(t[0], n, c)
            if bounds is not None and t[1] not in bounds:
                ck.err(f"$.pending[{i}]", f"task {t[0]!r} takes an argument in {_ranges_text(bounds)}, "
                                          f"got {t[1]}")
            st.tasks.append([t[0], t[1]])


def _check_pending(ck: _Checker, st) -> None:
    """The pending decision against the phase, the chain, the car under construction and the start tiles."""
    if st.phase != "over" and not st.tasks:
        ck.err("$.pending", "a game that is not over needs a pending decision")
    if st.phase == "over" and st.tasks:
        ck.err("$.pending", "a finished game has no pending decision")
    if st.tasks and st.tasks[-1][0] == "turn" and st.chain and st.chain[0] < SEAT:
        ck.err("$.chain", "at the start of a turn the tail of the chain must be a worker (\"seat S\")")
    _check_task_stack(ck, st)
    car_parts = {"market_engine": 1, "market_workers": 2, "market_price": 3, "market_marker": 4}
    top = st.tasks[-1][0] if st.tasks else None
    if len(st.car) != car_parts.get(top, 0):
        ck.err("$.turn.car", f"with the pending task {top!r} the car under construction has "
                             f"{car_parts.get(top, 0)} parts (body, engine, workers, price), got {len(st.car)}")
    if top == "diesel_change" and not any(car[4] == st.tasks[-1][1] and car[0] == st.turn_seat
                                          for car in st.market):
        ck.err("$.pending", f"Diesel changes a car of the seat in turn, but it has no car with price "
                            f"{st.tasks[-1][1]} on the market")
    for si, s in enumerate(st.seats):
        pend = st.phase == "setup" and (any(t == ["setup", si] for t in st.tasks)
                                        or (st.turn_seat == si and s.start_tile >= 0))
        if s.start_tile < 0 and not pend:
            ck.err(f"$.seats[{si}].start_tile", "missing: after set-up every seat has a start tile")


# --- race, workers, tiles ---------------------------------------------------------

def _check_race(ck: _Checker, st) -> None:
    """No two cars (nor a car and a neutral car) on one space of the Grand Prix track."""
    spaces = Counter(s.space for s in st.seats if s.space > 0)
    for si, s in enumerate(st.seats):
        if s.space > 0 and (spaces[s.space] > 1 or s.space in st.game.neutral_cars):
            ck.err(f"$.seats[{si}].space", f"space {s.space} is occupied by another car")


def _settle_workers(ck: _Checker, st, supply_given: list[int | None]) -> None:
    """Each seat's worker supply: derived where left out, else checked against the workers in play."""
    c = st.game.components
    for si, s in enumerate(st.seats):
        on_market = sum(car[3] for car in st.market if car[0] == si)
        in_car = st.car[2] if st.turn_seat == si and len(st.car) >= 3 else 0
        fixed = s.canteen + len(s.dev_active) + on_market + in_car + 2
        given = supply_given[si] if si < len(supply_given) else None
        if given is None:
            s.supply = c.workers_per_player - fixed
            if s.supply < 0:
                ck.err(f"$.seats[{si}]", f"{fixed} workers are in play, the game gives {c.workers_per_player}")
                s.supply = 0
        else:
            s.supply = given
            if given + fixed != c.workers_per_player:
                ck.err(f"$.seats[{si}].supply",
                       f"{given + fixed} workers in total (supply {given}, canteen {s.canteen}, on developments "
                       f"{len(s.dev_active)}, on the market {on_market + in_car}, track marker and lap counter 2); "
                       f"each seat has {c.workers_per_player}")


def _decode_supply(ck: _Checker, obj: Mapping, st) -> None:
    """The body and engine tiles in the supply: derived from the tiles in play where left out, else checked."""
    c = st.game.components
    in_play_body, in_play_engine = tiles_in_play(st)
    sup = obj.get("supply", _MISSING)
    ck.keys(sup, "$.supply", _KEYS["supply"])
    for kind, totals, in_play in (("body", c.body_tiles, in_play_body), ("engine", c.engine_tiles, in_play_engine)):
        derived = [totals[v - 1] - in_play[v] for v in range(1, MAX_TILE_VALUE + 1)]
        for v in range(1, MAX_TILE_VALUE + 1):
            if derived[v - 1] < 0:
                ck.err(f"$.supply.{kind}", f"{in_play[v]} {kind} tiles of value {v} are in play; "
                                           f"the game has {totals[v - 1]}")
        if sup is _MISSING:
            vals = [max(0, d) for d in derived]
        else:
            given_list = ck.list(ck.mapping(sup, "$.supply").get(kind, _MISSING), f"$.supply.{kind}")
            if len(given_list) != MAX_TILE_VALUE:
                ck.err(f"$.supply.{kind}", f"expected {MAX_TILE_VALUE} counts (values 1..7), got {len(given_list)}")
                vals = [max(0, d) for d in derived]
            else:
                vals = [ck.int(x, f"$.supply.{kind}[{i}]", 0) for i, x in enumerate(given_list)]
                for v in range(1, MAX_TILE_VALUE + 1):
                    if vals[v - 1] != derived[v - 1] and derived[v - 1] >= 0:
                        ck.err(f"$.supply.{kind}[{v - 1}]",
                               f"{vals[v - 1]} {kind} tiles of value {v} in the supply, but {in_play[v]} are in play "
                               f"of the game's {totals[v - 1]} (expected {derived[v - 1]})")
        if kind == "body":
            st.supply_body = vals
        else:
            st.supply_engine = vals


def _parse_rng(ck: "_Checker", value: Any) -> int:
    """``hidden.rng``: the 64-bit generator state as 1 to 16 hex digits (so it lies in [0, 2^64))."""
    if not isinstance(value, str) or not re.fullmatch(r"[0-9a-fA-F]{1,16}", value):
        ck.err("$.hidden.rng", f"expected a string of 1 to 16 hexadecimal digits (the 64-bit generator "
                               f"state), got {_show(value)}")
        return 0
    return int(value, 16)


def _check_awards(ck: "_Checker", st) -> None:
    """States no game reaches: an award the engine gives at once (RULES.md §9) still free
    although its condition holds, or a higher award taken while the lower one it comes after is
    free (gp2 before gp1, body6 before body3, engine7 before engine4). An engine would play on
    from such a state as if it were real."""
    def free(name: str) -> bool:
        return st.awards[AWARDS.index(name)] < 0

    def need(path: str, name: str, why: str) -> None:
        if free(name):
            ck.err(path, f"{why}, but the award {name} is free: the engine gives it at once (rules §9: kwsearch rules 9); "
                         f"give \"awards\": {{\"{name}\": SEAT}}")

    for si, s in enumerate(st.seats):
        p = f"$.seats[{si}]"
        if s.laps >= 1:
            need(f"{p}.laps", "gp1", f"{s.laps} lap(s) completed")
        if s.laps >= 2:
            need(f"{p}.laps", "gp2", f"{s.laps} laps completed")
        if bin(s.engineers).count("1") >= 3:
            need(f"{p}.engineers", "engineers", "the seat owns three engineers")
        if sum(1 for car in st.market if car[0] == si) >= 2:
            need("$.market", "market", f"seat {si} has two cars on the market")
        # workshops only: a Diesel change alters a market car's tiles without placing one
        bodies = [w for w in s.workshops if w < ENGINE_CODE]
        engines = [w - ENGINE_CODE for w in s.workshops if w > ENGINE_CODE]
        for name, tiles, v, what in (("body3", bodies, 3, "a body of value 3 or more"),
                                     ("body6", bodies, 6, "a body of value 6 or more"),
                                     ("engine4", engines, 4, "an engine of value 4 or more"),
                                     ("engine7", engines, 7, "an engine of value 7")):
            if any(t >= v for t in tiles):
                need(f"{p}.workshops", name, f"{what} is in a workshop")
    for i, pref in enumerate(PREFERENCES):
        if st.active.count(i) >= 2:
            need("$.buyers.active", "buyer", f"two {pref} buyers are active")
    # The order of the awards (RULES.md §7, §9), which holds whatever the seats have now (lap
    # counters go back to 0 and workshops are emptied at scoring): a car completes its second lap
    # after its first, and so takes gp2 only after gp1 was taken, by it or by another car; a body
    # of 6 or more (an engine of 7) qualifies for body3 (engine4) too, and the engine gives both
    # when both are free.
    for higher, lower, why in (("gp2", "gp1", "a car completes its first lap before its second"),
                               ("body6", "body3", "a body of value 6 or more qualifies for body3 too"),
                               ("engine7", "engine4", "an engine of value 7 qualifies for engine4 too")):
        if not free(higher) and free(lower):
            ck.err(f"$.awards.{lower}", f"the award {higher} is taken (seat {st.awards[AWARDS.index(higher)]}) "
                                        f"but {lower} is free, which no game reaches: {why} (rules §9: kwsearch rules 9); "
                                        f"give \"awards\": {{\"{lower}\": SEAT}}")


_OUTSIDE_TURN = ("setup", "turn", "benz", "race", "sales", "round_end")
_TOP_ONLY = ("market_engine", "market_workers", "market_price", "market_marker", "diesel_change", "sell", "remove",
             "card_order", "special_order")
_ONCE = ("turn", "tile", "market", "daimler", "diesel", "end_turn", "race", "sales", "round_end", "special",
         "special_order")
_V6_TASKS = ("special", "sell", "remove", "special_order")


def _check_task_stack(ck: "_Checker", st) -> None:
    """The shape of a pending task stack as the engine builds it (problems go to ``ck``)."""
    kinds = [k for k, _ in st.tasks]
    for i, k in enumerate(kinds):
        path = f"$.pending[{i}]"
        if k == "turn" and i != 0:
            ck.err(path, "\"turn\" can only be the bottom task")
        if k in _TOP_ONLY and i != len(kinds) - 1:
            ck.err(path, f"{k!r} can only be the top task")
        if k == "setup" and st.phase != "setup":
            ck.err(path, "\"setup\" tasks belong to the set-up phase")
        if k in ("benz", "race", "sales", "round_end") and st.phase != "scoring":
            ck.err(path, f"{k!r} belongs to the scoring phase")
        if k in _V6_TASKS and not st.game.v6:
            ck.err(path, f"{k!r} belongs to the V6 specialty tiles (the position has \"v6\": false)")
        if k not in _OUTSIDE_TURN and st.turn_seat < 0:
            ck.err("$.turn", f"the pending task {k!r} happens inside a turn: give \"turn\" with its seat")
    for k in _ONCE:
        if kinds.count(k) > 1:
            ck.err("$.pending", f"{k!r} appears {kinds.count(k)} times")


def tiles_in_play(st) -> tuple[Counter, Counter]:
    """(body, engine) tiles by value outside the supply: workshops, GP engines above the printed 1,
    market cars, the car being built, and tiles taken but not yet placed (pending tasks)."""
    body: Counter = Counter()
    engine: Counter = Counter()
    for s in st.seats:
        for w in s.workshops:
            if w > ENGINE_CODE:
                engine[w - ENGINE_CODE] += 1
            else:
                body[w] += 1
        if s.gp_tile:  # not the printed 1
            engine[s.gp_engine] += 1
    for car in st.market:
        body[car[1]] += 1
        engine[car[2]] += 1
    if len(st.car) >= 1:
        body[st.car[0]] += 1
    if len(st.car) >= 2:
        engine[st.car[1]] += 1
    for kind, arg in st.tasks:
        if kind == "place":
            if arg > ENGINE_CODE:
                engine[arg - ENGINE_CODE] += 1
            else:
                body[arg] += 1
        elif kind == "engine_dest":
            engine[arg] += 1
    return body, engine


def _task_arg_bounds(kind: str, n: int, c: Components) -> range | list[int] | None:
    """The valid arguments of a pending task (None: any integer is ignored)."""
    values = range(1, MAX_TILE_VALUE + 1)
    table: dict[str, range | list[int]] = {
        "setup": range(n), "benz": range(n),
        "hire": range(0, c.workers_per_player + 1),
        "body": range(0, MAX_TILE_VALUE + 1), "engine": range(0, MAX_TILE_VALUE + 1),
        "engine_dest": values, "gp_engine": values,
        "place": [tile_code("body", v) for v in values] + [tile_code("engine", v) for v in values],
        "gp": range(0, 4 * c.gp_lap_length), "gp_start": range(1, c.gp_lap_length + 1),
        "diesel_change": sorted({p for series in c.price_markers for p in series}),
        "special": range(len(c.specialty_tiles)), "remove": range(0, 100),
        "special_order": range(len(c.specialty_tiles)),
    }
    return table.get(kind, range(0, 1))


def _ranges_text(bounds: range | list[int]) -> str:
    if isinstance(bounds, range):
        return f"{bounds.start}..{bounds.stop - 1}"
    return "{" + ", ".join(map(str, bounds)) + "}"


def _default_tasks(st) -> list[list]:
    """The pending tasks of a position at a decision boundary (hand-written files)."""
    if st.phase == "over":
        return []
    if st.phase == "scoring":
        tasks = [["round_end", 0], ["sales", 0], ["race", 0]]
        tasks += [["benz", i] for i, s in enumerate(st.seats) if s.benz > 0]
        return tasks
    tasks = [["turn", 0]]
    if st.phase == "setup":
        tasks += [["setup", i] for i, s in enumerate(st.seats) if s.start_tile < 0]
    return tasks


def _parse_tile(v: Any) -> int | None:
    """A workshop tile: ``"body V"`` / ``"engine V"``, or as the board prints it, ``"BV"`` / ``"EV"``."""
    if not isinstance(v, str):
        return None
    m = re.fullmatch(r"\s*([bBeE])([1-9])\s*", v)
    if m:
        val = int(m.group(2))
        return tile_code("body" if m.group(1) in "bB" else "engine", val) if val <= MAX_TILE_VALUE else None
    parts = v.strip().lower().split()
    if len(parts) != 2 or parts[0] not in ("body", "engine") or not parts[1].isdigit():
        return None
    val = int(parts[1])
    if not 1 <= val <= MAX_TILE_VALUE:
        return None
    return tile_code(parts[0], val)


def parse_chain(v: Any, n: int, c: Components, v6: bool = False) -> int | None:
    """The chain entry ``"seat S"``, ``"tile T"`` or (V6) ``"special X"`` names, or None."""
    if not isinstance(v, str):
        return None
    parts = v.strip().lower().split()
    if len(parts) != 2:
        return None
    if parts[0] == "special" and v6:
        try:
            return SPECIAL + c.specialty_tile(parts[1]).index
        except KeyError:
            return None
    if not parts[1].isdigit():
        return None
    k = int(parts[1])
    if parts[0] == "seat" and 0 <= k < n:
        return SEAT + k
    if parts[0] == "tile" and 0 <= k < len(c.action_tiles):
        return k
    return None


def _decode_specialty(ck: "_Checker", obj: Mapping[str, Any], st, in_chain: list[int]) -> None:
    """The V6 stacks of a position (``specialty`` and ``hidden.specialty``); problems go to ``ck``.

    Without ``specialty`` every tile not in the chain is undrawn (the state right
    after set-up); without ``hidden.specialty`` the undrawn tiles get an order from
    the position's generator.
    """
    c = st.game.components
    sp = c.specialty_tiles
    nst = st.game.num_stacks
    letters = SPECIALTY_STACKS[:nst]
    where: dict[int, str] = {e - SPECIAL: "$.chain" for e in in_chain}

    def tiles(value: Any, path: str, r: int, what: str) -> list[int]:
        out = []
        for i, name in enumerate(ck.list(value, path)):
            try:
                t = c.specialty_tile(name) if isinstance(name, str) else None
            except KeyError:
                t = None
            if t is None:
                ck.err(f"{path}[{i}]", f"unknown specialty tile {_show(name)} "
                                       f"(expected one of {', '.join(x.name for x in sp)})")
            elif t.stack != r:
                ck.err(f"{path}[{i}]", f"specialty tile {t.name} belongs to stack {t.stack_name}, not {letters[r]}")
            elif t.index in where:
                ck.err(f"{path}[{i}]", f"specialty tile {t.name} is also in {where[t.index]}")
            else:
                where[t.index] = f"{path} ({what})"
                out.append(t.index)
        return out

    raw = obj.get("specialty", _MISSING)
    spec = ck.mapping(raw, "$.specialty")
    for k in spec:
        if k not in ("undrawn", "used"):
            ck.err(key_path("$.specialty", k), "unknown key (expected undrawn, used)")
    used_raw = ck.mapping(spec.get("used", {}), "$.specialty.used")
    undrawn_raw = ck.mapping(spec.get("undrawn"), "$.specialty.undrawn") if "undrawn" in spec else None
    for part, m in (("used", used_raw), ("undrawn", undrawn_raw or {})):
        for k in m:
            if k not in letters:
                ck.err(f"$.specialty.{part}.{k}", f"unknown stack (expected one of {', '.join(letters)})")
    for r, letter in enumerate(letters):
        st.spec_used[r] = tiles(used_raw.get(letter, []), f"$.specialty.used.{letter}", r, "used")
    for r, letter in enumerate(letters):
        if undrawn_raw is None:
            st.spec_undrawn[r] = [t.index for t in c.specialty_stack(r) if t.index not in where]
        else:
            st.spec_undrawn[r] = tiles(undrawn_raw.get(letter, []), f"$.specialty.undrawn.{letter}", r, "undrawn")
    missing = [t.name for t in sp if t.index not in where and (undrawn_raw is not None or t.stack >= nst)]
    if missing:
        ck.err("$.specialty", f"every specialty tile is in the chain, undrawn or used; missing: {', '.join(missing)}")
    hidden = obj.get("hidden", _MISSING)
    hd = ck.mapping(hidden, "$.hidden") if isinstance(hidden, Mapping) else {}
    order = hd.get("specialty", _MISSING)
    if order is not _MISSING:
        om = ck.mapping(order, "$.hidden.specialty")
        ck.keys(om, "$.hidden.specialty", letters)
        for r, letter in enumerate(letters):
            path = f"$.hidden.specialty.{letter}"
            names = ck.list(om.get(letter, []), path)
            idx = []
            for i, name in enumerate(names):
                try:
                    idx.append(c.specialty_tile(name).index if isinstance(name, str) else -1)
                except KeyError:
                    idx.append(-1)
            if sorted(idx) != sorted(st.spec_undrawn[r]):
                ck.err(path, f"the order of stack {letter} must be a permutation of its undrawn tiles "
                             f"{sorted(sp[t].name for t in st.spec_undrawn[r])}, got {_show(names)}")
            else:
                st.spec_undrawn[r] = idx
    else:
        s = st.rng
        for stack in st.spec_undrawn:
            stack.sort()
            s = rng_shuffle(s, stack)
        st.rng = s
