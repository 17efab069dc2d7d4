"""The game-record format ``kwsearch-game/1`` (docs/formats.md).

A record holds the game options, the set-up (tile order, start-tile offer, the
two first face-up research cards) and the ordered events: every player decision
in text notation, and after a decision that turned up research cards, a
``"reveal A, B"`` event naming them in the order they came up. In a V6 game the
set-up chain names the first specialty tile (``"special A3"``) and a decision
that placed new specialty tiles is followed by ``"reveal special B2"``. A game from a
real table can be typed in this way; a game played by the program is written
the same way.

    >>> from kwsearch.game import Game
    >>> rec = new_record(Game(2), seed=3)
    >>> state = replay(rec)
    >>> state.current_player()
    1

``replay(record, upto=K)`` returns the state after the first ``K`` decisions
(reveals belong to the decision before them and are not counted).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Mapping

from .components import SPECIALTY_STACKS, Components, components_from_dict, default_components
from .errors import ComponentError, IllegalMoveError, InvalidRecordError, KwsearchError
from .jsonload import key_path
from .formats import POSITION_FORMAT, parse_chain, position_to_state, read_json
from .game import SEAT, SPECIAL, Game, is_seat
from .observation import chain_name
from .rules import State
from .seeds import check_seed

RECORD_FORMAT = "kwsearch-game/1"
REVEAL = "reveal"

#: The keys a record and its ``setup`` may hold (keys starting with "_" are comments).
_KEYS = {
    "": ("format", "players", "v6", "components", "seed", "setup", "events", "result", "mirror", "scoring"),
    "setup": ("seats", "names", "chain", "start_tiles_offered", "display"),
    "result": ("money",),
}
#: The longest seat name or bot spec in ``setup.seats``.
MAX_SEAT_TEXT = 200


def _check_keys(obj: Mapping[str, Any], where: str) -> None:
    for k in obj:
        if k not in _KEYS[where] and not (isinstance(k, str) and k.startswith("_")):
            path = key_path(where, k)
            raise InvalidRecordError(f"{path}: unknown key (allowed{' in ' + where if where else ''}: "
                                     f"{', '.join(_KEYS[where])})")


def _check_header(rec: Mapping[str, Any], n: int) -> None:
    """The parts of a record the replay does not read: unknown keys, ``setup.seats``,
    ``mirror``, the shape of ``result``; ``null`` is never a default."""
    _check_keys(rec, "")
    for key in ("seed", "setup", "events", "result", "mirror", "scoring", "v6", "players"):
        if key in rec and rec[key] is None:
            raise InvalidRecordError(f"{key}: null is not allowed (leave the key out for its default)")
    if "mirror" in rec and not isinstance(rec["mirror"], bool):
        raise InvalidRecordError(f"mirror: expected true or false, got {_short(rec['mirror'])}")
    setup = rec.get("setup")
    if isinstance(setup, Mapping):
        _check_keys(setup, "setup")
        for key in _KEYS["setup"]:
            if key in setup and setup[key] is None:
                raise InvalidRecordError(f"setup.{key}: null is not allowed (leave the key out for its default)")
        for key, what in (("seats", "seat names or bot specs"), ("names", "display names")):
            if key not in setup:
                continue
            seats = setup[key]
            if (not isinstance(seats, list) or len(seats) != n
                    or not all(isinstance(x, str) and 0 < len(x) <= MAX_SEAT_TEXT and x.isprintable() for x in seats)):
                raise InvalidRecordError(f"setup.{key}: expected a list of {n} {what} (non-empty "
                                         f"printable texts of at most {MAX_SEAT_TEXT} characters), got "
                                         f"{_short(seats)}")
    res = rec.get("result")
    if res is not None:
        if not isinstance(res, Mapping):
            raise InvalidRecordError(f"result: expected an object {{\"money\": [...]}}, got {_short(res)}")
        _check_keys(res, "result")
        money = res.get("money")
        if (not isinstance(money, list) or len(money) != n
                or not all(isinstance(m, int) and not isinstance(m, bool) for m in money)):
            raise InvalidRecordError(f"result.money: expected {n} integers, got {_short(money)}")


def _short(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _options(obj: Mapping[str, Any], components: Components | None) -> Game:
    n = obj.get("players")
    if isinstance(n, bool) or n not in (2, 3, 4):
        raise InvalidRecordError(f"players: expected 2, 3 or 4, got {_short(n)}")
    v6 = obj.get("v6", False)
    if not isinstance(v6, bool):
        raise InvalidRecordError(f"v6: expected true or false, got {_short(v6)}")
    if components is None:
        raw = obj.get("components")
        try:
            components = default_components() if raw is None else components_from_dict(raw)
        except ComponentError as exc:
            raise InvalidRecordError(f"components: {exc}") from None
    try:
        return Game(n, components, v6=v6)
    except ComponentError as exc:
        raise InvalidRecordError(f"v6: {exc}") from None


def new_record(game: Game, seed: int = 0, seat_names: list[str] | None = None) -> dict[str, Any]:
    """A fresh record whose set-up is drawn from ``seed`` (as ``new_initial_state(seed)``)."""
    state = game.new_initial_state(seed, engine="reference")
    return record_header(state, seed, seat_names)


def record_header(state: State, seed: int | None, seat_names: list[str] | None = None) -> dict[str, Any]:
    """A record with no events for a freshly set-up ``state``."""
    game = state.game
    c = game.components
    names = [ct.name for ct in c.card_types]
    rec: dict[str, Any] = {
        "format": RECORD_FORMAT,
        "players": game.num_players,
        "v6": game.v6,
        "components": None if c.source == default_components().source else dict(c.source),
    }
    if seed is not None:
        rec["seed"] = seed
    rec["setup"] = {
        "seats": list(seat_names) if seat_names else [f"P{i + 1}" for i in range(game.num_players)],
        "chain": [chain_name(e, c) for e in state.chain],
        "start_tiles_offered": [c.start_tiles[t].name for t in state.offered],
        "display": [names[i] for i in state.display],
    }
    rec["events"] = []
    return rec


def _setup_state(rec: Mapping[str, Any], game: Game) -> State:
    c = game.components
    n = game.num_players
    seed = check_seed(rec.get("seed", 0), "seed", InvalidRecordError)  # the bound of every --seed
    base = game.new_initial_state(seed, engine="reference")  # default set-up and deck order from the seed
    setup = rec.get("setup")
    if setup is None:
        return base
    if not isinstance(setup, Mapping):
        raise InvalidRecordError("setup: expected an object")
    # Tile order: the chain after the workers, tail to front.
    chain_raw = setup.get("chain")
    stacks = [list(x) for x in base.spec_undrawn]
    if game.v6:  # the seeded stacks, with the set-up's specialty tile back on top of stack A
        stacks[0].append(base.chain[-1] - SPECIAL)
    if chain_raw is None:
        tiles = [e for e in base.chain if e < SPECIAL and not is_seat(e)]
    else:
        if not isinstance(chain_raw, list):
            raise InvalidRecordError("setup.chain: expected a list of \"seat S\" / \"tile T\"")
        chain = []
        for i, v in enumerate(chain_raw):
            e = parse_chain(v, n, c, game.v6)
            if e is None:
                also = " or \"special X\"" if game.v6 else ""
                raise InvalidRecordError(f"setup.chain[{i}]: expected \"seat S\" or \"tile T\"{also}, "
                                         f"got {_short(v)}")
            chain.append(e)
        want = [SEAT + s for s in range(n)]
        special = chain[-1:] if game.v6 else []
        tiles = chain[n:len(chain) - len(special)]
        if chain[:n] != want or sorted(tiles) != list(range(len(c.action_tiles))):
            raise InvalidRecordError(
                f"setup.chain: expected the {n} seats in order (\"seat 0\" first) followed by each of the "
                f"{len(c.action_tiles)} action tiles once" + (" and one specialty tile of stack A" if game.v6 else ""))
        if game.v6:
            t = special[0] - SPECIAL if special[0] >= SPECIAL else -1
            if t < 0 or c.specialty_tiles[t].stack != 0:
                raise InvalidRecordError(f"setup.chain[{len(chain) - 1}]: a V6 set-up ends with one specialty "
                                         f"tile of stack A (\"special A1\"), got {_short(chain_raw[-1])}")
            stacks[0].remove(t)
            stacks[0].append(t)
    # Start-tile offer.
    offer_raw = setup.get("start_tiles_offered")
    if offer_raw is None:
        offered = list(base.offered)
    else:
        by_name = {t.name.lower(): t.index for t in c.start_tiles}
        if not isinstance(offer_raw, list) or any(not isinstance(v, str) or v.lower() not in by_name
                                                   for v in offer_raw):
            raise InvalidRecordError(f"setup.start_tiles_offered: expected names from "
                                     f"{[t.name for t in c.start_tiles]}, got {_short(offer_raw)}")
        offered = [by_name[v.lower()] for v in offer_raw]
        for i, t in enumerate(offered):
            if t in offered[:i]:  # the engines would then see different games
                raise InvalidRecordError(f"setup.start_tiles_offered[{i}]: start tile {offer_raw[i]} is listed twice")
        if len(set(offered)) != c.start_tiles_offered[n]:
            raise InvalidRecordError(f"setup.start_tiles_offered: expected {c.start_tiles_offered[n]} different "
                                     f"start tiles for {n} players, got {len(set(offered))}")
    # First display: put the named cards on top of the seeded deck.
    deck = list(base.deck) + list(reversed(base.display))
    disp_raw = setup.get("display")
    if disp_raw is not None:
        if not isinstance(disp_raw, list) or len(disp_raw) > 2:
            raise InvalidRecordError("setup.display: expected a list of at most two research cards")
        named = []
        for i, v in enumerate(disp_raw):
            t = _card(game, v, f"setup.display[{i}]")
            if t not in deck:
                raise InvalidRecordError(f"setup.display[{i}]: no card {v} is left to turn up")
            del deck[len(deck) - 1 - deck[::-1].index(t)]  # the topmost such card
            named.append(t)
        deck += reversed(named)  # the first named card is drawn first (top = last)
    return State.from_setup(game, tiles, deck, offered, base.rng, stacks)


def _card(game: Game, v: Any, where: str) -> int:
    if isinstance(v, str):
        for ct in game.components.card_types:
            if ct.name.lower() == v.strip().lower():
                return ct.index
    raise InvalidRecordError(f"{where}: unknown research card {_short(v)} "
                             f"(expected one of {', '.join(ct.name for ct in game.components.card_types)})")


def _reveal_cards(game: Game, text: str, index: int) -> list[int]:
    body = text.strip()[len(REVEAL):].strip(" :")
    cards = [s for s in (x.strip() for x in body.split(",")) if s]
    if not cards:
        raise InvalidRecordError(f"event {index}: {text!r} names no card", index, text)
    try:
        return [_card(game, s, f"event {index}") for s in cards]
    except InvalidRecordError as exc:
        raise InvalidRecordError(str(exc), index, text) from None


def _special_reveal(text: str) -> bool:
    """Whether a reveal event names specialty tiles (``"reveal special B2"``)."""
    return text.strip()[len(REVEAL):].strip(" :").lower().startswith("special")


def _reveal_specials(game: Game, text: str, index: int) -> list[int]:
    body = text.strip()[len(REVEAL):].strip(" :")[len("special"):]
    names = [s for s in (x.strip() for x in body.split(",")) if s]
    if not game.v6:
        raise InvalidRecordError(f"event {index}: {text!r}: specialty tiles are revealed only in a V6 game",
                                 index, text)
    if not names:
        raise InvalidRecordError(f"event {index}: {text!r} names no specialty tile", index, text)
    out = []
    for name in names:
        try:
            out.append(game.components.specialty_tile(name).index)
        except KeyError:
            raise InvalidRecordError(
                f"event {index}: {text!r}: unknown specialty tile {name!r} (expected one of "
                f"{', '.join(t.name for t in game.components.specialty_tiles)})", index, text) from None
    return out


def _is_reveal(ev: str) -> bool:
    return ev.strip().lower().startswith(REVEAL)


class _ForcedSpecials:
    """A specialty-tile hook that places the named tiles, in order, from the stack drawn from."""

    def __init__(self, tiles: list[int], game: Game, index: int, text: str):
        self.tiles = list(tiles)
        self.game = game
        self.index, self.text = index, text

    def __call__(self, st: State, r: int) -> int:
        stack = st.spec_undrawn[r]
        if not self.tiles:
            return stack.pop()
        t = self.tiles.pop(0)
        if t not in stack:
            sp = self.game.components.specialty_tiles
            raise InvalidRecordError(f"event {self.index}: {self.text!r}: specialty tile {sp[t].name} is not "
                                     f"undrawn in stack {SPECIALTY_STACKS[r]} "
                                     f"(undrawn: {', '.join(sorted(sp[x].name for x in stack)) or 'none'})",
                                     self.index, self.text)
        stack.remove(t)
        return t


class _ForcedDraws:
    """A draw hook that turns up the named cards, in order, from the undrawn deck."""

    def __init__(self, cards: list[int], names: list[str], index: int, text: str):
        self.cards = list(cards)
        self.names = names
        self.index, self.text = index, text

    def __call__(self, st: State) -> int:
        if not self.cards:
            return st.deck.pop()
        t = self.cards.pop(0)
        if t not in st.deck:
            raise InvalidRecordError(f"event {self.index}: {self.text!r}: no undrawn {self.names[t]} card is left "
                                     f"to turn up", self.index, self.text)
        del st.deck[len(st.deck) - 1 - st.deck[::-1].index(t)]  # the topmost such card
        return t


def replay(record: Mapping[str, Any], upto: int | None = None, components: Components | None = None,
           source: str | None = None, movers: list[int] | None = None,
           score_log: list | None = None, steps: list | None = None) -> State:
    """The state after the first ``upto`` decisions of ``record`` (all by default).

    Raises :class:`InvalidRecordError` at the first bad event with its index,
    its text and the legal alternatives. ``movers``, if given, receives the seat
    that made each decision replayed; ``score_log``, if given, the reference
    engine's scoring log (``kwsearch.scoring.reports_from_log`` explains it);
    ``steps``, if given, receives ``(state before, action)`` for each decision (the
    state a copy, as the deciding seat saw it; ``kwsearch review`` analyses them).
    """
    try:
        return _replay(record, upto, components, movers, score_log, steps)
    except InvalidRecordError as exc:
        if source:
            raise InvalidRecordError(f"{source}: {exc}", exc.index, exc.event, exc.legal) from None
        raise


def _replay(record: Mapping[str, Any], upto: int | None, components: Components | None,
            movers: list[int] | None = None, score_log: list | None = None,
            steps: list | None = None) -> State:
    if not isinstance(record, Mapping):
        raise InvalidRecordError("expected a JSON object")
    if record.get("format") != RECORD_FORMAT:
        raise InvalidRecordError(f"format: expected {RECORD_FORMAT!r}, got {_short(record.get('format'))}")
    game = _options(record, components)
    _check_header(record, game.num_players)
    state = _setup_state(record, game)
    events = record.get("events", [])
    if not isinstance(events, list):
        raise InvalidRecordError("events: expected a list of strings")
    scoring = record.get("scoring")  # derived from the events, so only its shape is checked
    if scoring is not None and (not isinstance(scoring, list) or not all(isinstance(x, Mapping) for x in scoring)):
        raise InvalidRecordError("scoring: expected a list of scoring objects (docs/formats.md), "
                                 f"got {json.dumps(scoring)[:60]}")
    state.score_log = score_log
    names = [ct.name for ct in game.components.card_types]
    decisions = 0
    i = 0
    while i < len(events):
        if upto is not None and decisions >= upto:
            break
        ev = events[i]
        if not isinstance(ev, str):
            raise InvalidRecordError(f"event {i}: expected a string, got {_short(ev)}", i, str(ev))
        if _is_reveal(ev):
            raise InvalidRecordError(f"event {i}: {ev!r} follows no decision that turned up cards", i, ev)
        # The reveals that follow this decision say which cards it turned up.
        forced: list[int] = []
        specials: list[int] = []
        j = i + 1
        while j < len(events) and isinstance(events[j], str) and _is_reveal(events[j]):
            if _special_reveal(events[j]):
                specials += _reveal_specials(game, events[j], j)
            else:
                forced += _reveal_cards(game, events[j], j)
            j += 1
        try:
            action = state.parse_move(ev)
        except IllegalMoveError as exc:
            raise InvalidRecordError(f"event {i}: {exc}", i, ev, exc.legal) from None
        hook = _ForcedDraws(forced, names, j - 1, events[j - 1] if j - 1 > i else ev)
        if movers is not None:
            movers.append(state.current_player())
        if steps is not None:
            steps.append((state.copy(), action))
        shook = _ForcedSpecials(specials, game, j - 1, events[j - 1] if j - 1 > i else ev)
        state.draw_hook = hook
        state.special_hook = shook
        try:
            state.apply(action)
        finally:
            state.draw_hook = None
            state.special_hook = None
        if hook.cards:
            raise InvalidRecordError(f"event {j - 1}: {events[j - 1]!r} names {len(forced)} cards but the decision "
                                     f"turned up {len(forced) - len(hook.cards)}", j - 1, events[j - 1])
        if shook.tiles:
            raise InvalidRecordError(f"event {j - 1}: {events[j - 1]!r} names {len(specials)} specialty tiles but "
                                     f"the decision placed {len(specials) - len(shook.tiles)}", j - 1, events[j - 1])
        decisions += 1
        i = j
    if upto is not None and decisions < upto:
        raise InvalidRecordError(f"ply {upto}: the record has only {decisions} decisions")
    result = record.get("result")
    if upto is None and isinstance(result, Mapping):
        if not state.is_terminal():
            raise InvalidRecordError("result: the record has a result but its game is not over")
        if list(result["money"]) != state.money():
            raise InvalidRecordError(f"result.money: {result['money']} differs from the money of the replayed "
                                     f"game {state.money()}")
    return state


def count_decisions(record: Mapping[str, Any]) -> int:
    return sum(1 for e in record.get("events", []) if isinstance(e, str) and not _is_reveal(e))


class Recorder:
    """Applies actions to a state and appends them (and any reveals) to a record."""

    def __init__(self, record: dict[str, Any], state: State):
        self.record = record
        self.state = state

    @classmethod
    def start(cls, game: Game, seed: int = 0, seat_names: list[str] | None = None) -> "Recorder":
        state = game.new_initial_state(seed, engine="reference")
        return cls(record_header(state, seed, seat_names), state)

    def apply(self, action: int, draw: Callable[[State], int] | None = None,
              draw_special: Callable[[State, int], int] | None = None) -> None:
        """Apply ``action`` and record it with the cards (and V6 specialty tiles) it turned up.

        ``draw(state)``, if given, says which card comes up instead of the top of
        the state's deck (mirror mode asks the table); it removes the card from
        ``state.deck`` and returns it. ``draw_special(state, r)`` does the same for
        the specialty tile placed from round ``r``'s stack (``state.spec_undrawn[r]``).
        """
        st = self.state
        text = st.action_to_text(action)
        drawn: list[int] = []

        def hook(s: State) -> int:
            card = draw(s) if draw is not None else s.deck.pop()
            drawn.append(card)
            return card

        placed: list[int] = []

        def special_hook(s: State, r: int) -> int:
            t = draw_special(s, r) if draw_special is not None else s.spec_undrawn[r].pop()
            placed.append(t)
            return t

        st.draw_hook = hook
        st.special_hook = special_hook
        try:
            st.apply(action)
        finally:
            st.draw_hook = None
            st.special_hook = None
        self.record["events"].append(text)
        if drawn:
            names = [ct.name for ct in st.game.components.card_types]
            self.record["events"].append(f"{REVEAL} " + ", ".join(names[t] for t in drawn))
        if placed:
            sp = st.game.components.specialty_tiles
            self.record["events"].append(f"{REVEAL} special " + ", ".join(sp[t].name for t in placed))
        if st.is_terminal():
            self.record["result"] = {"money": st.money()}

    def play(self, text: str) -> int:
        action = self.state.parse_move(text)
        self.apply(action)
        return action


def load_file(path: str | Path, ply: int | None = None, seed: int = 0) -> tuple[State, dict[str, Any]]:
    """Load a game record or a position file; returns (state, the parsed object).

    ``ply`` applies to game records only. Errors name the file.
    """
    obj = read_json(path)
    fmt = obj.get("format") if isinstance(obj, Mapping) else None
    if fmt == RECORD_FORMAT:
        return replay(obj, upto=ply, source=str(path)), obj
    if fmt == POSITION_FORMAT:
        if ply is not None:
            raise KwsearchError(f"{path}: --ply applies to game records, this is a position file")
        return position_to_state(obj, seed=seed, source=str(path), reachable=True), obj
    raise KwsearchError(f"{path}: format: expected {RECORD_FORMAT!r} or {POSITION_FORMAT!r}, "
                        f"got {_short(fmt)}")
