"""Reading a user's JSON or TOML file strictly and within bounds: the one way kwsearch reads input.

A file given to kwsearch may be anything: a FIFO that never ends, ``/dev/zero``, a
directory, gigabytes, 100,000 nested ``[``, an integer of 5,000 digits, a key
written twice, ``NaN``. Every reader of the package (positions, game records,
component files, ``play --resume``, the CLI) goes through :func:`load_json_file`
or :func:`load_toml_file`, which refuse each of these with one line naming the
file, before any of it reaches a parser or an engine:

* only a **regular file** is opened (``stat`` first, then opened without blocking
  and checked again), so a FIFO, a device or a directory is refused at once;
* at most :data:`MAX_FILE_BYTES` are read;
* the **nesting depth** is measured on the text before parsing (a parser would
  recurse), at most :data:`MAX_DEPTH`;
* a **duplicate key** in one object is an error (JSON's own rule keeps the last
  one silently; TOML forbids it already);
* an **integer literal** longer than :data:`MAX_INT_DIGITS` digits is refused
  (no count in a game needs more; Python would otherwise spend its time on it),
  and ``NaN``, ``Infinity`` and floats that overflow to infinity are refused.

:func:`loads_json` applies the same checks to a string (a spec, a test).
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
import tomllib
from pathlib import Path
from typing import Any

from .errors import KwsearchError

#: The largest file read (a game record of a long game is a few kilobytes).
MAX_FILE_BYTES = 4 * 1024 * 1024
#: The deepest nesting of arrays and objects (a position nests five levels).
MAX_DEPTH = 32
#: The longest integer literal, in digits (a 64-bit seed has 20).
MAX_INT_DIGITS = 24


_PLAIN_KEY = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_:+-]*")


def key_path(parent: str, key: object) -> str:
    """``parent.key`` for a plain key, ``parent["odd key"]`` (JSON-quoted) otherwise, so a key
    holding a newline, a dot or a quote can never break an error message's single line."""
    k = str(key)
    if _PLAIN_KEY.fullmatch(k):
        return f"{parent}.{k}" if parent else k
    return f"{parent}[{json.dumps(k)}]"


class _Reject(Exception):
    """Raised inside the JSON parser's hooks; turned into a one-line error by the caller."""


def read_text(path: str | os.PathLike, *, what: str = "file", error: type[KwsearchError] = KwsearchError,
              limit: int | None = None) -> str:
    """The UTF-8 text of the regular file ``path``, at most ``limit`` bytes (default
    :data:`MAX_FILE_BYTES`); ``error`` names the file."""
    limit = MAX_FILE_BYTES if limit is None else limit
    p = Path(path)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise error(f"{p}: no such file") from None
    except OSError as exc:
        raise error(f"{p}: cannot read the {what} ({exc.strerror or exc})") from None
    if not stat.S_ISREG(st.st_mode):
        kind = "a directory" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        raise error(f"{p}: {kind}; expected a {what} (a regular file)")
    if st.st_size > limit:
        raise error(f"{p}: {st.st_size:,} bytes is too large for a {what} (at most {limit:,})")
    try:
        # O_NONBLOCK: if the path was swapped for a FIFO since the stat, opening does not wait for a writer.
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise error(f"{p}: cannot read the {what} ({exc.strerror or exc})") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise error(f"{p}: not a regular file; expected a {what} (a regular file)")
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise error(f"{p}: cannot read the {what} ({exc.strerror or exc})") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise error(f"{p}: too large for a {what} (more than {limit:,} bytes)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{p}: not UTF-8 text (byte {exc.start})") from None


# Tokens of the nesting scan. A string is skipped whole (a "[" inside a name is no nesting); each
# string pattern runs in time linear in the string's length, and the scan never goes back.
_JSON_TOKENS = re.compile(r'[\[\]{}"]')
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_TOML_TOKENS = re.compile(r"""[\[\]{}"'#]""")
_TOML_STRINGS = {
    '"""': re.compile(r'"""(?:[^"\\]|\\.|"(?!""))*"""', re.S),
    "'''": re.compile(r"'{3}.*?'{3}", re.S),
    '"': re.compile(r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"'),
    "'": re.compile(r"'[^'\n]*'"),
}


def nesting_depth(text: str, toml: bool = False, limit: int | None = None) -> int:
    """The deepest nesting of ``[``/``{`` in ``text``, strings (and TOML comments) skipped.

    One pass, linear in the length of the text (a hostile file must not make the
    check itself slow); it stops as soon as the depth exceeds ``limit``. An
    unterminated string ends the scan: a parser stops with an error there too,
    before it reaches any nesting after it.
    """
    tokens = _TOML_TOKENS if toml else _JSON_TOKENS
    depth = deepest = 0
    pos = 0
    while True:
        m = tokens.search(text, pos)
        if m is None:
            return deepest
        ch = m.group()
        if ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if limit is not None and deepest > limit:
                    return deepest
            pos = m.end()
        elif ch in "]}":
            depth -= 1
            pos = m.end()
        elif ch == "#":  # a TOML comment: to the end of the line
            end = text.find("\n", m.end())
            if end < 0:
                return deepest
            pos = end + 1
        else:
            if not toml:
                pattern = _JSON_STRING
            elif text.startswith(ch * 3, m.start()):
                pattern = _TOML_STRINGS[ch * 3]
            else:
                pattern = _TOML_STRINGS[ch]
            sm = pattern.match(text, m.start())
            if sm is None:
                return deepest
            pos = sm.end()


def _check_values(obj: Any, where: str, error: type[KwsearchError]) -> None:
    """Depth, integer size and finite floats of a parsed value (iteratively: no recursion)."""
    todo = [(obj, 1)]
    while todo:
        v, depth = todo.pop()
        if isinstance(v, dict):
            items = v.values()
        elif isinstance(v, list):
            items = v
        else:
            if isinstance(v, int) and not isinstance(v, bool) and len(str(abs(v))) > MAX_INT_DIGITS:
                raise error(f"{where}an integer of more than {MAX_INT_DIGITS} digits")
            if isinstance(v, float) and not math.isfinite(v):
                raise error(f"{where}{v} is not a finite number")
            continue
        if depth > MAX_DEPTH:
            raise error(f"{where}nested more than {MAX_DEPTH} levels deep")
        todo.extend((x, depth + 1) for x in items)


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise _Reject(f"the key {json.dumps(k)} appears twice in one object")
        out[k] = v
    return out


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise _Reject(f"an integer of {len(text.lstrip('-'))} digits (at most {MAX_INT_DIGITS})")
    return int(text)


def _float(text: str) -> float:
    if len(text) > 64:
        raise _Reject(f"a number of {len(text)} characters")
    v = float(text)
    if not math.isfinite(v):
        raise _Reject(f"{text} is too large (not a finite number)")
    return v


def _constant(name: str) -> Any:
    raise _Reject(f"{name} is not a JSON number (NaN and Infinity are not allowed)")


def loads_json(text: str, source: str = "", *, error: type[KwsearchError] = KwsearchError) -> Any:
    """Parse ``text`` strictly (see the module docstring); ``source`` starts every message."""
    head = f"{source}: " if source else ""
    if nesting_depth(text, limit=MAX_DEPTH) > MAX_DEPTH:
        raise error(f"{head}not valid JSON: nested more than {MAX_DEPTH} levels deep")
    try:
        obj = json.loads(text, object_pairs_hook=_pairs, parse_int=_int, parse_float=_float,
                         parse_constant=_constant)
    except _Reject as exc:
        raise error(f"{head}not valid JSON: {exc}") from None
    except json.JSONDecodeError as exc:
        raise error(f"{head}not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except (ValueError, RecursionError) as exc:  # a last guard: the checks above should have caught it
        raise error(f"{head}not valid JSON: {exc}") from None
    _check_values(obj, f"{head}not valid JSON: ", error)
    return obj


def load_json_file(path: str | os.PathLike, *, what: str = "file",
                   error: type[KwsearchError] = KwsearchError) -> Any:
    """Read and parse the JSON file ``path`` strictly; every problem is ``error`` naming the file."""
    return loads_json(read_text(path, what=what, error=error), str(path), error=error)


def loads_toml(text: str, source: str = "", *, error: type[KwsearchError] = KwsearchError) -> Any:
    """Parse TOML ``text`` with the same bounds as JSON (TOML itself forbids duplicate keys)."""
    head = f"{source}: " if source else ""
    if nesting_depth(text, toml=True, limit=MAX_DEPTH) > MAX_DEPTH:
        raise error(f"{head}not valid TOML: nested more than {MAX_DEPTH} levels deep")
    try:
        obj = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{head}not valid TOML: {exc}") from None
    except (ValueError, RecursionError) as exc:  # e.g. an integer beyond Python's digit limit
        raise error(f"{head}not valid TOML: {exc}") from None
    _check_values(obj, f"{head}not valid TOML: ", error)
    return obj


def load_toml_file(path: str | os.PathLike, *, what: str = "file",
                   error: type[KwsearchError] = KwsearchError) -> Any:
    """Read and parse the TOML file ``path`` with the bounds of :func:`load_json_file`."""
    return loads_toml(read_text(path, what=what, error=error), str(path), error=error)
