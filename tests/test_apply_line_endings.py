"""The line-ending matrix: the file's style survives whatever line endings the response or the blocks carry.

File: LF, CRLF, mixed (CRLF first), mixed (LF first); with and without a
final newline. Searched text: LF or CRLF. Replacement text: LF or CRLF.
Delivered either as a response (parsed, so the parser normalises it) or as
`EditBlock` objects handed straight to `apply` (no parser in between).

The expected bytes are computed here from the file's own lines, independently
of editblocks: untouched lines byte-identical, a context line the block only
quotes keeps its own ending, a changed or added line takes the ending of the
replaced line at its position (the last replaced line's, past the end), and the
presence or absence of a final newline never flips.
"""

from __future__ import annotations

import pytest

from editblocks import BlockKind, EditBlock, Format, Status, parse
from editblocks.service.apply import apply

from helpers_apply import make_tree, single

LINES = ("alpha = 1", "beta = 2", "gamma = 3", "delta = 4")
STYLES = {
    "lf": ("\n", "\n", "\n", "\n"),
    "crlf": ("\r\n", "\r\n", "\r\n", "\r\n"),
    "mixed-crlf-first": ("\r\n", "\n", "\r\n", "\n"),
    "mixed-lf-first": ("\n", "\r\n", "\n", "\r\n"),
}


def file_bytes(endings: tuple[str, ...], final_newline: bool) -> bytes:
    endings = endings[:-1] + ((endings[-1],) if final_newline else ("",))
    return "".join(line + ending for line, ending in zip(LINES, endings)).encode()


def with_eol(text: str, eol: str) -> str:
    return text.replace("\n", eol)


def response(old: str, new: str, *, path_eol: str, search_eol: str, replace_eol: str) -> str:
    """A `diff` response whose marker lines, searched lines and replacement lines use the given endings."""
    return (
        f"target.txt{path_eol}```{path_eol}<<<<<<< SEARCH{search_eol}"
        + with_eol(old, search_eol)
        + f"======={replace_eol}"
        + with_eol(new, replace_eol)
        + f">>>>>>> REPLACE{path_eol}```{path_eol}"
    )


def run_both_ways(tmp_path, delivery, old, new, search_eol, replace_eol):
    if delivery == "response":
        text = response(old, new, path_eol=search_eol, search_eol=search_eol, replace_eol=replace_eol)
        return apply(parse(text), tmp_path)
    block = EditBlock("target.txt", "", with_eol(old, search_eol), with_eol(new, replace_eol), "",
                      BlockKind.EDIT, Format.DIFF, 1)
    return apply([block], tmp_path)


EOL_NAME = {"\n": "lf", "\r\n": "crlf"}
MATRIX = [
    pytest.param(style, final, s_eol, r_eol, delivery,
                 id=f"{style}-{'final' if final else 'nofinal'}-search_{EOL_NAME[s_eol]}-replace_{EOL_NAME[r_eol]}-{delivery}")
    for style in STYLES
    for final in (True, False)
    for s_eol in ("\n", "\r\n")
    for r_eol in ("\n", "\r\n")
    for delivery in ("response", "blocks")
]


@pytest.mark.parametrize(("style", "final", "search_eol", "replace_eol", "delivery"), MATRIX)
def test_edit_in_the_middle_keeps_the_files_style(tmp_path, style, final, search_eol, replace_eol, delivery):
    endings = STYLES[style]
    original = file_bytes(endings, final)
    make_tree(tmp_path, {"target.txt": original})
    # lines 2–3: "beta" changes, "gamma" is quoted context, one line is new
    outcome = run_both_ways(tmp_path, delivery, "beta = 2\ngamma = 3\n", "BETA = 20\ngamma = 3\nnew = 5\n",
                            search_eol, replace_eol)
    result = single(outcome)
    assert result.status is Status.APPLIED
    assert result.strategy == "exact"  # CRLF→LF normalisation of both sides is part of the exact rung
    last = endings[3] if final else ""
    expected = (
        "alpha = 1" + endings[0]
        + "BETA = 20" + endings[1]  # replaces beta, so takes its ending
        + "gamma = 3" + endings[2]
        + "new = 5" + endings[2]  # past the replaced lines: the last replaced line's ending
        + "delta = 4" + last
    ).encode()
    assert (tmp_path / "target.txt").read_bytes() == expected
    assert b"\r\r" not in expected  # sanity of the oracle itself


@pytest.mark.parametrize(("style", "final", "search_eol", "replace_eol", "delivery"), MATRIX)
def test_edit_of_the_last_line_keeps_the_final_newline_state(tmp_path, style, final, search_eol, replace_eol, delivery):
    endings = STYLES[style]
    original = file_bytes(endings, final)
    make_tree(tmp_path, {"target.txt": original})
    outcome = run_both_ways(tmp_path, delivery, "delta = 4\n", "DELTA = 40\nepsilon = 5\n", search_eol, replace_eol)
    assert single(outcome).status is Status.APPLIED
    ending = endings[3] if final else endings[0]  # delta had none: a line that needs one gets the file's first
    head = original[: original.index(b"delta")]
    expected = head + ("DELTA = 40" + ending + "epsilon = 5" + (ending if final else "")).encode()
    assert (tmp_path / "target.txt").read_bytes() == expected


@pytest.mark.parametrize("style", list(STYLES))
@pytest.mark.parametrize("response_eol", ["\n", "\r\n"])
def test_deleting_lines_leaves_neighbours_byte_identical(tmp_path, style, response_eol):
    endings = STYLES[style]
    original = file_bytes(endings, True)
    make_tree(tmp_path, {"target.txt": original})
    outcome = apply(parse(response("beta = 2\ngamma = 3\n", "", path_eol=response_eol, search_eol=response_eol,
                                   replace_eol=response_eol)), tmp_path)
    assert single(outcome).status is Status.APPLIED
    assert (tmp_path / "target.txt").read_bytes() == ("alpha = 1" + endings[0] + "delta = 4" + endings[3]).encode()


@pytest.mark.parametrize("style", list(STYLES))
def test_a_tolerant_rung_also_keeps_the_style(tmp_path, style):
    endings = STYLES[style]
    lines = ("def f():", "    one()  ", "    two()", "done = 1")
    original = "".join(line + ending for line, ending in zip(lines, endings)).encode()
    make_tree(tmp_path, {"target.txt": original})
    text = response("def f():\n    one()\n    two()\n", "def f():\n    one()\n    three()\n    four()\n",
                    path_eol="\r\n", search_eol="\r\n", replace_eol="\n")
    result = single(apply(parse(text), tmp_path))
    assert result.strategy == "trailing-whitespace"
    expected = ("def f():" + endings[0] + "    one()  " + endings[1] + "    three()" + endings[2]
                + "    four()" + endings[2] + "done = 1" + endings[3]).encode()
    assert (tmp_path / "target.txt").read_bytes() == expected


@pytest.mark.parametrize("style", list(STYLES))
def test_elided_lines_keep_their_own_endings(tmp_path, style):
    endings = STYLES[style]
    lines = ("def f():", "    x = 1", "    y = 2", "    return x")
    original = "".join(line + ending for line, ending in zip(lines, endings)).encode()
    make_tree(tmp_path, {"target.txt": original})
    text = response("def f():\n    ...\n    return x\n", "def g():\n    ...\n    return y\n",
                    path_eol="\n", search_eol="\n", replace_eol="\n")
    result = single(apply(parse(text), tmp_path))
    assert result.strategy == "elision"
    expected = ("def g():" + endings[0] + "    x = 1" + endings[1] + "    y = 2" + endings[2]
                + "    return y" + endings[3]).encode()
    assert (tmp_path / "target.txt").read_bytes() == expected


@pytest.mark.parametrize("eol", ["\n", "\r\n"])
def test_created_file_has_one_consistent_ending_and_a_final_newline(tmp_path, eol):
    text = f"made.txt{eol}```{eol}<<<<<<< SEARCH{eol}======={eol}one{eol}two{eol}>>>>>>> REPLACE{eol}```{eol}"
    assert single(apply(parse(text), tmp_path)).status is Status.APPLIED
    assert (tmp_path / "made.txt").read_bytes() == b"one\ntwo\n"


@pytest.mark.parametrize("eol", ["\n", "\r\n"])
def test_created_file_from_a_block_never_doubles_carriage_returns(tmp_path, eol):
    block = EditBlock("made.txt", "", "", f"one{eol}two", "", BlockKind.CREATE, Format.DIFF, 1)
    assert single(apply([block], tmp_path)).status is Status.APPLIED
    data = (tmp_path / "made.txt").read_bytes()
    assert b"\r\r" not in data and data.replace(b"\r\n", b"\n") == b"one\ntwo\n"


def test_a_lone_carriage_return_inside_a_line_is_content(tmp_path):
    original = b"progress\rdone\nvalue = 1\n"
    make_tree(tmp_path, {"target.txt": original})
    single(apply(parse(response("value = 1\n", "value = 2\n", path_eol="\n", search_eol="\n", replace_eol="\n")), tmp_path))
    assert (tmp_path / "target.txt").read_bytes() == b"progress\rdone\nvalue = 2\n"


def test_untouched_last_line_ending_in_a_bare_carriage_return_is_kept(tmp_path):
    # The last line has no LF but ends with a CR: an edit elsewhere must not drop that byte.
    original = b"value = 1\nlast line\r"
    make_tree(tmp_path, {"target.txt": original})
    result = single(apply(parse(response("value = 1\n", "value = 2\n", path_eol="\n", search_eol="\n",
                                         replace_eol="\n")), tmp_path))
    assert result.status is Status.APPLIED
    assert (tmp_path / "target.txt").read_bytes() == b"value = 2\nlast line\r"


def test_crlf_file_filled_through_an_empty_file_and_edited_later(tmp_path):
    make_tree(tmp_path, {"target.txt": b""})
    single(apply(parse(response("", "one\ntwo\n", path_eol="\r\n", search_eol="\r\n", replace_eol="\r\n")), tmp_path))
    assert (tmp_path / "target.txt").read_bytes() == b"one\ntwo\n"
    (tmp_path / "target.txt").write_bytes(b"one\r\ntwo\r\n")
    single(apply(parse(response("two\n", "two\nthree\n", path_eol="\n", search_eol="\n", replace_eol="\n")), tmp_path))
    assert (tmp_path / "target.txt").read_bytes() == b"one\r\ntwo\r\nthree\r\n"
