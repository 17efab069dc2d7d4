"""Fuzz targets for the learned models' weights files: the evaluation and the move prior.

Inputs are the shipped weights files (``kwsearch/data/eval-{2,3,4}p.json``,
``prior-{2,3,4}p.json``) mutated (tests/fuzz/fuzzing.py), and raw text. The
property, adapted to a model: the file is refused with a clean
:class:`~kwsearch.errors.KwsearchError` (one line), **or** the model it gives
behaves — it reproduces the file's own test prediction (finite numbers, within the
loader's tolerance) and, on random fast states of its player count, the C code
gives finite win shares that sum to 1 (the evaluation) or a finite probability
distribution over exactly the legal options (the prior).
"""

from __future__ import annotations

import functools
import json
import math

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from fuzzing import FUZZ, clean, mutate, sample_states
from kwsearch import features as F
from kwsearch import prior as P
from kwsearch.engine import convert
from kwsearch.formats import position_to_state

pytestmark = pytest.mark.one_engine  # the models read fast states only

HOSTILE = ["[" * 1000, "{" * 40, '{"a": 1e400}', '{"a": NaN}', '{"a": 1, "a": 2}', "9" * 5000, '"\\ud800"', "",
           "null", "[]", '{"format": "kwsearch-eval", "version": 1}', '{"format": "kwsearch-prior", "version": 1}']


@functools.lru_cache(maxsize=None)
def shipped(kind: str, players: int) -> dict:
    path = (F.shipped_path if kind == "eval" else P.shipped_path)(players)
    return json.loads(path.read_text())


@functools.lru_cache(maxsize=None)
def fast_states(players: int, playing: bool) -> tuple:
    """Fast states of ``players`` players from random games (V6 and not); ``playing``: none over."""
    out = []
    for v6 in (False, True):
        for doc in sample_states(v6):
            if len(doc["seats"]) == players and not (playing and doc["phase"] == "over"):
                out.append(convert(position_to_state(doc), "fast"))
    return tuple(out)


#: Feature values far beyond a real position's: ``w . f`` overflows (to inf - inf, NaN, when weights
#: of both signs meet them), underflows, or stays finite.
EXTREME = [1.7e308, -1.7e308, 1e308, 1e300, 1e-320, 1e6, -1e6]


def _extreme(data, doc: dict) -> dict:
    """Sometimes a row of the test features set to one extreme value (the weights then may not reproduce it)."""
    rows = doc.get("test", {}).get("features") if isinstance(doc.get("test"), dict) else None
    if isinstance(rows, list) and rows and data.draw(st.booleans(), label="extreme row"):
        i = data.draw(st.integers(0, len(rows) - 1), label="row")
        if isinstance(rows[i], list):
            rows[i] = [data.draw(st.sampled_from(EXTREME), label="extreme")] * len(rows[i])
    return doc


def _write(tmp_path_factory, doc_or_text, name: str):
    path = tmp_path_factory.mktemp("w") / name
    path.write_text(doc_or_text if isinstance(doc_or_text, str) else json.dumps(doc_or_text, allow_nan=True))
    return path


def _reproduces_its_test(model, doc: dict) -> None:
    """An accepted file's stored test prediction is what the loaded weights give, in finite numbers."""
    got = model.predict(doc["test"]["features"])
    want = doc["test"]["prediction"]
    assert all(math.isfinite(v) for v in got), got
    assert got == pytest.approx(want, abs=1e-9)
    assert all(math.isfinite(w) for w in model.weights)


# ---------------------------------------------------------------------------
# The evaluation
# ---------------------------------------------------------------------------


def _evaluation_behaves(ev, doc: dict, data) -> None:
    _reproduces_its_test(ev, doc)
    assert ev.nplayers == doc["players"]
    states = fast_states(ev.nplayers, playing=False)
    for k in data.draw(st.lists(st.integers(0, len(states) - 1), min_size=1, max_size=3), label="states"):
        shares = ev.evaluate(states[k])
        assert len(shares) == ev.nplayers
        assert all(math.isfinite(v) and 0 <= v <= 1 for v in shares), shares
        assert math.fsum(shares) == pytest.approx(1.0)


@FUZZ
@given(data=st.data(), players=st.sampled_from([2, 3, 4]), expect=st.booleans())
def test_fuzz_evaluation_file(data, players, expect, tmp_path_factory):
    doc = _extreme(data, mutate(data, shipped("eval", players)))
    path = _write(tmp_path_factory, doc, "eval.json")
    try:
        ev = F.load_evaluation(path, players if expect else None)
    except Exception as exc:  # noqa: BLE001 - the property is about which exceptions
        clean(exc)
        event("refused")
        return
    _evaluation_behaves(ev, doc, data)


@FUZZ
@given(data=st.data(), text=st.text(max_size=200) | st.sampled_from(HOSTILE))
def test_fuzz_evaluation_text(data, text, tmp_path_factory):
    path = _write(tmp_path_factory, text, "eval.json")
    try:
        ev = F.load_evaluation(path)
    except Exception as exc:  # noqa: BLE001
        clean(exc)
        event("refused")
        return
    _evaluation_behaves(ev, json.loads(text), data)


# ---------------------------------------------------------------------------
# The move prior
# ---------------------------------------------------------------------------


def _prior_behaves(pr, doc: dict, data) -> None:
    _reproduces_its_test(pr, doc)
    states = fast_states(pr.nplayers, playing=True)
    for k in data.draw(st.lists(st.integers(0, len(states) - 1), min_size=1, max_size=3), label="states"):
        probs = pr.policy(states[k])
        assert sorted(probs) == sorted(states[k].legal_actions())
        assert all(math.isfinite(v) and 0 <= v <= 1 for v in probs.values()), probs
        assert math.fsum(probs.values()) == pytest.approx(1.0)


@FUZZ
@given(data=st.data(), players=st.sampled_from([2, 3, 4]), expect=st.booleans())
def test_fuzz_prior_file(data, players, expect, tmp_path_factory):
    doc = _extreme(data, mutate(data, shipped("prior", players)))
    path = _write(tmp_path_factory, doc, "prior.json")
    try:
        pr = P.load_prior(path, players if expect else None)
    except Exception as exc:  # noqa: BLE001
        clean(exc)
        event("refused")
        return
    _prior_behaves(pr, doc, data)


@FUZZ
@given(data=st.data(), text=st.text(max_size=200) | st.sampled_from(HOSTILE))
def test_fuzz_prior_text(data, text, tmp_path_factory):
    path = _write(tmp_path_factory, text, "prior.json")
    try:
        pr = P.load_prior(path)
    except Exception as exc:  # noqa: BLE001
        clean(exc)
        event("refused")
        return
    _prior_behaves(pr, json.loads(text), data)
