"""`str_replace` on a big file: editblocks' `ToolHandler` against OpenHands' file editor, in one process.

    .venv/bin/python bench/str_replace_bench.py [--lines 100000 1000000] [--rounds 5] [--openhands-site DIR]

OpenHands' editor is openhands-aci's `OHEditor` (the `str_replace_editor` of OpenHands' agents; the
newer openhands-tools `FileEditor` runs the same `str_replace`), imported from its own site-packages
(``--openhands-site`` or OPENHANDS_SITE). Each editor edits its own copy of a file of code-like, unique lines
(about 47 bytes each), replacing three lines in the middle and, the next round, putting them back, so every call
is a real edit of the whole file. Both write through their own machinery: editblocks' journal and atomic
replace, OpenHands' history cache. CPU time (`process_time`) per call, the median of interleaved rounds after
a warm-up round. Goal: editblocks at most the peer (ratio <= 1).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from goalkit import (
    OPENHANDS,
    Row,
    Toggle,
    Work,
    add_site,
    code_lines,
    command_line,
    emit,
    interleaved_cpu,
    locate_peer,
    options,
    quiet_peer_logging,
    ratio_row,
)

from editblocks.tools import ToolHandler

TOOL = "str_replace_based_edit_tool"


def openhands_editor(site: Path, root: Path) -> Any:
    add_site(site)
    from openhands_aci.editor import OHEditor  # type: ignore[import-not-found]

    quiet_peer_logging()
    return OHEditor(max_file_size_mb=10_000, workspace_root=str(root))


def workloads(lines: list[str], site: Path, folder: Path) -> dict[str, Work]:
    text = "".join(line + "\n" for line in lines)
    middle = len(lines) // 2
    old = "\n".join(lines[middle : middle + 3])
    new = "\n".join([lines[middle], lines[middle + 1] + "  # edited", "    inserted = True", lines[middle + 2]])
    ours_root, theirs_root = folder / "editblocks", folder / "openhands"
    for root in (ours_root, theirs_root):
        root.mkdir()
        (root / "big.py").write_text(text)
    handler = ToolHandler(ours_root)
    editor = openhands_editor(site, theirs_root)
    ours_turn, theirs_turn = Toggle(old, new), Toggle(old, new)

    def ours() -> None:
        old_str, new_str = ours_turn.next()
        reply = handler.call(TOOL, {"command": "str_replace", "path": "big.py", "old_str": old_str,
                                    "new_str": new_str})
        assert reply.ok, reply.text

    def theirs() -> None:
        old_str, new_str = theirs_turn.next()
        editor(command="str_replace", path=str(theirs_root / "big.py"), old_str=old_str, new_str=new_str)

    return {"editblocks": Work(ours), "openhands": Work(theirs)}


def measure(line_counts: list[int], rounds: int, site: Path) -> list[Row]:
    rows = []
    for count in line_counts:
        with tempfile.TemporaryDirectory(prefix="editblocks-str-replace-") as tmp:
            lines = code_lines(count)
            work = workloads(lines, site, Path(tmp))
            medians = interleaved_cpu(work, rounds)
            ours_file = (Path(tmp) / "editblocks" / "big.py").read_bytes()
            assert ours_file == (Path(tmp) / "openhands" / "big.py").read_bytes(), "the editors disagree"
        rows.append(ratio_row(f"str_replace, {count:,}-line file (CPU per call)", medians["editblocks"],
                              medians["openhands"], "ms", "OpenHands OHEditor", 1, command_line()))
    return rows


def main() -> None:
    parser = options(__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--openhands-site", help=f"OpenHands' site-packages (else ${OPENHANDS.env})")
    parser.set_defaults(rounds=5)
    args = parser.parse_args()
    site = locate_peer(OPENHANDS, args.openhands_site)
    emit(measure(args.lines, args.rounds, site), args.json)


if __name__ == "__main__":
    main()
