"""Search benchmark: ISMCTS iterations per second, 1 and 2 workers, and bytes per node.

    python bench/bench_search.py            # writes its section of bench/RESULTS.md
    python bench/bench_search.py --quick    # prints only

From the 4-player opening and from ``examples/midgame-4p.json``: one worker with an
iteration limit (best of ``--repeat`` runs), and root-parallel searches with 1 and
2 worker processes under the same time limit, whose throughput is the summed
iterations over the wall-clock time of the whole call (process start-up included)
and over the searching time alone.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from bench_engine import machine, write_results  # noqa: E402
from kwsearch import _search  # noqa: E402
from kwsearch.engine import state_from_json  # noqa: E402
from kwsearch.rules import Game  # noqa: E402
from kwsearch.search import SearchConfig, SearchLimits, search  # noqa: E402

BEGIN, END = "<!-- BEGIN bench_search -->", "<!-- END bench_search -->"


def positions() -> dict[str, object]:
    mid = json.loads((ROOT / "examples" / "midgame-4p.json").read_text())
    return {"4-player opening": Game(4).new_initial_state(1),
            "mid-game (examples/midgame-4p.json)": state_from_json(mid, seed=1)}


def run(quick: bool, repeat: int) -> dict:
    iters = 20_000 if quick else 100_000
    seconds = 1.0 if quick else 5.0
    rows = []
    print(f"{'position':40s} {'setting':34s} {'iterations/s':>14s}")
    for name, st in positions().items():
        best = 0.0
        nodes = 0
        for r in range(repeat):
            res = search(st, SearchLimits(iterations=iters), seed=r)
            best = max(best, res.iterations_per_second)
            nodes = res.nodes
        rows.append((name, f"1 worker, {iters:,} iterations", best, None))
        print(f"{name:40s} {rows[-1][1]:34s} {best:14,.0f}", flush=True)
        per_worker = {}
        for workers in (1, 2):
            t0 = time.perf_counter()
            res = search(st, SearchLimits(seconds=seconds), SearchConfig(workers=workers), seed=1)
            wall = time.perf_counter() - t0
            per_worker[workers] = res.iterations / wall
            label = (f"{workers} worker processes, {seconds:g} s" if workers > 1
                     else f"1 worker (in process), {seconds:g} s")
            rows.append((name, label, res.iterations / wall, res.iterations / res.elapsed))
            print(f"{name:40s} {label:34s} {res.iterations / wall:14,.0f}  "
                  f"(searching time only: {res.iterations / res.elapsed:,.0f})", flush=True)
        rows.append((name, "2 workers / 1 worker (wall clock)", per_worker[2] / per_worker[1], None))
        print(f"{name:40s} {'2 workers / 1 worker':34s} {per_worker[2] / per_worker[1]:14.2f}x")
    return {"machine": machine(), "rows": rows, "node_bytes": _search.Tree.node_bytes(), "nodes": nodes}


def to_markdown(res: dict, quick: bool) -> str:
    m = res["machine"]
    lines = [BEGIN, "## Search (`bench/bench_search.py`)", "",
             f"Measured {m['date']} on {m['cpu']}, Python {m['python']}, Cython {m['cython']}"
             f"{' — quick run' if quick else ''}. ISMCTS with the default configuration (c = 0.7, win-share "
             "reward, random playouts). Worker rows: summed iterations over the wall-clock time of the whole "
             "call, process start-up included (in brackets: over the searching time alone).", "",
             f"A node takes {res['node_bytes']} bytes (the node pool is one array of them).", "",
             "| position | setting | iterations/s |", "| --- | --- | ---: |"]
    for name, label, value, inner in res["rows"]:
        if label.startswith("2 workers / 1"):
            lines.append(f"| {name} | {label} | {value:.2f}× |")
        else:
            extra = f" ({inner:,.0f})" if inner else ""
            lines.append(f"| {name} | {label} | {value:,.0f}{extra} |")
    lines.append(END)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    res = run(args.quick, args.repeat)
    if not args.quick and not args.no_write:
        write_results(to_markdown(res, args.quick), BEGIN, END)
        print(f"\nwrote {HERE / 'RESULTS.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
