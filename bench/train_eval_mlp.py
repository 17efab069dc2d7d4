"""Fit the evaluation with a hidden layer (kwsearch.features, docs/evaluation.md "The hidden layer").

    python bench/train_eval_mlp.py --records bench/results/acceptance-*4p*.jsonl \\
        bench/results/strength17/*4p*.jsonl bench/results/strength32/*4p*.jsonl     # writes eval-mlp-4p.json

The model: a seat's score is ``w . f + W2 . relu(W1 . f + b1)`` over its 28 features ``f`` (the same
weights for every seat), and the win shares are the softmax of the scores over the seats, as the
linear model of ``bench/train_eval.py``. It is fitted to the outcomes of recorded games (tournament
results files: searches of several strengths, heuristic seats, mixed tables), every seat's
features about every ``--every`` decisions of each finished game, labelled with the game's final
win shares (``train_eval.recorded``, the games interleaved across the files; the last ``--holdout``
share of them is held out).

Fitting: the mean cross-entropy plus ``--l2`` / 2 times the squared weights, by Adam (step 3e-3)
on minibatches of 2,048 positions over ``--epochs`` passes, the inputs standardised; the epoch
with the lowest held-out log-loss is kept, and the standardisation is folded into the weights
written. The inputs are laid out as this round's first fits had them (docs/strength.md,
"Fourteenth round"): the seat's 28 features, then the other seats' mean and their maximum of each
(56 columns the model does not use: their weights are held at zero). The standardisation and the
initial draw of the weights cover all 84 columns, so the command above writes the shipped file
to the bit. Everything random is drawn from ``--seed`` (the positions' gaps) and ``--fit-seed``
(the initial weights and the minibatches), so the same command writes the same weights.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
if importlib.util.find_spec("kwsearch") is None:  # not installed: the checkout's own (built in place)
    sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from kwsearch.errors import KwsearchError  # noqa: E402
from kwsearch.features import FEATURES, MAX_HIDDEN, NFEAT, shipped_path, weights_document  # noqa: E402
from kwsearch.seeds import seed_arg  # noqa: E402
from train_eval import fit, probabilities, recorded  # noqa: E402
from trainlib import command_line, write_weights  # noqa: E402

#: Adam's step, its two decay rates, and the minibatch size.
STEP, BETA1, BETA2, BATCH = 3e-3, 0.9, 0.999, 2048


def log_loss(p: np.ndarray, y: np.ndarray) -> float:
    return float(-(y * np.log(np.clip(p, 1e-12, 1))).sum(axis=1).mean())


def inputs(X: np.ndarray) -> np.ndarray:
    """Each seat's 84 input columns: its features, the other seats' mean and their maximum."""
    k = X.shape[1]
    others = (X.sum(axis=1, keepdims=True) - X) / (k - 1)
    top = np.stack([np.delete(X, i, axis=1).max(axis=1) for i in range(k)], axis=1)
    return np.concatenate([X, others, top], axis=2)


def forward(Z: np.ndarray, P: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The hidden units' outputs and the win shares of standardised inputs ``Z`` (positions, seats, 84)."""
    a = np.maximum(Z[:, :, :NFEAT] @ P["W1"][:NFEAT] + P["b1"], 0)
    z = a @ P["W2"] + Z @ P["u"]
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return a, e / e.sum(axis=1, keepdims=True)


def train(records: list[Path], players: int, hidden: int, *, seed: int, fit_seed: int, every: int = 10,
          epochs: int = 8, l2: float = 1e-4, holdout: float = 0.2, echo=print) -> dict:
    """Read the records, fit, measure; returns the weights file's content."""
    t0 = time.process_time()
    X, Y, G, games = recorded(records, players, seed, every, interleave=True)
    cut = games - int(round(games * holdout))
    tr, te = G < cut, G >= cut
    if not tr.any() or not te.any():
        raise SystemExit(f"{players} players: too few games ({games}) for a training and a held-out part")
    linear = log_loss(probabilities(X[te], fit(X[tr], Y[tr], 1e-3)), Y[te])
    echo(f"{players} players: {int(tr.sum()):,} training / {int(te.sum()):,} held-out positions from {games} games; "
         f"the linear model's held-out log-loss {linear:.4f}")
    Z = inputs(X)
    flat = Z[tr].reshape(-1, Z.shape[2])
    mu, sd = flat.mean(axis=0), flat.std(axis=0) + 1e-6
    Zs = (Z - mu) / sd
    rng = np.random.default_rng(fit_seed)
    D = Zs.shape[2]
    P = {"W1": rng.normal(0, 1 / np.sqrt(D), (D, hidden)), "b1": np.zeros(hidden),
         "W2": rng.normal(0, 1 / np.sqrt(hidden), hidden), "u": np.zeros(D)}
    m = {k: np.zeros_like(v) for k, v in P.items()}
    s2 = {k: np.zeros_like(v) for k, v in P.items()}
    Ztr, Ytr = Zs[tr], Y[tr]
    step, best, history = 0, (math.inf, None, -1), []
    for epoch in range(epochs):
        perm = rng.permutation(len(Ztr))
        for i in range(0, len(Ztr), BATCH):
            idx = perm[i:i + BATCH]
            Zb, Yb = Ztr[idx], Ytr[idx]
            a, p = forward(Zb, P)
            g = (p - Yb) / len(idx)
            grad = {"W2": np.einsum("bk,bkh->h", g, a) + l2 * P["W2"],
                    "u": np.einsum("bk,bkd->d", g, Zb) + l2 * P["u"]}
            ga = g[:, :, None] * P["W2"] * (a > 0)
            grad["W1"] = np.einsum("bkd,bkh->dh", Zb, ga) + l2 * P["W1"]
            grad["b1"] = ga.sum(axis=(0, 1))
            grad["W1"][NFEAT:] = 0  # the context columns are not the model's inputs
            grad["u"][NFEAT:] = 0
            step += 1
            for k in P:
                m[k] = BETA1 * m[k] + (1 - BETA1) * grad[k]
                s2[k] = BETA2 * s2[k] + (1 - BETA2) * grad[k] ** 2
                P[k] -= STEP * (m[k] / (1 - BETA1 ** step)) / (np.sqrt(s2[k] / (1 - BETA2 ** step)) + 1e-8)
        loss = log_loss(forward(Zs[te], P)[1], Y[te])
        history.append(round(loss, 6))
        echo(f"  epoch {epoch}: held-out log-loss {loss:.4f}")
        if loss < best[0]:
            best = (loss, {k: v.copy() for k, v in P.items()}, epoch)
    loss, P, kept = best
    P["W1"][NFEAT:] = 0
    # the standardisation folded in: the file's weights read the raw features
    u = P["u"] / sd
    W1 = P["W1"] / sd[:, None]
    b1 = P["b1"] - (mu / sd) @ P["W1"]
    uniform = float(-(Y[te] * math.log(1.0 / players)).sum(axis=1).mean())
    training = {
        "script": "bench/train_eval_mlp.py", "seed": seed, "fit_seed": fit_seed, "every": every, "hidden": hidden,
        "epochs": epochs, "epoch_kept": kept, "l2": l2, "holdout": holdout, "policy": "records",
        "records": [p.name for p in records], "games": games,
        "positions": {"train": int(tr.sum()), "holdout": int(te.sum())},
        "holdout_metrics": {"model": {"log_loss": round(loss, 6)}, "linear": {"log_loss": round(linear, 6)},
                            "uniform_log_loss": round(uniform, 6), "by_epoch": history},
        "cpu_seconds": round(time.process_time() - t0, 1),
    }
    held = X[te]
    test = held[int(np.argmax(np.abs(held - held.mean(axis=1, keepdims=True)).sum(axis=(1, 2))))].tolist()
    layer = {"activation": "relu", "weights": W1[:NFEAT].tolist(), "bias": b1.tolist(), "output": P["W2"].tolist()}
    return weights_document(players, [float(v) for v in u[:NFEAT]], training, test, layer)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--records", type=Path, nargs="+", required=True, help="tournament results files")
    ap.add_argument("--players", type=int, default=4, choices=[2, 3, 4])
    ap.add_argument("--hidden", type=int, default=16, help=f"hidden units (1 to {MAX_HIDDEN}; default 16)")
    ap.add_argument("--seed", type=seed_arg, default=77, help="draws the recorded positions (default 77)")
    ap.add_argument("--fit-seed", type=seed_arg, default=0, help="draws the initial weights and the minibatches")
    ap.add_argument("--every", type=int, default=10, help="decisions between recorded positions (on average)")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--l2", type=float, default=1e-4)
    ap.add_argument("--holdout", type=float, default=0.2, help="share of the games held out")
    ap.add_argument("--out", type=Path, default=None, help="folder for eval-mlp-Np.json (default: kwsearch/data)")
    args = ap.parse_args(argv)
    if not 1 <= args.hidden <= MAX_HIDDEN or args.epochs < 1 or args.every < 1 or not 0 < args.holdout < 1 \
            or args.l2 < 0:
        ap.error(f"expected --hidden 1 to {MAX_HIDDEN}, --epochs >= 1, --every >= 1, --holdout in (0, 1), --l2 >= 0")
    missing = next((p for p in args.records if not p.is_file()), None)
    if missing is not None:
        ap.error(f"--records: {missing}: no such file")
    try:
        doc = train(args.records, args.players, args.hidden, seed=args.seed, fit_seed=args.fit_seed, every=args.every,
                    epochs=args.epochs, l2=args.l2, holdout=args.holdout)
    except KwsearchError as exc:  # a records file that is not a tournament results file, or a malformed game
        ap.error(str(exc))
    shipped = shipped_path(args.players, "mlp")
    path = write_weights(doc, command_line("bench/train_eval_mlp.py", argv), args.out, shipped.name, shipped,
                         "evaluation weights file")
    m = doc["training"]["holdout_metrics"]
    print(f"held-out log-loss {m['model']['log_loss']:.4f} (linear {m['linear']['log_loss']:.4f}, uniform "
          f"{m['uniform_log_loss']:.4f}), {len(FEATURES)} features, {args.hidden} hidden units -> {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
