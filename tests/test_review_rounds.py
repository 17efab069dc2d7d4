"""Reviews, issue 29 item 5: the sequential verification of a decision whose mark is in doubt, and the move
played valued by its own re-searches (docs/review.md)."""

from __future__ import annotations

import json
import math
from dataclasses import asdict
from pathlib import Path

import pytest

from kwsearch.engine import state_from_json
from kwsearch.review import (ROUND_KEYS, SCREEN_DIVISOR, VERIFY_CHUNKS, VERIFY_OPTIONS, VERIFY_ROUNDS, WIDER_ROUNDS,
                             ReviewError, check_review, follows_directly, game_decisions, in_doubt, review_decision,
                             review_game, verified_class)
from kwsearch.search import SearchLimits

pytestmark = pytest.mark.one_engine

ROOT = Path(__file__).resolve().parent.parent
GAME = ROOT / "examples" / "game-2p.json"
TACTICS = sorted((ROOT / "tests" / "data" / "tactics").glob("*.json"))


def _record() -> dict:
    return json.loads(GAME.read_text())


def _daimler():
    """tests/data/tactics/daimler_marker_4p.json: 9 options, one wins (proved), every other loses."""
    return state_from_json(json.loads((ROOT / "tests" / "data" / "tactics" / "daimler_marker_4p.json").read_text()),
                           seed=1)


@pytest.fixture(scope="module")
def review():
    return review_game(_record(), SearchLimits(iterations=300), seed=5, source="game-2p.json")


@pytest.fixture(scope="module")
def cached(tmp_path_factory):
    """The decisions as the review's cache holds them."""
    path = tmp_path_factory.mktemp("rounds") / "c.json"
    review_game(_record(), SearchLimits(iterations=300), seed=5, cache=path)
    return {int(k): v for k, v in json.loads(path.read_text())["decisions"].items()}


def test_the_move_played_is_valued_by_its_own_re_searches(review, cached):
    """Not combined with the seat's next position (docs/review.md, "The next position, no longer combined"):
    the review's decisions are the cache's, the move played's value its forced re-searches', even where the
    next decision is the same seat's with nothing between."""
    items = game_decisions(_record())
    assert any(follows_directly(items, d.ply) and d.played != d.best for d in review.decisions)
    for d in review.decisions:
        assert asdict(d) == cached[d.ply]
        assert d.played_next is None and d.played_win == d.played_forced_win
        assert d.loss == pytest.approx(max(0.0, d.best_win - d.played_win), abs=1e-12)
        assert d.cls == verified_class(d.loss, d.loss_half, d.equal)
    check_review(review.to_json(), "r.json", steps=items)


def test_the_checker_reads_older_reviews(review):
    """A review made before 2026-11-27 may carry ``played_next`` where the next decision is the same seat's
    with nothing between, and one made before the sequential verification has none of its fields
    (docs/formats.md): the checker still reads both, and refuses a ``played_next`` anywhere else."""
    items = game_decisions(_record())
    obj = review.to_json()
    i = next(i for i, d in enumerate(obj["decisions"])
             if d["played"] != d["best"] and follows_directly(items, d["ply"]))
    older = json.loads(json.dumps(obj))
    older["decisions"][i]["played_next"] = older["decisions"][i]["ply"] + 1
    check_review(older, "older.json", steps=items)
    older["decisions"][i]["played_next"] = older["decisions"][i]["ply"] + 2
    with pytest.raises(ReviewError, match=r"played_next: expected null or \d+ \(the next ply"):
        check_review(older, "older.json", steps=items)
    k = next(k for k, d in enumerate(obj["decisions"])
             if d["played"] != d["best"] and not follows_directly(items, d["ply"]))
    bad = json.loads(json.dumps(obj))
    bad["decisions"][k]["played_next"] = bad["decisions"][k]["ply"] + 1
    with pytest.raises(ReviewError, match=r"played_next: expected null \(ply \d+ is not the same seat's next"):
        check_review(bad, "r.json", steps=items)
    bad = json.loads(json.dumps(obj))
    j = next(j for j, d in enumerate(obj["decisions"]) if d["played_win"] > 0.01)
    bad["decisions"][j]["played_forced_win"] = bad["decisions"][j]["played_win"] - 0.01
    with pytest.raises(ReviewError, match=r"played_win: expected played_forced_win"):
        check_review(bad, "r.json", steps=items)
    # the fields are documented, and a review without them (before item 5) still reads
    doc = (ROOT / "docs" / "formats.md").read_text()
    assert all(f"`{k}`" in doc for k in ROUND_KEYS)
    former = json.loads(json.dumps(obj))
    del former["figures"], former["luck"]  # issue 30's fields (kwsearch.luck) are recomputed from the decisions
    for d in former["decisions"]:
        for k in ROUND_KEYS:
            del d[k]
    check_review(former, "former.json", steps=items)


def test_a_move_in_the_equal_band_is_never_marked(review):
    assert any(d.equal and d.played != d.best for d in review.decisions)
    for d in review.decisions:
        if d.equal:
            assert d.cls is None and d.mark == ""
        if d.cls is not None:
            assert not d.equal and d.loss - d.loss_half >= 0.05 - 1e-12


def test_only_a_decision_in_doubt_gets_more_chunks(review):
    assert in_doubt(0.12, 0.03) and in_doubt(0.05, 0.06) and in_doubt(0.0999, 0.001)
    assert not in_doubt(0.3, 0.05) and not in_doubt(0.02, 0.03) and not in_doubt(0.13, 0.01)
    assert not in_doubt(0.16, 0.02)  # the blunder line alone: the first round's interval decides
    # the doubt zone: a mark is concluded only when the interval clears the line by DOUBT_ZONE / sqrt(rounds)
    # (1 point after the first round), a loss below the line as soon as its interval is below it
    assert in_doubt(0.115, 0.01) and in_doubt(0.115, 0.01, rounds=2) and not in_doubt(0.115, 0.01, rounds=9)
    assert not in_doubt(0.085, 0.01) and not in_doubt(0.085, 0.01, rounds=20)
    # a clear decision: the move played is the best (tile 5 wins), or far behind it (tile 6 loses)
    pos = json.loads((ROOT / "tests" / "data" / "tactics" / "race_gp_2p.json").read_text())
    state = state_from_json(pos, seed=1)
    for move in ("tile 5", "tile 6"):
        d = review_decision(state, state.parse_move(move), SearchLimits(iterations=1000), seed=1)
        assert d.verify_rounds == 1 and d.verify_chunks == VERIFY_CHUNKS, move
    extra = [d for d in review.decisions if d.verify_rounds > 1]
    assert extra  # some decisions of the game were in doubt after the first round
    for d in review.decisions:
        assert 1 <= d.verify_rounds <= VERIFY_ROUNDS and d.verify_chunks == VERIFY_CHUNKS * d.verify_rounds
        if d.verify_rounds < VERIFY_ROUNDS and d.played != d.best:
            assert not in_doubt(d.loss, d.loss_half, d.verify_rounds)  # it stopped because the class was clear


@pytest.mark.parametrize("path", TACTICS, ids=lambda p: p.stem)
def test_a_planted_blunder_is_marked(path):
    """tests/data/tactics: one option wins the game, every other loses it (proved exhaustively)."""
    pos = json.loads(path.read_text())
    state = state_from_json(pos, seed=1)
    for seed in (1, 2):
        for move in pos["_expected"]["losing"]:
            d = review_decision(state, state.parse_move(move), SearchLimits(iterations=500), seed=seed)
            assert d.cls in ("mistake", "blunder") and not d.equal, (move, seed, asdict(d))


def test_reproducible_with_any_worker_count(review):
    again = review_game(_record(), SearchLimits(iterations=300), seed=5, source="game-2p.json", workers=2)
    assert [asdict(d) for d in again.decisions] == [asdict(d) for d in review.decisions]


@pytest.fixture
def chunked(monkeypatch) -> list[tuple[int, int]]:
    """The option and the length of every re-search a review makes, in order (kwsearch.review._chunk_row
    counted): the verification's chunks and the screen's shorter ones."""
    import kwsearch.review as review_module
    seen: list[tuple[int, int]] = []
    real = review_module._chunk_row

    def counting(fast, params, max_nodes, action, length, n, seed):
        seen.append((action, length))
        return real(fast, params, max_nodes, action, length, n, seed)

    monkeypatch.setattr(review_module, "_chunk_row", counting)
    return seen


def test_a_settled_decision_verifies_two_options_only(chunked):
    """Every option within the mistake line of the others (here: seats that have all but lost, no option
    worth 10%): no loss can reach a mark, the third option is not verified."""
    seen = chunked
    items = game_decisions(json.loads((ROOT / "examples" / "game-4p.json").read_text()))
    decided = open_ = 0
    for ply in (114, 116, 118, 124, 125, 127, 135):  # late in the game: seats 2 and 3 have all but lost
        state, action = items[ply]
        seen.clear()
        d = review_decision(state, action, SearchLimits(iterations=300), seed=1, ply=ply)
        verified = {a for a, length in seen if length == d.verify_iterations}
        screened = [a for a, length in seen if length != d.verify_iterations]
        if d.verify_rounds == 1 and len(verified) == 2 and d.options > 2:
            decided += 1
            assert d.loss < 0.10 and d.cls in (None, "inaccuracy")  # within the line: never a mistake
            assert not screened  # nor any other option screened
        elif d.verify_rounds == 1:
            open_ += 1
            assert len(verified) >= min(3, d.options)
    assert decided and open_


def test_a_decision_in_doubt_stops_at_the_round_cap_with_the_wider_options_of_the_first_rounds(chunked, monkeypatch):
    """A decision that stays in doubt gets VERIFY_CHUNKS more chunks of the move played and the best per round up
    to VERIFY_ROUNDS, and one more option only in the first WIDER_ROUNDS rounds."""
    import kwsearch.review as review_module
    seen = chunked
    monkeypatch.setattr(review_module, "in_doubt", lambda loss, half, rounds=1: True)
    # 9 options, one wins (proved): the move played loses, so the rounds go on to the cap
    state = _daimler()
    assert len(state.legal_actions()) > VERIFY_OPTIONS + WIDER_ROUNDS
    played = state.parse_move("daimler +4 buyer 1")
    monkeypatch.setattr(review_module, "SCREEN_MARGIN", -math.inf)  # no option passes the screen: the rounds alone
    d = review_decision(state, played, SearchLimits(iterations=300), seed=1)
    assert d.best == "daimler +4 buyer 2" and d.played != d.best
    assert d.verify_rounds == VERIFY_ROUNDS and d.verify_chunks == VERIFY_CHUNKS * VERIFY_ROUNDS
    assert seen.count((played, d.verify_iterations)) == VERIFY_CHUNKS * VERIFY_ROUNDS
    # the options verified: VERIFY_OPTIONS in the first round, one more in each later round of the first WIDER_ROUNDS
    assert len({a for a, length in seen if length == d.verify_iterations}) == VERIFY_OPTIONS + WIDER_ROUNDS - 1


def test_the_screen_finds_a_better_option_the_main_search_ranked_last(chunked, monkeypatch):
    """In a decision not settled, every option the first round did not verify gets one short re-search
    (the screen); one within SCREEN_MARGIN of the best verified value, or above it, is verified in full, so a
    winning option the main search ranked last is still the best (docs/review.md, "The screen")."""
    import kwsearch.analysis as analysis_module
    import kwsearch.review as review_module
    state = _daimler()
    winner, played = state.parse_move("daimler +4 buyer 2"), state.parse_move("daimler +4 buyer 1")
    real = analysis_module.analyse

    def winner_last(*args, **kwargs):
        from dataclasses import replace
        an = real(*args, **kwargs)
        return replace(an, candidates=[c for c in an.candidates if c.action != winner] + [
            c for c in an.candidates if c.action == winner])

    monkeypatch.setattr(analysis_module, "analyse", winner_last)
    seen = chunked
    d = review_decision(state, played, SearchLimits(iterations=300), seed=1)
    full = [a for a, length in seen if length == d.verify_iterations]
    short = [a for a, length in seen if length != d.verify_iterations]
    first = list(dict.fromkeys(full))[:VERIFY_OPTIONS]
    assert played in first and winner not in first
    # every option not verified in the first round screened once, at half a chunk's length
    assert sorted(short) == sorted(set(state.legal_actions()) - set(first))
    assert {length for _, length in seen} == {d.verify_iterations, d.verify_iterations // SCREEN_DIVISOR}
    assert d.best == "daimler +4 buyer 2" and d.cls == "blunder" and full.count(winner) >= VERIFY_CHUNKS
    # without the screen's verification the main search's order hides the winner
    seen.clear()
    monkeypatch.setattr(review_module, "SCREEN_MARGIN", -math.inf)
    d = review_decision(state, played, SearchLimits(iterations=300), seed=1)
    assert d.best != "daimler +4 buyer 2" and winner not in [a for a, length in seen if length == d.verify_iterations]
