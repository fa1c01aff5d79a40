"""Build the Cython core.  Compiler directives are set here, once.

Set TAVLI_DEBUG=1 to compile with bounds checks and wraparound back on.  Set
TAVLI_SYMBOLS=1 to keep the symbols of the optimised build (for profilers such as callgrind).
"""
import os

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("TAVLI_DEBUG") == "1"
SYMBOLS = DEBUG or os.environ.get("TAVLI_SYMBOLS") == "1"

directives = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "initializedcheck": DEBUG,
    "cdivision": True,
    "nonecheck": False,
}

extensions = [
    Extension(
        "tavli_fast._core",
        ["src/tavli_fast/_core.pyx"],
        # included by kernels/_nnsimd.pxi
        depends=["src/tavli_fast/kernels/_nnkernel.h", "src/tavli_fast/kernels/_nnquant.h"],
        include_dirs=[numpy.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        # No FMA contraction anywhere: the AVX-512 code inlines float kernels whose numbers
        # must be those of the AVX2 and baseline instances (a seed, the same numbers).
        extra_compile_args=(["-O3"] if not DEBUG else ["-O0", "-g"]) + ["-ffp-contract=off"],
        # Python's own flags add -g: strip the symbols, which were 40 % of the wheel.
        extra_link_args=[] if SYMBOLS else ["-s"],
    )
]

setup(ext_modules=cythonize(extensions, compiler_directives=directives))
