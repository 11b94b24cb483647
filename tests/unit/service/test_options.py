"""`ApplyOptions`: one option set, spelt as `editblocks apply` spells it, settable the same way at every door."""

from __future__ import annotations

from dataclasses import fields

import click
import pytest

from editblocks.cli import main
from editblocks.errors import ArgumentError
from editblocks.model import Format, Policy
from editblocks.service.options import ApplyOptions

API_ONLY = {"lock_wait"}  # how long to wait for another process: a program's choice, not a command-line option
WRITING = {"git_add", "keep_runs", "journal_max_mb"}


def option_names(command_name: str) -> set[str]:
    command = main.get_command(click.Context(main), command_name)
    assert command is not None
    return {spelling[2:].replace("-", "_") for param in command.params if isinstance(param, click.Option)
            for spelling in param.opts if spelling.startswith("--")}


FIELDS = {field.name for field in fields(ApplyOptions)} - API_ONLY


@pytest.mark.parametrize(("command", "left_out"), [
    ("apply", set()), ("serve", set()), ("mcp", set()), ("check", WRITING), ("ask", {"format"}),
])
def test_every_door_on_the_command_line_takes_the_options_by_the_same_names(command: str, left_out: set[str]) -> None:
    """`ask` has its own `--format` (the format the model is asked for, which its answers are read in); `check`
    writes nothing, so the journal and git options mean nothing to it."""
    assert FIELDS - left_out <= option_names(command)


def test_options_are_read_by_field_name_or_option_spelling() -> None:
    options = ApplyOptions.from_mapping({"on-failure": "abort", "first_match": True, "known-files": ["a.py"],
                                         "format": "guillemet", "journal-max-mb": 2})
    assert options == ApplyOptions(format=Format.GUILLEMET, on_failure=Policy.ABORT, first_match=True,
                                   known_files=("a.py",), journal_max_mb=2)
    assert options.journal_max_bytes == 2 << 20
    assert options.plan_options().policy is Policy.ABORT
    legacy = ApplyOptions.from_mapping({"policy": "skip-file", "journal_max_bytes": 1000})
    assert legacy.on_failure is Policy.SKIP_FILE and legacy.journal_max_bytes == 1000


@pytest.mark.parametrize("values", [{"colour": True}, {"on_failure": "sometimes"}, {"format": "yaml"}])
def test_an_unknown_option_or_value_is_a_clear_error(values: dict[str, object]) -> None:
    with pytest.raises(ArgumentError):
        ApplyOptions.from_mapping(values)
