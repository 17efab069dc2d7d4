"""What both rules engines share: the game's parameters, its tables and the state protocol.

Kraftwagen has two engines that must agree action for action: the readable
reference (:class:`kwsearch.rules.State`) and the compiled one
(:class:`kwsearch._fast.FastState`). Everything they must define identically
lives here, once, and both import it:

* :class:`Game` — the static parameters (player count, variant, components);
* the phases, the chain-entry codes (:data:`SEAT`, :data:`SPECIAL`) and the
  task kinds (:data:`TASKS`) a state's ``pending()`` and positions name;
* the seeded generator (:func:`rng_next`, :func:`rng_shuffle`,
  :func:`seed_to_rng`): the random set-up, the reshuffles and the
  determinizations of both engines draw from it, so one seed is one game;
* :func:`win_shares` (the result of a game) and :func:`parse_checked` (move text
  to a checked action id);
* :class:`GameState` — the protocol both states implement (OpenSpiel's API plus
  what the search, the formats and the board read).

This module imports neither engine: :meth:`Game.new_initial_state` calls the
factory that :mod:`kwsearch.engine` installs when the package is imported, so
the package's import graph has no cycle (``tests/test_architecture.py``).

    >>> game = Game(num_players=3)
    >>> game
    Game(num_players=3)
    >>> fast = game.new_initial_state(seed=1)                 # the compiled engine by default
    >>> ref = game.new_initial_state(seed=1, engine="reference")
    >>> isinstance(fast, GameState) and isinstance(ref, GameState)
    True
    >>> fast.pending() in TASKS, fast.legal_actions() == ref.legal_actions()
    (True, True)
"""

from __future__ import annotations

import random
from typing import Any, Callable, Protocol, runtime_checkable

from .actions import Notation, market_marker_slots
from .components import SPECIALTY_STACKS, Components, default_components
from .errors import ComponentError, IllegalMoveError, InvalidMoveError
from .seeds import MASK64, splitmix64

#: ``current_player()`` of a finished game (OpenSpiel's kTerminalPlayerId).
TERMINAL = -4

#: The phases of a game, in order (``State.phase``; ``"phase"`` of a position).
SETUP, ACTION, SCORING, OVER = "setup", "action", "scoring", "over"
PHASES = (SETUP, ACTION, SCORING, OVER)

#: Player counts the rules cover (RULES.md §1).
PLAYER_COUNTS = (2, 3, 4)

#: Chain entries: action tiles are their ids 0..15, the worker of seat s is SEAT + s,
#: the V6 specialty tile t is SPECIAL + t.
SEAT = 16
SPECIAL = 32


def is_seat(entry: int) -> bool:
    """Whether a chain entry is a worker (not an action or specialty tile)."""
    return SEAT <= entry < SPECIAL


#: Task kinds (the entries of ``State.tasks``: ``[kind, arg]``). The task machine is
#: described in :mod:`kwsearch.rules`; a task with a decision names the decision
#: kinds of ``docs/actions.md`` it asks. The fast engine numbers them by this order.
TASKS = (
    "setup",        # arg seat: choose a start tile                      (decision START)
    "turn",         # the tail worker's seat takes an action tile         (decision TILE)
    "tile",         # do the remaining actions of the tile                (decision DO)
    "hire",         # arg n: up to n workers from the supply        (decision ACTIVATE)
    "research",     # take a face-up card                                 (decision RESEARCH)
    "body",         # arg value (0 = by research points): take a body
    "engine",       # arg value (0 = by research points): take an engine
    "engine_dest",  # arg value: where the new engine goes                 (decision ENGINE_*)
    "place",        # arg tile code: put it in a workshop                  (decision GIVEUP)
    "gp",           # arg spaces: move the GP car (Porsche adds 1)
    "buyer",        # take a buyer or move the buyer-track marker         (decision BUYER)
    "gp_engine",    # arg value: start tile C, an engine of that value into the GP car
    "gp_start",     # arg space: start tile D, the GP car starts on that space
    "market",       # optionally move a car to the market                  (decision MARKET_PASS/BODY)
    "market_engine", "market_workers", "market_price", "market_marker",  # the car's parts
    "daimler",      # end of turn: a Daimler marker                        (decision DAIMLER*)
    "diesel",       # end of turn: a Diesel change                         (decision DIESEL_PASS/CAR)
    "diesel_change",  # arg price of the car: what to change              (decision DIESEL_*)
    "end_turn",     # chain, end-of-phase check
    "benz",         # arg seat: the fifth buyer at the start of scoring    (decision BENZ*)
    "race",         # Grand-Prix scoring
    "sales",        # buyers' scoring
    "round_end",    # clean-up, next round or game end
    "special",      # arg specialty tile: its bonus (V6)
    "sell",         # V6 bonus: optionally sell a workshop tile            (decision SELL*)
    "remove",       # arg money: V6 bonus, optionally remove an own market car  (decision REMOVE*)
    "card_order",   # the "one body & one engine" card: which first         (decision ORDER_BODY/ENGINE)
    "special_order",  # arg specialty tile: standard action or bonus first  (decision ORDER_ACTION/BONUS)
)


# ---------------------------------------------------------------------------
# The seeded generator shared by both engines (splitmix64)
# ---------------------------------------------------------------------------

#: splitmix64's increment (the golden ratio in 64 bits): the generator's state advances by it.
RNG_INCREMENT = 0x9E3779B97F4A7C15


def rng_next(s: int) -> tuple[int, int]:
    """One step of splitmix64: returns (new state, 64-bit output).

    The output is :func:`kwsearch.seeds.splitmix64` of the old state, so the
    engines' generator and the package's seed derivation are one function.
    """
    return (s + RNG_INCREMENT) & MASK64, splitmix64(s)


def rng_shuffle(s: int, items: list) -> int:
    """Fisher-Yates shuffle of ``items`` in place; returns the new generator state."""
    for i in range(len(items) - 1, 0, -1):
        s, r = rng_next(s)
        j = r % (i + 1)
        items[i], items[j] = items[j], items[i]
    return s


def seed_to_rng(seed: int) -> int:
    """The generator state a game or a determinization seeded with ``seed`` starts from."""
    _, out = rng_next(int(seed) & MASK64)
    return out


# ---------------------------------------------------------------------------
# Results and move text, the same on both engines
# ---------------------------------------------------------------------------


def win_shares(money: list[int]) -> list[float]:
    """1 for a sole winner, split on ties (RULES.md §6 [decision]), 0 otherwise.

    >>> win_shares([30, 41, 41])
    [0.0, 0.5, 0.5]
    """
    best = max(money)
    winners = [i for i, m in enumerate(money) if m == best]
    return [1.0 / len(winners) if i in winners else 0.0 for i in range(len(money))]


def parse_checked(state: "GameState", text: str) -> int:
    """The legal action of ``state`` (either engine) that ``text`` names; raises
    :class:`IllegalMoveError` listing the legal options otherwise."""
    legal = state.legal_actions()
    options = [state.action_to_text(a) for a in legal]
    if state.is_terminal():
        raise IllegalMoveError(f"{text!r}: the game is over, no move is legal", [])
    try:
        action = state.game.notation.parse(text)
    except InvalidMoveError as exc:
        raise IllegalMoveError(f"{exc}; legal here: {', '.join(options)}", options) from None
    if action not in legal:
        raise IllegalMoveError(f"{text!r} is not legal here (seat {state.current_player()} "
                               f"to decide); legal: {', '.join(options)}", options)
    return action


# ---------------------------------------------------------------------------
# The protocol both engines implement
# ---------------------------------------------------------------------------


@runtime_checkable
class GameState(Protocol):
    """A game state of either engine (:class:`kwsearch.rules.State`,
    :class:`kwsearch._fast.FastState`): OpenSpiel's state API and what the rest of
    the package reads. ``tests/test_architecture.py`` checks both classes have it.
    """

    @property
    def game(self) -> "Game": ...
    def current_player(self) -> int: ...
    def is_terminal(self) -> bool: ...
    def legal_actions(self) -> list[int]: ...
    def apply(self, action: int) -> None: ...
    def play(self, text: str) -> int: ...
    def parse_move(self, text: str) -> int: ...
    def action_to_text(self, action: int) -> str: ...
    def money(self) -> list[int]: ...
    def returns(self) -> list[float]: ...
    def copy(self) -> "GameState": ...
    def determinize(self, rng: random.Random | int) -> None: ...
    def observation(self, seat: int | None = None) -> dict[str, Any]: ...
    def to_json(self) -> dict[str, Any]: ...
    def research_points(self, seat: int) -> tuple[int, int]: ...
    def pending(self) -> str: ...


#: ``new_state(game, seed, engine)``: installed by :mod:`kwsearch.engine` (see the module docstring).
_state_factory: Callable[["Game", int, str | None], GameState] | None = None


def install_state_factory(factory: Callable[["Game", int, str | None], GameState]) -> None:
    """Make ``factory(game, seed, engine)`` the maker of :meth:`Game.new_initial_state`'s states.

    :mod:`kwsearch.engine` calls this when it is imported (and the package's
    ``__init__`` imports it), so the engines stay above this module.
    """
    global _state_factory
    _state_factory = factory


# ---------------------------------------------------------------------------
# Game
# ---------------------------------------------------------------------------


class Game:
    """Static parameters: player count, variant, component data.

    ``components`` is a :class:`~kwsearch.components.Components` (default:
    RULES.md §12). ``v6=True`` plays with the V6 specialty tiles (RULES.md §11):
    every round needs a non-empty stack of them (stack A for round 1, ...).
    """

    def __init__(self, num_players: int = 4, components: Components | None = None, v6: bool = False):
        if type(num_players) is not int or num_players not in PLAYER_COUNTS:
            raise ValueError(f"num_players: expected 2, 3 or 4, got {num_players!r}")
        if not isinstance(v6, bool):
            raise ValueError(f"v6: expected True or False, got {v6!r}")
        self.num_players = num_players
        self.components = components or default_components()
        self.v6 = v6
        c = self.components
        #: Specialty stacks in play (0 without V6); stack r is used in round r + 1.
        self.num_stacks = 0
        if v6:
            self.num_stacks = max(t.stack for t in c.specialty_tiles) + 1
            for r in range(c.rounds):
                if not c.specialty_stack(r):
                    raise ComponentError(f"specialty_tiles: round {r + 1} has no specialty tile "
                                         f"(stack {SPECIALTY_STACKS[r]}) for a V6 game")
        self.notation = Notation(c)
        self.market_size = c.market_size[num_players]
        self.buyer_spaces = c.active_buyer_spaces[num_players]
        self.track_start = c.buyer_track_start[num_players]
        self.neutral_cars = c.neutral_cars_2p if num_players == 2 else ()
        self.marker_slots = market_marker_slots(c)
        self.engineer_card = {ct.engineer: ct.index for ct in c.card_types if ct.kind == "engineer"}

    def __repr__(self) -> str:
        return f"Game(num_players={self.num_players}{', v6=True' if self.v6 else ''})"

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Game) and other.num_players == self.num_players
                and other.v6 == self.v6 and other.components.source == self.components.source)

    def new_initial_state(self, seed: int = 0, engine: str | None = None) -> GameState:
        """A new game: the random set-up (RULES.md §2) drawn from ``seed``.

        ``engine`` is ``"fast"`` (the compiled :class:`kwsearch._fast.FastState`,
        the default) or ``"reference"`` (:class:`kwsearch.rules.State`); see
        :mod:`kwsearch.engine`. Both give the same game from the same seed.
        """
        if _state_factory is None:  # only if kwsearch.game was loaded without its package
            raise RuntimeError("kwsearch.game: no engine installed (import kwsearch first)")
        return _state_factory(self, seed, engine)

    def action_to_text(self, action: int) -> str:
        return self.notation.text(action)

    def parse_action(self, text: str) -> int:
        return self.notation.parse(text)
