"""A fingerprint of the fast engine's behaviour: seeded games whose every action is recorded.

    python bench/engine_fingerprint.py --write fp.json     # record (before a change of _fast.pyx)
    python bench/engine_fingerprint.py --check fp.json     # compare (after it): exit 1 on any difference

A refactoring or speed-up of ``kwsearch/_fast.pyx`` / ``_search.pyx`` must not change what the engine
does: the same legal action lists, the same results and the same random streams. For each player
count (2, 3, 4; and V6 games) this plays, from seeded set-ups, uniformly random games through the
Python API (the sum of the legal-list lengths and a hash of every action), the C random playout
(``FastState.playout``), the tempo-policy playout (``_search.tempo_playout_actions``) and a few
short ISMCTS searches (tree size, root visits and the generator's state after them). The digest of
each is written as JSON; ``--check`` reports the first case that differs.
``tests/test_fast_fingerprint.py`` checks a small part of it against ``tests/data/fast_fingerprint.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if importlib.util.find_spec("kwsearch") is None:  # not installed: the checkout's own (built in place)
    sys.path.insert(0, str(HERE.parent))

from kwsearch import _search  # noqa: E402
from kwsearch.fileio import write_json_atomic  # noqa: E402
from kwsearch.game import Game  # noqa: E402
from kwsearch.search import SearchConfig  # noqa: E402


def _digest(values) -> str:
    return hashlib.sha256(json.dumps(values).encode()).hexdigest()[:16]


def fingerprint(seeds: int = 200, searches: int = 4) -> dict[str, object]:
    """Case name -> digest (see the module docstring)."""
    out: dict[str, object] = {}
    for players, v6 in ((2, False), (3, False), (4, False), (3, True), (4, True)):
        game = Game(players, v6=v6)
        n = seeds if not v6 else max(1, seeds // 4)
        walks, playouts, tempo = [], [], []
        for seed in range(n):
            st = game.new_initial_state(seed, engine="fast")
            playouts.append(st.playout(seed))
            trace = _search.tempo_playout_actions(st, seed)
            t = st.copy()
            for a in trace:
                t.apply(a)
            tempo.append([len(trace), _digest(trace), t.money()])
            rng = random.Random(seed)
            w = st.copy()
            steps = legal_total = 0
            h = hashlib.sha256()
            while not w.is_terminal():
                legal = w.legal_actions()
                legal_total += len(legal)
                a = rng.choice(legal)
                h.update(a.to_bytes(2, "little"))
                w.apply(a)
                steps += 1
            walks.append([steps, legal_total, h.hexdigest()[:16], w.money()])
        tag = f"{players}p{'-v6' if v6 else ''}"
        out[f"{tag} random walks"] = _digest(walks)
        out[f"{tag} playouts"] = _digest(playouts)
        out[f"{tag} tempo playouts"] = _digest(tempo)
        out[f"{tag} sample"] = {"walk": walks[0], "playout": playouts[0], "tempo": tempo[0]}
        for k in range(searches):
            st = game.new_initial_state(1000 + k, engine="fast")
            for rollout in _search.ROLLOUTS:
                tree = _search.Tree()
                params = _search.Params(SearchConfig(c_uct=1.0, money_weight=0.0, rollout=rollout, cutoff=0))
                done, rng_state = _search.run_slice(tree, st, params, 300, 0.0, 12345 + k)
                kids = sorted((ch[0], ch[2], ch[3], round(ch[4], 6)) for ch in tree.children(0))
                out[f"{tag} search {k} {rollout}"] = [done, rng_state, tree.size, _digest(kids)]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--write", metavar="FILE", help="record the fingerprint to FILE")
    g.add_argument("--check", metavar="FILE", help="compare with the fingerprint in FILE")
    ap.add_argument("--seeds", type=int, default=200, help="games per player count (a quarter for V6)")
    args = ap.parse_args(argv)
    fp = fingerprint(args.seeds)
    if args.write:
        write_json_atomic(args.write, fp, what="fingerprint")
        print(f"wrote {len(fp)} cases to {args.write}")
        return 0
    old = json.loads(Path(args.check).read_text(encoding="utf-8"))
    bad = [k for k in old if fp.get(k) != old[k]]
    for k in bad:
        print(f"DIFFERS: {k}: {old[k]} -> {fp.get(k)}")
    print(f"{len(old) - len(bad)} of {len(old)} cases identical")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
