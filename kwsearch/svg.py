"""An SVG picture of the board, like python-chess's ``chess.svg``: pure functions, no I/O.

    >>> from kwsearch.game import Game
    >>> from kwsearch.svg import board_svg
    >>> picture = board_svg(Game(3).new_initial_state(seed=1), seat_names=["Ann", "Bob", "Cy"])
    >>> picture.startswith("<svg")
    True

:func:`board_svg` draws a state of either engine, :func:`position_svg` a
``kwsearch-position/1`` object (or a state). The picture is one standalone
``<svg>`` document (no scripts, no external fonts or images), readable at its
natural width of 1200 user units:

* a header with the round, the phase, whose turn it is and the pending decision;
* the action track (the chain), tail first: tiles with their actions as short
  labels, workers as discs in their seat's colour, V6 specialty tiles with their
  bonus;
* the research display by the cards' plain names, the deck and discard counts;
* the buyers: active spaces (preference, Daimler marker), stacks with their white
  markers, the buyer track, the coloured price markers left;
* the market: each car in its owner's colour with body, engine, workers, price and
  engineer markers, and which active buyer would buy it if scoring happened now;
  the car being built this turn dashed, its parts not yet chosen marked "?";
* the Grand-Prix track with the cars (laps written on them) and the pit lane;
* one mat per seat: money, research points, workers, workshops, GP engine,
  developments (inactive ones marked), engineers with their markers, awards.

Nothing hidden is drawn: the deck order never appears (only counts). The
``perspective`` seat's mat comes first and is marked "you".
"""

from __future__ import annotations

from typing import Any
from xml.sax.saxutils import escape

from .actions import ENGINE_CODE
from .components import AWARDS, ENGINEERS, PREFERENCES, SPECIALTY_STACKS
from .formats import position_to_state

__all__ = ["board_svg", "position_svg", "SEAT_COLOURS"]

#: Seat colours (colour-blind-safe Okabe-Ito hues), and a darker shade for text on light ground.
SEAT_COLOURS = ("#d55e00", "#0072b2", "#009e73", "#cc79a7")
_LIGHT = ("#fbe3d3", "#d4e8f5", "#d0efe5", "#f6e1ee")
_NEUTRAL = "#8c8c8c"

WIDTH = 1200

_ACTION_LABEL = {"hire": "Hire", "body": "Body", "engine": "Engine", "gp": "GP", "research": "Research",
                 "buyer": "Buyer", "gp_engine2": "GP eng 2", "gp_start2": "GP start 2"}
_ACTION_COLOUR = {"hire": "#f2d7a6", "body": "#c9dcf0", "engine": "#f3c6c6", "gp": "#d8d8d8",
                  "research": "#d9ecc9", "buyer": "#e6d6ef"}
_PREF_LABEL = {"body": "body", "engine": "engine", "prestige": "prestige", "price": "price"}
_AWARD_LABEL = {"gp1": "GP 1 lap", "gp2": "GP 2 laps", "buyer": "Buyer", "market": "Market",
                "body3": "Body 3", "body6": "Body 6", "engine4": "Engine 4", "engine7": "Engine 7",
                "worker": "Worker", "engineers": "Engineers"}


def _t(x: float, y: float, text: str, size: int = 13, anchor: str = "start", weight: str = "normal",
       fill: str = "#222") -> str:
    return (f'<text x="{x:g}" y="{y:g}" font-size="{size}" text-anchor="{anchor}" font-weight="{weight}" '
            f'fill="{fill}">{escape(str(text))}</text>')


def _rect(x: float, y: float, w: float, h: float, fill: str, stroke: str = "#555", rx: float = 4,
          width: float = 1, kw: str = "", nxt: bool = False) -> str:
    # ``kw``: a ``data-kw`` key naming the place (tile-8, special-A1, research-gp5, buyer-0, market-2) that
    # the web page's plan overlay finds; ``nxt``: the next buyer space / market space a seat would take
    tag = (f' data-kw="{escape(kw)}"' if kw else "") + (' data-next="1"' if nxt else "")
    return (f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" rx="{rx:g}" fill="{fill}" '
            f'stroke="{stroke}" stroke-width="{width:g}"{tag}/>')


def _disc(x: float, y: float, r: float, fill: str, label: str = "", size: int = 12) -> str:
    out = f'<circle cx="{x:g}" cy="{y:g}" r="{r:g}" fill="{fill}" stroke="#222" stroke-width="1"/>'
    if label:
        out += _t(x, y + size * 0.36, label, size, "middle", "bold", "#fff")
    return out


def _section(x: float, y: float, title: str) -> str:
    return _t(x, y, title, 15, "start", "bold", "#333")


def position_svg(obj: Any, *, seat_names: list[str] | None = None, perspective: int | None = None,
                 size: int | None = None) -> str:
    """:func:`board_svg` of a ``kwsearch-position/1`` object (a dict), or of a state.

    Raises :class:`~kwsearch.errors.InvalidPositionError` for an invalid position.
    """
    if isinstance(obj, dict):
        obj = position_to_state(obj)
    return board_svg(obj, seat_names=seat_names, perspective=perspective, size=size)


def board_svg(state, *, seat_names: list[str] | None = None, perspective: int | None = None,
              size: int | None = None) -> str:
    """The board of ``state`` (either engine) as a standalone SVG document string.

    ``seat_names`` names the seats (default P1, P2, ...); ``perspective`` is the
    seat at the screen (its mat is drawn first and marked); ``size`` is the
    picture's width in pixels (default 1200; the drawing scales).
    """
    from .engine import reference
    st = reference(state)
    n = st.game.num_players
    names = list(seat_names) if seat_names and len(seat_names) == n else [f"P{i + 1}" for i in range(n)]
    initials = [nm[:2] for nm in names]
    # Each part of the picture appends its elements to ``body`` from the height ``y`` down and
    # returns the height below it.
    body: list[str] = []
    y = _draw_header(body, st, names, initials)
    y = _draw_chain(body, st, y, names, initials) + 14
    bottom = max(_draw_research(body, st, y), _draw_buyers(body, st, y))
    _draw_prices(body, st, y)
    y = _draw_market(body, st, bottom + 16, names, initials)
    y = _draw_grand_prix(body, st, y, initials)
    y = _draw_mats(body, st, y, names, initials, perspective)
    height = _draw_footer(body, st, y)
    width_px = size or WIDTH
    height_px = round(height * width_px / WIDTH)
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width_px}" height="{height_px}" '
            f'viewBox="0 0 {WIDTH} {height}" font-family="DejaVu Sans, Verdana, Arial, sans-serif">')
    money = "; ".join(f"{names[i]} {s.money}" for i, s in enumerate(st.seats))
    desc = f"<title>Kraftwagen round {st.round}: money {escape(money)}</title>"
    return head + desc + _rect(0, 0, WIDTH, height, "#ffffff", "none", 0) + "".join(body) + "</svg>\n"


def _draw_header(body: list[str], st, names: list[str], initials: list[str]) -> float:
    """The header: the game, the round and phase, and the decision pending (or the winner)."""
    from .render import decision_text
    g = st.game
    n = g.num_players
    body.append(_rect(0, 0, WIDTH, 58, "#2f3b4c", "#2f3b4c", 0))
    title = (f"Kraftwagen · {n} players{' · V6' if g.v6 else ''} · round {st.round} of {g.components.rounds}"
             f" · {st.phase} phase")
    body.append(_t(16, 24, title, 18, weight="bold", fill="#fff"))
    if st.is_terminal():
        money = st.money()
        best = max(money)
        winners = ", ".join(names[i] for i in range(n) if money[i] == best)
        body.append(_t(16, 47, f"Game over — winner: {winners} with {best}", 15, fill="#ffe08a"))
    else:
        actor = st.current_player()
        line = f"To decide: {names[actor]} — {decision_text(st)}"
        body.append(_disc(WIDTH - 30, 29, 14, SEAT_COLOURS[actor], initials[actor]))
        opts = [st.action_to_text(a) for a in st.legal_actions()]
        body.append(_t(16, 47, line, 15, fill="#ffe08a"))
        shown = " | ".join(opts)
        if len(shown) > 60:
            shown = shown[:57] + "…"
        body.append(_t(WIDTH - 52, 47, "options: " + shown, 12, "end", fill="#dfe6ee"))
    return 80


def _draw_chain(body: list[str], st, y: float, names: list[str], initials: list[str]) -> float:
    """The action track (the chain), tail first, and in V6 the specialty stacks."""
    c = st.game.components
    body.append(_section(16, y, "Action track — tail (moves next) on the left, front on the right"))
    y += 10
    entries = st.chain
    gap = 6
    box = min(76, (WIDTH - 32 - gap * (len(entries) - 1)) / max(1, len(entries)))
    x = 16
    for e in entries:
        if e >= 32:  # specialty tile (V6)
            t = c.specialty_tiles[e - 32]
            body.append(_rect(x, y, box, 64, "#fff4c2", "#b08900", 6, 2, kw=f"special-{t.name}"))
            body.append(_t(x + box / 2, y + 15, f"special {t.name}", 11, "middle", "bold"))
            body.append(_t(x + box / 2, y + 31, _ACTION_LABEL[t.action], 11, "middle"))
            for k, part in enumerate(_bonus_lines(t)):
                body.append(_t(x + box / 2, y + 45 + 12 * k, part, 10, "middle", fill="#6b5600"))
        elif e >= 16:  # a worker
            s = e - 16
            body.append(_rect(x, y, box, 64, "#fafafa", "#bbb", 6))
            body.append(_disc(x + box / 2, y + 26, 17, SEAT_COLOURS[s], initials[s], 13))
            body.append(_t(x + box / 2, y + 58, names[s][:9], 11, "middle", fill=SEAT_COLOURS[s]))
        else:
            acts = c.action_tiles[e].actions
            body.append(_rect(x, y, box, 64, "#fff", "#555", 6, kw=f"tile-{e}"))
            body.append(_t(x + 5, y + 13, f"tile {e}", 10, fill="#777"))
            h = 44 / len(acts)
            for k, a in enumerate(acts):
                body.append(_rect(x + 4, y + 17 + k * h, box - 8, h - 2, _ACTION_COLOUR.get(a, "#eee"),
                                  "none", 3))
                body.append(_t(x + box / 2, y + 17 + k * h + h / 2 + 4, _ACTION_LABEL.get(a, a), 11,
                               "middle", "bold"))
        x += box + gap
    y += 64 + 14
    if st.game.v6:
        stacks = []
        for r, (undrawn, used) in enumerate(zip(st.spec_undrawn, st.spec_used)):
            stacks.append(f"{SPECIALTY_STACKS[r]}: {len(undrawn)} face down"
                          + (f", used {' '.join(c.specialty_tiles[t].name for t in used)}" if used else ""))
        body.append(_t(16, y + 4, "Specialty stacks — " + "; ".join(stacks), 12, fill="#6b5600"))
        y += 18
    return y


def _draw_research(body: list[str], st, y: float) -> float:
    """The research display, the deck and discard counts (left column)."""
    from .render import card_label
    c = st.game.components
    body.append(_section(16, y, "Research display"))
    ry = y + 10
    for k, t in enumerate(st.display):
        ct = c.card_types[t]
        body.append(_rect(16, ry + k * 44, 266, 38, _card_colour(ct.kind), "#555", 5, kw=f"research-{ct.name.lower()}"))
        body.append(_t(26, ry + k * 44 + 16, card_label(ct), 13, weight="bold"))
        body.append(_t(26, ry + k * 44 + 31, _card_hint(ct), 10, fill="#555"))
    if not st.display:
        body.append(_t(26, ry + 20, "(nothing face up)", 12, fill="#777"))
    body.append(_t(16, ry + 102, f"{len(st.deck)} undrawn · {len(st.discard)} discarded", 12, fill="#444"))
    if st.discard:
        body.append(_t(16, ry + 118, f"top discard: {card_label(c.card_types[st.discard[-1]])}", 12, fill="#444"))
    return ry + 124


def _draw_buyers(body: list[str], st, y: float) -> float:
    """The active buyers, the stacks with their white markers and the buyer track (middle column)."""
    g = st.game
    bx = 300
    body.append(_section(bx, y, f"Buyers ({len(st.active)}/{g.buyer_spaces} active)"))
    by = y + 10
    for k in range(max(g.buyer_spaces, len(st.active))):
        xx = bx + k * 92
        if k < len(st.active):
            p = PREFERENCES[st.active[k]]
            body.append(_rect(xx, by, 86, 46, "#efe4f7", "#6a3d9a", 5, 1.5, kw=f"buyer-{k}"))
            body.append(_t(xx + 43, by + 18, f"{k + 1}. {_PREF_LABEL[p]}", 13, "middle", "bold"))
            d = st.active_daimler[k]
            if d:
                body.append(_t(xx + 43, by + 36, f"Daimler +{d}", 11, "middle", fill="#6a3d9a"))
        else:
            body.append(_rect(xx, by, 86, 46, "#fafafa", "#bbb", 5, kw=f"buyer-{k}", nxt=k == len(st.active)))
            body.append(_t(xx + 43, by + 28, f"{k + 1}. empty", 12, "middle", fill="#999"))
    sy = by + 66
    body.append(_t(bx, sy, "Stacks:", 12, fill="#444"))
    for i, p in enumerate(PREFERENCES):
        body.append(_t(bx + 90 + i * 118, sy, f"{p} {st.stacks[i]}, white {st.white[i]}", 12))
    ty = sy + 22
    body.append(_t(bx, ty + 4, "Buyer track:", 12, fill="#444"))
    for v in range(g.track_start, -1, -1):
        xx = bx + 90 + (g.track_start - v) * 34
        on = v == st.track
        body.append(_rect(xx, ty - 12, 28, 22, "#6a3d9a" if on else "#fff", "#6a3d9a", 4))
        body.append(_t(xx + 14, ty + 4, "S" if v == g.track_start and not on else str(v), 12, "middle",
                       "bold" if on else "normal", "#fff" if on else "#6a3d9a"))
    return ty + 20


def _draw_prices(body: list[str], st, y: float) -> None:
    """The price markers left (right column)."""
    px = 880
    body.append(_section(px, y, "Price markers left"))
    for k, p in enumerate(st.prices):
        xx = px + (k % 4) * 48
        yy = y + 12 + (k // 4) * 40
        body.append(_rect(xx, yy, 40, 32, "#ffe9a8", "#a07800", 16))
        body.append(_t(xx + 20, yy + 21, str(p), 14, "middle", "bold"))
    if not st.prices:
        body.append(_t(px, y + 30, "(none)", 12, fill="#777"))


def _draw_market(body: list[str], st, y: float, names: list[str], initials: list[str]) -> float:
    """The market: each car in its owner's colour, and the buyer it would have if scoring happened now."""
    from .scoring import prospective_sales
    g = st.game
    buys = prospective_sales(st)
    body.append(_section(16, y, f"Market ({len(st.market)}/{g.market_size} cars) — "
                                "if scoring happened now, each car's buyer is shown"))
    my = y + 10
    cw = (WIDTH - 32 - 10 * (g.market_size - 1)) / g.market_size
    building = len(st.market) if st.car and len(st.market) < g.market_size else -1
    for k in range(g.market_size):
        xx = 16 + k * (cw + 10)
        if k == building:  # the car being built this turn: drawn as its parts are chosen
            _draw_car_in_progress(body, st, xx, my, cw, names, initials)
            continue
        if k >= len(st.market):
            body.append(_rect(xx, my, cw, 100, "#fafafa", "#ccc", 6, kw=f"market-{k}",
                              nxt=building < 0 and k == len(st.market)))
            body.append(_t(xx + cw / 2, my + 50, "empty space", 12, "middle", fill="#aaa"))
            continue
        owner, bd, en, workers, price, bb, eb = st.market[k]
        body.append(_rect(xx, my, cw, 100, _LIGHT[owner], SEAT_COLOURS[owner], 6, 2.5, kw=f"market-{k}"))
        body.append(_disc(xx + 16, my + 16, 11, SEAT_COLOURS[owner], initials[owner], 10))
        body.append(_t(xx + 32, my + 20, names[owner][:14], 12, weight="bold", fill="#222"))
        body.append(_rect(xx + cw - 44, my + 5, 38, 26, "#ffe9a8", "#a07800", 13))
        body.append(_t(xx + cw - 25, my + 23, str(price), 14, "middle", "bold"))
        body.append(_t(xx + 10, my + 44, f"body {bd}" + (f" +{bb} Maybach" if bb else ""), 12))
        body.append(_t(xx + 10, my + 60, f"engine {en}" + (f" +{eb} Horch" if eb else ""), 12))
        body.append(_t(xx + 10, my + 76, f"{workers} worker{'s' if workers != 1 else ''}", 12))
        sale = buys.get(k)
        if sale:
            body.append(_t(xx + 10, my + 93, f"→ buyer {sale[0] + 1} ({PREFERENCES[sale[1]]}) pays {sale[2]}",
                           11, weight="bold", fill="#6a3d9a"))
        else:
            body.append(_t(xx + 10, my + 93, "unsold now", 11, fill="#888"))
    return my + 100 + 24


def _draw_car_in_progress(body: list[str], st, xx: float, my: float, cw: float, names: list[str],
                          initials: list[str]) -> None:
    """The car the seat to move is putting on the market (``st.car``: body, engine, workers, price so far),
    dashed in its colour, with the parts still to choose marked "?"."""
    owner = st.turn_seat
    parts = list(st.car) + [None] * (4 - len(st.car))
    bd, en, workers, price = parts
    body.append(f'<rect x="{xx:g}" y="{my:g}" width="{cw:g}" height="100" rx="6" fill="{_LIGHT[owner]}" '
                f'stroke="{SEAT_COLOURS[owner]}" stroke-width="2.5" stroke-dasharray="7 4" class="car-building" data-kw="market-{len(st.market)}" '
                f'data-next="1"/>')
    body.append(_disc(xx + 16, my + 16, 11, SEAT_COLOURS[owner], initials[owner], 10))
    body.append(_t(xx + 32, my + 20, names[owner][:14], 12, weight="bold", fill="#222"))
    body.append(_rect(xx + cw - 44, my + 5, 38, 26, "#ffe9a8" if price is not None else "#fff", "#a07800", 13))
    body.append(_t(xx + cw - 25, my + 23, "?" if price is None else str(price), 14, "middle", "bold"))
    body.append(_t(xx + 10, my + 44, f"body {bd}", 12))
    body.append(_t(xx + 10, my + 60, "engine ?" if en is None else f"engine {en}", 12))
    body.append(_t(xx + 10, my + 76, "workers ?" if workers is None
                   else f"{workers} worker{'s' if workers != 1 else ''}", 12))
    body.append(_t(xx + 10, my + 93, "being built", 11, weight="bold", fill=SEAT_COLOURS[owner]))


def _draw_grand_prix(body: list[str], st, y: float, initials: list[str]) -> float:
    """The Grand-Prix track with the cars (laps written on them), the neutral cars and the pit lane."""
    g = st.game
    L = g.components.gp_lap_length
    body.append(_section(16, y, f"Grand Prix ({L} spaces a lap; laps written on the cars)"))
    gy = y + 10
    body.append(_rect(16, gy, 96, 44, "#eee", "#777", 6))
    body.append(_t(64, gy + 14, "pit lane", 11, "middle", fill="#555"))
    pit = [i for i, s in enumerate(st.seats) if s.space == 0]
    for k, i in enumerate(pit):
        body.append(_disc(30 + k * 22, gy + 30, 10, SEAT_COLOURS[i], initials[i][:1], 10))
    sw = (WIDTH - 130 - 16) / L
    for sp in range(1, L + 1):
        xx = 124 + (sp - 1) * sw
        body.append(_rect(xx, gy, sw - 3, 44, "#f4f4f4", "#777", 3))
        body.append(_t(xx + 4, gy + 12, str(sp), 10, fill="#777"))
        if sp == 1:
            body.append(f'<line x1="{xx - 2:g}" y1="{gy - 4:g}" x2="{xx - 2:g}" y2="{gy + 48:g}" '
                        'stroke="#222" stroke-width="3" stroke-dasharray="4 3"/>')
        for i, s in enumerate(st.seats):
            if s.space == sp:
                body.append(_disc(xx + sw / 2 - 1, gy + 26, 14, SEAT_COLOURS[i], f"{s.laps}", 13))
                body.append(_t(xx + sw / 2 + 14, gy + 12, initials[i], 10, "end", fill=SEAT_COLOURS[i]))
        if sp in g.neutral_cars:
            body.append(_disc(xx + sw / 2 - 1, gy + 26, 14, _NEUTRAL, "N", 12))
    return gy + 44 + 28


def _draw_mats(body: list[str], st, y: float, names: list[str], initials: list[str],
               perspective: int | None) -> float:
    """One mat per seat, the ``perspective`` seat's first; their backgrounds go behind them once
    the tallest mat's height is known."""
    n = st.game.num_players
    order = list(range(n))
    if perspective is not None and 0 <= perspective < n:
        order = order[perspective:] + order[:perspective]
    mw = (WIDTH - 32 - 12 * (n - 1)) / n
    actor = st.current_player() if not st.is_terminal() else -1
    mats_at = len(body)  # the mats' backgrounds go here once their height is known
    bottom = y
    for k, i in enumerate(order):
        xx = 16 + k * (mw + 12)
        label = names[i] + (" (you)" if i == perspective else "") + (" ◀" if i == actor else "")
        bottom = max(bottom, _draw_mat(body, st, i, xx, y, mw, label, i == actor))
    mat_h = bottom - y + 4
    backs = []
    for k, i in enumerate(order):
        xx = 16 + k * (mw + 12)
        backs.append(_rect(xx, y, mw, mat_h, _LIGHT[i], SEAT_COLOURS[i], 8, 4 if i == actor else 1.5))
        backs.append(_rect(xx, y, mw, 30, SEAT_COLOURS[i], SEAT_COLOURS[i], 8))
    body[mats_at:mats_at] = backs
    return y + mat_h + 22


def _draw_mat(body: list[str], st, i: int, xx: float, y: float, mw: float, label: str, to_decide: bool) -> float:
    """Seat ``i``'s mat (without its background) at ``xx``, ``mw`` wide; returns its bottom."""
    from .render import card_label, short_tile
    c = st.game.components
    s = st.seats[i]
    money = f"money {s.money}"
    room = int((mw - 20 - len(money) * 17 * 0.62) / (15 * 0.62)) - 1  # characters left for the name
    body.append(_t(xx + 10, y + 21, label if len(label) <= room else label[:max(1, room - 1)] + "…",
                   15, weight="bold", fill="#fff"))
    body.append(_t(xx + mw - 10, y + 22, money, 17, "end", "bold", "#fff"))
    rb, re = st.research_points(i)
    lines = [
        (f"research: body {rb} · engine {re}", "bold"),
        (f"workers: canteen {s.canteen} · supply {s.supply}", "normal"),
    ]
    ly = y + 48
    for text, weight in lines:
        body.append(_t(xx + 10, ly, text, 12, weight=weight))
        ly += 17
    # workshops: three slots
    body.append(_t(xx + 10, ly + 2, "workshops", 11, fill="#555"))
    for w in range(3):
        wx = xx + 78 + w * 44
        if w < len(s.workshops):
            code = s.workshops[w]
            eng = code > ENGINE_CODE
            body.append(_rect(wx, ly - 12, 40, 20, "#f3c6c6" if eng else "#c9dcf0", "#555", 3))
            body.append(_t(wx + 20, ly + 3, short_tile(code), 12, "middle", "bold"))
        else:
            body.append(_rect(wx, ly - 12, 40, 20, "#fff", "#aaa", 3))
    ly += 24
    where = f"lap {s.laps}, space {s.space}" if s.space else "in the pit lane"
    body.append(_t(xx + 10, ly, f"GP car: engine {s.gp_engine}, {where}", 12, weight="bold"))
    ly += 17
    start = c.start_tiles[s.start_tile].name if s.start_tile >= 0 else "—"
    body.append(_t(xx + 10, ly, f"start tile {start}", 12))
    ly += 17
    devs = [card_label(c.card_types[t]) for t in s.dev_active]
    inactive = [card_label(c.card_types[t]) + " (inactive)" for t in s.dev_inactive]
    for text in _wrap("developments: " + (", ".join(devs + inactive) or "none"), mw - 20, 12)[:3]:
        body.append(_t(xx + 10, ly, text, 12, fill="#8a1c1c" if "inactive" in text else "#222"))
        ly += 15
    engs = [_engineer_text(s, e) for k2, e in enumerate(ENGINEERS) if s.engineers >> k2 & 1]
    for text in _wrap("engineers: " + (", ".join(engs) or "none"), mw - 20, 12)[:3]:
        body.append(_t(xx + 10, ly, text, 12))
        ly += 15
    owned = [f"{_AWARD_LABEL[a]} ({c.awards[k2]})" for k2, a in enumerate(AWARDS) if st.awards[k2] == i]
    for text in _wrap("awards: " + (", ".join(owned) or "none"), mw - 20, 12)[:2]:
        body.append(_t(xx + 10, ly, text, 12, fill="#6b5600"))
        ly += 15
    if to_decide:
        body.append(_t(xx + mw - 10, ly + 2, "◀ to decide", 12, "end", "bold", SEAT_COLOURS[i]))
        ly += 15
    return ly


def _draw_footer(body: list[str], st, y: float) -> float:
    """The awards still free and the tile supply; returns the picture's height."""
    c = st.game.components
    free = [f"{_AWARD_LABEL[a]} {c.awards[k]}" for k, a in enumerate(AWARDS) if st.awards[k] < 0]
    body.append(_t(16, y, "Awards still free: " + (", ".join(free) or "none"), 12, fill="#444"))
    y += 18
    sb = " ".join(f"{v + 1}:{k}" for v, k in enumerate(st.supply_body))
    se = " ".join(f"{v + 1}:{k}" for v, k in enumerate(st.supply_engine))
    body.append(_t(16, y, f"Tile supply (value:count) — bodies {sb} · engines {se}", 12, fill="#444"))
    return y + 14


def _card_colour(kind: str) -> str:
    return {"development": "#d9ecc9", "instant": "#fbe6c2", "engineer": "#d6e1f5"}.get(kind, "#eee")


def _card_hint(ct) -> str:
    """The second line of a research card: what kind it is and, for an engineer, his power."""
    from .render import ENGINEER_TEXT
    if ct.kind == "engineer":
        text = ENGINEER_TEXT.get(ct.engineer, "engineer")
        return text if len(text) <= 46 else text[:45] + "…"
    if ct.kind == "development":
        return "development (points while active)"
    return "instant action (then discarded)"


def _bonus_lines(t) -> list[str]:
    from .render import bonus_text
    words = bonus_text(t).split()
    lines, cur = [], ""
    for w in words:
        if len(cur) + len(w) + 1 > 12 and cur:
            lines.append(cur)
            cur = w
        else:
            cur = f"{cur} {w}".strip()
    if cur:
        lines.append(cur)
    return lines[:2]


def _engineer_text(s, e: str) -> str:
    name = e.capitalize()
    if e == "maybach" and s.maybach:
        return f"{name} (" + "/".join(f"+{v}" for v in s.maybach) + ")"
    if e == "horch" and s.horch:
        return f"{name} (" + "/".join(f"+{v}" for v in s.horch) + ")"
    if e == "daimler" and s.daimler:
        return f"{name} (" + "/".join(f"+{v}" for v in s.daimler) + ")"
    if e == "diesel":
        return f"{name} ({s.diesel} left)"
    if e == "benz":
        return f"{name} ({'5th buyer' if s.benz else 'used'})"
    return name


def _wrap(text: str, width: float, size: int) -> list[str]:
    """Greedy word wrap for a line of ``size``-pixel text in ``width`` user units
    (an average glyph is about 0.6 of the font size wide)."""
    per_line = max(10, int(width / (size * 0.6)))
    lines, cur = [], ""
    for w in text.split(" "):
        if cur and len(cur) + 1 + len(w) > per_line:
            lines.append(cur)
            cur = "  " + w
        else:
            cur = f"{cur} {w}" if cur else w
    if cur:
        lines.append(cur)
    return lines
