"""Where the parser's output goes: diagnostics, shell suggestions and, when streaming, the event list.

Kept apart from the parser so that the order rules of the event stream live
in one place: plain text is gathered into one text event and flushed before
anything else is reported, and a block's progress always adds up to its whole
text, so how a response was cut into chunks changes only where text and
progress events are split, never what they say or in which order.
"""

from __future__ import annotations

from editblocks.model import (
    Diagnostic,
    DiagnosticEvent,
    Event,
    Severity,
    ShellSuggested,
    ShellSuggestion,
)
from editblocks.parsing.sections import SECTION_NAMES, OpenBlock, section_bounds
from editblocks.parsing.values import (
    block_progress,
    diagnostic,
    formatted_diagnostic,
    shell_suggestion,
    text_event,
)


class EventSink:
    """Collects diagnostics and shell suggestions always, and events only when `enabled`.

    It does not know which block is open: whoever reports a diagnostic while a
    block is open reports that block's progress first (the assembler does).
    """

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.diagnostics: list[Diagnostic] = []
        self.shell: list[ShellSuggestion] = []
        self._events: list[Event] = []
        self._text: list[str] = []
        self._text_line = 0

    def add_text(self, lines: str, number: int) -> None:
        """Keep whole lines (each ending in a newline) for the next text event; ``number`` is the first one's."""
        if not self._text:
            self._text_line = number
        self._text.append(lines)

    def emit(self, event: Event) -> None:
        """Send an event after the text read before it; only call it when `enabled`."""
        self._flush_text()
        self._events.append(event)

    def suggest(self, command: str, number: int) -> None:
        suggestion = shell_suggestion(command, number)
        self.shell.append(suggestion)
        if self.enabled:
            self.emit(ShellSuggested(suggestion))

    def suggest_all(self, commands: list[tuple[int, str]]) -> None:
        """A shell fence's commands, each with its line: one call per fence, not per command."""
        if self.enabled:
            for number, command in commands:
                self.suggest(command, number)
        else:
            self.shell.extend([shell_suggestion(command, number) for number, command in commands])

    def error(self, line: int, message: str) -> None:
        self.diagnose(diagnostic(Severity.ERROR, line, message))

    def warn(self, line: int, message: str) -> None:
        self.diagnose(diagnostic(Severity.WARNING, line, message))

    def error_formatted(self, line: int, template: str, other: int) -> None:
        """An error whose message is ``template`` formatted with ``line`` and ``other`` when it is read."""
        self.diagnose(formatted_diagnostic(Severity.ERROR, line, template, other))

    def diagnose(self, diagnostic: Diagnostic) -> None:
        self.diagnostics.append(diagnostic)
        if self.enabled:
            self.emit(DiagnosticEvent(diagnostic))

    def progress(self, block: OpenBlock, final: bool = False) -> None:
        """Report the block's text not yet sent, per section, before whatever ends it or comes next.

        Text from ``block.held_from`` on (after a SEARCH block's second separator) is held back until the block
        ends (``final``): the block may turn out to have ended at that separator, and then that text is read
        again outside it. Called once per fed chunk, so the usual case costs one extra comparison.
        """
        if not self.enabled:
            return
        body, reported, dividers = block.body, block.reported, block.dividers
        end = len(body)
        if end > block.held_from and not final:
            end = block.held_from
        if reported >= end:
            return
        self._flush_text()
        if not dividers or dividers[-1].index <= reported:
            names = SECTION_NAMES[block.start]
            name = names[min(len(dividers), len(names) - 1)]
            self._events.append(block_progress(block.line, name, "".join(body[reported:end])))
        else:
            for name, begin, stop in section_bounds(block, reported):
                stop = min(stop, end)
                if begin < stop:
                    self._events.append(block_progress(block.line, name, "".join(body[begin:stop])))
        block.reported = end

    def take_line(self, block: OpenBlock) -> list[Event]:
        """`take(block)` right after the open block gained one content line, the usual case when a model streams
        tokens, done in fewer steps: with nothing else waiting, nothing held back and no divider since the last
        report, the events are one progress event for the text not yet reported."""
        if not self.enabled:
            return []
        body, reported, dividers = block.body, block.reported, block.dividers
        end = len(body)
        if self._events or self._text or end > block.held_from or reported >= end or (
                dividers and dividers[-1].index > reported):
            return self.take(block)
        names = SECTION_NAMES[block.start]
        added = body[reported] if reported == end - 1 else "".join(body[reported:end])
        block.reported = end
        return [block_progress(block.line, names[min(len(dividers), len(names) - 1)], added)]

    def take(self, open_block: OpenBlock | None) -> list[Event]:
        """The events so far: the open block's progress and the text read so far included."""
        if not self.enabled:
            return []
        if open_block is not None:
            self.progress(open_block)
        if self._text:
            self._flush_text()
        events, self._events = self._events, []
        return events

    def _flush_text(self) -> None:
        if self._text:
            self._events.append(text_event("".join(self._text), self._text_line))
            self._text = []
