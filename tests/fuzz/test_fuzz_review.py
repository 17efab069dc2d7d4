"""Fuzz targets for the files of a game review: the review cache and the review file.

Inputs are real files mutated (tests/fuzz/fuzzing.py) and raw text: a review cache
and a review made once per module by a tiny real review of examples/game-2p.json
(8 iterations a decision), and the bundled examples/game-2p.review.json. The
property (tests/fuzz/README.md): the file is refused with a clean
:class:`~kwsearch.errors.KwsearchError` (one line), and a refused cache file is
left byte for byte as it was, **or** what it gives behaves —

* a cache: the review that reads it finishes, its ``kwsearch-review/1`` object
  passes :func:`kwsearch.review.check_review` against the game, and the cache it
  leaves passes :func:`kwsearch.review.check_cache` as this review's;
* a review file: the board lays it onto the game's document
  (:func:`kwsearch.web.review.review_for_page`, what ``kwsearch serve --review``
  and an upload both use) and what the page gets is strict JSON, one point per
  decision.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from fuzzing import FUZZ, clean, mutate
from kwsearch.jsonload import load_json_file
from kwsearch.review import ReviewError, cache_key, check_cache, check_review, game_decisions, review_config, \
    review_game
from kwsearch.search import SearchConfig, SearchLimits

pytestmark = pytest.mark.one_engine

ROOT = Path(__file__).resolve().parent.parent.parent
GAME = ROOT / "examples" / "game-2p.json"
EXAMPLE_REVIEW = ROOT / "examples" / "game-2p.review.json"
LIMITS = SearchLimits(iterations=8)

HOSTILE = ["[" * 100_000, "{" * 40, '{"a": 1e400}', '{"a": NaN}', '{"a": 1, "a": 2}', "9" * 5000, '"\\ud800"', "",
           '{"format": "kwsearch-review-cache/1", "key": "%s", "decisions": {"0": {}, "0": {}}}' % ("0" * 64),
           '{"format": "kwsearch-review-cache/1", "key": "%s", "decisions": []}' % ("0" * 64),
           '{"format": "kwsearch-review/1", "decisions": [{"ply": 1e400}]}']


@functools.lru_cache(maxsize=None)
def _made(folder: str) -> tuple[dict, dict, tuple]:
    """The record, a real cache object and a real review object (a tiny review, made once), the game's steps."""
    record = json.loads(GAME.read_text())
    cache = Path(folder) / "made.review-cache.json"
    review = review_game(record, LIMITS, seed=0, cache=cache, source="game-2p.json")
    assert review.complete
    return record, json.loads(cache.read_text()), review.to_json()


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    record, cache, review = _made(str(tmp_path_factory.mktemp("made")))
    return record, cache, review, tuple(game_decisions(record))


def _garble(data, text: str) -> str:
    how = data.draw(st.sampled_from(["as is", "as is", "as is", "cut", "insert"]), label="garble")
    if how == "cut":
        return text[:data.draw(st.integers(0, len(text)), label="cut at")]
    if how == "insert":
        at = data.draw(st.integers(0, len(text)), label="at")
        return text[:at] + data.draw(st.sampled_from(["[", "]", "{", "}", ",", '"', "NaN", "1e400", "-"])
                                     | st.text(max_size=4), label="insert") + text[at:]
    return text


def _cache_behaves(path: Path, record: dict, steps) -> None:
    """Review with the cache at ``path`` (refused cleanly and the file untouched, or it finishes well)."""
    before = path.read_bytes()
    try:
        review = review_game(record, LIMITS, seed=0, cache=path, source="game-2p.json")
    except Exception as exc:  # noqa: BLE001 - the property is about which exceptions
        clean(exc)
        assert isinstance(exc, ReviewError), exc
        assert path.read_bytes() == before  # a bad cache is never overwritten
        event("refused")
        return
    assert review.complete and len(review.decisions) == len(steps)
    check_review(json.loads(json.dumps(review.to_json(), allow_nan=False)), "review", steps=steps, players=2)
    key = cache_key(record, LIMITS, review_config(SearchConfig()), 0)
    assert check_cache(json.loads(path.read_text()), str(path), key=key, steps=steps, players=2)


@FUZZ
@given(data=st.data())
def test_fuzz_review_cache(data, made, tmp_path_factory):
    record, cache, _, steps = made
    obj = mutate(data, cache)
    text = _garble(data, json.dumps(obj))
    path = tmp_path_factory.mktemp("c") / "g.review-cache.json"
    path.write_text(text)
    _cache_behaves(path, record, steps)


@functools.lru_cache(maxsize=None)
def _document():
    """The game's document of the board (what ``serve GAME --review FILE`` lays a review onto)."""
    try:
        from kwsearch.web.documents import Document
    except ImportError:  # the web extra is not installed: the checker alone
        return None
    return Document("d1", "game-2p.json", json.loads(GAME.read_text()))


def _review_behaves(obj, steps) -> None:
    doc = _document()
    try:
        if doc is None:
            check_review(obj, "r.json", steps=steps, players=2, game="game-2p.json")
        else:
            doc.attach_review(obj, "r.json")
    except Exception as exc:  # noqa: BLE001
        clean(exc)
        event("refused")
        return
    if doc is not None:
        page = doc.review
        json.dumps(page, allow_nan=False)  # what the page gets is strict JSON
        assert len(page["points"]) == len(obj["decisions"])
        assert all(0 <= x <= 1 for p in page["points"] for x in p["win"])


@FUZZ
@given(data=st.data())
def test_fuzz_review_file(data, made):
    _, _, review, steps = made
    base = data.draw(st.sampled_from(["made", "example"]), label="review")
    obj = mutate(data, review if base == "made" else json.loads(EXAMPLE_REVIEW.read_text()))
    _review_behaves(obj, steps)


@FUZZ
@given(data=st.data(), text=st.text(max_size=200) | st.sampled_from(HOSTILE))
def test_fuzz_review_text(data, text, made, tmp_path_factory):
    record, _, _, steps = made
    folder = tmp_path_factory.mktemp("t")
    path = folder / "g.review-cache.json"
    path.write_text(text, errors="surrogatepass")
    _cache_behaves(path, record, steps)
    try:
        obj = load_json_file(path)
    except Exception as exc:  # noqa: BLE001
        clean(exc)
        return
    _review_behaves(obj, steps)
