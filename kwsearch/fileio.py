"""Writing the user's files safely: atomically, under a unique temporary name.

:func:`write_json_atomic` writes to a temporary file in the target's folder (a
unique name from :func:`tempfile.mkstemp`, so a user's own ``x.json.tmp`` is
never touched), flushes it to disk, then renames it over the target. A failure
(a full disk, a read-only folder) removes the temporary file, leaves the target
as it was, and raises :class:`~kwsearch.errors.KwsearchError` naming the file.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from .errors import KwsearchError


def write_text_atomic(path: str | os.PathLike, text: str, *, what: str = "file") -> None:
    """Replace ``path`` with ``text`` (UTF-8) atomically; never leaves a partial or empty target."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise KwsearchError(f"{path}: cannot write the {what} ({exc.strerror or exc})") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise KwsearchError(f"{path}: cannot write the {what} ({exc.strerror or exc})") from None
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_json_atomic(path: str | os.PathLike, obj: Any, *, what: str = "file", indent: int | None = 1) -> None:
    """Write ``obj`` as JSON (one trailing newline) to ``path`` atomically; see :func:`write_text_atomic`."""
    write_text_atomic(path, json.dumps(obj, indent=indent) + "\n", what=what)
