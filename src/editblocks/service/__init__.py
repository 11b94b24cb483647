"""The one engine behind every door: reading, planning, committing, undoing and the feedback, for any caller."""
