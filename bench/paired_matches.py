"""Paired comparison of tournaments played on the same decks (issue 32's screens; docs/strength.md).

    python bench/paired_matches.py BASE.jsonl CANDIDATE.jsonl [CANDIDATE.jsonl ...]
    python bench/paired_matches.py --pool BASE1.jsonl,CAND1.jsonl BASE2.jsonl,CAND2.jsonl ...

Each file is a ``kwsearch tournament`` results file of one search seat (the first bot of its
header) against the same opponents, played with the same ``--seed`` as BASE, so game ``k`` of
every file is dealt from the same deck with the same seats rotated. For each candidate this
prints the search seat's win share (1 for a sole win, split on ties) with its 95% normal interval
over deal sets (the games sharing a deck), BASE's on the same games, and the paired difference
(candidate minus BASE, deal set by deal set) of the win share in points and of the money, each
with its 95% interval. A candidate file on other decks is refused in one line.

With ``--pool``, each argument is a pair ``BASE,CANDIDATE`` played on one deck set (one
``--seed``), and the deal sets of every pair are taken together: one line with the candidate's and
the base's win share and the paired differences over all of them (how docs/strength.md pools a
screen replayed on several deck sets). Pairs on the same decks twice are refused: a deal set would
count twice.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
for _p in (str(HERE.parent), str(HERE)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

from acceptance import deal_scores  # noqa: E402  (bench/acceptance.py: bot 0's score per complete deal set)
from panel import interval  # noqa: E402  (bench/panel.py: a mean and its 95% normal interval)

from kwsearch.errors import KwsearchError  # noqa: E402


def search_results(path: Path) -> tuple[str, dict[int, tuple[float, float, int, int]]]:
    """The file's first bot (bot 0) and, per complete deal set ``k``, its (win share, money, deck seed,
    games): the means over the deal's games, every rotation dealt from one deck."""
    header, games, _, deals = deal_scores(path)
    n = header["players"]
    out = {}
    for k, share in deals.items():
        block = [games[i] for i in range(k * n, (k + 1) * n)]
        money = sum(m for g in block for m, b in zip(g["money"], g["bots"]) if b == 0) / n
        out[k] = (share, money, block[0]["deck_seed"], n)
    return header["bots"][0], out


def mean_half(xs: list[float]) -> tuple[float, float]:
    m, lo, hi = interval(xs)
    return m, (hi - lo) / 2


def paired_rows(base: dict, cand: dict) -> list[tuple[tuple, tuple]]:
    """``(base's, candidate's)`` entry of every deal set both files hold completely, in deal order; a deal
    dealt from another deck in the two files is refused (ValueError: not the same ``--seed``)."""
    common = sorted(set(base) & set(cand))
    for k in common:
        if base[k][2] != cand[k][2]:
            raise ValueError(f"deal {k} was dealt from another deck (not the same --seed)")
    return [(base[k], cand[k]) for k in common]


def summary(rows: list[tuple[tuple, tuple]]) -> dict:
    """Games, deal sets, and the scores, their difference and the money difference over ``rows``, each
    ``(mean, 95% half-width)``."""
    return {"games": sum(c[3] for _, c in rows), "deal_sets": len(rows),
            "score": mean_half([c[0] for _, c in rows]), "base": mean_half([b[0] for b, _ in rows]),
            "diff": mean_half([c[0] - b[0] for b, c in rows]), "money": mean_half([c[1] - b[1] for b, c in rows])}


def compare(base: dict, cand: dict) -> dict:
    """The candidate's deal sets paired with ``base``'s of the same deal: scores, difference and money,
    each ``(mean, 95% half-width)``."""
    return summary(paired_rows(base, cand))


def compare_pooled(pairs: list[tuple[dict, dict]]) -> dict:
    """:func:`compare` over the deal sets of several ``(base, candidate)`` pairs, each pair on its own
    decks, taken together. A deck dealt in two pairs is refused (its deal set would count twice)."""
    rows, seen = [], set()
    for base, cand in pairs:
        for b, c in paired_rows(base, cand):
            if b[2] in seen:
                raise ValueError(f"deck {b[2]} is dealt in another pair too (the same --seed twice)")
            seen.add(b[2])
            rows.append((b, c))
    if not rows:
        raise ValueError("no complete deal set in common")
    return summary(rows)


def line(spec: str, c: dict) -> str:
    """The printed line of one comparison (:func:`compare` or :func:`compare_pooled`)."""
    (s, sh), (b, _), (d, dh), (m, mh) = c["score"], c["base"], c["diff"], c["money"]
    return (f"{spec}: {c['games']} games ({c['deal_sets']} deal sets): {100 * s:.1f}% "
            f"[{100 * (s - sh):.1f}, {100 * (s + sh):.1f}], base {100 * b:.1f}%; paired difference "
            f"{100 * d:+.1f} [{100 * (d - dh):+.1f}, {100 * (d + dh):+.1f}] points, money {m:+.1f} "
            f"[{m - mh:+.1f}, {m + mh:+.1f}]")


def _pair(text: str) -> tuple[Path, Path]:
    parts = text.split(",")
    if len(parts) != 2 or not all(parts):
        raise argparse.ArgumentTypeError(f"expected BASE.jsonl,CANDIDATE.jsonl, got {text!r}")
    return Path(parts[0]), Path(parts[1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", help="BASE CANDIDATE [CANDIDATE ...], or with --pool BASE,CANDIDATE pairs")
    ap.add_argument("--pool", action="store_true",
                    help="every argument is a pair BASE,CANDIDATE on its own decks; pool their deal sets")
    a = ap.parse_args(argv)
    try:
        return _run(ap, a)
    except KwsearchError as exc:  # a missing or malformed results file: its own one-line message
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _run(ap: argparse.ArgumentParser, a: argparse.Namespace) -> int:
    if a.pool:
        pairs, specs = [], []
        for text in a.files:
            try:
                bpath, cpath = _pair(text)
            except argparse.ArgumentTypeError as exc:
                ap.error(str(exc))
            _, base = search_results(bpath)
            spec, cand = search_results(cpath)
            pairs.append((base, cand))
            specs.append(spec)
        try:
            c = compare_pooled(pairs)
        except ValueError as exc:
            print(f"error: {' '.join(a.files)}: {exc}", file=sys.stderr)
            return 2
        names = sorted(set(specs))
        print(line(names[0] if len(names) == 1 else " | ".join(names), c) + f", {len(pairs)} deck sets pooled")
        return 0
    if len(a.files) < 2:
        ap.error("expected BASE.jsonl and at least one CANDIDATE.jsonl")
    _, base = search_results(Path(a.files[0]))
    for text in a.files[1:]:
        path = Path(text)
        spec, cand = search_results(path)
        try:
            c = compare(base, cand)
        except ValueError as exc:
            print(f"error: {path}: {exc}", file=sys.stderr)
            return 2
        print(line(spec, c))
    return 0


if __name__ == "__main__":
    sys.exit(main())
