"""``kwsearch bench``: runs both benchmarks, prints the summary, writes Markdown sections (timing never asserted)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from kwsearch.cli import main

pytestmark = pytest.mark.one_engine


def test_bench_quick_prints_summary_and_writes_markdown(tmp_path):
    md = tmp_path / "RESULTS.md"
    md.write_text("# My results\n\nkept text\n")
    r = CliRunner().invoke(main, ["bench", "--quick", "--markdown", str(md)])
    assert r.exit_code == 0, r.output
    out = r.output
    assert "Summary (quick run" in out
    for row in ("state copy (C level)", "random playouts/s, 4-player opening (C level)",
                "ISMCTS iterations/s, 4-player opening", "2 workers / 1 worker", "bytes per search node"):
        assert row in out, row
    text = md.read_text()
    assert text.startswith("# My results\n\nkept text\n")
    for marker in ("<!-- BEGIN bench_engine -->", "<!-- END bench_engine -->", "<!-- BEGIN bench_search -->",
                   "<!-- END bench_search -->"):
        assert text.count(marker) == 1
    assert "quick run" in text


def test_bench_bad_option_value():
    r = CliRunner().invoke(main, ["bench", "--quick", "--only", "nothing"])
    assert r.exit_code == 2 and "--only" in r.output


def test_version():
    from kwsearch import __version__
    r = CliRunner().invoke(main, ["--version"])
    assert r.exit_code == 0 and __version__ in r.output


def test_best_cpu_rates_interleaves_the_functions():
    """Side-by-side figures: every round runs each function once, in order, so load changes hit all alike."""
    from kwsearch.benchmarks import best_cpu_rates
    calls = []

    def work(key):
        def fn():
            calls.append(key)
            sum(i * i for i in range(20_000))
        return fn

    rates = best_cpu_rates({"a": work("a"), "b": work("b"), "c": work("c")}, 100, 3)
    assert calls == ["a", "b", "c"] * 3
    assert set(rates) == {"a", "b", "c"} and all(r > 0 for r in rates.values())
