"""Running the analysis board: load the files given, build the app, serve it with uvicorn."""

from __future__ import annotations

import dataclasses
import ipaddress
import threading
import time
import webbrowser
from pathlib import Path
from typing import Callable

from ..errors import KwsearchError
from ..formats import read_json
from . import require_web


def is_loopback(host: str) -> bool:
    """Whether ``host`` is reachable only from this machine (``127.0.0.1``, ``::1``, ``localhost``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def host_warning(host: str) -> str | None:
    """The warning printed when the server is bound beyond this machine, else None."""
    if is_loopback(host):
        return None
    return (f"warning: serving on {host}: anyone who can reach this machine on the network can open the board, "
            "start analyses and play the games of this server (bind 127.0.0.1, the default, to keep it local)")


def board_url(host: str, port: int) -> str:
    """The address to open the board at (a wildcard ``host`` is reached through 127.0.0.1)."""
    shown = f"[{host}]" if ":" in host else host
    return f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else shown}:{port}/"


def bound_port(server, asked: int) -> int:
    """The port uvicorn's ``server`` listens on: ``asked``, or the one the system chose for port 0."""
    for srv in getattr(server, "servers", None) or []:
        for sock in getattr(srv, "sockets", None) or []:
            return sock.getsockname()[1]
    return asked


def build_app(file: str | None, review: str | None, config):
    """The app with ``file`` (a record or position) and ``review`` loaded; errors name the file."""
    from .app import create_app
    files = [(Path(file).name, read_json(file))] if file else []
    rev = (Path(review).name, read_json(review)) if review else None
    return create_app(config, files=files, review=rev)


def serve(file: str | None, *, review: str | None = None, host: str = "127.0.0.1", port: int = 8000,
          open_browser: bool = False, config=None, echo: Callable[[str], None] = print) -> None:
    """Serve the board until Ctrl-C (see ``kwsearch serve --help``)."""
    require_web()
    import uvicorn
    from .app import WebConfig
    config = dataclasses.replace(config or WebConfig(), host=host)  # a request's Host may name it
    if not config.games_dir.is_dir():
        raise KwsearchError(f"{config.games_dir}: no such folder (the games folder must exist)")
    app = build_app(file, review, config)
    warning = host_warning(host)
    if warning:
        echo(warning)
    # log_config=None: uvicorn leaves the process's logging as it is. Its own configuration
    # (logging.config.dictConfig) first shuts down every handler already installed, and one that
    # another library installed (absl's, with OpenSpiel) closes the stream it writes to.
    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on",
                                           log_config=None))

    def announce() -> None:
        while not server.started and not server.should_exit:
            time.sleep(0.05)
        if server.started:
            url = board_url(host, bound_port(server, port))
            echo(f"kwsearch analysis board on {url} (Ctrl-C stops it); games are saved in {config.games_dir}")
            if open_browser:
                webbrowser.open(url)

    threading.Thread(target=announce, daemon=True).start()
    server.run()
