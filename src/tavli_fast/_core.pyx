# cython: embedsignature=True
"""Compiled kernels of tavli_fast: move generation, Position IDs, RNG, game loop.

Kernels, not API: the Python modules validate arguments and call these.
Board layout everywhere: int8[2][26], row 0 the player on roll, row 1 the
opponent, each row in its own numbering (0 off, 1..24 points, 25 bar).
"""
import numpy as np
cimport numpy as cnp
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcmp, memcpy, memset
from libc.stdint cimport int8_t, uint8_t, uint32_t, uint64_t, int64_t
from cpython.pycapsule cimport PyCapsule_New, PyCapsule_GetPointer, PyCapsule_Destructor
from cpython.list cimport PyList_New, PyList_SET_ITEM
from cpython.ref cimport Py_INCREF

cnp.import_array()

# The kernels (nogil C-level code), each file one job; a file comes after those whose
# types and enums it uses (Cython resolves functions in any order, but not types).
include "kernels/_rng.pxi"
include "kernels/_control.pxi"
include "kernels/_movegen.pxi"
include "kernels/_variants.pxi"
include "kernels/_plakoto.pxi"
include "kernels/_fevga.pxi"
include "kernels/_posid.pxi"
include "kernels/_pubeval.pxi"
include "kernels/_greedy.pxi"
include "kernels/_bearoff.pxi"
include "kernels/_bearoff_one_sided.pxi"
include "kernels/_bearoff_two_sided.pxi"
include "kernels/_bearoff_cubeful.pxi"
include "kernels/_bearoff_lookup.pxi"
include "kernels/_neural.pxi"
include "kernels/_variant_inputs.pxi"
include "kernels/_variant_neural.pxi"
include "kernels/_cube.pxi"
include "kernels/_bearoff_match.pxi"
include "kernels/_match_log.pxi"
include "kernels/_game.pxi"
include "kernels/_variant_game.pxi"
include "kernels/_match.pxi"

# The Python-facing wrappers, by job (after the kernels: they call them).
include "kernels/_api_helpers.pxi"
include "kernels/_movegen_api.pxi"
include "kernels/_variant_api.pxi"
include "kernels/_posid_api.pxi"
include "kernels/_game_api.pxi"
include "kernels/_cube_api.pxi"
include "kernels/_match_api.pxi"
