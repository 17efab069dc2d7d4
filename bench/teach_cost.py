"""What a teaching-mode check costs (kwsearch.teach; docs/web.md, "Teaching mode").

    python bench/teach_cost.py                       # 2, 3 and 4 players, 12 decisions each
    python bench/teach_cost.py --decisions 4 --iterations 2000,5000,10000

Plays one game per player count with heuristic bots (seed ``--seed``) and checks ``--decisions``
decisions spread over it, each at every budget of ``--iterations``, side by side in this one process:
the check is :func:`kwsearch.teach.check_decision`, the review's valuation of one decision (the main
search, then up to three options re-searched alone). Prints the process CPU time
(``time.process_time()``) per check: the mean and the largest, per player count and budget.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time

from kwsearch.bots import from_spec
from kwsearch.game import Game
from kwsearch.teach import TeachSettings, check_decision


def positions(players: int, seed: int, count: int) -> list[tuple[object, int, int]]:
    """``count`` (state, action played, ply) spread over a game of heuristic bots."""
    bots = [from_spec("heuristic", seed=seed + s) for s in range(players)]
    st = Game(players).new_initial_state(seed, engine="reference")
    steps = []
    while not st.is_terminal():
        a = bots[st.current_player()].step(st)
        if len(st.legal_actions()) > 1:
            steps.append((st.copy(), a, len(steps)))
        st.apply(a)
    stride = max(1, len(steps) // count)
    return steps[::stride][:count]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--decisions", type=int, default=12, help="decisions checked per player count")
    ap.add_argument("--iterations", default="2000,5000", help="the budgets compared (comma-separated)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    budgets = [int(x) for x in args.iterations.split(",")]
    print(f"teaching-mode check, process CPU seconds per decision; {platform.processor() or platform.machine()}, "
          f"Python {platform.python_version()}; {args.decisions} decisions per player count, seed {args.seed}")
    print(f"{'players':>7}  {'iterations':>10}  {'mean CPU-s':>10}  {'max CPU-s':>9}")
    for players in (2, 3, 4):
        steps = positions(players, args.seed, args.decisions)
        times: dict[int, list[float]] = {b: [] for b in budgets}
        for st, a, ply in steps:
            for b in budgets:  # side by side: each budget on the same decision, one after the other
                t = time.process_time()
                check_decision(st, a, ply, TeachSettings(iterations=b))
                times[b].append(time.process_time() - t)
        for b in budgets:
            print(f"{players:>7}  {b:>10,}  {statistics.mean(times[b]):>10.3f}  {max(times[b]):>9.3f}")


if __name__ == "__main__":
    main()
