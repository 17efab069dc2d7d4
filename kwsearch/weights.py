"""Checking and loading of learned weights files, shared by the learned evaluation
(:mod:`kwsearch.features`) and the move prior (:mod:`kwsearch.prior`).

Both files have the same frame — ``format``, ``version``, ``players``, ``features`` (the names,
in the order of the weights), ``weights``, ``training`` and a ``test`` with feature rows and the
prediction the weights must reproduce — and differ only in their names, their features and the
shape of the test rows. Each caller passes its own error class, so a problem in an evaluation
file stays an ``EvaluationError`` and one in a prior file a ``PriorError``; the messages are the
same words for both, with the kind of file named where it differs.

The frame is strict: a key other than the seven and the caller's optional ones (the evaluation's
``hidden``; or, in ``test``, other than ``features`` and ``prediction``) is an error naming it and
the keys expected, so a misspelt key is never ignored; weights and test features are finite and
bounded (``max_weight``, :data:`MAX_FEATURE`), and the stored prediction is a distribution
(numbers from 0 to 1 summing to 1). ``training`` is the record of how the weights were made: an
object of any keys, kept but never read.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any, Callable

from .jsonload import key_path, load_json_file

#: The keys of a weights file, in the order the messages name them; any other key is an error.
FRAME_KEYS = ("format", "version", "players", "features", "weights", "training", "test")
#: The keys of its ``test`` object.
TEST_KEYS = ("features", "prediction")
#: The largest size of a test feature value (real features are scaled to a few units; a bound keeps
#: ``w . f`` finite: at most ``MAX_WEIGHT * MAX_FEATURE`` per term).
MAX_FEATURE = 1e6
#: How far the stored test prediction's sum may be from 1 (win shares, or probabilities over options).
SUM_TOLERANCE = 1e-6


def number(value: Any, where: str, source: str, error: type[Exception]) -> float:
    """``value`` as a float; ``error`` names ``source`` and ``where`` unless it is a finite number
    (a bool is not one)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise error(f"{source}: {where}: expected a finite number, got {value!r}")
    return float(value)


def check_frame(obj: Any, source: str, players: int | None, *, error: type[Exception], kind: str,
                format: str, version: int, features: tuple[str, ...], ours: str,
                max_weight: float,
                optional: tuple[str, ...] = ()) -> tuple[int, list[float], dict[str, Any], dict[str, Any]]:
    """The checked frame of a weights file ``obj`` (as parsed): its player count, its weights
    (floats), its ``training`` object and its ``test`` object (known to hold ``features`` and
    ``prediction``, which the caller checks). ``kind`` names the file ("an evaluation weights
    file"), ``ours`` the features it must have ("this kwsearch's features"); the first problem
    is an ``error`` naming ``source`` and the field. Keys of ``optional`` may be present too (the
    caller checks them)."""
    if not isinstance(obj, dict):
        raise error(f"{source}: expected a JSON object ({kind})")
    check_keys(obj, FRAME_KEYS, source, error, where="", owner=kind, optional=optional)
    if obj["format"] != format:
        raise error(f"{source}: format: expected {format!r}, got {obj['format']!r}")
    if obj["version"] != version or not isinstance(obj["version"], int) or isinstance(obj["version"], bool):
        raise error(f"{source}: version: expected {version}, got {obj['version']!r}")
    n = obj["players"]
    if isinstance(n, bool) or not isinstance(n, int) or n not in (2, 3, 4):  # 2.0 is not a player count
        raise error(f"{source}: players: expected 2, 3 or 4, got {n!r}")
    if players is not None and n != players:
        raise error(f"{source}: players: the weights are for {n} players, the game has {players}")
    count = len(features)
    names = obj["features"]
    if names != list(features):
        if not isinstance(names, list):
            raise error(f"{source}: features: expected a list of {count} feature names")
        bad = next((i for i, (a, b) in enumerate(zip(names, features)) if a != b), min(len(names), count))
        got = names[bad] if bad < len(names) else "(end of list)"
        want = features[bad] if bad < count else "(end of list)"
        raise error(f"{source}: features[{bad}]: expected {want!r} ({ours}), "
                    f"got {got!r}; the weights were fitted to other features")
    weights = bounded_numbers(obj["weights"], "weights", source, error, count=count, most=max_weight)
    if not isinstance(obj["training"], dict):
        raise error(f"{source}: training: expected an object (how the weights were made)")
    test = obj["test"]
    check_keys(test, TEST_KEYS, source, error, where="test", owner="test")
    return n, weights, obj["training"], test


def listing(keys: tuple[str, ...]) -> str:
    """``keys`` as a message lists them: "a, b and c"."""
    return ", ".join(keys[:-1]) + " and " + keys[-1]


def check_keys(obj: Any, keys: tuple[str, ...], source: str, error: type[Exception], *, where: str, owner: str,
               optional: tuple[str, ...] = ()) -> None:
    """``obj`` (the value at ``where``, "" for the top) is an object, every key of ``keys`` is in it, and no
    other but those of ``optional``: the first problem is an ``error`` naming it and the keys ``owner`` has
    (a misspelt or foreign key would otherwise be ignored silently)."""
    expected = listing(keys)
    if not isinstance(obj, dict):
        raise error(f"{source}: {where + ': ' if where else ''}expected an object with {expected}")
    for key in keys:
        if key not in obj:
            raise error(f"{source}: {key_path(where, key)}: missing ({owner} has {expected})")
    unknown = [k for k in obj if k not in keys + optional]
    if unknown:
        also = f", and may have {' and '.join(optional)}" if optional else ""
        raise error(f"{source}: {key_path(where, unknown[0])}: unknown key ({owner} has {expected}{also})")


def bounded_numbers(value: Any, where: str, source: str, error: type[Exception], *, count: int, most: float,
                    what: str = "") -> list[float]:
    """``value`` as a list of ``count`` finite floats, each at most ``most`` in size (``what`` says what
    the count is, for the message: "one per unit")."""
    if not isinstance(value, list) or len(value) != count:
        raise error(f"{source}: {where}: expected a list of {count} numbers{f' ({what})' if what else ''}")
    vals = [number(v, f"{where}[{k}]", source, error) for k, v in enumerate(value)]
    for k, v in enumerate(vals):
        if abs(v) > most:
            raise error(f"{source}: {where}[{k}]: expected at most {most:g} in size, got {v!r}")
    return vals


def feature_rows(value: Any, where: str, source: str, error: type[Exception], *, rows: tuple[int, int],
                 width: int, what: str) -> list[list[float]]:
    """Test feature rows: a list of ``rows[0]`` to ``rows[1]`` rows (``what``: one per seat, per
    option) of ``width`` finite numbers, each at most :data:`MAX_FEATURE` in size."""
    lo, hi = rows
    count = f"{lo}" if lo == hi else f"{lo} to {hi}"
    if not isinstance(value, list) or not lo <= len(value) <= hi:
        raise error(f"{source}: {where}: expected a list of {count} rows ({what})")
    out = []
    for i, row in enumerate(value):
        if not isinstance(row, list) or len(row) != width:
            raise error(f"{source}: {where}[{i}]: expected a list of {width} numbers")
        vals = [number(v, f"{where}[{i}][{k}]", source, error) for k, v in enumerate(row)]
        for k, v in enumerate(vals):
            if abs(v) > MAX_FEATURE:
                raise error(f"{source}: {where}[{i}][{k}]: expected at most {MAX_FEATURE:g} in size, got {v!r}")
        out.append(vals)
    return out


def distribution(value: Any, where: str, source: str, error: type[Exception], *, size: int,
                 what: str) -> list[float]:
    """A stored prediction: ``size`` numbers (``what``) from 0 to 1 that sum to 1 (within
    :data:`SUM_TOLERANCE`), as the model's softmax gives."""
    if not isinstance(value, list) or len(value) != size:
        raise error(f"{source}: {where}: expected a list of {size} numbers ({what})")
    vals = [number(v, f"{where}[{i}]", source, error) for i, v in enumerate(value)]
    for i, v in enumerate(vals):
        if not 0 <= v <= 1:
            raise error(f"{source}: {where}[{i}]: expected a number from 0 to 1, got {v!r}")
    if abs(math.fsum(vals) - 1) > SUM_TOLERANCE:
        raise error(f"{source}: {where}: expected numbers that sum to 1, got a sum of {math.fsum(vals):.12g}")
    return vals


def load_model(path: str | os.PathLike | None, players: int | None, *, cache: dict[int, Any],
               error: type[Exception], what: str, shipped_path: Callable[[int], Path],
               check: Callable[[Any, str, int | None], dict[str, Any]],
               make: Callable[[dict[str, Any], str], Any], tolerance: float):
    """A compiled model from a weights file, or the shipped one for ``players`` when ``path`` is
    None (read once per process and kept in ``cache``; a user's file is read at every call).
    ``what`` names the model ("evaluation", "move prior"), ``check`` checks the parsed file,
    ``make(checked, source)`` builds the model, whose ``predict`` of the file's test features
    must come within ``tolerance`` of the stored prediction. Every problem is an ``error``
    naming the file and the field; there is no fallback to other weights."""
    from .engine import fast_module
    key = None
    if path is None:
        if players not in (2, 3, 4):
            raise error(f"{what}: expected 2, 3 or 4 players, got {players!r}")
        key = players
        if key in cache:
            return cache[key]
        path = shipped_path(players)
    source = str(path)
    obj = load_json_file(path, what=f"{what} weights file", error=error)
    checked = check(obj, source, players)
    fast_module()  # a clear ImportError when the engine is not built
    model = make(checked, source)
    got = model.predict(checked["test_features"])
    # "not <=": a prediction of NaN (test features so large that w . f overflows to inf - inf) is a mismatch
    if any(not abs(a - b) <= tolerance for a, b in zip(got, checked["test_prediction"])):
        raise error(f"{source}: test.prediction: the weights give "
                    f"[{', '.join(f'{v:.12g}' for v in got)}], the file says "
                    f"[{', '.join(f'{v:.12g}' for v in checked['test_prediction'])}]")
    if key is not None:
        cache[key] = model
    return model
