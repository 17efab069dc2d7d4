"""Writing the user's files safely: atomically, under a unique temporary name.

:func:`write_json_atomic` writes to a temporary file in the target's folder (a
unique name from :func:`tempfile.mkstemp`, so a user's own ``x.json.tmp`` is
never touched) with the permissions of the file it replaces (a new file's under the
umask), flushes it to disk, then renames it over the target. A failure
(a full disk, a read-only folder) removes the temporary file, leaves the target
as it was, and raises :class:`~kwsearch.errors.KwsearchError` naming the file.

:func:`append_whole` appends whole lines to a log that grows line by line (the
tournament results, the tuning log): straight to the file descriptor, never
through a buffer that a later flush or close could write half of, and on any
failure (a full disk: ``ENOSPC``, ``EDQUOT``, ``EFBIG``, ``EIO``; or Ctrl-C) it
cuts the file back to where it was, so the file only ever holds whole lines.
"""

from __future__ import annotations

import errno
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


def append_whole(fd: int, data: bytes, *, sync: bool = False) -> None:
    """Append ``data`` (whole lines) at the end of the open file ``fd``, all or nothing.

    Written with ``os.write`` (repeated if the kernel takes only part of it), then
    ``fsync``-ed if ``sync``. If anything fails — a full disk at the first byte or the
    last, the ``fsync``, Ctrl-C in between — the file is truncated back to its previous
    size and the exception propagates (an ``OSError`` for the caller to name the file).
    The caller holds the file's lock, so nobody else appends meanwhile.
    """
    start = os.lseek(fd, 0, os.SEEK_END)
    try:
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            if n <= 0:  # a regular file does not do this, but never loop for ever
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            view = view[n:]
        if sync:
            os.fsync(fd)
    except BaseException:
        try:
            os.ftruncate(fd, start)
            os.lseek(fd, start, os.SEEK_SET)
        except OSError:  # the reader drops a last line without its newline; resuming truncates it
            pass
        raise


def write_json_atomic(path: str | os.PathLike, obj: Any, *, what: str = "file", indent: int | None = 1) -> None:
    """Write ``obj`` as JSON (one trailing newline) to ``path`` atomically; see :func:`write_text_atomic`."""
    write_text_atomic(path, json.dumps(obj, indent=indent) + "\n", what=what)
