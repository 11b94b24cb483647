"""Inputs that are not marker text: V4A patches, unified diffs and whole-file answers.

Each front-end turns its input into the same `EditBlock`s the planner
decides for marker blocks (plus `delete` and `move` blocks), so every
guarantee of applying holds for every front-end. Pure: no I/O.
"""
