"""What to tell a model so that it answers in one edit format: system prompt, example exchanges, reminder.

The texts are prose, so they live next to this module as markdown files
rather than as string literals: `common.md` holds what every format shares
(the rules), `examples.md` the user's side of the example exchanges, and one
file per format family (`diff.md` for diff and diff-fenced, then
`search-replace.md`, `anchored.md`, `guillemet.md`, the agents' dialects
`original-updated.md`, `cline.md`, `roo.md`, `zed.md`, and for the front-ends
`v4a.md`, `udiff.md`, `whole.md`) the layout, the kinds of
change, the example answers and the words the feedback message uses.

A file is cut into sections by lines of the form `[[name]]`. A section can
come in a variant for one layout, `name-<format>` (`layout-diff-fenced`),
which is preferred over the plain `name`. `$fence_open`, `$fence_close` and
`$shell` are filled with `string.Template.substitute`, so a stray `$` in a
text fails loudly instead of reaching a model.

The editor variants (`editor-diff`, `editor-diff-fenced`, or `editor=True`
with any format) are for a model that only turns instructions into edits:
a shorter introduction and no word about shell commands.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from string import Template

from editblocks.model import Format
from editblocks.parsing.fences import XML_FENCE_TAGS

DEFAULT_FENCE = ("```", "```")
PROMPT_FORMATS = tuple(fmt.value for fmt in Format if fmt is not Format.AUTO)

_FAMILY_FILES = {
    Format.DIFF: "diff.md",
    Format.DIFF_FENCED: "diff.md",
    Format.SEARCH_REPLACE: "search-replace.md",
    Format.ANCHORED: "anchored.md",
    Format.GUILLEMET: "guillemet.md",
    Format.ORIGINAL_UPDATED: "original-updated.md",
    Format.CLINE: "cline.md",
    Format.ROO: "roo.md",
    Format.ZED: "zed.md",
    Format.V4A: "v4a.md",
    Format.UDIFF: "udiff.md",
    Format.WHOLE: "whole.md",
}
_EDITOR_FORMATS = {Format.EDITOR_DIFF: Format.DIFF, Format.EDITOR_DIFF_FENCED: Format.DIFF_FENCED}
_SECTION = re.compile(r"^\[\[([a-z0-9-]+)\]\]$", re.MULTILINE)
_MARKDOWN_FENCE = re.compile(r"`{3,}|~{3,}")
_XML_FENCE = re.compile(r"<([A-Za-z]+)>")


@dataclass(frozen=True)
class _Variant:
    layout: Format  # the format without its editor- prefix: it decides the text
    editor: bool
    shell: bool


def system_prompt(
    format: Format | str, *, fence: tuple[str, str] = DEFAULT_FENCE, editor: bool = False, shell: bool = True
) -> str:
    """The system message that teaches `format`: how a block looks, the kinds of change, the rules."""
    variant = _variant(format, editor, shell)
    parts = [
        _common("intro-editor" if variant.editor else "intro"),
        _family(variant, "layout"),
        _family(variant, "changes"),
        _shared(variant, "file-ops"),
        _common("rules"),
        _family(variant, "rules"),
    ]
    if variant.shell:
        parts.append(_common("shell"))
    return _fill("\n\n".join(parts), fence) + "\n"


def example_messages(
    format: Format | str, *, fence: tuple[str, str] = DEFAULT_FENCE, editor: bool = False, shell: bool = True
) -> list[dict[str, str]]:
    """Example exchanges as alternating user/assistant messages; every answer parses and applies cleanly."""
    variant = _variant(format, editor, shell)
    messages: list[dict[str, str]] = []
    for number in example_numbers():
        suggestion = _sections("examples.md").get(f"shell-{number}", "") if variant.shell else ""
        answer = _fill(_family(variant, f"example-{number}"), fence, shell=_fill(suggestion, fence))
        messages.append({"role": "user", "content": _sections("examples.md")[f"user-{number}"]})
        messages.append({"role": "assistant", "content": answer.rstrip()})
    return messages


def reminder(
    format: Format | str, *, fence: tuple[str, str] = DEFAULT_FENCE, editor: bool = False, shell: bool = True
) -> str:
    """The format and its rules in brief, to repeat at the end of the conversation."""
    variant = _variant(format, editor, shell)
    points = [_shared(variant, "reminder"), _family(variant, "reminder-rules")]
    if variant.shell:
        points.append(_common("reminder-shell"))
    return _fill(_family(variant, "reminder") + "\n\n" + "\n".join(points), fence) + "\n"


def example_numbers() -> tuple[int, ...]:
    """The numbers of the example exchanges, as `examples.md` declares them (`[[user-N]]`)."""
    names = _sections("examples.md")
    return tuple(sorted(int(name[len("user-") :]) for name in names if name.startswith("user-")))


def fix_instructions(format: Format | str) -> str:
    """How to resend failed blocks, naming the format's own markers; the feedback message ends with it."""
    return _family(_variant(format, False, False), "fix")


def quoted_part(format: Format | str) -> str:
    """What the format calls the text a block quotes from the file ("SEARCH section", "edit section", ...)."""
    return _family(_variant(format, False, False), "quoted")


def fence_pair(opening: str) -> tuple[str, str]:
    """The closing fence for an opening one: the same run of backticks or tildes, or `</tag>` for `<tag>`."""
    opening = opening.strip()
    if _MARKDOWN_FENCE.fullmatch(opening) and len(set(opening)) == 1:
        return opening, opening
    tag = _XML_FENCE.fullmatch(opening)
    if tag and tag.group(1).lower() in XML_FENCE_TAGS:
        return opening, f"</{tag.group(1)}>"
    tags = ", ".join(f"<{name}>" for name in sorted(XML_FENCE_TAGS))
    raise ValueError(f"not a fence: {opening!r} (use 3 or more backticks or tildes, or one of {tags})")


def _variant(format: Format | str, editor: bool, shell: bool) -> _Variant:
    fmt = Format(format)
    if fmt is Format.AUTO:
        raise ValueError("a prompt needs a concrete format, not auto: " + ", ".join(PROMPT_FORMATS))
    editor = editor or fmt in _EDITOR_FORMATS
    return _Variant(_EDITOR_FORMATS.get(fmt, fmt), editor, shell and not editor)


def _common(name: str) -> str:
    return _sections("common.md")[name]


def _shared(variant: _Variant, name: str) -> str:
    """A section every format shares, unless the format's file replaces it (`common-<name>`): patches delete
    and rename files themselves, so they need no `git rm` request."""
    return _sections(_FAMILY_FILES[variant.layout]).get(f"common-{name}") or _common(name)


def _family(variant: _Variant, name: str) -> str:
    sections = _sections(_FAMILY_FILES[variant.layout])
    return sections.get(f"{name}-{variant.layout.value}") or sections[name]


def _fill(text: str, fence: tuple[str, str], shell: str = "") -> str:
    return Template(text).substitute(fence_open=fence[0], fence_close=fence[1], shell=shell)


@cache
def _sections(filename: str) -> dict[str, str]:
    """The `[[name]]` sections of one text file, without their surrounding blank lines."""
    text = files(__package__).joinpath(filename).read_text(encoding="utf-8")
    pieces = _SECTION.split(text)
    return {name: body.strip("\n") for name, body in zip(pieces[1::2], pieces[2::2])}
