"""Paired CPU-time speed of two builds of kwsearch, in interleaved rounds (issue 28).

    python bench/paired_speed.py OLD_CHECKOUT NEW_CHECKOUT [ROUNDS]

Each checkout must have its extensions built in place (``python setup.py build_ext --inplace``).
A round runs one process per build (alternating which goes first), each timing with
``time.process_time()``: C-level playouts per CPU second (random, tempo, smart, from a
four-player set-up), search iterations per CPU second with random and smart rollouts (on
examples/midgame-4p.json and the four-player set-up) and with the default settings for two,
three and four players (``SearchConfig()``, on the position 10 random decisions after the set-up
with seed 11, after a warm-up search that loads the evaluation). Only the public API
(``search``, ``SearchConfig``) is used, so any two builds since issue 16 compare. Prints each
build's median and the median, min and max of the per-round ratio new/old.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

MIDGAME = Path(__file__).resolve().parent.parent / "examples" / "midgame-4p.json"
#: Iterations of each default-settings search (the settings table's defaults for the player count).
DEFAULT_ITERATIONS = 60000


def one_round() -> dict:
    """The rates of the kwsearch on sys.path (run in a child process)."""
    from kwsearch import _fast
    from kwsearch.engine import state_from_json
    from kwsearch.rules import Game
    from kwsearch.search import DEFAULT_PLAYOUT, SearchConfig, SearchLimits, search
    try:
        from kwsearch import _playout as policies
    except ImportError:  # a build before the split (issue 28)
        policies = _fast

    def rate(fn, count):
        t = time.process_time()
        fn()
        return count / (time.process_time() - t)

    mid = state_from_json(json.loads(MIDGAME.read_text()), engine="fast")
    start4 = _fast.new_state(Game(4), seed=5)
    out = {
        "random playouts/s 4p-start": rate(lambda: _fast.bench_playouts(start4, 40000, 11), 40000),
        "tempo playouts/s 4p-start": rate(lambda: policies.bench_playouts_counted(start4, 40000, 11, True), 40000),
        "smart playouts/s 4p-start": rate(lambda: [policies.smart_playout_trace(start4, s, DEFAULT_PLAYOUT)
                                                   for s in range(10000)], 10000),
    }
    for name, st in (("4p-mid", mid), ("4p-start", start4)):
        for rollout in ("random", "smart"):
            it = 300000 if name == "4p-mid" else 40000
            out[f"search {rollout} it/s {name}"] = rate(
                lambda: search(st, SearchLimits(iterations=it), SearchConfig(rollout=rollout), seed=3), it)
    for players in (2, 3, 4):
        st = _fast.new_state(Game(players), seed=11)
        pick = random.Random(11)
        for _ in range(10):
            st.apply(pick.choice(st.legal_actions()))
        search(st, SearchLimits(iterations=2000), SearchConfig(), seed=5)  # warm-up: loads the evaluation
        out[f"search default it/s {players}p"] = rate(
            lambda: search(st, SearchLimits(iterations=DEFAULT_ITERATIONS), SearchConfig(), seed=5),
            DEFAULT_ITERATIONS)
    return out


def main(argv: list[str]) -> int:
    if argv and argv[0] == "--round":
        print(json.dumps(one_round()))
        return 0
    builds = {"old": argv[0], "new": argv[1]}
    rounds = int(argv[2]) if len(argv) > 2 else 8
    res: dict[str, list[dict]] = {k: [] for k in builds}
    for r in range(rounds):
        for k in (("old", "new") if r % 2 == 0 else ("new", "old")):
            env = dict(os.environ, PYTHONPATH=builds[k])
            done = subprocess.run([sys.executable, __file__, "--round"], env=env, capture_output=True,
                                  text=True, cwd="/", check=True)
            res[k].append(json.loads(done.stdout))
    for m in res["old"][0]:
        ratios = [n[m] / o[m] for o, n in zip(res["old"], res["new"])]
        print(f"{m:28s} old {statistics.median(x[m] for x in res['old']):9.0f}  "
              f"new {statistics.median(x[m] for x in res['new']):9.0f}  new/old median "
              f"{statistics.median(ratios):.3f} (min {min(ratios):.3f}, max {max(ratios):.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
