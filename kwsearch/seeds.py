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

A seed given by a user, or read back from a file, lies in ``[MIN_SEED, MAX_SEED]``
(0 to 2^64 - 1): :func:`check_seed` is the one check, used by every ``--seed``
option (``cli.SEED``, :func:`seed_arg` for the scripts of bench/), the tune and
tournament settings, and the readers of game records, results files and tuning logs.
"""

from __future__ import annotations

import hashlib
import json

MASK64 = (1 << 64) - 1
#: Derived seeds are kept below 2**63 so that they fit a signed 64-bit integer (numpy, C ``long``).
MASK63 = (1 << 63) - 1
_GOLDEN = 0x9E3779B97F4A7C15


#: The bounds of a seed, wherever one is taken from a user (every command's ``--seed``, the
#: ``seed`` of a tune space, the web's new-game form) and wherever one is read back (game
#: records, results files, tuning logs): 64 bits, unsigned. One bound for both, so a file
#: kwsearch writes from any seed it accepts reads back (docs/formats.md, the record's ``seed``).
MIN_SEED = 0
MAX_SEED = MASK64
#: The bound as the error messages write it.
SEED_RANGE_TEXT = f"an integer from 0 to 2^64 - 1 ({MAX_SEED})"


def seed_problem(value: object) -> str | None:
    """Why ``value`` is not a seed (one line, ``expected ...``), or ``None`` when it is one."""
    if isinstance(value, bool) or not isinstance(value, int):
        shown = json.dumps(value) if isinstance(value, (str, float, bool, type(None))) else type(value).__name__
        return f"expected a seed, {SEED_RANGE_TEXT}, got {shown[:40]}"
    if MIN_SEED <= value <= MAX_SEED:
        return None
    digits = str(value)
    shown = digits if len(digits) <= 30 else f"{digits[:12]}... ({len(digits.lstrip('-'))} digits)"
    hint = ""
    if -(1 << 63) <= value < 0:  # older kwsearch took signed seeds; the set-up of -k is that of 2^64 - k
        hint = f"; negative seeds of older kwsearch versions: {value} is {value & MASK64}"
    return f"expected a seed, {SEED_RANGE_TEXT}, got {shown}{hint}"


def check_seed(value: object, where: str = "seed", error: type[Exception] = ValueError) -> int:
    """``value`` if it is a seed (:data:`MIN_SEED` to :data:`MAX_SEED`, an int, not a bool);
    otherwise raise ``error`` with the one line ``"{where}: expected a seed, ..."`` (without
    the prefix when ``where`` is empty).

    The one check of a seed: the CLI's ``--seed`` options (``cli.SEED``), the readers of
    game records, results files and tuning logs, and the web's new-game form use it.

        >>> check_seed(2**64 - 1)
        18446744073709551615
        >>> check_seed(2**64, "--seed")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: --seed: expected a seed, an integer from 0 to 2^64 - 1 (...), got 18446744073709551616
    """
    problem = seed_problem(value)
    if problem is not None:
        raise error(f"{where}: {problem}" if where else problem)
    return value  # type: ignore[return-value]


def parse_seed(text: str, where: str = "seed", error: type[Exception] = ValueError) -> int:
    """A seed written as decimal text (a command-line argument), checked by :func:`check_seed`."""
    t = str(text).strip()
    digits = t[1:] if t[:1] in "+-" else t
    prefix = f"{where}: " if where else ""
    if not digits.isdigit() or not digits.isascii():
        raise error(f"{prefix}expected a seed, {SEED_RANGE_TEXT}, got {json.dumps(str(text))[:40]}")
    if len(digits) > 30:  # no need to convert thousands of digits to say they are too many
        raise error(f"{prefix}expected a seed, {SEED_RANGE_TEXT}, got an integer of {len(digits)} digits")
    return check_seed(int(t), where, error)


def seed_arg(text: str) -> int:
    """``argparse`` type of a ``--seed`` option (the scripts of bench/): :func:`parse_seed`."""
    import argparse
    return parse_seed(text, "", argparse.ArgumentTypeError)  # argparse names the option


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
