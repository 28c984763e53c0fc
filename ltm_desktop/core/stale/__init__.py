"""Memories that name files, and staleness: the files' rules, the stale list, and reviewing it."""
