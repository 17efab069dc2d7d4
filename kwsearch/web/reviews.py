"""Reviews started from the page: ``kwsearch review`` of a document's game, in a worker process.

A review searches every decision of a game, which takes a core for seconds to hours, so like a
live analysis (:mod:`kwsearch.web.analyses`) it runs in a process of its own, started from the
same forkserver. The worker calls :func:`kwsearch.review.review_game` — the function behind
``kwsearch review``, not a copy of it — with the budget the page asked for (iterations per
decision and a seed; the defaults are the command's) and a cache file that the server names in
its own games folder:

* for a game played on this server and finished (a document opened with *Explore* from it), the
  cache ``kwsearch review`` itself uses for that record file: ``<record>.review-cache.json``
  beside it (:func:`kwsearch.review.default_cache_path`), so the command and the page continue
  each other's reviews;
* for any other record (opened, pasted, given on the command line),
  ``kwsearch-review-<20 hex digits>.review-cache.json``, the digits a digest of the game (its
  set-up and moves), so the same game opened again finds its cache.

No name or path in a request is ever used. Progress comes back down a pipe after every decision
(decisions done of the total); the server keeps each run's state, which the page polls
(:meth:`ReviewRun.status`: the count, the rate so far and the time left with its spread). *Stop*
sends ``"stop"`` down the same pipe, and a thread of the worker interrupts it as Ctrl-C interrupts the
command (SIGINT to itself: the search ends within a slice, :func:`~kwsearch.review.review_game`
returns what is finished, every finished decision is in the cache already); a worker that does not
end within :data:`STOP_GRACE` seconds is terminated. The pipe closing does the same, so a worker
outlives no server, even one killed outright (a forkserver's children keep the forkserver alive, so
watching the parent process would not do).
Started again with the same budget, the review continues from the cache and ends with the same
result as an uninterrupted run (each decision's seed depends only on the seed and its ply).

One review runs per game at a time (per document, and per cache file), and reviews share the
server's ``--max-analyses`` slots with the live analyses: each takes a core.

The hidden deck: a document never holds the deck of a running game of this server (its moves are
opened with another seed, :mod:`kwsearch.web.app`'s explore), and the review searches every
decision from the deciding seat's information set, redrawing the undrawn cards in every
iteration; its output (``kwsearch-review/1``) has no game seed and no deck.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import secrets
import signal
import threading
import time
from pathlib import Path
from typing import Any

from ..confidence import t975
from ..errors import KwsearchError
from ..review import DEFAULT_ITERATIONS, default_cache_path
from ..seeds import check_seed
from . import WebError
from .analyses import AnalysisManager, own_package_first

#: The most iterations per decision the page may ask for.
MAX_ITERATIONS = 1_000_000
#: The seed of a review when the page names none (``kwsearch review``'s ``--seed`` default).
DEFAULT_SEED = 0
#: Seconds a stopped worker has to finish its slice and report before it is terminated.
STOP_GRACE = 10.0
#: Finished runs kept (the latest per document), so a page can still download their files.
KEEP_RUNS = 64
#: The keys of a start request.
BUDGET_KEYS = ("iterations", "seed")


def parse_budget(body: Any) -> tuple[int, int]:
    """``(iterations, seed)`` of a start request (``{"iterations": N, "seed": S}``, both optional);
    :class:`WebError` naming the field otherwise."""
    if body is None:
        body = {}
    if not isinstance(body, dict) or set(body) - set(BUDGET_KEYS):
        extra = sorted(set(body) - set(BUDGET_KEYS)) if isinstance(body, dict) else None
        what = f" (unknown key {json.dumps(extra[0])})" if extra else ""
        raise WebError(f"expected {{\"iterations\": N, \"seed\": S}} (both optional){what}")
    iterations = body.get("iterations", DEFAULT_ITERATIONS)
    if isinstance(iterations, bool) or not isinstance(iterations, int) or not 1 <= iterations <= MAX_ITERATIONS:
        raise WebError(f"iterations: expected an integer from 1 to {MAX_ITERATIONS:,} (search iterations per "
                       f"decision), got {json.dumps(iterations)[:40]}")
    seed = check_seed(body.get("seed", DEFAULT_SEED), "seed", WebError)
    return iterations, seed


def game_digest(record: dict[str, Any]) -> str:
    """20 hex digits naming a game: its options, set-up (without the seats' names) and moves."""
    game = {k: record.get(k) for k in ("players", "v6", "components", "seed", "setup", "events")}
    game["setup"] = {k: v for k, v in (game["setup"] or {}).items() if k not in ("seats", "names")}
    blob = json.dumps(game, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()[:20]


def cache_file(folder: Path, record: dict[str, Any], game_file: Path | None) -> Path:
    """The review cache of a document's game (see the module docstring): never a name from a request."""
    if game_file is not None:
        return default_cache_path(game_file)
    return folder / f"kwsearch-review-{game_digest(record)}.review-cache.json"


def _stop_on_request(conn) -> None:
    """A thread of the worker: the server's ``"stop"`` (the page's Stop), or the server's end of ``conn``
    closing (the server has died, even killed outright), interrupts the review as Ctrl-C does."""
    # a Ctrl-C of the server's terminal (sent to the whole process group) must reach the main thread, which
    # holds it back while it writes the cache: this thread never takes it
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        conn.recv()
    except (EOFError, OSError):
        pass
    # to the main thread itself: it holds SIGINT back while it writes the cache (worker_procs.sigint_blocked),
    # which a signal to the process, taken by this thread, would not respect
    signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)


def _send(conn, msg: tuple) -> None:
    try:
        conn.send(msg)
    except (OSError, ValueError):
        pass  # the server has gone: nobody is left to tell


def review_process(record: dict[str, Any], iterations: int, seed: int, cache: str, source: str,
                   names: list[str], conn) -> None:
    """The worker: :func:`kwsearch.review.review_game` with ``progress`` sent down ``conn`` (a duplex
    pipe), then ``("done", review JSON, review HTML)``. Anything from the server, or its end closing,
    stops it as Ctrl-C stops the command: the search ends within a slice and what is finished is sent
    (and is in the cache)."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    threading.Thread(target=_stop_on_request, args=(conn,), name="kwsearch-review-stop", daemon=True).start()
    try:
        from ..review import review_game, review_html
        from ..search import SearchLimits

        def progress(done: int, total: int, decision) -> None:
            _send(conn, ("progress", done, total))

        def luck_progress(done: int, total: int) -> None:
            _send(conn, ("luck", done, total))

        result = review_game(record, SearchLimits(iterations=iterations), seed=seed, cache=cache, source=source,
                             names=names, progress=progress, luck_progress=luck_progress)
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # what is finished is sent whole
        _send(conn, ("done", result.to_json(), review_html(result, record)))
    except KeyboardInterrupt:  # stopped before the review began or after it ended: the cache holds the rest
        _send(conn, ("stopped",))
    except KwsearchError as exc:
        _send(conn, ("error", str(exc).splitlines()[0]))
    except Exception as exc:  # noqa: BLE001 - reported to the page as one line, never lost
        _send(conn, ("error", f"internal error: {type(exc).__name__}: {exc}".splitlines()[0]))
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # closing conn wakes the stop thread: nothing to stop now
        conn.close()


def time_left(t0: float, ticks: list[float], left: int, now: float) -> tuple[float, float | None]:
    """Seconds until ``left`` more decisions are done, and the 95% half-width of that (None before two
    decisions), from a run begun at ``t0`` whose decisions ended at ``ticks`` (at least one).

    The mean time per decision times ``left``, less the time since the last one; the interval is a
    prediction interval for the sum of ``left`` more times: ``t * sd * sqrt(left + left^2 / k)`` after
    ``k`` decisions (their own spread, and the uncertainty of the mean), Student's t for ``k - 1`` d.f.

        >>> time_left(0.0, [1.0, 2.0, 3.0], 10, 3.0)
        (10.0, 0.0)
        >>> eta, half = time_left(0.0, [1.0, 4.0], 2, 5.0)  # 1 s and 3 s so far, 1 s since the last
        >>> eta, round(half, 1)
        (3.0, 35.9)
        >>> time_left(0.0, [2.0], 5, 2.5)
        (9.5, None)
    """
    times = [b - a for a, b in zip([t0] + ticks, ticks)]
    k = len(times)
    mean = sum(times) / k
    eta = max(0.0, left * mean - (now - ticks[-1]))
    if k < 2:
        return eta, None
    sd = math.sqrt(sum((t - mean) ** 2 for t in times) / (k - 1))
    return eta, t975(k - 1) * sd * math.sqrt(left + left * left / k)


def _file_stem(name: str) -> str:
    """A download's name from a document's label (letters, digits, ``_.-`` only)."""
    stem = Path(name).name
    for suffix in (".json", ".review"):
        stem = stem.removesuffix(suffix)
    return re.sub(r"[^A-Za-z0-9_.-]", "_", stem)[:80] or "game"


class ReviewRun:
    """One review of a document's game: its worker, its progress and, at the end, its files."""

    def __init__(self, manager: "ReviewManager", doc, record: dict[str, Any], iterations: int, seed: int,
                 cache: Path):
        self.id = secrets.token_urlsafe(9)
        self.manager, self.doc, self.cache = manager, doc, cache
        self.iterations, self.seed = iterations, seed
        self.stem = _file_stem(doc.name)
        self.state = "running"           # running | stopping | stopped | done | error
        self.done = self.total = 0
        self.first: int | None = None    # decisions already in the cache when the worker began
        self.t0 = time.monotonic()
        self.ticks: list[float] = []     # when each decision of this run finished
        self.luck: tuple[int, int] | None = None  # chance events valued of the total, once the decisions are done
        self.ended: float | None = None
        self._final: str | None = None   # the state the worker's last message gives, once it has ended
        self.error: str | None = None
        self.result: dict[str, Any] | None = None
        self.html: str | None = None
        ctx = manager.analyses.ctx
        self._recv, child = ctx.Pipe(duplex=True)  # progress one way, the stop request the other
        self.process = ctx.Process(target=review_process, name=f"kwsearch-review-{self.id}",
                                   args=(record, iterations, seed, str(cache), doc.name, list(doc.names), child),
                                   daemon=True)
        with own_package_first():
            self.process.start()
        child.close()  # the worker holds the only other end: its exit ends our reads with EOF
        self._reader = threading.Thread(target=self._read, name=f"review-{self.id}", daemon=True)
        self._reader.start()

    # -- the worker's messages ---------------------------------------------------
    def _read(self) -> None:
        try:
            while True:
                try:
                    msg = self._recv.recv()
                except (EOFError, OSError):
                    break
                self._message(msg)
        finally:
            self.process.join(STOP_GRACE)
            if self.process.is_alive():
                self.process.terminate()
                self.process.join(2.0)
            self._recv.close()
            with self.manager.analyses.lock:  # the state is final once the worker has ended
                if self._final is not None:
                    self.state = self._final
                elif self.state == "stopping":  # no final message: it was ended while starting
                    self.state = "stopped"
                else:
                    self.state = "error"
                    self.error = f"the review's process ended unexpectedly (exit code {self.process.exitcode})"
                self.ended = time.monotonic()
                self.manager.running.pop(self.id, None)

    def _message(self, msg: tuple) -> None:
        kind = msg[0]
        if kind == "progress":
            _, done, total = msg
            if self.first is None:
                self.first = done
            elif done > self.done:
                self.ticks.append(time.monotonic())
            self.done, self.total = done, total
        elif kind == "luck":  # every decision is reviewed: the chance events' searches (docs/luck.md)
            _, done, total = msg
            self.luck = (done, total)
        elif kind == "done":
            _, result, html = msg
            if result["decisions"]:
                try:  # the page's review panel: marks, graph, win-% change (kwsearch.web.review)
                    self.doc.attach_review(result, f"{self.stem}.review.json")
                except KwsearchError as exc:
                    self.error = str(exc)
            self.result, self.html = result, html
            self.done, self.total = result["reviewed"], result["total"]
            self._final = "done" if result["complete"] else "stopped"
        elif kind == "stopped":
            self._final = "stopped"
        elif kind == "error":
            self._final, self.error = "error", msg[1]

    # -- the page's requests -----------------------------------------------------
    def stop(self) -> None:
        """Ask the worker to stop (it interrupts its review as Ctrl-C does); terminate it if it has not
        ended in :data:`STOP_GRACE`, or at once while it is still starting (before its first report it has
        finished no decision)."""
        if self.state != "running":
            raise WebError(f"the review is not running (it is {self.state})", 409)
        self.state = "stopping"
        if self.first is None:  # still starting: no decision is finished, so there is nothing to keep
            self._terminate()
            return
        try:
            self._recv.send("stop")
        except (OSError, ValueError):
            pass  # it has ended already: the reader sees its end
        timer = threading.Timer(STOP_GRACE, self._terminate)
        timer.daemon = True
        timer.start()

    def _terminate(self) -> None:
        if self.process.is_alive():
            self.process.terminate()

    def status(self) -> dict[str, Any]:
        """What the page shows: the state, decisions done of the total, and while it runs the rate
        of this run and the time left (:func:`time_left`)."""
        now = self.ended or time.monotonic()
        elapsed = now - self.t0
        new = len(self.ticks)
        rate = eta = eta_half = None
        if new:
            rate = new / (self.ticks[-1] - self.t0) if self.ticks[-1] > self.t0 else None
        if self.state == "running" and new:
            eta, eta_half = time_left(self.t0, self.ticks, max(0, self.total - self.done), now)
        base = f"/api/docs/{self.doc.id}/review"
        return {
            "id": self.id, "state": self.state, "done": self.done, "total": self.total,
            "cached": self.first or 0, "iterations": self.iterations, "seed": self.seed,
            "elapsed": round(elapsed, 2), "rate": rate, "eta": eta, "eta_half": eta_half,
            "cache": self.cache.name, "error": self.error,
            "luck": None if self.luck is None else {"done": self.luck[0], "total": self.luck[1]},
            "complete": bool(self.result and self.result["complete"]),
            "files": {"json": f"{base}/{self.stem}.review.json", "html": f"{base}/{self.stem}.review.html"}
            if self.result is not None else None,
        }


class ReviewManager:
    """The server's reviews: the latest run of each document; the running ones hold analysis slots."""

    def __init__(self, analyses: AnalysisManager, folder: Path):
        self.analyses, self.folder = analyses, folder
        self.runs: dict[str, ReviewRun] = {}      # document id -> its latest run
        self.running: dict[str, ReviewRun] = {}   # run id -> a run whose worker has not ended
        analyses.others = lambda: len(self.running)

    def start(self, doc, body: Any) -> ReviewRun:
        """A review of ``doc``'s main line with the budget of ``body``; :class:`WebError` 409 for a position,
        a game without decisions or a review of the same game running, 429 when every slot is taken."""
        iterations, seed = parse_budget(body)
        if doc.kind != "record":
            raise WebError(f"{doc.name}: a position has no game to review; open a game record", 409)
        end = doc.main_end()
        if end == 0:
            raise WebError(f"{doc.name}: the game has no decision yet: there is nothing to review", 409)
        record = doc.record_at(end)
        cache = cache_file(self.folder, record, doc.game_file)
        with self.analyses.lock:
            for run in self.running.values():
                if run.doc is doc or run.cache == cache:
                    raise WebError(f"{doc.name}: a review of this game is running already; stop it first", 409)
            self.analyses.refuse_when_full()
            run = ReviewRun(self, doc, record, iterations, seed, cache)
            self.running[run.id] = run
            self.runs.pop(doc.id, None)
            self.runs[doc.id] = run
            for old in list(self.runs)[:-KEEP_RUNS]:
                if self.runs[old].id not in self.running:
                    del self.runs[old]
        return run

    def latest(self, doc) -> ReviewRun | None:
        return self.runs.get(doc.id)

    def finished(self, doc) -> ReviewRun:
        """The document's latest run that has files (done or stopped with decisions); 404 otherwise."""
        run = self.runs.get(doc.id)
        if run is None or run.result is None:
            raise WebError(f"{doc.name}: no review run from the page has ended yet", 404)
        return run

    def close_all(self) -> None:
        for run in list(self.running.values()):
            if run.state == "running":
                run.stop()
        for run in list(self.running.values()):
            run.process.join(STOP_GRACE)
            if run.process.is_alive():
                run.process.terminate()
                run.process.join(1.0)
