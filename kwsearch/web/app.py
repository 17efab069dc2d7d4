"""The analysis board's HTTP API and page (Starlette).

:func:`create_app` builds the application; ``kwsearch serve`` runs it with
uvicorn (:mod:`kwsearch.web.server`). Every answer of ``/api`` is JSON; an error
is ``{"error": "one line"}`` with a 4xx status (a 5xx only for a failure of the
server itself, such as a full disk). The API:

==========================================  ==============================================================
``GET  /api/info``                          version, open documents and games, limits
``POST /api/open`` ``{name, text}``         open an uploaded or pasted record, position or review
``GET  /api/docs/D``                        a document: its tree of nodes, its review
``GET  /api/docs/D/nodes/N``                the board, the decision and its legal options at node N
``POST /api/docs/D/nodes/N/play``           ``{action}`` or ``{moves: [text, ...]}``: a what-if branch
``GET  /api/docs/D/nodes/N/position.json``  download the position (``kwsearch-position/1``)
``GET  /api/docs/D/nodes/N/record.json``    download the record up to N (``kwsearch-game/1``)
``POST /api/docs/D/review`` ``{name, text}``  attach a review (``kwsearch review --json``)
``POST /api/docs/D/review/start``           ``{iterations, seed}``: review the game (kwsearch review) in a worker
``GET  /api/docs/D/review/status``          that review's progress: decisions done, total, time left
``POST /api/docs/D/review/stop``            stop it (what is done stays in its cache: start again to continue)
``GET  /api/docs/D/review/NAME.review.json``  download its review (``.review.html``: the HTML report)
``POST /api/analysis`` ``{doc, node}``      live analysis (or ``{game}``; ``{game, hint: true}`` a hint): a stream of server-sent events
``POST /api/analysis/A/stop``               stop an analysis (closing the stream stops it too)
``GET  /api/games``                         games of this server and resumable files of the games folder
``POST /api/games`` ``{seats, seed, ...}``  start a game against bots, or a mirror game
``POST /api/games/resume`` ``{file}``       continue a listed file (by its id, never a path)
``GET  /api/games/G``                       what the seat at the screen sees
``POST /api/games/G/decide``                ``{seat, action, answers}``: a human decision
``POST /api/games/G/advance``               the bot to move makes one decision
``POST /api/games/G/undo``                  take back the last human decision (reshuffles a reveal; 409 at the end)
``GET  /api/games/G/record.json``           download the record (no seed while the game runs)
``POST /api/games/G/explore``               open the game's moves as a document to explore
==========================================  ==============================================================

Requests are checked for size (``max_body``), for JSON (strictly, as every file:
:func:`kwsearch.jsonload.loads_json`), and — a local server's defence against
other web sites (:mod:`kwsearch.web.guard`) — every request must name this
server in its ``Host`` (a loopback name or ``--host``: no DNS rebinding), and
every ``POST`` must be ``application/json`` (which a foreign page cannot send
without the browser asking first) and come from this server's own origin when
the browser names one. No file a request names is ever opened: documents, games
and files of the games folder are addressed by server-issued ids, and the bots
of the page's games use the shipped models by name only.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from .. import __version__
from ..errors import KwsearchError
from ..jsonload import loads_json
from ..seeds import derive_seed
from ..svg import SEAT_COLOURS
from . import WebError
from .analyses import AnalysisManager
from .documents import Document, Library, parse_upload
from .games import GameTable
from .guard import HostGuard, origin_allowed, refuse_file_options, refuse_lone_surrogates, refuse_many_workers
from .review import REVIEW_FORMAT
from .reviews import ReviewManager

STATIC = Path(__file__).parent / "static"


@dataclass
class WebConfig:
    """Settings of one server (``kwsearch serve`` fills them from its options)."""

    games_dir: Path = field(default_factory=Path.cwd)
    max_analyses: int = 2          # analyses at a time (each takes a core)
    analysis_seconds: float = 600  # an analysis stops by itself after this long
    analysis_nodes: int = 2_000_000
    update_interval: float = 0.2   # seconds between analysis updates
    max_body: int = 2_000_000      # bytes of a request body
    seed: int = 0                  # parent of the seeds of analyses and explored games
    hint_iterations: int = 5000
    host: str = "127.0.0.1"        # the address served (--host): a request's Host may name it


class _TooLarge(Exception):
    pass


class BodyLimit:
    """ASGI middleware: a request body over ``limit`` bytes gets 413 and never reaches a handler."""

    def __init__(self, app, limit: int):
        self.app, self.limit = app, limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length")
        if length is not None and (not length.isdigit() or len(length) > 18 or int(length) > self.limit):
            return await _error(f"the request body is larger than {self.limit:,} bytes", 413)(scope, receive, send)
        seen = 0

        async def limited():
            nonlocal seen
            msg = await receive()
            if msg["type"] == "http.request":
                seen += len(msg.get("body", b""))
                if seen > self.limit:
                    raise _TooLarge
            return msg

        try:
            await self.app(scope, limited, send)
        except _TooLarge:
            await _error(f"the request body is larger than {self.limit:,} bytes", 413)(scope, receive, send)


class SameOrigin:
    """ASGI middleware: ``POST`` only as ``application/json`` and from this server's own pages
    (:func:`kwsearch.web.guard.origin_allowed`; ``host`` is the address served)."""

    def __init__(self, app, host: str = "127.0.0.1"):
        self.app, self.host = app, host

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope["method"] not in ("GET", "HEAD"):
            headers = dict(scope.get("headers") or [])
            ctype = headers.get(b"content-type", b"").split(b";")[0].strip().lower()
            if ctype != b"application/json":
                return await _error("expected a JSON request body (Content-Type: application/json)",
                                    415)(scope, receive, send)
            origins = [v for k, v in scope.get("headers") or [] if k == b"origin"]
            host = headers.get(b"host", b"").decode("latin-1")
            server = scope.get("server")
            port = server[1] if server and isinstance(server[1], int) else None
            if origins and (len(origins) > 1
                            or not origin_allowed(origins[0].decode("latin-1"), host, port, self.host)):
                return await _error("requests from other web sites are refused", 403)(scope, receive, send)
        await self.app(scope, receive, send)


def _error(message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def body_json(request: Request) -> Any:
    """The request's JSON body, read as strictly as a file (:func:`kwsearch.jsonload.loads_json`: no
    duplicate key, NaN, deep nesting or integer of thousands of digits); else a one-line 400."""
    raw = await request.body()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise WebError(f"malformed JSON in the request body: not UTF-8 text (byte {exc.start})") from None
    try:
        obj = loads_json(text)
    except KwsearchError as exc:
        raise WebError(f"malformed JSON in the request body: {str(exc).removeprefix('not valid JSON: ')}") \
            from None
    refuse_lone_surrogates(obj, "malformed JSON in the request body: ")
    return obj


def _download(obj: Any, filename: str) -> Response:
    return Response(json.dumps(obj, indent=1) + "\n", media_type="application/json",
                    headers={"Content-Disposition": f'attachment; filename="{filename}"'})


class Board:
    """The server's state: open documents, games, running analyses."""

    def __init__(self, config: WebConfig):
        self.config = config
        self.library = Library()
        self.games = GameTable(config.games_dir, config.hint_iterations)
        self.analyses = AnalysisManager(config.max_analyses, config.analysis_seconds, config.analysis_nodes,
                                        config.update_interval)
        self.reviews = ReviewManager(self.analyses, config.games_dir)
        self._count = itertools.count()
        self.first: str | None = None   # the document given on the command line

    def next_seed(self, label: str) -> int:
        return derive_seed(self.config.seed, label, next(self._count))

    def open_object(self, obj: Any, name: str, pin: bool = False) -> Document:
        doc = Document(secrets.token_urlsafe(9), name, obj, seed=self.next_seed("document"))
        return self.library.add(doc, pin=pin)


def create_app(config: WebConfig | None = None, files: list[tuple[str, Any]] | None = None,
               review: tuple[str, Any] | None = None) -> Starlette:
    """The web app. ``files`` are ``(name, parsed JSON)`` documents to open at start (the first is
    shown first); ``review`` a ``(name, parsed JSON)`` review attached to the first of them.

    Bad files raise :class:`~kwsearch.errors.KwsearchError` here, before any server starts.
    """
    config = config or WebConfig()
    board = Board(config)
    for k, (name, obj) in enumerate(files or []):
        doc = board.open_object(obj, name, pin=True)
        if k == 0:
            board.first = doc.id
    if review is not None:
        if board.first is None:
            raise KwsearchError(f"{review[0]}: a review needs the game record it reviews (give the FILE too)")
        board.library.get(board.first).attach_review(review[1], review[0])

    routes = [*_page_routes(board), *_document_routes(board), *_review_routes(board), *_analysis_routes(board),
              *_game_routes(board),
              Mount("/static", app=StaticFiles(directory=STATIC), name="static")]
    app = Starlette(routes=routes,
                    middleware=[Middleware(HostGuard, host=config.host), Middleware(BodyLimit, limit=config.max_body),
                                Middleware(SameOrigin, host=config.host)],
                    exception_handlers={KwsearchError: _web_error, HTTPException: _http_error,
                                        Exception: _server_error},
                    lifespan=_lifespan(board))
    app.state.board = board
    return app


def _page_routes(board: Board) -> list[Route]:
    """The page and ``/api/info``."""
    config = board.config

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    async def info(request: Request) -> Response:
        return JSONResponse({
            "version": __version__,
            "first": board.first,
            "docs": [{"id": d.id, "name": d.name, "kind": d.kind} for d in board.library.docs.values()],
            "games": [{"id": g.id, "file": g.session.path.name} for g in board.games.games.values()],
            "max_analyses": config.max_analyses,
            "analyses_running": len(board.analyses.running),
            "analysis_processes": len(board.analyses.processes),
            "analysis_seconds": config.analysis_seconds,
            "max_body": config.max_body,
            "colours": list(SEAT_COLOURS),
        })

    return [
        Route("/", index),
        Route("/api/info", info),
    ]


def _document_routes(board: Board) -> list[Route]:
    """``/api/open`` and ``/api/docs/...``: opened records, positions and reviews, their nodes and branches."""

    async def open_upload(request: Request) -> Response:
        body = await body_json(request)
        if not isinstance(body, dict) or not isinstance(body.get("text"), str):
            raise WebError("expected {\"name\": \"file.json\", \"text\": \"...the file's contents...\"}")
        name = body.get("name") if isinstance(body.get("name"), str) and body.get("name") else "pasted text"
        name = Path(name).name[:120] or "pasted text"  # a label only: never opened
        obj = parse_upload(body["text"], name)
        if isinstance(obj, dict) and obj.get("format") == REVIEW_FORMAT:
            did = body.get("doc")
            doc = board.library.get(did) if did is not None else None
            if doc is None:
                raise WebError(f"{name}: a review: open its game record first, then add the review to it")
            await asyncio.to_thread(doc.attach_review, obj, name)
            return JSONResponse(doc.summary())
        doc = await asyncio.to_thread(board.open_object, obj, name)
        return JSONResponse(doc.summary())

    def doc_of(request: Request) -> Document:
        return board.library.get(request.path_params["did"])

    async def get_doc(request: Request) -> Response:
        return JSONResponse(doc_of(request).summary())

    async def get_node(request: Request) -> Response:
        doc = doc_of(request)
        return JSONResponse(await asyncio.to_thread(doc.view, request.path_params["nid"]))

    async def play_node(request: Request) -> Response:
        doc = doc_of(request)
        nid = request.path_params["nid"]
        body = await body_json(request)
        if not isinstance(body, dict) or set(body) not in ({"action"}, {"moves"}):  # exactly one of them
            raise WebError("expected {\"action\": ID} or {\"moves\": [\"text\", ...]}")
        if "action" in body:
            new = await asyncio.to_thread(doc.play, nid, body["action"])
        else:
            new = await asyncio.to_thread(doc.play_line, nid, body["moves"])
        return JSONResponse({"node": new, "doc": doc.summary()})

    async def position_file(request: Request) -> Response:
        doc = doc_of(request)
        nid = request.path_params["nid"]
        return _download(await asyncio.to_thread(doc.position_at, nid), f"position-{nid}.json")

    async def record_file(request: Request) -> Response:
        doc = doc_of(request)
        nid = request.path_params["nid"]
        return _download(await asyncio.to_thread(doc.record_at, nid), f"game-{nid}.json")

    async def add_review(request: Request) -> Response:
        doc = doc_of(request)
        body = await body_json(request)
        if not isinstance(body, dict) or not isinstance(body.get("text"), str):
            raise WebError("expected {\"name\": \"review.json\", \"text\": \"...\"}")
        name = Path(str(body.get("name") or "review")).name[:120]
        await asyncio.to_thread(doc.attach_review, parse_upload(body["text"], name), name)
        return JSONResponse(doc.summary())

    return [
        Route("/api/open", open_upload, methods=["POST"]),
        Route("/api/docs/{did}", get_doc),
        Route("/api/docs/{did}/nodes/{nid:int}", get_node),
        Route("/api/docs/{did}/nodes/{nid:int}/play", play_node, methods=["POST"]),
        Route("/api/docs/{did}/nodes/{nid:int}/position.json", position_file),
        Route("/api/docs/{did}/nodes/{nid:int}/record.json", record_file),
        Route("/api/docs/{did}/review", add_review, methods=["POST"]),
    ]


def _review_routes(board: Board) -> list[Route]:
    """``/api/docs/D/review/...``: a review of a document's game run from the page (:mod:`kwsearch.web.reviews`)."""

    async def start(request: Request) -> Response:
        doc = board.library.get(request.path_params["did"])
        body = await body_json(request)
        run = await asyncio.to_thread(board.reviews.start, doc, body)
        return JSONResponse(run.status())

    async def status(request: Request) -> Response:
        doc = board.library.get(request.path_params["did"])
        run = board.reviews.latest(doc)
        return JSONResponse(run.status() if run is not None else {"state": "none"})

    async def stop(request: Request) -> Response:
        doc = board.library.get(request.path_params["did"])
        await body_json(request)
        run = board.reviews.latest(doc)
        if run is None:
            raise WebError(f"{doc.name}: no review is running", 409)
        run.stop()
        return JSONResponse(run.status())

    async def download(request: Request) -> Response:
        doc = board.library.get(request.path_params["did"])
        run = board.reviews.finished(doc)
        name, kind = request.path_params["name"], request.path_params["kind"]
        if name != run.stem or kind not in ("json", "html"):
            raise WebError(f"no such file: the review's files are {run.stem}.review.json and .review.html", 404)
        if kind == "json":
            return _download(run.result, f"{run.stem}.review.json")
        return Response(run.html, media_type="text/html", headers={
            "Content-Disposition": f'attachment; filename="{run.stem}.review.html"',
            "X-Content-Type-Options": "nosniff"})

    return [
        Route("/api/docs/{did}/review/start", start, methods=["POST"]),
        Route("/api/docs/{did}/review/status", status),
        Route("/api/docs/{did}/review/stop", stop, methods=["POST"]),
        Route("/api/docs/{did}/review/{name}.review.{kind:str}", download),
    ]


def _analysis_routes(board: Board) -> list[Route]:
    """``/api/analysis``: live analyses (and hints) of a document's node or a game, as server-sent events."""
    config = board.config

    async def analysis(request: Request) -> Response:
        from sse_starlette.sse import EventSourceResponse
        body = await body_json(request)
        if not isinstance(body, dict) or set(body) - {"doc", "node", "game", "hint"}:
            raise WebError("expected {\"doc\": D, \"node\": N} or {\"game\": G}")
        hint = body.get("hint", False)  # a hint for the game's human seat, as play's '?' (engine_bridge)
        if not isinstance(hint, bool) or (hint and "game" not in body):
            raise WebError("hint: expected true or false, and only with {\"game\": G}")
        if "game" in body:
            game = board.games.get(body["game"])
            state, label = game.state, f"game {game.id}"
            seat = game.screen_seat()
        else:
            doc = board.library.get(body.get("doc"))
            state, label = await asyncio.to_thread(doc.state, body.get("node")), f"{doc.name} node {body['node']}"
            seat = None
        if state.is_terminal():
            raise WebError("the game is over here: there is nothing to analyse", 409)
        position = state.observation(seat)  # the deciding seat's information set: no deck order
        an = board.analyses.start(position, board.next_seed("analysis"), label,
                                  config.hint_iterations if hint else None)

        async def events():
            try:
                yield {"event": "start", "data": json.dumps({"id": an.id, "mover": state.current_player(),
                                                             "seconds": config.analysis_seconds})}
                # aclosing: on a disconnect the pipe's reader is removed here, before the pipe is closed
                async with contextlib.aclosing(an.messages()) as messages:
                    async for kind, payload in messages:
                        yield {"event": kind, "data": json.dumps(payload if kind != "error" else {"error": payload})}
            finally:
                an.close_in_background()

        return EventSourceResponse(events(), ping=10, sep="\n", headers={"Cache-Control": "no-store"})

    async def stop_analysis(request: Request) -> Response:
        board.analyses.get(request.path_params["aid"]).stop()
        return JSONResponse({"stopped": request.path_params["aid"]})

    return [
        Route("/api/analysis", analysis, methods=["POST"]),
        Route("/api/analysis/{aid}/stop", stop_analysis, methods=["POST"]),
    ]


def _game_routes(board: Board) -> list[Route]:
    """``/api/games/...``: games against bots and mirror games, the games folder's files, a game explored."""
    config = board.config

    async def list_games(request: Request) -> Response:
        files = await asyncio.to_thread(board.games.files)
        games = [{"id": g.id, "file": g.session.path.name, "seats": g.session.seats, "mirror": g.session.mirror,
                  "over": g.state.is_terminal()} for g in board.games.games.values()]
        return JSONResponse({"games": games, "files": files, "folder": str(config.games_dir)})

    async def new_game(request: Request) -> Response:
        body = await body_json(request)
        if isinstance(body, dict):
            refuse_file_options(body.get("seats"))  # before the seats are parsed: nothing is looked up
            refuse_many_workers(body.get("seats"))
        game = await asyncio.to_thread(board.games.create, body)
        return JSONResponse(await asyncio.to_thread(game.view))

    async def resume_game(request: Request) -> Response:
        body = await body_json(request)
        game = await asyncio.to_thread(board.games.resume, body)
        return JSONResponse(await asyncio.to_thread(game.view))

    def game_of(request: Request):
        return board.games.get(request.path_params["gid"])

    async def get_game(request: Request) -> Response:
        return JSONResponse(await asyncio.to_thread(game_of(request).view))

    async def decide(request: Request) -> Response:
        game = game_of(request)
        body = await body_json(request)
        return JSONResponse(await asyncio.to_thread(game.decide, body))

    async def advance(request: Request) -> Response:
        game = game_of(request)
        await body_json(request)
        return JSONResponse(await asyncio.to_thread(game.advance))

    async def undo(request: Request) -> Response:
        game = game_of(request)
        await body_json(request)
        return JSONResponse(await asyncio.to_thread(game.undo))

    async def game_record(request: Request) -> Response:
        game = game_of(request)
        return _download(game.record_for_download(), game.session.path.name)

    async def explore_game(request: Request) -> Response:
        """The game's moves as a document: the record with another seed, so that what-if
        draws never come from the real deck."""
        game = game_of(request)
        await body_json(request)
        rec = game.record_for_download()
        live = not game.state.is_terminal() and not game.session.mirror
        if live:
            rec["seed"] = board.next_seed("explore")
        rec.pop("result", None)
        doc = await asyncio.to_thread(board.open_object, rec, game.session.path.name)
        doc.save_seed = not live  # a running game's document is saved without a seed, as the game is
        if game.state.is_terminal():
            doc.game_file = game.session.path  # its review from the page shares kwsearch review's cache
        return JSONResponse(doc.summary())

    return [
        Route("/api/games", list_games),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games/resume", resume_game, methods=["POST"]),
        Route("/api/games/{gid}", get_game),
        Route("/api/games/{gid}/decide", decide, methods=["POST"]),
        Route("/api/games/{gid}/advance", advance, methods=["POST"]),
        Route("/api/games/{gid}/undo", undo, methods=["POST"]),
        Route("/api/games/{gid}/record.json", game_record),
        Route("/api/games/{gid}/explore", explore_game, methods=["POST"]),
    ]


async def _web_error(request: Request, exc: Exception) -> Response:
    status = exc.status if isinstance(exc, WebError) else 400
    return _error(str(exc), status)


async def _http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own refusals (no such route, a method the route does not take), as JSON."""
    status = getattr(exc, "status_code", 400)
    return _error(str(getattr(exc, "detail", "") or "bad request").splitlines()[0], status)


async def _server_error(request: Request, exc: Exception) -> Response:
    return _error(f"internal error: {type(exc).__name__}: {exc}", 500)


def _lifespan(board: Board):
    """The app's lifespan: the analysis processes warmed up at start, all closed at the end."""
    @contextlib.asynccontextmanager
    async def lifespan(app):
        await asyncio.to_thread(board.analyses.warm_up)
        try:
            yield
        finally:
            await asyncio.to_thread(board.reviews.close_all)
            await asyncio.to_thread(board.analyses.close_all)
    return lifespan
