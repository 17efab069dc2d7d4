"""Where the web app meets the engine: the board picture and the live search.

Everything the page shows of a state passes through :func:`visible_state` first:
the state is rebuilt from the deciding seat's observation (a
``kwsearch-position/1`` object, which holds the undrawn research cards as an
unordered multiset), so neither the picture nor a search can see the deck order
the server holds. The picture is :func:`kwsearch.svg.board_svg`; the live
analysis is :class:`kwsearch.search.Searcher` run in a worker process by
:func:`analysis_process`, which sends its progress down a pipe as JSON-ready
dicts (:func:`result_json`).
"""

from __future__ import annotations

from typing import Any

from ..analysis import plan_text
from ..errors import KwsearchError
from ..formats import position_to_state

#: How many candidates an analysis update carries (the page shows them all as bars).
TOP_CANDIDATES = 6


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


def result_json(state, result, top: int = TOP_CANDIDATES, final: bool = False) -> dict[str, Any]:
    """One analysis update for the page: the root statistics of a :class:`~kwsearch.search.SearchResult`.

    ``state`` is the searched state (for the plans' one-line texts). Money is
    the mover's expected final money; ``money_all`` every seat's. With a playout
    cut-off (``cutoff`` > 0) they are the money where the playouts stopped.
    """
    mover = result.mover
    cands = []
    for k, a in enumerate(result.actions[:top]):
        plan = list(a.plan) if a.plan else [a.text]
        cands.append({
            "order": k,
            "action": a.action,
            "text": a.text,
            "plan": plan,
            "plan_text": plan_text(state, plan),
            "visits": a.visits,
            "share": a.share,
            "availability": a.availability,
            "win": a.win_prob,
            "money": a.mean_money[mover] if 0 <= mover < len(a.mean_money) else 0.0,
            "money_sd": a.money_sd,
            "money_all": list(a.mean_money),
        })
    elapsed = result.elapsed
    return {
        "mover": mover,
        "best": result.best_text,
        "candidates": cands,
        "options": len(result.actions),
        "pv": list(result.pv),
        "iterations": result.iterations,
        "elapsed": elapsed,
        "rate": result.iterations / elapsed if elapsed > 0 else 0.0,
        "seed": result.seed,
        "interrupted": bool(result.interrupted),
        "pool_full": bool(result.pool_full),
        "final": final,
        "cutoff": result.config.cutoff,
    }


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
                     conn) -> None:
    """The body of an analysis worker process.

    Searches ``position`` (the deciding seat's observation) for at most
    ``seconds`` or until the server sends anything on ``conn`` (a duplex
    :func:`multiprocessing.Pipe`) or closes it, sending ``("update", dict)``
    about every ``interval`` seconds and ``("done", dict)`` at the end, or
    ``("error", message)``.
    """
    from ..search import SearchConfig, SearchLimits, Searcher
    from ..seeds import derive_seed

    try:
        state = position_to_state(position, seed=derive_seed(seed, "web", "deck"))
        if state.is_terminal():
            raise KwsearchError("the game is over: there is nothing to analyse")
        searcher = Searcher(SearchConfig(max_nodes=max_nodes), seed)

        def progress(res) -> None:
            conn.send(("update", result_json(state, res)))

        res = searcher.run(state, SearchLimits(seconds=seconds), progress=progress, stop=PipeStop(conn),
                           progress_interval=interval)
        conn.send(("done", result_json(state, res, final=True)))
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
