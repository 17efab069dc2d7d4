"""Live analyses: one worker process each, a bounded number at a time.

A search holds a core for as long as it runs, so it cannot live in the server's
event loop: each analysis is a :mod:`multiprocessing` process running
:func:`kwsearch.web.engine_bridge.analysis_process`, which sends its updates
down a pipe. The server reads the pipe without blocking (the event loop watches
its file descriptor) and forwards every update to the page. Processes come from
a *forkserver* where the platform has one — a small process that has already
imported the engine and forks a fresh worker in milliseconds, and is safe to use
from a server with threads — else they are spawned.

An analysis ends when its search does (time limit, full node pool) or when the
page asks (:meth:`Analysis.stop`); the worker then re-searches the options shown
(a few seconds at most, docs/confidence.md) and sends the verified result. It
also ends when the page goes away (the stream's generator is closed), and its
slot is free again once the process has exited.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import secrets
import sys
import threading
from pathlib import Path
from typing import Any, AsyncIterator, Callable

from . import WebError
from .engine_bridge import analysis_process

#: Modules the forkserver imports once, so each worker starts without importing them. A worker
#: also runs the main module again before it starts (multiprocessing's rule; the forkserver's
#: own "__main__" preload does not work in CPython 3.11), which for ``kwsearch serve`` is
#: ``kwsearch.cli``: with click preloaded that costs milliseconds, not a few tenths.
_PRELOAD = ["kwsearch.web.engine_bridge", "kwsearch.search", "kwsearch._search", "kwsearch._fast",
            "kwsearch.analysis", "kwsearch.play", "click"]


@contextlib.contextmanager
def own_package_first():
    """Put the folder of the ``kwsearch`` this server runs first on ``sys.path`` while a worker starts.

    A forkserver or spawned worker takes the server's ``sys.path`` as it is at ``start()`` and
    imports ``kwsearch`` anew; if something put a source checkout without the compiled engine
    ahead of the installed package, the worker would import that and die before it runs.
    """
    own = str(Path(__file__).resolve().parents[2])
    saved = list(sys.path)
    sys.path[:] = [own] + [p for p in saved if p != own]
    try:
        yield
    finally:
        sys.path[:] = saved


def _context():
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(_PRELOAD)
        return ctx
    return multiprocessing.get_context("spawn")


class Analysis:
    """One running analysis: its process and the pipe between them.

    The pipe carries the worker's updates one way and the stop request the other:
    the worker stops as soon as anything arrives from the server or the server's
    end closes (:class:`~kwsearch.web.engine_bridge.PipeStop`), so no shared
    semaphore is needed.
    """

    def __init__(self, manager: "AnalysisManager", position: dict[str, Any], seed: int, label: str,
                 hint_iterations: int | None = None):
        self.id = secrets.token_urlsafe(9)
        self.label = label
        self.manager = manager
        ctx = manager.ctx
        self._recv, child = ctx.Pipe(duplex=True)
        self.process = ctx.Process(target=analysis_process, name=f"kwsearch-analysis-{self.id}",
                                   args=(position, seed, manager.seconds, manager.max_nodes, manager.interval,
                                         child, hint_iterations), daemon=True)
        with own_package_first():
            self.process.start()
        child.close()  # the worker holds the only other end: its exit ends our reads with EOF
        self._closed = False
        self._stopped = False

    def stop(self) -> None:
        """Ask the search to stop; it sends its final statistics and exits."""
        if self._stopped or self._closed:
            return
        self._stopped = True
        try:
            self._recv.send("stop")
        except (OSError, ValueError):
            pass  # the worker has gone already

    async def messages(self) -> AsyncIterator[tuple[str, Any]]:
        """The worker's messages as they come (``("update" | "done" | "error", payload)``)."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue = asyncio.Queue()
        fd = self._recv.fileno()

        def readable() -> None:
            try:
                while self._recv.poll():
                    queue.put_nowait(self._recv.recv())
            except (EOFError, OSError):
                loop.remove_reader(fd)
                queue.put_nowait(None)

        loop.add_reader(fd, readable)
        try:
            while True:
                msg = await queue.get()
                if msg is None:
                    return
                yield msg
                if msg[0] in ("done", "error"):
                    return
        finally:
            loop.remove_reader(fd)

    def close(self, wait: float = 3.0) -> None:
        """Stop the search, reap the process (terminating it if it does not stop) and free the slot."""
        if self._closed:
            return
        self.stop()
        self._closed = True
        self.process.join(wait)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(1.0)
        self._recv.close()
        self.manager._release(self)
        self.manager._reaped(self)

    def close_in_background(self) -> None:
        """:meth:`close` without blocking the caller (the event loop): a short-lived thread reaps it.

        The slot is free at once: the search stops within one slice (50 ms), so a
        page that moves on to another position can start its next analysis now.
        """
        self.stop()
        self.manager._release(self)
        threading.Thread(target=self.close, name=f"reap-{self.id}", daemon=True).start()


class AnalysisManager:
    """Starts analyses, at most ``limit`` at a time (each takes a core while it runs)."""

    def __init__(self, limit: int = 2, seconds: float = 600.0, max_nodes: int = 2_000_000,
                 interval: float = 0.2):
        if limit < 1:
            raise ValueError(f"analyses: expected a limit of at least 1, got {limit}")
        self.limit, self.seconds, self.max_nodes, self.interval = limit, seconds, max_nodes, interval
        self.ctx = _context()
        #: Held while a slot is counted and taken (the page's reviews take theirs under it too).
        self.lock = threading.Lock()
        #: The slots other work of the server holds (the page's reviews, :mod:`kwsearch.web.reviews`): the
        #: ``limit`` bounds all of it together, since each takes a core.
        self.others: Callable[[], int] = lambda: 0
        self.running: dict[str, Analysis] = {}     # analyses holding a slot
        self.processes: dict[str, Analysis] = {}   # analyses whose process has not been reaped yet

    def warm_up(self) -> None:
        """Start the forkserver now (it imports the engine once), so the first analysis starts fast."""
        if self.ctx.get_start_method() == "forkserver":
            from multiprocessing import forkserver
            with own_package_first():  # its preloads import the same kwsearch as this server
                forkserver.ensure_running()

    def start(self, position: dict[str, Any], seed: int, label: str, hint_iterations: int | None = None) -> Analysis:
        """A new analysis of ``position``, or :class:`WebError` 429 when ``limit`` already run.

        With ``hint_iterations`` it is a hint: a search of that many iterations whose options
        are re-searched until clear (:func:`~kwsearch.web.engine_bridge.analysis_process`)."""
        with self.lock:
            self.refuse_when_full()
            an = Analysis(self, position, seed, label, hint_iterations)
            self.running[an.id] = an
            self.processes[an.id] = an
            return an

    def get(self, aid: str) -> Analysis:
        an = self.running.get(aid)
        if an is None:
            raise WebError("no such analysis (it has ended or never existed)", 404)
        return an

    def refuse_when_full(self) -> None:
        """A 429 when every slot is taken, by analyses and by the other work (:attr:`others`); call it holding
        :attr:`lock`, and take the slot under the same hold."""
        busy = len(self.running) + self.others()
        if busy >= self.limit:
            raise WebError(f"{busy} analyses and reviews are running already (the limit is {self.limit}); "
                           "stop one first", 429)

    def _release(self, an: Analysis) -> None:
        with self.lock:
            self.running.pop(an.id, None)

    def _reaped(self, an: Analysis) -> None:
        with self.lock:
            self.processes.pop(an.id, None)

    def close_all(self) -> None:
        for an in list(self.processes.values()):
            an.stop()
        for an in list(self.processes.values()):
            an.close()
