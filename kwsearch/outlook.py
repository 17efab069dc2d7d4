"""What the cards bring and the finishing places, read from a search's own samples.

A search run with ``Searcher(account=True)`` (``kwsearch.search``) counts, in its C loop and for
each root option, every completed iteration (a *sample*: one determinization of the hidden deck,
one path down the tree, one playout) in three tables (``kwsearch._search.Tree.card_stats``):

* the option's samples and the root mover's summed win share;
* the same, split by the cards that sample's determinization puts *next*: the research card types
  of the next two cards to come up from the deck as it stands (the two that refill the display at
  the next research; a card type counts once per sample), and with V6 the specialty tile on top of
  the current round's stack (the next one placed at the front of the chain). A deck with fewer
  than two cards names what it holds (the reshuffle of the discard pile that follows is not looked
  into);
* every seat's finishing place: by final money when the playout reached the end of the game, by the
  evaluation's win shares when it was cut off (``SearchConfig.cutoff``); seats with equal scores
  share the places they span evenly (two seats tied for first get half of first and half of second
  each).

No second search: the tables read the samples that decide the hint. Root-parallel workers keep
their own tables, and the parent sums them in worker order (worker 0 first), so the same seed and
worker count give the same figures. :func:`option_cards` turns an option's row into the cards that
move its value most (:class:`CardSplit`); :func:`places` gives each seat's chance of each place and
its expected place. docs/cards-and-places.md explains the figures with a worked example.

The split adds up: for every card, ``p * win_if + (1 - p) * win_if_not`` is the option's win share
over the same samples (``OptionCards.win``), up to float rounding.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

#: A card key at or above this is a V6 specialty tile (``key - SPECIAL_KEY``); below, a research card type.
SPECIAL_KEY = 32
#: The cards shown per option (the ones that move its value most).
TOP_CARDS = 3
#: A card is weighed only when at least this many of the option's samples have it next, and as
#: many do not: fewer say too little for a player to read.
MIN_SAMPLES = 20
#: Two-sided 95% normal quantile of the margins shown.
Z95 = 1.959963984540054


def margin(mean: float, n: int) -> float:
    """Half the width of a 95% interval of a mean of ``n`` win shares (each in [0, 1]) around
    ``mean``, by the largest variance such values can have (``mean * (1 - mean)``): conservative for
    win shares that are not 0 or 1 (cut-off playouts), and for the search's samples, which are not
    independent draws (the tree changes as it learns), a guide rather than a guarantee."""
    if n <= 0:
        return 1.0
    m = min(1.0, max(0.0, mean))
    return Z95 * math.sqrt(m * (1 - m) / n)


@dataclass(frozen=True)
class CardSplit:
    """An option's win share split by one card coming up next or not."""

    key: int             # research card type index, or SPECIAL_KEY + specialty tile index
    name: str            # the card's display name (render.card_name), or "special A3"
    samples: int         # the option's samples with this card next
    p: float             # samples / the option's samples
    win_if: float        # the root mover's mean win share in those samples
    win_if_not: float    # ... in the option's other samples
    half_if: float       # 95% margins of the two (margin())
    half_if_not: float

    @property
    def swing(self) -> float:
        """How much the card moves the option's value: ``sqrt(p (1 - p)) * |win_if - win_if_not|``,
        the standard deviation of the option's win share that knowing the card explains."""
        return math.sqrt(self.p * (1 - self.p)) * abs(self.win_if - self.win_if_not)

    @property
    def sure_swing(self) -> float:
        """The swing of the part of ``|win_if - win_if_not|`` beyond its 95% margin
        (``sqrt(half_if² + half_if_not²)``): 0 for a difference the samples cannot tell from noise."""
        beyond = abs(self.win_if - self.win_if_not) - math.hypot(self.half_if, self.half_if_not)
        return math.sqrt(self.p * (1 - self.p)) * max(0.0, beyond)

    def as_json(self) -> dict[str, Any]:
        return {"card": self.name, "key": self.key, "kind": "specialty" if self.key >= SPECIAL_KEY else "research",
                "samples": self.samples, "probability": self.p, "winrateIf": self.win_if,
                "winrateIfNot": self.win_if_not, "marginIf": self.half_if, "marginIfNot": self.half_if_not,
                "beyondMargin": self.sure_swing > 0}


@dataclass(frozen=True)
class OptionCards:
    """What the cards bring to one option: its samples, its win share over them and the cards that
    move it most (at most ``TOP_CARDS``): the largest ``sure_swing`` first, then the largest ``swing``
    (so a card whose difference the samples tell apart from noise comes before a rare card whose
    larger difference they cannot)."""

    action: int
    samples: int
    win: float
    cards: tuple[CardSplit, ...]

    def as_json(self) -> dict[str, Any]:
        return {"samples": self.samples, "winrate": self.win, "split": [c.as_json() for c in self.cards]}


@dataclass(frozen=True)
class SeatPlaces:
    seat: int
    p: tuple[float, ...]   # chance of each place, first place first
    expected: float        # the expected place (1 = first)


@dataclass(frozen=True)
class Places:
    """Every seat's finishing places over the samples of one option (``action``) or of the whole
    search (``action`` None). Each seat's chances sum to 1, and so does each place's over the seats."""

    action: int | None
    samples: int
    seats: tuple[SeatPlaces, ...]

    def as_json(self) -> dict[str, Any]:
        return {"basis": "search" if self.action is None else "option", "action": self.action,
                "samples": self.samples,
                "seats": [{"seat": s.seat, "probabilities": list(s.p), "expected": s.expected,
                           "margins": [margin(x, self.samples) for x in s.p]} for s in self.seats]}


def key_name(components, key: int) -> str:
    """A card key's display name: the research card's (``render.card_name``), or ``special A3``."""
    from .render import card_name
    if key >= SPECIAL_KEY:
        return f"special {components.specialty_tiles[key - SPECIAL_KEY].name}"
    return card_name(components.card_types[key])


def option_cards(components, accounts: dict | None, action: int, top: int = TOP_CARDS,
                 min_samples: int = MIN_SAMPLES) -> OptionCards | None:
    """What the cards bring to ``action`` (a root option) by a search's accounting tables
    (``SearchResult.accounts``; None: the search did not count them, and neither does this)."""
    if not accounts or action not in accounts:
        return None
    n, win, keys, _places = accounts[action]
    if n <= 0:
        return None
    splits = []
    for key, (kn, kwin) in keys.items():
        if kn < min_samples or n - kn < min_samples:
            continue
        w_if = kwin / kn
        w_not = (win - kwin) / (n - kn)
        splits.append(CardSplit(key, key_name(components, key), kn, kn / n, w_if, w_not,
                                margin(w_if, kn), margin(w_not, n - kn)))
    splits.sort(key=lambda c: (-c.sure_swing, -c.swing, c.key))
    return OptionCards(action, n, win / n, tuple(splits[:max(0, top)]))


def places(accounts: dict | None, players: int, action: int | None = None) -> Places | None:
    """Every seat's finishing places from a search's accounting tables: over the samples of
    ``action``, or of every option when ``action`` is None. None without samples."""
    if not accounts:
        return None
    if action is not None:
        if action not in accounts:
            return None
        rows = [accounts[action]]
    else:
        rows = list(accounts.values())
    n = sum(r[0] for r in rows)
    if n <= 0:
        return None
    seats = []
    for seat in range(players):
        p = tuple(min(1.0, max(0.0, sum(r[3][seat * 4 + k] for r in rows) / n)) for k in range(players))
        seats.append(SeatPlaces(seat, p, sum((k + 1) * x for k, x in enumerate(p))))
    return Places(action, n, tuple(seats))


def points(x: float) -> str:
    """A margin in points of win %: whole points, or one decimal below 1 (``4``, ``0.6``)."""
    return f"{100 * x:.0f}" if 100 * x >= 0.95 else f"{100 * x:.1f}"


def ordinal(k: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(k, f"{k}th")


def card_lines(oc: OptionCards, indent: str = "    ") -> list[str]:
    """An option's split as text lines, one a card: ``if Benz (Benz) comes up next (31%): 80% ±9,
    otherwise 45% ±5``."""
    out = []
    for c in oc.cards:
        out.append(f"{indent}if {c.name} comes up next ({100 * c.p:.0f}%): {100 * c.win_if:.0f}% "
                   f"±{points(c.half_if)}, otherwise {100 * c.win_if_not:.0f}% ±{points(c.half_if_not)}")
    if oc.cards and not any(c.sure_swing > 0 for c in oc.cards):
        out.append(f"{indent}(no difference beyond its 95% margin: the cards hardly matter here)")
    return out


def place_lines(pl: Places, names: list[str], indent: str = "    ") -> list[str]:
    """The places as text lines, one a seat: ``red     1st 62%  2nd 38%   expected 1.38``."""
    width = max(len(x) for x in names) if names else 4
    out = []
    for s in pl.seats:
        cells = "  ".join(f"{ordinal(k + 1)} {100 * x:3.0f}%" for k, x in enumerate(s.p))
        out.append(f"{indent}{names[s.seat]:<{width}}  {cells}   expected {s.expected:.2f}")
    return out


def text_lines(an, label, names: list[str] | None = None, width: int = 100) -> list[str]:
    """What the cards bring and the finishing places of an analysis (``kwsearch.analysis.Analysis``)
    as ``kwsearch suggest`` prints them, every line within ``width`` columns, each option named by
    ``label(candidate)``; no lines when the search did not count them."""
    from .render import wrap_phrases
    out: list[str] = []
    shown = [c for c in an.candidates if c.cards is not None]
    if shown:
        out += wrap_phrases("what the cards bring: each option's win % in the search's own samples, "
                            "split by a card coming up next (one of the next two research cards turned "
                            "up, or the next specialty tile) or not; ± 95% margins "
                            "(docs/cards-and-places.md)", width, "    ")
        for c in shown:
            head = f"  {label(c)}: {100 * c.cards.win:.0f}% over {c.cards.samples:,} samples"
            out += wrap_phrases(head, width, "      ")
            lines = card_lines(c.cards, "    ") or [f"    too few samples to weigh a card ({MIN_SAMPLES} each way)"]
            for line in lines:
                out += wrap_phrases(line, width, "      ")
    pl = an.places
    if pl is not None:
        seat_names = [f"seat {i}" + (f" ({names[i]})" if names and i < len(names) else "")
                      for i in range(len(pl.seats))]
        best = an.ranked()[0]
        half = max(margin(x, pl.samples) for s in pl.seats for x in s.p)
        out += wrap_phrases(f"finishing places after {label(best)} "
                            f"({pl.samples:,} samples; 95% margins {points(half)} "
                            f"point{'' if points(half) == '1' else 's'} at most):", width, "    ")
        for line in place_lines(pl, seat_names, "    "):
            out += wrap_phrases(line, width, "      ")
    return out
