"""``kwsearch play --teach``: teaching mode in the terminal, with scripted input.

The planted mistake is tests/helpers.py's TEACH_*: four players, seed 2, the human at seat 3 chooses
the first start tile, and ``start B`` loses about 12 points of win % to ``start D``.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from helpers import TEACH_BAD, TEACH_BEST, TEACH_PLAYERS, TEACH_SEATS, TEACH_SEED
from kwsearch.cli import main
from kwsearch.game import Game
from kwsearch.play import HUMAN, Quit, Session, new_game_record
from kwsearch.teach import TeachSettings, check_decision

pytestmark = pytest.mark.one_engine

def play(tmp_path, *args, input, name="game.json", seed=TEACH_SEED, env=None):
    out = tmp_path / name
    result = CliRunner().invoke(main, ["play", "--seats", TEACH_SEATS, "--seed", str(seed), "--record", str(out),
                                       *args], input=input, env=env)
    return result, out


def planted():
    st = Game(TEACH_PLAYERS).new_initial_state(TEACH_SEED, engine="reference")
    return check_decision(st, st.parse_move(TEACH_BAD), 0, TeachSettings())


def test_a_blunder_is_pointed_out_and_undo_takes_it_back(tmp_path):
    result, out = play(tmp_path, "--teach", input=f"{TEACH_BAD}\nundo\n{TEACH_BEST}\nquit\n")
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())  # the message is wrapped at the terminal's width
    assert "Teaching mode: a mistake or a blunder is pointed out" in text and "5,000 iterations, seed 0" in text
    want = planted()
    assert f"{want.message()} Take back? Type 'undo' to take it back, Enter to play on." in text
    assert "took back your last decision" in text
    assert "start D (gp_start2+research) was better" in text
    assert text.count("was better") == 1  # the best move, played after the take-back, is not pointed out
    events = json.loads(out.read_text())["events"]
    assert events[0] == TEACH_BEST


@pytest.mark.parametrize("width", [80, 100])
def test_the_teaching_lines_fit_the_terminal(tmp_path, width):
    result, _ = play(tmp_path, "--teach", input=f"{TEACH_BAD}\nundo\nquit\n", env={"COLUMNS": str(width)})
    lines = [line for line in result.output.splitlines() if str(tmp_path) not in line]  # a path cannot wrap
    assert any("was better" in line for line in lines) and any("Teaching mode" in line for line in lines)
    assert all(len(line) <= width for line in lines), [line for line in lines if len(line) > width]


def test_enter_plays_on(tmp_path):
    result, out = play(tmp_path, "--teach", input=f"{TEACH_BAD}\n\nquit\n")
    assert result.exit_code == 0, result.output
    assert "was better" in result.output
    assert json.loads(out.read_text())["events"][0] == TEACH_BAD


def test_the_threshold_is_respected(tmp_path):
    st = Game(4).new_initial_state(11, engine="reference")
    cls = check_decision(st, st.parse_move("start B"), 0, TeachSettings("inaccuracy")).cls
    assert cls == "inaccuracy"  # start B in the game of seed 11: an inaccuracy, told only at the lowest threshold
    result, _ = play(tmp_path, "--teach", "inaccuracy", input="start B\n\nquit\n", seed=11)
    assert "Inaccuracy (-" in result.output
    result, _ = play(tmp_path, "--teach", "blunder", input="start B\nquit\n", name="other.json", seed=11)
    assert result.exit_code == 0 and "was better" not in result.output and "Teaching mode: a blunder" in result.output


def test_the_command_and_the_session_agree(tmp_path):
    """The library's session with the same settings says the same thing."""
    said: list[str] = []
    answers = iter([TEACH_BAD, "undo", "quit"])
    seats = TEACH_SEATS.split(",")
    assert seats[-1] == HUMAN
    rec = new_game_record(TEACH_PLAYERS, TEACH_SEED, seats)
    session = Session(rec, seats, tmp_path / "lib.json", seed=TEACH_SEED,
                      ask=lambda prompt: next(answers), say=said.append, teach=TeachSettings())
    with pytest.raises(Quit):
        session.run()
    assert " ".join(" ".join(said).split()).count(planted().message()) == 1
    assert rec["events"] == []  # taken back


@pytest.mark.parametrize("args, message", [
    (["--teach-iterations", "100"], "--teach-iterations and --teach-seed need --teach"),
    (["--teach", "awful"], "'awful' is not one of 'inaccuracy', 'mistake', 'blunder'"),
    (["--teach", "mistake", "--teach-iterations", "0"], "--teach-iterations"),
])
def test_bad_options_are_one_line_errors(tmp_path, args, message):
    result, out = play(tmp_path, *args, input="quit\n")
    assert result.exit_code == 2 and message in result.output
    assert not out.exists()


def test_teaching_needs_a_human_seat(tmp_path):
    out = tmp_path / "g.json"
    result = CliRunner().invoke(main, ["play", "--seats", "heuristic,random", "--teach", "--record", str(out)])
    assert result.exit_code != 0
    assert "--teach: no human seat to teach (the seats are all bots)" in result.output
    assert not out.exists()
