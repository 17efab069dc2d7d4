"""Paired comparison of tournaments played on the same decks (issue 32's screens; docs/strength.md).

    python bench/paired_matches.py BASE.jsonl CANDIDATE.jsonl [CANDIDATE.jsonl ...]

Each file is a ``kwsearch tournament`` results file of one search seat (the first bot of its
header) against the same opponents, played with the same ``--seed`` as BASE, so game ``k`` of
every file is dealt from the same deck with the same seats rotated. For each candidate this
prints the search seat's win share (1 for a sole win, split on ties) with its 95% normal interval
over deal sets (the games sharing a deck), BASE's on the same games, and the paired difference
(candidate minus BASE, deal set by deal set) of the win share in points and of the money, each
with its 95% interval. A candidate file on other decks is refused in one line.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
for _p in (str(HERE.parent), str(HERE)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

from acceptance import deal_scores  # noqa: E402  (bench/acceptance.py: bot 0's score per complete deal set)
from panel import interval  # noqa: E402  (bench/panel.py: a mean and its 95% normal interval)


def search_results(path: Path) -> tuple[str, dict[int, tuple[float, float, int, int]]]:
    """The file's first bot (bot 0) and, per complete deal set ``k``, its (win share, money, deck seed,
    games): the means over the deal's games, every rotation dealt from one deck."""
    header, games, _, deals = deal_scores(path)
    n = header["players"]
    out = {}
    for k, share in deals.items():
        block = [games[i] for i in range(k * n, (k + 1) * n)]
        money = sum(m for g in block for m, b in zip(g["money"], g["bots"]) if b == 0) / n
        out[k] = (share, money, block[0]["deck_seed"], n)
    return header["bots"][0], out


def mean_half(xs: list[float]) -> tuple[float, float]:
    m, lo, hi = interval(xs)
    return m, (hi - lo) / 2


def compare(base: dict, cand: dict) -> dict:
    """The candidate's deal sets paired with ``base``'s of the same deal: scores, difference and money,
    each ``(mean, 95% half-width)``."""
    common = sorted(set(base) & set(cand))
    for k in common:
        if base[k][2] != cand[k][2]:
            raise ValueError(f"deal {k} was dealt from another deck (not the same --seed)")
    score = mean_half([cand[k][0] for k in common])
    ref = mean_half([base[k][0] for k in common])
    diff = mean_half([cand[k][0] - base[k][0] for k in common])
    money = mean_half([cand[k][1] - base[k][1] for k in common])
    return {"games": sum(cand[k][3] for k in common), "deal_sets": len(common), "score": score, "base": ref,
            "diff": diff, "money": money}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base", type=Path)
    ap.add_argument("candidates", type=Path, nargs="+")
    a = ap.parse_args()
    _, base = search_results(a.base)
    for path in a.candidates:
        spec, cand = search_results(path)
        try:
            c = compare(base, cand)
        except ValueError as exc:
            print(f"error: {path}: {exc}", file=sys.stderr)
            return 2
        (s, sh), (b, _), (d, dh), (m, mh) = c["score"], c["base"], c["diff"], c["money"]
        print(f"{spec}: {c['games']} games ({c['deal_sets']} deal sets): {100 * s:.1f}% "
              f"[{100 * (s - sh):.1f}, {100 * (s + sh):.1f}], base {100 * b:.1f}%; paired difference "
              f"{100 * d:+.1f} [{100 * (d - dh):+.1f}, {100 * (d + dh):+.1f}] points, money {m:+.1f} "
              f"[{m - mh:+.1f}, {m + mh:+.1f}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
