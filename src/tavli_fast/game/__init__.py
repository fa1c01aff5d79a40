"""Backgammon and Portes positions: the board and its context, ids (Position ID, XGID,
Match ID), the move generator's Python face and play notation (RULES.md R1-R20)."""
