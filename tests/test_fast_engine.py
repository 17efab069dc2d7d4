"""The fast engine's own API: playouts, copies, serialization, determinization, errors,
and the choice of engine (``kwsearch.engine``, the KWSEARCH_PUREPYTHON switch, the
ImportError when the compiled extension is missing).

Agreement with the reference move by move is tests/test_fast_differential.py.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

import kwsearch
from kwsearch.engine import convert, default_engine, set_default_engine, state_from_json
from kwsearch.errors import IllegalMoveError, InvalidMoveError, KwsearchError
from kwsearch._fast import FastState
from kwsearch._forced import apply_forced
from kwsearch.rules import SPECIAL, TERMINAL, Game, State, random_game

pytestmark = pytest.mark.one_engine  # does its own engine handling (see conftest.py)

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
PLAYERS = (2, 3, 4)


def midgame(engine: str = "fast"):
    return state_from_json(json.loads((EXAMPLES / "midgame-4p.json").read_text()), engine=engine)


#: The openings of each player count and the bundled mid-game position.
STARTS = [f"opening-{n}p" for n in PLAYERS] + ["midgame-4p"]


def starting_state(name: str):
    if name == "midgame-4p":
        return midgame()
    n = int(name[len("opening-")])
    return Game(n).new_initial_state(n * 11, engine="fast")


def walk(players: int, seed: int, engine: str = "fast"):
    """The states of a seeded random game, one per decision (and the final one)."""
    rng = random.Random(seed)
    st = Game(players).new_initial_state(seed, engine=engine)
    while True:
        yield st
        if st.is_terminal():
            return
        st.apply(rng.choice(st.legal_actions()))


# ---------------------------------------------------------------------------
# Playouts
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", STARTS)
def test_a_playout_leaves_the_state_untouched(name):
    state = starting_state(name)
    before = state.to_json()
    legal = state.legal_actions()
    for seed in range(5):
        state.playout(seed)
    assert state.to_json() == before
    assert state.legal_actions() == legal
    assert not state.is_terminal()


@pytest.mark.parametrize("name", STARTS)
def test_a_playout_returns_a_finished_games_money(name):
    state = starting_state(name)
    n = state.game.num_players
    start = state.money()
    results = [state.playout(seed) for seed in range(30)]
    for money in results:
        assert isinstance(money, list) and len(money) == n
        assert all(type(m) is int and m >= 0 for m in money)
        assert all(m >= s for m, s in zip(money, start)), f"money went down: {start} -> {money}"
        assert sum(money) > sum(start)  # at least one more scoring happens
    assert len({tuple(m) for m in results}) >= 10, "different seeds should usually give different games"


@pytest.mark.parametrize("name", STARTS)
def test_the_same_seed_gives_the_same_playout(name):
    state = starting_state(name)
    for seed in (0, 1, 12345, 2**63 + 7):
        first = state.playout(seed)
        assert state.playout(seed) == first
        assert state.copy().playout(seed) == first
        assert state_from_json(state.to_json(), engine="fast").playout(seed) == first


def test_a_playout_of_a_finished_game_is_its_money():
    final = random_game(Game(3), 5, engine="fast")
    assert isinstance(final, FastState) and final.is_terminal()
    assert final.playout(1) == final.money()


# ---------------------------------------------------------------------------
# Copies, serialization, determinization
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("players", PLAYERS)
def test_a_copy_is_independent_of_the_original(players):
    moves = random.Random(players)
    for seed in range(10):
        for step, st in enumerate(walk(players, 100 + seed)):
            if st.is_terminal() or step % 7:
                continue
            before = st.to_json()
            c = st.copy()
            assert isinstance(c, FastState) and c is not st
            assert c.to_json() == before
            for _ in range(15):
                if c.is_terminal():
                    break
                c.apply(moves.choice(c.legal_actions()))
            assert st.to_json() == before
            # ... and the other way round: moving the original leaves an earlier copy alone.
            d = st.copy()
            ref_d = d.to_json()
            probe = st.copy()
            probe.apply(st.legal_actions()[0])
            assert d.to_json() == ref_d


def test_no_attribute_converts_the_state_behind_the_callers_back():
    """A fast state has no reference attributes: reading one is an AttributeError that names the
    explicit snapshot, not a silent conversion of the whole state; the snapshot is a copy."""
    st = Game(4).new_initial_state(3, engine="fast")
    assert not hasattr(st, "seats") and not hasattr(st, "tasks")
    for name in ("seats", "chain", "tasks", "deck", "market", "phase", "awards"):
        with pytest.raises(AttributeError, match=rf"no attribute '{name}'.*to_reference\(\)\.{name}"):
            getattr(st, name)
    with pytest.raises(AttributeError, match="no attribute 'no_such_attribute'$"):
        st.no_such_attribute  # noqa: B018
    assert st.round == st.to_reference().round == 1  # cheap readings are properties of their own
    before = st.to_json()
    snap = st.to_reference()
    snap.seats[0].money = 999
    snap.seats[0].workshops.append(1)
    snap.chain.append(3)
    snap.deck.clear()
    assert st.to_json() == before
    assert st.money()[0] == 0


@pytest.mark.parametrize("players", PLAYERS)
def test_to_json_from_json_round_trips_at_every_step(players):
    for seed in range(6):
        for st in walk(players, 200 + seed):
            obj = st.to_json()
            back = state_from_json(obj, engine="fast")
            assert isinstance(back, FastState)
            assert back.to_json() == obj
            assert back.legal_actions() == st.legal_actions()
            assert back.current_player() == st.current_player()
            assert back.pending() == st.pending()
            assert back == st


@pytest.mark.parametrize("players", PLAYERS)
def test_a_restored_fast_state_plays_on_like_the_original(players):
    for seed in range(10):
        rng = random.Random(seed)
        st = Game(players).new_initial_state(300 + seed, engine="fast")
        for _ in range(rng.randrange(10, 120)):
            if st.is_terminal():
                break
            st.apply(rng.choice(st.legal_actions()))
        back = state_from_json(st.to_json(), engine="fast")
        while not st.is_terminal():
            a = rng.choice(st.legal_actions())
            st.apply(a)
            back.apply(a)
            assert back.legal_actions() == st.legal_actions()
        assert back.is_terminal()
        assert back.to_json() == st.to_json()


def _without_hidden(obj):
    obj = dict(obj)
    del obj["hidden"]
    return obj


@pytest.mark.parametrize("players", PLAYERS)
def test_determinize_keeps_the_observation_and_permutes_only_the_undrawn_cards(players):
    det = random.Random(players)
    changed = 0
    for seed in range(20):
        for step, st in enumerate(walk(players, 400 + seed)):
            if step % 5:
                continue
            d = st.copy()
            d.determinize(det)
            assert sorted(d.to_reference().deck) == sorted(st.to_reference().deck)
            for seat in range(players):
                assert d.observation(seat) == st.observation(seat)
            assert _without_hidden(d.to_json()) == _without_hidden(st.to_json())
            assert d.legal_actions() == st.legal_actions()
            assert d.current_player() == st.current_player()
            changed += d.to_json()["hidden"] != st.to_json()["hidden"]
    assert changed > 0


@pytest.mark.parametrize("players", PLAYERS)
def test_determinize_with_the_same_seed_gives_the_same_state_on_both_engines(players):
    for seed in range(8):
        for step, ref in enumerate(walk(players, 500 + seed, engine="reference")):
            if step % 9:
                continue
            fast = FastState.from_reference(ref)
            for dseed in (0, 7, 2**64 - 1, 31337 + step):
                r, f = ref.copy(), fast.copy()
                r.determinize(dseed)
                f.determinize(dseed)
                assert f.to_json() == r.to_json(), f"players={players} seed={500 + seed} step={step} dseed={dseed}"
                assert f.legal_actions() == r.legal_actions()
            # A random.Random draws the same 64-bit seed on both.
            r, f = ref.copy(), fast.copy()
            r.determinize(random.Random(step))
            f.determinize(random.Random(step))
            assert f.to_json() == r.to_json()


def test_a_determinized_fast_state_plays_on_like_its_reference_twin():
    """After determinize, the redrawn deck and generator drive later draws and reshuffles alike."""
    for seed in range(20):
        rng = random.Random(seed)
        ref = Game(3).new_initial_state(600 + seed, engine="reference")
        for _ in range(rng.randrange(5, 60)):
            ref.apply(rng.choice(ref.legal_actions()))
        fast = FastState.from_reference(ref)
        ref.determinize(seed)
        fast.determinize(seed)
        while not ref.is_terminal():
            a = rng.choice(ref.legal_actions())
            ref.apply(a)
            fast.apply(a)
            assert fast.legal_actions() == ref.legal_actions()
        assert fast.to_json() == ref.to_json()


def test_the_state_struct_is_small():
    size = FastState.sizeof()
    assert isinstance(size, int) and 0 < size <= 512


# ---------------------------------------------------------------------------
# Moves in text, errors, returns
# ---------------------------------------------------------------------------


def test_play_refuses_an_illegal_move_and_leaves_the_state_alone():
    st = Game(4).new_initial_state(1, engine="fast")
    before = st.to_json()
    legal_text = [st.action_to_text(a) for a in st.legal_actions()]
    with pytest.raises(IllegalMoveError) as err:
        st.play("buyer body")  # well-formed, not legal at set-up
    assert err.value.legal == legal_text
    assert "not legal here" in str(err.value) and legal_text[0] in str(err.value)
    assert st.to_json() == before


@pytest.mark.parametrize("text", ["fly to the moon", "", "tile", "tile 99x", "start Z"])
def test_play_refuses_garbage_with_the_notation_message(text):
    st = Game(2).new_initial_state(1, engine="fast")
    before = st.to_json()
    with pytest.raises(InvalidMoveError) as parse_err:
        st.game.notation.parse(text)
    with pytest.raises(IllegalMoveError) as err:
        st.play(text)
    assert isinstance(err.value, KwsearchError)
    assert str(parse_err.value) in str(err.value)
    assert err.value.legal == [st.action_to_text(a) for a in st.legal_actions()]
    # The same message as the reference engine gives.
    with pytest.raises(IllegalMoveError) as ref_err:
        st.to_reference().play(text)
    assert str(ref_err.value) == str(err.value)
    assert st.to_json() == before


def test_play_on_a_finished_game_is_refused():
    final = random_game(Game(2), 3, engine="fast")
    with pytest.raises(IllegalMoveError, match="over"):
        final.play("tile 0")
    assert final.current_player() == TERMINAL and final.legal_actions() == []


@pytest.mark.parametrize("players", PLAYERS)
def test_every_legal_action_round_trips_through_its_text(players):
    for seed in range(4):
        for st in walk(players, 700 + seed):
            ref = st.to_reference()
            for a in st.legal_actions():
                text = st.action_to_text(a)
                assert text == ref.action_to_text(a)
                assert st.parse_move(text) == a
            if st.legal_actions():
                a = st.legal_actions()[-1]
                c = st.copy()
                assert c.play(st.action_to_text(a)) == a
                st2 = st.copy()
                st2.apply(a)
                assert c.to_json() == st2.to_json()


@pytest.mark.parametrize("players", PLAYERS)
def test_returns_share_one_win_at_the_end(players):
    for seed in range(20):
        fast = random_game(Game(players), 800 + seed, engine="fast")
        ref = random_game(Game(players), 800 + seed, engine="reference")
        assert fast.is_terminal()
        r = fast.returns()
        assert len(r) == players and sum(r) == pytest.approx(1.0)
        assert r == ref.returns()
        best = max(fast.money())
        assert all((x > 0) == (m == best) for x, m in zip(r, fast.money()))


def test_research_points_and_observation_match_the_reference():
    for st in walk(4, 900):
        ref = st.to_reference()
        for seat in range(4):
            assert st.research_points(seat) == ref.research_points(seat)
        assert st.observation() == ref.observation()


# ---------------------------------------------------------------------------
# Choosing the engine
# ---------------------------------------------------------------------------


def test_the_default_engine_is_the_fast_one(monkeypatch):
    monkeypatch.delenv("KWSEARCH_PUREPYTHON", raising=False)
    set_default_engine(None)  # undo the one_engine fixture's "reference" (restored after the test)
    assert default_engine() == "fast"
    for n in PLAYERS:
        fast = Game(n).new_initial_state(42)
        ref = Game(n).new_initial_state(42, engine="reference")
        assert type(fast) is FastState
        assert type(ref) is State
        assert fast.to_json() == ref.to_json()
        assert type(Game(n).new_initial_state(42, engine="fast")) is FastState
    assert type(random_game(Game(2), 1)) is FastState


def test_purepython_in_the_environment_makes_the_reference_the_default(monkeypatch):
    set_default_engine(None)
    monkeypatch.setenv("KWSEARCH_PUREPYTHON", "1")
    assert default_engine() == "reference"
    assert type(Game(3).new_initial_state(1)) is State
    assert type(Game(3).new_initial_state(1, engine="fast")) is FastState  # asked for by name
    monkeypatch.setenv("KWSEARCH_PUREPYTHON", "0")
    assert default_engine() == "fast"


def test_set_default_engine_overrides_the_environment(monkeypatch):
    monkeypatch.delenv("KWSEARCH_PUREPYTHON", raising=False)
    set_default_engine("reference")
    assert type(Game(2).new_initial_state(1)) is State
    set_default_engine("fast")
    assert type(Game(2).new_initial_state(1)) is FastState
    assert type(state_from_json(midgame().to_json())) is FastState


def test_convert_and_state_from_json_switch_engines():
    ref = midgame("reference")
    fast = midgame("fast")
    assert type(ref) is State and type(fast) is FastState
    assert convert(ref, "reference") is ref
    assert convert(fast, "fast") is fast
    assert type(convert(ref, "fast")) is FastState and convert(ref, "fast").to_json() == ref.to_json()
    assert type(convert(fast, "reference")) is State and convert(fast, "reference").to_json() == ref.to_json()
    assert fast.to_json() == ref.to_json()


def test_an_unknown_engine_name_is_a_value_error():
    with pytest.raises(ValueError, match="engine"):
        Game(2).new_initial_state(1, engine="turbo")
    with pytest.raises(ValueError, match="engine"):
        set_default_engine("Fast")
    with pytest.raises(ValueError, match="engine"):
        convert(Game(2).new_initial_state(1, engine="reference"), "cython")
    with pytest.raises(ValueError, match="engine"):
        state_from_json(midgame().to_json(), engine="pure")
    with pytest.raises(ValueError, match="engine"):
        random_game(Game(2), 1, engine="python")


# ----- in a fresh interpreter ---------------------------------------------

#: The directory holding the kwsearch package under test (the repo root when the tests
#: run from the source tree, site-packages after ``pip install .``).
PACKAGE_ROOT = Path(kwsearch.__file__).resolve().parent.parent

#: Makes ``import kwsearch._fast`` fail, as when the extension was never built.
HIDE_EXTENSION = {
    "sys.modules": "import sys; sys.modules['kwsearch._fast'] = None\n",
    "meta-path finder": (
        "import sys\n"
        "class _Hide:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'kwsearch._fast':\n"
        "            raise ModuleNotFoundError(\"No module named 'kwsearch._fast'\", name=name)\n"
        "        return None\n"
        "sys.meta_path.insert(0, _Hide())\n"),
}


def python(code: str, purepython: bool | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "KWSEARCH_PUREPYTHON"}
    env["PYTHONPATH"] = str(PACKAGE_ROOT)
    if purepython:
        env["KWSEARCH_PUREPYTHON"] = "1"
    return subprocess.run([sys.executable, "-c", code], cwd=PACKAGE_ROOT, env=env,
                          capture_output=True, text=True, timeout=60)


ENGINE_OF_A_NEW_GAME = (
    "from kwsearch.rules import Game\n"
    "st = Game(3).new_initial_state(5)\n"
    "print(type(st).__module__, type(st).__name__)\n")


def test_a_fresh_interpreter_uses_the_fast_engine_by_default():
    out = python(ENGINE_OF_A_NEW_GAME)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["kwsearch._fast", "FastState"]


def test_purepython_1_makes_a_fresh_interpreter_use_the_reference():
    out = python(ENGINE_OF_A_NEW_GAME, purepython=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["kwsearch.rules", "State"]


@pytest.mark.parametrize("how", sorted(HIDE_EXTENSION))
def test_importing_kwsearch_without_the_extension_says_how_to_fix_it(how):
    code = HIDE_EXTENSION[how] + (
        "try:\n"
        "    import kwsearch\n"
        "except ImportError as exc:\n"
        "    print('IMPORTERROR', exc)\n"
        "else:\n"
        "    print('IMPORTED')\n")
    out = python(code)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("IMPORTERROR"), out.stdout
    assert "KWSEARCH_PUREPYTHON" in out.stdout
    assert "pip install ." in out.stdout


@pytest.mark.parametrize("how", sorted(HIDE_EXTENSION))
def test_purepython_1_imports_and_plays_without_the_extension(how):
    code = HIDE_EXTENSION[how] + (
        "import kwsearch\n"
        "from kwsearch.rules import Game, random_game\n"
        "st = Game(4).new_initial_state(5)\n"
        "print(type(st).__name__)\n"
        "print(random_game(Game(2), 3).is_terminal())\n"
        "try:\n"
        "    Game(2).new_initial_state(1, engine='fast')\n"
        "except ImportError as exc:\n"
        "    print('FAST-IMPORTERROR', exc)\n")
    out = python(code, purepython=True)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "State"
    assert lines[1] == "True"
    assert lines[2].startswith("FAST-IMPORTERROR") and "KWSEARCH_PUREPYTHON" in lines[2], out.stdout


def _public(state) -> dict:
    obj = state.to_json()
    del obj["hidden"]
    return obj


@pytest.mark.parametrize("v6", (False, True))
@pytest.mark.parametrize("players", PLAYERS)
def test_apply_forced_turns_up_the_named_cards_whatever_the_deck_order(players, v6):
    """A fast state with a differently shuffled deck (and, with V6, differently ordered
    specialty stacks) follows the reference game when each action is applied with the
    cards and specialty tiles the reference turned up (kwsearch.openspiel's explicit
    chance); naming fewer reports the kind and the pile of the next draw."""
    draws = reshuffles = special_draws = special_reshuffles = 0
    for seed in range(4):
        ref = Game(players, v6=v6).new_initial_state(seed, engine="reference")
        if seed % 2:  # all but one undrawn card (and specialty tile) used: reshuffles come soon
            ref.discard, ref.deck = ref.discard + ref.deck[:-1], ref.deck[-1:]
            for r, stack in enumerate(ref.spec_undrawn):
                ref.spec_used[r], ref.spec_undrawn[r] = stack[:-1], stack[-1:]
        fast = convert(ref, "fast")
        fast.determinize(seed + 99)
        rng = random.Random(seed)
        while not ref.is_terminal():
            action = rng.choice(ref.legal_actions())
            events: list[tuple[str, int, list[int]]] = []  # (kind, drawn, sorted pile) in draw order
            stacks: list[int] = []  # the stack of each specialty draw

            def hook(st, events=events):
                pile = sorted(st.deck)
                card = st.deck.pop()
                events.append(("card", card, pile))
                return card

            def special_hook(st, r, events=events, stacks=stacks):
                stacks.append(r)
                pile = sorted(st.spec_undrawn[r])
                t = st.spec_undrawn[r].pop()
                events.append(("special", t, pile))
                return t

            undrawn = len(ref.deck)
            spec_undrawn = [len(x) for x in ref.spec_undrawn]
            ref.draw_hook, ref.special_hook = hook, special_hook
            ref.apply(action)
            ref.draw_hook = ref.special_hook = None
            cards = [t for kind, t, _ in events if kind == "card"]
            specials = [t for kind, t, _ in events if kind == "special"]
            draws += len(cards)
            special_draws += len(specials)
            reshuffles += any(len(pile) > undrawn - i
                              for i, pile in enumerate(p for kind, _, p in events if kind == "card"))
            piles = [p for kind, _, p in events if kind == "special"]
            special_reshuffles += any(len(pile) > spec_undrawn[r] - stacks[:i].count(r)
                                      for i, (r, pile) in enumerate(zip(stacks, piles)))
            for i, (kind, _, pile) in enumerate(events):
                before = events[:i]
                result = apply_forced(fast.copy(), action, [t for k, t, _ in before if k == "card"],
                                                  [t for k, t, _ in before if k == "special"])
                if kind == "card":
                    counts = [0] * len(ref.game.components.card_types)
                    for t in pile:
                        counts[t] += 1
                    assert result == ("card", counts)
                else:
                    assert result == ("special", pile)
            after = fast.copy()
            assert apply_forced(after, action, cards, specials) is None
            assert _public(after) == _public(ref)
            fast = after
    assert draws > 30 and reshuffles >= 2
    if v6:
        assert special_draws >= 8 and special_reshuffles >= 2
    else:
        assert special_draws == 0


def test_apply_forced_refuses_a_card_that_is_not_undrawn():
    state = Game(2).new_initial_state(1, engine="fast")
    while "research" not in state.pending():
        state.apply(state.legal_actions()[0])
    research = [a for a in state.legal_actions()]
    deck = state.to_reference().deck
    missing = next(t for t in range(len(state.game.components.card_types)) if t not in deck)
    with pytest.raises(ValueError, match="could be turned up"):
        apply_forced(state.copy(), research[0], [missing, missing])
    before = state.to_json()
    apply_forced(state.copy(), research[0], [deck[-1]])
    assert state.to_json() == before  # applied to a copy: the original is untouched


def test_apply_forced_refuses_a_specialty_tile_that_is_not_undrawn_in_the_stack_drawn_from():
    state = Game(2, v6=True).new_initial_state(3, engine="fast")
    rng = random.Random(3)
    while True:  # the first action that places a new specialty tile
        action = rng.choice(state.legal_actions())
        result = apply_forced(state.copy(), action)
        if result is not None and result[0] == "special":
            break
        state.apply(action)
    _, pile = result
    sp = state.game.components.specialty_tiles
    r = sp[pile[0]].stack
    assert pile == sorted(t for t in state.to_reference().spec_undrawn[r])
    other = next(t.index for t in sp if t.stack != r)  # a tile of another stack
    with pytest.raises(ValueError, match="could be turned up"):
        apply_forced(state.copy(), action, [], [other])
    with pytest.raises(ValueError, match="at most 8"):
        apply_forced(state.copy(), action, [], [pile[0]] * 9)
    for t in pile:  # any face-down tile of the stack can be named; it is the one placed
        after = state.copy()
        assert apply_forced(after, action, [], [t]) is None
        after = after.to_reference()
        assert SPECIAL + t in after.chain and t not in after.spec_undrawn[r]


def test_diesel_changes_are_the_same_on_both_engines_and_are_the_options():
    """State.diesel_changes (what Diesel can do to an own market car, and the car each change makes)
    read from the struct agrees with the reference; its actions are the diesel_change decision's
    options, and applying one makes that car."""
    from kwsearch import actions as A
    checked = 0
    for seed in range(60):
        for st in walk(4, 9000 + seed):
            if st.is_terminal() or st.pending() != "diesel":
                continue
            ref = st.to_reference()
            for option in st.legal_actions():
                if option == A.DIESEL_PASS:
                    continue
                price = option - A.DIESEL_CAR
                changes = st.diesel_changes(price)
                assert changes == ref.diesel_changes(price)
                picked = st.copy()
                picked.apply(option)
                assert [a for a, _ in changes] == picked.legal_actions()
                for action, car in changes:
                    changed = picked.copy()
                    changed.apply(action)
                    if changed.round == st.round and not changed.is_terminal():  # no scoring yet
                        assert car in changed.to_reference().market
                checked += 1
    assert checked >= 5
    with pytest.raises(ValueError, match="no car with price 31"):
        Game(2).new_initial_state(0, engine="fast").diesel_changes(31)
    with pytest.raises(ValueError, match="no car with price 31"):
        Game(2).new_initial_state(0, engine="reference").diesel_changes(31)
