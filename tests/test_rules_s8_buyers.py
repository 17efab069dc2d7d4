"""RULES.md §8: the buyers at scoring.

Each test writes a position in phase "scoring" with a market and active buyers;
loading it scores the round at once (all GP cars are in the pit lane, so the race
pays nothing) and every money change is a sale.
"""

from __future__ import annotations

import pytest

from kwsearch.engine import reference, state_from_json
from kwsearch.rules import State

PREFS = ("body", "engine", "prestige", "price")


def _seat(i: int, **fields) -> dict:
    seat = {"money": 0, "canteen": 4, "workshops": [], "start_tile": "ABCD"[i]}
    seat.update(fields)
    return seat


def _car(owner: int, price: int, body: int = 1, engine: int = 1, workers: int = 1,
         body_bonus: int = 0, engine_bonus: int = 0) -> dict:
    return {"owner": owner, "body": body, "engine": engine, "workers": workers, "price": price,
            "body_bonus": body_bonus, "engine_bonus": engine_bonus}


def _buyers(active: list) -> dict:
    """Active buyers from preferences or (preference, Daimler marker) pairs."""
    out = []
    for a in active:
        pref, daimler = (a, 0) if isinstance(a, str) else a
        out.append({"preference": pref, "daimler": daimler})
    return {"active": out, "track": 1}


def _scoring(market: list[dict], active: list, players: int = 3, seats: dict | None = None,
             round_: int = 1) -> dict:
    """A position at the start of scoring (a hand-written scoring position names a seat in
    "turn": the position checker refuses a pending "race" task without one)."""
    seats = seats or {}
    return {
        "format": "kwsearch-position/1",
        "players": players,
        "round": round_,
        "phase": "scoring",
        "chain": [f"seat {i}" for i in range(players)] + [f"tile {t}" for t in range(10)],
        "research": {"display": ["dev:body1", "dev:engine1"]},
        "buyers": _buyers(active),
        "market": market,
        "seats": [_seat(i, **seats.get(i, {})) for i in range(players)],
        "turn": {"seat": 0},
    }


def _sales(market: list[dict], active: list, players: int = 3, seats: dict | None = None) -> list[int]:
    """Money of each seat after the round's scoring."""
    st = state_from_json(_scoring(market, active, players, seats), seed=3)
    assert reference(st).round == 2  # the scoring ran
    return st.money()


# ---------------------------------------------------------------------------
# Preferences
# ---------------------------------------------------------------------------


def test_body_buyer_takes_the_highest_body():
    market = [_car(0, 5, body=4, engine=7), _car(1, 9, body=5), _car(2, 1, body=2, workers=5)]
    assert _sales(market, ["body"]) == [0, 9, 0]


def test_body_buyer_counts_the_maybach_marker():
    """Body 3 + Maybach 2 = 5 beats a body 4."""
    market = [_car(0, 5, body=4), _car(1, 8, body=3, body_bonus=2)]
    assert _sales(market, ["body"]) == [0, 8, 0]


def test_body_buyer_maybach_tie_goes_to_the_lower_price():
    """Body 3 + Maybach 1 = 4 ties a body 4; the cheaper car is bought."""
    market = [_car(0, 5, body=4), _car(1, 8, body=3, body_bonus=1)]
    assert _sales(market, ["body"]) == [5, 0, 0]
    market = [_car(0, 9, body=4), _car(1, 8, body=3, body_bonus=1)]
    assert _sales(market, ["body"]) == [0, 8, 0]


def test_body_buyer_ignores_the_horch_marker():
    market = [_car(0, 5, body=3, engine=2, engine_bonus=2), _car(1, 9, body=4)]
    assert _sales(market, ["body"]) == [0, 9, 0]


def test_engine_buyer_takes_the_highest_engine():
    market = [_car(0, 2, body=7, engine=3, workers=6), _car(1, 9, engine=5), _car(2, 1, engine=4)]
    assert _sales(market, ["engine"]) == [0, 9, 0]


def test_engine_buyer_counts_the_horch_marker():
    """Engine 4 + Horch 2 = 6 beats an engine 5, even when dearer."""
    market = [_car(0, 3, engine=5), _car(1, 10, engine=4, engine_bonus=2)]
    assert _sales(market, ["engine"]) == [0, 10, 0]


def test_engine_buyer_ignores_the_maybach_marker():
    market = [_car(0, 3, engine=2, body_bonus=2), _car(1, 10, engine=3)]
    assert _sales(market, ["engine"]) == [0, 10, 0]


def test_prestige_buyer_takes_the_car_with_most_workers():
    market = [_car(0, 1, body=7, engine=7, workers=2), _car(1, 9, workers=4), _car(2, 3, workers=3)]
    assert _sales(market, ["prestige"]) == [0, 9, 0]


def test_prestige_tie_goes_to_the_lower_price():
    market = [_car(0, 10, workers=3), _car(1, 6, workers=3), _car(2, 9, workers=2)]
    assert _sales(market, ["prestige"]) == [0, 6, 0]


def test_price_buyer_takes_the_lowest_price_only_and_pays_twice():
    """The price buyer looks at nothing but the price."""
    market = [_car(0, 9, body=7, engine=7, workers=6), _car(1, 3), _car(2, 5)]
    assert _sales(market, ["price"]) == [0, 6, 0]


@pytest.mark.parametrize("pref", ["body", "engine", "prestige"])
def test_ties_go_to_the_lowest_price(pref):
    """Three cars equal in the buyer's preference: the cheapest one is bought."""
    market = [_car(0, 8, body=3, engine=3, workers=2), _car(1, 2, body=3, engine=3, workers=2),
              _car(2, 5, body=3, engine=3, workers=2)]
    assert _sales(market, [pref]) == [0, 2, 0]


# ---------------------------------------------------------------------------
# Order and one car per buyer
# ---------------------------------------------------------------------------


def test_buyers_buy_in_order_each_one_unsold_car():
    """Two body buyers: the first takes the best body, the second the best of the rest."""
    market = [_car(0, 5, body=2), _car(1, 9, body=6), _car(2, 1, body=4)]
    assert _sales(market, ["body", "body"]) == [0, 9, 1]


def test_the_order_of_the_active_buyers_matters():
    """A price buyer first takes the cheap best-body car; a body buyer first takes it instead."""
    market = [_car(0, 2, body=5), _car(1, 9, body=3)]
    assert _sales(market, ["price", "body"]) == [4, 9, 0]
    assert _sales(market, ["body", "price"]) == [2, 18, 0]


def test_a_seller_with_several_cars_is_paid_for_each():
    market = [_car(0, 5, body=4), _car(0, 8, engine=4), _car(1, 1)]
    assert _sales(market, ["body", "engine", "price"]) == [5 + 8, 2, 0]


def test_a_buyer_with_no_unsold_car_buys_nothing():
    """[decision] RULES.md §8: a buyer finding no unsold car buys nothing (and nothing fails)."""
    market = [_car(1, 5, body=2)]
    assert _sales(market, ["body", "engine", "price", "prestige"]) == [0, 5, 0]


def test_buyers_with_an_empty_market_buy_nothing():
    """[decision] RULES.md §8: no car at all — no money for anyone, the round still ends."""
    assert _sales([], ["body", "price", "engine"]) == [0, 0, 0]


def test_a_daimler_marker_on_a_buyer_that_buys_nothing_pays_nobody():
    """[decision] RULES.md §8: the buyer buys nothing, so its Daimler bonus goes to no one."""
    market = [_car(1, 5, body=2)]
    assert _sales(market, ["body", ("price", 4)]) == [0, 5, 0]


def test_unsold_cars_earn_nothing():
    market = [_car(0, 5, body=4), _car(1, 8, body=3), _car(2, 10, body=1)]
    assert _sales(market, ["body"]) == [5, 0, 0]


# ---------------------------------------------------------------------------
# Payment
# ---------------------------------------------------------------------------


def test_non_price_buyers_pay_the_price_once():
    market = [_car(0, 8, body=3), _car(1, 6, engine=3), _car(2, 9, workers=3)]
    assert _sales(market, ["body", "engine", "prestige"]) == [8, 6, 9]


def test_opel_sale_to_a_price_buyer_pays_three_times():
    market = [_car(0, 3), _car(1, 5)]
    seats = {0: {"engineers": ["Opel"]}}
    assert _sales(market, ["price", "price"], seats=seats) == [9, 10, 0]


def test_opel_does_not_change_a_sale_to_another_buyer():
    market = [_car(0, 3, body=4), _car(1, 5)]
    seats = {0: {"engineers": ["Opel"]}}
    assert _sales(market, ["body"], seats=seats) == [3, 0, 0]


def test_daimler_bonus_is_added_to_a_normal_sale():
    market = [_car(0, 8, body=4), _car(1, 5)]
    assert _sales(market, [("body", 2)]) == [8 + 2, 0, 0]


def test_daimler_bonus_is_added_once_not_doubled_by_a_price_buyer():
    market = [_car(0, 8), _car(1, 5)]
    assert _sales(market, [("price", 4)]) == [0, 2 * 5 + 4, 0]


def test_daimler_bonus_is_added_once_not_tripled_with_opel():
    market = [_car(0, 8), _car(1, 5)]
    seats = {1: {"engineers": ["Opel"]}}
    assert _sales(market, [("price", 2)], seats=seats) == [0, 3 * 5 + 2, 0]


def test_daimler_bonus_goes_to_the_seller_whoever_placed_it():
    """The marker belongs to the buyer tile: the seat that owns Daimler is not paid for it."""
    market = [_car(2, 6, engine=5), _car(1, 5)]
    seats = {0: {"engineers": ["Daimler"], "markers": {"daimler": [2]}}}
    assert _sales(market, [("engine", 4)], seats=seats) == [0, 0, 6 + 4]


# ---------------------------------------------------------------------------
# Benz's fifth buyer buys last
# ---------------------------------------------------------------------------


def _benz_state(market: list[dict], active: list) -> State:
    seats = {1: {"engineers": ["Benz"]}}
    st = state_from_json(_scoring(market, active, seats=seats), seed=3)
    assert st.pending() == "benz" and st.current_player() == 1
    return st


def test_benz_fifth_buyer_buys_after_the_four_active_buyers():
    market = [_car(0, 9, body=6), _car(1, 8, body=5), _car(2, 6, engine=5), _car(0, 10, workers=4),
              _car(2, 1)]
    st = _benz_state(market, ["body", "engine", "prestige", "price"])
    st.play("benz buyer body")
    assert reference(st).round == 2
    # body 9 -> seat 0, engine 6 -> seat 2, prestige 10 -> seat 0, price 1*2 -> seat 2,
    # then the fifth (body) buys the best body left: seat 1's body 5 for 8. Seat 1's
    # fifth buyer is the second body buyer: the Buyer award (3, RULES.md §9) is his too.
    assert st.money() == [9 + 10, 8 + 3, 6 + 2]


def test_benz_fifth_buyer_finds_nothing_when_the_market_is_sold_out():
    market = [_car(0, 9, body=6), _car(1, 8, engine=5)]
    st = _benz_state(market, ["body", "engine"])
    st.play("benz buyer price")
    assert st.money() == [9, 8, 0]


def test_benz_pass_adds_no_buyer():
    market = [_car(0, 9, body=6), _car(1, 8, body=5)]
    st = _benz_state(market, ["body"])
    st.play("benz pass")
    assert st.money() == [9, 0, 0]
    assert reference(st).seats[1].benz == 1
