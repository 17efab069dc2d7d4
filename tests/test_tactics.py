"""Tactical positions with one winning move: the engines prove it, ISMCTS finds it.

tests/data/tactics/<name>.json are ``kwsearch-position/1`` files at a decision of
the last round where exactly one option wins the game whatever the hidden deck
order (tests/data/tactics/make_tactics.py builds and documents them). Each file
carries ``"_expected"`` (the position loader ignores unknown top-level keys):
the mover, the pending decision, the best move, the losing moves, and a verdict
per option:

* ``all-win`` / ``all-lose``: every continuation ends the game within the turn
  and the mover wins in all / none of them;
* ``forced-win``: the mover can force a win within the turn (it still has a
  choice that would leave the game open, e.g. ``market pass``);
* ``refuted``: the opponent can force the mover's loss within its next turn.

Checked here: the file is what the generator builds; the legal options are
the expected ones on both engines; the verdicts hold on the reference engine
(exhaustively, for several deck orders) and on the fast engine; ISMCTS with
5,000 iterations chooses the best move for seeds 1..5.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from kwsearch.engine import state_from_json
from kwsearch.formats import check_position
from kwsearch.search import SearchConfig, SearchLimits, search

pytestmark = pytest.mark.one_engine  # this module chooses the engine of every state itself

DATA = Path(__file__).resolve().parent / "data" / "tactics"
NAMES = sorted(p.stem for p in DATA.glob("*.json"))
SEARCH_SEEDS = range(1, 6)
ITERATIONS = 5_000


def _load_generator():
    spec = importlib.util.spec_from_file_location("make_tactics", DATA / "make_tactics.py")
    module = importlib.util.module_from_spec(spec)
    saved = list(sys.path)  # the script puts its checkout first on sys.path: undo that, so a
    try:                    # process started later (the web board's workers) imports the tested kwsearch
        spec.loader.exec_module(module)
    finally:
        sys.path[:] = saved
    return module


make_tactics = _load_generator()


def _file(name: str) -> dict:
    return json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))


def _options(state) -> list[str]:
    return [state.action_to_text(a) for a in state.legal_actions()]


def test_every_position_has_a_file():
    assert NAMES == sorted(make_tactics.POSITIONS)
    assert len(NAMES) >= 5


@pytest.mark.parametrize("name", NAMES)
def test_file_is_what_the_generator_builds(name):
    obj = _file(name)
    assert check_position(obj) == []  # "_expected" is tolerated
    assert make_tactics.build(name) == obj


@pytest.mark.parametrize("engine", ["reference", "fast"])
@pytest.mark.parametrize("name", NAMES)
def test_decision_and_options(name, engine):
    obj = _file(name)
    exp = obj["_expected"]
    state = state_from_json(obj, seed=0, engine=engine)
    assert not state.is_terminal()
    assert state.current_player() == exp["mover"]
    assert state.pending() == exp["decision"]
    assert sorted(_options(state)) == sorted([exp["best"]] + exp["losing"])
    assert exp["best"] not in exp["losing"]
    assert set(exp["proof"]) == set(_options(state))
    assert exp["proof"][exp["best"]] in ("all-win", "forced-win")
    assert all(exp["proof"][m] in ("all-lose", "refuted") for m in exp["losing"])


@pytest.mark.parametrize("name", NAMES)
def test_reference_proves_the_verdicts(name):
    """Exhaustive on the reference engine, for several deck orders (the loader's seeds)."""
    obj = _file(name)
    exp = obj["_expected"]
    for seed in (0, 1, 2):
        state = state_from_json(obj, seed=seed, engine="reference")
        assert make_tactics.classify(state, exp["mover"]) == exp["proof"], f"seed {seed}"


@pytest.mark.parametrize("name", NAMES)
def test_best_move_wins(name):
    """After the best move the mover wins: in every continuation (``all-win``: all of them end
    the game within the turn), or with its own best later choices (``forced-win``)."""
    obj = _file(name)
    exp = obj["_expected"]
    mover = exp["mover"]
    state = state_from_json(obj, seed=0, engine="reference")
    state.play(exp["best"])
    results = []

    def walk(st):
        if st.is_terminal():
            results.append(st.returns()[mover])
            return
        if st.pending() == "turn":
            results.append(None)  # the game goes on into another turn
            return
        for a in st.legal_actions():
            child = st.copy()
            child.apply(a)
            walk(child)

    walk(state)
    if exp["proof"][exp["best"]] == "all-win":
        assert results and all(r == 1.0 for r in results)
    else:
        assert 1.0 in results
    assert make_tactics.forced(state, mover) == (1.0, 1.0)


@pytest.mark.parametrize("name", NAMES)
def test_fast_engine_agrees(name):
    obj = _file(name)
    exp = obj["_expected"]
    for seed in (0, 3):
        state = state_from_json(obj, seed=seed, engine="fast")
        assert make_tactics.classify(state, exp["mover"]) == exp["proof"], f"seed {seed}"


@pytest.mark.parametrize("name", NAMES)
def test_ismcts_finds_the_best_move(name):
    obj = _file(name)
    exp = obj["_expected"]
    for seed in SEARCH_SEEDS:
        state = state_from_json(obj, seed=seed, engine="fast")
        res = search(state, SearchLimits(iterations=ITERATIONS), SearchConfig(), seed=seed)
        shares = {a.text: round(a.share, 3) for a in res.actions}
        assert res.best_text == exp["best"], f"seed {seed}: {shares}"
        assert res.mover == exp["mover"]
        assert res.pv and res.pv[0] == exp["best"]
        best = next(a for a in res.actions if a.text == exp["best"])
        assert best.share > 0.5, f"seed {seed}: {shares}"
        assert best.win_prob > 0.9, f"seed {seed}: {best}"
