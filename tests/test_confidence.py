"""Issue 29: intervals per option, the equal band, search until clear (kwsearch/confidence.py)."""

import json
import math
from pathlib import Path

from click.testing import CliRunner

from kwsearch import confidence
from kwsearch.analysis import analyse, analysis_json
from kwsearch.cli import main
from kwsearch.confidence import CLEAR, EQUAL, OPEN, Estimate, band, estimate, verify
from kwsearch.engine import convert
from kwsearch.records import load_file
from kwsearch.search import SearchConfig, SearchLimits, search, search_params
from kwsearch.seeds import derive_seed

ROOT = Path(__file__).resolve().parent.parent
OPENING = ROOT / "tests" / "data" / "opening-4p.json"
MARKET = ROOT / "tests" / "data" / "market-4p.json"
MID = ROOT / "examples" / "midgame-4p.json"


def est(action, win, se, chunks=5):
    return Estimate(action, chunks, 100, 0, win, se, 0.0, 20.0, 0.5, 0.0)


def test_interval_covers_the_option_searched_alone_twenty_times_longer():
    """On a small fixed set (the four start tiles of opening-4p, deterministic seeds) the 95% interval of
    every option holds its value searched alone 20x longer (bench/bench_intervals.py measures more)."""
    state, _ = load_file(OPENING)
    fast = convert(state, "fast")
    config = SearchConfig().for_players(4)
    params = search_params(config, 4)
    n = 200
    covered = 0
    for a in fast.legal_actions():
        e = estimate(fast, params, config.max_nodes, a, n, seed=5, rnd=0)
        assert e.win_low <= e.win <= e.win_high and e.chunks == confidence.CHUNKS and e.chunk_iterations == n
        truth = confidence.chunk_value(fast, params, config.max_nodes, a, 20 * n, derive_seed(99, a))[1]
        covered += e.win_low <= truth <= e.win_high
    assert covered >= len(fast.legal_actions()) - 1


def test_equal_band_marks_both_of_two_equal_options_and_a_clearly_better_one_alone():
    order, equal, verdict = band({1: est(1, 0.300, 0.002), 2: est(2, 0.300, 0.002), 3: est(3, 0.200, 0.002)},
                                 [1, 2, 3])
    assert set(equal) == {1, 2} and order[2] == 3 and verdict == EQUAL
    order, equal, verdict = band({1: est(1, 0.200, 0.002), 2: est(2, 0.300, 0.002), 3: est(3, 0.250, 0.002)},
                                 [1, 2, 3])
    assert equal == [2] and order == [2, 3, 1] and verdict == CLEAR
    # within the margin (0.75 points): equal even when the difference is measured precisely
    assert band({1: est(1, 0.300, 0.0001), 2: est(2, 0.295, 0.0001)}, [1, 2])[1:] == ([1, 2], EQUAL)
    # one point apart, measured precisely: separated (four-player win shares cluster near 20-25%)
    assert band({1: est(1, 0.300, 0.0001), 2: est(2, 0.290, 0.0001)}, [1, 2])[1:] == ([1], CLEAR)
    # a wider margin is a parameter
    assert band({1: est(1, 0.300, 0.0001), 2: est(2, 0.290, 0.0001)}, [1, 2], margin=0.02)[1:] == ([1, 2], EQUAL)
    # outside the margin but inside the noise: marked equal, but not surely (open)
    assert band({1: est(1, 0.300, 0.02), 2: est(2, 0.270, 0.02)}, [1, 2])[1:] == ([1, 2], OPEN)


def test_interval_adds_the_drift_over_the_doublings_to_twenty_times_and_a_floor():
    still = est(1, 0.25, 0.0)
    assert still.win_half == confidence.WIN_FLOOR == 0.02  # no noise, no drift: still two points
    # a falling value: the interval is centred on the value moved on by 3/4 of the log2(20) doublings
    # to 20x, its half-width the extrapolated values' noise + the same multiple of the drift + the floor
    moving = Estimate(1, 3, 100, 0, 0.25, 0.001, -0.01, 20.0, 0.5, 1.0, (), 0.004)
    depth = 0.75 * math.log2(20) * 0.01
    assert abs(moving.win_centre - (0.25 - depth)) < 1e-12
    assert abs(moving.win_half - (confidence.t975(2) * 0.004 + depth + 0.02)) < 1e-12
    assert abs(moving.win_high - (0.25 + 0.02 + confidence.t975(2) * 0.004)) < 1e-12  # "stops moving" is inside
    assert abs(moving.money_half - (confidence.t975(2) * 0.5 + 2 * math.log2(20) * 1.0)) < 1e-12
    assert moving.win_precision == confidence.t975(2) * 0.001  # the band's precision: the chunks' own spread
    assert est(1, 0.99, 0.0).win_high == 1.0 and est(1, 0.01, 0.0).win_low == 0.0


def test_verification_costs_three_times_the_search_in_three_chunks_of_a_fifth():
    state, _ = load_file(MID)
    result = search(state, SearchLimits(iterations=1000), seed=2)
    options = [x.action for x in result.actions[:5]]
    v = verify(state, result, options, seed=2)
    assert v.rounds == 1 and v.iterations == len(options) * 3 * 200 <= 3 * 1000
    assert all(e.chunks == 3 and e.chunk_iterations == 200 and len(e.win_values) == 3 for e in v.estimates.values())


def test_hints_are_reproducible_from_their_seed_with_any_worker_count():
    state, _ = load_file(MID)
    limits = SearchLimits(iterations=1000)
    for workers in (1, 2):
        a = analysis_json(analyse(state, limits, SearchConfig(workers=workers), seed=3, top=3))
        b = analysis_json(analyse(state, limits, SearchConfig(workers=workers), seed=3, top=3))
        for obj in (a, b):
            for k in ("elapsed", "iterationsPerSecond"):
                obj["rootInfo"].pop(k)
        assert a == b
    # the re-searches depend on the seed and the options only, not on the workers of the main search
    one = search(state, limits, SearchConfig(workers=1), seed=3)
    two = search(state, limits, SearchConfig(workers=2), seed=3)
    options = [x.action for x in one.actions[:3]]
    v1, v2 = verify(state, one, options, seed=3), verify(state, two, options, seed=3)
    assert v1.estimates == v2.estimates and v1.order == v2.order and v1.equal == v2.equal


def test_until_clear_stops_on_a_clear_position_after_one_round():
    r = CliRunner().invoke(main, ["suggest", str(MARKET), "--iterations", 2000, "--until-clear", "--json"])
    assert r.exit_code == 0, r.output
    conf = json.loads(r.stdout)["rootInfo"]["confidence"]
    assert conf["verdict"] == "clear" and conf["rounds"] == 1 and conf["untilClear"] and len(conf["equal"]) == 1
    text = CliRunner().invoke(main, ["suggest", str(MARKET), "--iterations", 2000, "--until-clear"]).stdout
    assert "until clear: clear: the best is separated from the rest (1 round)" in text


def test_until_clear_reports_a_tie_on_a_symmetric_position(monkeypatch):
    """Two options of the same value (a stand-in for a symmetric position): the rounds go on while the
    difference is inside the noise, and stop with 'equal' once it is surely within the margin."""
    state, _ = load_file(MID)
    result = search(state, SearchLimits(iterations=500), seed=1)
    a, b = [x.action for x in result.actions[:2]]

    def fake(fast, params, max_nodes, action, n, seed, rnd, chunks=5):
        return est(action, 0.25, 0.2 / n ** 0.5)  # the noise halves as the chunks grow fourfold
    monkeypatch.setattr(confidence, "estimate", fake)
    v = verify(state, result, [a, b], seed=1, until_clear=True, cap=10**6)
    assert v.verdict == EQUAL and v.rounds > 1 and not v.capped and set(v.equal) == {a, b}
    capped = verify(state, result, [a, b], seed=1, until_clear=True, cap=3000)
    assert capped.verdict == OPEN and capped.capped and "the cap was reached" in capped.summary()
    once = verify(state, result, [a, b], seed=1)
    assert once.rounds == 1 and once.verdict == OPEN


def test_suggest_text_marks_equal_options_and_names_them_in_the_hint():
    r = CliRunner().invoke(main, ["suggest", str(OPENING), "--iterations", 2000])
    assert r.exit_code == 0, r.output
    assert "win [95%]" in r.stdout and "money 95%" in r.stdout and "hint: " in r.stdout
    hint = [ln for ln in r.stdout.splitlines() if ln.startswith("hint: ")][0]
    marked = [ln for ln in r.stdout.splitlines() if ln[:2].rstrip().endswith("=")]
    assert (len(marked) > 1) == (", equal" in hint)
