"""The table of search settings (kwsearch.settings) and what is generated from it."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kwsearch.bots import OPTIONS, BotSpec
from kwsearch.search import SearchConfig
from kwsearch.settings import ROLLOUTS, SETTING, SETTINGS, Setting, command_settings, config_json, spec_keys

pytestmark = pytest.mark.one_engine

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_settings_table_in_the_docs_is_up_to_date():
    env = dict(os.environ, KWSEARCH_PUREPYTHON="1")  # the table needs no compiled engine
    proc = subprocess.run([sys.executable, str(DOCS / "gen_settings.py"), "--check"], capture_output=True,
                          text=True, env=env)
    assert proc.returncode == 0, proc.stderr


def test_search_config_has_one_field_per_setting():
    assert [f.name for f in dataclasses.fields(SearchConfig)] == [s.name for s in SETTINGS]
    for s in SETTINGS:
        assert getattr(SearchConfig(), s.name) == s.field_default


def test_every_name_is_unique():
    for attr in ("name", "json", "flag"):
        names = [getattr(s, attr) for s in SETTINGS if getattr(s, attr)]
        assert len(names) == len(set(names)), attr
    keys = [k for bot in ("ismcts", "cheat", "pimc") for k in spec_keys(bot)]
    assert len(set(keys)) == len(set(spec_keys("ismcts")) | set(spec_keys("cheat")) | set(spec_keys("pimc")))


def test_bot_specs_take_the_table_keys():
    for bot in ("ismcts", "cheat", "pimc"):
        assert set(spec_keys(bot)) <= set(OPTIONS[bot])
    assert {"c", "money", "copp", "pprior", "prior", "priorw", "root", "rollout", "cutoff", "eval",
            "rule", "engineer"} <= set(spec_keys("pimc"))
    assert "loop" in OPTIONS["ismcts"] and "loop" not in OPTIONS["cheat"] and "workers" not in OPTIONS["pimc"]


def test_every_spec_key_reaches_its_setting():
    """Each spec key of the table sets the field of its setting (one name per setting)."""
    values = {"float": "0.5", "int": "3", "choice": None, "text": "tempo"}
    for key, (s, knob) in spec_keys("ismcts").items():
        if s.name in ("evaluation", "prior_weights"):
            continue  # file names: checked with their companions in test_evaluation / test_prior
        if knob is not None:
            _, config = BotSpec.parse(f"ismcts:rollout=smart,{key}=0.5").search_settings()
            assert config.playout[[k.name for k in s.knobs].index(key)] == 0.5
            continue
        text = s.words[1] if s.words else (s.choices[-1] if s.kind == "choice" else values[s.kind])
        _, config = BotSpec.parse(f"ismcts:{key}={text}").search_settings()
        want = True if s.words else (text if s.kind == "choice" else float(text) if s.kind == "float" else 3)
        assert getattr(config, s.name) == want, key


def test_cli_options_come_from_the_table():
    from kwsearch.cli import main
    for command in ("suggest", "review"):
        params = {p.name: p for p in main.commands[command].params}
        for s in command_settings(command):
            assert s.name in params and s.flag in params[s.name].opts
    assert "workers" not in {s.name for s in command_settings("review")}  # review's --workers is its own


def test_analysis_json_names_every_setting_in_effect():
    config = SearchConfig(c_opponents=1.5, prior_playout=0.2).for_players(2)
    obj = config_json(config)
    assert obj["c_opponents"] == 1.5 and obj["prior_playout"] == 0.2 and obj["playout"]["rule"] == 0.9
    plain = config_json(SearchConfig(rollout="tempo", cutoff=0).for_players(3))  # the former default
    assert "c_opponents" not in plain and "prior" not in plain and "playout" not in plain
    assert "playout" in config_json(SearchConfig().for_players(3))  # today's: smart playouts, with knobs



def test_rollout_names_are_the_c_enum():
    _search = pytest.importorskip("kwsearch._search")
    _playout = pytest.importorskip("kwsearch._playout")  # the owner of the RolloutKind enum
    assert ROLLOUTS == SETTING["rollout"].choices == _search.ROLLOUTS
    assert [_playout.ROLLOUT_KINDS[name] for name in ROLLOUTS] == [0, 1, 2]
    assert _search.ROLLOUT_KINDS is _playout.ROLLOUT_KINDS


def test_search_params_carry_every_setting_the_c_loop_reads():
    """The C struct is built once from the config: its fields have the settings' names and values."""
    _search = pytest.importorskip("kwsearch._search")
    from kwsearch.search import search_params
    config = SearchConfig(c_uct=0.9, money_weight=0.3, rollout="smart", playout=(0.5, 0.4, 0.3, 2.0, 1.0),
                          cutoff=7, prior=0.5, prior_playout=0.25, c_opponents=1.5, closed_loop=True)
    fields = search_params(config, 2).as_dict()
    assert fields == {"c_uct": 0.9, "c_opponents": 1.5, "money_weight": 0.3, "determinize": True,
                      "closed_loop": True, "rollout": "smart", "playout": (0.5, 0.4, 0.3, 2.0, 1.0), "cutoff": 7,
                      "prior": 0.5, "prior_playout": 0.25, "evaluation": 2, "prior_weights": 2}
    plain = search_params(SearchConfig(), 3).as_dict()  # today's three-player default: smart, cut at 30
    assert plain["c_opponents"] == plain["c_uct"] == 0.25 and plain["evaluation"] == 3 and plain["cutoff"] == 30
    assert plain["prior_weights"] is None and plain["rollout"] == "smart"
    former = search_params(SearchConfig(rollout="tempo", cutoff=0), 3).as_dict()  # no cut-off: no evaluation
    assert former["evaluation"] is None and former["rollout"] == "tempo"
    with pytest.raises(ValueError, match="for_players"):
        _search.Params(SearchConfig())  # the player-count defaults must be filled in first


def test_analysing_fills_in_its_own_defaults_and_keeps_explicit_values():
    """A hint or a review searches with the analysis defaults (``Setting.analysis``): the exploration
    constant 0.4 with three and four players, where a bot plays with 0.25; the same 0.3 with two. Only
    settings left to the defaults change, and filling them in twice changes nothing."""
    from kwsearch.search import ANALYSIS_C_UCT, DEFAULT_C_UCT
    assert ANALYSIS_C_UCT == {2: 0.3, 3: 0.4, 4: 0.4} and DEFAULT_C_UCT == {2: 0.3, 3: 0.25, 4: 0.25}
    for n in (2, 3, 4):
        analysing = SearchConfig().for_analysis(n)
        assert analysing.c_uct == ANALYSIS_C_UCT[n] and analysing.money_weight is None  # the rest: for_players
        assert analysing.for_analysis(n) == analysing
        assert analysing.for_players(n).c_uct == ANALYSIS_C_UCT[n]
        assert SearchConfig().for_players(n).c_uct == DEFAULT_C_UCT[n]
        assert SearchConfig(c_uct=0.9).for_analysis(n).c_uct == 0.9
    assert "analysing (hints, reviews): 0.3 with two players, 0.4 with three or four" in SETTING["c_uct"].default_text()
    with pytest.raises(ValueError, match="same player counts"):
        Setting("x", "float", "x", hi=1, default={2: 0.1, 3: 0.2, 4: 0.3}, analysis={2: 0.1})
    with pytest.raises(ValueError, match="by player count"):
        Setting("x", "float", "x", hi=1, default=0.1, analysis={2: 0.1, 3: 0.2, 4: 0.3})
