"""Perft (move-path enumeration, as in chess): both engines count the same game trees.

tests/data/<name>.json holds a position with its deck order fixed; <name>.perft the
number of action sequences of each length from it, counted by the reference
engine (tests/data/make_perft.py documents the format and regenerates the files).
The fast engine must reproduce every stored count up to the deepest depth; the
reference is rechecked at the shallow depths (the deep counts are its own). On a
mismatch the message lists the count per first action, stored and computed, so
the first action whose subtree differs is visible at once.

Hand-counted spot checks pin the shallow counts of three positions, with the
reasoning in comments, so the stored files are not only self-consistent.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from kwsearch.engine import state_from_json

pytestmark = pytest.mark.one_engine  # this module chooses the engine of every state itself

DATA = Path(__file__).resolve().parent / "data"
NAMES = sorted(p.stem for p in DATA.glob("*.perft"))
REFERENCE_MAX_DEPTH = 4  # the reference's deep counts are what it wrote; recheck the cheap ones


def _load_generator():
    spec = importlib.util.spec_from_file_location("make_perft", DATA / "make_perft.py")
    module = importlib.util.module_from_spec(spec)
    saved = list(sys.path)  # the script puts its checkout first on sys.path: undo that, so a
    try:                    # process started later (the web board's workers) imports the tested kwsearch
        spec.loader.exec_module(module)
    finally:
        sys.path[:] = saved
    return module


make_perft = _load_generator()


# ---------------------------------------------------------------------------
# Counting and comparing
# ---------------------------------------------------------------------------


def perft(state, depth: int) -> int:
    """Leaf count of the tree of ``depth`` plies; a terminal state is a leaf."""
    if depth == 0 or state.is_terminal():
        return 1
    n = 0
    for a in state.legal_actions():
        child = state.copy()
        child.apply(a)
        n += perft(child, depth - 1)
    return n


def divide(state, depth: int) -> list[tuple[str, int]]:
    """``[(first action text, leaves below it)]`` in legal order."""
    out = []
    for a in state.legal_actions():
        child = state.copy()
        child.apply(a)
        out.append((state.action_to_text(a), perft(child, depth - 1)))
    return out


def _table(stored: list[tuple[str, int]] | None, computed: list[tuple[str, int]]) -> str:
    """Side-by-side per-first-action counts; '<--' marks the differing lines."""
    s = dict(stored or [])
    c = dict(computed)
    order = [t for t, _ in (stored or [])] + [t for t, _ in computed if t not in s]
    width = max([len(t) for t in order] + [12])
    lines = [f"  {'first action':<{width}} {'stored':>10} {'computed':>10}"]
    for t in order:
        sv = "-" if stored is None else str(s.get(t, "absent"))
        cv = str(c.get(t, "absent"))
        mark = "  <--" if stored is not None and s.get(t) != c.get(t) else ""
        lines.append(f"  {t:<{width}} {sv:>10} {cv:>10}{mark}")
    return "\n".join(lines)


def check_perft(state, counts: dict[int, int], divide_depth: int, stored_split: list[tuple[str, int]],
                max_depth: int | None = None, label: str = "") -> None:
    """Assert ``state``'s perft equals the stored counts at every depth up to ``max_depth``
    (default: all), and its divide equals the stored one at ``divide_depth`` when that is checked."""
    for d in sorted(counts):
        if max_depth is not None and d > max_depth:
            break
        computed = divide(state, d)
        total = sum(n for _, n in computed)
        wrong_split = d == divide_depth and computed != stored_split
        if total == counts[d] and not wrong_split:
            continue
        msg = [f"{label}: perft depth {d}: stored {counts[d]}, computed {total}"]
        if d == divide_depth:
            msg += [f"divide {d} (stored vs computed):", _table(stored_split, computed)]
        else:
            msg += [f"divide {d} (computed; the file stores the divide at depth {divide_depth} only):",
                    _table(None, computed),
                    f"divide {divide_depth} (stored vs computed):",
                    _table(stored_split, divide(state, divide_depth))]
        raise AssertionError("\n".join(msg))


def read_perft(name: str):
    return make_perft.parse_perft((DATA / f"{name}.perft").read_text(encoding="utf-8"))


def load(name: str, engine: str):
    obj = json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))
    return state_from_json(obj, engine=engine)


# ---------------------------------------------------------------------------
# The stored files
# ---------------------------------------------------------------------------


def test_every_position_has_its_files():
    """The generator's positions and the stored files are the same set; each file is well formed."""
    assert NAMES == sorted(make_perft.POSITIONS)
    for name in NAMES:
        assert (DATA / f"{name}.json").is_file()
        counts, divide_depth, split = read_perft(name)
        assert sorted(counts) == list(range(1, divide_depth + 1)), name
        assert divide_depth == make_perft.POSITIONS[name][2], name
        assert sum(n for _, n in split) == counts[divide_depth], name
        # Every non-terminal state has a legal action and a terminal one stays a leaf: never fewer.
        assert all(counts[d] <= counts[d + 1] for d in range(1, divide_depth)), name
        assert "hidden" in json.loads((DATA / f"{name}.json").read_text(encoding="utf-8")), name


@pytest.mark.parametrize("name", NAMES)
def test_fast_engine_loads_the_exact_position(name):
    """The fast engine reads the stored position, deck order included, without loss."""
    obj = json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))
    assert load(name, "fast").to_json() == obj


@pytest.mark.parametrize("name", NAMES)
def test_fast_engine_perft_matches_reference_counts(name):
    """Every stored depth (the deepest one with its per-first-action breakdown) on the fast engine."""
    counts, divide_depth, split = read_perft(name)
    check_perft(load(name, "fast"), counts, divide_depth, split, label=f"{name} (fast engine)")


@pytest.mark.parametrize("name", NAMES)
def test_reference_engine_perft_shallow(name):
    """The reference, recounted by this module's own perft, agrees with its stored shallow counts."""
    counts, divide_depth, split = read_perft(name)
    check_perft(load(name, "reference"), counts, divide_depth, split, max_depth=REFERENCE_MAX_DEPTH,
                label=f"{name} (reference engine)")


# ---------------------------------------------------------------------------
# Hand-counted spot checks (both engines)
# ---------------------------------------------------------------------------

ENGINES = ["reference", "fast"]


@pytest.mark.parametrize("engine", ENGINES)
def test_hand_count_opening_4p(engine):
    st = load("opening-4p", engine)
    # Depth 1: start tiles are chosen in reverse seat order, so seat 3 chooses among all four.
    assert st.current_player() == 3
    assert divide(st, 1) == [("start A", 1), ("start B", 1), ("start C", 1), ("start D", 1)]
    # Depth 2: A (hire 2 + engine 1; hiring and an engine commute) asks where its engine 1 goes:
    # "engine -> workshop" / "engine -> gp" (RULES.md §4.1 offers the GP car whatever the values): 2.
    # B (hire 2 + body) and C (GP engine 2 + hire 1) hold no decision, so seat 2 chooses among the 3
    # tiles left: 3 each. D (GP car on space 2 + research) does not commute, so seat 3 chooses the
    # order: "do research" / "do gp_start2": 2. 2 + 3 + 3 + 2 = 10.
    assert divide(st, 2) == [("start A", 2), ("start B", 3), ("start C", 3), ("start D", 2)]
    # Depth 3: after A's engine destination (2), seat 2 chooses among the 3 tiles left: 2 x 3 = 6.
    # After B or C, seat 2 takes A (its engine destination: 2), the other decision-free tile (seat 1
    # then chooses between the 2 tiles left: 2) or D (the order: 2): 2 + 2 + 2 = 6. After D, each
    # order leads to the research choice between the two face-up cards (Horch, dev:body1+tile):
    # 2 x 2 = 4. 6 + 6 + 6 + 4 = 22.
    assert divide(st, 3) == [("start A", 6), ("start B", 6), ("start C", 6), ("start D", 4)]
    assert [perft(st, d) for d in (1, 2, 3)] == [4, 10, 22]


@pytest.mark.parametrize("engine", ENGINES)
def test_hand_count_opening_2p(engine):
    st = load("opening-2p", engine)
    # With 2 players only 2 start tiles are offered (seed 7: A and D); seat 1 chooses first.
    assert st.observation()["start_tiles_offered"] == ["A", "D"]
    assert divide(st, 1) == [("start A", 1), ("start D", 1)]
    # Seat 0's single remaining tile is forced (no decision, no ply). Whoever has A first chooses
    # where its engine 1 goes (2: workshop or GP car, RULES.md §4.1); whoever has D chooses the
    # order of its research and GP-start actions (2), then one of the two face-up cards (2).
    assert divide(st, 2) == [("start A", 2), ("start D", 2)]
    assert divide(st, 3) == [("start A", 4), ("start D", 4)]
    after_a = st.copy()
    after_a.play("start A")
    assert after_a.current_player() == 1  # seat 1's engine 1: a workshop or the GP car
    assert [after_a.action_to_text(a) for a in after_a.legal_actions()] == ["engine -> workshop", "engine -> gp"]
    after_a.play("engine -> workshop")
    assert after_a.current_player() == 0  # seat 0 took D automatically and decides its order
    assert [after_a.action_to_text(a) for a in after_a.legal_actions()] == ["do research", "do gp_start2"]


@pytest.mark.parametrize("engine", ENGINES)
def test_hand_count_scoring_3p(engine):
    st = load("scoring-3p", engine)
    # Seat 1 (workshops body 1, engine 1, engine 1; 1 canteen worker; GP engine 2; Benz marker;
    # engine research 2) is at the tail; all 10 tiles lie ahead of it: 10 first actions.
    assert st.current_player() == 1
    assert perft(st, 1) == 10
    # Every tile leads to exactly one two-way decision:
    #   tile 0 hire, 3 GP, 5 GP+buyer, 7 hire+buyer: no choice in the actions (the buyer spaces are
    #     full, so the buyer action moves the track marker to 0 by force; GP, hiring and the buyer
    #     commute), then the market: "market pass" / "market body@1";
    #   tile 1 body: the workshops are full, give up "body 1" or "engine 1" (the two engine 1 tiles
    #     are one option);
    #   tile 2 engine: the engine 2 may go to a workshop or the GP car (RULES.md §4.1 offers it
    #     whatever the values): "engine -> workshop" / "engine -> gp";
    #   tile 4 research, 6 research+buyer: one of the two face-up cards (hire3, Horch);
    #   tile 8 body+engine, 9 body+engine+buyer: the order "do body" / "do engine".
    assert divide(st, 2) == [(f"tile {t}", 2) for t in range(10)]
    # After tile 5 and "market pass" the track marker is on 0: the phase ends. Benz's owner decides
    # first: pass, or a fifth buyer from a non-empty stack (body 2, price 2; engine and prestige are
    # empty): 3 options. Each of them runs race, sales and the round-3 clean-up: the game is over, so
    # each leaf is terminal and deeper counts stay 3.
    st.play("tile 5")
    st.play("market pass")
    assert [st.action_to_text(a) for a in st.legal_actions()] == ["benz pass", "benz buyer body",
                                                                  "benz buyer price"]
    assert [perft(st, d) for d in (1, 2, 5)] == [3, 3, 3]
    for a in st.legal_actions():
        child = st.copy()
        child.apply(a)
        assert child.is_terminal()


# ---------------------------------------------------------------------------
# The checker itself: a wrong count is caught and reported; the format round-trips
# ---------------------------------------------------------------------------


def test_a_wrong_count_is_detected_and_the_culprit_shown():
    """Tampered copies (in memory; the files stay untouched) fail with the culprit action named."""
    name = "scoring-3p"
    counts, divide_depth, split = read_perft(name)
    st = load(name, "fast")
    small = {d: n for d, n in counts.items() if d <= 3}
    small_split = divide(st, 3)
    check_perft(st, small, 3, small_split, label=name)  # the untampered data pass

    # One first action's count off by one (and the total with it).
    bad_split = [(t, n + 1 if t == "tile 4" else n) for t, n in small_split]
    bad = dict(small)
    bad[3] += 1
    with pytest.raises(AssertionError) as err:
        check_perft(st, bad, 3, bad_split, label=name)
    text = str(err.value)
    culprit = [line for line in text.splitlines() if line.rstrip().endswith("<--")]
    assert len(culprit) == 1 and culprit[0].split()[:2] == ["tile", "4"], text
    good = dict(small_split)["tile 4"]
    assert culprit[0].split()[2:4] == [str(good + 1), str(good)], text
    assert f"perft depth 3: stored {small[3] + 1}, computed {small[3]}" in text

    # Two first actions swapped (same total): still caught by the breakdown.
    swapped = list(small_split)
    i, j = 0, 4  # tile 0 and tile 4 have different counts at depth 3
    assert swapped[i][1] != swapped[j][1]
    swapped[i], swapped[j] = (swapped[i][0], swapped[j][1]), (swapped[j][0], swapped[i][1])
    with pytest.raises(AssertionError) as err:
        check_perft(st, small, 3, swapped, label=name)
    marked = [line.split()[:2] for line in str(err.value).splitlines() if line.endswith("<--")]
    assert marked == [["tile", "0"], ["tile", "4"]], str(err.value)

    # A wrong shallow count: the message shows the computed divide there and the stored one below.
    bad = dict(small)
    bad[2] -= 1
    with pytest.raises(AssertionError) as err:
        check_perft(st, bad, 3, small_split, label=name)
    assert "perft depth 2: stored 19, computed 20" in str(err.value)
    assert "divide 3 (stored vs computed)" in str(err.value)


def test_perft_format_round_trips_and_matches_the_files(tmp_path):
    """format_perft/parse_perft are inverse; the stored files are in the documented layout; a
    malformed file is refused."""
    for name in NAMES:
        text = (DATA / f"{name}.perft").read_text(encoding="utf-8")
        counts, divide_depth, split = make_perft.parse_perft(text)
        comments = [line[2:] for line in text.splitlines() if line.startswith("# ")]
        assert make_perft.format_perft(counts, split, comments) == text, name
    text = make_perft.format_perft({1: 3, 2: 7}, [("market body@1", 4), ("market pass", 3)], ["c"])
    assert text == "# c\ndepth 1 3\ndepth 2 7\ndivide 2\nmarket body@1 4\nmarket pass 3\n"
    assert make_perft.parse_perft(text) == ({1: 3, 2: 7}, 2, [("market body@1", 4), ("market pass", 3)])
    broken = tmp_path / "broken.perft"
    broken.write_text("depth 1 3\ndepht 2 7\ndivide 2\n", encoding="utf-8")
    with pytest.raises(ValueError):
        make_perft.parse_perft(broken.read_text(encoding="utf-8"))
    with pytest.raises(ValueError):
        make_perft.parse_perft("depth 1 3\n")
