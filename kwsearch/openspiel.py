"""Kraftwagen as an OpenSpiel game (``pip install ".[openspiel]"`` in the kwsearch clone).

Importing this module registers the Python game ``"kraftwagen"`` with
:func:`pyspiel.register_game`; its states wrap the fast engine
(:class:`kwsearch._fast.FastState`)::

    >>> import pyspiel
    >>> import kwsearch.openspiel
    >>> game = pyspiel.load_game("kraftwagen", {"players": 3})
    >>> state = game.new_initial_state()
    >>> state.is_chance_node()          # the set-up is drawn by explicit chance
    True

Parameters: ``players`` (2, 3 or 4; default 2) and ``v6`` (the V6 specialty
tiles, RULES.md §11; passed to :class:`kwsearch.game.Game`; default false).

Model (docs/openspiel.md)
-------------------------
* **Chance is explicit.** The set-up is a sequence of chance nodes — the action
  tiles of the chain one position at a time (uniform among the tiles of the group
  that goes there: RULES.md §2.1 shuffles the one-, two- and three-action tiles
  separately), the offered start tiles one at a time (uniform among those not yet
  offered; only when fewer than all are offered), then the two first face-up
  research cards. Every research card turned up later is a chance node right
  after the player action that turned it up: its outcomes are the card *types*
  of the undrawn pile (after a reshuffle of the discard pile, when the deck is
  empty), each with probability count / cards in the pile.
* With ``v6`` the specialty tiles are drawn by chance too: at set-up the tile
  placed at the front of the chain (uniform over stack A, after the chain's
  action tiles), and during play every replacement tile (a specialty tile taken,
  or an earlier round's tile passed over) right after the action that placed it,
  in the order the action draws: uniform over the face-down tiles of the current
  round's stack (after a reshuffle of its used tiles, when it is empty). The
  engine draws exactly the named card or tile (``kwsearch._forced.apply_forced``).
* Chance outcomes are a space of their own (``max_chance_outcomes`` = 56, or 72
  with ``v6``): ``CH_TILE + t`` puts action tile ``t`` next in the chain,
  ``CH_START + t`` offers start tile ``t``, ``CH_CARD + k`` turns up a research
  card of type ``k``, ``CH_SPECIAL + t`` places specialty tile ``t`` (V6).
  Player actions are the ids of :mod:`kwsearch.actions`.
* **Returns are win shares**: 1 for a sole winner, split on ties, 0 otherwise
  (:func:`kwsearch.game.win_shares`), so the game is constant-sum with sum 1.
  Money is available as :meth:`KraftwagenState.money`.
* The game type says *imperfect information* (the order of the research deck and
  of the specialty stacks is hidden, RULES.md §10; OpenSpiel's ISMCTS also
  requires it). In this model the hidden order is never decided in advance —
  each card or tile is a public chance event when it comes up — so every
  player's information state is the whole public history, and
  :meth:`KraftwagenState.resample_from_infostate` returns the same history with
  the engine's (unused) deck and stack orders reshuffled.
* **Tensors**: the observation and information-state tensors (the same vector)
  encode the engine's observation as one-hots and counts; :func:`tensor_layout`
  names the parts (docs/openspiel.md, "Observations"), so
  ``open_spiel.python.rl_environment.Environment("kraftwagen")`` works.
* **Illegal ids are refused**: an id that is not a legal action of a decision node
  or an outcome of a chance node (or not an integer, or applied after the end)
  raises :class:`IllegalActionError` (a ``pyspiel.SpielError`` and a ``ValueError``,
  one line naming the id and the legal ones) and changes nothing.
* **Serialization**: states pickle (``random_sim_test(..., serialize=True)``);
  the engine state pickles as its exact JSON form (registered with ``copyreg``).
"""

from __future__ import annotations

import copyreg
import hashlib
import time

try:
    import pyspiel
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError('kwsearch.openspiel needs OpenSpiel: pip install ".[openspiel]" in the kwsearch clone') from exc

import numpy as np
from open_spiel.python.algorithms import ismcts, mcts

from . import actions as A
from ._fast import FastState
from ._forced import apply_forced
from .components import (ALL_ACTIONS, AWARDS, ENGINEERS, MAX_ACTION_TILES, MAX_CARD_TYPES, MAX_PRICE, MAX_SPECIAL,
                         MAX_START_TILES, MAX_TILE_VALUE, PREFERENCES, default_components)
from .engine import convert
from .formats import position_to_state
from .game import PHASES, PLAYER_COUNTS, TASKS, TERMINAL, Game, seed_to_rng, win_shares
from .observation import observation, observation_key
from .rules import State
from .seeds import derive_seed

CH_TILE = 0                            # + action tile id: the next tile of the chain
CH_START = CH_TILE + MAX_ACTION_TILES  # + start tile index: offered
CH_CARD = CH_START + MAX_START_TILES   # + research card type: turned up
MAX_CHANCE_OUTCOMES = CH_CARD + MAX_CARD_TYPES  # without V6 (the ids above)
CH_SPECIAL = MAX_CHANCE_OUTCOMES       # + V6 specialty tile: placed at the front of the chain
MAX_CHANCE_OUTCOMES_V6 = CH_SPECIAL + MAX_SPECIAL
_CHANCE = int(pyspiel.PlayerId.CHANCE)
_ID_BOUND = 1 << 62  # ids at or past this are checked before they reach pyspiel's int64 argument
if TERMINAL != int(pyspiel.PlayerId.TERMINAL):  # current_player() of a finished game is passed through
    raise ImportError("kwsearch.openspiel: game.TERMINAL differs from pyspiel.PlayerId.TERMINAL")

#: An upper bound on the player decisions of one game, with a wide margin: the
#: longest of 600 uniformly random games (2-4 players) had 229, of 300 with V6 277.
MAX_GAME_LENGTH = 1000

_GAME_TYPE = pyspiel.GameType(
    short_name="kraftwagen",
    long_name="Kraftwagen (kwsearch)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.CONSTANT_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"players": 2, "v6": False},
)


class IllegalActionError(pyspiel.SpielError, ValueError):
    """An action id that is not legal where it was applied (not a legal action of the
    decision node, not an outcome of the chance node, not an integer, or the game is
    over). The state is unchanged. It is a :class:`pyspiel.SpielError`, as
    ``apply_action_with_legality_check`` raises for C++ games, and a :class:`ValueError`."""


class _Shared:
    """Per-game constants a state refers to; shared (never copied) by clones."""

    def __init__(self, kw: Game):
        c = kw.components
        self.kw = kw
        self.n = kw.num_players
        sizes = sorted({len(t.actions) for t in c.action_tiles})
        #: the chain's tile groups, tail first (rules.State.new)
        self.groups = [tuple(t.index for t in c.action_tiles if len(t.actions) == s) for s in sizes]
        self.ntiles = len(c.action_tiles)
        self.starts = tuple(t.index for t in c.start_tiles)
        self.noffer = c.start_tiles_offered[self.n]
        self.deck = tuple(ct.count for ct in c.card_types)  # cards per type
        self.card_names = [ct.name for ct in c.card_types]
        self.start_names = [t.name for t in c.start_tiles]
        self.v6 = kw.v6
        #: V6: the specialty tiles of each stack (stack r is drawn from in round r + 1)
        self.stacks = [tuple(t.index for t in c.specialty_stack(r)) for r in range(kw.num_stacks)]
        self.special_names = [t.name for t in c.specialty_tiles]
        self.layout = tensor_layout(kw)

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        # Serialized states (pickle, pyspiel.serialize_game_and_state) name the game, not its tables.
        return _shared_for, (self.n, self.v6)


class KraftwagenGame(pyspiel.Game):
    """The OpenSpiel game; ``params``: ``players`` (2-4), ``v6`` (bool)."""

    def __init__(self, params=None):
        params = dict(params or {})
        n = params.get("players", 2)
        if isinstance(n, bool) or n not in PLAYER_COUNTS:
            raise ValueError(f"kraftwagen: players must be 2, 3 or 4, got {n!r}")
        kw = Game(int(n), v6=bool(params.get("v6", False)))
        info = pyspiel.GameInfo(
            num_distinct_actions=A.NUM_ACTIONS,
            max_chance_outcomes=MAX_CHANCE_OUTCOMES_V6 if kw.v6 else MAX_CHANCE_OUTCOMES,
            num_players=int(n),
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=1.0,
            max_game_length=MAX_GAME_LENGTH)
        super().__init__(_GAME_TYPE, info, params)
        self._shared = _shared_for(int(n), kw.v6)

    @property
    def kw_game(self) -> Game:
        """The :class:`kwsearch.game.Game` behind this game."""
        return self._shared.kw

    def new_initial_state(self):
        return KraftwagenState(self)

    def state_from_kwsearch(self, state) -> "KraftwagenState":
        """An OpenSpiel state at the position of a kwsearch ``state`` (either engine).

        Its history starts there (empty); its information state strings start with
        a digest of the position, so states from different positions never share one.
        """
        if not isinstance(state, (State, FastState)):
            raise TypeError(f"kraftwagen: state_from_kwsearch expects a kwsearch state (rules.State or "
                            f"FastState), got {type(state).__name__}")
        kw, mine = state.game, self._shared.kw
        if (kw.num_players, bool(kw.v6), kw.components.source) != (mine.num_players, bool(mine.v6),
                                                                   mine.components.source):
            other = "" if kw.components.source == mine.components.source else " with other components"
            raise ValueError(f"kraftwagen: state_from_kwsearch: the state is of a {kw.num_players}-player game"
                             f"{' with V6' if kw.v6 else ''}{other}, "
                             f"this game is {mine.num_players}-player{' with V6' if mine.v6 else ''}")
        st = KraftwagenState(self)
        st._st = convert(state, "fast").copy()
        st._setup = None
        st._root = "position " + hashlib.sha1(observation_key(st._st).encode()).hexdigest()[:16] + "\n"
        return st

    def make_py_observer(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"kraftwagen observer: no parameters expected, got {params!r}")
        return KraftwagenObserver(iig_obs_type, self)


class KraftwagenState(pyspiel.State):
    """A Kraftwagen state for OpenSpiel (see the module docstring).

    Attributes (all in ``__dict__``, which OpenSpiel's ``clone()`` copies with
    ``copy.deepcopy``; each is cheap to copy — the engine state by one struct copy):
    ``_st`` the fast engine state (``None`` during the set-up), ``_setup`` the set-up
    chance outcomes so far (``None`` once set up), ``_pending`` a player action
    waiting for its reveals (``(action, chance outcomes so far, the next chance
    node's (outcome, probability) pairs)``; the outcomes are research cards and,
    with V6, specialty tiles, in the order the action draws them) and ``_root``
    the prefix of the information state strings.
    """

    def __init__(self, game: KraftwagenGame):
        super().__init__(game)
        self._g = game._shared
        self._st = None
        self._setup = ()
        self._pending = None
        self._root = ""

    # ----- kwsearch view ------------------------------------------------

    @property
    def kw_state(self):
        """The fast engine state (``None`` during the set-up). While a reveal is
        pending it is the position before the action that turns the cards up."""
        return self._st

    def money(self) -> list[int]:
        return self._st.money() if self._st is not None else [0] * self._g.n

    # ----- OpenSpiel API --------------------------------------------------

    def current_player(self):
        if self._setup is not None or self._pending is not None:
            return _CHANCE
        return self._st.current_player()  # TERMINAL (-4) when the game is over, as in OpenSpiel

    def is_terminal(self):
        return self._setup is None and self._pending is None and self._st.is_terminal()

    def _legal_actions(self, player):
        return self._st.legal_actions()

    def chance_outcomes(self):
        if self._pending is not None:
            return list(self._pending[2])
        g, done = self._g, self._setup
        stage, pos = _setup_stage(g, done)
        if stage == "tiles":
            left = [t for t in g.groups[pos] if CH_TILE + t not in done]
            return [(CH_TILE + t, 1.0 / len(left)) for t in left]
        if stage == "special":
            return _special_outcomes(g.stacks[0])
        if stage == "offer":
            left = [t for t in g.starts if CH_START + t not in done]
            return [(CH_START + t, 1.0 / len(left)) for t in left]
        counts = list(g.deck)
        for o in done:
            if CH_CARD <= o < CH_SPECIAL:
                counts[o - CH_CARD] -= 1
        return _card_outcomes(counts)

    def _apply_action(self, action):
        self._check_action(action)
        if self._setup is not None:
            self._setup = _complete_setup(self._g, self._setup + (action,))
            if _setup_stage(self._g, self._setup)[0] == "done":
                self._st = _build(self._g, self._setup)
                self._setup = None
            return
        if self._pending is not None:
            act, drawn, _ = self._pending
            drawn = drawn + (action,)
        else:
            act, drawn = action, ()
        st = self._st.copy()
        nxt = apply_forced(st, act, [o - CH_CARD for o in drawn if o < CH_SPECIAL],
                           [o - CH_SPECIAL for o in drawn if o >= CH_SPECIAL])
        if nxt is None:
            self._st = st
            self._pending = None
        else:
            kind, pile = nxt
            outcomes = _card_outcomes(pile) if kind == "card" else _special_outcomes(pile)
            self._pending = (act, drawn, tuple(outcomes))

    def _check_action(self, action) -> None:
        """Raise :class:`IllegalActionError` unless ``action`` is legal here: one of the
        legal actions at a decision node, one of the outcomes at a chance node. OpenSpiel
        appends to the history only after ``_apply_action`` returns, so a refused action
        changes nothing (state, history, returns)."""
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            raise IllegalActionError(f"kraftwagen: an action must be an integer id, got {action!r}")
        action = int(action)
        if self.is_terminal():
            raise IllegalActionError(f"kraftwagen: illegal action {action}: the game is over (no legal actions)")
        if self._setup is not None or self._pending is not None:
            legal = [o for o, _ in self.chance_outcomes()]
            who = "chance"
        else:
            legal = self._st.legal_actions()
            who = f"player {self._st.current_player()}"
        if action not in legal:
            raise IllegalActionError(f"kraftwagen: illegal action {action} for {who}; "
                                     f"legal: {', '.join(map(str, legal))}")

    def apply_action(self, action):
        """OpenSpiel's ``apply_action`` with the id checked first, so that any id a Python
        caller passes — not an integer, negative (OpenSpiel's ``kInvalidAction`` is -1),
        beyond 64 bits — gets the one-line :class:`IllegalActionError`. (C++ callers,
        e.g. ``pyspiel.MCTSBot``, reach :meth:`_apply_action`, which checks too.)"""
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not 0 <= action < _ID_BOUND:
            self._check_action(action)  # raises, naming the legal actions
        super().apply_action(int(action))  # -> _apply_action, which checks legality

    def child(self, action):
        """A clone with ``action`` applied (:meth:`apply_action`: an illegal id raises
        :class:`IllegalActionError` and no clone is returned)."""
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not 0 <= action < _ID_BOUND:
            self._check_action(action)
        clone = self.clone()
        clone.apply_action(action)
        return clone

    def _apply_actions(self, actions):
        # OpenSpiel's simultaneous-move entry point; without this it says "Tried to call pure virtual function".
        raise IllegalActionError("kraftwagen: apply_actions is for simultaneous-move games; "
                                 "kraftwagen is sequential: use apply_action")

    def _action_to_string(self, player, action):
        # Ids outside the spaces get a text, not an exception: OpenSpiel's
        # apply_action_with_legality_check names the refused action with it.
        g = self._g
        if player == _CHANCE:
            if not 0 <= action < (MAX_CHANCE_OUTCOMES_V6 if g.v6 else MAX_CHANCE_OUTCOMES) or (
                    action >= CH_SPECIAL and action - CH_SPECIAL >= len(g.special_names)) or (
                    CH_CARD <= action < CH_SPECIAL and action - CH_CARD >= len(g.card_names)) or (
                    CH_START <= action < CH_CARD and action - CH_START >= len(g.start_names)):
                return f"(not a chance outcome of kraftwagen: {action})"
            if action >= CH_SPECIAL:
                return f"place special {g.special_names[action - CH_SPECIAL]}"
            if action >= CH_CARD:
                return f"reveal {g.card_names[action - CH_CARD]}"
            if action >= CH_START:
                return f"offer start {g.start_names[action - CH_START]}"
            return f"chain tile {action - CH_TILE}"
        if not 0 <= action < A.NUM_ACTIONS:
            return f"(not an action id of kraftwagen: {action})"
        return g.kw.notation.text(action)

    def returns(self):
        if not self.is_terminal():
            return [0.0] * self._g.n
        return win_shares(self._st.money())

    def resample_from_infostate(self, player_id, probability_sampler):
        """A determinization: the same public history, the engine's undrawn deck
        (and, with V6, each specialty stack's face-down tiles) reshuffled with a
        seed drawn from ``probability_sampler`` (a uniform [0, 1) generator). No
        card or tile order is decided before its reveal (every reveal is a chance
        node), so this is the only history consistent with the information state,
        and the reshuffle changes nothing that can be observed."""
        if isinstance(player_id, bool) or not isinstance(player_id, (int, np.integer)) \
                or not 0 <= player_id < self._g.n:
            raise ValueError(f"kraftwagen: resample_from_infostate: player_id must be a seat 0-{self._g.n - 1}, "
                             f"got {player_id!r}")
        clone = self.clone()
        if clone._st is not None:
            u = probability_sampler()
            if isinstance(u, bool) or not isinstance(u, (int, float, np.integer, np.floating)) \
                    or not 0.0 <= u < 1.0:  # NaN fails the comparison too
                raise ValueError("kraftwagen: resample_from_infostate: probability_sampler() must return "
                                 f"a number in [0, 1), got {u!r}")
            clone._st.determinize(int(u * (1 << 53)))
        return clone

    def public_string(self) -> str:
        """What every player sees now: the position (without the deck order), the
        set-up outcomes so far, or the action whose reveals are pending."""
        if self._setup is not None:
            return "setup: " + ", ".join(self._action_to_string(_CHANCE, o)
                                         for o in self._setup)
        return observation_key(self._st) + self._pending_text()

    def _pending_text(self) -> str:
        """The action whose reveals are pending and the cards / tiles it has turned up so far."""
        if self._pending is None:
            return ""
        act, drawn, _ = self._pending
        shown = ", ".join(self._action_to_string(_CHANCE, o).split(" ", 1)[1] for o in drawn)
        return f"\npending: {self._g.kw.notation.text(act)}; revealed so far: {shown or 'none'}"

    def __str__(self):
        if self._setup is not None:
            return self.public_string()
        from .render import render
        return render(convert(self._st, "reference")) + self._pending_text()


class KraftwagenObserver:
    """OpenSpiel observer: strings and tensors (docs/openspiel.md, "Observations").

    With ``perfect_recall`` (the information state) the string is the whole public
    history — every action and chance outcome is seen by all players; otherwise it
    is :meth:`KraftwagenState.public_string`, the same for every player.

    The tensor (:func:`tensor_layout`) encodes what the seat sees: the engine's
    observation (the position of ``kwsearch-position/1``) as one-hots and counts,
    plus who observes and whether a chance event is under way. The information-state
    tensor is the same tensor: nothing is private, and the public position is all
    that the history tells a player about the future (the hidden card order is
    never decided before it is revealed).
    """

    def __init__(self, iig_obs_type=None, game: "KraftwagenGame | None" = None):
        self.perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        self._shared = game._shared if game is not None else None
        if self._shared is None:
            self.tensor = None
            self.dict = {}
            return
        layout = self._shared.layout
        self.tensor = np.zeros(sum(int(np.prod(shape)) for _, shape in layout), np.float32)
        self.dict = {}
        k = 0
        for name, shape in layout:
            size = int(np.prod(shape))
            self.dict[name] = self.tensor[k:k + size].reshape(shape)
            k += size

    def set_from(self, state, player):
        if self.tensor is not None:
            _encode(self.dict, state, player)

    def string_from(self, state, player):
        if self.perfect_recall:
            return state._root + state.history_str()
        return state.public_string()


def _card_outcomes(counts) -> list[tuple[int, float]]:
    total = sum(counts)
    return [(CH_CARD + k, c / total) for k, c in enumerate(counts) if c > 0]


def _special_outcomes(tiles) -> list[tuple[int, float]]:
    """A specialty tile drawn from a pile of distinct ``tiles``: each equally likely."""
    return [(CH_SPECIAL + t, 1.0 / len(tiles)) for t in sorted(tiles)]


def _setup_stage(g: _Shared, done: tuple) -> tuple[str, int]:
    """Which set-up chance comes next: ("tiles", group), ("special", 0) (V6), ("offer", 0),
    ("display", 0) or ("done", 0)."""
    ntile = sum(1 for o in done if o < CH_START)
    if ntile < g.ntiles:
        k = 0
        for i, group in enumerate(g.groups):
            k += len(group)
            if ntile < k:
                return "tiles", i
    if g.v6 and not any(o >= CH_SPECIAL for o in done):
        return "special", 0  # RULES.md §11: the top tile of stack A goes to the front of the chain
    noffer = sum(1 for o in done if CH_START <= o < CH_CARD)
    if noffer < g.noffer and g.noffer < len(g.starts):
        return "offer", 0
    ncards = sum(1 for o in done if CH_CARD <= o < CH_SPECIAL)
    if ncards < min(2, sum(g.deck)):
        return "display", 0
    return "done", 0


def _complete_setup(g: _Shared, done: tuple) -> tuple:
    """Adds the tile of a group position that has a single candidate left (no chance node)."""
    while True:
        stage, pos = _setup_stage(g, done)
        if stage != "tiles":
            return done
        left = [t for t in g.groups[pos] if CH_TILE + t not in done]
        if len(left) != 1:
            return done
        done = done + (CH_TILE + left[0],)


def _build(g: _Shared, done: tuple):
    """The fast engine state after the set-up ``done`` (rules.State.from_setup)."""
    tiles = [o - CH_TILE for o in done if o < CH_START]
    offered = [o - CH_START for o in done if CH_START <= o < CH_CARD] if g.noffer < len(g.starts) else list(g.starts)
    shown = [o - CH_CARD for o in done if CH_CARD <= o < CH_SPECIAL]
    deck = [k for k, c in enumerate(g.deck) for _ in range(c)]
    for t in shown:
        deck.remove(t)
    deck += reversed(shown)  # top card last: the first named card comes up first
    stacks = None
    if g.v6:  # the named tile on top of stack A (top last); every later draw is named by chance too
        first = next(o - CH_SPECIAL for o in done if o >= CH_SPECIAL)
        stacks = [list(x) for x in g.stacks]
        stacks[0].remove(first)
        stacks[0].append(first)
    ref = State.from_setup(g.kw, tiles, deck, offered, seed_to_rng(0), stacks)
    return convert(ref, "fast")


# ---------------------------------------------------------------------------
# Observation tensors
# ---------------------------------------------------------------------------


def tensor_layout(kw: Game) -> list[tuple[str, tuple[int, ...]]]:
    """The named parts of the observation tensor of ``kw``, in order, with their shapes.

    docs/openspiel.md ("Observations") describes each part; a test checks the two
    agree. Sizes depend on the player count and (with V6) the specialty tiles.
    """
    c = kw.components
    n = kw.num_players
    T = len(c.card_types)
    ntiles = len(c.action_tiles)
    nspec = len(c.specialty_tiles) if kw.v6 else 0
    chain_len = ntiles + n + (1 if kw.v6 else 0)
    seat = (3 + 2 * MAX_TILE_VALUE + 3 + len(c.start_tiles) + 1 + 2 * T + len(ENGINEERS)
            + len(c.maybach_markers) + len(c.horch_markers) + len(c.daimler_markers) + 2)
    layout = [
        ("observer", (n,)),
        ("to_move", (n,)),
        ("chance", (2,)),
        ("phase", (len(PHASES),)),
        ("round", (c.rounds,)),
        ("chain", (chain_len, ntiles + n + nspec)),
        ("display", (T,)),
        ("discard", (T,)),
        ("undrawn", (T,)),
        ("buyer_stacks", (len(PREFERENCES),)),
        ("buyers_active", (kw.buyer_spaces + c.benz_markers, len(PREFERENCES) + 1)),
        ("white", (len(PREFERENCES),)),
        ("track", (1,)),
        ("prices", (MAX_PRICE,)),
        ("market", (kw.market_size, 1 + n + 6)),
        ("supply", (2 * MAX_TILE_VALUE,)),
        ("awards", (len(AWARDS), n + 1)),
        ("start_tiles_offered", (len(c.start_tiles),)),
        ("seats", (n, seat)),
        ("turn", (1 + n + len(ALL_ACTIONS) + 1 + 4,)),
        ("pending", (2 * len(TASKS) + 1,)),
    ]
    if kw.v6:
        layout.append(("specialty", (nspec, 3)))
    return layout


def _encode(d: dict, state: "KraftwagenState", player: int) -> None:
    """Fill the named views ``d`` of an observer's tensor for ``player`` (see :func:`tensor_layout`)."""
    for v in d.values():
        v.fill(0.0)
    g = state._g
    kw = g.kw
    c = kw.components
    n = g.n
    if 0 <= player < n:
        d["observer"][player] = 1.0
    if state._setup is not None:
        d["chance"][0] = 1.0
        return
    if state._pending is not None:
        d["chance"][1] = 1.0
    obs = observation(state._st)
    cp = state._st.current_player()
    if state._pending is None and 0 <= cp < n:
        d["to_move"][cp] = 1.0
    d["phase"][PHASES.index(obs["phase"])] = 1.0
    d["round"][obs["round"] - 1] = 1.0
    ntiles = len(c.action_tiles)
    for i, e in enumerate(obs["chain"]):
        kind, name = e.split(" ", 1)
        col = (int(name) if kind == "tile" else ntiles + int(name) if kind == "seat"
               else ntiles + n + c.specialty_tile(name).index)
        d["chain"][i, col] = 1.0
    card = {ct.name: ct.index for ct in c.card_types}
    res = obs["research"]
    for name in res["display"]:
        d["display"][card[name]] += 1.0
    for name in res["discard"]:
        d["discard"][card[name]] += 1.0
    for name, k in res["undrawn"].items():
        d["undrawn"][card[name]] = k
    by = obs["buyers"]
    for i, p in enumerate(PREFERENCES):
        d["buyer_stacks"][i] = by["stacks"][p]
        d["white"][i] = by["white"][p]
    for i, a in enumerate(by["active"]):
        d["buyers_active"][i, PREFERENCES.index(a["preference"])] = 1.0
        d["buyers_active"][i, len(PREFERENCES)] = a["daimler"]
    d["track"][0] = by["track"]
    for p in obs["prices"]:
        d["prices"][p - 1] = 1.0
    for i, m in enumerate(obs["market"]):
        row = d["market"][i]
        row[0] = 1.0
        row[1 + m["owner"]] = 1.0
        row[1 + n:] = (m["body"], m["engine"], m["workers"], m["price"], m["body_bonus"], m["engine_bonus"])
    d["supply"][:] = obs["supply"]["body"] + obs["supply"]["engine"]
    for i, a in enumerate(AWARDS):
        holder = obs["awards"][a]
        d["awards"][i, 0 if holder is None else 1 + holder] = 1.0
    starts = {t.name: t.index for t in c.start_tiles}
    for name in obs["start_tiles_offered"]:
        d["start_tiles_offered"][starts[name]] = 1.0
    T = len(c.card_types)
    for si, s in enumerate(obs["seats"]):
        row = d["seats"][si]
        row[0:3] = (s["money"], s["supply"], s["canteen"])
        k = 3
        for w in s["workshops"]:
            kind, v = w.split()
            row[k + (0 if kind == "body" else MAX_TILE_VALUE) + int(v) - 1] += 1.0
        k += 2 * MAX_TILE_VALUE
        row[k:k + 3] = (s["gp_engine"], s["laps"], s["space"])
        k += 3
        row[k + (len(c.start_tiles) if s["start_tile"] is None else starts[s["start_tile"]])] = 1.0
        k += len(c.start_tiles) + 1
        for name in s["developments"]:
            row[k + card[name]] += 1.0
        k += T
        for name in s["inactive"]:
            row[k + card[name]] += 1.0
        k += T
        for name in s["engineers"]:
            row[k + ENGINEERS.index(c.card_types[card[name]].engineer)] = 1.0
        k += len(ENGINEERS)
        mk = s["markers"]
        for eng, values in (("maybach", c.maybach_markers), ("horch", c.horch_markers),
                            ("daimler", c.daimler_markers)):
            for j, v in enumerate(values):
                row[k + j] = 1.0 if v in mk[eng] else 0.0
            k += len(values)
        row[k:k + 2] = (mk["diesel"], mk["benz"])
    tr = obs["turn"]
    if tr is not None:
        t = d["turn"]
        t[0] = 1.0
        t[1 + tr["seat"]] = 1.0
        for a in tr["remaining"]:
            t[1 + n + ALL_ACTIONS.index(a)] += 1.0
        t[1 + n + len(ALL_ACTIONS)] = 1.0 if tr["marker_placed"] else 0.0
        for j, v in enumerate(tr["car"]):
            t[2 + n + len(ALL_ACTIONS) + j] = v
    pend = d["pending"]
    for kind, _ in obs["pending"]:
        pend[TASKS.index(kind)] += 1.0
    if obs["pending"]:
        kind, arg = obs["pending"][-1]
        pend[len(TASKS) + TASKS.index(kind)] = 1.0
        pend[2 * len(TASKS)] = arg
    if kw.v6:
        sp = d["specialty"]
        for e in obs["chain"]:
            if e.startswith("special "):
                sp[c.specialty_tile(e.split(" ", 1)[1]).index, 0] = 1.0
        for part, col in (("undrawn", 1), ("used", 2)):
            for names in obs["specialty"][part].values():
                for name in names:
                    sp[c.specialty_tile(name).index, col] = 1.0


# ---------------------------------------------------------------------------
# Serialization: pickle and pyspiel.serialize_game_and_state
# ---------------------------------------------------------------------------

_SHARED: dict[tuple[int, bool], _Shared] = {}


def _shared_for(n: int, v6: bool) -> _Shared:
    """The game constants of the default-component game (``players``, ``v6``), built once."""
    key = (int(n), bool(v6))
    if key not in _SHARED:
        _SHARED[key] = _Shared(Game(key[0], v6=key[1]))
    return _SHARED[key]


def _fast_from_json(obj):
    return FastState.from_reference(position_to_state(obj))


def _reduce_fast(st: FastState):
    """Pickle a fast engine state as its exact JSON form (``to_json``: the position plus the
    hidden deck order and generator state), from which ``position_to_state`` rebuilds an equal state."""
    return _fast_from_json, (st.to_json(),)


# OpenSpiel serializes a Python state by pickling its attributes, among them the engine
# state; the Cython class does not pickle itself, so it is registered here.
copyreg.pickle(FastState, _reduce_fast)


# ---------------------------------------------------------------------------
# OpenSpiel's searches as kwsearch bots (bots.from_spec "openspiel-ismcts:...", "openspiel-mcts:...")
# ---------------------------------------------------------------------------


class _TimedISMCTS(ismcts.ISMCTSBot):
    """OpenSpiel's Python ISMCTS with an optional wall-clock budget per decision.

    ``run_search`` is the parent's loop (open_spiel 2.0.2) with the stopping rule
    "``seconds`` elapsed" added — but at least two simulations, since the first only
    expands the root and the parent's final policy needs a visited root (on a busy
    machine one simulation can take the whole budget). ``last_iterations`` counts
    the simulations run.
    """

    def __init__(self, *args, seconds: float | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self._seconds = seconds
        self.last_iterations = 0

    def run_search(self, state):
        self.reset()
        legal_actions = state.legal_actions()
        if len(legal_actions) == 1:
            return [(legal_actions[0], 1.0)]
        self._root_node = self.create_new_node(state)
        root_key = self.get_state_key(state)
        start = time.perf_counter()
        sims = 0
        while (sims < 2 or time.perf_counter() - start < self._seconds) if self._seconds else \
                sims < self._max_simulations:
            sampled = self.sample_root_state(state)
            assert root_key == self.get_state_key(sampled)
            self.run_simulation(sampled)
            sims += 1
        self.last_iterations = sims
        return self.get_final_policy(state, self._root_node)


_GAMES: dict[tuple[int, bool], KraftwagenGame] = {}


def game_for(kw: Game) -> KraftwagenGame:
    """The OpenSpiel game of a kwsearch :class:`~kwsearch.game.Game` (default components only)."""
    if kw.components.source != default_components().source:
        raise ValueError("kraftwagen (OpenSpiel): only the default components are supported")
    key = (kw.num_players, kw.v6)
    if key not in _GAMES:
        _GAMES[key] = load(kw.num_players, kw.v6)
    return _GAMES[key]


class OpenSpielBot:
    """A kwsearch bot (``step(state)``, ``restart()``) that runs one of OpenSpiel's searches
    on the OpenSpiel view of the position (:meth:`KraftwagenGame.state_from_kwsearch`).

    ``kind`` is ``"ismcts"`` — OpenSpiel's ISMCTS (``open_spiel.python.algorithms.ismcts``,
    the Python implementation: the C++ ``pyspiel.ISMCTSBot`` cannot search a Python game,
    see docs/openspiel.md) with its random-rollout evaluator — or ``"mcts"`` — the C++
    ``pyspiel.MCTSBot`` with the C++ ``pyspiel.RandomRolloutEvaluator``. Budget:
    ``iterations`` simulations or ``seconds`` per decision. ``c`` is the UCT constant
    (rewards are win shares in [0, 1]). Every random choice comes from ``seed``.
    """

    def __init__(self, kind: str, iterations: int | None = None, seconds: float | None = None,
                 c: float = 0.7, seed: int = 0):
        if kind not in ("ismcts", "mcts"):
            raise ValueError(f"OpenSpielBot: kind must be ismcts or mcts, got {kind!r}")
        if iterations is None and seconds is None:
            iterations = 1000
        self.kind, self.iterations, self.seconds, self.c, self.seed = kind, iterations, seconds, c, seed
        self.last_iterations = 0
        self.restart()

    def restart(self) -> None:
        self.calls = 0
        self._rng = np.random.RandomState(self.seed & 0xFFFFFFFF)

    def _bot(self, game: KraftwagenGame, seed: int):
        if self.kind == "ismcts":
            evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed))
            return _TimedISMCTS(game, evaluator, self.c, self.iterations or 0, seconds=self.seconds,
                                random_state=np.random.RandomState(derive_seed(seed, "ismcts") & 0xFFFFFFFF))
        return pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, seed), self.c,
                               self.iterations or 1 << 30, 1000, False, seed, False,
                               max_wall_clock_time=self.seconds or -1.0)

    def step(self, state) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        game = game_for(state.game)
        seed = int(self._rng.randint(1 << 30))
        self.calls += 1
        os_state = game.state_from_kwsearch(state)
        bot = self._bot(game, seed)
        if self.kind == "ismcts":
            action = bot.step(os_state)
            self.last_iterations = bot.last_iterations
        else:
            # MCTSBot.step releases the GIL, and cloning a Python state without it crashes
            # (open_spiel 2.0.2); mcts_search keeps the GIL and Step picks the same child.
            root = bot.mcts_search(os_state)
            action = root.best_child().action
            self.last_iterations = root.explore_count
        return int(action)


# ---------------------------------------------------------------------------
# Registration
# ---------------------------------------------------------------------------

if "kraftwagen" not in pyspiel.registered_names():
    pyspiel.register_game(_GAME_TYPE, KraftwagenGame)


def load(players: int = 2, v6: bool = False) -> KraftwagenGame:
    """``pyspiel.load_game("kraftwagen", {"players": players, "v6": v6})``."""
    return pyspiel.load_game("kraftwagen", {"players": players, "v6": v6})
