"""Vectors as every engine keeps them in memory: int8 codes per scope, published as
immutable snapshots, searched in numpy (imported on first use only)."""
