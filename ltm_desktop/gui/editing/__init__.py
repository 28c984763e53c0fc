"""Editing memories: the editor, the conflicts a write can meet, and bulk edits of a selection."""
