"""Developer and CI scripts; a package so that the tests can import scripts/pg_cluster.py
(and mypy names each module once)."""
