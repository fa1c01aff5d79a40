"""Stratified (quasi-random) dice for the first rolls of rollout trials.

Like GNU Backgammon's quasi-random dice: every aligned block of trials plays
each first roll (and each pair of first two rolls) equally often, which removes
most of the luck of the opening rolls from a rollout's estimate.  The mapping
depends only on the master seed and the global trial index, never on how the
trials are cut into chunks.
"""

from __future__ import annotations

import numpy as np

__all__ = ["OPENING_ROLLS", "ORDERED_ROLLS", "STRATIFIED_ROLLS", "stratified_dice"]

#: The 15 opening rolls of R5 (no doubles), each with probability 1/15. Order does not matter.
OPENING_ROLLS: tuple[tuple[int, int], ...] = tuple(
    (high, low) for high in range(6, 0, -1) for low in range(high - 1, 0, -1)
)
#: The 36 equally likely ordered rolls of two dice.
ORDERED_ROLLS: tuple[tuple[int, int], ...] = tuple((a, b) for a in range(1, 7) for b in range(1, 7))

#: How many rolls after the forced ones (if any) are stratified: the first two, as in GNU Backgammon.
STRATIFIED_ROLLS = 2

# Entropy word that separates the stratification permutations from the chunk seeds.
_STRATA_DOMAIN = 0x5354524154  # "STRAT"




def _strata_tables(master_seed: int, first_strata: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Random permutations (fixed by the master seed) that map trial indices to strata.

    Returns (perm1 over the first roll's strata, offsets of the second roll per first stratum,
    perm2 over the 36 second-roll strata).
    """
    rng = np.random.default_rng(np.random.SeedSequence([master_seed, _STRATA_DOMAIN]))
    perm1 = rng.permutation(first_strata)
    offsets = rng.permutation(36)[:first_strata]
    perm2 = rng.permutation(36)
    return perm1, offsets, perm2


def stratified_dice(
    master_seed: int,
    first_trial: int,
    n: int,
    *,
    opening: bool = False,
    forced: tuple[int, int] | None = None,
) -> np.ndarray:
    """The forced dice (int8 ``[n, 2*k]``) of global trials ``first_trial ... first_trial+n-1``.

    The first stratified roll of trial ``t`` comes from stratum ``t mod S1`` (S1 = 15 opening
    rolls when ``opening``, else the 36 ordered rolls), the second from stratum
    ``(t // S1 + offset[t mod S1]) mod 36``, both through permutations fixed by the master seed.
    So every aligned block of S1 trials plays each first roll exactly once, and every aligned
    block of S1 x 36 trials plays each (first, second) pair exactly once. Each single trial's
    dice are still uniformly distributed over the master seed, so the estimate is unbiased for
    any number of trials. ``forced`` (dice already rolled in the position) fills the first
    column pair of every row; the two rolls after it are stratified.
    """
    first_rolls = OPENING_ROLLS if opening else ORDERED_ROLLS
    s1 = len(first_rolls)
    perm1, offsets, perm2 = _strata_tables(master_seed, s1)
    t = np.arange(first_trial, first_trial + n, dtype=np.int64)
    a = t % s1
    first = np.asarray(first_rolls, dtype=np.int8)[perm1[a]]
    second = np.asarray(ORDERED_ROLLS, dtype=np.int8)[perm2[(t // s1 + offsets[a]) % 36]]
    parts = [first, second]
    if forced is not None:
        parts.insert(0, np.tile(np.asarray(forced, dtype=np.int8), (n, 1)))
    return np.ascontiguousarray(np.concatenate(parts, axis=1), dtype=np.int8)
