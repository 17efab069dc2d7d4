"""The rules of Kraftwagen, shipped with the package and read by section.

The text is ``docs/rules.md``, copied into the package as ``kwsearch/data/rules.md``
by ``docs/gen_rules.py --write``. Its numbered sections ("rules §8", "rules §4.1")
follow the numbering of the rules specification, so a message citing a section can
be looked up with ``kwsearch rules 8``::

    >>> from kwsearch import rulebook
    >>> rulebook.section("8")[0]
    'Buyers'
    >>> rulebook.section("§4.1")[0], rulebook.section("s6.3")[0]
    ('The actions', 'Scoring')
    >>> rulebook.section("buyers")[0]        # a word of a title, as well
    'Buyers'
    >>> list(rulebook.sections())[:4]
    ['1', '2', '2.1', '2.2']

A section's text includes its subsections. An unknown section raises
:class:`~kwsearch.errors.KwsearchError`, one line naming the known sections.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from types import MappingProxyType
from typing import Callable, Mapping, NamedTuple

from .errors import KwsearchError

#: Where the text lives inside the package.
RESOURCE = "data/rules.md"

#: A numbered heading: ``## 8. Buyers`` or ``### 4.1 The actions``.
_NUMBERED = re.compile(r"(\d+(?:\.\d+)?)\.?\s+(.+)")
#: A section key as a user may type it: ``8``, ``§8``, ``§ 8``, ``s8``, ``sec 8``, ``section 8.1``,
#: ``rules §8``, ``8.``.
_KEY = re.compile(r"(?:rules\s*)?(?:§|s|sec\.?|section)?\s*(\d+(?:\.\d+)?)\.?")
#: Words that name the preface instead of a numbered section.
_INTRO = ("intro", "introduction", "preface")
#: Words that ask for the list of sections (:func:`print_rules`).
_CONTENTS = ("contents", "toc", "list", "sections")
#: Words ignored when a section is named by title words.
_STOP = {"the", "a", "an", "and", "of", "rules", "rule", "section"}
#: Short forms of the notation (``gp``) read as the words of the rules.
_SYNONYMS = {"gp": "grand prix"}


class _Chunk(NamedTuple):
    key: str | None  # "8", "4.1"; None for an unnumbered heading
    level: int  # 2 for "##", 3 for "###"
    title: str
    markdown: str  # the heading line and everything under it, subsections included
    body: str  # ``markdown`` without the heading line
    own: str  # ``body`` up to the first subsection's heading


def text() -> str:
    """The whole rules text (Markdown), as shipped."""
    return _text()


@lru_cache(maxsize=1)
def _text() -> str:
    return resources.files("kwsearch").joinpath(RESOURCE).read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def _parse() -> tuple[str, tuple[_Chunk, ...]]:
    """(preface, chunks): the text before §1 (without the title line), then every ``##`` /
    ``###`` heading with its text up to the next heading of the same or a higher level."""
    lines = _text().splitlines()
    heads: list[tuple[int, int, str]] = []  # (line index, level, heading text)
    fenced = False
    for i, line in enumerate(lines):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and (m := re.match(r"(#{2,3})\s+(\S.*)$", line)):
            heads.append((i, len(m.group(1)), m.group(2).strip()))
    chunks = []
    for n, (i, level, heading) in enumerate(heads):
        end = next((j for j, lv, _ in heads[n + 1:] if lv <= level), len(lines))
        sub = heads[n + 1][0] if n + 1 < len(heads) else len(lines)
        m = _NUMBERED.fullmatch(heading)
        key, title = (m.group(1), m.group(2)) if m else (None, heading)
        body = "\n".join(lines[i + 1:end]).strip("\n")
        own = "\n".join(lines[i + 1:min(end, sub)]).strip("\n")
        chunks.append(_Chunk(key, level, title, "\n".join(lines[i:end]).strip("\n"), body, own))
    first = next((c_i for c_i, _, h in heads if _NUMBERED.fullmatch(h)), len(lines))
    preface = "\n".join(line for line in lines[:first] if not line.startswith("# ")).strip("\n")
    return preface, tuple(chunks)


@lru_cache(maxsize=1)
def sections() -> Mapping[str, tuple[str, str]]:
    """The numbered sections in order: ``"8"`` / ``"4.1"`` → ``(title, text)``.

    The text is the Markdown under the heading, subsections included (``"4"`` holds
    ``4.1`` and ``4.2``)::

        >>> title, body = sections()["6"]
        >>> title, "### 6.3 Scoring" in body
        ('Rounds and the end of the game', True)
    """
    return MappingProxyType({c.key: (c.title, c.body) for c in _parse()[1] if c.key is not None})


def _known() -> str:
    return ", ".join(sections())


def _unknown(key: str, why: str) -> KwsearchError:
    return KwsearchError(f"rules: {why} {key!r}; known sections: {_known()}, intro, "
                         f"or a word of a title such as 'buyers' (kwsearch rules contents lists them)")


def _words(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z0-9]+", text.lower().replace("-", " ")) if w not in _STOP]


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _name(c: _Chunk) -> str:
    return f"§{c.key} {c.title}" if c.key else c.title


def _match(key: str) -> _Chunk | None:
    """The chunk that words name, case-insensitive, in three tiers: (1) every word is a word of
    the title (a plural ``s`` may differ); (2) every word is a word of one **bold term** that the
    section itself defines (``diesel`` → §5.3, whose list names "Rudolf Diesel"); (3) every word
    begins a word of the title. In tiers 1 and 3 words as typed beat singulars and a section
    beats its subsections. ``None`` when nothing matches; an error naming the candidates when
    the choice stays open."""
    query = _words(" ".join(_SYNONYMS.get(w, w) for w in key.split()))
    if not query:
        return None
    chunks = _parse()[1]

    def contains(words: list[str]) -> int | None:  # exact matches, or None if a word is missing
        sing = {_singular(w) for w in words}
        if all(q in words or _singular(q) in sing for q in query):
            return sum(q in words for q in query)
        return None

    tier1 = [(-e, c.level, c) for c in chunks if (e := contains(_words(c.title))) is not None]
    tier2 = [c for c in chunks if any(contains(_words(b)) is not None
                                      for b in re.findall(r"\*\*(.+?)\*\*", c.own))]
    tier3 = [(0, c.level, c) for c in chunks
             if all(any(t.startswith(q) for t in _words(c.title)) for q in query)]
    for tier in (tier1, tier2, tier3):
        if not tier:
            continue
        if tier is tier2:
            top = tier
        else:
            best = min(f[:2] for f in tier)
            top = [c for e, lv, c in tier if (e, lv) == best]
        if len(top) > 1:
            raise KwsearchError(f"rules: {key!r} names several sections "
                                f"({'; '.join(_name(c) for c in top)}); give the number")
        return top[0]
    return None


def _find(key: str) -> _Chunk | None:
    """The chunk ``key`` names (``None`` for the preface); raises for an unknown one."""
    k = " ".join(str(key).split()).lower()
    if k in _INTRO:
        return None
    m = _KEY.fullmatch(k)
    if m:
        for c in _parse()[1]:
            if c.key == m.group(1):
                return c
        raise _unknown(key, "no section")
    c = _match(k)
    if c is None:
        raise _unknown(key, "no section named")
    return c


def section(key: str) -> tuple[str, str]:
    """One section as ``(title, text)``, subsections included.

    ``key`` is a number (``"8"``, ``"§8"``, ``"s8"``, ``"8.1"``), ``"intro"`` for the
    text before §1, or words of a title, case-insensitive (``"buyers"``,
    ``"grand prix"``)::

        >>> section("Grand Prix")[0]
        'The Grand-Prix race'
        >>> section("13")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        kwsearch.errors.KwsearchError: rules: no section '13'; known sections: 1, 2, 2.1, ...
    """
    c = _find(key)
    if c is None:
        return "Introduction", _parse()[0]
    return c.title, c.body


def contents() -> list[str]:
    """One line per numbered section: ``"§4.1  The actions"``, subsections indented."""
    return [f"{'  ' if '.' in k else ''}§{k}  {title}" for k, (title, _) in sections().items()]


def print_rules(section: str | None, echo: Callable[[str], object]) -> None:
    """The body of ``kwsearch rules [SECTION]``: the whole text, one section (with its
    heading), or ``contents`` for the list of sections, each passed to ``echo`` (e.g.
    ``click.echo``). An unknown section raises :class:`KwsearchError`::

        >>> print_rules("9", print)    # doctest: +ELLIPSIS
        ## 9. Award tiles
        ...
    """
    if section is None:
        echo(_text().rstrip("\n"))
        return
    if " ".join(section.split()).lower() in _CONTENTS:
        echo("\n".join(contents()))
        return
    c = _find(section)
    echo(_parse()[0] if c is None else c.markdown)
