"""Worker processes: how many a command may start, and how a worker ends with its parent.

* :func:`max_workers` is the one bound on a ``--workers`` option (``suggest``,
  ``review``, ``tournament``, ``tune``) and on :func:`kwsearch.review.review_game`'s
  ``workers``: four per CPU this process may run on, at most 256 (the search's own
  limit), 64 when the CPU count is unknown. A thousand processes on a two-core
  machine only thrash its memory; a typo must not start them.
* :func:`die_with_parent` makes a worker end when the process that started it
  dies, even by SIGKILL, which gives the parent no chance to stop its workers: on
  Linux the kernel sends the worker SIGTERM (``prctl(PR_SET_PDEATHSIG)``); a thread
  that watches ``os.getppid()`` is the fallback elsewhere (and covers a parent that
  died before the ``prctl``).
* :func:`pool_worker_init` is a ``ProcessPoolExecutor`` initializer doing that and
  leaving Ctrl-C to the parent: a terminal sends SIGINT to the whole process group,
  and a worker that took it would print a traceback of its own; the parent stops
  its workers instead.
* :func:`wait_first` waits for a pool's first finished job and takes a Ctrl-C only
  between waits (a ``KeyboardInterrupt`` raised inside ``concurrent.futures.wait``
  could leave a future's lock held, which the pool's manager thread then waits for);
  :func:`terminate_pool` stops a pool without hanging on a result cut in half.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

#: The bound when the CPU count is unknown, and the least bound anywhere (a small machine may still run a few).
FALLBACK_WORKERS = 64
#: The search's own limit of root-parallel workers (``kwsearch.search.MAX_WORKERS``).
HARD_MAX_WORKERS = 256
#: How often the fallback watcher looks at the parent (seconds).
WATCH_SECONDS = 0.25

_PR_SET_PDEATHSIG = 1


def cpu_count() -> int | None:
    """The CPUs this process may run on (its affinity), else the machine's, else None."""
    if hasattr(os, "sched_getaffinity"):
        try:
            return len(os.sched_getaffinity(0)) or None
        except OSError:
            pass
    return os.cpu_count()


def max_workers() -> int:
    """The largest worker count a command accepts: 4 per CPU, at most 256; 64 if the CPUs are unknown."""
    n = cpu_count()
    return min(HARD_MAX_WORKERS, 4 * n) if n else FALLBACK_WORKERS


def check_workers(workers: object, error: type[Exception], name: str = "workers") -> int:
    """``workers`` if it is an integer from 1 to :func:`max_workers`, else ``error`` (one line)."""
    top = max_workers()
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= top:
        raise error(f"{name}: expected 1 to {top} (4 per CPU), got {workers!r}")
    return workers


def _set_pdeathsig(sig: int) -> bool:
    """Ask Linux to send ``sig`` to this process when its parent (thread) dies; False if not possible."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process of that id: something is there
        return True
    return True


def die_with_parent(parent: int | None = None) -> None:
    """In a worker: end (SIGTERM) when the process that started it dies.

    ``parent`` is the pid of the process that owns the worker (``os.getpid()`` there,
    passed down). It may differ from ``os.getppid()`` (a forkserver starts the
    worker); then the forkserver, which ends with its owner, is what is watched, and
    the owner is checked once here.
    """
    ppid = os.getppid()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a handler inherited by fork must not catch it
    _set_pdeathsig(signal.SIGTERM)
    # the parent may have died before the prctl (the kernel then sends nothing)
    if os.getppid() != ppid or (parent is not None and parent != ppid and not _alive(parent)):
        os._exit(1)

    def watch() -> None:
        while True:
            time.sleep(WATCH_SECONDS)
            if os.getppid() != ppid:
                os._exit(1)

    threading.Thread(target=watch, name="kwsearch-parent-watch", daemon=True).start()


def pool_worker_init(parent: int | None = None) -> None:
    """A ``ProcessPoolExecutor`` initializer: ignore Ctrl-C (the parent handles it), and end with
    the parent (:func:`die_with_parent`). Start the pool with SIGINT blocked (:func:`sigint_blocked`)
    so that no Ctrl-C reaches a worker before this runs."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    die_with_parent(parent)


class sigint_blocked:
    """``with sigint_blocked():`` — SIGINT held back in this thread (processes forked inside inherit the
    mask); a Ctrl-C that came meanwhile is delivered on leaving. Only in the main thread: elsewhere a
    no-op (SIGINT goes to the main thread anyway)."""

    def __enter__(self) -> "sigint_blocked":
        self._mask = None
        if hasattr(signal, "pthread_sigmask") and threading.current_thread() is threading.main_thread():
            self._mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        return self

    def __exit__(self, *exc) -> None:
        if self._mask is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, self._mask)


#: How often :func:`wait_first` looks for a Ctrl-C that came while it waited (seconds).
CTRL_C_POLL = 0.1


def wait_first(futures, poll: float = CTRL_C_POLL):
    """``concurrent.futures.wait(futures, return_when=FIRST_COMPLETED)`` (``(done, not_done)``), with a
    Ctrl-C taken only between waits of at most ``poll`` seconds: it raises ``KeyboardInterrupt`` from
    here, never from inside ``wait``, which holds the futures' locks while it looks at them (a lock left
    held would stop the pool's manager thread, and :func:`terminate_pool` with it). In the main thread
    only (elsewhere a plain ``wait``: SIGINT goes to the main thread). What the Ctrl-C then does is what
    the handler in place says: Python's default raises ``KeyboardInterrupt``, another handler is called,
    an ignored SIGINT stays ignored, and SIG_DFL ends the process as it would have."""
    from concurrent.futures import FIRST_COMPLETED, wait
    old = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or old is None or old == signal.SIG_IGN:
        return wait(futures, return_when=FIRST_COMPLETED)
    hit: list[int] = []

    def on_sigint(signum, frame) -> None:
        hit.append(signum)
    while True:
        hit.clear()
        signal.signal(signal.SIGINT, on_sigint)
        try:
            while not hit:
                done, rest = wait(futures, timeout=poll, return_when=FIRST_COMPLETED)
                if done and not hit:
                    return done, rest
        finally:
            signal.signal(signal.SIGINT, old)
        if old == signal.SIG_DFL:
            signal.raise_signal(signal.SIGINT)
        else:
            old(signal.SIGINT, None)  # Python's default_int_handler raises KeyboardInterrupt
        # a handler that returned (it only noted the Ctrl-C): wait on, as a plain wait would have


def all_results(futures: list) -> list:
    """The results of ``futures`` in their order (what ``list(pool.map(...))`` gives), waited for with
    :func:`wait_first`; a job's error is raised as soon as it is seen."""
    rest = set(futures)
    while rest:
        done, rest = wait_first(rest)
        for f in done:
            f.result()
    return [f.result() for f in futures]


def _join_or_kill(processes, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    for p in processes:
        try:
            p.join(max(0.0, deadline - time.monotonic()))
            if p.is_alive():
                p.kill()
                p.join(1)
        except (OSError, ValueError, AttributeError, AssertionError):
            pass


def terminate_pool(pool) -> None:
    """Stop a ``ProcessPoolExecutor`` now: its worker processes are sent SIGTERM (SIGKILL if one is
    still there after 5 s; a decision or game being worked on is lost anyway) and queued work is
    cancelled. The pool's manager thread is then waited for, so that the interpreter's exit finds no
    pool to wake (Python 3.11's exit hook can otherwise write to a pipe the thread has closed and print
    a traceback).

    A worker stopped while it was sending a large result leaves half a message in the results pipe,
    and the manager thread would wait for the rest for ever (this process holds the pipe's write end
    too, so it never reads end-of-file). Once the workers are gone that write end is closed here: the
    thread reads end-of-file, finds the pool broken and ends. SIGINT is held back meanwhile (a second
    Ctrl-C comes after, not in the middle)."""
    with sigint_blocked():
        processes = list((getattr(pool, "_processes", None) or {}).values())
        for p in processes:
            try:
                p.terminate()
            except (OSError, ValueError, AttributeError):
                pass
        _join_or_kill(processes, 5.0)
        queue = getattr(pool, "_result_queue", None)
        writer = getattr(queue, "_writer", None)
        if writer is not None and not any(_is_alive(p) for p in processes):
            try:
                writer.close()
            except OSError:
                pass
        pool.shutdown(wait=True, cancel_futures=True)


def _is_alive(process) -> bool:
    try:
        return process.is_alive()
    except (OSError, ValueError, AssertionError):
        return False
