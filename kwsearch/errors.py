"""One error family shared by both engines, the formats and the CLI.

Every error is a :class:`ValueError` whose message quotes the bad input and says
what was expected, so the CLI can print it as one line.
"""

from __future__ import annotations


class KwsearchError(ValueError):
    """Base class of every error kwsearch raises for bad input."""


class ComponentError(KwsearchError):
    """A component file breaks an invariant; the message names the field."""


class InvalidMoveError(KwsearchError):
    """A move text that is not the notation of any action, or an action id that has no text.

    Raised by the notation (:meth:`kwsearch.actions.Notation.parse` and ``text``, and so
    ``Game.parse_action`` and a state's ``action_to_text``), as python-chess's ``parse_san``
    raises its ``InvalidMoveError``. A state's ``play`` and ``parse_move``, which also check
    legality, give it as an :class:`IllegalMoveError` that quotes its message and lists the
    legal options.
    """


class IllegalMoveError(KwsearchError):
    """A well-formed move that is not legal in this state.

    ``legal`` lists the text forms of the legal options.
    """

    def __init__(self, message: str, legal: list[str] | None = None):
        super().__init__(message)
        self.legal = list(legal or [])


class InvalidPositionError(KwsearchError):
    """A position or state object with problems.

    ``problems`` lists ``(json_path, message)`` pairs, all of them at once.
    """

    def __init__(self, problems: list[tuple[str, str]], source: str | None = None):
        self.problems = list(problems)
        self.source = source
        head = f"{source}: " if source else ""
        first = problems[0] if problems else ("", "invalid position")
        more = f" (and {len(problems) - 1} more problem{'s' if len(problems) > 2 else ''})" if len(problems) > 1 else ""
        super().__init__(f"{head}{first[0] or '$'}: {first[1]}{more}")


class InvalidRecordError(KwsearchError):
    """A game record that cannot be replayed.

    ``index`` is the event index (or ``None`` for a problem in the header),
    ``event`` its text, ``legal`` the legal alternatives at that point.
    """

    def __init__(self, message: str, index: int | None = None, event: str | None = None,
                 legal: list[str] | None = None):
        super().__init__(message)
        self.index = index
        self.event = event
        self.legal = list(legal or [])
