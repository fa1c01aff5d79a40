"""The marks and rating bands are GNU Backgammon's (the PyPI gnubg package as the oracle)."""

from __future__ import annotations

import re

import pytest

from tavli_fast.analysis.thresholds import BAD, DOUBTFUL, RATING_BANDS, VERY_BAD, rating

pytest.importorskip("gnubg")

from gnubg_cube import gnubg_output  # noqa: E402

# gnubg's error_rating answers 0 (awful) .. 7 (supernatural); the names of its bands.
_GNUBG_NAMES = ("Awful!", "Beginner", "Casual player", "Intermediate", "Advanced", "Expert",
                "World class", "Supernatural")


@pytest.mark.oracle
def test_mark_thresholds_are_gnubgs_defaults():
    text = gnubg_output("show analysis")
    found = {name: float(value) for value, name in
             re.findall(r"([-+]\d\.\d+) (doubtful|bad|very bad)\b", text)}
    assert found == {"doubtful": -DOUBTFUL, "bad": -BAD, "very bad": -VERY_BAD}


@pytest.mark.oracle
def test_rating_bands_are_gnubgs():
    import gnubg

    for i in range(0, 500):
        error = i / 10000 + 0.00005
        assert rating(error) == _GNUBG_NAMES[gnubg.error_rating(error)], error
    assert [name for _, name in RATING_BANDS][0] == "Expert"
