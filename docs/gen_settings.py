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

from gentools import table_main  # noqa: E402  (docs/, this script's folder)

from kwsearch.settings import markdown_table  # noqa: E402

DOC = Path(__file__).resolve().parent / "settings.md"
BEGIN, END = "<!-- BEGIN settings table: docs/gen_settings.py -->", "<!-- END settings table -->"


def main(argv: list[str]) -> int:
    return table_main(argv, markdown_table(), doc=DOC, begin=BEGIN, end=END, script="docs/gen_settings.py",
                      what="settings table", usage=__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
