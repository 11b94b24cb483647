"""Start-up loads only what a run needs (issue 29): the package, the parser and a piped `apply` load no terminal,
fuzzy-matching, SDK or server library; the plain text a piped `apply` prints is what `rich` would print."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from editblocks import apply, parse
from editblocks.report.display import apply_report
from editblocks.report.outcome_text import plain_apply_report
from tests.helpers_apply import diff_edit, make_tree

REPO = Path(__file__).resolve().parent.parent
HEAVY = ("rich", "click", "rapidfuzz", "openai", "mcp", "httpx", "pydantic", "tomllib")


def loaded_after(code: str, *args: str) -> set[str]:
    """Top-level packages in sys.modules after a fresh interpreter runs ``code``."""
    probe = code + "\nimport sys, json\nprint(json.dumps(sorted({name.split('.')[0] for name in sys.modules})))"
    done = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, check=True,
                          cwd=REPO)
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


def test_import_editblocks_and_parse_load_no_heavy_library():
    loaded = loaded_after("import editblocks\neditblocks.parse('a.py\\n<<<<<<< SEARCH\\nx\\n=======\\ny\\n"
                          ">>>>>>> REPLACE\\n')\nhelp(editblocks)")
    assert loaded.isdisjoint(HEAVY), loaded & set(HEAVY)


def test_piped_apply_dry_run_loads_neither_rich_nor_rapidfuzz(tmp_path):
    code = ("import sys, io, contextlib\nfrom editblocks.cli import main\nsys.argv = ['editblocks', 'apply', "
            "'examples/response.md', '--root', 'examples/project', '--dry-run', '--diff']\n"
            "out = io.StringIO()\nwith contextlib.redirect_stdout(out):\n    try:\n        main()\n"
            "    except SystemExit:\n        pass\nassert 'applied' in out.getvalue(), out.getvalue()")
    loaded = loaded_after(code)
    assert loaded.isdisjoint({"rich", "rapidfuzz", "openai", "mcp", "httpx"}), loaded


def rich_text(result, **flags) -> str:
    out = io.StringIO()
    Console(file=out, highlight=False, soft_wrap=True, emoji=False).print(apply_report(result, **flags))
    return out.getvalue()


ANSWERS = {
    "applied and created": diff_edit("a.py", ("x = 1\n", "x = 2\n")) + diff_edit("new.py", ("", "made = 1\n")),
    "failed with a near miss": diff_edit("a.py", ("def handler(request):\n    return reply(requestt)\n",
                                                  "def handler(request):\n    return None\n")),
    "missing file, control characters": diff_edit("gone\x0c\r.py", ("a\x07\n", "b\x08\n")),
    "many failures cut": "".join(diff_edit("a.py", (f"absent {n}\n", "y\n")) for n in range(60)),
    "tab in a diff line": diff_edit("a.py", ("x = 1\n", "x = 1\t# tabbed\n")),
    "no blocks": "just prose\n",
}


@pytest.mark.parametrize("name", list(ANSWERS))
@pytest.mark.parametrize("show_diffs", [False, True])
@pytest.mark.parametrize("dry_run", [False, True])
def test_plain_apply_report_matches_what_rich_prints_to_a_file(tmp_path, name, show_diffs, dry_run):
    make_tree(tmp_path, {"a.py": "x = 1\n\ndef handler(request):\n    return reply(request)\n"})
    result = apply(parse(ANSWERS[name]), tmp_path, dry_run=dry_run)
    plain = plain_apply_report(result, show_diffs=show_diffs, dry_run=dry_run)
    if plain is None:  # a table or a tab: only rich lays it out
        tabbed = show_diffs and any("\t" in diff.unified for diff in result.diffs)
        assert result.diagnostics or result.shell or tabbed
        return
    assert plain == rich_text(result, show_diffs=show_diffs, dry_run=dry_run)
