"""`editblocks prompt FORMAT`: print the prompt for one edit format, ready to paste into a chat or a config.

With `--examples` the example exchanges follow (as one text, the way a tool
folds them into the system message) and then the reminder.
"""

from __future__ import annotations

import click

from editblocks.prompts import PROMPT_FORMATS, example_messages, fence_pair, reminder, system_prompt

_ROLE_TITLES = {"user": "## User", "assistant": "## Assistant"}


def render_prompt(
    format: str, *, fence: tuple[str, str], editor: bool = False, shell: bool = True, examples: bool = False
) -> str:
    """The system prompt, and with `examples` the example exchanges and the reminder, as one text."""
    parts = [system_prompt(format, fence=fence, editor=editor, shell=shell).rstrip("\n")]
    if examples:
        parts.append("# Example conversations")
        for message in example_messages(format, fence=fence, editor=editor, shell=shell):
            parts += [_ROLE_TITLES[message["role"]], message["content"]]
        parts.append(reminder(format, fence=fence, editor=editor, shell=shell).rstrip("\n"))
    return "\n\n".join(parts) + "\n"


def _fence_option(_context: click.Context, _parameter: click.Parameter, value: str) -> tuple[str, str]:
    try:
        return fence_pair(value)
    except ValueError as error:
        raise click.BadParameter(str(error)) from None


@click.command("prompt")
@click.argument("format_", metavar="FORMAT", type=click.Choice(PROMPT_FORMATS))
@click.option("--editor", is_flag=True, help="Edits only: a shorter introduction and no shell commands.")
@click.option("--no-shell", is_flag=True, help="Do not invite shell command suggestions.")
@click.option("--fence", default="```", show_default=True, callback=_fence_option,
              help="Opening fence, e.g. '````' when the files contain ``` lines, or '<source>'.")
@click.option("--examples", is_flag=True, help="Also print the example exchanges and the reminder.")
def prompt_command(format_: str, editor: bool, no_shell: bool, fence: tuple[str, str], examples: bool) -> None:
    """Print the system prompt that teaches a model the FORMAT edit format."""
    click.echo(render_prompt(format_, fence=fence, editor=editor, shell=not no_shell, examples=examples), nl=False)
