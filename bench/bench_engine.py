"""Engine benchmark: the fast (Cython) and the reference (Python) engine side by side.

    python bench/bench_engine.py            # full run (about a minute), writes bench/RESULTS.md
    python bench/bench_engine.py --quick    # a few seconds, prints only

Measured in one process, one core, on the same positions and action sequences:

* state copies per second, from Python (``state.copy()``) and, for the fast
  engine, at C level (one struct assignment);
* legal-action generations per second and applies per second, over the states
  of recorded random games (the same states for both engines);
* random playouts (complete games) per second from the 4-player opening and from
  ``examples/midgame-4p.json``: reference in Python, fast from Python
  (``FastState.playout``) and at C level (``k_playout`` in a nogil loop).

Each figure is the best of ``--repeat`` timed runs (default 3). Timing is never
asserted anywhere; this script reports what it measured, on which machine.
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import random
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from kwsearch import _fast  # noqa: E402
from kwsearch.engine import convert, state_from_json  # noqa: E402
from kwsearch.rules import Game  # noqa: E402

MIDGAME = ROOT / "examples" / "midgame-4p.json"
BEGIN, END = "<!-- BEGIN bench_engine -->", "<!-- END bench_engine -->"


def machine() -> dict[str, str]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import Cython
    return {
        "date": datetime.date.today().isoformat(),
        "cpu": cpu,
        "python": platform.python_version(),
        "cython": Cython.__version__,
        "platform": platform.platform(),
    }


def best_rate(fn, count: int, repeat: int) -> float:
    """Operations per second: ``count`` operations done by ``fn()``, best of ``repeat`` runs."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return count / best


def recorded_states(game: Game, games: int, seed: int) -> tuple[list, list]:
    """(reference states, the action taken in each) along ``games`` seeded random games."""
    states, acts = [], []
    for g in range(games):
        rng = random.Random(seed + g)
        st = game.new_initial_state(seed + g, engine="reference")
        while not st.is_terminal():
            a = rng.choice(st.legal_actions())
            states.append(st.copy())
            acts.append(a)
            st.apply(a)
    return states, acts


def start_positions() -> dict[str, object]:
    obj = json.loads(MIDGAME.read_text())
    return {
        "4-player opening": Game(4).new_initial_state(1, engine="reference"),
        "mid-game (examples/midgame-4p.json)": state_from_json(obj, seed=1, engine="reference"),
    }


def reference_playouts(state, n: int, seed: int) -> None:
    for i in range(n):
        rng = random.Random(seed + i)
        st = state.copy()
        while not st.is_terminal():
            st.apply(rng.choice(st.legal_actions()))


def fast_playouts_python(state, n: int, seed: int) -> None:
    for i in range(n):
        state.playout(seed + i)


def run(quick: bool, repeat: int) -> dict:
    scale = 0.1 if quick else 1.0
    res: dict = {"machine": machine(), "sizeof_state": _fast.FastState.sizeof(), "rows": []}
    rows = res["rows"]

    def row(what: str, ref: float | None, fast: float, unit: str) -> None:
        rows.append({"what": what, "reference": ref, "fast": fast, "unit": unit,
                     "ratio": (fast / ref) if ref else None})
        r = f"{ref:14,.0f}" if ref else " " * 14
        q = f"{fast / ref:8.0f}x" if ref else ""
        print(f"{what:58s} {r} {fast:16,.0f} {unit:12s} {q}", flush=True)

    print(f"{'':58s} {'reference':>14s} {'fast':>16s}")
    game = Game(4)
    ref_states, acts = recorded_states(game, 4 if quick else 12, 1000)
    fast_states = [convert(s, "fast") for s in ref_states]
    n = len(ref_states)

    # Copies.
    ref0, fast0 = ref_states[n // 2], fast_states[n // 2]
    k = int(20000 * scale)
    row("state copies/s from Python (a mid-game 4p state)",
        best_rate(lambda: [ref0.copy() for _ in range(k)], k, repeat),
        best_rate(lambda: [fast0.copy() for _ in range(k * 10)], k * 10, repeat), "copies/s")
    kc = int(20_000_000 * scale)
    row("state copies/s at C level (struct assignment)", None,
        best_rate(lambda: _fast.bench_copies(fast0, kc), kc, repeat), "copies/s")

    # Legal actions and apply over the same recorded states.
    row(f"legal-action generations/s from Python ({n} recorded states)",
        best_rate(lambda: [s.legal_actions() for s in ref_states], n, repeat),
        best_rate(lambda: [s.legal_actions() for s in fast_states], n, repeat), "lists/s")
    ref_copies = [[s.copy() for s in ref_states] for _ in range(repeat)]
    fast_copies = [[s.copy() for s in fast_states] for _ in range(repeat)]

    def timed_applies(batches) -> float:
        best = float("inf")
        for batch in batches:
            t0 = time.perf_counter()
            for s, a in zip(batch, acts):
                s.apply(a)
            best = min(best, time.perf_counter() - t0)
        return n / best

    row("apply()/s from Python (same states and actions)", timed_applies(ref_copies),
        timed_applies(fast_copies), "applies/s")
    walks = max(20, int(2000 * scale))
    t0 = time.perf_counter()
    gens, applies = _fast.bench_legal_apply(fast_states[0], walks, 7)
    dt = time.perf_counter() - t0
    row("random-walk steps/s at C level (legal generation + apply)", None, gens / dt, "steps/s")
    res["c_walk"] = {"legal_generations": gens, "applies": applies, "seconds": dt}

    # Playouts.
    for name, ref_start in start_positions().items():
        fast_start = convert(ref_start, "fast")
        kr = max(3, int(40 * scale))
        ref_rate = best_rate(lambda: reference_playouts(ref_start, kr, 11), kr, repeat)
        kp = max(100, int(20000 * scale))
        row(f"random playouts/s, {name}: Python loop vs FastState.playout",
            ref_rate, best_rate(lambda: fast_playouts_python(fast_start, kp, 11), kp, repeat), "games/s")
        kf = max(200, int(60000 * scale))
        row(f"random playouts/s, {name}: Python loop vs C level",
            ref_rate, best_rate(lambda: _fast.bench_playouts(fast_start, kf, 11), kf, repeat), "games/s")
    return res


def to_markdown(res: dict, quick: bool) -> str:
    m = res["machine"]
    lines = [
        BEGIN,
        "## Engine (`bench/bench_engine.py`)",
        "",
        f"Measured {m['date']} on {m['cpu']} ({m['platform']}), one core, Python {m['python']}, "
        f"Cython {m['cython']}{' — quick run' if quick else ''}. Best of 3 runs per figure; both engines in "
        "the same process on the same states, action sequences and start positions.",
        "",
        f"`sizeof(KState)` = {res['sizeof_state']} bytes.",
        "",
        "| measurement | reference | fast | unit | fast / reference |",
        "| --- | ---: | ---: | --- | ---: |",
    ]
    for r in res["rows"]:
        ref = f"{r['reference']:,.0f}" if r["reference"] else "—"
        ratio = f"{r['ratio']:,.0f}×" if r["ratio"] else "—"
        lines.append(f"| {r['what']} | {ref} | {r['fast']:,.0f} | {r['unit']} | {ratio} |")
    copy_ns = 1e9 / next(r["fast"] for r in res["rows"] if r["what"].startswith("state copies/s at C"))
    lines += ["", f"A C-level copy takes {copy_ns:.1f} ns.", "",
              "The reference engine computes the options of the next decision while it applies an action and "
              "keeps them, so its `legal_actions()` only copies a list; the fast engine computes them on each "
              "call (that is what `k_legal` does for the search). Compare the apply and playout rows, which "
              "include the reference's option computation.", END]
    return "\n".join(lines)


def write_results(section: str, begin: str = BEGIN, end: str = END) -> None:
    """Replace the section between ``begin`` and ``end`` in bench/RESULTS.md (or append it)."""
    path = HERE / "RESULTS.md"
    text = path.read_text() if path.exists() else "# Benchmark results\n\nWritten by the scripts in `bench/`; each script replaces its own section.\n"
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        _, tail = rest.split(end, 1)
        text = head + section + tail
    else:
        text = text.rstrip() + "\n\n" + section + "\n"
    path.write_text(text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="a few seconds; prints, does not write RESULTS.md")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per figure (best is kept)")
    ap.add_argument("--no-write", action="store_true", help="do not update bench/RESULTS.md")
    args = ap.parse_args(argv)
    res = run(args.quick, args.repeat)
    md = to_markdown(res, args.quick)
    if not args.quick and not args.no_write:
        write_results(md)
        print(f"\nwrote {HERE / 'RESULTS.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
