"""`Record`: a value that compares, hashes and prints by its fields, as a frozen dataclass does.

A dataclass writes the source of its methods and compiles it each time its
module is imported, about a millisecond a class: across the modules one
command loads, that was a third of its start-up. A record's methods are
compiled once, here, with the package. A record class names its fields in
``__slots__``, declares them `Final` (so the type checker refuses any later
assignment) and sets them in its ``__init__``.

The internal types are records; the public result types stay dataclasses,
since callers use `dataclasses.replace`, `fields` and `asdict` on them.
"""

from __future__ import annotations

from typing import Any


class Record:
    """Equal to a record of the same class with equal fields; hashed and shown by them, in ``__slots__`` order."""

    __slots__: tuple[str, ...] = ()

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in type(self).__slots__)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in type(self).__slots__)
        return f"{type(self).__qualname__}({shown})"
