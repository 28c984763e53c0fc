"""What happened: the audit records of a change, reading the history, what changed since a point, and verify."""
