"""The ``kwsearch`` command line: thin click commands over the library.

Every user error becomes one line on stderr naming the file, the field or event
and the problem, and a non-zero exit code — never a traceback.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from . import __version__
from .components import load_components
from .errors import InvalidRecordError, KwsearchError


class _Group(click.Group):
    """Turns library errors into one-line click errors."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except KwsearchError as exc:  # one line, whatever text of the user's the message quotes
            raise click.ClickException(str(exc).replace("\r", "\\r").replace("\n", "\\n")) from None


@click.group(cls=_Group)
@click.version_option(__version__, prog_name="kwsearch")
def main() -> None:
    """kwsearch — rules engine and search AI for the board game Kraftwagen."""


class FiniteFloat(click.ParamType):
    """A finite float, optionally strictly positive: refuses ``nan``, ``inf`` and ``-inf``
    (``click.FloatRange`` lets ``nan`` through, since every comparison with it is false)."""

    name = "number"

    def __init__(self, positive: bool = True):
        self.positive = positive

    def convert(self, value, param, ctx):
        import math
        if isinstance(value, float) and math.isfinite(value) and (value > 0 or not self.positive):
            return value
        try:
            v = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number", param, ctx)
        if not math.isfinite(v):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        if self.positive and v <= 0:
            self.fail(f"{value!r} is not a positive number", param, ctx)
        return v


#: A seed a game record can hold (records.py checks the same range): what fits 64 bits, signed or not.
SEED = click.IntRange(-(1 << 63), (1 << 64) - 1)


def _components_option(f):
    return click.option("--components", "components_file", type=click.Path(dir_okay=False),
                        help="A component override file (JSON or TOML, docs/components.md).")(f)


@main.command()
@click.option("--players", "-n", type=click.IntRange(2, 4), default=4, show_default=True,
              help="Number of players.")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Seed of the random set-up.")
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
    """Write atomically (kwsearch.fileio); a failure is a one-line error naming the file."""
    from .fileio import write_json_atomic
    try:
        write_json_atomic(path, obj, what="file")
    except KwsearchError as exc:
        raise click.ClickException(str(exc)) from None


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
        problems = check_position(obj, reachable=True)
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
    from .render import _DECISION, table
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
    for line in table(head, rows, left={1}):
        click.echo(line)
    click.echo("")
    click.echo("PV: " + ", ".join(r.pv))



# ---------------------------------------------------------------------------
# play
# ---------------------------------------------------------------------------


def _given(ctx: click.Context, name: str) -> bool:
    """Whether the option ``name`` was given by the user (not its default)."""
    from click.core import ParameterSource
    return ctx.get_parameter_source(name) in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)


@main.command()
@click.option("--seats", default=None, metavar="SEATS",
              help="Comma-separated seats: human or a bot spec, e.g. human,ismcts:seconds=2,heuristic,heuristic.")
@click.option("--mirror", is_flag=True,
              help="Follow a game on a real table: every seat human, the program asks which cards come up.")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Seed of the set-up, the deck and the bots.")
@click.option("--record", "record_file", type=click.Path(dir_okay=False), default=None,
              help="Where the game record is saved after every move (default: kwsearch-game-SEED.json; "
                   "never overwritten — pick a new name or --resume it).")
@click.option("--resume", "resume_file", type=click.Path(dir_okay=False), default=None,
              help="Continue the game in this record (its seats unless --seats is given).")
@click.option("--hint-iterations", type=click.IntRange(1, 1_000_000_000), default=5000, show_default=True,
              help="Search iterations behind '?' hints.")
@click.option("--v6", is_flag=True, help="Play with the V6 specialty tiles.")
def play(seats: str | None, mirror: bool, seed: int, record_file: str | None, resume_file: str | None,
         hint_iterations: int, v6: bool) -> None:
    """Play a game in the terminal (humans and bots), or mirror one on a real table.

    At your turn: a number from the menu or a move in notation; '?' for hints,
    'undo' to take back your last decision, 'help' for the rest.
    """
    from .play import HUMAN, PlayError, Quit, Session, check_mirror, check_resume_settings, load_for_resume, \
        mirror_setup, new_game_record, parse_seats, seats_of_record

    def ask(prompt: str) -> str:
        try:
            return click.prompt(prompt, default="", show_default=False, prompt_suffix="")
        except click.Abort:
            raise EOFError from None

    def say(text: str) -> None:
        click.echo(text)

    try:
        if resume_file:
            path = Path(resume_file)
            record = load_for_resume(path)
            seed_given = _given(click.get_current_context(), "seed")
            check_resume_settings(record, path, v6=True if v6 else None, seed=seed if seed_given else None,
                                  mirror=mirror)
            if not seed_given and isinstance(record.get("seed"), int):
                seed = record["seed"]  # the bots of a resumed game draw from the record's seed
            seat_list = parse_seats(seats, record["players"]) if seats else seats_of_record(record, path)
            mirror = mirror or bool(record.get("mirror"))
            if record_file:
                target = Path(record_file)
                if target.exists() and target.resolve() != path.resolve():
                    raise PlayError(f"{target}: already exists; choose another --record file")
                path = target
        else:
            if mirror and not seats:
                seats = ",".join([HUMAN] * 4)
            seat_list = parse_seats(seats)
            path = Path(record_file or f"kwsearch-game-{seed}.json")
            if path.exists():
                raise PlayError(f"{path}: already exists; continue it with --resume {path}, or choose another "
                                "--record file")
            check_mirror(seat_list, mirror)
            record = new_game_record(len(seat_list), seed, seat_list, v6=v6)
            if mirror:
                record = mirror_setup(record, ask, say)
        session = Session(record, seat_list, path, mirror=mirror, seed=seed, hint_iterations=hint_iterations,
                          ask=ask, say=say)
    except EOFError:
        raise click.ClickException("input ended before the game started") from None
    names = ", ".join(f"seat {s}: {spec}" for s, spec in enumerate(seat_list))
    click.echo(f"{'Mirror mode — ' if mirror else ''}{len(seat_list)} players ({names}); saving to {path}. "
               "Type 'help' at your turn.")
    try:
        session.run()
    except (Quit, KeyboardInterrupt):
        session.save()
        click.echo(f"\nstopped; the game is saved in {path} — continue with: kwsearch play --resume {path}")


# ---------------------------------------------------------------------------
# bench
# ---------------------------------------------------------------------------


@main.command()
@click.option("--quick", is_flag=True, help="A short run (about 30 seconds) with smaller samples.")
@click.option("--repeat", type=click.IntRange(min=1), default=None,
              help="Timed runs per figure, the best kept (default 3; 1 with --quick).")
@click.option("--only", type=click.Choice(["engine", "search"]), default=None, help="Run one part only.")
@click.option("--markdown", "markdown_file", type=click.Path(dir_okay=False), default=None,
              help="Also write the results into this Markdown file (its bench sections are replaced, the rest "
                   "kept), e.g. bench/RESULTS.md.")
def bench(quick: bool, repeat: int | None, only: str | None, markdown_file: str | None) -> None:
    """Measure the engines and the search on this machine and print the figures."""
    from . import benchmarks as b

    reps = repeat or (1 if quick else 3)
    engine = search_res = None
    if only in (None, "engine"):
        click.echo("Engine: fast (Cython) and reference (Python), one core")
        engine = b.engine_bench(quick, reps, echo=click.echo)
        click.echo("")
    if only in (None, "search"):
        click.echo("Search: ISMCTS")
        search_res = b.search_bench(quick, reps, echo=click.echo)
        click.echo("")
    rows = b.summary(engine, search_res)
    width = max(len(k) for k, _ in rows)
    click.echo("Summary" + (" (quick run: small samples)" if quick else ""))
    for k, v in rows:
        click.echo(f"  {k:<{width}}  {v}")
    if markdown_file:
        if engine:
            b.write_results(markdown_file, b.engine_markdown(engine, quick), b.ENGINE_BEGIN, b.ENGINE_END)
        if search_res:
            b.write_results(markdown_file, b.search_markdown(search_res, quick), b.SEARCH_BEGIN, b.SEARCH_END)
        click.echo(f"wrote {markdown_file}")


# ---------------------------------------------------------------------------
# tournament / report
# ---------------------------------------------------------------------------


@main.command()
@click.option("--bots", "-b", "bots", multiple=True, metavar="SPEC",
              help="A bot spec (repeat, or separate with spaces), e.g. -b heuristic -b ismcts:iterations=5000. "
                   "Specs: random, heuristic, ismcts:..., pimc:..., cheat:... (docs in kwsearch.bots).")
@click.option("--players", "-n", type=click.IntRange(2, 4), default=None,
              help="Players per game (default: the number of bots, at most 4).")
@click.option("--games", "-g", type=click.IntRange(min=1), default=None,
              help="Games to play (default: one balanced cycle of line-ups and seat rotations).")
@click.option("--workers", "-w", type=click.IntRange(min=1), default=1, show_default=True,
              help="Games played at once.")
@click.option("--seed", type=int, default=None, help="Seed of the schedule, decks and bots (default 0).")
@click.option("--out", "-o", type=click.Path(dir_okay=False), required=True,
              help="Results file (JSON Lines; one line per game, appended as games end).")
@click.option("--resume", is_flag=True, help="Continue the tournament in --out (settings are read from it).")
@click.option("--v6", is_flag=True, default=None, help="Play with the V6 specialty tiles.")
@click.option("--sprt", default=None, metavar="elo0=E0,elo1=E1",
              help="Two bots only: stop when the SPRT decides (also alpha=, beta=; default 0.05 each).")
@click.option("--backend", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="Run games in local processes, or as Ray tasks (pip install \"kwsearch[ray]\").")
@click.option("--address", default=None, help="With --backend ray: the Ray cluster to join (default: a local one).")
@click.option("--json", "as_json", is_flag=True, help="Print the final report as JSON.")
def tournament(bots: tuple[str, ...], players: int | None, games: int | None, workers: int, seed: int | None,
               out: str, resume: bool, v6: bool | None, sprt: str | None, backend: str, address: str | None,
               as_json: bool) -> None:
    """Play bots against each other; write every game to --out and print a report.

    Seats rotate so every bot plays every seat equally; the games of one rotation
    share their set-up and deck (paired). A killed run loses nothing already
    finished: --resume plays only the missing games.
    """
    from .tournament import SPRT, TournamentSpec, load_results, make_report, report_json, report_text, \
        run_tournament, spec_from_header

    specs = tuple(x for b in bots for x in b.split())
    if address and backend != "ray":
        raise click.ClickException("--address: applies only with --backend ray")
    if resume:
        header, already, _ = load_results(out, allow_cut_tail=True)
        base = spec_from_header(header)
        spec = TournamentSpec(bots=specs or base.bots, players=players or base.players,
                              games=games or base.games, seed=base.seed if seed is None else seed,
                              v6=base.v6 if v6 is None else v6,
                              sprt=SPRT.parse(sprt) if sprt else base.sprt)
    else:
        if not specs:
            raise click.ClickException("--bots: give at least two bot specs, e.g. -b heuristic -b random")
        n = players or min(4, max(2, len(specs)))
        probe = TournamentSpec(bots=specs, players=n, games=1, seed=seed or 0, v6=bool(v6),
                               sprt=SPRT.parse(sprt) if sprt else None)
        spec = TournamentSpec(bots=specs, players=n, games=games or probe.cycle, seed=seed or 0, v6=bool(v6),
                              sprt=probe.sprt)
    live = sys.stderr.isatty() and not as_json
    click.echo(f"{out}: {spec.games} games of {spec.players} players between {len(spec.bots)} bots, seed "
               f"{spec.seed}, {workers} worker{'s' if workers > 1 else ''} ({backend})", err=True)
    bar = None
    if live:
        bar = click.progressbar(length=spec.games, label="games", show_eta=True, show_pos=True, file=sys.stderr)
        bar.__enter__()

    def progress(done: int, total: int, line: dict) -> None:
        if bar is not None:
            bar.update(done - bar.pos)
        else:
            result = ", ".join(f"{name} {m}" for name, m in zip(line["seats"], line["money"]))
            click.echo(f"  game {line['game'] + 1} done ({done}/{total}): {result}", err=True)

    try:
        if resume and bar is not None:
            bar.update(len(already))
        info = run_tournament(spec, out, workers=workers, resume=resume, backend=backend, address=address,
                              progress=progress)
    except KeyboardInterrupt:
        raise click.ClickException(f"{out}: interrupted; the finished games are saved — continue with "
                                   f"kwsearch tournament --out {out} --resume") from None
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)
    rep = make_report(info.header, info.games)
    if as_json:
        click.echo(json.dumps(report_json(rep), indent=1))
        return
    extra = " (the SPRT decided)" if info.stopped_by_sprt else ""
    click.echo(f"played {info.played} games in {info.seconds:.1f} s{extra}"
               + (f"; {info.skipped} were already in {out}" if info.skipped else ""))
    click.echo(report_text(rep))


@main.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def report(file: str, as_json: bool) -> None:
    """Print the report of a tournament results file."""
    from .tournament import load_results, make_report, report_json, report_text

    header, done, _ = load_results(file)
    if not done:
        raise click.ClickException(f"{file}: no finished games yet")
    rep = make_report(header, done)
    click.echo(json.dumps(report_json(rep), indent=1) if as_json else report_text(rep))



if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
