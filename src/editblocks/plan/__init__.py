"""Planning: decide every block against in-memory copies of its files, and say what each file becomes.

Pure: the caller reads the files and hands their texts over (`Source`); the
plan says what every block did and what every changed file becomes.
"""

from editblocks.plan.planner import abort_plan, plan_edits
from editblocks.plan.state import FilePlan, Plan, PlanOptions, Source, default_policy

__all__ = ["FilePlan", "Plan", "PlanOptions", "Source", "abort_plan", "default_policy", "plan_edits"]
