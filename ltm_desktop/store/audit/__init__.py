"""The audit history in SQLite: the log, its hash chain, the chain's anchor file, its reads and verify."""
