"""CPU time per search of several search specs on the same positions, side by side (issue 32).

    python bench/search_cost.py GAMES.jsonl SPEC [SPEC ...] [--games 3] [--every 25] [--rounds 3]

The positions are those of the first ``--games`` games of a ``kwsearch tournament`` results file,
every ``--every`` decisions from the tenth. Each round searches every position once with each spec
(in the order given; ``ismcts:`` specs with their limit, e.g. ``ismcts:iterations=4000,eval=smart``),
each search seeded by its position's index, and times the spec's searches with
``time.process_time()``. Prints, per spec, the CPU seconds of each round, their median and the
median's ratio to the first spec's. Every round repeats the same searches, so the rounds differ only
by the machine's noise.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
if importlib.util.find_spec("kwsearch") is None:  # not installed: the checkout's own (built in place)
    sys.path.insert(0, str(HERE.parent))

from kwsearch.bots import BotSpec  # noqa: E402
from kwsearch.errors import KwsearchError  # noqa: E402
from kwsearch.records import count_decisions, replay  # noqa: E402
from kwsearch.search import search  # noqa: E402
from kwsearch.tournament import load_results  # noqa: E402


def positions(path: Path, games: int, every: int) -> list:
    """Every ``every``-th decision from the tenth of the first ``games`` games of a results file."""
    _, played, _ = load_results(path)
    out = []
    for k in sorted(played)[:games]:
        record = played[k]["record"]
        out += [replay(record, upto=n) for n in range(10, count_decisions(record), every)]
    return out


def measure(states: list, specs: list[str], rounds: int) -> dict[str, list[float]]:
    """CPU seconds of each spec's searches of ``states``, one entry per round; each round runs the specs
    in the order given, so that the specs alternate."""
    settings = [BotSpec.parse(spec).search_settings() for spec in specs]
    seconds: dict[str, list[float]] = {spec: [] for spec in specs}
    for _ in range(rounds):
        for spec, (limits, config) in zip(specs, settings):
            t = time.process_time()
            for i, st in enumerate(states):
                search(st, limits, config, seed=i)
            seconds[spec].append(time.process_time() - t)
    return seconds


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", type=Path, help="a kwsearch tournament results file")
    ap.add_argument("specs", nargs="+", help="ismcts: specs with a limit")
    ap.add_argument("--games", type=int, default=3)
    ap.add_argument("--every", type=int, default=25)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    if args.games < 1 or args.every < 1 or args.rounds < 1:
        ap.error("expected --games, --every and --rounds of at least 1")
    for spec in args.specs:
        try:
            limits, _ = BotSpec.parse(spec).search_settings()
        except KwsearchError as exc:
            ap.error(str(exc))
        if limits.iterations is None:
            ap.error(f"{spec!r}: expected a spec with iterations= (seconds would time the clock, not the search)")
    try:
        states = positions(args.results, args.games, args.every)
    except (KwsearchError, OSError) as exc:
        ap.error(str(exc))
    seconds = measure(states, args.specs, args.rounds)
    base = statistics.median(seconds[args.specs[0]])
    print(f"{len(states)} positions from {args.results.name}; CPU seconds per round, time.process_time()")
    for spec in args.specs:
        med = statistics.median(seconds[spec])
        rounds = ", ".join(f"{s:.2f}" for s in seconds[spec])
        print(f"{spec}: {rounds}; median {med:.2f} s, {med / base:.2f}x the first")
    return 0


if __name__ == "__main__":
    sys.exit(main())
