"""Planning: decide every block against in-memory copies of its files, and say what each file becomes.

Pure: the caller reads the files and hands their texts over (`TargetFile`); the
plan says what every block did and what every changed file becomes.
"""

import warnings
from typing import Any

from editblocks.plan.planner import Decision, Planner, abort_plan, plan_edits
from editblocks.plan.state import FilePlan, Plan, PlanOptions, TargetFile, default_policy

__all__ = ["Decision", "FilePlan", "Plan", "PlanOptions", "Planner", "TargetFile", "abort_plan", "default_policy",
           "plan_edits"]


def __getattr__(name: str) -> Any:
    if name == "Source":  # the old name, kept for one minor version
        warnings.warn("editblocks.plan.Source is deprecated: use TargetFile", DeprecationWarning, stacklevel=2)
        return TargetFile
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
