"""How often do two seeds disagree on a review's mark, by the rule that stops the sequential
verification? A simulation of :func:`kwsearch.review.in_doubt`'s rounds (bench/RESULTS.md, "Review
trust: a loss on the line, and common decks").

    python bench/tools/doubt_sim.py

A decision's chunks are modelled as independent normal draws: the move played's win share with a
spread of ``--sd-played`` points a chunk, the best's ``--sd-best`` (3p-2 ply 127's measured 1.5 and
3.4 at the review's 4,000 iterations), the true loss ``L`` between them. Round k holds 3k chunks of
each; the loss's half-width is ``t(0.975, 6k - 2) * sd * sqrt(2 / 3k)`` (``sd`` pooled), and a
decision stops with a mark when the loss minus its half-width clears the mistake line (10 points)
by the doubt zone ``zone / sqrt(k)``, without one when the loss plus its half-width (plus
``--no-mark-zone / sqrt(k)``) is below the line, and is judged at the cap otherwise. For each rule it
prints the chance of a mark at every ``L`` from 6 to 16 points and the flip integral, the sum over
``L`` (steps of 0.5) of ``2 p (1 - p) * 0.5``: the expected number of pairs of seeds that disagree
per decision, for decisions whose true losses are spread evenly, one per point, over that range.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from kwsearch.confidence import t975  # noqa: E402


def mark_chance(loss: float, rng, *, cap: int, zone: float, no_mark_zone: float, sd_played: float,
                sd_best: float, n: int) -> tuple[float, float]:
    """(share of ``n`` simulated decisions marked, mean rounds) at true loss ``loss`` (points)."""
    marks = rounds = 0
    played = rng.normal(0.0, sd_played, (n, 3 * cap))
    best = rng.normal(loss, sd_best, (n, 3 * cap))
    for i in range(n):
        for k in range(1, cap + 1):
            m = 3 * k
            x, y = best[i, :m], played[i, :m]
            est = x.mean() - y.mean()
            sd = np.sqrt((((x - x.mean()) ** 2).sum() + ((y - y.mean()) ** 2).sum()) / (2 * m - 2))
            half = t975(2 * m - 2) * sd * np.sqrt(2 / m)
            if est - half - zone / np.sqrt(k) >= 10 or est + half + no_mark_zone / np.sqrt(k) < 10 or k == cap:
                marks += est - half >= 10
                rounds += k
                break
    return marks / n, rounds / n


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=500, help="simulated decisions per loss")
    ap.add_argument("--seed", type=int, default=2)
    ap.add_argument("--sd-played", type=float, default=1.5)
    ap.add_argument("--sd-best", type=float, default=3.4)
    a = ap.parse_args(argv)
    rules = [("today's rule (20 rounds, zone 1)", {"cap": 20, "zone": 1.0, "no_mark_zone": 0.0}),
             ("40 rounds", {"cap": 40, "zone": 1.0, "no_mark_zone": 0.0}),
             ("zone 2", {"cap": 20, "zone": 2.0, "no_mark_zone": 0.0}),
             ("a zone of 1 before stopping without a mark too", {"cap": 20, "zone": 1.0, "no_mark_zone": 1.0})]
    losses = np.arange(6.0, 16.01, 0.5)
    for name, rule in rules:
        rng = np.random.default_rng(a.seed)
        ps, rs = zip(*(mark_chance(L, rng, sd_played=a.sd_played, sd_best=a.sd_best, n=a.n, **rule) for L in losses))
        flips = sum(2 * p * (1 - p) * 0.5 for p in ps)
        print(f"{name}: flip integral {flips:.3f}, mean rounds {np.mean(rs):.2f}; chance of a mark by loss: "
              + ", ".join(f"{L:g}: {p:.2f}" for L, p in zip(losses, ps) if 0.005 < p < 0.995), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
