"""The action-id space and its text notation (docs/actions.md).

An action is a small int naming one option of one decision *by meaning*: a tile
by its identity, a research card by its type, a workshop tile to give up by its
content, a price marker by its value. The ids do not depend on the state, so the
text form of an action is the same wherever it is legal and
``parse(text) -> id`` needs only the game's component names::

    >>> from kwsearch.components import default_components
    >>> n = Notation(default_components())
    >>> n.text(TILE + 3), n.parse("tile 3") == TILE + 3
    ('tile 3', True)
    >>> n.text(MARKET_BODY + 2)
    'market body@3'

The ranges are fixed (see :data:`RANGES`) and shared by the reference and the
fast engine.
"""

from __future__ import annotations

import re

from .components import (ALL_ACTIONS, MAX_ACTION_TILES, MAX_BUYERS, MAX_CARD_TYPES, MAX_PRICE, MAX_SPECIAL,
                         MAX_START_TILES, MAX_TILE_VALUE, MAX_WORKERS, PREFERENCES, Components)
from .errors import InvalidMoveError

START = 0                      # + start-tile index               "start A"
TILE = START + MAX_START_TILES  # + action-tile id                "tile 3"
DO = TILE + MAX_ACTION_TILES   # + action kind (ALL_ACTIONS)      "do research"
RESEARCH = DO + 8              # + research-card type            "take research:Diesel"
GIVEUP = RESEARCH + MAX_CARD_TYPES  # + tile code (body v = v, engine v = 8 + v)   "give up engine 2"
ENGINE_WORKSHOP = GIVEUP + 16  # "engine -> workshop"
ENGINE_GP = ENGINE_WORKSHOP + 1  # "engine -> gp"
BUYER = ENGINE_WORKSHOP + 4    # + preference                    "buyer body"
MARKET_PASS = BUYER + 4        # "market pass"
MARKET_BODY = MARKET_PASS + 1  # + value - 1                     "market body@3"
MARKET_ENGINE = MARKET_BODY + MAX_TILE_VALUE  # + value - 1      "market engine@4"
MARKET_WORKERS = MARKET_ENGINE + 8  # + n - 1                    "market workers 2"
MARKET_PRICE = MARKET_WORKERS + MAX_WORKERS  # + price value      "market price 8"
MARKET_NO_MARKER = MARKET_PRICE + MAX_PRICE + 1  # "market no-marker"
MARKET_MARKER = MARKET_NO_MARKER + 1  # + 0/1 Maybach marker, 2/3 Horch marker   "market +maybach2"
DAIMLER_PASS = MARKET_MARKER + 7  # "daimler pass"
DAIMLER = DAIMLER_PASS + 1     # + marker index * MAX_BUYERS + buyer index "daimler +2 buyer 1"
DIESEL_PASS = DAIMLER + 3 * MAX_BUYERS  # "diesel pass" (room for three Daimler markers)
DIESEL_CAR = DIESEL_PASS + 1   # + price of the car              "diesel car@8"
DIESEL_BODY = DIESEL_CAR + MAX_PRICE + 1  # + value - 1          "diesel body 5"
DIESEL_ENGINE = DIESEL_BODY + MAX_TILE_VALUE  # + value - 1      "diesel engine 4"
DIESEL_WORKERS = DIESEL_ENGINE + 8  # + n - 1                    "diesel workers 3"
DIESEL_PRICE = DIESEL_WORKERS + MAX_WORKERS  # + price value      "diesel price 9"
BENZ_PASS = DIESEL_PRICE + MAX_PRICE + 1  # "benz pass"
BENZ = BENZ_PASS + 1           # + preference                    "benz buyer body"
ACTIVATE = BENZ + 4            # + research-card type            "activate dev:body2"
# V6 specialty tiles (RULES.md §11); appended so that the ids above never change.
SPECIAL_TILE = ACTIVATE + MAX_CARD_TYPES  # + specialty-tile index  "tile special A3"
SELL_PASS = SPECIAL_TILE + MAX_SPECIAL  # "sell pass"
SELL = SELL_PASS + 1           # + tile code                     "sell engine 4"
REMOVE_PASS = SELL + 16        # "remove pass"
REMOVE_CAR = REMOVE_PASS + 1   # + price of the own car          "remove car@8"
# The order of two effects (RULES.md §5.2, §11); appended so that the ids above never change.
ORDER_BODY = REMOVE_CAR + MAX_PRICE + 1  # "one body & one engine" card: "body first"
ORDER_ENGINE = ORDER_BODY + 1  # ... the engine first               "engine first"
ORDER_ACTION = ORDER_BODY + 2  # V6 tile: the standard action first "action first"
ORDER_BONUS = ORDER_BODY + 3   # V6 tile: the bonus first            "bonus first"
NUM_ACTIONS = ORDER_BODY + 4

#: (first id, one past the last, meaning) — the table of docs/actions.md.
RANGES = [
    (START, TILE, "choose a start tile at set-up"),
    (TILE, DO, "take an action tile from the chain"),
    (DO, RESEARCH, "do this action of the tile next"),
    (RESEARCH, GIVEUP, "take a face-up research card of this type"),
    (GIVEUP, ENGINE_WORKSHOP, "give up this workshop tile to make room"),
    (ENGINE_WORKSHOP, ENGINE_GP + 1, "put the new engine in a workshop / the GP car"),
    (BUYER, MARKET_PASS, "take a buyer of this preference"),
    (MARKET_PASS, MARKET_BODY, "move no car to the market"),
    (MARKET_BODY, MARKET_ENGINE, "market: the car body of this value"),
    (MARKET_ENGINE, MARKET_WORKERS, "market: the engine of this value"),
    (MARKET_WORKERS, MARKET_PRICE, "market: this many workers"),
    (MARKET_PRICE, MARKET_NO_MARKER, "market: the price marker of this value"),
    (MARKET_NO_MARKER, MARKET_MARKER, "market: no engineer marker on the car"),
    (MARKET_MARKER, DAIMLER_PASS, "market: a Maybach or Horch marker on the car"),
    (DAIMLER_PASS, DAIMLER, "place no Daimler marker"),
    (DAIMLER, DIESEL_PASS, "Daimler marker on an active buyer"),
    (DIESEL_PASS, DIESEL_CAR, "use no Diesel change"),
    (DIESEL_CAR, DIESEL_BODY, "Diesel: change the own car with this price"),
    (DIESEL_BODY, DIESEL_ENGINE, "Diesel: new car body value"),
    (DIESEL_ENGINE, DIESEL_WORKERS, "Diesel: new engine value"),
    (DIESEL_WORKERS, DIESEL_PRICE, "Diesel: new number of workers"),
    (DIESEL_PRICE, BENZ_PASS, "Diesel: new price marker"),
    (BENZ_PASS, BENZ, "Benz: add no fifth buyer"),
    (BENZ, ACTIVATE, "Benz: fifth buyer of this preference"),
    (ACTIVATE, SPECIAL_TILE, "activate this inactive development with the new worker"),
    (SPECIAL_TILE, SELL_PASS, "V6: take this specialty tile from the chain"),
    (SELL_PASS, SELL, "V6 bonus: sell no workshop tile"),
    (SELL, REMOVE_PASS, "V6 bonus: sell this workshop tile for its value"),
    (REMOVE_PASS, REMOVE_CAR, "V6 bonus: remove no car from the market"),
    (REMOVE_CAR, ORDER_BODY, "V6 bonus: remove the own car with this price from the market"),
    (ORDER_BODY, ORDER_ACTION, "\"one body & one engine\" card: take the body / the engine first"),
    (ORDER_ACTION, NUM_ACTIONS, "V6 tile: do the standard action / the bonus first"),
]

#: Workshop tile codes: a body of value v is v, an engine of value v is 8 + v.
ENGINE_CODE = 8


def diesel_target(action: int) -> tuple[int, int]:
    """The field of a market car that the Diesel change ``action`` sets (1 body, 2 engine,
    3 workers, 4 price: indices of a car ``[owner, body, engine, workers, price, maybach, horch]``)
    and its new value (RULES.md §5.3)."""
    if action < DIESEL_ENGINE:
        return 1, action - DIESEL_BODY + 1
    if action < DIESEL_WORKERS:
        return 2, action - DIESEL_ENGINE + 1
    if action < DIESEL_PRICE:
        return 3, action - DIESEL_WORKERS + 1
    return 4, action - DIESEL_PRICE


def tile_code(kind: str, value: int) -> int:
    return value if kind == "body" else ENGINE_CODE + value


def market_marker_slots(c: Components) -> list[tuple[str, int]]:
    """(engineer, value) of the MARKET_MARKER + i ids: Maybach's markers, then Horch's."""
    slots: list[tuple[str, int]] = [("maybach", v) for v in c.maybach_markers]
    slots += [("maybach", 0)] * (2 - len(c.maybach_markers))
    slots += [("horch", v) for v in c.horch_markers]
    return slots


class Notation:
    """Text <-> id for one set of components (names of start tiles and cards)."""

    def __init__(self, components: Components):
        self.c = components
        self._to_text: dict[int, str] = {}
        self._build()
        self._from_text = {self._norm(t): a for a, t in self._to_text.items()}

    @staticmethod
    def _norm(text: str) -> str:
        t = text.strip().lower()
        t = re.sub(r"\s*->\s*", " -> ", t)
        t = re.sub(r"\s*@\s*", "@", t)
        t = re.sub(r"\s*:\s*", ":", t)
        return re.sub(r"\s+", " ", t)

    def _build(self) -> None:
        c, put = self.c, self._to_text.__setitem__
        for st in c.start_tiles:
            put(START + st.index, f"start {st.name}")
        for t in c.action_tiles:
            put(TILE + t.index, f"tile {t.index}")
        for i, kind in enumerate(ALL_ACTIONS):
            put(DO + i, f"do {kind}")
        for ct in c.card_types:
            put(RESEARCH + ct.index, f"take research:{ct.name}")
            if ct.kind == "development":
                put(ACTIVATE + ct.index, f"activate {ct.name}")
        for v in range(1, MAX_TILE_VALUE + 1):
            put(GIVEUP + tile_code("body", v), f"give up body {v}")
            put(GIVEUP + tile_code("engine", v), f"give up engine {v}")
            put(MARKET_BODY + v - 1, f"market body@{v}")
            put(MARKET_ENGINE + v - 1, f"market engine@{v}")
            put(DIESEL_BODY + v - 1, f"diesel body {v}")
            put(DIESEL_ENGINE + v - 1, f"diesel engine {v}")
        put(ENGINE_WORKSHOP, "engine -> workshop")
        put(ENGINE_GP, "engine -> gp")
        for p, pref in enumerate(PREFERENCES):
            put(BUYER + p, f"buyer {pref}")
            put(BENZ + p, f"benz buyer {pref}")
        put(MARKET_PASS, "market pass")
        for n in range(1, MAX_WORKERS + 1):
            put(MARKET_WORKERS + n - 1, f"market workers {n}")
            put(DIESEL_WORKERS + n - 1, f"diesel workers {n}")
        for v in range(MAX_PRICE + 1):
            put(MARKET_PRICE + v, f"market price {v}")
            put(DIESEL_CAR + v, f"diesel car@{v}")
            put(DIESEL_PRICE + v, f"diesel price {v}")
        put(MARKET_NO_MARKER, "market no-marker")
        for i, (eng, v) in enumerate(market_marker_slots(c)):
            if v:
                put(MARKET_MARKER + i, f"market +{eng}{v}")
        put(DAIMLER_PASS, "daimler pass")
        for m, v in enumerate(c.daimler_markers):
            for b in range(MAX_BUYERS):
                put(DAIMLER + m * MAX_BUYERS + b, f"daimler +{v} buyer {b + 1}")
        put(DIESEL_PASS, "diesel pass")
        put(BENZ_PASS, "benz pass")
        for t in c.specialty_tiles:
            put(SPECIAL_TILE + t.index, f"tile special {t.name}")
        put(SELL_PASS, "sell pass")
        for v in range(1, MAX_TILE_VALUE + 1):
            put(SELL + tile_code("body", v), f"sell body {v}")
            put(SELL + tile_code("engine", v), f"sell engine {v}")
        put(REMOVE_PASS, "remove pass")
        for v in range(MAX_PRICE + 1):
            put(REMOVE_CAR + v, f"remove car@{v}")
        put(ORDER_BODY, "body first")
        put(ORDER_ENGINE, "engine first")
        put(ORDER_ACTION, "action first")
        put(ORDER_BONUS, "bonus first")

    def text(self, action: int) -> str:
        try:
            return self._to_text[action]
        except KeyError:
            raise InvalidMoveError(f"{action!r} is not an action id of this game "
                                   f"(expected one of the ids in docs/actions.md)") from None

    def parse(self, text: str) -> int:
        """The action id of ``text``; raises :class:`InvalidMoveError` if it names none."""
        if not isinstance(text, str):
            raise InvalidMoveError(f"expected a move in text notation, got {text!r}")
        key = self._norm(text)
        if key in self._from_text:
            return self._from_text[key]
        # Lenient forms: "research Diesel" / "take Diesel" / "take research Diesel".
        m = re.fullmatch(r"(?:take )?(?:research[: ])?(\S+)", key)
        if m and f"take research:{m.group(1)}" in self._from_text:
            return self._from_text[f"take research:{m.group(1)}"]
        raise InvalidMoveError(f"{text!r} is not a move in kwsearch notation (see docs/actions.md)")
