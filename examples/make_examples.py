"""Regenerate the bundled example files (deterministic).

    python examples/make_examples.py

The games are played by a simple seeded policy (random, but it seldom passes
when it could build, sell or use an engineer), so the records look like games
rather than noise. Only the files' contents matter to the tests; this script
documents where they came from.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from kwsearch.records import Recorder
from kwsearch.rules import Game

HERE = Path(__file__).resolve().parent


def _policy(state, rng: random.Random) -> int:
    legal = state.legal_actions()
    texts = [state.action_to_text(a) for a in legal]
    active = [a for a, t in zip(legal, texts) if not t.endswith("pass") and t != "market no-marker"]
    if active and rng.random() < 0.85:
        return rng.choice(active)
    return rng.choice(legal)


def play(players: int, seed: int, names: list[str], stop_after: int | None = None) -> Recorder:
    rng = random.Random(seed)
    rec = Recorder.start(Game(players), seed=seed, seat_names=names)
    decisions = 0
    while not rec.state.is_terminal():
        if stop_after is not None and decisions >= stop_after and rec.state.pending() == "turn":
            break  # stop at the start of a turn: a position where a tile is chosen
        rec.apply(_policy(rec.state, rng))
        decisions += 1
    return rec


def write(name: str, obj) -> None:
    (HERE / name).write_text(json.dumps(obj, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    write("game-4p.json", play(4, 2024, ["red", "blue", "green", "yellow"]).record)
    write("game-2p.json", play(2, 7, ["red", "blue"]).record)
    mid = play(4, 11, ["red", "blue", "green", "yellow"], stop_after=75)
    write("midgame-4p.json", mid.state.observation())
    print("wrote game-4p.json, game-2p.json, midgame-4p.json")
