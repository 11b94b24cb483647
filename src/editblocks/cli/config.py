"""Defaults for command-line options from config files and `EDITBLOCKS_*` variables, and where each came from.

Order of precedence: the command line, then the environment
(`EDITBLOCKS_<COMMAND>_<OPTION>`, `EDITBLOCKS_<OPTION>`, and a few variables
other tools share, such as `OPENAI_BASE_URL`), then the user's own file
(`$XDG_CONFIG_HOME/editblocks/config.toml`, by default
`~/.config/editblocks/config.toml`), then the project's file (the nearest
`.editblocks.toml`, or `[tool.editblocks]` in the nearest pyproject.toml),
then the built-in default.

Every name is the option as typed, without its dashes (the key
`on-failure`). Keys at the top of a file apply to every command that has the
option, a table named after a command (`[apply]`, `[tool.editblocks.apply]`)
to that command alone, and it wins. The user's file may set anything; the
project's file only what `config_trust` allows. A file owned by someone other
than the user or root is ignored: in a folder others can write to, such as
`/tmp`, anyone could have put it there.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any, Final

import click

from editblocks.cli.config_trust import project_value
from editblocks.cli.shared import InputError
from editblocks.record import Record

ENV_PREFIX = "EDITBLOCKS"
OWN_FILE = ".editblocks.toml"  # the same keys as [tool.editblocks], at its top level, for projects without pyproject
USER_FILE = ("editblocks", "config.toml")  # under $XDG_CONFIG_HOME, or ~/.config
MAX_CONFIG_BYTES = 4 << 20  # a config file larger than this is refused unread
NOT_CONFIGURABLE = frozenset({"show_config"})  # parameter names no file or variable sets


class ConfigFile(Record):
    """A file options came from: the user's own (trusted with every option) or the project's (see `config_trust`)."""

    __slots__ = ("path", "kind")
    path: Final[Path]
    kind: Final[str]  # "user" or "project"

    def __init__(self, path: Path, kind: str) -> None:
        self.path = path
        self.kind = kind

    @property
    def label(self) -> str:
        return f"{self.kind} file {self.path}"


class Ignored(Record):
    """A key (or, with ``key`` empty, a whole file) that was not used, and why."""

    __slots__ = ("file", "table", "key", "reason", "set_instead", "commands")
    file: Final[Path]
    table: Final[str]
    key: Final[str]
    reason: Final[str]
    set_instead: Final[str]
    commands: Final[frozenset[str] | None]  # the commands it would have configured; None: every command

    def __init__(self, file: Path, table: str, key: str, reason: str, set_instead: str,
                 commands: frozenset[str] | None) -> None:
        self.file = file
        self.table = table
        self.key = key
        self.reason = reason
        self.set_instead = set_instead
        self.commands = commands

    def describe(self) -> str:
        if not self.key:
            return f"{self.file}: {self.reason}"
        return f"{self.key} in {self.file} {self.table}: {self.reason}; {self.set_instead}"


class Configuration:
    """click's `default_map`, the file each default came from, and what was ignored."""

    __slots__ = ("defaults", "origins", "ignored", "user_file", "project_file")

    def __init__(self, *, user_file: Path | None = None, project_file: Path | None = None) -> None:
        self.defaults: dict[str, dict[str, Any]] = {}
        self.origins: dict[str, dict[str, ConfigFile]] = {}
        self.ignored: list[Ignored] = []
        self.user_file = user_file
        self.project_file = project_file

    def warnings(self, command_name: str | None) -> list[str]:
        """One line per ignored key (or file) that would have configured ``command_name``."""
        return [f"warning: ignoring {item.describe()}" for item in self.ignored
                if item.commands is None or command_name in item.commands]

    def lay_over(self, file: ConfigFile, chosen: dict[str, dict[str, Any]]) -> None:
        """Lay ``chosen`` over what is there: a file added later wins."""
        for command_name, values in chosen.items():
            self.defaults.setdefault(command_name, {}).update(values)
            self.origins.setdefault(command_name, {}).update(dict.fromkeys(values, file))


def add_environment_variables(command_name: str, command: click.Command) -> None:
    """Give each option of a command its two variables, `EDITBLOCKS_<COMMAND>_<OPTION>` then `EDITBLOCKS_<OPTION>`,
    before any variable the option names itself (`OPENAI_BASE_URL`).

    Named after the option's spelling (`--diff`: `..._DIFF`), which click's
    `auto_envvar_prefix` would name after the Python parameter instead.
    """
    for option_name, option in options_of(command).items():
        variable = option_name.replace("-", "_").upper()
        ours = [f"{ENV_PREFIX}_{command_name.upper()}_{variable}", f"{ENV_PREFIX}_{variable}"]
        declared = [option.envvar] if isinstance(option.envvar, str) else list(option.envvar or [])
        if declared[:2] != ours:
            option.envvar = ours + declared


def load_configuration(group: click.Group, ctx: click.Context, start: Path) -> Configuration:
    """Read the user's file and the project's file nearest to ``start`` into one `Configuration`.

    An unknown command or option, or a file that cannot be parsed, is refused
    in one line (exit 2), naming the likely key when there is one.
    """
    config = Configuration(user_file=user_config_path(), project_file=nearest_config(start))
    found = [ConfigFile(path, kind) for path, kind in ((config.project_file, "project"), (config.user_file, "user"))
             if path is not None and os.path.isfile(path)]
    tables = [(file, table) for file in found if (table := _trusted_table(file, config))]
    if not tables:
        return config
    commands = {name: command for name in group.list_commands(ctx)
                if (command := group.get_command(ctx, name)) is not None}
    for file, table in tables:  # the project's first, so the user's wins
        config.lay_over(file, _chosen(file, table, commands, config))
    return config


def user_config_path() -> Path | None:
    """`$XDG_CONFIG_HOME/editblocks/config.toml` (an absolute XDG_CONFIG_HOME only), else under `~/.config`."""
    base = os.environ.get("XDG_CONFIG_HOME", "")
    if not os.path.isabs(base):
        try:
            base = str(Path.home() / ".config")
        except RuntimeError:  # no home folder to be found
            return None
    return Path(base).joinpath(*USER_FILE)


def nearest_config(start: Path) -> Path | None:
    """The `.editblocks.toml` or pyproject.toml in ``start`` or the closest folder above it (the first wins)."""
    for folder in (start, *start.parents):
        for name in (OWN_FILE, "pyproject.toml"):
            candidate = folder / name
            if os.path.isfile(candidate):
                return candidate
    return None


def options_of(command: click.Command) -> dict[str, click.Option]:
    """A command's options by their long spelling without dashes (`on-failure`), help and version left out."""
    options: dict[str, click.Option] = {}
    for param in command.params:
        if isinstance(param, click.Option) and not param.is_eager and param.name not in NOT_CONFIGURABLE:
            for spelling in param.opts:
                if spelling.startswith("--"):
                    options[spelling[2:]] = param
    return options


def _chosen(file: ConfigFile, table: dict[str, Any], commands: dict[str, click.Command],
            config: Configuration) -> dict[str, dict[str, Any]]:
    """The option values ``table`` sets, per command and parameter name; refused keys go to ``config.ignored``."""
    prefix = "" if file.kind == "user" or file.path.name == OWN_FILE else "tool.editblocks."
    shared = {key: value for key, value in table.items() if not isinstance(value, dict)}
    per_command = {key: value for key, value in table.items() if isinstance(value, dict)}
    for name in sorted(per_command.keys() - commands.keys()):
        raise InputError(f"{file.path}: {_table_label(prefix, name)} names no editblocks command"
                         f"{_did_you_mean(name, commands)}",
                         code="bad-config")
    chosen: dict[str, dict[str, Any]] = {}
    refused: dict[tuple[str, str], tuple[str, set[str]]] = {}  # (table, key): (why, the commands it would set)
    every_option = {key for command in commands.values() for key in options_of(command)}
    for key in sorted(shared.keys() - every_option):
        raise InputError(f"{file.path}: {_table_label(prefix, '')} sets {key!r}, which is not an option "
                         f"of any command{_did_you_mean(key, every_option)}", code="bad-config")
    for command_name, command in commands.items():
        options = options_of(command)
        own = per_command.get(command_name, {})
        for key in sorted(own.keys() - options.keys()):
            raise InputError(f"{file.path}: {_table_label(prefix, command_name)} sets {key!r}, which is not an "
                             f"option of `editblocks {command_name}`{_did_you_mean(key, options)}", code="bad-config")
        layered = [(key, value, "") for key, value in shared.items() if key in options]
        layered += [(key, value, command_name) for key, value in own.items()]
        for key, value, table_name in layered:
            option = options[key]
            if file.kind == "user":
                accepted, why = _user_value(option, value), None
            else:
                accepted, why = project_value(key, value, file.path.parent)
            if why is not None:
                refused.setdefault((table_name, key), (why, set()))[1].add(command_name)
                continue
            _check_type(f"{file.path}: {_table_label(prefix, table_name)}", key, option, accepted, command)
            chosen.setdefault(command_name, {})[option.name or key] = accepted
    for (table_name, key), (why, names) in refused.items():
        config.ignored.append(Ignored(file.path, _table_label(prefix, table_name), key, why,
                                      _set_instead(key, table_name, config.user_file), frozenset(names)))
    return chosen


def _table_label(prefix: str, table_name: str) -> str:
    """How a table is written in its file: `[tool.editblocks.apply]`, `[apply]`, `[tool.editblocks]`, `[top level]`."""
    return f"[{prefix}{table_name}]" if table_name else f"[{prefix.rstrip('.') or 'top level'}]"


def _check_type(where: str, key: str, option: click.Option, value: Any, command: click.Command) -> None:
    """Refuse a value the option would refuse, naming the file, now rather than in a run that never mentions it.

    A path is checked when its command runs: a folder missing today must not
    stop every other command.
    """
    if isinstance(option.type, click.Path):
        return
    try:
        option.type_cast_value(click.Context(command), value)
    except click.BadParameter as error:
        raise InputError(f"{where} sets {key} = {value!r}: {error.message}", code="bad-config") from None


def _user_value(option: click.Option, value: Any) -> Any:
    """A path in the user's file may start with `~`; a relative one is taken from the current folder, as typed."""
    if isinstance(option.type, click.Path) and isinstance(value, str):
        return os.path.expanduser(value)
    return value


def _set_instead(key: str, command_name: str, user_file: Path | None) -> str:
    variable = key.replace("-", "_").upper()
    scope = f"{command_name.upper()}_" if command_name else ""
    where = f" or in {user_file}" if user_file is not None else ""
    return f"set it with --{key}, {ENV_PREFIX}_{scope}{variable}{where}"


def _did_you_mean(word: str, known: Any) -> str:
    import difflib  # only for a misspelt key

    close = difflib.get_close_matches(word, sorted(known), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _trusted_table(file: ConfigFile, config: Configuration) -> dict[str, Any] | None:
    """The editblocks table of ``file``, or None when it has none or another user owns it (then noted as ignored).

    A file someone else owns is still read, quietly, only to see whether it
    holds editblocks settings worth a warning; it never configures anything.
    """
    owner, document = _read(file.path)
    table = _editblocks_table(file, document) if document is not None else None
    if owner in (os.geteuid(), 0):
        if document is None:
            raise InputError(f"cannot read {file.path}: it is not a regular file of at most {MAX_CONFIG_BYTES >> 20}"
                             " MiB", code="bad-config")
        if table is None:
            raise InputError(f"{file.path}: tool.editblocks must be a table", code="bad-config")
        return table
    if document is None or table is None or table:
        where = "the command line, the environment" + (f" or {config.user_file}" if config.user_file else "")
        config.ignored.append(Ignored(file.path, "", "", f"it is owned by uid {owner}, not by you (uid "
                                      f"{os.geteuid()}) or root, so anyone could have put it there; set options "
                                      f"with {where}", "", None))
    return None


def _read(path: Path) -> tuple[int | None, dict[str, Any] | None]:
    """The owner of ``path`` and its TOML document (None if it is not a regular file, too large or unreadable).

    The owner is that of the file actually read; opening never blocks (a
    FIFO planted under a config file's name is not waited on). A file the
    user owns that is not valid TOML is an error (exit 2).
    """
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        try:
            owner = os.stat(path).st_uid
        except OSError:
            owner = None
        if owner in (os.geteuid(), 0):
            raise InputError(f"cannot read {path}: {error.strerror or error}", code="bad-config") from None
        return owner, None
    with os.fdopen(descriptor, "rb") as handle:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            return info.st_uid, None
        data = handle.read(MAX_CONFIG_BYTES + 1)
    trusted = info.st_uid in (os.geteuid(), 0)
    if len(data) > MAX_CONFIG_BYTES:
        return info.st_uid, None
    import tomllib  # only when there is a config file to read

    try:
        return info.st_uid, tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError) as error:
        if trusted:
            why = "it is nested too deeply" if isinstance(error, RecursionError) else str(error)
            raise InputError(f"cannot read {path}: {why}", code="bad-config") from None
        return info.st_uid, None


def _editblocks_table(file: ConfigFile, document: dict[str, Any]) -> dict[str, Any] | None:
    """The settings in ``document``: all of it, or its `[tool.editblocks]` table (None if that is not a table)."""
    if file.kind == "user" or file.path.name == OWN_FILE:
        return document
    tool = document.get("tool", {})
    table = tool.get("editblocks", {}) if isinstance(tool, dict) else {}
    return table if isinstance(table, dict) else None
