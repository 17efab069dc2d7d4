"""The package's layering: no import cycle, no private name reached across modules.

The graph is read from the source, not from ``sys.modules``: every ``import`` and
``from ... import`` of a kwsearch module, at module level *and* inside functions
(a function-level import hides a cycle from Python's loader, not from a reader),
in every ``.py`` file (through :mod:`ast`) and in every Cython ``.pyx`` / ``.pxd``
file (``import``, ``cimport``, ``from ... import`` and ``from ... cimport`` at any
indentation, read from the file's tokens, so a docstring or a comment that quotes
an import is not one). A ``.pxd`` belongs to the module of its ``.pyx``. The
package ``kwsearch`` itself (its ``__init__``) is a node like any other.

Private reach is looked for in two ways (``test_no_private_name_reached_across_modules``):

* ``X._name`` where ``X`` is a name bound by an import of another kwsearch module
  (``_fast._force``, ``rules._PRICE_PREF``, ``State._run``);
* ``obj._name`` on any other object (not ``self`` / ``cls``) where ``_name`` is a private
  attribute or method that another module defines (``def _name``, ``self._name =``,
  ``__slots__``, ``cdef ... _name``) and this module does not: ``st._run()`` in formats.py,
  ``ref._legal = ...`` in _fast.pyx.

What it cannot see: the type of ``obj`` is not inferred, so a private name that the
module itself also defines (two classes each with their own ``_items``) hides a reach
through it; so does ``getattr(obj, "_name")``; and positional unpacking of another
module's tuples is not private reach at all (named records, ``rules.ScoreSales`` and
friends, are the remedy, checked by review, not here).
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

pytestmark = pytest.mark.one_engine

# The checkout's sources (read as text, never imported): an installed package in CI
# has no .pyx files, and the layering is a property of the source anyway.
ROOT = Path(__file__).resolve().parent.parent / "kwsearch"
PKG = "kwsearch"
# The compiled modules (every .pyx): importing them is fine, their private names are not.
EXTENSIONS = tuple(sorted(path.stem for path in ROOT.rglob("*.pyx")))


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _sources() -> dict[str, tuple[Path, bool]]:
    """Module name -> (file, is a package). A Cython module is named by its ``.pyx``."""
    out = {}
    for path in sorted(ROOT.rglob("*.py")) + sorted(ROOT.rglob("*.pyx")):
        out[_module_name(path)] = (path, path.name == "__init__.py")
    return out


SOURCES = _sources()


def _files(module: str) -> list[Path]:
    """The files of ``module``: its ``.py``, or its ``.pyx`` and (if any) its ``.pxd``."""
    path = SOURCES[module][0]
    pxd = path.with_suffix(".pxd")
    return [path] + ([pxd] if path.suffix == ".pyx" and pxd.exists() else [])


def _resolve(module: str, is_package: bool, level: int, name: str | None) -> str:
    """The absolute name of a (relative) import target."""
    if level == 0:
        return name or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[:len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def _cython_lines(text: str) -> list[tuple[int, list[tokenize.TokenInfo]]]:
    """The logical lines of a Cython file as (first line number, code tokens): comments,
    strings (docstrings included) and layout tokens are dropped. Cython's own syntax
    (``cdef``, ``<int>`` casts, pointers) tokenizes as Python does."""
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING,
            tokenize.STRING, tokenize.ENDMARKER}
    skip |= {getattr(tokenize, name) for name in ("FSTRING_START", "FSTRING_MIDDLE", "FSTRING_END")
             if hasattr(tokenize, name)}
    lines: list[tuple[int, list[tokenize.TokenInfo]]] = []
    cur: list[tokenize.TokenInfo] = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.NEWLINE:
            if cur:
                lines.append((cur[0].start[0], cur))
            cur = []
        elif tok.type not in skip:
            cur.append(tok)
    if cur:
        lines.append((cur[0].start[0], cur))
    return lines


def _dotted(toks: list[str], i: int) -> tuple[str, int]:
    """The dotted name (leading dots kept) starting at ``toks[i]``, and the index after it."""
    j = i
    while j < len(toks) and (toks[j] == "." or toks[j] == "..." or (toks[j].isidentifier()
                             and toks[j] not in ("import", "cimport", "as"))):
        j += 1
    return "".join(toks[i:j]), j


def _cython_imports(text: str) -> list[tuple[str | None, list[str], int, int]]:
    """Every import statement of a Cython file, at any indentation: (module of a ``from``
    or None, the names imported (dotted modules for a plain ``import`` / ``cimport``),
    relative level, line)."""
    out = []
    for line, code in _cython_lines(text):
        toks = [t.string for t in code]
        if toks[0] in ("import", "cimport"):
            names, i = [], 1
            while i < len(toks):
                name, i = _dotted(toks, i)
                names.append(name)
                if i < len(toks) and toks[i] == "as":
                    i += 2
                i += 1  # the comma
            out.append((None, names, 0, line))
        elif toks[0] == "from" and ("import" in toks or "cimport" in toks):
            spec, i = _dotted(toks, 1)
            level = len(spec) - len(spec.lstrip("."))
            rest = [t for t in toks[i + 1:] if t not in ("(", ")")]
            names = [rest[k] for k in range(len(rest)) if rest[k].isidentifier() and rest[k] != "as"
                     and (k == 0 or rest[k - 1] != "as")]
            out.append((spec.lstrip(".") or None, names, level, line))
    return out


def _imports(module: str) -> list[tuple[str, str | None, int]]:
    """(target module, imported name or None, line) of every kwsearch import in ``module``."""
    path, is_package = SOURCES[module]
    found: list[tuple[str, str | None, int]] = []

    def add_from(target: str, names: list[str], line: int) -> None:
        for name in names:
            sub = f"{target}.{name}"
            if sub in SOURCES:  # `from . import rules`: the submodule itself
                found.append((sub, None, line))
            else:
                found.append((target, name, line))

    for file in _files(module):
        text = file.read_text(encoding="utf-8")
        if file.suffix == ".py":
            for node in ast.walk(ast.parse(text, filename=str(file))):
                if isinstance(node, ast.Import):
                    found += [(a.name, None, node.lineno) for a in node.names]
                elif isinstance(node, ast.ImportFrom):
                    target = _resolve(module, is_package, node.level, node.module)
                    add_from(target, [a.name for a in node.names], node.lineno)
        else:
            for spec, names, level, line in _cython_imports(text):
                if spec is None and level == 0:
                    found += [(name, None, line) for name in names]
                else:
                    add_from(_resolve(module, is_package, level, spec), names, line)
    return [(t, n, line) for t, n, line in found if t == PKG or t.startswith(PKG + ".")]


GRAPH = {m: sorted({t for t, _, _ in _imports(m) if t != m and t in SOURCES}) for m in SOURCES}


def _cycles(graph: dict[str, list[str]]) -> list[list[str]]:
    """One cycle per strongly connected component with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    comps: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return comps


#: Import cycles known and being removed elsewhere, each with the reason it is tolerated for now.
#: An entry is the exact set of modules of one cycle: a new module joining it, or any other cycle,
#: fails the test; so does an entry whose cycle is gone (remove the entry then).
KNOWN_CYCLES: dict[frozenset[str], str] = {}


def test_the_graph_sees_the_imports_it_must():
    # The reader is itself tested: a few imports that are known to exist are found,
    # among them a function-level one (in a .py; the Cython reader's indented imports are
    # tested on a text below) and a Cython cimport.
    assert "kwsearch.game" in GRAPH["kwsearch.rules"]
    assert "kwsearch.game" in GRAPH["kwsearch._fast"]
    assert "kwsearch._fast" in GRAPH["kwsearch._search"]
    assert "kwsearch._fast" in GRAPH["kwsearch._eval"]  # only cimported in _eval.pxd's contract too
    assert "kwsearch.web.app" in GRAPH["kwsearch.cli"]  # inside the serve command
    assert "kwsearch.errors" in GRAPH["kwsearch.web"]


def test_the_cython_reader_reads_every_import_and_no_docstring():
    text = (
        '"""A docstring that says: from kwsearch.rules import State"""\n'
        "from kwsearch._fast cimport (KState,\n    k_legal)  # a comment: import kwsearch.cli\n"
        "cimport kwsearch._eval as ev\n"
        "def f():\n"
        "    from kwsearch.search import DEFAULT_PLAYOUT\n"
        "    import kwsearch.bots\n"
        "    from . cimport _fast\n"
    )
    assert _cython_imports(text) == [
        ("kwsearch._fast", ["KState", "k_legal"], 0, 2),
        (None, ["kwsearch._eval"], 0, 4),
        ("kwsearch.search", ["DEFAULT_PLAYOUT"], 0, 6),
        (None, ["kwsearch.bots"], 0, 7),
        (None, ["_fast"], 1, 8),
    ]


def test_the_cycle_finder_finds_cycles():
    assert _cycles({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}) == [["a", "b", "c"]]
    assert _cycles({"a": ["b"], "b": []}) == []


def test_no_import_cycle():
    cycles = _cycles(GRAPH)
    new = [c for c in cycles if frozenset(c) not in KNOWN_CYCLES]
    assert not new, "import cycles: " + "; ".join(" <-> ".join(c) for c in new)
    stale = [f"{sorted(k)} ({why})" for k, why in KNOWN_CYCLES.items() if sorted(k) not in cycles]
    assert not stale, "KNOWN_CYCLES lists cycles that are gone; remove: " + "; ".join(stale)


def test_no_private_name_imported_across_modules():
    bad = []
    for module in SOURCES:
        for target, name, line in _imports(module):
            if name is not None and name.startswith("_") and not name.startswith("__") and target != module:
                bad.append(f"{SOURCES[module][0].relative_to(ROOT.parent)}:{line}: {name} from {target}")
            # `from . import _fast`: the compiled modules are public to the package.
            if name is None and target.rsplit(".", 1)[-1].startswith("_") and \
                    target.rsplit(".", 1)[-1] not in EXTENSIONS and not target.endswith("__init__"):
                bad.append(f"{SOURCES[module][0].relative_to(ROOT.parent)}:{line}: module {target}")
    assert not bad, "private names imported across modules:\n" + "\n".join(bad)


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


_SELF = ("self", "cls")


def _py_privates(tree: ast.AST) -> tuple[set[str], list[tuple[str, str, int, bool]]]:
    """A Python module's own private names (functions, classes, ``self._x`` stores, ``__slots__``,
    assignments) and its attribute reads ``obj._x`` as (obj, _x, line, obj is a plain name)."""
    own: set[str] = set()
    uses: list[tuple[str, str, int, bool]] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            own.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            own.add(node.id)
        elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__slots__"
                                                  for t in node.targets):
            own |= {e.value for e in ast.walk(node.value) if isinstance(e, ast.Constant)
                    and isinstance(e.value, str)}
        elif isinstance(node, ast.Attribute) and _private(node.attr):
            base = node.value
            if isinstance(base, ast.Name) and base.id in _SELF:
                if isinstance(node.ctx, ast.Store):
                    own.add(node.attr)
                continue
            name = base.id if isinstance(base, ast.Name) else ""
            uses.append((name, node.attr, node.lineno, isinstance(base, ast.Name)))
    return {n for n in own if _private(n)}, uses


def _cython_privates(text: str) -> tuple[set[str], list[tuple[str, str, int, bool]]]:
    """The same for a Cython file, from its tokens: own names are those of ``def``/``class``/
    ``cdef``/``ctypedef`` lines, ``self._x`` and module-level assignments."""
    own: set[str] = set()
    uses: list[tuple[str, str, int, bool]] = []
    for _, code in _cython_lines(text):
        toks = [t.string for t in code]
        if toks[0] in ("import", "cimport", "from"):
            continue  # an import names modules, not attributes
        if toks[0] in ("def", "cdef", "cpdef", "ctypedef", "class") or (len(toks) > 1 and toks[1] == "="):
            own |= {t for k, t in enumerate(toks) if _private(t) and (k == 0 or toks[k - 1] != ".")}
        for k in range(2, len(toks)):
            if toks[k - 1] == "." and _private(toks[k]) and toks[k].isidentifier():
                obj = toks[k - 2]
                if obj in _SELF:
                    own.add(toks[k])
                    continue
                plain = obj.isidentifier() and (k < 3 or toks[k - 3] != ".")
                uses.append((obj if plain else "", toks[k], code[k].start[0], plain))
    return own, uses


def _private_reach() -> list[str]:
    """Every ``X._name`` reached across modules that the two rules of the module docstring find."""
    own: dict[str, set[str]] = {}
    uses: dict[str, list[tuple[str, str, int, bool]]] = {}
    imported: dict[str, dict[str, str]] = {}  # module -> local name bound by a kwsearch import -> its module
    for module in SOURCES:
        own[module], uses[module], imported[module] = set(), [], {}
        for file in _files(module):
            text = file.read_text(encoding="utf-8")
            if file.suffix == ".py":
                tree = ast.parse(text, filename=str(file))
                o, u = _py_privates(tree)
                for node in ast.walk(tree):
                    if isinstance(node, (ast.Import, ast.ImportFrom)):
                        base = _resolve(module, SOURCES[module][1], node.level, node.module) \
                            if isinstance(node, ast.ImportFrom) else None
                        for a in node.names:
                            target = a.name if base is None else base
                            if target == PKG or target.startswith(PKG + "."):
                                imported[module][a.asname or a.name.split(".")[0]] = target
            else:
                o, u = _cython_privates(text)
                for spec, names, level, _ in _cython_imports(text):
                    base = _resolve(module, SOURCES[module][1], level, spec) if spec or level else None
                    for name in names:
                        target = name if base is None else base
                        if target == PKG or target.startswith(PKG + "."):
                            imported[module][name.split(".")[0]] = target
                # `import kwsearch.actions as _A` binds the alias: read the `as` names too
                for _, code in _cython_lines(text):
                    toks = [t.string for t in code]
                    if toks[0] in ("import", "cimport", "from"):
                        for k in range(1, len(toks) - 1):
                            if toks[k] == "as":
                                imported[module][toks[k + 1]] = PKG
            own[module] |= o
            uses[module] += u
    bad = []
    for module in SOURCES:
        where = SOURCES[module][0].relative_to(ROOT.parent)
        for obj, attr, line, plain in uses[module]:
            if plain and obj in imported[module] and imported[module][obj] != module:
                bad.append(f"{where}:{line}: {obj}.{attr} (a private name of an imported module or class)")
            elif attr not in own[module] and any(attr in own[m] for m in SOURCES if m != module):
                owners = sorted(m for m in SOURCES if m != module and attr in own[m])
                bad.append(f"{where}:{line}: {obj or '...'}.{attr} (private to {', '.join(owners)})")
    return bad


def test_the_private_reach_finder_finds_reach():
    own, uses = _py_privates(ast.parse("def f(st):\n    st._run()\n    self._x = 1\n    return st._legal\n"))
    assert own == {"_x"} and {(o, a) for o, a, _, _ in uses} == {("st", "_run"), ("st", "_legal")}
    own, uses = _cython_privates('"""st._doc"""\ncdef int _helper(x):\n    ref._legal = 1  # y._comment\n')
    assert own == {"_helper"} and [(o, a) for o, a, _, _ in uses] == [("ref", "_legal")]


def test_no_private_name_reached_across_modules():
    bad = _private_reach()
    assert not bad, "private names reached across modules:\n" + "\n".join(bad)


def test_both_engines_implement_the_state_protocol():
    from kwsearch._fast import FastState
    from kwsearch.game import Game, GameState
    from kwsearch.rules import State

    members = [m for m in dir(GameState) if not m.startswith("_")]
    assert {"legal_actions", "apply", "observation", "pending", "game"} <= set(members)
    for cls in (State, FastState):
        missing = [m for m in members if not hasattr(cls, m) and m not in getattr(cls, "__slots__", ())]
        assert not missing, f"{cls.__name__} lacks {missing}"
    for engine in ("reference", "fast"):
        assert isinstance(Game(2).new_initial_state(seed=1, engine=engine), GameState)


# ---------------------------------------------------------------------------
# docs/design.md, "How to change a rule", names places that exist
# ---------------------------------------------------------------------------

REPO = ROOT.parent
_CODE = [p for p in sorted(ROOT.rglob("*")) if p.suffix in (".py", ".pyx", ".pxd")]
#: Named by the doc but kept outside the repository: the rulebook's specification.
OUTSIDE = {"RULES.md"}


def _defines(text: str, name: str) -> bool:
    """Whether ``text`` defines ``name``: a def/class/struct, a cdef function or variable, a
    module-level assignment, or an enum member / struct field of a .pxd."""
    n = re.escape(name)
    return bool(re.search(rf"\b(?:def|class|struct)\s+{n}\b|^cdef\b[^\n=#]*[\s*]{n}\s*[(\[=]|"
                          rf"^cdef\b[^\n=#(]*[\s*]{n}\s*$|^{n}\s*[:=]|^\s+{n}\s*(?:=|#|$)|^\s+\w+[\s*]+{n}\b",
                          text, re.M))


def _rule_places() -> list[str]:
    """The backticked names of docs/design.md's "How to change a rule" section."""
    doc = (REPO / "docs" / "design.md").read_text(encoding="utf-8")
    section = doc[doc.index("## How to change a rule"):]
    nxt = section.find("\n## ", 5)
    return re.findall(r"`([^`]+)`", section if nxt < 0 else section[:nxt])


def _place_problem(span: str) -> str | None:
    """What is wrong with one named place (None: it exists, or it is no place: a command, a
    pattern like ``task_KIND``, a section sign)."""
    if " " in span and ": " not in span or "KIND" in span or "*" in span or "§" in span:
        return None
    path, _, name = span.partition(": ")
    if path in OUTSIDE:
        return None
    if "/" in path or path.endswith((".md", ".py", ".pyx", ".pxd")):
        file = REPO / path if "/" in path else None
        if file is None:
            found = [p for p in _CODE if p.name == path]
            file = found[0] if found else None
        if file is None or not file.exists():
            return f"no file {path}"
        if name and not _defines(file.read_text(encoding="utf-8"), name):
            return f"{path} defines no {name}"
        return None
    name = re.sub(r"\(.*\)$", "", span).strip()
    if "." in name:  # module.name or Class.method: the last part must be defined somewhere
        name = name.rsplit(".", 1)[1]
    if not re.fullmatch(r"[A-Za-z_]\w*", name):
        return None
    if not any(_defines(p.read_text(encoding="utf-8"), name) for p in _CODE):
        return f"nothing in kwsearch/ defines {name}"
    return None


def test_the_place_checker_finds_what_is_missing():
    assert _place_problem("kwsearch/_fast.pxd") is None
    assert _place_problem("kwsearch/_fast.pxd: sales_rule") is None
    assert _place_problem("sales_money") is None and _place_problem("then_next(s, c, buf)") is None
    assert _place_problem("task_KIND") is None and _place_problem("python setup.py build_ext --inplace") is None
    assert _place_problem("kwsearch/_fast.pyx: no_such_function") is not None
    assert _place_problem("kwsearch/nowhere.py") is not None
    assert _place_problem("smart_value") is not None  # the smart playouts' old copy of the rule


def test_how_to_change_a_rule_names_what_exists():
    places = _rule_places()
    assert "sales_rule" in places and "kwsearch/_playout.pyx" in places
    bad = [f"`{p}`: {why}" for p in places if (why := _place_problem(p))]
    assert not bad, "docs/design.md, How to change a rule, names what does not exist:\n" + "\n".join(bad)


# ---------------------------------------------------------------------------
# docs/design.md, "Layers": the table names every module, and imports point up it
# ---------------------------------------------------------------------------


def _layer_table() -> list[list[Path]]:
    """The files each line of docs/design.md's layer table names (lines without a file left out),
    top to bottom: the file column is what follows the layer name up to two spaces; ``.pxd`` stands
    for the first file's own ``.pxd``, a bare ``name.py`` for a file of the first one's folder."""
    doc = (REPO / "docs" / "design.md").read_text(encoding="utf-8")
    section = doc[doc.index("## Layers"):]
    block = section[section.index("```\n") + 4:]
    block = block[:block.index("```")]
    rows = []
    for line in block.splitlines():
        m = re.match(r"^\S*\s+(kwsearch/.*?)(?:\s{2,}|$)", line)
        if not m:
            continue
        first, *rest = m.group(1).split(", ")
        files = [REPO / first]
        for name in rest:
            files.append(files[0].with_suffix(name) if name.startswith(".") else files[0].parent / name)
        rows.append(files)
    return rows


def _table_module(path: Path) -> str:
    """The module a file of the table belongs to (a ``.pxd``: its ``.pyx``'s)."""
    return _module_name(path.with_suffix(".py") if path.suffix == ".pxd" else path)


def test_the_layer_table_reader_reads_the_rows():
    rows = _layer_table()
    named = {_table_module(p) for row in rows for p in row}
    assert {"kwsearch._fast", "kwsearch.bots", "kwsearch.heuristic", "kwsearch.search", "kwsearch._search",
            "kwsearch", "kwsearch.web", "kwsearch.web.guard", "kwsearch.cli"} <= named
    assert REPO / "kwsearch" / "_search.pxd" in {p for row in rows for p in row}
    assert _table_module(rows[-1][0]) == "kwsearch.cli"


def test_the_layer_table_names_every_module_and_file():
    rows = _layer_table()
    files = [p for row in rows for p in row]
    assert not [p for p in files if not p.exists()], "docs/design.md's layer table names missing files"
    code = [p for p in sorted(ROOT.rglob("*")) if p.suffix in (".py", ".pyx", ".pxd")]
    unnamed = [str(p.relative_to(REPO)) for p in code if p not in files]
    assert not unnamed, "docs/design.md's layer table does not name: " + ", ".join(unnamed)


def test_imports_point_up_the_layer_table():
    line = {}
    for k, row in enumerate(_layer_table()):
        for path in row:
            line.setdefault(_table_module(path), k)
    down = [f"{m} imports {t}" for m in GRAPH if m in line
            for t in GRAPH[m] if line.get(t, -1) > line[m]]
    assert not down, "imports of modules named further down docs/design.md's layer table:\n" + "\n".join(down)
