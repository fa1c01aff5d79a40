"""``tavli-serve``: the engine over HTTP (the ``[serve]`` extra: FastAPI and uvicorn).

    tavli-serve                          # http://127.0.0.1:8000/ : the board page; /docs: the API
    tavli-serve --port 9000 --jobs 2 --max-running 4
    tavli-serve --host 0.0.0.0 --token S3CRET   # other machines: say so, and guard it

It binds 127.0.0.1 unless ``--host`` says otherwise (then it warns: anyone who reaches the
port can run jobs; give ``--token``). SIGINT and SIGTERM cancel the running jobs (each keeps
its partial result), wait for them and their worker processes, and stop.

Exit status: 0 stopped; 2 bad usage (one line on stderr).
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
from typing import Any, Iterator, Sequence

import uvicorn

from ..checks import MAX_COUNT
from .app import ServeConfig, create_app

__all__ = ["main", "build_parser"]

PROG = "tavli-serve"
LOOPBACK = ("127.0.0.1", "localhost", "::1")


def _positive(kind: type) -> Any:
    def parse(text: str) -> Any:
        try:
            value = kind(float(text)) if kind is int and "e" in text.lower() else kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not value > 0:
            raise argparse.ArgumentTypeError(f"must be more than 0, got {text!r}")
        return value
    return parse


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is from 0 to 65535, not {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description="Serve the tavli_fast engine over HTTP: "
                                "a JSON API under /v1 (OpenAPI at /docs) and a board page at /.")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to bind (default 127.0.0.1; another one prints a warning)")
    p.add_argument("--port", type=_port, default=8000, help="port (default 8000; 0: any free one)")
    p.add_argument("--token", default=None,
                   help="require 'Authorization: Bearer TOKEN' (or ?token=TOKEN) on every request")
    p.add_argument("--jobs", "-j", type=_positive(int), default=None, metavar="N",
                   help="worker processes a rollout job (default: the CPUs available)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="run the rollout jobs on a Dask cluster (the [dask] extra)")
    p.add_argument("--max-running", type=_positive(int), default=2, metavar="N",
                   help="rollout jobs running at once; more are refused with 429 (default 2)")
    p.add_argument("--max-trials", type=_positive(int), default=10**9, metavar="N",
                   help="trials a request at most (default 1e9)")
    p.add_argument("--max-body", type=_positive(int), default=64 * 1024, metavar="BYTES",
                   help="request body size at most; larger ones get 413 (default 65536)")
    p.add_argument("--keep", type=_positive(float), default=3600.0, metavar="SECONDS",
                   help="how long a finished job's result is kept (default 3600)")
    p.add_argument("--cache-mib", type=float, default=32.0, metavar="MIB",
                   help="memory for the answers of repeated /v1/eval and /v1/hint requests "
                   "(the same body, the same document; default 32; 0: no cache)")
    p.add_argument("--log-level", default="warning",
                   choices=("critical", "error", "warning", "info", "debug"))
    return p


class _Server(uvicorn.Server):
    """uvicorn's server that, on SIGINT / SIGTERM, first cancels the running jobs: their event
    streams then end, so the graceful shutdown does not wait on them."""

    def __init__(self, config: uvicorn.Config, jobs: Any):
        super().__init__(config)
        self.jobs = jobs

    async def startup(self, sockets: Any = None) -> None:
        await super().startup(sockets)
        for server in self.servers:
            for sock in server.sockets:
                host, port = sock.getsockname()[:2]
                print(f"{PROG}: serving on http://{host}:{port}/ (API docs: /docs)",
                      file=sys.stderr, flush=True)

    def handle_exit(self, sig: int, frame: Any) -> None:
        self.jobs.cancel_all()
        super().handle_exit(sig, frame)

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        """SIGINT and SIGTERM stop the server gracefully (a second one at once); a stop asked
        for ends the command with status 0 (uvicorn's own would raise the signal again)."""
        stops = (signal.SIGINT, signal.SIGTERM)
        previous = {sig: signal.signal(sig, self.handle_exit) for sig in stops}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``tavli-serve``; returns the exit status."""
    args = build_parser().parse_args(argv)
    if args.jobs is not None and args.scheduler is not None:
        print(f"{PROG}: error: --jobs cannot be used with --scheduler", file=sys.stderr)
        return 2
    if not args.cache_mib >= 0:
        print(f"{PROG}: error: --cache-mib must be 0 or more", file=sys.stderr)
        return 2
    if args.max_trials > MAX_COUNT:
        print(f"{PROG}: error: --max-trials is at most {MAX_COUNT:,}", file=sys.stderr)
        return 2
    if args.host not in LOOPBACK:
        print(f"{PROG}: warning: serving on {args.host}: whoever reaches this port can run "
              f"jobs on this machine{'' if args.token else '; give --token'}", file=sys.stderr)
    app = create_app(ServeConfig(jobs=args.jobs, scheduler=args.scheduler, token=args.token,
                                 max_body_bytes=args.max_body, max_trials=args.max_trials,
                                 max_running=args.max_running, keep_s=args.keep,
                                 cache_bytes=int(args.cache_mib * 2**20)))
    # No access log: a line a request costs a hint a good part of its time. uvicorn takes
    # httptools and uvloop (the [serve] extra) when they are installed.
    config = uvicorn.Config(app, host=args.host, port=args.port, log_level=args.log_level,
                            access_log=False,
                            timeout_graceful_shutdown=5)
    server = _Server(config, app.state.jobs)
    try:
        server.run()
    except OSError as e:        # the address cannot be bound (in use, not this machine's)
        print(f"{PROG}: error: {' '.join(str(e).split())}", file=sys.stderr)
        return 2
    return 0 if server.started else 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
