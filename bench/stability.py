"""How much a search's advice depends on its seed (issue 17, item 6: stable advice).

    python bench/stability.py --spec ismcts --label default --out bench/results/stability-default.json
    python bench/stability.py --spec "ismcts:rollout=smart" --label smart --positions 40 --seeds 5 \\
        --iterations 20000 --players 4 --seed 1 --out bench/results/stability-smart.json

The same position searched with different seeds should give the same top move
once the search is long enough; the issue's target is that, over 40 sampled
four-player positions, 5 seeds at 20,000 iterations agree on the top move in at
least 85% of the positions.

**Positions.** Deterministic from ``--seed``: game ``g`` is played by the
heuristic bot in every seat (:class:`kwsearch.heuristic.HeuristicBot`, seat
``s`` seeded ``derive_seed(seed, "bot", g, s)``) from the deal
``derive_seed(seed, "deal", g)``. Only decision points where the mover has at
least two legal actions count. Each game gives up to ``STAGES`` = 5 positions:
its eligible decisions, in order, are cut into five equal strata (opening,
early, middle, late, end) and position ``k`` of the game is drawn from stratum
``k`` with ``random.Random(derive_seed(seed, "pick", g, k))``. Games are
played until ``--positions`` positions are taken, so 40 positions come from 8
games, every stage equally often. The positions are positions of the true game
(the search determinizes the mover's hidden information itself).

**Searches.** The bot spec's search configuration (``BotSpec``; its limit is
replaced by ``--iterations``) searches each position ``--seeds`` times with the
seeds ``derive_seed(seed, "search", p, k)`` (``kwsearch.search.search``, no tree
reuse). An iteration limit makes every search repeatable, so the whole run is a
function of its options.

**Figures.** Per position the top move of every seed and its visit share; over
positions the share where all seeds agree on the top move, the mean pairwise
agreement (of the ``seeds·(seeds-1)/2`` pairs of seeds, the share naming the
same top move, averaged over positions), the mean share of the seeds that
pick the position's most frequent top move (the modal agreement), the mean
visit share of a search's top move, and the *locked* disagreements: positions
where the seeds differ although each one gave its top move at least 80% of its
visits (the searches settled on different moves, rather than splitting a near
tie). Time is the
process CPU time (``time.process_time()``; a spec with ``workers > 1`` searches
in child processes, whose time is not in it).

The JSON result goes to ``--out``; the summary replaces the section
``stability-LABEL`` of ``bench/RESULTS.md`` (``--results``).
"""

from __future__ import annotations

import argparse
import datetime
import itertools
import random
import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from kwsearch.bots import BotSpec  # noqa: E402
from kwsearch.errors import KwsearchError  # noqa: E402
from kwsearch.game import PLAYER_COUNTS, Game  # noqa: E402
from kwsearch.seeds import derive_seed, seed_arg  # noqa: E402

#: Positions drawn per sampled game, one from each fifth of its eligible decisions.
STAGES = 5
STAGE_NAMES = ("opening", "early", "middle", "late", "end")
#: The issue's target: the share of positions where every seed names the same top move.
TARGET = 0.85
#: A disagreement where every seed gave its top move at least this share of the visits is a lock-in
#: (each search settled on a different move), not a near-tie between moves the searches shared.
LOCKED = 0.8


class StabilityError(KwsearchError):
    """A bad option of the stability script."""


def search_settings(spec: str, iterations: int):
    """(canonical spec, SearchLimits, SearchConfig) of a search spec with its limit set to ``iterations``."""
    from kwsearch.search import SearchLimits
    parsed = BotSpec.parse(spec)
    if parsed.name not in ("ismcts", "cheat"):
        raise StabilityError(f"--spec {spec!r}: expected a spec of a single search (ismcts or cheat), "
                             f"got the bot {parsed.name!r}")
    opts = tuple((k, v) for k, v in parsed.options if k not in ("iterations", "seconds"))
    canon = BotSpec.parse(str(BotSpec(parsed.name, (("iterations", iterations),) + opts)))
    _, config = canon._limits()
    return str(canon), SearchLimits(iterations=iterations), config


def sample_positions(count: int, players: int, seed: int) -> list[dict]:
    """``count`` decision points (``state``, ``game``, ``stage``, ``decision``) of seeded heuristic games.

    See the module docstring for the sampling. ``decision`` is the index of the
    decision in its game (every decision counted, forced ones too).
    """
    from kwsearch.heuristic import HeuristicBot
    game = Game(players)
    out: list[dict] = []
    g = 0
    while len(out) < count:
        st = game.new_initial_state(derive_seed(seed, "deal", g), engine="fast")
        bots = [HeuristicBot(seed=derive_seed(seed, "bot", g, s)) for s in range(players)]
        for b in bots:
            b.restart()
        eligible: list[tuple[int, object]] = []
        decision = 0
        while not st.is_terminal():
            if len(st.legal_actions()) >= 2:
                eligible.append((decision, st.copy()))
            st.apply(bots[st.current_player()].step(st))
            decision += 1
        if len(eligible) < STAGES:
            raise StabilityError(f"game {g} of seed {seed} has only {len(eligible)} decisions with a choice")
        for k in range(min(STAGES, count - len(out))):
            lo, hi = k * len(eligible) // STAGES, (k + 1) * len(eligible) // STAGES
            i = random.Random(derive_seed(seed, "pick", g, k)).randrange(lo, hi)
            d, state = eligible[i]
            out.append({"state": state, "game": g, "stage": STAGE_NAMES[k], "decision": d,
                        "eligible": len(eligible)})
        g += 1
    return out


def measure(spec: str, positions: int = 40, seeds: int = 5, iterations: int = 20_000, players: int = 4,
            seed: int = 1, echo=print) -> dict:
    """Search ``positions`` sampled positions with ``seeds`` seeds each; the JSON-ready result."""
    from kwsearch.search import search
    if positions < 1:
        raise StabilityError(f"--positions: expected a positive number, got {positions}")
    if seeds < 2:
        raise StabilityError(f"--seeds: expected at least 2 (agreement compares seeds), got {seeds}")
    if players not in PLAYER_COUNTS:
        raise StabilityError(f"--players: expected one of {', '.join(map(str, PLAYER_COUNTS))}, got {players}")
    canon, limits, config = search_settings(spec, iterations)
    t0 = time.process_time()
    sample = sample_positions(positions, players, seed)
    sample_cpu = time.process_time() - t0
    rows = []
    search_cpu = 0.0
    for p, pos in enumerate(sample):
        st = pos["state"]
        runs = []
        for k in range(seeds):
            s = derive_seed(seed, "search", p, k)
            c0 = time.process_time()
            res = search(st, limits, config, seed=s)
            search_cpu += time.process_time() - c0
            best = res.actions[0]
            runs.append({"seed": s, "top": best.text, "share": round(best.share, 4),
                         "win_prob": round(best.win_prob, 4)})
        tops = [r["top"] for r in runs]
        modal, modal_n = Counter(tops).most_common(1)[0]
        pairs = list(itertools.combinations(tops, 2))
        row = {"position": p, "game": pos["game"], "stage": pos["stage"], "decision": pos["decision"],
               "mover": st.current_player(), "options": len(st.legal_actions()), "task": st.pending(),
               "agree": len(set(tops)) == 1, "pairwise": sum(a == b for a, b in pairs) / len(pairs),
               "modal": modal, "modal_share": modal_n / seeds, "runs": runs}
        rows.append(row)
        echo(f"  position {p + 1}/{len(sample)} ({pos['stage']}, {row['options']} options): "
             f"{'agree' if row['agree'] else 'differ'} {', '.join(tops)}")
    n = len(rows)
    by_stage = {}
    for name in STAGE_NAMES:
        sel = [r for r in rows if r["stage"] == name]
        if sel:
            by_stage[name] = {"positions": len(sel), "all_agree": sum(r["agree"] for r in sel) / len(sel),
                              "pairwise": sum(r["pairwise"] for r in sel) / len(sel)}
    return {
        "spec": canon, "positions": n, "seeds": seeds, "iterations": iterations, "players": players,
        "seed": seed, "config": config.for_players(players).as_dict(),
        "all_agree": sum(r["agree"] for r in rows) / n,
        "all_agree_count": sum(r["agree"] for r in rows),
        "pairwise": sum(r["pairwise"] for r in rows) / n,
        "modal": sum(r["modal_share"] for r in rows) / n,
        "top_share": sum(x["share"] for r in rows for x in r["runs"]) / (n * seeds),
        "locked_disagreements": sum(not r["agree"] and min(x["share"] for x in r["runs"]) >= LOCKED
                                    for r in rows),
        "target": TARGET, "by_stage": by_stage,
        "cpu_seconds": {"sampling": round(sample_cpu, 2), "search": round(search_cpu, 2),
                        "per_search": round(search_cpu / (n * seeds), 4)},
        "date": datetime.date.today().isoformat(), "rows": rows,
    }


def markdown(res: dict, label: str) -> str:
    """The RESULTS.md section of a result."""
    begin, end = f"<!-- BEGIN stability-{label} -->", f"<!-- END stability-{label} -->"
    ok = res["all_agree"] >= res["target"]
    lines = [begin, f"## Stable advice: `{res['spec']}` ({label})", "",
             f"Written by `bench/stability.py` on {res['date']}: {res['positions']} sampled {res['players']}-player "
             f"positions (heuristic games of seed {res['seed']}, one position per fifth of a game's decisions "
             f"with a choice), each searched with {res['seeds']} seeds at {res['iterations']:,} iterations. "
             f"CPU time: {res['cpu_seconds']['search']:.1f} s of search "
             f"({res['cpu_seconds']['per_search']:.3f} s a search), {res['cpu_seconds']['sampling']:.1f} s of "
             f"sampling.", "",
             "| measure | value |", "| --- | ---: |",
             f"| positions where all {res['seeds']} top moves agree | **{res['all_agree']:.1%}** "
             f"({res['all_agree_count']}/{res['positions']}; target ≥ {res['target']:.0%}: "
             f"{'met' if ok else 'not met'}) |",
             f"| mean pairwise agreement of the top moves | {res['pairwise']:.1%} |",
             f"| mean share of seeds naming the modal top move | {res['modal']:.1%} |",
             f"| mean visit share of a search's top move | {res['top_share']:.1%} |",
             f"| disagreements where every seed's top move had ≥ {LOCKED:.0%} of the visits | "
             f"{res['locked_disagreements']} of {res['positions'] - res['all_agree_count']} |"]
    lines += ["", "| stage | positions | all agree | pairwise |", "| --- | ---: | ---: | ---: |"]
    for name, s in res["by_stage"].items():
        lines.append(f"| {name} | {s['positions']} | {s['all_agree']:.0%} | {s['pairwise']:.0%} |")
    lines += ["", "Per position (top move of each seed, with its visit share):", "",
              "| # | stage | task | options | agree | top moves (visit share) |",
              "| ---: | --- | --- | ---: | --- | --- |"]
    for r in res["rows"]:
        tops = "; ".join(f"`{x['top']}` {x['share']:.0%}" for x in r["runs"])
        lines.append(f"| {r['position']} | {r['stage']} | {r['task']} | {r['options']} | "
                     f"{'yes' if r['agree'] else 'no'} | {tops} |")
    lines.append(end)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spec", default="ismcts", help="the search's bot spec (its limit is replaced by --iterations)")
    ap.add_argument("--positions", type=int, default=40)
    ap.add_argument("--seeds", type=int, default=5, help="search seeds per position (at least 2)")
    ap.add_argument("--iterations", type=int, default=20_000)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seed", type=seed_arg, default=1, help="draws the positions and the search seeds")
    ap.add_argument("--label", default=None, help="names the RESULTS.md section (default: the spec)")
    ap.add_argument("--out", default=None, help="write the JSON result here")
    ap.add_argument("--results", default=str(HERE / "RESULTS.md"), help="the Markdown file of the summary")
    ap.add_argument("--no-results", action="store_true", help="do not write the Markdown section")
    a = ap.parse_args(argv)
    try:
        res = measure(a.spec, a.positions, a.seeds, a.iterations, a.players, a.seed)
    except KwsearchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    label = a.label or "".join(c if c.isalnum() or c in "-_." else "-" for c in res["spec"])
    from kwsearch.fileio import write_json_atomic
    if a.out:
        write_json_atomic(a.out, res, what="stability result")
    text = markdown(res, label)
    if not a.no_results:
        from kwsearch.benchmarks import write_results
        write_results(a.results, text, f"<!-- BEGIN stability-{label} -->", f"<!-- END stability-{label} -->")
    print(f"{res['spec']}: all {res['seeds']} seeds agree in {res['all_agree']:.1%} of {res['positions']} "
          f"positions; pairwise {res['pairwise']:.1%}; modal {res['modal']:.1%}; "
          f"CPU {res['cpu_seconds']['search']:.1f} s search + {res['cpu_seconds']['sampling']:.1f} s sampling")
    return 0


if __name__ == "__main__":
    sys.exit(main())
