"""The omitted-lines rung: a diff hunk whose context skips lines of the file, placed piece by piece or refused.

Issue 24 (udiff accuracy): models writing hunks by hand leave out an entry or a short function between two lines
they show as neighbours. The rung must keep the lines left out, place the change where only one place fits, and
refuse every shape where the left-out lines make the change's place a guess.
"""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_reliability import GROWTH_FACTOR, GROWTH_LIMIT, growth_ratio, slow

from editblocks import ResultCode, apply, parse
from editblocks.locate import omitted_lines
from editblocks.locate.cache import TOLERANT_HUNK_STEPS
from editblocks.locate.omitted_lines import MAX_OMITTED, MAX_PIECES, MAX_STATES, locate_omitting_lines
from editblocks.locate.types import Ambiguous, Found, Rung
from editblocks.locate.view import FileView


def hunk(body: str) -> tuple[list[str], list[str], str]:
    """The old lines, new lines and marks of a hunk body written with ` `, `-` and `+` prefixes."""
    search: list[str] = []
    replace: list[str] = []
    marks = ""
    for line in body.splitlines():
        mark, text = line[:1] or " ", line[1:]
        marks += mark
        if mark != "+":
            search.append(text)
        if mark != "-":
            replace.append(text)
    return search, replace, marks


def place(file_text: str, body: str) -> Found | Ambiguous | str | None:
    return locate_omitting_lines(FileView(file_text.splitlines()), *hunk(body))


def applied(file_text: str, found: Found | Ambiguous | str | None) -> str:
    assert isinstance(found, Found), found
    lines = file_text.splitlines()
    return "\n".join([*lines[: found.start], *found.new_lines, *lines[found.end :]]) + "\n"


REPORT = """\
def total(rows):
    return sum(rows)


def title():
    return "Report"


def main(rows):
    print(title())
    print(total(rows))
"""


def test_a_function_left_out_between_two_kept_lines_stays():
    body = " def total(rows):\n-    return sum(rows)\n+    return round(sum(rows), 2)\n \n \n def main(rows):\n" \
           "-    print(title())\n+    print(title().upper())\n"
    found = place(REPORT, body)
    assert isinstance(found, Found) and found.strategy is Rung.OMITTED_LINES
    assert applied(REPORT, found) == REPORT.replace("return sum(rows)", "return round(sum(rows), 2)").replace(
        "print(title())", "print(title().upper())")
    assert found.sources.count(None) == 2  # only the two changed lines are new; the left-out lines are the file's


SETTINGS = '{\n  "server": {\n    "host": "0.0.0.0",\n    "port": 8000,\n    "workers": 4,\n    "debug": false\n  }\n}\n'


def test_lines_added_in_place_of_removed_ones_go_before_the_lines_left_out_after_them():
    found = place(SETTINGS, '   "server": {\n-    "port": 8000,\n+    "port": 8080,\n+    "tls": true,\n     "debug": false\n')
    assert applied(SETTINGS, found) == SETTINGS.replace('"port": 8000,', '"port": 8080,\n    "tls": true,')


def test_a_removed_line_after_left_out_lines_is_removed_alone():
    found = place(SETTINGS, '   "server": {\n     "host": "0.0.0.0",\n-    "workers": 4,\n     "debug": false\n')
    assert applied(SETTINGS, found) == SETTINGS.replace('    "workers": 4,\n', "")


def test_an_insertion_where_lines_are_left_out_is_a_guess_and_not_placed():
    # Above the left-out `"workers"` line or below it? Nothing says.
    outcome = place(SETTINGS, '     "port": 8000,\n+    "tls": true,\n     "debug": false\n')
    assert isinstance(outcome, str) and "makes its change a guess" in outcome


def test_lines_left_out_inside_a_run_of_removed_lines_are_not_placed():
    # Removing `port` and `debug` around `workers`: was `workers` to go too?
    outcome = place(SETTINGS, '     "host": "0.0.0.0",\n-    "port": 8000,\n-    "debug": false\n   }\n')
    assert isinstance(outcome, str) and "makes its change a guess" in outcome


def test_removed_lines_that_also_read_as_split_by_left_out_lines_are_a_guess():
    # `-}` `-c()` occur together after two left-out lines, but the first `}` could be the one meant, with the
    # lines after it left out inside the removed run: which `}` goes is a guess.
    text = "a()\n}\ne()\n}\nc()\na()\nz()\n"
    outcome = place(text, " a()\n-}\n-c()\n a()\n")
    assert isinstance(outcome, str) and "makes its change a guess" in outcome


def test_a_context_line_the_file_does_not_have_is_never_skipped():
    # The model believes a line is there that is not: its change may rely on it, so the hunk is not placed.
    assert place(SETTINGS, '   "server": {\n     "host": "127.0.0.1",\n-    "port": 8000,\n+    "port": 1\n') is None
    assert place(REPORT, " def main(rows):\n     rows = sorted(rows)\n+    print(len(rows))\n     print(title())\n") \
        is None


def test_more_left_out_lines_than_the_limit_are_not_read_so():
    def steps(count: int) -> str:
        return "def run():\n    begin()\n" + "".join(f"    step_{n}()\n" for n in range(count)) + "    end()\n"

    body = "     begin()\n-    end()\n+    finish()\n"
    assert place(steps(MAX_OMITTED + 1), body) is None
    assert applied(steps(MAX_OMITTED), place(steps(MAX_OMITTED), body)) == \
        steps(MAX_OMITTED).replace("end()", "finish()")


def test_every_piece_must_occur_once_in_the_file():
    filler = "".join(f"other_{n}()\n" for n in range(20))
    text = f"d = 4\n{filler}a = 1\nb = 2\nc = 3\nd = 4\n"
    # Lined up, `d = 4` can only be the last line; but as a piece on its own it also occurs at the top of the file.
    refused = place(text, " a = 1\n b = 2\n-d = 4\n")
    assert isinstance(refused, str) and "occur more than once" in refused
    assert applied(text, place(text, " a = 1\n b = 2\n-c = 3\n+c = 0\n d = 4\n")) == text.replace("c = 3", "c = 0")


def test_two_placements_that_change_different_lines_are_ambiguous():
    text = "start()\nlog()\nx = 1\nlog()\nx = 1\nstop()\n"
    outcome = place(text, " start()\n-x = 1\n+x = 2\n stop()\n")
    assert isinstance(outcome, str) and "more than one way" in outcome
    pinned = place(text, " start()\n log()\n-x = 1\n+x = 2\n log()\n stop()\n")  # only the first `x = 1` fits
    assert applied(text, pinned) == "start()\nlog()\nx = 2\nlog()\nx = 1\nstop()\n"


def test_pieces_over_the_limit_are_not_read_so():
    kept = "".join(f"keep_{n}()\nskip_{n}()\n" for n in range(MAX_PIECES + 1))
    body = "".join(f" keep_{n}()\n" for n in range(MAX_PIECES + 1)) + "+done()\n"
    outcome = place(kept, body)
    assert isinstance(outcome, str) and "places" in outcome


WORDS = ("a()", "b()", "c()", "d()", "e()", "}", "", "x = 1", "return")


@slow
@settings(max_examples=1500, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(WORDS), min_size=4, max_size=30), st.data())
def test_a_hunk_with_kept_lines_left_out_lands_where_it_was_written_or_nowhere(file_lines, data):
    # A hunk written against a file of few distinct lines, then some kept lines it shows between two other shown
    # lines (none of them added) taken out: it may be refused, but if placed, it makes the original change.
    start = data.draw(st.integers(0, len(file_lines) - 3))
    size = data.draw(st.integers(3, min(12, len(file_lines) - start)))
    rows: list[str] = []
    new_region: list[str] = []
    for number, line in enumerate(file_lines[start : start + size]):
        if data.draw(st.booleans()):
            rows.append(" " + line)
            new_region.append(line)
        else:
            rows.append("-" + line)
        if data.draw(st.integers(0, 3)) == 0:
            rows.append(f"+added_{number}")
            new_region.append(f"added_{number}")
    droppable = [at for at in range(1, len(rows) - 1)
                 if rows[at][0] == " " and rows[at - 1][0] != "+" and rows[at + 1][0] != "+"]
    if not droppable:
        return
    dropped = set(data.draw(st.lists(st.sampled_from(droppable), min_size=1, max_size=3)))
    body = "".join(row + "\n" for at, row in enumerate(rows) if at not in dropped)
    text = "".join(line + "\n" for line in file_lines)
    outcome = place(text, body)
    if isinstance(outcome, Found):
        expected = [*file_lines[:start], *new_region, *file_lines[start + size :]]
        assert applied(text, outcome) == "".join(line + "\n" for line in expected)


@slow
def test_a_hunk_of_common_lines_over_a_file_of_them_costs_a_bounded_search():
    # Every `}` of the hunk can stand for a dozen `}` of the file: the ways multiply until the budget stops them.
    def case(size: int) -> Callable[[], object]:
        text = "x()\n" + "}\n" * (50 * size)
        body = " x()\n" + " }\n" * (2 * size) + "-missing()\n"
        return lambda: place(text, body)

    assert case(1)() is None
    ratio = growth_ratio(case(50), case(50 * GROWTH_FACTOR), GROWTH_LIMIT)
    assert ratio < GROWTH_LIMIT, f"{ratio:.1f}x for {GROWTH_FACTOR}x the hunk and the file"


def test_the_hunks_of_one_file_share_one_allowance_of_steps(tmp_path, monkeypatch):
    # Sixty hunks that each could line up thousands of ways: past the file's allowance, the rest are not searched.
    steps = []

    class Counted(omitted_lines._Reach):
        def __init__(self, *fields: object) -> None:
            steps.append(1)
            super().__init__(*fields)

    monkeypatch.setattr(omitted_lines, "_Reach", Counted)
    (tmp_path / "braces.txt").write_text("x()\n" + "}\n" * 5000)
    braces = " }\n" * 300
    hunks = "".join(f"@@ ... @@\n x()\n{braces}-missing_{number}()\n+found_{number}()\n" for number in range(60))
    result = apply(parse("--- braces.txt\n+++ braces.txt\n" + hunks, "udiff"), tmp_path, dry_run=True)
    assert all(outcome.code is ResultCode.NOT_FOUND for outcome in result.results)
    assert MAX_STATES * 2 < len(steps) <= TOLERANT_HUNK_STEPS
