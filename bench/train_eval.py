"""Fit the learned evaluation (kwsearch.features, docs/evaluation.md) to self-play outcomes.

    python bench/train_eval.py --seed 1 --games 6000                 # all player counts, write kwsearch/data
    python bench/train_eval.py --seed 1 --games 50 --players 2 --out /tmp/w   # a quick look

For each player count it plays ``--games`` games from seeded set-ups (a share
``--v6`` of them with the V6 specialty tiles) with the search's own playout
policy (by default the tempo policy of ``k_playout_tempo``; ``--policy smart`` plays the smart
rollout's hand rules with its default knobs, for a cut-off search with ``rollout=smart``), records every seat's features
about every ``--every`` decisions, and labels each position with the final win
shares of its game (1 to a sole winner, split on ties).

Why playout-policy games: the evaluation replaces the rest of a playout that
the search cut off, so what it should estimate is the expected outcome of that
playout from the cut-off position. Games of the playout policy sample exactly
that, and cost microseconds each, so tens of thousands fit in a few CPU
minutes, where ISMCTS games even at 100 iterations a decision would give a
few hundred.

The model (a softmax over the seats of ``w . f``, a conditional logit) is fitted
by Newton's method (IRLS) on the cross-entropy to the win shares with an L2
penalty ``--l2``; the last ``--holdout`` share of the games (whole games, so no
position of a held-out game is seen in training) measures log-loss and accuracy
(the seat with the highest modelled share is a winner) against a money-only
model (the same fit on ``money`` and ``money*progress`` alone) and the uniform
guess. The weights file records the seed, the games, this script and the
command line, and one held-out position with its prediction (which the loader
must reproduce). Everything is drawn from ``--seed`` (kwsearch.seeds.derive_seed),
so the same command writes the same weights.
"""

from __future__ import annotations

import argparse
import math
import importlib.util
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
if importlib.util.find_spec("kwsearch") is None:  # not installed: the checkout's own (built in place)
    sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from kwsearch import _eval  # noqa: E402
from kwsearch.errors import KwsearchError  # noqa: E402
from kwsearch.features import FEATURES, NFEAT, SHIPPED_LINEAR, shipped_path, weights_document  # noqa: E402
from kwsearch.engine import convert  # noqa: E402
from kwsearch.game import win_shares  # noqa: E402
from kwsearch.records import replay  # noqa: E402
from kwsearch.search import DEFAULT_PLAYOUT  # noqa: E402
from kwsearch.seeds import MASK64, derive_seed, seed_arg  # noqa: E402
from kwsearch.tournament import load_results  # noqa: E402
from trainlib import command_line, start_state, write_weights  # noqa: E402

#: The money-only baseline's features.
BASELINE = (FEATURES.index("money"), FEATURES.index("money*progress"))


def play(players: int, seed: int, games: int, every: int, v6_share: float, policy: str = "tempo"):
    """Self-play positions: (X [positions, seats, NFEAT], Y [positions, seats], game index per position)."""
    playout = DEFAULT_PLAYOUT if policy == "smart" else None
    xs, ys, gs = [], [], []
    for g in range(games):
        start = start_state(players, seed, g, v6_share)
        samples, money = _eval.sample_game(start, derive_seed(seed, "play", players, g) & MASK64, every, policy,
                                          playout)
        if samples:  # one array per game: a list of Python floats for every position would not fit in memory
            xs.append(np.array([feats for _, feats in samples], dtype=float))
            ys.append(np.tile(win_shares(money), (len(samples), 1)))
            gs.append(np.full(len(samples), g))
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(gs)


def recorded(paths: list[Path], players: int, seed: int, every: int, interleave: bool = False):
    """Positions of recorded games (tournament results files): every seat's features about every
    ``every`` decisions of each game with ``players`` players (gaps drawn from ``seed``), labelled
    with the game's final win shares. Returns ``(X, Y, game index per position, games)``; the games
    are numbered in file order (each file's games by number), or with ``interleave`` round by round
    across the files (the first game of each file, then the second ...), so that the last games,
    the held-out ones, come from every file rather than from the last one."""
    kept = []  # (rank in its file, file index, features, win shares)
    for k, path in enumerate(paths):
        _, games, _ = load_results(path)
        rank = 0
        for number in sorted(games):
            rec = games[number].get("record")
            if not rec or rec.get("players") != players:
                continue
            steps: list = []
            final = replay(rec, steps=steps, source=f"{path} game {number}")
            if not final.is_terminal():  # an adjudicated game: no outcome of play to learn from
                continue
            rng = np.random.default_rng(derive_seed(seed, "records", path.name, number) & MASK64)
            at = int(rng.integers(0, every))
            feats = []
            while at < len(steps):
                feats.append(_eval.features(convert(steps[at][0], "fast")))
                at += int(rng.integers(1, 2 * every))
            kept.append((rank, k, feats, win_shares(final.money())))
            rank += 1
    if interleave:
        kept.sort(key=lambda e: (e[0], e[1]))
    xs, ys, gs = [], [], []
    for g, (_, _, feats, shares) in enumerate(kept):
        if feats:
            xs.append(np.array(feats, dtype=float))
            ys.append(np.tile(shares, (len(feats), 1)))
            gs.append(np.full(len(feats), g))
    if not xs:
        raise SystemExit(f"{players} players: no finished {players}-player game in the records")
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(gs), len(kept)


def probabilities(X: np.ndarray, w: np.ndarray) -> np.ndarray:
    z = X @ w
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def fit(X: np.ndarray, Y: np.ndarray, l2: float, iterations: int = 50) -> np.ndarray:
    """Newton's method on the mean cross-entropy of the softmax over seats, plus ``l2/2 |w|^2``."""
    n, _, d = X.shape
    w = np.zeros(d)
    for _ in range(iterations):
        P = probabilities(X, w)
        grad = np.einsum("ps,psd->d", P - Y, X) / n + l2 * w
        mean = np.einsum("ps,psd->pd", P, X)
        H = sum((X[:, s, :] * P[:, s, None]).T @ X[:, s, :] for s in range(X.shape[1])) - mean.T @ mean
        H = H / n + l2 * np.eye(d)
        step = np.linalg.solve(H, grad)
        w -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    return w


def metrics(X: np.ndarray, Y: np.ndarray, w: np.ndarray) -> dict[str, float]:
    P = probabilities(X, w)
    loss = float(-(Y * np.log(np.clip(P, 1e-15, 1))).sum(axis=1).mean())
    hit = Y[np.arange(len(Y)), P.argmax(axis=1)] > 0
    return {"log_loss": round(loss, 6), "accuracy": round(float(hit.mean()), 6)}


def train(players: int, seed: int, games: int, every: int = 10, v6_share: float = 0.25, l2: float = 1e-3,
          holdout: float = 0.2, policy: str = "tempo", records: list[Path] | None = None,
          interleave: bool = False) -> dict:
    """Play (or read ``records``, numbered as :func:`recorded` says), fit and measure for one player
    count; returns the weights file's content."""
    t0 = time.process_time()
    if records:
        X, Y, G, games = recorded(records, players, seed, every, interleave)
        policy, v6_share = "records", None
    else:
        X, Y, G = play(players, seed, games, every, v6_share, policy)
    cut = games - max(1, int(round(games * holdout)))
    tr, te = G < cut, G >= cut
    if not tr.any() or not te.any():
        raise SystemExit(f"{players} players: too few games ({games}) for a training and a held-out part")
    w = fit(X[tr], Y[tr], l2)
    base = np.zeros(NFEAT)
    base[list(BASELINE)] = fit(X[tr][:, :, list(BASELINE)], Y[tr], l2)
    uniform = float(-(Y[te] * math.log(1.0 / players)).sum(axis=1).mean())
    training = {
        "script": "bench/train_eval.py", "seed": seed, "games": games, "every": every, "v6_share": v6_share,
        "l2": l2, "holdout": holdout, "policy": policy,
        **({"records": [p.name for p in records]} if records else {}),
        "positions": {"train": int(tr.sum()), "holdout": int(te.sum())},
        "holdout_metrics": {"model": metrics(X[te], Y[te], w), "money_only": metrics(X[te], Y[te], base),
                            "uniform_log_loss": round(uniform, 6)},
        "cpu_seconds": round(time.process_time() - t0, 1),
    }
    # The stored test position: the held-out one whose seats differ most (a start position, where
    # every seat has the same features, would not check the weights at all).
    held = X[te]
    test = held[int(np.argmax(np.abs(held - held.mean(axis=1, keepdims=True)).sum(axis=(1, 2))))].tolist()
    return weights_document(players, [float(v) for v in w], training, test)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=seed_arg, required=True)
    ap.add_argument("--games", type=int, required=True, help="games per player count")
    ap.add_argument("--players", type=int, nargs="+", default=[2, 3, 4], choices=[2, 3, 4])
    ap.add_argument("--every", type=int, default=10, help="decisions between recorded positions (on average)")
    ap.add_argument("--v6", type=float, default=0.25, help="share of V6 games")
    ap.add_argument("--l2", type=float, default=1e-3)
    ap.add_argument("--holdout", type=float, default=0.2, help="share of the games held out")
    ap.add_argument("--policy", choices=("tempo", "smart", "random"), default="tempo",
                    help="the playout policy that plays the games (default tempo, the search's default rollout; "
                         "smart with kwsearch.search.DEFAULT_PLAYOUT)")
    ap.add_argument("--records", type=Path, nargs="+", default=None,
                    help="fit to the games of these tournament results files instead of playing (searched "
                         "games: the labels are the outcomes of play, not of a playout policy); --games is ignored")
    ap.add_argument("--name", choices=SHIPPED_LINEAR, default="tempo",
                    help="which shipped evaluation the weights are (default tempo: eval-Np.json; searched: "
                         "eval-searched-Np.json, fitted with --records; smart: eval-smart-Np.json, fitted with "
                         "--policy smart)")
    ap.add_argument("--out", type=Path, default=None,
                    help="folder for eval-Np.json (default: the package's kwsearch/data)")
    args = ap.parse_args(argv)
    if args.games < 2 or args.every < 1 or not 0 <= args.v6 <= 1 or not 0 < args.holdout < 1 or args.l2 < 0:
        ap.error("expected --games >= 2, --every >= 1, --v6 in [0, 1], --holdout in (0, 1), --l2 >= 0")
    command = command_line("bench/train_eval.py", argv)
    for n in args.players:
        try:
            doc = train(n, args.seed, args.games, args.every, args.v6, args.l2, args.holdout, args.policy, args.records)
        except KwsearchError as exc:  # a records file that is not a tournament results file, or a malformed game
            ap.error(str(exc))
        shipped = shipped_path(n, args.name)
        path = write_weights(doc, command, args.out, shipped.name, shipped, "evaluation weights file")
        t = doc["training"]
        m = t["holdout_metrics"]
        print(f"{n} players: {t['positions']['train']:,} training / {t['positions']['holdout']:,} held-out positions "
              f"({t['games']} games, {t['cpu_seconds']} CPU s); held-out log-loss {m['model']['log_loss']:.4f} "
              f"(money only {m['money_only']['log_loss']:.4f}, uniform {m['uniform_log_loss']:.4f}), accuracy "
              f"{m['model']['accuracy']:.3f} (money only {m['money_only']['accuracy']:.3f}) -> {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
