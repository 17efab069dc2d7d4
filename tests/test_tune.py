"""The tuner (kwsearch.tune, ``kwsearch tune``): NTBEA on paired games, logged and resumable."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from helpers import assert_one_line_error, run_cli
from kwsearch.tune import (NTupleModel, TuneError, TuneSettings, _mutate, load_log, load_space, parse_params,
                           result_json, run_tune)

pytestmark = pytest.mark.one_engine

TINY = dict(params=(("rollout", ("tempo", "smart")), ("money", (0, 0.2))), iterations=12, seed=5)


def _games(path):
    _, games, _ = load_log(path)
    return {g: {k: v for k, v in line.items() if k != "cpu"} for g, line in games.items()}


def test_tiny_runs_are_deterministic_from_the_seed(tmp_path):
    s = TuneSettings(**TINY)
    a = run_tune(s, 8, tmp_path / "a.jsonl")
    b = run_tune(s, 8, tmp_path / "b.jsonl", workers=2)  # the workers do not change the games
    assert _games(tmp_path / "a.jsonl") == _games(tmp_path / "b.jsonl")
    assert result_json(a) == result_json(b)
    assert a.games == 8 and a.played == 8 and a.best.games >= 2
    lines = _games(tmp_path / "a.jsonl")
    assert sorted(lines) == list(range(8))
    for g, line in lines.items():  # a pair shares its deal, the candidate's seat swaps
        mate = lines[g ^ 1]
        assert line["eval"] == g // 2 and line["deck_seed"] == mate["deck_seed"] and line["seat"] != mate["seat"]
        assert line["score"] == line["returns"][line["seat"]]
    other = run_tune(TuneSettings(**{**TINY, "seed": 6}), 8, tmp_path / "c.jsonl")
    assert _games(tmp_path / "c.jsonl") != lines and other.games == 8


def test_a_resumed_run_ends_as_an_uninterrupted_one(tmp_path):
    s = TuneSettings(**TINY)
    whole = run_tune(s, 12, tmp_path / "whole.jsonl")
    part = tmp_path / "part.jsonl"
    run_tune(s, 6, part)
    data = part.read_bytes()
    part.write_bytes(data[:-30])  # a kill in the middle of writing game 5: its line is cut short
    resumed = run_tune(s, 12, part)
    assert resumed.played == 7 and resumed.games == 12
    assert _games(part) == _games(tmp_path / "whole.jsonl")
    assert result_json(resumed)["best"] == result_json(whole)["best"]
    assert result_json(resumed)["top"] == result_json(whole)["top"]
    again = run_tune(s, 12, part)  # finished: nothing to play, the same answer
    assert again.played == 0 and result_json(again)["best"] == result_json(whole)["best"]


def test_a_log_with_other_settings_is_refused(tmp_path):
    log = tmp_path / "run.jsonl"
    run_tune(TuneSettings(**TINY), 2, log)
    with pytest.raises(TuneError, match=r"line 1: settings.iterations: the log has 12, this run asks for 13"):
        run_tune(TuneSettings(**{**TINY, "iterations": 13}), 4, log)
    with pytest.raises(TuneError, match=r"settings.params"):
        run_tune(TuneSettings(**{**TINY, "params": (("money", (0, 0.3)),)}), 4, log)
    lines = log.read_text().splitlines()
    game = json.loads(lines[1])
    game["spec"] = "ismcts:iterations=12,c=3"
    log.write_text("\n".join([lines[0], json.dumps(game), lines[2]]) + "\n")
    with pytest.raises(TuneError, match="game 0: spec: the log has 'ismcts:iterations=12,c=3'"):
        run_tune(TuneSettings(**TINY), 4, log)


@pytest.mark.parametrize("text, message", [
    ("", "line 1: expected the header of a tuning log"),
    ('{"format": "kwsearch-tournament/1"}\n', "line 1: format: expected 'kwsearch-tune/1'"),
    ('{"format": "kwsearch-tune/1", "settings": {}}\nnot json\n', "line 2: not a JSON object"),
    ('{"format": "kwsearch-tune/1", "settings": {}}\n{"game": 0}\n', "line 2: baseline: missing"),
    # crashers found by tests/fuzz/test_fuzz_runs.py (a ValueError and a RecursionError escaped json.loads)
    ("9" * 5000 + "\n", "line 1: not a JSON object (not valid JSON: an integer of 5000 digits"),
    ("[" * 100000 + "\n", "line 1: not a JSON object (not valid JSON: nested more than 32 levels deep)"),
    ('{"format": "kwsearch-tune/1", "settings": {}}\n{"game": 0, "score": NaN}\n',
     "line 2: not a JSON object (not valid JSON: NaN is not a JSON number"),
])
def test_bad_logs_are_one_line_errors(tmp_path, text, message):
    log = tmp_path / "bad.jsonl"
    log.write_text(text)
    with pytest.raises(TuneError, match=re.escape(message)):
        load_log(log)


@pytest.mark.parametrize("text, message", [
    ("[params]\nfoo = [1, 2]\n", "params.foo: unknown parameter (allowed: c, "),
    ("[params]\nmoney = [0, 2]\n", "money expects a finite number from 0 to 1, got '2'"),
    ("[params]\nmoney = 0.1\n", "params.money: expected a non-empty list of values"),
    ("[params]\nmoney = [0.1, 0.1]\n", "params.money: a value is listed twice"),
    ("players = 3\n[params]\nmoney = [0.1]\n", "players: expected 2 or 4, got 3"),
    ("colour = 1\n[params]\nmoney = [0.1]\n", "colour: unknown setting"),
    ("[params\n", "not valid TOML"),
    ("baseline = 'ismcts:fast=1'\n[params]\nmoney = [0.1]\n", "baseline: bot spec 'ismcts:fast=1': unknown option"),
    # found by tests/fuzz/test_fuzz_runs.py: a ValueError escaped tomllib, NaN got into the settings, a value
    # holding "," read as other options, and a knob's bad value was only noticed mid-run at a smart point
    ("[params]\nc = [" + "9" * 5000 + "]\n", "not valid TOML: "),
    ("[params]\nmoney = [nan]\n", "not valid TOML: nan is not a finite number"),
    ("a = " + "[" * 1000 + "]" * 1000 + "\n[params]\nmoney = [0.1]\n", "not valid TOML: nested more than 32"),
    ("[params]\nrollout = ['tempo,c=3']\n", 'params.rollout: the value "tempo,c=3" reads as rollout=tempo in a '
                                             "bot spec (a value cannot hold ',' or '='"),
    ("[params]\nrollout = [' tempo']\n", 'params.rollout: the value " tempo" reads as rollout=tempo'),
    ("neighbours = 100000000000000000000000\n[params]\nmoney = [0.1]\n",
     "neighbours: expected at most 100,000, got 100000000000000000000000"),
    ("batch = 1001\n[params]\nmoney = [0.1]\n", "batch: expected at most 1,000, got 1001"),
    ("[params]\nrollout = ['tempo', 'smart']\nrule = [5.0]\n",
     "params (rollout=smart, rule=5): bot spec 'ismcts:iterations=1000,rollout=smart,rule=5': rule expects a finite "
     "number from 0 to 1, got '5'"),
])
def test_bad_space_files_are_one_line_errors(tmp_path, text, message):
    f = tmp_path / "space.toml"
    f.write_text(text)
    with pytest.raises(TuneError) as exc:
        load_space(f)
    assert str(exc.value).startswith(str(f)) and message in str(exc.value)
    assert "\n" not in str(exc.value)


@pytest.mark.parametrize("text, message", [
    ("9" * 5000, "not valid JSON: an integer of 5000 digits"),
    ("[" * 100000, "not valid JSON: nested more than 32 levels deep"),
    ('{"params": {"money": [NaN]}}', "not valid JSON: NaN is not a JSON number"),
    ('{"params": {"money": [0.1]}, "params": {"c": [1]}}', 'not valid JSON: the key "params" appears twice'),
])
def test_bad_json_space_files_are_one_line_errors(tmp_path, text, message):
    f = tmp_path / "space.json"
    f.write_text(text)
    with pytest.raises(TuneError) as exc:
        load_space(f)
    assert str(exc.value).startswith(f"{f}: {message}") and "\n" not in str(exc.value)


def test_space_files_toml_and_json(tmp_path):
    t = tmp_path / "s.toml"
    t.write_text('players = 4\niterations = 50\nbaseline = "ismcts:rollout=random"\n'
                 '[params]\nrollout = ["tempo", "smart"]\nrule = [0.5, 1.0]\nc = [0.3, 0.5]\n')
    s = load_space(t, seed=3)
    assert s.players == 4 and s.seed == 3 and s.baseline_spec == "ismcts:iterations=50,rollout=random"
    assert s.spec_of((1, 0, 1)) == "ismcts:iterations=50,rollout=smart,rule=0.5,c=0.5"
    assert s.spec_of((0, 0, 1)) == "ismcts:iterations=50,rollout=tempo,c=0.5"  # no smart knobs without smart
    j = tmp_path / "s.json"
    j.write_text(json.dumps({"params": {"money": [0, 0.1]}, "seconds": 0.01}))
    assert load_space(j).spec_of((1,)) == "ismcts:seconds=0.01,money=0.1"
    assert load_space(j, iterations=40).spec_of((0,)) == "ismcts:iterations=40,money=0"
    assert parse_params(["rollout=tempo,smart", "money=0,0.5"]) == (("rollout", ("tempo", "smart")),
                                                                    ("money", (0, 0.5)))


def test_four_player_pairs_put_the_candidate_on_every_seat(tmp_path):
    s = TuneSettings(params=(("money", (0.3, 0.6)),), players=4, iterations=8, seed=1)
    res = run_tune(s, 8, tmp_path / "four.jsonl")
    lines = _games(tmp_path / "four.jsonl")
    assert sorted({line["seat"] for line in lines.values()}) == [0, 1, 2, 3]
    assert res.parity == 0.25 and all(len(line["money"]) == 4 for line in lines.values())


def test_ntbea_model_and_mutation():
    m = NTupleModel((2, 3), k=1.0)
    m.add((0, 1), 1.0)
    m.add((0, 2), 0.0)
    assert m.estimate((0, 1)) == pytest.approx((0.5 + 1.0 + 1.0) / 3)
    assert m.ucb((1, 0)) > m.ucb((0, 2))  # never seen: explored first
    rng = np.random.default_rng(0)
    for _ in range(200):
        nb = _mutate((1, 2), (2, 3), rng)
        assert nb != (1, 2) and 0 <= nb[0] < 2 and 0 <= nb[1] < 3


def test_cli_tune_and_resume(tmp_path):
    log = tmp_path / "cli.jsonl"
    args = ["tune", "-p", "rollout=tempo,smart", "-p", "money=0,0.2", "-i", "10", "-g", "4", "--log", log]
    first = run_cli(*args, "--json")
    assert first.exit_code == 0, first.output
    out = json.loads(first.stdout)
    assert out["games"] == 4 and out["best"]["spec"].startswith("ismcts:iterations=10,")
    again = run_cli(*args)
    assert again.exit_code == 0 and "best: ismcts:iterations=10" in again.stdout
    assert "0 played now, 4 from the log" in again.stdout
    assert_one_line_error(run_cli("tune", "-p", "rollout=tempo", "-i", "11", "-g", "4", "--log", log),
                          "settings.params")
    assert_one_line_error(run_cli("tune", "-p", "colour=red", "-g", "2", "--log", tmp_path / "x.jsonl"),
                          "params.colour: unknown parameter")
    assert_one_line_error(run_cli("tune", "-g", "2", "--log", tmp_path / "y.jsonl"), "give a SPACE file")
    assert_one_line_error(run_cli("tune", tmp_path / "none.toml", "-g", "2", "--log", tmp_path / "z.jsonl"),
                          "none.toml: no such file")
    assert not (tmp_path / "x.jsonl").exists()


def test_games_past_the_match_cap_are_logged_as_adjudicated(tmp_path, monkeypatch):
    import kwsearch.bots
    from kwsearch.game import win_shares
    monkeypatch.setattr(kwsearch.bots, "MAX_MATCH_DECISIONS", 8)
    s = TuneSettings(**TINY)
    res = run_tune(s, 4, tmp_path / "a.jsonl")
    lines = _games(tmp_path / "a.jsonl")
    assert all(line["adjudicated"] is True and line["decisions"] == 8 for line in lines.values())
    assert all(line["returns"] == win_shares(line["money"]) and line["score"] == line["returns"][line["seat"]]
               for line in lines.values())
    assert res.adjudicated == 4 and result_json(res)["adjudicated"] == 4
    again = run_tune(s, 4, tmp_path / "a.jsonl")  # the log with adjudicated lines reads back and resumes
    assert again.played == 0 and again.adjudicated == 4
    log = tmp_path / "a.jsonl"
    log.write_text(log.read_text().replace('"adjudicated":true', '"adjudicated":false', 1))
    with pytest.raises(TuneError, match="adjudicated: expected true"):
        load_log(log)
