"""Scoring that explains itself: who buys which car, and (later) the breakdown of every scoring."""

from __future__ import annotations

from .components import PREFERENCES


def choose_sales(market, active, active_daimler, has_opel, components) -> list[tuple[int, int, int, int]]:
    """The buyers' choices of RULES.md §8 over ``market`` (cars as the reference engine holds
    them: ``[owner, body, engine, workers, price, maybach, horch]``).

    Returns ``(buyer index, car index, multiplier, payment)`` for each buyer that buys, in
    buyer order. ``has_opel(seat)`` tells whether the seller owns Opel. The reference
    engine's sales task runs this very function, so the prospective sales shown on the
    board are the sales scoring will make (with the buyers active now).
    """
    sold = [False] * len(market)
    out = []
    for b, (p, bonus) in enumerate(zip(active, active_daimler)):
        best, best_key = -1, None
        for i, (_, body, engine, workers, price, bb, eb) in enumerate(market):
            if sold[i]:
                continue
            value = (body + bb, engine + eb, workers, 0)[p]
            key = (-value, price)  # ties: the lowest price (prices are unique)
            if best_key is None or key < best_key:
                best, best_key = i, key
        if best < 0:
            continue  # no unsold car: the buyer buys nothing [decision]
        sold[best] = True
        owner, price = market[best][0], market[best][4]
        mult = 1
        if PREFERENCES[p] == "price":
            mult = components.opel_multiplier if has_opel(owner) else components.price_buyer_multiplier
        out.append((b, best, mult, price * mult + bonus))
    return out


def prospective_sales(state) -> dict[int, tuple[int, int, int]]:
    """If scoring happened now (with the buyers active now, before any Benz fifth buyer):
    ``{market index: (buyer index, preference index, payment)}`` (either engine)."""
    from .engine import reference
    st = reference(state)
    sales = choose_sales(st.market, st.active, st.active_daimler, lambda s: st.seats[s].has("opel"),
                         st.game.components)
    return {car: (b, st.active[b], pay) for b, car, _, pay in sales}
