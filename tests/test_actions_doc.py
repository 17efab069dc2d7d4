"""docs/actions.md stays true to kwsearch.actions and kwsearch.rules."""

from __future__ import annotations

import doctest
import re
import os
import subprocess
import sys
from pathlib import Path

from kwsearch.actions import Notation
from kwsearch.components import default_components
from kwsearch.rules import TASKS, State

import pytest

pytestmark = pytest.mark.one_engine  # engine-independent (see conftest.py)

DOCS = Path(__file__).resolve().parent.parent / "docs"
DOC = DOCS / "actions.md"


def decision_rows() -> dict[str, list[str]]:
    """task -> example texts, from the "Decision kinds" table."""
    section = DOC.read_text(encoding="utf-8").split("## Decision kinds", 1)[1]
    rows = {}
    for line in section.splitlines():
        m = re.match(r"\| `(\w+)` \|.*\| (.*) \|$", line)
        if m:
            rows[m.group(1)] = re.findall(r"`([^`]+)`", m.group(2))
    return rows


def test_id_table_is_up_to_date():
    # The script imports this checkout's kwsearch, which in a clean clone has no compiled
    # engine; the id table does not need one.
    env = dict(os.environ, KWSEARCH_PUREPYTHON="1")
    proc = subprocess.run([sys.executable, str(DOCS / "gen_actions.py"), "--check"],
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr


def test_every_decision_kind_is_listed():
    deciding = [k for k in TASKS if hasattr(State, "_choose_" + k)]
    assert list(decision_rows()) == deciding


def test_example_texts_are_moves():
    n = Notation(default_components())
    for task, texts in decision_rows().items():
        assert texts, task
        for text in texts:
            assert n.text(n.parse(text)) == text, (task, text)


def test_doc_examples_run():
    failures, _ = doctest.testfile(str(DOC), module_relative=False)
    assert failures == 0
