"""The memory engine: records, rules, precis and the service facade (no Qt, no SQL)."""
