"""``kwsearch tournament`` / ``report``: schedule, results file, resume, SPRT, report, Ray, bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter

import pytest
from click.testing import CliRunner

from helpers import subprocess_env
from kwsearch.cli import main
from kwsearch.records import replay
from kwsearch.tournament import (SPRT, TournamentError, TournamentSpec, load_results, make_report, pair_score,
                                 ranks_of, run_tournament, wilson)

pytestmark = pytest.mark.one_engine



def run(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def games_without_timing(path) -> dict[int, dict]:
    _, games, _ = load_results(path)
    return {i: {k: v for k, v in g.items() if k != "seconds"} for i, g in games.items()}


# -- schedule ------------------------------------------------------------------


@pytest.mark.parametrize("bots,players,lineups", [
    (2, 2, [(0, 1)]),
    (3, 2, [(0, 1), (0, 2), (1, 2)]),
    (2, 4, [(0, 1, 0, 1)]),
    (2, 3, [(0, 1, 0), (1, 0, 1)]),
    (3, 4, [(0, 1, 2, 0), (1, 2, 0, 1), (2, 0, 1, 2)]),
    (4, 4, [(0, 1, 2, 3)]),
    (5, 4, [(0, 1, 2, 3), (0, 1, 2, 4), (0, 1, 3, 4), (0, 2, 3, 4), (1, 2, 3, 4)]),
])
def test_lineups_and_balanced_seats(bots, players, lineups):
    names = ("random", "heuristic", "ismcts:iterations=10", "pimc:iterations=10", "cheat:iterations=10")[:bots]
    spec = TournamentSpec(bots=names, players=players, games=1)
    assert spec.lineups() == lineups
    # Over one cycle every bot sits in every seat equally often.
    seat_counts = Counter()
    for i in range(spec.cycle):
        for seat, b in enumerate(spec.seat_bots(i)):
            seat_counts[(b, seat)] += 1
    per_bot = {b: {seat_counts[(b, s)] for s in range(players)} for b in range(bots)}
    assert all(len(v) == 1 for v in per_bot.values()), per_bot
    assert len({seat_counts[(b, 0)] for b in range(bots)}) == 1
    # The games of one rotation (a deal set) share the deck seed; the next rotation gets another.
    seeds = [spec.deck_seed(i) for i in range(2 * players)]
    assert len(set(seeds[:players])) == 1 and len(set(seeds[players:])) == 1 and seeds[0] != seeds[-1]
    assert [spec.deal(i) for i in range(2 * players)] == [0] * players + [1] * players


def test_rotation_moves_every_bot_one_seat():
    spec = TournamentSpec(bots=("random", "heuristic", "ismcts:iterations=10"), players=3, games=3)
    assert [spec.seat_bots(i) for i in range(3)] == [[0, 1, 2], [2, 0, 1], [1, 2, 0]]


def test_ranks_share_ties():
    assert ranks_of([10, 30, 20]) == [3.0, 1.0, 2.0]
    assert ranks_of([30, 30, 5, 40]) == [2.5, 2.5, 4.0, 1.0]


def test_pair_score_is_half_at_parity():
    two = {"bots": [0, 1], "returns": [1.0, 0.0]}
    assert pair_score(two, 0) == 1.0 and pair_score(two, 1) == 0.0
    # Three seats, bot 0 holds two: one win of three would be parity.
    g = {"bots": [0, 1, 0], "returns": [0.0, 1.0, 0.0]}
    assert pair_score(g, 0) == 0.0 and pair_score(g, 1) == 1.0
    g = {"bots": [0, 1, 0], "returns": [1 / 3, 1 / 3, 1 / 3]}
    assert pair_score(g, 0) == pytest.approx(0.5) and pair_score(g, 1) == pytest.approx(0.5)


def test_wilson_interval():
    lo, hi = wilson(10, 10)
    assert hi == 1.0 and 0.69 < lo < 0.73
    lo, hi = wilson(5, 10)
    assert lo < 0.5 < hi and hi - 0.5 == pytest.approx(0.5 - lo)


def test_sprt_llr_and_bounds():
    s = SPRT.parse("elo0=0,elo1=20")
    lo, hi = s.bounds
    assert lo == pytest.approx(-2.944, abs=1e-3) and hi == pytest.approx(2.944, abs=1e-3)
    assert s.llr([1.0, 1.0, 0.0, 1.0] * 25) > hi  # 75% over 100 games: clearly stronger
    assert s.llr([0.0, 1.0, 0.0, 0.0] * 25) < lo  # 25%: clearly not
    assert s.status([0.0, 1.0] * 5)[1] is None
    for bad in ("elo0=20,elo1=0", "elo0=x", "foo=1", "alpha=0.7"):
        with pytest.raises(TournamentError):
            SPRT.parse(bad)


# -- running, resuming, reporting ----------------------------------------------------


def test_tournament_cli_writes_results_and_report(tmp_path):
    out = tmp_path / "t.jsonl"
    r = run("tournament", "-b", "random", "-b", "heuristic", "--games", 4, "--seed", 3, "--out", out)
    assert r.exit_code == 0, r.output
    lines = out.read_text().splitlines()
    header = json.loads(lines[0])
    assert header["format"] == "kwsearch-tournament/1" and header["bots"] == ["random", "heuristic"]
    assert len(lines) == 5
    for line in lines[1:]:
        g = json.loads(line)
        assert set(g) >= {"game", "seats", "bots", "money", "ranks", "returns", "record"}
        # The full game record replays to the same money.
        assert replay(g["record"]).money() == g["money"]
        assert g["record"]["setup"]["seats"] == g["seats"]
    # Heuristic beats random (it wins every one of these seeded games).
    assert "heuristic" in r.output and "OpenSkill" in r.output and "Crosstable" in r.output
    rep = make_report(*load_results(out)[:2])
    by = {b.name: b for b in rep.bots}
    assert by["heuristic"].wins == 4 and by["random"].wins == 0
    assert by["heuristic"].mu > by["random"].mu
    assert by["heuristic"].rank == 1.0 and by["random"].rank == 2.0
    assert rep.crosstable[1][0] == (1.0, 4) and rep.crosstable[0][1] == (0.0, 4)
    # `report` re-prints the same report from the file.
    r2 = run("report", out)
    assert r2.exit_code == 0
    assert r2.output.strip() in r.output
    r3 = run("report", out, "--json")
    obj = json.loads(r3.output)
    assert obj["format"] == "kwsearch-tournament-report/1" and obj["games"] == 4
    assert {b["bot"] for b in obj["bots"]} == {"random", "heuristic"}


def test_resume_after_interruption_equals_uninterrupted_run(tmp_path):
    spec = TournamentSpec(bots=("random", "heuristic", "ismcts:iterations=150"), players=3, games=6, seed=11)
    whole = tmp_path / "whole.jsonl"
    run_tournament(spec, whole)

    cut = tmp_path / "cut.jsonl"
    seen = []

    def kill_after_two(done, total, line):
        seen.append(line["game"])
        if len(seen) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_tournament(spec, cut, progress=kill_after_two)
    with cut.open("a") as f:  # a line cut short by the kill
        f.write('{"game": 2, "deck_se')
    assert len(load_results(cut, allow_cut_tail=True)[1]) == 2
    r = run("tournament", "--out", cut, "--resume", "--workers", 2)
    assert r.exit_code == 0, r.output
    assert "played 4 games" in r.output and "2 were already in" in r.output
    assert games_without_timing(cut) == games_without_timing(whole)
    # Resuming a finished tournament plays nothing more; --games extends it.
    r = run("tournament", "--out", cut, "--resume")
    assert r.exit_code == 0 and "played 0 games" in r.output
    r = run("tournament", "--out", cut, "--resume", "--games", 7)
    assert r.exit_code == 0 and len(load_results(cut)[1]) == 7


def test_resume_after_a_killed_process(tmp_path):
    """A real kill (SIGKILL) of a running `kwsearch tournament`, then --resume: the same games."""
    import signal
    import time
    args = ["tournament", "-b", "heuristic", "-b", "ismcts:iterations=400", "--games", 8, "--seed", 2]
    whole = tmp_path / "whole.jsonl"
    assert run(*args, "--out", whole).exit_code == 0
    killed = tmp_path / "killed.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "kwsearch.cli", *map(str, args), "--out", str(killed)],
                            cwd=tmp_path, env=subprocess_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline:
        if killed.exists() and len(killed.read_text().splitlines()) >= 3:  # header + 2 games
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    _, before, _ = load_results(killed, allow_cut_tail=True)
    assert 2 <= len(before) < 8
    r = run("tournament", "--out", killed, "--resume")
    assert r.exit_code == 0, r.output
    assert games_without_timing(killed) == games_without_timing(whole)


def test_workers_give_the_same_games(tmp_path):
    spec = TournamentSpec(bots=("random", "heuristic"), players=2, games=4, seed=5)
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    run_tournament(spec, one, workers=1)
    run_tournament(spec, two, workers=2)
    assert games_without_timing(one) == games_without_timing(two)


def test_sprt_stops_when_decisive(tmp_path):
    out = tmp_path / "sprt.jsonl"
    r = run("tournament", "-b", "heuristic", "-b", "random", "--games", 200, "--sprt", "elo0=0,elo1=50",
            "--out", out)
    assert r.exit_code == 0, r.output
    n = len(load_results(out)[1])
    assert n < 200
    assert "H1 accepted" in r.output and "(the SPRT decided)" in r.output


def test_v6_tournament(tmp_path):
    out = tmp_path / "v6.jsonl"
    r = run("tournament", "-b", "random", "-b", "heuristic", "-b", "ismcts:iterations=100", "--games", 3,
            "--v6", "--out", out)
    assert r.exit_code == 0, r.output
    header, games, _ = load_results(out)
    assert header["v6"] is True and len(games) == 3
    for g in games.values():
        assert g["record"]["v6"] is True
        assert replay(g["record"]).money() == g["money"]
    # --resume keeps the variant from the file; asking for the other one is refused.
    assert run("tournament", "--out", out, "--resume", "--games", 4).exit_code == 0
    assert all(g["record"]["v6"] for g in load_results(out)[1].values())


def test_four_players_two_bots(tmp_path):
    out = tmp_path / "t4.jsonl"
    r = run("tournament", "-b", "random", "-b", "heuristic", "--players", 4, "--games", 4, "--out", out)
    assert r.exit_code == 0, r.output
    _, games, _ = load_results(out)
    for g in games.values():
        assert sorted(g["bots"]) == [0, 0, 1, 1] and len(g["money"]) == 4
    rep = make_report(*load_results(out)[:2])
    assert [b.seats for b in rep.bots] == [8, 8]


# -- Ray ---------------------------------------------------------------------------


def test_ray_backend_matches_local(tmp_path):
    pytest.importorskip("ray")
    spec_args = ["-b", "random", "-b", "heuristic", "--games", 4, "--seed", 9]
    local, remote = tmp_path / "local.jsonl", tmp_path / "ray.jsonl"
    assert run("tournament", *spec_args, "--out", local).exit_code == 0
    r = run("tournament", *spec_args, "--out", remote, "--backend", "ray", "--workers", 2)
    assert r.exit_code == 0, r.output
    assert games_without_timing(local) == games_without_timing(remote)
    headers = [{k: v for k, v in load_results(f)[0].items() if k != "workers"} for f in (local, remote)]
    assert headers[0] == headers[1]


def test_cli_works_without_ray(tmp_path):
    """With Ray not importable, the local backend works and --backend ray says what to install."""
    code = ("import sys; sys.modules['ray'] = None\n"
            "from kwsearch.cli import main\n"
            "main(sys.argv[1:])\n")
    base = [sys.executable, "-c", code, "tournament", "-b", "random", "-b", "heuristic", "--games", "2"]
    ok = subprocess.run(base + ["--out", str(tmp_path / "a.jsonl")], capture_output=True, text=True, cwd=tmp_path,
                        env=subprocess_env())
    assert ok.returncode == 0, ok.stderr
    assert "OpenSkill" in ok.stdout
    bad = subprocess.run(base + ["--out", str(tmp_path / "b.jsonl"), "--backend", "ray"], capture_output=True,
                         text=True, cwd=tmp_path, env=subprocess_env())
    assert bad.returncode != 0
    err = bad.stderr.strip().splitlines()
    assert err[-1] == 'Error: --backend ray: Ray is not installed (pip install ".[ray]" in the kwsearch clone)'
    assert "Traceback" not in bad.stderr
    assert not (tmp_path / "b.jsonl").exists()  # no file of a header only, to block the next run


# -- bad input ---------------------------------------------------------------------


def one_line_error(r, *fragments):
    assert r.exit_code != 0
    msg = r.output.strip().splitlines()
    assert len(msg) == 1 or (len(msg) == 2 and not msg[0].startswith("Error")), r.output
    assert msg[-1].startswith("Error: ")
    for f in fragments:
        assert f in msg[-1], msg[-1]
    assert r.exception is None or isinstance(r.exception, SystemExit)


def test_bad_bot_spec(tmp_path):
    r = run("tournament", "-b", "random", "-b", "ismcts:iters=5", "--out", tmp_path / "x.jsonl")
    one_line_error(r, "--bots", "unknown option 'iters'")
    r = run("tournament", "-b", "random", "-b", "alphazero", "--out", tmp_path / "x.jsonl")
    one_line_error(r, "unknown bot 'alphazero'")
    r = run("tournament", "-b", "random", "--out", tmp_path / "x.jsonl")
    one_line_error(r, "at least two")
    assert not (tmp_path / "x.jsonl").exists()


def test_unknown_option_values(tmp_path):
    r = run("tournament", "-b", "random", "-b", "heuristic", "--players", 5, "--out", tmp_path / "x.jsonl")
    assert r.exit_code == 2 and "--players" in r.output
    r = run("tournament", "-b", "random", "-b", "heuristic", "--backend", "mpi", "--out", tmp_path / "x.jsonl")
    assert r.exit_code == 2 and "--backend" in r.output
    r = run("tournament", "-b", "random", "-b", "heuristic", "-b", "ismcts", "--sprt", "elo0=0,elo1=20",
            "--out", tmp_path / "x.jsonl")
    one_line_error(r, "--sprt", "exactly two bots")


def test_existing_results_are_never_overwritten(tmp_path):
    out = tmp_path / "t.jsonl"
    out.write_text("my notes\n")
    r = run("tournament", "-b", "random", "-b", "heuristic", "--games", 2, "--out", out)
    one_line_error(r, str(out), "already exists", "--resume")
    assert out.read_text() == "my notes\n"


def test_resume_with_other_settings_is_refused(tmp_path):
    out = tmp_path / "t.jsonl"
    assert run("tournament", "-b", "random", "-b", "heuristic", "--games", 2, "--out", out).exit_code == 0
    before = out.read_text()
    r = run("tournament", "-b", "random", "-b", "ismcts", "--out", out, "--resume")
    one_line_error(r, str(out), "line 1: bots")
    r = run("tournament", "--out", out, "--resume", "--seed", 4)
    one_line_error(r, "line 1: seed")
    assert out.read_text() == before


def test_report_bad_files(tmp_path):
    one_line_error(run("report", tmp_path / "missing.jsonl"), "missing.jsonl", "no such file")
    out = tmp_path / "t.jsonl"
    assert run("tournament", "-b", "random", "-b", "heuristic", "--games", 2, "--out", out).exit_code == 0
    lines = out.read_text().splitlines()
    corrupt = tmp_path / "corrupt.jsonl"
    corrupt.write_text("\n".join([lines[0], lines[1], "{not json", lines[2]]) + "\n")
    one_line_error(run("report", corrupt), "corrupt.jsonl", "line 3", "not valid JSON")
    wrong = tmp_path / "wrong.jsonl"
    g = json.loads(lines[1])
    g["money"] = "lots"
    wrong.write_text("\n".join([lines[0], json.dumps(g)]) + "\n")
    one_line_error(run("report", wrong), "line 2: money: expected a list")
    other = tmp_path / "other.jsonl"
    other.write_text('{"format": "kwsearch-game/1"}\n')
    one_line_error(run("report", other), "line 1: format: expected 'kwsearch-tournament/1'")
    # A corrupt line in the middle also stops --resume (only a cut-off last line is forgiven).
    r = run("tournament", "--out", corrupt, "--resume")
    one_line_error(r, "line 3")


def test_openspiel_bots_in_a_tournament(tmp_path):
    pytest.importorskip("pyspiel")
    out = tmp_path / "os.jsonl"
    r = run("tournament", "-b", "openspiel-ismcts:iterations=30", "-b", "openspiel-mcts:iterations=30",
            "-b", "ismcts:iterations=200", "--players", 2, "--games", 6, "--out", out)
    assert r.exit_code == 0, r.output
    header, games, _ = load_results(out)
    assert len(games) == 6
    for g in games.values():
        assert replay(g["record"]).money() == g["money"]
    rep = make_report(header, games)
    assert [b.seats for b in rep.bots] == [4, 4, 4]


# -- the decision cap (adjudication, a match rule) --------------------------------


def game_digest(path, renamed: tuple[str, str] | None = None) -> str:
    """A digest of the games without their timings; ``renamed`` (old, new) writes a bot's spec as it was."""
    import hashlib
    games = games_without_timing(path)
    text = json.dumps([games[i] for i in sorted(games)], sort_keys=True)
    if renamed is not None:
        text = text.replace(renamed[0], renamed[1])
    return hashlib.sha256(text.encode()).hexdigest()


def test_capped_tournament_games_are_as_before(tmp_path):
    """The default cap never touches a normal game: this seeded tournament's games are byte for byte
    what kwsearch played before the cap existed (digest taken from that version). The search is that
    version's three-player default, spelled out since issue 32 changed the default (its playouts, and its
    exploration constant 0.4 since the seventeenth round: search.FORMER_DEFAULT), and named in the digest
    as that version named it."""
    out = tmp_path / "r.jsonl"
    former = "ismcts:iterations=30,rollout=tempo,cutoff=0,c=0.4"
    run_tournament(TournamentSpec(bots=("random", "heuristic", former), players=3, games=6, seed=5), out)
    header, games, _ = load_results(out)
    from kwsearch.bots import MAX_MATCH_DECISIONS
    assert header["max_decisions"] == MAX_MATCH_DECISIONS
    assert not any("adjudicated" in g for g in games.values())
    assert game_digest(out, (former, "ismcts:iterations=30")) == \
        "84f34af895ce9282064841f7354bb5c2496bf142ff4c0299b44507d22308975b"
    assert "Adjudicated" not in run("report", out).output


def test_tiny_cap_adjudicates_on_money_with_shared_ties(tmp_path):
    from kwsearch.game import win_shares
    out = tmp_path / "r.jsonl"
    r = run("tournament", "-b", "random", "-b", "heuristic", "--games", 2, "--seed", 3, "--max-decisions", 6,
            "--out", out)
    assert r.exit_code == 0, r.output
    header, games, _ = load_results(out)
    assert header["max_decisions"] == 6
    for g in games.values():
        assert g["adjudicated"] is True and g["decisions"] == 6
        assert g["returns"] == win_shares(g["money"])
        state = replay(g["record"])
        assert not state.is_terminal() and state.money() == g["money"]
    # Nobody has scored after six decisions: equal money, the win is shared.
    assert all(g["returns"] == [0.5, 0.5] for g in games.values())
    assert "Adjudicated: 2 games passed 6 decisions" in r.output
    assert "per bot: random 2, heuristic 2" in r.output
    rep = json.loads(run("report", out, "--json").output)
    assert rep["adjudicated"] == 2 and [b["adjudicated"] for b in rep["bots"]] == [2, 2]
    shown = run("show", out, "--game", 1)
    assert shown.exit_code == 0 and "Adjudicated: the game passed the decision cap (6 decisions)" in shown.output


def test_resume_keeps_the_files_cap_and_old_files_use_the_default(tmp_path):
    from kwsearch.bots import MAX_MATCH_DECISIONS
    out = tmp_path / "r.jsonl"
    assert run("tournament", "-b", "random", "-b", "random", "--games", 2, "--max-decisions", 7,
               "--out", out).exit_code == 0
    r = run("tournament", "--games", 4, "--out", out, "--resume")
    assert r.exit_code == 0, r.output
    _, games, _ = load_results(out)
    assert len(games) == 4 and all(g["decisions"] == 7 and g["adjudicated"] for g in games.values())
    r = run("tournament", "--games", 5, "--out", out, "--resume", "--max-decisions", 9)
    assert r.exit_code != 0 and "max_decisions" in r.output and "7" in r.output
    # A file written before the cap existed: no max_decisions in its header, no adjudicated keys.
    old = tmp_path / "old.jsonl"
    assert run("tournament", "-b", "random", "-b", "heuristic", "--games", 2, "--seed", 3,
               "--out", old).exit_code == 0
    lines = old.read_text().splitlines()
    header = json.loads(lines[0])
    del header["max_decisions"]
    old.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    before = games_without_timing(old)
    r = run("tournament", "--games", 4, "--out", old, "--resume")
    assert r.exit_code == 0, r.output
    h, games, _ = load_results(old)
    assert "max_decisions" not in h and len(games) == 4
    assert {i: games_without_timing(old)[i] for i in before} == before
    assert TournamentSpec(bots=("random", "heuristic"), players=2, games=1).max_decisions == MAX_MATCH_DECISIONS


@pytest.mark.parametrize("bad,msg", [('"adjudicated":false', "adjudicated: expected true"),
                                     ('"adjudicated":1', "adjudicated: expected true")])
def test_bad_adjudicated_key_is_refused(tmp_path, bad, msg):
    out = tmp_path / "r.jsonl"
    assert run("tournament", "-b", "random", "-b", "heuristic", "--games", 1, "--out", out).exit_code == 0
    text = out.read_text().replace('"game":0,', '"game":0,' + bad + ",", 1)
    out.write_text(text)
    with pytest.raises(TournamentError, match=msg):
        load_results(out)


def test_bad_max_decisions(tmp_path):
    r = run("tournament", "-b", "random", "-b", "heuristic", "--max-decisions", 0, "--out", tmp_path / "r.jsonl")
    assert r.exit_code != 0 and "--max-decisions: expected a number of decisions from 1" in r.output
    out = tmp_path / "h.jsonl"
    assert run("tournament", "-b", "random", "-b", "heuristic", "--games", 1, "--out", out).exit_code == 0
    lines = out.read_text().splitlines()
    header = json.loads(lines[0])
    header["max_decisions"] = "many"
    out.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    with pytest.raises(TournamentError, match="line 1: max_decisions: expected an integer"):
        load_results(out)


def test_a_stalled_tournament_game_is_adjudicated_and_recorded(tmp_path, monkeypatch):
    import kwsearch.bots
    from helpers import HireOnlyBot
    from kwsearch.game import win_shares
    monkeypatch.setattr(kwsearch.bots, "from_spec", lambda spec, seed=0: HireOnlyBot())
    out = tmp_path / "r.jsonl"
    run_tournament(TournamentSpec(bots=("random", "heuristic"), players=2, games=2, seed=1, max_decisions=300), out)
    _, games, _ = load_results(out)
    for g in games.values():
        assert g["adjudicated"] is True and g["decisions"] == 300
        assert g["returns"] == win_shares(g["money"]) and g["ranks"] == ranks_of(g["money"])
        assert replay(g["record"]).money() == g["money"]
    rep = make_report(*load_results(out)[:2])
    assert rep.adjudicated == 2 and [b.adjudicated for b in rep.bots] == [2, 2]


@pytest.mark.parametrize("key,value,msg", [
    # crashers found by tests/fuzz/test_fuzz_runs.py: the report's Wilson interval took the square root
    # of a negative number ("math domain error"), the mean money overflowed a float
    ("returns", [7, 0], "line 2: returns: expected numbers from 0 to 1, got 7"),
    ("returns", [-3, 4], "line 2: returns: expected numbers from 0 to 1, got -3"),
    ("returns", [0.5, 0.25], "line 2: returns: expected win shares that sum to 1, got [0.5, 0.25]"),
    ("money", [10 ** 400, 0], "line 2: not valid JSON: an integer of 401 digits"),
    ("money", [10 ** 20, 0], "line 2: money: expected integers from 0 to 1e+06, got 100000000000000000000"),
    ("money", [-5, 10], "line 2: money: expected integers from 0 to 1e+06, got -5"),
    ("ranks", [1e300, 1], "line 2: ranks: expected numbers from 1 to 2, got 1e+300"),
    ("ranks", [0, 1], "line 2: ranks: expected numbers from 1 to 2, got 0"),
    ("seconds", -5, "line 2: seconds: expected a number of seconds from 0 to 1e9, got -5"),
])
def test_out_of_range_game_values_are_refused(tmp_path, key, value, msg):
    out = tmp_path / "r.jsonl"
    run_tournament(TournamentSpec(bots=("random", "heuristic"), players=2, games=1, seed=3), out)
    header, game = out.read_text().splitlines()
    line = json.loads(game)
    line[key] = value
    out.write_text(header + "\n" + json.dumps(line) + "\n")
    with pytest.raises(TournamentError) as exc:
        load_results(out)
    assert f"{out}: {msg}" in str(exc.value) and "\n" not in str(exc.value)
    one_line_error(run("report", out), msg)


def test_sprt_of_a_results_file_keeps_elo_in_range(tmp_path):
    # found while fuzzing results files (tests/fuzz/test_fuzz_runs.py now edits the header's sprt): elo0 of
    # -1e308 passed SPRT.check (finite) and made the report's llr overflow (10 ** 2.5e305)
    out = tmp_path / "r.jsonl"
    run_tournament(TournamentSpec(bots=("random", "heuristic"), players=2, games=2, seed=3, sprt=SPRT()), out)
    header, *games = out.read_text().splitlines()
    h = json.loads(header)
    h["sprt"]["elo0"] = -1e308
    out.write_text("\n".join([json.dumps(h), *games]) + "\n")
    with pytest.raises(TournamentError) as exc:
        load_results(out)
    assert str(exc.value) == f"{out}: line 1: SPRT: elo0 expects a finite number (Elo within ±2000), got -1e+308"
    one_line_error(run("report", out), "line 1: SPRT: elo0 expects a finite number (Elo within ±2000)")
    with pytest.raises(TournamentError, match="elo1 expects a finite number"):
        SPRT(elo0=0, elo1=2001).check()
