"""The ladder of ``ismcts:level=K`` (docs/strength.md, "Levels") from the adjacent pairs' tournaments.

Reads bench/results/levels/pair-K-(K+1).jsonl (``kwsearch tournament -b ismcts:level=K -b
ismcts:level=K+1 -n 2 --games 200``), takes each file's Elo difference and its 95% interval over deal
sets (the report of ``kwsearch report``), and chains them: level 1 = 0 Elo, level K+1 = level K + the
pair's gap. A chained rating's interval adds the gaps' half-widths in quadrature on each side (the pairs
are independent tournaments; a normal approximation of intervals that are not quite symmetric). A
bot is taken for a level by its budget and temperature, however its spec spells them.

    python bench/levels_ladder.py            # the markdown tables of docs/strength.md
    python bench/levels_ladder.py --dir bench/results/levels/c07   # the two-player ladder before c = 0.3
    python bench/levels_ladder.py --dir bench/results/levels/c04-3p   # the three-player one before c = 0.25
    python bench/levels_ladder.py --dir bench/results/levels/c04-4p   # the four-player one before c = 0.25

With skip-K-(K+2).jsonl (levels two apart) it also compares each measured gap with the sum of the
two adjacent gaps it spans (a check of the chain).

Three and four players: bench/results/levels/pair3p-K-(K+1).jsonl and pair4p-K-(K+1).jsonl (the same
command with ``-n 3`` / ``-n 4``). A tournament of two bots at three seats alternates its line-ups
deal by deal: one seat of level K+1 against two of level K, then one seat of K against two of K+1
(each rotated over the three seats, one deal set); at four seats it plays two seats each (K, K+1, K,
K+1, rotated). The gap is again the report's Elo over deal sets, of the score
:func:`kwsearch.tournament.pair_score` gives a bot: its seats' share of the win, scaled so that the
share its seats would win at equal strength (1/3 or 2/3; 1/2) counts 0.5, all wins 1 and none 0. Beside
it, the finish-ahead comparison: of every meeting of a K+1 seat with a K seat in a game (2 a game at
three seats, 4 at four), the share the higher level finished ahead in money (ties ½), its Elo and
interval over the same deal sets (the pairwise reading of a many-player game; with two players it is
the win share). Each table says whether each gap is at least 100 Elo: over its whole 95% interval,
in its estimate only, or not. An unfinished file (a run still going, or stopped) is read as far as
it goes and says so.
"""

from __future__ import annotations

import math
import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if importlib.util.find_spec("kwsearch") is None:  # not installed: the checkout's own (built in place)
    sys.path.insert(0, str(ROOT))

from kwsearch.bots import LEVELS, BotSpec  # noqa: E402
from kwsearch.tournament import elo_interval, load_results, make_report, spec_from_header  # noqa: E402

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


#: The files of each player count: ``{prefix}-K-L.jsonl``.
PREFIX = {2: "pair", 3: "pair3p", 4: "pair4p"}


def ahead_score(g: dict, high: int) -> float:
    """The share of the meetings of a game in which a seat of bot ``high`` finished with more money than
    a seat of the other bot (ties ½): every seat of one bot against every seat of the other."""
    seats, money = g["bots"], g["money"]
    pairs = [(money[s], money[t]) for s, a in enumerate(seats) for t, b in enumerate(seats) if a == high != b]
    return sum(1.0 if x > y else 0.5 if x == y else 0.0 for x, y in pairs) / len(pairs)


def ahead_sets(spec, games: dict[int, dict], high: int) -> list[float]:
    """:func:`ahead_score` per complete deal set, in order, up to the first incomplete one (as the
    report's deal-set scores)."""
    out, block = [], 0
    while all(i in games for i in range(block * spec.players, (block + 1) * spec.players)):
        members = range(block * spec.players, (block + 1) * spec.players)
        out.append(sum(ahead_score(games[i], high) for i in members) / spec.players)
        block += 1
    return out


def pair(k: int, step: int = 1, prefix: str = "pair", players: int = 2, directory: Path = DIR) -> dict | None:
    """The gap of level k+step over level k from ``{prefix}-k-(k+step).jsonl`` in ``directory`` (None:
    not played): the report's Elo over deal sets (``gap``, ``low``, ``high``, ``score``) and the
    finish-ahead comparison (``ahead``: share, Elo and its 95% interval over the same deal sets)."""
    path = directory / f"{prefix}-{k}-{k + step}.jsonl"
    if not path.exists():
        return None
    header, games, _ = load_results(path)
    if header["players"] != players:
        raise SystemExit(f"{path}: expected {players} players, the file has {header['players']}")
    elo = make_report(header, games).elo
    levels = (level_of(elo["bot"]), level_of(elo["opponent"]))
    if sorted(levels) != [k, k + step]:
        raise SystemExit(f"{path}: expected levels {k} and {k + step}, got {elo['bot']} and {elo['opponent']}")
    sign = 1 if levels[0] == k + step else -1  # the gap: the higher level minus the lower
    low, high = (sign * x for x in elo["ci95"])
    low, high = min(low, high), max(low, high)
    score = elo["score"] if sign == 1 else 1 - elo["score"]
    sets = ahead_sets(spec_from_header(header), games, 0 if sign == 1 else 1)
    a, alo, ahi = elo_interval(sets)
    return {"games": len(games), "scheduled": header["games"], "gap": sign * elo["elo"], "low": low, "high": high, "score": score,
            "ahead": {"share": sum(sets) / len(sets) if sets else None, "elo": a, "low": alo, "high": ahi}}


def _elo(x: float) -> str:
    return "+inf" if x == math.inf else "-inf" if x == -math.inf else f"{x:+.0f}"


def verdict(p: dict) -> str:
    """Whether a gap is at least 100 Elo: its whole interval, its estimate only, or not."""
    if p["low"] >= 100:
        return "yes"
    return "estimate only (interval reaches below 100)" if p["gap"] >= 100 else "**no**"


def table(players: int, directory: Path = DIR) -> list[str]:
    """The markdown table of the ladder at ``players`` seats."""
    multi = players > 2
    head = ["level", "iterations", "temperature", "pair", "games", "higher level's score", "gap (Elo, 95% CI)"]
    if multi:
        head += ["gap ≥ 100?"]
    head += ["ladder (Elo, ≈95% CI)"]
    if multi:
        head += ["finishes ahead", "finish-ahead Elo (95% CI)"]
    rows = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    rating, lo2, hi2, chained = 0.0, 0.0, 0.0, True  # chained: every pair below was played
    first = [1, f"{LEVELS[0][0]:,}", f"{LEVELS[0][1]:g}", "—", "—", "—", "—"] + (["—"] if multi else []) + ["0"]
    rows.append("| " + " | ".join(map(str, first + (["—", "—"] if multi else []))) + " |")
    for k in range(1, len(LEVELS)):
        p = pair(k, prefix=PREFIX[players], players=players, directory=directory)
        it, t = LEVELS[k]
        if p is None:
            chained = False
            cells = [k + 1, f"{it:,}", f"{t:g}", f"{k}–{k + 1}", "not played"] + [""] * (len(head) - 5)
            rows.append("| " + " | ".join(map(str, cells)) + " |")
            continue
        rating += p["gap"]
        lo2 += (p["gap"] - p["low"]) ** 2
        hi2 += (p["high"] - p["gap"]) ** 2 if math.isfinite(p["high"]) else math.inf
        high = "+inf" if not math.isfinite(hi2) else f"{rating + math.sqrt(hi2):.0f}"
        games = p["games"] if p["games"] >= p["scheduled"] else f"{p['games']} of {p['scheduled']} (unfinished)"
        cells = [k + 1, f"{it:,}", f"{t:g}", f"{k}–{k + 1}", games, f"{100 * p['score']:.1f}%",
                 f"{_elo(p['gap'])} [{_elo(p['low'])}, {_elo(p['high'])}]"]
        if multi:
            cells.append(verdict(p))
        cells.append(f"{rating:.0f} [{rating - math.sqrt(lo2):.0f}, {high}]" if chained else "— (a pair below "
                     "not played)")
        if multi:
            a = p["ahead"]
            cells += [f"{100 * a['share']:.1f}%" if a["share"] is not None else "—",
                      f"{_elo(a['elo'])} [{_elo(a['low'])}, {_elo(a['high'])}]"]
        rows.append("| " + " | ".join(map(str, cells)) + " |")
    return rows


def main() -> None:
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", type=Path, default=DIR,
                    help="where the files are (default bench/results/levels; the ladders of defaults before "
                         "issue 32 changed their exploration constants: bench/results/levels/c07, two players "
                         "with c = 0.7, and bench/results/levels/c04-3p and c04-4p, three and four players "
                         "with c = 0.4)")
    args = ap.parse_args()
    directory = args.dir
    if not directory.is_dir():
        ap.error(f"--dir {directory}: no such directory")
    if directory != DIR:  # a folder of former ladders: the player counts it holds files of
        counts = [n for n in (2, 3, 4) if any(directory.glob(f"{PREFIX[n]}-*.jsonl"))]
        if not counts:
            ap.error(f"--dir {directory}: no pair-K-L.jsonl, pair3p-K-L.jsonl or pair4p-K-L.jsonl files")
        for i, players in enumerate(counts):
            print(("\n" if i else "") + f"{players} players ({directory}/{PREFIX[players]}-K-L.jsonl):\n")
            print("\n".join(table(players, directory)))
        if 2 not in counts:
            return
    else:
        print("\n".join(table(2, directory)))
    skips = [(k, pair(k, 2, "skip", directory=directory)) for k in range(1, len(LEVELS) - 1)]
    if any(p for _, p in skips):
        print("\n| pair (two levels apart) | games | higher level's score | measured gap (Elo, 95% CI) "
              "| the two adjacent gaps' sum |")
        print("| --- | --- | --- | --- | --- |")
        for k, p in skips:
            if p is None:
                continue
            a, b = pair(k, directory=directory), pair(k + 1, directory=directory)
            chained = f"{a['gap'] + b['gap']:+.0f}" if a and b else "—"
            print(f"| {k}–{k + 2} | {p['games']} | {100 * p['score']:.1f}% | {p['gap']:+.0f} "
                  f"[{p['low']:+.0f}, {p['high']:+.0f}] | {chained} |")
    if directory != DIR:
        return
    for players in (3, 4):
        print(f"\n{players} players (bench/results/levels/{PREFIX[players]}-K-L.jsonl):\n")
        print("\n".join(table(players)))


if __name__ == "__main__":
    main()
