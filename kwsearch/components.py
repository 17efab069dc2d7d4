"""Component data of Kraftwagen (RULES.md §12), declarative and overridable.

Every table the engines read lives here, once. The defaults are the rows of
RULES.md §12; each row's source mark ([book], [assumed], [decision]) is kept in
:data:`MARKS` next to the data so that ``kwsearch`` can tell a user which numbers
are printed in the rulebook and which are our best guess.

A user who owns the physical game corrects the guesses with an override file
(JSON or TOML, schema in ``docs/components.md``)::

    >>> from kwsearch.components import default_components
    >>> c = default_components()
    >>> c.deck_size, c.body_tiles
    (50, (8, 7, 6, 6, 5, 5, 4))

:func:`load_components` reads such a file; :func:`components_from_dict` checks a
mapping. Both raise :class:`~kwsearch.errors.ComponentError` naming the field.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from .errors import ComponentError
from .jsonload import key_path

# ---------------------------------------------------------------------------
# Vocabulary (structure of the game, not tunable data)
# ---------------------------------------------------------------------------

#: Actions printed on action tiles; also the action kinds of start tiles.
ACTIONS = ("hire", "body", "engine", "gp", "research", "buyer")
#: Actions that exist only on start tiles (rulebook 5.2, "special start tiles").
START_ONLY_ACTIONS = ("gp_engine2", "gp_start2")
ALL_ACTIONS = ACTIONS + START_ONLY_ACTIONS

#: Buyer preferences, in the order of the board's stacks.
PREFERENCES = ("body", "engine", "prestige", "price")

#: The nine engineers (rulebook 5.2 / RULES.md §5.3).
ENGINEERS = ("opel", "horch", "benz", "bugatti", "porsche", "daimler", "otto", "diesel", "maybach")

#: Instant-card effects (RULES.md §5.2).
INSTANT_EFFECTS = ("hire", "gp", "body_engine")

#: The ten award tiles (RULES.md §9).
AWARDS = ("gp1", "gp2", "buyer", "market", "body3", "body6", "engine4", "engine7", "worker", "engineers")

#: Bonuses of the V6 specialty tiles (RULES.md §11). ``value`` of a tile entry means:
#: engine / body: the value of the tile taken regardless of research; canteen_money:
#: money per canteen worker; remove_car: money for the removed car; unused otherwise.
SPECIALTY_BONUSES = ("engine", "body", "gp_engine", "canteen_money", "remove_car", "sell_tile",
                     "research_discard")
#: Bonuses whose entry states a ``value``, with its range.
_BONUS_VALUE = {"engine": (1, 7), "body": (1, 7), "canteen_money": (0, 9), "remove_car": (0, 99)}
#: Stack letters of the specialty tiles: stack "A" is used in round 1, "B" in round 2, ...
SPECIALTY_STACKS = "ABCDE"

#: Tile values 1..7 are structural: research points cap at 7 (RULES.md §4.1).
MAX_TILE_VALUE = 7

# Structural limits shared with the fast engine's fixed-size arrays.
MAX_ACTION_TILES = 16
MAX_START_TILES = 8
MAX_CARD_TYPES = 32
MAX_DEV_TYPES = 16
MAX_DECK = 64
MAX_PRICE = 31
MAX_WORKERS = 16
MAX_MARKET = 8
MAX_BUYERS = 5  # active buyers: four spaces and Benz's fifth
MAX_SPECIAL = 16  # V6 specialty tiles

# ---------------------------------------------------------------------------
# Default data (RULES.md §12)
# ---------------------------------------------------------------------------

_DEV = "development"

DEFAULTS: dict[str, Any] = {
    "action_tiles": [
        {"actions": ["hire"]},
        {"actions": ["body"]},
        {"actions": ["engine"]},
        {"actions": ["gp"]},
        {"actions": ["research"]},
        {"actions": ["gp", "buyer"]},
        {"actions": ["research", "buyer"]},
        {"actions": ["hire", "buyer"]},
        {"actions": ["body", "engine"]},
        {"actions": ["body", "engine", "buyer"]},
    ],
    "start_tiles": [
        {"name": "A", "actions": ["hire", "hire", "engine"]},
        {"name": "B", "actions": ["hire", "hire", "body"]},
        {"name": "C", "actions": ["gp_engine2", "hire"]},
        {"name": "D", "actions": ["gp_start2", "research"]},
    ],
    "start_development": {"body": 1, "engine": 1},
    "research_cards": [
        {"name": "hire3", "kind": "instant", "effect": "hire", "amount": 3, "count": 3},
        {"name": "gp5", "kind": "instant", "effect": "gp", "amount": 5, "count": 3},
        {"name": "body+engine", "kind": "instant", "effect": "body_engine", "amount": 1, "count": 3},
        {"name": "dev:body1", "kind": _DEV, "body": 1, "engine": 0, "tile": None, "count": 6},
        {"name": "dev:engine1", "kind": _DEV, "body": 0, "engine": 1, "tile": None, "count": 6},
        {"name": "dev:body1+tile", "kind": _DEV, "body": 1, "engine": 0, "tile": "body", "count": 4},
        {"name": "dev:engine1+tile", "kind": _DEV, "body": 0, "engine": 1, "tile": "engine", "count": 4},
        {"name": "dev:body2", "kind": _DEV, "body": 2, "engine": 0, "tile": None, "count": 4},
        {"name": "dev:engine2", "kind": _DEV, "body": 0, "engine": 2, "tile": None, "count": 4},
        {"name": "dev:body1engine1", "kind": _DEV, "body": 1, "engine": 1, "tile": None, "count": 4},
        {"name": "Opel", "kind": "engineer", "engineer": "opel", "count": 1},
        {"name": "Horch", "kind": "engineer", "engineer": "horch", "count": 1},
        {"name": "Benz", "kind": "engineer", "engineer": "benz", "count": 1},
        {"name": "Bugatti", "kind": "engineer", "engineer": "bugatti", "count": 1},
        {"name": "Porsche", "kind": "engineer", "engineer": "porsche", "count": 1},
        {"name": "Daimler", "kind": "engineer", "engineer": "daimler", "count": 1},
        {"name": "Otto", "kind": "engineer", "engineer": "otto", "count": 1},
        {"name": "Diesel", "kind": "engineer", "engineer": "diesel", "count": 1},
        {"name": "Maybach", "kind": "engineer", "engineer": "maybach", "count": 1},
    ],
    "research_deck_size": 50,
    "body_tiles": [8, 7, 6, 6, 5, 5, 4],
    "engine_tiles": [7, 7, 6, 6, 5, 4, 4],
    "price_markers": [
        [1, 2, 3, 5, 6, 8, 9, 10],
        [2, 3, 5, 6, 8, 9, 11, 12],
        [3, 4, 6, 8, 10, 12, 14, 15],
    ],
    "white_markers": {"body": 2, "engine": 1, "prestige": 1, "price": 1},
    "buyers_per_preference": 2,
    "gp_lap_length": 12,
    "gp_place_money": [7, 4, 2],
    "gp_lap_money": [1, 3, 5, 6, 7],
    "gp_lap_money_extra": 1,
    "gp_start_tile_space": 2,
    "gp_start_tile_engine": 2,
    "neutral_cars_2p": [3, 6],
    "buyer_track_start": {"2": 2, "3": 4, "4": 4},
    "market_size": {"2": 4, "3": 6, "4": 6},
    "active_buyer_spaces": {"2": 3, "3": 4, "4": 4},
    "start_tiles_offered": {"2": 2, "3": 4, "4": 4},
    "awards": {
        "gp1": 3, "gp2": 7, "buyer": 3, "market": 3, "body3": 3, "body6": 7,
        "engine4": 3, "engine7": 7, "worker": 7, "engineers": 7,
    },
    "workers_per_player": 14,
    "canteen_start": 4,
    "price_buyer_multiplier": 2,
    "opel_multiplier": 3,
    "engineer_markers": {"maybach": [1, 2], "horch": [1, 2], "daimler": [2, 4], "diesel": 2, "benz": 1},
    "otto_workers": 2,
    # V6 specialty tiles (RULES.md §11): bonuses [book]; stack and standard action [assumed].
    "specialty_tiles": [
        {"name": "A1", "stack": "A", "action": "research", "bonus": "engine", "value": 3},
        {"name": "A2", "stack": "A", "action": "gp", "bonus": "gp_engine"},
        {"name": "A3", "stack": "A", "action": "hire", "bonus": "canteen_money", "value": 1},
        {"name": "A4", "stack": "A", "action": "buyer", "bonus": "remove_car", "value": 3},
        {"name": "B1", "stack": "B", "action": "research", "bonus": "body", "value": 5},
        {"name": "B2", "stack": "B", "action": "gp", "bonus": "gp_engine"},
        {"name": "B3", "stack": "B", "action": "body", "bonus": "sell_tile"},
        {"name": "B4", "stack": "B", "action": "research", "bonus": "research_discard"},
        {"name": "C1", "stack": "C", "action": "engine", "bonus": "sell_tile"},
        {"name": "C2", "stack": "C", "action": "hire", "bonus": "canteen_money", "value": 1},
        {"name": "C3", "stack": "C", "action": "research", "bonus": "engine", "value": 6},
        {"name": "C4", "stack": "C", "action": "buyer", "bonus": "remove_car", "value": 7},
    ],
}

#: Source of each default row (RULES.md §12).
MARKS: dict[str, str] = {
    "action_tiles": "[assumed] five single tiles from a review; 'grand prix + buyer' is [book] (example), "
                    "the other two-action tiles and the three-action tile are [assumed]",
    "start_tiles": "[book] A (Marion's example) and the existence of 'GP engine 2' / 'GP 2 spaces'; the rest [assumed]",
    "start_development": "[book] one body and one engine point from the start tile's development side",
    "research_cards": "[book] 9 engineers / 9 instants / 32 developments and the kinds; [assumed] the split of counts",
    "research_deck_size": "[book] 50 cards",
    "body_tiles": "[book] total 41; [assumed] split by value",
    "engine_tiles": "[book] total 39; [assumed] split by value",
    "price_markers": "[book] values of the three rounds",
    "white_markers": "[book] 2 next to the body stack, 1 next to the others, each round",
    "buyers_per_preference": "[book] 8 buyer tiles, 2 per preference",
    "gp_lap_length": "[assumed] 12 spaces",
    "gp_place_money": "[book] 7/4/2",
    "gp_lap_money": "[book] 1, 3, 5, 6, 7 and +1 per further lap",
    "gp_lap_money_extra": "[book] +1 per lap beyond the table",
    "gp_start_tile_space": "[book] start tile 'GP car on space 2'",
    "gp_start_tile_engine": "[book] start tile 'GP car engine 2'",
    "neutral_cars_2p": "[book 8.0] spaces 3 and 6",
    "buyer_track_start": "[book] S (= 4, from the S->3 example); 2 with two players",
    "market_size": "[book] 6; 4 with two players",
    "active_buyer_spaces": "[book] 4; 3 with two players",
    "start_tiles_offered": "[book 8.0] two random start tiles with two players; all four otherwise",
    "awards": "[book 6.0] values",
    "workers_per_player": "[book] 14",
    "canteen_start": "[book] 4",
    "price_buyer_multiplier": "[book] twice the price",
    "opel_multiplier": "[book] three times the price",
    "engineer_markers": "[book] Maybach +1/+2, Horch +1/+2, Daimler +2/+4, Diesel two changes, Benz one fifth buyer",
    "otto_workers": "[book] up to two workers",
    "specialty_tiles": "[book 9.0] twelve tiles, four per stack A/B/C, and their bonuses; [assumed] which "
                       "stack holds which bonus and each tile's standard action (rules §11: kwsearch rules 11)",
}

# ---------------------------------------------------------------------------
# Typed, validated view
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class CardType:
    """One research-card type; cards of one type are indistinguishable."""

    index: int
    name: str
    kind: str  # "development" | "instant" | "engineer"
    count: int
    body: int = 0  # development: body points
    engine: int = 0  # development: engine points
    tile: str | None = None  # development: immediate "body" / "engine" tile
    effect: str | None = None  # instant: "hire" | "gp" | "body_engine"
    amount: int = 0  # instant: workers / spaces
    engineer: str | None = None  # engineer: one of ENGINEERS


@dataclass(frozen=True)
class ActionTile:
    index: int
    actions: tuple[str, ...]


@dataclass(frozen=True)
class StartTile:
    index: int
    name: str
    actions: tuple[str, ...]


@dataclass(frozen=True)
class SpecialtyTile:
    """A V6 specialty tile (RULES.md §11): a standard action plus a one-shot bonus."""

    index: int
    name: str
    stack: int  # 0 = stack A (round 1), 1 = B, ...
    action: str  # one of ACTIONS
    bonus: str  # one of SPECIALTY_BONUSES
    value: int = 0  # see SPECIALTY_BONUSES

    @property
    def stack_name(self) -> str:
        return SPECIALTY_STACKS[self.stack]


@dataclass(frozen=True)
class Components:
    """Validated component data. Build with :func:`components_from_dict`."""

    action_tiles: tuple[ActionTile, ...]
    start_tiles: tuple[StartTile, ...]
    start_body: int
    start_engine: int
    card_types: tuple[CardType, ...]
    deck_size: int
    body_tiles: tuple[int, ...]
    engine_tiles: tuple[int, ...]
    price_markers: tuple[tuple[int, ...], ...]
    white_markers: tuple[int, ...]  # by preference index
    buyers_per_preference: int
    gp_lap_length: int
    gp_place_money: tuple[int, ...]
    gp_lap_money: tuple[int, ...]
    gp_lap_money_extra: int
    gp_start_tile_space: int
    gp_start_tile_engine: int
    neutral_cars_2p: tuple[int, ...]
    buyer_track_start: Mapping[int, int]
    market_size: Mapping[int, int]
    active_buyer_spaces: Mapping[int, int]
    start_tiles_offered: Mapping[int, int]
    awards: tuple[int, ...]  # money by AWARDS index
    workers_per_player: int
    canteen_start: int
    price_buyer_multiplier: int
    opel_multiplier: int
    maybach_markers: tuple[int, ...]
    horch_markers: tuple[int, ...]
    daimler_markers: tuple[int, ...]
    diesel_markers: int
    benz_markers: int
    otto_workers: int
    specialty_tiles: tuple[SpecialtyTile, ...]
    source: Mapping[str, Any]  # the merged raw mapping, for to_dict / positions

    @property
    def rounds(self) -> int:
        return len(self.price_markers)

    def card_type(self, name: str) -> CardType:
        for ct in self.card_types:
            if ct.name.lower() == name.lower():
                return ct
        raise KeyError(name)

    def specialty_tile(self, name: str) -> SpecialtyTile:
        for t in self.specialty_tiles:
            if t.name.lower() == name.strip().lower():
                return t
        raise KeyError(name)

    def specialty_stack(self, stack: int) -> tuple[SpecialtyTile, ...]:
        """The specialty tiles of stack ``stack`` (0 = A)."""
        return tuple(t for t in self.specialty_tiles if t.stack == stack)

    def lap_money(self, laps: int) -> int:
        """Money for ``laps`` completed laps (RULES.md §7)."""
        if laps <= 0:
            return 0
        table = self.gp_lap_money
        if laps <= len(table):
            return table[laps - 1]
        return table[-1] + (laps - len(table)) * self.gp_lap_money_extra

    def to_dict(self) -> dict[str, Any]:
        return copy.deepcopy(dict(self.source))


_DEFAULT_CACHE: Components | None = None


def default_components() -> Components:
    """The components of RULES.md §12 (built once, immutable)."""
    global _DEFAULT_CACHE
    if _DEFAULT_CACHE is None:
        _DEFAULT_CACHE = components_from_dict({})
    return _DEFAULT_CACHE


def load_components(path: str | Path) -> Components:
    """Read an override file (``.json`` or ``.toml``) and merge it over the defaults.

    Raises :class:`ComponentError` whose message starts with the file name and
    names the offending field.
    """
    from .jsonload import load_json_file, load_toml_file
    p = Path(path)
    if p.suffix.lower() == ".toml":
        data = load_toml_file(p, what="component file", error=ComponentError)
    else:
        data = load_json_file(p, what="component file", error=ComponentError)
    try:
        return components_from_dict(data)
    except ComponentError as exc:
        raise ComponentError(f"{p}: {exc}") from None


def components_from_dict(overrides: Mapping[str, Any]) -> Components:
    """Merge ``overrides`` over :data:`DEFAULTS`, validate, and build :class:`Components`.

    Top-level keys replace the default value of that key (a list is replaced
    whole; a table such as ``awards`` is merged key by key). ``"marks"`` and
    keys starting with ``"_"`` (comments) are ignored.
    """
    if not isinstance(overrides, Mapping):
        raise ComponentError("top level: expected an object (table) of component fields")
    merged = copy.deepcopy(DEFAULTS)
    for key, value in overrides.items():
        if not isinstance(key, str):
            raise ComponentError(f"{key!r}: expected a field name (a string)")
        if key == "marks" or key.startswith("_"):
            continue
        if key not in DEFAULTS:
            raise ComponentError(f"{key_path('', key)}: unknown field (known: {', '.join(sorted(DEFAULTS))})")
        if isinstance(DEFAULTS[key], dict) and isinstance(value, Mapping):
            for sub in value:
                if str(sub) not in DEFAULTS[key]:
                    raise ComponentError(
                        f"{key_path(key, sub)}: unknown key (known: {', '.join(DEFAULTS[key])})")
            merged[key].update({str(k): v for k, v in value.items()})
        else:
            merged[key] = copy.deepcopy(value)
    return _build(merged)


# ---------------------------------------------------------------------------
# Validation helpers
# ---------------------------------------------------------------------------


def _int(value: Any, field: str, lo: int = 0, hi: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ComponentError(f"{field}: expected an integer, got {value!r}")
    if value < lo:
        what = "negative" if lo == 0 and value < 0 else f"below {lo}"
        raise ComponentError(f"{field}: {value} is {what} (expected {lo}..{hi if hi is not None else ''})")
    if hi is not None and value > hi:
        raise ComponentError(f"{field}: {value} is above {hi} (expected {lo}..{hi})")
    return value


def _list(value: Any, field: str, length: int | None = None, min_len: int = 0, max_len: int | None = None) -> list:
    if not isinstance(value, list):
        raise ComponentError(f"{field}: expected a list, got {type(value).__name__}")
    if length is not None and len(value) != length:
        raise ComponentError(f"{field}: expected {length} entries, got {len(value)}")
    if len(value) < min_len:
        raise ComponentError(f"{field}: expected at least {min_len} entries, got {len(value)}")
    if max_len is not None and len(value) > max_len:
        raise ComponentError(f"{field}: expected at most {max_len} entries, got {len(value)}")
    return value


def _per_players(value: Any, field: str, lo: int, hi: int) -> dict[int, int]:
    if not isinstance(value, Mapping):
        raise ComponentError(f"{field}: expected a table keyed by player count \"2\", \"3\", \"4\"")
    out = {}
    for n in (2, 3, 4):
        if str(n) not in value:
            raise ComponentError(f"{field}.{n}: missing")
        out[n] = _int(value[str(n)], f"{field}.{n}", lo, hi)
    return out


def _keys(entry: Mapping[str, Any], field: str, allowed: tuple[str, ...]) -> None:
    """Reject keys of a list entry that are not in ``allowed`` (``"_..."`` keys are comments).

    A misspelt optional key (``"tiles"`` for ``"tile"``) would otherwise be ignored
    silently and change the game.
    """
    for k in entry:
        if not (isinstance(k, str) and k.startswith("_")) and k not in allowed:
            raise ComponentError(f"{key_path(field, k)}: unknown key (known: {', '.join(allowed)})")


def _actions(value: Any, field: str, allowed: tuple[str, ...], max_len: int = 4) -> tuple[str, ...]:
    acts = _list(value, field, min_len=1, max_len=max_len)
    for i, a in enumerate(acts):
        if a not in allowed:
            raise ComponentError(f"{field}[{i}]: unknown action {a!r} (expected one of {', '.join(allowed)})")
    return tuple(acts)


#: Keys of a research-card entry besides name, kind and count, by kind.
_CARD_KEYS = {
    "development": ("body", "engine", "tile"),
    "instant": ("effect", "amount"),
    "engineer": ("engineer",),
}


def _specialty(value: Any) -> tuple[SpecialtyTile, ...]:
    """The V6 specialty tiles (validated whether or not a game uses them)."""
    raw = _list(value, "specialty_tiles", min_len=1, max_len=MAX_SPECIAL)
    out: list[SpecialtyTile] = []
    names: set[str] = set()
    for i, t in enumerate(raw):
        f = f"specialty_tiles[{i}]"
        if not isinstance(t, Mapping):
            raise ComponentError(f"{f}: expected an object with name, stack, action and bonus")
        _keys(t, f, ("name", "stack", "action", "bonus", "value"))
        name = t.get("name")
        if not isinstance(name, str) or not name.isalnum() or name.lower() in names:
            raise ComponentError(f"{f}.name: expected a unique alphanumeric name, got {name!r}")
        names.add(name.lower())
        stack = t.get("stack")
        if not isinstance(stack, str) or len(stack) != 1 or stack.upper() not in SPECIALTY_STACKS:
            raise ComponentError(f"{f}.stack: expected one of {', '.join(SPECIALTY_STACKS)} "
                                 f"(A = round 1), got {stack!r}")
        action = t.get("action")
        if action not in ACTIONS:
            raise ComponentError(f"{f}.action: unknown action {action!r} (expected one of {', '.join(ACTIONS)})")
        bonus = t.get("bonus")
        if bonus not in SPECIALTY_BONUSES:
            raise ComponentError(f"{f}.bonus: unknown bonus {bonus!r} "
                                 f"(expected one of {', '.join(SPECIALTY_BONUSES)})")
        if bonus in _BONUS_VALUE:
            lo, hi = _BONUS_VALUE[bonus]
            v = _int(t.get("value"), f"{f}.value", lo, hi)
        else:
            if t.get("value") not in (None, 0):
                raise ComponentError(f"{f}.value: the bonus {bonus!r} takes no value, got {t.get('value')!r}")
            v = 0
        out.append(SpecialtyTile(i, name, SPECIALTY_STACKS.index(stack.upper()), action, bonus, v))
    return tuple(out)


def _build(d: dict[str, Any]) -> Components:
    """The components a complete table ``d`` describes; the first problem raises ComponentError.

    The tables are checked in a fixed order (the first problem found is the one reported):
    tiles, the start development, the research cards, the tile supply, the price and white
    markers, the Grand Prix, the per-player tables, the awards, the workers, the engineers'
    markers, the specialty tiles, then the remaining numbers in the order of the fields.
    """
    tiles = _action_tiles(d["action_tiles"])
    starts = _start_tiles(d["start_tiles"])

    sd = d["start_development"]
    if not isinstance(sd, Mapping):
        raise ComponentError("start_development: expected a table with body and engine")
    start_body = _int(sd.get("body"), "start_development.body", 0, MAX_TILE_VALUE)
    start_engine = _int(sd.get("engine"), "start_development.engine", 0, MAX_TILE_VALUE)

    card_types = _research_cards(d["research_cards"])
    deck_size = _int(d["research_deck_size"], "research_deck_size", 3, MAX_DECK)
    total = sum(ct.count for ct in card_types)
    if total != deck_size:
        hint = "" if "research_deck_size" in d and d["research_deck_size"] != 50 else \
            " (a deck of another size must be stated in research_deck_size)"
        raise ComponentError(f"research_cards: the counts add up to {total} cards, "
                             f"but research_deck_size is {deck_size}{hint}")

    body_tiles = tuple(_int(v, f"body_tiles[{i}]", 0, 99) for i, v in
                       enumerate(_list(d["body_tiles"], "body_tiles", MAX_TILE_VALUE)))
    engine_tiles = tuple(_int(v, f"engine_tiles[{i}]", 0, 99) for i, v in
                         enumerate(_list(d["engine_tiles"], "engine_tiles", MAX_TILE_VALUE)))
    price_markers = _price_markers(d["price_markers"])

    wm = d["white_markers"]
    if not isinstance(wm, Mapping):
        raise ComponentError("white_markers: expected a table keyed by preference")
    white = tuple(_int(wm.get(p), f"white_markers.{p}", 0, 99) for p in PREFERENCES)

    lap = _int(d["gp_lap_length"], "gp_lap_length", 8, 40)
    neutral = tuple(_int(v, f"neutral_cars_2p[{i}]", 1, lap)
                    for i, v in enumerate(_list(d["neutral_cars_2p"], "neutral_cars_2p", max_len=2)))
    if len(set(neutral)) != len(neutral):
        raise ComponentError("neutral_cars_2p: two neutral cars on one space")
    start_space = _int(d["gp_start_tile_space"], "gp_start_tile_space", 1, lap)

    market_size = _per_players(d["market_size"], "market_size", 1, MAX_MARKET)
    offered = _per_players(d["start_tiles_offered"], "start_tiles_offered", 1, MAX_START_TILES)
    for n, k in offered.items():
        if k < n or k > len(starts):
            raise ComponentError(f"start_tiles_offered.{n}: {k} tiles offered to {n} players, "
                                 f"expected {n}..{len(starts)}")
    for r, series in enumerate(price_markers):
        if len(series) < max(market_size.values()):
            raise ComponentError(f"price_markers[{r}]: {len(series)} markers cannot price a market of "
                                 f"{max(market_size.values())} cars")

    aw = d["awards"]
    if not isinstance(aw, Mapping):
        raise ComponentError("awards: expected a table keyed by award name")
    awards = tuple(_int(aw.get(a), f"awards.{a}", 0, 99) for a in AWARDS)

    workers = _int(d["workers_per_player"], "workers_per_player", 3, MAX_WORKERS)
    canteen = _int(d["canteen_start"], "canteen_start", 0, workers - 2)

    em = d["engineer_markers"]
    if not isinstance(em, Mapping):
        raise ComponentError("engineer_markers: expected a table")

    specialty = _specialty(d["specialty_tiles"])

    return Components(
        action_tiles=tiles,
        start_tiles=starts,
        start_body=start_body,
        start_engine=start_engine,
        card_types=card_types,
        deck_size=deck_size,
        body_tiles=body_tiles,
        engine_tiles=engine_tiles,
        price_markers=price_markers,
        white_markers=white,
        buyers_per_preference=_int(d["buyers_per_preference"], "buyers_per_preference", 1, 4),
        gp_lap_length=lap,
        gp_place_money=tuple(_int(v, f"gp_place_money[{i}]", 0, 99) for i, v in
                             enumerate(_list(d["gp_place_money"], "gp_place_money", min_len=1, max_len=6))),
        gp_lap_money=tuple(_int(v, f"gp_lap_money[{i}]", 0, 99) for i, v in
                           enumerate(_list(d["gp_lap_money"], "gp_lap_money", min_len=1, max_len=10))),
        gp_lap_money_extra=_int(d["gp_lap_money_extra"], "gp_lap_money_extra", 0, 99),
        gp_start_tile_space=start_space,
        gp_start_tile_engine=_int(d["gp_start_tile_engine"], "gp_start_tile_engine", 2, MAX_TILE_VALUE),
        neutral_cars_2p=neutral,
        buyer_track_start=_per_players(d["buyer_track_start"], "buyer_track_start", 1, 9),
        market_size=market_size,
        active_buyer_spaces=_per_players(d["active_buyer_spaces"], "active_buyer_spaces", 1, 4),
        start_tiles_offered=offered,
        awards=awards,
        workers_per_player=workers,
        canteen_start=canteen,
        price_buyer_multiplier=_int(d["price_buyer_multiplier"], "price_buyer_multiplier", 1, 9),
        opel_multiplier=_int(d["opel_multiplier"], "opel_multiplier", 1, 9),
        maybach_markers=_marker_pair(em, "maybach", 9),
        horch_markers=_marker_pair(em, "horch", 9),
        daimler_markers=_marker_pair(em, "daimler", 20),
        diesel_markers=_int(em.get("diesel"), "engineer_markers.diesel", 0, 4),
        benz_markers=_int(em.get("benz"), "engineer_markers.benz", 0, 1),
        otto_workers=_int(d["otto_workers"], "otto_workers", 0, 4),
        specialty_tiles=specialty,
        source=d,
    )


def _action_tiles(value: Any) -> tuple[ActionTile, ...]:
    tiles_raw = _list(value, "action_tiles", min_len=1, max_len=MAX_ACTION_TILES)
    tiles = []
    for i, t in enumerate(tiles_raw):
        if not isinstance(t, Mapping) or "actions" not in t:
            raise ComponentError(f"action_tiles[{i}]: expected an object with \"actions\"")
        _keys(t, f"action_tiles[{i}]", ("actions",))
        tiles.append(ActionTile(i, _actions(t["actions"], f"action_tiles[{i}].actions", ACTIONS, 3)))
    return tuple(tiles)


def _start_tiles(value: Any) -> tuple[StartTile, ...]:
    starts_raw = _list(value, "start_tiles", min_len=1, max_len=MAX_START_TILES)
    starts, names = [], set()
    for i, t in enumerate(starts_raw):
        if not isinstance(t, Mapping) or "actions" not in t or "name" not in t:
            raise ComponentError(f"start_tiles[{i}]: expected an object with \"name\" and \"actions\"")
        _keys(t, f"start_tiles[{i}]", ("name", "actions"))
        name = t["name"]
        # unique ignoring case: the notation ("start a") and the formats match names ignoring case
        if not isinstance(name, str) or not name.isalnum() or name.lower() in names:
            raise ComponentError(f"start_tiles[{i}].name: expected a unique alphanumeric name (unique "
                                 f"ignoring case), got {name!r}")
        names.add(name.lower())
        starts.append(StartTile(i, name, _actions(t["actions"], f"start_tiles[{i}].actions", ALL_ACTIONS, 4)))
    return tuple(starts)


def _research_cards(value: Any) -> tuple[CardType, ...]:
    """The research card types: names unique ignoring case, each engineer once."""
    cards_raw = _list(value, "research_cards", min_len=1, max_len=MAX_CARD_TYPES)
    card_types: list[CardType] = []
    seen_names: set[str] = set()
    seen_engineers: set[str] = set()
    for i, c in enumerate(cards_raw):
        f = f"research_cards[{i}]"
        if not isinstance(c, Mapping):
            raise ComponentError(f"{f}: expected an object")
        name = c.get("name")
        if not isinstance(name, str) or not name or any(ch.isspace() or ch == "," for ch in name):
            raise ComponentError(f"{f}.name: expected a name without spaces or commas, got {name!r}")
        if name.lower() in seen_names:
            raise ComponentError(f"{f}.name: {name!r} appears twice")
        seen_names.add(name.lower())
        card_types.append(_card_type(i, c, f, name, seen_engineers))
    n_dev = sum(1 for ct in card_types if ct.kind == "development")
    if n_dev > MAX_DEV_TYPES:
        raise ComponentError(f"research_cards: {n_dev} kinds of development, at most {MAX_DEV_TYPES} are supported")
    return tuple(card_types)


def _card_type(i: int, c: Mapping, f: str, name: str, seen_engineers: set[str]) -> CardType:
    """Research card type ``i`` (entry ``c`` at field ``f``) by its kind; adds an engineer to ``seen_engineers``."""
    count = _int(c.get("count"), f"{f}.count", 1, MAX_DECK)
    kind = c.get("kind")
    if isinstance(kind, str) and kind in _CARD_KEYS:
        _keys(c, f, ("name", "kind", "count") + _CARD_KEYS[kind])
    if kind == "development":
        body = _int(c.get("body", 0), f"{f}.body", 0, MAX_TILE_VALUE)
        engine = _int(c.get("engine", 0), f"{f}.engine", 0, MAX_TILE_VALUE)
        tile = c.get("tile")
        if tile not in (None, "body", "engine"):
            raise ComponentError(f"{f}.tile: expected null, \"body\" or \"engine\", got {tile!r}")
        if body + engine == 0:
            raise ComponentError(f"{f}: a development must give at least one research point")
        return CardType(i, name, kind, count, body=body, engine=engine, tile=tile)
    if kind == "instant":
        effect = c.get("effect")
        if effect not in INSTANT_EFFECTS:
            raise ComponentError(f"{f}.effect: unknown instant effect {effect!r} "
                                 f"(expected one of {', '.join(INSTANT_EFFECTS)})")
        amount = _int(c.get("amount", 1), f"{f}.amount", 1, 12)
        return CardType(i, name, kind, count, effect=effect, amount=amount)
    if kind == "engineer":
        eng = c.get("engineer")
        if eng not in ENGINEERS:
            raise ComponentError(f"{f}.engineer: unknown engineer {eng!r} (expected one of {', '.join(ENGINEERS)})")
        if eng in seen_engineers:
            raise ComponentError(f"{f}.engineer: {eng} appears twice")
        if count != 1:
            raise ComponentError(f"{f}.count: an engineer card is unique, expected 1, got {count}")
        seen_engineers.add(eng)
        return CardType(i, name, kind, count, engineer=eng)
    raise ComponentError(f"{f}.kind: expected \"development\", \"instant\" or \"engineer\", got {kind!r}")


def _price_markers(value: Any) -> tuple[tuple[int, ...], ...]:
    """Each round's price markers, sorted; unique within a round."""
    pm_raw = _list(value, "price_markers", min_len=1, max_len=5)
    price_markers = []
    for r, series in enumerate(pm_raw):
        vals = tuple(_int(v, f"price_markers[{r}][{i}]", 1, MAX_PRICE)
                     for i, v in enumerate(_list(series, f"price_markers[{r}]", min_len=1, max_len=12)))
        if len(set(vals)) != len(vals):
            raise ComponentError(f"price_markers[{r}]: values must be unique within a round (buyer ties rely on it)")
        price_markers.append(tuple(sorted(vals)))
    return tuple(price_markers)


def _marker_pair(em: Mapping, key: str, hi: int) -> tuple[int, ...]:
    """An engineer's one or two markers (``engineer_markers.KEY``), of different values in 1..hi."""
    vals = _list(em.get(key), f"engineer_markers.{key}", min_len=1, max_len=2)
    out = tuple(_int(v, f"engineer_markers.{key}[{i}]", 1, hi) for i, v in enumerate(vals))
    if len(set(out)) != len(out):
        raise ComponentError(f"engineer_markers.{key}: the markers must have different values")
    return out
