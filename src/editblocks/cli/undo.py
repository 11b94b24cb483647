"""`editblocks undo`: restore the files (and git index entries) of the last apply, byte for byte."""

from __future__ import annotations

import sys

import click

from editblocks.cli.shared import (
    EXIT_FAILED,
    EXIT_OK,
    JsonAwareCommand,
    console,
    emit_json,
    root_option,
    workspace_error,
)


@click.command("undo", cls=JsonAwareCommand)
@root_option()
@click.option("--force", is_flag=True, help="Also restore files that were edited after the run wrote them.")
@click.option("--json", "as_json", is_flag=True, help="Print what was restored as JSON.")
def undo_command(root: str | None, force: bool, as_json: bool) -> None:
    """Undo the last apply under --root, byte for byte."""
    from editblocks.service.undo import undo
    from editblocks.text.diff import printable
    from editblocks.workspace import WorkspaceError

    try:
        outcome = undo(root or ".", force=force)
    except WorkspaceError as error:
        raise workspace_error(error) from None
    if as_json:
        from editblocks.report.serialize import undo_json

        emit_json(undo_json(outcome))
    else:
        out = console()
        for path in outcome.restored:
            out.print(f"restored {printable(path)}", markup=False)
        for path in outcome.removed:
            out.print(f"removed  {printable(path)}", markup=False)
        for path in outcome.refused:
            out.print(f"left as is (changed since the run): {printable(path)}", style="yellow", markup=False)
        out.print(printable(outcome.message), markup=False)
    sys.exit(EXIT_OK if outcome.ok else EXIT_FAILED)
