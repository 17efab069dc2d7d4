"""The reference rules engine of Kraftwagen (pure Python): :class:`State`.

This module is the readable statement of ``../shared/RULES.md`` in code; the fast
engine (:mod:`kwsearch._fast`) must agree with it action for action. What both
engines share — :class:`~kwsearch.game.Game`, the task kinds, the generator, the
:class:`~kwsearch.game.GameState` protocol — is in :mod:`kwsearch.game` (and
re-exported here); what a seat sees is :mod:`kwsearch.observation`; reading a
position file is :func:`kwsearch.formats.position_to_state`. The API follows
OpenSpiel:

    >>> from kwsearch.game import Game
    >>> game = Game(num_players=4)
    >>> state = game.new_initial_state(seed=1, engine="reference")
    >>> state.current_player()          # seat 3 chooses a start tile first
    3
    >>> [state.action_to_text(a) for a in state.legal_actions()]
    ['start A', 'start B', 'start C', 'start D']
    >>> state.play("start A")           # returns the action id
    0
    >>> state.pending(), state.seats[3].start_tile
    ('engine_dest', 0)

Decision protocol
-----------------
A turn is a sequence of small decisions. The state keeps a stack of *tasks*
(``State.tasks``, top last). After every action the engine runs tasks until the
top one needs a choice with two or more options (a *decision*); a choice with a
single option is made automatically and never shown. The task kinds are listed
in :data:`TASKS`; the decision kinds and the action ids in ``docs/actions.md``.

Hidden information
------------------
Only the order of the undrawn research cards is hidden (RULES.md §10), and
with the V6 specialty tiles (``Game(v6=True)``, RULES.md §11) the order of the
undrawn specialty tiles of each stack. The orders live in the state (``deck``
and ``spec_undrawn[stack]``, top last) together with the 64-bit state of the
generator used when the discard pile or a used specialty stack is reshuffled
(``rng``); :meth:`State.determinize` redraws all of them,
:meth:`State.observation` shows none.
"""

from __future__ import annotations

import bisect
import random
from typing import Any, Callable, Iterable, NamedTuple

from . import actions as A
from .actions import ENGINE_CODE, tile_code
from .components import ALL_ACTIONS, AWARDS, ENGINEERS, MAX_BUYERS, MAX_TILE_VALUE, PREFERENCES
# The shared definitions, re-exported: ``from kwsearch.rules import Game, TASKS`` keeps working.
from .game import (ACTION, OVER, SCORING, SEAT, SETUP, SPECIAL, TASKS, TERMINAL, Game,  # noqa: F401
                   is_seat, parse_checked, rng_next, rng_shuffle, seed_to_rng, win_shares)
from .observation import observation, state_to_json

#: A player's workers that serve as markers, never as workers: the action-track
#: marker and the lap counter (RULES.md §1).
WORKERS_AS_MARKERS = 2

# Which action kinds may be done in either order with the same outcome
# [decision, docs/rules-notes.md]: the buyer action touches nothing the other
# actions read; moving the GP car is independent of hiring and of car bodies.
_COMMUTE = {frozenset(p) for p in [
    ("gp", "body"), ("gp", "hire"), ("gp_engine2", "hire"), ("gp_engine2", "body"),
    ("gp_start2", "hire"), ("gp_start2", "body")]}


def _commutes(a: str, b: str, seat: "Seat") -> bool:
    """Whether doing ``a`` then ``b`` always ends as ``b`` then ``a`` for this seat."""
    if a == b or "buyer" in (a, b) or frozenset((a, b)) in _COMMUTE:
        return True
    pair = frozenset((a, b))
    if pair in (frozenset(("hire", "body")), frozenset(("hire", "engine"))):
        # Hiring changes research points only by activating an inactive development.
        return not seat.dev_inactive
    if pair == frozenset(("hire", "research")):
        # A new development is activated from the canteen either way, unless the
        # canteen is empty (then hiring first activates it before its tile is taken, so the
        # tile counts its points; RULES.md §5.1).
        return not seat.dev_inactive and seat.canteen > 0
    if pair == frozenset(("body", "engine")):
        # With two free workshops neither tile can displace the other.
        return len(seat.workshops) <= 1
    return False


def _bonus_commutes(kind: str, tile, st: "State") -> bool:
    """Whether a V6 tile's standard action ``kind`` and its bonus end the same in either
    order for the seat in turn (RULES.md §11: the order is asked only when it can matter,
    as for a tile's actions, reading 1). Conservative: a pair is "commuting" only where
    the two touch nothing in common; doubtful pairs are asked.
    """
    if kind == "buyer":
        return True  # the buyer action touches nothing a bonus reads or writes
    s = st.seats[st.turn_seat]
    b = tile.bonus
    if b in ("engine", "body"):
        # A tile of a fixed value: as the action of that kind, except that hiring cannot
        # change its value (two takes of one kind share the supply and the workshops,
        # so they are asked).
        return kind == "hire" or (kind != b and _commutes(kind, b, s))
    if b == "gp_engine":
        if kind in ("hire", "body", "gp_start2"):
            return True  # they neither read nor change the GP engine or the engine supply
        if kind == "gp":
            # Racing first or after the upgrade matters, unless there is no upgrade.
            v = s.gp_engine + 1
            return v > MAX_TILE_VALUE or st.supply_engine[v - 1] == 0
        return False
    if b == "canteen_money":
        if kind in ("body", "engine", "gp", "gp_engine2", "gp_start2"):
            return True  # the canteen is not touched
        if kind == "hire":
            # The worker hired first counts, unless none comes or it activates a development.
            return s.supply == 0 or bool(s.dev_inactive)
        return False
    if b == "remove_car":
        if not any(car[0] == st.turn_seat for car in st.market):
            return True  # nothing to remove, and no action puts a car on the market
        if kind in ("gp", "gp_start2"):
            return True
        if kind == "hire":
            # The removed car's workers return to the supply: the hire and the Worker
            # award can depend on them unless the supply has workers to spare.
            return s.supply >= 2
        return False
    if b == "sell_tile":
        return kind in ("hire", "gp", "gp_start2")  # the workshops are not touched
    # research_discard: the top discard is unknown until the other action is done,
    # except that only a research action can add to an empty discard pile.
    return not st.discard and kind != "research"


# ---------------------------------------------------------------------------
# The buyers' rule (RULES.md §8), shared with the board's "who would buy now"
# ---------------------------------------------------------------------------


_PRICE_PREF = PREFERENCES.index("price")


class Purchase(NamedTuple):
    """One buyer's purchase at a sales scoring (:func:`choose_sales`)."""
    buyer: int     # the buyer's index among the active buyers
    car: int       # the car's index on the market
    mult: int      # the price multiplier (2 or 3 for a price buyer, else 1)
    payment: int   # price times multiplier, plus the Daimler marker on the buyer


# The entries of ``State.score_log`` (what a scoring did, for kwsearch.scoring's reports). Each
# is a tuple whose first field names its kind, so ``entry.kind == "end"`` and ``entry[0]`` agree.

class ScoreStart(NamedTuple):
    """A scoring begins (the round's last turn ended)."""
    kind: str            # "start"
    round: int
    money: list[int]     # each seat's money before it


class ScoreBenz(NamedTuple):
    """Benz's owner adds a fifth buyer (RULES.md §8)."""
    kind: str            # "benz"
    seat: int
    pref: int            # the buyer's preference (index in components.PREFERENCES)
    white: int           # the white money the seat took from that stack
    got_award: bool      # whether the Buyer award came with it


class RaceCar(NamedTuple):
    """A car in the race's ranking (a neutral car has seat -1)."""
    laps: int
    space: int
    seat: int


class ScoreRace(NamedTuple):
    """The race is scored (RULES.md §7)."""
    kind: str            # "race"
    cars: list[RaceCar]  # best first
    laps: list[int]      # each seat's laps
    spaces: list[int]    # each seat's space (0: no car in the race)


class ScoreSales(NamedTuple):
    """The buyers buy (RULES.md §8)."""
    kind: str            # "sales"
    market: list[list[int]]  # the market cars, as State.market holds them
    active: list[int]        # the active buyers' preferences
    daimler: list[int]       # the Daimler marker on each active buyer (0: none)
    sales: list[Purchase]


class ScoreEnd(NamedTuple):
    """The scoring ends."""
    kind: str            # "end"
    round: int
    money: list[int]     # each seat's money after it


def buyers_choices(market, active) -> list[tuple[int, int]]:
    """Which car each buyer takes (RULES.md §8), without the money: ``(buyer index, car index)``
    for each buyer of preference indices ``active`` that finds an unsold car on ``market``, in
    buyer order. A buyer takes the car of the highest value for his preference (body with a
    Maybach marker, engine with a Horch marker, workers; a price buyer values every car alike),
    ties going to the lowest price; a buyer who finds no unsold car buys nothing [decision].
    """
    # per car: (-value, price) for each preference; the smallest key wins (ties: the lowest
    # price, and prices are unique)
    keys = [((-body - bb, price), (-engine - eb, price), (-workers, price), (0, price))
            for _, body, engine, workers, price, bb, eb in market]
    sold = [False] * len(market)
    out = []
    for b, p in enumerate(active):
        best, best_key = -1, None
        for i, car_keys in enumerate(keys):
            if sold[i]:
                continue
            key = car_keys[p]
            if best_key is None or key < best_key:
                best, best_key = i, key
        if best < 0:
            continue  # no unsold car: the buyer buys nothing [decision]
        sold[best] = True
        out.append((b, best))
    return out


def choose_sales(market, active, active_daimler, has_opel, components) -> list[Purchase]:
    """The buyers' choices of RULES.md §8 over ``market`` (cars as the reference engine holds
    them: ``[owner, body, engine, workers, price, maybach, horch]``).

    Returns a :class:`Purchase` ``(buyer, car, mult, payment)`` for each buyer that buys, in
    buyer order: the car is :func:`buyers_choices`'s; a price buyer pays 2x its price (3x to a
    seller who owns Opel), every other buyer 1x, plus the Daimler marker on the buyer
    (``active_daimler``). ``has_opel(seat)`` tells whether the seller owns Opel (asked for price
    buyers only). The reference engine's sales task runs this very function, so the prospective
    sales shown on the board (and the heuristic bot's projections) are the sales scoring will
    make with the buyers active now.
    """
    out = []
    for b, car in buyers_choices(market, active):
        owner, price = market[car][0], market[car][4]
        mult = 1
        if active[b] == _PRICE_PREF:
            mult = components.opel_multiplier if has_opel(owner) else components.price_buyer_multiplier
        out.append(Purchase(b, car, mult, price * mult + active_daimler[b]))
    return out


# ---------------------------------------------------------------------------
# Per-seat record
# ---------------------------------------------------------------------------


class Seat:
    """Everything one player owns. Copied explicitly by :meth:`copy`."""

    __slots__ = ("money", "supply", "canteen", "workshops", "gp_engine", "laps", "space",
                 "engineers", "maybach", "horch", "daimler", "diesel", "benz",
                 "dev_active", "dev_inactive", "start_tile", "gp_tile")

    def copy(self) -> "Seat":
        s = Seat.__new__(Seat)
        s.money, s.supply, s.canteen = self.money, self.supply, self.canteen
        s.workshops = list(self.workshops)
        s.gp_engine, s.laps, s.space = self.gp_engine, self.laps, self.space
        s.engineers = self.engineers
        s.maybach, s.horch, s.daimler = list(self.maybach), list(self.horch), list(self.daimler)
        s.diesel, s.benz = self.diesel, self.benz
        s.dev_active, s.dev_inactive = list(self.dev_active), list(self.dev_inactive)
        s.start_tile = self.start_tile
        s.gp_tile = self.gp_tile
        return s

    def has(self, engineer: str) -> bool:
        return bool(self.engineers >> ENGINEERS.index(engineer) & 1)


# ---------------------------------------------------------------------------
# State
# ---------------------------------------------------------------------------


class State:
    """A position plus its pending decision. See the module docstring."""

    __slots__ = ("game", "phase", "round", "chain", "deck", "display", "discard", "rng",
                 "stacks", "active", "active_daimler", "white", "track", "prices", "market",
                 "supply_body", "supply_engine", "awards", "offered", "seats",
                 "turn_seat", "remaining", "marker_placed", "car", "tasks", "actor", "_legal",
                 "draw_hook", "spec_undrawn", "spec_used", "special_hook", "score_log")

    # ----- construction -------------------------------------------------

    @classmethod
    def blank(cls, game: Game) -> "State":
        """A state with every field at its start value and nothing set up (no chain, no
        deck, no task): the canvas :meth:`from_setup`, the position decoder and the fast
        engine's conversion fill in."""
        c = game.components
        st = cls.__new__(cls)
        st.game = game
        st.phase = SETUP
        st.round = 1
        st.chain = []
        st.deck, st.display, st.discard = [], [], []
        st.rng = 0
        st.stacks = [c.buyers_per_preference] * len(PREFERENCES)
        st.active, st.active_daimler = [], []
        st.white = [0] * len(PREFERENCES)
        st.track = game.track_start
        st.prices = []
        st.market = []
        st.supply_body = list(c.body_tiles)
        st.supply_engine = list(c.engine_tiles)
        st.awards = [-1] * len(AWARDS)
        st.offered = []
        st.seats = []
        for _ in range(game.num_players):
            s = Seat.__new__(Seat)
            s.money = 0
            s.canteen = c.canteen_start
            s.supply = c.workers_per_player - c.canteen_start - WORKERS_AS_MARKERS
            s.workshops = []
            s.gp_engine, s.laps, s.space = 1, 0, 0
            s.engineers = 0
            s.maybach, s.horch, s.daimler = [], [], []
            s.diesel = s.benz = 0
            s.dev_active, s.dev_inactive = [], []
            s.start_tile = -1
            s.gp_tile = False  # the GP car shows its printed engine 1 (no tile)
            st.seats.append(s)
        st.turn_seat = -1
        st.remaining = []
        st.marker_placed = False
        st.car = []
        st.tasks = []
        st.actor = -1
        st._legal = []
        st.draw_hook = None
        # V6 (RULES.md §11): per stack, the undrawn tiles (top last, hidden order)
        # and the used ones (in the order they were discarded).
        st.spec_undrawn = [[] for _ in range(game.num_stacks)]
        st.spec_used = [[] for _ in range(game.num_stacks)]
        st.special_hook = None
        st.score_log = None
        return st

    @classmethod
    def new(cls, game: Game, seed: int) -> "State":
        """Random set-up from ``seed`` (RULES.md §2), then run to the first decision."""
        c, n = game.components, game.num_players
        rng = seed_to_rng(seed)
        # §2.1 / §3: one-action tiles shuffled, then two-action, then three-action (front).
        tiles: list[int] = []
        for size in sorted({len(t.actions) for t in c.action_tiles}):
            group = [t.index for t in c.action_tiles if len(t.actions) == size]
            rng = rng_shuffle(rng, group)
            tiles += group
        # §2.2: research deck (top card last).
        deck = [ct.index for ct in c.card_types for _ in range(ct.count)]
        rng = rng_shuffle(rng, deck)
        # §2.5: the start-tile offer (two random tiles with two players).
        offer = [t.index for t in c.start_tiles]
        rng = rng_shuffle(rng, offer)
        # §11: each specialty stack shuffled face down (V6 only, so other games draw as before).
        stacks = []
        for r in range(game.num_stacks):
            stack = [t.index for t in c.specialty_stack(r)]
            rng = rng_shuffle(rng, stack)
            stacks.append(stack)
        return cls.from_setup(game, tiles, deck, offer[:c.start_tiles_offered[n]], rng, stacks)

    @classmethod
    def from_setup(cls, game: Game, tiles: list[int], deck: list[int], offered: list[int], rng: int,
                   stacks: list[list[int]] | None = None) -> "State":
        """Set up with a given tile order (tail to front), deck order, start-tile offer and,
        with V6, specialty stacks (top last)."""
        st = cls.blank(game)
        st.chain = [SEAT + s for s in range(game.num_players)] + list(tiles)
        if game.v6:
            st.spec_undrawn = [list(x) for x in stacks]
            # §11: the top A tile goes to the front of the chain as the 11th tile.
            st.chain.append(SPECIAL + st.spec_undrawn[0].pop())
        st.deck = list(deck)
        st.offered = sorted(offered)
        st.rng = rng
        st._refill_display()  # §2.2: two cards face up
        st._prepare_round()
        st.tasks = [["turn", 0]] + [["setup", s] for s in range(game.num_players)]
        st._run()
        return st

    # ----- OpenSpiel-style API -------------------------------------------

    def current_player(self) -> int:
        """The seat to decide, or :data:`TERMINAL` when the game is over."""
        return TERMINAL if self.phase == OVER else self.actor

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def legal_actions(self) -> list[int]:
        """Sorted action ids of the pending decision (empty only when terminal)."""
        return list(self._legal)

    def apply(self, action: int) -> None:
        """Apply a legal ``action`` (unchecked: use :meth:`play` for untrusted input)."""
        self._resolve(action)
        self._run()

    def play(self, text: str) -> int:
        """Parse ``text``, check it is legal, apply it; returns the action id.

        Raises :class:`IllegalMoveError` (listing the legal options in its
        message and in ``.legal``) for text that is no move or a move that is not
        legal here.
        """
        action = self.parse_move(text)
        self.apply(action)
        return action

    def parse_move(self, text: str) -> int:
        """The legal action id that ``text`` names (checked, not applied)."""
        return parse_checked(self, text)

    def action_to_text(self, action: int) -> str:
        return self.game.notation.text(action)

    def money(self) -> list[int]:
        return [s.money for s in self.seats]

    def returns(self) -> list[float]:
        """Win share per seat: 1 for a sole winner, split on ties, 0 otherwise.

        Defined on any state (it scores the current money); meaningful at the end.
        """
        return win_shares(self.money())

    def copy(self) -> "State":
        st = State.__new__(State)
        st.game = self.game
        st.phase, st.round = self.phase, self.round
        st.chain = list(self.chain)
        st.deck, st.display, st.discard = list(self.deck), list(self.display), list(self.discard)
        st.rng = self.rng
        st.stacks = list(self.stacks)
        st.active, st.active_daimler = list(self.active), list(self.active_daimler)
        st.white = list(self.white)
        st.track = self.track
        st.prices = list(self.prices)
        st.market = [list(car) for car in self.market]
        st.supply_body, st.supply_engine = list(self.supply_body), list(self.supply_engine)
        st.awards = list(self.awards)
        st.offered = list(self.offered)
        st.seats = [s.copy() for s in self.seats]
        st.turn_seat = self.turn_seat
        st.remaining = list(self.remaining)
        st.marker_placed = self.marker_placed
        st.car = list(self.car)
        st.tasks = [list(t) for t in self.tasks]
        st.actor = self.actor
        st._legal = list(self._legal)
        st.draw_hook = None
        st.spec_undrawn = [list(x) for x in self.spec_undrawn]
        st.spec_used = [list(x) for x in self.spec_used]
        st.special_hook = None
        st.score_log = None  # explaining is off in copies (the search copies a lot)
        return st

    __copy__ = copy

    def __deepcopy__(self, memo: dict) -> "State":
        return self.copy()

    def determinize(self, rng: random.Random | int) -> None:
        """Redraw the hidden information: the order of the undrawn research cards,
        of each V6 specialty stack's undrawn tiles, and the generator of later
        reshuffles. Everything observable stays.
        """
        seed = rng if isinstance(rng, int) else rng.getrandbits(64)
        s = seed_to_rng(seed)
        self.deck.sort()  # from a canonical order, so the result never depends on the true order
        s = rng_shuffle(s, self.deck)
        for stack in self.spec_undrawn:
            stack.sort()
            s = rng_shuffle(s, stack)
        self.rng = s

    def observation(self, seat: int | None = None) -> dict[str, Any]:
        """What ``seat`` may know: the position without the deck order
        (:func:`kwsearch.observation.observation`, the same for every seat)."""
        return observation(self, seat)

    def to_json(self) -> dict[str, Any]:
        """The full state as a position object plus its hidden part (deck order, generator);
        :func:`kwsearch.formats.position_to_state` reads it back."""
        return state_to_json(self)

    def __repr__(self) -> str:
        if self.phase == OVER:
            return f"<State over money={self.money()}>"
        return f"<State round {self.round} {self.phase}, seat {self.actor} to decide {self.tasks[-1][0]}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.to_json() == other.to_json()

    # ----- derived values -----------------------------------------------

    def research_points(self, seat: int) -> tuple[int, int]:
        """(body, engine) research points: start tile + active developments."""
        c = self.game.components
        s = self.seats[seat]
        body = c.start_body if s.start_tile >= 0 else 0
        engine = c.start_engine if s.start_tile >= 0 else 0
        for t in s.dev_active:
            ct = c.card_types[t]
            body += ct.body
            engine += ct.engine
        return body, engine

    def pending(self) -> str:
        """The kind of the pending decision (a TASKS name), or "over"."""
        return OVER if self.phase == OVER else self.tasks[-1][0]

    # ----- the task machine ---------------------------------------------

    def settle(self) -> list[int]:
        """Carry out tasks until a decision with two or more options is pending (or the game is
        over) and return its options, as :meth:`legal_actions`. For a state built field by field
        (a position being read, a fast state converted back): on a state that is already at its
        decision it only lists the options again, changing nothing.
        """
        self._run()
        return list(self._legal)

    def _run(self) -> None:
        """Run tasks until a decision with two or more options is pending."""
        while self.tasks:
            options = self._step()
            if options is None:
                continue  # the task did its work (and popped or replaced itself)
            if len(options) == 1:
                self._resolve(options[0])  # forced: never shown as a decision
                continue
            self._legal = sorted(options)
            return
        self.phase = OVER
        self.actor = -1
        self._legal = []

    def _step(self) -> list[int] | None:
        """Do the top task, or return the options of its decision."""
        kind, arg = self.tasks[-1]
        handler: Callable[[int], list[int] | None] = getattr(self, "_task_" + kind)
        return handler(arg)

    def _resolve(self, action: int) -> None:
        kind, arg = self.tasks[-1]
        getattr(self, "_choose_" + kind)(action, arg)

    def _pop(self) -> None:
        self.tasks.pop()

    def _push(self, kind: str, arg: int = 0) -> None:
        self.tasks.append([kind, arg])

    # ----- set-up (RULES.md §2.5) ---------------------------------------

    def _task_setup(self, seat: int) -> list[int]:
        self.actor = seat
        taken = {s.start_tile for s in self.seats}
        return [A.START + t for t in self.offered if t not in taken]

    def _choose_setup(self, action: int, seat: int) -> None:
        t = action - A.START
        self.seats[seat].start_tile = t  # its development side: 1 body + 1 engine point
        self._pop()
        self._begin_tile(seat, self.game.components.start_tiles[t].actions)

    def _begin_tile(self, seat: int, acts: Iterable[str]) -> None:
        self.turn_seat = seat
        self.actor = seat
        self.remaining = sorted(acts, key=ALL_ACTIONS.index)
        self._push("tile")

    # ----- a turn (RULES.md §3, §4) -------------------------------------

    def _task_turn(self, _: int) -> list[int]:
        self.phase = ACTION
        seat = self.chain[0] - SEAT
        self.turn_seat = seat
        self.actor = seat
        return [A.TILE + e if e < SEAT else A.SPECIAL_TILE + e - SPECIAL for e in self.chain if not is_seat(e)]

    def _choose_turn(self, action: int, _: int) -> None:
        c = self.game.components
        entry = SPECIAL + action - A.SPECIAL_TILE if action >= A.SPECIAL_TILE else action - A.TILE
        seat = self.chain[0] - SEAT
        # The tail worker takes the tile's place; the tile goes to the front.
        i = self.chain.index(entry)
        self.chain[i] = self.chain[0]
        del self.chain[0]
        self.marker_placed = False
        self._pop()
        for kind in ("end_turn", "diesel", "daimler", "market"):
            self._push(kind)
        if entry < SEAT:
            self.chain.append(entry)
            self._begin_tile(seat, c.action_tiles[entry].actions)
            return
        # A specialty tile [book 9.0]: it is discarded and the current round's next
        # tile goes to the front at once [reading 15]; the seat does the standard
        # action and the bonus in the order it chooses [decision, RULES.md §11].
        t = entry - SPECIAL
        self._discard_special(t)
        self.chain.append(SPECIAL + self._draw_special(self.round - 1))
        self.turn_seat = seat
        self._push("special_order", t)

    def _task_special_order(self, t: int) -> list[int] | None:
        """Standard action or bonus first (RULES.md §11 [decision]); asked only when the
        order can change the outcome (reading 1), else the standard action first."""
        tile = self.game.components.specialty_tiles[t]
        if _bonus_commutes(tile.action, tile, self):
            self._choose_special_order(A.ORDER_ACTION, t)
            return None
        self.actor = self.turn_seat
        return [A.ORDER_ACTION, A.ORDER_BONUS]

    def _choose_special_order(self, action: int, t: int) -> None:
        self._pop()
        seat = self.turn_seat
        if action == A.ORDER_ACTION:
            self._push("special", t)  # under the tile: the bonus after the action
            self._begin_tile(seat, (self.game.components.specialty_tiles[t].action,))
        else:
            self._begin_tile(seat, (self.game.components.specialty_tiles[t].action,))
            self._push("special", t)  # on top: the bonus first

    def _task_tile(self, _: int) -> list[int] | None:
        rem = self.remaining
        if not rem:
            self._pop()
            return None
        kinds = sorted(set(rem), key=ALL_ACTIONS.index)
        seat = self.seats[self.turn_seat]
        contested = [k for k in kinds if not all(_commutes(k, o, seat) for o in kinds)]
        if len(contested) >= 2:
            self.actor = self.turn_seat
            return [A.DO + ALL_ACTIONS.index(k) for k in contested]
        # Every remaining kind commutes with the others: canonical order.
        self._start_action(kinds[0])
        return None

    def _choose_tile(self, action: int, _: int) -> None:
        self._start_action(ALL_ACTIONS[action - A.DO])

    def _start_action(self, kind: str) -> None:
        self.remaining.remove(kind)
        c = self.game.components
        if kind == "hire":
            self._push("hire", 1)
        elif kind == "gp_engine2":
            self._push("gp_engine", c.gp_start_tile_engine)
        elif kind == "gp_start2":
            self._push("gp_start", c.gp_start_tile_space)
        elif kind == "gp":
            self._push("gp", self.seats[self.turn_seat].gp_engine)
        else:
            self._push(kind, 0)

    # ----- hire (RULES.md §4.1, §5.1) -----------------------------------

    def _task_hire(self, n: int) -> list[int] | None:
        seat = self.turn_seat
        s = self.seats[seat]
        while n > 0 and s.supply > 0:  # an empty supply forfeits the rest [book]
            kinds = sorted(set(s.dev_inactive))
            if len(kinds) >= 2:
                # The new worker must activate an inactive development [book]; with
                # several kinds the player chooses which [decision, docs/rules-notes.md].
                self.tasks[-1][1] = n
                self.actor = seat
                return [A.ACTIVATE + t for t in kinds]
            s.supply -= 1
            n -= 1
            if kinds:
                self._activate(s, kinds[0])
            else:
                s.canteen += 1
        self._pop()
        if s.supply == 0:
            self._award(seat, "worker")
        return None

    def _choose_hire(self, action: int, n: int) -> None:
        s = self.seats[self.turn_seat]
        s.supply -= 1
        self._activate(s, action - A.ACTIVATE)
        self.tasks[-1][1] = n - 1

    @staticmethod
    def _activate(s: Seat, t: int) -> None:
        """A worker from the supply goes onto inactive development ``t``. Its immediate
        tile, if any, was taken when the card was (RULES.md §5.1 [decision])."""
        s.dev_inactive.remove(t)
        bisect.insort(s.dev_active, t)

    # ----- research (RULES.md §4.1, §5) ---------------------------------

    def _task_research(self, _: int) -> list[int] | None:
        if not self.display:
            self._pop()  # nothing face up: the action does nothing [decision]
            return None
        self.actor = self.turn_seat
        return sorted({A.RESEARCH + t for t in self.display})

    def _choose_research(self, action: int, _: int) -> None:
        self._pop()
        t = action - A.RESEARCH
        self.display.remove(t)
        self.discard.extend(self.display)
        self.display = []
        self._refill_display()
        self._take_card(self.turn_seat, t)

    def _draw(self) -> int | None:
        if not self.deck:
            if not self.discard:
                return None
            self.deck, self.discard = self.discard, []
            self.rng = rng_shuffle(self.rng, self.deck)
        if self.draw_hook is not None:
            return self.draw_hook(self)
        return self.deck.pop()

    def _refill_display(self) -> None:
        while len(self.display) < 2:
            card = self._draw()
            if card is None:
                break  # fewer than two can be turned up: the display holds what there is [decision]
            self.display.append(card)

    def _take_card(self, seat: int, t: int) -> None:
        c = self.game.components
        ct = c.card_types[t]
        s = self.seats[seat]
        if ct.kind == "development":
            if s.canteen > 0:
                s.canteen -= 1
                bisect.insort(s.dev_active, t)  # the tile after activation: the new points count [book]
            else:
                bisect.insort(s.dev_inactive, t)
            if ct.tile:
                # Taken even while the card stays inactive, by the research points
                # without the card's own [decision, RULES.md §5.1].
                self._push(ct.tile, 0)
        elif ct.kind == "instant":
            self.discard.append(t)
            if ct.effect == "hire":
                self._push("hire", ct.amount)
            elif ct.effect == "gp":
                self._push("gp", ct.amount)
            else:  # one body & one engine, in the order the player chooses [decision, §5.2]
                self._push("card_order")
        else:
            eng = ct.engineer
            s.engineers |= 1 << ENGINEERS.index(eng)
            if eng == "maybach":
                s.maybach = list(c.maybach_markers)
            elif eng == "horch":
                s.horch = list(c.horch_markers)
            elif eng == "daimler":
                s.daimler = list(c.daimler_markers)
            elif eng == "diesel":
                s.diesel = c.diesel_markers
            elif eng == "benz":
                s.benz = c.benz_markers
            elif eng == "otto":
                self._push("research")
                self._push("hire", c.otto_workers)
            if bin(s.engineers).count("1") >= 3:
                self._award(seat, "engineers")

    def _task_card_order(self, _: int) -> list[int] | None:
        """The "one body & one engine" card: which is taken first (RULES.md §5.2
        [decision, as for a tile's actions]); asked only when the order can change the
        outcome (reading 1), else the body first."""
        if _commutes("body", "engine", self.seats[self.turn_seat]):
            self._choose_card_order(A.ORDER_BODY, 0)
            return None
        self.actor = self.turn_seat
        return [A.ORDER_BODY, A.ORDER_ENGINE]

    def _choose_card_order(self, action: int, _: int) -> None:
        self._pop()
        first, second = ("body", "engine") if action == A.ORDER_BODY else ("engine", "body")
        self._push(second, 0)
        self._push(first, 0)

    # ----- bodies and engines (RULES.md §4.1) ---------------------------

    def _take_tile(self, kind: str, value: int) -> int:
        """Take the best tile of ``kind`` not above ``value`` from the supply [decision]; 0 if none."""
        supply = self.supply_body if kind == "body" else self.supply_engine
        for v in range(min(value, len(supply)), 0, -1):
            if supply[v - 1] > 0:
                supply[v - 1] -= 1
                return v
        return 0

    def _task_body(self, value: int) -> None:
        self._pop()
        if not value:
            value = self.research_points(self.turn_seat)[0]
        v = self._take_tile("body", value)
        if v:
            self._push("place", tile_code("body", v))

    def _task_engine(self, value: int) -> None:
        self._pop()
        if not value:
            value = self.research_points(self.turn_seat)[1]
        v = self._take_tile("engine", value)
        if v:
            self._push("engine_dest", v)

    def _task_engine_dest(self, v: int) -> list[int]:
        # Both destinations, whatever the values [book, RULES.md §4.1]: an equal or
        # lower engine in the GP car can spare a workshop tile.
        self.actor = self.turn_seat
        return [A.ENGINE_WORKSHOP, A.ENGINE_GP]

    def _choose_engine_dest(self, action: int, v: int) -> None:
        self._pop()
        if action == A.ENGINE_WORKSHOP:
            self._push("place", tile_code("engine", v))
        else:
            self._install_gp_engine(v)

    def _install_gp_engine(self, v: int) -> None:
        s = self.seats[self.turn_seat]
        old = s.gp_engine
        if s.gp_tile:
            self.supply_engine[old - 1] += 1  # the printed engine 1 is not a tile [book]
        s.gp_engine = v
        s.gp_tile = True
        if s.has("bugatti") and v > old:
            # Bugatti: race at once with the new engine, only when it is higher [book, §5.3].
            self._push("gp", v)

    def _task_place(self, code: int) -> list[int] | None:
        s = self.seats[self.turn_seat]
        if len(s.workshops) < 3:
            self._pop()
            self._put_in_workshop(code)
            return None
        self.actor = self.turn_seat
        return sorted({A.GIVEUP + w for w in s.workshops})

    def _choose_place(self, action: int, code: int) -> None:
        self._pop()
        s = self.seats[self.turn_seat]
        old = action - A.GIVEUP
        s.workshops.remove(old)
        self._return_tile(old)
        self._put_in_workshop(code)

    def _return_tile(self, code: int) -> None:
        if code > ENGINE_CODE:
            self.supply_engine[code - ENGINE_CODE - 1] += 1
        else:
            self.supply_body[code - 1] += 1

    def _put_in_workshop(self, code: int) -> None:
        seat = self.turn_seat
        s = self.seats[seat]
        s.workshops.append(code)
        s.workshops.sort()
        # Awards (RULES.md §9): the higher one first, both at once when both are free.
        if code > ENGINE_CODE:
            v = code - ENGINE_CODE
            if v >= 7:
                self._award(seat, "engine7")
            if v >= 4:
                self._award(seat, "engine4")
        else:
            if code >= 6:
                self._award(seat, "body6")
            if code >= 3:
                self._award(seat, "body3")

    # ----- Grand Prix (RULES.md §7) -------------------------------------

    def _task_gp(self, spaces: int) -> None:
        self._pop()
        seat = self.turn_seat
        if self.seats[seat].has("porsche"):
            spaces += 1
        self._move_car(seat, spaces)

    def _occupied(self, seat: int) -> set[int]:
        occ = {s.space for i, s in enumerate(self.seats) if i != seat and s.space > 0}
        occ.update(self.game.neutral_cars)
        return occ

    def _move_car(self, seat: int, spaces: int) -> None:
        L = self.game.components.gp_lap_length
        s = self.seats[seat]
        occ = self._occupied(seat)
        for _ in range(spaces):
            while True:  # occupied spaces are skipped and not counted [book]
                if s.space == L:
                    s.space = 1
                    s.laps += 1
                    if s.laps == 1:
                        self._award(seat, "gp1")
                    elif s.laps == 2:
                        self._award(seat, "gp2")
                else:
                    s.space += 1
                if s.space not in occ:
                    break

    def _task_gp_engine(self, v: int) -> None:
        self._pop()
        # Start tile C: an engine of that value from the supply into the GP car;
        # research points are unchanged [book]. None left: nothing [decision].
        if self.supply_engine[v - 1] > 0 and v > self.seats[self.turn_seat].gp_engine:
            self.supply_engine[v - 1] -= 1
            self._install_gp_engine(v)

    def _task_gp_start(self, space: int) -> None:
        self._pop()
        s = self.seats[self.turn_seat]
        occ = self._occupied(self.turn_seat)
        L = self.game.components.gp_lap_length
        while space in occ:  # taken: the next free space [decision]
            space = space % L + 1
        if s.space == 0:
            s.space = space

    # ----- buyers (RULES.md §4.1) ---------------------------------------

    def _task_buyer(self, _: int) -> list[int] | None:
        if len(self.active) >= self.game.buyer_spaces:
            self._pop()
            self.track = max(0, self.track - 1)  # mandatory [book]
            return None
        options = [A.BUYER + p for p in range(len(PREFERENCES)) if self.stacks[p] > 0]
        if not options:
            self._pop()
            return None
        self.actor = self.turn_seat
        return options

    def _choose_buyer(self, action: int, _: int) -> None:
        self._pop()
        self._add_buyer(self.turn_seat, action - A.BUYER)

    def _add_buyer(self, seat: int, p: int) -> None:
        self.stacks[p] -= 1
        self.active.append(p)
        self.active_daimler.append(0)
        self.seats[seat].money += self.white[p]
        self.white[p] = 0
        if self.active.count(p) == 2:
            self._award(seat, "buyer")

    # ----- market (RULES.md §4.2) ---------------------------------------

    def _task_market(self, _: int) -> list[int] | None:
        s = self.seats[self.turn_seat]
        bodies = sorted({w for w in s.workshops if w < ENGINE_CODE})
        if (not bodies or not any(w > ENGINE_CODE for w in s.workshops) or s.canteen < 1
                or not self.prices or len(self.market) >= self.game.market_size):
            self._pop()
            return None
        self.actor = self.turn_seat
        return [A.MARKET_PASS] + [A.MARKET_BODY + v - 1 for v in bodies]

    def _choose_market(self, action: int, _: int) -> None:
        self._pop()
        if action == A.MARKET_PASS:
            return
        v = action - A.MARKET_BODY + 1
        self.seats[self.turn_seat].workshops.remove(v)
        self.car = [v]
        self._push("market_engine")

    def _task_market_engine(self, _: int) -> list[int]:
        self.actor = self.turn_seat
        s = self.seats[self.turn_seat]
        return sorted({A.MARKET_ENGINE + w - ENGINE_CODE - 1 for w in s.workshops if w > ENGINE_CODE})

    def _choose_market_engine(self, action: int, _: int) -> None:
        v = action - A.MARKET_ENGINE + 1
        self.seats[self.turn_seat].workshops.remove(ENGINE_CODE + v)
        self.car.append(v)
        self.tasks[-1][0] = "market_workers"

    def _task_market_workers(self, _: int) -> list[int]:
        self.actor = self.turn_seat
        return [A.MARKET_WORKERS + n - 1 for n in range(1, self.seats[self.turn_seat].canteen + 1)]

    def _choose_market_workers(self, action: int, _: int) -> None:
        n = action - A.MARKET_WORKERS + 1
        self.seats[self.turn_seat].canteen -= n
        self.car.append(n)
        self.tasks[-1][0] = "market_price"

    def _task_market_price(self, _: int) -> list[int]:
        self.actor = self.turn_seat
        return [A.MARKET_PRICE + p for p in self.prices]

    def _choose_market_price(self, action: int, _: int) -> None:
        p = action - A.MARKET_PRICE
        self.prices.remove(p)
        self.car.append(p)
        self.tasks[-1][0] = "market_marker"

    def _task_market_marker(self, _: int) -> list[int]:
        self.actor = self.turn_seat
        s = self.seats[self.turn_seat]
        options = [A.MARKET_NO_MARKER]
        if not self.marker_placed:  # one engineer marker per turn [book, V6 text]
            for i, (eng, v) in enumerate(self.game.marker_slots):
                if v and v in (s.maybach if eng == "maybach" else s.horch):
                    options.append(A.MARKET_MARKER + i)
        return options

    def _choose_market_marker(self, action: int, _: int) -> None:
        self._pop()
        seat = self.turn_seat
        s = self.seats[seat]
        body, engine, workers, price = self.car
        body_bonus = engine_bonus = 0
        if action != A.MARKET_NO_MARKER:
            eng, v = self.game.marker_slots[action - A.MARKET_MARKER]
            if eng == "maybach":
                s.maybach.remove(v)
                body_bonus = v
            else:
                s.horch.remove(v)
                engine_bonus = v
            self.marker_placed = True
        self.market.append([seat, body, engine, workers, price, body_bonus, engine_bonus])
        self.car = []
        if sum(1 for car in self.market if car[0] == seat) >= 2:
            self._award(seat, "market")

    # ----- end-of-turn engineer options ---------------------------------

    def _task_daimler(self, _: int) -> list[int] | None:
        s = self.seats[self.turn_seat]
        if not s.daimler or self.marker_placed:
            self._pop()
            return None
        free = [b for b, d in enumerate(self.active_daimler) if d == 0]
        if not free:
            self._pop()
            return None
        self.actor = self.turn_seat
        c = self.game.components
        return [A.DAIMLER_PASS] + [A.DAIMLER + m * MAX_BUYERS + b
                                   for m, v in enumerate(c.daimler_markers) if v in s.daimler for b in free]

    def _choose_daimler(self, action: int, _: int) -> None:
        self._pop()
        if action == A.DAIMLER_PASS:
            return
        m, b = divmod(action - A.DAIMLER, MAX_BUYERS)
        v = self.game.components.daimler_markers[m]
        self.seats[self.turn_seat].daimler.remove(v)
        self.active_daimler[b] = v
        self.marker_placed = True

    def _diesel_options(self, car: list[int]) -> list[int]:
        s = self.seats[car[0]]
        _, body, engine, workers, price, _, _ = car
        opts = {A.DIESEL_BODY + w - 1 for w in s.workshops if w < ENGINE_CODE and w != body}
        opts |= {A.DIESEL_ENGINE + w - ENGINE_CODE - 1 for w in s.workshops
                 if w > ENGINE_CODE and w - ENGINE_CODE != engine}
        opts |= {A.DIESEL_WORKERS + n - 1 for n in range(1, workers + s.canteen + 1) if n != workers}
        opts |= {A.DIESEL_PRICE + p for p in self.prices}
        return sorted(opts)

    def _task_diesel(self, _: int) -> list[int] | None:
        seat = self.turn_seat
        if self.seats[seat].diesel <= 0:
            self._pop()
            return None
        cars = [A.DIESEL_CAR + car[4] for car in self.market if car[0] == seat and self._diesel_options(car)]
        if not cars:
            self._pop()
            return None
        self.actor = seat
        return [A.DIESEL_PASS] + sorted(cars)

    def _choose_diesel(self, action: int, _: int) -> None:
        self._pop()
        if action != A.DIESEL_PASS:
            self._push("diesel_change", action - A.DIESEL_CAR)

    def _car_by_price(self, price: int) -> list[int]:
        return next(car for car in self.market if car[4] == price)

    def _task_diesel_change(self, price: int) -> list[int]:
        self.actor = self.turn_seat
        return self._diesel_options(self._car_by_price(price))

    def diesel_changes(self, price: int) -> list[tuple[int, list[int]]]:
        """What Diesel can do to the market car at ``price`` (RULES.md §5.3): each change it may
        make, in action order, with the car that change would make, ``[(action, car), ...]``
        (cars as in :attr:`market`). The options of a ``diesel_change`` decision on that car;
        nothing is changed here. The heuristic bot values Diesel with this."""
        car = next((car for car in self.market if car[4] == price), None)
        if car is None:
            raise ValueError(f"diesel_changes: no car with price {price} on the market")
        out = []
        for action in self._diesel_options(car):
            field, value = A.diesel_target(action)
            changed = list(car)
            changed[field] = value
            out.append((action, changed))
        return out

    def _choose_diesel_change(self, action: int, price: int) -> None:
        self._pop()
        # The next marker may be used in the same turn [book, RULES.md §5.3]: the Diesel
        # decision comes again (with "diesel pass" to stop) while markers are left.
        self._push("diesel")
        car = self._car_by_price(price)
        s = self.seats[car[0]]
        s.diesel -= 1  # a discard is not a marker placement [decision, RULES.md §5.3]
        field, v = A.diesel_target(action)
        if field == 1:
            s.workshops.remove(v)
            self._return_tile(car[1])  # the replaced part goes to the supply [decision]
        elif field == 2:
            s.workshops.remove(ENGINE_CODE + v)
            self._return_tile(ENGINE_CODE + car[2])
        elif field == 3:
            s.canteen -= v - car[3]
        else:
            self.prices.remove(v)
            self.prices.append(car[4])
            self.prices.sort()
        car[field] = v

    def _task_end_turn(self, _: int) -> None:
        self._pop()
        c = self.game.components
        while not is_seat(self.chain[0]):  # tiles at the tail go to the front [book]
            e = self.chain.pop(0)
            if e >= SPECIAL and c.specialty_tiles[e - SPECIAL].stack < self.round - 1:
                # A specialty tile of an earlier round passed by every player is
                # discarded; the current round's next tile takes its place [book 9.0].
                self._discard_special(e - SPECIAL)
                e = SPECIAL + self._draw_special(self.round - 1)
            self.chain.append(e)
        self.turn_seat = -1
        self.marker_placed = False
        if len(self.market) >= self.game.market_size or self.track == 0:
            self.phase = SCORING
            if self.score_log is not None:
                self.score_log.append(ScoreStart("start", self.round, self.money()))
            self._push("round_end")
            self._push("sales")
            self._push("race")
            for seat, s in enumerate(self.seats):
                if s.benz > 0:
                    self._push("benz", seat)
        else:
            self._push("turn")

    # ----- scoring (RULES.md §6–§8) -------------------------------------

    def _task_benz(self, seat: int) -> list[int] | None:
        options = [A.BENZ + p for p in range(len(PREFERENCES)) if self.stacks[p] > 0]
        if not options:
            self._pop()
            return None
        self.actor = seat
        return [A.BENZ_PASS] + options

    def _choose_benz(self, action: int, seat: int) -> None:
        self._pop()
        if action == A.BENZ_PASS:
            return
        self.seats[seat].benz -= 1
        # The fifth buyer goes below the others; its stack's white markers and the
        # Buyer award go to Benz's owner [decision / book]; the track does not move.
        p = action - A.BENZ
        white, award = self.white[p], self.awards[AWARDS.index("buyer")]
        self._add_buyer(seat, p)
        if self.score_log is not None:
            got_award = award < 0 and self.awards[AWARDS.index("buyer")] == seat
            self.score_log.append(ScoreBenz("benz", seat, p, white, got_award))

    def _task_race(self, _: int) -> None:
        self._pop()
        c = self.game.components
        cars = [RaceCar(s.laps, s.space, i) for i, s in enumerate(self.seats) if s.space > 0]
        cars += [RaceCar(0, sp, -1) for sp in self.game.neutral_cars]
        cars.sort(reverse=True)
        for place, (_, _, seat) in enumerate(cars[:len(c.gp_place_money)]):
            if seat >= 0:
                self.seats[seat].money += c.gp_place_money[place]
        for s in self.seats:
            s.money += c.lap_money(s.laps)
        if self.score_log is not None:
            self.score_log.append(ScoreRace("race", cars, [s.laps for s in self.seats], [s.space for s in self.seats]))

    def _task_sales(self, _: int) -> None:
        self._pop()
        # Each buyer in order takes the best unsold car for his preference (ties: the
        # lowest price); a price buyer pays 2x (3x with Opel), a Daimler marker adds
        # once — RULES.md §8, in choose_sales above (shared with the board's
        # "who would buy now").
        sales = choose_sales(self.market, self.active, self.active_daimler,
                             lambda seat: self.seats[seat].has("opel"), self.game.components)
        for sale in sales:
            self.seats[self.market[sale.car][0]].money += sale.payment
        if self.score_log is not None:
            self.score_log.append(ScoreSales("sales", [list(car) for car in self.market], list(self.active),
                                             list(self.active_daimler), sales))

    def _task_round_end(self, _: int) -> None:
        self._pop()
        if self.score_log is not None:
            self.score_log.append(ScoreEnd("end", self.round, self.money()))
        for owner, body, engine, workers, _, _, _ in self.market:
            self.supply_body[body - 1] += 1
            self.supply_engine[engine - 1] += 1
            self.seats[owner].supply += workers
        self.market = []
        for p in self.active:
            self.stacks[p] += 1
        self.active, self.active_daimler = [], []
        for s in self.seats:
            s.laps = s.space = 0
        self.prices = []  # untaken coloured markers leave play
        if self.round >= self.game.components.rounds:
            self.phase = OVER
            return
        self.round += 1
        self._prepare_round()
        self.phase = ACTION
        self._push("turn")

    def _prepare_round(self) -> None:
        c = self.game.components
        self.prices = list(c.price_markers[self.round - 1])
        for p in range(len(PREFERENCES)):
            self.white[p] += c.white_markers[p]
        self.track = self.game.track_start

    # ----- V6 specialty tiles (RULES.md §11) ----------------------------

    def _draw_special(self, r: int) -> int:
        """The top tile of stack ``r``; an emptied stack is first reshuffled from its used tiles [book]."""
        if not self.spec_undrawn[r]:
            self.spec_undrawn[r], self.spec_used[r] = self.spec_used[r], []
            self.rng = rng_shuffle(self.rng, self.spec_undrawn[r])
        if self.special_hook is not None:
            return self.special_hook(self, r)
        return self.spec_undrawn[r].pop()

    def _discard_special(self, t: int) -> None:
        self.spec_used[self.game.components.specialty_tiles[t].stack].append(t)

    def _task_special(self, t: int) -> None:
        """The bonus of specialty tile ``t`` (before or after its standard action, as chosen)."""
        self._pop()
        tile = self.game.components.specialty_tiles[t]
        seat = self.turn_seat
        s = self.seats[seat]
        if tile.bonus in ("engine", "body"):
            # A tile of that value regardless of research points; none of that value
            # left: the highest lower one, as for the actions [decision §4.1; reading 17].
            # It is placed like the action's tile (an engine may go to the GP car).
            self._push(tile.bonus, tile.value)
        elif tile.bonus == "gp_engine":
            # The GP car's engine is replaced by one of the next higher value; none in
            # the supply: nothing [reading 18]. Bugatti races at once [book].
            v = s.gp_engine + 1
            if v <= MAX_TILE_VALUE and self.supply_engine[v - 1] > 0:
                self.supply_engine[v - 1] -= 1
                self._install_gp_engine(v)
        elif tile.bonus == "canteen_money":
            s.money += tile.value * s.canteen
        elif tile.bonus == "remove_car":
            self._push("remove", tile.value)
        elif tile.bonus == "sell_tile":
            self._push("sell")
        else:  # research_discard: the top discard, resolved as a research action [book]
            if self.discard:  # an empty discard pile: nothing [reading 19]
                self._take_card(seat, self.discard.pop())

    def _task_sell(self, _: int) -> list[int] | None:
        s = self.seats[self.turn_seat]
        if not s.workshops:
            self._pop()
            return None
        self.actor = self.turn_seat
        return [A.SELL_PASS] + sorted({A.SELL + w for w in s.workshops})

    def _choose_sell(self, action: int, _: int) -> None:
        self._pop()
        if action == A.SELL_PASS:
            return
        code = action - A.SELL
        s = self.seats[self.turn_seat]
        s.workshops.remove(code)
        self._return_tile(code)
        s.money += code - ENGINE_CODE if code > ENGINE_CODE else code

    def _task_remove(self, money: int) -> list[int] | None:
        seat = self.turn_seat
        cars = sorted(A.REMOVE_CAR + car[4] for car in self.market if car[0] == seat)
        if not cars:
            self._pop()
            return None
        self.actor = seat
        return [A.REMOVE_PASS] + cars

    def _choose_remove(self, action: int, money: int) -> None:
        self._pop()
        if action == A.REMOVE_PASS:
            return
        car = self._car_by_price(action - A.REMOVE_CAR)
        self.market.remove(car)
        owner, body, engine, workers, price, _, _ = car
        # Its parts go back [book]: tiles to the supply, workers to the owner's supply,
        # the price marker next to the market; an engineer marker on it leaves the
        # game [reading 20].
        self.supply_body[body - 1] += 1
        self.supply_engine[engine - 1] += 1
        self.seats[owner].supply += workers
        bisect.insort(self.prices, price)
        self.seats[owner].money += money

    # ----- awards (RULES.md §9) -----------------------------------------

    def _award(self, seat: int, name: str) -> None:
        i = AWARDS.index(name)
        if self.awards[i] < 0:
            self.awards[i] = seat
            self.seats[seat].money += self.game.components.awards[i]


def random_game(game: Game, seed: int, on_step: Callable[[Any, int], None] | None = None,
                engine: str | None = None):
    """Play a game with uniformly random legal actions from ``seed``; returns the final state.

    The same seed plays the same game on either engine.
    """
    rng = random.Random(seed)
    state = game.new_initial_state(seed, engine=engine)
    while not state.is_terminal():
        a = rng.choice(state.legal_actions())
        if on_step is not None:
            on_step(state, a)
        state.apply(a)
    return state
