"""The long runs, one module a kind, each with its request, chunks and result: rollouts
(with the cube), opening statistics, matches, training targets."""
