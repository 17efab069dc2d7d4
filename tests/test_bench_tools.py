"""bench/usage.py (what the bots use, per game) and bench/stability.py (top-move agreement across seeds)."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

from kwsearch.game import Game
from kwsearch.records import count_decisions
from kwsearch.scoring import explain_apply
from kwsearch.tournament import TournamentSpec, load_results, run_tournament

pytestmark = pytest.mark.one_engine

ROOT = Path(__file__).resolve().parent.parent
QUALITY = {"body3", "body6", "engine4", "engine7"}


def _load(name: str, folder: str = "bench"):
    """The script ``folder/name.py`` (bench/ or bench/tools/) as a module."""
    saved = list(sys.path)  # the script puts its checkout first on sys.path: undo that afterwards
    try:
        spec = importlib.util.spec_from_file_location(name, ROOT / folder / f"{name}.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        sys.path[:] = saved
    return mod


@pytest.fixture(scope="module")
def usage():
    return _load("usage")


@pytest.fixture(scope="module")
def stability():
    return _load("stability")


@pytest.fixture()
def results(tmp_path):
    out = tmp_path / "games.jsonl"
    run_tournament(TournamentSpec(bots=("random", "heuristic"), players=4, games=2, seed=11), out, workers=1)
    return out


def independent_counts(line: dict) -> list[dict]:
    """The same counts, found another way: the game's moves replayed on the *fast* engine from its deck
    seed, read from the observation, move texts and the scorings that explain_apply reports."""
    n = len(line["money"])
    st = Game(n).new_initial_state(line["deck_seed"], engine="fast")
    out = [{"daimler_markers": 0, "diesel_changes": 0, "benz_buyers": 0, "car_markers": 0, "gp_rises": 0,
            "cars_sold": 0, "sale_money": 0} for _ in range(n)]
    prefixes = {"daimler_markers": "daimler +", "diesel_changes": "diesel car@", "benz_buyers": "benz buyer",
                "car_markers": "market +"}
    for ev in line["record"]["events"]:
        if ev.startswith("reveal"):
            continue  # the fast engine deals the same cards from the same seed
        seat = st.current_player()
        before = [s["gp_engine"] for s in st.observation()["seats"]]
        for key, prefix in prefixes.items():
            out[seat][key] += ev.startswith(prefix)
        for report in explain_apply(st, st.parse_move(ev)):
            for sale in report.sales:
                if sale.car is not None:
                    out[sale.car.seller]["cars_sold"] += 1
                    out[sale.car.seller]["sale_money"] += sale.payment
        after = [s["gp_engine"] for s in st.observation()["seats"]]
        for s in range(n):
            out[s]["gp_rises"] += after[s] > before[s]
    assert st.is_terminal() and st.money() == line["money"]
    obs = st.observation()
    for s, seat in enumerate(obs["seats"]):
        awards = [a for a, owner in obs["awards"].items() if owner == s]
        names = [e.lower() for e in seat["engineers"]]
        out[s].update(developments=len(seat["developments"]) + len(seat["inactive"]), engineers=len(names),
                      daimler=int("daimler" in names), diesel=int("diesel" in names), benz=int("benz" in names),
                      gp_engine=seat["gp_engine"], awards=len(awards),
                      quality_awards=sum(a in QUALITY for a in awards), money=line["money"][s],
                      win=line["returns"][s])
    return out


def test_usage_counts_equal_an_independent_replay(usage, results):
    games = usage.read_games([str(results)])
    _, lines, _ = load_results(results)
    assert [g["game"] for g in games] == [0, 1]
    keys = set(independent_counts(lines[0])[0])
    total_devs = 0
    for g in games:
        expected = independent_counts(lines[g["game"]])
        got = [{k: seat[k] for k in keys} for seat in g["seats"]]
        assert got == expected
        assert g["specs"] == [["random", "heuristic"][b] for b in lines[g["game"]]["bots"]]
        total_devs += sum(seat["developments"] for seat in g["seats"])
    summary = usage.summarize(games)
    assert set(summary["bots"]) == {"random", "heuristic"}
    assert sum(b["seat_games"] for b in summary["bots"].values()) == 8
    assert sum(b["developments"] * b["seat_games"] for b in summary["bots"].values()) == pytest.approx(total_devs)
    split = summary["developments_split"]
    assert split["3+"]["seat_games"] + split["<3"]["seat_games"] == 8
    wins = sum(sum(lines[i]["returns"]) for i in lines)
    assert sum(b["win_share"] * b["seat_games"] for b in summary["bots"].values()) == pytest.approx(wins)


def test_usage_cli_writes_tables_json_and_its_section(usage, results, tmp_path, capsys):
    md = tmp_path / "RESULTS.md"
    md.write_text("# Results\n\n<!-- BEGIN other -->\nother sections stay\n<!-- END other -->\n")
    assert usage.main([str(results), "--label", "tiny", "--results-md", str(md),
                       "--out", str(tmp_path / "u.json")]) == 0
    out = capsys.readouterr().out
    assert "| `heuristic` | 4 |" in out and "all seats" in out
    text = md.read_text()
    assert "other sections stay" in text and "<!-- BEGIN usage-tiny -->" in text
    assert len(json.loads((tmp_path / "u.json").read_text())["per_game"]) == 2
    assert usage.main([str(results), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 2


def test_usage_refuses_files_without_records(usage, tmp_path, capsys):
    strength = tmp_path / "strength.jsonl"
    strength.write_text(json.dumps({"match": "m", "index": 0, "deck_seed": 1, "tested_seat": 0,
                                    "seats": ["heuristic", "random"], "money": [1, 2], "score": 0.0}) + "\n")
    assert usage.main([str(strength)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {strength}: a bench/strength.py results file") and "\n" == err[-1]
    assert usage.main([str(tmp_path / "missing.jsonl")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_usage_names_a_record_that_disagrees_with_its_line(usage, results, tmp_path):
    lines = results.read_text().splitlines()
    game = json.loads(lines[1])
    game["money"] = [m + 1 for m in game["money"]]
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([lines[0], json.dumps(game), *lines[2:]]) + "\n")
    with pytest.raises(usage.UsageError, match=r"bad\.jsonl: game 0: money"):
        usage.read_games([str(bad)])


def test_stability_is_deterministic_for_its_seed(stability):
    first = stability.measure("ismcts", positions=2, seeds=2, iterations=200, players=4, seed=5,
                              echo=lambda _: None)
    again = stability.measure("ismcts:iterations=99999", positions=2, seeds=2, iterations=200, players=4, seed=5,
                              echo=lambda _: None)
    strip = lambda r: {k: v for k, v in r.items() if k not in ("cpu_seconds", "date")}  # noqa: E731
    assert strip(first) == strip(again)  # the spec's own limit is replaced by --iterations
    assert first["spec"] == "ismcts:iterations=200"
    assert first["positions"] == 2 and [r["stage"] for r in first["rows"]] == ["opening", "early"]
    for key in ("all_agree", "pairwise", "modal"):
        assert 0.0 <= first[key] <= 1.0
    for row in first["rows"]:
        assert row["options"] >= 2 and len(row["runs"]) == 2
        assert row["agree"] == (row["runs"][0]["top"] == row["runs"][1]["top"])
        assert row["pairwise"] == float(row["agree"])
        assert all(0.0 < r["share"] <= 1.0 for r in row["runs"])
    assert first["all_agree"] == sum(r["agree"] for r in first["rows"]) / 2
    other = stability.measure("ismcts", positions=2, seeds=2, iterations=200, players=4, seed=6,
                              echo=lambda _: None)
    assert {r["seed"] for row in other["rows"] for r in row["runs"]}.isdisjoint(
        {r["seed"] for row in first["rows"] for r in row["runs"]})


def test_stability_positions_cover_every_stage(stability):
    sample = stability.sample_positions(7, 4, seed=2)
    assert [p["game"] for p in sample] == [0] * 5 + [1] * 2
    assert [p["stage"] for p in sample] == list(stability.STAGE_NAMES) + ["opening", "early"]
    assert all(len(p["state"].legal_actions()) >= 2 for p in sample)
    decisions = [p["decision"] for p in sample[:5]]
    assert decisions == sorted(decisions)


def test_stability_cli_writes_json_and_section(stability, tmp_path, capsys):
    md = tmp_path / "RESULTS.md"
    out = tmp_path / "s.json"
    assert stability.main(["--positions", "2", "--seeds", "2", "--iterations", "100", "--seed", "3",
                           "--out", str(out), "--results", str(md), "--label", "tiny"]) == 0
    res = json.loads(out.read_text())
    assert res["positions"] == 2 and res["seeds"] == 2
    text = md.read_text()
    assert "<!-- BEGIN stability-tiny -->" in text and "<!-- END stability-tiny -->" in text
    assert "all 2 seeds agree" in capsys.readouterr().out
    for bad, what in ((["--spec", "pimc"], "expected a spec of a single search"), (["--seeds", "1"], "--seeds"),
                      (["--spec", "ismcts:bogus=1"], "unknown option")):
        assert stability.main(bad + ["--positions", "1", "--no-results"]) == 2
        assert what in capsys.readouterr().err


def test_stability_bands_reports_bands_and_the_re_searches_precision(tmp_path, capsys):
    """bench/stability_bands.py: every seed's top and equal band per position, the targets' shares, the
    re-searches' precision, and ``--c-uct`` and ``--cutoff`` searching with another constant or cut-off (other
    figures, same positions)."""
    sb = _load("stability_bands")
    runs = {}
    for c in (None, 2.0):
        out = tmp_path / f"b{c}.json"
        assert sb.main(["--positions", "2", "--seeds", "2", "--iterations", "300", "--out", str(out)]
                       + ([] if c is None else ["--c-uct", str(c)])) == 0
        runs[c] = json.loads(out.read_text())
    base = runs[None]
    assert base["c_uct"] == 0.4 and runs[2.0]["c_uct"] == 2.0
    assert base["positions"] == 2 and all(len(r["runs"]) == 2 for r in base["rows"])
    for r in base["rows"]:
        assert all(x["top"] in x["band"] for x in r["runs"])
        assert r["stable"] == all(x["top"] in o["band"] for x in r["runs"] for o in r["runs"])
        assert r["single"] == sum(len(x["band"]) == 1 for x in r["runs"]) / 2
    assert base["single_band"] == sum(r["single"] for r in base["rows"]) / 2
    assert base["median_win_se"] > 0 and base["median_top_gap"] >= 0
    assert [r["stage"] for r in runs[2.0]["rows"]] == [r["stage"] for r in base["rows"]]
    assert runs[2.0]["rows"] != base["rows"] or runs[2.0]["median_win_se"] != base["median_win_se"]
    assert "re-searches: median standard error" in capsys.readouterr().out
    cut = tmp_path / "cut.json"
    assert sb.main(["--positions", "2", "--seeds", "2", "--iterations", "300", "--cutoff", "60",
                    "--out", str(cut)]) == 0
    cut = json.loads(cut.read_text())
    assert base["cutoff"] == 30 and cut["cutoff"] == 60 and cut["c_uct"] == 0.4
    assert cut["rows"] != base["rows"] or cut["median_win_se"] != base["median_win_se"]
    with pytest.raises(SystemExit):
        sb.main(["--cutoff", "-1"])


def test_bands_verify_changes_only_the_re_searches(tmp_path):
    """bench/tools/bands_verify.py: the main searches as stability_bands.py's (the same most visited
    options), the hints' re-searches at another constant or in more chunks (other values), recorded in
    the file."""
    tool = _load("bands_verify", "bench/tools")
    import kwsearch.confidence
    import kwsearch.search
    plain = (kwsearch.confidence.verify, kwsearch.search.search_params)
    args = ["--positions", "2", "--seeds", "2", "--iterations", "300"]
    assert tool.main(args + ["--verify-c-uct", "2.0", "--out", str(tmp_path / "v.json")]) == 0
    assert (kwsearch.confidence.verify, kwsearch.search.search_params) == plain  # both put back
    assert _load("stability_bands").main(args + ["--out", str(tmp_path / "p.json")]) == 0
    v, p = (json.loads((tmp_path / f).read_text()) for f in ("v.json", "p.json"))
    assert v["verify_c_uct"] == 2.0 and v["c_uct"] == p["c_uct"] == 0.4 and "verify_c_uct" not in p
    assert tool.main(args + ["--chunks", "5", "--out", str(tmp_path / "c.json")]) == 0
    assert (kwsearch.confidence.verify, kwsearch.search.search_params) == plain
    c = json.loads((tmp_path / "c.json").read_text())
    assert c["chunks"] == 5 and c["verify_c_uct"] is None and v["chunks"] is None
    for other in (v, c):
        assert [[x["visits_top"] for x in r["runs"]] for r in other["rows"]] == [
            [x["visits_top"] for x in r["runs"]] for r in p["rows"]]
        assert other["median_win_se"] != p["median_win_se"] or other["rows"] != p["rows"]


def test_doubt_sim_marks_clear_losses_and_spares_small_ones():
    """bench/tools/doubt_sim.py: a loss far above the mistake line is always marked, one far below never,
    one on the line sometimes; the same seed gives the same chances."""
    sim = _load("doubt_sim", "bench/tools")
    import numpy as np
    rule = {"cap": 5, "zone": 1.0, "no_mark_zone": 0.0, "sd_played": 1.5, "sd_best": 3.4, "n": 60}
    chance = lambda loss, seed=1: sim.mark_chance(loss, np.random.default_rng(seed), **rule)  # noqa: E731
    assert chance(25.0)[0] == 1.0 and chance(2.0)[0] == 0.0
    on_line, rounds = chance(11.5)
    assert 0.0 < on_line < 1.0 and 1 <= rounds <= 5 and chance(11.5) == (on_line, rounds)
    assert chance(25.0)[1] < rounds  # a clear loss stops early


def test_near_ties_searches_each_named_option_alone(stability, tmp_path, capsys):
    """bench/near_ties.py: every disagreement of a stability result, each option a
    seed named searched alone (forced at the root) on a few seeds; repeatable for its seeds."""
    near_ties = _load("near_ties")
    res = stability.measure("ismcts", positions=5, seeds=3, iterations=30, players=4, seed=5, echo=lambda *a: None)
    differ = [r for r in res["rows"] if not r["agree"]]
    assert differ, "30 iterations should leave some disagreement to look at"
    src = tmp_path / "s.json"
    src.write_text(json.dumps(res))
    outs = []
    for k in range(2):
        out = tmp_path / f"n{k}.json"
        assert near_ties.main([str(src), "--iterations", "60", "--seeds", "2", "--out", str(out)]) == 0
        outs.append(json.loads(out.read_text()))
    a, b = outs
    a.pop("cpu_seconds"), b.pop("cpu_seconds")
    assert a == b
    assert a["disagreements"] == len(differ) and a["positions"] == 5 and a["agree"] == 5 - len(differ)
    for row, src_row in zip(a["rows"], differ):
        assert row["position"] == src_row["position"]
        named = {r["top"] for r in src_row["runs"]}
        assert {o["option"] for o in row["options"]} == named
        assert sum(o["named_by"] for o in row["options"]) == 3
        means = [o["mean"] for o in row["options"]]
        assert means == sorted(means, reverse=True) and all(len(o["values"]) == 2 for o in row["options"])
        assert row["gap"] == pytest.approx(means[0] - means[1], abs=2e-4)
        assert row["near_tie"] == (row["gap"] < row["spread"]) and (row["practical_tie"] or not row["near_tie"])
    assert "disagreements are near ties" in capsys.readouterr().out


# The layout of bench/ (issue 28): scripts and RESULTS.md at the top, kept results under bench/results/.
BENCH_TOP_FILES = {"RESULTS.md", "README.md"}
BENCH_TOP_DIRS = {"results", "tools", "__pycache__"}
_BENCH_PATH = re.compile(r"(?<![\w./-])bench/[\w./*{},<>$-]*")
_PLACEHOLDER = re.compile(r"<[^<>/]*>|\$\w+|\b[A-Z][A-Z0-9_]*\b")  # LABEL, <match>, $f: any name part


def _bench_mentions() -> list[tuple[str, str]]:
    """Every ``bench/...`` path named by docs/*.md, README.md, bench/RESULTS.md and the READMEs of
    bench/results/, as (file, path)."""
    files = [ROOT / "README.md", ROOT / "bench" / "RESULTS.md", *sorted((ROOT / "docs").glob("*.md")),
             *sorted((ROOT / "bench" / "results").rglob("README.md"))]
    out = []
    for f in files:
        for m in _BENCH_PATH.finditer(f.read_text(encoding="utf-8")):
            path = m.group(0).rstrip(".,:;")
            if path.count("{") != path.count("}"):  # a brace cut by the pattern's end
                path = path.split("{")[0]
            out.append((str(f.relative_to(ROOT)), path))
    return out


def _expand_braces(path: str) -> list[str]:
    """``a-{2p,4p}.jsonl`` -> ``a-2p.jsonl``, ``a-4p.jsonl`` (nested braces are not used)."""
    m = re.search(r"\{([^{}]*)\}", path)
    if not m:
        return [path]
    return [p for alt in m.group(1).split(",") for p in _expand_braces(path[:m.start()] + alt + path[m.end():])]


def _bench_path_exists(path: str) -> bool:
    """The path exists; a glob (``*``) or a placeholder (``LABEL``, ``<match>``) matches a file."""
    if (ROOT / path).exists():
        return True
    pattern = _PLACEHOLDER.sub("*", path)
    return any(ROOT.glob(pattern.rstrip("/"))) if "*" in pattern else False


def test_bench_top_holds_only_scripts_and_results_md():
    """Kept results (tournament, stability, tuning files, ...) live under bench/results/, not beside the scripts."""
    stray = sorted(p.name for p in (ROOT / "bench").iterdir() if not p.name.startswith(".")
                   and not (p.is_file() and (p.suffix == ".py" or p.name in BENCH_TOP_FILES))
                   and not (p.is_dir() and p.name in BENCH_TOP_DIRS))
    assert stray == [], f"move these to bench/results/ (or bench/tools/ for scripts): {stray}"
    kept = [p for p in (ROOT / "bench" / "results").rglob("*") if p.suffix in (".jsonl", ".json")]
    assert len(kept) > 100 and (ROOT / "bench" / "results" / "strength17").is_dir()
    assert not list((ROOT / "bench" / "results").rglob("*.py")), "scripts belong at the top of bench/"


def test_bench_paths_in_docs_exist():
    """Every ``bench/...`` path the docs, README and bench/RESULTS.md name exists (globs and placeholders
    such as ``bench/results/acceptance-LABEL-MATCH.jsonl`` must match a file)."""
    mentions = _bench_mentions()
    paths = {p for _, p in mentions}
    assert {"bench/RESULTS.md", "bench/results/acceptance-LABEL-MATCH.jsonl", "bench/near_ties.py"} <= paths
    missing = [(f, p) for f, p in mentions if not all(_bench_path_exists(q) for q in _expand_braces(p))]
    assert missing == []


def test_bench_path_checker_sees_a_missing_file():
    assert not _bench_path_exists("bench/results/no-such-file.jsonl")
    assert not _bench_path_exists("bench/strength17/")  # moved to bench/results/strength17/
    assert _bench_path_exists("bench/results/tune-2p-rollout-money.*")
    assert _bench_path_exists("bench/results/stability-LABEL.json") and _bench_path_exists("bench/*.py")
    assert _bench_path_exists("bench/results/strength17/$f.jsonl")
    assert _expand_braces("bench/a-{2p,4p}.jsonl") == ["bench/a-2p.jsonl", "bench/a-4p.jsonl"]


# ---------------------------------------------------------------------------
# bench/paired_matches.py: screens on the same decks, paired deal by deal (issue 32)
# ---------------------------------------------------------------------------


def _results(path: Path, bots: list[str], seed: int, games: int) -> Path:
    run_tournament(TournamentSpec(bots=bots, players=len(bots), games=games, seed=seed), path)
    return path


def test_paired_matches_pairs_games_dealt_from_the_same_decks(tmp_path, capsys, monkeypatch):
    pm = _load("paired_matches")
    base = _results(tmp_path / "base.jsonl", ["ismcts:iterations=30", "random"], 7, 8)
    same = _results(tmp_path / "same.jsonl", ["ismcts:iterations=30", "random"], 7, 8)
    other = _results(tmp_path / "other.jsonl", ["random", "ismcts:iterations=30"], 7, 8)
    _, b = pm.search_results(base)
    _, s = pm.search_results(same)
    # the same bots and seed: the same games, so every difference is exactly zero
    c = pm.compare(b, s)
    assert c["games"] == 8 and c["deal_sets"] == 4
    assert c["diff"] == (0.0, 0.0) and c["money"] == (0.0, 0.0) and c["score"] == c["base"]
    # the first bot is the one followed: random instead of the search, on the same decks
    spec, o = pm.search_results(other)
    assert spec == "random"
    c = pm.compare(b, o)
    wins = [r[0] for r in b.values()]
    assert c["base"][0] == pytest.approx(sum(wins) / len(wins))
    assert c["diff"][0] == pytest.approx(c["score"][0] - c["base"][0])
    # another seed deals other decks: refused in one line
    moved = _results(tmp_path / "moved.jsonl", ["ismcts:iterations=30", "random"], 8, 8)
    monkeypatch.setattr(sys, "argv", ["paired_matches.py", str(base), str(moved)])
    assert pm.main() == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "dealt from another deck" in err


def test_paired_matches_pools_deal_sets_of_several_deck_sets(tmp_path, capsys):
    pm = _load("paired_matches")
    bots, weak = ["ismcts:iterations=30", "random"], ["random", "random"]
    pairs = [(_results(tmp_path / f"b{seed}.jsonl", bots, seed, 6), _results(tmp_path / f"c{seed}.jsonl", weak, seed, 6))
             for seed in (7, 8)]
    loaded = [(pm.search_results(b)[1], pm.search_results(c)[1]) for b, c in pairs]
    pooled = pm.compare_pooled(loaded)
    # every deal set of both deck sets, each counted once: the means are over the six deal sets together
    assert pooled["games"] == 12 and pooled["deal_sets"] == 6
    diffs = [c[k][0] - b[k][0] for b, c in loaded for k in sorted(b)]
    assert pooled["diff"][0] == pytest.approx(sum(diffs) / 6)
    one = pm.compare(*loaded[0])
    assert one["deal_sets"] == 3 and pooled["diff"] != one["diff"]
    assert pm.main(["--pool", *(f"{b},{c}" for b, c in pairs)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("random: 12 games (6 deal sets): ") and out.rstrip().endswith("2 deck sets pooled")
    # the same decks twice would count a deal set twice: refused in one line
    assert pm.main(["--pool", f"{pairs[0][0]},{pairs[0][1]}", f"{pairs[0][0]},{pairs[0][1]}"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the same --seed twice" in err
    # a pair on two deck sets, or a missing file: one line, exit 2
    assert pm.main(["--pool", f"{pairs[0][0]},{pairs[1][1]}"]) == 2
    assert "dealt from another deck" in capsys.readouterr().err
    assert pm.main(["--pool", f"{tmp_path / 'none.jsonl'},{pairs[0][1]}"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "none.jsonl: no such file" in err
    with pytest.raises(SystemExit) as exc:
        pm.main(["--pool", str(pairs[0][0])])
    assert exc.value.code == 2 and "expected BASE.jsonl,CANDIDATE.jsonl" in capsys.readouterr().err


# ---------------------------------------------------------------------------
# bench/search_cost.py: CPU per search of several specs on the same positions (issue 32)
# ---------------------------------------------------------------------------


def test_search_cost_times_every_spec_on_the_same_positions(tmp_path, capsys):
    sc = _load("search_cost")
    games = _results(tmp_path / "g.jsonl", ["heuristic", "heuristic", "heuristic"], 5, 2)
    states = sc.positions(games, 2, 20)
    _, played, _ = load_results(games)
    want = sum(len(range(10, count_decisions(played[k]["record"]), 20)) for k in (0, 1))
    assert len(states) == want > 0 and all(not st.is_terminal() for st in states)
    specs = ["ismcts:iterations=40,rollout=tempo,cutoff=0", "ismcts:iterations=40"]
    seconds = sc.measure(states, specs, 2)
    assert list(seconds) == specs and all(len(v) == 2 and min(v) > 0 for v in seconds.values())
    assert sc.main([str(games), *specs, "--games", "1", "--every", "30", "--rounds", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith("CPU seconds per round, time.process_time()")
    assert out[1].startswith(specs[0] + ": ") and out[1].endswith("1.00x the first") and out[2].startswith(specs[1])
    # a limit in seconds, a bad spec or a missing file: one line, exit 2
    for args, said in (([str(games), "ismcts:seconds=1"], "expected a spec with iterations="),
                       ([str(games), "ismcts:frobnicate=1"], "frobnicate"),
                       ([str(tmp_path / "none.jsonl"), "ismcts:iterations=5"], "none.jsonl: no such file")):
        with pytest.raises(SystemExit) as exc:
            sc.main(args)
        last = capsys.readouterr().err.strip().splitlines()[-1]  # after argparse's usage lines
        assert exc.value.code == 2 and "error: " in last and said in last


# ---------------------------------------------------------------------------
# bench/blend_eval.py: a blend of two evaluations' weights (issue 32, tenth round)
# ---------------------------------------------------------------------------


def test_blend_eval_writes_the_weighted_mean_of_two_evaluations(tmp_path, capsys):
    from kwsearch import features
    be = _load("blend_eval")
    out = tmp_path / "blend.json"
    assert be.main(["--a", "searched", "--a-share", "0.25", "--b", "smart", "--players", "3", "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    a = json.loads(features.shipped_path(3, "searched").read_text())
    b = json.loads(features.shipped_path(3, "smart").read_text())
    assert doc["weights"] == pytest.approx([0.25 * x + 0.75 * y for x, y in zip(a["weights"], b["weights"])])
    assert [s["source"] for s in doc["training"]["blend"]] == ["searched", "smart"]
    assert doc["training"]["command"].endswith(f"--players 3 --out {out}")
    # a product of experts: the blend's shares are the normalised geometric mean of the two models' shares
    rows = doc["test"]["features"]
    pa, pb = features.shares(rows, a["weights"]), features.shares(rows, b["weights"])
    geo = [x ** 0.25 * y ** 0.75 for x, y in zip(pa, pb)]
    assert doc["test"]["prediction"] == pytest.approx([g / sum(geo) for g in geo])
    loaded = features.load_evaluation(str(out), 3)
    assert loaded.nplayers == 3 and loaded.predict(rows) == pytest.approx(doc["test"]["prediction"])
    # a blend of an evaluation with itself is that evaluation, at any share
    same = tmp_path / "same.json"
    assert be.main(["--a", "smart", "--a-share", "0.7", "--b", "smart", "--players", "3", "--out", str(same)]) == 0
    assert json.loads(same.read_text())["weights"] == pytest.approx(b["weights"])
    # the file is never overwritten; a share outside [0, 1], another player count or a missing file: one line, exit 2
    before = out.read_bytes()
    for args, said in ((["--a", "searched", "--b", "smart", "--players", "3", "--out", str(out)], "is not overwritten"),
                       (["--a", "searched", "--a-share", "1.5", "--b", "smart", "--players", "3",
                         "--out", str(tmp_path / "x.json")], "expected a number from 0 to 1"),
                       (["--a", str(out), "--b", "smart", "--players", "4", "--out", str(tmp_path / "y.json")], "players"),
                       (["--a", str(tmp_path / "none.json"), "--b", "smart", "--players", "3",
                         "--out", str(tmp_path / "z.json")], "none.json: no such file")):
        capsys.readouterr()
        with pytest.raises(SystemExit) as exc:
            be.main(args)
        last = capsys.readouterr().err.strip().splitlines()[-1]
        assert exc.value.code == 2 and "error: " in last and said in last
    assert out.read_bytes() == before and not list(tmp_path.glob("[xyz].json"))


def test_blend_eval_refuses_an_evaluation_with_a_hidden_layer(tmp_path, capsys):
    """A blend of weights is a blend of scores only for linear models: ``mlp`` (a hidden layer) is refused in
    one line, and nothing is written."""
    be = _load("blend_eval")
    for args in (["--a", "mlp", "--b", "searched"], ["--a", "searched", "--b", "mlp"], ["--a", "mlp", "--scale",
                                                                                        "research=0"]):
        capsys.readouterr()
        with pytest.raises(SystemExit) as exc:
            be.main(args + ["--players", "4", "--out", str(tmp_path / "m.json")])
        last = capsys.readouterr().err.strip().splitlines()[-1]
        assert exc.value.code == 2 and "mlp: an evaluation with a hidden layer (16 units) cannot be blended" in last
    assert not (tmp_path / "m.json").exists()


def test_blend_eval_scales_the_weights_of_the_features_named(tmp_path, capsys):
    from kwsearch import features
    be = _load("blend_eval")
    out = tmp_path / "devcost.json"
    assert be.main(["--a", "searched", "--players", "4", "--scale", "research=-0.5",
                    "--scale", "research*progress=0", "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    src = json.loads(features.shipped_path(4, "searched").read_text())["weights"]
    i, j = features.FEATURES.index("research"), features.FEATURES.index("research*progress")
    want = [(-0.5 * w if k == i else 0.0 if k == j else w) for k, w in enumerate(src)]
    assert doc["weights"] == pytest.approx(want) and doc["weights"][i] == pytest.approx(-0.5 * src[i])
    assert doc["training"]["policy"] == "scaled" and doc["training"]["source"] == "searched"
    assert doc["training"]["scale"] == {"research": -0.5, "research*progress": 0.0}
    # it loads as a search loads it: the stored test prediction is the scaled weights' own
    loaded = features.load_evaluation(str(out), 4)
    assert loaded.predict(doc["test"]["features"]) == pytest.approx(doc["test"]["prediction"])
    assert doc["test"]["prediction"] != pytest.approx(features.shares(doc["test"]["features"], src))
    # a blend scaled: the blend first, then the factor
    both = tmp_path / "both.json"
    assert be.main(["--a", "searched", "--b", "smart", "--players", "4", "--scale", "money=2", "--out", str(both)]) == 0
    smart = json.loads(features.shipped_path(4, "smart").read_text())["weights"]
    m = features.FEATURES.index("money")
    assert json.loads(both.read_text())["weights"][m] == pytest.approx(src[m] + smart[m])
    # an unknown feature, a factor that is no number, a share without --b, nothing to do: one line, exit 2
    for args, said in ((["--scale", "resarch=1"], "'resarch' is not a feature"),
                       (["--scale", "research=x"], "expected FEATURE=FACTOR"),
                       (["--scale", "research=nan"], "expected FEATURE=FACTOR"),
                       (["--a-share", "0.5", "--scale", "research=1"], "needs --b"),
                       (["--scale", "research=1", "--scale", "research=2"], "research given twice"),
                       ([], "expected a second evaluation to blend with, or features to scale")):
        capsys.readouterr()
        with pytest.raises(SystemExit) as exc:
            be.main(["--a", "searched", "--players", "4", *args, "--out", str(tmp_path / "x.json")])
        last = capsys.readouterr().err.strip().splitlines()[-1]
        assert exc.value.code == 2 and "error: " in last and said in last, last
    assert not (tmp_path / "x.json").exists()
