"""`ApplyOptions`: the one set of options that says how answers are applied, at every door.

Each field is an option of `editblocks apply` spelt the same way (`on_failure`
is `--on-failure`, and `on-failure` in the config file), and means the same
at every door: the command line, the config file, `ToolHandler`, the MCP
server's launch options, the review page and `ask`. A door builds one
`ApplyOptions` and hands it to the service; no door keeps options of its own.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from editblocks.errors import ArgumentError
from editblocks.model import Format, Policy
from editblocks.plan import PlanOptions
from editblocks.workspace.journal import KEEP_RUNS, MAX_BYTES

LOCK_WAIT_SECONDS = 30.0
MIB = 1 << 20


@dataclass(frozen=True)
class ApplyOptions:
    """How answers are parsed, located, decided and written."""

    format: Format = Format.AUTO
    """The edit format answers are written in (`auto` detects it); a tool call may name its own."""
    on_failure: Policy | None = None
    """After a failed block: `file` (write a file only when every block for it applies), `continue`, `skip-file`
    (the file's later blocks) or `abort` (write nothing); None: the default, `file`."""
    fuzzy: bool = False
    """Also accept a clearly best close match (it replaces lines the model never quoted exactly)."""
    strict: bool = False
    """Exact matches only, for every format."""
    first_match: bool = False
    """When the old text occurs several times, edit the first occurrence instead of refusing."""
    git_add: bool = False
    """Stage every changed file with git."""
    keep_runs: int = KEEP_RUNS
    """Keep at most this many runs in the undo journal."""
    journal_max_mb: float = MAX_BYTES / MIB
    """Keep the undo journal's saved copies under this many MiB (the newest run always stays)."""
    known_files: tuple[str, ...] | None = None
    """The project's files: a misspelt path maps onto the one file it clearly means, and a missing file's likely
    path is named (None: the files under the root are listed when needed)."""
    lock_wait: float = LOCK_WAIT_SECONDS
    """Seconds to wait for another process that holds the workspace."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "format", Format(self.format))
        if self.on_failure is not None:
            object.__setattr__(self, "on_failure", Policy(self.on_failure))
        if self.known_files is not None:
            object.__setattr__(self, "known_files", tuple(self.known_files))

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> ApplyOptions:
        """Options from a mapping: see `updated`."""
        return cls().updated(values)

    def updated(self, values: Mapping[str, Any]) -> ApplyOptions:
        """These options with the values of a mapping keyed by field name or option spelling (`on-failure`,
        `on_failure`; the old `apply()` keywords `policy` and `journal_max_bytes` are read too); a value of None
        leaves the field as it is. Raises `ArgumentError` for an unknown name or a value of the wrong kind."""
        known = {field.name for field in fields(self)}
        given: dict[str, Any] = {}
        for key, value in values.items():
            name = key.replace("-", "_")
            if name == "policy":
                name = "on_failure"
            elif name == "journal_max_bytes":
                name, value = "journal_max_mb", None if value is None else value / MIB
            if name not in known:
                raise ArgumentError(f"{key!r} is not an option; the options are {', '.join(sorted(known))}")
            if value is not None:
                given[name] = value
        try:
            return replace(self, **given)
        except ValueError as error:
            raise ArgumentError(str(error)) from None

    def with_known_files(self, known: Collection[str] | None) -> ApplyOptions:
        return replace(self, known_files=None if known is None else tuple(known))

    @property
    def journal_max_bytes(self) -> int:
        return round(self.journal_max_mb * MIB)

    def plan_options(self) -> PlanOptions:
        return PlanOptions(policy=self.on_failure, fuzzy=self.fuzzy, first_match=self.first_match, strict=self.strict)


OPTION_NAMES = tuple(field.name for field in fields(ApplyOptions))
