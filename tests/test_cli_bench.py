"""``kwsearch bench``: runs both benchmarks, prints the summary, writes Markdown sections (timing never asserted)."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from kwsearch.benchmarks import engine_cells, fit_row, search_cells, summary_lines
from kwsearch.cli import main

pytestmark = pytest.mark.one_engine


def too_long(text: str, width: int) -> list[str]:
    return [line for line in text.splitlines() if len(line) > width]


def has_openspiel() -> bool:
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        return False
    return True


def test_bench_quick_prints_summary_and_writes_markdown(tmp_path):
    md = tmp_path / "RESULTS.md"
    md.write_text("# My results\n\nkept text\n")
    r = CliRunner().invoke(main, ["bench", "--quick", "--markdown", str(md)], env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.output
    out = r.output
    assert not too_long(out, 80), too_long(out, 80)  # issue 31: every line within the terminal's width
    assert "Summary (quick run" in out
    flat = " ".join(out.split())  # the prose as read, across wrapped lines
    # the summary's labels as read: each line's left column (the value, after two or more spaces, left
    # out), so that a label wrapped onto a continuation line reads whole -- where it wraps depends on
    # how wide this machine's figures and name are
    labels = " ".join(" ".join(re.split(r" {2,}", line.strip())[0] for line in out.splitlines()).split())
    for row in ("state copy (C level)", "random playouts/s, 4-player opening (C level)",
                "ISMCTS iterations/s, 4-player opening", "2 workers / 1 worker", "bytes per search node",
                "ISMCTS iterations per CPU-second", "ns per tempo-playout decision"):
        assert row in labels, row
    # the units explained, and each figure carries its unit
    assert "/s = per second of wall-clock time" in flat and "/CPU-s = per second of this process's CPU time" in flat
    assert re.search(r"\d it/s$", out, re.M) and re.search(r"\d it/CPU-s$", out, re.M)
    assert re.search(r"\d copies/s +\d+x$", out, re.M) and re.search(r"\d ns$", out, re.M)
    if has_openspiel():  # the hearts row is there and explained
        assert "OpenSpiel hearts (C++ ISMCTSBot)" in out
        assert "a reference point, not a Kraftwagen figure" in flat and "card game hearts" in flat
    else:
        assert "open-spiel is not installed" in flat
    text = md.read_text()
    assert text.startswith("# My results\n\nkept text\n")
    for marker in ("<!-- BEGIN bench_engine -->", "<!-- END bench_engine -->", "<!-- BEGIN bench_search -->",
                   "<!-- END bench_search -->"):
        assert text.count(marker) == 1
    assert "quick run" in text


def test_bench_engine_fits_100_columns():
    r = CliRunner().invoke(main, ["bench", "--quick", "--only", "engine"], env={"COLUMNS": "100"})
    assert r.exit_code == 0, r.output
    assert not too_long(r.output, 100), too_long(r.output, 100)
    assert "fast/ref" in r.output and re.search(r"\d games/s +\d+x$", r.output, re.M)
    assert max(map(len, r.output.splitlines())) > 80  # the wider terminal is used (rows on one line)


@pytest.mark.parametrize("width", [60, 80, 100])
def test_bench_rows_fit_with_the_largest_figures(width):
    """The row layouts hold figures far beyond today's machines within the width, labels whole."""
    label = "random playouts/s, mid-game (examples/midgame-4p.json): Python loop vs FastState.playout"
    rows = [(label, engine_cells(9_876_543.2, 9_876_543_210.0, "applies/s", 9_999.0)),
            ("  default search, 100% of playout decisions from the prior", search_cells(98_765_432.1, "games/CPU-s")),
            ("  2 workers / 1 worker (wall clock)", search_cells(12.345, "x"))]
    for text, cells in rows:
        lines = fit_row(text, cells, width)
        assert not too_long("\n".join(lines), width), lines
        # the figures whole on the first line (or, too narrow for that, on the last), the label whole
        at = 0 if lines[0].endswith(cells.rstrip()) else -1
        assert lines[at].endswith(cells.rstrip()), lines
        rest = [*lines[:at], lines[at][:len(lines[at]) - len(cells.rstrip())], *lines[at + 1:]] if at == 0 \
            else lines[:-1]
        assert " ".join(" ".join(rest).split()) == text.strip(), lines
    assert len(fit_row(rows[1][0], rows[1][1], width)) == (1 if width == 100 else 2)
    assert re.fullmatch(r" *9,876,543 9,876,543,210 applies/s +9,999x", rows[0][1])
    assert re.fullmatch(r" *98,765,432.1 games/CPU-s *", rows[1][1]) and re.fullmatch(r" *12.35 x *", rows[2][1])
    summary = [("machine", "Intel(R) Xeon(R) Platinum 8480+ Processor @ 3.8GHz, Python 3.11.7, 2026-11-26"),
               ("OpenSpiel C++ ISMCTS on hearts (a reference point), ns per playout decision (CPU time)", "405 ns"),
               ("ISMCTS iterations per CPU-second, mid-game (examples/midgame-4p.json) (CPU time)",
                "9,876,543 it/CPU-s")]
    lines = summary_lines(summary, "Summary", width)
    assert lines[0] == "Summary" and not too_long("\n".join(lines), width), lines
    text = "\n".join(lines)
    for key, value in summary[1:]:  # every value whole on a line, every name whole across its lines
        assert re.search(re.escape(value) + "$", text, re.M), value
        assert " ".join(key.split()) in " ".join(text.replace(value, "").split()), key
    assert "machine: " + summary[0][1] in " ".join(text.split())  # too long for the column: on its own


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
