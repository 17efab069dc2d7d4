"""Regenerate the id table of docs/actions.md from kwsearch.actions.

    python docs/gen_actions.py           # print the table
    python docs/gen_actions.py --write   # replace the table in docs/actions.md
    python docs/gen_actions.py --check   # exit 1 if docs/actions.md is out of date

The table lists every range of :data:`kwsearch.actions.RANGES` (and the unused
ids between them) with the text forms the notation gives its ids under the
default components.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's kwsearch

from gentools import table_main  # noqa: E402  (docs/, this script's folder)

from kwsearch import actions as A  # noqa: E402
from kwsearch.components import default_components  # noqa: E402

DOC = Path(__file__).resolve().parent / "actions.md"
BEGIN, END = "<!-- BEGIN id table: docs/gen_actions.py -->", "<!-- END id table -->"


def _texts(n: A.Notation, lo: int, hi: int) -> str:
    texts = []
    for a in range(lo, hi):
        try:
            texts.append(f"`{n.text(a)}`")
        except ValueError:
            pass  # an id the default components leave without meaning
    if len(texts) > 4:
        texts = texts[:2] + ["…"] + texts[-1:]
    return ", ".join(texts)


#: The range constants of kwsearch.actions, in id order.
NAMES = ("START", "TILE", "DO", "RESEARCH", "GIVEUP", "ENGINE_WORKSHOP", "ENGINE_GP", "BUYER",
         "MARKET_PASS", "MARKET_BODY", "MARKET_ENGINE", "MARKET_WORKERS", "MARKET_PRICE",
         "MARKET_NO_MARKER", "MARKET_MARKER", "DAIMLER_PASS", "DAIMLER", "DIESEL_PASS", "DIESEL_CAR",
         "DIESEL_BODY", "DIESEL_ENGINE", "DIESEL_WORKERS", "DIESEL_PRICE", "BENZ_PASS", "BENZ", "ACTIVATE",
         "SPECIAL_TILE", "SELL_PASS", "SELL", "REMOVE_PASS", "REMOVE_CAR", "ORDER_BODY", "ORDER_ACTION")


def table() -> str:
    n = A.Notation(default_components())
    const = {getattr(A, name): name for name in NAMES}
    rows = ["| ids | constant | meaning | text forms (default components) |",
            "| --- | --- | --- | --- |"]
    nxt = 0
    for lo, hi, meaning in A.RANGES:
        if lo > nxt:
            rows.append(f"| {_ids(nxt, lo)} | | unused | |")
        rows.append(f"| {_ids(lo, hi)} | `{const[lo]}` | {meaning} | {_texts(n, lo, hi)} |")
        nxt = hi
    rows.append(f"\nThere are {A.NUM_ACTIONS} ids in all (`kwsearch.actions.NUM_ACTIONS`).")
    return "\n".join(rows)


def _ids(lo: int, hi: int) -> str:
    return str(lo) if hi == lo + 1 else f"{lo}–{hi - 1}"


def main(argv: list[str]) -> int:
    return table_main(argv, table(), doc=DOC, begin=BEGIN, end=END, script="docs/gen_actions.py",
                      what="action table", usage=__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
