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
import json
import math
import sys
from pathlib import Path


def search_results(path: Path) -> tuple[str, dict[int, tuple[float, float, int]]]:
    """The file's first bot and, per game, its (win share, money, deck seed)."""
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    spec = lines[0]["bots"][0]
    out = {}
    for r in lines[1:]:
        if "game" not in r:
            continue
        seat = r["seats"].index(spec)
        out[r["game"]] = (r["returns"][seat], r["money"][seat], r["deck_seed"])
    return spec, out


def mean_half(xs: list[float]) -> tuple[float, float]:
    m = sum(xs) / len(xs)
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1)) if len(xs) > 1 else 0.0
    return m, 1.96 * sd / math.sqrt(len(xs))


def compare(base: dict, cand: dict) -> dict:
    common = sorted(set(base) & set(cand))
    sets: dict[int, list[int]] = {}
    for g in common:
        if base[g][2] != cand[g][2]:
            raise ValueError(f"game {g} was dealt from another deck (not the same --seed)")
        sets.setdefault(base[g][2], []).append(g)
    per = list(sets.values())
    score = mean_half([sum(cand[g][0] for g in gs) / len(gs) for gs in per])
    ref = mean_half([sum(base[g][0] for g in gs) / len(gs) for gs in per])
    diff = mean_half([sum(cand[g][0] - base[g][0] for g in gs) / len(gs) for gs in per])
    money = mean_half([sum(cand[g][1] - base[g][1] for g in gs) / len(gs) for gs in per])
    return {"games": len(common), "deal_sets": len(per), "score": score, "base": ref, "diff": diff, "money": money}


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
