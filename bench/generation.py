"""One generation of the searched evaluation: play varied tables, fit the evaluation to them.

    python bench/generation.py --gen 1 --seed 17                               # 2, 3, 4 players, locally
    python bench/generation.py --gen 1 --seed 17 --workers 2                   # two games at once
    python bench/generation.py --gen 1 --seed 17 --backend ray --workers 64 --address HEAD:6379
    python bench/generation.py --gen 2 --seed 17 --install                     # also ship the weights

For each player count (``--players``, default 2 3 4) a generation plays three
**tables** (docs/evaluation.md, "Generations"), each a ``kwsearch tournament``
of ``--games`` games on fresh decks drawn from ``(--seed, --gen, players,
table)``:

* ``heuristic``: one search seat against the heuristic in every other seat;
* ``strengths``: searches of three strengths (``--iterations`` / 4, × 1, × 4);
* ``mixed``: the heuristic, the search at ``--iterations`` and at a quarter of
  it, and the former default (tempo playouts), with the V6 specialty tiles.

The search of generation 1 is today's default (``ismcts``); from generation 2 on
its seats score their playouts' cut-off with the previous generation's weights
(``eval=<--dir>/gen-<K-1>/eval-searched-<N>p.json``, at the player count's
default cut-off; before issue 32's ninth round three players, whose default had
none, used 20 decisions), so each generation learns from games its predecessor
played. Games go to
``<--dir>/gen-<K>/games/<N>p-<table>.jsonl`` through ``run_tournament``: locally
(``--workers`` processes) or as Ray tasks (``--backend ray``, a local Ray
instance or the cluster at ``--address``), and an interrupted generation resumes
from those files when the same command runs again.

Then the evaluation is fitted to the games' records (bench/train_eval.py's
``--records`` path: positions about every ``--every`` decisions, gaps drawn from
the seed, the last ``--holdout`` share of every table's games held out) and written as
``<--dir>/gen-<K>/eval-searched-<N>p.json``; ``--install`` writes it over the
shipped ``kwsearch/data/eval-searched-<N>p.json`` too (never without it). A
weights file holds the command that regenerates it (without the backend, the
workers and the folder, which do not change it), the seed and this script; the
fit's CPU time is printed, not stored, so the same command writes the same bytes
whichever backend, worker count or interruptions it had.

``<--dir>/gen-<K>/generation.json`` records the settings; a rerun with other
settings is refused (one line naming the setting). ``--dir`` defaults to
``bench/results/generations``.
"""

from __future__ import annotations

import argparse
import json
import importlib.util
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
if importlib.util.find_spec("kwsearch") is None:  # not installed: the checkout's own (built in place)
    sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from kwsearch.errors import KwsearchError  # noqa: E402
from kwsearch.features import shipped_path  # noqa: E402
from kwsearch.fileio import write_json_atomic  # noqa: E402
from kwsearch.jsonload import loads_json, read_text  # noqa: E402
from kwsearch.raytasks import check_cluster  # noqa: E402
from kwsearch.search import FORMER_DEFAULT  # noqa: E402
from kwsearch.seeds import derive_seed, seed_arg  # noqa: E402
from kwsearch.settings import SETTING  # noqa: E402
from kwsearch.tournament import TournamentSpec, run_tournament  # noqa: E402
from trainlib import write_weights  # noqa: E402

FORMAT = "kwsearch-generation/1"
TABLES = ("heuristic", "strengths", "mixed")
#: The settings that decide a generation's games and weights (recorded in generation.json).
SETTINGS = ("gen", "seed", "games", "iterations", "players", "every", "l2", "holdout")


class GenerationError(KwsearchError):
    """A bad setting or a generation folder that belongs to other settings (one line)."""


def search_spec(players: int, iterations: int, previous: Path | None) -> str:
    """The search of a generation: today's default, or with the weights in the previous generation's
    folder ``previous``."""
    if previous is None:
        return f"ismcts:iterations={iterations}"
    cutoff = SETTING["cutoff"].default_for(players)  # every player count's default has one (issue 32)
    weights = (previous / shipped_path(players, "searched").name).resolve()
    return f"ismcts:iterations={iterations},cutoff={cutoff},eval={weights}"


def tables(players: int, iterations: int, previous: Path | None) -> dict[str, tuple[list[str], bool]]:
    """{table: (bot specs, v6)} of one player count."""
    quarter = max(1, iterations // 4)
    s = search_spec(players, iterations, previous)
    weak = search_spec(players, quarter, previous)
    strong = search_spec(players, 4 * iterations, previous)
    former = f"ismcts:iterations={iterations},{FORMER_DEFAULT[players]}"
    return {"heuristic": ([s] + ["heuristic"] * (players - 1), False),
            "strengths": ([weak, s, strong], False),
            "mixed": (["heuristic", s, former, weak], True)}


def table_seed(seed: int, gen: int, players: int, table: str) -> int:
    """The tournament seed (decks, bots, schedule) of one table: fresh for every generation."""
    return derive_seed(seed, "generation", gen, players, table)


def canonical_command(s: dict) -> str:
    """The command that regenerates a generation's weights (backend, workers and folder left out)."""
    return (f"python bench/generation.py --gen {s['gen']} --seed {s['seed']} --games {s['games']} "
            f"--iterations {s['iterations']} --players {' '.join(map(str, s['players']))} --every {s['every']} "
            f"--l2 {s['l2']!r} --holdout {s['holdout']!r}")


def check_manifest(folder: Path, settings: dict) -> None:
    """Write ``generation.json`` (a new folder) or check that it holds ``settings``."""
    path = folder / "generation.json"
    if path.exists():
        doc = loads_json(read_text(path, what="generation file", error=GenerationError), str(path),
                         error=GenerationError)
        if not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(doc.get("settings"), dict):
            raise GenerationError(f"{path}: format: expected a {FORMAT!r} file")
        for key in SETTINGS:
            have = doc["settings"].get(key)
            if have != settings[key]:
                raise GenerationError(f"{path}: settings.{key}: the generation has {json.dumps(have)}, this "
                                      f"command asks for {json.dumps(settings[key])} (rerun it with the same "
                                      "settings, or give another --gen or --dir)")
        return
    folder.mkdir(parents=True, exist_ok=True)
    write_json_atomic(path, {"format": FORMAT, "settings": settings, "command": canonical_command(settings)},
                      what="generation file")


def play(folder: Path, settings: dict, previous: Path | None, workers: int, backend: str, address: str | None,
         log=print) -> list[Path]:
    """Play (or resume) every table of the generation; returns the results files."""
    files = []
    for n in settings["players"]:
        for name, (bots, v6) in tables(n, settings["iterations"], previous).items():
            out = folder / "games" / f"{n}p-{name}.jsonl"
            out.parent.mkdir(parents=True, exist_ok=True)
            spec = TournamentSpec(bots=tuple(bots), players=n, games=settings["games"], v6=v6,
                                  seed=table_seed(settings["seed"], settings["gen"], n, name))
            if out.exists() and out.stat().st_size == 0:
                out.unlink()  # killed before its header was written: nothing in it
            t0 = time.process_time()
            info = run_tournament(spec, out, workers=workers, resume=out.exists(), backend=backend,
                                  address=address)
            log(f"{out.name}: {info.played} games played, {info.skipped} from the file "
                f"({time.process_time() - t0:.1f} CPU s in this process, {info.seconds:.1f} s wall)")
            files.append(out)
    return files


def fit(folder: Path, settings: dict, files: list[Path], install: bool, log=print) -> list[Path]:
    """Fit and write each player count's weights; returns the files written."""
    from train_eval import train

    written = []
    for n in settings["players"]:
        mine = [p for p in files if p.name.startswith(f"{n}p-")]
        t0 = time.process_time()
        doc = train(n, settings["seed"], 0, settings["every"], l2=settings["l2"], holdout=settings["holdout"],
                    records=mine, interleave=True)
        training = doc["training"]
        del training["cpu_seconds"]  # printed, not stored: the file is the same whatever the machine
        training.update({"script": "bench/generation.py", "generation": settings["gen"],
                         "iterations": settings["iterations"], "games_per_table": settings["games"],
                         "tables": list(TABLES), "holdout_games": "the last of every table (interleaved)"})
        shipped = shipped_path(n, "searched")
        command = canonical_command(settings)
        path = write_weights(doc, command, folder, shipped.name, shipped, "evaluation weights file")
        written.append(path)
        if install:
            written.append(write_weights(doc, command, None, shipped.name, shipped, "evaluation weights file"))
        m = training["holdout_metrics"]
        log(f"{n} players: {training['games']} games, {training['positions']['train']:,} training / "
            f"{training['positions']['holdout']:,} held-out positions ({time.process_time() - t0:.1f} CPU s)")
        log(f"  held-out log-loss {m['model']['log_loss']:.4f} (money only {m['money_only']['log_loss']:.4f}, "
            f"uniform {m['uniform_log_loss']:.4f}) -> {path}")
    return written


def run(argv: list[str] | None = None, log=print) -> list[Path]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gen", type=int, required=True, help="the generation's number (1, 2, ...)")
    ap.add_argument("--seed", type=seed_arg, required=True)
    ap.add_argument("--games", type=int, default=48, help="games per table (default 48)")
    ap.add_argument("--iterations", type=int, default=1000,
                    help="the middle search strength, per decision (default 1000)")
    ap.add_argument("--players", type=int, nargs="+", default=[2, 3, 4], choices=[2, 3, 4])
    ap.add_argument("--every", type=int, default=6, help="decisions between recorded positions (on average)")
    ap.add_argument("--l2", type=float, default=1e-3)
    ap.add_argument("--holdout", type=float, default=0.2, help="share of the games held out")
    ap.add_argument("--dir", type=Path, default=HERE / "results" / "generations",
                    help="folder of the generations (default: generations/ in bench's results folder)")
    ap.add_argument("--workers", type=int, default=1, help="games at once (local processes or Ray tasks)")
    ap.add_argument("--backend", choices=("local", "ray"), default="local")
    ap.add_argument("--address", default=None, help="with --backend ray: the Ray cluster to join")
    ap.add_argument("--install", action="store_true",
                    help="also write the weights over the shipped kwsearch/data/eval-searched-Np.json")
    args = ap.parse_args(argv)
    if args.address and args.backend != "ray":
        ap.error("--address: applies only with --backend ray")
    if args.gen < 1 or args.games < 2 or args.iterations < 4 or args.every < 1 or not 0 < args.holdout < 1 \
            or args.l2 < 0 or not 1 <= args.workers <= 256:
        ap.error("expected --gen >= 1, --games >= 2, --iterations >= 4, --every >= 1, --holdout in (0, 1), "
                 "--l2 >= 0, --workers from 1 to 256")
    if args.address:
        check_cluster(args.address, GenerationError)
    settings = {"gen": args.gen, "seed": args.seed, "games": args.games, "iterations": args.iterations,
                "players": sorted(set(args.players)), "every": args.every, "l2": args.l2, "holdout": args.holdout}
    folder = args.dir / f"gen-{args.gen}"
    previous = None
    if args.gen > 1:
        previous = args.dir / f"gen-{args.gen - 1}"
        missing = [n for n in settings["players"] if not (previous / shipped_path(n, "searched").name).is_file()]
        if missing:
            raise GenerationError(f"{previous}: no weights for {missing[0]} players; run generation "
                                  f"{args.gen - 1} first")
    check_manifest(folder, settings)
    files = play(folder, settings, previous, args.workers, args.backend, args.address, log)
    return fit(folder, settings, files, args.install, log)


def main(argv: list[str] | None = None) -> int:
    try:
        run(argv)
    except KwsearchError as exc:
        msg = str(exc)
        print(f"generation.py: {'--' + msg if msg.startswith('backend ') else msg}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("generation.py: interrupted; the finished games are saved — run the same command to resume",
              file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
