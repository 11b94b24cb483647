"""The XML wrappers agents put around edits: Cline's `<replace_in_file>`, Roo Code's `<apply_diff>`, Zed's `<edits>`.

Cline and Roo Code write a SEARCH/REPLACE block inside a tool call in XML
(`<replace_in_file>`, `<path>src/app.py</path>`, `<diff>` … `</diff>`); Roo's
newer form nests it deeper (`<args>`, `<file>`, `<content><![CDATA[` …). Such a
block's path is the `<path>` element before it, and the wrapper's other lines
are neither text nor a path: the look-back skips them. The wrapper also names
the dialect the block is written in.
"""

from __future__ import annotations

import re

from editblocks.model import Format

WRAPPER_FORMATS = {"replace_in_file": Format.CLINE, "apply_diff": Format.ROO, "edits": Format.ZED}
_CDATA = r"(?:<!\[CDATA\[|\]\]>)?"
_WRAPPER = _CDATA + r"<(/?)(replace_in_file|apply_diff|edits|args|file|diff|content)(?:\s[^<>]*)?>" + _CDATA
_HINT_ELEMENT = r"<(start_line|end_line)>\s*\d*\s*</\1>"
_PATH_ELEMENT = r"<(path|file_to_edit)>\s*([^<>]+?)\s*</\1>"
"""Patterns compiled on first use (by `re`, which keeps them): most answers have no tool-call XML."""


def wrapper_tag(stripped: str) -> tuple[str, bool] | None:
    """The wrapper element a whole line opens or closes (``(name, closing)``), if it is one."""
    found = re.fullmatch(_WRAPPER, stripped)
    return (found.group(2), found.group(1) == "/") if found is not None else None


def is_wrapper_line(stripped: str) -> bool:
    """A line of a tool call's XML around a block, other than its path: skipped when looking for the path."""
    return (stripped[:1] in "<]" and (re.fullmatch(_WRAPPER, stripped) is not None
                                     or re.fullmatch(_HINT_ELEMENT, stripped) is not None
                                     or stripped in ("<![CDATA[", "]]>")))


def path_element(stripped: str) -> str | None:
    """The path a `<path>src/app.py</path>` line (or Zed's `<file_to_edit>`) names, if the line is one."""
    found = re.fullmatch(_PATH_ELEMENT, stripped)
    return found.group(2) if found is not None else None
