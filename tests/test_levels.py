"""``ismcts:level=K``: the playing levels (kwsearch.bots.LEVELS, docs/strength.md "Levels")."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from kwsearch.bots import LEVELS, BotSpec, BotSpecError, from_spec, play_match, softmax_choice
from kwsearch.game import Game

pytestmark = pytest.mark.one_engine


# -- parsing -------------------------------------------------------------------


@pytest.mark.parametrize("level", range(1, len(LEVELS) + 1))
def test_a_level_sets_its_budget_and_temperature(level):
    spec = BotSpec.parse(f"ismcts:level={level}")
    limits, _ = spec.search_settings()
    assert str(spec) == f"ismcts:level={level}"
    assert (limits.iterations, spec.temperature()) == LEVELS[level - 1]
    assert limits.seconds is None


def test_the_top_level_is_todays_default_search():
    top = BotSpec.parse(f"ismcts:level={len(LEVELS)}")
    assert top.search_settings() == BotSpec.parse("ismcts").search_settings()
    assert top.temperature() == 0.0


def test_levels_grow_in_budget_and_sharpen_in_temperature():
    budgets, temperatures = zip(*LEVELS)
    assert list(budgets) == sorted(set(budgets))
    assert list(temperatures) == sorted(set(temperatures), reverse=True)
    assert 5 <= len(LEVELS) <= 8


def test_explicit_keys_override_the_levels():
    spec = BotSpec.parse("ismcts:level=1,iterations=500,temp=0.2")
    assert spec.search_settings()[0].iterations == 500 and spec.temperature() == 0.2
    limits, _ = BotSpec.parse("ismcts:level=2,seconds=0.5").search_settings()
    assert (limits.iterations, limits.seconds) == (None, 0.5)
    assert BotSpec.parse("ismcts:level=2,temp=0").temperature() == 0.0
    assert BotSpec.parse("ismcts:temp=0.05").temperature() == 0.05


@pytest.mark.parametrize("text,message", [
    ("ismcts:level=0", f"level must be positive: an integer from 1 to {len(LEVELS)}, got '0'"),
    (f"ismcts:level={len(LEVELS) + 1}", f"level expects an integer from 1 to {len(LEVELS)}"),
    ("ismcts:level=easy", "level expects an integer"),
    ("ismcts:level=1.5", "level expects an integer"),
    ("ismcts:level=1,level=2", "option 'level' is given twice"),
    ("ismcts:temp=-1", "temp expects a finite number from 0 to 100"),
    ("ismcts:temp=nan", "temp expects a finite number"),
    ("cheat:level=1", "unknown option 'level' for cheat"),
    ("pimc:temp=1", "unknown option 'temp' for pimc"),
])
def test_bad_levels_are_one_line_errors(text, message):
    with pytest.raises(BotSpecError) as info:
        BotSpec.parse(text)
    assert message in str(info.value) and "\n" not in str(info.value)


# -- the softmax choice ----------------------------------------------------------


def _result(values, visits=None):
    visits = visits or [10] * len(values)
    actions = tuple(SimpleNamespace(action=a, visits=n, mean_reward=(v, 1 - v))
                    for a, (v, n) in enumerate(zip(values, visits)))
    return SimpleNamespace(mover=0, best_action=0, actions=actions)


def test_lower_temperature_picks_the_best_more_often():
    result = _result([0.60, 0.57, 0.50, 0.30])
    share = {}
    for t in (0.1, 0.03, 0.005):
        rng = random.Random(1)
        share[t] = sum(softmax_choice(result, t, rng) == 0 for _ in range(2000)) / 2000
    assert share[0.1] < share[0.03] < share[0.005]
    assert share[0.005] > 0.95
    rng = random.Random(2)
    picks = [softmax_choice(result, 0.03, rng) for _ in range(2000)]
    assert picks.count(1) > picks.count(2) > picks.count(3)  # close options are confused more often


def test_zero_temperature_and_unvisited_options():
    assert softmax_choice(_result([0.1, 0.9]), 0.0, random.Random(0)) == 0  # the search's own choice
    rng = random.Random(0)
    assert {softmax_choice(_result([0.5, 0.9], visits=[5, 0]), 10.0, rng) for _ in range(50)} == {0}


def test_a_levelled_game_is_reproducible_from_the_seeds():
    def game(seed):
        moves = []
        bots = [from_spec("ismcts:level=2", seed=seed), from_spec("ismcts:level=1", seed=seed + 1)]
        play_match(Game(2).new_initial_state(seed=5), bots, on_step=lambda s, p, a: moves.append(a))
        return moves
    assert game(7) == game(7)
    assert game(7) != game(8)


# -- a small ladder ----------------------------------------------------------------


def _score(low: str, high: str, deals: int) -> float:
    """The high spec's win share over ``deals`` seeded deals, each played from both seats."""
    total = 0.0
    for deal in range(deals):
        for high_seat in (0, 1):
            specs = [low, low]
            specs[high_seat] = high
            bots = [from_spec(s, seed=100 * deal + seat) for seat, s in enumerate(specs)]
            total += play_match(Game(2).new_initial_state(seed=deal), bots).returns[high_seat]
    return total / (2 * deals)


@pytest.mark.parametrize("low,high,deals", [(1, 3, 3), (3, 5, 3), (1, len(LEVELS), 1)])
def test_the_levels_are_ordered(low, high, deals):
    """Seeded 2-player games, each deal from both seats: the higher level scores more (the top level,
    10,000 iterations a decision, plays one deal to keep the test fast)."""
    assert _score(f"ismcts:level={low}", f"ismcts:level={high}", deals) > 0.5


def _ladder_script():
    import importlib.util
    import sys
    from pathlib import Path
    saved = list(sys.path)  # the script puts its checkout first on sys.path: undo that afterwards
    try:
        spec = importlib.util.spec_from_file_location(
            "levels_ladder", Path(__file__).resolve().parent.parent / "bench" / "levels_ladder.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        sys.path[:] = saved
    return mod


def test_the_ladder_is_ordered_at_three_seats(tmp_path, monkeypatch, capsys):
    """The 3-player ladder of docs/strength.md on a small scale: a tournament of levels K and K+1 at
    three seats for K = 1, 2 (12 games each: line-ups of one seat of one level against two of the
    other, alternating deal by deal), read by bench/levels_ladder.py. Each higher level wins the
    report's comparison and finishes ahead of the lower more often than not; the ladder climbs."""
    from kwsearch.tournament import TournamentSpec, run_tournament
    ladder = _ladder_script()
    for k in (1, 2):
        spec = TournamentSpec(bots=(f"ismcts:level={k}", f"ismcts:level={k + 1}"), players=3, games=12, seed=3105)
        assert [sorted(spec.seat_bots(i)) for i in (0, 3)] == [[0, 0, 1], [0, 1, 1]]  # 1 against 2, and back
        run_tournament(spec, tmp_path / f"pair3p-{k}-{k + 1}.jsonl", workers=1)
    pairs = [ladder.pair(k, prefix="pair3p", players=3, directory=tmp_path) for k in (1, 2)]
    for p in pairs:
        assert p["games"] == 12 and p["gap"] > 0 and p["score"] > 0.5, p
        assert p["ahead"]["share"] > 0.5 and p["ahead"]["elo"] > 0, p
    rows = ladder.table(3, tmp_path)
    ratings = [float(r.split(" | ")[8].split(" [")[0]) for r in rows[2:5]]  # the ladder column, levels 1-3
    assert ratings[0] == 0 < ratings[1] < ratings[2], rows
    assert "not played" in rows[5]  # level 4: no file, no rating
    with pytest.raises(SystemExit, match="expected 2 players"):  # a file of another player count
        ladder.pair(1, prefix="pair3p", players=2, directory=tmp_path)
    # --dir of a folder of three-player files (a former default's ladder): their table, no two-player one
    monkeypatch.setattr("sys.argv", ["levels_ladder.py", "--dir", str(tmp_path)])
    ladder.main()
    out = capsys.readouterr().out
    assert out.startswith(f"3 players ({tmp_path}/pair3p-K-L.jsonl):") and out.count("| level |") == 1
    assert rows[3] in out
