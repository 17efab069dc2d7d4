"""kwsearch: a search AI for the board game Kraftwagen.

The package is a stack of layers, each importable on its own:

- :mod:`kwsearch.components` — the game's component data (tiles, cards, prices)
  and loading of override files;
- :mod:`kwsearch.actions` — the action ids and their text notation;
- :mod:`kwsearch.rules` — the reference rules engine (``Game``, ``State``);
- :mod:`kwsearch.cli` — the ``kwsearch`` command.

Importing the package loads only the error classes below; import the layer you
need explicitly::

    >>> from kwsearch.rules import Game
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
