"""Deprecated: the live verdicts moved to `editblocks.service.live`; these names stay for one minor version."""

import warnings

from editblocks.service.live import BlockLocated, BlockWithdrawn, LiveAnswer, LiveEvent

__all__ = ["BlockLocated", "BlockWithdrawn", "LiveAnswer", "LiveEvent"]

warnings.warn(f"{__name__} is deprecated: import its names from editblocks.service.live", DeprecationWarning,
              stacklevel=2)
