"""Issue 30 items 3 and 4: luck against skill and accuracy in the review (kwsearch/luck.py, docs/luck.md).

Luck averages to zero over the possible events: checked on positions whose reveal can be enumerated (the
undrawn deck cut down to a few cards, every outcome searched as deep as the value before it); a forced
reveal (one possible outcome) has no luck; lichess's accuracy; the review's JSON, text, HTML, cache, CLI
and web page; the same figures from the seed with one worker and two.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from helpers import run_cli, web_test_client
from kwsearch.luck import (DEFAULT_METHOD, DRAWN_SPLIT, EVENT_KEYS, FIGURE_KEYS, chance_outcomes, describe,
                           event_entry, find_events, game_accuracy, move_accuracy, root_rows, stratified_outcomes,
                           welch_half)
from kwsearch.records import replay
from kwsearch.review import VERIFY_DIVISOR, ReviewError, check_cache, check_review, game_decisions, review_config, review_game
from kwsearch.search import SearchConfig, SearchLimits

pytestmark = pytest.mark.one_engine

ROOT = Path(__file__).resolve().parent.parent
GAME = ROOT / "examples" / "game-2p.json"
GAME4 = ROOT / "examples" / "game-4p.json"
LIMITS = SearchLimits(iterations=150)


def _record(path: Path = GAME) -> dict:
    return json.loads(path.read_text())


def _cut_deck(state, cards: list[int]):
    """``state`` with its undrawn deck cut down to ``cards`` (drawn last first); the rest goes to the discard."""
    st = state.copy()
    rest = list(st.deck)
    for t in cards:
        rest.remove(t)
    st.deck = list(cards)
    st.discard = st.discard + rest
    return st


def _mean(rows):
    return [sum(r[s] for r in rows) / len(rows) for s in range(len(rows[0]))]


# ---------------------------------------------------------------------------
# What could have come up
# ---------------------------------------------------------------------------


def test_the_outcomes_of_a_reveal_and_their_probabilities():
    steps = game_decisions(_record(GAME4))
    st, a = steps[10]  # turns up two research cards
    st = _cut_deck(st, [5, 0, 0, 0])
    outs = chance_outcomes(st, a)
    got = {describe(st.game, o.draws): o.probability for o in outs}
    names = [ct.name for ct in st.game.components.card_types]
    x, y = names[0], names[5]
    assert got == pytest.approx({f"{x}, {x}": 0.5, f"{x}, {y}": 0.25, f"{y}, {x}": 0.25})
    assert sum(o.probability for o in outs) == pytest.approx(1.0)
    # a move that turns up nothing has no outcome; an undrawn deck of one kind has exactly one
    assert chance_outcomes(*steps[0]) == []
    assert len(chance_outcomes(_cut_deck(steps[10][0], [0, 0, 0]), a)) == 1


def test_the_chance_events_of_the_bundled_game_are_its_reveals():
    rec = _record()
    steps = game_decisions(rec)
    events = find_events(steps, replay(rec))
    reveals = [e[len("reveal "):] for e in rec["events"] if e.startswith("reveal")]
    assert events[0].ply == -1 and events[0].kind == "deal"
    assert [e.text for e in events[1:]] == reveals
    assert all(e.kind == "cards" and not e.forced and e.outcomes > 1 for e in events[1:])


# ---------------------------------------------------------------------------
# Luck averages to zero; a forced reveal has none
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("path, ply, deck, tol", [
    (GAME4, 122, [5, 6, 6, 6], 0.015),  # 4 players: outcomes of probabilities 1/4, 1/4, 1/2
    (GAME, 54, [16, 5, 5], 0.02),       # 2 players, three equally likely outcomes
])
def test_luck_averages_to_zero_over_the_possible_reveals(path, ply, deck, tol):
    """The value before the event (the move re-searched alone, as the review does) is the probability-
    weighted mean of the values right after each possible outcome (searched as deep): so is the luck."""
    rec = _record(path)
    n = rec["players"]
    st, a = game_decisions(rec)[ply]
    st = _cut_deck(st, deck)
    config = review_config(SearchConfig(), n).for_players(n)
    chunk, k = 3000, 4
    before = _mean(root_rows(st, config, chunk, [11 + j for j in range(k)], a))
    outs = chance_outcomes(st, a)
    assert len(outs) == 3 and sum(o.probability for o in outs) == pytest.approx(1.0)
    after = [_mean(root_rows(o.state, config, chunk, [51 + j for j in range(k)])) for o in outs]
    for s in range(n):
        expected = sum(o.probability * v[s] for o, v in zip(outs, after))
        luck = [v[s] - before[s] for v in after]
        assert abs(expected - before[s]) <= tol, (s, expected, before[s])
        assert abs(sum(o.probability * x for o, x in zip(outs, luck))) <= tol
    # the cards matter here: the outcomes' values differ by more than the tolerance for some seat
    assert max(max(v[s] for v in after) - min(v[s] for v in after) for s in range(n)) > tol


def test_a_forced_reveal_has_no_luck():
    rec = _record()
    steps = game_decisions(rec)
    st, a = steps[54]
    st = _cut_deck(st, [0, 0])  # every undrawn card of one kind: only one thing can come up
    after = chance_outcomes(st, a)[0].state
    events = find_events([(st, a)], after)
    e = events[1]
    assert e.forced and e.outcomes == 1 and e.probability == pytest.approx(1.0)
    entry = event_entry(e, 2, 80, 3, None, None, ([0.3, 0.7], 0.05), st.current_player())
    assert entry["luck"] == [0.0, 0.0] and entry["luck_half"] == [0.0, 0.0]
    assert entry["before"] == entry["after"] == [0.3, 0.7]


# ---------------------------------------------------------------------------
# Accuracy: lichess's formula
# ---------------------------------------------------------------------------


def test_move_accuracy_is_lichess_formula():
    for loss in (0.5, 3.0, 10.0, 25.0, 60.0):
        want = min(100.0, max(0.0, 103.1668100711649 * math.exp(-0.04354415386753951 * loss) - 3.166924740191411 + 1))
        assert move_accuracy(loss) == pytest.approx(want)
    assert move_accuracy(0.0) == 100.0 and move_accuracy(-2.0) == 100.0 and move_accuracy(100.0) == 0.0
    # falls with the loss
    assert move_accuracy(5) > move_accuracy(10) > move_accuracy(20)


def test_game_accuracy_combines_a_volatility_weighted_and_a_harmonic_mean():
    # a flat win-% series: every weight is the floor (0.5), the weighted mean is the plain mean
    losses = [0.0, 10.0, 2.0, 0.0]
    acc = [move_accuracy(x) for x in losses]
    flat = game_accuracy(losses, [50.0] * 5)
    assert flat == pytest.approx((sum(acc) / 4 + 4 / sum(1 / a for a in acc)) / 2)
    # a volatile stretch weighs more: the same losses, the bad move in the swing, score lower
    swing = game_accuracy(losses, [50.0, 50.0, 90.0, 10.0, 50.0])
    assert swing < flat
    assert game_accuracy([], [50.0]) is None
    assert game_accuracy([0.0, 0.0], [50.0, 60.0, 40.0]) == 100.0
    assert game_accuracy([100.0, 0.0], [50.0, 0.0, 0.0]) < 50.0  # the harmonic mean punishes a disaster


# ---------------------------------------------------------------------------
# In the review: JSON, checker, cache, text, HTML, workers
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def review():
    return review_game(_record(), LIMITS, seed=5, source="game-2p.json")


def test_the_review_carries_luck_skill_and_accuracy(review):
    obj = json.loads(json.dumps(review.to_json()))
    steps = game_decisions(_record())
    check_review(obj, "r.json", steps=steps, players=2)
    luck = obj["luck"]
    assert luck["complete"] and [e["ply"] for e in luck["events"]] == [-1, 3, 6, 26, 40, 52, 54, 56]
    by_ply = {d["ply"]: d for d in obj["decisions"]}
    assert luck["method"] == DEFAULT_METHOD == "drawn"
    for e in luck["events"]:
        assert set(e) == set(EVENT_KEYS) | {"drawn"}
        assert e["luck"] == pytest.approx([a - b for a, b in zip(e["after"], e["before"])])
        assert sum(e["luck"]) == pytest.approx(0.0, abs=1e-6)  # 2 players: one seat's gain is the other's loss
        # one search of the review's iterations per event: drawn outcomes before, the position after
        assert (e["drawn"], e["chunks"]) == DRAWN_SPLIT and sum(DRAWN_SPLIT) == VERIFY_DIVISOR
        if e["ply"] >= 0:  # as deep as the decision's re-searches, and its own search
            assert e["iterations"] == by_ply[e["ply"]]["verify_iterations"]
            assert e["before"] != by_ply[e["ply"]]["played_win_all"]
            assert sum(DRAWN_SPLIT) * e["iterations"] == by_ply[e["ply"]]["iterations"]
    for f, s in zip(obj["figures"], range(2)):
        assert set(f) == set(FIGURE_KEYS) and f["seat"] == s
        mine = [d for d in obj["decisions"] if d["seat"] == s]
        assert f["moves"] == len(mine) and f["skill_lost"] == pytest.approx(sum(d["loss"] for d in mine))
        assert f["luck"] == pytest.approx(sum(e["luck"][s] for e in luck["events"]))
        assert 0 <= f["accuracy_low"] <= f["accuracy"] <= f["accuracy_high"] <= 100
    # the text says it in one line per seat, within the width
    from kwsearch.review import review_text
    text = review_text(review)
    for f in obj["figures"]:
        verb = "gained" if f["luck"] >= 0 else "lost"
        assert f"{f['name']} lost {100 * f['skill_lost']:.0f} ± " in text
        assert f"{verb} {abs(100 * f['luck']):.0f} ± " in text and f"accuracy {f['accuracy']:.0f}%" in text
    assert all(len(line) <= 100 for line in text.splitlines())


@pytest.mark.parametrize("mutate, message", [
    (lambda o: o["luck"]["events"][1]["luck"].__setitem__(0, 0.2), r"luck\.events\[1\]\.luck\[0\]: expected after - before"),
    (lambda o: o["figures"][0].__setitem__("luck", 0.5), r"figures\[0\]\.luck: expected"),
    (lambda o: o["figures"][1].__setitem__("accuracy", 99.0), r"figures\[1\]\.accuracy: expected"),
    (lambda o: o["luck"]["events"].reverse(), r"luck\.events\[1\]\.ply: expected the events in game order"),
    (lambda o: o["luck"]["events"][2].update(forced=True), r"luck\.events\[2\]\.forced: expected false"),
    (lambda o: o["luck"]["events"][0].update(kind="cards"), r"luck\.events\[0\]\.kind: expected \"deal\" at ply -1"),
    (lambda o: o["luck"]["events"][3].pop("luck_half"), r"luck\.events\[3\]\.luck_half: expected"),
])
def test_the_checker_refuses_bad_luck_in_one_line(review, mutate, message):
    obj = json.loads(json.dumps(review.to_json()))
    mutate(obj)
    with pytest.raises(ReviewError, match=message) as exc:
        check_review(obj, "r.json", steps=game_decisions(_record()))
    assert "\n" not in str(exc.value) and str(exc.value).startswith("r.json: ")


def test_same_luck_from_the_seed_with_one_and_two_workers_and_from_the_cache(review, tmp_path, monkeypatch):
    again = review_game(_record(), LIMITS, seed=5, source="game-2p.json", workers=2,
                        cache=tmp_path / "c.json")
    assert again.to_json()["luck"] == review.to_json()["luck"]
    assert again.to_json()["figures"] == review.to_json()["figures"]
    cache = json.loads((tmp_path / "c.json").read_text())
    assert sorted(cache["luck"]["events"], key=int) == ["-1", "3", "6", "26", "40", "52", "54", "56"]
    assert check_cache(cache, "c.json", key=cache["key"], steps=game_decisions(_record()), players=2)
    # a rerun reads every decision and every event from the cache: no search at all
    import kwsearch.luck
    import kwsearch.review
    monkeypatch.setattr(kwsearch.luck, "root_rows", lambda *a, **k: pytest.fail("searched again"))
    monkeypatch.setattr(kwsearch.review, "review_decision", lambda *a, **k: pytest.fail("searched again"))
    third = review_game(_record(), LIMITS, seed=5, source="game-2p.json", cache=tmp_path / "c.json")
    assert third.to_json()["luck"] == review.to_json()["luck"]
    # a bad luck entry in the cache is refused in one line, the file left as it is
    cache["luck"]["events"]["3"]["luck"] = [0.5, 0.5]
    (tmp_path / "c.json").write_text(json.dumps(cache))
    with pytest.raises(ReviewError, match=r"luck\.events\.3\.luck\[0\]: expected after - before"):
        review_game(_record(), LIMITS, seed=5, source="game-2p.json", cache=tmp_path / "c.json")


def test_three_players_and_a_seat_filter(tmp_path):
    """A seat not reviewed still gets its luck (the value before an event after its move then has its
    own search); skill and accuracy only for the seats reviewed."""
    from kwsearch.bots import RandomBot
    from kwsearch.game import Game
    from kwsearch.records import Recorder
    rec = Recorder.start(Game(3), seed=4)
    bot = RandomBot(seed=1)
    for _ in range(14):
        rec.apply(bot.step(rec.state))
    record = rec.record
    r = review_game(record, SearchLimits(iterations=60), seed=2, seats=[1])
    obj = json.loads(json.dumps(r.to_json()))
    check_review(obj, "r3.json", steps=game_decisions(record), players=3)
    figs = obj["figures"]
    assert [f["skill_lost"] is None for f in figs] == [True, False, True]
    assert all(f["luck"] is not None and f["luck_events"] == len(obj["luck"]["events"]) for f in figs)
    assert any(e["ply"] >= 0 for e in obj["luck"]["events"])  # a reveal within the first 14 decisions
    for e in obj["luck"]["events"]:
        assert len(e["luck"]) == 3


def test_cli_json_no_luck_and_html(tmp_path):
    game = tmp_path / "g.json"
    game.write_text(GAME.read_text())
    r = run_cli("review", str(game), "--iterations", "40", "--no-cache", "--json", "--no-luck")
    assert r.exit_code == 0, r.output
    obj = json.loads(r.output)
    assert obj["luck"] is None and all(f["luck"] is None for f in obj["figures"])
    assert all(f["accuracy"] is not None for f in obj["figures"])
    html = tmp_path / "r.html"
    r = run_cli("review", str(game), "--iterations", "40", "--no-cache", "--html", str(html))
    assert r.exit_code == 0, r.output
    assert "Luck against skill" in r.output and "from the cards" in r.output
    page = html.read_text()
    assert page.count('<g class="luck"') == 8 and 'id="figures"' in page and "accuracy" in page


def test_the_web_page_gets_the_luck_of_a_review(review, tmp_path):
    TestClient = web_test_client()
    from kwsearch.web.app import WebConfig, create_app
    obj = review.to_json()
    app = create_app(WebConfig(games_dir=tmp_path), files=[("game-2p.json", _record())],
                     review=("rev.json", obj))
    with TestClient(app, base_url="http://127.0.0.1:8000") as c:
        first = c.get("/api/info").json()["first"]
        rev = c.get(f"/api/docs/{first}").json()["review"]
    assert [e["ply"] for e in rev["luck"]] == [e["ply"] for e in obj["luck"]["events"]]
    assert rev["luck"][0]["title"].startswith("the set-up deal — luck ")
    assert all(e["node"] is not None for e in rev["luck"])
    assert [f["line"] for f in rev["figures"]][0].startswith("P1 lost ")
    assert rev["figures"][1]["accuracy"] == pytest.approx(obj["figures"][1]["accuracy"])


def _ply93_expectation(chunks: int):
    """game-4p ply 93, the undrawn deck cut to three cards: three possible reveals whose values lie 19
    points apart. Returns the state, the move, the review's search settings, the outcomes and every
    seat's probability-weighted mean of the values right after them (``chunks`` chunks of 3,000)."""
    rec = _record(GAME4)
    st, a = game_decisions(rec)[93]
    st = _cut_deck(st, [2, 0, 0])
    config = review_config(SearchConfig(), 4).for_players(4)
    outs = chance_outcomes(st, a)
    after = [_mean(root_rows(o.state, config, 3000, [71 + j for j in range(chunks)])) for o in outs]
    expected = [sum(o.probability * v[s] for o, v in zip(outs, after)) for s in range(4)]
    return st, a, config, outs, expected


def test_a_finished_game_is_valued_by_its_result():
    final = replay(_record())
    config = review_config(SearchConfig(), 2).for_players(2)
    assert root_rows(final, config, 100, [1, 2]) == [final.returns(), final.returns()] == [[1.0, 0.0]] * 2


def test_sampled_outcomes_give_the_expectation_where_the_re_search_of_the_move_does_not():
    """game-4p ply 93 with three possible reveals whose values lie 19 points apart: below the move the next
    seats cannot see what came up, so the move's re-search is no fair expectation there (docs/luck.md);
    the ``sampled`` method's value before — searches of outcomes drawn with their probabilities — is."""
    from kwsearch.luck import sample_outcome
    from kwsearch.seeds import derive_seed
    st, a, config, outs, expected = _ply93_expectation(4)
    draws = [sample_outcome(st, a, derive_seed(9, "sample", j)) for j in range(24)]
    sampled = _mean([root_rows(d, config, 3000, [derive_seed(9, "search", j)])[0] for j, d in enumerate(draws)])
    for s in range(4):
        assert abs(sampled[s] - expected[s]) <= 0.04, (s, sampled, expected)
    # the draws follow the outcomes' probabilities (three outcomes of 1/3 each here)
    seen = [next(i for i, o in enumerate(outs) if describe(st.game, o.draws) == describe(st.game, _drawn(st, d)))
            for d in draws]
    assert sorted(set(seen)) == [0, 1, 2]


def _drawn(before, after):
    """The draws that turned ``before`` into ``after``: the display's new cards, in order."""
    return tuple(("card", t) for t in after.display[-2:])


def test_the_reuse_method_takes_the_value_before_from_the_re_search_of_the_move(tmp_path):
    r = review_game(_record(), LIMITS, seed=5, luck_method="reuse")
    obj = json.loads(json.dumps(r.to_json()))
    check_review(obj, "r.json", steps=game_decisions(_record()))
    by_ply = {d["ply"]: d for d in obj["decisions"]}
    assert obj["luck"]["method"] == "reuse"
    for e in obj["luck"]["events"]:
        assert "drawn" not in e
        if e["ply"] >= 0:
            assert e["before"] == by_ply[e["ply"]]["played_win_all"]
            assert e["chunks"] == by_ply[e["ply"]]["verify_chunks"]
            assert e["iterations"] == by_ply[e["ply"]]["verify_iterations"]


def test_stratified_picks_follow_the_outcomes_probabilities():
    """Each pick on its own is an outcome drawn with its probability (so their mean value is unbiased);
    three picks of three outcomes of 1/3 each are the three outcomes."""
    rec = _record(GAME4)
    st, a = game_decisions(rec)[10]
    st = _cut_deck(st, [5, 0, 0, 0])
    outs = chance_outcomes(st, a)
    probs = sorted(o.probability for o in outs)
    assert probs == pytest.approx([0.25, 0.25, 0.5])
    names = [describe(st.game, o.draws) for o in outs]

    def which(s):
        return next(i for i, o in enumerate(outs) if o.state.display == s.display and o.state.deck == s.deck)

    trials = 400
    counts = [[0] * len(outs) for _ in range(3)]
    for seed in range(trials):
        picks = stratified_outcomes(st, a, 3, seed)
        assert len(picks) == 3
        for j, p in enumerate(picks):
            counts[j][which(p)] += 1
    # pooled over the three picks, each outcome's share is its probability (within 4 standard errors)
    for i, o in enumerate(outs):
        share = sum(c[i] for c in counts) / (3 * trials)
        assert abs(share - o.probability) <= 4 * math.sqrt(o.probability * (1 - o.probability) / trials), (names[i], share)
    # the outcome of probability 1/2 is picked once or twice in every three picks (stratification)
    big = next(i for i, o in enumerate(outs) if o.probability == pytest.approx(0.5))
    for seed in range(50):
        got = [which(p) for p in stratified_outcomes(st, a, 3, seed)]
        assert got.count(big) in (1, 2)
    two = game_decisions(_record())[54]
    cut = _cut_deck(two[0], [1, 0, 0])
    thirds = chance_outcomes(cut, two[1])
    assert [o.probability for o in thirds] == pytest.approx([1 / 3] * 3)
    for seed in range(20):
        picks = stratified_outcomes(cut, two[1], 3, seed)
        assert sorted(p.display for p in picks) == sorted(o.state.display for o in thirds)
    # the same picks from the same seed
    assert [p.display for p in stratified_outcomes(st, a, 3, 7)] == [p.display for p in stratified_outcomes(st, a, 3, 7)]


def test_welch_half_width():
    from kwsearch.confidence import t975
    # equal spreads and chunks: the degrees of freedom add up
    assert welch_half(0.01, 2, 0.01, 2) == pytest.approx(t975(4) * math.sqrt(2) * 0.01)
    # an exact value after (the game's end): the other side's t alone
    assert welch_half(0.0, None, 0.02, 2) == pytest.approx(t975(2) * 0.02)
    # one side dominates: its degrees of freedom
    assert welch_half(0.001, 1, 0.05, 2) == pytest.approx(t975(2) * math.sqrt(0.001 ** 2 + 0.05 ** 2))
    assert welch_half(0.0, 1, 0.0, 2) == 0.0


def test_the_drawn_value_before_is_the_expectation():
    """game-4p ply 93 (as the test of ``sampled`` below; its searches at 3,000 iterations settle on one of
    two lines, 20 points apart, by the seed): the ``drawn`` method's value before, one chunk on each of
    three outcomes picked by stratified sampling, averaged over 8 seeds, is the probability-weighted mean
    of the values after the outcomes."""
    from kwsearch.seeds import derive_seed
    st, a, config, _, expected = _ply93_expectation(8)
    rows = []
    for k in range(8):
        picks = stratified_outcomes(st, a, DRAWN_SPLIT[0], derive_seed(3, "strata", k))
        rows += [root_rows(p, config, 3000, [derive_seed(3, "before", k, j)])[0] for j, p in enumerate(picks)]
    drawn = _mean(rows)
    for s in range(4):
        assert abs(drawn[s] - expected[s]) <= 0.04, (s, drawn, expected)


def test_the_sampled_method_in_a_review(tmp_path):
    one = review_game(_record(), LIMITS, seed=5, luck_method="sampled", cache=tmp_path / "c.json")
    two = review_game(_record(), LIMITS, seed=5, luck_method="sampled", workers=2)
    obj = json.loads(json.dumps(one.to_json()))
    assert obj["luck"]["method"] == "sampled" and obj["luck"] == two.to_json()["luck"]
    check_review(obj, "r.json", steps=game_decisions(_record()))
    by_ply = {d["ply"]: d for d in obj["decisions"]}
    for e in obj["luck"]["events"][1:]:  # the value before is its own search, as deep as the decisions'
        assert e["before"] != by_ply[e["ply"]]["played_win_all"]
        assert e["iterations"] == by_ply[e["ply"]]["verify_iterations"]
    # the cache keeps the method: another method's luck is valued again, not taken
    drawn = review_game(_record(), LIMITS, seed=5, cache=tmp_path / "c.json")
    assert drawn.to_json()["luck"]["method"] == "drawn"
    assert json.loads((tmp_path / "c.json").read_text())["luck"]["method"] == "drawn"
    bad = json.loads(json.dumps(obj))
    bad["luck"]["method"] = "guess"
    with pytest.raises(ReviewError, match=r'luck\.method: expected "drawn" or "reuse" or "sampled", got "guess"'):
        check_review(bad, "r.json")
    with pytest.raises(ReviewError, match="--luck-method: expected drawn or reuse or sampled"):
        review_game(_record(), LIMITS, luck_method="guess")
