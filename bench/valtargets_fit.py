"""Fit the 28-feature softmax to search-value targets (bench/valtargets.py output).

    python bench/valtargets_fit.py OUTDIR LAMBDA FILES.npz...    # target = LAMBDA * search value + (1 - LAMBDA) * outcome
"""
import json
import importlib.util
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if importlib.util.find_spec("kwsearch") is None:  # not installed: the checkout's own (built in place)
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
from kwsearch.features import FEATURES, load_evaluation, shipped_path, weights_document  # noqa: E402
from train_eval import fit, metrics  # noqa: E402

if len(sys.argv) < 4 or sys.argv[1] in ("-h", "--help"):
    print(__doc__)
    sys.exit(0 if sys.argv[1:2] in (["-h"], ["--help"]) else 2)
out, lam, files = Path(sys.argv[1]), float(sys.argv[2]), sys.argv[3:]
d = [np.load(f) for f in files]
X = np.concatenate([x["X"] for x in d]); V = np.concatenate([x["V"] for x in d])
Y = np.concatenate([x["Y"] for x in d]); G = np.concatenate([x["G"] for x in d])
V = V / V.sum(axis=1, keepdims=True)
T = lam * V + (1 - lam) * Y
games = np.unique(G)
cut = games[int(len(games) * 0.8)]
tr, te = G < cut, G >= cut
w = fit(X[tr], T[tr], 1e-3)
w0 = np.array(json.loads(shipped_path(4, "searched").read_text())["weights"])
for name, ww in (("new", w), ("searched", w0)):
    outcome, value = metrics(X[te], Y[te], ww), metrics(X[te], V[te], ww)
    print(f"{name}: held-out log-loss vs outcome {outcome['log_loss']:.4f}, vs search value "
          f"{value['log_loss']:.4f}, acc {outcome['accuracy']:.3f}")
print("value entropy", float(-(V[te] * np.log(np.clip(V[te], 1e-15, 1))).sum(axis=1).mean()))
for f, a, b in zip(FEATURES, w, w0):
    print(f"  {f:28s} {a:8.3f} {b:8.3f}")
out.mkdir(parents=True, exist_ok=True)
training = {"script": "bench/valtargets_fit.py (experiment)", "lambda": lam, "files": files,
            "positions": {"train": int(tr.sum()), "holdout": int(te.sum())}}
doc = weights_document(4, [float(v) for v in w], training, X[te][0].tolist())
(out / "eval-4p.json").write_text(json.dumps(doc, indent=1))
load_evaluation(str(out / "eval-4p.json"), 4)
print("wrote", out / "eval-4p.json")
