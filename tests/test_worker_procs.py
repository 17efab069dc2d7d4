"""kwsearch.worker_procs: stopping a process pool never hangs, and a Ctrl-C is taken between waits.

Both were seen as a ``review --workers 2`` that did not end after Ctrl-C (one CI run in many):
the pool's manager thread waited for the rest of a result whose worker had just been stopped, or
for a future's lock a ``KeyboardInterrupt`` inside ``concurrent.futures.wait`` had left held.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
from concurrent.futures import Future

import pytest

from kwsearch.worker_procs import all_results, wait_first

from helpers import subprocess_env

pytestmark = pytest.mark.one_engine

LINUX = sys.platform.startswith("linux")

# A pool whose one worker sends the header of a 1 MB result, then 10 bytes of it, and stops there for
# ever (it holds the results pipe's write lock, as a worker stopped mid-send does). The worker finds the
# results queue in its caller's frame (concurrent.futures.process._process_worker's ``result_queue``).
HALF_SENT = textwrap.dedent("""
    import os, struct, sys, time
    from concurrent.futures import ProcessPoolExecutor
    from kwsearch.worker_procs import pool_worker_init, terminate_pool

    def half_sent():
        frame = sys._getframe(1)
        while "result_queue" not in frame.f_locals:
            frame = frame.f_back
        queue = frame.f_locals["result_queue"]
        queue._wlock.acquire()
        os.write(queue._writer.fileno(), struct.pack("!i", 1_000_000) + b"x" * 10)
        time.sleep(3600)

    if __name__ == "__main__":
        pool = ProcessPoolExecutor(max_workers=1, initializer=pool_worker_init, initargs=(os.getpid(),))
        future = pool.submit(half_sent)
        time.sleep(1.0)  # the manager thread is reading the half message
        terminate_pool(pool)
        print("stopped", type(future.exception()).__name__)
""")


@pytest.mark.skipif(not LINUX, reason="the results pipe's framing is read from Linux's multiprocessing")
def test_terminate_pool_ends_when_a_worker_stopped_in_the_middle_of_a_result(tmp_path):
    script = tmp_path / "half_sent.py"
    script.write_text(HALF_SENT)
    try:
        proc = subprocess.run([sys.executable, str(script)], env=subprocess_env(), capture_output=True, text=True,
                              timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("terminate_pool waited for ever for the rest of a result its worker never sent")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "stopped BrokenProcessPool"


def _sigint_soon(seconds: float = 0.2) -> threading.Timer:
    timer = threading.Timer(seconds, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    return timer


def test_wait_first_returns_the_first_finished():
    a, b = Future(), Future()
    b.set_result(2)
    done, rest = wait_first({a, b})
    assert done == {b} and rest == {a}


def test_ctrl_c_in_wait_first_is_raised_from_it_with_no_lock_left_held():
    before = signal.getsignal(signal.SIGINT)
    pending = Future()
    timer = _sigint_soon()
    with pytest.raises(KeyboardInterrupt):
        wait_first({pending})
    timer.join()
    assert signal.getsignal(signal.SIGINT) is before
    # the future's lock is free: another thread (the pool's manager thread) can finish it
    setter = threading.Thread(target=pending.set_result, args=(1,))
    setter.start()
    setter.join(5)
    assert not setter.is_alive() and pending.result() == 1


def test_all_results_keeps_the_order_and_raises_a_jobs_error():
    a, b, c = Future(), Future(), Future()
    c.set_result("c")
    b.set_result("b")
    a.set_result("a")
    assert all_results([a, b, c]) == ["a", "b", "c"]
    bad, never = Future(), Future()
    bad.set_exception(ValueError("game 3 failed"))
    with pytest.raises(ValueError, match="game 3 failed"):
        all_results([never, bad])  # raised when seen, without waiting for the rest


def test_wait_first_outside_the_main_thread_is_a_plain_wait():
    out = []
    ready = Future()
    ready.set_result(1)
    t = threading.Thread(target=lambda: out.append(wait_first({ready})))
    t.start()
    t.join(5)
    assert out == [({ready}, set())]


def _wait_through_a_ctrl_c(handler):
    """wait_first on a future finished 0.5 s from now, with ``handler`` for SIGINT and a Ctrl-C at 0.2 s."""
    before = signal.signal(signal.SIGINT, handler)
    try:
        pending = Future()
        timer = _sigint_soon(0.2)
        finisher = threading.Timer(0.5, pending.set_result, (1,))
        finisher.start()
        done, rest = wait_first({pending})
        timer.join()
        finisher.join()
    finally:
        signal.signal(signal.SIGINT, before)
    return pending, done, rest


def test_a_handler_that_only_notes_ctrl_c_is_called_and_the_wait_goes_on():
    seen = []
    pending, done, rest = _wait_through_a_ctrl_c(lambda signum, frame: seen.append(signum))
    assert seen == [signal.SIGINT] and done == {pending} and rest == set()


def test_an_ignored_ctrl_c_stays_ignored():
    pending, done, rest = _wait_through_a_ctrl_c(signal.SIG_IGN)
    assert done == {pending} and rest == set()
