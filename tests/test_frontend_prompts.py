"""The prompts of the front-end formats (udiff, V4A apply_patch, whole): their examples parse and apply as intended.

They play the same three exchanges as the marker formats (test_prompts.py) and
must leave the same files, except that a patch deletes the file the user no
longer needs instead of asking for `git rm`.
"""

from __future__ import annotations

import pytest
from test_prompts import EXCHANGES, FENCES

from editblocks.model import BlockKind, Format, Status
from editblocks.parsing.stream import parse
from editblocks.prompts import example_messages, fix_instructions, reminder, system_prompt
from editblocks.service.apply import apply

FRONT_ENDS = ("v4a", "udiff", "whole")
DETECTED = {"v4a": "v4a", "udiff": "udiff", "whole": None}  # what `auto` reads an answer as (whole: nothing)
KINDS = {
    "v4a": {1: ["edit", "edit"], 2: ["create", "edit", "delete"], 3: ["edit"]},
    "udiff": {1: ["edit", "edit"], 2: ["create", "edit", "delete"], 3: ["edit"]},
    "whole": {1: ["whole"], 2: ["whole", "whole"], 3: ["whole"]},
}


def _after(fmt: str, number: int) -> dict[str, bytes]:
    after = {path: text.encode() for path, text in EXCHANGES[number].after.items()}
    if fmt != "whole" and number == 2:
        del after["inventory/old_money.py"]  # a patch deletes it for real
    return after


@pytest.mark.parametrize("fence_name", list(FENCES))
@pytest.mark.parametrize("fmt", FRONT_ENDS)
def test_example_answers_parse_and_apply_to_the_intended_files(fmt, fence_name, tmp_path):
    fence = FENCES[fence_name]
    answers = [m["content"] for m in example_messages(fmt, fence=fence)[1::2]]
    assert len(answers) == len(EXCHANGES)
    for number, answer in zip(EXCHANGES, answers, strict=True):
        parsed = parse(answer, fmt)
        assert parsed.diagnostics == (), (number, parsed.diagnostics)
        assert [b.kind.value for b in parsed.blocks] == KINDS[fmt][number]
        assert {b.format for b in parsed.blocks} == {Format(fmt)}
        detected = parse(answer)
        if DETECTED[fmt] is None:
            assert detected.blocks == ()
        else:
            assert detected.blocks == parsed.blocks and detected.format == fmt
        root = tmp_path / f"{fmt}-{number}"
        for path, text in EXCHANGES[number].before.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(text, encoding="utf-8", newline="")
        result = apply(parsed, root)
        assert [r.status for r in result.results] == [Status.APPLIED] * len(parsed.blocks), result.results
        written = {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*")
                   if p.is_file() and ".editblocks" not in p.parts}
        assert written == _after(fmt, number), number


@pytest.mark.parametrize("fmt", FRONT_ENDS)
def test_front_end_prompts_teach_their_own_format_and_no_marker_blocks(fmt):
    text = system_prompt(fmt) + reminder(fmt) + "".join(m["content"] for m in example_messages(fmt))
    assert "<<<<<<<" not in text and "NEW_FILE" not in text
    assert "$" not in system_prompt(fmt) + reminder(fmt)
    needed = {"v4a": ["*** Begin Patch", "*** End Patch", "*** Add File:", "*** Delete File:", "*** Move to:",
                      "*** End of File", "@@", "from top to bottom"],
              "udiff": ["--- a/path", "+++ b/path", "@@ ... @@", "/dev/null", "`git mv"],
              "whole": ["complete", "rest of the code", "refused"]}[fmt]
    assert [word for word in needed if word not in text] == []
    if fmt == "v4a":
        assert "git rm" not in text  # a patch deletes files itself


def test_fix_instructions_name_each_front_ends_shape():
    assert "*** Begin Patch" in fix_instructions("v4a")
    assert "--- a/path" in fix_instructions("udiff")
    assert "complete" in fix_instructions("whole")


def test_a_whole_file_example_holds_no_elision_and_creates_no_kind_but_whole():
    for message in example_messages("whole")[1::2]:
        assert {b.kind for b in parse(message["content"], "whole").blocks} == {BlockKind.WHOLE}
