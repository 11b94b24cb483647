"""Reverse patches on their own: whenever one is made, it turns the new bytes back into the old ones exactly."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from editblocks.workspace.reverse_patch import PATCH_MIN_BYTES, ReversePatch, apply_reverse, reverse_patch

BASE = bytes(range(251)) * 4600  # over a MiB: the comparison in chunks goes through every chunk size


@settings(max_examples=200, deadline=None)
@given(start=st.integers(0, len(BASE)), cut=st.integers(0, 300), inserted=st.binary(max_size=300))
def test_a_patch_always_gives_back_the_old_bytes(start: int, cut: int, inserted: bytes) -> None:
    new = BASE[:start] + inserted + BASE[start + cut:]
    patch = reverse_patch(BASE, new)
    assert patch is not None
    assert apply_reverse(new, patch) == BASE
    assert len(patch.replaced) <= cut + 1  # only the span the edit replaced (a byte more where it repeats)


def test_no_patch_for_a_small_file_or_a_big_change() -> None:
    assert reverse_patch(b"x = 1\n" * (PATCH_MIN_BYTES // 8), b"x = 2\n") is None
    assert reverse_patch(b"x = 1\n", b"x = 2\n") is None
    assert reverse_patch(BASE, BASE[::-1]) is None
    assert reverse_patch(BASE, b"") is None


def test_a_patch_that_cannot_fit_the_bytes_gives_nothing() -> None:
    assert apply_reverse(b"short", ReversePatch(4, 4, b"x")) is None
