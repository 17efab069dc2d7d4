"""kwsearch: a search AI for the board game Kraftwagen.

The package is a stack of layers; each imports only layers below it
(``tests/test_architecture.py`` checks there is no import cycle):

- :mod:`kwsearch.components` — the game's component data (tiles, cards, prices)
  and loading of override files;
- :mod:`kwsearch.actions` — the action ids and their text notation;
- :mod:`kwsearch.game` — what both engines share: ``Game``, the task kinds, the
  seeded generator, ``win_shares`` and the ``GameState`` protocol;
- :mod:`kwsearch.observation` — what a seat sees (the position of a state);
- :mod:`kwsearch.rules` — the reference engine (``State``); ``kwsearch._fast`` —
  the compiled one; :mod:`kwsearch.engine` — which one a new state runs on;
- :mod:`kwsearch.formats`, :mod:`kwsearch.records` — position and game files;
- :mod:`kwsearch.search`, :mod:`kwsearch.analysis`, :mod:`kwsearch.bots` — the
  search and the players built on it;
- :mod:`kwsearch.cli` — the ``kwsearch`` command.

Importing the package gives the error classes below and loads the engines
(:mod:`kwsearch.engine`): without ``KWSEARCH_PUREPYTHON=1`` a missing compiled
engine is an ``ImportError`` here, never a silent slow-down. Import the layer you
need explicitly::

    >>> from kwsearch.game import Game
    >>> Game(num_players=3)
    Game(num_players=3)
"""

from .errors import (ComponentError, IllegalMoveError, InvalidMoveError, InvalidPositionError,
                     InvalidRecordError, KwsearchError)

__version__ = "0.1.0"

from .engine import fast_module as _fast_module, purepython_forced as _purepython_forced  # noqa: E402

if not _purepython_forced():
    _fast_module()  # a missing or broken compiled engine is an error here, not a silent slow-down

__all__ = [
    "__version__",
    "KwsearchError",
    "ComponentError",
    "InvalidMoveError",
    "IllegalMoveError",
    "InvalidPositionError",
    "InvalidRecordError",
]
