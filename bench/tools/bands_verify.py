"""Stable advice when the hints' re-searches differ from the shipped ones: another exploration
constant than the main search's, or another number of chunks (docs/strength.md, "Eighteenth round";
experiments, not settings of the package).

    python bench/tools/bands_verify.py --c-uct 0.25 --verify-c-uct 0.4 --out /tmp/bands-c025-v04.json
    python bench/tools/bands_verify.py --c-uct 0.25 --chunks 5

Runs ``bench/stability_bands.py`` (its 40 four-player positions and 5 seeds; every other option
passed on to it) with every re-search of the hints (:func:`kwsearch.confidence.verify`) at
``--verify-c-uct`` (``verify`` builds its search parameters with
:func:`kwsearch.search.search_params`, which this script wraps for the length of each ``verify``
call) and in ``--chunks`` chunks (``verify``'s own argument; 3 shipped).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import stability_bands  # noqa: E402  (bench/stability_bands.py; puts the checkout on sys.path)
import kwsearch.confidence  # noqa: E402
import kwsearch.search  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--verify-c-uct", type=float, default=None,
                    help="the re-searches' exploration constant (default: the main search's)")
    ap.add_argument("--chunks", type=int, default=None, help="the re-searches' chunks per option (default: 3)")
    ap.add_argument("--out", default=None, help="as stability_bands.py's; the file also records verify_c_uct and chunks")
    a, rest = ap.parse_known_args(argv)
    if a.chunks is not None and a.chunks < 2:
        ap.error("--chunks: at least 2 (an interval needs two chunks)")
    plain, real_verify = kwsearch.search.search_params, kwsearch.confidence.verify

    def verify(*args, **kwargs):
        if a.chunks is not None:
            kwargs["chunks"] = a.chunks
        if a.verify_c_uct is not None:
            kwsearch.search.search_params = lambda config, n: plain(dataclasses.replace(config, c_uct=a.verify_c_uct), n)
        try:
            return real_verify(*args, **kwargs)
        finally:
            kwsearch.search.search_params = plain

    kwsearch.confidence.verify = verify  # kwsearch.analysis imports it from the module at each call
    try:
        code = stability_bands.main(rest + (["--out", a.out] if a.out else []))
    finally:
        kwsearch.confidence.verify = real_verify
    if a.out:
        res = json.loads(Path(a.out).read_text())
        Path(a.out).write_text(json.dumps(dict(res, verify_c_uct=a.verify_c_uct, chunks=a.chunks), indent=1) + "\n")
    return code


if __name__ == "__main__":
    sys.exit(main())
