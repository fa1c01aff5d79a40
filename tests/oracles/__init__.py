"""Test oracles: slow, readable second implementations that the tests compare the compiled
core with. Not part of the package (production code never imports them); tests import them
as ``oracles.backgammon`` and ``oracles.variants`` through pytest's ``pythonpath``."""
