"""The ``kwsearch`` command line: thin click commands over the library.

Every user error becomes one line on stderr naming the file, the field or event
and the problem, and a non-zero exit code — never a traceback.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click

from . import __version__
from .components import load_components
from .errors import InvalidPositionError, InvalidRecordError, KwsearchError


class _Group(click.Group):
    """Turns library errors into one-line click errors."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except KwsearchError as exc:
            raise click.ClickException(str(exc)) from None
        except NotImplementedError as exc:
            raise click.ClickException(str(exc)) from None


@click.group(cls=_Group)
@click.version_option(__version__, prog_name="kwsearch")
def main() -> None:
    """kwsearch — rules engine and search AI for the board game Kraftwagen."""


def _components_option(f):
    return click.option("--components", "components_file", type=click.Path(dir_okay=False),
                        help="A component override file (JSON or TOML, docs/components.md).")(f)


@main.command()
@click.option("--players", "-n", type=click.IntRange(2, 4), default=4, show_default=True,
              help="Number of players.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the random set-up.")
@click.option("--output", "-o", type=click.Path(dir_okay=False), required=True,
              help="Where to write the game record (must not exist unless --force).")
@click.option("--force", is_flag=True, help="Overwrite an existing output file.")
@click.option("--v6", is_flag=True, help="Play with the V6 specialty tiles (RULES.md §11).")
@_components_option
def new(players: int, seed: int, output: str, force: bool, v6: bool, components_file: str | None) -> None:
    """Write a fresh game record (set-up drawn from --seed).

    The record says whether the game uses the V6 specialty tiles; ``show`` and
    ``suggest`` read that from the file.
    """
    from .records import new_record
    from .rules import Game

    comps = load_components(components_file) if components_file else None
    try:
        game = Game(players, comps, v6=v6)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    record = new_record(game, seed=seed)
    out = Path(output)
    if out.exists() and not force:
        raise click.ClickException(f"{out}: already exists; choose another file or pass --force")
    _write_json(out, record)
    click.echo(f"wrote {out}: a new {players}-player{' V6' if v6 else ''} game (seed {seed})")


def _write_json(path: Path, obj) -> None:
    """Write atomically: a temporary file renamed over the target."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(json.dumps(obj, indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        raise click.ClickException(f"{path}: cannot write ({exc.strerror})") from None


@main.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--ply", type=click.IntRange(min=0), default=None,
              help="Show the position after this many decisions of a game record (default: the end).")
@click.option("--json", "as_json", is_flag=True, help="Print the position object instead of the board.")
def show(file: str, ply: int | None, as_json: bool) -> None:
    """Show the board of a game record or a position file."""
    from .records import load_file
    from .render import render

    state, obj = load_file(file, ply=ply)
    if as_json:
        click.echo(json.dumps(state.observation(), indent=1))
        return
    names = None
    setup = obj.get("setup") if isinstance(obj, dict) else None
    if isinstance(setup, dict) and isinstance(setup.get("seats"), list):
        names = [str(s) for s in setup["seats"]]
    click.echo(render(state, names))


@main.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--components", "is_components", is_flag=True,
              help="FILE is a component override file (JSON or TOML).")
def validate(file: str, is_components: bool) -> None:
    """Check a position, a game record or (--components) a component file; list every problem."""
    from .formats import POSITION_FORMAT, check_position, read_json
    from .records import RECORD_FORMAT, replay

    if is_components:
        load_components(file)
        click.echo(f"{file}: valid component file")
        return
    obj = read_json(file)
    fmt = obj.get("format") if isinstance(obj, dict) else None
    if fmt == POSITION_FORMAT:
        problems = check_position(obj)
        if problems:
            for path, msg in problems:
                click.echo(f"{file}: {path}: {msg}", err=True)
            raise SystemExit(1)
        click.echo(f"{file}: valid position")
        return
    if fmt == RECORD_FORMAT:
        try:
            state = replay(obj)
        except InvalidRecordError as exc:
            click.echo(f"{file}: {exc}", err=True)
            raise SystemExit(1)
        events = len(obj.get("events", []))
        status = "finished, money " + " ".join(map(str, state.money())) if state.is_terminal() \
            else f"seat {state.current_player()} to decide"
        click.echo(f"{file}: valid game record ({events} events; {status})")
        return
    raise click.ClickException(f"{file}: format: expected 'kwsearch-position/1' or 'kwsearch-game/1', "
                               f"got {json.dumps(fmt)} (use --components for a component file)")


@main.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--ply", type=click.IntRange(min=0), default=None,
              help="Analyse the position after this many decisions of a game record (default: the end).")
@click.option("--iterations", "-i", type=click.IntRange(min=1), default=None,
              help="Search iterations (default 20000 when --seconds is not given).")
@click.option("--seconds", "-s", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Search time in seconds.")
@click.option("--workers", "-w", type=click.IntRange(min=1), default=1, show_default=True,
              help="Root-parallel search processes.")
@click.option("--top", type=click.IntRange(min=1), default=5, show_default=True, help="Candidates to show.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the search.")
@click.option("--loop", type=click.Choice(["open", "closed"]), default="open", show_default=True,
              help="Open-loop or closed-loop ISMCTS.")
@click.option("--json", "as_json", is_flag=True, help="Print a kwsearch-analysis/1 object (docs/formats.md).")
def suggest(file: str, ply: int | None, iterations: int | None, seconds: float | None, workers: int, top: int,
            seed: int, loop: str, as_json: bool) -> None:
    """Suggest a move: search the position of a game record or a position file.

    Prints the seat to move and the best options as whole-turn plans, with
    visits, share, win probability, expected money and availability. Ctrl-C
    stops the search early and prints what it has.
    """
    from .analysis import analyse, analysis_json, plan_text
    from .records import load_file
    from .render import _DECISION
    from .search import SearchConfig, SearchLimits

    state, obj = load_file(file, ply=ply)
    if state.is_terminal():
        raise click.ClickException(f"{file}: the game is over (money {' '.join(map(str, state.money()))}); "
                                   "there is no move to suggest")
    limits = SearchLimits(iterations=iterations if iterations or seconds else 20_000, seconds=seconds)
    config = SearchConfig(workers=workers, closed_loop=(loop == "closed"))
    live = sys.stderr.isatty() and not as_json

    def progress(done: int, rate: float, best: str) -> None:
        click.echo(f"\r  {done:,} iterations, {rate:,.0f}/s, best so far: {best:<40s}", nl=False, err=True)

    an = analyse(state, limits, config, seed=seed, top=top, progress=progress if live else None)
    if live:
        click.echo("\r" + " " * 100 + "\r", nl=False, err=True)
    if as_json:
        click.echo(json.dumps(analysis_json(an, source=file, ply=ply), indent=1))
        return
    r = an.result
    seat = r.mover
    names = None
    setup = obj.get("setup") if isinstance(obj, dict) else None
    if isinstance(setup, dict) and isinstance(setup.get("seats"), list) and len(setup["seats"]) > seat:
        names = setup["seats"]
    who = f"seat {seat}" + (f" ({names[seat]})" if names else "")
    kind = state.pending()
    click.echo(f"{file}: round {state.round}, {state.phase} phase — {who} to decide: {_DECISION.get(kind, kind)}")
    note = " (stopped early)" if an.interrupted else ""
    click.echo(f"ISMCTS: {r.iterations:,} iterations in {r.elapsed:.1f} s ({r.iterations_per_second:,.0f}/s), "
               f"seed {seed}, {workers} worker{'s' if workers > 1 else ''}, {loop} loop{note}")
    click.echo("")
    rows = []
    for c in an.candidates:
        plan = plan_text(state, c.plan)
        rows.append((str(c.order + 1), plan, f"{c.visits:,}", f"{100 * c.share:.1f}%", f"{100 * c.win_prob:.1f}%",
                     f"{c.money:.1f} ± {c.money_sd:.1f}", f"{100 * c.avail:.0f}%"))
    head = ("#", "plan for this turn", "visits", "share", "win", "money ± sd", "avail")
    widths = [max(len(x[i]) for x in rows + [head]) for i in range(len(head))]
    fmt = "  ".join(f"{{:{'<' if i == 1 else '>'}{w}}}" for i, w in enumerate(widths))
    click.echo(fmt.format(*head))
    for row in rows:
        click.echo(fmt.format(*row))
    click.echo("")
    click.echo("PV: " + ", ".join(r.pv))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
