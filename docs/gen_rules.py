"""Copy docs/rules.md into the package, where ``kwsearch rules`` reads it.

    python docs/gen_rules.py           # say whether the shipped copy is up to date
    python docs/gen_rules.py --write   # write kwsearch/data/rules.md from docs/rules.md
    python docs/gen_rules.py --check   # exit 1 if kwsearch/data/rules.md is out of date

docs/rules.md is the text to edit; kwsearch/data/rules.md is generated from it, byte for
byte, so that an installed wheel carries the rules (package data ``data/*.md``).
tests/test_rulebook.py checks that the two are identical.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "docs" / "rules.md"
SHIPPED = ROOT / "kwsearch" / "data" / "rules.md"


def _write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (a temporary file renamed over it)."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    tmp.replace(path)


def main(argv: list[str]) -> int:
    new = SOURCE.read_bytes()
    old = SHIPPED.read_bytes() if SHIPPED.exists() else None
    if argv in ([], ["--check"]):
        if old != new:
            print(f"{SHIPPED} is out of date: run python docs/gen_rules.py --write", file=sys.stderr)
            return 1
        if not argv:
            print(f"{SHIPPED} is up to date")
        return 0
    if argv == ["--write"]:
        if old != new:
            _write(SHIPPED, new)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
