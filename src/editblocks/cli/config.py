"""Defaults for command-line options from `[tool.editblocks]` in pyproject.toml (or a `.editblocks.toml`) and
`EDITBLOCKS_*` variables.

A project states once how its answers are applied (`on-failure = "abort"`,
`format = "diff-fenced"`) instead of every script repeating the options.
Every name is the option as typed, without its dashes: the key `on-failure`,
the variables `EDITBLOCKS_APPLY_ON_FAILURE` (one command) and
`EDITBLOCKS_ON_FAILURE` (every command that has the option). An option on the
command line wins over a variable, which wins over pyproject.toml.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import click

from editblocks.cli.shared import InputError

ENV_PREFIX = "EDITBLOCKS"
OWN_FILE = ".editblocks.toml"  # the same keys as [tool.editblocks], at its top level, for projects without pyproject


def add_environment_variables(command_name: str, command: click.Command) -> None:
    """Give each option of a command its two variables, `EDITBLOCKS_<COMMAND>_<OPTION>` then `EDITBLOCKS_<OPTION>`.

    Named after the option's spelling (`--diff`: `..._DIFF`), which click's
    `auto_envvar_prefix` would name after the Python parameter instead.
    """
    for option_name, option in _options(command).items():
        if option.envvar is None:
            variable = option_name.replace("-", "_").upper()
            option.envvar = [f"{ENV_PREFIX}_{command_name.upper()}_{variable}", f"{ENV_PREFIX}_{variable}"]


def project_defaults(group: click.Group, ctx: click.Context, start: Path) -> dict[str, dict[str, Any]]:
    """click's `default_map` from the `[tool.editblocks]` table of the pyproject.toml nearest to ``start``.

    Keys at the top of the table apply to every command that has the option;
    a sub-table such as `[tool.editblocks.apply]` to that command alone, and
    it wins. An unknown command or option is refused in one line (exit 2).
    """
    path = nearest_config(start)
    if path is None:
        return {}
    table = _editblocks_table(path)
    if not table:
        return {}
    commands = {name: group.get_command(ctx, name) for name in group.list_commands(ctx)}
    shared = {key: value for key, value in table.items() if not isinstance(value, dict)}
    per_command = {key: value for key, value in table.items() if isinstance(value, dict)}
    unknown = sorted(per_command.keys() - commands.keys())
    if unknown:
        raise InputError(f"{path}: [tool.editblocks.{unknown[0]}] names no editblocks command", code="bad-config")
    defaults: dict[str, dict[str, Any]] = {}
    used: set[str] = set()
    for command_name, command in commands.items():
        options = _options(command) if command is not None else {}
        chosen = {options[key].name: _value(options[key], value, path) for key, value in shared.items()
                  if key in options}
        used.update(key for key in shared if key in options)
        for key, value in per_command.get(command_name, {}).items():
            if key not in options:
                raise InputError(f"{path}: [tool.editblocks.{command_name}] sets {key!r}, which is not an option of "
                                 f"`editblocks {command_name}`", code="bad-config")
            chosen[options[key].name] = _value(options[key], value, path)
        if chosen:
            defaults[command_name] = chosen
    unused = sorted(shared.keys() - used)
    if unused:
        raise InputError(f"{path}: [tool.editblocks] sets {unused[0]!r}, which is not an option of any command",
                         code="bad-config")
    return defaults


def nearest_config(start: Path) -> Path | None:
    """The `.editblocks.toml` or pyproject.toml in ``start`` or the closest folder above it (the first wins)."""
    for folder in (start, *start.parents):
        for name in (OWN_FILE, "pyproject.toml"):
            candidate = folder / name
            if candidate.is_file():
                return candidate
    return None


def _value(option: click.Option, value: Any, pyproject: Path) -> Any:
    """A relative path in pyproject.toml means a path next to it, wherever editblocks runs from."""
    if isinstance(option.type, click.Path) and isinstance(value, str):
        return str(pyproject.parent / value)
    return value


def _editblocks_table(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            document = tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise InputError(f"cannot read {path}: {error}", code="bad-config") from None
    if path.name == OWN_FILE:
        return document
    tool = document.get("tool", {})
    table = tool.get("editblocks", {}) if isinstance(tool, dict) else {}
    if not isinstance(table, dict):
        raise InputError(f"{path}: tool.editblocks must be a table", code="bad-config")
    return table


def _options(command: click.Command) -> dict[str, click.Option]:
    """A command's options by their long spelling without dashes (`on-failure`), help and version left out."""
    options: dict[str, click.Option] = {}
    for param in command.params:
        if isinstance(param, click.Option) and not param.is_eager and param.name:
            for spelling in param.opts:
                if spelling.startswith("--"):
                    options[spelling[2:]] = param
    return options
