"""Are the seeds' disagreements near ties? (issue 17, item 6; docs/strength.md, "Stable advice").

    python bench/near_ties.py bench/results/strength17/stability/cut30-searched.json \
        --iterations 20000 --seeds 5 --out bench/results/strength17/stability/near-ties-default4p.json

For every position of a ``bench/stability.py`` result where the seeds named different top moves,
each option some seed named is searched on its own: ``--seeds`` searches of ``--iterations``
iterations that all take that option at the root (the forced root option of
``kwsearch._search.run_slice``; the default four-player search below it), each with its own seed
``derive_seed(seed, "near-tie", position, option, k)``. The mover's mean reward per search, its
mean over the searches and the spread between them say how far apart the options are, and how
much of that the search's own seed moves. A disagreement is a *near tie* when the gap between the
best two options is below the larger spread of their values over the seeds, and a *practical tie*
when it is also below ``--tie`` (0.005 of mean reward: half a point of win share). The positions are redrawn with the result's seed
(``stability.sample_positions``), so the result file fixes everything.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for p in (ROOT, HERE):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

import stability  # noqa: E402
from kwsearch import _search  # noqa: E402
from kwsearch.engine import convert  # noqa: E402
from kwsearch.search import SearchConfig, search_params  # noqa: E402
from kwsearch.seeds import derive_seed  # noqa: E402


def option_values(state, action: int, config: SearchConfig, iterations: int, seeds: list[int]) -> list[float]:
    """The mover's mean reward after ``action``, from one forced search per seed."""
    fast = convert(state, "fast")
    n = fast.game.num_players
    params = search_params(replace(config, determinize=True, closed_loop=False, prior=0.0, prior_playout=0.0,
                                   prior_weights=None), n)
    mover = fast.current_player()
    out = []
    for s in seeds:
        tree = _search.Tree(config.max_nodes)
        _search.run_slice(tree, fast, params, iterations, 0.0, s, action)
        (child,) = [c for c in tree.children(0) if c[0] == action]
        out.append(child[5][mover] / child[2])
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("result", help="a bench/stability.py JSON result")
    ap.add_argument("--iterations", type=int, default=20_000)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--tie", type=float, default=0.005,
                    help="a gap below this (mean reward, 0..1) counts as a practical tie too")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    res = json.loads(Path(args.result).read_text())
    spec = res["spec"]
    _, _, config = stability.search_settings(spec, args.iterations)
    config = config.for_players(res["players"])
    sample = stability.sample_positions(res["positions"], res["players"], res["seed"])
    rows = []
    t0 = time.process_time()
    for row in res["rows"]:
        if row["agree"]:
            continue
        st = sample[row["position"]]["state"]
        by_text = {st.action_to_text(a): a for a in st.legal_actions()}
        named = sorted({r["top"] for r in row["runs"]})
        options = []
        for text in named:
            a = by_text[text]
            vals = option_values(st, a, config, args.iterations,
                                 [derive_seed(res["seed"], "near-tie", row["position"], a, k)
                                  for k in range(args.seeds)])
            options.append({"option": text, "named_by": sum(r["top"] == text for r in row["runs"]),
                            "values": [round(v, 4) for v in vals], "mean": round(statistics.mean(vals), 4),
                            "sd": round(statistics.stdev(vals), 4)})
        options.sort(key=lambda o: -o["mean"])
        gap = options[0]["mean"] - options[1]["mean"]
        spread = max(o["sd"] for o in options[:2])
        rows.append({"position": row["position"], "stage": row["stage"], "task": row["task"], "options": options,
                     "gap": round(gap, 4), "spread": round(spread, 4), "near_tie": gap < spread,
                     "practical_tie": gap < max(spread, args.tie)})
        print(f"position {row['position']} ({row['task']}): gap {gap:.4f}, seed spread {spread:.4f}"
              f"{' (near tie)' if gap < spread else ''}: "
              + "; ".join(f"{o['option']} {o['mean']:.3f}±{o['sd']:.3f} (named by {o['named_by']})" for o in options))
    out = {"source": args.result, "spec": spec, "iterations": args.iterations, "seeds": args.seeds,
           "tie": args.tie, "positions": res["positions"], "agree": res["all_agree_count"],
           "disagreements": len(rows), "near_ties": sum(r["near_tie"] for r in rows),
           "practical_ties": sum(r["practical_tie"] for r in rows),
           "cpu_seconds": round(time.process_time() - t0, 1), "rows": rows}
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    print(f"{out['near_ties']} of {out['disagreements']} disagreements are near ties "
          f"(gap between the best two options below the larger seed-to-seed spread of their values); "
          f"{out['practical_ties']} with gaps below {args.tie:g} too")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
