"""Played matches as files: the record model (``model.py``), the Jellyfish / GamesGrid ``.mat``
text (``mat.py``) and the replay that checks every move with the move generator
(``replay.py``)."""
