"""What the cards-and-places accounting costs a search (issue 30 item 5: at most 10% CPU time).

    python bench/bench_outlook.py [--iterations N] [--rounds R] [--no-results]

For 2, 3 and 4 players, the default search settings (``SearchConfig()``: smart playouts cut off
with 2 and 4 players, tempo playouts to the end with 3) on the position 10 random decisions after
the set-up with seed 11 (as bench/paired_speed.py), and examples/midgame-4p.json: the same search
(same seed, same iterations) with and without the accounting, side by side in one process,
alternating which goes first, timed in process CPU time (``time.process_time()``). "With" includes
reading the tables into every option's card split and every seat's places (kwsearch.outlook), as a
hint does. Prints each position's median CPU seconds and the median, min and max of the per-round
ratio with/without, and writes section ``bench_outlook`` of bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import random
import statistics
import importlib.util
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
if importlib.util.find_spec("kwsearch") is None:  # not installed: the checkout's own (built in place)
    sys.path.insert(0, str(HERE.parent))

BEGIN, END = "<!-- BEGIN bench_outlook -->", "<!-- END bench_outlook -->"
LIMIT = 0.10


def positions() -> list[tuple[str, object]]:
    from kwsearch.engine import state_from_json
    from kwsearch.rules import Game
    out = []
    for n in (2, 3, 4):
        st = Game(n).new_initial_state(seed=11)
        rng = random.Random(11)
        for _ in range(10):
            st.apply(rng.choice(st.legal_actions()))
        out.append((f"{n}p, 10 decisions after the set-up (seed 11)", state_from_json(st.to_json(), engine="fast")))
    mid = json.loads((HERE.parent / "examples" / "midgame-4p.json").read_text())
    out.append(("4p, examples/midgame-4p.json", state_from_json(mid, engine="fast")))
    return out


def timed(state, iterations: int, account: bool) -> float:
    from kwsearch.outlook import option_cards, places
    from kwsearch.search import SearchConfig, SearchLimits, search
    t = time.process_time()
    r = search(state, SearchLimits(iterations=iterations), SearchConfig(), seed=3, account=account)
    if account:
        comps = state.game.components
        for a in r.actions:
            option_cards(comps, r.accounts, a.action)
            places(r.accounts, state.game.num_players, a.action)
    return time.process_time() - t


def measure(iterations: int, rounds: int) -> dict:
    rows = []
    for name, st in positions():
        timed(st, 500, True)  # warm-up: loads the evaluation
        plain, counted, ratios = [], [], []
        for k in range(rounds):
            if k % 2 == 0:
                a = timed(st, iterations, False)
                b = timed(st, iterations, True)
            else:
                b = timed(st, iterations, True)
                a = timed(st, iterations, False)
            plain.append(a)
            counted.append(b)
            ratios.append(b / a)
        rows.append({"position": name, "without": statistics.median(plain), "with": statistics.median(counted),
                     "ratio": statistics.median(ratios), "min": min(ratios), "max": max(ratios)})
        print(f"{name}: without {rows[-1]['without']:.3f} s, with {rows[-1]['with']:.3f} s CPU; ratio median "
              f"{rows[-1]['ratio']:.3f} (min {rows[-1]['min']:.3f}, max {rows[-1]['max']:.3f})")
    return {"iterations": iterations, "rounds": rounds, "rows": rows, "date": datetime.date.today().isoformat(),
            "machine": f"{platform.processor() or platform.machine()}, {platform.platform()}, "
                       f"Python {platform.python_version()}"}


def markdown(res: dict) -> str:
    worst = max(r["ratio"] for r in res["rows"])
    lines = [BEGIN, "## Cards and places: the accounting's cost (issue 30)", "",
             f"Written by `bench/bench_outlook.py` on {res['date']} ({res['machine']}). Each position: "
             f"{res['rounds']} rounds of the same search ({res['iterations']:,} iterations, default settings for "
             "the player count, seed 3, one worker) without and with the cards-and-places accounting, side by "
             "side in one process, alternating which goes first; process CPU time (`time.process_time()`). "
             "\"With\" includes reading the tables into every option's card split and every seat's places "
             "(`kwsearch.outlook`), as a hint does.", "",
             "| position | CPU s without | CPU s with | with / without (median) | min | max |",
             "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for r in res["rows"]:
        lines.append(f"| {r['position']} | {r['without']:.3f} | {r['with']:.3f} | {r['ratio']:.3f} | "
                     f"{r['min']:.3f} | {r['max']:.3f} |")
    lines += ["", f"Largest median added cost: {100 * (worst - 1):+.1f}% (limit {100 * LIMIT:.0f}%: "
              f"{'met' if worst <= 1 + LIMIT else 'not met'}).", END]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=20_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--results", default=str(HERE / "RESULTS.md"))
    ap.add_argument("--no-results", action="store_true")
    a = ap.parse_args(argv)
    res = measure(a.iterations, a.rounds)
    if not a.no_results:
        from kwsearch.benchmarks import write_results
        write_results(a.results, markdown(res), BEGIN, END)
    return 0


if __name__ == "__main__":
    sys.exit(main())
