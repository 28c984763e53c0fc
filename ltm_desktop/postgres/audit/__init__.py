"""The audit history in PostgreSQL: the log with its hash chain and reads, and verify."""
