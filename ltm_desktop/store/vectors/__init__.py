"""Vectors in SQLite: stored int8, read into per-scope arrays, published as snapshots for search."""
