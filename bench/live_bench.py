"""Live answers: CPU per streamed token of an answer with many blocks, through the live locator, on a big file.

    .venv/bin/python bench/live_bench.py [--blocks 40] [--lines 20000] [--rounds 7]

The answer (prose and ``--blocks`` SEARCH/REPLACE blocks spread over one ``--lines``-line file, built as
bench/ask_bench.py builds it) is fed in 4-character chunks, about one token each, to `LiveAnswer` over a
`LiveLocator` (what `ask` and the review page run while a model streams: parse, then locate each finished
block against the file as the blocks before it left it), with no display. Beside it, the same chunks through
the bare `StreamParser`: the part of the cost that is parsing. CPU time (`process_time`) divided by the
number of chunks, medians of interleaved rounds. Goal: at most 5 us per token (there is no peer).
"""

from __future__ import annotations

from ask_bench import PATH, answer, big_file, sources
from goalkit import Row, Work, command_line, emit, interleaved_cpu, options

from editblocks import Status, StreamParser
from editblocks.service.live import LiveAnswer, LiveLocator

CHUNK = 4
GOAL_MICROSECONDS = 5.0


def measure(blocks: int, lines: int, rounds: int) -> tuple[list[Row], list[str]]:
    file_text = big_file(lines)
    text = answer(blocks)
    chunks = [text[i : i + CHUNK] for i in range(0, len(text), CHUNK)]

    def live() -> LiveAnswer:
        stream = LiveAnswer(LiveLocator(sources(file_text)))
        for chunk in chunks:
            stream.feed(chunk)
        stream.close()
        return stream

    def parser_only() -> None:
        parser = StreamParser()
        for chunk in chunks:
            parser.feed(chunk)
        parser.close()

    applied = [located.result.status for located in live().located]
    assert applied == [Status.APPLIED] * blocks, f"not every block applied to {PATH}: {applied}"
    medians = interleaved_cpu({"live": Work(live), "parser": Work(parser_only)}, rounds)
    per_token = medians["live"] / len(chunks) * 1e6
    parsing = medians["parser"] / len(chunks) * 1e6
    notes = [f"{len(chunks):,} chunks of {CHUNK} characters, {blocks} blocks, {lines:,}-line file: live "
             f"{per_token:.1f} us per chunk, of which parsing {parsing:.1f} us; per block "
             f"{(medians['live'] - medians['parser']) / blocks * 1000:.2f} ms beyond parsing"]
    return [Row(f"live answer, {blocks} blocks on a {lines:,}-line file (CPU per token)", f"{per_token:.1f} us",
                f"{parsing:.1f} us (StreamParser alone, not a peer)", None, f"<= {GOAL_MICROSECONDS:g} us",
                per_token <= GOAL_MICROSECONDS, command_line())], notes


def main() -> None:
    parser = options(__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=40)
    parser.add_argument("--lines", type=int, default=20_000)
    args = parser.parse_args()
    rows, notes = measure(args.blocks, args.lines, args.rounds)
    emit(rows, args.json, notes)


if __name__ == "__main__":
    main()
