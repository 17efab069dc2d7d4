"""Writing the user's files safely: atomically, under a unique temporary name.

:func:`write_json_atomic` writes to a temporary file in the target's folder (a
unique name from :func:`tempfile.mkstemp`, so a user's own ``x.json.tmp`` is
never touched) with the permissions of the file it replaces (a new file's under the
umask), flushes it to disk, then renames it over the target. A failure
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


def _process_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


#: Read once at import (os.umask can only be read by setting it, which is not thread-safe later).
_UMASK = _process_umask()


def _mode_for(path: Path) -> int:
    """The permissions the written file gets: the replaced file's, or a new file's under the umask
    (mkstemp alone would make every written file private, 0600)."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        return 0o666 & ~_UMASK


def write_text_atomic(path: str | os.PathLike, text: str, *, what: str = "file") -> None:
    """Replace ``path`` with ``text`` (UTF-8) atomically; never leaves a partial or empty target."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise KwsearchError(f"{path}: cannot write the {what} ({exc.strerror or exc})") from None
    try:
        os.fchmod(fd, _mode_for(path))
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
