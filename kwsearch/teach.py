"""Teaching mode: a human's decision checked as the review would mark it, while the game goes on.

Like KaTrain's teaching mode, a game against bots can point out a human decision the review would
mark (``inaccuracy``, ``mistake`` or ``blunder``; the player picks the lowest class that is pointed
out, :data:`DEFAULT_THRESHOLD` by default) as soon as it is made: the loss in points of win % with
its 95% interval, the better option by its menu name, and the offer to take the decision back.

The check is the review's own valuation of one decision,
:func:`kwsearch.review.review_decision` (the main search, then the move played and the best
options re-searched alone; the class of the loss beyond its interval), with the review's seed for
that decision, ``derive_seed(seed, "review", ply)``. With the same iterations and seed,
``kwsearch review GAME --iterations N --seed S`` marks the decision the same: the defaults
(:data:`DEFAULT_ITERATIONS`, :data:`DEFAULT_SEED`) are the review's own defaults. The check
searches from the deciding seat's information set: the state is rebuilt from that seat's
observation (the undrawn research cards as an unordered multiset), so a verdict cannot depend on
the deck order the game holds.

``kwsearch play --teach [THRESHOLD]`` checks each human decision before the bots reply and offers
``undo``; the web board (``teach`` in a new game's request) checks in the background
(:mod:`kwsearch.web.games`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

from .errors import KwsearchError
from .review import CLASSES as LEVELS
# Search iterations of a check: the review's default (``kwsearch review``), so that a review with its
# default settings marks every checked decision the same. 0.03 to 0.09 CPU-s a decision on average at 2 to 4
# players, 0.16 at most (bench/teach_cost.py, bench/RESULTS.md): it does not hold up the game.
from .review import DEFAULT_ITERATIONS

# LEVELS: the classes a player can ask to be told about, mildest first (the review's own, kwsearch.review).
DEFAULT_THRESHOLD = "mistake"
#: The review's default seed (``kwsearch review --seed``).
DEFAULT_SEED = 0
MAX_ITERATIONS = 1_000_000
MAX_SEED = 2**63 - 1


class TeachError(KwsearchError):
    """A bad teaching-mode setting (the message names the field)."""


@dataclass(frozen=True)
class TeachSettings:
    """What a check points out (``threshold``: the mildest class told) and how hard it searches."""
    threshold: str = DEFAULT_THRESHOLD
    iterations: int = DEFAULT_ITERATIONS
    seed: int = DEFAULT_SEED

    def __post_init__(self) -> None:
        if self.threshold not in LEVELS:
            raise TeachError(f"teach.threshold: expected one of {', '.join(LEVELS)}, got {self.threshold!r}")
        it = self.iterations
        if isinstance(it, bool) or not isinstance(it, int) or not 1 <= it <= MAX_ITERATIONS:
            raise TeachError(f"teach.iterations: expected an integer from 1 to {MAX_ITERATIONS:,}, got {it!r}")
        s = self.seed
        if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s <= MAX_SEED:
            raise TeachError(f"teach.seed: expected an integer from 0 to 2**63 - 1, got {s!r}")

    def to_json(self) -> dict[str, Any]:
        return {"threshold": self.threshold, "iterations": self.iterations, "seed": self.seed}

    @classmethod
    def from_json(cls, obj: Any) -> "TeachSettings":
        """``{"threshold": "mistake", "iterations": 5000, "seed": 0}`` (each optional) -> settings; a bad
        field is a one-line :class:`TeachError`."""
        if not isinstance(obj, Mapping):
            raise TeachError('teach: expected an object {"threshold": "mistake", "iterations": 5000, "seed": 0} '
                             "or null")
        unknown = set(obj) - {"threshold", "iterations", "seed"}
        if unknown:
            raise TeachError(f"teach: unknown field {sorted(unknown)[0]!r} (expected threshold, iterations, seed)")
        return cls(**obj)

    def check(self, state, action: int, ply: int) -> "Verdict | None":
        """:func:`check_decision` with these settings."""
        return check_decision(state, action, ply, self)

    def describe(self) -> str:
        """One phrase for the player: what is pointed out and how it is searched."""
        told = {"inaccuracy": "an inaccuracy or worse", "mistake": "a mistake or a blunder",
                "blunder": "a blunder"}[self.threshold]
        return (f"teaching mode: {told} is pointed out after your decision (the review's check, "
                f"{self.iterations:,} iterations, seed {self.seed})")


@dataclass(frozen=True)
class Verdict:
    """A checked decision: the review's class of it and whether it reaches the threshold."""
    ply: int                 # decisions before this one (the review's and ``show --ply``'s numbering)
    seat: int
    played: str              # the move played (notation)
    played_label: str        # as the menus show it
    best: str                # the best option by the verified values (notation)
    best_label: str          # as the menus show it
    cls: str | None          # the review's class: inaccuracy / mistake / blunder / None
    loss: float              # the best's win share minus the move's (0..1)
    loss_half: float         # the 95% half-width of that loss (0..1)
    played_win: float        # the deciding seat's win share after the move played (0..1)
    best_win: float          # after the best option
    fires: bool              # the class reaches the threshold: the player is told
    threshold: str
    iterations: int

    def message(self) -> str:
        """``Mistake (-13 ± 2 points of win %): tile 8 (body+engine) was better.``"""
        if self.cls is None:
            return f"Good: {self.played_label} is within the review's margin of the best."
        return (f"{self.cls.capitalize()} ({_points(-self.loss)} ± {_points(self.loss_half, sign=False)} "
                f"points of win %): {self.best_label} was better.")

    def to_json(self) -> dict[str, Any]:
        return {"ply": self.ply, "seat": self.seat, "played": self.played, "played_label": self.played_label,
                "best": self.best, "best_label": self.best_label, "class": self.cls, "loss": self.loss,
                "loss_half": self.loss_half, "played_win": self.played_win, "best_win": self.best_win,
                "fires": self.fires, "threshold": self.threshold, "iterations": self.iterations,
                "message": self.message()}


def _points(x: float, sign: bool = True) -> str:
    """A share (0..1) in points of win % (:func:`kwsearch.outlook.points`), with its minus sign unless it
    rounds to nothing."""
    from .outlook import points
    text = points(abs(x))
    return ("-" if sign and x < 0 and text.strip("0.") else "") + text


def reaches(cls: str | None, threshold: str) -> bool:
    """Whether a review class is at least ``threshold`` (None never is).

        >>> reaches("blunder", "mistake"), reaches("inaccuracy", "mistake"), reaches(None, "inaccuracy")
        (True, False, False)
    """
    return cls is not None and LEVELS.index(cls) >= LEVELS.index(threshold)


def check_decision(state, action: int, ply: int, settings: TeachSettings | None = None) -> Verdict | None:
    """Check the decision ``action`` taken at ``state`` (before it; either engine), the game's decision
    number ``ply``, as the review would (:func:`kwsearch.review.review_decision` with the review's seed
    for that ply). The search starts from the deciding seat's observation: the true deck order is not
    given to it. Returns None when the search was interrupted."""
    from .formats import position_to_state
    from .review import review_decision
    from .search import SearchLimits
    from .seeds import derive_seed
    settings = settings or TeachSettings()
    if state.is_terminal():
        raise TeachError("the game is over: there is no decision to check")
    seat = state.current_player()
    if action not in state.legal_actions():
        raise TeachError(f"action {action} is not a legal decision here")
    visible = position_to_state(state.observation(seat), seed=0)  # no deck order: the seat's information set
    d = review_decision(visible, action, SearchLimits(iterations=settings.iterations),
                        derive_seed(settings.seed, "review", ply), None, ply)
    if d is None:
        return None
    half = d.loss_half if d.loss_half is not None and math.isfinite(d.loss_half) else 0.0
    return Verdict(ply=ply, seat=seat, played=d.played, played_label=d.played_label, best=d.best,
                   best_label=d.best_label, cls=d.cls, loss=d.loss, loss_half=half, played_win=d.played_win,
                   best_win=d.best_win, fires=reaches(d.cls, settings.threshold), threshold=settings.threshold,
                   iterations=settings.iterations)
