"""The optional libraries of evaluation, imported only when asked for: pyarrow for Parquet, Ray for clusters.

A missing one is a `MissingExtra` whose message names the install command.
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType

from editblocks.extras import install_command


class MissingExtra(ImportError):
    """An optional library is not installed; the message says how to add it."""


def parquet() -> ModuleType:
    """`pyarrow.parquet`, from the `[parquet]` extra."""
    return _module("pyarrow.parquet", "reading and writing Parquet needs pyarrow", "parquet")


def arrow() -> ModuleType:
    """`pyarrow`, from the `[parquet]` extra."""
    return _module("pyarrow", "reading and writing Parquet needs pyarrow", "parquet")


def ray() -> ModuleType:
    """`ray` with Ray Data, from the `[ray]` extra."""
    _module("ray.data", "the Ray backend needs Ray Data", "ray")
    return _module("ray", "the Ray backend needs Ray Data", "ray")


def _module(name: str, need: str, extra: str) -> ModuleType:
    try:
        return import_module(name)
    except ImportError:
        raise MissingExtra(f"{need}: {install_command(extra)}") from None
