"""Regenerate the settings table of docs/settings.md from kwsearch.settings.

    python docs/gen_settings.py           # print the table
    python docs/gen_settings.py --write   # replace the table in docs/settings.md
    python docs/gen_settings.py --check   # exit 1 if docs/settings.md is out of date

The table lists every search setting of :data:`kwsearch.settings.SETTINGS`: its name (the field of
``SearchConfig`` and of the C struct ``SearchParams``, and its name in the analysis JSON), its bot-spec
key, its command-line flag, its values, its default and its meaning.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's kwsearch

from kwsearch.fileio import write_text_atomic  # noqa: E402
from kwsearch.settings import markdown_table  # noqa: E402

DOC = Path(__file__).resolve().parent / "settings.md"
BEGIN, END = "<!-- BEGIN settings table: docs/gen_settings.py -->", "<!-- END settings table -->"


def main(argv: list[str]) -> int:
    new = markdown_table()
    if not argv:
        print(new)
        return 0
    text = DOC.read_text(encoding="utf-8")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    updated = f"{head}{BEGIN}\n{new}\n{END}{tail}"
    if argv == ["--check"]:
        if updated != text:
            print(f"{DOC} is out of date: run python docs/gen_settings.py --write", file=sys.stderr)
            return 1
        return 0
    if argv == ["--write"]:
        write_text_atomic(DOC, updated, what="settings table")
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
