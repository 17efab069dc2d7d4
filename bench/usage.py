"""Which parts of the game each bot uses, per game (issue 17, item 6).

    python bench/usage.py bench/results/usage-games-4p.jsonl
    python bench/usage.py a.jsonl b.jsonl --json
    python bench/usage.py bench/results/usage-games-4p.jsonl --label default-4p   # also the RESULTS.md section

Reads tournament results files (``kwsearch tournament``, format
``kwsearch-results/1``: every game line carries its ``record``) and replays each
record on the reference engine (:func:`kwsearch.records.replay`), so every count
is read from the game's states, not matched in the move texts. Per seat of a
game it counts:

=====================  ==================================================================
developments           development cards the seat holds at the end (active or not; they
                       are kept for the game, so this is every one it took)
engineers              engineer cards held at the end (kept for the game); Daimler, Diesel
                       and Benz each 0 or 1
Daimler markers        decisions placing a Daimler marker on a buyer (``daimler +N buyer B``)
Diesel changes         decisions using a Diesel change marker (``diesel car@P``)
Benz buyers            fifth buyers added with Benz (``benz buyer ...``)
Maybach/Horch markers  engineer markers put on a car moved to the market (``market +...``)
GP engine rises        times the seat's GP-car engine value rose between two consecutive
                       decisions (and after the last): every engine upgrade of the car
final GP engine        the GP-car engine's value at the end (1 is the printed engine)
quality awards         the award tiles Body 3, Body 6, Engine 4 and Engine 7 the seat holds
                       at the end (RULES.md §9: the quality of the parts it built)
awards                 every award tile the seat holds at the end
cars sold              cars of the seat bought at a scoring (the scoring log of the
                       reference engine); money per car = their payments / cars sold
=====================  ==================================================================

A seat's win share is its ``returns`` entry (1 for a sole win, split on ties).
Bots are grouped by their spec (``heuristic#2`` counts as ``heuristic``); the
figures are means per seat-game. The last table splits the seat-games of each
bot by developments held at the end: 3 or more vs fewer, with each group's win
share.

Results files of ``bench/strength.py`` (lines with ``match`` and ``deck_seed``
but no ``record``) cannot be counted: their games were not recorded, and they
were played with earlier settings and bot seeds, so they cannot be played again
exactly either; the script says so.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from kwsearch import actions as A  # noqa: E402
from kwsearch.components import AWARDS, ENGINEERS  # noqa: E402
from kwsearch.errors import KwsearchError  # noqa: E402

QUALITY_AWARDS = ("body3", "body6", "engine4", "engine7")
#: The per-seat counts averaged per bot, in table order: (key, column heading).
COUNTS = (
    ("developments", "developments"), ("engineers", "engineers"), ("daimler", "Daimler"),
    ("diesel", "Diesel"), ("benz", "Benz"), ("daimler_markers", "Daimler markers"),
    ("diesel_changes", "Diesel changes"), ("benz_buyers", "Benz buyers"),
    ("car_markers", "Maybach/Horch markers"), ("gp_rises", "GP engine rises"),
    ("gp_engine", "final GP engine"), ("quality_awards", "quality awards"), ("awards", "awards"),
    ("cars_sold", "cars sold"),
)
#: Developments at the end from which a seat counts as developing (the issue's "3+ developments").
DEV_SPLIT = 3


class UsageError(KwsearchError):
    """A results file the usage script cannot read."""


def seat_usage(record: dict, source: str | None = None) -> list[dict]:
    """The counts of every seat of one game record (see the module docstring), replayed exactly."""
    from kwsearch.records import replay
    from kwsearch.scoring import reports_from_log
    steps: list = []
    log: list = []
    final = replay(record, steps=steps, score_log=log, source=source)
    n = final.game.num_players
    out = [{"daimler_markers": 0, "diesel_changes": 0, "benz_buyers": 0, "car_markers": 0, "gp_rises": 0,
            "cars_sold": 0, "sale_money": 0} for _ in range(n)]
    states = [st for st, _ in steps] + [final]
    for k, (st, action) in enumerate(steps):
        seat = st.current_player()
        if A.DAIMLER <= action < A.DIESEL_PASS:
            out[seat]["daimler_markers"] += 1
        elif A.DIESEL_CAR <= action < A.DIESEL_BODY:
            out[seat]["diesel_changes"] += 1
        elif A.BENZ <= action < A.ACTIVATE:
            out[seat]["benz_buyers"] += 1
        elif A.MARKET_MARKER <= action < A.DAIMLER_PASS:
            out[seat]["car_markers"] += 1
        after = states[k + 1]
        for s in range(n):
            if after.seats[s].gp_engine > st.seats[s].gp_engine:
                out[s]["gp_rises"] += 1
    for report in reports_from_log(log, [0] * n, final):
        for sale in report.sales:
            if sale.car is not None:
                out[sale.car.seller]["cars_sold"] += 1
                out[sale.car.seller]["sale_money"] += sale.payment
    returns = final.returns()
    money = final.money()
    for s, seat in enumerate(final.seats):
        held = [e for i, e in enumerate(ENGINEERS) if seat.engineers >> i & 1]
        awards = [a for i, a in enumerate(AWARDS) if final.awards[i] == s]
        devs = len(seat.dev_active) + len(seat.dev_inactive)
        out[s].update({
            "developments": devs, "engineers": len(held), "engineer_names": held,
            "daimler": int("daimler" in held), "diesel": int("diesel" in held), "benz": int("benz" in held),
            "gp_engine": seat.gp_engine, "quality_awards": sum(a in QUALITY_AWARDS for a in awards),
            "awards": len(awards), "award_names": awards, "money": money[s], "win": returns[s],
        })
    return out


def _strength_file(path: Path) -> bool:
    try:
        with open(path, encoding="utf-8") as f:
            first = json.loads(f.readline() or "null")
    except (OSError, ValueError):
        return False
    return isinstance(first, dict) and "match" in first and "deck_seed" in first and "record" not in first


def read_games(paths: list[str]) -> list[dict]:
    """Every game of the results files: ``{"file", "game", "specs" (per seat), "seats" (per-seat counts)}``."""
    from kwsearch.tournament import load_results
    games = []
    for path in paths:
        p = Path(path)
        if p.is_file() and _strength_file(p):
            raise UsageError(f"{p}: a bench/strength.py results file: its games carry no record (line 1 has no "
                             f"'record'), so their decisions cannot be counted; play them with "
                             f"`kwsearch tournament`, which records every game")
        header, lines, _ = load_results(p)
        bots = header["bots"]
        for idx in sorted(lines):
            g = lines[idx]
            if "record" not in g:
                raise UsageError(f"{p}: game {idx}: record: missing (the results line has no game record)")
            seats = seat_usage(g["record"], source=f"{p}: game {idx}: record")
            if [s["money"] for s in seats] != g["money"]:
                raise UsageError(f"{p}: game {idx}: money: the line says {g['money']}, the replayed record "
                                 f"{[s['money'] for s in seats]}")
            games.append({"file": str(p), "game": idx, "specs": [bots[b] for b in g["bots"]], "seats": seats,
                          "lineup": f"{header['players']} players: {', '.join(bots)}; seed {header['seed']}"})
    if not games:
        raise UsageError(f"{', '.join(paths)}: no games")
    return games


def summarize(games: list[dict]) -> dict:
    """Means per bot spec over its seat-games, and the win shares split by developments."""
    by: dict[str, list[dict]] = {}
    for g in games:
        for spec, seat in zip(g["specs"], g["seats"]):
            by.setdefault(spec, []).append(seat)
    bots = {}
    for spec, rows in by.items():
        n = len(rows)
        line = {"seat_games": n, "win_share": sum(r["win"] for r in rows) / n,
                "money": sum(r["money"] for r in rows) / n}
        line.update({key: sum(r[key] for r in rows) / n for key, _ in COUNTS})
        sold = sum(r["cars_sold"] for r in rows)
        line["money_per_car"] = sum(r["sale_money"] for r in rows) / sold if sold else None
        line["engineer_names"] = {e: sum(e in r["engineer_names"] for r in rows) / n for e in ENGINEERS}
        line["award_names"] = {a: sum(a in r["award_names"] for r in rows) / n for a in AWARDS}
        line["developments_split"] = _split(rows)
        bots[spec] = line
    every = [seat for g in games for seat in g["seats"]]
    files = {g["file"]: g["lineup"] for g in games}
    return {"games": len(games), "files": sorted(files), "lineups": files, "bots": bots,
            "developments_split": _split(every)}


def _split(rows: list[dict]) -> dict:
    out = {}
    for name, sel in ((f"{DEV_SPLIT}+", [r for r in rows if r["developments"] >= DEV_SPLIT]),
                      (f"<{DEV_SPLIT}", [r for r in rows if r["developments"] < DEV_SPLIT])):
        out[name] = {"seat_games": len(sel), "win_share": sum(r["win"] for r in sel) / len(sel) if sel else None}
    return out


def _num(x, digits: int = 2) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def _share(x) -> str:
    return "–" if x is None else f"{x:.1%}"


def markdown(summary: dict, label: str | None = None) -> str:
    """The tables (with the RESULTS.md section markers when ``label`` is given)."""
    bots = summary["bots"]
    lines = []
    if label:
        lines += [f"<!-- BEGIN usage-{label} -->", f"## What the bots use: {label}", "",
                  f"Written by `bench/usage.py` from {summary['games']} games "
                  f"({'; '.join(f'`{Path(f).name}`, {line}' for f, line in summary['lineups'].items())}); every "
                  f"record replayed on the reference engine. Means per seat-game; the counts are defined in the "
                  f"script's docstring.", ""]
    lines += ["| bot | seat-games | win share | money | " + " | ".join(h for _, h in COUNTS) + " | money / car sold |",
              "| --- | ---: | ---: | ---: | " + " | ".join("---:" for _ in COUNTS) + " | ---: |"]
    for spec, b in bots.items():
        lines.append(f"| `{spec}` | {b['seat_games']} | {b['win_share']:.1%} | {b['money']:.1f} | "
                     + " | ".join(_num(b[k]) for k, _ in COUNTS) + f" | {_num(b['money_per_car'], 1)} |")
    lines += ["", "Engineers held at the end (share of seat-games):", "",
              "| bot | " + " | ".join(e.capitalize() for e in ENGINEERS) + " |",
              "| --- | " + " | ".join("---:" for _ in ENGINEERS) + " |"]
    for spec, b in bots.items():
        lines.append(f"| `{spec}` | " + " | ".join(f"{b['engineer_names'][e]:.0%}" for e in ENGINEERS) + " |")
    lines += ["", f"Win share by developments held at the end ({DEV_SPLIT}+ vs fewer):", "",
              f"| bot | seat-games with {DEV_SPLIT}+ | their win share | seat-games with <{DEV_SPLIT} | "
              "their win share |", "| --- | ---: | ---: | ---: | ---: |"]
    rows = list(bots.items()) + [("all seats", {"developments_split": summary["developments_split"]})]
    for spec, b in rows:
        hi, lo = b["developments_split"][f"{DEV_SPLIT}+"], b["developments_split"][f"<{DEV_SPLIT}"]
        name = spec if spec == "all seats" else f"`{spec}`"
        lines.append(f"| {name} | {hi['seat_games']} | {_share(hi['win_share'])} | {lo['seat_games']} | "
                     f"{_share(lo['win_share'])} |")
    if label:
        lines.append(f"<!-- END usage-{label} -->")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", nargs="+", help="tournament results files (kwsearch tournament, JSON Lines)")
    ap.add_argument("--json", action="store_true", help="print the summary as JSON instead of tables")
    ap.add_argument("--out", default=None, help="also write the JSON summary (with every seat's counts) here")
    ap.add_argument("--label", default=None, help="also write the tables as the section usage-LABEL of --results")
    ap.add_argument("--results-md", default=str(HERE / "RESULTS.md"), help="the Markdown file of that section")
    a = ap.parse_args(argv)
    try:
        games = read_games(a.results)
    except KwsearchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    summary = summarize(games)
    if a.out:
        from kwsearch.fileio import write_json_atomic
        write_json_atomic(a.out, {**summary, "per_game": games}, what="usage summary")
    if a.label:
        from kwsearch.benchmarks import write_results
        write_results(a.results_md, markdown(summary, a.label), f"<!-- BEGIN usage-{a.label} -->",
                      f"<!-- END usage-{a.label} -->")
    print(json.dumps(summary, indent=1) if a.json else markdown(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
