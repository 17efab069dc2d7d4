"""The learned evaluation: a seat's features, the model, and its weights files.

The search can stop each playout after ``SearchConfig.cutoff`` decisions and
score the position reached with a model fitted to self-play outcomes
(docs/evaluation.md). This module is the readable reference of that model and
the one loader of its weights; ``kwsearch/_eval.pyx`` computes the same features
at C level from the flat state, and tests/test_evaluation.py checks that both
agree on random positions of both engines.

Features (per seat; :data:`FEATURES` names them in order). The first
:data:`NBASE` are:

==============  ==============================================================
``money``       the seat's money / 50
``lead``        its money minus the best other seat's / 50
``sales``       what the buyers on the table would pay for its market cars if
                sales were scored now (RULES.md §8, ``rules.choose_sales``) / 20;
                0 once this round's sales are scored
``race``        what the race would pay it now (place and lap money) / 20; 0 once
                this round's race is scored
``laps``        laps of its GP car this round
``gp_engine``   its GP car's engine value / 7
``cars``        its cars in the market
``workshop``    the summed values of the tiles in its workshops / 10
``research``    its active developments / 5
``inactive``    its inactive developments / 5
``workers``     its workers in the supply and the canteen / 10
``engineers``   engineers it owns
``awards``      award tiles it owns
``tempo``       its place in the chain: 1 at the front (next to move), 0 at the end
==============  ==============================================================

then each of them times the game's progress ``(round - 1) / rounds`` (1 when
the game is over), named ``<feature>*progress``: the same lead weighs more late
in the game.

Model: a seat's score is ``z = w . f`` with one weight vector for every seat of
a player count; the win shares are the softmax of the scores over the seats
(a conditional logit), so they sum to 1 and only differences between seats
count. It is fitted by ``bench/train_eval.py`` to the final win shares of
self-play games. A weights file may add a **hidden layer** (``hidden``: H ReLU
units on the seat's own features, 1 to :data:`MAX_HIDDEN`), whose output joins
the score: ``z = w . f + W2 . relu(W1 . f + b1)``, the same units for every seat;
``bench/train_eval_mlp.py`` fits one (docs/evaluation.md, "The hidden layer").
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

from .errors import KwsearchError
from .weights import bounded_numbers, check_frame, check_keys, distribution, feature_rows, load_model

BASE_FEATURES = ("money", "lead", "sales", "race", "laps", "gp_engine", "cars", "workshop", "research",
                 "inactive", "workers", "engineers", "awards", "tempo")
#: Every feature, in the order of the weights (and of kwsearch._eval's arrays).
FEATURES = BASE_FEATURES + tuple(f"{name}*progress" for name in BASE_FEATURES)
NBASE = len(BASE_FEATURES)
NFEAT = len(FEATURES)
#: The scales of kwsearch/_eval.pyx (MONEY_SCALE, INCOME_SCALE, VALUE_SCALE, DEV_SCALE).
MONEY_SCALE, INCOME_SCALE, VALUE_SCALE, DEV_SCALE = 50.0, 20.0, 10.0, 5.0
#: What the weights files say they are.
FORMAT, VERSION = "kwsearch-eval", 1
#: The largest absolute weight accepted (a larger one is a broken fit, not a model).
MAX_WEIGHT = 1e6
#: How closely the loaded weights must reproduce the file's stored test prediction.
PREDICTION_TOLERANCE = 1e-9
#: The most hidden units a weights file may give (kwsearch/_eval.pxd MAXH).
MAX_HIDDEN = 32
#: The keys of a weights file's ``hidden`` object: ``weights`` (NFEAT rows of H numbers, feature k to
#: unit h), ``bias`` and ``output`` (H numbers each), and ``activation`` (``"relu"``, the only one).
HIDDEN_KEYS = ("activation", "weights", "bias", "output")


class EvaluationError(KwsearchError):
    """A weights file of the evaluation that is missing or wrong (the message names file and field)."""


#: The evaluations shipped with the package, by the name a spec or the CLI gives (``eval=NAME``):
#: "tempo", fitted to games of the tempo playout policy; "searched", fitted to the outcomes of ISMCTS
#: games; "smart", fitted to games of the smart playout policy, the outcome of the playouts a
#: ``rollout=smart`` search cuts off (docs/evaluation.md, "Training").
SHIPPED = ("tempo", "searched", "smart", "mlp")
#: The player counts a shipped evaluation exists for, where not every one: "mlp", the searched games'
#: outcomes fitted with a hidden layer (docs/evaluation.md, "The hidden layer"), is four-player only.
SHIPPED_PLAYERS = {"mlp": (4,)}
#: The shipped evaluations that are linear (``bench/train_eval.py`` writes them; ``bench/train_eval_mlp.py``
#: writes the others).
SHIPPED_LINEAR = tuple(name for name in SHIPPED if name != "mlp")


def shipped_path(players: int, name: str = "tempo") -> Path:
    """The weights shipped with the package for ``players`` players under ``name`` (``SHIPPED``)."""
    stem = f"eval-{players}p.json" if name == "tempo" else f"eval-{name}-{players}p.json"
    return Path(__file__).resolve().with_name("data") / stem


# ---------------------------------------------------------------------------
# Features (the reference of kwsearch/_eval.pyx k_features)
# ---------------------------------------------------------------------------


def _race_money(st) -> list[int]:
    """Place and lap money of each seat if the race were scored now (rules.State._task_race)."""
    c = st.game.components
    cars = [(s.laps, s.space, i) for i, s in enumerate(st.seats) if s.space > 0]
    cars += [(0, sp, -1) for sp in st.game.neutral_cars]
    cars.sort(reverse=True)
    out = [c.lap_money(s.laps) if s.laps > 0 else 0 for s in st.seats]
    for place, (_, _, seat) in enumerate(cars[:len(c.gp_place_money)]):
        if seat >= 0:
            out[seat] += c.gp_place_money[place]
    return out


def _sales_money(st) -> list[int]:
    """What each seat's market cars would fetch if sales were scored now (rules.State._task_sales)."""
    from .rules import choose_sales
    out = [0] * len(st.seats)
    for sale in choose_sales(st.market, st.active, st.active_daimler,
                             lambda seat: st.seats[seat].has("opel"), st.game.components):
        out[st.market[sale.car][0]] += sale.payment
    return out


def features(state) -> list[list[float]]:
    """Every seat's features (``[seat][k]``, in the order of :data:`FEATURES`) in a state of either
    engine, computed from the reference form — the specification of the C version."""
    from .engine import reference
    from .game import ACTION, OVER, SEAT
    st = reference(state)
    c = st.game.components
    kinds = [t[0] for t in st.tasks]
    do_race = st.phase == ACTION or "race" in kinds
    do_sales = st.phase == ACTION or "sales" in kinds
    race = _race_money(st) if do_race else None
    sales = _sales_money(st) if do_sales else None
    progress = 1.0 if st.phase == OVER else (st.round - 1) / c.rounds
    out = []
    for i, s in enumerate(st.seats):
        other = max(t.money for j, t in enumerate(st.seats) if j != i)
        pos = st.chain.index(SEAT + i) if SEAT + i in st.chain else 0
        base = [
            s.money / MONEY_SCALE,
            (s.money - other) / MONEY_SCALE,
            sales[i] / INCOME_SCALE if do_sales else 0.0,
            race[i] / INCOME_SCALE if do_race else 0.0,
            float(s.laps),
            s.gp_engine / 7.0,
            float(sum(1 for car in st.market if car[0] == i)),
            sum(code & 7 for code in s.workshops) / VALUE_SCALE,
            len(s.dev_active) / DEV_SCALE,
            len(s.dev_inactive) / DEV_SCALE,
            (s.supply + s.canteen) / VALUE_SCALE,
            float(bin(s.engineers).count("1")),
            float(sum(1 for owner in st.awards if owner == i)),
            1.0 - pos / (len(st.chain) - 1) if len(st.chain) > 1 else 0.0,
        ]
        out.append(base + [x * progress for x in base])
    return out


def shares(rows: list[list[float]], weights: list[float], hidden: dict[str, Any] | None = None) -> list[float]:
    """The model's win shares from feature rows: the softmax over the seats of ``w . f``, plus
    ``W2 . relu(W1 . f + b1)`` with a ``hidden`` layer (a weights file's ``hidden`` object)."""
    z = [sum(w * x for w, x in zip(weights, row)) for row in rows]
    if hidden is not None:
        w1, b1, w2 = hidden["weights"], hidden["bias"], hidden["output"]
        for i, row in enumerate(rows):
            for h in range(len(w2)):
                a = b1[h] + sum(w1[k][h] * x for k, x in enumerate(row))
                z[i] += w2[h] * max(0.0, a)
    top = max(z)
    e = [math.exp(v - top) for v in z]
    total = sum(e)
    return [v / total for v in e]


# ---------------------------------------------------------------------------
# Weights files
# ---------------------------------------------------------------------------


def check_weights(obj: Any, source: str, players: int | None = None) -> dict[str, Any]:
    """The checked content of a weights file (``obj`` as parsed); :class:`EvaluationError` names the
    file and the field of the first problem. The stored test prediction must be reproduced."""
    n, weights, training, test = check_frame(
        obj, source, players, error=EvaluationError, kind="an evaluation weights file", format=FORMAT,
        version=VERSION, features=FEATURES, ours="this kwsearch's features", max_weight=MAX_WEIGHT,
        optional=("hidden",))
    hidden = check_hidden(obj["hidden"], source) if "hidden" in obj else None
    rows = feature_rows(test["features"], "test.features", source, EvaluationError, rows=(n, n), width=NFEAT,
                        what="one per seat")
    stored = distribution(test["prediction"], "test.prediction", source, EvaluationError, size=n,
                          what="win shares, one per seat")
    return {"players": n, "weights": weights, "hidden": hidden, "training": training, "test_features": rows,
            "test_prediction": stored}


def check_hidden(obj: Any, source: str) -> dict[str, Any]:
    """A weights file's checked ``hidden`` object (numbers as floats); :class:`EvaluationError` names
    the file and the field of the first problem."""
    check_keys(obj, HIDDEN_KEYS, source, EvaluationError, where="hidden", owner="hidden")
    if obj["activation"] != "relu":
        raise EvaluationError(f"{source}: hidden.activation: expected 'relu', got {obj['activation']!r}")
    out = obj["output"]
    if not isinstance(out, list) or not 1 <= len(out) <= MAX_HIDDEN:
        raise EvaluationError(f"{source}: hidden.output: expected a list of 1 to {MAX_HIDDEN} numbers (one per unit)")
    units = len(out)

    def row(value: Any, where: str) -> list[float]:
        return bounded_numbers(value, where, source, EvaluationError, count=units, most=MAX_WEIGHT,
                               what="one per unit")

    w1 = obj["weights"]
    if not isinstance(w1, list) or len(w1) != NFEAT:
        raise EvaluationError(f"{source}: hidden.weights: expected a list of {NFEAT} rows (one per feature)")
    return {"activation": "relu", "weights": [row(r, f"hidden.weights[{k}]") for k, r in enumerate(w1)],
            "bias": row(obj["bias"], "hidden.bias"), "output": row(out, "hidden.output")}


_CACHE: dict[int, Any] = {}
_NAMED: dict[tuple[str, int], Any] = {}  # the named shipped evaluations, read once


def _evaluator(checked: dict[str, Any], source: str):
    from . import _eval
    hidden = checked["hidden"]
    return _eval.Evaluator(checked["players"], checked["weights"], FEATURES, source,
                           {"training": checked["training"], "test_features": checked["test_features"],
                            "test_prediction": checked["test_prediction"]},
                           None if hidden is None else (hidden["weights"], hidden["bias"], hidden["output"]))


def load_evaluation(path: str | os.PathLike | None = None, players: int | None = None):
    """The evaluation (a ``kwsearch._eval.Evaluator``) from a weights file, or the shipped one for
    ``players`` when ``path`` is None or the name of a shipped one (``SHIPPED``: a name is never
    read as a file; write ``./searched`` for a file of that name). Every problem — a missing or
    unreadable file, a field of the wrong kind, features that are not this kwsearch's, weights
    that do not reproduce the file's stored test prediction — is an :class:`EvaluationError`
    naming the file and the field; there is no fallback to other weights."""
    if isinstance(path, str) and path in SHIPPED:
        if players not in (2, 3, 4):
            raise EvaluationError(f"evaluation {path!r}: a shipped evaluation is chosen by the player count "
                                  f"(2, 3 or 4), got {players!r}")
        counts = SHIPPED_PLAYERS.get(path, (2, 3, 4))
        if players not in counts:
            raise EvaluationError(f"evaluation {path!r}: shipped for {' and '.join(map(str, counts))} players "
                                  f"only, the game has {players}")
        if path == "tempo":
            path = None
        else:
            key = (path, players)
            if key not in _NAMED:
                _NAMED[key] = _load(shipped_path(players, path), players)
            return _NAMED[key]
    return _load(path, players)


def _load(path: str | os.PathLike | None, players: int | None):
    return load_model(path, players, cache=_CACHE, error=EvaluationError, what="evaluation",
                      shipped_path=shipped_path, check=check_weights, make=_evaluator,
                      tolerance=PREDICTION_TOLERANCE)


def weights_document(players: int, weights: list[float], training: dict[str, Any],
                     test_features: list[list[float]], hidden: dict[str, Any] | None = None) -> dict[str, Any]:
    """A weights file's content (what ``bench/train_eval.py`` and ``bench/train_eval_mlp.py`` write), with
    its test prediction; ``hidden`` a hidden layer (the ``hidden`` object: :data:`HIDDEN_KEYS`) or None."""
    doc = {"format": FORMAT, "version": VERSION, "players": players, "features": list(FEATURES),
           "weights": [float(w) for w in weights]}
    if hidden is not None:
        doc["hidden"] = hidden
    return {**doc, "training": training,
            "test": {"features": test_features, "prediction": shares(test_features, weights, hidden)}}
