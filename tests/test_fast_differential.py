"""Differential testing: the fast engine against the reference, action for action.

Thousands of seeded random games run in lockstep on both engines
(``rules.State`` and ``_fast.FastState``). After every action the legal
actions, the seat to decide, the money, the pending decision kind, the
research points of the deciding seat and ``is_terminal()`` must agree; the
full exported state (``to_json``, the hidden deck order included) is compared
at every step of the first games of each player count and at the end of every
round of the others (``FastState.to_json`` converts through the reference, so
comparing it at every step of every game would cost minutes).

Uniformly random play rarely reaches some rules (a second GP lap, an engine 7,
a reshuffled research deck), so part of the games use a seeded *style* that
prefers some options (the research tiles, the Grand Prix, non-pass options);
the coverage the run reached is asserted, so a change of the move generation
that stops reaching a rule fails here instead of silently testing less.

Games with component overrides (``examples/components-example.json`` and a
20-card research deck that is reshuffled often) run in lockstep as well, and so
do V6 games (the specialty tiles, RULES.md §11) for 2, 3 and 4 players, and V6
games whose tiles pair every standard action with every bonus (the order of the
two is asked only when it can matter, and that test has a branch per pair).

On a disagreement the message names the player count, seed, style and step,
the last moves, both legal lists and the differing fields of the exported state.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from functools import lru_cache
from pathlib import Path

import pytest
from helpers import make_position, tile

from kwsearch.formats import position_to_state
from kwsearch import actions as A
from kwsearch._fast import FastState
from kwsearch.components import (AWARDS, DEFAULTS, ENGINEERS, components_from_dict, default_components,
                                  load_components)
from kwsearch.rules import TERMINAL, Game, State

pytestmark = pytest.mark.one_engine  # does its own engine handling (see conftest.py)

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

GAMES_PER_COUNT = 700      # default components, per player count (2100 in all)
FULL_JSON_GAMES = 100      # of those, the first ones compare to_json at every step
OVERRIDE_GAMES = 100       # per player count and component override
OVERRIDE_FULL_JSON = 25    # of those, with to_json at every step
V6_GAMES = 300             # V6 games per player count
V6_FULL_JSON = 40          # of those, with to_json at every step
MAX_STEPS = 3000           # a game takes about 100-250 decisions
PLAYERS = (2, 3, 4)

#: Options that decline something optional.
PASSES = frozenset({A.MARKET_PASS, A.MARKET_NO_MARKER, A.DAIMLER_PASS, A.DIESEL_PASS, A.BENZ_PASS,
                    A.SELL_PASS, A.REMOVE_PASS})


# ---------------------------------------------------------------------------
# Seeded move choice: uniform, or a style that prefers some options
# ---------------------------------------------------------------------------

#: Style of game ``seed`` by ``seed % 10``: four in ten uniformly random.
STYLES = ("uniform", "uniform", "uniform", "uniform", "nonpass", "research", "engine", "body", "gp", "nonpass")

_TILE_KINDS = {"research": {"research"}, "engine": {"research", "engine", "hire"},
               "body": {"research", "body", "hire"}}


def _card_fits(style: str, ct) -> bool:
    if style == "engine":
        return (ct.kind == "development" and ct.engine > 0) or ct.effect == "body_engine"
    if style == "body":
        return (ct.kind == "development" and ct.body > 0) or ct.effect == "body_engine"
    if style == "gp":
        return ct.effect == "gp" or ct.engineer == "porsche"
    return True


def _preferred(st, style: str, legal: list[int]) -> list[int]:
    """The options ``style`` prefers here (may be empty: then any option)."""
    c = st.game.components
    pend = st.pending()
    if style == "nonpass":
        return [a for a in legal if a not in PASSES]
    if pend == "turn":
        acts = {a: ({c.specialty_tiles[a - A.SPECIAL_TILE].action} if a >= A.SPECIAL_TILE
                    else set(c.action_tiles[a - A.TILE].actions)) for a in legal}
        if style == "gp":  # the GP tiles without a buyer (buyers shorten the round), else engines
            return ([a for a in legal if "gp" in acts[a] and "buyer" not in acts[a]]
                    or [a for a in legal if acts[a] & {"gp", "engine"}])
        return [a for a in legal if acts[a] & _TILE_KINDS[style]]
    if pend == "setup" and style == "gp":
        return [a for a in legal if {"gp_engine2", "gp_start2"} & set(c.start_tiles[a - A.START].actions)]
    if pend == "research":
        return [a for a in legal if _card_fits(style, c.card_types[a - A.RESEARCH])]
    if pend == "engine_dest":
        return [a for a in legal if (a == A.ENGINE_GP) == (style == "gp")]
    return [a for a in legal if a not in PASSES]


def choose(rng: random.Random, st, style: str) -> int:
    legal = st.legal_actions()
    if style == "uniform":
        return rng.choice(legal)
    # The GP style is kept mild: always taking the GP tile drags a round on for
    # hundreds of laps (see test_a_long_round_keeps_counting_laps).
    bias = 0.6 if style == "gp" else 0.8
    if rng.random() < bias:
        pref = [a for a in _preferred(st, style, legal) if a in legal]
        if pref:
            return rng.choice(pref)
    return rng.choice(legal)


# ---------------------------------------------------------------------------
# Lockstep
# ---------------------------------------------------------------------------


def _json_diff(a, b, path: str = "$", out: list[str] | None = None, limit: int = 12) -> list[str]:
    """The paths where two JSON values differ, with both values (at most ``limit``)."""
    out = [] if out is None else out
    if len(out) >= limit:
        return out
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            if k not in a or k not in b:
                out.append(f"{path}.{k}: reference {a.get(k, '<missing>')!r} / fast {b.get(k, '<missing>')!r}")
            else:
                _json_diff(a[k], b[k], f"{path}.{k}", out, limit)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            _json_diff(x, y, f"{path}[{i}]", out, limit)
    elif a != b:
        out.append(f"{path}: reference {a!r} / fast {b!r}")
    return out


class Disagreement(AssertionError):
    pass


class Run:
    """Coverage of one batch of lockstep games (counted on the reference side)."""

    def __init__(self) -> None:
        self.games = 0
        self.steps = 0
        self.full_json_steps = 0
        self.count: Counter = Counter()   # rule paths reached
        self.engineers = 0                # union of the seats' engineer bits
        self.instants: set[int] = set()   # instant card types taken
        self.awards: set[int] = set()     # award indices taken
        self.bonuses: set[str] = set()    # V6 specialty-tile bonuses taken
        self.special_pairs: set[tuple[str, str]] = set()  # (standard action, bonus) of the tiles taken
        self.failures: list[str] = []


def _context(game: Game, seed: int, style: str, step: int, moves: list[int], ref: State, fast) -> str:
    text = ref.action_to_text
    return (f"players={game.num_players} seed={seed} style={style} step={step} "
            f"(round {ref.round}, pending reference {ref.pending()!r} / fast {fast.pending()!r}); "
            f"last moves: {[text(a) for a in moves[-8:]]}; "
            f"legal reference {[text(a) for a in ref.legal_actions()]} / "
            f"fast {[text(a) for a in fast.legal_actions()]}")


def _compare(game, seed, style, step, moves, ref: State, fast, full: bool) -> None:
    def fail(what: str) -> None:
        raise Disagreement(f"{what}: {_context(game, seed, style, step, moves, ref, fast)}")

    legal = ref.legal_actions()
    if fast.legal_actions() != legal:
        fail("legal actions differ")
    if fast.current_player() != ref.current_player():
        fail(f"current_player reference {ref.current_player()} / fast {fast.current_player()}")
    if fast.is_terminal() != ref.is_terminal():
        fail(f"is_terminal reference {ref.is_terminal()} / fast {fast.is_terminal()}")
    if fast.pending() != ref.pending():
        fail("pending() differs")
    if fast.money() != ref.money():
        fail(f"money reference {ref.money()} / fast {fast.money()}")
    seat = ref.current_player()
    if seat != TERMINAL and fast.research_points(seat) != ref.research_points(seat):
        fail(f"research_points({seat}) reference {ref.research_points(seat)} / fast {fast.research_points(seat)}")
    if full:
        a, b = ref.to_json(), fast.to_json()
        if a != b:
            fail(f"to_json differs at {_json_diff(a, b)}")


def lockstep(game: Game, seed: int, style: str, full_json: bool, run: Run) -> None:
    """One seeded game on both engines; raises :class:`Disagreement` at the first difference."""
    rng = random.Random(seed)
    ref = game.new_initial_state(seed, engine="reference")
    assert isinstance(ref, State)
    # Both ways of getting a fast twin: the engine switch and the conversion.
    fast = game.new_initial_state(seed, engine="fast") if seed % 2 == 0 else FastState.from_reference(ref)
    assert isinstance(fast, FastState)
    c = game.components
    moves: list[int] = []
    deck = len(ref.deck)
    rnd = ref.round
    for step in range(MAX_STEPS):
        _compare(game, seed, style, step, moves, ref, fast, full_json)
        if full_json:
            run.full_json_steps += 1
        elif ref.round != rnd or ref.is_terminal():  # a round ended: the whole state
            _compare(game, seed, style, step, moves, ref, fast, True)
        rnd = ref.round
        if ref.is_terminal():
            break
        a = choose(rng, ref, style)
        pend = ref.pending()
        seat = ref.seats[ref.current_player()]
        if pend == "hire":
            run.count["activation choice"] += 1
        elif pend == "research":
            ct = c.card_types[a - A.RESEARCH]
            if ct.kind == "instant":
                run.instants.add(ct.index)
            if ct.kind == "development" and ct.tile and seat.canteen == 0:
                run.count["immediate tile of an inactive development"] += 1
        elif pend == "card_order":
            run.count["body-and-engine card order " + ref.action_to_text(a)] += 1
        elif pend == "special_order":
            run.count["specialty tile order " + ref.action_to_text(a)] += 1
        elif pend == "diesel" and seat.diesel < c.diesel_markers and a != A.DIESEL_PASS:
            run.count["second Diesel change"] += 1
        if a == A.ENGINE_GP and ref.tasks[-1][1] <= seat.gp_engine:
            run.count["engine not higher to the GP car"] += 1
            if ref.tasks[-1][1] == 1 and not seat.gp_tile:
                run.count["value-1 engine over the printed one"] += 1
        if A.BENZ <= a < A.ACTIVATE:
            run.count["Benz fifth buyer"] += 1
        elif A.DIESEL_BODY <= a < A.BENZ_PASS:
            run.count["Diesel change"] += 1
        elif A.DAIMLER <= a < A.DIESEL_PASS:
            run.count["Daimler marker"] += 1
        elif A.MARKET_MARKER <= a < A.DAIMLER_PASS:
            run.count["market marker"] += 1
        elif a == A.ENGINE_GP:
            run.count["engine to the GP car"] += 1
        elif A.SPECIAL_TILE <= a < A.SELL_PASS:
            run.count["specialty tile"] += 1
            run.bonuses.add(c.specialty_tiles[a - A.SPECIAL_TILE].bonus)
            run.special_pairs.add((c.specialty_tiles[a - A.SPECIAL_TILE].action,
                                   c.specialty_tiles[a - A.SPECIAL_TILE].bonus))
            if c.specialty_tiles[a - A.SPECIAL_TILE].stack < ref.round - 1:
                run.count["earlier-round specialty tile taken"] += 1
        elif A.SELL <= a < A.REMOVE_PASS:
            run.count["workshop tile sold"] += 1
        elif A.REMOVE_CAR <= a < A.ORDER_BODY:
            run.count["car removed"] += 1
        if game.v6:
            undrawn = [len(x) for x in ref.spec_undrawn]
            used = [list(x) for x in ref.spec_used]
        moves.append(a)
        ref.apply(a)
        fast.apply(a)
        if len(ref.deck) > deck:
            run.count["deck reshuffle"] += 1
        if game.v6:
            if any(len(x) > n for x, n in zip(ref.spec_undrawn, undrawn)):
                run.count["specialty stack reshuffle"] += 1
            if not A.SPECIAL_TILE <= a < A.SELL_PASS and ref.spec_used != used:
                run.count["earlier-round specialty tile passed over"] += 1
        deck = len(ref.deck)
        if step % 64 == 63:
            fast = fast.copy()  # carry on with a copy now and then
        run.steps += 1
    else:
        raise Disagreement(f"players={game.num_players} seed={seed} style={style}: no end after {MAX_STEPS} steps")
    for s in ref.seats:
        run.engineers |= s.engineers
    run.awards.update(i for i, w in enumerate(ref.awards) if w >= 0)
    if ref.round != c.rounds:
        raise Disagreement(f"players={game.num_players} seed={seed}: ended in round {ref.round}")
    run.games += 1


def run_games(game: Game, seeds, full_json_games: int, style_of=lambda seed: STYLES[seed % len(STYLES)]) -> Run:
    run = Run()
    for i, seed in enumerate(seeds):
        try:
            lockstep(game, seed, style_of(seed), i < full_json_games, run)
        except Disagreement as exc:
            run.failures.append(str(exc))
    return run


# ---------------------------------------------------------------------------
# Default components: 2,100 games
# ---------------------------------------------------------------------------


@lru_cache(maxsize=None)
def default_run(players: int) -> Run:
    return run_games(Game(players), range(players * 100_000, players * 100_000 + GAMES_PER_COUNT), FULL_JSON_GAMES)


def _no_failures(run: Run) -> None:
    assert not run.failures, (f"{len(run.failures)} of {run.games + len(run.failures)} games disagree; "
                              "first ones:\n" + "\n".join(run.failures[:3]))


@pytest.mark.parametrize("players", PLAYERS)
def test_the_engines_agree_on_seeded_random_games(players):
    run = default_run(players)
    _no_failures(run)
    assert run.games == GAMES_PER_COUNT
    assert run.full_json_steps > FULL_JSON_GAMES * 50


@pytest.mark.parametrize("players", PLAYERS)
def test_the_random_games_reach_every_rule(players):
    """Coverage of the differential run, per player count: what was not reached was not compared."""
    run = default_run(players)
    c = default_components()
    missing_engineers = [e for i, e in enumerate(ENGINEERS) if not run.engineers >> i & 1]
    assert not missing_engineers, f"engineers never taken: {missing_engineers}"
    instants = {ct.index for ct in c.card_types if ct.kind == "instant"}
    assert run.instants == instants, f"instant cards never taken: {[c.card_types[t].name for t in instants - run.instants]}"
    missing_awards = [AWARDS[i] for i in range(len(AWARDS)) if i not in run.awards]
    assert not missing_awards, f"awards never taken: {missing_awards}"
    for path in ("deck reshuffle", "Benz fifth buyer", "Diesel change", "Daimler marker",
                 "activation choice", "market marker", "engine to the GP car",
                 # the corrections of RULES.md §4.1, §5.1, §5.2, §5.3 (issue 11)
                 "engine not higher to the GP car", "immediate tile of an inactive development",
                 "body-and-engine card order body first", "body-and-engine card order engine first",
                 "second Diesel change", "value-1 engine over the printed one"):
        assert run.count[path] >= 1, f"never reached: {path} ({dict(run.count)})"


def test_the_differential_run_is_large_enough():
    runs = [default_run(p) for p in PLAYERS]
    assert sum(r.games for r in runs) >= 2000
    assert sum(r.count["deck reshuffle"] for r in runs) >= 10


# ---------------------------------------------------------------------------
# Component overrides
# ---------------------------------------------------------------------------


def small_deck_components():
    """Every engineer and instant once, eight developments: a 20-card deck, reshuffled often."""
    keep = {"dev:body1": 2, "dev:engine1": 2, "dev:body1+tile": 1, "dev:engine1+tile": 1, "dev:body2": 1,
            "dev:body1engine1": 1}
    cards = []
    for card in json.loads(json.dumps(DEFAULTS["research_cards"])):
        if card["kind"] == "development":
            if card["name"] not in keep:
                continue
            card["count"] = keep[card["name"]]
        else:
            card["count"] = 1
        cards.append(card)
    assert sum(card["count"] for card in cards) == 20
    return components_from_dict({"research_cards": cards, "research_deck_size": 20})


def _override(name: str):
    if name == "components-example":
        return load_components(EXAMPLES / "components-example.json")
    return small_deck_components()


@lru_cache(maxsize=None)
def override_run(name: str, players: int) -> Run:
    game = Game(players, components=_override(name))
    return run_games(game, range(7_000_000 + players * 1000, 7_000_000 + players * 1000 + OVERRIDE_GAMES),
                     OVERRIDE_FULL_JSON)


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("name", ["components-example", "small-deck"])
def test_the_engines_agree_with_component_overrides(name, players):
    run = override_run(name, players)
    _no_failures(run)
    assert run.games == OVERRIDE_GAMES


@pytest.mark.parametrize("players", PLAYERS)
def test_the_small_deck_is_reshuffled_often(players):
    run = override_run("small-deck", players)
    assert run.count["deck reshuffle"] >= OVERRIDE_GAMES // 2, dict(run.count)


def test_a_long_round_keeps_counting_laps():
    """A round ends only with a full market or the buyer track at 0, so a seat can lap the GP
    track any number of times (RULES.md §7 sets no limit; random play preferring the GP tile
    reached 128 laps in one round). The fast engine must count on like the reference, and the
    lap money at the end of the round must agree."""
    for laps in (126, 127, 254, 255):
        try:
            ref = position_to_state(make_position(2, seats={0: {"laps": laps, "space": 12}}))
            fast = FastState.from_reference(ref)
        except OverflowError as exc:
            raise AssertionError(f"a position with {laps} laps does not load on the fast engine: {exc}") from None
        ref.play(tile("gp"))
        fast.play(tile("gp"))
        assert ref.seats[0].laps == laps + 1
        assert fast.to_json() == ref.to_json(), f"{laps} laps + 1: {_json_diff(ref.to_json(), fast.to_json())}"
        rng = random.Random(laps)
        while ref.round == 1:  # on to the race scoring of round 1
            a = rng.choice(ref.legal_actions())
            ref.apply(a)
            fast.apply(a)
        assert fast.money() == ref.money(), f"{laps} laps + 1: money at the end of the round"
        assert fast.to_json() == ref.to_json()


def test_the_override_changes_the_game():
    """The example override is really in force on the fast engine (a longer lap, other start tiles)."""
    game = Game(4, components=load_components(EXAMPLES / "components-example.json"))
    fast = game.new_initial_state(3, engine="fast")
    assert isinstance(fast, FastState)
    assert fast.game.components.gp_lap_length == 14
    assert fast.to_json() == game.new_initial_state(3, engine="reference").to_json()
    assert fast.to_json()["components"] is not None


# ---------------------------------------------------------------------------
# V6 specialty tiles: 900 games
# ---------------------------------------------------------------------------


@lru_cache(maxsize=None)
def v6_run(players: int) -> Run:
    return run_games(Game(players, v6=True), range(9_000_000 + players * 1000, 9_000_000 + players * 1000 + V6_GAMES),
                     V6_FULL_JSON)


@pytest.mark.parametrize("players", PLAYERS)
def test_the_engines_agree_on_v6_games(players):
    run = v6_run(players)
    _no_failures(run)
    assert run.games == V6_GAMES


@pytest.mark.parametrize("players", PLAYERS)
def test_the_v6_games_reach_every_specialty_rule(players):
    run = v6_run(players)
    from kwsearch.components import SPECIALTY_BONUSES
    assert run.bonuses == set(SPECIALTY_BONUSES), run.bonuses
    for path in ("specialty tile", "workshop tile sold", "car removed", "specialty stack reshuffle",
                 "earlier-round specialty tile taken", "earlier-round specialty tile passed over",
                 "specialty tile order action first", "specialty tile order bonus first"):
        assert run.count[path] >= 1, f"never reached: {path} ({dict(run.count)})"


# ---------------------------------------------------------------------------
# V6 with every pairing of standard action and bonus: the order decision
# (RULES.md §11, rules._bonus_commutes) has a branch per pair, and the default
# tiles use only a few of them
# ---------------------------------------------------------------------------

SPECIAL_SHIFTS = 6          # the twelve default tiles with their standard actions rotated 0..5 places
SHIFT_GAMES = 40            # per rotation (3 players)
_STANDARD = ("hire", "body", "engine", "gp", "research", "buyer")


def shifted_specialty_components(shift: int):
    """The default specialty tiles, tile i with standard action ``_STANDARD[(i + shift) % 6]``: over the
    six shifts every bonus meets every standard action."""
    tiles = json.loads(json.dumps(DEFAULTS["specialty_tiles"]))
    for i, t in enumerate(tiles):
        t["action"] = _STANDARD[(i + shift) % len(_STANDARD)]
    return components_from_dict({"specialty_tiles": tiles})


@lru_cache(maxsize=None)
def shifted_run(shift: int) -> Run:
    game = Game(3, components=shifted_specialty_components(shift), v6=True)
    return run_games(game, range(9_500_000 + shift * 1000, 9_500_000 + shift * 1000 + SHIFT_GAMES), 10)


@pytest.mark.parametrize("shift", range(SPECIAL_SHIFTS))
def test_the_engines_agree_on_every_pairing_of_standard_action_and_bonus(shift):
    run = shifted_run(shift)
    _no_failures(run)
    assert run.games == SHIFT_GAMES


def test_every_pairing_of_standard_action_and_bonus_is_reached():
    """Each (standard action, bonus) pair of the rotated tiles is taken at least once."""
    from kwsearch.components import SPECIALTY_BONUSES
    pairs = set()
    for shift in range(SPECIAL_SHIFTS):
        pairs |= shifted_run(shift).special_pairs
    missing = {(a, b) for a in _STANDARD for b in SPECIALTY_BONUSES} - pairs
    assert not missing, f"pairs never taken: {sorted(missing)}"
