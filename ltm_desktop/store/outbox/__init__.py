"""The offline outbox's own SQLite files (the queue and the read cache): kept by the store,
the only package that imports sqlite3; the outbox (``ltm_desktop.outbox``) uses them."""
