"""Does luck average to zero? (issue 30 item 3; docs/luck.md, "Does luck average to zero?")

    python bench/luck_zero_mean.py                     # the bundled games, 3 chunks of 3,000 iterations
    python bench/luck_zero_mean.py --chunk 5000 --chunks 4 --pairs 2

For every reveal of the bundled games (examples/game-2p.json, examples/game-4p.json), the undrawn deck is
cut down to three cards of two kinds (``[y, x, x]``: three possible outcomes; ``--pairs`` pairs of
kinds per reveal, the first kinds with two cards left), so that every outcome can be searched. The value
before (the move re-searched alone, as the review's ``played_win_all``) is compared with the
probability-weighted mean of the values right after each outcome (unforced searches as deep, as the
luck's), per seat: their difference is the mean luck, zero for consistent values — for the ``reuse``
method, for the ``drawn`` one (the review's default: ``DRAWN_SPLIT[0]`` outcomes picked by stratified
sampling, one chunk each; with three outcomes of 1/3 each, as here, the picks are the three outcomes)
and for the ``sampled`` one (``--sampled`` searches of outcomes drawn independently with their
probabilities, one per chunk). The last two are unbiased; their differences are the noise of the draws. Prints each case and, per
game, the mean and the largest absolute difference of each, and the largest spread of the outcomes'
values (how much the cards mattered). Process CPU time only; seeds fixed (``--seed``).
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
from pathlib import Path

from kwsearch.luck import DRAWN_SPLIT, chance_outcomes, find_events, root_rows, sample_outcome, stratified_outcomes
from kwsearch.records import replay
from kwsearch.review import game_decisions, review_config
from kwsearch.seeds import derive_seed

ROOT = Path(__file__).resolve().parent.parent


def mean(rows):
    return [sum(r[s] for r in rows) / len(rows) for s in range(len(rows[0]))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chunk", type=int, default=3000)
    ap.add_argument("--chunks", type=int, default=3)
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sampled", type=int, default=12, help="outcomes drawn for the sampled method's value")
    a = ap.parse_args()
    t0 = time.process_time()
    for name in ("game-2p.json", "game-4p.json"):
        rec = json.loads((ROOT / "examples" / name).read_text())
        n = rec["players"]
        steps = game_decisions(rec)
        config = review_config(players=n).for_players(n)
        diffs, sdiffs, ddiffs, spreads = [], [], [], []
        for ev in find_events(steps, replay(rec)):
            if ev.ply < 0:
                continue
            st, action = steps[ev.ply]
            kinds = sorted(set(st.deck))
            pairs = [(x, y) for x, y in itertools.permutations(kinds, 2) if st.deck.count(x) >= 2][:a.pairs]
            for x, y in pairs:
                cut = st.copy()
                rest = list(cut.deck)
                for t in (x, x, y):
                    rest.remove(t)
                cut.deck, cut.discard = [y, x, x], cut.discard + rest
                seeds = [derive_seed(a.seed, "zero", ev.ply, x, y, j) for j in range(a.chunks)]
                before = mean(root_rows(cut, config, a.chunk, seeds, action))
                outs = chance_outcomes(cut, action)
                after = [mean(root_rows(o.state, config, a.chunk, [s + 1 for s in seeds])) for o in outs]
                sampled = mean([root_rows(sample_outcome(cut, action, s + 7), config, a.chunk, [s + 2])[0]
                                for s in [derive_seed(a.seed, "sampled", ev.ply, x, y, j) for j in range(a.sampled)]])
                picks = stratified_outcomes(cut, action, DRAWN_SPLIT[0], derive_seed(a.seed, "strata", ev.ply, x, y))
                drawn = mean([root_rows(st, config, a.chunk, [derive_seed(a.seed, "drawn", ev.ply, x, y, j)])[0]
                              for j, st in enumerate(picks)])
                d = [sum(o.probability * v[s] for o, v in zip(outs, after)) - before[s] for s in range(n)]
                sdiffs.append([sum(o.probability * v[s] for o, v in zip(outs, after)) - sampled[s] for s in range(n)])
                ddiffs.append([sum(o.probability * v[s] for o, v in zip(outs, after)) - drawn[s] for s in range(n)])
                sp = max(max(v[s] for v in after) - min(v[s] for v in after) for s in range(n))
                diffs.append(d)
                spreads.append(sp)
                print(f"{name} ply {ev.ply:3d} deck [{y},{x},{x}]: {len(outs)} outcomes, mean luck per seat "
                      + " ".join(f"{100 * v:+.1f}" for v in d) + " (drawn: "
                      + " ".join(f"{100 * v:+.1f}" for v in ddiffs[-1]) + "; sampled: "
                      + " ".join(f"{100 * v:+.1f}" for v in sdiffs[-1]) + f") points; outcomes' values {100 * sp:.1f} apart",
                      flush=True)
        parts = []
        for label, ds in (("reuse", diffs), ("drawn (default)", ddiffs), ("sampled", sdiffs)):
            flat = [abs(v) for d in ds for v in d]
            parts.append(f"{label}: mean {100 * sum(flat) / len(flat):.2f}, largest {100 * max(flat):.1f}")
        print(f"{name}: {len(diffs)} cases; |mean luck| per seat (points), " + "; ".join(parts)
              + f"; outcomes' values up to {100 * max(spreads):.1f} apart")
    print(f"{a.chunks} chunks of {a.chunk:,} iterations per value ({DRAWN_SPLIT[0]} outcomes picked by stratified "
          f"sampling for drawn, {a.sampled} drawn independently for sampled); {time.process_time() - t0:.1f} s CPU")


if __name__ == "__main__":
    main()
