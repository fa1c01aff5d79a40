"""A bounded cache of ``tavli-serve``'s answered documents (``/v1/eval``, ``/v1/hint``).

An evaluation or a hint has no seed and no state: the same request body always gets the same
document, the one the command prints. ``CachedDocuments`` (ASGI middleware, inside the token
and body-size guard) keeps the answers of the last requests, keyed by the path and the body's
exact bytes, and answers a repeated request with the stored bytes: no validation, no engine
call, no JSON encoding. Only ``200`` answers are kept; the oldest used are dropped past
``max_bytes`` (bodies and answers counted). ``max_bytes`` 0: no cache.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Awaitable, Callable

__all__ = ["CachedDocuments"]

Receive = Callable[[], Awaitable[dict]]
Send = Callable[[dict], Awaitable[None]]


class CachedDocuments:
    """ASGI middleware: repeated ``POST`` bodies to ``paths`` answered from a bounded LRU."""

    def __init__(self, app: Any, paths: frozenset[str], max_bytes: int):
        self.app = app
        self.paths = paths
        self.max_bytes = max_bytes
        self.held = 0
        self.hits = 0
        self._answers: OrderedDict[tuple[str, bytes], tuple[list, bytes]] = OrderedDict()

    async def __call__(self, scope: dict, receive: Receive, send: Send) -> None:
        if (self.max_bytes <= 0 or scope["type"] != "http" or scope["method"] != "POST"
                or scope["path"] not in self.paths):
            return await self.app(scope, receive, send)
        body = await _whole_body(receive)
        if body is None:                # the client went away: nobody to answer
            return
        key = (scope["path"], body)
        answer = self._answers.get(key)
        if answer is not None:
            self._answers.move_to_end(key)
            self.hits += 1
            headers, content = answer
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send({"type": "http.response.body", "body": content})
            return
        start: dict = {}
        chunks: list[bytes] = []

        async def replay() -> dict:
            nonlocal body
            if body is None:            # read once: then whatever the client says next
                return await receive()
            message, body = {"type": "http.request", "body": body, "more_body": False}, None
            return message

        async def keep(message: dict) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
                if not message.get("more_body", False) and start.get("status") == 200:
                    self._store(key, list(start.get("headers", [])), b"".join(chunks))
            await send(message)

        await self.app(scope, replay, keep)

    def _store(self, key: tuple[str, bytes], headers: list, content: bytes) -> None:
        size = len(key[1]) + len(content)
        if size > self.max_bytes or key in self._answers:
            return
        self._answers[key] = (headers, content)
        self.held += size
        while self.held > self.max_bytes:
            (_, old_body), (_, old_content) = self._answers.popitem(last=False)
            self.held -= len(old_body) + len(old_content)


async def _whole_body(receive: Receive) -> bytes | None:
    """The request's body, all its chunks (the guard outside bounds its size); None if the
    client disconnects first."""
    chunks = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks)
