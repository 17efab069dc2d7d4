"""Ray as a backend: the one place commands start or join Ray and run their jobs as Ray tasks.

``kwsearch tournament --backend ray``, ``kwsearch tune --backend ray`` and
``bench/generation.py --backend ray`` run every game as a Ray task that calls the
same function a local worker calls, so a game's line is the same whichever
backend played it. :func:`ray_session` starts a local Ray instance (``workers``
CPUs) or joins a cluster at ``address``, and shuts Ray down on leaving if it
started (or joined) it — after the last job, on an error and on Ctrl-C alike; a
session Ray already had (a test's ``ray.init``) is left running.
:meth:`RaySession.run` runs jobs with at most ``workers`` in flight and hands
each result to ``record`` either as it finishes (a tournament, whose lines carry
their game number) or in the order the jobs were given (``ordered=True``: a
tuning log, whose lines must come in the order of an uninterrupted local run).

A job names its function as ``"module:name"``: the task imports it on the
worker, from the driver's ``kwsearch`` first (Ray puts the driver's working
directory on a worker's path, where a source checkout without its compiled
extension would otherwise shadow the installed package). An exception of the
kwsearch family raised by a job is raised again in the driver as itself (as a
local worker's would be); any other failure is ``error`` with one line.
"""

from __future__ import annotations

import itertools
from collections import deque
from pathlib import Path
from typing import Any, Callable, Iterable

from .errors import KwsearchError

#: The message when Ray is not importable (the CLI prefixes the option: ``--backend ray: ...``).
NOT_INSTALLED = 'backend ray: Ray is not installed (pip install ".[ray]" in the kwsearch clone)'


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


#: Seconds to wait for the head of a cluster to answer at ``--address`` before saying it does not.
CONNECT_SECONDS = 5.0


def check_address(address: str) -> tuple[str, int] | None:
    """The ``(host, port)`` of a cluster address (``HOST:PORT``, ``ray://HOST:PORT``, ``[v6]:PORT``),
    or None for ``auto`` (the cluster this machine runs: Ray finds it); else a one-line ValueError."""
    if address == "auto":
        return None
    text = address[len("ray://"):] if address.startswith("ray://") else address
    host, sep, port = text.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536 or any(c.isspace() for c in host):
        raise ValueError("expected HOST:PORT, e.g. 10.0.0.5:6379, or ray://HOST:PORT, or auto")
    return host, int(port)


def _reachable(host: str, port: int, seconds: float = CONNECT_SECONDS) -> str | None:
    """None if something accepts a connection at host:port within ``seconds``, else why not. (Ray
    itself retries an address where nothing answers for minutes, printing as it goes.)"""
    import socket
    try:
        with socket.create_connection((host, port), timeout=seconds):
            return None
    except socket.timeout:
        return f"no answer within {seconds:g} s"
    except OSError as exc:
        return exc.strerror or type(exc).__name__


def check_cluster(address: str, error: Callable[[str], Exception]) -> None:
    """``error`` (one line) unless ``address`` is a cluster address where something answers: a command
    checks it before it writes anything, and :func:`ray_session` before it joins."""
    try:
        where = check_address(address)
    except ValueError as exc:
        raise error(f"backend ray: cannot join Ray at {address} ({exc})") from None
    why = _reachable(*where) if where else None
    if why:
        raise error(f"backend ray: cannot join Ray at {address} (nothing answers there: {why})")


class RaySession:
    """Ray, started or joined by :func:`ray_session`; :meth:`run` runs jobs as tasks."""

    def __init__(self, ray: Any, workers: int, error: Callable[[str], Exception]):
        self.ray, self.workers, self.error = ray, max(1, workers), error
        home = str(Path(__file__).resolve().parent.parent)

        def call(target: str, args: tuple, home: str = home) -> Any:
            # Defined here so that Ray ships it by value: the worker imports kwsearch only below,
            # from the driver's copy first.
            import importlib
            import sys
            if sys.path[:1] != [home]:
                sys.path.insert(0, home)
            module, _, name = target.partition(":")
            return getattr(importlib.import_module(module), name)(*args)

        self._remote = ray.remote(num_cpus=1)(call)

    def _get(self, ref: Any) -> Any:
        try:
            return self.ray.get(ref)
        except self.ray.exceptions.RayTaskError as exc:
            cause = getattr(exc, "cause", None)
            if isinstance(cause, KwsearchError):
                raise cause from None
            raise self.error(f"backend ray: a task failed ({_first_line(cause or exc)})") from None
        except self.ray.exceptions.RayError as exc:  # a worker or node lost, a task cancelled
            raise self.error(f"backend ray: a task was lost ({_first_line(exc)})") from None

    def run(self, target: str, jobs: Iterable[tuple], record: Callable[[Any], bool | None], *,
            ordered: bool = False) -> bool:
        """Run ``target(*job)`` for every job, at most ``workers`` at once, handing each result to
        ``record`` (as it finishes, or in the jobs' order with ``ordered``). ``record`` returning True
        stops the run: no job is started after it (the running ones are cancelled). Returns whether
        ``record`` stopped it. An exception (Ctrl-C included) cancels the running jobs and is raised."""
        ray = self.ray
        pending = iter(jobs)
        running: deque = deque()

        def submit(n: int) -> None:
            for job in itertools.islice(pending, n):
                running.append(self._remote.remote(target, tuple(job)))

        stop = False
        try:
            submit(self.workers)
            while running and not stop:
                if ordered:
                    finished = [running.popleft()]
                else:
                    done, _ = ray.wait(list(running), num_returns=1)
                    finished = done
                    for ref in done:
                        running.remove(ref)
                for ref in finished:
                    stop |= bool(record(self._get(ref)))
                if not stop:
                    submit(len(finished))
        except BaseException:
            self.cancel(running)
            raise
        self.cancel(running)
        return stop

    def cancel(self, refs: Iterable[Any]) -> None:
        """Cancel tasks still running (their results are not wanted)."""
        for ref in list(refs):
            try:
                self.ray.cancel(ref, force=True)
            except Exception:  # already finished, or Ray going down: nothing left to stop
                pass


class ray_session:
    """``with ray_session(workers, address, error) as session:`` — Ray started (``workers`` CPUs) or
    joined (``address``); shut down on leaving if this call started or joined it. ``error`` builds the
    one-line error of the caller's family (Ray missing, no cluster at ``address``)."""

    def __init__(self, workers: int, address: str | None, error: Callable[[str], Exception]):
        self.workers, self.address, self.error = workers, address, error
        self.started = False

    def __enter__(self) -> RaySession:
        try:
            import ray
        except ImportError:
            raise self.error(NOT_INSTALLED) from None
        if not ray.is_initialized():
            if self.address:
                check_cluster(self.address, self.error)
            try:
                if self.address:
                    ray.init(address=self.address, log_to_driver=False)
                else:
                    ray.init(num_cpus=max(1, self.workers), include_dashboard=False, log_to_driver=False)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                where = f" at {self.address}" if self.address else ""
                raise self.error(f"backend ray: cannot start or join Ray{where} ({_first_line(exc)})") from None
            self.started = True
        self.ray = ray
        try:
            return RaySession(ray, self.workers, self.error)
        except BaseException:
            self.__exit__()
            raise

    def __exit__(self, *exc: Any) -> None:
        if self.started:
            self.ray.shutdown()
