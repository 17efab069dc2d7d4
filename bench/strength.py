"""Playing strength: matches between bots, with 95% confidence intervals.

    python bench/strength.py                          # every match, 200 games each, 2 processes
    python bench/strength.py --match ismcts-vs-random --games 40
    python bench/strength.py --list

Each match pits a *tested* bot (the first spec) against opponents. Seats rotate
so the tested bot plays every seat equally often, and the deck/tile seed is
shared by the games of one rotation (paired decks). The score of a game is the
tested bot's win share (1 for a sole win, split on ties). Results go line by line
to ``bench/results/strength-games.jsonl`` as games finish (a rerun skips the games it
already has, so an interrupted run resumes), and the summary to its section of
``bench/RESULTS.md``: games, mean score with a 95% confidence interval (normal
approximation, ±1.96·sd/√n), the parity score, and the mean money of the tested
bot and of its opponents.
"""

from __future__ import annotations

import argparse
import json
import math
import importlib.util
import sys
import time
from multiprocessing import Pool
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if importlib.util.find_spec("kwsearch") is None:  # not installed: the checkout's own (built in place)
    sys.path.insert(0, str(ROOT))

from kwsearch.benchmarks import machine, write_results  # noqa: E402
from kwsearch.search import FORMER_DEFAULT  # noqa: E402
from kwsearch.seeds import seed_arg  # noqa: E402

BEGIN, END = "<!-- BEGIN strength -->", "<!-- END strength -->"
GAMES_FILE = HERE / "results" / "strength-games.jsonl"

#: The searches spell out ``FORMER`` / ``FORMER4``: the search default of the recorded games
#: (search.FORMER_DEFAULT); the two- and four-player defaults changed in issue 17 (docs/strength.md).
FORMER = FORMER_DEFAULT[2]
FORMER4 = FORMER_DEFAULT[4]
#: name -> (players, [tested bot spec, opponent specs...], what it measures)
MATCHES = {
    "ismcts-vs-3-heuristic": (4, [f"ismcts:iterations=10000,{FORMER4}", "heuristic", "heuristic", "heuristic"],
                              "target: ISMCTS wins >= 50% (parity 25%); played with --seed 300000, decks not "
                              "used for tuning"),
    "ismcts-vs-heuristic": (2, [f"ismcts:iterations=10000,{FORMER}", "heuristic"], "target: ISMCTS wins >= 80%"),
    "ismcts-vs-random": (2, [f"ismcts:iterations=10000,{FORMER}", "random"], "target: ISMCTS wins >= 99%"),
    "ismcts-vs-pimc-equal-time": (2, [f"ismcts:seconds=0.1,{FORMER}", f"pimc:worlds=20,seconds=0.1,{FORMER}"],
                                  "target: ISMCTS wins >= 55%; 0.1 s per decision each"),
    "tempo-vs-random-rollouts-equal-time": (2, [f"ismcts:seconds=0.1,{FORMER}",
                                                "ismcts:seconds=0.1,rollout=random,cutoff=0,money=0"],
                                            "the default tempo rollouts vs random rollouts, 0.1 s per decision"),
    "ismcts-vs-cheat": (2, [f"ismcts:iterations=10000,{FORMER}", f"cheat:iterations=10000,{FORMER}"],
                        "the price of not knowing the deck order"),
    "ismcts-4x-vs-1x": (2, [f"ismcts:iterations=40000,{FORMER}", f"ismcts:iterations=10000,{FORMER}"],
                        "does more search help?"),
    "closed-vs-open-loop-equal-time": (2, [f"ismcts:seconds=0.1,loop=closed,{FORMER}", f"ismcts:seconds=0.1,{FORMER}"],
                                       "closed loop (branch on reveals) vs open loop, 0.1 s per decision each"),
}


def play_one(job: tuple[str, int, int]) -> dict:
    """Play game ``index`` of a match: rotation ``index % players``, deck seed ``base + index // players``."""
    name, index, base = job
    from kwsearch.bots import MAX_MATCH_DECISIONS, from_spec, play_match
    from kwsearch.seeds import derive_seed
    from kwsearch.rules import Game
    players, specs, _ = MATCHES[name]
    rotation = index % players
    deck_seed = base + index // players
    # seat s gets spec (s - rotation) mod players: the tested bot (spec 0) sits at seat `rotation`
    seat_specs = [specs[(s - rotation) % players] for s in range(players)]
    # Bot seeds as everywhere in kwsearch (games logged before 2026-11-23 used deck_seed * 10 + s).
    bots = [from_spec(spec, seed=derive_seed(deck_seed, "seat", s)) for s, spec in enumerate(seat_specs)]
    t0 = time.perf_counter()
    # Capped like every match: a game past the cap is adjudicated on the money then (docs/rules-notes.md).
    result = play_match(Game(players).new_initial_state(deck_seed), bots, max_decisions=MAX_MATCH_DECISIONS)
    money = result.money
    line = {"match": name, "index": index, "deck_seed": deck_seed, "tested_seat": rotation,
            "seats": seat_specs, "money": money, "score": result.returns[rotation],
            "seconds": round(time.perf_counter() - t0, 2)}
    if result.adjudicated:
        line["adjudicated"] = True
    return line


def load_done() -> dict[tuple[str, int], dict]:
    done = {}
    if GAMES_FILE.exists():
        for line in GAMES_FILE.read_text().splitlines():
            try:
                g = json.loads(line)
                done[(g["match"], g["index"])] = g
            except (ValueError, KeyError):
                continue  # a line cut short by an interrupted run
    return done


def summarize(name: str, games: list[dict]) -> dict:
    players, specs, what = MATCHES[name]
    n = len(games)
    scores = [g["score"] for g in games]
    mean = sum(scores) / n if n else 0.0
    sd = math.sqrt(sum((s - mean) ** 2 for s in scores) / (n - 1)) if n > 1 else 0.0
    half = 1.96 * sd / math.sqrt(n) if n > 1 else 0.0
    tested_money = sum(g["money"][g["tested_seat"]] for g in games) / n if n else 0.0
    other_money = (sum(sum(g["money"]) - g["money"][g["tested_seat"]] for g in games) / (n * (players - 1))
                   if n else 0.0)
    return {"match": name, "players": players, "specs": specs, "what": what, "games": n, "score": mean,
            "ci": half, "parity": 1 / players, "tested_money": tested_money, "other_money": other_money,
            "seconds_per_game": sum(g["seconds"] for g in games) / n if n else 0.0,
            "adjudicated": sum(1 for g in games if g.get("adjudicated"))}


def to_markdown(rows: list[dict]) -> str:
    m = machine()
    lines = [BEGIN, "## Strength (`bench/strength.py`)", "",
             f"Measured {m['date']} on {m['cpu']}, Python {m['python']}; games played two at a time (one per "
             "core; the machine was at times shared with other jobs, which changes only how many iterations the "
             "equal-time matches get, alike for both sides). Score = the tested bot's mean win share (ties split); ± is a 95% confidence interval. Seats "
             "rotate, decks are paired across each rotation.", "",
             "| match | players | tested bot | opponents | games | score | parity | money (tested / others) | "
             "note |", "| --- | ---: | --- | --- | ---: | ---: | ---: | --- | --- |"]
    for r in rows:
        lines.append(f"| {r['match']} | {r['players']} | `{r['specs'][0]}` | "
                     f"{', '.join(f'`{s}`' for s in r['specs'][1:])} | {r['games']} | "
                     f"{100 * r['score']:.1f}% ± {100 * r['ci']:.1f} | {100 * r['parity']:.0f}% | "
                     f"{r['tested_money']:.1f} / {r['other_money']:.1f} | {r['what']}"
                     + (f"; {r['adjudicated']} adjudicated at the decision cap" if r.get("adjudicated") else "")
                     + " |")
    lines += ["", "Settings of the tested ISMCTS: tempo playouts to the end; c = 0.7 and the win-share reward with "
              "two players (spelled out: the default before issue 17), c = 0.4 and money weight 0.5 with four (the "
              "default; docs/design.md). Games of earlier settings are "
              "kept: `bench/results/strength-games-random-rollouts.jsonl` (uniformly random playouts, c = 0.7, including "
              "the closed- vs open-loop match behind the open-loop default) and `bench/results/strength-games-tuning.jsonl` "
              "(the matches that chose the playout policy and the four-player defaults)."]
    lines.append(END)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    global GAMES_FILE
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--match", action="append", choices=sorted(MATCHES), help="run only this match (repeatable)")
    ap.add_argument("--games", type=int, default=200, help="games per match (a multiple of the player count)")
    ap.add_argument("--games-for", action="append", default=[], metavar="MATCH=N",
                    help="a different game count for one match (repeatable)")
    ap.add_argument("--workers", type=int, default=2, help="games played at once (processes)")
    ap.add_argument("--seed", type=seed_arg, default=100_000, help="first deck seed")
    ap.add_argument("--log", type=Path, default=None,
                    help=f"the game log to read and append to (default {GAMES_FILE.relative_to(ROOT)})")
    ap.add_argument("--list", action="store_true", help="list the matches")
    ap.add_argument("--no-write", action="store_true", help="do not update bench/RESULTS.md")
    args = ap.parse_args(argv)
    if args.list:
        for name, (players, specs, what) in MATCHES.items():
            print(f"{name:28s} {players}p  {' vs '.join(specs)}  ({what})")
        return 0
    names = args.match or list(MATCHES)
    if args.log is not None:
        GAMES_FILE = args.log.resolve()
    done = load_done()
    counts = {name: args.games for name in names}
    for item in args.games_for:
        name, _, n = item.partition("=")
        if name not in MATCHES or not n.isdigit():
            ap.error(f"--games-for: expected MATCH=N with a match from --list, got {item!r}")
        counts[name] = int(n)
    jobs = [(name, i, args.seed) for name in names for i in range(counts.get(name, args.games))
            if (name, i) not in done]
    print(f"{len(jobs)} games to play ({sum(1 for n in names for i in range(counts.get(n, args.games)) if (n, i) in done)} "
          f"already in {GAMES_FILE.name})", flush=True)
    t0 = time.perf_counter()
    with Pool(args.workers) as pool, GAMES_FILE.open("a") as out:
        for k, g in enumerate(pool.imap_unordered(play_one, jobs), 1):
            out.write(json.dumps(g) + "\n")
            out.flush()
            done[(g["match"], g["index"])] = g
            if k % 10 == 0 or k == len(jobs):
                print(f"  {k}/{len(jobs)} games, {time.perf_counter() - t0:.0f} s", flush=True)
    rows = []
    for name in MATCHES:
        games = [g for (n, i), g in sorted(done.items()) if n == name]
        if games:
            rows.append(summarize(name, games))
            r = rows[-1]
            print(f"{name:28s} {r['games']:4d} games  score {100 * r['score']:5.1f}% ± {100 * r['ci']:.1f}  "
                  f"money {r['tested_money']:.1f} / {r['other_money']:.1f}")
    if not args.no_write and rows:
        write_results(HERE / "RESULTS.md", to_markdown(rows), BEGIN, END)
        print(f"wrote {HERE / 'RESULTS.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
