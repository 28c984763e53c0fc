"""What every storage engine shares: the row codec and the audit chain's hashes.

SQLite (``ltm_desktop.store``) and PostgreSQL (``ltm_desktop.postgres``) store the same
records and chain the same history, so a data dir moved from one to the other still
verifies. Nothing here talks to a database.
"""
