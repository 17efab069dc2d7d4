"""Regenerate the perft positions and move counts in tests/data (deterministic).

    python3 tests/data/make_perft.py            # rebuild every <name>.json (a frozen one is kept) and <name>.perft
    python3 tests/data/make_perft.py --counts   # keep the .json files, recount the .perft files
    python3 tests/data/make_perft.py --check    # recount with the reference, compare, write nothing
    python3 tests/data/make_perft.py --only scoring-3p ...

"Perft" as in chess: the number of action sequences of a given length from a
position. A sequence ends early at a terminal state, which then counts as one
leaf: ``perft(s, 0) = 1``; ``perft(s, d) = 1`` if ``s`` is terminal; otherwise
``perft(s, d) = sum(perft(s.apply(a), d - 1) for a in s.legal_actions())``.
Forced moves (one option) are made by the engine and are no decision, so they
are not counted as a ply. The counts are computed with the REFERENCE engine
(kwsearch.rules.State); tests/test_perft.py checks the fast engine against them.

Each position is saved as ``<name>.json``: the full ``State.to_json()``,
including the ``"hidden"`` part (the research deck's order and the generator of
later reshuffles), so the game tree is the same on every load.

The ``<name>.perft`` format (plain text, one item a line)::

    # free-text comment lines start with '#' (readers skip them)
    depth 1 10
    depth 2 20
    ...
    depth 9 348615
    divide 9
    tile 0 63430
    tile 1 58169
    ...

(an excerpt of scoring-3p.perft). Lines starting with '#' are comments.

* ``depth N COUNT``: perft(position, N), for N = 1, 2, ... up to the deepest
  depth, in increasing order;
* ``divide D``: the per-first-action breakdown at depth D (the deepest one):
  each following line is ``<action text> <count>``, the action in the text
  notation of ``State.action_to_text`` (it may contain spaces: the count is the
  last space-separated field), in the order of ``legal_actions()``; the counts
  sum to ``depth D``.

The deepest depth of each position is fixed below (POSITIONS), chosen so the
reference engine counts it in under 25 s (7-22 s measured on the development
machine; the whole script takes about 70 s); the game's decisions are small (a turn is several of them), so the
trees are narrow and depth 4 alone would hardly leave the first turn.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from kwsearch.actions import ENGINE_CODE  # noqa: E402
from kwsearch.engine import state_from_json  # noqa: E402
from kwsearch.rules import Game  # noqa: E402

# ---------------------------------------------------------------------------
# Counting
# ---------------------------------------------------------------------------


def perft(state, depth: int) -> int:
    """The number of action sequences of length ``depth`` (terminal states end a sequence early)."""
    if depth == 0 or state.is_terminal():
        return 1
    n = 0
    for a in state.legal_actions():
        child = state.copy()
        child.apply(a)
        n += perft(child, depth - 1)
    return n


def divide(state, depth: int) -> list[tuple[str, int]]:
    """``[(action text, perft(child, depth - 1))]`` for each legal first action, in legal order."""
    out = []
    for a in state.legal_actions():
        child = state.copy()
        child.apply(a)
        out.append((state.action_to_text(a), perft(child, depth - 1)))
    return out


def count_all(state, depth: int) -> tuple[dict[int, int], list[tuple[str, int]], dict[str, Any]]:
    """One pass to ``depth``: perft at every depth 1..depth, the divide at ``depth``, tree facts.

    perft(d) = the states at ply d + the terminal states at plies below d. The
    facts: the decision kinds and the rounds met at plies below ``depth`` and the
    number of terminal states within ``depth`` plies (a description of what the position
    exercises, written as comments).
    """
    at_ply = Counter()
    terminal_at = Counter()
    kinds: Counter = Counter()
    rounds: set[int] = {state.round}

    def walk(st, ply: int) -> int:
        at_ply[ply] += 1
        if st.is_terminal():
            terminal_at[ply] += 1
            return 1
        if ply == depth:
            return 1
        kinds[st.pending()] += 1
        rounds.add(st.round)
        n = 0
        for a in st.legal_actions():
            child = st.copy()
            child.apply(a)
            n += walk(child, ply + 1)
        return n

    if state.is_terminal():
        raise ValueError("a perft position must not be terminal")
    split = []
    at_ply[0] += 1
    kinds[state.pending()] += 1
    for a in state.legal_actions():
        child = state.copy()
        child.apply(a)
        split.append((state.action_to_text(a), walk(child, 1)))
    counts = {}
    for d in range(1, depth + 1):
        counts[d] = at_ply[d] + sum(terminal_at[p] for p in range(1, d))
    assert counts[depth] == sum(c for _, c in split)
    facts = {"kinds": sorted(kinds), "rounds": sorted(rounds), "terminal": sum(terminal_at.values())}
    return counts, split, facts


# ---------------------------------------------------------------------------
# The .perft format
# ---------------------------------------------------------------------------


def format_perft(counts: dict[int, int], split: list[tuple[str, int]], comments: list[str] = ()) -> str:
    """The text of a .perft file (see the module docstring)."""
    lines = [f"# {c}" for c in comments]
    lines += [f"depth {d} {counts[d]}" for d in sorted(counts)]
    lines.append(f"divide {max(counts)}")
    lines += [f"{text} {n}" for text, n in split]
    return "\n".join(lines) + "\n"


def parse_perft(text: str) -> tuple[dict[int, int], int, list[tuple[str, int]]]:
    """``(counts by depth, divide depth, [(action text, count)])`` from a .perft file's text."""
    counts: dict[int, int] = {}
    divide_depth = None
    split: list[tuple[str, int]] = []
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if divide_depth is None:
            word, *rest = line.split()
            if word == "depth" and len(rest) == 2:
                counts[int(rest[0])] = int(rest[1])
            elif word == "divide" and len(rest) == 1:
                divide_depth = int(rest[0])
            else:
                raise ValueError(f"bad .perft line: {line!r}")
        else:
            action, count = line.rsplit(" ", 1)
            split.append((action, int(count)))
    if divide_depth is None or divide_depth not in counts:
        raise ValueError("a .perft file needs 'divide D' with a 'depth D' line")
    return counts, divide_depth, split


# ---------------------------------------------------------------------------
# The positions
# ---------------------------------------------------------------------------


def _seeded_game_until(players: int, seed: int, pred: Callable[[Any], bool], v6: bool = False):
    """The first state of the seeded random game (as kwsearch.rules.random_game plays it) where
    ``pred`` holds."""
    rng = random.Random(seed)
    st = Game(players, v6=v6).new_initial_state(seed, engine="reference")
    while not st.is_terminal():
        if pred(st):
            return st
        st.apply(rng.choice(st.legal_actions()))
    raise RuntimeError(f"players {players} seed {seed}: the game never reaches the wanted position")


def _can_build(st) -> bool:
    """The player to move has a body and an engine in his workshops and two canteen workers."""
    s = st.seats[st.current_player()]
    bodies = sum(1 for w in s.workshops if w <= ENGINE_CODE)
    engines = len(s.workshops) - bodies
    return bodies >= 1 and engines >= 1 and bodies + engines >= 3 and s.canteen >= 2


def market_full_ish(st) -> bool:
    """Start of a turn, one car short of a full market, and the player to move can build a car."""
    return st.pending() == "turn" and len(st.market) == st.game.market_size - 1 and _can_build(st)


def scoring_next_benz(st) -> bool:
    """Start of a turn of round 3, buyer-track marker on 1, every active-buyer space full (so the next
    buyer action ends the phase and the game), and a player still holds the Benz marker."""
    return (st.pending() == "turn" and st.round == 3 and st.track == 1
            and len(st.active) == st.game.buyer_spaces and any(s.benz > 0 for s in st.seats))


def scoring_next(st) -> bool:
    """Start of a turn of round 1, buyer-track marker on 1, every active-buyer space full."""
    return (st.pending() == "turn" and st.round == 1 and st.track == 1
            and len(st.active) == st.game.buyer_spaces)


def v6_bonus_decision_next(st) -> bool:
    """V6, start of a turn of round 2, the chain's specialty tile sells a workshop tile or removes a
    car, and the player to move has something to sell or remove."""
    if st.pending() != "turn" or st.round != 2:
        return False
    from kwsearch.rules import SPECIAL
    t = st.game.components.specialty_tiles[st.chain[-1] - SPECIAL] if st.chain[-1] >= SPECIAL else None
    seat = st.current_player()
    if t is None:
        return False
    return ((t.bonus == "sell_tile" and st.seats[seat].workshops)
            or (t.bonus == "remove_car" and any(car[0] == seat for car in st.market)))


def _midgame():
    obj = json.loads((ROOT / "examples" / "midgame-4p.json").read_text(encoding="utf-8"))
    return state_from_json(obj, seed=1, engine="reference")  # the seed orders its undrawn cards


def _frozen(name: str, first_built: Callable[[], Any]) -> Callable[[], Any]:
    """The stored ``<name>.json`` (a fixed position: its tree is what the counts pin), or, when it
    is missing, the position ``first_built`` makes. The seeded random games and the example that
    first gave these positions play differently under later rules (RULES.md corrections change
    the decisions, so the same seed takes another path), so rebuilding them would silently swap
    the position the hand counts of tests/test_perft.py reason about."""
    def build():
        path = HERE / f"{name}.json"
        if path.exists():
            return state_from_json(json.loads(path.read_text(encoding="utf-8")), engine="reference")
        return first_built()
    return build


_FROZEN = ("; frozen: the stored position, first found so under the rules before the corrections of "
           "RULES.md §4.1, §5.1-§5.3 and §11")


#: name -> (how the position is built, what it exercises, deepest depth, what the tree must reach)
POSITIONS: dict[str, tuple[Callable[[], Any], str, int, tuple[str, ...]]] = {
    "opening-2p": (lambda: Game(2).new_initial_state(seed=7, engine="reference"),
                   "2-player opening (Game(2), seed 7)", 9, ("setup", "turn")),
    "opening-3p": (lambda: Game(3).new_initial_state(seed=7, engine="reference"),
                   "3-player opening (Game(3), seed 7)", 9, ("setup", "turn")),
    "opening-4p": (lambda: Game(4).new_initial_state(seed=7, engine="reference"),
                   "4-player opening (Game(4), seed 7)", 10, ("setup", "turn")),
    "midgame-4p": (_frozen("midgame-4p", _midgame),
                   "an earlier examples/midgame-4p.json loaded with seed 1 (round 2, mid-turn)" + _FROZEN, 8,
                   ("turn",)),
    "market-4p": (_frozen("market-4p", lambda: _seeded_game_until(4, 41, market_full_ish)),
                  "4 players, seeded random game 41 at the first turn start with 5 of 6 cars on the "
                  "market and a player to move who can build (round 2; one more car ends the phase)" + _FROZEN,
                  9, ("market", "market_workers", "market_price", "diesel", "card_order", "round 3")),
    "scoring-3p": (_frozen("scoring-3p", lambda: _seeded_game_until(3, 120, scoring_next_benz)),
                   "3 players, seeded random game 120 at the first turn start of round 3 with the "
                   "buyer-track marker on 1, all active-buyer spaces full and a Benz marker unused "
                   "(the next buyer action ends the game)" + _FROZEN, 9, ("benz", "market", "round 3")),
    "scoring-2p": (_frozen("scoring-2p", lambda: _seeded_game_until(2, 0, scoring_next)),
                   "2 players, seeded random game 0 at the first turn start of round 1 with the "
                   "buyer-track marker on 1 and all 3 active-buyer spaces full (scoring, then round 2)" + _FROZEN,
                   7, ("turn", "round 2")),
    "v6-opening-4p": (lambda: Game(4, v6=True).new_initial_state(seed=7, engine="reference"),
                      "4-player V6 opening (Game(4, v6=True), seed 7)", 9, ("setup", "turn")),
    "v6-bonus-3p": (_frozen("v6-bonus-3p", lambda: _seeded_game_until(3, 5, v6_bonus_decision_next, v6=True)),
                    "3 players V6, seeded random game 5 at the first turn start of round 2 where the "
                    "specialty tile at the front sells a workshop tile or removes a car and the player "
                    "to move can use it" + _FROZEN, 6, ("turn", "sell", "special_order", "card_order")),
}

#: Positions whose tree must hold terminal states within its depth.
MUST_END = ("scoring-3p",)


def _write_json(path: Path, obj: Any) -> None:
    path.write_text(json.dumps(obj, indent=1) + "\n", encoding="utf-8")


def load_position(name: str):
    """The stored position ``name`` on the reference engine."""
    obj = json.loads((HERE / f"{name}.json").read_text(encoding="utf-8"))
    return state_from_json(obj, engine="reference")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--counts", action="store_true", help="keep the stored .json positions, recount")
    ap.add_argument("--check", action="store_true",
                    help="recount the stored positions and compare; write nothing")
    ap.add_argument("--only", nargs="*", help="these positions only")
    args = ap.parse_args(argv)
    names = args.only or list(POSITIONS)
    failed = False
    for name in names:
        build, about, depth, must_reach = POSITIONS[name]
        if args.counts or args.check:
            st = load_position(name)
        else:
            st = build()
            obj = st.to_json()
            again = state_from_json(json.loads(json.dumps(obj)), engine="reference")
            assert again.to_json() == obj, f"{name}: the position does not survive to_json/from_json"
            _write_json(HERE / f"{name}.json", obj)
            st = again
        t0 = time.perf_counter()
        counts, split, facts = count_all(st, depth)
        took = time.perf_counter() - t0
        reached = facts["kinds"] + [f"round {r}" for r in facts["rounds"]]
        missing = [k for k in must_reach if k not in reached]
        if missing:
            raise RuntimeError(f"{name}: the tree to depth {depth} never reaches {missing}")
        if name in MUST_END and not facts["terminal"]:
            raise RuntimeError(f"{name}: no terminal state within depth {depth}")
        texts = [t for t, _ in split]
        assert len(set(texts)) == len(texts), f"{name}: two first actions share a text"
        comments = [f"{name}.json: {about}",
                    "counts by the reference engine; generated by tests/data/make_perft.py",
                    f"decisions met before depth {depth}: {', '.join(facts['kinds'])}",
                    f"rounds met before depth {depth}: {', '.join(map(str, facts['rounds']))}",
                    f"terminal states within depth {depth}: {facts['terminal']}"]
        text = format_perft(counts, split, comments)
        path = HERE / f"{name}.perft"
        if args.check:
            stored = parse_perft(path.read_text(encoding="utf-8"))
            ok = stored == (counts, depth, split)
            failed |= not ok
            print(f"{name}: {'ok' if ok else 'MISMATCH'} ({took:.1f} s)")
        else:
            path.write_text(text, encoding="utf-8")
            print(f"{name}: depth {depth} = {counts[depth]} leaves, reference {took:.1f} s, "
                  f"{facts['terminal']} terminal")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
