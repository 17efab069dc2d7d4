"""RULES.md §3: the action track as a chain (tail worker moves, tiles to the front, rounds)."""

from __future__ import annotations

from helpers import chain, load, make_position, options, play, tile
from kwsearch.engine import reference

TILES = [f"tile {t}" for t in range(10)]
SEATS4 = [f"seat {s}" for s in range(4)]


def test_tail_player_takes_the_turn():
    pos = make_position(chain=["seat 2", "seat 0", "seat 3", "seat 1"] + TILES)
    st = load(pos)
    assert st.pending() == "turn"
    assert st.current_player() == 2


def test_any_tile_in_the_chain_may_be_taken():
    pos = make_position(chain=["seat 0", "tile 3", "seat 1", "tile 7", "seat 2", "seat 3",
                               "tile 0", "tile 1", "tile 2", "tile 4", "tile 5", "tile 6", "tile 8", "tile 9"])
    st = load(pos)
    assert sorted(options(st)) == sorted(TILES)


def test_worker_takes_the_tiles_place_and_the_tile_goes_to_the_front():
    st = load(make_position())
    play(st, "tile 4")  # research: a development, activated with a canteen worker
    play(st, "take research:dev:body1")
    assert chain(st) == ["seat 1", "seat 2", "seat 3", "tile 0", "tile 1", "tile 2", "tile 3", "seat 0",
                         "tile 5", "tile 6", "tile 7", "tile 8", "tile 9", "tile 4"]
    assert st.current_player() == 1


def test_taking_the_front_tile():
    st = load(make_position())
    play(st, "tile 9")  # body + engine + buyer: the tile at the front
    while st.current_player() == 0:
        play(st, options(st)[0])
    assert chain(st) == ["seat 1", "seat 2", "seat 3"] + TILES[:9] + ["seat 0", "tile 9"]


def test_tiles_at_the_tail_move_to_the_front_after_the_turn():
    pos = make_position(chain=["seat 0", "tile 0", "tile 1", "seat 1", "seat 2", "seat 3",
                               "tile 2", "tile 3", "tile 4", "tile 5", "tile 6", "tile 7", "tile 8", "tile 9"])
    st = load(pos)
    play(st, "tile 3")  # grand prix: nothing to decide
    # seat 0 took tile 3's place; tile 3 went to the front; tiles 0 and 1 (now the tail) follow it.
    assert chain(st) == ["seat 1", "seat 2", "seat 3", "tile 2", "seat 0", "tile 4", "tile 5", "tile 6",
                         "tile 7", "tile 8", "tile 9", "tile 3", "tile 0", "tile 1"]
    assert st.current_player() == 1


def test_double_turn_when_still_at_the_tail():
    pos = make_position(chain=["seat 0", "tile 3", "seat 1", "seat 2", "seat 3", "tile 0", "tile 1",
                               "tile 2", "tile 4", "tile 5", "tile 6", "tile 7", "tile 8", "tile 9"])
    st = load(pos)
    play(st, "tile 3")
    assert chain(st)[0] == "seat 0"
    assert chain(st)[-1] == "tile 3"
    assert st.pending() == "turn" and st.current_player() == 0  # another turn in a row
    assert reference(st).seats[0].space == 1  # the first turn was done (GP engine 1)
    play(st, "tile 0")
    assert st.current_player() == 1


def test_double_turn_after_tiles_pass_from_the_tail():
    pos = make_position(chain=["seat 0", "tile 0", "tile 1", "seat 1", "seat 2", "seat 3",
                               "tile 2", "tile 3", "tile 4", "tile 5", "tile 6", "tile 7", "tile 8", "tile 9"])
    st = load(pos)
    play(st, "tile 1")  # body 1 into a workshop
    assert chain(st) == ["seat 0", "seat 1", "seat 2", "seat 3", "tile 2", "tile 3", "tile 4", "tile 5",
                         "tile 6", "tile 7", "tile 8", "tile 9", "tile 1", "tile 0"]
    assert st.current_player() == 0


def test_triple_turn():
    pos = make_position(chain=["seat 0", "tile 3", "tile 0", "tile 1", "seat 1", "seat 2", "seat 3",
                               "tile 2", "tile 4", "tile 5", "tile 6", "tile 7", "tile 8", "tile 9"])
    st = load(pos)
    play(st, "tile 3")
    assert st.current_player() == 0
    play(st, "tile 0")
    assert st.current_player() == 0
    play(st, "tile 1")
    ref = reference(st)
    assert st.current_player() == 0  # the tiles in front of seat 0 are used up: a fourth turn
    assert ref.seats[0].canteen == 5 and ref.seats[0].workshops == [1] and ref.seats[0].space == 1
    assert chain(st)[:4] == SEATS4
    play(st, "tile 2", "engine -> workshop", "market pass")
    assert st.current_player() == 1


def test_chain_persists_across_rounds():
    """[decision] The chain persists across rounds; round 2 starts with whoever is at the tail."""
    pos = make_position(
        chain=["seat 0", "seat 2", "seat 3", "seat 1"] + TILES,
        buyers={"active": [{"preference": p} for p in ("body", "engine", "prestige", "price")],
                "track": 1},
    )
    st = load(pos)
    play(st, tile("hire", "buyer"))  # the buyer action moves the track to 0: scoring after this turn
    ref = reference(st)
    assert ref.round == 2
    assert ref.phase == "action"
    assert ref.track == 4
    assert chain(st) == ["seat 2", "seat 3", "seat 1", "tile 0", "tile 1", "tile 2", "tile 3", "tile 4",
                         "tile 5", "tile 6", "seat 0", "tile 8", "tile 9", "tile 7"]
    assert st.pending() == "turn" and st.current_player() == 2
