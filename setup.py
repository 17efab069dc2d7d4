"""Build script. All metadata lives in pyproject.toml.

This file exists only to declare compiled extensions: the Cython engine and its
compiler directives are added here by a later change. For now it declares none.
"""

from setuptools import setup

setup()
