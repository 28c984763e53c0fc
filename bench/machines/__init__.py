"""Benchmarks of many machines on one database: resolving a project by its remote, a change
reaching another machine, and writes queued while the server is down."""
