"""The changes inside one block, so a reviewer can keep some of a block and refuse the rest.

A block that quotes a whole function often changes two places in it. Its old
and new text are compared line by line; each run of removed and added lines
is one change, numbered from 1 in reading order. Refusing a change puts its
old lines back into the block's new text, which is then an ordinary block
again: the planner locates and applies it like any other.

A block whose text can be read more than one way (``readings``, ``literal``)
is only ever taken whole.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection
from dataclasses import replace
from typing import Any

from pygments.lexer import Lexer

from editblocks.model import BlockKind, EditBlock
from editblocks.text.diff import printable, split_lines, word_changes
from editblocks.web.highlight import segments

Opcode = tuple[str, int, int, int, int]


def opcodes(block: EditBlock) -> list[Opcode]:
    """How the block's old lines become its new lines, as `difflib` says it."""
    old, new = split_lines(block.old), split_lines(block.new)
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    return [(str(tag), a, b, c, d) for tag, a, b, c, d in matcher.get_opcodes()]


def change_count(block: EditBlock) -> int:
    """How many changes can be kept or refused one by one (0: the block is taken whole)."""
    if block.readings or block.literal is not None or block.kind not in (BlockKind.EDIT, BlockKind.CREATE):
        return 0
    return sum(1 for tag, *_ in opcodes(block) if tag != "equal")


def without_changes(block: EditBlock, refused: Collection[int]) -> EditBlock:
    """``block`` with the changes numbered in ``refused`` put back as they were."""
    if not refused or change_count(block) == 0:
        return block
    old, new = split_lines(block.old), split_lines(block.new)
    kept: list[str] = []
    number = 0
    for tag, old_start, old_end, new_start, new_end in opcodes(block):
        if tag == "equal":
            kept += old[old_start:old_end]
            continue
        number += 1
        kept += old[old_start:old_end] if number in refused else new[new_start:new_end]
    return replace(block, new="".join(kept))


def change_rows(block: EditBlock, lexer: Lexer) -> list[list[Any]]:
    """The block's text as rows ``[kind, segments, change]``: context ' ', removed '-', added '+', and the number
    of the change a row belongs to (0 for context)."""
    rows: list[list[Any]] = [[" ", segments(_shown(line), lexer), 0] for line in split_lines(block.leading)]
    old, new = split_lines(block.old), split_lines(block.new)
    number = 0
    for tag, old_start, old_end, new_start, new_end in opcodes(block):
        if tag == "equal":
            rows += [[" ", segments(_shown(line), lexer), 0] for line in old[old_start:old_end]]
            continue
        number += 1
        removed = [_shown(line) for line in old[old_start:old_end]]
        added = [_shown(line) for line in new[new_start:new_end]]
        spans = [word_changes(a, b) for a, b in zip(removed, added)] if len(removed) == len(added) else []
        rows += [["-", segments(line, lexer, spans[i][0] if spans else ()), number] for i, line in enumerate(removed)]
        rows += [["+", segments(line, lexer, spans[i][1] if spans else ()), number] for i, line in enumerate(added)]
    rows += [[" ", segments(_shown(line), lexer), 0] for line in split_lines(block.trailing)]
    return rows


def _shown(line: str) -> str:
    return printable(line.removesuffix("\n"))
