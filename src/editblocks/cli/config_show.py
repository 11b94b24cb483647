"""`editblocks config` and every command's `--show-config`: each option's effective value and what set it.

A setting that seems to come from nowhere is how a prepared repository
would steer a run, so the answer names its source exactly: the command line,
the variable, the file (user or project), or the built-in default; and it
lists the keys and files that were ignored, with the reason.
"""

from __future__ import annotations

import functools
import os
from typing import Any, Final

import click
from click.core import ParameterSource

from editblocks.cli.config import Configuration, Ignored, options_of
from editblocks.cli.shared import JSON_HELP, JsonAwareCommand, console, emit_json
from editblocks.record import Record

CONFIGURATION = "editblocks.configuration"  # key in the context's `meta`, shared by the group and its command


class Setting(Record):
    """One option's effective value; ``source`` is `command-line`, `env`, `user-file`, `project-file` or
    `default`, and ``origin`` the variable or file behind it."""

    __slots__ = ("option", "value", "source", "origin")
    option: Final[str]
    value: Final[Any]
    source: Final[str]
    origin: Final[str | None]

    def __init__(self, option: str, value: Any, source: str, origin: str | None) -> None:
        self.option = option
        self.value = value
        self.source = source
        self.origin = origin


def configuration(ctx: click.Context) -> Configuration:
    found = ctx.meta.get(CONFIGURATION)
    return found if isinstance(found, Configuration) else Configuration()


def add_show_config(command: click.Command) -> None:
    """Give ``command`` a `--show-config` flag: parse the command line as usual, then print the settings instead
    of running."""
    if any(param.name == "show_config" for param in command.params) or command.callback is None:
        return
    command.params.append(click.Option(
        ["--show-config"], is_flag=True,
        help="Print every option's value and what set it (command line, variable, file or default); run nothing."))
    run = command.callback

    @functools.wraps(run)
    def callback(*args: Any, show_config: bool = False, **kwargs: Any) -> Any:
        if not show_config:
            return run(*args, **kwargs)
        ctx = click.get_current_context()
        name = ctx.info_name or command.name or ""
        show({name: parsed_settings(ctx, name)}, configuration(ctx), as_json=bool(kwargs.get("as_json")))
        return None

    command.callback = callback


@click.command("config", cls=JsonAwareCommand)
@click.argument("commands", nargs=-1, metavar="[COMMAND]...")
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
@click.pass_context
def config_command(ctx: click.Context, commands: tuple[str, ...], as_json: bool) -> None:
    """Print every option of each command (or of COMMAND) with its value and what set it, and what was ignored."""
    parent = ctx.parent
    if parent is None or not isinstance(parent.command, click.Group):
        raise click.UsageError("`config` runs as `editblocks config`")
    group = parent.command
    names = [name for name in group.list_commands(parent) if name != "config"]
    for name in commands:
        if name not in names:
            raise click.BadParameter(f"{name!r} is not an editblocks command (one of {', '.join(names)})",
                                     param_hint="COMMAND")
    sections = {}
    for name in commands or names:
        command = group.get_command(parent, name)
        if command is not None and options_of(command):
            sections[name] = default_settings(parent, name, command)
    show(sections, configuration(ctx), as_json=as_json)


def parsed_settings(ctx: click.Context, command_name: str) -> list[Setting]:
    """The settings of the command ``ctx`` has just parsed, the command line included."""
    config = configuration(ctx)
    settings = []
    for key, option in _distinct_options(ctx.command):
        name = option.name or key
        source = ctx.get_parameter_source(name)
        if source is ParameterSource.COMMANDLINE:
            settings.append(Setting(key, ctx.params.get(name), "command-line", None))
        elif source is ParameterSource.ENVIRONMENT:
            settings.append(Setting(key, ctx.params.get(name), "env", _variable_set(option)))
        elif source is ParameterSource.DEFAULT_MAP:
            settings.append(_from_file(config, command_name, key, name, ctx.params.get(name)))
        else:
            settings.append(Setting(key, ctx.params.get(name), "default", None))
    return settings


def default_settings(parent: click.Context, command_name: str, command: click.Command) -> list[Setting]:
    """The settings ``command`` would start from with nothing on its command line: variables, files, defaults."""
    config = configuration(parent)
    ctx = click.Context(command, info_name=command_name, parent=parent)
    settings = []
    for key, option in _distinct_options(command):
        name = option.name or key
        variable = _variable_set(option)
        if variable is not None:
            settings.append(Setting(key, _cast(ctx, option, os.environ[variable]), "env", variable))
        elif name in config.defaults.get(command_name, {}):
            value = _cast(ctx, option, config.defaults[command_name][name])
            settings.append(_from_file(config, command_name, key, name, value))
        else:
            settings.append(Setting(key, _default(ctx, option), "default", None))
    return settings


def _default(ctx: click.Context, option: click.Option) -> Any:
    """The option's built-in default as the command receives it (click marks "no default" with a sentinel)."""
    value = option.get_default(ctx)
    if type(value).__name__ == "Sentinel":
        return () if option.multiple else None
    return value


def config_json(sections: dict[str, list[Setting]], config: Configuration) -> dict[str, Any]:
    from editblocks.report.serialize import versioned

    files = [{"kind": kind, "path": str(path) if path is not None else None,
              "exists": path is not None and path.is_file()}
             for kind, path in (("user", config.user_file), ("project", config.project_file))]
    return versioned({
        "files": files,
        "commands": {name: [{"option": s.option, "value": _plain(s.value), "source": s.source, "from": s.origin}
                            for s in settings] for name, settings in sections.items()},
        "ignored": [{"file": str(item.file), "table": item.table, "key": item.key, "reason": item.reason,
                     "set_instead": item.set_instead} for item in _relevant(config, sections)],
    })


def show(sections: dict[str, list[Setting]], config: Configuration, *, as_json: bool) -> None:
    if as_json:
        emit_json(config_json(sections, config))
        return
    lines = [f"user file     {config.user_file or '(no home folder)'}{_missing(config.user_file)}",
             f"project file  {config.project_file or '(none found)'}"]
    for name, settings in sections.items():
        width = max(len(setting.option) for setting in settings)
        shown = [_shown(setting.value) for setting in settings]
        value_width = min(max(len(text) for text in shown), 40)
        lines += ["", name]
        lines += [f"  {setting.option:<{width}}  {text:<{value_width}}  {_source_text(setting)}"
                  for setting, text in zip(settings, shown, strict=True)]
    ignored = _relevant(config, sections)
    if ignored:
        lines += ["", "ignored"] + [f"  {item.describe()}" for item in ignored]
    out = console()
    for line in lines:
        out.print(line, markup=False)


def _distinct_options(command: click.Command) -> list[tuple[str, click.Option]]:
    seen: set[int] = set()
    found = []
    for key, option in options_of(command).items():
        if id(option) not in seen:
            seen.add(id(option))
            found.append((key, option))
    return found


def _from_file(config: Configuration, command_name: str, key: str, name: str, value: Any) -> Setting:
    file = config.origins.get(command_name, {}).get(name)
    if file is None:
        return Setting(key, value, "default", None)
    return Setting(key, value, f"{file.kind}-file", str(file.path))


def _variable_set(option: click.Option) -> str | None:
    """The first of the option's variables that is set and not empty (the one click reads)."""
    names = [option.envvar] if isinstance(option.envvar, str) else list(option.envvar or [])
    return next((name for name in names if os.environ.get(name)), None)


def _cast(ctx: click.Context, option: click.Option, value: Any) -> Any:
    """``value`` as the option would convert it; as it is when it would be refused (the command then says why)."""
    try:
        return option.type_cast_value(ctx, value)
    except click.BadParameter:
        return value


def _relevant(config: Configuration, sections: dict[str, list[Setting]]) -> list[Ignored]:
    return [item for item in config.ignored if item.commands is None or item.commands & sections.keys()]


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def _shown(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    import json  # only when settings are shown

    return json.dumps(_plain(value), ensure_ascii=False)


def _source_text(setting: Setting) -> str:
    if setting.source in ("user-file", "project-file"):
        return f"{setting.source.replace('-', ' ')} {setting.origin}"
    if setting.source == "env":
        return f"env {setting.origin}"
    return setting.source.replace("-", " ")


def _missing(path: object) -> str:
    return " (not found)" if path is not None and not os.path.isfile(str(path)) else ""
