"""A blend of two evaluations: the weights file whose score is ``share * a + (1 - share) * b``; or one
evaluation with chosen weights scaled.

    python bench/blend_eval.py --a searched --a-share 0.5 --b smart --players 4 \\
        --out bench/results/strength32/eval-blend50-4p.json
    python bench/blend_eval.py --a searched --players 4 --scale research=-0.5 \\
        --scale "research*progress=-0.5" --out bench/results/strength32/eval-4p-devcost.json

Each evaluation scores a seat ``w . f`` and turns the seats' scores into win shares by a softmax
(kwsearch/features.py, ``shares``); both use the same features, so the blend of the weights is the
blend of the scores, and its shares are the normalised geometric mean of the two models' shares
(a product of experts), not their arithmetic mean. ``--a`` and ``--b`` are shipped names
(``tempo``, ``searched``, ``smart``) or weights files. Nothing is fitted and nothing random is
drawn: the file is a function of its two sources, and its ``training`` field records them, their
own training records and this command (issue 32, docs/strength.md "Tenth round").

``--scale FEATURE=FACTOR`` (repeatable) multiplies that feature's weight of the result (the blend, or
``--a`` alone when ``--b`` is not given): a hand-set variant, not a fit, recorded under
``training.scale`` (docs/strength.md, "Twelfth round": the developments' weights of the four-player
searched evaluation scaled by 0.5, 0, -0.5 and -1, and the late one alone by 4).
"""

from __future__ import annotations

import argparse
import json
import math
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
    reads it (:func:`kwsearch.features.load_evaluation`). One with a hidden layer is refused: a blend of
    weights is the blend of the scores only for the linear model."""
    ev = features.load_evaluation(name, players)
    if ev.hidden_units:
        raise features.EvaluationError(f"{name}: an evaluation with a hidden layer ({ev.hidden_units} units) "
                                       "cannot be blended or scaled: only linear ones can")
    return ev


def blend(a, b, share: float) -> list[float]:
    """The blended weights: ``share`` of ``a``'s and ``1 - share`` of ``b``'s, feature by feature."""
    return [share * x + (1.0 - share) * y for x, y in zip(a.weights, b.weights)]


def scaled(weights: list[float], scale: dict[str, float]) -> list[float]:
    """``weights`` with the weight of each feature of ``scale`` multiplied by its factor."""
    out = list(weights)
    for name, factor in scale.items():
        out[features.FEATURES.index(name)] *= factor
    return out


def document(a_name: str, b_name: str | None, share: float, players: int, command: str,
             scale: dict[str, float] | None = None) -> dict:
    """The weights file: ``a`` blended with ``b`` (``a`` alone when ``b`` is None), then ``scale`` applied."""
    a = _source(a_name, players)
    if b_name is None:
        training = {"script": "bench/blend_eval.py", "policy": "scaled", "source": a_name,
                    "training": a.meta["training"]}
        weights = list(a.weights)
    else:
        b = _source(b_name, players)
        training = {"script": "bench/blend_eval.py", "policy": "blend",
                    "blend": [{"source": a_name, "share": share, "training": a.meta["training"]},
                              {"source": b_name, "share": 1.0 - share, "training": b.meta["training"]}]}
        weights = blend(a, b, share)
    if scale:
        training["scale"] = dict(scale)
    training["command"] = command
    return features.weights_document(players, scaled(weights, scale or {}), training, a.meta["test_features"])


def _factor(item: str) -> tuple[str, float]:
    """``FEATURE=FACTOR`` of ``--scale``, checked (argparse reports an ArgumentTypeError in one line)."""
    name, sep, value = item.partition("=")
    if name not in features.FEATURES:
        raise argparse.ArgumentTypeError(f"{name!r} is not a feature (expected one of {', '.join(features.FEATURES)})")
    try:
        factor = float(value)
    except ValueError:
        factor = math.nan
    if not sep or not math.isfinite(factor):
        raise argparse.ArgumentTypeError(
            f"expected FEATURE=FACTOR with a finite number, e.g. research=-0.5; got {item!r}")
    return name, factor


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--a", required=True, help="the first evaluation: a shipped name or a weights file")
    ap.add_argument("--a-share", type=float, help="its share of the blend, in [0, 1] (default 0.5)")
    ap.add_argument("--b", help="the second evaluation: a shipped name or a weights file (none: --a alone)")
    ap.add_argument("--players", type=int, choices=(2, 3, 4), required=True)
    ap.add_argument("--scale", type=_factor, action="append", default=[], metavar="FEATURE=FACTOR",
                    help="multiply that feature's weight of the result (repeat for more features)")
    ap.add_argument("--out", type=Path, required=True, help="the weights file to write (never overwritten)")
    args = ap.parse_args(argv)
    if args.b is None and args.a_share is not None:
        ap.error("--a-share: a share of a blend needs --b")
    if args.a_share is None:
        args.a_share = 0.5
    names = [name for name, _ in args.scale]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        ap.error(f"--scale: {', '.join(twice)} given twice (one factor per feature)")
    if args.b is None and not args.scale:
        ap.error("--b or --scale: expected a second evaluation to blend with, or features to scale")
    if not 0.0 <= args.a_share <= 1.0:
        ap.error(f"--a-share: expected a number from 0 to 1, got {args.a_share}")
    if args.out.exists():
        ap.error(f"--out: {args.out} exists; it is not overwritten")
    command = "python bench/blend_eval.py " + " ".join(shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:]))
    try:
        doc = document(args.a, args.b, args.a_share, args.players, command, dict(args.scale))
    except features.EvaluationError as exc:
        ap.error(str(exc))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    what = args.a if args.b is None else f"{args.a_share:g} x {args.a} + {1 - args.a_share:g} x {args.b}"
    scale = "".join(f", {name} x {factor:g}" for name, factor in args.scale)
    print(f"wrote {args.out}: {what}{scale}, {args.players} players")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
