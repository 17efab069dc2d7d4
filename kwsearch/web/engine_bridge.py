"""Where the web app meets the engine: the board picture and the live search.

Everything the page shows of a state passes through :func:`visible_state` first:
the state is rebuilt from the deciding seat's observation (a
``kwsearch-position/1`` object, which holds the undrawn research cards as an
unordered multiset), so neither the picture nor a search can see the deck order
the server holds. The picture is :func:`kwsearch.svg.board_svg`; the live
analysis is :class:`kwsearch.search.Searcher` run in a worker process by
:func:`analysis_process`, which sends its progress down a pipe as
``kwsearch-analysis/1`` objects (:func:`analysis_object`), and when the search
ends re-searches the options shown (:mod:`kwsearch.confidence`) and sends the
verified object.
"""

from __future__ import annotations

from typing import Any

from ..analysis import analysis_json, describe
from ..errors import KwsearchError
from ..formats import position_to_state

#: How many candidates an analysis update carries (the page shows them all as bars).
TOP_CANDIDATES = 6
#: A hint (``{"game": G, "hint": true}``) shows as many as ``kwsearch play``'s ``?``.
HINT_CANDIDATES = 3
#: The longest re-search chunk after a live analysis: 6 options x 5 chunks x 20,000 = 600,000
#: iterations, a few seconds of one core, however long the analysis ran.
VERIFY_CHUNK_MAX = 20_000


def visible_state(state, seat: int | None = None):
    """A reference state holding only what ``seat`` may see of ``state``.

    The undrawn cards (and V6 specialty stacks) get an arbitrary order from seed 0:
    whatever draws from it is a guess, never the real deck.
    """
    return position_to_state(state.observation(seat), seed=0)


def board_svg(state, seat_names: list[str] | None = None, perspective: int | None = None) -> str:
    """The board of ``state`` as a standalone SVG document (:func:`kwsearch.svg.board_svg`).

    ``state`` should already be a :func:`visible_state`.
    """
    from ..svg import board_svg as draw
    return draw(state, seat_names=seat_names, perspective=perspective)


def analysis_object(result, top: int = TOP_CANDIDATES, verified_an=None, components=None) -> dict[str, Any]:
    """One analysis message for the page: the ``kwsearch-analysis/1`` object of ``kwsearch suggest
    --json`` (:func:`kwsearch.analysis.analysis_json`, docs/formats.md), for a progress update as
    for the final result.

    A progress update (and the search's final statistics before they are verified) lacks the
    fields of the re-searches: ``rootInfo.confidence`` and ``moveInfos[].rank``, ``.equal`` and
    ``.estimate``; ``verified_an`` (an :class:`kwsearch.analysis.Analysis` after
    :func:`kwsearch.analysis.verified`) gives them. With the game's ``components`` and a search that
    counted them, each option carries what the cards bring and the finishing places
    (``moveInfos[].cards``, ``.places``, ``rootInfo.places``: kwsearch.outlook); the card odds come
    from the undrawn multiset the seat sees, never from the server's deck order.
    """
    return analysis_json(verified_an if verified_an is not None else describe(result, top, components))


def verify_chunk(iterations: int) -> int:
    """The re-searches' length after a search of ``iterations``: ``1 / CHUNK_DIVISOR`` of it (a fifth),
    as for ``suggest``, but at most ``VERIFY_CHUNK_MAX`` (a live analysis may have run for minutes)."""
    from ..confidence import CHUNK_DIVISOR, MIN_CHUNK
    return min(VERIFY_CHUNK_MAX, max(MIN_CHUNK, iterations // CHUNK_DIVISOR))


class PipeStop:
    """The search's ``stop`` flag read from a pipe: set once the other end has sent
    anything or has closed (``poll`` is then true and stays true)."""

    def __init__(self, conn):
        self.conn = conn

    def is_set(self) -> bool:
        try:
            return self.conn.poll()
        except (OSError, EOFError, ValueError):
            return True


def analysis_process(position: dict[str, Any], seed: int, seconds: float, max_nodes: int, interval: float,
                     conn, hint_iterations: int | None = None) -> None:
    """The body of an analysis worker process.

    Searches ``position`` (the deciding seat's observation) for at most
    ``seconds`` or until the server sends anything on ``conn`` (a duplex
    :func:`multiprocessing.Pipe`) or closes it, sending ``("update", obj)``
    about every ``interval`` seconds. When the search ends (stopped, time
    limit, full node pool) it sends its final statistics as ``("verifying",
    obj)``, re-searches the options shown alone (:func:`kwsearch.analysis.verified`,
    docs/confidence.md; chunks of :func:`verify_chunk` iterations) and sends
    ``("done", obj)`` with the intervals, the equal band and the verdict; or
    ``("error", message)``. Every ``obj`` is a ``kwsearch-analysis/1`` object
    (:func:`analysis_object`).

    With ``hint_iterations`` it is a hint, as ``kwsearch play``'s ``?``: a search
    of that many iterations, its best ``HINT_CANDIDATES`` re-searched until the
    best is clear or they are equal (``until_clear``, the default cap).
    """
    from ..analysis import verified
    from ..search import SearchConfig, SearchLimits, Searcher
    from ..seeds import derive_seed

    try:
        state = position_to_state(position, seed=derive_seed(seed, "web", "deck"))
        if state.is_terminal():
            raise KwsearchError("the game is over: there is nothing to analyse")
        searcher = Searcher(SearchConfig(max_nodes=max_nodes).for_analysis(state.game.num_players), seed,
                            account=True)
        components = state.game.components
        hint = hint_iterations is not None
        top = HINT_CANDIDATES if hint else TOP_CANDIDATES
        limits = SearchLimits(iterations=hint_iterations, seconds=seconds, until_clear=hint)

        def progress(res) -> None:
            conn.send(("update", analysis_object(res, top, components=components)))

        res = searcher.run(state, limits, progress=progress, stop=PipeStop(conn), progress_interval=interval)
        an = describe(res, top, components)
        if res.iterations == 0:
            conn.send(("done", analysis_object(res, top, components=components)))
            return
        conn.send(("verifying", analysis_object(res, top, components=components)))
        while conn.poll():  # the stop that ended the search (EOFError: the server has gone)
            conn.recv()
        # A stop sent now ends an until-clear hint after its current round.
        an = verified(state, an, seed=seed, until_clear=hint, stop=PipeStop(conn),
                      chunk_iterations=None if hint else verify_chunk(res.iterations))
        conn.send(("done", analysis_object(res, top, an)))
    except (BrokenPipeError, EOFError, KeyboardInterrupt):
        pass  # the server closed its end or is shutting down: nobody is listening
    except KwsearchError as exc:
        _send_error(conn, str(exc))
    except Exception as exc:  # a bug must reach the page as a message, not a silent stop
        _send_error(conn, f"analysis failed: {type(exc).__name__}: {exc}")
    finally:
        conn.close()


def _send_error(conn, message: str) -> None:
    try:
        conn.send(("error", message))
    except (BrokenPipeError, OSError):
        pass
