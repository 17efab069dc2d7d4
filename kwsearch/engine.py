"""Which engine runs the game: the compiled one by default, the reference on request.

Two implementations share one API (msgpack's pure/compiled pattern):

* ``"fast"`` — :class:`kwsearch._fast.FastState`, the Cython engine;
* ``"reference"`` — :class:`kwsearch.rules.State`, the readable pure-Python one.

This module is the engine factory: :meth:`kwsearch.game.Game.new_initial_state`
calls :func:`new_state`, installed below when the package is imported (the
engines import :mod:`kwsearch.game`, so the game cannot import them).

``KWSEARCH_PUREPYTHON=1`` in the environment makes the reference the default
everywhere. When the compiled extension is missing, asking for the fast engine
(or importing :mod:`kwsearch` without ``KWSEARCH_PUREPYTHON``) raises an
``ImportError`` that says how to fix it, instead of silently running slowly.
"""

from __future__ import annotations

import os
from typing import Any

from .formats import position_to_state
from .game import Game, GameState, install_state_factory
from .rules import State

ENGINES = ("fast", "reference")

_MISSING = ("kwsearch: the compiled engine (kwsearch._fast) is not built or failed to load{why}. "
            "Reinstall with `pip install .` (it needs a C compiler; Cython comes from the build "
            "requirements), or set KWSEARCH_PUREPYTHON=1 to run the pure-Python reference engine.")

_default: str | None = None


def purepython_forced() -> bool:
    return os.environ.get("KWSEARCH_PUREPYTHON", "") not in ("", "0")


def default_engine() -> str:
    """``"reference"`` under KWSEARCH_PUREPYTHON=1 (or after :func:`set_default_engine`), else ``"fast"``."""
    if _default is not None:
        return _default
    return "reference" if purepython_forced() else "fast"


def set_default_engine(engine: str | None) -> None:
    """Override the default engine for this process (``None`` restores the environment's)."""
    global _default
    if engine is not None:
        check_engine(engine)
    _default = engine


def check_engine(engine: str) -> str:
    if engine not in ENGINES:
        raise ValueError(f"engine: expected one of {', '.join(ENGINES)}, got {engine!r}")
    return engine


def fast_module():
    """The compiled extension module, or an ImportError saying how to build it."""
    import importlib.util
    try:
        from . import _fast
    except ImportError as exc:
        try:
            built = importlib.util.find_spec(__package__ + "._fast") is not None
        except (ImportError, ValueError):
            built = False
        why = f" ({exc})" if built else f" (no compiled kwsearch._fast next to {__file__})"
        raise ImportError(_MISSING.format(why=why)) from exc
    return _fast


def new_state(game: Game, seed: int = 0, engine: str | None = None) -> GameState:
    """A new game's state on the chosen engine (the set-up is the same on both)."""
    return convert(State.new(game, seed), engine)


install_state_factory(new_state)


def convert(state: GameState, engine: str | None = None) -> GameState:
    """``state`` on the chosen engine (a copy when it changes engines)."""
    engine = check_engine(engine or default_engine())
    if engine == "reference":
        return state if isinstance(state, State) else state.to_reference()
    fast = fast_module()
    return state if isinstance(state, fast.FastState) else fast.FastState.from_reference(state)


def state_from_json(obj: Any, seed: int = 0, engine: str | None = None, components=None,
                    source: str | None = None) -> GameState:
    """A state from a position object (:func:`kwsearch.formats.position_to_state`) on the chosen engine."""
    return convert(position_to_state(obj, seed=seed, components=components, source=source), engine)


def reference(state: GameState) -> State:
    """The reference form of a state of either engine (the state itself when it is one)."""
    return state if isinstance(state, State) else state.to_reference()
