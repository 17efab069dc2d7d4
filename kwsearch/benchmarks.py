"""Engine and search benchmarks (``kwsearch bench``; the scripts in ``bench/`` call these).

Engine: the fast (Cython) and the reference (Python) engine side by side, in one
process, on one core, on the same positions and action sequences — state copies
(from Python and at C level), legal-action generation and apply over the states
of recorded random games, random playouts from the 4-player opening and from the
bundled mid-game position (Python loop, ``FastState.playout``, C level).

Search: ISMCTS iterations per second from the same two positions with one worker
(best of ``repeat`` runs), and root-parallel searches with 1 and 2 worker
processes under one time limit (summed iterations over the wall-clock time of
the whole call, process start-up included).

Speed in CPU time (:func:`cpu_speed`, part of the search benchmark): the
process's CPU time (``time.process_time()``), which a shared machine disturbs far
less than the wall clock — ISMCTS iterations per CPU-second with tempo playouts
to the end (``BENCH_CONFIG``), random and tempo-policy playouts per CPU-second and nanoseconds
per playout decision (a decision = one action chosen in the playout; forced,
single-option steps are not counted), from the 4-player opening and the mid-game;
and the player-count default search (smart playouts, cut-off and evaluation) with
0%, 30% and 100% of its playout decisions drawn from the move prior
(``SearchConfig.prior_playout``, ``GUIDED_SHARES``), with their ratios to the
unguided search measured in the same run.
When open-spiel is installed, the same run measures OpenSpiel's C++ ISMCTS
(``pyspiel.ISMCTSBot`` with a ``RandomRolloutEvaluator`` of one rollout) on its
built-in ``hearts``: the CPU time of a fixed number of simulations from the first
decision of a seeded deal, divided by the simulations and by the mean number of
player decisions of uniformly random hearts playouts from that state (measured
with pyspiel in the same run). Ours on the same footing: the CPU time of an ISMCTS
iteration divided by the mean decisions of a tempo playout from the root.

Each figure is the best of ``repeat`` timed runs; the guided and unguided searches
are timed in interleaved rounds (at least 5), so their ratios compare runs made at
the same time. Timing is never asserted anywhere; these functions report what they
measured, on which machine.
"""

from __future__ import annotations

import datetime
import json
import platform
import random
import time
from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import Callable

from . import _fast, _playout, _search
from .engine import convert, state_from_json
from .game import Game
from .render import line_width, wrap_phrases
from .search import SearchConfig, SearchLimits, search
from .seeds import derive_seed

ENGINE_BEGIN, ENGINE_END = "<!-- BEGIN bench_engine -->", "<!-- END bench_engine -->"
SEARCH_BEGIN, SEARCH_END = "<!-- BEGIN bench_search -->", "<!-- END bench_search -->"


def midgame_text() -> str:
    """The bundled mid-game 4-player position (also examples/midgame-4p.json)."""
    return resources.files("kwsearch").joinpath("data/midgame-4p.json").read_text(encoding="utf-8")


def machine() -> dict[str, str]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:  # Cython is a build requirement; an installed kwsearch may run without it
        import Cython
        cython_version = Cython.__version__
    except ImportError:
        cython_version = "(not installed at run time)"
    return {
        "date": datetime.date.today().isoformat(),
        "cpu": cpu,
        "python": platform.python_version(),
        "cython": cython_version,
        "platform": platform.platform(),
    }


def best_cpu_rate(fn, count: int, repeat: int) -> float:
    """Operations per CPU-second of this process: ``count`` operations done by ``fn()``, best of ``repeat``."""
    return best_cpu_rates({None: fn}, count, repeat)[None]


def best_cpu_rates(fns: dict, count: int, repeat: int) -> dict:
    """``best_cpu_rate`` of several functions, interleaved: each round runs every function once, so a
    change in the machine's load during the measurement falls on all of them alike (a side-by-side
    ratio stays fair). Returns {key: operations per CPU-second, best of ``repeat`` rounds}."""
    best = {key: float("inf") for key in fns}
    for _ in range(repeat):
        for key, fn in fns.items():
            t0 = time.process_time()
            fn()
            best[key] = min(best[key], max(time.process_time() - t0, 1e-9))
    return {key: count / t for key, t in best.items()}


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
        rng = random.Random(derive_seed(seed, "game", g))
        st = game.new_initial_state(derive_seed(seed, "deal", g), engine="reference")
        while not st.is_terminal():
            a = rng.choice(st.legal_actions())
            states.append(st.copy())
            acts.append(a)
            st.apply(a)
    return states, acts


def start_positions() -> dict[str, object]:
    obj = json.loads(midgame_text())
    return {
        "4-player opening": Game(4).new_initial_state(1, engine="reference"),
        "mid-game (examples/midgame-4p.json)": state_from_json(obj, seed=1, engine="reference"),
    }


def reference_playouts(state, n: int, seed: int) -> None:
    for i in range(n):
        rng = random.Random(derive_seed(seed, "playout", i))
        st = state.copy()
        while not st.is_terminal():
            st.apply(rng.choice(st.legal_actions()))


def fast_playouts_python(state, n: int, seed: int) -> None:
    for i in range(n):
        state.playout(derive_seed(seed, "playout", i))


def fit_row(label: str, cells: str, width: int, indent: str = "    ") -> list[str]:
    """One row of figures within ``width`` columns: ``cells`` (the figures, laid out to a fixed width
    by the caller) at the right of the first line, ``label`` on the left, wrapped between words onto
    the lines below (continuations get ``indent`` after the label's own leading spaces). On a terminal
    too narrow for a word of the label beside the figures, the label takes whole lines and the
    figures the line under it."""
    room = width - len(cells) - 1
    lead = label[:len(label) - len(label.lstrip(" "))]
    if max(map(len, label.split()), default=0) + len(lead + indent) > room:
        return [*wrap_phrases(label, width, lead + indent), f"{cells:>{width}}".rstrip()]
    parts = wrap_phrases(label, room, lead + indent)
    return [f"{parts[0]:<{room}} {cells}".rstrip(), *parts[1:]]


def echo_lines(echo: Callable[[str], None], lines: list[str]) -> None:
    for line in lines:
        echo(line)


def engine_cells(ref: float | str | None, fast: float | str, unit: str, ratio: float | str | None) -> str:
    """The engine table's figures: reference, fast (per second), unit, fast / reference (or headings)."""
    r = ref if isinstance(ref, str) else f"{ref:,.0f}" if ref else ""
    f = fast if isinstance(fast, str) else f"{fast:,.0f}"
    q = ratio if isinstance(ratio, str) else f"{ratio:,.0f}x" if ratio else ""
    return f"{r:>11} {f:>13} {unit:<9} {q:>8}"


def engine_bench(quick: bool = False, repeat: int = 3, echo: Callable[[str], None] = print,
                 width: int | None = None) -> dict:
    """The engine figures (module docstring); each row is echoed as it is measured, within ``width``
    columns (default :func:`kwsearch.render.line_width`)."""
    width = width or line_width()
    scale = 0.3 if quick else 1.0
    res: dict = {"machine": machine(), "sizeof_state": _fast.FastState.sizeof(), "rows": []}
    rows = res["rows"]

    def row(what: str, ref: float | None, fast: float, unit: str) -> None:
        rows.append({"what": what, "reference": ref, "fast": fast, "unit": unit,
                     "ratio": (fast / ref) if ref else None})
        echo_lines(echo, fit_row(what, engine_cells(ref, fast, unit, fast / ref if ref else None), width))

    echo_lines(echo, fit_row("measurement (per second of wall-clock time)",
                             engine_cells("reference", "fast", "unit", "fast/ref"), width))
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


def engine_markdown(res: dict, quick: bool) -> str:
    m = res["machine"]
    lines = [
        ENGINE_BEGIN,
        "## Engine (`kwsearch bench`, `bench/bench_engine.py`)",
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
              "include the reference's option computation.", ENGINE_END]
    return "\n".join(lines)


def write_results(path: str | Path, section: str, begin: str, end: str) -> None:
    """Replace the section between ``begin`` and ``end`` in the Markdown file ``path`` (or append it)."""
    path = Path(path)
    text = path.read_text() if path.exists() else ("# Benchmark results\n\nWritten by `kwsearch bench` and the "
                                                   "scripts in `bench/`; each replaces its own section.\n")
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        _, tail = rest.split(end, 1)
        text = head + section + tail
    else:
        text = text.rstrip() + "\n\n" + section + "\n"
    from .fileio import write_text_atomic
    write_text_atomic(path, text, what="results file")



#: The search the benchmark times: tempo playouts to the end of the game (the four-player default
#: before issue 17, ``search.FORMER_DEFAULT[4]``), so that an iteration is a whole playout and the
#: figures stay comparable with earlier runs and with OpenSpiel's (a cut-off iteration, today's
#: default, is cheaper and measures something else). c and the money weight spelled out as that
#: default's (0.4 and 0.5; the four-player default's c has been 0.25 since issue 32's twenty-first round).
BENCH_CONFIG = SearchConfig(rollout="tempo", cutoff=0, c_uct=0.4, money_weight=0.5)


def search_positions() -> dict[str, object]:
    mid = json.loads(midgame_text())
    return {"4-player opening": Game(4).new_initial_state(1),
            "mid-game (examples/midgame-4p.json)": state_from_json(mid, seed=1)}


def search_cells(value: float, unit: str) -> str:
    """A search figure and its unit (``x``: a ratio of two figures of the run)."""
    shown = f"{value:,.2f}" if unit == "x" else f"{value:,.0f}" if unit == "it/s" else f"{value:,.1f}"
    return f"{shown:>14} {unit:<11}"


def search_bench(quick: bool = False, repeat: int = 3, echo: Callable[[str], None] = print,
                 width: int | None = None) -> dict:
    """The search figures (module docstring), echoed as they are measured within ``width`` columns
    (default :func:`kwsearch.render.line_width`), each position's rows under its name."""
    width = width or line_width()
    iters = 40_000 if quick else 100_000
    seconds = 2.0 if quick else 5.0
    rows = []
    echo_lines(echo, wrap_phrases("it/s: search iterations per second of wall-clock time (time.perf_counter), "
                                  "what a user waits", width, "  "))
    for name, st in search_positions().items():
        echo(name)
        best = 0.0
        nodes = 0
        for r in range(repeat):
            res = search(st, SearchLimits(iterations=iters), BENCH_CONFIG, seed=r)
            best = max(best, res.iterations_per_second)
            nodes = res.nodes
        rows.append((name, f"1 worker, {iters:,} iterations", best, None))
        echo_lines(echo, fit_row("  " + rows[-1][1], search_cells(best, "it/s"), width))
        per_worker = {}
        for workers in (1, 2):
            t0 = time.perf_counter()
            res = search(st, SearchLimits(seconds=seconds), replace(BENCH_CONFIG, workers=workers), seed=1)
            wall = time.perf_counter() - t0
            per_worker[workers] = res.iterations / wall
            label = (f"{workers} worker processes, {seconds:g} s" if workers > 1
                     else f"1 worker (in process), {seconds:g} s")
            rows.append((name, label, res.iterations / wall, res.iterations / res.elapsed))
            echo_lines(echo, fit_row(f"  {label} (searching time only: {res.iterations / res.elapsed:,.0f} it/s)",
                                     search_cells(res.iterations / wall, "it/s"), width))
        rows.append((name, "2 workers / 1 worker (wall clock)", per_worker[2] / per_worker[1], None))
        echo_lines(echo, fit_row("  2 workers / 1 worker (wall clock)",
                                 search_cells(per_worker[2] / per_worker[1], "x"), width))
    echo("")
    echo("Speed in CPU time (time.process_time), one core")
    echo_lines(echo, wrap_phrases("it/CPU-s: iterations per second of this process's CPU time -- the work alone, "
                                  "without the time it waited for the machine (other programs), so steadier than "
                                  "the wall-clock it/s above on a shared machine", width, "  "))
    cpu = cpu_speed(quick, repeat, echo, width)
    return {"machine": machine(), "rows": rows, "node_bytes": _search.Tree.node_bytes(), "nodes": nodes,
            "cpu": cpu}


def openspiel_hearts(simulations: int, repeat: int, seed: int = 1) -> dict | None:
    """OpenSpiel's C++ ISMCTS on ``hearts`` in CPU time (see the module docstring), or None without open-spiel."""
    try:
        import pyspiel
    except ImportError:
        return None
    rng = random.Random(seed)
    game = pyspiel.load_game("hearts")
    root = game.new_initial_state()
    while root.is_chance_node():
        root.apply_action(rng.choice(root.chance_outcomes())[0])
    decisions = playouts = 0
    for _ in range(max(50, simulations // 10)):
        st = root.clone()
        while not st.is_terminal():
            if st.is_chance_node():
                st.apply_action(rng.choice(st.chance_outcomes())[0])
            else:
                st.apply_action(rng.choice(st.legal_actions()))
                decisions += 1
        playouts += 1
    per_playout = decisions / playouts
    best = float("inf")
    for r in range(repeat):
        bot = pyspiel.ISMCTSBot(seed + r, pyspiel.RandomRolloutEvaluator(1, seed + r), 2.0, simulations, -1,
                                pyspiel.ISMCTSFinalPolicyType.NORMALIZED_VISIT_COUNT, False, False)
        t0 = time.process_time()
        bot.step(root)
        best = min(best, time.process_time() - t0)
    return {"simulations_per_cpu_second": simulations / best, "decisions_per_playout": per_playout,
            "ns_per_playout_decision": best / simulations / per_playout * 1e9}


#: The playout shares of the move prior that ``cpu_speed`` times (0: the default, unguided).
GUIDED_SHARES = (0.0, 0.3, 1.0)


#: Why a row about another game: printed under it by ``kwsearch bench`` (docs: README, bench/RESULTS.md).
HEARTS_NOTE = ("  OpenSpiel hearts: a reference point, not a Kraftwagen figure -- OpenSpiel's own C++ ISMCTS on its "
               "built-in card game hearts (hidden hands, like Kraftwagen's deck), timed the same way as ours: "
               "CPU time per playout decision. Compare it with the 'ns per tempo-playout decision' rows above.")


def cpu_speed(quick: bool = False, repeat: int = 3, echo: Callable[[str], None] = print,
              width: int | None = None) -> dict:
    """The CPU-time figures of the module docstring: {"rows": [(position, measurement, value, unit)],
    "openspiel_hearts": dict or None}; echoed within ``width`` columns, each position's rows under its name."""
    width = width or line_width()
    rows: list[tuple[str, str, float, str]] = []
    iters = 20_000 if quick else 60_000
    kp = 5_000 if quick else 30_000

    def add(name: str, what: str, value: float, unit: str) -> None:
        if not rows or rows[-1][0] != name:
            echo(name)
        rows.append((name, what, value, unit))
        echo_lines(echo, fit_row("  " + what, search_cells(value, unit), width))

    for name, st in search_positions().items():
        fast = convert(st, "fast")
        rate = best_cpu_rate(lambda: search(fast, SearchLimits(iterations=iters), BENCH_CONFIG, seed=1), iters, repeat)
        add(name, "ISMCTS iterations per CPU-second", rate, "it/CPU-s")
        per = {}
        for policy in ("random", "tempo"):
            counted = {}

            def run(policy=policy, counted=counted) -> None:
                counted["money"], counted["decisions"] = _playout.bench_playouts_counted(fast, kp, 11, policy == "tempo")

            prate = best_cpu_rate(run, kp, repeat)
            per[policy] = counted["decisions"] / kp
            add(name, f"{policy} playouts per CPU-second", prate, "games/CPU-s")
            add(name, f"{policy} playout: ns per decision ({per[policy]:.0f} per playout)",
                1e9 / prate / per[policy], "ns")
        add(name, "ISMCTS: ns per tempo-playout decision", 1e9 / rate / per["tempo"], "ns")
        # The player-count default search, unguided and with playouts guided by the move prior
        # (SearchConfig.prior_playout), side by side: what a playout share costs in speed.
        # Interleaved rounds, so the ratios compare runs made at the same time.
        guided = best_cpu_rates({share: (lambda c=SearchConfig(prior_playout=share):
                                         search(fast, SearchLimits(iterations=iters), c, seed=1))
                                 for share in GUIDED_SHARES}, iters, max(repeat, 5))
        for share in GUIDED_SHARES:
            add(name, f"default search, {share:.0%} of playout decisions from the prior", guided[share], "it/CPU-s")
        for share in GUIDED_SHARES[1:]:
            add(name, f"  speed at {share:.0%} guided / unguided", guided[share] / guided[0.0], "x")
    hearts = openspiel_hearts(300 if quick else 2000, repeat)
    if hearts:
        echo("OpenSpiel hearts (C++ ISMCTSBot)")
        echo_lines(echo, fit_row(f"  ns per playout decision ({hearts['decisions_per_playout']:.0f} decisions per "
                                 f"playout, {hearts['simulations_per_cpu_second']:,.0f} simulations/CPU-s)",
                                 search_cells(hearts["ns_per_playout_decision"], "ns"), width))
        echo_lines(echo, wrap_phrases(HEARTS_NOTE, width, "  "))
    else:
        echo_lines(echo, wrap_phrases("OpenSpiel hearts: open-spiel is not installed (pip install \".[openspiel]\" "
                                      "in the kwsearch clone)", width, "  "))
    return {"rows": rows, "openspiel_hearts": hearts}


def search_markdown(res: dict, quick: bool) -> str:
    m = res["machine"]
    lines = [SEARCH_BEGIN, "## Search (`kwsearch bench`, `bench/bench_search.py`)", "",
             f"Measured {m['date']} on {m['cpu']}, Python {m['python']}, Cython {m['cython']}"
             f"{' — quick run' if quick else ''}. ISMCTS with tempo playouts to the end of the game "
             "(`benchmarks.BENCH_CONFIG`, the four-player default before issue 17; for these four-player positions "
             "c = 0.4 and a money weight of 0.5). Worker rows: summed iterations over the wall-clock time of the whole "
             "call, process start-up included (in brackets: over the searching time alone).", "",
             f"A node takes {res['node_bytes']} bytes (the node pool is one array of them).", "",
             "| position | setting | iterations/s |", "| --- | --- | ---: |"]
    for name, label, value, inner in res["rows"]:
        if label.startswith("2 workers / 1"):
            lines.append(f"| {name} | {label} | {value:.2f}× |")
        else:
            extra = f" ({inner:,.0f})" if inner else ""
            lines.append(f"| {name} | {label} | {value:,.0f}{extra} |")
    cpu = res.get("cpu")
    if cpu:
        lines += ["", "### Speed in CPU time", "",
                  "CPU time of this process (`time.process_time()`), one core; see `kwsearch/benchmarks.py` for "
                  "the method (a decision is one action chosen in a playout).", "",
                  "| position | measurement | value |", "| --- | --- | ---: |"]
        for name, what, value, unit in cpu["rows"]:
            shown = f"{value:.2f}×" if unit == "x" else f"{value:,.0f} {unit}"
            lines.append(f"| {name} | {what} | {shown} |")
        h = cpu.get("openspiel_hearts")
        if h:
            lines.append(f"| OpenSpiel `hearts`, C++ `ISMCTSBot` + `RandomRolloutEvaluator` | ns per playout "
                         f"decision ({h['decisions_per_playout']:.0f} per playout, "
                         f"{h['simulations_per_cpu_second']:,.0f} simulations/CPU-s) | "
                         f"{h['ns_per_playout_decision']:,.0f} ns |")
        else:
            lines.append("| OpenSpiel `hearts` | not measured: open-spiel not installed | — |")
        lines += ["", "`it/CPU-s` counts per second of CPU time, `iterations/s` above per second of wall-clock "
                  "time. The OpenSpiel `hearts` row is a reference point, not a Kraftwagen figure: OpenSpiel's own "
                  "C++ ISMCTS on another game with hidden information, timed the same way, to set beside the "
                  "\"ISMCTS: ns per tempo-playout decision\" rows."]
    lines.append(SEARCH_END)
    return "\n".join(lines)




def summary(engine: dict | None, search_res: dict | None) -> list[tuple[str, str]]:
    """The headline figures of a run, as (measurement, value) rows."""
    rows: list[tuple[str, str]] = []
    if engine:
        m = engine["machine"]
        rows.append(("machine", f"{m['cpu']}, Python {m['python']}, {m['date']}"))
        for r in engine["rows"]:
            w = r["what"]
            if w.startswith("state copies/s at C"):
                rows.append(("state copy (C level)", f"{1e9 / r['fast']:.1f} ns ({engine['sizeof_state']} bytes)"))
            elif w.startswith("apply()/s"):
                rows.append(("apply from Python, fast / reference", f"{r['fast']:,.0f}/s, {r['ratio']:,.0f}x"))
            elif "C level" in w and w.startswith("random playouts/s"):
                where = w.split(", ", 1)[1].split(":")[0]
                rows.append((f"random playouts/s, {where} (C level)",
                             f"{r['fast']:,.0f}, {r['ratio']:,.0f}x the reference"))
    if search_res:
        for name, label, value, _ in search_res["rows"]:
            if label.startswith("1 worker, "):
                rows.append((f"ISMCTS iterations/s, {name} (wall clock)", f"{value:,.0f}"))
            elif label.startswith("2 workers / 1"):
                rows.append((f"2 workers / 1 worker, {name}", f"{value:.2f}x"))
        rows.append(("bytes per search node", str(search_res["node_bytes"])))
        cpu = search_res.get("cpu")
        if cpu:
            for name, what, value, unit in cpu["rows"]:
                if what.startswith("ISMCTS iterations") or what.startswith("ISMCTS: ns") or what.startswith("tempo playout: ns"):
                    rows.append((f"{what.split(' (')[0]}, {name} (CPU time)", f"{value:,.0f} {unit}"))
            h = cpu.get("openspiel_hearts")
            rows.append(("OpenSpiel C++ ISMCTS on hearts (a reference point), ns per playout decision (CPU time)",
                         f"{h['ns_per_playout_decision']:,.0f} ns" if h else "open-spiel not installed"))
    return rows


#: What the units of ``kwsearch bench`` mean (printed first; README, Benchmarks).
UNITS_NOTE = ("Units: /s = per second of wall-clock time (time.perf_counter); /CPU-s = per second of this "
              "process's CPU time (time.process_time), which leaves out waiting for a busy machine; ns = "
              "nanoseconds per step (per playout decision: CPU time; per state copy: wall clock); x = a ratio "
              "of two figures of this run. The OpenSpiel hearts row times OpenSpiel's C++ ISMCTS on another "
              "game with hidden information, as a reference point (README, Benchmarks).")


def summary_lines(rows: list[tuple[str, str]], title: str, width: int | None = None) -> list[str]:
    """The summary rows (:func:`summary`) as a two-column table within ``width`` columns (default
    :func:`kwsearch.render.line_width`): the measurements' names wrapped in the left column, the
    values in the right; a value too wide for that (the machine) goes on its own lines."""
    width = width or line_width()
    values = [v for _, v in rows if len(v) <= width // 2]
    room = min(max((len(k) for k, _ in rows), default=0), width - 4 - max(map(len, values), default=0))
    out = [title]
    for k, v in rows:
        keys = wrap_phrases(k, room, "    ")
        if len(v) <= width - room - 4:
            out.append(f"  {keys[0]:<{room}}  {v}")
            out += ["  " + x for x in keys[1:]]
        else:
            out += wrap_phrases(f"  {k}: {v}", width, "    ")
    return out

