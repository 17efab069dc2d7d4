"""The package's layering: no import cycle, no private name imported across modules.

The graph is read from the source, not from ``sys.modules``: every ``import`` and
``from ... import`` of a kwsearch module, at module level *and* inside functions
(a function-level import hides a cycle from Python's loader, not from a reader),
in every ``.py`` file and in the two Cython files (their imports are plain
Python syntax at the start of a line, read by a regular expression). The
package ``kwsearch`` itself (its ``__init__``) is a node like any other.
"""

from __future__ import annotations

import ast
import re
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
    """Module name -> (file, is a package)."""
    out = {}
    for path in sorted(ROOT.rglob("*.py")) + sorted(ROOT.rglob("*.pyx")):
        out[_module_name(path)] = (path, path.name == "__init__.py")
    return out


SOURCES = _sources()

_PYX_IMPORT = re.compile(r"^(?:from\s+(\.*[\w.]*)\s+(?:c?import)\s+\(?([^#\n]*)|import\s+([\w.]+))", re.M)


def _resolve(module: str, is_package: bool, level: int, name: str | None) -> str:
    """The absolute name of a (relative) import target."""
    if level == 0:
        return name or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[:len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def _imports(module: str) -> list[tuple[str, str | None, int]]:
    """(target module, imported name or None, line) of every kwsearch import in ``module``."""
    path, is_package = SOURCES[module]
    text = path.read_text(encoding="utf-8")
    found: list[tuple[str, str | None, int]] = []

    def add_from(target: str, names: list[str], line: int) -> None:
        for name in names:
            sub = f"{target}.{name}"
            if sub in SOURCES:  # `from . import rules`: the submodule itself
                found.append((sub, None, line))
            else:
                found.append((target, name, line))

    if path.suffix == ".py":
        for node in ast.walk(ast.parse(text, filename=str(path))):
            if isinstance(node, ast.Import):
                found += [(a.name, None, node.lineno) for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                target = _resolve(module, is_package, node.level, node.module)
                add_from(target, [a.name for a in node.names], node.lineno)
    else:
        for m in _PYX_IMPORT.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            if m.group(3):
                found.append((m.group(3), None, line))
                continue
            spec = m.group(1)
            level = len(spec) - len(spec.lstrip("."))
            target = _resolve(module, is_package, level, spec.lstrip(".") or None)
            names = [n.strip().split(" as ")[0].strip(" ()") for n in m.group(2).split(",")]
            add_from(target, [n for n in names if n and n != "\\"], line)
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


def test_the_graph_sees_the_imports_it_must():
    # The reader is itself tested: a few imports that are known to exist are found,
    # among them a function-level one and one from a Cython file.
    assert "kwsearch.game" in GRAPH["kwsearch.rules"]
    assert "kwsearch.game" in GRAPH["kwsearch._fast"]
    assert "kwsearch._fast" in GRAPH["kwsearch._search"]
    assert "kwsearch.web.app" in GRAPH["kwsearch.cli"]  # inside the serve command
    assert "kwsearch.errors" in GRAPH["kwsearch.web"]


def test_the_cycle_finder_finds_cycles():
    assert _cycles({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}) == [["a", "b", "c"]]
    assert _cycles({"a": ["b"], "b": []}) == []


def test_no_import_cycle():
    cycles = _cycles(GRAPH)
    assert not cycles, "import cycles: " + "; ".join(" <-> ".join(c) for c in cycles)


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
