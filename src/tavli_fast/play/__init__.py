"""Playing and judging: the players, the neural net, the bear-off databases, the cube
(R21-R25), the match equity table, hints and whole simulated games."""
