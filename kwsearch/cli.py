"""The ``kwsearch`` command line: thin click commands over the library.

Every user error becomes one line on stderr naming the file, the field or event
and the problem, and a non-zero exit code — never a traceback.
"""

from __future__ import annotations

import json
import math
import secrets
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from . import __version__
from .components import load_components
from .errors import InvalidRecordError, KwsearchError
from .luck import DEFAULT_METHOD as DEFAULT_LUCK_METHOD, METHODS as LUCK_METHODS
from .worker_procs import max_workers

if TYPE_CHECKING:  # the search is imported when a command needs it (a fast start)
    from .search import SearchConfig


class _Group(click.Group):
    """Turns library errors into one-line click errors."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except KwsearchError as exc:  # one line, whatever text of the user's the message quotes
            raise click.ClickException(str(exc).replace("\r", "\\r").replace("\n", "\\n")) from None


class FiniteFloat(click.ParamType):
    """A finite number, optionally within bounds: ``nan``, ``inf`` and out-of-range values are
    refused with a one-line usage error (click's FloatRange lets ``nan`` through)."""

    name = "number"

    def __init__(self, min: float | None = None, max: float | None = None, min_open: bool = False):
        self.min, self.max, self.min_open = min, max, min_open

    def convert(self, value, param, ctx):
        if isinstance(value, float) and math.isfinite(value):
            v = value
        else:
            try:
                v = float(value)
            except (TypeError, ValueError):
                self.fail(f"{value!r} is not a number", param, ctx)
            if not math.isfinite(v):
                self.fail(f"{value!r} is not a finite number", param, ctx)
        if self.min is not None and (v <= self.min if self.min_open else v < self.min):
            self.fail(f"{value!r} must be {'greater than' if self.min_open else 'at least'} {self.min:g}", param, ctx)
        if self.max is not None and v > self.max:
            self.fail(f"{value!r} must be at most {self.max:g}", param, ctx)
        return v


def _setting_type(s):
    """The click type of a search setting (its entry in kwsearch.settings)."""
    if s.processes:
        return WORKERS  # processes started on this machine: the bound of every --workers
    if s.words:
        return click.Choice(list(s.words))
    if s.kind == "float":
        return FiniteFloat(min=s.lo, max=s.hi, min_open=s.lo_open)
    if s.kind == "int":
        return click.IntRange(min=int(s.lo), max=int(s.hi))
    if s.kind == "choice":
        return click.Choice(list(s.choices))
    return str


def search_options(command: str):
    """The options of ``command`` for the search settings, generated from the table
    (kwsearch.settings): each passes the setting's value, or None when not given, under its name."""
    from .settings import cli_help, command_settings

    def decorate(f):
        for s in reversed(command_settings(command)):
            names = [s.flag] + ([s.short] if s.short else [])
            f = click.option(*names, s.name, type=_setting_type(s), default=None, metavar=s.metavar,
                             help=cli_help(s))(f)
        return f
    return decorate


def _tunable_names() -> list[str]:
    """The spec keys ``kwsearch tune -p`` takes: an ismcts spec's search settings but workers."""
    from .settings import spec_keys
    return [k for k in spec_keys("ismcts") if k != "workers"]


def search_overrides(values: dict) -> dict:
    """The SearchConfig fields of the search options given (see :func:`search_options`)."""
    from .settings import SETTING
    return {name: SETTING[name].from_words(v) if SETTING[name].words else v
            for name, v in values.items() if v is not None}


@click.group(cls=_Group)
@click.version_option(__version__, prog_name="kwsearch")
def main() -> None:
    """kwsearch — rules engine and search AI for the board game Kraftwagen."""


class _SeedType(click.ParamType):
    """A seed: 0 to 2^64 - 1 (:func:`kwsearch.seeds.check_seed`), the bound every reader of a
    record, results file or tuning log applies too, so whatever a command writes reads back."""

    name = "seed"

    def convert(self, value, param, ctx):
        from .seeds import check_seed, parse_seed
        try:
            return check_seed(value, "") if isinstance(value, int) else parse_seed(value, "")
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


#: The type of every command's ``--seed``.
SEED = _SeedType()

#: The type of every command's ``--workers`` (suggest, review, tournament, tune): 1 to 4 per CPU
#: (:func:`kwsearch.worker_procs.max_workers`), so a typo cannot start a thousand processes.
WORKERS = click.IntRange(1, max_workers())


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
@click.option("--v6", is_flag=True, help="Play with the V6 specialty tiles (rules §11: kwsearch rules 11).")
@_components_option
def new(players: int, seed: int, output: str, force: bool, v6: bool, components_file: str | None) -> None:
    """Write a fresh game record (set-up drawn from --seed).

    The record says whether the game uses the V6 specialty tiles; ``show`` and
    ``suggest`` read that from the file.
    """
    from .records import new_record
    from .game import Game

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
@click.option("--svg", "svg_file", type=click.Path(dir_okay=False), default=None,
              help="Also write the board as an SVG picture to this file (kwsearch.svg).")
@click.option("--game", "game_no", type=click.IntRange(min=0), default=None,
              help="FILE is a tournament results file: show its game N (numbered from 0), the board at the end "
                   "and the game's moves.")
def show(file: str, ply: int | None, as_json: bool, svg_file: str | None, game_no: int | None) -> None:
    """Show the board of a game record or a position file (or, with --game, a tournament game)."""
    from .records import RECORD_FORMAT, load_file
    from .render import line_width, render
    from .scoring import record_scorings

    if game_no is not None:
        if ply is not None:
            raise click.ClickException("--ply: does not apply with --game (a tournament game is shown at its end)")
        from .tournament import load_game
        state, names, moves, line = load_game(file, game_no)
        if svg_file:
            from .fileio import write_text_atomic
            from .svg import board_svg
            write_text_atomic(Path(svg_file), board_svg(state, seat_names=names), what="SVG file")
        if as_json:
            click.echo(json.dumps(state.observation(), indent=1))
            return
        seats = ", ".join(f"seat {s}: {n}" for s, n in enumerate(names))
        click.echo(f"{file}: game {game_no} ({seats}); money {' '.join(map(str, line['money']))}")
        if line.get("adjudicated"):
            click.echo(f"Adjudicated: the game passed the decision cap ({len(moves):,} decisions) without ending; "
                       f"its result is the money at that point (win shares "
                       f"{' '.join(f'{r:g}' for r in line['returns'])}), a match rule (docs/rules-notes.md)")
        click.echo("")
        click.echo(render(state, names))
        click.echo("")
        click.echo(f"Moves ({len(moves)} decisions):")
        for m in moves:
            click.echo(m)
        return
    state, obj = load_file(file, ply=ply)
    names = record_names(obj, state.game.num_players)
    last = None
    if obj.get("format") == RECORD_FORMAT:
        reports = record_scorings(obj, upto=ply, source=file)
        last = reports[-1] if reports else None
    if svg_file:
        from .fileio import write_text_atomic
        from .svg import board_svg
        write_text_atomic(Path(svg_file), board_svg(state, seat_names=names), what="SVG file")
    if as_json:
        out = state.observation()
        if last is not None:
            out["last_scoring"] = last.to_json()  # docs/formats.md; a position reader ignores it
        click.echo(json.dumps(out, indent=1))
        return
    click.echo(render(state, names))
    if last is not None:
        click.echo("")
        click.echo(f"The last scoring (round {last.round}):" if not state.is_terminal() or not last.final
                   else "The game's last scoring and final sheet:")
        click.echo("\n".join(last.lines(names, line_width())))


def record_names(obj, players: int) -> list[str] | None:
    """The seats' display names of a game record: ``setup.names``, else short names of
    ``setup.seats`` (a bot spec becomes "ISMCTS"); None for a position."""
    from .render import seat_names
    setup = obj.get("setup") if isinstance(obj, dict) else None
    if not isinstance(setup, dict):
        return None
    given = setup.get("names")
    if isinstance(given, list) and len(given) == players and all(isinstance(x, str) for x in given):
        return [str(x) for x in given]
    seats = setup.get("seats")
    if isinstance(seats, list) and len(seats) == players:
        return seat_names([str(x) for x in seats])
    return None


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


def _search_text(config: SearchConfig) -> str:
    """How a search runs, in a few words: its loop, exploration constant, playouts and cut-off (the
    suggest header)."""
    words = [f"{'closed' if config.closed_loop else 'open'} loop", f"c {config.c_uct:g}",
             f"{config.rollout} playouts"]
    if config.cutoff:
        from .features import SHIPPED
        scorer = config.evaluation if config.evaluation in SHIPPED else Path(str(config.evaluation)).name
        words.append(f"cut off after {config.cutoff} decisions ({scorer} evaluation)")
    if config.prior:
        words.append(f"prior {config.prior:g}")
    if config.prior_playout:
        words.append(f"{config.prior_playout:.0%} of playout decisions from the prior")
    if config.root == "halving":
        words.append("sequential halving at the root")
    return ", ".join(words)


@main.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--ply", type=click.IntRange(min=0), default=None,
              help="Analyse the position after this many decisions of a game record (default: the end).")
@click.option("--iterations", "-i", type=click.IntRange(min=1, max=2**31 - 1), default=None,
              help="Search iterations in total, split over the workers (default 20000 when --seconds is not "
                   "given).")
@click.option("--seconds", "-s", type=FiniteFloat(min=0, min_open=True, max=366 * 24 * 3600.0), default=None,
              help="Search time in seconds (every worker searches this long).")
@click.option("--top", type=click.IntRange(min=1), default=5, show_default=True, help="Candidates to show.")
@click.option("--seed", type=SEED, default=0, show_default=True,
              help="Seed of the search: the same seed, settings and --iterations repeat the result exactly.")
@click.option("--bot", "bot", type=str, default=None, metavar="SPEC",
              help="Search as this search bot would (an ismcts: spec, e.g. "
                   "'ismcts:rollout=smart,money=0.2,cutoff=15'): its c, money weight, rollout and its knobs, "
                   "cut-off and evaluation; its limit is used unless --iterations/--seconds are given. The "
                   "options below override it. Default: the default ismcts (its settings depend on the "
                   "player count: docs/strength.md), analysing: with three or four players c = 0.4 unless "
                   "given, where the bot plays with 0.25 (docs/confidence.md, \"Playing and analysing\").")
@search_options("suggest")
@click.option("--until-clear", is_flag=True,
              help="After the search, re-search the finalists on their own, doubling the length each round, until "
                   "the best is separated from the rest or they are declared equal, up to --clear-cap "
                   "(docs/confidence.md).")
@click.option("--clear-cap", type=click.IntRange(min=1, max=2**62), default=None,
              help="Most iterations the re-searches of --until-clear spend (default: 16 times the search's).")
@click.option("--json", "as_json", is_flag=True, help="Print a kwsearch-analysis/1 object (docs/formats.md).")
def suggest(file: str, ply: int | None, iterations: int | None, seconds: float | None, top: int, seed: int,
            bot: str | None, until_clear: bool, clear_cap: int | None, as_json: bool, **settings) -> None:
    """Suggest a move: search the position of a game record or a position file.

    Prints the seat to move and the best options as whole-turn plans, with
    visits, share, win probability, expected money and availability. Ctrl-C
    stops the search (every worker) and prints what it has, marked "stopped
    early"; the exit code is then 0 as for a finished search.
    """
    from dataclasses import replace

    from .analysis import analyse, analysis_json, card_token, plan_text
    from .bots import BotSpec, BotSpecError
    from .records import load_file
    from .render import DECISION_TEXT, line_width, option_table, wrap_phrases
    from .search import SearchConfig, SearchLimits

    state, obj = load_file(file, ply=ply)
    if state.is_terminal():
        raise click.ClickException(f"{file}: the game is over (money {' '.join(map(str, state.money()))}); "
                                   "there is no move to suggest")
    limits = SearchLimits(iterations=iterations if iterations or seconds else 20_000, seconds=seconds)
    config = SearchConfig()
    if bot is not None:
        try:
            spec = BotSpec.parse(bot)
            if spec.name != "ismcts":
                raise BotSpecError(f"bot spec {bot!r}: expected an ismcts: spec (the search a hint uses), "
                                   f"got {spec.name}")
            bot_limits, config = spec.search_settings()
        except BotSpecError as exc:
            raise click.ClickException(f"--bot: {exc}") from None
        if not (iterations or seconds):
            limits = bot_limits
    limits = replace(limits, until_clear=until_clear, clear_cap=clear_cap)  # kwsearch.confidence
    overrides = search_overrides(settings)  # the options given override the bot's settings
    config = replace(config, **overrides)
    config.evaluator(state.game.num_players)  # a bad weights file is one line, before the search starts
    config.prior_model(state.game.num_players)
    live = sys.stderr.isatty() and not as_json
    what = " and ".join(x for x in (f"{limits.iterations:,} iterations" if limits.iterations else "",
                                    f"{limits.seconds:g} s" if limits.seconds else "") if x)
    workers = config.workers
    click.echo(f"searching: {what}, {workers} worker{'s' if workers > 1 else ''}, seed {seed} "
               "(Ctrl-C stops early)", err=True)

    def progress(an) -> None:
        r = an.result
        best = an.candidates[0].text if an.candidates and r.iterations else ""
        text = f"  {r.iterations:,} iterations, {r.iterations_per_second:,.0f}/s, best so far: {best}"
        click.echo(f"\r{text[:line_width() - 1]:<{line_width() - 1}}", nl=False, err=True)

    an = analyse(state, limits, config, seed=seed, top=top, progress=progress if live else None)
    if live:
        click.echo("\r" + " " * (line_width() - 1) + "\r", nl=False, err=True)
    r = an.result
    if r.pool_full:
        click.echo(f"note: the node pool ({config.max_nodes:,} nodes per worker) filled up after {r.iterations:,} "
                   "iterations and the search stopped there; raise --max-nodes for more", err=True)
    if as_json:
        click.echo(json.dumps(analysis_json(an, source=file, ply=ply), indent=1))
        return
    seat = r.mover
    names = record_names(obj, state.game.num_players)  # setup.names, else short names of setup.seats
    who = f"seat {seat}" + (f" ({names[seat]})" if names else "")
    kind = state.pending()
    width = line_width()  # the terminal's width; 100 when the output is not a terminal

    def say(text: str, indent: str = "    ") -> None:
        for line in wrap_phrases(text, width, indent):
            click.echo(line)

    say(f"{file}: round {state.round}, {state.phase} phase — {who} to decide: {DECISION_TEXT.get(kind, kind)}")
    note = " (stopped early)" if an.interrupted else " (node pool full)" if r.pool_full else ""
    say(f"ISMCTS: {r.iterations:,} iterations in {r.elapsed:.1f} s ({r.iterations_per_second:,.0f}/s), "
        f"seed {seed}, {workers} worker{'s' if workers > 1 else ''}, {_search_text(r.config)}{note}")
    click.echo("")
    cut = r.config.cutoff  # with a cut-off the money statistics are the money when the playouts stopped
    from .confidence import confidence_rows
    head, rows = confidence_rows(an, lambda c: plan_text(state, c.plan), cut)
    for line in option_table(head, rows, width):
        click.echo(line)
    if cut:
        say(f"money@cut: the seat's money where the playouts stopped, {cut} decisions on, not at the "
            "game's end (--cutoff 0 plays them out)")
    if an.verification is not None:
        from .confidence import legend
        for line in legend(an, state):
            say(line)
    from .outlook import text_lines  # issue 30: what the cards bring, finishing places
    more = text_lines(an, lambda c: plan_text(state, c.plan[:1]), names, width)
    if more:
        click.echo("")
        for line in more:
            click.echo(line)
    click.echo("")
    say("PV: " + ", ".join(card_token(state, m) for m in r.pv))



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
@click.option("--seed", type=SEED, default=None,
              help="Seed of the set-up, the deck and the bots (default: a random one, kept in the record).")
@click.option("--record", "record_file", type=click.Path(dir_okay=False), default=None,
              help="Where the game record is saved after every move (default: kwsearch-game-<12 random hex "
                   "digits>.json, a random name that does not give the seed away; never overwritten — "
                   "pick a new name or --resume it).")
@click.option("--resume", "resume_file", type=click.Path(dir_okay=False), default=None,
              help="Continue the game in this record (its seats unless --seats is given).")
@click.option("--hint-iterations", type=click.IntRange(1, 1_000_000_000), default=5000, show_default=True,
              help="Search iterations behind '?' hints.")
@click.option("--v6", is_flag=True, help="Play with the V6 specialty tiles.")
@click.option("--names", default=None,
              help="The seats' names, comma-separated in seat order (e.g. Ann,Bob,Cleo); kept in the record.")
@click.option("--help-cards", is_flag=True, help="List the research cards by their plain names and exit.")
@click.option("--teach", type=click.Choice(["inaccuracy", "mistake", "blunder"]), is_flag=False,
              flag_value="mistake", default=None, metavar="[THRESHOLD]",
              help="Teaching mode: after a human decision the review would mark THRESHOLD or worse "
                   "(inaccuracy, mistake or blunder; mistake if not given), say so and offer 'undo'.")
@click.option("--teach-iterations", type=click.IntRange(1, 1_000_000), default=None,
              help="Search iterations of each teaching check (default 5000, as kwsearch review).")
@click.option("--teach-seed", type=SEED, default=None,
              help="Seed of the teaching checks (default 0, as kwsearch review: decision k uses "
                   "derive_seed(seed, 'review', k)).")
def play(seats: str | None, mirror: bool, seed: int | None, record_file: str | None, resume_file: str | None,
         hint_iterations: int, v6: bool, names: str | None, help_cards: bool, teach: str | None,
         teach_iterations: int | None, teach_seed: int | None) -> None:
    """Play a game in the terminal (humans and bots), or mirror one on a real table.

    At your turn: a number from the menu or a move in notation; '?' for hints,
    'undo' to take back your last decision, 'cards' for the research cards, 'help' for the rest.
    With --teach, a decision the review would mark is pointed out at once (the loss in points
    of win %, the better option) and 'undo' takes it back; `kwsearch review FILE` with the same
    iterations and seed marks it the same.
    Ctrl-C ends the program at once, even while a bot thinks (exit code 130): the record keeps
    every finished move; --resume FILE continues.
    """
    from .play import HUMAN, PlayError, Quit, Session, check_mirror, check_resume_settings, load_for_resume, \
        mirror_setup, new_game_record, parse_names, parse_seats, seats_of_record

    if help_cards:
        from .components import default_components
        from .render import card_legend
        click.echo("Research cards: plain name, name in notation, what it does")
        for line in card_legend(default_components()):
            click.echo(line)
        return

    def ask(prompt: str) -> str:
        try:
            return click.prompt(prompt, default="", show_default=False, prompt_suffix="")
        except click.Abort:
            raise EOFError from None

    def say(text: str) -> None:
        click.echo(text)

    teaching = None
    if teach is None and (teach_iterations is not None or teach_seed is not None):
        raise click.UsageError("--teach-iterations and --teach-seed need --teach")
    if teach is not None:
        from .teach import DEFAULT_ITERATIONS, DEFAULT_SEED, TeachSettings
        teaching = TeachSettings(teach, teach_iterations or DEFAULT_ITERATIONS,
                                 DEFAULT_SEED if teach_seed is None else teach_seed)
    try:
        if resume_file:
            path = Path(resume_file)
            record = load_for_resume(path)
            seed_given = _given(click.get_current_context(), "seed")
            check_resume_settings(record, path, v6=True if v6 else None, seed=seed if seed_given else None,
                                  mirror=mirror)
            if not seed_given and isinstance(record.get("seed"), int):
                seed = record["seed"]  # the bots of a resumed game draw from the record's seed
            elif seed is None:
                seed = 0  # a record without a seed (a mirror game): the bots' draws as before
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
            if seed is None:
                seed = secrets.randbits(63)  # a new deck each game; the record keeps the seed
            path = Path(record_file or f"kwsearch-game-{secrets.token_hex(6)}.json")
            if path.exists():
                raise PlayError(f"{path}: already exists; continue it with --resume {path}, or choose another "
                                "--record file")
            check_mirror(seat_list, mirror)
            record = new_game_record(len(seat_list), seed, seat_list, v6=v6)
            if mirror:
                record = mirror_setup(record, ask, say)
        if teaching is not None and HUMAN not in seat_list:
            raise PlayError("--teach: no human seat to teach (the seats are all bots)")
        session = Session(record, seat_list, path, mirror=mirror, seed=seed, hint_iterations=hint_iterations,
                          ask=ask, say=say, names=parse_names(names, len(seat_list)), teach=teaching)
    except EOFError:
        raise click.ClickException("input ended before the game started") from None
    who = ", ".join(f"seat {s}: {session.names[s]}" + (f" ({spec})" if spec != HUMAN else "")
                    for s, spec in enumerate(seat_list))
    from .render import wrap_phrases
    for line in wrap_phrases(f"{'Mirror mode — ' if mirror else ''}{len(seat_list)} players ({who}); saving to "
                             f"{path}. Type 'help' at your turn."):
        click.echo(line)
    if teaching is not None:
        for line in wrap_phrases(teaching.describe().capitalize() + "."):
            click.echo(line)
    from .play import Interrupted
    try:
        with session.ctrl_c_ends_game():  # Ctrl-C ends the game at once, even while a bot thinks
            session.run()
    except (Quit, KeyboardInterrupt):
        session.save()
        click.echo("\n" + "\n".join(wrap_phrases(f"stopped; the game is saved in {path}")))
        click.echo(f"continue with: kwsearch play --resume {path}")  # one line, to copy whole
    except Interrupted:  # the file already holds every finished decision; the one in progress is dropped
        if sys.stderr.isatty():
            click.echo("", err=True)  # past the terminal's ^C
        click.echo(f"interrupted; the game is saved in {path} up to the last finished move — continue with: "
                   f"kwsearch play --resume {path}", err=True)
        click.get_current_context().exit(130)  # 128 + SIGINT, as a shell reports a Ctrl-C


# ---------------------------------------------------------------------------
# review
# ---------------------------------------------------------------------------


@main.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--seat", "seats", type=click.IntRange(min=0), multiple=True,
              help="Review only this seat's decisions (repeatable; default: every seat).")
@click.option("--iterations", "-i", type=click.IntRange(min=1), default=None,
              help="Search iterations per decision (default 5000 unless --seconds is given).")
@click.option("--seconds", "-s", type=FiniteFloat(min=0, min_open=True, max=366 * 24 * 3600.0), default=None,
              help="Search time per decision (results then vary from run to run).")
@click.option("--workers", "-w", type=WORKERS, default=1, show_default=True,
              help="Processes reviewing decisions side by side (at most 4 per CPU).")
@click.option("--seed", type=SEED, default=0, show_default=True,
              help="Seed of the searches (decision k uses derive_seed(seed, 'review', k)).")
@click.option("--json", "as_json", is_flag=True, help="Print the kwsearch-review/1 object (docs/formats.md).")
@click.option("--html", "html_file", type=click.Path(dir_okay=False), default=None,
              help="Also write a self-contained HTML report (board at every decision, win-% graph).")
@click.option("--cache", "cache_file", type=click.Path(dir_okay=False), default=None,
              help="Cache file of finished decisions (default: GAME.review-cache.json beside the game).")
@click.option("--no-cache", is_flag=True, help="Neither read nor write a cache file.")
@click.option("--no-luck", is_flag=True,
              help="Skip the chance events' luck (one extra search per event; docs/luck.md).")
@click.option("--luck-method", type=click.Choice(LUCK_METHODS), default=DEFAULT_LUCK_METHOD,
              show_default=True,
              help="The value before a chance event: searches of outcomes drawn with their probabilities, "
                   "one search per event split before and after (drawn: no bias); the re-search of the move "
                   "that turned it up (reuse: biased where the next seat's play depends on the cards); or "
                   "drawn outcomes with as many chunks as after (sampled: two searches per event). "
                   "docs/luck.md.")
@search_options("review")
def review(file: str, seats: tuple[int, ...], iterations: int | None, seconds: float | None, workers: int,
           seed: int, as_json: bool, html_file: str | None, cache_file: str | None, no_cache: bool,
           no_luck: bool, luck_method: str, **settings) -> None:
    """Review a logged game: every decision against the search's best, with win %, loss and marks.

    Each decision is searched from the deciding seat's information set. Ctrl-C
    stops and keeps what is done (in the cache file): run the same command again
    to continue. Thresholds and method: docs/review.md.
    """
    from .fileio import write_text_atomic
    from .formats import read_json
    from .review import DEFAULT_ITERATIONS, default_cache_path, review_game, review_html, review_text
    from .search import SearchConfig, SearchLimits

    record = read_json(file)
    limits = SearchLimits(iterations=iterations if iterations or seconds else DEFAULT_ITERATIONS, seconds=seconds)
    cache = None if no_cache else (Path(cache_file) if cache_file else default_cache_path(file))
    names = record_names(record, record.get("players")) if isinstance(record, dict) else None
    live = sys.stderr.isatty()
    bar = None
    if live:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, \
            TimeRemainingColumn
        bar = Progress(TextColumn("reviewing"), BarColumn(), MofNCompleteColumn(), TextColumn("decisions"),
                       TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                       console=Console(stderr=True),
                       transient=True)
    task = None
    luck_task = None

    def progress(done: int, total: int, decision) -> None:
        nonlocal task
        if bar is None:
            return
        if task is None:
            bar.start()
            task = bar.add_task("review", total=total, completed=done)
        bar.update(task, completed=done)

    def luck_progress(done: int, total: int) -> None:
        nonlocal luck_task
        if bar is None:
            return
        if luck_task is None:  # the chance events' searches (docs/luck.md), after the decisions
            if task is not None:
                bar.update(task, visible=False)
            bar.columns = (TextColumn("luck of"), BarColumn(), MofNCompleteColumn(), TextColumn("chance events"),
                           TimeElapsedColumn())
            luck_task = bar.add_task("luck", total=total, completed=done)
        bar.update(luck_task, completed=done)

    try:
        result = review_game(record, limits, seed=seed, seats=list(seats) or None, workers=workers,
                             cache=cache, source=file, names=names, progress=progress,
                             luck=not no_luck, luck_progress=luck_progress, luck_method=luck_method,
                             config=SearchConfig(**search_overrides(settings)))
    finally:
        if bar is not None:
            bar.stop()
    if html_file:
        write_text_atomic(Path(html_file), review_html(result, record), what="HTML report")
    if as_json:
        click.echo(json.dumps(result.to_json(), indent=1, allow_nan=False))
    else:
        click.echo(review_text(result))
    if not result.complete:
        where = f" (kept in {result.cache_file})" if result.cache_file is not None else ""
        done = (f"{len(result.decisions)} of {result.total_decisions} decisions" if result.luck is None else
                f"every decision and the luck of {len(result.luck['events'])} chance events")
        click.echo(f"stopped after {done}{where}; run the same command again to continue", err=True)


# ---------------------------------------------------------------------------
# bench
# ---------------------------------------------------------------------------


@main.command()
@click.option("--quick", is_flag=True, help="A short run (about 20 seconds on a 2-core machine; up to a minute on a "
                                             "slow or busy one) with smaller samples.")
@click.option("--repeat", type=click.IntRange(min=1), default=None,
              help="Timed runs per figure, the best kept (default 3; 1 with --quick).")
@click.option("--only", type=click.Choice(["engine", "search"]), default=None, help="Run one part only.")
@click.option("--markdown", "markdown_file", type=click.Path(dir_okay=False), default=None,
              help="Also write the results into this Markdown file (its bench sections are replaced, the rest "
                   "kept), e.g. bench/RESULTS.md.")
def bench(quick: bool, repeat: int | None, only: str | None, markdown_file: str | None) -> None:
    """Measure the engines and the search on this machine and print the figures."""
    from . import benchmarks as b
    from .render import line_width, wrap_phrases

    reps = repeat or (1 if quick else 3)
    engine = search_res = None
    width = line_width()
    for line in [*wrap_phrases(b.UNITS_NOTE, width, "  "), ""]:
        click.echo(line)
    if only in (None, "engine"):
        click.echo("Engine: fast (Cython) and reference (Python), one core")
        engine = b.engine_bench(quick, reps, echo=click.echo, width=width)
        click.echo("")
    if only in (None, "search"):
        click.echo("Search: ISMCTS")
        search_res = b.search_bench(quick, reps, echo=click.echo, width=width)
        click.echo("")
    title = "Summary" + (" (quick run: small samples)" if quick else "")
    for line in b.summary_lines(b.summary(engine, search_res), title, width):
        click.echo(line)
    if markdown_file:
        if engine:
            b.write_results(markdown_file, b.engine_markdown(engine, quick), b.ENGINE_BEGIN, b.ENGINE_END)
        if search_res:
            b.write_results(markdown_file, b.search_markdown(search_res, quick), b.SEARCH_BEGIN, b.SEARCH_END)
        for line in wrap_phrases(f"wrote {markdown_file}", width, "  "):
            click.echo(line)


# ---------------------------------------------------------------------------
# tournament / report
# ---------------------------------------------------------------------------


#: Tournament settings as the command's options name them (a TournamentError's ``field``).
_TOURNAMENT_FLAGS = {"bots": "--bots", "players": "--players", "games": "--games", "sprt": "--sprt",
                     "workers": "--workers", "backend": "--backend", "seed": "--seed",
                     "max_decisions": "--max-decisions"}


def _tournament_error(exc) -> click.ClickException:
    """A library error as one line that names the option at fault (the library names the setting)."""
    field = getattr(exc, "field", None) or ""
    flag = _TOURNAMENT_FLAGS.get(field)
    msg = str(exc)
    if flag and msg.lower().startswith(field) and msg[len(field):len(field) + 1] in (":", " "):
        return click.ClickException(flag + msg[len(field):])  # "sprt: ..." -> "--sprt: ..."
    return click.ClickException(f"{flag}: {msg}" if flag else msg)


def _check_cluster(address: str) -> None:
    """A bad or silent --address as one line, before anything is written (kwsearch.raytasks)."""
    from .raytasks import check_cluster
    check_cluster(address, lambda msg: click.ClickException("--" + msg))


@main.command()
@click.option("--bots", "-b", "bots", multiple=True, metavar="SPEC",
              help="A bot spec (repeat, or separate with spaces), e.g. -b heuristic -b ismcts:iterations=5000. "
                   "Specs: random, heuristic, ismcts:..., pimc:..., cheat:... (docs in kwsearch.bots). The same "
                   "spec twice plays self-play (the copies are named spec#1, spec#2).")
@click.option("--players", "-n", type=click.IntRange(2, 4), default=None,
              help="Players per game (default: the number of bots, at most 4).")
@click.option("--games", "-g", type=click.IntRange(min=1, max=10_000_000), default=None,
              help="Games to play (default: one balanced cycle of line-ups and seat rotations).")
@click.option("--workers", "-w", type=WORKERS, default=None,
              help="Games played at once (default 1; with --resume, what the file's run used).")
@click.option("--seed", type=SEED, default=None, help="Seed of the schedule, decks and bots (default 0).")
@click.option("--out", "-o", type=click.Path(dir_okay=False), required=True,
              help="Results file (JSON Lines; one line per game, appended as games end; locked while written).")
@click.option("--resume", is_flag=True, help="Continue the tournament in --out (settings are read from it).")
@click.option("--v6", is_flag=True, default=None, help="Play with the V6 specialty tiles.")
@click.option("--sprt", default=None, metavar="elo0=E0,elo1=E1",
              help="Two bots only: stop when the SPRT over deal sets decides (also alpha=, beta=; default 0.05 "
                   "each).")
@click.option("--backend", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="Run games in local processes, or as Ray tasks (pip install \".[ray]\" in the kwsearch clone).")
@click.option("--address", default=None, help="With --backend ray: the Ray cluster to join (default: a local one).")
@click.option("--max-decisions", "max_decisions", type=int, default=None, metavar="N",
              help="Adjudicate a game still running after N decisions on the money held then (a match rule: the "
                   "rules allow a round without end; default kwsearch.bots.MAX_MATCH_DECISIONS; with --resume, "
                   "what the file's run used).")
@click.option("--json", "as_json", is_flag=True, help="Print the final report as JSON.")
def tournament(bots: tuple[str, ...], players: int | None, games: int | None, workers: int | None,
               seed: int | None, out: str, resume: bool, v6: bool | None, sprt: str | None, backend: str,
               address: str | None, max_decisions: int | None, as_json: bool) -> None:
    """Play bots against each other; write every game to --out and print a report.

    Seats rotate so every bot plays every seat equally; the games of one rotation
    share their set-up and deck (a deal set). A killed run loses nothing already
    finished: --resume plays only the missing games. With two bots the report
    gives the Elo difference with its 95% interval over deal sets.
    """
    from .tournament import SPRT, TournamentError, TournamentSpec, load_results, make_report, report_json, \
        report_text, run_tournament, spec_from_header

    specs = tuple(x for b in bots for x in b.split())
    if address and backend != "ray":
        raise click.ClickException("--address: applies only with --backend ray")
    if address:
        _check_cluster(address)
    try:
        if resume:
            header, already, _ = load_results(out)
            base = spec_from_header(header)
            spec = TournamentSpec(bots=specs or base.bots, players=players or base.players,
                                  games=games or base.games, seed=base.seed if seed is None else seed,
                                  v6=base.v6 if v6 is None else v6,
                                  sprt=SPRT.parse(sprt) if sprt else base.sprt,
                                  max_decisions=base.max_decisions if max_decisions is None else max_decisions)
            shown_workers = workers or header.get("workers", 1)
        else:
            if not specs:
                raise click.ClickException("--bots: give at least two bot specs, e.g. -b heuristic -b random")
            if Path(out).exists():
                raise click.ClickException(f"{out}: already exists; pass --resume to continue it, or choose "
                                           "another file")
            n = players or min(4, max(2, len(specs)))
            probe = TournamentSpec(bots=specs, players=n, games=1, seed=seed or 0, v6=bool(v6),
                                   sprt=SPRT.parse(sprt) if sprt else None)
            spec = TournamentSpec(bots=specs, players=n, games=games or probe.cycle, seed=seed or 0, v6=bool(v6),
                                  sprt=probe.sprt, max_decisions=max_decisions)
            shown_workers = workers or 1
    except TournamentError as exc:
        raise _tournament_error(exc) from None
    live = sys.stderr.isatty() and not as_json
    click.echo(f"{out}: {spec.games} games of {spec.players} players between {len(spec.bots)} bots, seed "
               f"{spec.seed}, {shown_workers} worker{'s' if shown_workers > 1 else ''} ({backend})", err=True)
    bar = None
    if live:
        bar = click.progressbar(length=spec.games, label="games", show_eta=True, show_pos=True, file=sys.stderr)
        bar.__enter__()

    def progress(done: int, total: int, line: dict) -> None:
        if bar is not None:
            bar.update(done - bar.pos)
        else:
            result = ", ".join(f"{name} {m}" for name, m in zip(line["seats"], line["money"]))
            how = f" (adjudicated after {line['decisions']:,} decisions)" if line.get("adjudicated") else ""
            click.echo(f"  game {line['game'] + 1} done ({done}/{total}): {result}{how}", err=True)

    try:
        if resume and bar is not None:
            bar.update(len(already))
        info = run_tournament(spec, out, workers=workers, resume=resume, backend=backend, address=address,
                              progress=progress)
    except TournamentError as exc:
        raise _tournament_error(exc) from None
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
    click.echo(f"played {info.played} games in {info.seconds:.1f} s with {info.workers} worker"
               f"{'s' if info.workers > 1 else ''}{extra}"
               + (f"; {info.skipped} were already in {out}" if info.skipped else ""))
    click.echo(report_text(rep))


@main.command("rules")
@click.argument("section", required=False, metavar="[SECTION]")
def rules_command(section: str | None) -> None:
    """Print the rules of Kraftwagen, or one section of them.

    SECTION is a number as the messages cite it (8, §8, 4.1), a word of a title
    (buyers, engineers), 'intro', or 'contents' for the list of sections.
    """
    from .rulebook import print_rules
    print_rules(section, click.echo)


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


@main.command()
@click.argument("space", type=click.Path(dir_okay=False), required=False)
@click.option("--param", "-p", "params", multiple=True, metavar="NAME=V1,V2,...",
              help="A parameter and its values (repeat), instead of or on top of SPACE's params, "
                   "e.g. -p rollout=tempo,smart -p money=0,0.1,0.2. Names: the search settings of an ismcts "
                   f"spec ({', '.join(_tunable_names())}; docs/settings.md).")
@click.option("--log", "log_file", type=click.Path(dir_okay=False), required=True,
              help="The run's log (JSON Lines, one line per game, fsynced); an existing log is resumed.")
@click.option("--games", "-g", type=click.IntRange(1, 1_000_000), required=True,
              help="Games to play in all (rounded up to whole steps; a resumed run may give more).")
@click.option("--workers", "-w", type=WORKERS, default=1, show_default=True,
              help="Games played at once (the result does not depend on it).")
@click.option("--players", "-n", type=click.Choice(["2", "4"]), default=None,
              help="Players per game (default: SPACE's, else 2); in 4-player games the candidate meets "
                   "three baselines.")
@click.option("--iterations", "-i", type=click.IntRange(1, 2**31 - 1), default=None,
              help="Search iterations per decision for candidate and baseline (default: SPACE's, else 1000).")
@click.option("--seconds", "-s", type=FiniteFloat(min=0, min_open=True, max=3600), default=None,
              help="Seconds per decision instead of iterations (not reproducible).")
@click.option("--base", default=None, help="The candidate's spec before the parameters (default ismcts).")
@click.option("--baseline", default=None, help="The opponent's spec (default ismcts: today's defaults).")
@click.option("--seed", type=SEED, default=None, help="Seed of the run: deals, bots and the NTBEA (default 0).")
@click.option("--batch", type=click.IntRange(1, 1000), default=None,
              help="Game pairs per NTBEA step (default 1).")
@click.option("--backend", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="Run games in local processes, or as Ray tasks (pip install \".[ray]\" in the kwsearch clone); "
                   "the log is the same.")
@click.option("--address", default=None, help="With --backend ray: the Ray cluster to join (default: a local one).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def tune(space: str | None, params: tuple[str, ...], log_file: str, games: int, workers: int, players: str | None,
         iterations: int | None, seconds: float | None, base: str | None, baseline: str | None, seed: int | None,
         batch: int | None, backend: str, address: str | None, as_json: bool) -> None:
    """Tune the search's parameters with NTBEA on paired games against a baseline.

    Each step plays the current point as a game pair on one deal (seats swapped)
    against the baseline, adds the scores to an N-tuple model and moves to the
    neighbour the model rates best. Every game goes to --log; run the same
    command again to resume (the result is the same as an uninterrupted run's).
    Prints the best configuration as a bot spec, with its score and games.
    docs/tuning.md has the details.
    """
    from .tune import TuneError, TuneSettings, check_log, load_space, parse_params, result_json, result_text, \
        run_tune

    if address and backend != "ray":
        raise click.ClickException("--address: applies only with --backend ray")
    if address:
        _check_cluster(address)
    overrides = {"players": int(players) if players else None, "iterations": iterations, "seconds": seconds,
                 "base": base, "baseline": baseline, "seed": seed, "batch": batch}
    extra = parse_params(list(params))
    if space is not None:
        settings = load_space(space, **overrides)
        if extra:
            names = dict(settings.params)
            names.update(dict(extra))
            from dataclasses import replace
            settings = replace(settings, params=tuple(names.items()))
    else:
        if not extra:
            raise click.ClickException("give a SPACE file or at least one --param, e.g. -p money=0,0.1,0.2")
        kw = {k: v for k, v in overrides.items() if v is not None}
        if seconds is not None and iterations is None:
            kw["iterations"] = None
        try:
            settings = TuneSettings(params=extra, **kw)
        except TuneError as exc:
            raise click.ClickException(str(exc)) from None
    logged = check_log(settings, log_file)
    resuming = f"resuming ({logged} games logged); " if logged else ""
    click.echo(f"{log_file}: {resuming}NTBEA over {', '.join(n for n, _ in settings.params)}; {games} games of "
               f"{settings.players} players against {settings.baseline_spec}", err=True)

    def progress(done: int, total: int, line: dict) -> None:
        if done % 20 == 0 or done == total:
            click.echo(f"  {done}/{total} games", err=True)

    try:
        res = run_tune(settings, games, log_file, workers=workers, backend=backend, address=address,
                       progress=progress)
    except TuneError as exc:
        msg = str(exc)  # "backend ray: ..." names the option as the tournament's errors do
        raise click.ClickException(("--" + msg) if msg.startswith("backend ") else msg) from None
    except KeyboardInterrupt:
        raise click.ClickException(f"{log_file}: interrupted; the finished games are logged — run the same "
                                   "command to resume") from None
    click.echo(json.dumps(result_json(res), indent=1) if as_json else result_text(res))


# ---------------------------------------------------------------------------
# serve
# ---------------------------------------------------------------------------


@main.command()
@click.argument("file", type=click.Path(dir_okay=False), required=False)
@click.option("--review", "review_file", type=click.Path(dir_okay=False), default=None,
              help="A review of FILE (kwsearch review --json) to show as a graph and marks.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on (anything but a loopback address prints a warning).")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="Port to listen on.")
@click.option("--open", "open_browser", is_flag=True, help="Open the board in the web browser.")
@click.option("--games-dir", type=click.Path(file_okay=False), default=".", show_default=True,
              help="Folder of the games played from the page (kwsearch-game-*.json, never overwritten).")
@click.option("--max-analyses", type=click.IntRange(1, 64), default=2, show_default=True,
              help="Live analyses and reviews at a time, 1 to 64 (each runs in its own process and takes a "
                   "core).")
@click.option("--analysis-seconds", type=FiniteFloat(min=1, max=86_400), default=600, show_default=True,
              help="A live analysis stops by itself after this many seconds (1 to 86,400).")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Parent seed of the analyses.")
def serve(file: str | None, review_file: str | None, host: str, port: int, open_browser: bool, games_dir: str,
          max_analyses: int, analysis_seconds: float, seed: int) -> None:
    """The analysis board: a local web app to explore, analyse and play.

    Opens FILE (a game record or position) if given; the page can open others.
    Needs the web extra: pip install ".[web]" in the kwsearch clone.
    """
    from .web import require_web
    require_web()
    from .web.app import WebConfig
    from .web.server import serve as run

    config = WebConfig(games_dir=Path(games_dir), max_analyses=max_analyses, analysis_seconds=analysis_seconds,
                       seed=seed)
    run(file, review=review_file, host=host, port=port, open_browser=open_browser, config=config,
        echo=lambda text: click.echo(text, err=text.startswith("warning")))



if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
