"""Peer benchmark: our ISMCTS against OpenSpiel's ISMCTS on the OpenSpiel game "kraftwagen".

    python bench/peer_openspiel.py --speed              # iterations/s from the same positions
    python bench/peer_openspiel.py --match --games 100  # equal wall-clock time per decision, 2 players
    python bench/peer_openspiel.py --report             # rewrite the RESULTS.md section from the logs

Needs ``pip install ".[openspiel]"`` (in the kwsearch clone).

**Speed.** Positions are taken from 2-player games played by uniformly random
moves (seeded), every 15th decision from the start. At each, OpenSpiel's ISMCTS
(``open_spiel.python.algorithms.ismcts.ISMCTSBot`` with its random-rollout
evaluator, on :mod:`kwsearch.openspiel`'s game) and ours (:func:`kwsearch.search.search`,
one worker) each search for ``--seconds``; the figure is total iterations over
total time. OpenSpiel's C++ MCTS (``pyspiel.MCTSBot``) is measured the same way
for reference. The results go to ``bench/results/peer-openspiel-speed.json``.

**Match.** ``ismcts:seconds=T`` against ``openspiel-ismcts:seconds=T`` (both from
:func:`kwsearch.bots.from_spec`), 2 players: game ``i`` uses deck seed
``base + i // 2`` and seats our bot at ``i % 2``, so every deal is played with the
seats swapped. Score = our win share (ties split); 95% CI by the normal
approximation (±1.96·sd/√n) and Wilson's interval on wins. Games are appended to
``bench/results/peer-openspiel-games.jsonl`` as they finish (a rerun resumes).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import importlib.util
import sys
import time
from multiprocessing import Pool
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if importlib.util.find_spec("kwsearch") is None:  # not installed: the checkout's own (built in place)
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from kwsearch.benchmarks import machine, write_results  # noqa: E402
from kwsearch.fileio import write_json_atomic  # noqa: E402
from kwsearch.tournament import wilson  # noqa: E402
from kwsearch.seeds import seed_arg  # noqa: E402

BEGIN, END = "<!-- BEGIN peer-openspiel -->", "<!-- END peer-openspiel -->"
GAMES_FILE = HERE / "results" / "peer-openspiel-games.jsonl"
SPEED_FILE = HERE / "results" / "peer-openspiel-speed.json"


def positions(count: int, seed: int = 7):
    """``count`` 2-player decision positions (two or more legal actions) from random games."""
    from kwsearch.rules import Game
    out = []
    game_seed = seed
    while len(out) < count:
        state = Game(2).new_initial_state(game_seed, engine="fast")
        rng = random.Random(game_seed)
        ply = 0
        while not state.is_terminal() and len(out) < count:
            legal = state.legal_actions()
            if ply % 15 == 0 and len(legal) >= 2:
                out.append((game_seed, ply, state.copy()))
            state.apply(rng.choice(legal))
            ply += 1
        game_seed += 1
    return out


def speed(count: int, seconds: float) -> dict:
    from kwsearch.openspiel import OpenSpielBot
    from kwsearch.search import SearchConfig, SearchLimits, search
    rows = []
    for k, (game_seed, ply, state) in enumerate(positions(count)):
        row = {"game_seed": game_seed, "ply": ply, "legal": len(state.legal_actions())}
        # Random playouts, as OpenSpiel's random-rollout evaluator: the same work per iteration.
        res = search(state, SearchLimits(seconds=seconds), SearchConfig(rollout="random"), seed=k)
        row["ours"] = res.iterations / res.elapsed
        for kind in ("ismcts", "mcts"):
            bot = OpenSpielBot(kind, seconds=seconds, seed=k)
            t0 = time.perf_counter()
            bot.step(state)
            row["openspiel_" + kind] = bot.last_iterations / (time.perf_counter() - t0)
        rows.append(row)
        print(f"  position {k}: seed {game_seed} ply {ply:3d}  ours {row['ours']:9.0f} it/s   "
              f"OpenSpiel ISMCTS {row['openspiel_ismcts']:7.1f} it/s   MCTS {row['openspiel_mcts']:7.1f} it/s",
              flush=True)
    total = {key: sum(r[key] for r in rows) / len(rows) for key in ("ours", "openspiel_ismcts", "openspiel_mcts")}
    ratios = sorted(r["ours"] / r["openspiel_ismcts"] for r in rows)
    result = {"machine": machine(), "seconds": seconds, "positions": rows, "mean": total,
              "ratio_mean_rates": total["ours"] / total["openspiel_ismcts"],
              "ratio_min": ratios[0], "ratio_median": ratios[len(ratios) // 2]}
    write_json_atomic(SPEED_FILE, result, what="speed results")
    return result


def play_one(job: tuple[int, int, float]) -> dict:
    index, base, seconds = job
    from kwsearch.bots import from_spec, play_game
    from kwsearch.seeds import derive_seed
    from kwsearch.rules import Game
    deck_seed = base + index // 2
    ours = index % 2
    specs = [f"ismcts:seconds={seconds}", f"openspiel-ismcts:seconds={seconds}"]
    seat_specs = [specs[0] if s == ours else specs[1] for s in range(2)]
    # Bot seeds as everywhere in kwsearch (games logged before 2026-11-23 used deck_seed * 10 + s).
    bots = [from_spec(spec, seed=derive_seed(deck_seed, "seat", s)) for s, spec in enumerate(seat_specs)]
    t0 = time.perf_counter()
    final = play_game(Game(2).new_initial_state(deck_seed), bots)
    return {"index": index, "deck_seed": deck_seed, "our_seat": ours, "seats": seat_specs,
            "seconds_per_decision": seconds, "money": final.money(), "score": final.returns()[ours],
            "seconds": round(time.perf_counter() - t0, 1), "date": machine()["date"],
            "our_rollout": bots[ours].config.for_players(2).rollout}


def load_games() -> dict[int, dict]:
    done = {}
    if GAMES_FILE.exists():
        for line in GAMES_FILE.read_text().splitlines():
            try:
                g = json.loads(line)
                done[g["index"]] = g
            except (ValueError, KeyError):
                continue  # a line cut short by an interrupted run
    return done


def match(games: int, seconds: float, workers: int, base: int) -> None:
    done = load_games()
    jobs = [(i, base, seconds) for i in range(games) if i not in done]
    print(f"{len(jobs)} games to play ({len(done)} already in {GAMES_FILE.name})", flush=True)
    t0 = time.perf_counter()
    with Pool(workers) as pool, GAMES_FILE.open("a") as out:
        for k, g in enumerate(pool.imap_unordered(play_one, jobs), 1):
            out.write(json.dumps(g) + "\n")
            out.flush()
            done[g["index"]] = g
            print(f"  {k}/{len(jobs)} games, {time.perf_counter() - t0:.0f} s, score so far "
                  f"{summarize(list(done.values()))['score'] * 100:.1f}%", flush=True)


def summarize(games: list[dict]) -> dict:
    n = len(games)
    scores = [g["score"] for g in games]
    mean = sum(scores) / n if n else 0.0
    sd = math.sqrt(sum((s - mean) ** 2 for s in scores) / (n - 1)) if n > 1 else 0.0
    lo, hi = wilson(sum(scores), n)
    return {"games": n, "score": mean, "ci": 1.96 * sd / math.sqrt(n) if n > 1 else 0.0,
            "wilson": (lo, hi), "wins": sum(1 for s in scores if s == 1.0),
            "ties": sum(1 for s in scores if 0 < s < 1),
            "our_money": sum(g["money"][g["our_seat"]] for g in games) / n if n else 0.0,
            "their_money": sum(g["money"][1 - g["our_seat"]] for g in games) / n if n else 0.0,
            "seconds": games[0]["seconds_per_decision"] if games else 0.0,
            "minutes": sum(g["seconds"] for g in games) / 60,
            # games logged before the field existed were played with random playouts, the default then
            "rollouts": sorted({g.get("our_rollout", "random") for g in games})}


def to_markdown() -> str:
    m = machine()
    lines = [BEGIN, "## Peer: OpenSpiel's ISMCTS (`bench/peer_openspiel.py`)", "",
             f"Written {m['date']} on {m['cpu']}, Python {m['python']}; OpenSpiel {_openspiel_version()}. "
             "OpenSpiel's ISMCTS is its Python `ISMCTSBot` with its random-rollout evaluator (the C++ "
             "`ISMCTSBot` cannot search a Python game: docs/openspiel.md), on the game `kraftwagen` of "
             "`kwsearch.openspiel`; ours is `kwsearch.search` (ISMCTS, one worker). OpenSpiel's uses UCT c = 0.7 on "
             "win shares; ours its default of the day (c = 0.7 with two players until issue 32's sixteenth "
             "round, 0.3 since: docs/strength.md).", ""]
    if SPEED_FILE.exists():
        sp = json.loads(SPEED_FILE.read_text())
        mean = sp["mean"]
        lines += [f"**Iterations per second** from the same {len(sp['positions'])} two-player positions "
                  f"(every 15th decision of random games), {sp['seconds']} s of search each "
                  f"(measured {sp['machine']['date']}):", "",
                  "| search | iterations/s (mean over positions) |", "| --- | ---: |",
                  f"| ours (`kwsearch.search`, ISMCTS, random playouts) | {mean['ours']:,.0f} |",
                  f"| OpenSpiel ISMCTS (Python, random rollouts) | {mean['openspiel_ismcts']:,.1f} |",
                  f"| OpenSpiel MCTS (C++ `MCTSBot`, random rollouts; for reference) | "
                  f"{mean['openspiel_mcts']:,.1f} |", "",
                  f"Ratio ours / OpenSpiel ISMCTS: **{sp['ratio_mean_rates']:,.0f}×** on the mean rates "
                  f"(per position: minimum {sp['ratio_min']:,.0f}×, median {sp['ratio_median']:,.0f}×); "
                  "target ≥ 20×.", ""]
    games = list(load_games().values())
    if games:
        s = summarize(games)
        lo, hi = s["wilson"]
        lines += [f"**Equal-time match**, 2 players, {s['seconds']} s per decision for each bot (wall clock), "
                  f"{s['games']} games ({s['games'] // 2} deals, each played with the seats swapped), two games "
                  "at a time on the two cores:", "",
                  "| ours | opponent | games | our score (95% CI) | wins / ties | Wilson 95% | money (ours / theirs) |",
                  "| --- | --- | ---: | ---: | ---: | ---: | --- |",
                  f"| `ismcts:seconds={s['seconds']}` | `openspiel-ismcts:seconds={s['seconds']}` | {s['games']} | "
                  f"{100 * s['score']:.1f}% ± {100 * s['ci']:.1f} | {s['wins']} / {s['ties']} | "
                  f"{100 * lo:.1f}–{100 * hi:.1f}% | {s['our_money']:.1f} / {s['their_money']:.1f} |", "",
                  f"Target: ours wins ≥ 75%. With every game won the normal-approximation interval is "
                  f"degenerate (± 0); Wilson's interval is the one to read then. ({s['minutes']:.0f} min of "
                  "games, summed over games.) Times are wall clock on a machine that may be shared with other "
                  "jobs; both bots run under the same load. Our playout policy in these games: "
                  f"{', '.join(s['rollouts'])} (games logged without an `our_rollout` field were played when "
                  "uniformly random playouts were the default, before the tempo policy replaced them).", ""]
    lines.append(END)
    return "\n".join(lines)


def _openspiel_version() -> str:
    try:
        from importlib.metadata import version
        return version("open_spiel")
    except Exception:  # noqa: BLE001 - only for the report line
        return "(unknown version)"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--speed", action="store_true", help="measure iterations/s from the same positions")
    ap.add_argument("--positions", type=int, default=12, help="positions for --speed")
    ap.add_argument("--match", action="store_true", help="play the equal-time match")
    ap.add_argument("--games", type=int, default=100, help="games of the match (even: seats swapped)")
    ap.add_argument("--seconds", type=float, default=None,
                    help="seconds per decision (match, default 0.25) or per position (speed, default 1)")
    ap.add_argument("--workers", type=int, default=2, help="games played at once (processes)")
    ap.add_argument("--seed", type=seed_arg, default=500_000, help="first deck seed of the match")
    ap.add_argument("--report", action="store_true", help="only rewrite the RESULTS.md section")
    ap.add_argument("--no-write", action="store_true", help="do not update bench/RESULTS.md")
    args = ap.parse_args(argv)
    if args.speed:
        r = speed(args.positions, args.seconds or 1.0)
        print(f"ours {r['mean']['ours']:.0f} it/s, OpenSpiel ISMCTS {r['mean']['openspiel_ismcts']:.1f} it/s: "
              f"ratio {r['ratio_mean_rates']:.0f}x (min {r['ratio_min']:.0f}x)")
    if args.match:
        match(args.games, args.seconds or 0.25, args.workers, args.seed)
        s = summarize(list(load_games().values()))
        print(f"{s['games']} games: our score {100 * s['score']:.1f}% ± {100 * s['ci']:.1f}")
    if not args.no_write:
        write_results(HERE / "RESULTS.md", to_markdown(), BEGIN, END)
        print(f"wrote {HERE / 'RESULTS.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
