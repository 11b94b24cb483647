"""A streamed answer and the same answer parsed at once give the same blocks, in every format and any chunking.

Issue 25: `ask --format v4a` (or `udiff`) edited a file the patch never
named when the patch's context lines quoted SEARCH/REPLACE markers (a README
about edit blocks): the stream read them as a marker block while the one-shot
parse read the patch. The property below feeds answers mixing prose, marker
blocks, patches quoting markers and whole files, cut into random chunks,
through the stream parser and through `LiveAnswer` (what `ask` and the review
page drive), for every format.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from ask_server import Answer, scripted, use_local_endpoint
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from editblocks import StreamParser, parse
from editblocks.cli import main
from editblocks.model import Format
from editblocks.plan import TargetFile
from editblocks.service.live import BlockLocated, LiveAnswer, LiveLocator

README = ("# Edit blocks\nWrite:\napp.py\n<<<<<<< SEARCH\nold = 1\n=======\nnew = 2\n>>>>>>> REPLACE\n")
APP = "old = 1\n"
V4A_QUOTING = ("*** Begin Patch\n*** Update File: README.md\n@@\n-# Edit blocks\n+# Edit blocks, explained\n"
               " Write:\n app.py\n <<<<<<< SEARCH\n old = 1\n =======\n new = 2\n >>>>>>> REPLACE\n*** End Patch\n")
UDIFF_QUOTING = ("--- a/README.md\n+++ b/README.md\n@@ -1,8 +1,8 @@\n-# Edit blocks\n+# Edit blocks, explained\n"
                 " Write:\n app.py\n <<<<<<< SEARCH\n old = 1\n =======\n new = 2\n >>>>>>> REPLACE\n")
MARKER_BLOCK = "app.py\n```python\n<<<<<<< SEARCH\nold = 1\n=======\nnew = 2\n>>>>>>> REPLACE\n```\n"
WHOLE = "app.py\n```python\nnew = 3\n```\n"
PIECES = [
    "Here is the change.\n", "\n", "Run `pytest` afterwards.\n", V4A_QUOTING, UDIFF_QUOTING, MARKER_BLOCK, WHOLE,
    "```diff\n" + UDIFF_QUOTING + "```\n", "<<<<<<< SEARCH\n", "=======\n", ">>>>>>> REPLACE\n", "*** Begin Patch\n",
    "*** End Patch\n", "--- a/x.py\n", "+++ b/x.py\n", "@@ -1 +1 @@\n", "-a\n", "+b\n", " c\n", "\r\n",
]


def chunked(text: str, cuts: list[int]) -> list[str]:
    points = sorted({min(max(cut, 0), len(text)) for cut in cuts} | {0, len(text)})
    return [text[start:end] for start, end in zip(points, points[1:])]


def locator() -> LiveLocator:
    texts = {"README.md": README, "app.py": APP}
    return LiveLocator(lambda path: TargetFile(path, texts.get(path)))


answers = st.lists(st.sampled_from(PIECES), min_size=1, max_size=6).map("".join)
cut_points = st.lists(st.integers(min_value=0, max_value=2_000), max_size=12)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=answers, cuts=cut_points, fmt=st.sampled_from(sorted(Format)))
def test_streamed_and_one_shot_parsing_agree_for_every_format(text: str, cuts: list[int], fmt: Format) -> None:
    whole = parse(text, fmt)
    parser = StreamParser(fmt)
    for chunk in chunked(text, cuts):
        parser.feed(chunk)
    parser.close()
    assert parser.result() == whole
    live = LiveAnswer(locator(), fmt)
    for chunk in chunked(text, cuts):
        live.feed(chunk)
    live.close()
    assert live.result().blocks == whole.blocks
    assert [located.block for located in live.located] == list(whole.blocks)


@pytest.mark.parametrize(("fmt", "patch"), [("v4a", V4A_QUOTING), ("udiff", UDIFF_QUOTING)])
def test_a_streamed_patch_quoting_markers_edits_only_the_file_it_names(fmt: str, patch: str) -> None:
    live = LiveAnswer(locator(), fmt)
    events = []
    for start in range(0, len(patch), 3):
        events += live.feed(patch[start : start + 3])
    events += live.close()
    located = [event.block.path for event in events if isinstance(event, BlockLocated)]
    assert located == ["README.md"]
    assert [block.path for block in live.result().blocks] == ["README.md"]


@pytest.mark.parametrize(("fmt", "patch"), [("v4a", V4A_QUOTING), ("udiff", UDIFF_QUOTING)])
def test_ask_with_a_patch_format_edits_only_the_file_the_patch_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                    fmt: str, patch: str) -> None:
    use_local_endpoint(monkeypatch)
    root = tmp_path / "project"
    root.mkdir()
    (root / "README.md").write_text(README)
    (root / "app.py").write_text(APP)
    monkeypatch.chdir(root)
    with scripted([Answer("Here is the patch.\n\n" + patch, chunk=5)]) as server:
        result = CliRunner().invoke(main, ["ask", "Retitle the README", "README.md", "--model", "test-model",
                                           "--base-url", server.base_url, "--api-key-env", "TEST_KEY", "--backoff",
                                           "0.01", "--format", fmt, "--yes"])
    assert result.exit_code == 0, result.output
    assert (root / "app.py").read_text() == APP
    assert (root / "README.md").read_text() == README.replace("# Edit blocks\n", "# Edit blocks, explained\n")
