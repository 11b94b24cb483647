"""Deprecated: `LiveLocator` moved to `editblocks.service.live`; these names stay for one minor version."""

import warnings

from editblocks.service.live import LiveLocator, Located

__all__ = ["LiveLocator", "Located"]

warnings.warn(f"{__name__} is deprecated: import its names from editblocks.service.live", DeprecationWarning,
              stacklevel=2)
