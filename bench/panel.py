"""The opponent panel (issue 32, item 1): a candidate against a fixed set of players, judged against today's default.

    python bench/panel.py --candidate "ismcts:rollout=smart" --label smart-v2 --players 2
    python bench/panel.py --candidate "ismcts" --label screen-default --iterations 1000 --games 40
    python bench/panel.py --label smart-v2 --report          # the summary of what is played so far
    python bench/acceptance.py --panel ...                    # the same (acceptance.py hands over)

The panel, declared once here (:func:`panel`), the same members for 2, 3 and 4 players
(only the former default's settings depend on the player count):

=============  =====================================================  ======================================
member         spec                                                   what it stands for
=============  =====================================================  ======================================
``default``    ``ismcts``                                             today's default search
``heuristic``  ``heuristic``                                          the hand-written greedy player
``former``     ``ismcts:`` + ``search.FORMER_DEFAULT[players]``       the former default (tempo playouts)
``openspiel``  ``openspiel-ismcts``                                   OpenSpiel's ISMCTS, random rollouts
``pimc``       ``pimc`` (20 worlds)                                   determinized UCT (worlds vote)
``cheat``      ``cheat``                                              UCT that sees the deck: the luck ceiling
=============  =====================================================  ======================================

Every search (the candidate's, the members', the reference's) gets the same limit per decision:
``--seconds S`` (default 0.2: equal time) or ``--iterations N`` (equal iterations, reproducible);
the heuristic has no limit. A match is one candidate seat against ``players - 1`` copies of the
member (2 players: head to head), seats rotated over every deal (:mod:`kwsearch.tournament`).
Beside each match the *reference*, today's default (``ismcts`` at the same limit), plays the same
member on the same decks (same tournament seed), so the two scores pair deal by deal. The
``default`` member needs no reference (today's default against itself scores parity, 1/players),
and a candidate whose limited spec is the reference's shares its file with the reference.

Files: ``bench/results/panel-LABEL-<players>p-<member>.jsonl`` (the candidate) and
``...-<member>-ref.jsonl`` (the reference); a rerun with the same options resumes them, and
``--games`` may grow.

Decks: the match of member ``m`` (its index in the table above) at ``n`` players uses the tournament
seed ``2_600_000 + 100*n + m`` (``--seed`` moves the base), deal ``k`` dealt from
``derive_seed(seed, "deal", k)``. These integers are fresh (no results file, script or document used
any seed from 2,000,000 to 3,000,000 before): the acceptance matches use 1,700,000 to 1,700,003 and
their replication 1,800,000 + m (bench/acceptance.py), match 48 of docs/strength.md 1,800,010, the
other strength matches small seeds (below 10,000) and ``bench/strength.py`` the integers
100,000 + k and 300,000 + k, and ``kwsearch tune`` deals from
``derive_seed(seed, "tune", "deal", e)`` (another label structure). No evaluation, prior or
setting was fitted or tuned on these decks; keep it so (fit on other seeds).

**The verdict.** Score = the candidate's win share in a game (1 for a sole win, split on ties),
averaged over a deal's rotations (a deal set); intervals are 95% normal intervals over deal sets.
A candidate is **accepted** iff

(a) *it beats today's default at equal time*: against the ``default`` member the lower end of the
    95% interval of its deal-set score is above parity (1/players); and
(b) *it is not worse against any panel member*: for every other member, the paired difference
    (candidate's deal-set score minus the reference's on the same deal) has a 95% interval whose
    lower end is above ``-MARGIN`` = -5 points.

Why 5 points: it is half the smallest gain the acceptance protocol asks of a candidate over today's
default (60% against parity 50%, bench/acceptance.py); a candidate may give back less than half of
its required gain against any one opponent, and a drop of 5 points or more against a member is a
change a player would notice (the levels of docs/strength.md differ by far more). The burden of
proof is on the candidate: an interval too wide to exclude -5 points is a rejection, fixed by
playing more games (the files resume). Every match needs ``MIN_GAMES`` (400) games before any
verdict; until then the row and the whole panel say "undecided". At 400 two-player games (200 deal
sets) a paired difference's half-width is about 4 to 7 points, so 5 points is about what 400 games
can resolve; more games narrow it.

The summary (per player count and member: the candidate's score, the reference's score on the same
decks, the difference with its interval, the row's verdict, and the panel's verdict) replaces the
section ``panel-LABEL`` of ``bench/RESULTS.md`` and is printed.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for _p in (str(ROOT), str(HERE)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import acceptance  # noqa: E402  (bench/acceptance.py: the limits, the per-deal scores)
from kwsearch.benchmarks import machine  # noqa: E402
from kwsearch.bots import BotSpec  # noqa: E402
from kwsearch.errors import KwsearchError  # noqa: E402
from kwsearch.search import FORMER_DEFAULT  # noqa: E402
from kwsearch.tournament import TournamentSpec, run_tournament  # noqa: E402

SEED_BASE = 2_600_000
#: the paired difference's 95% interval must lie above -MARGIN (win-share points / 100)
MARGIN = 0.05
#: games per match before any verdict
MIN_GAMES = 400
#: today's default: the candidate must beat it, and it is the reference against every member
REFERENCE = "ismcts"
MEMBERS = ("default", "heuristic", "former", "openspiel", "pimc", "cheat")


class PanelError(KwsearchError):
    """A bad option of the panel script."""


def panel(players: int) -> dict[str, str]:
    """The panel at ``players`` players: member name -> spec (without a limit)."""
    if players not in FORMER_DEFAULT:
        raise PanelError(f"--players: expected 2, 3 or 4, got {players}")
    specs = {"default": REFERENCE, "heuristic": "heuristic", "former": f"ismcts:{FORMER_DEFAULT[players]}",
             "openspiel": "openspiel-ismcts", "pimc": "pimc", "cheat": "cheat"}
    assert tuple(specs) == MEMBERS
    return specs


def limited(spec: str, iterations: int | None, seconds: float | None) -> str:
    """``spec`` with the panel's limit per decision (the heuristic and random have none)."""
    parsed = BotSpec.parse(spec, check_files=False)
    if parsed.name in ("heuristic", "random"):
        return str(parsed)
    if parsed.name.startswith("openspiel-"):
        opts = tuple((k, v) for k, v in parsed.options if k not in ("iterations", "seconds"))
        limit = ("iterations", iterations) if iterations else ("seconds", seconds)
        return str(BotSpec.parse(str(BotSpec(parsed.name, (limit,) + opts))))
    return acceptance.with_limit(spec, iterations, seconds)


def match_seed(players: int, member: str, base: int = SEED_BASE) -> int:
    return base + 100 * players + MEMBERS.index(member)


def results_path(out_dir: Path, label: str, players: int, member: str, ref: bool = False) -> Path:
    return out_dir / f"panel-{label}-{players}p-{member}{'-ref' if ref else ''}.jsonl"


def play(bots: list[str], players: int, games: int, seed: int, out: Path, workers: int, echo, name: str) -> None:
    spec = TournamentSpec(bots=tuple(bots), players=players, games=games, seed=seed)

    def progress(done: int, total: int, line: dict) -> None:
        if done % 10 == 0 or done == total:
            echo(f"  {name}: {done}/{total} games")
    info = run_tournament(spec, out, workers=workers, resume=out.exists(), progress=progress)
    echo(f"{name}: {info.played} games played, {info.skipped} already in {out.name}")


def run_member(candidate: str, member: str, players: int, games: int, label: str, out_dir: Path, *,
               iterations: int | None = None, seconds: float | None = 0.2, workers: int = 1,
               seed_base: int = SEED_BASE, echo=print) -> None:
    """Play (or resume) the candidate's match against ``member`` and the reference's on the same decks."""
    opponent = limited(panel(players)[member], iterations, seconds)
    cand = limited(candidate, iterations, seconds)
    ref = limited(REFERENCE, iterations, seconds)
    seed = match_seed(players, member, seed_base)
    out_dir.mkdir(parents=True, exist_ok=True)
    play([cand] + [opponent] * (players - 1), players, games, seed, results_path(out_dir, label, players, member),
         workers, echo, f"{players}p {member}")
    if member != "default" and ref != cand:
        play([ref] + [opponent] * (players - 1), players, games, seed,
             results_path(out_dir, label, players, member, ref=True), workers, echo, f"{players}p {member} (reference)")


def interval(xs: list[float]) -> tuple[float, float, float]:
    """Mean and 95% normal interval of ``xs`` (one value per deal set)."""
    n = len(xs)
    if not n:
        return 0.0, -1.0, 1.0
    m = sum(xs) / n
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1)) if n > 1 else 0.0
    half = 1.96 * sd / math.sqrt(n) if n > 1 else 1.0
    return m, m - half, m + half


def judge(member: str, cand: dict[int, float], ref: dict[int, float] | None, parity: float, games: int,
          min_games: int = MIN_GAMES, margin: float = MARGIN) -> dict:
    """One row's verdict from the candidate's and the reference's scores per deal set (``ref`` None:
    the ``default`` member, whose reference score is parity). Returns the scores, the difference's
    mean and interval, ``passed`` (the rule met on what is played) and ``verdict``."""
    if ref is None:
        keys = sorted(cand)
        diffs = [cand[k] - parity for k in keys]
        ref_mean = parity
        rule = "beats: lower end > 0"
    else:
        keys = sorted(set(cand) & set(ref))
        diffs = [cand[k] - ref[k] for k in keys]
        ref_mean = sum(ref[k] for k in keys) / len(keys) if keys else 0.0
        rule = f"not worse: lower end > -{margin * 100:g}"
    cmean, clo, chi = interval([cand[k] for k in keys])
    d, lo, hi = interval(diffs)
    passed = lo > 0 if ref is None else lo > -margin
    if games < min_games:
        verdict = f"undecided: {games} of ≥ {min_games} games ({'meets' if passed else 'misses'} the rule so far)"
    elif passed:
        verdict = "pass"
    else:
        verdict = "**fails**" + (" (significantly worse)" if hi < 0 and ref is not None else "")
    return {"member": member, "deals": len(keys), "games": games, "score": cmean, "score_interval": (clo, chi),
            "reference": ref_mean, "diff": d, "diff_interval": (lo, hi), "rule": rule, "passed": passed,
            "decided": games >= min_games, "verdict": verdict}


def panel_verdict(rows: list[dict], members=MEMBERS) -> str:
    """accept iff every member's row is decided and passes; reject as soon as a decided row fails."""
    if any(r["decided"] and not r["passed"] for r in rows):
        return "reject"
    if {r["member"] for r in rows} >= set(members) and all(r["decided"] for r in rows):
        return "accept"
    return "undecided"


def collect(label: str, out_dir: Path, players: int, min_games: int = MIN_GAMES) -> tuple[list[dict], dict]:
    """The rows of the files played so far at ``players`` players, and the specs their headers name."""
    rows, specs = [], {}
    for member in MEMBERS:
        path = results_path(out_dir, label, players, member)
        if not path.exists():
            continue
        header, games, _, cand = acceptance.deal_scores(path)
        specs[member] = header["bots"]
        ref = None
        if member != "default":
            ref_path = results_path(out_dir, label, players, member, ref=True)
            if ref_path.exists():
                _, ref_games, _, ref = acceptance.deal_scores(ref_path)
                n = min(len(games), len(ref_games))
            elif BotSpec.parse(header["bots"][0], check_files=False).name == "ismcts" and \
                    header["bots"][0] == limited(REFERENCE, *_limit_of(header["bots"][0])):
                ref, n = cand, len(games)  # the candidate is the reference: one file
            else:
                continue  # the reference is not played yet
        else:
            n = len(games)
        if not cand or not (ref is None or ref):
            continue  # no complete deal set yet
        rows.append(judge(member, cand, ref, 1 / players, n, min_games))
    return rows, specs


def _limit_of(spec: str) -> tuple[int | None, float | None]:
    parsed = BotSpec.parse(spec, check_files=False)
    return parsed.get("iterations"), parsed.get("seconds")


def summary(label: str, out_dir: Path, min_games: int = MIN_GAMES) -> str:
    lines = [f"<!-- BEGIN panel-{label} -->", f"## Opponent panel: {label}", ""]
    tables = []
    for players in (2, 3, 4):
        rows, specs = collect(label, out_dir, players, min_games)
        if not rows:
            continue
        cand = specs[rows[0]["member"]][0]
        tables += [f"**{players} players**, candidate `{cand}` (one seat against {players - 1} of the member; "
                   f"parity {1 / players:.1%}). Panel verdict: **{panel_verdict(rows)}**.", "",
                   "| member | member's spec | games | candidate's score [95%] | today's default's score | "
                   "difference [95%] | rule | verdict |",
                   "| --- | --- | ---: | ---: | ---: | ---: | --- | --- |"]
        for r in rows:
            lo, hi = r["score_interval"]
            dlo, dhi = r["diff_interval"]
            ref = f"{r['reference']:.1%}" + (" (parity)" if r["member"] == "default" else "")
            tables.append(f"| {r['member']} | `{specs[r['member']][1]}` | {r['games']} | {r['score']:.1%} "
                          f"[{lo:.1%}, {hi:.1%}] | {ref} | {r['diff'] * 100:+.1f} [{dlo * 100:+.1f}, {dhi * 100:+.1f}] "
                          f"| {r['rule']} | {r['verdict']} |")
        tables.append("")
    if tables:
        m = machine()
        lines += [f"Written by `bench/panel.py` on {m['date']} ({m['cpu']}, Python {m['python']}); the files "
                  f"`panel-{label}-<players>p-<member>[-ref].jsonl` hold every game. Scores are win shares "
                  "averaged over deal sets, 95% normal intervals over deal sets; the difference is the "
                  "candidate's minus today's default's on the same decks (points). Accept iff the candidate "
                  f"beats `default` and is not worse than -{MARGIN * 100:g} points against every other member, "
                  f"each match with ≥ {min_games} games (bench/panel.py's docstring).", "", *tables[:-1]]
    else:
        lines.append("No match played yet.")
    lines.append(f"<!-- END panel-{label} -->")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, choices=(2, 3, 4), action="append", help="player counts (default 2; repeat)")
    ap.add_argument("--member", choices=MEMBERS, action="append", help="play only these members (repeat)")
    acceptance.add_match_arguments(ap, games=MIN_GAMES, seed_base=SEED_BASE)
    a = ap.parse_args(argv)
    out_dir = Path(a.out_dir)
    try:
        seconds = acceptance.match_seconds(a, PanelError)
        if not a.report:
            for players in a.players or [2]:
                for member in a.member or MEMBERS:
                    run_member(a.candidate, member, players, a.games, a.label, out_dir, iterations=a.iterations,
                               seconds=seconds, workers=a.workers, seed_base=a.seed)
        text = summary(a.label, out_dir)
    except KwsearchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return acceptance.publish(a, text, f"panel-{a.label}")


if __name__ == "__main__":
    sys.exit(main())
