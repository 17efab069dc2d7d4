"""The board's defences against other web sites and against requests that name files.

A local server answers whatever reaches its port, and a web page the user opens
elsewhere can make the browser send requests there:

* **DNS rebinding**: a foreign site whose name is made to resolve to 127.0.0.1
  becomes, to the browser, the same origin as the board, and may read its
  answers. Its requests still carry the foreign name in ``Host``, so
  :class:`HostGuard` answers only requests whose ``Host`` is a name of this
  machine: ``localhost``, a loopback address (``127.x.y.z``, ``[::1]``) or the
  address given to ``kwsearch serve --host`` — with the server's port or none.
  Bound to every address (``--host 0.0.0.0`` or ``::``) any IP address is
  accepted too: a page whose origin is an address rather than a name is the
  board's own page (only a name can be rebound).
* **cross-site requests**: :func:`origin_allowed` is the check of a ``POST``'s
  ``Origin`` (by :class:`kwsearch.web.app.SameOrigin`): the page's own origin,
  the ``Host`` the request went to, and a host :func:`host_allowed` accepts.
* **files named in a request**: the bots of a game started from the page use the
  shipped models only. :func:`refuse_file_options` refuses a seats text that
  names a weights file (``eval=FILE``, ``priorw=FILE``), with one message whatever
  the path is, before anything looks at the file system.
"""

from __future__ import annotations

import ipaddress
import json
from typing import Any

from . import WebError

#: Bound to one of these, the server is reachable at every address of the machine.
WILDCARDS = ("0.0.0.0", "::", "")
#: The longest request path (the board's are short; a node id of thousands of digits is not an id).
MAX_PATH = 1000


def _address(name: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(name)
    except ValueError:
        return None


def split_host(value: str) -> tuple[str, int | None] | None:
    """``(name, port)`` of a ``Host`` value (``name``, ``name:port``, ``[v6]``, ``[v6]:port``), the name
    lower-case and an IPv6 address without brackets; None when it is not of that shape."""
    value = value.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return None
        name, rest = value[1:end], value[end + 1:]
        if _address(name) is None or _address(name).version != 6:
            return None
    else:
        name, sep, port_text = value.partition(":")
        rest = sep + port_text
        if not name or "[" in name or "]" in name:
            return None
    if not rest:
        return name, None
    digits = rest[1:]
    if rest[0] != ":" or not digits.isdigit() or len(digits) > 5 or not 0 < int(digits) < 65536:
        return None
    return name, int(digits)


def host_allowed(value: str, port: int | None, served: str) -> bool:
    """Whether a ``Host`` value names this server: a loopback name, or ``served`` (``--host``), and
    ``port`` (the server's) or no port."""
    parts = split_host(value)
    if parts is None:
        return False
    name, given = parts
    if given is not None and port is not None and given != port:
        return False
    if name == "localhost":
        return True
    addr = _address(name)  # split_host: an IPv6 address only in brackets, an IPv4 one only without
    mine = served.strip().strip("[]").lower()
    if addr is not None:
        return addr.is_loopback or mine in WILDCARDS or addr == _address(mine)
    return name == mine


def origin_allowed(origin: str, host: str, port: int | None, served: str) -> bool:
    """Whether a request's ``Origin`` is the board's own page: ``http://`` (or ``https://``) and the
    ``Host`` the request went to, which must itself be allowed."""
    scheme, sep, rest = origin.strip().lower().partition("://")
    return (sep == "://" and scheme in ("http", "https") and rest == host.strip().lower()
            and host_allowed(rest, port, served))


def _headers(scope) -> list[tuple[bytes, bytes]]:
    return list(scope.get("headers") or [])


def _json_error(message: str, status: int):
    from starlette.responses import JSONResponse
    return JSONResponse({"error": message}, status_code=status)


class HostGuard:
    """ASGI middleware: a request (page, static file or API, any method) whose ``Host`` is not one
    of this server's names is refused before it reaches anything (see the module docstring), and so
    is a path longer than :data:`MAX_PATH` characters."""

    def __init__(self, app, host: str = "127.0.0.1"):
        self.app, self.host = app, host

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        hosts = [v for k, v in _headers(scope) if k == b"host"]
        server = scope.get("server")
        port = server[1] if server and isinstance(server[1], int) else None
        problem = None
        if len(hosts) != 1:
            problem = ("a request must name the server in one Host header", 400)
        else:
            value = hosts[0].decode("latin-1")
            if not host_allowed(value, port, self.host):
                problem = (f"the Host {json.dumps(value[:80])} is not this server's: open the board at "
                           f"http://127.0.0.1{'' if port is None else f':{port}'}/ (a defence against "
                           "DNS rebinding)", 403)
        if problem is None and len(scope.get("raw_path") or scope.get("path", "")) > MAX_PATH:
            problem = (f"the request's path is longer than {MAX_PATH:,} characters", 414)
        if problem is None:
            return await self.app(scope, receive, send)
        if scope["type"] == "websocket":
            from starlette.websockets import WebSocketClose
            return await WebSocketClose(code=1008)(scope, receive, send)
        await _json_error(*problem)(scope, receive, send)


def refuse_lone_surrogates(obj: Any, head: str = "") -> None:
    """Refuse a parsed JSON value of which a string (or key) is not text: a lone surrogate
    (``"\\ud800"``) parses but can be neither answered nor written to a file. ``head`` starts
    the message."""
    todo = [obj]
    while todo:
        v = todo.pop()
        if isinstance(v, dict):
            todo.extend(v.keys())
            todo.extend(v.values())
        elif isinstance(v, list):
            todo.extend(v)
        elif isinstance(v, str):
            try:
                v.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise WebError(f"{head}\\u{ord(v[exc.start]):04x} alone is not a character "
                               "(a lone surrogate)") from None


def refuse_file_options(seats: Any) -> None:
    """Refuse seats (``"human,ismcts:prior=1,priorw=..."``) of which an option names a file.

    Every option of every bot spec lies within one comma-separated part of the
    text (``name:key=value`` or ``key=value``), so each part is looked at by
    itself, whatever seat it belongs to; a key is read as
    :meth:`kwsearch.bots.BotSpec.parse` reads it. The message is the same for any
    path — a file that exists, a missing one, a FIFO — and nothing is opened or
    looked up: the page's bots use the shipped models, by name.
    """
    from ..bots import FILE_OPTIONS, names_file
    if not isinstance(seats, str):
        return  # not a seats text: GameTable.create refuses it
    for part in seats.split(","):
        key_text, eq, value = part.partition("=")
        key = key_text.rpartition(":")[2].strip().lower()
        if eq and key in FILE_OPTIONS and names_file(key, value.strip()):
            raise WebError(f"seats: {key}= names a file, and the board opens no file a request names: its "
                           "bots use the shipped models (eval=tempo or eval=searched, the prior's own weights); "
                           "play with other weights files in the terminal (kwsearch play)")


def refuse_many_workers(seats: Any) -> None:
    """Refuse seats of which a bot asks for more search processes than this machine's bound.

    ``workers=`` of a spec may be up to 256 (a results file written on a large
    machine must read back anywhere), but a bot started by a request runs here:
    its processes are held to :func:`kwsearch.worker_procs.max_workers`, the bound
    of every command's ``--workers``.
    """
    from ..worker_procs import max_workers
    if not isinstance(seats, str):
        return
    top = max_workers()
    for part in seats.split(","):
        key_text, eq, value = part.partition("=")
        if eq and key_text.rpartition(":")[2].strip().lower() == "workers":
            text = value.strip()
            if not (text.isdigit() and len(text) <= 4 and int(text) <= top):
                raise WebError(f"seats: workers= must be 1 to {top} on this server (4 per CPU)")


__all__ = ["HostGuard", "host_allowed", "origin_allowed", "refuse_file_options", "refuse_lone_surrogates",
           "refuse_many_workers", "split_host"]
