"""The prompts: their examples parse and apply exactly as intended, their texts stay on their own format.

Every example answer, for every format, fence and editor flag, must parse
(with its format and with `auto`) into the blocks declared below and apply
to the files declared below, giving the declared files byte for byte. All
formats play the same three exchanges, so they must all end with the same
files.

The full prompt texts are also compared with golden files in
`tests/snapshots/prompts/`. After a deliberate change to a prompt, rewrite
them with

    EDITBLOCKS_UPDATE_SNAPSHOTS=1 pytest tests/test_prompts.py

and review the diff of the snapshot files like any other change.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from click.testing import CliRunner

from editblocks.cli.prompt import prompt_command, render_prompt
from editblocks.model import FRONT_END_FORMATS, BlockKind, EditBlock, Format, Status
from editblocks.parsing.stream import parse
from editblocks.prompts import (
    PROMPT_FORMATS,
    example_messages,
    example_numbers,
    fence_pair,
    fix_instructions,
    reminder,
    system_prompt,
)
from editblocks.service.apply import apply

SNAPSHOTS = Path(__file__).parent / "snapshots" / "prompts"
UPDATE_SNAPSHOTS = os.environ.get("EDITBLOCKS_UPDATE_SNAPSHOTS") == "1"

FENCES = {"3-backticks": ("```", "```"), "4-backticks": ("````", "````"), "xml": ("<source>", "</source>")}
EDITOR_OF = {"editor-diff": "diff", "editor-diff-fenced": "diff-fenced"}
READ_AS = {**EDITOR_OF, "original-updated": "diff"}
"""What `auto` reports for an answer in these formats (it cannot know about editor variants; aider's first markers
read as diff)."""
MARKER_FORMATS = tuple(fmt for fmt in PROMPT_FORMATS if Format(fmt) not in FRONT_END_FORMATS)
"""The formats of marker blocks; the front-ends' prompts are tested in test_frontend_prompts.py."""


def layout(fmt: str) -> str:
    """The format an answer is written in (editor variants are written as their base format)."""
    return EDITOR_OF.get(fmt, fmt)


def shape(fmt: str) -> str:
    return {"anchored": "anchored", "guillemet": "guillemet"}.get(layout(fmt), "search")


def markers_of(fmt: str) -> str:
    """Which markers a prompt uses: those of its shape, or Zed's tags."""
    return "zed" if fmt == "zed" else shape(fmt)


# --- the example exchanges: files before, intended blocks, files after --------------------------------------------

STOCK_BEFORE = '''import json


def load(path):
    with open(path) as handle:
        return json.load(handle)


def legacy_total(items):
    return total(items)


def save(path, items):
    with open(path, "w") as handle:
        json.dump(items, handle, indent=2)


def total(items):
    count = 0
    for item in items:
        count += item["qty"]
    return count


def low_stock(items, limit=5):
    return [item for item in items if item["qty"] < limit]
'''
STOCK_AFTER = '''import json


def load(path):
    with open(path) as handle:
        return json.load(handle)


def save(path, items):
    with open(path, "w") as handle:
        json.dump(items, handle, indent=2)


def total(items):
    return sum(item["qty"] for item in items)


def low_stock(items, limit=5):
    return [item for item in items if item["qty"] < limit]
'''
LEGACY = "def legacy_total(items):\n    return total(items)\n\n\n"
TOTAL_BODY_OLD = '    count = 0\n    for item in items:\n        count += item["qty"]\n    return count\n'
TOTAL_BODY_NEW = '    return sum(item["qty"] for item in items)\n'

REPORT_HEAD = '"""Text reports of the stock."""\n\n'
REPORT_OLD = '''from inventory.stock import load


def describe(item):
    price = "%d.%02d EUR" % divmod(item["cents"], 100)
    return item["name"] + ": " + price
'''
REPORT_NEW = '''from inventory.money import format_price
from inventory.stock import load


def describe(item):
    return item["name"] + ": " + format_price(item["cents"])
'''
REPORT_TAIL = "\n\ndef report(path):\n    return [describe(item) for item in load(path)]\n"
MONEY = '''def format_price(cents):
    """Format an amount in cents as euros, for example 1250 as "12.50 EUR"."""
    units, rest = divmod(cents, 100)
    return "%d.%02d EUR" % (units, rest)
'''
OLD_MONEY = "def price(cents):\n    return cents / 100\n"

TITLE = "Changes\n=======\n\n"
OLD_SECTIONS = "1.1\n---\n\n- Faster loading of large stock files.\n\n1.0\n---\n\n- First release.\n"
NEW_SECTION = "1.2\n---\n\n- total() now adds up the quantities with sum().\n- legacy_total() was removed.\n\n"


def block(path: str, old: str, new: str, leading: str = "", trailing: str = "") -> tuple:
    """A block as (path, leading, old, new, trailing, kind): what matters, without format and response line."""
    kind = BlockKind.EDIT if (leading + old + trailing).strip() else BlockKind.CREATE
    return (path, leading, old, new, trailing, kind)


def as_tuple(edit: EditBlock) -> tuple:
    return (edit.path, edit.leading, edit.old, edit.new, edit.trailing, edit.kind)


@dataclass(frozen=True)
class Exchange:
    before: dict[str, str]
    after: dict[str, str]
    blocks: dict[str, list[tuple]]  # by shape: search (the SEARCH/REPLACE family), anchored, guillemet
    shell: tuple[str, ...] = ()  # suggestions every variant makes
    shell_fence: tuple[str, ...] = field(default=())  # suggested in a shell fence: only with shell, never guillemet


STOCK = "inventory/stock.py"
REPORT = "inventory/report.py"
EXCHANGES = {
    1: Exchange(
        before={STOCK: STOCK_BEFORE},
        after={STOCK: STOCK_AFTER},
        blocks={
            "search": [block(STOCK, LEGACY, ""),
                       block(STOCK, "def total(items):\n" + TOTAL_BODY_OLD, "def total(items):\n" + TOTAL_BODY_NEW)],
            "anchored": [block(STOCK, LEGACY, "", trailing="def save(path, items):\n"),
                         block(STOCK, TOTAL_BODY_OLD, TOTAL_BODY_NEW, leading="def total(items):\n")],
            "guillemet": [block(STOCK, LEGACY, "", leading="        return json.load(handle)\n\n\n"),
                          block(STOCK, TOTAL_BODY_OLD, TOTAL_BODY_NEW, leading="def total(items):\n")],
        },
        shell_fence=("python -m pytest tests/test_stock.py",),
    ),
    2: Exchange(
        before={REPORT: REPORT_HEAD + REPORT_OLD + REPORT_TAIL, "inventory/old_money.py": OLD_MONEY},
        after={REPORT: REPORT_HEAD + REPORT_NEW + REPORT_TAIL, "inventory/old_money.py": OLD_MONEY,
               "inventory/money.py": MONEY},
        blocks={
            "search": [block("inventory/money.py", "", MONEY), block(REPORT, REPORT_OLD, REPORT_NEW)],
            "anchored": [block("inventory/money.py", "", MONEY),
                         block(REPORT, REPORT_OLD, REPORT_NEW, leading=REPORT_HEAD)],
            "guillemet": [block("inventory/money.py", "", MONEY),
                          block(REPORT, REPORT_OLD, REPORT_NEW, leading=REPORT_HEAD)],
        },
        shell=("git rm inventory/old_money.py",),
    ),
    3: Exchange(
        before={"CHANGES.rst": TITLE + OLD_SECTIONS},
        after={"CHANGES.rst": TITLE + NEW_SECTION + OLD_SECTIONS},
        blocks={
            "search": [block("CHANGES.rst", TITLE + "1.1\n", TITLE + NEW_SECTION + "1.1\n")],
            "anchored": [block("CHANGES.rst", "", NEW_SECTION, leading=TITLE, trailing="1.1\n")],
            "guillemet": [block("CHANGES.rst", "1.1\n", NEW_SECTION + "1.1\n", leading=TITLE)],
        },
    ),
}


def answers(fmt: str, fence: tuple[str, str], editor: bool, shell: bool = True) -> dict[int, str]:
    messages = example_messages(fmt, fence=fence, editor=editor, shell=shell)
    assert [m["role"] for m in messages] == ["user", "assistant"] * len(EXCHANGES)
    return dict(zip(example_numbers(), (m["content"] for m in messages[1::2])))


def test_every_declared_exchange_is_in_the_prompts():
    assert example_numbers() == tuple(EXCHANGES)


@pytest.mark.parametrize("editor", [False, True], ids=["full", "editor"])
@pytest.mark.parametrize("fence_name", list(FENCES))
@pytest.mark.parametrize("fmt", MARKER_FORMATS)
def test_example_answers_parse_into_the_intended_blocks_and_apply_cleanly(fmt, fence_name, editor, tmp_path):
    fence = FENCES[fence_name]
    shell_on = not editor and fmt not in EDITOR_OF
    for number, answer in answers(fmt, fence, editor).items():
        exchange = EXCHANGES[number]
        intended = exchange.blocks[shape(fmt)]
        for parse_as, detected in ((fmt, fmt), ("auto", READ_AS.get(fmt, fmt))):
            parsed = parse(answer, parse_as, fence=fence)
            assert parsed.diagnostics == (), (number, parse_as, parsed.diagnostics)
            assert [as_tuple(b) for b in parsed.blocks] == intended, (number, parse_as)
            assert {b.format for b in parsed.blocks} == {Format(detected)}, (number, parse_as)
            expected_shell = exchange.shell + (exchange.shell_fence if shell_on and fmt != "guillemet" else ())
            assert sorted(s.command for s in parsed.shell) == sorted(expected_shell), (number, parse_as)

        root = tmp_path / f"exchange-{number}"
        for path, text in exchange.before.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(text, encoding="utf-8", newline="")
        result = apply(parse(answer, fmt, fence=fence), root)
        assert [r.status for r in result.results] == [Status.APPLIED] * len(intended), (number, result.results)
        written = {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*")
                   if p.is_file() and ".editblocks" not in p.parts}
        assert written == {path: text.encode() for path, text in exchange.after.items()}, number


def all_texts(fmt: str, fence=FENCES["3-backticks"], editor: bool = False, shell: bool = True) -> str:
    examples = "\n".join(m["content"] for m in example_messages(fmt, fence=fence, editor=editor, shell=shell))
    return "\n".join([system_prompt(fmt, fence=fence, editor=editor, shell=shell), examples,
                      reminder(fmt, fence=fence, editor=editor, shell=shell)])


FOREIGN = {
    "search": ["<<<<<<< EDIT", "««« EDIT", "═══════ REPL", "»»» EDIT END", "leading anchor"],
    "anchored": ["<<<<<<< SEARCH", ">>>>>>> REPLACE", "NEW_FILE", "### File:",
                 "««« EDIT", "═══════ REPL", "»»» EDIT END"],
    "guillemet": ["<<<<<<<", ">>>>>>>", "-------", "SEARCH", "NEW_FILE", "### File:"],
    "zed": ["<<<<<<<", ">>>>>>>", "««« EDIT", "SEARCH", "REPLACE", "NEW_FILE", "### File:"],
}


@pytest.mark.parametrize("editor", [False, True], ids=["full", "editor"])
@pytest.mark.parametrize("fmt", MARKER_FORMATS)
def test_a_prompt_never_mentions_another_formats_markers(fmt, editor):
    text = all_texts(fmt, editor=editor)
    foreign = FOREIGN[markers_of(fmt)] + ([] if layout(fmt) == "search-replace" else ["NEW_FILE", "### File:"])
    assert [marker for marker in foreign if marker in text] == []


@pytest.mark.parametrize("fmt", MARKER_FORMATS)
def test_editor_variants_never_mention_shell_commands(fmt):
    text = all_texts(fmt, editor=True).lower()
    for word in ("shell", "bash", "command", "run the tests"):
        assert word not in text, word


@pytest.mark.parametrize("fmt", ["editor-diff", "editor-diff-fenced"])
def test_editor_formats_by_name_equal_the_editor_flag(fmt):
    base = layout(fmt)
    assert system_prompt(fmt) == system_prompt(base, editor=True)
    assert reminder(fmt) == reminder(base, editor=True)
    assert example_messages(fmt) == example_messages(base, editor=True)


@pytest.mark.parametrize("fmt", ["diff", "diff-fenced", "search-replace", "anchored", "guillemet"])
def test_full_prompts_invite_shell_suggestions_in_a_shell_fence_unless_told_not_to(fmt):
    fence = FENCES["4-backticks"]
    assert "````bash" in system_prompt(fmt, fence=fence) and "````bash" in reminder(fmt, fence=fence)
    quiet = all_texts(fmt, fence=fence, shell=False).lower()
    assert "shell" not in quiet and "bash" not in quiet


def test_the_guillemet_prompt_forbids_fences_and_its_examples_have_none():
    for fence in FENCES.values():
        assert "Never wrap edit blocks in code fences" in system_prompt("guillemet", fence=fence)
        assert "never inside a code fence" in reminder("guillemet", fence=fence)
        for message in example_messages("guillemet", fence=fence):
            for line in message["content"].split("\n"):
                assert not line.strip().startswith(("```", "~~~", fence[0])), line


@pytest.mark.parametrize("fmt", ["diff", "diff-fenced", "editor-diff", "search-replace", "anchored"])
def test_the_configured_fence_is_used_everywhere(fmt):
    fence = FENCES["4-backticks"]
    assert "````python" in system_prompt(fmt, fence=fence)
    fence_lines = [line for m in example_messages(fmt, fence=fence) for line in m["content"].split("\n")
                   if line.startswith("```")]
    assert fence_lines and all(line.startswith("````") for line in fence_lines)
    xml = FENCES["xml"]
    assert "<source>python" in system_prompt(fmt, fence=xml) and "</source>" in system_prompt(fmt, fence=xml)


@pytest.mark.parametrize("editor", [False, True], ids=["full", "editor"])
@pytest.mark.parametrize("fmt", MARKER_FORMATS)
def test_every_prompt_states_the_operations_and_rules(fmt, editor):
    prompt = system_prompt(fmt, editor=editor)
    for needed in ("Create a file", "Delete lines", "Insert lines", "Append to a file", "`git rm", "`git mv",
                   "exactly", "unique", "placeholders", "`...`", "small", "3 lines", "from top to bottom"):
        assert needed in prompt, needed
    where = {"diff": "right before the opening fence", "diff-fenced": "on the line right after the opening fence",
             "search-replace": "right before the opening fence", "anchored": "right before the start marker",
             "guillemet": "right before the start marker", "original-updated": "right before the opening fence",
             "cline": "inside the `<path>` element", "roo": "inside the `<path>` element",
             "zed": "right before `<edits>`"}[layout(fmt)]
    assert where in prompt
    assert ("9-character markers" in prompt) is (fmt not in ("guillemet", "roo", "zed"))
    assert ("backslash in front" in prompt) is (fmt == "roo")
    assert "$" not in prompt + reminder(fmt, editor=editor)


def test_fix_instructions_name_the_formats_markers():
    assert "`<<<<<<< SEARCH`" in fix_instructions("diff") and "NEW_FILE" not in fix_instructions("diff")
    assert "`<<<<<<< NEW_FILE`" in fix_instructions("search-replace")
    assert "`<<<<<<< EDIT`" in fix_instructions("anchored")
    assert "`««« EDIT`" in fix_instructions("guillemet")
    assert fix_instructions("editor-diff-fenced") == fix_instructions("diff-fenced")


@pytest.mark.parametrize("bad", ["auto", "unified-diff"])
def test_a_prompt_needs_a_real_format(bad):
    with pytest.raises(ValueError):
        system_prompt(bad)


@pytest.mark.parametrize("opening, pair", [
    ("```", ("```", "```")), ("````", ("````", "````")), ("~~~", ("~~~", "~~~")),
    (" <source> ", ("<source>", "</source>")),
    ("<codeblock>", ("<codeblock>", "</codeblock>")),
])
def test_fence_pair(opening, pair):
    assert fence_pair(opening) == pair


@pytest.mark.parametrize("opening", ["``", "`~~", "<div>", "fence", ""])
def test_fence_pair_refuses_what_is_not_a_fence(opening):
    with pytest.raises(ValueError):
        fence_pair(opening)


# --- golden snapshots ---------------------------------------------------------------------------------------------

SNAPSHOT_CASES = {
    **{fmt: (fmt, {}) for fmt in PROMPT_FORMATS},
    "search-replace.editor": ("search-replace", {"editor": True}),
    "anchored.editor": ("anchored", {"editor": True}),
    "guillemet.editor": ("guillemet", {"editor": True}),
    "diff.no-shell": ("diff", {"shell": False}),
    "diff.four-backticks": ("diff", {"fence": FENCES["4-backticks"]}),
}


@pytest.mark.parametrize("name", list(SNAPSHOT_CASES))
def test_prompt_text_matches_its_snapshot(name):
    fmt, options = SNAPSHOT_CASES[name]
    text = render_prompt(fmt, fence=options.get("fence", FENCES["3-backticks"]), editor=options.get("editor", False),
                         shell=options.get("shell", True), examples=True)
    path = SNAPSHOTS / f"{name}.txt"
    if UPDATE_SNAPSHOTS:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="")
    assert path.exists(), f"no snapshot {path}; run with EDITBLOCKS_UPDATE_SNAPSHOTS=1 to create it"
    assert text == path.read_text(encoding="utf-8"), f"{name} changed; see the module docstring to update it"


def test_no_stale_snapshots():
    assert sorted(p.stem for p in SNAPSHOTS.glob("*.txt")) == sorted(SNAPSHOT_CASES)


# --- the command --------------------------------------------------------------------------------------------------


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


def test_cli_prints_the_system_prompt(runner):
    result = runner.invoke(prompt_command, ["diff"])
    assert result.exit_code == 0
    assert result.output == system_prompt("diff")


def test_cli_with_examples_prints_prompt_examples_then_reminder(runner):
    result = runner.invoke(prompt_command, ["diff-fenced", "--fence", "````", "--examples"])
    assert result.exit_code == 0
    out = result.output
    assert out.startswith(system_prompt("diff-fenced", fence=FENCES["4-backticks"]).rstrip("\n"))
    assert out.endswith(reminder("diff-fenced", fence=FENCES["4-backticks"]))
    assert out.index("# Example conversations") < out.index("## User") < out.index("## Assistant")
    assert "````python\ninventory/stock.py\n<<<<<<< SEARCH" in out


def test_cli_editor_flag_and_editor_format_agree(runner):
    by_flag = runner.invoke(prompt_command, ["diff", "--editor", "--examples"])
    by_name = runner.invoke(prompt_command, ["editor-diff", "--examples"])
    assert by_flag.exit_code == by_name.exit_code == 0
    assert by_flag.output == by_name.output
    assert "shell" not in by_flag.output.lower()


def test_cli_no_shell_and_xml_fence(runner):
    result = runner.invoke(prompt_command, ["anchored", "--no-shell", "--fence", "<source>", "--examples"])
    assert result.exit_code == 0
    assert "Shell commands" not in result.output
    assert "<source>python\ninventory/stock.py\n<<<<<<< EDIT" in result.output and "\n</source>\n" in result.output


@pytest.mark.parametrize("arguments", [["auto"], ["nonsense"], ["diff", "--fence", "''"], ["diff", "--fence", "<div>"]])
def test_cli_bad_usage_exits_2(runner, arguments):
    result = runner.invoke(prompt_command, arguments)
    assert result.exit_code == 2
