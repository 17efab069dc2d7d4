"""What the two training scripts share (``bench/train_eval.py`` for the learned evaluation,
``bench/train_prior.py`` for the move prior): the seeded set-up of a self-play game, the
command line a weights file records, and the writing of that file."""

from __future__ import annotations

import shlex
import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if importlib.util.find_spec("kwsearch") is None:  # not installed: the checkout's own (built in place)
    sys.path.insert(0, str(HERE.parent))

from kwsearch import _fast  # noqa: E402
from kwsearch.fileio import write_json_atomic  # noqa: E402
from kwsearch.rules import Game  # noqa: E402
from kwsearch.seeds import derive_seed  # noqa: E402


def start_state(players: int, seed: int, g: int, v6_share: float):
    """The fast start state of self-play game ``g``: with the V6 specialty tiles in a share
    ``v6_share`` of the games, both the choice and the set-up drawn from ``seed``."""
    v6 = (derive_seed(seed, "v6", players, g) % 1000) < v6_share * 1000
    return _fast.new_state(Game(players, v6=v6), seed=derive_seed(seed, "setup", players, g))


def command_line(script: str, argv: list[str] | None) -> str:
    """How the weights were made, as a command to run again (``argv`` None: this process's)."""
    return f"python {script} " + shlex.join(sys.argv[1:] if argv is None else argv)


def write_weights(doc: dict, command: str, out: Path | None, name: str, shipped: Path, what: str) -> Path:
    """Record ``command`` in ``doc``'s training and write it as ``out/name`` (``out`` None: the
    shipped file ``shipped``); returns the path written."""
    doc["training"]["command"] = command
    path = (out / name) if out else shipped
    path.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(path, doc, what=what)
    return path
