"""Stable advice with the equal band (issue 29's target; docs/confidence.md).

    python bench/stability_bands.py --out bench/results/strength17/stability/bands-default4p.json
    python bench/stability_bands.py --c-uct 0.25 --out bench/results/strength17/stability/bands-c025-4p.json
    python bench/stability_bands.py --cutoff 60 --out bench/results/strength17/stability/bands-cut60-4p.json

The positions and seeds of ``bench/stability.py`` (40 sampled four-player positions of seed 1, 5
search seeds ``derive_seed(seed, "search", p, k)``, 20,000 iterations); each search is a hint
(:func:`kwsearch.analysis.analyse`, top 5 re-searched alone, ``--until-clear`` with
``--until-clear``). Per position: the top move of every seed, every seed's equal band; the target
counts the positions where every seed's top move lies in every other seed's band (≥ 95%) and those
where the band holds a single option (≥ 70%; counted over all searches). Beside them, the re-searches'
precision: the median standard error of a re-searched option's win share, and the median gap between
the two best re-searched values (a band widens when the first grows or the second shrinks).
``--c-uct`` searches with another exploration constant, ``--cutoff`` with another playout cut-off
(in decisions; the hints' re-searches too).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
if importlib.util.find_spec("kwsearch") is None:  # not installed: the checkout's own (built in place)
    sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import stability  # noqa: E402
from kwsearch.analysis import analyse  # noqa: E402
from kwsearch.search import SearchConfig, SearchLimits  # noqa: E402
from kwsearch.seeds import derive_seed  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=40)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--iterations", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--until-clear", action="store_true")
    ap.add_argument("--c-uct", type=float, default=None, help="the exploration constant (default: the settings')")
    ap.add_argument("--cutoff", type=int, default=None,
                    help="the playout cut-off in decisions (default: the settings'; 0: to the end)")
    ap.add_argument("--out", default=None)
    a = ap.parse_args(argv)
    if a.cutoff is not None and a.cutoff < 0:
        ap.error(f"--cutoff: expected 0 or more decisions, got {a.cutoff}")
    sample = stability.sample_positions(a.positions, 4, a.seed)
    changed = {k: v for k, v in (("c_uct", a.c_uct), ("cutoff", a.cutoff)) if v is not None}
    config = SearchConfig(**changed)
    rows, ses, gaps = [], [], []
    t0 = time.process_time()
    for p, pos in enumerate(sample):
        st = pos["state"]
        runs = []
        for k in range(a.seeds):
            an = analyse(st, SearchLimits(iterations=a.iterations, until_clear=a.until_clear), config,
                         seed=derive_seed(a.seed, "search", p, k), top=5)
            v = an.verification
            wins = sorted((e.win for e in v.estimates.values()), reverse=True)
            ses += [e.win_se for e in v.estimates.values()]
            gaps += [wins[0] - wins[1]] if len(wins) > 1 else []
            runs.append({"top": an.ranked()[0].text, "band": [c.text for c in an.ranked() if c.equal],
                         "verdict": v.verdict, "rounds": v.rounds, "iterations": v.iterations,
                         "visits_top": an.candidates[0].text})
        stable = all(r["top"] in o["band"] for r in runs for o in runs)
        rows.append({"position": p, "stage": pos["stage"], "task": st.pending(), "stable": stable,
                     "single": sum(len(r["band"]) == 1 for r in runs) / len(runs), "runs": runs})
        print(f"  position {p}: {'stable' if stable else 'UNSTABLE'} tops {[r['top'] for r in runs]} "
              f"bands {[len(r['band']) for r in runs]}", flush=True)
    n = len(rows)
    used = config.for_analysis(4).for_players(4)  # what the hints searched with (kwsearch.analysis.analyse)
    res = {"positions": n, "seeds": a.seeds, "iterations": a.iterations, "seed": a.seed, "until_clear": a.until_clear,
           "c_uct": used.c_uct, "cutoff": used.cutoff,
           "stable": sum(r["stable"] for r in rows) / n, "single_band": sum(r["single"] for r in rows) / n,
           "all_single": sum(r["single"] == 1 for r in rows) / n,
           "visits_top_agree": sum(len({x["visits_top"] for x in r["runs"]}) == 1 for r in rows) / n,
           "verified_top_agree": sum(len({x["top"] for x in r["runs"]}) == 1 for r in rows) / n,
           "median_win_se": round(statistics.median(ses or [0.0]), 5),
           "median_top_gap": round(statistics.median(gaps or [0.0]), 5),
           "cpu_seconds": round(time.process_time() - t0, 1), "rows": rows}
    if a.out:
        Path(a.out).write_text(json.dumps(res, indent=1) + "\n")
    print(f"stable {res['stable']:.1%} (target 95%), single band {res['single_band']:.1%} of searches "
          f"(all seeds single {res['all_single']:.1%}; target 70%), top agree: by visits "
          f"{res['visits_top_agree']:.1%}, re-searched {res['verified_top_agree']:.1%}; re-searches: median standard "
          f"error {100 * res['median_win_se']:.2f} points, median gap of the two best {100 * res['median_top_gap']:.2f}; "
          f"CPU {res['cpu_seconds']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
