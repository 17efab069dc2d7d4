"""Every docstring example of the package runs, as part of the README's test command.

Why a test module rather than ``--doctest-modules`` in ``pyproject.toml``: CI installs
the package (``pip install ".[test]"``, which compiles the engine into site-packages)
and runs ``pytest`` in the checkout, whose ``kwsearch/`` folder has no compiled
engine. The suite imports the *installed* package — pytest puts ``tests/`` on the
path, not the checkout root. Collecting doctests from the ``kwsearch/`` folder
would import the checkout's modules instead (pytest's default import mode puts the
folder's parent first on ``sys.path``), which stops at the missing engine, and
would shadow the installed package for the rest of the run. So the examples are
found here, with :mod:`doctest`, in the modules the tests import: the installed
ones in CI, the checkout's in a development tree built in place (where
``python -m pytest --doctest-modules kwsearch`` runs the same examples).
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import kwsearch
from kwsearch.engine import set_default_engine

pytestmark = pytest.mark.one_engine

MODULES = sorted(m.name for m in pkgutil.walk_packages(kwsearch.__path__, "kwsearch."))


def test_the_walk_finds_the_package_and_its_examples():
    assert {"kwsearch.rules", "kwsearch.game", "kwsearch.observation", "kwsearch.web.app"} <= set(MODULES)
    import kwsearch.rules
    examples = [e for t in doctest.DocTestFinder().find(kwsearch.rules) for e in t.examples]
    assert any("new_initial_state" in e.source for e in examples)


@pytest.mark.parametrize("name", ["kwsearch"] + MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    # The examples show what a user sees: the environment's default engine (the compiled
    # one), not the reference that the suite's engine fixture chose for this test.
    set_default_engine(None)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    out: list[str] = []
    for test in finder.find(module, name):
        runner.run(test, out=out.append)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, "".join(out)
