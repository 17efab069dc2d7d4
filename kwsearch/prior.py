"""The learned move prior: features of a (state, option) pair, the policy, and its weights files.

With ``SearchConfig.prior = W > 0`` the search biases its selection by a linear
softmax policy over the options of each decision (docs/evaluation.md, "The move
prior"): ``P(a) = softmax_a(w . phi(s, a))``. The weights are fitted by
``bench/train_prior.py`` to the root visit distributions of the default search in
self-play (expert iteration: the policy imitates what the search found). This
module is the readable reference of the features and the one loader of the
weights; ``kwsearch/_eval.pyx`` (``k_prior_features``, ``k_policy``) computes the
same numbers at C level from the flat state, and tests/test_prior.py checks that
both agree on random positions of both engines.

Features of an option (:data:`PRIOR_FEATURES`, in order); the seat is the one
deciding. Kinds (1 for the option's kind, else 0):

=================  ===========================================================
``tile``           an action tile or the V6 specialty tile at a turn
``do_hire``        do the tile's hire action next (``do_build``: body or engine;
``do_gp``          ``do_gp``: a GP action; ``do_research``; ``do_buyer``)
``card_dev``       take a development research card (``card_instant``,
                   ``card_engineer``: the other card kinds)
``activate``       activate an inactive development with a hired worker
``buyer``          take a buyer of a preference (also Benz's fifth buyer)
``offer``          market: the body or engine of the car offered
``pass``           any pass (market, no marker, Daimler, Diesel, Benz, V6 bonuses)
``price``          market: a price marker for the car
``engine_gp``      put the new engine into the GP car
``marker``         a Maybach/Horch marker on the car, or a Daimler marker
=================  ===========================================================

and interactions (0 for options of other kinds):

=================  ===========================================================
``tempo``          tile: it lets the fewest other workers past (the tempo rule)
``passed``         tile: the other seats' workers it lets past / (players - 1)
``dev_useful``     development card or activation: its research points that are
                   still below 7 (body and engine, for the seat's current points) / 7
``dev_early``      ``dev_useful`` times the rounds left ``1 - progress``
``engineer_late``  engineer card: the game's progress ``(round - 1) / rounds``
``price_value``    price marker: its value / 10
``price_wins``     price marker: a buyer on the table would take the car at it
``price_best``     price marker: the highest of the options that ``price_wins``
``offer_value``    offer: the tile's value / 7
``workers``        market: the workers put on the car / 4
``buyer_white``    buyer: the white money next to its stack / 5
``buyer_sells``    buyer: after the buyers on the table it would take a car of the seat
``gp_gain``        engine into the GP car: new engine value minus the GP car's / 7
=================  ===========================================================

The weights files (``kwsearch/data/prior-{2,3,4}p.json``, format
``kwsearch-prior``) carry the feature names, the training record and a stored
test prediction that the loaded weights must reproduce.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

from .errors import KwsearchError
from .weights import check_frame, distribution, feature_rows, load_model

KIND_FEATURES = ("tile", "do_hire", "do_build", "do_gp", "do_research", "do_buyer", "card_dev", "card_instant",
                 "card_engineer", "activate", "buyer", "offer", "pass", "price", "engine_gp", "marker")
INTERACTIONS = ("tempo", "passed", "dev_useful", "dev_early", "engineer_late", "price_value", "price_wins",
                "price_best", "offer_value", "workers", "buyer_white", "buyer_sells", "gp_gain")
#: Every feature, in the order of the weights (and of kwsearch._eval's k_prior_features).
PRIOR_FEATURES = KIND_FEATURES + INTERACTIONS
NPRIOR = len(PRIOR_FEATURES)
#: What the weights files say they are.
FORMAT, VERSION = "kwsearch-prior", 1
#: The largest absolute weight accepted (a larger one is a broken fit, not a model).
MAX_WEIGHT = 1e6
#: How closely the loaded weights must reproduce the file's stored test prediction.
PREDICTION_TOLERANCE = 1e-9
#: Research points at which a kind stops mattering (_eval.pyx POINTS_CAP).
POINTS_CAP = 7

_COL = {name: k for k, name in enumerate(PRIOR_FEATURES)}


class PriorError(KwsearchError):
    """A weights file of the move prior that is missing or wrong (the message names file and field)."""


def shipped_path(players: int) -> Path:
    """The prior weights shipped with the package for ``players`` players."""
    return Path(__file__).resolve().with_name("data") / f"prior-{players}p.json"


# ---------------------------------------------------------------------------
# Features (the reference of kwsearch/_eval.pyx k_prior_features)
# ---------------------------------------------------------------------------


def prior_features(state, options: list[int] | None = None) -> list[list[float]]:
    """The features of each option (``[i][k]``, in the order of :data:`PRIOR_FEATURES`) of the
    pending decision of a state of either engine, computed from the reference form — the
    specification of the C version. ``options`` defaults to the legal options."""
    from . import actions as A
    from .engine import reference
    from .game import SEAT, SPECIAL
    from .rules import buyers_choices
    st = reference(state)
    c = st.game.components
    if st.is_terminal():
        raise ValueError("the game is over: there are no options")
    if options is None:
        options = st.legal_actions()
    seat = max(st.actor, 0)
    kind, arg = st.tasks[-1]
    progress = (st.round - 1) / c.rounds
    bp, ep = st.research_points(seat)
    minpass = 0
    for e in st.chain[1:]:
        if not SEAT <= e < SPECIAL:
            break
        minpass += 1

    def wins(price: int) -> bool:
        body, engine, workers = st.car[:3]
        car = [st.turn_seat, body, engine, workers, price, 0, 0]
        return any(i == len(st.market) for _, i in buyers_choices(st.market + [car], st.active))

    def useful(t: int) -> float:
        ct = c.card_types[t]
        room_b, room_e = max(POINTS_CAP - bp, 0), max(POINTS_CAP - ep, 0)
        return (min(ct.body, room_b) + min(ct.engine, room_e)) / POINTS_CAP

    def sells(pref: int) -> bool:
        taken = dict(buyers_choices(st.market, st.active + [pref]))
        car = taken.get(len(st.active))
        return car is not None and st.market[car][0] == seat

    prices = [a - A.MARKET_PRICE for a in options if A.MARKET_PRICE <= a < A.MARKET_NO_MARKER]
    best_win = max((p for p in prices if wins(p)), default=-1) if kind == "market_price" else -1
    passes = {A.MARKET_PASS, A.MARKET_NO_MARKER, A.DAIMLER_PASS, A.DIESEL_PASS, A.BENZ_PASS, A.SELL_PASS,
              A.REMOVE_PASS}
    do_kind = {0: "do_hire", 1: "do_build", 2: "do_build", 3: "do_gp", 4: "do_research", 5: "do_buyer",
               6: "do_gp", 7: "do_gp"}  # components.ALL_ACTIONS order
    rows = []
    for a in options:
        f = [0.0] * NPRIOR

        def put(name: str, value: float) -> None:
            f[_COL[name]] = float(value)
        if A.TILE <= a < A.DO or A.SPECIAL_TILE <= a < A.SELL_PASS:
            entry = a - A.TILE if a < A.DO else SPECIAL + a - A.SPECIAL_TILE
            passed = 0
            for e in st.chain[1:]:
                if e == entry:
                    break
                passed += SEAT <= e < SPECIAL
            put("tile", 1)
            put("tempo", passed == minpass)
            put("passed", passed / (len(st.seats) - 1))
        elif A.DO <= a < A.RESEARCH:
            put(do_kind[a - A.DO], 1)
        elif A.RESEARCH <= a < A.GIVEUP:
            ct = c.card_types[a - A.RESEARCH]
            if ct.kind == "development":
                put("card_dev", 1)
                put("dev_useful", useful(ct.index))
                put("dev_early", useful(ct.index) * (1.0 - progress))
            elif ct.kind == "instant":
                put("card_instant", 1)
            else:
                put("card_engineer", 1)
                put("engineer_late", progress)
        elif A.ACTIVATE <= a < A.SPECIAL_TILE:
            put("activate", 1)
            put("dev_useful", useful(a - A.ACTIVATE))
            put("dev_early", useful(a - A.ACTIVATE) * (1.0 - progress))
        elif A.BUYER <= a < A.MARKET_PASS or A.BENZ <= a < A.ACTIVATE:
            pref = a - A.BUYER if a < A.MARKET_PASS else a - A.BENZ
            put("buyer", 1)
            if a < A.MARKET_PASS:
                put("buyer_white", st.white[pref] / 5.0)
            put("buyer_sells", sells(pref))
        elif A.MARKET_BODY <= a < A.MARKET_WORKERS:
            put("offer", 1)
            put("offer_value", (a - A.MARKET_BODY + 1 if a < A.MARKET_ENGINE else a - A.MARKET_ENGINE + 1) / 7.0)
        elif A.MARKET_WORKERS <= a < A.MARKET_PRICE:
            put("workers", (a - A.MARKET_WORKERS + 1) / 4.0)
        elif A.MARKET_PRICE <= a < A.MARKET_NO_MARKER:
            price = a - A.MARKET_PRICE
            put("price", 1)
            put("price_value", price / 10.0)
            put("price_wins", kind == "market_price" and wins(price))
            put("price_best", price == best_win)
        elif a == A.ENGINE_GP:
            put("engine_gp", 1)
            if kind == "engine_dest":
                put("gp_gain", (arg - st.seats[seat].gp_engine) / 7.0)
        elif a in passes:
            put("pass", 1)
        elif A.MARKET_MARKER <= a < A.DAIMLER_PASS or A.DAIMLER <= a < A.DIESEL_PASS:
            put("marker", 1)
        rows.append(f)
    return rows


def policy(rows: list[list[float]], weights: list[float]) -> list[float]:
    """The prior's probabilities of the options with feature ``rows``: the softmax of ``w . phi``."""
    z = [sum(w * x for w, x in zip(weights, row)) for row in rows]
    top = max(z)
    e = [math.exp(v - top) for v in z]
    total = sum(e)
    return [v / total for v in e]


# ---------------------------------------------------------------------------
# Weights files
# ---------------------------------------------------------------------------


def check_prior(obj: Any, source: str, players: int | None = None) -> dict[str, Any]:
    """The checked content of a prior weights file (``obj`` as parsed); :class:`PriorError` names
    the file and the field of the first problem."""
    n, weights, training, test = check_frame(
        obj, source, players, error=PriorError, kind="a move prior weights file", format=FORMAT,
        version=VERSION, features=PRIOR_FEATURES, ours="this kwsearch's prior features",
        max_weight=MAX_WEIGHT)
    rows = feature_rows(test["features"], "test.features", source, PriorError, rows=(1, 96), width=NPRIOR,
                        what="one per option")
    stored = distribution(test["prediction"], "test.prediction", source, PriorError, size=len(rows),
                          what="probabilities, one per option")
    return {"players": n, "weights": weights, "training": training, "test_features": rows,
            "test_prediction": stored}


_CACHE: dict[int, Any] = {}


def _prior(checked: dict[str, Any], source: str):
    from . import _eval
    if _eval.prior_feature_count() != NPRIOR:
        raise PriorError(f"{source}: the compiled engine has {_eval.prior_feature_count()} prior features, "
                         f"this kwsearch {NPRIOR}; rebuild it (python setup.py build_ext --inplace)")
    return _eval.Prior(checked["players"], checked["weights"], PRIOR_FEATURES, source,
                       {"training": checked["training"], "test_features": checked["test_features"],
                        "test_prediction": checked["test_prediction"]})


def load_prior(path: str | os.PathLike | None = None, players: int | None = None):
    """The move prior (a ``kwsearch._eval.Prior``) from a weights file, or the shipped one for
    ``players`` when ``path`` is None. Every problem — a missing or unreadable file, a field of
    the wrong kind, features that are not this kwsearch's, weights that do not reproduce the
    file's stored test prediction — is a :class:`PriorError` naming the file and the field;
    there is no fallback to other weights."""
    return load_model(path, players, cache=_CACHE, error=PriorError, what="move prior",
                      shipped_path=shipped_path, check=check_prior, make=_prior,
                      tolerance=PREDICTION_TOLERANCE)


def prior_document(players: int, weights: list[float], training: dict[str, Any],
                   test_features: list[list[float]]) -> dict[str, Any]:
    """A prior weights file's content (what ``bench/train_prior.py`` writes), with its test prediction."""
    return {"format": FORMAT, "version": VERSION, "players": players, "features": list(PRIOR_FEATURES),
            "weights": [float(w) for w in weights], "training": training,
            "test": {"features": test_features, "prediction": policy(test_features, weights)}}
