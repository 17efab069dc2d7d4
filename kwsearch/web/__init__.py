"""The analysis board: a local web app to explore, analyse and play (``kwsearch serve``).

The server (:mod:`kwsearch.web.app`, Starlette served by uvicorn) keeps everything
that matters — the games, their records on disk, the search processes — and the
page (plain HTML, SVG and JavaScript in ``kwsearch/web/static/``, no build step,
no network) only shows what the server sends and asks for changes:

* **documents** (:mod:`kwsearch.web.documents`): a game record or a position
  opened for exploring, kept as a tree of nodes like lichess's move list (the
  record's moves are the main line, what-if decisions make variations);
* **games** (:mod:`kwsearch.web.games`): a game against bots or a mirror game of
  a real table, written to its record file after every decision like
  ``kwsearch play``; the page sees only what the seat at the screen may see;
* **analyses** (:mod:`kwsearch.web.analyses`): one worker process per live
  analysis, its progress streamed to the page as server-sent events.

The board picture and the search reach the rest of the package through one
module, :mod:`kwsearch.web.engine_bridge`.

The web dependencies are an optional extra: ``pip install ".[web]"`` in the kwsearch clone.
"""

from __future__ import annotations

from ..errors import KwsearchError

#: The modules ``kwsearch serve`` needs beyond the package's own dependencies.
WEB_MODULES = ("starlette", "uvicorn", "sse_starlette")
WEB_EXTRA_HINT = 'pip install ".[web]" (in the kwsearch clone)'


class WebError(KwsearchError):
    """A request the server refuses; ``status`` is the HTTP status it answers with."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def missing_web_modules() -> list[str]:
    """The web modules that cannot be imported (empty when ``kwsearch serve`` can run)."""
    import importlib.util
    return [m for m in WEB_MODULES if importlib.util.find_spec(m) is None]


def require_web() -> None:
    """Raise a one-line :class:`KwsearchError` naming the extra when a web module is missing."""
    missing = missing_web_modules()
    if missing:
        raise KwsearchError(f"kwsearch serve needs {', '.join(missing)}, which "
                            f"{'is' if len(missing) == 1 else 'are'} not installed: {WEB_EXTRA_HINT}")


__all__ = ["WebError", "WEB_EXTRA_HINT", "missing_web_modules", "require_web"]
