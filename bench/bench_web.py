"""Latency of the analysis board: from a click on "Analyse" to the first analysis update on the page.

Starts ``kwsearch serve examples/game-2p.json`` on a free loopback port, opens it in
headless Chromium and clicks "Analyse" N times (each analysis stopped before the
next), on positions spread over the game. The page itself measures each latency
with ``performance.now()``: from the click handler to the first ``update`` event
drawn (``window.kwsLatencies``). Writes its section of bench/RESULTS.md.

    python bench/bench_web.py [--tries 12] [--no-write]
"""

from __future__ import annotations

import argparse
import os
import statistics
import importlib.util
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if importlib.util.find_spec("kwsearch") is None:  # not installed: the checkout's own (built in place)
    sys.path.insert(0, str(ROOT))

from kwsearch.benchmarks import machine, write_results  # noqa: E402
from kwsearch.web.browser import browser_missing, chromium, running_server, wait_script  # noqa: E402

BEGIN, END = "<!-- BEGIN bench_web -->", "<!-- END bench_web -->"


def _wait(driver, script: str, timeout: float = 20.0):
    return wait_script(driver, script, timeout, poll=0.01)


def measure(tries: int) -> list[float]:
    with tempfile.TemporaryDirectory() as games:
        with running_server(["examples/game-2p.json"], games_dir=Path(games), cwd=ROOT) as url, chromium() as driver:
            driver.get(url)
            _wait(driver, "return document.querySelectorAll('#moves .mv').length > 60")
            nodes = [3 + (k * 7) % 60 for k in range(tries)]
            for k, node in enumerate(nodes):
                driver.execute_script(f"document.querySelector('#moves .mv[data-node=\"{node}\"]').click()")
                _wait(driver, f"return S.view && S.view.node === {node}")
                time.sleep(0.3)  # the page at rest, as after a person's click
                driver.find_element("id", "btn-analyse").click()
                _wait(driver, f"return window.kwsLatencies.length === {k + 1}")
                driver.find_element("id", "btn-analyse").click()  # stop
                _wait(driver, "return S.analysis === null")
            return list(driver.execute_script("return window.kwsLatencies"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tries", type=int, default=12)
    ap.add_argument("--no-write", action="store_true", help="print only; do not write bench/RESULTS.md")
    args = ap.parse_args()
    why = browser_missing()
    if why:
        print(f"bench_web: {why}", file=sys.stderr)
        return 1
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    lat = measure(args.tries)
    m = machine()
    med, worst, best = statistics.median(lat), max(lat), min(lat)
    print(f"click -> first analysis update over {len(lat)} tries: median {med:.0f} ms, max {worst:.0f} ms, "
          f"min {best:.0f} ms")
    print("all: " + ", ".join(f"{x:.0f}" for x in lat))
    section = "\n".join([
        BEGIN,
        "## Analysis board (`bench/bench_web.py`)",
        "",
        f"Measured {m['date']} on {m['cpu']} ({os.cpu_count()} cores"
        + (f", load average {load:.1f} at the start: the machine was shared" if load is not None else "")
        + f"; {m['platform']}), Python {m['python']}, headless Chromium, "
        "`kwsearch serve examples/game-2p.json` on 127.0.0.1. Latency from a click on \"Analyse\" to the first "
        "analysis update drawn in the page (`performance.now()` in the page), each analysis a new worker process "
        "forked from the preloaded forkserver; the search sends its first update after one update interval "
        "(0.2 s).",
        "",
        "| tries | median | max | min |",
        "| ---: | ---: | ---: | ---: |",
        f"| {len(lat)} | {med:.0f} ms | {worst:.0f} ms | {best:.0f} ms |",
        "",
        "Every try: " + ", ".join(f"{x:.0f}" for x in lat) + " ms.",
        END,
    ])
    if not args.no_write:
        write_results(ROOT / "bench" / "RESULTS.md", section, BEGIN, END)
        print("wrote bench/RESULTS.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
