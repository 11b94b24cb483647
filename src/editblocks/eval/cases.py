"""A case as data, whatever it was read from: the answer, the files before and after, options and labels.

A case folder, a dataset row and an imported scenario all become one `Case`,
so every backend (in memory, on disk, on Ray) judges exactly the same thing.
What a case says about itself (case.json, or the option columns of a row) is
checked strictly: an unknown key or a wrong type is a `CaseError`, so a typo
never silently changes what a case tests.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from functools import lru_cache
from typing import Any, Literal

from editblocks.errors import CaseError
from editblocks.eval.calls import ToolCall
from editblocks.eval.case_files import CaseTree
from editblocks.model import Format, Policy
from editblocks.service.options import ApplyOptions

CASE_FILE = "case.json"
FILE_MODE = 0o644


class Expect(StrEnum):
    """The optional case.json `expect`: what the block statuses must say, beyond the files."""

    APPLIED = "applied"  # every block applied
    REFUSED = "refused"  # no block applied
    PARTIAL = "partial"  # some blocks applied, some not


@dataclass(frozen=True)
class CaseOptions:
    """Parsing and applying options for one case; ``None`` means the library default."""

    format: str | None = None
    on_failure: str | None = None
    strict: bool | None = None
    first_match: bool | None = None
    fuzzy: bool | None = None

    def overridden_by(self, other: CaseOptions) -> CaseOptions:
        """These options with every value ``other`` sets taking precedence (command-line overrides)."""
        given = {name: value for name in OPTION_NAMES if (value := getattr(other, name)) is not None}
        return replace(self, **given) if given else self

    def apply_options(self, known_files: tuple[str, ...] | None = None) -> ApplyOptions:
        """The service's options for the case: the same names and meanings as `editblocks apply`'s."""
        return _apply_options(self, known_files)


@lru_cache(maxsize=256)
def _apply_options(options: CaseOptions, known_files: tuple[str, ...] | None) -> ApplyOptions:
    """Cached: a run of many cases uses a handful of option sets, and building one costs more than judging a line."""
    return ApplyOptions.from_mapping({name: getattr(options, name) for name in OPTION_NAMES}) \
        .with_known_files(known_files)


OPTION_NAMES = ("format", "on_failure", "strict", "first_match", "fuzzy")
SPEC_KEYS = frozenset({*OPTION_NAMES, "known_files", "why", "expect"})
LABEL_KEYS = frozenset({"model", "metadata"})
"""A case's labels: what the summary groups by, and what its JSON Lines carry along."""


@dataclass(frozen=True)
class CaseSpec:
    """What a case says about itself (every key optional)."""

    options: CaseOptions = CaseOptions()
    known_files: tuple[str, ...] | Literal[True] | None = None  # True: every file in before/
    why: str = ""
    expect: Expect | None = None


@dataclass(frozen=True)
class Case:
    """One recorded answer and its files: ``answer`` (text) or ``calls`` (tool calls), never both."""

    name: str
    before: CaseTree
    after: CaseTree
    answer: str | None = None
    calls: tuple[ToolCall, ...] | None = None
    spec: CaseSpec = CaseSpec()
    model: str = ""
    metadata: Mapping[str, Any] = field(default_factory=dict)


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_FORMATS = [fmt.value for fmt in Format]
_POLICIES = [policy.value for policy in Policy]
_EXPECTS = [expect.value for expect in Expect]


def spec_from_mapping(data: Mapping[str, Any], where: str = CASE_FILE) -> CaseSpec:
    """The spec a case.json object (or a row's option columns) gives; ``where`` names the source in errors.
    The labels may be there too (`labels_from_mapping` reads them)."""
    unknown = sorted(set(data) - SPEC_KEYS - LABEL_KEYS)
    if unknown:
        raise CaseError(f"{where} has unknown keys {unknown}; allowed: {sorted(SPEC_KEYS | LABEL_KEYS)}")
    return CaseSpec(
        options=CaseOptions(
            format=_choice(data, "format", _FORMATS, where),
            on_failure=_choice(data, "on_failure", _POLICIES, where),
            strict=_flag(data, "strict", where),
            first_match=_flag(data, "first_match", where),
            fuzzy=_flag(data, "fuzzy", where),
        ),
        known_files=_known_files(data.get("known_files"), where),
        why=_text(data, "why", where),
        expect=Expect(value) if (value := _choice(data, "expect", _EXPECTS, where)) else None,
    )


def labels_from_mapping(data: Mapping[str, Any], where: str = CASE_FILE) -> tuple[str, dict[str, Any]]:
    """The model and metadata a case.json object (or a row) names, checked."""
    model, metadata = data.get("model", ""), data.get("metadata", {})
    if not isinstance(model, str):
        raise CaseError(f"{where}: model must be a string")
    if not isinstance(metadata, dict):
        raise CaseError(f"{where}: metadata must be an object")
    return model, metadata


def spec_to_mapping(spec: CaseSpec) -> dict[str, Any]:
    """The keys of ``spec`` that say something, as case.json holds them."""
    data: dict[str, Any] = {name: value for name in OPTION_NAMES
                            if (value := getattr(spec.options, name)) is not None}
    if spec.known_files is not None:
        data["known_files"] = spec.known_files if spec.known_files is True else list(spec.known_files)
    if spec.why:
        data["why"] = spec.why
    if spec.expect is not None:
        data["expect"] = spec.expect.value
    return data


def _choice(data: Mapping[str, Any], key: str, allowed: list[str], where: str) -> str | None:
    value = data.get(key)
    if value is not None and value not in allowed:
        raise CaseError(f"{where}: {key} must be one of {allowed}, not {value!r}")
    return value


def _flag(data: Mapping[str, Any], key: str, where: str) -> bool | None:
    value = data.get(key)
    if value is not None and not isinstance(value, bool):
        raise CaseError(f"{where}: {key} must be true or false, not {value!r}")
    return value


def _text(data: Mapping[str, Any], key: str, where: str) -> str:
    value = data.get(key, "")
    if not isinstance(value, str):
        raise CaseError(f"{where}: {key} must be a string")
    return value


def _known_files(value: Any, where: str) -> tuple[str, ...] | Literal[True] | None:
    if value is None or value is True:
        return value
    if isinstance(value, list | tuple) and all(isinstance(item, str) for item in value):
        return tuple(value)
    raise CaseError(f"{where}: known_files must be a list of paths or true")


def tree_of(files: Mapping[str, bytes], where: str) -> CaseTree:
    """A tree from path → bytes, each path checked: relative, `/`-separated, inside the root, and never both a
    file and a folder. A path that would leave the case's root is a `CaseError`, never a file."""
    folders: set[str] = set()
    for path in files:
        problem = path_problem(path)
        if problem is not None:
            raise CaseError(f"{where}: the path {path!r} {problem}")
        parts = path.split("/")
        folders.update("/".join(parts[:depth]) for depth in range(1, len(parts)))
    clash = sorted(folders & set(files))
    if clash:
        raise CaseError(f"{where}: {clash[0]!r} is both a file and a folder")
    return CaseTree(dict(files), dict.fromkeys(files, FILE_MODE), tuple(sorted(folders, key=_depth_first)))


def _depth_first(folder: str) -> tuple[int, str]:
    return folder.count("/"), folder


def path_problem(path: str) -> str | None:
    """Why ``path`` cannot name a file of a case (None: it can)."""
    if path.startswith("/") or "\\" in path:
        return "must be a relative path with `/` separators"
    if _CONTROL.search(path):
        return "contains a control character"
    if any(part in ("", ".", "..") for part in path.split("/")):
        return "leaves the case's root or is not in plain form (no `.`, `..` or empty steps)"
    return None
