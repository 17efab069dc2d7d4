"""The evidence a new search default needs (issue 17, item 5): four matches, resumable.

    python bench/acceptance.py --candidate "ismcts:rollout=smart" --label smart-v1
    python bench/acceptance.py --candidate "ismcts:rollout=smart" --label smart-v1 --match 2p --games 100
    python bench/acceptance.py --label smart-v1 --report       # the summary of what is played so far
    python bench/acceptance.py --panel --candidate "ismcts:rollout=smart" --label smart-v1   # bench/panel.py

The candidate and the baseline (default ``ismcts``: today's default; the files of
the ``smart-cut15`` and ``smart-cut30*`` labels were played when it meant ``search.FORMER_DEFAULT``) play with
the same limit per decision (default ``seconds=0.2``; ``--iterations N`` for a
reproducible run), set on both specs:

=========  ========================================================  ===================================
match      what                                                      passes when
=========  ========================================================  ===================================
``2p``     2 players: candidate vs baseline                          score >= 60%
``4p``     4 players: candidate vs three baselines                   score >= 33% (parity 25%)
``more``   4 players: candidate at 4x the limit vs three at 1x       95% interval above parity (25%)
``random`` 2 players: candidate vs ``random``                        score >= 99%
=========  ========================================================  ===================================

Each match is a tournament of :mod:`kwsearch.tournament` (seats rotated, every
rotation of a deal on the same deck, a results file that survives a kill) in
``bench/results/acceptance-LABEL-MATCH.jsonl``; a rerun with the same options resumes it
(a run can be split across sessions: ``--games`` may grow), and ``--match``
plays one match only. A game's score is the candidate's win share (1 for a sole
win, split on ties); the interval is the 95% normal interval over *deal sets*
(the mean of a deal's rotations, so the pairing of the decks is kept:
±1.96·sd/√deals), and the Wilson interval over games is given too.

Decks: match ``m`` (0..3 in the order above) uses the tournament seed
``1_700_000 + m`` (``--seed`` moves the base), i.e. deal ``k`` is dealt from
``derive_seed(1_700_000 + m, "deal", k)``. ``kwsearch tune`` deals from
``derive_seed(seed, "tune", "deal", e)`` and ``bench/strength.py`` from the
integers 100,000 + k (300,000 + k): the label structures differ, so the decks of
the acceptance matches are not those of any tuning run (64-bit hashes; a
collision has a chance of about 2^-50 over millions of deals).

The summary (every match: games, deal sets, score with both intervals, the
target and the verdict) replaces the section ``acceptance-LABEL`` of
``bench/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from kwsearch.benchmarks import machine  # noqa: E402
from kwsearch.bots import BotSpec  # noqa: E402
from kwsearch.errors import KwsearchError  # noqa: E402
from kwsearch.tournament import TournamentSpec, load_results, run_tournament, wilson  # noqa: E402
from kwsearch.seeds import seed_arg  # noqa: E402

SEED_BASE = 1_700_000
#: name -> (players, what, target score or None (lower bound above parity), parity)
MATCHES = {
    "2p": (2, "2 players, candidate vs baseline", 0.60, 0.5),
    "4p": (4, "4 players, candidate vs three baselines", 0.33, 0.25),
    "more": (4, "4 players, candidate at 4x the limit vs three copies at 1x", None, 0.25),
    "random": (2, "2 players, candidate vs random", 0.99, 0.5),
}


class AcceptanceError(KwsearchError):
    """A bad option of the acceptance script."""


def with_limit(spec: str, iterations: int | None, seconds: float | None, factor: int = 1) -> str:
    """``spec`` with its limit per decision set to ``iterations`` or ``seconds`` (times ``factor``)."""
    parsed = BotSpec.parse(spec)
    if parsed.name not in ("ismcts", "pimc", "cheat"):
        raise AcceptanceError(f"{spec!r}: expected a search spec (ismcts, pimc, cheat)")
    opts = tuple((k, v) for k, v in parsed.options if k not in ("iterations", "seconds"))
    limit = ("iterations", iterations * factor) if iterations else ("seconds", seconds * factor)
    return str(BotSpec.parse(str(BotSpec(parsed.name, (limit,) + opts))))  # parsed again: checked


def lineup(match: str, candidate: str, baseline: str, iterations: int | None, seconds: float | None) -> list[str]:
    """The bots of a match, the candidate first (bot 0)."""
    cand = with_limit(candidate, iterations, seconds)
    if match == "2p":
        return [cand, with_limit(baseline, iterations, seconds)]
    if match == "4p":
        return [cand] + [with_limit(baseline, iterations, seconds)] * 3
    if match == "more":
        return [with_limit(candidate, iterations, seconds, 4)] + [cand] * 3
    return [cand, "random"]


def results_path(out_dir: Path, label: str, match: str) -> Path:
    return out_dir / f"acceptance-{label}-{match}.jsonl"


def run_match(match: str, candidate: str, baseline: str, games: int, label: str, out_dir: Path, *,
              iterations: int | None = None, seconds: float | None = 0.2, workers: int = 1,
              seed_base: int = SEED_BASE, echo=print) -> Path:
    """Play (or resume) one match into its results file; returns the file."""
    players = MATCHES[match][0]
    spec = TournamentSpec(bots=tuple(lineup(match, candidate, baseline, iterations, seconds)), players=players,
                          games=games, seed=seed_base + list(MATCHES).index(match))
    out = results_path(out_dir, label, match)

    def progress(done: int, total: int, line: dict) -> None:
        if done % 10 == 0 or done == total:
            echo(f"  {match}: {done}/{total} games")
    info = run_tournament(spec, out, workers=workers, resume=out.exists(), progress=progress)
    echo(f"{match}: {info.played} games played, {info.skipped} already in {out.name}")
    return out


def deal_scores(path: Path) -> tuple[dict, dict, dict[int, float], dict[int, float]]:
    """A results file's header, games, bot 0's score per game and its mean per complete deal set
    (deal ``k``: games ``k*players`` to ``k*players + players - 1``, every rotation on one deck),
    keyed by ``k`` so two files of the same seed pair deal by deal (``bench/panel.py``)."""
    header, games, _ = load_results(path)
    players = header["players"]
    score = {i: sum(r for r, b in zip(g["returns"], g["bots"]) if b == 0) for i, g in games.items()}
    deals = {}
    block = 0
    while block * players <= max(games, default=-1):
        members = range(block * players, (block + 1) * players)
        if all(i in score for i in members):
            deals[block] = sum(score[i] for i in members) / players
        block += 1
    return header, games, score, deals


def match_stats(path: Path, match: str) -> dict:
    """The candidate's (bot 0's) score in a results file: games, deal sets, mean, both intervals."""
    header, games, score, by_deal = deal_scores(path)
    deals = list(by_deal.values())
    n = len(score)
    mean = sum(score.values()) / n if n else 0.0
    lo, hi = wilson(sum(score.values()), n)
    d = len(deals)
    dm = sum(deals) / d if d else 0.0
    sd = math.sqrt(sum((x - dm) ** 2 for x in deals) / (d - 1)) if d > 1 else 0.0
    half = 1.96 * sd / math.sqrt(d) if d else 1.0
    players_, _, target, parity = MATCHES[match]
    low = dm - half
    passed = (low > parity) if target is None else (dm >= target)
    # Games stopped at the tournament's decision cap count with their adjudicated result (the money then).
    adjudicated = sum(1 for g in games.values() if g.get("adjudicated"))
    return {"match": match, "bots": header["bots"], "games": n, "adjudicated": adjudicated, "deals": d, "mean": mean, "deal_mean": dm,
            "deal_interval": (max(0.0, low), min(1.0, dm + half)), "wilson": (lo, hi), "target": target,
            "parity": parity, "passed": passed}


def summary(label: str, out_dir: Path) -> str:
    """The RESULTS.md section of a label's matches: one row per played match, each naming the
    candidate and baseline its own file's header holds (a label may test one candidate with two
    players and another with four), the machine and the date."""
    rows = []
    for match in MATCHES:
        path = results_path(out_dir, label, match)
        if not path.exists():
            continue
        s = match_stats(path, match)
        target = (f"≥ {s['target']:.0%}" if s["target"] is not None else f"interval above {s['parity']:.0%}")
        if s["games"] < 400:  # a verdict needs the whole match
            verdict = (f"undecided: {s['games']} of ≥ 400 games "
                       f"({'meets' if s['passed'] else 'misses'} the target so far)")
        else:
            verdict = "pass" if s["passed"] else "**not met**"
        if s["adjudicated"]:
            verdict += f" ({s['adjudicated']} adjudicated at the decision cap)"
        lo, hi = s["deal_interval"]
        wl, wh = s["wilson"]
        bots = " vs ".join(f"`{b}`" for b in dict.fromkeys(s["bots"]))
        rows.append(f"| {match} | {MATCHES[match][1]} | {bots} | {s['games']} | {s['deals']} | {s['deal_mean']:.1%} "
                    f"[{lo:.1%}, {hi:.1%}] | [{wl:.1%}, {wh:.1%}] | {s['parity']:.0%} | {target} | {verdict} |")
    lines = [f"<!-- BEGIN acceptance-{label} -->", f"## Acceptance matches: {label}", ""]
    if rows:
        m = machine()
        lines += [f"Written by `bench/acceptance.py` on {m['date']} ({m['cpu']}, Python {m['python']}); the files "
                  f"`acceptance-{label}-<match>.jsonl` hold every game. Score = the candidate's (first bot's) win "
                  "share; intervals 95% (normal over deal sets, and Wilson over games). Equal-time matches give "
                  "each side the same wall-clock time per decision.", "",
                  "| match | what | bots | games | deal sets | score [95% over deal sets] | Wilson 95% | parity | "
                  "target | verdict |", "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- | --- |", *rows]
    else:
        lines.append("No match played yet.")
    lines.append(f"<!-- END acceptance-{label} -->")
    return "\n".join(lines)


def add_match_arguments(ap: argparse.ArgumentParser, games: int, seed_base: int) -> None:
    """The options of a candidate's matches, shared by this script and bench/panel.py."""
    ap.add_argument("--candidate", help="the candidate's spec (its limit is replaced by --seconds/--iterations)")
    ap.add_argument("--label", required=True, help="names the results files and the RESULTS.md section")
    ap.add_argument("--games", type=int, default=games, help=f"games per match (default {games})")
    ap.add_argument("--seconds", type=float, default=None, help="seconds per decision (default 0.2)")
    ap.add_argument("--iterations", type=int, default=None, help="iterations per decision instead of seconds")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--seed", type=seed_arg, default=seed_base, help=f"base of the match seeds (default {seed_base})")
    ap.add_argument("--out-dir", default=str(HERE / "results"), help="where the results files go (default bench/results/)")
    ap.add_argument("--results", default=str(HERE / "RESULTS.md"), help="the Markdown file of the summary")
    ap.add_argument("--report", action="store_true", help="only write and print the summary")


def match_seconds(a: argparse.Namespace, error: type[KwsearchError]) -> float | None:
    """The seconds per decision of the options of :func:`add_match_arguments` (0.2 unless a limit is given),
    after checking that a run that plays (not ``--report``) names its candidate and a positive game count."""
    if not a.report:
        if not a.candidate:
            raise error("--candidate: give the candidate's spec")
        if a.games < 1:
            raise error(f"--games: expected a positive number, got {a.games}")
    return a.seconds if a.seconds is not None or a.iterations else 0.2


def publish(a: argparse.Namespace, text: str, section: str) -> int:
    """Write the summary ``text`` as the ``section`` of ``--results`` and print it (exit status 0)."""
    from kwsearch.benchmarks import write_results
    write_results(a.results, text, f"<!-- BEGIN {section} -->", f"<!-- END {section} -->")
    print(text)
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if "--panel" in argv:  # the opponent panel (issue 32): bench/panel.py, which shares this file's code
        if str(HERE) not in sys.path:
            sys.path.insert(0, str(HERE))
        import panel
        return panel.main([x for x in argv if x != "--panel"])
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline", default="ismcts", help="the baseline's spec (default: today's default)")
    ap.add_argument("--match", choices=list(MATCHES), action="append", help="play only these (repeat)")
    add_match_arguments(ap, games=400, seed_base=SEED_BASE)
    a = ap.parse_args(argv)
    out_dir = Path(a.out_dir)
    try:
        seconds = match_seconds(a, AcceptanceError)
        if not a.report:
            for match in a.match or list(MATCHES):
                run_match(match, a.candidate, a.baseline, a.games, a.label, out_dir, iterations=a.iterations,
                          seconds=seconds, workers=a.workers, seed_base=a.seed)
        text = summary(a.label, out_dir)
    except KwsearchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return publish(a, text, f"acceptance-{a.label}")


if __name__ == "__main__":
    sys.exit(main())
