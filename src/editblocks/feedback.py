"""The message sent back to the model after an apply: what failed, why, where the real text is, what already applied.

Every failed or skipped block is listed, not only the last one (a peer tool
kept just the last failure, so its model re-sent the others unchanged), and
the applied ones are named so they are not sent twice. The instructions for
fixing come from the format's own prompt texts, so they name that format's
markers.

The message must never read as edit blocks itself (a model may echo it, a
tool may parse it): the model's own text is quoted behind `> `, and the
file's lines carry their line numbers, so neither ever forms a marker or
fence line. The size is bounded: excerpts shrink first, then every block
gets one line, and only then is the message cut.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from editblocks.model import ApplyResult, BlockKind, Diagnostic, EditResult, Format, Reason, Severity, Status, preview
from editblocks.prompts import fix_instructions, quoted_part

DEFAULT_MAX_CHARS = 6000
EXCERPT_LINES = (12, 6, 2, 0)  # tried in turn until the message fits
REASON_CHARS = 400
COMPACT_REASON_CHARS = 120
QUOTED_LINE_CHARS = 160

_LABELS = {
    Reason.NOT_FOUND: "not found",
    Reason.AMBIGUOUS: "ambiguous",
    Reason.NO_OP: "changes nothing",
    Reason.ALREADY_APPLIED: "already applied",
    Reason.FILE_NOT_FOUND: "no such file",
    Reason.FILE_EXISTS: "file already exists",
    Reason.REFUSED: "refused",
    Reason.SKIPPED_AFTER_FAILURE: "not tried",
    Reason.ABORTED: "not written",
    Reason.CHANGED_ON_DISK: "not written",
    Reason.WRITE_FAILED: "not written",
}


def feedback_message(
    apply_result: ApplyResult, *, format: Format | str | None = None, max_chars: int = DEFAULT_MAX_CHARS
) -> str:
    """The text to send the model after `apply`: every problem block with its reason, and what did apply.

    `format` is the format the model was asked to use; by default the format
    most of the unapplied blocks were written in.
    """
    results = apply_result.results
    problems = [r for r in results if r.status is not Status.APPLIED]
    unreadable = [d for d in apply_result.diagnostics if d.severity is Severity.ERROR]
    if not problems and not unreadable:
        return _all_applied(len(results), apply_result.dry_run)
    fmt = _format_for(format, problems or results)
    head = _headline(results, problems, unreadable)
    tail = ["", "How to continue: " + fix_instructions(fmt)]
    applied = _applied_section(results, apply_result.dry_run)
    for excerpt_lines in EXCERPT_LINES:
        body = applied + _problem_sections(problems, fmt, excerpt_lines) + _unreadable_section(unreadable)
        text = "\n".join([head, *body, *tail])
        if len(text) <= max_chars:
            return text
    body = applied + _compact_problems(problems) + _unreadable_section(unreadable)
    return _fit(head, body, tail, max_chars)


def _all_applied(count: int, dry_run: bool) -> str:
    if count == 0:
        return "No edit blocks were found in your reply, so nothing was changed."
    if dry_run:
        subject = "The edit block" if count == 1 else f"All {count} edit blocks"
        return f"{subject} would apply as written (nothing was written yet)."
    return "The edit block was applied." if count == 1 else f"All {count} edit blocks were applied."


def _format_for(requested: Format | str | None, results: Sequence[EditResult]) -> Format:
    if requested is not None and Format(requested) is not Format.AUTO:
        return Format(requested)
    counts = Counter(r.block.format for r in results)
    return counts.most_common(1)[0][0] if counts else Format.DIFF


def _headline(results: Sequence[EditResult], problems: Sequence[EditResult], unreadable: Sequence[Diagnostic]) -> str:
    sentences = []
    if problems:
        counts = Counter(r.status for r in results)
        statuses = (Status.FAILED, Status.SKIPPED, Status.APPLIED)
        parts = ", ".join(f"{counts[s]} {s.value}" for s in statuses if counts[s])
        sentences.append(f"{len(problems)} of your {_blocks(len(results))} did not apply ({parts}).")
    elif len(results) == 1:
        sentences.append("The edit block that could be read was applied.")
    elif results:
        sentences.append(f"All {_blocks(len(results))} that could be read were applied.")
    if unreadable:
        sentences.append(f"{_blocks(len(unreadable)).capitalize()} in your reply could not be read.")
    return " ".join(sentences)


def _blocks(count: int) -> str:
    return f"{count} edit block{'s' if count != 1 else ''}"


def _applied_section(results: Sequence[EditResult], dry_run: bool) -> list[str]:
    """One line per file, so a long run of applied blocks stays short."""
    by_file: dict[str, list[EditResult]] = {}
    for result in results:
        if result.status is Status.APPLIED:
            by_file.setdefault(result.path, []).append(result)
    if not by_file:
        return []
    heading = ("These would apply as written (a dry run: nothing was written), so send them again unchanged:"
               if dry_run else "Applied; these are in the files now, so do not send them again:")
    lines = ["", heading]
    for path, applied in by_file.items():
        where = ", ".join(_applied_where(r) for r in applied)
        lines.append(f"- {path}: {where}")
    return lines


def _applied_where(result: EditResult) -> str:
    if result.block.kind is BlockKind.CREATE:
        where = " (created the file)"
    else:
        where = f" (lines {_span(result)})" if result.start_line is not None else ""
    return f"the block at line {result.block.line} of your reply{where}"


def _problem_sections(problems: Sequence[EditResult], fmt: Format, excerpt_lines: int) -> list[str]:
    if not problems:
        return []
    lines = ["", "Not applied:"]
    for result in problems:
        lines += ["", _title(result), "  " + _cut(result.reason, REASON_CHARS)]
        lines += [f"  {line}" for line in _details(result, fmt, excerpt_lines)]
    return lines


def _compact_problems(problems: Sequence[EditResult]) -> list[str]:
    if not problems:
        return []
    return ["", "Not applied:"] + [
        f"- Line {r.block.line} ({r.path}): {r.status.value}, {_LABELS.get(r.code, r.status.value)}: "
        + _cut(r.reason, COMPACT_REASON_CHARS) for r in problems
    ]


def _title(result: EditResult) -> str:
    label = _LABELS.get(result.code, result.status.value)
    start = preview(result.block.search or result.block.new).strip()
    begins = f", starting “{start}”" if start else ""
    return f"- Block at line {result.block.line} of your reply ({result.path}{begins}): {result.status.value}, {label}."


def _details(result: EditResult, fmt: Format, excerpt_lines: int) -> list[str]:
    """What the model needs to fix this block: the real lines, the candidates, or what to do instead."""
    code, quoted = result.code, quoted_part(fmt)
    if code is Reason.NOT_FOUND:
        if result.hint:
            excerpt = _excerpt(result.hint.split("\n"), excerpt_lines, prefix="    ")
            intro = [f"Your {quoted} (-) against the closest lines of {result.path} (+, with their line numbers):"]
            advice = f"Copy the {quoted} again from the file's lines, exactly as they are."
            return (intro + excerpt if excerpt else []) + [advice]
        quoted_lines = result.block.search.split("\n")[:-1]
        excerpt = _excerpt([_cut(line, QUOTED_LINE_CHARS) for line in quoted_lines], excerpt_lines, prefix="> ")
        intro = [f"Nothing in {result.path} is close to your {quoted}, which was:"] if excerpt else []
        return intro + excerpt + [f"Check the path, and copy the {quoted} from the file's current text."]
    if code is Reason.AMBIGUOUS and result.candidates:
        where = _and_list([str(line) for line in result.candidates])
        return [f"It matches {result.path} at lines {where}; add neighbouring lines to your {quoted} "
                "until it matches only the place you mean."]
    if code is Reason.ALREADY_APPLIED:
        where = f" (lines {_span(result)})" if result.start_line is not None else ""
        return [f"Its new text is already in {result.path}{where}: this change is done, do not send it again."]
    if code is Reason.NO_OP:
        return ["Its old and new text are identical. Leave it out, or send the change you meant."]
    if code is Reason.FILE_NOT_FOUND:
        return ["Use the path of a file you were shown; to create a new file, send a block that creates it."]
    if code is Reason.SKIPPED_AFTER_FAILURE:
        return ["It was not tried because an earlier block for this file failed. Send it again after the "
                "corrected earlier block, quoting the file as it is now."]
    if code in (Reason.ABORTED, Reason.CHANGED_ON_DISK, Reason.WRITE_FAILED):
        return ["Nothing from your reply was written, so send this block again too."]
    return []


def _unreadable_section(unreadable: Sequence[Diagnostic]) -> list[str]:
    if not unreadable:
        return []
    lines = ["", "Could not be read as edit blocks (send them again, complete and well-formed):"]
    return lines + [f"- line {d.line} of your reply: {_cut(d.message, REASON_CHARS)}" for d in unreadable]


def _excerpt(lines: list[str], limit: int, *, prefix: str) -> list[str]:
    if limit <= 0:
        return []
    shown = [prefix + line for line in lines[:limit]]
    if len(lines) > limit:
        shown.append(f"{prefix}(… {len(lines) - limit} more lines cut)")
    return shown


def _fit(head: str, body: list[str], tail: list[str], max_chars: int) -> str:
    """Cut the body line by line until head, body and the instructions fit; cut everything only if they can't."""
    text = "\n".join([head, *body, *tail])
    if len(text) <= max_chars:
        return text
    room = max_chars - len("\n".join([head, *tail])) - 1
    kept: list[str] = []
    for index, line in enumerate(body):
        note = f"(… {len(body) - index} more lines cut)"
        if sum(len(k) + 1 for k in kept) + len(line) + 1 + len(note) + 1 > room:
            kept.append(note)
            break
        kept.append(line)
    text = "\n".join([head, *kept, *tail])
    if len(text) <= max_chars:
        return text
    return text[:max_chars].rsplit("\n", 1)[0]


def _span(result: EditResult) -> str:
    first, last = result.start_line, result.end_line or result.start_line
    return f"{first}" if first == last else f"{first}–{last}"


def _and_list(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" and {items[-1]}"


def _cut(text: str, limit: int) -> str:
    text = " ".join(text.split("\n"))
    return text if len(text) <= limit else text[: limit - 1] + "…"
