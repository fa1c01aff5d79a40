"""The cache of answered evaluations and hints: a repeated request is answered without the
engine and with the same document; only 200 answers are kept; its memory is bounded; the
token is still needed."""

from __future__ import annotations

import asyncio
import json

import pytest

pytest.importorskip("fastapi", reason="the [serve] extra (in the test extra) is not installed")

from fastapi.testclient import TestClient  # noqa: E402

import tavli_fast.serve.app as served_app  # noqa: E402
from tavli_fast.serve.app import ServeConfig, create_app  # noqa: E402
from tavli_fast.serve.cache import CachedDocuments  # noqa: E402

HINT = {"position": "start", "dice": "31", "ply": 0}


@pytest.fixture
def calls(monkeypatch) -> list[tuple]:
    """The server's hint_report, counting its calls."""
    made: list[tuple] = []
    real = served_app.hint_report

    def counted(*args, **kwargs):
        made.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(served_app, "hint_report", counted)
    return made


def test_a_repeated_hint_is_answered_from_the_cache(calls):
    with TestClient(create_app(ServeConfig())) as c:
        first = c.post("/v1/hint", json=HINT)
        again = c.post("/v1/hint", json=HINT)
        other = c.post("/v1/hint", json={**HINT, "dice": "42"})
    assert first.status_code == again.status_code == other.status_code == 200
    assert again.content == first.content and again.json()["plays"][0]["play"] == "8/5 6/5"
    assert other.json()["dice"] == [4, 2]
    assert len(calls) == 2          # the first and the other; the repeat from the cache


def test_without_a_cache_every_request_is_computed(calls):
    with TestClient(create_app(ServeConfig(cache_bytes=0))) as c:
        docs = [c.post("/v1/hint", json=HINT).json() for _ in range(3)]
    assert docs[0] == docs[1] == docs[2] and len(calls) == 3


def test_refused_requests_are_not_kept(calls):
    bad = {"position": "start", "dice": "31", "ply": 3}
    with TestClient(create_app(ServeConfig())) as c:
        answers = [c.post("/v1/hint", json=bad) for _ in range(2)]
    assert [a.status_code for a in answers] == [400, 400] and len(calls) == 2
    assert all("ply" in a.json()["error"] for a in answers)


def test_a_cached_answer_still_needs_the_token():
    with TestClient(create_app(ServeConfig(token="s3cret"))) as c:
        ok = c.post("/v1/hint", json=HINT, headers={"Authorization": "Bearer s3cret"})
        assert ok.status_code == 200
        refused = c.post("/v1/hint", json=HINT)
        assert refused.status_code == 401 and refused.json()["error"]


async def _answer(scope: dict, receive, send) -> None:
    """A stand-in application: echoes the body, 1,000 bytes of it, 200 (400 for b'bad')."""
    body = (await receive())["body"]
    status = 400 if body == b"bad" else 200
    await send({"type": "http.response.start", "status": status, "headers": []})
    await send({"type": "http.response.body", "body": body * (1000 // max(1, len(body)))})


def _post(cache: CachedDocuments, body: bytes, path: str = "/v1/hint") -> tuple[int, bytes]:
    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    asyncio.run(cache({"type": "http", "method": "POST", "path": path}, receive, send))
    return sent[0]["status"], b"".join(m.get("body", b"") for m in sent[1:])


def test_the_cache_holds_at_most_its_bytes_and_drops_the_least_used():
    cache = CachedDocuments(_answer, frozenset({"/v1/hint"}), max_bytes=3500)
    for k in range(10):
        assert _post(cache, b"%04d" % k)[0] == 200
        assert cache.held <= 3500
    assert len(cache._answers) == 3
    _post(cache, b"0007")                   # used again: the newest
    _post(cache, b"0010")
    assert {body for _, body in cache._answers} == {b"0009", b"0007", b"0010"}
    before = cache.hits
    assert _post(cache, b"0007") == (200, b"0007" * 250) and cache.hits == before + 1


def test_only_its_paths_and_200_answers_are_kept():
    cache = CachedDocuments(_answer, frozenset({"/v1/hint"}), max_bytes=10**6)
    assert _post(cache, b"bad")[0] == 400
    _post(cache, b"good", path="/v1/rollouts")
    assert len(cache._answers) == 0 and cache.held == 0
    _post(cache, json.dumps(HINT).encode())
    assert len(cache._answers) == 1
