"""Search benchmark: ISMCTS iterations per second, 1 and 2 workers, and bytes per node.

    python bench/bench_search.py            # writes its section of bench/RESULTS.md
    python bench/bench_search.py --quick    # prints only

The measurements live in :mod:`kwsearch.benchmarks` (also behind ``kwsearch bench``).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if importlib.util.find_spec("kwsearch") is None:  # not installed: the checkout's own (built in place)
    sys.path.insert(0, str(HERE.parent))

from kwsearch.benchmarks import SEARCH_BEGIN, SEARCH_END, search_bench, search_markdown, write_results  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    res = search_bench(args.quick, args.repeat)
    if not args.quick and not args.no_write:
        write_results(HERE / "RESULTS.md", search_markdown(res, args.quick), SEARCH_BEGIN, SEARCH_END)
        print(f"\nwrote {HERE / 'RESULTS.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
