"""Derived seeds: one rule for every random stream in the package.

Every random choice in kwsearch flows from an explicit seed. Where one seed must
give several independent streams (the workers of one search, the seats of one
tournament game, the decisions of one bot), the child seed is
``derive_seed(parent, *labels)``: the parent and each label are mixed in turn
through splitmix64's finaliser, so nearby parents or labels give unrelated
streams and no two (parent, labels) tuples of the package collide in practice.

    >>> derive_seed(1, "worker", 0) == derive_seed(1, "worker", 0)
    True
    >>> derive_seed(1, "worker", 1) != derive_seed(2, "worker", 0)
    True
    >>> 0 <= derive_seed(12345, "game", 7, "seat", 2) < 2**63
    True
"""

from __future__ import annotations

import hashlib

MASK64 = (1 << 64) - 1
#: Derived seeds are kept below 2**63 so that they fit a signed 64-bit integer (numpy, C ``long``).
MASK63 = (1 << 63) - 1
_GOLDEN = 0x9E3779B97F4A7C15


def splitmix64(x: int) -> int:
    """One step of splitmix64 (Steele, Lea & Flood 2014): the state advanced and finalised."""
    z = (x + _GOLDEN) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def _label_value(label: int | str) -> int:
    if isinstance(label, bool):
        raise TypeError(f"derive_seed: a label must be an int or a str, got {label!r}")
    if isinstance(label, int):
        return label & MASK64
    if isinstance(label, str):
        # Strings are hashed with a fixed function (never Python's salted hash()).
        return int.from_bytes(hashlib.blake2b(label.encode("utf-8"), digest_size=8).digest(), "little")
    raise TypeError(f"derive_seed: a label must be an int or a str, got {label!r}")


def derive_seed(parent: int, *labels: int | str) -> int:
    """A child seed in ``[0, 2**63)`` for the stream named by ``labels`` under ``parent``.

    Each label is an int or a str; ``derive_seed(s)`` with no label is a
    scrambled copy of ``s``. Distinct label tuples give independent streams:
    ``derive_seed(s, "worker", 1)`` of one decision and ``derive_seed(s2,
    "worker", 0)`` of the next are unrelated even when ``s2 == s + 1``.
    """
    if isinstance(parent, bool) or not isinstance(parent, int):
        raise TypeError(f"derive_seed: the parent seed must be an int, got {parent!r}")
    h = splitmix64(parent & MASK64)
    for label in labels:
        h = splitmix64(h ^ _label_value(label))
    return h & MASK63
