"""Plain-text rendering of a state for ``kwsearch show`` (and later ``play``)."""

from __future__ import annotations

from typing import Iterable

from .actions import ENGINE_CODE
from .components import AWARDS, ENGINEERS, PREFERENCES, SPECIALTY_STACKS
from .game import SEAT, SPECIAL
from .rules import State

#: The pending decision kinds (game.TASKS) in words, as menus and boards name them.
DECISION_TEXT = {
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
    "card_order": "take the body or the engine of the card first",
    "special_order": "do the specialty tile's standard action or its bonus first",
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

#: What each engineer does, in words (the legend of the board and of `kwsearch play`).
ENGINEER_TEXT = {
    "opel": "a price buyer pays 3x instead of 2x",
    "horch": "+1/+2 engine markers for cars put on the market",
    "benz": "once, a fifth buyer at the start of a scoring",
    "bugatti": "a new, higher GP engine races at once",
    "porsche": "every GP move goes 1 space further",
    "daimler": "+2/+4 markers on buyers, paid to their seller",
    "otto": "two workers to the canteen, then research again",
    "diesel": "two changes of an own car on the market",
    "maybach": "+1/+2 body markers for cars put on the market",
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
                what = f"development: points while active, {'an' if ct.tile == 'engine' else 'a'} {ct.tile} tile at once"
        elif ct.kind == "instant":
            what = {"hire": f"instant: up to {ct.amount} workers from the supply to the canteen",
                    "gp": f"instant: move the GP car {ct.amount} spaces",
                    "body_engine": "instant: one body and one engine by research points"}[ct.effect]
        else:
            what = "engineer: " + ENGINEER_TEXT.get(ct.engineer, "kept for the game")
        lines += wrap(f"{card_label(ct):<23} {ct.name:<16} {what}", line_width() - 2, " " * 8)
    return lines


def decision_text(state) -> str:
    """The pending decision in words ("take an action tile"), or "game over"."""
    if state.is_terminal():
        return "game over"
    kind = state.pending()
    return DECISION_TEXT.get(kind, kind)


WIDTH = 100  # every line of the text board fits this many columns (at most; see line_width)


def line_width() -> int:
    """The columns the terminal output may use: the ``COLUMNS`` environment variable when set,
    else the terminal's width when standard output is a terminal, else 100; at most 100 (the
    widest layout) and at least 60."""
    import os
    import sys
    cols = None
    env = os.environ.get("COLUMNS", "").strip()
    if env.isdigit() and int(env) > 0:
        cols = int(env)
    else:
        try:
            if sys.stdout is not None and sys.stdout.isatty():
                cols = os.get_terminal_size(sys.stdout.fileno()).columns
        except (OSError, ValueError, AttributeError):
            cols = None
    return max(60, min(WIDTH, cols or WIDTH))


def wrap_phrases(text: str, width: int | None = None, indent: str = "    ") -> list[str]:
    """Wrap ``text`` to ``width`` columns (default :func:`line_width`) at spaces, never inside a
    word or number, preferring to break after a ", " or "; " (so that a plan step such as "market
    price 2" stays whole) when that keeps the line at least 60% full. Continuation lines get
    ``indent``."""
    width = width or line_width()
    lead = text[:len(text) - len(text.lstrip(" "))]
    lines, cur = [], lead
    for word in text.lstrip(" ").split(" "):
        if cur.strip() and len(cur) + 1 + len(word) > width:
            cut = max(cur.rfind(", "), cur.rfind("; "))
            if cut >= 0.6 * width and cur[:cut + 1].strip():
                lines.append(cur[:cut + 1])
                cur = indent + cur[cut + 2:] + " " + word
            else:
                lines.append(cur)
                cur = indent + word
        else:
            cur = f"{cur} {word}" if cur.strip() else cur + word
    lines.append(cur)
    # a word longer than a line (a long file path) is the one thing cut, at the line's end
    out = []
    for line in lines:
        while len(line) > width:
            out.append(line[:width])
            line = indent + line[width:]
        out.append(line)
    return out


def option_table(head: tuple[str, ...], rows: list[tuple[str, ...]], width: int | None = None,
                 plan: int = 1, optional: tuple[str, ...] = ("money 95%", "avail", "visits")) -> list[str]:
    """The suggest table within ``width`` columns (default :func:`line_width`): one table when it
    fits; otherwise the numbers in a table and each option's plan (column ``plan``) on the lines
    under its row, wrapped between steps with a hanging indent. When the numbers alone are too wide,
    the ``optional`` columns go, in that order."""
    width = width or line_width()
    lines = table(head, rows, left={0, plan})
    if max(map(len, lines)) <= width:
        return lines
    keep = [i for i in range(len(head)) if i != plan]
    for name in (None, *optional):
        if name in head:
            keep = [i for i in keep if head[i] != name]
        numbers = table([head[i] for i in keep], [tuple(r[i] for i in keep) for r in rows], left={0})
        if max(map(len, numbers)) <= width:
            break
    out = [numbers[0], f"   {head[plan]}"]
    for r, line in zip(rows, numbers[1:]):
        out.append(line)
        out += wrap_phrases("   " + r[plan], width, "      ")
    return out


def wrap(text: str, width: int | None = None, indent: str = "    ", sep: str = " ") -> list[str]:
    """Wrap one line of text to ``width`` columns (default :func:`line_width`) at ``sep`` (a space,
    or " | " between options so that an option is never split, nor a number); continuation lines
    get ``indent``."""
    width = width or line_width()
    lead = text[:len(text) - len(text.lstrip(" "))]
    lines, cur = [], lead
    for word in text.lstrip(" ").split(sep):
        if cur.strip() and len(cur) + len(sep) + len(word) > width:
            lines.append(cur.rstrip())
            cur = indent + word
        else:
            cur = f"{cur}{sep}{word}" if cur.strip() else cur + word
    lines.append(cur)
    return lines


_BOT_NAMES = {"random": "Random", "heuristic": "Heuristic", "ismcts": "ISMCTS", "pimc": "PIMC",
              "cheat": "Cheat", "openspiel-ismcts": "OS-ISMCTS", "openspiel-mcts": "OS-MCTS"}


def seat_names(specs: list[str], names: list[str] | None = None) -> list[str]:
    """Display names of the seats: the given ``names``; otherwise P1, P2, ... for humans and a
    short bot name ("ISMCTS", not "ismcts:seconds=2,c=0.5"), numbered when two bots share it."""
    if names:
        return list(names)
    out = []
    for i, spec in enumerate(specs):
        if spec == "human":
            out.append(f"P{i + 1}")
        else:
            out.append(_BOT_NAMES.get(spec.split(":", 1)[0].strip().lower(), spec[:12]))
    return [f"{nm} {i + 1}" if out.count(nm) > 1 else nm for i, nm in enumerate(out)]


def tile_label(c, entry: int) -> str:
    """A chain entry as a player reads it: "tile 8 (body+engine)", "special A3 (research; ...)"."""
    if entry >= SPECIAL:
        t = c.specialty_tiles[entry - SPECIAL]
        return f"special {t.name} ({t.action}; {bonus_text(t)})"
    return f"tile {entry} ({'+'.join(c.action_tiles[entry].actions)})"


def menu_label(state, action: int) -> str:
    """The text of a menu option: the notation, with a tile's actions and a card's plain name
    ("tile 8 (body+engine)", "take Engine +1 & engine tile (dev:engine1+tile)")."""
    from . import actions as A
    st = state
    c = st.game.components
    text = st.action_to_text(action)
    if A.TILE <= action < A.DO:
        return tile_label(c, action - A.TILE)
    if A.SPECIAL_TILE <= action < A.SELL_PASS:
        return "tile " + tile_label(c, SPECIAL + action - A.SPECIAL_TILE)
    if A.RESEARCH <= action < A.GIVEUP:
        return "take " + _card_with_name(c.card_types[action - A.RESEARCH])
    if A.ACTIVATE <= action < A.SPECIAL_TILE:
        return "activate " + _card_with_name(c.card_types[action - A.ACTIVATE])
    if A.START <= action < A.TILE:
        t = c.start_tiles[action - A.START]
        return f"{text} ({'+'.join(t.actions)})"
    return text


def card_name(ct) -> str:
    """A research card's one display name, used by menus, hints, boards and accounts alike: its
    plain name with its notation name when that differs ("Grand Prix 5 (gp5)", "Opel")."""
    plain = card_label(ct)
    return plain if plain.lower() == ct.name.lower() else f"{plain} ({ct.name})"


_card_with_name = card_name


def render(state: State, seat_names: list[str] | None = None) -> str:
    """A readable board (either engine), every line within :func:`line_width` (at most 100
    columns): the pending decision, chain, research, buyers, market (with who would buy each car if
    scoring happened now), race, mats, money, awards. Cards go by :func:`card_name`."""
    from .engine import reference
    from .scoring import AWARD_LABEL, prospective_sales
    state = reference(state)
    g = state.game
    c = g.components
    n = g.num_players
    names = seat_names if seat_names and len(seat_names) == n else [f"P{i + 1}" for i in range(n)]
    who = [f"{names[i]} (seat {i})" for i in range(n)]
    cards = [card_name(ct) for ct in c.card_types]
    out: list[str] = []
    width = line_width()

    def add(text: str, indent: str = "    ", sep: str = " ") -> None:
        out.extend(wrap(text, width, indent, sep))

    add(f"Kraftwagen, {n} players{' (V6 specialty tiles)' if g.v6 else ''} — round {state.round} "
        f"of {c.rounds}, {state.phase} phase")
    if state.is_terminal():
        money = state.money()
        best = max(money)
        win = ", ".join(who[i] for i in range(n) if money[i] == best)
        add(f"Game over. Winner: {win} with {best}.")
    else:
        kind = state.pending()
        add(f"To decide: {who[state.current_player()]} — {DECISION_TEXT.get(kind, kind)}")
        if state.turn_seat >= 0 and state.remaining:
            add(f"  actions of the tile still to do: {', '.join(state.remaining)}")
        if state.car:
            parts = ["body", "engine", "workers", "price"]
            add("  car being built: " + ", ".join(f"{p} {v}" for p, v in zip(parts, state.car)))
        add("  options: " + " | ".join(menu_label(state, a) for a in state.legal_actions()), sep=" | ")
    out.append("")
    chain = []
    for e in state.chain:
        chain.append(f"[{names[e - SEAT]}]" if SEAT <= e < SPECIAL else tile_label(c, e))
    out.append("Action track, tail (next to move) first:")
    add("  " + "  ".join(chain), sep="  ")
    if g.v6:
        sp = c.specialty_tiles
        stacks = []
        for r, (undrawn, used) in enumerate(zip(state.spec_undrawn, state.spec_used)):
            stacks.append(f"{SPECIALTY_STACKS[r]} {len(undrawn)} face down"
                          + (f", used {' '.join(sp[t].name for t in used)}" if used else ""))
        add("Specialty stacks: " + "; ".join(stacks))
    out.append("")
    disp = ", ".join(cards[t] for t in state.display) or "(none)"
    add(f"Research: face up {disp}; {len(state.deck)} undrawn, {len(state.discard)} discarded"
        + (f" (top discard {cards[state.discard[-1]]})" if state.discard else ""))
    active = []
    for i, (p, d) in enumerate(zip(state.active, state.active_daimler)):
        active.append(f"{i + 1}. {PREFERENCES[p]}" + (f" (+{d} Daimler)" if d else ""))
    add(f"Buyers: active {', '.join(active) or '(none)'}; track marker on {state.track}")
    add("  stacks: " + ", ".join(f"{p} {state.stacks[i]} (white {state.white[i]})"
                                 for i, p in enumerate(PREFERENCES)))
    add(f"Market ({len(state.market)}/{g.market_size} cars), price markers left: "
        + (" ".join(map(str, state.prices)) or "(none)"))
    buys = prospective_sales(state)
    for k, (owner, body, engine, workers, price, bb, eb) in enumerate(state.market):
        extra = (f" +{bb} Maybach" if bb else "") + (f" +{eb} Horch" if eb else "")
        sale = buys.get(k)
        now = (f" — scoring now: buyer {sale[0] + 1} ({PREFERENCES[sale[1]]}) pays {sale[2]}" if sale
               else " — scoring now: unsold")
        add(f"  {names[owner]}: body {body}, engine {engine}, {_workers(workers)}, price {price}{extra}{now}")
    race = []
    for i, s in enumerate(state.seats):
        race.append(f"{names[i]} " + (f"lap {s.laps} space {s.space}" if s.space else "pit"))
    race += [f"neutral space {sp}" for sp in g.neutral_cars]
    add(f"Grand Prix ({c.gp_lap_length} spaces a lap): " + "; ".join(race))
    add(f"Supply: bodies {state.supply_body}, engines {state.supply_engine} (values 1..7)")
    out.append("")
    for i, s in enumerate(state.seats):
        body, engine = state.research_points(i)
        engs = [e for k, e in enumerate(ENGINEERS) if s.engineers >> k & 1]
        owned_awards = [a for k, a in enumerate(AWARDS) if state.awards[k] == i]
        start = c.start_tiles[s.start_tile].name if s.start_tile >= 0 else "-"
        add(f"{who[i]}: money {s.money}; workers canteen {s.canteen}, supply {s.supply}; "
            f"research body {body} engine {engine}; start tile {start}")
        add(f"  workshops [{' '.join(_tile(w) for w in s.workshops) or 'empty'}], GP engine {s.gp_engine}"
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
            add(f"  engineers {', '.join(engs) or '-'}"
                + (f" (markers: {', '.join(markers)})" if markers else "")
                + f"; awards {', '.join(AWARD_LABEL.get(a, a) for a in owned_awards) or '-'}")
    free = [a for k, a in enumerate(AWARDS) if state.awards[k] < 0]
    out.append("")
    add(f"Awards still free: {', '.join(AWARD_LABEL.get(a, a) for a in free) or '(none)'}")
    return "\n".join(out)


def step_account(before, after, action: int, name: str) -> str:
    """One line saying what a decision did, from the states before and after it (either engine):
    "Ann takes tile 8 (body+engine): body 3 -> workshop, engine 2 -> GP car"."""
    from .engine import reference
    from .scoring import AWARD_LABEL
    b, a = reference(before), reference(after)
    c = b.game.components
    seat = b.current_player()
    label = menu_label(b, action)
    if label.startswith(("tile ", "start ")):
        verb = "takes " + label
    elif label.startswith("take "):
        verb = "takes " + label[len("take "):]
    else:
        verb = "chooses " + label
    if seat < 0:
        return f"{name}: {verb}"
    sb, sa = b.seats[seat], a.seats[seat]
    parts: list[str] = []
    market_added = [car for car in a.market if car[0] == seat and car not in b.market]
    gone = list(sb.workshops)
    for w in sa.workshops:
        if w in gone:
            gone.remove(w)
        else:
            parts.append(f"{_long_tile(w)} -> workshop")
    for car in market_added:
        extra = (f" +{car[5]} Maybach" if car[5] else "") + (f" +{car[6]} Horch" if car[6] else "")
        parts.append(f"car to the market (body {car[1]}, engine {car[2]}, {_workers(car[3])}, "
                     f"price {car[4]}{extra})")
    if a.car:  # parts of the car being built leave the workshops
        body_engine = [a.car[0]] + ([ENGINE_CODE + a.car[1]] if len(a.car) > 1 else [])
        for code in body_engine:
            if code in gone:
                gone.remove(code)
        words = ("body", "engine", "workers", "price")
        parts.append("car being built: " + ", ".join(f"{w} {v}" for w, v in zip(words, a.car)))
    for w in gone:
        parts.append(f"{_long_tile(w)} out of the workshop")
    if sa.gp_engine != sb.gp_engine:
        parts.append(f"engine {sa.gp_engine} -> GP car")
    if (sa.laps, sa.space) != (sb.laps, sb.space) and a.round == b.round:
        parts.append(f"GP car to lap {sa.laps} space {sa.space}")
    hired = (sb.supply - sa.supply)
    if hired > 0:
        parts.append(f"{hired} worker{'s' if hired != 1 else ''} from the supply")
    for t in sorted(set(sa.dev_active + sa.dev_inactive) - set(sb.dev_active + sb.dev_inactive)) or []:
        state = " (inactive)" if t in sa.dev_inactive else ""
        parts.append(f"{card_name(c.card_types[t])}{state}")
    new_eng = sa.engineers & ~sb.engineers
    for k, e in enumerate(ENGINEERS):
        if new_eng >> k & 1:
            parts.append(f"engineer {e.capitalize()}")
    if len(a.active) > len(b.active) and a.round == b.round:
        parts.append(f"buyer {PREFERENCES[a.active[-1]]} on space {len(a.active)}")
    if a.track < b.track and a.round == b.round:
        parts.append(f"buyer track -> {a.track}")
    for k, award in enumerate(AWARDS):
        if a.awards[k] == seat and b.awards[k] != seat:
            parts.append(f"{AWARD_LABEL.get(award, award)} award")
    if a.round == b.round and not a.is_terminal():
        money = sa.money - sb.money
        if money:
            parts.append(f"money {money:+d}")
    parts = [p for p in parts if p not in label and p.replace("engineer ", "") not in label]  # said already
    if a.round != b.round or (a.is_terminal() and not b.is_terminal()):
        parts.append("the action phase ends: scoring")
    return f"{name} {verb}" + (": " + ", ".join(parts) if parts else "")


def _workers(n: int) -> str:
    return f"{n} worker{'s' if n != 1 else ''}"


def _long_tile(code: int) -> str:
    return f"engine {code - ENGINE_CODE}" if code > ENGINE_CODE else f"body {code}"


def table(head: Iterable[str], rows: list[tuple[str, ...]], left: set[int]) -> list[str]:
    """Lines of a plain-text table: columns two spaces apart, those in ``left`` left-aligned,
    the others right-aligned."""
    head = tuple(head)
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]
    fmt = "  ".join(f"{{:{'<' if i in left else '>'}{w}}}" for i, w in enumerate(widths))
    return [fmt.format(*head).rstrip(), *(fmt.format(*r).rstrip() for r in rows)]
