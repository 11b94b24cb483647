"""Answers that are not marker text: V4A patches, unified diffs and whole-file answers.

Each reader turns its input into the same `EditBlock`s the planner decides
for marker blocks (plus `delete` and `move` blocks), so every guarantee of
applying holds for every kind of answer. Pure: no I/O.
"""
