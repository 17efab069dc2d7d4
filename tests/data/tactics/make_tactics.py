"""Build the tactical test positions in tests/data/tactics (deterministic).

    python3 tests/data/tactics/make_tactics.py           # verify every position, write <name>.json
    python3 tests/data/tactics/make_tactics.py --check   # verify only, write nothing

Each position is a ``kwsearch-position/1`` file at a decision of the mover in
the last round, where exactly one option wins the game. The file's extra
top-level key ``"_expected"`` (the position loader ignores unknown top-level
keys) holds::

    {"mover": seat, "decision": pending task, "best": "<move text>",
     "losing": ["<move text>", ...],   # every other legal option
     "proof": {"<move text>": "<how it was verified>"},
     "comment": "why"}

How a position is built: a hand-written position a little *before* the
decision (the start of the mover's turn, or the scoring), then a scripted
prefix of moves played on the REFERENCE engine, then the observation
(``state_to_position``: no deck order) is saved. So the turn structure and the
pending task stack are what the engine itself produces.

How it is verified (REFERENCE engine, :func:`classify`), for every legal option:

* ``all-win`` / ``all-lose``: every continuation (all legal actions of every
  seat, exhaustively) ends the game before another turn starts, and the mover
  wins in every one / loses in every one.
* ``forced-win``: the mover can force a win before another turn starts (an
  OR-AND search: the mover's own later choices are OR nodes, everybody else's
  AND nodes). Used when the mover still has a choice that leaves the game open
  (``market pass``).
* ``refuted``: the other seats can force the mover's loss within the next
  turn (same search, one more turn deep; lines that go further count as
  unknown, so a proof never relies on them).

The search runs on several deck orders (the loader's seeds 0..4); the game
ends before the hidden order matters (no card is drawn on the proof lines, or
only into a display nobody uses again), and every seed must give the same
verdict. In a 2-player position the OR-AND search is exact minimax; the
4-player positions use only the exhaustive verdicts.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from kwsearch.engine import state_from_json  # noqa: E402
from kwsearch.formats import state_to_position  # noqa: E402

SEEDS = range(5)
UNKNOWN = (0.0, 1.0)

# ---------------------------------------------------------------------------
# Solving (reference engine)
# ---------------------------------------------------------------------------


def _children(state):
    for a in state.legal_actions():
        child = state.copy()
        child.apply(a)
        yield a, child


def outcome_range(state, mover: int, turns: int = 0) -> tuple[float, float]:
    """(min, max) of the mover's win share over every continuation.

    A new turn beyond ``turns`` more turns counts as unknown (0, 1).
    """
    if state.is_terminal():
        r = state.returns()[mover]
        return r, r
    if state.pending() == "turn":
        if turns == 0:
            return UNKNOWN
        turns -= 1
    lo, hi = 1.0, 0.0
    for _, child in _children(state):
        clo, chi = outcome_range(child, mover, turns)
        lo, hi = min(lo, clo), max(hi, chi)
        if lo == 0.0 and hi == 1.0:
            break
    return lo, hi


def forced(state, mover: int, turns: int = 0) -> tuple[float, float]:
    """Bounds on the mover's win share when the mover maximises and every other seat minimises it.

    A new turn beyond ``turns`` more turns counts as unknown (0, 1).
    """
    if state.is_terminal():
        r = state.returns()[mover]
        return r, r
    if state.pending() == "turn":
        if turns == 0:
            return UNKNOWN
        turns -= 1
    mine = state.current_player() == mover
    best = (0.0, 0.0) if mine else (1.0, 1.0)
    for _, child in _children(state):
        lo, hi = forced(child, mover, turns)
        if mine:
            best = (max(best[0], lo), max(best[1], hi))
            if best[0] == 1.0:
                break
        else:
            best = (min(best[0], lo), min(best[1], hi))
            if best[1] == 0.0:
                break
    return best


def classify(state, mover: int) -> dict[str, str]:
    """{move text: verdict} for every legal option of ``state`` (see the module docstring)."""
    two = state.game.num_players == 2
    out = {}
    for a, child in _children(state):
        text = state.action_to_text(a)
        lo, hi = outcome_range(child, mover)
        if lo == hi == 1.0:
            out[text] = "all-win"
        elif lo == hi == 0.0:
            out[text] = "all-lose"
        elif two and forced(child, mover)[0] == 1.0:
            out[text] = "forced-win"
        elif two and forced(child, mover, turns=1)[1] == 0.0:
            out[text] = "refuted"
        else:
            out[text] = f"open {lo:g}..{hi:g}"
    return out


def final_money(state, moves: list[str], seed: int = 0) -> list[int]:
    """Money at the end after ``moves`` and then random legal options (for the comments)."""
    import random
    rng = random.Random(seed)
    st = state.copy()
    for m in moves:
        st.play(m)
    while not st.is_terminal():
        st.apply(rng.choice(st.legal_actions()))
    return st.money()


# ---------------------------------------------------------------------------
# Positions
# ---------------------------------------------------------------------------

ALL_AWARDS_TAKEN = {"gp1": 1, "gp2": 0, "buyer": 1, "market": 0, "body3": 0, "body6": 1,
                    "engine4": 1, "engine7": 0, "worker": 1, "engineers": 0}


def seat(money: int, **kw: Any) -> dict[str, Any]:
    s = {"money": money, "canteen": 0, "workshops": [], "gp_engine": 1, "laps": 0, "space": 0,
         "developments": [], "inactive": [], "engineers": []}
    s.update(kw)
    return s


def base(players: int, **kw: Any) -> dict[str, Any]:
    pos = {"format": "kwsearch-position/1", "players": players, "round": 3, "phase": "action",
           "chain": [f"seat {s}" for s in range(players)] + [f"tile {t}" for t in range(10)],
           "research": {"display": ["dev:body1", "dev:engine1"], "discard": []},
           "start_tiles_offered": ["A", "B"] if players == 2 else ["A", "B", "C", "D"],
           "awards": dict(ALL_AWARDS_TAKEN)}
    pos.update(kw)
    for i, s in enumerate(pos["seats"]):
        s.setdefault("start_tile", pos["start_tiles_offered"][i])
    return pos


def car(owner: int, body: int, engine: int, workers: int, price: int, **kw: int) -> dict[str, int]:
    return {"owner": owner, "body": body, "engine": engine, "workers": workers, "price": price, **kw}


POSITIONS: dict[str, dict[str, Any]] = {}


def position(fn):
    POSITIONS[fn.__name__] = fn
    return fn


def _market_2p(mover_workshops: list[str], opponent_workshops: list[str]) -> dict[str, Any]:
    return base(2, seats=[
        seat(41, workshops=mover_workshops, developments=["dev:body2", "dev:body2", "dev:engine2"],
             gp_engine=3, laps=1, space=5),
        seat(30, canteen=1, workshops=opponent_workshops, developments=["dev:body2", "dev:body1", "dev:engine1"],
             gp_engine=4, laps=1, space=9),
    ], buyers={"active": [{"preference": "body"}, {"preference": "price"}, {"preference": "prestige"}],
               "white": {"body": 0, "engine": 3, "prestige": 0, "price": 0}, "track": 2},
        market=[car(1, 5, 2, 1, 12), car(1, 1, 1, 1, 4), car(1, 2, 2, 2, 8)])


_MARKET_2P = (
    "Buyers in order: body, price, prestige. The body buyer sees two bodies of 5 (seat 1's car at price 12 and "
    "seat 0's) and takes the lower price. Price 10 wins the body buyer (+10); 14 or 15 lose the tie, seat 0's car "
    "stays unsold and seat 1 sells all three cars (12 + 2x4 + 8); 3 or 6 win the tie but earn too little. Race "
    "and sales are fixed: price 10 -> 56:54, 6 -> 52:54, 3 -> 49:54, 14/15 -> 46:66.")


@position
def market_price_2p():
    """(1) The last turn: the mover's car fills the market (4 cars with 2 players); the price decides."""
    pos = _market_2p(["body 5", "engine 3"], ["body 2"])
    prefix = ["tile 0", "market body@5"]  # hire (canteen 0 -> 1: one worker, forced), the body; one engine
    comment = (
        "Round 3, 2 players. Seat 0 has hired a worker and is moving a car (body 5, engine 3, 1 worker) to the "
        "market; it is the 4th car, so the round ends after this turn. " + _MARKET_2P)
    return pos, prefix, comment


@position
def market_body_2p():
    """(1b) The same last turn one decision earlier: which body goes to the market (or none)."""
    pos = _market_2p(["body 2", "body 5", "engine 3"], ["body 2", "engine 1"])
    prefix = ["tile 0"]
    comment = (
        "Round 3, 2 players, as market_price_2p one decision earlier: seat 0 has hired a worker and chooses the "
        "body of the 4th car (the round ends after this turn), then its price. 'market body@5' wins with price 10 "
        "(and only with it). " + _MARKET_2P + " With body 2 seat 1's body-5 car goes to the body buyer; the best "
        "is then price 3 for the price buyer (2x3): 52:58. After 'market pass' seat 1 ends the round with its own "
        "car (body 2, engine 1) and wins.")
    return pos, prefix, comment


@position
def buyer_steal_2p():
    """(2) The third buyer's preference decides which car it buys; then the mover's car fills the market."""
    pos = base(2, seats=[
        seat(30, workshops=["body 1", "engine 6"], developments=["dev:engine2", "dev:engine2", "dev:engine1"],
             gp_engine=2, laps=1, space=2),
        seat(30, canteen=2, workshops=["body 4", "engine 3"], developments=["dev:body2", "dev:body1", "dev:engine1"],
             gp_engine=4, laps=1, space=4),
    ], buyers={"active": [{"preference": "price"}, {"preference": "prestige"}],
               "white": {"body": 2, "engine": 2, "prestige": 0, "price": 0}, "track": 2},
        market=[car(1, 6, 2, 1, 4), car(1, 3, 5, 3, 6), car(0, 2, 1, 1, 3)])
    prefix = ["tile 7"]  # hire + buyer: the hire is done first (canonical order), the buyer is the decision
    comment = (
        "Round 3, 2 players, the market holds 3 of 4 cars. Seat 0 took 'hire worker + buyer' and chooses the third "
        "buyer; then it can move its car (body 1, engine 6, 1 worker) to the market, which ends the round. "
        "Buyers price then prestige sell seat 0's car at 3 (2x3) and seat 1's 3-worker car (6). The engine buyer "
        "takes the highest engine: seat 0's new engine-6 car instead of seat 1's engine-5 car, which is already "
        "sold, so the sale goes to seat 0 at any price (8..15): 51:44 or better. The body (+2 white) and prestige "
        "buyers take seat 1's body-6 car (4), the price buyer too: seat 0 loses 43:48 / 41:48 / 41:52 with the car "
        "placed. After 'market pass' seat 1 ends the round itself (hire tile, then its own car) and wins.")
    return pos, prefix, comment


@position
def race_gp_2p():
    """(3) The Grand-Prix tile that also ends the round: first place in the race scored at once."""
    pos = base(2, seats=[
        seat(32, canteen=1, developments=["dev:engine2", "dev:engine2", "dev:engine1"], gp_engine=6, laps=1, space=4),
        seat(30, canteen=1, developments=["dev:body2", "dev:body1", "dev:engine1", "dev:engine2"],
             gp_engine=4, laps=1, space=9),
    ], buyers={"active": [{"preference": "price"}, {"preference": "prestige"}, {"preference": "body"}],
               "white": {"body": 0, "engine": 2, "prestige": 0, "price": 1}, "track": 1},
        market=[car(1, 6, 2, 1, 4), car(1, 3, 5, 3, 6), car(0, 2, 1, 1, 3)])
    prefix: list[str] = []
    comment = (
        "Round 3, 2 players, all 3 buyer spaces are full and the buyer track is on 1: any buyer action ends the "
        "round. Seat 0 (GP engine 6, lap 1 space 4) trails seat 1 (lap 1 space 9). 'tile 5' = grand prix + buyer: "
        "the car moves 6 spaces (skipping the neutral car on 6 and seat 1 on 9) to lap 1 space 12, the buyer "
        "action moves the track to 0, and the race is scored at once: 1st place (7) instead of 2nd (4) wins 46:45. "
        "The other buyer tiles (6, 7, 9) end the round in 2nd place: 43:48. Every tile without a buyer action, the "
        "single grand prix (tile 3) included, leaves the round open and seat 1 answers with tile 5 itself "
        "(4 spaces: past space 12 into lap 2), ending the round in first place.")
    return pos, prefix, comment


@position
def benz_fifth_4p():
    """(4) Carl Benz's fifth buyer at the last scoring."""
    pos = base(4, phase="scoring", seats=[
        seat(30, laps=1, space=7, gp_engine=3, developments=["dev:body2", "dev:body2", "dev:engine1", "dev:engine1"]),
        seat(40, laps=1, space=11, gp_engine=5, developments=["dev:body2", "dev:body1", "dev:engine2", "dev:engine2"]),
        seat(37, laps=2, space=1, gp_engine=5, canteen=1, engineers=["Benz", "Porsche"],
             developments=["dev:body1", "dev:engine2", "dev:engine2"]),
        seat(25, laps=0, space=10, gp_engine=2, developments=["dev:body2", "dev:engine1"]),
    ], buyers={"active": [{"preference": "price"}, {"preference": "body"}, {"preference": "prestige"},
                          {"preference": "body"}],
               "white": {"body": 0, "engine": 3, "prestige": 2, "price": 0}, "track": 2},
        market=[car(0, 6, 3, 1, 10), car(1, 5, 4, 2, 12), car(1, 2, 6, 1, 15), car(2, 3, 5, 1, 6),
                car(3, 4, 2, 3, 8), car(3, 1, 1, 1, 4)])
    prefix: list[str] = []
    comment = (
        "Round 3 scoring, 4 players, the market is full. Seat 2 owns Benz and may add a fifth buyer (engine, "
        "prestige or price; the body stack is empty). The four buyers sell every car but seat 1's (engine 6, "
        "price 15) and seat 2's (engine 5, 1 worker, price 6). A fifth price buyer takes seat 2's car for 2x6: "
        "59 against seat 1's 57. Prestige (+2 white) also takes seat 2's car (1 worker each, the lower price) "
        "but for 6 only: 55:57. Engine (+3 white) sells seat 1's car: 50:72. Pass: 47:57.")
    return pos, prefix, comment


@position
def daimler_marker_4p():
    """(5) A Daimler marker at the end of the last turn, on the buyer that will buy the mover's car."""
    pos = base(4, chain=["seat 1", "seat 2", "seat 3", "seat 0"] + [f"tile {t}" for t in range(10)], seats=[
        seat(40, laps=1, space=5, gp_engine=4, canteen=2,
             developments=["dev:body2", "dev:body1engine1", "dev:engine1"]),
        seat(49, laps=1, space=3, gp_engine=3, workshops=["body 4", "engine 4"], engineers=["Daimler"],
             developments=["dev:body2", "dev:body1", "dev:engine2", "dev:engine1"]),
        seat(30, laps=1, space=9, gp_engine=5, canteen=1,
             developments=["dev:body2", "dev:body2", "dev:body1", "dev:engine2", "dev:engine2", "dev:engine1"]),
        seat(38, laps=0, space=10, gp_engine=2, canteen=1, developments=["dev:body1+tile", "dev:engine1"]),
    ], buyers={"active": [{"preference": "engine"}, {"preference": "price"}, {"preference": "body"},
                          {"preference": "prestige"}],
               "white": {"body": 2, "engine": 0, "prestige": 1, "price": 1}, "track": 3},
        market=[car(0, 5, 3, 1, 12), car(2, 2, 6, 2, 10), car(3, 3, 2, 3, 8), car(0, 1, 1, 1, 6),
                car(2, 6, 2, 1, 15)])
    prefix = ["tile 0", "market body@4", "market price 4"]  # the 6th car fills the market
    comment = (
        "Round 3, 4 players. Seat 1 (Daimler, markers +2 and +4 unused) has just moved the 6th car to the "
        "market (body 4, engine 4, 1 worker, price 4): the round ends after this turn. Buyers: 1 engine, 2 price, "
        "3 body, 4 prestige. Buyer 2 (price) buys seat 1's car (the lowest price) for 2x4; every other buyer buys "
        "another seat's car. '+4 on buyer 2' (not doubled) wins 64:63 against seat 2; '+2 on buyer 2' loses "
        "62:63; pass 60:63; a marker on buyer 1 or 3 pays seat 2, on buyer 4 seat 3.")
    return pos, prefix, comment


# ---------------------------------------------------------------------------
# Building and verifying
# ---------------------------------------------------------------------------

WINNING = ("all-win", "forced-win")
LOSING = ("all-lose", "refuted")


def build(name: str) -> dict[str, Any]:
    """The position file object of ``name`` (verified on the reference for every seed in SEEDS)."""
    pos, prefix, comment = POSITIONS[name]()
    st = state_from_json(copy.deepcopy(pos), seed=0, engine="reference")
    for m in prefix:
        st.play(m)
    obj = state_to_position(st)
    mover = st.current_player()
    verdicts = None
    for seed in SEEDS:
        v = classify(state_from_json(copy.deepcopy(obj), seed=seed, engine="reference"), mover)
        if verdicts is not None and v != verdicts:
            raise AssertionError(f"{name}: the verdicts depend on the deck order:\n{verdicts}\n{v}")
        verdicts = v
    best = [m for m, v in verdicts.items() if v in WINNING]
    bad = {m: v for m, v in verdicts.items() if v not in WINNING + LOSING}
    if len(best) != 1 or bad:
        raise AssertionError(f"{name}: expected exactly one winning option and no open one: {verdicts}")
    obj["_expected"] = {
        "mover": mover,
        "decision": st.pending(),
        "best": best[0],
        "losing": [m for m in verdicts if m != best[0]],
        "proof": verdicts,
        "comment": comment,
    }
    return obj


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="verify, compare with the files, write nothing")
    ap.add_argument("--only", nargs="*", help="position names")
    args = ap.parse_args(argv)
    failed = 0
    for name in args.only or POSITIONS:
        obj = build(name)
        path = HERE / f"{name}.json"
        text = json.dumps(obj, indent=1) + "\n"
        e = obj["_expected"]
        print(f"{name}: seat {e['mover']} {e['decision']} -> {e['best']}  {e['proof']}")
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                print(f"  {path.name} differs from the generated position")
                failed += 1
        else:
            path.write_text(text, encoding="utf-8")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
