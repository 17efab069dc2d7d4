"""Can a review's marks be trusted? Issue 29 item 4's targets, measured (docs/review.md, "Verified values").

    python bench/review_trust.py                      # games of 2, 3 and 4 players, 4,000 iterations
    python bench/review_trust.py --games 1 --planted 20 --quick

1. **Games.** ``--games`` games per player count (2, 3, 4) played by a seeded field of mixed bots
   (random, heuristic, ismcts at 200 and 1,000 iterations), written to
   ``bench/results/review-trust/game-{N}p-{i}.json`` (kept; reused when present).
2. **Replication.** Each game is reviewed twice (``--seed`` 1 and 2; with ``--pairs K`` by seeds 1 to
   2K, in pairs (1, 2), (3, 4), ...) at ``--iterations`` per decision,
   by the verified review (``kwsearch.review``) and by the former one (git 8af865b, the merge before it, or ``--old-rev``'s
   ``kwsearch/review.py`` loaded beside the package: the main search's figures, the classes of the raw
   loss). Jaccard of the plies marked mistake or worse, per game and pair, and pooled over the pairs
   (plies both marked over plies either marked, summed).
3. **Contradictions.** A mark (mistake or worse) followed by another decision of the same seat in the
   same round with nobody else moving between (the game's next decision is the same seat's; choices
   with a single option are made by the rules, never decisions) is *contradicted* when that next position's own value for the seat (its best option's
   win %: the verified review takes the higher of its verified best and played values) is within 5
   points of the marked decision's best option's, or above.
4. **Cost.** ``time.process_time()`` of each review (one process, one worker), new over old. The
   former review at 8af865b ran ``analyse`` with its default verification of every option (issue 29
   part 1, unused by the review); ``main only`` is the same review with that switched off.
5. **Planted blunders.** Positions of the games where an option's loss, each option re-searched alone
   for 20 x ``--iterations`` (one search forced to the option), exceeds 20 points against the main
   search's best; the share of (position, seed) reviews of that move marked mistake or worse.
6. **Saw-tooth.** Two-player games: the mean jump of seat 0's graph point between consecutive
   decisions of different seats, and of the same seat.

Prints the figures and writes them to ``bench/results/review-trust/summary-{date}.json`` (``--name``
another file). ``--main-only`` runs the former review without its unused verification only (the cost
target's comparison); ``--luck-split`` also runs the new review without the chance events' luck, so
the decisions' cost and the luck's are seen apart; ``--show`` prints each contradicted mark beside its
next position.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "results" / "review-trust"
BOTS = ("random", "heuristic", "ismcts:iterations=200", "ismcts:iterations=1000")
MARKED = ("mistake", "blunder")


def make_game(players: int, index: int) -> dict:
    """Game ``index`` of ``players``: a seeded deal and a seeded draw of the bots (kept in OUT)."""
    from kwsearch.bots import from_spec, play_match
    from kwsearch.game import Game
    from kwsearch.records import Recorder
    path = OUT / f"game-{players}p-{index}.json"
    if path.exists():
        return json.loads(path.read_text())
    rng = random.Random(1000 * players + index)
    specs = [rng.choice(BOTS) for _ in range(players)]
    deck_seed = rng.randrange(1 << 30)
    game = Game(players)
    bots = [from_spec(s, seed=rng.randrange(1 << 30)) for s in specs]
    actions: list[int] = []
    play_match(game.new_initial_state(deck_seed), bots, on_step=lambda st, seat, a: actions.append(a))
    rec = Recorder.start(game, deck_seed, seat_names=[s.split(":")[0] + (s.split("=")[1] if "=" in s else "")
                                                      for s in specs])
    for a in actions:
        rec.apply(a)
    OUT.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(rec.record) + "\n")
    return rec.record


def old_review(rev: str, verify: bool):
    """The former kwsearch/review.py (at git ``rev``) as a module of the package (its relative imports
    resolve); ``verify`` False switches off the unused verification its ``analyse`` call ran."""
    src = subprocess.run(["git", "show", f"{rev}:kwsearch/review.py"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    if not verify:
        src = src.replace("top=len(legal))", "top=len(legal), verify=False)")
    name = f"kwsearch._review_old_{'v' if verify else 'm'}"
    spec = importlib.util.spec_from_loader(name, loader=None)
    mod = importlib.util.module_from_spec(spec)
    mod.__package__ = "kwsearch"
    sys.modules[name] = mod
    exec(compile(src, f"{rev}:kwsearch/review.py", "exec"), mod.__dict__)
    return mod


def marks(review) -> set[int]:
    return {d.ply for d in review.decisions if d.cls in MARKED}


def jaccard(a: set, b: set) -> float:
    return 1.0 if not a and not b else len(a & b) / len(a | b)


def position_value(d, verified: bool) -> float:
    return max(d.best_win, d.played_win) if verified else d.best_win


def contradictions(review, verified: bool, show: bool = False) -> tuple[int, int]:
    """(marks followed by a same-seat decision in the same round, of them contradicted); ``show``
    prints each contradicted mark beside its next position (verified reviews)."""
    ds = review.decisions
    n = bad = 0
    for i, d in enumerate(ds):
        if d.cls not in MARKED:
            continue
        # the definition: the same seat's next decision with nobody else moving between (the very
        # next ply of the game, reviewed); a seat's next decision after other seats' moves is not counted
        nxt = ds[i + 1] if i + 1 < len(ds) else None
        if nxt is None or nxt.ply != d.ply + 1 or nxt.seat != d.seat or nxt.round != d.round:
            continue
        n += 1
        hit = position_value(nxt, verified) >= d.best_win - 0.05
        bad += hit
        if hit and show and verified:
            print(f"  contradicted: ply {d.ply} seat {d.seat} {d.kind} played {d.played} "
                  f"{d.played_win:.3f}±{d.played_win_half:.3f} best {d.best} {d.best_win:.3f}±{d.best_win_half:.3f} "
                  f"loss {d.loss:.3f}±{d.loss_half:.3f} {d.cls} | next ply {nxt.ply} {nxt.kind} played "
                  f"{nxt.played} {nxt.played_win:.3f} best {nxt.best} {nxt.best_win:.3f}", flush=True)
    return n, bad


def saw(review, graph) -> tuple[float, float]:
    ds = review.decisions
    other = [abs(graph(b)[0] - graph(a)[0]) for a, b in zip(ds, ds[1:]) if a.seat != b.seat]
    same = [abs(graph(b)[0] - graph(a)[0]) for a, b in zip(ds, ds[1:]) if a.seat == b.seat]
    return (sum(other) / max(1, len(other)), sum(same) / max(1, len(same)))


def timed(fn):
    t0 = time.process_time()
    out = fn()
    return out, time.process_time() - t0


def planted(records, iterations: int, want: int, seeds=(1, 2)) -> dict:
    """Positions with a move whose loss, re-searched alone 20x longer, is above 20 points."""
    from kwsearch.analysis import analyse
    from kwsearch.review import game_decisions, review_config, review_decision, verify_options
    from kwsearch.search import SearchLimits
    limits = SearchLimits(iterations=iterations)
    rng = random.Random(29)
    steps = [(st, a) for rec in records for st, a in game_decisions(rec)]
    rng.shuffle(steps)
    found = marked = marked_any = tried = 0
    rows = []
    cpu0 = time.process_time()
    for st, _ in steps:
        if found >= want:
            break
        if len(st.legal_actions()) < 3:
            continue
        tried += 1
        an = analyse(st, limits, review_config(), seed=99, top=len(st.legal_actions()), verify=False)
        best = an.candidates[0]
        worst = min((c for c in an.candidates[1:] if c.visits > 0), key=lambda c: c.win_prob, default=None)
        if worst is None or best.win_prob - worst.win_prob < 0.2:
            continue
        # the confirmation: each of the two searched alone for 20x the review's iterations, one search each
        v = verify_options(st, [best.action, worst.action], 20 * iterations, 12345, chunks=1)
        loss = v[best.action][0].win - v[worst.action][0].win
        if loss <= 0.2:
            continue
        found += 1
        for s in seeds:
            d = review_decision(st, worst.action, limits, seed=s)
            marked += d.cls in MARKED
            marked_any += d.cls is not None
            rows.append({"loss20x": round(loss, 4), "seed": s, "loss": round(d.loss, 4),
                         "loss_half": round(d.loss_half, 4), "cls": d.cls, "equal": d.equal})
    n = len(rows)
    return {"positions_tried": tried, "planted": found, "reviews": n,
            "marked_mistake_or_worse": marked / n if n else None, "marked_any": marked_any / n if n else None,
            "cpu_seconds": round(time.process_time() - cpu0, 1), "rows": rows}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--iterations", type=int, default=4000)
    ap.add_argument("--games", type=int, default=1, help="games per player count")
    ap.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    ap.add_argument("--planted", type=int, default=20, help="planted blunders to find")
    ap.add_argument("--old-rev", default="8af865b", help="git revision of the former review.py")
    ap.add_argument("--no-old", action="store_true", help="skip the former review (no Jaccard/cost comparison)")
    ap.add_argument("--main-only", action="store_true",
                    help="run the former review only as 'old-main' (without its unused verification)")
    ap.add_argument("--pairs", type=int, default=1,
                    help="pairs of seeds per game: (1, 2), (3, 4), ... (Jaccard per pair; cost over all)")
    ap.add_argument("--luck-split", action="store_true",
                    help="also run the new review without the chance events' luck ('new-noluck'): its cost apart")
    ap.add_argument("--show", action="store_true", help="print each contradicted mark and its next position")
    ap.add_argument("--name", default=None, help="the summary's file name (default summary-DATE.json)")
    args = ap.parse_args(argv)
    from kwsearch.review import review_game
    from kwsearch.search import SearchLimits
    limits = SearchLimits(iterations=args.iterations)
    olds = {} if args.no_old else {"old": old_review(args.old_rev, True), "old-main": old_review(args.old_rev, False)}
    if args.main_only:
        olds.pop("old", None)
    methods = [("new", review_game, True)]
    if args.luck_split:
        methods.append(("new-noluck", lambda rec, limits, seed: review_game(rec, limits, seed=seed, luck=False), True))
    methods += [(m, mod.review_game, False) for m, mod in olds.items()]
    games, out = [], {"iterations": args.iterations, "machine": _machine(), "games": []}
    for n in args.players:
        for i in range(args.games):
            rec = make_game(n, i)
            games.append(rec)
            row = {"players": n, "game": i, "decisions": None}
            for method, fn, ver in methods:
                runs = [timed(lambda: fn(rec, limits, seed=s)) for s in range(1, 2 * args.pairs + 1)]
                reviews = [r for r, _ in runs]
                row["decisions"] = len(reviews[0].decisions)
                cs = [contradictions(r, ver, args.show) for r in reviews]
                graph = (lambda d: d.graph_win) if ver else (lambda d: d.win_all)
                ms = [marks(r) for r in reviews]
                pairs = [(ms[k], ms[k + 1]) for k in range(0, len(ms), 2)]
                row[method] = {"cpu": round(sum(t for _, t in runs), 2), "marks": [len(m) for m in ms],
                               "jaccard": round(jaccard(*pairs[0]), 3),
                               "jaccards": [round(jaccard(a, b), 3) for a, b in pairs],
                               "pooled": [sum(len(a & b) for a, b in pairs), sum(len(a | b) for a, b in pairs)],
                               "followed": sum(c[0] for c in cs), "contradicted": sum(c[1] for c in cs),
                               "saw": [round(x, 4) for x in saw(reviews[0], graph)] if n == 2 else None}
            out["games"].append(row)
            print(json.dumps(row), flush=True)
    out["planted"] = planted(games, args.iterations, args.planted)
    p = out["planted"]
    print(f"planted: {p['planted']} found in {p['positions_tried']} positions; marked mistake or worse "
          f"{p['marked_mistake_or_worse']}, any mark {p['marked_any']} ({p['cpu_seconds']} s)")
    for method, _, _ in methods:
        g = out["games"]
        f = sum(r[method]["followed"] for r in g)
        c = sum(r[method]["contradicted"] for r in g)
        cpu = sum(r[method]["cpu"] for r in g)
        js = [j for r in g for j in r[method]["jaccards"]]
        both, either = (sum(r[method]["pooled"][k] for r in g) for k in (0, 1))
        print(f"{method:9s} jaccard {[r[method]['jaccards'] for r in g]}  at least 0.8: {sum(j >= 0.8 for j in js)}"
              f"/{len(js)}  pooled {both}/{either}  contradicted {c}/{f} ({100 * c / max(1, f):.0f}%)  "
              f"cpu {cpu:.1f} s  marks {[r[method]['marks'] for r in g]}")
    for m in olds:
        for method in (method for method, _, verified in methods if verified):
            new = sum(r[method]["cpu"] for r in out["games"])
            print(f"cpu {method} / {m}: {new / sum(r[m]['cpu'] for r in out['games']):.2f}")
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / (args.name or f"summary-{datetime.date.today()}.json")).write_text(json.dumps(out, indent=1) + "\n")
    return 0


def _machine() -> str:
    try:
        txt = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        return next((l.split(":", 1)[1].strip() for l in txt.splitlines() if l.startswith("Model name")), "")
    except OSError:
        return ""


if __name__ == "__main__":
    sys.exit(main())
