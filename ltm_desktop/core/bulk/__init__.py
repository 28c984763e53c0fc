"""Bulk writes: thousands of removes, restores, keeps or edits in a few transactions, each memory still audited."""
