"""The core's Position ID decoder (a fast reading of well-formed keys, a point-by-point one
for the rest) against a pure-Python decoder written from the spec in RULES.md: an 80-bit key,
the player not on roll first, per point 1..25 as many 1 bits as checkers then a 0 bit,
little-endian bit order, base64 without padding."""

from __future__ import annotations

import numpy as np

from tavli_fast import _core
from tavli_fast.game.position import Position

B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def text_of_key(key: int) -> str:
    data = key.to_bytes(10, "little") + b"\0\0"
    out = ""
    for i in range(4):
        v = int.from_bytes(data[3 * i:3 * i + 3], "big")
        out += "".join(B64[(v >> s) & 63] for s in (18, 12, 6, 0))
    return out[:14]


def reference_decode(text: str) -> tuple[np.ndarray | None, int]:
    """(board, 0) or (None, error code), the codes and their precedence as documented in
    _posid.pxi: 1 bad character, 5 padding bits, then reading side by side 3/7 (more than
    15 checkers), 2 (the key ends first), then 8 (bits after the key), 4 (both colours on a
    point), 6 (both sides borne off)."""
    if any(c not in B64 for c in text):
        return None, 1
    bits = "".join(format(B64.index(c), "06b") for c in text)      # 84 bits, 4 of padding
    if "1" in bits[80:]:
        return None, 5
    data = bytes(int(bits[8 * i:8 * i + 8], 2) for i in range(10))
    key = int.from_bytes(data, "little")
    board = np.zeros((2, 26), dtype=np.int8)
    used = 0
    for side in (1, 0):
        total = 0
        for point in range(1, 26):
            n = 0
            while (key >> (used + n)) & 1 and used + n < 80:
                n += 1
            total += n
            if total > 15:
                return None, 3 if side == 1 else 7
            used += n + 1
            if used > 80:
                return None, 2
            board[side, point] = n
        board[side, 0] = 15 - total
    if key >> used:
        return None, 8
    if any(board[0, p] and board[1, 25 - p] for p in range(1, 25)):
        return None, 4
    if board[0, 0] == 15 and board[1, 0] == 15:
        return None, 6
    return board, 0


def random_keys(n: int, seed: int) -> list[int]:
    """Keys near the well-formed ones: 28 to 32 one bits placed at random, so that every
    error of the reading (too many checkers, a short key, bits after the end) turns up."""
    rng = np.random.default_rng(seed)
    keys = []
    for _ in range(n):
        ones = rng.choice(80, size=int(rng.integers(26, 33)), replace=False)
        keys.append(sum(1 << int(q) for q in ones))
    return keys


def test_position_ids_of_random_games_decode_as_the_reference_says():
    rng = np.random.default_rng(4)
    board = Position.initial().board
    for _ in range(3000):
        text = Position.from_board(board).position_id()
        got, err = _core.decode_position_id(text)
        want, want_err = reference_decode(text)
        assert err == want_err == 0
        np.testing.assert_array_equal(got, want)
        plays = _core.generate(board, *(int(d) for d in rng.integers(1, 7, 2)))
        after = plays[rng.integers(len(plays))]
        board = Position.initial().board if after[0, 0] == 15 else np.ascontiguousarray(after[::-1])


def test_malformed_and_random_keys_get_the_references_error_codes():
    codes = set()
    for key in random_keys(6000, seed=9):
        text = text_of_key(key)
        got, err = _core.decode_position_id(text)
        want, want_err = reference_decode(text)
        assert err == want_err, text
        if err == 0:
            np.testing.assert_array_equal(got, want)
        codes.add(err)
    # (Code 2 cannot occur in 80 bits: 31 or more 1 bits give one side 16 checkers first.)
    assert {0, 3, 4, 7, 8} <= codes      # every other reading error was met
