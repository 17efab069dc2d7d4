"""Driving the analysis board from outside: a server in a subprocess and a headless Chromium.

Used by the end-to-end tests (``tests/test_web_e2e.py``), the latency benchmark
(``bench/bench_web.py``) and the screenshots of ``docs/web.md``
(``docs/web_screenshots.py``)::

    with running_server(["examples/game-2p.json"], games_dir=tmp) as url, chromium() as driver:
        driver.get(url)

:func:`running_server` runs ``python -m kwsearch.cli serve`` on a free loopback
port (the same process layout as a user's: the analyses' forkserver, the
workers) and stops it on exit; :func:`chromium` starts Debian's ``chromium``
through ``chromedriver`` with selenium, or raises :class:`BrowserMissing`.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Iterator

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


class BrowserMissing(RuntimeError):
    """selenium, chromium or chromedriver is not installed."""


def browser_missing() -> str | None:
    """Why a headless browser cannot run here, or None when it can."""
    import importlib.util
    if importlib.util.find_spec("selenium") is None:
        return "selenium is not installed"
    for path in (CHROMIUM, CHROMEDRIVER):
        if not (os.path.exists(path) or shutil.which(Path(path).name)):
            return f"{path} is not installed (Debian: apt-get install chromium chromium-driver)"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running_server(args: list[str], *, games_dir: Path, cwd: Path | None = None,
                   timeout: float = 30.0) -> Iterator[str]:
    """``kwsearch serve ARGS`` on a free 127.0.0.1 port until the block ends; yields its URL.

    The server runs in ``cwd`` (default: the current folder), so relative file names in ``ARGS``
    are read from there; it imports the same ``kwsearch`` as this process (installed or a checkout).
    """
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ)
    env["PYTHONPATH"] = str(root) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    for attempt in range(3):  # another process may take the port between choosing and binding
        port = free_port()
        log = tempfile.TemporaryFile("w+")  # a file, not a pipe: a full pipe would block the server
        proc = subprocess.Popen([sys.executable, "-P", "-m", "kwsearch.cli", "serve", *args, "--port", str(port),
                                 "--games-dir", str(games_dir)], cwd=str(cwd or Path.cwd()), env=env,
                                stdout=log, stderr=subprocess.STDOUT, text=True)
        url = f"http://127.0.0.1:{port}/"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with urllib.request.urlopen(url + "api/info", timeout=1):
                    break
            except OSError:
                time.sleep(0.1)
        if proc.poll() is None and time.monotonic() < deadline:
            break
        out = _stop(proc, log)
        if "address already in use" not in out.lower() or attempt == 2:
            raise RuntimeError(f"kwsearch serve did not start:\n{out}")
    try:
        yield url
    finally:
        _stop(proc, log)


def _stop(proc: subprocess.Popen, log) -> str:
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)  # a graceful stop: uvicorn ends the analyses
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
    log.seek(0)
    out = log.read()
    log.close()
    return out


@contextlib.contextmanager
def chromium(width: int = 1500, height: int = 1000, downloads: Path | None = None):
    """A headless Chromium driven by selenium (quit on exit)."""
    why = browser_missing()
    if why:
        raise BrowserMissing(why)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    opts = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={width},{height}", "--force-device-scale-factor=1"):
        opts.add_argument(arg)
    opts.binary_location = CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium")
    if downloads is not None:
        opts.add_experimental_option("prefs", {"download.default_directory": str(downloads),
                                               "download.prompt_for_download": False})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER if os.path.exists(CHROMEDRIVER)
                                              else shutil.which("chromedriver")), options=opts)
    try:
        yield driver
    finally:
        driver.quit()


def fetch_text(driver, url: str) -> str:
    """GET ``url`` from inside the page (same origin) and return the body text."""
    return driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch(arguments[0]).then(r => r.text()).then(done, e => done('ERROR ' + e));", url)


def wait_script(driver, script: str, timeout: float = 20.0, poll: float = 0.05):
    """Run ``script`` in the page until it returns something true; that value, or RuntimeError."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = driver.execute_script(script)
        if value:
            return value
        time.sleep(poll)
    raise RuntimeError(f"timed out: {script}")
