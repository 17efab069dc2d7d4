"""The ``kwsearch`` command line: new, show, validate, --version; every bad input is one line."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import kwsearch
from click.testing import CliRunner

from kwsearch import __version__
from kwsearch.cli import main
from kwsearch.formats import check_position
from kwsearch.records import count_decisions, new_record, replay
from kwsearch.rules import Game
from helpers import assert_one_line_error, cli_runner  # noqa: E402

pytestmark = pytest.mark.one_engine  # engine-independent (see conftest.py)

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def runner() -> CliRunner:
    return cli_runner()


def run(*args: str):
    return runner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def run_module(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """``python -m kwsearch.cli ARGS`` running the same kwsearch this test imported.

    ``-P`` keeps the working directory off ``sys.path``: in a clean checkout the
    source tree's ``kwsearch/`` has no compiled engine, the installed one has.
    """
    env = dict(os.environ)
    env["PYTHONPATH"] = str(Path(kwsearch.__file__).resolve().parent.parent)
    return subprocess.run([sys.executable, "-P", "-m", "kwsearch.cli", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


# ---------------------------------------------------------------------------
# new
# ---------------------------------------------------------------------------


def test_new_writes_a_record(tmp_path):
    out = tmp_path / "game.json"
    result = run("new", "-o", out, "-n", 3, "--seed", 5)
    assert result.exit_code == 0, result.output
    assert str(out) in result.stdout
    record = json.loads(out.read_text())
    assert record == new_record(Game(3), seed=5)
    assert replay(record).current_player() == 3 - 1  # the last seat chooses a start tile first


def test_new_defaults_to_four_players(tmp_path):
    out = tmp_path / "g.json"
    assert run("new", "--output", out).exit_code == 0
    record = json.loads(out.read_text())
    assert record["players"] == 4 and record["seed"] == 0


def test_new_refuses_to_overwrite(tmp_path):
    out = tmp_path / "game.json"
    out.write_text("precious\n")
    result = run("new", "-o", out, "--seed", 1)
    assert_one_line_error(result, str(out), "already exists", "--force")
    assert out.read_text() == "precious\n"
    assert not (tmp_path / "game.json.tmp").exists()
    result = run("new", "-o", out, "--seed", 1, "--force")
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text()) == new_record(Game(4), seed=1)


def test_new_with_components(tmp_path):
    out = tmp_path / "game.json"
    result = run("new", "-o", out, "-n", 2, "--components", EXAMPLES / "components-example.toml")
    assert result.exit_code == 0, result.output
    record = json.loads(out.read_text())
    assert record["components"]["gp_lap_length"] == 14
    assert run("validate", out).exit_code == 0


def test_new_bad_options(tmp_path):
    result = run("new", "-o", tmp_path / "x.json", "-n", 5)
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert not (tmp_path / "x.json").exists()
    assert_one_line_error(run("new", "-o", tmp_path / "no" / "such" / "dir.json"), "cannot write")


# ---------------------------------------------------------------------------
# show
# ---------------------------------------------------------------------------


def test_show_position():
    obj = json.loads((EXAMPLES / "midgame-4p.json").read_text())
    result = run("show", EXAMPLES / "midgame-4p.json")
    assert result.exit_code == 0, result.output
    assert f"4 players — round {obj['round']} of 3" in result.stdout
    assert all(f"seat {s}" in result.stdout for s in range(4))


@pytest.mark.parametrize("name, seats", [("game-4p.json", ["red", "blue", "green", "yellow"]),
                                         ("game-2p.json", ["red", "blue"])])
def test_show_records(name, seats):
    result = run("show", EXAMPLES / name)
    assert result.exit_code == 0, result.output
    assert "Game over" in result.stdout
    for s in seats:
        assert s in result.stdout
    record = json.loads((EXAMPLES / name).read_text())
    assert f"with {max(record['result']['money'])}" in result.stdout


def test_show_ply():
    path = EXAMPLES / "game-2p.json"
    record = json.loads(path.read_text())
    result = run("show", path, "--ply", 10)
    assert result.exit_code == 0, result.output
    seat = replay(record, upto=10).current_player()
    assert f"To decide: {record['setup']['seats'][seat]} (seat {seat})" in result.stdout
    assert result.stdout != run("show", path).stdout
    result0 = run("show", path, "--ply", 0)
    assert "round 1 of 3, setup phase" in result0.stdout


def test_show_json():
    path = EXAMPLES / "game-4p.json"
    record = json.loads(path.read_text())
    for ply in (0, 7, count_decisions(record)):
        result = run("show", path, "--ply", ply, "--json")
        assert result.exit_code == 0, result.output
        obj = json.loads(result.stdout)
        last = obj.pop("last_scoring", None)  # the last scoring's breakdown, once there is one
        assert obj == replay(record, upto=ply).observation()
        assert (last is None) == (ply < 20) and (last is None or last["round"] == 3)
    result = run("show", EXAMPLES / "midgame-4p.json", "--json")
    assert json.loads(result.stdout) == json.loads((EXAMPLES / "midgame-4p.json").read_text())


def test_show_ply_beyond_the_end():
    path = EXAMPLES / "game-2p.json"
    n = count_decisions(json.loads(path.read_text()))
    assert run("show", path, "--ply", n).exit_code == 0
    assert_one_line_error(run("show", path, "--ply", n + 1), str(path), f"ply {n + 1}", f"only {n} decisions")


def test_show_ply_on_a_position():
    assert_one_line_error(run("show", EXAMPLES / "midgame-4p.json", "--ply", 1), "--ply")


# ---------------------------------------------------------------------------
# validate
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("name, kind", [("midgame-4p.json", "valid position"),
                                        ("game-4p.json", "valid game record"),
                                        ("game-2p.json", "valid game record")])
def test_validate_valid_files(name, kind):
    result = run("validate", EXAMPLES / name)
    assert result.exit_code == 0, result.output
    assert f"{EXAMPLES / name}: {kind}" in result.stdout
    assert result.stderr == ""


def test_validate_record_in_progress(tmp_path):
    out = tmp_path / "g.json"
    run("new", "-o", out, "-n", 2, "--seed", 7)
    result = run("validate", out)
    assert result.exit_code == 0
    assert "0 events; seat 1 to decide" in result.stdout


def test_validate_lists_every_problem_of_a_position(tmp_path):
    pos = json.loads((EXAMPLES / "midgame-4p.json").read_text())
    pos["seats"][0]["money"] = -5
    pos["seats"][1]["workshops"][0] = "body 9"
    pos["research"]["display"][0] = "Zeppelin"
    pos["chain"] = pos["chain"][:-1]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(pos))
    problems = check_position(pos)
    assert len(problems) >= 4
    result = run("validate", path)
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert lines == [f"{path}: {p}: {m}" for p, m in problems]
    for want in ("$.seats[0].money", "$.seats[1].workshops[0]", "$.research.display[0]", "$.chain"):
        assert any(line.startswith(f"{path}: {want}: ") for line in lines), want


def test_validate_position_with_an_out_of_range_round(tmp_path):
    pos = json.loads((EXAMPLES / "midgame-4p.json").read_text())
    pos["round"] = 4
    path = tmp_path / "late.json"
    path.write_text(json.dumps(pos))
    result = runner().invoke(main, ["validate", str(path)])
    assert result.exit_code == 1
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert f"{path}: $.round: " in result.stderr


def test_validate_record_with_an_illegal_event(tmp_path):
    record = json.loads((EXAMPLES / "game-2p.json").read_text())
    i = next(i for i, e in enumerate(record["events"]) if i >= 3 and not e.startswith("reveal"))
    state = replay(record, upto=sum(1 for e in record["events"][:i] if not e.startswith("reveal")))
    legal = [state.action_to_text(a) for a in state.legal_actions()]
    move = next(m for m in ("market pass", "benz pass", "daimler pass") if m not in legal)
    record["events"][i] = move
    path = tmp_path / "bad-game.json"
    path.write_text(json.dumps(record))
    err = assert_one_line_error(run("validate", path), str(path), f"event {i}", repr(move))
    assert "legal" in err
    assert_one_line_error(run("show", path), str(path), f"event {i}")


def test_validate_components():
    result = run("validate", "--components", EXAMPLES / "components-example.toml")
    assert result.exit_code == 0, result.output
    assert "valid component file" in result.stdout
    assert run("validate", "--components", EXAMPLES / "components-example.json").exit_code == 0


@pytest.mark.parametrize("name, text, fragment", [
    ("bad.json", '{"gp_lap_length": "long"}', "gp_lap_length"),
    ("bad.toml", 'gp_lap_length = 14\nwheels = 4\n', "wheels"),
    ("broken.toml", 'gp_lap_length = = 3\n', "broken.toml"),
])
def test_validate_broken_components(tmp_path, name, text, fragment):
    path = tmp_path / name
    path.write_text(text)
    assert_one_line_error(run("validate", "--components", path), str(path), fragment)


def test_validate_component_file_without_the_flag():
    assert_one_line_error(run("validate", EXAMPLES / "components-example.json"), "--components")


# ---------------------------------------------------------------------------
# Bad input: one line on stderr, exit code != 0, no traceback
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["show", "validate"])
def test_missing_file(tmp_path, command):
    path = tmp_path / "nothing.json"
    assert_one_line_error(run(command, path), str(path), "no such file")


@pytest.mark.parametrize("command", ["show", "validate"])
def test_malformed_json(tmp_path, command):
    path = tmp_path / "broken.json"
    path.write_text('{"format": "kwsearch-game/1", "players": 2,')
    assert_one_line_error(run(command, path), str(path), "not valid JSON", "line 1")


@pytest.mark.parametrize("command", ["show", "validate"])
@pytest.mark.parametrize("content", [{"format": "kwsearch-game/9"}, {"players": 2}, [1, 2], "text"])
def test_wrong_format_tag(tmp_path, command, content):
    path = tmp_path / "other.json"
    path.write_text(json.dumps(content))
    assert_one_line_error(run(command, path), str(path), "format")


def test_bad_header_in_a_record(tmp_path):
    record = json.loads((EXAMPLES / "game-2p.json").read_text())
    record["players"] = 7
    path = tmp_path / "g.json"
    path.write_text(json.dumps(record))
    assert_one_line_error(run("validate", path), str(path), "players")
    assert_one_line_error(run("show", path), str(path), "players")


def test_show_invalid_position(tmp_path):
    pos = json.loads((EXAMPLES / "midgame-4p.json").read_text())
    pos["seats"][0]["money"] = -5
    pos["seats"][2]["workshops"].append("body 9")
    path = tmp_path / "p.json"
    path.write_text(json.dumps(pos))
    assert_one_line_error(run("show", path), str(path), "$.seats[0].money", "1 more problem")


# ---------------------------------------------------------------------------
# The real command in a subprocess
# ---------------------------------------------------------------------------


def test_version():
    result = run("--version")
    assert result.exit_code == 0
    assert result.stdout.strip() == f"kwsearch, version {__version__}"


def test_subprocess_version_and_show():
    proc = run_module("--version")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"kwsearch, version {__version__}"
    proc = run_module("show", "examples/game-2p.json", "--ply", "5")
    assert proc.returncode == 0, proc.stderr
    assert "Kraftwagen, 2 players" in proc.stdout


def test_subprocess_errors(tmp_path):
    proc = run_module("show", tmp_path / "missing.json")
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr + proc.stdout
    assert proc.stderr.strip().splitlines() == [f"Error: {tmp_path / 'missing.json'}: no such file"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "kwsearch-position/1", "players": 2, "phase": "action",
                               "chain": [], "seats": []}))
    proc = run_module("validate", bad)
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) >= 2 and all(line.startswith(f"{bad}: $") for line in lines)
    assert "Traceback" not in proc.stderr


def test_subprocess_new_and_validate(tmp_path):
    out = tmp_path / "new.json"
    proc = run_module("new", "-o", out, "-n", 2, "--seed", 3)
    assert proc.returncode == 0, proc.stderr
    proc = run_module("validate", out)
    assert proc.returncode == 0 and "valid game record" in proc.stdout


@pytest.mark.skipif(shutil.which("kwsearch") is None, reason="the console script is not installed")
def test_console_script():
    proc = subprocess.run(["kwsearch", "validate", str(EXAMPLES / "midgame-4p.json")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "valid position" in proc.stdout


def test_new_v6_writes_a_v6_record(tmp_path):
    from click.testing import CliRunner
    from kwsearch.cli import main
    out = tmp_path / "v6.json"
    res = CliRunner().invoke(main, ["new", "--v6", "-n", "3", "--seed", "2", "-o", str(out)])
    assert res.exit_code == 0, res.output
    rec = json.loads(out.read_text())
    assert rec["v6"] is True and rec["setup"]["chain"][-1].startswith("special A")
    shown = CliRunner().invoke(main, ["show", str(out)])
    assert shown.exit_code == 0 and "Specialty stacks" in shown.output
