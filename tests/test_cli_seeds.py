"""Seeds: one bound where they are taken and where they are read back (issue 27).

Every command's ``--seed`` (new, play, suggest, review, tournament, tune, serve), the
``seed`` of a tune space and of a tournament spec, and every file that holds a seed
(game records, results files, tuning logs) use :data:`kwsearch.seeds.MAX_SEED`
(0 to 2^64 - 1) through :func:`kwsearch.seeds.check_seed`. So a seed the CLI refuses
is refused in one line before anything is written, and whatever it accepts — the
largest seed included — writes files that ``report``, ``--resume`` and ``show``
read back. (Before, ``tournament --seed`` took 30 digits and wrote a file that
``report`` then refused.)
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from helpers import run_cli as run
from kwsearch.errors import InvalidRecordError
from kwsearch.records import new_record, replay
from kwsearch.rules import Game
from kwsearch.seeds import MAX_SEED, MIN_SEED, check_seed, parse_seed, seed_arg, seed_problem
from kwsearch.tournament import TournamentError, TournamentSpec, load_results
from kwsearch.tune import TuneError, TuneSettings, load_log, load_space

ROOT = Path(__file__).resolve().parent.parent
MIDGAME = ROOT / "examples" / "midgame-4p.json"
BAD = [-1, -(2 ** 63), 2 ** 64, 10 ** 30, 10 ** 400, "12x", "0x10", "1e3", " ", "٣"]


def usage_error(result) -> str:
    """A refused option: exit code 2, no traceback, and click's ``Error:`` line is one line
    naming --seed and the bound."""
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and "Traceback" not in result.stderr
    lines = [x for x in result.stderr.splitlines() if x.startswith("Error:")]
    assert len(lines) == 1 and result.stderr.rstrip().endswith(lines[0]), result.stderr
    assert "Invalid value for '--seed'" in lines[0] and f"0 to 2^64 - 1 ({MAX_SEED})" in lines[0]
    return lines[0]


def test_the_bound_is_64_bits_unsigned():
    assert (MIN_SEED, MAX_SEED) == (0, 2 ** 64 - 1)
    assert check_seed(0) == 0 and check_seed(MAX_SEED) == MAX_SEED
    for bad in (-1, MAX_SEED + 1, True, 1.0, "3", None, [1]):
        assert seed_problem(bad) is not None
        with pytest.raises(ValueError, match="^where: expected a seed"):
            check_seed(bad, "where")
    with pytest.raises(TuneError):
        check_seed(-5, "x", TuneError)
    assert parse_seed(" 18446744073709551615 ") == MAX_SEED and parse_seed("+7") == 7
    # thousands of digits are refused by their count, never converted
    with pytest.raises(ValueError, match="an integer of 5000 digits"):
        parse_seed("9" * 5000)
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=seed_arg)
    assert ap.parse_args(["--seed", str(MAX_SEED)]).seed == MAX_SEED


@pytest.mark.parametrize("seed", BAD)
@pytest.mark.parametrize("command", ["new", "play", "suggest", "review", "tournament", "tune", "serve"])
def test_every_command_refuses_a_seed_out_of_range_in_one_line(tmp_path, monkeypatch, command, seed):
    monkeypatch.chdir(tmp_path)
    if command == "serve":  # were the seed let through, the test must fail, not serve for ever
        import kwsearch.web.server

        def no_server(*args, **kwargs):
            raise AssertionError("serve started with a seed it should have refused")
        monkeypatch.setattr(kwsearch.web.server, "serve", no_server)
    rec = tmp_path / "game.json"
    rec.write_text(json.dumps(new_record(Game(2), seed=1)))
    args = {
        "new": ["new", "-o", tmp_path / "new.json"],
        "play": ["play", "--seats", "human,human"],
        "suggest": ["suggest", MIDGAME, "--iterations", "10"],
        "review": ["review", rec, "--iterations", "10"],
        "tournament": ["tournament", "-b", "random", "-b", "random", "-g", "2", "-o", tmp_path / "t.jsonl"],
        "tune": ["tune", "-p", "money=0,0.2", "-i", "4", "-g", "2", "--log", tmp_path / "t.jsonl"],
        "serve": ["serve", "--port", "1"],
    }[command]
    before = sorted(p.name for p in tmp_path.iterdir())
    err = usage_error(run(*args, "--seed", str(seed), input="quit\n"))
    if isinstance(seed, int) and seed < 0 and seed >= -(2 ** 63):
        assert f"{seed} is {seed & MAX_SEED}" in err  # what an older kwsearch's negative seed is today
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing written


def test_a_tournament_with_the_largest_seed_reads_back_for_report_resume_and_show(tmp_path):
    out = tmp_path / "t.jsonl"
    r = run("tournament", "-b", "random", "-b", "random", "-g", "2", "--seed", MAX_SEED, "-o", out)
    assert r.exit_code == 0, r.output + r.stderr
    header, games, _ = load_results(out)
    assert header["seed"] == MAX_SEED and sorted(games) == [0, 1]
    assert all(0 <= g["deck_seed"] <= MAX_SEED for g in games.values())
    r = run("report", out)
    assert r.exit_code == 0 and f"seed {MAX_SEED}" in r.output, r.output + r.stderr
    r = run("show", out, "--game", 1)
    assert r.exit_code == 0 and "game 1" in r.output, r.output + r.stderr
    r = run("tournament", "--out", out, "--resume", "--games", 4)
    assert r.exit_code == 0, r.output + r.stderr
    assert sorted(load_results(out)[1]) == [0, 1, 2, 3]
    r = run("tournament", "--out", out, "--resume", "--games", 4, "--seed", MAX_SEED)  # the same seed: agrees
    assert r.exit_code == 0, r.output + r.stderr


def test_a_game_and_a_tuning_log_with_the_largest_seed_read_back(tmp_path):
    rec = tmp_path / "g.json"
    assert run("new", "-n", 2, "--seed", MAX_SEED, "-o", rec).exit_code == 0
    assert json.loads(rec.read_text())["seed"] == MAX_SEED
    assert run("validate", rec).exit_code == 0
    assert run("show", rec).exit_code == 0
    assert run("suggest", rec, "--iterations", 20, "--seed", MAX_SEED).exit_code == 0
    r = run("review", rec, "--iterations", 5, "--seed", MAX_SEED)
    assert r.exit_code == 0, r.output + r.stderr
    played = tmp_path / "p.json"
    r = run("play", "--seats", "human,random", "--seed", MAX_SEED, "--record", played, input="quit\n")
    assert r.exit_code == 0, r.output + r.stderr
    r = run("play", "--resume", played, input="quit\n")
    assert r.exit_code == 0, r.output + r.stderr
    log = tmp_path / "tune.jsonl"
    args = ["tune", "-p", "money=0,0.2", "-i", "4", "-g", "2", "--log", log, "--seed", MAX_SEED]
    r = run(*args)
    assert r.exit_code == 0, r.output + r.stderr
    assert load_log(log)[0]["settings"]["seed"] == MAX_SEED
    r = run(*args[:6], "4", *args[7:])  # resumed with more games
    assert r.exit_code == 0, r.output + r.stderr


def test_readers_refuse_a_seed_out_of_range_naming_where(tmp_path):
    rec = new_record(Game(2), seed=1)
    for bad in (-1, 2 ** 64, 1.5, "1"):
        rec["seed"] = bad
        with pytest.raises(InvalidRecordError, match="^seed: expected a seed, an integer from 0 to 2"):
            replay(rec)
    # a results file: the header's seed and a game's deck_seed
    out = tmp_path / "t.jsonl"
    assert run("tournament", "-b", "random", "-b", "random", "-g", "2", "--seed", 5, "-o", out).exit_code == 0
    lines = out.read_text().splitlines()
    for i, key, value in ((0, "seed", 2 ** 64), (0, "seed", -3), (1, "deck_seed", 2 ** 64), (2, "deck_seed", -1)):
        obj = json.loads(lines[i])
        obj[key] = value
        bad = tmp_path / "bad.jsonl"
        bad.write_text("\n".join(lines[:i] + [json.dumps(obj)] + lines[i + 1:]) + "\n")
        with pytest.raises(TournamentError, match=re.escape(f"{bad}: line {i + 1}: ") + f".*{key}: expected a seed"):
            load_results(bad)
        r = run("report", bad)
        assert r.exit_code == 1 and len(r.stderr.strip().splitlines()) == 1 and "expected a seed" in r.stderr
    # a tuning log's deck_seed
    log = tmp_path / "tune.jsonl"
    assert run("tune", "-p", "money=0,0.2", "-i", "4", "-g", "2", "--log", log).exit_code == 0
    lines = log.read_text().splitlines()
    obj = json.loads(lines[1])
    obj["deck_seed"] = 2 ** 64
    bad = tmp_path / "bad-tune.jsonl"
    bad.write_text("\n".join([lines[0], json.dumps(obj)] + lines[2:]) + "\n")
    with pytest.raises(TuneError, match=re.escape(f"{bad}: line 2: deck_seed: expected a seed")):
        load_log(bad)


def test_specs_and_spaces_refuse_a_seed_out_of_range(tmp_path):
    for bad in (-1, 2 ** 64, True, 2.0):
        with pytest.raises(TournamentError, match="^seed: expected a seed") as info:
            TournamentSpec(bots=("random", "random"), players=2, games=2, seed=bad)
        assert info.value.field == "seed"
        with pytest.raises(TuneError, match="^seed: expected a seed"):
            TuneSettings(params=(("money", (0, 0.2)),), iterations=4, seed=bad)
    TournamentSpec(bots=("random", "random"), players=2, games=2, seed=MAX_SEED)
    space = tmp_path / "space.json"
    space.write_text(json.dumps({"params": {"money": [0, 0.2]}, "iterations": 4, "seed": 2 ** 64}))
    with pytest.raises(TuneError, match=re.escape(f"{space}: seed: expected a seed")):
        load_space(space)
    space.write_text(json.dumps({"params": {"money": [0, 0.2]}, "iterations": 4, "seed": MAX_SEED}))
    assert load_space(space).seed == MAX_SEED
    r = run("tune", space, "-g", "2", "--log", tmp_path / "x.jsonl", "--seed", 1)  # the command line wins
    assert r.exit_code == 0, r.output + r.stderr
