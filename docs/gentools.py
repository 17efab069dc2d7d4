"""What the doc generators share: print, --write or --check a generated table between two markers.

Used by docs/gen_actions.py and docs/gen_settings.py (run as scripts, so docs/ is on sys.path).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's kwsearch

from kwsearch.fileio import write_text_atomic  # noqa: E402


def table_main(argv: list[str], new: str, *, doc: Path, begin: str, end: str, script: str, what: str,
               usage: str) -> int:
    """Print ``new`` (no arguments), or put it between ``begin`` and ``end`` in ``doc`` (``--write``),
    or exit 1 if ``doc`` does not hold it there (``--check``); anything else prints ``usage``, exit 2."""
    if not argv:
        print(new)
        return 0
    text = doc.read_text(encoding="utf-8")
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    updated = f"{head}{begin}\n{new}\n{end}{tail}"
    if argv == ["--check"]:
        if updated != text:
            print(f"{doc} is out of date: run python {script} --write", file=sys.stderr)
            return 1
        return 0
    if argv == ["--write"]:
        write_text_atomic(doc, updated, what=what)
        return 0
    print(usage, file=sys.stderr)
    return 2
