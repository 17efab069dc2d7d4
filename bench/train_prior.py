"""Fit the learned move prior (kwsearch.prior, docs/evaluation.md) to the search's visit distributions.

    python bench/train_prior.py --seed 1 --games 30 --iterations 600            # all player counts -> kwsearch/data
    python bench/train_prior.py --seed 1 --games 4 --players 2 --out /tmp/p     # a quick look

Expert iteration, one generation: for each player count it plays ``--games``
self-play games from seeded set-ups (a share ``--v6`` of them with the V6
specialty tiles), every decision chosen by the search (tempo playouts to the end of the game, the
player-count c and money weight of before issue 17's two-player default change --
``search.FORMER_DEFAULT``, so the shipped prior regenerates -- with ``--iterations`` iterations; ``--search SPEC``
names another search by its ``ismcts:`` spec, e.g. ``--search ismcts`` for today's player-count default; ``--prior W``
with ``--prior-weights FILE`` searches with an earlier generation's prior instead).
At a share ``--sample`` of the decisions it records the root's visit
distribution over the legal options (the target) and each option's features
(``kwsearch._eval.prior_features``, the C version the search uses). A game
that reaches ``--max-decisions`` decisions stops there: the rules let a game
stall for ever (every seat taking a tile that does nothing, e.g. hire with an
empty supply, so the round never ends), and ISMCTS self-play does run into
that now and then (7 of 60 two-player games at 1,000 iterations). Such a game's
decisions are left out (a loop of no-op turns is no example of play), and the
weights file counts the games; the default cap, 120 decisions a player, is well
above the length of a normal game.

The policy ``P(a) = softmax_a(w . phi(s, a))`` is fitted by Newton's method on
the mean cross-entropy to the visit distributions with an L2 penalty ``--l2``.
The last ``--holdout`` share of the games (whole games) measures the held-out
cross-entropy against the uniform policy and the targets' own entropy (the
floor no policy goes below), and the top-1 agreement: how often the option the
prior rates highest is one the search visited most. The weights file records
the seed, the games, the search used, this script and the command line, and one
held-out decision with its prediction (which the loader must reproduce).
Everything is drawn from ``--seed`` (kwsearch.seeds.derive_seed) and the
searches run by iteration count, so the same command writes the same weights.

A generation is adopted only if a search with it beats the previous default at
equal time by SPRT (``kwsearch tournament --sprt``); this script only fits.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
if importlib.util.find_spec("kwsearch") is None:  # not installed: the checkout's own (built in place)
    sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from dataclasses import replace  # noqa: E402

from kwsearch import _eval  # noqa: E402
from kwsearch.bots import BotSpec, BotSpecError  # noqa: E402
from kwsearch.prior import NPRIOR, prior_document, shipped_path  # noqa: E402
from kwsearch.search import FORMER_DEFAULT, SearchConfig, SearchLimits, search  # noqa: E402
from kwsearch.seeds import derive_seed, seed_arg  # noqa: E402
from trainlib import command_line, start_state, write_weights  # noqa: E402


def play(players: int, seed: int, games: int, iterations: int, sample: float, v6_share: float,
         config: SearchConfig, max_decisions: int):
    """Self-play decisions: a list of (game index, feature rows [options, NPRIOR], visit shares [options]),
    and the number of games stopped at ``max_decisions``."""
    out = []
    stalled = 0
    limits = SearchLimits(iterations=iterations)
    for g in range(games):
        st = start_state(players, seed, g, v6_share)
        k = 0
        mine = []
        while not st.is_terminal():
            if k >= max_decisions:
                stalled += 1
                mine = []
                break
            res = search(st, limits, config, seed=derive_seed(seed, "search", players, g, k))
            if (derive_seed(seed, "sample", players, g, k) % 1000) < sample * 1000:
                options, rows = _eval.prior_features(st)
                visits = {x.action: x.visits for x in res.actions}
                v = np.array([visits.get(a, 0) for a in options], dtype=float)
                if v.sum() > 0:
                    mine.append((g, np.array(rows, dtype=float), v / v.sum()))
            st.apply(res.best_action)
            k += 1
        out += mine
    return out, stalled


class Batch:
    """Decisions stacked: the option rows of every decision one after the other."""

    def __init__(self, decisions):
        self.R = np.concatenate([rows for _, rows, _ in decisions])
        self.Y = np.concatenate([y for _, _, y in decisions])
        sizes = np.array([len(y) for _, _, y in decisions])
        self.starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        self.group = np.repeat(np.arange(len(decisions)), sizes)
        self.sizes = sizes
        self.n = len(decisions)

    def probabilities(self, w: np.ndarray) -> np.ndarray:
        z = self.R @ w
        z = z - np.maximum.reduceat(z, self.starts)[self.group]
        e = np.exp(z)
        return e / np.add.reduceat(e, self.starts)[self.group]


def fit(b: Batch, l2: float, iterations: int = 100) -> np.ndarray:
    """Newton's method on the mean cross-entropy of the softmax over each decision's options, plus
    ``l2/2 |w|^2``."""
    w = np.zeros(NPRIOR)
    for _ in range(iterations):
        P = b.probabilities(w)
        grad = b.R.T @ (P - b.Y) / b.n + l2 * w
        mean = np.add.reduceat(P[:, None] * b.R, b.starts)
        H = ((b.R * P[:, None]).T @ b.R - mean.T @ mean) / b.n + l2 * np.eye(NPRIOR)
        step = np.linalg.solve(H, grad)
        w -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    return w


def metrics(b: Batch, w: np.ndarray) -> dict[str, float]:
    P = b.probabilities(w)
    ce = float(-np.add.reduceat(b.Y * np.log(np.clip(P, 1e-15, 1)), b.starts).mean())
    entropy = float(-np.add.reduceat(b.Y * np.log(np.where(b.Y > 0, b.Y, 1)), b.starts).mean())
    uniform = float(np.log(b.sizes).mean())
    hits = 0
    for s, n in zip(b.starts, b.sizes):
        p, y = P[s:s + n], b.Y[s:s + n]
        hits += y[int(np.argmax(p))] >= y.max()
    return {"cross_entropy": round(ce, 6), "uniform_cross_entropy": round(uniform, 6),
            "target_entropy": round(entropy, 6), "top1_agreement": round(hits / b.n, 6),
            "uniform_top1": round(float((1.0 / b.sizes).mean()), 6)}


def train(players: int, seed: int, games: int, iterations: int = 600, sample: float = 0.5, v6_share: float = 0.25,
          l2: float = 1e-3, holdout: float = 0.2, prior: float = 0.0, prior_weights: str | None = None,
          max_decisions: int | None = None, search_spec: str | None = None) -> dict:
    """Play, fit and measure for one player count; returns the weights file's content."""
    t0 = time.process_time()
    # The search the shipped prior was generated with: the default before the two-player change
    # (search.FORMER_DEFAULT), spelled out so that the shipped weights regenerate; or the spec given.
    spec = search_spec or f"ismcts:{FORMER_DEFAULT[players]}"
    _, base = BotSpec.parse(spec).search_settings()
    config = replace(base, prior=prior, prior_weights=prior_weights)
    if search_spec:  # recorded with the player-count defaults filled in, as they were when it ran
        config = config.for_players(players)
    max_decisions = max_decisions or 120 * players
    decisions, stalled = play(players, seed, games, iterations, sample, v6_share, config, max_decisions)
    cut = games - max(1, int(round(games * holdout)))
    train_part = [d for d in decisions if d[0] < cut]
    held_part = [d for d in decisions if d[0] >= cut]
    if not train_part or not held_part:
        raise SystemExit(f"{players} players: no decisions for a training and a held-out part ({games} games, "
                         f"{stalled} of them stopped at {max_decisions} decisions and left out); play more games")
    tr, te = Batch(train_part), Batch(held_part)
    w = fit(tr, l2)
    training = {
        "script": "bench/train_prior.py", "seed": seed, "games": games, "iterations": iterations,
        "sample": sample, "v6_share": v6_share, "l2": l2, "holdout": holdout,
        "search": config.as_dict(), "max_decisions": max_decisions, "games_stopped_at_max_decisions": stalled,
        "decisions": {"train": tr.n, "holdout": te.n},
        "holdout_metrics": metrics(te, w), "train_metrics": metrics(tr, w),
        "cpu_seconds": round(time.process_time() - t0, 1),
    }
    # The stored test decision: the held-out one whose options the fitted policy tells apart most
    # (a decision whose options share every feature would not check the weights at all).
    spread = [float(np.ptp(rows @ w)) if len(rows) <= 96 else -1.0 for _, rows, _ in held_part]
    test = held_part[int(np.argmax(spread))][1].tolist()
    return prior_document(players, [float(v) for v in w], training, test)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=seed_arg, required=True)
    ap.add_argument("--games", type=int, required=True, help="self-play games per player count")
    ap.add_argument("--iterations", type=int, default=600, help="search iterations per decision")
    ap.add_argument("--players", type=int, nargs="+", default=[2, 3, 4], choices=[2, 3, 4])
    ap.add_argument("--sample", type=float, default=0.5, help="share of the decisions recorded")
    ap.add_argument("--v6", type=float, default=0.25, help="share of V6 games")
    ap.add_argument("--l2", type=float, default=1e-3)
    ap.add_argument("--holdout", type=float, default=0.2, help="share of the games held out")
    ap.add_argument("--prior", type=float, default=0.0,
                    help="self-play with this move-prior weight (an earlier generation; 0: the default search)")
    ap.add_argument("--prior-weights", default=None, help="that generation's weights file (default: shipped)")
    ap.add_argument("--search", default=None, metavar="SPEC",
                    help="the self-play search as an ismcts: spec, its limit replaced by --iterations (default: "
                         "search.FORMER_DEFAULT of the player count, which the shipped weights were fitted with)")
    ap.add_argument("--max-decisions", type=int, default=None,
                    help="decisions after which a (stalled) game stops (default: 120 a player)")
    ap.add_argument("--out", type=Path, default=None,
                    help="folder for prior-Np.json (default: the package's kwsearch/data)")
    args = ap.parse_args(argv)
    if (args.games < 2 or args.iterations < 1 or not 0 < args.sample <= 1 or not 0 <= args.v6 <= 1
            or not 0 < args.holdout < 1 or args.l2 < 0 or args.prior < 0
            or (args.max_decisions is not None and args.max_decisions < 1)):
        ap.error("expected --games >= 2, --iterations >= 1, --sample in (0, 1], --v6 in [0, 1], --holdout in (0, 1), "
                 "--l2 >= 0, --prior >= 0, --max-decisions >= 1")
    if args.search is not None:
        try:
            if BotSpec.parse(args.search).name != "ismcts":
                ap.error(f"--search: expected an ismcts: spec, got {args.search!r}")
        except BotSpecError as exc:
            ap.error(f"--search: {exc}")
    command = command_line("bench/train_prior.py", argv)
    for n in args.players:
        doc = train(n, args.seed, args.games, args.iterations, args.sample, args.v6, args.l2, args.holdout,
                    args.prior, args.prior_weights, args.max_decisions, args.search)
        path = write_weights(doc, command, args.out, f"prior-{n}p.json", shipped_path(n), "move prior weights file")
        t = doc["training"]
        m = t["holdout_metrics"]
        print(f"{n} players: {t['decisions']['train']:,} training / {t['decisions']['holdout']:,} held-out decisions "
              f"({args.games} games, {args.iterations} iterations, {t['cpu_seconds']} CPU s); held-out "
              f"cross-entropy {m['cross_entropy']:.4f} (uniform {m['uniform_cross_entropy']:.4f}, target entropy "
              f"{m['target_entropy']:.4f}), top-1 agreement {m['top1_agreement']:.3f} (uniform "
              f"{m['uniform_top1']:.3f}); {t['games_stopped_at_max_decisions']} games stopped at "
              f"{t['max_decisions']} decisions (left out) -> {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
