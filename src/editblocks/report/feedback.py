"""The message sent back to the model after an apply: what failed, why, where the real text is, what already applied.

Every failed or skipped block is listed, not only the last one (a peer tool
kept just the last failure, so its model re-sent the others unchanged), and
the applied ones are named so they are not sent twice. A block held because
another block for its file failed (policy `file`) is named too: a door that
keeps it asks only for the failed blocks; one that keeps nothing says that
nothing was written to the file and that its blocks go together again. The instructions for
fixing come from the format's own prompt texts, so they name that format's
markers.

The message must never read as edit blocks itself (a model may echo it, a
tool may parse it): the model's own text is quoted behind `> `, and the
file's lines carry their line numbers, so neither ever forms a marker or
fence line. The size is bounded: excerpts shrink first, then every block
gets one line, and only then is the message cut.

Whatever went wrong, the message says what the parser noticed (malformed
blocks, ignored markers, an unclosed reasoning section) and ends with how to
continue: a model told only "no edit blocks were found" tends to repeat the
very reply that was not understood.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from editblocks.model import (
    ApplyResult,
    BlockKind,
    Diagnostic,
    EditResult,
    Format,
    ParseResult,
    ResultCode,
    Severity,
    Status,
    counted,
    preview,
)
from editblocks.parsing.markers import MarkerKind, classify, classify_tag
from editblocks.prompts import fix_instructions, quoted_part, reminder

DEFAULT_MAX_CHARS = 6000
EXCERPT_LINES = (12, 6, 2, 0)  # tried in turn until the message fits
REASON_CHARS = 400
COMPACT_REASON_CHARS = 120
QUOTED_LINE_CHARS = 160
SHOWN_DIAGNOSTICS = 20  # per severity; a hostile reply can hold thousands
SHOWN_APPLIED_PER_FILE = 20  # the rest are counted, so the failures still fit in the message

# The format a block start marker begins; `<<<<<<< SEARCH` is diff unless its surroundings say more.
_START_FORMATS = {
    MarkerKind.SEARCH_START: Format.DIFF,
    MarkerKind.NEW_FILE_START: Format.SEARCH_REPLACE,
    MarkerKind.ANCHORED_START: Format.ANCHORED,
    MarkerKind.GUILLEMET_START: Format.GUILLEMET,
    MarkerKind.OLD_TEXT_START: Format.ZED,
}

_LABELS = {
    ResultCode.NOT_FOUND: "not found",
    ResultCode.AMBIGUOUS: "ambiguous",
    ResultCode.NO_OP: "changes nothing",
    ResultCode.ALREADY_APPLIED: "already applied",
    ResultCode.FILE_NOT_FOUND: "no such file",
    ResultCode.FILE_EXISTS: "file already exists",
    ResultCode.REFUSED: "refused",
    ResultCode.SKIPPED_AFTER_FAILURE: "not tried",
    ResultCode.HELD: "held",
    ResultCode.ABORTED: "not written",
    ResultCode.CHANGED_ON_DISK: "not written",
    ResultCode.WRITE_FAILED: "not written",
}


def feedback_message(
    apply_result: ApplyResult, *, format: Format | str | None = None, max_chars: int = DEFAULT_MAX_CHARS
) -> str:
    """The text to send the model after `apply`: every problem block with its reason, and what did apply.

    `format` is the format the model was asked to use (`reply_format` finds
    it for a parsed reply); by default the format most of the unapplied
    blocks were written in.
    """
    results, diagnostics = apply_result.results, apply_result.diagnostics
    problems = [r for r in results if r.status is not Status.APPLIED]
    earlier = [r for r in apply_result.held_over if r.status is not Status.APPLIED]
    if results and not problems and not earlier and not diagnostics:
        return _all_applied(len(results), apply_result.dry_run)
    fmt = _format_for(format, problems or results)
    kept = frozenset(apply_result.holding)
    head = _headline(apply_result, problems)
    tail = ["", "How to continue: " + _next_step(apply_result, problems + earlier, fmt)]
    applied = _applied_section(results, apply_result.dry_run) + _written_now(apply_result.held_over)
    noticed = _diagnostic_sections(diagnostics, REASON_CHARS)
    for excerpt_lines in EXCERPT_LINES:
        body = applied + _problem_sections(problems, fmt, excerpt_lines, kept) + _problem_sections(
            earlier, fmt, excerpt_lines, kept, heading="Held from your earlier replies:", reply="an earlier reply")
        text = "\n".join([head, *body, *noticed, *tail])
        if len(text) <= max_chars:
            return text
    body = applied + _compact_problems(problems) + _compact_problems(earlier, heading="Held from your earlier replies:")
    return _fit(head, body + _diagnostic_sections(diagnostics, COMPACT_REASON_CHARS), tail, max_chars)


def reply_format(response: str, parsed: ParseResult) -> Format | None:
    """The format to name in feedback on `response` (parsed as `parsed`), or None if the reply shows none.

    That is the format asked for or detected, else the one the start marker
    of the first malformed block shows: a reply whose only block is malformed
    has no detected format, and naming another format's markers would
    contradict the prompt the model follows (a guillemet model told to write
    `<<<<<<< SEARCH` inside fences).
    """
    if parsed.format != Format.AUTO:
        return Format(parsed.format)
    if not parsed.diagnostics:  # spares splitting a long reply into lines
        return None
    lines = response.split("\n")
    for diagnostic in parsed.diagnostics:
        line = lines[diagnostic.line - 1] if 0 < diagnostic.line <= len(lines) else ""
        marker = classify(line) or classify_tag(line)
        if marker is not None and marker.kind in _START_FORMATS:
            return _START_FORMATS[marker.kind]
    return None


def _all_applied(count: int, dry_run: bool, *, readable_only: bool = False) -> str:
    subject = "The edit block" if count == 1 else f"All {count} edit blocks"
    if readable_only:
        subject += " that could be read"
    if dry_run:
        return f"{subject} would apply as written (nothing was written yet)."
    return f"{subject} {'was' if count == 1 else 'were'} applied."


def _format_for(requested: Format | str | None, results: Sequence[EditResult]) -> Format:
    if requested is not None and Format(requested) is not Format.AUTO:
        return Format(requested)
    counts = Counter(r.block.format for r in results)
    return counts.most_common(1)[0][0] if counts else Format.DIFF


def _headline(apply_result: ApplyResult, problems: Sequence[EditResult]) -> str:
    results, dry_run = apply_result.results, apply_result.dry_run
    unreadable = _errors(apply_result.diagnostics)
    sentences = []
    if problems:
        sentences.append(_problem_count(results, problems, dry_run))
    elif results:
        sentences.append(_all_applied(len(results), dry_run, readable_only=bool(unreadable)))
    elif not unreadable:
        sentences.append("No edit blocks were found in your reply, so nothing was changed.")
    if unreadable:
        sentences.append(f"{counted(len(unreadable), 'edit block').capitalize()} in your reply could not be read.")
    held = _held_files(apply_result)
    if held:
        files = _and_list([f"`{path}`" for path in held])
        if dry_run:
            sentences.append(f"{files} would not be written: a file is written only when every block for it "
                             "applies.")
        elif all(path in apply_result.holding for path in held):
            sentences.append(f"Nothing was written to {files} yet: the blocks for {'it' if len(held) == 1 else 'them'}"
                             " that apply are held, and each file is written as soon as its failed blocks land.")
        else:
            sentences.append(f"Nothing was written to {files}: a file is written only when every block for it "
                             "applies.")
    return " ".join(sentences)


def _held_files(apply_result: ApplyResult) -> list[str]:
    """The files held back (each has a block held), in the order their blocks come."""
    return list(dict.fromkeys(r.path for r in apply_result.held_over + apply_result.results
                              if r.code is ResultCode.HELD))


def _problem_count(results: Sequence[EditResult], problems: Sequence[EditResult], dry_run: bool) -> str:
    counts = Counter("held" if r.code is ResultCode.HELD else r.status.value for r in results)
    kinds = (Status.FAILED.value, "held", Status.SKIPPED.value, Status.APPLIED.value)
    parts = ", ".join(f"{counts[kind]} {_status_word(kind, dry_run)}" for kind in kinds if counts[kind])
    did_not = "would not apply" if dry_run else "did not apply"
    if len(results) == 1:
        return f"Your edit block {did_not}."
    if len(problems) == len(results):
        return f"None of your {len(results)} edit blocks {'would apply' if dry_run else 'applied'} ({parts})."
    return f"{len(problems)} of your {len(results)} edit blocks {did_not} ({parts})."


def _status_word(kind: str, dry_run: bool) -> str:
    return "would apply" if dry_run and kind == Status.APPLIED.value else kind


def _next_step(apply_result: ApplyResult, problems: Sequence[EditResult], fmt: Format) -> str:
    """What to send now. A plain retry fits only a real run with problems: after a dry run every block is
    still to be applied, and a reply with no usable block needs the layout, not "written as before"."""
    unreadable = _errors(apply_result.diagnostics)
    if not apply_result.results and not unreadable:
        return "If you meant to change files, send the changes as edit blocks. " + _layout(fmt)
    if apply_result.dry_run:
        return ("Nothing was written (a dry run), so reply with all your edit blocks again: corrected where this "
                "message says so, the others unchanged. " + _layout(fmt))
    held = _held_files(apply_result)
    kept = [path for path in held if path in apply_result.holding]
    dropped = [path for path in held if path not in apply_result.holding]
    first = ""
    if kept:
        first += (f"The held blocks for {_and_list([f'`{path}`' for path in kept])} are kept, so do not send them "
                  "again: send only the failed blocks, fixed. ")
    if dropped:
        first += (f"Send every block for {_and_list([f'`{path}`' for path in dropped])} again, in one reply: the "
                  "held ones unchanged and the failed ones fixed (nothing of them was kept). ")
    if problems or unreadable:
        return first + fix_instructions(fmt)
    return "If a change you meant is missing (see the notes above), send only that change. " + _layout(fmt)


def _layout(fmt: Format) -> str:
    """How the format's edit block looks, in one paragraph: the reminder's text between its heading and its rules."""
    return reminder(fmt, shell=False).split("\n\n")[1]


def _errors(diagnostics: Sequence[Diagnostic]) -> list[Diagnostic]:
    return [d for d in diagnostics if d.severity is Severity.ERROR]


def _applied_section(results: Sequence[EditResult], dry_run: bool) -> list[str]:
    """One line per file, so a long run of applied blocks stays short."""
    by_file: dict[str, list[EditResult]] = {}
    for result in results:
        if result.status is Status.APPLIED:
            by_file.setdefault(result.path, []).append(result)
    if not by_file:
        return []
    heading = ("These would apply as written (nothing was written: a dry run), so keep them as they are:"
               if dry_run else "Applied; these are in the files now, so do not send them again:")
    lines = ["", heading]
    for path, applied in by_file.items():
        where = ", ".join(_applied_where(r) for r in applied[:SHOWN_APPLIED_PER_FILE])
        if len(applied) > SHOWN_APPLIED_PER_FILE:
            where += f" and {counted(len(applied) - SHOWN_APPLIED_PER_FILE, 'more block')}"
        lines.append(f"- {path}: {where}")
    return lines


def _written_now(held_over: Sequence[EditResult]) -> list[str]:
    """The held blocks of earlier replies this run wrote, one line per file."""
    by_file: dict[str, int] = {}
    for result in held_over:
        if result.status is Status.APPLIED:
            by_file[result.path] = by_file.get(result.path, 0) + 1
    if not by_file:
        return []
    return ["", "Held from your earlier replies and now written with them, so do not send them again:"] + [
        f"- {path}: {counted(count, 'held block')}" for path, count in by_file.items()]


def _applied_where(result: EditResult) -> str:
    if result.block.kind is BlockKind.CREATE:
        where = " (created the file)"
    elif result.block.kind in (BlockKind.DELETE, BlockKind.MOVE, BlockKind.WHOLE):
        where = f" ({result.reason or 'replaced the whole file'})"
    else:
        where = f" ({_lines_at(result)})" if result.start_line is not None else ""
    return f"the block at line {result.block.line} of your reply{where}"


def _problem_sections(problems: Sequence[EditResult], fmt: Format, excerpt_lines: int, kept: frozenset[str], *,
                      heading: str = "Not applied:", reply: str = "your reply") -> list[str]:
    if not problems:
        return []
    lines = ["", heading]
    for result in problems:
        lines += ["", _title(result, reply), "  " + _cut(result.reason, REASON_CHARS)]
        lines += [f"  {line}" for line in _details(result, fmt, excerpt_lines, kept)]
    return lines


def _compact_problems(problems: Sequence[EditResult], heading: str = "Not applied:") -> list[str]:
    if not problems:
        return []
    return ["", heading] + [
        f"- Line {r.block.line} ({r.path}): {_state(r)}: " + _cut(r.reason, COMPACT_REASON_CHARS) for r in problems
    ]


def _state(result: EditResult) -> str:
    """`failed, not found`; a held block is just `held`."""
    label = _LABELS.get(result.code, result.status.value)
    return label if result.code is ResultCode.HELD else f"{result.status.value}, {label}"


def _title(result: EditResult, reply: str = "your reply") -> str:
    start = preview(result.block.search or result.block.new).strip()
    begins = f", starting “{start}”" if start else ""
    return f"- Block at line {result.block.line} of {reply} ({result.path}{begins}): {_state(result)}."


def _details(result: EditResult, fmt: Format, excerpt_lines: int, kept: frozenset[str] = frozenset()) -> list[str]:
    """What the model needs to fix this block: the real lines, the candidates, or what to do instead."""
    code, quoted = result.code, quoted_part(fmt)
    if code is ResultCode.HELD:
        if result.path in kept:
            return [f"It applies and is kept: {result.path} is written as soon as its failed blocks land. "
                    "Do not send it again."]
        return [f"It applies, but nothing was written to {result.path} because another block for it failed: send "
                f"it again, unchanged, together with every other block for {result.path}."]
    if code is ResultCode.NOT_FOUND:
        if result.hint:
            excerpt = _excerpt(result.hint.split("\n"), excerpt_lines, prefix="    ")
            intro = [f"Your {quoted} (-) against the closest lines of {result.path} (+, with their line numbers):"]
            advice = f"Copy the {quoted} again from the file's lines, exactly as they are."
            return (intro + excerpt if excerpt else []) + [advice]
        quoted_lines = result.block.search.split("\n")[:-1]
        excerpt = _excerpt([_cut(line, QUOTED_LINE_CHARS) for line in quoted_lines], excerpt_lines, prefix="> ")
        intro = [f"Nothing in {result.path} is close to your {quoted}, which was:"] if excerpt else []
        return intro + excerpt + [f"Check the path, and copy the {quoted} from the file's current text."]
    if code is ResultCode.AMBIGUOUS and result.candidates:
        where = _and_list([str(line) for line in result.candidates])
        return [f"It matches {result.path} at lines {where}; add neighbouring lines to your {quoted} "
                "until it matches only the place you mean."]
    if code is ResultCode.ALREADY_APPLIED:
        where = f" ({_lines_at(result)})" if result.start_line is not None else ""
        return [f"Its new text is already in {result.path}{where}: this change is done, do not send it again."]
    if code is ResultCode.NO_OP:
        return ["Its old and new text are identical. Leave it out, or send the change you meant."]
    if code is ResultCode.FILE_NOT_FOUND:
        return ["Use the path of a file you were shown; to create a new file, send a block that creates it."]
    if code is ResultCode.SKIPPED_AFTER_FAILURE:
        return ["It was not tried because an earlier block for this file failed. Send it again after the "
                "corrected earlier block, quoting the file as it is now."]
    if code in (ResultCode.ABORTED, ResultCode.CHANGED_ON_DISK, ResultCode.WRITE_FAILED):
        return ["Nothing from your reply was written, so send this block again too."]
    return []


_DIAGNOSTIC_HEADINGS = {
    Severity.ERROR: "Could not be read as edit blocks (send them again, complete and well-formed):",
    Severity.WARNING: "Noticed in your reply:",
}


def _diagnostic_sections(diagnostics: Sequence[Diagnostic], chars: int) -> list[str]:
    """The parser's errors, then its warnings, each with its line in the reply; a long list is cut short."""
    lines: list[str] = []
    for severity, heading in _DIAGNOSTIC_HEADINGS.items():
        found = [d for d in diagnostics if d.severity is severity]
        if found:
            lines += ["", heading]
            lines += [f"- line {d.line} of your reply: {_cut(d.message, chars)}" for d in found[:SHOWN_DIAGNOSTICS]]
        if len(found) > SHOWN_DIAGNOSTICS:
            lines.append(f"- (… {counted(len(found) - SHOWN_DIAGNOSTICS, 'more line')} like these cut)")
    return lines


def _excerpt(lines: list[str], limit: int, *, prefix: str) -> list[str]:
    if limit <= 0:
        return []
    shown = [prefix + line for line in lines[:limit]]
    if len(lines) > limit:
        shown.append(f"{prefix}(… {counted(len(lines) - limit, 'more line')} cut)")
    return shown


def _fit(head: str, body: list[str], tail: list[str], max_chars: int) -> str:
    """Cut the body line by line until head, body and the instructions fit; cut everything only if they can't."""
    text = "\n".join([head, *body, *tail])
    if len(text) <= max_chars:
        return text
    room = max_chars - len("\n".join([head, *tail])) - 1
    kept: list[str] = []
    used = 0
    for index, line in enumerate(body):
        note = f"(… {counted(len(body) - index, 'more line')} cut)"
        if used + len(line) + 1 + len(note) + 1 > room:
            kept.append(note)
            break
        kept.append(line)
        used += len(line) + 1
    text = "\n".join([head, *kept, *tail])
    if len(text) <= max_chars:
        return text
    return text[:max_chars].rsplit("\n", 1)[0]


def _lines_at(result: EditResult) -> str:
    first, last = result.start_line, result.end_line or result.start_line
    return f"line {first}" if first == last else f"lines {first}–{last}"


def _and_list(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" and {items[-1]}"


def _cut(text: str, limit: int) -> str:
    text = " ".join(text.split("\n"))
    return text if len(text) <= limit else text[: limit - 1] + "…"
