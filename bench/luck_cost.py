"""What the luck of a review costs (issue 30 item 5; docs/luck.md), in process CPU time.

    python bench/luck_cost.py                          # examples/game-2p.json, 2,000 iterations per decision
    python bench/luck_cost.py --game examples/game-4p.json --iterations 1000

Side by side in one process, one worker: the review without luck (``review_game(..., luck=False)``: every
decision's main search and its re-searches), then the luck of its chance events alone
(``kwsearch.luck.review_luck`` on those decisions, as ``review_game`` runs it, with ``--method``: the
default ``drawn`` one search of the review's iterations per event, split into chunks of N/5 on drawn outcomes
before and on the position after, the deal too; ``reuse`` one search of 3 chunks of N/5 after the event,
two for the deal; none for a forced reveal). Prints both times, their ratio, the chance
events and the luck's search iterations against the decisions'. ``time.process_time()`` only (the machine
is shared); no cache.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

from kwsearch.luck import DEFAULT_METHOD, METHODS, review_luck
from kwsearch.records import replay
from kwsearch.review import (MIN_VERIFY_CHUNK, VERIFY_CHUNKS, VERIFY_OPTIONS, game_decisions,
                             review_config, review_game, verify_iterations)
from kwsearch.search import SearchLimits

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default=str(ROOT / "examples" / "game-2p.json"))
    ap.add_argument("--iterations", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--method", choices=METHODS, default=DEFAULT_METHOD)
    a = ap.parse_args()
    record = json.loads(Path(a.game).read_text())
    limits = SearchLimits(iterations=a.iterations)
    t0 = time.process_time()
    review = review_game(record, limits, seed=a.seed, luck=False)
    t1 = time.process_time()
    steps = game_decisions(record)
    config = review_config(players=record["players"]).for_players(record["players"])
    chunk = verify_iterations(a.iterations)
    events = review_luck(record, steps, replay(record), {d.ply: d for d in review.decisions}, config=config,
                         seed=a.seed, chunk=chunk, chunks=VERIFY_CHUNKS, method=a.method)
    t2 = time.process_time()
    searched = [e for e in events if not e["forced"]]

    def before_chunks(e) -> int:  # the chunks searched for the value before (reuse: the decision's, not counted)
        if "drawn" in e:
            return e["drawn"]
        return e["chunks"] if e["kind"] == "deal" or a.method == "sampled" else 0

    luck_iter = sum((e["chunks"] + before_chunks(e)) * e["iterations"] for e in searched)
    dec_iter = sum(d.iterations + d.verify_chunks * d.verify_iterations * min(VERIFY_OPTIONS, d.options)
                   for d in review.decisions)  # at most: every verified option with the move played's chunks
    print(f"machine: {platform.machine()} {platform.processor() or ''} python {platform.python_version()}")
    print(f"game {Path(a.game).name}: {record['players']} players, {len(review.decisions)} decisions, "
          f"{a.iterations:,} iterations per decision, seed {a.seed}, one worker")
    print(f"review without luck: {t1 - t0:.2f} s CPU (up to {dec_iter:,} search iterations)")
    print(f"luck of its {len(events)} chance events ({len(events) - len(searched)} forced): {t2 - t1:.2f} s CPU "
          f"({luck_iter:,} iterations, chunks of {chunk:,}; method {a.method})")
    print(f"luck / review: {(t2 - t1) / (t1 - t0):.1%} CPU, {luck_iter / dec_iter:.1%} iterations; "
          f"per event {(t2 - t1) / max(1, len(events)):.2f} s against {(t1 - t0) / len(review.decisions):.2f} s "
          f"per decision")
    assert MIN_VERIFY_CHUNK <= chunk


if __name__ == "__main__":
    main()
