"""Build script: declares the Cython engine. All metadata lives in pyproject.toml.

Compiler directives are set once, here. ``KWSEARCH_CYTHON_DEBUG=1`` rebuilds the
extension with bounds, wraparound and overflow checks on (and without -O3), for
hunting a crash or a disagreement with the reference engine.
"""

import os

from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("KWSEARCH_CYTHON_DEBUG", "") not in ("", "0")

directives = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "cdivision": not DEBUG,
    "initializedcheck": DEBUG,
    "overflowcheck": DEBUG,
    "embedsignature": True,
}

ARGS = ["-O0", "-g"] if DEBUG else ["-O3"]

extensions = [
    Extension("kwsearch._fast", ["kwsearch/_fast.pyx"], extra_compile_args=ARGS),
    Extension("kwsearch._playout", ["kwsearch/_playout.pyx"], extra_compile_args=ARGS),
    Extension("kwsearch._forced", ["kwsearch/_forced.pyx"], extra_compile_args=ARGS),
    Extension("kwsearch._search", ["kwsearch/_search.pyx"], extra_compile_args=ARGS),
    Extension("kwsearch._eval", ["kwsearch/_eval.pyx"], extra_compile_args=ARGS),
]

setup(ext_modules=cythonize(extensions, compiler_directives=directives))
