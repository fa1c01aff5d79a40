"""The analysis of played matches (issue 53): every checker play and cube decision of a
``.mat`` file evaluated by the engine (``decisions.py``), the marks and ratings
(``thresholds.py``), the players' and games' figures and the report (``report.py``)."""
