"""Value targets from deeper searches (experiment for issue 17, round five).

For positions sampled from recorded 4-player games, run the candidate search (money weight 0, so the
root's mean rewards are win shares) for N iterations and store: the features of every seat, the
search's value vector (the most visited option's mean reward per seat) and the game's outcome.

    python bench/valtargets.py OUT.npz --iterations 16000 --every 12 --part 0 --parts 2 FILES...
"""
import argparse
import importlib.util
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if importlib.util.find_spec("kwsearch") is None:  # not installed: the checkout's own (built in place)
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
from kwsearch import _eval  # noqa: E402
from kwsearch.engine import convert  # noqa: E402
from kwsearch.game import win_shares  # noqa: E402
from kwsearch.records import replay  # noqa: E402
from kwsearch.search import SearchConfig, SearchLimits, search  # noqa: E402
from kwsearch.seeds import MASK64, derive_seed  # noqa: E402
from kwsearch.tournament import load_results  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("files", nargs="+", type=Path)
ap.add_argument("--iterations", type=int, default=16000)
ap.add_argument("--every", type=int, default=12)
ap.add_argument("--part", type=int, default=0)
ap.add_argument("--parts", type=int, default=1)
ap.add_argument("--seed", type=int, default=5)
ap.add_argument("--eval", default="searched")
args = ap.parse_args()

config = SearchConfig(rollout="smart", cutoff=30, evaluation=args.eval, money_weight=0.0)
X, V, Y, G = [], [], [], []
g = -1
for path in args.files:
    _, games, _ = load_results(path)
    for number in sorted(games):
        rec = games[number].get("record")
        if not rec or rec.get("players") != 4:
            continue
        g += 1
        if g % args.parts != args.part:
            continue
        steps: list = []
        final = replay(rec, steps=steps, source=f"{path} game {number}")
        if not final.is_terminal():
            continue
        out = win_shares(final.money())
        rng = np.random.default_rng(derive_seed(args.seed, "vt", path.name, number) & MASK64)
        at = int(rng.integers(0, args.every))
        while at < len(steps):
            state = steps[at][0]
            fast = convert(state, "fast")
            r = search(state, SearchLimits(iterations=args.iterations), config,
                       seed=derive_seed(args.seed, "vt-search", path.name, number, at) & MASK64)
            best = r.actions[0]  # the most visited option
            X.append(_eval.features(fast))
            V.append(list(best.mean_reward))
            Y.append(list(out))
            G.append(g)
            at += int(rng.integers(1, 2 * args.every))
        print(f"game {g}: {len(X)} positions", flush=True)
np.savez(args.out, X=np.array(X, dtype=float), V=np.array(V), Y=np.array(Y), G=np.array(G))
print("wrote", args.out, len(X))
