"""Block assembly: from a start marker to a finished edit block, or a clear error.

Kept apart from the line classifier (parse/stream.py) because it holds the
grammar of one block and the rules that judge it: which markers are structure
inside a block of each kind, when a marker interrupts a block, how a block
ends, and the one-block hold-back that withdraws a block whose text turned out
to hold marker lines. The classifier decides which lines are markers; this
decides what they mean for the block.
"""

from __future__ import annotations

from collections.abc import Collection

from editblocks.model import (
    SEARCH_REPLACE_FAMILY,
    BlockCompleted,
    BlockKind,
    BlockStarted,
    EditBlock,
    Format,
    Reading,
)
from editblocks.parsing.dialect import read_dialect
from editblocks.parsing.events import EventSink
from editblocks.parsing.filenames import misplaced_file_headers, path_from_line, resolve_known
from editblocks.parsing.lookback import PathLookback
from editblocks.parsing.markers import (
    GUILLEMET_KINDS,
    STANDARD_RUN,
    STARTS,
    TAG_KINDS,
    Marker,
    MarkerKind,
    block_candidate_lines,
    line_hint_of,
    tag_candidate_lines,
)
from editblocks.parsing.sections import NOTHING_HELD, Cut, Divider, OpenBlock, dedent, split_sections
from editblocks.parsing.values import edit_block, no_op_warning

FORMAT_STARTS: dict[Format, frozenset[MarkerKind]] = {
    Format.ANCHORED: frozenset({MarkerKind.ANCHORED_START}),
    Format.GUILLEMET: frozenset({MarkerKind.GUILLEMET_START}),
    Format.ZED: frozenset({MarkerKind.OLD_TEXT_START}),
    **{fmt: frozenset({MarkerKind.SEARCH_START, MarkerKind.NEW_FILE_START}) for fmt in SEARCH_REPLACE_FAMILY},
    Format.AUTO: STARTS,
}
_ENDS: dict[MarkerKind, frozenset[MarkerKind]] = {
    MarkerKind.SEARCH_START: frozenset({MarkerKind.REPLACE_END, MarkerKind.BARE_END}),
    MarkerKind.NEW_FILE_START: frozenset({MarkerKind.NEW_FILE_END, MarkerKind.REPLACE_END}),
    MarkerKind.ANCHORED_START: frozenset({MarkerKind.BARE_END, MarkerKind.REPLACE_END}),
    MarkerKind.GUILLEMET_START: frozenset({MarkerKind.GUILLEMET_END}),
    MarkerKind.OLD_TEXT_START: frozenset({MarkerKind.NEW_TEXT_END}),
}
_PROPER_END = {
    MarkerKind.SEARCH_START: MarkerKind.REPLACE_END,
    MarkerKind.NEW_FILE_START: MarkerKind.NEW_FILE_END,
    MarkerKind.ANCHORED_START: MarkerKind.BARE_END,
    MarkerKind.GUILLEMET_START: MarkerKind.GUILLEMET_END,
    MarkerKind.OLD_TEXT_START: MarkerKind.NEW_TEXT_END,
}
_DIVIDERS: dict[MarkerKind, frozenset[MarkerKind]] = {
    MarkerKind.SEARCH_START: frozenset({MarkerKind.SEPARATOR}),
    MarkerKind.NEW_FILE_START: frozenset(),
    MarkerKind.ANCHORED_START: frozenset({MarkerKind.DASH, MarkerKind.SEPARATOR}),
    MarkerKind.GUILLEMET_START: frozenset({MarkerKind.GUILLEMET_SEPARATOR}),
    MarkerKind.OLD_TEXT_START: frozenset({MarkerKind.OLD_TEXT_END, MarkerKind.NEW_TEXT_START}),
}
_SEARCH_START, _NEW_FILE_START = MarkerKind.SEARCH_START, MarkerKind.NEW_FILE_START  # read per block, kept at hand
_LOOK_ALIKES = frozenset({MarkerKind.SEPARATOR, MarkerKind.LONG_SEPARATOR})
_OFF_LENGTH_STRUCTURE = frozenset(
    {MarkerKind.REPLACE_END, MarkerKind.BARE_END, MarkerKind.SEARCH_START, MarkerKind.NEW_FILE_START}
)
_STRAY_AT_TOP = frozenset(
    {MarkerKind.REPLACE_END, MarkerKind.NEW_FILE_END, MarkerKind.GUILLEMET_SEPARATOR, MarkerKind.GUILLEMET_END}
)
_STARTED_BY = {
    MarkerKind.REPLACE_END: MarkerKind.SEARCH_START,
    MarkerKind.NEW_FILE_END: MarkerKind.NEW_FILE_START,
    MarkerKind.GUILLEMET_SEPARATOR: MarkerKind.GUILLEMET_START,
    MarkerKind.GUILLEMET_END: MarkerKind.GUILLEMET_START,
}
_MARKER_TEXT = {
    MarkerKind.REPLACE_END: "`>>>>>>> REPLACE`",
    MarkerKind.NEW_FILE_END: "`>>>>>>> NEW_FILE`",
    MarkerKind.GUILLEMET_SEPARATOR: "`═══════ REPL`",
    MarkerKind.GUILLEMET_END: "`»»» EDIT END`",
}
_NOT_CLOSED_BEFORE = "block at line {0} is not closed before the next block at line {1}"
"""Formatted when read: a flood of start markers holds one template, not a million messages."""
_STRAY_MESSAGE = {kind: f"{text} without a block start before it" for kind, text in _MARKER_TEXT.items()}
"""Built once: an answer of a million stray end markers then holds one message, not a million copies."""


_Held = tuple[EditBlock, bool, int, int]
"""A completed block kept back until the next block starts or the response ends, whether it interrupted the block
before it, the line it ended at, and how many fences had been opened when it ended. A stray end marker right after
it shows its text held a marker line that cut it short; it is then withdrawn instead of half-applied. (A plain
tuple: one is made per block.)"""


class BlockAssembler:
    """Opens blocks, takes the structure markers inside them, and completes, holds or withdraws them.

    ``block`` is the open block (None between blocks); the parser's hot loop
    appends content lines to its body directly and hands over only the marker
    lines that are structure. ``starts_seen`` and ``ends_seen`` count start and
    end markers by block kind, for the response-wide balance check.
    """

    def __init__(self, format: Format, known: Collection[str] | None, sink: EventSink, lookback: PathLookback) -> None:
        self.starts = FORMAT_STARTS[format]
        self._structure = _STRUCTURE[format]
        self._known = known
        self._sink = sink
        self._lookback = lookback
        self.block: OpenBlock | None = None
        self._held: _Held | None = None
        self._strict_allowed = True
        self.rereading = False  # set by the parser while it reads text again; no block then ends early
        self.fences_opened = 0  # fences opened outside blocks so far (the outside-lines part counts them)
        self._headless_at: int | None = None  # a stray `=======` after the held block, in a fence opened since
        self.blocks: list[EditBlock] = []
        self.starts_seen: dict[MarkerKind, int] = {}  # plain dicts: a parser is made per answer, a Counter costs more
        self.ends_seen: dict[MarkerKind, int] = {}

    @property
    def held_block(self) -> EditBlock | None:
        """The block that has ended but is held back one step (a stray marker next would withdraw it)."""
        return self._held[0] if self._held is not None else None

    def open(self, marker: Marker, number: int, line: str, interrupting: bool = False, conflict: bool = False) -> None:
        """Open a block at its start marker; ``conflict``: the marker is `<<<<<<< HEAD`, which also starts a git
        conflict (the block is held back whole until its end shows which it is)."""
        if self._held is not None:
            self._confirm_held()
        kind, length = marker.kind, marker.length
        starts_seen = self.starts_seen
        starts_seen[kind] = starts_seen.get(kind, 0) + 1
        path, fmt, hint = self._lookback.path_for_block(kind)
        strict = length > STANDARD_RUN and self._strict_allowed and kind is not MarkerKind.GUILLEMET_START
        if line[:1].isspace():  # (most start markers are not indented)
            indent = line[: len(line) - len(line.lstrip())]
            candidates = block_candidate_lines(len(indent)) if indent else _UNINDENTED_CANDIDATES
        else:
            indent, candidates = "", _UNINDENTED_CANDIDATES
        tags = kind is MarkerKind.OLD_TEXT_START
        self.block = OpenBlock(kind, number, length, strict, path, fmt, hint, indent,
                               tag_candidate_lines(len(indent)) if tags else candidates, self._structure[kind],
                               interrupting, tags=tags, conflict=conflict,
                               line_hint=line_hint_of(line) if tags or "line=" in line else None)
        if conflict:
            self.block.held_from = 0  # a git conflict is read again as text: none of it is reported as a block
        if marker.irregular:
            self._warn(number, f"marker accepted despite {marker.irregular}")
        if self._sink.enabled:
            shown = resolve_known(path, self._known, creating=False) if path is not None else None
            self._sink.emit(BlockStarted(shown, number, fmt))

    def marker(self, block: OpenBlock, marker: Marker, number: int, line: str) -> tuple[str, int] | None:
        """A marker line that is structure inside the open ``block``: another start, a divider or an end.

        Returns text the parser must read again as lines outside blocks, and the response line it follows
        (a block that ended at a second `=======`: what followed it, up to and including this start marker).
        """
        kind = marker.kind
        if kind in self.starts:
            if len(block.dividers) == 2 or len(block.look_alikes) == 2:
                tail = self.end_at_second_separator(block, interrupted=True) or self.end_at_look_alike_end(block)
                if tail is not None:
                    return tail[0] + line + "\n", tail[1]
            if self._sink.enabled:
                self._sink.progress(block, final=True)
            self._before_diagnostic()
            self._sink.error_formatted(block.line, _NOT_CLOSED_BEFORE, number)
            self.block = None
            self.open(marker, number, line, interrupting=not block.dividers)
            return None
        if kind in _DIVIDERS[block.start]:
            block.dividers.append(Divider(len(block.body), kind, marker.length, number, line))
            if len(block.dividers) == 2 and block.start is MarkerKind.SEARCH_START:
                block.held_from = len(block.body)  # it may end here: its progress waits (see EventSink.progress)
            return None
        if self._sink.enabled:
            self._sink.progress(block, final=True)
        if kind is not _PROPER_END[block.start] or marker.irregular:
            self._warn(number, f"block at line {block.line} ends with an unexpected marker; accepted")
        self.block = None
        self.ends_seen[block.start] = self.ends_seen.get(block.start, 0) + 1
        self._complete(block, number, marker.length)
        return None

    def look_alike(self, block: OpenBlock, marker: Marker, number: int, line: str) -> None:
        """A marker line that is content for now (another length in a strict block, or 10+ `=`); the caller
        appends it to the body as a slice of its own. A SEARCH block without a real separator may be cut at such
        a separator, and a strict one that never gets its own end may end at such an end marker."""
        if block.start is not MarkerKind.SEARCH_START:
            return
        kind = marker.kind
        if kind in _LOOK_ALIKES or block.strict and kind in _OFF_LENGTH_STRUCTURE:
            block.look_alikes.append(Divider(len(block.body), kind, marker.length, number, line))
            if kind in _ENDS[MarkerKind.SEARCH_START] and not block.dividers and block.held_from == NOTHING_HELD:
                block.held_from = len(block.body)  # it may end here: its progress waits (see EventSink.progress)

    def end_at_look_alike_end(self, block: OpenBlock) -> tuple[str, int] | None:
        """The one marker-length rule for a strict (8-9 character) SEARCH block that never gets its own end: when
        its text holds exactly one separator and then one end marker of another length (and nothing else that
        looks like a marker), those are its structure. Completes the block and returns the lines after that end
        (starting with a newline), to be read again outside blocks, with the end's line; else None."""
        looks = block.look_alikes
        if (self.rereading or not block.strict or block.dividers or len(looks) != 2
                or looks[0].kind not in _LOOK_ALIKES or looks[1].kind not in _ENDS[MarkerKind.SEARCH_START]):
            return None
        end = looks[1]
        tail = "".join(block.body[end.index + 1 :])
        self._sink.progress(block)
        block.body = block.body[: end.index]
        block.look_alikes = looks[:1]
        block.reported = len(block.body)
        self.block = None
        self.ends_seen[block.start] = self.ends_seen.get(block.start, 0) + 1
        self._complete(block, end.line, end.length)
        return "\n" + tail, end.line

    def end_at_second_separator(self, block: OpenBlock, *, interrupted: bool) -> tuple[str, int] | None:
        """aider's tolerance: a SEARCH block that never got its end marker ends at its second `=======` when
        what follows that line is clearly not block text — nothing before the next block, or a closing fence
        first. Completes the block and returns the lines after the separator (starting with a newline), to be
        read again outside blocks, with the separator's line; None when the reading is not that clear, and
        always while text is being read again (so no text is read a third time)."""
        dividers = block.dividers
        if self.rereading or block.start is not MarkerKind.SEARCH_START or block.strict or len(dividers) != 2:
            return None
        second = dividers[1]
        tail = "".join(block.body[second.index :])
        if not _ends_block_text(tail, interrupted):
            return None
        self._sink.progress(block)
        block.body = block.body[: second.index]
        block.dividers = dividers[:1]
        block.look_alikes = [d for d in block.look_alikes if d.index < second.index]
        block.reported = len(block.body)
        self.block = None
        self.ends_seen[block.start] = self.ends_seen.get(block.start, 0) + 1
        self._warn(second.line, f"block at line {block.line} ends with a second `=======` (line {second.line}) "
                                "instead of `>>>>>>> REPLACE`; read as its end")
        self._complete(block, second.line, 0)
        return "\n" + tail, second.line

    def stray(self, marker: Marker, number: int, in_fence: bool = False) -> None:
        """A divider or end marker outside any block: counted for the balance check, and either evidence that the
        held block was cut short, part of a later block that lost its start marker, or a marker without a start.
        ``in_fence``: the marker stands inside a fence."""
        kind = marker.kind
        if kind in _STRAY_AT_TOP and _STARTED_BY[kind] in self.starts:
            started_by = _STARTED_BY[kind]
            self.ends_seen[started_by] = self.ends_seen.get(started_by, 0) + 1
        held = self._held
        if (kind is MarkerKind.SEPARATOR and in_fence and held is not None and self._headless_at is None
                and self.fences_opened > held[3] and held[0].format is not Format.GUILLEMET):
            self._headless_at = number  # decided by what follows: an end marker makes it a block without a start
            return
        if self._headless_at is not None and held is not None and kind in _STRAY_AT_TOP:
            self._headless(self._headless_at)
        elif self._withdraw_if_cut_short(marker, number):
            return
        if kind in _STRAY_AT_TOP:
            self._warn(number, _STRAY_MESSAGE[kind])

    def _headless(self, separator: int) -> None:
        """A `=======` in a fence opened after the held block ended, then an end marker: the held block is complete
        (its fence was closed and a new one opened), and those markers belong to a later block that lost its start
        marker. The held block is kept, the later one reported."""
        self._confirm_held()
        self._error(separator, f"the `=======` at line {separator} has no `<<<<<<< SEARCH` before it: the block it "
                               "belongs to lost its start marker, so nothing of it is applied; send that block "
                               "again, starting with `<<<<<<< SEARCH`")

    def abandon_conflict(self, block: OpenBlock, number: int, line: str) -> tuple[str, int]:
        """A block opened by `<<<<<<< HEAD` met a `>>>>>>> branch` line: it is a git conflict, not an edit. It is
        dropped (and not counted), and its lines up to this one are returned, to be read again as text after its
        start line."""
        self.block = None
        self.starts_seen[block.start] -= 1
        self._warn(block.line, f"`<<<<<<< HEAD` at line {block.line} starts a git conflict (line {number} ends it "
                               f"with `{line.strip()[:40]}`), not an edit block; read as text")
        return "\n" + block.text_after_start() + line + "\n", block.line

    def reopen_tolerant(self, block: OpenBlock) -> str:
        """A strict (8-9 character) block reached the end without its own end marker: the model mixed marker
        lengths, so it is opened again with standard rules, and no block is strict from here on. Returns the
        lines to read again into it (after its start marker, starting with a newline)."""
        self._strict_allowed = False
        self._sink.progress(block)
        self.block = block.reopened_tolerant()
        return "\n" + block.text_after_start()

    def finish(self) -> None:
        """The response ended: a block still open is an error, a held one is confirmed."""
        block = self.block
        if block is not None:
            self._sink.progress(block, final=True)
            self._error(block.line, f"block at line {block.line} is not closed (response truncated?)")
            self.block = None
        self._confirm_held()

    def _complete(self, block: OpenBlock, end_line: int, end_length: int) -> None:
        dividers = block.dividers
        if block.start is _SEARCH_START and len(dividers) == 1 and not block.look_alikes:
            # what `split_sections` does in the common case
            body, index = block.body, dividers[0].index
            # Content between markers is one body slice, so each section is most often a single slice.
            old = body[0] if index == 1 else "".join(body[:index])
            new = body[index] if len(body) == index + 1 else "".join(body[index:])
            cut: Cut = ("", old, new, ""), (), dividers[0].length
        else:
            split = split_sections(block, self._error, self._warn, end_length)
            if split is None:
                return
            cut = split
        if block.path is None:
            self._error(block.line, f"block at line {block.line} has no file path{block.missing_path_hint}")
            return
        sections, readings, separator = cut
        leading, old, new, trailing = sections
        if block.indent:
            leading, old, new, trailing = (dedent(part, block.indent) for part in sections)
            readings = tuple(Reading(dedent(r.old, block.indent), dedent(r.new, block.indent), r.note)
                             for r in readings)
        literal, line_hint = None, block.line_hint
        start = block.start
        if start is _SEARCH_START:
            if separator != block.length or end_length and end_length != block.length:
                self._warn_mixed_lengths(block, separator, bool(readings), end_length)
            # The dialect's lines start with `:` or a backslash; most blocks have neither, and skip it cheaply.
            if readings or block.dialect or old[:1] == ":":
                read = read_dialect([(r.old, r.new) for r in readings] or [(old, new)])
                if isinstance(read, str):
                    self._error(block.line, f"block at line {block.line} {read}")
                    return
                old, new = read.pairs[0]
                literal, line_hint = read.literal, read.line_hint if read.line_hint is not None else line_hint
                if readings:
                    readings = tuple(Reading(o, n, r.note) for (o, n), r in zip(read.pairs, readings))
        elif start is _NEW_FILE_START:
            self._warn_misplaced_headers(block, new)
        blank = ((not leading or leading.isspace()) and (not old or old.isspace())
                 and (not trailing or trailing.isspace()))
        kind = BlockKind.CREATE if blank else BlockKind.EDIT
        path = resolve_known(block.path, self._known, creating=blank) if self._known else block.path
        edit = edit_block(path, leading, old, new, trailing, kind, block.format, block.line,
                          readings, literal, line_hint)
        self._held = edit, block.interrupting, end_line, self.fences_opened

    def _warn_mixed_lengths(self, block: OpenBlock, separator: int, several: bool, end_length: int) -> None:
        """One marker-length rule: a SEARCH block whose separator or end has another length than its start is
        read as it stands when it has only one reading, and says so."""
        if several:
            return
        lengths = [block.length, separator] + ([end_length] if end_length else [])
        shown = ", ".join(str(n) for n in lengths[:-1]) + f" and {lengths[-1]}"
        self._warn(block.line, f"block at line {block.line} mixes marker lengths ({shown} characters); read as "
                               "its only possible reading; write all its markers with one length")

    def _warn_misplaced_headers(self, block: OpenBlock, text: str) -> None:
        path = block.path or ""
        for header in misplaced_file_headers(text, path):
            self._warn(block.line, f"the new file of the block at line {block.line} holds a `{header}` line: a file "
                                   "header belongs before a block, so that text may be meant for another file")

    def _confirm_held(self) -> None:
        held = self._held
        self._headless_at = None
        if held is None:
            return
        self._held = None
        edit = held[0]
        if edit.kind is BlockKind.EDIT and edit.old == edit.new:
            self._sink.diagnose(no_op_warning(edit.line))
        self.blocks.append(edit)
        if self._sink.enabled:
            self._sink.emit(BlockCompleted(edit))  # text read while it was held comes first however it was fed

    def _withdraw_if_cut_short(self, marker: Marker, number: int) -> bool:
        """A stray end marker (or, after an interrupting block, a stray separator) right after a block means a
        marker line inside its text ended it early: report it and apply nothing of it."""
        if self._held is None:
            return False
        edit, interrupting, end_line, _ = self._held
        if edit.format is Format.GUILLEMET and marker.kind not in GUILLEMET_KINDS:
            return False
        kind = marker.kind
        evidence = kind in _STRAY_AT_TOP or (edit.format is Format.ANCHORED and kind is MarkerKind.BARE_END)
        if not evidence and not (interrupting and kind in (MarkerKind.SEPARATOR, MarkerKind.DASH)):
            return False
        self._held = None
        self._headless_at = None
        line = edit.line
        self._error(line, f"block at line {line} was cut short: it ended at line {end_line}, but a stray "
                          f"marker follows at line {number}, so its text holds marker-like lines. Nothing of it is "
                          "applied; write it with 9-character markers (for example `<<<<<<<<< SEARCH`, "
                          "`=========`, `>>>>>>>>> REPLACE`).")
        return True

    def _error(self, line: int, message: str) -> None:
        self._before_diagnostic()
        self._sink.error(line, message)

    def _warn(self, line: int, message: str) -> None:
        self._before_diagnostic()
        self._sink.warn(line, message)

    def _before_diagnostic(self) -> None:
        """The open block's text so far is reported before the diagnostic, so events keep the response's order."""
        if self.block is not None:
            self._sink.progress(self.block)


def _ends_block_text(tail: str, interrupted: bool) -> bool:
    """Whether ``tail`` (what followed a second `=======`) is clearly not block text: it starts with a fence line
    (the block's fence closing), or, right before the next block, it is empty or just that block's path line."""
    lines = [line.strip() for line in tail.split("\n", 16)[:16] if line.strip()]
    if lines and lines[0].startswith(("```", "~~~", "</")):
        return True
    return interrupted and (not lines or len(lines) == 1 and len(tail) < 1024 and path_from_line(lines[0]) is not None)


def _structure(start: MarkerKind, starts: frozenset[MarkerKind]) -> frozenset[MarkerKind]:
    """The marker kinds that are structure inside a block opened by ``start`` (the others are its content):
    another block's start (which interrupts it), its own ends and dividers, and only of its own family
    (chevrons, guillemets or Zed's tags)."""
    guillemet, tags = start is MarkerKind.GUILLEMET_START, start is MarkerKind.OLD_TEXT_START
    kinds = starts | _ENDS[start] | _DIVIDERS[start]
    return frozenset(kind for kind in kinds if (kind in GUILLEMET_KINDS) == guillemet and (kind in TAG_KINDS) == tags)


_UNINDENTED_CANDIDATES = block_candidate_lines(0)
_STRUCTURE: dict[Format, dict[MarkerKind, frozenset[MarkerKind]]] = {
    fmt: {start: _structure(start, starts) for start in STARTS} for fmt, starts in FORMAT_STARTS.items()
}
"""Per format, per start marker: the kinds that are structure inside such a block; built once, not per parser."""
