"""Engine benchmark: the fast (Cython) and the reference (Python) engine side by side.

    python bench/bench_engine.py            # full run (about a minute), writes bench/RESULTS.md
    python bench/bench_engine.py --quick    # a few seconds, prints only

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

from kwsearch.benchmarks import ENGINE_BEGIN, ENGINE_END, engine_bench, engine_markdown, write_results  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="a few seconds; prints, does not write RESULTS.md")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per figure (best is kept)")
    ap.add_argument("--no-write", action="store_true", help="do not update bench/RESULTS.md")
    args = ap.parse_args(argv)
    res = engine_bench(args.quick, args.repeat)
    if not args.quick and not args.no_write:
        write_results(HERE / "RESULTS.md", engine_markdown(res, args.quick), ENGINE_BEGIN, ENGINE_END)
        print(f"\nwrote {HERE / 'RESULTS.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
