"""The ladder of ``ismcts:level=K`` (docs/strength.md, "Levels") from the adjacent pairs' tournaments.

Reads bench/results/levels/pair-K-(K+1).jsonl (``kwsearch tournament -b ismcts:level=K -b
ismcts:level=K+1 -n 2 --games 200``), takes each file's Elo difference and its 95% interval over deal
sets (the report of ``kwsearch report``), and chains them: level 1 = 0 Elo, level K+1 = level K + the
pair's gap. A chained rating's interval adds the gaps' half-widths in quadrature on each side (the pairs
are independent tournaments; a normal approximation of intervals that are not quite symmetric). A
bot is taken for a level by its budget and temperature, however its spec spells them.

    python bench/levels_ladder.py            # the markdown tables of docs/strength.md

With skip-K-(K+2).jsonl (levels two apart) it also compares each measured gap with the sum of the
two adjacent gaps it spans (a check of the chain).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kwsearch.bots import LEVELS, BotSpec  # noqa: E402
from kwsearch.tournament import load_results, make_report  # noqa: E402

DIR = ROOT / "bench" / "results" / "levels"


def level_of(name: str) -> int | None:
    """The level a bot plays (``ismcts:level=5``, or the same budget and temperature spelled out:
    ``ismcts:iterations=2500,temp=0.01``), None for another bot."""
    spec = BotSpec.parse(name.partition("#")[0], check_files=False)
    if spec.name != "ismcts" or any(k not in ("level", "iterations", "temp") for k, _ in spec.options):
        return None
    limits, _ = spec.search_settings()
    key = (limits.iterations, spec.temperature())
    return next((i + 1 for i, lv in enumerate(LEVELS) if lv == key), None)


def pair(k: int, step: int = 1, prefix: str = "pair") -> dict | None:
    """The gap of level k+step over level k from ``{prefix}-k-(k+step).jsonl`` (None: not played)."""
    path = DIR / f"{prefix}-{k}-{k + step}.jsonl"
    if not path.exists():
        return None
    header, games, _ = load_results(path)
    elo = make_report(header, games).elo
    levels = (level_of(elo["bot"]), level_of(elo["opponent"]))
    if sorted(levels) != [k, k + step]:
        raise SystemExit(f"{path}: expected levels {k} and {k + step}, got {elo['bot']} and {elo['opponent']}")
    sign = 1 if levels[0] == k + step else -1  # the gap: the higher level minus the lower
    low, high = (sign * x for x in elo["ci95"])
    low, high = min(low, high), max(low, high)
    score = elo["score"] if sign == 1 else 1 - elo["score"]
    return {"games": len(games), "gap": sign * elo["elo"], "low": low, "high": high, "score": score}


def main() -> None:
    rows = ["| level | iterations | temperature | pair | games | higher level's score | gap (Elo, 95% CI) "
            "| ladder (Elo, ≈95% CI) |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    rating, lo2, hi2 = 0.0, 0.0, 0.0
    rows.append(f"| 1 | {LEVELS[0][0]:,} | {LEVELS[0][1]:g} | — | — | — | — | 0 |")
    for k in range(1, len(LEVELS)):
        p = pair(k)
        it, t = LEVELS[k]
        if p is None:
            rows.append(f"| {k + 1} | {it:,} | {t:g} | {k}–{k + 1} | not played | | | |")
            continue
        rating += p["gap"]
        lo2 += (p["gap"] - p["low"]) ** 2
        hi2 += (p["high"] - p["gap"]) ** 2 if math.isfinite(p["high"]) else math.inf
        high = "+inf" if not math.isfinite(hi2) else f"{rating + math.sqrt(hi2):.0f}"
        rows.append(f"| {k + 1} | {it:,} | {t:g} | {k}–{k + 1} | {p['games']} | {100 * p['score']:.1f}% "
                    f"| {p['gap']:+.0f} [{p['low']:+.0f}, {p['high']:+.0f}] "
                    f"| {rating:.0f} [{rating - math.sqrt(lo2):.0f}, {high}] |")
    print("\n".join(rows))
    skips = [(k, pair(k, 2, "skip")) for k in range(1, len(LEVELS) - 1)]
    if any(p for _, p in skips):
        print("\n| pair (two levels apart) | games | higher level's score | measured gap (Elo, 95% CI) "
              "| the two adjacent gaps' sum |")
        print("| --- | --- | --- | --- | --- |")
        for k, p in skips:
            if p is None:
                continue
            a, b = pair(k), pair(k + 1)
            chained = f"{a['gap'] + b['gap']:+.0f}" if a and b else "—"
            print(f"| {k}–{k + 2} | {p['games']} | {100 * p['score']:.1f}% | {p['gap']:+.0f} "
                  f"[{p['low']:+.0f}, {p['high']:+.0f}] | {chained} |")


if __name__ == "__main__":
    main()
