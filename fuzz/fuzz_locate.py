"""Fuzz the matching ladder and the planner on a small file and one or two blocks derived from the input.

Input layout: byte 0 holds options (bit 0 fuzzy rung, bit 1 exact only,
bit 2 first match, bits 3–4 block format, bit 5 strict, bit 6 re-indent and
curl the copied lines, bit 7 a second block); byte 1 copies file lines into
the search (low nibble: first line, high nibble: how many). The rest, decoded
as UTF-8 with errors replaced, is ``file NUL search NUL replace``; the copied
lines come before the search text.

Invariants: nothing raises (an empty search is never handed to `locate`,
whose ValueError for it is documented); a `Found` span and its sources lie
within the file; splicing it keeps every line and line ending outside the
span; an applied block leaves the bytes before and after its reported span
as they were; a failed block changes nothing; a create block never
overwrites a non-empty file.

    .venv/bin/python fuzz/fuzz_locate.py -max_total_time=600 fuzz/corpus_locate
"""

from __future__ import annotations

import atheris

with atheris.instrument_imports(include=["editblocks"]):
    from editblocks.locate.ladder import locate
    from editblocks.locate.types import DEFAULT_RUNGS, EXACT_ONLY, LADDER, Ambiguous, Found, LocateOptions, NotFound
    from editblocks.model import BlockKind, EditBlock, Format, Policy, Status
    from editblocks.plan import PlanOptions, TargetFile, plan_edits
    from editblocks.text.document import Document

from runner import run

PATH = "f.txt"
BLOCK_FORMATS = (Format.SEARCH_REPLACE, Format.DIFF, Format.ANCHORED, Format.GUILLEMET)
POLICIES = (Policy.CONTINUE, Policy.SKIP_FILE, Policy.ABORT)


def lines_of(text: str) -> list[str]:
    """Block text as the parser hands it over: LF-separated lines."""
    return text.split("\n")[:-1] if text.endswith("\n") else text.split("\n") if text else []


def text_of(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


def searched_lines(flags: int, copy: int, document: Document, extra: str) -> list[str]:
    """The copied file lines (optionally re-indented with curled quotes) followed by the input's own lines."""
    first, count = copy & 0x0F, copy >> 4
    copied = list(document.lines[first : first + count])
    if flags & 0x40:
        copied = ["  " + line.replace("'", "\u2019").replace('"', "\u201c") for line in copied]
    return copied + lines_of(extra)


def check_found(document: Document, found: Found) -> None:
    """A found span, its sources, and the splice it leads to, against the file they came from."""
    size = len(document.lines)
    assert 0 <= found.start < found.end <= size, f"span {found.start}..{found.end} outside 0..{size}"
    assert len(found.new_lines) == len(found.sources)
    for line, source in zip(found.new_lines, found.sources):
        if source is not None:
            assert found.start <= source < found.end and line == document.lines[source], "bad source line"
    spliced = document.splice(found.start, found.end, found.new_lines, found.sources)
    tail = size - found.end
    assert spliced.lines[: found.start] == document.lines[: found.start], "line before the span changed"
    assert spliced.lines[len(spliced.lines) - tail :] == document.lines[found.end :], "line after the span changed"
    assert spliced.endings[len(spliced.endings) - tail :] == document.endings[found.end :], "ending after changed"
    kept = spliced.endings[: found.start]
    if tail == 0 and not found.new_lines and not document.final_newline and kept:
        kept = kept[:-1] + (document.endings[found.start - 1],)  # the new last line rightly loses its newline
    assert kept == document.endings[: found.start], "line ending before the span changed"


def check_locate(document: Document, search: list[str], replace: list[str], flags: int) -> None:
    rungs = LADDER if flags & 1 else EXACT_ONLY if flags & 2 else DEFAULT_RUNGS
    outcome = locate(document.lines, search, replace, LocateOptions(rungs=rungs, first_match=bool(flags & 4)))
    size = len(document.lines)
    if isinstance(outcome, Found):
        check_found(document, outcome)
    elif isinstance(outcome, Ambiguous):
        assert len(outcome.starts) >= 2 and list(outcome.starts) == sorted(set(outcome.starts))
        assert all(0 <= start < size for start in outcome.starts), "candidate outside the file"
    else:
        assert isinstance(outcome, NotFound)
        near = outcome.near_miss
        assert near is None or 0 <= near.start < near.end <= size, "near miss outside the file"


def make_block(fmt: Format, search: list[str], replace: list[str], line: int) -> EditBlock:
    """A block of ``fmt``; anchored blocks take the first and last searched lines as anchors when they can."""
    leading = trailing = ""
    old, new = text_of(search), text_of(replace)
    if fmt is Format.ANCHORED and len(search) >= 3 and len(replace) >= 2:
        leading, old, trailing = text_of(search[:1]), text_of(search[1:-1]), text_of(search[-1:])
        new = text_of(replace[1:-1])
    kind = BlockKind.EDIT if (leading + old + trailing).strip() else BlockKind.CREATE
    return EditBlock(PATH, leading, old, new, trailing, kind, fmt, line)


def span_bytes(document: Document, start: int, end: int) -> str:
    return "".join(line + ending for line, ending in zip(document.lines[start:end], document.endings[start:end]))


def before_without_ending(document: Document, start: int) -> str:
    """The bytes before line ``start`` without the newline of the line just before it."""
    return span_bytes(document, 0, start - 1) + document.lines[start - 1]


def check_plan(text: str | None, blocks: list[EditBlock], flags: int) -> None:
    options = PlanOptions(policy=POLICIES[flags % 3] if flags & 0x80 else None, fuzzy=bool(flags & 1),
                          first_match=bool(flags & 4), strict=bool(flags & 0x20))
    plan = plan_edits(blocks, {PATH: TargetFile(PATH, text)}, options)
    assert len(plan.results) == len(blocks)
    if not any(result.status is Status.APPLIED for result in plan.results):
        assert plan.files == (), "a plan where nothing applied still changes the file"
    exists_with_text = text is not None and text.strip() != ""
    if blocks[0].kind is BlockKind.CREATE and exists_with_text:
        assert plan.results[0].status is not Status.APPLIED, "a create block overwrote a non-empty file"
    if len(blocks) > 1 or not plan.files or blocks[0].kind is BlockKind.CREATE:
        return
    result, [written] = plan.results[0], plan.files
    assert result.status is Status.APPLIED and result.start_line is not None and result.end_line is not None
    document = Document.from_text(text or "")
    start, end = result.start_line - 1, result.end_line
    before, after = span_bytes(document, 0, start), span_bytes(document, end, len(document.lines))
    assert written.text.endswith(after), "bytes after the edited span changed"
    if not after and not document.final_newline and start and written.text == before_without_ending(document, start):
        return  # the end of the file was deleted: the new last line rightly loses its newline
    assert written.text.startswith(before), "bytes before the edited span changed"
    assert len(written.text) >= len(before) + len(after)


def check(data: bytes) -> None:
    """One fuzz input; raises AssertionError when an invariant breaks."""
    if len(data) < 2:
        return
    flags, copy = data[0], data[1]
    file_text, _, rest = data[2:].decode("utf-8", errors="replace").partition("\x00")
    extra, _, replace_text = rest.partition("\x00")
    document = Document.from_text(file_text)
    search = searched_lines(flags, copy, document, extra)
    replace = lines_of(replace_text)
    if search:
        check_locate(document, search, replace, flags)
    fmt = BLOCK_FORMATS[(flags >> 3) & 3]
    blocks = [make_block(fmt, search, replace, 1)]
    if flags & 0x80:
        blocks.append(make_block(fmt, replace, search, 2))
    check_plan(file_text if file_text or not flags & 0x10 else None, blocks, flags)


if __name__ == "__main__":
    run("locate", check)
