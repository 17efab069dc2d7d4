"""The fast engine plays seeded games exactly as recorded (bench/engine_fingerprint.py).

``tests/data/fast_fingerprint.json`` holds digests of seeded random walks (every legal list and
action), C random playouts, tempo-policy playouts and short ISMCTS searches. A refactoring or
speed-up of ``_fast.pyx`` / ``_search.pyx`` must leave them unchanged; a deliberate change of a rule
or of a random stream regenerates the file (``python bench/engine_fingerprint.py --write
tests/data/fast_fingerprint.json``) in the same commit, saying why.
"""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.one_engine
def test_seeded_games_match_the_recorded_fingerprint():
    spec = importlib.util.spec_from_file_location("engine_fingerprint", ROOT / "bench" / "engine_fingerprint.py")
    mod = importlib.util.module_from_spec(spec)
    saved = list(sys.path)  # the script puts its checkout first on sys.path: undo that, so a
    try:                    # process started later (the web board's workers) imports the tested kwsearch
        spec.loader.exec_module(mod)
    finally:
        sys.path[:] = saved
    old = json.loads((ROOT / "tests" / "data" / "fast_fingerprint.json").read_text(encoding="utf-8"))
    new = json.loads(json.dumps(mod.fingerprint()))
    assert [k for k in old if new.get(k) != old[k]] == []
    assert sorted(new) == sorted(old)
