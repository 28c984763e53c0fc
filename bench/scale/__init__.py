"""Benchmarks of how costs grow with the data: imports, acknowledged adds and the vector
backfill at 10k, 100k and 1M memories, and the inputs that were once quadratic."""
