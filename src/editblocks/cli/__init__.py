"""The `editblocks` command line: porcelain for people, `--json` and exit codes for scripts.

One module per command group; a command's module is imported only when that
command runs (or its help is asked for), so `editblocks apply` never loads
the evaluation harness and `editblocks --help` loads no command at all.

Exit status (docs/cli.md): 0 every block parsed/applied (or was
already applied), 1 some block failed or was skipped, 2 bad usage or
unreadable input, with nothing written.
"""

from __future__ import annotations

from importlib import import_module
from pathlib import Path

import click

from editblocks.cli.config import add_environment_variables, load_configuration
from editblocks.cli.config_show import CONFIGURATION, add_show_config
from editblocks.cli.shared import ASKS_FOR_JSON, ASKS_FOR_LINES, InputError, JsonAwareGroup, JsonError

COMMANDS = {  # name: (module, command object, one-line help shown by `editblocks --help`)
    "ask": ("ask", "ask_command", "Ask a model to edit FILES; watch its blocks land live, then apply them."),
    "apply": ("apply", "apply_command", "Apply the edit blocks in RESPONSE (a file, or - for stdin) to the files."),
    "check": ("apply", "check_command", "Validate RESPONSE; with --root, also locate every block, writing nothing."),
    "config": ("config_show", "config_command", "Show every option's value and what set it (variable, file, default)."),
    "eval": ("eval", "eval_command", "Replay recorded answers against their files and score every case."),
    "formats": ("parse", "formats_command", "Describe every edit format with a tiny example."),
    "mcp": ("mcp", "mcp_command", "Serve the edit tools to an MCP client (stdio, or --http), inside --root."),
    "parse": ("parse", "parse_command", "List the edit blocks in RESPONSE (a file, or - for stdin)."),
    "prompt": ("prompt", "prompt_command", "Print the system prompt (and examples) for an edit format."),
    "serve": ("serve", "serve_command", "Serve the review page for an answer on 127.0.0.1 (needs editblocks[web])."),
    "schema": ("schema", "schema_command",
               "Print the JSON Schema of --json output (of one command) or of --jsonl events."),
    "undo": ("undo", "undo_command", "Undo the last apply under --root, byte for byte."),
}


class LazyGroup(JsonAwareGroup):
    """Commands are imported on first use; the help listing comes from `COMMANDS` without importing any."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        if cmd_name not in self.commands:
            module, name, _ = COMMANDS[cmd_name]
            command: click.Command = getattr(import_module(f"editblocks.cli.{module}"), name)
            add_environment_variables(cmd_name, command)
            if cmd_name != "config":
                add_show_config(command)
            self.commands[cmd_name] = command
        return self.commands[cmd_name]

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(name, COMMANDS[name][2]) for name in self.list_commands(ctx)])


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="editblocks")
@click.pass_context
def main(ctx: click.Context) -> None:
    """Parse a language model's edit blocks and apply them safely to files.

    Option defaults come from EDITBLOCKS_<COMMAND>_<OPTION> variables, the user's
    ~/.config/editblocks/config.toml, and [tool.editblocks] of the nearest
    pyproject.toml (behaviour only); `editblocks config` shows them (see the documentation, "Configuration").
    """
    try:
        config = load_configuration(main, ctx, Path.cwd())
    except InputError as error:
        raise (JsonError(error, lines=ctx.meta.get(ASKS_FOR_LINES, False)) if ctx.meta.get(ASKS_FOR_JSON)
               else error) from None
    ctx.default_map = config.defaults
    ctx.meta[CONFIGURATION] = config
    if ctx.invoked_subcommand != "config":  # `config` lists what was ignored itself
        for line in config.warnings(ctx.invoked_subcommand):
            click.echo(line, err=True)
