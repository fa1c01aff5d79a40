"""``tavli-serve``'s web application: the JSON API under ``/v1``, the board page at ``/`` and
its files under ``/static`` (all shipped in the package: the page needs no network).

Every answer comes from the functions the commands call for their ``--json`` documents
(``play/reports.py``, ``jobs/options.py``, ``tavli_fast.api``); this module only reads
requests, answers them, and guards the server (body size, trials, running jobs, token);
``cache.py`` answers repeated evaluations and hints.
Every error is a 4xx with a one-line ``{"error": ...}``.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import re
import sys
import time
from html import escape as html_escape
from dataclasses import dataclass
from importlib import resources
from typing import Any, AsyncIterator, Awaitable, Callable
from urllib.parse import quote, unquote

from fastapi import FastAPI, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import (FileResponse, HTMLResponse, JSONResponse, Response,
                               StreamingResponse)
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from swagger_ui_bundle import swagger_ui_path

from .._version import __version__
from ..api import openings, public_settings, rollout, rollout_plays
from ..checks import check_count
from ..jobs.options import (check_plays_options, finish_plays_settings, finish_rollout_settings,
                            openings_settings, plays_settings, rollout_settings, wants_plays)
from ..jobs.plays import parse_dice
from ..play.neural import evaluator
from ..play.reports import eval_report, hint_report
from .cache import CachedDocuments
from .jobs import Busy, JobRegistry, ServedJob
from .schemas import EvalBody, HintBody, OpeningsBody, RolloutBody

__all__ = ["ServeConfig", "create_app"]

#: Seconds between two progress events of a stream at most (it sends one whenever the job
#: reports, and at least this often).
EVENT_INTERVAL_S = 1.0
#: Seconds a request waits for a new job to be refused by the engine (bad input) before it
#: answers 202.
START_CHECK_S = 1.0


@dataclass(frozen=True)
class ServeConfig:
    """The server's limits and where its jobs run: ``jobs`` local worker processes a job
    (None: one per CPU) or a Dask ``scheduler``; ``token``: the bearer token every request
    must carry (None: none needed); ``cache_bytes``: the evaluations and hints answered kept
    for repeated requests (``cache.py``; 0: none)."""

    jobs: int | None = None
    scheduler: str | None = None
    token: str | None = None
    max_body_bytes: int = 64 * 1024
    max_trials: int = 10**9
    max_running: int = 2
    keep_s: float = 3600.0
    max_kept: int = 1000
    cache_bytes: int = 32 * 2**20


class ApiError(Exception):
    """A refused request: its HTTP status and one line."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status = status
        self.headers = headers or {}


def _one_line(error: object) -> str:
    return " ".join(str(error).split()) or type(error).__name__


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": _one_line(message)}, status_code=status, headers=headers)


def _static(name: str) -> str:
    return str(resources.files(__package__).joinpath("static", name))


# ------------------------------------------------------------------------ the guards

class _Guard:
    """ASGI middleware: the bearer token (header ``Authorization: Bearer T`` or, for the page
    and its event streams, ``?token=T``) and the body size limit (413)."""

    def __init__(self, app: Any, config: ServeConfig):
        self.app = app
        self.config = config

    async def __call__(self, scope: dict, receive: Callable[[], Awaitable[dict]],
                       send: Callable[[dict], Awaitable[None]]) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if self.config.token is not None and not self._authorised(scope, headers):
            return await _error(401, "a bearer token is needed (Authorization: Bearer TOKEN)",
                                {"WWW-Authenticate": "Bearer"})(scope, receive, send)
        limit = self.config.max_body_bytes
        try:
            declared = int(headers.get("content-length", "0"))
        except ValueError:
            return await _error(400, "bad Content-Length")(scope, receive, send)
        if declared > limit:
            return await _error(413, f"the body is over {limit} bytes")(scope, receive, send)
        seen = 0

        async def bounded() -> dict:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > limit:
                raise _TooLarge()
            return message

        try:
            await self.app(scope, bounded, send)
        except _TooLarge:
            await _error(413, f"the body is over {limit} bytes")(scope, receive, send)

    def _authorised(self, scope: dict, headers: dict[str, str]) -> bool:
        token = (self.config.token or "").encode()
        given = headers.get("authorization", "")
        if given.lower().startswith("bearer ") and hmac.compare_digest(
                given[7:].strip().encode("utf-8", "replace"), token):
            return True
        query = scope.get("query_string", b"").decode("latin-1")
        for part in query.split("&"):
            if part.startswith("token=") and hmac.compare_digest(
                    unquote(part[6:]).encode("utf-8", "replace"), token):
                return True
        return False


class _TooLarge(Exception):
    pass


# ------------------------------------------------------------------------ the rollout jobs

def _check_counts(options: dict[str, Any], config: ServeConfig) -> None:
    """The counts of a job's options as whole numbers (``1e4`` is 10000); the trials capped."""
    for name in ("trials", "min_trials", "chunk_size", "truncate_plies", "screen_trials"):
        if name in options:
            options[name] = check_count(options[name], name)
    if options.get("trials", 0) > config.max_trials:
        raise ApiError(400, f"trials {options['trials']:,} is over this server's limit of "
                       f"{config.max_trials:,} a request")


def _executor(config: ServeConfig) -> dict[str, Any]:
    """Where the server's jobs run: its Dask scheduler, or its local worker processes."""
    return {"scheduler": config.scheduler} if config.scheduler is not None else {"jobs": config.jobs}


def _options(body: RolloutBody | OpeningsBody, config: ServeConfig) -> dict[str, Any]:
    """A job body as the command's options: ``rules`` plakoto / fevga is ``--game``, counts
    whole numbers, trials capped."""
    options = body.model_dump(exclude_none=True)
    if options.get("rules") in ("plakoto", "fevga"):
        options["game"] = options.pop("rules")
    _check_counts(options, config)
    return options


def _rollout_run(body: RolloutBody, config: ServeConfig) -> tuple[str, Callable[..., Any]]:
    """(kind, run): the job ``tavli-rollout`` would run for these options, its settings built
    by ``jobs/options.py`` as the command builds them."""
    options = _options(body, config)
    if isinstance(options.get("dice"), list):
        options["dice"] = parse_dice(options["dice"])
    executor = _executor(config)
    if wants_plays(options):
        check_plays_options(options)
        settings = finish_plays_settings(plays_settings(options), options)
        function, kind = rollout_plays, "plays"
    else:
        settings = finish_rollout_settings(rollout_settings(options))
        function, kind = rollout, "rollout"
    keywords = public_settings(settings, executor)
    return kind, lambda progress, cancel: function(**keywords, progress=progress, cancel=cancel)


def _openings_run(body: OpeningsBody, config: ServeConfig) -> Callable[..., Any]:
    """The job ``tavli-openings`` would run for these options (``jobs/options.py``)."""
    keywords = public_settings(openings_settings(_options(body, config)), _executor(config))
    return lambda progress, cancel: openings(**keywords, progress=progress, cancel=cancel)


async def _started(registry: JobRegistry, kind: str, run: Callable[..., Any]) -> ServedJob:
    """Start the job; a job the engine refuses at once (bad input) is an ApiError 400."""
    try:
        job = registry.start(kind, run)
    except Busy as e:
        raise ApiError(429, str(e), {"Retry-After": str(e.retry_after_s)}) from None
    deadline = time.monotonic() + START_CHECK_S
    while job.status == "running" and job.progress is None and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    if job.status == "failed":
        raise ApiError(400, job.error or "the job was refused")
    return job


def _event(name: str, data: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data, allow_nan=False)}\n\n".encode()


async def _events(job: ServedJob) -> AsyncIterator[bytes]:
    """A job's Server-Sent Events: ``progress`` whenever it reports and at least once a
    second, then ``result`` with its final document."""
    sent, last = -1, 0.0
    while True:
        status = job.status
        now = time.monotonic()
        if status != "running":
            yield _event("result", job.snapshot())
            return
        if job.updates != sent or now - last >= EVENT_INTERVAL_S:
            sent, last = job.updates, now
            yield _event("progress", {"id": job.id, "status": status,
                                      "elapsed_s": now - job.started, "progress": job.progress})
        await asyncio.sleep(0.1)


# ------------------------------------------------------------------------ the application

def create_app(config: ServeConfig | None = None) -> FastAPI:
    """The application: the API, the page, the guards and the job registry
    (``app.state.jobs``), whose running jobs are cancelled and awaited at shutdown."""
    config = config or ServeConfig()
    registry = JobRegistry(max_running=config.max_running, keep_s=config.keep_s,
                           max_kept=config.max_kept)

    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # The net and the bear-off databases are loaded (built on first use) before the first
        # request, not during it.
        await asyncio.get_running_loop().run_in_executor(None, evaluator)
        yield
        stopped = await asyncio.get_running_loop().run_in_executor(None, registry.shutdown)
        print(f"tavli-serve: stopped; {registry.cancelled_at_close} running job(s) cancelled"
              + ("" if stopped else ", some still running after 10 s"), file=sys.stderr, flush=True)

    app = FastAPI(title="tavli-serve", version=__version__, lifespan=lifespan,
                  docs_url=None, redoc_url=None,
                  description="The tavli_fast engine over HTTP: the documents of tavli-eval, "
                  "tavli-hint, tavli-rollout and tavli-openings --json; rollouts and opening "
                  "statistics as jobs with live progress (Server-Sent Events) and cancel.")
    # The shipped Swagger UI (swagger-ui-bundle's 4.x) reads OpenAPI 3.0 documents only.
    app.openapi_version = "3.0.2"
    app.state.jobs = registry
    app.state.config = config
    # Added first, so inside the guard: a cached answer still needs the token.
    app.add_middleware(CachedDocuments, paths=frozenset({"/v1/eval", "/v1/hint"}),
                       max_bytes=config.cache_bytes)
    app.add_middleware(_Guard, config=config)
    app.mount("/static", StaticFiles(directory=_static("")), name="static")
    # The API page's files come with the swagger-ui-bundle package: no CDN.
    app.mount("/swagger", StaticFiles(directory=str(swagger_ui_path)), name="swagger")

    @app.exception_handler(ApiError)
    async def refused(request: Request, e: ApiError) -> JSONResponse:
        return _error(e.status, str(e), e.headers)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, e: RequestValidationError) -> JSONResponse:
        first = e.errors()[0] if e.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
        message = first.get("msg", "invalid request")
        return _error(422, f"{where}: {message}" if where else message)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, e: StarletteHTTPException) -> JSONResponse:
        return _error(e.status_code, str(e.detail), getattr(e, "headers", None))

    @app.exception_handler(ValueError)
    async def bad_value(request: Request, e: ValueError) -> JSONResponse:
        return _error(400, str(e))

    @app.exception_handler(TypeError)
    async def bad_type(request: Request, e: TypeError) -> JSONResponse:
        return _error(400, str(e))

    @app.get("/", include_in_schema=False)
    def page(request: Request) -> Response:
        token = request.query_params.get("token")
        if not token:
            return FileResponse(_static("index.html"), media_type="text/html")
        # Behind a token (the guard has checked it) the page's own files need it too.
        with open(_static("index.html"), encoding="utf-8") as f:
            html = f.read()
        query = html_escape(f"?token={quote(token, safe='')}")
        html = re.sub(r'((?:src|href)="(?:static/[^"]+|docs))"', rf'\1{query}"', html)
        return HTMLResponse(html)

    @app.get("/docs", include_in_schema=False)
    def docs(request: Request) -> HTMLResponse:
        token = request.query_params.get("token")
        query = f"?token={token}" if token else ""
        return get_swagger_ui_html(openapi_url=f"openapi.json{query}", title="tavli-serve API",
                                   swagger_js_url=f"swagger/swagger-ui-bundle.js{query}",
                                   swagger_css_url=f"swagger/swagger-ui.css{query}",
                                   swagger_favicon_url=f"swagger/favicon-32x32.png{query}")

    @app.get("/v1/health")
    def health() -> dict[str, Any]:
        """Whether the server is up, its version and its running jobs."""
        return {"status": "ok", "version": __version__, "jobs_running": registry.running(),
                "max_running": config.max_running}

    # The documents are plain JSON already: answered as they are (no response model to check
    # them against, no encoder pass over them), which saves a hint a good part of its time.
    @app.post("/v1/eval", response_class=JSONResponse)
    async def evaluate(body: EvalBody) -> JSONResponse:
        """``tavli-eval --json``: the net's probabilities, equity and cube analysis."""
        game = _game(body)
        ply = {} if body.ply is None else {"ply": body.ply}
        return JSONResponse(await _computed(
            lambda: eval_report(body.position, game=game, evaluator=body.evaluator, **ply),
            inline=not body.ply))

    @app.post("/v1/hint", response_class=JSONResponse)
    async def hint(body: HintBody) -> JSONResponse:
        """``tavli-hint --json``: the plays of the roll, or the cube analysis before it."""
        game = _game(body)
        dice = parse_dice(body.dice) if body.dice is not None else None
        top = {} if body.top is None else {"top": body.top}
        return JSONResponse(await _computed(
            lambda: hint_report(body.position, dice, game=game, ply=body.ply,
                                evaluator=body.evaluator, **top),
            inline=body.ply == 0 and game is None))

    @app.post("/v1/rollouts", status_code=202)
    async def start_rollout(body: RolloutBody) -> dict[str, Any]:
        """Start a rollout job (``tavli-rollout --json``); 202 with its ``id``."""
        kind, run = _rollout_run(body, config)
        job = await _started(registry, kind, run)
        return {"id": job.id, "kind": kind, "status": job.status}

    def _job(job_id: str, kinds: tuple[str, ...]) -> ServedJob:
        job = registry.get(job_id)
        if job is None or job.kind not in kinds:
            raise ApiError(404, f"no job {job_id!r} (unknown, or finished and dropped)")
        return job

    def job_routes(path: str, kinds: tuple[str, ...], command: str, noun: str) -> None:
        """GET, its events and DELETE of the jobs under ``path``."""

        @app.get(f"{path}/{{job_id}}", summary=f"{noun} job: status",
                 description=f"The job's status (running, done, cancelled, failed), progress and "
                 f"result (``{command} --json``; the partial one when cancelled).")
        def status(job_id: str) -> dict[str, Any]:
            return _job(job_id, kinds).snapshot()

        @app.get(f"{path}/{{job_id}}/events", summary=f"{noun} job: events",
                 description="Server-Sent Events: ``progress`` at least once a second, then "
                 "``result``.")
        def events(job_id: str) -> StreamingResponse:
            return StreamingResponse(_events(_job(job_id, kinds)), media_type="text/event-stream",
                                     headers={"Cache-Control": "no-cache"})

        @app.delete(f"{path}/{{job_id}}", summary=f"{noun} job: cancel",
                    description="Cancel the job; answers once it has stopped, with its partial "
                    "result.")
        async def cancel(job_id: str) -> dict[str, Any]:
            job = _job(job_id, kinds)
            job.cancel.set()
            deadline = time.monotonic() + 10.0
            while job.status == "running" and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
            return job.snapshot()

    job_routes("/v1/rollouts", ("rollout", "plays"), "tavli-rollout", "Rollout")

    @app.post("/v1/openings", status_code=202)
    async def start_openings(body: OpeningsBody) -> dict[str, Any]:
        """Start an opening statistics job (``tavli-openings --json``); 202 with its ``id``."""
        job = await _started(registry, "openings", _openings_run(body, config))
        return {"id": job.id, "kind": "openings", "status": job.status}

    job_routes("/v1/openings", ("openings",), "tavli-openings", "Opening statistics")

    return app


async def _computed(report: Callable[[], dict[str, Any]], inline: bool) -> dict[str, Any]:
    """A document built in the event loop (``inline``: a 0-ply answer, about a millisecond of
    Python that would hold the GIL in a worker thread just the same, and wait its turn there),
    or in the thread pool (the 1- and 2-ply searches, which release the GIL while they run)."""
    return report() if inline else await run_in_threadpool(report)


def _game(body: EvalBody) -> str | None:
    """The variant of an eval or hint body (``game``, or ``rules`` plakoto / fevga)."""
    if body.rules == "portes":
        raise ApiError(400, "eval and hint value backgammon positions (the cube, backgammons); "
                       "Portes is rolled out with /v1/rollouts and rules portes")
    variant = body.rules if body.rules in ("plakoto", "fevga") else None
    if body.game is not None and variant is not None and body.game != variant:
        raise ApiError(400, f"rules {body.rules!r} and game {body.game!r} disagree")
    return body.game or variant
