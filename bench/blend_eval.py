"""A blend of two evaluations: the weights file whose score is ``share * a + (1 - share) * b``.

    python bench/blend_eval.py --a searched --a-share 0.5 --b smart --players 4 \\
        --out bench/results/strength32/eval-blend50-4p.json

Each evaluation scores a seat ``w . f`` and turns the seats' scores into win shares by a softmax
(kwsearch/features.py, ``shares``); both use the same features, so the blend of the weights is the
blend of the scores, and its shares are the normalised geometric mean of the two models' shares
(a product of experts), not their arithmetic mean. ``--a`` and ``--b`` are shipped names
(``tempo``, ``searched``, ``smart``) or weights files. Nothing is fitted and nothing random is
drawn: the file is a function of its two sources, and its ``training`` field records them, their
own training records and this command (issue 32, docs/strength.md "Tenth round").
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from kwsearch import features  # noqa: E402


def _source(name: str, players: int):
    """The evaluation named ``name`` (a shipped name or a weights file), read and checked as a search
    reads it (:func:`kwsearch.features.load_evaluation`)."""
    return features.load_evaluation(name, players)


def blend(a, b, share: float) -> list[float]:
    """The blended weights: ``share`` of ``a``'s and ``1 - share`` of ``b``'s, feature by feature."""
    return [share * x + (1.0 - share) * y for x, y in zip(a.weights, b.weights)]


def document(a_name: str, b_name: str, share: float, players: int, command: str) -> dict:
    a, b = _source(a_name, players), _source(b_name, players)
    training = {"script": "bench/blend_eval.py", "policy": "blend",
                "blend": [{"source": a_name, "share": share, "training": a.meta["training"]},
                          {"source": b_name, "share": 1.0 - share, "training": b.meta["training"]}],
                "command": command}
    return features.weights_document(players, blend(a, b, share), training, a.meta["test_features"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--a", required=True, help="the first evaluation: a shipped name or a weights file")
    ap.add_argument("--a-share", type=float, default=0.5, help="its share of the blend, in [0, 1] (default 0.5)")
    ap.add_argument("--b", required=True, help="the second evaluation: a shipped name or a weights file")
    ap.add_argument("--players", type=int, choices=(2, 3, 4), required=True)
    ap.add_argument("--out", type=Path, required=True, help="the weights file to write (never overwritten)")
    args = ap.parse_args(argv)
    if not 0.0 <= args.a_share <= 1.0:
        ap.error(f"--a-share: expected a number from 0 to 1, got {args.a_share}")
    if args.out.exists():
        ap.error(f"--out: {args.out} exists; it is not overwritten")
    command = "python bench/blend_eval.py " + " ".join(shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:]))
    try:
        doc = document(args.a, args.b, args.a_share, args.players, command)
    except features.EvaluationError as exc:
        ap.error(str(exc))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {args.out}: {args.a_share:g} x {args.a} + {1 - args.a_share:g} x {args.b}, {args.players} players")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
