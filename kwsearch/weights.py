"""Checking and loading of learned weights files, shared by the learned evaluation
(:mod:`kwsearch.features`) and the move prior (:mod:`kwsearch.prior`).

Both files have the same frame — ``format``, ``version``, ``players``, ``features`` (the names,
in the order of the weights), ``weights``, ``training`` and a ``test`` with feature rows and the
prediction the weights must reproduce — and differ only in their names, their features and the
shape of the test rows. Each caller passes its own error class, so a problem in an evaluation
file stays an ``EvaluationError`` and one in a prior file a ``PriorError``; the messages are the
same words for both, with the kind of file named where it differs.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any, Callable

from .jsonload import load_json_file


def number(value: Any, where: str, source: str, error: type[Exception]) -> float:
    """``value`` as a float; ``error`` names ``source`` and ``where`` unless it is a finite number
    (a bool is not one)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise error(f"{source}: {where}: expected a finite number, got {value!r}")
    return float(value)


def check_frame(obj: Any, source: str, players: int | None, *, error: type[Exception], kind: str,
                format: str, version: int, features: tuple[str, ...], ours: str,
                max_weight: float) -> tuple[int, list[float], dict[str, Any], dict[str, Any]]:
    """The checked frame of a weights file ``obj`` (as parsed): its player count, its weights
    (floats), its ``training`` object and its ``test`` object (known to hold ``features`` and
    ``prediction``, which the caller checks). ``kind`` names the file ("an evaluation weights
    file"), ``ours`` the features it must have ("this kwsearch's features"); the first problem
    is an ``error`` naming ``source`` and the field."""
    if not isinstance(obj, dict):
        raise error(f"{source}: expected a JSON object ({kind})")
    for key in ("format", "version", "players", "features", "weights", "training", "test"):
        if key not in obj:
            raise error(f"{source}: {key}: missing ({kind} has format, version, "
                        "players, features, weights, training and test)")
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
    weights = obj["weights"]
    if not isinstance(weights, list) or len(weights) != count:
        raise error(f"{source}: weights: expected a list of {count} numbers")
    weights = [number(v, f"weights[{k}]", source, error) for k, v in enumerate(weights)]
    for k, v in enumerate(weights):
        if abs(v) > max_weight:
            raise error(f"{source}: weights[{k}]: expected at most {max_weight:g} in size, got {v!r}")
    if not isinstance(obj["training"], dict):
        raise error(f"{source}: training: expected an object (how the weights were made)")
    test = obj["test"]
    if not isinstance(test, dict) or "features" not in test or "prediction" not in test:
        raise error(f"{source}: test: expected an object with features and prediction")
    return n, weights, obj["training"], test


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
