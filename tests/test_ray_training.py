"""Training and tuning on Ray (issue 32 item 4): ``kwsearch tune --backend ray`` and
``bench/generation.py --backend ray`` give what the local runs give, resume, and refuse bad input
in one line (kwsearch.raytasks)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from helpers import assert_one_line_error, ctrl_c, proc_alive, proc_children, run_cli, start_cli, subprocess_env
from kwsearch.raytasks import check_address
from kwsearch.tune import TuneError, TuneSettings, load_log, result_json, run_tune

pytestmark = pytest.mark.one_engine

ROOT = Path(__file__).resolve().parent.parent
TINY = dict(params=(("rollout", ("tempo", "smart")), ("money", (0, 0.2))), iterations=12, seed=5, batch=2)
GEN = ["--gen", "1", "--seed", "3", "--games", "4", "--iterations", "8", "--players", "2", "3"]


@pytest.fixture(scope="module")
def ray_local():
    """One local Ray instance for the module (two CPUs); the runs find it started and leave it so."""
    ray = pytest.importorskip("ray")
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    if started:
        ray.shutdown()


@pytest.fixture()
def generation():
    path = list(sys.path)
    spec = importlib.util.spec_from_file_location("generation", ROOT / "bench" / "generation.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    yield mod
    sys.path[:] = path


def log_lines(path: Path) -> list[dict]:
    """The log's lines in file order, without the CPU time each game took (the only field that varies)."""
    out = []
    for raw in path.read_bytes().splitlines():
        line = json.loads(raw)
        line.pop("cpu", None)
        out.append(line)
    return out


# -- tune ----------------------------------------------------------------------------


def test_tune_on_ray_equals_the_local_run_line_for_line_and_resumes(tmp_path, ray_local):
    s = TuneSettings(**TINY)
    local = run_tune(s, 8, tmp_path / "local.jsonl")
    remote = run_tune(s, 8, tmp_path / "ray.jsonl", workers=2, backend="ray")
    assert log_lines(tmp_path / "local.jsonl") == log_lines(tmp_path / "ray.jsonl")  # same lines, same order
    assert [line["game"] for line in log_lines(tmp_path / "ray.jsonl")[1:]] == list(range(8))
    assert result_json(local) == result_json(remote) and remote.played == 8
    # A run on Ray killed in the middle of a line resumes, on Ray, to the uninterrupted run's log.
    part = tmp_path / "part.jsonl"
    part.write_bytes((tmp_path / "ray.jsonl").read_bytes()[:-25])
    resumed = run_tune(s, 8, part, workers=2, backend="ray")
    assert resumed.played == 1 and log_lines(part) == log_lines(tmp_path / "local.jsonl")
    assert result_json(resumed)["best"] == result_json(local)["best"]
    assert ray_local.is_initialized()  # a session the caller started is left running


def test_tune_command_on_ray_prints_what_the_local_one_prints(tmp_path, ray_local):
    args = ["tune", "-p", "money=0,0.2", "-i", "10", "-g", "4", "--seed", "2"]
    a = run_cli(*args, "--log", tmp_path / "a.jsonl")
    b = run_cli(*args, "--log", tmp_path / "b.jsonl", "--backend", "ray", "-w", "2")
    assert a.exit_code == 0 and b.exit_code == 0, b.output
    assert a.stdout == b.stdout and "best: ismcts:" in b.stdout
    assert log_lines(tmp_path / "a.jsonl") == log_lines(tmp_path / "b.jsonl")


def test_a_failing_ray_task_is_the_error_a_local_game_raises(ray_local):
    """A game that fails on Ray is the error it is locally (the task's kwsearch error, one line)."""
    from kwsearch import raytasks

    with raytasks.ray_session(2, None, TuneError) as session:
        got = []
        with pytest.raises(TuneError, match="^--param 'bad': expected name=value"):
            session.run("kwsearch.tune:parse_params", [(["money=0,1"],), (["bad"],), (["c=1"],)], got.append,
                        ordered=True)
        assert got == [(("money", (0, 1)),)]
        with pytest.raises(TuneError, match=r"^backend ray: a task failed \(.*no_such_name"):
            session.run("kwsearch.tune:no_such_name", [()], lambda r: None)


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_ctrl_c_of_tune_on_ray_stops_ray_and_the_log_resumes(tmp_path):
    """Ctrl-C: one line, no traceback, the Ray instance the command started gone (its processes
    with it), the log whole; the same command resumes it (here on the local backend: the same log)."""
    pytest.importorskip("ray")
    log = tmp_path / "tune.jsonl"
    args = ["tune", "-p", "c=0.3,0.5", "--log", str(log), "-i", "400", "-w", "2"]
    proc = start_cli(args + ["--games", "400", "--backend", "ray"], tmp_path)
    try:
        deadline = time.time() + 120
        while time.time() < deadline and (not log.exists() or log.read_bytes().count(b"\n") < 3):
            time.sleep(0.1)  # two games logged: Ray runs, more games are being played
        ray_procs, todo = set(), [proc.pid]
        while todo:
            kids = proc_children(todo.pop())
            ray_procs |= kids
            todo += kids
        assert len(ray_procs) >= 3, "Ray did not start its processes"
        text, _ = ctrl_c(proc, timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    lines = text.strip().splitlines()
    assert proc.returncode == 1 and "Traceback" not in text, text
    assert lines[-1].startswith("Error: ") and "interrupted" in lines[-1]
    deadline = time.time() + 20
    while time.time() < deadline and any(proc_alive(p) for p in ray_procs):
        time.sleep(0.1)
    assert not [p for p in ray_procs if proc_alive(p)], "Ray's processes outlived the command"
    logged = len(load_log(log)[1])
    assert logged >= 2 and log.read_bytes().endswith(b"\n")
    r = subprocess.run([sys.executable, "-m", "kwsearch.cli", *args, "--games", str(logged + 2)], cwd=tmp_path,
                       env=subprocess_env(), capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert len(load_log(log)[1]) >= logged + 2


def test_tune_backend_errors_are_one_line(tmp_path):
    base = ["tune", "-p", "money=0,0.2", "-i", "10", "-g", "2"]
    r = run_cli(*base, "--log", tmp_path / "a.jsonl", "--address", "127.0.0.1:6379")
    assert_one_line_error(r, "--address: applies only with --backend ray")
    r = run_cli(*base, "--log", tmp_path / "a.jsonl", "--backend", "ray", "--address", "no-port-here")
    assert_one_line_error(r, "--backend ray: cannot join Ray at no-port-here (expected HOST:PORT")
    r = run_cli(*base, "--log", tmp_path / "a.jsonl", "--backend", "mpi")
    assert r.exit_code == 2 and "--backend" in r.output
    assert not (tmp_path / "a.jsonl").exists()  # nothing written before the address is checked
    with pytest.raises(TuneError, match="^address: applies only with backend ray$"):
        run_tune(TuneSettings(**TINY), 2, tmp_path / "b.jsonl", address="127.0.0.1:1")
    with pytest.raises(TuneError, match="^backend: expected local or ray, got 'mpi'$"):
        run_tune(TuneSettings(**TINY), 2, tmp_path / "b.jsonl", backend="mpi")


def test_an_address_where_nothing_answers_is_one_line_at_once(tmp_path):
    """Ray itself would retry such an address for minutes; the command says so at once (a subprocess:
    no Ray session of this process may stand in for the cluster)."""
    pytest.importorskip("ray")
    for command in (["tune", "-p", "money=0,0.2", "-g", "2", "--log", str(tmp_path / "t.jsonl")],
                    ["tournament", "-b", "random", "-b", "heuristic", "--out", str(tmp_path / "r.jsonl")]):
        r = subprocess.run([sys.executable, "-P", "-m", "kwsearch.cli", *command, "--backend", "ray",
                            "--address", "127.0.0.1:1"], capture_output=True, text=True, env=subprocess_env(),
                           cwd=tmp_path, timeout=60)
        assert r.returncode == 1
        assert r.stderr.strip().splitlines() == [
            "Error: --backend ray: cannot join Ray at 127.0.0.1:1 (nothing answers there: Connection refused)"]
    assert not list(tmp_path.iterdir())


def test_tune_without_ray_installed_says_what_to_install(tmp_path):
    code = "import sys; sys.modules['ray'] = None\nfrom kwsearch.cli import main\nmain(sys.argv[1:])\n"
    base = [sys.executable, "-P", "-c", code, "tune", "-p", "money=0,0.2", "-i", "10", "-g", "2"]
    ok = subprocess.run(base + ["--log", str(tmp_path / "a.jsonl")], capture_output=True, text=True,
                        env=subprocess_env(), timeout=120)
    assert ok.returncode == 0 and "best: ismcts:" in ok.stdout, ok.stderr
    bad = subprocess.run(base + ["--log", str(tmp_path / "b.jsonl"), "--backend", "ray"], capture_output=True,
                         text=True, env=subprocess_env(), timeout=120)
    assert bad.returncode == 1 and "Traceback" not in bad.stderr
    assert bad.stderr.strip().splitlines()[-1] == \
        'Error: --backend ray: Ray is not installed (pip install ".[ray]" in the kwsearch clone)'


@pytest.mark.parametrize("address,want", [("10.0.0.5:6379", ("10.0.0.5", 6379)), ("ray://head:10001", ("head", 10001)),
                                          ("[::1]:6379", ("::1", 6379)), ("auto", None)])
def test_cluster_addresses(address, want):
    assert check_address(address) == want


@pytest.mark.parametrize("address", ["head", "head:", ":6379", "head:port", "head:70000", "he ad:1", "head:0"])
def test_malformed_cluster_addresses(address):
    with pytest.raises(ValueError, match="expected HOST:PORT"):
        check_address(address)


# -- a generation ------------------------------------------------------------------


def weights(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.glob("gen-1/eval-searched-*p.json"))}


def results(folder: Path) -> dict[str, dict]:
    """The games of every table file by number, without their wall time."""
    from kwsearch.tournament import load_results
    out = {}
    for p in sorted(folder.glob("gen-1/games/*.jsonl")):
        _, games, _ = load_results(p)
        out[p.name] = {i: {k: v for k, v in g.items() if k != "seconds"} for i, g in games.items()}
    return out


def test_a_generation_on_ray_equals_the_local_one_and_resumes(tmp_path, ray_local, generation):
    logs: list[str] = []
    local = generation.run(GEN + ["--dir", str(tmp_path / "local")], log=logs.append)
    assert [p.name for p in local] == ["eval-searched-2p.json", "eval-searched-3p.json"]
    generation.run(GEN + ["--dir", str(tmp_path / "ray"), "--backend", "ray", "--workers", "2"], log=logs.append)
    want = weights(tmp_path / "local")
    assert want and weights(tmp_path / "ray") == want  # byte for byte
    assert results(tmp_path / "ray") == results(tmp_path / "local")
    assert sorted(results(tmp_path / "local")) == [f"{n}p-{t}.jsonl" for n in (2, 3)
                                                   for t in ("heuristic", "mixed", "strengths")]
    doc = json.loads(want["eval-searched-2p.json"])
    t = doc["training"]
    assert t["script"] == "bench/generation.py" and t["seed"] == 3 and t["generation"] == 1
    assert t["command"] == ("python bench/generation.py --gen 1 --seed 3 --games 4 --iterations 8 --players 2 3 "
                            "--every 6 --l2 0.001 --holdout 0.2")
    assert t["records"] == ["2p-heuristic.jsonl", "2p-strengths.jsonl", "2p-mixed.jsonl"] and t["games"] == 12
    assert t["holdout_games"] == "the last of every table (interleaved)"
    # The fit takes the tables' games round by round: the held-out tail holds every table's last games.
    import train_eval
    tables = [tmp_path / "local" / "gen-1" / "games" / f"2p-{name}.jsonl" for name in ("heuristic", "mixed")]
    X, _, G, n = train_eval.recorded(tables, 2, 3, 6)
    Xi, _, Gi, ni = train_eval.recorded(tables, 2, 3, 6, interleave=True)
    assert n == ni == 8 and sorted(map(tuple, X.reshape(len(X), -1))) == sorted(map(tuple, Xi.reshape(len(Xi), -1)))
    for k in range(4):  # game k of each file: 2k and 2k + 1 interleaved, k and 4 + k in file order
        assert np.array_equal(Xi[Gi == 2 * k], X[G == k]) and np.array_equal(Xi[Gi == 2 * k + 1], X[G == 4 + k])
    # Killed in the middle of a table (a line cut short, the weights not written yet): the same command
    # plays only the missing games and writes the same bytes.
    ray = tmp_path / "ray" / "gen-1"
    table = ray / "games" / "3p-strengths.jsonl"
    data = table.read_bytes().splitlines(keepends=True)
    table.write_bytes(b"".join(data[:3]) + data[3][:40])
    (ray / "games" / "3p-mixed.jsonl").unlink()
    for p in ray.glob("eval-searched-*"):
        p.unlink()
    logs.clear()
    generation.run(GEN + ["--dir", str(tmp_path / "ray"), "--backend", "ray", "--workers", "2"], log=logs.append)
    assert weights(tmp_path / "ray") == want
    assert "3p-strengths.jsonl: 2 games played, 2 from the file" in logs[4] and "4 games played" in logs[5]
    assert "2p-heuristic.jsonl: 0 games played, 4 from the file" in logs[0]


def test_a_later_generation_searches_with_the_previous_weights(tmp_path, generation):
    folder = tmp_path / "gens"
    generation.run(GEN[:4] + ["--games", "2", "--iterations", "4", "--players", "3", "--dir", str(folder)],
                   log=lambda _: None)
    with pytest.raises(generation.GenerationError, match="gen-2: no weights for 3 players; run generation 2"):
        generation.run(["--gen", "3", "--seed", "3", "--players", "3", "--dir", str(folder)])
    spec = generation.search_spec(3, 4, folder / "gen-1")
    assert spec == f"ismcts:iterations=4,cutoff=30,eval={(folder / 'gen-1' / 'eval-searched-3p.json').resolve()}"
    assert generation.search_spec(2, 4, None) == "ismcts:iterations=4"
    from kwsearch.bots import BotSpec
    assert BotSpec.parse(spec).get("eval").endswith("eval-searched-3p.json")  # the weights load


def test_a_generation_folder_of_other_settings_is_refused(tmp_path, generation):
    folder = tmp_path / "gens"
    generation.run(GEN[:4] + ["--games", "2", "--iterations", "4", "--players", "2", "--dir", str(folder)],
                   log=lambda _: None)
    with pytest.raises(generation.GenerationError,
                       match=r"generation.json: settings.games: the generation has 2, this command asks for 3"):
        generation.run(GEN[:4] + ["--games", "3", "--iterations", "4", "--players", "2", "--dir", str(folder)])


def test_generation_command_errors_are_one_line(tmp_path):
    script = [sys.executable, "-P", str(ROOT / "bench" / "generation.py"), *GEN, "--dir", str(tmp_path)]
    for extra, want in ((["--address", "127.0.0.1:1"], "--address: applies only with --backend ray"),
                        (["--backend", "ray", "--address", "127.0.0.1:1"],
                         "generation.py: --backend ray: cannot join Ray at 127.0.0.1:1 (nothing answers there"),
                        (["--games", "1"], "expected --gen >= 1, --games >= 2")):
        r = subprocess.run(script + extra, capture_output=True, text=True, env=subprocess_env(), timeout=60)
        assert r.returncode != 0 and "Traceback" not in r.stderr
        assert want in r.stderr.strip().splitlines()[-1], r.stderr
    assert not list(tmp_path.iterdir())  # nothing written
