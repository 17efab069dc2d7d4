"""Fuzz targets for the files of long runs: tuning spaces, tuning logs, tournament results.

Inputs are real files mutated (tests/fuzz/fuzzing.py) and raw text: space files
(JSON and TOML, the TOML also garbled) written from spaces that use the search's
newer options; a tuning log and two tournament results files made once per module
by tiny real runs, their lines mutated, dropped or duplicated and their text cut
or garbled. The property, adapted to each reader: the file is refused with a clean
:class:`~kwsearch.errors.KwsearchError` (one line), **or** what it gives behaves —

* a space: every point drawn makes a bot spec that parses back to itself and
  builds a bot, and the settings survive being written as a space file and read
  again unchanged;
* a tuning log: the run it belongs to resumes from it (refused cleanly, or it
  ends with every game of the run in the log);
* a results file: its report is made, rendered and written as strict JSON, one
  game's record replays (or is refused cleanly), and the tournament resumes
  from it (refused cleanly, or it ends with every game of the schedule).

No game is played per example: the runs resume with the games' results taken
from the real files (``play_tune_game`` / ``play_scheduled_game`` replaced).
"""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

import kwsearch.tournament as T
import kwsearch.tune as TU
from fuzzing import FUZZ, clean, mutate, toml_value
from kwsearch.bots import BotSpec, from_spec
from kwsearch.features import shipped_path as eval_path
from kwsearch.prior import shipped_path as prior_path

pytestmark = pytest.mark.one_engine

HOSTILE = ["[" * 1000, "{" * 40, '{"a": 1e400}', '{"a": NaN}', '{"a": 1, "a": 2}', "9" * 5000, '"\\ud800"', "",
           "params = 1", "[params]\nmoney = [nan]\n", "[params]\nmoney = [1e400]\n",
           "[params]\nc = [" + "9" * 5000 + "]\n", "a = " + "[" * 1000 + "]" * 1000 + "\n",
           '{"params": {"money": [NaN]}}', '{"params": {"rollout": ["tempo,c=3"]}}']

#: Spaces written as files: the search's newer options among the parameters and in the base.
SPACES = [
    {"params": {"rollout": ["tempo", "smart"], "rule": [0.5, 1.0], "tempo": [0, 2], "c": [0.3, 0.5]},
     "players": 2, "iterations": 50, "baseline": "ismcts:rollout=random", "seed": 3, "k": 2.0, "neighbours": 10},
    {"params": {"cutoff": [0, 20], "prior": [0, 1.5], "money": [0, 0.2], "loop": ["open", "closed"]},
     "base": f"ismcts:priorw={prior_path(4)}", "players": 4, "seconds": 0.5, "batch": 2},
    {"params": {"eval": [str(eval_path(2))], "sell": [0.1, 0.9], "develop": [0, 1], "engineer": [0.5]},
     "base": "ismcts:cutoff=12,rollout=smart", "baseline": "ismcts:cutoff=12"},
]


def _space_text(space: dict, toml: bool) -> str:
    if not toml:
        return json.dumps(space, allow_nan=True)
    return "".join(f"{json.dumps(k)} = {toml_value(v)}\n" for k, v in space.items() if toml_value(v) is not None)


def _garble(data, text: str, words: list[str]) -> str:
    """``text`` with a cut tail, or with a few characters or ``words`` put in somewhere."""
    how = data.draw(st.sampled_from(["as is", "as is", "cut", "insert"]), label="garble")
    if how == "cut":
        return text[:data.draw(st.integers(0, len(text)), label="cut at")]
    if how == "insert":
        at = data.draw(st.integers(0, len(text)), label="at")
        return text[:at] + data.draw(st.sampled_from(words) | st.text(max_size=4), label="insert") + text[at:]
    return text


# ---------------------------------------------------------------------------
# Tuning spaces
# ---------------------------------------------------------------------------


def _space_behaves(settings: TU.TuneSettings, data, tmp_path_factory) -> None:
    for _ in range(data.draw(st.integers(1, 3), label="points")):
        point = tuple(data.draw(st.integers(0, len(values) - 1), label="value") for _, values in settings.params)
        spec = settings.spec_of(point)
        parsed = BotSpec.parse(spec)
        assert str(parsed) == spec
        for (name, values), i in zip(settings.params, point):  # each value stands for itself (or is left out)
            assert parsed.get(name) in (None, values[i]), (name, values[i], spec)
        from_spec(spec, seed=1)
    assert str(BotSpec.parse(settings.baseline_spec)) == settings.baseline_spec
    again = {k: v for k, v in settings.as_dict().items() if k != "v6"}
    path = tmp_path_factory.mktemp("s") / "again.json"
    path.write_text(json.dumps(again, allow_nan=False))  # no NaN or infinity gets into the log's header
    assert TU.load_space(path) == settings


@FUZZ
@given(data=st.data(), toml=st.booleans())
def test_fuzz_tune_space(data, toml, tmp_path_factory):
    space = mutate(data, data.draw(st.sampled_from(SPACES), label="space"))
    text = _space_text(space, toml)
    if toml:
        text = _garble(data, text, ["[", "]", "{", "=", '"', "\n", "#", "[params]\n", "a.b.c = 1\n", "nan", "inf"])
    path = tmp_path_factory.mktemp("s") / ("space.toml" if toml else "space.json")
    path.write_text(text)
    try:
        settings = TU.load_space(path)
    except Exception as exc:  # noqa: BLE001 - the property is about which exceptions
        clean(exc)
        event("refused")
        return
    _space_behaves(settings, data, tmp_path_factory)


@FUZZ
@given(data=st.data(), text=st.text(max_size=200) | st.sampled_from(HOSTILE), toml=st.booleans())
def test_fuzz_tune_space_text(data, text, toml, tmp_path_factory):
    path = tmp_path_factory.mktemp("s") / ("space.toml" if toml else "space.json")
    path.write_text(text)
    try:
        settings = TU.load_space(path)
    except Exception as exc:  # noqa: BLE001
        clean(exc)
        event("refused")
        return
    _space_behaves(settings, data, tmp_path_factory)


# ---------------------------------------------------------------------------
# Tuning logs
# ---------------------------------------------------------------------------

TUNE = TU.TuneSettings(params=(("rollout", ("tempo", "smart")), ("rule", (0.5, 1.0)), ("cutoff", (0, 30))),
                       iterations=4, seed=5, neighbours=5)
TUNE_GAMES = 4


@pytest.fixture(scope="module")
def tune_log(tmp_path_factory):
    """The lines of a real tuning log (4 games at 4 iterations) and its games by number."""
    path = tmp_path_factory.mktemp("tune") / "real.jsonl"
    TU.run_tune(TUNE, TUNE_GAMES, path)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    _, games, _ = TU.load_log(path)
    return lines, games


def _lines_text(data, lines: list) -> str:
    text = "".join(json.dumps(line, allow_nan=True, separators=(",", ":")) + "\n" for line in lines)
    return _garble(data, text, ["\n", "{", "}", ",", '"', "null", "NaN", "1e400", "9" * 30, "[" * 100])


@FUZZ
@given(data=st.data())
def test_fuzz_tune_log(data, tune_log, tmp_path_factory, monkeypatch):
    lines, games = tune_log
    text = _lines_text(data, mutate(data, lines))
    path = tmp_path_factory.mktemp("t") / "log.jsonl"
    path.write_text(text)
    try:
        TU.load_log(path)
    except Exception as exc:  # noqa: BLE001
        clean(exc)
        event("refused")
        return
    # Accepted: the run resumes from it, the missing games "played" by taking them from the real log.
    monkeypatch.setattr(TU, "play_tune_game", lambda task: games[task["game"]])
    try:
        res = TU.run_tune(TUNE, TUNE_GAMES, path)
    except Exception as exc:  # noqa: BLE001
        clean(exc)
        event("refused")
        return
    assert res.games == TUNE_GAMES and 0 <= res.best.score <= 1 and math.isfinite(res.best.estimate)
    _, after, _ = TU.load_log(path)
    assert set(range(TUNE_GAMES)) <= set(after)


# ---------------------------------------------------------------------------
# Tournament results
# ---------------------------------------------------------------------------

#: Values beyond what a game gives: huge, negative, fractional, just out of range.
EXTREME = [10 ** 400, -10 ** 30, 2 ** 63, -1, 7, 0.5, 1.0000001, 1e300, -1e300, -1e-300, 5e-324, 0, 1, 4, 1e9 + 1]

TOURNAMENTS = [T.TournamentSpec(bots=("random", "heuristic"), players=2, games=4, seed=1, sprt=T.SPRT()),
               T.TournamentSpec(bots=("random", "heuristic", "random"), players=3, games=3, seed=2)]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """For each tournament: the lines of its real results file and its games by index."""
    out = []
    for k, spec in enumerate(TOURNAMENTS):
        path = tmp_path_factory.mktemp("tour") / f"real{k}.jsonl"
        T.run_tournament(spec, path)
        _, games, _ = T.load_results(path)
        out.append(([json.loads(line) for line in path.read_text().splitlines()], games))
    return out


@FUZZ
@given(data=st.data())
def test_fuzz_results(data, results, tmp_path_factory, monkeypatch):
    k = data.draw(st.integers(0, len(TOURNAMENTS) - 1), label="tournament")
    lines, games = results[k]
    if data.draw(st.booleans(), label="records kept out"):
        # Most of a line is its record: mutate the rest, so edits reach the statistics' fields often.
        bare = mutate(data, [{key: v for key, v in line.items() if key != "record"} for line in lines])
        for line in bare:
            if isinstance(line, dict) and isinstance(line.get("game"), int) and line["game"] in games \
                    and "record" not in line:
                line["record"] = games[line["game"]]["record"]
            if isinstance(line, dict) and data.draw(st.booleans(), label="extreme value"):
                key = data.draw(st.sampled_from(sorted(line) or ["money"]), label="key")
                extreme = data.draw(st.sampled_from(EXTREME), label="extreme")
                if isinstance(line.get(key), list) and line[key]:  # one seat's value: the list keeps its length
                    line[key][data.draw(st.integers(0, len(line[key]) - 1), label="seat")] = extreme
                elif isinstance(line.get(key), dict) and line[key]:  # one entry (the SPRT's elo0, say)
                    line[key][data.draw(st.sampled_from(sorted(line[key])), label="entry")] = extreme
                else:
                    line[key] = extreme
        text = _lines_text(data, bare)
    else:
        text = _lines_text(data, mutate(data, lines))
    path = tmp_path_factory.mktemp("r") / "results.jsonl"
    path.write_text(text)
    try:
        header, got, _ = T.load_results(path)
    except Exception as exc:  # noqa: BLE001
        clean(exc)
        event("refused")
        return
    rep = T.make_report(header, got)
    assert T.report_text(rep)
    json.dumps(T.report_json(rep), allow_nan=False)  # the report's --json is strict JSON
    if got:
        index = data.draw(st.sampled_from(sorted(got)), label="game")
        try:
            T.load_game(path, index)
        except Exception as exc:  # noqa: BLE001
            clean(exc)
    # The tournament resumes from it, the missing games "played" by taking them from the real file.
    monkeypatch.setattr(T, "play_scheduled_game", lambda spec, i: games[i])
    try:
        T.run_tournament(TOURNAMENTS[k], path, resume=True, workers=1)
    except Exception as exc:  # noqa: BLE001
        clean(exc)
        event("refused")
        return
    _, after, _ = T.load_results(path)
    assert set(range(TOURNAMENTS[k].games)) <= set(after) or TOURNAMENTS[k].sprt is not None


@FUZZ
@given(text=st.text(max_size=200) | st.sampled_from(HOSTILE + [json.dumps({"format": T.RESULTS_FORMAT})]))
def test_fuzz_results_text(text, tmp_path_factory):
    for name, load in (("results.jsonl", T.load_results), ("log.jsonl", TU.load_log)):
        path = tmp_path_factory.mktemp("r") / name
        path.write_text(text + "\n")
        try:
            load(path)
        except Exception as exc:  # noqa: BLE001
            clean(exc)
