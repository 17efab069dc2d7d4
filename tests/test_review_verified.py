"""Reviews on verified values (issue 29 item 4): the move played and the best re-searched alone,
marks only beyond the loss's interval and never in the equal band (docs/review.md, "Verified values")."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import pytest

from kwsearch.engine import state_from_json
from kwsearch.review import (MARKS, ROUND_KEYS, VERIFY_KEYS, ReviewError, classify, check_review, game_decisions, review_decision, review_game,
                             verified_class, verify_iterations)
from kwsearch.search import SearchLimits

pytestmark = pytest.mark.one_engine

ROOT = Path(__file__).resolve().parent.parent
GAME = ROOT / "examples" / "game-2p.json"
LIMITS = SearchLimits(iterations=400)


def _record() -> dict:
    return json.loads(GAME.read_text())


@pytest.fixture(scope="module")
def review():
    return review_game(_record(), LIMITS, seed=7, source="game-2p.json")


def test_a_move_of_the_equal_band_is_never_marked(review):
    assert any(d.equal and d.played != d.best for d in review.decisions)  # the band is met, not only the best
    for d in review.decisions:
        assert d.verified and d.verify_chunks == 3 * d.verify_rounds and d.verify_iterations == verify_iterations(400) == 80
        if d.equal:
            assert d.cls is None and d.mark == ""
        if d.cls is not None:  # marked: the loss beyond its interval reaches the class's threshold
            assert not d.equal and d.loss - d.loss_half >= 0.05 - 1e-12
        if d.played == d.best:
            assert d.equal and d.loss == 0 and d.loss_half == 0
    # the rule itself: the band wins over any loss, the interval is subtracted first
    assert verified_class(0.9, 0.0, True) is None
    assert verified_class(0.12, 0.03, False) == "inaccuracy" and verified_class(0.12, 0.0, False) == "mistake"


def test_a_planted_blunder_is_marked_beyond_its_interval():
    """tests/data/tactics/race_gp_2p.json: tile 5 wins the game, every other tile loses it."""
    pos = json.loads((ROOT / "tests" / "data" / "tactics" / "race_gp_2p.json").read_text())
    state = state_from_json(pos, seed=1)
    for seed in (1, 2, 3):
        d = review_decision(state, state.parse_move("tile 6"), SearchLimits(iterations=2000), seed=seed)
        assert d.best == "tile 5" and d.cls == "blunder" and not d.equal
        assert d.loss - d.loss_half > 0.15 and d.played_win_half >= 0 and d.played_visits >= 0
        good = review_decision(state, state.parse_move("tile 5"), SearchLimits(iterations=2000), seed=seed)
        assert good.cls is None and good.equal and good.loss == 0


def test_reproducible_from_its_seed_with_one_and_two_workers(review):
    again = review_game(_record(), LIMITS, seed=7, source="game-2p.json", workers=2)
    assert [asdict(d) for d in again.decisions] == [asdict(d) for d in review.decisions]


def test_the_graph_draws_the_move_played_verified(review):
    for d in review.decisions:
        assert d.graph_win == d.played_win_all and len(d.played_win_all) == 2
        assert abs(d.played_win_all[d.seat] - d.played_forced_win) < 1e-9  # the same re-searches
        assert sum(d.played_win_all) <= 1.001


def test_the_new_fields_are_in_the_json_and_documented(review):
    obj = review.to_json()
    doc = (ROOT / "docs" / "formats.md").read_text()
    steps = game_decisions(_record())
    check_review(obj, "r.json", steps=steps)
    for k in VERIFY_KEYS:
        assert all(k in d for d in obj["decisions"])
        assert f"`{k}`" in doc, f"docs/formats.md does not document {k}"
    # a class that ignores the interval or the band is refused; a former review (no fields) still reads
    d = next(d for d in obj["decisions"] if d["equal"] and d["played"] != d["best"])
    bad = json.loads(json.dumps(obj))
    i = obj["decisions"].index(d)
    bad["decisions"][i]["cls"], bad["decisions"][i]["mark"] = "inaccuracy", "?!"
    with pytest.raises(ReviewError, match=r"cls: expected null \(the move played is in the best's equal band\)"):
        check_review(bad, "r.json", steps=steps)
    partial = json.loads(json.dumps(obj))
    del partial["decisions"][0]["loss_half"]
    with pytest.raises(ReviewError, match=r"decisions\[0\]\.loss_half: expected"):
        check_review(partial, "r.json", steps=steps)
    former = json.loads(json.dumps(obj))  # the same decisions as the former method wrote them
    del former["figures"], former["luck"]  # issue 30's fields (kwsearch.luck) came after the former method
    for d in former["decisions"]:
        for k in VERIFY_KEYS + ROUND_KEYS:
            del d[k]
        d["cls"] = classify(d["loss"])
        d["mark"] = MARKS[d["cls"]]
    for s in former["summary"]:
        s["counts"] = {c: 0 for c in s["counts"]}
    check_review(former, "former.json", steps=steps)


def test_the_re_searches_steer_by_the_settings_money_weight_and_value_win_shares():
    """A review's searches steer by the settings' money weight (as a hint's); the re-searches' values
    are every seat's win share, read from the finishing places, the mover's equal to the forced
    option's own win share (docs/review.md, "Searches that steer as the hints do")."""
    from kwsearch.confidence import forced_halves
    from kwsearch.engine import convert
    from kwsearch.review import _chunk_row, _verify_seed, review_config
    from kwsearch.search import SearchConfig, search_params
    rec = json.loads((ROOT / "examples" / "game-4p.json").read_text())
    state, action = game_decisions(rec)[40]
    fast = convert(state, "fast")
    mover = fast.current_player()
    values = {}
    for weight in (0.0, 0.5):
        params = search_params(review_config(SearchConfig(money_weight=weight), 4), 4)
        for seed in (1, 2):
            _, full = _chunk_row(fast, params, 100_000, action, 400, 4, seed)
            kid = forced_halves(fast, params, 100_000, action, 400, seed)[1]
            assert sum(full[0]) == pytest.approx(1.0) and all(0 <= x <= 1 for x in full[0])
            assert full[0][mover] == pytest.approx(kid[4] / kid[2], abs=1e-6)  # the node's own win share
            if weight == 0.0:  # a pure win-share reward: the rewards are the same shares
                assert full[0] == pytest.approx([x / kid[2] for x in kid[5][:4]], abs=1e-6)
        # the review's value of the move played: the mean of its chunks, searched with this weight
        d = review_decision(state, action, SearchLimits(iterations=500), seed=3,
                            config=SearchConfig(money_weight=weight))
        chunks = [_chunk_row(fast, params, review_config().max_nodes, action, verify_iterations(500), 4,
                             _verify_seed(3, 0, action, j))
                  for j in range(d.verify_chunks)]
        assert d.played_forced_win == pytest.approx(sum(c[1][0][mover] for c in chunks) / len(chunks))
        values[weight] = d.played_forced_win
    assert values[0.0] != values[0.5]  # the setting reaches the re-searches
