"""A readable text form of Plakoto and Fevga positions, as users type them.

    x 24:13 13:2; o 24:14 12:1*

``x`` is the player on roll, ``o`` the opponent; each lists ``point:count`` in that side's
OWN numbering (24 = where its checkers start, 1-6 its home board), and a ``*`` after a
count marks that side's pinned checker on that point (Plakoto, P2: the side has one
checker there, under the other side's). Checkers not listed are borne off. ``variant_text``
writes the form, ``parse_variant_text`` reads it; ``variant_position`` accepts it wherever
it accepts a text id (every command with ``--game``). They live in ``position.py``, which
reads the form in ``variant_position``; this module is their name.
"""

from __future__ import annotations

from .position import looks_like_variant_text, parse_variant_text, variant_text

__all__ = ["looks_like_variant_text", "parse_variant_text", "variant_text"]
