"""Shared helpers for the rule tests: small hand-written positions.

A rule test builds a minimal ``kwsearch-position/1`` object with
:func:`make_position`, optionally fixes the order of the research deck with
:func:`with_deck`, loads it with :func:`load` and plays moves in text notation::

    pos = make_position(seats={0: {"canteen": 0}}, research={"display": ["Otto", "dev:body1"]})
    st = load(with_deck(pos, ["hire3", "gp5"]))      # hire3 is drawn first
    play(st, tile("research"), "take research:Otto")

Only fields a position may not omit are filled in; everything else (the
undrawn cards, the tile supply, workers in the supply, awards, the pending
decision) is derived by :func:`kwsearch.formats.position_to_state`.
"""

from __future__ import annotations

import copy
from pathlib import Path
from collections import Counter
from typing import Any, Iterable, Mapping

from kwsearch.components import Components, components_from_dict, default_components
from kwsearch.engine import state_from_json
from kwsearch.rules import State

#: Start tiles given to seats 0, 1, 2, 3 by default.
START_TILES = ("A", "B", "C", "D")


def components_of(pos: Mapping[str, Any]) -> Components:
    """The component data a position plays with (its override, or the defaults)."""
    raw = pos.get("components")
    return default_components() if raw is None else components_from_dict(raw)


def tile(*actions: str) -> str:
    """The move text taking the action tile with exactly these actions (default components).

    >>> tile("gp", "buyer")
    'tile 5'
    """
    for t in default_components().action_tiles:
        if sorted(t.actions) == sorted(actions):
            return f"tile {t.index}"
    raise KeyError(f"no action tile with the actions {actions}")


def default_seat(index: int, players: int) -> dict[str, Any]:
    """A seat after set-up with nothing yet: 4 canteen workers, empty mat, pit lane."""
    return {
        "money": 0,
        "canteen": 4,
        "workshops": [],
        "gp_engine": 1,
        "laps": 0,
        "space": 0,
        "start_tile": START_TILES[index],
        "developments": [],
        "inactive": [],
        "engineers": [],
    }


def make_position(players: int = 4, **overrides: Any) -> dict[str, Any]:
    """A minimal valid position at the start of seat 0's turn in round 1.

    Defaults: the chain ``[seat 0, ..., seat n-1, tile 0, ..., tile 9]`` (tail
    first), display ``dev:body1`` and ``dev:engine1``, no active buyers, this
    round's white markers, the buyer track at its start, an empty market, every
    seat with 4 canteen workers, empty workshops, GP engine 1 in the pit lane and
    start tile A, B, C, D by seat (with 2 players A and B are the offered ones).

    ``overrides`` replace top-level fields, except:

    * ``seats``: a mapping ``{seat: {field: value}}`` or a list of such mappings,
      merged into the default seats;
    * ``research`` and ``buyers``: mappings merged into the defaults.
    """
    c = default_components()
    pos: dict[str, Any] = {
        "format": "kwsearch-position/1",
        "players": players,
        "round": 1,
        "phase": "action",
        "chain": [f"seat {s}" for s in range(players)] + [f"tile {t.index}" for t in c.action_tiles],
        "research": {"display": ["dev:body1", "dev:engine1"], "discard": []},
        "buyers": {
            "active": [],
            "white": {"body": 2, "engine": 1, "prestige": 1, "price": 1},
            "track": c.buyer_track_start[players],
        },
        "market": [],
        "start_tiles_offered": list(START_TILES[:c.start_tiles_offered[players]]),
        "seats": [default_seat(i, players) for i in range(players)],
    }
    for key, value in overrides.items():
        if key == "seats":
            items = value.items() if isinstance(value, Mapping) else enumerate(value)
            for i, fields in items:
                pos["seats"][i].update(copy.deepcopy(fields))
        elif key in ("research", "buyers"):
            pos[key].update(copy.deepcopy(value))
        else:
            pos[key] = copy.deepcopy(value)
    return pos


def undrawn_cards(pos: Mapping[str, Any]) -> Counter:
    """The multiset of research-card names not owned, face up or discarded in ``pos``."""
    c = components_of(pos)
    seen: Counter = Counter()
    for s in pos["seats"]:
        for key in ("developments", "inactive", "engineers"):
            seen.update(s.get(key, []))
    research = pos.get("research", {})
    seen.update(research.get("display", []))
    seen.update(research.get("discard", []))
    left = Counter({ct.name: ct.count for ct in c.card_types})
    left.subtract(seen)
    bad = {k: v for k, v in left.items() if v < 0}
    if bad:
        raise ValueError(f"more cards in play than the game has: {bad}")
    return +left


def with_deck(pos: Mapping[str, Any], top_cards: Iterable[str] = (), rng: str = "0") -> dict[str, Any]:
    """A copy of ``pos`` whose research deck has ``top_cards`` on top, in draw order.

    ``top_cards[0]`` is the next card drawn. The remaining undrawn cards lie
    below them (sorted by name). ``rng`` is the hexadecimal generator state used
    when the discard pile is reshuffled.
    """
    out = copy.deepcopy(dict(pos))
    rest = undrawn_cards(out)
    top = list(top_cards)
    for name in top:
        if rest[name] <= 0:
            raise ValueError(f"{name} is not among the undrawn cards")
        rest[name] -= 1
    deck = sorted(rest.elements()) + top[::-1]  # the top card is last
    out.setdefault("research", {}).pop("undrawn", None)
    out["hidden"] = {"deck": deck, "rng": rng}
    return out


def load(pos: Mapping[str, Any], seed: int = 0) -> State:
    """Load a position (a deep copy: the dict stays usable)."""
    return state_from_json(copy.deepcopy(dict(pos)), seed=seed)


def options(st: State) -> list[str]:
    """The legal moves of the pending decision, in text notation."""
    return [st.action_to_text(a) for a in st.legal_actions()]


def after_random_decisions(players: int, seed: int, steps: int) -> State:
    """The reference state of the game of ``seed`` after ``steps`` uniformly random decisions drawn
    from ``random.Random(seed)`` (fewer if the game ends)."""
    import random
    from kwsearch.rules import Game
    rng = random.Random(seed)
    st = Game(players).new_initial_state(seed)
    for _ in range(steps):
        if st.is_terminal():
            break
        st.apply(rng.choice(st.legal_actions()))
    return st


#: A planted teaching mistake, checked by tests/test_teach.py and played in the terminal
#: (tests/test_cli_teach.py) and on the web board (tests/test_web_teach.py, test_web_e2e_teach.py):
#: four players, seed 2, the human at seat 3 chooses the first start tile; ``start B`` loses about 12
#: points of win % to ``start D`` at the review's defaults, and a bot moves next, while after
#: ``start D`` seat 3 moves again (it orders the tile's actions). Three players, seed 0, served until
#: issue 32 changed their default search, under which no first start tile is a mistake.
TEACH_SEATS, TEACH_PLAYERS, TEACH_SEED, TEACH_SEAT = "heuristic,heuristic,heuristic,human", 4, 2, 3
TEACH_BAD, TEACH_BEST = "start B", "start D"


def play(st: State, *moves: str) -> State:
    """Play ``moves`` (text notation, each checked) and return the state."""
    for m in moves:
        st.play(m)
    return st


def chain(st: State) -> list[str]:
    """The chain, tail first, as ``"seat S"`` / ``"tile T"`` names."""
    return st.observation()["chain"]


def card_index(name: str, components: Components | None = None) -> int:
    """The card-type id of a research card name."""
    return (components or default_components()).card_type(name).index


def minimal_seat(i: int, **fields: Any) -> dict[str, Any]:
    """A seat of :func:`minimal_position`: no money, 4 canteen workers, start tile A/B/C/D by seat."""
    seat = {"money": 0, "canteen": 4, "workshops": [], "start_tile": "ABCD"[i]}
    seat.update(fields)
    return seat


def minimal_position(players: int = 3, phase: str = "action", seats: Mapping[int, Mapping] | None = None,
                     round_: int = 1, **extra: Any) -> dict[str, Any]:
    """A minimal position: seat 0 at the tail of the chain (to move), then seats 1, 2, ..., the ten
    tiles in id order, an empty market and no active buyers. ``seats`` maps a seat to the fields
    that differ from :func:`minimal_seat`; other keyword arguments replace top-level fields.

    A "scoring" position names seat 0 in "turn", as after the turn that triggered the scoring.
    """
    seats = seats or {}
    pos: dict[str, Any] = {
        "format": "kwsearch-position/1",
        "players": players,
        "round": round_,
        "phase": phase,
        "chain": [f"seat {i}" for i in range(players)] + [f"tile {t}" for t in range(10)],
        "research": {"display": ["dev:body1", "dev:engine1"]},
        "seats": [minimal_seat(i, **seats.get(i, {})) for i in range(players)],
    }
    if phase == "scoring":
        pos["turn"] = {"seat": 0}
    pos.update(extra)
    return pos


def subprocess_env() -> dict:
    """Environment for a child Python that must import the kwsearch under test (an installed
    package in CI, the source checkout with its in-place build when developing)."""
    import os
    import kwsearch
    env = dict(os.environ)
    here = str(Path(kwsearch.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = here + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def cli_runner():
    """A click test runner that keeps stderr apart from stdout (whichever click is installed)."""
    from click.testing import CliRunner
    try:
        return CliRunner(mix_stderr=False)  # click < 8.2
    except TypeError:
        return CliRunner()  # click >= 8.2 keeps stderr apart


def run_cli(*args, input=None):
    """``kwsearch ARGS`` in process (exceptions propagate, so a traceback fails the test)."""
    from kwsearch.cli import main
    return cli_runner().invoke(main, [str(a) for a in args], input=input, catch_exceptions=False)


def assert_one_line_error(result, *fragments: str) -> str:
    """A failed command: exit code != 0, one line on stderr holding the fragments, no traceback."""
    assert result.exit_code != 0, result.output
    err = result.stderr.strip()
    assert len(err.splitlines()) == 1, err
    assert "Traceback" not in result.output and "Traceback" not in err
    for f in fragments:
        assert f in err, (f, err)
    return err


class HireOnlyBot:
    """A scripted bot that builds the stall the rules allow (RULES.md §6): it takes the hire-only
    tile (``tile 0``) whenever it may and otherwise passes, so no car reaches the market and the
    buyer track never runs out — the action phase never ends. For the match decision cap's tests."""

    def restart(self) -> None:
        pass

    def step(self, state) -> int:
        legal = state.legal_actions()
        texts = [state.action_to_text(a) for a in legal]
        for wanted in ("tile 0", "pass"):
            for a, t in zip(legal, texts):
                if t == wanted or (wanted == "pass" and "pass" in t):
                    return a
        return legal[0]


# ---------------------------------------------------------------------------
# Learned weights files (the evaluation's and the move prior's share one frame)
# ---------------------------------------------------------------------------


def bad_weights_message(tmp_path: Path, doc: dict, mutate, load, error: type[Exception]) -> str:
    """The message of the ``error`` that ``load(path, 2)`` raises for the weights file ``doc`` after
    ``mutate(doc)``: one line naming the file."""
    import json

    import pytest

    mutate(doc)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(error) as info:
        load(path, 2)
    msg = str(info.value)
    assert str(path) in msg and "\n" not in msg
    return msg


def assert_unreadable_weights(tmp_path: Path, load, error: type[Exception]) -> None:
    """A missing file and a file that is not JSON are ``error``s of ``load``, naming the problem
    and the file."""
    import pytest

    with pytest.raises(error, match="no such file"):
        load(tmp_path / "nothing.json", 2)
    (tmp_path / "text.json").write_text("{not json")
    with pytest.raises(error, match="text.json"):
        load(tmp_path / "text.json", 2)


def assert_frame_errors(bad) -> None:
    """The frame's checks (kwsearch.weights.check_frame) name the field: ``bad(mutate)`` is the
    message for the shipped 2-player file after ``mutate``."""
    assert "weights: missing" in bad(lambda o: o.pop("weights"))
    assert "features[3]" in bad(lambda o: o["features"].__setitem__(3, "speed"))
    assert "features[" in bad(lambda o: o["features"].pop())
    assert "weights: expected a list of" in bad(lambda o: o["weights"].pop())
    assert "weights[2]" in bad(lambda o: o["weights"].__setitem__(2, "x"))
    assert "weights[2]" in bad(lambda o: o["weights"].__setitem__(2, 1e300))
    assert "players" in bad(lambda o: o.update(players=3))
    # issue 27: unknown keys are refused (naming the key and the keys expected), the test's ranges checked
    msg = bad(lambda o: o.update(weigths=[]))
    assert ": weigths: unknown key (" in msg and "has format, version, players, features, weights, training " \
        "and test" in msg
    assert '["we\\nights"]: unknown key' in bad(lambda o: o.update({"we\nights": 1}))  # one line, quoted
    assert "test.note: unknown key (test has features and prediction)" in bad(lambda o: o["test"].update(note=1))
    assert "test.prediction: missing (test has features and prediction)" in bad(lambda o: o["test"].pop("prediction"))
    assert "test: expected an object with features and prediction" in bad(lambda o: o.update(test=[1]))
    assert "test.prediction[0]: expected a number from 0 to 1, got 1.5" in \
        bad(lambda o: o["test"]["prediction"].__setitem__(0, 1.5))
    assert "test.prediction[0]: expected a number from 0 to 1, got -0.25" in \
        bad(lambda o: o["test"]["prediction"].__setitem__(0, -0.25))
    assert "test.prediction: expected numbers that sum to 1" in \
        bad(lambda o: o["test"]["prediction"].__setitem__(0, o["test"]["prediction"][0] + 0.01))
    assert "test.features[1][0]: expected at most 1e+06 in size, got -2000000.0" in \
        bad(lambda o: o["test"]["features"][1].__setitem__(0, -2e6))
    assert "test.features: expected a list of" in bad(lambda o: o["test"].update(features=[]))


# ---------------------------------------------------------------- kwsearch-analysis/1

#: docs/formats.md, "Analysis output": rootInfo field -> type (``kwsearch suggest --json``, the web
#: board's analysis stream). ``confidence`` is there once the options were re-searched.
ANALYSIS_ROOT_INFO = {"currentPlayer": int, "visits": int, "winrate": float, "money": float, "moneyAll": list,
                      "iterations": int, "iterationsPerSecond": float, "elapsed": float, "seed": int,
                      "limits": dict, "nodes": int, "poolFull": bool, "config": dict, "confidence": dict,
                      "places": (dict, type(None))}
#: moveInfos[] field -> type; ``rank``, ``equal`` and ``estimate`` (issue 29, docs/confidence.md) once verified.
ANALYSIS_MOVE_INFO = {"move": str, "action": int, "order": int, "visits": int, "share": float,
                      "availability": float, "winrate": float, "money": float, "moneyStdev": float,
                      "moneyAll": list, "plan": list, "pv": list, "rank": int, "equal": bool, "estimate": dict,
                      "cards": (dict, type(None)), "places": (dict, type(None))}
#: The fields of the re-searches: a progress update (not verified yet) lacks exactly these.
ANALYSIS_VERIFIED_ROOT = {"confidence"}
ANALYSIS_VERIFIED_MOVE = {"rank", "equal", "estimate"}


def check_analysis_fields(obj: Mapping[str, Any], players: int, verified: bool = True) -> None:
    """``obj`` is a ``kwsearch-analysis/1`` object with exactly the documented fields and types;
    without ``verified`` (a progress update), without the re-searches' fields."""
    assert obj["format"] == "kwsearch-analysis/1"
    assert set(obj) == {"format", "id", "ply", "interrupted", "kwsearch", "rootInfo", "moveInfos"}
    root = {k: t for k, t in ANALYSIS_ROOT_INFO.items() if verified or k not in ANALYSIS_VERIFIED_ROOT}
    move = {k: t for k, t in ANALYSIS_MOVE_INFO.items() if verified or k not in ANALYSIS_VERIFIED_MOVE}
    assert set(obj["rootInfo"]) == set(root)
    for k, t in root.items():
        assert isinstance(obj["rootInfo"][k], (int, float) if t is float else t), k
    assert len(obj["rootInfo"]["moneyAll"]) == players
    assert obj["moveInfos"]
    for i, m in enumerate(obj["moveInfos"]):
        assert set(m) == set(move)
        for k, t in move.items():
            assert isinstance(m[k], (int, float) if t is float else t), k
        assert m["order"] == i and m["plan"][0] == m["move"] and len(m["moneyAll"]) == players
        assert 0 <= m["winrate"] <= 1 and 0 < m["availability"] <= 1


def web_test_client():
    """Starlette's TestClient for the analysis board's tests; skips the calling module
    unless the ``web`` extra (starlette, sse_starlette, httpx) is installed.

    Call it at module level, before importing ``kwsearch.web``: ``TestClient = web_test_client()``.
    """
    import warnings

    import pytest

    pytest.importorskip("starlette")
    pytest.importorskip("sse_starlette")
    pytest.importorskip("httpx")
    with warnings.catch_warnings():  # Starlette 1.x asks for httpx2; the TestClient works the same with httpx
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    return TestClient


# -- child processes: a command in its own process group, its workers seen in /proc --------------------


def start_cli(args: list[str], cwd: Path, stdin=None) -> "subprocess.Popen":
    """Start ``python -m kwsearch.cli *args`` in ``cwd`` in its own session (process group), so that
    ``os.killpg(proc.pid, SIGINT)`` is a terminal's Ctrl-C; stdout and stderr are pipes (bytes)."""
    import subprocess
    import sys

    env = subprocess_env()
    env["PYTHONFAULTHANDLER"] = "1"  # SIGABRT prints every thread's stack (ctrl_c does that if it hangs)
    return subprocess.Popen([sys.executable, "-m", "kwsearch.cli", *args], cwd=cwd, env=env,
                            stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)


def proc_children(pid: int) -> set[int]:
    """The child processes of ``pid`` (Linux /proc; empty once it has ended)."""
    out: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            out |= {int(x) for x in (task / "children").read_text().split()}
        except OSError:
            pass
    return out


def proc_cmdline(pid: int) -> str:
    """The command line of ``pid`` (NULs between the words), ``""`` once it has ended."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return ""


def pool_workers(pid: int) -> set[int]:
    """The children of ``pid`` but multiprocessing's resource tracker (which is not a worker)."""
    return {c for c in proc_children(pid) if "resource_tracker" not in proc_cmdline(c)}


def proc_alive(pid: int) -> bool:
    """Whether ``pid`` still runs (Linux /proc); a zombie has ended."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def fill_disk(folder: Path, block: int = 512) -> Path:
    """Fill the file system of ``folder`` (``block`` bytes a write) until a write fails with ENOSPC;
    returns the filler file."""
    import errno
    import os

    filler = folder / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"\0" * block)
    except OSError as exc:
        assert exc.errno == errno.ENOSPC
    finally:
        os.close(fd)
    return filler


def ctrl_c(proc: "subprocess.Popen", timeout: float = 30) -> tuple[str, float]:
    """A terminal's Ctrl-C: SIGINT to the process group of ``proc`` (started by :func:`start_cli`),
    then wait for it to end; returns its stderr (text) and the seconds it took to end."""
    import os
    import signal
    import subprocess
    import time

    t0 = time.time()
    os.killpg(proc.pid, signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.kill(proc.pid, signal.SIGABRT)  # the stacks of its threads, to see where it hangs
        try:
            _, err = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
        raise AssertionError(f"still running {timeout} s after Ctrl-C; its stacks:\n"
                             f"{err.decode(errors='replace')[-4000:]}") from None
    return err.decode(), time.time() - t0
