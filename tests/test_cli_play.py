"""``kwsearch play``: full games with scripted human input, undo, hints, mirror mode, resume, bad input.

The human's answers are made by a seeded random "player" driving the library
session; the same answers are then typed into the real command, which must
reproduce the game event for event.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from helpers import subprocess_env
from kwsearch.cli import main
from kwsearch.play import HUMAN, PlayError, Quit, Session, new_game_record, parse_seats
from kwsearch.records import replay

pytestmark = pytest.mark.one_engine

ROOT = Path(__file__).resolve().parent.parent


def run(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


class ScriptedHuman:
    """Answers prompts at random (seeded) and keeps every answer typed."""

    def __init__(self, seed: int, extras: dict[int, list[str]] | None = None):
        self.rng = random.Random(seed)
        self.answers: list[str] = []
        self.menu: int = 0
        self.extras = extras or {}  # decision number -> commands typed before the move
        self.decisions = 0
        self.card_prompts = 0

    def say(self, text: str) -> None:
        m = re.match(r"\s+(\d+)\. ", text)
        if m:
            self.menu = int(m.group(1))

    def ask(self, prompt: str) -> str:
        if prompt.startswith("Which research card") or prompt.startswith("Which specialty tile"):
            self.card_prompts += 1
            options = re.findall(r"(\d+)=", prompt)
            answer = str(self.rng.randint(1, len(options)))
        else:
            pending = self.extras.get(self.decisions)
            if pending:
                answer = pending.pop(0)
            else:
                answer = str(self.rng.randint(1, self.menu))
                self.decisions += 1
        self.answers.append(answer)
        return answer


def scripted_game(tmp_path, seats, seed, mirror=False, extras=None, human_seed=1, v6=False):
    human = ScriptedHuman(human_seed, extras)
    rec = new_game_record(len(seats), seed, seats, v6=v6)
    session = Session(rec, seats, tmp_path / "lib.json", mirror=mirror, seed=seed, hint_iterations=200,
                      ask=human.ask, say=human.say)
    final = session.run()
    return human, session, final


def test_full_game_with_undo_and_hints_reproduced_by_the_command(tmp_path):
    seats = [HUMAN, "heuristic", "ismcts:iterations=200"]
    extras = {3: ["?", "board", "tile 99", "undo"], 9: ["undo", "help", "999"]}
    human, session, final = scripted_game(tmp_path, seats, seed=5, extras=extras)
    assert final.is_terminal()
    assert "undo" in human.answers and "?" in human.answers
    out = tmp_path / "cli.json"
    r = run("play", "--seats", ",".join(seats), "--seed", 5, "--record", out, "--hint-iterations", 200,
            input="\n".join(human.answers) + "\n")
    assert r.exit_code == 0, r.output[-2000:]
    cli_rec = json.loads(out.read_text())
    assert cli_rec["events"] == session.record["events"]
    assert cli_rec["result"]["money"] == final.money()
    assert cli_rec["setup"]["seats"] == seats
    assert replay(cli_rec).money() == final.money()
    text = r.output
    assert "Game over:" in text and "took back your last decision" in text
    assert "hints (200 iterations; money at the playout cut-off, 30 decisions on)" in text  # 3 players
    assert "is not legal here" in text or "tile 99" in text  # a bad move is explained, then asked again
    assert "no option 999" in text


def test_undo_takes_back_bot_moves_after_the_human_decision(tmp_path):
    seats = [HUMAN, "heuristic"]
    rec = new_game_record(2, 3, seats)
    answers = iter(["tile 4", "1"])  # the research tile, then its first face-up card
    said = []
    session = Session(rec, seats, tmp_path / "g.json", seed=3, ask=lambda p: next(answers), say=said.append)
    with pytest.raises(StopIteration):
        session.run()
    events = list(session.record["events"])
    deciders = session.deciders()
    assert deciders[-1] == 0 or 1 in deciders
    assert session.undo()
    # Back to the state before the human's last decision: its reveal and the bot moves after it are gone.
    assert session.deciders() and len(session.record["events"]) < len(events)
    assert json.loads((tmp_path / "g.json").read_text())["events"] == session.record["events"]
    assert session.state.current_player() == 0


def test_undo_with_nothing_to_undo(tmp_path):
    seats = [HUMAN, HUMAN]
    said = []
    answers = iter(["start A", "undo", "undo", "undo"])
    session = Session(new_game_record(2, 1, seats), seats, tmp_path / "g.json", ask=lambda p: next(answers),
                      say=said.append)
    with pytest.raises(StopIteration):
        session.run()
    assert "nothing to undo: no human decision yet" in said


def test_mirror_mode_asks_for_reveals(tmp_path):
    seats = [HUMAN, HUMAN]
    human, session, final = scripted_game(tmp_path, seats, seed=2, mirror=True, human_seed=4)
    assert human.card_prompts > 0
    reveals = [e for e in session.record["events"] if e.startswith("reveal")]
    assert sum(len(e.split(",")) for e in reveals) == human.card_prompts
    out = tmp_path / "mirror.json"
    # Set-up: keep the three defaults (empty answers), then the game.
    r = run("play", "--mirror", "--seats", "human,human", "--seed", 2, "--record", out,
            input="\n\n\n" + "\n".join(human.answers) + "\n")
    assert r.exit_code == 0, r.output[-2000:]
    cli_rec = json.loads(out.read_text())
    assert cli_rec["events"] == session.record["events"] and cli_rec["mirror"] is True
    assert replay(cli_rec).money() == final.money()
    assert "Which research card was turned up?" in r.output


def test_v6_mirror_game_asks_for_specialty_tiles(tmp_path):
    seats = [HUMAN, HUMAN, HUMAN]
    human, session, final = scripted_game(tmp_path, seats, seed=6, mirror=True, human_seed=2, v6=True)
    specials = [e for e in session.record["events"] if e.startswith("reveal special")]
    assert specials and session.record["v6"] is True
    out = tmp_path / "v6.json"
    r = run("play", "--mirror", "--v6", "--seats", "human,human,human", "--seed", 6, "--record", out,
            input="\n\n\n" + "\n".join(human.answers) + "\n")
    assert r.exit_code == 0, r.output[-2000:]
    cli_rec = json.loads(out.read_text())
    assert cli_rec["events"] == session.record["events"]
    assert "Which specialty tile was placed?" in r.output
    assert replay(cli_rec).money() == final.money()


def test_v6_game_against_bots(tmp_path):
    seats = [HUMAN, "heuristic"]
    human, session, final = scripted_game(tmp_path, seats, seed=4, v6=True)
    out = tmp_path / "v6b.json"
    r = run("play", "--v6", "--seats", "human,heuristic", "--seed", 4, "--record", out,
            input="\n".join(human.answers) + "\n")
    assert r.exit_code == 0, r.output[-2000:]
    assert json.loads(out.read_text())["events"] == session.record["events"]
    assert any(e.startswith("tile special") for e in session.record["events"])


def test_mirror_setup_from_the_table(tmp_path):
    out = tmp_path / "m.json"
    r = run("play", "--mirror", "--seats", "human,human", "--record", out,
            input="9 8 7 6 5 4 3 2 1 0\nB, C\nOpel, Bugatti\nquit\n")
    assert r.exit_code == 0, r.output
    rec = json.loads(out.read_text())
    assert rec["setup"]["chain"][2:] == [f"tile {t}" for t in (9, 8, 7, 6, 5, 4, 3, 2, 1, 0)]
    assert rec["setup"]["start_tiles_offered"] == ["B", "C"]
    assert [c.lower() for c in rec["setup"]["display"]] == ["opel", "bugatti"]
    r = run("play", "--mirror", "--seats", "human,human", "--record", tmp_path / "bad.json",
            input="\n\nNoSuchCard\n")
    assert r.exit_code != 0 and "setup.display[0]: unknown research card" in r.output
    assert not (tmp_path / "bad.json").exists()


def test_quit_and_resume(tmp_path):
    out = tmp_path / "g.json"
    r = run("play", "--seats", "human,heuristic", "--seed", 8, "--record", out, input="1\n1\n1\nquit\n")
    assert r.exit_code == 0 and "continue with: kwsearch play --resume" in r.output
    first = json.loads(out.read_text())["events"]
    assert first
    # Input ends (Ctrl-D) mid-game: saved as well.
    r = run("play", "--resume", out, input="1\n")
    assert r.exit_code == 0 and "saved" in r.output
    second = json.loads(out.read_text())["events"]
    assert second[:len(first)] == first and len(second) > len(first)
    # Finish it with a scripted player reading the menu.
    human = ScriptedHuman(3)
    rec = json.loads(out.read_text())
    session = Session(rec, [HUMAN, "heuristic"], tmp_path / "lib.json", seed=8, ask=human.ask, say=human.say)
    session.run()
    r = run("play", "--resume", out, "--seed", 8, input="\n".join(human.answers) + "\n")
    assert r.exit_code == 0 and "Game over" in r.output
    assert json.loads(out.read_text())["events"] == session.record["events"]


def test_play_in_a_real_terminal_process(tmp_path):
    """A true subprocess: the installed ``kwsearch`` command when it is on PATH, stdin piped."""
    out = tmp_path / "p.json"
    exe = shutil.which("kwsearch")
    cmd = [exe] if exe else [sys.executable, "-m", "kwsearch.cli"]
    proc = subprocess.run(cmd + ["play", "--seats", "human,random", "--seed", "0", "--record", str(out)], input="2\nquit\n",
                          capture_output=True, text=True, cwd=tmp_path, timeout=120, env=subprocess_env())
    assert proc.returncode == 0, proc.stderr
    assert "P1 (seat 0) to decide" in proc.stdout
    assert json.loads(out.read_text())["events"]


def test_parse_seats():
    assert parse_seats("human,ismcts:seconds=2,c=0.5,heuristic") == ["human", "ismcts:seconds=2,c=0.5", "heuristic"]
    assert parse_seats("Human,random") == ["human", "random"]
    for bad, msg in [("human", "2 to 4 seats"), ("human,robot", "unknown bot 'robot'"), ("human,,random", "empty"),
                     ("human,ismcts:iterations=0", "must be positive")]:
        with pytest.raises(PlayError, match=msg):
            parse_seats(bad)


def test_bad_input(tmp_path):
    def one_line(r, *frags):
        assert r.exit_code != 0
        lines = r.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: "), r.output
        for f in frags:
            assert f in lines[0], lines[0]

    one_line(run("play", "--seats", "human,robot", "--record", tmp_path / "a.json"), "--seats", "unknown bot")
    existing = tmp_path / "mine.json"
    existing.write_text("precious")
    one_line(run("play", "--seats", "human,random", "--record", existing), "already exists")
    assert existing.read_text() == "precious"
    one_line(run("play", "--resume", tmp_path / "missing.json"), "missing.json")
    pos = ROOT / "examples" / "midgame-4p.json"
    one_line(run("play", "--resume", pos), "expected 'kwsearch-game/1'")
    one_line(run("play", "--mirror", "--seats", "human,heuristic", "--record", tmp_path / "b.json"),
             "every seat must be human")
    r = run("play", "--seats", "human,random", "--players", 3)
    assert r.exit_code == 2


def test_quit_exception_is_raised_on_end_of_input(tmp_path):
    def ask(prompt):
        raise EOFError
    session = Session(new_game_record(2, 0, [HUMAN, HUMAN]), [HUMAN, HUMAN], tmp_path / "q.json", ask=ask,
                      say=lambda s: None)
    with pytest.raises(Quit):
        session.run()
    assert (tmp_path / "q.json").exists()


def test_only_bots_seated_is_capped_and_adjudicated(tmp_path, monkeypatch):
    import kwsearch.bots
    monkeypatch.setattr(kwsearch.bots, "MAX_MATCH_DECISIONS", 12)
    said: list[str] = []
    rec = new_game_record(2, 3, ["random", "heuristic"])
    session = Session(rec, ["random", "heuristic"], tmp_path / "bots.json", seed=3, hint_iterations=200,
                      ask=lambda prompt: "", say=said.append)
    final = session.run()
    assert not final.is_terminal()
    text = "\n".join(said)
    assert "Adjudicated: only bots are seated and the game passed 12 decisions" in text
    from kwsearch.game import win_shares
    shares = win_shares(final.money())
    assert all(f"{session.names[s]} {m} (win share {w:g})" in text
               for s, (m, w) in enumerate(zip(final.money(), shares)))
    assert not replay(json.loads((tmp_path / "bots.json").read_text())).is_terminal()


def test_a_human_seat_has_no_cap(tmp_path, monkeypatch):
    import kwsearch.bots
    monkeypatch.setattr(kwsearch.bots, "MAX_MATCH_DECISIONS", 12)
    _, _, final = scripted_game(tmp_path, [HUMAN, "random"], seed=4)
    assert final.is_terminal()


def test_two_player_hints_say_their_money_is_at_the_playout_cut_off(tmp_path):
    """The two-player default search stops its playouts after 15 decisions (docs/strength.md):
    the hints' money is the money there, and they say so; so do the three- and four-player defaults
    (30 decisions)."""
    two = run("play", "--seats", f"{HUMAN},heuristic", "--seed", 4, "--record", tmp_path / "a.json",
              "--hint-iterations", 150, input="?\nquit\n")
    assert "money at the playout cut-off, 15 decisions on" in two.output and "money@cut " in two.output
    four = run("play", "--seats", f"{HUMAN},heuristic,heuristic,heuristic", "--seed", 4, "--record",
               tmp_path / "b.json", "--hint-iterations", 150, input="?\nquit\n")
    assert "money at the playout cut-off, 30 decisions on" in four.output and "money@cut " in four.output
    three = run("play", "--seats", f"{HUMAN},heuristic,heuristic", "--seed", 4, "--record",
                tmp_path / "c.json", "--hint-iterations", 150, input="?\nquit\n")
    assert "money at the playout cut-off, 30 decisions on" in three.output and "money@cut " in three.output


def test_a_game_without_seed_gets_a_random_seed_and_a_name_that_does_not_give_it_away(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for _ in range(2):
        r = run("play", "--seats", "random,random")
        assert r.exit_code == 0, r.output
    files = sorted(tmp_path.glob("kwsearch-game-*.json"))
    assert len(files) == 2
    seeds = []
    for f in files:
        assert re.fullmatch(r"kwsearch-game-[0-9a-f]{12}\.json", f.name), f.name
        record = json.loads(f.read_text())
        seeds.append(record["seed"])
        assert str(record["seed"]) not in f.name
        replay(record)  # the record reads back and replays
    assert seeds[0] != seeds[1]  # a new deck each game, kept in its record
