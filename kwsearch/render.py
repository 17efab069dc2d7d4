"""Plain-text rendering of a state for ``kwsearch show`` (and later ``play``)."""

from __future__ import annotations

from typing import Iterable

from .actions import ENGINE_CODE
from .components import AWARDS, ENGINEERS, PREFERENCES, SPECIALTY_STACKS
from .rules import SEAT, SPECIAL, State

_DECISION = {
    "setup": "choose a start tile",
    "turn": "take an action tile",
    "tile": "choose which action of the tile comes next",
    "research": "take a face-up research card",
    "engine_dest": "put the new engine in a workshop or the GP car",
    "place": "give up a workshop tile to make room",
    "buyer": "take a buyer",
    "market": "move a car to the market, or pass",
    "market_engine": "choose the car's engine",
    "market_workers": "choose the car's service team",
    "market_price": "choose the car's price marker",
    "market_marker": "put an engineer marker on the car, or none",
    "daimler": "place a Daimler marker, or pass",
    "diesel": "use a Diesel change, or pass",
    "diesel_change": "choose what Diesel changes",
    "benz": "add Benz's fifth buyer, or pass",
    "hire": "choose which inactive development the new worker activates",
    "sell": "sell a workshop tile for its value, or pass (specialty bonus)",
    "remove": "remove an own car from the market, or pass (specialty bonus)",
}


def bonus_text(t) -> str:
    """A specialty tile's bonus in words (RULES.md §11)."""
    return {
        "engine": f"engine {t.value} regardless of research",
        "body": f"body {t.value} regardless of research",
        "gp_engine": "GP engine +1",
        "canteen_money": f"{t.value} money per canteen worker",
        "remove_car": f"remove own car for {t.value}",
        "sell_tile": "sell a workshop tile",
        "research_discard": "research the top discard",
    }[t.bonus]


def short_tile(code: int) -> str:
    """A workshop tile in two characters: ``B3`` (body 3), ``E4`` (engine 4)."""
    return f"E{code - ENGINE_CODE}" if code > ENGINE_CODE else f"B{code}"


_tile = short_tile

_ENGINEER_TEXT = {
    "opel": "a price buyer pays 3x instead of 2x",
    "horch": "markers +1/+2 engine for cars moved to the market",
    "benz": "once, a fifth buyer at the start of a scoring",
    "bugatti": "a new, higher GP engine races at once",
    "porsche": "every GP move goes 1 space further",
    "daimler": "markers +2/+4 on an active buyer: its seller gets that much more",
    "otto": "up to two workers to the canteen, then another research",
    "diesel": "two changes of an own car on the market",
    "maybach": "markers +1/+2 body for cars moved to the market",
}


def card_label(ct) -> str:
    """A research card's plain name: "Body +1 & body tile", "Hire 3 workers", "Opel".

    Built from the card's data (not its id), so a component file's cards get
    sensible names too; ``card_legend`` explains each one.
    """
    if ct.kind == "development":
        parts = [f"{k.capitalize() if not i else k} +{v}"
                 for i, (k, v) in enumerate((k, v) for k, v in (("body", ct.body), ("engine", ct.engine)) if v)]
        text = " ".join(parts) if parts else "Development"
        if ct.tile:
            text += f" & {ct.tile} tile"
        return text
    if ct.kind == "instant":
        if ct.effect == "hire":
            return f"Hire {ct.amount} workers"
        if ct.effect == "gp":
            return f"Grand Prix {ct.amount}"
        return "Body & engine"
    return (ct.engineer or ct.name).capitalize()


def card_legend(components) -> list[str]:
    """One line per research-card type: its plain name, its notation name and what it does."""
    lines = []
    for ct in components.card_types:
        if ct.kind == "development":
            what = "development: research points while active"
            if ct.tile:
                what += f", and {'an' if ct.tile == 'engine' else 'a'} {ct.tile} tile at once"
        elif ct.kind == "instant":
            what = {"hire": f"instant: up to {ct.amount} workers from the supply to the canteen",
                    "gp": f"instant: move the GP car {ct.amount} spaces",
                    "body_engine": "instant: one body and one engine by research points"}[ct.effect]
        else:
            what = "engineer: " + _ENGINEER_TEXT.get(ct.engineer, "kept for the game")
        lines.append(f"{card_label(ct):<24} {ct.name:<18} {what}")
    return lines


def decision_text(state) -> str:
    """The pending decision in words ("take an action tile"), or "game over"."""
    if state.is_terminal():
        return "game over"
    kind = state.pending()
    return _DECISION.get(kind, kind)


def render(state: State, seat_names: list[str] | None = None) -> str:
    """A readable board: chain, research, buyers, market, race, mats, money, awards (either engine)."""
    from .engine import reference
    state = reference(state)
    g = state.game
    c = g.components
    n = g.num_players
    names = seat_names if seat_names and len(seat_names) == n else [f"P{i + 1}" for i in range(n)]
    who = [f"seat {i} ({names[i]})" for i in range(n)]
    cards = [ct.name for ct in c.card_types]
    out: list[str] = []
    out.append(f"Kraftwagen, {n} players{' (V6 specialty tiles)' if g.v6 else ''} — round {state.round} "
               f"of {c.rounds}, {state.phase} phase")
    if state.is_terminal():
        money = state.money()
        best = max(money)
        win = ", ".join(who[i] for i in range(n) if money[i] == best)
        out.append(f"Game over. Winner: {win} with {best}.")
    else:
        kind = state.pending()
        out.append(f"To decide: {who[state.current_player()]} — {_DECISION.get(kind, kind)}")
        if state.turn_seat >= 0 and state.remaining:
            out.append(f"  actions of the tile still to do: {', '.join(state.remaining)}")
        if state.car:
            parts = ["body", "engine", "workers", "price"]
            out.append("  car being built: " + ", ".join(f"{p} {v}" for p, v in zip(parts, state.car)))
        out.append("  options: " + " | ".join(state.action_to_text(a) for a in state.legal_actions()))
    out.append("")
    chain = []
    for e in state.chain:
        if e >= SPECIAL:
            t = c.specialty_tiles[e - SPECIAL]
            chain.append(f"special {t.name} ({t.action}; {bonus_text(t)})")
        elif e >= SEAT:
            chain.append(f"[{names[e - SEAT]}]")
        else:
            chain.append(f"tile {e} ({'+'.join(c.action_tiles[e].actions)})")
    out.append("Action track, tail (next to move) first:")
    out.append("  " + "  ".join(chain))
    if g.v6:
        sp = c.specialty_tiles
        stacks = []
        for r, (undrawn, used) in enumerate(zip(state.spec_undrawn, state.spec_used)):
            stacks.append(f"{SPECIALTY_STACKS[r]} {len(undrawn)} face down"
                          + (f", used {' '.join(sp[t].name for t in used)}" if used else ""))
        out.append("Specialty stacks: " + "; ".join(stacks))
    out.append("")
    disp = ", ".join(cards[t] for t in state.display) or "(none)"
    out.append(f"Research: face up {disp}; {len(state.deck)} undrawn, {len(state.discard)} discarded"
               + (f" (top discard {cards[state.discard[-1]]})" if state.discard else ""))
    active = []
    for i, (p, d) in enumerate(zip(state.active, state.active_daimler)):
        active.append(f"{i + 1}. {PREFERENCES[p]}" + (f" (+{d} Daimler)" if d else ""))
    out.append(f"Buyers: active {', '.join(active) or '(none)'}; track marker on {state.track}")
    out.append("  stacks: " + ", ".join(f"{p} {state.stacks[i]} (white {state.white[i]})"
                                        for i, p in enumerate(PREFERENCES)))
    out.append(f"Market ({len(state.market)}/{g.market_size} cars), price markers left: "
               + (" ".join(map(str, state.prices)) or "(none)"))
    for owner, body, engine, workers, price, bb, eb in state.market:
        extra = (f" +{bb} Maybach" if bb else "") + (f" +{eb} Horch" if eb else "")
        out.append(f"  {names[owner]}: body {body}, engine {engine}, {workers} workers, price {price}{extra}")
    race = []
    for i, s in enumerate(state.seats):
        race.append(f"{names[i]} " + (f"lap {s.laps} space {s.space}" if s.space else "pit"))
    race += [f"neutral space {sp}" for sp in g.neutral_cars]
    out.append(f"Grand Prix ({c.gp_lap_length} spaces a lap): " + "; ".join(race))
    out.append(f"Supply: bodies {state.supply_body}, engines {state.supply_engine} (values 1..7)")
    out.append("")
    for i, s in enumerate(state.seats):
        body, engine = state.research_points(i)
        engs = [e for k, e in enumerate(ENGINEERS) if s.engineers >> k & 1]
        owned_awards = [a for k, a in enumerate(AWARDS) if state.awards[k] == i]
        start = c.start_tiles[s.start_tile].name if s.start_tile >= 0 else "-"
        out.append(f"{who[i]}: money {s.money}; workers canteen {s.canteen}, supply {s.supply}; "
                   f"research body {body} engine {engine}; start tile {start}")
        out.append(f"  workshops [{' '.join(_tile(w) for w in s.workshops) or 'empty'}], GP engine {s.gp_engine}"
                   + (f"; developments {', '.join(cards[t] for t in s.dev_active)}" if s.dev_active else "")
                   + (f"; inactive {', '.join(cards[t] for t in s.dev_inactive)}" if s.dev_inactive else ""))
        if engs or owned_awards:
            markers = []
            if s.maybach:
                markers.append("Maybach " + "/".join(f"+{v}" for v in s.maybach))
            if s.horch:
                markers.append("Horch " + "/".join(f"+{v}" for v in s.horch))
            if s.daimler:
                markers.append("Daimler " + "/".join(f"+{v}" for v in s.daimler))
            if s.diesel:
                markers.append(f"Diesel {s.diesel} change(s)")
            if s.benz:
                markers.append("Benz fifth buyer")
            out.append(f"  engineers {', '.join(engs) or '-'}"
                       + (f" (markers: {', '.join(markers)})" if markers else "")
                       + f"; awards {', '.join(owned_awards) or '-'}")
    free = [a for k, a in enumerate(AWARDS) if state.awards[k] < 0]
    out.append("")
    out.append(f"Awards still free: {', '.join(free) or '(none)'}")
    return "\n".join(out)


def table(head: Iterable[str], rows: list[tuple[str, ...]], left: set[int]) -> list[str]:
    """Lines of a plain-text table: columns two spaces apart, those in ``left`` left-aligned,
    the others right-aligned."""
    head = tuple(head)
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]
    fmt = "  ".join(f"{{:{'<' if i in left else '>'}{w}}}" for i, w in enumerate(widths))
    return [fmt.format(*head).rstrip(), *(fmt.format(*r).rstrip() for r in rows)]
