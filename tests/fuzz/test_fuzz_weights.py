"""Fuzz targets for the weights files' frame (issue 27): unknown keys, ranges, shapes.

Inputs are the shipped weights files (``kwsearch/data/eval-*.json``, ``prior-*.json``)
mutated by tests/fuzz/fuzzing.py's edits plus edits aimed at the frame: a key added
at the top or in ``test`` (misspelt keys among them), a key renamed, a number of the
weights, test features or stored prediction set to an edge or out-of-range value, a
row or an entry dropped or added. Loaded with :func:`kwsearch.features.load_evaluation`
/ :func:`kwsearch.prior.load_prior` (with and without the player count), and in
one target through the command line (``kwsearch suggest --eval FILE`` /
``--prior-weights FILE``).

The property: the file is refused with a clean one-line
:class:`~kwsearch.errors.KwsearchError` that names the file (an unknown key: the key
and the keys expected), never a traceback; a file that has a key the frame does not
know is always refused; and an accepted file is within the frame's bounds —
exactly the frame's keys (an evaluation's ``hidden`` layer among them, its own keys exactly
``HIDDEN_KEYS``), finite weights within ``MAX_WEIGHT``, test features within
``MAX_FEATURE``, a stored prediction of numbers from 0 to 1 that sum to 1, which the
loaded weights reproduce. (tests/fuzz/test_fuzz_models.py checks further that an
accepted model behaves on real states.)
"""

from __future__ import annotations

import functools
import json
import math
from pathlib import Path

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from fuzzing import EXAMPLES, FUZZ, VOCAB, clean, mutate
from helpers import run_cli
from kwsearch import features as F
from kwsearch import prior as P
from kwsearch.jsonload import key_path
from kwsearch.weights import FRAME_KEYS, MAX_FEATURE, SUM_TOLERANCE, TEST_KEYS

pytestmark = pytest.mark.one_engine  # the models read fast states only

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "kwsearch" / "data"
SHIPPED = sorted(p.name for p in DATA.glob("eval-*.json")) + sorted(p.name for p in DATA.glob("prior-*.json"))
#: Keys a careless or hostile writer might add: misspellings of the frame's, other files' keys, odd text.
ODD_KEYS = ["weigths", "Weights", "feature", "prediction", "test", "format ", "seed", "notes", "_comment",
            "players\n", "features.0", '"', "", "\u00e9"]
EDGE_NUMBERS = [0, 1, -1, 0.5, 1e6, 1e6 + 1, -1e6 - 1, 1e-300, 5e-324, 1e308, -1e308, 2 ** 63, 10 ** 20, True,
                None, "1", [], {}]


@functools.lru_cache(maxsize=None)
def shipped(name: str) -> dict:
    return json.loads((DATA / name).read_text())


def loader(name: str):
    return F.load_evaluation if name.startswith("eval") else P.load_prior


def players_of(name: str) -> int:
    return int(name.rsplit("-", 1)[1][0])


def frame_edits(data, doc: dict) -> dict:
    """Edits aimed at the frame: keys added, renamed or dropped, numbers set to edge values, rows
    dropped or duplicated. ``doc`` is edited in place (it is a copy) and returned."""
    for _ in range(data.draw(st.integers(0, 3), label="frame edits")):
        op = data.draw(st.sampled_from(["add", "add test", "rename", "number", "row"]), label="frame op")
        key = data.draw(st.sampled_from(ODD_KEYS + VOCAB) | st.text(max_size=8), label="key")
        if op == "add":
            doc[key] = data.draw(st.sampled_from(EDGE_NUMBERS), label="value")
        elif op == "add test" and isinstance(doc.get("test"), dict):
            doc["test"][key] = data.draw(st.sampled_from(EDGE_NUMBERS), label="value")
        elif op == "rename" and doc:
            old = data.draw(st.sampled_from(sorted(doc)), label="renamed")
            doc[key] = doc.pop(old)
        elif op == "number":
            where = data.draw(st.sampled_from(["weights", "features", "prediction"]), label="list")
            target = doc.get("weights") if where == "weights" else \
                (doc.get("test") or {}).get(where) if isinstance(doc.get("test"), dict) else None
            if isinstance(target, list) and target:
                i = data.draw(st.integers(0, len(target) - 1), label="index")
                if where == "features" and isinstance(target[i], list) and target[i]:
                    target, i = target[i], data.draw(st.integers(0, len(target[i]) - 1), label="column")
                target[i] = data.draw(st.sampled_from(EDGE_NUMBERS) | st.floats(-2e6, 2e6), label="number")
        elif op == "row" and isinstance(doc.get("test"), dict) and isinstance(doc["test"].get("features"), list):
            rows = doc["test"]["features"]
            if rows and data.draw(st.booleans(), label="drop"):
                rows.pop(data.draw(st.integers(0, len(rows) - 1), label="row"))
            elif rows:
                rows.append(list(rows[0]) if isinstance(rows[0], list) else rows[0])
    return doc


def hostile_doc(data, name: str) -> dict:
    doc = mutate(data, shipped(name)) if data.draw(st.booleans(), label="generic edits") else \
        json.loads(json.dumps(shipped(name)))
    return frame_edits(data, doc)


def frame_keys(name: str) -> tuple[str, ...]:
    """The top-level keys a file of ``name``'s kind may have: an evaluation's may add ``hidden``."""
    return FRAME_KEYS + ("hidden",) if name.startswith("eval") else FRAME_KEYS


def unknown_keys(doc, name: str) -> list[str]:
    if not isinstance(doc, dict):
        return []
    out = [k for k in doc if k not in frame_keys(name)]
    if isinstance(doc.get("test"), dict):
        out += [f"test.{k}" for k in doc["test"] if k not in TEST_KEYS]
    if name.startswith("eval") and isinstance(doc.get("hidden"), dict):
        out += [f"hidden.{k}" for k in doc["hidden"] if k not in F.HIDDEN_KEYS]
    return out


def refused_cleanly(exc: BaseException, path: Path, doc, name: str) -> None:
    clean(exc)  # a KwsearchError, one line
    msg = str(exc)
    assert msg.startswith(f"{path}: "), msg
    if "unknown key" in msg:
        assert unknown_keys(doc, name), msg
        assert "has format, version, players, features, weights, training and test" in msg or \
            "(test has features and prediction)" in msg or \
            "(hidden has activation, weights, bias and output)" in msg, msg


def _number(w) -> bool:
    return isinstance(w, (int, float)) and not isinstance(w, bool) and math.isfinite(w) and abs(w) <= 1e6


def within_the_frame(model, doc: dict, name: str) -> None:
    """An accepted file: the frame's keys only, every number within its bounds, its test reproduced."""
    assert unknown_keys(doc, name) == [], unknown_keys(doc, name)
    assert set(FRAME_KEYS) <= set(doc) <= set(frame_keys(name)) and set(doc["test"]) == set(TEST_KEYS)
    assert all(_number(w) for w in doc["weights"])
    if "hidden" in doc:
        layer = doc["hidden"]
        assert set(layer) == set(F.HIDDEN_KEYS) and 1 <= len(layer["output"]) <= F.MAX_HIDDEN
        assert all(_number(w) for w in layer["output"] + layer["bias"] + [x for row in layer["weights"] for x in row])
        assert model.hidden_units == len(layer["output"])
    rows, pred = doc["test"]["features"], doc["test"]["prediction"]
    assert all(math.isfinite(x) and abs(x) <= MAX_FEATURE for row in rows for x in row)
    assert all(0 <= p <= 1 for p in pred) and abs(math.fsum(pred) - 1) <= SUM_TOLERANCE
    got = model.predict(rows)
    assert all(math.isfinite(v) for v in got) and got == pytest.approx(pred, abs=1e-9)


@FUZZ
@given(data=st.data(), name=st.sampled_from(SHIPPED), expect=st.booleans())
def test_fuzz_weights_frame(data, name, expect, tmp_path_factory):
    doc = hostile_doc(data, name)
    path = tmp_path_factory.mktemp("w") / "weights.json"
    path.write_text(json.dumps(doc, allow_nan=True))
    try:
        model = loader(name)(path, players_of(name) if expect else None)
    except Exception as exc:  # noqa: BLE001 - the property is about which exceptions
        refused_cleanly(exc, path, doc, name)
        event("refused: unknown key" if "unknown key" in str(exc) else "refused")
        return
    event("accepted")
    within_the_frame(model, doc, name)


@FUZZ
@given(name=st.sampled_from(SHIPPED), where=st.sampled_from(["top", "test"]),
       key=st.sampled_from(ODD_KEYS) | st.text(min_size=1, max_size=12), value=st.sampled_from(EDGE_NUMBERS))
def test_fuzz_an_unknown_key_is_always_refused_by_name(name, where, key, value, tmp_path_factory):
    doc = json.loads(json.dumps(shipped(name)))
    target = doc if where == "top" else doc["test"]
    if key in (frame_keys(name) if where == "top" else TEST_KEYS):
        return  # not unknown: replacing a known key's value is the other target's business
    target[key] = value
    path = tmp_path_factory.mktemp("w") / "weights.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(Exception) as info:  # noqa: PT011 - checked below
        loader(name)(path, players_of(name))
    refused_cleanly(info.value, path, doc, name)
    msg = str(info.value)
    assert f": {key_path('' if where == 'top' else 'test', key)}: unknown key (" in msg, (key, msg)


@settings(FUZZ, max_examples=min(EXAMPLES, 8))
@given(data=st.data(), kind=st.sampled_from(["eval", "prior"]))
def test_fuzz_weights_through_the_command_line(data, kind, tmp_path_factory):
    """``kwsearch suggest`` with a hostile ``--eval`` / ``--prior-weights`` file: a result, or one
    line on stderr with exit code 1 (run in process: an exception would fail the test)."""
    name = f"{kind}-4p.json"
    doc = hostile_doc(data, name)
    path = tmp_path_factory.mktemp("w") / "weights.json"
    path.write_text(json.dumps(doc, allow_nan=True))
    option = ["--cutoff", "5", "--eval", path] if kind == "eval" else ["--prior", "1", "--prior-weights", path]
    r = run_cli("suggest", ROOT / "examples" / "midgame-4p.json", "--iterations", "8", "--top", "1", *option)
    assert "Traceback" not in r.output and "Traceback" not in r.stderr
    if r.exit_code == 0:
        event("accepted")
        within_the_frame(loader(name)(path, 4), doc, name)
        return
    event("refused")
    err = r.stderr.strip()
    assert r.exit_code == 1 and len(err.splitlines()) == 1 and err.startswith("Error: ") and str(path) in err, err
