"""The rules text (docs/rules.md, shipped as kwsearch/data/rules.md) and kwsearch.rulebook.

- the shipped copy is docs/rules.md byte for byte (docs/gen_rules.py --write makes it), and
  the installed package carries it (package data ``data/*.md``);
- its numbered sections are exactly the specification's (RULES.md), each with a title of
  the same meaning, so a citation "RULES.md §N" maps to "rules §N" unchanged;
- every citation §N in the package, the page, the docs and the README names a section;
- every link to rules.md in the docs and README names a heading of it;
- the component tables of §9, §11 and §12 are the engine's shipped data;
- ``rulebook.section`` / ``print_rules`` and ``kwsearch rules``.
"""

from __future__ import annotations

import re
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest
from click.testing import CliRunner

from kwsearch import rulebook
from kwsearch.cli import main
from kwsearch.components import AWARDS, PREFERENCES, default_components
from kwsearch.errors import KwsearchError

pytestmark = pytest.mark.one_engine  # engine-independent (see conftest.py)

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "rules.md"
SHIPPED = ROOT / "kwsearch" / "data" / "rules.md"
#: The specification, kept beside the repository (README: "kept beside the repository in shared/").
SPEC = ROOT.parent / "shared" / "RULES.md"

#: The specification's section numbers, each with words that its title and the title in
#: rules.md both contain (any one of them): the same numbering, the same meaning. §2.N and
#: §6.N are the numbered steps of the specification's §2 and §6.
MEANING = {
    "1": ("players",), "2": ("setup",), "2.1": ("action tiles",), "2.2": ("research",),
    "2.3": ("buyers",), "2.4": ("start player",), "2.5": ("start tiles",),
    "2.6": ("gp cars", "grand-prix cars"), "3": ("action track",), "4": ("turn",),
    "4.1": ("actions",), "4.2": ("market",), "5": ("research cards",), "5.1": ("developments",),
    "5.2": ("instant actions",), "5.3": ("engineers",), "6": ("round",), "6.1": ("preparation",),
    "6.2": ("action phase",), "6.3": ("scoring",), "7": ("grand-prix race",), "8": ("buyers",),
    "9": ("award",), "10": ("hidden information",), "11": ("v6 specialty tiles",),
    "12": ("component data",),
}


def rules_text() -> str:
    return DOC.read_text(encoding="utf-8")


def spec_sections(text: str) -> dict[str, str]:
    """Number -> title of the specification: its ``##``/``###`` headings, and in a ``##``
    section without ``###`` headings its top-level numbered steps (``1. **Preparation**: ...``)."""
    out: dict[str, str] = {}
    parts = re.split(r"^## ", text, flags=re.M)[1:]
    for part in parts:
        head, _, body = part.partition("\n")
        m = re.match(r"(\d+)\.\s+(.*)", head)
        if not m:
            continue
        out[m.group(1)] = m.group(2)
        subs = re.findall(r"^### (\d+\.\d+)\s+(.*)", body, flags=re.M)
        if subs:
            out.update(subs)
        else:
            for k, title in re.findall(r"^(\d+)\.\s+(.*)", body, flags=re.M):
                out[f"{m.group(1)}.{k}"] = title
    return out


# ---------------------------------------------------------------------------
# The shipped copy
# ---------------------------------------------------------------------------


def test_shipped_copy_is_docs_rules_md():
    assert SHIPPED.read_bytes() == DOC.read_bytes(), "run python docs/gen_rules.py --write"


def test_installed_package_carries_the_rules():
    # In CI the package is installed (pip install .): this reads the wheel's copy.
    shipped = resources.files("kwsearch").joinpath("data/rules.md").read_text(encoding="utf-8")
    assert shipped == rules_text()
    assert rulebook.text() == rules_text()


def test_gen_rules_check():
    proc = subprocess.run([sys.executable, str(ROOT / "docs" / "gen_rules.py"), "--check"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_package_data_includes_markdown():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^kwsearch = \[.*"data/\*\.md".*\]$', text, flags=re.M)


# ---------------------------------------------------------------------------
# Sections: the specification's numbering, the same meaning
# ---------------------------------------------------------------------------


def test_sections_are_the_specifications():
    secs = rulebook.sections()
    assert list(secs) == list(MEANING)
    for key, words in MEANING.items():
        title = secs[key][0].lower()
        assert any(w in title for w in words), (key, title, words)


@pytest.mark.skipif(not SPEC.exists(), reason="the specification RULES.md is not beside the checkout")
def test_meaning_table_follows_the_specification():
    spec = spec_sections(SPEC.read_text(encoding="utf-8"))
    assert list(spec) == list(MEANING)
    for key, words in MEANING.items():
        assert any(w in spec[key].lower() for w in words), (key, spec[key], words)


def test_spec_parser_reads_headings_and_steps():
    text = "# T\n\n## 1. One\n\n- x\n\n## 2. Two\n\n1. Step a\n2. **Step b**: z\n\n## 3. Three\n\n### 3.1 Sub\n\n1. not a section\n"
    assert spec_sections(text) == {"1": "One", "2": "Two", "2.1": "Step a", "2.2": "**Step b**: z",
                                   "3": "Three", "3.1": "Sub"}


def test_a_section_includes_its_subsections():
    body = rulebook.section("4")[1]
    assert "### 4.1 The actions" in body and "### 4.2" in body
    assert "## 5." not in body
    assert rulebook.section("4.2")[1] in body
    assert "## 12." not in rulebook.section("11")[1]
    assert rulebook.section("12")[1].endswith(rules_text().rstrip("\n").split("\n")[-1])


def test_every_section_has_text_and_the_intro_comes_first():
    for key, (title, body) in rulebook.sections().items():
        assert title and len(body) > 80, key
    title, intro = rulebook.section("intro")
    assert title == "Introduction"
    assert "## The game in brief" in intro and "## 1." not in intro
    assert not intro.startswith("# ")


# ---------------------------------------------------------------------------
# Citations and links
# ---------------------------------------------------------------------------

#: Files whose "§N" citations (of RULES.md or of the rules) must name a section.
CITING = (sorted((ROOT / "kwsearch").glob("*.py")) + sorted((ROOT / "kwsearch").glob("*.pyx"))
          + sorted((ROOT / "kwsearch" / "web" / "static").glob("*")) + sorted((ROOT / "docs").glob("*.md"))
          + [ROOT / "README.md"])
#: A citation: "RULES.md §8", "rules §4.1", "§5.2", "§ 11"; the numbers of "§5.1–5.3", "§7, §9".
CITATION = re.compile(r"§\s*(\d+(?:\.\d+)?)")
#: A citation of the specification, which a user of the package does not have.
SPEC_CITATION = re.compile(r"RULES\.md`?\s*§\s*(\d+(?:\.\d+)?)")


def citations() -> list[tuple[str, int, str]]:
    out = []
    for path in CITING:
        if path.suffix in (".png", ".svg", ".ico") or not path.is_file():
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            out += [(str(path.relative_to(ROOT)), n, m.group(1)) for m in CITATION.finditer(line)]
    return out


def test_every_citation_names_a_section():
    secs = rulebook.sections()
    found = citations()
    bad = [c for c in found if c[2] not in secs]
    assert not bad, bad
    # the search sees the citations it must: the package's and the docs'
    files = {f for f, _, _ in found}
    assert {"kwsearch/rules.py", "kwsearch/components.py", "docs/rules.md", "README.md"} <= files
    assert len(found) > 150


def test_the_citation_pattern():
    line = "see RULES.md §5.2, §11 and `RULES.md` §12; rules §8 (rules §4.1); §5.1–5.3; §7"
    assert [m.group(1) for m in CITATION.finditer(line)] == ["5.2", "11", "12", "8", "4.1", "5.1", "7"]
    assert [m.group(1) for m in SPEC_CITATION.finditer(line)] == ["5.2", "12"]


def github_anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_github_anchor():
    assert github_anchor("8. Buyers") == "8-buyers"
    assert github_anchor("4.1 The actions") == "41-the-actions"
    assert github_anchor("7. The Grand-Prix race") == "7-the-grand-prix-race"


def test_links_to_the_rules_name_their_sections():
    anchors = {github_anchor(h): h for h in re.findall(r"^#{1,3} (.+)$", rules_text(), flags=re.M)}
    link = re.compile(r"\[([^\]]*)\]\((?:docs/)?rules\.md(?:#([^)]*))?\)")
    seen = 0
    for path in sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for m in link.finditer(line):
                seen += 1
                where = f"{path.name}:{n}: {m.group(0)}"
                if m.group(2) is None:
                    continue
                assert m.group(2) in anchors, where
                cited = re.search(r"§\s*(\d+(?:\.\d+)?)", m.group(1))
                if cited:  # "[rules §8](rules.md#8-buyers)": the text and the anchor agree
                    assert anchors[m.group(2)].startswith((cited.group(1) + ".", cited.group(1) + " ")), where
    assert seen >= 10


def test_user_docs_cite_the_rules_not_the_specification():
    # docs/rules-notes.md and docs/design.md address developers and cite the specification.
    for path in sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]:
        if path.name in ("rules-notes.md", "design.md"):
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            assert not SPEC_CITATION.search(line), f"{path.name}:{n}: {line}"
    for path in sorted((ROOT / "kwsearch" / "web" / "static").glob("*")):
        if path.suffix in (".html", ".js", ".css"):
            assert "RULES.md" not in path.read_text(encoding="utf-8"), path.name


# ---------------------------------------------------------------------------
# The component tables are the engine's data
# ---------------------------------------------------------------------------


def table(body: str, header: str) -> list[list[str]]:
    """The rows (cells stripped) of the Markdown tables in ``body`` whose first header cell
    is ``header``, without their headers and rules, one after the other."""
    lines = body.splitlines()
    rows: list[list[str]] = []
    for i, line in enumerate(lines):
        if line.startswith("|") and line.split("|")[1].strip() == header and (i == 0 or not lines[i - 1].startswith("|")):
            for row in lines[i + 2:]:
                if not row.startswith("|"):
                    break
                rows.append([c.strip() for c in row.strip().strip("|").split("|")])
    assert rows, f"no table headed {header!r}"
    return rows


def ints(cell: str) -> list[int]:
    return [int(x) for x in re.findall(r"\d+", cell)]


ACTION_WORDS = {"hire worker": "hire", "car body": "body", "engine": "engine", "grand prix": "gp",
                "research": "research", "buyer": "buyer", "grand-prix car engine 2": "gp_engine2",
                "grand-prix car on space 2": "gp_start2"}


def actions(cell: str) -> tuple[str, ...]:
    return tuple(ACTION_WORDS[a.strip()] for a in re.split(r"[+,]", cell.lower()))


def test_tile_and_card_tables_are_the_components():
    c = default_components()
    s12 = rulebook.section("12")[1]
    assert [actions(r[0]) for r in table(s12, "actions")] == [t.actions for t in c.action_tiles]
    assert [(r[0], actions(r[1])) for r in table(s12, "tile")] == [(t.name, t.actions) for t in c.start_tiles]
    cards = table(s12, "card")
    assert [(r[1].strip("`"), int(r[2]), r[3]) for r in cards] == \
        [(ct.name, ct.count, ct.kind) for ct in c.card_types]
    assert sum(int(r[2]) for r in cards) == c.deck_size
    tiles = {r[0]: ints(" ".join(r[1:])) for r in table(s12, "value")}
    assert tiles["car bodies"] == list(c.body_tiles) + [sum(c.body_tiles)]
    assert tiles["engines"] == list(c.engine_tiles) + [sum(c.engine_tiles)]


def test_money_tables_are_the_components():
    c = default_components()
    s12 = rulebook.section("12")[1]
    assert [tuple(ints(r[2])) for r in table(s12, "round")] == list(c.price_markers)
    buyers = table(s12, "preference")
    assert [r[0] for r in buyers] == list(PREFERENCES)
    assert [int(r[1]) for r in buyers] == [c.buyers_per_preference] * 4
    assert [int(r[2]) for r in buyers] == list(c.white_markers)
    gp = {r[0]: r[1] for r in table(s12, "item")}
    assert ints(gp["lap length"]) == [c.gp_lap_length]
    assert ints(gp["places 1, 2, 3"]) == list(c.gp_place_money)
    assert ints(gp["laps completed 1, 2, 3, 4, 5"]) == list(c.gp_lap_money)
    assert ints(gp["each lap beyond 5"]) == [c.gp_lap_money_extra]
    assert ints(gp["neutral cars with 2 players"]) == list(c.neutral_cars_2p)
    assert ints(gp['start tile "engine 2" / "space 2"']) == [c.gp_start_tile_engine, c.gp_start_tile_space]
    awards = table(s12, "award")
    assert ints(" ".join(awards[0][1:])) == list(c.awards) and len(AWARDS) == len(awards[0]) - 1
    s9 = table(rulebook.section("9")[1], "award")
    assert [int(r[2]) for r in s9] == list(c.awards)


def test_player_count_table_is_the_components():
    c = default_components()
    rows = {r[0]: r[1:] for r in table(rulebook.section("12")[1], "players")}
    for i, n in enumerate((2, 3, 4)):
        assert ints(rows["market spaces"][i]) == [c.market_size[n]]
        assert ints(rows["active-buyer spaces"][i]) == [c.active_buyer_spaces[n]]
        assert ints(rows["buyer-track start"][i]) == [c.buyer_track_start[n]]
        assert ints(rows["start tiles offered"][i])[0] == c.start_tiles_offered[n]
    other = {r[0]: r[1] for r in table(rulebook.section("12")[1], "item") if r[0] in ("workers per player", "Otto")}
    assert ints(other["workers per player"]) == [c.workers_per_player, c.canteen_start]
    assert ints(other["Otto"]) == [c.otto_workers]


BONUS_WORDS = {"an engine of value": "engine", "a body of value": "body", "grand-prix engine upgrade": "gp_engine",
               "money per canteen worker": "canteen_money", "remove one of your cars": "remove_car",
               "sell a workshop tile": "sell_tile", "research from the discard pile": "research_discard"}


def test_specialty_table_is_the_components():
    c = default_components()
    rows = table(rulebook.section("11")[1], "tile")
    got = []
    for name, stack, action, bonus in rows:
        kind = [v for k, v in BONUS_WORDS.items() if k in bonus.lower()]
        assert len(kind) == 1, bonus
        got.append((name, stack[0], actions(action)[0], kind[0], (ints(bonus) or [0])[0]))
    assert got == [(t.name, t.stack_name, t.action, t.bonus, t.value) for t in c.specialty_tiles]


# ---------------------------------------------------------------------------
# rulebook.section / print_rules
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["8", "§8", "§ 8", "s8", "S8", "8.", "sec 8", "section 8", "rules §8",
                                 " 8 ", "buyers", "Buyers", "BUYER", "the buyers"])
def test_section_spellings(key):
    assert rulebook.section(key) == rulebook.sections()["8"]


@pytest.mark.parametrize("key, title", [("4.1", "The actions"), ("§5.3", "Engineers"), ("grand prix", "The Grand-Prix race"),
                                        ("gp", "The Grand-Prix race"), ("diesel", "Engineers"), ("v6", "V6 specialty tiles"),
                                        ("chain", "The action track and the chain"), ("component", "Component data"),
                                        ("awards", "Award tiles"), ("Intro", "Introduction")])
def test_section_by_number_or_title_words(key, title):
    assert rulebook.section(key)[0] == title


@pytest.mark.parametrize("key", ["13", "0", "4.3", "2.7", "1.1", "xyzzy", "", "§", "8.1.2"])
def test_unknown_section_is_one_line_naming_the_known_ones(key):
    with pytest.raises(KwsearchError) as info:
        rulebook.section(key)
    msg = str(info.value)
    assert "\n" not in msg and repr(key) in msg
    assert "known sections: 1, 2, 2.1," in msg and ", 12," in msg


def test_ambiguous_words_name_the_candidates():
    with pytest.raises(KwsearchError, match=r"'hire' names several sections \(§4\.1 The actions; §5\.2 Instant actions\)"):
        rulebook.section("hire")


def test_print_rules():
    out: list[str] = []
    rulebook.print_rules(None, out.append)
    assert out == [rules_text().rstrip("\n")]
    out.clear()
    rulebook.print_rules("§8", out.append)
    assert len(out) == 1 and out[0].startswith("## 8. Buyers\n") and "## 9." not in out[0]
    out.clear()
    rulebook.print_rules("contents", out.append)
    lines = out[0].splitlines()
    assert lines[0] == "§1  Players, seats, components" and "  §4.1  The actions" in lines
    assert len(lines) == len(rulebook.sections())
    with pytest.raises(KwsearchError, match="no section '99'"):
        rulebook.print_rules("99", out.append)


@pytest.mark.skipif(not hasattr(main, "commands") or "rules" not in main.commands,
                    reason="the `kwsearch rules` command is not in kwsearch/cli.py yet")
def test_cli_rules_command():
    runner = CliRunner()
    res = runner.invoke(main, ["rules", "8"])
    assert res.exit_code == 0, res.output
    assert res.output.startswith("## 8. Buyers\n") and "## 9." not in res.output
    res = runner.invoke(main, ["rules", "buyers"])
    assert res.exit_code == 0 and res.output.startswith("## 8. Buyers\n")
    res = runner.invoke(main, ["rules"])
    assert res.exit_code == 0 and res.output == rules_text().rstrip("\n") + "\n"
    res = runner.invoke(main, ["rules", "13"])
    assert res.exit_code != 0
    assert len(res.output.strip().splitlines()) == 1 and "no section '13'" in res.output
    assert "Traceback" not in res.output
