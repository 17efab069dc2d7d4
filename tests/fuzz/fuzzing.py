"""Shared parts of the fuzz targets (tests/fuzz/README.md): run length, inputs, the property.

The property every target asserts: an input is either refused with a clean
:class:`~kwsearch.errors.KwsearchError` (a ``ValueError``; one line) or it gives
a state that both engines play identically — the reference and the fast engine
see the same observation, the same legal actions and the same player to move for
a few random moves in lockstep.

Run length: ``FUZZ`` is a hypothesis ``settings`` object applied to each target
(not a global profile, so the rest of the suite is unaffected). By default it is
the short run of CI; ``KWSEARCH_FUZZ=long`` makes it the long run, and
``KWSEARCH_FUZZ=<number>`` asks for that many examples per target.
"""

from __future__ import annotations

import functools
import json
import math
import os
import random
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from kwsearch.engine import convert
from kwsearch.errors import KwsearchError
from kwsearch.rules import Game

_MODE = os.environ.get("KWSEARCH_FUZZ", "").strip().lower()
#: Examples per target: 25 in CI, 5,000 for ``KWSEARCH_FUZZ=long``, or the number given.
EXAMPLES = 5000 if _MODE == "long" else int(_MODE) if _MODE.isdigit() else 25

FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=_MODE == "",
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.filter_too_much, HealthCheck.function_scoped_fixture])

#: Words of the game: real names mixed into generated values, so mutations reach deep checks.
VOCAB = ["body 3", "engine 7", "B2", "E5", "b9", "seat 0", "seat 5", "tile 3", "tile 99", "special A1",
         "hire3", "Diesel", "dev:body1", "A", "a", "D", "Z", "action", "setup", "scoring", "over", "turn",
         "market_engine", "place", "body", "engine", "price", "gp", "0", "ff", "-1", "ffffffffffffffff", ""]

scalars = (st.none() | st.booleans() | st.sampled_from([0, 1, 2, 3, 7, 8, 14, 15, -1, 2 ** 63, 10 ** 8, 2 ** 64])
           | st.integers(-2 ** 70, 2 ** 70) | st.floats(allow_nan=True, allow_infinity=True)
           | st.sampled_from(VOCAB) | st.text(max_size=8))
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.sampled_from(VOCAB) | st.text(max_size=6), inner, max_size=3),
                           max_leaves=6)


def paths(obj: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path into a JSON value (keys and indices), the root included."""
    out = [prefix]
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += paths(v, prefix + (i,))
    return out


def mutate(data, obj: Any, rounds: int = 3) -> Any:
    """Apply 1..``rounds`` random edits (replace, delete, add a key, duplicate an entry) to a copy of ``obj``."""
    obj = json.loads(json.dumps(obj))
    for _ in range(data.draw(st.integers(1, rounds), label="edits")):
        where = data.draw(st.sampled_from(paths(obj)), label="path")
        if not where:
            continue
        parent = obj
        for k in where[:-1]:
            parent = parent[k]
        key = where[-1]
        op = data.draw(st.sampled_from(["replace", "replace", "delete", "add", "duplicate"]), label="op")
        if op == "replace":
            parent[key] = data.draw(json_values, label="value")
        elif op == "delete":
            del parent[key]
        elif op == "add" and isinstance(parent[key], dict):
            parent[key][data.draw(st.sampled_from(VOCAB) | st.text(max_size=6), label="key")] = \
                data.draw(json_values, label="value")
        elif op == "duplicate" and isinstance(parent[key], list) and parent[key]:
            parent[key].append(parent[key][data.draw(st.integers(0, len(parent[key]) - 1), label="entry")])
    return obj


def lockstep(state, moves: int = 6, seed: int = 0) -> None:
    """Play ``moves`` random moves on the reference and the fast engine from ``state``; they must agree."""
    ref = convert(state, "reference").copy()
    fast = convert(ref, "fast")
    rng = random.Random(seed)
    for _ in range(moves):
        assert ref.observation() == fast.observation()
        assert ref.current_player() == fast.current_player()
        assert ref.is_terminal() == fast.is_terminal()
        if ref.is_terminal():
            assert ref.money() == fast.money()
            return
        legal = ref.legal_actions()
        assert legal == fast.legal_actions()
        a = rng.choice(legal)
        ref.apply(a)
        fast.apply(a)
    assert ref.observation() == fast.observation()


def toml_value(v) -> str | None:
    """``v`` (a JSON value) as a TOML value; None for null, which TOML cannot write (left out)."""
    if v is None:
        return None
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf") if math.isinf(v) else repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        parts = [toml_value(x) for x in v]
        return "[" + ", ".join(p for p in parts if p is not None) + "]"
    items = [(json.dumps(str(k)), toml_value(x)) for k, x in v.items()]
    return "{" + ", ".join(f"{k} = {x}" for k, x in items if x is not None) + "}"


def clean(exc: BaseException) -> None:
    """A refusal must be a KwsearchError with a one-line message."""
    assert isinstance(exc, KwsearchError), f"{type(exc).__name__}: {exc}"
    assert "\n" not in str(exc), str(exc)


@functools.lru_cache(maxsize=None)
def sample_states(v6: bool) -> tuple:
    """Exact states (``to_json``) from random games of 2-4 players, at several depths."""
    out = []
    for n in (2, 3, 4):
        for seed in range(2):
            state = Game(n, v6=v6).new_initial_state(seed, engine="reference")
            rng = random.Random(seed)
            k = 0
            while not state.is_terminal():
                if k % 37 == 0:
                    out.append(state.to_json())
                state.apply(rng.choice(state.legal_actions()))
                k += 1
            out.append(state.to_json())
    return tuple(out)
